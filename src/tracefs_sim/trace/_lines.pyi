"""The text of trace and trace_pipe: the CPUs' records merged, lines made in C (native/lines.c)."""

from collections.abc import Callable, Sequence
from typing import Any

from ._entry import Entry

LinePrinter = Callable[[int, Entry, int, int], bytes]

class DefaultLine:
    """The default line, from the caches of context prefixes and event texts; miss() makes (and
    caches) what they lack."""

    miss: LinePrinter
    def __init__(self, prefixes: dict[int, bytes], texts: dict[int, Any], in_ns: bool, miss: LinePrinter) -> None: ...
    def __call__(self, cpu: int, entry: Entry, next_ts: int, idx: int) -> bytes: ...

def trace_text(head: bytes, sources: Sequence[tuple[int, Sequence[Sequence[Entry]]]], line: LinePrinter,
               records: int, annotate: bool = False) -> bytes:
    """`trace`: head, then every record of the sources' pages in time order; annotate: a
    `##### CPU N buffer started ####` line before each CPU's first (but the text's first two)."""
    ...

def pipe_text(sources: Sequence[tuple[int, Sequence[Sequence[Entry]]]], line: LinePrinter, idx: int, window: int,
              max_bytes: int, lost: Sequence[int] | None) -> tuple[bytes, list[int]]:
    """`trace_pipe`: the oldest records' text, at most max_bytes, and how many each source gave."""
    ...
