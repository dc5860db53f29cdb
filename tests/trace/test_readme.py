from pathlib import Path

from tracefs_sim.trace.readme import _SECTIONS, readme_text

REAL = (Path(__file__).parent / "data" / "linux-6.1-README.txt").read_text()


def test_every_section_is_linux_text_in_linux_order():
    position = 0
    for _, text in _SECTIONS:
        found = REAL.find(text, position)
        assert found >= 0, text
        position = found + len(text)


def test_all_base_files_give_linux_base_part():
    base = {path for path, _ in _SECTIONS if not path.startswith("events")} - DYNAMIC - STACK - FUNCTION
    assert readme_text(base) == REAL[:REAL.index("\n  available_filter_functions")]


FUNCTION = {"available_filter_functions", "set_ftrace_filter", "set_ftrace_notrace", "set_ftrace_pid",
            "set_ftrace_notrace_pid", "set_graph_function", "set_graph_notrace", "max_graph_depth", "snapshot"}


def test_function_tracer_and_snapshot_part_as_linux():
    start = REAL.index("\n  available_filter_functions")
    assert readme_text(FUNCTION) == REAL[start:REAL.index("  stack_trace\t")]
    assert "snapshot\t" not in readme_text(FUNCTION - {"snapshot"})


def test_event_files_part_as_linux_triggers_and_histograms_included():
    event = {"events", "events/enable", "events/<system>", "events/<system>/enable", "events/<system>/filter",
             "events/<system>/<event>", "events/<system>/<event>/enable", "events/<system>/<event>/filter",
             "events/<system>/<event>/trigger", "events/<system>/<event>/hist"}
    start = REAL.index("  events/\t\t- Directory")
    assert readme_text(event) == REAL[start:REAL.index("  events/synthetic_events")]
    assert readme_text(event | {"synthetic_events"}).endswith(REAL[REAL.index("  events/synthetic_events"):])


STACK = {"stack_trace", "stack_max_size", "stack_trace_filter"}


def test_stack_tracer_part_as_linux():
    start = REAL.index("  stack_trace\t")
    assert readme_text(STACK) == REAL[start:REAL.index("  dynamic_events")]


DYNAMIC = {"dynamic_events", "kprobe_events", "uprobe_events", "synthetic_events"}


def test_dynamic_events_part_as_linux():
    """What 6.1 says of the dynamic events, all of it with uprobe_events (which this kernel
    has not), its kprobe and synthetic lines without."""
    start = REAL.index("  dynamic_events")
    whole = REAL[start:REAL.index("  events/\t\t- Directory")] + REAL[REAL.index("  events/synthetic_events"):]
    assert readme_text(DYNAMIC) == whole
    text = readme_text(DYNAMIC - {"uprobe_events"})
    assert "uprobe" not in text and "e[:[<group>/][<event>]] <attached-group>" in text
    assert "s:[synthetic/]" not in readme_text({"dynamic_events", "kprobe_events"})


def test_only_existing_files_are_described():
    text = readme_text({"tracing_on", "trace", "trace_pipe", "events", "events/<system>/<event>"})
    assert text.startswith("tracing mini-HOWTO:\n")
    assert "  trace\t\t\t- The static contents" in text and "trace_pipe" in text
    for absent in ("error_log", "trace_options", "instances", "trace_marker", "enable\t", "filter"):
        assert absent not in text
