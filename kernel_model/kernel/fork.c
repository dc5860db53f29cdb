/* Task creation: kernel_clone for fork(2)/clone(2) and kernel threads. */
#include "../include/syscalls.h"
#include "../include/trace/trace.h"
#include "../include/trace/trace_pid.h"
#include "../include/session.h"
#include "../include/perf_event.h"

#define CSIGNAL		0x000000ff	/* the exit signal, not a flag */
#define CLONE_VM	0x00000100
#define CLONE_FS	0x00000200
#define CLONE_FILES	0x00000400
#define CLONE_UNTRACED	0x00800000
#define SIGCHLD 17
/* kthreadd's kernel threads: kernel_thread(fn, arg, CLONE_FS | CLONE_FILES | SIGCHLD) */
#define KTHREAD_CLONE_FLAGS (CLONE_VM | CLONE_UNTRACED | CLONE_FS | CLONE_FILES)
static pid_t last_pid;

static struct kmem_cache *task_struct_cachep;

void fork_init(void)
{
	task_struct_cachep = kmem_cache_create("task_struct", sizeof(struct task_struct), 64,
					       SLAB_PANIC | SLAB_ACCOUNT, NULL);
	proc_caches_init();
}

struct task_struct *alloc_task(void)
{
	struct task_struct *t = kmem_cache_zalloc(task_struct_cachep, GFP_KERNEL);

	if (!t)
		return NULL;
	t->prio = DEFAULT_PRIO;
	t->timer_slack_ns = 50000;
	INIT_LIST_HEAD(&t->children);
	INIT_LIST_HEAD(&t->sibling);
	INIT_LIST_HEAD(&t->tasks);
	INIT_LIST_HEAD(&t->run_list);
	return t;
}

void put_task_struct(struct task_struct *t)
{
	if (t->pid)	/* a task that got a pid: sched_process_free's place */
		trace_pid_free(t);
	kmem_cache_free(task_struct_cachep, t);
}

static noinline pid_t alloc_pid(void)
{
	pid_t pid;

	/* the kernel's own tasks stay below the session's pids (RESERVED_PIDS is 300) */
	do {
		pid = ++last_pid;
		if (pid >= FIRST_SESSION_PID)
			last_pid = pid = 300;
	} while (find_task_by_pid(pid));
	return pid;
}

/* Lay out the new task's stack: switch frame returning to ret_from_fork, then pt_regs. */
static noinline struct pt_regs *copy_thread(struct task_struct *p, struct pt_regs *src, int (*fn)(void *), void *arg)
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
	return regs;
}

static noinline struct task_struct *copy_process(struct pt_regs *regs, int (*fn)(void *), void *arg,
						 unsigned long clone_flags)
{
	struct task_struct *parent = current, *p = alloc_task();
	unsigned long flags;

	if (!p)
		return NULL;
	p->stack = alloc_thread_stack();
	if (!p->stack)
		goto free_task;
	p->uid = parent->uid;
	p->cpu = -1;
	p->__state = TASK_NEW;
	memcpy(p->comm, parent->comm, TASK_COMM_LEN);
	p->vruntime = parent->vruntime;
	p->oom_score_adj = parent->oom_score_adj;
	if (fn) {
		p->flags = PF_KTHREAD;
	} else {
		p->mm = mm_alloc();
		if (!p->mm || dup_mm_pages(p->mm, parent->mm))
			goto free_stack;
	}
	if (copy_files(clone_flags, p) || copy_fs(clone_flags, p))
		goto free_files;
	copy_thread(p, regs, fn, arg);
	if (perf_event_init_task(p, clone_flags))
		goto free_perf;
	spin_lock_irqsave(&sched_lock, flags);
	p->pid = p->tgid = alloc_pid();
	p->parent = (parent->flags & PF_IDLE) ? NULL : parent;
	if (p->parent)
		list_add_tail(&p->sibling, &parent->children);
	list_add_tail(&p->tasks, &task_list);
	spin_unlock_irqrestore(&sched_lock, flags);
	trace_task_newtask(p, clone_flags);
	return p;
free_perf:
	perf_event_free_task(p);
free_files:
	exit_files(p);
	exit_fs(p);
free_stack:
	if (p->mm)
		mmput(p->mm);
	free_thread_stack(p->stack);
free_task:
	put_task_struct(p);
	return NULL;
}

/* A session task's child: the pid the host gave it; its address space is the caller's to make. */
struct task_struct *session_copy_process(struct task_struct *parent, pid_t pid, pid_t tgid)
{
	struct task_struct *p = alloc_task();
	unsigned long flags;

	if (!p)
		return NULL;
	p->stack = alloc_thread_stack();
	if (!p->stack) {
		put_task_struct(p);
		return NULL;
	}
	p->uid = parent->uid;
	p->cpu = -1;
	p->__state = TASK_NEW;
	memcpy(p->comm, parent->comm, TASK_COMM_LEN);
	if (copy_files_and_fs_of(parent, p)) {
		exit_files(p);
		exit_fs(p);
		free_thread_stack(p->stack);
		put_task_struct(p);
		return NULL;
	}
	copy_thread(p, NULL, NULL, NULL);
	spin_lock_irqsave(&sched_lock, flags);
	p->pid = pid;
	p->tgid = tgid ? tgid : pid;
	p->parent = parent;
	list_add_tail(&p->sibling, &parent->children);
	list_add_tail(&p->tasks, &task_list);
	spin_unlock_irqrestore(&sched_lock, flags);
	return p;
}

void session_free_process(struct task_struct *p)
{
	unsigned long flags;

	perf_event_free_task(p);
	spin_lock_irqsave(&sched_lock, flags);
	list_del_init(&p->sibling);
	list_del_init(&p->tasks);
	spin_unlock_irqrestore(&sched_lock, flags);
	exit_files(p);
	exit_fs(p);
	if (p->mm)
		mmput(p->mm);
	free_thread_stack(p->stack);
	put_task_struct(p);
}

void session_wake_new_task(struct task_struct *parent, struct task_struct *p)
{
	trace_sched_process_fork(parent, p);
	trace_pid_fork(parent, p);
	wake_up_new_task(p);
}

long kernel_clone(struct pt_regs *regs, unsigned long clone_flags)
{
	struct task_struct *p;

	if (current->session)	/* the host made the child: take it as it is */
		return session_clone();
	p = copy_process(regs, NULL, NULL, clone_flags);

	if (!p)
		return -ENOMEM;
	trace_sched_process_fork(current, p);
	trace_pid_fork(current, p);
	wake_up_new_task(p);
	return p->pid;
}

pid_t kernel_thread(int (*fn)(void *), void *arg, const char *name, int cpu)
{
	struct task_struct *p = copy_process(NULL, fn, arg, KTHREAD_CLONE_FLAGS);

	if (!p)
		return -ENOMEM;
	p->cpu = cpu;
	trace_sched_process_fork(current, p);
	trace_pid_fork(current, p);
	if (name)	/* kthread_create(): named once forked */
		set_task_comm(p, name);
	wake_up_new_task(p);
	return p->pid;
}

SYSCALL_DEFINE5(clone, unsigned long, clone_flags, unsigned long, newsp, int *, parent_tidptr,
		int *, child_tidptr, unsigned long, tls)
{
	/* fork-like clones only: threads (CLONE_VM) are not modelled */
	if (clone_flags & CLONE_VM || (clone_flags & 0xff) != SIGCHLD || newsp)
		return -EINVAL;
	return kernel_clone(current_pt_regs(), clone_flags & ~CSIGNAL);
}

SYSCALL_DEFINE0(fork)
{
	return kernel_clone(current_pt_regs(), 0);
}
