/*
 * The global load average (kernel/sched/loadavg.c): avenrun[], the 1, 5 and 15 minute averages
 * of the tasks running or in uninterruptible sleep, fixed point with FSHIFT fraction bits,
 * updated every LOAD_FREQ by the cpu advancing jiffies (calc_global_load() from do_timer).
 * /proc/loadavg and sysinfo() read it; so does bpftrace's loads.bt, by its symbol.
 *
 * 6.1 folds each runqueue's count at its own tick (and NO_HZ idle cpus at idle entry) into
 * calc_load_tasks; here the sample is the count at the update itself, over the task list.
 */
#include "../../include/kernel.h"
#include "../../include/timer.h"
#include "../../include/loadavg.h"

unsigned long avenrun[3];
static unsigned long calc_load_update = INITIAL_JIFFIES + LOAD_FREQ;

/* get_avenrun(): the load averages, offset added then shifted left, as their readers want
 * them (/proc/loadavg: FIXED_1/200 to round to hundredths; sysinfo(): SI_LOAD_SHIFT bits) */
noinline void get_avenrun(unsigned long *loads, unsigned long offset, int shift)
{
	loads[0] = (avenrun[0] + offset) << shift;
	loads[1] = (avenrun[1] + offset) << shift;
	loads[2] = (avenrun[2] + offset) << shift;
}

/* calc_load(): one step of the exponential decay towards active */
static unsigned long calc_load(unsigned long load, unsigned long exp, unsigned long active)
{
	unsigned long newload = load * exp + active * (FIXED_1 - exp);

	if (active >= load)
		newload += FIXED_1 - 1;
	return newload / FIXED_1;
}

/* the runnable and uninterruptible tasks (TASK_NOLOAD ones, the idle tasks, are not load) */
static long calc_load_active(void)
{
	struct task_struct *t;
	unsigned long flags;
	long active = 0;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks) {
		unsigned int state = READ_ONCE(t->__state);

		if (!t->pid)
			continue;
		if (state == TASK_RUNNING || ((state & TASK_UNINTERRUPTIBLE) && !(state & TASK_NOLOAD)))
			active++;
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	return active;
}

/* calc_global_load(): after jiffies advanced; 10 ticks into the window, as 6.1 waits for the
 * cpus' folds */
void calc_global_load(void)
{
	unsigned long sample_window = READ_ONCE(calc_load_update), active;

	if (time_before(jiffies, sample_window + 10))
		return;
	active = calc_load_active() * FIXED_1;
	avenrun[0] = calc_load(avenrun[0], EXP_1, active);
	avenrun[1] = calc_load(avenrun[1], EXP_5, active);
	avenrun[2] = calc_load(avenrun[2], EXP_15, active);
	/* a machine paused longer than a window: the next window after now, as 6.1's nohz catch-up */
	sample_window += LOAD_FREQ;
	if (time_after_eq(jiffies, sample_window + 10))
		sample_window += (jiffies - sample_window) / LOAD_FREQ * LOAD_FREQ;
	WRITE_ONCE(calc_load_update, sample_window);
}
