/*
 * The triggers of a write to trace_marker (Linux 6.1's tracing_mark_write() in
 * kernel/trace/trace.c).  A trace array's ftrace/print event is its
 * trace_marker_file: 6.1 runs that file's triggers on each marker record,
 * event_triggers_call() on the record before its commit (the text NUL-ended,
 * without the newline it gets after) and event_triggers_post_call() after.
 * The writer here is a host process and the host writes the record into its
 * buffer; when the array's print event has triggers, it asks kthreadd
 * (HOST_REQ_TRACE_MARKER) to run them on the same record, so that a hist,
 * snapshot, traceoff or enable_event trigger on ftrace/print acts at the write,
 * in the kernel, as its triggers on any other event do.  Not traceable, as
 * kernel/trace/ is not.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/trace/ftrace.h"
#include "../include/trace/trigger.h"

#define TRACE_BUF_SIZE	1024	/* the most one write records (kernel/trace/trace.h) */

/* triggers: bit s, slot s's print event has triggers (the host sets it, as any event's) */
struct trace_event_file trace_marker_file = { .type = TRACE_PRINT };
/* the text a request is about: the host writes it, then asks (one request at a time) */
char trace_marker_text[TRACE_BUF_SIZE];

struct print_entry {
	struct trace_entry ent;
	unsigned long ip;
	char buf[];
};

/* the record of a write of cnt bytes of trace_marker_text by pid to slot's trace_marker,
 * through the slot's print triggers; 0, or -EINVAL for no such slot */
long tracing_mark_write(u32 slot, u32 pid, u32 cnt)
{
	/* kthreadd's alone, one request at a time (the triggers' own records are in their scratch) */
	static union {
		struct print_entry e;
		u8 bytes[sizeof(struct print_entry) + TRACE_BUF_SIZE + 1];
	} rec __aligned(8);
	struct trace_event_file file = { .type = TRACE_PRINT };
	unsigned long flags, here = (unsigned long)tracing_mark_write;

	if (slot >= TRACE_SLOTS)
		return -EINVAL;
	/* the slot's triggers only: another array's print event is another file in 6.1 (a slot
	 * past word 0: their summary bit, and event_triggers_call() takes the slot's entries) */
	file.triggers = READ_ONCE(trace_marker_file.triggers) &
			1ULL << (slot < TRACE_WORD_SLOTS ? slot : TRACE_SLOT_EXT);
	if (!file.triggers)
		return 0;
	if (cnt > TRACE_BUF_SIZE)
		cnt = TRACE_BUF_SIZE;
	memset(&rec.e, 0, sizeof(rec.e));
	rec.e.ent.type = TRACE_PRINT;
	rec.e.ent.pid = pid;
	rec.e.ip = here;
	memcpy(rec.e.buf, trace_marker_text, cnt);
	rec.e.buf[cnt] = '\0';		/* do not add \n before testing triggers, but add \0 */
	flags = arch_local_irq_save();
	event_triggers_call(&file, slot, &rec, flags, here, (unsigned long)__builtin_frame_address(0),
			    (unsigned long)__builtin_frame_address(0));
	arch_local_irq_restore(flags);
	return 0;
}
