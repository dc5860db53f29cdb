/*
 * Event triggers at the event (Linux 6.1's kernel/trace/trace_events_trigger.c
 * and the filter_match_preds() of trace_events_filter.c): the writer of an
 * event that has triggers builds its record in this cpu's scratch, then
 * event_triggers_record() runs the triggers as Linux's event_triggers_call()
 * and event_triggers_post_call() do around the record's commit.  The host
 * (src/tracefs_sim/trace/trigger.py) writes event_triggers; nothing here is
 * traceable, and nothing calls what is.
 */
#include "../include/kernel.h"
#include "../include/syscalls.h"
#include "../include/trace/trace.h"
#include "../include/trace/ftrace.h"
#include "../include/trace/trigger.h"
#include "../include/trace/tracing_map.h"

struct event_triggers event_triggers;
/*
 * A record with triggers is built in its cpu's scratch at the depth of the
 * triggers running (a hist action's synthetic event is written while the
 * record that caused it is still to be committed).
 */
#define TRIGGER_DEPTH_MAX 3
/* the record-writing triggers of one record run after its commit (more: before it) */
#define TRIGGER_NESTED_MAX 16
/* the (slot, command) pairs of one record deferred to after its commit (more: run before it) */
#define TRIGGER_DEFERRED_MAX 32
static u8 trigger_scratch[NR_CPUS][TRIGGER_DEPTH_MAX][BUF_PAGE_SIZE] __aligned(8);
static u32 trigger_depth[NR_CPUS];
/* per depth, the slots whose snapshot a trigger asked for after the record's commit (a set of
 * TRACE_SLOT_WORDS words, slot s bit s % 64 of word s / 64) */
static u64 trigger_snap_after[NR_CPUS][TRIGGER_DEPTH_MAX + 1][TRACE_SLOT_WORDS];
/* a char * field's string, as filter_pred_pchar() copies it (USTRING_BUF_SIZE) */
#define TRIG_STR_BUF 1024
static u8 trigger_str[NR_CPUS][TRIG_STR_BUF];
long kg_read_string(u8 *dst, u64 va, long max, bool user);	/* kernel/trace_probe.c */
int kg_read(void *dst, u64 va, u32 n, bool user);		/* kernel/trace_probe.c */

notrace void *event_trigger_scratch(u32 len)
{
	u32 cpu = this_cpu()->h.cpu, depth = trigger_depth[cpu];

	if (len > BUF_MAX_DATA_SIZE || depth >= TRIGGER_DEPTH_MAX)
		return NULL;
	return trigger_scratch[cpu][depth];
}

static __always_inline void trig_copy(void *d, const void *s, u32 n)
{
	asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static notrace u32 trig_strnlen(const char *s, u32 max)
{
	u32 n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

static notrace bool trig_equal(const char *a, const char *b, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* lib/glob.c glob_match(), on at most len bytes of str (0: up to its NUL) */
static notrace bool trig_glob(const char *pat, u32 plen, const char *str, u32 len)
{
	u32 s = 0, p = 0, limit = len ? len : ~0U;
	long back_p = -1, back_s = -1;

	for (;;) {
		unsigned char c = s < limit ? str[s] : 0, d = p < plen ? pat[p] : 0;
		bool literal = true;

		p++;
		s++;
		if (d == '?') {
			if (!c)
				return false;
			continue;
		}
		if (d == '*') {
			if (p >= plen)
				return true;
			back_p = p;
			back_s = --s;
			continue;
		}
		if (d == '[') {
			bool inverted = p < plen && pat[p] == '!', matched = false, malformed = false;
			u32 q = p + inverted;
			unsigned char a = q < plen ? pat[q] : 0, b;

			q++;
			for (;;) {
				b = a;
				if (!a) {
					malformed = true;
					break;
				}
				if (q < plen && pat[q] == '-' && (q + 1 < plen ? pat[q + 1] : 0) != ']') {
					b = q + 1 < plen ? pat[q + 1] : 0;
					if (!b) {
						malformed = true;
						break;
					}
					q += 2;
				}
				matched |= a <= c && c <= b;
				a = q < plen ? pat[q] : 0;
				q++;
				if (a == ']')
					break;
			}
			if (!malformed) {
				literal = false;
				if (matched != inverted) {
					p = q;
					continue;
				}
			}
		} else if (d == '\\') {
			d = p < plen ? pat[p] : 0;
			p++;
		}
		if (literal && c == d) {
			if (!d)
				return true;
			continue;
		}
		if (!c || back_p < 0)
			return false;
		p = back_p;
		s = ++back_s;
	}
}

/* regex_match_full/front/middle/end/glob() on buf of len bytes (0: NUL-ended) */
static notrace bool trig_str_match(const struct trigger_pred *p, const char *buf, u32 len)
{
	const char *pat = &event_triggers.strings[p->str];
	u32 plen = p->str_len, n, i;

	switch (p->op) {
	case TPO_MATCH_FULL:
		if (!len)
			return trig_strnlen(buf, ~0U) == plen && trig_equal(buf, pat, plen);
		if (len < plen)
			return false;
		return trig_strnlen(buf, len) == plen && trig_equal(buf, pat, plen);
	case TPO_MATCH_FRONT:
		if (len && len < plen)
			return false;
		return trig_equal(buf, pat, plen);
	case TPO_MATCH_MIDDLE:
		n = len ? len : trig_strnlen(buf, ~0U);
		for (i = 0; i + plen <= n; i++)
			if (trig_equal(buf + i, pat, plen))
				return true;
		return false;
	case TPO_MATCH_END:
		if (!len || len - 1 < plen)
			return false;
		return trig_equal(buf + len - 1 - plen, pat, plen);
	default:
		return trig_glob(pat, plen, buf, len);
	}
}

static notrace bool trig_pred_match(const struct trigger_pred *p, const u8 *rec, struct percpu *pc)
{
	u64 v = 0, mask;
	s64 sv, sref;
	u32 loc;

	switch (p->kind) {
	case TPK_NUM:
		trig_copy(&v, rec + p->offset, p->size);
		break;
	case TPK_CPU:
		v = (u64)(s64)(s32)pc->h.cpu;
		break;
	case TPK_COMM: {
		struct task_struct *t = pc->curr_task;
		static const char none[TASK_COMM_LEN];

		return trig_str_match(p, t ? t->comm : none, TASK_COMM_LEN) != p->negate;
	}
	case TPK_STR:
		return trig_str_match(p, (const char *)rec + p->offset, p->size) != p->negate;
	case TPK_DYN_STR:
		trig_copy(&loc, rec + p->offset, 4);
		return trig_str_match(p, (const char *)rec + (loc & 0xffff),
				      trig_strnlen((const char *)rec + (loc & 0xffff), loc >> 16) + 1) != p->negate;
	case TPK_PTR_STR:
	case TPK_PTR_USTR: {
		/* filter_pred_pchar(): an unreadable string matches nothing */
		u8 *buf = trigger_str[pc->h.cpu];
		u64 ptr;
		long n;

		trig_copy(&ptr, rec + p->offset, 8);
		n = kg_read_string(buf, ptr, TRIG_STR_BUF - 1, p->kind == TPK_PTR_USTR);
		if (n < 0)
			return false;
		buf[n < TRIG_STR_BUF - 1 ? n : TRIG_STR_BUF - 1] = 0;
		return trig_str_match(p, (const char *)buf, trig_strnlen((const char *)buf, TRIG_STR_BUF) + 1) != p->negate;
	}
	default:
		return false;
	}
	mask = p->size >= 8 ? ~0UL : (1UL << (8 * p->size)) - 1;
	v &= mask;
	switch (p->op) {
	case TPO_EQ:
		return v == p->val;
	case TPO_NE:
		return v != p->val;
	case TPO_BAND:
		return (v & p->val) != 0;
	}
	if (p->is_signed) {
		unsigned int shift = 64 - 8 * p->size;

		sv = (s64)(v << shift) >> shift;
		sref = (s64)p->val;
		switch (p->op) {
		case TPO_LT: return sv < sref;
		case TPO_LE: return sv <= sref;
		case TPO_GT: return sv > sref;
		default: return sv >= sref;
		}
	}
	switch (p->op) {
	case TPO_LT: return v < p->val;
	case TPO_LE: return v <= p->val;
	case TPO_GT: return v > p->val;
	default: return v >= p->val;
	}
}

/* filter_match_preds(): the program falls through to its TRUE label */
static notrace bool trig_filter_match(const struct event_trigger *t, const void *rec, struct percpu *pc)
{
	const struct trigger_pred *prog = &event_triggers.pred[t->pred];
	u32 n = t->nr_preds, i = 0;

	while (i < n) {
		if (trig_pred_match(&prog[i], rec, pc) == prog[i].when_to_branch)
			i = prog[i].target;
		i++;
	}
	return i == n;
}

/*
 * __trace_stack() of the trigger's trace array: the event's writer, then the
 * return addresses of the frame-pointer chain from the writer's frame.
 */
/* the return addresses of the frame-pointer chain from frame bp, of the frames below limit:
 * at most max into calls */
static notrace u32 unwind_below(unsigned long bp, unsigned long limit, unsigned long *calls, u32 max)
{
	struct task_struct *t = this_cpu()->curr_task;
	unsigned long lo = bp, hi = (bp & ~(THREAD_SIZE - 1)) + THREAD_SIZE;
	int idx = t ? t->curr_ret_stack : 0;
	u32 n = 0;

	if (limit < hi)
		hi = limit;
	while (n < max && bp >= lo && bp + 16 <= hi && !(bp & 7)) {
		unsigned long ret = ((unsigned long *)bp)[1];

		if (t && ret == (unsigned long)return_to_handler && idx > 0)
			ret = t->ret_stack[--idx].ret;
		if (ret < (unsigned long)_stext || ret >= (unsigned long)_etext)
			break;
		calls[n++] = ret;
		lo = bp + 16;
		bp = ((unsigned long *)bp)[0];
	}
	return n;
}

/* the return addresses of the frame-pointer chain from frame bp: at most max into calls */
notrace u32 trigger_unwind(unsigned long bp, unsigned long *calls, u32 max)
{
	return unwind_below(bp, ~0UL, calls, max);
}

/* The stack of a probe's context from its saved registers (kprobe_trace_func()'s fbuffer.regs),
 * appended to calls[n..max): a kprobe on a function's entry site, the function, its caller,
 * theirs; an int3 kprobe, where it hit, then the probed function's frames; a kretprobe, the
 * return into the caller, then the caller's frames.  The new n. */
static notrace int probe_regs_unwind(struct percpu *pc, struct pt_regs *regs, unsigned long *calls, int n, int max)
{
	if (pc->trace_opt_regs_ftrace && pc->curr_task)
		return ftrace_unwind(pc->curr_task, regs, calls, n, max);
	calls[n++] = regs->ip;
	return n + trigger_unwind(regs->bp, calls + n, max - n);
}

/* A kernel_stack record of calls[0..n) in e, reserved for it: its common fields those of
 * hdr (the event's, type aside) or, hdr NULL, this context's; pad: stack_entry.pad. */
static notrace void put_kernel_stack(struct percpu *pc, struct stack_entry *e, const void *hdr,
				     unsigned long irqflags, const unsigned long *calls, int n, int pad)
{
	if (!e)
		return;
	if (hdr) {
		trig_copy(&e->ent, hdr, sizeof(e->ent));
		e->ent.type = TRACE_STACK;
	} else {
		trace_entry_fill(pc, &e->ent, TRACE_STACK, irqflags, trace_current_pid(pc));
	}
	e->size = n;
	e->pad = pad;
	trig_copy(e->caller, calls, n * sizeof(long));
	trace_event_commit(e, sizeof(*e) + n * sizeof(long));
}

static notrace void trig_stack(u32 slot, unsigned long irqflags, unsigned long writer, unsigned long bp)
{
	struct percpu *pc = this_cpu();
	unsigned long calls[FTRACE_STACK_MAX];
	int n = 1;

	calls[0] = writer;
	if (pc->trace_opt_regs && pc->curr_task) {
		/* a probe's trigger: the tracer's own frames, those below the registers the probe's
		 * entry saved, then the probed context's, as Linux's unwinder crosses them */
		n += unwind_below(bp, (unsigned long)pc->trace_opt_regs, calls + n, FTRACE_STACK_MAX - n);
		n = probe_regs_unwind(pc, pc->trace_opt_regs, calls, n, FTRACE_STACK_MAX);
	} else {
		n += trigger_unwind(bp, calls + 1, FTRACE_STACK_MAX - 1);
	}
	put_kernel_stack(pc, trace_event_buffer_reserve_slot(slot, sizeof(struct stack_entry) + n * sizeof(long),
							     trace_clock_read(pc)),
			 NULL, irqflags, calls, n, 0);
}

/*
 * stack_trace_save_user() (arch_stack_walk_user): the user ip of the current task's saved user
 * registers, then the return addresses of the frame-pointer chain in its user memory, while
 * a frame reads (and lies above the user sp) and names one.  A kernel thread has none; nor
 * has a session task: its user context is its host process's, which this kernel cannot read.
 */
static notrace int user_stack_walk(struct task_struct *t, unsigned long *calls, int max)
{
	struct pt_regs *regs;
	unsigned long fp, frame[2];
	int n = 0;

	if (!t || (t->flags & PF_KTHREAD) || !t->mm || !t->stack || t->session)
		return 0;
	regs = task_pt_regs(t);
	calls[n++] = regs->ip;
	fp = regs->bp;
	while (n < max) {
		if (fp >= TASK_SIZE_MAX || kg_read(frame, fp, sizeof(frame), true))
			break;
		if (fp < regs->sp || !frame[1])
			break;
		calls[n++] = frame[1];
		fp = frame[0];
	}
	return n;
}

notrace void trace_event_opt_stacks(u64 slots, const u64 *ext, const void *ent, unsigned long writer,
				    unsigned long bp)
{
	struct percpu *pc = this_cpu();
	u64 kslots, uslots, kext[TRACE_EXT_WORDS], uext[TRACE_EXT_WORDS];
	unsigned long calls[FTRACE_STACK_MAX];
	struct trace_entry hdr;
	int i;

	slots &= trace_control.recording & trace_control.cpu_slots[pc->h.cpu];
	kslots = slots & READ_ONCE(trace_control.stack_opts);
	uslots = slots & READ_ONCE(trace_control.ustack_opts);
	if (!(kslots | uslots))
		return;
	/* the slots past word 0 with either option (the reservations and them with recording_ext
	 * and this cpu's cpu_slots_ext); none: their summary bit off */
	if (unlikely((kslots | uslots) >> TRACE_SLOT_EXT)) {
		u64 kany = 0, uany = 0;

		for (i = 0; i < TRACE_EXT_WORDS; i++) {
			kext[i] = ext ? READ_ONCE(ext[i]) & READ_ONCE(trace_control.stack_opts_ext[i]) : 0;
			uext[i] = ext ? READ_ONCE(ext[i]) & READ_ONCE(trace_control.ustack_opts_ext[i]) : 0;
			kany |= kext[i];
			uany |= uext[i];
		}
		kslots &= ~((u64)!kany << TRACE_SLOT_EXT);
		uslots &= ~((u64)!uany << TRACE_SLOT_EXT);
		if (!(kslots | uslots))
			return;
	}
	trig_copy(&hdr, ent, sizeof(hdr));	/* the event's trace_ctx: both stacks show it */
	if (kslots) {
		struct pt_regs *regs = pc->trace_opt_regs;
		int n = 0;

		if (regs) {
			n = probe_regs_unwind(pc, regs, calls, 0, FTRACE_STACK_MAX);
		} else {
			if (writer)
				calls[n++] = writer;
			n += trigger_unwind(bp, calls + n, FTRACE_STACK_MAX - n);
		}
		put_kernel_stack(pc, trace_event_buffer_reserve_ext(kslots, kext, sizeof(struct stack_entry) + n * sizeof(long),
								    trace_clock_read(pc)),
				 &hdr, 0, calls, n, STACK_FOLLOWS_EVENT);
	}
	if (uslots) {
		struct task_struct *t = pc->curr_task;
		struct userstack_entry *u = trace_event_buffer_reserve_ext(uslots, uext, sizeof(*u), trace_clock_read(pc));
		int n;

		if (!u)
			return;
		trig_copy(&u->ent, &hdr, sizeof(hdr));
		u->ent.type = TRACE_USER_STACK;
		u->tgid = t ? t->tgid : 0;
		u->pad = 0;
		n = user_stack_walk(t, u->caller, FTRACE_STACK_ENTRIES);
		while (n < FTRACE_STACK_ENTRIES)
			u->caller[n++] = 0;
		trace_event_commit(u, sizeof(*u));
	}
}

/* tracing_snapshot_instance(): the host swaps the slot's buffers at this time */
notrace void event_trigger_snapshot(u32 slot)
{
	struct event_snapshot_reqs *r;
	u64 seq;

	if (slot >= TRACE_SLOTS)
		return;
	r = &event_triggers.snapshot[slot];
	seq = r->seq;
	r->ts[seq % EVENT_SNAPSHOT_REQS] = trace_clock_read(this_cpu());
	barrier();
	r->seq = seq + 1;
	host_doorbell(PORT_TRACE, 0);
}

/*
 * A snapshot asked by a hist action (save_track_data_snapshot()): 6.1 takes it inside
 * event_triggers_call(), the record already reserved in the buffer swapped out, so the
 * snapshot ends with that record: here it is asked once the record is committed.
 */
notrace void event_trigger_snapshot_after_record(u32 slot)
{
	struct percpu *pc = this_cpu();
	u32 depth = trigger_depth[pc->h.cpu];

	if (!depth || depth > TRIGGER_DEPTH_MAX || slot >= TRACE_SLOTS)
		event_trigger_snapshot(slot);
	else
		trigger_snap_after[pc->h.cpu][depth][slot / 64] |= 1ULL << slot % 64;
}

/* the count of a counted trigger: false when it is used up; else taken (when take) */
static notrace bool trig_count(const struct event_trigger *t, bool take)
{
	s64 *count = &event_triggers.counts[t->counter];

	if (!(t->flags & ETF_COUNTED))
		return true;
	if (*count <= 0)
		return false;
	if (take)
		(*count)--;
	return true;
}

/* hist_enable_trigger(): every hist trigger of the target event in the slot paused or not */
static notrace void trig_hist_enable(const struct event_trigger *t, bool enable)
{
	u32 type = t->target, nr = READ_ONCE(event_triggers.nr), i;

	if (type >= EVENT_TRIGGER_TYPES)
		return;
	for (i = event_triggers.first[type]; i < nr && event_triggers.trigger[i].type == type; i++) {
		const struct event_trigger *h = &event_triggers.trigger[i];

		if (h->cmd == ETT_HIST && h->slot == t->slot)
			WRITE_ONCE(((struct hist_map *)h->file)->paused, !enable);
	}
}

/* data->ops->trigger() of each command */
static notrace void trig_run(const struct event_trigger *t, const void *rec, unsigned long irqflags,
			     unsigned long writer, unsigned long bp, unsigned long hist_bp)
{
	switch (t->cmd) {
	case ETT_TRACEON:
	case ETT_TRACEOFF: {
		/* traceon/traceoff_count_trigger(): only a change of state counts */
		bool on = t->cmd == ETT_TRACEON;

		if (on == trace_slot_recording(t->slot) || !trig_count(t, true))
			break;
		trace_slot_set_recording(t->slot, on);
		break;
	}
	case ETT_STACKTRACE:
		if (trig_count(t, true))
			trig_stack(t->slot, irqflags, writer, bp);
		break;
	case ETT_SNAPSHOT:
		if (trig_count(t, true))
			event_trigger_snapshot(t->slot);
		break;
	case ETT_ENABLE_EVENT:
	case ETT_DISABLE_EVENT: {
		/* event_enable_trigger(): the target's SOFT_DISABLED, its slot bit here */
		bool enable = t->cmd == ETT_ENABLE_EVENT, word = t->flags & ETF_SOFT_WORD;

		/* a dynamic event's: its soft_off word, a bit set while the slot does not record;
		 * a slot past word 0: its bit in the type's extension words, set while it records
		 * (the type's: t->file is its soft_off word, dyn_soft_off[type]) */
		u64 *row = word && t->slot >= TRACE_WORD_SLOTS ?
			trace_event_ext[(const u64 *)t->file - event_triggers.dyn_soft_off] : NULL;

		if (row ? enable == trace_slots_test(NULL, row, t->slot)
			: word ? enable == !(READ_ONCE(t->file->slots) >> t->slot & 1)
			: enable == trace_event_file_test(t->file, t->slot))
			break;
		if (!trig_count(t, true))
			break;
		/* (the event's own word 0 keeps its summary bit while the slot has it enabled) */
		if (row && enable)
			__atomic_fetch_or(&row[t->slot / 64 - 1], 1ULL << t->slot % 64, __ATOMIC_SEQ_CST);
		else if (row)
			__atomic_fetch_and(&row[t->slot / 64 - 1], ~(1ULL << t->slot % 64), __ATOMIC_SEQ_CST);
		else if (word)
			trace_slots_flip(&t->file->slots, NULL, t->slot, !enable);
		else
			trace_event_file_flip(t->file, t->slot, enable);
		break;
	}
	case ETT_HIST:
		hist_trigger((struct hist_map *)t->file, rec, t->slot, hist_bp);
		break;
	case ETT_ENABLE_HIST:
	case ETT_DISABLE_HIST:
		/* hist_enable_count_trigger(): counted only when it runs */
		if (trig_count(t, true))
			trig_hist_enable(t, t->cmd == ETT_ENABLE_HIST);
		break;
	}
}

/* cmd_ops->trigger_type: traceon and traceoff are one type (ETT_TRACE_ONOFF) */
static __always_inline u32 trig_class(u32 cmd)
{
	return cmd == ETT_TRACEON ? ETT_TRACEOFF : cmd == ETT_DISABLE_HIST ? ETT_ENABLE_HIST : cmd;
}

/* (slot, command class) of a deferred trigger, as trig_deferred[] keeps it */
static __always_inline u32 trig_deferred_key(const struct event_trigger *t)
{
	return (u32)t->slot << 8 | trig_class(t->cmd);
}

/* whether the trigger's slot has triggers on the event now (its file's trigger word: a slot
 * past word 0's, by their summary bit; the entry itself says it is that slot's) and it is the
 * slot asked for (only: TRACE_SLOTS, any) */
static __always_inline bool trig_slot_on(u64 trig, const struct event_trigger *t, u32 only)
{
	u32 bit = t->slot < TRACE_WORD_SLOTS ? t->slot : TRACE_SLOT_EXT;

	return (trig >> bit & 1) && (only == TRACE_SLOTS || t->slot == only);
}

static __always_inline bool trig_is_deferred(const u32 *deferred, u32 n, u32 key)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (deferred[i] == key)
			return true;
	return false;
}

/*
 * The triggers of file on rec and, with commit, the record itself between what runs before it
 * and after (event_triggers_call(), the commit, event_triggers_post_call()); commit is a
 * constant of each caller below, so neither pays for the other's case.
 */
static __always_inline void event_triggers_around(const struct trace_event_file *file, u32 only, void *rec,
						  u32 len, u64 pid_slots, const u64 *pid_ext, bool commit, unsigned long irqflags,
						  unsigned long writer, unsigned long bp, unsigned long hist_bp)
{
	struct percpu *pc = this_cpu();
	u32 type = file->type, nr = READ_ONCE(event_triggers.nr), i, first;
	u64 trig, slots, *snap, ext_buf[TRACE_EXT_WORDS];
	const u64 *ext;
	/* the deferred commands' (slot, class): all their triggers run after the commit */
	u32 deferred[TRIGGER_DEFERRED_MAX];
	u32 n_deferred = 0;
	u16 nested[TRIGGER_NESTED_MAX];	/* the matched triggers that write records of their own */
	u32 n_nested = 0;
	struct trace_write w;
	void *dst;

	if (type >= EVENT_TRIGGER_TYPES)
		return;
	trigger_depth[pc->h.cpu]++;
	snap = trigger_snap_after[pc->h.cpu][trigger_depth[pc->h.cpu] % (TRIGGER_DEPTH_MAX + 1)];
	for (i = 0; i < TRACE_SLOT_WORDS; i++)
		snap[i] = 0;
	first = event_triggers.first[type];
	trig = READ_ONCE(file->triggers);
	/*
	 * event_triggers_call(): a file without TRIGGER_COND runs its triggers before the
	 * record (__trace_trigger_soft_disabled); one with it, those whose filter matches,
	 * the post triggers (traceoff, stacktrace) and snapshots kept for after the commit.
	 */
	for (i = first; i < nr && event_triggers.trigger[i].type == type; i++) {
		const struct event_trigger *t = &event_triggers.trigger[i];

		if (!trig_slot_on(trig, t, only) || (t->flags & ETF_PAUSED))
			continue;
		if (t->flags & ETF_COND) {
			if (t->nr_preds && !trig_filter_match(t, rec, pc))
				continue;
			/*
			 * A hist trigger (its actions' synthetic events) and an eprobe write records
			 * of their own: 6.1 writes them with this record reserved, so they follow
			 * it in the buffer; here they run once it is committed.
			 */
			if ((t->cmd == ETT_HIST || t->cmd == ETT_EVENT_EPROBE) && n_nested < TRIGGER_NESTED_MAX) {
				nested[n_nested++] = i;
				continue;
			}
			if (t->cmd == ETT_EVENT_EPROBE) {	/* EVENT_CMD_FL_NEEDS_REC: the record itself */
				eprobe_trigger_func(t->counter, rec, irqflags);
				continue;
			}
			/*
			 * Post triggers, and a snapshot: 6.1 reserved the record in the ring buffer
			 * before event_triggers_call() swapped it out, so the snapshot ends with the
			 * record that triggered it.
			 */
			if (((t->flags & ETF_POST) || t->cmd == ETT_SNAPSHOT) &&
			    (trig_is_deferred(deferred, n_deferred, trig_deferred_key(t)) ||
			     n_deferred < TRIGGER_DEFERRED_MAX)) {
				if (!trig_is_deferred(deferred, n_deferred, trig_deferred_key(t)))
					deferred[n_deferred++] = trig_deferred_key(t);
				continue;
			}
		}
		trig_run(t, rec, irqflags, writer, bp, hist_bp);
	}
	/* the record, in the slots that record it now (triggers may have changed them) */
	slots = commit ? dyn_file_slots(READ_ONCE(file->slots), type) & pid_slots : 0;
	ext = trace_event_file_ext(file);
	if (commit && ext && pid_ext && (slots >> TRACE_SLOT_EXT)) {
		for (i = 0; i < TRACE_EXT_WORDS; i++)
			ext_buf[i] = READ_ONCE(ext[i]) & pid_ext[i];
		ext = ext_buf;
	}
	dst = commit ? trace_event_reserve_inline(pc, slots, ext, len, &w) : NULL;
	if (dst) {
		trig_copy(dst, rec, len);
		trace_event_commit_inline(dst, len, &w);
		if (unlikely(slots & trace_stack_opt_slots()))
			trace_event_opt_stacks(slots, ext, rec, writer, bp);
	}
	for (i = 0; i < n_nested; i++) {
		const struct event_trigger *t = &event_triggers.trigger[nested[i]];

		if (t->cmd == ETT_EVENT_EPROBE)
			eprobe_trigger_func(t->counter, rec, irqflags);
		else
			trig_run(t, rec, irqflags, writer, bp, hist_bp);
	}
	/* event_triggers_post_call(): every trigger of a deferred command */
	for (i = first; n_deferred && i < nr && event_triggers.trigger[i].type == type; i++) {
		const struct event_trigger *t = &event_triggers.trigger[i];

		if (!trig_slot_on(trig, t, only) || (t->flags & ETF_PAUSED) ||
		    !trig_is_deferred(deferred, n_deferred, trig_deferred_key(t)))
			continue;
		trig_run(t, rec, irqflags, writer, bp, hist_bp);
	}
	for (i = 0; i < TRACE_SLOT_WORDS; i++)
		for (slots = snap[i]; slots; slots &= slots - 1)
			event_trigger_snapshot(i * 64 + __builtin_ctzll(slots));
	trigger_depth[pc->h.cpu]--;
}

notrace void event_triggers_record(const struct trace_event_file *file, void *rec, u32 len, u64 pid_slots,
				   const u64 *pid_ext,
				   unsigned long irqflags, unsigned long writer, unsigned long bp,
				   unsigned long hist_bp)
{
	event_triggers_around(file, TRACE_SLOTS, rec, len, pid_slots, pid_ext, true, irqflags, writer, bp, hist_bp);
}

notrace void event_triggers_call(const struct trace_event_file *file, u32 slot, void *rec, unsigned long irqflags,
				 unsigned long writer, unsigned long bp, unsigned long hist_bp)
{
	event_triggers_around(file, slot, rec, 0, 0, NULL, false, irqflags, writer, bp, hist_bp);
}
