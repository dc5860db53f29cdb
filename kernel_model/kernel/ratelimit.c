/*
 * lib/ratelimit.c: ___ratelimit().  A window of `interval` jiffies starts at the first call;
 * in it `burst` calls pass, the others are missed; the first call after it starts the next
 * window, telling the missed ones first (unless the owner tells them at its release).
 */
#include "../include/ratelimit.h"
#include "../include/spinlock.h"

notrace int ___ratelimit(struct ratelimit_state *rs, const char *func)
{
	int interval = READ_ONCE(rs->interval), burst = READ_ONCE(rs->burst), ret;
	unsigned long flags = arch_local_irq_save();

	if (!interval) {
		arch_local_irq_restore(flags);
		return 1;
	}
	if (!raw_spin_trylock(&rs->lock)) {	/* raw_spin_trylock_irqsave(): busy, so not now */
		arch_local_irq_restore(flags);
		return 0;
	}
	if (!rs->begin)
		rs->begin = jiffies;
	if (time_after(jiffies, rs->begin + interval)) {	/* time_is_before_jiffies() */
		if (rs->missed && !(rs->flags & RATELIMIT_MSG_ON_RELEASE)) {
			printk(KERN_WARNING "%s: %d callbacks suppressed\n", func, rs->missed);
			rs->missed = 0;
		}
		rs->begin = jiffies;
		rs->printed = 0;
	}
	if (burst && burst > rs->printed) {
		rs->printed++;
		ret = 1;
	} else {
		rs->missed++;
		ret = 0;
	}
	raw_spin_unlock(&rs->lock);
	arch_local_irq_restore(flags);
	return ret;
}
