/*
 * posix_fadvise(2) (mm/fadvise.c): fadvise64 → ksys_fadvise64_64 → vfs_fadvise →
 * generic_fadvise.  Readahead is not modelled (a page is read when it is asked for), so the
 * advice that would size it (NORMAL, SEQUENTIAL) or start or drop it (WILLNEED, DONTNEED) has
 * nothing to change, as 6.1's advice to a file without a backing device (tmpfs, hostfs) has
 * not; RANDOM and NORMAL/SEQUENTIAL keep the file's FMODE_RANDOM as 6.1 does.
 */
#include "../include/syscalls.h"
#include "../include/fs.h"

#define POSIX_FADV_NORMAL	0
#define POSIX_FADV_RANDOM	1
#define POSIX_FADV_SEQUENTIAL	2
#define POSIX_FADV_WILLNEED	3
#define POSIX_FADV_DONTNEED	4
#define POSIX_FADV_NOREUSE	5
#define ESPIPE			29

noinline int generic_fadvise(struct file *file, loff_t offset, loff_t len, int advice)
{
	unsigned long flags;

	if (!file->f_mapping || len < 0)
		return -EINVAL;
	switch (advice) {
	case POSIX_FADV_NORMAL:
	case POSIX_FADV_SEQUENTIAL:
		spin_lock_irqsave(&file->f_lock, flags);
		file->f_mode &= ~FMODE_RANDOM;
		spin_unlock_irqrestore(&file->f_lock, flags);
		break;
	case POSIX_FADV_RANDOM:
		spin_lock_irqsave(&file->f_lock, flags);
		file->f_mode |= FMODE_RANDOM;
		spin_unlock_irqrestore(&file->f_lock, flags);
		break;
	case POSIX_FADV_WILLNEED:
	case POSIX_FADV_NOREUSE:
	case POSIX_FADV_DONTNEED:
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

noinline int vfs_fadvise(struct file *file, loff_t offset, loff_t len, int advice)
{
	return generic_fadvise(file, offset, len, advice);
}

noinline int ksys_fadvise64_64(int fd, loff_t offset, loff_t len, int advice)
{
	struct file *file = fget(fd);
	int ret;

	if (!file)
		return -EBADF;
	ret = S_ISFIFO(file->f_inode->i_mode) ? -ESPIPE : vfs_fadvise(file, offset, len, advice);
	fput(file);
	return ret;
}

SYSCALL_DEFINE4(fadvise64, int, fd, loff_t, offset, size_t, len, int, advice)
{
	return ksys_fadvise64_64(fd, offset, len, advice);
}
