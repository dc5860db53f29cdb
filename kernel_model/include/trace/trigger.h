/*
 * Event triggers (kernel/trace/trace_events_trigger.c): what runs when an
 * event fires while a trace array has a trigger on it, whether or not the
 * event itself records there (Linux's EVENT_FILE_FL_TRIGGER_MODE: the event
 * is soft-enabled for them).  trace_event_file.triggers has bit s set while
 * slot s has triggers on the event; the host writes the triggers themselves
 * into event_triggers.  Such an event builds its record in this cpu's
 * trace_buffered_event (Linux's temp buffer for an event that may not
 * record), copies it to the slots that record it, then runs the triggers on
 * it (event_triggers_call()).  The static asserts pin what the host mirrors.
 */
#ifndef _TRACE_TRIGGER_H
#define _TRACE_TRIGGER_H
#include "ring.h"

#define EVENT_TRIGGERS_MAX 512

/* enum event_trigger_type: what a trigger does */
enum { ETT_NONE, ETT_EVENT_EPROBE };

struct event_trigger {
	u16 type;		/* the event's id (its file's type) */
	u8 kind;		/* ETT_*; ETT_NONE: a free entry */
	u8 slot;		/* the trace array whose event file it is on */
	u32 data;		/* ETT_EVENT_EPROBE: the eprobe's kprobe_guest.probes index */
};

struct event_triggers {
	volatile u32 nr;	/* entries in use: [0, nr) */
	u32 pad;
	struct event_trigger t[EVENT_TRIGGERS_MAX];
};

_Static_assert(sizeof(struct event_trigger) == 8, "event_trigger layout");
_Static_assert(offsetof(struct event_triggers, t) == 8, "event_triggers layout");

extern struct event_triggers event_triggers;

/* A record of len bytes to build in this cpu's buffer; NULL: larger than a record may be. */
void *trace_buffered_event_reserve(struct percpu *pc, u32 len);
/* The record built there goes to the slots that record it (rec_slots, before the
 * recording and cpumask bits), then the triggers of trig_slots run on it. */
void trace_buffered_event_commit(const struct trace_event_file *file, u32 trig_slots, u32 rec_slots,
				 void *rec, u32 len, unsigned long irqflags);

/* kernel/trace_probe.c: an eprobe's record from the record of the event it is attached to */
void eprobe_trigger_func(u32 probe, const void *rec, unsigned long irqflags);
#endif
