/*
 * Interval timers (kernel/time/itimer.c): ITIMER_REAL, an hrtimer of the thread group's
 * signal_struct that sends SIGALRM to the group (it_real_fn), re-armed for an interval when the
 * signal is taken (dequeue_signal); getitimer, setitimer, alarm.  The CPU-time timers
 * (ITIMER_VIRTUAL, ITIMER_PROF) are not modelled: EINVAL.  A session task's timers, as its
 * signals, are the host's (it has no signal_struct here): ENOSYS.
 */
#include "../include/syscalls.h"
#include "../include/pid.h"
#include "../include/signal.h"
#include "../include/trace/trace.h"

#define ITIMER_REAL	0

struct __kernel_old_timeval { long tv_sec, tv_usec; };
struct __kernel_old_itimerval { struct __kernel_old_timeval it_interval, it_value; };

noinline enum hrtimer_restart it_real_fn(struct hrtimer *timer)
{
	struct signal_struct *sig = container_of(timer, struct signal_struct, real_timer);
	struct task_struct *p;
	unsigned long flags;

	trace_itimer_expire(ITIMER_REAL, sig->leader_pid, 0);
	spin_lock_irqsave(&sched_lock, flags);	/* (6.1 holds the pid: here, not a reused one) */
	p = find_task_by_pid(sig->leader_pid);
	spin_unlock_irqrestore(&sched_lock, flags);
	if (p && p->signal == sig) {
		struct sigqueue_info info = { .code = SI_KERNEL };	/* SEND_SIG_PRIV */

		kill_pid_info(SIGALRM, &info, p->thread_pid);
	}
	return HRTIMER_NORESTART;
}

notrace void itimer_init(struct signal_struct *sig)
{
	hrtimer_init(&sig->real_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	sig->real_timer.function = it_real_fn;
}

/* the group is gone: its timer must not fire on freed memory */
notrace void itimer_exit(struct signal_struct *sig)
{
	hrtimer_cancel(&sig->real_timer);
	while (hrtimer_callback_running(&sig->real_timer))
		cpu_relax();
	sig->it_real_incr = 0;
}

notrace void itimer_rearm(struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	struct hrtimer *tmr = &sig->real_timer;

	if (!hrtimer_active(tmr) && sig->it_real_incr) {
		hrtimer_forward(tmr, ktime_get(), sig->it_real_incr);
		hrtimer_start(tmr, hrtimer_get_expires(tmr), HRTIMER_MODE_ABS);
	}
}

static notrace void get_real_timer(struct signal_struct *sig, struct itimerspec64 *value)
{
	struct hrtimer *tmr = &sig->real_timer;
	s64 rem = __hrtimer_get_remaining(tmr, true);	/* itimer_get_remtime() */

	if (hrtimer_active(tmr)) {
		if (rem <= 0)
			rem = NSEC_PER_USEC;	/* about to fire: not "disarmed" */
	} else {
		rem = 0;
	}
	value->it_value.tv_sec = rem / NSEC_PER_SEC;
	value->it_value.tv_nsec = rem % NSEC_PER_SEC;
	value->it_interval.tv_sec = sig->it_real_incr / NSEC_PER_SEC;
	value->it_interval.tv_nsec = sig->it_real_incr % NSEC_PER_SEC;
}

static noinline int do_getitimer(int which, struct itimerspec64 *value)
{
	if (!current->signal)
		return -ENOSYS;
	if (which != ITIMER_REAL)
		return -EINVAL;
	get_real_timer(current->signal, value);
	return 0;
}

static int put_itimerval(struct __kernel_old_itimerval *o, const struct itimerspec64 *i)
{
	struct __kernel_old_itimerval v = {
		.it_interval = { i->it_interval.tv_sec, i->it_interval.tv_nsec / NSEC_PER_USEC },
		.it_value = { i->it_value.tv_sec, i->it_value.tv_nsec / NSEC_PER_USEC },
	};

	return copy_to_user(o, &v, sizeof(v)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(getitimer, int, which, struct __kernel_old_itimerval *, value)
{
	struct itimerspec64 get_buffer;
	int error = do_getitimer(which, &get_buffer);

	if (!error && put_itimerval(value, &get_buffer))
		error = -EFAULT;
	return error;
}

static noinline int do_setitimer(int which, struct itimerspec64 *value, struct itimerspec64 *ovalue)
{
	struct signal_struct *sig = current->signal;
	struct hrtimer *timer;
	ktime_t expires;

	if (!sig)
		return -ENOSYS;
	if (which != ITIMER_REAL)
		return -EINVAL;
	if (!timespec64_valid(&value->it_value) || !timespec64_valid(&value->it_interval))
		return -EINVAL;
	timer = &sig->real_timer;
	if (ovalue)
		get_real_timer(sig, ovalue);
	hrtimer_cancel(timer);
	while (hrtimer_callback_running(timer))
		cpu_relax();
	expires = value->it_value.tv_sec * NSEC_PER_SEC + value->it_value.tv_nsec;
	if (expires) {
		sig->leader_pid = current->tgid;
		sig->it_real_incr = value->it_interval.tv_sec * NSEC_PER_SEC + value->it_interval.tv_nsec;
		hrtimer_start(timer, expires, HRTIMER_MODE_REL);
	} else {
		sig->it_real_incr = 0;
	}
	trace_itimer_state(ITIMER_REAL, value, 0);
	return 0;
}

/* The user's itimerval: microseconds, checked as 6.1's timeval_valid(), to nanoseconds. */
static noinline int get_itimerval(struct itimerspec64 *o, const struct __kernel_old_itimerval *i)
{
	struct __kernel_old_itimerval v;

	if (copy_from_user(&v, i, sizeof(v)))
		return -EFAULT;
	if (v.it_value.tv_usec < 0 || v.it_value.tv_usec >= 1000000 ||
	    v.it_interval.tv_usec < 0 || v.it_interval.tv_usec >= 1000000)
		return -EINVAL;
	*o = (struct itimerspec64){
		.it_interval = { v.it_interval.tv_sec, v.it_interval.tv_usec * NSEC_PER_USEC },
		.it_value = { v.it_value.tv_sec, v.it_value.tv_usec * NSEC_PER_USEC },
	};
	return 0;
}

SYSCALL_DEFINE3(setitimer, int, which, struct __kernel_old_itimerval *, value,
		struct __kernel_old_itimerval *, ovalue)
{
	struct itimerspec64 set_buffer = { 0 }, get_buffer;
	int error;

	if (value) {
		error = get_itimerval(&set_buffer, value);
		if (error)
			return error;
	}
	error = do_setitimer(which, &set_buffer, ovalue ? &get_buffer : NULL);
	if (error || !ovalue)
		return error;
	return put_itimerval(ovalue, &get_buffer);
}

/* alarm(2): ITIMER_REAL in whole seconds; the old one's seconds, rounded, at least 1 if it ran */
static __always_inline unsigned int alarm_setitimer(unsigned int seconds)
{
	struct itimerspec64 it_new = { 0 }, it_old;

	if ((int)seconds < 0)
		seconds = 0x7fffffff;
	it_new.it_value.tv_sec = seconds;
	if (do_setitimer(ITIMER_REAL, &it_new, &it_old))
		return 0;
	if ((!it_old.it_value.tv_sec && it_old.it_value.tv_nsec) || it_old.it_value.tv_nsec >= 500000000)
		it_old.it_value.tv_sec++;
	return it_old.it_value.tv_sec;
}

SYSCALL_DEFINE1(alarm, unsigned int, seconds)
{
	if (!current->signal)
		return -ENOSYS;
	return alarm_setitimer(seconds);
}
