/*
 * The pid lists of every trace array, as the guest keeps them
 * (kernel/trace/trace.c trace_pid_list, trace_events.c, ftrace.c).
 *
 * set_event_pid / set_event_notrace_pid are bitmaps the host writes and the
 * guest reads when it reserves an event's record (trace_event_buffer_reserve),
 * so a record is kept or not by the lists at the time it is written, as Linux's
 * per-cpu ignore_pid does.  A slot's bit in event_pids / event_notrace_pids
 * says the list exists; an existing list left empty (its last task freed)
 * still filters, as a non-NULL empty trace_pid_list does.
 *
 * options/event-fork and options/function-fork (event_fork, function_fork):
 * at fork, a child of a listed task joins the list; at free, the task leaves
 * it (sched_process_fork / sched_process_free probes).  The guest does it
 * itself, so the host runs nothing per fork; the host reads the lists back
 * when set_event_pid / set_ftrace_pid are read.  The static asserts pin the
 * layout the host mirrors (src/tracefs_sim/machine/trace_pids.py).
 */
#ifndef _TRACE_TRACE_PID_H
#define _TRACE_TRACE_PID_H
#include "../kernel.h"
#include "ring.h"

#define TRACE_PID_MAX		32768	/* alloc_pid() hands out pids below this */
#define TRACE_PID_WORDS		(TRACE_PID_MAX / 64)
#define TRACE_EVENT_FIRST_TYPE	20	/* below: the function tracers' record types */

struct trace_pid_bits { u64 word[TRACE_PID_WORDS]; };

/*
 * The event masks are sets of slots (include/trace/slots.h): word 0 here, its TRACE_SLOT_EXT
 * set while an extension word is not 0; the extension words at the end.
 */
struct trace_pid_control {
	volatile u64 event_pids;		/* host: bit s: slot s has a set_event_pid list */
	volatile u64 event_notrace_pids;	/* host: bit s: slot s has a set_event_notrace_pid list */
	volatile u64 event_fork;		/* host: bit s: options/event-fork of slot s */
	volatile u64 function_fork;		/* host: bit s: options/function-fork of slot s */
	/* each slot's bitmaps: slot 0's static, an instance's allocated with its rings
	 * (trace_slot_alloc()); NULL: no such instance */
	struct trace_pid_bits *pids[TRACE_SLOTS];
	struct trace_pid_bits *notrace_pids[TRACE_SLOTS];
	volatile u64 event_pids_ext[TRACE_EXT_WORDS];
	volatile u64 event_notrace_pids_ext[TRACE_EXT_WORDS];
	volatile u64 event_fork_ext[TRACE_EXT_WORDS];
	volatile u64 function_fork_ext[TRACE_EXT_WORDS];
};

_Static_assert(sizeof(struct trace_pid_bits) == 4096, "trace_pid_bits layout");
_Static_assert(offsetof(struct trace_pid_control, pids) == 32, "trace_pid_control layout");

extern struct trace_pid_control trace_pid_control;

static __always_inline bool trace_pid_test(const struct trace_pid_bits *b, pid_t pid)
{
	return (u32)pid < TRACE_PID_MAX && (b->word[(u32)pid / 64] >> ((u32)pid % 64) & 1);
}

/*
 * The slots among `slots` whose event pid lists let `pid`'s events through.  The slots past
 * word 0 (its TRACE_SLOT_EXT set in slots and in a list mask): *ext, the event's extension
 * words (NULL: none), becomes buf, those of them that the lists let through.
 */
u64 trace_pid_event_slots(u64 slots, pid_t pid, const u64 **ext, u64 *buf);

/* The slots among `slots` that record a sched_switch from prev to next (*ext: as above). */
u64 trace_pid_switch_slots(u64 slots, pid_t prev, pid_t next, const u64 **ext, u64 *buf);

/* The slots among `slots` that record a wake-up of p by current (*ext: as above). */
u64 trace_pid_wakeup_slots(u64 slots, pid_t waker, pid_t p, const u64 **ext, u64 *buf);

static __always_inline bool trace_pid_lists_in(u64 slots)
{
	return unlikely(slots & (trace_pid_control.event_pids | trace_pid_control.event_notrace_pids));
}

static __always_inline pid_t trace_pid_current(struct percpu *pc)
{
	return pc->curr_task ? pc->curr_task->pid : 0;
}

/*
 * trace_event_buffer_reserve()'s pid check: the slots that record this task's
 * event.  Linux reads a per-cpu ignore_pid its sched_switch probes set for
 * the next task; testing the current task here decides the same.  *ext: the
 * event's extension words, replaced by buf (TRACE_EXT_WORDS) when lists of
 * slots past word 0 take some out.
 */
static __always_inline u64 trace_pid_filter_event(struct percpu *pc, u64 slots, const u64 **ext, u64 *buf)
{
	if (trace_pid_lists_in(slots))
		slots = trace_pid_event_slots(slots, trace_pid_current(pc), ext, buf);
	return slots;
}

/* trace_pid_filter_event() for a writer without extension words (word 0's slots; its summary bit kept) */
static __always_inline u64 trace_pid_filter_word0(struct percpu *pc, u64 slots)
{
	const u64 *none = NULL;

	return trace_pid_filter_event(pc, slots, &none, NULL);
}

/* every extension slot: the extension words a writer with triggers filters (its ~0ULL's) */
extern const u64 trace_ext_all[TRACE_EXT_WORDS];

/* The check for sched_switch (current is prev): either task's lists may keep it. */
static __always_inline u64 trace_pid_filter_switch(u64 slots, struct task_struct *prev,
						   struct task_struct *next, const u64 **ext, u64 *buf)
{
	if (trace_pid_lists_in(slots))
		slots = trace_pid_switch_slots(slots, prev->pid, next->pid, ext, buf);
	return slots;
}

/*
 * The check for sched_waking / sched_wakeup / sched_wakeup_new
 * (event_filter_pid_sched_wakeup_probe_pre): kept where the waker's lists or
 * the woken task's keep it.
 */
static __always_inline u64 trace_pid_filter_wakeup(struct percpu *pc, u64 slots, struct task_struct *p,
						   const u64 **ext, u64 *buf)
{
	if (trace_pid_lists_in(slots))
		slots = trace_pid_wakeup_slots(slots, trace_pid_current(pc), p->pid, ext, buf);
	return slots;
}

void trace_pid_follow_fork(struct task_struct *parent, struct task_struct *child);
void trace_pid_follow_free(struct task_struct *task);

/* One branch on the fork and free paths while no trace array follows forks. */
static __always_inline void trace_pid_fork(struct task_struct *parent, struct task_struct *child)
{
	if (unlikely(trace_pid_control.event_fork | trace_pid_control.function_fork))
		trace_pid_follow_fork(parent, child);
}

static __always_inline void trace_pid_free(struct task_struct *task)
{
	if (unlikely(trace_pid_control.event_fork | trace_pid_control.function_fork))
		trace_pid_follow_free(task);
}
#endif
