/* irq_vectors: the x86 system vectors' handlers (arch/x86/include/asm/trace/irq_vectors.h),
 * those this machine raises: the local timer, the reschedule IPI and the call-function IPI. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM irq_vectors

/* DECLARE_EVENT_CLASS(x86_irq_vector) */
#define X86_IRQ_VECTOR_EVENT(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(int vector), \
	TP_ARGS(vector), \
	TP_STRUCT__entry( \
		__field(		int,	vector	) \
	), \
	TP_fast_assign( \
		__entry->vector = vector; \
	), \
	TP_printk("vector=%d", __entry->vector) )
X86_IRQ_VECTOR_EVENT(local_timer_entry)
X86_IRQ_VECTOR_EVENT(local_timer_exit)
X86_IRQ_VECTOR_EVENT(reschedule_entry)
X86_IRQ_VECTOR_EVENT(reschedule_exit)
X86_IRQ_VECTOR_EVENT(call_function_entry)
X86_IRQ_VECTOR_EVENT(call_function_exit)
#undef X86_IRQ_VECTOR_EVENT
