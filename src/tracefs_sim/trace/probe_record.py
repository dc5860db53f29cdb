"""The host's fetch and record of a probe event: at a hit, each argument's fetch program
(probe_args' FetchInsn: a load, its dereferences, the store, a bitfield, an array loop) runs as
Linux's process_fetch_insn() runs it, and the record's body -- ``ip [ret_ip]`` then the
arguments -- is laid out as store_trace_args() lays it out.  It runs on the machine's thread at
every hit, so each program is compiled once, at registration, into a closure, and the body
into one struct pack plus the strings.

Why a second implementation exists besides the guest's (kernel_model/kernel/trace_probe.c, which
probe_guest.py compiles for): the guest runs an enabled kprobe's, kretprobe's, eprobe's or uprobe's
arguments in the emulated kernel, without Python; this module runs those the guest cannot take
-- a probe once its tables are full, a uprobe point's consumers past the fourth, and a probe
point the guest does not take whole.  The two are one behaviour: tests/probes/test_kprobe_guest.py checks
the guest's records against this module's byte for byte, and tests/probes/test_probe_record.py
checks this module against the reference interpreter of the tests (tests/probe_fetch_reference.py,
Linux's process_fetch_insn and store_trace_args as plain code)."""

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
    ArgValue,
    FetchContext,
    FetchInsn,
    ProbeArg,
    UprobeFetchContext,
    sprint_symbol,
)

_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}
_M64 = (1 << 64) - 1
_STRING_STORES = ("st_string", "st_ustring")
# what an argument's slots hold: numbers, __data_loc strings, or symstr's data locations
_NUMBER, _STRING, _SYMSTR = 0, 1, 2


class RecordHit(FetchContext, ProbeHitLike, Protocol):
    """A hit as a record's body reads it: the probed context, and the probed address (a return
    probe: the function) and return address."""

    @property
    def ip(self) -> int: ...
    @property
    def ret_ip(self) -> int: ...


# hit -> the loaded value / an argument's value (see Fetch)
_Load = Callable[[FetchContext], int]
# hit -> what an argument records: an int for a number (masked to its size, bitfield applied),
# bytes for a string (without the NUL), a list for an array; None for a fault (a number's slot
# is then left zero, a string prints "(fault)").  A fault before the store stage makes the
# whole argument None.
Fetch = Callable[[FetchContext], ArgValue]
# hit, the value the dereferences left -> the stored element
_Store = Callable[[FetchContext, int], ArgItem]


def _load(insn: FetchInsn) -> _Load:
    """hit -> the loaded value (process_fetch_insn's first stage)."""
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
    # tp_arg: an eprobe's field, which only the guest reads (trace_eprobe.py)
    raise ValueError(f"not a load op the host runs: {op}")


def _store(st: FetchInsn) -> _Store | None:
    """The store stage (None: st_raw, the value masked to its size)."""
    offset, size = st.offset, st.size
    if st.op in _STRING_STORES:
        user_string = st.op == "st_ustring"

        def store_string(hit: FetchContext, val: int) -> bytes | None:
            addr = (val + offset) & _M64
            s = hit.read_string(addr, user_string or addr < TASK_SIZE, MAX_STRING_SIZE)
            return None if s is None else s[:MAX_STRING_SIZE - 1]
        return store_string
    if st.op == "st_symstr":
        def store_symstr(hit: FetchContext, val: int) -> bytes:
            return sprint_symbol(hit.symbolize, (val + offset) & _M64).encode()
        return store_symstr
    if st.op in ("st_mem", "st_umem"):
        user_mem = st.op == "st_umem"

        def store_mem(hit: FetchContext, val: int) -> int | None:
            addr = (val + offset) & _M64
            # process_fetch_insn_bottom(): a kernel deref below TASK_SIZE reads user memory
            raw = hit.read_user(addr, size) if user_mem or addr < TASK_SIZE else hit.read_kernel(addr, size)
            return None if raw is None else int.from_bytes(raw, "little")
        return store_mem
    if st.op == "st_raw":
        return None
    raise ValueError(f"not a store op: {st.op}")


def compile_fetch(arg: ProbeArg) -> Fetch:
    """hit -> the value arg records (see Fetch)."""
    code = arg.code
    i = 1 if code[0].op == "symbol" else 0
    first = code[i]
    if first.op == "comm":  # $comm and immediate strings are the string itself, not an address
        return lambda hit: hit.comm().split(b"\0", 1)[0][:MAX_STRING_SIZE - 1]
    if first.op == "data":
        text = cast(bytes, first.data).split(b"\0", 1)[0][:MAX_STRING_SIZE - 1]
        return lambda hit: text
    load = _load(first)
    i += 1
    chain: list[tuple[int, bool]] = []
    while code[i].op in ("deref", "uderef"):
        chain.append((code[i].offset, code[i].op == "uderef"))
        i += 1
    derefs = tuple(chain)
    st, mod = code[i], code[i + 1]
    store = _store(st)
    mask = (1 << (8 * st.size)) - 1
    bitfield = None
    if mod.op == "mod_bf":
        bitfield = ((1 << (8 * mod.basesize)) - 1, mod.lshift, mod.rshift)
    if arg.count:
        assert store is not None  # (an array's store reads memory: the parser sees to it)
        return _array(arg.count, load, derefs, st, store, bitfield)

    if not derefs and store is None and bitfield is None:
        if first.op == "reg":  # the commonest: one call per hit
            name = cast(str, first.data)
            return lambda hit: hit.reg(name) & mask
        return lambda hit: load(hit) & mask
    if first.op == "reg" and len(derefs) <= 1 and st.op == "st_mem" and bitfield is None \
            and not any(user for _, user in derefs):
        # +OFFS(%REG) and +OFFS(+OFFS(%REG)) into kernel memory: a struct member, inline
        reg = cast(str, first.data)
        hops = tuple(off for off, _ in derefs) + (st.offset,)
        sizes = (8,) * len(derefs) + (st.size,)

        def member(hit: FetchContext) -> int | None:
            val = hit.reg(reg)
            for off, n in zip(hops, sizes):
                addr = (val + off) & _M64
                raw = hit.read_user(addr, n) if addr < TASK_SIZE else hit.read_kernel(addr, n)
                if raw is None:
                    return None
                val = int.from_bytes(raw, "little")
            return val
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


def _array(count: int, load: _Load, derefs: tuple[tuple[int, bool], ...], st: FetchInsn, store: _Store,
           bitfield: tuple[int, int, int] | None) -> Fetch:
    """An array argument (FETCH_OP_LP_ARRAY): numbers one after the other from the address the
    dereferences reach; strings from the pointers there, each the last dereference again at
    the next pointer slot (a fault there ends the loop: the rest stays unwritten)."""
    strings = st.op in _STRING_STORES
    size = st.size
    last = derefs[-1] if derefs else None

    def fetch_array(hit: FetchContext) -> ArgValue:
        val = lval = load(hit) & _M64
        for off, user in derefs:
            lval = val
            addr = (val + off) & _M64
            raw = hit.read_user(addr, 8) if user or addr < TASK_SIZE else hit.read_kernel(addr, 8)
            if raw is None:
                return None
            val = int.from_bytes(raw, "little")
        out: list[ArgItem] = []
        if not strings:
            for n in range(count):
                v = store(hit, val + n * size)
                if bitfield is not None and isinstance(v, int):
                    bmask, lshift, rshift = bitfield
                    v = ((v << lshift) & bmask) >> rshift
                out.append(v)
            return out
        out.append(store(hit, val))
        for n in range(1, count):
            val = lval + 8 * n
            if last is not None:
                off, user = last
                addr = (val + off) & _M64
                raw = hit.read_user(addr, 8) if user or addr < TASK_SIZE else hit.read_kernel(addr, 8)
                if raw is None:
                    return out + [None] * (count - n)
                val = int.from_bytes(raw, "little")
            out.append(store(hit, val))
        return out
    return fetch_array


def record_body(spec: ProbeCommand) -> Callable[[RecordHit], bytes]:
    """hit -> the record body after the common header (hit: a ProbeHit, or a uprobe's hit:
    the probed address, or the function and the return address, then the arguments)."""
    args = spec.args
    head = spec.head_size
    fetches = [compile_fetch(a) for a in args]
    is_return = spec.is_return
    pack = struct.Struct("<" + "Q" * (head // 8 - 1)
                         + "".join(_CODES[a.type.size] * (a.count or 1) for a in args)).pack
    if not any(a.count or a.type.is_string for a in args):
        # numbers only; a number that faulted is left zero
        if is_return:
            return lambda hit: pack(hit.ip, hit.ret_ip, *[f(hit) or 0 for f in fetches])
        return lambda hit: pack(hit.ip, *[f(hit) or 0 for f in fetches])
    base = head + sum(a.size for a in args)
    layout = tuple((a.count, _NUMBER if not a.type.is_string else _SYMSTR if a.type.name == "symstr" else _STRING)
                   for a in args)

    def body(hit: RecordHit) -> bytes:
        fixed: list[object] = []
        dyn: list[bytes] = []
        symstrs: list[tuple[int, int, int]] = []  # (slot, dyn offset, data offset) of each symstr
        pos = 0
        for (count, kind), f in zip(layout, fetches):
            value = f(hit)
            if kind == _NUMBER:  # a number that faulted is left zero
                if not count:
                    fixed.append(value or 0)
                elif isinstance(value, list):
                    fixed += [x or 0 for x in value]
                else:  # (the array faulted before its loop)
                    fixed += [0] * count
                continue
            for s in value if isinstance(value, list) else (value,) * (count or 1):
                # __data_loc: (length with the NUL) << 16 | offset; a fault: length 0
                offs = (base + pos) & 0xFFFF
                if not isinstance(s, bytes):
                    fixed.append(offs)
                elif kind == _STRING:
                    n = len(s) + 1
                    fixed.append((n << 16) | offs)
                    dyn += (s, b"\0")
                    pos += n
                else:
                    # fetch_store_symstring(): the location's length is the room left (below),
                    # the length kept leaves out the NUL, which the next string overwrites
                    symstrs.append((len(fixed), pos, offs))
                    fixed.append(0)
                    dyn.append(s)
                    pos += len(s)
        if symstrs:
            room = pos + len(symstrs)  # every string's length with its NUL
            for slot, at, offs in symstrs:
                fixed[slot] = (((room - at) << 16) | offs) & 0xFFFFFFFF
            dyn.append(bytes(len(symstrs)))
        head_values = (hit.ip, hit.ret_ip) if is_return else (hit.ip,)
        return pack(*head_values, *fixed) + b"".join(dyn)
    return body
