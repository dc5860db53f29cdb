/*
 * readahead(2) (Linux 6.1's mm/readahead.c): WILLNEED advice on a regular file open for
 * reading (vfs_fadvise).  The model reads a page when it is asked for (no readahead windows,
 * no page_cache_ra_unbounded): the advice has nothing to start, as 6.1's has not on a file
 * without a backing device.
 */
#include "../include/syscalls.h"
#include "../include/fs.h"

#define POSIX_FADV_WILLNEED	3

noinline ssize_t ksys_readahead(int fd, loff_t offset, size_t count)
{
	struct fd f = fdget(fd);
	ssize_t ret = -EBADF;

	if (!f.file || !(f.file->f_mode & FMODE_READ))
		goto out;
	/* only where readahead can be: EINVAL elsewhere (6.1 asks for ->a_ops too, which every
	 * inode has there: empty_aops at least) */
	ret = -EINVAL;
	if (!f.file->f_mapping || !S_ISREG(f.file->f_inode->i_mode))
		goto out;
	ret = vfs_fadvise(f.file, offset, count, POSIX_FADV_WILLNEED);
out:
	fdput(f);
	return ret;
}

SYSCALL_DEFINE3(readahead, int, fd, loff_t, offset, size_t, count)
{
	return ksys_readahead(fd, offset, count);
}
