"""Hist triggers through the mount: the histogram.rst recipes of mountpoint_scripts/ as written
in `tracefs-sim run`, the maps filled in the emulated kernel by the events' own writers."""

import os
import re

import pytest
from simtest import REPO, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SYM_ENTRY = (r"^\{ call_site: \[(ffffffff[0-9a-f]{8})\] (\w+) +\} hitcount: +(\d+)  bytes_req: +(\d+)"
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
    assert entries and all(entries), lines
    sites = [m.group(1) for m in entries]
    assert "hostfs_lookup" in [m.group(2) for m in entries]     # cat opens /etc/passwd
    assert len(set(sites)) == len(sites)                          # one entry per call site
    alloc = [int(m.group(5)) for m in entries]
    assert alloc == sorted(alloc, reverse=True)
    assert all(int(m.group(4)) <= int(m.group(5)) for m in entries)   # asked for <= given
    hits, n, dropped = totals(lines, at)
    assert n == len(entries) and dropped == 0 and hits == sum(int(m.group(3)) for m in entries)


def test_hist_read_execname_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "hist_read_execname.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    at = lines.index("== hist:")
    body = lines[at + 6:lines.index("", at + 6)]
    entries = [re.match(r"^\{ common_pid: (\S+) +\[ *(\d+)\] \} hitcount: +(\d+)$", line) for line in body]
    assert entries and all(entries), lines
    assert "cat" in [m.group(1) for m in entries]         # the session's own cat, and the guest's
    counts = [int(m.group(3)) for m in entries]
    assert counts == sorted(counts, reverse=True)
    assert totals(lines, at)[:2] == (sum(counts), len(entries))
    paused = lines.index("== trigger, paused:") + 1
    assert lines[paused] == "hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending:size=2048 [paused]"
    cleared = lines.index("== hist after clear:")
    assert lines[cleared + 6:cleared + 11] == ["", "Totals:", "    Hits: 0", "    Entries: 0", "    Dropped: 0"]


def test_hist_wakeup_latency_recipe():
    """histogram.rst's wakeup latency: variables, an expression of common_timestamp.usecs and a
    $ref, onmatch() writing the synthetic event (whose hist counts it), onmax().save()."""
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "hist_wakeup_latency.sh"), timeout=240)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    at = lines.index("== triggers:")
    assert lines[at + 1:at + 4] == [
        "hist:keys=pid:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:size=2048:clock=global [active]",
        "hist:keys=next_pid:vals=hitcount:wakeup_lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:"
        "clock=global:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio) [active]",
        "hist:keys=pid,prio:vals=hitcount:sort=pid,prio:size=2048 [active]"]
    at = lines.index("== wakeup_latency hist:")
    body = lines[at + 6:lines.index("", at + 6)]
    entries = [re.match(r"^\{ pid: +(\d+), prio: +(\d+) \} hitcount: +(\d+)$", line) for line in body]
    assert entries and all(entries), lines
    pids = [int(m.group(1)) for m in entries]
    assert pids == sorted(pids)
    hits = sum(int(m.group(3)) for m in entries)
    assert totals(lines, at)[:2] == (hits, len(entries))
    at = lines.index("== trace:")
    events = [re.search(r" wakeup_latency: lat=(\d+) pid=(\d+) prio=(\d+)$", line)
              for line in lines[at + 1:lines.index("== busy:")]]
    assert events and all(events), lines
    assert {int(m.group(2)) for m in events} <= set(pids)
    assert "sched_waking's hist is in use" in lines and "wakeup_latency is in use" in lines
    at = lines.index("== onmax:")
    body = lines[at + 6:lines.index("", at + 6)]
    keys, saved = body[0::2], body[1::2]
    assert keys and all(re.match(r"^\{ next_pid: +\d+ \} hitcount: +\d+$", k) for k in keys), lines
    pattern = (r"^\tmax: +(\d+)  next_comm: (.{32})  prev_pid: +\d+  prev_prio: +\d+  prev_comm: .{32}$")
    found = [re.match(pattern, line) for line in saved]
    assert all(found), lines
    assert any(int(m.group(1)) > 0 and m.group(1) and m.group(2).strip() for m in found)
    assert lines[-1] == "== done"


def test_hist_kmalloc_stacktrace_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "hist_kmalloc_stacktrace.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    info = "hist:keys=stacktrace:vals=hitcount,bytes_req,bytes_alloc:sort=bytes_alloc:size=2048 [active]"
    assert lines[1] == info
    at = lines.index("== hist:")
    body = "\n".join(lines[at + 6:lines.index("Totals:")])
    entries = body.split("\n{ ")
    assert entries[0].startswith("{ stacktrace:\n"), lines
    allocs = []
    for entry in entries:
        frames = entry.splitlines()
        assert frames[0].endswith("stacktrace:"), entry
        assert all(re.fullmatch(r" {9}\S+\+0x[0-9a-f]+/0x[0-9a-f]+", f) for f in frames[1:-1]), entry
        # as on 6.1, the first frame is the allocation's caller: the function of the tracepoint
        # (kmalloc_trace, __kmalloc: kmalloc itself is inline) is not in the stack
        assert not re.match(r" {9}(__kmalloc|kmalloc_trace|kmalloc_large)\+", frames[1]), entry
        m = re.fullmatch(r"\} hitcount: +(\d+)  bytes_req: +(\d+)  bytes_alloc: +(\d+)", frames[-1])
        assert m and int(m[2]) <= int(m[3]), entry
        allocs.append(int(m[3]))
    assert allocs == sorted(allocs)
    hits, n, dropped = totals(lines, at)
    assert n == len(entries) and dropped == 0


def test_kprobe_hist_recipe():
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "kprobe_hist.sh"), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1:6] == ["hist:keys=dfd:vals=hitcount:sort=hitcount:size=2048 [active]",
                          "hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending:size=2048 [active]",
                          "== enable:", "0*", "== hist:"], lines
    # every open the three cats make is relative to the cwd (AT_FDCWD as the u64 it was stored as)
    assert re.search(r"\n\{ dfd: 4294967196 \} hitcount: +\d+\n", result.stdout), lines
    cats = [line for line in lines if re.fullmatch(r"\{ common_pid: cat +\[ *\d+\] \} hitcount: +\d+", line)]
    assert len(cats) >= 3, lines


def test_hist_wakeup_latency_snapshot_recipe():
    """histogram.rst's onmax($wakeup_lat).snapshot(): the hist file's "Snapshot taken" section
    (6.1's track_data_snapshot_print()) names the global maximum -- the largest of the entries'
    maxima -- and its key, whose entry has it; the snapshot ends with the sched_switch that took
    it; the snapshot file is EBUSY while the trigger holds it."""
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "hist_wakeup_latency_snapshot.sh"), timeout=240)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    lines = out.splitlines()
    at = lines.index("== hist:")
    body = lines[at + 6:lines.index("", at + 6)]
    keys, saved = body[0::2], body[1::2]
    pids = [int(re.match(r"^\{ next_pid: +(\d+) \} hitcount: +\d+$", k).group(1)) for k in keys]
    # (a wakeup whose switch came in the same microsecond has a latency of 0, which is no new
    # maximum: onmax() saved nothing for it, as 6.1's track_data_max())
    maxima = [int(re.match(r"^\tmax: +(\d+)  next_prio: +\d+  next_comm: (sleep {27}| {32})  prev_pid: ", s)
                  .group(1)) for s in saved]
    assert pids and len(maxima) == len(pids), out
    section = re.search(r"\n\nSnapshot taken \(see tracing/snapshot\)\.  Details:\n"
                        r"\ttriggering value \{ onmax\(\$wakeup_lat\) \}: +(\d+)\ttriggered by event with key: "
                        r"\{ next_pid: +(\d+) \}\n\nTotals:\n", out)
    assert section, out
    value, pid = int(section.group(1)), int(section.group(2))
    assert value == max(maxima) and maxima[pids.index(pid)] == value, out
    # (at or near the end, as histogram.rst says: another cpu's records of the same moment may follow)
    at = lines.index("== snapshot:")
    assert any(re.search(rf" sched_switch: prev_comm=.* ==> next_comm=sleep next_pid={pid} next_prio=\d+$", line)
               for line in lines[at + 1:at + 4]), out
    assert "the snapshot is the hist trigger's" in lines and "free again" in lines, out
    assert lines[-1] == "== done"


def test_hist_wakeup_latency_comm_recipe():
    """A string variable (wcomm=comm on sched_waking) carried by onmatch() into a char[16]
    field of the synthetic event, through fully qualified references: each wakeup_latency
    record names the task it woke, the sleep program among them; the synthetic event's hist
    counts them by pid and comm."""
    result = tracefs_sim("run", str(REPO / "mountpoint_scripts" / "hist_wakeup_latency_comm.sh"), timeout=240)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    lines = out.splitlines()
    at = lines.index("== triggers:")
    assert lines[at + 1:at + 3] == [
        "hist:keys=pid:vals=hitcount:ts0=common_timestamp.usecs,wcomm=comm:sort=hitcount:size=2048:clock=global "
        "[active]",
        "hist:keys=next_pid:vals=hitcount:wakeup_lat=common_timestamp.usecs-$sched.sched_waking.ts0:sort=hitcount:"
        "size=2048:clock=global:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,"
        "sched.sched_waking.$wcomm) [active]"]
    at = lines.index("== wakeup_latency hist:")
    body = lines[at + 6:lines.index("", at + 6)]
    entries = [re.match(r"^\{ pid: +(\d+), comm: (.{50}) \} hitcount: +(\d+)$", line) for line in body]
    assert entries and all(entries), out
    pairs = {(int(m.group(1)), m.group(2).rstrip()) for m in entries}
    at = lines.index("== trace:")
    records = [re.search(r" wakeup_latency: lat=\d+ pid=(\d+) comm=(\S+)$", line)
               for line in lines[at + 1:lines.index("== done")]]
    assert records and all(records), out
    # written from sched_switch's trigger (irqs off, preempt depth 2) two levels deeper, as 6.1's
    # (the trigger's record held reserved, ring_buffer_nest_start())
    assert all(re.search(r"\] d.\.4. ", line) for line in lines[at + 1:lines.index("== done")]), out
    # the sleep program was woken from its sleep: its record and its hist entry name it
    sleeps = {(int(m.group(1)), m.group(2)) for m in records if m.group(2) == "sleep"}
    assert sleeps and sleeps <= pairs, out
    assert {comm for _, comm in pairs} >= {"sleep"} and all(comm for _, comm in pairs), out


def _percent_61(val: int, total: int) -> str:
    """6.1's __get_percentage() as hist_trigger_print_val() prints it (the total a u64)."""
    total &= (1 << 64) - 1
    if total and val < ((1 << 64) - 1) // 10000:
        pc = val * 10000 // total & 0xFFFFFFFF
    elif total // 10000:
        pc = val // (total // 10000) & 0xFFFFFFFF
    else:
        pc = 0xFFFFFFFF if val else 0
    return "[ERROR]" if pc == 0xFFFFFFFF else f" {pc // 100:3d}.{pc % 100:02d}"


def run_lines(script: str) -> list[str]:
    """The output lines of a `tracefs-sim run -c SCRIPT` that succeeded."""
    result = tracefs_sim("run", "-c", script, timeout=180)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_hist_percent_of_a_column_through_the_mount():
    # sys_exit's ret sums wrap (failed calls return -errno): 6.1 prints past 100% or [ERROR];
    # the refused .percent key leaves the trigger file as it was
    script = ("cd /sys/kernel/tracing; E=events/raw_syscalls/sys_exit\n"
              "echo 'hist:keys=id:vals=ret,ret.percent:sort=id' >> $E/trigger\n"
              "echo 'hist:keys=id.percent' >> $E/trigger 2>/dev/null || echo refused\n"
              "cat /nonexistent 2>/dev/null; ls /proc > /dev/null; cat /nonexistent 2>/dev/null\n"
              "cat $E/trigger; cat error_log; cat $E/hist\n")
    lines = run_lines(script)
    assert lines[:2] == ["refused", "hist:keys=id:vals=hitcount,ret,ret.percent:sort=id:size=2048 [active]"]
    assert lines[3:5] == ["  Command: hist:keys=id.percent", " " * 24 + "^"]
    rows = [re.match(r"^\{ id: +\d+ \} hitcount: +\d+  ret: +(\d+)  ret \(%\):(.*)$", line) for line in lines
            if line.startswith("{ id:")]
    assert rows and all(rows), lines
    sums = [int(m.group(1)) for m in rows]
    assert any(s >= 1 << 63 for s in sums)      # a negative sum is there
    assert [m.group(2) for m in rows] == [_percent_61(s, sum(sums)) for s in sums]


def test_hist_expressions_constants_and_timestamps_through_the_mount():
    # kmalloc's slack (bytes_alloc-bytes_req) per pid: a value 6.1 does not print but sorts by,
    # checked against a second trigger's bytes_alloc and bytes_req; a constant value with no
    # name; common_timestamp.usecs summed (clock=global in the read-back) and sorted by; a key
    # expression with an operand's .log2
    script = ("cd /sys/kernel/tracing; E=events/kmem/kmalloc\n"
              "echo 'hist:keys=common_pid:vals=bytes_alloc-bytes_req,1:sort=bytes_alloc-bytes_req.descending'"
              " >> $E/trigger\n"
              "echo 'hist:keys=common_pid:vals=bytes_alloc,bytes_req' >> $E/trigger\n"
              "echo 'hist:keys=bytes_req.log2+1:vals=common_timestamp.usecs:sort=common_timestamp' >> $E/trigger\n"
              "cat /etc/passwd > /dev/null; ls / > /dev/null\n"
              "echo 0 > events/kmem/enable; cat $E/trigger; cat $E/hist\n")
    lines = run_lines(script)
    assert lines[:3] == [
        "hist:keys=common_pid:vals=hitcount,bytes_alloc-bytes_req,1:sort=bytes_alloc-bytes_req.descending:size=2048"
        " [active]",
        "hist:keys=common_pid:vals=hitcount,bytes_alloc,bytes_req:sort=hitcount:size=2048 [active]",
        "hist:keys=bytes_req.log2+1:vals=hitcount,common_timestamp.usecs:sort=common_timestamp.usecs:size=2048"
        ":clock=global [active]"]     # (the sort key read back with its value's modifier, as 6.1)
    slack = [re.match(r"^\{ common_pid: +(\d+) \} hitcount: +(\d+)  : +(\d+)$", line) for line in lines
             if re.match(r"^\{ common_pid: .*  : ", line)]
    sizes = {m.group(1): (int(m.group(2)), int(m.group(3)) - int(m.group(4))) for m in
             (re.match(r"^\{ common_pid: +(\d+) \} hitcount: +(\d+)  bytes_alloc: +(\d+)  bytes_req: +(\d+)$", line)
              for line in lines) if m}
    assert slack and all(slack) and sizes, lines
    assert all(m.group(2) == m.group(3) for m in slack)     # 1 a hit
    # (the pids whose events both triggers saw: not the shell's, which added them in turn, nor
    # the cat that reads them, nor a kernel task that allocated between the two writes)
    same = [m.group(1) for m in slack if m.group(1) in sizes and int(m.group(2)) == sizes[m.group(1)][0]]
    order = [sizes[pid][1] for pid in same]
    assert len(same) >= 2 and order == sorted(order, reverse=True) and any(order), lines
    logs = [re.match(r"^\{ bytes_req\.log2\+1: +(\d+) \} hitcount: +(\d+)  common_timestamp: +(\d+)$", line)
            for line in lines if line.startswith("{ bytes_req")]
    assert logs and all(logs), lines
    assert all(2 <= int(m.group(1)) <= 14 for m in logs)
    stamps = [int(m.group(3)) for m in logs]
    assert stamps == sorted(stamps)
    # a sum of times in microseconds since boot: about hitcount of them
    assert all(0 < int(m.group(3)) // int(m.group(2)) < 600_000_000 for m in logs)
