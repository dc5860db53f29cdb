"""Saved cmdlines (sizes as Linux 6.1 rounds them, round-robin eviction) and error_log."""

import errno

import pytest

from tracefs_sim.trace.cmdlines import SavedCmdlines
from tracefs_sim.trace.error_log import TRACING_LOG_ERRS_MAX, ErrorLog


def test_cmdline_slots_are_reused_round_robin():
    cmdlines = SavedCmdlines()
    slots = int(cmdlines.read_size())
    for pid in range(1, slots + 2):                 # one more task than slots
        cmdlines.save(pid, b"task%d" % pid)
    assert cmdlines.find(1) == b"<...>"             # the first one saved was evicted
    assert cmdlines.find(2) == b"task2" and cmdlines.find(slots + 1) == b"task%d" % (slots + 1)
    cmdlines.save(2, b"renamed")                    # a known pid keeps its slot
    assert cmdlines.find(2) == b"renamed"
    assert cmdlines.read_saved_cmdlines().count(b"\n") == slots


def test_pid_zero_is_idle_and_never_saved_and_comms_are_cut():
    cmdlines = SavedCmdlines()
    cmdlines.save(0, b"swapper/0")
    assert cmdlines.read_saved_cmdlines() == b""
    assert cmdlines.find(0) == b"<idle>"
    cmdlines.save(7, b"a-very-long-command-name")
    assert cmdlines.find(7) == b"a-very-long-com"
    with pytest.raises(OSError) as caught:
        cmdlines.write_size(b"-1\n")
    assert caught.value.errno == errno.EINVAL


def test_error_log_keeps_the_last_eight():
    now = [1_301_783_456]
    log = ErrorLog(lambda: now[0])
    for n in range(TRACING_LOG_ERRS_MAX + 2):
        log.log("event filter parse error", "Field not found", b"f%d == 1" % n, 0)
        now[0] += 1_000_000
    text = log.read().decode()
    assert text.count("Command:") == TRACING_LOG_ERRS_MAX and "f0 == 1" not in text and "f9 == 1" in text
    assert text.startswith("[    1.303783] event filter parse error: error: Field not found\n"
                           "  Command: f2 == 1\n           ^\n")
    log.clear()
    assert log.read() == b""
