/* The clocks user space reads (kernel/time/posix-timers.c, posix-cpu-timers.c, time.c):
 * clock_gettime/clock_getres and gettimeofday/time; the POSIX timers (timer_create and its
 * calls: an hrtimer per timer, whose expiry queues the timer's preallocated signal).  MONOTONIC, BOOTTIME and their
 * RAW/COARSE forms are the virtual clock; REALTIME (and TAI, no leap seconds here) adds the
 * wall clock of boot the host gave (a fixed date on a seeded machine); the CPU-time
 * clocks are the task's (thread) or its group's (process) run time.  No vDSO: the libc
 * falls back to these system calls. */
#include "../include/syscalls.h"
#include "../include/pid.h"
#include "../include/cputime.h"
#include "../include/signal.h"
#include "../include/slab.h"
#include "../include/trace/trace.h"

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

#define INT_MAX		0x7fffffff
#define TIMER_RETRY	1
#define REQUEUE_PENDING	1

struct k_itimer;

/* A clock's operations (kernel/time/posix-timers.h): what clock_gettime, clock_getres,
 * clock_nanosleep and the timer calls call.  The CPU-time clocks have no timer operations here
 * (posix-cpu-timers.c's are not modelled): timer_create on them is EOPNOTSUPP, as on a clock
 * without timers. */
struct k_clock {
	int (*clock_getres)(const clockid_t which_clock, struct timespec64 *tp);
	int (*clock_get_timespec)(const clockid_t which_clock, struct timespec64 *tp);
	int (*nsleep)(const clockid_t which_clock, int flags, const struct timespec64 *);
	ktime_t (*clock_get_ktime)(const clockid_t which_clock);
	int (*timer_create)(struct k_itimer *timer);
	int (*timer_set)(struct k_itimer *timr, int flags, struct itimerspec64 *new_setting,
			 struct itimerspec64 *old_setting);
	int (*timer_del)(struct k_itimer *timr);
	void (*timer_get)(struct k_itimer *timr, struct itimerspec64 *cur_setting);
	void (*timer_rearm)(struct k_itimer *timr);
	s64 (*timer_forward)(struct k_itimer *timr, ktime_t now);
	ktime_t (*timer_remaining)(struct k_itimer *timr, ktime_t now);
	int (*timer_try_to_cancel)(struct k_itimer *timr);
	void (*timer_arm)(struct k_itimer *timr, ktime_t expires, bool absolute, bool sigev_none);
	void (*timer_wait_running)(struct k_itimer *timr);
};

/* A POSIX timer (include/linux/posix-timers.h) */
struct k_itimer {
	struct list_head list;		/* in its group's signal->posix_timers */
	struct list_head t_hash;	/* in posix_timers_hashtable */
	spinlock_t it_lock;
	const struct k_clock *kclock;
	clockid_t it_clock;
	timer_t it_id;
	int it_active;
	s64 it_overrun;			/* expiries since the signal was queued, -1: none */
	s64 it_overrun_last;		/* those of the signal last taken (timer_getoverrun) */
	int it_requeue_pending;		/* bumped at each expiry and setting: a stale signal's differs */
	int it_sigev_notify;
	ktime_t it_interval;
	struct signal_struct *it_signal;	/* its group's; NULL once deleted */
	pid_t it_pid;			/* whom the signal goes to: a process, or a thread (SIGEV_THREAD_ID) */
	struct sigqueue *sigq;
	struct hrtimer timer;		/* it.real.timer */
	ktime_t it_base_offset;		/* its clock from the monotonic one, which the hrtimer runs on
					 * (one clock base here; 6.1's base->offset) */
	struct rcu_head rcu;
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

/* now, as a timer of the clock counts it (timer_gettime) */
static noinline ktime_t posix_get_realtime_ktime(clockid_t which_clock)
{
	return ktime_get_with_offset(TK_OFFS_REAL);	/* ktime_get_real() */
}

static noinline ktime_t posix_get_monotonic_ktime(clockid_t which_clock)
{
	return ktime_get();	/* (timens_add_monotonic: one time namespace) */
}

static noinline ktime_t posix_get_boottime_ktime(const clockid_t which_clock)
{
	return ktime_get_with_offset(TK_OFFS_BOOT);	/* ktime_get_boottime() */
}

static noinline ktime_t posix_get_tai_ktime(clockid_t which_clock)
{
	return ktime_get_with_offset(TK_OFFS_TAI);	/* ktime_get_clocktai() */
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

static int common_timer_create(struct k_itimer *new_timer);
int common_timer_set(struct k_itimer *timr, int flags, struct itimerspec64 *new_setting,
		     struct itimerspec64 *old_setting);
int common_timer_del(struct k_itimer *timer);
void common_timer_get(struct k_itimer *timr, struct itimerspec64 *cur_setting);
static void common_hrtimer_rearm(struct k_itimer *timr);
static s64 common_hrtimer_forward(struct k_itimer *timr, ktime_t now);
static ktime_t common_hrtimer_remaining(struct k_itimer *timr, ktime_t now);
static int common_hrtimer_try_to_cancel(struct k_itimer *timr);
static void common_hrtimer_arm(struct k_itimer *timr, ktime_t expires, bool absolute, bool sigev_none);
static void common_timer_wait_running(struct k_itimer *timer);

#define COMMON_TIMER_OPS						\
	.timer_create = common_timer_create,				\
	.timer_set = common_timer_set,					\
	.timer_get = common_timer_get,					\
	.timer_del = common_timer_del,					\
	.timer_rearm = common_hrtimer_rearm,				\
	.timer_forward = common_hrtimer_forward,			\
	.timer_remaining = common_hrtimer_remaining,			\
	.timer_try_to_cancel = common_hrtimer_try_to_cancel,		\
	.timer_wait_running = common_timer_wait_running,		\
	.timer_arm = common_hrtimer_arm

static const struct k_clock clock_realtime = {
	.clock_getres = posix_get_hrtimer_res,
	.clock_get_timespec = posix_get_realtime_timespec,
	.nsleep = common_nsleep,
	.clock_get_ktime = posix_get_realtime_ktime,
	COMMON_TIMER_OPS,
};
static const struct k_clock clock_monotonic = {
	.clock_getres = posix_get_hrtimer_res,
	.clock_get_timespec = posix_get_monotonic_timespec,
	.nsleep = common_nsleep_timens,
	.clock_get_ktime = posix_get_monotonic_ktime,
	COMMON_TIMER_OPS,
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
	.clock_get_ktime = posix_get_tai_ktime,
	COMMON_TIMER_OPS,
};
static const struct k_clock clock_boottime = {
	.clock_getres = posix_get_hrtimer_res,
	.clock_get_timespec = posix_get_boottime_timespec,
	.nsleep = common_nsleep_timens,
	.clock_get_ktime = posix_get_boottime_ktime,
	COMMON_TIMER_OPS,
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
	t = pid_task(find_vpid(upid), PIDTYPE_PID);
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

/* ---- the POSIX timers (kernel/time/posix-timers.c) ---- */
#define POSIX_TIMERS_HASH	64
static struct list_head posix_timers_hashtable[POSIX_TIMERS_HASH];
static spinlock_t hash_lock;
static struct kmem_cache *posix_timers_cache;

void __init init_posix_timers(void)
{
	int i;

	for (i = 0; i < POSIX_TIMERS_HASH; i++)
		INIT_LIST_HEAD(&posix_timers_hashtable[i]);
	posix_timers_cache = kmem_cache_create("posix_timers_cache", sizeof(struct k_itimer), 0,
					       SLAB_PANIC | SLAB_ACCOUNT, NULL);
}

/* kernel/time/time.c: an itimerspec from and to user space */
noinline int get_itimerspec64(struct itimerspec64 *it, const struct __kernel_itimerspec *uit)
{
	int ret = get_timespec64(&it->it_interval, &uit->it_interval);

	if (ret)
		return ret;
	return get_timespec64(&it->it_value, &uit->it_value);
}

noinline int put_itimerspec64(const struct itimerspec64 *it, struct __kernel_itimerspec *uit)
{
	int ret = put_timespec64(&it->it_interval, &uit->it_interval);

	if (ret)
		return ret;
	return put_timespec64(&it->it_value, &uit->it_value);
}

static __always_inline struct list_head *posix_timers_bucket(struct signal_struct *sig, unsigned int nr)
{
	return &posix_timers_hashtable[(((unsigned long)sig >> 6) ^ nr) % POSIX_TIMERS_HASH];
}

static __always_inline struct k_itimer *__posix_timers_find(struct list_head *head, struct signal_struct *sig,
							    timer_t id)
{
	struct k_itimer *timer;

	list_for_each_entry(timer, head, t_hash)
		if (timer->it_signal == sig && timer->it_id == id)
			return timer;
	return NULL;
}

/* The group's next free id (ids count up per process, as 6.1's, and wrap at INT_MAX) */
static __always_inline int posix_timer_add(struct k_itimer *timer)
{
	struct signal_struct *sig = current->signal;
	unsigned int cnt, id;

	for (cnt = 0; cnt <= INT_MAX; cnt++) {
		struct list_head *head;

		spin_lock(&hash_lock);
		id = sig->next_posix_timer_id;
		sig->next_posix_timer_id = (id + 1) & INT_MAX;
		head = posix_timers_bucket(sig, id);
		if (!__posix_timers_find(head, sig, id)) {
			list_add(&timer->t_hash, head);
			spin_unlock(&hash_lock);
			return id;
		}
		spin_unlock(&hash_lock);
	}
	return -EAGAIN;
}

static inline void unlock_timer(struct k_itimer *timr, unsigned long flags)
{
	spin_unlock_irqrestore(&timr->it_lock, flags);
}

/* si_overrun and timer_getoverrun() are ints: clamped */
static inline int timer_overrun_to_int(struct k_itimer *timr, int baseval)
{
	s64 sum = timr->it_overrun_last + (s64)baseval;

	return sum > (s64)INT_MAX ? INT_MAX : (int)sum;
}

static noinline void common_hrtimer_rearm(struct k_itimer *timr)
{
	struct hrtimer *timer = &timr->timer;

	timr->it_overrun += hrtimer_forward(timer, ktime_get(), timr->it_interval);
	hrtimer_start(timer, hrtimer_get_expires(timer), HRTIMER_MODE_ABS);	/* hrtimer_restart() */
}

/*
 * The timer, found by the id the signal carries (a timer of the caller's group), with its lock
 * held; NULL if gone (timer_delete).  (In 6.1 a static function, with lock_timer() a macro.)
 */
static noinline struct k_itimer *__lock_timer(timer_t timer_id, unsigned long *flags)
{
	struct k_itimer *timr;

	if ((unsigned long long)timer_id > INT_MAX)
		return NULL;
	preempt_disable();	/* rcu_read_lock(): a timer is freed after a grace period */
	spin_lock_irqsave(&hash_lock, *flags);	/* (6.1 walks the hash under RCU alone) */
	timr = __posix_timers_find(posix_timers_bucket(current->signal, timer_id), current->signal, timer_id);
	spin_unlock_irqrestore(&hash_lock, *flags);
	if (timr) {
		spin_lock_irqsave(&timr->it_lock, *flags);
		if (timr->it_signal == current->signal) {
			preempt_enable();
			return timr;
		}
		spin_unlock_irqrestore(&timr->it_lock, *flags);
	}
	preempt_enable();
	return NULL;
}
#define lock_timer(tid, flags) __lock_timer(tid, flags)

/* From dequeue_signal(): the timer's signal was taken; an interval timer runs again, its
 * overruns until now frozen in the siginfo (unless the timer was set again since it fired) */
noinline void posixtimer_rearm(struct sigqueue_info *info)
{
	struct k_itimer *timr;
	unsigned long flags;

	timr = lock_timer(info->tid, &flags);
	if (!timr)
		return;
	if (timr->it_interval && timr->it_requeue_pending == info->sys_private) {
		timr->kclock->timer_rearm(timr);
		timr->it_active = 1;
		timr->it_overrun_last = timr->it_overrun;
		timr->it_overrun = -1LL;
		++timr->it_requeue_pending;
		info->overrun = timer_overrun_to_int(timr, info->overrun);
	}
	unlock_timer(timr, flags);
}

/* 1: the signal was not sent (ignored), the timer restarts by itself */
noinline int posix_timer_event(struct k_itimer *timr, int si_private)
{
	timr->sigq->info.sys_private = si_private;
	return send_sigqueue(timr->sigq, timr->it_pid, timr->it_sigev_notify & SIGEV_THREAD_ID) > 0;
}

/* The hrtimer's expiry (hard interrupt) */
static noinline enum hrtimer_restart posix_timer_fn(struct hrtimer *timer)
{
	struct k_itimer *timr = container_of(timer, struct k_itimer, timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	unsigned long flags;
	int si_private = 0;

	spin_lock_irqsave(&timr->it_lock, flags);
	timr->it_active = 0;
	if (timr->it_interval != 0)
		si_private = ++timr->it_requeue_pending;
	if (posix_timer_event(timr, si_private)) {
		/* Ignored: nobody will take it to restart the timer, so it restarts here, at a
		 * jiffy at least, for an interval that short would starve the cpu. */
		if (timr->it_interval != 0) {
			ktime_t now = ktime_get(), kj = NSEC_PER_SEC / HZ;

			if (timr->it_interval < kj)
				now += kj;
			timr->it_overrun += hrtimer_forward(timer, now, timr->it_interval);
			ret = HRTIMER_RESTART;
			++timr->it_requeue_pending;
			timr->it_active = 1;
		}
	}
	unlock_timer(timr, flags);
	return ret;
}

/* The pid a sigevent names (its thread: one of the caller's group), or 0: invalid */
static __always_inline pid_t good_sigevent(struct sigevent *event)
{
	pid_t pid = current->tgid;
	struct task_struct *rtn;
	unsigned long flags;

	switch (event->sigev_notify) {
	case SIGEV_SIGNAL | SIGEV_THREAD_ID:
		pid = event->sigev_notify_thread_id;
		spin_lock_irqsave(&sched_lock, flags);
		rtn = pid_task(find_vpid(pid), PIDTYPE_PID);
		if (rtn && (rtn->tgid != current->tgid || rtn->exit_state))
			rtn = NULL;
		spin_unlock_irqrestore(&sched_lock, flags);
		if (!rtn)
			return 0;
		/* fallthrough */
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		if (event->sigev_signo <= 0 || event->sigev_signo > SIGRTMAX)
			return 0;
		/* fallthrough */
	case SIGEV_NONE:
		return pid;
	default:
		return 0;
	}
}

static __always_inline struct k_itimer *alloc_posix_timer(void)
{
	struct k_itimer *tmr = kmem_cache_zalloc(posix_timers_cache, GFP_KERNEL);

	if (!tmr)
		return tmr;
	if (unlikely(!(tmr->sigq = sigqueue_alloc()))) {
		kmem_cache_free(posix_timers_cache, tmr);
		return NULL;
	}
	tmr->sigq->info = (struct sigqueue_info){ 0 };	/* clear_siginfo() */
	return tmr;
}

static noinline void k_itimer_rcu_free(struct rcu_head *head)
{
	struct k_itimer *tmr = container_of(head, struct k_itimer, rcu);

	kmem_cache_free(posix_timers_cache, tmr);
}

#define IT_ID_SET	1
#define IT_ID_NOT_SET	0
static noinline void release_posix_timer(struct k_itimer *tmr, int it_id_set)
{
	if (it_id_set) {
		unsigned long flags;

		spin_lock_irqsave(&hash_lock, flags);
		list_del(&tmr->t_hash);
		spin_unlock_irqrestore(&hash_lock, flags);
	}
	sigqueue_free(tmr->sigq);
	call_rcu(&tmr->rcu, k_itimer_rcu_free);
}

static noinline int common_timer_create(struct k_itimer *new_timer)
{
	hrtimer_init(&new_timer->timer, new_timer->it_clock, 0);
	return 0;
}

static noinline int do_timer_create(clockid_t which_clock, struct sigevent *event, timer_t *created_timer_id)
{
	const struct k_clock *kc = clockid_to_kclock(which_clock);
	int error, new_timer_id, it_id_set = IT_ID_NOT_SET;
	struct k_itimer *new_timer;

	if (!kc)
		return -EINVAL;
	if (!kc->timer_create)
		return -EOPNOTSUPP;
	new_timer = alloc_posix_timer();
	if (unlikely(!new_timer))
		return -EAGAIN;
	new_timer_id = posix_timer_add(new_timer);
	if (new_timer_id < 0) {
		error = new_timer_id;
		goto out;
	}
	it_id_set = IT_ID_SET;
	new_timer->it_id = (timer_t)new_timer_id;
	new_timer->it_clock = which_clock;
	new_timer->kclock = kc;
	new_timer->it_overrun = -1LL;
	if (event) {
		new_timer->it_pid = good_sigevent(event);
		if (!new_timer->it_pid) {
			error = -EINVAL;
			goto out;
		}
		new_timer->it_sigev_notify = event->sigev_notify;
		new_timer->sigq->sig = event->sigev_signo;
		new_timer->sigq->info.value = event->sigev_value;
	} else {
		new_timer->it_sigev_notify = SIGEV_SIGNAL;
		new_timer->sigq->sig = SIGALRM;
		new_timer->sigq->info.value = (u32)new_timer->it_id;	/* sival_int */
		new_timer->it_pid = current->tgid;
	}
	new_timer->sigq->info.tid = new_timer->it_id;
	new_timer->sigq->info.code = SI_TIMER;
	if (copy_to_user(created_timer_id, &new_timer_id, sizeof(new_timer_id))) {
		error = -EFAULT;
		goto out;
	}
	error = kc->timer_create(new_timer);
	if (error)
		goto out;
	spin_lock_irq(&siglock);
	new_timer->it_signal = current->signal;
	list_add(&new_timer->list, &current->signal->posix_timers);
	spin_unlock_irq(&siglock);
	return 0;
out:
	release_posix_timer(new_timer, it_id_set);
	return error;
}

SYSCALL_DEFINE3(timer_create, const clockid_t, which_clock, struct sigevent *, timer_event_spec,
		timer_t *, created_timer_id)
{
	if (!current->signal)	/* a session task: its timers and signals are the host's */
		return -ENOSYS;
	if (timer_event_spec) {
		struct sigevent event;

		if (copy_from_user(&event, timer_event_spec, sizeof(event)))
			return -EFAULT;
		return do_timer_create(which_clock, &event, created_timer_id);
	}
	return do_timer_create(which_clock, NULL, created_timer_id);
}

/* now: the timer's clock's (kc->clock_get_ktime) */
static noinline ktime_t common_hrtimer_remaining(struct k_itimer *timr, ktime_t now)
{
	/* __hrtimer_expires_remaining_adjusted() */
	return hrtimer_get_expires(&timr->timer) + timr->it_base_offset - now;
}

static noinline s64 common_hrtimer_forward(struct k_itimer *timr, ktime_t now)
{
	return hrtimer_forward(&timr->timer, now - timr->it_base_offset, timr->it_interval);
}

/*
 * The time left, with the timer locked: a timer whose signal waits to be taken (requeue
 * pending) and a SIGEV_NONE one (never queued) move forward by intervals past now; an expired
 * one that is not pending reads 0, one about to be restarted 1 ns.
 */
noinline void common_timer_get(struct k_itimer *timr, struct itimerspec64 *cur_setting)
{
	const struct k_clock *kc = timr->kclock;
	ktime_t now, remaining, iv;
	bool sig_none;

	sig_none = timr->it_sigev_notify == SIGEV_NONE;
	iv = timr->it_interval;
	if (iv) {
		cur_setting->it_interval = ns_to_timespec64(iv);
	} else if (!timr->it_active) {
		if (!sig_none)	/* a SIGEV_NONE one-shot is never queued: checked below */
			return;
	}
	now = kc->clock_get_ktime(timr->it_clock);
	if (iv && ((timr->it_requeue_pending & REQUEUE_PENDING) || sig_none))
		timr->it_overrun += kc->timer_forward(timr, now);
	remaining = kc->timer_remaining(timr, now);
	if (remaining <= 0) {
		if (!sig_none)
			cur_setting->it_value.tv_nsec = 1;
	} else {
		cur_setting->it_value = ns_to_timespec64(remaining);
	}
}

static noinline int do_timer_gettime(timer_t timer_id, struct itimerspec64 *setting)
{
	struct k_itimer *timr;
	unsigned long flags;

	timr = lock_timer(timer_id, &flags);
	if (!timr)
		return -EINVAL;
	memset(setting, 0, sizeof(*setting));
	timr->kclock->timer_get(timr, setting);
	unlock_timer(timr, flags);
	return 0;
}

SYSCALL_DEFINE2(timer_gettime, timer_t, timer_id, struct __kernel_itimerspec *, setting)
{
	struct itimerspec64 cur_setting;
	int ret;

	if (!current->signal)
		return -ENOSYS;
	ret = do_timer_gettime(timer_id, &cur_setting);
	if (!ret && put_itimerspec64(&cur_setting, setting))
		ret = -EFAULT;
	return ret;
}

/* The overruns of the signal last taken */
SYSCALL_DEFINE1(timer_getoverrun, timer_t, timer_id)
{
	struct k_itimer *timr;
	unsigned long flags;
	int overrun;

	if (!current->signal)
		return -ENOSYS;
	timr = lock_timer(timer_id, &flags);
	if (!timr)
		return -EINVAL;
	overrun = timer_overrun_to_int(timr, 0);
	unlock_timer(timr, flags);
	return overrun;
}

static noinline void common_hrtimer_arm(struct k_itimer *timr, ktime_t expires, bool absolute, bool sigev_none)
{
	struct hrtimer *timer = &timr->timer;
	enum hrtimer_mode mode = absolute ? HRTIMER_MODE_ABS : HRTIMER_MODE_REL;

	/* a relative CLOCK_REALTIME timer is a monotonic one (6.1 switches timr->kclock) */
	if (timr->it_clock == CLOCK_REALTIME)
		timr->kclock = absolute ? &clock_realtime : &clock_monotonic;
	hrtimer_init(&timr->timer, timr->it_clock, mode);
	timr->timer.function = posix_timer_fn;
	timr->it_base_offset = timr->kclock == &clock_monotonic ? 0 : clock_to_monotonic_offset(timr->it_clock);
	if (!absolute)
		expires += ktime_get();	/* ktime_add_safe(expires, base->get_time()) */
	else
		expires -= timr->it_base_offset;
	if (expires < 0)
		expires = 0;
	hrtimer_set_expires_range_ns(timer, expires, 0);
	if (!sigev_none)
		hrtimer_start(timer, expires, HRTIMER_MODE_ABS);	/* hrtimer_start_expires() */
}

/* -1: its callback runs (on another cpu) now: the caller waits (TIMER_RETRY) */
static noinline int common_hrtimer_try_to_cancel(struct k_itimer *timr)
{
	return hrtimer_try_to_cancel(&timr->timer);
}

static noinline void common_timer_wait_running(struct k_itimer *timer)
{
	hrtimer_cancel_wait_running(&timer->timer);
}

/* Unlocked while the callback ends, then locked again if it still exists */
static noinline struct k_itimer *timer_wait_running(struct k_itimer *timer, unsigned long *flags)
{
	const struct k_clock *kc = READ_ONCE(timer->kclock);
	timer_t timer_id = READ_ONCE(timer->it_id);

	preempt_disable();	/* rcu_read_lock(): no kfree(timer) meanwhile */
	unlock_timer(timer, *flags);
	kc->timer_wait_running(timer);
	preempt_enable();
	return lock_timer(timer_id, flags);
}

noinline int common_timer_set(struct k_itimer *timr, int flags, struct itimerspec64 *new_setting,
			      struct itimerspec64 *old_setting)
{
	const struct k_clock *kc = timr->kclock;
	bool sigev_none;
	ktime_t expires;

	if (old_setting)
		common_timer_get(timr, old_setting);
	timr->it_interval = 0;	/* no rearming meanwhile */
	if (kc->timer_try_to_cancel(timr) < 0)
		return TIMER_RETRY;
	timr->it_active = 0;
	timr->it_requeue_pending = (timr->it_requeue_pending + 2) & ~REQUEUE_PENDING;
	timr->it_overrun_last = 0;
	if (!new_setting->it_value.tv_sec && !new_setting->it_value.tv_nsec)
		return 0;	/* disarmed */
	timr->it_interval = timespec64_to_ns(&new_setting->it_interval);
	expires = timespec64_to_ns(&new_setting->it_value);
	sigev_none = timr->it_sigev_notify == SIGEV_NONE;
	kc->timer_arm(timr, expires, flags & TIMER_ABSTIME, sigev_none);
	timr->it_active = !sigev_none;
	return 0;
}

static noinline int do_timer_settime(timer_t timer_id, int tmr_flags, struct itimerspec64 *new_spec64,
				     struct itimerspec64 *old_spec64)
{
	struct k_itimer *timr;
	unsigned long flags;
	int error;

	if (!timespec64_valid(&new_spec64->it_interval) || !timespec64_valid(&new_spec64->it_value))
		return -EINVAL;
	if (old_spec64)
		memset(old_spec64, 0, sizeof(*old_spec64));
	timr = lock_timer(timer_id, &flags);
retry:
	if (!timr)
		return -EINVAL;
	error = timr->kclock->timer_set(timr, tmr_flags, new_spec64, old_spec64);
	if (error == TIMER_RETRY) {
		old_spec64 = NULL;	/* already read */
		timr = timer_wait_running(timr, &flags);
		goto retry;
	}
	unlock_timer(timr, flags);
	return error;
}

SYSCALL_DEFINE4(timer_settime, timer_t, timer_id, int, flags, const struct __kernel_itimerspec *, new_setting,
		struct __kernel_itimerspec *, old_setting)
{
	struct itimerspec64 new_spec, old_spec;
	struct itimerspec64 *rtn = old_setting ? &old_spec : NULL;
	int error;

	if (!current->signal)
		return -ENOSYS;
	if (!new_setting)
		return -EINVAL;
	if (get_itimerspec64(&new_spec, new_setting))
		return -EFAULT;
	error = do_timer_settime(timer_id, flags, &new_spec, rtn);
	if (!error && old_setting && put_itimerspec64(&old_spec, old_setting))
		error = -EFAULT;
	return error;
}

noinline int common_timer_del(struct k_itimer *timer)
{
	const struct k_clock *kc = timer->kclock;

	timer->it_interval = 0;
	if (kc->timer_try_to_cancel(timer) < 0)
		return TIMER_RETRY;
	timer->it_active = 0;
	return 0;
}

static inline int timer_delete_hook(struct k_itimer *timer)
{
	return timer->kclock->timer_del(timer);
}

SYSCALL_DEFINE1(timer_delete, timer_t, timer_id)
{
	struct k_itimer *timer;
	unsigned long flags;

	if (!current->signal)
		return -ENOSYS;
	timer = lock_timer(timer_id, &flags);
retry_delete:
	if (!timer)
		return -EINVAL;
	if (unlikely(timer_delete_hook(timer) == TIMER_RETRY)) {
		timer = timer_wait_running(timer, &flags);
		goto retry_delete;
	}
	spin_lock(&siglock);
	list_del(&timer->list);
	spin_unlock(&siglock);
	timer->it_signal = NULL;	/* a waiter on its lock finds it gone */
	unlock_timer(timer, flags);
	release_posix_timer(timer, IT_ID_SET);
	return 0;
}

/* (inlined in 6.1) the group's last thread is gone: nobody else reaches the timer */
static __always_inline void itimer_delete(struct k_itimer *timer)
{
	unsigned long flags;

	spin_lock_irqsave(&timer->it_lock, flags);
	while (timer_delete_hook(timer) == TIMER_RETRY) {
		unlock_timer(timer, flags);
		timer->kclock->timer_wait_running(timer);
		spin_lock_irqsave(&timer->it_lock, flags);
	}
	list_del(&timer->list);
	timer->it_signal = NULL;
	unlock_timer(timer, flags);
	release_posix_timer(timer, IT_ID_SET);
}

/* From do_exit() of the group's last thread */
noinline void exit_itimers(struct task_struct *tsk)
{
	LIST_HEAD(timers);
	struct k_itimer *tmr;

	if (list_empty(&tsk->signal->posix_timers))
		return;
	spin_lock_irq(&siglock);	/* (6.1: against /proc/PID/timers readers) */
	list_splice_init(&tsk->signal->posix_timers, &timers);	/* list_replace_init() */
	spin_unlock_irq(&siglock);
	while (!list_empty(&timers)) {
		tmr = list_first_entry(&timers, struct k_itimer, list);
		itimer_delete(tmr);
	}
}
