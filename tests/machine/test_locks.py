"""Locks: the out-of-line spinlock functions and mutexes of Linux 6.1 (kernel/spinlock.c,
qspinlock.c, mutex.c) and their contention events."""
import fnmatch

from guest_events import EventCapture, Record

LOCK_FUNCTIONS = ["_raw_spin_lock", "_raw_spin_lock_irq", "_raw_spin_lock_irqsave", "_raw_spin_trylock",
                  "_raw_spin_unlock", "_raw_spin_unlock_irq", "_raw_spin_unlock_irqrestore"]


def test_spinlock_functions_are_traceable_and_in_the_lock_text(image):
    start, end = image.addr("__lock_text_start"), image.addr("__lock_text_end")
    for name in LOCK_FUNCTIONS:
        sym = image.lookup(name)
        assert sym.type == "T" and start <= sym.addr < end, name
        assert image.mcount_sites[name] == sym.addr, name
    for name in ("native_queued_spin_lock_slowpath", "raw_spin_rq_lock_nested", "raw_spin_rq_unlock",
                 "mutex_lock", "mutex_unlock", "mutex_trylock"):
        assert name in image.mcount_sites, name


def test_spin_lock_glob_finds_what_linux_has(image):
    """The issue's recipe: `echo '*spin_lock*' > set_ftrace_filter` selects these (6.1 also has
    the _bh variants and __pv_queued_spin_lock_slowpath)."""
    found = sorted(fnmatch.filter(image.mcount_sites, "*spin_lock*"))
    assert {"_raw_spin_lock", "_raw_spin_lock_irq", "_raw_spin_lock_irqsave",
            "native_queued_spin_lock_slowpath"} <= set(found)


def test_three_cpus_spinning_on_a_lock_queue_and_record_the_contention(make_machine):
    """On 4 cpus, programs starting and stopping take the scheduler's lock on all of them: a
    cpu whose slice ended inside the lock keeps it while the others spin, and the third
    contender queues (native_queued_spin_lock_slowpath), with contention_begin/end."""
    import time

    m = make_machine(cpus=4, workload="default")
    cap = EventCapture(m)
    cap.enable("lock:contention_begin", "lock:contention_end")
    sched_lock = m.image.lookup("sched_lock").addr
    recs, deadline = [], time.monotonic() + 60

    def spin_contentions() -> list[tuple[Record, Record]]:
        """Each spinlock contention (LCB_F_SPIN; a mutex's optimistic spin, LCB_F_MUTEX |
        LCB_F_SPIN, may come first) with its end: committed after it on its cpu (at the same
        time, maybe: the clock steps by blocks of guest code within a slice), on the same lock
        (an interrupt taken while spinning on a lock held without irqsave may contend on another
        one in between, as on Linux). A cpu still spinning when the buffer is read has no end
        yet."""
        pairs = []
        for i, begin in enumerate(recs):
            if begin.event != "lock:contention_begin" or begin.fields["flags"] != 1:
                continue
            end = next((r for r in recs[i + 1:] if r.event == "lock:contention_end" and r.cpu == begin.cpu
                        and r.fields["lock_addr"] == begin.fields["lock_addr"]), None)
            if end is not None:
                pairs.append((begin, end))
        return pairs

    def seen() -> bool:   # a contention ended, and one was on the scheduler's lock
        return bool(spin_contentions()) and any(r.fields["lock_addr"] == sched_lock for r in recs)
    while not seen() and time.monotonic() < deadline:
        for proc in [m.spawn(["dd", "if=/etc/passwd", "of=/dev/null", "bs=1", "count=200"]) for _ in range(6)]:
            proc.wait(30)
        recs = cap.records()
    pairs = spin_contentions()
    assert pairs and all(end.fields["ret"] == 0 for _, end in pairs)
    assert any(r.fields["lock_addr"] == sched_lock for r in recs)
