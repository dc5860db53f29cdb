/*
 * The mmap_lock (include/linux/mmap_lock.h): an address space's VMAs are read and changed under
 * it.  6.1's is a rw_semaphore; here a mutex (readers exclude each other too).  Each lock,
 * trylock and unlock passes the mmap_lock tracepoints, whose out-of-line probes
 * (mm/mmap_lock.c) are called only while the event is enabled, as in Linux.
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

static __always_inline void mmap_write_lock(struct mm_struct *mm)
{
	__mmap_lock_trace_start_locking(mm, true);
	mutex_lock(&mm->mmap_lock);
	__mmap_lock_trace_acquire_returned(mm, true, true);
}

static __always_inline void mmap_write_unlock(struct mm_struct *mm)
{
	__mmap_lock_trace_released(mm, true);
	mutex_unlock(&mm->mmap_lock);
}

static __always_inline void mmap_read_lock(struct mm_struct *mm)
{
	__mmap_lock_trace_start_locking(mm, false);
	mutex_lock(&mm->mmap_lock);
	__mmap_lock_trace_acquire_returned(mm, false, true);
}

static __always_inline bool mmap_read_trylock(struct mm_struct *mm)
{
	bool ret = mutex_trylock(&mm->mmap_lock);

	__mmap_lock_trace_acquire_returned(mm, false, ret);
	return ret;
}

static __always_inline void mmap_read_unlock(struct mm_struct *mm)
{
	__mmap_lock_trace_released(mm, false);
	mutex_unlock(&mm->mmap_lock);
}

#endif
