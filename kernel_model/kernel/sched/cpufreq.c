/* kernel/sched/cpufreq.c: the governor's hook the scheduler calls when a cpu's utilization
 * changes (cpufreq_update_util(), core.c) */
#include "../../include/cpufreq.h"

struct update_util_data *cpufreq_update_util_data[NR_CPUS];

noinline void cpufreq_add_update_util_hook(int cpu, struct update_util_data *data,
		void (*func)(struct update_util_data *data, u64 time, unsigned int flags))
{
	if (cpufreq_update_util_data[cpu])	/* one governor a cpu */
		return;
	data->func = func;
	WRITE_ONCE(cpufreq_update_util_data[cpu], data);
}

/* A policy's frequency is set from one of its own cpus (acpi-cpufreq writes this cpu's MSR) */
noinline bool cpufreq_this_cpu_can_update(struct cpufreq_policy *policy)
{
	return policy->cpu == (unsigned int)smp_processor_id();
}
