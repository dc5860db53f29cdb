/* The clocks user space reads (kernel/time/posix-timers.c, posix-cpu-timers.c, time.c):
 * clock_gettime/clock_getres and gettimeofday/time.  MONOTONIC, BOOTTIME and their
 * RAW/COARSE forms are the virtual clock; REALTIME (and TAI, no leap seconds here) adds the
 * wall clock of boot the host gave (a fixed date on a seeded machine); the CPU-time
 * clocks are the task's (thread) or its group's (process) run time.  No vDSO: the libc
 * falls back to these system calls. */
#include "../include/syscalls.h"
#include "../include/cputime.h"

#define CLOCK_PROCESS_CPUTIME_ID	2
#define CLOCK_THREAD_CPUTIME_ID		3
#define CLOCK_MONOTONIC_RAW		4
#define CLOCK_REALTIME_COARSE		5
#define CLOCK_MONOTONIC_COARSE		6
#define MAX_CLOCKS			16
#define TICK_NSEC			4000000UL	/* HZ 250 */
#define KTIME_LOW_RES			TICK_NSEC
#define hrtimer_resolution		1		/* high-resolution mode */
#define TIMER_ABSTIME			0x01

struct __kernel_old_timeval { long tv_sec; long tv_usec; };

/* A CPU-time clock's id (include/linux/posix-timers.h): the pid (0: the caller) in the upper
 * bits, complemented; bit 2 per thread; the low bits what it counts. */
#define CPUCLOCK_PID(clock)		((pid_t) ~((clock) >> 3))
#define CPUCLOCK_PERTHREAD(clock)	(((clock) & (clockid_t)4) != 0)
#define CPUCLOCK_PERTHREAD_MASK		4
#define CPUCLOCK_WHICH(clock)		((clock) & (clockid_t)3)
#define CPUCLOCK_CLOCK_MASK		3
#define CPUCLOCK_PROF			0
#define CPUCLOCK_VIRT			1
#define CPUCLOCK_SCHED			2
#define CPUCLOCK_MAX			3
#define CLOCKFD				CPUCLOCK_MAX
#define CLOCKFD_MASK			(CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_CLOCK_MASK)
#define MAKE_PROCESS_CPUCLOCK(pid, clock)	((~(clockid_t)(pid) << 3) | (clockid_t)(clock))
#define MAKE_THREAD_CPUCLOCK(tid, clock)	MAKE_PROCESS_CPUCLOCK(tid, (clock) | CPUCLOCK_PERTHREAD_MASK)
#define PROCESS_CLOCK	MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_SCHED)
#define THREAD_CLOCK	MAKE_THREAD_CPUCLOCK(0, CPUCLOCK_SCHED)

/* A clock's operations (kernel/time/posix-timers.h): what clock_gettime, clock_getres and
 * clock_nanosleep call; no timers (timer_create is not modelled) */
struct k_clock {
	int (*clock_getres)(const clockid_t which_clock, struct timespec64 *tp);
	int (*clock_get_timespec)(const clockid_t which_clock, struct timespec64 *tp);
	int (*nsleep)(const clockid_t which_clock, int flags, const struct timespec64 *);
};

/* task_sched_runtime() (kernel/sched/core.c): what it has run, the slice it is in included */
noinline u64 task_sched_runtime(struct task_struct *t)
{
	u64 now = ktime_get();

	return t->sum_exec_runtime + (t == current && now > t->exec_start ? now - t->exec_start : 0);
}

/* ---- kernel/time/posix-timers.c: the clocks of the posix_clocks[] table ---- */
static int posix_get_realtime_timespec(clockid_t which_clock, struct timespec64 *tp)
{
	ktime_get_real_ts64(tp);
	return 0;
}

static int posix_get_monotonic_timespec(clockid_t which_clock, struct timespec64 *tp)
{
	ktime_get_ts64(tp);	/* (timens_add_monotonic: one time namespace) */
	return 0;
}

static int posix_get_monotonic_raw(clockid_t which_clock, struct timespec64 *tp)
{
	ktime_get_raw_ts64(tp);
	return 0;
}

static int posix_get_realtime_coarse(clockid_t which_clock, struct timespec64 *tp)
{
	ktime_get_coarse_real_ts64(tp);
	return 0;
}

static int posix_get_monotonic_coarse(clockid_t which_clock, struct timespec64 *tp)
{
	ktime_get_coarse_ts64(tp);
	return 0;
}

static int posix_get_coarse_res(const clockid_t which_clock, struct timespec64 *tp)
{
	*tp = (struct timespec64){ 0, KTIME_LOW_RES };
	return 0;
}

static int posix_get_boottime_timespec(const clockid_t which_clock, struct timespec64 *tp)
{
	ktime_t t = ktime_get_with_offset(TK_OFFS_BOOT);	/* ktime_get_boottime_ts64() */

	*tp = (struct timespec64){ t / NSEC_PER_SEC, t % NSEC_PER_SEC };
	return 0;
}

static int posix_get_tai_timespec(clockid_t which_clock, struct timespec64 *tp)
{
	ktime_t t = ktime_get_with_offset(TK_OFFS_TAI);	/* ktime_get_clocktai_ts64() */

	*tp = (struct timespec64){ t / NSEC_PER_SEC, t % NSEC_PER_SEC };
	return 0;
}

static int posix_get_hrtimer_res(clockid_t which_clock, struct timespec64 *tp)
{
	tp->tv_sec = 0;
	tp->tv_nsec = hrtimer_resolution;
	return 0;
}

/* The sleeps are hrtimers of the monotonic clock: an absolute time of CLOCK_REALTIME or
 * CLOCK_TAI is moved onto it by the wall clock's offset (6.1's realtime hrtimer base) */
static int common_nsleep(const clockid_t which_clock, int flags, const struct timespec64 *rqtp)
{
	ktime_t texp = timespec64_to_ns(rqtp);

	if (flags & TIMER_ABSTIME) {
		u64 offs = ktime_get_with_offset(TK_OFFS_REAL) - ktime_get();

		texp = texp > (ktime_t)offs ? texp - offs : 0;
		return hrtimer_nanosleep(texp, HRTIMER_MODE_ABS, CLOCK_MONOTONIC);
	}
	return hrtimer_nanosleep(texp, HRTIMER_MODE_REL, CLOCK_MONOTONIC);
}

static int common_nsleep_timens(const clockid_t which_clock, int flags, const struct timespec64 *rqtp)
{
	ktime_t texp = timespec64_to_ns(rqtp);	/* (timens_ktime_to_host: one time namespace) */

	return hrtimer_nanosleep(texp, flags & TIMER_ABSTIME ? HRTIMER_MODE_ABS : HRTIMER_MODE_REL, CLOCK_MONOTONIC);
}

static const struct k_clock clock_realtime = {
	.clock_getres = posix_get_hrtimer_res,
	.clock_get_timespec = posix_get_realtime_timespec,
	.nsleep = common_nsleep,
};
static const struct k_clock clock_monotonic = {
	.clock_getres = posix_get_hrtimer_res,
	.clock_get_timespec = posix_get_monotonic_timespec,
	.nsleep = common_nsleep_timens,
};
static const struct k_clock clock_monotonic_raw = {
	.clock_getres = posix_get_hrtimer_res,
	.clock_get_timespec = posix_get_monotonic_raw,
};
static const struct k_clock clock_realtime_coarse = {
	.clock_getres = posix_get_coarse_res,
	.clock_get_timespec = posix_get_realtime_coarse,
};
static const struct k_clock clock_monotonic_coarse = {
	.clock_getres = posix_get_coarse_res,
	.clock_get_timespec = posix_get_monotonic_coarse,
};
static const struct k_clock clock_tai = {
	.clock_getres = posix_get_hrtimer_res,
	.clock_get_timespec = posix_get_tai_timespec,
	.nsleep = common_nsleep,
};
static const struct k_clock clock_boottime = {
	.clock_getres = posix_get_hrtimer_res,
	.clock_get_timespec = posix_get_boottime_timespec,
	.nsleep = common_nsleep_timens,
};

/* ---- kernel/time/posix-cpu-timers.c: the CPU-time clocks (no CPU-time timers or sleeps) ---- */

/* pid_for_clock() and pid_task(): the task a CPU clock counts (0: the caller or its group);
 * a thread's clock only within the caller's group, a process's by its leader's pid. Called
 * with preemption off (rcu_read_lock()): a reaped task is freed after a grace period. */
static inline struct task_struct *cpu_clock_task(const clockid_t clock)
{
	const bool thread = CPUCLOCK_PERTHREAD(clock);
	const pid_t upid = CPUCLOCK_PID(clock);
	struct task_struct *t;
	unsigned long flags;

	if (CPUCLOCK_WHICH(clock) >= CPUCLOCK_MAX)
		return NULL;
	if (upid == 0)
		return thread ? current : current->group_leader;
	spin_lock_irqsave(&sched_lock, flags);
	t = find_task_by_pid(upid);
	if (t && (thread ? t->tgid != current->tgid : t->tgid != upid))
		t = NULL;
	spin_unlock_irqrestore(&sched_lock, flags);
	return t;
}

static noinline u64 cpu_clock_sample(const clockid_t clkid, struct task_struct *p)
{
	u64 utime, stime;

	if (clkid == CPUCLOCK_SCHED)
		return task_sched_runtime(p);
	task_cputime(p, &utime, &stime);
	return clkid == CPUCLOCK_PROF ? utime + stime : utime;
}

static noinline u64 cpu_clock_sample_group(const clockid_t clkid, struct task_struct *p, bool start)
{
	struct task_cputime ct;	/* __thread_group_cputime(): no group timers run */

	thread_group_cputime(p, &ct);
	if (clkid == CPUCLOCK_SCHED)
		return ct.sum_exec_runtime;
	return clkid == CPUCLOCK_PROF ? ct.utime + ct.stime : ct.utime;
}

static noinline int posix_cpu_clock_getres(const clockid_t which_clock, struct timespec64 *tp)
{
	int error;

	preempt_disable();
	error = cpu_clock_task(which_clock) ? 0 : -EINVAL;	/* validate_clock_permissions() */
	preempt_enable();
	if (!error) {
		tp->tv_sec = 0;
		tp->tv_nsec = (NSEC_PER_SEC + HZ - 1) / HZ;
		if (CPUCLOCK_WHICH(which_clock) == CPUCLOCK_SCHED)
			tp->tv_nsec = 1;
	}
	return error;
}

static noinline int posix_cpu_clock_get(const clockid_t clock, struct timespec64 *tp)
{
	const clockid_t clkid = CPUCLOCK_WHICH(clock);
	struct task_struct *tsk;
	u64 t;

	preempt_disable();
	tsk = cpu_clock_task(clock);
	if (!tsk) {
		preempt_enable();
		return -EINVAL;
	}
	if (CPUCLOCK_PERTHREAD(clock))
		t = cpu_clock_sample(clkid, tsk);
	else
		t = cpu_clock_sample_group(clkid, tsk, false);
	preempt_enable();
	*tp = ns_to_timespec64(t);
	return 0;
}

static int process_cpu_clock_getres(const clockid_t which_clock, struct timespec64 *tp)
{
	return posix_cpu_clock_getres(PROCESS_CLOCK, tp);
}

static int process_cpu_clock_get(const clockid_t which_clock, struct timespec64 *tp)
{
	return posix_cpu_clock_get(PROCESS_CLOCK, tp);
}

static int thread_cpu_clock_getres(const clockid_t which_clock, struct timespec64 *tp)
{
	return posix_cpu_clock_getres(THREAD_CLOCK, tp);
}

static int thread_cpu_clock_get(const clockid_t which_clock, struct timespec64 *tp)
{
	return posix_cpu_clock_get(THREAD_CLOCK, tp);
}

static const struct k_clock clock_posix_cpu = {
	.clock_getres = posix_cpu_clock_getres,
	.clock_get_timespec = posix_cpu_clock_get,
};
static const struct k_clock clock_process = {
	.clock_getres = process_cpu_clock_getres,
	.clock_get_timespec = process_cpu_clock_get,
};
static const struct k_clock clock_thread = {
	.clock_getres = thread_cpu_clock_getres,
	.clock_get_timespec = thread_cpu_clock_get,
};

/* (the alarm clocks need an RTC: none here, so they are EINVAL) */
static const struct k_clock *const posix_clocks[MAX_CLOCKS] = {
	[CLOCK_REALTIME] = &clock_realtime,
	[CLOCK_MONOTONIC] = &clock_monotonic,
	[CLOCK_PROCESS_CPUTIME_ID] = &clock_process,
	[CLOCK_THREAD_CPUTIME_ID] = &clock_thread,
	[CLOCK_MONOTONIC_RAW] = &clock_monotonic_raw,
	[CLOCK_REALTIME_COARSE] = &clock_realtime_coarse,
	[CLOCK_MONOTONIC_COARSE] = &clock_monotonic_coarse,
	[CLOCK_BOOTTIME] = &clock_boottime,
	[CLOCK_TAI] = &clock_tai,
};

static inline const struct k_clock *clockid_to_kclock(const clockid_t id)
{
	if (id < 0)	/* (no posix clock devices: a CLOCKFD id finds none) */
		return (id & CLOCKFD_MASK) == CLOCKFD ? NULL : &clock_posix_cpu;
	if (id >= MAX_CLOCKS)
		return NULL;
	return posix_clocks[id];
}

SYSCALL_DEFINE2(clock_gettime, const clockid_t, which_clock, struct __kernel_timespec *, tp)
{
	const struct k_clock *kc = clockid_to_kclock(which_clock);
	struct timespec64 kernel_tp;
	int error;

	if (!kc)
		return -EINVAL;
	error = kc->clock_get_timespec(which_clock, &kernel_tp);
	if (!error && put_timespec64(&kernel_tp, tp))
		error = -EFAULT;
	return error;
}

SYSCALL_DEFINE2(clock_getres, const clockid_t, which_clock, struct __kernel_timespec *, tp)
{
	const struct k_clock *kc = clockid_to_kclock(which_clock);
	struct timespec64 rtn_tp;
	int error;

	if (!kc)
		return -EINVAL;
	error = kc->clock_getres(which_clock, &rtn_tp);
	if (!error && tp && put_timespec64(&rtn_tp, tp))
		error = -EFAULT;
	return error;
}

SYSCALL_DEFINE2(gettimeofday, struct __kernel_old_timeval *, tv, struct timezone *, tz)
{
	if (tv) {
		struct timespec64 ts;
		struct __kernel_old_timeval v;

		ktime_get_real_ts64(&ts);
		v = (struct __kernel_old_timeval){ ts.tv_sec, ts.tv_nsec / 1000 };
		if (copy_to_user(tv, &v, sizeof(v)))
			return -EFAULT;
	}
	if (tz && copy_to_user(tz, &(u64){ 0 }, sizeof(u64)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE1(time, __kernel_old_time_t *, tloc)
{
	__kernel_old_time_t t = (__kernel_old_time_t)ktime_get_real_seconds();

	if (tloc && copy_to_user(tloc, &t, sizeof(t)))
		return -EFAULT;
	return t;
}

SYSCALL_DEFINE4(clock_nanosleep, const clockid_t, which_clock, int, flags,
		const struct __kernel_timespec *, rqtp, struct __kernel_timespec *, rmtp)
{
	const struct k_clock *kc = clockid_to_kclock(which_clock);
	struct timespec64 t;

	if (!kc)
		return -EINVAL;
	if (!kc->nsleep)	/* (and the CPU-time sleeps, not modelled) */
		return -EOPNOTSUPP;
	if (get_timespec64(&t, rqtp))
		return -EFAULT;
	if (!timespec64_valid(&t))
		return -EINVAL;
	return kc->nsleep(which_clock, flags, &t);
}
