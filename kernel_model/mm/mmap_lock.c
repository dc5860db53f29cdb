/*
 * The mmap_lock's tracepoints (mm/mmap_lock.c): the probes include/mmap_lock.h calls while an
 * mmap_lock event is enabled.  Without memory cgroups here, memcg_path is empty (as in a 6.1
 * built without CONFIG_MEMCG).
 */
#include "../include/mmap_lock.h"

noinline void __mmap_lock_do_trace_start_locking(struct mm_struct *mm, bool write)
{
	trace_mmap_lock_start_locking(mm, "", write);
}

noinline void __mmap_lock_do_trace_acquire_returned(struct mm_struct *mm, bool write, bool success)
{
	trace_mmap_lock_acquire_returned(mm, "", write, success);
}

noinline void __mmap_lock_do_trace_released(struct mm_struct *mm, bool write)
{
	trace_mmap_lock_released(mm, "", write);
}
