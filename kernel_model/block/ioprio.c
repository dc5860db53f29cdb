/*
 * I/O priorities (Linux 6.1's block/ioprio.c): ioprio_set(2) and ioprio_get(2) of a process, a
 * process group or a user's tasks.  A task without one set has the priority its nice gives
 * (best effort, level (nice + 20) / 5).
 */
#include "../include/blkdev.h"
#include "../include/cred.h"
#include "../include/security.h"
#include "../include/syscalls.h"

#define IOPRIO_CLASS_SHIFT	13
#define IOPRIO_PRIO_CLASS(ioprio)	(((ioprio) >> IOPRIO_CLASS_SHIFT) & 7)
#define IOPRIO_PRIO_LEVEL(ioprio)	((ioprio) & 7)
#define IOPRIO_PRIO_VALUE(class, level)	(((class) << IOPRIO_CLASS_SHIFT) | (level))
#define IOPRIO_NR_LEVELS	8
enum { IOPRIO_CLASS_NONE, IOPRIO_CLASS_RT, IOPRIO_CLASS_BE, IOPRIO_CLASS_IDLE };
#define IOPRIO_DEFAULT	IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0)
enum { IOPRIO_WHO_PROCESS = 1, IOPRIO_WHO_PGRP, IOPRIO_WHO_USER };

/* May the caller ask for this priority: real time only with CAP_SYS_NICE or CAP_SYS_ADMIN */
noinline int ioprio_check_cap(int ioprio)
{
	int class = IOPRIO_PRIO_CLASS(ioprio);
	int level = IOPRIO_PRIO_LEVEL(ioprio);

	switch (class) {
	case IOPRIO_CLASS_RT:
		if (!capable(CAP_SYS_NICE) && !capable(CAP_SYS_ADMIN))
			return -EPERM;
		__attribute__((__fallthrough__));
	case IOPRIO_CLASS_BE:
		if (level >= IOPRIO_NR_LEVELS)
			return -EINVAL;
		break;
	case IOPRIO_CLASS_IDLE:
		break;
	case IOPRIO_CLASS_NONE:
		if (level)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

SYSCALL_DEFINE3(ioprio_set, int, which, int, who, int, ioprio)
{
	struct task_struct *tasks[PRIO_MAX_TASKS];
	int ret, i, n;

	ret = ioprio_check_cap(ioprio);
	if (ret)
		return ret;
	if (which < IOPRIO_WHO_PROCESS || which > IOPRIO_WHO_USER)
		return -EINVAL;
	ret = -ESRCH;
	preempt_disable();	/* rcu_read_lock() */
	n = prio_targets(which - IOPRIO_WHO_PROCESS, who, tasks);	/* as PRIO_PROCESS, PGRP, USER */
	for (i = 0; i < n; i++) {
		ret = set_task_ioprio(tasks[i], ioprio);
		if (ret)
			break;
	}
	preempt_enable();
	return ret;
}

/* The priority the task's I/O has: the one set, else its nice's best-effort level */
noinline int __get_task_ioprio(struct task_struct *p)
{
	struct io_context *ioc = p->io_context;
	int prio = ioc ? ioc->ioprio : IOPRIO_DEFAULT;

	if (IOPRIO_PRIO_CLASS(prio) == IOPRIO_CLASS_NONE)
		prio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, (task_nice(p) + 20) / 5);	/* task_nice_ioclass(), task_nice_ioprio() */
	return prio;
}

static __always_inline int get_task_ioprio(struct task_struct *p)
{
	int ret = security_task_getioprio(p);

	return ret ? ret : __get_task_ioprio(p);
}

/* The priority as set (IOPRIO_DEFAULT if none was): ioprio_get of one process tells them apart */
static __always_inline int get_task_raw_ioprio(struct task_struct *p)
{
	int ret = security_task_getioprio(p);

	if (ret)
		return ret;
	return p->io_context ? p->io_context->ioprio : IOPRIO_DEFAULT;
}

/* the higher of two priorities (a lower class number, then a lower level; none counts as best
 * effort's normal level) */
static __always_inline int ioprio_best(unsigned short aprio, unsigned short bprio)
{
	if (IOPRIO_PRIO_CLASS(aprio) == IOPRIO_CLASS_NONE)
		aprio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4);
	if (IOPRIO_PRIO_CLASS(bprio) == IOPRIO_CLASS_NONE)
		bprio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4);
	return aprio < bprio ? aprio : bprio;
}

SYSCALL_DEFINE2(ioprio_get, int, which, int, who)
{
	struct task_struct *tasks[PRIO_MAX_TASKS];
	int ret = -ESRCH, tmpio, i, n;

	if (which < IOPRIO_WHO_PROCESS || which > IOPRIO_WHO_USER)
		return -EINVAL;
	preempt_disable();
	n = prio_targets(which - IOPRIO_WHO_PROCESS, who, tasks);	/* as PRIO_PROCESS, PGRP, USER */
	for (i = 0; i < n; i++) {
		if (which == IOPRIO_WHO_PROCESS) {
			ret = get_task_raw_ioprio(tasks[i]);
			break;
		}
		tmpio = get_task_ioprio(tasks[i]);
		if (tmpio < 0)
			continue;
		ret = ret == -ESRCH ? tmpio : ioprio_best(ret, tmpio);
	}
	preempt_enable();
	return ret;
}
