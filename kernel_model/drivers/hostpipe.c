/* The output of a program the host started (`tracefs-sim exec`): its stdout and stderr are a
 * file whose writes go to the host (host_write) with the program's id. */
#include "../include/fs.h"

/* ->write_iter, so that the kernel's own writes reach it too (kernel_write: kthreadd's message
 * when a program cannot be exec'd), not only a program's write(2)/writev(2). */
static ssize_t hostpipe_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	char tmp[256];
	size_t done = 0;

	while (iov_iter_count(from)) {
		size_t want = min(iov_iter_count(from), sizeof(tmp)), n = copy_from_iter(tmp, want, from);

		if (n)
			host_write((u64)iocb->ki_filp->private_data, tmp, n);
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

struct file *hostpipe_open(u64 host_id)
{
	struct file *f = anon_inode_getfile("[hostpipe]", &hostpipe_fops, (void *)host_id, O_WRONLY);

	if (!IS_ERR(f))
		stream_open(f->f_inode, f);
	return f;
}
