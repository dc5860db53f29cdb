/*
 * fsnotify() (fs/notify/fsnotify.c): an event of an inode, or of a name in a directory, goes to
 * each group with a mark on the inode that wants it, and to each group whose mark on the
 * parent directory watches its children (FS_EVENT_ON_CHILD): the parent's with the child's
 * name, the child's without.  The VFS calls it through include/fsnotify.h's hooks.
 */
#include "../../include/fsnotify.h"
#include "../../include/slab.h"

/* An inode goes: its marks with it (their groups get IN_IGNORED). */
noinline void __fsnotify_inode_delete(struct inode *inode)
{
	fsnotify_destroy_marks(inode);
}

static u32 fsnotify_sync_cookie;

/* a rename's two events share one (IN_MOVED_FROM, IN_MOVED_TO) */
noinline u32 fsnotify_get_cookie(void)
{
	return __atomic_add_fetch(&fsnotify_sync_cookie, 1, __ATOMIC_RELAXED);
}

static notrace struct inode *fsnotify_data_inode(const void *data, int data_type)
{
	switch (data_type) {
	case FSNOTIFY_EVENT_INODE:
		return (struct inode *)data;
	case FSNOTIFY_EVENT_DENTRY:
		return ((const struct dentry *)data)->d_inode;
	case FSNOTIFY_EVENT_PATH:
		return ((const struct path *)data)->dentry->d_inode;
	default:
		return NULL;
	}
}

/* One mark's event: IN_EXCL_UNLINK's unlinked files stay quiet; the mark must want it.
 * (GCC's isra clone in 6.1.) */
static noinline int fsnotify_handle_inode_event(struct fsnotify_group *group, struct fsnotify_mark *inode_mark,
						u32 mask, const void *data, int data_type, struct inode *dir,
						const struct qstr *name, u32 cookie)
	__asm__("fsnotify_handle_inode_event.isra.0");
static noinline int fsnotify_handle_inode_event(struct fsnotify_group *group, struct fsnotify_mark *inode_mark,
						u32 mask, const void *data, int data_type, struct inode *dir,
						const struct qstr *name, u32 cookie)
{
	struct inode *inode = fsnotify_data_inode(data, data_type);

	if (!inode && !dir)
		return 0;
	if ((inode_mark->flags & FSNOTIFY_MARK_FLAG_EXCL_UNLINK) && data_type == FSNOTIFY_EVENT_PATH &&
	    d_unlinked(((const struct path *)data)->dentry))
		return 0;
	if (!(mask & inode_mark->mask & ALL_FSNOTIFY_EVENTS))
		return 0;
	return group->ops->handle_inode_event(inode_mark, mask, inode, dir, name, cookie);
}

/* A group's marks on the event's objects: the parent's (with the name), then the inode's
 * (without it, and without FS_EVENT_ON_CHILD) */
static notrace int send_to_group(u32 mask, const void *data, int data_type, struct inode *dir,
				  const struct qstr *file_name, u32 cookie, struct fsnotify_mark *parent_mark,
				  struct fsnotify_mark *inode_mark)
{
	struct fsnotify_group *group = inode_mark ? inode_mark->group : parent_mark->group;
	u32 test_mask = mask & ALL_FSNOTIFY_EVENTS;
	int ret;

	/* the parent's mark hears of children only if it watches them */
	if (parent_mark && !((parent_mark->mask & FS_EVENT_ON_CHILD) && (parent_mark->mask & test_mask)))
		parent_mark = NULL;
	if (inode_mark && !(inode_mark->mask & test_mask))
		inode_mark = NULL;
	if (parent_mark) {
		ret = fsnotify_handle_inode_event(group, parent_mark, mask, data, data_type, dir, file_name, 0);
		if (ret)
			return ret;
	}
	if (!inode_mark)
		return 0;
	if (mask & FS_EVENT_ON_CHILD) {
		/* the child's own watcher hears it without a name */
		mask &= ~FS_EVENT_ON_CHILD;
		dir = NULL;
		file_name = NULL;
	}
	return fsnotify_handle_inode_event(group, inode_mark, mask, data, data_type, dir, file_name, cookie);
}

static notrace struct fsnotify_mark *group_mark(struct fsnotify_mark_connector *conn, struct fsnotify_group *group)
{
	struct fsnotify_mark *mark;

	if (!conn)
		return NULL;
	list_for_each_entry(mark, &conn->list, obj_list)
		if (mark->group == group && (mark->flags & FSNOTIFY_MARK_FLAG_ATTACHED))
			return mark;
	return NULL;
}

/*
 * The event `mask` of `inode` (NULL: of the name `file_name` in `dir`, a directory entry
 * event, told to dir's own marks), or of a child of `dir` (FS_EVENT_ON_CHILD: told to dir's
 * marks that watch children too).  Each group is told once, with both its marks.
 */
noinline int fsnotify(u32 mask, const void *data, int data_type, struct inode *dir, const struct qstr *file_name,
		      struct inode *inode, u32 cookie)
{
	struct fsnotify_mark_connector *inode_conn, *parent_conn = NULL;
	struct fsnotify_mark *mark, **marks;
	int ret = 0, n = 0, nr_parent = 0, i;

	if (!inode) {
		inode = dir;	/* a directory entry's event: the directory's own marks */
	} else if (mask & FS_EVENT_ON_CHILD) {
		parent_conn = dir->i_fsnotify_marks;
	}
	inode_conn = inode->i_fsnotify_marks;
	if (!inode_conn && !parent_conn)
		return 0;
	if (!((inode->i_fsnotify_mask | (parent_conn ? dir->i_fsnotify_mask : 0)) & mask & ALL_FSNOTIFY_EVENTS))
		return 0;
	/* a handler may destroy its mark (IN_ONESHOT): the marks are held while they are told */
	if (parent_conn)
		list_for_each_entry(mark, &parent_conn->list, obj_list)
			n++;
	nr_parent = n;
	if (inode_conn)
		list_for_each_entry(mark, &inode_conn->list, obj_list)
			n++;
	marks = kmalloc(n * sizeof(*marks), GFP_KERNEL);
	if (!marks)
		return -ENOMEM;
	n = 0;
	if (parent_conn)
		list_for_each_entry(mark, &parent_conn->list, obj_list)
			fsnotify_get_mark(marks[n++] = mark);
	if (inode_conn)
		list_for_each_entry(mark, &inode_conn->list, obj_list)
			fsnotify_get_mark(marks[n++] = mark);
	for (i = 0; i < n && !ret; i++) {
		mark = marks[i];
		if (!(mark->flags & FSNOTIFY_MARK_FLAG_ATTACHED))
			continue;
		/* (the connectors as they are now: a destroyed mark may have taken one away) */
		if (i < nr_parent)
			ret = send_to_group(mask, data, data_type, dir, file_name, cookie, mark,
					    group_mark(inode->i_fsnotify_marks, mark->group));
		else if (!parent_conn || !group_mark(dir->i_fsnotify_marks, mark->group))	/* (else told with its parent's) */
			ret = send_to_group(mask, data, data_type, dir, file_name, cookie, NULL, mark);
	}
	for (i = 0; i < n; i++)
		fsnotify_put_mark(marks[i]);
	kfree(marks);
	return ret;
}

/*
 * An event of the dentry's inode, which its parent directory's marks hear too when they
 * watch their children (6.1 looks at the parent under the dentry's lock: here the dentry
 * holds its parent).
 */
noinline int __fsnotify_parent(struct dentry *dentry, u32 mask, const void *data, int data_type)
{
	struct inode *inode = dentry->d_inode;
	struct dentry *parent = dentry->d_parent;
	struct inode *p_inode = parent->d_inode;

	if (p_inode->i_fsnotify_marks && (p_inode->i_fsnotify_mask & FS_EVENT_ON_CHILD) &&
	    (p_inode->i_fsnotify_mask & mask & ALL_FSNOTIFY_EVENTS))
		return fsnotify(mask | FS_EVENT_ON_CHILD, data, data_type, p_inode, &dentry->d_name, inode, 0);
	return fsnotify(mask, data, data_type, NULL, NULL, inode, 0);
}
