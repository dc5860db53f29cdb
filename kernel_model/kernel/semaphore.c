/*
 * Counting semaphores (kernel/locking/semaphore.c): down() takes a unit or
 * sleeps in FIFO order until up() hands one over; lock:contention_begin/end
 * (flags 0: a sleeping lock of no other kind) bracket the sleep, as in 6.1.
 */
#include "../include/kernel.h"
#include "../include/semaphore.h"
#include "../include/trace/trace.h"

struct semaphore_waiter {
	struct list_head list;
	struct task_struct *task;
	bool up;
};

/* sem->lock held, interrupts off; dropped while asleep */
static noinline void __sched __down(struct semaphore *sem)
{
	struct semaphore_waiter waiter;

	trace_contention_begin(sem, 0);
	list_add_tail(&waiter.list, &sem->wait_list);
	waiter.task = current;
	waiter.up = false;
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		raw_spin_unlock_irq(&sem->lock);
		schedule();
		raw_spin_lock_irq(&sem->lock);
		if (waiter.up)
			break;
	}
	trace_contention_end(sem, 0);
}

void __sched down(struct semaphore *sem)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (likely(sem->count > 0))
		sem->count--;
	else
		__down(sem);
	raw_spin_unlock_irqrestore(&sem->lock, flags);
}

/* 0: taken; 1: none left */
int __sched down_trylock(struct semaphore *sem)
{
	unsigned long flags;
	int count;

	raw_spin_lock_irqsave(&sem->lock, flags);
	count = sem->count - 1;
	if (likely(count >= 0))
		sem->count = count;
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	return count < 0;
}

/* The unit goes to the first waiter; sem->lock held.  Its task, to wake. */
static noinline struct task_struct *__sched __up(struct semaphore *sem)
{
	struct semaphore_waiter *waiter = list_first_entry(&sem->wait_list, struct semaphore_waiter, list);

	list_del_init(&waiter->list);
	waiter->up = true;
	return waiter->task;
}

void __sched up(struct semaphore *sem)
{
	struct task_struct *wake = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (likely(list_empty(&sem->wait_list)))
		sem->count++;
	else
		wake = __up(sem);
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	if (wake)
		wake_up_process(wake);
}
