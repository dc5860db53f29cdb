/* bpf_trace: what a BPF program's bpf_trace_printk() prints (kernel/trace/bpf_trace.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bpf_trace

TRACE_EVENT(bpf_trace_printk,
	TP_PROTO(const char *bpf_string),
	TP_ARGS(bpf_string),
	TP_STRUCT__entry(
		__string(bpf_string, bpf_string)
	),
	TP_fast_assign(
		__assign_str(bpf_string, bpf_string);
	),
	TP_printk("%s", __get_str(bpf_string))
)
