/*
 * utimensat, futimesat, utimes, utime (Linux 6.1's fs/utimes.c): a file's access and
 * modification times set to given values, to now (UTIME_NOW, or no times: a "touch"), or left
 * (UTIME_OMIT); the change time is now.  Setting given times takes the owner (or CAP_FOWNER),
 * touching takes write permission; a read-only mount (hostfs outside a session) is EROFS.
 */
#include "../include/fs.h"
#include "../include/cred.h"

#define UTIME_NOW	((1l << 30) - 1l)
#define UTIME_OMIT	((1l << 30) - 2l)

struct __kernel_old_timeval { long tv_sec, tv_usec; };
struct utimbuf { long actime, modtime; };

static __always_inline bool nsec_valid(long nsec)
{
	if (nsec == UTIME_OMIT || nsec == UTIME_NOW)
		return true;
	return nsec >= 0 && nsec <= 999999999;
}

noinline int vfs_utimes(const struct path *path, struct timespec64 *times)
{
	struct inode *inode = path->dentry->d_inode;
	struct iattr newattrs = { 0 };
	struct timespec64 now;
	int error;

	if (times && (!nsec_valid(times[0].tv_nsec) || !nsec_valid(times[1].tv_nsec)))
		return -EINVAL;
	error = mnt_want_write(path->mnt);
	if (error)
		return error;
	if (times && times[0].tv_nsec == UTIME_NOW && times[1].tv_nsec == UTIME_NOW)
		times = NULL;
	newattrs.ia_valid = ATTR_CTIME | ATTR_MTIME | ATTR_ATIME;
	now = current_time(inode);
	newattrs.ia_atime = newattrs.ia_mtime = newattrs.ia_ctime = now;
	if (times) {
		if (times[0].tv_nsec == UTIME_OMIT) {
			newattrs.ia_valid &= ~ATTR_ATIME;
		} else if (times[0].tv_nsec != UTIME_NOW) {
			newattrs.ia_atime = times[0];
			newattrs.ia_valid |= ATTR_ATIME_SET;
		}
		if (times[1].tv_nsec == UTIME_OMIT) {
			newattrs.ia_valid &= ~ATTR_MTIME;
		} else if (times[1].tv_nsec != UTIME_NOW) {
			newattrs.ia_mtime = times[1];
			newattrs.ia_valid |= ATTR_MTIME_SET;
		}
		newattrs.ia_valid |= ATTR_TIMES_SET;
	} else {
		newattrs.ia_valid |= ATTR_TOUCH;
	}
	/* (who may: notify_change's ATTR_TOUCH check, setattr_prepare's for given times) */
	mutex_lock(&inode->i_rwsem);
	error = notify_change(NULL, path->dentry, &newattrs, NULL);
	mutex_unlock(&inode->i_rwsem);
	mnt_drop_write(path->mnt);
	return error;
}

static __always_inline int do_utimes_path(int dfd, const char *filename, struct timespec64 *times, int flags)
{
	struct path path;
	unsigned int lookup_flags = 0;
	int error;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (!(flags & AT_SYMLINK_NOFOLLOW))
		lookup_flags |= LOOKUP_FOLLOW;
	if (flags & AT_EMPTY_PATH)
		lookup_flags |= LOOKUP_EMPTY;
	error = user_path_at_empty(dfd, filename, lookup_flags, &path, NULL);
	if (error)
		return error;
	error = vfs_utimes(&path, times);
	path_put(&path);
	return error;
}

static __always_inline int do_utimes_fd(int fd, struct timespec64 *times, int flags)
{
	struct file *f;
	int error;

	if (flags)
		return -EINVAL;
	f = fget(fd);
	if (!f)
		return -EBADF;
	error = vfs_utimes(&f->f_path, times);
	fput(f);
	return error;
}

/* A NULL filename with a dfd other than AT_FDCWD: the fd's own file (futimens). */
noinline long do_utimes(int dfd, const char *filename, struct timespec64 *times, int flags)
{
	if (filename == NULL && dfd != AT_FDCWD)
		return do_utimes_fd(dfd, times, flags);
	return do_utimes_path(dfd, filename, times, flags);
}

SYSCALL_DEFINE4(utimensat, int, dfd, const char *, filename, struct __kernel_timespec *, utimes, int, flags)
{
	struct timespec64 tstimes[2];

	if (utimes) {
		if (get_timespec64(&tstimes[0], &utimes[0]) || get_timespec64(&tstimes[1], &utimes[1]))
			return -EFAULT;
		/* nothing to do: not even the path is looked at */
		if (tstimes[0].tv_nsec == UTIME_OMIT && tstimes[1].tv_nsec == UTIME_OMIT)
			return 0;
	}
	return do_utimes(dfd, filename, utimes ? tstimes : NULL, flags);
}

/* futimesat and utimes: microseconds, checked here (6.1's do_futimesat) */
static noinline long do_futimesat(int dfd, const char *filename, struct __kernel_old_timeval *utimes)
{
	struct __kernel_old_timeval times[2];
	struct timespec64 tstimes[2];

	if (utimes) {
		if (copy_from_user(&times, utimes, sizeof(times)))
			return -EFAULT;
		if (times[0].tv_usec >= 1000000 || times[0].tv_usec < 0 ||
		    times[1].tv_usec >= 1000000 || times[1].tv_usec < 0)
			return -EINVAL;
		tstimes[0] = (struct timespec64){ times[0].tv_sec, 1000 * times[0].tv_usec };
		tstimes[1] = (struct timespec64){ times[1].tv_sec, 1000 * times[1].tv_usec };
	}
	return do_utimes(dfd, filename, utimes ? tstimes : NULL, 0);
}

SYSCALL_DEFINE3(futimesat, int, dfd, const char *, filename, struct __kernel_old_timeval *, utimes)
{
	return do_futimesat(dfd, filename, utimes);
}

SYSCALL_DEFINE2(utimes, char *, filename, struct __kernel_old_timeval *, utimes)
{
	return do_futimesat(AT_FDCWD, filename, utimes);
}

SYSCALL_DEFINE2(utime, char *, filename, struct utimbuf *, times)
{
	struct timespec64 tv[2];

	if (times) {
		struct utimbuf t;

		if (copy_from_user(&t, times, sizeof(t)))
			return -EFAULT;
		tv[0] = (struct timespec64){ t.actime, 0 };
		tv[1] = (struct timespec64){ t.modtime, 0 };
	}
	return do_utimes(AT_FDCWD, filename, times ? tv : NULL, 0);
}
