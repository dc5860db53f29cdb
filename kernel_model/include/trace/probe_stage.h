/*
 * Probe staging: a host-side probe handler (a kprobe's, running in Python
 * at a code hook) never writes the ring itself: it stages one record in its
 * CPU's probe_stage and guest code commits it (probe_commit_stub, in
 * kernel/trace_probe.c), so each guest ring keeps a single writer.  The
 * static asserts pin the layout the host mirrors.
 */
#ifndef _TRACE_PROBE_STAGE_H
#define _TRACE_PROBE_STAGE_H
#include "../kernel.h"

#define PROBE_STAGE_MAX 3072		/* payload bytes */
#define PROBE_STAGE_SIZE 3088		/* sizeof(struct probe_stage), for asm */

struct probe_stage {			/* one per CPU, host-written */
	volatile u32 len;		/* payload bytes after struct trace_entry; 0: nothing staged */
	u16 type;			/* common_type (the event's id) */
	u16 pad;
	u32 slots;			/* trace-array slots that record it (anded with recording) */
	u32 irqflags;			/* eflags of the probed context (the IF bit gives 'd') */
	u8 data[PROBE_STAGE_MAX];	/* the record body: what follows the 8-byte common header */
};

_Static_assert(offsetof(struct probe_stage, type) == 4, "probe_stage layout");
_Static_assert(offsetof(struct probe_stage, slots) == 8, "probe_stage layout");
_Static_assert(offsetof(struct probe_stage, irqflags) == 12, "probe_stage layout");
_Static_assert(offsetof(struct probe_stage, data) == 16, "probe_stage layout");
_Static_assert(sizeof(struct probe_stage) == PROBE_STAGE_SIZE && PROBE_STAGE_SIZE == 16 + PROBE_STAGE_MAX,
	       "probe_stage layout");

extern struct probe_stage probe_stage[NR_CPUS];

/* Commits this CPU's staged record, if any; preserves every register and the flags. */
void probe_commit_stub(void);
#endif
