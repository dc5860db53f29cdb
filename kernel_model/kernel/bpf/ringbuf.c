/*
 * BPF ring buffer maps (kernel/bpf/ringbuf.c of Linux 6.1): BPF_MAP_TYPE_RINGBUF, one buffer
 * shared by every cpu, where programs reserve records (a header of 8 bytes: len, with its BUSY
 * and DISCARD bits, and pg_off; the sample after it, 8-byte aligned), fill them in place and
 * submit or discard them, or copy one in (bpf_ringbuf_output), while a reader in user space
 * that mapped the buffer consumes them by moving consumer_pos.
 *
 * The pages.  6.1 vmaps [kernel page][consumer_pos][producer_pos][data][data again], each data
 * page mapped twice, so that a record that wraps past the end reads on, linearly, into the
 * second mapping; a reader maps the consumer page (read-write: it moves consumer_pos) and, read
 * only, the producer page with the data twice, from offset one page.  Here the buffer is a
 * region of the machine's perf pool (machine/perf_pool.py), as a perf buffer is: a memory file
 * the host shares, so that a session's process maps the very pages written here (mmap of the
 * map's fd: kernel/mmap.c, session/native/serve.c).  The region is laid out as what is mapped,
 * from page 0: [consumer_pos][producer_pos][data][data again] (the kernel's own fields are in
 * struct bpf_ringbuf, kmalloc'd; the region's last page is the pool's status page).  A memory
 * file maps linearly, so the data's second copy cannot be the same pages.  Every record is
 * written linearly from its header at data + (pos & mask) on, its tail past the end into the
 * second copy (bpf_ringbuf_output copies it so; a program writes the reserved sample through
 * the one pointer it got), and a reader (libbpf) reads each record linearly from its header at
 * data + (consumer_pos & mask): for it, the bytes written linearly are all that must be right,
 * the wrapped tail included.  Yet 6.1's copies are the same pages, and a reader may look at
 * either: so at its commit each record is copied to the other copy too (bpf_ringbuf_mirror(),
 * before its header's BUSY bit goes: no reader reads a busy record), and both show what 6.1's
 * double mapping shows, for the price of a copy of each record.  pg_off in a header is 6.1's
 * (the page from the kernel page before consumer_pos).
 */
#include "../../include/bpf.h"
#include "../../include/perf_event.h"
#include "../../include/uapi/perf_pool.h"
#include "../../include/poll.h"

#define RINGBUF_CREATE_FLAG_MASK (BPF_F_NUMA_NODE)
#define RINGBUF_PGOFF 1		/* 6.1: consumer_pos's page in struct bpf_ringbuf */
#define RINGBUF_POS_PAGES 2
#define RINGBUF_MAX_RECORD_SZ (U32_MAX / 4)
#define RINGBUF_MAX_DATA_SZ (((1ULL << 24) - RINGBUF_POS_PAGES - RINGBUF_PGOFF) * PAGE_SIZE)
#define RB_PROT_WRITE 0x2
#define RB_MAP_SHARED 0x1

struct bpf_ringbuf {
	raw_spinlock_t spinlock;
	u64 mask;
	int region;			/* the perf pool region of its pages */
	unsigned long pending_pos;	/* the oldest record maybe not committed */
	unsigned long *consumer_pos;	/* region page 0: the reader moves it */
	unsigned long *producer_pos;	/* region page 1 */
	char *data;			/* region page 2 on: the data, then room for the wrapped tails */
};

struct bpf_ringbuf_map {
	struct bpf_map map;
	struct bpf_ringbuf *rb;
};

struct bpf_ringbuf_hdr {
	u32 len;
	u32 pg_off;
};

/* the buffer each pool region holds (a record's header finds its buffer by its region) */
#define RINGBUF_REGIONS 256
static struct bpf_ringbuf *ringbuf_of_region[RINGBUF_REGIONS];

static inline bool is_power_of_2(u64 n)
{
	return n && !(n & (n - 1));
}

/* bpf_ringbuf_alloc(): a pool region big enough for the positions' pages and the data twice
 * (and the status page), taken for the map's life; NULL: none free that big (6.1's ENOMEM of
 * a buffer larger than the memory it finds: the pool's big region holds 256 MiB of data, as
 * much as 6.1 allocates on a machine of 1 GiB) */
static notrace struct bpf_ringbuf *bpf_ringbuf_alloc(size_t data_sz)
{
	u64 nr_data_pages = data_sz >> 12;
	struct perf_pool_status *st;
	struct bpf_ringbuf *rb;
	int region;
	u64 i;

	rb = kzalloc(sizeof(*rb), GFP_KERNEL);
	if (!rb)
		return NULL;
	region = perf_pool_get_pages(RINGBUF_POS_PAGES + 2 * nr_data_pages);
	if (region < 0 || region >= RINGBUF_REGIONS) {
		if (region >= 0)
			perf_pool_put(region);
		kfree(rb);
		return NULL;
	}
	rb->region = region;
	rb->mask = data_sz - 1;
	rb->consumer_pos = perf_pool_page(region, 0);
	rb->producer_pos = perf_pool_page(region, 1);
	rb->data = perf_pool_page(region, RINGBUF_POS_PAGES);
	for (i = 0; i < RINGBUF_POS_PAGES + 2 * nr_data_pages; i++)
		memset(perf_pool_page(region, i), 0, PAGE_SIZE);
	st = perf_pool_status(region);
	st->wakeups = 0;
	st->ringbuf_mask = rb->mask;
	st->ringbuf = 1;
	__atomic_add_fetch(&st->generation, 1, __ATOMIC_RELEASE);
	ringbuf_of_region[region] = rb;
	return rb;
}

static struct bpf_map *ringbuf_map_alloc(union bpf_attr *attr)
{
	struct bpf_ringbuf_map *rb_map;

	if (attr->map_flags & ~RINGBUF_CREATE_FLAG_MASK)
		return ERR_PTR(-EINVAL);
	if (attr->key_size || attr->value_size || !is_power_of_2(attr->max_entries) ||
	    (attr->max_entries & (PAGE_SIZE - 1)))
		return ERR_PTR(-EINVAL);
	if (attr->max_entries > RINGBUF_MAX_DATA_SZ)
		return ERR_PTR(-E2BIG);
	rb_map = bpf_map_area_alloc(sizeof(*rb_map), NUMA_NO_NODE);
	if (!rb_map)
		return ERR_PTR(-ENOMEM);
	bpf_map_init_from_attr(&rb_map->map, attr);
	rb_map->rb = bpf_ringbuf_alloc(attr->max_entries);
	if (!rb_map->rb) {
		bpf_map_area_free(rb_map);
		return ERR_PTR(-ENOMEM);
	}
	return &rb_map->map;
}

/* 6.1's ringbuf_map_alloc() checks it all: nothing before */
static notrace int ringbuf_map_alloc_check(union bpf_attr *attr)
{
	return 0;
}

static void ringbuf_map_free(struct bpf_map *map)
{
	struct bpf_ringbuf_map *rb_map = container_of(map, struct bpf_ringbuf_map, map);
	struct bpf_ringbuf *rb = rb_map->rb;

	ringbuf_of_region[rb->region] = NULL;
	perf_pool_status(rb->region)->ringbuf = 0;
	perf_pool_put(rb->region);
	kfree(rb);
	bpf_map_area_free(rb_map);
}

static void *ringbuf_map_lookup_elem(struct bpf_map *map, void *key)
{
	return ERR_PTR(-ENOTSUPP);
}

static long ringbuf_map_update_elem(struct bpf_map *map, void *key, void *value, u64 flags)
{
	return -ENOTSUPP;
}

static long ringbuf_map_delete_elem(struct bpf_map *map, void *key)
{
	return -ENOTSUPP;
}

static int ringbuf_map_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	return -ENOTSUPP;
}

/*
 * ringbuf_map_mmap_kern(): the consumer page may be mapped writable (alone, at offset 0), the
 * rest read only; remap_vmalloc_range()'s check that the mapping lies within the area (the
 * kernel page, the positions' pages, the data twice).  The pool region, which the served mmap
 * maps at the same offset (bpf_map_mmap_shared() has 6.1's bpf_map_mmap() checks).
 */
static long ringbuf_map_mmap_kern(struct bpf_map *map, unsigned long len, unsigned long prot,
				  unsigned long pgoff)
{
	struct bpf_ringbuf_map *rb_map = container_of(map, struct bpf_ringbuf_map, map);
	u64 area_pages = RINGBUF_PGOFF + RINGBUF_POS_PAGES + 2 * ((rb_map->rb->mask + 1) >> 12);

	if (prot & RB_PROT_WRITE) {
		if (pgoff != 0 || len != PAGE_SIZE)
			return -EPERM;
	}
	if (pgoff + RINGBUF_PGOFF + (len >> 12) > area_pages || pgoff + (len >> 12) < pgoff)
		return -EINVAL;
	return rb_map->rb->region;
}

static inline unsigned long ringbuf_avail_data_sz(struct bpf_ringbuf *rb)
{
	unsigned long cons_pos = __atomic_load_n(rb->consumer_pos, __ATOMIC_ACQUIRE);
	unsigned long prod_pos = __atomic_load_n(rb->producer_pos, __ATOMIC_ACQUIRE);

	return prod_pos - cons_pos;
}

static inline u32 ringbuf_total_data_sz(const struct bpf_ringbuf *rb)
{
	return rb->mask + 1;
}

/* the data is there to read (poll of the map's fd in a session: the supervisor reads the
 * positions from the region itself, session/native/serve.c) */
static unsigned int ringbuf_map_poll_kern(struct bpf_map *map, struct file *filp, struct poll_table_struct *pts)
{
	struct bpf_ringbuf_map *rb_map = container_of(map, struct bpf_ringbuf_map, map);

	return ringbuf_avail_data_sz(rb_map->rb) ? EPOLLIN | EPOLLRDNORM : 0;
}

const struct bpf_map_ops ringbuf_map_ops = {
	.map_alloc_check = ringbuf_map_alloc_check,
	.map_alloc = ringbuf_map_alloc,
	.map_free = ringbuf_map_free,
	.map_mmap_shared = ringbuf_map_mmap_kern,
	.map_poll = ringbuf_map_poll_kern,
	.map_lookup_elem = ringbuf_map_lookup_elem,
	.map_update_elem = ringbuf_map_update_elem,
	.map_delete_elem = ringbuf_map_delete_elem,
	.map_get_next_key = ringbuf_map_get_next_key,
};

/* 6.1's page offset of the header from struct bpf_ringbuf (the kernel page before
 * consumer_pos): the record's page in the region, plus that page */
static inline u32 bpf_ringbuf_rec_pg_off(struct bpf_ringbuf *rb, struct bpf_ringbuf_hdr *hdr)
{
	return (((char *)hdr - (char *)rb->consumer_pos) >> 12) + RINGBUF_PGOFF;
}

/* bpf_ringbuf_restore_from_rec(): the buffer of a record, by the pool region it is in */
static inline struct bpf_ringbuf *bpf_ringbuf_restore_from_rec(struct bpf_ringbuf_hdr *hdr)
{
	/* 6.1 finds struct bpf_ringbuf hdr->pg_off pages before the header's page; here that
	 * page is the region's first (consumer_pos), less the kernel page it does not have */
	u64 first = ((u64)hdr & ~(PAGE_SIZE - 1)) - ((u64)(hdr->pg_off - RINGBUF_PGOFF) << 12);

	return ringbuf_of_region[perf_pool_region_of(__pa(first))];
}

static inline bool ringbuf_in_nmi(void)
{
	return this_cpu()->preempt_count & NMI_MASK;
}

noinline void *__bpf_ringbuf_reserve(struct bpf_ringbuf *rb, u64 size)
{
	unsigned long cons_pos, prod_pos, new_prod_pos, pend_pos, flags;
	struct bpf_ringbuf_hdr *hdr;
	u32 len, pg_off, tmp_size, hdr_len;

	if (unlikely(size > RINGBUF_MAX_RECORD_SZ))
		return NULL;
	len = ALIGN(size + BPF_RINGBUF_HDR_SZ, 8);
	if (len > ringbuf_total_data_sz(rb))
		return NULL;
	cons_pos = __atomic_load_n(rb->consumer_pos, __ATOMIC_ACQUIRE);
	if (ringbuf_in_nmi()) {
		flags = arch_local_irq_save();
		if (!raw_spin_trylock(&rb->spinlock)) {
			arch_local_irq_restore(flags);
			return NULL;
		}
	} else {
		raw_spin_lock_irqsave(&rb->spinlock, flags);
	}
	pend_pos = rb->pending_pos;
	prod_pos = *rb->producer_pos;
	new_prod_pos = prod_pos + len;
	while (prod_pos - pend_pos > 0) {
		hdr = (void *)(rb->data + (pend_pos & rb->mask));
		hdr_len = READ_ONCE(hdr->len);
		if (hdr_len & BPF_RINGBUF_BUSY_BIT)
			break;
		tmp_size = hdr_len & ~BPF_RINGBUF_DISCARD_BIT;
		tmp_size = ALIGN(tmp_size + BPF_RINGBUF_HDR_SZ, 8);
		pend_pos += tmp_size;
	}
	rb->pending_pos = pend_pos;
	/* out of room: the producer more than the size less one ahead of the consumer, or of the
	 * oldest record not committed */
	if (new_prod_pos - cons_pos > rb->mask || new_prod_pos - pend_pos > rb->mask) {
		raw_spin_unlock_irqrestore(&rb->spinlock, flags);
		return NULL;
	}
	hdr = (void *)(rb->data + (prod_pos & rb->mask));
	pg_off = bpf_ringbuf_rec_pg_off(rb, hdr);
	hdr->len = size | BPF_RINGBUF_BUSY_BIT;
	hdr->pg_off = pg_off;
	__atomic_store_n(rb->producer_pos, new_prod_pos, __ATOMIC_RELEASE);	/* the reader's acquire */
	raw_spin_unlock_irqrestore(&rb->spinlock, flags);
	return (void *)hdr + BPF_RINGBUF_HDR_SZ;
}

BPF_CALL_x(bpf_ringbuf_reserve)
{
	struct bpf_map *map = (struct bpf_map *)r1;

	if (unlikely(r3))
		return 0;
	return (u64)__bpf_ringbuf_reserve(container_of(map, struct bpf_ringbuf_map, map)->rb, r2);
}
const struct bpf_func_proto bpf_ringbuf_reserve_proto = {
	.func = bpf_ringbuf_reserve,
	.ret_type = RET_PTR_TO_ALLOC_MEM_OR_NULL,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_CONST_ALLOC_SIZE_OR_ZERO, ARG_ANYTHING },
};

/* bpf_ringbuf_notify(): 6.1's irq_work wakes the buffer's waiters (wake_up_all): here the
 * region's status page counts the wakeup, which a session's supervisor, watching the map's fd
 * for its process's epoll or poll, waits for (perf_pool_wakeup()) */
static noinline void bpf_ringbuf_notify(struct bpf_ringbuf *rb)
{
	perf_pool_wakeup(rb->region);
}

/* The record at rec_pos (len bytes, header included) in both copies of the data, as 6.1's
 * double mapping shows it: what was written linearly from the first copy on is copied to the
 * second, and the tail a wrapping record wrote past the end (into the second copy) to the
 * first copy's start.  Before the record is committed: a reader reads no BUSY record. */
static inline void bpf_ringbuf_mirror(struct bpf_ringbuf *rb, unsigned long rec_pos, u32 len)
{
	u64 size = ringbuf_total_data_sz(rb), head = min((u64)len, size - rec_pos);

	memcpy(rb->data + size + rec_pos, rb->data + rec_pos, head);
	if (len > head)
		memcpy(rb->data, rb->data + size, len - head);
}

static inline void bpf_ringbuf_commit(void *sample, u64 flags, bool discard)
{
	unsigned long rec_pos, cons_pos;
	struct bpf_ringbuf_hdr *hdr = sample - BPF_RINGBUF_HDR_SZ;
	struct bpf_ringbuf *rb = bpf_ringbuf_restore_from_rec(hdr);
	u32 new_len = hdr->len ^ BPF_RINGBUF_BUSY_BIT;

	if (discard)
		new_len |= BPF_RINGBUF_DISCARD_BIT;
	rec_pos = (char *)hdr - rb->data;
	bpf_ringbuf_mirror(rb, rec_pos, ALIGN((hdr->len & ~BPF_RINGBUF_BUSY_BIT) + BPF_RINGBUF_HDR_SZ, 8));
	__atomic_exchange_n(&hdr->len, new_len, __ATOMIC_SEQ_CST);	/* the final size: the reader may take it */
	WRITE_ONCE(((struct bpf_ringbuf_hdr *)(rb->data + rec_pos + ringbuf_total_data_sz(rb)))->len, new_len);
	/* the consumer caught up and waits for this record: tell it (unless told not to) */
	cons_pos = __atomic_load_n(rb->consumer_pos, __ATOMIC_ACQUIRE) & rb->mask;
	if (flags & BPF_RB_FORCE_WAKEUP)
		bpf_ringbuf_notify(rb);
	else if (cons_pos == rec_pos && !(flags & BPF_RB_NO_WAKEUP))
		bpf_ringbuf_notify(rb);
}

BPF_CALL_x(bpf_ringbuf_submit)
{
	bpf_ringbuf_commit((void *)r1, r2, false);
	return 0;
}
const struct bpf_func_proto bpf_ringbuf_submit_proto = {
	.func = bpf_ringbuf_submit,
	.ret_type = RET_VOID,
	.arg_type = { ARG_PTR_TO_ALLOC_MEM | OBJ_RELEASE, ARG_ANYTHING },
};

BPF_CALL_x(bpf_ringbuf_discard)
{
	bpf_ringbuf_commit((void *)r1, r2, true);
	return 0;
}
const struct bpf_func_proto bpf_ringbuf_discard_proto = {
	.func = bpf_ringbuf_discard,
	.ret_type = RET_VOID,
	.arg_type = { ARG_PTR_TO_ALLOC_MEM | OBJ_RELEASE, ARG_ANYTHING },
};

BPF_CALL_x(bpf_ringbuf_output)
{
	struct bpf_map *map = (struct bpf_map *)r1;
	void *rec;

	if (unlikely(r4 & ~(BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP)))
		return -EINVAL;
	rec = __bpf_ringbuf_reserve(container_of(map, struct bpf_ringbuf_map, map)->rb, r3);
	if (!rec)
		return -EAGAIN;
	memcpy(rec, (void *)r2, r3);	/* linearly: a wrapping record's tail in the second copy */
	bpf_ringbuf_commit(rec, r4, false);
	return 0;
}
const struct bpf_func_proto bpf_ringbuf_output_proto = {
	.func = bpf_ringbuf_output,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },
};

BPF_CALL_x(bpf_ringbuf_query)
{
	struct bpf_ringbuf *rb = container_of((struct bpf_map *)r1, struct bpf_ringbuf_map, map)->rb;

	switch (r2) {
	case BPF_RB_AVAIL_DATA:
		return ringbuf_avail_data_sz(rb);
	case BPF_RB_RING_SIZE:
		return ringbuf_total_data_sz(rb);
	case BPF_RB_CONS_POS:
		return __atomic_load_n(rb->consumer_pos, __ATOMIC_ACQUIRE);
	case BPF_RB_PROD_POS:
		return __atomic_load_n(rb->producer_pos, __ATOMIC_ACQUIRE);
	default:
		return 0;
	}
}
const struct bpf_func_proto bpf_ringbuf_query_proto = {
	.func = bpf_ringbuf_query,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_CONST_MAP_PTR, ARG_ANYTHING },
};
