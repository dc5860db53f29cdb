/*
 * Histograms at the event: Linux 6.1's tracing_map (kernel/trace/tracing_map.c:
 * jhash of the key, open addressing over 2 * max_elts entries claimed with
 * cmpxchg, elements taken in order until max_elts, then drops) and
 * event_hist_trigger() of trace_events_hist.c (the key from the record's
 * fields: numbers as u64, log2 and buckets applied; strings copied NUL-ended;
 * the sums of the values; variables, their expressions and $var references,
 * resolve_var_refs() in the element of the same key in the variable's map;
 * the actions onmatch / onmax / onchange with trace, save and snapshot).
 * Nothing here is traceable.
 */
#include "../include/kernel.h"
#include "../include/trace/tracing_map.h"
#include "../include/trace/ring.h"
#include "../include/trace/trigger.h"
#include "../include/trace/synth.h"

struct hist_map hist_maps[HIST_MAPS_MAX];
u8 hist_arena[HIST_ARENA_SIZE] __aligned(4096);
static u8 hist_key[NR_CPUS][HIST_KEY_SIZE_MAX] __aligned(8);

#include "../include/jhash.h"

static notrace bool keys_match(const u8 *a, const u8 *b, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* hist_field_u8 ... hist_field_s64: the field, signed ones sign-extended */
static __always_inline u64 hist_read(const u8 *p, u32 size, bool is_signed)
{
	switch (size) {
	case 1: return is_signed ? (u64)(s64)*(const s8 *)p : *p;
	case 2: return is_signed ? (u64)(s64)*(const s16 *)p : *(const u16 *)p;
	case 4: return is_signed ? (u64)(s64)*(const s32 *)p : *(const u32 *)p;
	default: return *(const u64 *)p;
	}
}

/* ilog2(roundup_pow_of_two(v)) as x86-64 computes it (a shift by 64 is one by 0) */
static __always_inline u64 hist_log2(u64 v)
{
	u64 n = v - 1;

	return n ? (64 - __builtin_clzl(n)) & 63 : 0;
}

/* tracing_map_lookup(): the element of key, NULL when there is none */
static notrace u8 *tracing_map_lookup(struct hist_map *m, const u8 *key)
{
	u32 key_hash = jhash(key, m->key_size, 0), idx, size = 2U << m->map_bits, n;

	if (!key_hash)
		key_hash = 1;
	idx = key_hash >> (32 - (m->map_bits + 1));
	for (n = 0; n < size; n++, idx++) {
		struct tracing_map_entry *e = &m->map[idx & (size - 1)];
		u32 test_key = READ_ONCE(e->key), val;

		if (!test_key)
			return NULL;
		val = READ_ONCE(e->val);
		if (test_key == key_hash && val &&
		    keys_match(key, m->elts + (u64)(val - 1) * m->elt_size, m->key_size))
			return m->elts + (u64)(val - 1) * m->elt_size;
	}
	return NULL;
}

/* tracing_map_insert(): the element of key, NULL when the map is full (a drop) */
static notrace u8 *tracing_map_insert(struct hist_map *m, const u8 *key)
{
	u32 key_hash = jhash(key, m->key_size, 0), idx, size = 2U << m->map_bits, dup_try = 0;

	if (!key_hash)
		key_hash = 1;
	idx = key_hash >> (32 - (m->map_bits + 1));
	for (;;) {
		struct tracing_map_entry *e;
		u32 test_key, val;

		idx &= size - 1;
		e = &m->map[idx];
		test_key = READ_ONCE(e->key);
		if (test_key && test_key == key_hash) {
			val = READ_ONCE(e->val);
			if (val && keys_match(key, m->elts + (u64)(val - 1) * m->elt_size, m->key_size)) {
				__atomic_fetch_add(&m->hits, 1, __ATOMIC_RELAXED);
				return m->elts + (u64)(val - 1) * m->elt_size;
			} else if (!val) {
				if (++dup_try > size) {
					__atomic_fetch_add(&m->drops, 1, __ATOMIC_RELAXED);
					return NULL;
				}
				continue;
			}
		}
		if (!test_key) {
			u32 zero = 0;

			if (__atomic_compare_exchange_n(&e->key, &zero, key_hash, false, __ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST)) {
				u32 n = __atomic_fetch_add(&m->next_elt, 1, __ATOMIC_SEQ_CST);
				u8 *elt;
				u32 i;

				if (n >= (1U << m->map_bits)) {
					__atomic_fetch_sub(&m->next_elt, 1, __ATOMIC_SEQ_CST);
					__atomic_fetch_add(&m->drops, 1, __ATOMIC_RELAXED);
					WRITE_ONCE(e->key, 0);
					return NULL;
				}
				elt = m->elts + (u64)n * m->elt_size;
				for (i = 0; i < m->key_size; i++)
					elt[i] = key[i];
				if (m->comm_offset) {	/* hist_trigger_elt_data_init(): save_comm(current) */
					struct task_struct *t = this_cpu()->curr_task;

					for (i = 0; i < TASK_COMM_LEN; i++)
						elt[m->comm_offset + i] = t ? t->comm[i] : 0;
				}
				barrier();
				WRITE_ONCE(e->val, n + 1);
				__atomic_fetch_add(&m->hits, 1, __ATOMIC_RELAXED);
				return elt;
			}
			dup_try++;
			continue;
		}
		idx++;
	}
}

/* ns2usecs() */
static __always_inline u64 hist_usecs(u64 ns)
{
	return (ns + 500) / 1000;
}

/* a string field of the record: where it is, *n its size (a __data_loc's from its descriptor) */
static __always_inline const char *hist_field_str(const u8 *r, u32 offset, u32 size, bool dynamic, u32 *n)
{
	u32 loc;

	if (!dynamic) {
		*n = size;
		return (const char *)r + offset;
	}
	loc = *(const u32 *)(r + offset);
	*n = loc >> 16;
	return (const char *)r + (loc & 0xffff);
}

/* a string variable's value: its string kept in the element's slot, that slot's address */
static notrace u64 hist_var_str(const struct hist_map *m, const struct hist_expr *e, const u8 *r, u8 *elt)
{
	char *dst = (char *)elt + m->vars_offset + 8 * (m->n_vars + 1) + STR_VAR_LEN_MAX * e->val;
	u32 n, j;
	const char *s = hist_field_str(r, e->offset, e->size, e->op == HE_DYN_STR, &n);

	for (j = 0; j < STR_VAR_LEN_MAX - 1 && j < n && s[j]; j++)	/* strscpy() */
		dst[j] = s[j];
	dst[j] = 0;
	return (u64)dst;
}

/* hist_fn_call() of an expression (a variable's, a key's, a value's): steps first .. first + n in postfix order */
static notrace u64 hist_expr_eval(const struct hist_map *m, u32 first, u32 n, const u8 *r,
				  const u64 *ref_vals, u64 ts, u8 *elt)
{
	u64 stack[HIST_EXPR_MAX];
	u32 sp = 0, i;

	for (i = first; i < first + n && i < HIST_EXPR_MAX; i++) {
		const struct hist_expr *e = &m->expr[i];
		u64 a, b;

		switch (e->op) {
		case HE_FIELD:
			stack[sp++] = hist_read(r + e->offset, e->size, e->is_signed);
			continue;
		case HE_CPU:
			stack[sp++] = this_cpu()->h.cpu;
			continue;
		case HE_TS:
			stack[sp++] = ts;
			continue;
		case HE_TS_USECS:
			stack[sp++] = hist_usecs(ts);
			continue;
		case HE_REF:
			stack[sp++] = ref_vals[e->offset];
			continue;
		case HE_CONST:
			stack[sp++] = e->val;
			continue;
		case HE_STR:
		case HE_DYN_STR:
			stack[sp++] = hist_var_str(m, e, r, elt);
			continue;
		case HE_NEG:
			if (sp)
				stack[sp - 1] = -stack[sp - 1];
			continue;
		case HE_LOG2:
			if (sp)
				stack[sp - 1] = hist_log2(stack[sp - 1]);
			continue;
		case HE_BUCKETS:
			if (sp && e->val)
				stack[sp - 1] = stack[sp - 1] / e->val * e->val;
			continue;
		}
		if (sp < 2)
			return 0;
		b = stack[--sp];
		a = stack[sp - 1];
		switch (e->op) {
		case HE_PLUS: a += b; break;
		case HE_MINUS: a -= b; break;
		case HE_MULT: a *= b; break;
		case HE_DIV:
			/* hist_field_div(), and div_by_mult_and_shift() for a constant divisor */
			if (!b)
				a = -1;
			else if (!(b & (b - 1)))
				a >>= __builtin_ctzl(b);
			else if (e->val && b <= (1UL << 20) && a < (1UL << 20))
				a = (a * ((1UL << 20) / b) + ((1UL << 20) - 1)) >> 20;
			else
				a /= b;
			break;
		}
		stack[sp - 1] = a;
	}
	return sp ? stack[sp - 1] : 0;
}

/*
 * resolve_var_refs(): each reference to another map's variable (self: to this
 * map's) read from the element of key there; false when one is not set
 */
static notrace bool hist_resolve_refs(struct hist_map *m, const u8 *key, u64 *ref_vals, bool self)
{
	u32 i;

	for (i = 0; i < m->n_refs && i < HIST_VAR_REFS_MAX; i++) {
		const struct hist_var_ref *ref = &m->refs[i];
		struct hist_map *vm = ref->map;
		u64 *vars, *set, bit = 1UL << ref->var;
		u8 *elt;

		if (!vm || (self && vm != m) || (!self && vm == m))
			continue;
		elt = tracing_map_lookup(vm, key);
		if (!elt)
			return false;
		vars = (u64 *)(elt + vm->vars_offset);
		set = &vars[vm->n_vars];
		if (!(READ_ONCE(*set) & bit))
			return false;
		ref_vals[i] = READ_ONCE(vars[ref->var]);
		if (!self && ref->read_once)
			__atomic_fetch_and(set, ~bit, __ATOMIC_RELAXED);
	}
	return true;
}

/* an argument of an action (a field of the record: the field var's value) */
static notrace u64 hist_param_value(const struct hist_param *p, const u8 *r, const u64 *ref_vals)
{
	u32 loc;

	switch (p->kind) {
	case HP_REF:
		return ref_vals[p->offset];
	case HP_STR:
		return (u64)(r + p->offset);
	case HP_DYN_STR:
		loc = *(const u32 *)(r + p->offset);
		return (u64)(r + (loc & 0xffff));
	default:
		return hist_read(r + p->offset, p->size, p->is_signed);
	}
}

/* save_track_data(): the arguments kept in the element, strings copied */
static notrace void hist_save(const struct hist_action *a, u8 *elt, const u8 *r, const u64 *ref_vals)
{
	u32 i, j;

	for (i = 0; i < a->n_params && i < HIST_PARAMS_MAX; i++) {
		const struct hist_param *p = &a->params[i];
		u8 *dst = elt + a->save_offset + p->save_at;
		u64 v = hist_param_value(p, r, ref_vals);

		if (p->kind == HP_STR || p->kind == HP_DYN_STR) {
			const char *s = (const char *)v;
			u32 n = p->kind == HP_STR ? p->size : STR_VAR_LEN_MAX;

			for (j = 0; j < STR_VAR_LEN_MAX - 1 && j < n && s[j]; j++)
				dst[j] = s[j];
			dst[j] = 0;
		} else {
			*(u64 *)dst = v;
		}
	}
}

/*
 * save_track_data_snapshot(): tracing_snapshot_cond() with cond_snapshot_update(), the
 * value tracked in the element against the one that took the last snapshot
 */
static notrace bool hist_cond_snapshot_update(struct hist_map *m, const struct hist_action *a, const u8 *elt, u64 val)
{
	struct hist_cond_snapshot *c = hist_cond_snapshot(m);
	u32 i, n = m->key_size + (m->comm_offset ? TASK_COMM_LEN : 0);
	bool take;

	notrace_spin_lock(&c->lock);
	take = a->handler == HA_ONMAX ? val > c->val : val != c->val;
	if (take) {
		c->val = val;
		for (i = 0; i < n; i++)
			c->key[i] = elt[i];
		c->updated = 1;
	}
	notrace_spin_unlock(&c->lock);
	return take;
}

/* hist_trigger_actions(): action_trace(), ontrack_action() */
static notrace void hist_actions(struct hist_map *m, u8 *elt, const u8 *r, u64 *ref_vals, u32 slot)
{
	unsigned int idx[HIST_PARAMS_MAX];
	u32 i, j;

	for (i = 0; i < m->n_actions && i < HIST_ACTIONS_MAX; i++) {
		const struct hist_action *a = &m->actions[i];

		if (a->handler != HA_ONMATCH) {
			/* check_track_val_max() / check_track_val_changed(), save_track_val() */
			u64 *track = (u64 *)(elt + a->track_offset), val = ref_vals[a->track_ref];

			if (a->handler == HA_ONMAX ? val <= READ_ONCE(*track) : val == READ_ONCE(*track))
				continue;
			WRITE_ONCE(*track, val);
			if (a->action == HA_SAVE || a->action == HA_SNAPSHOT)
				hist_save(a, elt, r, ref_vals);
		}
		if (a->action == HA_SNAPSHOT) {
			if (hist_cond_snapshot_update(m, a, elt, ref_vals[a->track_ref]))
				event_trigger_snapshot_after_record(slot);
		} else if (a->action == HA_TRACE) {
			/* the arguments that are fields: field vars, after the references */
			for (j = 0; j < a->n_params && j < HIST_PARAMS_MAX; j++) {
				const struct hist_param *p = &a->params[j];

				if (p->kind == HP_REF) {
					idx[j] = p->offset;
				} else {
					idx[j] = HIST_VAR_REFS_MAX + i * HIST_PARAMS_MAX + j;
					ref_vals[idx[j]] = hist_param_value(p, r, ref_vals);
				}
			}
			trace_synth(a->synth, ref_vals, idx);
		}
	}
}

/* bp: the frame of the event's writer, whose caller's stack a stacktrace key is
 * (stack_trace_save() skipping the tracing's own frames, HIST_STACKTRACE_SKIP) */
notrace void hist_trigger(struct hist_map *m, const void *rec, u32 slot, unsigned long bp)
{
	const u8 *r = rec;
	u8 *key = hist_key[this_cpu()->h.cpu], *elt;
	u64 ref_vals[HIST_REF_VALS_MAX], ts = 0, *sums;
	u32 i, j;

	if (READ_ONCE(m->paused))
		return;
	if (m->uses_ts)
		ts = trace_clock_read(this_cpu());
	for (i = 0; i < m->key_size; i++)
		key[i] = 0;
	for (i = 0; i < m->n_keys; i++) {
		const struct hist_key_field *k = &m->keys[i];
		const char *s;
		u32 n;
		u64 v;

		switch (k->kind) {
		case HF_STR:
		case HF_DYN_STR:
			/* add_to_key(): strncpy of the field, at most str_size - 1 bytes */
			s = hist_field_str(r, k->offset, k->size, k->kind == HF_DYN_STR, &n);
			if (n > k->str_size - 1)
				n = k->str_size - 1;
			for (j = 0; j < n && s[j]; j++)
				key[k->key_offset + j] = s[j];
			continue;
		case HF_CPU:
			v = this_cpu()->h.cpu;
			break;
		case HF_STACKTRACE:	/* the rest of the entries stay zero */
			trigger_unwind(bp, (unsigned long *)(key + k->key_offset), HIST_STACKTRACE_DEPTH);
			continue;
		case HF_EXPR:		/* (no $var in a key: create_key_field() refuses them) */
			v = hist_expr_eval(m, k->offset, k->size, r, ref_vals, ts, NULL);
			break;
		default:
			v = hist_read(r + k->offset, k->size, k->is_signed);
			break;
		}
		if (k->flags & HF_LOG2)
			v = hist_log2(v);
		if (k->flags & HF_BUCKETS)
			v = v / k->buckets * k->buckets;
		*(u64 *)(key + k->key_offset) = v;
	}
	if (m->n_refs && !hist_resolve_refs(m, key, ref_vals, false))
		return;
	elt = tracing_map_insert(m, key);
	if (!elt)
		return;
	sums = (u64 *)(elt + m->sums_offset);
	for (i = 0; i < m->n_vals; i++) {
		const struct hist_val_field *f = &m->vals[i];
		u64 v;

		if (f->kind == HF_HITCOUNT)
			v = 1;
		else if (f->kind == HF_CPU)
			v = this_cpu()->h.cpu;
		else if (f->kind == HF_EXPR)	/* its $vars resolved above, read in this element */
			v = hist_expr_eval(m, f->offset, f->size, r, ref_vals, ts, elt);
		else
			v = hist_read(r + f->offset, f->size, f->is_signed);
		__atomic_fetch_add(&sums[i], v, __ATOMIC_RELAXED);
	}
	if (m->n_vars) {
		/* tracing_map_set_var() of each variable: its expression on this record */
		u64 *vars = (u64 *)(elt + m->vars_offset), set = 0;

		if (!m->uses_ts)
			ts = trace_clock_read(this_cpu());
		for (i = 0; i < m->n_vars && i < HIST_VARS_MAX; i++) {
			WRITE_ONCE(vars[i], hist_expr_eval(m, m->vars[i].expr, m->vars[i].n_expr, r, ref_vals, ts, elt));
			set |= 1UL << i;
		}
		__atomic_fetch_or(&vars[m->n_vars], set, __ATOMIC_RELAXED);
	}
	if (m->n_actions && hist_resolve_refs(m, key, ref_vals, true))
		hist_actions(m, elt, r, ref_vals, slot);
}
