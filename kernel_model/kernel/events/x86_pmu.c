/*
 * The `cpu` PMU: Intel's architectural performance monitoring as 6.1's arch/x86/events/core.c
 * and intel/core.c drive it, on the machine's emulated counters (hostif.h's struct hostif_pmu:
 * PMU_NR_COUNTERS general counters per cpu, PMU_CNTVAL_BITS wide, counting unhalted core
 * cycles).  An event gets a free counter as it is added on its cpu (x86_pmu_add), programmed
 * with minus its period left (x86_perf_event_set_period); the count is the counter's progress
 * since it was last read (x86_perf_event_update).  A sampling event's counter interrupts as it
 * wraps: the machine delivers an NMI, asm_exc_nmi -> exc_nmi -> default_do_nmi -> nmi_handle
 * (kernel/nmi.c) -> perf_event_nmi_handler -> intel_pmu_handle_irq, which takes the samples with the interrupted registers and re-arms the
 * PMI.  A frequency event's period follows the rate asked for (the core's perf_adjust_period, at
 * overflows and at ticks).  Instructions and branch instructions retired are counted too, the same way (the
 * machine counts the instructions of each block the cpu runs).  The machine counts no other event
 * (caches, branch misses, bus or reference cycles): those are -ENOENT, which perf shows as
 * <not supported>.
 */
#include "kernel.h"
#include "perf_event.h"
#include "kprobes.h"
#include "nmi.h"

#define X86_PMC_IDX_MAX		PMU_NR_COUNTERS
#define CNTVAL_MASK		((1ULL << PMU_CNTVAL_BITS) - 1)
#define X86_MAX_PERIOD		((1ULL << (PMU_CNTVAL_BITS - 1)) - 1)	/* x86_pmu.max_period */
#define X86_RAW_EVENT_MASK	0xff0fffffULL	/* event, umask, edge, pc, int, any, en, inv, cmask */
#define ARCH_PERFMON_EVENTSEL_EDGE	(1ULL << 18)
#define ARCH_PERFMON_EVENTSEL_INV	(1ULL << 23)
#define ARCH_PERFMON_EVENTSEL_CMASK	0xff000000ULL

/* cpu_hw_events: which event has which counter, per cpu */
struct cpu_hw_events {
	struct perf_event *events[X86_PMC_IDX_MAX];
	unsigned long used_mask;
};
/* PMIs handled per cpu (6.1's irq_stat.apic_perf_irqs, /proc/interrupts' PMI row) */
u64 apic_perf_irqs[NR_CPUS];
static struct cpu_hw_events cpu_hw_events[NR_CPUS];
int perf_pmu_deferred[NR_CPUS];	/* a PMI waits for this cpu's perf_lock (intel_pmu_handle_irq) */

static struct hostif_pmu *cpu_pmu(int cpu)
{
	return &cpu_data[cpu].h.pmu;
}

/*
 * Before a cpu's counters are read or reprogrammed: the machine counts this cpu's up to now
 * (another cpu's, not running meanwhile, were counted as its last slice ended).
 */
static __always_inline void pmu_sync(int cpu)
{
	if (cpu == smp_processor_id())
		asm volatile("outb %%al, %w0" : : "Nd"(PORT_PMU), "a"(0) : "memory");
}

/* intel_perfmon_event_map: of the generic hardware events, those this machine counts */
static const u64 intel_perfmon_event_map[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES]		= PMU_EVENT_CYCLES,
	[PERF_COUNT_HW_INSTRUCTIONS]		= PMU_EVENT_INSNS,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS]	= PMU_EVENT_BRANCHES,
};

static noinline u64 intel_pmu_event_map(u64 hw_event)
{
	return intel_perfmon_event_map[hw_event];
}

/* a raw config's event (umask 0) is one of the map's */
static bool x86_pmu_counts(u64 config)
{
	int i;

	for (i = 0; i < PERF_COUNT_HW_MAX; i++)
		if (intel_perfmon_event_map[i] && config == intel_perfmon_event_map[i])
			return true;
	return false;
}

/* x86_perf_event_update(): the counter's progress since it was last read goes to the count */
static u64 x86_perf_event_update(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	int shift = 64 - PMU_CNTVAL_BITS;
	u64 prev, new;
	s64 delta;

	if (hwc->idx < 0 || event->oncpu < 0)
		return 0;
	pmu_sync(event->oncpu);
	prev = hwc->prev_count;
	new = READ_ONCE(cpu_pmu(event->oncpu)->ctr[hwc->idx]);
	hwc->prev_count = new;
	delta = (s64)((new << shift) - (prev << shift)) >> shift;
	event->count += delta;
	hwc->period_left -= delta;
	return new;
}

/* x86_perf_event_set_period(): the counter starts at minus the period left; true if a whole
 * period ran out (an overflow to sample) */
static bool x86_perf_event_set_period(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = hwc->period_left, period = hwc->sample_period;
	bool ret = false;

	if (unlikely(left <= -period)) {
		left = period;
		hwc->period_left = left;
		hwc->last_period = period;
		ret = true;
	}
	if (unlikely(left <= 0)) {
		left += period;
		hwc->period_left = left;
		hwc->last_period = period;
		ret = true;
	}
	if (!is_sampling_event(event) || left > (s64)X86_MAX_PERIOD)
		left = X86_MAX_PERIOD;
	if (left < 2)
		left = 2;
	hwc->prev_count = (u64)-left & CNTVAL_MASK;
	pmu_sync(event->oncpu);
	WRITE_ONCE(cpu_pmu(event->oncpu)->ctr[hwc->idx], hwc->prev_count);
	return ret;
}

static noinline void x86_pmu_enable_event(struct perf_event *event)
{
	struct hostif_pmu *pmu = cpu_pmu(event->oncpu);

	pmu_sync(event->oncpu);
	WRITE_ONCE(pmu->evtsel[event->hw.idx], event->hw.config | PMU_EVTSEL_EN);
	WRITE_ONCE(pmu->global_ctrl, pmu->global_ctrl | (1ULL << event->hw.idx));
	pmu_sync(event->oncpu);	/* armed: the machine ends the slice by its overflow */
}

static void x86_pmu_disable_event(struct perf_event *event)
{
	struct hostif_pmu *pmu = cpu_pmu(event->oncpu);

	pmu_sync(event->oncpu);
	WRITE_ONCE(pmu->global_ctrl, pmu->global_ctrl & ~(1ULL << event->hw.idx));
	WRITE_ONCE(pmu->evtsel[event->hw.idx], event->hw.config);
}

static noinline void x86_pmu_start(struct perf_event *event, int flags)
{
	if (!(event->hw.state & PERF_HES_STOPPED) || event->hw.idx < 0)
		return;
	x86_perf_event_set_period(event);
	event->hw.state = 0;
	x86_pmu_enable_event(event);
}

static void x86_pmu_stop(struct perf_event *event, int flags)
{
	if (event->hw.idx < 0)
		return;
	if (!(event->hw.state & PERF_HES_STOPPED)) {
		x86_pmu_disable_event(event);
		event->hw.state |= PERF_HES_STOPPED;
	}
	x86_perf_event_update(event);
}

/* x86_pmu_add(), on the event's cpu's counters: a free one, or -EAGAIN (it waits) */
static int x86_pmu_add(struct perf_event *event, int flags)
{
	struct cpu_hw_events *cpuc = &cpu_hw_events[event->oncpu];
	int idx;

	for (idx = 0; idx < X86_PMC_IDX_MAX; idx++)
		if (!(cpuc->used_mask & (1UL << idx)))
			break;
	if (idx == X86_PMC_IDX_MAX)
		return -EAGAIN;
	cpuc->used_mask |= 1UL << idx;
	cpuc->events[idx] = event;
	event->hw.idx = idx;
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		x86_pmu_start(event, PERF_EF_RELOAD);
	return 0;
}

static void x86_pmu_del(struct perf_event *event, int flags)
{
	struct cpu_hw_events *cpuc = &cpu_hw_events[event->oncpu];
	int idx = event->hw.idx;

	if (idx < 0)
		return;
	x86_pmu_stop(event, PERF_EF_UPDATE);
	cpuc->used_mask &= ~(1UL << idx);
	cpuc->events[idx] = NULL;
	event->hw.idx = -1;
}

static void x86_pmu_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		x86_perf_event_update(event);
}

/*
 * While a counter counts one privilege level (USR or OS alone), the machine needs the time of
 * each: the kernel counts its counters up to now as it comes in from user mode (the time was
 * user mode's) and as it returns there (the kernel's); the slice's last stretch is of the level
 * the cpu is at when it ends.
 */
struct static_key pmu_mode_split;

static notrace void x86_pmu_event_destroy(struct perf_event *event)
{
	static_key_slow_dec(&pmu_mode_split);
}

notrace void pmu_enter_from_user(struct pt_regs *regs)
{
	if (static_branch_unlikely(&pmu_mode_split) && user_mode(regs))
		asm volatile("outb %%al, %w0" : : "Nd"(PORT_PMU), "a"(1) : "memory");
}
NOKPROBE_SYMBOL(pmu_enter_from_user)

notrace void pmu_exit_to_user(void)
{
	if (static_branch_unlikely(&pmu_mode_split))
		asm volatile("outb %%al, %w0" : : "Nd"(PORT_PMU), "a"(0) : "memory");
}
NOKPROBE_SYMBOL(pmu_exit_to_user)

/* x86_pmu_event_init() with __x86_pmu_event_init/x86_pmu_hw_config/x86_setup_perfctr's checks */
static int x86_pmu_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	struct hw_perf_event *hwc = &event->hw;
	u64 config;

	switch (attr->type) {
	case PERF_TYPE_RAW:
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		break;
	default:
		return -ENOENT;
	}
	if (attr->precise_ip)		/* x86_pmu_max_precise(): no PEBS */
		return -EOPNOTSUPP;
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK)	/* no LBR */
		return -EOPNOTSUPP;
	if (attr->type == PERF_TYPE_HW_CACHE)	/* hw_cache_event_ids: none counted */
		return -ENOENT;
	if (attr->type == PERF_TYPE_RAW) {
		config = attr->config & X86_RAW_EVENT_MASK;
		if (config & (ARCH_PERFMON_EVENTSEL_EDGE | ARCH_PERFMON_EVENTSEL_INV |
			      ARCH_PERFMON_EVENTSEL_CMASK))
			return -EINVAL;
		config &= 0xffff;
		if (!x86_pmu_counts(config))
			return -ENOENT;
	} else {
		if (attr->config >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		config = intel_pmu_event_map(attr->config);
		if (!config)
			return -ENOENT;
	}
	hwc->config = config;
	if (!attr->exclude_user)
		hwc->config |= PMU_EVTSEL_USR;
	if (!attr->exclude_kernel)
		hwc->config |= PMU_EVTSEL_OS;
	/* cycles of one level only: the kernel's entries and exits tell the machine which it ran
	 * (an instruction's level is its address's) */
	if (config == PMU_EVENT_CYCLES && attr->exclude_user != attr->exclude_kernel) {
		static_key_slow_inc(&pmu_mode_split);
		event->destroy = x86_pmu_event_destroy;
	}
	if (is_sampling_event(event))
		hwc->config |= PMU_EVTSEL_INT;
	hwc->idx = -1;
	if (!is_sampling_event(event)) {
		hwc->sample_period = X86_MAX_PERIOD;
		hwc->last_period = hwc->sample_period;
		hwc->period_left = hwc->sample_period;
	} else if (attr->freq) {
		hwc->sample_period = 1;
		hwc->last_period = 1;
		hwc->period_left = 1;
	}
	return 0;
}

static struct pmu pmu = {
	.name = "cpu",
	.type = PERF_TYPE_RAW,
	.event_init = x86_pmu_event_init,
	.add = x86_pmu_add,
	.del = x86_pmu_del,
	.start = x86_pmu_start,
	.stop = x86_pmu_stop,
	.read = x86_pmu_read,
};

/*
 * The registers a sample of event has: the interrupted ones, but for a counter of user mode
 * alone whose overflow the machine found as the cpu came into the kernel (it counts a user
 * stretch at the kernel's entry), the user registers the entry saved: where it overflowed.
 * NULL (no sample) when the NMI came late, in a task with no user registers here (a kernel
 * thread, the idle task, a session's task, whose user mode is its host process's).
 */
static notrace struct pt_regs *x86_pmu_sample_regs(struct perf_event *event, struct pt_regs *regs)
{
	struct task_struct *task = current;

	if (!event->attr.exclude_kernel || user_mode(regs))
		return regs;
	if (!task->mm || !task->stack || task->session || !user_mode(task_pt_regs(task)))
		return NULL;
	return task_pt_regs(task);
}

/*
 * intel_pmu_handle_irq()'s work, perf_lock held: each overflowed counter acknowledged, its event
 * updated, its next period set and, if a whole period ran out, sampled with the interrupted
 * registers (none: a deferred PMI, below, counts and re-arms but takes no sample); then the
 * counters on again and the PMI unmasked (the LVTPC write that ends 6.1's).
 */
static notrace int __intel_pmu_handle_irq(struct pt_regs *regs, u64 ctrl)
{
	int cpu = smp_processor_id();
	struct cpu_hw_events *cpuc = &cpu_hw_events[cpu];
	struct hostif_pmu *hw = cpu_pmu(cpu);
	u64 status = READ_ONCE(hw->global_status);
	int idx, handled = 0;

	for (idx = 0; idx < X86_PMC_IDX_MAX; idx++) {
		struct perf_event *event = cpuc->events[idx];
		struct perf_sample_data data;

		if (!(status & (1ULL << idx)))
			continue;
		handled++;
		if (!event)
			continue;
		x86_perf_event_update(event);
		if (!x86_perf_event_set_period(event) || !is_sampling_event(event) || !regs)
			continue;
		memset(&data, 0, sizeof(data));
		data.period = event->hw.last_period;
		if (x86_pmu_sample_regs(event, regs) &&
		    perf_event_overflow(event, &data, x86_pmu_sample_regs(event, regs)))
			x86_pmu_stop(event, 0);	/* throttled: the tick starts it again */
		if (event->state == PERF_EVENT_STATE_ACTIVE && !(event->hw.state & PERF_HES_STOPPED))
			x86_perf_event_set_period(event);	/* (the new period, if it changed) */
	}
	WRITE_ONCE(hw->global_status, 0);
	/* the events stopped meanwhile (a REFRESH limit) left their bits clear */
	WRITE_ONCE(hw->global_ctrl, ctrl & cpuc->used_mask);
	WRITE_ONCE(hw->lvtpc_masked, 0);
	pmu_sync(cpu);	/* re-armed: the machine ends the slice by the next overflow */
	return handled;
}

/*
 * intel_pmu_handle_irq(), in the NMI: the counters off while it runs.  When the interrupted code
 * of this cpu is in perf_lock, the counters run on with the PMI still masked and the work waits
 * for its unlock (perf_pmu_deferred_irq), which counts the overflow but has no sample to take.
 */
static int intel_pmu_handle_irq(struct pt_regs *regs)
{
	struct hostif_pmu *hw = cpu_pmu(smp_processor_id());
	u64 ctrl = READ_ONCE(hw->global_ctrl);
	unsigned long flags;
	int handled;

	pmu_sync(smp_processor_id());
	WRITE_ONCE(hw->global_ctrl, 0);
	if (!perf_lock_nmi(&flags)) {
		WRITE_ONCE(hw->global_ctrl, ctrl);
		WRITE_ONCE(perf_pmu_deferred[smp_processor_id()], 1);
		return 1;
	}
	handled = __intel_pmu_handle_irq(regs, ctrl);
	perf_unlock_nmi(flags);
	return handled;
}

/* from perf_unlock_irqrestore() of the cpu an NMI found in perf_lock (irqs as they were) */
notrace void perf_pmu_deferred_irq(void)
{
	struct hostif_pmu *hw = cpu_pmu(smp_processor_id());
	unsigned long flags = perf_lock_irqsave_ext();
	u64 ctrl;

	pmu_sync(smp_processor_id());
	ctrl = READ_ONCE(hw->global_ctrl);
	WRITE_ONCE(perf_pmu_deferred[smp_processor_id()], 0);
	WRITE_ONCE(hw->global_ctrl, 0);
	__intel_pmu_handle_irq(NULL, ctrl);
	perf_unlock_nmi(flags);
}

/* perf_event_nmi_handler(): the NMI's perf part (traceable, as 6.1's; not probed) */
static noinline int perf_event_nmi_handler(unsigned int cmd, struct pt_regs *regs)
{
	u64 start_clock = perf_clock();
	int handled = intel_pmu_handle_irq(regs);

	perf_sample_event_took(perf_clock() - start_clock);
	if (handled)
		apic_perf_irqs[smp_processor_id()]++;
	return handled;
}
NOKPROBE_SYMBOL(perf_event_nmi_handler)

/* the NMI's own stacks (6.1's IST entry for it): an NMI may come in the syscall entry before
 * it leaves the user stack */
static u8 nmi_stacks[NR_CPUS][PMU_NMI_STACK_SIZE] __aligned(16);

void __init init_hw_perf_events(void)
{
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		cpu_pmu(cpu)->nmi_stack = (u64)&nmi_stacks[cpu][PMU_NMI_STACK_SIZE];
	register_nmi_handler(NMI_LOCAL, perf_event_nmi_handler, 0, "PMI");
	perf_pmu_register(&pmu);
}
