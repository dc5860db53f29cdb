/* statfs(2), fstatfs(2) (fs/statfs.c): a file system's counts, by its super block's ->statfs,
 * with the flags of the mount the path is on. */
#include "../include/security.h"
#include "../include/syscalls.h"
#include "../include/fs.h"

#define ST_RDONLY	0x0001
#define ST_NOSUID	0x0002
#define ST_NODEV	0x0004
#define ST_NOEXEC	0x0008
#define ST_SYNCHRONOUS	0x0010
#define ST_VALID	0x0020
#define ST_MANDLOCK	0x0040
#define ST_NOATIME	0x0400
#define ST_NODIRATIME	0x0800
#define ST_RELATIME	0x1000
#define ST_NOSYMFOLLOW	0x2000

static int flags_by_mnt(int mnt_flags)
{
	int flags = 0;

	if (mnt_flags & MNT_READONLY)
		flags |= ST_RDONLY;
	if (mnt_flags & MNT_NOSUID)
		flags |= ST_NOSUID;
	if (mnt_flags & MNT_NODEV)
		flags |= ST_NODEV;
	if (mnt_flags & MNT_NOEXEC)
		flags |= ST_NOEXEC;
	if (mnt_flags & MNT_NOATIME)
		flags |= ST_NOATIME;
	if (mnt_flags & MNT_NODIRATIME)
		flags |= ST_NODIRATIME;
	if (mnt_flags & MNT_RELATIME)
		flags |= ST_RELATIME;
	if (mnt_flags & MNT_NOSYMFOLLOW)
		flags |= ST_NOSYMFOLLOW;
	return flags;
}

static int flags_by_sb(int s_flags)
{
	int flags = 0;

	if (s_flags & SB_SYNCHRONOUS)
		flags |= ST_SYNCHRONOUS;
	if (s_flags & SB_MANDLOCK)
		flags |= ST_MANDLOCK;
	if (s_flags & SB_RDONLY)
		flags |= ST_RDONLY;
	return flags;
}

static int calculate_f_flags(struct vfsmount *mnt)
{
	return ST_VALID | flags_by_mnt(mnt->mnt_flags) | flags_by_sb(mnt->mnt_sb->s_flags);
}

/* a file system without ->statfs: ENOSYS, as 6.1's */
static noinline int statfs_by_dentry(struct dentry *dentry, struct kstatfs *buf)
{
	const struct super_operations *sop = dentry->d_sb->s_op;
	int retval;

	if (!sop || !sop->statfs)
		return -ENOSYS;
	memset(buf, 0, sizeof(*buf));
	retval = security_sb_statfs(dentry);
	if (retval)
		return retval;
	retval = sop->statfs(dentry, buf);
	if (retval == 0 && buf->f_frsize == 0)
		buf->f_frsize = buf->f_bsize;
	return retval;
}

noinline int vfs_statfs(const struct path *path, struct kstatfs *buf)
{
	int error = statfs_by_dentry(path->dentry, buf);

	if (!error)
		buf->f_flags = calculate_f_flags(path->mnt);
	return error;
}

noinline int user_statfs(const char *pathname, struct kstatfs *st)
{
	struct path path;
	int error = user_path_at_empty(AT_FDCWD, pathname, LOOKUP_FOLLOW, &path, NULL);

	if (!error) {
		error = vfs_statfs(&path, st);
		path_put(&path);
	}
	return error;
}

noinline int fd_statfs(int fd, struct kstatfs *st)
{
	struct file *file = fget_raw(fd);
	int error = -EBADF;

	if (file) {
		error = vfs_statfs(&file->f_path, st);
		fput(file);
	}
	return error;
}

/* struct statfs is struct kstatfs on x86-64 */
static noinline int do_statfs_native(struct kstatfs *st, struct statfs *p)
{
	_Static_assert(sizeof(struct kstatfs) == 120, "struct statfs");
	return copy_to_user(p, st, sizeof(*st)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(statfs, const char *, pathname, struct statfs *, buf)
{
	struct kstatfs st;
	int error = user_statfs(pathname, &st);

	if (!error)
		error = do_statfs_native(&st, buf);
	return error;
}

SYSCALL_DEFINE2(fstatfs, unsigned int, fd, struct statfs *, buf)
{
	struct kstatfs st;
	int error = fd_statfs(fd, &st);

	if (!error)
		error = do_statfs_native(&st, buf);
	return error;
}

/* ---- ustat(2): the free blocks and inodes of a mounted device's file system ---- */
struct ustat {
	int f_tfree;		/* __kernel_daddr_t */
	unsigned long f_tinode;	/* ino_t (x86-64 has no CONFIG_ARCH_32BIT_USTAT_F_TINODE) */
	char f_fname[6];
	char f_fpack[6];
};

/* the 32-bit encoding of a dev_t userspace passes (include/linux/kdev_t.h) */
static inline dev_t new_decode_dev(u32 dev)
{
	unsigned int major = (dev & 0xfff00) >> 8;
	unsigned int minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);

	return MKDEV(major, minor);
}

static inline int vfs_ustat(dev_t dev, struct kstatfs *sbuf)
{
	struct super_block *s = user_get_super(dev, false);

	if (!s)
		return -EINVAL;
	return statfs_by_dentry(s->s_root, sbuf);
}

SYSCALL_DEFINE2(ustat, unsigned, dev, struct ustat *, ubuf)
{
	struct ustat tmp;
	struct kstatfs sbuf;
	int err = vfs_ustat(new_decode_dev(dev), &sbuf);

	if (err)
		return err;
	memset(&tmp, 0, sizeof(tmp));
	tmp.f_tfree = sbuf.f_bfree;
	tmp.f_tinode = sbuf.f_ffree;
	return copy_to_user(ubuf, &tmp, sizeof(tmp)) ? -EFAULT : 0;
}
