/* The process's identity and limits (kernel/sys.c; uname is in syscall.c): gettid, and the
 * resource limits as a fresh Debian login has them (getrlimit, prlimit64;
 * they are reported, and only RLIMIT_STACK bounds anything here: the stack's growth). */
#include "../include/security.h"
#include "../include/pid.h"
#include "../include/loadavg.h"
#include "../include/syscalls.h"
#include "../include/cputime.h"
#include "../include/cred.h"
#include "../include/uapi/prctl.h"
#include "../include/signal.h"
#include "../include/mm.h"
#include "../include/timer.h"

/* INIT_RLIMITS as 6.1 sets them for init (and fork_init()'s RLIMIT_NPROC and RLIMIT_SIGPENDING
 * of max_threads / 2), which every process inherits (copy_signal) */
const struct rlimit init_rlimits[RLIM_NLIMITS] = {
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

/* the process's limits: its signal_struct's, a session task's own copy (it has none), init's
 * for a task before its signal_struct (at boot) */
static notrace struct rlimit *task_rlimits(struct task_struct *task)
{
	if (task->signal)
		return task->signal->rlim;
	return task->session ? task->session_rlim : (struct rlimit *)init_rlimits;
}

/* A new session task's limits: its parent's (fork.c's session_copy_process) */
notrace void session_copy_rlimits(struct task_struct *parent, struct task_struct *p)
{
	memcpy(p->session_rlim, task_rlimits(parent), sizeof(p->session_rlim));
}

/* A session process's new limit, in each of its threads' copies */
static notrace void session_set_rlimit(struct task_struct *tsk, unsigned int resource, const struct rlimit *new)
{
	struct task_struct *t;

	list_for_each_entry(t, &task_list, tasks)
		if (t->tgid == tsk->tgid && t->session)
			t->session_rlim[resource] = *new;
}

/* task_rlimit(): a task's soft limit */
notrace unsigned long task_rlimit(const struct task_struct *task, unsigned int limit)
{
	return limit < RLIM_NLIMITS ? READ_ONCE(task_rlimits((struct task_struct *)task)[limit].rlim_cur) : 0;
}

/* task_rlimit_max(): its hard limit */
notrace unsigned long task_rlimit_max(const struct task_struct *task, unsigned int limit)
{
	return limit < RLIM_NLIMITS ? READ_ONCE(task_rlimits((struct task_struct *)task)[limit].rlim_max) : 0;
}

/*
 * kernel/pid.c: a task's id of a type (its pid, its thread group's, its process group's, its
 * session's) as the pid namespace ns sees it (NULL: the caller's).  Its own is its struct pid's
 * number (pid.h); the others are numbers here, which the one namespace sees as they are; a
 * reaped task has none left (0).
 */
noinline pid_t __task_pid_nr_ns(struct task_struct *task, enum pid_type type, struct pid_namespace *ns)
{
	static const pid_t none;
	const pid_t *nr;

	if (!ns)
		ns = task_active_pid_ns(current);
	if (type == PIDTYPE_PID)	/* task_pid_ptr(): &task->thread_pid */
		return pid_nr_ns(READ_ONCE(task->thread_pid), ns);
	if (task->exit_state == EXIT_DEAD)	/* its pids detached (release_task) */
		return 0;
	switch (type) {	/* task_pid_ptr() */
	case PIDTYPE_TGID:
		nr = &task->tgid;
		break;
	case PIDTYPE_PGID:
		nr = &task->pgrp;
		break;
	case PIDTYPE_SID:
		nr = &task->sid;
		break;
	default:
		nr = &none;
	}
	return READ_ONCE(*nr);
}

SYSCALL_DEFINE0(gettid)
{
	return task_pid_vnr(current);
}

/* ---- getpriority / setpriority: the nice of a process, a process group or a user's tasks ---- */
#define PRIO_PROCESS	0
#define PRIO_PGRP	1
#define PRIO_USER	2

/* May the caller set the task's nice: its own uid or euid is the task's uid, or CAP_SYS_NICE */
static __always_inline bool set_one_prio_perm(struct task_struct *p)
{
	if (current_cred()->uid == __task_cred(p)->uid || current_cred()->euid == __task_cred(p)->uid)
		return true;
	return ns_capable(&init_user_ns, CAP_SYS_NICE);
}

/* One task's nice set; error is the call's so far (-ESRCH until a task is found) */
static noinline int set_one_prio(struct task_struct *p, int niceval, int error)
{
	int no_nice;

	if (!set_one_prio_perm(p)) {
		error = -EPERM;
		goto out;
	}
	if (niceval < task_nice(p) && !can_nice(p, niceval)) {
		error = -EACCES;
		goto out;
	}
	no_nice = security_task_setnice(p, niceval);
	if (no_nice) {
		error = no_nice;
		goto out;
	}
	if (error == -ESRCH)
		error = 0;
	set_user_nice(p, niceval);
out:
	return error;
}

/* The tasks `which` and `who` name: one task, every thread of a process group, or of a user's
 * (6.1 walks them under rcu_read_lock(): here collected under the tasks' lock, preemption off
 * while the caller uses them); ioprio_set/ioprio_get's too */
notrace int prio_targets(int which, int who, struct task_struct **tasks)
{
	struct task_struct *t;
	unsigned long flags;
	int n = 0;

	if (which == PRIO_PROCESS) {
		t = who ? find_task_by_vpid(who) : current;
		if (t)
			tasks[n++] = t;
		return n;
	}
	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks) {
		if (n == PRIO_MAX_TASKS || (t->flags & PF_IDLE))
			continue;
		if (which == PRIO_PGRP ? t->pgrp == (who ? who : current->pgrp) :
		    task_uid(t) == (who ? (uid_t)who : current_uid()) && t->pid)
			tasks[n++] = t;
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	return n;
}

SYSCALL_DEFINE3(setpriority, int, which, int, who, int, niceval)
{
	struct task_struct *tasks[PRIO_MAX_TASKS];
	int error = -EINVAL, i, n;

	if (which > PRIO_USER || which < PRIO_PROCESS)
		return error;
	/* normalize: avoid signed division (rounding problems) */
	error = -ESRCH;
	if (niceval < MIN_NICE)
		niceval = MIN_NICE;
	if (niceval > MAX_NICE)
		niceval = MAX_NICE;
	preempt_disable();	/* rcu_read_lock() */
	n = prio_targets(which, who, tasks);
	for (i = 0; i < n; i++)
		error = set_one_prio(tasks[i], niceval, error);
	preempt_enable();
	return error;
}

/* The highest priority of the tasks, as 40 - nice (1 to 40: never negative) */
SYSCALL_DEFINE2(getpriority, int, which, int, who)
{
	struct task_struct *tasks[PRIO_MAX_TASKS];
	long niceval, retval = -ESRCH;
	int i, n;

	if (which > PRIO_USER || which < PRIO_PROCESS)
		return -EINVAL;
	preempt_disable();
	n = prio_targets(which, who, tasks);
	for (i = 0; i < n; i++) {
		niceval = 20 - task_nice(tasks[i]);	/* nice_to_rlimit() */
		if (niceval > retval)
			retval = niceval;
	}
	preempt_enable();
	return retval;
}

/*
 * Read and set a process's limit: a soft limit above the hard one is EINVAL, RLIMIT_NOFILE above
 * fs.nr_open or a hard limit raised without CAP_SYS_RESOURCE is EPERM.  (RLIMIT_CPU has no
 * CPU-time timer to arm here: it is kept and reported.)
 */
noinline int do_prlimit(struct task_struct *tsk, unsigned int resource, struct rlimit *new_rlim,
			struct rlimit *old_rlim)
{
	struct rlimit *rlim;
	unsigned long flags;
	int retval = 0;

	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	if (new_rlim) {
		if (new_rlim->rlim_cur > new_rlim->rlim_max)
			return -EINVAL;
		if (resource == RLIMIT_NOFILE && new_rlim->rlim_max > sysctl_nr_open)
			return -EPERM;
	}
	spin_lock_irqsave(&sched_lock, flags);	/* task_lock(tsk->group_leader) */
	rlim = task_rlimits(tsk) + resource;
	if (new_rlim) {
		if (new_rlim->rlim_max > rlim->rlim_max && !capable(CAP_SYS_RESOURCE))
			retval = -EPERM;
		if (!retval)
			retval = security_task_setrlimit(tsk, resource, new_rlim);
	}
	if (!retval) {
		if (old_rlim)
			*old_rlim = *rlim;
		if (new_rlim && tsk->signal)
			*rlim = *new_rlim;
		else if (new_rlim)
			session_set_rlimit(tsk, resource, new_rlim);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	return retval;
}

/* rlimit64 and rlimit are the same on 64-bit; 6.1 converts (RLIM64_INFINITY stays infinite) */
static __always_inline void rlim64_to_rlim(const struct rlimit64 *r64, struct rlimit *r)
{
	r->rlim_cur = r64->rlim_cur;
	r->rlim_max = r64->rlim_max;
}

static __always_inline void rlim_to_rlim64(const struct rlimit *r, struct rlimit64 *r64)
{
	r64->rlim_cur = r->rlim_cur;
	r64->rlim_max = r->rlim_max;
}

#define LSM_PRLIMIT_READ	1
#define LSM_PRLIMIT_WRITE	2

/* May the caller read or set the task's limits: its own, or a task whose ids are all the
 * caller's real ones, or with CAP_SYS_RESOURCE; then the LSM (6.1's, inline) */
static inline int check_prlimit_permission(struct task_struct *task, unsigned int flags)
{
	const struct cred *cred = current_cred(), *tcred;
	bool id_match;

	if (current == task)
		return 0;
	tcred = __task_cred(task);
	id_match = (cred->uid == tcred->euid && cred->uid == tcred->suid && cred->uid == tcred->uid &&
		    cred->gid == tcred->egid && cred->gid == tcred->sgid && cred->gid == tcred->gid);
	if (!id_match && !ns_capable(&init_user_ns, CAP_SYS_RESOURCE))
		return -EPERM;
	return security_task_prlimit(cred, tcred, flags);
}

SYSCALL_DEFINE4(prlimit64, pid_t, pid, unsigned int, resource, const struct rlimit64 *, new_rlim,
		struct rlimit64 *, old_rlim)
{
	struct rlimit64 old64, new64;
	struct rlimit old, new;
	struct task_struct *tsk = current;
	unsigned int checkflags = 0;
	int ret;

	if (old_rlim)
		checkflags |= LSM_PRLIMIT_READ;
	if (new_rlim) {
		if (copy_from_user(&new64, new_rlim, sizeof(new64)))
			return -EFAULT;
		rlim64_to_rlim(&new64, &new);
		checkflags |= LSM_PRLIMIT_WRITE;
	}
	if (pid && pid != current->pid && pid != current->tgid) {
		tsk = find_task_by_vpid(pid);
		if (!tsk)
			return -ESRCH;
	}
	ret = check_prlimit_permission(tsk, checkflags);
	if (ret)
		return ret;
	ret = do_prlimit(tsk, resource, new_rlim ? &new : NULL, old_rlim ? &old : NULL);
	if (!ret && old_rlim) {
		rlim_to_rlim64(&old, &old64);
		if (copy_to_user(old_rlim, &old64, sizeof(old64)))
			return -EFAULT;
	}
	return ret;
}

SYSCALL_DEFINE2(getrlimit, unsigned int, resource, struct rlimit *, rlim)
{
	struct rlimit value;
	int ret = do_prlimit(current, resource, NULL, &value);

	if (!ret && copy_to_user(rlim, &value, sizeof(value)))
		return -EFAULT;
	return ret;
}

SYSCALL_DEFINE2(setrlimit, unsigned int, resource, struct rlimit *, rlim)
{
	struct rlimit new_rlim;

	if (copy_from_user(&new_rlim, rlim, sizeof(*rlim)))
		return -EFAULT;
	return do_prlimit(current, resource, &new_rlim, NULL);
}

/* prctl(2): the capability module's options first (security_task_prctl: the bounding and
 * ambient sets, securebits, keepcaps), then the task's name (PR_SET_NAME: busybox names an
 * applet it exec'd through /proc/self/exe; task:task_rename).  The other options are not
 * modelled: EINVAL, as 6.1 gives for an option it does not know. */
SYSCALL_DEFINE5(prctl, int, option, unsigned long, arg2, unsigned long, arg3, unsigned long, arg4,
		unsigned long, arg5)
{
	struct task_struct *me = current;
	char comm[TASK_COMM_LEN];
	unsigned long flags;
	int error;

	error = security_task_prctl(option, arg2, arg3, arg4, arg5);
	if (error != -ENOSYS)
		return error;
	switch (option) {
	case PR_SET_NAME:
		comm[sizeof(comm) - 1] = 0;
		if (strncpy_from_user(comm, (const char *)arg2, sizeof(comm) - 1) < 0)
			return -EFAULT;
		set_task_comm(me, comm);
		return 0;
	case PR_GET_NAME:
		spin_lock_irqsave(&sched_lock, flags);
		__get_task_comm(comm, sizeof(comm), me);	/* get_task_comm() */
		spin_unlock_irqrestore(&sched_lock, flags);
		if (copy_to_user((void *)arg2, comm, sizeof(comm)))
			return -EFAULT;
		return 0;
	default:
		return -EINVAL;
	}
}

/* ---- the ids (kernel/sys.c): 6.1's rules; a uid change moves the capability sets with it
 * (security_task_fix_setuid) ---- */
#define INVALID_ID	((uid_t)-1)

SYSCALL_DEFINE0(geteuid)
{
	return from_kuid_munged(&init_user_ns, current_euid());
}

SYSCALL_DEFINE0(getgid)
{
	return from_kgid_munged(&init_user_ns, current_gid());
}

SYSCALL_DEFINE0(getegid)
{
	return from_kgid_munged(&init_user_ns, current_egid());
}

/*
 * Each set*id call changes a copy of the caller's credentials (prepare_creds()) and installs it
 * (commit_creds()), or drops it (abort_creds()) when refused, as 6.1's; setresuid/setresgid
 * check before they copy.
 */
noinline long __sys_setregid(gid_t rgid, gid_t egid)
{
	kgid_t krgid = make_kgid(&init_user_ns, rgid), kegid = make_kgid(&init_user_ns, egid);
	const struct cred *old;
	struct cred *new;

	if ((rgid != INVALID_ID && !gid_valid(krgid)) || (egid != INVALID_ID && !gid_valid(kegid)))
		return -EINVAL;
	new = prepare_creds();
	if (!new)
		return -ENOMEM;
	old = current_cred();
	if (rgid != INVALID_ID) {
		if (old->gid != krgid && old->egid != krgid && !ns_capable_setid(old->user_ns, CAP_SETGID))
			goto error;
		new->gid = krgid;
	}
	if (egid != INVALID_ID) {
		if (old->gid != kegid && old->egid != kegid && old->sgid != kegid &&
		    !ns_capable_setid(old->user_ns, CAP_SETGID))
			goto error;
		new->egid = kegid;
	}
	if (rgid != INVALID_ID || (egid != INVALID_ID && kegid != old->gid))
		new->sgid = new->egid;
	new->fsgid = new->egid;
	return commit_creds(new);
error:
	abort_creds(new);
	return -EPERM;
}

SYSCALL_DEFINE2(setregid, gid_t, rgid, gid_t, egid)
{
	return __sys_setregid(rgid, egid);
}

noinline long __sys_setgid(gid_t gid)
{
	kgid_t kgid = make_kgid(&init_user_ns, gid);
	const struct cred *old;
	struct cred *new;

	if (!gid_valid(kgid))
		return -EINVAL;
	new = prepare_creds();
	if (!new)
		return -ENOMEM;
	old = current_cred();
	if (ns_capable_setid(old->user_ns, CAP_SETGID))
		new->gid = new->egid = new->sgid = new->fsgid = kgid;
	else if (kgid == old->gid || kgid == old->sgid)
		new->egid = new->fsgid = kgid;
	else {
		abort_creds(new);
		return -EPERM;
	}
	return commit_creds(new);
}

SYSCALL_DEFINE1(setgid, gid_t, gid)
{
	return __sys_setgid(gid);
}

noinline long __sys_setreuid(uid_t ruid, uid_t euid)
{
	kuid_t kruid = make_kuid(&init_user_ns, ruid), keuid = make_kuid(&init_user_ns, euid);
	const struct cred *old;
	struct cred *new;

	if ((ruid != INVALID_ID && !uid_valid(kruid)) || (euid != INVALID_ID && !uid_valid(keuid)))
		return -EINVAL;
	new = prepare_creds();
	if (!new)
		return -ENOMEM;
	old = current_cred();
	if (ruid != INVALID_ID) {
		if (old->uid != kruid && old->euid != kruid && !ns_capable_setid(old->user_ns, CAP_SETUID))
			goto error;
		new->uid = kruid;
	}
	if (euid != INVALID_ID) {
		if (old->uid != keuid && old->euid != keuid && old->suid != keuid &&
		    !ns_capable_setid(old->user_ns, CAP_SETUID))
			goto error;
		new->euid = keuid;
	}
	if (ruid != INVALID_ID || (euid != INVALID_ID && keuid != old->uid))
		new->suid = new->euid;
	new->fsuid = new->euid;
	if (security_task_fix_setuid(new, old, LSM_SETID_RE) < 0)
		goto error;
	return commit_creds(new);
error:
	abort_creds(new);
	return -EPERM;
}

SYSCALL_DEFINE2(setreuid, uid_t, ruid, uid_t, euid)
{
	return __sys_setreuid(ruid, euid);
}

noinline long __sys_setuid(uid_t uid)
{
	kuid_t kuid = make_kuid(&init_user_ns, uid);
	const struct cred *old;
	struct cred *new;
	int retval;

	if (!uid_valid(kuid))
		return -EINVAL;
	new = prepare_creds();
	if (!new)
		return -ENOMEM;
	old = current_cred();
	if (ns_capable_setid(old->user_ns, CAP_SETUID))
		new->suid = new->uid = kuid;
	else if (kuid != old->uid && kuid != new->suid) {
		abort_creds(new);
		return -EPERM;
	}
	new->fsuid = new->euid = kuid;
	retval = security_task_fix_setuid(new, old, LSM_SETID_ID);
	if (retval < 0) {
		abort_creds(new);
		return retval;
	}
	return commit_creds(new);
}

SYSCALL_DEFINE1(setuid, uid_t, uid)
{
	return __sys_setuid(uid);
}

/* whether `id` is none of the three (one a set*id call may give only with the capability) */
static inline bool new_id(u32 id, u32 a, u32 b, u32 c)
{
	return id != INVALID_ID && id != a && id != b && id != c;
}

noinline long __sys_setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	kuid_t kruid = make_kuid(&init_user_ns, ruid), keuid = make_kuid(&init_user_ns, euid),
	       ksuid = make_kuid(&init_user_ns, suid);
	const struct cred *old = current_cred();
	struct cred *new;
	int retval;

	if ((ruid != INVALID_ID && !uid_valid(kruid)) || (euid != INVALID_ID && !uid_valid(keuid)) ||
	    (suid != INVALID_ID && !uid_valid(ksuid)))
		return -EINVAL;

	if ((ruid == INVALID_ID || kruid == old->uid) &&
	    (euid == INVALID_ID || (keuid == old->euid && keuid == old->fsuid)) &&
	    (suid == INVALID_ID || ksuid == old->suid))
		return 0;	/* a no-op */
	if ((new_id(ruid, old->uid, old->euid, old->suid) || new_id(euid, old->uid, old->euid, old->suid) ||
	     new_id(suid, old->uid, old->euid, old->suid)) && !ns_capable_setid(old->user_ns, CAP_SETUID))
		return -EPERM;
	new = prepare_creds();
	if (!new)
		return -ENOMEM;
	if (ruid != INVALID_ID)
		new->uid = kruid;
	if (euid != INVALID_ID)
		new->euid = keuid;
	if (suid != INVALID_ID)
		new->suid = ksuid;
	new->fsuid = new->euid;
	retval = security_task_fix_setuid(new, old, LSM_SETID_RES);
	if (retval < 0) {
		abort_creds(new);
		return retval;
	}
	return commit_creds(new);
}

SYSCALL_DEFINE3(setresuid, uid_t, ruid, uid_t, euid, uid_t, suid)
{
	return __sys_setresuid(ruid, euid, suid);
}

/* the three ids, as put_user() puts them: one at a time, stopping at the first fault */
static long put_ids(u32 a, u32 *ap, u32 b, u32 *bp, u32 c, u32 *cp)
{
	if (copy_to_user(ap, &a, sizeof(a)) || copy_to_user(bp, &b, sizeof(b)) ||
	    copy_to_user(cp, &c, sizeof(c)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE3(getresuid, uid_t *, ruidp, uid_t *, euidp, uid_t *, suidp)
{
	const struct cred *cred = current_cred();

	return put_ids(from_kuid_munged(cred->user_ns, cred->uid), ruidp, from_kuid_munged(cred->user_ns, cred->euid),
		       euidp, from_kuid_munged(cred->user_ns, cred->suid), suidp);
}

noinline long __sys_setresgid(gid_t rgid, gid_t egid, gid_t sgid)
{
	kgid_t krgid = make_kgid(&init_user_ns, rgid), kegid = make_kgid(&init_user_ns, egid),
	       ksgid = make_kgid(&init_user_ns, sgid);
	const struct cred *old = current_cred();
	struct cred *new;

	if ((rgid != INVALID_ID && !gid_valid(krgid)) || (egid != INVALID_ID && !gid_valid(kegid)) ||
	    (sgid != INVALID_ID && !gid_valid(ksgid)))
		return -EINVAL;

	if ((rgid == INVALID_ID || krgid == old->gid) &&
	    (egid == INVALID_ID || (kegid == old->egid && kegid == old->fsgid)) &&
	    (sgid == INVALID_ID || ksgid == old->sgid))
		return 0;
	if ((new_id(rgid, old->gid, old->egid, old->sgid) || new_id(egid, old->gid, old->egid, old->sgid) ||
	     new_id(sgid, old->gid, old->egid, old->sgid)) && !ns_capable_setid(old->user_ns, CAP_SETGID))
		return -EPERM;
	new = prepare_creds();
	if (!new)
		return -ENOMEM;
	if (rgid != INVALID_ID)
		new->gid = krgid;
	if (egid != INVALID_ID)
		new->egid = kegid;
	if (sgid != INVALID_ID)
		new->sgid = ksgid;
	new->fsgid = new->egid;
	return commit_creds(new);
}

SYSCALL_DEFINE3(setresgid, gid_t, rgid, gid_t, egid, gid_t, sgid)
{
	return __sys_setresgid(rgid, egid, sgid);
}

SYSCALL_DEFINE3(getresgid, gid_t *, rgidp, gid_t *, egidp, gid_t *, sgidp)
{
	const struct cred *cred = current_cred();

	return put_ids(from_kgid_munged(cred->user_ns, cred->gid), rgidp, from_kgid_munged(cred->user_ns, cred->egid),
		       egidp, from_kgid_munged(cred->user_ns, cred->sgid), sgidp);
}

/* setfsuid/setfsgid: the old id, whether or not the new one was allowed (a change to the id it
 * has is no change: nothing committed) */
noinline long __sys_setfsuid(uid_t uid)
{
	const struct cred *old = current_cred();
	uid_t old_fsuid = from_kuid_munged(old->user_ns, old->fsuid);
	kuid_t kuid = make_kuid(old->user_ns, uid);
	struct cred *new;

	if (!uid_valid(kuid))
		return old_fsuid;
	new = prepare_creds();
	if (!new)
		return old_fsuid;
	if ((kuid == old->uid || kuid == old->euid || kuid == old->suid || kuid == old->fsuid ||
	     ns_capable_setid(old->user_ns, CAP_SETUID)) && kuid != old->fsuid) {
		new->fsuid = kuid;
		if (security_task_fix_setuid(new, old, LSM_SETID_FS) == 0) {
			commit_creds(new);
			return old_fsuid;
		}
	}
	abort_creds(new);
	return old_fsuid;
}

SYSCALL_DEFINE1(setfsuid, uid_t, uid)
{
	return __sys_setfsuid(uid);
}

noinline long __sys_setfsgid(gid_t gid)
{
	const struct cred *old = current_cred();
	gid_t old_fsgid = from_kgid_munged(old->user_ns, old->fsgid);
	kgid_t kgid = make_kgid(old->user_ns, gid);
	struct cred *new;

	if (!gid_valid(kgid))
		return old_fsgid;
	new = prepare_creds();
	if (!new)
		return old_fsgid;
	if ((kgid == old->gid || kgid == old->egid || kgid == old->sgid || kgid == old->fsgid ||
	     ns_capable_setid(old->user_ns, CAP_SETGID)) && kgid != old->fsgid) {
		new->fsgid = kgid;
		commit_creds(new);
		return old_fsgid;
	}
	abort_creds(new);
	return old_fsgid;
}

SYSCALL_DEFINE1(setfsgid, gid_t, gid)
{
	return __sys_setfsgid(gid);
}

/* ---- times, sysinfo ---- */
struct tms { long tms_utime, tms_stime, tms_cutime, tms_cstime; };

static noinline void do_sys_times(struct tms *tms)
{
	u64 tgutime, tgstime;
	struct signal_struct *sig = current->signal;

	thread_group_cputime_adjusted(current, &tgutime, &tgstime);
	tms->tms_utime = nsec_to_clock_t(tgutime);
	tms->tms_stime = nsec_to_clock_t(tgstime);
	tms->tms_cutime = nsec_to_clock_t(sig ? sig->cutime : 0);
	tms->tms_cstime = nsec_to_clock_t(sig ? sig->cstime : 0);
}

SYSCALL_DEFINE1(times, struct tms *, tbuf)
{
	if (tbuf) {
		struct tms tmp;

		do_sys_times(&tmp);
		if (copy_to_user(tbuf, &tmp, sizeof(tmp)))
			return -EFAULT;
	}
	/* jiffies_64_to_clock_t(): HZ 250's 4 ms ticks in USER_HZ's 10 ms */
	return (long)(jiffies_64 * TICK_NSEC / (1000000000UL / USER_HZ));
}

/* getrusage(2) (6.1's getrusage()): the caller's thread group's (RUSAGE_SELF), its reaped
 * children's (RUSAGE_CHILDREN) or its own thread's (RUSAGE_THREAD) times, page faults and
 * context switches; what the model does not count (the peak RSS, block I/O, signals) is 0. */
#define RUSAGE_SELF	0
#define RUSAGE_CHILDREN	(-1)
#define RUSAGE_THREAD	1
struct rusage_timeval { long tv_sec, tv_usec; };
struct rusage {
	struct rusage_timeval ru_utime, ru_stime;
	long ru_maxrss, ru_ixrss, ru_idrss, ru_isrss, ru_minflt, ru_majflt, ru_nswap, ru_inblock,
	     ru_oublock, ru_msgsnd, ru_msgrcv, ru_nsignals, ru_nvcsw, ru_nivcsw;
};

noinline struct rusage_timeval ns_to_kernel_old_timeval(u64 ns)
{
	return (struct rusage_timeval){ ns / 1000000000UL, ns % 1000000000UL / 1000 };
}

noinline void getrusage(struct task_struct *p, int who, struct rusage *r)
{
	struct signal_struct *sig = p->signal;
	u64 utime = 0, stime = 0;
	unsigned long flags;

	memset(r, 0, sizeof(*r));
	switch (who) {
	case RUSAGE_CHILDREN:
		if (sig) {
			utime = sig->cutime;
			stime = sig->cstime;
			r->ru_minflt = sig->cmin_flt;
			r->ru_majflt = sig->cmaj_flt;
			r->ru_nvcsw = sig->cnvcsw;
			r->ru_nivcsw = sig->cnivcsw;
		}
		break;
	case RUSAGE_THREAD:
		utime = p->utime;
		stime = p->stime;
		r->ru_minflt = p->min_flt;
		r->ru_majflt = p->maj_flt;
		r->ru_nvcsw = p->nvcsw;
		r->ru_nivcsw = p->nivcsw;
		break;
	default: {	/* RUSAGE_SELF: every live thread of the group */
		struct task_struct *t;

		spin_lock_irqsave(&sched_lock, flags);
		list_for_each_entry(t, &task_list, tasks)
			if (t->tgid == p->tgid && !(t->flags & PF_KTHREAD)) {
				utime += t->utime;
				stime += t->stime;
				r->ru_minflt += t->min_flt;
				r->ru_majflt += t->maj_flt;
				r->ru_nvcsw += t->nvcsw;
				r->ru_nivcsw += t->nivcsw;
			}
		spin_unlock_irqrestore(&sched_lock, flags);
	}
	}
	r->ru_utime = ns_to_kernel_old_timeval(utime);
	r->ru_stime = ns_to_kernel_old_timeval(stime);
}

SYSCALL_DEFINE2(getrusage, int, who, struct rusage *, ru)
{
	struct rusage r;

	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD)
		return -EINVAL;
	getrusage(current, who, &r);
	return copy_to_user(ru, &r, sizeof(r)) ? -EFAULT : 0;
}

/* what /proc/uptime, /proc/loadavg and /proc/meminfo say: the time since boot, the load
 * average (avenrun, SI_LOAD_SHIFT bits of fraction), the tasks, the RAM in pages (no swap, no
 * page cache counted apart) */
static __always_inline void do_sysinfo(struct sysinfo *info)
{
	u64 ns = ktime_get();
	struct task_struct *t;
	unsigned long flags, mem_total;
	unsigned int bitcount = 0, mem_unit;

	memset(info, 0, sizeof(*info));
	info->uptime = ns / 1000000000UL + (ns % 1000000000UL ? 1 : 0);
	get_avenrun(info->loads, 0, SI_LOAD_SHIFT - FSHIFT);
	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks)
		info->procs++;
	spin_unlock_irqrestore(&sched_lock, flags);
	si_meminfo(info);
	/* the sizes in bytes (mem_unit 1) where they fit in a long, as 6.1 does */
	mem_total = info->totalram + info->totalswap;
	for (mem_unit = info->mem_unit; mem_unit > 1; mem_unit >>= 1) {
		bitcount++;
		if (mem_total << 1 < mem_total)
			return;
		mem_total <<= 1;
	}
	info->mem_unit = 1;
	info->totalram <<= bitcount;
	info->freeram <<= bitcount;
}

SYSCALL_DEFINE1(sysinfo, struct sysinfo *, info)
{
	struct sysinfo val;

	do_sysinfo(&val);
	return copy_to_user(info, &val, sizeof(val)) ? -EFAULT : 0;
}

/* ---- process groups and sessions (kernel/sys.c) ---- */

/* every thread of the group of `p` (6.1 keeps them once, in the signal_struct's pids); a
 * new session has no controlling terminal (setsid's proc_clear_tty()) */
static void set_group_ids(struct task_struct *p, pid_t pgrp, pid_t sid)
{
	struct task_struct *t;

	list_for_each_entry(t, &task_list, tasks)
		if (t->tgid == p->tgid) {
			if (t->sid != sid)
				t->tty = 0;
			t->pgrp = pgrp;
			t->sid = sid;
		}
}

notrace void proc_set_tty(u32 tty)
{
	struct task_struct *t;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks)
		if (t->tgid == current->tgid)
			t->tty = tty;
	spin_unlock_irqrestore(&sched_lock, flags);
}

/* whether a process group `pgrp` has a member in session `sid` */
static bool pgrp_in_session(pid_t pgrp, pid_t sid)
{
	struct task_struct *t;

	list_for_each_entry(t, &task_list, tasks)
		if (t->pgrp == pgrp && t->sid == sid && !t->exit_state)
			return true;
	return false;
}

SYSCALL_DEFINE2(setpgid, pid_t, pid, pid_t, pgid)
{
	struct task_struct *p, *me = current;
	unsigned long flags;
	int err;

	if (!pid)
		pid = me->tgid;
	if (!pgid)
		pgid = pid;
	if (pgid < 0)
		return -EINVAL;
	spin_lock_irqsave(&sched_lock, flags);
	err = -ESRCH;
	p = find_task_by_vpid(pid);
	if (!p)
		goto out;
	err = -EINVAL;
	if (p->pid != p->tgid)	/* a thread that does not lead its group */
		goto out;
	if (p->parent && p->parent->tgid == me->tgid) {	/* a child of ours */
		err = -EPERM;
		if (p->sid != me->sid)
			goto out;
		err = -EACCES;
		if (!(p->flags & PF_FORKNOEXEC))
			goto out;
	} else {
		err = -ESRCH;
		if (p->tgid != me->tgid)
			goto out;
	}
	err = -EPERM;
	if (p->sid == p->tgid)	/* a session leader */
		goto out;
	if (pgid != pid && !pgrp_in_session(pgid, me->sid))
		goto out;
	err = security_task_setpgid(p, pgid);
	if (err)
		goto out;
	set_group_ids(p, pgid, p->sid);
	err = 0;
out:
	spin_unlock_irqrestore(&sched_lock, flags);
	return err;
}

/* the process group (or session) of the task `pid` (0: the caller), ESRCH: none */
static __always_inline int task_group_id(pid_t pid, bool session)
{
	struct task_struct *p = current;
	unsigned long flags;
	int ret = -ESRCH;

	spin_lock_irqsave(&sched_lock, flags);
	if (pid) {
		p = find_task_by_vpid(pid);
		if (p) {	/* another's: the LSM's say first */
			ret = session ? security_task_getsid(p) : security_task_getpgid(p);
			if (ret)
				goto out;
		}
	}
	if (p)
		ret = session ? p->sid : p->pgrp;
out:
	spin_unlock_irqrestore(&sched_lock, flags);
	return ret;
}

static noinline int do_getpgid(pid_t pid)
{
	return task_group_id(pid, false);
}

SYSCALL_DEFINE1(getpgid, pid_t, pid)
{
	return do_getpgid(pid);
}

SYSCALL_DEFINE0(getpgrp)
{
	return do_getpgid(0);
}

SYSCALL_DEFINE1(getsid, pid_t, pid)
{
	return task_group_id(pid, true);
}

/* A new session led by the caller, in a new process group of its own: not for a process group
 * leader (a group with its pid as id exists: EPERM). */
noinline int ksys_setsid(void)
{
	struct task_struct *me = current, *t;
	unsigned long flags;
	int err = -EPERM;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks)
		if (t->pgrp == me->tgid && !t->exit_state)
			goto out;
	set_group_ids(me, me->tgid, me->tgid);
	err = me->tgid;
out:
	spin_unlock_irqrestore(&sched_lock, flags);
	return err;
}

SYSCALL_DEFINE0(setsid)
{
	return ksys_setsid();
}

/* the cpu the caller runs on (and its NUMA node: one node here) */
SYSCALL_DEFINE3(getcpu, unsigned *, cpup, unsigned *, nodep, struct getcpu_cache *, unused)
{
	unsigned int cpu = smp_processor_id(), node = 0;
	int err = 0;

	if (cpup)
		err |= copy_to_user(cpup, &cpu, sizeof(cpu)) ? -EFAULT : 0;
	if (nodep)
		err |= copy_to_user(nodep, &node, sizeof(node)) ? -EFAULT : 0;
	return err ? -EFAULT : 0;
}
