/* irq: interrupt handlers and softirqs (include/trace/events/irq.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM irq

/* the softirq vectors' names: their numbers enter the formats through the eval map */
#define softirq_name_list \
	softirq_name(HI) softirq_name(TIMER) softirq_name(NET_TX) softirq_name(NET_RX) \
	softirq_name(BLOCK) softirq_name(IRQ_POLL) softirq_name(TASKLET) softirq_name(SCHED) \
	softirq_name(HRTIMER) softirq_name_end(RCU)

#undef softirq_name
#undef softirq_name_end
#define softirq_name(sirq) TRACE_DEFINE_ENUM(sirq##_SOFTIRQ);
#define softirq_name_end(sirq) TRACE_DEFINE_ENUM(sirq##_SOFTIRQ);
softirq_name_list

#undef softirq_name
#undef softirq_name_end
#define softirq_name(sirq) { sirq##_SOFTIRQ, #sirq },
#define softirq_name_end(sirq) { sirq##_SOFTIRQ, #sirq }
#define show_softirq_name(val) __print_symbolic(val, softirq_name_list)

TRACE_EVENT(irq_handler_entry,
	TP_PROTO(int irq, struct irqaction *action),
	TP_ARGS(irq, action),
	TP_STRUCT__entry(
		__field(	int,	irq		)
		__string(	name,	action->name	)
	),
	TP_fast_assign(
		__entry->irq = irq;
		__assign_str(name, action->name);
	),
	TP_printk("irq=%d name=%s", __entry->irq, __get_str(name))
)

TRACE_EVENT(irq_handler_exit,
	TP_PROTO(int irq, struct irqaction *action, int ret),
	TP_ARGS(irq, action, ret),
	TP_STRUCT__entry(
		__field(	int,	irq	)
		__field(	int,	ret	)
	),
	TP_fast_assign(
		__entry->irq	= irq;
		__entry->ret	= ret;
	),
	TP_printk("irq=%d ret=%s",
		  __entry->irq, __entry->ret ? "handled" : "unhandled")
)

/* DECLARE_EVENT_CLASS(softirq) */
#define SOFTIRQ_EVENT(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(unsigned int vec_nr), \
	TP_ARGS(vec_nr), \
	TP_STRUCT__entry( \
		__field(	unsigned int,	vec	) \
	), \
	TP_fast_assign( \
		__entry->vec = vec_nr; \
	), \
	TP_printk("vec=%u [action=%s]", __entry->vec, \
		  show_softirq_name(__entry->vec)) \
)
SOFTIRQ_EVENT(softirq_entry)
SOFTIRQ_EVENT(softirq_exit)
SOFTIRQ_EVENT(softirq_raise)
#undef SOFTIRQ_EVENT
