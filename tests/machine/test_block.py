"""The disk: an NVMe-like controller in the machine, the block layer and the NVMe driver in the
kernel, simplefs on /mnt with the page cache in front and the flusher behind."""
from guest_events import EventCapture

BLOCK = ("block:block_bio_queue", "block:block_getrq", "block:block_plug", "block:block_unplug",
         "block:block_rq_issue", "block:block_rq_complete", "block:block_bio_complete")
NVME_DEV = (259 << 20) | 0  # nvme0n1
HARDIRQ = 0x08


def _mine(recs, pid):
    return [r for r in recs if r.fields["common_pid"] == pid]


def test_the_disk_is_nvme0n1_mounted_on_mnt(make_machine, run_program):
    m = make_machine(cpus=2, workload="none")
    status, out = run_program(m, ["cat", "/proc/mounts"])
    assert status == 0
    assert b"/dev/nvme0n1 /mnt simplefs rw,nosuid,nodev,relatime 0 0\n" in out
    assert b"nvme0n1: 131072 sectors" in m.console_output()


def test_a_fsynced_file_is_on_the_disk(make_machine, run_program):
    """fsync writes the file's pages (its 3 blocks: a 4 KiB-aligned write each) and flushes the
    disk's cache; the bytes are in the disk's storage."""
    m = make_machine(cpus=2, workload="none")
    before = m.disk.state.commands
    status, out = run_program(m, ["diskwriter", "/mnt/f", "12288", "fsync"], timeout=60)
    assert (status, out) == (0, b"/mnt/f: 12288 bytes, fsync = 0\n")
    assert m.disk.state.commands - before == 4  # 3 writes and a flush
    image = m.disk.read(0, 64 << 20)
    assert image.count(b"x" * 4096) >= 3


def test_fsync_events_in_order(make_machine, run_program):
    """A program's fsync: each page's bio queued, given a request, plugged, issued by the
    writer; completed in the disk's interrupt (hardirq context, irq 24 nvme0q1), then the
    flush ("FF" request from an "FWS" bio)."""
    m = make_machine(cpus=2, workload="none")
    cap = EventCapture(m)
    cap.enable(*BLOCK, "irq:irq_handler_entry", "irq:irq_handler_exit")
    status, _ = run_program(m, ["diskwriter", "/mnt/g", "8192", "fsync"], timeout=60)
    assert status == 0
    recs = cap.wait_for("block:block_rq_complete", timeout=30,
                        where=lambda r: r.fields["rwbs"].rstrip(b"\0") == b"FF")
    block = [r for r in recs if r.event.startswith("block:")]
    writer = next(r.fields["common_pid"] for r in block if r.event == "block:block_bio_queue")
    issued = [r for r in block if r.event == "block:block_rq_issue"]
    data = [r for r in issued if r.fields["rwbs"].rstrip(b"\0") == b"WS"]
    assert len(data) == 2 and all(r.fields["common_pid"] == writer for r in data)
    assert all(r.fields["dev"] == NVME_DEV and r.fields["bytes"] == 4096 and r.fields["nr_sector"] == 8
               for r in data)
    names = [r.event.split(":")[1] for r in _mine(block, writer)]
    assert names[:5] == ["block_bio_queue", "block_getrq", "block_plug", "block_bio_queue", "block_getrq"]
    assert names.index("block_rq_issue") > names.index("block_plug")
    completes = [r for r in block if r.event == "block:block_rq_complete"]
    for r in completes:
        assert r.fields["common_flags"] & HARDIRQ and r.fields["error"] == 0
    sectors = sorted(r.fields["sector"] for r in data)
    assert sorted(r.fields["sector"] for r in completes if r.fields["rwbs"].rstrip(b"\0") == b"WS") == sectors
    assert [r.fields["rwbs"].rstrip(b"\0") for r in block if r.event == "block:block_bio_queue"][-1] == b"FWS"
    irqs = [r for r in recs if r.event == "irq:irq_handler_entry" and r.fields["irq"] == 24]
    assert irqs and all(r.fields["name"] == b"nvme0q1" for r in irqs)


def test_sync_is_written_back_by_a_kworker(make_machine, run_program):
    """sync(2): the flusher's work is queued for the disk (writeback_queue, reason sync) and a
    kworker runs it: it issues the write requests, the caller waits."""
    m = make_machine(cpus=2, workload="none")
    cap = EventCapture(m)
    cap.enable("block:block_rq_issue", "writeback:writeback_queue", "writeback:writeback_exec",
               "writeback:writeback_written", "writeback:writeback_dirty_folio",
               "writeback:writeback_mark_inode_dirty", "filemap:mm_filemap_add_to_page_cache",
               "sched:sched_switch")
    status, _ = run_program(m, ["diskwriter", "/mnt/h", "4096", "sync"], timeout=60)
    assert status == 0
    recs = cap.wait_for("writeback:writeback_written", timeout=30)
    added = [r for r in recs if r.event == "filemap:mm_filemap_add_to_page_cache"]
    assert added and added[0].fields["s_dev"] == NVME_DEV and added[0].fields["index"] == 0
    dirtied = [r for r in recs if r.event == "writeback:writeback_dirty_folio"]
    assert dirtied and dirtied[0].fields["name"].rstrip(b"\0") == b"259:0"
    queued = [r for r in recs if r.event == "writeback:writeback_queue"]
    assert any(r.fields["reason"] == 2 and r.fields["sync_mode"] == 1 for r in queued)  # WB_REASON_SYNC, WB_SYNC_ALL
    issue = next(r for r in recs if r.event == "block:block_rq_issue")
    comms = {r.fields["next_pid"]: r.fields["next_comm"].rstrip(b"\0") for r in recs if r.event == "sched:sched_switch"}
    assert issue.fields["comm"].rstrip(b"\0").startswith(b"kworker/")
    assert comms.get(issue.fields["common_pid"], b"kworker/").startswith(b"kworker/")


def test_rewriting_a_file_truncates_it(make_machine, run_program):
    """O_TRUNC of a written file (the VFS holds its lock over the truncation): its cached pages
    leave the cache (mm_filemap_delete_from_page_cache); the new data go to the disk."""
    m = make_machine(cpus=2, workload="none")
    cap = EventCapture(m)
    cap.enable("filemap:mm_filemap_delete_from_page_cache", "block:block_rq_issue")
    for size in ("16384", "8192"):
        status, out = run_program(m, ["diskwriter", "/mnt/t", size, "fsync"], timeout=60)
        assert (status, out) == (0, f"/mnt/t: {size} bytes, fsync = 0\n".encode())
    recs = cap.wait_for("filemap:mm_filemap_delete_from_page_cache", timeout=30)
    deleted = sorted(r.fields["index"] for r in recs if r.event == "filemap:mm_filemap_delete_from_page_cache")
    assert deleted == [0, 1, 2, 3]
    writes = [r.fields["sector"] for r in recs if r.event == "block:block_rq_issue" and r.fields["bytes"] == 4096]
    assert len(writes) == 6


def test_a_write_dirties_each_pages_buffer(make_machine, run_program):
    """simplefs's write_end is ext2's: each page written dirties its buffer head
    (mark_buffer_dirty → block:block_dirty_buffer: the disk, the page's block, 4096 bytes),
    once until it is written: the pages of a 3-page write, each at its own block."""
    m = make_machine(cpus=2, workload="none")
    cap = EventCapture(m)
    cap.enable("block:block_dirty_buffer", "block:block_rq_issue")
    status, _ = run_program(m, ["diskwriter", "/mnt/d", "12288", "fsync"], timeout=60)
    assert status == 0
    recs = cap.wait_for("block:block_rq_issue", timeout=30)
    dirty = [r for r in recs if r.event == "block:block_dirty_buffer"]
    assert len(dirty) == 3, dirty
    assert all(r.fields["dev"] == NVME_DEV and r.fields["size"] == 4096 for r in dirty)
    assert len({r.fields["sector"] for r in dirty}) == 3
