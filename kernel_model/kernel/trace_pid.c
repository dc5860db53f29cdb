/*
 * The trace arrays' pid lists in the guest (include/trace/trace_pid.h):
 * set_event_pid filtering at record time, and options/event-fork and
 * options/function-fork following forks (trace.c trace_filter_add_remove_task,
 * trace_events.c event_filter_pid_sched_process_fork/exit, ftrace.c
 * ftrace_pid_follow_sched_process_fork/exit).
 */
#include "../include/kernel.h"
#include "../include/trace/trace_pid.h"
#include "../include/trace/ftrace.h"

/* the top level's set_event_pid and set_event_notrace_pid (an instance's are allocated) */
static struct trace_pid_bits trace_pid_top[2];
struct trace_pid_control trace_pid_control = {
	.pids = { [0] = &trace_pid_top[0] },
	.notrace_pids = { [0] = &trace_pid_top[1] },
};
/* fork and free update the lists from any cpu; the host changes them with every cpu stopped */
static notrace_spinlock_t trace_pid_lock;

static notrace void pid_bit(struct trace_pid_bits *b, pid_t pid, bool on)
{
	u64 mask;

	if ((u32)pid >= TRACE_PID_MAX)
		return;
	mask = 1UL << ((u32)pid % 64);
	if (on)
		b->word[(u32)pid / 64] |= mask;
	else
		b->word[(u32)pid / 64] &= ~mask;
}

/* The slots among `slots` whose list in `lists` holds pid. */
static notrace u64 slots_holding(u64 slots, struct trace_pid_bits *const *lists, pid_t pid)
{
	u64 held = 0;

	while (slots) {
		int s = __builtin_ctzll(slots);

		slots &= slots - 1;
		if (trace_pid_test(lists[s], pid))
			held |= 1ULL << s;
	}
	return held;
}

/* !trace_ignore_this_task(), for each slot with a list */
notrace u64 trace_pid_event_slots(u64 slots, pid_t pid)
{
	u64 listed = slots & trace_pid_control.event_pids;
	u64 unlisted = slots & trace_pid_control.event_notrace_pids;

	return slots & ~(listed & ~slots_holding(listed, trace_pid_control.pids, pid))
		     & ~slots_holding(unlisted, trace_pid_control.notrace_pids, pid);
}

/*
 * event_filter_pid_sched_switch_probe_pre(): a switch is kept unless both
 * tasks are in set_event_notrace_pid, or neither is in set_event_pid (so a
 * task in both lists still shows its switches).
 */
notrace u64 trace_pid_switch_slots(u64 slots, pid_t prev, pid_t next)
{
	u64 listed = slots & trace_pid_control.event_pids;
	u64 unlisted = slots & trace_pid_control.event_notrace_pids;
	u64 either = slots_holding(listed, trace_pid_control.pids, prev) |
		     slots_holding(listed, trace_pid_control.pids, next);
	u64 both = slots_holding(slots_holding(unlisted, trace_pid_control.notrace_pids, prev),
				 trace_pid_control.notrace_pids, next);

	return slots & ~(listed & ~either) & ~both;
}

/*
 * The ftrace lists are arrays (struct ftrace_slot_state) the dispatcher
 * scans; a freed pid becomes -1 rather than shrinking the array, so a list
 * whose tasks are all gone still exists (and lets nothing through).
 */
static notrace int ftrace_pid_find(const s32 *pids, u32 nr, pid_t pid)
{
	u32 i;

	for (i = 0; i < nr && i < FTRACE_PIDS_MAX; i++)
		if (pids[i] == pid)
			return i;
	return -1;
}

static notrace void ftrace_pid_add(s32 *pids, volatile u32 *nr, pid_t pid)
{
	int free = ftrace_pid_find(pids, *nr, -1);

	if (ftrace_pid_find(pids, *nr, pid) >= 0)
		return;
	if (free >= 0) {
		WRITE_ONCE(pids[free], pid);
	} else if (*nr < FTRACE_PIDS_MAX) {
		/* entry before length: the dispatcher reads a length, then that many entries */
		WRITE_ONCE(pids[*nr], pid);
		barrier();
		*nr = *nr + 1;
	}
	/* else the list is full: the child goes untraced (a bound Linux's bitmap does not have) */
}

static notrace void ftrace_pid_remove(s32 *pids, u32 nr, pid_t pid)
{
	int i = ftrace_pid_find(pids, nr, pid);

	if (i >= 0)
		WRITE_ONCE(pids[i], -1);
}

/* trace_filter_add_remove_task(list, self, task): self is NULL for an exit */
notrace void trace_pid_follow_fork(struct task_struct *parent, struct task_struct *child)
{
	u64 events = trace_pid_control.event_fork, functions = trace_pid_control.function_fork;
	unsigned long flags;

	flags = arch_local_irq_save();
	notrace_spin_lock(&trace_pid_lock);
	while (events) {
		int s = __builtin_ctzll(events);

		events &= events - 1;
		if (trace_pid_control.event_pids & (1ULL << s) &&
		    trace_pid_test(trace_pid_control.pids[s], parent->pid))
			pid_bit(trace_pid_control.pids[s], child->pid, true);
		if (trace_pid_control.event_notrace_pids & (1ULL << s) &&
		    trace_pid_test(trace_pid_control.notrace_pids[s], parent->pid))
			pid_bit(trace_pid_control.notrace_pids[s], child->pid, true);
	}
	while (functions) {
		int s = __builtin_ctzll(functions);
		struct ftrace_slot_state *st = &ftrace_control.slots[s];

		functions &= functions - 1;
		if (ftrace_pid_find(st->pids, st->nr_pids, parent->pid) >= 0)
			ftrace_pid_add(st->pids, &st->nr_pids, child->pid);
		if (ftrace_pid_find(st->notrace_pids, st->nr_notrace_pids, parent->pid) >= 0)
			ftrace_pid_add(st->notrace_pids, &st->nr_notrace_pids, child->pid);
	}
	notrace_spin_unlock(&trace_pid_lock);
	arch_local_irq_restore(flags);
}

notrace void trace_pid_follow_free(struct task_struct *task)
{
	u64 events = trace_pid_control.event_fork, functions = trace_pid_control.function_fork;
	unsigned long flags;

	flags = arch_local_irq_save();
	notrace_spin_lock(&trace_pid_lock);
	while (events) {
		int s = __builtin_ctzll(events);

		events &= events - 1;
		pid_bit(trace_pid_control.pids[s], task->pid, false);
		pid_bit(trace_pid_control.notrace_pids[s], task->pid, false);
	}
	while (functions) {
		int s = __builtin_ctzll(functions);
		struct ftrace_slot_state *st = &ftrace_control.slots[s];

		functions &= functions - 1;
		ftrace_pid_remove(st->pids, st->nr_pids, task->pid);
		ftrace_pid_remove(st->notrace_pids, st->nr_notrace_pids, task->pid);
	}
	notrace_spin_unlock(&trace_pid_lock);
	arch_local_irq_restore(flags);
}
