/*
 * The perf_events core (kernel/events/core.c of Linux 6.1): perf_event_open(2), the PMUs
 * `software` (with the cpu-clock and task-clock clocks) and `tracepoint`, per-task and per-cpu
 * contexts, groups, inheritance over fork, enable_on_exec, the event fd (read, ioctl, close).
 * Locking: include/perf_event.h.
 */
#include "../../include/security.h"
#include "../../include/pid.h"
#include "../../include/fs.h"
#include "../../include/perf_event.h"
#include "../../include/trace/kprobe_perf.h"
#include "../../include/trace/uprobe_perf.h"
#include "../../include/bitops.h"
#include "../../include/trace/filter.h"
#include "../../include/bpf.h"
#include "../../include/cred.h"

#define CLONE_THREAD 0x00010000
#define PERF_NR_CONTEXTS 4	/* task, softirq, hardirq, NMI */

notrace_spinlock_t perf_lock;
int sysctl_perf_event_paranoid = 3;		/* Debian's default: perf needs CAP_PERFMON or root */
int sysctl_perf_event_sample_rate = 100000;	/* /proc/sys/kernel/perf_event_max_sample_rate */
int sysctl_perf_cpu_time_max_percent = 25;	/* /proc/sys/kernel/perf_cpu_time_max_percent */
int sysctl_perf_event_max_stack = PERF_MAX_STACK_DEPTH;	/* ... perf_event_max_stack */
int nr_callchain_events;	/* events sampling call chains: the max stack cannot change (EBUSY) */
struct static_key perf_sched_events;
struct static_key perf_swevent_enabled[PERF_COUNT_SW_MAX];

struct perf_cpu_context {
	struct perf_event_context ctx;			/* the events of `pid -1, cpu N` */
	int recursion[PERF_NR_CONTEXTS];
	struct pt_regs sched_regs;			/* __perf_sw_event_sched()'s registers */
};
static struct perf_cpu_context perf_cpu_context[NR_CPUS];
static struct list_head perf_swevent_lists[PERF_COUNT_SW_MAX][NR_CPUS];	/* active software events */
/* structure changes (contexts' event lists, groups, children) also hold this: it may sleep */
static DEFINE_MUTEX(perf_mutex);
static const struct file_operations perf_dead_fops;
static LIST_HEAD(pmus);
static DEFINE_MUTEX(pmus_lock);
static u64 perf_event_id;
static const struct file_operations perf_fops;

static int perf_lock_owner = -1;	/* the cpu holding perf_lock (a BPF program in an overflow) */
/* the cpus taking or holding perf_lock: an NMI there must not spin on it (perf_lock_nmi) */
static int perf_lock_busy[NR_CPUS];

static __always_inline unsigned long perf_lock_irqsave(void)
{
	unsigned long flags = arch_local_irq_save();

	WRITE_ONCE(perf_lock_busy[smp_processor_id()], 1);
	barrier();
	notrace_spin_lock(&perf_lock);
	WRITE_ONCE(perf_lock_owner, smp_processor_id());
	return flags;
}

static __always_inline void perf_unlock_irqrestore(unsigned long flags)
{
	WRITE_ONCE(perf_lock_owner, -1);
	notrace_spin_unlock(&perf_lock);
	barrier();
	WRITE_ONCE(perf_lock_busy[smp_processor_id()], 0);
	if (unlikely(READ_ONCE(perf_pmu_deferred[smp_processor_id()])))
		perf_pmu_deferred_irq();	/* (irqs still off) */
	arch_local_irq_restore(flags);
}

/*
 * perf_lock from an NMI (the PMU's overflow), which comes whatever the interrupts' state: false
 * if the interrupted code of this cpu is taking or holds it (the NMI then takes no sample: 6.1's
 * perf core is lock-free there, this one's is not).
 */
notrace bool perf_lock_nmi(unsigned long *flags)
{
	if (READ_ONCE(perf_lock_busy[smp_processor_id()]))
		return false;
	*flags = perf_lock_irqsave();
	return true;
}

notrace void perf_unlock_nmi(unsigned long flags)
{
	perf_unlock_irqrestore(flags);
}

notrace unsigned long perf_lock_irqsave_ext(void)
{
	return perf_lock_irqsave();
}

/* perf_lock, unless this cpu holds it already: a program run by an event's overflow (which
 * holds it) writing to a BPF_OUTPUT event; true if taken */
static __always_inline bool perf_lock_unless_held(unsigned long *flags)
{
	if (READ_ONCE(perf_lock_owner) == smp_processor_id())	/* interrupts off: stays so */
		return false;
	*flags = perf_lock_irqsave();
	return true;
}



static u64 primary_event_id(struct perf_event *event)
{
	return event->parent ? event->parent->id : event->id;
}

/* ---- time: a context's time runs while it is active (a cpu's always) ---- */
static u64 perf_ctx_time(struct perf_event_context *ctx, u64 now)
{
	if (!ctx->task)
		return now;
	return ctx->is_active && now > ctx->timestamp ? ctx->time + now - ctx->timestamp : ctx->time;
}

static noinline void perf_event_update_time(struct perf_event *event, u64 now)
{
	u64 t = perf_ctx_time(event->ctx, now), delta;

	if (t < event->tstamp)	/* a time read on another cpu, a step ahead of this one */
		return;
	delta = t - event->tstamp;
	if (event->state >= PERF_EVENT_STATE_INACTIVE)
		event->total_time_enabled += delta;
	if (event->state == PERF_EVENT_STATE_ACTIVE)
		event->total_time_running += delta;
	event->tstamp = t;
}

static noinline void perf_event_set_state(struct perf_event *event, enum perf_event_state state, u64 now)
{
	perf_event_update_time(event, now);
	event->state = state;
}

/* ---- scheduling events onto a cpu (perf_lock held) ---- */
static noinline void event_sched_in(struct perf_event *event, int cpu, u64 now)
{
	if (event->state != PERF_EVENT_STATE_INACTIVE)
		return;
	if (event->cpu != -1 && event->cpu != cpu)
		return;
	perf_event_update_time(event, now);
	event->state = PERF_EVENT_STATE_ACTIVE;
	event->oncpu = cpu;
	if (event->pmu->add(event, PERF_EF_START)) {	/* no counter left: it waits, not running */
		event->state = PERF_EVENT_STATE_INACTIVE;
		event->oncpu = -1;
	}
}

static void event_sched_out(struct perf_event *event, u64 now)
{
	if (event->state != PERF_EVENT_STATE_ACTIVE)
		return;
	event->pmu->del(event, 0);
	perf_event_update_time(event, now);
	event->state = PERF_EVENT_STATE_INACTIVE;
	event->oncpu = -1;
}

static notrace void group_sched_in(struct perf_event *leader, int cpu, u64 now)
{
	struct perf_event *sibling;

	if (leader->state != PERF_EVENT_STATE_INACTIVE || (leader->cpu != -1 && leader->cpu != cpu))
		return;
	event_sched_in(leader, cpu, now);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_list)
		event_sched_in(sibling, cpu, now);
}

static void group_sched_out(struct perf_event *leader, u64 now)
{
	struct perf_event *sibling;

	event_sched_out(leader, now);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_list)
		event_sched_out(sibling, now);
}

/* the cpu a context's events run on now, -1: none */
static int ctx_cpu(struct perf_event_context *ctx)
{
	if (!ctx->task)
		return (int)(container_of(ctx, struct perf_cpu_context, ctx) - perf_cpu_context);
	return ctx->is_active ? ctx->active_cpu : -1;
}

static noinline void ctx_sched_in(struct perf_event_context *ctx, int cpu, u64 now)
{
	struct perf_event *event;

	list_for_each_entry(event, &ctx->event_list, event_entry)
		if (event->group_leader == event)
			group_sched_in(event, cpu, now);
}

static noinline void ctx_sched_out(struct perf_event_context *ctx, u64 now)
{
	struct perf_event *event;

	list_for_each_entry(event, &ctx->event_list, event_entry)
		if (event->group_leader == event)
			group_sched_out(event, now);
}

/* a task context becomes active on cpu (its task runs there) */
static void task_ctx_sched_in(struct perf_event_context *ctx, int cpu, u64 now)
{
	if (ctx->is_active)
		return;
	ctx->is_active = 1;
	ctx->active_cpu = cpu;
	ctx->timestamp = now;
	ctx_sched_in(ctx, cpu, now);
}

static void task_ctx_sched_out(struct perf_event_context *ctx, u64 now)
{
	if (!ctx->is_active)
		return;
	ctx_sched_out(ctx, now);
	if (now > ctx->timestamp)
		ctx->time += now - ctx->timestamp;
	ctx->is_active = 0;
}

void __perf_event_task_sched_out(struct task_struct *prev, struct task_struct *next)
{
	struct perf_event_context *ctx = prev->perf_event_ctxp;
	unsigned long flags;

	if (!ctx)
		return;
	flags = perf_lock_irqsave();
	task_ctx_sched_out(ctx, perf_clock());
	perf_unlock_irqrestore(flags);
}

void __perf_event_task_sched_in(struct task_struct *prev, struct task_struct *task)
{
	struct perf_event_context *ctx = task->perf_event_ctxp;
	unsigned long flags;

	if (ctx) {
		flags = perf_lock_irqsave();
		task_ctx_sched_in(ctx, smp_processor_id(), perf_clock());
		perf_unlock_irqrestore(flags);
	}
}

/* the task is on a cpu now (its runqueue's curr): which, or -1 */
static int task_curr_cpu(struct task_struct *task)
{
	int cpu = READ_ONCE(task->cpu);

	if (cpu >= 0 && cpu < nr_cpu_ids && READ_ONCE(cpu_data[cpu].rq.curr) == task)
		return cpu;
	return -1;
}

/* ---- firing ---- */
static __always_inline int interrupt_context_level(void)
{
	int count = this_cpu()->preempt_count;

	return (count & NMI_MASK) ? 3 : (count & HARDIRQ_MASK) ? 2 : (count & SOFTIRQ_OFFSET) ? 1 : 0;
}

int perf_swevent_get_recursion_context(void)
{
	struct perf_cpu_context *cpuctx = &perf_cpu_context[smp_processor_id()];
	int rctx = interrupt_context_level();

	if (cpuctx->recursion[rctx])
		return -1;
	cpuctx->recursion[rctx]++;
	barrier();
	return rctx;
}

noinline void perf_swevent_put_recursion_context(int rctx)
{
	barrier();
	perf_cpu_context[smp_processor_id()].recursion[rctx]--;
}

/* perf_exclude_event() */
static noinline bool perf_exclude_event(struct perf_event *event, struct pt_regs *regs)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return true;
	if (regs) {
		if (event->attr.exclude_user && user_mode(regs))
			return true;
		if (event->attr.exclude_kernel && !user_mode(regs))
			return true;
	}
	return false;
}

/* ---- samples ---- */
static void __perf_event_disable(struct perf_event *event, u64 now);
static u64 __perf_event_read_value(struct perf_event *event, u64 *enabled, u64 *running, u64 now);

/*
 * read()'s format of the event (perf_read_one) or of its whole group (perf_read_group), one
 * u64 at a time to put(arg, value), perf_lock held: the number of values.
 */
static notrace size_t perf_read_format(struct perf_event *event, u64 now, void (*put)(void *, u64), void *arg)
{
	u64 read_format = event->attr.read_format, enabled, running, value;
	struct perf_event *leader = event->group_leader, *member;
	size_t n = 0;

#define PUT(v) (put(arg, (v)), n++)
	if (!(read_format & PERF_FORMAT_GROUP)) {
		leader = event;
		value = __perf_event_read_value(event, &enabled, &running, now);
		PUT(value);
	} else {
		PUT(1 + leader->nr_siblings);
		value = __perf_event_read_value(leader, &enabled, &running, now);
	}
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		PUT(enabled);
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		PUT(running);
	if (read_format & PERF_FORMAT_GROUP)
		PUT(value);
	if (read_format & PERF_FORMAT_ID)
		PUT(primary_event_id(leader));
	if (read_format & PERF_FORMAT_LOST)
		PUT(leader->lost_samples);
	if (!(read_format & PERF_FORMAT_GROUP))
		return n;
	list_for_each_entry(member, &leader->sibling_list, sibling_list) {
		PUT(__perf_event_read_value(member, &enabled, &running, now));
		if (read_format & PERF_FORMAT_ID)
			PUT(primary_event_id(member));
		if (read_format & PERF_FORMAT_LOST)
			PUT(member->lost_samples);
	}
#undef PUT
	return n;
}

static notrace void perf_output_put_u64(void *handle, u64 value)
{
	perf_output_put((struct perf_output_handle *)handle, value);
}

/* a sample's PERF_SAMPLE_READ */
static noinline void perf_output_read(struct perf_output_handle *handle, struct perf_event *event)
{
	perf_read_format(event, perf_clock(), perf_output_put_u64, handle);
}

static u32 perf_event_pid(struct perf_event *event, struct task_struct *p)
{
	return p->tgid;
}

static u32 perf_event_tid(struct perf_event *event, struct task_struct *p)
{
	return p->pid;
}

void perf_event_header__init_id(struct perf_sample_data *data, struct perf_event *event)
{
	u64 sample_type = event->attr.sample_type;

	if (sample_type & PERF_SAMPLE_TID) {
		data->tid_entry.pid = perf_event_pid(event, current);
		data->tid_entry.tid = perf_event_tid(event, current);
	}
	if (sample_type & PERF_SAMPLE_TIME)
		data->time = perf_clock();
	if (sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		data->id = primary_event_id(event);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		data->stream_id = event->id;
	if (sample_type & PERF_SAMPLE_CPU) {
		data->cpu_entry.cpu = smp_processor_id();
		data->cpu_entry.reserved = 0;
	}
}

/* the sample_id a record other than a sample ends with (attr.sample_id_all) */
void perf_event__output_id_sample(struct perf_event *event, struct perf_output_handle *handle,
				  struct perf_sample_data *data)
{
	u64 sample_type = event->attr.sample_type;

	if (!event->attr.sample_id_all)
		return;
	if (sample_type & PERF_SAMPLE_TID)
		perf_output_put(handle, data->tid_entry);
	if (sample_type & PERF_SAMPLE_TIME)
		perf_output_put(handle, data->time);
	if (sample_type & PERF_SAMPLE_ID)
		perf_output_put(handle, data->id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		perf_output_put(handle, data->stream_id);
	if (sample_type & PERF_SAMPLE_CPU)
		perf_output_put(handle, data->cpu_entry);
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		perf_output_put(handle, data->id);
}

/*
 * __perf_event_header_size() and perf_event__id_header_size(): a u64 for each field but the
 * read values; the weights are one field
 */
#define PERF_SAMPLE_U64_FIELDS (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | \
				PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | \
				PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)
#define PERF_SAMPLE_ID_FIELDS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER | \
			       PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)
static void perf_event__header_size(struct perf_event *event)
{
	u64 sample_type = event->attr.sample_type;

	event->header_size = sizeof(u64) * hweight64(sample_type & PERF_SAMPLE_U64_FIELDS) +
			     (sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) ? sizeof(u64) : 0) +
			     (sample_type & PERF_SAMPLE_READ ? event->read_size : 0);
	event->id_header_size = sizeof(u64) * hweight64(sample_type & PERF_SAMPLE_ID_FIELDS);
}

static void perf_prepare_sample(struct perf_event_header *header, struct perf_sample_data *data,
				struct perf_event *event, struct pt_regs *regs)
{
	u64 sample_type = event->attr.sample_type;
	u32 size = sizeof(*header) + event->header_size + event->id_header_size;

	header->type = PERF_RECORD_SAMPLE;
	header->misc = user_mode(regs) ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
	perf_event_header__init_id(data, event);
	if (sample_type & PERF_SAMPLE_IP)
		data->ip = regs->ip;
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (!data->callchain)	/* (bpf_overflow_handler may have taken it) */
			data->callchain = perf_callchain(event, regs);
		size += (1 + data->callchain[0]) * sizeof(u64);
	}
	if (sample_type & PERF_SAMPLE_RAW)	/* with its u32 size, a whole number of u64s */
		size += data->raw ? ALIGN(data->raw->size + sizeof(u32), sizeof(u64)) : sizeof(u64);
	header->size = size;
}

static void perf_output_sample(struct perf_output_handle *handle, struct perf_event_header *header,
			       struct perf_sample_data *data, struct perf_event *event)
{
	u64 sample_type = event->attr.sample_type, zero = 0;

	perf_output_put(handle, *header);
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		perf_output_put(handle, data->id);
	if (sample_type & PERF_SAMPLE_IP)
		perf_output_put(handle, data->ip);
	if (sample_type & PERF_SAMPLE_TID)
		perf_output_put(handle, data->tid_entry);
	if (sample_type & PERF_SAMPLE_TIME)
		perf_output_put(handle, data->time);
	if (sample_type & PERF_SAMPLE_ADDR)
		perf_output_put(handle, data->addr);
	if (sample_type & PERF_SAMPLE_ID)
		perf_output_put(handle, data->id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		perf_output_put(handle, data->stream_id);
	if (sample_type & PERF_SAMPLE_CPU)
		perf_output_put(handle, data->cpu_entry);
	if (sample_type & PERF_SAMPLE_PERIOD)
		perf_output_put(handle, data->period);
	if (sample_type & PERF_SAMPLE_READ)	/* the count as read() gives it, no group */
		perf_output_read(handle, event);
	if (sample_type & PERF_SAMPLE_CALLCHAIN)
		perf_output_copy(handle, data->callchain, (1 + data->callchain[0]) * sizeof(u64));
	if (sample_type & PERF_SAMPLE_RAW) {
		if (data->raw) {
			u32 size = ALIGN(data->raw->size + sizeof(u32), sizeof(u64)) - sizeof(u32);

			perf_output_put(handle, size);
			perf_output_copy(handle, data->raw->data, data->raw->size);
			perf_output_copy(handle, &zero, size - data->raw->size);
		} else {
			struct { u32 size; u32 data; } raw = { .size = sizeof(u32), .data = 0 };

			perf_output_put(handle, raw);
		}
	}
	/* wakeup_events: a wakeup every so many samples */
	if (!event->attr.watermark && event->attr.wakeup_events) {
		struct perf_buffer *rb = handle->rb;

		if (++rb->events >= event->attr.wakeup_events) {
			rb->events -= event->attr.wakeup_events;
			rb->wakeup++;
		}
	}
}

/* perf_event_output_forward(), perf_lock held */
noinline void perf_event_output(struct perf_event *event, struct perf_sample_data *data, struct pt_regs *regs)
{
	struct perf_output_handle handle;
	struct perf_event_header header;

	perf_prepare_sample(&header, data, event, regs);
	if (perf_output_begin(&handle, event, header.size))
		return;
	perf_output_sample(&handle, &header, data, event);
	perf_output_end(&handle);
}

/*
 * BPF's perf event arrays (kernel/bpf/arraymap.c) keep an entry per slot, replaced and used
 * under perf_lock, so a program on another cpu never writes to an event being freed.
 */
notrace struct bpf_event_entry *perf_event_array_xchg(struct bpf_event_entry **slot, struct bpf_event_entry *ee)
{
	unsigned long flags = perf_lock_irqsave();
	struct bpf_event_entry *old = *slot;

	*slot = ee;
	perf_unlock_irqrestore(flags);
	return old;
}

/*
 * __bpf_perf_event_output() + perf_event_output(): a sample of raw (PERF_SAMPLE_RAW) on the
 * slot's BPF_OUTPUT event, which must be active on this cpu; not counted.  -ENOSPC when its
 * buffer has no room (a lost record).
 */
notrace int perf_event_array_output(struct bpf_event_entry **slot, struct perf_raw_record *raw, struct pt_regs *regs)
{
	struct perf_output_handle handle;
	struct perf_event_header header;
	struct perf_sample_data data;
	struct perf_event *event;
	unsigned long flags = 0;
	bool locked = perf_lock_unless_held(&flags);
	int err = -ENOENT;

	if (!*slot)
		goto out;
	event = (*slot)->perf_file->private_data;
	err = -EINVAL;
	if (event->attr.type != PERF_TYPE_SOFTWARE || event->attr.config != PERF_COUNT_SW_BPF_OUTPUT)
		goto out;
	err = -EOPNOTSUPP;
	if (event->oncpu != smp_processor_id())
		goto out;
	memset(&data, 0, sizeof(data));
	data.raw = raw;
	perf_prepare_sample(&header, &data, event, regs);
	err = perf_output_begin(&handle, event, header.size);
	if (!err) {
		perf_output_sample(&handle, &header, &data, event);
		perf_output_end(&handle);
	}
out:
	if (locked)
		perf_unlock_irqrestore(flags);
	return err;
}

/*
 * perf_adjust_period(): a frequency event's next period, the one that gives sample_freq samples
 * a second at the rate it counted (count in nsec), through 6.1's low-pass filter (an eighth of
 * the way there each time); a period left over 8 periods restarts (disable: the event stopped
 * and started again around it, as it runs).
 */
static void perf_adjust_period(struct perf_event *event, u64 nsec, u64 count, bool disable)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 freq = event->attr.sample_freq;
	s64 period, delta, sample_period;

	if (!nsec || !freq)
		return;
	if (count < ~0ULL / 1000000000ULL)	/* perf_calculate_period() */
		period = count * 1000000000ULL / nsec / freq;
	else
		period = count / nsec * 1000000000ULL / freq;
	delta = period - (s64)hwc->sample_period;
	delta = (delta >= 0 ? delta + 7 : delta - 7) / 8;
	sample_period = hwc->sample_period + delta;
	if (!sample_period)
		sample_period = 1;
	hwc->sample_period = sample_period;
	if (hwc->period_left > 8 * sample_period) {
		disable = disable && event->pmu->stop && event->pmu->start;
		if (disable)
			event->pmu->stop(event, PERF_EF_UPDATE);
		hwc->period_left = 0;
		if (disable)
			event->pmu->start(event, PERF_EF_RELOAD);
	}
}

/*
 * Throttling: a sampling event may overflow max_samples_per_tick times in one tick of its cpu
 * (perf_event_max_sample_rate / HZ, rounded up); the overflow past that throttles it: its pmu
 * stops it (the caller, told by the return) and a PERF_RECORD_THROTTLE goes to its buffer; the
 * cpu's next tick starts it again with a PERF_RECORD_UNTHROTTLE (perf_event_task_tick).
 */
static u64 perf_throttled_seq[NR_CPUS];	/* the cpu's ticks */

/*
 * The limits the two sysctls give (6.1's perf_proc_update_handler() and
 * perf_cpu_time_max_percent_handler() work them out as they are written; the host writes
 * the variables here, so the kernel works them out when it next looks), and
 * perf_sample_event_took()'s dynamic lowering of the rate: a PMI that takes more than its
 * share of the cpu's time (perf_cpu_time_max_percent of a sample period, on average over the
 * last NR_ACCUMULATED_SAMPLES) lowers perf_event_max_sample_rate to what it can bear.
 */
#define NR_ACCUMULATED_SAMPLES 128
static int max_samples_per_tick = (100000 + HZ - 1) / HZ;
static u64 perf_sample_allowed_ns = (NSEC_PER_SEC / 100000) * 25 / 100;
static int limits_rate = 100000, limits_percent = 25;	/* what they were worked out from */
static u64 running_sample_length[NR_CPUS];
static u64 report_avg, report_allowed;
static int perf_duration_pending;	/* a lowering to report (perf_duration_warn()'s irq_work) */

static __always_inline void update_perf_cpu_limits(void)
{
	int rate = READ_ONCE(sysctl_perf_event_sample_rate), percent = READ_ONCE(sysctl_perf_cpu_time_max_percent);
	u64 allowed;

	if (rate == limits_rate && percent == limits_percent)
		return;
	if (percent != limits_percent && (percent == 100 || percent == 0))
		printk(KERN_WARNING "perf: Dynamic interrupt throttling disabled, can hang your system!\n");
	max_samples_per_tick = (rate + HZ - 1) / HZ;
	allowed = (u64)(NSEC_PER_SEC / rate) * percent / 100;
	WRITE_ONCE(perf_sample_allowed_ns, percent == 100 || percent == 0 ? 0 : allowed ? allowed : 1);
	limits_rate = rate;
	limits_percent = percent;
}

/* perf_sample_event_took(): a PMI's length, from the NMI handler */
noinline void perf_sample_event_took(u64 sample_len_ns)
{
	u64 max_len, running_len, avg_len;
	int cpu = smp_processor_id();
	u32 max;

	update_perf_cpu_limits();
	max_len = READ_ONCE(perf_sample_allowed_ns);
	if (max_len == 0)
		return;
	/* decay the counter by one average sample */
	running_len = running_sample_length[cpu];
	running_len -= running_len / NR_ACCUMULATED_SAMPLES;
	running_len += sample_len_ns;
	running_sample_length[cpu] = running_len;
	/* (biased low until NR_ACCUMULATED_SAMPLES were seen, as 6.1's) */
	avg_len = running_len / NR_ACCUMULATED_SAMPLES;
	if (avg_len <= max_len)
		return;
	report_avg = avg_len;
	report_allowed = max_len;
	/* a throttle threshold 25% below the current duration */
	avg_len += avg_len / 4;
	max = (TICK_NSEC / 100) * READ_ONCE(sysctl_perf_cpu_time_max_percent);
	if (avg_len < max)
		max /= (u32)avg_len;
	else
		max = 1;
	WRITE_ONCE(perf_sample_allowed_ns, avg_len);
	WRITE_ONCE(max_samples_per_tick, max);
	WRITE_ONCE(sysctl_perf_event_sample_rate, max * HZ);
	limits_rate = max * HZ;
	WRITE_ONCE(perf_duration_pending, 1);
}

/* perf_duration_warn(): the irq_work's report, from the next tick (printk_ratelimited) */
static noinline void perf_duration_warn(void)
{
	static u64 window_start;
	static int printed;
	u64 now = jiffies;

	if (!__atomic_exchange_n(&perf_duration_pending, 0, __ATOMIC_ACQ_REL))
		return;
	if (!window_start || now - window_start >= 5 * HZ) {	/* DEFAULT_RATELIMIT_INTERVAL, _BURST */
		window_start = now;
		printed = 0;
	}
	if (printed++ < 10)
		printk(KERN_INFO "perf: interrupt took too long (%lld > %lld), lowering "
		       "kernel.perf_event_max_sample_rate to %d\n",
		       report_avg, report_allowed, READ_ONCE(sysctl_perf_event_sample_rate));
}
static int nr_freq_events;			/* frequency events: the ticks adjust their periods */
static u64 perf_throttled_count[NR_CPUS];	/* events it throttled since its last tick */

static void perf_event_sb_output(struct perf_event *event, struct perf_event_header *header, const void *body,
				 unsigned int size);

/* perf_log_throttle(): PERF_RECORD_THROTTLE (enable 0) or _UNTHROTTLE (1) */
static noinline void perf_log_throttle(struct perf_event *event, int enable)
{
	struct {
		u64 time, id, stream_id;
	} body = { perf_clock(), primary_event_id(event), event->id };
	struct perf_event_header header = {
		.type = enable ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE,
		.size = sizeof(header) + sizeof(body),
	};

	perf_event_sb_output(event, &header, &body, sizeof(body));
}

/* __perf_event_account_interrupt(): 1 if this overflow throttles the event; a frequency
 * event's period follows the time since its last overflow, when that is under two ticks */
static noinline int __perf_event_account_interrupt(struct perf_event *event, int throttle)
{
	struct hw_perf_event *hwc = &event->hw;
	int cpu = smp_processor_id(), ret = 0;
	u64 seq = READ_ONCE(perf_throttled_seq[cpu]);

	update_perf_cpu_limits();
	if (seq != hwc->interrupts_seq) {
		hwc->interrupts_seq = seq;
		hwc->interrupts = 1;
	} else {
		hwc->interrupts++;
		if (unlikely(throttle && hwc->interrupts > (u64)READ_ONCE(max_samples_per_tick))) {
			perf_throttled_count[cpu]++;
			hwc->interrupts = MAX_INTERRUPTS;
			perf_log_throttle(event, 0);
			ret = 1;
		}
	}
	if (event->attr.freq) {
		u64 now = perf_clock();
		s64 delta = now - hwc->freq_time_stamp;

		hwc->freq_time_stamp = now;
		if (delta > 0 && delta < (s64)(2 * TICK_NSEC))
			perf_adjust_period(event, delta, hwc->last_period, true);
	}
	return ret;
}

/* __perf_event_overflow(): the interrupt accounted (throttle: it may throttle the event),
 * REFRESH's limit, then the sample, unless the event's BPF program (a sampling event's
 * PERF_EVENT_IOC_SET_BPF: bpf_overflow_handler) says 0; 1 if the caller must stop the event */
static noinline int __perf_event_overflow(struct perf_event *event, int throttle, struct perf_sample_data *data,
					  struct pt_regs *regs)
{
	int ret;

	if (unlikely(!is_sampling_event(event)))
		return 0;
	ret = __perf_event_account_interrupt(event, throttle);
	if (event->event_limit && --event->event_limit == 0) {
		ret = 1;
		__perf_event_disable(event, perf_clock());
	}
	if (event->prog && !perf_event_is_tracing(event) && !bpf_overflow_handler(event, data, regs))
		return ret;
	perf_event_output(event, data, regs);
	return ret;
}

int perf_event_overflow(struct perf_event *event, struct perf_sample_data *data, struct pt_regs *regs)
{
	return __perf_event_overflow(event, 1, data, regs);
}

/*
 * perf_adjust_freq_unthr_context() (inline in 6.1: notrace), at a tick of cpu: the context's events active there that
 * were throttled start again; a frequency event's period follows what it counted in the tick
 * (for a pmu that can stop and start it: the cpu PMU's).
 */
static noinline notrace void perf_adjust_freq_unthr_context(struct perf_event_context *ctx, int cpu)
{
	struct perf_event *event;

	list_for_each_entry(event, &ctx->event_list, event_entry) {
		struct hw_perf_event *hwc = &event->hw;
		s64 delta;

		if (event->state != PERF_EVENT_STATE_ACTIVE || event->oncpu != cpu)
			continue;
		if (hwc->interrupts == MAX_INTERRUPTS) {
			hwc->interrupts = 0;
			perf_log_throttle(event, 1);
			if (event->pmu->start)
				event->pmu->start(event, 0);
		}
		if (!event->attr.freq || !event->attr.sample_freq || !event->pmu->stop || !event->pmu->start)
			continue;
		event->pmu->stop(event, PERF_EF_UPDATE);
		delta = event->count - hwc->freq_count_stamp;
		hwc->freq_count_stamp = event->count;
		if (delta > 0)
			perf_adjust_period(event, TICK_NSEC, delta, false);
		event->pmu->start(event, delta > 0 ? PERF_EF_RELOAD : 0);
	}
}

/* perf_event_task_tick(), from scheduler_tick() (irqs off): a new tick for throttling; the
 * events throttled since the last one started again, frequency events' periods adjusted */
noinline void perf_event_task_tick(void)
{
	int cpu = smp_processor_id();
	struct perf_event_context *ctx;
	unsigned long flags;

	WRITE_ONCE(perf_throttled_seq[cpu], perf_throttled_seq[cpu] + 1);
	if (unlikely(READ_ONCE(perf_duration_pending)))
		perf_duration_warn();
	if (!READ_ONCE(perf_throttled_count[cpu]) && !READ_ONCE(nr_freq_events))
		return;
	flags = perf_lock_irqsave();
	WRITE_ONCE(perf_throttled_count[cpu], 0);
	perf_adjust_freq_unthr_context(&perf_cpu_context[cpu].ctx, cpu);
	ctx = current->perf_event_ctxp;
	if (ctx && ctx->is_active && ctx->active_cpu == cpu)
		perf_adjust_freq_unthr_context(ctx, cpu);
	perf_unlock_irqrestore(flags);
}

/*
 * perf_event_set_bpf_handler(): a PERF_EVENT program on a sampling event (not a tracing one),
 * run at each overflow; the event keeps the caller's reference until it is freed.
 */
notrace int perf_event_set_bpf_handler(struct perf_event *event, struct bpf_prog *prog)
{
	unsigned long flags;
	int ret = 0;

	if (prog->type != BPF_PROG_TYPE_PERF_EVENT)
		return -EINVAL;
	/* a precise event's program that reads stacks must have the sample's whole chain */
	if (event->attr.precise_ip && prog->call_get_stack &&
	    (!(event->attr.sample_type & PERF_SAMPLE_CALLCHAIN) || event->attr.exclude_callchain_kernel ||
	     event->attr.exclude_callchain_user))
		return -EPROTO;
	flags = perf_lock_irqsave();
	if (event->prog)
		ret = -EEXIST;
	else
		event->prog = prog;
	perf_unlock_irqrestore(flags);
	return ret;
}

/*
 * PERF_EVENT_IOC_SET_BPF: a sampling event's PERF_EVENT program (perf_event_set_bpf_handler),
 * or a tracing event's: a KPROBE program on a kprobe's, a TRACEPOINT program on a tracepoint's
 * reading no further than its record (-EACCES), attached by perf_event_attach_bpf_prog().
 */
int perf_event_set_bpf_prog(struct perf_event *event, struct bpf_prog *prog)
{
	if (!perf_event_is_tracing(event))
		return perf_event_set_bpf_handler(event, prog);
	if (event->kprobe_call) {	/* a kprobe event: KPROBE programs, which read the probed registers */
		if (prog->type != BPF_PROG_TYPE_KPROBE)
			return -EINVAL;
	} else {
		if (prog->type != BPF_PROG_TYPE_TRACEPOINT)
			return -EINVAL;
		if (prog->max_ctx_offset > (u32)trace_event_get_offsets(event->tp_event))
			return -EACCES;
	}
	return perf_event_attach_bpf_prog(event, prog);
}

/* perf_event_free_bpf_prog(): the event's program goes, the event's reference to it put (a
 * perf link's release; the event stays) */
void perf_event_free_bpf_prog(struct perf_event *event)
{
	struct bpf_prog *prog;
	unsigned long flags;

	if (perf_event_is_tracing(event)) {
		perf_event_detach_bpf_prog(event);
		return;
	}
	flags = perf_lock_irqsave();	/* (perf_event_free_bpf_handler()) */
	prog = event->prog;
	event->prog = NULL;
	perf_unlock_irqrestore(flags);
	if (prog)
		bpf_prog_put(prog);
}

/*
 * perf_swevent_event(), perf_lock held: the count, and a sample each time the period runs
 * out (a frequency starts at period 1, as 6.1's does before the tick adjusts it).
 */
void perf_swevent_event(struct perf_event *event, u64 nr, struct pt_regs *regs, struct perf_raw_record *raw)
{
	struct hw_perf_event *hwc = &event->hw;
	struct perf_sample_data data;
	int throttle;

	event->count += nr;
	if (!regs || !is_sampling_event(event))
		return;
	memset(&data, 0, sizeof(data));
	data.raw = raw;
	if (hwc->interrupts == MAX_INTERRUPTS)	/* perf_swevent_overflow(): throttled */
		return;
	if ((event->attr.sample_type & PERF_SAMPLE_PERIOD) && !event->attr.freq) {
		data.period = nr;
		__perf_event_overflow(event, 0, &data, regs);
		return;
	}
	data.period = hwc->last_period;
	hwc->period_left -= nr;
	/* as perf_swevent_overflow(): the first overflow of a count never throttles, the next may */
	for (throttle = 0; hwc->period_left <= 0 && event->state == PERF_EVENT_STATE_ACTIVE; throttle = 1) {
		hwc->period_left += hwc->sample_period;
		hwc->last_period = hwc->sample_period;	/* perf_swevent_set_period() */
		if (__perf_event_overflow(event, throttle, &data, regs))
			break;
	}
}

notrace void ___perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr)
{
	struct perf_event *event;
	unsigned long flags = perf_lock_irqsave();
	struct list_head *head = &perf_swevent_lists[event_id][smp_processor_id()];

	list_for_each_entry(event, head, hw.node)
		if (!perf_exclude_event(event, regs))
			perf_swevent_event(event, nr, regs, NULL);
	perf_unlock_irqrestore(flags);
}

notrace void __perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr)
{
	int rctx = perf_swevent_get_recursion_context();

	if (rctx < 0)
		return;
	___perf_sw_event(event_id, nr, regs, addr);
	perf_swevent_put_recursion_context(rctx);
}

/* the scheduler's own events: the registers of the scheduler where it counts them */
notrace void __perf_sw_event_sched(u32 event_id, u64 nr, u64 addr)
{
	struct pt_regs *regs = &perf_cpu_context[smp_processor_id()].sched_regs;

	perf_fetch_caller_regs(regs);
	__perf_sw_event(event_id, nr, regs, addr);
}

void perf_tp_event(u16 event_type, u64 count, void *record, int entry_size, struct pt_regs *regs,
			   struct list_head *head, int rctx, struct task_struct *task)
{
	struct perf_raw_record raw = { .size = entry_size, .data = record };
	struct percpu *pc = this_cpu();
	struct perf_event *event;
	unsigned long flags = perf_lock_irqsave();

	/* perf_trace_buf_update(): the common fields, with tracing_gen_ctx()'s count */
	trace_entry_fill_count(pc, record, event_type, flags, trace_current_pid(pc), pc->preempt_count + 1);
	list_for_each_entry(event, head, hw.node)
		if (!perf_exclude_event(event, regs) && (!event->filter || filter_match_preds(event->filter, record)))
			perf_swevent_event(event, count, regs, &raw);
	perf_unlock_irqrestore(flags);
	perf_swevent_put_recursion_context(rctx);
}

/* pmu->add/del of the sources with per-cpu lists (software ids, tracepoints) */
notrace int perf_event_add_to_source(struct perf_event *event, struct list_head *lists)
{
	list_add_tail(&event->hw.node, &lists[event->oncpu]);
	event->hw.state = 0;
	return 0;
}

notrace void perf_event_del_from_source(struct perf_event *event)
{
	list_del_init(&event->hw.node);
	event->hw.state = PERF_HES_STOPPED;
}

/* ---- the software PMU ---- */
static void sw_perf_event_destroy(struct perf_event *event)
{
	static_key_slow_dec(&perf_swevent_enabled[event->attr.config]);
}

static int perf_swevent_init(struct perf_event *event)
{
	u64 event_id = event->attr.config;

	if (event->attr.type != PERF_TYPE_SOFTWARE)
		return -ENOENT;
	if (event->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	switch (event_id) {
	case PERF_COUNT_SW_CPU_CLOCK:
	case PERF_COUNT_SW_TASK_CLOCK:
		return -ENOENT;
	default:
		break;
	}
	if (event_id >= PERF_COUNT_SW_MAX)
		return -ENOENT;
	if (!event->parent) {
		static_key_slow_inc(&perf_swevent_enabled[event_id]);
		event->destroy = sw_perf_event_destroy;
	}
	return 0;
}

static int perf_swevent_add(struct perf_event *event, int flags)
{
	return perf_event_add_to_source(event, event->hw.source);
}

static void perf_swevent_del(struct perf_event *event, int flags)
{
	perf_event_del_from_source(event);
}

static void perf_swevent_read(struct perf_event *event) { }

/* perf_swevent_start/stop(): a stopped event counts nothing (perf_exclude_event); the tick
 * stops and starts a frequency event around its period's adjustment */
static void perf_swevent_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void perf_swevent_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

static struct pmu perf_swevent = {
	.name = "software",
	.type = PERF_TYPE_SOFTWARE,
	.event_init = perf_swevent_init,
	.add = perf_swevent_add,
	.del = perf_swevent_del,
	.start = perf_swevent_start,
	.stop = perf_swevent_stop,
	.read = perf_swevent_read,
};

/* cpu-clock and task-clock: the time they were active (a per-task event: its task's run time) */
static notrace noinline void perf_clock_event_update(struct perf_event *event)
{
	u64 now = perf_clock();

	if (now < event->hw.prev_count)	/* read on another cpu, a step behind the one it counts on */
		return;
	event->count += now - event->hw.prev_count;
	event->hw.prev_count = now;
}

/*
 * A sampling clock's period is an hrtimer of its cpu (perf_swevent_hrtimer() of 6.1): each
 * expiry, in the local timer's interrupt, is a sample of the interrupted context (get_irq_regs:
 * its IP, and its call chain by frame pointers).
 */
static enum hrtimer_restart perf_swevent_hrtimer(struct hrtimer *hrtimer)
{
	struct perf_event *event = container_of(hrtimer, struct perf_event, hw.hrtimer);
	enum hrtimer_restart ret = HRTIMER_RESTART;
	struct pt_regs *regs = this_cpu()->irq_regs;
	struct perf_sample_data data;
	unsigned long flags;
	u64 period;

	flags = perf_lock_irqsave();
	if (event->state != PERF_EVENT_STATE_ACTIVE || (event->hw.state & PERF_HES_STOPPED) ||
	    event->oncpu != smp_processor_id()) {
		perf_unlock_irqrestore(flags);
		return HRTIMER_NORESTART;
	}
	event->pmu->read(event);
	memset(&data, 0, sizeof(data));
	data.period = event->hw.last_period;
	if (regs && !perf_exclude_event(event, regs) &&
	    !(event->attr.exclude_idle && current->pid == 0) &&
	    __perf_event_overflow(event, 1, &data, regs))
		ret = HRTIMER_NORESTART;	/* throttled (the tick starts it again) */
	if (event->state != PERF_EVENT_STATE_ACTIVE)	/* REFRESH's limit ran out */
		ret = HRTIMER_NORESTART;
	period = max((u64)10000, event->hw.sample_period);
	hrtimer_forward(hrtimer, ktime_get(), period);
	perf_unlock_irqrestore(flags);
	return ret;
}

/* perf_swevent_start_hrtimer(): the rest of the period left at the last stop, or a whole one */
static void perf_swevent_start_hrtimer(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 period;

	if (!is_sampling_event(event))
		return;
	period = hwc->period_left;
	if (period) {
		if (period < 0)
			period = 10000;
		hwc->period_left = 0;
	} else {
		period = max((u64)10000, hwc->sample_period);
	}
	hrtimer_start_on(&hwc->hrtimer, period, 0, HRTIMER_MODE_REL_PINNED_HARD, event->oncpu);
}

static void perf_swevent_cancel_hrtimer(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!is_sampling_event(event))
		return;
	if (hrtimer_active(&hwc->hrtimer)) {
		s64 left = hrtimer_get_expires(&hwc->hrtimer) - ktime_get();

		hwc->period_left = left > 0 ? left : -1;
	}
	hrtimer_try_to_cancel(&hwc->hrtimer);	/* (perf_lock held: a callback running elsewhere sees
						 * the event stopped) */
}

static notrace void perf_clock_event_destroy(struct perf_event *event)
{
	/* (a callback running now, which saw the event still active, queues it again as it ends) */
	hrtimer_cancel_wait_running(&event->hw.hrtimer);
}

/*
 * perf_swevent_init_hrtimer(): hrtimers have a fixed rate, so a frequency is a period at once
 * (and the event no longer a frequency one, as perf reads it back: attr.freq 0).
 */
static void perf_swevent_init_hrtimer(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!is_sampling_event(event))
		return;
	hrtimer_init(&hwc->hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hwc->hrtimer.function = perf_swevent_hrtimer;
	event->destroy = perf_clock_event_destroy;
	if (event->attr.freq) {
		event->attr.sample_period = 1000000000ULL / event->attr.sample_freq;
		hwc->sample_period = event->attr.sample_period;
		hwc->period_left = hwc->sample_period;
		hwc->last_period = hwc->sample_period;
		event->attr.freq = 0;
	}
}

static notrace int perf_clock_event_add(struct perf_event *event, int flags)
{
	event->hw.prev_count = perf_clock();
	event->hw.state = 0;
	perf_swevent_start_hrtimer(event);
	return 0;
}

/* cpu_clock_event_start() for an unthrottled clock: its period's timer again (its count ran on) */
static notrace void perf_clock_event_start(struct perf_event *event, int flags)
{
	perf_swevent_start_hrtimer(event);
}

static notrace void perf_clock_event_del(struct perf_event *event, int flags)
{
	perf_swevent_cancel_hrtimer(event);
	perf_clock_event_update(event);
	event->hw.state = PERF_HES_STOPPED;
}

static int cpu_clock_event_init(struct perf_event *event)
{
	if (event->attr.type != PERF_TYPE_SOFTWARE || event->attr.config != PERF_COUNT_SW_CPU_CLOCK)
		return -ENOENT;
	if (event->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	perf_swevent_init_hrtimer(event);
	return 0;
}

static int task_clock_event_init(struct perf_event *event)
{
	if (event->attr.type != PERF_TYPE_SOFTWARE || event->attr.config != PERF_COUNT_SW_TASK_CLOCK)
		return -ENOENT;
	if (event->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	perf_swevent_init_hrtimer(event);
	return 0;
}

static struct pmu perf_cpu_clock = {
	.type = -1,
	.event_init = cpu_clock_event_init,
	.add = perf_clock_event_add,
	.del = perf_clock_event_del,
	.start = perf_clock_event_start,
	.read = perf_clock_event_update,
};

static struct pmu perf_task_clock = {
	.type = -1,
	.event_init = task_clock_event_init,
	.add = perf_clock_event_add,
	.del = perf_clock_event_del,
	.start = perf_clock_event_start,
	.read = perf_clock_event_update,
};

/* ---- the tracepoint PMU ---- */
static void tp_perf_event_destroy(struct perf_event *event)
{
	perf_trace_destroy(event);
}

static int perf_tp_event_init(struct perf_event *event)
{
	int err;

	if (event->attr.type != PERF_TYPE_TRACEPOINT)
		return -ENOENT;
	if (event->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	err = perf_trace_init(event);
	if (err)
		return err;
	event->destroy = tp_perf_event_destroy;
	return 0;
}

static notrace int perf_tp_add(struct perf_event *event, int flags)
{
	return perf_event_add_to_source(event, event->hw.source);
}

static struct pmu perf_tracepoint = {
	.name = "tracepoint",
	.type = PERF_TYPE_TRACEPOINT,
	.event_init = perf_tp_event_init,
	.add = perf_tp_add,
	.del = perf_swevent_del,
	.read = perf_swevent_read,
};

/* ---- the kprobe PMU (perf_kprobe of 6.1): a probe of its own per event ---- */
static int perf_kprobe_event_init(struct perf_event *event)
{
	int err;

	if (event->attr.type != PERF_TYPE_KPROBE)
		return -ENOENT;
	if (!perfmon_capable())
		return -EACCES;
	if (event->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;	/* no branch sampling for probe events */
	err = perf_kprobe_init(event, event->attr.config & PERF_PROBE_CONFIG_IS_RETPROBE);
	if (err)
		return err;
	event->destroy = perf_kprobe_destroy;
	return 0;
}

static struct pmu perf_kprobe = {
	.name = "kprobe",
	.type = PERF_TYPE_KPROBE,
	.event_init = perf_kprobe_event_init,
	.add = perf_tp_add,
	.del = perf_swevent_del,
	.read = perf_swevent_read,
};

/* ---- the uprobe PMU (perf_uprobe of 6.1): a consumer of its own per event ---- */
static int perf_uprobe_event_init(struct perf_event *event)
{
	int err;

	if (event->attr.type != PERF_TYPE_UPROBE)
		return -ENOENT;
	if (!perfmon_capable())
		return -EACCES;
	if (event->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;	/* no branch sampling for probe events */
	err = perf_uprobe_init(event, event->attr.config >> 32, event->attr.config & PERF_PROBE_CONFIG_IS_RETPROBE);
	if (err)
		return err;
	event->destroy = perf_uprobe_destroy;
	return 0;
}

static struct pmu perf_uprobe = {
	.name = "uprobe",
	.type = PERF_TYPE_UPROBE,
	.event_init = perf_uprobe_event_init,
	.add = perf_tp_add,
	.del = perf_swevent_del,
	.read = perf_swevent_read,
};

noinline void perf_pmu_register(struct pmu *pmu)
{
	mutex_lock(&pmus_lock);
	list_add_tail(&pmu->entry, &pmus);
	mutex_unlock(&pmus_lock);
}

/* perf_init_event(): the first PMU that takes the event; -ENOENT when none knows its type */
static int perf_init_event(struct perf_event *event)
{
	struct pmu *pmu;
	int ret = -ENOENT;

	mutex_lock(&pmus_lock);
	list_for_each_entry(pmu, &pmus, entry) {
		ret = pmu->event_init(event);
		if (!ret) {
			event->pmu = pmu;
			break;
		}
		if (ret != -ENOENT)
			break;
	}
	mutex_unlock(&pmus_lock);
	return ret;
}

/* ---- the read format ---- */
static u16 __perf_event_read_size(u64 read_format, int nr_siblings)
{
	int entry = sizeof(u64), size = 0, nr = 1;

	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		size += sizeof(u64);
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		size += sizeof(u64);
	if (read_format & PERF_FORMAT_ID)
		entry += sizeof(u64);
	if (read_format & PERF_FORMAT_LOST)
		entry += sizeof(u64);
	if (read_format & PERF_FORMAT_GROUP) {
		nr += nr_siblings;
		size += sizeof(u64);
	}
	return size + entry * nr;
}

/* perf_event__header_size() of a group: every member reads the whole group */
static notrace void perf_group_read_sizes(struct perf_event *leader)
{
	struct perf_event *sibling;

	leader->read_size = __perf_event_read_size(leader->attr.read_format, leader->nr_siblings);
	perf_event__header_size(leader);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_list) {
		sibling->read_size = __perf_event_read_size(sibling->attr.read_format, leader->nr_siblings);
		perf_event__header_size(sibling);
	}
}

/* ---- allocation and freeing ---- */
/* is_sb_event(): an event that asks for side-band records (the exec, fork and exit paths look
 * only while there is one) */
static int nr_sb_events;
static int nr_ksymbol_events, nr_bpf_events;	/* of those, the ones asking for KSYMBOL, BPF_EVENT */

static bool is_sb_event(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;

	return attr->mmap || attr->mmap_data || attr->mmap2 || attr->comm || attr->comm_exec || attr->task ||
	       attr->ksymbol || attr->bpf_event;
}

static void perf_event_task(struct task_struct *task, struct task_struct *parent, int type);

static struct perf_event *perf_event_alloc(struct perf_event_attr *attr, int cpu, struct task_struct *task,
					   struct perf_event *group_leader, struct perf_event *parent_event)
{
	struct perf_event *event;
	int err;

	if ((unsigned int)cpu >= (unsigned int)nr_cpu_ids) {
		if (!task || cpu != -1)
			return ERR_PTR(-EINVAL);
	}
	if (attr->sigtrap && !task)
		return ERR_PTR(-EINVAL);
	event = kzalloc(sizeof(*event), GFP_KERNEL);
	if (!event)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&event->event_entry);
	INIT_LIST_HEAD(&event->sibling_list);
	INIT_LIST_HEAD(&event->child_list);
	INIT_LIST_HEAD(&event->child_entry);
	INIT_LIST_HEAD(&event->hw.node);
	event->group_leader = group_leader ? group_leader : event;
	event->cpu = cpu;
	event->oncpu = -1;
	event->attr = *attr;
	event->parent = parent_event;
	event->id = __atomic_add_fetch(&perf_event_id, 1, __ATOMIC_RELAXED);
	event->state = attr->disabled ? PERF_EVENT_STATE_OFF : PERF_EVENT_STATE_INACTIVE;
	event->hw.target = task;
	event->hw.state = PERF_HES_STOPPED;
	if (attr->freq && attr->sample_freq)
		event->hw.sample_period = 1;
	else
		event->hw.sample_period = attr->sample_period;
	event->hw.last_period = event->hw.sample_period;
	event->hw.period_left = event->hw.sample_period;
	err = -EINVAL;
	if (attr->inherit && (attr->sample_type & PERF_SAMPLE_READ))
		goto err_free;
	if (!(attr->sample_type & PERF_SAMPLE_BRANCH_STACK))
		event->attr.branch_sample_type = 0;
	/* get_callchain_buffers(): a chain deeper than the cap is another error (perf says so) */
	if ((attr->sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    attr->sample_max_stack > (u32)READ_ONCE(sysctl_perf_event_max_stack)) {
		err = -EOVERFLOW;
		goto err_free;
	}
	err = perf_init_event(event);
	if (err)
		goto err_free;
	if (attr->sample_type & PERF_SAMPLE_CALLCHAIN)
		__atomic_add_fetch(&nr_callchain_events, 1, __ATOMIC_RELAXED);
	if (event->pmu == &perf_swevent)
		event->hw.source = perf_swevent_lists[event->attr.config];
	event->read_size = __perf_event_read_size(attr->read_format, 0);
	INIT_LIST_HEAD(&event->rb_entry);
	perf_event__header_size(event);
	if (task)
		static_key_slow_inc(&perf_sched_events);	/* account_event(): a per-task event */
	if (is_sb_event(event))
		__atomic_add_fetch(&nr_sb_events, 1, __ATOMIC_RELAXED);
	if (event->attr.ksymbol)
		__atomic_add_fetch(&nr_ksymbol_events, 1, __ATOMIC_RELAXED);
	if (event->attr.bpf_event)
		__atomic_add_fetch(&nr_bpf_events, 1, __ATOMIC_RELAXED);
	if (event->attr.freq)	/* account_freq_event() (a clock's frequency became a period) */
		__atomic_add_fetch(&nr_freq_events, 1, __ATOMIC_RELAXED);
	return event;
err_free:
	kfree(event);
	return ERR_PTR(err);
}

/* ring_buffer_attach(): the event's records go to rb (NULL: nowhere), perf_lock held; the
 * buffer it left if it was that one's last event, for the caller to free (rb_free) */
static noinline struct perf_buffer *ring_buffer_attach(struct perf_event *event, struct perf_buffer *rb)
{
	struct perf_buffer *old = event->rb;

	if (old) {
		list_del_init(&event->rb_entry);
		if (--old->refcount)
			old = NULL;
	}
	if (rb) {
		rb->refcount++;
		list_add_tail(&event->rb_entry, &rb->event_list);
	}
	event->rb = rb;
	return old;
}

static void free_event(struct perf_event *event)
{
	struct perf_buffer *rb;
	unsigned long flags;

	flags = perf_lock_irqsave();
	rb = ring_buffer_attach(event, NULL);
	perf_unlock_irqrestore(flags);
	if (rb)
		rb_free(rb);
	if (event->filter)
		free_event_filter(event->filter);
	if (event->destroy)
		event->destroy(event);
	if (event->prog)	/* a sampling event's program (a tracing event's destroy detached its own) */
		bpf_prog_put(event->prog);
	if (event->hw.target)
		static_key_slow_dec(&perf_sched_events);
	if (is_sb_event(event))
		__atomic_sub_fetch(&nr_sb_events, 1, __ATOMIC_RELAXED);
	if (event->attr.ksymbol)
		__atomic_sub_fetch(&nr_ksymbol_events, 1, __ATOMIC_RELAXED);
	if (event->attr.bpf_event)
		__atomic_sub_fetch(&nr_bpf_events, 1, __ATOMIC_RELAXED);
	if (event->attr.freq)
		__atomic_sub_fetch(&nr_freq_events, 1, __ATOMIC_RELAXED);
	if (event->attr.sample_type & PERF_SAMPLE_CALLCHAIN)	/* put_callchain_buffers() */
		__atomic_sub_fetch(&nr_callchain_events, 1, __ATOMIC_RELAXED);
	kfree(event);
}

/* a reference to a context goes (perf_lock held): the last one frees it, after the unlock */
static noinline void put_ctx(struct perf_event_context *ctx, struct perf_event_context **free_ctx)
{
	if (--ctx->refcount == 0)
		*free_ctx = ctx;
}

/* into its context, scheduled in at once where the context is active (perf_lock held) */
static void perf_install_in_context(struct perf_event_context *ctx, struct perf_event *event, u64 now)
{
	struct perf_event *leader = event->group_leader;
	int cpu;

	event->ctx = ctx;
	event->tstamp = perf_ctx_time(ctx, now);
	list_add_tail(&event->event_entry, &ctx->event_list);
	ctx->nr_events++;
	ctx->refcount++;
	if (leader != event) {
		list_add_tail(&event->sibling_list, &leader->sibling_list);
		leader->nr_siblings++;
		leader->group_generation++;
		perf_group_read_sizes(leader);
	}
	if (ctx->task && !ctx->is_active && (cpu = task_curr_cpu(ctx->task)) >= 0) {
		task_ctx_sched_in(ctx, cpu, now);
		return;
	}
	cpu = ctx_cpu(ctx);
	if (cpu < 0)
		return;
	if (leader == event)
		group_sched_in(event, cpu, now);
	else if (leader->state == PERF_EVENT_STATE_ACTIVE)
		event_sched_in(event, cpu, now);
}

/* out of its context and group (perf_lock held): siblings of a leader become singletons */
static void perf_remove_from_context(struct perf_event *event, u64 now)
{
	struct perf_event_context *ctx = event->ctx;
	struct perf_event *leader = event->group_leader, *sibling, *tmp;

	event_sched_out(event, now);
	perf_event_update_time(event, now);
	if (leader != event) {
		list_del_init(&event->sibling_list);
		leader->nr_siblings--;
		leader->group_generation++;
		perf_group_read_sizes(leader);
	} else {
		list_for_each_entry_safe(sibling, tmp, &event->sibling_list, sibling_list) {
			list_del_init(&sibling->sibling_list);
			sibling->group_leader = sibling;
			sibling->read_size = __perf_event_read_size(sibling->attr.read_format, 0);
			if (sibling->state == PERF_EVENT_STATE_INACTIVE && ctx_cpu(ctx) >= 0)
				group_sched_in(sibling, ctx_cpu(ctx), now);
		}
		event->nr_siblings = 0;
	}
	list_del_init(&event->event_entry);
	ctx->nr_events--;
}

/* ---- the task's context ---- */
static noinline struct perf_event_context *alloc_perf_context(struct task_struct *task)
{
	struct perf_event_context *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (ctx) {
		INIT_LIST_HEAD(&ctx->event_list);
		ctx->task = task;
	}
	return ctx;
}

/* ---- enable, disable, reset, refresh, period ---- */
static void __perf_event_enable(struct perf_event *event, u64 now)
{
	struct perf_event_context *ctx = event->ctx;
	int cpu;

	if (event->state >= PERF_EVENT_STATE_INACTIVE || event->state < PERF_EVENT_STATE_ERROR)
		return;
	if (event->state == PERF_EVENT_STATE_ERROR)
		event->state = PERF_EVENT_STATE_OFF;
	perf_event_set_state(event, PERF_EVENT_STATE_INACTIVE, now);
	cpu = ctx_cpu(ctx);
	if (cpu < 0)
		return;
	if (event->group_leader == event)
		group_sched_in(event, cpu, now);
	else if (event->group_leader->state == PERF_EVENT_STATE_ACTIVE)
		event_sched_in(event, cpu, now);
}

static void __perf_event_disable(struct perf_event *event, u64 now)
{
	if (event->state < PERF_EVENT_STATE_INACTIVE)
		return;
	if (event->group_leader == event)
		group_sched_out(event, now);
	else
		event_sched_out(event, now);
	perf_event_set_state(event, PERF_EVENT_STATE_OFF, now);
}

static notrace void __perf_event_reset(struct perf_event *event, u64 now)
{
	if (event->state == PERF_EVENT_STATE_ACTIVE && event->pmu->read)
		event->pmu->read(event);
	event->count = 0;
}

/* func on the event and its inherited children (perf_event_for_each_child) */
static noinline void perf_event_for_each_child(struct perf_event *event, void (*func)(struct perf_event *, u64), u64 now)
{
	struct perf_event *child;

	func(event, now);
	list_for_each_entry(child, &event->child_list, child_entry)
		func(child, now);
}

static void perf_event_for_each(struct perf_event *event, void (*func)(struct perf_event *, u64), u64 now)
{
	struct perf_event *leader = event->group_leader, *sibling;

	perf_event_for_each_child(leader, func, now);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_list)
		perf_event_for_each_child(sibling, func, now);
}

static noinline int _perf_event_period(struct perf_event *event, u64 value)
{
	if (!is_sampling_event(event))
		return -EINVAL;
	if (!value)
		return -EINVAL;
	if (event->attr.freq && value > (u64)sysctl_perf_event_sample_rate)
		return -EINVAL;
	if (!event->attr.freq && (value & (1ULL << 63)))
		return -EINVAL;
	if (event->attr.freq) {
		event->attr.sample_freq = value;
	} else {
		event->attr.sample_period = value;
		event->hw.sample_period = value;
		event->hw.period_left = value;
	}
	return 0;
}

/* ---- read ---- */
static noinline void perf_event_read(struct perf_event *event, u64 now)
{
	if (event->state == PERF_EVENT_STATE_ACTIVE && event->pmu->read)
		event->pmu->read(event);
	if (event->ctx)
		perf_event_update_time(event, now);
}

/*
 * perf_event_read_local(), perf_lock held (a program in the event's overflow): the count and
 * times of an event of this cpu, or of the current task, not inherited.
 */
int perf_event_read_local(struct perf_event *event, u64 *value, u64 *enabled, u64 *running)
{
	if (event->attr.inherit)
		return -EOPNOTSUPP;
	if (event->cpu == -1 && event->hw.target != current)
		return -EINVAL;
	if (event->cpu != -1 && event->cpu != smp_processor_id())
		return -EINVAL;
	if (event->attr.pinned && event->oncpu != smp_processor_id())
		return -EBUSY;
	perf_event_read(event, perf_clock());
	*value = event->count;
	*enabled = event->total_time_enabled;
	*running = event->total_time_running;
	return 0;
}

/* count, enabled and running of the event and its live inherited children (perf_lock held) */
static u64 __perf_event_read_value(struct perf_event *event, u64 *enabled, u64 *running, u64 now)
{
	struct perf_event *child;
	u64 total;

	perf_event_read(event, now);
	total = event->count + event->child_count;
	*enabled = event->total_time_enabled + event->child_total_time_enabled;
	*running = event->total_time_running + event->child_total_time_running;
	list_for_each_entry(child, &event->child_list, child_entry) {
		perf_event_read(child, now);
		total += child->count + child->child_count;
		*enabled += child->total_time_enabled;
		*running += child->total_time_running;
	}
	return total;
}

/* values into a buffer of read_size bytes (the group may have grown since it was sized) */
struct perf_read_buf {
	u64 *values;
	size_t n, cap;
};

static notrace void perf_read_put(void *arg, u64 value)
{
	struct perf_read_buf *b = arg;

	if (b->n < b->cap)
		b->values[b->n++] = value;
}

static ssize_t perf_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	struct perf_event *event = (struct perf_event *)file->private_data;
	struct perf_read_buf b;
	unsigned long flags;
	ssize_t ret;

	ret = security_perf_event_read(event);
	if (ret)
		return ret;
	if (event->state == PERF_EVENT_STATE_ERROR)
		return 0;	/* end of file: a pinned event that could not be scheduled */
	if (count < event->read_size)
		return -ENOSPC;
	mutex_lock(&perf_mutex);
	b.n = 0;
	b.cap = event->read_size / sizeof(u64);
	b.values = kzalloc(event->read_size, GFP_KERNEL);
	if (!b.values) {
		mutex_unlock(&perf_mutex);
		return -ENOMEM;
	}
	flags = perf_lock_irqsave();
	perf_read_format(event, perf_clock(), perf_read_put, &b);
	perf_unlock_irqrestore(flags);
	mutex_unlock(&perf_mutex);
	ret = copy_to_user(buf, b.values, b.n * sizeof(u64)) ? -EFAULT : (ssize_t)(b.n * sizeof(u64));
	kfree(b.values);
	return ret;
}

/* ---- ioctl ---- */
static int perf_copy_attr(struct perf_event_attr *uattr, struct perf_event_attr *attr);

/* The perf event file at fd (a borrowed reference: the fd table keeps it while it is used). */
static int perf_fget_light(int fd, struct file **filep)
{
	struct file *f = fget(fd);
	bool ours = f && f->f_op == &perf_fops;

	if (f)
		fput(f);
	if (!ours)
		return -EBADF;
	*filep = f;
	return 0;
}

/* perf_event_get(): the perf event file at fd, a reference the caller puts (fput) */
struct file *perf_event_get(unsigned int fd)
{
	struct file *f = fget(fd);

	if (!f)
		return ERR_PTR(-EBADF);
	if (f->f_op != &perf_fops) {
		fput(f);
		return ERR_PTR(-EBADF);
	}
	return f;
}

const struct perf_event *perf_get_event(struct file *file)
{
	if (file->f_op != &perf_fops)
		return ERR_PTR(-EINVAL);
	return file->private_data;
}

/* perf_event_set_filter() → ftrace_profile_set_filter(): a tracepoint event's, once */
static int perf_event_set_filter(struct perf_event *event, const char *arg)
{
	struct event_filter *filter;
	unsigned long flags;
	char *text;
	int ret;

	text = strndup_user(arg, PAGE_SIZE);
	if (IS_ERR(text))
		return PTR_ERR(text);
	ret = 0;
	if (event->attr.type != PERF_TYPE_TRACEPOINT)
		ret = -EINVAL;
	if (!ret && event->filter)
		ret = -EEXIST;
	if (!ret) {
		filter = create_event_filter(event->tp_event, text);
		if (IS_ERR(filter)) {
			ret = PTR_ERR(filter);
		} else {
			flags = perf_lock_irqsave();
			event->filter = filter;
			perf_unlock_irqrestore(flags);
		}
	}
	kfree(text);
	return ret;
}

/* perf_event_set_output(): the event's records go to output's buffer (NULL: its own, none) */
static int perf_event_set_output(struct perf_event *event, struct perf_event *output)
{
	struct perf_buffer *rb = NULL, *old;
	unsigned long flags;
	int ret = -EINVAL;

	if (output) {
		if (event == output)
			return -EINVAL;		/* no circular references */
		if (output->cpu != event->cpu)
			return -EINVAL;		/* no cross-cpu buffers */
		if (output->cpu == -1 && output->ctx != event->ctx)
			return -EINVAL;		/* a per-task buffer: the same task's */
		if (output->attr.use_clockid != event->attr.use_clockid ||
		    output->attr.clockid != event->attr.clockid)
			return -EINVAL;		/* one clock per buffer */
		if (output->attr.write_backward != event->attr.write_backward)
			return -EINVAL;
	}
	mutex_lock(&perf_mutex);
	flags = perf_lock_irqsave();
	if (event->mmap_count)		/* not while it maps its own */
		goto unlock;
	if (output) {
		rb = output->rb;
		if (!rb)
			goto unlock;
	}
	old = ring_buffer_attach(event, rb);
	ret = 0;
unlock:
	perf_unlock_irqrestore(flags);
	mutex_unlock(&perf_mutex);
	if (!ret && old)
		rb_free(old);
	return ret;
}

static noinline long _perf_ioctl(struct perf_event *event, unsigned int cmd, unsigned long arg)
{
	void (*func)(struct perf_event *, u64);
	unsigned long flags;
	u32 ioc_flags = arg;
	int ret;

	switch (cmd) {
	case PERF_EVENT_IOC_ENABLE:
		func = __perf_event_enable;
		break;
	case PERF_EVENT_IOC_DISABLE:
		func = __perf_event_disable;
		break;
	case PERF_EVENT_IOC_RESET:
		func = __perf_event_reset;
		break;
	case PERF_EVENT_IOC_REFRESH:
		if (event->attr.inherit || !is_sampling_event(event))
			return -EINVAL;
		flags = perf_lock_irqsave();
		event->event_limit += arg;
		__perf_event_enable(event, perf_clock());
		perf_unlock_irqrestore(flags);
		return 0;
	case PERF_EVENT_IOC_PERIOD: {
		u64 value;

		if (copy_from_user(&value, (u64 *)arg, sizeof(value)))
			return -EFAULT;
		flags = perf_lock_irqsave();
		ret = _perf_event_period(event, value);
		perf_unlock_irqrestore(flags);
		return ret;
	}
	case PERF_EVENT_IOC_ID: {
		u64 id = primary_event_id(event);

		if (copy_to_user((void *)arg, &id, sizeof(id)))
			return -EFAULT;
		return 0;
	}
	case PERF_EVENT_IOC_SET_OUTPUT: {
		struct file *output;

		if ((int)arg == -1)
			return perf_event_set_output(event, NULL);
		ret = perf_fget_light(arg, &output);
		if (ret)
			return ret;
		return perf_event_set_output(event, (struct perf_event *)output->private_data);
	}
	case PERF_EVENT_IOC_SET_FILTER:
		return perf_event_set_filter(event, (const char *)arg);
	case PERF_EVENT_IOC_SET_BPF: {
		struct bpf_prog *prog = bpf_prog_get(arg);

		if (IS_ERR(prog))
			return PTR_ERR(prog);
		ret = perf_event_set_bpf_prog(event, prog);
		if (ret)
			bpf_prog_put(prog);
		return ret;
	}
	case PERF_EVENT_IOC_PAUSE_OUTPUT:
		flags = perf_lock_irqsave();
		ret = event->rb && event->rb->nr_pages ? 0 : -EINVAL;
		if (!ret)
			event->rb->paused = !!arg;
		perf_unlock_irqrestore(flags);
		return ret;
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES: {
		struct perf_event_attr new_attr;

		ret = perf_copy_attr((struct perf_event_attr *)arg, &new_attr);
		if (ret)
			return ret;
		if (event->attr.type != new_attr.type)
			return -EINVAL;
		return -EOPNOTSUPP;	/* perf_event_modify_attr(): only breakpoints can change */
	}
	default:
		return -ENOTTY;
	}
	flags = perf_lock_irqsave();
	if (ioc_flags & PERF_IOC_FLAG_GROUP)
		perf_event_for_each(event, func, perf_clock());
	else
		perf_event_for_each_child(event, func, perf_clock());
	perf_unlock_irqrestore(flags);
	return 0;
}

static long perf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct perf_event *event = (struct perf_event *)file->private_data;
	long ret;

	/* Treat ioctl like writes as it is likely a mutating operation. */
	ret = security_perf_event_write(event);
	if (ret)
		return ret;
	return _perf_ioctl(event, cmd, arg);
}

/*
 * An event leaves its task (exit, remove_on_exec; perf_lock held): an inherited one gives its
 * counts to its parent (sync_child_event) and goes on `dead` to be freed; one an fd owns stays
 * readable, with its last counts, as PERF_EVENT_STATE_EXIT.
 */
static void perf_event_exit_event(struct perf_event *event, struct list_head *dead, u64 now,
				  struct perf_event_context **free_ctx)
{
	struct perf_event *parent = event->parent;

	perf_remove_from_context(event, now);
	if (parent) {
		perf_event_read(event, now);
		parent->child_count += event->count + event->child_count;
		parent->child_total_time_enabled += event->total_time_enabled + event->child_total_time_enabled;
		parent->child_total_time_running += event->total_time_running + event->child_total_time_running;
		list_del_init(&event->child_entry);
		list_add_tail(&event->child_entry, dead);
		put_ctx(event->ctx, free_ctx);
		return;
	}
	event->state = PERF_EVENT_STATE_EXIT;
}

static void free_dead_events(struct list_head *dead)
{
	struct perf_event *event, *tmp;

	list_for_each_entry_safe(event, tmp, dead, child_entry)
		free_event(event);
}

/* the task's context goes (do_exit, or a fork that failed): its events leave it */
static notrace void perf_event_exit_ctx(struct task_struct *task)
{
	struct perf_event_context *ctx, *free_ctx = NULL;
	struct perf_event *event, *tmp;
	unsigned long flags;
	LIST_HEAD(dead);
	u64 now;

	mutex_lock(&perf_mutex);
	ctx = task->perf_event_ctxp;
	if (!ctx) {
		mutex_unlock(&perf_mutex);
		return;
	}
	flags = perf_lock_irqsave();
	now = perf_clock();
	task_ctx_sched_out(ctx, now);
	list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry)
		perf_event_exit_event(event, &dead, now, &free_ctx);
	task->perf_event_ctxp = NULL;
	ctx->task = NULL;
	put_ctx(ctx, &free_ctx);
	perf_unlock_irqrestore(flags);
	mutex_unlock(&perf_mutex);
	kfree(free_ctx);
	free_dead_events(&dead);
}

void perf_event_exit_task(struct task_struct *child)
{
	perf_event_task(child, child->parent, PERF_RECORD_EXIT);
	perf_event_exit_ctx(child);
}

void perf_event_free_task(struct task_struct *task)
{
	perf_event_exit_ctx(task);
}

/* ---- release: the fd's last close frees the event and its inherited children ---- */
noinline void perf_event_release_kernel(struct perf_event *event)
{
	struct perf_event_context *ctx, *free_ctx = NULL, *free_child_ctx = NULL;
	struct perf_event *child, *tmp;
	unsigned long flags;
	LIST_HEAD(dead);
	u64 now;

	mutex_lock(&perf_mutex);
	flags = perf_lock_irqsave();
	now = perf_clock();
	list_for_each_entry_safe(child, tmp, &event->child_list, child_entry) {
		ctx = child->ctx;
		perf_remove_from_context(child, now);
		list_del_init(&child->child_entry);
		list_add_tail(&child->child_entry, &dead);
		put_ctx(ctx, &free_child_ctx);	/* its task holds the context: never the last */
	}
	ctx = event->ctx;
	if (event->state != PERF_EVENT_STATE_EXIT)
		perf_remove_from_context(event, now);
	event->state = PERF_EVENT_STATE_DEAD;
	put_ctx(ctx, &free_ctx);
	perf_unlock_irqrestore(flags);
	mutex_unlock(&perf_mutex);
	kfree(free_ctx);
	free_dead_events(&dead);
	free_event(event);
}

static int perf_release(struct inode *inode, struct file *file)
{
	if (file->private_data)
		perf_event_release_kernel((struct perf_event *)file->private_data);
	return 0;
}

/*
 * perf_mmap(): the event's ring buffer (a user page and nr_pages data pages), made at the
 * first mapping (6.1's checks), shared by the later ones; its pages are a region of the perf
 * pool, whose number it returns (what a session's process maps: kernel/mmap.c).
 */
static long perf_mmap(struct file *file, unsigned long len, unsigned long prot, unsigned long flags,
		      unsigned long pgoff)
{
	struct perf_event *event = (struct perf_event *)file->private_data;
	struct perf_buffer *rb, *old;
	unsigned long nr_pages, irqflags;
	int ret;

	if (event->cpu == -1 && event->attr.inherit)
		return -EINVAL;		/* inherited per-task events: no shared buffer */
	if (!(flags & MAP_SHARED))
		return -EINVAL;
	if (pgoff != 0)
		return -EINVAL;		/* an AUX area: no PMU here has one */
	nr_pages = len / PAGE_SIZE - 1;
	if (nr_pages != 0 && (nr_pages & (nr_pages - 1)))
		return -EINVAL;
	if (len != PAGE_SIZE * (1 + nr_pages))
		return -EINVAL;
	mutex_lock(&perf_mutex);
	if (event->rb) {
		ret = event->rb->nr_pages == (int)nr_pages ? event->rb->region : -EINVAL;
		if (ret >= 0) {
			event->mmap_count++;
			event->rb->mmap_count++;
		}
		mutex_unlock(&perf_mutex);
		return ret;
	}
	rb = rb_alloc(nr_pages, event->attr.watermark ? event->attr.wakeup_watermark : 0,
		      prot & PROT_WRITE ? RING_BUFFER_WRITABLE : 0, &ret);
	if (rb) {
		rb->mmap_count = 1;
		event->mmap_count++;
		irqflags = perf_lock_irqsave();
		old = ring_buffer_attach(event, rb);
		perf_unlock_irqrestore(irqflags);
		if (old)
			rb_free(old);
		ret = rb->region;
	}
	mutex_unlock(&perf_mutex);
	return ret;
}

/*
 * perf_mmap_close(): a session's process unmapped the buffer in the region (the supervisor saw
 * its munmap: kernel/mmap.c).  The mapping event's count goes; at the buffer's last mapping every
 * event writing there lets go of it (their records then go nowhere), and it is freed.
 */
notrace void perf_pool_unmapped(int region)
{
	struct perf_buffer *rb, *old, *to_free = NULL;
	struct perf_event *event, *tmp;
	unsigned long flags;

	mutex_lock(&perf_mutex);
	rb = perf_pool_buffer(region);
	if (!rb || !rb->mmap_count) {
		mutex_unlock(&perf_mutex);
		return;
	}
	list_for_each_entry(event, &rb->event_list, rb_entry)
		if (event->mmap_count) {
			event->mmap_count--;
			break;
		}
	if (!--rb->mmap_count) {
		flags = perf_lock_irqsave();
		list_for_each_entry_safe(event, tmp, &rb->event_list, rb_entry) {
			old = ring_buffer_attach(event, NULL);
			if (old)
				to_free = old;
		}
		perf_unlock_irqrestore(flags);
	}
	mutex_unlock(&perf_mutex);
	if (to_free)
		rb_free(to_free);
}

static const struct file_operations perf_fops = {
	.mmap_shared = perf_mmap,
	.read = perf_read,
	.release = perf_release,
	.unlocked_ioctl = perf_ioctl,
};

/* ---- fork: inherit_task_group() ---- */
static struct perf_event *inherit_event(struct perf_event *parent_event, struct task_struct *child,
					struct perf_event_context *child_ctx, struct perf_event *group_leader)
{
	struct perf_event *top = parent_event->parent ? parent_event->parent : parent_event;
	struct perf_event *event = perf_event_alloc(&parent_event->attr, parent_event->cpu, child,
						    group_leader, top);
	unsigned long flags;

	if (IS_ERR(event))
		return event;
	/* a sampling event's program runs for its children too (perf_event_alloc()'s
	 * bpf_overflow_handler), each holding a reference */
	if (parent_event->prog && !perf_event_is_tracing(parent_event)) {
		bpf_prog_inc(parent_event->prog);
		event->prog = parent_event->prog;
	}
	flags = perf_lock_irqsave();
	event->state = parent_event->state >= PERF_EVENT_STATE_INACTIVE ? PERF_EVENT_STATE_INACTIVE
									  : PERF_EVENT_STATE_OFF;
	event->hw.sample_period = parent_event->hw.sample_period;
	event->hw.last_period = event->hw.sample_period;
	event->hw.period_left = event->hw.sample_period;
	perf_install_in_context(child_ctx, event, perf_clock());
	list_add_tail(&event->child_entry, &top->child_list);
	perf_unlock_irqrestore(flags);
	return event;
}

int perf_event_init_task(struct task_struct *child, unsigned long clone_flags)
{
	struct perf_event_context *parent_ctx, *child_ctx = NULL;
	struct perf_event *leader, *sibling, *child_leader;
	int ret = 0;

	child->perf_event_ctxp = NULL;
	child->perf_sched_migrated = 0;
	mutex_lock(&perf_mutex);
	parent_ctx = current->perf_event_ctxp;
	if (!parent_ctx)
		goto out;
	list_for_each_entry(leader, &parent_ctx->event_list, event_entry) {
		if (leader->group_leader != leader || !leader->attr.inherit ||
		    leader->state == PERF_EVENT_STATE_EXIT ||
		    (leader->attr.inherit_thread && !(clone_flags & CLONE_THREAD)))
			continue;
		if (!child_ctx) {
			child_ctx = alloc_perf_context(child);
			if (!child_ctx) {
				ret = -ENOMEM;
				goto out;
			}
			child_ctx->refcount = 1;
			child->perf_event_ctxp = child_ctx;
		}
		child_leader = inherit_event(leader, child, child_ctx, NULL);
		if (IS_ERR(child_leader)) {
			ret = PTR_ERR(child_leader);
			goto out;
		}
		list_for_each_entry(sibling, &leader->sibling_list, sibling_list) {
			struct perf_event *e = inherit_event(sibling, child, child_ctx, child_leader);

			if (IS_ERR(e)) {
				ret = PTR_ERR(e);
				goto out;
			}
		}
	}
out:
	mutex_unlock(&perf_mutex);
	return ret;
}

/* ---- exec: enable_on_exec, remove_on_exec ---- */
static void perf_event_enable_on_exec(void)
{
	struct perf_event_context *ctx, *free_ctx = NULL;
	struct perf_event *event, *tmp;
	unsigned long flags;
	LIST_HEAD(dead);
	int cpu;
	u64 now;

	mutex_lock(&perf_mutex);
	ctx = current->perf_event_ctxp;
	if (!ctx) {
		mutex_unlock(&perf_mutex);
		return;
	}
	flags = perf_lock_irqsave();
	now = perf_clock();
	list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry) {
		if (event->attr.remove_on_exec) {
			perf_event_exit_event(event, &dead, now, &free_ctx);
			continue;
		}
		if (!event->attr.enable_on_exec)
			continue;
		event->attr.enable_on_exec = 0;
		if (event->state >= PERF_EVENT_STATE_INACTIVE)
			continue;
		perf_event_set_state(event, PERF_EVENT_STATE_INACTIVE, now);
	}
	cpu = ctx_cpu(ctx);
	if (cpu >= 0)
		ctx_sched_in(ctx, cpu, now);
	perf_unlock_irqrestore(flags);
	mutex_unlock(&perf_mutex);
	free_dead_events(&dead);
}

/* ---- side-band records (perf_iterate_sb): COMM, FORK, EXIT, to the events that ask ---- */

/* each event of this cpu's context and of `task`'s that could be counting here; perf_lock held */
static noinline void perf_iterate_sb(struct task_struct *task, void (*output)(struct perf_event *, void *), void *data)
{
	int cpu = smp_processor_id(), i;
	struct perf_event_context *ctxs[2] = { &perf_cpu_context[cpu].ctx, task ? task->perf_event_ctxp : NULL };
	struct perf_event *event;

	for (i = 0; i < 2; i++) {
		if (!ctxs[i])
			continue;
		list_for_each_entry(event, &ctxs[i]->event_list, event_entry)
			if (event->state >= PERF_EVENT_STATE_INACTIVE && (event->cpu == -1 || event->cpu == cpu))
				output(event, data);
	}
}

/* a record of `size` bytes, then its sample_id */
static notrace void perf_event_sb_output(struct perf_event *event, struct perf_event_header *header, const void *body,
				 unsigned int size)
{
	struct perf_output_handle handle;
	struct perf_sample_data sample;
	u16 record_size = header->size;

	header->size += event->attr.sample_id_all ? event->id_header_size : 0;
	perf_event_header__init_id(&sample, event);
	if (!perf_output_begin(&handle, event, header->size)) {
		perf_output_put(&handle, *header);
		perf_output_copy(&handle, body, size);
		perf_event__output_id_sample(event, &handle, &sample);
		perf_output_end(&handle);
	}
	header->size = record_size;
}

struct perf_comm_event {
	struct task_struct *task;
	bool exec;
};

static noinline void perf_event_comm_output(struct perf_event *event, void *data)
{
	struct perf_comm_event *ce = data;
	struct {
		u32 pid, tid;
		char comm[TASK_COMM_LEN];
	} body = { 0 };
	unsigned int len = ALIGN(strlen(ce->task->comm) + 1, sizeof(u64));
	struct perf_event_header header = {
		.type = PERF_RECORD_COMM,
		.misc = ce->exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
		.size = sizeof(header) + 8 + len,
	};

	if (!event->attr.comm && !event->attr.comm_exec)
		return;
	body.pid = perf_event_pid(event, ce->task);
	body.tid = perf_event_tid(event, ce->task);
	memcpy(body.comm, ce->task->comm, strlen(ce->task->comm));
	perf_event_sb_output(event, &header, &body, 8 + len);
}

/* perf_event_comm(): the task's name changed (exec: by an exec) */
noinline void perf_event_comm(struct task_struct *task, bool exec)
{
	struct perf_comm_event ce = { task, exec };
	unsigned long flags;

	if (!READ_ONCE(nr_sb_events))
		return;
	flags = perf_lock_irqsave();
	perf_iterate_sb(task, perf_event_comm_output, &ce);
	perf_unlock_irqrestore(flags);
}

/* ---- code the kernel writes (its JITed BPF programs): PERF_RECORD_KSYMBOL, PERF_RECORD_BPF_EVENT ---- */
struct perf_ksymbol_event {
	const char *name;
	u32 name_len;		/* with its NUL and the padding to 8 bytes */
	struct {
		u64 addr;
		u32 len;
		u16 ksym_type;
		u16 flags;
	} body;
};

static noinline notrace void perf_event_ksymbol_output(struct perf_event *event, void *data)
{
	struct perf_ksymbol_event *ke = data;
	struct perf_event_header header = {
		.type = PERF_RECORD_KSYMBOL,
		.size = sizeof(header) + sizeof(ke->body) + ke->name_len,
	};
	struct {
		typeof(ke->body) body;
		char name[KSYM_NAME_LEN];
	} out;

	if (!event->attr.ksymbol)
		return;
	out.body = ke->body;
	memcpy(out.name, ke->name, ke->name_len);
	perf_event_sb_output(event, &header, &out, sizeof(ke->body) + ke->name_len);
}

/* perf_event_ksymbol(): code at addr, len bytes, named sym, came (or went: unregister) */
noinline void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister, const char *sym)
{
	struct perf_ksymbol_event ke = { .body = { addr, len, ksym_type, unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0 } };
	char name[KSYM_NAME_LEN];
	unsigned long flags;
	u32 n;

	if (!READ_ONCE(nr_ksymbol_events))
		return;
	strscpy_pad(name, sym, KSYM_NAME_LEN);	/* (the padding to 8 bytes: zeros) */
	n = strlen(name) + 1;
	ke.name = name;
	ke.name_len = ALIGN(n, sizeof(u64));
	flags = perf_lock_irqsave();
	perf_iterate_sb(current, perf_event_ksymbol_output, &ke);
	perf_unlock_irqrestore(flags);
}

struct perf_bpf_event {
	u16 type;
	u16 flags;
	u32 id;
	u8 tag[BPF_TAG_SIZE];
};

static noinline notrace void perf_event_bpf_output(struct perf_event *event, void *data)
{
	struct perf_event_header header = { .type = PERF_RECORD_BPF_EVENT, .size = sizeof(header) + sizeof(struct perf_bpf_event) };

	if (event->attr.bpf_event)
		perf_event_sb_output(event, &header, data, sizeof(struct perf_bpf_event));
}

/*
 * perf_event_bpf_event(): a program loaded or unloaded, told first as its code's KSYMBOL (its
 * image, or the interpreter and no name where it has none, as 6.1's), then as a BPF_EVENT
 * with its id and tag (perf asks for the rest by the id)
 */
noinline void perf_event_bpf_event(struct bpf_prog *prog, enum perf_bpf_event_type type, u16 flags)
{
	struct perf_bpf_event be = { .type = type, .flags = flags, .id = prog->id };
	char name[KSYM_NAME_LEN] = "";
	unsigned long irqflags;

	if (type <= PERF_BPF_EVENT_UNKNOWN || type >= PERF_BPF_EVENT_MAX)
		return;
	if (READ_ONCE(nr_ksymbol_events)) {
		/* (perf_event_bpf_emit_ksymbols(): each function of a program of several) */
		u32 i;

		for (i = 0; i < (prog->func_cnt ? prog->func_cnt : 1); i++) {
			struct bpf_prog *f = prog->func_cnt ? prog->func[i] : prog;

			if (f->jited)
				bpf_get_prog_name(f, name);
			perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_BPF, (u64)(unsigned long)f->bpf_func, f->jited_len,
					   type == PERF_BPF_EVENT_PROG_UNLOAD, name);
		}
	}
	if (!READ_ONCE(nr_bpf_events))
		return;
	memcpy(be.tag, prog->tag, BPF_TAG_SIZE);
	irqflags = perf_lock_irqsave();
	perf_iterate_sb(current, perf_event_bpf_output, &be);
	perf_unlock_irqrestore(irqflags);
}

struct perf_task_event {
	struct task_struct *task, *parent;
	int type;
	u64 time;
};

static noinline void perf_event_task_output(struct perf_event *event, void *data)
{
	struct perf_task_event *te = data;
	struct {
		u32 pid, ppid, tid, ptid;
		u64 time;
	} body;
	struct perf_event_header header = { .type = te->type, .misc = 0, .size = sizeof(header) + sizeof(body) };

	if (!event->attr.comm && !event->attr.mmap && !event->attr.mmap2 && !event->attr.mmap_data &&
	    !event->attr.task)
		return;
	body.pid = perf_event_pid(event, te->task);
	body.tid = perf_event_tid(event, te->task);
	body.ppid = te->parent ? perf_event_pid(event, te->parent) : 0;
	body.ptid = te->parent ? perf_event_tid(event, te->parent) : 0;
	body.time = te->time;
	perf_event_sb_output(event, &header, &body, sizeof(body));
}

/* perf_event_task(): PERF_RECORD_FORK (of task by parent) or EXIT */
static void perf_event_task(struct task_struct *task, struct task_struct *parent, int type)
{
	struct perf_task_event te = { task, parent, type, perf_clock() };
	unsigned long flags;

	if (!READ_ONCE(nr_sb_events))
		return;
	flags = perf_lock_irqsave();
	perf_iterate_sb(type == PERF_RECORD_FORK ? parent : task, perf_event_task_output, &te);
	perf_unlock_irqrestore(flags);
}

struct perf_mmap_event {
	struct task_struct *task;
	u64 addr, len, pgoff, ino, ino_generation;
	u32 maj, min, prot, flags;
	bool exec;
	const char *name;
	unsigned int name_size;		/* with its NUL and padding to 8 bytes */
	u8 *body;			/* room for the largest body: 64 bytes and the name */
};

/* perf_event_mmap_output(): PERF_RECORD_MMAP2 (attr.mmap2) or MMAP, to the events that ask */
static noinline void perf_event_mmap_output(struct perf_event *event, void *data)
{
	struct perf_mmap_event *me = data;
	struct perf_event_header header = {
		.type = event->attr.mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP,
		.misc = PERF_RECORD_MISC_USER | (me->exec ? 0 : PERF_RECORD_MISC_MMAP_DATA),
	};
	u8 *p = me->body;
	u32 ids[2];

	if (!((me->exec && (event->attr.mmap || event->attr.mmap2)) || (!me->exec && event->attr.mmap_data)))
		return;
	ids[0] = perf_event_pid(event, me->task);
	ids[1] = perf_event_tid(event, me->task);
	memcpy(p, ids, 8);
	memcpy(p + 8, &me->addr, 8);
	memcpy(p + 16, &me->len, 8);
	memcpy(p + 24, &me->pgoff, 8);
	p += 32;
	if (event->attr.mmap2) {
		memcpy(p, &me->maj, 4);
		memcpy(p + 4, &me->min, 4);
		memcpy(p + 8, &me->ino, 8);
		memcpy(p + 16, &me->ino_generation, 8);
		memcpy(p + 24, &me->prot, 4);
		memcpy(p + 28, &me->flags, 4);
		p += 32;
	}
	memset(p, 0, me->name_size);
	memcpy(p, me->name, strlen(me->name));
	p += me->name_size;
	header.size = sizeof(header) + (p - me->body);
	perf_event_sb_output(event, &header, me->body, p - me->body);
}

/*
 * perf_event_mmap(): a program's file mapped (binfmt_elf's images: kernel/mmap.c), told to the
 * events that ask for mappings (executable ones: attr.mmap/mmap2; others: mmap_data), with the
 * file's path, device, inode, protection and MAP_ type, as 6.1's.
 */
void perf_event_mmap(struct file *file, u64 addr, u64 len, u64 pgoff, u32 prot, u32 flags)
{
	struct perf_mmap_event me = {
		.task = current, .addr = addr, .len = len, .pgoff = (u64)pgoff << PAGE_SHIFT,
		.prot = prot & 7, .flags = flags, .exec = prot & 4,	/* PROT_READ|WRITE|EXEC; EXEC */
	};
	unsigned long irqflags;
	char *buf, *name;

	if (!READ_ONCE(nr_sb_events) || !file)
		return;
	buf = kmalloc(PATH_MAX + 64 + PATH_MAX, GFP_KERNEL);
	if (!buf)
		return;
	name = d_path(&file->f_path, buf, PATH_MAX);
	if (IS_ERR(name))
		name = "//toolong";
	me.name = name;
	me.name_size = ALIGN(strlen(name) + 1, sizeof(u64));
	me.body = (u8 *)buf + PATH_MAX;
	me.maj = MAJOR(file->f_inode->i_sb->s_dev);
	me.min = MINOR(file->f_inode->i_sb->s_dev);
	me.ino = file->f_inode->i_ino;
	me.ino_generation = file->f_inode->i_generation;
	irqflags = perf_lock_irqsave();
	perf_iterate_sb(current, perf_event_mmap_output, &me);
	perf_unlock_irqrestore(irqflags);
	kfree(buf);
}

void perf_event_fork(struct task_struct *parent, struct task_struct *task)
{
	perf_event_task(task, parent, PERF_RECORD_FORK);
}

void perf_event_exec(void)
{
	perf_event_enable_on_exec();
	perf_event_comm(current, true);
}

void __init perf_event_init(void)
{
	int cpu, id;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		INIT_LIST_HEAD(&perf_cpu_context[cpu].ctx.event_list);
		perf_cpu_context[cpu].ctx.refcount = 1;
		for (id = 0; id < PERF_COUNT_SW_MAX; id++)
			INIT_LIST_HEAD(&perf_swevent_lists[id][cpu]);
	}
	perf_pmu_register(&perf_swevent);
	perf_pmu_register(&perf_cpu_clock);
	perf_pmu_register(&perf_task_clock);
	perf_pmu_register(&perf_tracepoint);
	perf_pmu_register(&perf_kprobe);
	perf_pmu_register(&perf_uprobe);
	init_hw_perf_events();
}

/* ---- perf_event_open(2) ---- */
static int perf_copy_attr(struct perf_event_attr *uattr, struct perf_event_attr *attr)
{
	u32 size;
	size_t i;

	memset(attr, 0, sizeof(*attr));
	if (copy_from_user(&size, &uattr->size, sizeof(size)))
		return -EFAULT;
	if (!size)		/* ABI compatibility quirk */
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		goto err_size;
	/* copy_struct_from_user(): a bigger struct's tail must be zeros */
	if (size > sizeof(*attr)) {
		for (i = sizeof(*attr); i < size; i++) {
			u8 c;

			if (copy_from_user(&c, (u8 *)uattr + i, 1))
				return -EFAULT;
			if (c)
				goto err_size;
		}
	}
	if (copy_from_user(attr, uattr, min((size_t)size, sizeof(*attr))))
		return -EFAULT;
	attr->size = size;
	if (attr->__reserved_1 || attr->__reserved_2 || attr->__reserved_3)
		return -EINVAL;
	if (attr->sample_type & ~(PERF_SAMPLE_MAX - 1))
		return -EINVAL;
	if (attr->read_format & ~(PERF_FORMAT_MAX - 1))
		return -EINVAL;
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		u64 mask = attr->branch_sample_type;

		if (mask & ~(PERF_SAMPLE_BRANCH_MAX - 1))
			return -EINVAL;
		if (!(mask & ~PERF_SAMPLE_BRANCH_PLM_ALL))
			return -EINVAL;
	}
	if (attr->sample_type & PERF_SAMPLE_REGS_USER)
		return -EINVAL;	/* perf_reg_validate(): no register this kernel samples */
	if (attr->sample_type & PERF_SAMPLE_STACK_USER) {
		if (attr->sample_stack_user >= 0xffff)
			return -EINVAL;
		if (attr->sample_stack_user & 7)
			return -EINVAL;
	}
	if (!attr->sample_max_stack)
		attr->sample_max_stack = READ_ONCE(sysctl_perf_event_max_stack);
	if (attr->sample_type & PERF_SAMPLE_CGROUP)
		return -EINVAL;
	if ((attr->sample_type & PERF_SAMPLE_WEIGHT) && (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		return -EINVAL;
	if (!attr->inherit && attr->inherit_thread)
		return -EINVAL;
	if (attr->remove_on_exec && attr->enable_on_exec)
		return -EINVAL;
	if (attr->sigtrap && !attr->remove_on_exec)
		return -EINVAL;
	return 0;
err_size:
	size = sizeof(*attr);
	copy_to_user(&uattr->size, &size, sizeof(size));
	return -E2BIG;
}

/* perf_allow_kernel() */
static int perf_allow_kernel(struct perf_event_attr *attr)
{
	if (sysctl_perf_event_paranoid > 1 && !perfmon_capable())
		return -EACCES;
	return 0;
}

/* perf_event_validate_size(): every member's read of the grown group fits 16 KiB */
static bool perf_event_validate_size(struct perf_event *event, struct perf_event *group_leader)
{
	struct perf_event *sibling;
	int nr = group_leader ? group_leader->nr_siblings + 1 : 0;

	if (__perf_event_read_size(event->attr.read_format, nr) > 16 * 1024)
		return false;
	if (!group_leader)
		return true;
	if (__perf_event_read_size(group_leader->attr.read_format, nr) > 16 * 1024)
		return false;
	list_for_each_entry(sibling, &group_leader->sibling_list, sibling_list)
		if (__perf_event_read_size(sibling->attr.read_format, nr) > 16 * 1024)
			return false;
	return true;
}

SYSCALL_DEFINE5(perf_event_open, struct perf_event_attr *, attr_uptr, pid_t, pid, int, cpu, int, group_fd,
		unsigned long, flags)
{
	struct perf_event *group_leader = NULL, *event;
	struct perf_event_context *ctx, *new_ctx = NULL;
	struct task_struct *task = NULL;
	struct perf_event_attr attr;
	struct file *group = NULL, *event_file;
	unsigned long irqflags;
	int event_fd, err;

	if (flags & ~PERF_FLAG_ALL)
		return -EINVAL;
	err = perf_copy_attr(attr_uptr, &attr);
	if (err)
		return err;
	if (sysctl_perf_event_paranoid > 2 && !perfmon_capable())	/* perf_paranoid_any() */
		return -EACCES;
	/* Do we allow access to perf_event_open(2) ? */
	err = security_perf_event_open(&attr, PERF_SECURITY_OPEN);
	if (err)
		return err;
	if (!attr.exclude_kernel || attr.text_poke) {
		err = perf_allow_kernel(&attr);
		if (err)
			return err;
	}
	if (attr.namespaces && !perfmon_capable())
		return -EACCES;
	if (attr.freq) {
		if (attr.sample_freq > (u64)sysctl_perf_event_sample_rate)
			return -EINVAL;
	} else {
		if (attr.sample_period & (1ULL << 63))
			return -EINVAL;
	}
	if (attr.sample_type & PERF_SAMPLE_PHYS_ADDR) {
		err = perf_allow_kernel(&attr);
		if (err)
			return err;
	}
	if ((flags & PERF_FLAG_PID_CGROUP) && (pid == -1 || cpu == -1))
		return -EINVAL;
	if (flags & PERF_FLAG_PID_CGROUP)
		return -EBADF;	/* no cgroup file system: pid is no cgroup directory's fd */
	if (group_fd != -1) {
		err = perf_fget_light(group_fd, &group);
		if (err)
			return err;
		group_leader = (struct perf_event *)group->private_data;
		if (flags & PERF_FLAG_FD_OUTPUT)
			return -EINVAL;	/* output redirection: no event has a ring buffer yet */
		if (flags & PERF_FLAG_FD_NO_GROUP)
			group_leader = NULL;
	}
	if (pid != -1) {
		unsigned long sflags;

		spin_lock_irqsave(&sched_lock, sflags);
		task = pid ? find_task_by_vpid(pid) : current;
		spin_unlock_irqrestore(&sched_lock, sflags);
		if (!task || (task->flags & PF_EXITING))
			return -ESRCH;
	}
	if (task && group_leader && group_leader->attr.inherit != attr.inherit)
		return -EINVAL;
	event = perf_event_alloc(&attr, cpu, task, group_leader, NULL);
	if (IS_ERR(event))
		return PTR_ERR(event);
	mutex_lock(&perf_mutex);
	if (group_leader) {
		err = -EINVAL;
		/* no recursive hierarchy, one cpu, one task or none, only a leader is exclusive or pinned */
		if (group_leader->group_leader != group_leader)
			goto err_alloc;
		if (group_leader->cpu != event->cpu)
			goto err_alloc;
		if (group_leader->ctx->task != task)
			goto err_alloc;
		if (attr.exclusive || attr.pinned)
			goto err_alloc;
	}
	if (task && __task_cred(task)->uid != current_cred()->uid && !perfmon_capable()) {
		err = -EACCES;	/* perf_check_permission(): ptrace_may_access() */
		goto err_alloc;
	}
	if (!perf_event_validate_size(event, group_leader)) {
		err = -E2BIG;
		goto err_alloc;
	}
	if (task && !task->perf_event_ctxp) {
		new_ctx = alloc_perf_context(task);
		if (!new_ctx) {
			err = -ENOMEM;
			goto err_alloc;
		}
	}
	event_fd = get_unused_fd_flags(O_RDWR);	/* (6.1 takes it first: EMFILE before the rest) */
	if (event_fd < 0) {
		err = event_fd;
		goto err_alloc;
	}
	event_file = anon_inode_getfile("[perf_event]", &perf_fops, event, O_RDWR);
	if (IS_ERR(event_file)) {
		err = PTR_ERR(event_file);
		put_unused_fd(event_fd);
		goto err_alloc;
	}
	irqflags = perf_lock_irqsave();
	if (task) {
		if (task->flags & PF_EXITING) {	/* perf_event_exit_task() ran or runs: TASK_TOMBSTONE */
			perf_unlock_irqrestore(irqflags);
			err = -ESRCH;
			goto err_file;
		}
		if (!task->perf_event_ctxp) {
			task->perf_event_ctxp = new_ctx;
			new_ctx->refcount = 1;	/* the task's */
			new_ctx = NULL;
		}
		ctx = task->perf_event_ctxp;
	} else {
		ctx = &perf_cpu_context[cpu].ctx;
	}
	if (group_leader && group_leader->ctx != ctx) {
		perf_unlock_irqrestore(irqflags);
		err = -EINVAL;
		goto err_file;
	}
	perf_install_in_context(ctx, event, perf_clock());
	perf_unlock_irqrestore(irqflags);
	mutex_unlock(&perf_mutex);
	kfree(new_ctx);
	event->filp = event_file;
	fd_install(event_fd, event_file);
	return event_fd;
err_file:
	put_unused_fd(event_fd);
	event_file->f_op = &perf_dead_fops;
	fput(event_file);
err_alloc:
	mutex_unlock(&perf_mutex);
	kfree(new_ctx);
	free_event(event);
	return err;
}
