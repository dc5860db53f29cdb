/* Time: the host-provided virtual clock, per-CPU hrtimers, sleeping. */
#include "../include/kernel.h"
#include "../include/trace/ring.h"

volatile u64 jiffies;
static spinlock_t timer_lock;

notrace u64 ktime_get(void)
{
	return READ_ONCE(this_cpu()->h.now_ns);
}

void hrtimer_init(struct hrtimer *t, void (*fn)(struct hrtimer *))
{
	INIT_LIST_HEAD(&t->node);
	t->function = fn;
	t->active = false;
}

void hrtimer_start(struct hrtimer *t, u64 expires)
{
	struct percpu *pc = this_cpu();
	struct hrtimer *pos;
	unsigned long flags;

	spin_lock_irqsave(&timer_lock, flags);
	if (t->active)
		list_del_init(&t->node);
	t->expires = expires;
	t->cpu = pc->h.cpu;
	t->active = true;
	list_for_each_entry(pos, &pc->timers, node)
		if (pos->expires > expires)
			break;
	list_add_tail(&t->node, &pos->node);
	spin_unlock_irqrestore(&timer_lock, flags);
}

void hrtimer_cancel(struct hrtimer *t)
{
	unsigned long flags;

	spin_lock_irqsave(&timer_lock, flags);
	if (t->active) {
		list_del_init(&t->node);
		t->active = false;
	}
	spin_unlock_irqrestore(&timer_lock, flags);
}

notrace u64 hrtimer_next_event(int cpu)
{
	struct list_head *h = &cpu_data[cpu].timers;
	u64 next = ~0UL;
	unsigned long flags;

	spin_lock_irqsave(&timer_lock, flags);
	if (!list_empty(h))
		next = list_first_entry(h, struct hrtimer, node)->expires;
	spin_unlock_irqrestore(&timer_lock, flags);
	return next;
}

static noinline void tick_sched_timer(void)
{
	/* tick_do_update_jiffies64: idle cpus take no ticks, so catch up from the clock */
	if (smp_processor_id() == 0)
		jiffies = ktime_get() / TICK_NSEC;
	scheduler_tick();
	trace_ring_tick();
}

/* The local timer's event: this cpu's expired timers, then the tick. */
void hrtimer_interrupt(struct clock_event_device *dev)
{
	struct percpu *pc = this_cpu();
	u64 now = ktime_get();

	for (;;) {
		struct hrtimer *t;

		spin_lock(&timer_lock);
		if (list_empty(&pc->timers) ||
		    (t = list_first_entry(&pc->timers, struct hrtimer, node))->expires > now) {
			spin_unlock(&timer_lock);
			break;
		}
		list_del_init(&t->node);
		t->active = false;
		spin_unlock(&timer_lock);
		t->function(t);
	}
	tick_sched_timer();
}

static noinline void hrtimer_wakeup(struct hrtimer *t)
{
	wake_up_process(t->task);
}

/* Sleep until `expires` (absolute) or an earlier wakeup; true if it expired. */
static noinline bool schedule_hrtimeout_abs(u64 expires)
{
	struct hrtimer t;
	bool expired;

	hrtimer_init(&t, hrtimer_wakeup);
	t.task = current;
	hrtimer_start(&t, expires);
	schedule();
	expired = !t.active;
	hrtimer_cancel(&t);
	set_current_state(TASK_RUNNING);
	return expired;
}

noinline int schedule_hrtimeout_range_clock(u64 *expires, u64 delta, int mode, int clock_id)
{
	if (!expires) {
		schedule();
		return -EINTR;
	}
	return schedule_hrtimeout_abs(*expires) ? 0 : -EINTR;
}

int schedule_hrtimeout_range(u64 *expires, u64 delta, int mode)
{
	return schedule_hrtimeout_range_clock(expires, delta, mode, 1);
}

long schedule_timeout(u64 ns)
{
	u64 expires = ktime_get() + ns;

	schedule_hrtimeout_abs(expires);
	return expires > ktime_get() ? expires - ktime_get() : 0;
}

struct __kernel_timespec { s64 tv_sec; long tv_nsec; };

static noinline long do_nanosleep(u64 expires)
{
	do {
		set_current_state(TASK_INTERRUPTIBLE);
		if (schedule_hrtimeout_abs(expires))
			return 0;
	} while (ktime_get() < expires);
	return 0;
}

noinline long hrtimer_nanosleep(u64 ns, int mode, int clockid)
{
	return do_nanosleep(ktime_get() + ns);
}

long __x64_sys_nanosleep(struct pt_regs *regs)
{
	struct __kernel_timespec ts;

	if (copy_from_user(&ts, (void *)regs->di, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
		return -EINVAL;
	return hrtimer_nanosleep((u64)ts.tv_sec * 1000000000UL + ts.tv_nsec, 1, 1);
}
