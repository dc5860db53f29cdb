"""Debian's bpftrace, unmodified, in a session: its maps, programs and perf events are the
emulated kernel's (served bpf(2), perf_event_open(2), and the calls on their fds), and it prints
what it prints on Linux 6.1."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from kernel_paths import kernel_visible
from simtest import NOTIFY_ATTACHED, REPO, tracefs_sim, until_attached, without_notice

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("bpftrace") is None, reason="bpftrace is not installed"),
]
COUNT = re.compile(r"^@\[(.+)\]: (\d+)$")
BPFTEST = Path(__file__).resolve().parents[2] / "kernel_model/user/bpftest.c"


def host_bpftest(tmp_path) -> Path:
    """kernel_model/user/bpftest.c built for the host (static): a session's bpf(2) caller."""
    bpftest = tmp_path / "bpftest"
    subprocess.run(["gcc", "-static", "-O1", "-DHOST", "-o", str(bpftest), str(BPFTEST)], check=True, timeout=120)
    return bpftest


def bpftrace_while(tmp_path, program: str | None, workload: str, runs: int = 30,
                   tool: str | None = None) -> tuple[str, str]:
    """bpftrace -e PROGRAM (or bpftrace TOOL, a script file) in a session, stopped by SIGINT once
    WORKLOAD ran RUNS times (0.3 s apart) after its probes were attached.  Its stdout, and its
    stderr."""
    out, err = tmp_path / "bt.out", tmp_path / "bt.err"
    command = f"{NOTIFY_ATTACHED}=1 bpftrace " + (tool if tool else f"-e '{program}'")
    script = (f"{command} >{out} 2>{err} & bt=$!; " + until_attached(err) +
              f"for i in $(seq {runs}); do {workload}; sleep 0.3; done; "
              f"kill -INT $bt; for i in $(seq 120); do kill -0 $bt 2>/dev/null || break; sleep 0.5; done; "
              # still there a minute after SIGINT: say where its threads wait, then end it
              f"if kill -0 $bt 2>/dev/null; then echo 'bpftrace hung after SIGINT:'; "
              f"for t in /proc/$bt/task/*; do echo \"$t $(cat $t/wchan) $(cut -d' ' -f1-6 $t/syscall)\"; done; "
              f"kill -9 $bt; fi; wait $bt; echo bpftrace exited $?")
    result = tracefs_sim("run", "-c", script, timeout=420, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "bpftrace exited 0" in result.stdout, result.stdout + result.stderr + out.read_text() + err.read_text()
    return out.read_text(), without_notice(err.read_text())


def test_count_syscalls_by_comm(tmp_path):
    """`@[comm] = count()` on raw_syscalls:sys_enter: a per-cpu hash map in the kernel, counted
    by a tracepoint program attached through a perf event (PERF_EVENT_IOC_SET_BPF), read back
    at exit (BPF_MAP_GET_NEXT_KEY, BPF_MAP_LOOKUP_ELEM: a per-cpu map's every cpu's) and printed in bpftrace's order, smallest first."""
    marker = tmp_path / "bt_marker"
    shutil.copy("/bin/true", marker)
    out, err = bpftrace_while(tmp_path, "tracepoint:raw_syscalls:sys_enter { @[comm] = count() }", str(marker))
    lines = out.splitlines()
    assert lines[0] == "Attaching 1 probe...", out + err
    counts = [COUNT.match(line) for line in lines[1:] if line]
    assert counts and all(counts), out
    values = [int(m.group(2)) for m in counts]
    assert values == sorted(values), out
    by_comm = {m.group(1): int(m.group(2)) for m in counts}
    # the marker's runs after the program was attached; bpftrace's own calls after it attached
    assert by_comm.get("bt_marker", 0) > 0, out + err
    assert by_comm.get("bpftrace", 0) > 0, out + err


def test_printf_through_a_perf_event_array(tmp_path):
    """printf() is bpf_perf_event_output() into a BPF_OUTPUT perf event per cpu (a perf event
    array map), read by bpftrace from the mapped ring buffers it waits for with epoll: each
    system call of the marker, by number, ending with its exit_group (231)."""
    marker = tmp_path / "bt_marker"
    shutil.copy("/bin/true", marker)
    out, err = bpftrace_while(
        tmp_path, 'tracepoint:raw_syscalls:sys_enter /comm == "bt_marker"/ { printf("%s %d\\n", comm, args->id); }',
        str(marker))
    lines = out.splitlines()
    assert lines[0] == "Attaching 1 probe...", out + err
    calls = [line.split() for line in lines[1:] if line]
    assert calls and all(comm == "bt_marker" and nr.isdigit() for comm, nr in calls), out
    assert ["bt_marker", "231"] in calls, out


def test_begin_and_end_probes(tmp_path):
    """BEGIN and END: bpftrace 0.17 runs them with BPF_PROG_TEST_RUN of a raw tracepoint
    program (a kernel with it has no need of the uprobe on bpftrace's BEGIN_trigger); their
    printf()s come through the perf event array like any other, END's after the SIGINT."""
    marker = tmp_path / "bt_marker"
    shutil.copy("/bin/true", marker)
    out, err = bpftrace_while(
        tmp_path, 'BEGIN { printf("tracing\\n"); @start = nsecs; } '
        'tracepoint:raw_syscalls:sys_enter /comm == "bt_marker"/ { @calls = count(); } '
        'END { printf("ran %d ns\\n", (nsecs - @start) > 0); delete(@start); }', str(marker), runs=5)
    lines = [line for line in out.splitlines() if line]
    assert lines[:2] == ["Attaching 3 probes...", "tracing"], out + err
    assert lines[2] == "ran 1 ns", out + err
    assert re.fullmatch(r"@calls: [1-9]\d*", lines[3]) and len(lines) == 4, out + err


def test_tracepoint_args_typed_by_the_kernels_btf(tmp_path):
    """The one-liner the docs start with: `args->filename` of syscalls:sys_enter_openat. The
    format's field types (`const char *`, `umode_t`) come from the kernel's BTF, which bpftrace
    reads through bpf() (BPF_BTF_GET_NEXT_ID, BPF_BTF_GET_FD_BY_ID, BPF_OBJ_GET_INFO_BY_FD:
    `bpftrace --info` says `btf: yes`); str() reads the name from the opener's memory."""
    marker = tmp_path / "bt_marker"
    shutil.copy("/bin/cat", marker)
    (tmp_path / "opened").write_text("x\n")  # (a name within str()'s 64 bytes: run in tmp_path)
    out, err = bpftrace_while(
        tmp_path, 'tracepoint:syscalls:sys_enter_openat /comm == "bt_marker"/ { printf("%s %s\\n", comm, '
        'str(args->filename)); }', f"{marker} opened > /dev/null")
    lines = out.splitlines()
    assert lines[0] == "Attaching 1 probe...", out + err
    assert "bt_marker opened" in lines[1:], out + err
    info = tracefs_sim("run", "-c", "bpftrace --info 2>&1 | grep -w btf", timeout=200, cwd=tmp_path)
    assert info.stdout.split() == ["btf:", "yes"], info.stdout + info.stderr


def test_strftime_and_map_batches_as_on_6_1(tmp_path):
    """bpftrace --info finds what Debian's bpftrace finds on the real 6.1: bpf_ktime_get_boot_ns
    (`get_boot_ns`) and BPF_MAP_LOOKUP_BATCH (`map batch`).  strftime() adds the kernel's
    CLOCK_BOOTTIME to the wall clock at boot bpftrace computes from the host's clocks: the
    kernel's boot clock is the host's, so the date printed is today's."""
    script = ("bpftrace --info 2>&1 | grep -E 'get_boot_ns|map batch'; date -u +%F; "
              "bpftrace -e 'BEGIN { printf(\"%s\\n\", strftime(\"%F\", nsecs)); exit(); }' 2>/dev/null; date -u +%F")
    result = tracefs_sim("run", "-c", script, timeout=200, cwd=tmp_path)
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    assert lines[:2] == ["get_boot_ns: yes", "map batch: yes"], result.stdout + result.stderr
    before, printed, after = lines[2], lines[-2], lines[-1]
    assert printed in (before, after), result.stdout + result.stderr


def test_list_kprobes(tmp_path):
    """`bpftrace -l 'kprobe:vfs_*'` lists the emulated kernel's traceable functions of that
    name (its available_filter_functions), not the host's."""
    result = tracefs_sim("run", "-c", "bpftrace -l 'kprobe:vfs_*' && echo == && "
                         "cat /sys/kernel/debug/tracing/available_filter_functions", timeout=200, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    listed, functions = result.stdout.split("\n==\n")
    expected = {f"kprobe:{name}" for name in functions.split() if name.startswith("vfs_")}
    assert "kprobe:vfs_read" in expected
    assert set(listed.split()) == expected, listed


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_killed_bpftrace_leaves_nothing_in_the_kernel(tmp_path):
    """bpftrace killed by SIGKILL mid-run: its process's exit closes its fds in the kernel, so
    its programs (detached from their perf events) and maps are freed: BPF_PROG_GET_NEXT_ID and
    BPF_MAP_GET_NEXT_ID from id 0 find none (the frees wait for an RCU grace period)."""
    bpftest = host_bpftest(tmp_path)
    ids = f"{bpftest} raw 11 0000000000000000 8 raw 12 0000000000000000 8"
    script = (f"{NOTIFY_ATTACHED}=1 bpftrace -e 'tracepoint:raw_syscalls:sys_enter {{ @[comm] = count() }}' "
              f">bt.out 2>&1 & bt=$!; " + until_attached("bt.out") + "sleep 3; "
              f"{ids}; kill -KILL $bt; wait $bt; echo killed $?; "
              f"for i in $(seq 100); do {ids} >ids.out; grep -q ': 0' ids.out || break; sleep 0.1; done; cat ids.out")
    result = tracefs_sim("run", "-c", script, timeout=420, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines == ["raw: 0", "raw: 0", "killed 137", "raw: -2", "raw: -2"], \
        result.stdout + (tmp_path / "bt.out").read_text()



EVENT_SOURCE = "/sys/bus/event_source/devices"
# (a "(..., 0)" row counts negative values: a read that failed, bpftrace's own EAGAINs among them)
HIST_ROW = re.compile(r"^(?:\[(\d+[KMG]?)(?:, (\d+[KMG]?)\))?\]?|\((\.\.\.), 0\))\s+(\d+) \|@*\s*\|$")


def hist_rows(out: str, name: str) -> list[tuple[str, int]]:
    """A bpftrace power-of-two histogram's rows, (its low bound as printed: "0", "2K"..., count),
    after its `@name: ` line"""
    lines = out.splitlines()
    start = lines.index(f"@{name}: ") + 1
    rows = []
    for line in lines[start:]:
        if not line:
            break
        m = HIST_ROW.match(line)
        assert m, (line, out)
        rows.append((m.group(1) or m.group(3), int(m.group(4))))
    return rows


def test_kprobe_printf_with_comm(tmp_path):
    """`kprobe:do_sys_openat2 { printf("%s %s\\n", comm, str(arg1)) }`: a kprobe PMU event
    (perf_event_open of /sys/bus/event_source/devices/kprobe/type, the function's name in config1)
    with a KPROBE program set on it, run by the guest's kprobe handler at each open: the marker's
    opens (its loader's) show with its comm.  (str(arg1) reads a user pointer with
    probe_read_kernel_str, as bpftrace 0.17 does: empty, as on the reference 6.1.)  The probe is
    in the kernel's kprobes/list while bpftrace runs, and gone when it has exited."""
    marker = tmp_path / "bt_marker"
    shutil.copy("/bin/true", marker)
    out, err, listed = tmp_path / "bt.out", tmp_path / "bt.err", tmp_path / "list"
    program = 'kprobe:do_sys_openat2 { printf("%s %s\\n", comm, str(arg1)) }'
    script = (f"cat /sys/bus/event_source/devices/kprobe/type /sys/bus/event_source/devices/kprobe/format/retprobe; "
              f"{NOTIFY_ATTACHED}=1 bpftrace -e '{program}' >{out} 2>{err} & bt=$!; " + until_attached(err) +
              f"for i in $(seq 30); do {marker}; sleep 0.3; done; "
              f"cat /sys/kernel/debug/kprobes/list >{listed}; "
              f"kill -INT $bt; wait $bt; echo bpftrace exited $?; echo ==; cat /sys/kernel/debug/kprobes/list")
    host_pmus = sorted(os.listdir(EVENT_SOURCE)) if os.path.isdir(EVENT_SOURCE) else None
    result = tracefs_sim("run", "-c", script, timeout=420, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    # the session's view was its own: the host's directory is as it was
    assert (sorted(os.listdir(EVENT_SOURCE)) if os.path.isdir(EVENT_SOURCE) else None) == host_pmus
    head, after = result.stdout.split("==\n")
    assert head.splitlines() == ["6", "config:0", "bpftrace exited 0"], result.stdout + err.read_text()
    assert "do_sys_openat2+0x0" in listed.read_text(), listed.read_text()
    assert "do_sys_openat2" not in after, after
    lines = out.read_text().splitlines()
    assert lines[0] == "Attaching 1 probe...", out.read_text() + err.read_text()
    comms = [line.split(" ", 1)[0] for line in lines[1:] if line]
    assert "bt_marker" in comms, out.read_text()


def test_kretprobe_histogram_of_vfs_read(tmp_path):
    """`kretprobe:vfs_read { @bytes = hist(retval) }`: a kretprobe (config bit 0) whose program
    reads the return value from the registers at the return; bpftrace prints the power-of-two
    histogram at Ctrl-C.  cat reads the file (its size) and then 0 at its end."""
    data = tmp_path / "data"
    data.write_bytes(b"x" * 3000)
    out, err = bpftrace_while(tmp_path, "kretprobe:vfs_read { @bytes = hist(retval) }", f"cat {data} >/dev/null")
    assert out.splitlines()[0] == "Attaching 1 probe...", out + err
    rows = dict(hist_rows(out, "bytes"))
    assert rows.get("0", 0) > 0, out
    assert rows.get("2K", 0) > 0, out


def test_kprobe_kretprobe_latency_with_delete(tmp_path):
    """The issue's fourth one-liner: a kprobe and a kretprobe on one function (two PMU events,
    one probed point), a map keyed by tid written at the entry and read and deleted at the
    return; `nsecs` moves between the two, so the latencies are not all 0."""
    marker = tmp_path / "bt_marker"
    shutil.copy("/bin/true", marker)
    program = ("kprobe:do_sys_open { @start[tid] = nsecs } "
               "kretprobe:do_sys_open /@start[tid]/ { @lat = hist(nsecs - @start[tid]); delete(@start[tid]) }")
    out, err = bpftrace_while(tmp_path, program, str(marker))
    assert out.splitlines()[0] == "Attaching 2 probes...", out + err
    rows = hist_rows(out, "lat")
    assert sum(n for _, n in rows) > 0, out
    assert any(n for low, n in rows if low != "0"), out


def test_uprobe_and_uretprobe_on_a_guest_program(tmp_path):
    """`uprobe:PATH:main` and `uretprobe:PATH:main` on a program the emulated kernel runs
    (`tracefs-sim exec`): two uprobe PMU events (perf_event_open of
    /sys/bus/event_source/devices/uprobe/type, the path in config1, main's file offset in
    config2, config bit 0 the uretprobe's), with KPROBE programs on the user registers: argc at
    the entry, main's return value at the return, once a run.  uprobe_events stays empty
    meanwhile: no tracefs fallback was needed."""
    progtest = kernel_visible(REPO / "kernel_model" / "build" / "user" / "progtest.elf")
    out, err, events = tmp_path / "bt.out", tmp_path / "bt.err", tmp_path / "events"
    program = f"uprobe:{progtest}:main {{ @[comm, arg0] = count(); }} uretprobe:{progtest}:main {{ @ret[retval] = count(); }}"
    script = (f"cat /sys/bus/event_source/devices/uprobe/type /sys/bus/event_source/devices/uprobe/format/retprobe; "
              f"{NOTIFY_ATTACHED}=1 bpftrace -e '{program}' >{out} 2>{err} & bt=$!; " + until_attached(err) +
              f"cat /sys/kernel/tracing/uprobe_events >{events}; "
              f"for i in 1 2 3; do tracefs-sim exec {progtest} hello a b >/dev/null; done; "
              f"kill -INT $bt; wait $bt; echo bpftrace exited $?")
    result = tracefs_sim("run", "-c", script, timeout=420, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["7", "config:0", "bpftrace exited 0"], result.stdout + err.read_text()
    assert events.read_text() == ""
    lines = [line for line in out.read_text().splitlines() if line]
    assert lines == ["Attaching 2 probes...", "@[progtest.elf, 4]: 3", "@ret[0]: 3"], out.read_text() + err.read_text()
