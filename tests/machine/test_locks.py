"""Locks: the out-of-line spinlock functions and mutexes of Linux 6.1 (kernel/spinlock.c,
qspinlock.c, mutex.c) and their contention events."""
import fnmatch

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
