/* inotify's side of fsnotify (fs/notify/inotify/inotify.h): its events and marks. */
#ifndef _INOTIFY_INTERNAL_H
#define _INOTIFY_INTERNAL_H
#include "../../../include/fsnotify_backend.h"

/* include/uapi/linux/inotify.h: the user's bits, fsnotify's FS_* where they are events */
#define IN_ACCESS		FS_ACCESS
#define IN_MODIFY		FS_MODIFY
#define IN_ATTRIB		FS_ATTRIB
#define IN_CLOSE_WRITE		FS_CLOSE_WRITE
#define IN_CLOSE_NOWRITE	FS_CLOSE_NOWRITE
#define IN_OPEN			FS_OPEN
#define IN_MOVED_FROM		FS_MOVED_FROM
#define IN_MOVED_TO		FS_MOVED_TO
#define IN_CREATE		FS_CREATE
#define IN_DELETE		FS_DELETE
#define IN_DELETE_SELF		FS_DELETE_SELF
#define IN_MOVE_SELF		FS_MOVE_SELF
#define IN_UNMOUNT		FS_UNMOUNT
#define IN_Q_OVERFLOW		FS_Q_OVERFLOW
#define IN_IGNORED		FS_IN_IGNORED
#define IN_ONLYDIR		0x01000000	/* the path must be a directory */
#define IN_DONT_FOLLOW		0x02000000	/* not its symlink's target */
#define IN_EXCL_UNLINK		0x04000000	/* no events of unlinked children */
#define IN_MASK_CREATE		0x10000000	/* a new watch only (EEXIST) */
#define IN_MASK_ADD		0x20000000	/* added to the watch's mask, not replacing it */
#define IN_ISDIR		FS_ISDIR
#define IN_ONESHOT		0x80000000	/* one event, then the watch goes */
#define IN_ALL_EVENTS		(IN_ACCESS | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE | IN_OPEN | \
				 IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF)
#define IN_CLOEXEC		O_CLOEXEC
#define IN_NONBLOCK		O_NONBLOCK
#define ALL_INOTIFY_BITS	(IN_ALL_EVENTS | IN_UNMOUNT | IN_Q_OVERFLOW | IN_IGNORED | IN_ONLYDIR | IN_DONT_FOLLOW | \
				 IN_EXCL_UNLINK | IN_MASK_ADD | IN_MASK_CREATE | IN_ISDIR | IN_ONESHOT)
#define INOTIFY_USER_MASK	IN_ALL_EVENTS

/* what read() gives: struct inotify_event, then len bytes of the name, NUL-padded */
struct inotify_event {
	int wd;
	u32 mask;
	u32 cookie;
	u32 len;
	char name[];
};

struct inotify_event_info {
	struct fsnotify_event fse;
	u32 mask;
	int wd;
	u32 sync_cookie;
	int name_len;
	char name[];
};

struct inotify_inode_mark {
	struct fsnotify_mark fsn_mark;
	int wd;				/* -1: off the group's wds (being destroyed) */
};

static inline struct inotify_event_info *INOTIFY_E(struct fsnotify_event *fse)
{
	return container_of(fse, struct inotify_event_info, fse);
}

/* the mask as the user gave it (fdinfo's) */
static inline u32 inotify_mark_user_mask(struct fsnotify_mark *fsn_mark)
{
	u32 mask = fsn_mark->mask & INOTIFY_USER_MASK;

	if (fsn_mark->flags & FSNOTIFY_MARK_FLAG_EXCL_UNLINK)
		mask |= IN_EXCL_UNLINK;
	if (fsn_mark->flags & FSNOTIFY_MARK_FLAG_IN_ONESHOT)
		mask |= IN_ONESHOT;
	return mask;
}

extern const struct fsnotify_ops inotify_fsnotify_ops;
void inotify_ignored_and_remove_idr(struct fsnotify_mark *fsn_mark, struct fsnotify_group *group);
int inotify_handle_inode_event(struct fsnotify_mark *inode_mark, u32 mask, struct inode *inode,
			       struct inode *dir, const struct qstr *file_name, u32 cookie);
void inotify_dec_watches(uid_t uid);
void inotify_dec_instances(uid_t uid);
void inotify_show_fdinfo(struct seq_file *m, struct file *f);
#endif
