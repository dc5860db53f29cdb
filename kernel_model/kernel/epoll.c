/*
 * epoll (Linux 6.1's fs/eventpoll.c): an eventpoll is a set of epitems, one per (file, fd)
 * added by epoll_ctl.  Adding one polls its file with a poll_table whose queueing procedure
 * (ep_ptable_queue_proc) puts an eppoll_entry on each wait queue the file's ->poll names; a
 * wake-up there runs ep_poll_callback, which puts the item on the ready list (rdllist) and wakes
 * the epoll_wait sleepers.  epoll_wait (ep_poll) sleeps until the list has items, then
 * ep_send_events polls each again (ep_item_poll) and copies the events that hold to the caller;
 * a level-triggered item goes back on the list, an edge-triggered one waits for its next wake-up,
 * a one-shot one is disabled.  A file's last close takes it out of every set
 * (eventpoll_release_file); an epoll file is pollable itself (ep_eventpoll_poll).
 *
 * The model keeps a set's items on a list (6.1: an rbtree) and takes one mutex (epmutex) for
 * the links between sets and files.  A session task's epoll_wait replays the host's: its wait
 * ends when the host's did.
 */
#include "../include/poll.h"
#include "../include/signal.h"
#include "../include/session.h"
#include "../include/slab.h"
#include "../include/timer.h"
#include "../include/mutex.h"

#define EPOLL_CTL_ADD	1
#define EPOLL_CTL_DEL	2
#define EPOLL_CTL_MOD	3
#define EPOLLEXCLUSIVE	(1U << 28)
#define EPOLLWAKEUP	(1U << 29)
#define EPOLLONESHOT	(1U << 30)
#define EPOLLET		(1U << 31)
#define EP_PRIVATE_BITS	(EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
#define EPOLLINOUT_BITS	(EPOLLIN | EPOLLOUT)
#define EPOLLEXCLUSIVE_OK_BITS	(EPOLLINOUT_BITS | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE)
#define EP_MAX_NESTS	4
#define EP_MAX_EVENTS	(0x7fffffff / sizeof(struct epoll_event))
#define NSEC_PER_MSEC	1000000L

struct epoll_event {
	u32 events;
	u64 data;
} __attribute__((packed));

struct eventpoll {
	struct mutex mtx;		/* its items' changes and ep_send_events */
	wait_queue_head_t wq;		/* epoll_wait's sleepers */
	wait_queue_head_t poll_wait;	/* pollers of the epoll file itself */
	spinlock_t lock;		/* rdllist and each item's rdllink */
	struct list_head rdllist;	/* the items a wake-up made ready */
	struct list_head items;		/* all of them */
	struct file *file;
};

struct epitem;
/* an item's place on one of its file's wait queues */
struct eppoll_entry {
	struct eppoll_entry *next;
	struct epitem *base;
	struct wait_queue_entry wait;
	wait_queue_head_t *whead;
};

struct epitem {
	struct list_head rdllink;	/* on rdllist, or empty */
	struct list_head node;		/* on ep->items */
	struct epitem *next_in_file;	/* the file's other items (file->f_ep) */
	struct file *file;		/* not referenced: the file's last close removes the item */
	int fd;
	struct eventpoll *ep;
	struct eppoll_entry *pwqlist;
	struct epoll_event event;
};

/* the links between files and sets (6.1's epmutex) */
static DEFINE_MUTEX(epmutex);
static const struct file_operations eventpoll_fops;

static __always_inline bool is_file_epoll(struct file *f)
{
	return f->f_op == &eventpoll_fops;
}

static __always_inline bool ep_is_linked(struct epitem *epi)
{
	return !list_empty(&epi->rdllink);
}

static __always_inline bool ep_events_available(struct eventpoll *ep)
{
	return !list_empty(&READ_ONCE(ep)->rdllist);
}

/* ---- readiness ---- */

/* 6.1's kallsyms names of these two are GCC's IPA-SRA clones (the model is built without):
 * the symbols take those names */
static __poll_t ep_item_poll(const struct epitem *epi, poll_table *pt, int depth)
	__asm__("ep_item_poll.isra.0");
static __poll_t __ep_eventpoll_poll(struct file *file, poll_table *wait, int depth)
	__asm__("__ep_eventpoll_poll.isra.0");

/* An epoll file's own readiness: an item on its ready list whose file still says so. */
static noinline __poll_t __ep_eventpoll_poll(struct file *file, poll_table *wait, int depth)
{
	struct eventpoll *ep = file->private_data;
	struct epitem *epi;
	poll_table pt;
	__poll_t res = 0;

	init_poll_funcptr(&pt, NULL);
	poll_wait(file, &ep->poll_wait, wait);
	if (depth > EP_MAX_NESTS)
		return 0;
	mutex_lock(&ep->mtx);
	list_for_each_entry(epi, &ep->rdllist, rdllink) {
		if (ep_item_poll(epi, &pt, depth + 1)) {
			res = EPOLLIN | EPOLLRDNORM;
			break;
		}
	}
	mutex_unlock(&ep->mtx);
	return res;
}

static noinline __poll_t ep_eventpoll_poll(struct file *file, poll_table *wait)
{
	return __ep_eventpoll_poll(file, wait, 0);
}

/* What the item's file is ready for, of what the item waits for; queued on its wait queues
 * if pt has a queueing procedure. */
static noinline __poll_t ep_item_poll(const struct epitem *epi, poll_table *pt, int depth)
{
	struct file *file = epi->file;
	__poll_t res;

	pt->_key = epi->event.events;
	if (!is_file_epoll(file))
		res = vfs_poll(file, pt);
	else
		res = __ep_eventpoll_poll(file, pt, depth);
	return res & epi->event.events;
}

/* The wake function of an item's entries: the item goes on the ready list (unless the wake-up
 * is for events it does not wait for, or one-shot disabled it), its sleepers are woken. */
static noinline int ep_poll_callback(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	struct epitem *epi = container_of(wait, struct eppoll_entry, wait)->base;
	struct eventpoll *ep = epi->ep;
	__poll_t pollflags = key_to_poll(key);
	unsigned long flags;
	int ewake = 0;

	spin_lock_irqsave(&ep->lock, flags);
	if (!(epi->event.events & ~EP_PRIVATE_BITS))
		goto out_unlock;
	if (pollflags && !(pollflags & epi->event.events))
		goto out_unlock;
	if (!ep_is_linked(epi))
		list_add_tail(&epi->rdllink, &ep->rdllist);
	ewake = 1;
out_unlock:
	spin_unlock_irqrestore(&ep->lock, flags);
	if (pollflags & POLLFREE) {
		/* the queue is about to be freed (signalfd_cleanup): off it, and it is not ours
		 * to remove from any more */
		struct eppoll_entry *pwq = container_of(wait, struct eppoll_entry, wait);

		list_del_init(&wait->entry);
		__atomic_store_n(&pwq->whead, NULL, __ATOMIC_RELEASE);
	}
	if (ewake) {
		if (waitqueue_active(&ep->wq))
			wake_up(&ep->wq);
		if (waitqueue_active(&ep->poll_wait))
			wake_up_poll(&ep->poll_wait, EPOLLIN);
	}
	if (!(epi->event.events & EPOLLEXCLUSIVE))
		ewake = 1;
	return ewake;
}

struct ep_pqueue {
	poll_table pt;
	struct epitem *epi;
};

/* The poll_table's queueing procedure while an item is added: an entry on the queue. */
static noinline void ep_ptable_queue_proc(struct file *file, wait_queue_head_t *whead, poll_table *pt)
{
	struct ep_pqueue *epq = container_of(pt, struct ep_pqueue, pt);
	struct epitem *epi = epq->epi;
	struct eppoll_entry *pwq;

	if (unlikely(!epi))	/* an earlier allocation failed */
		return;
	pwq = kzalloc(sizeof(*pwq), GFP_KERNEL);
	if (unlikely(!pwq)) {
		epq->epi = NULL;
		return;
	}
	pwq->wait.func = ep_poll_callback;
	INIT_LIST_HEAD(&pwq->wait.entry);
	pwq->whead = whead;
	pwq->base = epi;
	add_wait_queue(whead, &pwq->wait);
	if (epi->event.events & EPOLLEXCLUSIVE)
		pwq->wait.flags |= WQ_FLAG_EXCLUSIVE;
	pwq->next = epi->pwqlist;
	epi->pwqlist = pwq;
}

/* ---- the set's items (under epmutex and ep->mtx) ---- */

static __always_inline struct epitem *ep_find(struct eventpoll *ep, struct file *file, int fd)
{
	struct epitem *epi;

	list_for_each_entry(epi, &ep->items, node)
		if (epi->file == file && epi->fd == fd)
			return epi;
	return NULL;
}

static __always_inline void ep_unregister_pollwait(struct epitem *epi)
{
	while (epi->pwqlist) {
		struct eppoll_entry *pwq = epi->pwqlist;
		wait_queue_head_t *whead = __atomic_load_n(&pwq->whead, __ATOMIC_ACQUIRE);

		epi->pwqlist = pwq->next;
		if (whead)	/* (NULL: POLLFREE took it off a queue that went) */
			remove_wait_queue(whead, &pwq->wait);
		kfree(pwq);
	}
}

static noinline int ep_remove(struct eventpoll *ep, struct epitem *epi)
{
	struct epitem **link;
	unsigned long flags;

	ep_unregister_pollwait(epi);
	for (link = (struct epitem **)&epi->file->f_ep; *link; link = &(*link)->next_in_file)
		if (*link == epi) {
			*link = epi->next_in_file;
			break;
		}
	list_del_init(&epi->node);
	spin_lock_irqsave(&ep->lock, flags);
	if (ep_is_linked(epi))
		list_del_init(&epi->rdllink);
	spin_unlock_irqrestore(&ep->lock, flags);
	kfree(epi);
	return 0;
}

/* Ready now: on the ready list, its sleepers woken. */
static __always_inline void ep_make_ready(struct eventpoll *ep, struct epitem *epi)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (!ep_is_linked(epi))
		list_add_tail(&epi->rdllink, &ep->rdllist);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (waitqueue_active(&ep->wq))
		wake_up(&ep->wq);
	if (waitqueue_active(&ep->poll_wait))
		wake_up_poll(&ep->poll_wait, EPOLLIN);
}

static __always_inline int ep_insert(struct eventpoll *ep, const struct epoll_event *event, struct file *tfile, int fd)
{
	struct ep_pqueue epq;
	struct epitem *epi = kzalloc(sizeof(*epi), GFP_KERNEL);
	__poll_t revents;

	if (!epi)
		return -ENOMEM;
	INIT_LIST_HEAD(&epi->rdllink);
	epi->ep = ep;
	epi->file = tfile;
	epi->fd = fd;
	epi->event = *event;
	epi->next_in_file = tfile->f_ep;
	tfile->f_ep = epi;
	list_add_tail(&epi->node, &ep->items);
	epq.epi = epi;
	init_poll_funcptr(&epq.pt, ep_ptable_queue_proc);
	revents = ep_item_poll(epi, &epq.pt, 1);
	if (unlikely(!epq.epi)) {	/* an entry could not be allocated */
		ep_remove(ep, epi);
		return -ENOMEM;
	}
	if (revents)
		ep_make_ready(ep, epi);
	return 0;
}

static __always_inline int ep_modify(struct eventpoll *ep, struct epitem *epi, const struct epoll_event *event)
{
	poll_table pt;

	init_poll_funcptr(&pt, NULL);
	epi->event.events = event->events;
	epi->event.data = event->data;
	if (ep_item_poll(epi, &pt, 1))
		ep_make_ready(ep, epi);
	return 0;
}

/* A file's last close: out of every set that has it. */
noinline void eventpoll_release_file(struct file *file)
{
	mutex_lock(&epmutex);
	while (file->f_ep) {
		struct epitem *epi = file->f_ep;
		struct eventpoll *ep = epi->ep;

		mutex_lock(&ep->mtx);
		ep_remove(ep, epi);
		mutex_unlock(&ep->mtx);
	}
	mutex_unlock(&epmutex);
}

static noinline int ep_eventpoll_release(struct inode *inode, struct file *file)
{
	struct eventpoll *ep = file->private_data;

	mutex_lock(&epmutex);
	mutex_lock(&ep->mtx);
	while (!list_empty(&ep->items))
		ep_remove(ep, list_first_entry(&ep->items, struct epitem, node));
	mutex_unlock(&ep->mtx);
	mutex_unlock(&epmutex);
	kfree(ep);
	return 0;
}

/* fdinfo: each item, by file then fd (6.1's red-black tree's order: ep_cmp_ffd) */
static noinline void ep_show_fdinfo(struct seq_file *m, struct file *f)
{
	struct eventpoll *ep = f->private_data;
	struct epitem *epi, *next, *prev = NULL;

	mutex_lock(&ep->mtx);
	for (;;) {
		next = NULL;
		list_for_each_entry(epi, &ep->items, node) {
			/* the least after prev */
			if (prev && (epi->file < prev->file || (epi->file == prev->file && epi->fd <= prev->fd)))
				continue;
			if (!next || epi->file < next->file || (epi->file == next->file && epi->fd < next->fd))
				next = epi;
		}
		if (!next)
			break;
		seq_printf(m, "tfd: %8d events: %8x data: %16llx  pos:%lld ino:%lx sdev:%x\n", next->fd,
			   next->event.events, (long long)next->event.data, (long long)next->file->f_pos,
			   next->file->f_inode->i_ino, next->file->f_inode->i_sb->s_dev);
		prev = next;
	}
	mutex_unlock(&ep->mtx);
}

static const struct file_operations eventpoll_fops = {
	.show_fdinfo = ep_show_fdinfo,
	.release = ep_eventpoll_release,
	.poll = ep_eventpoll_poll,
	.llseek = noop_llseek,
};

/* ---- epoll_create ---- */

static noinline int do_epoll_create(int flags)
{
	struct eventpoll *ep;
	struct file *f;
	int fd;

	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return -ENOMEM;
	mutex_init(&ep->mtx);
	init_waitqueue_head(&ep->wq);
	init_waitqueue_head(&ep->poll_wait);
	ep->lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	INIT_LIST_HEAD(&ep->rdllist);
	INIT_LIST_HEAD(&ep->items);
	fd = get_unused_fd_flags(O_RDWR | (flags & O_CLOEXEC));
	if (fd < 0) {
		kfree(ep);
		return fd;
	}
	f = anon_inode_getfile("[eventpoll]", &eventpoll_fops, ep, O_RDWR | (flags & O_CLOEXEC));
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		kfree(ep);
		return PTR_ERR(f);
	}
	ep->file = f;
	fd_install(fd, f);
	return fd;
}

SYSCALL_DEFINE1(epoll_create1, int, flags)
{
	return do_epoll_create(flags);
}

SYSCALL_DEFINE1(epoll_create, int, size)
{
	if (size <= 0)
		return -EINVAL;
	return do_epoll_create(0);
}

/* ---- epoll_ctl ---- */

/* Under epmutex: whether `ep` is reachable from the epoll file `file` through the sets it
 * holds, or they nest deeper than EP_MAX_NESTS (6.1's ep_loop_check: ELOOP either way). */
static noinline bool ep_loop_check_proc(struct eventpoll *ep, struct file *file, int depth)
{
	struct eventpoll *inner = file->private_data;
	struct epitem *epi;

	if (inner == ep || depth > EP_MAX_NESTS)
		return true;
	list_for_each_entry(epi, &inner->items, node)
		if (is_file_epoll(epi->file) && ep_loop_check_proc(ep, epi->file, depth + 1))
			return true;
	return false;
}

static __always_inline bool ep_op_has_event(int op)
{
	return op != EPOLL_CTL_DEL;
}

noinline int do_epoll_ctl(int epfd, int op, int fd, struct epoll_event *epds, bool nonblock)
{
	struct file *f, *tf;
	struct eventpoll *ep;
	struct epitem *epi;
	int error;

	error = -EBADF;
	f = fget(epfd);
	if (!f)
		goto error_return;
	tf = fget(fd);
	if (!tf)
		goto error_fput;
	/* the target file must support poll */
	error = -EPERM;
	if (!file_can_poll(tf))
		goto error_tgt_fput;
	epds->events &= ~EPOLLWAKEUP;	/* no CAP_BLOCK_SUSPEND here: dropped, as 6.1 does */
	error = -EINVAL;
	if (f == tf || !is_file_epoll(f))
		goto error_tgt_fput;
	if (ep_op_has_event(op) && (epds->events & EPOLLEXCLUSIVE)) {
		if (op == EPOLL_CTL_MOD)
			goto error_tgt_fput;
		if (op == EPOLL_CTL_ADD && (is_file_epoll(tf) || (epds->events & ~EPOLLEXCLUSIVE_OK_BITS)))
			goto error_tgt_fput;
	}
	ep = f->private_data;
	mutex_lock(&epmutex);
	mutex_lock(&ep->mtx);
	epi = ep_find(ep, tf, fd);
	error = -EINVAL;
	switch (op) {
	case EPOLL_CTL_ADD:
		if (!epi) {
			epds->events |= EPOLLERR | EPOLLHUP;
			error = is_file_epoll(tf) && ep_loop_check_proc(ep, tf, 1) ? -ELOOP : ep_insert(ep, epds, tf, fd);
		} else {
			error = -EEXIST;
		}
		break;
	case EPOLL_CTL_DEL:
		error = epi ? ep_remove(ep, epi) : -ENOENT;
		break;
	case EPOLL_CTL_MOD:
		if (epi) {
			if (!(epi->event.events & EPOLLEXCLUSIVE)) {
				epds->events |= EPOLLERR | EPOLLHUP;
				error = ep_modify(ep, epi, epds);
			}
		} else {
			error = -ENOENT;
		}
		break;
	}
	mutex_unlock(&ep->mtx);
	mutex_unlock(&epmutex);
error_tgt_fput:
	fput(tf);
error_fput:
	fput(f);
error_return:
	return error;
}

SYSCALL_DEFINE4(epoll_ctl, int, epfd, int, op, int, fd, struct epoll_event *, event)
{
	struct epoll_event epds;

	if (ep_op_has_event(op) && copy_from_user(&epds, event, sizeof(struct epoll_event)))
		return -EFAULT;
	return do_epoll_ctl(epfd, op, fd, &epds, false);
}

/* ---- epoll_wait ---- */

/* The ready items' events to the caller, at most maxevents; level-triggered ones stay ready. */
static __always_inline int ep_send_events(struct eventpoll *ep, struct epoll_event *events, int maxevents)
{
	struct epitem *epi, *tmp;
	LIST_HEAD(txlist);
	unsigned long flags;
	poll_table pt;
	int res = 0;

	init_poll_funcptr(&pt, NULL);
	mutex_lock(&ep->mtx);
	spin_lock_irqsave(&ep->lock, flags);	/* ep_start_scan(): the ready list taken whole */
	list_for_each_entry_safe(epi, tmp, &ep->rdllist, rdllink) {
		list_del_init(&epi->rdllink);
		list_add_tail(&epi->rdllink, &txlist);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(epi, tmp, &txlist, rdllink) {
		struct epoll_event ev;
		__poll_t revents;

		if (res >= maxevents)
			break;
		list_del_init(&epi->rdllink);
		revents = ep_item_poll(epi, &pt, 1);
		if (!revents)
			continue;
		ev.events = revents;
		ev.data = epi->event.data;
		if (copy_to_user(&events[res], &ev, sizeof(ev))) {
			list_add(&epi->rdllink, &txlist);
			if (!res)
				res = -EFAULT;
			break;
		}
		res++;
		if (epi->event.events & EPOLLONESHOT) {
			epi->event.events &= EP_PRIVATE_BITS;
		} else if (!(epi->event.events & EPOLLET)) {
			spin_lock_irqsave(&ep->lock, flags);
			list_add_tail(&epi->rdllink, &ep->rdllist);
			spin_unlock_irqrestore(&ep->lock, flags);
		}
	}
	spin_lock_irqsave(&ep->lock, flags);	/* ep_done_scan(): what was not taken stays ready */
	list_for_each_entry_safe(epi, tmp, &txlist, rdllink) {
		list_del_init(&epi->rdllink);
		list_add_tail(&epi->rdllink, &ep->rdllist);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	mutex_unlock(&ep->mtx);
	return res;
}

/* Wait for events until the deadline (NULL: none; 0: no wait), a signal (-EINTR) or, for a
 * session task, the host's call's end. */
static __always_inline int ep_poll(struct eventpoll *ep, struct epoll_event *events, int maxevents, ktime_t *to)
{
	int res, timed_out = 0;
	u64 slack = 0;

	if (to && !*to)
		timed_out = 1;
	else if (to)
		slack = select_estimate_accuracy(to);
	for (;;) {
		struct wait_queue_entry wait = { .private = current };

		if (ep_events_available(ep)) {
			res = ep_send_events(ep, events, maxevents);
			if (res)
				return res;
		}
		if (timed_out)
			return 0;
		if (signal_pending(current))
			return -EINTR;
		if (session_host_moved_on(current))
			return 0;
		INIT_LIST_HEAD(&wait.entry);
		set_current_state(TASK_INTERRUPTIBLE);
		add_wait_queue(&ep->wq, &wait);
		if (!ep_events_available(ep))
			timed_out = !schedule_hrtimeout_range(to, slack, HRTIMER_MODE_ABS);
		set_current_state(TASK_RUNNING);
		remove_wait_queue(&ep->wq, &wait);
	}
}

static noinline int do_epoll_wait(int epfd, struct epoll_event *events, int maxevents, ktime_t *to)
{
	struct file *f;
	int error;

	if (maxevents <= 0 || maxevents > (int)EP_MAX_EVENTS)
		return -EINVAL;
	if (!access_ok(events, (size_t)maxevents * sizeof(struct epoll_event)))
		return -EFAULT;
	f = fget(epfd);
	if (!f)
		return -EBADF;
	error = -EINVAL;
	if (is_file_epoll(f))
		error = ep_poll(f->private_data, events, maxevents, to);
	fput(f);
	return error;
}

/* epoll_wait's milliseconds as a deadline: none when negative, 0 for no wait */
static __always_inline ktime_t *ep_timeout_to_deadline(ktime_t *to, long ms)
{
	if (ms < 0)
		return NULL;
	*to = ms ? ktime_get() + (u64)ms * NSEC_PER_MSEC : 0;
	return to;
}

SYSCALL_DEFINE4(epoll_wait, int, epfd, struct epoll_event *, events, int, maxevents, int, timeout)
{
	ktime_t to;

	return do_epoll_wait(epfd, events, maxevents, ep_timeout_to_deadline(&to, timeout));
}

/* epoll_pwait and epoll_pwait2: with the caller's signal mask for the wait */
static __always_inline int do_epoll_pwait(int epfd, struct epoll_event *events, int maxevents, ktime_t *to,
					  const sigset_t *sigmask, size_t sigsetsize)
{
	int error = set_user_sigmask(sigmask, sigsetsize);

	if (error)
		return error;
	error = do_epoll_wait(epfd, events, maxevents, to);
	restore_saved_sigmask_unless(error == -EINTR);
	return error;
}

SYSCALL_DEFINE6(epoll_pwait, int, epfd, struct epoll_event *, events, int, maxevents, int, timeout,
		const sigset_t *, sigmask, size_t, sigsetsize)
{
	ktime_t to;

	return do_epoll_pwait(epfd, events, maxevents, ep_timeout_to_deadline(&to, timeout), sigmask, sigsetsize);
}

SYSCALL_DEFINE6(epoll_pwait2, int, epfd, struct epoll_event *, events, int, maxevents,
		const struct __kernel_timespec *, timeout, const sigset_t *, sigmask, size_t, sigsetsize)
{
	struct timespec64 ts;
	ktime_t to, *top = NULL;

	if (timeout) {
		if (get_timespec64(&ts, timeout))
			return -EFAULT;
		top = &to;
		if (poll_select_set_timeout(&to, ts.tv_sec, ts.tv_nsec))
			return -EINVAL;
	}
	return do_epoll_pwait(epfd, events, maxevents, top, sigmask, sigsetsize);
}

/* ---- kcmp(2)'s KCMP_EPOLL_TFD: the file of the toff-th item on fd tfd of the set, counted
 * in the order the items were added (6.1's in its tree's, by file address) ---- */
static struct epitem *ep_find_tfd(struct eventpoll *ep, int tfd, unsigned long toff)
{
	struct epitem *epi;

	list_for_each_entry(epi, &ep->items, node) {
		if (epi->fd == tfd) {
			if (toff == 0)
				return epi;
			toff--;
		}
	}
	return NULL;
}

/* EINVAL: not an epoll file; ENOENT: no such item.  Not referenced: kcmp compares the address. */
noinline struct file *get_epoll_tfile_raw_ptr(struct file *file, int tfd, unsigned long toff)
{
	struct file *file_raw;
	struct eventpoll *ep;
	struct epitem *epi;

	if (!is_file_epoll(file))
		return ERR_PTR(-EINVAL);
	ep = file->private_data;
	mutex_lock(&ep->mtx);
	epi = ep_find_tfd(ep, tfd, toff);
	file_raw = epi ? epi->file : ERR_PTR(-ENOENT);
	mutex_unlock(&ep->mtx);
	return file_raw;
}
