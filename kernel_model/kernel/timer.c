/*
 * The timer wheel (kernel/time/timer.c): per-cpu bases of 9 levels of 64
 * buckets, each level 8 times coarser than the one below, so that a timer
 * costs O(1) to add and to remove and expires within its level's
 * granularity.  The tick raises TIMER_SOFTIRQ once the base's next expiry
 * is due; run_timer_softirq() then catches the base's clock up with jiffies
 * and calls each expired timer's function (timer:timer_expire_entry/exit).
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/bitops.h"

#define LVL_CLK_SHIFT	3
#define LVL_CLK_DIV	(1UL << LVL_CLK_SHIFT)
#define LVL_CLK_MASK	(LVL_CLK_DIV - 1)
#define LVL_SHIFT(n)	((n) * LVL_CLK_SHIFT)
#define LVL_GRAN(n)	(1UL << LVL_SHIFT(n))
#define LVL_BITS	6
#define LVL_SIZE	(1UL << LVL_BITS)
#define LVL_MASK	(LVL_SIZE - 1)
#define LVL_OFFS(n)	((n) * LVL_SIZE)
#define LVL_DEPTH	9			/* HZ > 100 */
/* the first delta each level takes (the last of the level below) */
#define LVL_START(n)	((LVL_SIZE - 1) << (((n) - 1) * LVL_CLK_SHIFT))
#define WHEEL_TIMEOUT_CUTOFF	(LVL_START(LVL_DEPTH))
#define WHEEL_TIMEOUT_MAX	(WHEEL_TIMEOUT_CUTOFF - LVL_GRAN(LVL_DEPTH - 1))
#define WHEEL_SIZE	(LVL_SIZE * LVL_DEPTH)
#define NEXT_TIMER_MAX_DELTA	((1UL << 30) - 1)

struct timer_base {
	raw_spinlock_t lock;
	struct timer_list *running_timer;
	unsigned long clk;		/* the next jiffy whose buckets are due */
	unsigned long next_expiry;	/* the earliest bucket's expiry */
	unsigned int cpu;
	bool timers_pending;
	unsigned long pending_map[WHEEL_SIZE / 64];
	struct list_head vectors[WHEEL_SIZE];
};

volatile u64 jiffies_64 __aligned(64) = INITIAL_JIFFIES;

/* per cpu: the standard base, and the deferrable timers', which never wake an idle cpu */
enum { BASE_STD, BASE_DEF, NR_BASES };
static struct timer_base timer_bases[NR_CPUS][NR_BASES];

static __always_inline unsigned int timer_get_idx(struct timer_list *timer)
{
	return (timer->flags & TIMER_ARRAYMASK) >> TIMER_ARRAYSHIFT;
}

static __always_inline void timer_set_idx(struct timer_list *timer, unsigned int idx)
{
	timer->flags = (timer->flags & ~TIMER_ARRAYMASK) | idx << TIMER_ARRAYSHIFT;
}

/* The bucket of expires at level lvl, rounded up so that the timer never fires early. */
static __always_inline unsigned int calc_index(unsigned long expires, unsigned int lvl,
					       unsigned long *bucket_expiry)
{
	expires = (expires >> LVL_SHIFT(lvl)) + 1;
	*bucket_expiry = expires << LVL_SHIFT(lvl);
	return LVL_OFFS(lvl) + (expires & LVL_MASK);
}

static noinline unsigned int calc_wheel_index(unsigned long expires, unsigned long clk,
				     unsigned long *bucket_expiry)
{
	unsigned long delta = expires - clk;
	unsigned int lvl;

	if ((long)delta < 0) {
		*bucket_expiry = clk;
		return clk & LVL_MASK;
	}
	for (lvl = 0; lvl < LVL_DEPTH - 1; lvl++)
		if (delta < LVL_START(lvl + 1))
			return calc_index(expires, lvl, bucket_expiry);
	if (delta >= WHEEL_TIMEOUT_CUTOFF)
		expires = clk + WHEEL_TIMEOUT_MAX;
	return calc_index(expires, LVL_DEPTH - 1, bucket_expiry);
}

/* The distance from clk to the next pending bucket of a level (wrapping), or -1. */
static int next_pending_bucket(struct timer_base *base, unsigned int offset, unsigned int clk)
{
	unsigned int pos, start = offset + clk, end = offset + LVL_SIZE;

	pos = find_next_bit(base->pending_map, end, start);
	if (pos < end)
		return pos - start;
	pos = find_next_bit(base->pending_map, start, offset);
	return pos < start ? pos + LVL_SIZE - start : -1;
}

/* The earliest expiry of a pending bucket, level by level (a coarser level's clock rounds up). */
static noinline unsigned long __next_timer_interrupt(struct timer_base *base)
{
	unsigned long clk = base->clk, next = base->clk + NEXT_TIMER_MAX_DELTA;
	unsigned int lvl, offset = 0;

	for (lvl = 0; lvl < LVL_DEPTH; lvl++, offset += LVL_SIZE) {
		int pos = next_pending_bucket(base, offset, clk & LVL_MASK);
		unsigned long lvl_clk = clk & LVL_CLK_MASK;

		if (pos >= 0) {
			unsigned long tmp = (clk + (unsigned long)pos) << LVL_SHIFT(lvl);

			if (time_before(tmp, next))
				next = tmp;
			/* it expires before this level's clock carries into the next */
			if ((unsigned long)pos <= ((LVL_CLK_DIV - lvl_clk) & LVL_CLK_MASK))
				break;
		}
		clk >>= LVL_CLK_SHIFT;
		clk += lvl_clk != 0;
	}
	base->timers_pending = next != base->clk + NEXT_TIMER_MAX_DELTA;
	return next;
}

static noinline void enqueue_timer(struct timer_base *base, struct timer_list *timer, unsigned int idx,
			  unsigned long bucket_expiry)
{
	list_add_tail(&timer->entry, &base->vectors[idx]);
	base->pending_map[idx / 64] |= 1UL << (idx % 64);
	timer_set_idx(timer, idx);
	trace_timer_start(timer, timer->expires, timer->flags);
	if (time_before(bucket_expiry, base->next_expiry)) {
		base->next_expiry = bucket_expiry;
		base->timers_pending = true;
	}
}

static void internal_add_timer(struct timer_base *base, struct timer_list *timer)
{
	unsigned long bucket_expiry;
	unsigned int idx = calc_wheel_index(timer->expires, base->clk, &bucket_expiry);

	enqueue_timer(base, timer, idx, bucket_expiry);
}

static notrace void detach_timer(struct timer_list *timer, bool clear_pending)
{
	struct list_head *entry = &timer->entry;

	trace_timer_cancel(timer);
	entry->prev->next = entry->next;
	entry->next->prev = entry->prev;
	if (clear_pending)
		WRITE_ONCE(entry->next, NULL);
}

/* Off its bucket (and the bucket off the pending map once empty); 1 if it was pending. */
static int detach_if_pending(struct timer_list *timer, struct timer_base *base, bool clear_pending)
{
	unsigned int idx = timer_get_idx(timer);

	if (!timer_pending(timer))
		return 0;
	if (timer->entry.next == timer->entry.prev && timer->entry.next == &base->vectors[idx])
		base->pending_map[idx / 64] &= ~(1UL << (idx % 64));
	detach_timer(timer, clear_pending);
	return 1;
}

void init_timer_key(struct timer_list *timer, void (*func)(struct timer_list *), unsigned int flags,
		    const char *name, void *key)
{
	trace_timer_init(timer);
	timer->entry.next = NULL;
	timer->function = func;
	timer->flags = (flags & ~TIMER_BASEMASK) | smp_processor_id();
}

static __always_inline struct timer_base *get_timer_cpu_base(u32 tflags, unsigned int cpu)
{
	return &timer_bases[cpu][tflags & TIMER_DEFERRABLE ? BASE_DEF : BASE_STD];
}

static __always_inline struct timer_base *get_timer_base(u32 tflags)
{
	return get_timer_cpu_base(tflags, tflags & TIMER_CPUMASK);
}

/* An idle base's clock fell behind jiffies: catch it up (to its next expiry at most). */
static void forward_timer_base(struct timer_base *base)
{
	unsigned long jnow = READ_ONCE(jiffies);

	if ((long)(jnow - base->clk) < 1)
		return;
	if (time_after(base->next_expiry, jnow))
		base->clk = jnow;
	else if (!time_before(base->next_expiry, base->clk))
		base->clk = base->next_expiry;
}

/* The timer's base, locked: not while it migrates to another cpu's (TIMER_MIGRATING), and
 * the base it names once locked */
static noinline struct timer_base *lock_timer_base(struct timer_list *timer, unsigned long *flags)
{
	for (;;) {
		u32 tf = READ_ONCE(timer->flags);
		struct timer_base *base;

		if (!(tf & TIMER_MIGRATING)) {
			base = get_timer_base(tf);
			raw_spin_lock_irqsave(&base->lock, *flags);
			if (timer->flags == tf)
				return base;
			raw_spin_unlock_irqrestore(&base->lock, *flags);
		}
		cpu_relax();
	}
}

static notrace int __mod_timer(struct timer_list *timer, unsigned long expires, int cpu)
{
	struct timer_base *base, *new_base;
	unsigned long flags;
	int ret;

	base = lock_timer_base(timer, &flags);
	ret = detach_if_pending(timer, base, false);
	new_base = get_timer_cpu_base(timer->flags, cpu);
	if (base != new_base) {
		/* to the other cpu's base: unlocked here, locked there, marked meanwhile */
		timer->flags |= TIMER_MIGRATING;
		raw_spin_unlock(&base->lock);
		base = new_base;
		raw_spin_lock(&base->lock);
		timer->flags = (timer->flags & ~TIMER_BASEMASK) | base->cpu;
	}
	forward_timer_base(base);
	timer->expires = expires;
	internal_add_timer(base, timer);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/* (Re)arm on this cpu (a pinned timer stays on its own); 1 if it was pending. */
noinline int mod_timer(struct timer_list *timer, unsigned long expires)
{
	int cpu = timer->flags & TIMER_PINNED ? (int)(timer->flags & TIMER_CPUMASK) : smp_processor_id();

	return __mod_timer(timer, expires, cpu);
}

noinline void add_timer(struct timer_list *timer)
{
	mod_timer(timer, timer->expires);
}

void add_timer_on(struct timer_list *timer, int cpu)
{
	__mod_timer(timer, timer->expires, cpu);
}

/* Deactivate a timer (del_timer()): 1 if it was pending; its callback may still run elsewhere */
noinline int timer_delete(struct timer_list *timer)
{
	struct timer_base *base;
	unsigned long flags;
	int ret = 0;

	if (timer_pending(timer)) {	/* __timer_delete() */
		base = lock_timer_base(timer, &flags);
		ret = detach_if_pending(timer, base, true);
		raw_spin_unlock_irqrestore(&base->lock, flags);
	}
	return ret;
}

/* ... and its callback done: while it runs (on another cpu), wait and try again
 * (__try_to_del_timer_sync() inlined; no PREEMPT_RT expiry lock: cpu_relax()) */
noinline int __timer_delete_sync(struct timer_list *timer, bool shutdown)
{
	struct timer_base *base;
	unsigned long flags;
	int ret;

	do {
		ret = -1;
		base = lock_timer_base(timer, &flags);
		if (base->running_timer != timer) {
			ret = detach_if_pending(timer, base, true);
			if (shutdown)
				timer->function = NULL;
		}
		raw_spin_unlock_irqrestore(&base->lock, flags);
		if (unlikely(ret < 0))
			cpu_relax();	/* del_timer_wait_running() */
	} while (ret < 0);
	return ret;
}

static noinline void call_timer_fn(struct timer_list *timer, void (*fn)(struct timer_list *), unsigned long baseclk)
{
	trace_timer_expire_entry(timer, baseclk);
	fn(timer);
	trace_timer_expire_exit(timer);
}

/* base->lock held, interrupts off; dropped around each function */
static void expire_timers(struct timer_base *base, struct list_head *head)
{
	unsigned long baseclk = base->clk - 1;	/* the clock the timers expired at */

	while (!list_empty(head)) {
		struct timer_list *timer = list_first_entry(head, struct timer_list, entry);
		void (*fn)(struct timer_list *) = timer->function;

		base->running_timer = timer;
		detach_timer(timer, true);
		raw_spin_unlock_irq(&base->lock);
		call_timer_fn(timer, fn, baseclk);
		raw_spin_lock_irq(&base->lock);
		base->running_timer = NULL;
	}
}

/* The due buckets at base->next_expiry, moved onto heads (one per level); how many. */
static int collect_expired_timers(struct timer_base *base, struct list_head *heads)
{
	unsigned long clk = base->clk = base->next_expiry;
	int i, levels = 0;

	for (i = 0; i < LVL_DEPTH; i++) {
		unsigned int idx = (clk & LVL_MASK) + i * LVL_SIZE;

		if (base->pending_map[idx / 64] & (1UL << (idx % 64))) {
			struct list_head *vec = &base->vectors[idx];

			base->pending_map[idx / 64] &= ~(1UL << (idx % 64));
			INIT_LIST_HEAD(&heads[levels]);
			/* the bucket's list moves whole */
			heads[levels].next = vec->next;
			heads[levels].prev = vec->prev;
			vec->next->prev = &heads[levels];
			vec->prev->next = &heads[levels];
			INIT_LIST_HEAD(vec);
			levels++;
		}
		if (clk & LVL_CLK_MASK)
			break;
		clk >>= LVL_CLK_SHIFT;
	}
	return levels;
}

static notrace noinline void __run_timers(struct timer_base *base)
{
	struct list_head heads[LVL_DEPTH];
	int levels;

	if (time_before(jiffies, base->next_expiry))
		return;
	raw_spin_lock_irq(&base->lock);
	while (time_after_eq(jiffies, base->clk) && time_after_eq(jiffies, base->next_expiry)) {
		levels = collect_expired_timers(base, heads);
		base->clk++;
		base->next_expiry = __next_timer_interrupt(base);
		while (levels--)
			expire_timers(base, heads + levels);
	}
	raw_spin_unlock_irq(&base->lock);
}

static void run_timer_softirq(struct softirq_action *h)
{
	struct timer_base *bases = timer_bases[smp_processor_id()];

	__run_timers(&bases[BASE_STD]);
	__run_timers(&bases[BASE_DEF]);
}

/* From the tick: the wheel's work is due. */
notrace void run_local_timers(void)
{
	struct timer_base *bases = timer_bases[smp_processor_id()];

	if (time_before(jiffies, READ_ONCE(bases[BASE_STD].next_expiry)) &&
	    time_before(jiffies, READ_ONCE(bases[BASE_DEF].next_expiry)))
		return;
	raise_softirq(TIMER_SOFTIRQ);
}

/* ns of the clock at which this cpu's next timer is due, for a cpu going idle (the
 * deferrable ones wait for it to wake anyway). */
u64 get_next_timer_interrupt(unsigned long basej, u64 basem)
{
	struct timer_base *base = &timer_bases[smp_processor_id()][BASE_STD];
	unsigned long flags, nextevt;
	u64 expires = KTIME_MAX;

	raw_spin_lock_irqsave(&base->lock, flags);
	nextevt = base->next_expiry;
	if (base->timers_pending) {
		if (time_before_eq(nextevt, basej))
			expires = basem;
		else
			expires = basem + (u64)(nextevt - basej) * TICK_NSEC;
	}
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return expires;
}

/* ---- sleeping for jiffies ---- */
struct process_timer {
	struct timer_list timer;
	struct task_struct *task;
};

static void process_timeout(struct timer_list *t)
{
	struct process_timer *timeout = container_of(t, struct process_timer, timer);

	wake_up_process(timeout->task);
}

/* Sleep (in the state the caller set) for timeout jiffies at most; the jiffies left. */
long __sched schedule_timeout(long timeout)
{
	struct process_timer timer;
	unsigned long expire;

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	if (timeout < 0) {
		set_current_state(TASK_RUNNING);
		return 0;
	}
	expire = timeout + jiffies;
	timer.task = current;
	timer_setup(&timer.timer, process_timeout, 0);
	timer.timer.expires = expire;
	add_timer(&timer.timer);
	schedule();
	del_timer_sync(&timer.timer);	/* (an on-stack timer: its callback must be done) */
	timeout = expire - jiffies;
	return timeout < 0 ? 0 : timeout;
}

/* A sleep no signal ends (the allocator's wait for another task's OOM kill) */
noinline long __sched schedule_timeout_uninterruptible(long timeout)
{
	set_current_state(TASK_UNINTERRUPTIBLE);
	return schedule_timeout(timeout);
}

long __sched schedule_timeout_idle(long timeout)
{
	set_current_state(TASK_IDLE);
	return schedule_timeout(timeout);
}

/* A whole second where it makes no difference, so that timers of all cpus fire together. */
noinline unsigned long __round_jiffies_relative(unsigned long j, int cpu)
{
	unsigned long j0 = jiffies, abs = j + j0, original = abs, rem;

	abs += cpu * 3;		/* skew the cpus a little, not all at the same jiffy */
	rem = abs % HZ;
	abs = rem < HZ / 4 ? abs - rem : abs - rem + HZ;
	abs -= cpu * 3;
	if (time_before_eq(abs, jiffies))
		abs = original;
	return abs - j0;
}

unsigned long round_jiffies_relative(unsigned long j)
{
	return __round_jiffies_relative(j, smp_processor_id());
}

void __init init_timers(void)
{
	int cpu, b, i;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (b = 0; b < NR_BASES; b++) {
			struct timer_base *base = &timer_bases[cpu][b];

			base->cpu = cpu;
			base->clk = jiffies;
			base->next_expiry = base->clk + NEXT_TIMER_MAX_DELTA;
			for (i = 0; i < (int)WHEEL_SIZE; i++)
				INIT_LIST_HEAD(&base->vectors[i]);
		}
	open_softirq(TIMER_SOFTIRQ, run_timer_softirq);
}
