"""Evaluation of an event's ``print fmt:`` (the TP_printk() of the event) on decoded records.

A print fmt is a C string literal -- a kernel printf format (lib/vsprintf.c) -- followed by C
argument expressions over ``REC->field``: integer arithmetic with C's types and conversions,
casts, comparisons, ternaries, and the trace helpers ``__print_flags``, ``__print_symbolic``,
``__get_str``, ``__get_dynamic_array``, ``__get_dynamic_array_len``, ``__print_hex``,
``__print_hex_str`` and ``__print_array`` (kernel/trace/trace_output.c).  It is compiled once
into one generated Python function per event (field reads and C integer wrapping inlined,
constant parts folded, one ``%`` onto a template), so formatting a record runs no parser and
no per-conversion calls.

Conversions: ``%d %i %u %o %x %X %c %s %%`` with flags ``-+ #0``, width, precision and the
``hh h l ll z t`` qualifiers, formatted as the kernel's number()/string() do (``%#x`` of 0 is
``0x0``; a precision never hides the digit 0); ``%p`` (hashed), ``%px``, ``%pK``
(kptr_restrict 0: hashed), ``%pS``/``%ps``/``%pB`` (symbols), ``%pI4``/``%pi4``/``%pI6``/``%pi6``/``%pI6c`` of an address
array and ``%pIS``/``%piS`` (with ``p c f s``) of a sockaddr in one (lib/vsprintf.c's
ip4_string / ip6_string / ip6_compressed_string / ip*_addr_string_sa).  Other ``%p``
extensions (``%pM``, ``%pUb``, ...) are not supported and fail at compile time, as any
unknown helper.

Records map field names to values: ints for numbers and pointers, bytes (or str) for char
arrays and ``__data_loc`` strings, a sequence of ints for numeric arrays, bytes for dynamic
arrays.  Text comes out as str; bytes that are not UTF-8 are kept as surrogate escapes, so
``.encode("utf-8", "surrogateescape")`` gives the kernel's bytes back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence, cast

from .fields import FieldLike

__all__ = ["FieldLike", "PrintFmt", "PrintFmtError", "Symbolizer", "PointerHash", "compile_print_fmt"]




class PrintFmtError(ValueError):
    """A print fmt this evaluator cannot compile."""


# addr -> (symbol name, offset into it, symbol size), or None when no symbol covers addr.
Symbolizer = Callable[[int], "tuple[str, int, int] | None"]
# addr -> the hashed value %p prints, or None while the hash key is not ready
# (Linux then prints "(____ptrval____)").
PointerHash = Callable[[int], "int | None"]
Record = Mapping[str, object]


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

    def code(self, x: str) -> str:
        """Python source for wrap() of the value of the source atom x (few parentheses: the
        compiler caps their nesting)."""
        mask = (1 << self.bits) - 1
        if not self.signed:
            return f"({x} & {mask})"
        half = 1 << (self.bits - 1)
        return f"(({x} + {half} & {mask}) - {half})"


@dataclass(frozen=True)
class _Ptr(_Int):
    """A pointer to a struct of elem bytes (a `(struct page *)` cast): + and - step by it."""
    elem: int = 1


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


# An expression's type: a C integer (or pointer), a numeric array, _STR or _BUF.
_Type = _Int | _Array | str
# What a record holds for an array field or a dynamic array: bytes, or a sequence of ints.
_Values = bytes | Sequence[int]


class _Expr:
    """A compiled expression: Python source over the record ``r`` (and the helpers bound in
    the event's namespace), its C type, and its value when it has no REC (folded at compile
    time, so records only pay for fields)."""

    __slots__ = ("code", "type", "is_const", "value")

    def __init__(self, code: str, type_: _Type, is_const: bool = False, value: object = None):
        self.code = code
        self.type: _Type = type_
        self.is_const = is_const
        self.value = value


# A helper's argument: an expression, or a {mask, name} pair of a flag table ("pair", mask, name).
_Pair = tuple[str, _Expr, str]
_Arg = _Expr | _Pair


def _wrap(e: _Expr, t: _Int) -> str:
    """Source for e's value converted to t: nothing to do when t holds every value of e's type
    (values are kept normalised to their type)."""
    src = _need_int(e.type)
    if src.signed == t.signed and src.bits <= t.bits or not src.signed and src.bits < t.bits:
        return e.code
    return t.code(e.code)


def _const(value: object, type_: _Type) -> _Expr:
    # repr() of an int or str is a literal that reads back as the same value: a string from
    # the format can never become code.
    return _Expr(f"({value!r})", type_, True, value)


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
            assert m is not None  # (nxt is an octal digit)
            out.append(chr(int(m.group(), 8)))
            i += 1 + len(m.group())
        elif nxt == "x":
            m = re.match(r"[0-9a-fA-F]+", body[i + 2 :])
            if m is None:
                raise PrintFmtError("\\x used with no following hex digits")
            out.append(chr(int(m.group(), 16) & 0xFF))
            i += 2 + len(m.group())
        else:
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
    return "".join(out)


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise PrintFmtError(f"cannot read {text[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        assert kind is not None  # (every alternative is a named group)
        tokens.append((kind, m.group(kind)))
    tokens.append(("end", ""))
    return tokens


# ---------------------------------------------------------------------------------------------
# Generated code.  Every expression compiles to Python source over the record `r`; the source
# is built only from literals (repr() of ints and strings) and names bound here, and runs with
# no builtins, so nothing in a format -- field names, strings -- can name anything else.


class _Namespace:
    """The globals of one event's generated function: the runtime helpers, plus objects
    (tables, pointer printers) bound under generated names."""

    def __init__(self) -> None:
        self.names: dict[str, object] = {
            "__builtins__": {}, "len": len, "chr": chr,
            "_text": _text, "_cdiv": _cdiv, "_cmod": _cmod, "_number": _number, "_widen": _widen,
        }

    def bind(self, obj: object) -> str:
        name = f"_b{len(self.names)}"
        self.names[name] = obj
        return name

    def call(self, fn: Callable[..., object], type_: _Type, *operands: _Expr) -> _Expr:
        return _Expr(f"{self.bind(fn)}({', '.join(o.code for o in operands)})", type_)

    def fold(self, code: str, type_: _Type, *operands: _Expr) -> _Expr:
        """The expression, or its value once if every operand is a constant."""
        if all(o.is_const for o in operands):
            return _const(eval(code, self.names), type_)  # noqa: S307 - generated source only
        return _Expr(code, type_)


# ---------------------------------------------------------------------------------------------
# Expressions: a recursive-descent parser producing _Expr.  Every code it builds is an atom
# (a literal, a call, a subscript or a parenthesised expression), so operands combine
# without precedence surprises.


_BINARY_LEVELS = [
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("<<", ">>"),
    ("+", "-"), ("*", "/", "%"),
]
_FIELD_HELPERS = ("__get_str", "__get_dynamic_array", "__get_dynamic_array_len")


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], fields: Mapping[str, FieldLike], ns: _Namespace,
                 names: Mapping[str, int], variables: Mapping[str, Callable[[], int]]):
        self.tokens = tokens
        self.pos = 0
        self.fields = fields
        self.ns = ns
        self.names = names
        self.variables = variables

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
    def expression(self) -> _Expr:
        cond = self.binary(0)
        if not self.accept("?"):
            return cond
        truthy = _truth(cond)
        a = self.expression()
        self.expect(":")
        b = self.expression()
        if isinstance(a.type, _Int) and isinstance(b.type, _Int):
            t = _common(a.type, b.type)
            return self.ns.fold(f"({_wrap(a, t)} if {truthy} else {_wrap(b, t)})", t, cond, a, b)
        if a.type == b.type == _STR:
            return self.ns.fold(f"({a.code} if {truthy} else {b.code})", _STR, cond, a, b)
        raise PrintFmtError("ternary of mixed types")

    def binary(self, level: int) -> _Expr:
        if level == len(_BINARY_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while True:
            kind, op = self.peek()
            if kind != "op" or op not in _BINARY_LEVELS[level]:
                return left
            self.pos += 1
            right = self.binary(level + 1)
            left = _binary(self.ns, op, left, right)

    def unary(self) -> _Expr:
        kind, tok = self.peek()
        if kind == "op" and tok in ("-", "+", "~", "!"):
            self.pos += 1
            f = self.unary()
            t = _need_int(f.type)
            if tok == "!":
                return self.ns.fold(f"(0 if {f.code} else 1)", _INT, f)
            t = _promote(t)
            if tok == "+":
                return self.ns.fold(_wrap(f, t), t, f)
            return self.ns.fold(t.code(f"({tok}{f.code})"), t, f)
        if kind == "op" and tok == "(" and self.is_cast():
            self.pos += 1
            words = []
            while not self.accept(")"):
                words.append(self.take()[1])
            target = self.struct_pointer(words) or _ctype(words)
            f = self.unary()
            _need_int(f.type)
            if target is _BOOL:
                return self.ns.fold(f"(1 if {f.code} != 0 else 0)", target, f)
            return self.ns.fold(_wrap(f, target), target, f)
        return self.postfix()

    def is_cast(self) -> bool:
        """Whether the '(' at the cursor opens a cast: type words and '*' up to ')'."""
        i = 1
        saw_type = False
        while True:
            kind, tok = self.peek(i)
            if (kind, tok) == ("id", "struct") and self.peek(i + 1)[0] == "id":
                saw_type = True
                i += 1
            elif kind == "id" and (tok in _TYPE_WORDS or tok in _TYPEDEFS):
                saw_type = True
            elif (kind, tok) != ("op", "*"):
                return saw_type and (kind, tok) == ("op", ")")
            i += 1

    def struct_pointer(self, words: list[str]) -> _Ptr | None:
        """`struct NAME *`: a pointer that steps by the struct's size, if the kernel gave it."""
        if len(words) == 3 and words[0] == "struct" and words[2] == "*":
            size = self.names.get(f"struct {words[1]}")
            if size is None:
                raise PrintFmtError(f"unknown size of struct {words[1]}")
            return _Ptr(64, False, size)
        return None

    def postfix(self) -> _Expr:
        kind, tok = self.take()
        if kind == "num":
            return _literal(tok)
        if kind == "chr":
            return _const(ord(_unescape(tok[1:-1])), _INT)
        if kind == "str":
            text = _unescape(tok[1:-1])
            while self.peek()[0] == "str":  # adjacent literals concatenate
                text += _unescape(self.take()[1][1:-1])
            return _const(text, _STR)
        if kind == "op" and tok == "(" and self.peek() == ("id", "REC") and self.peek(1) == ("op", ")"):
            self.pos += 2        # (REC)->field, as FUNC_REPEATS_GET_DELTA_TS() writes it
            tok = "REC"
        elif kind == "op" and tok == "(":
            value = self.expression()
            self.expect(")")
            return value
        if tok == "REC":
            self.expect("->")
            name = self.take()[1]
            return self.field_access(name)
        if kind == "id" and tok in ("true", "false"):
            return _const(int(tok == "true"), _INT)
        if kind == "id" and tok in self.names and self.peek() != ("op", "("):
            number = self.names[tok]  # an enum constant of the kernel's, or a variable's value
            return _const(number, _INT if -2**31 <= number < 2**31 else _ULONG)
        if kind == "id" and tok in self.variables and self.peek() != ("op", "("):
            # a kernel variable, read when the record is printed (as the kernel's printer does)
            return self.ns.call(self.variables[tok], _ULONG)
        if kind == "id" and self.peek() == ("op", "("):
            self.pos += 1
            return self.call(tok)
        raise PrintFmtError(f"unexpected {tok!r}")

    def field(self, name: str) -> str:
        """The source reading field name from the record."""
        if name not in self.fields:
            raise PrintFmtError(f"no field {name!r}")
        return f"r[{name!r}]"

    def field_access(self, name: str) -> _Expr:
        read = self.field(name)
        field = self.fields[name]
        ftype = field.type
        if "[" in ftype and "__data_loc" not in ftype:
            base = ftype[: ftype.index("[")].strip()
            if base.split()[-1] == "char" and not self.peek() == ("op", "["):
                return _Expr(f"_text({read})", _STR)
            # the declared length as the format prints it: a number, or the expression the
            # event was written with (`sizeof(struct sockaddr_in6)`): the base type then says
            # the element's size
            length = ftype[ftype.index("[") + 1 : ftype.index("]")].strip()
            count = int(length) if length.isdigit() else 0
            elem = _ctype(base.split())
            if count:
                elem = _Int(8 * (field.size // count), elem.signed)
            if self.accept("["):
                index = self.expression()
                _need_int(index.type)
                self.expect("]")
                return _Expr(elem.code(f"{read}[{index.code}]"), elem)
            return _Expr(read, _Array(elem))
        if field.size not in (1, 2, 4, 8):
            raise PrintFmtError(f"field {name!r} of size {field.size} used as a number")
        if "*" in ftype and field.size == 8:  # a pointer: %s of it prints the string it points to
            return _Expr(_ULONG.code(read), _Ptr(64, False))
        t = _Int(8 * field.size, bool(field.is_signed))
        return _Expr(t.code(read), t)

    def args(self) -> list[_Arg]:
        out: list[_Arg] = []
        if self.accept(")"):
            return out
        while True:
            if self.accept("{"):
                mask = self.expression()
                _need_int(mask.type)
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

    def call(self, name: str) -> _Expr:
        if name in _FIELD_HELPERS:
            read = self.field(self.take()[1])
            self.expect(")")
            if name == "__get_str":
                return _Expr(f"_text({read})", _STR)
            if name == "__get_dynamic_array":
                return _Expr(read, _BUF)
            return _Expr(f"len({read})", _INT)
        args = self.args()
        if name == "__print_flags":
            return _print_flags(self.ns, args)
        if name == "__print_symbolic":
            return _print_symbolic(self.ns, args)
        if name in ("__print_hex", "__print_hex_str"):
            return _print_hex(self.ns, args, concatenate=name == "__print_hex_str")
        if name == "__print_array":
            return _print_array(self.ns, args)
        if name == "__builtin_expect" and len(args) == 2:
            value, _hint = args   # (likely()/unlikely(): a hint to the compiler; its value is the first)
            if isinstance(value, _Expr):
                return value
        raise PrintFmtError(f"unsupported helper {name}()")


def _need_int(t: _Type) -> _Int:
    if not isinstance(t, _Int):
        raise PrintFmtError("integer expected")
    return t


def _truth(e: _Expr) -> str:
    if e.type == _STR:
        return "True"  # a string literal or helper result is a non-NULL pointer
    _need_int(e.type)
    return f"({e.code} != 0)"


def _literal(tok: str) -> _Expr:
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
            return _const(value, t)
    return _const(value, _ULONG)


_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def _binary(ns: _Namespace, op: str, a: _Expr, b: _Expr) -> _Expr:
    ta, tb = _need_int(a.type), _need_int(b.type)
    if op in ("+", "-") and isinstance(ta, _Ptr) and ta.elem > 1:  # pointer arithmetic
        b = ns.fold(_ULONG.code(f"({_wrap(b, _LONG)} * {ta.elem})"), _ULONG, b)
        a, ta, tb = _Expr(a.code, _ULONG, a.is_const, a.value), _ULONG, _ULONG
    if op == "&&":
        return ns.fold(f"(1 if {a.code} != 0 and {b.code} != 0 else 0)", _INT, a, b)
    if op == "||":
        return ns.fold(f"(1 if {a.code} != 0 or {b.code} != 0 else 0)", _INT, a, b)
    if op in ("<<", ">>"):
        t = _promote(ta)
        count = f"({b.code} & {t.bits - 1})"
        if op == "<<":
            return ns.fold(t.code(f"({a.code} << {count})"), t, a, b)
        return ns.fold(f"({_wrap(a, t)} >> {count})", t, a, b)  # a value of t shifted right stays in t
    t = _common(ta, tb)
    x, y = _wrap(a, t), _wrap(b, t)
    if op in _COMPARISONS:
        return ns.fold(f"(1 if {x} {op} {y} else 0)", _INT, a, b)
    if op in ("/", "%"):
        helper = "_cdiv" if op == "/" else "_cmod"
        return ns.fold(t.code(f"{helper}({x}, {y})"), t, a, b)
    if op in ("&", "|", "^") and x is a.code and y is b.code:
        return ns.fold(f"({x} {op} {y})", t, a, b)  # bitwise operations on values of t stay in t
    return ns.fold(t.code(f"({a.code} {op} {b.code})"), t, a, b)


def _cdiv(x: int, y: int) -> int:
    if y == 0:
        return 0  # undefined in C; a trace line must still print
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _cmod(x: int, y: int) -> int:
    return x - _cdiv(x, y) * y if y else 0


def _text(value: str | _Values) -> str:
    if isinstance(value, str):
        return value.split("\0", 1)[0]
    return bytes(value).split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


_UL = _ULONG.wrap


def _pairs(args: Sequence[_Arg]) -> list[_Pair] | None:
    """The args as {value, name} pairs, or None if one is not."""
    pairs = [a for a in args if isinstance(a, tuple)]
    return pairs if len(pairs) == len(args) else None


def _const_int(e: _Expr) -> int:
    assert isinstance(e.value, int)  # (a constant of an integer type)
    return e.value


def _print_flags(ns: _Namespace, args: list[_Arg]) -> _Expr:
    value, delim = (args[0], args[1]) if len(args) >= 2 else (None, None)
    if not isinstance(value, _Expr) or not isinstance(delim, _Expr):
        raise PrintFmtError("__print_flags(value, delim, {mask, name}...)")
    _need_int(value.type)
    if delim.type != _STR:
        raise PrintFmtError("__print_flags delimiter must be a string")
    pairs = _pairs(args[2:])
    if pairs is None:
        raise PrintFmtError("__print_flags(value, delim, {mask, name}...)")
    if not all(m.is_const for _, m, _ in pairs) or not delim.is_const:
        raise PrintFmtError("__print_flags table must be constant")
    table = [(_UL(_const_int(mask)), name) for _, mask, name in pairs]
    sep = str(delim.value)

    return ns.call(lambda flags: print_flags_seq(flags, table, sep), _STR, _Expr(_wrap(value, _ULONG), _ULONG))


def print_flags_seq(flags: int, table: Sequence[tuple[int, str]], delim: str = "|") -> str:
    """trace_print_flags_seq(): the names of the table's masks that flags has whole, in table
    order (each taking its bits), then what is left in hex."""
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
    return delim.join(parts)


def _print_symbolic(ns: _Namespace, args: list[_Arg]) -> _Expr:
    value = args[0] if args else None
    pairs = _pairs(args[1:])
    if not isinstance(value, _Expr) or pairs is None:
        raise PrintFmtError("__print_symbolic(value, {value, name}...)")
    _need_int(value.type)
    if not all(m.is_const for _, m, _ in pairs):
        raise PrintFmtError("__print_symbolic table must be constant")
    table: dict[int, str] = {}
    for _, mask, name in pairs:
        table.setdefault(_UL(_const_int(mask)), name)  # the first entry of a value wins

    def print_symbolic(v: int) -> str:
        name = table.get(v)
        return name if name is not None else f"0x{v:x}"

    return ns.call(print_symbolic, _STR, _Expr(_wrap(value, _ULONG), _ULONG))


def _plain_args(args: list[_Arg], count: int, what: str) -> list[_Expr]:
    plain = [a for a in args if isinstance(a, _Expr)]
    if len(args) != count or len(plain) != count:
        raise PrintFmtError(f"{what} takes {count} arguments")
    return plain


def _print_hex(ns: _Namespace, args: list[_Arg], concatenate: bool) -> _Expr:
    buf, length = _plain_args(args, 2, "__print_hex")
    _need_int(length.type)
    if buf.type != _BUF:
        raise PrintFmtError("__print_hex of a non-buffer")
    sep = "" if concatenate else " "

    def print_hex(buf: _Values, length: int) -> str:
        data = bytes(buf)[: max(length, 0)]
        # trace_print_hex_seq() prints 16-byte chunks with "%*ph": no separator between chunks.
        return "".join(sep.join(f"{b:02x}" for b in data[i : i + 16]) for i in range(0, len(data), 16))

    return ns.call(print_hex, _STR, buf, length)


def _print_array(ns: _Namespace, args: list[_Arg]) -> _Expr:
    arr, count, size = _plain_args(args, 3, "__print_array")
    _need_int(count.type)
    _need_int(size.type)

    def print_array(values: _Values, n: int, el_size: int) -> str:
        if isinstance(values, (bytes, bytearray)):  # a dynamic array: raw little-endian bytes
            if el_size not in (1, 2, 4, 8):
                items = [f"BAD SIZE:{el_size} 0x{values[0]:x}"] + [f"0x{b:x}" for b in values[1 : n * el_size]]
                return "{" + ",".join(items) + "}"
            values = [int.from_bytes(values[i : i + el_size], "little") for i in range(0, n * el_size, el_size)]
        mask = (1 << (8 * el_size)) - 1
        return "{" + ",".join(f"0x{v & mask:x}" for v in list(values)[:n]) + "}"

    return ns.call(print_array, _STR, arr, count, size)


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


def _conversion(ns: _Namespace, m: re.Match[str], arg: _Expr, ptr_ext: str) -> tuple[str, str]:
    """(the conversion's text in the Python %-template, the source of its operand)."""
    flag_text, width_text, prec_text, qual, conv = m.groups()
    flags = 0
    for ch in flag_text:
        flags |= {"-": _LEFT, "+": _PLUS, " ": _SPACE, "#": _SPECIAL, "0": _ZEROPAD}[ch]
    width = int(width_text) if width_text else -1
    precision = int(prec_text or 0) if prec_text is not None else -1
    if conv == "s":
        if arg.type != _STR:
            raise PrintFmtError("%s of a non-string")
        if precision < 0 and width <= 0:
            return "%s", arg.code
        text = f"{arg.code}[:{precision}]" if precision >= 0 else arg.code
        return "%s", f"_widen({text}, {flags}, {width})"
    if conv == "p" and ptr_ext[:2] in ("I4", "i4", "I6", "i6", "IS", "iS"):
        if not isinstance(arg.type, _Array) and arg.type != _BUF:
            raise PrintFmtError(f"%p{ptr_ext} of a non-array")
        printer = ns.bind(_ip_conversion(ptr_ext, flags, width, precision))
        return "%s", f"{printer}({arg.code})"
    _need_int(arg.type)
    if conv == "c":
        char = f"chr({arg.code} & 255)"
        return "%s", (char if width <= 1 else f"_widen({char}, {flags}, {width})")
    if conv == "p":
        printer = ns.bind(_pointer_conversion(ptr_ext, flags, width, precision))
        return "%s", f"{printer}({_wrap(arg, _ULONG)}, s, h)"
    bits = _QUAL_BITS[qual]
    t = _Int(bits, conv in "di")
    value = _wrap(arg, t)
    if precision < 0 and flags in (0, _ZEROPAD, _LEFT) and conv != "o":
        # Where Python's %-formatting prints what number() does: no sign flags, no '#', no precision.
        spec = ("-" if flags & _LEFT else "0" if flags & _ZEROPAD else "") + (str(width) if width > 0 else "")
        return "%" + spec + {"x": "x", "X": "X"}.get(conv, "d"), value
    base = {"o": 8, "x": 16, "X": 16}.get(conv, 10)
    return "%s", f"_number({value}, {base}, {flags}, {width}, {precision}, {conv != 'X'}, {t.signed})"


def _ip4_string(addr: bytes, leading_zeros: bool) -> str:
    return ".".join(f"{b:03d}" if leading_zeros else str(b) for b in addr[:4])


def _ip6_compressed_string(addr: bytes) -> str:
    """lib/vsprintf.c ip6_compressed_string(): the longest run of zero words (two or more)
    as '::', words in hex without leading zeros, a v4-mapped or ISATAP address's last four
    bytes as IPv4."""
    words = [int.from_bytes(addr[i : i + 2], "big") for i in range(0, 16, 2)]
    v4mapped = words[:5] == [0, 0, 0, 0, 0] and words[5] == 0xFFFF
    isatap = (words[4] | 0x0200) == 0x0200 and words[5] == 0x5EFE
    use_ipv4 = v4mapped or isatap
    span = 6 if use_ipv4 else 8
    zero_len = [0] * span
    for i in range(span):
        for j in range(i, span):
            if words[j]:
                break
            zero_len[i] += 1
    longest, colonpos = 1, -1
    for i in range(span):
        if zero_len[i] > longest:
            longest, colonpos = zero_len[i], i
    out, needcolon, i = "", False, 0
    while i < span:
        if i == colonpos:
            out += "::" if (needcolon or i == 0) else ":"
            needcolon = False
            i += longest
            continue
        if needcolon:
            out += ":"
        out += f"{words[i]:x}"
        needcolon = True
        i += 1
    if use_ipv4:
        out += (":" if needcolon else "") + _ip4_string(addr[12:16], False)
    return out


def _ip6_string(addr: bytes, colons: bool) -> str:
    return (":" if colons else "").join(addr[i : i + 2].hex() for i in range(0, 16, 2))


_AF_INET, _AF_INET6 = 2, 10


def _ip_conversion(ext: str, flags: int, width: int, precision: int) -> Callable[[_Values], str]:
    """%pI4, %pi4, %pI6, %pi6, %pI6c of an address array field; %pIS and %piS of a struct
    sockaddr_in or sockaddr_in6 in one (lib/vsprintf.c ip4_addr_string_sa/ip6_addr_string_sa:
    by its family; 'p' adds the port, 'c' compresses a v6 address, 'f' and 's' add the flow
    label and scope; a v6 address in brackets when anything follows it)."""
    kind = ext[:2]
    options = ext[2:]
    if kind in ("IS", "iS"):
        return _sockaddr_conversion(kind[0], options, flags, width, precision)
    compressed = kind == "I6" and options[:1] == "c"

    def ip(values: _Values) -> str:
        addr = bytes(values)
        if kind in ("I4", "i4"):
            text = _ip4_string(addr, kind == "i4")
        elif compressed:
            text = _ip6_compressed_string(addr)
        else:
            text = _ip6_string(addr, kind == "I6")
        return _widen(text, flags, width)

    return ip


def _sockaddr_conversion(i: str, options: str, flags: int, width: int, precision: int) -> Callable[[_Values], str]:
    have_p, have_f, have_s, have_c = ("p" in options, "f" in options, "s" in options, "c" in options)

    def number(value: int) -> str:  # number(p, pend, value, spec): the conversion's own spec
        return _number(value, 10, flags, width, precision, True, False)

    def sockaddr(values: _Values) -> str:
        sa = bytes(values)
        family = int.from_bytes(sa[0:2], "little")
        port = int.from_bytes(sa[2:4], "big")
        if family == _AF_INET:
            text = _ip4_string(sa[4:8], i == "i") + (":" + number(port) if have_p else "")
        elif family == _AF_INET6:
            addr = sa[8:24]
            text = _ip6_compressed_string(addr) if i == "I" and have_c else _ip6_string(addr, i == "I")
            if have_p or have_s or have_f:
                text = "[" + text + "]"
            if have_p:
                text += ":" + number(port)
            if have_f:
                text += "/" + number(int.from_bytes(sa[4:8], "big") & 0x0FFFFFFF)
            if have_s:
                text += "%" + number(int.from_bytes(sa[24:28], "little"))
        else:
            text = "(einval)"
        return _widen(text, flags, width)

    return sockaddr


# addr -> text, given (symbolize, hash_pointer)
_PointerPrinter = Callable[[int, "Symbolizer | None", "PointerHash | None"], str]
# record -> text, given (symbolize, hash_pointer): the generated function
_Printer = Callable[[Record, "Symbolizer | None", "PointerHash | None"], str]


def _pointer_conversion(ext: str, flags: int, width: int, precision: int) -> _PointerPrinter:
    kind = ext[:1]
    if kind == "x":
        return lambda addr, symbolize, hash_pointer: _pointer_string(addr, flags, width, precision)
    if kind in ("", "K"):  # %pK with kptr_restrict 0 hashes like %p

        def hashed(addr: int, symbolize: Symbolizer | None, hash_pointer: PointerHash | None) -> str:
            if addr == 0 or addr >= (1 << 64) - 4095:  # NULL and ERR_PTR values print as they are
                return _pointer_string(addr, flags, width, precision)
            value = hash_pointer(addr) if hash_pointer is not None else None
            if value is None:
                return _widen("(____ptrval____)"[: precision if precision >= 0 else None], flags, 16)
            return _pointer_string(value, flags, width, precision)

        return hashed
    if kind in ("S", "s", "B") and ext[1:2] not in ("b", "R"):
        with_offset = kind != "s"
        backtrace = kind == "B"

        def symbol(addr: int, symbolize: Symbolizer | None, hash_pointer: PointerHash | None) -> str:
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


def _kernel_string(strings: Mapping[int, str]) -> Callable[[int], str]:
    """The kernel's string at an address (string() of vsprintf): "(null)" for NULL, the
    known constant strings, "(efault)" for any other address, which the host cannot read."""
    def text(addr: int) -> str:
        if addr == 0:
            return "(null)"
        return strings.get(addr, "(efault)")
    return text


class PrintFmt:
    """A compiled print fmt: one generated function per event."""

    __slots__ = ("source", "code", "function")

    def __init__(self, source: str, code: str, function: _Printer):
        self.source = source  # the print fmt
        self.code = code  # the Python source generated from it
        # (record, symbolize, hash_pointer) -> text: format() without its defaults, for hot loops
        self.function = function

    def format(
        self,
        record: Record,
        symbolize: Symbolizer | None = None,
        hash_pointer: PointerHash | None = None,
    ) -> str:
        """The text the event's print fmt gives for this record."""
        return self.function(record, symbolize, hash_pointer)


def compile_print_fmt(print_fmt: str, fields: Sequence[FieldLike],
                      names: Mapping[str, int] | None = None,
                      strings: Mapping[int, str] | None = None,
                      variables: Mapping[str, Callable[[], int]] | None = None) -> PrintFmt:
    """Compile what follows ``print fmt: `` in a format file, for an event with these fields.
    names: the enum constants the format names and the kernel's compiled printer knows (those
    no eval map replaced in the format: hrtimer modes, say); strings: the kernel's constant
    strings by address, for a `%s` of a pointer field (rcu_utilization's); variables: the
    kernel's unsigned long variables a format reads when it prints (writeback's `jiffies`),
    each by a function giving its value now."""
    try:
        return _compile(print_fmt, fields, names or {}, strings or {}, variables or {})
    except RecursionError:  # the parser recurses per nesting level
        raise PrintFmtError("expression nests too deeply") from None


def _compile(print_fmt: str, fields: Sequence[FieldLike], names: Mapping[str, int],
             strings: Mapping[int, str], variables: Mapping[str, Callable[[], int]]) -> PrintFmt:
    tokens = _tokenize(print_fmt)
    if tokens[0][0] != "str":
        raise PrintFmtError("a print fmt starts with a string literal")
    ns = _Namespace()
    parser = _Parser(tokens, {f.name: f for f in fields}, ns, names, variables)
    fmt = ""
    while parser.peek()[0] == "str":
        fmt += _unescape(parser.take()[1][1:-1])
    args: list[_Expr] = []
    while parser.accept(","):
        args.append(parser.expression())
    if parser.peek()[0] != "end":
        raise PrintFmtError(f"unexpected {parser.peek()[1]!r}")

    template: list[str] = []
    operands: list[str] = []
    pos = 0
    used = 0
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
            ext = re.match(r"[A-Za-z0-9]*", fmt[pos:])
            assert ext is not None  # (an empty match at worst)
            ptr_ext = ext.group()
            pos += len(ptr_ext)
        if used >= len(args):
            raise PrintFmtError("more conversions than arguments")
        arg = args[used]
        used += 1
        if m.group(5) == "s" and isinstance(arg.type, _Ptr):  # a char * the kernel dereferences
            arg = _Expr(f"{ns.bind(_kernel_string(strings))}({_wrap(arg, _ULONG)})", _STR)
        spec, operand = _conversion(ns, m, arg, ptr_ext)
        if arg.is_const and m.group(5) != "p":  # %p of a constant still needs the hash key
            template.append((spec % eval(operand, ns.names)).replace("%", "%%"))  # noqa: S307
        else:
            template.append(spec)
            operands.append(operand)
    if used != len(args):
        raise PrintFmtError("more arguments than conversions")
    text = "".join(template)
    if operands:
        body = f"{ns.bind(text)} % ({''.join(o + ', ' for o in operands)})"
    else:
        body = repr(text % ())
    code = f"def _print(r, s, h):\n    return {body}\n"
    try:
        exec(compile(code, "<print fmt>", "exec"), ns.names)  # noqa: S102 - generated source only
    except SyntaxError as error:  # Python's compiler caps how deep parentheses nest
        raise PrintFmtError(f"expression nests too deeply ({error})") from None
    return PrintFmt(print_fmt, code, cast(_Printer, ns.names["_print"]))
