"""Decoding of trace entries (the payload of a ring-buffer event) into field values, by the
event's format: what filters and print fmts evaluate.

Values: ints for numbers and pointers (signed per the field), bytes for char arrays and
__data_loc strings (cut at the first NUL), a list of ints for other fixed arrays.
"""

import re
import struct
from collections.abc import Callable, Sequence
from typing import Any

from .fields import FieldLike

# A field's value (see above), a decoded record, and what records are read from.
FieldValue = int | bytes | list[int]
Record = dict[str, FieldValue]
Payload = bytes | bytearray | memoryview
# a fix-up of what the struct unpacked (the field's raw value) into its value
_Fixup = Callable[[Any, Payload], FieldValue]

_INT_CODES = {1: "b", 2: "h", 4: "i", 8: "q"}
_ARRAY = re.compile(r"^(.*)\[(\d*)\]$")
# The common_* fields every entry starts with: type, flags, preempt count, pid.
ENTRY_HEADER = struct.Struct("<HBBi")


def _cstring(value: bytes) -> bytes:
    return value.split(b"\0", 1)[0]


class RecordDecoder:
    """Compiled once per event: payload bytes -> {field name: value}; fields are format-file
    fields (the common ones included) with type, name, offset, size and is_signed. The fixed
    part is one struct unpack; strings and dynamic data are fixed up after it."""

    __slots__ = ("_struct", "_names", "_fixups", "_min_size")

    def __init__(self, fields: Sequence[FieldLike]):
        fmt = "<"
        names: list[str] = []
        fixups: list[tuple[str, _Fixup]] = []
        pos = 0
        for f in sorted(fields, key=lambda f: f.offset):
            if f.size == 0:    # a flexible array at the end: the rest of the record
                fixups.append((f.name, _rest_of(f.offset, f.type)))
                continue
            if f.offset < pos:
                continue       # overlapping fields do not occur in real formats
            fmt += "x" * (f.offset - pos)
            pos = f.offset + f.size
            names.append(f.name)
            code, fixup = _field_code(f)
            fmt += code
            if fixup is not None:
                fixups.append((f.name, fixup))
        self._struct = struct.Struct(fmt)
        self._names = tuple(names)
        self._fixups = tuple(fixups)
        self._min_size = self._struct.size

    def decode(self, payload: Payload) -> Record:
        if len(payload) < self._min_size:
            payload = bytes(payload).ljust(self._min_size, b"\0")
        out: Record = dict(zip(self._names, self._struct.unpack_from(payload, 0)))
        if self._fixups:
            for name, fixup in self._fixups:
                out[name] = fixup(out.get(name), payload)
        return out


def _field_code(field: FieldLike) -> tuple[str, _Fixup | None]:
    """The struct code of a field and the fix-up its unpacked value needs (or None)."""
    if field.type.startswith("__data_loc"):
        is_string = "char" in field.type

        def data_loc(loc: int, payload: Payload) -> bytes:
            start, length = loc & 0xFFFF, loc >> 16
            value = bytes(payload[start:start + length])
            return _cstring(value) if is_string else value
        return "I", data_loc
    array = _ARRAY.match(field.type)
    if array is not None:
        if array.group(1).strip().endswith("char"):
            return f"{field.size}s", lambda value, payload: _cstring(value)
        count = int(array.group(2) or 0)
        code = _INT_CODES.get(field.size // count if count else 0)
        if code is None:
            return f"{field.size}s", None
        element = struct.Struct("<%d%s" % (count, code if field.is_signed else code.upper()))
        return f"{field.size}s", lambda value, payload: list(element.unpack(value))
    code = _INT_CODES.get(field.size)
    if code is None:
        return f"{field.size}s", None
    return (code if field.is_signed else code.upper()), None


def _rest_of(offset: int, type_: str) -> _Fixup:
    is_string = "char" in type_
    return lambda value, payload: _cstring(bytes(payload[offset:])) if is_string else bytes(payload[offset:])


def int_field(record: Record, name: str) -> int:
    """A number field's value (TypeError: the field is a string or an array)."""
    value = record[name]
    if not isinstance(value, int):
        raise TypeError(f"field {name} is not a number")
    return value
