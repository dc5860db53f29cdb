/*
 * A task's I/O context (Linux 6.1's block/blk-ioc.c): made when its I/O priority is first set,
 * a copy of the parent's for a child whose parent set one (CLONE_IO: shared), gone when the
 * task exits.  It holds the priority ioprio_get(2) reads back; no I/O scheduler here uses it.
 */
#include "../include/blkdev.h"
#include "../include/slab.h"
#include "../include/cred.h"
#include "../include/security.h"

static struct kmem_cache *iocontext_cachep;

static void put_io_context_free(struct io_context *ioc);

/* A new I/O context, one reference and one task using it */
noinline struct io_context *alloc_io_context(gfp_t gfp_flags, int node)
{
	struct io_context *ioc = kmem_cache_zalloc(iocontext_cachep, gfp_flags);

	if (unlikely(!ioc))
		return NULL;
	ioc->refcount = 1;
	ioc->active_ref = 1;
	return ioc;
}

/* A reference dropped: the context freed with the last */
noinline void put_io_context(struct io_context *ioc)
{
	if (__atomic_sub_fetch(&ioc->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		put_io_context_free(ioc);
}

static __always_inline void put_io_context_free(struct io_context *ioc)
{
	kmem_cache_free(iocontext_cachep, ioc);
}

/* The exiting task lets go of its context */
noinline void exit_io_context(struct task_struct *task)
{
	struct io_context *ioc = task->io_context;

	task->io_context = NULL;	/* (task_lock: only the task itself reaches it here) */
	if (__atomic_sub_fetch(&ioc->active_ref, 1, __ATOMIC_ACQ_REL) == 0)
		put_io_context(ioc);	/* (no queue's icq to exit: ioc_exit_icqs) */
}

/* The task's I/O priority set (ioprio_set(2)): the caller's own tasks, or with CAP_SYS_NICE;
 * the context made on the first */
noinline int set_task_ioprio(struct task_struct *task, int ioprio)
{
	int err;

	if (__task_cred(task)->uid != current_cred()->euid && __task_cred(task)->uid != current_cred()->uid && !capable(CAP_SYS_NICE))
		return -EPERM;
	err = security_task_setioprio(task, ioprio);
	if (err)
		return err;
	if (unlikely(!task->io_context)) {
		struct io_context *ioc = alloc_io_context(GFP_ATOMIC, NUMA_NO_NODE);

		if (!ioc)
			return -ENOMEM;
		if (task->flags & PF_EXITING) {
			kmem_cache_free(iocontext_cachep, ioc);
			return 0;
		}
		if (!__sync_bool_compare_and_swap(&task->io_context, NULL, ioc))
			kmem_cache_free(iocontext_cachep, ioc);
	}
	task->io_context->ioprio = ioprio;
	return 0;
}

void __init blk_ioc_init(void)
{
	iocontext_cachep = kmem_cache_create("blkdev_ioc", sizeof(struct io_context), 0, SLAB_PANIC, NULL);
}
