/* Inodes (Linux's fs/inode.c): allocation per super block, reference counts, link counts;
 * the last iput of an unlinked inode evicts it (its pages, then the inode). */
#include "../include/fs.h"
#include "../include/cred.h"
#include "../include/security.h"
#include "../include/pagemap.h"

static struct kmem_cache *inode_cachep;
static spinlock_t inode_lock;
static unsigned int last_ino;

noinline unsigned int get_next_ino(void)
{
	return __atomic_add_fetch(&last_ino, 1, __ATOMIC_RELAXED);
}

/* the wall clock as of the last tick, as 6.1's: a file's times are dates */
noinline struct timespec64 current_time(struct inode *inode)
{
	struct timespec64 now;

	ktime_get_coarse_real_ts64(&now);
	return now;
}

/* ---- a write's times (fs/inode.c: file_update_time → inode_update_time → generic_update_time) ---- */
#define S_ATIME	1
#define S_MTIME	2
#define S_CTIME	4

static inline bool timespec64_equal(const struct timespec64 *a, const struct timespec64 *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The times given, and the inode dirty for them (I_DIRTY_SYNC: no lazytime here). */
noinline int generic_update_time(struct inode *inode, struct timespec64 *time, int flags)
{
	if (flags & S_ATIME)
		inode->i_atime = *time;
	if (flags & S_CTIME)
		inode->i_ctime = *time;
	if (flags & S_MTIME)
		inode->i_mtime = *time;
	__mark_inode_dirty(inode, I_DIRTY_SYNC);
	return 0;
}

noinline int inode_update_time(struct inode *inode, struct timespec64 *time, int flags)
{
	return generic_update_time(inode, time, flags);	/* (no file system has ->update_time) */
}

/* mtime and ctime to now, where they are not already (inode_needs_update_time). */
noinline int file_update_time(struct file *file)
{
	struct inode *inode = file->f_inode;
	struct timespec64 now = current_time(inode);
	int sync_it = 0, ret;

	if (!timespec64_equal(&inode->i_mtime, &now))
		sync_it = S_MTIME;
	if (!timespec64_equal(&inode->i_ctime, &now))
		sync_it |= S_CTIME;
	if (!sync_it)
		return 0;
	if (__mnt_want_write_file(file))	/* __file_update_time(): a read-only mount keeps them */
		return 0;
	ret = inode_update_time(inode, &now, sync_it);
	__mnt_drop_write_file(file);
	return ret;
}

/* ---- access times (relatime: an atime older than the mtime or ctime, or a day old) ---- */
static inline int timespec64_compare(const struct timespec64 *a, const struct timespec64 *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return a->tv_nsec < b->tv_nsec ? -1 : a->tv_nsec > b->tv_nsec;
}

static inline int relatime_need_update(struct vfsmount *mnt, struct inode *inode, struct timespec64 now)
{
	if (!(mnt->mnt_flags & MNT_RELATIME))
		return 1;
	if (timespec64_compare(&inode->i_mtime, &inode->i_atime) >= 0)
		return 1;
	if (timespec64_compare(&inode->i_ctime, &inode->i_atime) >= 0)
		return 1;
	return (long)(now.tv_sec - inode->i_atime.tv_sec) >= 24 * 60 * 60;
}

noinline bool atime_needs_update(const struct path *path, struct inode *inode)
{
	struct vfsmount *mnt = path->mnt;
	struct timespec64 now;

	if (inode->i_flags & S_NOATIME)
		return false;
	if (mnt->mnt_flags & MNT_NOATIME)
		return false;
	if ((mnt->mnt_flags & MNT_NODIRATIME) && S_ISDIR(inode->i_mode))
		return false;
	now = current_time(inode);
	if (!relatime_need_update(mnt, inode, now))
		return false;
	return !timespec64_equal(&inode->i_atime, &now);
}

/* The access time to now, where it needs it and the mount may be written (a read-only one
 * keeps its times) */
noinline void touch_atime(const struct path *path)
{
	struct vfsmount *mnt = path->mnt;
	struct inode *inode = path->dentry->d_inode;
	struct timespec64 now;

	if (!atime_needs_update(path, inode))
		return;
	if (__mnt_want_write(mnt) != 0)
		return;
	now = current_time(inode);
	inode_update_time(inode, &now, S_ATIME);
	__mnt_drop_write(mnt);
}

/* An inode's fields as a new one has them; the security hook's last (ENOMEM if it refuses). */
noinline int inode_init_always(struct super_block *sb, struct inode *inode)
{
	inode->i_sb = sb;
	inode->i_blkbits = 12;
	inode->i_count = 1;
	inode->i_nlink = 1;
	inode->i_data.host = inode;
	inode->i_mapping = &inode->i_data;
	INIT_LIST_HEAD(&inode->i_data.i_mmap);
	inode->i_data.i_mmap_writable = 0;
	mutex_init(&inode->i_data.i_mmap_rwsem);
	inode->i_atime = inode->i_mtime = inode->i_ctime = current_time(inode);
	mutex_init(&inode->i_rwsem);
	INIT_LIST_HEAD(&inode->i_dentry);
	INIT_LIST_HEAD(&inode->i_io_list);
	if (security_inode_alloc(inode))
		return -ENOMEM;
	return 0;
}

/* The file system's inode (its own structure around it: ->alloc_inode) or a bare one */
static noinline struct inode *alloc_inode(struct super_block *sb)
{
	const struct super_operations *ops = sb->s_op;
	struct inode *inode;

	if (ops && ops->alloc_inode)
		inode = ops->alloc_inode(sb);
	else
		inode = kmem_cache_alloc_lru(inode_cachep, NULL, GFP_KERNEL | __GFP_ZERO);	/* alloc_inode_sb() */
	if (!inode)
		return NULL;
	if (unlikely(inode_init_always(sb, inode))) {
		if (ops && ops->free_inode)
			ops->free_inode(inode);
		else
			kmem_cache_free(inode_cachep, inode);
		return NULL;
	}
	return inode;
}

noinline struct inode *new_inode_pseudo(struct super_block *sb)
{
	struct inode *inode = alloc_inode(sb);

	if (inode)
		INIT_LIST_HEAD(&inode->i_sb_list);
	return inode;
}

/* On its super block's list of inodes */
noinline void inode_sb_list_add(struct inode *inode)
{
	unsigned long flags;

	spin_lock_irqsave(&inode_lock, flags);
	list_add(&inode->i_sb_list, &inode->i_sb->s_inodes);
	spin_unlock_irqrestore(&inode_lock, flags);
}

/* An inode of the super block that test() takes, held, or NULL (6.1 looks in the inode hash
 * under hashval; no inode hash here: the super block's list) */
noinline struct inode *ilookup5(struct super_block *sb, unsigned long hashval, int (*test)(struct inode *, void *),
				void *data)
{
	struct inode *inode, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&inode_lock, flags);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		if (test(inode, data)) {
			__atomic_add_fetch(&inode->i_count, 1, __ATOMIC_RELAXED);	/* __iget() */
			found = inode;
			break;
		}
	}
	spin_unlock_irqrestore(&inode_lock, flags);
	return found;
}

noinline struct inode *new_inode(struct super_block *sb)
{
	struct inode *inode = new_inode_pseudo(sb);

	if (inode)
		inode_sb_list_add(inode);
	return inode;
}

noinline void __destroy_inode(struct inode *inode)
{
	security_inode_free(inode);
	locks_free_lock_context(inode);
}

static noinline void destroy_inode(struct inode *inode)
{
	const struct super_operations *ops = inode->i_sb->s_op;

	__destroy_inode(inode);
	/* (6.1: after an RCU grace period, i_callback) */
	if (ops && ops->free_inode)
		ops->free_inode(inode);
	else
		kmem_cache_free(inode_cachep, inode);
}

struct inode *ihold(struct inode *inode)
{
	__atomic_add_fetch(&inode->i_count, 1, __ATOMIC_RELAXED);
	return inode;
}

/* The inode's pages go (truncate_inode_pages_final), then the inode. */
/* The end of an inode's life as its file system sees it: no pages left (I_CLEAR) */
noinline void clear_inode(struct inode *inode)
{
	inode->i_state = I_FREEING | I_CLEAR;
}

noinline void evict(struct inode *inode)
{
	struct address_space *m = &inode->i_data;
	unsigned long i, flags;

	if (inode->i_sb->s_op && inode->i_sb->s_op->evict_inode) {
		inode->i_sb->s_op->evict_inode(inode);
	} else {
		truncate_inode_pages_final(&inode->i_data);
		clear_inode(inode);
	}
	/* (pages a file system's own store kept outside the page cache) */
	for (i = 0; i < m->nr_slots; i++)
		if (m->pages[i])
			__free_pages(virt_to_page(m->pages[i]), 0);
	kfree(m->pages);
	if (S_ISLNK(inode->i_mode))
		kfree(inode->i_link);
	spin_lock_irqsave(&inode_lock, flags);
	list_del_init(&inode->i_sb_list);
	spin_unlock_irqrestore(&inode_lock, flags);
	destroy_inode(inode);
}

noinline void iput(struct inode *inode)
{
	if (inode && __atomic_sub_fetch(&inode->i_count, 1, __ATOMIC_ACQ_REL) == 0) {
		inode->i_state |= I_FREEING;	/* iput_final() */
		evict(inode);
	}
}

noinline void inode_init_owner(struct inode *inode, const struct inode *dir, umode_t mode)
{
	inode->i_uid = current_cred()->fsuid;
	if (dir && (dir->i_mode & S_ISGID)) {
		inode->i_gid = dir->i_gid;
		if (S_ISDIR(mode))
			mode |= S_ISGID;
	} else {
		inode->i_gid = current_cred()->fsgid;
	}
	inode->i_mode = mode;
}

noinline void init_special_inode(struct inode *inode, umode_t mode, dev_t rdev)
{
	extern const struct file_operations pipefifo_fops;

	inode->i_mode = mode;
	if (S_ISCHR(mode)) {
		inode->i_fop = &def_chr_fops;
		inode->i_rdev = rdev;
	} else if (S_ISFIFO(mode)) {
		inode->i_fop = &pipefifo_fops;
	} else {
		inode->i_rdev = rdev;	/* block devices and sockets: no driver, open gives ENXIO */
	}
}

void set_nlink(struct inode *inode, unsigned int nlink) { inode->i_nlink = nlink; }
noinline void inc_nlink(struct inode *inode) { inode->i_nlink++; }
noinline void drop_nlink(struct inode *inode) { inode->i_nlink--; }
noinline void clear_nlink(struct inode *inode) { inode->i_nlink = 0; }

void __init inode_init(void)
{
	inode_cachep = kmem_cache_create("inode_cache", sizeof(struct inode), 8, SLAB_PANIC, NULL);
}

/* ---- a write's removal of privileges (set-id bits, file capabilities) ---- */
noinline bool in_group_or_capable(void *idmap, const struct inode *inode, gid_t gid)
{
	if (in_group_p(gid))
		return true;
	if (capable_wrt_inode_uidgid(idmap, inode, CAP_FSETID))
		return true;
	return false;
}

/* What a write must drop: the set-id bits, the security.capability attribute */
noinline int dentry_needs_remove_privs(void *idmap, struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;
	int mask = 0;
	int ret;

	if (IS_NOSEC(inode))
		return 0;
	mask = setattr_should_drop_suidgid(idmap, inode);
	ret = security_inode_need_killpriv(dentry);
	if (ret < 0)
		return ret;
	if (ret)
		mask |= ATTR_KILL_PRIV;
	return mask;
}

static inline int __remove_privs(void *idmap, struct dentry *dentry, int kill)
{
	struct iattr newattrs = { .ia_valid = ATTR_FORCE | kill };

	/* Note we call this on write, so notify_change will not encounter any conflicting delegations */
	return notify_change(idmap, dentry, &newattrs, NULL);
}

static noinline int __file_remove_privs(struct file *file, unsigned int flags)
{
	struct dentry *dentry = file->f_path.dentry;
	struct inode *inode = file->f_inode;
	int error = 0;
	int kill;

	if (IS_NOSEC(inode) || !S_ISREG(inode->i_mode))
		return 0;
	kill = dentry_needs_remove_privs(NULL, dentry);
	if (kill < 0)
		return kill;
	if (kill) {
		if (flags & IOCB_NOWAIT)
			return -EAGAIN;
		error = __remove_privs(NULL, dentry, kill);
	}
	if (!error)
		inode_has_no_xattr(inode);
	return error;
}

noinline int file_remove_privs(struct file *file)
{
	return __file_remove_privs(file, 0);
}

/* What a change to a file's contents outside write() does (fallocate): the set-id bits and file
 * capabilities dropped, mtime and ctime to now. */
noinline int file_modified(struct file *file)
{
	int ret = __file_remove_privs(file, 0);	/* 6.1: file_modified_flags(file, 0) */

	if (ret)
		return ret;
	return file_update_time(file);
}
