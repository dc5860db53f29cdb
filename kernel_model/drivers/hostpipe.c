/* The output of a program the host started (`tracefs-sim exec`): its stdout and its stderr are
 * each a file whose writes go to the host (host_write) with the program's id and which of the
 * caller's two it is. */
#include "../include/fs.h"

/* private_data: the program's host id, shifted, and the fd (1 or 2) in the low bits */
#define HOSTPIPE_ID(f)	((u64)(f)->private_data >> 2)
#define HOSTPIPE_FD(f)	((int)((u64)(f)->private_data & 3))

/* ->write_iter, so that the kernel's own writes reach it too (kernel_write: kthreadd's message
 * when a program cannot be exec'd), not only a program's write(2)/writev(2). */
static ssize_t hostpipe_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	char tmp[256];
	size_t done = 0;

	while (iov_iter_count(from)) {
		size_t want = min(iov_iter_count(from), sizeof(tmp)), n = copy_from_iter(tmp, want, from);

		if (n)
			host_write(HOSTPIPE_ID(iocb->ki_filp), HOSTPIPE_FD(iocb->ki_filp), tmp, n);
		done += n;
		if (n < want)
			return done ? (ssize_t)done : -EFAULT;
	}
	return done;
}

static const struct file_operations hostpipe_fops = {
	.write_iter = hostpipe_write_iter,
	.llseek = no_llseek,
};

struct file *hostpipe_open(u64 host_id, int fd)
{
	struct file *f = anon_inode_getfile("[hostpipe]", &hostpipe_fops, (void *)(host_id << 2 | (fd & 3)),
					    O_WRONLY);

	if (!IS_ERR(f))
		stream_open(f->f_inode, f);
	return f;
}
