/*
 * A group's queue of events (fs/notify/notification.c): added at the tail (or merged with the
 * last one by the listener's merge), at most max_events of them: past that the group's one
 * overflow event is queued, once, and the rest are lost.
 */
#include "../../include/fsnotify_backend.h"
#include "../../include/signal.h"

#define POLL_IN 1	/* (the si_code of a SIGIO for input) */

noinline void fsnotify_destroy_event(struct fsnotify_group *group, struct fsnotify_event *event)
{
	/* the overflow event is the group's: it stays for the next overflow */
	if (!event || event == group->overflow_event) {
		if (event)
			INIT_LIST_HEAD(&event->list);
		return;
	}
	group->ops->free_event(group, event);
}

/* 0: queued; 1: merged; 2: the queue is full (the overflow event queued) or the group shut
 * down: the caller frees the event */
noinline int fsnotify_insert_event(struct fsnotify_group *group, struct fsnotify_event *event,
				   int (*merge)(struct fsnotify_group *, struct fsnotify_event *))
{
	struct list_head *list = &group->notification_list;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&group->notification_lock, flags);
	if (group->shutdown) {
		spin_unlock_irqrestore(&group->notification_lock, flags);
		return 2;
	}
	if (event == group->overflow_event || group->q_len >= group->max_events) {
		ret = 2;
		if (!list_empty(&group->overflow_event->list)) {	/* queued already */
			spin_unlock_irqrestore(&group->notification_lock, flags);
			return ret;
		}
		event = group->overflow_event;
		goto queue;
	}
	if (!list_empty(list) && merge) {
		ret = merge(group, event);
		if (ret) {
			spin_unlock_irqrestore(&group->notification_lock, flags);
			return ret;
		}
	}
queue:
	group->q_len++;
	list_add_tail(&event->list, list);
	spin_unlock_irqrestore(&group->notification_lock, flags);
	wake_up(&group->notification_waitq);
	kill_fasync(&group->fsn_fa, SIGIO, POLL_IN);
	return ret;
}

/* Under notification_lock: the oldest event, taken off the queue */
noinline struct fsnotify_event *fsnotify_remove_first_event(struct fsnotify_group *group)
{
	struct fsnotify_event *event = list_first_entry(&group->notification_list, struct fsnotify_event, list);

	list_del_init(&event->list);
	group->q_len--;
	return event;
}

/* Under notification_lock: the oldest event, left on the queue */
noinline struct fsnotify_event *fsnotify_peek_first_event(struct fsnotify_group *group)
{
	if (fsnotify_notify_queue_is_empty(group))
		return NULL;
	return list_first_entry(&group->notification_list, struct fsnotify_event, list);
}

/* every queued event freed (the group goes) */
noinline void fsnotify_flush_notify(struct fsnotify_group *group)
{
	struct fsnotify_event *event;
	unsigned long flags;

	spin_lock_irqsave(&group->notification_lock, flags);
	while (!fsnotify_notify_queue_is_empty(group)) {
		event = fsnotify_remove_first_event(group);
		spin_unlock_irqrestore(&group->notification_lock, flags);
		fsnotify_destroy_event(group, event);
		spin_lock_irqsave(&group->notification_lock, flags);
	}
	spin_unlock_irqrestore(&group->notification_lock, flags);
}
