/*
 * Process ids (kernel/pid.c): a `struct pid` for each id in use, from alloc_pid() at fork
 * until the last task using it lets it go (detach_pid() at release, free_pid(), freed after a
 * grace period: lookups hold no lock of the table's, only sched_lock or interrupts off, as
 * 6.1's hold rcu_read_lock).  Numbers count up from the last one given, past RESERVED_PIDS on
 * wrapping, and stay below the sessions' tasks' (FIRST_SESSION_PID), which bring the host's
 * (set_tid).  6.1 keeps the numbers in an idr; here a hash table (pid_hash) stands for it.
 */
#include "../include/pid.h"
#include "../include/nsproxy.h"
#include "../include/slab.h"
#include "../include/session.h"
#include "../include/fs.h"
#include "../include/ptrace.h"
#include "../include/syscalls.h"

#define RESERVED_PIDS	300
#define PIDHASH_SHIFT	8

struct pid_namespace init_pid_ns = {
	.level = 0,
	.ns = { .ops = &pidns_operations, .inum = PROC_PID_INIT_INO, .count = 2 },
};

/* the idle tasks' pid 0, never freed (6.1's init_struct_pid) */
struct pid init_struct_pid = {
	.count = 1,
	.tasks = LIST_HEAD_INIT(init_struct_pid.tasks),
	.numbers = { { .nr = 0, .ns = &init_pid_ns } },
};

static struct kmem_cache *pid_cachep;
static struct list_head pid_hash[1 << PIDHASH_SHIFT];
static spinlock_t pidmap_lock;	/* the table's writers */
static int pid_last;			/* the last number given (6.1: the idr's cursor) */

void __init pid_idr_init(void)
{
	int i;

	for (i = 0; i < (1 << PIDHASH_SHIFT); i++)
		INIT_LIST_HEAD(&pid_hash[i]);
	pid_cachep = kmem_cache_create("pid", sizeof(struct pid), 0, SLAB_HWCACHE_ALIGN | SLAB_PANIC | SLAB_ACCOUNT,
				       NULL);
}

static __always_inline struct list_head *pid_hashfn(int nr)
{
	return &pid_hash[nr & ((1 << PIDHASH_SHIFT) - 1)];
}

static __always_inline struct pid *__find_pid_ns(int nr, struct pid_namespace *ns)
{
	struct list_head *head = pid_hashfn(nr), *pos;

	for (pos = READ_ONCE(head->next); pos != head; pos = READ_ONCE(pos->next)) {
		struct pid *pid = container_of(pos, struct pid, hash);

		if (pid->numbers[0].nr == nr && pid->numbers[0].ns == ns)
			return pid;
	}
	return NULL;
}

static __always_inline struct task_struct *__pid_task(struct pid *pid)
{
	struct list_head *first;

	if (!pid)
		return NULL;
	first = READ_ONCE(pid->tasks.next);
	return first == &pid->tasks ? NULL : container_of(first, struct task_struct, pid_link);
}

/* the pid of that number in ns, or NULL (6.1: idr_find()) */
noinline struct pid *find_pid_ns(int nr, struct pid_namespace *ns)
{
	return __find_pid_ns(nr, ns);
}

/* the namespace the task sees ids in */
noinline struct pid_namespace *task_active_pid_ns(struct task_struct *tsk)
{
	struct pid *pid = task_pid(tsk);

	return pid ? pid->numbers[pid->level].ns : NULL;	/* ns_of_pid(): none once reaped */
}

/* the pid of that number as the caller sees it */
noinline struct pid *find_vpid(int nr)
{
	return find_pid_ns(nr, task_active_pid_ns(current));
}

/* the task using the pid as its id of that type (only PIDTYPE_PID's is kept; PIDTYPE_TGID's is
 * the thread group's leader, whose pid its tgid is), or NULL */
noinline struct task_struct *pid_task(struct pid *pid, enum pid_type type)
{
	struct task_struct *t;

	if (type != PIDTYPE_PID && type != PIDTYPE_TGID)
		return NULL;
	t = __pid_task(pid);
	if (type == PIDTYPE_TGID && t && t->group_leader != t)
		return NULL;
	return t;
}

noinline struct task_struct *find_task_by_pid_ns(pid_t nr, struct pid_namespace *ns)
{
	return pid_task(find_pid_ns(nr, ns), PIDTYPE_PID);
}

/* the task of that id as the caller sees it (kill, sched_setaffinity, prlimit, ...) */
noinline struct task_struct *find_task_by_vpid(pid_t vnr)
{
	return find_task_by_pid_ns(vnr, task_active_pid_ns(current));
}

/* the model's own lookups (kthread starts, /proc, the host's records, under sched_lock):
 * find_task_by_vpid()'s, untraced */
notrace noinline struct task_struct *find_task_by_pid(pid_t nr)
{
	return __pid_task(__find_pid_ns(nr, &init_pid_ns));
}

/* a reference to the task's pid of that type (only PIDTYPE_PID's is kept: NULL for another),
 * which outlives the task's reaping (kernel_clone's, while it wakes the child) */
noinline struct pid *get_task_pid(struct task_struct *task, enum pid_type type)
{
	return type == PIDTYPE_PID ? get_pid(task_pid(task)) : NULL;
}

/* a reference to the pid of that number as the caller sees it, or NULL (wait4's) */
noinline struct pid *find_get_pid(pid_t nr)
{
	return get_pid(find_vpid(nr));
}

/* its number in ns (0: none there) */
noinline pid_t pid_nr_ns(struct pid *pid, struct pid_namespace *ns)
{
	struct upid *upid;

	if (pid && ns && ns->level <= pid->level) {	/* (ns: none for a reaped caller) */
		upid = &pid->numbers[ns->level];
		if (upid->ns == ns)
			return upid->nr;
	}
	return 0;
}

/* its number as the caller sees it (0: none there) */
noinline pid_t pid_vnr(struct pid *pid)
{
	return pid_nr_ns(pid, task_active_pid_ns(current));
}

noinline void put_pid(struct pid *pid)
{
	if (!pid)
		return;
	if (__atomic_sub_fetch(&pid->count, 1, __ATOMIC_ACQ_REL) == 0)
		kmem_cache_free(pid_cachep, pid);
}

static noinline void delayed_put_pid(struct rcu_head *rhp)
{
	put_pid(container_of(rhp, struct pid, rcu));
}

/* the number is free again; the memory goes with the last reference, after a grace period */
noinline void free_pid(struct pid *pid)
{
	unsigned long flags;

	spin_lock_irqsave(&pidmap_lock, flags);
	list_del(&pid->hash);	/* (its next kept for a reader on it) */
	init_pid_ns.pid_allocated--;
	spin_unlock_irqrestore(&pidmap_lock, flags);
	call_rcu(&pid->rcu, delayed_put_pid);
}

/*
 * A new id for a task being forked: set_tid's number if given (clone3's; a session's task
 * brings its host thread's), else the next free one after the last given; -EEXIST if set_tid's
 * is taken, -EAGAIN if none is free.
 */
noinline struct pid *alloc_pid(struct pid_namespace *ns, pid_t *set_tid, size_t set_tid_size)
{
	struct pid *pid = kmem_cache_alloc(pid_cachep, GFP_KERNEL);
	unsigned long flags;
	int nr, tries;

	if (!pid)
		return ERR_PTR(-ENOMEM);
	pid->count = 1;
	pid->level = ns->level;
	INIT_LIST_HEAD(&pid->tasks);
	init_waitqueue_head(&pid->wait_pidfd);
	spin_lock_irqsave(&pidmap_lock, flags);
	if (set_tid_size) {
		nr = set_tid[0];
		if (__find_pid_ns(nr, ns))
			goto busy;
	} else {
		for (tries = 0;; tries++) {
			nr = pid_last + 1;
			if (nr >= FIRST_SESSION_PID)
				nr = RESERVED_PIDS;
			pid_last = nr;
			if (!__find_pid_ns(nr, ns))
				break;
			if (tries == FIRST_SESSION_PID)
				goto busy;
		}
	}
	pid->numbers[0] = (struct upid){ .nr = nr, .ns = ns };
	/* published whole before a lookup can find it (6.1: idr_replace() after the init) */
	pid->hash.prev = pid_hashfn(nr);
	pid->hash.next = pid_hashfn(nr)->next;
	pid_hashfn(nr)->next->prev = &pid->hash;
	__atomic_store_n(&pid_hashfn(nr)->next, &pid->hash, __ATOMIC_RELEASE);
	ns->pid_allocated++;
	spin_unlock_irqrestore(&pidmap_lock, flags);
	return pid;
busy:
	spin_unlock_irqrestore(&pidmap_lock, flags);
	kmem_cache_free(pid_cachep, pid);
	return ERR_PTR(set_tid_size ? -EEXIST : -EAGAIN);
}

/* the task takes its pid (under sched_lock: lookups see it with the task list); it lets it go
 * past the lock, whose holders may not wake a task (free_pid()'s call_rcu() wakes the grace
 * period's kthread): a lookup may find a task just reaped, its exit_state EXIT_DEAD */
noinline void attach_pid(struct task_struct *task, enum pid_type type)
{
	struct pid *pid = task->thread_pid;

	task->pid_link.prev = &pid->tasks;
	task->pid_link.next = pid->tasks.next;
	pid->tasks.next->prev = &task->pid_link;
	__atomic_store_n(&pid->tasks.next, &task->pid_link, __ATOMIC_RELEASE);
}

/* the task lets its pid go (new: the one it takes instead); freed when no task uses it */
static noinline void __change_pid(struct task_struct *task, enum pid_type type, struct pid *new)
{
	struct pid *pid = task->thread_pid;

	list_del(&task->pid_link);
	task->thread_pid = new;
	if (!list_empty(&pid->tasks))
		return;
	free_pid(pid);
}

/* release_task(): the reaped task's id goes */
noinline void detach_pid(struct task_struct *task, enum pid_type type)
{
	__change_pid(task, type, NULL);
}

/* de_thread(): the thread taking the leader's place at exec takes its pid, and the leader this one's */
noinline void exchange_tids(struct task_struct *left, struct task_struct *right)
{
	struct pid *pid1 = left->thread_pid, *pid2 = right->thread_pid;
	pid_t tid = left->pid;

	/* swap the tasks on the two pids' lists (6.1: hlists_swap_heads_rcu) */
	list_del(&left->pid_link);
	list_del(&right->pid_link);
	list_add(&right->pid_link, &pid1->tasks);
	list_add(&left->pid_link, &pid2->tasks);
	WRITE_ONCE(left->thread_pid, pid2);
	WRITE_ONCE(right->thread_pid, pid1);
	left->pid = right->pid;
	right->pid = tid;
}

/* ---- pidfds: a file for a process, polled for its exit, signalled, its fds taken ---- */
/* The pid behind a pidfd (with a reference), and the file's flags; -EBADF for another fd */
noinline struct pid *pidfd_get_pid(unsigned int fd, unsigned int *flags)
{
	struct file *file = fget(fd);
	struct pid *pid;

	if (!file)
		return ERR_PTR(-EBADF);
	pid = pidfd_pid(file);
	if (!IS_ERR(pid)) {
		get_pid(pid);
		*flags = file->f_flags;
	}
	fput(file);
	return pid;
}

/* The process behind a pidfd, and the file's flags; -EBADF (not a pidfd), -ESRCH (reaped).
 * No task reference here (6.1 takes one): the caller holds rcu_read_lock() (preempt_disable())
 * from before the call for as long as it uses the task, which keeps its memory. */
noinline struct task_struct *pidfd_get_task(int pidfd, unsigned int *flags)
{
	unsigned int f_flags;
	struct task_struct *task;
	struct pid *pid = pidfd_get_pid(pidfd, &f_flags);

	if (IS_ERR(pid))
		return ERR_PTR(PTR_ERR(pid));
	task = pid_task(pid, PIDTYPE_PID);	/* a leader's pid: its process (6.1: PIDTYPE_TGID) */
	put_pid(pid);
	if (!task)
		return ERR_PTR(-ESRCH);
	*flags = f_flags;
	return task;
}

/* A new pidfd for the process pid leads: its fd, close-on-exec, or -errno */
noinline int pidfd_create(struct pid *pid, unsigned int flags)
{
	struct file *pidfd_file;
	int pidfd = pidfd_prepare(pid, flags, &pidfd_file);

	if (pidfd < 0)
		return pidfd;
	fd_install(pidfd, pidfd_file);
	return pidfd;
}

#define PIDFD_NONBLOCK	O_NONBLOCK

SYSCALL_DEFINE2(pidfd_open, pid_t, pid, unsigned int, flags)
{
	struct pid *p;
	int fd;

	if (flags & ~PIDFD_NONBLOCK)
		return -EINVAL;
	if (pid <= 0)
		return -EINVAL;
	p = find_get_pid(pid);
	if (!p)
		return -ESRCH;	/* (a zombie's pid is still there: only a reaped one's is gone) */
	fd = pidfd_create(p, flags);
	put_pid(p);
	return fd;
}

/* A copy of the process's fd (PTRACE_MODE_ATTACH_REALCREDS: the caller may trace it), a new fd
 * of the caller's, close-on-exec; the task is held by sched_lock meanwhile (6.1: a reference
 * and its exec_update_lock) */
static noinline int pidfd_getfd(struct pid *pid, int fd)
{
	struct task_struct *task;
	struct file *file;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&sched_lock, flags);
	task = pid_task(pid, PIDTYPE_PID);
	if (!task || task->exit_state == EXIT_DEAD) {
		spin_unlock_irqrestore(&sched_lock, flags);
		return -ESRCH;
	}
	if (__ptrace_may_access(task, PTRACE_MODE_ATTACH | PTRACE_MODE_REALCREDS))	/* __pidfd_fget() */
		file = ERR_PTR(-EPERM);
	else if (task->flags & PF_EXITING)
		file = ERR_PTR(-ESRCH);
	else
		file = fget_task(task, fd) ?: ERR_PTR(-EBADF);
	spin_unlock_irqrestore(&sched_lock, flags);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = receive_fd(file, O_CLOEXEC);
	fput(file);
	return ret;
}

SYSCALL_DEFINE3(pidfd_getfd, int, pidfd, int, fd, unsigned int, flags)
{
	struct file *file;
	struct pid *pid;
	int ret;

	if (flags)	/* none defined yet */
		return -EINVAL;
	file = fget(pidfd);
	if (!file)
		return -EBADF;
	pid = pidfd_pid(file);
	ret = IS_ERR(pid) ? PTR_ERR(pid) : pidfd_getfd(pid, fd);
	fput(file);
	return ret;
}
