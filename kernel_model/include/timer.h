/* Time: jiffies, the timer wheel's timer_list (include/linux/timer.h) and
 * hrtimers (include/linux/hrtimer.h). */
#ifndef _TIMER_H
#define _TIMER_H
#include "types.h"
#include "list.h"

#define HZ		250
#define TICK_NSEC	4000000UL
#define USEC_PER_SEC	1000000L
/* include/linux/jiffies.h (HZ divides USEC_PER_SEC) */
unsigned int jiffies_to_usecs(const unsigned long j);	/* kernel/time.c */
static __always_inline unsigned long usecs_to_jiffies(const unsigned int u) { return (u + (USEC_PER_SEC / HZ) - 1) / (USEC_PER_SEC / HZ); }
/* jiffies start 5 minutes before they wrap, so that wrap bugs show early */
#define INITIAL_JIFFIES	((unsigned long)(unsigned int)(-300 * HZ))
extern volatile u64 jiffies_64;
extern volatile unsigned long jiffies;	/* the same word (vmlinux.lds) */
static __always_inline u64 get_jiffies_64(void) { return jiffies_64; }	/* (one load on 64-bit) */
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)
#define time_before_eq(a, b)	time_after_eq(b, a)
#define MAX_SCHEDULE_TIMEOUT	((long)(~0UL >> 1))
#define NSEC_PER_USEC	1000L

/* a time and an interval timer's setting (include/linux/time64.h; uapi's __kernel_timespec) */
struct timespec64 { s64 tv_sec; long tv_nsec; };
struct __kernel_timespec { s64 tv_sec; long tv_nsec; };
struct itimerspec64 { struct timespec64 it_interval, it_value; };

/* what keeps a cpu's tick from stopping (include/linux/tick.h): nothing here does */
enum tick_dep_bits {
	TICK_DEP_BIT_POSIX_TIMER	= 0,
	TICK_DEP_BIT_PERF_EVENTS	= 1,
	TICK_DEP_BIT_SCHED		= 2,
	TICK_DEP_BIT_CLOCK_UNSTABLE	= 3,
	TICK_DEP_BIT_RCU		= 4,
	TICK_DEP_BIT_RCU_EXP		= 5
};
#define TICK_DEP_MASK_NONE		0
#define TICK_DEP_MASK_POSIX_TIMER	(1 << TICK_DEP_BIT_POSIX_TIMER)
#define TICK_DEP_MASK_PERF_EVENTS	(1 << TICK_DEP_BIT_PERF_EVENTS)
#define TICK_DEP_MASK_SCHED		(1 << TICK_DEP_BIT_SCHED)
#define TICK_DEP_MASK_CLOCK_UNSTABLE	(1 << TICK_DEP_BIT_CLOCK_UNSTABLE)
#define TICK_DEP_MASK_RCU		(1 << TICK_DEP_BIT_RCU)
#define TICK_DEP_MASK_RCU_EXP		(1 << TICK_DEP_BIT_RCU_EXP)

typedef s64 ktime_t;
typedef s64 time64_t;
#define KTIME_MAX (~0UL)	/* as an expiry: never */
#define NSEC_PER_SEC	1000000000L
u64 ktime_get(void);
u64 ktime_get_coarse_ns(void);	/* tick_sched.c: the clock at the last jiffies update */

/* ---- timekeeping's readers (kernel/time/timekeeping.c, time.c) ---- */
enum tk_offsets { TK_OFFS_REAL, TK_OFFS_BOOT, TK_OFFS_TAI, TK_OFFS_MAX };
void ktime_get_real_ts64(struct timespec64 *ts);
void ktime_get_ts64(struct timespec64 *ts);
void ktime_get_raw_ts64(struct timespec64 *ts);
void ktime_get_coarse_real_ts64(struct timespec64 *ts);
void ktime_get_coarse_ts64(struct timespec64 *ts);
time64_t ktime_get_real_seconds(void);
ktime_t ktime_get_with_offset(enum tk_offsets offs);
static __always_inline u64 ktime_get_boottime_ns(void) { return ktime_get_with_offset(TK_OFFS_BOOT); }
struct timespec64 ns_to_timespec64(s64 nsec);
#define USER_HZ		100
u64 nsec_to_clock_t(u64 x);
void jiffies_to_timespec64(const unsigned long jiffies, struct timespec64 *value);
int get_timespec64(struct timespec64 *ts, const struct __kernel_timespec *uts);
int put_timespec64(const struct timespec64 *ts, struct __kernel_timespec *uts);
static inline s64 timespec64_to_ns(const struct timespec64 *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}
static inline bool timespec64_valid(const struct timespec64 *ts)
{
	return ts->tv_sec >= 0 && (unsigned long)ts->tv_nsec < NSEC_PER_SEC;
}
static inline bool itimerspec64_valid(const struct itimerspec64 *its)
{
	return timespec64_valid(&its->it_interval) && timespec64_valid(&its->it_value);
}
struct __kernel_itimerspec { struct __kernel_timespec it_interval, it_value; };
int get_itimerspec64(struct itimerspec64 *it, const struct __kernel_itimerspec *uit);
int put_itimerspec64(const struct itimerspec64 *it, struct __kernel_itimerspec *uit);

/* ---- the timer wheel ---- */
#define TIMER_CPUMASK		0x0003FFFF
#define TIMER_MIGRATING		0x00040000
#define TIMER_BASEMASK		(TIMER_CPUMASK | TIMER_MIGRATING)
#define TIMER_DEFERRABLE	0x00080000
#define TIMER_PINNED		0x00100000
#define TIMER_IRQSAFE		0x00200000
#define TIMER_INIT_FLAGS	(TIMER_DEFERRABLE | TIMER_PINNED | TIMER_IRQSAFE)
#define TIMER_ARRAYSHIFT	22
#define TIMER_ARRAYMASK		0xFFC00000
#define TIMER_TRACE_FLAGMASK	(TIMER_MIGRATING | TIMER_DEFERRABLE | TIMER_PINNED | TIMER_IRQSAFE)

struct timer_list {
	struct list_head entry;		/* in its wheel bucket; next is NULL while not pending */
	unsigned long expires;		/* jiffies */
	void (*function)(struct timer_list *);
	u32 flags;			/* cpu, TIMER_* flags, the bucket index */
};

void init_timer_key(struct timer_list *timer, void (*func)(struct timer_list *), unsigned int flags,
		    const char *name, void *key);
#define timer_setup(timer, callback, flags) init_timer_key(timer, callback, flags, NULL, NULL)
static __always_inline bool timer_pending(const struct timer_list *timer)
{
	return READ_ONCE(timer->entry.next) != NULL;
}
void add_timer(struct timer_list *timer);
void add_timer_on(struct timer_list *timer, int cpu);
int mod_timer(struct timer_list *timer, unsigned long expires);
int timer_delete(struct timer_list *timer);
int __timer_delete_sync(struct timer_list *timer, bool shutdown);
static inline int del_timer(struct timer_list *timer) { return timer_delete(timer); }
/* timer_delete_sync() (a sibling call in 6.1's build: __timer_delete_sync's caller is the
 * del_timer_sync() caller's) */
static inline int del_timer_sync(struct timer_list *timer) { return __timer_delete_sync(timer, false); }
void run_local_timers(void);
u64 get_next_timer_interrupt(unsigned long basej, u64 basem);
void init_timers(void);
long schedule_timeout(long timeout);
long schedule_timeout_idle(long timeout);
long schedule_timeout_uninterruptible(long timeout);
unsigned long __round_jiffies_relative(unsigned long j, int cpu);
unsigned long round_jiffies_relative(unsigned long j);

/* ---- hrtimers ---- */
#define CLOCK_REALTIME		0
#define CLOCK_MONOTONIC		1
#define CLOCK_BOOTTIME		7
#define CLOCK_TAI		11
typedef int clockid_t;

enum hrtimer_mode {
	HRTIMER_MODE_ABS	= 0x00,
	HRTIMER_MODE_REL	= 0x01,
	HRTIMER_MODE_PINNED	= 0x02,
	HRTIMER_MODE_SOFT	= 0x04,
	HRTIMER_MODE_HARD	= 0x08,
	HRTIMER_MODE_ABS_PINNED = HRTIMER_MODE_ABS | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_REL_PINNED = HRTIMER_MODE_REL | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_ABS_SOFT	= HRTIMER_MODE_ABS | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_SOFT	= HRTIMER_MODE_REL | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_ABS_PINNED_SOFT = HRTIMER_MODE_ABS_PINNED | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_PINNED_SOFT = HRTIMER_MODE_REL_PINNED | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_ABS_HARD	= HRTIMER_MODE_ABS | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_HARD	= HRTIMER_MODE_REL | HRTIMER_MODE_HARD,
	HRTIMER_MODE_ABS_PINNED_HARD = HRTIMER_MODE_ABS_PINNED | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_PINNED_HARD = HRTIMER_MODE_REL_PINNED | HRTIMER_MODE_HARD,
};
enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };
#define HRTIMER_STATE_INACTIVE	0x00
#define HRTIMER_STATE_ENQUEUED	0x01

struct hrtimer {
	struct list_head node;		/* in its cpu's queue, sorted by expires */
	ktime_t expires;		/* the latest it may fire (softexpires + slack) */
	ktime_t softexpires;		/* the earliest */
	enum hrtimer_restart (*function)(struct hrtimer *);
	int cpu;			/* the queue it is on */
	u8 state;
	u8 is_rel;
	u8 is_hard;
};

/* a task sleeping until its timer fires (hrtimer_wakeup clears task) */
struct hrtimer_sleeper {
	struct hrtimer timer;
	struct task_struct *task;
};

static __always_inline ktime_t hrtimer_get_expires(const struct hrtimer *timer) { return timer->expires; }
static __always_inline ktime_t hrtimer_get_softexpires(const struct hrtimer *timer) { return timer->softexpires; }
static __always_inline void hrtimer_set_expires_range_ns(struct hrtimer *timer, ktime_t time, u64 delta)
{
	timer->softexpires = time;
	timer->expires = time + delta;
}
bool hrtimer_active(const struct hrtimer *timer);

void hrtimer_init(struct hrtimer *timer, clockid_t clock_id, enum hrtimer_mode mode);
void hrtimer_init_sleeper(struct hrtimer_sleeper *sl, clockid_t clock_id, enum hrtimer_mode mode);
void hrtimer_start_range_ns(struct hrtimer *timer, ktime_t tim, u64 delta_ns, enum hrtimer_mode mode);
void hrtimer_start_on(struct hrtimer *timer, ktime_t tim, u64 delta_ns, enum hrtimer_mode mode, int cpu);
static __always_inline void hrtimer_start(struct hrtimer *timer, ktime_t tim, enum hrtimer_mode mode)
{
	hrtimer_start_range_ns(timer, tim, 0, mode);
}
int hrtimer_try_to_cancel(struct hrtimer *timer);
int hrtimer_cancel(struct hrtimer *timer);
int hrtimer_cancel_wait_running(struct hrtimer *timer);	/* waits for a running callback */
bool hrtimer_callback_running(struct hrtimer *timer);
u64 hrtimer_forward(struct hrtimer *timer, ktime_t now, ktime_t interval);
ktime_t __hrtimer_get_remaining(const struct hrtimer *timer, bool adjust);
u64 hrtimer_next_event(int cpu);
int schedule_hrtimeout_range(ktime_t *expires, u64 delta, enum hrtimer_mode mode);
int schedule_hrtimeout_range_clock(ktime_t *expires, u64 delta, enum hrtimer_mode mode, clockid_t clock_id);
long hrtimer_nanosleep(ktime_t rqtp, enum hrtimer_mode mode, clockid_t clockid);

/* The hrtimers run on the monotonic clock here (one clock base): an absolute time of another
 * clock is moved onto it by that clock's offset, fixed since boot (no clock_settime). */
static __always_inline ktime_t clock_to_monotonic_offset(clockid_t clock)
{
	switch (clock) {
	case CLOCK_REALTIME:
		return ktime_get_with_offset(TK_OFFS_REAL) - ktime_get();
	case CLOCK_TAI:
		return ktime_get_with_offset(TK_OFFS_TAI) - ktime_get();
	case CLOCK_BOOTTIME:
		return ktime_get_with_offset(TK_OFFS_BOOT) - ktime_get();
	}
	return 0;
}
#endif
