/*
 * eventfd (Linux 6.1's fs/eventfd.c): a 64-bit counter behind a file.  A write adds to it
 * (waiting while the sum would reach ULLONG_MAX), a read takes it whole and zeroes it (or,
 * EFD_SEMAPHORE, takes 1), waiting while it is 0; poll says readable while it is not 0,
 * writable while one more can be added.  eventfd_signal() is the kernel's own increment.
 */
#include "../include/poll.h"
#include "../include/slab.h"

#define EFD_SEMAPHORE	(1 << 0)
#define EFD_CLOEXEC	O_CLOEXEC
#define EFD_NONBLOCK	O_NONBLOCK
#define EFD_SHARED_FCNTL_FLAGS	(O_CLOEXEC | O_NONBLOCK)
#define EFD_FLAGS_SET	(EFD_SHARED_FCNTL_FLAGS | EFD_SEMAPHORE)
#define ULLONG_MAX	(~0ULL)

struct eventfd_ctx {
	wait_queue_head_t wqh;
	spinlock_t lock;	/* the count (6.1 takes wqh.lock; the model's waits take that one) */
	u64 count;
	unsigned int flags;
	int id;			/* the lowest free at its making (6.1's eventfd_ida), for fdinfo */
};

/* eventfd_ida: the ids in use (6.1's IDA hands out the lowest free one) */
#define EVENTFD_IDS 4096
static unsigned long eventfd_ids[EVENTFD_IDS / 64];
static spinlock_t eventfd_ids_lock;

static notrace int eventfd_id_alloc(void)
{
	unsigned long flags;
	int id;

	spin_lock_irqsave(&eventfd_ids_lock, flags);
	for (id = 0; id < EVENTFD_IDS && (eventfd_ids[id / 64] >> (id % 64) & 1); id++)
		;
	if (id < EVENTFD_IDS)
		eventfd_ids[id / 64] |= 1UL << (id % 64);
	spin_unlock_irqrestore(&eventfd_ids_lock, flags);
	return id < EVENTFD_IDS ? id : -ENOSPC;
}

static notrace void eventfd_id_free(int id)
{
	unsigned long flags;

	spin_lock_irqsave(&eventfd_ids_lock, flags);
	eventfd_ids[id / 64] &= ~(1UL << (id % 64));
	spin_unlock_irqrestore(&eventfd_ids_lock, flags);
}

static const struct file_operations eventfd_fops;

/* Add n to the counter (capped below ULLONG_MAX) and wake the readers: the kernel's side. */
noinline u64 eventfd_signal(struct eventfd_ctx *ctx, u64 n)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);
	if (ULLONG_MAX - ctx->count < n)
		n = ULLONG_MAX - ctx->count;
	ctx->count += n;
	spin_unlock_irqrestore(&ctx->lock, flags);
	if (n)
		wake_up_poll(&ctx->wqh, EPOLLIN);
	return n;
}

static noinline int eventfd_release(struct inode *inode, struct file *file)
{
	struct eventfd_ctx *ctx = file->private_data;

	wake_up_poll(&ctx->wqh, EPOLLHUP);
	eventfd_id_free(ctx->id);	/* (eventfd_free_ctx) */
	kfree(ctx);
	return 0;
}

/* fdinfo: the count and the id */
static noinline void eventfd_show_fdinfo(struct seq_file *m, struct file *f)
{
	struct eventfd_ctx *ctx = f->private_data;
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);
	seq_printf(m, "eventfd-count: %16llx\n", (unsigned long long)ctx->count);
	spin_unlock_irqrestore(&ctx->lock, flags);
	seq_printf(m, "eventfd-id: %d\n", ctx->id);
}

static noinline __poll_t eventfd_poll(struct file *file, poll_table *wait)
{
	struct eventfd_ctx *ctx = file->private_data;
	__poll_t events = 0;
	u64 count;

	poll_wait(file, &ctx->wqh, wait);
	count = READ_ONCE(ctx->count);
	if (count > 0)
		events |= EPOLLIN;
	if (count == ULLONG_MAX)
		events |= EPOLLERR;
	if (ULLONG_MAX - 1 > count)
		events |= EPOLLOUT;
	return events;
}

/* Under ctx->lock: what a read takes now, 0 if nothing. */
noinline u64 eventfd_ctx_do_read(struct eventfd_ctx *ctx)
{
	u64 cnt = ctx->count;

	if (!cnt)
		return 0;
	cnt = (ctx->flags & EFD_SEMAPHORE) ? 1 : cnt;
	ctx->count -= cnt;
	return cnt;
}

static noinline ssize_t eventfd_read(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct eventfd_ctx *ctx = file->private_data;
	unsigned long flags;
	u64 ucnt;

	if (iov_iter_count(to) < sizeof(ucnt))
		return -EINVAL;
	for (;;) {
		spin_lock_irqsave(&ctx->lock, flags);
		ucnt = eventfd_ctx_do_read(ctx);
		spin_unlock_irqrestore(&ctx->lock, flags);
		if (ucnt)
			break;
		if ((file->f_flags & O_NONBLOCK) || (iocb->ki_flags & IOCB_NOWAIT))
			return -EAGAIN;
		if (wait_event_interruptible(ctx->wqh, READ_ONCE(ctx->count) != 0))
			return -ERESTARTSYS;
	}
	wake_up_poll(&ctx->wqh, EPOLLOUT);
	if (copy_to_iter(&ucnt, sizeof(ucnt), to) != sizeof(ucnt))
		return -EFAULT;
	return sizeof(ucnt);
}

static noinline ssize_t eventfd_write(struct file *file, const char *buf, size_t count, loff_t *ppos)
{
	struct eventfd_ctx *ctx = file->private_data;
	unsigned long flags;
	u64 ucnt;

	if (count < sizeof(ucnt))
		return -EINVAL;
	if (copy_from_user(&ucnt, buf, sizeof(ucnt)))
		return -EFAULT;
	if (ucnt == ULLONG_MAX)
		return -EINVAL;
	for (;;) {
		bool room;

		spin_lock_irqsave(&ctx->lock, flags);
		room = ULLONG_MAX - ctx->count > ucnt;
		if (room)
			ctx->count += ucnt;
		spin_unlock_irqrestore(&ctx->lock, flags);
		if (room)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(ctx->wqh, ULLONG_MAX - READ_ONCE(ctx->count) > ucnt))
			return -ERESTARTSYS;
	}
	if (ucnt)
		wake_up_poll(&ctx->wqh, EPOLLIN);
	return sizeof(ucnt);
}

static const struct file_operations eventfd_fops = {
	.show_fdinfo = eventfd_show_fdinfo,
	.release = eventfd_release,
	.poll = eventfd_poll,
	.read_iter = eventfd_read,
	.write = eventfd_write,
	.llseek = noop_llseek,
};

static noinline int do_eventfd(unsigned int count, int flags)
{
	struct eventfd_ctx *ctx;
	struct file *file;
	int fd;

	if (flags & ~EFD_FLAGS_SET)
		return -EINVAL;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	init_waitqueue_head(&ctx->wqh);
	ctx->lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	ctx->count = count;
	ctx->flags = flags;
	ctx->id = eventfd_id_alloc();
	if (ctx->id < 0) {
		fd = ctx->id;
		kfree(ctx);
		return fd;
	}
	flags &= EFD_SHARED_FCNTL_FLAGS;
	flags |= O_RDWR;
	fd = get_unused_fd_flags(flags);
	if (fd < 0)
		goto err;
	file = anon_inode_getfile("[eventfd]", &eventfd_fops, ctx, flags);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		fd = PTR_ERR(file);
		goto err;
	}
	fd_install(fd, file);
	return fd;
err:
	eventfd_id_free(ctx->id);
	kfree(ctx);
	return fd;
}

SYSCALL_DEFINE2(eventfd2, unsigned int, count, int, flags)
{
	return do_eventfd(count, flags);
}

SYSCALL_DEFINE1(eventfd, unsigned int, count)
{
	return do_eventfd(count, 0);
}
