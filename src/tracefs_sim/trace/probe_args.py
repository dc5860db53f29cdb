"""Fetch arguments of probe events, as Linux 6.1 parses, stores and prints them
(kernel/trace/trace_probe.c, trace_probe.h, trace_probe_tmpl.h; the kprobe fetch stage of
trace_kprobe.c).  Shared by kprobes, kretprobes, uprobes and eprobes.

An argument is ``[NAME=]FETCHARG[:TYPE]``.  It compiles, as in the kernel, into a short program
of fetch instructions (``FetchInsn``: load, dereferences, store, bitfield, array loop) of at most
16 slots -- the slot limit is what makes "Dereference is too much nested" appear where Linux
shows it.  Errors carry Linux's text, errno and error_log caret position (probe_log.ProbeError).

A program runs at a hit in the emulated kernel (kernel/trace_probe.c, compiled for by
probe_guest.py), which lays the record out as store_trace_args() does (fixed part +
``__data_loc`` strings); ``FetchContext`` is what a probe's Python handler reads at a hit
(registers, kernel/user memory, comm, the kernel stack: the engines' API, which the tests'
reference interpreter runs on).  Here:
``decode_args`` reads a record's values back, and ``format_args`` prints them as the trace line
does (`` a=0x1 s="x"``).
"""

from __future__ import annotations

import errno
import struct
from dataclasses import dataclass
from enum import IntFlag
from typing import Callable, Protocol, Sequence, TypedDict, Unpack

# Below TASK_SIZE a "kernel" string/deref reads user memory (x86's non-overlapping address
# spaces: CONFIG_ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE).
from ..machine.contract import TASK_SIZE
from ..lib.kstrtox import ULLONG_MAX as _ULLONG_MAX, kstrtoll, kstrtouint, kstrtoull, or_none, simple_strtoull
from .print_fmt import Symbolizer
from .probe_log import ProbeError, ProbeLog, silent_error

__all__ = [
    "ArgFlags",
    "ArgField",
    "FetchType",
    "FETCH_TYPES",
    "FetchInsn",
    "ProbeArg",
    "FetchContext",
    "UprobeFetchContext",
    "Symbolizer",
    "parse_probe_arg",
    "is_good_name",
    "is_good_system_name",
    "split_symbol_offset",
    "MAX_ARGSTR_LEN",
    "arg_fields",
    "print_fmt",
    "decode_args",
    "format_args",
    "sprint_symbol",
    "FAULT_STRING",
    "MAX_TRACE_ARGS",
    "MAX_STRING_SIZE",
    "TASK_SIZE",
]

# trace_probe.h limits.
MAX_TRACE_ARGS = 128
MAX_ARGSTR_LEN = 63
MAX_ARRAY_LEN = 64
MAX_ARG_NAME_LEN = 32
MAX_STRING_SIZE = 4096  # PATH_MAX
MAX_PROBE_EVENT_SIZE = 3072
FETCH_INSN_MAX = 16
# THREAD_SIZE / sizeof(long) on x86-64 without KASAN: the largest $stackN / $argN.
PARAM_MAX_STACK = 16384 // 8
FAULT_STRING = "(fault)"

# Field names an argument may not take (reserved_field_names[] of trace_probe.c).
RESERVED_FIELD_NAMES = (
    "common_type", "common_flags", "common_preempt_count", "common_pid", "common_tgid",
    "__probe_ip", "__probe_ret_ip", "__probe_func",
)

# x86-64 regoffset_table[] (arch/x86/kernel/ptrace.c): the names `%REG` accepts.
REGISTER_NAMES = frozenset((
    "r15", "r14", "r13", "r12", "r11", "r10", "r9", "r8", "bx", "cx", "dx", "si", "di", "bp",
    "ax", "orig_ax", "ip", "cs", "flags", "sp", "ss",
))
# regs_get_kernel_argument(): $arg1..$arg6 are these registers, later ones are on the stack.
ARGUMENT_REGISTERS = ("di", "si", "dx", "cx", "r8", "r9")


def _isalpha(ch: str) -> bool:
    # The kernel's ctype table counts Latin-1 letters (0xc0-0xff but for x and /) as letters;
    # command text is handled as Latin-1 decoded bytes.
    o = ord(ch)
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z") or (0xC0 <= o <= 0xFF and o not in (0xD7, 0xF7))


def split_symbol_offset(symbol: str) -> tuple[str, int] | None:
    """traceprobe_split_symbol_offset(): "SYM+OFFS" / "SYM-OFFS" -> (SYM, offset); None where
    the offset does not parse."""
    cut = min((p for p in (symbol.find("+"), symbol.find("-")) if p >= 0), default=-1)
    if cut < 0:
        return symbol, 0
    offset = or_none(kstrtoll, symbol[cut:])
    return None if offset is None else (symbol[:cut], offset)


def is_good_name(name: str, hash_ok: bool = False) -> bool:
    """__is_good_name() of trace.h: a C identifier (plus '-' for system names)."""
    def ok(ch: str, first: bool) -> bool:
        if ch == "_" or _isalpha(ch):
            return True
        if hash_ok and ch == "-":
            return True
        return not first and "0" <= ch <= "9"

    return bool(name) and ok(name[0], True) and all(ok(c, False) for c in name[1:])


def is_good_system_name(name: str) -> bool:
    return is_good_name(name, hash_ok=True)


# ---------------------------------------------------------------------------------------------
# Types (probe_fetch_types[] of trace_probe.c)


@dataclass(frozen=True)
class FetchType:
    name: str
    size: int
    is_signed: bool
    is_string: bool
    fmt: str  # in print fmt (the C string literal's text)
    fmttype: str  # field type in the format file


def _basic(name: str, size: int, signed: bool, fmt: str, fmttype: str | None = None) -> FetchType:
    return FetchType(name, size, signed, False, fmt, fmttype or name)


_STRING_FMT = '\\"%s\\"'
FETCH_TYPES: dict[str, FetchType] = {t.name: t for t in (
    FetchType("string", 4, True, True, _STRING_FMT, "__data_loc char[]"),
    FetchType("ustring", 4, True, True, _STRING_FMT, "__data_loc char[]"),
    FetchType("symstr", 4, True, True, _STRING_FMT, "__data_loc char[]"),
    _basic("u8", 1, False, "%u"), _basic("u16", 2, False, "%u"),
    _basic("u32", 4, False, "%u"), _basic("u64", 8, False, "%Lu"),
    _basic("s8", 1, True, "%d"), _basic("s16", 2, True, "%d"),
    _basic("s32", 4, True, "%d"), _basic("s64", 8, True, "%Ld"),
    _basic("x8", 1, False, "0x%x", "u8"), _basic("x16", 2, False, "0x%x", "u16"),
    _basic("x32", 4, False, "0x%x", "u32"), _basic("x64", 8, False, "0x%Lx", "u64"),
    _basic("symbol", 8, False, "%pS", "u64"),
)}
DEFAULT_FETCH_TYPE = "x64"


def find_fetch_type(name: str | None) -> FetchType | None:
    """find_fetch_type(): a bitfield ``b...`` maps to the unsigned type of its container."""
    if name is None:
        name = DEFAULT_FETCH_TYPE
    if name[:1] == "b":
        slash = name.find("/")
        if slash < 0:
            return None
        bs = or_none(kstrtoull, name[slash + 1:])
        if bs is None:
            return None
        return {8: FETCH_TYPES["u8"], 16: FETCH_TYPES["u16"], 32: FETCH_TYPES["u32"],
                64: FETCH_TYPES["u64"]}.get(bs)
    return FETCH_TYPES.get(name)


# ---------------------------------------------------------------------------------------------
# Fetch programs (struct fetch_insn)

# Load ops: "reg" (data: name), "stack" (param), "stackp", "retval", "imm" (immediate),
# "comm", "arg" (param: 0-based), "data" (data: bytes), "foffs" (uprobes: file offset in
# immediate), "symbol" (data: "SYM[+-offs]", resolved
# into the following imm at registration).  Then "deref"/"uderef" (offset), a store
# ("st_raw", "st_mem", "st_umem", "st_string", "st_ustring", "st_symstr": offset, size), an
# optional "mod_bf" (basesize, lshift, rshift), an optional "lp_array" (param), and "end".


@dataclass(frozen=True)
class FetchInsn:
    op: str
    param: int = 0
    offset: int = 0
    size: int = 0
    immediate: int = 0
    data: str | bytes | None = None  # a register's or symbol's name (str), an immediate string (bytes)
    basesize: int = 0
    lshift: int = 0
    rshift: int = 0


class _InsnFields(TypedDict, total=False):
    """A FetchInsn being built (its fields by name)."""

    op: str
    param: int
    offset: int
    size: int
    immediate: int
    data: str | bytes | None
    basesize: int
    lshift: int
    rshift: int


class _Code:
    """The kcalloc'ed fetch_insn[FETCH_INSN_MAX] buffer, filled slot by slot as the kernel
    does: slot 15 is the end marker, so a program reaching it is "too much nested"."""

    def __init__(self) -> None:
        self.slots: list[_InsnFields | None] = [None] * FETCH_INSN_MAX
        self.slots[FETCH_INSN_MAX - 1] = {"op": "end"}
        self.i = 0

    @property
    def end(self) -> int:
        return FETCH_INSN_MAX - 1

    def op(self, i: int | None = None) -> str:
        s = self.slots[self.i if i is None else i]
        return s.get("op", "nop") if s else "nop"

    def set(self, **kw: Unpack[_InsnFields]) -> None:
        self.slots[self.i] = kw

    def update(self, **kw: Unpack[_InsnFields]) -> None:
        slot = self.slots[self.i]
        assert slot is not None  # (what it updates was set)
        slot.update(kw)

    def program(self) -> tuple[FetchInsn, ...]:
        insns = []
        for s in self.slots[: self.i + 1]:
            assert s is not None  # (every slot up to the last one made is set)
            insns.append(FetchInsn(**s))
        return tuple(insns)


class _Fail(Exception):
    def __init__(self, error: ProbeError):
        self.error = error


def _parse_vars(arg: str, code: _Code, flags: "ArgFlags", offs: int, log: ProbeLog) -> None:
    """parse_probe_vars(): $retval, $stack, $stackN, $comm, $argN; an eprobe's $FIELD (the
    attached event's field, or $comm: resolved when the probe knows its event)."""
    if flags & ArgFlags.TPOINT:
        code.set(op="tp_arg", data=arg)
        return
    if arg == "retval":
        if flags & ArgFlags.RETURN:
            code.set(op="retval")
            return
        raise _Fail(log.error(offs, "RETVAL_ON_PROBE"))
    if arg.startswith("stack"):
        rest = arg[5:]
        if rest == "":
            code.set(op="stackp")
            return
        if rest[0] in "0123456789":
            param = or_none(kstrtoull, rest, 10)
            if param is None:
                raise _Fail(log.error(offs, "BAD_VAR"))
            if flags & ArgFlags.KERNEL and param > PARAM_MAX_STACK:
                raise _Fail(log.error(offs, "BAD_STACK_NUM"))
            code.set(op="stack", param=param)
            return
        raise _Fail(log.error(offs, "BAD_VAR"))
    if arg in ("comm", "COMM"):
        code.set(op="comm")
        return
    if (flags & ArgFlags.MASK) == (ArgFlags.KERNEL | ArgFlags.FENTRY) and arg.startswith("arg"):
        param = or_none(kstrtoull, arg[3:], 10)
        if param is None:
            raise _Fail(log.error(offs, "BAD_VAR"))
        if not param or param > PARAM_MAX_STACK:
            raise _Fail(log.error(offs, "BAD_ARG_NUM"))
        code.set(op="arg", param=param - 1)
        return
    raise _Fail(log.error(offs, "BAD_VAR"))


def _str_to_immediate(s: str) -> int | None:
    if s[:1] in "0123456789" and s:
        return or_none(kstrtoull, s)
    if s[:1] == "-":
        v = or_none(kstrtoll, s)
    elif s[:1] == "+":
        v = or_none(kstrtoll, s[1:])
    else:
        return None
    return None if v is None else v & _ULLONG_MAX


def _parse_arg(arg: str, code: _Code, flags: "ArgFlags", offs: int, log: ProbeLog) -> None:
    """parse_probe_arg(): the recursive fetch-argument grammar."""
    c = arg[:1]
    if c == "$":
        _parse_vars(arg[1:], code, flags, offs, log)
    elif c == "%":
        if flags & ArgFlags.TPOINT:
            # eprobes have no registers: logged, then the empty program fails too
            raise _Fail(log.error(offs, "BAD_FETCH_ARG").after(log.error(offs, "BAD_VAR")))
        if arg[1:] not in REGISTER_NAMES:
            raise _Fail(log.error(offs, "BAD_REG_NAME"))
        code.set(op="reg", data=arg[1:])
    elif c == "@":
        if arg[1:2] and arg[1] in "0123456789":
            param = or_none(kstrtoull, arg[1:])
            if param is None:
                raise _Fail(log.error(offs, "BAD_MEM_ADDR"))
            code.set(op="imm", immediate=param)
        elif arg[1:2] == "+":
            if flags & ArgFlags.KERNEL:
                raise _Fail(log.error(offs, "FILE_ON_KPROBE"))
            foffs = or_none(kstrtoll, arg[2:])
            if foffs is None:
                raise _Fail(log.error(offs, "BAD_FILE_OFFS"))
            code.set(op="foffs", immediate=foffs & _ULLONG_MAX)
        else:
            if not flags & ArgFlags.KERNEL:
                raise _Fail(log.error(offs, "SYM_ON_UPROBE"))
            code.set(op="symbol", data=arg[1:])
            code.i += 1
            if code.i == code.end:
                raise _Fail(log.error(offs, "TOO_MANY_OPS"))
            code.set(op="imm", immediate=0)
        code.i += 1
        if code.i == code.end:
            raise _Fail(log.error(offs, "TOO_MANY_OPS"))
        code.set(op="deref", offset=0)
    elif c in ("+", "-"):
        deref = "deref"
        a = arg
        if a[1:2] == "u":
            deref = "uderef"
            a = a[0] + a[2:]
            base = 1  # the kernel moves its pointer past the 'u'
        else:
            base = 0
        if a[0] == "+":
            a = a[1:]
            base += 1
        paren = a.find("(")
        if paren < 0:
            raise _Fail(log.error(offs, "DEREF_NEED_BRACE"))
        offset = or_none(kstrtoll, a[:paren])
        if offset is None:
            raise _Fail(log.error(offs, "BAD_DEREF_OFFS"))
        # Linux advances by the text it skipped, counting the '+' once more: for "+u" forms
        # this puts the caret one column early, as the kernel does.
        offs += (paren + 1) + (1 if a[0] != "-" else 0)
        inner = a[paren + 1:]
        close = inner.rfind(")")
        if close < 0:
            raise _Fail(log.error(offs + len(inner), "DEREF_OPEN_BRACE"))
        inner = inner[:close]
        _parse_arg(inner, code, flags, offs, log)
        if code.op() in ("comm", "data"):
            raise _Fail(log.error(offs, "COMM_CANT_DEREF"))
        code.i += 1
        if code.i == code.end:
            raise _Fail(log.error(offs, "TOO_MANY_OPS"))
        code.set(op=deref, offset=offset)
    elif c == "\\":
        if arg[1:2] == '"':
            s = arg[2:]
            if not s or s[-1] != '"':
                raise _Fail(log.error(offs + 2 + len(s), "IMMSTR_NO_CLOSE"))
            code.set(op="data", data=s[:-1].encode("latin-1"))
        else:
            imm = _str_to_immediate(arg[1:])
            if imm is None:
                raise _Fail(log.error(offs + 1, "BAD_IMM"))
            code.set(op="imm", immediate=imm)
    if code.op() == "nop":
        raise _Fail(log.error(offs, "BAD_FETCH_ARG"))


def _parse_bitfield(bf: str, t: FetchType, code: _Code) -> bool:
    """__parse_bitfield_probe_arg(); False where the kernel returns -EINVAL."""
    if bf[:1] != "b":
        return True
    bw, n = simple_strtoull(bf[1:])
    tail = bf[1 + n:]
    if bw == 0 or tail[:1] != "@":
        return False
    rest = tail[1:]
    bo, n = simple_strtoull(rest)
    if n == 0 or rest[n:n + 1] != "/":
        return False
    code.i += 1
    if code.op() != "nop":
        return False
    bits = t.size * 8
    # lshift/rshift are unsigned char in the kernel.
    code.set(op="mod_bf", basesize=t.size, lshift=(bits - (bw + bo)) & 0xFF,
             rshift=(bits - bw) & 0xFF)
    return bits >= bw + bo


class ArgFlags(IntFlag):
    """TPARG_FL_*: what kind of probe the argument belongs to."""

    RETURN = 1
    KERNEL = 2
    FENTRY = 4
    TPOINT = 8
    MASK = 15


@dataclass(frozen=True)
class ProbeArg:
    """One compiled argument: what the kernel keeps in struct probe_arg."""

    name: str
    comm: str  # the FETCHARG[:TYPE] text as written; read back after "NAME="
    type: FetchType
    count: int  # array length, 0 for a scalar
    offset: int  # offset of its slot in the argument area of the record
    code: tuple[FetchInsn, ...]

    @property
    def size(self) -> int:
        """Bytes of its slot in the fixed part of the record."""
        return self.type.size * (self.count or 1)

    @property
    def field_type(self) -> str:
        """Its field type in the format file (``u32[4]``, ``__data_loc char[][2]``)."""
        if self.count:
            return f"{self.type.fmttype}[{self.count}]"
        return self.type.fmttype

    def resolve(self, lookup: Callable[[str], int | None]) -> "ProbeArg | int":
        """traceprobe_update_arg(): fill in @SYM addresses.  Returns the resolved argument,
        or a negative errno (-EINVAL: bad offset, -ENOENT: unknown symbol)."""
        code = list(self.code)
        for i, insn in enumerate(code):
            if insn.op != "symbol":
                continue
            if code[i + 1].op != "imm":
                return -errno.EINVAL
            assert isinstance(insn.data, str)  # (a symbol op's name)
            split = split_symbol_offset(insn.data)
            if split is None:
                return -errno.EINVAL
            text, offset = split
            addr = lookup(text)
            if not addr:
                return -errno.ENOENT
            code[i + 1] = FetchInsn("imm", immediate=(addr + offset) & _ULLONG_MAX)
        return ProbeArg(self.name, self.comm, self.type, self.count, self.offset, tuple(code))


class FetchContext(Protocol):
    """What the probe engine gives an argument at a hit (the kernel's pt_regs + memory)."""

    def reg(self, name: str) -> int: ...  # a REGISTER_NAMES register of the probed context
    def stack(self, n: int) -> int: ...  # regs_get_kernel_stack_nth(): 0 outside the stack
    def read_kernel(self, addr: int, size: int) -> bytes | None: ...  # None: fault
    def read_user(self, addr: int, size: int) -> bytes | None: ...
    def read_string(self, addr: int, user: bool, limit: int) -> bytes | None: ...  # up to the NUL
    def comm(self) -> bytes: ...
    def retval(self) -> int: ...  # regs_return_value(): ax at the return
    def symbolize(self, addr: int) -> "tuple[str, int, int] | None": ...


class UprobeFetchContext(FetchContext, Protocol):
    """A uprobe's hit: a probed file too (the parser takes ``@+OFFSET`` on uprobes only)."""

    # translate_user_vaddr(): where a file offset of the probed file is mapped, as the probed
    # address is (the probed address - the probe's offset + the file offset)
    def file_vaddr(self, file_offset: int) -> int: ...


def sprint_symbol(symbolize: Symbolizer, addr: int) -> str:
    """sprint_symbol() / %pS: ``sym+0x1a/0x310``, or ``0x...`` where no symbol covers it."""
    found = symbolize(addr)
    if found is None:
        return f"0x{addr:x}"
    name, off, size = found
    return f"{name}+0x{off:x}/0x{size:x}"


# ---------------------------------------------------------------------------------------------
# Parsing one argument (traceprobe_parse_probe_arg + traceprobe_parse_probe_arg_body)


def parse_probe_arg(text: str, index: int, previous: Sequence[ProbeArg], size: int,
                    flags: ArgFlags, log: ProbeLog) -> ProbeArg:
    """Compile argument number ``index`` (0-based) of a probe.  ``previous`` are the arguments
    already parsed, ``size`` the bytes they take; raises ProbeError as Linux fails."""
    eq = text.find("=")
    if eq >= 0:
        if eq > MAX_ARG_NAME_LEN:
            raise log.error(0, "ARG_NAME_TOO_LONG")
        if eq == 0:
            raise log.error(0, "NO_ARG_NAME")
        name = text[:eq]
        body_at = eq + 1
    else:
        name = f"arg{index + 1}"
        body_at = 0
    if not is_good_name(name):
        raise log.error(0, "BAD_ARG_NAME")
    if name in RESERVED_FIELD_NAMES or any(a.name == name for a in previous):
        raise log.error(0, "USED_ARG_NAME")
    try:
        return _parse_body(text[body_at:], name, size, flags, body_at, log)
    except _Fail as f:
        raise f.error from None


def _parse_body(arg: str, name: str, size: int, flags: ArgFlags, offset: int,
                log: ProbeLog) -> ProbeArg:
    if len(arg) > MAX_ARGSTR_LEN:
        raise _Fail(log.error(offset, "ARG_TOO_LONG"))
    if not arg:
        raise _Fail(log.error(offset, "NO_ARG_BODY"))
    comm = arg
    count = 0
    colon = arg.find(":")
    t = None  # the type text (after ':')
    t_at = 0  # its offset within arg
    if colon >= 0:
        t_at = colon + 1
        t = arg[t_at:]
        arg = arg[:colon]
        br = t.find("[")
        if br >= 0:
            t2 = t[br + 1:]
            t2_at = t_at + br + 1
            t = t[:br]
            close = t2.find("]")
            if close < 0:
                raise _Fail(log.error(offset + t2_at + len(t2), "ARRAY_NO_CLOSE"))
            if t2[close + 1:] != "":
                raise _Fail(log.error(offset + t2_at + close + 1, "BAD_ARRAY_SUFFIX"))
            n = or_none(kstrtouint, t2[:close])
            if not n:
                raise _Fail(log.error(offset + t2_at, "BAD_ARRAY_NUM"))
            if n > MAX_ARRAY_LEN:
                raise _Fail(log.error(offset + t2_at, "ARRAY_TOO_BIG"))
            count = n
    type_pos = offset + (t_at if t is not None else 0)

    if not flags & ArgFlags.TPOINT and (arg in ("$comm", "$COMM") or arg.startswith('\\"')):
        # $comm and immediate strings are strings, never arrays.
        if count or (t is not None and t != "string"):
            raise _Fail(silent_error())
        ftype: FetchType | None = FETCH_TYPES["string"]
    else:
        ftype = find_fetch_type(t)
    if ftype is None:
        raise _Fail(log.error(type_pos, "BAD_TYPE"))
    arg_offset = size
    size += ftype.size * (count or 1)
    if size > MAX_PROBE_EVENT_SIZE:
        raise _Fail(log.error(offset, "EVENT_TOO_BIG", errno.E2BIG))

    code = _Code()
    _parse_arg(arg, code, flags, offset, log)

    # Store operation
    if ftype.is_string:
        load_ok = (("reg", "stack", "retval", "arg", "deref", "tp_arg") if ftype.name == "symstr"
                   else ("deref", "uderef", "imm", "comm", "data", "tp_arg"))
        if code.op() not in load_ok:
            raise _Fail(log.error(type_pos, "BAD_SYMSTRING" if ftype.name == "symstr"
                                  else "BAD_STRING"))
        if (ftype.name == "symstr" or code.op() in ("imm", "comm", "data", "tp_arg") or count):
            # Keep the load (or the last deref: an array of string pointers) and add a store.
            code.i += 1
            if code.op() != "nop":
                raise _Fail(log.error(offset, "TOO_MANY_OPS"))
            code.set(op="nop")
        if ftype.name == "ustring" or code.op() == "uderef":
            st = "st_ustring"
        elif ftype.name == "symstr":
            st = "st_symstr"
        else:
            st = "st_string"
        prev = code.slots[code.i]
        code.set(op=st, offset=prev.get("offset", 0) if prev else 0, size=ftype.size)
    elif code.op() == "deref":
        code.update(op="st_mem", size=ftype.size)
    elif code.op() == "uderef":
        code.update(op="st_umem", size=ftype.size)
    else:
        code.i += 1
        if code.op() != "nop":
            raise _Fail(log.error(offset, "TOO_MANY_OPS"))
        code.set(op="st_raw", size=ftype.size)
    store_at = code.i
    if t is not None and not _parse_bitfield(t, ftype, code):
        raise _Fail(log.error(offset + t_at, "BAD_BITFIELD"))
    if count:
        if code.op(store_at) not in ("st_mem", "st_string", "st_ustring"):
            raise _Fail(log.error(type_pos, "BAD_STRING"))
        code.i += 1
        if code.op() != "nop":
            raise _Fail(log.error(offset, "TOO_MANY_OPS"))
        code.set(op="lp_array", param=count)
    code.i += 1
    code.set(op="end")
    return ProbeArg(name, comm, ftype, count, arg_offset, code.program())


# ---------------------------------------------------------------------------------------------
# Fields, print fmt, records


@dataclass(frozen=True)
class ArgField:
    """A field line of the format file (the FieldDesc shape of machine.FieldDesc)."""

    type: str
    name: str
    offset: int
    size: int
    is_signed: bool


def _shown_type(a: ProbeArg) -> str:
    # Probe fields are defined with len 0, so f_show() prints a fixed array as "u32 a[]"
    # (the FieldDesc shape has no len: the type carries the empty brackets).  A __data_loc
    # type is printed whole: "__data_loc char[][2] a".
    if a.count and not a.type.is_string:
        return f"{a.type.fmttype}[]"
    return a.field_type


def arg_fields(args: Sequence[ProbeArg], head_size: int) -> list[ArgField]:
    """traceprobe_define_arg_fields(): one field per argument, packed after the header, with
    the type as the format file shows it."""
    return [ArgField(_shown_type(a), a.name, head_size + a.offset, a.size, a.type.is_signed)
            for a in args]


def print_fmt(args: Sequence[ProbeArg], head_fmt: str, head_args: str) -> str:
    """__set_print_fmt(): the print fmt of a probe event."""
    fmt = ['"', head_fmt]
    for a in args:
        fmt.append(f" {a.name}=")
        if a.count:
            fmt.append("{" + ",".join([a.type.fmt] * a.count) + "}")
        else:
            fmt.append(a.type.fmt)
    fmt += ['"', head_args]
    for a in args:
        pattern = ", __get_str({})" if a.type.is_string else ", REC->{}"
        if a.count:
            fmt += [pattern.format(f"{a.name}[{j}]") for j in range(a.count)]
        else:
            fmt.append(pattern.format(a.name))
    return "".join(fmt)


_PACK = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}

# a fetched value, as decode_args() gives it back: a number, a string's
# bytes (None: length 0, a fault), or an array of them
ArgItem = int | bytes | None
ArgValue = ArgItem | list[ArgItem]


def decode_args(args: Sequence[ProbeArg], record: bytes, head_size: int) -> list[ArgValue]:
    """The values back from a whole record (header included), as print_probe_args() reads
    them: a string is what "%s" prints from its location (None: length 0, a fault)."""
    out: list[ArgValue] = []
    for a in args:
        items: list[ArgItem] = []
        for j in range(a.count or 1):
            at = head_size + a.offset + j * a.type.size
            raw = struct.unpack_from(_PACK[a.type.size], record, at)[0]
            if a.type.is_string:
                length, offs = raw >> 16, raw & 0xFFFF
                items.append(None if not length else record[offs:].split(b"\0", 1)[0])
            else:
                items.append(raw)
        out.append(items if a.count else items[0])
    return out


def _format_one(t: FetchType, item: ArgItem, symbolize: Symbolizer) -> str:
    if isinstance(item, bytes) or t.is_string:
        return FAULT_STRING if not isinstance(item, bytes) else '"' + item.decode("utf-8", "surrogateescape") + '"'
    v = 0 if item is None else item
    bits = 8 * t.size
    if t.name == "symbol":
        return sprint_symbol(symbolize, v)
    if t.is_signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    if t.name.startswith("x"):
        return f"0x{v:x}"
    return str(v)


def format_args(args: Sequence[ProbeArg], values: Sequence[ArgValue], symbolize: Symbolizer) -> str:
    """print_probe_args(): `` name=value`` for each argument, arrays as ``{a,b}``."""
    parts = []
    for a, v in zip(args, values):
        if isinstance(v, list):
            parts.append(f" {a.name}={{" + ",".join(_format_one(a.type, x, symbolize) for x in v) + "}")
        elif a.count:
            parts.append(f" {a.name}={{" + ",".join(_format_one(a.type, v, symbolize)
                                                     for _ in range(a.count)) + "}")
        else:
            parts.append(f" {a.name}=" + _format_one(a.type, v, symbolize))
    return "".join(parts)
