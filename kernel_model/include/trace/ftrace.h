/*
 * The function tracers' guest side (kernel/ftrace.c, arch/ftrace_64.S).
 *
 * Every traceable function starts with the 5-byte nop listed in __mcount_loc
 * (sorted by address: the host checks it, the dispatcher binary-searches
 * it).  The host (src/tracefs_sim/probes/ftrace.py) enables a site by
 * rewriting its nop into `call ftrace_caller`, and says in ftrace_control
 * what the site does: which trace-array slots record it with the function
 * tracer, which with function_graph, whether set_graph_function /
 * set_graph_notrace name it, whether an ftrace-based kprobe sits there.
 * The static asserts pin the layout the host mirrors.
 */
#ifndef _TRACE_FTRACE_H
#define _TRACE_FTRACE_H
#include "../kernel.h"
#include "ring.h"

#define FTRACE_MAX_SITES	2048
#define FTRACE_PIDS_MAX		64
#define FTRACE_STACK_MAX	32	/* frames a kernel_stack record holds at most */

/* kernel/trace/trace.h: enum trace_type */
#define TRACE_FN		1
#define TRACE_STACK		4
#define TRACE_GRAPH_RET		10
#define TRACE_GRAPH_ENT		11

/* ftrace_site_state.graph_flags */
#define FTRACE_GRAPH_FUNCTION	0x01	/* in set_graph_function */
#define FTRACE_GRAPH_NOTRACE	0x02	/* in set_graph_notrace */

struct ftrace_site_state {		/* host-written, one per site */
	u8 func_slots;			/* bit s: slot s traces it with `function` */
	u8 graph_slots;			/* bit s: slot s traces it with `function_graph` */
	u8 graph_flags;
	u8 kprobe;			/* != 0: ftrace_caller runs the kprobe hook */
};

struct ftrace_slot_state {		/* host-written, one per trace-array slot */
	u32 nr_pids;			/* set_ftrace_pid: 0 = no filter */
	u32 nr_notrace_pids;		/* set_ftrace_notrace_pid */
	s32 pids[FTRACE_PIDS_MAX];
	s32 notrace_pids[FTRACE_PIDS_MAX];
};

/* Host-written.  The masks summarize the slots so that the common case (no
 * filter, no stack trace) takes no branch per slot: every branch ends an
 * emulated block, the unit the emulator's cost goes by. */
struct ftrace_control {
	u32 max_graph_depth;		/* 0 = unlimited */
	u32 graph_filtered;		/* set_graph_function is not empty */
	u32 pid_filtered;		/* bit s: slot s has a pid list or a notrace pid list */
	u32 stack_trace;		/* bit s: options/func_stack_trace of slot s */
	u32 graph_skip_irqs;		/* options/funcgraph-irqs off: hardirq context not graphed */
	u32 pad;
	struct ftrace_slot_state slots[TRACE_SLOTS];
	struct ftrace_site_state sites[FTRACE_MAX_SITES];
};

_Static_assert(sizeof(struct ftrace_site_state) == 4, "ftrace_site_state layout");
_Static_assert(sizeof(struct ftrace_slot_state) == 520, "ftrace_slot_state layout");
_Static_assert(offsetof(struct ftrace_control, slots) == 24, "ftrace_control layout");
_Static_assert(offsetof(struct ftrace_control, sites) == 24 + 520 * TRACE_SLOTS, "ftrace_control layout");
_Static_assert(offsetof(struct task_struct, ret_stack) + sizeof(((struct task_struct *)0)->ret_stack)
	       <= 2048 - 16, "task_struct must fit the largest kmalloc class");

extern struct ftrace_control ftrace_control;
extern struct trace_control trace_control;
extern const u64 __start_mcount_loc[], __stop_mcount_loc[];

/* arch/ftrace_64.S */
void ftrace_caller(void);
void return_to_handler(void);
void ftrace_kprobe_hook(struct pt_regs *regs);

/* kernel/ftrace.c, called from ftrace_64.S with interrupts off */
void ftrace_dispatch(unsigned long ip, unsigned long parent_ip, struct pt_regs *regs);
unsigned long ftrace_return_to_handler(unsigned long flags);

/* kernel/trace_ring.c */
u64 trace_clock_local(struct percpu *pc);
#endif
