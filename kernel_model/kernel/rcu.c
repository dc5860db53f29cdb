/*
 * RCU (kernel/rcu/tree.c, reduced to one flavour and one node): call_rcu()
 * callbacks wait for a grace period, which the rcu_sched kthread runs: it
 * ends once every cpu that was busy passed a quiescent state (a context
 * switch, a tick in user mode or idle; an idle cpu is one already).  The
 * tick notices callbacks whose grace period completed and raises RCU_SOFTIRQ,
 * where rcu_core() invokes them.  rcu:rcu_utilization marks the tick, the
 * context switch and the core, as in 6.1.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

#define TPS(x) tracepoint_string(x)

static struct task_struct *rcu_gp_task;
static raw_spinlock_t rcu_lock;
static struct rcu_head *rcu_cblist, **rcu_cbtail = &rcu_cblist;
static unsigned long rcu_gp_seq, rcu_gp_completed;
static volatile unsigned long rcu_qs_pending;	/* cpus the grace period waits for */

/* The grace-period kthread to its work (a callback waits for a grace period) */
static noinline void rcu_gp_kthread_wake(void)
{
	struct task_struct *t = READ_ONCE(rcu_gp_task);

	if (!t || t == current)
		return;
	wake_up_process(t);
}

noinline void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	unsigned long flags;

	head->func = func;
	head->next = NULL;
	raw_spin_lock_irqsave(&rcu_lock, flags);
	head->gp_seq = rcu_gp_seq + 1;
	*rcu_cbtail = head;
	rcu_cbtail = &head->next;
	raw_spin_unlock_irqrestore(&rcu_lock, flags);
	rcu_gp_kthread_wake();
}

/* A quiescent state of this cpu. */
static __always_inline void rcu_qs(int cpu)
{
	if (READ_ONCE(rcu_qs_pending) & (1UL << cpu))
		__atomic_and_fetch(&rcu_qs_pending, ~(1UL << cpu), __ATOMIC_RELAXED);
}

void rcu_note_context_switch(bool preempt)
{
	trace_rcu_utilization(TPS("Start context switch"));
	rcu_qs(smp_processor_id());
	trace_rcu_utilization(TPS("End context switch"));
}

/* The first callback's grace period is over. */
static __always_inline bool rcu_cbs_ready(void)
{
	struct rcu_head *first = READ_ONCE(rcu_cblist);

	return first && (long)(READ_ONCE(rcu_gp_completed) - first->gp_seq) >= 0;
}

/* Callbacks wait: the cpu keeps its tick, which will notice them done (tick_nohz_next_event()). */
bool rcu_needs_cpu(void)
{
	return READ_ONCE(rcu_cblist) != NULL;
}

static noinline void invoke_rcu_core(void)
{
	raise_softirq(RCU_SOFTIRQ);
}

/* From the tick (update_process_times). */
void rcu_sched_clock_irq(int user)
{
	struct percpu *pc = this_cpu();

	trace_rcu_utilization(TPS("Start scheduler-tick"));
	if (user || pc->curr_task == pc->rq.idle)
		rcu_qs(pc->h.cpu);
	if (rcu_cbs_ready())
		invoke_rcu_core();
	trace_rcu_utilization(TPS("End scheduler-tick"));
}

/* The callbacks whose grace period completed, in the order they came. */
static noinline void rcu_do_batch(void)
{
	struct rcu_head *done = NULL, **tail = &done, *head;
	unsigned long flags;

	raw_spin_lock_irqsave(&rcu_lock, flags);
	while ((head = rcu_cblist) && (long)(rcu_gp_completed - head->gp_seq) >= 0) {
		rcu_cblist = head->next;
		*tail = head;
		tail = &head->next;
	}
	if (!rcu_cblist)
		rcu_cbtail = &rcu_cblist;
	*tail = NULL;
	raw_spin_unlock_irqrestore(&rcu_lock, flags);
	while ((head = done)) {
		done = head->next;
		head->func(head);
	}
}

static noinline void rcu_core(void)
{
	trace_rcu_utilization(TPS("Start RCU core"));
	rcu_do_batch();
	trace_rcu_utilization(TPS("End RCU core"));
}

static void rcu_core_si(struct softirq_action *h)
{
	rcu_core();
}

/* Some callback waits for a grace period not started yet. */
static bool rcu_gp_needed(void)
{
	struct rcu_head *last;
	unsigned long flags;
	bool needed;

	raw_spin_lock_irqsave(&rcu_lock, flags);
	last = rcu_cblist ? container_of(rcu_cbtail, struct rcu_head, next) : NULL;
	needed = last && (long)(last->gp_seq - rcu_gp_seq) > 0;
	raw_spin_unlock_irqrestore(&rcu_lock, flags);
	return needed;
}

/* A new grace period: the cpus running something must each pass a quiescent state. */
static noinline void rcu_gp_init(void)
{
	unsigned long flags, mask = 0;
	int cpu;

	raw_spin_lock_irqsave(&rcu_lock, flags);
	rcu_gp_seq++;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu != smp_processor_id() && cpu_data[cpu].rq.curr != cpu_data[cpu].rq.idle)
			mask |= 1UL << cpu;
	rcu_qs_pending = mask;
	raw_spin_unlock_irqrestore(&rcu_lock, flags);
}

/* Forcing quiescent states: a cpu found idle is in one already. */
static void rcu_gp_fqs(void)
{
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu_data[cpu].rq.curr == cpu_data[cpu].rq.idle && (READ_ONCE(rcu_qs_pending) & (1UL << cpu)))
			__atomic_and_fetch(&rcu_qs_pending, ~(1UL << cpu), __ATOMIC_RELAXED);
}

/* Wait for the busy cpus' quiescent states, forcing them (an idle cpu's) every jiffy */
static noinline void rcu_gp_fqs_loop(void)
{
	while (READ_ONCE(rcu_qs_pending)) {
		schedule_timeout_idle(1);
		rcu_gp_fqs();
	}
}

static noinline void rcu_gp_cleanup(void)
{
	WRITE_ONCE(rcu_gp_completed, rcu_gp_seq);
}

static int rcu_gp_kthread(void *unused)
{
	for (;;) {
		set_current_state(TASK_IDLE);
		if (!rcu_gp_needed()) {
			schedule();
			continue;
		}
		set_current_state(TASK_RUNNING);
		rcu_gp_init();
		rcu_gp_fqs_loop();
		rcu_gp_cleanup();
	}
	return 0;
}

void __init rcu_init(void)
{
	open_softirq(RCU_SOFTIRQ, rcu_core_si);
}

void __init rcu_spawn_gp_kthread(void)
{
	rcu_gp_task = find_task_by_pid(kernel_thread(rcu_gp_kthread, NULL, "rcu_sched", -1));
}

/* ---- synchronize_rcu(): wait_rcu_gp(call_rcu), a callback that wakes the caller ---- */
struct rcu_synchronize {
	struct rcu_head head;
	struct task_struct *task;
	int done;
};

static noinline void wakeme_after_rcu(struct rcu_head *head)
{
	struct rcu_synchronize *rs = container_of(head, struct rcu_synchronize, head);
	struct task_struct *task = rs->task;

	WRITE_ONCE(rs->done, 1);	/* (rs is on the waiter's stack: not touched after this) */
	wake_up_process(task);
}

static noinline void __wait_rcu_gp(void)
{
	struct rcu_synchronize rs = { .task = current };

	call_rcu(&rs.head, wakeme_after_rcu);
	for (;;) {	/* wait_for_completion() */
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (READ_ONCE(rs.done))
			break;
		schedule();
	}
	set_current_state(TASK_RUNNING);
}

/* Until every cpu passed a quiescent state: a reader that began before it has finished.
 * One cpu is a grace period already (rcu_blocking_is_gp(): the caller may sleep, so no
 * reader runs). */
noinline void synchronize_rcu(void)
{
	if (nr_cpu_ids == 1)
		return;
	__wait_rcu_gp();
}
