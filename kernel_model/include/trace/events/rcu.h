/* rcu: where the kernel spends its RCU time (include/trace/events/rcu.h, without
 * CONFIG_RCU_TRACE: 6.1's default has only these two). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rcu

TRACE_EVENT(rcu_utilization,
	TP_PROTO(const char *s),
	TP_ARGS(s),
	TP_STRUCT__entry(
		__field(const char *, s)
	),
	TP_fast_assign(
		__entry->s = s;
	),
	TP_printk("%s", __entry->s)
)
