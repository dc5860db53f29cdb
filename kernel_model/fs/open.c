/*
 * Opening and the calls on a path or an fd that are not reads or writes (Linux's fs/open.c):
 * open/openat/openat2/creat (do_sys_openat2 → getname → do_filp_open → … → vfs_open →
 * do_dentry_open), close's partner filp_close (file.c), truncate/ftruncate, access/faccessat,
 * chdir/fchdir/chroot, chmod/fchmod/fchmodat.
 */
#include "../include/filelock.h"
#include "../include/fs.h"
#include "../include/security.h"
#include "../include/cred.h"
#include "../include/fsnotify.h"

struct open_how { u64 flags; u64 mode; u64 resolve; };
#define RESOLVE_NO_XDEV		0x01
#define RESOLVE_NO_MAGICLINKS	0x02
#define RESOLVE_NO_SYMLINKS	0x04
#define RESOLVE_BENEATH		0x08
#define RESOLVE_IN_ROOT		0x10
#define RESOLVE_CACHED		0x20
#define VALID_RESOLVE_FLAGS	0x3f
#define S_IALLUGO_OPEN		(S_ISUID | S_ISGID | S_ISVTX | 0777)

/* mm/readahead.c: a file's readahead window as its backing device gives it: a block device's
 * 128 KiB (VM_READAHEAD_PAGES), none for a file system without one (noop_backing_dev_info) */
noinline void file_ra_state_init(struct file_ra_state *ra, struct address_space *mapping)
{
	struct super_block *sb = mapping->host->i_sb;

	ra->ra_pages = sb && (sb->s_type->fs_flags & FS_REQUIRES_DEV) ? 32 : 0;	/* inode_to_bdi() */
	ra->prev_pos = -1;
}

noinline int do_dentry_open(struct file *f, struct inode *inode, int (*open)(struct inode *, struct file *))
{
	int error;

	path_get(&f->f_path);
	f->f_inode = inode;
	f->f_mapping = inode->i_mapping;
	if (f->f_flags & O_PATH) {
		f->f_mode = FMODE_PATH | FMODE_OPENED;
		f->f_op = NULL;
		return 0;
	}
	if (f->f_mode & FMODE_WRITE)
		__atomic_add_fetch(&inode->i_writecount, 1, __ATOMIC_RELAXED);
	else if (f->f_mode & FMODE_READ)	/* i_readcount_inc(): what a write lease must be alone in */
		__atomic_add_fetch(&inode->i_readcount, 1, __ATOMIC_RELAXED);
	if ((f->f_mode & FMODE_WRITE) && !special_file(inode->i_mode)) {
		error = __mnt_want_write(f->f_path.mnt);	/* held until the last fput */
		if (unlikely(error))
			goto cleanup;
		f->f_mode |= FMODE_WRITER;
	}
	f->f_op = inode->i_fop;
	if (!f->f_op) {
		error = -ENODEV;
		goto cleanup;
	}
	error = security_file_open(f);
	if (error)
		goto cleanup;
	error = break_lease(inode, f->f_flags);	/* the leases this open conflicts with */
	if (error)
		goto cleanup;
	if (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode))
		f->f_mode |= FMODE_ATOMIC_POS;
	if (!open)
		open = f->f_op->open;
	if (open) {
		error = open(inode, f);
		if (error)
			goto cleanup;
	}
	f->f_mode |= FMODE_OPENED;
	if ((f->f_mode & FMODE_READ) && (f->f_op->read || f->f_op->read_iter))
		f->f_mode |= FMODE_CAN_READ;
	if ((f->f_mode & FMODE_WRITE) && (f->f_op->write || f->f_op->write_iter))
		f->f_mode |= FMODE_CAN_WRITE;
	f->f_flags &= ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC);
	file_ra_state_init(&f->f_ra, f->f_mapping->host->i_mapping);
	return 0;
cleanup:
	if (f->f_mode & FMODE_WRITE)
		__atomic_sub_fetch(&inode->i_writecount, 1, __ATOMIC_RELAXED);
	else if (f->f_mode & FMODE_READ)
		__atomic_sub_fetch(&inode->i_readcount, 1, __ATOMIC_RELAXED);
	if (f->f_mode & FMODE_WRITER) {
		__mnt_drop_write(f->f_path.mnt);
		f->f_mode &= ~FMODE_WRITER;
	}
	path_put(&f->f_path);
	f->f_path.mnt = NULL;
	f->f_path.dentry = NULL;
	f->f_inode = NULL;
	return error;
}

noinline int vfs_open(const struct path *path, struct file *file)
{
	file->f_path = *path;
	return do_dentry_open(file, path->dentry->d_inode, NULL);
}

/* dentry_open(): a file of an object already looked up (open_tree's O_PATH one), opened with
 * cred's rights */
noinline struct file *dentry_open(const struct path *path, int flags, const struct cred *cred)
{
	struct file *f = alloc_empty_file(flags, cred);
	int error;

	if (!IS_ERR(f)) {
		error = vfs_open(path, f);
		if (error) {
			fput(f);
			f = ERR_PTR(error);
		}
	}
	return f;
}

/* A file system's ->open for its regular files: a file past 2 GiB takes O_LARGEFILE (which
 * open(2) always sets on x86-64; a kernel's filp_open does not) */
noinline int generic_file_open(struct inode *inode, struct file *filp)
{
	if (!(filp->f_flags & O_LARGEFILE) && inode->i_size > MAX_NON_LFS)
		return -EOVERFLOW;
	return 0;
}

int nonseekable_open(struct inode *inode, struct file *filp)
{
	filp->f_mode &= ~(FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE);
	return 0;
}

int stream_open(struct inode *inode, struct file *filp)
{
	filp->f_mode &= ~(FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE | FMODE_ATOMIC_POS);
	filp->f_mode |= FMODE_STREAM;
	return 0;
}

noinline int do_truncate(void *idmap, struct dentry *dentry, loff_t length, unsigned int time_attrs, struct file *filp)
{
	struct inode *inode = dentry->d_inode;
	struct iattr newattrs = { .ia_valid = ATTR_SIZE | time_attrs, .ia_size = length };
	int ret;

	if (length < 0)
		return -EINVAL;
	if (!inode->i_op || !inode->i_op->setattr)
		return -EINVAL;
	mutex_lock(&inode->i_rwsem);
	ret = notify_change(idmap, dentry, &newattrs, NULL);
	mutex_unlock(&inode->i_rwsem);
	return ret;
}

/* O_TRUNC of an opened regular file (namei.c's do_open) */
notrace int do_truncate_file(struct file *file)
{
	int error = security_path_truncate(&file->f_path);	/* handle_truncate() */

	if (error)
		return error;
	return do_truncate(NULL, file->f_path.dentry, 0, 0, file);
}

noinline long vfs_truncate(const struct path *path, loff_t length)
{
	struct inode *inode = path->dentry->d_inode;
	int error;

	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	error = mnt_want_write(path->mnt);
	if (error)
		return error;
	error = inode_permission(inode, MAY_WRITE);
	if (error)
		goto mnt_drop_write_and_out;
	/* get_write_access(): a lease being set meanwhile sees the truncate coming */
	__atomic_add_fetch(&inode->i_writecount, 1, __ATOMIC_RELAXED);
	error = break_lease(inode, O_WRONLY);	/* no lease may stay */
	if (!error)
		error = security_path_truncate(path);
	if (!error)
		error = do_truncate(NULL, path->dentry, length, 0, NULL);
	__atomic_sub_fetch(&inode->i_writecount, 1, __ATOMIC_RELAXED);	/* put_write_access() */
mnt_drop_write_and_out:
	mnt_drop_write(path->mnt);
	return error;
}

noinline long do_sys_truncate(const char *pathname, loff_t length)
{
	struct path path;
	int error;

	if (length < 0)	/* sorry, but loff_t says... */
		return -EINVAL;
	error = user_path_at_empty(AT_FDCWD, pathname, LOOKUP_FOLLOW, &path, NULL);
	if (!error) {
		error = vfs_truncate(&path, length);
		path_put(&path);
	}
	return error;
}

SYSCALL_DEFINE2(truncate, const char *, path, long, length)
{
	return do_sys_truncate(path, length);
}

noinline long do_sys_ftruncate(unsigned int fd, loff_t length, int small)
{
	struct file *f;
	struct inode *inode;
	int error;

	if (length < 0)
		return -EINVAL;
	f = fget(fd);
	if (!f)
		return -EBADF;
	error = -EINVAL;
	inode = f->f_inode;
	if (!(f->f_flags & O_LARGEFILE) && small)
		goto out;
	if (S_ISDIR(inode->i_mode) || !(f->f_mode & FMODE_WRITE))
		goto out;
	if (!S_ISREG(inode->i_mode))
		goto out;
	error = -EPERM;
	if (f->f_flags & O_APPEND)
		goto out;
	error = security_path_truncate(&f->f_path);
	if (!error)
		error = do_truncate(NULL, f->f_path.dentry, length, 0, f);
out:
	fput(f);
	return error;
}

SYSCALL_DEFINE2(ftruncate, unsigned int, fd, off_t, length)
{
	return do_sys_ftruncate(fd, length, 1);
}

/* fallocate(2): the mode checked as 6.1's, then the file system's ->fallocate (tmpfs's alone
 * here: hostfs and the others have none, EOPNOTSUPP). */
noinline int vfs_fallocate(struct file *file, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = file->f_inode;
	long ret;

	if (offset < 0 || len <= 0)
		return -EINVAL;
	if (mode & ~FALLOC_FL_SUPPORTED_MASK)
		return -EOPNOTSUPP;
	/* punching a hole and zeroing a range are exclusive */
	if ((mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;
	/* a hole keeps the size */
	if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_COLLAPSE_RANGE) && (mode & ~FALLOC_FL_COLLAPSE_RANGE))
		return -EINVAL;
	if ((mode & FALLOC_FL_INSERT_RANGE) && (mode & ~FALLOC_FL_INSERT_RANGE))
		return -EINVAL;
	if ((mode & FALLOC_FL_UNSHARE_RANGE) && (mode & ~(FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE)))
		return -EINVAL;
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	/* (no append-only, immutable or swap files here) */
	ret = security_file_permission(file, MAY_WRITE);
	if (ret)
		return ret;
	if (S_ISFIFO(inode->i_mode))
		return -ESPIPE;
	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode) && !S_ISBLK(inode->i_mode))
		return -ENODEV;
	/* past the largest size, or wrapped through zero (the kernel's -fno-strict-overflow sum) */
	if ((loff_t)((u64)offset + len) > inode->i_sb->s_maxbytes || (loff_t)((u64)offset + len) < 0)
		return -EFBIG;
	if (!file->f_op->fallocate)
		return -EOPNOTSUPP;
	ret = file->f_op->fallocate(file, mode, offset, len);
	/* an event even when the size stays (FALLOC_FL_KEEP_SIZE), as 6.1 */
	if (ret == 0)
		fsnotify_modify(file);
	return ret;
}

noinline int ksys_fallocate(int fd, int mode, loff_t offset, loff_t len)
{
	struct fd f = fdget(fd);
	int error = -EBADF;

	if (f.file) {
		error = vfs_fallocate(f.file, mode, offset, len);
		fdput(f);
	}
	return error;
}

SYSCALL_DEFINE4(fallocate, int, fd, int, mode, loff_t, offset, loff_t, len)
{
	return ksys_fallocate(fd, mode, offset, len);
}

/*
 * access(2) checks with the real ids: the caller acts with a copy of its credentials whose file
 * system ids are its real ones until the check is done (6.1's, inline), and whose effective
 * capabilities are what a real uid gives: all it is permitted for root, none for another
 * (unless SECURE_NO_SETUID_FIXUP).
 */
static inline const struct cred *access_override_creds(void)
{
	const struct cred *old_cred;
	struct cred *override_cred = prepare_creds();

	if (!override_cred)
		return NULL;
	override_cred->fsuid = override_cred->uid;
	override_cred->fsgid = override_cred->gid;
	if (!issecure(SECURE_NO_SETUID_FIXUP)) {
		if (override_cred->uid != 0)
			override_cred->cap_effective = CAP_EMPTY_SET;
		else
			override_cred->cap_effective = override_cred->cap_permitted;
	}
	override_cred->non_rcu = true;	/* only this task ever sees it: freed at once */
	old_cred = override_creds(override_cred);
	put_cred(override_cred);	/* (override_creds() took its own reference) */
	return old_cred;
}

noinline long do_faccessat(int dfd, const char *filename, int mode, int flags)
{
	const struct cred *old_cred = NULL;
	struct path path;
	struct inode *inode;
	unsigned int lookup_flags = LOOKUP_FOLLOW;
	int res;

	if (mode & ~7)	/* where's F_OK, X_OK, W_OK, R_OK? */
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (flags & AT_SYMLINK_NOFOLLOW)
		lookup_flags &= ~LOOKUP_FOLLOW;
	if (flags & AT_EMPTY_PATH)
		lookup_flags |= LOOKUP_EMPTY;
	if (!(flags & AT_EACCESS)) {
		old_cred = access_override_creds();
		if (!old_cred)
			return -ENOMEM;
	}
	res = user_path_at_empty(dfd, filename, lookup_flags, &path, NULL);
	if (res)
		goto out_creds;
	inode = path.dentry->d_inode;
	if ((mode & MAY_EXEC) && S_ISREG(inode->i_mode)) {
		res = -EACCES;
		if (path_noexec(&path))
			goto out;
	}
	res = inode_permission(inode, mode | MAY_ACCESS);
	if (!res && (mode & MAY_WRITE) && __mnt_is_readonly(path.mnt) &&
	    (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) || S_ISLNK(inode->i_mode)))
		res = -EROFS;
out:
	path_put(&path);
out_creds:
	if (old_cred)
		revert_creds(old_cred);
	return res;
}

SYSCALL_DEFINE3(faccessat, int, dfd, const char *, filename, int, mode)
{
	return do_faccessat(dfd, filename, mode, 0);
}

SYSCALL_DEFINE4(faccessat2, int, dfd, const char *, filename, int, mode, int, flags)
{
	return do_faccessat(dfd, filename, mode, flags);
}

SYSCALL_DEFINE2(access, const char *, filename, int, mode)
{
	return do_faccessat(AT_FDCWD, filename, mode, 0);
}

SYSCALL_DEFINE1(chdir, const char *, filename)
{
	struct path path;
	int error = user_path_at_empty(AT_FDCWD, filename, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path, NULL);

	if (error)
		return error;
	error = inode_permission(path.dentry->d_inode, MAY_EXEC);
	if (!error)
		set_fs_pwd(current->fs, &path);
	path_put(&path);
	return error;
}

SYSCALL_DEFINE1(fchdir, unsigned int, fd)
{
	struct file *f = fget_raw(fd);
	int error;

	if (!f)
		return -EBADF;
	error = -ENOTDIR;
	if (d_is_dir(f->f_path.dentry)) {
		error = inode_permission(f->f_inode, MAY_EXEC);
		if (!error)
			set_fs_pwd(current->fs, &f->f_path);
	}
	fput(f);
	return error;
}

SYSCALL_DEFINE1(chroot, const char *, filename)
{
	struct path path;
	int error = user_path_at_empty(AT_FDCWD, filename, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path, NULL);

	if (error)
		return error;
	error = inode_permission(path.dentry->d_inode, MAY_EXEC);
	if (!error && !ns_capable(&init_user_ns, CAP_SYS_CHROOT))
		error = -EPERM;
	if (!error)
		error = security_path_chroot(&path);
	if (!error)
		set_fs_root(current->fs, &path);
	path_put(&path);
	return error;
}

noinline int chmod_common(const struct path *path, umode_t mode)
{
	struct inode *inode = path->dentry->d_inode;
	struct iattr newattrs = { .ia_valid = ATTR_MODE | ATTR_CTIME };
	int error;

	error = mnt_want_write(path->mnt);
	if (error)
		return error;
	error = security_path_chmod(path, mode);	/* (the owner check: setattr_prepare()'s) */
	if (!error) {
		newattrs.ia_mode = (mode & S_IALLUGO) | (inode->i_mode & ~S_IALLUGO);
		mutex_lock(&inode->i_rwsem);
		error = notify_change(NULL, path->dentry, &newattrs, NULL);
		mutex_unlock(&inode->i_rwsem);
	}
	mnt_drop_write(path->mnt);
	return error;
}

noinline int vfs_fchmod(struct file *file, umode_t mode)
{
	return chmod_common(&file->f_path, mode);
}

SYSCALL_DEFINE2(fchmod, unsigned int, fd, umode_t, mode)
{
	struct file *f = fget(fd);
	int err = -EBADF;

	if (f) {
		err = vfs_fchmod(f, mode);
		fput(f);
	}
	return err;
}

noinline int do_fchmodat(int dfd, const char *filename, umode_t mode)
{
	struct path path;
	int error = user_path_at_empty(dfd, filename, LOOKUP_FOLLOW, &path, NULL);

	if (!error) {
		error = chmod_common(&path, mode);
		path_put(&path);
	}
	return error;
}

SYSCALL_DEFINE3(fchmodat, int, dfd, const char *, filename, umode_t, mode)
{
	return do_fchmodat(dfd, filename, mode);
}

SYSCALL_DEFINE2(chmod, const char *, filename, umode_t, mode)
{
	return do_fchmodat(AT_FDCWD, filename, mode);
}

/* A new owner and/or group (-1: unchanged); a non-directory loses its set-id bits */
noinline int chown_common(const struct path *path, uid_t user, gid_t group)
{
	struct inode *inode = path->dentry->d_inode;
	struct iattr newattrs = { .ia_valid = ATTR_CTIME };
	int error;

	if (user != (uid_t)-1) {
		newattrs.ia_valid |= ATTR_UID;
		newattrs.ia_uid = user;
	}
	if (group != (gid_t)-1) {
		newattrs.ia_valid |= ATTR_GID;
		newattrs.ia_gid = group;
	}
	if (!S_ISDIR(inode->i_mode))
		newattrs.ia_valid |= ATTR_KILL_SUID | ATTR_KILL_SGID | ATTR_KILL_PRIV;
	mutex_lock(&inode->i_rwsem);
	error = security_path_chown(path, user, group);
	if (!error)
		error = notify_change(NULL, path->dentry, &newattrs, NULL);
	mutex_unlock(&inode->i_rwsem);
	return error;
}

noinline int do_fchownat(int dfd, const char *filename, uid_t user, gid_t group, int flag)
{
	struct path path;
	int error, lookup_flags;

	if ((flag & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) != 0)
		return -EINVAL;
	lookup_flags = (flag & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW;
	if (flag & AT_EMPTY_PATH)
		lookup_flags |= LOOKUP_EMPTY;
	error = user_path_at_empty(dfd, filename, lookup_flags, &path, NULL);
	if (error)
		return error;
	error = mnt_want_write(path.mnt);
	if (!error) {
		error = chown_common(&path, user, group);
		mnt_drop_write(path.mnt);
	}
	path_put(&path);
	return error;
}

SYSCALL_DEFINE5(fchownat, int, dfd, const char *, filename, uid_t, user, gid_t, group, int, flag)
{
	return do_fchownat(dfd, filename, user, group, flag);
}

SYSCALL_DEFINE3(chown, const char *, filename, uid_t, user, gid_t, group)
{
	return do_fchownat(AT_FDCWD, filename, user, group, 0);
}

SYSCALL_DEFINE3(lchown, const char *, filename, uid_t, user, gid_t, group)
{
	return do_fchownat(AT_FDCWD, filename, user, group, AT_SYMLINK_NOFOLLOW);
}

noinline int vfs_fchown(struct file *file, uid_t user, gid_t group)
{
	int error = mnt_want_write_file(file);

	if (error)
		return error;
	error = chown_common(&file->f_path, user, group);
	mnt_drop_write_file(file);
	return error;
}

noinline int ksys_fchown(unsigned int fd, uid_t user, gid_t group)
{
	struct fd f = fdget(fd);
	int error = -EBADF;

	if (f.file) {
		error = vfs_fchown(f.file, user, group);
		fdput(f);
	}
	return error;
}

SYSCALL_DEFINE3(fchown, unsigned int, fd, uid_t, user, gid_t, group)
{
	return ksys_fchown(fd, user, group);
}

/* ---- open ---- */
static notrace int build_open_flags(const struct open_how *how, struct open_flags *op)
{
	u64 flags = how->flags;
	int lookup_flags = 0;
	int acc_mode = "\004\002\006\006"[flags & O_ACCMODE];

	if (flags & ~VALID_OPEN_FLAGS)
		return -EINVAL;
	if (how->resolve & ~VALID_RESOLVE_FLAGS)
		return -EINVAL;
	if ((how->resolve & RESOLVE_BENEATH) && (how->resolve & RESOLVE_IN_ROOT))
		return -EINVAL;
	if ((flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE) {
		if (how->mode & ~S_IALLUGO_OPEN)
			return -EINVAL;
		op->mode = how->mode | S_IFREG;
	} else {
		if (how->mode != 0)
			return -EINVAL;
		op->mode = 0;
	}
	if (flags & __O_TMPFILE)
		return (flags & O_DIRECTORY) ? -EOPNOTSUPP : -EINVAL;	/* no O_TMPFILE here */
	if (flags & __O_SYNC)
		flags |= O_DSYNC;
	if (flags & O_PATH) {
		if (flags & ~(O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC))
			return -EINVAL;
		acc_mode = 0;
	}
	op->open_flag = flags;
	if (flags & O_TRUNC)
		acc_mode |= MAY_WRITE;
	if (flags & O_APPEND)
		acc_mode |= 0x08;	/* MAY_APPEND */
	op->acc_mode = acc_mode;
	op->intent = flags & O_PATH ? 0 : 0x100;
	if (flags & O_CREAT) {
		if (flags & O_EXCL)
			flags |= O_NOFOLLOW;
	}
	if (flags & O_DIRECTORY)
		lookup_flags |= LOOKUP_DIRECTORY;
	if (!(flags & O_NOFOLLOW))
		lookup_flags |= LOOKUP_FOLLOW;
	if (how->resolve & RESOLVE_NO_XDEV)
		lookup_flags |= LOOKUP_NO_XDEV;
	if (how->resolve & RESOLVE_NO_MAGICLINKS)
		lookup_flags |= LOOKUP_NO_MAGICLINKS;
	if (how->resolve & RESOLVE_NO_SYMLINKS)
		lookup_flags |= LOOKUP_NO_SYMLINKS;
	if (how->resolve & RESOLVE_BENEATH)
		lookup_flags |= LOOKUP_BENEATH;
	if (how->resolve & RESOLVE_IN_ROOT)
		lookup_flags |= LOOKUP_IN_ROOT;
	if (how->resolve & RESOLVE_CACHED) {
		/* don't bother even trying for a create or truncate open */
		if (flags & (O_TRUNC | O_CREAT | __O_TMPFILE))
			return -EAGAIN;
		lookup_flags |= LOOKUP_CACHED;
	}
	op->lookup_flags = lookup_flags;
	return 0;
}

noinline struct file *file_open_name(struct filename *name, int flags, umode_t mode)
{
	struct open_how how = { .flags = flags & VALID_OPEN_FLAGS, .mode = (flags & O_CREAT) ? mode & S_IALLUGO_OPEN : 0 };
	struct open_flags op;
	int err = build_open_flags(&how, &op);

	if (err)
		return (void *)(long)err;
	return do_filp_open(AT_FDCWD, name, &op);
}

noinline struct file *filp_open(const char *filename, int flags, umode_t mode)
{
	struct filename *name = getname_kernel(filename);
	struct file *file = (void *)name;

	if (!IS_ERR(name)) {
		file = file_open_name(name, flags, mode);
		putname(name);
	}
	return file;
}

noinline long do_sys_openat2(int dfd, const char *filename, struct open_how *how)
{
	struct open_flags op;
	int fd = build_open_flags(how, &op);
	struct filename *tmp;

	if (fd)
		return fd;
	tmp = getname(filename);
	if (IS_ERR(tmp))
		return PTR_ERR(tmp);
	fd = get_unused_fd_flags(how->flags);
	if (fd >= 0) {
		struct file *f = do_filp_open(dfd, tmp, &op);

		if (IS_ERR(f)) {
			put_unused_fd(fd);
			fd = PTR_ERR(f);
		} else {
			fsnotify_open(f);
			fd_install(fd, f);
		}
	}
	putname(tmp);
	return fd;
}

noinline long do_sys_open(int dfd, const char *filename, int flags, umode_t mode)
{
	struct open_how how = { .flags = flags & VALID_OPEN_FLAGS, .mode = (flags & O_CREAT) ? mode & S_IALLUGO_OPEN : 0 };

	if ((flags & __O_TMPFILE) == __O_TMPFILE)
		how.mode = mode & S_IALLUGO_OPEN;
	if (how.flags & O_PATH)	/* O_PATH only keeps its own flags (build_open_how) */
		how.flags &= O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC;
	return do_sys_openat2(dfd, filename, &how);
}

SYSCALL_DEFINE3(open, const char *, filename, int, flags, umode_t, mode)
{
	return do_sys_open(AT_FDCWD, filename, flags | O_LARGEFILE, mode);
}

SYSCALL_DEFINE4(openat, int, dfd, const char *, filename, int, flags, umode_t, mode)
{
	return do_sys_open(dfd, filename, flags | O_LARGEFILE, mode);
}

SYSCALL_DEFINE4(openat2, int, dfd, const char *, filename, struct open_how *, how, size_t, usize)
{
	struct open_how tmp = {};

	if (usize < sizeof(tmp))
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	if (copy_from_user(&tmp, how, sizeof(tmp)))
		return -EFAULT;
	if (tmp.flags & ~(u64)VALID_OPEN_FLAGS)
		return -EINVAL;
	if (!(tmp.flags & O_PATH))	/* O_LARGEFILE is only allowed for non-O_PATH */
		tmp.flags |= O_LARGEFILE;
	return do_sys_openat2(dfd, filename, &tmp);
}

SYSCALL_DEFINE2(creat, const char *, pathname, umode_t, mode)
{
	return do_sys_open(AT_FDCWD, pathname, O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE, mode);
}
