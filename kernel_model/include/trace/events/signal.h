/* signal: a signal sent and a signal taken (include/trace/events/signal.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM signal

TRACE_EVENT(signal_generate,
	TP_PROTO(int sig, struct sigqueue_info *info, struct task_struct *task, int group, int result),
	TP_ARGS(sig, info, task, group, result),
	TP_STRUCT__entry(
		__field(	int,	sig			)
		__field(	int,	errno			)
		__field(	int,	code			)
		__array(	char,	comm,	TASK_COMM_LEN	)
		__field(	pid_t,	pid			)
		__field(	int,	group			)
		__field(	int,	result			)
	),
	TP_fast_assign(
		__entry->sig	= sig;
		__entry->errno	= info->errno;
		__entry->code	= info->code;
		memcpy(__entry->comm, task->comm, TASK_COMM_LEN);
		__entry->pid	= task->pid;
		__entry->group	= group;
		__entry->result	= result;
	),
	TP_printk("sig=%d errno=%d code=%d comm=%s pid=%d grp=%d res=%d",
		  __entry->sig, __entry->errno, __entry->code,
		  __entry->comm, __entry->pid, __entry->group,
		  __entry->result)
)

TRACE_EVENT(signal_deliver,
	TP_PROTO(int sig, struct sigqueue_info *info, struct k_sigaction *ka),
	TP_ARGS(sig, info, ka),
	TP_STRUCT__entry(
		__field(	int,		sig		)
		__field(	int,		errno		)
		__field(	int,		code		)
		__field(	unsigned long,	sa_handler	)
		__field(	unsigned long,	sa_flags	)
	),
	TP_fast_assign(
		__entry->sig	= sig;
		__entry->errno	= info->errno;
		__entry->code	= info->code;
		__entry->sa_handler	= ka->sa_handler;
		__entry->sa_flags	= ka->sa_flags;
	),
	TP_printk("sig=%d errno=%d code=%d sa_handler=%lx sa_flags=%lx",
		  __entry->sig, __entry->errno, __entry->code,
		  __entry->sa_handler, __entry->sa_flags)
)
