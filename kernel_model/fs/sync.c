/* fsync, fdatasync, sync (Linux's fs/sync.c): vfs_fsync_range → the file's ->fsync (tmpfs:
 * noop_fsync, nothing to write back; simplefs: its pages written, the disk flushed); a file
 * without one (a pipe) gives EINVAL.  sync(2): fs/fs-writeback.c's flushers. */
#include "../include/pagemap.h"

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

static void sync_inodes_one_sb(struct super_block *sb, void *arg)
{
	sync_inodes_sb(sb);
}

/* The flushers start, then each file system's dirty inodes are written and waited for (those
 * in memory only have none). */
noinline void ksys_sync(void)
{
	wakeup_flusher_threads(WB_REASON_SYNC);
	iterate_supers(sync_inodes_one_sb, NULL);
}

SYSCALL_DEFINE0(sync)
{
	ksys_sync();
	return 0;
}
