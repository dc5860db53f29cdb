"""Evaluation of an event's ``print fmt:`` (the TP_printk() of the event) on decoded records.

A print fmt is a C string literal -- a kernel printf format (lib/vsprintf.c) -- followed by C
argument expressions over ``REC->field``: integer arithmetic with C's types and conversions,
casts, comparisons, ternaries, and the trace helpers ``__print_flags``, ``__print_symbolic``,
``__get_str``, ``__get_dynamic_array``, ``__get_dynamic_array_len``, ``__print_hex``,
``__print_hex_str`` and ``__print_array`` (kernel/trace/trace_output.c).  It is compiled once
into closures; formatting a record runs no parser.

Conversions: ``%d %i %u %o %x %X %c %s %%`` with flags ``-+ #0``, width, precision and the
``hh h l ll z t`` qualifiers, formatted as the kernel's number()/string() do (``%#x`` of 0 is
``0x0``; a precision never hides the digit 0); ``%p`` (hashed), ``%px``, ``%pK``
(kptr_restrict 0: hashed), ``%pS``/``%ps``/``%pB`` (symbols).  Other ``%p`` extensions
(``%pI4``, ``%pM``, ...) are not supported and fail at compile time, as any unknown helper.

Records map field names to values: ints for numbers and pointers, bytes (or str) for char
arrays and ``__data_loc`` strings, a sequence of ints for numeric arrays, bytes for dynamic
arrays.  Text comes out as str; bytes that are not UTF-8 are kept as surrogate escapes, so
``.encode("utf-8", "surrogateescape")`` gives the kernel's bytes back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence

__all__ = ["FieldLike", "PrintFmt", "PrintFmtError", "Symbolizer", "PointerHash", "compile_print_fmt"]


class FieldLike(Protocol):
    """A field line of a ``format`` file (machine.FieldDesc has this shape)."""

    type: str
    name: str
    offset: int
    size: int
    is_signed: bool


class PrintFmtError(ValueError):
    """A print fmt this evaluator cannot compile."""


# addr -> (symbol name, offset into it, symbol size), or None when no symbol covers addr.
Symbolizer = Callable[[int], "tuple[str, int, int] | None"]
# addr -> the hashed value %p prints, or None while the hash key is not ready
# (Linux then prints "(____ptrval____)").
PointerHash = Callable[[int], "int | None"]
Record = Mapping[str, object]


# What a conversion needs besides the record: (symbolize, hash_pointer).  A plain tuple:
# it is built once per formatted record.
_Env = tuple


_Eval = Callable[[Record, _Env], object]


class _Const:
    """An expression without REC: folded when compiled, so records only pay for fields."""

    __slots__ = ("value",)

    def __init__(self, value: object):
        self.value = value

    def __call__(self, r: Record, e: _Env) -> object:
        return self.value


def _fold(f, t, *operands):
    """f itself, or its value once if every operand is a constant."""
    if all(isinstance(o, _Const) for o in operands):
        return _Const(f({}, _NO_ENV)), t
    return f, t


_NO_ENV = (None, None)

# ---------------------------------------------------------------------------------------------
# C integer types: (bits, signed).  Values are kept normalised to their type.


@dataclass(frozen=True)
class _Int:
    bits: int
    signed: bool

    def wrap(self, v: int) -> int:
        v &= (1 << self.bits) - 1
        if self.signed and v >> (self.bits - 1):
            v -= 1 << self.bits
        return v


_INT = _Int(32, True)
_UINT = _Int(32, False)
_LONG = _Int(64, True)
_ULONG = _Int(64, False)
_BOOL = _Int(8, False)
_STR = "str"  # a string value
_BUF = "buf"  # bytes of a dynamic array


@dataclass(frozen=True)
class _Array:
    elem: _Int


_TYPEDEFS = {
    "u8": _Int(8, False), "__u8": _Int(8, False), "s8": _Int(8, True), "__s8": _Int(8, True),
    "u16": _Int(16, False), "__u16": _Int(16, False), "s16": _Int(16, True), "__s16": _Int(16, True),
    "u32": _UINT, "__u32": _UINT, "s32": _INT, "__s32": _INT,
    "u64": _ULONG, "__u64": _ULONG, "s64": _LONG, "__s64": _LONG,
    "gfp_t": _UINT, "pid_t": _INT, "uid_t": _UINT, "gid_t": _UINT, "dev_t": _UINT,
    "umode_t": _Int(16, False), "size_t": _ULONG, "ssize_t": _LONG, "loff_t": _LONG,
    "uintptr_t": _ULONG, "unsigned": _UINT, "bool": _BOOL, "_Bool": _BOOL,
}
_TYPE_WORDS = {"unsigned", "signed", "int", "long", "short", "char", "void", "const", "volatile"}


def _ctype(words: list[str]) -> _Int:
    """The integer type a cast or declaration names (pointers are unsigned long)."""
    if "*" in words:
        return _ULONG
    names = [w for w in words if w not in ("const", "volatile")]
    if len(names) == 1 and names[0] in _TYPEDEFS:
        return _TYPEDEFS[names[0]]
    signed = "unsigned" not in names
    if "char" in names:
        return _Int(8, signed)
    if "short" in names:
        return _Int(16, signed)
    if "long" in names:
        return _Int(64, signed)
    if names and all(n in ("unsigned", "signed", "int") for n in names):
        return _Int(32, signed)
    raise PrintFmtError(f"unknown type {' '.join(words)!r}")


def _promote(t: _Int) -> _Int:
    return t if t.bits >= 32 else _INT


def _common(a: _Int, b: _Int) -> _Int:
    """The usual arithmetic conversions."""
    a, b = _promote(a), _promote(b)
    if a.bits != b.bits:
        return a if a.bits > b.bits else b
    return _Int(a.bits, a.signed and b.signed)


# ---------------------------------------------------------------------------------------------
# Tokens


_TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)
    | (?P<id>[A-Za-z_]\w*)
    | (?P<str>"(?:[^"\\]|\\.)*")
    | (?P<chr>'(?:[^'\\]|\\.)+')
    | (?P<op>->|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&|^!~?:,()\[\]{}.])
    )""",
    re.X | re.S,
)

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b",
            "f": "\f", "v": "\v", "e": "\x1b", "?": "?"}


def _unescape(body: str) -> str:
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            out.append(chr(int(m.group(), 8)))
            i += 1 + len(m.group())
        elif nxt == "x":
            m = re.match(r"[0-9a-fA-F]+", body[i + 2 :])
            out.append(chr(int(m.group(), 16) & 0xFF))
            i += 2 + len(m.group())
        else:
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
    return "".join(out)


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise PrintFmtError(f"cannot read {text[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        tokens.append((kind, m.group(kind)))
    tokens.append(("end", ""))
    return tokens


# ---------------------------------------------------------------------------------------------
# Expressions: a recursive-descent parser producing (closure, type).


_BINARY_LEVELS = [
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("<<", ">>"),
    ("+", "-"), ("*", "/", "%"),
]
_FIELD_HELPERS = ("__get_str", "__get_dynamic_array", "__get_dynamic_array_len")


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], fields: Mapping[str, FieldLike]):
        self.tokens = tokens
        self.pos = 0
        self.fields = fields

    # -- token helpers
    def peek(self, ahead: int = 0) -> tuple[str, str]:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def take(self) -> tuple[str, str]:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect(self, value: str) -> None:
        kind, got = self.take()
        if got != value or kind not in ("op", "id"):
            raise PrintFmtError(f"expected {value!r}, got {got!r}")

    def accept(self, value: str) -> bool:
        kind, got = self.peek()
        if kind == "op" and got == value:
            self.pos += 1
            return True
        return False

    # -- grammar
    def expression(self):
        cond, ctype = self.binary(0)
        if not self.accept("?"):
            return cond, ctype
        truthy = _truth(cond, ctype)
        a, ta = self.expression()
        self.expect(":")
        b, tb = self.expression()
        if isinstance(ta, _Int) and isinstance(tb, _Int):
            t = _common(ta, tb)
            return _fold(lambda r, e: t.wrap(a(r, e)) if truthy(r, e) else t.wrap(b(r, e)), t, cond, a, b)
        if ta == tb == _STR:
            return _fold(lambda r, e: a(r, e) if truthy(r, e) else b(r, e), _STR, cond, a, b)
        raise PrintFmtError("ternary of mixed types")

    def binary(self, level: int):
        if level == len(_BINARY_LEVELS):
            return self.unary()
        left, lt = self.binary(level + 1)
        while True:
            kind, op = self.peek()
            if kind != "op" or op not in _BINARY_LEVELS[level]:
                return left, lt
            self.pos += 1
            right, rt = self.binary(level + 1)
            left, lt = _binary(op, left, lt, right, rt)

    def unary(self):
        kind, tok = self.peek()
        if kind == "op" and tok in ("-", "+", "~", "!"):
            self.pos += 1
            f, t = self.unary()
            t = _need_int(t)
            if tok == "!":
                return _fold(lambda r, e: int(not f(r, e)), _INT, f)
            t = _promote(t)
            if tok == "-":
                return _fold(lambda r, e: t.wrap(-f(r, e)), t, f)
            if tok == "~":
                return _fold(lambda r, e: t.wrap(~f(r, e)), t, f)
            return _fold(lambda r, e: t.wrap(f(r, e)), t, f)
        if kind == "op" and tok == "(" and self.is_cast():
            self.pos += 1
            words = []
            while not self.accept(")"):
                words.append(self.take()[1])
            target = _ctype(words)
            f, t = self.unary()
            t = _need_int(t)
            if target is _BOOL:
                return _fold(lambda r, e: int(f(r, e) != 0), target, f)
            return _fold(lambda r, e: target.wrap(f(r, e)), target, f)
        return self.postfix()

    def is_cast(self) -> bool:
        """Whether the '(' at the cursor opens a cast: type words and '*' up to ')'."""
        i = 1
        saw_type = False
        while True:
            kind, tok = self.peek(i)
            if kind == "id" and (tok in _TYPE_WORDS or tok in _TYPEDEFS):
                saw_type = True
            elif (kind, tok) != ("op", "*"):
                return saw_type and (kind, tok) == ("op", ")")
            i += 1

    def postfix(self):
        kind, tok = self.take()
        if kind == "num":
            return _literal(tok)
        if kind == "chr":
            return _Const(ord(_unescape(tok[1:-1]))), _INT
        if kind == "str":
            text = _unescape(tok[1:-1])
            while self.peek()[0] == "str":  # adjacent literals concatenate
                text += _unescape(self.take()[1][1:-1])
            return _Const(text), _STR
        if kind == "op" and tok == "(":
            value = self.expression()
            self.expect(")")
            return value
        if kind == "id" and tok == "REC":
            self.expect("->")
            name = self.take()[1]
            return self.field_access(name)
        if kind == "id" and tok in ("true", "false"):
            return _Const(int(tok == "true")), _INT
        if kind == "id" and self.peek() == ("op", "("):
            self.pos += 1
            return self.call(tok)
        raise PrintFmtError(f"unexpected {tok!r}")

    def field(self, name: str) -> FieldLike:
        field = self.fields.get(name)
        if field is None:
            raise PrintFmtError(f"no field {name!r}")
        return field

    def field_access(self, name: str):
        field = self.field(name)
        ftype = field.type
        if "[" in ftype and "__data_loc" not in ftype:
            base = ftype[: ftype.index("[")].strip()
            if base.split()[-1] == "char" and not self.peek() == ("op", "["):
                return (lambda r, e: _text(r[name])), _STR
            count = int(ftype[ftype.index("[") + 1 : ftype.index("]")] or 0)
            elem = _ctype(base.split())
            if count:
                elem = _Int(8 * (field.size // count), elem.signed)
            if self.accept("["):
                index, it = self.expression()
                _need_int(it)
                self.expect("]")
                return (lambda r, e: elem.wrap(r[name][index(r, e)])), elem  # type: ignore[index]
            return (lambda r, e: r[name]), _Array(elem)
        t = _Int(8 * field.size, bool(field.is_signed)) if field.size in (1, 2, 4, 8) else None
        if t is None:
            raise PrintFmtError(f"field {name!r} of size {field.size} used as a number")
        mask = (1 << t.bits) - 1
        if not t.signed:
            return (lambda r, e: r[name] & mask), t  # type: ignore[operator]
        half = 1 << (t.bits - 1)
        return (lambda r, e: ((r[name] + half) & mask) - half), t  # type: ignore[operator]

    def args(self) -> list:
        out = []
        if self.accept(")"):
            return out
        while True:
            if self.accept("{"):
                mask, mt = self.expression()
                _need_int(mt)
                self.expect(",")
                kind, text = self.take()
                if kind != "str":
                    raise PrintFmtError("flag name must be a string")
                self.expect("}")
                out.append(("pair", mask, _unescape(text[1:-1])))
            else:
                out.append(self.expression())
            if self.accept(")"):
                return out
            self.expect(",")

    def call(self, name: str):
        if name in _FIELD_HELPERS:
            kind, fname = self.take()
            self.expect(")")
            field = self.field(fname)
            if name == "__get_str":
                return (lambda r, e: _text(r[fname])), _STR
            if name == "__get_dynamic_array":
                return (lambda r, e: r[fname]), _BUF
            return (lambda r, e: len(r[fname])), _INT  # type: ignore[arg-type]
        args = self.args()
        if name == "__print_flags":
            return _print_flags(args)
        if name == "__print_symbolic":
            return _print_symbolic(args)
        if name in ("__print_hex", "__print_hex_str"):
            return _print_hex(args, concatenate=name == "__print_hex_str")
        if name == "__print_array":
            return _print_array(args)
        raise PrintFmtError(f"unsupported helper {name}()")


def _need_int(t) -> _Int:
    if not isinstance(t, _Int):
        raise PrintFmtError("integer expected")
    return t


def _truth(f, t):
    if t == _STR:
        return lambda r, e: True  # a string literal or helper result is a non-NULL pointer
    _need_int(t)
    return lambda r, e: f(r, e) != 0


def _literal(tok: str):
    digits = tok.rstrip("uUlL")
    suffix = tok[len(digits) :].lower()
    value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits, 8 if digits.startswith("0") else 10)
    unsigned_ok = "u" in suffix or digits[:1] == "0" and len(digits) > 1  # hex/octal may be unsigned
    candidates = [_INT, _UINT, _LONG, _ULONG] if "l" not in suffix else [_LONG, _ULONG]
    for t in candidates:
        if "u" in suffix and t.signed:
            continue
        if not t.signed and not unsigned_ok:
            continue
        if value < (1 << (t.bits - t.signed)):
            return _Const(value), t
    return _Const(value), _ULONG


def _binary(op, a, ta, b, tb):
    ta, tb = _need_int(ta), _need_int(tb)
    if op == "&&":
        return _fold(lambda r, e: int(a(r, e) != 0 and b(r, e) != 0), _INT, a, b)
    if op == "||":
        return _fold(lambda r, e: int(a(r, e) != 0 or b(r, e) != 0), _INT, a, b)
    if op in ("<<", ">>"):
        t = _promote(ta)
        if op == "<<":
            return _fold(lambda r, e: t.wrap(a(r, e) << (b(r, e) & (t.bits - 1))), t, a, b)
        return _fold(lambda r, e: t.wrap(t.wrap(a(r, e)) >> (b(r, e) & (t.bits - 1))), t, a, b)
    t = _common(ta, tb)
    w = t.wrap
    if op in ("==", "!=", "<", "<=", ">", ">="):
        cmp = {
            "==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
            "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
        }[op]
        return _fold(lambda r, e: int(cmp(w(a(r, e)), w(b(r, e)))), _INT, a, b)
    if op == "/":
        return _fold(lambda r, e: w(_cdiv(w(a(r, e)), w(b(r, e)))), t, a, b)
    if op == "%":
        return _fold(lambda r, e: w(_cmod(w(a(r, e)), w(b(r, e)))), t, a, b)
    fn = {
        "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
        "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
    }[op]
    if isinstance(b, _Const):  # the common `REC->x & CONSTANT`: one call less per record
        y = b.value
        return _fold(lambda r, e: w(fn(a(r, e), y)), t, a)
    return _fold(lambda r, e: w(fn(a(r, e), b(r, e))), t, a, b)


def _cdiv(x: int, y: int) -> int:
    if y == 0:
        return 0  # undefined in C; a trace line must still print
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _cmod(x: int, y: int) -> int:
    return x - _cdiv(x, y) * y if y else 0


def _text(value) -> str:
    if isinstance(value, str):
        return value.split("\0", 1)[0]
    return bytes(value).split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


_UL = _ULONG.wrap


def _print_flags(args):
    if len(args) < 2 or args[0][0] == "pair" or args[1][0] == "pair":
        raise PrintFmtError("__print_flags(value, delim, {mask, name}...)")
    value, vt = args[0]
    delim, dt = args[1]
    _need_int(vt)
    if dt != _STR:
        raise PrintFmtError("__print_flags delimiter must be a string")
    if not all(isinstance(m, _Const) for _, m, _ in args[2:]) or not isinstance(delim, _Const):
        raise PrintFmtError("__print_flags table must be constant")
    table = [(_UL(mask.value), name) for _, mask, name in args[2:]]
    sep = delim.value

    def run(r, e):
        flags = _UL(value(r, e))
        parts = []
        for mask, name in table:
            if not flags:
                break
            if flags & mask != mask:
                continue
            flags &= ~mask
            parts.append(name)
        if flags:
            parts.append(f"0x{flags:x}")
        return sep.join(parts)

    return run, _STR


def _print_symbolic(args):
    if not args or args[0][0] == "pair":
        raise PrintFmtError("__print_symbolic(value, {value, name}...)")
    value, vt = args[0]
    _need_int(vt)
    if not all(isinstance(m, _Const) for _, m, _ in args[1:]):
        raise PrintFmtError("__print_symbolic table must be constant")
    table: dict[int, str] = {}
    for _, mask, name in args[1:]:
        table.setdefault(_UL(mask.value), name)  # the first entry of a value wins

    def run(r, e):
        v = _UL(value(r, e))
        name = table.get(v)
        return name if name is not None else f"0x{v:x}"

    return run, _STR


def _print_hex(args, concatenate: bool):
    (buf, bt), (length, lt) = args
    _need_int(lt)
    if bt != _BUF:
        raise PrintFmtError("__print_hex of a non-buffer")
    sep = "" if concatenate else " "

    def run(r, e):
        data = bytes(buf(r, e))[: max(length(r, e), 0)]
        # trace_print_hex_seq() prints 16-byte chunks with "%*ph": no separator between chunks.
        return "".join(sep.join(f"{b:02x}" for b in data[i : i + 16]) for i in range(0, len(data), 16))

    return run, _STR


def _print_array(args):
    (arr, at), (count, ct), (size, st) = args
    _need_int(ct)
    _need_int(st)

    def run(r, e):
        el_size = size(r, e)
        values = arr(r, e)
        n = count(r, e)
        if isinstance(values, (bytes, bytearray)):  # a dynamic array: raw little-endian bytes
            if el_size not in (1, 2, 4, 8):
                items = [f"BAD SIZE:{el_size} 0x{values[0]:x}"] + [f"0x{b:x}" for b in values[1 : n * el_size]]
                return "{" + ",".join(items) + "}"
            values = [int.from_bytes(values[i : i + el_size], "little") for i in range(0, n * el_size, el_size)]
        mask = (1 << (8 * el_size)) - 1
        return "{" + ",".join(f"0x{v & mask:x}" for v in list(values)[:n]) + "}"

    return run, _STR


# ---------------------------------------------------------------------------------------------
# The format string: vsnprintf()'s format_decode(), number() and string().

_LEFT, _PLUS, _SPACE, _SPECIAL, _ZEROPAD = 1, 2, 4, 8, 16
_CONV = re.compile(r"%([-+ #0]*)(\d+)?(?:\.(\d*))?(hh|h|ll|l|L|z|Z|t)?([diouxXcsp%])")
_QUAL_BITS = {"hh": 8, "h": 16, None: 32, "l": 64, "ll": 64, "L": 64, "z": 64, "Z": 64, "t": 64}


def _number(num: int, base: int, flags: int, width: int, precision: int, small: bool, signed: bool) -> str:
    """lib/vsprintf.c number()."""
    if flags & _LEFT:
        flags &= ~_ZEROPAD
    sign = ""
    if signed:
        if num < 0:
            sign, num = "-", -num
        elif flags & _PLUS:
            sign = "+"
        elif flags & _SPACE:
            sign = " "
    if sign:
        width -= 1
    prefix = ""
    if flags & _SPECIAL and base != 10:
        if base == 16:
            prefix = "0x" if small else "0X"
        elif num:
            prefix = "0"
        width -= len(prefix) if base == 16 else bool(num)
    digits = format(num, {8: "o", 10: "d", 16: "x" if small else "X"}[base])
    precision = max(precision, len(digits))
    width = max(width - precision, 0)
    if flags & _LEFT:
        return sign + prefix + "0" * (precision - len(digits)) + digits + " " * width
    if flags & _ZEROPAD:
        return sign + prefix + "0" * width + "0" * (precision - len(digits)) + digits
    return " " * width + sign + prefix + "0" * (precision - len(digits)) + digits


def _widen(s: str, flags: int, width: int) -> str:
    if len(s) >= width:
        return s
    return s + " " * (width - len(s)) if flags & _LEFT else " " * (width - len(s)) + s


def _pointer_string(addr: int, flags: int, width: int, precision: int) -> str:
    if width < 0:
        width, flags = 16, flags | _ZEROPAD
    return _number(addr, 16, flags, width, precision, True, False)


def _conversion(m: re.Match, arg: _Eval, atype, ptr_ext: str) -> Callable[[Record, _Env], str]:
    flag_text, width_text, prec_text, qual, conv = m.groups()
    flags = 0
    for ch in flag_text:
        flags |= {"-": _LEFT, "+": _PLUS, " ": _SPACE, "#": _SPECIAL, "0": _ZEROPAD}[ch]
    width = int(width_text) if width_text else -1
    precision = int(prec_text or 0) if prec_text is not None else -1
    if conv == "s":
        if atype != _STR:
            raise PrintFmtError("%s of a non-string")
        if precision < 0 and width <= 0:
            return arg  # type: ignore[return-value]
        lim = precision
        return lambda r, e: _widen(arg(r, e)[:lim] if lim >= 0 else arg(r, e), flags, width)  # type: ignore[index]
    _need_int(atype)
    if conv == "c":
        return lambda r, e: _widen(chr(arg(r, e) & 0xFF), flags, width)  # type: ignore[operator]
    if conv == "p":
        return _pointer_conversion(ptr_ext, arg, flags, width, precision)
    bits = _QUAL_BITS[qual]
    t = _Int(bits, conv in "di")
    base = {"o": 8, "x": 16, "X": 16}.get(conv, 10)
    small = conv != "X"
    wrap = t.wrap
    if precision < 0 and flags in (0, _ZEROPAD, _LEFT) and conv != "o":
        # Where Python's format() prints what number() does: no sign flags, no '#', no precision.
        spec = ("<" if flags & _LEFT else "0" if flags & _ZEROPAD else "") + (str(width) if width > 0 else "")
        spec += {"x": "x", "X": "X"}.get(conv, "d")
        mask = (1 << bits) - 1
        if t.signed:
            half = 1 << (bits - 1)
            return lambda r, e: format(((arg(r, e) + half) & mask) - half, spec)  # type: ignore[operator]
        return lambda r, e: format(arg(r, e) & mask, spec)  # type: ignore[operator]
    return lambda r, e: _number(wrap(arg(r, e)), base, flags, width, precision, small, t.signed)  # type: ignore[arg-type]


def _pointer_conversion(ext: str, arg, flags: int, width: int, precision: int):
    kind = ext[:1]
    if kind == "x":
        return lambda r, e: _pointer_string(_UL(arg(r, e)), flags, width, precision)
    if kind in ("", "K"):  # %pK with kptr_restrict 0 hashes like %p

        def hashed(r, e):
            addr = _UL(arg(r, e))
            if addr == 0 or addr >= (1 << 64) - 4095:  # NULL and ERR_PTR values print as they are
                return _pointer_string(addr, flags, width, precision)
            hash_pointer = e[1]
            value = hash_pointer(addr) if hash_pointer is not None else None
            if value is None:
                return _widen("(____ptrval____)"[: precision if precision >= 0 else None], flags, 16)
            return _pointer_string(value, flags, width, precision)

        return hashed
    if kind in ("S", "s", "B") and ext[1:2] not in ("b", "R"):
        with_offset = kind != "s"
        backtrace = kind == "B"

        def symbol(r, e):
            addr = _UL(arg(r, e))
            symbolize = e[0]
            found = symbolize(addr - backtrace) if symbolize is not None else None
            if found is None:
                text = f"0x{addr:x}"
            elif with_offset:
                name, offset, size = found
                text = f"{name}+0x{offset + backtrace:x}/0x{size:x}"
            else:
                text = found[0]
            return _widen(text[:precision] if precision >= 0 else text, flags, width)

        return symbol
    raise PrintFmtError(f"unsupported %p{ext}")


class PrintFmt:
    """A compiled print fmt."""

    __slots__ = ("source", "_template", "_convs")

    def __init__(self, source: str, template: str, convs: list):
        self.source = source
        self._template = template  # the literal text, with a %s per conversion
        self._convs = tuple(convs)

    def format(
        self,
        record: Record,
        symbolize: Symbolizer | None = None,
        hash_pointer: PointerHash | None = None,
    ) -> str:
        """The text the event's print fmt gives for this record."""
        env = (symbolize, hash_pointer)
        return self._template % tuple([conv(record, env) for conv in self._convs])


def compile_print_fmt(print_fmt: str, fields: Sequence[FieldLike]) -> PrintFmt:
    """Compile what follows ``print fmt: `` in a format file, for an event with these fields."""
    tokens = _tokenize(print_fmt)
    if tokens[0][0] != "str":
        raise PrintFmtError("a print fmt starts with a string literal")
    parser = _Parser(tokens, {f.name: f for f in fields})
    fmt = ""
    while parser.peek()[0] == "str":
        fmt += _unescape(parser.take()[1][1:-1])
    args = []
    while parser.accept(","):
        args.append(parser.expression())
    if parser.peek()[0] != "end":
        raise PrintFmtError(f"unexpected {parser.peek()[1]!r}")

    template = []
    convs = []
    pos = 0
    while True:
        start = fmt.find("%", pos)
        template.append(fmt[pos : start if start >= 0 else None].replace("%", "%%"))
        if start < 0:
            break
        m = _CONV.match(fmt, start)
        if not m:
            raise PrintFmtError(f"unsupported conversion at {fmt[start:start + 8]!r}")
        pos = m.end()
        if m.group(5) == "%":
            template.append("%%")
            continue
        ptr_ext = ""
        if m.group(5) == "p":  # vsnprintf() skips every alphanumeric after %p
            ptr_ext = re.match(r"[A-Za-z0-9]*", fmt[pos:]).group()
            pos += len(ptr_ext)
        if len(convs) >= len(args):
            raise PrintFmtError("more conversions than arguments")
        arg, atype = args[len(convs)]
        convs.append(_conversion(m, arg, atype, ptr_ext))
        template.append("%s")
    if len(convs) != len(args):
        raise PrintFmtError("more arguments than conversions")
    return PrintFmt(print_fmt, "".join(template), convs)
