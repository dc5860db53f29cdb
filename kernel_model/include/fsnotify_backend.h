/*
 * The file system notification core (include/linux/fsnotify_backend.h): groups (a listener:
 * an inotify instance) hold marks (a group's interest in an inode: its event mask) and a queue
 * of events; the VFS's hooks (fsnotify.h) call fsnotify(), which hands an event to the group
 * of each mark of the inode, and of its parent directory's marks that watch children.
 * Only inode marks are modelled (no mount or super block marks: fanotify's).
 */
#ifndef _FSNOTIFY_BACKEND_H
#define _FSNOTIFY_BACKEND_H
#include "fs.h"
#include "wait.h"
#include "spinlock.h"

/* the events (include/linux/fsnotify_backend.h), inotify's IN_* the same bits */
#define FS_ACCESS		0x00000001	/* a file was read */
#define FS_MODIFY		0x00000002	/* written */
#define FS_ATTRIB		0x00000004	/* its metadata changed */
#define FS_CLOSE_WRITE		0x00000008	/* closed, open for writing */
#define FS_CLOSE_NOWRITE	0x00000010	/* closed, not open for writing */
#define FS_OPEN			0x00000020
#define FS_MOVED_FROM		0x00000040	/* a name moved out of the directory */
#define FS_MOVED_TO		0x00000080	/* ... into it */
#define FS_CREATE		0x00000100
#define FS_DELETE		0x00000200
#define FS_DELETE_SELF		0x00000400	/* the watched inode went */
#define FS_MOVE_SELF		0x00000800	/* the watched inode was renamed */
#define FS_OPEN_EXEC		0x00001000
#define FS_UNMOUNT		0x00002000
#define FS_Q_OVERFLOW		0x00004000	/* events were lost */
#define FS_IN_IGNORED		0x00008000	/* the mark went */
#define FS_EVENT_ON_CHILD	0x08000000	/* a directory's mark: of its children too */
#define FS_ISDIR		0x40000000	/* the event's object is a directory */

#define FS_MOVE			(FS_MOVED_FROM | FS_MOVED_TO)
#define ALL_FSNOTIFY_DIRENT_EVENTS (FS_CREATE | FS_DELETE | FS_MOVE | FS_RENAME)
#define FS_RENAME		0x10000000	/* fanotify's (not inotify's) */
/* the events a directory's mark hears of its children */
#define FS_EVENTS_POSS_ON_CHILD	(FS_ACCESS | FS_MODIFY | FS_ATTRIB | FS_CLOSE_WRITE | FS_CLOSE_NOWRITE | \
				 FS_OPEN | FS_OPEN_EXEC)

#define ALL_FSNOTIFY_EVENTS	(ALL_FSNOTIFY_DIRENT_EVENTS | FS_EVENTS_POSS_ON_CHILD | FS_DELETE_SELF | FS_MOVE_SELF | \
				 FS_UNMOUNT | FS_Q_OVERFLOW | FS_IN_IGNORED)

/* what an event is about (fsnotify()'s data_type) */
enum fsnotify_data_type { FSNOTIFY_EVENT_NONE, FSNOTIFY_EVENT_PATH, FSNOTIFY_EVENT_INODE, FSNOTIFY_EVENT_DENTRY };

struct fsnotify_group;
struct fsnotify_mark;

/* An event on a group's queue: the listener's record around it (inotify_event_info). */
struct fsnotify_event {
	struct list_head list;
};

struct fsnotify_ops {
	/* one mark's event: the inode it is about, the directory and the child's name for a
	 * directory's mark (NULL otherwise), the rename's cookie */
	int (*handle_inode_event)(struct fsnotify_mark *mark, u32 mask, struct inode *inode,
				  struct inode *dir, const struct qstr *file_name, u32 cookie);
	void (*free_group_priv)(struct fsnotify_group *group);
	void (*freeing_mark)(struct fsnotify_mark *mark, struct fsnotify_group *group);
	void (*free_event)(struct fsnotify_group *group, struct fsnotify_event *event);
	void (*free_mark)(struct fsnotify_mark *mark);
};

struct inotify_group_private_data {
	int last_wd;			/* the cyclic idr's last handed out (6.1: idr_alloc_cyclic) */
	uid_t uid;			/* whose instance (the ucounts charged) */
	bool charged;			/* its instance counted against the uid's limit */
};

struct fsnotify_group {
	const struct fsnotify_ops *ops;
	int refcnt;
	spinlock_t notification_lock;	/* the queue */
	struct list_head notification_list;
	wait_queue_head_t notification_waitq;	/* readers, pollers */
	unsigned int q_len;
	unsigned int max_events;	/* past it: one overflow event, the rest lost */
	bool shutdown;			/* the fd went: no more events */
	struct mutex mark_mutex;
	int num_marks;
	struct list_head marks_list;	/* its marks (g_list) */
	struct fasync_struct *fsn_fa;	/* O_ASYNC's */
	struct fsnotify_event *overflow_event;	/* queued when events are lost */
	struct inotify_group_private_data inotify_data;
};

/* An inode's marks (6.1's connector: its object, its marks' list, their mask's union in the
 * inode's i_fsnotify_mask) */
struct fsnotify_mark_connector {
	struct inode *inode;
	struct list_head list;
};

#define FSNOTIFY_MARK_FLAG_ATTACHED	0x0004	/* on its inode's and group's lists */
#define FSNOTIFY_MARK_FLAG_ALIVE	0x0008	/* not being destroyed */
#define FSNOTIFY_MARK_FLAG_EXCL_UNLINK	0x0010	/* no events of unlinked children (IN_EXCL_UNLINK) */
#define FSNOTIFY_MARK_FLAG_IN_ONESHOT	0x0020	/* one event, then the mark goes (IN_ONESHOT) */

struct fsnotify_mark {
	u32 mask;
	int refcnt;
	struct fsnotify_group *group;
	struct list_head g_list;	/* in the group's marks_list */
	struct list_head obj_list;	/* in the connector's list */
	struct fsnotify_mark_connector *connector;
	unsigned int flags;
};

/* fs/notify/fsnotify.c */
int fsnotify(u32 mask, const void *data, int data_type, struct inode *dir, const struct qstr *name,
	     struct inode *inode, u32 cookie);
int __fsnotify_parent(struct dentry *dentry, u32 mask, const void *data, int data_type);
void __fsnotify_inode_delete(struct inode *inode);
u32 fsnotify_get_cookie(void);
/* fs/notify/group.c */
struct fsnotify_group *fsnotify_alloc_group(const struct fsnotify_ops *ops, int flags);
void fsnotify_get_group(struct fsnotify_group *group);
void fsnotify_put_group(struct fsnotify_group *group);
void fsnotify_destroy_group(struct fsnotify_group *group);
/* fs/notify/notification.c */
int fsnotify_insert_event(struct fsnotify_group *group, struct fsnotify_event *event,
			  int (*merge)(struct fsnotify_group *, struct fsnotify_event *));
struct fsnotify_event *fsnotify_peek_first_event(struct fsnotify_group *group);
struct fsnotify_event *fsnotify_remove_first_event(struct fsnotify_group *group);
void fsnotify_destroy_event(struct fsnotify_group *group, struct fsnotify_event *event);
void fsnotify_flush_notify(struct fsnotify_group *group);
static inline bool fsnotify_notify_queue_is_empty(struct fsnotify_group *group)
{
	return list_empty(&group->notification_list);
}
/* fs/notify/mark.c */
void fsnotify_init_mark(struct fsnotify_mark *mark, struct fsnotify_group *group);
int fsnotify_add_mark_locked(struct fsnotify_mark *mark, struct inode *inode, int add_flags);
struct fsnotify_mark *fsnotify_find_mark(struct inode *inode, struct fsnotify_group *group);
void fsnotify_get_mark(struct fsnotify_mark *mark);
void fsnotify_put_mark(struct fsnotify_mark *mark);
void fsnotify_detach_mark(struct fsnotify_mark *mark);
void fsnotify_free_mark(struct fsnotify_mark *mark);
void fsnotify_destroy_mark(struct fsnotify_mark *mark, struct fsnotify_group *group);
void fsnotify_recalc_mask(struct fsnotify_mark_connector *conn);
void fsnotify_clear_marks_by_group(struct fsnotify_group *group);
void fsnotify_destroy_marks(struct inode *inode);
#endif
