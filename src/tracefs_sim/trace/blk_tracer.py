"""The blk tracer (struct tracer blk_tracer of kernel/trace/blktrace.c): the top level's only
(no allow_instances).  Selected, the kernel's blk probes write TRACE_BLK records to the top
level's buffer and save the comms of their tasks; options/blk_classic turns context-info off
(blkparse's classic lines carry their own) and makes `trace` print those lines (blk_output.py)
under the classic legend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .blk_output import CLASSIC_HEADER, TRACE_BLK, blk_line
from .ring_buffer import Entry
from .tracers import Tracer

if TYPE_CHECKING:
    from .trace_array import TraceArray
    from .trace_output import LinePrinter


def _switch(tr: TraceArray, on: bool) -> None:
    """blk_tracer_init() / blk_tracer_reset(): blk_tracer_enabled in the kernel, and
    __blk_add_trace()'s tracing_record_cmdline(current)"""
    tr.guest.set_blk_tracer(on)
    tr.guest.record_cmdlines(tr.tracers, on)


def _set_flag(tr: TraceArray, option: str, on: bool) -> None:
    """blk_tracer_set_flag()"""
    if option == "blk_classic":
        tr.options.set("context-info", not on)


def _print_header(tr: TraceArray) -> str:
    """blk_tracer_print_header(): the classic legend, or nothing after the tracer's name"""
    return "# tracer: blk\n#\n" + (CLASSIC_HEADER if tr.options["blk_classic"] else "")


def _print_line(tr: TraceArray, lines: LinePrinter) -> LinePrinter:
    """blk_tracer_print_line(): with blk_classic, a TRACE_BLK record's classic line"""
    if not tr.options["blk_classic"]:
        return lines
    comm = tr.cmdlines.find
    verbose = tr.options["verbose"]

    def classic(cpu: int, entry: Entry, next_ts: int, idx: int) -> bytes:
        if int.from_bytes(entry.payload[:2], "little") != TRACE_BLK:
            return lines(cpu, entry, next_ts, idx)
        return blk_line(entry.payload, lambda pid: comm(pid).decode("latin-1"), verbose, False, (cpu, entry.ts))
    return classic


BLK = Tracer("blk", allow_instances=False,
             options=(("blk_classic", False), ("blk_cgroup", False), ("blk_cgname", False)),
             init=lambda tr: _switch(tr, True), reset=lambda tr: _switch(tr, False), set_flag=_set_flag,
             print_header=_print_header, print_line=_print_line)
