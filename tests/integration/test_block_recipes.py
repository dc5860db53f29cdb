"""The disk through tracefs: seed 001's NVMe recipe as written, and perf-tools' block I/O
scripts (Debian perf-tools-unstable, unmodified) on the disk writer's I/O."""

import os
import re
import shutil

import pytest
from simtest import REPO, section, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")
needs_perf_tools = pytest.mark.skipif(shutil.which("iosnoop-perf") is None,
                                      reason="perf-tools-unstable is not installed")
needs_mnt = pytest.mark.skipif(not os.path.isdir("/mnt"), reason="the host view mounts the disk on the host's /mnt")

CONTEXT = r"^ {0,16}\S.{0,15}-\d+ +\[\d{3}\] [.dDbXnNphHsSzZ0-9]{5} +\d+\.\d{6}: "
# perf-tools' lock file is for the host's real ftrace: a private /var/tmp for the session
PRIVATE_VAR_TMP = "mount -t tmpfs perf-tools-lock /var/tmp;"


@needs_mnt
def test_nvme_latency_recipe():
    result = tracefs_sim("run", "--workload", "none", str(REPO / "mountpoint_scripts" / "nvme_latency.sh"),
                         timeout=180)
    assert result.returncode == 0, result.stderr
    events = [l for l in section(result.stdout, "events") if not l.startswith("/mnt/")]  # (the program's own line)
    issues = [l for l in events if " block_rq_issue: " in l]
    completes = [l for l in events if " block_rq_complete: " in l]
    # four 4 KiB writes from the program's fsync, then the cache flush
    assert [re.sub(r" \d+ \+ 8 ", " N + 8 ", l.split(": ", 1)[1]) for l in issues] == \
        ["block_rq_issue: 259,0 WS 4096 () N + 8 [diskwriter]"] * 4 + ["block_rq_issue: 259,0 FF 0 () 0 + 0 [diskwriter]"]
    assert [l for l in events if not re.match(CONTEXT + r"block_rq_(issue|complete): ", l)] == []
    # completed in the disk's interrupt: hardirq context
    assert len(completes) == 5
    assert [l for l in completes if not (re.search(r"\] d.h", l) and l.endswith(" [0]"))] == []
    graph = section(result.stdout, "graph")
    assert graph[:3] == ["# tracer: function_graph", "#", "# CPU  DURATION                  FUNCTION CALLS"]
    # (funcgraph-irqs is off: no interrupt nests in them. A timer interrupt in them still shows,
    # as on 6.1, irq_enter_rcu(), entered before the hardirq count rises, and the softirqs run
    # on its way out, after it fell)
    calls = without_softirqs([l.split("|", 1)[1] for l in graph[4:] if "|" in l])
    # (nvme_setup_rw is an inline in 6.1's nvme core, part of nvme_setup_cmd there as here)
    assert [re.sub(r"\(\)(;| \{)$", "", c) for c in calls[:4]] == \
        ["nvme_queue_rq", "nvme_prep_rq", "nvme_setup_cmd", "nvme_map_data"]
    assert calls[:2] == ["nvme_queue_rq() {", "nvme_prep_rq() {"] and "nvme_setup_rw" not in str(calls)
    assert "blk_mq_start_request();" in calls and "nvme_map_data();" in calls, graph
    assert not [c for c in calls if "interrupt" in c or c.startswith("irq_")], graph


def without_softirqs(calls: list[str]) -> list[str]:
    """A function graph's calls, stripped, less the trace of an interrupt's way in and out."""
    kept: list[str] = []
    softirq_depth = -1
    for call in calls:
        depth = len(call) - len(call.lstrip())
        if softirq_depth >= 0:
            if depth == softirq_depth and call.strip() == "}":
                softirq_depth = -1
            continue
        if call.strip() == "handle_softirqs() {":
            softirq_depth = depth
        elif call.strip() not in ("irq_enter_rcu();", "handle_softirqs();"):
            kept.append(call.strip())
    return kept


@needs_perf_tools
def test_iosnoop_iolatency_and_bitesize_show_the_disk_writers_io():
    result = tracefs_sim("run", "--workload", "default", "-c",
                         PRIVATE_VAR_TMP + "echo '== iosnoop'; timeout 60 iosnoop-perf 2; "
                         "echo '== iolatency'; timeout 60 iolatency-perf 2 1; "
                         "echo '== bitesize'; timeout 60 bitesize-perf 2", timeout=240)
    assert result.returncode == 0, result.stderr
    snoop = section(result.stdout, "iosnoop")
    assert snoop[:2] == ["Tracing block I/O for 2 seconds (buffered)...",
                         "COMM         PID    TYPE DEV      BLOCK        BYTES     LATms"]
    rows = [l.split() for l in snoop[2:] if l.strip() and not l.startswith("Ending")]
    assert rows, snoop
    for comm, pid, kind, dev, block, size, lat in rows:
        assert (comm == "diskwriter" or comm.startswith("kworker/")) and dev == "259,0", rows
        assert kind in ("W", "WS", "FF") and int(size) in (0, 4096) and float(lat) >= 0
    latency = section(result.stdout, "iolatency")
    assert latency[0] == "Tracing block I/O. Output every 2 seconds."
    counts = [int(m.group(1)) for l in latency if (m := re.match(r"^ +\d+ -> \d+ +: (\d+) +\|", l))]
    assert counts and sum(counts) > 0, latency
    # (bitesize: `perf stat -o /dev/stdout` of block:block_rq_issue with filters on nr_sector,
    # a bucket each; the writer's 4 KiB pages are in 1.0 -> 7.9, its cache flushes in -> 0.9)
    sizes = section(result.stdout, "bitesize")
    assert sizes[0] == "Tracing block I/O size (bytes), for 2 seconds...", sizes
    buckets = {m.group(1).strip(): int(m.group(2)) for l in sizes
               if (m := re.match(r"^ +([\d. ]*-> [\d.]*) +: (\d+) +\|", l))}
    assert list(buckets) == ["-> 0.9", "1.0 -> 7.9", "8.0 -> 63.9", "64.0 -> 127.9", "128.0 ->"], sizes
    assert buckets["1.0 -> 7.9"] > 0 and sum(buckets.values()) == buckets["-> 0.9"] + buckets["1.0 -> 7.9"], sizes


@needs_mnt
def test_blk_tracer_recipe():
    """The blk tracer as Documentation and blktrace's manual teach it, with echo and cat: the
    disk's trace/ attributes are the emulated kernel's (kernel/blktrace.c), its errnos too."""
    script = """T=/sys/kernel/tracing
D=/sys/block/nvme0n1/trace
cat $D/enable $D/act_mask
echo 1 > $D/enable
echo blk > $T/current_tracer
tracefs-sim exec diskwriter /mnt/blk-recipe 8192 fsync
echo '== trace'
cat $T/trace
echo '== attrs'
cat $D/enable $D/pid $D/start_lba $D/end_lba
echo queue,Complete > $D/act_mask; cat $D/act_mask
echo bogus > $D/act_mask || echo refused
echo 0 > $D/enable; cat $D/enable $D/act_mask
echo nop > $T/current_tracer
"""
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=180)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("0\ndisabled\n")
    trace = section(result.stdout, "trace")
    assert trace[:2] == ["# tracer: blk", "#"]
    lines = trace[2:]
    assert lines and [l for l in lines if not re.match(CONTEXT + r"259,0 +[A-Z]{1,2} +[A-Z]{1,3} ", l)] == []
    writes = [re.sub(r" \d+ \+ 8 ", " N + 8 ", l.split(": ", 1)[1]) for l in lines if "[diskwriter]" in l]
    assert "259,0    Q  WS N + 8 [diskwriter]" in writes and "259,0    D  WS N + 8 [diskwriter]" in writes
    assert any(re.search(r"\] d.h.*259,0    C  WS \d+ \+ 8 \[0\]$", l) for l in lines)
    assert section(result.stdout, "attrs") == ["1", "0", "0", "131072", "queue,complete", "refused",
                                               "0", "disabled"]
    assert "Invalid argument" in result.stderr
