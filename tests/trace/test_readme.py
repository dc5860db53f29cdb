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
    base = {path for path, _ in _SECTIONS if not path.startswith("events")}
    assert readme_text(base) == REAL[:REAL.index("\n  available_filter_functions")]


def test_only_existing_files_are_described():
    text = readme_text({"tracing_on", "trace", "trace_pipe", "events", "events/<system>/<event>"})
    assert text.startswith("tracing mini-HOWTO:\n")
    assert "  trace\t\t\t- The static contents" in text and "trace_pipe" in text
    for absent in ("error_log", "trace_options", "instances", "trace_marker", "enable\t", "filter"):
        assert absent not in text
