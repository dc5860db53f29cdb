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
#include "../include/trace/ftrace_frame.h"
#include "../include/trace/probe_stage.h"
#include "../include/kernel_request.h"
#include "../include/trace/trigger.h"
#include "../include/trace/ftrace_dump.h"

struct ftrace_control ftrace_control;
struct ftrace_probes ftrace_probes;
struct ftrace_site_entry ftrace_site_map[FTRACE_MAP_ENTRIES];
struct ftrace_profiler ftrace_profiler;
/* tracing_thresh (ns), host-written: not 0, function_graph hooks returns but records only
 * the exits that took at least this long (trace_graph_thresh_return()), and no entries */
u64 tracing_thresh;

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

/* func_repeats: the calls func-no-repeats left out since the record of ip <- parent_ip */
struct func_repeats_entry {
	struct trace_entry ent;
	unsigned long ip;
	unsigned long parent_ip;
	u16 count;
	u16 top_delta_ts;	/* the time from the last of them to this record: top 16 bits of 48 */
	u32 bottom_delta_ts;
};

_Static_assert(sizeof(struct ftrace_entry) == 24, "function record");
_Static_assert(sizeof(struct func_repeats_entry) == 32, "func_repeats record");
_Static_assert(sizeof(struct ftrace_graph_ent_entry) == 20, "funcgraph_entry record");
_Static_assert(sizeof(struct ftrace_graph_ret_entry) == 40, "funcgraph_exit record");
_Static_assert(offsetof(struct stack_entry, caller) == 16, "kernel_stack record");
_Static_assert(offsetof(struct ftrace_site_state, kprobe) == offsetof(struct ftrace_site_state, flags) + 1 &&
	       offsetof(struct ftrace_site_state, graph) == offsetof(struct ftrace_site_state, flags) + 2,
	       "ftrace_dispatch() reads flags, kprobe and graph as one word");
_Static_assert(sizeof(struct pt_regs) == FTRACE_PTREGS_SIZE && FTRACE_FRAME_SIZE >= FTRACE_PTREGS_SIZE,
	       "ftrace_caller's frame");

/*
 * The entry of the site at ip in the host-written ftrace_site_map (sites are
 * function entries, one per FTRACE_MAP_GRAIN bytes of text at most), without
 * the check that one is there: no site, or ip outside the map (neither
 * happens for a patched site), finds an entry whose state is all zero.
 */
static __always_inline const struct ftrace_site_entry *ftrace_site_at(unsigned long ip)
{
	return &ftrace_site_map[((ip - (unsigned long)_stext) / FTRACE_MAP_GRAIN) & (FTRACE_MAP_ENTRIES - 1)];
}

/* The entry of the site at ip; NULL: not a site. */
static __always_inline const struct ftrace_site_entry *ftrace_site_find(unsigned long ip)
{
	const struct ftrace_site_entry *site = ftrace_site_at(ip);

	if (unlikely((ip - (unsigned long)_stext) / FTRACE_MAP_GRAIN >= FTRACE_MAP_ENTRIES || !site->index))
		return NULL;
	return site;
}

/* ip is a function's ftrace site (its entry, before its frame is made) */
notrace bool ftrace_is_site(unsigned long ip)
{
	return !((ip - (unsigned long)_stext) % FTRACE_MAP_GRAIN) && ftrace_site_find(ip);
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

/* Whether a slot's set_ftrace_pid / set_ftrace_notrace_pid let the task pid through. */
static notrace bool ftrace_pid_allows(const struct ftrace_slot_state *st, pid_t pid)
{
	u32 nr = READ_ONCE(st->nr_pids), nr_not = READ_ONCE(st->nr_notrace_pids);

	if (nr && !pid_listed(st->pids, nr, pid))
		return false;
	return !(nr_not && pid_listed(st->notrace_pids, nr_not, pid));
}

/* The slots among `slots` (word 0's) whose pid lists let this task through. */
static notrace u64 ftrace_pid_slots(u64 slots, pid_t pid)
{
	u64 out = 0;

	while (slots) {
		int s = __builtin_ctzll(slots);

		slots &= slots - 1;
		if (ftrace_pid_allows(&ftrace_control.slots[s], pid))
			out |= 1ULL << s;
	}
	return out;
}

/*
 * The slots past word 0 that trace site idx with the function tracer (graph: function_graph)
 * and whose pid lists let pid through, as extension words in out; word0 (a site's func_slots
 * or graph_slots) back with its TRACE_SLOT_EXT cleared when there are none.
 */
static noinline notrace u64 ftrace_ext_site_slots(u64 word0, bool graph, long idx, pid_t pid, u64 *out)
{
	u64 any = 0;
	int i;

	for (i = 0; i < TRACE_EXT_WORDS; i++) {
		u64 w = READ_ONCE((graph ? ftrace_control.graph_ext : ftrace_control.func_ext)[i]), keep = 0;

		while (w) {
			int b = __builtin_ctzll(w);
			const struct ftrace_ext_slot *x = READ_ONCE(ftrace_control.ext[(i + 1) * 64 + b]);

			w &= w - 1;
			if (!x || (unsigned long)idx >= FTRACE_MAX_SITES ||
			    !(READ_ONCE((graph ? x->graph_sites : x->func_sites)[idx / 64]) >> idx % 64 & 1))
				continue;
			if (READ_ONCE(ftrace_control.pid_filtered_ext[i]) >> b & 1 && !ftrace_pid_allows(&x->pids, pid))
				continue;
			keep |= 1ULL << b;
		}
		out[i] = keep;
		any |= keep;
	}
	return any ? word0 : word0 & ~(1ULL << TRACE_SLOT_EXT);
}

/* trace_function(): the record written in place (trace_event_reserve_inline()) by t on pc */
static __always_inline void trace_function(struct percpu *pc, struct task_struct *t, u64 slots, const u64 *ext,
					   unsigned long ip, unsigned long parent_ip, unsigned long flags)
{
	struct trace_write w;
	struct ftrace_entry *e = trace_event_reserve_inline(pc, slots, ext, sizeof(*e), &w);

	if (!e)
		return;
	trace_entry_fill(pc, &e->ent, TRACE_FN, flags, t->pid);
	e->ip = ip;
	e->parent_ip = parent_ip;
	trace_event_commit_inline(e, sizeof(*e), &w);
}

/* word 0's slots' func-no-repeats states (include/trace/ftrace.h); the others' are in ext[] */
struct func_repeats_state ftrace_repeats[TRACE_WORD_SLOTS][NR_CPUS];

/*
 * function_no_repeats_trace_call() for slot s, whose state on this cpu is last: a call that
 * repeats the slot's last one (same ip and parent, fewer than U16_MAX so far) is counted and
 * not recorded (true); any other first writes the func_repeats record of the count
 * (trace_last_func_repeats()) and becomes the last.
 */
static notrace bool func_repeat(struct percpu *pc, struct task_struct *t, u32 s, struct func_repeats_state *last,
				unsigned long ip, unsigned long parent_ip, unsigned long flags)
{
	if (last->ip == ip && last->parent_ip == parent_ip && last->count < 0xffff) {
		last->ts_last_call = trace_clock_read(pc);
		last->count++;
		return true;
	}
	if (last->count) {
		u64 ts = trace_clock_read(pc);
		struct func_repeats_entry *e = trace_slot_recording(s) ?
			trace_event_buffer_reserve_slot(s, sizeof(*e), ts) : NULL;

		if (e) {
			u64 delta = ts - last->ts_last_call;

			trace_entry_fill(pc, &e->ent, TRACE_FUNC_REPEATS, flags, t->pid);
			e->ip = last->ip;
			e->parent_ip = last->parent_ip;
			e->count = last->count;
			e->top_delta_ts = delta >> 32;
			e->bottom_delta_ts = delta;
			trace_event_commit(e, sizeof(*e));
		}
		last->count = 0;
	}
	last->ip = ip;
	last->parent_ip = parent_ip;
	return false;
}

/*
 * func_repeat() for the slots `repeats` of those `fn` (and, past word 0, fn_ext) record this
 * call in (a cpu out of a slot's tracing_cpumask: data->disabled, no state kept).  Returns
 * the slots of word 0 that record the call; fn_ext loses the others'.
 */
static notrace u64 func_repeats(struct percpu *pc, struct task_struct *t, u64 fn, u64 *fn_ext, u64 repeats,
				unsigned long ip, unsigned long parent_ip, unsigned long flags)
{
	int cpu = pc->h.cpu, i;

	repeats &= trace_control.cpu_slots[cpu] & ~(1ULL << TRACE_SLOT_EXT);
	while (repeats) {
		int s = __builtin_ctzll(repeats);

		repeats &= repeats - 1;
		if (func_repeat(pc, t, s, &ftrace_repeats[s][cpu], ip, parent_ip, flags))
			fn &= ~(1ULL << s);
	}
	if (!(fn >> TRACE_SLOT_EXT))
		return fn;
	for (i = 0; i < TRACE_EXT_WORDS; i++) {
		u64 w = fn_ext[i] & READ_ONCE(ftrace_control.no_repeats_ext[i]) & trace_control.cpu_slots_ext[cpu][i];

		while (w) {
			int b = __builtin_ctzll(w);
			struct ftrace_ext_slot *x = READ_ONCE(ftrace_control.ext[(i + 1) * 64 + b]);

			w &= w - 1;
			if (x && func_repeat(pc, t, (i + 1) * 64 + b, &x->repeats[cpu], ip, parent_ip, flags))
				fn_ext[i] &= ~(1ULL << b);
		}
	}
	return fn;
}

/* A return address that is return_to_handler stands for the one saved in ret_stack. */
notrace unsigned long ftrace_graph_ret_addr(struct task_struct *t, int *idx, unsigned long ret)
{
	if (ret != (unsigned long)return_to_handler || *idx <= 0)
		return ret;
	return t->ret_stack[--*idx].ret;
}

/*
 * The return addresses of the traced function's context from its site on:
 * the site's call (function+5), the function's caller, then the
 * frame-pointer chain (the walk starts from the saved registers), each
 * hooked return given as the real one.  Appended to calls[n..max); the new n.
 */
notrace int ftrace_unwind(struct task_struct *t, struct pt_regs *regs, unsigned long *calls, int n, int max)
{
	unsigned long lo = regs->sp, hi = regs->sp + THREAD_SIZE, bp = regs->bp;
	int idx = t->curr_ret_stack;

	calls[n++] = regs->ip + MCOUNT_INSN_SIZE;
	calls[n++] = ftrace_graph_ret_addr(t, &idx, *(unsigned long *)regs->sp);
	while (n < max && bp >= lo && bp + 16 <= hi && !(bp & 7)) {
		unsigned long ret = ftrace_graph_ret_addr(t, &idx, ((unsigned long *)bp)[1]);

		if (ret < (unsigned long)_stext || ret >= (unsigned long)_etext)
			break;
		calls[n++] = ret;
		lo = bp + 16;
		bp = ((unsigned long *)bp)[0];
	}
	return n;
}

/*
 * __ftrace_trace_stack() for func_stack_trace: the return addresses as
 * Linux's unwinder reports them past the tracer's own frames: the one into
 * the trampoline (its call of the dispatcher, just below regs), the site's
 * call (function+5), the function's caller, then the frame-pointer chain of
 * the traced context (the walk starts from the saved registers).
 */
static notrace void trace_stack(struct task_struct *t, u32 slot, struct pt_regs *regs,
				unsigned long flags)
{
	struct trace_event_file file = { .type = TRACE_STACK };
	unsigned long calls[FTRACE_STACK_MAX];
	struct stack_entry *e;
	int n;

	calls[0] = ((unsigned long *)regs)[-1];
	n = ftrace_unwind(t, regs, calls, 1, FTRACE_STACK_MAX);
	e = trace_event_buffer_reserve_slot(slot, sizeof(*e) + n * sizeof(long), trace_clock_read(this_cpu()));
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
	s64 *count = &ftrace_probes.counts[p->counter];

	if (counted && READ_ONCE(*count) <= 0)
		return;
	if (on == trace_slot_recording(p->slot))
		return;
	trace_slot_set_recording(p->slot, on);
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
	s64 *count = &ftrace_probes.counts[p->counter];
	s64 c = READ_ONCE(*count);

	if (!c || enable == trace_event_file_test(p->file, p->slot))
		return;
	if (c != -1)
		*count = c - 1;
	trace_event_file_flip(p->file, p->slot, enable);
}

/* The function probes of site idx, in table order (the host puts the newest first, as Linux's ops list). */
static notrace void ftrace_run_probes(struct task_struct *t, long idx, struct pt_regs *regs)
{
	u32 nr = READ_ONCE(ftrace_probes.nr), i;

	for (i = ftrace_probes.first[idx]; i < nr && ftrace_probes.probe[i].site == idx; i++) {
		const struct ftrace_probe *p = &ftrace_probes.probe[i];
		s64 *count;

		switch (p->cmd) {
		case FTRACE_PROBE_TRACEON:
		case FTRACE_PROBE_TRACEOFF:
		case FTRACE_PROBE_TRACEON_COUNT:
		case FTRACE_PROBE_TRACEOFF_COUNT:
			probe_tracing_onoff(p, p->cmd == FTRACE_PROBE_TRACEON || p->cmd == FTRACE_PROBE_TRACEON_COUNT,
					    p->cmd >= FTRACE_PROBE_TRACEON_COUNT);
			break;
		case FTRACE_PROBE_STACKTRACE:	/* ftrace_stacktrace(): trace_stack(tr), the probe's array */
			if (trace_slot_recording(p->slot))
				trace_stack(t, p->slot, regs, regs->flags);
			break;
		case FTRACE_PROBE_STACKTRACE_COUNT:	/* ftrace_stacktrace_count(): while tracing_is_on() (the top level's) */
			count = &ftrace_probes.counts[p->counter];
			if (!(trace_control.recording & 1) || !*count)
				break;
			(*count)--;
			trace_stack(t, p->slot, regs, regs->flags);
			break;
		case FTRACE_PROBE_ENABLE_EVENT:
		case FTRACE_PROBE_DISABLE_EVENT:
			probe_event(p, p->cmd == FTRACE_PROBE_ENABLE_EVENT);
			break;
		case FTRACE_PROBE_SNAPSHOT_COUNT:	/* ftrace_count_snapshot(): a count <= 0 is used up */
			count = &ftrace_probes.counts[p->counter];
			if (READ_ONCE(*count) <= 0)
				break;
			(*count)--;
			/* fallthrough */
		case FTRACE_PROBE_SNAPSHOT:		/* ftrace_snapshot(): tracing_snapshot_instance() */
			event_trigger_snapshot(p->slot);
			break;
		case FTRACE_PROBE_DUMP:			/* ftrace_dump_probe(): update_count() */
			count = &ftrace_probes.counts[p->counter];
			if (READ_ONCE(*count) <= 0)
				break;
			(*count)--;
			ftrace_dump(DUMP_ALL);
			break;
		case FTRACE_PROBE_CPUDUMP:		/* ftrace_cpudump_probe(): no count kept */
			ftrace_dump(DUMP_ORIG);
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
static notrace void graph_entry(struct task_struct *t, u64 slots, const u64 *ext, u8 site_flags, unsigned long ip,
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
	rs->profile = 0;
	t->curr_ret_stack = depth + 1;
	*retp = (unsigned long)return_to_handler;
	if (slots && !READ_ONCE(tracing_thresh)) {
		struct percpu *pc = this_cpu();
		struct trace_write w;
		struct ftrace_graph_ent_entry *e = trace_event_reserve_inline(pc, slots, ext, sizeof(*e), &w);

		if (e) {
			trace_entry_fill(pc, &e->ent, TRACE_GRAPH_ENT, flags, t->pid);
			e->graph_ent.func = ip;
			e->graph_ent.depth = depth;
			trace_event_commit_inline(e, sizeof(*e), &w);
		}
	}
}

/*
 * profile_graph_entry() through function_graph_enter(): the return is
 * pushed (no room: an overrun, and no count, as 6.1's push fails first),
 * then function_profile_call() counts the hit in this cpu's record.
 */
static notrace void profile_entry(struct task_struct *t, long idx, unsigned long ip, struct pt_regs *regs)
{
	unsigned long *retp = (unsigned long *)regs->sp;
	int depth = t->curr_ret_stack;
	struct ftrace_profile_stat *stat = &ftrace_profiler.stat[this_cpu()->h.cpu];
	struct ftrace_profile *rec;
	struct ftrace_ret_stack *rs;

	if (!READ_ONCE(ftrace_profiler.enabled) || (unsigned long)idx >= FTRACE_MAX_SITES)
		return;
	if (depth >= FTRACE_RETFUNC_DEPTH) {
		t->trace_overrun++;
		return;
	}
	rs = &t->ret_stack[depth];
	rs->ret = *retp;
	rs->func = ip;
	rs->calltime = trace_clock_local(this_cpu());
	rs->slots = 0;
	rs->profile = idx + 1;
	rs->subtime = 0;
	t->curr_ret_stack = depth + 1;
	*retp = (unsigned long)return_to_handler;
	rec = &stat->rec[idx];
	if (!rec->order)
		rec->order = ++stat->nr;
	rec->counter++;
}

/*
 * profile_graph_return(): the call's time, to this cpu's record of it (none: not counted here).
 * With graph-time off, the function's own time: its callees' (parent: the caller's entry, NULL:
 * none) go to its caller's subtime, and its own subtime is taken off.
 */
static notrace void profile_return(const struct ftrace_ret_stack *rs, struct ftrace_ret_stack *parent,
				   u64 rettime)
{
	struct ftrace_profile *rec;
	u64 calltime;

	if (!READ_ONCE(ftrace_profiler.enabled) || !rs->calltime || rs->profile > FTRACE_MAX_SITES)
		return;
	calltime = rettime - rs->calltime;
	if (READ_ONCE(ftrace_control.graph_time_off)) {
		if (parent)
			parent->subtime += calltime;
		calltime = rs->subtime < calltime ? calltime - rs->subtime : 0;
	}
	rec = &ftrace_profiler.stat[this_cpu()->h.cpu].rec[rs->profile - 1];
	if (!rec->order)
		return;
	rec->time += calltime;
	rec->time_squared += calltime * calltime;
}

/*
 * ftrace_graph_probe_sched_switch(), sleep-time off: the calls a task has on its return stack do
 * not count the time it was switched out.  prev's switch-out time is noted; next's entries
 * start that much later.  (Linux's is a probe on sched_switch while a graph user runs; here
 * __schedule calls it while the option is off.)
 */
notrace void ftrace_graph_sleep_time_switch(struct task_struct *prev, struct task_struct *next)
{
	u32 gen = READ_ONCE(ftrace_control.sleep_time_off);
	u64 now = trace_clock_local(this_cpu()), slept;
	int i;

	if (!gen)
		return;
	prev->ftrace_timestamp = now;
	prev->ftrace_timestamp_gen = gen;
	if (next->ftrace_timestamp_gen != gen || !next->ftrace_timestamp)
		return;		/* not switched out since it went off */
	slept = now - next->ftrace_timestamp;
	for (i = 0; i < next->curr_ret_stack; i++)
		next->ret_stack[i].calltime += slept;
}

/*
 * What the site does, off the dispatcher's fast path: its function probes,
 * the pid filters, the function tracer and func_stack_trace, function_graph.
 * fn_ext, graph_ext: room for the extension words of the site's slots past word 0 (NULL:
 * the site has none, and this copy has none of their work).
 */
static __always_inline void __ftrace_trace_site(struct task_struct *t, long idx, struct ftrace_site_state st,
						unsigned long ip, unsigned long parent_ip, struct pt_regs *regs,
						u64 *fn_ext, u64 *graph_ext)
{
	u64 fn = st.func_slots, graph = st.graph_slots, filtered = READ_ONCE(ftrace_control.pid_filtered);
	int i;

	if (unlikely(st.flags & FTRACE_SITE_PROBES))
		ftrace_run_probes(t, idx, regs);
	if (unlikely(st.flags & FTRACE_SITE_STACK))
		check_stack(t, regs);
	filtered &= ~(1ULL << TRACE_SLOT_EXT);
	if (unlikely((fn | graph) & filtered)) {
		fn = (fn & ~filtered) | ftrace_pid_slots(fn & filtered, t->pid);
		graph = (graph & ~filtered) | ftrace_pid_slots(graph & filtered, t->pid);
	}
	if (fn_ext && fn >> TRACE_SLOT_EXT)
		fn = ftrace_ext_site_slots(fn, false, idx, t->pid, fn_ext);
	if (graph_ext && graph >> TRACE_SLOT_EXT)
		graph = ftrace_ext_site_slots(graph, true, idx, t->pid, graph_ext);
	if (unlikely(fn & READ_ONCE(ftrace_control.no_repeats)))
		fn = func_repeats(this_cpu(), t, fn, fn_ext, fn & READ_ONCE(ftrace_control.no_repeats), ip, parent_ip,
				  regs->flags);
	if (fn) {
		u64 stack = fn & READ_ONCE(ftrace_control.stack_trace) & trace_control.recording & ~(1ULL << TRACE_SLOT_EXT);

		trace_function(this_cpu(), t, fn, fn_ext, ip, parent_ip, regs->flags);
		while (unlikely(stack)) {
			int s = __builtin_ctzll(stack);

			stack &= stack - 1;
			trace_stack(t, s, regs, regs->flags);
		}
		for (i = 0; fn_ext && fn >> TRACE_SLOT_EXT && i < TRACE_EXT_WORDS; i++) {
			for (stack = fn_ext[i] & READ_ONCE(ftrace_control.stack_trace_ext[i]) & trace_control.recording_ext[i];
			     stack; stack &= stack - 1)
				trace_stack(t, (i + 1) * 64 + __builtin_ctzll(stack), regs, regs->flags);
		}
	}
	if (graph)
		graph_entry(t, graph, graph_ext, st.flags, ip, regs, regs->flags);
	else if (unlikely(st.flags & FTRACE_SITE_PROFILE))	/* one graph user at a time, as 6.1's fgraph */
		profile_entry(t, idx, ip, regs);
}

/* A site some slots past word 0 trace: the same, with their extension words (on its own
 * frame, so that the common case keeps its registers) */
static noinline notrace void ftrace_trace_site_ext(struct task_struct *t, long idx, struct ftrace_site_state st,
						   unsigned long ip, unsigned long parent_ip, struct pt_regs *regs)
{
	u64 fn_ext[TRACE_EXT_WORDS], graph_ext[TRACE_EXT_WORDS];

	__ftrace_trace_site(t, idx, st, ip, parent_ip, regs, fn_ext, graph_ext);
}

static notrace void ftrace_trace_site(struct task_struct *t, long idx, struct ftrace_site_state st,
				      unsigned long ip, unsigned long parent_ip, struct pt_regs *regs)
{
	if (unlikely((st.func_slots | st.graph_slots) >> TRACE_SLOT_EXT))
		ftrace_trace_site_ext(t, idx, st, ip, parent_ip, regs);
	else
		__ftrace_trace_site(t, idx, st, ip, parent_ip, regs, NULL, NULL);
}

/*
 * Set while ftrace_site_hit() works on the cpu.  Interrupts are off
 * throughout, so a site hit meanwhile on that cpu is the dispatcher's own
 * recursion, whatever the context: the fast path's whole guard, one load
 * (the slow path keeps Linux's per-task, per-context bits).
 */
static u8 ftrace_cpu_busy[NR_CPUS];

/*
 * The tracers' work at a site once the fast path is ruled out: the
 * recursion guard, then the function tracer, its filters and probes, and
 * function_graph.  regs holds ip, sp, bp and flags at least.
 */
static notrace void ftrace_site_hit(const struct ftrace_site_entry *site, unsigned long ip,
				    unsigned long parent_ip, struct pt_regs *regs)
{
	struct percpu *pc = this_cpu();
	struct task_struct *t = pc->curr_task;
	struct ftrace_site_state st = *(volatile struct ftrace_site_state *)&site->st;
	unsigned long bit = trace_recursion_bit(pc->preempt_count);
	int cpu = pc->h.cpu;

	if (unlikely(!t || (t->trace_recursion & bit)))
		return;
	t->trace_recursion |= bit;
	ftrace_cpu_busy[cpu] = 1;
	preempt_disable();	/* as ftrace_test_recursion_trylock(): the record shows the traced context's count */
	ftrace_trace_site(t, site->index - 1, st, ip, parent_ip, regs);
	preempt_enable_no_resched();
	ftrace_cpu_busy[cpu] = 0;
	t->trace_recursion &= ~bit;
}

/* A word of ftrace_caller's frame above the pt_regs (include/trace/ftrace_frame.h) */
static __always_inline unsigned long ftrace_frame(const struct pt_regs *regs, unsigned long offset)
{
	return *(const unsigned long *)((const char *)regs + offset);
}

/* ftrace_dispatch() off its fast path: the pt_regs completed, then the site's work. */
static noinline notrace void ftrace_dispatch_slow(struct pt_regs *regs)
{
	unsigned long ip = ftrace_frame(regs, FTRACE_T_RET) - MCOUNT_INSN_SIZE;
	const struct ftrace_site_entry *site = ftrace_site_find(ip);

	if (unlikely(!site))
		return;
	regs->ip = ip;
	regs->flags = ftrace_frame(regs, FTRACE_T_FLAGS);
	regs->sp = (unsigned long)regs + FTRACE_T_PARENT;
	ftrace_site_hit(site, ip, ftrace_frame(regs, FTRACE_T_PARENT), regs);
}

typedef u32 __attribute__((may_alias)) u32_alias;

/*
 * From ftrace_caller, interrupts off: regs is its frame (the argument
 * registers and bp saved; above them the flags, the return into the
 * function, whose site is 5 bytes before, and the function's own return
 * address).  The common case, one trace array recording the site with the
 * plain function tracer (no pid list, no stack trace, no function probe,
 * not function_graph) into the ring's common case, is written with one
 * branch for all its conditions (each branch ends an emulated block) and no
 * call: it calls nothing, so it needs neither the recursion bit nor
 * preempt_disable (the record shows the count + 1 that would give); the
 * slow path takes over while the cpu has no task yet or is in the
 * dispatcher already (ftrace_cpu_busy).  Anything else goes on in
 * ftrace_dispatch_slow() (a jump: no frame here, no register the fast path
 * must save).
 */
__attribute__((optimize("omit-frame-pointer", "optimize-sibling-calls")))
notrace void ftrace_dispatch(struct pt_regs *regs)
{
	struct percpu *pc = this_cpu();
	struct task_struct *t = pc->curr_task;
	unsigned long ip = ftrace_frame(regs, FTRACE_T_RET) - MCOUNT_INSN_SIZE;
	const struct ftrace_site_state *site = &ftrace_site_at(ip)->st;
	u64 func_slots = READ_ONCE(site->func_slots);
	/* flags, kprobe, graph from the low byte up, as one word */
	u32 st = READ_ONCE(*(const u32_alias *)&site->flags);
	u64 slots = func_slots & trace_control.recording & trace_control.cpu_slots[pc->h.cpu];
	struct trace_fast f;
	struct ftrace_entry *e;

	if (unlikely(trace_fast_check(pc, slots, sizeof(*e), &f) | (t == NULL) | ftrace_cpu_busy[pc->h.cpu] |
		     (st & (0xff0000 | FTRACE_SITE_PROBES | FTRACE_SITE_STACK | FTRACE_SITE_PROFILE)) |
		     /* function_graph, probes, stack tracer, profiler */
		     (func_slots & READ_ONCE(ftrace_control.slow_slots))))
		return ftrace_dispatch_slow(regs);
	e = trace_fast_claim(pc, &f, sizeof(*e));
	trace_entry_fill_count(pc, &e->ent, TRACE_FN, ftrace_frame(regs, FTRACE_T_FLAGS), t->pid,
			       pc->preempt_count + 1);
	e->ip = ftrace_frame(regs, FTRACE_T_RET) - MCOUNT_INSN_SIZE;
	e->parent_ip = ftrace_frame(regs, FTRACE_T_PARENT);
	trace_fast_commit(&f);
}

/*
 * From ftrace_regs_caller, interrupts off, with the whole pt_regs: an
 * ftrace-based kprobe sits at ip, or a BPF trampoline shares it with the
 * function tracers.  The kprobe's handlers run first (the host's at
 * ftrace_kprobe_hook, the guest's in kprobe_guest_ftrace()), then whatever
 * else the site does; the answer is the direct trampoline ftrace_regs_caller
 * goes to next (0: none).
 */
notrace unsigned long ftrace_regs_dispatch(unsigned long ip, unsigned long parent_ip, struct pt_regs *regs)
{
	const struct ftrace_site_entry *site = ftrace_site_find(ip);

	if (unlikely(!site))
		return 0;
	if (READ_ONCE(site->st.kprobe)) {
		ftrace_kprobe_hook(regs);
		kprobe_guest_ftrace(regs);	/* the guest-handled probes (trace_probe.c) */
	}
	ftrace_site_hit(site, ip, parent_ip, regs);
	/* call_direct_funcs(): the BPF trampoline that shares the site runs next */
	if (READ_ONCE(site->st.flags) & FTRACE_SITE_DIRECT)
		return ftrace_find_rec_direct(ip);
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
		u64 rettime, thresh, slots = rs->slots, ext[TRACE_EXT_WORDS];

		preempt_disable();
		rettime = trace_clock_read(pc);
		thresh = READ_ONCE(tracing_thresh);
		/* slots past word 0: those of the entry, found again (the site's and the pid lists') */
		if (unlikely(slots >> TRACE_SLOT_EXT)) {
			const struct ftrace_site_entry *site = ftrace_site_find(rs->func);

			slots = site ? ftrace_ext_site_slots(slots, true, site->index - 1, t->pid, ext)
				     : slots & ~(1ULL << TRACE_SLOT_EXT);
		}
		e = !slots || (thresh && rettime - rs->calltime < thresh) ? NULL
			: trace_event_reserve_inline(pc, slots, ext, sizeof(*e), &w);
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
	if (unlikely(rs->profile))
		profile_return(rs, depth ? &t->ret_stack[depth - 1] : NULL, trace_clock_read(this_cpu()));
	return rs->ret;
}

/* The ftrace site at site calls tramp (0: what the function tracers want of it again), as
 * register_ftrace_direct()/unregister_ftrace_direct() of 6.1; the host patches it (and drops every
 * cpu's translations of the size bytes of code at tramp, which the kernel has just written, and
 * which it names as kallsyms would: bpf_trampoline_<key>) */
int ftrace_set_direct(unsigned long site, unsigned long tramp, u32 size, const char *name)
{
	struct kernel_req *req = kernel_request_begin();
	int ret;

	req->op = KERNEL_REQ_FTRACE_DIRECT;
	req->addr = site;
	req->offset = tramp;
	req->is_return = size;
	if (name)
		strscpy_pad(req->name, name, sizeof(req->name));
	ret = kernel_request_post(req);
	kernel_request_end();
	return ret;
}
