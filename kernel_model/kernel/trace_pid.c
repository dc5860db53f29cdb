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
const u64 trace_ext_all[TRACE_EXT_WORDS] = { [0 ... TRACE_EXT_WORDS - 1] = ~0ULL };
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

/* The slots among `slots` (a word whose bit 0 is slot `base`) whose list in `lists` holds pid. */
static notrace u64 slots_holding(u64 slots, struct trace_pid_bits *const *lists, int base, pid_t pid)
{
	lists += base;
	u64 held = 0;

	while (slots) {
		int s = __builtin_ctzll(slots);

		slots &= slots - 1;
		if (trace_pid_test(lists[s], pid))
			held |= 1ULL << s;
	}
	return held;
}

/* !trace_ignore_this_task(), for each slot of one word with a list (listed, unlisted: the
 * word's masks of set_event_pid and set_event_notrace_pid lists; base: its first slot) */
static notrace u64 event_word(u64 slots, u64 listed, u64 unlisted, int base, pid_t pid)
{
	listed &= slots;
	unlisted &= slots;
	return slots & ~(listed & ~slots_holding(listed, trace_pid_control.pids, base, pid))
		     & ~slots_holding(unlisted, trace_pid_control.notrace_pids, base, pid);
}

/*
 * event_filter_pid_sched_switch_probe_pre(): a switch is kept unless both
 * tasks are in set_event_notrace_pid, or neither is in set_event_pid (so a
 * task in both lists still shows its switches).
 */
static notrace u64 switch_word(u64 slots, u64 listed, u64 unlisted, int base, pid_t prev, pid_t next)
{
	u64 either, both;

	listed &= slots;
	unlisted &= slots;
	either = slots_holding(listed, trace_pid_control.pids, base, prev) |
		 slots_holding(listed, trace_pid_control.pids, base, next);
	both = slots_holding(slots_holding(unlisted, trace_pid_control.notrace_pids, base, prev),
			     trace_pid_control.notrace_pids, base, next);
	return slots & ~(listed & ~either) & ~both;
}

enum { PID_EVENT, PID_SWITCH, PID_WAKEUP };

static notrace u64 filter_word(int kind, u64 slots, u64 listed, u64 unlisted, int base, pid_t a, pid_t b)
{
	if (kind == PID_SWITCH)
		return switch_word(slots, listed, unlisted, base, a, b);
	if (kind == PID_WAKEUP)		/* the waker's lists or the woken task's */
		return event_word(slots, listed, unlisted, base, a) | event_word(slots, listed, unlisted, base, b);
	return event_word(slots, listed, unlisted, base, a);
}

/*
 * One filter over word 0 (its summary bit has no list of its own: it passes) and, when the
 * summary bit is in slots and in a list mask, over the extension words *ext, which become
 * buf; the summary bit goes when none of them is left.
 */
static notrace u64 pid_filter(int kind, u64 slots, pid_t a, pid_t b, const u64 **ext, u64 *buf)
{
	u64 listed = trace_pid_control.event_pids, unlisted = trace_pid_control.event_notrace_pids;
	u64 summary = 1ULL << TRACE_SLOT_EXT, left = 0;
	int i;

	slots = filter_word(kind, slots, listed & ~summary, unlisted & ~summary, 0, a, b);
	if (!(slots & (listed | unlisted) & summary) || !*ext)
		return slots;
	for (i = 0; i < TRACE_EXT_WORDS; i++) {
		buf[i] = filter_word(kind, READ_ONCE((*ext)[i]), trace_pid_control.event_pids_ext[i],
				     trace_pid_control.event_notrace_pids_ext[i], (i + 1) * 64, a, b);
		left |= buf[i];
	}
	*ext = buf;
	return left ? slots : slots & ~summary;
}

notrace u64 trace_pid_event_slots(u64 slots, pid_t pid, const u64 **ext, u64 *buf)
{
	return pid_filter(PID_EVENT, slots, pid, 0, ext, buf);
}

notrace u64 trace_pid_switch_slots(u64 slots, pid_t prev, pid_t next, const u64 **ext, u64 *buf)
{
	return pid_filter(PID_SWITCH, slots, prev, next, ext, buf);
}

notrace u64 trace_pid_wakeup_slots(u64 slots, pid_t waker, pid_t p, const u64 **ext, u64 *buf)
{
	return pid_filter(PID_WAKEUP, slots, waker, p, ext, buf);
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

/* word i of options/event-fork's slots: word 0 less its summary bit, then the extension words */
static notrace u64 event_fork_word(int i)
{
	return i ? trace_pid_control.event_fork_ext[i - 1] : trace_pid_control.event_fork & ~(1ULL << TRACE_SLOT_EXT);
}

/* the same of options/function-fork's */
static notrace u64 function_fork_word(int i)
{
	return i ? trace_pid_control.function_fork_ext[i - 1]
		 : trace_pid_control.function_fork & ~(1ULL << TRACE_SLOT_EXT);
}

/* trace_filter_add_remove_task(list, self, task): self is NULL for an exit */
notrace void trace_pid_follow_fork(struct task_struct *parent, struct task_struct *child)
{
	u64 functions, events;
	unsigned long flags;
	int i;

	flags = arch_local_irq_save();
	notrace_spin_lock(&trace_pid_lock);
	for (i = 0; i < TRACE_SLOT_WORDS; i++) {
		for (events = event_fork_word(i); events; events &= events - 1) {
			int s = i * 64 + __builtin_ctzll(events);

			if (trace_slots_test(&trace_pid_control.event_pids, trace_pid_control.event_pids_ext, s) &&
			    trace_pid_test(trace_pid_control.pids[s], parent->pid))
				pid_bit(trace_pid_control.pids[s], child->pid, true);
			if (trace_slots_test(&trace_pid_control.event_notrace_pids,
					     trace_pid_control.event_notrace_pids_ext, s) &&
			    trace_pid_test(trace_pid_control.notrace_pids[s], parent->pid))
				pid_bit(trace_pid_control.notrace_pids[s], child->pid, true);
		}
	}
	for (i = 0; i < TRACE_SLOT_WORDS; i++) {
		for (functions = function_fork_word(i); functions; functions &= functions - 1) {
			struct ftrace_slot_state *st = ftrace_slot_pids(i * 64 + __builtin_ctzll(functions));

			if (!st)
				continue;
			if (ftrace_pid_find(st->pids, st->nr_pids, parent->pid) >= 0)
				ftrace_pid_add(st->pids, &st->nr_pids, child->pid);
			if (ftrace_pid_find(st->notrace_pids, st->nr_notrace_pids, parent->pid) >= 0)
				ftrace_pid_add(st->notrace_pids, &st->nr_notrace_pids, child->pid);
		}
	}
	notrace_spin_unlock(&trace_pid_lock);
	arch_local_irq_restore(flags);
}

notrace void trace_pid_follow_free(struct task_struct *task)
{
	u64 functions, events;
	unsigned long flags;
	int i;

	flags = arch_local_irq_save();
	notrace_spin_lock(&trace_pid_lock);
	for (i = 0; i < TRACE_SLOT_WORDS; i++) {
		for (events = event_fork_word(i); events; events &= events - 1) {
			int s = i * 64 + __builtin_ctzll(events);

			if (trace_pid_control.pids[s])
				pid_bit(trace_pid_control.pids[s], task->pid, false);
			if (trace_pid_control.notrace_pids[s])
				pid_bit(trace_pid_control.notrace_pids[s], task->pid, false);
		}
	}
	for (i = 0; i < TRACE_SLOT_WORDS; i++) {
		for (functions = function_fork_word(i); functions; functions &= functions - 1) {
			struct ftrace_slot_state *st = ftrace_slot_pids(i * 64 + __builtin_ctzll(functions));

			if (!st)
				continue;
			ftrace_pid_remove(st->pids, st->nr_pids, task->pid);
			ftrace_pid_remove(st->notrace_pids, st->nr_notrace_pids, task->pid);
		}
	}
	notrace_spin_unlock(&trace_pid_lock);
	arch_local_irq_restore(flags);
}
