"""The emulated machine: a kernel ELF booted on N Unicorn CPUs."""
from .image import EventDesc, FieldDesc, JumpEntry, KernelImage, Symbol
from .machine import Machine, MachineError, MachineOptions
from .process import Process, TaskInfo
from .tracing import GuestPage, GuestTracing

__all__ = ["EventDesc", "FieldDesc", "GuestPage", "GuestTracing", "JumpEntry", "KernelImage", "Machine",
           "MachineError", "MachineOptions", "Process", "Symbol", "TaskInfo"]
