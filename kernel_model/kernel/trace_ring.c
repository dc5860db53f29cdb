/*
 * The tracepoints' ring-buffer writer: rb_reserve/rb_commit of Linux 6.1
 * (kernel/trace/ring_buffer.c) for a writer that is never nested (interrupts
 * are off from reserve to commit).  The host's executable specification is
 * tracefs_sim.trace.rb_page.PageWriter; the guest's pages must equal its.
 */
#include "../include/kernel.h"
#include "../include/mm.h"
#include "../include/slab.h"
#include "../include/trace/ring.h"
#include "../include/trace/trace_pid.h"
#include "../include/trace/ftrace.h"

struct buffer_data_page trace_pages[NR_CPUS][TRACE_RING_PAGES] __aligned(4096);
/* the top level's rings have their pages from the start (in the image: the host reads them
 * before the kernel runs) */
#define TOP_RING(cpu) [cpu] = { .pages = trace_pages[cpu] }
/* the sentinel rings of word 0's summary bit: closed, so no writer takes them as a slot's */
#define EXT_SENTINEL { [0 ... NR_CPUS - 1] = { .closed = 1 } }
struct trace_control trace_control = {
	.rings = { [0] = { TOP_RING(0), TOP_RING(1), TOP_RING(2), TOP_RING(3),
			   TOP_RING(4), TOP_RING(5), TOP_RING(6), TOP_RING(7) },
		   [TRACE_SLOT_EXT] = EXT_SENTINEL },
};
u64 trace_event_ext[TRACE_EXT_TYPES][TRACE_EXT_WORDS];
_Static_assert(NR_CPUS == 8, "trace_control's initializer names every cpu's ring");

/* trace_clock_local(): trace_clock_read() for callers outside the ring's fast path */
notrace u64 trace_clock_local(struct percpu *pc)
{
	return trace_clock_read(pc);
}

/* rb_reset_tail(): pad the rest of a page the writer leaves. */
static notrace void rb_reset_tail(struct buffer_data_page *page, u32 tail)
{
	u32 *ev = (u32 *)&page->data[tail];

	if (tail >= BUF_PAGE_SIZE)
		return;
	if (tail > BUF_PAGE_SIZE - 8) {		/* no room for a length: null event past commit */
		ev[0] = RINGBUF_TYPE_PADDING;
		return;
	}
	ev[0] = RINGBUF_TYPE_PADDING | 1 << 5;
	ev[1] = BUF_PAGE_SIZE - tail - 4;
	/* inside commit: zeros, not the page's earlier contents (PageWriter's bytes) */
	memset(ev + 2, 0, BUF_PAGE_SIZE - tail - 8);
	barrier();
	page->commit = BUF_PAGE_SIZE;
}

static __always_inline struct buffer_data_page *rb_page(const struct trace_ring *r, u64 seq)
{
	return r->pages + seq % TRACE_RING_PAGES;
}

/* Records are mostly whole quadwords: copy by 8 (each rep iteration costs an
 * emulated block), then the rest. */
static __always_inline void rb_copy(void *dst, const void *src, u32 len)
{
	u64 q = len / 8, b = len % 8;

	asm volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q) : : "memory");
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(b) : : "memory");
}

static notrace void trace_doorbell(void)
{
	host_doorbell(PORT_TRACE, 0);
}

/* Move to the next page if the host has released it; false: ring full. */
static notrace bool rb_move_tail(struct trace_ring *r, int slot, int cpu)
{
	u64 next = r->seq + 1;
	struct buffer_data_page *page;

	if (next - r->released >= TRACE_RING_PAGES)
		return false;
	page = rb_page(r, next);
	/* a reused page keeps its old bytes past commit, as in Linux: the reader
	 * takes only [0, commit), so commit must read 0 before the page is published */
	page->commit = 0;
	r->page_lost[next % TRACE_RING_PAGES] = r->lost;
	r->lost = 0;
	r->tail = 0;
	r->closed = 0;
	barrier();
	r->seq = next;
	return true;
}

/*
 * The next page, or false (the event is counted lost) while the ring is full.  The first
 * event of a streak asks the host to drain the ring first: the ring only carries records to
 * the host's buffer, Linux's, which would have had room.
 */
static notrace bool rb_next_page(struct trace_ring *r, int slot, int cpu)
{
	if (rb_move_tail(r, slot, cpu))
		return true;
	if (!r->lost) {
		host_doorbell(PORT_TRACE_FULL, slot);
		if (rb_move_tail(r, slot, cpu))
			return true;
	}
	r->lost++;
	return false;
}

/*
 * rb_reserve_next_event(): room for a len-byte record on this (slot, cpu)
 * ring at time ts, its header written; NULL when the ring is full (the event
 * is counted lost).  The record's bytes are the caller's to fill before
 * rb_commit(); the host sees none of them until then.
 */
static noinline notrace void *rb_reserve(int slot, int cpu, u64 ts, u32 len)
{
	struct trace_ring *r = trace_ring_of(slot, cpu);
	struct buffer_data_page *page;
	u32 length = rb_event_length(len), tail, *ev;
	u64 delta = 0;
	bool extend = false;

	if (unlikely(r->reset_req != r->reset_done)) {
		/* the host dropped everything up to the current page (echo > trace) */
		r->reset_done = r->reset_req;
		r->lost = 0;
		r->closed = 1;
	}
	if (unlikely(r->closed) && !rb_next_page(r, slot, cpu))
		return NULL;
	tail = r->tail;
	if (likely(tail)) {
		delta = ts - r->write_stamp;
		extend = delta >= (1UL << TS_SHIFT);
	}
	if (unlikely(tail + length + (extend ? 8 : 0) > BUF_PAGE_SIZE)) {
		rb_reset_tail(rb_page(r, r->seq), tail);
		r->closed = 1;
		trace_doorbell();	/* a page filled: the host may drain it */
		if (!rb_next_page(r, slot, cpu))
			return NULL;
		tail = 0;
		extend = false;
		delta = 0;
	}
	page = rb_page(r, r->seq);
	if (unlikely(!tail))
		page->time_stamp = ts;
	ev = (u32 *)&page->data[tail];
	if (unlikely(extend)) {
		/* rb_add_timestamp: a "delta" this large means the clock went backwards */
		u64 d = delta > (1UL << 59) ? 0 : delta;

		ev[0] = RINGBUF_TYPE_TIME_EXTEND | (u32)(d & TS_MASK) << 5;
		ev[1] = (u32)(d >> TS_SHIFT);
		ev += 2;
		tail += 8;
		delta = 0;
	}
	/* the event ends with its record padded to 4 bytes, the pad zero (not the
	 * page's earlier contents: PageWriter's bytes); fewer than 4 bytes of pad,
	 * or 4 for the 12-byte minimum, so zero the last word before the record is
	 * written over its head */
	ev[length / 4 - 1] = 0;
	r->tail = tail + length;
	r->write_stamp = ts;
	if (likely(length <= 4 + 4 * RINGBUF_TYPE_DATA_TYPE_LEN_MAX)) {
		ev[0] = (length - 4) / 4 | (u32)delta << 5;
		return ev + 1;
	}
	ev[0] = (u32)delta << 5;
	ev[1] = length - 4;
	return ev + 2;
}

/*
 * The common case of rb_reserve() without a branch per condition (each
 * branch ends an emulated block, the unit the emulator's time goes by): the
 * page has events already, the record fits with a small delta and a one-word
 * header.  NULL: take rb_reserve().
 */
static __always_inline void *rb_reserve_fast(struct trace_ring *r, u64 ts, u32 len)
{
	u32 length = rb_event_length(len), tail = r->tail, *ev;
	u64 delta = ts - r->write_stamp;

	if (unlikely((r->reset_req != r->reset_done) | r->closed | !tail | (delta >= (1UL << TS_SHIFT)) |
		     (tail + length > BUF_PAGE_SIZE) | (length > 4 + 4 * RINGBUF_TYPE_DATA_TYPE_LEN_MAX)))
		return NULL;
	ev = (u32 *)&rb_page(r, r->seq)->data[tail];
	ev[length / 4 - 1] = 0;		/* the pad, as in rb_reserve() */
	ev[0] = (length - 4) / 4 | (u32)delta << 5;
	r->tail = tail + length;
	r->write_stamp = ts;
	return ev + 1;
}

/* rb_commit(): publish the record reserved in r (the host reads up to commit). */
static __always_inline void rb_commit(struct trace_ring *r)
{
	barrier();
	rb_page(r, r->seq)->commit = r->tail;
}

/*
 * trace_event_buffer_lock_reserve() for the event's first recording slot on
 * this cpu: the record is filled in place in that ring, as Linux's fast path
 * does (no copy).  A slot whose ring is full counts the event lost and the
 * next slot is tried.  NULL: no slot records the event.  Interrupts must be
 * off until trace_event_commit(): no writer nests on this cpu's rings.
 */
/* The reservation of an event's record in slots (its extension words ext, NULL: the file's;
 * own: ext is the pid lists' choice, kept for the stacks after it), the stacktrace options'
 * slots noted. */
static __always_inline void *event_reserve(struct percpu *pc, const struct trace_event_file *file, u64 slots,
					   const u64 *ext, bool own, u32 len)
{
	void *rec;
	int i;

	if (unlikely(len > BUF_MAX_DATA_SIZE))
		return NULL;
	/* none, or extension slots too (TRACE_SLOT_EXT is the sign bit): one test */
	if (unlikely((s64)slots <= 0)) {
		if (!slots)
			return NULL;
		rec = trace_event_buffer_reserve_ext(slots, own ? ext : trace_event_file_ext(file), len,
						     trace_clock_read(pc));
	} else {
		rec = trace_event_buffer_reserve_slots(slots, len, trace_clock_read(pc));
	}
	/* an event's record: the stacktrace options' stacks follow it (trace_event_commit()) */
	if (rec && file->type >= TRACE_EVENT_FIRST_TYPE) {
		pc->trace_opt_slots = slots & trace_stack_opt_slots();
		pc->trace_opt_type = file->type;
		if (unlikely(own && (pc->trace_opt_slots >> TRACE_SLOT_EXT))) {
			for (i = 0; i < TRACE_EXT_WORDS; i++)
				pc->trace_opt_ext[i] = ext[i];
			pc->trace_opt_type |= TRACE_OPT_EXT_OWN;
		}
	}
	return rec;
}

/* trace_event_buffer_reserve() of an event whose slots have pid lists */
static noinline notrace void *event_reserve_pids(struct percpu *pc, const struct trace_event_file *file, u64 slots,
						 u32 len)
{
	u64 pid_ext[TRACE_EXT_WORDS];
	const u64 *ext = trace_event_file_ext(file);

	slots = trace_pid_event_slots(slots, trace_pid_current(pc), &ext, pid_ext);
	return event_reserve(pc, file, slots, ext, ext == pid_ext, len);
}

notrace void *trace_event_buffer_reserve(const struct trace_event_file *file, u32 len)
{
	struct percpu *pc = this_cpu();
	u64 slots = READ_ONCE(file->slots) & trace_control.recording & trace_control.cpu_slots[pc->h.cpu];

	/* set_event_pid governs events, not function records */
	if (file->type >= TRACE_EVENT_FIRST_TYPE && trace_pid_lists_in(slots))
		return event_reserve_pids(pc, file, slots, len);
	return event_reserve(pc, file, slots, NULL, false, len);
}

/* The reservation for the recording slots `slots` (not 0, word 0's without its TRACE_SLOT_EXT)
 * of a record of len <= BUF_MAX_DATA_SIZE at ts. */
notrace void *trace_event_buffer_reserve_slots(u64 slots, u32 len, u64 ts)
{
	struct percpu *pc = this_cpu();
	int cpu = pc->h.cpu;
	void *rec;

	pc->trace_pending = 1;
	pc->trace_taskinfo_save = 1;
	pc->trace_opt_slots = 0;
	if (!(slots & (slots - 1))) {
		/* the host fell behind, the one slot's ring is full and its drain was asked for
		 * already (rb_next_page): rb_reserve()'s outcome without its work, since a
		 * lagging reader makes this common */
		struct trace_ring *r = &trace_control.rings[__builtin_ctzll(slots)][cpu];

		if (r->lost && r->closed && r->reset_req == r->reset_done && r->seq + 1 - r->released >= TRACE_RING_PAGES) {
			r->lost++;
			return NULL;
		}
	}
	do {
		int slot = __builtin_ctzll(slots);
		struct trace_ring *r = &trace_control.rings[slot][cpu];

		slots &= slots - 1;
		rec = rb_reserve_fast(r, ts, len);
		if (unlikely(!rec))
			rec = rb_reserve(slot, cpu, ts, len);
		if (likely(rec)) {
			pc->trace_ring = r;
			pc->trace_slots_left = slots;
			pc->trace_ts = ts;
			return rec;
		}
	} while (slots);
	return NULL;
}

/* One slot's try: the record's room in its ring, or NULL (the ring is full: counted lost). */
static __always_inline void *rb_reserve_slot(struct percpu *pc, int slot, int cpu, u64 ts, u32 len)
{
	struct trace_ring *r = trace_ring_of(slot, cpu);
	void *rec = rb_reserve_fast(r, ts, len);

	if (unlikely(!rec))
		rec = rb_reserve(slot, cpu, ts, len);
	if (likely(rec)) {
		pc->trace_ring = r;
		pc->trace_ts = ts;
	}
	return rec;
}

/*
 * trace_event_buffer_reserve_slots() for a set of slots with extension words: `slots` (not
 * 0) is its word 0; when its TRACE_SLOT_EXT is set, the extension words are ext's (the
 * event's: anded here with the extension words of tracing_on and of this cpu's cpumask;
 * NULL: none).  The slots after the one reserved in are the commit's (pc->trace_slots_left,
 * and pc->trace_ext_left when its bit 63 is set).
 */
notrace void *trace_event_buffer_reserve_ext(u64 slots, const u64 *ext, u32 len, u64 ts)
{
	struct percpu *pc = this_cpu();
	int cpu = pc->h.cpu, i;
	u64 more = 0;		/* nonzero: extension slots to try after word 0's */
	void *rec;

	if (likely(!(slots >> TRACE_SLOT_EXT)))
		return trace_event_buffer_reserve_slots(slots, len, ts);
	slots &= ~(1ULL << TRACE_SLOT_EXT);
	for (i = 0; ext && i < TRACE_EXT_WORDS; i++) {
		pc->trace_ext_left[i] = READ_ONCE(ext[i]) & trace_control.recording_ext[i] &
					trace_control.cpu_slots_ext[cpu][i];
		more |= pc->trace_ext_left[i];
	}
	if (!more)
		return slots ? trace_event_buffer_reserve_slots(slots, len, ts) : NULL;
	pc->trace_pending = 1;
	pc->trace_taskinfo_save = 1;
	pc->trace_opt_slots = 0;
	while (slots) {
		int slot = __builtin_ctzll(slots);

		slots &= slots - 1;
		rec = rb_reserve_slot(pc, slot, cpu, ts, len);
		if (likely(rec)) {
			pc->trace_slots_left = slots | 1ULL << TRACE_SLOT_EXT;
			return rec;
		}
	}
	for (i = 0; i < TRACE_EXT_WORDS; i++) {
		while (pc->trace_ext_left[i]) {
			int slot = (i + 1) * 64 + __builtin_ctzll(pc->trace_ext_left[i]);

			pc->trace_ext_left[i] &= pc->trace_ext_left[i] - 1;
			rec = rb_reserve_slot(pc, slot, cpu, ts, len);
			if (rec) {
				for (more = 0; i < TRACE_EXT_WORDS; i++)
					more |= pc->trace_ext_left[i];
				pc->trace_slots_left = (u64)!!more << TRACE_SLOT_EXT;
				return rec;
			}
		}
	}
	return NULL;
}

notrace void *trace_event_buffer_reserve_slot(u32 slot, u32 len, u64 ts)
{
	int cpu = this_cpu()->h.cpu;
	u64 ext[TRACE_EXT_WORDS] = { 0 }, word0;

	if (slot < TRACE_WORD_SLOTS) {
		word0 = 1ULL << slot & ~(1ULL << TRACE_SLOT_EXT);
		word0 &= trace_control.recording & trace_control.cpu_slots[cpu];
		return word0 ? trace_event_buffer_reserve_slots(word0, len, ts) : NULL;
	}
	if (slot >= TRACE_SLOTS)
		return NULL;
	/* the summary bit alone in word 0, the slot in its extension word (anded there) */
	word0 = 1ULL << TRACE_SLOT_EXT & trace_control.recording & trace_control.cpu_slots[cpu];
	ext[slot / 64 - 1] = 1ULL << slot % 64;
	return word0 ? trace_event_buffer_reserve_ext(word0, ext, len, ts) : NULL;
}

/* The commit's copy of the record into a further slot (each trace instance's own buffer). */
static noinline notrace void rb_copy_slot(int slot, int cpu, u64 ts, const void *rec, u32 len)
{
	void *copy = rb_reserve(slot, cpu, ts, len);

	if (copy) {
		rb_copy(copy, rec, len);
		rb_commit(trace_ring_of(slot, cpu));
	}
}

/*
 * Publish the record trace_event_buffer_reserve() returned, and write a copy
 * into every further slot that records the event (each trace instance's own
 * buffer, as Linux's per-instance probes do).
 */
notrace void trace_event_commit(const void *rec, u32 len)
{
	struct percpu *pc = this_cpu();
	int cpu = pc->h.cpu, i;
	u64 slots = pc->trace_slots_left, opt = pc->trace_opt_slots;

	rb_commit(pc->trace_ring);
	while (unlikely(slots)) {
		int slot = __builtin_ctzll(slots);

		slots &= slots - 1;
		if (slot != TRACE_SLOT_EXT) {
			rb_copy_slot(slot, cpu, pc->trace_ts, rec, len);
			continue;
		}
		/* the summary bit, word 0's last: the extension slots left, in order */
		for (i = 0; i < TRACE_EXT_WORDS; i++)
			for (u64 w = pc->trace_ext_left[i]; w; w &= w - 1)
				rb_copy_slot((i + 1) * 64 + __builtin_ctzll(w), cpu, pc->trace_ts, rec, len);
	}
	/* trace_buffer_unlock_commit_regs(): the stacks of the event's writer, our caller */
	if (unlikely(opt)) {
		pc->trace_opt_slots = 0;
		u32 type = pc->trace_opt_type;

		trace_event_opt_stacks(opt, type & TRACE_OPT_EXT_OWN ? pc->trace_opt_ext :
					    type < TRACE_EXT_TYPES ? trace_event_ext[type] : NULL,
				       rec, 0, (unsigned long)__builtin_frame_address(0));
	}
}

/* From the tick: tell the host once that this cpu committed data since. */
notrace void trace_ring_tick(void)
{
	struct percpu *pc = this_cpu();

	if (pc->trace_pending) {
		pc->trace_pending = 0;
		trace_doorbell();
	}
}


/*
 * An instance's buffers (allocate_trace_buffers() of instance_mkdir()): a ring of
 * TRACE_RING_PAGES pages for each online cpu, in one block each (the host reads a ring's
 * pages from its `pages`), and the set_event_pid bitmaps (an extension slot has its rings'
 * own state allocated too, and its function tracers' state: struct ftrace_ext_slot).  As 6.1's ring buffer,
 * it may fail rather than ask the OOM killer (__GFP_RETRY_MAYFAIL); then nothing stays
 * allocated.
 */
#define TRACE_RING_ORDER	6
#define TRACE_SLOT_GFP		(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)
_Static_assert(TRACE_RING_PAGES == 1 << TRACE_RING_ORDER, "a ring is one block of pages");
_Static_assert(2 * sizeof(struct trace_pid_bits) == 2 * PAGE_SIZE, "a slot's two pid bitmaps are an order-1 block");

struct trace_slot_mem {
	struct rcu_head rcu;
	struct buffer_data_page *pages[NR_CPUS];
	struct trace_pid_bits *pid_bits;
	struct trace_ring *rings;	/* an extension slot's */
	struct ftrace_ext_slot *ftrace;	/* ... and its function tracers' state */
};

static notrace void trace_slot_mem_free(struct trace_slot_mem *m)
{
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (m->pages[cpu])
			free_pages((unsigned long)m->pages[cpu], TRACE_RING_ORDER);
	if (m->pid_bits)
		free_pages((unsigned long)m->pid_bits, 1);
	kfree(m->rings);
	kfree(m->ftrace);
}

/* a slot an instance may have: not the top level's, not the sentinel of word 0's summary bit */
static notrace bool trace_instance_slot(u32 slot)
{
	return slot != 0 && slot != TRACE_SLOT_EXT && slot < TRACE_SLOTS;
}

int trace_slot_alloc(u32 slot)
{
	struct trace_slot_mem m = { 0 };
	bool ext = slot >= TRACE_WORD_SLOTS;
	int cpu, i;

	if (!trace_instance_slot(slot))
		return -EINVAL;
	if ((ext ? trace_control.ext_rings[slot] != NULL : trace_control.rings[slot][0].pages != NULL) ||
	    trace_pid_control.pids[slot])
		return -EBUSY;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct page *page = alloc_pages(TRACE_SLOT_GFP, TRACE_RING_ORDER);

		if (!page)
			goto nomem;
		m.pages[cpu] = page_address(page);
	}
	if (ext) {
		m.rings = kzalloc(sizeof(struct trace_ring) * NR_CPUS, TRACE_SLOT_GFP);
		m.ftrace = kzalloc(sizeof(struct ftrace_ext_slot), TRACE_SLOT_GFP);
		if (!m.rings || !m.ftrace)
			goto nomem;
	}
	m.pid_bits = (struct trace_pid_bits *)__get_free_pages(TRACE_SLOT_GFP | __GFP_ZERO, 1);
	if (!m.pid_bits)
		goto nomem;
	/* no bit of the slot is set anywhere: no writer looks at its rings until the host sets one */
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct trace_ring *r = ext ? &m.rings[cpu] : &trace_control.rings[slot][cpu];

		memset(r, 0, sizeof(*r));
		for (i = 0; i < TRACE_RING_PAGES; i++) {
			m.pages[cpu][i].time_stamp = 0;
			m.pages[cpu][i].commit = 0;
		}
		barrier();
		WRITE_ONCE(r->pages, m.pages[cpu]);
	}
	if (ext) {
		barrier();
		WRITE_ONCE(ftrace_control.ext[slot], m.ftrace);
		WRITE_ONCE(trace_control.ext_rings[slot], m.rings);
	}
	trace_pid_control.pids[slot] = m.pid_bits;
	trace_pid_control.notrace_pids[slot] = m.pid_bits + 1;
	return 0;
nomem:
	trace_slot_mem_free(&m);
	return -ENOMEM;
}

static notrace void trace_slot_free_rcu(struct rcu_head *head)
{
	struct trace_slot_mem *m = container_of(head, struct trace_slot_mem, rcu);

	trace_slot_mem_free(m);
	kfree(m);
}

/*
 * instance_rmdir()'s free of the buffers: the slot's bits are all clear, so no writer starts
 * on its rings; one that read a bit before may still be writing, so the memory goes back
 * after a grace period (the slot itself may be made again at once).
 */
void trace_slot_free(u32 slot)
{
	struct trace_slot_mem *m, stack = { 0 };
	int cpu;

	if (!trace_instance_slot(slot))
		return;
	m = kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		m = &stack;
	memset(m, 0, sizeof(*m));
	if (slot >= TRACE_WORD_SLOTS) {
		m->rings = trace_control.ext_rings[slot];
		WRITE_ONCE(trace_control.ext_rings[slot], NULL);
		m->ftrace = ftrace_control.ext[slot];
		WRITE_ONCE(ftrace_control.ext[slot], NULL);
		for (cpu = 0; m->rings && cpu < NR_CPUS; cpu++)
			m->pages[cpu] = m->rings[cpu].pages;
	} else {
		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			m->pages[cpu] = trace_control.rings[slot][cpu].pages;
			WRITE_ONCE(trace_control.rings[slot][cpu].pages, NULL);
		}
	}
	m->pid_bits = trace_pid_control.pids[slot];
	trace_pid_control.pids[slot] = NULL;
	trace_pid_control.notrace_pids[slot] = NULL;
	if (m == &stack)
		trace_slot_mem_free(m);
	else
		call_rcu(&m->rcu, trace_slot_free_rcu);
}
