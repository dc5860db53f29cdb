/*
 * Instantiates the tracepoints of include/trace/events.h: the record struct,
 * the static key, the notrace trace_event_raw_event_<name>() that fills a
 * record, and the metadata (fields + print fmt) in _ftrace_events.
 */
#define CREATE_TRACE_POINTS
#include "../include/kernel.h"
#include "../include/net.h"
#include "../include/trace/trace.h"
#include "../include/trace/trace_pid.h"
#include "../include/trace/trigger.h"
#include "../include/perf_event.h"
#include "../include/filelock.h"
#include "../include/mmzone.h"	/* oom:reclaim_retry_zone reads the zone */

#define is_signed_type(t) (((t)(-1)) < (t)1)
/* the only config option the events name, CONFIG_MEMCG_KMEM, is on (Debian's) */
#define IS_ENABLED(x) 1
#define TP_STRUCT__entry(args...) args
#define TP_fast_assign(args...) args

static __always_inline long __trace_sched_switch_state(bool preempt, unsigned int prev_state,
						       struct task_struct *p)
{
	unsigned int state = (prev_state | p->exit_state) & TASK_REPORT;

	if (preempt)
		return TASK_REPORT_MAX;
	if ((prev_state & TASK_IDLE) == TASK_IDLE)	/* __task_state_index() */
		state = TASK_REPORT_IDLE;
	return state ? (1 << __builtin_ctz(state)) : 0;
}

/* strscpy_pad() for the writers: nothing they run may be traceable */
static __always_inline void trace_strscpy_pad(char *d, const char *s, size_t n)
{
	size_t i = 0;

	for (; i + 1 < n && s[i]; i++)
		d[i] = s[i];
	for (; i < n; i++)
		d[i] = 0;
}

static __always_inline void syscall_get_arguments(struct pt_regs *regs, unsigned long *args)
{
	args[0] = regs->di; args[1] = regs->si; args[2] = regs->dx;
	args[3] = regs->r10; args[4] = regs->r8; args[5] = regs->r9;
}

#define TRACE_DEFINE_ENUM(a)
#define TRACE_PRINT_ENUM(a)
#define TRACE_PRINT_ENUM_OF(sys, a)
#define TRACE_PRINT_VALUE(name, value)
#define TRACE_PRINT_STRUCT(s)

/* pass 1: record layouts */
#define __field(t, n) t n;
#define __array(t, n, l) t n[l];
#define __string(n, src) u32 __data_loc_##n;
#define __dynamic_array(t, n, len) u32 __data_loc_##n;
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	struct trace_event_raw_##name { struct trace_entry ent; tstruct char __data[]; };
#include "../include/trace/events.h"
#undef TRACE_EVENT
#undef __field
#undef __array
#undef __string
#undef __dynamic_array

/* pass 2: static keys and the fast-assign bodies */

/*
 * The pid check of each event: the current task's, except for the sched
 * events Linux's pid probes (event_filter_pid_sched_*_probe_pre) also keep
 * for the other task.  TRACE_PID_FILTER_<name> is "~, <check>" for those;
 * trace_pid_filter_of() takes its second word, or the default check when the
 * name is not defined (kconfig.h's __is_defined() trick).
 */
#define TRACE_PID_FILTER_sched_switch		~, trace_pid_filter_switch(__slots, prev, next, &__ext, __pid_ext)
#define TRACE_PID_FILTER_sched_waking		~, trace_pid_filter_wakeup(__pc, __slots, p, &__ext, __pid_ext)
#define TRACE_PID_FILTER_sched_wakeup		~, trace_pid_filter_wakeup(__pc, __slots, p, &__ext, __pid_ext)
#define TRACE_PID_FILTER_sched_wakeup_new	~, trace_pid_filter_wakeup(__pc, __slots, p, &__ext, __pid_ext)
#define __second_arg(a, b, ...) b
#define __second_of(...) __second_arg(__VA_ARGS__)
/* (the extension words __ext become __pid_ext when lists past word 0 take slots out) */
#define trace_pid_filter_of(name) \
	__second_of(TRACE_PID_FILTER_##name, trace_pid_filter_event(__pc, __slots, &__ext, __pid_ext), ~)

/* the preempt depth less the writer's own preempt_disable, at most 0xf; 0 wraps to 0xff, the
 * depth and migrate-disable nibbles (trace_entry_fill_count()) */
const u8 trace_preempt_depth[256] = {
	[0] = 0xff, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, [16 ... 255] = 15,
};

/* For the writers that reserve with trace_event_buffer_reserve() (see trace_entry_fill()). */
notrace void tracing_generic_entry_update(struct trace_entry *ent, const struct trace_event_file *file,
				  unsigned long irqflags)
{
	struct percpu *pc = this_cpu();

	trace_entry_fill(pc, ent, file->type, irqflags, trace_current_pid(pc));
}

#define __field(t, n)
#define __array(t, n, l)
/*
 * The dynamic fields' data follow the record's fixed part, in their order: __loc_<name>
 * (offset | length << 16, the field's __data_loc) is worked out with the sizes, before the
 * record is reserved; the field itself is written when the data is.
 */
#define __dynamic_array(t, n, len) \
	u32 __loc_##n = (u32)(sizeof(*__entry) + __dyn_size) | (u32)(sizeof(t) * (len)) << 16; \
	__dyn_size += sizeof(t) * (len);
#define __string(n, src) __dynamic_array(char, n, strlen(src) + 1)
#define __get_dynamic_array(n) \
	(__entry->__data_loc_##n = __loc_##n, (void *)((char *)__entry + (__loc_##n & 0xffff)))
#define __get_str(n) ((char *)__get_dynamic_array(n))
#define __assign_str(n, src) memcpy(__get_str(n), (src), __loc_##n >> 16)
/*
 * The frames of an event's stacks.  trace_event_raw_event_<name>() keeps no frame when its
 * slow path's arguments fit in registers (at most 5 of the event's, and irqflags): it jumps
 * there, and the slow path's frame returns into the function that fired the event (the
 * host).  With more (kmalloc's 6), the slow path takes a stack argument and is called, so
 * the writer keeps its frame, whose return address is then the host's.  RAW_EVENT_ATTR(n)
 * is the writer's attribute for n arguments; trace_host_frame() the frame returning into the
 * host.
 */
#define RAW_EVENT_TAILCALL __attribute__((optimize("omit-frame-pointer", "optimize-sibling-calls")))
#define RAW_EVENT_ATTR_0 RAW_EVENT_TAILCALL
#define RAW_EVENT_ATTR_1 RAW_EVENT_TAILCALL
#define RAW_EVENT_ATTR_2 RAW_EVENT_TAILCALL
#define RAW_EVENT_ATTR_3 RAW_EVENT_TAILCALL
#define RAW_EVENT_ATTR_4 RAW_EVENT_TAILCALL
#define RAW_EVENT_ATTR_5 RAW_EVENT_TAILCALL
#define RAW_EVENT_ATTR_6
#define RAW_EVENT_ATTR_7
#define RAW_EVENT_ATTR_8
#define RAW_EVENT_ATTR_9
#define RAW_EVENT_ATTR_10
#define RAW_EVENT_ATTR_11
#define RAW_EVENT_ATTR_12
#define __raw_event_attr(n) RAW_EVENT_ATTR_##n
#define raw_event_attr(n) __raw_event_attr(n)

static __always_inline unsigned long trace_host_frame(unsigned int nr_args, unsigned long slow_bp)
{
	return nr_args > 5 ? *(unsigned long *)slow_bp : slow_bp;
}

/*
 * Where a hist trigger's stacktrace key starts (6.1's stack_trace_save() skipping
 * HIST_STACKTRACE_SKIP frames): a tracepoint with one probe calls it straight from the host
 * (a static call), and the skip goes past the host to its caller; with more, the probes run
 * from __traceiter_<name>(), one frame more, and the key starts at the host.  Tracing's
 * own second probe is the saved-cmdlines one, on sched_switch, sched_wakeup and
 * sched_wakeup_new while events record comms (trace_cmdline_key); perf events and BPF
 * programs on the tracepoint are others (its kernel_key).
 */
#define TRACE_CMDLINE_PROBE_sched_switch	~, 1
#define TRACE_CMDLINE_PROBE_sched_wakeup	~, 1
#define TRACE_CMDLINE_PROBE_sched_wakeup_new	~, 1
#define trace_cmdline_probe_of(name) __second_of(TRACE_CMDLINE_PROBE_##name, 0, ~)

static __always_inline unsigned long trace_hist_frame(struct tracepoint *tp, bool cmdline_probe,
						      unsigned long host_bp)
{
	if (static_key_enabled(&tp->kernel_key) ||
	    (cmdline_probe && static_branch_unlikely(&trace_cmdline_key)))
		return host_bp;
	return *(unsigned long *)host_bp;
}

/*
 * trace_event_raw_event_<name>(): the common case (one trace array records
 * the event, no pid list applies, the ring's common case: trace_fast_check())
 * with every condition in one branch; the rest, trace_event_slow_<name>(),
 * which restores the interrupt flag itself so that the fast path jumps to it
 * (no frame, no register saved for after a call).
 */
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	struct tracepoint __tracepoint_##name = { #name, { 0 }, { 0 }, .num_args = COUNT_ARGS(args) }; \
	/* its probes' prototype, which BTF-enabled raw tracepoint programs (tp_btf) name: \
	 * include/trace/bpf_probe.h's typedef (used, so that the BTF keeps it) */ \
	typedef void (*btf_trace_##name)(void *__data, proto); \
	static btf_trace_##name __bpf_trace_tp_type_##name __used; \
	notrace void trace_event_raw_event_##name(proto); \
	static noinline notrace void trace_event_slow_##name(unsigned long irqflags, proto) \
	{ \
		const struct trace_event_file *file = &__tracepoint_##name.file; \
		struct trace_event_raw_##name *__entry; \
		size_t __dyn_size = 0; \
		struct trace_write __w; \
		struct percpu *__pc = this_cpu(); \
		u64 __slots = READ_ONCE(file->slots), __pid_ext[TRACE_EXT_WORDS]; \
		const u64 *__ext; \
		if (!(__slots | READ_ONCE(file->triggers))) { \
			trace_irq_restore(irqflags); \
			return; \
		} \
		tstruct \
		if (unlikely(READ_ONCE(file->triggers))) { \
			/* the record first, for the triggers' filters (event_triggers_call()) */ \
			__slots = ~0ULL; \
			__ext = trace_ext_all; \
			__slots = trace_pid_filter_of(name); \
			__entry = event_trigger_scratch(sizeof(*__entry) + __dyn_size); \
			if (__entry) { \
				trace_entry_fill(__pc, &__entry->ent, file->type, irqflags, trace_current_pid(__pc)); \
				{ assign } \
				unsigned long __bp = trace_host_frame(COUNT_ARGS(args), \
								      (unsigned long)__builtin_frame_address(0)); \
				event_triggers_record(file, __entry, sizeof(*__entry) + __dyn_size, __slots, __ext, irqflags, \
						      (unsigned long)trace_event_raw_event_##name, __bp, \
						      trace_hist_frame(&__tracepoint_##name, \
								       trace_cmdline_probe_of(name), __bp)); \
			} \
			trace_irq_restore(irqflags); \
			return; \
		} \
		__ext = trace_event_file_ext(file); \
		__slots = trace_pid_filter_of(name); \
		__entry = trace_event_reserve_inline(__pc, __slots, __ext, \
						     sizeof(*__entry) + __dyn_size, &__w); \
		if (__entry) { \
			trace_entry_fill(__pc, &__entry->ent, file->type, irqflags, trace_current_pid(__pc)); \
			{ assign } \
			trace_event_commit_inline(__entry, sizeof(*__entry) + __dyn_size, &__w); \
			/* options/stacktrace, userstacktrace: the stacks after the record */ \
			if (unlikely(__slots & trace_stack_opt_slots())) \
				trace_event_opt_stacks(__slots, __ext, __entry, (unsigned long)trace_event_raw_event_##name, \
						       trace_host_frame(COUNT_ARGS(args), \
									(unsigned long)__builtin_frame_address(0))); \
		} \
		trace_irq_restore(irqflags); \
	} \
	raw_event_attr(COUNT_ARGS(args)) \
	notrace void trace_event_raw_event_##name(proto) \
	{ \
		const struct trace_event_file *file = &__tracepoint_##name.file; \
		struct trace_event_raw_##name *__entry; \
		size_t __dyn_size = 0; \
		unsigned long irqflags; \
		struct trace_fast __f; \
		struct percpu *__pc; \
		u64 __slots, __trig; \
		tstruct \
		irqflags = arch_local_irq_save(); \
		__pc = this_cpu(); \
		__slots = READ_ONCE(file->slots); \
		__trig = READ_ONCE(file->triggers); \
		__slots &= trace_control.recording & trace_control.cpu_slots[__pc->h.cpu]; \
		if (unlikely(trace_fast_check(__pc, __slots, sizeof(*__entry) + __dyn_size, &__f) | __trig | \
			     (__slots & (trace_pid_control.event_pids | trace_pid_control.event_notrace_pids | \
					 trace_control.stack_slots)))) \
			return trace_event_slow_##name(irqflags, args); \
		__entry = trace_fast_claim(__pc, &__f, sizeof(*__entry) + __dyn_size); \
		trace_entry_fill(__pc, &__entry->ent, file->type, irqflags, trace_current_pid(__pc)); \
		{ assign } \
		trace_fast_commit(&__f); \
		trace_irq_restore(irqflags); \
	}
#include "../include/trace/events.h"
#undef TRACE_EVENT

/*
 * pass 2b: perf_trace_<name>(), what the tracepoint's kernel_key sites call (include/trace/perf.h
 * of Linux): the same record, in perf's buffer, to the tracepoint programs attached to its perf
 * events, then to the perf events active on this cpu.
 */
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	notrace void perf_trace_##name(proto) \
	{ \
		struct tracepoint *__tp = &__tracepoint_##name; \
		struct trace_event_raw_##name *__entry; \
		struct list_head *__head = perf_trace_head(__tp); \
		size_t __dyn_size = 0; \
		struct pt_regs *__regs; \
		int __entry_size, __rctx; \
		tstruct \
		if (!__head && !READ_ONCE(__tp->prog_array)) \
			return; \
		__entry_size = perf_trace_entry_size(sizeof(*__entry) + __dyn_size); \
		__entry = perf_trace_buf_alloc(__entry_size, &__regs, &__rctx); \
		if (!__entry) \
			return; \
		perf_fetch_caller_regs(__regs); \
		{ assign } \
		perf_trace_run_bpf_submit(__entry, __entry_size, __rctx, __tp, 1, __regs, __head, NULL); \
	}
#include "../include/trace/events.h"
#undef TRACE_EVENT

/*
 * pass 2c: __bpf_trace_<name>() (include/trace/bpf_probe.h): the tracepoint's arguments, each
 * as a u64 (zero-extended from its own size), to its raw tracepoint programs.
 */
#define __CAST_TO_U64(x) ({ \
	typeof(x) __src = (x); \
	__typeof__(__builtin_choose_expr(sizeof(x) == 1, (u8)0, \
		__builtin_choose_expr(sizeof(x) == 2, (u16)0, \
		__builtin_choose_expr(sizeof(x) == 4, (u32)0, (u64)0)))) __dst; \
	__builtin_memcpy(&__dst, &__src, sizeof(__dst)); \
	(u64)__dst; })
#define __BPF_CAST1(a) __CAST_TO_U64(a)
#define __BPF_CAST2(a, ...) __CAST_TO_U64(a), __BPF_CAST1(__VA_ARGS__)
#define __BPF_CAST3(a, ...) __CAST_TO_U64(a), __BPF_CAST2(__VA_ARGS__)
#define __BPF_CAST4(a, ...) __CAST_TO_U64(a), __BPF_CAST3(__VA_ARGS__)
#define __BPF_CAST5(a, ...) __CAST_TO_U64(a), __BPF_CAST4(__VA_ARGS__)
#define __BPF_CAST6(a, ...) __CAST_TO_U64(a), __BPF_CAST5(__VA_ARGS__)
#define __BPF_CAST7(a, ...) __CAST_TO_U64(a), __BPF_CAST6(__VA_ARGS__)
#define __BPF_CAST8(a, ...) __CAST_TO_U64(a), __BPF_CAST7(__VA_ARGS__)
#define __BPF_CAST9(a, ...) __CAST_TO_U64(a), __BPF_CAST8(__VA_ARGS__)
#define __BPF_CAST10(a, ...) __CAST_TO_U64(a), __BPF_CAST9(__VA_ARGS__)
#define __BPF_CAST11(a, ...) __CAST_TO_U64(a), __BPF_CAST10(__VA_ARGS__)
#define __BPF_CAST12(a, ...) __CAST_TO_U64(a), __BPF_CAST11(__VA_ARGS__)
#define __BPF_CASTN(n, ...) __BPF_CASTN_(n, __VA_ARGS__)
#define __BPF_CASTN_(n, ...) __BPF_CAST##n(__VA_ARGS__)
#define CAST_TO_U64(...) __BPF_CASTN(COUNT_ARGS(__VA_ARGS__), __VA_ARGS__)
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	notrace void __bpf_trace_##name(proto) \
	{ \
		struct bpf_prog_array *__progs = READ_ONCE(__tracepoint_##name.bpf_raw); \
		if (__progs) { \
			u64 __args[] = { CAST_TO_U64(args) }; \
			bpf_trace_run(__progs, __args); \
		} \
	}
#include "../include/trace/events.h"
#undef TRACE_EVENT
#undef __field
#undef __array
#undef __string
#undef __dynamic_array

#undef __get_dynamic_array
#undef __get_str
#undef __assign_str

/* pass 3: metadata, print fmt stringified as Linux does (REC-> for __entry->) */
#undef TRACE_DEFINE_ENUM
#undef TRACE_PRINT_ENUM
/* (the name stringified and pasted here, before any expansion: some are macros) */
#define TRACE_DEFINE_ENUM(a) \
	static const struct trace_eval_map __used __aligned(8) __section("_ftrace_eval_map") \
		__eval_map_##a = { __stringify(TRACE_SYSTEM), #a, a, 1 }
#define TRACE_PRINT_ENUM(a) \
	static const struct trace_eval_map __used __aligned(8) __section("_ftrace_eval_map") \
		__eval_map_##a = { __stringify(TRACE_SYSTEM), #a, a, 0 }
/* an enum the printer knows in one system, whose name another system's eval map replaces */
#undef TRACE_PRINT_ENUM_OF
#define TRACE_PRINT_ENUM_OF(sys, a) \
	static const struct trace_eval_map __used __aligned(8) __section("_ftrace_eval_map") \
		__eval_map_##sys##_##a = { __stringify(TRACE_SYSTEM), #a, a, 0 }
#undef TRACE_PRINT_VALUE
#undef TRACE_PRINT_STRUCT
#define TRACE_PRINT_VALUE(name, value) \
	static const struct trace_eval_map __used __aligned(8) __section("_ftrace_eval_map") \
		__eval_map_##name = { __stringify(TRACE_SYSTEM), #name, value, 0 }
#define TRACE_PRINT_STRUCT(s) \
	static const struct trace_eval_map __used __aligned(8) __section("_ftrace_eval_map") \
		__eval_map_struct_##s = { __stringify(TRACE_SYSTEM), "struct " #s, sizeof(struct s), 0 }
#define __entry REC
#define TP_printk(fmt, args...) "\"" fmt "\", " __stringify(args)
#define __field(t, n) { #t, #n, offsetof(__this_t, n), sizeof(t), is_signed_type(t), 0 },
#define __array(t, n, l) { #t "[" __stringify(l) "]", #n, offsetof(__this_t, n), sizeof(t) * (l), is_signed_type(t), 0 },
#define __string(n, src) { "__data_loc char[]", #n, offsetof(__this_t, __data_loc_##n), 4, 1, 0 },
#define __dynamic_array(t, n, len) \
	{ "__data_loc " #t "[]", #n, offsetof(__this_t, __data_loc_##n), 4, is_signed_type(t), 0 },
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	notrace __used const struct trace_event_meta *trace_event_define_fields_##name(void) \
	{ \
		typedef struct trace_event_raw_##name __this_t; \
		static const struct trace_field_meta fields[] = { tstruct }; \
		static const struct trace_event_meta meta __used __aligned(8) __section("_ftrace_events") = { \
			__stringify(TRACE_SYSTEM), #name, print, &__tracepoint_##name.key, \
			fields, ARRAY_SIZE(fields), -1, &__tracepoint_##name.file }; \
		return &meta; \
	}
#include "../include/trace/events.h"
#undef TRACE_EVENT
#undef __field
#undef __array
#undef __string
#undef __dynamic_array
#undef TRACE_SYSTEM
#undef __entry

