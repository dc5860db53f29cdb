"""The event filter language of Linux 6.1 (kernel/trace/trace_events_filter.c).

A filter is written to ``events/<sys>/<event>/filter``: predicates ``FIELD OP VALUE`` joined by
``&&`` and ``||``, negated with ``!``, grouped with parentheses. ``0`` clears the filter.

What the kernel does, and this module reproduces:

* The text is kept as written, cut at a NUL, trailing whitespace removed (leading kept); the
  ``filter`` file reads it back verbatim.  A bad filter still replaces the old one: the file then
  reads the text, a caret line and ``parse_error: MESSAGE`` (or ``Error: (0)`` for failures the
  parser has no message for), the event runs unfiltered, ``error_log`` gets an
  ``event filter parse error`` entry, and the write fails with the errno the kernel's parser
  returned -- EINVAL mostly, but EPERM (-1 leaking out of the parser: a term that does not
  start with a field name, an extra term, too few '('), ENOENT (too many '(') and ESRCH
  (missing quote) as well.
* Fields: the event's own, then the generic ``CPU``/``cpu``/``common_cpu`` (the CPU the event
  fires on) and ``COMM``/``comm`` (``current->comm``), then the common fields.  An event field
  of the same name wins (``comm`` of sched_wakeup is its own field).
* Numbers (decimal, 0x hex, 0 octal, a leading ``-`` for signed fields) are parsed as 64-bit
  and compared after casting to the field's size and signedness, so ``prev_pid == 4294967296``
  matches pid 0.  Fields whose size is not 1, 2, 4 or 8 (arrays) parse but never match; ``&`` on
  ``CPU`` never matches.
* Strings: char arrays, ``__data_loc char[]``, ``char *`` (``.ustring`` reads user memory) and
  COMM take ``==``, ``!=`` (literal compare) and ``~`` (glob; a leading ``!`` negates).  A
  ``*x`` pattern on a char array compares the END OF THE ARRAY, not of the string, so it only
  matches strings that fill the array -- the kernel's regex_match_end() does that.

Subsystem filters (``events/<sys>/filter``): the text is compiled against every event of the
system.  Events where it compiles get it; every event where it does not gets an error filter
(its ``filter`` file shows the text, a caret at column 0 and "Couldn't find or set field in one
of a subsystem's events", the event runs unfiltered, one error_log entry each).  The write
itself succeeds as long as the system has events, and the subsystem's own ``filter`` file keeps
reading the default "### global filter ###" message.  ``0`` clears the filter of every event
of the system, including filters set on the events directly.

Not modelled: the function-tracer ``ip`` filter used by perf (tracefs has no filter file for
ftrace/function) and ``__rel_loc`` fields (no modelled event has one).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..lib.kstrtox import kstrtoll, kstrtoull, or_none
from .fields import FieldLike
from .glob import glob_match

__all__ = [
    "NO_FILTER_TEXT",
    "SUBSYSTEM_FILTER_TEXT",
    "ERROR_LOG_LOCATION",
    "FILTER_DYN_STRING",
    "FILTER_OTHER",
    "FILTER_PTR_STRING",
    "FILTER_STATIC_STRING",
    "filter_assign_type",
    "FieldLike",
    "EventFilter",
    "FilterParseError",
    "PredSpec",
    "SubsystemFilterResult",
    "parse_event_filter",
    "parse_subsystem_filter",
]

# What an event's filter file reads while no filter is set.
NO_FILTER_TEXT = b"none\n"
# What events/<sys>/filter reads (DEFAULT_SYS_FILTER_MESSAGE, plus the newline of the read).
SUBSYSTEM_FILTER_TEXT = (
    b"### global filter ###\n"
    b"# Use this to set filters for multiple events.\n"
    b"# Only events with the given fields will be affected.\n"
    b"# If no events are modified, an error message will be displayed here\n"
)
ERROR_LOG_LOCATION = "event filter parse error"

# MAX_FILTER_STR_VAL: a string operand must be shorter than this.
_MAX_STR_VAL = 256
# sizeof(num_buf) in parse_pred(): a number operand must be shorter than this.
_NUM_BUF = 24
# TASK_COMM_LEN: COMM compares current->comm as a char[16].
_TASK_COMM_LEN = 16
# USTRING_BUF_SIZE: a char * operand is copied into a buffer this big before comparing.
_STR_BUF = 1024

_ERR_INVALID_OP = "Invalid operator"
_ERR_TOO_MANY_OPEN = "Too many '('"
_ERR_TOO_MANY_CLOSE = "Too few '('"
_ERR_MISSING_QUOTE = "Missing matching quote"
_ERR_OPERAND_TOO_LONG = "Operand too long"
_ERR_EXPECT_STRING = "Expecting string field"
_ERR_EXPECT_DIGIT = "Expecting numeric field"
_ERR_ILLEGAL_FIELD_OP = "Illegal operation for field type"
_ERR_FIELD_NOT_FOUND = "Field not found"
_ERR_ILLEGAL_INTVAL = "Illegal integer value"
_ERR_BAD_SUBSYS_FILTER = "Couldn't find or set field in one of a subsystem's events"
_ERR_TOO_MANY_PREDS = "Too many terms in predicate expression"
_ERR_INVALID_FILTER = "Meaningless filter expression"
_ERR_INVALID_VALUE = "Invalid value (did you forget quotes)?"
_ERR_NO_FILTER = "No filter found"
# FILT_ERR_ERRNO: what error_log says when the parser failed without setting a message.
_ERR_ERRNO = "Error"

# The kernel's ctype (lib/ctype.c): Latin-1 letters are alphanumeric, NBSP is a space.
_SPACE = frozenset(b" \t\n\v\f\r\xa0")
_ALNUM = frozenset(
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    + bytes(c for c in range(0xC0, 0x100) if c not in (0xD7, 0xF7))
)
_DIGIT = frozenset(b"0123456789")

# Operators in the kernel's matching order ('<=' before '<', '>=' before '>').
_OPS = (b"~", b"!=", b"==", b"<=", b"<", b">=", b">", b"&")
_GLOB, _NE, _EQ, _LE, _LT, _GE, _GT, _BAND = _OPS




# Field kinds (filter_assign_type() plus the generic fields).
_OTHER, _STATIC_STRING, _DYN_STRING, _PTR_STRING, _CPU, _COMM = range(6)
FILTER_OTHER, FILTER_STATIC_STRING, FILTER_DYN_STRING, FILTER_PTR_STRING = _OTHER, _STATIC_STRING, _DYN_STRING, _PTR_STRING


@dataclass(frozen=True)
class _Field:
    name: str
    kind: int
    size: int
    is_signed: bool
    offset: int = 0


def filter_assign_type(type_: str) -> int:
    """filter_assign_type(): FILTER_DYN_STRING, FILTER_STATIC_STRING, FILTER_PTR_STRING or FILTER_OTHER."""
    if "__data_loc" in type_ and "char" in type_:
        return _DYN_STRING
    if "[" in type_ and "char" in type_:
        return _STATIC_STRING
    if type_ in ("char *", "const char *"):
        return _PTR_STRING
    return _OTHER


_GENERIC_FIELDS = {
    name: _Field(name, kind, size, True)
    for name, kind, size in (
        ("CPU", _CPU, 4),
        ("cpu", _CPU, 4),
        ("common_cpu", _CPU, 4),
        ("COMM", _COMM, 0),
        ("comm", _COMM, 0),
    )
}
_COMMON_FIELDS = {
    f.name: f
    for f in (
        _Field("common_type", _OTHER, 2, False, 0),
        _Field("common_flags", _OTHER, 1, False, 2),
        _Field("common_preempt_count", _OTHER, 1, False, 3),
        _Field("common_pid", _OTHER, 4, True, 4),
    )
}


def _lookup_table(fields: Sequence[FieldLike]) -> dict[str, _Field]:
    """trace_find_event_field(): event fields first, then generic, then common fields."""
    table = dict(_COMMON_FIELDS)
    table.update(_GENERIC_FIELDS)
    for f in fields:
        table[f.name] = _Field(f.name, filter_assign_type(f.type), f.size, bool(f.is_signed), f.offset)
    return table


# ---------------------------------------------------------------------------------------------
# Errors


class FilterParseError(Exception):
    """A filter the kernel refuses.  The event's filter is replaced by this error state."""

    def __init__(self, err: int, text: bytes, message: str | None, pos: int):
        super().__init__(message or _ERR_ERRNO)
        self.errno = err
        self.text = text  # the stored command (what error_log shows after "Command: ")
        self.message = message  # None: the parser failed without a message ("Error: (0)")
        self.pos = pos  # the kernel's error position (caret column in error_log)

    def filter_file_text(self) -> bytes:
        """What the event's ``filter`` file reads after this failure."""
        if self.message is None:
            return self.text + b"\nError: (0)\n\n"
        col = min(self.pos, len(self.text))
        return self.text + b"\n" + b" " * col + b"^\nparse_error: " + self.message.encode() + b"\n\n"

    @property
    def error_log_message(self) -> str:
        """The error text error_log shows after ``event filter parse error: error: ``."""
        return self.message if self.message is not None else _ERR_ERRNO

    @property
    def error_log_pos(self) -> int:
        """The caret position error_log shows under ``Command:`` (0 without a message)."""
        return self.pos if self.message is not None else 0


class _Fail(Exception):
    """Internal: parsing stopped; errno, message (None: no parse_error() call) and position."""

    def __init__(self, err: int, message: str | None = None, pos: int = 0):
        super().__init__(message)
        self.errno = err
        self.message = message
        self.pos = pos


# ---------------------------------------------------------------------------------------------
# String matching, with the kernel's C semantics on a buffer of `length` bytes (0: NUL-ended).


def _cstr(buf: bytes) -> bytes:
    return buf.split(b"\0", 1)[0]


def _match_full(buf: bytes, pat: bytes, length: int) -> bool:
    if not length:
        return _cstr(buf) == pat
    if length < len(pat):
        return False
    return _cstr(buf[:length]) == pat


def _match_front(buf: bytes, pat: bytes, length: int) -> bool:
    if length and length < len(pat):
        return False
    return buf[: len(pat)] == pat


def _match_middle(buf: bytes, pat: bytes, length: int) -> bool:
    if not length:
        return pat in _cstr(buf)
    return pat in buf[:length].ljust(length, b"\0")


def _match_end(buf: bytes, pat: bytes, length: int) -> bool:
    # The kernel looks at the end of the buffer, not of the string (see the module docstring).
    end = length - 1
    if end < len(pat):
        return False
    return buf[:end].ljust(end, b"\0")[end - len(pat) :] == pat


# a string predicate's matcher: (the value, the pattern, the value's room or 0) -> match
_Match = Callable[[bytes, bytes, int], bool]


def _build_regex(op: bytes, pattern: bytes) -> tuple[_Match, bytes, bool]:
    """filter_build_regex(): (match function, pattern, negate) for a string operand."""
    if op != _GLOB:
        return _match_full, pattern, False
    negate = pattern[:1] == b"!"
    if negate:
        pattern = pattern[1:]
    if pattern[:1] and pattern[0] in _DIGIT:
        return _match_full, pattern, negate
    kind = _match_full
    for i, ch in enumerate(pattern):
        if ch == 0x2A:  # '*'
            if i == 0:
                kind = _match_end
            elif i == len(pattern) - 1:
                kind = _match_middle if kind is _match_end else _match_front
                pattern = pattern[:i]
                break
            else:
                return _glob_match_fn, pattern, negate
        elif ch in b"[?\\":
            return _glob_match_fn, pattern, negate
    if pattern[:1] == b"*":
        pattern = pattern[1:]
    return kind, pattern, negate


def _glob_match_fn(buf: bytes, pat: bytes, length: int) -> bool:
    return glob_match(pat, buf, length)


# ---------------------------------------------------------------------------------------------
# Predicates: callables (record, cpu, comm, read_string) -> bool


# A decoded record (records.RecordDecoder): each value as its field's kind makes it (an int
# for a number, bytes for a string), which the predicate compiled for that field relies on.
Record = Mapping[str, Any]
ReadString = Callable[[int, bool], "bytes | None"]
Pred = Callable[[Record, int, bytes, "ReadString | None"], bool]


def _as_bytes(value: bytes | str) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    return bytes(value)


@dataclass(frozen=True)
class PredSpec:
    """What a predicate tests, for running it elsewhere (the guest's trigger filters).
    kind: "num", "cpu", "comm", "str" (char[size]; 0: NUL-ended), "dyn_str", "ptr_str"
    (ustring: user memory), "never"; op: "eq" "ne" "lt" "le" "gt" "ge" "band", or for strings
    "full" "front" "middle" "end" "glob"; value: the operand cast to the field's size and
    signedness (what the comparison uses); string: the pattern; negate: strings' result
    inverted."""

    kind: str
    op: str
    offset: int = 0
    size: int = 0
    is_signed: bool = False
    value: int = 0
    string: bytes = b""
    negate: bool = False
    ustring: bool = False


_OP_NAMES = {_EQ: "eq", _NE: "ne", _LT: "lt", _LE: "le", _GT: "gt", _GE: "ge", _BAND: "band"}


def _with_spec(pred: Pred, spec: PredSpec) -> Pred:
    pred.spec = spec  # type: ignore[attr-defined]
    return pred


def _numeric_pred(field: _Field, op: bytes, val: int) -> Pred:
    return _with_spec(_numeric_test(field, op, val), _numeric_spec(field, op, val))


def _numeric_spec(field: _Field, op: bytes, val: int) -> PredSpec:
    if field.kind == _CPU:
        if op == _BAND:
            return PredSpec("never", "eq")
        size, signed, kind = 4, True, "cpu"
    else:
        size, signed, kind = field.size, field.is_signed, "num"
        if size not in (1, 2, 4, 8):
            return PredSpec("never", "eq")
    mask = (1 << (8 * size)) - 1
    value = val & mask
    if signed and op not in (_EQ, _NE, _BAND):
        value = _signed(val, size) & 0xFFFFFFFFFFFFFFFF
    return PredSpec(kind, _OP_NAMES[op], field.offset, size, signed, value)


def _numeric_test(field: _Field, op: bytes, val: int) -> Pred:
    name = field.name
    if field.kind == _CPU:
        cmp = _signed(val, 4)
        test = {
            _EQ: lambda c: c == cmp,
            _NE: lambda c: c != cmp,
            _LT: lambda c: c < cmp,
            _LE: lambda c: c <= cmp,
            _GT: lambda c: c > cmp,
            _GE: lambda c: c >= cmp,
        }.get(op)
        if test is None:  # '&' on CPU: filter_pred_cpu() returns 0
            return lambda rec, cpu, comm, rs: False
        return lambda rec, cpu, comm, rs: test(cpu)
    size = field.size
    if size not in (1, 2, 4, 8):  # select_comparison_fn() finds no function: never matches
        return lambda rec, cpu, comm, rs: False
    mask = (1 << (8 * size)) - 1
    if op in (_EQ, _NE):
        want = val & mask
        if op == _EQ:
            return lambda rec, cpu, comm, rs: (rec[name] & mask) == want
        return lambda rec, cpu, comm, rs: (rec[name] & mask) != want
    if field.is_signed:
        sign = 1 << (8 * size - 1)
        conv: Callable[[int], int] = lambda v: ((v & mask) ^ sign) - sign  # noqa: E731
    else:
        conv = lambda v: v & mask  # noqa: E731
    if op == _BAND:
        bits = val & mask
        return lambda rec, cpu, comm, rs: (rec[name] & bits) != 0
    ref = conv(val)
    if op == _LT:
        return lambda rec, cpu, comm, rs: conv(rec[name]) < ref
    if op == _LE:
        return lambda rec, cpu, comm, rs: conv(rec[name]) <= ref
    if op == _GT:
        return lambda rec, cpu, comm, rs: conv(rec[name]) > ref
    return lambda rec, cpu, comm, rs: conv(rec[name]) >= ref


def _signed(val: int, size: int) -> int:
    bits = 8 * size
    val &= (1 << bits) - 1
    return val - (1 << bits) if val >> (bits - 1) else val


_MATCH_NAMES: dict[_Match, str] = {_match_full: "full", _match_front: "front", _match_middle: "middle", _match_end: "end",
                _glob_match_fn: "glob"}
_STRING_KINDS = {_COMM: "comm", _STATIC_STRING: "str", _DYN_STRING: "dyn_str", _PTR_STRING: "ptr_str"}


def _string_pred(field: _Field, op: bytes, pattern: bytes, ustring: bool) -> Pred:
    match, pat, negate = _build_regex(op, pattern)
    negate ^= op == _NE
    spec = PredSpec(_STRING_KINDS[field.kind], _MATCH_NAMES[match], field.offset,
                    _TASK_COMM_LEN if field.kind == _COMM else field.size, False, 0, pat, negate, ustring)
    return _with_spec(_string_test(field, match, pat, negate, ustring), spec)


def _string_test(field: _Field, match: _Match, pat: bytes, negate: bool, ustring: bool) -> Pred:
    name = field.name
    if field.kind == _COMM:
        return lambda rec, cpu, comm, rs: match(comm[:_TASK_COMM_LEN], pat, _TASK_COMM_LEN) != negate
    if field.kind == _STATIC_STRING:
        size = field.size
        if not size:  # char buf[]: the rest of the record, NUL-terminated
            return lambda rec, cpu, comm, rs: match(_as_bytes(rec[name]), pat, 0) != negate
        return lambda rec, cpu, comm, rs: match(_as_bytes(rec[name])[:size], pat, size) != negate
    if field.kind == _DYN_STRING:

        def dyn(rec: Record, cpu: int, comm: bytes, rs: ReadString | None) -> bool:
            value = _cstr(_as_bytes(rec[name])) + b"\0"  # the record's copy is NUL-terminated
            return match(value, pat, len(value)) != negate

        return dyn

    def pointer(rec: Record, cpu: int, comm: bytes, rs: ReadString | None) -> bool:
        # filter_pred_pchar(): an unreadable pointer is no match, whatever the operator.
        data = rs(rec[name], ustring) if rs is not None else None
        if data is None:
            return False
        value = _cstr(data[: _STR_BUF - 1]) + b"\0"
        return match(value, pat, len(value)) != negate

    return pointer


# ---------------------------------------------------------------------------------------------
# The parser: calc_stack(), predicate_parse() and parse_pred() of the kernel.


def _calc_stack(s: bytes) -> None:
    """Quote and parenthesis balance, checked before parsing, with the kernel's errors."""
    opened = 1
    last_quote = 0
    quote = 0
    for i, ch in enumerate(s):
        if ch in _SPACE:
            continue
        if quote:
            if ch == quote:
                quote = 0
            continue
        if ch in b"'\"":
            quote = ch
            last_quote = i
        elif ch == 0x28:  # '('
            opened += 1
        elif ch == 0x29:  # ')'
            if opened == 1:
                raise _Fail(errno.EPERM, _ERR_TOO_MANY_CLOSE, i)
            opened -= 1
    if quote:
        raise _Fail(errno.ESRCH, _ERR_MISSING_QUOTE, last_quote)
    if opened != 1:
        # Find the '(' left open, scanning backwards (index 0 is never looked at).
        level = opened
        for j in range(len(s) - 1, 0, -1):
            ch = s[j]
            if quote:
                if ch == quote:
                    quote = 0
                continue
            if ch == 0x28:
                if level == opened:
                    raise _Fail(errno.ENOENT, _ERR_TOO_MANY_OPEN, j)
                level -= 1
            elif ch == 0x29:
                level += 1
            elif ch in b"'\"":
                quote = ch
        raise _Fail(errno.ENOENT, _ERR_TOO_MANY_OPEN, 0)


def _at(s: bytes, i: int) -> int:
    return s[i] if i < len(s) else 0


def _parse_pred(s: bytes, start: int, pos: int, fields: dict[str, _Field]) -> tuple[Pred, int]:
    """One FIELD OP VALUE term at s[start:]; returns (predicate, length consumed).

    `pos` is the kernel's base for error positions: one past the term's first character.
    """
    i = start
    while _at(s, i) in _SPACE:
        i += 1
    name_start = i
    while _at(s, i) in _ALNUM or _at(s, i) == 0x5F:
        i += 1
    if i == name_start:
        raise _Fail(errno.EPERM)
    field = fields.get(s[name_start:i].decode("latin-1"))
    if field is None:
        raise _Fail(errno.EINVAL, _ERR_FIELD_NOT_FOUND, pos + i - start)
    ustring = s.startswith(b".ustring", i)
    if ustring:
        i += len(b".ustring")
    while _at(s, i) in _SPACE:
        i += 1
    op = next((o for o in _OPS if s.startswith(o, i)), None)
    if op is None:
        raise _Fail(errno.EINVAL, _ERR_INVALID_OP, pos + i - start)
    i += len(op)
    while _at(s, i) in _SPACE:
        i += 1
    value_start = i
    ch = _at(s, i)
    is_string_field = field.kind in (_STATIC_STRING, _DYN_STRING, _PTR_STRING, _COMM)
    if ch in (0x22, 0x27):  # a quoted string
        if op not in (_NE, _GLOB, _EQ):
            raise _Fail(errno.EINVAL, _ERR_ILLEGAL_FIELD_OP, pos + i - start)
        if not is_string_field:
            raise _Fail(errno.EINVAL, _ERR_EXPECT_DIGIT, pos + i - start)
        end = s.find(bytes([ch]), i + 1)
        if end < 0:
            raise _Fail(errno.EINVAL, _ERR_MISSING_QUOTE, pos + len(s) - start)
        if end - (value_start + 1) >= _MAX_STR_VAL:
            raise _Fail(errno.EINVAL, _ERR_OPERAND_TOO_LONG, pos + end - start)
        pred = _string_pred(field, op, s[value_start + 1 : end], ustring)
        return pred, end + 1 - start
    if ch in _DIGIT or ch == 0x2D:  # a number
        if is_string_field:
            raise _Fail(errno.EINVAL, _ERR_EXPECT_STRING, pos + i - start)
        if op == _GLOB:
            raise _Fail(errno.EINVAL, _ERR_ILLEGAL_FIELD_OP, pos + i - start)
        if ch == 0x2D:
            i += 1
        while _at(s, i) in _ALNUM:
            i += 1
        if i - value_start >= _NUM_BUF:
            raise _Fail(errno.EINVAL, _ERR_OPERAND_TOO_LONG, pos + i - start)
        text = s[value_start:i]
        val = or_none(kstrtoll if field.is_signed else kstrtoull, text.decode("latin-1"))
        if val is None:
            raise _Fail(errno.EINVAL, _ERR_ILLEGAL_INTVAL, pos + value_start - start)
        return _numeric_pred(field, op, val), i - start
    raise _Fail(errno.EINVAL, _ERR_INVALID_VALUE, pos + i - start)


_INVERT, _PROCESS_AND, _PROCESS_OR = 1, 2, 4


@dataclass(frozen=True)
class _Entry:
    pred: Pred
    when_to_branch: bool
    target: int


def _predicate_parse(s: bytes, fields: dict[str, _Field]) -> tuple[_Entry, ...]:
    """The kernel's first pass builds a branch program; passes two and three optimise it."""
    preds: list[Pred] = []
    inverts: list[int] = []
    targets: list[int] = []
    branch: list[bool] = []

    def update(n: int, invert: int) -> None:
        t = targets[n]
        targets[n], targets[t], branch[t] = targets[t], n, bool(invert)

    stack = [0]
    invert = 0
    ptr = 0
    n = len(s)
    done = False
    while ptr < n and not done:
        nxt = ptr
        ptr += 1
        ch = s[nxt]
        if ch in _SPACE:
            continue
        if ch == 0x28:  # '('
            stack.append(invert)
            continue
        if ch == 0x21 and _at(s, nxt + 1) not in (0x3D, 0x7E):  # '!', but not '!=' or '!~'
            invert ^= 1
            continue
        inverts.append(invert)
        targets.append(len(preds) - 1)
        branch.append(False)
        pred, length = _parse_pred(s, nxt, ptr, fields)
        preds.append(pred)
        ptr = nxt + length
        while True:
            nxt = ptr
            ptr += 1
            ch = _at(s, nxt)
            if ch in _SPACE and ch:
                continue
            if ch in (0x26, 0x7C):  # '&&' or '||' only
                if _at(s, nxt + 1) != ch:
                    raise _Fail(errno.EPERM, _ERR_TOO_MANY_PREDS, nxt)
                ptr += 1
            elif ch not in (0x29, 0):
                raise _Fail(errno.EPERM, _ERR_TOO_MANY_PREDS, nxt)
            invert = stack[-1] & _INVERT
            last = len(preds) - 1
            if stack[-1] & _PROCESS_AND:
                update(last, invert)
                stack[-1] &= ~_PROCESS_AND
            if ch == 0x26:
                stack[-1] |= _PROCESS_AND
                break
            if stack[-1] & _PROCESS_OR:
                update(last, not invert)
                stack[-1] &= ~_PROCESS_OR
            if ch == 0x7C:
                stack[-1] |= _PROCESS_OR
                break
            if ch == 0:
                done = True
                break
            if len(stack) == 1:
                raise _Fail(errno.EPERM, _ERR_TOO_MANY_CLOSE, ptr)
            stack.pop()
    if not done:
        if preds:  # only the inner loop can complete a non-empty expression
            raise _Fail(errno.EINVAL, _ERR_INVALID_FILTER, ptr)
        raise _Fail(errno.EINVAL, _ERR_NO_FILTER, ptr)

    count = len(preds)
    # Labels: count is TRUE, count + 1 is FALSE (continuing after label i means entry i + 1).
    targets.append(1)
    branch.append(False)
    targets.append(0)
    branch.append(False)
    targets[count - 1] = count
    branch[count - 1] = False
    for i in range(count - 2, -1, -1):  # second pass: jump through same-condition labels
        t = targets[i]
        if branch[i] == branch[t]:
            targets[i] = targets[t]
    for i in range(count):
        if targets[i] <= i:  # the kernel's WARN_ON: a program must always move forward
            raise _Fail(errno.EINVAL)
    return tuple(  # third pass: fold the inversions into the branch conditions
        _Entry(preds[i], bool(inverts[i]) ^ branch[i], targets[i]) for i in range(count)
    )


# ---------------------------------------------------------------------------------------------
# Public API


class EventFilter:
    """A compiled event filter."""

    __slots__ = ("text", "_prog")

    def __init__(self, text: bytes, prog: tuple[_Entry, ...]):
        self.text = text
        self._prog = prog

    def filter_file_text(self) -> bytes:
        """What the event's ``filter`` file reads while this filter is set."""
        return self.text + b"\n"

    def program(self) -> tuple[tuple[PredSpec, bool, int], ...]:
        """The compiled program, (what each predicate tests, the result it branches on, its
        target), to run as matches() does: a branch to target t goes on at t + 1; the
        program matches when it falls through past its last entry."""
        return tuple((entry.pred.spec, entry.when_to_branch, entry.target) for entry in self._prog)  # type: ignore[attr-defined]

    def matches(
        self,
        record: Record,
        cpu: int = 0,
        comm: bytes = b"",
        read_string: ReadString | None = None,
    ) -> bool:
        """filter_match_preds() on a decoded record.

        record: field name -> value for the event's fields and the common_* fields: ints for
        numeric fields, bytes (or str) for char arrays (the raw array, or the string; it is
        NUL-padded to the array size) and __data_loc strings, the pointer value for char *.
        cpu: the CPU the event is recorded on (CPU/cpu); comm: current->comm (COMM/comm).
        read_string(addr, user): the NUL-terminated bytes at a char * field's address (user
        memory when the filter said .ustring), or None when it cannot be read.
        """
        prog = self._prog
        i = 0
        count = len(prog)
        while i < count:
            entry = prog[i]
            if entry.pred(record, cpu, comm, read_string) == entry.when_to_branch:
                i = entry.target
            i += 1
        return i == count  # fell through to the TRUE label


def _stored_text(buf: bytes | str) -> bytes:
    """The filter string as the kernel keeps it: cut at a NUL, trailing whitespace stripped."""
    if isinstance(buf, str):
        buf = buf.encode("utf-8", "surrogateescape")
    text = buf.split(b"\0", 1)[0]
    end = len(text)
    while end and text[end - 1] in _SPACE:
        end -= 1
    return text[:end]


def _is_clear(text: bytes) -> bool:
    start = 0
    while start < len(text) and text[start] in _SPACE:
        start += 1
    return text[start:] == b"0"


def _compile(text: bytes, table: dict[str, _Field]) -> EventFilter:
    try:
        _calc_stack(text)
        if not any(ch not in _SPACE and ch not in b"()" for ch in text):
            raise _Fail(errno.EINVAL)  # no predicate at all: -EINVAL, no message
        return EventFilter(text, _predicate_parse(text, table))
    except _Fail as fail:
        raise FilterParseError(fail.errno, text, fail.message, fail.pos) from None


def parse_event_filter(buf: bytes | str, fields: Sequence[FieldLike]) -> EventFilter | None:
    """Compile what was written to an event's ``filter`` file.

    fields: the event's own fields (common_* may be included or not).  Returns None for ``0``
    (clear the filter); raises FilterParseError for a bad filter.  The caller rejects writes of
    PAGE_SIZE bytes or more with EINVAL before calling this, as event_filter_write() does.
    """
    text = _stored_text(buf)
    if _is_clear(text):
        return None
    return _compile(text, _lookup_table(fields))


@dataclass(frozen=True)
class SubsystemFilterResult:
    """What writing a subsystem ``filter`` file does to each event of the system.

    filters: event name -> the event's new filter: an EventFilter, a FilterParseError (the
    event's filter file shows its filter_file_text(), the event runs unfiltered), or None
    (filter cleared).  errors: the error_log entries, in event order.
    """

    filters: dict[str, EventFilter | FilterParseError | None]
    errors: tuple[FilterParseError, ...]


def parse_subsystem_filter(buf: bytes | str, events: Mapping[str, Sequence[FieldLike]]) -> SubsystemFilterResult:
    """Compile what was written to ``events/<sys>/filter`` against each of the system's events.

    events: event name -> its own fields, in the order of the system's events.  Raises
    OSError(ENODEV) when the system has no events.
    """
    if not events:
        raise OSError(errno.ENODEV, "subsystem has no events")
    text = _stored_text(buf)
    if _is_clear(text):
        return SubsystemFilterResult({name: None for name in events}, ())
    filters: dict[str, EventFilter | FilterParseError | None] = {}
    errors: list[FilterParseError] = []
    for name, fields in events.items():
        try:
            filters[name] = _compile(text, _lookup_table(fields))
        except FilterParseError:
            error = FilterParseError(errno.EINVAL, text, _ERR_BAD_SUBSYS_FILTER, 0)
            filters[name] = error
            errors.append(error)
    return SubsystemFilterResult(filters, tuple(errors))
