/* fcntl (Linux's fs/fcntl.c): F_DUPFD(_CLOEXEC), F_GETFD/F_SETFD, F_GETFL/F_SETFL, the record
 * locks (F_GETLK, F_SETLK(W) and their OFD forms: fs/locks.c) and the pipe's
 * F_GETPIPE_SZ/F_SETPIPE_SZ. */
#include "../include/filelock.h"
#include "../include/security.h"
#include "../include/cred.h"

#define F_DUPFD		0
#define F_GETFD		1
#define F_SETFD		2
#define F_GETFL		3
#define F_SETFL		4
#define F_DUPFD_CLOEXEC	1030
#define F_SETPIPE_SZ	1031
#define F_GETPIPE_SZ	1032
#define FD_CLOEXEC	1
#define SETFL_MASK (O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME)

static notrace int setfl(int fd, struct file *filp, unsigned int arg)
{
	struct inode *inode = filp->f_inode;

	if ((arg & O_NOATIME) && !(filp->f_flags & O_NOATIME) && !inode_owner_or_capable(NULL, inode))
		return -EPERM;
	spin_lock(&filp->f_lock);
	filp->f_flags = (arg & SETFL_MASK) | (filp->f_flags & ~SETFL_MASK);
	spin_unlock(&filp->f_lock);
	return 0;
}

noinline long do_fcntl(int fd, unsigned int cmd, unsigned long arg, struct file *filp)
{
	long err = -EINVAL;

	switch (cmd) {
	case F_DUPFD:
		err = f_dupfd(arg, filp, 0);
		break;
	case F_DUPFD_CLOEXEC:
		err = f_dupfd(arg, filp, O_CLOEXEC);
		break;
	case F_GETFD:
		err = get_close_on_exec(fd) ? FD_CLOEXEC : 0;
		break;
	case F_SETFD:
		err = 0;
		set_close_on_exec(fd, arg & FD_CLOEXEC);
		break;
	case F_GETFL:
		err = filp->f_flags;
		break;
	case F_SETFL:
		err = setfl(fd, filp, arg);
		break;
	case F_OFD_GETLK:
	case F_GETLK: {
		struct flock flock;

		if (copy_from_user(&flock, (void *)arg, sizeof(flock)))
			return -EFAULT;
		err = fcntl_getlk(filp, cmd, &flock);
		if (!err && copy_to_user((void *)arg, &flock, sizeof(flock)))
			return -EFAULT;
		break;
	}
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
	case F_SETLK:
	case F_SETLKW: {
		struct flock flock;

		if (copy_from_user(&flock, (void *)arg, sizeof(flock)))
			return -EFAULT;
		err = fcntl_setlk(fd, filp, cmd, &flock);
		break;
	}
	case F_SETPIPE_SZ:
	case F_GETPIPE_SZ:
		err = filp->f_op && filp->f_op->fcntl ? filp->f_op->fcntl(filp, cmd, arg) : -EBADF;
		break;
	default:
		break;
	}
	return err;
}

static notrace int check_fcntl_cmd(unsigned cmd)
{
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
	case F_GETFD:
	case F_SETFD:
	case F_GETFL:
		return 1;
	}
	return 0;
}

SYSCALL_DEFINE3(fcntl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct fd f = fdget_raw(fd);
	long err = -EBADF;

	if (!f.file)
		goto out;
	if (f.file->f_mode & FMODE_PATH) {
		if (!check_fcntl_cmd(cmd))
			goto out1;
	}
	err = security_file_fcntl(f.file, cmd, arg);
	if (!err)
		err = do_fcntl(fd, cmd, arg, f.file);
out1:
	fdput(f);
out:
	return err;
}
