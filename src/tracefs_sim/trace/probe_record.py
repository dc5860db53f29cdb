"""The body of a probe event's record at a hit: ``ip [ret_ip]`` then the arguments as
store_trace_args() lays them out.  It runs on the machine's thread at every hit, so each
argument's fetch program is compiled once into a closure (a load, its dereferences, the store,
a bitfield) and the body into one struct pack plus the strings; arrays and symstr (its data
location quirk) go through ProbeArg.fetch and encode_args, which the compiled path must match
byte for byte (tests/probes/test_kprobe_fastpath.py)."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Protocol, cast

from .trace_probe import ProbeCommand, ProbeHitLike
from .probe_args import (
    ARGUMENT_REGISTERS,
    MAX_STRING_SIZE,
    TASK_SIZE,
    ArgItem,
    FetchContext,
    FetchInsn,
    ProbeArg,
    UprobeFetchContext,
    encode_args,
)

_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}
_M64 = (1 << 64) - 1
_STRING_STORES = ("st_string", "st_ustring")


class RecordHit(FetchContext, ProbeHitLike, Protocol):
    """A hit as a record's body reads it: the probed context, and the probed address (a return
    probe: the function) and return address."""

    @property
    def ip(self) -> int: ...
    @property
    def ret_ip(self) -> int: ...


# hit -> the loaded value / a scalar argument's value
_Load = Callable[[FetchContext], int]
Fetch = Callable[[FetchContext], ArgItem]


def _load(insn: FetchInsn) -> _Load | None:
    """hit -> the loaded value (process_fetch_insn's first stage); None: not compiled."""
    op = insn.op
    if op == "reg":
        name = cast(str, insn.data)
        return lambda hit: hit.reg(name)
    if op == "arg":
        # regs_get_kernel_argument(): six registers, then the caller's stack slots.
        if insn.param < len(ARGUMENT_REGISTERS):
            name = ARGUMENT_REGISTERS[insn.param]
            return lambda hit: hit.reg(name)
        n = insn.param - len(ARGUMENT_REGISTERS) + 1
        return lambda hit: hit.stack(n)
    if op == "stackp":
        return lambda hit: hit.reg("sp")
    if op == "stack":
        n = insn.param
        return lambda hit: hit.stack(n)
    if op == "retval":
        return lambda hit: hit.retval()
    if op == "imm":
        value = insn.immediate
        return lambda hit: value
    if op == "foffs":  # (uprobes only)
        file_offset = insn.immediate
        return lambda hit: cast(UprobeFetchContext, hit).file_vaddr(file_offset)
    return None


def compile_fetch(arg: ProbeArg) -> Fetch | None:
    """hit -> what ``arg.fetch(hit)`` gives, for a scalar argument (arrays and symstr: None,
    they take ProbeArg.fetch)."""
    if arg.count:
        return None
    code = arg.code
    i = 1 if code[0].op == "symbol" else 0
    first = code[i]
    if first.op == "comm":
        return lambda hit: hit.comm().split(b"\0", 1)[0][:MAX_STRING_SIZE - 1]
    if first.op == "data":
        text = cast(bytes, first.data).split(b"\0", 1)[0][:MAX_STRING_SIZE - 1]
        return lambda hit: text
    load = _load(first)
    if load is None:
        return None
    i += 1
    chain: list[tuple[int, bool]] = []
    while code[i].op in ("deref", "uderef"):
        chain.append((code[i].offset, code[i].op == "uderef"))
        i += 1
    derefs = tuple(chain)
    st, mod = code[i], code[i + 1]
    # val -> the stored value (None: st_raw, the value masked)
    store: Callable[[FetchContext, int], ArgItem] | None
    if st.op in _STRING_STORES:
        user_string = st.op == "st_ustring"
        offset = st.offset

        def store_string(hit: FetchContext, val: int) -> bytes | None:
            addr = (val + offset) & _M64
            s = hit.read_string(addr, user_string or addr < TASK_SIZE, MAX_STRING_SIZE)
            return None if s is None else s[:MAX_STRING_SIZE - 1]
        store = store_string
    elif st.op == "st_raw":
        mask = (1 << (8 * st.size)) - 1
        store = None
    elif st.op in ("st_mem", "st_umem"):
        user_mem, offset, size = st.op == "st_umem", st.offset, st.size

        def store_mem(hit: FetchContext, val: int) -> int | None:
            addr = (val + offset) & _M64
            # process_fetch_insn_bottom(): a kernel deref below TASK_SIZE reads user memory
            raw = hit.read_user(addr, size) if user_mem or addr < TASK_SIZE else hit.read_kernel(addr, size)
            return None if raw is None else int.from_bytes(raw, "little")
        store = store_mem
    else:
        return None
    bitfield = None
    if mod.op == "mod_bf":
        bitfield = ((1 << (8 * mod.basesize)) - 1, mod.lshift, mod.rshift)

    if not derefs and store is None and bitfield is None:
        if first.op == "reg":  # the commonest: one call per hit
            name = cast(str, first.data)
            return lambda hit: hit.reg(name) & mask
        return lambda hit: load(hit) & mask
    if first.op == "reg" and len(derefs) <= 1 and st.op == "st_mem" and bitfield is None:
        # +OFFS(%REG) and +OFFS(+OFFS(%REG)) into kernel memory: a struct member, inline
        reg = cast(str, first.data)
        hops = tuple(off for off, _ in derefs) + (offset,)
        sizes = (8,) * len(derefs) + (size,)

        def member(hit: FetchContext) -> int | None:
            val = hit.reg(reg)
            for off, n in zip(hops, sizes):
                addr = (val + off) & _M64
                raw = hit.read_user(addr, n) if addr < TASK_SIZE else hit.read_kernel(addr, n)
                if raw is None:
                    return None
                val = int.from_bytes(raw, "little")
            return val
        if not any(user for _, user in derefs):
            return member

    def fetch(hit: FetchContext) -> ArgItem:
        val = load(hit) & _M64
        for off, user in derefs:
            addr = (val + off) & _M64
            raw = hit.read_user(addr, 8) if user or addr < TASK_SIZE else hit.read_kernel(addr, 8)
            if raw is None:
                return None
            val = int.from_bytes(raw, "little")
        v = (val & mask) if store is None else store(hit, val)
        if bitfield is not None and isinstance(v, int):  # (a bitfield's store is a number's)
            bmask, lshift, rshift = bitfield
            v = ((v << lshift) & bmask) >> rshift
        return v
    return fetch


def record_body(spec: ProbeCommand) -> Callable[[RecordHit], bytes]:
    """hit -> the record body after the common header (hit: a ProbeHit, or a uprobe's hit:
    the probed address, or the function and the return address, then the arguments)."""
    args = spec.args
    head = spec.head_size
    fetches = [f for f in map(compile_fetch, args) if f is not None]
    is_return = spec.is_return
    if len(fetches) != len(args):
        generic = [a.fetch for a in args]
        if is_return:
            return lambda hit: struct.pack("<QQ", hit.ip, hit.ret_ip) + encode_args(args, [f(hit) for f in generic], head)
        return lambda hit: struct.pack("<Q", hit.ip) + encode_args(args, [f(hit) for f in generic], head)
    pack = struct.Struct("<" + "Q" * (head // 8 - 1) + "".join(_CODES[a.type.size] for a in args)).pack
    strings = tuple(i for i, a in enumerate(args) if a.type.is_string)
    if not strings:
        # a number that faulted is left zero (encode_args)
        if is_return:
            return lambda hit: pack(hit.ip, hit.ret_ip, *[f(hit) or 0 for f in fetches])
        return lambda hit: pack(hit.ip, *[f(hit) or 0 for f in fetches])
    base = head + sum(a.size for a in args)

    def body(hit: RecordHit) -> bytes:
        values = [f(hit) for f in fetches]
        dyn: list[bytes] = []
        pos = 0
        for i in strings:  # __data_loc: (length with the NUL) << 16 | offset; a fault: length 0
            s = cast("bytes | None", values[i])  # (a string argument's)
            offs = (base + pos) & 0xFFFF
            if s is None:
                values[i] = offs
            else:
                n = len(s) + 1
                values[i] = (n << 16) | offs
                dyn.append(s)
                dyn.append(b"\0")
                pos += n
        head_values = (hit.ip, hit.ret_ip) if is_return else (hit.ip,)
        return pack(*head_values, *[v or 0 for v in values]) + b"".join(dyn)
    return body
