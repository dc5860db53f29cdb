/* The schedutil governor (kernel/sched/cpufreq_schedutil.c): on each of the scheduler's
 * utilization updates, at most once a rate limit, a cpu's frequency becomes 1.25 * its
 * utilization's share of its capacity times the frequency it runs at (no frequency
 * invariance: the machine has no APERF/MPERF counters), as the driver's table resolves it,
 * within the policy's limits.  The driver switches fast (from the scheduler's context), so
 * 6.1's kthread and irq_work for drivers that cannot are not here; nor is the iowait boost
 * (no task here waits in io_schedule). */
#include "../../include/cpufreq.h"
#include "../../include/timer.h"

struct sugov_policy {
	struct cpufreq_policy *policy;
	unsigned int rate_limit_us;	/* the tunable (sugov_tunables) */
	u64 last_freq_update_time;
	s64 freq_update_delay_ns;
	unsigned int next_freq;
	unsigned int cached_raw_freq;
	bool limits_changed;
	bool need_freq_update;
};

struct sugov_cpu {
	struct update_util_data update_util;
	struct sugov_policy *sg_policy;
	unsigned int cpu;
	unsigned long util;
	unsigned long max;
	unsigned long saved_idle_calls;
};

static struct sugov_policy sugov_policies[NR_CPUS];	/* one per policy: a cpu's */
static struct sugov_cpu sugov_cpu[NR_CPUS];

static bool sugov_should_update_freq(struct sugov_policy *sg_policy, u64 time)
{
	if (!cpufreq_this_cpu_can_update(sg_policy->policy))
		return false;
	if (READ_ONCE(sg_policy->limits_changed)) {
		WRITE_ONCE(sg_policy->limits_changed, false);
		sg_policy->need_freq_update = true;
		return true;
	}
	return (s64)(time - sg_policy->last_freq_update_time) >= sg_policy->freq_update_delay_ns;
}

static bool sugov_update_next_freq(struct sugov_policy *sg_policy, u64 time, unsigned int next_freq)
{
	if (sg_policy->need_freq_update)
		sg_policy->need_freq_update = false;	/* (no driver here wants every limits update) */
	if (sg_policy->next_freq == next_freq)
		return false;
	sg_policy->next_freq = next_freq;
	sg_policy->last_freq_update_time = time;
	return true;
}

/* freq = 1.25 * cur * util / max (map_util_perf, map_util_freq), resolved by the table */
static noinline unsigned int get_next_freq(struct sugov_policy *sg_policy, unsigned long util, unsigned long max)
{
	struct cpufreq_policy *policy = sg_policy->policy;
	unsigned int freq = policy->cur;	/* !arch_scale_freq_invariant() */

	util = util + (util >> 2);
	freq = freq * util / max;
	if (freq == sg_policy->cached_raw_freq && !sg_policy->need_freq_update)
		return sg_policy->next_freq;
	sg_policy->cached_raw_freq = freq;
	return cpufreq_driver_resolve_freq(policy, freq);
}

static noinline void sugov_get_util(struct sugov_cpu *sg_cpu)
{
	sg_cpu->max = arch_scale_cpu_capacity(sg_cpu->cpu);
	sg_cpu->util = effective_cpu_util(sg_cpu->cpu, cpu_util_cfs(sg_cpu->cpu));
}

/* Busy: the cpu has not entered idle since the last look (its nohz idle calls unchanged) */
static bool sugov_cpu_is_busy(struct sugov_cpu *sg_cpu)
{
	unsigned long idle_calls = tick_nohz_get_idle_calls_cpu(sg_cpu->cpu);
	bool ret = idle_calls == sg_cpu->saved_idle_calls;

	sg_cpu->saved_idle_calls = idle_calls;
	return ret;
}

static __always_inline bool sugov_update_single_common(struct sugov_cpu *sg_cpu, u64 time)
{
	if (!sugov_should_update_freq(sg_cpu->sg_policy, time))
		return false;
	sugov_get_util(sg_cpu);
	return true;
}

/* The hook of a policy of one cpu */
static noinline void sugov_update_single_freq(struct update_util_data *hook, u64 time, unsigned int flags)
{
	struct sugov_cpu *sg_cpu = container_of(hook, struct sugov_cpu, update_util);
	struct sugov_policy *sg_policy = sg_cpu->sg_policy;
	unsigned int cached_freq = sg_policy->cached_raw_freq;
	unsigned int next_f;

	if (!sugov_update_single_common(sg_cpu, time))
		return;
	next_f = get_next_freq(sg_policy, sg_cpu->util, sg_cpu->max);
	/* no lower frequency while the cpu has not been idle since: it would be premature */
	if (sugov_cpu_is_busy(sg_cpu) && next_f < sg_policy->next_freq && !sg_policy->need_freq_update) {
		next_f = sg_policy->next_freq;
		sg_policy->cached_raw_freq = cached_freq;
	}
	if (!sugov_update_next_freq(sg_policy, time, next_f))
		return;
	cpufreq_driver_fast_switch(sg_policy->policy, next_f);
}

static noinline int sugov_init(struct cpufreq_policy *policy)
{
	struct sugov_policy *sg_policy = &sugov_policies[policy->cpu];

	if (policy->governor_data)
		return -EBUSY;
	cpufreq_enable_fast_switch(policy);
	if (!policy->fast_switch_enabled)	/* 6.1 would run a kthread for it: not here */
		return -EINVAL;
	sg_policy->policy = policy;
	sg_policy->rate_limit_us = cpufreq_policy_transition_delay_us(policy);
	policy->governor_data = sg_policy;
	return 0;
}

static noinline int sugov_start(struct cpufreq_policy *policy)
{
	struct sugov_policy *sg_policy = policy->governor_data;
	struct sugov_cpu *sg_cpu = &sugov_cpu[policy->cpu];

	sg_policy->freq_update_delay_ns = (s64)sg_policy->rate_limit_us * NSEC_PER_USEC;
	sg_policy->last_freq_update_time = 0;
	sg_policy->next_freq = 0;
	sg_policy->limits_changed = false;
	sg_policy->cached_raw_freq = 0;
	sg_policy->need_freq_update = false;
	memset(sg_cpu, 0, sizeof(*sg_cpu));
	sg_cpu->cpu = policy->cpu;
	sg_cpu->sg_policy = sg_policy;
	cpufreq_add_update_util_hook(policy->cpu, &sg_cpu->update_util, sugov_update_single_freq);
	return 0;
}

/* New limits: the next update applies them, whatever the rate limit */
static noinline void sugov_limits(struct cpufreq_policy *policy)
{
	struct sugov_policy *sg_policy = policy->governor_data;

	barrier();	/* smp_wmb(): the limits before the flag (x86: the compiler's order) */
	WRITE_ONCE(sg_policy->limits_changed, true);
}

static struct cpufreq_governor schedutil_gov = {
	.name = "schedutil",
	.init = sugov_init,
	.start = sugov_start,
	.limits = sugov_limits,
};

/* CONFIG_CPU_FREQ_DEFAULT_GOV_SCHEDUTIL, as Debian's */
struct cpufreq_governor *cpufreq_default_governor(void)
{
	return &schedutil_gov;
}
