/* The scheduler (kernel/sched/core.c, where Linux's DWARF places schedule()): per-CPU
 * round-robin runqueues under one lock, wakeups across CPUs, tick-driven preemption, the
 * idle loop. */
#include "../../include/kernel.h"
#include "../../include/pid.h"
#include "../../include/trace/trace.h"
#include "../../include/clockchips.h"
#include "../../include/perf_event.h"
#include "../../include/syscalls.h"
#include "../../include/oom.h"
#include "../../include/cred.h"
#include "../../include/security.h"
#include "../../include/stacktrace.h"
#include "../../include/cpufreq.h"
#include "stats.h"
#include "../../include/nsproxy.h"
#include "pelt.h"

spinlock_t sched_lock;
LIST_HEAD(task_list);
#define SCHED_SLICE_NS (3 * TICK_NSEC)

/* the policies (include/uapi/linux/sched.h) */
#define SCHED_NORMAL	0
#define SCHED_FIFO	1
#define SCHED_RR	2
#define SCHED_BATCH	3
#define SCHED_IDLE	5
#define SCHED_DEADLINE	6
struct sched_param { int sched_priority; };

static struct rq *cpu_rq(int cpu) { return &cpu_data[cpu].rq; }
static __always_inline int cpu_of(struct rq *rq) { return container_of(rq, struct percpu, rq) - cpu_data; }

/* kernel/sched/sched.h's flags */
#define ENQUEUE_WAKEUP	0x01
#define ENQUEUE_NOCLOCK	0x08
#define DEQUEUE_SLEEP	0x01
#define WF_FORK		0x04

/* Every runqueue's lock is the one scheduler lock (as core scheduling makes
 * SMT siblings share one): __rq_lockp() names it for a runqueue. */
static __always_inline raw_spinlock_t *__rq_lockp(struct rq *rq)
{
	return &sched_lock.rlock;
}

noinline void raw_spin_rq_lock_nested(struct rq *rq, int subclass)
{
	preempt_disable();
	raw_spin_lock(__rq_lockp(rq));
	preempt_enable_no_resched();
}

noinline void raw_spin_rq_unlock(struct rq *rq)
{
	raw_spin_unlock(__rq_lockp(rq));
}

static __always_inline void raw_spin_rq_lock(struct rq *rq)
{
	raw_spin_rq_lock_nested(rq, 0);
}

static __always_inline void raw_spin_rq_unlock_irq(struct rq *rq)
{
	raw_spin_rq_unlock(rq);
	local_irq_enable();
}

/* Another cpu is told by IPI, unless it is idle and polling need_resched (its idle loop
 * between halts), which sees it without one. */
static noinline void resched_curr(int cpu)
{
	cpu_data[cpu].need_resched = 1;
	if (cpu == smp_processor_id())
		return;
	if (READ_ONCE(cpu_rq(cpu)->curr->polling))
		trace_sched_wake_idle_without_ipi(cpu);
	else
		smp_send_reschedule(cpu);
}

/* The task runs on new_cpu from its next wakeup (sched_migrate_task when it moves). */
void set_task_cpu(struct task_struct *p, int new_cpu)
{
	if (p->cpu != new_cpu) {
		trace_sched_migrate_task(p, new_cpu);
		if (p->cpu >= 0) {
			p->nr_migrations++;
			perf_event_task_migrate(p);
		}
	}
	p->cpu = new_cpu;
}

/* The running task's time since it was last accounted (update_curr of CFS: vruntime
 * advances as the time, every task having nice 0's weight). */
static void update_curr(struct rq *rq, u64 now)
{
	struct task_struct *curr = rq->curr;
	s64 delta_exec;

	if (curr == rq->idle)
		return;
	delta_exec = now - curr->exec_start;
	if (delta_exec <= 0)
		return;
	curr->exec_start = now;
	curr->sum_exec_runtime += delta_exec;
	curr->vruntime += delta_exec;
	trace_sched_stat_runtime(curr, delta_exec, curr->vruntime);
}

/* rq->clock: the cpu's time now (the machine's clock of this slice) */
noinline void update_rq_clock(struct rq *rq)
{
	rq->clock = this_cpu()->h.now_ns;
}

/* kernel/sched/sched.h: the cpu's utilization changed: its cpufreq governor may pick a new
 * frequency (the hook schedutil set, called with the runqueue locked) */
static __always_inline void cpufreq_update_util(struct rq *rq, unsigned int flags)
{
	struct update_util_data *data = READ_ONCE(cpufreq_update_util_data[cpu_of(rq)]);

	if (data)
		data->func(data, rq->clock, flags);
}

/* ---- the fair class (kernel/sched/fair.c): one FIFO queue of equal weights here, the
 * running task out of it (set_next_entity), back at its tail when it stops (put_prev_task) ---- */
/* The entity into its queue (6.1's rbtree by vruntime: the tail here) */
static inline int task_has_idle_policy(struct task_struct *p)
{
	return p->policy == SCHED_IDLE;
}

static __always_inline struct rq *rq_of(struct cfs_rq *cfs_rq)
{
	return container_of(cfs_rq, struct rq, cfs);
}

/* The runqueue's utilization brought up to date; a new period of it tells cpufreq
 * (update_cfs_rq_load_avg() and cfs_rq_util_change(); 6.1 also keeps each entity's average,
 * which only load balancing and energy-aware placement read) */
static __always_inline void update_load_avg(struct cfs_rq *cfs_rq)
{
	if (__update_load_avg_cfs_rq(rq_of(cfs_rq)->clock, cfs_rq))
		cpufreq_update_util(rq_of(cfs_rq), 0);
}

static noinline void enqueue_entity(struct cfs_rq *cfs_rq, struct task_struct *se, int flags)
{
	update_load_avg(cfs_rq);
	list_add_tail(&se->run_list, &cfs_rq->queue);
	cfs_rq->nr_running++;		/* account_entity_enqueue() */
	cfs_rq->idle_nr_running += task_has_idle_policy(se);	/* (se_is_idle()) */
}

static noinline void dequeue_entity(struct cfs_rq *cfs_rq, struct task_struct *se, int flags)
{
	update_load_avg(cfs_rq);
	if (!list_empty(&se->run_list))	/* (the running task is not in the queue) */
		list_del_init(&se->run_list);
	cfs_rq->nr_running--;		/* account_entity_dequeue() */
	cfs_rq->idle_nr_running -= task_has_idle_policy(se);
}

static noinline void enqueue_task_fair(struct rq *rq, struct task_struct *p, int flags)
{
	p->se.cfs_rq = &rq->cfs;	/* set_task_rq(): 6.1 sets it when it picks the task's cpu; the
					 * model's paths that pick one (or write p->cpu) all end here */
	enqueue_entity(&rq->cfs, p, flags);	/* (no group hierarchy: one entity) */
	rq->cfs.h_nr_running++;
	rq->cfs.idle_h_nr_running += task_has_idle_policy(p);
	rq->nr_running++;		/* add_nr_running() */
}

static noinline void dequeue_task_fair(struct rq *rq, struct task_struct *p, int flags)
{
	dequeue_entity(&rq->cfs, p, flags);
	rq->cfs.h_nr_running--;
	rq->cfs.idle_h_nr_running -= task_has_idle_policy(p);
	rq->nr_running--;		/* sub_nr_running() */
}

/* A cpu with nothing to run (its nr_running counts its running task) */
noinline int idle_cpu(int cpu)
{
	return cpu_rq(cpu)->nr_running == 0;
}

/* An idle cpu whose vcpu is not preempted by its host (never, here) */
noinline int available_idle_cpu(int cpu)
{
	return idle_cpu(cpu);
}

/* whether the task may run on the cpu (p->cpus_ptr; no mask set: every cpu) */
static __always_inline bool task_allowed_on_cpu(const struct task_struct *p, int cpu)
{
	return !p->cpus_mask || (p->cpus_mask >> cpu & 1);
}

/* Prefer the task's previous cpu when idle, else any idle cpu, else previous; of the cpus it
 * may run on (select_fallback_rq: the first of them when the previous one is not) */
static noinline int select_task_rq_fair(struct task_struct *p, int prev_cpu, int wake_flags)
{
	int cpu;

	if (prev_cpu >= 0 && prev_cpu < nr_cpu_ids && task_allowed_on_cpu(p, prev_cpu) &&
	    available_idle_cpu(prev_cpu))
		return prev_cpu;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (task_allowed_on_cpu(p, cpu) && available_idle_cpu(cpu))
			return cpu;
	if (prev_cpu >= 0 && prev_cpu < nr_cpu_ids && task_allowed_on_cpu(p, prev_cpu))
		return prev_cpu;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (task_allowed_on_cpu(p, cpu))
			return cpu;
	return smp_processor_id();
}

/* The running entity back into its queue, while still runnable; the queue has none running */
static noinline void put_prev_entity(struct cfs_rq *cfs_rq, struct task_struct *prev)
{
	if (prev->on_rq) {
		list_add_tail(&prev->run_list, &cfs_rq->queue);
		update_load_avg(cfs_rq);
	}
	cfs_rq->curr = NULL;
}

static noinline void put_prev_task_fair(struct rq *rq, struct task_struct *prev)
{
	put_prev_entity(&rq->cfs, prev);
}

static noinline void set_next_entity(struct cfs_rq *cfs_rq, struct task_struct *se)
{
	update_load_avg(cfs_rq);
	list_del_init(&se->run_list);
	cfs_rq->curr = se;
}

/* The queue's first entity (6.1's leftmost: the smallest vruntime), NULL if none */
noinline struct task_struct *__pick_first_entity(struct cfs_rq *cfs_rq)
{
	if (list_empty(&cfs_rq->queue))
		return NULL;
	return list_first_entry(&cfs_rq->queue, struct task_struct, run_list);
}

/* The entity to run next: the leftmost (6.1 may prefer a buddy; none here) */
static noinline struct task_struct *pick_next_entity(struct cfs_rq *cfs_rq, struct task_struct *curr)
{
	return __pick_first_entity(cfs_rq);
}

/* The next task of the class: prev, still runnable, goes back in line first; NULL: none. */
noinline struct task_struct *pick_next_task_fair(struct rq *rq, struct task_struct *prev)
{
	struct task_struct *next;

	if (prev != rq->idle)
		put_prev_task_fair(rq, prev);
	next = pick_next_entity(&rq->cfs, NULL);
	if (!next)
		return NULL;
	set_next_entity(&rq->cfs, next);
	return next;
}

/* A new task's place in the fair class: its parent's vruntime, the parent's time brought up
 * to date first (6.1 then places it and makes it relative to the queue's min_vruntime: one
 * weight here, no min_vruntime) */
static noinline void task_fork_fair(struct task_struct *p)
{
	struct rq *rq = cpu_rq(smp_processor_id());
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);	/* rq_lock() */
	update_rq_clock(rq);
	if (rq->curr == current && current != rq->idle)
		update_curr(rq, rq->clock);
	p->vruntime = current->vruntime;
	spin_unlock_irqrestore(&sched_lock, flags);
}

/* An entity's slice of the scheduling period: every task has nice 0's weight here, the
 * slice is the same for all */
noinline u64 sched_slice(struct cfs_rq *cfs_rq, struct task_struct *se)
{
	return SCHED_SLICE_NS;
}

/* A tick of the running task: its time, and the end of its slice while others wait. */
static noinline void task_tick_fair(struct rq *rq, struct task_struct *curr, int queued)
{
	update_curr(rq, rq->clock);
	update_load_avg(&rq->cfs);	/* entity_tick() */
	if (!list_empty(&rq->cfs.queue) && curr->sum_exec_runtime - curr->prev_sum_exec_runtime >= sched_slice(&rq->cfs, curr))
		this_cpu()->need_resched = 1;	/* check_preempt_tick's resched_curr */
}

/* ---- core.c ---- */
/* The utilization schedutil asks a frequency for (FREQUENCY_UTIL): the cfs tasks' here, no rt,
 * deadline or irq time being tracked, up to the cpu's capacity */
noinline unsigned long effective_cpu_util(int cpu, unsigned long util_cfs)
{
	unsigned long max = arch_scale_cpu_capacity(cpu);

	return util_cfs < max ? util_cfs : max;
}

static __always_inline int select_task_rq(struct task_struct *p)
{
	if (p->flags & PF_NO_SETAFFINITY)	/* one cpu allowed */
		return p->cpu;
	return select_task_rq_fair(p, p->cpu, 0);
}

static __always_inline void enqueue_task(struct rq *rq, struct task_struct *p, int flags)
{
	if (!(flags & ENQUEUE_NOCLOCK))
		update_rq_clock(rq);
	sched_info_enqueue(rq, p);
	enqueue_task_fair(rq, p, flags);	/* p->sched_class->enqueue_task */
}

static __always_inline void dequeue_task(struct rq *rq, struct task_struct *p, int flags)
{
	sched_info_dequeue(rq, p);
	dequeue_task_fair(rq, p, flags);
}

noinline void activate_task(struct rq *rq, struct task_struct *p, int flags)
{
	enqueue_task(rq, p, flags);
	p->on_rq = 1;	/* TASK_ON_RQ_QUEUED */
}

noinline void deactivate_task(struct rq *rq, struct task_struct *p, int flags)
{
	p->on_rq = 0;
	dequeue_task(rq, p, flags);
}

/* A woken task may preempt the current one: always the idle task (a lower class); between
 * fair tasks a wakeup preempts no one here (no check_preempt_wakeup). */
noinline void check_preempt_curr(struct rq *rq, struct task_struct *p, int flags)
{
	if (rq->curr == rq->idle)
		resched_curr(cpu_of(rq));
}

/* The running task yields (sched_yield): its time brought up to date; the schedule() that
 * follows puts it at the back of the queue (6.1 marks it the skip buddy) */
static noinline void yield_task_fair(struct rq *rq)
{
	/* Are we the only task in the tree? */
	if (unlikely(rq->nr_running == 1))
		return;
	update_rq_clock(rq);
	update_curr(rq, rq->clock);
}

/* The fair class's round-robin interval of a task, in jiffies: its slice, 0 on an otherwise idle
 * runqueue */
static noinline unsigned int get_rr_interval_fair(struct rq *rq, struct task_struct *task)
{
	return rq->nr_running ? sched_slice(&rq->cfs, task) / TICK_NSEC : 0;	/* NS_TO_JIFFIES() */
}

/* A task's priority changed (its nice): the running one lowered gives way at once; a
 * queued one's new place is checked against the running task */
static noinline void prio_changed_fair(struct rq *rq, struct task_struct *p, int oldprio)
{
	if (!p->on_rq)
		return;
	if (rq->nr_running == 1)
		return;
	if (rq->curr == p) {
		if (p->prio > oldprio)
			resched_curr(cpu_of(rq));
	} else {
		check_preempt_curr(rq, p, 0);
	}
}

static noinline void ttwu_do_wakeup(struct rq *rq, struct task_struct *p, int wake_flags)
{
	check_preempt_curr(rq, p, wake_flags);
	trace_sched_wakeup(p);
}

static noinline void ttwu_do_activate(struct rq *rq, struct task_struct *p, int wake_flags)
{
	activate_task(rq, p, ENQUEUE_WAKEUP | ENQUEUE_NOCLOCK);
	ttwu_do_wakeup(rq, p, wake_flags);
}

int try_to_wake_up(struct task_struct *p, unsigned int state, int wake_flags)
{
	unsigned long flags;
	int success = 0;

	spin_lock_irqsave(&sched_lock, flags);
	if (!(p->__state & state))
		goto out;
	/* Linux's probe_sched_wakeup, registered before the events' probes */
	if (static_branch_unlikely(&trace_cmdline_key))
		tracing_record_taskinfo_sched_switch(current, p);
	trace_sched_waking(p);
	success = 1;
	WRITE_ONCE(p->__state, TASK_RUNNING);
	if (!p->on_rq) {
		int cpu = select_task_rq(p);

		if (p->cpu != cpu)
			set_task_cpu(p, cpu);
		update_rq_clock(cpu_rq(cpu));	/* ttwu_queue() */
		ttwu_do_activate(cpu_rq(cpu), p, wake_flags);
	} else {
		ttwu_do_wakeup(cpu_rq(p->cpu), p, wake_flags);	/* ttwu_runnable */
	}
out:
	spin_unlock_irqrestore(&sched_lock, flags);
	return success;
}

noinline int wake_up_state(struct task_struct *p, unsigned int state)
{
	return try_to_wake_up(p, state, 0);
}

/* A task running on another cpu goes through the kernel (and sees its signal on the way out). */
noinline void kick_process(struct task_struct *p)
{
	if (p != current && READ_ONCE(p->on_cpu))
		smp_send_reschedule(p->cpu);
}

noinline void wake_q_add(struct wake_q_head *head, struct task_struct *task)
{
	struct wake_q_node *node = &task->wake_q, *none = NULL;

	/* queued already: whoever queued it wakes it (after our caller's change, which the
	 * atomic orders before) */
	if (!__atomic_compare_exchange_n(&node->next, &none, WAKE_Q_TAIL, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return;
	*head->lastp = node;
	head->lastp = &node->next;
}

noinline void wake_up_q(struct wake_q_head *head)
{
	struct wake_q_node *node = head->first;

	while (node != WAKE_Q_TAIL) {
		struct task_struct *task = container_of(node, struct task_struct, wake_q);

		node = node->next;
		WRITE_ONCE(task->wake_q.next, NULL);	/* it may be queued again from now on */
		wake_up_process(task);
	}
}

noinline int wake_up_process(struct task_struct *p)
{
	return try_to_wake_up(p, TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE, 0);
}

/* A new task's scheduler state from nothing: not queued, no run time */
static noinline void __sched_fork(unsigned long clone_flags, struct task_struct *p)
{
	p->on_rq = 0;
	p->exec_start = 0;
	p->sum_exec_runtime = 0;
	p->prev_sum_exec_runtime = 0;
	p->vruntime = 0;
	p->nr_migrations = 0;
	INIT_LIST_HEAD(&p->run_list);
}

/* sched_fork(): a new task's scheduler state: not on a cpu yet, TASK_NEW until
 * wake_up_new_task() */
noinline int sched_fork(unsigned long clone_flags, struct task_struct *p)
{
	__sched_fork(clone_flags, p);
	memset(&p->sched_info, 0, sizeof(p->sched_info));
	p->cpu = -1;
	p->__state = TASK_NEW;
	p->prio = current->prio;	/* the parent's nice (normal_prio) */
	p->policy = current->policy;
	p->rt_priority = current->rt_priority;
	p->dl_runtime = current->dl_runtime;
	p->dl_deadline = current->dl_deadline;
	p->dl_period = current->dl_period;
	p->cpus_mask = current->cpus_mask;
	/* SCHED_RESET_ON_FORK: the child is a plain fair task at nice 0 or above */
	if (current->sched_reset_on_fork) {
		if (p->policy != SCHED_IDLE && p->policy != SCHED_BATCH)
			p->policy = SCHED_NORMAL;
		p->rt_priority = 0;
		if (p->prio < DEFAULT_PRIO)
			p->prio = DEFAULT_PRIO;
	}
	return 0;
}

/* The new task's place in its class (task_fork_fair: its vruntime; its cpu is chosen at
 * wake_up_new_task here) */
noinline void sched_cgroup_fork(struct task_struct *p, struct kernel_clone_args *kargs)
{
	task_fork_fair(p);	/* p->sched_class->task_fork */
}

void wake_up_new_task(struct task_struct *p)
{
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);
	WRITE_ONCE(p->__state, TASK_RUNNING);
	if (p->cpu < 0 || p->cpu >= nr_cpu_ids)
		p->cpu = select_task_rq(p);
	update_rq_clock(cpu_rq(p->cpu));
	activate_task(cpu_rq(p->cpu), p, ENQUEUE_NOCLOCK);
	trace_sched_wakeup_new(p);
	check_preempt_curr(cpu_rq(p->cpu), p, WF_FORK);
	spin_unlock_irqrestore(&sched_lock, flags);
}

/* The idle class's task: the cpu's idle task, always there (kernel/sched/idle.c) */
noinline struct task_struct *pick_next_task_idle(struct rq *rq)
{
	return rq->idle;
}

/* The fair class's next task, else the idle task. */
static __always_inline struct task_struct *pick_next_task(struct rq *rq, struct task_struct *prev)
{
	struct task_struct *next = pick_next_task_fair(rq, prev);

	return next ? next : pick_next_task_idle(rq);
}

notrace struct task_struct *__switch_to(struct task_struct *prev, struct task_struct *next)
{
	struct percpu *pc = this_cpu();

	pc->curr_task = next;
	pc->h.top_of_stack = (u64)next->stack + THREAD_SIZE;
	/* a user task's FPU/SSE registers and FS base (switch_fpu_prepare, x86_fsbase_write) */
	if (prev->mm)
		asm volatile("fxsave64 %0" : "=m"(prev->fpu));
	pc->h.user_state = next->mm && !(next->mm->flags & (1UL << MMF_GENREGS_ONLY));
	if (next->mm) {
		asm volatile("fxrstor64 %0" : : "m"(next->fpu));
		asm volatile("wrmsr" : : "c"(0xc0000100), "a"((u32)next->thread.fsbase),
			     "d"((u32)(next->thread.fsbase >> 32)));
	}
	return prev;
}

/* 6.1's kallsyms name is GCC's IPA-SRA clone's (the model is built without): the symbol takes it */
static void finish_task_switch(struct task_struct *prev) __asm__("finish_task_switch.isra.0");
static noinline void finish_task_switch(struct task_struct *prev)
{
	struct percpu *pc = this_cpu();
	bool dead = prev->__state == TASK_DEAD;

	perf_event_task_sched_in(prev, current);
	if (!dead)
		prev->on_cpu = 0;
	current->exec_start = pc->h.now_ns;
	current->prev_sum_exec_runtime = current->sum_exec_runtime;
	raw_spin_rq_unlock_irq(&pc->rq);
	if (dead) {
		/*
		 * The host hears of the exit only after the switch probe saved prev's
		 * comm (its exec'd name): a waiter such as trace-cmd record reads
		 * saved_cmdlines as soon as it hears, as a shell's wait4 returns only
		 * after exit_notify's wakeup probe saved it in Linux.
		 */
		if (prev->host_id)
			host_exit(prev->host_id, prev->exit_code);
		if (prev->mm) {
			struct mm_struct *mm = prev->mm;
			unsigned long flags;

			/* (task_lock: the OOM killer reads tsk->mm under sched_lock) */
			spin_lock_irqsave(&sched_lock, flags);
			prev->mm = NULL;
			spin_unlock_irqrestore(&sched_lock, flags);
			mmput(mm);
			if (prev->memdie)	/* exit_mm(): an OOM victim's memory is back */
				exit_oom_victim(prev);
		}
		if (prev->exit_state == EXIT_ZOMBIE)	/* its stack now; the rest when reaped too */
			put_task_stack(prev);
		prev->on_cpu = 0;
		put_dead_task(prev);	/* last touch: freed after a grace period once reaped */
	}
}

static noinline notrace struct task_struct *__sched context_switch(struct rq *rq, struct task_struct *prev,
						  struct task_struct *next)
{
	extern struct task_struct *__switch_to_asm(struct task_struct *, struct task_struct *);

	next->on_cpu = 1;
	if (next->mm && next->mm != prev->mm)
		switch_mm(next->mm);
	else if (!next->mm && prev->mm)
		switch_mm(NULL);
	return __switch_to_asm(prev, next);
}

static notrace void __sched __schedule(bool preempt)
{
	struct percpu *pc = this_cpu();
	struct rq *rq = &pc->rq;
	struct task_struct *prev = pc->curr_task, *next;
	unsigned int prev_state;
	unsigned long *switch_count = &prev->nivcsw;

	local_irq_disable();
	rcu_note_context_switch(preempt);
	raw_spin_rq_lock(rq);
	pc->need_resched = 0;
	prev_state = prev->__state;
	update_rq_clock(rq);
	update_curr(rq, rq->clock);
	if (!preempt && prev_state != TASK_RUNNING) {
		/* signal_pending_state(): a signal that came after the sleeper looked for one, its
		 * sender having found it not yet asleep, ends the sleep here (under the lock the
		 * waker takes) */
		if ((prev_state & TASK_INTERRUPTIBLE) && signal_pending(prev))
			WRITE_ONCE(prev->__state, TASK_RUNNING);
		else if (prev != rq->idle)
			deactivate_task(rq, prev, DEQUEUE_SLEEP);
		else
			prev->on_rq = 0;
		switch_count = &prev->nvcsw;	/* it gave the cpu up */
	}
	next = pick_next_task(rq, prev);
	if (next == prev) {
		raw_spin_rq_unlock_irq(rq);
		return;
	}
	rq->curr = next;
	pc->stat_ctxt++;
	++*switch_count;
	if (static_branch_unlikely(&trace_cmdline_key))	/* Linux's probe_sched_switch */
		tracing_record_taskinfo_sched_switch(prev, next);
	trace_sched_switch(preempt, prev, next, prev_state);
	if (unlikely(READ_ONCE(ftrace_control.sleep_time_off)))	/* options/sleep-time off */
		ftrace_graph_sleep_time_switch(prev, next);
	sched_info_switch(rq, prev, next);	/* prepare_task_switch() */
	perf_event_task_sched_out(prev, next);
	prev = context_switch(rq, prev, next);
	finish_task_switch(prev);
}

extern char __sched_text_start[], __sched_text_end[];
int in_lock_functions(unsigned long addr);

/* the scheduler's own frames, which a sleeping task's stack trace and wchan leave out */
noinline int in_sched_functions(unsigned long addr)
{
	return in_lock_functions(addr) ||
	       (addr >= (unsigned long)__sched_text_start && addr < (unsigned long)__sched_text_end);
}

/* Where a sleeping task waits (/proc/PID/wchan): the first of its frames outside the scheduler;
 * 0 for current and a task that runs or is about to.  (6.1 takes p->pi_lock: here the caller
 * holds sched_lock, which keeps p there and switched out.) */
noinline unsigned long get_wchan(struct task_struct *p)
{
	unsigned long ip = 0;
	unsigned int state;

	if (!p || p == current)
		return 0;
	state = READ_ONCE(p->__state);
	if (state != TASK_RUNNING && !p->on_rq)	/* (the model has no TASK_WAKING) */
		ip = __get_wchan(p);
	return ip;
}

/* Every task switches out and back in at the same preempt depth (this one,
 * plus the scheduler lock): the count is per cpu and carries over. */
noinline void __sched schedule(void)	/* out of line at its callers, as 6.1's (one probe site) */
{
	preempt_disable();
	__schedule(false);
	preempt_enable_no_resched();
}

/* schedule() from code that holds a preempt_disable() (mutex_lock's sleep) */
void __sched schedule_preempt_disabled(void)
{
	preempt_enable_no_resched();
	schedule();
	preempt_disable();
}

/* Called on return from an interrupt to user mode when need_resched is set. */
void __sched preempt_schedule_irq(void)
{
	preempt_disable();
	__schedule(true);
	preempt_enable_no_resched();
}

/* A new task's first return: leave the depth schedule() left for it. */
void schedule_tail(struct task_struct *prev)
{
	finish_task_switch(prev);
	preempt_enable_no_resched();
	if (current->set_child_tid)
		clone_set_child_tid(current);
}

void scheduler_tick(void)
{
	struct percpu *pc = this_cpu();
	struct rq *rq = &pc->rq;
	struct task_struct *curr = pc->curr_task;

	raw_spin_rq_lock(rq);
	update_rq_clock(rq);
	if (curr != rq->idle)
		task_tick_fair(rq, curr, 0);	/* curr->sched_class->task_tick */
	perf_event_task_tick();
	/* an idle sibling while tasks wait here: let the migration thread balance */
	if (rq->nr_running > 1 && pc->migration && pc->migration->__state == TASK_INTERRUPTIBLE) {
		int cpu;
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (cpu_rq(cpu)->nr_running == 0) {
				raw_spin_rq_unlock(rq);
				wake_up_process(pc->migration);
				return;
			}
	}
	raw_spin_rq_unlock(rq);
}

/* A queued task to another cpu's queue (one scheduler lock here: no lock to switch). */
static noinline struct rq *move_queued_task(struct rq *rq, struct task_struct *p, int new_cpu)
{
	deactivate_task(rq, p, 0);
	set_task_cpu(p, new_cpu);
	rq = cpu_rq(new_cpu);
	activate_task(rq, p, 0);
	check_preempt_curr(rq, p, 0);
	return rq;
}

/* migration/N: move one waiting task of this cpu to an idle cpu. */
notrace int migrate_one_task(void)
{
	struct percpu *pc = this_cpu();
	struct task_struct *p;
	unsigned long flags;
	int cpu, moved = 0;

	spin_lock_irqsave(&sched_lock, flags);
	/* migration_cpu_stop(): a task queued here that may no longer run here goes first */
	list_for_each_entry(p, &pc->rq.cfs.queue, run_list)
		if (!task_allowed_on_cpu(p, smp_processor_id())) {
			move_queued_task(&pc->rq, p, select_task_rq_fair(p, -1, 0));
			spin_unlock_irqrestore(&sched_lock, flags);
			return 1;
		}
	for (cpu = 0; cpu < nr_cpu_ids && !moved; cpu++) {
		if (cpu_rq(cpu)->nr_running || list_empty(&pc->rq.cfs.queue))
			continue;
		list_for_each_entry(p, &pc->rq.cfs.queue, run_list) {
			if ((p->flags & PF_NO_SETAFFINITY) || !task_allowed_on_cpu(p, cpu))
				continue;
			move_queued_task(&pc->rq, p, cpu);
			moved = 1;
			break;
		}
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	return moved;
}

/* The task's priority as /proc/<pid>/stat shows it: its prio less MAX_RT_PRIO (0 to 39 for a
 * fair task: 20 at nice 0) */
noinline int task_prio(const struct task_struct *p)
{
	return p->prio - MAX_RT_PRIO;
}

/* May the task take this nice: within its RLIMIT_NICE (20 - nice), or with CAP_SYS_NICE */
noinline bool can_nice(const struct task_struct *p, const int nice)
{
	/* convert nice value [19,-20] to rlimit style value [1,40] */
	int nice_rlim = 20 - nice;

	return nice_rlim <= (int)task_rlimit(p, RLIMIT_NICE) || capable(CAP_SYS_NICE);
}

/* The task's runqueue, locked: one lock (sched_lock) for every runqueue here, and the task
 * does not move to another while it is held.  (A task not yet on a cpu: this cpu's.) */
noinline struct rq *task_rq_lock(struct task_struct *p, unsigned long *flags)
{
	unsigned long f;

	spin_lock_irqsave(&sched_lock, f);
	*flags = f;
	return cpu_rq(p->cpu >= 0 ? p->cpu : smp_processor_id());
}

static __always_inline void task_rq_unlock(struct rq *rq, struct task_struct *p, unsigned long *flags)
{
	spin_unlock_irqrestore(&sched_lock, *flags);
}

/* The task's nice set: its priority, in its queue's order (one weight for every fair task here:
 * the priority is what it shows and what its cpu time is counted as, user or nice) */
noinline void set_user_nice(struct task_struct *p, long nice)
{
	struct rq *rq;
	unsigned long flags;
	int old_prio;

	if (task_nice(p) == nice || nice < MIN_NICE || nice > MAX_NICE)
		return;
	rq = task_rq_lock(p, &flags);
	update_rq_clock(rq);
	old_prio = p->prio;
	p->prio = NICE_TO_PRIO(nice);	/* static_prio; effective_prio(): the same for a fair task */
	if (p->cpu >= 0)
		prio_changed_fair(rq, p, old_prio);	/* p->sched_class->prio_changed */
	task_rq_unlock(rq, p, &flags);
}

/* the context switches since boot, of every cpu (/proc/stat's ctxt) */
noinline unsigned long long nr_context_switches(void)
{
	unsigned long long sum = 0;
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		sum += cpu_data[cpu].stat_ctxt;
	return sum;
}


void __init sched_init_idle(int cpu)
{
	struct percpu *pc = &cpu_data[cpu];
	struct task_struct *idle = alloc_task();

	if (!idle)
		panic("no memory for idle task");
	idle->pid = 0;
	idle->thread_pid = &init_struct_pid;	/* (not attached: no lookup finds pid 0) */
	idle->flags = PF_KTHREAD | PF_IDLE;
	idle->real_cred = get_cred(&init_cred);	/* (init_task's, which 6.1's idle tasks fork from) */
	idle->cred = get_cred(&init_cred);
	idle->nsproxy = &init_nsproxy;	/* (init_task's: the boot's reference) */
	idle->cpu = cpu;
	idle->se.cfs_rq = &pc->rq.cfs;	/* __set_task_cpu(): set_task_rq() */
	idle->on_rq = 1;
	idle->on_cpu = 1;
	idle->stack = idle_stacks[cpu];
	scnprintf(idle->comm, TASK_COMM_LEN, "swapper/%d", cpu);
	INIT_LIST_HEAD(&pc->rq.cfs.queue);
	INIT_LIST_HEAD(&pc->timers);
	pc->rq.idle = pc->rq.curr = idle;
	pc->curr_task = idle;
	pc->h.top_of_stack = (u64)idle->stack + THREAD_SIZE;
}

/* kernel/sched/idle.c's weak defaults (x86's arch_cpu_idle_enter adds a TSC_ADJUST check and
 * the NMI handler's back-to-back state, neither modelled here) */
void __attribute__((weak)) arch_cpu_idle_enter(void)
{
}

void __attribute__((weak)) arch_cpu_idle_exit(void)
{
}

/* x86's arch_cpu_idle → x86_idle (default_idle): safe_halt, back with interrupts on */
noinline void arch_cpu_idle(void)
{
	/* the host reads trace_pending here: no ticks come while halted */
	host_doorbell(PORT_IDLE, 0);
	asm volatile("sti; hlt\n" HALT_RESUME_SITE ::: "memory");
}

/* kernel/sched/idle.c: the idle state without a cpuidle driver, between its cpu_idle events */
noinline void default_idle_call(void)
{
	trace_cpu_idle(1, smp_processor_id());
	arch_cpu_idle();
	trace_cpu_idle(PWR_EVENT_EXIT, smp_processor_id());
}

/* The idle loop: halt until an interrupt; the host skips the idle time. */
static noinline void do_idle(void)
{
	struct percpu *pc = this_cpu();

	/* polling need_resched: a waker needs no IPI (sched_wake_idle_without_ipi) */
	WRITE_ONCE(current->polling, 1);
	tick_nohz_idle_enter();
	while (!READ_ONCE(pc->need_resched)) {
		local_irq_disable();
		/* about to halt: from here on an IPI must wake it */
		WRITE_ONCE(current->polling, 0);
		if (READ_ONCE(pc->need_resched)) {
			local_irq_enable();
			break;
		}
		arch_cpu_idle_enter();
		/* cpuidle_idle_call(), no cpuidle driver: */
		tick_nohz_idle_stop_tick();
		/* a deep idle state: the local APIC timer stops, the HPET wakes the cpu */
		tick_broadcast_enter();
		default_idle_call();
		local_irq_disable();
		tick_broadcast_exit();
		WRITE_ONCE(current->polling, 1);
		local_irq_enable();
		arch_cpu_idle_exit();
	}
	WRITE_ONCE(current->polling, 0);
	tick_nohz_idle_exit();
	schedule_idle();
}

noinline void __sched schedule_idle(void)
{
	__schedule(false);
}

/* The idle task runs with preemption disabled (init_idle_preempt_count()). */
void __noreturn cpu_startup_entry(void)
{
	this_cpu()->preempt_count = 1;
	tick_sched_init(smp_processor_id());
	local_irq_enable();
	for (;;)
		do_idle();
}

/* ---- sched_yield, the cpu mask (kernel/sched/core.c) ---- */

/* the task goes to the back of its runqueue (the class's yield_task, then schedule()): the
 * others first */
static noinline void do_sched_yield(void)
{
	struct rq *rq;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);	/* this_rq_lock_irq() */
	rq = cpu_rq(smp_processor_id());
	yield_task_fair(rq);	/* current->sched_class->yield_task */
	spin_unlock_irqrestore(&sched_lock, flags);
	schedule();
}

SYSCALL_DEFINE0(sched_yield)
{
	do_sched_yield();
	return 0;
}

/* ---- the scheduling policy (the fair class runs every task here) ---- */

/* the caller (pid 0) or the task of that pid */
static __always_inline struct task_struct *find_process_by_pid(pid_t pid)
{
	return pid ? find_task_by_vpid(pid) : current;
}

#define SCHED_RESET_ON_FORK	0x40000000
#define SETPARAM_POLICY		-1
#define SCHED_FLAG_RESET_ON_FORK	0x01
#define SCHED_FLAG_KEEP_POLICY		0x08
#define SCHED_FLAG_KEEP_PARAMS		0x10
#define SCHED_FLAG_UTIL_CLAMP		0x60
#define SCHED_FLAG_ALL			0x7f
#define SCHED_FLAG_SUGOV		0x10000000
#define SCHED_ATTR_SIZE_VER0		48
#define DL_SCALE			10
#define DL_PERIOD_MIN_NS		(100ULL * 1000)		/* sysctl_sched_dl_period_min: 100 us */
#define DL_PERIOD_MAX_NS		((1ULL << 22) * 1000)	/* sysctl_sched_dl_period_max: ~4 s */

struct sched_attr {
	u32 size, sched_policy;
	u64 sched_flags;
	s32 sched_nice;
	u32 sched_priority;
	u64 sched_runtime, sched_deadline, sched_period;
	u32 sched_util_min, sched_util_max;
};

static inline bool fair_policy(int policy)
{
	return policy == SCHED_NORMAL || policy == SCHED_BATCH || policy == SCHED_IDLE;
}

static inline bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static inline bool valid_policy(int policy)
{
	return fair_policy(policy) || rt_policy(policy) || policy == SCHED_DEADLINE;
}

/* a deadline task's parameters: runtime <= deadline <= period, within the sysctl's bounds */
static noinline bool __checkparam_dl(const struct sched_attr *attr)
{
	u64 period = attr->sched_period ? attr->sched_period : attr->sched_deadline;

	if (attr->sched_flags & SCHED_FLAG_SUGOV)
		return true;
	if (attr->sched_deadline == 0 || attr->sched_runtime < (1ULL << DL_SCALE))
		return false;
	if ((attr->sched_deadline | attr->sched_period) & (1ULL << 63))
		return false;
	if (period < attr->sched_deadline || attr->sched_deadline < attr->sched_runtime)
		return false;
	return period >= DL_PERIOD_MIN_NS && period <= DL_PERIOD_MAX_NS;
}

/* the caller's euid is the task's euid or uid */
static inline bool check_same_owner(struct task_struct *p)
{
	const struct cred *cred = current_cred(), *pcred = __task_cred(p);

	return cred->euid == pcred->euid || cred->euid == pcred->uid;
}

/* the task's parameters as sched_getattr reports them (get_params) */
static inline void get_params(struct task_struct *p, struct sched_attr *attr)
{
	if (p->policy == SCHED_DEADLINE) {
		attr->sched_runtime = p->dl_runtime;
		attr->sched_deadline = p->dl_deadline;
		attr->sched_period = p->dl_period;
	} else if (rt_policy(p->policy)) {
		attr->sched_priority = p->rt_priority;
	} else {
		attr->sched_nice = task_nice(p);
	}
}

/* The task's policy: a queued task's SCHED_IDLE counts follow it (6.1 dequeues the task and
 * queues it again around the change) */
static void set_task_policy(struct task_struct *p, int policy)
{
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);	/* task_rq_lock() */
	if (p->on_rq && p->cpu >= 0 && !(p->flags & PF_IDLE)) {
		struct cfs_rq *cfs_rq = &cpu_rq(p->cpu)->cfs;
		int idle_delta = (policy == SCHED_IDLE) - task_has_idle_policy(p);

		cfs_rq->idle_nr_running += idle_delta;
		cfs_rq->idle_h_nr_running += idle_delta;
	}
	p->policy = policy;
	spin_unlock_irqrestore(&sched_lock, flags);
}

/*
 * A new policy and its parameters for the task, with 6.1's checks: EINVAL for a policy, flags or
 * priority out of range (1-99 for FIFO/RR, 0 for the others) or deadline parameters that do not
 * hold; without CAP_SYS_NICE, EPERM for a nice below RLIMIT_NICE's, a real-time policy or
 * priority past RLIMIT_RTPRIO, SCHED_DEADLINE, leaving SCHED_IDLE past RLIMIT_NICE, another
 * user's task, or dropping reset-on-fork.  The fair class runs every task here: a nice is
 * honoured (set_user_nice), a real-time or deadline policy kept and reported.  (No deadline
 * admission control: there is no deadline class to admit to.)
 */
noinline int __sched_setscheduler(struct task_struct *p, const struct sched_attr *attr, bool user, bool pi)
{
	int policy = attr->sched_policy, retval;
	bool reset_on_fork;
	long nice;

	if (policy < 0) {
		reset_on_fork = p->sched_reset_on_fork;
		policy = p->policy;
	} else {
		reset_on_fork = !!(attr->sched_flags & SCHED_FLAG_RESET_ON_FORK);
		if (!valid_policy(policy))
			return -EINVAL;
	}
	if (attr->sched_flags & ~(SCHED_FLAG_ALL | SCHED_FLAG_SUGOV))
		return -EINVAL;
	if (attr->sched_priority > MAX_RT_PRIO - 1)
		return -EINVAL;
	if ((policy == SCHED_DEADLINE && !__checkparam_dl(attr)) || (rt_policy(policy) != (attr->sched_priority != 0)))
		return -EINVAL;
	if (user && !capable(CAP_SYS_NICE)) {
		if (fair_policy(policy) && attr->sched_nice < task_nice(p) && !can_nice(p, attr->sched_nice))
			return -EPERM;
		if (rt_policy(policy)) {
			unsigned long rlim_rtprio = task_rlimit(p, RLIMIT_RTPRIO);

			if (policy != (int)p->policy && !rlim_rtprio)
				return -EPERM;
			if (attr->sched_priority > p->rt_priority && attr->sched_priority > rlim_rtprio)
				return -EPERM;
		}
		if (policy == SCHED_DEADLINE)
			return -EPERM;
		if (p->policy == SCHED_IDLE && policy != SCHED_IDLE && !can_nice(p, task_nice(p)))
			return -EPERM;
		if (!check_same_owner(p))
			return -EPERM;
		if (p->sched_reset_on_fork && !reset_on_fork)
			return -EPERM;
	}
	if (user) {
		if (attr->sched_flags & SCHED_FLAG_SUGOV)
			return -EINVAL;
		retval = security_task_setscheduler(p);
		if (retval)
			return retval;
	}
	if (attr->sched_flags & SCHED_FLAG_UTIL_CLAMP)
		return -EOPNOTSUPP;	/* uclamp_validate(): no CONFIG_UCLAMP_TASK in Debian's 6.1 */
	/* __setscheduler_params() */
	nice = fair_policy(policy) ? attr->sched_nice : task_nice(p);
	p->sched_reset_on_fork = reset_on_fork;
	set_task_policy(p, policy);
	p->rt_priority = rt_policy(policy) ? attr->sched_priority : 0;
	if (policy == SCHED_DEADLINE) {
		p->dl_runtime = attr->sched_runtime;
		p->dl_deadline = attr->sched_deadline;
		p->dl_period = attr->sched_period ? attr->sched_period : attr->sched_deadline;
	}
	set_user_nice(p, nice);
	return 0;
}

static inline int _sched_setscheduler(struct task_struct *p, int policy, const struct sched_param *param,
					bool check)
{
	struct sched_attr attr = {
		.sched_policy = policy,
		.sched_priority = param->sched_priority,
		.sched_nice = task_nice(p),	/* PRIO_TO_NICE(p->static_prio) */
	};

	if ((policy != SETPARAM_POLICY) && (policy & SCHED_RESET_ON_FORK)) {
		attr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
		policy &= ~SCHED_RESET_ON_FORK;
		attr.sched_policy = policy;
	}
	return __sched_setscheduler(p, &attr, check, true);
}

noinline int sched_setscheduler(struct task_struct *p, int policy, const struct sched_param *param)
{
	return _sched_setscheduler(p, policy, param, true);
}

noinline int sched_setattr(struct task_struct *p, const struct sched_attr *attr)
{
	return __sched_setscheduler(p, attr, true, true);
}

static noinline long do_sched_setscheduler(pid_t pid, int policy, struct sched_param *param)
{
	struct sched_param lparam;
	struct task_struct *p;
	int retval;

	if (!param || pid < 0)
		return -EINVAL;
	if (copy_from_user(&lparam, param, sizeof(struct sched_param)))
		return -EFAULT;
	preempt_disable();	/* rcu_read_lock() */
	p = find_process_by_pid(pid);
	retval = p ? sched_setscheduler(p, policy, &lparam) : -ESRCH;
	preempt_enable();
	return retval;
}

SYSCALL_DEFINE3(sched_setscheduler, pid_t, pid, int, policy, struct sched_param *, param)
{
	if (policy < 0)
		return -EINVAL;
	return do_sched_setscheduler(pid, policy, param);
}

SYSCALL_DEFINE2(sched_setparam, pid_t, pid, struct sched_param *, param)
{
	return do_sched_setscheduler(pid, SETPARAM_POLICY, param);
}

/* A sched_attr of any size from 48 bytes (VER0) up to a page: what this kernel does not know
 * must be zeros (copy_struct_from_user); E2BIG with the size it knows written back */
static notrace int sched_copy_attr(struct sched_attr *uattr, struct sched_attr *attr)
{
	u32 size;
	unsigned char c;
	u32 i;

	memset(attr, 0, sizeof(*attr));
	if (copy_from_user(&size, &uattr->size, sizeof(size)))
		return -EFAULT;
	if (!size)
		size = SCHED_ATTR_SIZE_VER0;
	if (size < SCHED_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		goto err_size;
	for (i = sizeof(*attr); i < size; i++) {
		if (copy_from_user(&c, (char *)uattr + i, 1))
			return -EFAULT;
		if (c)
			goto err_size;
	}
	if (copy_from_user(attr, uattr, min(size, (u32)sizeof(*attr))))
		return -EFAULT;
	if ((attr->sched_flags & SCHED_FLAG_UTIL_CLAMP) && size < sizeof(*attr))
		return -EINVAL;
	attr->sched_nice = attr->sched_nice < MIN_NICE ? MIN_NICE : attr->sched_nice > MAX_NICE ? MAX_NICE :
			   attr->sched_nice;
	return 0;
err_size:
	size = sizeof(*attr);
	copy_to_user(&uattr->size, &size, sizeof(size));
	return -E2BIG;
}

SYSCALL_DEFINE3(sched_setattr, pid_t, pid, struct sched_attr *, uattr, unsigned int, flags)
{
	struct sched_attr attr;
	struct task_struct *p;
	int retval;

	if (!uattr || pid < 0 || flags)
		return -EINVAL;
	retval = sched_copy_attr(uattr, &attr);
	if (retval)
		return retval;
	if ((int)attr.sched_policy < 0)
		return -EINVAL;
	if (attr.sched_flags & SCHED_FLAG_KEEP_POLICY)
		attr.sched_policy = SETPARAM_POLICY;
	preempt_disable();
	p = find_process_by_pid(pid);
	if (p && (attr.sched_flags & SCHED_FLAG_KEEP_PARAMS))
		get_params(p, &attr);
	retval = p ? sched_setattr(p, &attr) : -ESRCH;
	preempt_enable();
	return retval;
}

SYSCALL_DEFINE4(sched_getattr, pid_t, pid, struct sched_attr *, uattr, unsigned int, usize, unsigned int, flags)
{
	struct sched_attr kattr = { };
	struct task_struct *p;
	int retval;

	if (!uattr || pid < 0 || usize > PAGE_SIZE || usize < SCHED_ATTR_SIZE_VER0 || flags)
		return -EINVAL;
	preempt_disable();
	p = find_process_by_pid(pid);
	retval = p ? security_task_getscheduler(p) : -ESRCH;
	if (!retval) {
		kattr.sched_policy = p->policy;
		if (p->sched_reset_on_fork)
			kattr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
		get_params(p, &kattr);
	}
	preempt_enable();
	if (retval)
		return retval;
	kattr.size = min(usize, (unsigned int)sizeof(kattr));	/* sched_attr_copy_to_user() */
	return copy_to_user(uattr, &kattr, kattr.size) ? -EFAULT : 0;
}

SYSCALL_DEFINE1(sched_getscheduler, pid_t, pid)
{
	struct task_struct *p;
	int retval;

	if (pid < 0)
		return -EINVAL;
	retval = -ESRCH;
	preempt_disable();	/* rcu_read_lock() */
	p = find_process_by_pid(pid);
	if (p) {
		retval = security_task_getscheduler(p);
		if (!retval)
			retval = p->policy | (p->sched_reset_on_fork ? SCHED_RESET_ON_FORK : 0);
	}
	preempt_enable();
	return retval;
}

SYSCALL_DEFINE2(sched_getparam, pid_t, pid, struct sched_param *, param)
{
	struct sched_param lp = { .sched_priority = 0 };
	struct task_struct *p;
	int retval;

	if (!param || pid < 0)
		return -EINVAL;
	preempt_disable();
	p = find_process_by_pid(pid);
	retval = p ? security_task_getscheduler(p) : -ESRCH;
	if (!retval && rt_policy(p->policy))
		lp.sched_priority = p->rt_priority;
	preempt_enable();
	if (retval)
		return retval;
	return copy_to_user(param, &lp, sizeof(*param)) ? -EFAULT : 0;
}

SYSCALL_DEFINE1(sched_get_priority_max, int, policy)
{
	switch (policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return MAX_RT_PRIO - 1;
	case SCHED_DEADLINE:
	case SCHED_NORMAL:
	case SCHED_BATCH:
	case SCHED_IDLE:
		return 0;
	}
	return -EINVAL;
}

SYSCALL_DEFINE1(sched_get_priority_min, int, policy)
{
	switch (policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return 1;
	case SCHED_DEADLINE:
	case SCHED_NORMAL:
	case SCHED_BATCH:
	case SCHED_IDLE:
		return 0;
	}
	return -EINVAL;
}

/* The task's time slice, of its class (the fair class's here) */
static noinline int sched_rr_get_interval(pid_t pid, struct timespec64 *t)
{
	struct task_struct *p;
	unsigned int time_slice;
	struct rq *rq;
	unsigned long flags;
	int retval;

	if (pid < 0)
		return -EINVAL;
	retval = -ESRCH;
	preempt_disable();
	p = find_process_by_pid(pid);
	if (!p)
		goto out_unlock;
	retval = security_task_getscheduler(p);
	if (retval)
		goto out_unlock;
	rq = task_rq_lock(p, &flags);
	time_slice = get_rr_interval_fair(rq, p);
	task_rq_unlock(rq, p, &flags);
	preempt_enable();
	jiffies_to_timespec64(time_slice, t);
	return 0;
out_unlock:
	preempt_enable();
	return retval;
}

SYSCALL_DEFINE2(sched_rr_get_interval, pid_t, pid, struct __kernel_timespec *, interval)
{
	struct timespec64 t;
	int retval = sched_rr_get_interval(pid, &t);

	if (retval == 0)
		retval = put_timespec64(&t, interval);
	return retval;
}

/* cpumask_size(): the bytes of a mask of NR_CPUS bits, in longs */
#define CPUMASK_BYTES	(((NR_CPUS + 63) / 64) * sizeof(unsigned long))

/* The online cpus the task may run on (cpus_mask) */
noinline long sched_getaffinity(pid_t pid, unsigned long *mask)
{
	unsigned long flags;
	int cpu;

	struct task_struct *p;
	long retval;

	spin_lock_irqsave(&sched_lock, flags);
	p = find_process_by_pid(pid);
	retval = p ? security_task_getscheduler(p) : -ESRCH;
	spin_unlock_irqrestore(&sched_lock, flags);
	if (retval)
		return retval;
	memset(mask, 0, CPUMASK_BYTES);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (task_allowed_on_cpu(p, cpu))
			mask[cpu / 64] |= 1UL << (cpu % 64);
	return 0;
}

SYSCALL_DEFINE3(sched_getaffinity, pid_t, pid, unsigned int, len, unsigned long *, user_mask_ptr)
{
	unsigned long mask[CPUMASK_BYTES / sizeof(unsigned long)];
	unsigned int retlen;
	long ret;

	if ((len * 8) < (unsigned int)nr_cpu_ids)
		return -EINVAL;
	if (len & (sizeof(unsigned long) - 1))
		return -EINVAL;
	ret = sched_getaffinity(pid, mask);
	if (ret)
		return ret;
	retlen = min(len, (unsigned int)CPUMASK_BYTES);
	return copy_to_user(user_mask_ptr, mask, retlen) ? -EFAULT : (long)retlen;
}

/* Off a cpu it may no longer use: queued, the task moves at once (move_queued_task:
 * sched_migrate_task); running, that cpu's migration thread preempts and moves it
 * (stop_one_cpu_nowait -> migration_cpu_stop); asleep, it wakes on an allowed cpu.  Called and
 * returns with the runqueue locked; *flags: its saved interrupt state. */
noinline int affine_move_task(struct rq *rq, struct task_struct *p, unsigned long *flags)
{
	int cpu = p->cpu;

	if (!p->on_rq)
		return 0;
	if (rq->curr != p) {
		move_queued_task(rq, p, select_task_rq_fair(p, -1, 0));
		return 0;
	}
	task_rq_unlock(rq, p, flags);
	wake_up_process(cpu_data[cpu].migration);
	resched_curr(cpu);
	task_rq_lock(p, flags);
	return 0;
}

/* The mask's online cpus (none: EINVAL) are the task's; a task off them moves */
noinline int __set_cpus_allowed_ptr_locked(struct task_struct *p, unsigned long new_mask, struct rq *rq,
					   unsigned long *flags)
{
	unsigned long online = nr_cpu_ids >= 64 ? ~0UL : (1UL << nr_cpu_ids) - 1;

	new_mask &= online;
	if (!new_mask)
		return -EINVAL;
	p->cpus_mask = new_mask == online ? 0 : new_mask;
	if (p->cpu < 0 || task_allowed_on_cpu(p, p->cpu))
		return 0;
	return affine_move_task(rq, p, flags);
}

/* (no cpusets: the mask as asked) */
noinline int __sched_setaffinity(struct task_struct *p, unsigned long new_mask)
{
	unsigned long flags;
	struct rq *rq = task_rq_lock(p, &flags);	/* __set_cpus_allowed_ptr() */
	int ret = __set_cpus_allowed_ptr_locked(p, new_mask, rq, &flags);

	task_rq_unlock(rq, p, &flags);
	return ret;
}

noinline long sched_setaffinity(pid_t pid, const unsigned long *in_mask)
{
	struct task_struct *p;
	long retval;

	preempt_disable();	/* rcu_read_lock() */
	p = find_process_by_pid(pid);
	if (!p) {
		preempt_enable();
		return -ESRCH;
	}
	retval = -EINVAL;
	if (p->flags & PF_NO_SETAFFINITY)
		goto out;
	retval = -EPERM;
	if (!check_same_owner(p) && !ns_capable(&init_user_ns, CAP_SYS_NICE))
		goto out;
	retval = security_task_setscheduler(p);
	if (retval)
		goto out;
	retval = __sched_setaffinity(p, in_mask[0]);
out:
	preempt_enable();
	return retval;
}

SYSCALL_DEFINE3(sched_setaffinity, pid_t, pid, unsigned int, len, unsigned long *, user_mask_ptr)
{
	unsigned long new_mask[CPUMASK_BYTES / sizeof(unsigned long)] = { 0 };

	/* get_user_cpu_mask(): a shorter mask is the cpus it names, a longer one cut */
	if (len >= CPUMASK_BYTES && copy_from_user(new_mask, user_mask_ptr, CPUMASK_BYTES))
		return -EFAULT;
	if (len < CPUMASK_BYTES && copy_from_user(new_mask, user_mask_ptr, len))
		return -EFAULT;
	return sched_setaffinity(pid, new_mask);
}
