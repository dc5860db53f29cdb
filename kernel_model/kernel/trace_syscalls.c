/*
 * syscalls:sys_enter_<name>/sys_exit_<name> (kernel/trace/trace_syscalls.c):
 * as in Linux they have no key of their own.  Their probes ride on the
 * raw_syscalls sys_enter/sys_exit tracepoints, filtered by syscall number,
 * and write the syscalls' own records (nr + arguments, nr + return value).
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/trace/trace_pid.h"
#include "../include/trace/trigger.h"

/* syscall_events.h's SCn(nr, name, type, arg, ...): an event of n arguments */
#define SC0(nr, sname) SYSCALL_EVENT(nr, sname, 0)
#define SC1(nr, sname, ...) SYSCALL_EVENT(nr, sname, 1, __VA_ARGS__)
#define SC2(nr, sname, ...) SYSCALL_EVENT(nr, sname, 2, __VA_ARGS__)
#define SC3(nr, sname, ...) SYSCALL_EVENT(nr, sname, 3, __VA_ARGS__)
#define SC4(nr, sname, ...) SYSCALL_EVENT(nr, sname, 4, __VA_ARGS__)
#define SC5(nr, sname, ...) SYSCALL_EVENT(nr, sname, 5, __VA_ARGS__)
#define SC6(nr, sname, ...) SYSCALL_EVENT(nr, sname, 6, __VA_ARGS__)

/* nargs of each syscall's enter event (the record holds that many args) */
#define SYSCALL_EVENT(nr, sname, n, ...) [nr] = { .nargs = n },
struct trace_event_file syscall_enter_files[NR_syscalls] = {
#include "syscall_events.h"
};
struct trace_event_file syscall_exit_files[NR_syscalls];
#undef SYSCALL_EVENT

struct syscall_trace_enter { struct trace_entry ent; int nr; unsigned long args[6]; };
struct syscall_trace_exit { struct trace_entry ent; int nr; long ret; };

/* The record's commit, or with triggers on the event, the triggers' run (the record in the scratch). */
static __always_inline void syscall_event_commit(const struct trace_event_file *file, bool triggers, void *rec,
						 u32 len, unsigned long irqflags, unsigned long writer)
{
	const u64 *pid_ext = trace_ext_all;
	u64 buf[TRACE_EXT_WORDS], pid_slots;

	if (likely(!triggers)) {
		trace_event_commit(rec, len);
		return;
	}
	pid_slots = trace_pid_filter_event(this_cpu(), ~0ULL, &pid_ext, buf);
	event_triggers_record(file, rec, len, pid_slots, pid_ext, irqflags,
				      writer, (unsigned long)__builtin_frame_address(0), (unsigned long)__builtin_frame_address(0));
}

/* ftrace_syscall_enter(): a probe on raw_syscalls:sys_enter */
notrace void ftrace_syscall_enter(struct pt_regs *regs, long id)
{
	const struct trace_event_file *file;
	struct syscall_trace_enter *rec;
	unsigned long irqflags;
	unsigned int i, nargs;
	bool triggers;

	if ((unsigned long)id >= NR_syscalls)
		return;
	file = &syscall_enter_files[id];
	if (!(READ_ONCE(file->slots) | READ_ONCE(file->triggers)))
		return;
	nargs = file->nargs;
	preempt_disable();	/* guard(preempt_notrace) of the syscall probes */
	irqflags = arch_local_irq_save();
	triggers = READ_ONCE(file->triggers);
	if (unlikely(triggers))		/* the record first, for the triggers */
		rec = event_trigger_scratch(offsetof(struct syscall_trace_enter, args) + sizeof(unsigned long) * nargs);
	else
		rec = trace_event_buffer_reserve(file, offsetof(struct syscall_trace_enter, args) +
						 sizeof(unsigned long) * nargs);
	if (rec) {
		/* syscall_get_arguments() */
		const unsigned long args[6] = { regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9 };

		tracing_generic_entry_update(&rec->ent, file, irqflags);
		rec->nr = id;
		for (i = 0; i < nargs; i++)
			rec->args[i] = args[i];
		syscall_event_commit(file, triggers, rec, offsetof(struct syscall_trace_enter, args) + sizeof(unsigned long) * nargs,
				     irqflags, (unsigned long)ftrace_syscall_enter);
	}
	arch_local_irq_restore(irqflags);
	preempt_enable_no_resched();
}

/* ftrace_syscall_exit(): a probe on raw_syscalls:sys_exit */
notrace void ftrace_syscall_exit(struct pt_regs *regs, long ret)
{
	long id = regs->orig_ax;
	const struct trace_event_file *file;
	struct syscall_trace_exit *rec;
	unsigned long irqflags;
	bool triggers;

	if ((unsigned long)id >= NR_syscalls)
		return;
	file = &syscall_exit_files[id];
	if (!(READ_ONCE(file->slots) | READ_ONCE(file->triggers)))
		return;
	preempt_disable();
	irqflags = arch_local_irq_save();
	triggers = READ_ONCE(file->triggers);
	if (unlikely(triggers))
		rec = event_trigger_scratch(sizeof(*rec));
	else
		rec = trace_event_buffer_reserve(file, sizeof(*rec));
	if (rec) {
		tracing_generic_entry_update(&rec->ent, file, irqflags);
		rec->nr = id;
		rec->ret = ret;
		syscall_event_commit(file, triggers, rec, sizeof(*rec), irqflags, (unsigned long)ftrace_syscall_exit);
	}
	arch_local_irq_restore(irqflags);
	preempt_enable_no_resched();
}

/*
 * Metadata in _ftrace_events, as 6.1's set_syscall_print_fmt() and
 * syscall_enter_define_fields() make it: each argument an unsigned long at
 * 16 + 8 * i, its type as SYSCALL_DEFINE wrote it, unsigned; print fmt
 * "a: 0x%08lx, b: 0x%08lx", ((unsigned long)(REC->a)), ((unsigned long)(REC->b)).
 */
#define SC_P(a) ((unsigned long)(REC->a))

/* SC_FMTn: "a: 0x%08lx, b: 0x%08lx" */
#define SC_FMT1(t, a) #a ": 0x%08lx"
#define SC_FMT2(t, a, ...) SC_FMT1(t, a) ", " SC_FMT1(__VA_ARGS__)
#define SC_FMT3(t, a, ...) SC_FMT1(t, a) ", " SC_FMT2(__VA_ARGS__)
#define SC_FMT4(t, a, ...) SC_FMT1(t, a) ", " SC_FMT3(__VA_ARGS__)
#define SC_FMT5(t, a, ...) SC_FMT1(t, a) ", " SC_FMT4(__VA_ARGS__)
#define SC_FMT6(t, a, ...) SC_FMT1(t, a) ", " SC_FMT5(__VA_ARGS__)

/* SC_ARGn: ", ((unsigned long)(REC->a)), ((unsigned long)(REC->b))" */
#define SC_ARG1(t, a) ", " __stringify(SC_P(a))
#define SC_ARG2(t, a, ...) SC_ARG1(t, a) SC_ARG1(__VA_ARGS__)
#define SC_ARG3(t, a, ...) SC_ARG1(t, a) SC_ARG2(__VA_ARGS__)
#define SC_ARG4(t, a, ...) SC_ARG1(t, a) SC_ARG3(__VA_ARGS__)
#define SC_ARG5(t, a, ...) SC_ARG1(t, a) SC_ARG4(__VA_ARGS__)
#define SC_ARG6(t, a, ...) SC_ARG1(t, a) SC_ARG5(__VA_ARGS__)

/* SC_FIELDn(i, ...): the fields of arguments i, i + 1, ... */
#define SC_FIELD1(i, t, a) { #t, #a, 16 + 8 * (i), 8, 0, 0 },
#define SC_FIELD2(i, t, a, ...) SC_FIELD1(i, t, a) SC_FIELD1(i + 1, __VA_ARGS__)
#define SC_FIELD3(i, t, a, ...) SC_FIELD1(i, t, a) SC_FIELD2(i + 1, __VA_ARGS__)
#define SC_FIELD4(i, t, a, ...) SC_FIELD1(i, t, a) SC_FIELD3(i + 1, __VA_ARGS__)
#define SC_FIELD5(i, t, a, ...) SC_FIELD1(i, t, a) SC_FIELD4(i + 1, __VA_ARGS__)
#define SC_FIELD6(i, t, a, ...) SC_FIELD1(i, t, a) SC_FIELD5(i + 1, __VA_ARGS__)

static const struct trace_field_meta sys_exit_fields[] = {
	{ "int", "__syscall_nr", 8, 4, 1, 0 }, { "long", "ret", 16, 8, 1, 0 } };

/* event_enter__<name>, event_exit__<name>: the names of 6.1's trace_event_calls */
#define SC_META(nr, sname, fmtstr, ...) \
	static const struct trace_field_meta sys_enter_##sname##_fields[] = { \
		{ "int", "__syscall_nr", 8, 4, 1, 0 }, __VA_ARGS__ }; \
	static const struct trace_event_meta event_enter__##sname __used __aligned(8) __section("_ftrace_events") = { \
		"syscalls", "sys_enter_" #sname, fmtstr, &__tracepoint_sys_enter.key, \
		sys_enter_##sname##_fields, ARRAY_SIZE(sys_enter_##sname##_fields), nr, &syscall_enter_files[nr] }; \
	static const struct trace_event_meta event_exit__##sname __used __aligned(8) __section("_ftrace_events") = { \
		"syscalls", "sys_exit_" #sname, "\"0x%lx\", REC->ret", &__tracepoint_sys_exit.key, \
		sys_exit_fields, ARRAY_SIZE(sys_exit_fields), nr, &syscall_exit_files[nr] };

#define SYSCALL_EVENT(nr, sname, nargs, ...) SC_META(nr, sname, \
	"\"" SC_FMT##nargs(__VA_ARGS__) "\"" SC_ARG##nargs(__VA_ARGS__), SC_FIELD##nargs(0, __VA_ARGS__))
#define SC_FMT0(...)
#define SC_ARG0(...)
#define SC_FIELD0(...)
#include "syscall_events.h"
#undef SYSCALL_EVENT
