/*
 * Task credentials (kernel/cred.c, kernel/groups.c): the ids a task acts with.  6.1 keeps them in
 * a `struct cred` behind task->cred, replaced whole (prepare_creds/commit_creds); here they are
 * fields of the task (uid, and suid/euid/fsuid, gid/sgid/egid/fsgid), which only the task itself
 * changes (kernel/sys.c's set*id calls).  A user namespace maps every id to itself.  No
 * capabilities are kept: root's (an effective uid of 0; for the file checks a fsuid of 0) are
 * all of them, what 6.1 gives a task under the default securebits (cap_emulate_setxuid).
 * No supplementary groups (setgroups is not modelled): a task's groups are its fsgid alone.
 */
#include "../include/syscalls.h"
#include "../include/cred.h"

/* copy_process(): the child acts with its parent's ids */
noinline int copy_creds(struct task_struct *p, struct task_struct *parent)
{
	p->uid = parent->uid;
	p->suid = parent->suid;
	p->euid = parent->euid;
	p->fsuid = parent->fsuid;
	p->gid = parent->gid;
	p->sgid = parent->sgid;
	p->egid = parent->egid;
	p->fsgid = parent->fsgid;
	return 0;
}

/* whether the task's file system group is `grp` (or one of its supplementary groups: none) */
noinline int in_group_p(gid_t grp)
{
	return current->fsgid == grp;
}

/* kernel/groups.c: the supplementary groups, of which a task here has none */
SYSCALL_DEFINE2(getgroups, int, gidsetsize, gid_t *, grouplist)
{
	if (gidsetsize < 0)
		return -EINVAL;
	return 0;
}
