/*
 * The VFS's notification hooks (include/linux/fsnotify.h): what each path tells fsnotify(),
 * as 6.1's.  A hook costs a test of the inode's (or directory's) mask when nobody watches.
 */
#ifndef _FSNOTIFY_H
#define _FSNOTIFY_H
#include "fsnotify_backend.h"

static inline bool d_unlinked(const struct dentry *dentry)
{
	return d_unhashed(dentry) && dentry->d_parent != dentry;	/* (!IS_ROOT) */
}

/* a name's event in a directory (create, delete, move): the directory's marks */
static inline int fsnotify_name(u32 mask, const void *data, int data_type, struct inode *dir,
				const struct qstr *name, u32 cookie)
{
	if (!dir->i_fsnotify_marks)
		return 0;
	return fsnotify(mask, data, data_type, dir, name, NULL, cookie);
}

static inline void fsnotify_dirent(struct inode *dir, struct dentry *dentry, u32 mask)
{
	fsnotify_name(mask, dentry, FSNOTIFY_EVENT_DENTRY, dir, &dentry->d_name, 0);
}

/* an inode's own event: its marks only */
static inline void fsnotify_inode(struct inode *inode, u32 mask)
{
	if (!inode->i_fsnotify_marks)
		return;
	if (S_ISDIR(inode->i_mode))
		mask |= FS_ISDIR;
	fsnotify(mask, inode, FSNOTIFY_EVENT_INODE, NULL, NULL, inode, 0);
}

/* an event of the dentry's inode, told to its parent's marks too (a directory's only if the
 * parent watches its children: 6.1's DCACHE_FSNOTIFY_PARENT_WATCHED) */
static inline int fsnotify_parent(struct dentry *dentry, u32 mask, const void *data, int data_type)
{
	struct inode *inode = dentry->d_inode;
	struct inode *p_inode = dentry->d_parent->d_inode;

	if (!inode->i_fsnotify_marks && !(p_inode->i_fsnotify_mask & FS_EVENT_ON_CHILD))
		return 0;
	if (S_ISDIR(inode->i_mode)) {
		mask |= FS_ISDIR;
		if (!(p_inode->i_fsnotify_mask & FS_EVENT_ON_CHILD))
			goto notify_child;
	}
	if (dentry->d_parent == dentry)	/* IS_ROOT: no parent to tell */
		goto notify_child;
	return __fsnotify_parent(dentry, mask, data, data_type);
notify_child:
	return fsnotify(mask, data, data_type, NULL, NULL, inode, 0);
}

static inline void fsnotify_dentry(struct dentry *dentry, u32 mask)
{
	fsnotify_parent(dentry, mask, dentry, FSNOTIFY_EVENT_DENTRY);
}

/* an open file's event (not of O_PATH files) */
static inline int fsnotify_file(struct file *file, u32 mask)
{
	if (file->f_mode & FMODE_PATH)
		return 0;
	return fsnotify_parent(file->f_path.dentry, mask, &file->f_path, FSNOTIFY_EVENT_PATH);
}

static inline void fsnotify_access(struct file *file)
{
	fsnotify_file(file, FS_ACCESS);
}

static inline void fsnotify_modify(struct file *file)
{
	fsnotify_file(file, FS_MODIFY);
}

static inline void fsnotify_open(struct file *file)
{
	fsnotify_file(file, (file->f_mode & FMODE_EXEC) ? FS_OPEN | FS_OPEN_EXEC : FS_OPEN);
}

static inline void fsnotify_close(struct file *file)
{
	fsnotify_file(file, (file->f_mode & FMODE_WRITE) ? FS_CLOSE_WRITE : FS_CLOSE_NOWRITE);
}

static inline void fsnotify_xattr(struct dentry *dentry)
{
	fsnotify_dentry(dentry, FS_ATTRIB);
}

static inline void fsnotify_link_count(struct inode *inode)
{
	fsnotify_inode(inode, FS_ATTRIB);
}

static inline void fsnotify_create(struct inode *dir, struct dentry *dentry)
{
	fsnotify_dirent(dir, dentry, FS_CREATE);
}

static inline void fsnotify_mkdir(struct inode *dir, struct dentry *dentry)
{
	fsnotify_dirent(dir, dentry, FS_CREATE | FS_ISDIR);
}

static inline void fsnotify_link(struct inode *dir, struct inode *inode, struct dentry *new_dentry)
{
	fsnotify_link_count(inode);
	fsnotify_name(FS_CREATE, inode, FSNOTIFY_EVENT_INODE, dir, &new_dentry->d_name, 0);
}

static inline void fsnotify_delete(struct inode *dir, struct inode *inode, struct dentry *dentry)
{
	fsnotify_name(S_ISDIR(inode->i_mode) ? FS_DELETE | FS_ISDIR : FS_DELETE, inode, FSNOTIFY_EVENT_INODE,
		      dir, &dentry->d_name, 0);
}

/* vfs_unlink's and vfs_rmdir's: the name goes, then the directory's IN_DELETE */
static inline void d_delete_notify(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;

	ihold(inode);
	d_delete(dentry);
	fsnotify_delete(dir, inode, dentry);
	iput(inode);
}

/* the last name of an inode went: IN_DELETE_SELF, and its marks go */
static inline void fsnotify_inoderemove(struct inode *inode)
{
	fsnotify_inode(inode, FS_DELETE_SELF);
	__fsnotify_inode_delete(inode);
}

/* a rename: IN_MOVED_FROM and IN_MOVED_TO with one cookie, the replaced inode's IN_ATTRIB,
 * the moved one's IN_MOVE_SELF (FS_RENAME is fanotify's) */
static inline void fsnotify_move(struct inode *old_dir, struct inode *new_dir, const struct qstr *old_name,
				 int isdir, struct inode *target, struct dentry *moved)
{
	struct inode *source = moved->d_inode;
	u32 fs_cookie = fsnotify_get_cookie();
	u32 isdir_mask = isdir ? FS_ISDIR : 0;

	fsnotify_name(FS_MOVED_FROM | isdir_mask, source, FSNOTIFY_EVENT_INODE, old_dir, old_name, fs_cookie);
	fsnotify_name(FS_MOVED_TO | isdir_mask, source, FSNOTIFY_EVENT_INODE, new_dir, &moved->d_name, fs_cookie);
	if (target)
		fsnotify_link_count(target);
	fsnotify_inode(source, FS_MOVE_SELF);
}

/* notify_change's: what the attributes changed say */
static inline void fsnotify_change(struct dentry *dentry, unsigned int ia_valid)
{
	u32 mask = 0;

	if (ia_valid & (ATTR_UID | ATTR_GID | ATTR_MODE))
		mask |= FS_ATTRIB;
	if (ia_valid & ATTR_SIZE)
		mask |= FS_MODIFY;
	/* both times: a utime(s) call */
	if ((ia_valid & (ATTR_ATIME | ATTR_MTIME)) == (ATTR_ATIME | ATTR_MTIME))
		mask |= FS_ATTRIB;
	else if (ia_valid & ATTR_ATIME)
		mask |= FS_ACCESS;
	else if (ia_valid & ATTR_MTIME)
		mask |= FS_MODIFY;
	if (mask)
		fsnotify_dentry(dentry, mask);
}
#endif
