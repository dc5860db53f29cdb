/* The saved cmdlines (kernel/trace/trace.c's tracing_record_cmdline): pid -> comm. */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

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
 * A task's new name (exec, PR_SET_NAME), saved at once while events are on.  Linux saves
 * comms at switches only, but its event filters compare current->comm as the event fires;
 * here they run on the host as it drains the records, and take the task's name from what
 * the guest saved: without this an exec'd command's events until its next switch would be
 * filtered as its shell's (`comm == "ls"` missing most of ls).
 */
notrace void tracing_record_task_rename(struct task_struct *tsk)
{
	unsigned long flags;

	if (!static_branch_unlikely(&trace_cmdline_key))
		return;
	spin_lock_irqsave(&sched_lock, flags);
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
