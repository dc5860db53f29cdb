/* Task creation: kernel_clone for fork(2)/clone(2) and kernel threads. */
#include "../include/fs.h"
#include "../include/pid.h"
#include "../include/syscalls.h"
#include "../include/blkdev.h"
#include "../include/trace/trace.h"
#include "../include/trace/trace_pid.h"
#include "../include/session.h"
#include "../include/uprobes.h"
#include "../include/perf_event.h"
#include "../include/signal.h"
#include "../include/ipc.h"
#include "../include/mempolicy.h"
#include "../include/ptrace.h"
#include "../include/cred.h"
#include "../include/security.h"
#include "../include/poll.h"
#include "../include/nsproxy.h"

#define CSIGNAL		0x000000ff	/* the exit signal, not a flag */
#define CLONE_VM	0x00000100
#define CLONE_FS	0x00000200
#define CLONE_FILES	0x00000400
#define CLONE_SIGHAND	0x00000800
#define CLONE_PIDFD	0x00001000
#define CLONE_PTRACE	0x00002000
#define CLONE_VFORK	0x00004000
#define CLONE_PARENT	0x00008000
#define CLONE_THREAD	0x00010000
#define CLONE_SYSVSEM	0x00040000
#define CLONE_SETTLS	0x00080000
#define CLONE_PARENT_SETTID	0x00100000
#define CLONE_CHILD_CLEARTID	0x00200000
#define CLONE_DETACHED	0x00400000
#define CLONE_UNTRACED	0x00800000
#define CLONE_CHILD_SETTID	0x01000000
#define CLONE_IO	0x80000000UL
#define SIGCHLD 17
/* kthreadd's kernel threads: kernel_thread(fn, arg, CLONE_FS | CLONE_FILES | SIGCHLD) */
#define KTHREAD_CLONE_FLAGS (CLONE_VM | CLONE_UNTRACED | CLONE_FS | CLONE_FILES)

static struct kmem_cache *task_struct_cachep;

void __init fork_init(void)
{
	task_struct_cachep = kmem_cache_create("task_struct", sizeof(struct task_struct), 64,
					       SLAB_PANIC | SLAB_ACCOUNT, NULL);
	proc_caches_init();
}

notrace struct task_struct *alloc_task(void)
{
	struct task_struct *t = kmem_cache_zalloc(task_struct_cachep, GFP_KERNEL);

	if (!t)
		return NULL;
	t->prio = DEFAULT_PRIO;
	t->timer_slack_ns = t->default_timer_slack_ns = 50000;	/* (init's: the others' come from their parent) */
	INIT_LIST_HEAD(&t->children);
	INIT_LIST_HEAD(&t->sibling);
	INIT_LIST_HEAD(&t->tasks);
	INIT_LIST_HEAD(&t->run_list);
	return t;
}

/* A dead task's stack freed once it switched away for the last time (6.1 counts the stack's
 * references, for /proc readers of it too: the task's own is the only one here) */
noinline void put_task_stack(struct task_struct *tsk)
{
	free_thread_stack(tsk->stack);	/* release_task_stack() */
	tsk->stack = NULL;
}

/* The task's own memory freed, its last reference gone (its stack went at its exit) */
static noinline void free_task(struct task_struct *tsk)
{
	kmem_cache_free(task_struct_cachep, tsk);	/* free_task_struct() */
}

noinline void __put_task_struct(struct task_struct *t)
{
	security_task_free(t);	/* __put_task_struct */
	if (t->real_cred)	/* (not on a fork that failed before copy_creds) */
		exit_creds(t);
	release_signal(t);
	if (t->pid)	/* a task that got a pid: sched_process_free's place */
		trace_pid_free(t);
	free_task(t);
}

/* Lay out the new task's stack: switch frame returning to ret_from_fork, then pt_regs; the
 * FPU state (not for a session's task: its host process's) and the FS base. */
static noinline struct pt_regs *copy_thread(struct task_struct *p, unsigned long clone_flags, struct pt_regs *src,
					    int (*fn)(void *), void *arg)
{
	extern char ret_from_fork[];
	struct pt_regs *regs = (struct pt_regs *)((char *)p->stack + THREAD_SIZE) - 1;
	u64 *frame = (u64 *)regs - 7;

	if (src)
		*regs = *src;
	else
		memset(regs, 0, sizeof(*regs));
	regs->ax = 0;
	memset(frame, 0, 7 * sizeof(u64));
	frame[6] = (u64)ret_from_fork;	/* return address of __switch_to */
	frame[4] = (u64)fn;		/* %rbx */
	frame[3] = (u64)arg;		/* %r12 */
	p->thread.sp = (u64)frame;
	if (src || fn) {
		fpu_clone(p, clone_flags, !current->mm);
		p->thread.fsbase = current->thread.fsbase;
	}
	return regs;
}

/* The task's address space, a reference held (NULL for a kernel thread, or one that is exiting:
 * 6.1's exit_mm() has cleared its mm by then) */
/* The file the address space runs from now (exec's begin_new_exec; NULL: none, at its end), with
 * a reference of its own; the old one's dropped.  (6.1 also denies writes to the new one for as
 * long, exe_file_deny_write_access: not modelled, exec's file stays writable here.) */
noinline int set_mm_exe_file(struct mm_struct *mm, struct file *new_exe_file)
{
	struct file *old_exe_file = mm->exe_file;

	if (new_exe_file)
		get_file(new_exe_file);
	WRITE_ONCE(mm->exe_file, new_exe_file);
	if (old_exe_file)
		fput(old_exe_file);
	return 0;
}

/* The file the address space runs (its exe_file), with a reference; NULL if none */
noinline struct file *get_mm_exe_file(struct mm_struct *mm)
{
	struct file *exe_file;

	preempt_disable();	/* rcu_read_lock() */
	exe_file = READ_ONCE(mm->exe_file);
	if (exe_file)
		get_file(exe_file);
	preempt_enable();
	return exe_file;
}

/* The file a task runs (/proc/<pid>/exe): none for a kernel thread, or a task on its way out
 * (as get_task_mm() has it here) */
noinline struct file *get_task_exe_file(struct task_struct *task)
{
	struct file *exe_file = NULL;
	struct mm_struct *mm;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);	/* task_lock() */
	mm = task->mm;
	if (mm && !(task->flags & (PF_KTHREAD | PF_EXITING)) && !task->exit_state)
		exe_file = get_mm_exe_file(mm);
	spin_unlock_irqrestore(&sched_lock, flags);
	return exe_file;
}

noinline struct mm_struct *get_task_mm(struct task_struct *task)
{
	struct mm_struct *mm;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);	/* task_lock() */
	mm = task->mm;
	if (mm && ((task->flags & (PF_KTHREAD | PF_EXITING)) || task->exit_state))
		mm = NULL;
	if (mm)
		__atomic_add_fetch(&mm->mm_users, 1, __ATOMIC_RELAXED);	/* mmget() */
	spin_unlock_irqrestore(&sched_lock, flags);
	return mm;
}

/* The task's mm (a reference), if the caller may look into it as mode says: -EACCES if not,
 * -ESRCH if it has none.  (6.1 holds the task's exec_update_lock meanwhile; here the task is
 * held as the caller holds it, under RCU, and an exec racing with the check is not kept out.) */
noinline struct mm_struct *mm_access(struct task_struct *task, unsigned int mode)
{
	struct mm_struct *mm = get_task_mm(task);

	if (!mm) {
		mm = ERR_PTR(-ESRCH);
	} else if (mm != current->mm && !ptrace_may_access(task, mode)) {
		mmput(mm);
		mm = ERR_PTR(-EACCES);
	}
	return mm;
}

/* ---- the address space (copy_mm): a copy-on-write duplicate, or the same one (CLONE_VM) ---- */
static notrace noinline struct mm_struct *dup_mm(struct task_struct *tsk, struct mm_struct *oldmm)
{
	struct mm_struct *mm = mm_alloc();

	if (!mm)
		return NULL;
	mm->owner = tsk;
	mm->mmap_base = oldmm->mmap_base;
	mm->task_size = oldmm->task_size;
	memcpy(&mm->start_code, &oldmm->start_code,
	       offsetof(struct mm_struct, rss_stat) - offsetof(struct mm_struct, start_code));
	mm->flags = oldmm->flags;
	if (dup_mmap(mm, oldmm)) {
		mmput(mm);
		return NULL;
	}
	return mm;
}

static inline int copy_mm(unsigned long clone_flags, struct task_struct *tsk)
{
	struct mm_struct *oldmm = current->mm;

	if (!oldmm)
		return 0;
	if (clone_flags & CLONE_VM) {
		__atomic_add_fetch(&oldmm->mm_users, 1, __ATOMIC_RELAXED);
		tsk->mm = oldmm;
		return 0;
	}
	tsk->mm = dup_mm(tsk, oldmm);
	if (!tsk->mm)
		return -ENOMEM;
	uprobe_copy_process(tsk, oldmm);	/* the XOL page and pending uretprobe returns */
	return 0;
}

/* The child's I/O context: the parent's, shared (CLONE_IO), or a copy of its priority if it set
 * one */
static __always_inline int copy_io(unsigned long clone_flags, struct task_struct *tsk)
{
	struct io_context *ioc = current->io_context;

	if (!ioc)
		return 0;
	if (clone_flags & CLONE_IO) {
		__atomic_add_fetch(&ioc->active_ref, 1, __ATOMIC_RELAXED);	/* ioc_task_link() */
		__atomic_add_fetch(&ioc->refcount, 1, __ATOMIC_RELAXED);
		tsk->io_context = ioc;
	} else if (ioc->ioprio >> 13) {	/* ioprio_valid(): a class set */
		tsk->io_context = alloc_io_context(GFP_KERNEL, NUMA_NO_NODE);
		if (!tsk->io_context)
			return -ENOMEM;
		tsk->io_context->ioprio = ioc->ioprio;
	}
	return 0;
}

/*
 * RLIMIT_NPROC: the tasks of the new task's real user, with it, past the parent's limit; root,
 * CAP_SYS_RESOURCE and CAP_SYS_ADMIN pass.  (6.1 keeps the count in the user's ucounts, from
 * copy_creds to release_task; here the task list is counted, zombies with it.)
 */
static notrace bool nproc_exceeded(struct task_struct *p)
{
	unsigned long limit = rlimit(RLIMIT_NPROC), n = 1, flags;
	uid_t uid = p->real_cred->uid;
	struct task_struct *t;

	if (limit == RLIM_INFINITY)
		return false;
	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks)
		if (!(t->flags & PF_KTHREAD) && t->exit_state != EXIT_DEAD && t->real_cred->uid == uid)
			n++;
	spin_unlock_irqrestore(&sched_lock, flags);
	if (n <= limit)	/* is_rlimit_overlimit() */
		return false;
	return uid != 0 && !capable(CAP_SYS_RESOURCE) && !capable(CAP_SYS_ADMIN);	/* INIT_USER */
}

/* ---- pidfds: an anon inode file "[pidfd]" holding a pid ---- */
static noinline int pidfd_release(struct inode *inode, struct file *file)
{
	struct pid *pid = file->private_data;

	file->private_data = NULL;
	put_pid(pid);
	return 0;
}

/* Pid: and NSpid: its number (-1 once reaped); one pid namespace here */
static noinline void pidfd_show_fdinfo(struct seq_file *m, struct file *f)
{
	struct pid *pid = f->private_data;
	pid_t nr = pid_task(pid, PIDTYPE_PID) ? pid_nr(pid) : -1;

	seq_printf(m, "Pid:\t%d\nNSpid:\t%d\n", nr, nr);
}

/* Readable once the whole thread group has exited (a leader gone before its threads is not) */
static noinline __poll_t pidfd_poll(struct file *file, poll_table *pts)
{
	struct pid *pid = file->private_data;

	poll_wait(file, &pid->wait_pidfd, pts);
	return thread_group_exited(pid) ? EPOLLIN | EPOLLRDNORM : 0;
}

const struct file_operations pidfd_fops = {
	.release = pidfd_release,
	.poll = pidfd_poll,
	.show_fdinfo = pidfd_show_fdinfo,
};

/* The pid of a pidfd, or -EBADF for another file */
noinline struct pid *pidfd_pid(const struct file *file)
{
	if (file->f_op == &pidfd_fops)
		return file->private_data;
	return ERR_PTR(-EBADF);
}

/* An unused fd and a pidfd file for pid (holding a reference), not yet installed: the fd or
 * -errno.  pidfd_prepare() wants the pid to lead a thread group; CLONE_PIDFD's has no task yet */
noinline int __pidfd_prepare(struct pid *pid, unsigned int flags, struct file **ret)
{
	struct file *pidfd_file;
	int pidfd;

	if (flags & ~(O_NONBLOCK | O_RDWR | O_CLOEXEC))
		return -EINVAL;
	pidfd = get_unused_fd_flags(O_RDWR | O_CLOEXEC);
	if (pidfd < 0)
		return pidfd;
	pidfd_file = anon_inode_getfile("[pidfd]", &pidfd_fops, pid, flags | O_RDWR | O_CLOEXEC);
	if (IS_ERR(pidfd_file)) {
		put_unused_fd(pidfd);
		return PTR_ERR(pidfd_file);
	}
	get_pid(pid);	/* held by pidfd_file now */
	*ret = pidfd_file;
	return pidfd;
}

/* (6.1's pid_has_task(pid, PIDTYPE_TGID): its task is a thread group's leader) */
noinline int pidfd_prepare(struct pid *pid, unsigned int flags, struct file **ret)
{
	struct task_struct *task = pid ? pid_task(pid, PIDTYPE_PID) : NULL;

	if (!task || task->pid != task->tgid)
		return -EINVAL;
	return __pidfd_prepare(pid, flags, ret);
}

static noinline struct task_struct *copy_process(struct pt_regs *regs, int (*fn)(void *), void *arg,
						 struct kernel_clone_args *args)
{
	unsigned long clone_flags = args->flags;
	struct task_struct *parent = current, *p;
	struct file *pidfile = NULL;
	int pidfd = -1, retval = -ENOMEM;
	struct pid *pid;
	unsigned long flags;

	/* CLONE_DETACHED is kept for later use with CLONE_PIDFD; CLONE_THREAD is not wanted yet */
	if ((clone_flags & CLONE_PIDFD) && (clone_flags & (CLONE_DETACHED | CLONE_THREAD)))
		return ERR_PTR(-EINVAL);
	p = alloc_task();
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->stack = alloc_thread_stack();
	if (!p->stack)
		goto free_task;
	p->real_cred = parent->real_cred;	/* dup_task_struct()'s copy of the parent */
	p->cred = parent->cred;
	p->nsproxy = parent->nsproxy;
	if (copy_creds(p, clone_flags))
		goto free_task;
	if (nproc_exceeded(p)) {
		put_task_struct(p);
		return ERR_PTR(-EAGAIN);
	}
	sched_fork(clone_flags, p);
	memcpy(p->comm, parent->comm, TASK_COMM_LEN);
	p->oom_score_adj = parent->oom_score_adj;
	p->personality = parent->personality;
	p->timer_slack_ns = parent->timer_slack_ns;
	p->default_timer_slack_ns = parent->timer_slack_ns;
	p->start_time = ktime_get();
	p->mempolicy = mpol_dup(parent->mempolicy);	/* the child's own copy */
	if (IS_ERR(p->mempolicy)) {
		p->mempolicy = NULL;
		goto free_stack;
	}
	p->il_prev = parent->il_prev;
	/* the alternate signal stack: a fork's child keeps it, a thread (which would share it)
	 * does not (sas_ss_reset) */
	if ((clone_flags & (CLONE_VM | CLONE_VFORK)) != CLONE_VM) {
		p->sas_ss_sp = parent->sas_ss_sp;
		p->sas_ss_size = parent->sas_ss_size;
		p->sas_ss_flags = parent->sas_ss_flags;
	}
	if (copy_signal(clone_flags, p))
		goto free_stack;
	if (fn) {
		p->flags = PF_KTHREAD;
	} else {
		p->flags = PF_FORKNOEXEC;
		p->pgrp = parent->pgrp;
		p->sid = parent->sid;
		p->tty = parent->tty;
		if (copy_mm(clone_flags, p))
			goto free_stack;
	}
	if (copy_semundo(clone_flags, p) || copy_namespaces(clone_flags, p) || copy_files(clone_flags, p) || copy_fs(clone_flags, p) ||
	    copy_io(clone_flags, p))
		goto free_files;
	regs = copy_thread(p, clone_flags, regs, fn, arg);
	if (!fn) {
		if (args->stack)
			regs->sp = args->stack;
		if (clone_flags & CLONE_SETTLS)
			p->thread.fsbase = args->tls;
	}
	p->set_child_tid = clone_flags & CLONE_CHILD_SETTID ? args->child_tid : NULL;
	p->clear_child_tid = clone_flags & CLONE_CHILD_CLEARTID ? args->child_tid : NULL;
	if (perf_event_init_task(p, clone_flags))
		goto free_perf;
	if (security_task_alloc(p, clone_flags))
		goto free_perf;
	pid = alloc_pid(&init_pid_ns, NULL, 0);
	if (IS_ERR(pid))
		goto free_perf;
	/* after the fd table's copy: the pidfd is the parent's alone (unless CLONE_FILES) */
	if (clone_flags & CLONE_PIDFD) {
		retval = __pidfd_prepare(pid, O_RDWR | O_CLOEXEC, &pidfile);
		if (retval < 0)
			goto free_pid;
		pidfd = retval;
		retval = -EFAULT;
		if (copy_to_user(args->pidfd, &pidfd, sizeof(pidfd)))	/* put_user() */
			goto put_pidfd;
	}
	sched_cgroup_fork(p, args);	/* its place in its class (no cgroups) */
	spin_lock_irqsave(&sched_lock, flags);
	p->thread_pid = pid;
	p->pid = p->tgid = pid_nr_ns(pid, &init_pid_ns);	/* pid_nr() */
	if (clone_flags & CLONE_THREAD) {	/* a thread: of its creator's group, child of its parent */
		p->tgid = parent->tgid;
		p->group_leader = parent->group_leader;
		p->exit_signal = -1;
		task_set_parent(p, parent->parent);
		p->signal->nr_threads++;
	} else {
		p->group_leader = p;
		p->exit_signal = args->exit_signal;
		task_set_parent(p, (clone_flags & CLONE_PARENT) ? parent->parent :
				     (parent->flags & PF_IDLE) ? NULL : parent);
		if (p->parent)
			list_add_tail(&p->sibling, &p->parent->children);
	}
	attach_pid(p, PIDTYPE_PID);
	list_add_tail(&p->tasks, &task_list);
	spin_unlock_irqrestore(&sched_lock, flags);
	if (pidfile)
		fd_install(pidfd, pidfile);
	trace_task_newtask(p, clone_flags);
	return p;
put_pidfd:
	fput(pidfile);
	put_unused_fd(pidfd);
free_pid:
	free_pid(pid);
free_perf:
	perf_event_free_task(p);
	if (p->io_context)	/* bad_fork_cleanup_io */
		exit_io_context(p);
free_files:
	exit_sem(p);
	exit_files(p);
	exit_fs(p);
	exit_task_namespaces(p);
free_stack:
	if (p->mm)
		mmput(p->mm);
	mpol_put(p->mempolicy);
	free_thread_stack(p->stack);
free_task:
	put_task_struct(p);
	return ERR_PTR(retval);
}

/* A session task's child: the pid the host gave it; its address space is the caller's to make. */
notrace struct task_struct *session_copy_process(struct task_struct *parent, pid_t pid, pid_t tgid)
{
	struct task_struct *p = alloc_task();
	struct pid *thread_pid;
	unsigned long flags;

	if (!p)
		return NULL;
	p->stack = alloc_thread_stack();
	if (!p->stack) {
		put_task_struct(p);
		return NULL;
	}
	p->real_cred = parent->real_cred;
	p->cred = parent->cred;
	p->nsproxy = parent->nsproxy;
	if (copy_creds(p, tgid == parent->tgid ? CLONE_THREAD : 0)) {
		put_task_struct(p);
		return NULL;
	}
	p->flags = PF_FORKNOEXEC;
	p->pgrp = parent->pgrp;
	p->sid = parent->sid;
	p->tty = parent->tty;
	session_copy_rlimits(parent, p);
	p->cpu = -1;
	p->__state = TASK_NEW;
	memcpy(p->comm, parent->comm, TASK_COMM_LEN);
	p->timer_slack_ns = p->default_timer_slack_ns = parent->timer_slack_ns;
	p->personality = parent->personality;
	p->start_time = ktime_get();	/* session_fork: the host's clone time, when known */
	p->mempolicy = mpol_dup(parent->mempolicy);
	if (IS_ERR(p->mempolicy)) {
		free_thread_stack(p->stack);
		put_task_struct(p);
		return NULL;
	}
	p->il_prev = parent->il_prev;
	thread_pid = alloc_pid(&init_pid_ns, &pid, 1);	/* the host's: clone3's set_tid */
	copy_namespaces(0, p);
	if (IS_ERR(thread_pid) || session_copy_sighand(parent, p, tgid && tgid != pid) ||
	    copy_files_and_fs_of(parent, p)) {
		if (!IS_ERR(thread_pid))
			free_pid(thread_pid);
		exit_files(p);
		exit_fs(p);
		exit_task_namespaces(p);
		mpol_put(p->mempolicy);
		free_thread_stack(p->stack);
		put_task_struct(p);
		return NULL;
	}
	copy_thread(p, 0, NULL, NULL, NULL);
	spin_lock_irqsave(&sched_lock, flags);
	p->thread_pid = thread_pid;
	p->pid = pid;
	p->tgid = tgid ? tgid : pid;
	if (p->tgid != pid && parent->tgid == p->tgid && parent->group_leader) {
		/* a thread, shaped as copy_process's: of its creator's group, its parent's child */
		p->group_leader = parent->group_leader;
		p->exit_signal = -1;
		task_set_parent(p, parent->parent);
	} else {	/* a process: its end is its parent's SIGCHLD, as its host clone's (a
			 * thread whose creator the session never saw: none) */
		p->group_leader = p;
		p->exit_signal = p->tgid == pid ? SIGCHLD : 0;
		task_set_parent(p, parent);
		list_add_tail(&p->sibling, &parent->children);
	}
	attach_pid(p, PIDTYPE_PID);
	list_add_tail(&p->tasks, &task_list);
	spin_unlock_irqrestore(&sched_lock, flags);
	return p;
}

notrace void session_free_process(struct task_struct *p)
{
	unsigned long flags;

	perf_event_free_task(p);
	spin_lock_irqsave(&sched_lock, flags);
	list_del_init(&p->sibling);
	list_del_init(&p->tasks);
	spin_unlock_irqrestore(&sched_lock, flags);
	detach_pid(p, PIDTYPE_PID);
	exit_files(p);
	exit_fs(p);
	exit_task_namespaces(p);
	if (p->mm)
		mmput(p->mm);
	mpol_put_task_policy(p);
	free_thread_stack(p->stack);
	put_task_struct(p);
}

notrace void session_wake_new_task(struct task_struct *parent, struct task_struct *p)
{
	perf_event_fork(parent, p);
	trace_sched_process_fork(parent, p);
	trace_pid_fork(parent, p);
	wake_up_new_task(p);
}

long kernel_clone(struct kernel_clone_args *args)
{
	struct task_struct *p;
	struct pid *pid;
	pid_t nr;

	/* clone(2)'s pidfd and parent tid share one pointer */
	if ((args->flags & CLONE_PIDFD) && (args->flags & CLONE_PARENT_SETTID) && args->pidfd == args->parent_tid)
		return -EINVAL;
	if (current->session)	/* the host made the child: take it as it is */
		return session_clone(args->flags);
	p = copy_process(current_pt_regs(), NULL, NULL, args);
	if (IS_ERR(p))
		return PTR_ERR(p);
	perf_event_fork(current, p);
	trace_sched_process_fork(current, p);
	trace_pid_fork(current, p);
	/* the child's pid, held while it is woken: it may exit and be reaped before we return */
	pid = get_task_pid(p, PIDTYPE_PID);
	nr = pid_vnr(pid);
	if (args->flags & CLONE_PARENT_SETTID)
		copy_to_user(args->parent_tid, &nr, sizeof(nr));
	if (args->flags & CLONE_VFORK) {
		struct vfork_done vfork = { .parent = current };

		p->vfork_done = &vfork;
		wake_up_new_task(p);
		for (;;) {	/* wait_for_vfork_done(): until the child execs or exits */
			set_current_state(TASK_UNINTERRUPTIBLE);
			if (READ_ONCE(vfork.done) || fatal_signal_pending(current))
				break;
			schedule();
		}
		set_current_state(TASK_RUNNING);
		if (!READ_ONCE(vfork.done)) {	/* killed: the child must not touch our stack */
			p->vfork_done = NULL;
		}
	} else {
		wake_up_new_task(p);
	}
	put_pid(pid);
	return nr;
}

pid_t kernel_thread(int (*fn)(void *), void *arg, const char *name, int cpu)
{
	struct kernel_clone_args args = { .flags = KTHREAD_CLONE_FLAGS, .exit_signal = SIGCHLD };
	struct task_struct *p = copy_process(NULL, fn, arg, &args);

	if (IS_ERR(p))
		return PTR_ERR(p);
	p->cpu = cpu;
	perf_event_fork(current, p);
	trace_sched_process_fork(current, p);
	trace_pid_fork(current, p);
	if (name)	/* kthread_create(): named once forked */
		set_task_comm(p, name);
	wake_up_new_task(p);
	return p->pid;
}

/* unshare(2): the fs_struct and the file table made the caller's own.  Namespaces are not
 * modelled: asking for one is EINVAL (as clone_flags_valid() answers a clone that asks) */
noinline int ksys_unshare(unsigned long unshare_flags)
{
	struct task_struct *tsk = current;
	struct fs_struct *fs, *new_fs = NULL;
	struct files_struct *new_fd = NULL, *old_fd;
	unsigned long irq;
	int err = 0;

	if (unshare_flags & CLONE_VM)	/* unsharing vm unshares the signal handlers */
		unshare_flags |= CLONE_SIGHAND;
	if (unshare_flags & CLONE_SIGHAND)	/* ... and those the signal queues */
		unshare_flags |= CLONE_THREAD;
	if (unshare_flags & CLONE_NEWNS)	/* a namespace: the fs information too */
		unshare_flags |= CLONE_FS;
	/* check_unshare_flags() */
	if (unshare_flags & ~(CLONE_THREAD | CLONE_FS | CLONE_NEWNS | CLONE_SIGHAND | CLONE_VM | CLONE_FILES |
			      CLONE_SYSVSEM | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUSER |
			      CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME))
		return -EINVAL;
	if (unshare_flags & (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUSER |
			     CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME))
		return -EINVAL;	/* (not modelled) */
	/* not implemented, but it works if there is nothing to unshare */
	if ((unshare_flags & (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)) && tsk->signal && tsk->signal->nr_threads > 1)
		return -EINVAL;
	if ((unshare_flags & (CLONE_SIGHAND | CLONE_VM)) && tsk->sighand && tsk->sighand->count > 1)
		return -EINVAL;
	if ((unshare_flags & CLONE_VM) && tsk->mm && tsk->mm->mm_users > 1)
		return -EINVAL;
	/* unshare_fs() */
	fs = tsk->fs;
	if ((unshare_flags & CLONE_FS) && fs && fs->users > 1) {
		new_fs = copy_fs_struct(fs);
		if (!new_fs)
			return -ENOMEM;
	}
	/* unshare_fd() */
	if ((unshare_flags & CLONE_FILES) && tsk->files && tsk->files->count > 1) {
		new_fd = dup_fd(tsk->files, &err);
		if (!new_fd)
			goto bad_unshare_cleanup_fs;
	}
	if (unshare_flags & CLONE_SYSVSEM)	/* its SEM_UNDO adjustments apply, as at exit */
		exit_sem(tsk);
	if (new_fs || new_fd) {
		spin_lock_irqsave(&sched_lock, irq);	/* task_lock() */
		if (new_fs) {
			tsk->fs = new_fs;
			new_fs = __atomic_sub_fetch(&fs->users, 1, __ATOMIC_ACQ_REL) ? NULL : fs;
		}
		if (new_fd) {
			old_fd = tsk->files;
			tsk->files = new_fd;
			new_fd = old_fd;
		}
		spin_unlock_irqrestore(&sched_lock, irq);
	}
	if (new_fd)
		put_files_struct(new_fd);
bad_unshare_cleanup_fs:
	if (new_fs)
		free_fs_struct(new_fs);
	return err;
}

SYSCALL_DEFINE1(unshare, unsigned long, unshare_flags)
{
	return ksys_unshare(unshare_flags);
}

/* What copy_process() accepts (its checks, in its order; namespaces are not modelled) */
static int clone_flags_valid(unsigned long clone_flags)
{
	if ((clone_flags & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS))
		return -EINVAL;
	if ((clone_flags & CLONE_THREAD) && !(clone_flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((clone_flags & CLONE_SIGHAND) && !(clone_flags & CLONE_VM))
		return -EINVAL;
	if (clone_flags & (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
			   CLONE_NEWPID | CLONE_NEWNET | CLONE_PTRACE))
		return -EINVAL;	/* (not modelled) */
	return 0;
}

SYSCALL_DEFINE5(clone, unsigned long, clone_flags, unsigned long, newsp, int *, parent_tidptr,
		int *, child_tidptr, unsigned long, tls)
{
	struct kernel_clone_args args = {
		.flags = clone_flags & ~CSIGNAL,
		.pidfd = parent_tidptr,
		.parent_tid = parent_tidptr,
		.child_tid = child_tidptr,
		.exit_signal = clone_flags & CSIGNAL,
		.stack = newsp,
		.tls = tls,
	};
	int err = clone_flags_valid(args.flags);

	if (err)
		return err;
	return kernel_clone(&args);
}

/* include/uapi/linux/sched.h: clone3's argument, CLONE_ARGS_SIZE_VER0..2 */
struct clone_args {
	u64 flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	u64 set_tid, set_tid_size;	/* VER1 */
	u64 cgroup;			/* VER2 */
};
#define CLONE_ARGS_SIZE_VER0	64
#define CLONE_ARGS_SIZE_VER2	88
#define CLONE_CLEAR_SIGHAND	0x100000000ULL
#define CLONE_INTO_CGROUP	0x200000000ULL
#define MAX_PID_NS_LEVEL	32

/*
 * clone3 with 6.1's checks (copy_clone_args_from_user(), clone3_args_valid()), for a session
 * task: its host process made the child, kernel_clone takes it with these flags (CLONE_VM:
 * the same mm).  The kernel's own programs get ENOSYS: copy_process() here has no clone3
 * stack (stack + stack_size), set_tid or cgroup.
 */
/* The caller's struct clone_args, checked as far as it goes by itself, into kargs */
static noinline int copy_clone_args_from_user(struct kernel_clone_args *kargs, struct clone_args *uargs,
					      size_t usize)
{
	struct clone_args args = { 0 };

	if (usize > PAGE_SIZE)
		return -E2BIG;
	if (usize < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	if (usize > sizeof(args))	/* copy_struct_from_user(): what it does not know must be 0 */
		return -E2BIG;	/* (the record carries sizeof(args) bytes: past them, unknown) */
	if (copy_from_user(&args, uargs, usize))
		return -EFAULT;
	if (args.set_tid_size > MAX_PID_NS_LEVEL || (!args.set_tid && args.set_tid_size > 0))
		return -EINVAL;
	if (args.set_tid && args.set_tid_size == 0)
		return -EINVAL;
	if (args.exit_signal & ~(u64)CSIGNAL)
		return -EINVAL;
	if ((args.flags & CLONE_INTO_CGROUP) && (args.cgroup > 0x7fffffff || usize < CLONE_ARGS_SIZE_VER2))
		return -EINVAL;
	*kargs = (struct kernel_clone_args) {
		.flags = args.flags,
		.pidfd = (int *)args.pidfd,
		.child_tid = (int *)args.child_tid,
		.parent_tid = (int *)args.parent_tid,
		.exit_signal = args.exit_signal,
		.stack = args.stack,
		.stack_size = args.stack_size,
		.tls = args.tls,
	};
	return 0;
}

/* The flags together (clone3_args_valid(), with its clone3_stack_valid()) */
static __always_inline bool clone3_args_valid(struct kernel_clone_args *kargs)
{
	if (kargs->flags & ~(0xffffffffULL | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
		return false;
	if (kargs->flags & (CLONE_DETACHED | CSIGNAL))
		return false;
	if ((kargs->flags & (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND)) == (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND))
		return false;
	if ((kargs->flags & (CLONE_THREAD | CLONE_PARENT)) && kargs->exit_signal)
		return false;
	if (kargs->stack ? !kargs->stack_size || !access_ok((void *)kargs->stack, kargs->stack_size)
			 : kargs->stack_size)
		return false;
	return true;
}

SYSCALL_DEFINE2(clone3, struct clone_args *, uargs, size_t, size)
{
	struct kernel_clone_args kargs;
	int err;

	if (!current->session)
		return -ENOSYS;
	err = copy_clone_args_from_user(&kargs, uargs, size);
	if (err)
		return err;
	if (!clone3_args_valid(&kargs))
		return -EINVAL;
	err = clone_flags_valid(kargs.flags & 0xffffffffULL);
	if (err)
		return err;
	return kernel_clone(&kargs);
}

SYSCALL_DEFINE0(fork)
{
	struct kernel_clone_args args = { .exit_signal = SIGCHLD };

	return kernel_clone(&args);
}

SYSCALL_DEFINE0(vfork)
{
	struct kernel_clone_args args = { .flags = CLONE_VFORK | CLONE_VM, .exit_signal = SIGCHLD };

	return kernel_clone(&args);
}

/* schedule_tail(): a new task's first act, in its own address space */
notrace void clone_set_child_tid(struct task_struct *p)
{
	if (p->set_child_tid)
		copy_to_user(p->set_child_tid, &p->pid, sizeof(p->pid));
}

SYSCALL_DEFINE1(set_tid_address, int *, tidptr)
{
	current->clear_child_tid = tidptr;
	return current->pid;
}
