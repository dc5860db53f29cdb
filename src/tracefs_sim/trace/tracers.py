"""Tracer registry (register_tracer() in trace.c) and the nop tracer (trace_nop.c).

A tracer is what `current_tracer` selects. Only tracers that really work are registered:
`function` and friends arrive with the probe engine.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Tracer:
    name: str


NOP = Tracer("nop")


class TracerRegistry:
    def __init__(self, tracers: tuple[Tracer, ...] = (NOP,)):
        # Linux links new tracers at the head of its list, so available_tracers shows the
        # most recently registered first and nop (registered first) last.
        self._tracers = tuple(reversed(tracers))

    def get(self, name: str) -> Tracer | None:
        for tracer in self._tracers:
            if tracer.name == name:
                return tracer
        return None

    def available_text(self) -> str:
        """The text of available_tracers."""
        return " ".join(tracer.name for tracer in self._tracers) + "\n"
