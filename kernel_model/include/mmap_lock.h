/*
 * The mmap_lock (include/linux/mmap_lock.h): an address space's VMAs are read under it (page
 * faults, /proc/PID/maps, gup) and changed under it held for writing (mmap, munmap, mprotect,
 * brk, a stack's growth).  A rw_semaphore, as 6.1's: the readers, two threads' faults say, run
 * at once, so what they change (page tables, PTEs, counters) has finer locks of its own
 * (mm->page_table_lock, atomic counters: kernel/memory.c).  Each lock, trylock and unlock
 * passes the mmap_lock tracepoints, whose out-of-line probes (mm/mmap_lock.c) are called only
 * while the event is enabled, as in Linux.
 */
#ifndef _MMAP_LOCK_H
#define _MMAP_LOCK_H
#include "trace/trace.h"

void __mmap_lock_do_trace_start_locking(struct mm_struct *mm, bool write);
void __mmap_lock_do_trace_acquire_returned(struct mm_struct *mm, bool write, bool success);
void __mmap_lock_do_trace_released(struct mm_struct *mm, bool write);

/* tracepoint_enabled(): the event is on for the trace or for perf/BPF */
#define mmap_lock_tracepoint_enabled(name) \
	(static_branch_unlikely(&__tracepoint_##name.key) || static_branch_unlikely(&__tracepoint_##name.kernel_key))

static __always_inline void __mmap_lock_trace_start_locking(struct mm_struct *mm, bool write)
{
	if (mmap_lock_tracepoint_enabled(mmap_lock_start_locking))
		__mmap_lock_do_trace_start_locking(mm, write);
}

static __always_inline void __mmap_lock_trace_acquire_returned(struct mm_struct *mm, bool write, bool success)
{
	if (mmap_lock_tracepoint_enabled(mmap_lock_acquire_returned))
		__mmap_lock_do_trace_acquire_returned(mm, write, success);
}

static __always_inline void __mmap_lock_trace_released(struct mm_struct *mm, bool write)
{
	if (mmap_lock_tracepoint_enabled(mmap_lock_released))
		__mmap_lock_do_trace_released(mm, write);
}

static inline void mmap_init_lock(struct mm_struct *mm)
{
	init_rwsem(&mm->mmap_lock);
}

static __always_inline void mmap_write_lock(struct mm_struct *mm)
{
	__mmap_lock_trace_start_locking(mm, true);
	down_write(&mm->mmap_lock);
	__mmap_lock_trace_acquire_returned(mm, true, true);
}

static __always_inline int mmap_write_lock_killable(struct mm_struct *mm)
{
	int ret;

	__mmap_lock_trace_start_locking(mm, true);
	ret = down_write_killable(&mm->mmap_lock);
	__mmap_lock_trace_acquire_returned(mm, true, ret == 0);
	return ret;
}

static __always_inline void mmap_write_unlock(struct mm_struct *mm)
{
	__mmap_lock_trace_released(mm, true);
	up_write(&mm->mmap_lock);
}

/* the writer keeps it for reading (a stack grown by a fault: lock_mm_and_find_vma) */
static __always_inline void mmap_write_downgrade(struct mm_struct *mm)
{
	__mmap_lock_trace_acquire_returned(mm, false, true);
	downgrade_write(&mm->mmap_lock);
}

static __always_inline void mmap_read_lock(struct mm_struct *mm)
{
	__mmap_lock_trace_start_locking(mm, false);
	down_read(&mm->mmap_lock);
	__mmap_lock_trace_acquire_returned(mm, false, true);
}

static __always_inline int mmap_read_lock_killable(struct mm_struct *mm)
{
	int ret;

	__mmap_lock_trace_start_locking(mm, false);
	ret = down_read_killable(&mm->mmap_lock);
	__mmap_lock_trace_acquire_returned(mm, false, ret == 0);
	return ret;
}

static __always_inline bool mmap_read_trylock(struct mm_struct *mm)
{
	bool ret;

	__mmap_lock_trace_start_locking(mm, false);
	ret = down_read_trylock(&mm->mmap_lock) != 0;
	__mmap_lock_trace_acquire_returned(mm, false, ret);
	return ret;
}

static __always_inline void mmap_read_unlock(struct mm_struct *mm)
{
	__mmap_lock_trace_released(mm, false);
	up_read(&mm->mmap_lock);
}

#endif
