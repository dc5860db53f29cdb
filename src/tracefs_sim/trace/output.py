"""Text of the trace files: the `trace` header block and per-CPU `stats` (trace.c, trace_output.c)."""

from dataclasses import dataclass

from .ring_buffer import CpuBuffer

_NSEC_PER_USEC = 1000
_USEC_PER_SEC = 1_000_000


@dataclass(frozen=True)
class OutputFlags:
    """The trace_options bits that shape the header; defaults are Linux's at boot."""

    context_info: bool = True
    verbose: bool = False
    irq_info: bool = True
    record_tgid: bool = False
    latency_format: bool = False


@dataclass(frozen=True)
class KernelIdentity:
    """What the latency header says of the traced kernel."""

    release: str            # UTS_RELEASE, e.g. 6.1.0-tracefs-sim
    preempt_model: str      # server, desktop, preempt or preempt_rt


def trace_header(tracer_name: str, entries: int, written: int, nr_cpus: int, flags: OutputFlags,
                 kernel: KernelIdentity | None = None) -> str:
    """The comment block `trace` and `per_cpu/cpuN/trace` start with (s_show, trace_default_header).

    entries: records in the buffers; written: records ever written (entries + overruns).
    """
    text = f"# tracer: {tracer_name}\n#\n"
    if not flags.context_info:
        return text
    if flags.latency_format:
        if entries == 0 or kernel is None:    # nothing at all while the buffers are empty
            return text
        text += latency_header(tracer_name, entries, written, nr_cpus, kernel)
        return text if flags.verbose else text + LAT_HELP
    if flags.verbose:
        return text
    text += f"# entries-in-buffer/entries-written: {entries}/{written}   #P:{nr_cpus}\n#\n"
    if flags.irq_info:
        return text + _irq_info_legend(flags.record_tgid)
    tgid = flags.record_tgid
    return text + (
        f"#           TASK-PID    {'   TGID   ' if tgid else ''} CPU#     TIMESTAMP  FUNCTION\n"
        f"#              | |      {'     |    ' if tgid else ''}   |         |         |\n"
    )


def latency_header(tracer_name: str, entries: int, written: int, nr_cpus: int, kernel: KernelIdentity) -> str:
    """print_trace_header(): the nop tracer has no latency, task or critical section to show."""
    return (
        f"# {tracer_name} latency trace v1.1.5 on {kernel.release}\n"
        "# --------------------------------------------------------------------\n"
        f"# latency: 0 us, #{entries}/{written}, CPU#0 | (M:{kernel.preempt_model} VP:0, KP:0, SP:0 HP:0"
        f" #P:{nr_cpus})\n"
        "#    -----------------\n"
        "#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n"
        "#    -----------------\n"
        "#\n"
    )


LAT_HELP = (
    "#                    _------=> CPU#            \n"
    "#                   / _-----=> irqs-off/BH-disabled\n"
    "#                  | / _----=> need-resched    \n"
    "#                  || / _---=> hardirq/softirq \n"
    "#                  ||| / _--=> preempt-depth   \n"
    "#                  |||| / _-=> migrate-disable \n"
    "#                  ||||| /     delay           \n"
    "#  cmd     pid     |||||| time  |   caller     \n"
    "#     \\   /        ||||||  \\    |    /       \n"
)


def _irq_info_legend(record_tgid: bool) -> str:
    pad = " " * (12 if record_tgid else 2)
    tgid_head = "     TGID   " if record_tgid else "  "
    tgid_bar = "       |    " if record_tgid else "  "
    return (
        f"#                            {pad}  _-----=> irqs-off/BH-disabled\n"
        f"#                            {pad} / _----=> need-resched\n"
        f"#                            {pad}| / _---=> hardirq/softirq\n"
        f"#                            {pad}|| / _--=> preempt-depth\n"
        f"#                            {pad}||| / _-=> migrate-disable\n"
        f"#                            {pad}|||| /     delay\n"
        f"#           TASK-PID  {tgid_head} CPU#  |||||  TIMESTAMP  FUNCTION\n"
        f"#              | |    {tgid_bar}   |   |||||     |         |\n"
    )


def format_clock_value(value: int, in_ns: bool) -> str:
    """A clock reading as stats shows it: seconds.micros for ns clocks, raw counts otherwise."""
    if not in_ns:
        return str(value)
    usecs = (value + _NSEC_PER_USEC // 2) // _NSEC_PER_USEC  # ns2usecs rounds to nearest
    return f"{usecs // _USEC_PER_SEC:5d}.{usecs % _USEC_PER_SEC:06d}"


def stats_text(buffer: CpuBuffer, now: int, clock_in_ns: bool) -> str:
    """The text of per_cpu/cpuN/stats (tracing_stats_read)."""
    return (
        f"entries: {buffer.entries}\n"
        f"overrun: {buffer.overrun}\n"
        f"commit overrun: {buffer.commit_overrun}\n"
        f"bytes: {buffer.bytes}\n"
        f"oldest event ts: {format_clock_value(buffer.oldest_event_ts, clock_in_ns)}\n"
        f"now ts: {format_clock_value(now, clock_in_ns)}\n"
        f"dropped events: {buffer.dropped_events}\n"
        f"read events: {buffer.read_events}\n"
    )


# ---- record lines (print_trace_line and the context printers of trace_output.c) ----

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


def _hex_field(value: int, size: int) -> bytes:
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
