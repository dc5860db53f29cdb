"""The text of the trace files around the records: the header block `trace` starts with, the
latency header and its help, and per-CPU `stats` (trace.c).  The records' own lines are
trace_output's."""

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
