/* Task credentials (kernel/cred.c): the ids are fields of task_struct */
#ifndef _CRED_H
#define _CRED_H
#include "kernel.h"

int copy_creds(struct task_struct *p, struct task_struct *parent);
int in_group_p(gid_t grp);

/* ns_capable_setid(CAP_SETUID / CAP_SETGID), capable(CAP_SYS_ADMIN)...: root's effective uid */
static inline bool capable_euid(void)
{
	return current->euid == 0;
}

/* the file-system capabilities (CAP_DAC_OVERRIDE, CAP_FOWNER...): dropped with a non-zero fsuid */
static inline bool capable_fsuid(void)
{
	return current->fsuid == 0;
}
#endif
