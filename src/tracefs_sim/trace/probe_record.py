"""The body of a probe event's record at a hit: ``ip [ret_ip]`` then the arguments as
store_trace_args() lays them out.  It runs on the machine's thread at every hit, so the common
shape -- every argument a register, stack slot, return value or immediate stored as a number --
is compiled into one struct pack; anything else (memory, strings, arrays, bitfields) goes
through ProbeArg.fetch and encode_args, which the fast path must match byte for byte."""

from __future__ import annotations

import struct
from collections.abc import Callable

from .kprobe_spec import KprobeSpec
from .probe_args import ARGUMENT_REGISTERS, ProbeArg, encode_args

_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}


def _direct_load(arg: ProbeArg) -> Callable | None:
    """hit -> the raw value, for an argument that is a load stored as it is; else None."""
    if arg.count or arg.type.is_string or len(arg.code) != 3 or arg.code[1].op != "st_raw":
        return None
    insn = arg.code[0]
    if insn.op == "reg":
        name = insn.data
        return lambda hit: hit.reg(name)
    if insn.op == "arg":
        # regs_get_kernel_argument(): six registers, then the caller's stack slots.
        if insn.param < len(ARGUMENT_REGISTERS):
            name = ARGUMENT_REGISTERS[insn.param]
            return lambda hit: hit.reg(name)
        n = insn.param - len(ARGUMENT_REGISTERS) + 1
        return lambda hit: hit.stack(n)
    if insn.op == "stackp":
        return lambda hit: hit.reg("sp")
    if insn.op == "stack":
        n = insn.param
        return lambda hit: hit.stack(n)
    if insn.op == "retval":
        return lambda hit: hit.retval()
    if insn.op == "imm":
        value = insn.immediate
        return lambda hit: value
    return None


def record_body(spec: KprobeSpec) -> Callable[[object], bytes]:
    """hit -> the record body after the common header (hit: a ProbeHit)."""
    args = spec.args
    head = spec.head_size
    loads = [_direct_load(a) for a in args]
    if all(load is not None for load in loads):
        pack = struct.Struct("<" + "Q" * (head // 8 - 1) + "".join(_CODES[a.type.size] for a in args)).pack
        masks = [(1 << (8 * a.type.size)) - 1 for a in args]
        fields = list(zip(loads, masks))
        if spec.is_return:
            return lambda hit: pack(hit.ip, hit.ret_ip, *[load(hit) & mask for load, mask in fields])
        return lambda hit: pack(hit.ip, *[load(hit) & mask for load, mask in fields])
    fetches = [a.fetch for a in args]
    if spec.is_return:
        return lambda hit: struct.pack("<QQ", hit.ip, hit.ret_ip) + encode_args(args, [f(hit) for f in fetches], head)
    return lambda hit: struct.pack("<Q", hit.ip) + encode_args(args, [f(hit) for f in fetches], head)
