"""The uprobe PMU (kernel/events/core.c's perf_uprobe, trace_event_perf.c's perf_uprobe_init,
trace_uprobe.c's create_local_trace_uprobe): a guest program opens a perf event of type 7 on a
file's path (config1) and offset (config2), the kernel looks the path up and asks the host's
uprobe engine for a consumer of its own (machine/kernel_requests.py, probes/uprobes.py), whose
hits, in the guest's handler chain, count the event (read(2)), run the KPROBE program set on it
with PERF_EVENT_IOC_SET_BPF on the user registers, and write its records; closing the event
takes the consumer away.  The guest program is bpftest (kernel_model/user/bpftest.c), run from
its file on the host, and it probes itself: `num`, its parser of numbers, runs once for each
number of its command line.  The figures are those the real 6.1 gave bpftest -DHOST for the
same command lines."""
from __future__ import annotations

from pathlib import Path

from bpf_asm import PROG_KPROBE, PROG_TRACEPOINT, MAP_HASH, R0, W, exit_, mov64_imm, prog, st
from kernel_paths import kernel_visible
from test_bpf_trace import count_into
from test_kprobe_pmu import by_retval, count, key, stacked  # noqa: F401 (a fixture: the stack's engines answer)
from tests.probes.test_uprobes import file_offset

EINVAL, ENOENT, EOPNOTSUPP = 22, 2, 95
PERF_TYPE_UPROBE = 7
BPFTEST = kernel_visible(Path(__file__).resolve().parents[2] / "kernel_model" / "build" / "user" / "bpftest.elf")
NUM = file_offset(BPFTEST, "num")


def bpftest(machine, *args) -> list[str]:
    out: list[bytes] = []
    proc = machine.spawn([str(BPFTEST), *map(str, args)], out.append)
    status = proc.wait(120)
    assert status is not None, f"bpftest {args} did not finish"
    text = b"".join(out).decode()
    assert status == 0, (status, text, machine.console_output()[-2000:])
    return text.splitlines()


def no_points(stack) -> bool:
    return not stack.core.uprobes.engine._points


def test_the_pmu_is_listed_with_the_kernels_type(stacked):
    machine, stack = stacked
    assert machine.image.abi_value("PERF_TYPE_UPROBE") == PERF_TYPE_UPROBE
    assert stack.pmus["uprobe"] == (PERF_TYPE_UPROBE, {"retprobe": "config:0"}, {})


def test_read_counts_the_hits(stacked):
    """this process's event at num: three `close 99` and count's own `3` (parsed before the
    read) make 4; closed, the engine holds the point no more"""
    machine, stack = stacked
    out = bpftest(machine, "upevt", PERF_TYPE_UPROBE, BPFTEST, NUM, 0,
                  "close", 99, "close", 99, "close", 99, "count", 3, "close", 3, "close", 99)
    assert out == ["upevt: 3", "close: -9", "close: -9", "close: -9", "count: 4", "close: 0", "close: -9"], out
    assert no_points(stack)


def test_a_uretprobe_and_a_uprobe_on_one_point(stacked):
    """config bit 0: at num's return; an entry and a return consumer of the same point count
    apart: the first from its open on (the second upevt's three numbers, close's, count's), the
    second from its own"""
    machine, stack = stacked
    out = bpftest(machine, "upevt", PERF_TYPE_UPROBE, BPFTEST, NUM, 0, "upevt", PERF_TYPE_UPROBE, BPFTEST, NUM, 1,
                  "close", 99, "count", 3, "count", 4)
    assert out == ["upevt: 3", "upevt: 4", "close: -9", "count: 5", "count: 3"], out
    assert no_points(stack)


def test_a_kprobe_program_on_the_user_registers(stacked):
    """PERF_EVENT_IOC_SET_BPF takes a KPROBE program, which runs on the probed user registers at
    each hit: at num's return, ax is the number it parsed"""
    machine, stack = stacked
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_KPROBE, by_retval(3),
                  "upevt", PERF_TYPE_UPROBE, BPFTEST, NUM, 1, "setbpf", 5, 4, "close", 77, "close", 77,
                  "get", 3, key(77), "close", 5)
    assert out[:6] == ["map: 3", "load: 4", "upevt: 5", "setbpf: 0", "close: -9", "close: -9"], out
    assert count(out[6]) == 2
    assert out[7] == "close: 0"
    entry = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_KPROBE, count_into(3, st(W, 0xA, -4, 0)),
                    "upevt", PERF_TYPE_UPROBE, BPFTEST, NUM, 0, "setbpf", 5, 4, "close", 99, "get", 3, key(0))
    assert entry[:5] == ["map: 3", "load: 4", "upevt: 5", "setbpf: 0", "close: -9"], entry
    assert count(entry[5]) == 3  # close's 99, and get's map fd, parsed twice before the lookup
    assert no_points(stack)


def test_uprobe_pmu_errors(stacked):
    """6.1's answers: a path that does not exist ENOENT; a directory, a device, an empty path
    EINVAL; an offset past the file's end EINVAL (at its end: taken); an odd reference counter
    offset EINVAL (an even one: taken); a TRACEPOINT program EINVAL"""
    machine, stack = stacked
    size = BPFTEST.stat().st_size
    out = bpftest(machine, "upevt", PERF_TYPE_UPROBE, "/no/such/file", 0, 0,
                  "upevt", PERF_TYPE_UPROBE, BPFTEST.parent, 0, 0,
                  "upevt", PERF_TYPE_UPROBE, "/dev/null", 0, 0,
                  "upevt", PERF_TYPE_UPROBE, BPFTEST, size + 1, 0,
                  "upevt", PERF_TYPE_UPROBE, BPFTEST, NUM, 0, 3,
                  "upevt", PERF_TYPE_UPROBE, "", 0, 0,
                  "upevt", PERF_TYPE_UPROBE, BPFTEST, NUM, 0, 4)
    assert out == [f"upevt: -{ENOENT}", f"upevt: -{EINVAL}", f"upevt: -{EINVAL}", f"upevt: -{EINVAL}",
                   f"upevt: -{EINVAL}", f"upevt: -{EINVAL}", "upevt: 3"], out
    out = bpftest(machine, "load", PROG_TRACEPOINT, prog(mov64_imm(R0, 0), exit_()),
                  "upevt", PERF_TYPE_UPROBE, BPFTEST, NUM, 0, "setbpf", 4, 3)
    assert out == ["load: 3", "upevt: 4", f"setbpf: -{EINVAL}"], out
    assert no_points(stack)


def test_paths_as_the_kernel_finds_them(stacked):
    """kern_path() from the caller's cwd (a spawned program's: "/"): a relative path is taken
    (as on 6.1 from its cwd); a file of the kernel's own /tmp (a tmpfs, not the host's tree the
    engine names files of) is refused with EOPNOTSUPP"""
    machine, stack = stacked
    relative = str(BPFTEST).lstrip("/")
    assert bpftest(machine, "upevt", PERF_TYPE_UPROBE, relative, NUM, 0, "close", 99, "count", 3) == \
        ["upevt: 3", "close: -9", "count: 2"]
    out: list[bytes] = []
    proc = machine.spawn(["/bin/busybox", "sh", "-c",
                          f"cp {BPFTEST} /tmp/bt && {BPFTEST} upevt {PERF_TYPE_UPROBE} /tmp/bt {NUM} 0"], out.append)
    assert proc.wait(120) == 0, b"".join(out)
    assert b"".join(out).decode().splitlines() == [f"upevt: -{EOPNOTSUPP}"]
    assert no_points(stack)
