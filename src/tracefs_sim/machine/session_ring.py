"""The machine's side of the session ring (kernel_model/kernel/session.c).

A session's supervisor writes records about the session's processes into a ring in the
kernel's memory; it maps that part of RAM from the machine's RAM file. When the kernel said it
waits for records (it found the ring empty), the supervisor writes the doorbell, an eventfd:
a thread here then raises the "call function" vector, whose handler drains the ring. One wake-up
per batch of records, never one per record.
"""
from __future__ import annotations

import os
import struct
import threading
import time
from dataclasses import dataclass
from typing import Callable

from .image import KERNEL_MAP, KernelImage

# struct session_ring (kernel_model/include/uapi/session_ring.h; hostif.check_abi checks these
# against the image): where its counters are.
LOST_OFFSET = 72       # records the supervisor could not write: the ring was full
PRODUCED_OFFSET = 80   # records the supervisor wrote
RETIRED_OFFSET = 144   # records the kernel is done with
RETIRED_UPTO_OFFSET = 152  # ... all of them up to this one, in the order they were written
# How often a wait for the kernel to catch up looks again: soon at first (the kernel usually
# needs tens of microseconds: a tool reading many tracefs files waits once per file), then
# every millisecond.
_FIRST_POLL_S = 0.00002
_POLL_S = 0.001


@dataclass(frozen=True)
class SessionRingAccess:
    """What a supervisor needs: the RAM file, where the ring is in it, the doorbell, and the
    eventfd the kernel writes when it has answered a call the supervisor asked it to serve."""
    ram_fd: int
    offset: int
    size: int
    doorbell_fd: int
    reply_fd: int
    pool_fds: tuple[int, ...] = ()  # the perf pool's region files (perf_pool.py), by region
    wake_fd: int = -1  # the eventfd the kernel writes at a wakeup of a perf buffer (uapi/perf_pool.h)


class SessionDoorbell:
    """An eventfd and the thread that turns each of its wake-ups into `ring()`."""

    def __init__(self, ring: Callable[[], None]):
        self.fd = os.eventfd(0, os.EFD_CLOEXEC)
        self._ring = ring
        self._thread = threading.Thread(target=self._serve, name="session doorbell", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                os.eventfd_read(self.fd)
            except OSError:
                return  # closed: the machine stopped
            try:
                self._ring()
            except RuntimeError:
                return  # the machine stopped


def ring_location(image: KernelImage, symbol: str = "session_ring") -> tuple[int, int] | None:
    """The physical address and size of the kernel's session ring, if the kernel has one."""
    sym = image.lookup(symbol)
    if sym is None:
        return None
    return sym.addr - KERNEL_MAP, sym.size


def caught_up(read_u64: Callable[[int], int], ring_pa: int, stall: float, most: float) -> bool:
    """Wait until the kernel is done with every record the supervisor had produced when this
    was called; whether it is. It gives up once the kernel retired nothing for `stall` seconds
    (a paused or stopped machine), and after `most` seconds while it progresses (a busy
    session's backlog on a loaded box), as serve.c's callers do. read_u64(pa): a read of
    guest RAM."""
    target = read_u64(ring_pa + PRODUCED_OFFSET)
    start = time.monotonic()
    deadline = start + stall
    mark = read_u64(ring_pa + RETIRED_UPTO_OFFSET)   # where the kernel was when the deadline was set
    pause = _FIRST_POLL_S
    while (retired := read_u64(ring_pa + RETIRED_UPTO_OFFSET)) < target:
        now = time.monotonic()
        if now >= deadline:
            if retired == mark or now - start >= most:
                return False
            mark, deadline = retired, now + stall
        time.sleep(pause)
        pause = min(pause * 2, _POLL_S)
    return True
