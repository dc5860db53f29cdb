/*
 * What every namespace begins with or holds (include/linux/ns_common.h): its inode number, the
 * one /proc/PID/ns/ links show ("mnt:[4026531841]") and tools read (task->nsproxy->mnt_ns->ns.inum),
 * and the operations of its kind.  Debian 6.1's layout.
 */
#ifndef _NS_COMMON_H
#define _NS_COMMON_H
#include "types.h"

struct proc_ns_operations;
struct ns_common {
	long stashed;				/* (6.1: atomic_long_t; nsfs' dentry: no nsfs here) */
	const struct proc_ns_operations *ops;
	unsigned int inum;
	int count;				/* refcount_t */
};
_Static_assert(sizeof(struct ns_common) == 24 && __builtin_offsetof(struct ns_common, inum) == 16,
	       "struct ns_common as Debian 6.1's");

/* include/linux/proc_ns.h: the initial namespaces' fixed numbers; the others' come from
 * proc_alloc_inum() (fs/proc/generic.c) */
enum {
	PROC_IPC_INIT_INO	= 0xEFFFFFFFU,
	PROC_UTS_INIT_INO	= 0xEFFFFFFEU,
	PROC_USER_INIT_INO	= 0xEFFFFFFDU,
	PROC_PID_INIT_INO	= 0xEFFFFFFCU,
	PROC_CGROUP_INIT_INO	= 0xEFFFFFFBU,
	PROC_TIME_INIT_INO	= 0xEFFFFFFAU,
};
int proc_alloc_inum(unsigned int *inum);
static inline int ns_alloc_inum(struct ns_common *ns) { return proc_alloc_inum(&ns->inum); }
#endif
