"""Header blocks as Linux 6.1 prints them (reference b_empty_trace.out)."""

from tracefs_sim.trace.headers import OutputFlags, format_clock_value, trace_header

IRQ_INFO_HEADER = """\
# tracer: nop
#
# entries-in-buffer/entries-written: 0/0   #P:2
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
"""

SHORT_HEADER = """\
# tracer: nop
#
# entries-in-buffer/entries-written: 0/0   #P:2
#
#           TASK-PID     CPU#     TIMESTAMP  FUNCTION
#              | |         |         |         |
"""


def test_default_header():
    assert trace_header("nop", 0, 0, 2, OutputFlags()) == IRQ_INFO_HEADER


def test_header_without_irq_info():
    assert trace_header("nop", 0, 0, 2, OutputFlags(irq_info=False)) == SHORT_HEADER


def test_header_with_record_tgid_keeps_columns_aligned():
    text = trace_header("nop", 3, 5, 8, OutputFlags(record_tgid=True))
    lines = text.splitlines()
    assert lines[2] == "# entries-in-buffer/entries-written: 3/5   #P:8"
    assert lines[-2] == "#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION"
    assert lines[-1] == "#              | |           |       |   |||||     |         |"
    short = trace_header("nop", 0, 0, 2, OutputFlags(irq_info=False, record_tgid=True)).splitlines()
    assert short[-2] == "#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION"


def test_no_context_info_or_verbose_leaves_only_the_tracer_line():
    assert trace_header("nop", 0, 0, 2, OutputFlags(context_info=False)) == "# tracer: nop\n#\n"
    assert trace_header("nop", 0, 0, 2, OutputFlags(verbose=True)) == "# tracer: nop\n#\n"


def test_clock_values():
    assert format_clock_value(0, True) == "    0.000000"
    assert format_clock_value(2_274_249_400, True) == "    2.274249"
    assert format_clock_value(2_274_249_500, True) == "    2.274250"   # ns2usecs rounds
    assert format_clock_value(1_795_936_758_759_354_000, True) == "1795936758.759354"
    assert format_clock_value(9669213659, False) == "9669213659"
