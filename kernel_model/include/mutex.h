/* Sleeping locks (include/linux/mutex.h): the owner word holds the owning
 * task and three flag bits; contenders spin while the owner runs, then sleep
 * on wait_list in FIFO order (kernel/mutex.c). */
#ifndef _MUTEX_H
#define _MUTEX_H
#include "list.h"
#include "spinlock.h"

struct mutex {
	unsigned long owner;		/* struct task_struct * | MUTEX_FLAG_* */
	raw_spinlock_t wait_lock;
	struct list_head wait_list;
};
#define __MUTEX_INITIALIZER(name) { 0, { { { 0 } } }, LIST_HEAD_INIT((name).wait_list) }
#define DEFINE_MUTEX(name) struct mutex name = __MUTEX_INITIALIZER(name)

void __mutex_init(struct mutex *lock);
#define mutex_init(lock) __mutex_init(lock)
void mutex_lock(struct mutex *lock);
/* the lock, or -EINTR: a signal (a fatal one, for _killable) came while waiting for it */
int mutex_lock_interruptible(struct mutex *lock);
int mutex_lock_killable(struct mutex *lock);
int mutex_trylock(struct mutex *lock);
void mutex_unlock(struct mutex *lock);
bool mutex_is_locked(struct mutex *lock);
#endif
