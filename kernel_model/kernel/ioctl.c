/* ioctl(2) (fs/ioctl.c): the file's own unlocked_ioctl; ENOTTY for a file that has none. */
#include "../include/syscalls.h"

static long vfs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	if (!filp->f_op->unlocked_ioctl)
		return -ENOTTY;
	return filp->f_op->unlocked_ioctl(filp, cmd, arg);
}

SYSCALL_DEFINE3(ioctl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	return vfs_ioctl(f, cmd, arg);
}
