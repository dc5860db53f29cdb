/* workqueue: works queued, activated and run by the kworkers (include/trace/events/workqueue.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM workqueue

TRACE_EVENT(workqueue_queue_work,
	TP_PROTO(int req_cpu, struct pool_workqueue *pwq,
		 struct work_struct *work),
	TP_ARGS(req_cpu, pwq, work),
	TP_STRUCT__entry(
		__field( void *,	work	)
		__field( void *,	function)
		__string( workqueue,	pwq->wq->name)
		__field( int,	req_cpu	)
		__field( int,	cpu	)
	),
	TP_fast_assign(
		__entry->work		= work;
		__entry->function	= work->func;
		__assign_str(workqueue, pwq->wq->name);
		__entry->req_cpu	= req_cpu;
		__entry->cpu		= pwq->pool->cpu;
	),
	TP_printk("work struct=%p function=%ps workqueue=%s req_cpu=%d cpu=%d",
		  __entry->work, __entry->function, __get_str(workqueue),
		  __entry->req_cpu, __entry->cpu)
)

TRACE_EVENT(workqueue_activate_work,
	TP_PROTO(struct work_struct *work),
	TP_ARGS(work),
	TP_STRUCT__entry(
		__field( void *,	work	)
	),
	TP_fast_assign(
		__entry->work		= work;
	),
	TP_printk("work struct %p", __entry->work)
)

TRACE_EVENT(workqueue_execute_start,
	TP_PROTO(struct work_struct *work),
	TP_ARGS(work),
	TP_STRUCT__entry(
		__field( void *,	work	)
		__field( void *,	function)
	),
	TP_fast_assign(
		__entry->work		= work;
		__entry->function	= work->func;
	),
	TP_printk("work struct %p: function %ps", __entry->work, __entry->function)
)

TRACE_EVENT(workqueue_execute_end,
	TP_PROTO(struct work_struct *work, work_func_t function),
	TP_ARGS(work, function),
	TP_STRUCT__entry(
		__field( void *,	work	)
		__field( void *,	function)
	),
	TP_fast_assign(
		__entry->work		= work;
		__entry->function	= function;
	),
	TP_printk("work struct %p: function %ps", __entry->work, __entry->function)
)
