/*
 * Tracepoints the kernel way: every trace_<event>() call site is a 5-byte
 * jump label (a nop5 recorded in __jump_table with its static key); the probe
 * engine enables an event by patching the nop into a jmp to the out-of-line
 * block, which calls the notrace trace_event_raw_event_<event>().  Event
 * metadata (fields, print fmt, key) is emitted into the _ftrace_events section.
 */
#ifndef _TRACE_H
#define _TRACE_H
#include "../kernel.h"
#include "../signal.h"	/* signal events: struct k_sigaction */
#include "../blkdev.h"	/* block events: bios, requests */
#include "../pagemap.h"	/* filemap and writeback events */
#include "../buffer_head.h"	/* block_dirty_buffer */
#include "../cpufreq.h"	/* power events: a cpufreq policy's limits */
#include "ring.h"

struct static_key { int enabled; };
/*
 * A tracepoint: its key and event file belong to the host's tracing; kernel_key to the kernel's
 * own users of the tracepoint (Linux registers their probes on the same tracepoint; here each
 * owner patches its own sites): perf_events, with the per-cpu lists of the perf events active on
 * it and the BPF programs attached to those (kernel/trace_event_perf.c), and raw tracepoint BPF
 * programs (kernel/bpf_trace.c).  Each site has a second jump label that calls
 * perf_trace_<event>() and __bpf_trace_<event>() (kernel/events.c) while any of them is there;
 * each returns at once when it has nothing to do.
 */
struct bpf_prog_array;
struct tracepoint {
	const char *name;
	struct static_key key;
	struct trace_event_file file;
	struct static_key kernel_key;	/* perf_refcount + raw tracepoint links */
	int perf_refcount;
	struct list_head *perf_events;	/* [NR_CPUS], while perf_refcount */
	struct bpf_prog_array *prog_array;	/* tracepoint programs of its perf events (call->prog_array) */
	struct bpf_prog_array *bpf_raw;	/* raw tracepoint programs (each Linux's probe on the tracepoint) */
	u32 num_args;
};
/* kernel/bpf_trace.c: run a raw tracepoint's programs on its arguments */
void bpf_trace_run(struct bpf_prog_array *progs, u64 *args);
struct jump_entry { u64 code; u64 target; u64 key; };

static __always_inline bool arch_static_branch(struct static_key *key)
{
	asm goto("1: .byte 0x0f,0x1f,0x44,0x00,0x00\n\t"
		 ".pushsection __jump_table, \"aw\"\n\t"
		 ".balign 8\n\t"
		 ".quad 1b, %l[l_yes], %c0\n\t"
		 ".popsection"
		 : : "i"(key) : : l_yes);
	return false;
l_yes:
	return true;
}
#define static_branch_unlikely(k) arch_static_branch(k)

struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

/* the kernel_stack record (struct stack_entry of trace_entries.h) */
struct stack_entry {
	struct trace_entry ent;
	int size;
	int pad;
	unsigned long caller[];
};

/* the user_stack record (struct userstack_entry of trace_entries.h) */
struct userstack_entry {
	struct trace_entry ent;
	unsigned int tgid;
	int pad;
	unsigned long caller[8];	/* FTRACE_STACK_ENTRIES */
};

struct trace_field_meta {
	const char *type;
	const char *name;
	u32 offset;
	u32 size;
	u32 is_signed;
	u32 pad;
};
struct trace_event_meta {
	const char *system;
	const char *name;
	const char *print_fmt;
	struct static_key *key;
	const struct trace_field_meta *fields;
	u64 nr_fields;
	s64 syscall_nr;		/* -1 unless a syscalls: event (then key is raw_syscalls') */
	struct trace_event_file *file;	/* the event's enable bits and id, set by the host */
};

/*
 * An enum constant a print fmt names (kernel/trace/trace_events.c's eval maps): with
 * TRACE_DEFINE_ENUM the host replaces the name by its value in the event's format, as
 * trace_event_eval_update() does at boot; with TRACE_PRINT_ENUM the name stays in the format
 * (Linux 6.1 defines no eval map for it) and only the printer resolves it, as Linux's
 * compiled TP_printk() does; TRACE_PRINT_VALUE and TRACE_PRINT_STRUCT give it a kernel
 * variable's value (constant in this kernel) and the size of a struct the format casts a
 * pointer to.  Emitted by kernel/events.c into _ftrace_eval_map.
 */
struct trace_eval_map {
	const char *system;
	const char *eval_string;
	unsigned long eval_value;
	unsigned long in_format;	/* 1: TRACE_DEFINE_ENUM */
};

/*
 * tracepoint_string(): a constant string an event records by address (rcu_utilization's);
 * the __tracepoint_str section lists them, for printk_formats and the printers.
 */
#define __tracepoint_string __used __section("__tracepoint_str")
#define tracepoint_string(str) \
	({ static const char *___tp_str __tracepoint_string = str; ___tp_str; })

#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)
#define TP_PROTO(args...) args
#define TP_ARGS(args...) args
#define PARAMS(args...) args

/*
 * Linux's saved_cmdlines: the comms of tasks seen switching or waking while
 * any event is enabled (trace_cmdline_key on), so that the trace output can
 * name tasks that exited before it was read.  Read by the host.
 */
#define SAVED_CMDLINES 128
struct saved_cmdline { s32 pid; char comm[TASK_COMM_LEN]; };
/* A task's rename (exec, PR_SET_NAME) while events were on: its comm until `ts` (the events'
 * clock), for the host's filters to compare a record of that time with (trace_cmdline.c) */
#define COMM_RENAMES 32
struct comm_rename { s32 pid; u32 pad; u64 ts; char comm_before[TASK_COMM_LEN]; };
struct saved_cmdlines {
	u32 next;			/* the entry replaced next (round robin) */
	u32 renames_next;		/* the rename written next (its index modulo COMM_RENAMES) */
	struct saved_cmdline entry[SAVED_CMDLINES];
	struct comm_rename renames[COMM_RENAMES];
};
extern struct saved_cmdlines saved_cmdlines;
extern struct static_key trace_cmdline_key;
/* callers hold sched_lock, which serializes the table */
void tracing_record_taskinfo_sched_switch(struct task_struct *prev, struct task_struct *next);
/* a task's comm changed from comm_before: saved at once (the host's filters compare it, see
 * trace_cmdline.c) */
void tracing_record_task_rename(struct task_struct *tsk, const char *comm_before);

/* trace_set_clr_event(): the top-level array's events of system named event enabled (set) or
 * disabled, as their enable files would do it; sleeps (the host keeps the files:
 * kernel/trace_events.c); 0 or -errno (-EINVAL: none matched) */
int trace_set_clr_event(const char *system, const char *event, int set);

void tracing_generic_entry_update(struct trace_entry *ent, const struct trace_event_file *file,
				  unsigned long irqflags);

/*
 * tracing_gen_ctx_dec() of Linux 6.1 (kernel/trace/trace.h, trace.c), as
 * trace_event_buffer_reserve() takes it: flags from the interrupted state,
 * the preempt depth less the tracepoint's own preempt_disable (so `d..2.` in
 * __schedule, `.....` for raw_syscalls; the syscalls:* probes disable
 * preemption once more and show `...1.`), no migrate_disable in this kernel.
 * x86 folds need_resched into the preempt count whenever it is set on this
 * cpu or by the resched IPI, so both bits.  The common fields are one
 * quadword, written at once; masks, not branches (each ends an emulated block).
 * count is the preempt count to show plus one (the tracepoint's own
 * preempt_disable; a writer that skips the one it stands for passes this
 * cpu's count + 1; one with none to stand for, 0 in the low byte: it wraps).
 */
extern const u8 trace_preempt_depth[256];	/* kernel/events.c: the depth field of each count's low byte */

static __always_inline void trace_entry_fill_count(struct percpu *pc, void *ent, u16 type, unsigned long irqflags,
						   pid_t pid, unsigned int count)
{
	typedef u64 __attribute__((may_alias)) u64_alias;
	unsigned int depth = trace_preempt_depth[count & 0xff], flags;

	flags = TRACE_FLAG_IRQS_OFF * !(irqflags & X86_EFLAGS_IF) |
		TRACE_FLAG_NMI * !!(count & NMI_MASK) |
		TRACE_FLAG_HARDIRQ * !!(count & HARDIRQ_MASK) |
		TRACE_FLAG_SOFTIRQ * !!(count & SOFTIRQ_OFFSET) |
		(TRACE_FLAG_NEED_RESCHED | TRACE_FLAG_PREEMPT_RESCHED) * !!pc->need_resched;
	/* a writer with no preempt_disable of its own (an int3's handler): 6.1's decrement of the
	 * whole context word borrows from the flags (the depth byte is then 0xff) */
	flags = (flags - !(count & 0xff)) & 0xff;
	*(u64_alias *)ent = type | flags << 16 | depth << 24 | (u64)(u32)pid << 32;
}

/* with this cpu's preempt count */
static __always_inline void trace_entry_fill(struct percpu *pc, void *ent, u16 type, unsigned long irqflags,
					     pid_t pid)
{
	trace_entry_fill_count(pc, ent, type, irqflags, pid, pc->preempt_count);
}

/* The current task's pid, 0 before the cpu runs one; a select, not a branch. */
static __always_inline pid_t trace_current_pid(struct percpu *pc)
{
	static const pid_t no_task_pid;
	struct task_struct *t = pc->curr_task;
	unsigned long task = -(unsigned long)(t != NULL);	/* a mask: the compiler turns t ? : into a branch */

	return *(const pid_t *)(((unsigned long)&t->pid & task) | ((unsigned long)&no_task_pid & ~task));
}

/*
 * arch_local_irq_restore() for the tracers' writers: a popf (as Linux's
 * native_restore_fl once was) rather than a test and an sti, one emulated
 * block boundary instead of three (the branch, the sti, its interrupt shadow).
 */
static __always_inline void trace_irq_restore(unsigned long flags)
{
	asm volatile("pushq %0; popfq" : : "g"(flags) : "memory", "cc");
}

/* raw_syscalls' tracepoints also carry the probes of the syscalls:* events
 * (Linux's ftrace_syscall_enter/exit and perf_syscall_enter/exit, registered on the same
 * tracepoint): `probe` names both, ftrace_<probe> and perf_<probe>. */
#define TRACE_EVENT_SYSCALL(name, probe, proto, args, tstruct, assign, print) \
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), PARAMS(print))
/* block's tracepoints also carry blktrace's probes (kernel/blktrace.c's blk_add_trace_<probe>,
 * which blk_register_tracepoints() registers while a queue traces: the kernel_key's sites) */
#define TRACE_EVENT_BLK(name, probe, proto, args, tstruct, assign, print) \
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), PARAMS(print))

/* __DO_TRACE: the probes run with preemption disabled (rcu_read_lock_sched) */
#ifndef CREATE_TRACE_POINTS
#define TRACE_DEFINE_ENUM(a)
#define TRACE_PRINT_ENUM(a)
#define TRACE_PRINT_ENUM_OF(sys, a)
#define TRACE_PRINT_VALUE(name, value)
#define TRACE_PRINT_STRUCT(s)
/* the tracepoint's trace_<name>(); kernel_probes: calls of further probes of its kernel_key's */
#define __TRACEPOINT_CALLS(name, proto, args, kernel_probes) \
	extern struct tracepoint __tracepoint_##name; \
	void trace_event_raw_event_##name(proto); \
	void perf_trace_##name(proto); \
	void __bpf_trace_##name(proto); \
	static __always_inline void trace_##name(proto) \
	{ \
		if (static_branch_unlikely(&__tracepoint_##name.key)) { \
			preempt_disable(); \
			trace_event_raw_event_##name(args); \
			preempt_enable_no_resched(); \
		} \
		if (static_branch_unlikely(&__tracepoint_##name.kernel_key)) { \
			preempt_disable(); \
			perf_trace_##name(args); \
			kernel_probes \
			__bpf_trace_##name(args); \
			preempt_enable_no_resched(); \
		} \
	}
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	__TRACEPOINT_CALLS(name, PARAMS(proto), PARAMS(args), )
/*
 * Linux registers the syscalls:* probes on raw_syscalls' tracepoints only
 * while one of those events is enabled; here the probe is called only for a
 * syscall whose event some trace array has enabled (kernel/trace_syscalls.c
 * keeps the per-syscall files).  Masks, not branches: a syscall number out
 * of range reads entry 0, and its result is masked off.
 */
extern struct trace_event_file syscall_enter_files[NR_syscalls], syscall_exit_files[NR_syscalls];

static __always_inline u64 ftrace_syscall_enter_wanted(struct pt_regs *regs, long id)
{
	u64 in_range = (unsigned long)id < NR_syscalls;
	const struct trace_event_file *f = &syscall_enter_files[id & -(long)in_range];

	return (READ_ONCE(f->slots) | READ_ONCE(f->triggers)) & -in_range;
}

static __always_inline u64 ftrace_syscall_exit_wanted(struct pt_regs *regs, long ret)
{
	unsigned long id = regs->orig_ax;
	u64 in_range = id < NR_syscalls;
	const struct trace_event_file *f = &syscall_exit_files[id & -(unsigned long)in_range];

	return (READ_ONCE(f->slots) | READ_ONCE(f->triggers)) & -in_range;
}

#undef TRACE_EVENT_SYSCALL
#define TRACE_EVENT_SYSCALL(name, probe, proto, args, tstruct, assign, print) \
	extern struct tracepoint __tracepoint_##name; \
	void trace_event_raw_event_##name(proto); \
	void perf_trace_##name(proto); \
	void ftrace_##probe(proto); \
	void perf_##probe(proto); \
	void __bpf_trace_##name(proto); \
	static __always_inline void trace_##name(proto) \
	{ \
		if (static_branch_unlikely(&__tracepoint_##name.key)) { \
			preempt_disable(); \
			trace_event_raw_event_##name(args); \
			if (unlikely(ftrace_##probe##_wanted(args))) \
				ftrace_##probe(args); \
			preempt_enable_no_resched(); \
		} \
		if (static_branch_unlikely(&__tracepoint_##name.kernel_key)) { \
			preempt_disable(); \
			perf_trace_##name(args); \
			perf_##probe(args); \
			__bpf_trace_##name(args); \
			preempt_enable_no_resched(); \
		} \
	}
#undef TRACE_EVENT_BLK
#define TRACE_EVENT_BLK(name, probe, proto, args, tstruct, assign, print) \
	void blk_add_trace_##probe(proto); \
	__TRACEPOINT_CALLS(name, PARAMS(proto), PARAMS(args), blk_add_trace_##probe(args);)
#include "events.h"
#undef TRACE_EVENT
#endif
#endif
