"""The drain's per-event loop (native/drain.c; see drain.py)."""

from collections.abc import Callable
from typing import Any

from ._entry import Entry

class PageFormatError(ValueError):
    """The bytes are not a valid ring-buffer data page."""

DROP: object  # a plan: the event type is not kept
KEEP: object  # a plan: kept as it is

# where a page's walk stopped: (offset in data[] of the next event, time of the last one)
WalkPoint = tuple[int, int]

def walk(page: bytes, point: WalkPoint | None, /) -> tuple[bytes, WalkPoint]:
    """A page's events after point (None: from its start): (spans, point after)."""
    ...

def keep(pages: list[tuple[bytes, bytes]], plans: dict[int, Any], plan_of: Callable[[int], Any],
         tasks: dict[int, tuple[bytes, int]], task_of: Callable[[int], tuple[bytes, int]],
         special: Callable[..., tuple[tuple[bytes, int], bool]], from_ns: Callable[[int], int] | None,
         save_comm: Callable[[int, bytes], None] | None,
         save_tgid: Callable[[int, int], None] | None,
         follow: bytearray | None = None) -> tuple[list[Entry], int]:
    """The entries of the (page, spans) pairs' events an array keeps, and how many events were
    shorter than their header. special(plan, payload, pid, task, ts) -> (task now, kept) is
    asked for the events whose plan is neither DROP nor KEEP (ts: the stamp the guest wrote).
    The stacks the stacktrace options write after an event are dropped with it; follow (one
    byte): whether the event before the pages was dropped, and after the call, whether the
    last one was."""
    ...
