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

/* hist_key_field.kind, hist_val_field.kind */
#define HF_NUM		1	/* a numeric field of the record */
#define HF_CPU		2	/* common_cpu */
#define HF_STR		3	/* char[size] */
#define HF_DYN_STR	4	/* __data_loc char[] */
#define HF_HITCOUNT	5	/* vals only: 1 a hit */

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
};

_Static_assert(sizeof(struct hist_key_field) == 24, "hist_key_field layout");
_Static_assert(sizeof(struct hist_val_field) == 8, "hist_val_field layout");
_Static_assert(sizeof(struct hist_map) == 64 + 3 * 24 + 3 * 8, "hist_map layout");

extern struct hist_map hist_maps[HIST_MAPS_MAX];
extern u8 hist_arena[HIST_ARENA_SIZE];

/* event_hist_trigger(): the record's key, found or inserted, its sums updated */
void hist_trigger(struct hist_map *m, const void *rec);
#endif
