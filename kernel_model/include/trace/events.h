/* The tracepoints of the emulated kernel (formats as Linux 6.1's). Included
 * several times with different TRACE_EVENT definitions (see events.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched

TRACE_EVENT(sched_switch,
	TP_PROTO(bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state),
	TP_ARGS(preempt, prev, next, prev_state),
	TP_STRUCT__entry(
		__array(	char,	prev_comm,	TASK_COMM_LEN	)
		__field(	pid_t,	prev_pid			)
		__field(	int,	prev_prio			)
		__field(	long,	prev_state			)
		__array(	char,	next_comm,	TASK_COMM_LEN	)
		__field(	pid_t,	next_pid			)
		__field(	int,	next_prio			)
	),
	TP_fast_assign(
		memcpy(__entry->next_comm, next->comm, TASK_COMM_LEN);
		__entry->prev_pid	= prev->pid;
		__entry->prev_prio	= prev->prio;
		__entry->prev_state	= __trace_sched_switch_state(preempt, prev_state, prev);
		memcpy(__entry->prev_comm, prev->comm, TASK_COMM_LEN);
		__entry->next_pid	= next->pid;
		__entry->next_prio	= next->prio;
	),
	TP_printk("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d",
		__entry->prev_comm, __entry->prev_pid, __entry->prev_prio,
		(__entry->prev_state & (TASK_REPORT_MAX - 1)) ?
		  __print_flags(__entry->prev_state & (TASK_REPORT_MAX - 1), "|",
				{ TASK_INTERRUPTIBLE, "S" },
				{ TASK_UNINTERRUPTIBLE, "D" },
				{ __TASK_STOPPED, "T" },
				{ __TASK_TRACED, "t" },
				{ EXIT_DEAD, "X" },
				{ EXIT_ZOMBIE, "Z" },
				{ TASK_PARKED, "P" },
				{ TASK_DEAD, "I" }) :
		  "R",
		__entry->prev_state & TASK_REPORT_MAX ? "+" : "",
		__entry->next_comm, __entry->next_pid, __entry->next_prio)
)

#define SCHED_WAKEUP_TEMPLATE(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct task_struct *p), \
	TP_ARGS(p), \
	TP_STRUCT__entry( \
		__array(	char,	comm,	TASK_COMM_LEN	) \
		__field(	pid_t,	pid			) \
		__field(	int,	prio			) \
		__field(	int,	target_cpu		) \
	), \
	TP_fast_assign( \
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN); \
		__entry->pid		= p->pid; \
		__entry->prio		= p->prio; \
		__entry->target_cpu	= p->cpu; \
	), \
	TP_printk("comm=%s pid=%d prio=%d target_cpu=%03d", \
		  __entry->comm, __entry->pid, __entry->prio, \
		  __entry->target_cpu) \
)
SCHED_WAKEUP_TEMPLATE(sched_waking)
SCHED_WAKEUP_TEMPLATE(sched_wakeup)
SCHED_WAKEUP_TEMPLATE(sched_wakeup_new)

TRACE_EVENT(sched_process_fork,
	TP_PROTO(struct task_struct *parent, struct task_struct *child),
	TP_ARGS(parent, child),
	TP_STRUCT__entry(
		__array(	char,	parent_comm,	TASK_COMM_LEN	)
		__field(	pid_t,	parent_pid			)
		__array(	char,	child_comm,	TASK_COMM_LEN	)
		__field(	pid_t,	child_pid			)
	),
	TP_fast_assign(
		memcpy(__entry->parent_comm, parent->comm, TASK_COMM_LEN);
		__entry->parent_pid	= parent->pid;
		memcpy(__entry->child_comm, child->comm, TASK_COMM_LEN);
		__entry->child_pid	= child->pid;
	),
	TP_printk("comm=%s pid=%d child_comm=%s child_pid=%d",
		__entry->parent_comm, __entry->parent_pid,
		__entry->child_comm, __entry->child_pid)
)

TRACE_EVENT(sched_process_exec,
	TP_PROTO(struct task_struct *p, pid_t old_pid, const char *filename),
	TP_ARGS(p, old_pid, filename),
	TP_STRUCT__entry(
		__string(	filename,	filename	)
		__field(	pid_t,		pid		)
		__field(	pid_t,		old_pid		)
	),
	TP_fast_assign(
		__assign_str(filename, filename);
		__entry->pid		= p->pid;
		__entry->old_pid	= old_pid;
	),
	TP_printk("filename=%s pid=%d old_pid=%d", __get_str(filename),
		  __entry->pid, __entry->old_pid)
)

#define SCHED_PROCESS_TEMPLATE(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct task_struct *p), \
	TP_ARGS(p), \
	TP_STRUCT__entry( \
		__array(	char,	comm,	TASK_COMM_LEN	) \
		__field(	pid_t,	pid			) \
		__field(	int,	prio			) \
	), \
	TP_fast_assign( \
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN); \
		__entry->pid		= p->pid; \
		__entry->prio		= p->prio; \
	), \
	TP_printk("comm=%s pid=%d prio=%d", \
		  __entry->comm, __entry->pid, __entry->prio) \
)
SCHED_PROCESS_TEMPLATE(sched_process_exit)
SCHED_PROCESS_TEMPLATE(sched_process_free)

TRACE_EVENT(sched_process_wait,
	TP_PROTO(pid_t pid),
	TP_ARGS(pid),
	TP_STRUCT__entry(
		__array(	char,	comm,	TASK_COMM_LEN	)
		__field(	pid_t,	pid			)
		__field(	int,	prio			)
	),
	TP_fast_assign(
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
		__entry->pid		= pid;
		__entry->prio		= current->prio;
	),
	TP_printk("comm=%s pid=%d prio=%d",
		  __entry->comm, __entry->pid, __entry->prio)
)

TRACE_EVENT(sched_migrate_task,
	TP_PROTO(struct task_struct *p, int dest_cpu),
	TP_ARGS(p, dest_cpu),
	TP_STRUCT__entry(
		__array(	char,	comm,	TASK_COMM_LEN	)
		__field(	pid_t,	pid			)
		__field(	int,	prio			)
		__field(	int,	orig_cpu		)
		__field(	int,	dest_cpu		)
	),
	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->prio		= p->prio;
		__entry->orig_cpu	= p->cpu;
		__entry->dest_cpu	= dest_cpu;
	),
	TP_printk("comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d",
		  __entry->comm, __entry->pid, __entry->prio,
		  __entry->orig_cpu, __entry->dest_cpu)
)

TRACE_EVENT(sched_stat_runtime,
	TP_PROTO(struct task_struct *tsk, u64 runtime, u64 vruntime),
	TP_ARGS(tsk, runtime, vruntime),
	TP_STRUCT__entry(
		__array( char,	comm,	TASK_COMM_LEN	)
		__field( pid_t,	pid			)
		__field( u64,	runtime			)
		__field( u64,	vruntime			)
	),
	TP_fast_assign(
		memcpy(__entry->comm, tsk->comm, TASK_COMM_LEN);
		__entry->pid		= tsk->pid;
		__entry->runtime	= runtime;
		__entry->vruntime	= vruntime;
	),
	TP_printk("comm=%s pid=%d runtime=%Lu [ns] vruntime=%Lu [ns]",
			__entry->comm, __entry->pid,
			(unsigned long long)__entry->runtime,
			(unsigned long long)__entry->vruntime)
)

TRACE_EVENT(sched_wake_idle_without_ipi,
	TP_PROTO(int cpu),
	TP_ARGS(cpu),
	TP_STRUCT__entry(
		__field(	int,	cpu	)
	),
	TP_fast_assign(
		__entry->cpu	= cpu;
	),
	TP_printk("cpu=%d", __entry->cpu)
)

#undef TRACE_SYSTEM
#define TRACE_SYSTEM raw_syscalls
TRACE_EVENT_SYSCALL(sys_enter, syscall_enter,
	TP_PROTO(struct pt_regs *regs, long id),
	TP_ARGS(regs, id),
	TP_STRUCT__entry(
		__field(	long,		id		)
		__array(	unsigned long,	args,	6	)
	),
	TP_fast_assign(
		__entry->id	= id;
		syscall_get_arguments(regs, __entry->args);
	),
	TP_printk("NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)",
		  __entry->id,
		  __entry->args[0], __entry->args[1], __entry->args[2],
		  __entry->args[3], __entry->args[4], __entry->args[5])
)
TRACE_EVENT_SYSCALL(sys_exit, syscall_exit,
	TP_PROTO(struct pt_regs *regs, long ret),
	TP_ARGS(regs, ret),
	TP_STRUCT__entry(
		__field(	long,	id	)
		__field(	long,	ret	)
	),
	TP_fast_assign(
		__entry->id	= regs->orig_ax;
		__entry->ret	= ret;
	),
	TP_printk("NR %ld = %ld",
		  __entry->id, __entry->ret)
)

#undef TRACE_SYSTEM
#define TRACE_SYSTEM kmem
TRACE_EVENT(kmalloc,
	TP_PROTO(unsigned long call_site, const void *ptr, size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags, int node),
	TP_ARGS(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node),
	TP_STRUCT__entry(
		__field(	unsigned long,	call_site	)
		__field(	const void *,	ptr		)
		__field(	size_t,		bytes_req	)
		__field(	size_t,		bytes_alloc	)
		__field(	unsigned long,	gfp_flags	)
		__field(	int,		node		)
	),
	TP_fast_assign(
		__entry->call_site	= call_site;
		__entry->ptr		= ptr;
		__entry->bytes_req	= bytes_req;
		__entry->bytes_alloc	= bytes_alloc;
		__entry->gfp_flags	= (__force unsigned long)gfp_flags;
		__entry->node		= node;
	),
	TP_printk("call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d accounted=%s",
		(void *)__entry->call_site,
		__entry->ptr,
		__entry->bytes_req,
		__entry->bytes_alloc,
		show_gfp_flags(__entry->gfp_flags),
		__entry->node,
		(IS_ENABLED(CONFIG_MEMCG_KMEM) &&
		 (__entry->gfp_flags & (__force unsigned long)__GFP_ACCOUNT)) ? "true" : "false")
)
TRACE_EVENT(kmem_cache_alloc,
	TP_PROTO(unsigned long call_site,
		 const void *ptr,
		 struct kmem_cache *s,
		 gfp_t gfp_flags,
		 int node),
	TP_ARGS(call_site, ptr, s, gfp_flags, node),
	TP_STRUCT__entry(
		__field(	unsigned long,	call_site	)
		__field(	const void *,	ptr		)
		__field(	size_t,		bytes_req	)
		__field(	size_t,		bytes_alloc	)
		__field(	unsigned long,	gfp_flags	)
		__field(	int,		node		)
		__field(	bool,		accounted	)
	),
	TP_fast_assign(
		__entry->call_site	= call_site;
		__entry->ptr		= ptr;
		__entry->bytes_req	= s->object_size;
		__entry->bytes_alloc	= s->size;
		__entry->gfp_flags	= (__force unsigned long)gfp_flags;
		__entry->node		= node;
		__entry->accounted	= IS_ENABLED(CONFIG_MEMCG_KMEM) ?
					  ((gfp_flags & __GFP_ACCOUNT) ||
					  (s->flags & SLAB_ACCOUNT)) : false;
	),
	TP_printk("call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d accounted=%s",
		(void *)__entry->call_site,
		__entry->ptr,
		__entry->bytes_req,
		__entry->bytes_alloc,
		show_gfp_flags(__entry->gfp_flags),
		__entry->node,
		__entry->accounted ? "true" : "false")
)
TRACE_EVENT(kmem_cache_free,
	TP_PROTO(unsigned long call_site, const void *ptr, const struct kmem_cache *s),
	TP_ARGS(call_site, ptr, s),
	TP_STRUCT__entry(
		__field(	unsigned long,	call_site	)
		__field(	const void *,	ptr		)
		__string(	name,		s->name		)
	),
	TP_fast_assign(
		__entry->call_site	= call_site;
		__entry->ptr		= ptr;
		__assign_str(name, s->name);
	),
	TP_printk("call_site=%pS ptr=%p name=%s",
		  (void *)__entry->call_site, __entry->ptr, __get_str(name))
)
/* the page pointers the page events print: vmemmap_base + pfn, a struct page each */
TRACE_PRINT_VALUE(vmemmap_base, __VMEMMAP_BASE_L4);
TRACE_PRINT_STRUCT(page);
TRACE_EVENT(mm_page_free,
	TP_PROTO(struct page *page, unsigned int order),
	TP_ARGS(page, order),
	TP_STRUCT__entry(
		__field(	unsigned long,	pfn		)
		__field(	unsigned int,	order		)
	),
	TP_fast_assign(
		__entry->pfn		= page_to_pfn(page);
		__entry->order		= order;
	),
	TP_printk("page=%p pfn=0x%lx order=%d",
			pfn_to_page(__entry->pfn),
			__entry->pfn,
			__entry->order)
)
TRACE_EVENT(mm_page_alloc,
	TP_PROTO(struct page *page, unsigned int order,
			gfp_t gfp_flags, int migratetype),
	TP_ARGS(page, order, gfp_flags, migratetype),
	TP_STRUCT__entry(
		__field(	unsigned long,	pfn		)
		__field(	unsigned int,	order		)
		__field(	unsigned long,	gfp_flags	)
		__field(	int,		migratetype	)
	),
	TP_fast_assign(
		__entry->pfn		= page ? page_to_pfn(page) : -1UL;
		__entry->order		= order;
		__entry->gfp_flags	= (__force unsigned long)gfp_flags;
		__entry->migratetype	= migratetype;
	),
	TP_printk("page=%p pfn=0x%lx order=%d migratetype=%d gfp_flags=%s",
		__entry->pfn != -1UL ? pfn_to_page(__entry->pfn) : NULL,
		__entry->pfn != -1UL ? __entry->pfn : 0,
		__entry->order,
		__entry->migratetype,
		show_gfp_flags(__entry->gfp_flags))
)
TRACE_EVENT(kfree,
	TP_PROTO(unsigned long call_site, const void *ptr),
	TP_ARGS(call_site, ptr),
	TP_STRUCT__entry(
		__field(	unsigned long,	call_site	)
		__field(	const void *,	ptr		)
	),
	TP_fast_assign(
		__entry->call_site	= call_site;
		__entry->ptr		= ptr;
	),
	TP_printk("call_site=%pS ptr=%p",
		  (void *)__entry->call_site, __entry->ptr)
)
/* an mm's resident-page counter moved (add_mm_counter, sync_mm_rss); mm_id is its hashed
 * pointer, 0 while the %p hash key is not ready -- never, here: no entropy, as the reference
 * VM's boot, whose traces print (____ptrval____) and mm_id=0 alike */
TRACE_EVENT(rss_stat,
	TP_PROTO(struct mm_struct *mm, int member, long count),
	TP_ARGS(mm, member, count),
	TP_STRUCT__entry(
		__field(unsigned int, mm_id)
		__field(unsigned int, curr)
		__field(int, member)
		__field(long, size)
	),
	TP_fast_assign(
		__entry->mm_id = 0;	/* mm_ptr_to_hash(mm) */
		__entry->curr = !!(current->mm == mm);
		__entry->member = member;
		__entry->size = (count << PAGE_SHIFT);
	),
	TP_printk("mm_id=%u curr=%d type=%s size=%ldB",
		__entry->mm_id,
		__entry->curr,
		__print_symbolic(__entry->member, { 0, "MM_FILEPAGES" }, { 1, "MM_ANONPAGES" }, { 2, "MM_SWAPENTS" }, { 3, "MM_SHMEMPAGES" }),
		__entry->size)
)

#include "events/lock.h"
#include "events/irq.h"
#include "events/irq_vectors.h"
#include "events/timer.h"
#include "events/workqueue.h"
#include "events/task.h"
#include "events/rcu.h"
#include "events/printk.h"
#include "events/exceptions.h"
#include "events/signal.h"
#include "events/bpf_trace.h"
#include "events/block.h"
#include "events/filemap.h"
#include "events/writeback.h"
#include "events/mmap.h"
#include "events/mmap_lock.h"
#include "events/oom.h"
#include "events/vmscan.h"
#include "events/filelock.h"
#include "events/power.h"
#include "events/nmi.h"
/* the network's events: declared where include/net.h is (kernel_model/net/, events.c) */
#ifdef _NET_H
#include "events/sock.h"
#include "events/tcp.h"
#include "events/net.h"
#include "events/napi.h"
#include "events/skb.h"
#endif
