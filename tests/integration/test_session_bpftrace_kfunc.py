"""bpftrace's `kfunc:`/`kretfunc:` probes in a session: fentry/fexit programs (BPF_PROG_TYPE_TRACING
by the function's BTF id, attach_btf_obj_fd vmlinux's BTF) attached with BPF_RAW_TRACEPOINT_OPEN,
which writes a BPF trampoline into the emulated kernel's text and makes the function's ftrace site
call it (kernel/bpf/trampoline.c)."""

import os
import re
import shutil

import pytest
from simtest import NOTIFY_ATTACHED, SESSION_TIMEOUT, tracefs_sim, until_attached
from test_session_bpftrace import COUNT, bpftrace_while, hist_rows, host_bpftest

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("bpftrace") is None, reason="bpftrace is not installed"),
]


def test_kfunc_support_and_listing(tmp_path):
    """`bpftrace --info` finds kfunc support (its probe loads a fentry program on sched_fork),
    and `bpftrace -l 'kfunc:vfs_*'` lists the kernel's BTF functions of that name"""
    result = tracefs_sim("run", "--workload", "none", "-c",
                         "bpftrace --info 2>&1 | grep -w kfunc; bpftrace -l 'kfunc:vfs_*'", timeout=200, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["kfunc:", "yes"], result.stdout + result.stderr
    listed = set(lines[1:])
    assert {"kfunc:vmlinux:vfs_read", "kfunc:vmlinux:vfs_write"} <= listed, result.stdout
    assert all(line.startswith("kfunc:vmlinux:vfs_") for line in listed), result.stdout


def test_kfunc_counts_vfs_read_by_comm(tmp_path):
    """`kfunc:vfs_read { @[comm] = count() }`: the marker's reads counted by a fentry program
    on vfs_read's trampoline"""
    marker = tmp_path / "bt_marker"
    shutil.copy("/bin/cat", marker)
    (tmp_path / "data").write_text("x\n")
    out, err = bpftrace_while(tmp_path, "kfunc:vfs_read { @[comm] = count() }", f"{marker} {tmp_path}/data >/dev/null",
                              runs=10)
    lines = out.splitlines()
    assert lines[0] == "Attaching 1 probe...", out + err
    counts = {m.group(1): int(m.group(2)) for m in map(COUNT.match, lines[1:]) if m}
    # each cat reads the file, then its end (more for its loader's reads of libraries)
    assert counts.get("bt_marker", 0) >= 20, out + err


def test_kretfunc_histograms_of_retval_and_args(tmp_path):
    """`kretfunc:vfs_read`: retval (the return value after the arguments in the context) and
    args->count (typed by the BTF of vfs_read) as power-of-two histograms"""
    data = tmp_path / "data"
    data.write_bytes(b"x" * 3000)
    out, err = bpftrace_while(tmp_path, 'kretfunc:vfs_read /comm == "cat"/ { @bytes = hist(retval); '
                              '@count = hist(args->count) }', f"cat {data} >/dev/null", runs=5)
    assert out.splitlines()[0] == "Attaching 1 probe...", out + err
    rows = dict(hist_rows(out, "bytes"))
    assert rows.get("0", 0) > 0 and rows.get("2K", 0) > 0, out
    counts = dict(hist_rows(out, "count"))
    assert sum(counts.values()) >= sum(rows.values()), out
    assert all(low not in ("0", "1") for low, n in counts.items() if n), out


def test_kfunc_reads_struct_members_through_args(tmp_path):
    """`args->file->f_inode->i_ino` and `str(args->file->f_path.dentry->d_name.name)` in a kfunc
    program: bpftrace 0.17 types args by vfs_read's BTF and reads each member with
    bpf_probe_read_kernel at the offsets of the kernel's BTF (it does not use 6.1's direct loads
    through PTR_TO_BTF_ID): the marker's reads of its file count under that file's inode number
    (the host's, which the session's files have) and name."""
    marker = tmp_path / "bt_marker"
    shutil.copy("/bin/cat", marker)
    data = tmp_path / "data"
    data.write_text("x\n")
    out, err = bpftrace_while(tmp_path, 'kfunc:vfs_read /comm == "bt_marker"/ { '
                              '@[args->file->f_inode->i_ino, str(args->file->f_path.dentry->d_name.name)] = count() }',
                              f"{marker} {data} >/dev/null", runs=5)
    counts = {m.group(1): int(m.group(2)) for m in map(COUNT.match, out.splitlines()) if m}
    # cat reads the file, then its end, each run (the first may come while bpftrace still attaches,
    # the last ones be replayed after bpftrace read its map when the kernel runs behind a loaded host)
    assert 2 <= counts.get(f"{data.stat().st_ino}, data", 0) <= 10, out + err


def test_kfunc_with_the_function_tracer_on_the_same_function(tmp_path):
    """The function tracer on vfs_read and a kfunc program on it at the same time (6.1's ftrace
    direct call sharing the site): both see the calls; enabled_functions shows the direct call
    while bpftrace runs (two users), and the function tracer's alone after"""
    script = ("cd /sys/kernel/tracing; echo vfs_read > set_ftrace_filter; echo function > current_tracer; "
              f"{NOTIFY_ATTACHED}=1 bpftrace -e 'kfunc:vfs_read {{ @[comm] = count() }}' >bt.out 2>&1 & bt=$!; "
              + until_attached("bt.out") +
              "cat enabled_functions; for i in 1 2 3; do cat /etc/hostname >/dev/null; done; sleep 0.5; "
              "kill -INT $bt; wait $bt; echo bpftrace exited $?; cat enabled_functions; "
              "grep -c ' vfs_read <-' trace; echo nop > current_tracer; echo > set_ftrace_filter; cat bt.out")
    script = script.replace("bt.out", str(tmp_path / "bt.out"))
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    # R and D (6.1's direct ops save the registers), then 6.1's line naming the trampoline
    assert re.match(r"vfs_read \(2\) R   D ", lines[0]), result.stdout
    assert re.fullmatch(r"\tdirect-->bpf_trampoline_\d+\+0x0/0x1000", lines[1]), result.stdout
    assert lines[2] == "bpftrace exited 0", result.stdout
    assert re.match(r"vfs_read \(1\) ", lines[3]) and "D" not in lines[3], result.stdout
    assert int(lines[4]) > 0, result.stdout
    counts = {m.group(1): int(m.group(2)) for m in map(COUNT.match, lines[5:]) if m}
    assert counts.get("cat", 0) >= 3, result.stdout


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("probe", ["kfunc", "kretfunc"])
def test_a_killed_bpftrace_leaves_no_trampoline(tmp_path, probe):
    """bpftrace killed by SIGKILL with a kfunc/kretfunc probe: its exit closes the link, the site
    goes back to its nop (enabled_functions empty) and, after a grace period (and once no task
    is in vfs_read through the old trampoline), no program is left (BPF_PROG_GET_NEXT_ID)"""
    bpftest = host_bpftest(tmp_path)
    ids = f"{bpftest} raw 11 0000000000000000 8"
    script = (f"{NOTIFY_ATTACHED}=1 bpftrace -e '{probe}:vfs_read {{ @[comm] = count() }}' >bt.out 2>&1 & bt=$!; "
              + until_attached("bt.out") +
              f"cat /sys/kernel/tracing/enabled_functions; kill -KILL $bt; wait $bt; echo killed $?; "
              f"for i in $(seq 100); do {ids} >ids.out; grep -q ': 0' ids.out || break; sleep 0.1; done; "
              f"cat ids.out; cat /sys/kernel/tracing/enabled_functions; echo end")
    result = tracefs_sim("run", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("vfs_read (1) R   D"), lines
    assert lines[1].startswith("\tdirect-->bpf_trampoline_"), lines
    assert lines[2:] == ["killed 137", "raw: -2", "end"], result.stdout + (tmp_path / "bt.out").read_text()


def test_disasm_shows_the_trampoline(tmp_path):
    """`tracefs-sim disasm vfs_read` while a kretfunc probe is on: its site calls the trampoline,
    named as 6.1's kallsyms names it (bpf_trampoline_<bpf_trampoline_compute_key()>);
    `tracefs-sim disasm` of that name shows its code: the arguments saved,
    __bpf_tramp_enter, the body past the site, the return value stored, the program (its JITed
    image) between __bpf_prog_enter and __bpf_prog_exit, and the return past the function's
    frame"""
    script = (f"{NOTIFY_ATTACHED}=1 bpftrace -e 'kretfunc:vfs_read {{ @[comm] = count() }}' >bt.out 2>&1 & bt=$!; "
              + until_attached("bt.out") +
              "tracefs-sim disasm vfs_read | sed -n 2p; "
              "t=$(tracefs-sim disasm vfs_read | sed -n 2p | grep -o '<bpf_trampoline_[0-9]*>' | tr -d '<>'); "
              "echo == $t; tracefs-sim disasm $t; kill -INT $bt; wait $bt; echo bpftrace exited $?")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    site = re.search(r"call +([0-9a-f]+) <(bpf_trampoline_\d+)>\s+; ftrace site \(call\)", lines[0])
    assert site, result.stdout
    name = site.group(2)
    key = int(name.removeprefix("bpf_trampoline_"))
    assert key >> 31 == 0b11, name   # vmlinux's BTF object (1) << 32 | 0x80000000 | vfs_read's BTF id
    assert lines[1] == f"== {name}", result.stdout
    listing = "\n".join(lines[2:])
    assert f"{site.group(1)} <{name}>:" in listing, listing
    calls = re.findall(r"call +[0-9a-f]+ <([\w.+]+)>", listing)
    assert calls[0] == "__bpf_tramp_enter" and calls[1] == "vfs_read+0x5", calls
    # the program's JITed image, by its kallsyms name (interpreted: __bpf_prog_run<N>)
    assert calls[2] == "__bpf_prog_enter" and calls[3].startswith("bpf_prog_") and \
        calls[4:] == ["__bpf_prog_exit", "__bpf_tramp_exit"], calls
    assert re.search(r"add +\$0x8,%rsp\n.*\tret", listing), listing
    assert lines[-1] == "bpftrace exited 0", result.stdout


def test_kallsyms_lists_the_trampoline_while_it_exists(tmp_path):
    """/proc/kallsyms names the trampoline the kernel wrote (6.1's bpf_image_ksym_add: a `t`
    symbol of `[bpf]`, at the address vfs_read's site calls), and no longer once bpftrace left"""
    script = (f"{NOTIFY_ATTACHED}=1 bpftrace -e 'kfunc:vfs_read {{ @[comm] = count() }}' >bt.out 2>&1 & bt=$!; "
              + until_attached("bt.out") +
              "grep 'bpf_trampoline.*\\[bpf\\]' /proc/kallsyms; tracefs-sim disasm vfs_read | sed -n 2p; "
              "kill -INT $bt; wait $bt; echo bpftrace exited $?; grep -c '\\[bpf\\]' /proc/kallsyms")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    lines = result.stdout.splitlines()
    m = re.fullmatch(r"([0-9a-f]{16}) t (bpf_trampoline_\d+)\t\[bpf\]", lines[0])
    assert m, result.stdout + result.stderr
    site = re.search(r"call +([0-9a-f]+) <(bpf_trampoline_\d+)>", lines[1])
    assert site and (int(site.group(1), 16), site.group(2)) == (int(m.group(1), 16), m.group(2)), result.stdout
    assert lines[2:] == ["bpftrace exited 0", "0"], result.stdout


def test_path_of_each_file_closed(tmp_path):
    """bpftrace's path() (bpf_d_path, for fentry programs on 6.1's allowlist), as its reference
    guide shows it: `kfunc:filp_close { printf("%s\\n", path(args->filp->f_path)); }` prints the
    name of each file closed.  bpftrace finds d_path with a program on dentry_open (open_tree's
    O_PATH open here): `bpftrace --info` says `dpath: yes`, as on the real 6.1."""
    marker = tmp_path / "bt_marker"
    shutil.copy("/bin/cat", marker)
    out, err = bpftrace_while(tmp_path, 'kfunc:filp_close /comm == "bt_marker"/ { printf("%s\\n", '
                              'path(args->filp->f_path)); }', f"{marker} /etc/hostname >/dev/null", runs=3)
    lines = out.splitlines()
    assert lines[0] == "Attaching 1 probe...", out + err
    assert "/etc/hostname" in lines[1:], out + err
    info = tracefs_sim("run", "-c", "bpftrace --info 2>&1 | grep -w dpath", timeout=200, cwd=tmp_path)
    assert info.stdout.split() == ["dpath:", "yes"], info.stdout + info.stderr
