/* kernel/sched/debug.c: /proc/PID/sched, a task's scheduler state as 6.1's
 * proc_sched_show_task() prints it -- of its lines, those the model's scheduler keeps:
 * no schedstats (kernel.sched_schedstats is 0, as the reference 6.1's), no PELT averages
 * (se.avg.*: the fair class here has no load tracking) and no NUMA balancing lines.  Its one
 * weight is nice 0's: the fair class here runs every task as nice 0 (update_curr). */
#include "../../include/kernel.h"
#include "../../include/fs.h"
#include "../../include/signal.h"
#include "../../include/trace/ftrace.h"
#include "../../include/sched_debug.h"

#define NICE_0_LOAD	(1024L << 10)	/* scale_load(1024): se.load.weight of nice 0 */

/* a time in ns as ms.ns: its milliseconds ... */
static __always_inline long long nsec_high(unsigned long long nsec)
{
	if ((long long)nsec < 0)
		return -(long long)(-nsec / 1000000);
	return nsec / 1000000;
}

/* ... and the rest */
static __always_inline unsigned long nsec_low(unsigned long long nsec)
{
	if ((long long)nsec < 0)
		nsec = -nsec;
	return nsec % 1000000;
}

#define SPLIT_NS(x) nsec_high(x), nsec_low(x)
#define __PS(S, F) seq_printf(m, "%-45s:%21lld\n", S, (long long)(F))
#define __P(F) __PS(#F, F)
#define __PSN(S, F) seq_printf(m, "%-45s:%14lld.%06ld\n", S, SPLIT_NS((long long)(F)))

/* The task's lines (the caller holds sched_lock: the task stays, its fields hold still) */
noinline void proc_sched_show_task(struct task_struct *p, struct pid_namespace *ns, struct seq_file *m)
{
	unsigned long nr_switches;
	u64 t0, t1;

	seq_printf(m, "%s (%d, #threads: %d)\n", p->comm, __task_pid_nr_ns(p, PIDTYPE_PID, ns),
		   p->signal ? p->signal->nr_threads : 1);	/* get_nr_threads() */
	seq_printf(m, "---------------------------------------------------------"
		   "----------\n");
	__PSN("se.exec_start", p->exec_start);
	__PSN("se.vruntime", p->vruntime);
	__PSN("se.sum_exec_runtime", p->sum_exec_runtime);
	nr_switches = p->nvcsw + p->nivcsw;
	__PS("se.nr_migrations", p->nr_migrations);
	__P(nr_switches);
	__PS("nr_voluntary_switches", p->nvcsw);
	__PS("nr_involuntary_switches", p->nivcsw);
	__PS("se.load.weight", NICE_0_LOAD);
	__PS("policy", 0);	/* SCHED_NORMAL: the model's one policy */
	__PS("prio", p->prio);
	/* two reads of this cpu's clock (cpu_clock(): sched_clock, as the local trace clock) */
	t0 = trace_clock_local(this_cpu());
	t1 = trace_clock_local(this_cpu());
	__PS("clock-delta", t1 - t0);
}
