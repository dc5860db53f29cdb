/*
 * /proc/kmsg (fs/proc/kmsg.c): the kernel's log through syslog(2)'s actions, as klogd reads it:
 * its open needs what SYSLOG_ACTION_OPEN needs (CAP_SYSLOG), then a read takes the records no
 * such read took yet (one position for every reader, syslog_seq), waiting for some unless
 * O_NONBLOCK; poll says whether there are.
 */
#include "../../include/fs.h"
#include "../../include/poll.h"
#include "../../include/syslog.h"
#include "internal.h"

static noinline int kmsg_open(struct inode *inode, struct file *file)
{
	return do_syslog(SYSLOG_ACTION_OPEN, NULL, 0, SYSLOG_FROM_PROC);
}

static noinline int kmsg_release(struct inode *inode, struct file *file)
{
	(void)do_syslog(SYSLOG_ACTION_CLOSE, NULL, 0, SYSLOG_FROM_PROC);
	return 0;
}

static noinline ssize_t kmsg_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	if ((file->f_flags & O_NONBLOCK) && !do_syslog(SYSLOG_ACTION_SIZE_UNREAD, NULL, 0, SYSLOG_FROM_PROC))
		return -EAGAIN;
	return do_syslog(SYSLOG_ACTION_READ, buf, count, SYSLOG_FROM_PROC);
}

static noinline unsigned int kmsg_poll(struct file *file, struct poll_table_struct *wait)
{
	poll_wait(file, &log_wait, wait);
	if (do_syslog(SYSLOG_ACTION_SIZE_UNREAD, NULL, 0, SYSLOG_FROM_PROC))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

const struct file_operations proc_kmsg_operations = {
	.open = kmsg_open,
	.release = kmsg_release,
	.read = kmsg_read,
	.poll = kmsg_poll,
	.llseek = generic_file_llseek,
};
