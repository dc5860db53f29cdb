"""The blk tracer's records as text (kernel/trace/blktrace.c's formatting routines): a TRACE_BLK
entry is a struct blk_io_trace whose first 8 bytes are the trace entry's header (the kernel's
kernel/blktrace.c writes it).  Its line is blk_trace_event_print()'s after the context columns,
or, with options/blk_classic while blk is the current tracer, blk_tracer_print_line()'s
blkparse-like line in their place; bin is blk_trace_event_print_binary()'s old-format record.

No record here carries a cgroup id (the kernel's bios have no blkcg), so blk_cgroup and
blk_cgname change nothing in what is printed; a record that had one would print as 6.1 does.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

TRACE_BLK = 13  # kernel/trace/trace.h: enum trace_type

# struct blk_io_trace (include/uapi/linux/blktrace_api.h), after magic and sequence (the header)
_BLK_IO_TRACE = struct.Struct("<QQIIIIIHH")   # time sector bytes action pid device cpu error pdu_len
BLK_IO_TRACE_SIZE = 8 + _BLK_IO_TRACE.size   # 48
_SECTOR_OFFSET = 16   # offsetof(struct blk_io_trace, sector)
BLK_IO_TRACE_MAGIC, BLK_IO_TRACE_VERSION = 0x65617400, 0x07

BLK_TC_SHIFT = 16
(BLK_TC_READ, BLK_TC_WRITE, BLK_TC_FLUSH, BLK_TC_SYNC, BLK_TC_QUEUE, BLK_TC_REQUEUE, BLK_TC_ISSUE,
 BLK_TC_COMPLETE, BLK_TC_FS, BLK_TC_PC, BLK_TC_NOTIFY, BLK_TC_AHEAD, BLK_TC_META, BLK_TC_DISCARD,
 BLK_TC_DRV_DATA, BLK_TC_FUA) = (1 << i for i in range(16))
_BLK_TA_CGROUP = 1 << 8
BLK_TN_MESSAGE = 2 | (BLK_TC_NOTIFY << BLK_TC_SHIFT)
_BLK_TN_CGROUP = _BLK_TA_CGROUP


def _major(dev: int) -> int:
    return dev >> 20   # MAJOR() of the kernel's dev_t (MINORBITS 20)


def _minor(dev: int) -> int:
    return dev & ((1 << 20) - 1)


class BlkRecord:
    """One TRACE_BLK entry's fields (te_blk_io_trace() and its t_* accessors)."""

    def __init__(self, payload: bytes):
        fields: tuple[int, ...] = _BLK_IO_TRACE.unpack_from(payload, 8)
        (self.time, self.sector, self.bytes, self.action, self.pid, self.device, self.cpu, self.error,
         self.pdu_len) = fields
        self.pid_entry: int = struct.unpack_from("<i", payload, 4)[0]   # ent->pid
        self.has_cg = bool(self.action & _BLK_TA_CGROUP)
        pdu_start = BLK_IO_TRACE_SIZE + (8 if self.has_cg else 0)
        self.cgid: int = struct.unpack_from("<Q", payload, BLK_IO_TRACE_SIZE)[0] if self.has_cg else 0
        self.pdu = bytes(payload[pdu_start:BLK_IO_TRACE_SIZE + self.pdu_len])
        self.payload = payload

    @property
    def sec(self) -> int:
        return self.bytes >> 9

    def pdu_int(self) -> int:
        return int.from_bytes(self.pdu[:8], "big")


def fill_rwbs(t: BlkRecord) -> str:
    if (t.action & ~_BLK_TN_CGROUP) == BLK_TN_MESSAGE:
        return "N"
    tc = t.action >> BLK_TC_SHIFT
    rwbs = "F" if tc & BLK_TC_FLUSH else ""
    if tc & BLK_TC_DISCARD:
        rwbs += "D"
    elif tc & BLK_TC_WRITE:
        rwbs += "W"
    elif t.bytes:
        rwbs += "R"
    else:
        rwbs += "N"
    for bit, char in ((BLK_TC_FUA, "F"), (BLK_TC_AHEAD, "A"), (BLK_TC_SYNC, "S"), (BLK_TC_META, "M")):
        if tc & bit:
            rwbs += char
    return rwbs


def _dump_pdu(t: BlkRecord) -> str:
    """blk_log_dump_pdu(): the pdu's bytes, trailing zeros cut to ` ..`."""
    pdu = t.pdu
    if not pdu:
        return ""
    end = len(pdu) - 1
    while end >= 0 and not pdu[end]:
        end -= 1
    end += 1
    out = "("
    for i, byte in enumerate(pdu):
        out += ("" if i == 0 else " ") + f"{byte:02x}"
        if i == end and end != len(pdu) - 1:
            return out + " ..) "
    return out + ") "


Comm = Callable[[int], str]   # trace_find_cmdline()


def _log_sectors(t: BlkRecord, tag: object, pc_head: str, no_sectors: str) -> str:
    """What blk_log_generic() and blk_log_with_error() share: a passthrough request's pdu
    (after pc_head), else its sectors, else no_sectors; then [tag]."""
    if t.action & (BLK_TC_PC << BLK_TC_SHIFT):
        return f"{pc_head}{_dump_pdu(t)}[{tag}]\n"
    if t.sec:
        return f"{t.sector} + {t.sec} [{tag}]\n"
    return f"{no_sectors}[{tag}]\n"


def _log_generic(t: BlkRecord, comm: Comm) -> str:
    """blk_log_generic(): tagged with the task's comm"""
    return _log_sectors(t, comm(t.pid_entry), f"{t.bytes} ", "")


def _log_with_error(t: BlkRecord, comm: Comm) -> str:
    """blk_log_with_error(): tagged with the error"""
    return _log_sectors(t, t.error, "", f"{t.sector} ")


def _log_remap(t: BlkRecord, comm: Comm) -> str:
    dev_from, _dev_to, sector_from = struct.unpack_from(">IIQ", t.pdu.ljust(16, b"\0"))
    return f"{t.sector} + {t.sec} <- ({_major(dev_from)},{_minor(dev_from)}) {sector_from}\n"


def _log_plug(t: BlkRecord, comm: Comm) -> str:
    return f"[{comm(t.pid_entry)}]\n"


def _log_unplug(t: BlkRecord, comm: Comm) -> str:
    return f"[{comm(t.pid_entry)}] {t.pdu_int()}\n"


def _log_split(t: BlkRecord, comm: Comm) -> str:
    return f"{t.sector} / {t.pdu_int()} [{comm(t.pid_entry)}]\n"


# what2act[]: action -> (short, long name), printer
_WHAT2ACT: dict[int, tuple[tuple[str, str], Callable[[BlkRecord, Comm], str]]] = {
    1: (("Q", "queue"), _log_generic), 2: (("M", "backmerge"), _log_generic),
    3: (("F", "frontmerge"), _log_generic), 4: (("G", "getrq"), _log_generic),
    5: (("S", "sleeprq"), _log_generic), 6: (("R", "requeue"), _log_with_error),
    7: (("D", "issue"), _log_generic), 8: (("C", "complete"), _log_with_error),
    9: (("P", "plug"), _log_plug), 10: (("U", "unplug_io"), _log_unplug),
    11: (("UT", "unplug_timer"), _log_unplug), 12: (("I", "insert"), _log_generic),
    13: (("X", "split"), _log_split), 14: (("B", "bounce"), _log_generic),
    15: (("A", "remap"), _log_remap),
}


def _action(t: BlkRecord, act: str, cgname: bool) -> str:
    """blk_log_action()"""
    dev = f"{_major(t.device):3d},{_minor(t.device):<3d}"
    if t.has_cg:
        if cgname:
            return f"{dev} <...> {act:>2s} {fill_rwbs(t):>3s} "   # (no cgroup paths here)
        return f"{dev} {t.cgid & 0xFFFFFFFF:x},{t.cgid >> 32:<x} {act:>2s} {fill_rwbs(t):>3s} "
    return f"{dev} {act:>2s} {fill_rwbs(t):>3s} "


def _action_classic(t: BlkRecord, act: str, cpu: int, ts: int) -> str:
    """blk_log_action_classic()"""
    secs, nsec = divmod(ts, 1_000_000_000)
    return (f"{_major(t.device):3d},{_minor(t.device):<3d} {cpu:2d} {secs:5d}.{nsec:09d} "
            f"{t.pid_entry & 0xFFFFFFFF:5d} {act:>2s} {fill_rwbs(t):>3s} ")


def blk_line(payload: bytes, comm: Comm, verbose: bool, cgname: bool,
             classic: tuple[int, int] | None = None) -> bytes:
    """print_one_line(): the record's text; classic: (cpu, ts) for blk_tracer_print_line()'s
    classic line, None for blk_trace_event_print()'s (after the context columns)."""
    t = BlkRecord(payload)
    what = (t.action & ((1 << BLK_TC_SHIFT) - 1)) & ~_BLK_TA_CGROUP

    def log_action(act: str) -> str:
        return _action(t, act, cgname) if classic is None else _action_classic(t, act, *classic)

    if (t.action & ~_BLK_TN_CGROUP) == BLK_TN_MESSAGE:
        return (log_action("message" if verbose else "m")).encode() + t.pdu + b"\n"
    known = _WHAT2ACT.get(what)
    if known is None:
        return f"Unknown action {what:x}\n".encode()
    names, printer = known
    return (log_action(names[verbose]) + printer(t, comm)).encode()


def blk_binary(payload: bytes, ts: int) -> bytes:
    """blk_trace_synthesize_old_trace(): magic, sequence 0 and the time stamp, then the rest of
    the record from its sector on."""
    pdu_len = struct.unpack_from("<H", payload, BLK_IO_TRACE_SIZE - 2)[0]
    head = struct.pack("<IIQ", BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION, 0, ts)
    return head + bytes(payload[_SECTOR_OFFSET:BLK_IO_TRACE_SIZE + pdu_len])


CLASSIC_HEADER = ("# DEV   CPU TIMESTAMP     PID ACT FLG\n"
                  "#  |     |     |           |   |   |\n")
