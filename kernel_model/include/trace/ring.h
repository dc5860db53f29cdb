/*
 * Per-CPU ring buffers the tracepoints write into, in Linux 6.1's data-page
 * layout (kernel/trace/ring_buffer.c: buffer_data_page, rb_event headers,
 * TIME_EXTEND, tail padding).  One small ring per (trace-array slot, CPU):
 * it is only the transport to the host (src/tracefs_sim/machine/tracing.py),
 * which keeps the logical buffer.  The host reads a page's `commit`, then
 * [0, commit) of it, while the guest keeps writing: the guest stores commit
 * after the bytes it covers and never reuses a page the host has not
 * released.  The static asserts pin the layout the host mirrors.
 */
#ifndef _TRACE_RING_H
#define _TRACE_RING_H
#include "../hostif.h"
#include "../uapi/ring_page.h"	/* the page's layout: BUF_PAGE_SIZE, RINGBUF_TYPE_*, TS_SHIFT... */
#include "slots.h"		/* slot 0: top-level trace array, the others instances; the masks' words */

#define TRACE_RING_PAGES	64	/* pages per (slot, cpu): ~9,000 function events, some ms of a busy CPU */

/* kernel/trace/trace.h: enum trace_flag_type */
#define TRACE_FLAG_IRQS_OFF		0x01
#define TRACE_FLAG_NEED_RESCHED		0x04
#define TRACE_FLAG_HARDIRQ		0x08
#define TRACE_FLAG_SOFTIRQ		0x10
#define TRACE_FLAG_PREEMPT_RESCHED	0x20
#define TRACE_FLAG_NMI			0x40

/* What the host sets per event (one per syscalls:* event too). */
struct trace_event_file {
	u64 slots;		/* bit s: enabled in trace-array slot s (word 0; the rest: trace_event_ext) */
	/* bit s: slot s has triggers on it (EVENT_FILE_FL_TRIGGER_MODE: include/trace/trigger.h) */
	u64 triggers;
	u16 type;		/* common_type: the event's id */
	u16 nargs;		/* syscalls:sys_enter_*: arguments recorded */
	u32 pad;
};

struct buffer_data_page {
	u64 time_stamp;
	volatile u64 commit;
	u8 data[BUF_PAGE_SIZE];
};

/* One (slot, cpu) ring.  Host-written fields are marked. */
struct trace_ring {
	volatile u64 seq;	/* 0: sequence number of the page being written (index seq % TRACE_RING_PAGES) */
	volatile u64 released;	/* 8: host: pages with a lower seq may be reused */
	u64 lost;		/* 16: events dropped (ring full) since the current page started */
	u64 write_stamp;	/* 24: time of the last event written */
	u32 tail;		/* 32: next free offset in data[] of the current page */
	u32 closed;		/* 36: the current page is padded out; the next event needs a free page */
	volatile u32 reset_req;	/* 40: host: > reset_done asks the writer to start on a fresh page */
	u32 reset_done;		/* 44 */
	/* 48: its TRACE_RING_PAGES pages (page seq at pages[seq % TRACE_RING_PAGES]): slot 0's
	 * static, an instance's allocated when it is made (trace_slot_alloc()); NULL: none */
	struct buffer_data_page *pages;
	volatile u64 page_lost[TRACE_RING_PAGES];	/* 56: `lost` when each page was started */
};

struct trace_control {
	volatile u64 recording;		/* host: bit s: tracing_on of slot s */
	volatile u64 stack_opts;	/* host: bit s: options/stacktrace of slot s (word 0: and stack_opts_ext) */
	volatile u64 ustack_opts;	/* host: bit s: options/userstacktrace of slot s (and ustack_opts_ext) */
	volatile u64 stack_slots;	/* host: stack_opts | ustack_opts (one load for the writers) */
	volatile u64 cpu_slots[NR_CPUS];	/* host: bit s: slot s's tracing_cpumask has this cpu */
	/* slots 0..62's; rings[TRACE_SLOT_EXT] are closed sentinels (no pages), so that a lone
	 * bit 63 takes the writers' slow path (trace_event_buffer_reserve_ext()) */
	struct trace_ring rings[TRACE_WORD_SLOTS][NR_CPUS];
	/* the extension words (slots 64..) of recording and cpu_slots (host-written) */
	volatile u64 recording_ext[TRACE_EXT_WORDS];
	volatile u64 cpu_slots_ext[NR_CPUS][TRACE_EXT_WORDS];
	/* slot s >= 64: its NR_CPUS rings, allocated with its pages (trace_slot_alloc()); NULL: none */
	struct trace_ring *ext_rings[TRACE_SLOTS];
	/* the extension words of stack_opts and ustack_opts (host-written) */
	volatile u64 stack_opts_ext[TRACE_EXT_WORDS];
	volatile u64 ustack_opts_ext[TRACE_EXT_WORDS];
};

_Static_assert(offsetof(struct trace_ring, reset_req) == 40, "trace_ring layout");
_Static_assert(offsetof(struct trace_ring, pages) == 48, "trace_ring layout");
_Static_assert(offsetof(struct trace_ring, page_lost) == 56, "trace_ring layout");
_Static_assert(sizeof(struct trace_ring) == 56 + 8 * TRACE_RING_PAGES, "trace_ring layout");
_Static_assert(offsetof(struct trace_control, cpu_slots) == 32, "trace_control layout");
_Static_assert(offsetof(struct trace_control, rings) == 32 + 8 * NR_CPUS, "trace_control layout");
_Static_assert(TRACE_SLOT_EXT == TRACE_WORD_SLOTS - 1, "the sentinel ring is word 0's last");
_Static_assert(sizeof(struct trace_event_file) == 24, "trace_event_file layout");
_Static_assert(sizeof(struct buffer_data_page) == 4096, "buffer_data_page layout");
_Static_assert(offsetof(struct percpu, trace_taskinfo_save) == offsetof(struct percpu, trace_pending) + 4,
	       "trace_fast_claim() sets both with one store");

extern struct trace_control trace_control;
/* percpu.trace_opt_type's flag: the stacks' extension words are percpu.trace_opt_ext (types are u16) */
#define TRACE_OPT_EXT_OWN	(1U << 16)
/* host: the extension words of each event type's file slots (slot s >= 64: word s / 64 - 1) */
extern u64 trace_event_ext[TRACE_EXT_TYPES][TRACE_EXT_WORDS];
/* the top level's pages (slot 0); an instance's are allocated with it */
extern struct buffer_data_page trace_pages[NR_CPUS][TRACE_RING_PAGES];

void *trace_event_buffer_reserve(const struct trace_event_file *file, u32 len);
void *trace_event_buffer_reserve_slots(u64 slots, u32 len, u64 ts);
void *trace_event_buffer_reserve_ext(u64 slots, const u64 *ext, u32 len, u64 ts);
void trace_event_commit(const void *rec, u32 len);
void trace_ring_tick(void);
/*
 * An instance's slot made and taken down (instance_mkdir()/instance_rmdir(): its ring buffer
 * allocated, then freed): the host asks, with every mask bit of the slot clear, through its
 * request mailbox (kernel/kthreads.c).  -ENOMEM: not enough memory, nothing allocated.
 */
int trace_slot_alloc(u32 slot);
void trace_slot_free(u32 slot);

/* The extension words of an event file's slots (its type's), or NULL: a type that has none. */
static __always_inline const u64 *trace_event_file_ext(const struct trace_event_file *file)
{
	return file->type < TRACE_EXT_TYPES ? trace_event_ext[file->type] : NULL;
}

/*
 * Slot `slot` of a set kept as word 0 at *w0 and, for the slots past it, extension words at ext
 * (NULL: the set has none, and no such slot is in it).
 */
static __always_inline bool trace_slots_test(const volatile u64 *w0, const volatile u64 *ext, u32 slot)
{
	if (slot < TRACE_WORD_SLOTS)
		return READ_ONCE(*w0) >> slot & 1;
	return ext && READ_ONCE(ext[slot / 64 - 1]) >> slot % 64 & 1;
}

/*
 * The guest's own flip of one slot of such a set (a trigger's, a function probe's): atomic, and
 * word 0's summary bit kept: set after the extension bit, cleared only while every extension
 * word reads 0, and set again if one became non-zero meanwhile (another cpu's flip on).
 */
static __always_inline void trace_slots_flip(volatile u64 *w0, volatile u64 *ext, u32 slot, bool on)
{
	u64 bit = 1ULL << slot % 64, summary = 1ULL << TRACE_SLOT_EXT;
	volatile u64 *w = slot < TRACE_WORD_SLOTS ? w0 : ext ? &ext[slot / 64 - 1] : NULL;
	int i;

	if (!w)
		return;
	if (on)
		__atomic_fetch_or(w, bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(w, ~bit, __ATOMIC_SEQ_CST);
	if (w == w0)
		return;
	if (on) {
		__atomic_fetch_or(w0, summary, __ATOMIC_SEQ_CST);
		return;
	}
	for (i = 0; i < TRACE_EXT_WORDS; i++)
		if (READ_ONCE(ext[i]))
			return;
	__atomic_fetch_and(w0, ~summary, __ATOMIC_SEQ_CST);
	for (i = 0; i < TRACE_EXT_WORDS; i++)
		if (READ_ONCE(ext[i])) {
			__atomic_fetch_or(w0, summary, __ATOMIC_SEQ_CST);
			return;
		}
}

/* tracing_on of a slot (its recording bit), as the guest reads and flips it */
static __always_inline bool trace_slot_recording(u32 slot)
{
	return trace_slots_test(&trace_control.recording, trace_control.recording_ext, slot);
}

static __always_inline void trace_slot_set_recording(u32 slot, bool on)
{
	trace_slots_flip(&trace_control.recording, trace_control.recording_ext, slot, on);
}

/* an event file's slot bit (EVENT_FILE_FL_SOFT_DISABLED clear), as triggers and probes flip it */
static __always_inline bool trace_event_file_test(const struct trace_event_file *file, u32 slot)
{
	return trace_slots_test(&file->slots, trace_event_file_ext(file), slot);
}

static __always_inline void trace_event_file_flip(struct trace_event_file *file, u32 slot, bool on)
{
	trace_slots_flip(&file->slots, file->type < TRACE_EXT_TYPES ? trace_event_ext[file->type] : NULL, slot, on);
}

/*
 * The reservation of a record in the one slot `slot` (when it records on this cpu), e.g. a
 * trigger's stack trace in its trace array; NULL: it does not, or its ring is full.
 */
void *trace_event_buffer_reserve_slot(u32 slot, u32 len, u64 ts);

/* The ring of (slot, cpu): word 0's in trace_control, an extension slot's allocated. */
static __always_inline struct trace_ring *trace_ring_of(u32 slot, int cpu)
{
	if (slot < TRACE_WORD_SLOTS)
		return &trace_control.rings[slot][cpu];
	return &trace_control.ext_rings[slot][cpu];
}

/* the slots that take a stack after each event record (either option) */
static __always_inline u64 trace_stack_opt_slots(void)
{
	return trace_control.stack_slots;
}
/*
 * ftrace_trace_stack() / ftrace_trace_userstack() of trace_buffer_unlock_commit_regs(): after an
 * event's record was committed in `slots` (word 0; its TRACE_SLOT_EXT set: the extension words
 * ext too, the event's: trace_event_file_ext()), the stacks the options ask for in those slots
 * (ent: the record's common fields; writer, if not 0, the first kernel frame; bp: the frame the
 * walk of its callers starts from).  kernel/trace_events_trigger.c.
 */
void trace_event_opt_stacks(u64 slots, const u64 *ext, const void *ent, unsigned long writer, unsigned long bp);

/*
 * trace_clock_local(): the machine's clock (machine_clock_now()), each read at least
 * trace_clock_step past the last one on this cpu (seeded, reads within one slice would tie):
 * the time the host measured for fewer instructions than an event costs, so the clock does
 * not run ahead of the machine's.
 */
static __always_inline u64 trace_clock_peek(struct percpu *pc)
{
	u64 now = machine_clock_now(pc), last = pc->trace_clock_last;
	u64 next = (last + READ_ONCE(pc->trace_clock_step)) & -(u64)(last != 0);	/* no floor before the first read */

	return now + ((next - now) & -(u64)(now < next));
}

static __always_inline u64 trace_clock_read(struct percpu *pc)
{
	u64 now = trace_clock_peek(pc);

	pc->trace_clock_last = now;
	return now;
}

/* rb_calculate_event_length(), with masks for branches */
static __always_inline u32 rb_event_length(u32 len)
{
	u32 n = len + (len == 0);

	n += 4 * (n > 4 * RINGBUF_TYPE_DATA_TYPE_LEN_MAX);
	n = (n + 4 + 3) & ~3U;
	return n + 4 * (n == 12);
}

/* Where an inline reservation wrote; page NULL: trace_event_buffer_reserve_slots() reserved it. */
struct trace_write {
	struct buffer_data_page *page;
	u32 tail;
};

/*
 * trace_event_buffer_reserve() with its common case inlined into the
 * tracer: one slot records the event on this cpu, its current page has
 * events already, room for the record and a delta that fits the one-word
 * header.  That case writes the header here, with no call and no branch per
 * condition; every other case goes to trace_event_buffer_reserve_ext()
 * with the same time stamp, so both write the same bytes.  Fill the record,
 * then trace_event_commit_inline().  Interrupts off from reserve to commit.
 * ext: the extension words of the writer's slots (trace_event_file_ext()), read only when
 * word 0's TRACE_SLOT_EXT is set; NULL: none.
 */
static __always_inline void *trace_event_reserve_inline(struct percpu *pc, u64 file_slots, const u64 *ext,
							u32 len, struct trace_write *w)
{
	int cpu = pc->h.cpu;
	u64 slots = file_slots & trace_control.recording & trace_control.cpu_slots[cpu];
	u32 length = rb_event_length(len), tail, *ev;
	long ring;		/* slot * NR_CPUS + cpu: the ring's index in the flattened arrays */
	struct trace_ring *r;
	u64 ts, delta;

	w->page = NULL;
	if (unlikely(!slots | (len > BUF_MAX_DATA_SIZE)))
		return NULL;
	ts = trace_clock_read(pc);
	ring = __builtin_ctzll(slots) * NR_CPUS + cpu;
	r = &trace_control.rings[0][0] + ring;
	tail = r->tail;
	delta = ts - r->write_stamp;
	/* any of: another slot, a reset asked, page closed, page empty (tail 0: the unsigned
	 * tail - 1 is huge), no room, a delta wider than the header's, a two-word header */
	if (unlikely((slots & (slots - 1)) | (r->reset_req ^ r->reset_done) | r->closed | (delta >> TS_SHIFT) |
		     (tail - 1 >= BUF_PAGE_SIZE - length) | (length > 4 + 4 * RINGBUF_TYPE_DATA_TYPE_LEN_MAX)))
		return trace_event_buffer_reserve_ext(slots, ext, len, ts);
	pc->trace_pending = 1;
	pc->trace_taskinfo_save = 1;
	w->page = r->pages + r->seq % TRACE_RING_PAGES;
	ev = (u32 *)&w->page->data[tail];
	/* the pad past the record is zero (PageWriter's bytes); a record of whole words fills it */
	if (!__builtin_constant_p(len) || length != len + 4)
		ev[length / 4 - 1] = 0;
	ev[0] = (length - 4) / 4 | (u32)delta << 5;
	w->tail = tail + length;
	r->tail = tail + length;
	r->write_stamp = ts;
	return ev + 1;
}

/*
 * The same common case for writers that fold all their own conditions into
 * the one branch: trace_fast_check() reads the ring and the clock and stores
 * nothing, so a writer that then takes its slow path finds everything as it
 * was; trace_fast_claim() writes the header and advances the ring,
 * trace_fast_commit() publishes the record.  A writer on this path costs
 * one emulated block boundary for every condition together.
 */
struct trace_fast {
	struct trace_ring *r;
	struct buffer_data_page *page;
	u64 ts;
	u32 tail, length;
};

/* Nonzero: not the common case (no slot, several, or what trace_event_reserve_inline() leaves to its slow path). */
static __always_inline unsigned long trace_fast_check(struct percpu *pc, u64 slots, u32 len, struct trace_fast *f)
{
	int cpu = pc->h.cpu;
	u32 length = rb_event_length(len), tail;
	/* slots 0 takes the slow path, but the loads below need a ring: the sentinel's (no
	 * pages: the page pointer is only used on the fast path) */
	long ring = __builtin_ctzll(slots | 1ULL << TRACE_SLOT_EXT) * NR_CPUS + cpu;
	struct trace_ring *r = &trace_control.rings[0][0] + ring;
	u64 ts = trace_clock_peek(pc), delta;

	tail = r->tail;
	delta = ts - r->write_stamp;
	f->r = r;
	f->page = r->pages + r->seq % TRACE_RING_PAGES;
	f->ts = ts;
	f->tail = tail;
	f->length = length;
	/* slots - 1 >= slots ^ (slots - 1): none, or more than one */
	return (slots - 1 >= (slots ^ (slots - 1))) | (r->reset_req ^ r->reset_done) | r->closed |
	       (delta >> TS_SHIFT) | (tail - 1 >= BUF_PAGE_SIZE - length) |
	       (length > 4 + 4 * RINGBUF_TYPE_DATA_TYPE_LEN_MAX) | (len > BUF_MAX_DATA_SIZE);
}

/* After trace_fast_check() said 0, interrupts still off: the record's bytes to fill. */
static __always_inline void *trace_fast_claim(struct percpu *pc, const struct trace_fast *f, u32 len)
{
	typedef u64 __attribute__((may_alias)) u64_alias;
	u32 *ev = (u32 *)&f->page->data[f->tail];

	pc->trace_clock_last = f->ts;
	/* trace_pending and trace_taskinfo_save, adjacent: one store */
	*(u64_alias *)&pc->trace_pending = 1 | 1UL << 32;
	if (!__builtin_constant_p(len) || f->length != len + 4)
		ev[f->length / 4 - 1] = 0;	/* the pad, as trace_event_reserve_inline() */
	ev[0] = (f->length - 4) / 4 | (u32)(f->ts - f->r->write_stamp) << 5;
	f->r->tail = f->tail + f->length;
	f->r->write_stamp = f->ts;
	return ev + 1;
}

static __always_inline void trace_fast_commit(const struct trace_fast *f)
{
	barrier();
	f->page->commit = f->tail + f->length;
}

/* rb_commit() of an inline reservation: the host reads the page up to commit. */
static __always_inline void trace_event_commit_inline(const void *rec, u32 len, const struct trace_write *w)
{
	if (likely(w->page)) {
		barrier();
		w->page->commit = w->tail;
	} else {
		trace_event_commit(rec, len);
	}
}
#endif
