/* stat, lstat, fstat, newfstatat, statx (Linux's fs/stat.c): vfs_statx → vfs_getattr →
 * ->getattr or generic_fillattr, copied out as x86-64's struct stat / struct statx. */
#include "../include/fs.h"
#include "../include/security.h"
#include "../include/cred.h"

#define STATX_BASIC_STATS	0x000007ffU
#define STATX_MNT_ID		0x00001000U
#define STATX__RESERVED		0x80000000U
#define STATX_ATTR_MOUNT_ROOT	0x00002000

struct stat {
	unsigned long st_dev, st_ino, st_nlink;
	unsigned int st_mode, st_uid, st_gid, __pad0;
	unsigned long st_rdev;
	long st_size, st_blksize, st_blocks;
	unsigned long st_atime, st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, st_ctime_nsec;
	long __unused[3];
};
_Static_assert(sizeof(struct stat) == 144, "x86-64 struct stat");

struct statx_timestamp { s64 tv_sec; u32 tv_nsec; s32 __reserved; };
struct statx {
	u32 stx_mask, stx_blksize;
	u64 stx_attributes;
	u32 stx_nlink, stx_uid, stx_gid;
	u16 stx_mode, __spare0[1];
	u64 stx_ino, stx_size, stx_blocks, stx_attributes_mask;
	struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	u32 stx_rdev_major, stx_rdev_minor, stx_dev_major, stx_dev_minor;
	u64 stx_mnt_id;
	u32 stx_dio_mem_align, stx_dio_offset_align;
	u64 __spare3[12];
};
_Static_assert(sizeof(struct statx) == 256, "struct statx");

noinline void generic_fillattr(void *idmap, struct inode *inode, struct kstat *stat)
{
	stat->dev = inode->i_sb->s_dev;
	stat->ino = inode->i_ino;
	stat->mode = inode->i_mode;
	stat->nlink = inode->i_nlink;
	stat->uid = inode->i_uid;
	stat->gid = inode->i_gid;
	stat->rdev = inode->i_rdev;
	stat->size = inode->i_size;
	stat->atime = inode->i_atime;
	stat->mtime = inode->i_mtime;
	stat->ctime = inode->i_ctime;
	stat->blksize = 1 << inode->i_blkbits;
	stat->blocks = inode->i_blocks;
}

noinline int vfs_getattr_nosec(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int query_flags)
{
	struct inode *inode = path->dentry->d_inode;

	memset(stat, 0, sizeof(*stat));
	stat->result_mask |= STATX_BASIC_STATS;
	if (path->mnt->mnt_root == path->dentry)
		stat->attributes |= STATX_ATTR_MOUNT_ROOT;
	stat->attributes_mask |= STATX_ATTR_MOUNT_ROOT;
	if (inode->i_op && inode->i_op->getattr)
		return inode->i_op->getattr(path, stat, request_mask, query_flags);
	generic_fillattr(NULL, inode, stat);
	return 0;
}

noinline int vfs_getattr(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int query_flags)
{
	int retval = security_inode_getattr(path);

	if (retval)
		return retval;
	return vfs_getattr_nosec(path, stat, request_mask, query_flags);
}

noinline int vfs_fstat(int fd, struct kstat *stat)
{
	struct fd f = fdget_raw(fd);
	int error;

	if (!f.file)
		return -EBADF;
	error = vfs_getattr(&f.file->f_path, stat, STATX_BASIC_STATS, 0);
	fdput(f);
	return error;
}

/* The walk's flags for a stat's AT_* flags (no automount points here: LOOKUP_AUTOMOUNT is kept
 * for what it says) */
noinline int getname_statx_lookup_flags(int flags)
{
	int lookup_flags = 0;

	if (!(flags & AT_SYMLINK_NOFOLLOW))
		lookup_flags |= LOOKUP_FOLLOW;
	if (!(flags & AT_NO_AUTOMOUNT))
		lookup_flags |= LOOKUP_AUTOMOUNT;
	if (flags & AT_EMPTY_PATH)
		lookup_flags |= LOOKUP_EMPTY;
	return lookup_flags;
}

noinline int vfs_statx(int dfd, struct filename *filename, int flags, struct kstat *stat, u32 request_mask)
{
	struct path path;
	unsigned int lookup_flags = getname_statx_lookup_flags(flags);
	int error;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	error = filename_lookup(dfd, filename, lookup_flags, &path, NULL);
	if (error)
		return error;
	error = vfs_getattr(&path, stat, request_mask, flags);
	stat->mnt_id = real_mount(path.mnt)->mnt_id;
	stat->result_mask |= STATX_MNT_ID;
	path_put(&path);
	return error;
}

noinline int vfs_fstatat(int dfd, const char *filename, struct kstat *stat, int flags)
{
	int statx_flags = flags | AT_NO_AUTOMOUNT;
	struct filename *name = getname_flags(filename, getname_statx_lookup_flags(statx_flags), NULL);
	int ret = vfs_statx(dfd, name, statx_flags, stat, STATX_BASIC_STATS);

	putname(name);
	return ret;
}

static notrace u32 new_encode_dev(dev_t dev)
{
	unsigned major = MAJOR(dev), minor = MINOR(dev);

	return (minor & 0xff) | (major << 8) | ((minor & ~0xff) << 12);
}

noinline int cp_new_stat(struct kstat *stat, struct stat *statbuf)
{
	struct stat tmp;

	memset(&tmp, 0, sizeof(tmp));
	tmp.st_dev = new_encode_dev(stat->dev);
	tmp.st_ino = stat->ino;
	tmp.st_nlink = stat->nlink;
	tmp.st_mode = stat->mode;
	tmp.st_uid = from_kuid_munged(&init_user_ns, stat->uid);	/* SET_UID: current_user_ns() */
	tmp.st_gid = from_kgid_munged(&init_user_ns, stat->gid);
	tmp.st_rdev = new_encode_dev(stat->rdev);
	tmp.st_size = stat->size;
	tmp.st_atime = stat->atime.tv_sec;
	tmp.st_atime_nsec = stat->atime.tv_nsec;
	tmp.st_mtime = stat->mtime.tv_sec;
	tmp.st_mtime_nsec = stat->mtime.tv_nsec;
	tmp.st_ctime = stat->ctime.tv_sec;
	tmp.st_ctime_nsec = stat->ctime.tv_nsec;
	tmp.st_blocks = stat->blocks;
	tmp.st_blksize = stat->blksize;
	return copy_to_user(statbuf, &tmp, sizeof(tmp)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(newstat, const char *, filename, struct stat *, statbuf)
{
	struct kstat stat;
	int error = vfs_fstatat(AT_FDCWD, filename, &stat, 0);

	if (error)
		return error;
	return cp_new_stat(&stat, statbuf);
}

SYSCALL_DEFINE2(newlstat, const char *, filename, struct stat *, statbuf)
{
	struct kstat stat;
	int error = vfs_fstatat(AT_FDCWD, filename, &stat, AT_SYMLINK_NOFOLLOW);

	if (error)
		return error;
	return cp_new_stat(&stat, statbuf);
}

SYSCALL_DEFINE4(newfstatat, int, dfd, const char *, filename, struct stat *, statbuf, int, flag)
{
	struct kstat stat;
	int error = vfs_fstatat(dfd, filename, &stat, flag);

	if (error)
		return error;
	return cp_new_stat(&stat, statbuf);
}

SYSCALL_DEFINE2(newfstat, unsigned int, fd, struct stat *, statbuf)
{
	struct kstat stat;
	int error = vfs_fstat(fd, &stat);

	if (!error)
		error = cp_new_stat(&stat, statbuf);
	return error;
}

noinline int cp_statx(const struct kstat *stat, struct statx *buffer)
{
	struct statx tmp;

	memset(&tmp, 0, sizeof(tmp));
	tmp.stx_mask = stat->result_mask;
	tmp.stx_blksize = stat->blksize;
	tmp.stx_attributes = stat->attributes;
	tmp.stx_nlink = stat->nlink;
	tmp.stx_uid = from_kuid_munged(&init_user_ns, stat->uid);
	tmp.stx_gid = from_kgid_munged(&init_user_ns, stat->gid);
	tmp.stx_mode = stat->mode;
	tmp.stx_ino = stat->ino;
	tmp.stx_size = stat->size;
	tmp.stx_blocks = stat->blocks;
	tmp.stx_attributes_mask = stat->attributes_mask;
	tmp.stx_atime.tv_sec = stat->atime.tv_sec;
	tmp.stx_atime.tv_nsec = stat->atime.tv_nsec;
	tmp.stx_btime.tv_sec = stat->btime.tv_sec;
	tmp.stx_btime.tv_nsec = stat->btime.tv_nsec;
	tmp.stx_ctime.tv_sec = stat->ctime.tv_sec;
	tmp.stx_ctime.tv_nsec = stat->ctime.tv_nsec;
	tmp.stx_mtime.tv_sec = stat->mtime.tv_sec;
	tmp.stx_mtime.tv_nsec = stat->mtime.tv_nsec;
	tmp.stx_rdev_major = MAJOR(stat->rdev);
	tmp.stx_rdev_minor = MINOR(stat->rdev);
	tmp.stx_dev_major = MAJOR(stat->dev);
	tmp.stx_dev_minor = MINOR(stat->dev);
	tmp.stx_mnt_id = stat->mnt_id;
	return copy_to_user(buffer, &tmp, sizeof(tmp)) ? -EFAULT : 0;
}

noinline int do_statx(int dfd, struct filename *filename, unsigned int flags, unsigned int mask, struct statx *buffer)
{
	struct kstat stat;
	int error;

	if (mask & STATX__RESERVED)
		return -EINVAL;
	if ((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
		return -EINVAL;
	error = vfs_statx(dfd, filename, flags, &stat, mask);
	if (error)
		return error;
	return cp_statx(&stat, buffer);
}

SYSCALL_DEFINE5(statx, int, dfd, const char *, filename, unsigned, flags, unsigned int, mask, struct statx *, buffer)
{
	struct filename *name = getname_flags(filename, getname_statx_lookup_flags(flags), NULL);
	int ret = do_statx(dfd, name, flags, mask, buffer);

	putname(name);
	return ret;
}
