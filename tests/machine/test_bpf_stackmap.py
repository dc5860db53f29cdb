"""Stack traces from BPF programs (kernel/bpf/stackmap.c, as 6.1's): a stack map made with
BPF_F_STACK_BUILD_ID describes a user frame by the build id of the ELF file mapped there and the
frame's offset in it (bpftest carries a build id note: kernel_model/user/user-build-id.lds), a
kernel frame by its address (BPF_STACK_BUILD_ID_IP); bpf_get_stack() copies the chain into the
program's buffer, as addresses or (BPF_F_USER_BUILD_ID) the same entries.  A tracepoint program on
syscalls:sys_enter_getpid of bpftest's own getpid() takes each, beside a plain stack map of the
same chain's addresses.  Errnos and verifier logs: bpf_cases.py's stackmap_build_id_create and
get_stack_size_as_length, compared with the real 6.1's."""
from __future__ import annotations

import struct
import subprocess
from pathlib import Path

from bpf_asm import (ADD, DW, FN_get_stack, FN_get_stackid, FN_map_update_elem, MAP_ARRAY, MAP_STACK_TRACE,
                     PROG_TRACEPOINT, R0, R1, R2, R3, R4, R6, R10, alu64_imm, call, exit_, ld_map_fd, mov64_imm,
                     mov64_reg, prog, st, stx)
from guest_events import number_events
from test_bpf import machine, run_case  # noqa: F401 (the module's machine fixture)

BPFTEST = Path(__file__).resolve().parents[2] / "kernel_model/build/user/bpftest.img"
BUILD_ID, USER_STACK, USER_BUILD_ID = 1 << 5, 1 << 8, 1 << 11
STATUS_VALID, STATUS_IP = 1, 2
ENTRY = 32  # struct bpf_stack_build_id
FRAMES = 8


def build_id_of(path: Path) -> bytes:
    out = subprocess.run(["readelf", "-n", str(path)], capture_output=True, text=True, check=True).stdout
    return bytes.fromhex(out.split("Build ID:")[1].split()[0])


def text_segment(path: Path) -> tuple[int, int, int]:
    """(vaddr, file offset, size) of the program's executable PT_LOAD"""
    out = subprocess.run(["readelf", "-lW", str(path)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            return int(f[2], 16), int(f[1], 16), int(f[4], 16)
    raise AssertionError(out)


def stackid_into(map_fd: int, flags: int) -> list[bytes]:
    return [mov64_reg(R1, R6), ld_map_fd(R2, map_fd), mov64_imm(R3, flags), call(FN_get_stackid)]


def get_stack_into_array(array_fd: int, size: int, flags: int) -> list[bytes]:
    """bpf_get_stack(ctx, r10 - 8 - size, size, flags), its return at r10 - 8 - size - 8, the
    whole (return, then the buffer) stored at key 0 of the array"""
    buf, ret = -8 - size, -8 - size - 8
    return [mov64_reg(R1, R6), mov64_reg(R2, R10), alu64_imm(ADD, R2, buf), mov64_imm(R3, size),
            mov64_imm(R4, flags), call(FN_get_stack), stx(DW, R10, R0, ret),
            st(DW, R10, -4 - 4, 0), ld_map_fd(R1, array_fd), mov64_reg(R2, R10), alu64_imm(ADD, R2, -8),
            mov64_reg(R3, R10), alu64_imm(ADD, R3, ret), mov64_imm(R4, 0), call(FN_map_update_elem)]


def entries(value_hex: str) -> list[tuple[int, bytes, int]]:
    data = bytes.fromhex(value_hex)
    return [struct.unpack_from("<i20sQ", data, i) for i in range(0, len(data), ENTRY)]


def addresses(value_hex: str) -> list[int]:
    data = bytes.fromhex(value_hex)
    return [a for a in struct.unpack(f"<{len(data) // 8}Q", data) if a]


def got(line: str) -> str:
    assert line.startswith("get: 0 "), line
    return line.split()[2]


def test_user_frames_by_build_id_and_kernel_frames_by_address(machine):
    """fds: 3 a build id map, 4 a plain one (the same user chain's addresses), 6 and 7 the program
    and its getpid event; 5 a build id map of the kernel chains of raw_syscalls:sys_enter (whose
    registers are the kernel's: syscalls:sys_enter_getpid's are the user's, no kernel chain, as
    6.1's), 8 and 9 its program and event.  Each user frame in bpftest's text is its build id and
    file offset (the address less the text's, plus its file offset); every kernel frame is its
    address."""
    ids = number_events(machine)
    user = stackid_into(3, USER_STACK) + stackid_into(4, USER_STACK) + [mov64_imm(R0, 0), exit_()]
    kern = stackid_into(5, 0) + [mov64_imm(R0, 0), exit_()]
    out = run_case(machine, list(map(str, [
        "map", MAP_STACK_TRACE, 4, FRAMES * ENTRY, 1, BUILD_ID, "map", MAP_STACK_TRACE, 4, FRAMES * 8, 1,
        "map", MAP_STACK_TRACE, 4, FRAMES * ENTRY, 1, BUILD_ID,
        "load", PROG_TRACEPOINT, prog(mov64_reg(R6, R1), *user), "tpev", ids["sys_enter_getpid"], "setbpf", 7, 6,
        "load", PROG_TRACEPOINT, prog(mov64_reg(R6, R1), *kern), "tpev", ids["sys_enter"], "setbpf", 9, 8,
        "calls", 1, "close", 7, "close", 9, "get", 3, "00000000", "get", 4, "00000000", "get", 5, "00000000"]))
                  ).splitlines()
    assert out[:10] == ["map: 3", "map: 4", "map: 5", "load: 6", "tpev: 7", "setbpf: 0", "load: 8", "tpev: 9",
                        "setbpf: 0", "calls: 1"], out
    by_id, ips, kernel = entries(got(out[12])), addresses(got(out[13])), entries(got(out[14]))
    build_id = build_id_of(BPFTEST)
    vaddr, offset, size = text_segment(BPFTEST)
    assert ips and all(vaddr <= ip < vaddr + size for ip in ips), [hex(ip) for ip in ips]
    assert by_id[:len(ips)] == [(STATUS_VALID, build_id, ip - vaddr + offset) for ip in ips]
    assert all(status == 0 for status, _, _ in by_id[len(ips):])   # BPF_STACK_BUILD_ID_EMPTY after
    frames = [(status, bid, ip) for status, bid, ip in kernel if status]
    assert frames and all(status == STATUS_IP and bid == bytes(20) and ip >> 47 for status, bid, ip in frames)


def test_get_stack_copies_the_chain_and_its_build_ids(machine):
    """bpf_get_stack of the user chain into 64 bytes (8 addresses) and, with BPF_F_USER_BUILD_ID,
    into 64 (2 entries): the bytes written returned, the addresses those of the plain stack map,
    the entries its first two frames by build id; the kernel chain with BPF_F_USER_BUILD_ID:
    -EINVAL, the buffer zeroed"""
    ids = number_events(machine)
    body = (stackid_into(3, USER_STACK) + get_stack_into_array(4, 64, USER_STACK)
            + get_stack_into_array(5, 64, USER_STACK | USER_BUILD_ID) + get_stack_into_array(6, 64, USER_BUILD_ID)
            + [mov64_imm(R0, 0), exit_()])
    out = run_case(machine, list(map(str, [
        "map", MAP_STACK_TRACE, 4, FRAMES * 8, 1, "map", MAP_ARRAY, 4, 72, 1, "map", MAP_ARRAY, 4, 72, 1,
        "map", MAP_ARRAY, 4, 72, 1,
        "load", PROG_TRACEPOINT, "-", "tpev", ids["sys_enter_getpid"],   # (the program on stdin: too long)
        "setbpf", 8, 7, "calls", 1, "close", 8, "get", 3, "00000000", "get", 4, "00000000", "get", 5, "00000000",
        "get", 6, "00000000"])), stdin=prog(mov64_reg(R6, R1), *body)).splitlines()
    assert out[:8] == ["map: 3", "map: 4", "map: 5", "map: 6", "load: 7", "tpev: 8", "setbpf: 0", "calls: 1"], out
    ips = addresses(got(out[9]))
    plain, by_id, kernel = (bytes.fromhex(got(line)) for line in out[10:13])
    n = min(len(ips), 8)
    assert struct.unpack_from("<q", plain)[0] == 8 * n
    assert list(struct.unpack_from(f"<{n}Q", plain, 8)) == ips[:n] and plain[8 + 8 * n:] == bytes(64 - 8 * n)
    vaddr, offset, _ = text_segment(BPFTEST)
    m = min(len(ips), 2)
    assert struct.unpack_from("<q", by_id)[0] == ENTRY * m
    assert entries(by_id[8:8 + ENTRY * m].hex()) == [(STATUS_VALID, build_id_of(BPFTEST), ip - vaddr + offset)
                                                     for ip in ips[:m]]
    assert struct.unpack_from("<q", kernel)[0] == -22 and kernel[8:] == bytes(64)


PERF_CONTEXT_KERNEL = 2**64 - 128
PROG_PERF_EVENT, CPU_CLOCK, SAMPLE_CALLCHAIN, REUSE_STACKID = 7, 0, 1 << 5, 1 << 10


def pe_body(stack_fd: int, array_fd: int) -> str:
    """a perf event's program: bpf_get_stackid of the kernel chain into the stack map, then
    bpf_get_stack of it into 64 bytes, stored with its return at key 0 of the array"""
    return prog(mov64_reg(R6, R1), *stackid_into(stack_fd, REUSE_STACKID), *get_stack_into_array(array_fd, 64, 0),
                mov64_imm(R0, 0), exit_())


def test_a_perf_event_program_reads_its_samples_chain(machine):
    """cpu-clock sampling cpu 0: with PERF_SAMPLE_CALLCHAIN the helpers read the chain the sample
    took (bpf_get_stackid_pe, bpf_get_stack_pe), its kernel part from its PERF_CONTEXT_KERNEL mark
    on, as on the real 6.1 (which gives 0xffffffffffffff80 first, then the addresses); without,
    the registers' chain, no mark"""
    out = run_case(machine, list(map(str, [
        "map", MAP_STACK_TRACE, 4, 64, 1, "map", MAP_ARRAY, 4, 72, 1, "load", PROG_PERF_EVENT, pe_body(3, 4),
        "swev", CPU_CLOCK, 1000000, SAMPLE_CALLCHAIN, "setbpf", 6, 5, "sleep", 200, "close", 6,
        "get", 3, "00000000", "get", 4, "00000000",
        "map", MAP_STACK_TRACE, 4, 64, 1, "map", MAP_ARRAY, 4, 72, 1, "load", PROG_PERF_EVENT, pe_body(6, 7),
        "swev", CPU_CLOCK, 1000000, 0, "setbpf", 9, 8, "sleep", 200, "close", 9,
        "get", 6, "00000000", "get", 7, "00000000"]))).splitlines()
    assert out[:7] == ["map: 3", "map: 4", "load: 5", "swev: 6", "setbpf: 0", "sleep: 0", "close: 0"], out
    assert out[9:16] == ["map: 6", "map: 7", "load: 8", "swev: 9", "setbpf: 0", "sleep: 0", "close: 0"], out
    for stack_line, array_line, marked in ((out[7], out[8], True), (out[16], out[17], False)):
        # (the map keeps the first sample's chain: its one bucket is in use, so a later chain
        # finds none free, -ENOMEM as 6.1's; the array has the last sample's)
        got_stack = bytes.fromhex(got(array_line))
        copied = struct.unpack_from("<q", got_stack)[0]
        copy = addresses(got_stack[8:].hex())
        assert copied == 8 * len(copy) and got_stack[8 + copied:] == bytes(64 - copied)
        for chain in (addresses(got(stack_line)), copy):
            assert (chain[0] == PERF_CONTEXT_KERNEL) == marked, [hex(a) for a in chain]
            assert len(chain) > 2 and all(a >> 47 and a != PERF_CONTEXT_KERNEL for a in chain[1 if marked else 0:]), \
                [hex(a) for a in chain]
