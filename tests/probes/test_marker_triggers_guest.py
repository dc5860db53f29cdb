"""The triggers of ftrace/print run by the emulated kernel at trace_marker writes
(kernel/trace_marker.c): a hist counts the writers, a filter on `buf` sees the text as written
(no newline yet), and each trace array's triggers act on its own writes only."""
import re


def hist_lines(tree, path: str) -> list[str]:
    return [line for line in tree.walk(path).read().decode().splitlines() if line.startswith("{")]


def test_print_triggers_run_in_the_kernel_at_each_marker_write(traced):
    m, core, tree = traced(1, "none", 5)
    inst = core.instances.create("foo")
    tree.walk("events/ftrace/print/trigger").write(b"hist:keys=common_pid")
    inst.triggers.write(core.registry.get("ftrace", "print"), b'traceoff if buf == "stop"')
    for pid in (41, 42, 42):
        core.top.write_marker(b"hello", pid, b"sh")
    core.top.write_marker(b"stop", 43, b"sh")        # not foo's: foo keeps tracing
    assert inst.read_tracing_on() == b"1\n"
    inst.write_marker(b"stop\n", 44, b"sh")           # "stop\n" is not "stop"
    assert inst.read_tracing_on() == b"1\n"
    inst.write_marker(b"stop", 44, b"sh")
    assert inst.read_tracing_on() == b"0\n" and core.top.read_tracing_on() == b"1\n"
    assert [re.sub(r"\s+", " ", line) for line in hist_lines(tree, "events/ftrace/print/hist")] == [
        "{ common_pid: 41 } hitcount: 1", "{ common_pid: 43 } hitcount: 1", "{ common_pid: 42 } hitcount: 2"]
    # the records are the trace core's, as without triggers: one line each, newline added
    lines = [line for line in core.top.read_trace().decode().splitlines() if "tracing_mark_write" in line]
    assert len(lines) == 4 and lines[-1].endswith("tracing_mark_write: stop")
