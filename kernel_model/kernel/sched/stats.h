/* kernel/sched/stats.h: sched_info, how long a task waited on a runqueue before it ran
 * (run_delay) and how many times it came to run (pcount): /proc/PID/schedstat.  rq_clock() is
 * the queue's clock as update_rq_clock() last set it; the cpus' clocks are the machine's
 * slices', so a queue's clock may be a little behind the one a waker set it from: such a
 * negative wait counts as none. */
#ifndef _SCHED_STATS_H
#define _SCHED_STATS_H

static __always_inline u64 sched_info_delta(struct rq *rq, u64 since)
{
	return (s64)(rq->clock - since) > 0 ? rq->clock - since : 0;
}

/* the task leaves the queue without running (it sleeps again, or moves to another cpu's) */
static __always_inline void sched_info_dequeue(struct rq *rq, struct task_struct *t)
{
	if (!t->sched_info.last_queued)
		return;
	t->sched_info.run_delay += sched_info_delta(rq, t->sched_info.last_queued);
	t->sched_info.last_queued = 0;
}

/* the task gets the cpu: its wait ends */
static __always_inline void sched_info_arrive(struct rq *rq, struct task_struct *t)
{
	if (!t->sched_info.last_queued)
		return;
	t->sched_info.run_delay += sched_info_delta(rq, t->sched_info.last_queued);
	t->sched_info.last_queued = 0;
	t->sched_info.last_arrival = rq->clock;
	t->sched_info.pcount++;
}

/* the task starts waiting, unless it already is */
static __always_inline void sched_info_enqueue(struct rq *rq, struct task_struct *t)
{
	if (!t->sched_info.last_queued)
		t->sched_info.last_queued = rq->clock;
}

/* the task leaves the cpu: still runnable (preempted, yielding), it waits again */
static __always_inline void sched_info_depart(struct rq *rq, struct task_struct *t)
{
	if (t->__state == TASK_RUNNING)
		sched_info_enqueue(rq, t);
}

/* prepare_task_switch()'s, the idle task left out */
static __always_inline void sched_info_switch(struct rq *rq, struct task_struct *prev, struct task_struct *next)
{
	if (prev != rq->idle)
		sched_info_depart(rq, prev);
	if (next != rq->idle)
		sched_info_arrive(rq, next);
}

#endif
