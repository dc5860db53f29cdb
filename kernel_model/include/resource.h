/* Resource limits (include/uapi/asm-generic/resource.h, linux/sched/signal.h's rlimit()):
 * a process's, kept in its signal_struct (signal.h), inherited by fork, kept over exec. */
#ifndef _RESOURCE_H
#define _RESOURCE_H
#include "types.h"

#define RLIMIT_CPU		0
#define RLIMIT_FSIZE		1
#define RLIMIT_DATA		2
#define RLIMIT_STACK		3
#define RLIMIT_CORE		4
#define RLIMIT_RSS		5
#define RLIMIT_NPROC		6
#define RLIMIT_NOFILE		7
#define RLIMIT_MEMLOCK		8
#define RLIMIT_AS		9
#define RLIMIT_LOCKS		10
#define RLIMIT_SIGPENDING	11
#define RLIMIT_MSGQUEUE		12
#define RLIMIT_NICE		13
#define RLIMIT_RTPRIO		14
#define RLIMIT_RTTIME		15
#define RLIM_NLIMITS		16
#define RLIM_INFINITY		(~0UL)

struct rlimit { unsigned long rlim_cur, rlim_max; };
struct rlimit64 { u64 rlim_cur, rlim_max; };

struct task_struct;
/* INIT_RLIMITS (kernel/sys.c): init's, which every process inherits */
extern const struct rlimit init_rlimits[RLIM_NLIMITS];
/* a task's soft and hard limit (its process's) */
unsigned long task_rlimit(const struct task_struct *task, unsigned int limit);
unsigned long task_rlimit_max(const struct task_struct *task, unsigned int limit);
void session_copy_rlimits(struct task_struct *parent, struct task_struct *p);
#define rlimit(limit)		task_rlimit(current, limit)
#define rlimit_max(limit)	task_rlimit_max(current, limit)
/* fs/file.c's sysctl_nr_open: the most RLIMIT_NOFILE may be (fs.nr_open) */
extern unsigned int sysctl_nr_open;
#endif
