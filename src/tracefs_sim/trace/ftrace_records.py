"""ftrace's own record types written by the function tracers and the stacktrace options
(trace_entries.h): their ids, layouts and `format` files, and the text 6.1 prints for them
(trace_fn_trace, trace_stack_print, trace_user_stack_print in trace_output.c).
"""

import struct
from collections.abc import Callable
from dataclasses import dataclass

from .fields import RecordField
from .print_fmt import Symbolizer
from .records import Payload

# enum trace_type in trace.h
TRACE_FN = 1
TRACE_STACK = 4
TRACE_GRAPH_RET = 10
TRACE_GRAPH_ENT = 11
TRACE_USER_STACK = 12
TRACE_RAW_DATA = 18
TRACE_FUNC_REPEATS = 19

FN_RECORD = struct.Struct("<HBBiQQ")            # ip, parent_ip
STACK_HEAD = struct.Struct("<HBBii4x")          # size, then caller[] at 16
USER_STACK_RECORD = struct.Struct("<HBBiI4x8Q")  # tgid, caller[FTRACE_STACK_ENTRIES]
GRAPH_ENT_RECORD = struct.Struct("<HBBiQi")     # func, depth (FTRACE_ENTRY_PACKED: 20 bytes)
GRAPH_RET_RECORD = struct.Struct("<HBBiQiIQQ")  # func, depth, overrun, calltime, rettime
FUNC_REPEATS_RECORD = struct.Struct("<HBBiQQHHI")  # ip, parent_ip, count, top/bottom of the delta
_ULONG_MAX = (1 << 64) - 1
_U64 = _ULONG_MAX


@dataclass(frozen=True)
class SymFlags:
    """The trace_flags seq_print_ip_sym() looks at."""

    print_parent: bool = True
    sym_offset: bool = False
    sym_addr: bool = False
    sym_userobj: bool = False   # user_stack records: addresses as object[+0xoffset]


# A task's mappings, as the user_stack printer looks them up: (vm_start, vm_end, the mapped
# file's path or None), sorted; None for a task that is gone or has no mm.
UserVmas = list[tuple[int, int, str | None]]
UserVmasOf = Callable[[int], UserVmas | None]


# kretprobed(): the kretprobe trampoline, as a return address, names no caller.
KRETPROBE_TRAMPOLINE = "arch_rethook_trampoline"
KRETPROBE_MSG = b"[unknown/kretprobe'd]"


def print_ip_sym(addr: int, symbolize: Symbolizer | None, flags: SymFlags) -> bytes:
    """seq_print_ip_sym(): `0` for no address, else trace_seq_print_sym() -- the symbol
    (`name+0xoff/0xsize` with sym-offset, sprint_symbol's `0x%lx` or else `0x%08lx` when
    unknown, `[unknown/kretprobe'd]` for the kretprobe trampoline) -- and ` <%016lx>` after it
    with sym-addr."""
    if not addr:
        return b"0"
    found = symbolize(addr) if symbolize is not None else None
    if found is None:
        text = b"0x%x" % addr if flags.sym_offset else b"0x%08x" % addr
    elif found[0] == KRETPROBE_TRAMPOLINE and not found[1]:
        text = KRETPROBE_MSG
    elif flags.sym_offset:
        name, offset, size = found
        text = b"%s+0x%x/0x%x" % (name.encode(), offset, size)
    else:
        text = found[0].encode()
    if flags.sym_addr:
        text += b" <%016x>" % addr
    return text


@dataclass(frozen=True)
class FtraceRecordDesc:
    """An ftrace record type: what events/ftrace/<name>/format shows, and its printer."""

    system: str
    name: str
    fields: tuple[RecordField, ...]
    print_fmt: str

    def line(self, payload: Payload, symbolize: Symbolizer | None, flags: SymFlags) -> bytes:
        """The record's text after the context prefix, newline included (func_repeats:
        repeats_line())."""
        if self.name == "function":
            _, _, _, _, ip, parent_ip = FN_RECORD.unpack_from(payload, 0)
            return _fn_text(ip, parent_ip, symbolize, flags) + b"\n"
        if self.name == "kernel_stack":
            return b"<stack trace>\n" + b"".join(
                b" => " + print_ip_sym(addr, symbolize, flags) + b"\n" for addr in stack_callers(payload))
        if self.name == "user_stack":
            return user_stack_text(payload, None, flags)
        if self.name == "raw_data":
            return _raw_data_text(payload)
        # Graph records outside the function_graph tracer's printer: their print fmt's text.
        if self.name == "funcgraph_entry":
            _, _, _, _, func, depth = GRAPH_ENT_RECORD.unpack_from(payload, 0)
            return b"--> %s (%d)\n" % (print_ip_sym(func, symbolize, SymFlags()), depth)
        _, _, _, _, func, depth, overrun, calltime, rettime = GRAPH_RET_RECORD.unpack_from(payload, 0)
        return b"<-- %s (%d) (start: %x  end: %x) over: %d\n" % (
            print_ip_sym(func, symbolize, SymFlags()), depth, calltime, rettime, depth)

    def raw_line(self, payload: Payload) -> bytes:
        """The raw option's text (trace_fn_raw, trace_func_repeats_raw; the others print
        `type: N` like trace_nop)."""
        if self.name == "function":
            _, _, _, _, ip, parent_ip = FN_RECORD.unpack_from(payload, 0)
            return b"%x %x\n" % (ip, parent_ip)
        if self.name == "func_repeats":
            _, _, _, _, ip, parent_ip, count, top, bottom = FUNC_REPEATS_RECORD.unpack_from(payload, 0)
            return b"%d %d %d %d\n" % (ip, parent_ip, count, top << 32 | bottom)
        if self.name == "raw_data":
            return _raw_data_text(payload)
        return b""


def _raw_data_text(payload: Payload) -> bytes:
    """trace_raw_data() (its trace and raw text): the id, then every byte of the record past
    it, as long as the ring's length of the record (a multiple of 4) says."""
    data = bytes(payload)
    return b"# %x buf:" % int.from_bytes(data[8:12], "little") + b"".join(b" %02x" % c for c in data[12:]) + b"\n"


def _fn_text(ip: int, parent_ip: int, symbolize: Symbolizer | None, flags: SymFlags) -> bytes:
    """print_fn_trace(): the function, and its parent with print-parent."""
    text = print_ip_sym(ip, symbolize, flags)
    if flags.print_parent and parent_ip:
        text += b" <-" + print_ip_sym(parent_ip, symbolize, flags)
    return text


def repeats_line(payload: Payload, ts: int, in_ns: bool, symbolize: Symbolizer | None, flags: SymFlags) -> bytes:
    """trace_func_repeats_print(): the repeated call, how many times, and when the last of
    them was (the record's time stamp ts less its delta, as trace_print_time() prints it)."""
    _, _, _, _, ip, parent_ip, count, top, bottom = FUNC_REPEATS_RECORD.unpack_from(payload, 0)
    last = (ts - (top << 32 | bottom)) & _U64     # unsigned long long, as Linux subtracts
    if in_ns:
        when = b" %5d.%06d" % divmod((last + 500) // 1000, 1_000_000)
    else:
        when = b" %12d" % last
    return _fn_text(ip, parent_ip, symbolize, flags) + b" (repeats: %d, last_ts:%s)\n" % (count, when)


def user_stack_text(payload: Payload, vmas_of: UserVmasOf | None, flags: SymFlags) -> bytes:
    """trace_user_stack_print(): each user address up to the first 0; with sym-userobj, looked
    up in the mappings of the record's tgid as they are when it is printed (None: its mm is
    gone, as find_task_by_vpid() + get_task_mm() finding none)."""
    _, _, _, _, tgid, *callers = USER_STACK_RECORD.unpack_from(payload, 0)
    vmas = vmas_of(tgid) if flags.sym_userobj and vmas_of is not None else None
    lines = [b"<user stack trace>\n"]
    for ip in callers:
        if not ip:
            break
        lines.append(b" => " + user_ip_text(ip, vmas, flags.sym_addr) + b"\n")
    return b"".join(lines)


def user_ip_text(ip: int, vmas: UserVmas | None, sym_addr: bool) -> bytes:
    """seq_print_user_ip(): with the task's mappings (mm), the file of find_vma(ip) -- the first
    mapping ending above ip -- and `[+0x%lx]` (ip less its vm_start); ` <%016lx>` when no file
    was printed, or with sym-addr."""
    text = b""
    named = False
    if vmas is not None:
        vma = next((v for v in vmas if v[1] > ip), None)
        if vma is not None and vma[2] is not None:
            text = vma[2].encode(errors="surrogateescape").replace(b"\n", b"\\012") + \
                b"[+0x%x]" % ((ip - vma[0]) & _U64)
            named = True
    if sym_addr or not named:
        text += b" <%016x>" % ip
    return text


def stack_callers(payload: Payload) -> list[int]:
    """The addresses of a kernel_stack record, up to its end or a ULONG_MAX terminator."""
    count = (len(payload) - STACK_HEAD.size) // 8
    callers = struct.unpack_from(f"<{count}Q", payload, STACK_HEAD.size)
    out = []
    for addr in callers:
        if addr == _ULONG_MAX:
            break
        out.append(addr)
    return out


_UL = "unsigned long"
FUNCTION_DESC = FtraceRecordDesc("ftrace", "function", (
    RecordField(_UL, "ip", 8, 8, False),
    RecordField(_UL, "parent_ip", 16, 8, False),
), '" %ps <-- %ps", (void *)REC->ip, (void *)REC->parent_ip')
KERNEL_STACK_DESC = FtraceRecordDesc("ftrace", "kernel_stack", (
    RecordField("int", "size", 8, 4, True),
    RecordField("unsigned long[8]", "caller", 16, 64, False),
), '"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n" "\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n" "\\t=> %ps\\n\\t=> %ps\\n", '
   "(void *)REC->caller[0], (void *)REC->caller[1], (void *)REC->caller[2], (void *)REC->caller[3], "
   "(void *)REC->caller[4], (void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]")
USER_STACK_DESC = FtraceRecordDesc("ftrace", "user_stack", (
    RecordField("unsigned int", "tgid", 8, 4, False),
    RecordField("unsigned long[8]", "caller", 16, 64, False),
), KERNEL_STACK_DESC.print_fmt)
GRAPH_ENT_DESC = FtraceRecordDesc("ftrace", "funcgraph_entry", (
    RecordField(_UL, "func", 8, 8, False),
    RecordField("int", "depth", 16, 4, True),
), '"--> %ps (%d)", (void *)REC->func, REC->depth')
GRAPH_RET_DESC = FtraceRecordDesc("ftrace", "funcgraph_exit", (
    RecordField(_UL, "func", 8, 8, False),
    RecordField("int", "depth", 16, 4, True),
    RecordField("unsigned int", "overrun", 20, 4, False),
    RecordField("unsigned long long", "calltime", 24, 8, False),
    RecordField("unsigned long long", "rettime", 32, 8, False),
), '"<-- %ps (%d) (start: %llx  end: %llx) over: %d", (void *)REC->func, REC->depth, REC->calltime, '
   "REC->rettime, REC->depth")

FUNC_REPEATS_DESC = FtraceRecordDesc("ftrace", "func_repeats", (
    RecordField(_UL, "ip", 8, 8, False),
    RecordField(_UL, "parent_ip", 16, 8, False),
    RecordField("u16", "count", 24, 2, False),
    RecordField("u16", "top_delta_ts", 26, 2, False),
    RecordField("u32", "bottom_delta_ts", 28, 4, False),
), '" %ps <-%ps\\t(repeats:%u  delta: -%llu)", (void *)REC->ip, (void *)REC->parent_ip, REC->count, '
   "(((u64)(REC)->top_delta_ts << 32) | (REC)->bottom_delta_ts)")

# TRACE_RAW_DATA: what trace_marker_raw writes (struct raw_data_entry { ent; id; buf[] })
RAW_DATA_DESC = FtraceRecordDesc("ftrace", "raw_data", (
    RecordField("unsigned int", "id", 8, 4, False),
    RecordField("char[]", "buf", 12, 0, True),
), '"id:%04x %08x", REC->id, (int)REC->buf[0]')

# id -> desc, for the event registry (events/ftrace/*) and the drain
FTRACE_RECORDS = {TRACE_FN: FUNCTION_DESC, TRACE_STACK: KERNEL_STACK_DESC, TRACE_USER_STACK: USER_STACK_DESC,
                  TRACE_GRAPH_RET: GRAPH_RET_DESC, TRACE_GRAPH_ENT: GRAPH_ENT_DESC,
                  TRACE_RAW_DATA: RAW_DATA_DESC, TRACE_FUNC_REPEATS: FUNC_REPEATS_DESC}
