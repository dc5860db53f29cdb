/* The process's identity and limits (kernel/sys.c; uname is in syscall.c): gettid, and the
 * resource limits as a fresh Debian login has them (getrlimit, prlimit64;
 * they are reported, and only RLIMIT_STACK bounds anything here: the stack's growth). */
#include "../include/syscalls.h"

#define RLIMIT_CPU	0
#define RLIMIT_FSIZE	1
#define RLIMIT_DATA	2
#define RLIMIT_STACK	3
#define RLIMIT_CORE	4
#define RLIMIT_RSS	5
#define RLIMIT_NPROC	6
#define RLIMIT_NOFILE	7
#define RLIMIT_MEMLOCK	8
#define RLIMIT_AS	9
#define RLIMIT_LOCKS	10
#define RLIMIT_SIGPENDING 11
#define RLIMIT_MSGQUEUE	12
#define RLIMIT_NICE	13
#define RLIMIT_RTPRIO	14
#define RLIMIT_RTTIME	15
#define RLIM_NLIMITS	16
#define RLIM_INFINITY	(~0UL)

struct rlimit64 { u64 rlim_cur, rlim_max; };

/* INIT_RLIMITS as 6.1 sets them for init, and what a process inherits from it */
static const struct rlimit64 init_rlimits[RLIM_NLIMITS] = {
	[RLIMIT_CPU]		= { RLIM_INFINITY, RLIM_INFINITY },
	[RLIMIT_FSIZE]		= { RLIM_INFINITY, RLIM_INFINITY },
	[RLIMIT_DATA]		= { RLIM_INFINITY, RLIM_INFINITY },
	[RLIMIT_STACK]		= { 8UL << 20, RLIM_INFINITY },	/* _STK_LIM */
	[RLIMIT_CORE]		= { 0, RLIM_INFINITY },
	[RLIMIT_RSS]		= { RLIM_INFINITY, RLIM_INFINITY },
	[RLIMIT_NPROC]		= { 0x3fff, 0x3fff },
	[RLIMIT_NOFILE]		= { 1024, 4096 },		/* INR_OPEN_CUR, INR_OPEN_MAX */
	[RLIMIT_MEMLOCK]	= { 8UL << 20, 8UL << 20 },	/* MLOCK_LIMIT */
	[RLIMIT_AS]		= { RLIM_INFINITY, RLIM_INFINITY },
	[RLIMIT_LOCKS]		= { RLIM_INFINITY, RLIM_INFINITY },
	[RLIMIT_SIGPENDING]	= { 0x3fff, 0x3fff },
	[RLIMIT_MSGQUEUE]	= { 819200, 819200 },		/* MQ_BYTES_MAX */
	[RLIMIT_NICE]		= { 0, 0 },
	[RLIMIT_RTPRIO]		= { 0, 0 },
	[RLIMIT_RTTIME]		= { RLIM_INFINITY, RLIM_INFINITY },
};

SYSCALL_DEFINE0(gettid)
{
	return current->pid;
}

/* The limits can be read; setting one to what it is succeeds, anything else is EPERM
 * (no limit is kept per process yet). */
noinline int do_prlimit(struct task_struct *tsk, unsigned int resource, struct rlimit64 *new_rlim,
			struct rlimit64 *old_rlim)
{
	const struct rlimit64 *rlim;

	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	rlim = &init_rlimits[resource];
	if (new_rlim) {
		if (new_rlim->rlim_cur > new_rlim->rlim_max)
			return -EINVAL;
		if (new_rlim->rlim_cur != rlim->rlim_cur || new_rlim->rlim_max != rlim->rlim_max)
			return -EPERM;
	}
	if (old_rlim)
		*old_rlim = *rlim;
	return 0;
}

SYSCALL_DEFINE4(prlimit64, pid_t, pid, unsigned int, resource, const struct rlimit64 *, new_rlim,
		struct rlimit64 *, old_rlim)
{
	struct rlimit64 old, new;
	struct task_struct *tsk = current;
	int ret;

	if (new_rlim && copy_from_user(&new, new_rlim, sizeof(new)))
		return -EFAULT;
	if (pid && pid != current->pid && pid != current->tgid) {
		tsk = find_task_by_pid(pid);
		if (!tsk)
			return -ESRCH;
	}
	ret = do_prlimit(tsk, resource, new_rlim ? &new : NULL, old_rlim ? &old : NULL);
	if (!ret && old_rlim && copy_to_user(old_rlim, &old, sizeof(old)))
		return -EFAULT;
	return ret;
}

SYSCALL_DEFINE2(getrlimit, unsigned int, resource, struct rlimit *, rlim)
{
	struct rlimit64 value;
	int ret = do_prlimit(current, resource, NULL, &value);

	if (!ret && copy_to_user(rlim, &value, sizeof(value)))
		return -EFAULT;
	return ret;
}

#define PR_SET_NAME	15
#define PR_GET_NAME	16

/* prctl(2): the task's name (PR_SET_NAME: busybox names an applet it exec'd through
 * /proc/self/exe; task:task_rename).  The other options are not modelled: EINVAL, as 6.1
 * gives for an option it does not know. */
SYSCALL_DEFINE5(prctl, int, option, unsigned long, arg2, unsigned long, arg3, unsigned long, arg4,
		unsigned long, arg5)
{
	struct task_struct *me = current;
	char comm[TASK_COMM_LEN];
	unsigned long flags;

	switch (option) {
	case PR_SET_NAME:
		comm[sizeof(comm) - 1] = 0;
		if (strncpy_from_user(comm, (const char *)arg2, sizeof(comm) - 1) < 0)
			return -EFAULT;
		set_task_comm(me, comm);
		return 0;
	case PR_GET_NAME:
		spin_lock_irqsave(&sched_lock, flags);	/* get_task_comm() */
		memcpy(comm, me->comm, sizeof(comm));
		spin_unlock_irqrestore(&sched_lock, flags);
		comm[sizeof(comm) - 1] = 0;
		if (copy_to_user((void *)arg2, comm, sizeof(comm)))
			return -EFAULT;
		return 0;
	default:
		return -EINVAL;
	}
}
