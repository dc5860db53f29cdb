/* Task exit, reaping and wait4. */
#include "../include/syscalls.h"
#include "../include/trace/trace.h"
#include "../include/session.h"
#include "../include/perf_event.h"

/* A task's last reference once no cpu can be looking at it. */
static void delayed_put_task_struct(struct rcu_head *rhp)
{
	struct task_struct *t = container_of(rhp, struct task_struct, rcu);

	trace_sched_process_free(t);
	if (t->stack)
		free_thread_stack(t->stack);
	put_task_struct(t);
}

void put_task_struct_rcu_user(struct task_struct *t)
{
	call_rcu(&t->rcu, delayed_put_task_struct);
}

static noinline void release_task(struct task_struct *p)
{
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);
	list_del_init(&p->tasks);
	list_del_init(&p->sibling);
	spin_unlock_irqrestore(&sched_lock, flags);
	put_task_struct_rcu_user(p);
}

/* Children of an exiting task go to init, which reaps them. */
static noinline void forget_original_parent(struct task_struct *father)
{
	struct task_struct *p, *n, *reaper = init_task_p;

	list_for_each_entry_safe(p, n, &father->children, sibling) {
		list_del_init(&p->sibling);
		p->parent = reaper;
		if (reaper && reaper != father)
			list_add_tail(&p->sibling, &reaper->children);
		else
			p->parent = NULL;
	}
}

void __noreturn do_exit(long code)
{
	struct task_struct *tsk = current, *parent;
	unsigned long flags;

	tsk->flags |= PF_EXITING;
	tsk->exit_code = code;
	trace_sched_process_exit(tsk);
	if (tsk->session)
		session_task_exit(tsk);
	exit_files(tsk);
	exit_fs(tsk);
	perf_event_exit_task(tsk);
	spin_lock_irqsave(&sched_lock, flags);
	forget_original_parent(tsk);
	parent = tsk->parent;
	/*
	 * A child stays a zombie until its parent's wait4, as in Linux for a parent
	 * that does not ignore SIGCHLD.  kthreadd stands in for the shell that
	 * `exec` runs programs from, so it waits for them too; other kernel
	 * threads ignore signals, and their children are reaped at once.
	 */
	tsk->exit_state = parent && (parent->mm || parent == kthreadd_task) ? EXIT_ZOMBIE : EXIT_DEAD;
	if (tsk->exit_state == EXIT_DEAD) {
		list_del_init(&tsk->sibling);
		list_del_init(&tsk->tasks);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	if (parent && tsk->exit_state == EXIT_ZOMBIE)
		wake_up_process(parent);
	/* do_task_dead: finish_task_switch frees what is left */
	local_irq_disable();
	tsk->__state = TASK_DEAD;
	schedule();
	panic("do_exit: dead task scheduled again");
}

void __noreturn do_group_exit(int exit_code)
{
	do_exit(exit_code);
}

SYSCALL_DEFINE1(exit, int, error_code)
{
	do_exit((error_code & 0xff) << 8);
}

SYSCALL_DEFINE1(exit_group, int, error_code)
{
	do_group_exit((error_code & 0xff) << 8);
}

/* A child that wait4 can reap now. */
bool has_reapable_child(void)
{
	struct task_struct *p;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(p, &current->children, sibling)
		if (p->exit_state == EXIT_ZOMBIE && !p->on_cpu)
			found = true;
	spin_unlock_irqrestore(&sched_lock, flags);
	return found;
}

/* Returns the pid of a reaped child, 0 if none exited yet, <0 on error. */
static noinline long wait_consider_children(pid_t pid, int *status, bool *any)
{
	struct task_struct *p, *n;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry_safe(p, n, &current->children, sibling) {
		if (pid > 0 && p->pid != pid)
			continue;
		*any = true;
		if (p->exit_state == EXIT_ZOMBIE && !p->on_cpu) {
			pid_t ret = p->pid;
			*status = p->exit_code;
			spin_unlock_irqrestore(&sched_lock, flags);
			release_task(p);
			return ret;
		}
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	return 0;
}

long do_wait(pid_t pid, int *ustatus, int options)
{
	trace_sched_process_wait(pid > 0 ? pid : pid < -1 ? -pid : 0);	/* pid_nr(wo_pid) */
	for (;;) {
		bool any = false;
		int status = 0;
		long ret;

		set_current_state(TASK_INTERRUPTIBLE);
		ret = wait_consider_children(pid, &status, &any);
		if (!ret && any && fatal_signal_pending(current)) {
			set_current_state(TASK_RUNNING);
			return -EINTR;
		}
		if (ret || !any || (options & WNOHANG)) {
			set_current_state(TASK_RUNNING);
			if (!any)
				return -ECHILD;
			if (ret > 0 && ustatus && copy_to_user(ustatus, &status, sizeof(status)))
				return -EFAULT;
			return ret;
		}
		schedule();
	}
}

SYSCALL_DEFINE4(wait4, pid_t, upid, int *, stat_addr, int, options, struct rusage *, ru)
{
	if (options & ~(WNOHANG | 2 | 0x40000000))
		return -EINVAL;
	return do_wait(upid, stat_addr, options);
}
