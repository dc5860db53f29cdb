/* Wait queues (kernel/wait.c, Linux's kernel/sched/wait.c): a task sleeps on a queue until
 * a condition holds; wake_up() wakes the sleepers. */
#ifndef _WAIT_H
#define _WAIT_H
#include "kernel.h"

struct wait_queue_entry;
/* a waiter's wake function (6.1's wait_queue_func_t): what __wake_up() calls for it with the
 * waker's key (the poll mask of what happened, or NULL); NULL: wake `private`, a task */
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry, unsigned int mode, int flags, void *key);
struct wait_queue_entry {
	unsigned int flags;
	void *private;
	wait_queue_func_t func;
	struct list_head entry;
};
typedef struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
} wait_queue_head_t;
#define WQ_FLAG_EXCLUSIVE 0x01

void __init_waitqueue_head(struct wait_queue_head *wq_head, const char *name, void *key);
#define init_waitqueue_head(wq_head) __init_waitqueue_head(wq_head, #wq_head, NULL)
int default_wake_function(struct wait_queue_entry *curr, unsigned int mode, int wake_flags, void *key);
void __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr, void *key);
long prepare_to_wait_event(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry, int state);
void finish_wait(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry);
int autoremove_wake_function(struct wait_queue_entry *wq_entry, unsigned int mode, int sync, void *key);
void init_wait_entry(struct wait_queue_entry *wq_entry, int flags);
#define wake_up(x) __wake_up(x, TASK_NORMAL, 1, NULL)
#define wake_up_interruptible(x) __wake_up(x, TASK_INTERRUPTIBLE, 1, NULL)
#define wake_up_interruptible_all(x) __wake_up(x, TASK_INTERRUPTIBLE, 0, NULL)
/* with the poll mask of what happened, for poll's and epoll's wake functions */
#define poll_to_key(m) ((void *)(unsigned long)(m))
#define key_to_poll(k) ((unsigned int)(unsigned long)(k))
#define wake_up_poll(x, m) __wake_up(x, TASK_NORMAL, 1, poll_to_key(m))
#define wake_up_interruptible_poll(x, m) __wake_up(x, TASK_INTERRUPTIBLE, 1, poll_to_key(m))
void __wake_up_sync_key(struct wait_queue_head *wq_head, unsigned int mode, void *key);
#define wake_up_interruptible_sync_poll(x, m) __wake_up_sync_key(x, TASK_INTERRUPTIBLE, poll_to_key(m))
#define wake_up_interruptible_all_poll(x, m) __wake_up(x, TASK_INTERRUPTIBLE, 0, poll_to_key(m))
static inline bool waitqueue_active(struct wait_queue_head *wq_head) { return !list_empty(&wq_head->head); }
void add_wait_queue(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry);
void remove_wait_queue(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry);
#define TASK_NORMAL (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)

/* Sleep until cond; -ERESTARTSYS (-512) when a fatal signal interrupts. */
#define ERESTARTSYS 512

/* Sleep until cond, uninterruptibly (TASK_UNINTERRUPTIBLE: the state `D` of a task waiting
 * for its I/O). */
#define wait_event(wq_head, condition) do {					\
	struct wait_queue_entry __wq_entry;					\
	init_wait_entry(&__wq_entry, 0);					\
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
	struct wait_queue_entry __wq_entry;					\
	init_wait_entry(&__wq_entry, 0);					\
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
long schedule_timeout(long timeout);	/* (include/timer.h) */
/* Sleep until cond or timeout jiffies pass: 0 if they passed and cond is false, else the
 * jiffies left (at least 1); -ERESTARTSYS when a signal interrupts */
#define wait_event_interruptible_timeout(wq_head, condition, timeout) ({	\
	long __ret = (timeout);							\
	struct wait_queue_entry __wq_entry = { .private = current };		\
	INIT_LIST_HEAD(&__wq_entry.entry);					\
	for (;;) {	/* ___wait_cond_timeout(): cond met at the deadline: 1 */	\
		long __int = prepare_to_wait_event(&(wq_head), &__wq_entry, TASK_INTERRUPTIBLE); \
		bool __cond = (condition);					\
		if (__cond && !__ret)						\
			__ret = 1;						\
		if (__cond || !__ret)						\
			break;							\
		if (__int) {							\
			__ret = __int;						\
			break;							\
		}							\
		__ret = schedule_timeout(__ret);				\
	}									\
	finish_wait(&(wq_head), &__wq_entry);					\
	__ret;									\
})
#endif
