/*
 * perf_events inside the kernel (include/linux/perf_event.h of Linux 6.1, reduced to what this
 * kernel models): events, PMUs, contexts, and the hooks the scheduler, fork, exec, exit and the
 * tracepoints call.  The code is in kernel/events/ (core.c) and kernel/trace_event_perf.c.
 *
 * Locking: one lock, perf_lock (inline, irqs off, nothing traceable under it), guards every
 * context, group and state, and the per-cpu lists of active events the firing paths walk; the
 * firing paths take it too, so an event never changes under a walker.  The sched hooks take it
 * inside the runqueue lock; nothing under it takes another lock, allocates or wakes a task,
 * but a sampling event's BPF program (bpf_overflow_handler), which runs in its overflow: its map
 * helpers take their maps' locks, and its bpf_perf_event_output() writes to a BPF_OUTPUT event
 * without taking perf_lock again (perf_lock_unless_held()).
 */
#ifndef _PERF_EVENT_H
#define _PERF_EVENT_H
#include "kernel.h"
#include "jump_label.h"
#include "uapi/perf_event.h"
#include "trace/ftrace.h"
#include "timer.h"

struct perf_event;
struct perf_event_context;
struct perf_pool_status;

#define PERF_EF_START	0x01		/* start the counter when adding */
#define PERF_EF_RELOAD	0x02
#define PERF_EF_UPDATE	0x04
#define PERF_HES_STOPPED	0x01

struct pmu {
	struct list_head entry;
	const char *name;		/* NULL: the clocks, registered without a type of their own */
	int type;
	int (*event_init)(struct perf_event *event);
	int (*add)(struct perf_event *event, int flags);	/* on the cpu event->oncpu */
	void (*del)(struct perf_event *event, int flags);
	void (*start)(struct perf_event *event, int flags);
	void (*stop)(struct perf_event *event, int flags);
	void (*read)(struct perf_event *event);
};

enum perf_event_state {
	PERF_EVENT_STATE_DEAD = -4,
	PERF_EVENT_STATE_EXIT = -3,
	PERF_EVENT_STATE_ERROR = -2,
	PERF_EVENT_STATE_OFF = -1,
	PERF_EVENT_STATE_INACTIVE = 0,
	PERF_EVENT_STATE_ACTIVE = 1,
};

struct hw_perf_event {
	struct list_head node;		/* on its source's list of the cpu it is active on */
	struct list_head *source;	/* the per-cpu lists of its source (tracepoint, syscall) */
	int state;			/* PERF_HES_* */
	u64 prev_count;			/* clocks: the time counted up to */
	u64 sample_period;
	u64 last_period;
	s64 period_left;
	struct task_struct *target;	/* the task of a per-task event */
	struct hrtimer hrtimer;		/* a sampling cpu-clock/task-clock's period */
	/* the cpu PMU's (kernel/events/x86_pmu.c) */
	int idx;			/* the counter it has while added, -1: none */
	u64 config;			/* its evtsel, without EN */
	u64 freq_time_stamp;		/* a frequency event's last overflow */
	u64 freq_count_stamp;		/* its count at the last tick */
	/* throttling (__perf_event_account_interrupt): the overflows in the cpu's tick numbered
	 * interrupts_seq, MAX_INTERRUPTS while throttled (until the next tick) */
	u64 interrupts_seq;
	u64 interrupts;
};
#define MAX_INTERRUPTS (~0ULL)

/* kernel/events/ring_buffer.c */
#define RING_BUFFER_WRITABLE	0x01	/* mapped writable: the reader's data_tail holds records back */
struct perf_buffer {
	int refcount;			/* the events attached (ring_buffer_attach) */
	int mmap_count;
	int nr_pages;			/* data pages: a power of 2 */
	int overwrite;			/* read-only mapping: the oldest records are written over */
	int paused;			/* PERF_EVENT_IOC_PAUSE_OUTPUT */
	u64 head;			/* where the next record goes */
	u64 lost;			/* records dropped since the last PERF_RECORD_LOST */
	u64 events;			/* records since the last wakeup (wakeup_events) */
	u64 wakeup;			/* wakeups due (watermark, wakeup_events) */
	u64 woken;			/* ... of them given (perf_output_wakeup) */
	u64 wakeup_head;		/* head at the last watermark wakeup */
	long watermark;
	struct list_head event_list;	/* the events that write here */
	int region;			/* the perf pool's region its pages are in */
	struct perf_pool_status *status;	/* the region's status page (uapi/perf_pool.h) */
	struct perf_event_mmap_page *user_page;
	void *data_pages[];		/* each page on its own, as the mapping takes them */
};

struct perf_output_handle {
	struct perf_event *event;
	struct perf_buffer *rb;
	u64 head;
	u64 size;
};

struct perf_raw_record {
	u32 size;
	void *data;
};

/* what a sample carries (filled by perf_prepare_sample) */
struct perf_sample_data {
	u64 ip;
	struct { u32 pid, tid; } tid_entry;
	u64 time;
	u64 addr;
	u64 id;
	u64 stream_id;
	struct { u32 cpu, reserved; } cpu_entry;
	u64 period;
	struct perf_raw_record *raw;
	u64 *callchain;			/* nr, then the addresses */
};

struct perf_event {
	struct list_head event_entry;	/* on ctx->event_list */
	struct list_head sibling_list;	/* a leader: its siblings; a sibling: its place there */
	struct perf_event *group_leader;
	int nr_siblings;
	int group_generation;
	struct pmu *pmu;
	enum perf_event_state state;
	int oncpu;
	int cpu;			/* -1: any cpu the task runs on */
	u64 count;
	u64 total_time_enabled;
	u64 total_time_running;
	u64 tstamp;			/* ctx time the two totals are up to */
	u64 child_count;		/* of inherited events that exited */
	u64 child_total_time_enabled;
	u64 child_total_time_running;
	u64 lost_samples;
	struct perf_event_attr attr;
	u16 read_size;
	struct hw_perf_event hw;
	struct perf_event_context *ctx;
	struct file *filp;
	u64 id;
	int event_limit;		/* PERF_EVENT_IOC_REFRESH: overflows left */
	struct perf_event *parent;	/* an inherited event: the one it counts for */
	struct list_head child_list;	/* a parent: its inherited events */
	struct list_head child_entry;	/* a child: its place on the parent's child_list */
	void (*destroy)(struct perf_event *event);
	void *tp_event;			/* a tracepoint event: its trace_event_meta */
	struct event_filter *filter;	/* a tracepoint event's PERF_EVENT_IOC_SET_FILTER */
	struct bpf_prog *prog;		/* a tracepoint or kprobe event's PERF_EVENT_IOC_SET_BPF */
	struct kprobe_perf_call *kprobe_call;	/* a kprobe PMU event: its probe's (trace/kprobe_perf.h) */
	/* sampling */
	u16 header_size;		/* a sample's fixed fields past the header and the ids */
	u16 id_header_size;		/* the sample_id fields */
	struct perf_buffer *rb;		/* where its records go (its own mmap, or SET_OUTPUT's) */
	struct list_head rb_entry;	/* on rb->event_list */
	int mmap_count;			/* its fd's mappings of rb */
};

struct perf_event_context {
	struct list_head event_list;
	int nr_events;
	int is_active;			/* a task context: its task is on a cpu (active_cpu) */
	int active_cpu;
	struct task_struct *task;	/* NULL: a cpu's context */
	u64 time;			/* ns the context was active */
	u64 timestamp;			/* when it last became active */
	int refcount;
};

extern notrace_spinlock_t perf_lock;
extern int sysctl_perf_event_paranoid;
extern int sysctl_perf_event_sample_rate;
extern struct static_key perf_sched_events;
extern struct static_key perf_swevent_enabled[PERF_COUNT_SW_MAX];

static __always_inline bool is_sampling_event(struct perf_event *event)
{
	return event->attr.sample_period != 0;
}

/*
 * perf's clock, local_clock(): the trace clock, which moves on within an instruction slice (the
 * host's now_ns does not); per cpu, so times taken on two cpus may be out of order by a step.
 */
static __always_inline u64 perf_clock(void) { return trace_clock_local(this_cpu()); }

/* firing: kernel/events/core.c */
void perf_pmu_register(struct pmu *pmu);
int perf_event_overflow(struct perf_event *event, struct perf_sample_data *data, struct pt_regs *regs);
void perf_event_task_tick(void);
void perf_sample_event_took(u64 sample_len_ns);
bool perf_lock_nmi(unsigned long *flags);
unsigned long perf_lock_irqsave_ext(void);
extern int perf_pmu_deferred[NR_CPUS];
void perf_pmu_deferred_irq(void);
void perf_unlock_nmi(unsigned long flags);
/* kernel/events/x86_pmu.c */
void exc_nmi(struct pt_regs *regs);
extern struct static_key pmu_mode_split;
void pmu_enter_from_user(struct pt_regs *regs);
void pmu_exit_to_user(void);
void __init init_hw_perf_events(void);
void ___perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr);
void perf_swevent_event(struct perf_event *event, u64 nr, struct pt_regs *regs, struct perf_raw_record *raw);
int perf_swevent_get_recursion_context(void);
void perf_swevent_put_recursion_context(int rctx);
void perf_tp_event(u16 event_type, u64 count, void *record, int entry_size, struct pt_regs *regs,
		   struct list_head *head, int rctx, struct task_struct *task);
int perf_event_add_to_source(struct perf_event *event, struct list_head *lists);
void perf_event_del_from_source(struct perf_event *event);
struct file *perf_event_get(unsigned int fd);
/* perf_get_event(): the event of a perf event file (ERR_PTR(-EINVAL): not one) */
const struct perf_event *perf_get_event(struct file *file);
/* bpf_get_perf_event_info(): what a tracing perf event's BPF program is attached to, as
 * BPF_TASK_FD_QUERY tells it (kernel/bpf_trace.c) */
int bpf_get_perf_event_info(const struct perf_event *event, u32 *prog_id, u32 *fd_type, const char **buf,
			    u64 *probe_offset, u64 *probe_addr);
/* a slot of a BPF perf event array: the event's file, and the map's file it was put through */
struct bpf_event_entry {
	struct file *perf_file;
	struct file *map_file;
};
struct bpf_event_entry *perf_event_array_xchg(struct bpf_event_entry **slot, struct bpf_event_entry *ee);
int perf_event_array_output(struct bpf_event_entry **slot, struct perf_raw_record *raw, struct pt_regs *regs);

/* the caller's registers, as perf_arch_fetch_caller_regs(): where a sample of it points */
#define perf_fetch_caller_regs(regs) do { \
	(regs)->ip = (u64)__builtin_return_address(0); \
	(regs)->bp = (u64)__builtin_frame_address(0); \
	(regs)->sp = (u64)__builtin_frame_address(0); \
	(regs)->cs = __KERNEL_CS; \
	(regs)->flags = 0; \
} while (0)

/* kernel/events/ring_buffer.c */
struct perf_buffer *rb_alloc(int nr_pages, long watermark, int flags, int *err);
void rb_free(struct perf_buffer *rb);
int perf_pool_region_pages(void);
void perf_output_wakeup(struct perf_buffer *rb);
struct perf_buffer *perf_pool_buffer(int region);
void perf_pool_unmapped(int region);
/* the pool's regions for others (a BPF ring buffer map: kernel/bpf/ringbuf.c): a free one
 * taken (-1: none) and given back, a page of it (the kernel's address), its status page, a
 * wakeup of what it holds */
int perf_pool_get(void);
int perf_pool_get_pages(u64 nr_pages);
int perf_pool_region_of(u64 pa);
void perf_pool_put(int region);
void *perf_pool_page(int region, int page);
struct perf_pool_status *perf_pool_status(int region);
void perf_pool_wakeup(int region);
int perf_output_begin(struct perf_output_handle *handle, struct perf_event *event, unsigned int size);
void perf_output_copy(struct perf_output_handle *handle, const void *buf, unsigned int len);
void perf_output_skip(struct perf_output_handle *handle, unsigned int len);
void perf_output_end(struct perf_output_handle *handle);
#define perf_output_put(handle, x) perf_output_copy((handle), &(x), sizeof(x))
/* kernel/events/core.c: a record's sample_id (sample_id_all) */
void perf_event_header__init_id(struct perf_sample_data *data, struct perf_event *event);
void perf_event__output_id_sample(struct perf_event *event, struct perf_output_handle *handle,
				  struct perf_sample_data *data);
/* kernel/events/callchain.c */
u64 *perf_callchain(struct perf_event *event, struct pt_regs *regs);
int get_perf_callchain(u64 *ips, struct pt_regs *regs, bool kernel, bool user, int max, bool add_mark);

/* kernel/trace_event_perf.c */
/* the record size perf gives a tracepoint: with perf's u32 size header, a whole number of u64s */
#define perf_trace_entry_size(size) ((int)(ALIGN((size) + sizeof(u32), sizeof(u64)) - sizeof(u32)))
/* this cpu's list of the perf events active on a tracepoint, NULL: none */
static __always_inline struct list_head *perf_trace_head(struct tracepoint *tp)
{
	struct list_head *lists = __atomic_load_n(&tp->perf_events, __ATOMIC_ACQUIRE);

	if (!lists || list_empty(&lists[smp_processor_id()]))
		return NULL;
	return &lists[smp_processor_id()];
}
int perf_trace_init(struct perf_event *event);
void perf_trace_destroy(struct perf_event *event);
int perf_event_set_bpf_prog(struct perf_event *event, struct bpf_prog *prog);
void perf_event_free_bpf_prog(struct perf_event *event);
void perf_event_detach_bpf_prog(struct perf_event *event);
int perf_event_attach_bpf_prog(struct perf_event *event, struct bpf_prog *prog);
int trace_event_get_offsets(const struct trace_event_meta *meta);
int perf_event_set_bpf_handler(struct perf_event *event, struct bpf_prog *prog);
int perf_event_read_local(struct perf_event *event, u64 *value, u64 *enabled, u64 *running);
/* perf_event_is_tracing(): a tracepoint's or a kprobe's event, whose programs the hook runs */
static __always_inline bool perf_event_is_tracing(struct perf_event *event)
{
	return event->tp_event || event->kprobe_call;
}
struct bpf_prog_array;
/* trace_call_bpf(): the programs on ctx, none while another runs on this cpu; 0 if one said 0 */
unsigned int trace_call_bpf(struct bpf_prog_array *progs, void *ctx);
void *perf_trace_buf_alloc(int size, struct pt_regs **regs, int *rctxp);
void perf_trace_buf_submit(void *raw_data, int size, int rctx, u16 type, u64 count,
			   struct pt_regs *regs, struct list_head *head, struct task_struct *task);
void perf_trace_run_bpf_submit(void *raw_data, int size, int rctx, struct tracepoint *tp, u64 count,
			       struct pt_regs *regs, struct list_head *head, struct task_struct *task);

/* hooks */
void __perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr);
static __always_inline void perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr)
{
	if (static_branch_unlikely(&perf_swevent_enabled[event_id]))
		__perf_sw_event(event_id, nr, regs, addr);
}
void __perf_event_task_sched_out(struct task_struct *prev, struct task_struct *next);
void __perf_event_task_sched_in(struct task_struct *prev, struct task_struct *task);
void __perf_sw_event_sched(u32 event_id, u64 nr, u64 addr);
/* in __schedule, before the switch (irqs off, the runqueue locked) */
static __always_inline void perf_event_task_sched_out(struct task_struct *prev, struct task_struct *next)
{
	if (static_branch_unlikely(&perf_swevent_enabled[PERF_COUNT_SW_CONTEXT_SWITCHES]))
		__perf_sw_event_sched(PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 0);
	if (static_branch_unlikely(&perf_sched_events))
		__perf_event_task_sched_out(prev, next);
}
/* in finish_task_switch, on the new task's stack; a moved task's migration counts here, in
 * its own context */
static __always_inline void perf_event_task_sched_in(struct task_struct *prev, struct task_struct *task)
{
	if (static_branch_unlikely(&perf_sched_events))
		__perf_event_task_sched_in(prev, task);
	if (static_branch_unlikely(&perf_swevent_enabled[PERF_COUNT_SW_CPU_MIGRATIONS]) &&
	    task->perf_sched_migrated) {
		__perf_sw_event_sched(PERF_COUNT_SW_CPU_MIGRATIONS, 1, 0);
		task->perf_sched_migrated = 0;
	}
}
/* set_task_cpu() */
static __always_inline void perf_event_task_migrate(struct task_struct *task)
{
	if (static_branch_unlikely(&perf_swevent_enabled[PERF_COUNT_SW_CPU_MIGRATIONS]))
		task->perf_sched_migrated = 1;
}
int perf_event_init_task(struct task_struct *child, unsigned long clone_flags);
void perf_event_free_task(struct task_struct *task);
void perf_event_exit_task(struct task_struct *child);
void perf_event_exec(void);
struct file;
void perf_event_mmap(struct file *file, u64 addr, u64 len, u64 pgoff, u32 prot, u32 flags);
struct bpf_prog;
void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister, const char *sym);
void perf_event_bpf_event(struct bpf_prog *prog, enum perf_bpf_event_type type, u16 flags);
void perf_event_fork(struct task_struct *parent, struct task_struct *task);	/* PERF_RECORD_FORK */
void perf_event_init(void);
#endif
