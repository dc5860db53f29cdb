/* fsync, fdatasync, sync (Linux's fs/sync.c): vfs_fsync_range → the file's ->fsync (tmpfs:
 * noop_fsync, nothing to write back); a file without one (a pipe) gives EINVAL. */
#include "../include/fs.h"

noinline int vfs_fsync_range(struct file *file, loff_t start, loff_t end, int datasync)
{
	if (!file->f_op->fsync)
		return -EINVAL;
	return file->f_op->fsync(file, start, end, datasync);
}

noinline int vfs_fsync(struct file *file, int datasync)
{
	return vfs_fsync_range(file, 0, MAX_LFS_FILESIZE, datasync);
}

static notrace int do_fsync(unsigned int fd, int datasync)
{
	struct file *f = fget(fd);
	int ret = -EBADF;

	if (f) {
		ret = vfs_fsync(f, datasync);
		fput(f);
	}
	return ret;
}

SYSCALL_DEFINE1(fsync, unsigned int, fd)
{
	return do_fsync(fd, 0);
}

SYSCALL_DEFINE1(fdatasync, unsigned int, fd)
{
	return do_fsync(fd, 1);
}

/* Every file system here lives in memory: nothing to write back. */
noinline void ksys_sync(void)
{
}

SYSCALL_DEFINE0(sync)
{
	ksys_sync();
	return 0;
}
