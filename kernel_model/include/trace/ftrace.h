/*
 * The function tracers' guest side (kernel/ftrace.c, arch/ftrace_64.S).
 *
 * Every traceable function starts with the 5-byte nop listed in __mcount_loc
 * (sorted by address: the host checks it).  The host
 * (src/tracefs_sim/probes/ftrace.py) enables a site by rewriting its nop
 * into `call ftrace_caller` (`call ftrace_regs_caller` for a kprobe), and
 * says in the site's ftrace_site_map entry, found from its address in one
 * load, what the site does: which trace-array slots record it with the
 * function tracer, which with function_graph, whether set_graph_function /
 * set_graph_notrace name it, whether an ftrace-based kprobe sits there; and
 * in ftrace_control what the trace arrays filter.
 * The static asserts pin the layout the host mirrors.
 */
#ifndef _TRACE_FTRACE_H
#define _TRACE_FTRACE_H
#include "../kernel.h"
#include "ring.h"

#define FTRACE_MAX_SITES	4096
#define FTRACE_PIDS_MAX		64
#define FTRACE_STACK_MAX	32	/* frames a kernel_stack record holds at most */
#define FTRACE_STACK_ENTRIES	8	/* a user_stack record's frames (trace_entries.h) */
/* stack_entry.pad of the stacktrace option's records: it follows the event it was taken for
 * (the host drops it with that event when the event's filter does) */
#define STACK_FOLLOWS_EVENT	1
/* ftrace_site_map: entry (site - _stext) / FTRACE_MAP_GRAIN is the site's; functions are
 * 16-byte aligned, so no two sites share an entry (the host checks) */
#define FTRACE_MAP_GRAIN	16
#define FTRACE_MAP_ENTRIES	131072	/* 2 MiB of text */

/* kernel/trace/trace.h: enum trace_type */
#define TRACE_FN		1
#define TRACE_STACK		4
#define TRACE_PRINT		5
#define TRACE_GRAPH_RET		10
#define TRACE_GRAPH_ENT		11
#define TRACE_USER_STACK	12
#define TRACE_FUNC_REPEATS	19

/* ftrace_site_state.flags */
#define FTRACE_GRAPH_FUNCTION	0x01	/* in set_graph_function */
#define FTRACE_GRAPH_NOTRACE	0x02	/* in set_graph_notrace */
#define FTRACE_SITE_PROBES	0x04	/* function probes (set_ftrace_filter commands) sit here */
#define FTRACE_SITE_STACK	0x08	/* the stack tracer measures the stack here (stack_trace_filter) */
#define FTRACE_SITE_PROFILE	0x10	/* the function profiler counts and times it */
#define FTRACE_SITE_DIRECT	0x20	/* a BPF trampoline is called here too (an ftrace direct call) */

struct ftrace_site_state {		/* host-written, one per site */
	u64 func_slots;			/* bit s: slot s traces it with `function` */
	u64 graph_slots;		/* bit s: slot s traces it with `function_graph` */
	/* flags, kprobe and graph are one u32 the dispatcher's fast path reads */
	u8 flags;
	u8 kprobe;			/* != 0: the site calls ftrace_regs_caller, which runs the kprobe hook */
	u8 graph;			/* graph_slots != 0 */
	u8 pad;
	u32 pad2;
};

struct ftrace_site_entry {		/* host-written: ftrace_site_map's entry of a site */
	struct ftrace_site_state st;	/* all zero where no site is */
	u16 index;			/* the site's index in __mcount_loc + 1; 0: no site */
	u16 pad;
	u32 pad2;
};

/*
 * Function probes: the set_ftrace_filter commands (Linux's ftrace_probe_ops
 * of trace_functions.c and trace_events.c), run by the dispatcher at every
 * hit of a site flagged FTRACE_SITE_PROBES.  The host writes the table
 * with every CPU stopped, sorted by site; the guest decrements the counts.
 */
#define FTRACE_PROBES_MAX	4096

/* ftrace_probe.cmd */
#define FTRACE_PROBE_TRACEON		1	/* func:traceon */
#define FTRACE_PROBE_TRACEOFF		2	/* func:traceoff */
#define FTRACE_PROBE_TRACEON_COUNT	3	/* func:traceon:N */
#define FTRACE_PROBE_TRACEOFF_COUNT	4	/* func:traceoff:N */
#define FTRACE_PROBE_STACKTRACE		5	/* func:stacktrace */
#define FTRACE_PROBE_STACKTRACE_COUNT	6	/* func:stacktrace:N */
#define FTRACE_PROBE_ENABLE_EVENT	7	/* func:enable_event:sys:event[:N] (count -1: unlimited) */
#define FTRACE_PROBE_DISABLE_EVENT	8	/* func:disable_event:sys:event[:N] */
#define FTRACE_PROBE_SNAPSHOT		9	/* func:snapshot: the slot's snapshot, asked of the host */
#define FTRACE_PROBE_SNAPSHOT_COUNT	10	/* func:snapshot:N */
#define FTRACE_PROBE_DUMP		11	/* func:dump: ftrace_dump(DUMP_ALL), once (its count 1) */
#define FTRACE_PROBE_CPUDUMP		12	/* func:cpudump: ftrace_dump(DUMP_ORIG), every hit */

struct ftrace_probe {
	u16 site;			/* index of the site */
	u8 cmd;
	u8 pad;
	u16 slot;			/* the trace array it acts on (any of TRACE_SLOTS) */
	u16 counter;			/* index into ftrace_probes.counts */
	struct trace_event_file *file;	/* enable_event / disable_event: the event */
};

struct ftrace_probes {
	u32 nr;
	u32 pad;
	u16 first[FTRACE_MAX_SITES];	/* the site's first entry (nr: none) */
	s64 counts[FTRACE_PROBES_MAX];
	struct ftrace_probe probe[FTRACE_PROBES_MAX];
};

_Static_assert(sizeof(struct ftrace_probe) == 16, "ftrace_probe layout");
_Static_assert(FTRACE_PROBES_MAX <= 65536, "ftrace_probe.counter indexes the counts");
_Static_assert(offsetof(struct ftrace_probes, first) == 8, "ftrace_probes layout");
_Static_assert(offsetof(struct ftrace_probes, counts) == 8 + 2 * FTRACE_MAX_SITES, "ftrace_probes layout");
_Static_assert(offsetof(struct ftrace_probes, probe) == 8 + 2 * FTRACE_MAX_SITES + 8 * FTRACE_PROBES_MAX,
	       "ftrace_probes layout");

struct ftrace_slot_state {		/* host-written, one per trace-array slot */
	u32 nr_pids;			/* set_ftrace_pid: 0 = no filter */
	u32 nr_notrace_pids;		/* set_ftrace_notrace_pid */
	s32 pids[FTRACE_PIDS_MAX];
	s32 notrace_pids[FTRACE_PIDS_MAX];
};

/*
 * func-no-repeats (struct trace_func_repeats): per trace-array slot and cpu,
 * the last call recorded and how many identical ones followed it unrecorded.
 * Kept while the slot lives, as Linux keeps its per-cpu copy for the array's
 * lifetime; the host clears a slot's when it gives the slot to a new array.
 */
struct func_repeats_state {
	unsigned long ip;
	unsigned long parent_ip;
	u64 ts_last_call;
	u32 count;
};

/*
 * A trace-array slot past word 0 (64..TRACE_SLOTS-1, include/trace/slots.h): what word 0's
 * slots have in the site map and in ftrace_control, allocated with the slot's buffers
 * (trace_slot_alloc()) so that an instance costs its memory only while it exists.  Host-written
 * but for the repeats (and the pid lists function-fork changes): the sites it traces with the
 * function tracer and with function_graph (bit i: the site of index i), its pid lists.  A site
 * some of these slots trace has word 0's TRACE_SLOT_EXT set in its func_slots / graph_slots.
 */
struct ftrace_ext_slot {
	u64 func_sites[FTRACE_MAX_SITES / 64];
	u64 graph_sites[FTRACE_MAX_SITES / 64];
	struct ftrace_slot_state pids;
	struct func_repeats_state repeats[NR_CPUS];
};

/* Host-written.  The masks summarize the slots so that the common case (no
 * filter, no stack trace) takes no branch per slot: every branch ends an
 * emulated block, the unit the emulator's cost goes by. */
struct ftrace_control {
	u64 pid_filtered;		/* bit s: slot s has a pid list or a notrace pid list */
	u64 stack_trace;		/* bit s: options/func_stack_trace of slot s */
	u64 slow_slots;			/* pid_filtered | stack_trace | no_repeats: slots the fast path leaves alone */
	u64 no_repeats;			/* bit s: options/func-no-repeats of slot s */
	u32 max_graph_depth;		/* 0 = unlimited */
	u32 graph_filtered;		/* set_graph_function is not empty */
	u32 graph_skip_irqs;		/* options/funcgraph-irqs off: hardirq context not graphed */
	/* options/sleep-time off: not 0, a number the host changes each time it goes off (so that a
	 * switch-out time taken before is not used); 0: on (6.1's fgraph_sleep_time) */
	u32 sleep_time_off;
	u32 graph_time_off;		/* options/graph-time off (6.1's !fgraph_graph_time) */
	u32 pad;
	struct ftrace_slot_state slots[TRACE_WORD_SLOTS];	/* word 0's slots (the rest: ext[]) */
	/* the slots past word 0, each mask's extension words (word 0's TRACE_SLOT_EXT of
	 * slow_slots is set while any of the last three has a slot): */
	u64 func_ext[TRACE_EXT_WORDS];		/* slots with sites of the function tracer */
	u64 graph_ext[TRACE_EXT_WORDS];		/* slots with sites of function_graph */
	u64 pid_filtered_ext[TRACE_EXT_WORDS];
	u64 stack_trace_ext[TRACE_EXT_WORDS];
	u64 no_repeats_ext[TRACE_EXT_WORDS];
	/* slot s >= 64: its state (allocated with its buffers; NULL: no such instance) */
	struct ftrace_ext_slot *ext[TRACE_SLOTS];
};

_Static_assert(sizeof(struct ftrace_site_state) == 24, "ftrace_site_state layout");
_Static_assert(offsetof(struct ftrace_site_state, flags) == 16 && offsetof(struct ftrace_site_state, kprobe) == 17 &&
	       offsetof(struct ftrace_site_state, graph) == 18, "ftrace_site_state layout");
_Static_assert(sizeof(struct ftrace_site_entry) == 32, "ftrace_site_entry layout");
_Static_assert(!(FTRACE_MAP_ENTRIES & (FTRACE_MAP_ENTRIES - 1)), "the dispatcher masks indexes into ftrace_site_map");
_Static_assert(sizeof(struct ftrace_slot_state) == 520, "ftrace_slot_state layout");
_Static_assert(offsetof(struct ftrace_control, slow_slots) == 16, "ftrace_control layout");
_Static_assert(offsetof(struct ftrace_control, no_repeats) == 24, "ftrace_control layout");
_Static_assert(offsetof(struct ftrace_control, slots) == 56, "ftrace_control layout");
_Static_assert(offsetof(struct ftrace_control, func_ext) == 56 + 520 * TRACE_WORD_SLOTS, "ftrace_control layout");

/*
 * The stack tracer (kernel/trace_stack.c, Linux's kernel/trace/trace_stack.c):
 * the deepest stack seen at a function entry its filter lets through, its
 * return addresses and, for each, how deep in the stack its slot lies.
 * seq is odd while a cpu updates it: the host reads (and writes max_size)
 * with every cpu stopped, and tries again while seq is odd.
 */
#define STACK_TRACE_ENTRIES	500

struct stack_tracer {
	u32 lock;			/* stack_trace_max_lock */
	u32 seq;
	u64 max_size;			/* stack_trace_max_size: stack_max_size */
	u32 nr_entries;			/* stack_trace_nr_entries */
	u32 pad;
	u64 dump[STACK_TRACE_ENTRIES];	/* stack_dump_trace */
	u32 index[STACK_TRACE_ENTRIES];	/* stack_trace_index: depth of each entry's slot */
};

_Static_assert(offsetof(struct stack_tracer, dump) == 24, "stack_tracer layout");

extern struct stack_tracer stack_tracer;
void check_stack(struct task_struct *t, struct pt_regs *regs);
int ftrace_unwind(struct task_struct *t, struct pt_regs *regs, unsigned long *calls, int n, int max);
/* A return address an unwinder found: the real one where function_graph hooked it (ret is
 * return_to_handler), *idx counting down t's hooked returns from t->curr_ret_stack */
unsigned long ftrace_graph_ret_addr(struct task_struct *t, int *idx, unsigned long ret);

/*
 * The function profiler (6.1's ftrace.c built with the graph tracer:
 * profile_graph_entry() / profile_graph_return()): per cpu, a record per
 * site, its hits counted on the cpu of the entry, its time (ns, children
 * included: graph-time) added on the cpu of the return.  `order` lists the
 * cpu's records in the order of their first hit (6.1's profile pages); the
 * host zeroes the whole table when the profiler starts, with every cpu
 * stopped, and sets `enabled`.
 */
struct ftrace_profile {
	u64 counter;
	u64 time;
	u64 time_squared;
	u32 order;			/* 1 + its place among the cpu's records; 0: not hit */
	u32 pad;
};

struct ftrace_profile_stat {
	u32 nr;				/* records hit (the last order given) */
	u32 pad;
	struct ftrace_profile rec[FTRACE_MAX_SITES];	/* by site index */
};

struct ftrace_profiler {
	u32 enabled;			/* ftrace_profile_enabled */
	u32 pad;
	struct ftrace_profile_stat stat[NR_CPUS];
};

_Static_assert(sizeof(struct ftrace_profile) == 32, "ftrace_profile layout");
_Static_assert(offsetof(struct ftrace_profiler, stat) == 8, "ftrace_profiler layout");

extern struct ftrace_profiler ftrace_profiler;
extern struct ftrace_control ftrace_control;
extern struct ftrace_probes ftrace_probes;
extern struct ftrace_site_entry ftrace_site_map[FTRACE_MAP_ENTRIES];
extern struct trace_control trace_control;
extern const u64 __start_mcount_loc[], __stop_mcount_loc[];

/* arch/ftrace_64.S */
void ftrace_caller(void);
void ftrace_regs_caller(void);
void return_to_handler(void);
void ftrace_kprobe_hook(struct pt_regs *regs);

/* kernel/ftrace.c, called from ftrace_64.S with interrupts off */
void ftrace_dispatch(struct pt_regs *regs);
unsigned long ftrace_regs_dispatch(unsigned long ip, unsigned long parent_ip, struct pt_regs *regs);
/* kernel/bpf/trampoline.c: the BPF trampoline the site at ip calls directly (0: none) */
unsigned long ftrace_find_rec_direct(unsigned long ip);
unsigned long ftrace_return_to_handler(unsigned long flags);
void ftrace_graph_sleep_time_switch(struct task_struct *prev, struct task_struct *next);

/* kernel/trace_ring.c */
u64 trace_clock_local(struct percpu *pc);
/* A slot's set_ftrace_pid / set_ftrace_notrace_pid (NULL: an extension slot without state). */
static __always_inline struct ftrace_slot_state *ftrace_slot_pids(u32 slot)
{
	if (slot < TRACE_WORD_SLOTS)
		return &ftrace_control.slots[slot];
	return ftrace_control.ext[slot] ? &ftrace_control.ext[slot]->pids : NULL;
}

bool ftrace_is_site(unsigned long ip);	/* kernel/ftrace.c */

#endif
