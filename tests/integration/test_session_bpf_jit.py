"""The emulated kernel's BPF JIT in a session: bpftrace's programs are compiled to x86-64 as they
load (net.core.bpf_jit_enable, 1 as on Debian's 6.1, is the kernel's in /proc/sys/net/core),
/proc/kallsyms lists each image as 6.1 does (`t bpf_prog_<tag>[_<name>]\t[bpf]`) while the
program exists, and `tracefs-sim disasm` shows its code."""

import os
import re
import shutil

import pytest
from simtest import NOTIFY_ATTACHED, SESSION_TIMEOUT, tracefs_sim, until_attached

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("bpftrace") is None, reason="bpftrace is not installed"),
]
KSYM = re.compile(r"([0-9a-f]{16}) t (bpf_prog_[0-9a-f]{16}\w*)\t\[bpf\]")


def session_lines(tmp_path, script: str) -> list[str]:
    """The lines a `run` session of script printed (it must succeed)."""
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def test_bpftrace_runs_jited_and_kallsyms_lists_the_program(tmp_path):
    """a kprobe program counting vfs_read by comm, JITed: its kallsyms line while bpftrace runs
    (none after), its code in `tracefs-sim disasm` (6.1's prologue, the map lookup's call), and
    the counts it made"""
    script = ("cat /proc/sys/net/core/bpf_jit_enable; "
              f"{NOTIFY_ATTACHED}=1 bpftrace -e 'kprobe:vfs_read {{ @[comm] = count() }}' >bt.out 2>bt.err & bt=$!; "
              + until_attached("bt.err") +
              "for i in 1 2 3; do cat /proc/version >/dev/null; done; "
              "grep '\\[bpf\\]' /proc/kallsyms >ksyms; cat ksyms; echo ==; "
              "tracefs-sim disasm $(grep -o 'bpf_prog_[0-9a-f]*[a-z_]*' ksyms | head -1); echo ==; "
              "kill -INT $bt; wait $bt; echo bpftrace exited $?; cat bt.out; echo ==; grep -c '\\[bpf\\]' /proc/kallsyms; true")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.split("\n==\n")
    assert len(lines) == 4, result.stdout + result.stderr
    head, listing, tail, count = lines
    jit_enable, *symbols = head.splitlines()
    assert jit_enable == "1"
    programs = [KSYM.fullmatch(line) for line in symbols]
    assert programs and all(programs), head
    name, start = programs[0].group(2), int(programs[0].group(1), 16)
    assert listing.splitlines()[0] == f"{start:016x} <{name}>:", listing
    body = listing.splitlines()[1:]
    assert re.search(r"\tnopl +0x0\(%rax,%rax,1\)", body[0]) and "xchg   %ax,%ax" in body[1], listing
    assert "push   %rbp" in body[2] and "mov    %rsp,%rbp" in body[3], listing
    assert any(re.search(r"call +[0-9a-f]+ <", line) for line in body), listing   # its helpers
    assert re.search(r"\tleave\s*\n.*\tret", listing), listing
    assert tail.splitlines()[0] == "bpftrace exited 0", tail
    assert "@[cat]: " in tail, tail
    assert count.strip() == "0", result.stdout


def test_bpf_jit_enable_0_interprets(tmp_path):
    """bpf_jit_enable 0 (written in the session: the kernel's variable, not the host's): the
    programs loaded then are interpreted (no kallsyms line) and count the same.  The JIT's other
    sysctls, which this kernel has not, are absent (not the host's)"""
    script = ("echo 0 >/proc/sys/net/core/bpf_jit_enable; cat /proc/sys/net/core/bpf_jit_enable; "
              f"{NOTIFY_ATTACHED}=1 bpftrace -e 'kprobe:vfs_read {{ @[comm] = count() }}' >bt.out 2>bt.err & bt=$!; "
              + until_attached("bt.err") +
              "for i in 1 2 3; do cat /proc/version >/dev/null; done; grep -c '^[0-9a-f]* t bpf_prog_.*\\[bpf\\]' /proc/kallsyms; "
              "kill -INT $bt; wait $bt; echo bpftrace exited $?; cat bt.out; "
              "echo 1 >/proc/sys/net/core/bpf_jit_enable; cat /proc/sys/net/core/bpf_jit_enable; "
              "for f in harden kallsyms limit; do cat /proc/sys/net/core/bpf_jit_$f >/dev/null 2>&1 || echo no $f; done")
    lines = session_lines(tmp_path, script)
    assert lines[:3] == ["0", "0", "bpftrace exited 0"], lines
    assert any(line.startswith("@[cat]: ") for line in lines), lines
    assert lines[-4:] == ["1", "no harden", "no kallsyms", "no limit"], lines   # absent: not the host's
    with open("/proc/sys/net/core/bpf_jit_enable") as f:   # the host's own, untouched
        assert f.read().strip() in ("0", "1", "2")


def test_the_trace_names_a_jited_programs_address_and_its_map_calls(tmp_path):
    """The function tracer on what a tracepoint program calls: the parent of each is the
    program's image, named as kallsyms names it (bpf_prog_<tag>_<name>: libbpf gives bpftrace's
    programs their names), and its map update calls the
    hash map's own function, as 6.1's verifier patches the helper call for the JIT"""
    script = ("cd /sys/kernel/tracing; echo 'bpf_get_current_pid_tgid htab_map_update_elem' > set_ftrace_filter; "
              f"{NOTIFY_ATTACHED}=1 bpftrace -e 'tracepoint:syscalls:sys_enter_read {{ @[pid] = count() }}' "
              f">{tmp_path}/bt.out 2>{tmp_path}/bt.err & bt=$!; "
              + until_attached(f"{tmp_path}/bt.err") +
              "echo function > current_tracer; cat /proc/version >/dev/null; echo 0 > tracing_on; "
              "grep ' t bpf_prog_[0-9a-f]\\{16\\}' /proc/kallsyms; echo ==; grep -v '^#' trace; "
              "kill -INT $bt; wait $bt")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    symbols, trace = result.stdout.split("==\n")
    programs = {line.split()[2] for line in symbols.splitlines()}
    calls = re.findall(r": (\w+) <-(\S+)$", trace, re.M)
    assert calls and {parent for _, parent in calls} <= programs, result.stdout
    assert {called for called, _ in calls} == {"bpf_get_current_pid_tgid", "htab_map_update_elem"}, result.stdout


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_perf_record_is_told_of_each_program_as_ksymbol_and_bpf_event(tmp_path):
    """perf record -a while bpftrace loads and unloads its programs: PERF_RECORD_KSYMBOL (the
    image's address, length and kallsyms name; flags 0x1 when it goes) and PERF_RECORD_BPF_EVENT
    (type 1 load, 2 unload, the program's id), as 6.1's perf_event_bpf_event() tells them"""
    script = ("perf record -q -e cpu-clock -a -o perf.data -- bpftrace -e "
              "'kprobe:vfs_read { @ = count() } interval:ms:200 { exit() }' >bt.out 2>&1; "
              "perf script -i perf.data --show-bpf-events 2>/dev/null | grep -E 'PERF_RECORD_(KSYMBOL|BPF_EVENT)'")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=SESSION_TIMEOUT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    ksyms = re.findall(r"PERF_RECORD_KSYMBOL addr ([0-9a-f]+) len (\d+) type 1 flags (0x[01]) name (bpf_prog_[0-9a-f]{16}\w*)",
                       result.stdout)
    events = re.findall(r"PERF_RECORD_BPF_EVENT type ([12]), flags 0, id (\d+)", result.stdout)
    assert ksyms and len(ksyms) == len(events), result.stdout
    loaded = {ev_id for kind, ev_id in events if kind == "1"}
    assert loaded and loaded == {ev_id for kind, ev_id in events if kind == "2"}, result.stdout   # each went too
    assert {name for *_, flags, name in ksyms if flags == "0x0"} == {name for *_, flags, name in ksyms if flags == "0x1"}
    assert all(int(length) > 0 for _, length, _, _ in ksyms), result.stdout


def test_perf_record_is_told_of_each_trampoline_page(tmp_path):
    """A kfunc program's trampoline: PERF_RECORD_KSYMBOL of its page as 6.1's
    bpf_image_ksym_add() tells it (the page's address, 4096, `bpf_trampoline_<key>`: vmlinux's
    BTF object id 1 in the high half), and once the image is freed after its grace period, the
    same with flags 0x1"""
    script = ("perf record -q -e cpu-clock -a -o perf.data -- sh -c \"bpftrace -e "
              "'kfunc:vfs_read { @ = count() } interval:ms:200 { exit() }' >bt.out 2>&1; sleep 0.5\"; "
              "perf script -i perf.data --show-bpf-events 2>/dev/null | grep -E 'PERF_RECORD_KSYMBOL'")
    lines = session_lines(tmp_path, script)
    tramps = [m.groups() for m in (re.search(r"PERF_RECORD_KSYMBOL addr ([0-9a-f]+) len (\d+) type 1 flags (0x[01]) "
                                             r"name (bpf_trampoline_\d+)$", line) for line in lines) if m]
    assert tramps, lines
    assert all(length == "4096" and int(name.split("_")[-1]) >> 32 == 1 for _, length, _, name in tramps), tramps
    added = {(addr, name) for addr, _, flags, name in tramps if flags == "0x0"}
    assert added and added == {(addr, name) for addr, _, flags, name in tramps if flags == "0x1"}, tramps


# a KPROBE program `r0 = 0; exit` loaded with bpf(BPF_PROG_LOAD), its pid printed first
_LOAD_TINY = r"""
import ctypes, os, struct
print(os.getpid(), flush=True)
insns = ctypes.create_string_buffer(struct.pack("<BBhi", 0xb7, 0, 0, 0) + struct.pack("<BBhi", 0x95, 0, 0, 0))
lic = ctypes.create_string_buffer(b"GPL")
attr = ctypes.create_string_buffer(struct.pack("<IIQQIIQII16s", 2, 2, ctypes.addressof(insns),
                                               ctypes.addressof(lic), 0, 0, 0, 0, 0, b"tiny"), 128)
fd = ctypes.CDLL(None, use_errno=True).syscall(321, 5, attr, 128)
print("fd", fd if fd < 0 else "ok", ctypes.get_errno() if fd < 0 else "")
"""


def test_bpf_jit_enable_2_dumps_each_image_to_the_kernel_log(tmp_path):
    """bpf_jit_enable 2: the kernel warns once in its log, then logs each image it JITs as 6.1's
    bpf_jit_dump() does; for `r0 = 0; exit` the lines Linux 6.1 logged for it (its 16 bytes:
    the patchable nop, the tail-call nop, the frame, `xor eax, eax`, leave, ret, the SLS int3).
    3 is EINVAL and changes nothing."""
    (tmp_path / "tiny.py").write_text(_LOAD_TINY)
    script = ("echo 3 >/proc/sys/net/core/bpf_jit_enable || echo refused; cat /proc/sys/net/core/bpf_jit_enable; "
              "echo 2 >/proc/sys/net/core/bpf_jit_enable; cat /proc/sys/net/core/bpf_jit_enable; "
              "python3 tiny.py; dmesg | tail -3; echo 1 >/proc/sys/net/core/bpf_jit_enable")
    lines = session_lines(tmp_path, script)
    assert lines[:3] == ["refused", "1", "2"], lines
    pid, loaded, *log = lines[3:]
    assert loaded == "fd ok ", lines
    log = [re.sub(r"^\[ *\d+\.\d+\] ", "", line) for line in log]
    assert log == ["bpf_jit_enable = 2 was set! NEVER use this in production, only for JIT debugging!",
                   f"flen=2 proglen=16 pass=3 image=(____ptrval____) from=python3 pid={pid}",
                   "JIT code: 00000000: 0f 1f 44 00 00 66 90 55 48 89 e5 31 c0 c9 c3 cc"], lines
