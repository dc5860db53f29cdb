/* Host-injected interrupt vectors and the interrupt exit path. */
#include "../include/kernel.h"
#include "../include/trace/ring.h"
#include "../include/session.h"

noinline void irq_enter(void)
{
	preempt_count_add(HARDIRQ_OFFSET);
	this_cpu()->stat_irqs++;
}

noinline void irq_exit(void)
{
	struct percpu *pc = this_cpu();

	preempt_count_add(-HARDIRQ_OFFSET);
	if (pc->softirq_pending && pc->ksoftirqd)
		wake_up_process(pc->ksoftirqd);
}

static noinline void tick_sched_timer(void)
{
	/* tick_do_update_jiffies64: idle cpus take no ticks, so catch up from the clock */
	if (smp_processor_id() == 0)
		jiffies = ktime_get() / TICK_NSEC;
	scheduler_tick();
	trace_ring_tick();
}

void sysvec_apic_timer_interrupt(struct pt_regs *regs)
{
	irq_enter();
	hrtimer_interrupt();
	tick_sched_timer();
	irq_exit();
}

/* need_resched was already set by the sender; nothing else to do here. */
void sysvec_reschedule_ipi(struct pt_regs *regs)
{
	irq_enter();
	irq_exit();
}

/* The host queued requests (spawn a program: kthreadd services them) or wrote the session
 * ring (session.c moves its records to their tasks). */
void sysvec_call_function(struct pt_regs *regs)
{
	irq_enter();
	session_ring_interrupt();
	if (kthreadd_task && (READ_ONCE(host_requests.tail) != READ_ONCE(host_requests.head) ||
			      session_roots_pending()))
		wake_up_process(kthreadd_task);
	irq_exit();
}

void syscall_exit_to_user_mode(struct pt_regs *regs);

void irqentry_exit(struct pt_regs *regs)
{
	if (user_mode(regs))
		syscall_exit_to_user_mode(regs);
}
