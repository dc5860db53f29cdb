"""The daemon: an emulated machine, the tracing core over it, a FUSE mount serving the core,
and the control socket, all in one trio run.
"""

import functools
import gc
import logging
import os
import signal
import time
from types import FrameType
from typing import TYPE_CHECKING

import pyfuse3
import trio

from . import control, namespace
from .fs import TracefsOperations, build_tree
from .fs.layout import add_block_trace_view, add_btf_view, add_debug_views, add_notes_view, add_pmu_views, add_session_views
from .fs.operations import SessionSync
from .host_heap import fix_mmap_threshold
from .lib.sysctl import SysctlFile
from .machine.contract import ServedMachine
from .probes.ftrace import FtraceEnabled
from .trace.kallsyms_file import KallsymsView, KptrRestrict, WrittenCode
from .stack import build_stack
from .trace.core import TraceCore, kernel_banner

if TYPE_CHECKING:  # (the machine is imported when a daemon runs one)
    from .machine import MachineOptions

log = logging.getLogger(__name__)

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def fuse_options() -> set[str]:
    """Mount options: /proc/mounts shows `tracefs <mnt> fuse.tracefs`; the kernel checks
    permissions by mode as on tracefs; root lets other users reach the mount so modes decide."""
    options = set(pyfuse3.default_options) | {"fsname=tracefs", "subtype=tracefs"}
    if os.geteuid() == 0:
        options.add("allow_other")
    return options


def run_daemon(mountpoint: str, options: "MachineOptions", *, ready_fd: int | None = None, debug: bool = False) -> int:
    """Serve the simulator at mountpoint until SIGTERM/SIGINT/SIGHUP; returns 0 after a clean
    unmount. options: MachineOptions. ready_fd, if given, gets one byte once the mount answers."""
    from .machine import Machine

    gc.set_threshold(*GC_THRESHOLDS)  # already while the image is read: its ~7,000 symbols, ~800 events
    return serve_machine(Machine(options), mountpoint, ready_fd=ready_fd, debug=debug)


def serve_machine(machine: ServedMachine, mountpoint: str, *, ready_fd: int | None = None,
                  debug: bool = False) -> int:
    """run_daemon() for a machine already built (anything that is a contract.ServedMachine):
    starts it, serves it at mountpoint until a stop signal, stops it."""
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING,
                        format="tracefs-sim daemon: %(name)s: %(message)s")
    # Until trio listens for them, stop signals unwind through the finally clauses below,
    # so even a signal during start-up leaves no mount behind.
    previous = {signum: signal.signal(signum, _interrupt) for signum in _STOP_SIGNALS}
    try:
        _run(machine, mountpoint, ready_fd)
    except KeyboardInterrupt:
        log.debug("stopped during start-up")
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


# The trace core keeps an object per event (hundreds of thousands a second under load): at
# Python's default threshold (700) the young generation is collected every few hundred
# events, which with the full collections it leads to took ~40% of the drain's time.
GC_THRESHOLDS = (10_000, 50, 10)
# With those thresholds the older generations are collected hours apart (a soak counted one
# young collection every ~30 s, so the middle one every ~25 min), while a removed instance or
# dynamic event leaves a few hundred objects that reference each other, its buffers and
# caches among them: a soak's RSS grew ~0.17 MiB a minute for 30 minutes that way. A full
# collection this often (some 10 ms for the daemon's ~45,000 tracked objects) frees them soon.
GC_FULL_SECONDS = 30.0


def _run(machine: ServedMachine, mountpoint: str, ready_fd: int | None) -> None:
    gc.set_threshold(*GC_THRESHOLDS)
    fix_mmap_threshold()  # large transient blocks (a `trace` read's text) go back to the system
    machine.start()
    try:
        if machine.options.seed is None:
            realtime_at_boot_ns = time.time_ns() - machine.now_ns()
            boottime_at_boot_ns = time.clock_gettime_ns(time.CLOCK_BOOTTIME) - machine.now_ns()
        else:
            realtime_at_boot_ns = boottime_at_boot_ns = 0   # a seeded run must not depend on the host
        stack = build_stack(machine, realtime_at_boot_ns=realtime_at_boot_ns, boottime_at_boot_ns=boottime_at_boot_ns)
        tracing = stack.core
        tree = build_tree(tracing)
        if stack.kprobe_views is not None:
            add_debug_views(tree, stack.kprobe_views)
        add_pmu_views(tree, stack.pmus)
        add_block_trace_view(tree, stack.blk_trace_dirs)
        btf = machine.btf()
        if btf is not None:
            add_btf_view(tree, btf)
        debuginfo = machine.debuginfo()
        if debuginfo is not None:
            add_notes_view(tree, debuginfo.notes)
        kptr_restrict = KptrRestrict()
        sysctls: dict[str, SysctlFile] = {"kptr_restrict": kptr_restrict}
        if stack.ftrace_sites is not None:
            sysctls["ftrace_enabled"] = FtraceEnabled(stack.ftrace_sites)
        if tracing.stack_tracer is not None:
            sysctls["stack_tracer_enabled"] = tracing.stack_tracer.sysctl
        sysctls.update(stack.sysctls)
        written_code = stack.written_code
        add_session_views(tree, namespace.ProcMountsView(mountpoint),
                          KallsymsView(machine.kallsyms(), kptr_restrict, written_code), kernel_banner(machine),
                          sysctls, stack.net_core_sysctls)
        operations = TracefsOperations(tree, catch_up=tracing.drain.drain_once,
                                       session_sync=SessionSync(machine.session_behind, machine.session_caught_up))
        # Resolve the socket path before mounting: it looks at the mountpoint, and after the
        # mount that look would wait for this very process to answer FUSE's INIT.
        socket_path = control.socket_path_for(mountpoint)
        pyfuse3.init(operations, mountpoint, fuse_options())
        try:
            trio.run(_serve, machine, tracing, operations, mountpoint, socket_path, ready_fd, written_code)
        finally:
            pyfuse3.close(unmount=True)
    finally:
        machine.stop()


async def _serve(machine: ServedMachine, tracing: TraceCore, operations: TracefsOperations, mountpoint: str,
                 socket_path: str, ready_fd: int | None,
                 written_code: WrittenCode | None = None) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_stop_on_signal, operations)
        nursery.start_soon(_collect_garbage, GC_FULL_SECONDS)
        nursery.start_soon(_drain_guest, tracing)
        # disasm shows the BPF trampolines the kernel writes
        await nursery.start(functools.partial(control.serve, written_code=written_code), machine, socket_path)
        nursery.start_soon(_fuse_main, nursery.cancel_scope)
        await _announce_ready(mountpoint, ready_fd)


# How long one wait for guest data may block a worker thread (bounds shutdown latency).
_DRAIN_WAIT_SECONDS = 0.2


# After a failed wait or drain, the next try waits this long (a guest that keeps failing,
# e.g. one that stopped, must not spin the loop and flood the log).
_DRAIN_RETRY_SECONDS = 1.0


async def _drain_guest(tracing: TraceCore) -> None:
    """Move guest records into the buffers, one batch per doorbell, off the trio thread."""
    guest, drain = tracing.guest, tracing.drain
    while True:
        try:
            await trio.to_thread.run_sync(guest.wait_for_data, _DRAIN_WAIT_SECONDS, abandon_on_cancel=True)
            await trio.to_thread.run_sync(drain.drain_once)
            await trio.to_thread.run_sync(tracing.ftrace_dump.serve)
        except Exception:
            # Nothing the guest does may end the mount: the batch is lost, logged, retried.
            log.exception("drain failed")
            await trio.sleep(_DRAIN_RETRY_SECONDS)


async def _collect_garbage(every: float) -> None:
    """A full collection every `every` seconds (see GC_FULL_SECONDS)."""
    while True:
        await trio.sleep(every)
        gc.collect()


async def _fuse_main(scope: trio.CancelScope) -> None:
    await pyfuse3.main()
    scope.cancel()   # the mount is done: stop serving the control socket too


# How long stopping waits for blocked pipe readers to take their EOF and close.
_READERS_GONE_SECONDS = 1.0


def _stopping(signum: int, frame: FrameType | None) -> None:
    """A stop signal once the serving loop no longer listens: the stop is under way."""
    log.debug("signal %d: already stopping", signum)


async def _stop_on_signal(operations: TracefsOperations) -> None:
    # When the receiver ends (it took its signal, or the mount ended first and cancelled it),
    # trio hands a stop signal still queued to the handler it found: that must not be the
    # start-up's _interrupt, whose KeyboardInterrupt would land inside trio's own exit.
    for stop_signal in _STOP_SIGNALS:
        signal.signal(stop_signal, _stopping)
    with trio.open_signal_receiver(*_STOP_SIGNALS) as signals:
        async for signum in signals:
            log.debug("signal %d: unmounting", signum)
            operations.end_waits()
            # Blocked readers get their EOF and close before the loop ends (bounded: a reader
            # that keeps its file open must not keep the mount).
            with trio.move_on_after(_READERS_GONE_SECONDS):
                await operations.wait_pipe_readers_gone()
            pyfuse3.terminate()
            return


async def _announce_ready(mountpoint: str, ready_fd: int | None) -> None:
    # The stat goes through the kernel to our own request loop, so it must not block trio.
    root = await trio.to_thread.run_sync(os.stat, mountpoint)
    if root.st_ino != pyfuse3.ROOT_INODE:
        raise RuntimeError(f"{mountpoint} does not show the mount")
    log.debug("mounted at %s", mountpoint)
    if ready_fd is not None:
        os.write(ready_fd, b"\0")
        os.close(ready_fd)
