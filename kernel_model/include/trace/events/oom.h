/* oom: the OOM killer's victims and oom_score_adj writes (include/trace/events/oom.h).  6.1's
 * reclaim_retry_zone, compact_retry and the oom reaper's events are absent with the paths
 * they trace (no reclaim, no compaction, no reaper). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM oom

TRACE_EVENT(oom_score_adj_update,
	TP_PROTO(struct task_struct *task),
	TP_ARGS(task),
	TP_STRUCT__entry(
		__field(	pid_t,	pid)
		__array(	char,	comm,	TASK_COMM_LEN )
		__field(	short,	oom_score_adj)
	),
	TP_fast_assign(
		__entry->pid = task->pid;
		memcpy(__entry->comm, task->comm, TASK_COMM_LEN);
		__entry->oom_score_adj = task->oom_score_adj;
	),
	TP_printk("pid=%d comm=%s oom_score_adj=%hd",
		__entry->pid, __entry->comm, __entry->oom_score_adj)
)

/* (the victim's mm: the one mark_oom_victim() just kept in its signal struct) */
TRACE_EVENT(mark_victim,
	TP_PROTO(struct task_struct *task, uid_t uid),
	TP_ARGS(task, uid),
	TP_STRUCT__entry(
		__field(int, pid)
		__string(comm, task->comm)
		__field(unsigned long, total_vm)
		__field(unsigned long, anon_rss)
		__field(unsigned long, file_rss)
		__field(unsigned long, shmem_rss)
		__field(uid_t, uid)
		__field(unsigned long, pgtables)
		__field(short, oom_score_adj)
	),
	TP_fast_assign(
		__entry->pid = task->pid;
		__assign_str(comm, task->comm);
		__entry->total_vm = task->signal->oom_mm->total_vm << (PAGE_SHIFT - 10);
		__entry->anon_rss = task->signal->oom_mm->rss_stat.count[MM_ANONPAGES] << (PAGE_SHIFT - 10);
		__entry->file_rss = task->signal->oom_mm->rss_stat.count[MM_FILEPAGES] << (PAGE_SHIFT - 10);
		__entry->shmem_rss = task->signal->oom_mm->rss_stat.count[MM_SHMEMPAGES] << (PAGE_SHIFT - 10);
		__entry->uid = uid;
		__entry->pgtables = task->signal->oom_mm->pgtables_bytes >> 10;
		__entry->oom_score_adj = task->oom_score_adj;
	),
	TP_printk("pid=%d comm=%s total-vm=%lukB anon-rss=%lukB file-rss:%lukB shmem-rss:%lukB uid=%u pgtables=%lukB oom_score_adj=%hd",
		__entry->pid,
		__get_str(comm),
		__entry->total_vm,
		__entry->anon_rss,
		__entry->file_rss,
		__entry->shmem_rss,
		__entry->uid,
		__entry->pgtables,
		__entry->oom_score_adj
	)
)
