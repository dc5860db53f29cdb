/* The output of a program the host started (`tracefs-sim exec`): its stdout and stderr are a
 * file whose writes go to the host (host_write) with the program's id. */
#include "../include/fs.h"

static ssize_t hostpipe_write(struct file *f, const char *buf, size_t count, loff_t *ppos)
{
	char tmp[256];
	size_t done = 0;

	while (done < count) {
		size_t n = min(count - done, sizeof(tmp));

		if (copy_from_user(tmp, buf + done, n))
			return done ? (ssize_t)done : -EFAULT;
		host_write((u64)f->private_data, tmp, n);
		done += n;
	}
	return done;
}

static const struct file_operations hostpipe_fops = {
	.write = hostpipe_write,
	.llseek = no_llseek,
};

struct file *hostpipe_open(u64 host_id)
{
	struct file *f = anon_inode_getfile("[hostpipe]", &hostpipe_fops, (void *)host_id, O_WRONLY);

	if (!IS_ERR(f))
		stream_open(f->f_inode, f);
	return f;
}
