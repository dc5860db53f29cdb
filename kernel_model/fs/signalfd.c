/*
 * signalfd (Linux 6.1's fs/signalfd.c): the caller's pending signals of a set, read as
 * signalfd_siginfo records instead of run by their handlers (they are blocked, or they would
 * be delivered first).  A read dequeues as sigtimedwait does, waiting while none is pending;
 * the sending side wakes the readers (signalfd_notify in kernel/signal.c) on the handlers'
 * wait queue, sighand->signalfd_wqh.  What a read sees is always the reader's own signals,
 * whoever made the fd.
 */
#include "../include/poll.h"
#include "../include/slab.h"
#include "../include/syscalls.h"
#include "../include/signal.h"

#define SFD_CLOEXEC	O_CLOEXEC
#define SFD_NONBLOCK	O_NONBLOCK

struct signalfd_siginfo {
	u32 ssi_signo;
	s32 ssi_errno;
	s32 ssi_code;
	u32 ssi_pid;
	u32 ssi_uid;
	s32 ssi_fd;
	u32 ssi_tid;
	u32 ssi_band;
	u32 ssi_overrun;
	u32 ssi_trapno;
	s32 ssi_status;
	s32 ssi_int;
	u64 ssi_ptr;
	u64 ssi_utime;
	u64 ssi_stime;
	u64 ssi_addr;
	u16 ssi_addr_lsb;
	u16 __pad2;
	s32 ssi_syscall;
	u64 ssi_call_addr;
	u32 ssi_arch;
	u8 __pad[28];
};
_Static_assert(sizeof(struct signalfd_siginfo) == 128, "signalfd_siginfo as 6.1's uapi");

struct signalfd_ctx {
	u64 sigmask;	/* the signals it does NOT take (inverted at creation, as 6.1's) */
};

/* The handlers go (__cleanup_sighand): whoever polls their queue is told, and let go */
noinline void signalfd_cleanup(struct sighand_struct *sighand)
{
	wake_up_poll(&sighand->signalfd_wqh, EPOLLHUP | POLLFREE);
}

static noinline int signalfd_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static noinline __poll_t signalfd_poll(struct file *file, poll_table *wait)
{
	struct signalfd_ctx *ctx = file->private_data;
	__poll_t events = 0;

	poll_wait(file, &current->sighand->signalfd_wqh, wait);
	spin_lock_irq(&siglock);
	if (current->pending & ~ctx->sigmask)	/* next_signal() (one pending set a task here) */
		events |= EPOLLIN;
	spin_unlock_irq(&siglock);
	return events;
}

/* The record of a dequeued signal: the siginfo's members its layout has (siginfo_layout()) */
static noinline int signalfd_copyinfo(struct signalfd_siginfo *uinfo, int sig, const struct sigqueue_info *kinfo)
{
	struct signalfd_siginfo new;

	memset(&new, 0, sizeof(new));	/* unused members are zero */
	new.ssi_signo = sig;
	new.ssi_errno = kinfo->errno;
	new.ssi_code = kinfo->code;
	if (kinfo->code == SI_TIMER) {					/* SIL_TIMER */
		new.ssi_tid = kinfo->tid;
		new.ssi_overrun = kinfo->overrun;
		new.ssi_ptr = kinfo->value;
		new.ssi_int = (int)kinfo->value;
	} else if (kinfo->code >= 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE)) {
		new.ssi_addr = kinfo->addr;				/* SIL_FAULT */
	} else if (kinfo->poll) {					/* SIL_POLL */
		new.ssi_band = kinfo->addr;
		new.ssi_fd = kinfo->fd;
	} else {		/* SIL_KILL, SIL_RT (a queued one: its value too), SIL_CHLD */
		new.ssi_pid = kinfo->pid;
		new.ssi_uid = kinfo->uid;
		new.ssi_ptr = kinfo->value;
		new.ssi_int = (int)kinfo->value;
	}
	if (copy_to_user(uinfo, &new, sizeof(new)))
		return -EFAULT;
	return sizeof(*uinfo);
}

/* The next signal of the set, its siginfo in info; 0 not any with nonblock, -EAGAIN, or
 * -ERESTARTSYS when another signal (or, for a session task, the host's call ending) stops
 * the wait */
static __always_inline ssize_t signalfd_dequeue(struct signalfd_ctx *ctx, struct sigqueue_info *info, int nonblock)
{
	struct wait_queue_entry wait;
	ssize_t ret;

	spin_lock_irq(&siglock);
	ret = dequeue_signal(current, &ctx->sigmask, info);
	spin_unlock_irq(&siglock);
	if (ret || nonblock)
		return ret ? ret : -EAGAIN;
	init_wait_entry(&wait, 0);
	for (;;) {
		long interrupted = prepare_to_wait_event(&current->sighand->signalfd_wqh, &wait, TASK_INTERRUPTIBLE);

		spin_lock_irq(&siglock);
		ret = dequeue_signal(current, &ctx->sigmask, info);
		spin_unlock_irq(&siglock);
		if (ret)
			break;
		if (interrupted) {
			ret = -ERESTARTSYS;
			break;
		}
		schedule();
	}
	finish_wait(&current->sighand->signalfd_wqh, &wait);
	return ret;
}

static noinline ssize_t signalfd_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	struct signalfd_ctx *ctx = file->private_data;
	struct signalfd_siginfo *siginfo = (struct signalfd_siginfo *)buf;
	int nonblock = file->f_flags & O_NONBLOCK;
	struct sigqueue_info info;
	ssize_t ret, total = 0;

	count /= sizeof(struct signalfd_siginfo);
	if (!count)
		return -EINVAL;
	do {
		ret = signalfd_dequeue(ctx, &info, nonblock);
		if (ret <= 0)
			break;
		ret = signalfd_copyinfo(siginfo, ret, &info);
		if (ret < 0)
			break;
		siginfo++;
		total += ret;
		nonblock = 1;	/* only the first waits */
	} while (--count);
	return total ? total : ret;
}

static noinline void signalfd_show_fdinfo(struct seq_file *m, struct file *f)
{
	struct signalfd_ctx *ctx = f->private_data;
	u64 sigmask = ~ctx->sigmask;

	render_sigset_t(m, "sigmask:\t", &sigmask);
}

static const struct file_operations signalfd_fops = {
	.show_fdinfo = signalfd_show_fdinfo,
	.release = signalfd_release,
	.poll = signalfd_poll,
	.read = signalfd_read,
	.llseek = noop_llseek,
};

/* A new signalfd (ufd -1) or a new set for the signalfd ufd */
static noinline int do_signalfd4(int ufd, u64 *mask, int flags)
{
	struct signalfd_ctx *ctx;

	if (flags & ~(SFD_CLOEXEC | SFD_NONBLOCK))
		return -EINVAL;
	*mask &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
	*mask = ~*mask;
	if (ufd == -1) {
		ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
		if (!ctx)
			return -ENOMEM;
		ctx->sigmask = *mask;
		ufd = anon_inode_getfd("[signalfd]", &signalfd_fops, ctx, O_RDWR | (flags & (O_CLOEXEC | O_NONBLOCK)));
		if (ufd < 0)
			kfree(ctx);
	} else {
		struct fd f = fdget(ufd);

		if (!f.file)
			return -EBADF;
		ctx = f.file->private_data;
		if (f.file->f_op != &signalfd_fops) {
			fdput(f);
			return -EINVAL;
		}
		spin_lock_irq(&siglock);
		ctx->sigmask = *mask;
		spin_unlock_irq(&siglock);
		wake_up(&current->sighand->signalfd_wqh);
		fdput(f);
	}
	return ufd;
}

SYSCALL_DEFINE4(signalfd4, int, ufd, sigset_t *, user_mask, size_t, sizemask, int, flags)
{
	u64 mask;

	if (sizemask != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, user_mask, sizeof(mask)))
		return -EFAULT;
	return do_signalfd4(ufd, &mask, flags);
}

SYSCALL_DEFINE3(signalfd, int, ufd, sigset_t *, user_mask, size_t, sizemask)
{
	u64 mask;

	if (sizemask != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, user_mask, sizeof(mask)))
		return -EFAULT;
	return do_signalfd4(ufd, &mask, 0);
}
