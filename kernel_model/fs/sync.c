/* fsync, fdatasync, sync (Linux's fs/sync.c): vfs_fsync_range → the file's ->fsync (tmpfs:
 * noop_fsync, nothing to write back; simplefs: its pages written, the disk flushed); a file
 * without one (a pipe) gives EINVAL.  sync(2): fs/fs-writeback.c's flushers. */
#include "../include/pagemap.h"
#include "../include/syscalls.h"

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

/* sync_file_range(2): a range's writeback waited for, started, or both (no metadata) */
#define SYNC_FILE_RANGE_WAIT_BEFORE	1
#define SYNC_FILE_RANGE_WRITE		2
#define SYNC_FILE_RANGE_WAIT_AFTER	4
#define SYNC_FILE_RANGE_WRITE_AND_WAIT	(SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER)
#define VALID_FLAGS (SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER)

noinline int sync_file_range(struct file *file, loff_t offset, loff_t nbytes, unsigned int flags)
{
	struct address_space *mapping;
	loff_t endbyte;	/* inclusive */
	umode_t i_mode;
	int ret = -EINVAL;

	if (flags & ~VALID_FLAGS)
		goto out;
	endbyte = offset + nbytes;
	if ((s64)offset < 0 || (s64)endbyte < 0 || endbyte < offset)
		goto out;
	if (nbytes == 0)
		endbyte = MAX_LFS_FILESIZE;	/* LLONG_MAX */
	else
		endbyte--;
	i_mode = file->f_inode->i_mode;
	ret = -ESPIPE;
	if (!S_ISREG(i_mode) && !S_ISBLK(i_mode) && !S_ISDIR(i_mode) && !S_ISLNK(i_mode))
		goto out;
	mapping = file->f_mapping;
	ret = 0;
	if (flags & SYNC_FILE_RANGE_WAIT_BEFORE) {
		ret = file_fdatawait_range(file, offset, endbyte);
		if (ret < 0)
			goto out;
	}
	if (flags & SYNC_FILE_RANGE_WRITE) {
		int sync_mode = WB_SYNC_NONE;

		if ((flags & SYNC_FILE_RANGE_WRITE_AND_WAIT) == SYNC_FILE_RANGE_WRITE_AND_WAIT)
			sync_mode = WB_SYNC_ALL;
		ret = __filemap_fdatawrite_range(mapping, offset, endbyte, sync_mode);
		if (ret < 0)
			goto out;
	}
	if (flags & SYNC_FILE_RANGE_WAIT_AFTER)
		ret = file_fdatawait_range(file, offset, endbyte);
out:
	return ret;
}

noinline int ksys_sync_file_range(int fd, loff_t offset, loff_t nbytes, unsigned int flags)
{
	struct fd f = fdget(fd);
	int ret = -EBADF;

	if (f.file) {
		ret = sync_file_range(f.file, offset, nbytes, flags);
		fdput(f);
	}
	return ret;
}

SYSCALL_DEFINE4(sync_file_range, int, fd, loff_t, offset, loff_t, nbytes, unsigned int, flags)
{
	return ksys_sync_file_range(fd, offset, nbytes, flags);
}

/* A file system's dirty inodes written and waited for (syncfs(2)); nothing for a read-only one */
noinline int sync_filesystem(struct super_block *sb)
{
	if (sb->s_flags & SB_RDONLY)
		return 0;
	sync_inodes_sb(sb);
	return 0;
}

SYSCALL_DEFINE1(syncfs, int, fd)
{
	struct fd f = fdget(fd);
	int ret;

	if (!f.file)
		return -EBADF;
	ret = sync_filesystem(f.file->f_path.dentry->d_sb);
	fdput(f);
	return ret;
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
