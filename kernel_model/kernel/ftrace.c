/*
 * The function and function_graph tracers (Linux 6.1's
 * kernel/trace/trace_functions.c, trace_functions_graph.c, fgraph.c), called
 * from ftrace_caller / return_to_handler (arch/ftrace_64.S) at every site
 * the host patched.  What each site does is host-written (ftrace_control,
 * include/trace/ftrace.h).  Everything here is notrace, and a per-task,
 * per-context recursion guard (Linux's trace_recursion) keeps the dispatcher
 * from re-entering itself in the same context; interrupts stay off while it
 * works, so no other writer nests on this cpu's rings.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/trace/ftrace.h"
#include "../include/trace/probe_stage.h"

struct ftrace_control ftrace_control;
struct ftrace_probes ftrace_probes;
u16 ftrace_site_map[FTRACE_MAP_ENTRIES];

/* task_struct.trace_recursion bits (include/linux/trace_recursion.h) */
#define TRACE_FTRACE_BIT	0	/* + context: normal, softirq, hardirq */
#define TRACE_GRAPH_BIT		8	/* inside a set_graph_function function */
#define TRACE_GRAPH_NOTRACE_BIT	9	/* inside a set_graph_notrace function */
#define TRACE_IRQ_BIT		10	/* the set_graph_function entry was in hardirq context */

struct ftrace_entry {
	struct trace_entry ent;
	unsigned long ip;
	unsigned long parent_ip;
};

/* FTRACE_ENTRY_PACKED in Linux: the bodies are packed (records of 20 and 40 bytes) */
struct ftrace_graph_ent {
	unsigned long func;
	int depth;
} __attribute__((packed));

struct ftrace_graph_ret {
	unsigned long func;
	int depth;
	unsigned int overrun;
	unsigned long long calltime;
	unsigned long long rettime;
} __attribute__((packed));

struct ftrace_graph_ent_entry {
	struct trace_entry ent;
	struct ftrace_graph_ent graph_ent;
};

struct ftrace_graph_ret_entry {
	struct trace_entry ent;
	struct ftrace_graph_ret ret;
};

struct stack_entry {
	struct trace_entry ent;
	int size;
	int pad;
	unsigned long caller[];
};

_Static_assert(sizeof(struct ftrace_entry) == 24, "function record");
_Static_assert(sizeof(struct ftrace_graph_ent_entry) == 20, "funcgraph_entry record");
_Static_assert(sizeof(struct ftrace_graph_ret_entry) == 40, "funcgraph_exit record");
_Static_assert(offsetof(struct stack_entry, caller) == 16, "kernel_stack record");

/*
 * The site's index in the __mcount_loc table; -1: not a site.  One load from
 * the host-written ftrace_site_map (sites are function entries, one per
 * FTRACE_MAP_GRAIN bytes of text at most) rather than a search of the table.
 */
static __always_inline long ftrace_site_index(unsigned long ip)
{
	unsigned long slot = (ip - (unsigned long)_stext) / FTRACE_MAP_GRAIN;

	if (unlikely(slot >= FTRACE_MAP_ENTRIES))
		return -1;
	return (long)ftrace_site_map[slot] - 1;
}

/* The context's TRACE_FTRACE_BIT + (0 normal, 1 softirq, 2 hardirq) as a mask, with no branch */
static __always_inline unsigned long trace_recursion_bit(int count)
{
	unsigned long bit = 1UL << (TRACE_FTRACE_BIT + ((count & SOFTIRQ_OFFSET) != 0));

	return count & HARDIRQ_MASK ? 1UL << (TRACE_FTRACE_BIT + 2) : bit;
}

static notrace bool pid_listed(const s32 *pids, u32 nr, pid_t pid)
{
	u32 i;

	for (i = 0; i < nr && i < FTRACE_PIDS_MAX; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* The slots among `slots` whose set_ftrace_pid / set_ftrace_notrace_pid let this task through. */
static notrace u32 ftrace_pid_slots(u32 slots, pid_t pid)
{
	u32 out = 0;

	while (slots) {
		int s = __builtin_ctz(slots);
		const struct ftrace_slot_state *st = &ftrace_control.slots[s];
		u32 nr = READ_ONCE(st->nr_pids), nr_not = READ_ONCE(st->nr_notrace_pids);

		slots &= slots - 1;
		if (nr && !pid_listed(st->pids, nr, pid))
			continue;
		if (nr_not && pid_listed(st->notrace_pids, nr_not, pid))
			continue;
		out |= 1U << s;
	}
	return out;
}

/* trace_function(): the record written in place (trace_event_reserve_inline()) by t on pc */
static __always_inline void trace_function(struct percpu *pc, struct task_struct *t, u32 slots, unsigned long ip,
					   unsigned long parent_ip, unsigned long flags)
{
	struct trace_write w;
	struct ftrace_entry *e = trace_event_reserve_inline(pc, slots, sizeof(*e), &w);

	if (!e)
		return;
	trace_entry_fill(pc, &e->ent, TRACE_FN, flags, t->pid);
	e->ip = ip;
	e->parent_ip = parent_ip;
	trace_event_commit_inline(e, sizeof(*e), &w);
}

/* A return address that is return_to_handler stands for the one saved in ret_stack. */
static notrace unsigned long graph_ret_addr(struct task_struct *t, int *idx, unsigned long ret)
{
	if (ret != (unsigned long)return_to_handler || *idx <= 0)
		return ret;
	return t->ret_stack[--*idx].ret;
}

/*
 * __ftrace_trace_stack() for func_stack_trace: the traced function, its
 * caller, then the frame-pointer chain of the traced context (the trace
 * machinery's own frames are never in it: the walk starts from the saved
 * registers).
 */
static notrace void trace_stack(struct task_struct *t, u32 slots, struct pt_regs *regs,
				unsigned long flags)
{
	struct trace_event_file file = { slots, TRACE_STACK, 0 };
	unsigned long calls[FTRACE_STACK_MAX];
	unsigned long lo = regs->sp, hi = regs->sp + THREAD_SIZE, bp = regs->bp;
	int n = 0, idx = t->curr_ret_stack;
	struct stack_entry *e;

	calls[n++] = regs->ip;
	calls[n++] = graph_ret_addr(t, &idx, *(unsigned long *)regs->sp);
	while (n < FTRACE_STACK_MAX && bp >= lo && bp + 16 <= hi && !(bp & 7)) {
		unsigned long ret = graph_ret_addr(t, &idx, ((unsigned long *)bp)[1]);

		if (ret < (unsigned long)_stext || ret >= (unsigned long)_etext)
			break;
		calls[n++] = ret;
		lo = bp + 16;
		bp = ((unsigned long *)bp)[0];
	}
	e = trace_event_buffer_reserve(&file, sizeof(*e) + n * sizeof(long));
	if (!e)
		return;
	tracing_generic_entry_update(&e->ent, &file, flags);
	e->size = n;
	e->pad = 0;
	memcpy(e->caller, calls, n * sizeof(long));
	trace_event_commit(e, sizeof(*e) + n * sizeof(long));
}

/*
 * tracer_tracing_on/off() of the probe's trace array: its recording bit,
 * which its tracing_on file reads back.  The counted forms act (and count)
 * only when the state changes (update_traceon_count()).
 */
static notrace void probe_tracing_onoff(const struct ftrace_probe *p, bool on, bool counted)
{
	u32 bit = 1U << p->slot;
	s64 *count = &ftrace_probes.counts[p->counter];

	if (counted && READ_ONCE(*count) <= 0)
		return;
	if (on == !!(trace_control.recording & bit))
		return;
	if (on)
		__atomic_fetch_or(&trace_control.recording, bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&trace_control.recording, ~bit, __ATOMIC_SEQ_CST);
	if (counted)
		(*count)--;
}

/*
 * event_enable_probe() / event_enable_count_probe(): soft-enable or
 * soft-disable the event in the probe's trace array (its bit in the event
 * file, clear while EVENT_FILE_FL_SOFT_DISABLED).  A count of -1 is
 * unlimited; the count may be shared by the entries of one registration.
 */
static notrace void probe_event(const struct ftrace_probe *p, bool enable)
{
	u32 bit = 1U << p->slot;
	s64 *count = &ftrace_probes.counts[p->counter];
	s64 c = READ_ONCE(*count);

	if (!c || enable == !!(READ_ONCE(p->file->slots) & bit))
		return;
	if (c != -1)
		*count = c - 1;
	if (enable)
		__atomic_fetch_or(&p->file->slots, bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&p->file->slots, ~bit, __ATOMIC_SEQ_CST);
}

/* The function probes of site idx, in table order (the host puts the newest first, as Linux's ops list). */
static notrace void ftrace_run_probes(struct task_struct *t, long idx, struct pt_regs *regs)
{
	u32 nr = READ_ONCE(ftrace_probes.nr), i;

	for (i = ftrace_probes.first[idx]; i < nr && ftrace_probes.probe[i].site == idx; i++) {
		const struct ftrace_probe *p = &ftrace_probes.probe[i];
		u32 bit = 1U << p->slot;
		s64 *count;

		switch (p->cmd) {
		case FTRACE_PROBE_TRACEON:
		case FTRACE_PROBE_TRACEOFF:
		case FTRACE_PROBE_TRACEON_COUNT:
		case FTRACE_PROBE_TRACEOFF_COUNT:
			probe_tracing_onoff(p, p->cmd == FTRACE_PROBE_TRACEON || p->cmd == FTRACE_PROBE_TRACEON_COUNT,
					    p->cmd >= FTRACE_PROBE_TRACEON_COUNT);
			break;
		case FTRACE_PROBE_STACKTRACE:	/* trace_dump_stack() into the top-level array */
			if (trace_control.recording & bit)
				trace_stack(t, bit, regs, regs->flags);
			break;
		case FTRACE_PROBE_STACKTRACE_COUNT:
			count = &ftrace_probes.counts[p->counter];
			if (!(trace_control.recording & bit) || !*count)
				break;
			(*count)--;
			trace_stack(t, bit, regs, regs->flags);
			break;
		case FTRACE_PROBE_ENABLE_EVENT:
		case FTRACE_PROBE_DISABLE_EVENT:
			probe_event(p, p->cmd == FTRACE_PROBE_ENABLE_EVENT);
			break;
		}
	}
}

/* ftrace_graph_ignore_func() and the set_graph_function bookkeeping of ftrace_graph_addr() */
static notrace bool graph_ignore(struct task_struct *t, u8 site_flags, int depth)
{
	u32 max_depth = READ_ONCE(ftrace_control.max_graph_depth);

	if (max_depth && (u32)depth >= max_depth)
		return true;
	if (!(t->trace_recursion & (1UL << TRACE_GRAPH_BIT))) {
		if (READ_ONCE(ftrace_control.graph_filtered)) {
			if (!(site_flags & FTRACE_GRAPH_FUNCTION))
				return true;
			t->trace_recursion |= 1UL << TRACE_GRAPH_BIT;
			t->trace_graph_depth = depth;
			/* a set_graph_function entered from an interrupt is traced even without funcgraph-irqs */
			if (this_cpu()->preempt_count & HARDIRQ_MASK)
				t->trace_recursion |= 1UL << TRACE_IRQ_BIT;
			else
				t->trace_recursion &= ~(1UL << TRACE_IRQ_BIT);
		}
	}
	/* ftrace_graph_ignore_irqs() */
	return READ_ONCE(ftrace_control.graph_skip_irqs) && !(t->trace_recursion & (1UL << TRACE_IRQ_BIT)) &&
	       (this_cpu()->preempt_count & HARDIRQ_MASK);
}

/*
 * function_graph_enter() + trace_graph_entry(): push the return, write the
 * entry record, hook the return address.  A function in set_graph_notrace
 * is pushed (its return clears the notrace state) but not recorded, and
 * nothing is traced below it.
 */
static notrace void graph_entry(struct task_struct *t, u32 slots, u8 site_flags, unsigned long ip,
				struct pt_regs *regs, unsigned long flags)
{
	unsigned long *retp = (unsigned long *)regs->sp;
	int depth = t->curr_ret_stack;
	struct ftrace_ret_stack *rs;

	if (t->trace_recursion & (1UL << TRACE_GRAPH_NOTRACE_BIT))
		return;
	if (depth >= FTRACE_RETFUNC_DEPTH) {
		t->trace_overrun++;
		return;
	}
	if (site_flags & FTRACE_GRAPH_NOTRACE) {
		t->trace_recursion |= 1UL << TRACE_GRAPH_NOTRACE_BIT;
		slots = 0;
	} else if (graph_ignore(t, site_flags, depth)) {
		return;
	}
	rs = &t->ret_stack[depth];
	rs->ret = *retp;
	rs->func = ip;
	rs->calltime = trace_clock_local(this_cpu());
	rs->slots = slots;
	t->curr_ret_stack = depth + 1;
	*retp = (unsigned long)return_to_handler;
	if (slots) {
		struct percpu *pc = this_cpu();
		struct trace_write w;
		struct ftrace_graph_ent_entry *e = trace_event_reserve_inline(pc, slots, sizeof(*e), &w);

		if (e) {
			trace_entry_fill(pc, &e->ent, TRACE_GRAPH_ENT, flags, t->pid);
			e->graph_ent.func = ip;
			e->graph_ent.depth = depth;
			trace_event_commit_inline(e, sizeof(*e), &w);
		}
	}
}

/*
 * What the site does beyond an unfiltered function tracer: its function
 * probes, the pid filters, func_stack_trace, function_graph.
 */
static noinline notrace void ftrace_trace_site(struct task_struct *t, long idx, struct ftrace_site_state st,
					       unsigned long ip, unsigned long parent_ip, struct pt_regs *regs)
{
	u32 fn = st.func_slots, graph = st.graph_slots, filtered = READ_ONCE(ftrace_control.pid_filtered);

	if (unlikely(st.flags & FTRACE_SITE_PROBES))
		ftrace_run_probes(t, idx, regs);
	if (unlikely((fn | graph) & filtered)) {
		fn = (fn & ~filtered) | ftrace_pid_slots(fn & filtered, t->pid);
		graph = (graph & ~filtered) | ftrace_pid_slots(graph & filtered, t->pid);
	}
	if (fn) {
		u32 stack = fn & READ_ONCE(ftrace_control.stack_trace) & trace_control.recording;

		trace_function(this_cpu(), t, fn, ip, parent_ip, regs->flags);
		while (unlikely(stack)) {
			int s = __builtin_ctz(stack);

			stack &= stack - 1;
			trace_stack(t, 1U << s, regs, regs->flags);
		}
	}
	if (graph)
		graph_entry(t, graph, st.flags, ip, regs, regs->flags);
}

/*
 * From ftrace_caller, interrupts off: the function at ip (its site) was
 * entered from parent_ip; regs holds the state at its first instruction
 * (with full = 0, only what the tracers read: ip, sp, bp, flags).  When a
 * kprobe sits there and full is 0, returns the site's index + 1 having done
 * nothing; ftrace_regs_caller passes it back as full with the whole pt_regs.
 * The common case (no pid filter, no stack trace) is written to take few
 * branches: each ends an emulated block.
 */
notrace long ftrace_dispatch(unsigned long ip, unsigned long parent_ip, struct pt_regs *regs, long full)
{
	struct percpu *pc = this_cpu();
	struct task_struct *t = pc->curr_task;
	struct ftrace_site_state st;
	unsigned long bit;
	long idx = full ? full - 1 : ftrace_site_index(ip);

	if (unlikely(idx < 0))
		return 0;
	st = *(volatile struct ftrace_site_state *)&ftrace_control.sites[idx];
	if (unlikely(st.kprobe)) {
		if (!full)
			return idx + 1;	/* ftrace_regs_caller completes pt_regs and calls again with it */
		ftrace_kprobe_hook(regs);
		kprobe_guest_ftrace(regs);	/* the guest-handled probes (trace_probe.c) */
	}
	bit = trace_recursion_bit(pc->preempt_count);
	if (unlikely(!t || (t->trace_recursion & bit)))
		return 0;
	t->trace_recursion |= bit;
	preempt_disable();	/* as ftrace_test_recursion_trylock(): the record shows the traced context's count */
	/* the function tracer alone, unfiltered, takes one branch here; the rest, the call below */
	if (likely(!((st.flags & FTRACE_SITE_PROBES) | st.graph_slots |
		     (st.func_slots & (READ_ONCE(ftrace_control.pid_filtered) | READ_ONCE(ftrace_control.stack_trace))))))
		trace_function(pc, t, st.func_slots, ip, parent_ip, regs->flags);
	else
		ftrace_trace_site(t, idx, st, ip, parent_ip, regs);
	preempt_enable_no_resched();
	t->trace_recursion &= ~bit;
	return 0;
}

/*
 * From return_to_handler, interrupts off (flags: as the function returned):
 * a hooked function returned.  Pop its entry, write the exit record
 * (trace_graph_return()), give back the real return address.
 */
notrace unsigned long ftrace_return_to_handler(unsigned long flags)
{
	struct task_struct *t = current;
	struct ftrace_ret_stack *rs;
	int depth = t->curr_ret_stack - 1;

	if (unlikely(depth < 0))
		panic("return_to_handler: ret_stack underflow");
	rs = &t->ret_stack[depth];
	t->curr_ret_stack = depth;
	if ((t->trace_recursion & (1UL << TRACE_GRAPH_BIT)) && depth == t->trace_graph_depth)
		t->trace_recursion &= ~(1UL << TRACE_GRAPH_BIT);
	if (t->trace_recursion & (1UL << TRACE_GRAPH_NOTRACE_BIT)) {
		t->trace_recursion &= ~(1UL << TRACE_GRAPH_NOTRACE_BIT);
	} else if (rs->slots) {
		struct percpu *pc = this_cpu();
		struct ftrace_graph_ret_entry *e;
		struct trace_write w;
		u64 rettime;

		preempt_disable();
		rettime = trace_clock_read(pc);
		e = trace_event_reserve_inline(pc, rs->slots, sizeof(*e), &w);
		if (e) {
			trace_entry_fill(pc, &e->ent, TRACE_GRAPH_RET, flags, t->pid);
			e->ret.func = rs->func;
			e->ret.depth = depth;
			e->ret.overrun = t->trace_overrun;
			e->ret.calltime = rs->calltime;
			e->ret.rettime = rettime;
			trace_event_commit_inline(e, sizeof(*e), &w);
		}
		preempt_enable_no_resched();
	}
	return rs->ret;
}
