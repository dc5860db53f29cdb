"""The OOM killer (Linux 6.1's mm/oom_kill.c): when a page fault's allocation finds no page left,
the allocator's slow path asks out_of_memory, which kills the process with the most memory
(SIGKILL: status 137 as a shell reports it), prints 6.1's kernel log lines, marks it
(oom:mark_victim), and retries once the victim's memory is back. oom_score_adj moves the
choice; -1000 protects. The machines here have 96 MiB of RAM (programs get about 45 MiB), so
that filling it takes a second or two."""
import re
import time

import pytest
from guest_events import EventCapture

MEM = 96
KILLED = 128 + 9  # SIGKILL
KILL_LINE = (rb"Out of memory: Killed process (\d+) \(memhog\) total-vm:(\d+)kB, anon-rss:(\d+)kB, "
             rb"file-rss:(\d+)kB, shmem-rss:0kB, UID:0 pgtables:(\d+)kB oom_score_adj:(-?\d+)\n")


def started(proc, out: list, text: bytes, timeout: float = 60.0) -> None:
    """Wait until the program printed text (it holds its memory from then on)."""
    deadline = time.monotonic() + timeout
    while text not in b"".join(out):
        assert proc.wait(0) is None, (proc.wait(0), b"".join(out))
        assert time.monotonic() < deadline, b"".join(out)
        time.sleep(0.05)


@pytest.mark.timeout(180)
def test_a_program_touching_memory_without_end_is_killed(make_machine, run_program):
    m = make_machine(cpus=2, workload="none", memory_mb=MEM)
    cap = EventCapture(m)
    cap.enable("oom:mark_victim", "signal:signal_generate", "oom:reclaim_retry_zone")
    small_out: list = []
    small = m.spawn(["memhog", "-s", "4", "4"], small_out.append)  # 4 MiB, held 4 s
    started(small, small_out, b"memhog: 4 MiB touched\n")
    hog = m.spawn(["memhog", "0"])
    assert hog.wait(90) == KILLED
    # the other task lives on (the one with the most memory was chosen) and ends by itself
    assert small.wait(0) is None
    assert small.wait(30) == 0
    log = m.console_output()
    assert b"] memhog invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, " \
           b"oom_score_adj=0\n" in log, log[-3000:]
    table = log[log.index(b"Tasks state (memory values in pages):"):]
    assert b"] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n" in table
    rows = {int(pid): int(rss) for pid, rss in
            re.findall(rb"\] \[ *(\d+)\] +0 +\d+ +\d+ +(\d+) +\d+ +0 +0 memhog\n", table)}
    assert set(rows) == {small.pid, hog.pid}, table[:2000]
    assert rows[hog.pid] > 4 * rows[small.pid]
    assert (b"] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
            b"task_memcg=/,task=memhog,pid=%d,uid=0\n" % hog.pid) in table
    kills = re.findall(KILL_LINE, log)
    assert len(kills) == 1, log[-3000:]
    pid, total_vm, anon, file_rss, pgtables, adj = (int(v) for v in kills[0])
    assert pid == hog.pid and adj == 0
    assert 16 << 10 < anon <= total_vm and pgtables > 0
    # oom:mark_victim with the same figures, and the SIGKILL the kill sent it
    recs = cap.wait_for("oom:mark_victim", timeout=10)
    victims = [r.fields for r in recs if r.event == "oom:mark_victim"]
    assert len(victims) == 1
    v = victims[0]
    assert v["pid"] == hog.pid and v["comm"].rstrip(b"\0") == b"memhog" and v["uid"] == 0
    assert (v["total_vm"], v["anon_rss"], v["file_rss"], v["shmem_rss"], v["pgtables"], v["oom_score_adj"]) == \
        (total_vm, anon, file_rss, 0, pgtables, 0)
    assert any(r.event == "signal:signal_generate" and r.fields["sig"] == 9 and r.fields["pid"] == hog.pid
               for r in recs)
    # before it, the allocator's retry check: nothing reclaimable (no page cache), free pages
    # down to the min watermark, in zone DMA32 (1)
    retries = [r.fields for r in recs if r.event == "oom:reclaim_retry_zone" and r.fields["common_pid"] == hog.pid]
    assert retries and all(f["node"] == 0 and f["zone_idx"] == 1 and f["order"] == 0 and f["reclaimable"] == 0
                           and f["available"] <= f["min_wmark"] and f["wmark_check"] == 0 for f in retries)
    # its memory came back: a program can have it again
    status, out = run_program(m, ["memhog", "24"])
    assert (status, out) == (0, b"memhog: 24 MiB touched\n")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("adj", ["0", "-1000"])
def test_oom_score_adj_decides_the_victim(make_machine, adj):
    """A process holding 28 MiB and one growing to 24: at the OOM the holder has more, and is
    killed, after which the grower's allocation succeeds and it ends normally; with an
    oom_score_adj of -1000 the holder is never chosen: the grower is."""
    m = make_machine(cpus=2, workload="none", memory_mb=MEM)
    holder_out: list = []
    holder = m.spawn(["memhog", "-a", adj, "-s", "6", "28"], holder_out.append)
    started(holder, holder_out, b"memhog: 28 MiB touched\n")
    grower_out: list = []
    grower = m.spawn(["memhog", "24"], grower_out.append)
    if adj == "0":
        assert holder.wait(90) == KILLED
        assert grower.wait(60) == 0 and b"".join(grower_out) == b"memhog: 24 MiB touched\n"
        victim = holder
    else:
        assert grower.wait(90) == KILLED
        assert holder.wait(60) == 0
        victim = grower
    kills = re.findall(KILL_LINE, m.console_output())
    assert [int(k[0]) for k in kills] == [victim.pid]
    rows = dict(re.findall(rb"\] \[ *\d+\] +0 +(\d+) +\d+ +\d+ +\d+ +0 +(-?\d+) memhog\n", m.console_output()))
    assert rows == {b"%d" % holder.pid: adj.encode(), b"%d" % grower.pid: b"0"}


@pytest.mark.timeout(120)
def test_proc_oom_score_adj_and_oom_score(make_machine, run_program):
    """/proc/PID/oom_score_adj reads and writes -1000..1000 (EINVAL outside or for what is not a
    number), each write an oom:oom_score_adj_update; oom_score is the badness as 0..2000."""
    m = make_machine(cpus=1, workload="none", memory_mb=MEM)
    cap = EventCapture(m)
    cap.enable("oom:oom_score_adj_update")
    script = ("cat /proc/self/oom_score_adj /proc/self/oom_score; echo 500 > /proc/self/oom_score_adj; "
              "cat /proc/self/oom_score_adj /proc/self/oom_score; "
              "for v in 1001 -1001 abc 0x10; do echo $v > /proc/self/oom_score_adj && echo ok $v; done; "
              "cat /proc/self/oom_score_adj; echo -1000 > /proc/self/oom_score_adj; cat /proc/self/oom_score")
    status, out = run_program(m, ["/bin/busybox", "sh", "-c", script])
    assert status == 0, out
    lines = out.decode().splitlines()
    errors = [line for line in lines if line.startswith("sh: ")]
    assert errors == ["sh: write error: Invalid argument"] * 3, out
    values = [line for line in lines if not line.startswith("sh: ")]
    assert values[0] == "0" and values[2] == "500" and values[4:] == ["ok 0x10", "16", "0"], out
    # (1000 + points * 1000 / RAM's pages) * 2 / 3: its own pages (a few) put it above 666, and
    # 500 adds 500 thousandths of RAM (rounded down to whole thousands of pages): about 333 more
    score0, score500 = int(values[1]), int(values[3])
    assert 666 <= score0 < 700 and 280 <= score500 - score0 <= 334, out
    recs = cap.wait_for("oom:oom_score_adj_update", timeout=10, where=lambda r: r.fields["oom_score_adj"] == -1000)
    updates = [(r.fields["comm"].rstrip(b"\0"), r.fields["oom_score_adj"]) for r in recs
               if r.event == "oom:oom_score_adj_update"]
    assert updates == [(b"busybox", 500), (b"busybox", 16), (b"busybox", -1000)], updates


# (function, its caller) on the way from a page fault to the kill, as in 6.1's mm/oom_kill.c
# and mm/page_alloc.c (__alloc_pages_slowpath.constprop.0 and dump_header are symbols there,
# not traceable; select_bad_process, dump_tasks and __alloc_pages_may_oom are inlined)
OOM_PATH = {
    ("out_of_memory", "__alloc_pages_slowpath.constprop.0"),
    ("oom_evaluate_task", "out_of_memory"),
    ("oom_badness", "oom_evaluate_task"),
    ("find_lock_task_mm", "oom_badness"),
    ("find_lock_task_mm", "dump_task"),
    ("find_lock_task_mm", "__oom_kill_process"),
    ("oom_kill_process", "out_of_memory"),
    ("task_will_free_mem", "out_of_memory"),
    ("task_will_free_mem", "oom_kill_process"),
    ("dump_task", "dump_header"),
    ("__oom_kill_process", "oom_kill_process"),
    ("mark_oom_victim", "__oom_kill_process"),
    ("process_shares_mm", "__oom_kill_process"),
    ("exit_oom_victim", "finish_task_switch.isra.0"),
}


@pytest.mark.timeout(180)
def test_the_oom_kill_takes_61s_call_chain(make_machine):
    from test_kernel_paths import traced_calls

    m = make_machine(traced=True, cpus=2, seed=3, memory_mb=MEM)
    funcs = {f for f, _ in OOM_PATH}
    calls = traced_calls(m, funcs, [(["memhog", "0"], None, KILLED)])
    assert calls == OOM_PATH, (OOM_PATH - calls, calls - OOM_PATH)


@pytest.mark.timeout(180)
def test_a_program_started_as_the_victim_exits_gets_its_memory(make_machine, run_program):
    """A program started the moment the victim's exit is told gets the memory: the machine's
    kernel puts a dead task's mm at its last switch, which its parent may reap it before, and the
    new program's allocations (its task_struct, its pages) then wait for that memory rather than
    find no one to kill (a panic, "System is deadlocked on memory", seen about one time in three
    before the OOM killer waited for such victims) or kill again. Three rounds on one machine
    (the race is timing-dependent: a pass here does not prove its absence)."""
    m = make_machine(cpus=2, workload="none", memory_mb=MEM)
    for _ in range(3):
        assert run_program(m, ["memhog", "0"], timeout=90)[0] == KILLED
        assert run_program(m, ["memhog", "28"], timeout=90) == (0, b"memhog: 28 MiB touched\n")
    assert len(re.findall(KILL_LINE, m.console_output())) == 3
