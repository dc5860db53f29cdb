/* The cpufreq core (drivers/cpufreq/cpufreq.c): a policy for each cpu once a driver registers,
 * its limits from the driver's table, the default governor started on it, and the driver's
 * fast switch with the cpu_frequency event that reports it.  No sysfs here: policy->cur is
 * what scaling_cur_freq would show. */
#include "../../include/cpufreq.h"
#include "../../include/trace/trace.h"

#define CPUFREQ_RELATION_L	0	/* the lowest frequency at or above the target */
#define CPUFREQ_RELATION_H	1	/* the highest at or below */
#define LATENCY_MULTIPLIER	1000	/* the governor's rate limit: this many transition latencies */

static struct cpufreq_driver *cpufreq_driver;
static struct cpufreq_policy cpufreq_policies[NR_CPUS];

/* The table's index for the target within [min, max] (the table ascends) */
static unsigned int cpufreq_frequency_table_target(struct cpufreq_policy *policy, unsigned int target_freq,
						   unsigned int min, unsigned int max, unsigned int relation)
{
	struct cpufreq_frequency_table *pos;
	int best = -1, i;

	for (i = 0, pos = policy->freq_table; pos->frequency != CPUFREQ_TABLE_END; pos++, i++) {
		if (pos->frequency < min || pos->frequency > max)
			continue;
		if (relation == CPUFREQ_RELATION_L) {
			best = i;
			if (pos->frequency >= target_freq)
				break;
		} else {
			if (pos->frequency > target_freq && best >= 0)
				break;
			best = i;
		}
	}
	return best < 0 ? 0 : best;
}

static noinline unsigned int __resolve_freq(struct cpufreq_policy *policy, unsigned int target_freq,
				   unsigned int min, unsigned int max, unsigned int relation)
{
	target_freq = target_freq < min ? min : target_freq > max ? max : target_freq;
	if (!policy->freq_table)
		return target_freq;
	return policy->freq_table[cpufreq_frequency_table_target(policy, target_freq, min, max, relation)].frequency;
}

/* The frequency the driver would set for the target: within the limits, up to a table entry */
noinline unsigned int cpufreq_driver_resolve_freq(struct cpufreq_policy *policy, unsigned int target_freq)
{
	unsigned int min = READ_ONCE(policy->min), max = READ_ONCE(policy->max);

	if (min > max)
		min = max;
	return __resolve_freq(policy, target_freq, min, max, CPUFREQ_RELATION_L);
}

/* The governor's minimum time between changes: the driver's, else 1000 transition latencies
 * up to 10 ms */
noinline unsigned int cpufreq_policy_transition_delay_us(struct cpufreq_policy *policy)
{
	unsigned int latency;

	if (policy->transition_delay_us)
		return policy->transition_delay_us;
	latency = policy->cpuinfo.transition_latency / NSEC_PER_USEC;
	if (latency)
		return latency * LATENCY_MULTIPLIER < 10000 ? latency * LATENCY_MULTIPLIER : 10000;
	return LATENCY_MULTIPLIER;
}

/* No transition notifiers are registered here, so fast switching is always allowed */
noinline void cpufreq_enable_fast_switch(struct cpufreq_policy *policy)
{
	if (policy->fast_switch_possible)
		policy->fast_switch_enabled = true;
}

/* The governor's new frequency, set from the scheduler's context: the driver's, then the event */
noinline unsigned int cpufreq_driver_fast_switch(struct cpufreq_policy *policy, unsigned int target_freq)
{
	unsigned int freq;

	target_freq = target_freq < policy->min ? policy->min : target_freq > policy->max ? policy->max : target_freq;
	freq = cpufreq_driver->fast_switch(policy, target_freq);
	if (!freq)
		return 0;
	policy->cur = freq;
	trace_cpu_frequency(freq, policy->cpu);	/* for each cpu of the policy: its one */
	return freq;
}

/* The limits (the whole table: no QoS requests or sysfs writes here, so nothing for the
 * driver's verify to narrow) resolved to table entries, the governor
 * told, after the cpu_frequency_limits event */
static noinline int cpufreq_set_policy(struct cpufreq_policy *policy, struct cpufreq_governor *new_gov)
{
	unsigned int min = policy->cpuinfo.min_freq, max = policy->cpuinfo.max_freq;
	int ret;

	WRITE_ONCE(policy->max, __resolve_freq(policy, max, min, max, CPUFREQ_RELATION_H));
	min = __resolve_freq(policy, min, min, max, CPUFREQ_RELATION_L);
	WRITE_ONCE(policy->min, min > policy->max ? policy->max : min);
	trace_cpu_frequency_limits(policy);
	if (new_gov == policy->governor) {
		if (new_gov)
			new_gov->limits(policy);
		return 0;
	}
	ret = new_gov->init(policy);	/* cpufreq_init_governor() */
	if (ret)
		return ret;
	policy->governor = new_gov;
	ret = new_gov->start(policy);	/* cpufreq_start_governor() */
	if (!ret)
		new_gov->limits(policy);
	return ret;
}

/* A cpu's policy: the driver fills in its table and frequency, the default governor runs it */
static noinline int cpufreq_online(unsigned int cpu)
{
	struct cpufreq_policy *policy = &cpufreq_policies[cpu];
	int ret;

	policy->cpu = cpu;
	ret = cpufreq_driver->init(policy);
	if (ret)
		return ret;
	policy->min = policy->cpuinfo.min_freq;
	policy->max = policy->cpuinfo.max_freq;
	policy->cur = cpufreq_driver->get(cpu);
	return cpufreq_set_policy(policy, cpufreq_default_governor());	/* cpufreq_init_policy() */
}

/* The driver of every cpu's frequency: one at a time */
noinline int cpufreq_register_driver(struct cpufreq_driver *driver_data)
{
	int cpu;

	if (cpufreq_driver)
		return -EEXIST;
	cpufreq_driver = driver_data;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)	/* cpufreq_add_dev() of each cpu device */
		cpufreq_online(cpu);
	return 0;
}
