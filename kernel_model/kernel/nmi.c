/*
 * NMIs (arch/x86/kernel/nmi.c): exc_nmi → default_do_nmi → nmi_handle, which runs the actions
 * registered for NMI_LOCAL (register_nmi_handler), each timed by the clock and traced by
 * nmi:nmi_handler.  __nmi_enter() marks the NMI context in the preempt count (NMI_OFFSET and
 * HARDIRQ_OFFSET: a record written there shows 'Z', perf's recursion guard uses its own level).
 * The machine's one NMI source is its PMU, whose handler perf registers (x86_pmu.c): there are
 * no unknown-NMI reasons, no back-to-back swallowing and no NMI watchdog here.
 */
#include "../include/kernel.h"
#include "../include/nmi.h"
#include "../include/perf_event.h"
#include "../include/kprobes.h"
#include "../include/trace/trace.h"

struct nmi_desc {
	spinlock_t lock;
	struct list_head head;
};

static struct nmi_desc nmi_desc[NMI_MAX] = {
	{ __SPIN_LOCK_UNLOCKED, LIST_HEAD_INIT(nmi_desc[NMI_LOCAL].head) },
};

static noinline int nmi_handle(unsigned int type, struct pt_regs *regs)
{
	struct nmi_desc *desc = &nmi_desc[type];
	struct nmiaction *a;
	int handled = 0;

	list_for_each_entry(a, &desc->head, list) {
		int thishandled;
		u64 delta;

		delta = perf_clock();	/* sched_clock() */
		thishandled = a->handler(type, regs);
		handled += thishandled;
		delta = perf_clock() - delta;
		trace_nmi_handler(a->handler, (int)delta, thishandled);
		/* (6.1's nmi_check_duration logs a run over 1 ms, ratelimited: not here, as this
		 * kernel's printk takes locks an NMI may have interrupted) */
	}
	return handled;
}
NOKPROBE_SYMBOL(nmi_handle)

int __register_nmi_handler(unsigned int type, struct nmiaction *action)
{
	struct nmi_desc *desc = &nmi_desc[type];
	unsigned long flags;

	if (!action->handler || type >= NMI_MAX)
		return -EINVAL;
	spin_lock_irqsave(&desc->lock, flags);
	list_add_tail(&action->list, &desc->head);
	spin_unlock_irqrestore(&desc->lock, flags);
	return 0;
}

static noinline notrace void default_do_nmi(struct pt_regs *regs)
{
	nmi_handle(NMI_LOCAL, regs);
}
NOKPROBE_SYMBOL(default_do_nmi)

notrace void exc_nmi(struct pt_regs *regs)
{
	struct pt_regs *old = this_cpu()->irq_regs;

	pmu_enter_from_user(regs);
	preempt_count_add(NMI_OFFSET + HARDIRQ_OFFSET);	/* __nmi_enter() */
	this_cpu()->irq_regs = regs;
	default_do_nmi(regs);
	this_cpu()->irq_regs = old;
	preempt_count_add(-(NMI_OFFSET + HARDIRQ_OFFSET));
	if (user_mode(regs))
		pmu_exit_to_user();
}
NOKPROBE_SYMBOL(exc_nmi)
