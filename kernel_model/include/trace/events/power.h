/* power: the idle loop's entry to and exit from idle (include/trace/events/power.h's cpu_idle,
 * from default_idle_call), a cpu's new frequency and its policy's limits (cpufreq).  6.1's
 * other power events trace cpuidle drivers, suspend, clocks and PM QoS, none of which this
 * machine has. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM power

#ifndef PWR_EVENT_EXIT
#define PWR_EVENT_EXIT -1
#endif

/* DECLARE_EVENT_CLASS(cpu) */
TRACE_EVENT(cpu_idle,
	TP_PROTO(unsigned int state, unsigned int cpu_id),
	TP_ARGS(state, cpu_id),
	TP_STRUCT__entry(
		__field(	u32,		state		)
		__field(	u32,		cpu_id		)
	),
	TP_fast_assign(
		__entry->state = state;
		__entry->cpu_id = cpu_id;
	),
	TP_printk("state=%lu cpu_id=%lu", (unsigned long)__entry->state,
		  (unsigned long)__entry->cpu_id)
)

/* DEFINE_EVENT(cpu, cpu_frequency): the frequency (kHz) a cpu's driver set */
TRACE_EVENT(cpu_frequency,
	TP_PROTO(unsigned int frequency, unsigned int cpu_id),
	TP_ARGS(frequency, cpu_id),
	TP_STRUCT__entry(
		__field(	u32,		state		)
		__field(	u32,		cpu_id		)
	),
	TP_fast_assign(
		__entry->state = frequency;
		__entry->cpu_id = cpu_id;
	),
	TP_printk("state=%lu cpu_id=%lu", (unsigned long)__entry->state,
		  (unsigned long)__entry->cpu_id)
)

/* A policy's limits when they are set (cpufreq_set_policy) */
TRACE_EVENT(cpu_frequency_limits,
	TP_PROTO(struct cpufreq_policy *policy),
	TP_ARGS(policy),
	TP_STRUCT__entry(
		__field(u32, min_freq)
		__field(u32, max_freq)
		__field(u32, cpu_id)
	),
	TP_fast_assign(
		__entry->min_freq = policy->min;
		__entry->max_freq = policy->max;
		__entry->cpu_id = policy->cpu;
	),
	TP_printk("min=%lu max=%lu cpu_id=%lu",
		  (unsigned long)__entry->min_freq,
		  (unsigned long)__entry->max_freq,
		  (unsigned long)__entry->cpu_id)
)
