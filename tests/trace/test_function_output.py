"""Output of the function tracers from hand-built records, against the real kernel's text in
tests/data/linux-6.1 (c_function.out, d_function_graph.out, copied from ../shared/reference)."""

import re
from pathlib import Path

import pytest

from tests.fakes import FakeFtraceSites, make_trace_array
from tracefs_sim.trace.ftrace_records import (FN_RECORD, FUNC_REPEATS_RECORD, GRAPH_ENT_RECORD, GRAPH_RET_RECORD,
                                              STACK_HEAD, TRACE_FN, TRACE_FUNC_REPEATS, TRACE_GRAPH_ENT,
                                              TRACE_GRAPH_RET, TRACE_STACK)
from tracefs_sim.trace.function_tracer import FtraceGlobal
from tracefs_sim.trace.graph_output import format_duration
from tracefs_sim.trace.trace_array import TraceArray

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "linux-6.1"   # captured from a real 6.1
BASE = 0xFFFFFFFF81100000


def reference_output(name: str, command: str) -> str:
    """What one command printed in a captured recipe."""
    text = (REFERENCE / name).read_text()
    start = text.index(f"### $ {command}\n") + len(f"### $ {command}\n")
    end = text.find("### $ ", start)
    return text[start:end]


class Symbols:
    """Addresses for names, 0x100 apart, each function 0x80 long."""

    def __init__(self):
        self.addr: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        return self.addr.setdefault(name, BASE + 0x100 * len(self.addr))

    def symbolize(self, addr: int):
        for name, start in self.addr.items():
            if start <= addr < start + 0x80:
                return name, addr - start, 0x80
        return None


def make_array(symbols: Symbols) -> TraceArray:
    ta = make_trace_array(clock=lambda: 0, ftrace=FtraceGlobal(FakeFtraceSites(["vfs_read"])),
                          symbolize=symbols.symbolize)
    ta.options.set("irq-info", True)
    return ta


def test_function_lines_match_the_reference():
    expected = reference_output("c_function.out", "cat trace | head -40")
    sym = Symbols()
    ta = make_array(sym)
    ta.write_current_tracer(b"function")
    pattern = re.compile(r"^ +(\S+)-(\d+) +\[(\d+)\] \.{5} +(\d+)\.(\d+): (\w+) <-(\w+)$")
    for line in expected.splitlines():
        match = pattern.match(line)
        if match:
            comm, pid, cpu, secs, usecs, func, parent = match.groups()
            ta.cmdlines.save(int(pid), comm.encode())
            ts = int(secs) * 1_000_000_000 + int(usecs) * 1000
            ta.add_records(int(cpu), [(ts, FN_RECORD.pack(TRACE_FN, 0, 0, int(pid), sym(func), sym(parent) + 0x1f))])
    assert ta.read_trace().decode() == expected


def test_function_options_and_stack():
    sym = Symbols()
    ta = make_array(sym)
    ta.write_current_tracer(b"function")
    ta.cmdlines.save(9, b"cat")
    ta.add_records(0, [(1_000_000, FN_RECORD.pack(TRACE_FN, 0, 0, 9, sym("vfs_read"), sym("ksys_read") + 0x1f))])
    callers = [sym("ksys_read") + 0x1f, sym("do_syscall_64") + 0x3b, 0xFFFFFFFF81000000 - 8, (1 << 64) - 1]
    stack = STACK_HEAD.pack(TRACE_STACK, 0, 0, 9, 3) + b"".join(c.to_bytes(8, "little") for c in callers)
    ta.add_records(0, [(1_000_001, stack)])
    body = ta.read_trace().decode().split("|\n")[-1]
    assert body == ("             cat-9       [000] .....     0.001000: vfs_read <-ksys_read\n"
                    "             cat-9       [000] .....     0.001000: <stack trace>\n"
                    " => ksys_read\n => do_syscall_64\n => 0xffffffff80fffff8\n")
    ta.options.write_trace_options(b"noprint-parent")
    ta.options.write_trace_options(b"sym-offset")
    assert ta.read_trace().decode().split("|\n")[-1].splitlines()[0].endswith(": vfs_read+0x0/0x80")
    ta.options.write_trace_options(b"print-parent")
    ta.options.write_trace_options(b"sym-addr")
    assert ta.read_trace().decode().split("|\n")[-1].splitlines()[0].endswith(
        f": vfs_read+0x0/0x80 <{sym('vfs_read'):016x}> <-ksys_read+0x1f/0x80 <{sym('ksys_read') + 0x1f:016x}>")


def test_func_repeats_lines_as_linux_prints_them():
    # Linux 6.1, func-no-repeats on, `dd if=/dev/zero of=/dev/null bs=1 count=20` with the
    # filter read_zero: the raw option gave the records' times and the repeats' delta
    sym = Symbols()
    ta = make_array(sym)
    ta.write_current_tracer(b"function")
    ta.cmdlines.save(107, b"dd")
    ip, parent = sym("read_zero"), sym("vfs_read") + 0x25
    ta.add_records(1, [
        (2_341_055_715, FN_RECORD.pack(TRACE_FN, 0, 0, 107, ip, parent)),
        (2_346_296_965, FUNC_REPEATS_RECORD.pack(TRACE_FUNC_REPEATS, 0, 0, 107, ip, parent, 19, 0, 4_936_844))])
    lines = ta.read_trace().decode().splitlines()[-2:]
    assert lines == ["              dd-107     [001] .....     2.341056: read_zero <-vfs_read",
                     "              dd-107     [001] .....     2.346297: read_zero <-vfs_read (repeats: 19, last_ts:"
                     "     2.341360)"]
    ta.options.write_trace_options(b"noprint-parent")
    assert ta.read_trace().decode().splitlines()[-1].endswith(": read_zero (repeats: 19, last_ts:     2.341360)")
    ta.options.write_trace_options(b"print-parent")
    ta.options.write_trace_options(b"sym-offset")
    assert ta.read_trace().decode().splitlines()[-1].endswith(
        ": read_zero+0x0/0x80 <-vfs_read+0x25/0x80 (repeats: 19, last_ts:     2.341360)")
    ta.options.write_trace_options(b"nosym-offset")
    ta.options.write_trace_options(b"raw")
    assert ta.read_trace().decode().splitlines()[-1] == f"107 1 2346296965 {ip} {parent} 19 4936844"
    ta.options.write_trace_options(b"noraw")
    ta.write_trace_clock(b"counter")          # a counter clock prints its count, not seconds
    ta.add_records(1, [(1 << 33, FUNC_REPEATS_RECORD.pack(TRACE_FUNC_REPEATS, 0, 0, 107, ip, parent, 3, 1, 200))])
    assert ta.read_trace().decode().splitlines()[-1].endswith(
        f"read_zero <-vfs_read (repeats: 3, last_ts: {(1 << 33) - (1 << 32 | 200):12d})")


def graph_records_from(text: str, sym: Symbols, pid: int = 100):
    """Entry/return records (cpu, ts, payload) that the real kernel printed as `text`."""
    line_re = re.compile(r"^ (\d)\) (.)\s*([\d.]+)?\s*(?:us)?\s*\|  ( *)(.*)$")
    records, stack, ts = [], [], 1_000_000
    for line in text.splitlines():
        match = line_re.match(line)
        if not match:
            continue
        cpu, _, duration, indent, what = match.groups()
        depth = len(indent) // 2
        ns = round(float(duration) * 1000) if duration else 0
        if what.endswith("();"):
            func = sym(what[:-3])
            records.append((int(cpu), ts, GRAPH_ENT_RECORD.pack(TRACE_GRAPH_ENT, 0, 0, pid, func, depth)))
            records.append((int(cpu), ts + ns, GRAPH_RET_RECORD.pack(TRACE_GRAPH_RET, 0, 0, pid, func, depth, 0,
                                                                      ts, ts + ns)))
            ts += ns + 1
        elif what.endswith("() {"):
            func = sym(what[:-4])
            stack.append((func, depth))
            records.append((int(cpu), ts, GRAPH_ENT_RECORD.pack(TRACE_GRAPH_ENT, 0, 0, pid, func, depth)))
            ts += 1
        elif what == "}":
            func, depth = stack.pop()
            records.append((int(cpu), ts, GRAPH_RET_RECORD.pack(TRACE_GRAPH_RET, 0, 0, pid, func, depth, 0,
                                                                 ts - ns, ts)))
            ts += 1
    return records


@pytest.mark.parametrize("command", ["cat trace | head -40", "cat trace | head -15"])
def test_graph_matches_the_reference(command):
    expected = reference_output("d_function_graph.out", command)
    sym = Symbols()
    ta = make_array(sym)
    ta.write_current_tracer(b"function_graph")
    for cpu, ts, payload in graph_records_from(expected, sym):
        ta.add_records(cpu, [(ts, payload)])
    assert ta.read_trace().decode() == expected


def test_graph_pipe_consumes_with_the_same_text():
    expected = reference_output("d_function_graph.out", "cat trace | head -40")
    sym = Symbols()
    ta = make_array(sym)
    ta.write_current_tracer(b"function_graph")
    for cpu, ts, payload in graph_records_from(expected, sym):
        ta.add_records(cpu, [(ts, payload)])
    body = expected.split("|   |   |   |\n", 1)[1]
    pieces = []
    while chunk := ta.consume(None, 200):
        assert len(chunk) <= 200
        pieces.append(chunk)
    assert b"".join(pieces).decode() == body
    assert ta.consume(None, 200) == b""


def test_graph_options_task_switch_and_comments():
    sym = Symbols()
    ta = make_array(sym)
    ta.write_current_tracer(b"function_graph")
    ta.cmdlines.save(100, b"head")
    ta.cmdlines.save(200, b"kworker/0:1")
    f, g = sym("vfs_read"), sym("schedule")
    ta.add_records(0, [
        (1_000, GRAPH_ENT_RECORD.pack(TRACE_GRAPH_ENT, 0, 0, 100, f, 0)),
        (2_000, GRAPH_ENT_RECORD.pack(TRACE_GRAPH_ENT, 0, 0, 200, g, 1)),
        (3_000, GRAPH_RET_RECORD.pack(TRACE_GRAPH_RET, 0, 0, 200, g, 1, 0, 2_000, 3_000)),
        (150_000_000, GRAPH_RET_RECORD.pack(TRACE_GRAPH_RET, 0, 0, 100, f, 0, 0, 1_000, 150_000_000)),
    ])
    for option in (b"funcgraph-proc", b"funcgraph-abstime", b"funcgraph-tail", b"nofuncgraph-cpu"):
        ta.options.write_trace_options(option)
    text = ta.read_trace().decode()
    assert text == (
        "# tracer: function_graph\n#\n"
        "#     TIME         TASK/PID         DURATION                  FUNCTION CALLS\n"
        "#      |            |    |           |   |                     |   |   |   |\n"
        "    0.000001 |     head-100    |               |  vfs_read() {\n"
        " ------------------------------------------\n"
        " 0)    head-100    =>  kworker-200  \n"
        " ------------------------------------------\n\n"
        "    0.000002 |   kworker-200   |   1.000 us    |    schedule();\n"
        " ------------------------------------------\n"
        " 0)  kworker-200   =>    head-100   \n"
        " ------------------------------------------\n\n"
        "    0.150000 |     head-100    | @ 149999.0 us |  } /* vfs_read */\n")
    ta.options.write_trace_options(b"nofuncgraph-duration")
    ta.options.write_trace_options(b"nocontext-info")
    bare = ta.read_trace().decode()
    assert bare.startswith("# tracer: function_graph\n#\nvfs_read() {\n")
    assert "\n  schedule();\n" in bare and bare.endswith("\n\n} /* vfs_read */\n")


@pytest.mark.parametrize("ns, text", [(25188, "25.188 us   "), (862, "0.862 us    "), (122924, "122.924 us  "),
                                      (1234567, "1234.567 us "), (12345678, "12345.67 us "),
                                      (123456789, "123456.7 us "), (1234567890, "1234567 us  ")])
def test_durations(ns, text):
    assert format_duration(ns).decode() == text


def test_print_ip_sym_unknown_and_kretprobed():
    """trace_seq_print_sym(): sprint_symbol's `0x%lx` with an offset, `0x%08lx` without; the
    kretprobe trampoline as a return address is `[unknown/kretprobe'd]` in either form."""
    from tracefs_sim.trace.ftrace_records import KRETPROBE_TRAMPOLINE, SymFlags, print_ip_sym

    tramp = 0xFFFFFFFF81001000
    table = {tramp: (KRETPROBE_TRAMPOLINE, 0, 0x60), tramp + 1: (KRETPROBE_TRAMPOLINE, 1, 0x60)}
    symbolize = table.get
    for flags in (SymFlags(), SymFlags(sym_offset=True)):
        assert print_ip_sym(tramp, symbolize, flags) == b"[unknown/kretprobe'd]"
        assert print_ip_sym(0, symbolize, flags) == b"0"
    assert print_ip_sym(tramp + 1, symbolize, SymFlags(sym_offset=True)) == \
        b"%s+0x1/0x60" % KRETPROBE_TRAMPOLINE.encode()
    assert print_ip_sym(0x1234, symbolize, SymFlags()) == b"0x00001234"
    assert print_ip_sym(0x1234, symbolize, SymFlags(sym_offset=True)) == b"0x1234"
    assert print_ip_sym(0x1234, symbolize, SymFlags(sym_addr=True)) == b"0x00001234 <0000000000001234>"
