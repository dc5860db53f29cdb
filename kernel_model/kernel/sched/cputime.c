/*
 * CPU time accounting (kernel/sched/cputime.c, tick based): each tick's TICK_NSEC goes to the
 * task it interrupted, user or system time, and to the cpu's `kernel_cpustat` (user, nice,
 * system, irq, softirq, idle: /proc/stat's cpu lines); what a thread group has used
 * (thread_group_cputime), and its user/system split scaled to its run time (cputime_adjust:
 * times(2), /proc/PID/stat).
 */
#include "../../include/kernel.h"
#include "../../include/signal.h"
#include "../../include/cputime.h"

struct kernel_cpustat kernel_cpustat[NR_CPUS];

/* task_group_account_field(): the cpu's counter (no cgroups: no cpuacct to charge) */
static inline void task_group_account_field(struct task_struct *p, int index, u64 tmp)
{
	kernel_cpustat[smp_processor_id()].cpustat[index] += tmp;
}

/* user time: the task's, and the cpu's user (or nice, for a positive nice) */
noinline void account_user_time(struct task_struct *p, u64 cputime)
{
	int index;

	p->utime += cputime;
	index = (task_nice(p) > 0) ? CPUTIME_NICE : CPUTIME_USER;
	task_group_account_field(p, index, cputime);
}

noinline void account_system_index_time(struct task_struct *p, u64 cputime, enum cpu_usage_stat index)
{
	p->stime += cputime;
	task_group_account_field(p, index, cputime);
}

/* system time, in the cpu's irq, softirq or system counter by what the tick interrupted
 * (the tick's own hardirq level, hardirq_offset, not counted) */
noinline void account_system_time(struct task_struct *p, int hardirq_offset, u64 cputime)
{
	int count = this_cpu()->preempt_count, index;

	if ((count & HARDIRQ_MASK) - hardirq_offset)
		index = CPUTIME_IRQ;
	else if (count & SOFTIRQ_OFFSET)	/* in_serving_softirq() */
		index = CPUTIME_SOFTIRQ;
	else
		index = CPUTIME_SYSTEM;
	account_system_index_time(p, cputime, index);
}

/* idle time: the cpu's (no task waits on I/O here: no iowait) */
noinline void account_idle_time(u64 cputime)
{
	kernel_cpustat[smp_processor_id()].cpustat[CPUTIME_IDLE] += cputime;
}

/* account_process_tick(): the tick's time to the task it interrupted, user or system; the
 * idle task's, when the tick came straight into its loop, is idle time */
noinline void account_process_tick(struct task_struct *p, int user_tick)
{
	u64 cputime = TICK_NSEC;

	if (user_tick)
		account_user_time(p, cputime);
	else if (!(p->flags & PF_IDLE) || (this_cpu()->preempt_count & (HARDIRQ_MASK | SOFTIRQ_MASK | NMI_MASK)) != HARDIRQ_OFFSET)
		account_system_time(p, HARDIRQ_OFFSET, cputime);
	else
		account_idle_time(cputime);
}

/* the ticks an idle cpu did not take while its tick was stopped (tick_nohz_idle_exit) */
noinline void account_idle_ticks(unsigned long ticks)
{
	account_idle_time(ticks * TICK_NSEC);
}

/* a thread's user and system time (VIRT_CPU_ACCOUNTING_GEN with no nohz_full cpu: the ticks') */
noinline void task_cputime(struct task_struct *t, u64 *utime, u64 *stime)
{
	*utime = t->utime;
	*stime = t->stime;
}

/* The thread group's times: its live threads' (an ended thread's are not kept), the caller's
 * run time brought up to date first. */
noinline void thread_group_cputime(struct task_struct *tsk, struct task_cputime *times)
{
	struct task_struct *t;
	unsigned long flags;
	u64 utime, stime, cur = 0;

	if (tsk->tgid == current->tgid)	/* same_thread_group(current, tsk) */
		cur = task_sched_runtime(current);
	times->utime = times->stime = times->sum_exec_runtime = 0;
	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks) {
		if (t->tgid != tsk->tgid || (t->flags & PF_KTHREAD))
			continue;
		task_cputime(t, &utime, &stime);
		times->utime += utime;
		times->stime += stime;
		times->sum_exec_runtime += t == current ? cur : t->sum_exec_runtime;
	}
	spin_unlock_irqrestore(&sched_lock, flags);
}

/* cputime_adjust(): the run time split as the ticks were, user and system */
noinline void cputime_adjust(u64 rtime, u64 *ut, u64 *st)
{
	u64 stime = *st, utime = *ut;

	if (stime == 0)
		utime = rtime;
	else if (utime == 0)
		stime = rtime, utime = 0;
	else {	/* scale_stime(): rtime * stime / total, losing low bits until it fits 64 */
		u64 total = stime + utime, r = rtime, st = stime;

		while (r > 0xffffffffUL || st > 0xffffffffUL) {
			r >>= 1, st >>= 1, total >>= 1;
		}
		stime = total ? r * st / total : 0;
		if (stime > rtime)
			stime = rtime;
		utime = rtime - stime;
	}
	*ut = utime;
	*st = stime;
}

noinline void thread_group_cputime_adjusted(struct task_struct *p, u64 *ut, u64 *st)
{
	struct task_cputime cputime;

	thread_group_cputime(p, &cputime);
	*ut = cputime.utime;
	*st = cputime.stime;
	cputime_adjust(cputime.sum_exec_runtime, ut, st);
}
