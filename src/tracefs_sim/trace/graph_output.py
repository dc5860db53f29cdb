"""The function_graph tracer's output (trace_functions_graph.c): its header, and the lines of
its entry/return records with nesting, leaf merging (`func();`, by peeking at the next record
of the same CPU), durations with their overhead marks, CPU/task columns, task-switch
separators, and other events as `/* ... */` comments.
"""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .ftrace_records import GRAPH_ENT_RECORD, GRAPH_RET_RECORD, TRACE_FN, TRACE_GRAPH_ENT, TRACE_GRAPH_RET, \
    TRACE_STACK
from .events import TRACE_PRINT
from .ftrace_records import SymFlags
from .options import TraceOptions
from .records import ENTRY_HEADER
from .ring_buffer import Entry, RingBuffer
from .trace_output import TraceOutput, find_mark, lat_flags

TRACE_GRAPH_INDENT = 2
FTRACE_RETFUNC_DEPTH = 50
_PROCINFO_LENGTH = 14
_SEPARATOR = b" ------------------------------------------\n"


@dataclass(frozen=True)
class GraphFlags:
    """The function_graph tracer's options and the trace_flags its output looks at."""

    overrun: bool = False
    cpu: bool = True
    overhead: bool = True
    proc: bool = False
    duration: bool = True
    abstime: bool = False
    irqs: bool = True
    tail: bool = False
    context_info: bool = True
    latency_format: bool = False

    @classmethod
    def from_options(cls, options: TraceOptions) -> "GraphFlags":
        return cls(overrun=options["funcgraph-overrun"], cpu=options["funcgraph-cpu"],
                   overhead=options["funcgraph-overhead"], proc=options["funcgraph-proc"],
                   duration=options["funcgraph-duration"], abstime=options["funcgraph-abstime"],
                   irqs=options["funcgraph-irqs"], tail=options["funcgraph-tail"],
                   context_info=options["context-info"], latency_format=options["latency-format"])


def graph_header(flags: GraphFlags) -> str:
    """__print_graph_headers_flags(); nothing without context-info."""
    if not flags.context_info:
        return ""
    text = ""
    if flags.latency_format:
        size = 16 * flags.abstime + 4 * flags.cpu + 17 * flags.proc
        pad = " " * size
        text += (f"#{pad}  _-----=> irqs-off        \n"
                 f"#{pad} / _----=> need-resched    \n"
                 f"#{pad}| / _---=> hardirq/softirq \n"
                 f"#{pad}|| / _--=> preempt-depth   \n"
                 f"#{pad}||| /                      \n")
    first = "#" + ("     TIME       " if flags.abstime else "") + (" CPU" if flags.cpu else "")
    first += ("  TASK/PID       " if flags.proc else "") + ("||||   " if flags.latency_format else "")
    first += ("  DURATION   " if flags.duration else "") + "               FUNCTION CALLS\n"
    second = "#" + ("      |         " if flags.abstime else "") + (" |  " if flags.cpu else "")
    second += ("   |    |        " if flags.proc else "") + ("||||   " if flags.latency_format else "")
    second += ("   |   |      " if flags.duration else "") + "               |   |   |   |\n"
    return text + first + second


def format_duration(duration_ns: int) -> bytes:
    """trace_print_graph_duration(): usecs with up to 3 decimals, 7 digits at most, padded."""
    usecs, nsecs = divmod(duration_ns, 1000)
    text = b"%d" % usecs
    length = len(text)
    if length < 7:
        decimals = (b"%03d" % nsecs)[:min(4, 7 - length)]
        text += b"." + decimals
        length += len(decimals) + 1
    return text + b" us " + b" " * max(0, 8 - length)


@dataclass
class _CpuState:
    """fgraph_cpu_data: what the printer remembers of each CPU between lines."""

    last_pid: int = -1
    depth: int = 0
    depth_irq: int = -1
    enter_funcs: dict[int, int] = field(default_factory=dict)


class GraphPrinter:
    def __init__(self, nr_cpus: int, flags: GraphFlags, *, find_comm: Callable[[int], bytes],
                 symbol: Callable[[int], bytes], other_line: Callable[[int, Entry], bytes],
                 comment: Callable[[Entry], bytes | None], irq_text: tuple[int, int] | None = None):
        """find_comm(pid): the saved comm; symbol(addr): %ps of an address; other_line(cpu,
        entry): the ordinary line of a record the graph printer leaves alone (function, stack);
        comment(entry): an event's text (None: unknown type); irq_text: [start, end) of the
        kernel's __irqentry_text section, None when it has none."""
        self._flags = flags
        self._find_comm = find_comm
        self._symbol = symbol
        self._other_line = other_line
        self._comment = comment
        self._irq_text = irq_text
        self._cpu_width = len(str(max(nr_cpus - 1, 0)))
        self._cpus = [_CpuState() for _ in range(nr_cpus)]

    def line(self, cpu: int, entry: Entry, peek: Callable[[], Entry | None]) -> tuple[bytes, bool]:
        """The text of one record (print_graph_function_flags); peek() gives the next record
        of the same CPU. Returns (text, whether that next record was used up as well)."""
        event_type, _, _, pid = ENTRY_HEADER.unpack_from(entry.payload, 0)
        size = len(entry.payload)
        if event_type == TRACE_GRAPH_ENT:
            return (self._entry(cpu, pid, entry, peek) if size >= GRAPH_ENT_RECORD.size else (b"", False))
        if event_type == TRACE_GRAPH_RET:
            return (self._return(cpu, pid, entry) if size >= GRAPH_RET_RECORD.size else b""), False
        if event_type in (TRACE_FN, TRACE_STACK):
            return self._other_line(cpu, entry), False
        body = self._comment(entry)
        if body is None:
            return self._other_line(cpu, entry), False
        return self._comment_line(cpu, pid, entry, body), False

    # the pieces of a line
    def _cpu_column(self, cpu: int) -> bytes:
        return b" %*d) " % (self._cpu_width, cpu)

    def _proc(self, pid: int) -> bytes:
        comm = self._find_comm(pid)[:7]
        text = b"%s-%d" % (comm, pid)
        spaces = max(0, _PROCINFO_LENGTH - len(text))
        return b" " * (spaces // 2) + text + b" " * (spaces - spaces // 2)

    def _context(self, cpu: int, entry: Entry) -> bytes:
        """The columns before the duration: abstime, CPU, task, latency flags."""
        flags = self._flags
        if not flags.context_info:
            return b""
        text = b""
        if flags.abstime:
            secs, ns = divmod(entry.ts, 1_000_000_000)
            text += b"%5d.%06d |  " % (secs, ns // 1000)
        if flags.cpu:
            text += self._cpu_column(cpu)
        if flags.proc:
            text += self._proc(ENTRY_HEADER.unpack_from(entry.payload, 0)[3]) + b" | "
        if flags.latency_format:
            _, irq_flags, preempt, _ = ENTRY_HEADER.unpack_from(entry.payload, 0)
            text += b" " + lat_flags(irq_flags, preempt).encode() + b" | "
        return text

    def _duration(self, duration: int) -> bytes:
        if not (self._flags.duration and self._flags.context_info):
            return b""
        mark = find_mark(duration).encode() if self._flags.overhead else b" "
        return mark + b" " + format_duration(duration) + b"|  "

    def _fill(self, text: bytes) -> bytes:
        return text if self._flags.duration and self._flags.context_info else b""

    def _prologue(self, cpu: int, pid: int, entry: Entry, irq_func: int | None = None) -> bytes:
        """print_graph_prologue(): the task-switch separator when this CPU's task changed,
        the irq arrow when entering irq code, then the context columns."""
        state = self._cpus[cpu]
        text = b""
        if state.last_pid != pid:
            previous, state.last_pid = state.last_pid, pid
            if previous != -1:
                text += (_SEPARATOR + self._cpu_column(cpu) + self._proc(previous) + b" => " + self._proc(pid)
                         + b"\n" + _SEPARATOR + b"\n")
        if irq_func is not None:
            text += self._irq_arrow(cpu, entry, irq_func, b"==========>")
        return text + self._context(cpu, entry)

    def _in_irq_text(self, addr: int) -> bool:
        return self._irq_text is not None and self._irq_text[0] <= addr < self._irq_text[1]

    def _irq_arrow(self, cpu: int, entry: Entry, addr: int, arrow: bytes) -> bytes:
        """print_graph_irq(): a line marking entry to / return from irq code."""
        if not self._in_irq_text(addr):
            return b""
        return self._context(cpu, entry) + self._fill(b"  ") + arrow + self._fill(b" |") + b"\n"

    def _skip_irq_entry(self, cpu: int, func: int, depth: int) -> bool:
        """check_irq_entry(): without funcgraph-irqs, irq code is not shown."""
        if self._flags.irqs:
            return False
        state = self._cpus[cpu]
        if state.depth_irq >= 0:
            return True
        if not self._in_irq_text(func):
            return False
        state.depth_irq = depth
        return True

    def _skip_irq_return(self, cpu: int, depth: int) -> bool:
        if self._flags.irqs:
            return False
        state = self._cpus[cpu]
        if state.depth_irq == -1:
            return False
        if state.depth_irq >= depth:
            state.depth_irq = -1
        return True

    # the records
    def _entry(self, cpu: int, pid: int, entry: Entry, peek: Callable[[], Entry | None]) -> tuple[bytes, bool]:
        _, _, _, _, func, depth = GRAPH_ENT_RECORD.unpack_from(entry.payload, 0)
        if self._skip_irq_entry(cpu, func, depth):
            return b"", False
        text = self._prologue(cpu, pid, entry, irq_func=func)
        state = self._cpus[cpu]
        following = peek()
        leaf = None
        if following is not None and len(following.payload) >= GRAPH_RET_RECORD.size:
            ret = GRAPH_RET_RECORD.unpack_from(following.payload, 0)
            if ret[0] == TRACE_GRAPH_RET and ret[3] == pid and ret[4] == func:
                leaf = ret
        indent = b" " * (depth * TRACE_GRAPH_INDENT)
        if leaf is None or following is None:
            state.depth = depth
            if 0 <= depth < FTRACE_RETFUNC_DEPTH:
                state.enter_funcs[depth] = func
            return text + self._fill(b"              |  ") + indent + self._symbol(func) + b"() {\n", False
        state.depth = depth - 1
        if 0 <= depth < FTRACE_RETFUNC_DEPTH:
            state.enter_funcs[depth] = 0
        calltime, rettime = leaf[7], leaf[8]
        text += self._duration(rettime - calltime) + indent + self._symbol(func) + b"();\n"
        text += self._irq_arrow(cpu, following, func, b"<==========")
        return text, True

    def _return(self, cpu: int, pid: int, entry: Entry) -> bytes:
        _, _, _, _, func, depth, overrun, calltime, rettime = GRAPH_RET_RECORD.unpack_from(entry.payload, 0)
        if self._skip_irq_return(cpu, depth):
            return b""
        state = self._cpus[cpu]
        state.depth = depth - 1
        func_match = True
        if 0 <= depth < FTRACE_RETFUNC_DEPTH:
            func_match = state.enter_funcs.get(depth, 0) == func
            state.enter_funcs[depth] = 0
        text: bytes = self._prologue(cpu, pid, entry)
        text += self._duration(rettime - calltime) + b" " * (depth * TRACE_GRAPH_INDENT)
        if func_match and not self._flags.tail:
            text += b"}\n"
        else:
            text += b"} /* " + self._symbol(func) + b" */\n"
        if self._flags.overrun:
            text += b" (Overruns: %d)\n" % overrun
        return text + self._irq_arrow(cpu, entry, func, b"<==========")

    def _comment_line(self, cpu: int, pid: int, entry: Entry, body: bytes) -> bytes:
        """print_graph_comment(): another event, indented one level below the current depth."""
        depth = self._cpus[cpu].depth
        text = self._prologue(cpu, pid, entry) + self._fill(b"              |  ")
        if depth > 0:
            text += b" " * ((depth + 1) * TRACE_GRAPH_INDENT)
        if body.endswith(b"\n"):
            body = body[:-1]
        return text + b"/* " + body + b" */\n"


def render(printer: GraphPrinter, streams: Iterable[tuple[int, Iterator[Entry]]],
           max_bytes: int | None = None) -> tuple[list[bytes], dict[int, int]]:
    """Print the records of several CPUs in time order (then CPU order), each record's next
    one on its CPU peekable. Stops once max_bytes of text are produced (None: all). Returns
    the texts and how many records of each CPU were used."""
    iterators = {}
    heads: dict[int, Entry | None] = {}
    taken: dict[int, int] = {}
    for cpu, records in streams:
        iterators[cpu] = records
        heads[cpu] = next(records, None)
        taken[cpu] = 0
    out: list[bytes] = []
    size = 0
    while max_bytes is None or size < max_bytes:
        live = [(entry.ts, cpu) for cpu, entry in heads.items() if entry is not None]
        if not live:
            break
        _, cpu = min(live)
        entry = heads[cpu]
        assert entry is not None  # (a live one)
        heads[cpu] = next(iterators[cpu], None)
        taken[cpu] += 1
        text, used_next = printer.line(cpu, entry, lambda: heads[cpu])
        if used_next:
            heads[cpu] = next(iterators[cpu], None)
            taken[cpu] += 1
        if text:
            out.append(text)
            size += len(text)
    return out, taken


class GraphPipes:
    """function_graph's trace_pipe readers of one trace array (all CPUs: None, or one CPU):
    each one's printer state, and the lines made but not yet read."""

    def __init__(self) -> None:
        self._readers: dict[int | None, tuple[GraphPrinter, list[bytes]]] = {}

    def consume(self, buffer: RingBuffer, cpu: int | None, max_bytes: int,
                make_printer: Callable[[], GraphPrinter]) -> bytes:
        """Take records as they are printed (the caller holds the buffer's lock); text made
        beyond max_bytes waits for the next read."""
        if cpu not in self._readers:
            self._readers[cpu] = (make_printer(), [])
        printer, carry = self._readers[cpu]
        if not carry:
            cpus = range(buffer.nr_cpus) if cpu is None else (cpu,)
            texts, taken = render(printer, ((c, iter(buffer.cpu(c))) for c in cpus), max_bytes)
            for c, count in taken.items():
                if count:
                    buffer.cpu(c).consume(count)
            carry.extend(line for text in texts for line in text.splitlines(keepends=True))
        size = 0
        taken_lines = 0
        while taken_lines < len(carry) and (not taken_lines or size + len(carry[taken_lines]) <= max_bytes):
            size += len(carry[taken_lines])
            taken_lines += 1
        out = carry[:taken_lines]
        del carry[:taken_lines]
        return b"".join(out)


def graph_printer(output: TraceOutput, in_ns: bool, time_start: int) -> GraphPrinter:
    """A function_graph printer for the options as they are now, with fresh per-CPU state (each
    open file has its own in Linux); output: the array's printers, for the other records."""
    flags = GraphFlags.from_options(output.options)
    lines = output.record_printer(in_ns, time_start)
    registry = output.registry
    symbolize = output.symbolize

    def symbol(addr: int) -> bytes:
        found = symbolize(addr)
        return found[0].encode() if found is not None else b"0x%x" % addr

    def comment(entry: Entry) -> bytes | None:
        event_type = ENTRY_HEADER.unpack_from(entry.payload, 0)[0]
        event = registry.by_id(event_type)
        if event is None:
            return None
        if event.id == TRACE_PRINT:   # trace_print_printk_msg_only: the message alone
            return bytes(entry.payload[16:]).split(b"\0", 1)[0]
        o = output.options
        return event.body(entry.payload, o["verbose"], symbolize, None,
                          SymFlags(sym_offset=o["sym-offset"], sym_addr=o["sym-addr"]))

    return GraphPrinter(
        output.nr_cpus, flags, find_comm=output.cmdlines.find, symbol=symbol,
        other_line=lambda cpu, entry: lines(cpu, entry, entry.ts, 0), comment=comment,
        irq_text=output.irq_text)
