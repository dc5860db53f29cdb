/*
 * Event triggers (Linux 6.1's kernel/trace/trace_events_trigger.c): the
 * commands written to events/<sys>/<event>/trigger, run by the event's own
 * writer in the guest.  The host writes the table with every CPU stopped,
 * sorted by event type (each type's entries newest first, as Linux's list),
 * with the filters compiled into predicate programs (filter_match_preds()'s
 * form: a predicate, the result it branches on, where to); the guest
 * decrements the counts and asks for snapshots.
 *
 * A slot's triggers on an event are announced in the event's own
 * trace_event_file: bit slot of `triggers` (EVENT_FILE_FL_TRIGGER_MODE), the
 * word beside `slots`, so a writer finds them in the line it loads anyway.
 * Slots past word 0 (include/trace/slots.h) share its summary bit
 * TRACE_SLOT_EXT: set while any of them has triggers on the event, whose
 * entries in the table then say which (trig_slot_on()).
 */
#ifndef _TRACE_TRIGGER_H
#define _TRACE_TRIGGER_H
#include "ring.h"

#define EVENT_TRIGGER_TYPES	2048	/* event types that may have triggers (first[] is indexed by type) */
#define EVENT_TRIGGERS_MAX	1024
#define EVENT_TRIGGER_PREDS_MAX	4096
#define EVENT_TRIGGER_STRINGS	16384	/* the filters' string operands, back to back */
#define EVENT_SNAPSHOT_REQS	16	/* snapshot requests a slot keeps until the host takes them */

/* event_trigger.cmd (enum event_trigger_type's commands) */
#define ETT_TRACEON		1
#define ETT_TRACEOFF		2
#define ETT_STACKTRACE		3
#define ETT_SNAPSHOT		4
#define ETT_ENABLE_EVENT	5
#define ETT_DISABLE_EVENT	6
#define ETT_HIST		7	/* `file` is its struct hist_map */
#define ETT_ENABLE_HIST		8	/* `file` is the target event's file: its hist triggers go on */
#define ETT_DISABLE_HIST	9
#define ETT_EVENT_EPROBE	10	/* an eprobe: counter is its kprobe_guest.probes index */

/* event_trigger.flags */
#define ETF_COUNTED		0x01	/* a count limits it (":N"); else unlimited */
#define ETF_POST		0x02	/* EVENT_CMD_FL_POST_TRIGGER: runs after the record is committed */
#define ETF_COND		0x04	/* EVENT_FILE_FL_TRIGGER_COND of its file: filters are evaluated on the record */
#define ETF_PAUSED		0x08
#define ETF_SOFT_WORD		0x10	/* enable_event / disable_event: `file` is a dynamic event's soft_off word */

struct event_trigger {
	u16 type;			/* the event's id */
	u8 cmd;
	u8 flags;
	u16 slot;			/* the trace array whose file it is on (any of TRACE_SLOTS) */
	u16 pred;			/* its filter: the first predicate */
	u16 nr_preds;			/* 0: no filter */
	u16 target;			/* enable_hist / disable_hist: the target event's type */
	u32 counter;			/* index into event_triggers.counts */
	struct trace_event_file *file;	/* enable_event / disable_event: the target event */
};

/* trigger_pred.kind */
#define TPK_NEVER	0	/* a predicate that never matches (a field size no comparison has) */
#define TPK_NUM		1	/* a numeric field */
#define TPK_CPU		2	/* CPU / cpu / common_cpu */
#define TPK_COMM	3	/* COMM / comm: current->comm */
#define TPK_STR		4	/* char[N] (size 0: the rest of the record, NUL-ended) */
#define TPK_DYN_STR	5	/* __data_loc char[] */
#define TPK_PTR_STR	6	/* char *: the string it points to (kernel memory) */
#define TPK_PTR_USTR	7	/* char * with .ustring: in user memory */

/* trigger_pred.op: numeric comparisons */
#define TPO_EQ		0
#define TPO_NE		1
#define TPO_LT		2
#define TPO_LE		3
#define TPO_GT		4
#define TPO_GE		5
#define TPO_BAND	6
/* string matches (filter_build_regex()'s kinds) */
#define TPO_MATCH_FULL		0
#define TPO_MATCH_FRONT		1
#define TPO_MATCH_MIDDLE	2
#define TPO_MATCH_END		3
#define TPO_MATCH_GLOB		4

struct trigger_pred {
	u8 kind;
	u8 op;
	u8 size;			/* the field's size */
	u8 is_signed;
	u8 when_to_branch;
	u8 negate;			/* string matches: the result inverted */
	u16 target;
	u16 offset;			/* the field's offset in the record */
	u16 str_len;
	u32 str;			/* string operand: its offset in event_triggers.strings */
	u64 val;			/* numeric operand, cast to the field's size and signedness */
};

struct event_snapshot_reqs {
	u64 seq;			/* requests made so far */
	u64 ts[EVENT_SNAPSHOT_REQS];	/* the time of request n at ts[n % EVENT_SNAPSHOT_REQS] */
};

struct event_triggers {
	u32 nr;
	u32 pad;
	u16 first[EVENT_TRIGGER_TYPES];	/* the type's first entry (nr: none) */
	s64 counts[EVENT_TRIGGERS_MAX];
	struct event_snapshot_reqs snapshot[TRACE_SLOTS];
	struct event_trigger trigger[EVENT_TRIGGERS_MAX];
	struct trigger_pred pred[EVENT_TRIGGER_PREDS_MAX];
	char strings[EVENT_TRIGGER_STRINGS];
	/*
	 * EVENT_FILE_FL_SOFT_DISABLED of the dynamic events (kprobe, uprobe, eprobe and
	 * synthetic events), by type: bit s, slot s does not record it.  Their writers are
	 * given their slots by the host; what they record in is those less these
	 * (dyn_file_slots()), which the host sets and an enable_event / disable_event
	 * trigger flips.  (A tracepoint's soft mode is its trace_event_file's slot bit.)  Word
	 * 0's slots: a slot past word 0 is soft-disabled as a tracepoint's, its bit clear in its
	 * type's extension words (trace_event_ext[type]), which the trigger sets again.
	 */
	u64 dyn_soft_off[EVENT_TRIGGER_TYPES];
};

_Static_assert(EVENT_TRIGGER_TYPES <= TRACE_EXT_TYPES, "every type with triggers has extension words");

_Static_assert(sizeof(struct event_trigger) == 24, "event_trigger layout");
_Static_assert(sizeof(struct trigger_pred) == 24, "trigger_pred layout");

extern struct event_triggers event_triggers;

/* a dynamic event's slots as its writer records in them (soft-disabled slots taken out) */
static __always_inline u64 dyn_file_slots(u64 slots, u32 type)
{
	return type < EVENT_TRIGGER_TYPES ? slots & ~READ_ONCE(event_triggers.dyn_soft_off[type]) : slots;
}

/* per cpu, the record a writer with triggers builds before it goes to the rings */
void *event_trigger_scratch(u32 len);
/*
 * The event's triggers and its record: rec (len bytes, in the scratch) was
 * filled for file; pid_slots: the slots the pid filters let record it (pid_ext: past word 0,
 * when its summary bit is set; NULL: all);
 * writer: the event's writer (a stack trace's first frame); bp: the frame
 * whose return address is the next (the function that fired the event);
 * hist_bp: the frame a hist trigger's stacktrace key starts from (see
 * trace_hist_frame() in kernel/events.c).  Interrupts are off (irqflags: as
 * they were).
 */
void event_triggers_record(const struct trace_event_file *file, void *rec, u32 len, u64 pid_slots, const u64 *pid_ext,
			   unsigned long irqflags, unsigned long writer, unsigned long bp, unsigned long hist_bp);
/*
 * The same triggers around a record the host commits itself (a trace_marker write's: see
 * kernel/trace_marker.c): those of slot's trace array that run before the record and those
 * after, nothing written.
 */
void event_triggers_call(const struct trace_event_file *file, u32 slot, void *rec, unsigned long irqflags,
			 unsigned long writer, unsigned long bp, unsigned long hist_bp);
/* kernel/trace_marker.c: every trace array's ftrace/print event (6.1's tr->trace_marker_file) */
extern struct trace_event_file trace_marker_file;
extern char trace_marker_text[];
long tracing_mark_write(u32 slot, u32 pid, u32 cnt);
/* the return addresses of the frame-pointer chain from the frame bp (at most max) */
u32 trigger_unwind(unsigned long bp, unsigned long *calls, u32 max);
/* tracing_snapshot_instance() of a slot: the host takes the snapshot */
void event_trigger_snapshot(u32 slot);
/* the same, asked by a trigger running on a record: once the record is committed */
void event_trigger_snapshot_after_record(u32 slot);
/* kernel/trace_probe.c: a probe event's record (in the scratch) through its file's triggers */
void probe_trigger_commit(const struct trace_event_file *file, void *rec, u32 len, unsigned long irqflags);
/* kernel/trace_probe.c: an eprobe's record from the record of the event it is attached to */
void eprobe_trigger_func(u32 probe, const void *rec, unsigned long irqflags);
#endif
