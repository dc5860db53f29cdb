/*
 * The tick in high-resolution mode, with idle ticks stopped
 * (kernel/time/tick-sched.c): each cpu's tick is an hrtimer,
 * tick_sched_timer(), every TICK_NSEC; the cpu with the do_timer duty
 * advances jiffies.  A cpu going idle stops its tick (timer:tick_stop) and
 * moves the tick's hrtimer to its next timer's expiry instead; it restarts
 * the tick when it leaves idle.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/trace/ring.h"
#include "../include/clockchips.h"
#include "../include/loadavg.h"
#include "../include/cputime.h"

#define TICK_DO_TIMER_NONE	-1

struct tick_sched {
	struct hrtimer sched_timer;
	u64 last_tick;		/* the tick's expiry when it stopped */
	unsigned long idle_jiffies;	/* jiffies when it stopped */
	bool tick_stopped;
	bool inidle;
	unsigned long idle_calls;	/* the idle loop's attempts to stop the tick */
};

static struct tick_sched tick_cpu_sched[NR_CPUS];
static int tick_do_timer_cpu = TICK_DO_TIMER_NONE;	/* the cpu that advances jiffies */
static raw_spinlock_t jiffies_lock;
static u64 tick_next_period = TICK_NSEC;		/* the clock at which jiffies next advance */

/* jiffies as of now: one per TICK_NSEC of the clock since boot */
static void tick_do_update_jiffies64(ktime_t now)
{
	u64 ticks = 0;

	if (now < READ_ONCE(tick_next_period))
		return;
	raw_spin_lock(&jiffies_lock);
	if (now >= tick_next_period) {
		ticks = (now - tick_next_period) / TICK_NSEC + 1;
		WRITE_ONCE(jiffies_64, jiffies_64 + ticks);
		WRITE_ONCE(tick_next_period, tick_next_period + ticks * TICK_NSEC);
	}
	raw_spin_unlock(&jiffies_lock);
	if (ticks)	/* do_timer() */
		calc_global_load();
}

/* ktime_get_coarse_ns(): the clock as of the last jiffies update (6.1's timekeeper advances
 * there), cheap and as coarse as the tick */
notrace u64 ktime_get_coarse_ns(void)
{
	return READ_ONCE(tick_next_period) - TICK_NSEC;
}

static noinline void tick_sched_do_timer(struct tick_sched *ts, ktime_t now)
{
	int cpu = smp_processor_id();

	/* the cpu that had the duty went idle: the next to tick takes it */
	if (unlikely(READ_ONCE(tick_do_timer_cpu) == TICK_DO_TIMER_NONE))
		WRITE_ONCE(tick_do_timer_cpu, cpu);
	if (tick_do_timer_cpu == cpu)
		tick_do_update_jiffies64(now);
}

noinline void update_process_times(int user_tick)
{
	account_process_tick(current, user_tick);
	run_local_timers();
	rcu_sched_clock_irq(user_tick);
	scheduler_tick();
	wake_up_klogd_work_func();	/* (6.1: irq_work_tick, the klogd irq_work) */
	bpf_send_signal_work_func();	/* (... and bpf_send_signal's) */
}

static noinline void tick_sched_handle(struct tick_sched *ts, struct pt_regs *regs)
{
	update_process_times(user_mode(regs));
}

static enum hrtimer_restart tick_sched_timer(struct hrtimer *timer)
{
	struct tick_sched *ts = container_of(timer, struct tick_sched, sched_timer);
	struct pt_regs *regs = this_cpu()->irq_regs;
	ktime_t now = ktime_get();

	tick_sched_do_timer(ts, now);
	if (regs)
		tick_sched_handle(ts, regs);
	trace_ring_tick();
	if (unlikely(ts->tick_stopped))
		return HRTIMER_NORESTART;
	hrtimer_forward(timer, now, TICK_NSEC);
	return HRTIMER_RESTART;
}

/* This cpu's tick starts, aligned to the jiffies' boundaries (on the cpu itself). */
notrace void tick_sched_init(int cpu)
{
	struct tick_sched *ts = &tick_cpu_sched[cpu];
	ktime_t now = ktime_get();

	hrtimer_init(&ts->sched_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
	ts->sched_timer.function = tick_sched_timer;
	hrtimer_set_expires_range_ns(&ts->sched_timer, now - now % TICK_NSEC, 0);
	hrtimer_forward(&ts->sched_timer, now, TICK_NSEC);
	hrtimer_start(&ts->sched_timer, ts->sched_timer.expires, HRTIMER_MODE_ABS_PINNED_HARD);
}

/* An interrupt on an idle cpu: jiffies may be behind (nobody ticked). */
void tick_irq_enter(void)
{
	struct tick_sched *ts = &tick_cpu_sched[smp_processor_id()];

	if (ts->inidle)
		tick_do_update_jiffies64(ktime_get());
}

void tick_nohz_idle_enter(void)
{
	tick_cpu_sched[smp_processor_id()].inidle = true;
}

/* Interrupts off.  The next event other than the tick: a timer of the wheel or an hrtimer. */
static noinline u64 tick_nohz_next_event(struct tick_sched *ts, int cpu, ktime_t now)
{
	unsigned long basej = jiffies;
	u64 basem = READ_ONCE(tick_next_period) - TICK_NSEC;	/* the clock at jiffy basej */
	u64 next_tmr = get_next_timer_interrupt(basej, basem);
	struct hrtimer *t;
	u64 next_hr = KTIME_MAX;

	list_for_each_entry(t, &cpu_data[cpu].timers, node)
		if (t != &ts->sched_timer) {
			next_hr = t->expires;
			break;
		}
	/* RCU callbacks wait: the next tick notices them done; an irq_work (the klogd wake-up)
	 * waits: the next tick runs it */
	if (rcu_needs_cpu() || irq_work_needs_cpu())
		return READ_ONCE(tick_next_period);
	return min(next_tmr, next_hr);
}

static noinline void tick_nohz_stop_tick(struct tick_sched *ts, int cpu, u64 expires)
{
	if (cpu == READ_ONCE(tick_do_timer_cpu))
		WRITE_ONCE(tick_do_timer_cpu, TICK_DO_TIMER_NONE);
	if (!ts->tick_stopped) {
		ts->last_tick = hrtimer_get_expires(&ts->sched_timer);
		ts->idle_jiffies = jiffies;
		ts->tick_stopped = true;
		trace_tick_stop(1, TICK_DEP_MASK_NONE);
	}
	/* the tick's timer wakes the cpu for its next event, or stays off */
	if (expires == KTIME_MAX)
		hrtimer_cancel(&ts->sched_timer);
	else if (expires != hrtimer_get_expires(&ts->sched_timer))
		hrtimer_start(&ts->sched_timer, expires, HRTIMER_MODE_ABS_PINNED_HARD);
}

/* Interrupts off, about to halt: stop the tick unless an event is due within one. */
void tick_nohz_idle_stop_tick(void)
{
	int cpu = smp_processor_id();
	struct tick_sched *ts = &tick_cpu_sched[cpu];
	ktime_t now = ktime_get();
	u64 expires;

	ts->idle_calls++;
	expires = tick_nohz_next_event(ts, cpu, now);
	if (expires <= now + TICK_NSEC && !ts->tick_stopped)
		return;
	tick_nohz_stop_tick(ts, cpu, expires);
}

/* How often the cpu went idle: schedutil's sign that it was not busy all along */
noinline unsigned long tick_nohz_get_idle_calls_cpu(int cpu)
{
	return READ_ONCE(tick_cpu_sched[cpu].idle_calls);
}

/* The tick runs again from the next jiffy boundary after its last one, jiffies brought up to
 * date first (tick_nohz_restart() inlined). */
static noinline void tick_nohz_restart_sched_tick(struct tick_sched *ts, ktime_t now)
{
	tick_do_update_jiffies64(now);
	ts->tick_stopped = false;
	hrtimer_cancel(&ts->sched_timer);
	hrtimer_set_expires_range_ns(&ts->sched_timer, ts->last_tick, 0);
	hrtimer_forward(&ts->sched_timer, now, TICK_NSEC);
	hrtimer_start(&ts->sched_timer, ts->sched_timer.expires, HRTIMER_MODE_ABS_PINNED_HARD);
}

/* The jiffies the stopped tick did not account are the cpu's idle time. */
static noinline void tick_nohz_account_idle_time(struct tick_sched *ts, ktime_t now)
{
	unsigned long ticks = jiffies - ts->idle_jiffies;

	if (ticks > 1)
		account_idle_ticks(ticks);
}

/* Leaving idle: the tick restarts (tick_nohz_idle_update_tick(), inlined). */
void tick_nohz_idle_exit(void)
{
	struct tick_sched *ts = &tick_cpu_sched[smp_processor_id()];
	unsigned long flags = arch_local_irq_save();
	ktime_t now = ktime_get();

	ts->inidle = false;
	if (ts->tick_stopped) {
		tick_nohz_restart_sched_tick(ts, now);
		tick_nohz_account_idle_time(ts, now);
	}
	arch_local_irq_restore(flags);
}
