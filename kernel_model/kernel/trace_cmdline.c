/* The saved cmdlines (kernel/trace/trace.c's tracing_record_cmdline): pid -> comm. */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/trace/ring.h"

struct static_key trace_cmdline_key;
struct saved_cmdlines saved_cmdlines;

static notrace void tracing_record_cmdline(struct task_struct *tsk)
{
	struct saved_cmdlines *s = &saved_cmdlines;
	unsigned int i;

	if (!tsk->pid)	/* the idle tasks are always "<idle>" */
		return;
	for (i = 0; i < SAVED_CMDLINES; i++)
		if (s->entry[i].pid == tsk->pid)
			break;
	if (i == SAVED_CMDLINES) {
		i = s->next;
		s->next = (i + 1) % SAVED_CMDLINES;
	}
	/* the host reads pid after comm: a torn entry is never taken for a whole one */
	WRITE_ONCE(s->entry[i].pid, 0);
	memcpy(s->entry[i].comm, tsk->comm, TASK_COMM_LEN);
	WRITE_ONCE(s->entry[i].pid, tsk->pid);
}

/*
 * A task's new name (exec, PR_SET_NAME) while events are on: saved at once, and the rename
 * noted with its time.  Linux saves comms at switches only, but its event filters compare
 * current->comm as each event fires; here they run on the host as it drains the records,
 * and take a record's comm from what the guest saved: the task's name now, or before the
 * rename that came after the record (`comm == "ls"` sees a shell's child from its exec on,
 * not before it, nor only from its next switch).
 */
notrace void tracing_record_task_rename(struct task_struct *tsk, const char *comm_before)
{
	struct saved_cmdlines *s = &saved_cmdlines;
	struct comm_rename *r;
	unsigned long flags;

	if (!static_branch_unlikely(&trace_cmdline_key))
		return;
	spin_lock_irqsave(&sched_lock, flags);
	r = &s->renames[s->renames_next % COMM_RENAMES];
	WRITE_ONCE(r->pid, 0);	/* the host reads pid after the rest: a torn entry is not taken */
	r->ts = trace_clock_read(this_cpu());	/* as the records are stamped */
	memcpy(r->comm_before, comm_before, TASK_COMM_LEN);
	WRITE_ONCE(r->pid, tsk->pid);
	s->renames_next++;
	tracing_record_cmdline(tsk);
	spin_unlock_irqrestore(&sched_lock, flags);
}

/* As Linux: only when this cpu committed an event since its last save. */
notrace void tracing_record_taskinfo_sched_switch(struct task_struct *prev, struct task_struct *next)
{
	struct percpu *pc = this_cpu();

	if (!pc->trace_taskinfo_save)
		return;
	tracing_record_cmdline(prev);
	tracing_record_cmdline(next);
	pc->trace_taskinfo_save = 0;
}
