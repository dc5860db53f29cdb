/* Wait queues as Linux's kernel/sched/wait.c: __wake_up() walks the queue and wakes its
 * sleepers (an exclusive one ends the walk once nr are woken); a sleeper queues itself with
 * prepare_to_wait_event(), sets its state, checks its condition and schedules. */
#include "../include/wait.h"
#include "../include/session.h"
#include "../include/signal.h"

#define WF_SYNC 0x10	/* kernel/sched/sched.h: the waker goes to sleep soon */

noinline void __init_waitqueue_head(struct wait_queue_head *wq_head, const char *name, void *key)
{
	wq_head->lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	INIT_LIST_HEAD(&wq_head->head);
}

/* A plain sleeper's wake function: the task woken */
noinline int default_wake_function(struct wait_queue_entry *curr, unsigned int mode, int wake_flags, void *key)
{
	return try_to_wake_up(curr->private, mode, wake_flags);
}

/* wait_event()'s wake function: the task woken and its entry off the queue (the waker holds
 * the queue's lock); prepare_to_wait_event() queues it again if the sleeper goes on waiting */
noinline int autoremove_wake_function(struct wait_queue_entry *wq_entry, unsigned int mode, int sync, void *key)
{
	int ret = default_wake_function(wq_entry, mode, sync, key);

	if (ret)
		list_del_init(&wq_entry->entry);
	return ret;
}

/* The entry of a wait_event() sleeper: the current task, woken by autoremove_wake_function */
noinline void init_wait_entry(struct wait_queue_entry *wq_entry, int flags)
{
	wq_entry->flags = flags;
	wq_entry->private = current;
	wq_entry->func = autoremove_wake_function;
	INIT_LIST_HEAD(&wq_entry->entry);
}

static noinline int __wake_up_common(struct wait_queue_head *wq_head, unsigned int mode, int nr_exclusive,
				    int wake_flags, void *key)
{
	struct wait_queue_entry *curr, *next;

	list_for_each_entry_safe(curr, next, &wq_head->head, entry) {
		unsigned int flags = curr->flags;
		int ret = curr->func ? curr->func(curr, mode, wake_flags, key)
				     : default_wake_function(curr, mode, wake_flags, key);

		if (ret < 0)
			break;
		if (ret && (flags & WQ_FLAG_EXCLUSIVE) && !--nr_exclusive)
			break;
	}
	return nr_exclusive;
}

static noinline int __wake_up_common_lock(struct wait_queue_head *wq_head, unsigned int mode, int nr_exclusive,
					  int wake_flags, void *key)
{
	unsigned long flags;
	int remaining;

	spin_lock_irqsave(&wq_head->lock, flags);
	remaining = __wake_up_common(wq_head, mode, nr_exclusive, wake_flags, key);
	spin_unlock_irqrestore(&wq_head->lock, flags);
	return nr_exclusive - remaining;
}

noinline void __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr_exclusive, void *key)
{
	__wake_up_common_lock(wq_head, mode, nr_exclusive, 0, key);
}

/* A waker about to sleep itself (a pipe's writer after its write, for its reader): one
 * exclusive sleeper, WF_SYNC (the wakee may run where the waker runs) */
noinline void __wake_up_sync_key(struct wait_queue_head *wq_head, unsigned int mode, void *key)
{
	__wake_up_common_lock(wq_head, mode, 1, WF_SYNC, key);
}

/* A waiter with a wake function of its own (poll's, epoll's) stays queued until it removes
 * itself. */
noinline void add_wait_queue(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry)
{
	unsigned long flags;

	wq_entry->flags &= ~WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&wq_head->lock, flags);
	list_add(&wq_entry->entry, &wq_head->head);
	spin_unlock_irqrestore(&wq_head->lock, flags);
}

noinline void remove_wait_queue(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry)
{
	unsigned long flags;

	spin_lock_irqsave(&wq_head->lock, flags);
	list_del_init(&wq_entry->entry);
	spin_unlock_irqrestore(&wq_head->lock, flags);
}

/*
 * A session task mirrors a host process: it never waits here longer than the host's call did.
 * Its next record (the host's next call, so this one returned there) ends the wait as a
 * signal would, when what it waits for never comes here (the host's data came from outside).
 */
/* signal_pending_state() of an interruptible sleep: any signal the task does not block ends
 * it (the call then restarts or fails with EINTR as the handler says); a session task's also
 * ends when its host call returned */
static notrace bool wait_interrupted(struct task_struct *t)
{
	return signal_pending(t) || fatal_signal_pending(t) || session_host_moved_on(t);
}

noinline long prepare_to_wait_event(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry, int state)
{
	unsigned long flags;
	long ret = 0;

	spin_lock_irqsave(&wq_head->lock, flags);
	if ((state & TASK_INTERRUPTIBLE) && wait_interrupted(current)) {	/* signal_pending_state() */
		/* the entry may be queued: finish_wait() takes it off */
		list_del_init(&wq_entry->entry);
		ret = -ERESTARTSYS;
	} else {
		if (list_empty(&wq_entry->entry)) {
			if (wq_entry->flags & WQ_FLAG_EXCLUSIVE)
				list_add_tail(&wq_entry->entry, &wq_head->head);
			else
				list_add(&wq_entry->entry, &wq_head->head);
		}
		set_current_state(state);
	}
	spin_unlock_irqrestore(&wq_head->lock, flags);
	return ret;
}

noinline void finish_wait(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry)
{
	unsigned long flags;

	set_current_state(TASK_RUNNING);
	if (!list_empty(&wq_entry->entry)) {
		spin_lock_irqsave(&wq_head->lock, flags);
		list_del_init(&wq_entry->entry);
		spin_unlock_irqrestore(&wq_head->lock, flags);
	}
}
