/*
 * Instantiates the tracepoints of include/trace/events.h: the record struct,
 * the static key, the notrace trace_event_raw_event_<name>() that fills a
 * record, and the metadata (fields + print fmt) in _ftrace_events.
 */
#define CREATE_TRACE_POINTS
#include "../include/kernel.h"
#include "../include/trace/trace.h"

#define is_signed_type(t) (((t)(-1)) < (t)1)
#define TP_STRUCT__entry(args...) args
#define TP_fast_assign(args...) args

static __always_inline long __trace_sched_switch_state(bool preempt, unsigned int prev_state,
						       struct task_struct *p)
{
	unsigned int state = (prev_state | p->exit_state) & TASK_REPORT;

	if (preempt)
		return TASK_REPORT_MAX;
	if (p->flags & PF_KTHREAD && prev_state == TASK_UNINTERRUPTIBLE)
		state = TASK_REPORT_IDLE;
	return state ? (1 << __builtin_ctz(state)) : 0;
}

static __always_inline void syscall_get_arguments(struct pt_regs *regs, unsigned long *args)
{
	args[0] = regs->di; args[1] = regs->si; args[2] = regs->dx;
	args[3] = regs->r10; args[4] = regs->r8; args[5] = regs->r9;
}

/* pass 1: record layouts */
#define __field(t, n) t n;
#define __array(t, n, l) t n[l];
#define __string(n, src) u32 __data_loc_##n;
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	struct trace_event_raw_##name { struct trace_entry ent; tstruct char __data[]; };
#include "../include/trace/events.h"
#undef TRACE_EVENT
#undef __field
#undef __array
#undef __string

/* pass 2: static keys and the fast-assign bodies */
static notrace void tracing_generic_entry_update(struct trace_entry *ent)
{
	unsigned long flags;

	asm volatile("pushfq; popq %0" : "=r"(flags));
	ent->type = 0;
	ent->flags = (flags & X86_EFLAGS_IF ? 0 : 0x01) | (this_cpu()->need_resched ? 0x08 : 0);
	ent->preempt_count = this_cpu()->preempt_count;
	ent->pid = current ? current->pid : 0;
}

notrace void *trace_event_buffer_reserve(size_t len)
{
	struct percpu *pc = this_cpu();

	if (len > sizeof(pc->scratch))
		return NULL;
	return pc->scratch;
}

#define __field(t, n)
#define __array(t, n, l)
#define __string(n, src) __dyn_size += strlen(src) + 1;
#define __assign_str(n, src) do { \
	size_t __l = strlen(src) + 1; \
	memcpy((char *)__entry + sizeof(*__entry), (src), __l); \
	__entry->__data_loc_##n = (u32)sizeof(*__entry) | ((u32)__l << 16); \
} while (0)
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	struct tracepoint __tracepoint_##name = { #name, { 0 } }; \
	notrace void trace_event_raw_event_##name(proto) \
	{ \
		struct trace_event_raw_##name *__entry; \
		size_t __dyn_size = 0; \
		tstruct \
		__entry = trace_event_buffer_reserve(sizeof(*__entry) + __dyn_size); \
		if (!__entry) \
			return; \
		tracing_generic_entry_update(&__entry->ent); \
		{ assign } \
	}
#include "../include/trace/events.h"
#undef TRACE_EVENT
#undef __field
#undef __array
#undef __string

/* pass 3: metadata, print fmt stringified as Linux does (REC-> for __entry->) */
#define __entry REC
#define IS_ENABLED(x) 1
#define TP_printk(fmt, args...) "\"" fmt "\", " __stringify(args)
#define __field(t, n) { #t, #n, offsetof(__this_t, n), sizeof(t), is_signed_type(t), 0 },
#define __array(t, n, l) { #t "[" __stringify(l) "]", #n, offsetof(__this_t, n), sizeof(t) * (l), is_signed_type(t), 0 },
#define __string(n, src) { "__data_loc char[]", #n, offsetof(__this_t, __data_loc_##n), 4, 1, 0 },
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	notrace __used const struct trace_event_meta *trace_event_define_fields_##name(void) \
	{ \
		typedef struct trace_event_raw_##name __this_t; \
		static const struct trace_field_meta fields[] = { tstruct }; \
		static const struct trace_event_meta meta __used __aligned(8) __section("_ftrace_events") = { \
			__stringify(TRACE_SYSTEM), #name, print, &__tracepoint_##name.key, \
			fields, ARRAY_SIZE(fields), -1 }; \
		return &meta; \
	}
#include "../include/trace/events.h"
#undef TRACE_EVENT
#undef __field
#undef __array
#undef __string
#undef TRACE_SYSTEM
#undef __entry

/*
 * syscalls:sys_enter_<name>/sys_exit_<name>: as in Linux they have no key of
 * their own; they ride on raw_syscalls sys_enter/sys_exit, filtered by nr.
 */
#define SC_F(t, n, i) { #t, #n, 16 + 8 * (i), 8, 0, 0 },
#define SC_P(n) ((unsigned long)(REC->n))
#define SC_META(nr, sname, fmtstr, fieldlist) \
	static const struct trace_field_meta sys_enter_##sname##_fields[] = { \
		{ "int", "__syscall_nr", 8, 4, 1, 0 }, fieldlist }; \
	static const struct trace_event_meta sys_enter_##sname##_meta __used __aligned(8) __section("_ftrace_events") = { \
		"syscalls", "sys_enter_" #sname, fmtstr, &__tracepoint_sys_enter.key, \
		sys_enter_##sname##_fields, ARRAY_SIZE(sys_enter_##sname##_fields), nr }; \
	static const struct trace_event_meta sys_exit_##sname##_meta __used __aligned(8) __section("_ftrace_events") = { \
		"syscalls", "sys_exit_" #sname, "\"0x%lx\", REC->ret", &__tracepoint_sys_exit.key, \
		sys_exit_fields, ARRAY_SIZE(sys_exit_fields), nr };
static const struct trace_field_meta sys_exit_fields[] = {
	{ "int", "__syscall_nr", 8, 4, 1, 0 }, { "long", "ret", 16, 8, 1, 0 } };

#define SC0(nr, s) SC_META(nr, s, "\"\"", )
#define SC1(nr, s, t1, n1) SC_META(nr, s, \
	"\"" #n1 ": 0x%08lx\", " __stringify(SC_P(n1)), SC_F(t1, n1, 0))
#define SC2(nr, s, t1, n1, t2, n2) SC_META(nr, s, \
	"\"" #n1 ": 0x%08lx, " #n2 ": 0x%08lx\", " __stringify(SC_P(n1), SC_P(n2)), \
	SC_F(t1, n1, 0) SC_F(t2, n2, 1))
#define SC3(nr, s, t1, n1, t2, n2, t3, n3) SC_META(nr, s, \
	"\"" #n1 ": 0x%08lx, " #n2 ": 0x%08lx, " #n3 ": 0x%08lx\", " \
	__stringify(SC_P(n1), SC_P(n2), SC_P(n3)), \
	SC_F(t1, n1, 0) SC_F(t2, n2, 1) SC_F(t3, n3, 2))
#define SC4(nr, s, t1, n1, t2, n2, t3, n3, t4, n4) SC_META(nr, s, \
	"\"" #n1 ": 0x%08lx, " #n2 ": 0x%08lx, " #n3 ": 0x%08lx, " #n4 ": 0x%08lx\", " \
	__stringify(SC_P(n1), SC_P(n2), SC_P(n3), SC_P(n4)), \
	SC_F(t1, n1, 0) SC_F(t2, n2, 1) SC_F(t3, n3, 2) SC_F(t4, n4, 3))
#define SC5(nr, s, t1, n1, t2, n2, t3, n3, t4, n4, t5, n5) SC_META(nr, s, \
	"\"" #n1 ": 0x%08lx, " #n2 ": 0x%08lx, " #n3 ": 0x%08lx, " #n4 ": 0x%08lx, " #n5 ": 0x%08lx\", " \
	__stringify(SC_P(n1), SC_P(n2), SC_P(n3), SC_P(n4), SC_P(n5)), \
	SC_F(t1, n1, 0) SC_F(t2, n2, 1) SC_F(t3, n3, 2) SC_F(t4, n4, 3) SC_F(t5, n5, 4))

SC3(0, read, unsigned int, fd, char *, buf, size_t, count)
SC3(1, write, unsigned int, fd, const char *, buf, size_t, count)
SC3(2, open, const char *, filename, int, flags, umode_t, mode)
SC1(3, close, unsigned int, fd)
SC2(35, nanosleep, struct __kernel_timespec *, rqtp, struct __kernel_timespec *, rmtp)
SC0(39, getpid)
SC5(56, clone, unsigned long, clone_flags, unsigned long, newsp, int *, parent_tidptr, int *, child_tidptr, unsigned long, tls)
SC3(59, execve, const char *, filename, const char *const *, argv, const char *const *, envp)
SC1(60, exit, int, error_code)
SC0(102, getuid)
SC1(231, exit_group, int, error_code)
SC4(232, epoll_wait, int, epfd, struct epoll_event *, events, int, maxevents, int, timeout)
SC4(257, openat, int, dfd, const char *, filename, int, flags, umode_t, mode)
SC0(57, fork)
SC4(61, wait4, pid_t, upid, int *, stat_addr, int, options, struct rusage *, ru)
SC0(110, getppid)
SC1(291, epoll_create1, int, flags)
SC3(318, getrandom, char *, ubuf, size_t, len, unsigned int, flags)
