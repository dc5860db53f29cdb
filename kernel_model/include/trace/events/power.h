/* power: the idle loop's entry to and exit from idle (include/trace/events/power.h's cpu_idle,
 * from default_idle_call).  6.1's other power events trace cpufreq, cpuidle drivers, suspend,
 * clocks and PM QoS, none of which this machine has. */
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
