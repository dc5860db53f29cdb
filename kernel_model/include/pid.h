/*
 * Process ids (include/linux/pid.h, kernel/pid.c): a `struct pid` per id in use, found by its
 * number (find_pid_ns), naming the task that has it (pid_task).  One pid namespace, the
 * initial one.  Only the PIDTYPE_PID links are kept: a thread group's, process group's and
 * session's ids are the numbers in task_struct (tgid, pgrp, sid).
 */
#ifndef _PID_H
#define _PID_H
#include "kernel.h"

struct pid_namespace {
	unsigned int level;
	int pid_allocated;	/* ids in use */
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
struct pid_namespace *task_active_pid_ns(struct task_struct *tsk);

static inline struct pid *get_pid(struct pid *pid)
{
	if (pid)
		__atomic_add_fetch(&pid->count, 1, __ATOMIC_RELAXED);
	return pid;
}

static inline struct pid *task_pid(struct task_struct *task)
{
	return task->thread_pid;
}
#endif
