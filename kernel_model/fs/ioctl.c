/* ioctl (Linux's fs/ioctl.c): do_vfs_ioctl takes the generic requests (FIOCLEX, FIONCLEX,
 * FIONBIO, FIOASYNC, FIONREAD on a regular file, FIGETBSZ), vfs_ioctl hands the rest to the
 * file's ->unlocked_ioctl (ENOTTY without one: no terminal here answers TCGETS). */
#include "../include/fs.h"
#include "../include/security.h"

#define FIBMAP		1
#define FIGETBSZ	2
#define FIONREAD	0x541B
#define FIONBIO		0x5421
#define FIONCLEX	0x5450
#define FIOCLEX		0x5451
#define FIOASYNC	0x5452
#define ENOIOCTLCMD	515

noinline long vfs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	int error = -ENOTTY;

	if (!filp->f_op->unlocked_ioctl)
		goto out;
	error = filp->f_op->unlocked_ioctl(filp, cmd, arg);
	if (error == -ENOIOCTLCMD)
		error = -ENOTTY;
out:
	return error;
}

static notrace int ioctl_fionbio(struct file *filp, int *argp)
{
	int on;

	if (copy_from_user(&on, argp, sizeof(on)))
		return -EFAULT;
	spin_lock(&filp->f_lock);
	if (on)
		filp->f_flags |= O_NONBLOCK;
	else
		filp->f_flags &= ~O_NONBLOCK;
	spin_unlock(&filp->f_lock);
	return 0;
}

/* FIOASYNC: O_ASYNC on or off by the file's ->fasync (which sets FASYNC); ENOTTY without one */
static notrace int ioctl_fioasync(unsigned int fd, struct file *filp, int *argp)
{
	unsigned int flag;
	int on, error = 0;

	if (copy_from_user(&on, argp, sizeof(on)))
		return -EFAULT;
	flag = on ? FASYNC : 0;
	if ((flag ^ filp->f_flags) & FASYNC) {	/* a change */
		if (filp->f_op->fasync)
			error = filp->f_op->fasync(fd, filp, on);
		else
			error = -ENOTTY;
	}
	return error < 0 ? error : 0;
}

noinline int do_vfs_ioctl(struct file *filp, unsigned int fd, unsigned int cmd, unsigned long arg)
{
	void *argp = (void *)arg;
	struct inode *inode = filp->f_inode;

	switch (cmd) {
	case FIOCLEX:
		set_close_on_exec(fd, 1);
		return 0;
	case FIONCLEX:
		set_close_on_exec(fd, 0);
		return 0;
	case FIONBIO:
		return ioctl_fionbio(filp, argp);
	case FIOASYNC:
		return ioctl_fioasync(fd, filp, argp);
	case FIGETBSZ: {
		int bsz = inode->i_sb->s_blocksize;

		if (!S_ISREG(inode->i_mode) && !S_ISDIR(inode->i_mode))
			return -ENOTTY;
		return copy_to_user(argp, &bsz, sizeof(bsz)) ? -EFAULT : 0;
	}
	case FIONREAD:
		if (!S_ISREG(inode->i_mode))
			return vfs_ioctl(filp, cmd, arg);
		{
			int n = inode->i_size - filp->f_pos;

			return copy_to_user(argp, &n, sizeof(n)) ? -EFAULT : 0;
		}
	}
	return -ENOIOCTLCMD;
}

SYSCALL_DEFINE3(ioctl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct fd f = fdget(fd);
	int error;

	if (!f.file)
		return -EBADF;
	error = security_file_ioctl(f.file, cmd, arg);
	if (error)
		goto out;
	error = do_vfs_ioctl(f.file, fd, cmd, arg);
	if (error == -ENOIOCTLCMD)
		error = vfs_ioctl(f.file, cmd, arg);
out:
	fdput(f);
	return error;
}
