/*
 * inotify's fsnotify operations (fs/notify/inotify/inotify_fsnotify.c): an event of a watch
 * becomes an inotify_event_info on the group's queue (the same as the last one queued:
 * merged); IN_ONESHOT's watch goes after its first.
 */
#include "inotify.h"
#include "../../../include/slab.h"

/* the same event as the last queued (not IN_IGNORED): one is enough */
static notrace bool event_compare(struct fsnotify_event *old_fsn, struct fsnotify_event *new_fsn)
{
	struct inotify_event_info *old = INOTIFY_E(old_fsn), *new = INOTIFY_E(new_fsn);

	if (old->mask & FS_IN_IGNORED)
		return false;
	return old->mask == new->mask && old->wd == new->wd && old->name_len == new->name_len &&
	       (!old->name_len || !strcmp(old->name, new->name));
}

static noinline int inotify_merge(struct fsnotify_group *group, struct fsnotify_event *event)
{
	struct fsnotify_event *last_event = list_entry(group->notification_list.prev, struct fsnotify_event, list);

	return event_compare(last_event, event);
}

noinline int inotify_handle_inode_event(struct fsnotify_mark *inode_mark, u32 mask, struct inode *inode,
					struct inode *dir, const struct qstr *name, u32 cookie)
{
	struct inotify_inode_mark *i_mark = container_of(inode_mark, struct inotify_inode_mark, fsn_mark);
	struct fsnotify_group *group = inode_mark->group;
	struct inotify_event_info *event;
	int len = 0, alloc_len = sizeof(struct inotify_event_info), wd = READ_ONCE(i_mark->wd);

	if (name) {
		len = name->len;
		alloc_len += len + 1;
	}
	if (wd == -1)	/* the mark is being detached: no event with a stale wd */
		return 0;
	event = kmalloc(alloc_len, GFP_KERNEL);
	if (!event) {
		fsnotify_insert_event(group, group->overflow_event, NULL);	/* fsnotify_queue_overflow */
		return -ENOMEM;
	}
	/* inotify never said IN_ISDIR of IN_MOVE_SELF and IN_DELETE_SELF */
	if (mask & (IN_MOVE_SELF | IN_DELETE_SELF))
		mask &= ~IN_ISDIR;
	INIT_LIST_HEAD(&event->fse.list);
	event->mask = mask;
	event->wd = wd;
	event->sync_cookie = cookie;
	event->name_len = len;
	if (len) {
		memcpy(event->name, name->name, len);
		event->name[len] = 0;
	}
	if (fsnotify_insert_event(group, &event->fse, inotify_merge))
		fsnotify_destroy_event(group, &event->fse);	/* merged, or not queued */
	if (inode_mark->flags & FSNOTIFY_MARK_FLAG_IN_ONESHOT)
		fsnotify_destroy_mark(inode_mark, group);
	return 0;
}

static noinline void inotify_freeing_mark(struct fsnotify_mark *fsn_mark, struct fsnotify_group *group)
{
	inotify_ignored_and_remove_idr(fsn_mark, group);
}

/* the group goes: its user's instance is given back */
static noinline void inotify_free_group_priv(struct fsnotify_group *group)
{
	if (group->inotify_data.charged)
		inotify_dec_instances(group->inotify_data.uid);
}

static noinline void inotify_free_event(struct fsnotify_group *group, struct fsnotify_event *fsn_event)
{
	kfree(INOTIFY_E(fsn_event));
}

static noinline void inotify_free_mark(struct fsnotify_mark *fsn_mark)
{
	kfree(container_of(fsn_mark, struct inotify_inode_mark, fsn_mark));
}

const struct fsnotify_ops inotify_fsnotify_ops = {
	.handle_inode_event = inotify_handle_inode_event,
	.free_group_priv = inotify_free_group_priv,
	.free_event = inotify_free_event,
	.freeing_mark = inotify_freeing_mark,
	.free_mark = inotify_free_mark,
};
