"""Tracer registry (register_tracer() in trace.c): the nop tracer (trace_nop.c), when the
kernel can be patched for them, the function tracers (trace_functions.c,
trace_functions_graph.c), and when the kernel has blktrace, the blk tracer (blk_tracer.py).

A tracer is what `current_tracer` selects. Only tracers that really work are registered.
Its callbacks are struct tracer's, each given the trace array (the function tracers' work is
FunctionTracing's, which follows current_tracer by name).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .trace_array import TraceArray
    from .trace_output import LinePrinter


@dataclass(frozen=True)
class Tracer:
    name: str
    allow_instances: bool = True      # instances may select it (function_graph: top level only)
    # The tracer's own options (struct tracer_flags): (name, default), in Linux's order; they
    # show in trace_options while it is the current tracer, and always under options/.
    options: tuple[tuple[str, bool], ...] = ()
    refuses: frozenset[str] = frozenset()   # options its set_flag() refuses to set (EINVAL)
    init: Callable[[TraceArray], None] | None = None     # tracer_init(): selected
    reset: Callable[[TraceArray], None] | None = None    # tracer->reset(): another selected
    # set_flag(): one of its options changed (in any array, whichever tracer is current)
    set_flag: Callable[[TraceArray, str, bool], None] | None = None
    # print_header(): the text of `trace` before the records, instead of the default header
    print_header: Callable[[TraceArray], str] | None = None
    # print_line(): the printer of a record's line, given the default one (for what it leaves)
    print_line: Callable[[TraceArray, LinePrinter], LinePrinter] | None = None


# trace_nop.c's two options, which show how a tracer's set_flag() takes or refuses a change
NOP = Tracer("nop", options=(("test_nop_accept", False), ("test_nop_refuse", False)),
             refuses=frozenset({"test_nop_refuse"}))
FUNCTION = Tracer("function", options=(("func_stack_trace", False), ("func-no-repeats", False)))
FUNCTION_GRAPH = Tracer("function_graph", allow_instances=False, options=(
    ("funcgraph-overrun", False), ("funcgraph-cpu", True), ("funcgraph-overhead", True),
    ("funcgraph-proc", False), ("funcgraph-duration", True), ("funcgraph-abstime", False),
    ("funcgraph-irqs", True), ("funcgraph-tail", False), ("sleep-time", True),
    ("graph-time", True)))   # (graph-time: 6.1 has it with CONFIG_FUNCTION_PROFILER, as here)


class TracerRegistry:
    def __init__(self, tracers: tuple[Tracer, ...] = (NOP,)):
        # Linux links new tracers at the head of its list, so available_tracers shows the
        # most recently registered first and nop (registered first) last.
        self._tracers = tuple(reversed(tracers))
        # The tracers' option values (each tracer's struct tracer_flags): one set for every
        # trace array, as in Linux.
        self.flags: dict[str, bool] = {name: default for t in tracers for name, default in t.options}

    def get(self, name: str, top_level: bool = True) -> Tracer | None:
        for tracer in self.usable(top_level):
            if tracer.name == name:
                return tracer
        return None

    def usable(self, top_level: bool = True) -> tuple[Tracer, ...]:
        """The tracers a trace array may select (trace_ok_for_array)."""
        return tuple(t for t in self._tracers if top_level or t.allow_instances)

    def available_text(self, top_level: bool = True) -> str:
        """The text of available_tracers."""
        return " ".join(tracer.name for tracer in self.usable(top_level)) + "\n"
