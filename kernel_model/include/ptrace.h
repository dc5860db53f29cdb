/* ptrace access checks (6.1's include/linux/ptrace.h): kernel/ptrace.c */
#ifndef _PTRACE_H
#define _PTRACE_H
#include "kernel.h"

#define PTRACE_MODE_READ	0x01
#define PTRACE_MODE_ATTACH	0x02
#define PTRACE_MODE_NOAUDIT	0x04
#define PTRACE_MODE_FSCREDS	0x08
#define PTRACE_MODE_REALCREDS	0x10
#define PTRACE_MODE_READ_FSCREDS	(PTRACE_MODE_READ | PTRACE_MODE_FSCREDS)
#define PTRACE_MODE_READ_REALCREDS	(PTRACE_MODE_READ | PTRACE_MODE_REALCREDS)
#define PTRACE_MODE_ATTACH_FSCREDS	(PTRACE_MODE_ATTACH | PTRACE_MODE_FSCREDS)
#define PTRACE_MODE_ATTACH_REALCREDS	(PTRACE_MODE_ATTACH | PTRACE_MODE_REALCREDS)

/* may current look into task so (the caller holds sched_lock: task stays) */
int __ptrace_may_access(struct task_struct *task, unsigned int mode);
bool ptrace_may_access(struct task_struct *task, unsigned int mode);
#endif
