/*
 * Process ids (include/linux/pid.h, kernel/pid.c): a `struct pid` per id in use, found by its
 * number (find_pid_ns), naming the task that has it (pid_task).  One pid namespace, the
 * initial one.  Only the PIDTYPE_PID links are kept: a thread group's, process group's and
 * session's ids are the numbers in task_struct (tgid, pgrp, sid).
 */
#ifndef _PID_H
#define _PID_H
#include "kernel.h"
#include "wait.h"

struct pid_namespace {		/* (its fields at Debian 6.1's offsets) */
	u8 __gap_0[40];
	int pid_allocated;	/* ids in use */
	u8 __gap_44[64 - 44];
	unsigned int level;
	u8 __gap_68[112 - 68];
	struct ns_common ns;
};
extern struct pid_namespace init_pid_ns;

struct upid {
	int nr;
	struct pid_namespace *ns;
};

struct pid {
	int count;			/* refcount_t: get_pid()/put_pid() */
	unsigned int level;
	struct list_head tasks;		/* the task with it as its PIDTYPE_PID (6.1: tasks[PIDTYPE_PID]) */
	struct list_head hash;		/* in its namespace's table by number (6.1: its idr) */
	wait_queue_head_t wait_pidfd;	/* pidfd pollers, woken when the process has exited */
	struct rcu_head rcu;
	struct upid numbers[1];
};
extern struct pid init_struct_pid;	/* the idle tasks' */

void __init pid_idr_init(void);
struct pid *alloc_pid(struct pid_namespace *ns, pid_t *set_tid, size_t set_tid_size);
void free_pid(struct pid *pid);
void put_pid(struct pid *pid);
void attach_pid(struct task_struct *task, enum pid_type type);
void detach_pid(struct task_struct *task, enum pid_type type);
void exchange_tids(struct task_struct *left, struct task_struct *right);
struct pid *find_pid_ns(int nr, struct pid_namespace *ns);
struct pid *find_vpid(int nr);
struct task_struct *pid_task(struct pid *pid, enum pid_type type);
struct task_struct *find_task_by_pid_ns(pid_t nr, struct pid_namespace *ns);
struct task_struct *find_task_by_vpid(pid_t vnr);
pid_t pid_nr_ns(struct pid *pid, struct pid_namespace *ns);
pid_t pid_vnr(struct pid *pid);
struct pid *get_task_pid(struct task_struct *task, enum pid_type type);
struct pid *find_get_pid(pid_t nr);
struct pid_namespace *task_active_pid_ns(struct task_struct *tsk);
/* pidfds (kernel/fork.c, kernel/pid.c) */
struct file;
struct pid *pidfd_pid(const struct file *file);
struct pid *pidfd_get_pid(unsigned int fd, unsigned int *flags);
struct task_struct *pidfd_get_task(int pidfd, unsigned int *flags);
int pidfd_prepare(struct pid *pid, unsigned int flags, struct file **ret);
int __pidfd_prepare(struct pid *pid, unsigned int flags, struct file **ret);
int pidfd_create(struct pid *pid, unsigned int flags);
bool thread_group_exited(struct pid *pid);

static inline struct pid *get_pid(struct pid *pid)
{
	if (pid)
		__atomic_add_fetch(&pid->count, 1, __ATOMIC_RELAXED);
	return pid;
}

/* its number in the initial namespace (0: none) */
static inline pid_t pid_nr(struct pid *pid)
{
	return pid ? pid->numbers[0].nr : 0;
}

static inline struct pid *task_pid(struct task_struct *task)
{
	return task->thread_pid;
}

/* its thread group's pid (6.1: signal->pids[PIDTYPE_TGID], the leader's) */
static inline struct pid *task_tgid(struct task_struct *task)
{
	return task->group_leader->thread_pid;
}
#endif
