/* A listener of file system events (fs/notify/group.c): its marks and its queue, counted. */
#include "../../include/fsnotify_backend.h"
#include "../../include/slab.h"

noinline struct fsnotify_group *fsnotify_alloc_group(const struct fsnotify_ops *ops, int flags)
{
	struct fsnotify_group *group = kzalloc(sizeof(*group), GFP_KERNEL);

	if (!group)
		return ERR_PTR(-ENOMEM);
	group->refcnt = 1;
	group->notification_lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	INIT_LIST_HEAD(&group->notification_list);
	init_waitqueue_head(&group->notification_waitq);
	group->max_events = ~0U;	/* (UINT_MAX: the listener sets its own) */
	mutex_init(&group->mark_mutex);
	INIT_LIST_HEAD(&group->marks_list);
	group->ops = ops;
	return group;
}

noinline void fsnotify_get_group(struct fsnotify_group *group)
{
	group->refcnt++;
}

static notrace void fsnotify_final_destroy_group(struct fsnotify_group *group)
{
	if (group->ops->free_group_priv)
		group->ops->free_group_priv(group);
	kfree(group);
}

noinline void fsnotify_put_group(struct fsnotify_group *group)
{
	if (--group->refcnt == 0)
		fsnotify_final_destroy_group(group);
}

/* no more events queued (fsnotify_insert_event refuses them) */
noinline void fsnotify_group_stop_queueing(struct fsnotify_group *group)
{
	unsigned long flags;

	spin_lock_irqsave(&group->notification_lock, flags);
	group->shutdown = true;
	spin_unlock_irqrestore(&group->notification_lock, flags);
}

/* The listener's fd went: its marks go (their IN_IGNORED refused), then its queue. */
noinline void fsnotify_destroy_group(struct fsnotify_group *group)
{
	fsnotify_group_stop_queueing(group);
	fsnotify_clear_marks_by_group(group);
	fsnotify_flush_notify(group);
	if (group->overflow_event)
		group->ops->free_event(group, group->overflow_event);
	fsnotify_put_group(group);
}
