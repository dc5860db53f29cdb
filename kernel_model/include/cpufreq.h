/* CPU frequency scaling (include/linux/cpufreq.h, kernel/sched/sched.h's hook): a policy per
 * cpu, the driver that sets its frequency (drivers/cpufreq/acpi-cpufreq.c), the governor that
 * picks it (kernel/sched/cpufreq_schedutil.c) from the scheduler's utilization. */
#ifndef _CPUFREQ_H
#define _CPUFREQ_H
#include "kernel.h"

#define CPUFREQ_TABLE_END	~1u

/* A frequency of the driver's table (kHz) and the driver's index of the state behind it */
struct cpufreq_frequency_table {
	unsigned int driver_data;
	unsigned int frequency;
};

struct cpufreq_cpuinfo {
	unsigned int max_freq;		/* kHz */
	unsigned int min_freq;
	unsigned int transition_latency;	/* ns */
};

/* One cpu's policy here (6.1 may share one among cpus that switch together: none do here) */
struct cpufreq_policy {
	unsigned int cpu;
	unsigned int min, max;		/* the limits (kHz) */
	unsigned int cur;		/* the frequency set last (kHz) */
	struct cpufreq_cpuinfo cpuinfo;
	struct cpufreq_frequency_table *freq_table;	/* ascending, to CPUFREQ_TABLE_END */
	struct cpufreq_governor *governor;
	void *governor_data;
	unsigned int transition_delay_us;	/* the driver's, else from the latency */
	bool fast_switch_possible;	/* the driver may switch from the scheduler's context */
	bool fast_switch_enabled;	/* the governor does so */
	void *driver_data;
};

struct cpufreq_driver {
	char name[16];
	int (*init)(struct cpufreq_policy *policy);
	unsigned int (*fast_switch)(struct cpufreq_policy *policy, unsigned int target_freq);
	unsigned int (*get)(unsigned int cpu);
};

struct cpufreq_governor {
	char name[16];
	int (*init)(struct cpufreq_policy *policy);
	int (*start)(struct cpufreq_policy *policy);
	void (*limits)(struct cpufreq_policy *policy);
};

int cpufreq_register_driver(struct cpufreq_driver *driver_data);
unsigned int cpufreq_driver_resolve_freq(struct cpufreq_policy *policy, unsigned int target_freq);
unsigned int cpufreq_driver_fast_switch(struct cpufreq_policy *policy, unsigned int target_freq);
void cpufreq_enable_fast_switch(struct cpufreq_policy *policy);
unsigned int cpufreq_policy_transition_delay_us(struct cpufreq_policy *policy);
bool cpufreq_this_cpu_can_update(struct cpufreq_policy *policy);
struct cpufreq_governor *cpufreq_default_governor(void);

/* The scheduler's call into the governor (kernel/sched/cpufreq.c) */
struct update_util_data {
	void (*func)(struct update_util_data *data, u64 time, unsigned int flags);
};
extern struct update_util_data *cpufreq_update_util_data[NR_CPUS];
void cpufreq_add_update_util_hook(int cpu, struct update_util_data *data,
				  void (*func)(struct update_util_data *data, u64 time, unsigned int flags));

/* kernel/sched: a cpu's capacity, its utilization as schedutil counts it */
unsigned long effective_cpu_util(int cpu, unsigned long util_cfs);
static inline unsigned long arch_scale_cpu_capacity(int cpu)
{
	return SCHED_CAPACITY_SCALE;	/* all cpus alike */
}

/* The cfs tasks' utilization of the cpu (6.1 takes the larger of it and util_est: no
 * estimates here) */
static inline unsigned long cpu_util_cfs(int cpu)
{
	unsigned long util = READ_ONCE(cpu_data[cpu].rq.cfs.avg.util_avg);

	return util < arch_scale_cpu_capacity(cpu) ? util : arch_scale_cpu_capacity(cpu);
}
unsigned long tick_nohz_get_idle_calls_cpu(int cpu);
#endif
