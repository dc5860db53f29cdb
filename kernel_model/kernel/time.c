/*
 * The clock and hrtimers (kernel/time/timekeeping.c, hrtimer.c): per-cpu
 * queues of hrtimers sorted by expiry, the local APIC timer programmed for
 * the first (its interrupt runs hrtimer_interrupt()), and the sleeps built
 * on them: nanosleep, schedule_hrtimeout_range().  Every timer's life shows
 * in the timer:hrtimer_* events, as in Linux 6.1.
 */
#include "../include/syscalls.h"
#include "../include/clockchips.h"
#include "../include/trace/trace.h"
#include "../include/session.h"

/* ktime_get(): CLOCK_MONOTONIC, the machine's clock within the slice too (as the trace clock
 * and bpf_ktime_get_ns() read it: a sleep they time is never short), never below its last
 * read on this cpu (the TSC's extrapolation and the host's next now_ns may differ by a few ns) */
/* kernel/time/time.c: jiffies in microseconds (HZ divides USEC_PER_SEC) */
noinline unsigned int jiffies_to_usecs(const unsigned long j)
{
	return j * (USEC_PER_SEC / HZ);
}

notrace u64 ktime_get(void)
{
	struct percpu *pc = this_cpu();
	u64 now = machine_clock_now(pc), last = READ_ONCE(pc->ktime_last);

	now += (last - now) & -(u64)(now < last);
	WRITE_ONCE(pc->ktime_last, now);
	return now;
}

/*
 * ---- the timekeeper's readers (kernel/time/timekeeping.c) ----
 * CLOCK_MONOTONIC is the machine's clock; the others add tk_offs() (kernel.h); RAW is
 * MONOTONIC (no NTP slewing).  The coarse readers give the time of the last jiffies update
 * (6.1's tk_xtime(), which the tick advances).
 */
static __always_inline struct timespec64 ns_to_ts(u64 ns)
{
	return (struct timespec64){ .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };
}

noinline void ktime_get_real_ts64(struct timespec64 *ts)
{
	*ts = ns_to_ts(ktime_get() + tk_offs(TK_OFFS_REAL));
}

noinline void ktime_get_ts64(struct timespec64 *ts)
{
	*ts = ns_to_ts(ktime_get());
}

noinline void ktime_get_raw_ts64(struct timespec64 *ts)
{
	*ts = ns_to_ts(ktime_get());
}

noinline void ktime_get_coarse_real_ts64(struct timespec64 *ts)
{
	*ts = ns_to_ts(ktime_get_coarse_ns() + tk_offs(TK_OFFS_REAL));
}

noinline void ktime_get_coarse_ts64(struct timespec64 *ts)
{
	*ts = ns_to_ts(ktime_get_coarse_ns());
}

/* the seconds of CLOCK_REALTIME, as of the last update (6.1's tk->xtime_sec) */
noinline time64_t ktime_get_real_seconds(void)
{
	return (ktime_get_coarse_ns() + tk_offs(TK_OFFS_REAL)) / NSEC_PER_SEC;
}

/* ktime_get_real(), ktime_get_boottime(), ktime_get_clocktai(): the monotonic clock plus one of
 * the timekeeper's offsets */
noinline ktime_t ktime_get_with_offset(enum tk_offsets offs)
{
	return ktime_get() + tk_offs(offs);
}

/* ---- kernel/time/time.c: conversions, and timespecs to and from user space ---- */
/* jiffies as a timespec (sched_rr_get_interval's slice) */
noinline void jiffies_to_timespec64(const unsigned long jiffies, struct timespec64 *value)
{
	u64 ns = (u64)jiffies * TICK_NSEC;

	value->tv_sec = ns / NSEC_PER_SEC;
	value->tv_nsec = ns % NSEC_PER_SEC;
}

/* nanoseconds in USER_HZ's clock ticks (times(2), /proc/<pid>/stat, /proc/stat) */
noinline u64 nsec_to_clock_t(u64 x)
{
	return x / (NSEC_PER_SEC / USER_HZ);
}

noinline struct timespec64 ns_to_timespec64(s64 nsec)
{
	struct timespec64 ts = { 0, 0 };
	s32 rem;

	if (likely(nsec > 0)) {
		ts.tv_sec = (u64)nsec / NSEC_PER_SEC;
		ts.tv_nsec = (u64)nsec % NSEC_PER_SEC;
	} else if (nsec < 0) {	/* the remainder negative: one second less, a positive remainder */
		ts.tv_sec = -((-nsec - 1) / NSEC_PER_SEC) - 1;
		rem = (-nsec - 1) % NSEC_PER_SEC;
		ts.tv_nsec = NSEC_PER_SEC - rem - 1;
	}
	return ts;
}

noinline int get_timespec64(struct timespec64 *ts, const struct __kernel_timespec *uts)
{
	struct __kernel_timespec kts;

	if (copy_from_user(&kts, uts, sizeof(kts)))
		return -EFAULT;
	ts->tv_sec = kts.tv_sec;
	ts->tv_nsec = kts.tv_nsec;	/* (only a compat call drops the upper half) */
	return 0;
}

noinline int put_timespec64(const struct timespec64 *ts, struct __kernel_timespec *uts)
{
	struct __kernel_timespec kts = { .tv_sec = ts->tv_sec, .tv_nsec = ts->tv_nsec };

	return copy_to_user(uts, &kts, sizeof(kts)) ? -EFAULT : 0;
}

static raw_spinlock_t hrtimer_lock;	/* every cpu's queue (one lock, as the scheduler's) */

static __always_inline struct list_head *hrtimer_queue(int cpu)
{
	return &cpu_data[cpu].timers;
}

static noinline void __hrtimer_init(struct hrtimer *timer, clockid_t clock_id, enum hrtimer_mode mode)
{
	memset(timer, 0, sizeof(*timer));
	INIT_LIST_HEAD(&timer->node);
	timer->is_rel = mode & HRTIMER_MODE_REL;
	timer->is_hard = !!(mode & HRTIMER_MODE_HARD);
}

void hrtimer_init(struct hrtimer *timer, clockid_t clock_id, enum hrtimer_mode mode)
{
	trace_hrtimer_init(timer, clock_id, mode);	/* debug_init() */
	__hrtimer_init(timer, clock_id, mode);
}

/* The first expiry of a cpu's queue (6.1's per clock base; one sorted queue here) */
static noinline ktime_t __hrtimer_next_event_base(int cpu)
{
	struct list_head *q = hrtimer_queue(cpu);

	return list_empty(q) ? KTIME_MAX : list_first_entry(q, struct hrtimer, node)->expires;
}

/* The cpu's next hrtimer event; hrtimer_lock held */
static noinline ktime_t hrtimer_update_next_event(int cpu)
{
	return __hrtimer_next_event_base(cpu);	/* __hrtimer_get_next_event(), inlined */
}

/* This cpu's tick device (the local APIC timer) programmed for expires; none due (KTIME_MAX):
 * stopped */
noinline int tick_program_event(ktime_t expires, int force)
{
	struct clock_event_device *dev = &lapic_events[smp_processor_id()];

	if (unlikely(expires == KTIME_MAX)) {
		dev->next_event = KTIME_MAX;	/* clockevents_switch_state(ONESHOT_STOPPED) */
		dev->set_next_event(KTIME_MAX, dev);
		return 0;
	}
	return clockevents_program_event(dev, expires);
}

/* The local timer fires for the first timer of this cpu's queue; callers hold hrtimer_lock. */
static noinline void hrtimer_reprogram(int cpu)
{
	ktime_t next = hrtimer_update_next_event(cpu);

	if (cpu == smp_processor_id() && next != lapic_events[cpu].next_event)
		tick_program_event(next, 1);
}

/* true: it is the first of its queue now */
static bool enqueue_hrtimer(struct hrtimer *timer, int cpu, enum hrtimer_mode mode, bool was_armed)
{
	struct list_head *q = hrtimer_queue(cpu);
	struct hrtimer *pos;

	trace_hrtimer_start(timer, mode, was_armed);
	timer->cpu = cpu;
	WRITE_ONCE(timer->state, HRTIMER_STATE_ENQUEUED);
	list_for_each_entry(pos, q, node)
		if (pos->expires > timer->expires)
			break;
	list_add_tail(&timer->node, &pos->node);
	return q->next == &timer->node;
}

static noinline void __remove_hrtimer(struct hrtimer *timer, u8 newstate)
{
	list_del_init(&timer->node);
	WRITE_ONCE(timer->state, newstate);
}

/* true: it was queued.  (The event is hrtimer_try_to_cancel()'s, as in 6.1: a restart and an
 * expiry take the timer off without one.) */
static notrace bool remove_hrtimer(struct hrtimer *timer)
{
	if (!(timer->state & HRTIMER_STATE_ENQUEUED))
		return false;
	__remove_hrtimer(timer, HRTIMER_STATE_INACTIVE);
	return true;
}

/*
 * Queue the timer on `cpu` (a pinned timer started for another cpu: perf's per-cpu events are
 * scheduled in from wherever their owner runs); when it is that cpu's first, the cpu is
 * reprogrammed here, or woken (an idle one looks at its timers again; a busy one's tick runs
 * them).
 */
notrace void hrtimer_start_on(struct hrtimer *timer, ktime_t tim, u64 delta_ns, enum hrtimer_mode mode, int cpu)
{
	unsigned long flags;
	bool was_armed, first;

	raw_spin_lock_irqsave(&hrtimer_lock, flags);
	was_armed = remove_hrtimer(timer);
	if (mode & HRTIMER_MODE_REL)
		tim += ktime_get();
	hrtimer_set_expires_range_ns(timer, tim, delta_ns);
	first = enqueue_hrtimer(timer, cpu, mode, was_armed);
	/* not only when first: a timer another cpu queued here ahead of it may not be programmed
	 * yet (its kick found the tick's timer there, which this restarts behind it) */
	hrtimer_reprogram(cpu);
	raw_spin_unlock_irqrestore(&hrtimer_lock, flags);
	if (first && cpu != smp_processor_id())
		smp_send_reschedule(cpu);
}

noinline void hrtimer_start_range_ns(struct hrtimer *timer, ktime_t tim, u64 delta_ns, enum hrtimer_mode mode)
{
	hrtimer_start_on(timer, tim, delta_ns, mode, smp_processor_id());
}

static struct hrtimer *hrtimer_running[NR_CPUS];	/* the timer whose callback each cpu runs */

static __always_inline bool __hrtimer_callback_running(const struct hrtimer *timer)
{
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (READ_ONCE(hrtimer_running[cpu]) == timer)
			return true;
	return false;
}

/* 1: it was queued and is not any more; 0: it was neither queued nor running; -1: its callback
 * runs now (on another cpu), so it could not be stopped */
noinline int hrtimer_try_to_cancel(struct hrtimer *timer)
{
	unsigned long flags;
	int ret = -1;

	if (!hrtimer_active(timer) && !__hrtimer_callback_running(timer))	/* lockless first */
		return 0;
	raw_spin_lock_irqsave(&hrtimer_lock, flags);
	if (!__hrtimer_callback_running(timer)) {
		ret = remove_hrtimer(timer);
		if (ret)
			trace_hrtimer_cancel(timer);
	}
	raw_spin_unlock_irqrestore(&hrtimer_lock, flags);
	return ret;
}

/* (A callback running on another cpu is not waited for here, unlike 6.1's: the callers that
 * must wait use hrtimer_cancel_wait_running.) */
noinline int hrtimer_cancel(struct hrtimer *timer)
{
	int ret = hrtimer_try_to_cancel(timer);

	return ret < 0 ? 0 : ret;
}

/*
 * hrtimer_cancel() as 6.1's waits: a callback running on another cpu is waited for, and the
 * timer it queued again as it ended taken off (checked under the lock its end holds); never
 * from the timer's own callback.
 */
notrace int hrtimer_cancel_wait_running(struct hrtimer *timer)
{
	unsigned long flags;
	bool running;
	int ret;

	for (;;) {
		raw_spin_lock_irqsave(&hrtimer_lock, flags);
		ret = remove_hrtimer(timer);
		if (ret)
			trace_hrtimer_cancel(timer);	/* (6.1's hrtimer_try_to_cancel, in a loop) */
		running = hrtimer_callback_running(timer);
		raw_spin_unlock_irqrestore(&hrtimer_lock, flags);
		if (!running)
			return ret;
		cpu_relax();
	}
}

/* The time left until the timer expires, read under the queues' lock (its clock's now: the
 * monotonic clock here, the only one timers run on; 6.1's adjust for a CLOCK_REALTIME timer's
 * offset has nothing to add) */
noinline ktime_t __hrtimer_get_remaining(const struct hrtimer *timer, bool adjust)
{
	unsigned long flags;
	ktime_t rem;

	raw_spin_lock_irqsave(&hrtimer_lock, flags);
	rem = timer->expires - ktime_get();
	raw_spin_unlock_irqrestore(&hrtimer_lock, flags);
	return rem;
}

/* Move the expiry past now by whole intervals; the number of intervals. */
u64 hrtimer_forward(struct hrtimer *timer, ktime_t now, ktime_t interval)
{
	u64 orun = 1;
	s64 delta = now - timer->expires;

	if (delta < 0)
		return 0;
	if (delta >= interval) {
		orun = delta / interval;
		timer->expires += orun * interval;
		timer->softexpires += orun * interval;
		if (timer->expires > now)
			return orun;
		orun++;
	}
	timer->expires += interval;
	timer->softexpires += interval;
	return orun;
}

notrace u64 hrtimer_next_event(int cpu)
{
	struct list_head *h = hrtimer_queue(cpu);
	u64 next = KTIME_MAX;
	unsigned long flags;

	raw_spin_lock_irqsave(&hrtimer_lock, flags);
	if (!list_empty(h))
		next = list_first_entry(h, struct hrtimer, node)->expires;
	raw_spin_unlock_irqrestore(&hrtimer_lock, flags);
	return next;
}

/* hrtimer_running[]: the timer whose callback each cpu runs (hrtimer_cpu_base's `running`) */

/* hrtimer_callback_running(): whether some cpu runs the timer's callback now */
notrace noinline bool hrtimer_callback_running(struct hrtimer *timer)
{
	return __hrtimer_callback_running(timer);
}

/* hrtimer_lock held and interrupts off on entry and exit; dropped while the callback runs. */
static void __run_hrtimer(struct hrtimer *timer, ktime_t *now)
{
	enum hrtimer_restart (*fn)(struct hrtimer *) = timer->function;
	enum hrtimer_restart restart;
	int cpu = smp_processor_id();

	__remove_hrtimer(timer, HRTIMER_STATE_INACTIVE);	/* (debug_deactivate(): no event in 6.1) */
	WRITE_ONCE(hrtimer_running[cpu], timer);
	raw_spin_unlock(&hrtimer_lock);
	trace_hrtimer_expire_entry(timer, now);
	restart = fn(timer);
	trace_hrtimer_expire_exit(timer);
	raw_spin_lock(&hrtimer_lock);
	WRITE_ONCE(hrtimer_running[cpu], NULL);
	if (restart != HRTIMER_NORESTART && !(timer->state & HRTIMER_STATE_ENQUEUED))
		enqueue_hrtimer(timer, smp_processor_id(), HRTIMER_MODE_ABS, false);
}

static noinline void __hrtimer_run_queues(ktime_t now)
{
	struct list_head *q = hrtimer_queue(smp_processor_id());

	while (!list_empty(q)) {
		struct hrtimer *timer = list_first_entry(q, struct hrtimer, node);

		if (now < timer->softexpires)
			break;
		__run_hrtimer(timer, &now);
	}
}

/* The local timer's event handler: the expired timers, then the timer for the next. */
void hrtimer_interrupt(struct clock_event_device *dev)
{
	ktime_t now = ktime_get();

	raw_spin_lock(&hrtimer_lock);
	dev->next_event = KTIME_MAX;
	__hrtimer_run_queues(now);
	hrtimer_reprogram(smp_processor_id());	/* hrtimer_update_next_event, tick_program_event */
	raw_spin_unlock(&hrtimer_lock);
}

/* ---- sleeping ---- */
static enum hrtimer_restart hrtimer_wakeup(struct hrtimer *timer)
{
	struct hrtimer_sleeper *t = container_of(timer, struct hrtimer_sleeper, timer);
	struct task_struct *task = t->task;

	t->task = NULL;
	if (task)
		wake_up_process(task);
	return HRTIMER_NORESTART;
}

noinline void hrtimer_init_sleeper(struct hrtimer_sleeper *sl, clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(&sl->timer, clock_id, mode);
	sl->timer.function = hrtimer_wakeup;
	sl->task = current;
}

noinline void hrtimer_sleeper_start_expires(struct hrtimer_sleeper *sl, enum hrtimer_mode mode)
{
	hrtimer_start_range_ns(&sl->timer, sl->timer.softexpires, sl->timer.expires - sl->timer.softexpires, mode);
}

noinline int __sched schedule_hrtimeout_range_clock(ktime_t *expires, u64 delta, enum hrtimer_mode mode, clockid_t clock_id)
{
	struct hrtimer_sleeper t;
	ktime_t when;

	if (!expires) {
		schedule();
		return -EINTR;
	}
	hrtimer_init_sleeper(&t, clock_id, mode);
	/* the one clock base is monotonic: another clock's absolute time moves onto it */
	when = *expires;
	if (!(mode & HRTIMER_MODE_REL)) {
		when -= clock_to_monotonic_offset(clock_id);
		if (when < 0)
			when = 0;	/* already past: fires now */
	}
	hrtimer_set_expires_range_ns(&t.timer, when, delta);
	hrtimer_sleeper_start_expires(&t, mode);
	if (likely(t.task))
		schedule();
	hrtimer_cancel(&t.timer);
	set_current_state(TASK_RUNNING);
	return !t.task ? 0 : -EINTR;
}

int __sched schedule_hrtimeout_range(ktime_t *expires, u64 delta, enum hrtimer_mode mode)
{
	return schedule_hrtimeout_range_clock(expires, delta, mode, CLOCK_MONOTONIC);
}

static noinline long __sched do_nanosleep(struct hrtimer_sleeper *t, enum hrtimer_mode mode)
{
	do {
		set_current_state(TASK_INTERRUPTIBLE);
		hrtimer_sleeper_start_expires(t, mode);
		if (likely(t->task))
			schedule();
		hrtimer_cancel(&t->timer);
		mode = HRTIMER_MODE_ABS;
	} while (t->task && !signal_pending(current) && !session_host_moved_on(current));
	set_current_state(TASK_RUNNING);
	if (session_host_moved_on(current))
		return 0;	/* the host's sleep ended: so does this one (its deadline is the host's clock) */
	return t->task ? -EINTR : 0;	/* a signal's handler interrupted it */
}

noinline long hrtimer_nanosleep(ktime_t rqtp, enum hrtimer_mode mode, clockid_t clockid)
{
	struct hrtimer_sleeper t;

	hrtimer_init_sleeper(&t, clockid, mode);
	hrtimer_set_expires_range_ns(&t.timer, rqtp, current->timer_slack_ns);
	return do_nanosleep(&t, mode);
}

SYSCALL_DEFINE2(nanosleep, struct __kernel_timespec *, rqtp, struct __kernel_timespec *, rmtp)
{
	struct timespec64 tu;

	if (get_timespec64(&tu, rqtp))
		return -EFAULT;
	if (!timespec64_valid(&tu))
		return -EINVAL;
	return hrtimer_nanosleep(timespec64_to_ns(&tu), HRTIMER_MODE_REL, CLOCK_MONOTONIC);
}

/* Queued, or its callback running (6.1 reads the base's sequence around the check). */
noinline bool hrtimer_active(const struct hrtimer *timer)
{
	return READ_ONCE(timer->state) != HRTIMER_STATE_INACTIVE;
}
