"""Hist triggers through the mount: the histogram.rst recipes of mountpoint_scripts/ as written
in `tracefs-sim run`, the maps filled in the emulated kernel by the events' own writers."""

import os
import re

import pytest
from simtest import REPO, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SYM_ENTRY = (r"^\{ call_site: \[ffffffff[0-9a-f]{8}\] (\w+) +\} hitcount: +(\d+)  bytes_req: +(\d+)"
             r"  bytes_alloc: +(\d+)$")


def totals(lines: list[str], at: int) -> tuple[int, int, int]:
    """(Hits, Entries, Dropped) of the Totals block from line `at` on."""
    start = lines.index("Totals:", at)
    return tuple(int(lines[start + i].split(": ")[1]) for i in (1, 2, 3))


def test_hist_kmalloc_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "hist_kmalloc.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    info = ("hist:keys=call_site.sym:vals=hitcount,bytes_req,bytes_alloc:sort=bytes_alloc.descending:size=2048"
            " [active]")
    assert lines[1] == info
    at = lines.index("== hist:")
    assert lines[at + 1:at + 6] == ["# event histogram", "#", "# trigger info: " + info, "#", ""]
    entries = [re.match(SYM_ENTRY, line) for line in lines[at + 6:lines.index("", at + 6)]]
    assert entries and all(entries), result.stdout
    names = [m.group(1) for m in entries]
    assert "getname" in names and len(set(names)) == len(names)      # one entry per call site
    alloc = [int(m.group(4)) for m in entries]
    assert alloc == sorted(alloc, reverse=True)
    assert all(int(m.group(3)) <= int(m.group(4)) for m in entries)   # asked for <= given
    hits, n, dropped = totals(lines, at)
    assert n == len(entries) and dropped == 0 and hits == sum(int(m.group(2)) for m in entries)


def test_hist_read_execname_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "hist_read_execname.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    at = lines.index("== hist:")
    body = lines[at + 6:lines.index("", at + 6)]
    entries = [re.match(r"^\{ common_pid: (\S+) +\[ *(\d+)\] \} hitcount: +(\d+)$", line) for line in body]
    assert entries and all(entries), result.stdout
    assert "cat" in [m.group(1) for m in entries]         # the session's own cat, and the guest's
    counts = [int(m.group(3)) for m in entries]
    assert counts == sorted(counts, reverse=True)
    assert totals(lines, at)[:2] == (sum(counts), len(entries))
    paused = lines.index("== trigger, paused:") + 1
    assert lines[paused] == "hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending:size=2048 [paused]"
    cleared = lines.index("== hist after clear:")
    assert lines[cleared + 6:cleared + 11] == ["", "Totals:", "    Hits: 0", "    Entries: 0", "    Dropped: 0"]
