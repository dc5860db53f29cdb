/*
 * syscalls:sys_enter_<name>/sys_exit_<name> (kernel/trace/trace_syscalls.c):
 * as in Linux they have no key of their own.  Their probes ride on the
 * raw_syscalls sys_enter/sys_exit tracepoints, filtered by syscall number,
 * and write the syscalls' own records (nr + arguments, nr + return value).
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

/* nargs of each syscall's enter event (the record holds that many args) */
#define SC0(nr, s) [nr] = { 0, 0, 0 },
#define SC1(nr, s, ...) [nr] = { 0, 0, 1 },
#define SC2(nr, s, ...) [nr] = { 0, 0, 2 },
#define SC3(nr, s, ...) [nr] = { 0, 0, 3 },
#define SC4(nr, s, ...) [nr] = { 0, 0, 4 },
#define SC5(nr, s, ...) [nr] = { 0, 0, 5 },
struct trace_event_file syscall_enter_files[NR_syscalls] = {
#include "syscall_events.h"
};
struct trace_event_file syscall_exit_files[NR_syscalls];
#undef SC0
#undef SC1
#undef SC2
#undef SC3
#undef SC4
#undef SC5

struct syscall_trace_enter { struct trace_entry ent; int nr; unsigned long args[6]; };
struct syscall_trace_exit { struct trace_entry ent; int nr; long ret; };

/* ftrace_syscall_enter(): a probe on raw_syscalls:sys_enter */
notrace void ftrace_syscall_enter(struct pt_regs *regs, long id)
{
	const struct trace_event_file *file;
	struct syscall_trace_enter *rec;
	unsigned long irqflags;
	unsigned int i, nargs;

	if ((unsigned long)id >= NR_syscalls)
		return;
	file = &syscall_enter_files[id];
	if (!READ_ONCE(file->slots))
		return;
	nargs = file->nargs;
	preempt_disable();	/* guard(preempt_notrace) of the syscall probes */
	irqflags = arch_local_irq_save();
	rec = trace_event_buffer_reserve(file, offsetof(struct syscall_trace_enter, args) +
					 sizeof(unsigned long) * nargs);
	if (rec) {
		/* syscall_get_arguments() */
		const unsigned long args[6] = { regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9 };

		tracing_generic_entry_update(&rec->ent, file, irqflags);
		rec->nr = id;
		for (i = 0; i < nargs; i++)
			rec->args[i] = args[i];
		trace_event_commit(rec, offsetof(struct syscall_trace_enter, args) + sizeof(unsigned long) * nargs);
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

	if ((unsigned long)id >= NR_syscalls)
		return;
	file = &syscall_exit_files[id];
	if (!READ_ONCE(file->slots))
		return;
	preempt_disable();
	irqflags = arch_local_irq_save();
	rec = trace_event_buffer_reserve(file, sizeof(*rec));
	if (rec) {
		tracing_generic_entry_update(&rec->ent, file, irqflags);
		rec->nr = id;
		rec->ret = ret;
		trace_event_commit(rec, sizeof(*rec));
	}
	arch_local_irq_restore(irqflags);
	preempt_enable_no_resched();
}

/* metadata in _ftrace_events */
#define SC_F(t, n, i) { #t, #n, 16 + 8 * (i), 8, 0, 0 },
#define SC_P(n) ((unsigned long)(REC->n))
#define SC_META(nr, sname, fmtstr, fieldlist) \
	static const struct trace_field_meta sys_enter_##sname##_fields[] = { \
		{ "int", "__syscall_nr", 8, 4, 1, 0 }, fieldlist }; \
	static const struct trace_event_meta sys_enter_##sname##_meta __used __aligned(8) __section("_ftrace_events") = { \
		"syscalls", "sys_enter_" #sname, fmtstr, &__tracepoint_sys_enter.key, \
		sys_enter_##sname##_fields, ARRAY_SIZE(sys_enter_##sname##_fields), nr, &syscall_enter_files[nr] }; \
	static const struct trace_event_meta sys_exit_##sname##_meta __used __aligned(8) __section("_ftrace_events") = { \
		"syscalls", "sys_exit_" #sname, "\"0x%lx\", REC->ret", &__tracepoint_sys_exit.key, \
		sys_exit_fields, ARRAY_SIZE(sys_exit_fields), nr, &syscall_exit_files[nr] };
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


#include "syscall_events.h"
