"""The kprobe engine: kprobes and kretprobes on the emulated kernel, armed the way Linux arms
them, one module a mechanism as Linux splits them:

- core.py       registration, aggregation, enabling, arming every point (kernel/kprobes.c)
- blacklist.py  where no probe may go (the kprobe blacklist, kretprobe_blacklist)
- insn_slots.py out-of-line code and its slots (kprobe_insn_cache)
- int3.py       int3 probes and the out-of-line step (arch/x86/kernel/kprobes/core.c;
                the instructions themselves, and emulating control flow: probes/insn.py)
- opt.py        jump optimisation: the optimizer's choices and the detours (opt.c)
- on_ftrace.py  probes at mcount sites, through ftrace_regs_caller (kprobes/ftrace.c)
- rethook.py    kretprobe instances and the return trampoline (rethook)
- guest.py      handlers the guest runs itself: its tables, and arming points for them
- hit.py        a host handler's hit: the probed context, records staged for the guest
- debugfs.py    /sys/kernel/debug/kprobes and the kprobes-optimization sysctl
"""
from .core import KprobeEngine, default_maxactive
from .guest import GuestFetchArg, GuestRecord
from .hit import ProbeHit
from .point import FTRACE, INT3, OPTIMIZED, Kprobe, Point

__all__ = ["FTRACE", "INT3", "OPTIMIZED", "GuestFetchArg", "GuestRecord", "Kprobe", "KprobeEngine", "Point",
           "ProbeHit", "default_maxactive"]
