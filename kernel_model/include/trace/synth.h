/*
 * Synthetic events (kernel/trace/trace_events_synth.c): events whose fields
 * a user named; the host writes each one's layout into synth_events, and
 * trace_synth() writes one with the values a histogram's action computed
 * (var_ref_vals[var_ref_idx[i]] for field i; a string field's value is the
 * string's address), as 6.1's trace_event_raw_event_synth() does: every
 * field in a u64 slot (a fixed string: STR_VAR_LEN_MAX bytes), dynamic
 * strings after them.  The static asserts pin what the host mirrors.
 */
#ifndef _TRACE_SYNTH_H
#define _TRACE_SYNTH_H
#include "ring.h"

#define SYNTH_EVENTS_MAX	256
#define SYNTH_FIELDS_MAX	64
#define STR_VAR_LEN_MAX		256	/* MAX_FILTER_STR_VAL */

enum { SYNTH_FIELD_NUM, SYNTH_FIELD_STRING, SYNTH_FIELD_DYN_STRING, SYNTH_FIELD_STACK };

struct synth_event {
	struct trace_event_file file;	/* slots, triggers, type: as a tracepoint's */
	u32 n_fields;			/* 0: a free entry */
	u32 n_u64;			/* the fixed part's u64 slots */
	u8 size[SYNTH_FIELDS_MAX];	/* a number's bytes */
	u8 kind[SYNTH_FIELDS_MAX];	/* SYNTH_FIELD_* */
};

_Static_assert(offsetof(struct synth_event, n_fields) == 24, "synth_event layout");
_Static_assert(offsetof(struct synth_event, size) == 32, "synth_event layout");
_Static_assert(sizeof(struct synth_event) == 32 + 2 * SYNTH_FIELDS_MAX, "synth_event layout");

extern struct synth_event synth_events[SYNTH_EVENTS_MAX];

/* trace_synth(): one record of the event, in every slot that has it enabled */
void trace_synth(struct synth_event *event, const u64 *var_ref_vals, const unsigned int *var_ref_idx);
#endif
