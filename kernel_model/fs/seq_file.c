/* Generated files (Linux's fs/seq_file.c, single_open): the show function writes the whole
 * text into a buffer (grown until it fits) at the first read; reads copy from it. */
#include "../include/fs.h"

static notrace void seq_set_overflow(struct seq_file *m)
{
	m->count = m->size;
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	__builtin_va_list ap;
	int len;

	if (m->count < m->size) {
		__builtin_va_start(ap, fmt);
		len = vscnprintf(m->buf + m->count, m->size - m->count, fmt, ap);
		__builtin_va_end(ap);
		if (m->count + len < m->size - 1) {
			m->count += len;
			return;
		}
	}
	seq_set_overflow(m);
}

void seq_write(struct seq_file *m, const void *data, size_t len)
{
	if (m->count + len < m->size) {
		memcpy(m->buf + m->count, data, len);
		m->count += len;
		return;
	}
	seq_set_overflow(m);
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_write(m, s, strlen(s));
}

void seq_putc(struct seq_file *m, char c)
{
	seq_write(m, &c, 1);
}

/* A number after a delimiter, at least width wide (space-padded): 6.1's fast path of /proc */
noinline void seq_put_decimal_ull_width(struct seq_file *m, const char *delimiter, unsigned long long num,
					unsigned int width)
{
	char digits[24];
	int len = 0;

	if (delimiter && delimiter[0]) {
		if (delimiter[1] == 0)
			seq_putc(m, delimiter[0]);
		else
			seq_puts(m, delimiter);
	}
	do {
		digits[len++] = '0' + num % 10;
		num /= 10;
	} while (num);
	while (width-- > (unsigned int)len)
		seq_putc(m, ' ');
	while (len)
		seq_putc(m, digits[--len]);
}

noinline void seq_put_decimal_ull(struct seq_file *m, const char *delimiter, unsigned long long num)
{
	seq_put_decimal_ull_width(m, delimiter, num, 0);
}

/* Fill the buffer: the show function again with twice the room while it overflows. */
static notrace int seq_fill(struct seq_file *m)
{
	size_t size = PAGE_SIZE;

	for (;;) {
		int err;

		m->buf = kmalloc(size, GFP_KERNEL);
		if (!m->buf)
			return -ENOMEM;
		m->size = size;
		m->count = 0;
		err = m->show(m, m->private);
		if (err < 0)
			return err;
		if (m->count < m->size)
			return 0;
		kfree(m->buf);
		m->buf = NULL;
		if (size >= 64 * PAGE_SIZE)
			return -ENOMEM;
		size *= 2;
	}
}

noinline ssize_t seq_read(struct file *file, char *buf, size_t size, loff_t *ppos)
{
	struct seq_file *m = file->private_data;

	if (!m->buf) {
		int err = seq_fill(m);

		if (err)
			return err;
	}
	return simple_read_from_buffer(buf, size, ppos, m->buf, m->count);
}

noinline int single_open(struct file *file, int (*show)(struct seq_file *, void *), void *data)
{
	struct seq_file *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return -ENOMEM;
	m->show = show;
	m->private = data;
	file->private_data = m;
	file->f_mode &= ~FMODE_PWRITE;
	return 0;
}

noinline int single_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	kfree(m->buf);
	kfree(m);
	return 0;
}

noinline loff_t seq_lseek(struct file *file, loff_t offset, int whence)
{
	struct seq_file *m = file->private_data;

	if (whence == SEEK_CUR)
		offset += file->f_pos;
	else if (whence == SEEK_END)
		offset += m->buf ? m->count : 0;
	else if (whence != SEEK_SET)
		return -EINVAL;
	if (offset < 0)
		return -EINVAL;
	file->f_pos = offset;
	return offset;
}
