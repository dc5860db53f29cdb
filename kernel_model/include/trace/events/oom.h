/* oom: the OOM killer's victims, oom_score_adj writes and the allocator's reclaim retries
 * (include/trace/events/oom.h).  6.1's compact_retry and the oom reaper's events are absent
 * with the paths they trace (no compaction, no reaper). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM oom

struct zone;

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
/* (6.1 passes the zonelist's entry, a zoneref: its zone and index; here the zone) */
TRACE_EVENT(reclaim_retry_zone,
	TP_PROTO(struct zone *zone,
		int order,
		unsigned long reclaimable,
		unsigned long available,
		unsigned long min_wmark,
		int no_progress_loops,
		bool wmark_check),
	TP_ARGS(zone, order, reclaimable, available, min_wmark, no_progress_loops, wmark_check),
	TP_STRUCT__entry(
		__field(	int, node)
		__field(	int, zone_idx)
		__field(	int,	order)
		__field(	unsigned long,	reclaimable)
		__field(	unsigned long,	available)
		__field(	unsigned long,	min_wmark)
		__field(	int,	no_progress_loops)
		__field(	bool,	wmark_check)
	),
	TP_fast_assign(
		__entry->node = zone->zone_pgdat->node_id;
		__entry->zone_idx = zone_idx(zone);
		__entry->order = order;
		__entry->reclaimable = reclaimable;
		__entry->available = available;
		__entry->min_wmark = min_wmark;
		__entry->no_progress_loops = no_progress_loops;
		__entry->wmark_check = wmark_check;
	),
	/* (ZONE_TYPE, as 6.1's TRACE_DEFINE_ENUM leaves it in the format: the numbers) */
	TP_printk("node=%d zone=%-8s order=%d reclaimable=%lu available=%lu min_wmark=%lu no_progress_loops=%d wmark_check=%d",
			__entry->node, __print_symbolic(__entry->zone_idx, {0, "DMA"}, {1, "DMA32"}, {2, "Normal"}, {3, "Movable"}),
			__entry->order,
			__entry->reclaimable, __entry->available, __entry->min_wmark,
			__entry->no_progress_loops,
			__entry->wmark_check)
)

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
