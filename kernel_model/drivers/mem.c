/* The memory devices (Linux's drivers/char/mem.c, drivers/char/random.c's files, the tty's
 * open): /dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom, /dev/kmsg (printk.c's),
 * /dev/tty (no task has a controlling terminal here: ENXIO, as Linux without one). */
#include "../include/fs.h"

noinline ssize_t read_null(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	return 0;
}

noinline ssize_t write_null(struct file *file, const char *buf, size_t count, loff_t *ppos)
{
	return count;
}

noinline ssize_t read_iter_null(struct kiocb *iocb, struct iov_iter *to)
{
	return 0;
}

noinline ssize_t write_iter_null(struct kiocb *iocb, struct iov_iter *from)
{
	size_t count = iov_iter_count(from);

	iov_iter_advance(from, count);
	return count;
}

noinline ssize_t read_iter_zero(struct kiocb *iocb, struct iov_iter *iter)
{
	return iov_iter_zero(iov_iter_count(iter), iter);
}

noinline ssize_t read_zero(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	static const char zeros[256];
	size_t cleared = 0;

	while (count) {
		size_t chunk = min(count, sizeof(zeros));
		size_t left = copy_to_user(buf + cleared, zeros, chunk);

		if (left) {
			cleared += chunk - left;
			if (!cleared)
				return -EFAULT;
			break;
		}
		cleared += chunk;
		count -= chunk;
		if (need_resched())
			schedule();
	}
	return cleared;
}

noinline ssize_t write_full(struct file *file, const char *buf, size_t count, loff_t *ppos)
{
	return -ENOSPC;
}

static loff_t null_lseek(struct file *file, loff_t offset, int orig)
{
	return file->f_pos = 0;
}

static const struct file_operations null_fops = {
	.llseek = null_lseek,
	.read = read_null,
	.write = write_null,
	.read_iter = read_iter_null,
	.write_iter = write_iter_null,
};

static const struct file_operations zero_fops = {
	.llseek = null_lseek,	/* zero_lseek */
	.write = write_null,	/* write_zero */
	.read_iter = read_iter_zero,
	.read = read_zero,
	.write_iter = write_iter_null,
};

static const struct file_operations full_fops = {
	.llseek = null_lseek,	/* full_lseek */
	.read_iter = read_iter_zero,
	.write = write_full,
};

/* random.c: the bytes of the kernel's generator (get_random_u64) */
noinline ssize_t get_random_bytes_user(struct iov_iter *iter)
{
	size_t ret = 0;

	while (iov_iter_count(iter)) {
		u64 block[4];
		size_t copied;
		int i;

		for (i = 0; i < 4; i++)
			block[i] = get_random_u64();
		copied = copy_to_iter(block, min(iov_iter_count(iter), sizeof(block)), iter);
		ret += copied;
		if (!copied)
			return ret ? ret : -EFAULT;
		if (need_resched())
			schedule();
	}
	return ret;
}

noinline ssize_t urandom_read_iter(struct kiocb *kiocb, struct iov_iter *iter)
{
	return get_random_bytes_user(iter);
}

noinline ssize_t random_read_iter(struct kiocb *kiocb, struct iov_iter *iter)
{
	return get_random_bytes_user(iter);
}

/* Written bytes are mixed into the pool in Linux; here they are taken and dropped. */
noinline ssize_t random_write_iter(struct kiocb *kiocb, struct iov_iter *iter)
{
	return write_iter_null(kiocb, iter);
}

static const struct file_operations random_fops = {
	.read_iter = random_read_iter,
	.write_iter = random_write_iter,
	.llseek = noop_llseek,
};

static const struct file_operations urandom_fops = {
	.read_iter = urandom_read_iter,
	.write_iter = random_write_iter,
	.llseek = noop_llseek,
};

noinline int tty_open(struct inode *inode, struct file *filp)
{
	return -ENXIO;	/* tty_open_current_tty: no controlling terminal */
}

static const struct file_operations tty_fops = {
	.open = tty_open,
};

void __init chr_dev_init(void)
{
	register_chrdev_region_fops(1, 3, &null_fops);
	register_chrdev_region_fops(1, 5, &zero_fops);
	register_chrdev_region_fops(1, 7, &full_fops);
	register_chrdev_region_fops(1, 8, &random_fops);
	register_chrdev_region_fops(1, 9, &urandom_fops);
	register_chrdev_region_fops(1, 11, &kmsg_fops);
	register_chrdev_region_fops(5, 0, &tty_fops);
}
