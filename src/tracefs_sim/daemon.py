"""The daemon: an emulated machine, the tracing core over it, a FUSE mount serving the core,
and the control socket, all in one trio run.
"""

import logging
import os
import signal
import time

import pyfuse3
import trio

from . import control
from .fs import TracefsOperations, build_tree
from .trace import EventRegistry, TraceArray, TraceClocks

log = logging.getLogger(__name__)

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def fuse_options() -> set[str]:
    """Mount options: /proc/mounts shows `tracefs <mnt> fuse.tracefs`; the kernel checks
    permissions by mode as on tracefs; root lets other users reach the mount so modes decide."""
    options = set(pyfuse3.default_options) | {"fsname=tracefs", "subtype=tracefs"}
    if os.geteuid() == 0:
        options.add("allow_other")
    return options


def run_daemon(mountpoint: str, options, *, ready_fd: int | None = None, debug: bool = False) -> int:
    """Serve the simulator at mountpoint until SIGTERM/SIGINT/SIGHUP; returns 0 after a clean
    unmount. options: MachineOptions. ready_fd, if given, gets one byte once the mount answers."""
    from .machine import Machine

    return serve_machine(Machine(options), mountpoint, ready_fd=ready_fd, debug=debug)


def serve_machine(machine, mountpoint: str, *, ready_fd: int | None = None, debug: bool = False) -> int:
    """run_daemon() for a machine already built (anything with the Machine interface):
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


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _run(machine, mountpoint: str, ready_fd: int | None) -> None:
    machine.start()
    try:
        if machine.options.seed is None:
            realtime_at_boot_ns = time.time_ns() - machine.now_ns()
        else:
            realtime_at_boot_ns = 0   # a seeded run must not depend on the wall clock
        clocks = TraceClocks(machine.now_ns, realtime_at_boot_ns=realtime_at_boot_ns)
        trace_array = TraceArray(machine.nr_cpus, clocks)
        tree = build_tree(trace_array, EventRegistry(machine.image.events))
        operations = TracefsOperations(tree)
        # Resolve the socket path before mounting: it looks at the mountpoint, and after the
        # mount that look would wait for this very process to answer FUSE's INIT.
        socket_path = control.socket_path_for(mountpoint)
        pyfuse3.init(operations, mountpoint, fuse_options())
        try:
            trio.run(_serve, machine, operations, mountpoint, socket_path, ready_fd)
        finally:
            pyfuse3.close(unmount=True)
    finally:
        machine.stop()


async def _serve(machine, operations: TracefsOperations, mountpoint: str, socket_path: str,
                 ready_fd: int | None) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_stop_on_signal, operations)
        await nursery.start(control.serve, machine, socket_path)
        nursery.start_soon(_fuse_main, nursery.cancel_scope)
        await _announce_ready(mountpoint, ready_fd)


async def _fuse_main(scope: trio.CancelScope) -> None:
    await pyfuse3.main()
    scope.cancel()   # the mount is done: stop serving the control socket too


async def _stop_on_signal(operations: TracefsOperations) -> None:
    with trio.open_signal_receiver(*_STOP_SIGNALS) as signals:
        async for signum in signals:
            log.debug("signal %d: unmounting", signum)
            pyfuse3.terminate()
            operations.end_waits()
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
