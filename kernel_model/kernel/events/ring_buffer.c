/*
 * The perf ring buffer (kernel/events/ring_buffer.c of Linux 6.1): a user page (struct
 * perf_event_mmap_page) and 2^n data pages (each allocated on its own) the event's owner maps, records written at
 * data_head, room up to the reader's data_tail (or over the oldest records when the mapping is
 * read-only: overwrite), records that find no room counted and reported in a PERF_RECORD_LOST.
 * Every writer holds perf_lock (include/perf_event.h), so there is no nesting to handle.
 *
 * The pages are those of a region of the perf pool (boot_params, machine/perf_pool.py): memory
 * the host shares, so that a session's process maps the very pages written here (the region's
 * memory file takes the event's fd before the host makes the process's mmap: kernel/mmap.c,
 * session/native/serve.c).  A region is the buffer's while it lives.
 */
#include "../../include/perf_event.h"
#include "../../include/uapi/perf_pool.h"

static u64 perf_data_size(struct perf_buffer *rb)
{
	return (u64)rb->nr_pages << 12;
}

/* ring_buffer_has_space(): CIRC_SPACE of head and tail */
static bool ring_buffer_has_space(u64 head, u64 tail, u64 data_size, u64 size)
{
	return ((tail - (head + 1)) & (data_size - 1)) >= size;
}

/* ---- the perf pool's regions ---- */

static spinlock_t perf_pool_lock;
#define PERF_POOL_MAX 256
static u64 perf_pool_busy[PERF_POOL_MAX / 64];
static struct perf_buffer *perf_pool_rb[PERF_POOL_MAX];	/* the buffer each region holds */

/* the buffer in the region (perf_mutex held), or NULL */
notrace struct perf_buffer *perf_pool_buffer(int region)
{
	return region >= 0 && region < PERF_POOL_MAX ? perf_pool_rb[region] : NULL;
}

/* the regions: perf_pool_count of perf_pool_region_size bytes, then the big ones */
static int perf_pool_count(void)
{
	return min(boot_params.perf_pool_count + boot_params.perf_pool_big_count, (u64)PERF_POOL_MAX);
}

static inline u64 perf_pool_region_bytes(int region)
{
	return (u64)region < boot_params.perf_pool_count ? boot_params.perf_pool_region_size
							  : boot_params.perf_pool_big_size;
}

static inline u64 perf_pool_region_pa(int region)
{
	u64 small = min((u64)region, boot_params.perf_pool_count);

	return boot_params.perf_pool_base + small * boot_params.perf_pool_region_size +
	       (region - small) * boot_params.perf_pool_big_size;
}

/* pages a region holds for a buffer (its last page is the status page, uapi/perf_pool.h) */
static inline u64 perf_pool_pages_of(int region)
{
	return (perf_pool_region_bytes(region) >> 12) - PERF_POOL_STATUS_PAGES;
}

/* pages an ordinary region holds for a buffer: the user page and the data pages */
notrace noinline int perf_pool_region_pages(void)
{
	return perf_pool_count() ? (boot_params.perf_pool_region_size >> 12) - PERF_POOL_STATUS_PAGES : 0;
}

/* the region whose memory holds the physical address pa; -1: none */
notrace int perf_pool_region_of(u64 pa)
{
	u64 off = pa - boot_params.perf_pool_base;
	u64 small = boot_params.perf_pool_count * boot_params.perf_pool_region_size;

	if (off < small)
		return off / boot_params.perf_pool_region_size;
	off -= small;
	if (off < boot_params.perf_pool_big_count * boot_params.perf_pool_big_size)
		return boot_params.perf_pool_count + off / boot_params.perf_pool_big_size;
	return -1;
}

notrace void *perf_pool_page(int region, int page)
{
	return __va(perf_pool_region_pa(region) + ((u64)page << 12));
}

/* a free region of at least nr_pages (the smallest that holds them), now the caller's; -1: none */
notrace int perf_pool_get_pages(u64 nr_pages)
{
	unsigned long flags;
	int i, n = perf_pool_count(), best = -1;

	spin_lock_irqsave(&perf_pool_lock, flags);
	for (i = 0; i < n; i++)
		if (!(perf_pool_busy[i / 64] >> (i % 64) & 1) && perf_pool_pages_of(i) >= nr_pages &&
		    (best < 0 || perf_pool_pages_of(i) < perf_pool_pages_of(best)))
			best = i;
	if (best >= 0)
		perf_pool_busy[best / 64] |= 1ULL << (best % 64);
	spin_unlock_irqrestore(&perf_pool_lock, flags);
	return best;
}

/* a free ordinary region, now the caller's; -1: none */
notrace int perf_pool_get(void)
{
	return perf_pool_get_pages(perf_pool_region_pages());
}

notrace void perf_pool_put(int region)
{
	unsigned long flags;

	spin_lock_irqsave(&perf_pool_lock, flags);
	perf_pool_busy[region / 64] &= ~(1ULL << (region % 64));
	spin_unlock_irqrestore(&perf_pool_lock, flags);
}

notrace struct perf_pool_status *perf_pool_status(int region)
{
	return perf_pool_page(region, perf_pool_pages_of(region));
}

void rb_free(struct perf_buffer *rb)
{
	perf_pool_rb[rb->region] = NULL;
	perf_pool_put(rb->region);
	kfree(rb);
}

/* 6.1's rb_alloc(), its pages a pool region's; NULL with *err: ENOMEM (no region free, or
 * more pages than a region holds) */
struct perf_buffer *rb_alloc(int nr_pages, long watermark, int flags, int *err)
{
	struct perf_buffer *rb;
	int i, region;

	*err = -ENOMEM;
	if (nr_pages + 1 > perf_pool_region_pages())
		return NULL;
	rb = kzalloc(sizeof(*rb) + nr_pages * sizeof(void *), GFP_KERNEL);
	if (!rb)
		return NULL;
	region = perf_pool_get();
	if (region < 0) {
		kfree(rb);
		return NULL;
	}
	rb->region = region;
	perf_pool_rb[region] = rb;
	rb->status = perf_pool_status(region);
	rb->status->wakeups = 0;
	rb->status->ringbuf = 0;
	__atomic_add_fetch(&rb->status->generation, 1, __ATOMIC_RELEASE);
	rb->nr_pages = nr_pages;
	rb->user_page = perf_pool_page(region, 0);
	memset(rb->user_page, 0, PAGE_SIZE);
	for (i = 0; i < nr_pages; i++) {
		rb->data_pages[i] = perf_pool_page(region, 1 + i);
		memset(rb->data_pages[i], 0, PAGE_SIZE);
	}
	rb->overwrite = !(flags & RING_BUFFER_WRITABLE);
	rb->watermark = watermark ? min(watermark, (long)perf_data_size(rb)) : (long)perf_data_size(rb) / 2;
	INIT_LIST_HEAD(&rb->event_list);
	rb->user_page->size = offsetof(struct perf_event_mmap_page, __reserved);
	rb->user_page->capabilities = 1UL << 1;		/* cap_bit0_is_deprecated */
	rb->user_page->data_offset = PAGE_SIZE;
	rb->user_page->data_size = perf_data_size(rb);
	*err = 0;
	return rb;
}

/* Room for size bytes at data_head (perf_lock held); 0, or -ENOSPC with the loss counted. */
int perf_output_begin(struct perf_output_handle *handle, struct perf_event *event, unsigned int size)
{
	struct perf_buffer *rb;
	u64 tail, offset;
	struct {
		struct perf_event_header header;
		u64 id;
		u64 lost;
	} lost_event;
	int lost_size = 0;

	if (event->parent)	/* an inherited event writes where its parent does */
		event = event->parent;
	rb = event->rb;
	handle->rb = rb;
	handle->event = event;
	if (!rb)
		return -ENOSPC;
	if (rb->paused || !rb->nr_pages) {
		if (rb->nr_pages)
			rb->lost++;
		return -ENOSPC;
	}
	if (rb->lost) {
		lost_size = sizeof(lost_event) + (event->attr.sample_id_all ? event->id_header_size : 0);
		size += lost_size;
	}
	offset = rb->head;
	if (!rb->overwrite) {
		tail = READ_ONCE(rb->user_page->data_tail);
		if (!ring_buffer_has_space(offset, tail, perf_data_size(rb), size)) {
			rb->lost++;
			return -ENOSPC;
		}
	}
	rb->head = offset + size;
	if (rb->head - rb->wakeup_head > (u64)rb->watermark) {
		rb->wakeup_head += rb->watermark;
		rb->wakeup++;
	}
	handle->head = offset;
	handle->size = size;
	if (lost_size) {
		struct perf_sample_data data;

		lost_event.header.type = PERF_RECORD_LOST;
		lost_event.header.misc = 0;
		lost_event.header.size = lost_size;
		lost_event.id = event->id;
		lost_event.lost = rb->lost;
		perf_output_put(handle, lost_event);
		perf_event_header__init_id(&data, event);
		perf_event__output_id_sample(event, handle, &data);
		rb->lost = 0;
	}
	return 0;
}

void perf_output_copy(struct perf_output_handle *handle, const void *buf, unsigned int len)
{
	struct perf_buffer *rb = handle->rb;
	u64 mask = perf_data_size(rb) - 1;
	const char *src = buf;

	while (len) {
		u64 at = handle->head & mask;
		unsigned int n = min((u64)len, PAGE_SIZE - (at & (PAGE_SIZE - 1)));

		memcpy((char *)rb->data_pages[at >> 12] + (at & (PAGE_SIZE - 1)), src, n);
		handle->head += n;
		src += n;
		len -= n;
	}
}

void perf_output_skip(struct perf_output_handle *handle, unsigned int len)
{
	handle->head += len;
}

/*
 * perf_output_wakeup(): the buffer's pollers are told (rb->poll = EPOLLIN): here the region's
 * status page, which the session's supervisor reads to answer a poll of the buffer's fds, and
 * its doorbell when it sleeps on the buffer.
 */
notrace noinline void perf_output_wakeup(struct perf_buffer *rb)
{
	rb->woken = rb->wakeup;
	perf_pool_wakeup(rb->region);
}

/* a wakeup of what the region holds: counted in its status page, the supervisor's doorbell
 * rung when it sleeps on the region (a BPF ring buffer's bpf_ringbuf_notify() too) */
notrace void perf_pool_wakeup(int region)
{
	struct perf_pool_status *st = perf_pool_status(region);

	__atomic_add_fetch(&st->wakeups, 1, __ATOMIC_SEQ_CST);
	host_mb();	/* the count before the look at `waiting`, on the host too */
	if (__atomic_load_n(&st->waiting, __ATOMIC_SEQ_CST)) {
		st->waiting = 0;
		host_doorbell(PORT_PERF_WAKEUP, region);
	}
}

/* publish the records: the reader sees data_head move past them; a wakeup due is given */
void perf_output_end(struct perf_output_handle *handle)
{
	struct perf_buffer *rb = handle->rb;

	__atomic_store_n(&rb->user_page->data_head, rb->head, __ATOMIC_RELEASE);
	if (rb->wakeup != rb->woken)	/* perf_output_put_handle() */
		perf_output_wakeup(rb);
}
