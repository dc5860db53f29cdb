/* The clocks user space reads (kernel/time/posix-timers.c, posix-cpu-timers.c, time.c):
 * clock_gettime/clock_getres and gettimeofday/time.  MONOTONIC, BOOTTIME and their
 * RAW/COARSE forms are the virtual clock; REALTIME (and TAI, no leap seconds here) adds the
 * wall clock of boot the host gave (a fixed date on a seeded machine); the CPU-time
 * clocks are the task's (thread) or its group's (process) run time.  No vDSO: the libc
 * falls back to these system calls. */
#include "../include/syscalls.h"

#define CLOCK_PROCESS_CPUTIME_ID	2
#define CLOCK_THREAD_CPUTIME_ID		3
#define CLOCK_MONOTONIC_RAW		4
#define CLOCK_REALTIME_COARSE		5
#define CLOCK_MONOTONIC_COARSE		6
#define NSEC_PER_SEC			1000000000UL
#define TICK_NSEC			4000000UL	/* HZ 250 */

struct __kernel_timespec { s64 tv_sec; long tv_nsec; };
struct __kernel_old_timeval { long tv_sec; long tv_usec; };

static u64 ktime_get_real_ns(void)
{
	return boot_params.boot_realtime_ns + ktime_get();
}

/* task_sched_runtime(): what it has run, the slice it is in included */
noinline u64 task_sched_runtime(struct task_struct *t)
{
	u64 now = ktime_get();

	return t->sum_exec_runtime + (t == current && now > t->exec_start ? now - t->exec_start : 0);
}

static u64 thread_group_cputime(struct task_struct *tsk)
{
	struct task_struct *t;
	unsigned long flags;
	u64 sum = 0;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks)
		if (t->tgid == tsk->tgid)
			sum += task_sched_runtime(t);
	spin_unlock_irqrestore(&sched_lock, flags);
	return sum;
}

noinline int posix_clock_get(clockid_t which, u64 *ns)
{
	switch (which) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_TAI:
		*ns = ktime_get_real_ns();
		return 0;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		*ns = ktime_get();
		return 0;
	case CLOCK_PROCESS_CPUTIME_ID:
		*ns = thread_group_cputime(current);
		return 0;
	case CLOCK_THREAD_CPUTIME_ID:
		*ns = task_sched_runtime(current);
		return 0;
	}
	return -EINVAL;
}

SYSCALL_DEFINE2(clock_gettime, const clockid_t, which_clock, struct __kernel_timespec *, tp)
{
	struct __kernel_timespec ts;
	u64 ns;
	int err = posix_clock_get(which_clock, &ns);

	if (err)
		return err;
	ts.tv_sec = ns / NSEC_PER_SEC;
	ts.tv_nsec = ns % NSEC_PER_SEC;
	return copy_to_user(tp, &ts, sizeof(ts)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(clock_getres, const clockid_t, which_clock, struct __kernel_timespec *, tp)
{
	struct __kernel_timespec ts = { 0, 1 };
	u64 ns;

	if (posix_clock_get(which_clock, &ns))
		return -EINVAL;
	if (which_clock == CLOCK_REALTIME_COARSE || which_clock == CLOCK_MONOTONIC_COARSE)
		ts.tv_nsec = TICK_NSEC;
	if (tp && copy_to_user(tp, &ts, sizeof(ts)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE2(gettimeofday, struct __kernel_old_timeval *, tv, struct timezone *, tz)
{
	u64 ns = ktime_get_real_ns();
	struct __kernel_old_timeval v = { ns / NSEC_PER_SEC, (ns % NSEC_PER_SEC) / 1000 };

	if (tv && copy_to_user(tv, &v, sizeof(v)))
		return -EFAULT;
	if (tz && copy_to_user(tz, &(u64){ 0 }, sizeof(u64)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE1(time, __kernel_old_time_t *, tloc)
{
	__kernel_old_time_t t = ktime_get_real_ns() / NSEC_PER_SEC;

	if (tloc && copy_to_user(tloc, &t, sizeof(t)))
		return -EFAULT;
	return t;
}

#define TIMER_ABSTIME 0x01

SYSCALL_DEFINE4(clock_nanosleep, const clockid_t, which_clock, int, flags,
		const struct __kernel_timespec *, rqtp, struct __kernel_timespec *, rmtp)
{
	struct __kernel_timespec ts;
	u64 t;

	switch (which_clock) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		break;
	case CLOCK_THREAD_CPUTIME_ID:
		return -EINVAL;
	default:
		return -EOPNOTSUPP;	/* (no CPU-time sleeps) */
	}
	if (copy_from_user(&ts, rqtp, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	t = (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	if (!(flags & TIMER_ABSTIME))
		return hrtimer_nanosleep(t, HRTIMER_MODE_REL, CLOCK_MONOTONIC);
	if (which_clock == CLOCK_REALTIME || which_clock == CLOCK_TAI)	/* on the monotonic clock */
		t = t > boot_params.boot_realtime_ns ? t - boot_params.boot_realtime_ns : 0;
	return hrtimer_nanosleep(t, HRTIMER_MODE_ABS, CLOCK_MONOTONIC);
}
