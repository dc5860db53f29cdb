/* printk: every message the kernel logs (include/trace/events/printk.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM printk

TRACE_EVENT(console,
	TP_PROTO(const char *text, size_t len),
	TP_ARGS(text, len),
	TP_STRUCT__entry(
		__dynamic_array(char, msg, len + 1)
	),
	TP_fast_assign(
		/* each record is a line of the trace: a trailing newline goes */
		if ((len > 0) && (text[len-1] == '\n'))
			len -= 1;
		memcpy(__get_str(msg), text, len);
		__get_str(msg)[len] = 0;
	),
	TP_printk("%s", __get_str(msg))
)
