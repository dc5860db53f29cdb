/*
 * procfs' dynamic inode numbers (fs/proc/generic.c): the namespaces' (ns_alloc_inum), from
 * PROC_DYNAMIC_FIRST up.  6.1 takes the lowest free number of an ida; no namespace is ever
 * freed here, so the lowest free one is always the next.
 */
#include "internal.h"
#include "../../include/ns_common.h"

#define PROC_DYNAMIC_FIRST 0xF0000000U

static unsigned int proc_inum_next;	/* (6.1: proc_inum_ida) */
static spinlock_t proc_inum_lock;

noinline int proc_alloc_inum(unsigned int *inum)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&proc_inum_lock, flags);
	if (proc_inum_next > U32_MAX - PROC_DYNAMIC_FIRST)
		ret = -ENOSPC;
	else
		*inum = PROC_DYNAMIC_FIRST + proc_inum_next++;
	spin_unlock_irqrestore(&proc_inum_lock, flags);
	return ret;
}
