"""The kprobe PMU (kernel/events/core.c's perf_kprobe, trace_event_perf.c's perf_kprobe_init):
a guest program opens a perf event of type 6 on a function by name (config1) or address
(config2), the kernel asks the host's kprobe engine for the probe (kernel/trace_kprobe.c,
machine/kernel_requests.py), and a KPROBE program set on the event with PERF_EVENT_IOC_SET_BPF
runs on the probed registers at each hit, in the guest; closing the event takes the probe
away.  The guest program is bpftest (kernel_model/user/bpftest.c)."""
from __future__ import annotations

import struct

import pytest

from bpf_asm import (ADD, DW, FN_get_current_comm, JEQ, MAP_HASH, PROG_KPROBE, PROG_TRACEPOINT, R0, R1, R2, R7,
                     R10, W, alu64_imm, call, exit_, jmp_reg, ld_imm64, ldx, mov64_imm, mov64_reg, prog, st, stx)
from test_bpf_trace import count_into

EINVAL, ENOENT, EADDRNOTAVAIL, E2BIG = 22, 2, 99, 7
PERF_TYPE_KPROBE = 6
RAX = 80  # offsetof(struct pt_regs, ax)


@pytest.fixture(scope="module")
def stacked(vmlinux):
    """A live machine with the tracing stack: its kprobe engine answers the kernel's requests."""
    from tracefs_sim.machine import Machine, MachineOptions
    from tracefs_sim.stack import build_stack
    m = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=2))
    m.start()
    stack = build_stack(m)
    yield m, stack
    m.stop()


def bpftest(machine, *args) -> list[str]:
    out: list[bytes] = []
    proc = machine.spawn(["bpftest", *map(str, args)], out.append)
    status = proc.wait(120)
    assert status is not None, f"bpftest {args} did not finish"
    text = b"".join(out).decode()
    assert status == 0, (status, text, machine.console_output()[-2000:])
    return text.splitlines()


def by_comm(map_fd: int) -> str:
    """key 0, for the hits of a task whose comm is "bpftest" (bpf_get_current_comm); the others
    are not counted"""
    comm = int.from_bytes(b"bpftest\0", "little")
    return count_into(
        map_fd,
        mov64_reg(R1, R10), alu64_imm(ADD, R1, -32), mov64_imm(R2, 16), call(FN_get_current_comm),
        ldx(DW, R7, R10, -32),
        ld_imm64(R1, comm),
        jmp_reg(JEQ, R7, R1, 2),
        mov64_imm(R0, 0),
        exit_(),
        st(W, R10, -4, 0))


def by_retval(map_fd: int) -> str:
    """key: the probed registers' ax (a kretprobe: the return value)"""
    return count_into(map_fd, ldx(W, R7, R1, RAX), stx(W, R10, R7, -4))


def key(n: int) -> str:
    return struct.pack("<I", n).hex()


def count(line: str) -> int:
    assert line.startswith("get: 0 "), line
    return struct.unpack("<Q", bytes.fromhex(line.split()[2]))[0]


def test_kprobe_program_counts_the_calls_of_a_function(stacked):
    """fds 3 map, 4 prog, 5 event: 37 getpid() of bpftest counted while the event is open, none
    after its close, and the engine holds no probe there any more"""
    machine, stack = stacked
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_KPROBE, by_comm(3),
                  "kpev", PERF_TYPE_KPROBE, "__do_sys_getpid", 0, 0, "setbpf", 5, 4, "calls", 37,
                  "get", 3, key(0), "close", 5, "calls", 10, "get", 3, key(0))
    assert out[:5] == ["map: 3", "load: 4", "kpev: 5", "setbpf: 0", "calls: 37"], out
    assert count(out[5]) == 37
    assert out[6] == "close: 0"
    assert count(out[8]) == 37
    addr = machine.image.lookup("__do_sys_getpid").addr
    assert stack.kprobe_engine.point(addr) is None


def test_kretprobe_program_reads_the_return_value(stacked):
    """config bit 0: a kretprobe; the program keys its counts by regs->ax at the return, which
    is getpid's result: the pid bpftest prints"""
    machine, _ = stacked
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_KPROBE, by_retval(3),
                  "kpev", PERF_TYPE_KPROBE, "__do_sys_getpid", 0, 1, "setbpf", 5, 4, "calls", 20, "pid",
                  "next", 3, "-", "close", 5)
    assert out[:5] == ["map: 3", "load: 4", "kpev: 5", "setbpf: 0", "calls: 20"], out
    pid = int(out[5].split()[1])
    # the only key: the pid (getpid returned it 21 times, "pid" included)
    assert out[6] == f"next: 0 {key(pid)}", out
    assert out[7] == "close: 0"


FN_get_func_ip = 173


@pytest.mark.parametrize("retprobe", [0, 1])
def test_get_func_ip_is_the_probed_functions_address(stacked, retprobe):
    """bpf_get_func_ip() in a kprobe program: the probed function's entry, a kretprobe's too
    (6.1's kprobe_running()->addr, KPROBE_FLAG_ON_FUNC_ENTRY); the program counts its hits by
    the address's low 32 bits"""
    machine, _ = stacked
    addr = machine.image.lookup("__do_sys_getpid").addr
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64,
                  "load", PROG_KPROBE, count_into(3, call(FN_get_func_ip), stx(W, R10, R0, -4)),
                  "kpev", PERF_TYPE_KPROBE, "__do_sys_getpid", 0, retprobe, "setbpf", 5, 4, "calls", 7,
                  "next", 3, "-", "close", 5)
    assert out[:5] == ["map: 3", "load: 4", "kpev: 5", "setbpf: 0", "calls: 7"], out
    assert out[5] == f"next: 0 {key(addr & 0xffffffff)}", out


def test_kprobe_by_address(stacked):
    """config1 0: config2 is the address"""
    machine, _ = stacked
    addr = machine.image.lookup("__do_sys_getpid").addr
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_KPROBE, by_comm(3),
                  "kpev", PERF_TYPE_KPROBE, "-", addr, 0, "setbpf", 5, 4, "calls", 5, "get", 3, key(0))
    assert out[2:5] == ["kpev: 5", "setbpf: 0", "calls: 5"], out
    assert count(out[5]) == 5


def test_kprobe_pmu_errors(stacked):
    """6.1's answers: an unknown function ENOENT, a kretprobe off a function's entry EINVAL, a
    notrace function EINVAL, neither a name nor an address EINVAL; PERF_EVENT_IOC_SET_BPF of a
    tracepoint program on a kprobe event EINVAL; another type than the PMU's ENOENT; a name too
    long E2BIG"""
    machine, stack = stacked
    notrace = next(name for name in ("do_syscall_64", "exc_page_fault") if machine.image.lookup(name))
    out = bpftest(machine, "kpev", PERF_TYPE_KPROBE, "no_such_function_here", 0, 0,
                  "kpev", PERF_TYPE_KPROBE, "vfs_read", 4, 1,
                  "kpev", PERF_TYPE_KPROBE, notrace, 0, 0,
                  "kpev", PERF_TYPE_KPROBE, "-", 0, 0,
                  "kpev", PERF_TYPE_KPROBE + 3, "vfs_read", 0, 0)
    assert out == [f"kpev: -{ENOENT}", f"kpev: -{EINVAL}", f"kpev: -{EINVAL}", f"kpev: -{EINVAL}",
                   f"kpev: -{ENOENT}"], out
    out = bpftest(machine, "load", PROG_TRACEPOINT, prog(mov64_imm(R0, 0), exit_()),
                  "kpev", PERF_TYPE_KPROBE, "vfs_read", 0, 0, "setbpf", 4, 3)
    assert out == ["load: 3", "kpev: 4", f"setbpf: -{EINVAL}"], out
    # a name of KSYM_NAME_LEN characters or more: E2BIG (strncpy_from_user filled the buffer)
    assert bpftest(machine, "kpev", PERF_TYPE_KPROBE, "f" * 512, 0, 0) == [f"kpev: -{E2BIG}"]
    assert bpftest(machine, "kpev", PERF_TYPE_KPROBE, "f" * 511, 0, 0) == [f"kpev: -{ENOENT}"]
    assert stack.kprobe_engine.point(machine.image.lookup("vfs_read").addr) is None  # closed at exit


def test_a_name_kallsyms_has_twice(stacked):
    """create_local_trace_kprobe(): a name that is not one symbol is EADDRNOTAVAIL"""
    machine, _ = stacked
    counts: dict[str, int] = {}
    for s in machine.image.symbols:
        counts[s.name] = counts.get(s.name, 0) + 1
    twice = sorted(n for n, c in counts.items() if c > 1 and n.isidentifier())
    if not twice:
        pytest.skip("every name of this kernel is one symbol")
    out = bpftest(machine, "kpev", PERF_TYPE_KPROBE, twice[0], 0, 0)
    assert out == [f"kpev: -{EADDRNOTAVAIL}"]


def test_a_hit_runs_no_python(stacked, cpu_thread_calls):
    """Python function calls on the CPU thread while bpftest makes 5000 getpid() calls under a
    kprobe program: arming is a request (a few calls), each hit is the guest's alone"""
    machine, _ = stacked
    calls = cpu_thread_calls(machine)
    bpftest(machine, "pid")  # the CPU thread is profiled from here on

    def run(n: int) -> int:
        before = calls[0]
        out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_KPROBE, by_comm(3),
                      "kpev", PERF_TYPE_KPROBE, "__do_sys_getpid", 0, 0, "setbpf", 5, 4, "calls", n,
                      "get", 3, key(0))
        assert count(out[5]) == n, out
        return calls[0] - before
    few, many = run(50), run(5050)
    # a Python call a hit would be 5000 more; the longer run's slices and ticks make far fewer
    assert many - few < 5000 // 5, (few, many)


def test_a_kprobe_event_counts_its_hits(stacked):
    """Without a program, the event counts (kprobe_perf_func's records to its perf events): this
    process's 25 getpid() on a per-task event; a kretprobe's event counts the returns"""
    machine, _ = stacked
    out = bpftest(machine, "kpevt", PERF_TYPE_KPROBE, "__do_sys_getpid", 0, 0,
                  "kpevt", PERF_TYPE_KPROBE, "__do_sys_getpid", 0, 1, "calls", 25, "count", 3, "count", 4)
    assert out == ["kpevt: 3", "kpevt: 4", "calls: 25", "count: 25", "count: 25"], out


PERF_TYPE_TRACEPOINT = 2


def test_a_kprobe_events_event_is_a_tracepoint_source(stacked):
    """A kprobe event of kprobe_events opened by its id as a PERF_TYPE_TRACEPOINT event
    (perf_trace_init() → kprobe_register(TRACE_REG_PERF_REGISTER)): armed for perf while its
    tracefs enable is 0, each of bpftest's getpid() a sample of the per-task event (a kretprobe
    event's too, at the return); two perf events share the arming; after their close the
    probes are disarmed and the events can go"""
    machine, stack = stacked
    kprobes, registry = stack.core.kprobes, stack.core.registry
    kprobes.write_kprobe_events(b"p:kprobes/gpid __do_sys_getpid\nr:kprobes/gpidret __do_sys_getpid $retval\n")
    try:
        entry, ret = registry.get("kprobes", "gpid"), registry.get("kprobes", "gpidret")
        addr = machine.image.lookup("__do_sys_getpid").addr
        assert stack.kprobe_engine.point(addr).kind is None  # registered, not armed
        out = bpftest(machine, "kpevt", PERF_TYPE_TRACEPOINT, "-", 0, entry.id,
                      "kpevt", PERF_TYPE_TRACEPOINT, "-", 0, ret.id,
                      "kpevt", PERF_TYPE_TRACEPOINT, "-", 0, entry.id,
                      "calls", 25, "count", 3, "count", 4, "close", 3, "calls", 5, "count", 5)
        assert out == ["kpevt: 3", "kpevt: 4", "kpevt: 5", "calls: 25", "count: 25", "count: 25",
                       "close: 0", "calls: 5", "count: 30"], out
        assert stack.kprobe_engine.point(addr).kind is None  # disarmed with the last perf event
        assert not entry.probe.enabled and not ret.probe.enabled
    finally:
        kprobes.write_kprobe_events(b"-:kprobes/gpid\n-:kprobes/gpidret\n")
    assert registry.get("kprobes", "gpid") is None


def test_an_id_no_kprobe_event_has_is_einval(stacked):
    """perf_trace_init(): an id that is no event's (nor a kprobe event's) EINVAL, as on 6.1"""
    machine, _ = stacked
    assert bpftest(machine, "kpevt", PERF_TYPE_TRACEPOINT, "-", 0, 65000) == [f"kpevt: -{EINVAL}"]


def test_a_kprobe_program_on_a_kprobe_events_event(stacked):
    """PERF_EVENT_IOC_SET_BPF on a kprobe event's tracepoint perf event takes a KPROBE program
    (perf_event_set_bpf_prog(): the event is a kprobe's), run on the probed registers at each
    hit; a tracepoint program is EINVAL there"""
    machine, stack = stacked
    kprobes = stack.core.kprobes
    kprobes.write_kprobe_events(b"p:kprobes/gpid __do_sys_getpid\n")
    try:
        event_id = stack.core.registry.get("kprobes", "gpid").id
        out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_KPROBE, by_comm(3),
                      "kpev", PERF_TYPE_TRACEPOINT, "-", 0, event_id, "setbpf", 5, 4, "calls", 17,
                      "get", 3, key(0))
        assert out[:5] == ["map: 3", "load: 4", "kpev: 5", "setbpf: 0", "calls: 17"], out
        assert count(out[5]) == 17
        out = bpftest(machine, "load", PROG_TRACEPOINT, prog(mov64_imm(R0, 0), exit_()),
                      "kpev", PERF_TYPE_TRACEPOINT, "-", 0, event_id, "setbpf", 4, 3)
        assert out == ["load: 3", "kpev: 4", f"setbpf: -{EINVAL}"], out
    finally:
        kprobes.write_kprobe_events(b"-:kprobes/gpid\n")
