/* Counting semaphores (include/linux/semaphore.h): console_sem is one. */
#ifndef _SEMAPHORE_H
#define _SEMAPHORE_H
#include "list.h"
#include "spinlock.h"

struct semaphore {
	raw_spinlock_t lock;
	unsigned int count;
	struct list_head wait_list;
};
#define __SEMAPHORE_INITIALIZER(name, n) { { { { 0 } } }, n, LIST_HEAD_INIT((name).wait_list) }
#define DEFINE_SEMAPHORE(name) struct semaphore name = __SEMAPHORE_INITIALIZER(name, 1)

void down(struct semaphore *sem);
int down_trylock(struct semaphore *sem);
void up(struct semaphore *sem);
#endif
