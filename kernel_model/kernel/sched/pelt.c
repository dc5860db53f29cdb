/* Per-entity load tracking (kernel/sched/pelt.c) for the cfs runqueue's utilization: the time
 * it had a task running, in 1024 us periods, each period's share decayed by y per period
 * (y^32 = 1/2).  util_avg (0..1024) is what schedutil turns into a frequency.  6.1 also sums
 * load and runnable time for load balancing, which this scheduler does not do: not kept. */
#include "../../include/kernel.h"
#include "pelt.h"

#define LOAD_AVG_PERIOD 32
#define LOAD_AVG_MAX 47742	/* 1024 * sum of y^n, n >= 0 */
#define PELT_MIN_DIVIDER (LOAD_AVG_MAX - 1024)

/* y^n * 2^32 for n < 32 (sched-pelt.h's table, from Documentation/scheduler/sched-pelt) */
static const u32 runnable_avg_yN_inv[] = {
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
	0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
	0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
	0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
	0x85aac367, 0x82cd8698,
};

/* val * y^n: halved per 32 periods, the rest from the table */
static u64 decay_load(u64 val, u64 n)
{
	unsigned int local_n;

	if (n > LOAD_AVG_PERIOD * 63)
		return 0;
	local_n = n;
	if (local_n >= LOAD_AVG_PERIOD) {
		val >>= local_n / LOAD_AVG_PERIOD;
		local_n %= LOAD_AVG_PERIOD;
	}
	return (u64)(((unsigned __int128)val * runnable_avg_yN_inv[local_n]) >> 32);
}

/* The contribution of the time across `periods` boundaries: d1 (the rest of the first period)
 * decayed, the full periods between, d3 (the part of the current one). */
static u32 __accumulate_pelt_segments(u64 periods, u32 d1, u32 d3)
{
	u32 c1 = decay_load((u64)d1, periods);
	u32 c2 = LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024;

	return c1 + c2 + d3;
}

/* Decays the sum for the periods crossed and adds the running time: the number of periods */
static __always_inline u32 accumulate_sum(u64 delta, struct sched_avg *sa, int running)
{
	u32 contrib = (u32)delta;	/* no period crossed: delta < 1024 */
	u64 periods;

	delta += sa->period_contrib;
	periods = delta / 1024;
	if (periods) {
		sa->util_sum = decay_load((u64)sa->util_sum, periods);
		delta %= 1024;
		if (running)
			contrib = __accumulate_pelt_segments(periods, 1024 - sa->period_contrib, delta);
	}
	sa->period_contrib = delta;
	if (running)
		sa->util_sum += contrib << SCHED_CAPACITY_SHIFT;
	return periods;
}

/* Brings the sum up to `now` (ns, counted in 1024 ns units): whether a period boundary passed */
static __always_inline int ___update_load_sum(u64 now, struct sched_avg *sa, unsigned long load, int running)
{
	u64 delta = now - sa->last_update_time;

	if ((s64)delta < 0) {	/* another cpu's clock read it last */
		sa->last_update_time = now;
		return 0;
	}
	delta >>= 10;
	if (!delta)
		return 0;
	sa->last_update_time += delta << 10;
	if (!load)
		running = 0;
	return accumulate_sum(delta, sa, running) != 0;
}

static __always_inline void ___update_load_avg(struct sched_avg *sa)
{
	WRITE_ONCE(sa->util_avg, sa->util_sum / (PELT_MIN_DIVIDER + sa->period_contrib));
}

/* The cfs runqueue's average: running while it has a current task */
noinline int __update_load_avg_cfs_rq(u64 now, struct cfs_rq *cfs_rq)
{
	if (___update_load_sum(now, &cfs_rq->avg, cfs_rq->h_nr_running, cfs_rq->curr != NULL)) {
		___update_load_avg(&cfs_rq->avg);
		return 1;
	}
	return 0;
}
