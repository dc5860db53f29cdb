"""The tracing core, modelled on the kernel's kernel/trace/: free of FUSE and Unicorn types."""

from .clock import TraceClock, TraceClocks
from .events import EventRegistry, TraceEvent
from .ring_buffer import RingBuffer
from .core import TraceCore
from .trace_array import BufferExpansion, TraceArray
from .tracers import TracerRegistry

__all__ = [
    "BufferExpansion",
    "EventRegistry",
    "RingBuffer",
    "TraceArray",
    "TraceClock",
    "TraceClocks",
    "TraceEvent",
    "TracerRegistry",
    "TraceCore",
]
