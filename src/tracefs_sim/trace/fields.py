"""The shape of an event field as the trace core sees it: one field line of a ``format`` file.

machine.FieldDesc has this shape; the trace core depends only on it, not on the machine."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class FieldLike(Protocol):
    @property
    def type(self) -> str: ...  # Linux's internal form: "char[16]" for arrays, "__data_loc char[]" for strings
    @property
    def name(self) -> str: ...
    @property
    def offset(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def is_signed(self) -> bool: ...


@dataclass(frozen=True)
class RecordField:
    """A field the trace core defines itself: the common header, ftrace's own records."""
    type: str
    name: str
    offset: int
    size: int
    is_signed: bool
