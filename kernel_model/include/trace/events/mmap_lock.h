/* mmap_lock: an address space's lock taken, returned and released (include/trace/events/mmap_lock.h);
 * the probes are mm/mmap_lock.c's. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mmap_lock

/* DECLARE_EVENT_CLASS(mmap_lock) */
#define MMAP_LOCK_EVENT(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct mm_struct *mm, const char *memcg_path, bool write), \
	TP_ARGS(mm, memcg_path, write), \
	TP_STRUCT__entry( \
		__field(struct mm_struct *, mm) \
		__string(memcg_path, memcg_path) \
		__field(bool, write) \
	), \
	TP_fast_assign( \
		__entry->mm = mm; \
		__assign_str(memcg_path, memcg_path); \
		__entry->write = write; \
	), \
	TP_printk( \
		"mm=%p memcg_path=%s write=%s", \
		__entry->mm, \
		__get_str(memcg_path), \
		__entry->write ? "true" : "false" \
	) \
)
MMAP_LOCK_EVENT(mmap_lock_start_locking)
MMAP_LOCK_EVENT(mmap_lock_released)
#undef MMAP_LOCK_EVENT

TRACE_EVENT(mmap_lock_acquire_returned,
	TP_PROTO(struct mm_struct *mm, const char *memcg_path, bool write, bool success),
	TP_ARGS(mm, memcg_path, write, success),
	TP_STRUCT__entry(
		__field(struct mm_struct *, mm)
		__string(memcg_path, memcg_path)
		__field(bool, write)
		__field(bool, success)
	),
	TP_fast_assign(
		__entry->mm = mm;
		__entry->write = write;
		__entry->success = success;
		__assign_str(memcg_path, memcg_path);
	),
	TP_printk(
		"mm=%p memcg_path=%s write=%s success=%s",
		__entry->mm,
		__get_str(memcg_path),
		__entry->write ? "true" : "false",
		__entry->success ? "true" : "false"
	)
)
