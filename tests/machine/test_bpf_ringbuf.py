"""BPF ring buffer maps (kernel/bpf/ringbuf.c, as 6.1's): the records a program writes, read
from the map's perf pool region as a reader that mapped it would ([consumer_pos][producer_pos]
[data][data again]), JITed and interpreted; the wakeups of 6.1's rule (the consumer caught up,
unless BPF_RB_NO_WAKEUP; BPF_RB_FORCE_WAKEUP always) counted in the region's status page.
Errnos and verifier logs are bpf_cases.py's ringbuf_* cases, compared with the real 6.1's."""
from __future__ import annotations

import os
import struct
from contextlib import contextmanager

import pytest

from bpf_asm import (ADD, DW, JNE, R0, R1, R2, R3, R4, R10, W, alu64_imm, call, exit_, jmp_imm, ld_map_fd,
                     mov64_imm, mov64_reg, prog, st)
from bpf_cases import FN_ringbuf_discard, FN_ringbuf_output, FN_ringbuf_reserve, FN_ringbuf_submit
from test_bpf import machine  # noqa: F401 (the module's fixture: a machine of 2 cpus, no workload)

PAGE = 4096
BUSY, DISCARD = 1 << 31, 1 << 30
NO_WAKEUP, FORCE_WAKEUP = 1, 2


@pytest.fixture(scope="module")
def pool(machine):
    ring = machine.session_ring()
    assert ring is not None
    return ring.pool_fds


@contextmanager
def jit(machine, on: bool):
    from tracefs_sim.machine.sysctls import net_core_sysctls
    sysctl = net_core_sysctls(machine)["bpf_jit_enable"]
    sysctl.write_at(b"1\n" if on else b"0\n")
    try:
        yield
    finally:
        sysctl.write_at(b"1\n")


def bpftest(machine, *args) -> list[str]:
    out: list[bytes] = []
    proc = machine.spawn(["bpftest", *map(str, args)], out.append)
    assert proc.wait(60) == 0, (b"".join(out), machine.console_output()[-2000:])
    return b"".join(out).decode().splitlines()


def output_prog(value: int, flags: int) -> str:
    """bpf_ringbuf_output(map 3, the u64 value, 8, flags); its return"""
    return prog(st(DW, R10, -8, value), ld_map_fd(R1, 3), mov64_reg(R2, R10), alu64_imm(ADD, R2, -8),
                mov64_imm(R3, 8), mov64_imm(R4, flags), call(FN_ringbuf_output), exit_())


def reserve_prog(size: int, head: int, tail: int, commit: int, flags: int = 0) -> str:
    """reserve size bytes of map 3; head at its first u32, tail at its last; commit(flags)"""
    return prog(ld_map_fd(R1, 3), mov64_imm(R2, size), mov64_imm(R3, 0), call(FN_ringbuf_reserve),
                jmp_imm(JNE, R0, 0, 2), mov64_imm(R0, 7), exit_(),
                st(W, R0, 0, head), st(W, R0, size - 4, tail), mov64_reg(R1, R0), mov64_imm(R2, flags),
                call(commit), mov64_imm(R0, 0), exit_())


def region_of(pool, first_record: bytes) -> tuple[int, int]:
    """the region (and its size) whose data starts with the record (the map is gone: its pages
    stay as they were written)"""
    for fd in pool:
        size = os.fstat(fd).st_size
        if os.pread(fd, len(first_record), 2 * PAGE) == first_record:
            return fd, size
    raise AssertionError(f"no region starts with {first_record.hex()}")


def status(fd: int, size: int) -> tuple[int, int, int]:
    """(generation, wakeups, ringbuf) of the region's status page (uapi/perf_pool.h)"""
    generation, wakeups, _waiting, ringbuf = struct.unpack("<QQII", os.pread(fd, 24, size - PAGE))
    return generation, wakeups, ringbuf


@pytest.mark.parametrize("jited", [True, False], ids=["jit", "interpreter"])
def test_records_as_a_reader_sees_them(machine, pool, jited):
    """Records at producer_pos: an 8-byte header (len, pg_off 3 for the first data page: 6.1's
    offset from struct bpf_ringbuf), the sample, rounded up to 8; a discarded one keeps its
    place with DISCARD set; no BUSY bit once committed; producer_pos past them all; the data's
    second copy the same bytes (6.1 maps the same pages twice)."""
    magic = 0x5A5A0000 + jited
    with jit(machine, jited):
        out = bpftest(machine, "map", 27, 0, 0, PAGE,
                      "load", 17, output_prog(magic, 0), "run", 4,
                      "load", 17, reserve_prog(12, 0x1111, 0x2222, FN_ringbuf_submit), "run", 5,
                      "load", 17, reserve_prog(20, 0x3333, 0x4444, FN_ringbuf_discard), "run", 6,
                      "load", 17, reserve_prog(4, 0x5555, 0x5555, FN_ringbuf_submit), "run", 7)
    assert [line for line in out if line.startswith("run")] == ["run: 0 retval 0"] * 4, out
    first = struct.pack("<IIQ", 8, 3, magic)
    fd, size = region_of(pool, first)
    data = os.pread(fd, 128, 2 * PAGE)
    assert struct.unpack_from("<II", data, 16) == (12, 3)
    assert struct.unpack_from("<II", data, 24) + struct.unpack_from("<I", data, 32) == (0x1111, 0, 0x2222)
    assert struct.unpack_from("<II", data, 40) == (20 | DISCARD, 3)
    assert struct.unpack_from("<I", data, 48) == (0x3333,) and struct.unpack_from("<I", data, 64) == (0x4444,)
    assert struct.unpack_from("<IIi", data, 72) == (4, 3, 0x5555)
    assert os.pread(fd, 88, 3 * PAGE) == data[:88]    # the second copy shows them too, as 6.1's alias
    consumer, = struct.unpack("<Q", os.pread(fd, 8, 0))
    producer, = struct.unpack("<Q", os.pread(fd, 8, PAGE))
    assert (consumer, producer) == (0, 16 + 24 + 32 + 16)
    assert status(fd, size)[2] == 0      # the map is gone: the region is no ring buffer's now


@pytest.mark.parametrize("flags,expected", [
    ((0, 0, 0), 1),                          # the first record finds the consumer caught up; later ones not
    ((NO_WAKEUP, 0, 0), 0),                  # ... unless told not to wake it
    ((NO_WAKEUP, FORCE_WAKEUP, FORCE_WAKEUP), 2),   # FORCE_WAKEUP wakes it anyway
])
def test_wakeups_as_6_1(machine, pool, flags, expected):
    """bpf_ringbuf_commit()'s rule: a wakeup when the record is the one the consumer waits
    for (consumer_pos at it), never with BPF_RB_NO_WAKEUP, always with BPF_RB_FORCE_WAKEUP."""
    magic = 0x6B000000 + sum(f << (4 * i) for i, f in enumerate(flags))
    args: list[object] = ["map", 27, 0, 0, PAGE]
    for i, f in enumerate(flags):
        args += ["load", 17, output_prog(magic + i, f), "run", 4 + i]
    out = bpftest(machine, *args)
    assert [line for line in out if line.startswith("run")] == ["run: 0 retval 0"] * 3, out
    fd, size = region_of(pool, struct.pack("<IIQ", 8, 3, magic))
    assert status(fd, size)[1] == expected
