/* Task exit, reaping and wait4. */
#include "../include/mempolicy.h"
#include "../include/syscalls.h"
#include "../include/pid.h"
#include "../include/blkdev.h"
#include "../include/trace/trace.h"
#include "../include/session.h"
#include "../include/perf_event.h"
#include "../include/signal.h"
#include "../include/cred.h"
#include "../include/uprobes.h"
#include "../include/nsproxy.h"
#include "../include/ipc.h"

int futex_wake(u32 *uaddr, unsigned int flags, int nr_wake, u32 bitset);
void futex_exit_release(struct task_struct *tsk);
void futex_exec_release(struct task_struct *tsk);

/* A task's last reference once no cpu can be looking at it. */
static void delayed_put_task_struct(struct rcu_head *rhp)
{
	struct task_struct *t = container_of(rhp, struct task_struct, rcu);

	trace_sched_process_free(t);
	if (t->stack)
		free_thread_stack(t->stack);
	put_task_struct(t);
}

noinline void put_task_struct_rcu_user(struct task_struct *t)
{
	call_rcu(&t->rcu, delayed_put_task_struct);
}

/*
 * 6.1's task usage count, for a dead task: a zombie's memory waits for its parent's reaping
 * (release_task) and for its own last switch away (finish_task_switch), in either order (a
 * parent told by SIGCHLD reaps it at once, maybe before it switched away); a task reaped at
 * once, for the switch only.  The last of them frees it after a grace period.
 */
notrace noinline void put_dead_task(struct task_struct *t)
{
	if (!__atomic_sub_fetch(&t->dead_refs, 1, __ATOMIC_ACQ_REL))
		put_task_struct_rcu_user(t);
}

noinline void release_task(struct task_struct *p)
{
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);
	if (p->signal && p->pid != p->tgid)	/* (__exit_signal(): the group keeps a thread's I/O) */
		task_io_accounting_add(&p->signal->ioac, &p->ioac);
	list_del_init(&p->tasks);
	list_del_init(&p->sibling);
	spin_unlock_irqrestore(&sched_lock, flags);
	detach_pid(p, PIDTYPE_PID);	/* __unhash_process() (past sched_lock: free_pid's call_rcu wakes) */
	put_dead_task(p);
}

/* With sched_lock held: a thread of tsk's group other than tsk that has not exited (a session
 * task's group has no signal_struct counting its threads: its members are found by tgid) */
static notrace bool group_has_live_thread(const struct task_struct *tsk)
{
	struct task_struct *t;

	list_for_each_entry(t, &task_list, tasks)
		if (t != tsk && t->tgid == tsk->tgid && !t->exit_state)
			return true;
	return false;
}

/* find_new_reaper(): a thread of the group that is not exiting (find_alive_thread()), else
 * init, which reaps them */
static notrace struct task_struct *find_new_reaper(struct task_struct *father)
{
	struct task_struct *t;

	list_for_each_entry(t, &task_list, tasks)
		if (t != father && t->tgid == father->tgid && !(t->flags & PF_EXITING))
			return t;
	return init_task_p;
}

/* Children of an exiting task go to another thread of its group, or to init. */
static notrace noinline void forget_original_parent(struct task_struct *father)
{
	struct task_struct *p, *n, *reaper;

	if (list_empty(&father->children))
		return;
	reaper = find_new_reaper(father);
	list_for_each_entry_safe(p, n, &father->children, sibling) {
		list_del_init(&p->sibling);
		task_set_parent(p, reaper);
		if (reaper && reaper != father)
			list_add_tail(&p->sibling, &reaper->children);
		else
			task_set_parent(p, NULL);
	}
}

/* The task leaves its address space (exit, exec): a CLONE_CHILD_CLEARTID word is zeroed and
 * its waiter woken (pthread_join), a vfork parent resumes. */
noinline void mm_release(struct task_struct *tsk, struct mm_struct *mm)
{
	int *tidptr = tsk->clear_child_tid;
	struct vfork_done *vfork = tsk->vfork_done;

	if (tidptr && mm) {
		tsk->clear_child_tid = NULL;
		if (mm->mm_users > 1 && !copy_to_user(tidptr, &(int){ 0 }, sizeof(int)))
			futex_wake((u32 *)tidptr, 1 /* FLAGS_SHARED */, 1, ~0U);
	}
	if (vfork) {	/* complete_vfork_done() */
		tsk->vfork_done = NULL;
		WRITE_ONCE(vfork->done, true);
		wake_up_process(vfork->parent);
	}
}

/* ... at exit, the robust futexes it held marked dead first; at exec, likewise */
noinline void exit_mm_release(struct task_struct *tsk, struct mm_struct *mm)
{
	futex_exit_release(tsk);
	mm_release(tsk, mm);
}

noinline void exec_mm_release(struct task_struct *tsk, struct mm_struct *mm)
{
	futex_exec_release(tsk);
	mm_release(tsk, mm);
}

/* The last switch away (kernel/sched/core.c): finish_task_switch frees what is left. */
noinline void __noreturn do_task_dead(void)
{
	local_irq_disable();
	current->__state = TASK_DEAD;
	schedule();
	panic("do_exit: dead task scheduled again");
}

/* The tasks asleep in wait4/waitid (6.1: each group's signal->wait_chldexit; one queue here,
 * where each sleeper's wake function takes the wake-ups of its own group's children only, so
 * a parent asleep in anything else is left asleep) */
static struct wait_queue_head wait_chldexit = {
	.lock = __SPIN_LOCK_UNLOCKED,
	.head = LIST_HEAD_INIT(wait_chldexit.head),
};

/* child_wait_callback(): the key is the parent whose child changed */
static noinline int child_wait_callback(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	const struct task_struct *waiter = wait->private, *parent = key;

	if (waiter->tgid != parent->tgid)
		return 0;
	return default_wake_function(wait, mode, sync, key);
}

/* A parent told a child of its is reapable: the waits of its group look again (kthreadd
 * reaps the programs it started in its own loop: it is woken itself) */
static noinline void __wake_up_parent(struct task_struct *p, struct task_struct *parent)
{
	if (parent == kthreadd_task)
		wake_up_process(parent);
	else
		__wake_up_sync_key(&wait_chldexit, TASK_INTERRUPTIBLE, parent);
}

/* Whether the process (the thread group pid leads) has exited, every thread of it: a pidfd is
 * readable then */
noinline bool thread_group_exited(struct pid *pid)
{
	struct task_struct *task = pid_task(pid, PIDTYPE_PID);

	return !task || (READ_ONCE(task->exit_state) && (!task->signal || !READ_ONCE(task->signal->nr_threads)));
}

/* its pidfds' pollers */
static __always_inline void do_notify_pidfd(struct pid *pid)
{
	__wake_up(&pid->wait_pidfd, TASK_NORMAL, 0, NULL);	/* wake_up_all() */
}

void __noreturn do_exit(long code)
{
	struct task_struct *tsk = current, *parent;
	bool thread = tsk->exit_signal == -1, group_dead = true, autoreap;
	struct pid *pidfd_pid;
	unsigned long flags;

	exit_signals(tsk);	/* sets PF_EXITING */
	/* sync mm's RSS info before statistics gathering */
	if (tsk->mm)
		sync_mm_rss(tsk->mm);
	tsk->exit_code = code;
	exit_mm_release(tsk, tsk->mm);	/* exit_mm() */
	/* The pid whose pidfds learn of the group's end: held from before this thread leaves the
	 * group's count, so no parent reaps it away meanwhile (6.1 notifies under tasklist_lock
	 * before the zombie can be seen; here the notification comes past sched_lock). */
	pidfd_pid = get_pid(task_pid(thread ? tsk->group_leader : tsk));
	if (tsk->signal)
		group_dead = !__atomic_sub_fetch(&tsk->signal->nr_threads, 1, __ATOMIC_ACQ_REL);
	if (tsk->signal && group_dead) {
		itimer_exit(tsk->signal);	/* the group's ITIMER_REAL goes with it */
		exit_itimers(tsk);		/* and its POSIX timers */
	}
	trace_sched_process_exit(tsk);
	if (tsk->session)
		session_task_exit(tsk);
	exit_sem(tsk);
	exit_files(tsk);
	exit_fs(tsk);
	exit_task_namespaces(tsk);
	if (tsk->io_context)
		exit_io_context(tsk);
	mpol_put_task_policy(tsk);
	perf_event_exit_task(tsk);
	uprobe_free_utask(tsk);
	spin_lock_irqsave(&sched_lock, flags);
	if (!tsk->signal)	/* (a session task's group: its threads' ends are ordered by this lock) */
		group_dead = !group_has_live_thread(tsk);
	forget_original_parent(tsk);
	parent = tsk->parent;
	/*
	 * A child stays a zombie until its parent's wait4, as in Linux for a parent
	 * that does not ignore SIGCHLD.  kthreadd stands in for the shell that
	 * `exec` runs programs from, so it waits for them too; other kernel
	 * threads ignore signals, and their children are reaped at once.
	 */
	/* a thread is reaped at once; its group's leader waits for the last of them */
	tsk->exit_state = !thread && parent && (parent->mm || parent == kthreadd_task) ? EXIT_ZOMBIE : EXIT_DEAD;
	tsk->dead_refs = tsk->exit_state == EXIT_ZOMBIE ? 2 : 1;
	autoreap = tsk->exit_state == EXIT_DEAD;
	if (autoreap) {	/* (6.1: release_task(), past the lock) */
		list_del_init(&tsk->sibling);
		list_del_init(&tsk->tasks);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	if (group_dead && pidfd_pid)
		do_notify_pidfd(pidfd_pid);
	put_pid(pidfd_pid);
	if (autoreap)
		detach_pid(tsk, PIDTYPE_PID);
	if (tsk->signal && tsk->signal->group_exec_task)	/* de_thread() waits for us */
		wake_up_process(tsk->signal->group_exec_task);
	if (!thread && parent && (parent->signal || parent->session) && tsk->exit_signal > 0 && group_dead)
		do_notify_parent(tsk, tsk->exit_signal);
	if (parent && tsk->exit_state == EXIT_ZOMBIE)
		__wake_up_parent(tsk, parent);
	else if (thread && group_dead && tsk->group_leader->exit_state == EXIT_ZOMBIE && parent) {
		do_notify_parent(tsk->group_leader, tsk->group_leader->exit_signal);
		__wake_up_parent(tsk->group_leader, parent);	/* the leader can be reaped now */
	}
	do_task_dead();
}

/* exit_group(), or a fatal signal: the whole thread group ends with this code */
void __noreturn do_group_exit(int exit_code)
{
	struct signal_struct *sig = current->signal;

	if (sig && (sig->flags & SIGNAL_GROUP_EXIT)) {
		exit_code = sig->group_exit_code;
	} else if (sig && sig->group_exec_task) {
		exit_code = 0;	/* another thread execs: only this one goes */
	} else if (sig && sig->nr_threads > 1) {
		sig->group_exit_code = exit_code;
		sig->flags |= SIGNAL_GROUP_EXIT;
		zap_other_threads(current);
	}
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

/* A zombie wait4 can reap now (maybe still switching away: put_dead_task()), unless a group
 * leader whose threads live on (delay_group_leader(): a leader that called pthread_exit, or
 * whose other thread execs). */
static __always_inline bool reapable(const struct task_struct *p)
{
	return p->exit_state == EXIT_ZOMBIE && (p->signal ? !p->signal->nr_threads : !group_has_live_thread(p));
}

/* A child that wait4 can reap now (kthreadd sleeps until it has one: a zombie leader of live
 * threads counted here kept it looping). */
notrace bool has_reapable_child(void)
{
	struct task_struct *p;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(p, &current->children, sibling)
		if (reapable(p))
			found = true;
	spin_unlock_irqrestore(&sched_lock, flags);
	return found;
}

/* wait4's pid: one child (> 0: the task of wo_pid, the caller's find_get_pid()), any (-1),
 * those of our process group (0) or of group -pid (process groups are numbers here) */
static inline bool eligible_pid(struct task_struct *p, pid_t pid, struct pid *wo_pid)
{
	if (pid > 0)
		return task_pid(p) == wo_pid;
	if (pid == 0)
		return p->pgrp == current->pgrp;
	return pid == -1 || p->pgrp == -pid;
}

/* eligible_child(): ... and with __WALL any child, else a "clone" child (one whose exit signal
 * is not SIGCHLD) with __WCLONE only, the others without it */
static inline bool wait_eligible(struct task_struct *p, pid_t pid, struct pid *wo_pid, int options)
{
	return eligible_pid(p, pid, wo_pid) &&
	       ((options & __WALL) || (p->exit_signal != SIGCHLD) == !!(options & __WCLONE));
}

/* do_wait()'s threads after t: the caller's own children first, then (without __WNOTHREAD)
 * those of the other threads of its group, in the task list's order; NULL past the last */
static notrace struct task_struct *next_wait_thread(struct task_struct *t, int options)
{
	struct list_head *pos = t == current ? task_list.next : t->tasks.next;

	if (options & __WNOTHREAD)
		return NULL;
	for (; pos != &task_list; pos = pos->next) {
		struct task_struct *n = list_entry(pos, struct task_struct, tasks);

		if (n != current && n->tgid == current->tgid)
			return n;
	}
	return NULL;
}

#define for_each_wait_thread(t, options) for (t = current; t; t = next_wait_thread(t, options))

#define WNOWAIT		0x01000000	/* waitid: leave the child waitable */

/* With sched_lock held: whether wait takes child p (its pid, its status and uid given, its
 * times folded into ours unless WNOWAIT: wait_task_zombie()), 0 if not (*any: p is one it
 * waits for); the caller releases it. */
static noinline long wait_consider_task(struct task_struct *p, pid_t pid, struct pid *wo_pid, int *status,
					uid_t *uid, bool *any, int options)
{
	if (!wait_eligible(p, pid, wo_pid, options))
		return 0;
	*any = true;
	if (!reapable(p))
		return 0;
	*status = p->exit_code;
	*uid = __task_cred(p)->uid;
	if (!(options & WNOWAIT) && current->signal && p->signal) {
		struct signal_struct *psig = current->signal, *sig = p->signal;

		psig->cutime += p->utime + sig->cutime;
		psig->cstime += p->stime + sig->cstime;
		psig->cmin_flt += p->min_flt + sig->cmin_flt;
		psig->cmaj_flt += p->maj_flt + sig->cmaj_flt;
		psig->cnvcsw += p->nvcsw + sig->cnvcsw;
		psig->cnivcsw += p->nivcsw + sig->cnivcsw;
		/* its I/O, and its reaped children's, becomes the parent's (/proc/PID/io) */
		task_io_accounting_add(&psig->ioac, &p->ioac);
		task_io_accounting_add(&psig->ioac, &sig->ioac);
	}
	return p->pid;
}

/*
 * A session task's wait takes the children whose host processes ended in the order they ended
 * (their EXIT records' places in the ring), as its host call did: the replay of a later end can
 * come first (each task's records are replayed on their own), and a WNOHANG wait takes none
 * that ended after the call was made.  With sched_lock held: whether the wait leaves reapable
 * child p for later; first: the child whose end came first of those it may take.
 */
static __always_inline bool session_wait_holds(struct task_struct *p, struct task_struct *first, int options)
{
	return current->session && p->session_exit_seq &&
	       (((options & WNOHANG) && p->session_exit_seq > current->session->call_seq) || (first && p != first));
}

static __always_inline struct task_struct *session_wait_first(pid_t pid, struct pid *wo_pid, int options)
{
	struct task_struct *t, *p, *first = NULL;

	if (!current->session)
		return NULL;
	for_each_wait_thread(t, options)
		list_for_each_entry(p, &t->children, sibling)
			if (wait_eligible(p, pid, wo_pid, options) && reapable(p) &&
			    !session_wait_holds(p, NULL, options) && p->session_exit_seq &&
			    (!first || p->session_exit_seq < first->session_exit_seq))
				first = p;
	return first;
}

/* do_wait_thread(): returns the pid of a reaped child (WNOWAIT: one left as it is), 0 if none
 * exited yet. */
static __always_inline long wait_consider_children(pid_t pid, struct pid *wo_pid, int *status, uid_t *uid,
						   bool *any, int options)
{
	struct task_struct *t, *p, *first;
	unsigned long flags;
	long ret;

	spin_lock_irqsave(&sched_lock, flags);
	first = session_wait_first(pid, wo_pid, options);
	for_each_wait_thread(t, options) {
		list_for_each_entry(p, &t->children, sibling) {
			if (wait_eligible(p, pid, wo_pid, options) && reapable(p) &&
			    session_wait_holds(p, first, options)) {
				*any = true;	/* (its turn comes later) */
				continue;
			}
			ret = wait_consider_task(p, pid, wo_pid, status, uid, any, options);
			if (ret) {
				spin_unlock_irqrestore(&sched_lock, flags);
				if (!(options & WNOWAIT))
					release_task(p);
				return ret;
			}
		}
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	return 0;
}

/*
 * A session task's wait whose host call returned while no child it waits for has anything left
 * to replay here: what ended the host's wait is no exit this kernel will see (a tracee's ptrace
 * stop, a stopped child, a signal), so waiting on would hold the task -- and every later call
 * of its process -- for good.  A child's exit that ended it is among the child's queued records
 * (they came through the ring before the waiter's next one), so a busy child is waited for:
 * one with records queued, or running a call.  A child asleep in a call with nothing queued
 * waits for its host's call (a tracee stopped in it: strace), which no exit here can come
 * before.  Returns 1 when the wait is over, 0 when it goes on, -1 when it goes on only for a
 * busy child (which wakes no one when it falls asleep: look again soon).
 */
static notrace noinline int session_wait_is_over(pid_t pid, struct pid *wo_pid, int options)
{
	struct task_struct *t, *p;
	unsigned long flags;
	bool busy = false;

	if (!session_host_moved_on(current))
		return 0;
	spin_lock_irqsave(&sched_lock, flags);
	for_each_wait_thread(t, options)
		list_for_each_entry(p, &t->children, sibling) {
			struct session_task *st = p->session;

			if (!wait_eligible(p, pid, wo_pid, options))
				continue;
			if (st && (!list_empty(&st->queue) || (st->entered && READ_ONCE(p->__state) == TASK_RUNNING)))
				busy = true;
		}
	spin_unlock_irqrestore(&sched_lock, flags);
	return busy ? -1 : 1;
}

/* do_wait()'s loop: a child taken, or none to wait for, or a signal (the caller is on
 * wait_chldexit, where a child's end wakes it) */
static __always_inline long do_wait_loop(pid_t pid, struct pid *wo_pid, int *status, uid_t *uid, int options)
{
	for (;;) {
		bool any = false;
		long ret;

		*status = 0;
		set_current_state(TASK_INTERRUPTIBLE);
		ret = wait_consider_children(pid, wo_pid, status, uid, &any, options);
		if (!ret && !any && current->session && session_older_records_of_mm(current)) {
			schedule_timeout(1);	/* a thread's clone of the child may be among them */
			continue;
		}
		if (!ret && any && fatal_signal_pending(current)) {
			set_current_state(TASK_RUNNING);
			return -EINTR;
		}
		if (!ret && any && !(options & WNOHANG) && signal_pending(current)) {
			set_current_state(TASK_RUNNING);
			return -ERESTARTSYS;
		}
		if (!ret && any && !(options & WNOHANG)) {
			int over = session_wait_is_over(pid, wo_pid, options);

			if (over > 0) {
				set_current_state(TASK_RUNNING);
				return 0;	/* (the host's result is not known here) */
			}
			if (over < 0) {
				schedule_timeout(1);
				continue;
			}
		}
		if (ret || !any || (options & WNOHANG)) {
			set_current_state(TASK_RUNNING);
			return any ? ret : -ECHILD;
		}
		schedule();
	}
}

/* The wait of wait4 and waitid: the child's pid and its wait status in *status (inlined into
 * do_wait and kernel_waitid). */
static __always_inline long do_wait_status(pid_t pid, struct pid *wo_pid, int *status, uid_t *uid, int options)
{
	struct wait_queue_entry wait = { .private = current, .func = child_wait_callback };
	long ret;

	trace_sched_process_wait(pid > 0 ? pid_nr(wo_pid) : pid < -1 ? -pid : 0);	/* pid_nr(wo_pid) */
	INIT_LIST_HEAD(&wait.entry);
	add_wait_queue(&wait_chldexit, &wait);
	ret = do_wait_loop(pid, wo_pid, status, uid, options);
	remove_wait_queue(&wait_chldexit, &wait);
	return ret;
}

long do_wait(pid_t pid, struct pid *wo_pid, int *ustatus, int options)
{
	int status;
	uid_t uid;
	long ret = do_wait_status(pid, wo_pid, &status, &uid, options);

	if (ret > 0 && ustatus && copy_to_user(ustatus, &status, sizeof(status)))
		return -EFAULT;
	return ret;
}

/* ---- waitid (kernel_waitid): children that exited only (no stop or continue is modelled) ---- */
#define P_ALL		0
#define P_PID		1
#define P_PGID		2
#define P_PIDFD		3
#define WSTOPPED	0x00000002
#define WEXITED		0x00000004
#define WCONTINUED	0x00000008
#define CLD_EXITED	1
#define CLD_KILLED	2
#define CLD_DUMPED	3

struct waitid_info { int si_signo, si_errno, si_code, pad; int pid; unsigned int uid; int status; };

static noinline long kernel_waitid(int which, pid_t upid, struct waitid_info *infop, int options)
{
	unsigned int f_flags = 0;
	struct pid *pid = NULL;
	int status;
	uid_t uid;
	long ret;

	const int wait_options = options;

	if (options & ~(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	if (!(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	switch (which) {
	case P_ALL:
		upid = -1;
		break;
	case P_PID:
		if (upid <= 0)
			return -EINVAL;
		pid = find_get_pid(upid);
		break;
	case P_PGID:
		if (upid < 0)
			return -EINVAL;
		upid = upid ? -upid : -current->pgrp;
		if (upid == 0 || upid == -1)
			upid = 0;	/* the caller's group, when its id is 0 or 1 */
		break;
	case P_PIDFD:
		if (upid < 0)
			return -EINVAL;
		pid = pidfd_get_pid(upid, &f_flags);
		if (IS_ERR(pid))
			return PTR_ERR(pid);
		upid = pid_nr(pid);	/* (its task's, while the pid has one) */
		if (f_flags & O_NONBLOCK)
			options |= WNOHANG;
		break;
	default:
		return -EINVAL;
	}
	memset(infop, 0, sizeof(*infop));
	if (!(options & WEXITED)) {
		put_pid(pid);
		return (options & WNOHANG) ? 0 : -ECHILD;	/* waits for a stop or a continue: none come */
	}
	ret = do_wait_status(upid, pid, &status, &uid, options);
	put_pid(pid);
	if (!ret && (f_flags & O_NONBLOCK) && !(wait_options & WNOHANG))
		return -EAGAIN;	/* a pidfd opened PIDFD_NONBLOCK: the child has not exited */
	if (ret <= 0)
		return ret;
	infop->si_signo = SIGCHLD;
	infop->pid = ret;
	infop->uid = uid;
	if ((status & 0x7f) == 0) {
		infop->si_code = CLD_EXITED;
		infop->status = (status >> 8) & 0xff;
	} else {
		infop->si_code = (status & 0x80) ? CLD_DUMPED : CLD_KILLED;
		infop->status = status & 0x7f;
	}
	return ret;
}

struct siginfo;
SYSCALL_DEFINE5(waitid, int, which, pid_t, upid, struct siginfo *, infop, int, options, struct rusage *, ru)
{
	struct waitid_info info;
	long err = kernel_waitid(which, upid, &info, options);

	if (err < 0)
		return err;
	/* what 6.1 puts there: si_signo, si_errno, si_code, then the sigchld union's pid, uid and
	 * status (offsets 16..27); the rest of the siginfo is left as it was */
	if (infop && (copy_to_user(infop, &info, 12) || copy_to_user((char *)infop + 16, &info.pid, 12)))
		return -EFAULT;
	return 0;
}

#define WUNTRACED	0x00000002
noinline long kernel_wait4(pid_t upid, int *stat_addr, int options, struct rusage *ru)
{
	struct pid *pid = NULL;
	long ret;

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	if (upid == (pid_t)0x80000000)	/* -INT_MIN is not defined */
		return -ESRCH;
	if (upid > 0)
		pid = find_get_pid(upid);
	ret = do_wait(upid, pid, stat_addr, options);
	put_pid(pid);
	return ret;
}

SYSCALL_DEFINE4(wait4, pid_t, upid, int *, stat_addr, int, options, struct rusage *, ru)
{
	return kernel_wait4(upid, stat_addr, options, ru);
}
