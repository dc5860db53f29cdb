/*
 * timerfd (Linux 6.1's fs/timerfd.c): an hrtimer behind a file.  Its expiry (timerfd_tmrproc,
 * in the timer interrupt) counts a tick and wakes the readers; a read takes the ticks (waiting
 * while there are none), and re-arms a periodic timer there rather than in the callback, with
 * the intervals it missed added to the count; poll says readable while there are ticks.
 *
 * The model's hrtimers run on the monotonic clock (one clock base, kernel/time.c): an absolute
 * time of CLOCK_REALTIME or CLOCK_BOOTTIME is moved onto it by that clock's offset.  The wall
 * clock is never set here (no clock_settime/settimeofday), so TFD_TIMER_CANCEL_ON_SET is
 * accepted and shown in fdinfo but never cancels (6.1's cancel_list and
 * timerfd_clock_was_set have nothing to do).  The alarm clocks (CLOCK_REALTIME_ALARM,
 * CLOCK_BOOTTIME_ALARM: kernel/time/alarmtimer.c and an RTC) are not modelled: EINVAL, as for
 * a clock the kernel does not know.
 */
#include "../include/poll.h"
#include "../include/slab.h"
#include "../include/syscalls.h"
#include "../include/cred.h"

#define CLOCK_REALTIME_ALARM	8
#define CLOCK_BOOTTIME_ALARM	9
#define CAP_WAKE_ALARM		35

#define TFD_TIMER_ABSTIME	(1 << 0)
#define TFD_TIMER_CANCEL_ON_SET	(1 << 1)
#define TFD_CLOEXEC		O_CLOEXEC
#define TFD_NONBLOCK		O_NONBLOCK
#define TFD_SHARED_FCNTL_FLAGS	(TFD_CLOEXEC | TFD_NONBLOCK)
#define TFD_CREATE_FLAGS	TFD_SHARED_FCNTL_FLAGS
#define TFD_SETTIME_FLAGS	(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)
#define TFD_IOC_SET_TICKS	0x40085400	/* _IOW('T', 0, u64) */

struct timerfd_ctx {
	struct hrtimer tmr;
	ktime_t tintv;			/* the interval, 0: one-shot */
	wait_queue_head_t wqh;
	spinlock_t lock;		/* ticks and expired (6.1 takes wqh.lock; the model's waits take that one) */
	u64 ticks;
	int clockid;
	unsigned short expired;		/* fired and not re-armed yet */
	unsigned short settime_flags;	/* to show in fdinfo */
};

static const struct file_operations timerfd_fops;

/* The expiry: one more tick; the re-arming of a periodic timer waits for the reader. */
static noinline enum hrtimer_restart timerfd_tmrproc(struct hrtimer *htmr)
{
	struct timerfd_ctx *ctx = container_of(htmr, struct timerfd_ctx, tmr);
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);	/* (timerfd_triggered, inlined) */
	ctx->expired = 1;
	ctx->ticks++;
	spin_unlock_irqrestore(&ctx->lock, flags);
	wake_up_poll(&ctx->wqh, EPOLLIN);
	return HRTIMER_NORESTART;
}

static __always_inline ktime_t timerfd_get_remaining(struct timerfd_ctx *ctx)
{
	ktime_t remaining = __hrtimer_get_remaining(&ctx->tmr, true);	/* hrtimer_expires_remaining_adjusted */

	return remaining < 0 ? 0 : remaining;
}

/* hrtimer_forward_now() then hrtimer_restart(): the intervals past, counting this one */
static __always_inline u64 timerfd_rearm(struct timerfd_ctx *ctx)
{
	u64 orun = hrtimer_forward(&ctx->tmr, ktime_get(), ctx->tintv);

	hrtimer_start(&ctx->tmr, hrtimer_get_expires(&ctx->tmr), HRTIMER_MODE_ABS);
	return orun;
}

/* Under ctx->lock, the timer stopped: arm it for ktmr (a zero it_value leaves it disarmed). */
static __always_inline int timerfd_setup(struct timerfd_ctx *ctx, int flags, const struct itimerspec64 *ktmr)
{
	enum hrtimer_mode htmode = (flags & TFD_TIMER_ABSTIME) ? HRTIMER_MODE_ABS : HRTIMER_MODE_REL;
	ktime_t texp = timespec64_to_ns(&ktmr->it_value);

	ctx->expired = 0;
	ctx->ticks = 0;
	ctx->tintv = timespec64_to_ns(&ktmr->it_interval);
	hrtimer_init(&ctx->tmr, ctx->clockid, htmode);
	hrtimer_set_expires_range_ns(&ctx->tmr, texp, 0);
	ctx->tmr.function = timerfd_tmrproc;
	if (texp != 0) {
		if (flags & TFD_TIMER_ABSTIME) {
			texp -= clock_to_monotonic_offset(ctx->clockid);
			if (texp < 0)
				texp = 0;	/* already past: fires now */
		}
		hrtimer_start(&ctx->tmr, texp, htmode);
	}
	ctx->settime_flags = flags & TFD_SETTIME_FLAGS;
	return 0;
}

static noinline int timerfd_release(struct inode *inode, struct file *file)
{
	struct timerfd_ctx *ctx = file->private_data;

	hrtimer_cancel(&ctx->tmr);
	while (hrtimer_callback_running(&ctx->tmr))	/* (kfree_rcu: not under a running callback) */
		cpu_relax();
	kfree(ctx);
	return 0;
}

static noinline __poll_t timerfd_poll(struct file *file, poll_table *wait)
{
	struct timerfd_ctx *ctx = file->private_data;

	poll_wait(file, &ctx->wqh, wait);
	return READ_ONCE(ctx->ticks) ? EPOLLIN : 0;
}

static noinline ssize_t timerfd_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	struct timerfd_ctx *ctx = file->private_data;
	unsigned long flags;
	ssize_t res = 0;
	u64 ticks = 0;

	if (count < sizeof(ticks))
		return -EINVAL;
	if (file->f_flags & O_NONBLOCK)
		res = -EAGAIN;
	else
		res = wait_event_interruptible(ctx->wqh, READ_ONCE(ctx->ticks));
	spin_lock_irqsave(&ctx->lock, flags);
	if (ctx->ticks) {
		ticks = ctx->ticks;
		/* a periodic timer is re-armed here, not in its callback (a very short period
		 * would flood the cpu with expiries nobody reads) */
		if (ctx->expired && ctx->tintv)
			ticks += timerfd_rearm(ctx) - 1;
		ctx->expired = 0;
		ctx->ticks = 0;
	}
	spin_unlock_irqrestore(&ctx->lock, flags);
	if (ticks)
		res = copy_to_user(buf, &ticks, sizeof(ticks)) ? -EFAULT : sizeof(ticks);
	return res;
}

static noinline void timerfd_show(struct seq_file *m, struct file *file)
{
	struct timerfd_ctx *ctx = file->private_data;
	struct timespec64 value, interval;
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);
	value = ns_to_timespec64(timerfd_get_remaining(ctx));
	interval = ns_to_timespec64(ctx->tintv);
	spin_unlock_irqrestore(&ctx->lock, flags);
	seq_printf(m, "clockid: %d\nticks: %llu\nsettime flags: 0%o\nit_value: (%llu, %llu)\nit_interval: (%llu, %llu)\n",
		   ctx->clockid, (unsigned long long)ctx->ticks, ctx->settime_flags,
		   (unsigned long long)value.tv_sec, (unsigned long long)value.tv_nsec,
		   (unsigned long long)interval.tv_sec, (unsigned long long)interval.tv_nsec);
}

/* CONFIG_CHECKPOINT_RESTORE: TFD_IOC_SET_TICKS, CRIU's restoring of the count */
static noinline long timerfd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct timerfd_ctx *ctx = file->private_data;
	unsigned long flags;
	u64 ticks;

	if (cmd != TFD_IOC_SET_TICKS)
		return -ENOTTY;
	if (copy_from_user(&ticks, (u64 *)arg, sizeof(ticks)))
		return -EFAULT;
	if (!ticks)
		return -EINVAL;
	spin_lock_irqsave(&ctx->lock, flags);
	ctx->ticks = ticks;
	spin_unlock_irqrestore(&ctx->lock, flags);
	wake_up_poll(&ctx->wqh, EPOLLIN);
	return 0;
}

static const struct file_operations timerfd_fops = {
	.release = timerfd_release,
	.poll = timerfd_poll,
	.read = timerfd_read,
	.llseek = noop_llseek,
	.show_fdinfo = timerfd_show,
	.unlocked_ioctl = timerfd_ioctl,
};

/* The timerfd behind ufd (a reference the caller drops), or -EBADF / -EINVAL */
static __always_inline int timerfd_fget(int fd, struct fd *p)
{
	struct fd f = fdget(fd);

	if (!f.file)
		return -EBADF;
	if (f.file->f_op != &timerfd_fops) {
		fdput(f);
		return -EINVAL;
	}
	*p = f;
	return 0;
}

SYSCALL_DEFINE2(timerfd_create, int, clockid, int, flags)
{
	struct timerfd_ctx *ctx;
	int ufd;

	if ((flags & ~TFD_CREATE_FLAGS) ||
	    (clockid != CLOCK_MONOTONIC && clockid != CLOCK_REALTIME && clockid != CLOCK_BOOTTIME))
		return -EINVAL;	/* (the alarm clocks too: see above) */
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	init_waitqueue_head(&ctx->wqh);
	ctx->lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	ctx->clockid = clockid;
	hrtimer_init(&ctx->tmr, clockid, HRTIMER_MODE_ABS);
	ufd = anon_inode_getfd("[timerfd]", &timerfd_fops, ctx, O_RDWR | (flags & TFD_SHARED_FCNTL_FLAGS));
	if (ufd < 0)
		kfree(ctx);
	return ufd;
}

static noinline int do_timerfd_settime(int ufd, int flags, const struct itimerspec64 *new, struct itimerspec64 *old)
{
	struct timerfd_ctx *ctx;
	unsigned long irqflags;
	struct fd f;
	int ret;

	if ((flags & ~TFD_SETTIME_FLAGS) || !itimerspec64_valid(new))
		return -EINVAL;
	ret = timerfd_fget(ufd, &f);
	if (ret)
		return ret;
	ctx = f.file->private_data;
	/* stop the timer before reprogramming it (waiting for a callback running elsewhere) */
	for (;;) {
		spin_lock_irqsave(&ctx->lock, irqflags);
		if (hrtimer_try_to_cancel(&ctx->tmr) >= 0)
			break;
		spin_unlock_irqrestore(&ctx->lock, irqflags);
		hrtimer_cancel_wait_running(&ctx->tmr);
	}
	/* an expired periodic timer is moved on: the caller may want its next expiry (the ticks
	 * are not counted: the timer is set anew just below) */
	if (ctx->expired && ctx->tintv)
		hrtimer_forward(&ctx->tmr, ktime_get(), ctx->tintv);
	old->it_value = ns_to_timespec64(timerfd_get_remaining(ctx));
	old->it_interval = ns_to_timespec64(ctx->tintv);
	ret = timerfd_setup(ctx, flags, new);
	spin_unlock_irqrestore(&ctx->lock, irqflags);
	fdput(f);
	return ret;
}

static noinline int do_timerfd_gettime(int ufd, struct itimerspec64 *t)
{
	struct timerfd_ctx *ctx;
	unsigned long flags;
	struct fd f;
	int ret = timerfd_fget(ufd, &f);

	if (ret)
		return ret;
	ctx = f.file->private_data;
	spin_lock_irqsave(&ctx->lock, flags);
	if (ctx->expired && ctx->tintv) {	/* re-armed here as in a read, the ticks kept */
		ctx->expired = 0;
		ctx->ticks += timerfd_rearm(ctx) - 1;
	}
	t->it_value = ns_to_timespec64(timerfd_get_remaining(ctx));
	t->it_interval = ns_to_timespec64(ctx->tintv);
	spin_unlock_irqrestore(&ctx->lock, flags);
	fdput(f);
	return 0;
}

SYSCALL_DEFINE4(timerfd_settime, int, ufd, int, flags, const struct __kernel_itimerspec *, utmr,
		struct __kernel_itimerspec *, otmr)
{
	struct itimerspec64 new, old;
	int ret;

	if (get_itimerspec64(&new, utmr))
		return -EFAULT;
	ret = do_timerfd_settime(ufd, flags, &new, &old);
	if (ret)
		return ret;
	if (otmr && put_itimerspec64(&old, otmr))
		return -EFAULT;
	return ret;
}

SYSCALL_DEFINE2(timerfd_gettime, int, ufd, struct __kernel_itimerspec *, otmr)
{
	struct itimerspec64 kotmr;
	int ret = do_timerfd_gettime(ufd, &kotmr);

	if (ret)
		return ret;
	return put_itimerspec64(&kotmr, otmr) ? -EFAULT : 0;
}
