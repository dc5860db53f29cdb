"""A trace array's records as text (kernel/trace/trace_output.c): print_trace_line() for the
options as they are now -- the default line (made in C by _lines, from this module's caches),
the latency format, raw, hex and bin -- and the context columns they start with.
(function_graph's lines are graph_output's.)

TraceOutput keeps what lasts from read to read: the context prefixes and the event texts
already made, while the saved comms and the options they depend on stay the same.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from . import _lines
from .blk_output import TRACE_BLK, blk_binary, blk_line
from .cmdlines import SavedCmdlines
from .events import TRACE_PRINT, EventRegistry, TraceEvent, print_message
from .ftrace_records import TRACE_FUNC_REPEATS, TRACE_USER_STACK, FtraceRecordDesc, SymFlags, UserVmas, \
    UserVmasOf, repeats_line, user_stack_text
from .options import TraceOptions
from .probe_args import Symbolizer
from .records import ENTRY_HEADER
from ._entry import Entry

_NSEC_PER_USEC = 1000

# line(cpu, entry, time stamp of the next record, index of the record) -> its text
LinePrinter = Callable[[int, Entry, int, int], bytes]


class TraceOutput:
    """The printers of one trace array, and their caches."""

    def __init__(self, nr_cpus: int, options: TraceOptions, registry: EventRegistry, cmdlines: SavedCmdlines,
                 symbolize: Symbolizer, irq_text: tuple[int, int] | None, user_vmas: UserVmasOf | None = None):
        """symbolize(addr) -> (name, off, size): kallsyms_lookup(); irq_text: the kernel's irq
        entry text [start, end), if it has one (function_graph marks it)."""
        self.nr_cpus = nr_cpus
        self.options = options
        self.registry = registry
        self.cmdlines = cmdlines
        self.symbolize = symbolize
        self.irq_text = irq_text
        self.user_vmas = user_vmas   # a task's mappings, for sym-userobj
        # (what they depend on, {(pid, cpu, flags, preempt): context prefix}) of the last read
        self._prefixes: tuple[tuple[object, ...], dict[int, bytes]] = ((), {})
        # (the options event texts depend on, {event id: (event, {fields: text})}, bytes held)
        self._texts: tuple[tuple[object, ...], dict[int, tuple[TraceEvent, dict[bytes, bytes]]], list[int]] = \
            ((), {}, [0])

    def line_printer(self, in_ns: bool, time_start: int, latency: bool | None = None) -> LinePrinter:
        """A line printer for the options as they are now (print_trace_line):
        line(cpu, entry, time stamp of the next record, index of the record).  in_ns: the
        trace clock counts ns; time_start: its value when the buffers were last reset;
        latency: the latency format whatever the option (TRACE_FILE_LAT_FMT, as ftrace_dump's)."""
        line = self.record_printer(in_ns, time_start, latency)
        if self.options["printk-msg-only"] and self.options["trace_printk"]:
            return _message_only(line)
        return line

    def record_printer(self, in_ns: bool, time_start: int, latency: bool | None = None) -> LinePrinter:
        """line_printer() past what print_trace_line() decides before the record's own format
        (a tracer's print_line, such as function_graph's, comes before those decisions)."""
        o = self.options
        opts = LineOptions(
            context_info=o["context-info"], irq_info=o["irq-info"], record_tgid=o["record-tgid"],
            verbose=o["verbose"], raw=o["raw"], hex=o["hex"], bin=o["bin"],
            sym_offset=o["sym-offset"], sym_addr=o["sym-addr"])
        by_id = self.registry.by_id
        cmdlines = self.cmdlines
        symbolize = self.symbolize
        latency = o["latency-format"] if latency is None else latency
        hash_pointer = None if o["hash-ptr"] else _address_itself
        verbose = opts.verbose
        sym_flags = SymFlags(print_parent=o["print-parent"], sym_offset=o["sym-offset"], sym_addr=o["sym-addr"],
                             sym_userobj=o["sym-userobj"])
        # the tasks' mappings, looked up once a read (each lookup stops the machine)
        vmas_seen: dict[int, UserVmas | None] = {}

        def user_vmas(tgid: int) -> UserVmas | None:
            if tgid not in vmas_seen:
                vmas_seen[tgid] = None if self.user_vmas is None else self.user_vmas(tgid)
            return vmas_seen[tgid]
        # What an event's text depends on besides the record.
        body_key = (verbose, hash_pointer is None, sym_flags)
        blk_cgname = o.get("blk_cgname")

        def blk_body(entry: Entry) -> bytes:
            """blk_trace_event_print(): a TRACE_BLK record (never kept: it names the task's comm)"""
            return blk_line(entry.payload, lambda pid: cmdlines.find(pid).decode("latin-1"), verbose, blk_cgname)

        # Context prefixes, kept from read to read while the saved comms and tgids and the
        # options shaping them stay the same (trace_pipe formats a page at a time).
        prefix_key = (cmdlines.generation, opts.irq_info, opts.record_tgid)
        if self._prefixes[0] != prefix_key:
            self._prefixes = (prefix_key, {})
        # keyed by _prefix_key(pid, cpu, flags, preempt), as _lines.DefaultLine looks them up
        prefixes: dict[int, bytes] = self._prefixes[1]
        # Event texts by record content, kept from read to read while the options they depend
        # on stay the same: an event's text is a function of its fields alone (no print fmt
        # reads the common ones), and traces repeat themselves (the same syscall, the same
        # switch, the same function and parent), so most lines find theirs here, and reading
        # `trace` again evaluates no print fmt again.
        if self._texts[0] != body_key:
            self._texts = (body_key, {}, [0])
        texts: dict[int, tuple[TraceEvent, dict[bytes, bytes]]] = self._texts[1]
        kept = self._texts[2]
        # A removed dynamic event's id is not given back (until ids run out), so its texts,
        # and the event they hold, would stay here for good: forget them with the event.
        for event_id in [i for i, (event, _) in texts.items() if by_id(i) is not event]:
            kept[0] -= sum(map(_text_cost, texts.pop(event_id)[1].items()))

        def body(event: TraceEvent, entry: Entry) -> bytes:
            payload = entry.payload
            if event.id == TRACE_FUNC_REPEATS:
                # the one text that depends on the record's time stamp too: never kept
                return repeats_line(payload, entry.ts, in_ns, symbolize, sym_flags)
            if event.id == TRACE_USER_STACK and sym_flags.sym_userobj:
                # names the task's mappings as they are now: never kept
                return user_stack_text(payload, user_vmas, sym_flags)
            known = texts.get(event.id)
            if known is None or known[0] is not event:   # a dynamic event's id may be reused
                known = texts[event.id] = (event, {})
            fields = payload[ENTRY_HEADER.size:]
            text = known[1].get(fields)
            if text is None:
                if event.ftrace and event.id != TRACE_PRINT:
                    # function and stack records follow the sym-* and print-parent options
                    text = cast(FtraceRecordDesc, event.desc).line(payload, symbolize, sym_flags)
                else:
                    text = event.body(payload, verbose, symbolize, hash_pointer, sym_flags)
                if kept[0] >= _TEXTS_BUDGET:
                    for _, event_texts in texts.values():
                        event_texts.clear()
                    kept[0] = 0
                known[1][fields] = text
                kept[0] += _text_cost((fields, text))
            return text

        if opts.context_info and not (latency or opts.bin or opts.hex or opts.raw):
            # The default line, by far the most read: made in C from the two caches; this
            # Python printer makes (and caches) what they lack.
            record_tgid = opts.record_tgid
            unpack_header = ENTRY_HEADER.unpack_from
            # trace_print_time(): ns clocks print seconds.micros rounded to the microsecond
            stamp = b"%s %5d.%06d: %s" if in_ns else b"%s %12d: %s"

            def default_line(cpu: int, entry: Entry, next_ts: int, idx: int) -> bytes:
                event_type, flags, preempt, pid = unpack_header(entry.payload, 0)
                key = _prefix_key(pid, cpu, flags, preempt)
                prefix = prefixes.get(key)
                if prefix is None:
                    tgid = cmdlines.find_tgid(pid) if record_tgid else None
                    prefix = prefixes[key] = context_prefix(cmdlines.find(pid), pid, tgid, cpu, flags,
                                                                   preempt, opts)
                event = by_id(event_type)
                if event_type == TRACE_BLK:
                    text = blk_body(entry)
                else:
                    text = b"Unknown type %d\n" % event_type if event is None else body(event, entry)
                if in_ns:
                    return stamp % (prefix, *divmod((entry.ts + 500) // 1000, 1_000_000), text)
                return stamp % (prefix, entry.ts, text)

            return _lines.DefaultLine(prefixes, texts, in_ns, default_line)

        def line(cpu: int, entry: Entry, next_ts: int, idx: int) -> bytes:
            event_type, flags, preempt, pid = ENTRY_HEADER.unpack_from(entry.payload, 0)
            event = by_id(event_type)
            blk = event_type == TRACE_BLK   # trace_blk_event: its own trace and binary printers
            if opts.bin and blk:
                head = struct.pack("<iiQ", pid, cpu, entry.ts) if opts.context_info else b""
                return head + blk_binary(entry.payload, entry.ts)
            if blk and (opts.hex or opts.raw):   # trace_nop_print
                head = b""
                if opts.context_info:
                    head = (hex_field(pid, 4) + hex_field(cpu, 4) + hex_field(entry.ts, 8) if opts.hex
                            else b"%d %d %d " % (pid, cpu, entry.ts))
                return head + b"type: %d\n" % event_type + (b"\n" if opts.hex else b"")
            # bin and hex have no per-event printer here: trace_nop_print's `type: N` follows.
            if opts.bin:
                head = struct.pack("<iiQ", pid, cpu, entry.ts) if opts.context_info else b""
                return head + (b"type: %d\n" % event_type if event else b"")
            if opts.hex:
                head = (hex_field(pid, 4) + hex_field(cpu, 4) + hex_field(entry.ts, 8)
                        if opts.context_info else b"")
                return head + (b"type: %d\n" % event_type if event else b"") + b"\n"
            if opts.raw:
                head = b"%d %d %d " % (pid, cpu, entry.ts) if opts.context_info else b""
                return head + (event.raw_body(entry.payload) if event else b"%d ?\n" % event_type)
            head = b""
            if opts.context_info:   # and latency: the default line has its own path
                head = lat_context(cmdlines.find(pid), pid, cpu, flags, preempt, entry.ts, next_ts,
                                          time_start, idx, in_ns, opts.verbose)
            if blk:
                return head + blk_body(entry)
            if event is None:
                return head + b"Unknown type %d\n" % event_type
            return head + body(event, entry)

        return line


def _message_only(line: LinePrinter) -> LinePrinter:
    """printk-msg-only: a trace_marker record is its text alone (trace_print_printk_msg_only())."""
    def message_only(cpu: int, entry: Entry, next_ts: int, idx: int) -> bytes:
        if ENTRY_HEADER.unpack_from(entry.payload, 0)[0] == TRACE_PRINT:
            return print_message(entry.payload)
        return line(cpu, entry, next_ts, idx)
    return message_only


# ---- the context columns (trace_print_context, trace_print_lat_context) ----

_USEC_PER_MSEC = 1000


@dataclass(frozen=True)
class LineOptions:
    """The trace_flags that shape a record line."""

    context_info: bool = True
    irq_info: bool = True
    record_tgid: bool = False
    verbose: bool = False
    raw: bool = False
    hex: bool = False
    bin: bool = False
    sym_offset: bool = False
    sym_addr: bool = False


def lat_flags(flags: int, preempt_count: int) -> str:
    """The five flag characters (trace_print_lat_fmt)."""
    nmi, hardirq, softirq, bh_off = flags & 0x40, flags & 0x08, flags & 0x10, flags & 0x80
    irqs_off = flags & 0x01
    irq_char = ("D" if irqs_off and bh_off else "d" if irqs_off else "b" if bh_off
                else "X" if flags & 0x02 else ".")
    resched = {0x04 | 0x20: "N", 0x04: "n", 0x20: "p"}.get(flags & (0x04 | 0x20), ".")
    hardsoft = ("Z" if nmi and hardirq else "z" if nmi else "H" if hardirq and softirq
                else "h" if hardirq else "s" if softirq else ".")
    depth = f"{preempt_count & 0xf:x}" if preempt_count & 0xf else "."
    migrate = f"{preempt_count >> 4:x}" if preempt_count & 0xf0 else "."
    return irq_char + resched + hardsoft + depth + migrate


def context_prefix(comm: bytes, pid: int, tgid: int | None, cpu: int, flags: int, preempt: int,
                   opts: LineOptions) -> bytes:
    """trace_print_context() up to the time stamp: `            comm-pid     [cpu] flags`; the
    line goes on with the time stamp (trace_print_time(): ` %5lu.%06lu` of ns clocks, rounded
    to the microsecond, ` %12llu` of counters) and ": "."""
    text = b"%16s-%-7d " % (comm, pid)
    if opts.record_tgid:
        text += b"(%7d) " % tgid if tgid else b"(-------) "
    text += b"[%03d] " % cpu
    if opts.irq_info:
        text += lat_flags(flags, preempt).encode()
    return text


def hex_field(value: int, size: int) -> bytes:
    """SEQ_PUT_HEX_FIELD: the value's bytes as hex, most significant first, then a space."""
    return b"%0*x " % (2 * size, value & ((1 << (8 * size)) - 1))


# trace_find_mark(): the delay to the next record, as a mark (ns thresholds).
_MARKS = ((1_000_000_000, "$"), (100_000_000, "@"), (10_000_000, "*"), (1_000_000, "#"),
          (100_000, "!"), (10_000, "+"))


def find_mark(delta_ns: int) -> str:
    for threshold, symbol in _MARKS:
        if delta_ns > threshold:
            return symbol
    return " "


def _ns2usecs(ns: int) -> int:
    return (ns + _NSEC_PER_USEC // 2) // _NSEC_PER_USEC


def lat_context(comm: bytes, pid: int, cpu: int, flags: int, preempt: int, ts: int, next_ts: int,
                time_start: int, idx: int, in_ns: bool, verbose: bool) -> bytes:
    """trace_print_lat_context(): the latency-format prefix of a record line."""
    if verbose:
        head = b"%16s %7d %3d %d %08x %08x " % (comm, pid, cpu, flags, preempt & 0xF, idx)
    else:
        head = b"%8.8s-%-7d %3d" % (comm, pid, cpu) + lat_flags(flags, preempt).encode()
    abs_ts, rel_ts = ts - time_start, next_ts - ts
    if in_ns:
        abs_ts, rel_ts = _ns2usecs(abs_ts), _ns2usecs(rel_ts)
        if verbose:
            return head + b"[%08x] %d.%03dms (+%d.%03dms): " % (
                _ns2usecs(ts), abs_ts // _USEC_PER_MSEC, abs_ts % _USEC_PER_MSEC,
                rel_ts // _USEC_PER_MSEC, rel_ts % _USEC_PER_MSEC)
        return head + b" %4dus%s: " % (abs_ts, find_mark(rel_ts * _NSEC_PER_USEC).encode())
    if verbose:
        return head + b"[%016x] %d (+%d): " % (ts, abs_ts, rel_ts)
    return head + b" %4d: " % abs_ts




def _prefix_key(pid: int, cpu: int, flags: int, preempt: int) -> int:
    """The context prefix cache's key (one int: no tuple made per record)."""
    return (pid & 0xFFFFFFFF) << 32 | cpu << 16 | flags << 8 | preempt


# The bytes an array's cached event texts (by record content, all event types together) may
# hold before that cache starts afresh. A budget in bytes, not a count: a function trace of
# every function has a few thousand short distinct texts, while texts that never repeat
# (trace_marker lines, strings a kprobe fetched) are long, and 8192 of those held ~3 MB.
_TEXTS_BUDGET = 1 << 20
# What one cached text costs besides its key's and its text's bytes: two bytes objects'
# headers (sys.getsizeof(b"") is 33) and a dict slot.
_TEXT_OVERHEAD = 100


def _text_cost(item: tuple[bytes, bytes]) -> int:
    fields, text = item
    return len(fields) + len(text) + _TEXT_OVERHEAD


def _address_itself(addr: int) -> int:
    """hash-ptr off: %p prints the address as %px does."""
    return addr
