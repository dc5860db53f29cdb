/*
 * Histograms' maps in the guest (Linux 6.1's kernel/trace/tracing_map.c and the
 * hist trigger of trace_events_hist.c): a hist trigger's map is a hash table
 * of 2 * max_elts entries {key hash, element} over an array of max_elts
 * elements (the key, then the comm of an execname key, then the u64 sums);
 * the event's writer builds the key from the record and adds to the sums.
 * The host sets the maps up in hist_arena and reads them to print `hist`.
 */
#ifndef _TRACE_TRACING_MAP_H
#define _TRACE_TRACING_MAP_H
#include "../kernel.h"

#define HIST_MAPS_MAX		128
#define HIST_ARENA_SIZE		(16UL << 20)	/* the maps' tables and elements */
#define HIST_KEYS_MAX		3		/* TRACING_MAP_KEYS_MAX */
#define HIST_VALS_MAX		3		/* TRACING_MAP_VALS_MAX (hitcount included) */
#define HIST_KEY_SIZE_MAX	512		/* MAX_FILTER_STR_VAL + HIST_STACKTRACE_SIZE, rounded */
#define HIST_STR_MAX		256		/* MAX_FILTER_STR_VAL: a string key's size */
#define HIST_VARS_MAX		16		/* TRACING_MAP_VARS_MAX: variables of one map (its elements' vars[]) */
#define HIST_VAR_REFS_MAX	8		/* $var references of one map (var_ref_vals[0..]) */
#define HIST_EXPR_MAX		64		/* expression steps of one map's variables, keys and values */
#define HIST_ACTIONS_MAX	2
#define HIST_PARAMS_MAX		8		/* an action's arguments */
#define HIST_REF_VALS_MAX	(HIST_VAR_REFS_MAX + HIST_ACTIONS_MAX * HIST_PARAMS_MAX)

/* hist_key_field.kind, hist_val_field.kind */
#define HF_NUM		1	/* a numeric field of the record */
#define HF_CPU		2	/* common_cpu */
#define HF_STR		3	/* char[size] */
#define HF_DYN_STR	4	/* __data_loc char[] */
#define HF_HITCOUNT	5	/* vals only: 1 a hit */
#define HF_STACKTRACE	6	/* keys only: the event's caller's stack, HIST_STACKTRACE_DEPTH return addresses */
/*
 * An expression (6.1's parse_expr() of a key or value: an operator, a constant,
 * common_timestamp, a $var): expr[offset .. offset + size) in postfix order, as a
 * variable's
 */
#define HF_EXPR		7
#define HIST_STACKTRACE_DEPTH	16

/* hist_expr.op: a variable's expression, in postfix order (parse_expr()'s tree, flattened) */
#define HE_FIELD	1	/* a numeric field of the record (offset, size, is_signed) */
#define HE_CPU		2
#define HE_TS		3	/* common_timestamp: the event's time, ns */
#define HE_TS_USECS	4	/* common_timestamp.usecs: ns2usecs() of it */
#define HE_REF		5	/* var_ref_vals[offset] */
#define HE_CONST	6	/* val */
#define HE_PLUS		7
#define HE_MINUS	8
#define HE_MULT		9
#define HE_DIV		10	/* by 0: (u64)-1, as hist_field_div() */
#define HE_NEG		11
/*
 * A string variable (a char[N] / __data_loc char[] field, offset and size): its
 * string copied into the element's string slot `val` (STR_VAR_LEN_MAX bytes each,
 * after the variables and their set word), the variable that slot's address, as
 * 6.1's hist_trigger_elt_update() keeps it in field_var_str[]
 */
#define HE_STR		12
#define HE_DYN_STR	13
/* an operand's .log2 / .buckets=val (hist_field_log2(), hist_field_bucket()) of the value before */
#define HE_LOG2		14
#define HE_BUCKETS	15

/* hist_param.kind: an action's argument */
#define HP_REF		1	/* var_ref_vals[offset] */
#define HP_NUM		2	/* a numeric field of the record */
#define HP_STR		3	/* char[size] of the record: its address */
#define HP_DYN_STR	4	/* __data_loc char[]: its address */

/* hist_action.handler, .action */
#define HA_ONMATCH	1
#define HA_ONMAX	2
#define HA_ONCHANGE	3
#define HA_TRACE	1	/* trace_synth() of synth with the params */
#define HA_SAVE		2	/* the params saved in the element (save_offset) */
#define HA_SNAPSHOT	3	/* a snapshot of the map's trace array */

/* hist_key_field.flags */
#define HF_LOG2		0x01
#define HF_BUCKETS	0x02

struct hist_key_field {
	u8 kind;
	u8 size;			/* the record field's size */
	u8 is_signed;
	u8 flags;
	u16 offset;			/* in the record */
	u16 key_offset;			/* in the key */
	u32 str_size;			/* strings: at most this many bytes, less one (NUL-ended) */
	u32 pad;
	u64 buckets;
};

struct hist_val_field {
	u8 kind;
	u8 size;
	u8 is_signed;
	u8 pad;
	u16 offset;
	u16 pad2;
};

struct hist_expr {
	u8 op;
	u8 size;
	u8 is_signed;
	u8 pad;
	u16 offset;
	u16 pad2;
	u64 val;
};

/* a variable: vars[i] of each element, set from expr[first .. first + n) */
struct hist_var {
	u16 expr;
	u16 n_expr;
};

/* a $var reference: map's variable var, read in the element of the current key */
struct hist_var_ref {
	struct hist_map *map;
	u16 var;
	u8 read_once;		/* cleared when read (an expression's operand of another map's variable) */
	u8 pad[5];
};

struct hist_param {
	u8 kind;
	u8 size;
	u8 is_signed;
	u8 pad;
	u16 offset;		/* HP_REF: the var_ref_vals index; else the field's offset in the record */
	u16 save_at;		/* save: where in the element's saved values (a string: STR_VAR_LEN_MAX bytes) */
};

struct hist_action {
	u8 handler;
	u8 action;
	u8 n_params;
	u8 track_ref;		/* onmax / onchange: the var_ref_vals index of the value tracked */
	u32 track_offset;	/* onmax / onchange: the tracked value in the element */
	u32 save_offset;	/* save: the saved values in the element */
	u32 pad;
	void *synth;		/* trace: its struct synth_event */
	struct hist_param params[HIST_PARAMS_MAX];
};

struct tracing_map_entry {
	u32 key;			/* the key's hash (0: free) */
	u32 val;			/* its element + 1 (0: being inserted) */
};

struct hist_map {
	u32 map_bits;			/* max_elts = 1 << map_bits, 2 * max_elts entries */
	u32 key_size;
	u32 n_keys;
	u32 n_vals;
	u32 elt_size;			/* key_size [+ TASK_COMM_LEN] + 8 * n_vals */
	u32 comm_offset;		/* != 0: the comm of an execname key, at this offset in an element */
	u32 next_elt;
	u32 paused;			/* enable_hist / disable_hist flip it in the guest; :pause / :cont the host */
	u64 hits;
	u64 drops;
	struct tracing_map_entry *map;	/* in hist_arena */
	u8 *elts;			/* in hist_arena */
	struct hist_key_field keys[HIST_KEYS_MAX];
	struct hist_val_field vals[HIST_VALS_MAX];
	u32 sums_offset;		/* in an element: the u64 sums */
	u32 vars_offset;		/* in an element: u64 vars[n_vars], then a u64 of the ones set */
	u32 n_vars;
	u32 n_refs;
	u32 n_actions;
	u32 uses_ts;			/* a key or value reads common_timestamp: the time read first */
	struct hist_var vars[HIST_VARS_MAX];
	struct hist_var_ref refs[HIST_VAR_REFS_MAX];	/* (8-aligned: vars[] is 64 bytes) */
	struct hist_expr expr[HIST_EXPR_MAX];
	struct hist_action actions[HIST_ACTIONS_MAX];
};

_Static_assert(sizeof(struct hist_key_field) == 24, "hist_key_field layout");
_Static_assert(sizeof(struct hist_val_field) == 8, "hist_val_field layout");
_Static_assert(offsetof(struct hist_map, sums_offset) == 64 + 3 * 24 + 3 * 8, "hist_map layout");
_Static_assert(sizeof(struct hist_expr) == 16, "hist_expr layout");
_Static_assert(sizeof(struct hist_var_ref) == 16, "hist_var_ref layout");
_Static_assert(sizeof(struct hist_param) == 8, "hist_param layout");
_Static_assert(sizeof(struct hist_action) == 24 + 8 * HIST_PARAMS_MAX, "hist_action layout");

/*
 * A map with a snapshot action has its trace array's conditional snapshot (6.1's
 * tr->cond_snapshot and its track_data) after its elements, 8-aligned: the value that
 * took the last snapshot, and the key (and comm) of the element it was tracked in.
 * cond_snapshot_update() lets a snapshot be taken only past that value (onmax) or
 * off it (onchange), under tr->max_lock.
 */
struct hist_cond_snapshot {
	u64 val;			/* track_data->track_val */
	u32 updated;			/* a snapshot was taken */
	notrace_spinlock_t lock;	/* tr->max_lock */
	u8 key[];			/* key_size bytes, then the comm of an execname key */
};

static __always_inline struct hist_cond_snapshot *hist_cond_snapshot(const struct hist_map *m)
{
	return (struct hist_cond_snapshot *)(((unsigned long)m->elts + ((unsigned long)m->elt_size << m->map_bits) + 7) & ~7UL);
}

extern struct hist_map hist_maps[HIST_MAPS_MAX];
extern u8 hist_arena[HIST_ARENA_SIZE];

/* event_hist_trigger(): the record's key, found or inserted, its sums updated */
void hist_trigger(struct hist_map *m, const void *rec, u32 slot, unsigned long bp);
#endif
