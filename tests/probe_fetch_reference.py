"""The reference a probe's host record is checked against: Linux 6.1's process_fetch_insn()
and process_fetch_insn_bottom() (kernel/trace/trace_probe_tmpl.h, trace_kprobe.c) as a plain
interpreter of a FetchInsn program, and store_trace_args()'s record layout.

Test code only: the package runs an argument through the guest's kernel/trace_probe.c
(trace/probe_guest.py compiles it); tests/probes/test_kprobe_guest.py and test_uprobe_guest.py
check its records against this reference, and test_probe_fetch_reference.py this reference
against records whose bytes 6.1 shows."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import cast

from tracefs_sim.trace.probe_args import (
    ARGUMENT_REGISTERS, MAX_STRING_SIZE, TASK_SIZE, ArgItem, ArgValue, FetchContext, FetchInsn, ProbeArg,
    UprobeFetchContext, sprint_symbol,
)

_U64 = (1 << 64) - 1
_PACK = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}


def fetch(arg: ProbeArg, ctx: FetchContext) -> ArgValue:
    """The value arg records at a hit: an int for a scalar (masked to its size, bitfield
    applied), bytes for a string (without the NUL), a list for an array.  A fault gives None
    (for a string: printed as "(fault)"; for a number Linux leaves the record's bytes
    unwritten).  A fault before the store stage makes the whole argument None."""
    code = arg.code
    i = 1 if code[0].op == "symbol" else 0
    insn = code[i]
    op = insn.op
    if op == "reg":
        val = ctx.reg(cast(str, insn.data))
    elif op == "stack":
        val = ctx.stack(insn.param)
    elif op == "stackp":
        val = ctx.reg("sp")
    elif op == "retval":
        val = ctx.retval()
    elif op == "imm":
        val = insn.immediate
    elif op == "foffs":
        val = cast(UprobeFetchContext, ctx).file_vaddr(insn.immediate)
    elif op == "arg":
        n = insn.param
        val = ctx.reg(ARGUMENT_REGISTERS[n]) if n < 6 else ctx.stack(n - 5)
    elif op in ("comm", "data"):
        # $comm and immediate strings are the string itself, not an address.
        text = ctx.comm() if op == "comm" else cast(bytes, insn.data)
        return text.split(b"\0", 1)[0][: MAX_STRING_SIZE - 1]
    else:
        raise ValueError(f"not a load op: {op}")
    return _bottom(arg, code, i + 1, val & _U64, ctx)


def _bottom(arg: ProbeArg, code: Sequence[FetchInsn], i: int, val: int, ctx: FetchContext) -> ArgValue:
    at, val, lval = _deref_chain(code, i, val, val, ctx)
    if at is None:
        return None
    s3 = at
    count = arg.count or 1
    out: list[ArgItem] = []
    for n in range(count):
        st = code[s3]
        if st.op in ("st_string", "st_ustring", "st_symstr"):
            if n:
                # An array of strings: each element is the next pointer's string.
                val = lval + 8 * n
                j, val, _ = _deref_chain(code, s3 - 1, val, val, ctx)
                if j is None:
                    # The kernel stops the loop; the remaining slots stay unwritten.
                    out += [None] * (count - n)
                    break
            out.append(_store_string(st, val, ctx))
        else:
            out.append(_store_value(st, code[s3 + 1], val + n * st.size, ctx))
    return out if arg.count else out[0]


def _deref_chain(code: Sequence[FetchInsn], i: int, val: int, lval: int,
                 ctx: FetchContext) -> tuple[int | None, int, int]:
    """Stage 2: follow deref/uderef ops; (None, ...) on a fault."""
    while code[i].op in ("deref", "uderef"):
        lval = val
        addr = (val + code[i].offset) & _U64
        user = code[i].op == "uderef" or addr < TASK_SIZE
        raw = ctx.read_user(addr, 8) if user else ctx.read_kernel(addr, 8)
        if raw is None:
            return None, val, lval
        val = int.from_bytes(raw, "little")
        i += 1
    return i, val, lval


def _store_string(st: FetchInsn, val: int, ctx: FetchContext) -> bytes | None:
    addr = (val + st.offset) & _U64
    if st.op == "st_symstr":
        return sprint_symbol(ctx.symbolize, addr).encode()
    user = st.op == "st_ustring" or addr < TASK_SIZE
    s = ctx.read_string(addr, user, MAX_STRING_SIZE)
    return None if s is None else s[: MAX_STRING_SIZE - 1]


def _store_value(st: FetchInsn, mod: FetchInsn, val: int, ctx: FetchContext) -> int | None:
    size = st.size
    if st.op == "st_raw":
        v = val & ((1 << (8 * size)) - 1)
    else:
        addr = (val + st.offset) & _U64
        user = st.op == "st_umem" or addr < TASK_SIZE
        raw = ctx.read_user(addr, size) if user else ctx.read_kernel(addr, size)
        if raw is None:
            return None
        v = int.from_bytes(raw, "little")
    if mod.op == "mod_bf":
        mask = (1 << (8 * mod.basesize)) - 1
        v = ((v << mod.lshift) & mask) >> mod.rshift
    return v


def _items(arg: ProbeArg, value: ArgValue) -> list[ArgItem]:
    if not arg.count:
        assert not isinstance(value, list)
        return [value]
    if value is None:
        return [None] * arg.count
    assert isinstance(value, list)
    return value


def encode_args(args: Sequence[ProbeArg], values: Sequence[ArgValue], head_size: int) -> bytes:
    """store_trace_args(): the argument area of a record -- the fixed slots, then the strings
    (``head_size`` is what comes before the arguments: 16 kprobe, 24 kretprobe; data locations
    count from the record start), including Linux 6.1's symstr quirk: a symstr's data location
    carries the space left rather than its length, and the next string overwrites its NUL.  A
    number that faulted is left zero."""
    fixed = bytearray(sum(a.size for a in args))
    items_of = [(a, _items(a, v)) for a, v in zip(args, values)]
    maxlen = sum(0 if x is None else len(cast(bytes, x)) + 1
                 for a, items in items_of if a.type.is_string for x in items)
    dyn = bytearray(maxlen)
    pos = 0
    base = head_size + len(fixed)
    for a, items in items_of:
        for j, item in enumerate(items):
            at = a.offset + j * a.type.size
            if not a.type.is_string:
                if item is not None:
                    struct.pack_into(_PACK[a.type.size], fixed, at, item)
                continue
            offs = (base + pos) & 0xFFFF
            assert not isinstance(item, int)
            if item is None:
                loc, used = offs, 0
            elif a.type.name == "symstr":
                loc, used = (maxlen << 16) | offs, len(item)
                dyn[pos:pos + len(item) + 1] = bytes(item) + b"\0"
            else:
                loc, used = ((len(item) + 1) << 16) | offs, len(item) + 1
                dyn[pos:pos + used] = bytes(item) + b"\0"
            struct.pack_into("<I", fixed, at, loc & 0xFFFFFFFF)
            pos += used
            maxlen -= used
    return bytes(fixed + dyn)


def record_body(args: Sequence[ProbeArg], head_size: int, ctx: FetchContext, ip: int, ret_ip: int = 0) -> bytes:
    """A whole record body after the common header: the probed address (and, for a return
    probe, whose head is 24 bytes, the return address), then the arguments."""
    head = struct.pack("<QQ", ip, ret_ip) if head_size == 24 else struct.pack("<Q", ip)
    return head + encode_args(args, [fetch(a, ctx) for a in args], head_size)


class MemoryContext:
    """A FetchContext over plain memory, to run the reference on: registers, kernel and user
    regions ({address: bytes}; anywhere else faults), the stack's words, the task's comm, and
    one function named ``f`` (start, size) for symbols. Each memory read is logged in ``reads``."""

    def __init__(self, regs: dict[str, int] | None = None, kmem: dict[int, bytes] | None = None,
                 umem: dict[int, bytes] | None = None, stack: Sequence[int] = (), comm: bytes = b"cat",
                 ip: int = 0xFFFFFFFF81000000, ret_ip: int = 0,
                 function: tuple[int, int] = (0xFFFFFFFF81000000, 0x100)):
        self.regs, self.kmem, self.umem = regs or {}, kmem or {}, umem or {}
        self.stack_words, self._comm, self._function = list(stack), comm, function
        self.ip, self.ret_ip = ip, ret_ip
        self.reads: list[tuple] = []

    @staticmethod
    def _tail(memory: dict[int, bytes], addr: int) -> bytes | None:
        """The region's bytes from addr to its end."""
        for base, data in memory.items():
            if base <= addr < base + len(data):
                return data[addr - base:]
        return None

    def reg(self, name: str) -> int:
        return self.regs.get(name, 0)

    def stack(self, n: int) -> int:
        return self.stack_words[n] if n < len(self.stack_words) else 0

    def read_kernel(self, addr: int, size: int) -> bytes | None:
        self.reads.append(("k", addr, size))
        tail = self._tail(self.kmem, addr)
        return tail[:size] if tail is not None and len(tail) >= size else None

    def read_user(self, addr: int, size: int) -> bytes | None:
        self.reads.append(("u", addr, size))
        tail = self._tail(self.umem, addr)
        return tail[:size] if tail is not None and len(tail) >= size else None

    def read_string(self, addr: int, user: bool, limit: int) -> bytes | None:
        self.reads.append(("us" if user else "ks", addr))
        tail = self._tail(self.umem if user else self.kmem, addr)
        # (no NUL before the region's end: the string runs into a fault)
        return tail.split(b"\0", 1)[0] if tail is not None and b"\0" in tail else None

    def comm(self) -> bytes:
        return self._comm

    def retval(self) -> int:
        return self.regs.get("ax", 0)

    def symbolize(self, addr: int) -> tuple[str, int, int] | None:
        start, size = self._function
        return ("f", addr - start, size) if start <= addr < start + size else None
