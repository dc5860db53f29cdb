"""The kernel's log as user space reads it (kernel/printk.c): syslog(2) as dmesg reads it
(busybox's klogctl: "<prio>[ time] text" lines, READ_ALL, READ_CLEAR), /dev/kmsg one record a
read ("prio,seq,usec,-;text"), a write to /dev/kmsg logged with its facility, and a reader that
waits for the next record woken by it (from the tick)."""
import re

import pytest

from test_progs import BUSYBOX, _static_busybox

pytestmark = pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2, workload="none")


def sh(machine, run_program, script):
    status, out = run_program(machine, [BUSYBOX, "sh", "-c", script])
    assert status == 0, out
    return out.decode()


def test_dmesg_reads_the_kernels_log_by_syslog(machine, run_program):
    out = sh(machine, run_program, "dmesg -r | head -1; echo '<3>a message from user space' > /dev/kmsg; "
                                   "dmesg -r | tail -1; dmesg | tail -1")
    banner, logged, plain = out.splitlines()
    # the banner's pr_notice: facility 0, level 5; the write's: LOG_USER (1) * 8 + 3
    assert re.fullmatch(r"<5>\[ +\d+\.\d{6}\] Linux version 6\.1\.0-tracefs-sim .*", banner), banner
    assert re.fullmatch(r"<11>\[ +\d+\.\d{6}\] a message from user space", logged), logged
    assert re.fullmatch(r"\[ +\d+\.\d{6}\] a message from user space", plain), plain


def test_dmesg_c_clears_what_dmesg_shows_next(machine, run_program):
    out = sh(machine, run_program, "dmesg -c > /dev/null; echo after; dmesg; echo '<6>new' > /dev/kmsg; dmesg")
    assert re.fullmatch(r"after\n\[ +\d+\.\d{6}\] new\n", out), out


def test_dev_kmsg_gives_a_record_a_read(machine, run_program):
    out = sh(machine, run_program, "dd if=/dev/kmsg bs=1024 count=1 2>/dev/null; "
                                   "dd if=/dev/kmsg bs=8 count=1 2>&1 | head -1")
    first, too_small = out.splitlines()
    assert re.fullmatch(r"5,0,\d+,-;Linux version 6\.1\.0-tracefs-sim .*", first), first
    assert "Invalid argument" in too_small  # a buffer smaller than the record: EINVAL


def test_a_dev_kmsg_reader_waits_for_the_next_record(machine, run_program):
    """Past the last record a blocking read waits: the write's record wakes it (6.1's klogd
    wake-up, from the tick)."""
    out = sh(machine, run_program, "n=$(dmesg | wc -l); (sleep 0.2; echo '<4>the late one' > /dev/kmsg) & "
                                   "dd if=/dev/kmsg bs=1024 count=$((n + 1)) 2>/dev/null | tail -1; wait")
    assert re.fullmatch(r"12,\d+,\d+,-;the late one\n", out), out


def test_a_dev_kmsg_write_longer_than_a_line_is_refused(machine, run_program):
    """6.1's devkmsg_write: more than LOG_LINE_MAX (1024 - 32) bytes in one write is EINVAL
    (as the reference 6.1 answers busybox's tr), up to it a record."""
    out = sh(machine, run_program, "head -c 992 /dev/zero | tr '\\0' y > /dev/kmsg; echo $?; "
                                   "head -c 993 /dev/zero | tr '\\0' x 2>&1 > /dev/kmsg; echo $?")
    assert out.splitlines() == ["0", "tr: write error: Invalid argument", "1"], out
