/*
 * Rate limits (include/linux/ratelimit.h, lib/ratelimit.c): at most `burst` passes in each
 * `interval` jiffies; the rest are counted as missed.
 */
#ifndef _RATELIMIT_H
#define _RATELIMIT_H
#include "kernel.h"
#include "timer.h"

#define DEFAULT_RATELIMIT_INTERVAL	(5 * HZ)
#define DEFAULT_RATELIMIT_BURST		10
#define RATELIMIT_MSG_ON_RELEASE	1	/* say what was missed at ratelimit_state_exit() only */

struct ratelimit_state {
	raw_spinlock_t lock;
	int interval, burst, printed, missed;
	unsigned long begin;
	unsigned long flags;
};

static inline void ratelimit_default_init(struct ratelimit_state *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->interval = DEFAULT_RATELIMIT_INTERVAL;
	rs->burst = DEFAULT_RATELIMIT_BURST;
}

/* Whether one more may pass now (func: who asks, named when missed ones are told of) */
int ___ratelimit(struct ratelimit_state *rs, const char *func);
#endif
