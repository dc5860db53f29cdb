/* Wait queues (kernel/wait.c, Linux's kernel/sched/wait.c): a task sleeps on a queue until
 * a condition holds; wake_up() wakes the sleepers. */
#ifndef _WAIT_H
#define _WAIT_H
#include "kernel.h"

struct wait_queue_entry {
	unsigned int flags;
	struct task_struct *private;
	struct list_head entry;
};
typedef struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
} wait_queue_head_t;
#define WQ_FLAG_EXCLUSIVE 0x01

void init_waitqueue_head(struct wait_queue_head *wq_head);
void __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr, void *key);
long prepare_to_wait_event(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry, int state);
void finish_wait(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry);
#define wake_up(x) __wake_up(x, TASK_NORMAL, 1, NULL)
#define wake_up_interruptible(x) __wake_up(x, TASK_INTERRUPTIBLE, 1, NULL)
#define wake_up_interruptible_all(x) __wake_up(x, TASK_INTERRUPTIBLE, 0, NULL)
#define TASK_NORMAL (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)

/* Sleep until cond; -ERESTARTSYS (-512) when a fatal signal interrupts. */
#define ERESTARTSYS 512

/* Sleep until cond, uninterruptibly (TASK_UNINTERRUPTIBLE: the state `D` of a task waiting
 * for its I/O). */
#define wait_event(wq_head, condition) do {					\
	struct wait_queue_entry __wq_entry = { .private = current };		\
	INIT_LIST_HEAD(&__wq_entry.entry);					\
	for (;;) {								\
		prepare_to_wait_event(&(wq_head), &__wq_entry, TASK_UNINTERRUPTIBLE); \
		if (condition)							\
			break;							\
		schedule();							\
	}									\
	finish_wait(&(wq_head), &__wq_entry);					\
} while (0)
#define wait_event_interruptible(wq_head, condition) ({				\
	long __ret = 0;								\
	struct wait_queue_entry __wq_entry = { .private = current };		\
	INIT_LIST_HEAD(&__wq_entry.entry);					\
	for (;;) {								\
		if (condition)							\
			break;							\
		__ret = prepare_to_wait_event(&(wq_head), &__wq_entry, TASK_INTERRUPTIBLE); \
		if (condition) {						\
			__ret = 0;						\
			break;							\
		}							\
		if (__ret)							\
			break;							\
		schedule();							\
	}									\
	finish_wait(&(wq_head), &__wq_entry);					\
	__ret;									\
})
#endif
