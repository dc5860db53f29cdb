/*
 * Softirqs (kernel/softirq.c): a pending bit per vector, raised with
 * irq:softirq_raise; run by __do_softirq() with irq:softirq_entry/exit when
 * the last interrupt level exits (irq_exit_rcu), when bottom halves are enabled
 * again (local_bh_enable), or by the per-cpu ksoftirqd/N thread when raised
 * from task context or when they keep coming back.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

#define MAX_SOFTIRQ_TIME_NS	2000000UL	/* __do_softirq restarts for 2 ms at most */
#define MAX_SOFTIRQ_RESTART	10
#define SOFTIRQ_MASK		0xff00

static struct softirq_action softirq_vec[NR_SOFTIRQS];

static __always_inline int preempt_count(void)
{
	return READ_ONCE(this_cpu()->preempt_count);
}

/* hardirq or softirq context (serving one, or bottom halves disabled) */
static __always_inline bool in_interrupt(void)
{
	return preempt_count() & (HARDIRQ_MASK | SOFTIRQ_MASK);
}

static __always_inline unsigned long local_softirq_pending(void)
{
	return READ_ONCE(this_cpu()->softirq_pending);
}

void open_softirq(int nr, void (*action)(struct softirq_action *))
{
	softirq_vec[nr].action = action;
}

static void wakeup_softirqd(void)
{
	struct task_struct *tsk = this_cpu()->ksoftirqd;

	if (tsk)
		wake_up_process(tsk);
}

/* ksoftirqd is already on its way: leave the work to it */
static bool ksoftirqd_running(void)
{
	struct task_struct *tsk = this_cpu()->ksoftirqd;

	return tsk && READ_ONCE(tsk->__state) == TASK_RUNNING;
}

void __raise_softirq_irqoff(unsigned int nr)
{
	trace_softirq_raise(nr);
	__atomic_or_fetch(&this_cpu()->softirq_pending, 1UL << nr, __ATOMIC_RELAXED);
}

/* Interrupts off.  In an interrupt (or with bottom halves off) the exit runs it. */
notrace noinline void raise_softirq_irqoff(unsigned int nr)
{
	__raise_softirq_irqoff(nr);
	if (!in_interrupt())
		wakeup_softirqd();
}

void raise_softirq(unsigned int nr)
{
	unsigned long flags = arch_local_irq_save();

	raise_softirq_irqoff(nr);
	arch_local_irq_restore(flags);
}

/* Interrupts off on entry and exit; on while the handlers run. */
static void handle_softirqs(bool ksirqd)
{
	struct percpu *pc = this_cpu();
	u64 end = ktime_get() + MAX_SOFTIRQ_TIME_NS;
	int max_restart = MAX_SOFTIRQ_RESTART;
	unsigned long pending = local_softirq_pending();

	preempt_count_add(SOFTIRQ_OFFSET);
restart:
	WRITE_ONCE(pc->softirq_pending, 0);
	local_irq_enable();
	while (pending) {
		unsigned int vec_nr = __builtin_ctzl(pending);

		pending &= pending - 1;
		trace_softirq_entry(vec_nr);
		softirq_vec[vec_nr].action(&softirq_vec[vec_nr]);
		trace_softirq_exit(vec_nr);
	}
	local_irq_disable();
	pending = local_softirq_pending();
	if (pending) {
		if (ktime_get() < end && !need_resched() && --max_restart)
			goto restart;
		wakeup_softirqd();
	}
	preempt_count_add(-SOFTIRQ_OFFSET);
}

noinline void __do_softirq(void)
{
	handle_softirqs(false);
}

void do_softirq(void)
{
	unsigned long flags;

	if (in_interrupt())
		return;
	flags = arch_local_irq_save();
	if (local_softirq_pending() && !ksoftirqd_running())
		__do_softirq();
	arch_local_irq_restore(flags);
}

static __always_inline void invoke_softirq(void)
{
	if (ksoftirqd_running())
		return;
	__do_softirq();
}

/* What was raised while bottom halves were off runs now (ip: the caller, for lockdep). */
noinline void __local_bh_enable_ip(unsigned long ip, unsigned int cnt)
{
	local_irq_disable();
	preempt_count_add(-(cnt - 1));
	if (unlikely(!in_interrupt() && local_softirq_pending()))
		do_softirq();
	preempt_count_add(-1);
	local_irq_enable();
}

/* Entered before the hardirq count is raised: traced even with funcgraph-irqs off, as on 6.1. */
noinline void irq_enter_rcu(void)
{
	__irq_enter_raw();
	if (this_cpu()->curr_task == this_cpu()->rq.idle && (preempt_count() & HARDIRQ_MASK) == HARDIRQ_OFFSET)
		tick_irq_enter();	/* the first interrupt in idle: jiffies may be behind */
	this_cpu()->stat_irqs++;
}

/* Interrupts off (the interrupt's handler ran with them off). */
noinline void irq_exit_rcu(void)
{
	__irq_exit_raw();
	if (!in_interrupt() && local_softirq_pending())
		invoke_softirq();
}

/* ---- ksoftirqd/N ---- */
static int ksoftirqd_should_run(unsigned int cpu)
{
	return local_softirq_pending() != 0;
}

static void run_ksoftirqd(unsigned int cpu)
{
	local_irq_disable();
	if (local_softirq_pending())
		handle_softirqs(true);
	local_irq_enable();
}

static struct smp_hotplug_thread softirq_threads = {
	.thread_should_run = ksoftirqd_should_run,
	.thread_fn = run_ksoftirqd,
	.thread_comm = "ksoftirqd/%u",
};

void __init softirq_init(void)
{
	int cpu;

	smpboot_register_percpu_thread(&softirq_threads);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		cpu_data[cpu].ksoftirqd = softirq_threads.tasks[cpu];
}
