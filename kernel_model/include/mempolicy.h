/* NUMA memory policies (include/linux/mempolicy.h): mm/mempolicy.c */
#ifndef _MEMPOLICY_H
#define _MEMPOLICY_H
#include "kernel.h"
#include "mmzone.h"

enum { MPOL_DEFAULT, MPOL_PREFERRED, MPOL_BIND, MPOL_INTERLEAVE, MPOL_LOCAL, MPOL_PREFERRED_MANY, MPOL_MAX };

/* 6.1's MAX_NUMNODES as Debian builds it (CONFIG_NODES_SHIFT 10): the size of a node mask the
 * calls take and give, though the machine has one node (mmzone.h's MAX_NUMNODES) */
#define NODEMASK_BITS	1024
typedef struct { unsigned long bits[NODEMASK_BITS / 64]; } nodemask_t;

struct mempolicy {
	int refcnt;			/* atomic_t */
	unsigned short mode;		/* MPOL_* */
	unsigned short flags;		/* MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES... */
	nodemask_t nodes;
	nodemask_t user_nodemask;	/* what the caller asked (6.1: w.user_nodemask or w.cpuset_mems_allowed) */
};

struct mempolicy *__mpol_dup(struct mempolicy *pol);
void __mpol_put(struct mempolicy *pol);
void mpol_put_task_policy(struct task_struct *task);

static inline struct mempolicy *mpol_dup(struct mempolicy *pol)
{
	return pol ? __mpol_dup(pol) : NULL;
}

static inline void mpol_put(struct mempolicy *pol)
{
	if (pol)
		__mpol_put(pol);
}
#endif
