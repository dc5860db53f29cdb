"""Page reclaim (Linux 6.1's mm/vmscan.c): a machine whose free memory runs low reclaims the
page cache's clean pages.  kswapd is woken below the low watermark
(vmscan:mm_vmscan_wakeup_kswapd, mm_vmscan_kswapd_wake) and frees pages off the inactive file
list (mm_vmscan_lru_isolate, mm_vmscan_lru_shrink_inactive) until the high one, then sleeps
(mm_vmscan_kswapd_sleep); an allocation below the min watermark reclaims itself
(mm_vmscan_direct_reclaim_begin/end).  A file read back after its pages were reclaimed is read
from the disk again, correct.  The machines have 96 MiB of RAM (programs get about 45), the
disk 64."""
import pytest
from guest_events import EventCapture

MEM = 96
VMSCAN = ("vmscan:mm_vmscan_wakeup_kswapd", "vmscan:mm_vmscan_kswapd_wake", "vmscan:mm_vmscan_kswapd_sleep",
          "vmscan:mm_vmscan_direct_reclaim_begin", "vmscan:mm_vmscan_direct_reclaim_end",
          "vmscan:mm_vmscan_lru_isolate", "vmscan:mm_vmscan_lru_shrink_inactive",
          "vmscan:mm_vmscan_lru_shrink_active")
FILE_ASYNC = 0x2 | 0x8  # RECLAIM_WB_FILE | RECLAIM_WB_ASYNC
GFP_HIGHUSER_MOVABLE_COMP_ZERO = 0x140dca  # a fault's anonymous page (as the OOM test's)


def by_event(recs) -> dict:
    out: dict = {}
    for r in recs:
        out.setdefault(r.event, []).append(r)
    return out


def write_file(run_program, m, name, mib):
    status, out = run_program(m, ["pagecache", "write", f"/mnt/{name}", str(mib)], timeout=120)
    assert (status, out) == (0, b"pagecache: %d MiB written\n" % mib)


def read_file(run_program, m, name, mib):
    status, out = run_program(m, ["pagecache", "read", f"/mnt/{name}"], timeout=120)
    assert (status, out) == (0, b"pagecache: %d MiB read, data correct\n" % mib)


@pytest.mark.timeout(300)
def test_reading_files_larger_than_free_memory_wakes_kswapd(make_machine, run_program):
    """Two files of 24 MiB read in turn: the second's pages need the first's room, which
    kswapd frees (on the other cpu, in time: no direct reclaim needed)."""
    m = make_machine(cpus=2, workload="none", memory_mb=MEM)
    write_file(run_program, m, "a", 24)
    write_file(run_program, m, "b", 24)
    cap = EventCapture(m)
    cap.enable(*VMSCAN, "kmem:mm_page_free")
    for name in ("a", "b", "a"):
        read_file(run_program, m, name, 24)
    # once the node is balanced, kswapd naps (HZ/10), then sleeps until woken
    ev = by_event(cap.wait_for("vmscan:mm_vmscan_kswapd_sleep", timeout=30))
    wakeups = ev["vmscan:mm_vmscan_wakeup_kswapd"]
    assert all(r.fields["nid"] == 0 and r.fields["order"] == 0 for r in wakeups)
    wakes = ev["vmscan:mm_vmscan_kswapd_wake"]
    pid = wakes[0].fields["common_pid"]
    assert all(r.fields["common_pid"] == pid and r.fields["nid"] == 0 for r in wakes)
    assert all(r.fields["common_pid"] == pid for r in ev["vmscan:mm_vmscan_kswapd_sleep"])
    shrink = ev["vmscan:mm_vmscan_lru_shrink_inactive"]
    reclaimed = sum(r.fields["nr_reclaimed"] for r in shrink)
    assert reclaimed > 16 << 8  # 16 MiB at least: the files do not fit together
    assert all(r.fields["reclaim_flags"] == FILE_ASYNC and r.fields["nid"] == 0 for r in shrink)
    assert all(r.fields["nr_reclaimed"] <= r.fields["nr_scanned"] <= 32 for r in shrink)
    isolate = ev["vmscan:mm_vmscan_lru_isolate"]
    assert {r.fields["lru"] for r in isolate} <= {2, 3}  # inactive_file, active_file
    assert sum(r.fields["nr_taken"] for r in isolate if r.fields["lru"] == 2) >= reclaimed
    # the pages went back to the allocator, freed by kswapd
    freed = [r for r in ev["kmem:mm_page_free"] if r.fields["common_pid"] == pid]
    assert len(freed) >= reclaimed
    assert not ev.get("vmscan:mm_vmscan_direct_reclaim_begin")


@pytest.mark.timeout(300)
def test_an_allocation_below_min_reclaims_directly(make_machine, run_program):
    """On one cpu, a program touching anonymous memory runs ahead of kswapd (woken, but not
    running until the program lets it): its faults find the zone below min and reclaim the
    cached file's pages themselves; the file then reads back from the disk, correct."""
    m = make_machine(cpus=1, workload="none", memory_mb=MEM)
    write_file(run_program, m, "a", 24)
    cap = EventCapture(m)
    cap.enable(*VMSCAN)
    status, out = run_program(m, ["memhog", "36"], timeout=120)
    assert (status, out) == (0, b"memhog: 36 MiB touched\n")
    read_file(run_program, m, "a", 24)
    ev = by_event(cap.records())
    begins, ends = ev["vmscan:mm_vmscan_direct_reclaim_begin"], ev["vmscan:mm_vmscan_direct_reclaim_end"]
    assert len(begins) == len(ends) > 0
    hog = begins[0].fields["common_pid"]
    assert all(r.fields["order"] == 0 and r.fields["gfp_flags"] == GFP_HIGHUSER_MOVABLE_COMP_ZERO
               for r in begins if r.fields["common_pid"] == hog)
    # each freed a batch (SWAP_CLUSTER_MAX, 32, at least), in its own task
    assert all(r.fields["nr_reclaimed"] >= 32 for r in ends)
    assert {r.fields["common_pid"] for r in ends} == {r.fields["common_pid"] for r in begins}
    shrink = [r for r in ev["vmscan:mm_vmscan_lru_shrink_inactive"] if r.fields["common_pid"] == hog]
    assert sum(r.fields["nr_reclaimed"] for r in shrink) == \
        sum(r.fields["nr_reclaimed"] for r in ends if r.fields["common_pid"] == hog)
