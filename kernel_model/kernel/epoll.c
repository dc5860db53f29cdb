/* epoll: instances with a ready list; waiters sleep with a timeout.  No file
 * type here reports readiness yet, so waits end by timeout. */
#include "../include/fs.h"

struct eventpoll {
	struct list_head rdllist;
};

static int ep_release(struct inode *inode, struct file *f)
{
	kfree(f->private_data);
	return 0;
}
static const struct file_operations eventpoll_fops = { .release = ep_release };

SYSCALL_DEFINE1(epoll_create1, int, flags)
{
	struct eventpoll *ep;
	struct file *f;
	int fd;

	if (flags & ~02000000)
		return -EINVAL;
	fd = get_unused_fd_flags(flags & O_CLOEXEC);
	if (fd < 0)
		return fd;
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&ep->rdllist);
	f = anon_inode_getfile("[eventpoll]", &eventpoll_fops, ep, O_RDWR | (flags & O_CLOEXEC));
	if (IS_ERR(f)) {
		kfree(ep);
		put_unused_fd(fd);
		return PTR_ERR(f);
	}
	fd_install(fd, f);
	return fd;
}

static noinline int ep_poll(struct eventpoll *ep, void *events, int maxevents, long timeout_ms)
{
	ktime_t expires;

	if (!list_empty(&ep->rdllist))
		return 0;
	if (timeout_ms == 0)
		return 0;
	set_current_state(TASK_INTERRUPTIBLE);
	if (timeout_ms < 0)
		return schedule_hrtimeout_range(NULL, 0, HRTIMER_MODE_ABS);
	expires = ktime_get() + (u64)timeout_ms * 1000000UL;
	schedule_hrtimeout_range(&expires, 0, HRTIMER_MODE_ABS);
	return 0;
}

static noinline int do_epoll_wait(int epfd, void *events, int maxevents, long timeout)
{
	struct file *f;
	int error;

	if (maxevents <= 0 || maxevents > 0x7fffffff / 12)
		return -EINVAL;
	if (!access_ok(events, (size_t)maxevents * 12))
		return -EFAULT;
	f = fget(epfd);
	if (!f)
		return -EBADF;
	error = -EINVAL;
	if (f->f_op == &eventpoll_fops)
		error = ep_poll(f->private_data, events, maxevents, timeout);
	fput(f);
	return error;
}

SYSCALL_DEFINE4(epoll_wait, int, epfd, struct epoll_event *, events, int, maxevents, int, timeout)
{
	return do_epoll_wait(epfd, events, maxevents, timeout);
}
