"""The tracing stack over a machine, wired in one place for the daemon and the benchmarks: the
probe engines the kernel allows (its ftrace sites, the kprobe engine), the tracing core over
them, and the kprobe engine's debugfs views."""

from __future__ import annotations

import errno
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .machine.contract import (DirectCall, EventEnable, KernelRequest, KprobeEventAnswer, KernelRequestMachine,
                               KernelRequestService, PatchableMachine, TracedMachine, UprobeRequest)
from .lib.sysctl import SysctlFile
from .machine.bpf_jit import BpfJitSymbols
from .machine.image import KernelImage
from .machine.blktrace import blk_trace_dirs
from .machine.sysctls import SysctlMachine, net_core_sysctls, kernel_sysctls
from .probes.ftrace import FtraceSites
from .probes.kprobes import KprobeEngine
from .probes.kprobes.debugfs import KprobeDebugViews
from .probes.uprobes import UprobeEngine
from .trace.core import TraceCore
from .trace.kallsyms_file import WrittenCode


@dataclass(frozen=True)
class TracingStack:
    machine: TracedMachine
    core: TraceCore
    ftrace_sites: FtraceSites | None  # None: a kernel (or a machine) without function tracing
    kprobe_engine: KprobeEngine | None  # None: without kprobes
    kprobe_views: KprobeDebugViews | None  # /sys/kernel/debug/kprobes, with the engine
    # /sys/bus/event_source/devices: name -> (type, formats, events)
    pmus: dict[str, tuple[int, dict[str, str], dict[str, str]]]
    # the kernel's own sysctls a session shows in /proc/sys/kernel (perf_event_*): name -> file
    sysctls: dict[str, SysctlFile]
    # and in /proc/sys/net/core (bpf_jit_enable)
    net_core_sysctls: dict[str, SysctlFile]
    # the code the kernel writes at run time: (name, start, end) of each now; None: none
    written_code: WrittenCode | None
    # each disk's /sys/block/DEV/trace/ files (the kernel's blktrace attributes): DEV -> name -> file
    blk_trace_dirs: Mapping[str, Mapping[str, SysctlFile]]


def build_stack(machine: TracedMachine, *, realtime_at_boot_ns: int = 0, boottime_at_boot_ns: int = 0) -> TracingStack:
    """Everything the machine and its kernel allow: a machine that can be patched (a
    contract.PatchableMachine) whose kernel was built with ftrace_caller gets the function
    tracers, and with kprobe_insn_slots too, kprobes (kprobes at function entries go through
    the ftrace sites: one FtraceSites for both); with uprobe_points as well, uprobes (their
    handlers' records go through the kprobe engine's probe stage)."""
    sites = engine = uprobes = None
    if isinstance(machine, PatchableMachine) and machine.image.lookup("ftrace_caller") is not None:
        sites = FtraceSites(machine)
        if machine.image.lookup("kprobe_insn_slots") is not None:
            engine = KprobeEngine(machine, sites)
            if machine.image.lookup("uprobe_points") is not None:
                uprobes = UprobeEngine(machine, engine.stage, programs=engine)
    written = written_code(machine, None if sites is None else sites.trampolines)
    core = TraceCore(machine, ftrace_sites=sites, kprobe_engine=engine, uprobe_engine=uprobes,
                     realtime_at_boot_ns=realtime_at_boot_ns, boottime_at_boot_ns=boottime_at_boot_ns,
                     written_code=written)
    if sites is not None and isinstance(machine, KernelRequestMachine):
        # the kernel's kprobe PMU asks the engine for its probes, its BPF verifier for symbols,
        # its BPF trampolines for direct calls from the ftrace sites
        machine.serve_kernel_requests(_kernel_requests(sites, core))
    sysctls: dict[str, SysctlFile] = {}
    net_core: dict[str, SysctlFile] = {}
    if isinstance(machine, SysctlMachine):
        sysctls.update(kernel_sysctls(machine))
        net_core.update(net_core_sysctls(machine))
    return TracingStack(machine, core, sites, engine, None if engine is None else KprobeDebugViews(engine),
                        _pmus(machine, core.kprobes is not None, core.uprobes is not None), sysctls, net_core, written,
                        blk_trace_dirs(machine))


def written_code(machine: TracedMachine, trampolines: WrittenCode | None) -> WrittenCode | None:
    """The code the kernel writes at run time, as /proc/kallsyms lists it, the trace names it and
    disasm finds it: its BPF trampolines (the host's ftrace sites know them) and its JITed
    programs (its own table)."""
    image = machine.image
    if not (isinstance(image, KernelImage) and BpfJitSymbols.present(image)):
        return trampolines
    programs = BpfJitSymbols(image, machine.read_memory)

    def written() -> Sequence[tuple[str, int, int]]:
        return sorted([*(trampolines() if trampolines else ()), *programs.symbols()], key=lambda t: t[1])
    return written


def _kernel_requests(sites: FtraceSites, core: TraceCore) -> KernelRequestService:
    """The answers to the kernel's requests: direct calls from the ftrace sites,
    probes from the kprobe engine (ENOENT without one, as a kernel whose kprobe PMU finds no
    symbol), consumers from the uprobe engine (ENOENT without one), the top-level array's
    events."""
    def serve(req: KernelRequest) -> int | KprobeEventAnswer:
        if isinstance(req, DirectCall):
            return sites.set_direct(req.site, req.tramp, req.size, req.name)
        if isinstance(req, EventEnable):
            return core.top.events.set_clr_event(req.system, req.event, req.enable)
        if isinstance(req, UprobeRequest):
            if core.uprobes is None:
                return -errno.ENOENT if req.register else 0
            return core.uprobes.serve_local(req)
        if core.kprobes is None:
            if req.perf_event:
                return -errno.EINVAL if req.register else 0
            return -errno.ENOENT if req.register else 0
        return core.kprobes.serve_local(req)
    return serve


# include/uapi/linux/perf_event.h's fixed types
PERF_TYPE_SOFTWARE, PERF_TYPE_TRACEPOINT, PERF_TYPE_RAW = 1, 2, 4
# the cpu PMU (kernel/events/x86_pmu.c) as 6.1 shows Intel's architectural perfmon: its raw
# config's fields (intel_arch_formats_attr) and the generic events the machine counts (6.1 lists
# those its event map has: x86_pmu.c's intel_perfmon_event_map)
CPU_PMU_FORMATS = {"event": "config:0-7", "umask": "config:8-15", "edge": "config:18", "pc": "config:19",
                   "inv": "config:23", "cmask": "config:24-31"}
CPU_PMU_EVENTS = {"cpu-cycles": "event=0x3c", "instructions": "event=0xc0", "branch-instructions": "event=0xc4"}


def _pmus(machine: TracedMachine, kprobes: bool, uprobes: bool) -> dict[str, tuple[int, dict[str, str], dict[str, str]]]:
    """The PMUs the kernel registers (kernel/events/core.c): software and tracepoint, the cpu
    PMU (type PERF_TYPE_RAW, as 6.1's x86 one), and the kprobe and uprobe PMUs (their types the
    kernel's, config bit 0 `retprobe`) where their requests have an engine to answer them.  The
    uprobe PMU shows no `ref_ctr_offset` field (config:32-63 on 6.1): the engine takes the offset
    but keeps no reference counter, so a tool that finds the field absent (bpftrace's
    `uprobe refcount: no`) increments a USDT semaphore itself."""
    pmus: dict[str, tuple[int, dict[str, str], dict[str, str]]] = {
        "software": (PERF_TYPE_SOFTWARE, {}, {}), "tracepoint": (PERF_TYPE_TRACEPOINT, {}, {}),
        "cpu": (PERF_TYPE_RAW, CPU_PMU_FORMATS, CPU_PMU_EVENTS)}
    abi = getattr(machine.image, "abi", {})
    if kprobes and isinstance(machine, KernelRequestMachine) and "PERF_TYPE_KPROBE" in abi:
        pmus["kprobe"] = (abi["PERF_TYPE_KPROBE"], {"retprobe": "config:0"}, {})
    if uprobes and isinstance(machine, KernelRequestMachine) and "PERF_TYPE_UPROBE" in abi:
        pmus["uprobe"] = (abi["PERF_TYPE_UPROBE"], {"retprobe": "config:0"}, {})
    return pmus
