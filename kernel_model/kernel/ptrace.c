/*
 * Who may look into another task (6.1's kernel/ptrace.c, __ptrace_may_access()): its own
 * process, one whose ids all are the caller's (its fs ids with PTRACE_MODE_FSCREDS, else its
 * real ones), or a caller with CAP_SYS_PTRACE.  (Every mm here is SUID_DUMP_USER and there is
 * no LSM: those checks always pass.)  /proc/PID's stack, syscall, wchan and fdinfo ask it.
 */
#include "../include/kernel.h"
#include "../include/cred.h"
#include "../include/ptrace.h"

/* 0, or -EPERM; task stays as it is meanwhile (the caller holds sched_lock) */
noinline int __ptrace_may_access(struct task_struct *task, unsigned int mode)
{
	uid_t caller_uid;
	gid_t caller_gid;
	const struct cred *cred, *tcred;

	if (!(mode & PTRACE_MODE_FSCREDS) == !(mode & PTRACE_MODE_REALCREDS))
		return -EPERM;	/* (6.1 warns: a check that says neither) */
	if (task->tgid == current->tgid)
		return 0;
	cred = current_cred();
	caller_uid = mode & PTRACE_MODE_FSCREDS ? cred->fsuid : cred->uid;
	caller_gid = mode & PTRACE_MODE_FSCREDS ? cred->fsgid : cred->gid;
	tcred = __task_cred(task);
	if (caller_uid == tcred->euid && caller_uid == tcred->suid && caller_uid == tcred->uid &&
	    caller_gid == tcred->egid && caller_gid == tcred->sgid && caller_gid == tcred->gid)
		return 0;
	return capable(CAP_SYS_PTRACE) ? 0 : -EPERM;
}

noinline bool ptrace_may_access(struct task_struct *task, unsigned int mode)
{
	return !__ptrace_may_access(task, mode);
}
