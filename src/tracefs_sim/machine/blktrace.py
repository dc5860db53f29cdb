"""The emulated kernel's blktrace attributes (kernel/blktrace.c): each disk's /sys/block/DEV/trace/
files (enable, act_mask, pid, start_lba, end_lba), which a session shows over the host's
(namespace.Overlay.cover_block_tracing).  A read or write is the kernel's own
sysfs_blk_trace_attr_show()/store(), run by kthreadd (Machine.blk_trace_attr_request()): the
parsing, the errnos and the blk_trace they set up are the kernel's."""
from __future__ import annotations

import struct
from typing import Protocol, runtime_checkable

from .image import KernelImage

# /sys/block/DEV/trace/'s files, in blk_trace_attrs[]'s order (the kernel's attribute numbers)
BLK_TRACE_ATTRS = ("enable", "act_mask", "pid", "start_lba", "end_lba")
_PAGE_SIZE = 4096   # sysfs's buffer: a write passes at most a page, less its terminating NUL here
_MINORBITS = 20


@runtime_checkable
class BlkTraceMachine(Protocol):
    """What the attributes need of the machine."""

    @property
    def image(self) -> KernelImage: ...

    def read_memory(self, vaddr: int, size: int) -> bytes: ...
    def blk_trace_attr_request(self, dev: int, attr: int, data: bytes | None) -> tuple[int, bytes]: ...


class BlkTraceAttr:
    """One attribute of one disk, as a sysfs file."""

    def __init__(self, machine: BlkTraceMachine, dev: int, attr: int):
        self._machine, self._dev, self._attr = machine, dev, attr

    def read(self) -> bytes:
        ret, text = self._machine.blk_trace_attr_request(self._dev, self._attr, None)
        if ret < 0:
            raise OSError(-ret, "refused by the kernel")
        return text

    def write_at(self, data: bytes, offset: int = 0) -> int:
        # (kernfs passes a store what one write(2) brings, whatever the file position, at most a
        # page: the store's count is what the write took; here a page less the NUL after it)
        ret, _ = self._machine.blk_trace_attr_request(self._dev, self._attr, data[:_PAGE_SIZE - 1])
        if ret < 0:
            raise OSError(-ret, "refused by the kernel")
        return ret


def kernel_disks(machine: BlkTraceMachine) -> dict[str, int]:
    """The kernel's disks (block/genhd.c's disks[]): name -> dev_t; none if it has no blktrace."""
    image = machine.image
    table = image.lookup("disks")
    if table is None or image.lookup("blk_trace_attr_buf") is None:
        return {}
    abi = image.abi
    found: dict[str, int] = {}
    pointers = machine.read_memory(table.addr, 8 * abi["MAX_DISKS"])
    for (disk,) in struct.iter_unpack("<Q", pointers):
        if not disk:
            break
        major, = struct.unpack("<i", machine.read_memory(disk + abi["gendisk.major"], 4))
        minor, = struct.unpack("<i", machine.read_memory(disk + abi["gendisk.first_minor"], 4))
        name = machine.read_memory(disk + abi["gendisk.disk_name"], abi["DISK_NAME_LEN"]).split(b"\0")[0]
        found[name.decode()] = major << _MINORBITS | minor
    return found


def blk_trace_dirs(machine: object) -> dict[str, dict[str, BlkTraceAttr]]:
    """Each disk's trace/ files: disk name -> {file name: attribute}."""
    if not isinstance(machine, BlkTraceMachine):
        return {}
    return {name: {attr: BlkTraceAttr(machine, dev, i) for i, attr in enumerate(BLK_TRACE_ATTRS)}
            for name, dev in kernel_disks(machine).items()}

