/*
 * Read-write semaphores (include/linux/rwsem.h, kernel/locking/rwsem.c): many readers or one
 * writer.  count holds the writer bit, the waiters and handoff flags and, from bit 8 on, the
 * readers; owner the writer (or the last reader, with RWSEM_READER_OWNED).
 */
#ifndef _RWSEM_H
#define _RWSEM_H
#include "list.h"
#include "spinlock.h"

struct rw_semaphore {
	long count;
	unsigned long owner;
	raw_spinlock_t wait_lock;
	struct list_head wait_list;
};

#define __RWSEM_INITIALIZER(name) { 0, 0, { { { 0 } } }, LIST_HEAD_INIT((name).wait_list) }
#define DECLARE_RWSEM(name) struct rw_semaphore name = __RWSEM_INITIALIZER(name)

void __init_rwsem(struct rw_semaphore *sem);
#define init_rwsem(sem) __init_rwsem(sem)

void down_read(struct rw_semaphore *sem);
int down_read_interruptible(struct rw_semaphore *sem);	/* 0, or -EINTR: a signal came */
int down_read_killable(struct rw_semaphore *sem);	/* 0, or -EINTR: SIGKILL came */
int down_read_trylock(struct rw_semaphore *sem);	/* 1: taken */
void up_read(struct rw_semaphore *sem);
void down_write(struct rw_semaphore *sem);
int down_write_killable(struct rw_semaphore *sem);
int down_write_trylock(struct rw_semaphore *sem);
void up_write(struct rw_semaphore *sem);
void downgrade_write(struct rw_semaphore *sem);	/* the writer becomes a reader */

static inline bool rwsem_is_locked(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED) != 0;
}
#endif
