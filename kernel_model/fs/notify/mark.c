/*
 * Marks (fs/notify/mark.c): a group's interest in an inode.  An inode's marks hang on its
 * connector (i_fsnotify_marks), their masks' union in i_fsnotify_mask, which the hooks test
 * before calling fsnotify().  A mark is counted: its lists hold one reference, an event being
 * told holds one; the last put frees it (the listener's free_mark) and lets its group go.
 * Destroying a mark takes it off both lists and tells its group (freeing_mark: inotify's
 * IN_IGNORED).
 */
#include "../../include/fsnotify_backend.h"
#include "../../include/slab.h"
#include "../../include/mutex.h"

noinline void fsnotify_init_mark(struct fsnotify_mark *mark, struct fsnotify_group *group)
{
	memset(mark, 0, sizeof(*mark));
	mark->refcnt = 1;
	fsnotify_get_group(group);
	mark->group = group;
	INIT_LIST_HEAD(&mark->g_list);
	INIT_LIST_HEAD(&mark->obj_list);
}

noinline void fsnotify_get_mark(struct fsnotify_mark *mark)
{
	mark->refcnt++;
}

static notrace void fsnotify_free_mark_final(struct fsnotify_mark *mark)
{
	struct fsnotify_group *group = mark->group;

	group->ops->free_mark(mark);
	fsnotify_put_group(group);
}

noinline void fsnotify_put_mark(struct fsnotify_mark *mark)
{
	if (--mark->refcnt == 0)
		fsnotify_free_mark_final(mark);
}

/* the inode's mask: what its marks want (the hooks' quick test) */
noinline void fsnotify_recalc_mask(struct fsnotify_mark_connector *conn)
{
	struct fsnotify_mark *mark;
	u32 new_mask = 0;

	if (!conn)
		return;
	list_for_each_entry(mark, &conn->list, obj_list)
		if (mark->flags & FSNOTIFY_MARK_FLAG_ATTACHED)
			new_mask |= mark->mask;
	conn->inode->i_fsnotify_mask = new_mask;
}

static notrace int fsnotify_attach_connector_to_object(struct inode *inode)
{
	struct fsnotify_mark_connector *conn = kzalloc(sizeof(*conn), GFP_KERNEL);

	if (!conn)
		return -ENOMEM;
	conn->inode = inode;
	INIT_LIST_HEAD(&conn->list);
	inode->i_fsnotify_marks = conn;
	__atomic_add_fetch(&inode->i_sb->s_fsnotify_connectors, 1, __ATOMIC_RELAXED);
	ihold(inode);	/* an inode with marks stays in memory (fsnotify_get_inode_ref) */
	return 0;
}

/* The mark on the inode, on its group's list: the lists' reference taken. */
noinline int fsnotify_add_mark_locked(struct fsnotify_mark *mark, struct inode *inode, int add_flags)
{
	struct fsnotify_group *group = mark->group;
	int ret;

	if (!inode->i_fsnotify_marks) {
		ret = fsnotify_attach_connector_to_object(inode);
		if (ret)
			return ret;
	}
	mark->flags |= FSNOTIFY_MARK_FLAG_ALIVE | FSNOTIFY_MARK_FLAG_ATTACHED;
	list_add(&mark->g_list, &group->marks_list);
	group->num_marks++;
	fsnotify_get_mark(mark);
	mark->connector = inode->i_fsnotify_marks;
	list_add_tail(&mark->obj_list, &mark->connector->list);
	fsnotify_recalc_mask(mark->connector);
	return 0;
}

/* The group's mark on the inode, with a reference, or NULL */
noinline struct fsnotify_mark *fsnotify_find_mark(struct inode *inode, struct fsnotify_group *group)
{
	struct fsnotify_mark_connector *conn = inode->i_fsnotify_marks;
	struct fsnotify_mark *mark;

	if (!conn)
		return NULL;
	list_for_each_entry(mark, &conn->list, obj_list) {
		if (mark->group == group && (mark->flags & FSNOTIFY_MARK_FLAG_ATTACHED)) {
			fsnotify_get_mark(mark);
			return mark;
		}
	}
	return NULL;
}

/* The inode without marks lets go of its connector and of the reference it held. */
static noinline void fsnotify_detach_connector_from_object(struct fsnotify_mark_connector *conn)
{
	struct inode *inode = conn->inode;

	inode->i_fsnotify_marks = NULL;
	inode->i_fsnotify_mask = 0;
	__atomic_sub_fetch(&inode->i_sb->s_fsnotify_connectors, 1, __ATOMIC_RELAXED);
	kfree(conn);
	iput(inode);
}

/* Off the group's list and the inode's (the mask recomputed): no more events reach it. */
noinline void fsnotify_detach_mark(struct fsnotify_mark *mark)
{
	struct fsnotify_mark_connector *conn = mark->connector;

	if (!(mark->flags & FSNOTIFY_MARK_FLAG_ATTACHED))
		return;
	mark->flags &= ~FSNOTIFY_MARK_FLAG_ATTACHED;
	list_del_init(&mark->g_list);
	mark->group->num_marks--;
	list_del_init(&mark->obj_list);
	mark->connector = NULL;
	if (list_empty(&conn->list))
		fsnotify_detach_connector_from_object(conn);
	else
		fsnotify_recalc_mask(conn);
}

/* A detached mark's group told (freeing_mark), then the lists' reference dropped. */
noinline void fsnotify_free_mark(struct fsnotify_mark *mark)
{
	struct fsnotify_group *group = mark->group;

	if (!(mark->flags & FSNOTIFY_MARK_FLAG_ALIVE))
		return;
	mark->flags &= ~FSNOTIFY_MARK_FLAG_ALIVE;
	if (group->ops->freeing_mark)
		group->ops->freeing_mark(mark, group);
	fsnotify_put_mark(mark);
}

noinline void fsnotify_destroy_mark(struct fsnotify_mark *mark, struct fsnotify_group *group)
{
	mutex_lock(&group->mark_mutex);
	fsnotify_detach_mark(mark);
	mutex_unlock(&group->mark_mutex);
	fsnotify_free_mark(mark);
}

/* every mark of the group destroyed (its fd went) */
noinline void fsnotify_clear_marks_by_group(struct fsnotify_group *group)
{
	struct fsnotify_mark *mark;

	while (!list_empty(&group->marks_list)) {
		mark = list_first_entry(&group->marks_list, struct fsnotify_mark, g_list);
		fsnotify_get_mark(mark);
		fsnotify_destroy_mark(mark, group);
		fsnotify_put_mark(mark);
	}
}

/* every mark of the inode destroyed (it goes: __fsnotify_inode_delete) */
noinline void fsnotify_destroy_marks(struct inode *inode)
{
	struct fsnotify_mark *mark;

	if (!inode->i_fsnotify_marks)
		return;
	ihold(inode);	/* (the last mark's going drops the connector's reference) */
	while (inode->i_fsnotify_marks) {
		mark = list_first_entry(&inode->i_fsnotify_marks->list, struct fsnotify_mark, obj_list);
		fsnotify_get_mark(mark);
		fsnotify_destroy_mark(mark, mark->group);
		fsnotify_put_mark(mark);
	}
	iput(inode);
}
