/*
 * The capability module (security/commoncap.c).  A task's effective set is what 6.1's
 * default securebits give root: all for an effective uid of 0 (cap_task_fix_setuid clears it
 * when the euid leaves 0), but the file-system ones (CAP_FS_MASK), which follow the fsuid
 * (dropped while it is not 0, raised when it is); the ids are the task's fields here (cred
 * is the task).
 */
#include "../include/cred.h"

#define CAP_FS_MASK ((1ULL << CAP_CHOWN) | (1ULL << CAP_MKNOD) | (1ULL << CAP_DAC_OVERRIDE) | \
		     (1ULL << CAP_DAC_READ_SEARCH) | (1ULL << CAP_FOWNER) | (1ULL << CAP_FSETID) | \
		     (1ULL << CAP_LINUX_IMMUTABLE) | (1ULL << CAP_MAC_OVERRIDE))

/* 0 if the task has cap in its effective set, -EPERM if not (capable.bt's kprobe) */
noinline int cap_capable(const struct cred *cred, struct user_namespace *targ_ns, int cap, unsigned int opts)
{
	const struct task_struct *task = (const struct task_struct *)cred;

	if ((CAP_FS_MASK >> cap) & 1)
		return task->fsuid == 0 ? 0 : -EPERM;
	return task->euid == 0 ? 0 : -EPERM;
}
