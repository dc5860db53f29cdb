"""BPF programs attached where the guest's tracepoints fire (kernel/bpf_trace.c, the tracepoint's
kernel_key sites calling __bpf_trace_<event>() and perf_trace_<event>()): a raw tracepoint
program through BPF_RAW_TRACEPOINT_OPEN's link, and a tracepoint program through
PERF_EVENT_IOC_SET_BPF on a tracepoint perf event, each counting the syscalls it sees into a
hash map that the same guest program reads back (bpftest, kernel_model/user/bpftest.c)."""
from __future__ import annotations

import struct
import time

import pytest

from bpf_asm import (ADD, DW, FN_map_lookup_elem, FN_map_update_elem, JEQ, MAP_HASH, PROG_KPROBE,
                     PROG_RAW_TRACEPOINT, PROG_TRACEPOINT, R0, R1, R2, R3, R4, R6, R10, W, alu64_imm, atomic,
                     call, exit_, ja, jmp_imm, ld_map_fd, ldx, mov64_imm, mov64_reg, prog, st, stx)
from guest_events import number_events
from test_bpf import machine, run_case  # noqa: F401 (the module's machine fixture)

EINVAL, ENOENT, EEXIST, EACCES, EBADF = 22, 2, 17, 13, 9
NR_getpid = 39
NOP5 = bytes([0x0F, 0x1F, 0x44, 0x00, 0x00])


def count_into(map_fd: int, *key_insns: bytes) -> str:
    """counts[*(u32 *)(r10 - 4)]++ after key_insns stored the key there"""
    return prog(
        *key_insns,
        mov64_reg(R2, R10), alu64_imm(ADD, R2, -4),
        ld_map_fd(R1, map_fd),
        call(FN_map_lookup_elem),
        jmp_imm(JEQ, R0, 0, 3),
        mov64_imm(R1, 1),
        atomic(DW, ADD, R0, R1, 0),
        ja(9),
        st(DW, R10, -16, 1),
        ld_map_fd(R1, map_fd),
        mov64_reg(R2, R10), alu64_imm(ADD, R2, -4),
        mov64_reg(R3, R10), alu64_imm(ADD, R3, -16),
        mov64_imm(R4, 0),
        call(FN_map_update_elem),
        mov64_imm(R0, 0),
        exit_(),
    )


def count_by_syscall(map_fd: int, nr_offset: int = 8) -> str:
    """counts[*(u32 *)(ctx + nr_offset)]++ : the syscall number sits at 8 in all three contexts (a raw
    tracepoint's args[1], raw_syscalls:sys_enter's `id`, syscalls:sys_enter_*'s __syscall_nr)"""
    return count_into(map_fd, ldx(W, R6, R1, nr_offset), stx(W, R10, R6, -4))


def bpftest(machine, *args) -> list[str]:
    return run_case(machine, list(map(str, args))).splitlines()


def key(nr: int) -> str:
    return struct.pack("<I", nr).hex()


def count(line: str) -> int:
    """the u64 value of a `get: 0 <hex>` line"""
    assert line.startswith("get: 0 "), line
    return struct.unpack("<Q", bytes.fromhex(line.split()[2]))[0]


def test_raw_tracepoint_counts_sys_enter_into_a_hash_map(machine):
    """fds 3 map, 4 prog, 5 link: 37 getpid() counted while the link is open, none after"""
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_RAW_TRACEPOINT, count_by_syscall(3),
                  "rawtp", 4, "sys_enter", "calls", 37, "get", 3, key(NR_getpid),
                  "close", 5, "calls", 10, "get", 3, key(NR_getpid))
    assert out[:4] == ["map: 3", "load: 4", "rawtp: 5", "calls: 37"], out
    assert count(out[4]) == 37
    assert out[5] == "close: 0"
    assert count(out[7]) == 37


def test_raw_tracepoint_open_errors(machine):
    """6.1's answers: no such tracepoint ENOENT, a map's fd EINVAL, no fd EBADF, a program of
    another type EINVAL, the same program twice on a tracepoint EEXIST"""
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_RAW_TRACEPOINT, count_by_syscall(3),
                  "rawtp", 4, "no_such_tracepoint", "rawtp", 3, "sys_enter", "rawtp", 9, "sys_enter",
                  "load", PROG_KPROBE, prog(mov64_imm(R0, 0), exit_()), "rawtp", 5, "sys_enter",
                  "rawtp", 4, "sys_enter", "rawtp", 4, "sys_enter")
    assert out == ["map: 3", "load: 4", f"rawtp: -{ENOENT}", f"rawtp: -{EINVAL}", f"rawtp: -{EBADF}",
                   "load: 5", f"rawtp: -{EINVAL}", "rawtp: 6", f"rawtp: -{EEXIST}"], out


def test_raw_tracepoint_program_reads_only_the_arguments_there(machine):
    """args[2] is past sys_enter's two arguments (EINVAL), within sched_switch's four"""
    past_args = prog(ldx(DW, R0, R1, 16), exit_())
    out = bpftest(machine, "load", PROG_RAW_TRACEPOINT, past_args, "rawtp", 3, "sys_enter",
                  "rawtp", 3, "sched_switch")
    assert out == ["load: 3", f"rawtp: -{EINVAL}", "rawtp: 4"], out


@pytest.mark.parametrize("event", ["sys_enter", "sys_enter_getpid"])
def test_tracepoint_program_on_a_perf_event_counts(machine, event):
    """PERF_EVENT_IOC_SET_BPF: raw_syscalls:sys_enter (a tracepoint's record) and
    syscalls:sys_enter_getpid (perf_call_bpf_enter's context); closing the event detaches"""
    ids = number_events(machine)
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_TRACEPOINT, count_by_syscall(3),
                  "tpev", ids[event], "setbpf", 5, 4, "calls", 25, "get", 3, key(NR_getpid),
                  "close", 5, "calls", 10, "get", 3, key(NR_getpid))
    assert out[:5] == ["map: 3", "load: 4", "tpev: 5", "setbpf: 0", "calls: 25"], out
    assert count(out[5]) == 25
    assert count(out[8]) == 25


def test_set_bpf_errors(machine):
    """a program of another type EINVAL; one reading past the record EACCES (sys_enter_getpid's
    record ends with the int __syscall_nr at 12), checked before the event's own program; a
    second program on the event EEXIST; an fd that is no program EINVAL"""
    ids = number_events(machine)
    past_record = prog(ldx(DW, R0, R1, 16), exit_())
    ok = prog(mov64_imm(R0, 1), exit_())
    out = bpftest(machine, "load", PROG_TRACEPOINT, ok, "tpev", ids["sys_enter_getpid"],
                  "load", PROG_RAW_TRACEPOINT, ok, "setbpf", 4, 5, "setbpf", 4, 3,
                  "load", PROG_TRACEPOINT, past_record, "setbpf", 4, 6, "setbpf", 4, 3, "setbpf", 4, 4)
    assert out == ["load: 3", "tpev: 4", "load: 5", f"setbpf: -{EINVAL}", "setbpf: 0", "load: 6",
                   f"setbpf: -{EACCES}", f"setbpf: -{EEXIST}", f"setbpf: -{EINVAL}"], out


def test_an_exiting_process_leaves_no_program_attached(machine):
    """A process that exits with its link and its perf event open: the exit closes them, which
    detaches the programs; once a grace period has passed no program is left in the kernel
    (BPF_PROG_GET_NEXT_ID from 0: ENOENT) and sys_enter's kernel sites are nops again."""
    ids = number_events(machine)
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64, "load", PROG_RAW_TRACEPOINT, count_by_syscall(3),
                  "rawtp", 4, "sys_enter", "load", PROG_TRACEPOINT, count_by_syscall(3),
                  "tpev", ids["sys_enter"], "setbpf", 7, 6, "calls", 3)
    assert out == ["map: 3", "load: 4", "rawtp: 5", "load: 6", "tpev: 7", "setbpf: 0", "calls: 3"], out
    deadline = time.monotonic() + 20
    while True:
        left = bpftest(machine, "raw", 11, "00" * 12, 12)  # BPF_PROG_GET_NEXT_ID
        if left == [f"raw: -{ENOENT}"] or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert left == [f"raw: -{ENOENT}"]
    image = machine.image
    tp = image.lookup("__tracepoint_sys_enter")
    host_key = next(e.key_addr for e in image.events if e.name == "sys_enter")
    sites = [e.code for e in image.jump_entries if tp.addr <= e.key < tp.addr + tp.size and e.key != host_key]
    assert sites
    for site in sites:
        assert machine.read_memory(site, 5) == NOP5


def printk_prog(fmt: bytes, *args: int) -> str:
    """bpf_trace_printk(fmt on the stack, its size, args...); return what it returned"""
    from bpf_asm import FN_trace_printk, R5, ld_imm64
    fmt = fmt + b"\0" * (-len(fmt) % 8 or 8)
    insns = []
    for k in range(0, len(fmt), 8):
        insns += [ld_imm64(R1, int.from_bytes(fmt[k:k + 8], "little")), stx(DW, R10, R1, k - len(fmt))]
    insns += [mov64_reg(R1, R10), alu64_imm(ADD, R1, -len(fmt)), mov64_imm(R2, len(fmt))]
    insns += [mov64_imm(reg, value) for reg, value in zip((R3, R4, R5), args)]
    return prog(*insns, call(FN_trace_printk), exit_())


def test_trace_printk_writes_the_bpf_trace_printk_event(machine):
    """the formatted line is the bpf_trace:bpf_trace_printk event's bpf_string; the helper returns
    its length; more conversions than the three arguments: -EINVAL and no record.  Lines and
    lengths as the real 6.1 printed them for these programs (bpftest -DHOST in real-tracefs)."""
    from guest_events import EventCapture
    capture = EventCapture(machine)
    capture.enable("bpf_trace:bpf_trace_printk")
    out = bpftest(machine, "load", PROG_RAW_TRACEPOINT, printk_prog(b"%d|%-4x|%c %%\n", -42, 255, ord("Z")),
                  "run", 3, "load", PROG_RAW_TRACEPOINT, printk_prog(b"%s|%5s|%+d\n", 0, 0, 7), "run", 4)
    out += bpftest(machine, "load", PROG_RAW_TRACEPOINT, printk_prog(b"%d%d%d%d\n", 1, 2, 3), "run", 3,
                   "load", PROG_RAW_TRACEPOINT, printk_prog(b"[% 5d|%-+4d|%lx]\n", 3, 4, -1), "run", 4)
    assert out == ["load: 3", "run: 0 retval 13", "load: 4", "run: 0 retval 10", "load: 3",
                   f"run: 0 retval {2**32 - EINVAL}", "load: 4", "run: 0 retval 30"], out
    records = [r for r in capture.wait_for("bpf_trace:bpf_trace_printk",
                                         where=lambda r: r.fields["bpf_string"][:1] == b"[")
               if r.event == "bpf_trace:bpf_trace_printk"]
    capture.disable("bpf_trace:bpf_trace_printk")
    assert [r.fields["bpf_string"] for r in records] == [b"-42|ff  |Z %\n", b"|     |+7\n",
                                                         b"[    3|+4  |ffffffffffffffff]\n"]


CPU_CLOCK, PAGE_FAULTS = 0, 2


def test_perf_event_program_runs_at_each_overflow_of_a_sampling_event(machine):
    """PERF_EVENT_IOC_SET_BPF on a cpu-clock event sampling every 1 ms on cpu 0 (bpftrace's
    interval:ms:1): a BPF_PROG_TYPE_PERF_EVENT program runs at each of its hrtimer's overflows,
    reading the sample's period through its bpf_perf_event_data (a narrow u32 load, rewritten to
    perf_sample_data's period); 100 ms give about 100 runs; closing the event detaches it."""
    from bpf_asm import PROG_PERF_EVENT
    period = 1_000_000
    out = bpftest(machine, "map", MAP_HASH, 4, 8, 64,
                  "load", PROG_PERF_EVENT, count_into(3, ldx(W, R6, R1, 168), stx(W, R10, R6, -4)),
                  "swev", CPU_CLOCK, period, "setbpf", 5, 4, "sleep", 100, "get", 3, key(period),
                  "close", 5, "sleep", 20, "get", 3, key(period), "sleep", 20, "get", 3, key(period))
    assert out[:6] == ["map: 3", "load: 4", "swev: 5", "setbpf: 0", "sleep: 0", out[5]], out
    runs = count(out[5])
    assert 50 <= runs <= 150, out
    # detached at the close: no run after it (the first read after it may see one in flight)
    assert count(out[8]) == count(out[10]), out


def test_set_bpf_on_a_sampling_event_takes_only_perf_event_programs(machine):
    """perf_event_set_bpf_handler(): a tracepoint program on a software event EINVAL, a
    perf_event program on a tracepoint event EINVAL, a second program EEXIST"""
    from bpf_asm import PROG_PERF_EVENT
    ids = number_events(machine)
    ok = prog(mov64_imm(R0, 1), exit_())
    out = bpftest(machine, "load", PROG_TRACEPOINT, ok, "load", PROG_PERF_EVENT, ok,
                  "swev", PAGE_FAULTS, 1, "tpev", ids["sys_enter_getpid"],
                  "setbpf", 5, 3, "setbpf", 6, 4, "setbpf", 5, 4, "setbpf", 5, 4)
    assert out == ["load: 3", "load: 4", "swev: 5", "tpev: 6", f"setbpf: -{EINVAL}", f"setbpf: -{EINVAL}",
                   "setbpf: 0", f"setbpf: -{EEXIST}"], out
