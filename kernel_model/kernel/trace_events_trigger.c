/*
 * Event triggers (kernel/trace/trace_events_trigger.c): the records of an
 * event with triggers (include/trace/trigger.h), and event_triggers_call().
 * The event writers call these with interrupts off.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/trace/trigger.h"

struct event_triggers event_triggers;
/* trace_buffered_event: per cpu, one record being built (interrupts are off meanwhile) */
static u8 trace_buffered_event[NR_CPUS][BUF_MAX_DATA_SIZE + 8] __aligned(8);

notrace void *trace_buffered_event_reserve(struct percpu *pc, u32 len)
{
	if (len > BUF_MAX_DATA_SIZE)
		return NULL;
	return trace_buffered_event[pc->h.cpu];
}

/* event_triggers_call(): every trigger on this event in one of `slots`, in the order they came */
static notrace void event_triggers_call(const struct trace_event_file *file, u32 slots, const void *rec,
					unsigned long irqflags)
{
	u32 i, n = READ_ONCE(event_triggers.nr);
	u16 type = file->type;

	if (n > EVENT_TRIGGERS_MAX)
		n = EVENT_TRIGGERS_MAX;
	for (i = 0; i < n; i++) {
		const struct event_trigger *t = &event_triggers.t[i];

		if (t->type != type || !(slots >> t->slot & 1))
			continue;
		switch (t->kind) {
		case ETT_EVENT_EPROBE:
			eprobe_trigger_func(t->data, rec, irqflags);
			break;
		}
	}
}

notrace void trace_buffered_event_commit(const struct trace_event_file *file, u32 trig_slots, u32 rec_slots,
					 void *rec, u32 len, unsigned long irqflags)
{
	struct percpu *pc = this_cpu();
	u32 slots = rec_slots & trace_control.recording & trace_control.cpu_slots[pc->h.cpu];

	if (slots) {
		void *dst = trace_event_buffer_reserve_slots(slots, len, trace_clock_read(pc));

		if (dst) {
			memcpy(dst, rec, len);
			trace_event_commit(dst, len);
		}
	}
	event_triggers_call(file, trig_slots, rec, irqflags);
}
