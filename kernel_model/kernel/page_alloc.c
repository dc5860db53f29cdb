/*
 * The page allocator (mm/page_alloc.c, without zones or buddies): free
 * frames are a bitmap, a block of order n is 2^n free frames aligned to its
 * size; every frame has its struct page in the virtual memory map
 * (vmemmap_populate()).  kmem:mm_page_alloc and mm_page_free record each
 * block, as 6.1's __alloc_pages() and free_pages_prepare() do.
 *
 * One zone's watermarks (min from min_free_kbytes, low and high above it) keep a reserve:
 * the fast path allocates down to low, the slow path (__alloc_pages_slowpath) wakes kswapd
 * (mm/vmscan.c) and allocates down to min, less for __GFP_HIGH, non-blocking and OOM-victim
 * allocations, all of it for reclaim's own (PF_MEMALLOC).  Below min a blocking allocation
 * reclaims itself (direct reclaim: the page cache's clean pages; no swap), retries while
 * reclaim may still free enough, then asks the OOM killer (mm/oom_kill.c) and retries until
 * the victim's memory is back; a non-blocking one (GFP_NOWAIT, GFP_ATOMIC) fails.
 */
#include "../include/kernel.h"
#include "../include/oom.h"
#include "../include/mmzone.h"
#include "../include/trace/trace.h"

#define MAX_PAGES (1UL << 18)	/* 1 GiB of RAM */
#define PTE_P 0x001UL
#define PTE_W 0x002UL
#define PTE_ADDR 0x000ffffffffff000UL
#define PTE_NX (1UL << 63)

unsigned long vmemmap_base __ro_after_init = __VMEMMAP_BASE_L4;
static u64 page_bitmap[MAX_PAGES / 64];
static u64 first_pfn, last_pfn, next_hint;
long vm_zone_stat[NR_VM_ZONE_STAT_ITEMS] __section(".data");	/* 6.1's: D in kallsyms */
static raw_spinlock_t zone_lock;
/* the pages the allocator manages (6.1: __read_mostly, in .data: D in kallsyms) */
unsigned long _totalram_pages __section(".data");

/* the one node (its zone's watermarks, its LRU lists and kswapd: mm/vmscan.c) */
static struct pglist_data node0_pgdat;
struct pglist_data *node_data[MAX_NUMNODES] __section(".data") = { &node0_pgdat };
int min_free_kbytes __section(".data") = 1024;

/* mm/internal.h: how far an allocation may dip into the reserve */
#define ALLOC_WMARK_MIN		WMARK_MIN
#define ALLOC_WMARK_LOW		WMARK_LOW
#define ALLOC_WMARK_HIGH	WMARK_HIGH
#define ALLOC_NO_WATERMARKS	0x04
#define ALLOC_WMARK_MASK	(ALLOC_NO_WATERMARKS - 1)
#define ALLOC_OOM		0x08
#define ALLOC_NON_BLOCK		0x10
#define ALLOC_MIN_RESERVE	0x20	/* __GFP_HIGH */
#define ALLOC_CPUSET		0x40
#define ALLOC_KSWAPD		0x800	/* __GFP_KSWAPD_RECLAIM */
#define ALLOC_RESERVES		(ALLOC_NON_BLOCK | ALLOC_MIN_RESERVE | ALLOC_OOM)
#define PAGE_ALLOC_COSTLY_ORDER	3

static __always_inline bool pfn_free(u64 pfn)
{
	return !(page_bitmap[pfn / 64] & (1UL << (pfn % 64)));
}

static __always_inline void pfn_mark(u64 pfn, u64 n, bool used)
{
	for (; n; n--, pfn++)
		if (used)
			page_bitmap[pfn / 64] |= 1UL << (pfn % 64);
		else
			page_bitmap[pfn / 64] &= ~(1UL << (pfn % 64));
}

/* A frame for the memory map itself, before it exists (memblock's part). */
static notrace void *memblock_alloc_page(void)
{
	u64 pfn = next_hint++;

	pfn_mark(pfn, 1, true);
	vm_zone_stat[NR_FREE_PAGES]--;
	return memset(__va(pfn << 12), 0, PAGE_SIZE);
}

/* The kernel table entry of va at a level, with the table below made if missing. */
static notrace u64 *vmemmap_table(u64 *table, u64 va, int shift)
{
	u64 *e = &table[(va >> shift) & 511];

	if (!(*e & PTE_P))
		*e = __pa(memblock_alloc_page()) | PTE_P | PTE_W;
	return __va(*e & PTE_ADDR);
}

/* Back the struct pages of frames [0, nr) with frames mapped at vmemmap_base. */
static void vmemmap_populate(u64 *pgd, u64 nr)
{
	u64 va, end = vmemmap_base + nr * sizeof(struct page);

	for (va = vmemmap_base; va < end; va += PAGE_SIZE) {
		u64 *pt = vmemmap_table(vmemmap_table(vmemmap_table(pgd, va, 39), va, 30), va, 21);

		pt[(va >> 12) & 511] = __pa(memblock_alloc_page()) | PTE_P | PTE_W | PTE_NX;
	}
}

/* lib/math/int_sqrt.c */
static noinline unsigned long int_sqrt(unsigned long x)
{
	unsigned long b, m, y = 0;

	if (x <= 1)
		return x;
	m = 1UL << ((63 - __builtin_clzl(x)) & ~1UL);
	while (m) {
		b = y + m;
		y >>= 1;
		if (x >= b) {
			x -= b;
			y += m;
		}
		m >>= 2;
	}
	return y;
}

/* min_free_kbytes = sqrt(lowmem_kbytes * 16), 128 kB..256 MB; the zone's watermarks from it
 * (setup_per_zone_wmarks): low and high are min plus once and twice the larger of a quarter of
 * min and watermark_scale_factor's 0.1% of the zone */
static void __init init_per_zone_wmark_min(void)
{
	struct zone *zone = page_zone(NULL);
	unsigned long min;

	min_free_kbytes = int_sqrt((_totalram_pages << 2) * 16);
	if (min_free_kbytes < 128)
		min_free_kbytes = 128;
	if (min_free_kbytes > 262144)
		min_free_kbytes = 262144;
	min = (unsigned long)min_free_kbytes >> 2;
	zone->_watermark[WMARK_MIN] = min;
	zone->_watermark[WMARK_LOW] = min + max(min / 4, _totalram_pages / 1000);
	zone->_watermark[WMARK_HIGH] = min + 2 * max(min / 4, _totalram_pages / 1000);
}

void __init page_alloc_init(u64 *pgd)
{
	first_pfn = ALIGN(__pa(_end), 1UL << 21) >> 12;
	last_pfn = boot_params.ram_size >> 12;
	if (last_pfn > MAX_PAGES)
		last_pfn = MAX_PAGES;
	next_hint = first_pfn;
	vm_zone_stat[NR_FREE_PAGES] = last_pfn - first_pfn;
	vmemmap_populate(pgd, last_pfn);
	_totalram_pages = vm_zone_stat[NR_FREE_PAGES];
	page_zone(NULL)->zone_pgdat = NODE_DATA(0);
	pgdat_init_internals(NODE_DATA(0));
	init_per_zone_wmark_min();
}

static __always_inline int gfp_migratetype(gfp_t gfp)
{
	return (gfp & GFP_MOVABLE_MASK) >> GFP_MOVABLE_SHIFT;
}

/* Whether the zone still keeps, after this allocation, the reserve it must leave: free pages
 * above mark, which the reserves lower (one zone here: 6.1's zone and its lowmem_reserve go,
 * and rmqueue finds the block of a higher order itself) */
noinline bool __zone_watermark_ok(unsigned int order, unsigned long mark, unsigned int alloc_flags,
				  long free_pages)
{
	long min = mark;

	if (alloc_flags & ALLOC_RESERVES) {
		if (alloc_flags & ALLOC_MIN_RESERVE) {
			min -= min / 2;		/* __GFP_HIGH: half of the reserve */
			if (alloc_flags & ALLOC_NON_BLOCK)
				min -= min / 4;	/* GFP_ATOMIC: a bit more */
		}
		if (alloc_flags & ALLOC_OOM)
			min -= min / 2;		/* an OOM victim, on its way out */
	}
	return free_pages - (long)(1UL << order) + 1 > min;
}

/* A page well above the mark needs no look at the reserves */
static __always_inline bool zone_watermark_fast(unsigned int order, unsigned long mark, unsigned int alloc_flags)
{
	long free_pages = READ_ONCE(vm_zone_stat[NR_FREE_PAGES]);

	if (!order && free_pages > (long)mark)
		return true;
	return __zone_watermark_ok(order, mark, alloc_flags, free_pages);
}

/* The first free block of this order: the lowest free frame for order 0 (recently freed
 * frames are reused first, so the host's resident set of guest RAM stays small). */
static struct page *rmqueue(unsigned int order, unsigned int alloc_flags)
{
	u64 n = 1UL << order, pfn, k;

	/* get_page_from_freelist's check; ALLOC_NO_WATERMARKS takes it whatever the mark */
	if (!(alloc_flags & ALLOC_NO_WATERMARKS) &&
	    !zone_watermark_fast(order, page_zone(NULL)->_watermark[alloc_flags & ALLOC_WMARK_MASK], alloc_flags))
		return NULL;

	if (!order) {
		for (k = 0, pfn = next_hint; k < last_pfn - first_pfn; k++, pfn++) {
			if (pfn >= last_pfn)
				pfn = first_pfn;
			if (pfn_free(pfn)) {
				next_hint = pfn + 1;
				goto found;
			}
		}
		return NULL;
	}
	for (pfn = ALIGN(first_pfn, n); pfn + n <= last_pfn; pfn += n) {
		for (k = 0; k < n && pfn_free(pfn + k); k++)
			;
		if (k == n)
			goto found;
	}
	return NULL;
found:
	pfn_mark(pfn, n, true);
	vm_zone_stat[NR_FREE_PAGES] -= n;
	return pfn_to_page(pfn);
}

/* its tail pages lead to the head (compound_head()) */
noinline void prep_compound_page(struct page *head, unsigned int order)
{
	u64 i;

	for (i = 1; i < 1UL << order; i++)
		head[i].compound_head = (unsigned long)head | 1;
}

static noinline struct page *get_page_from_freelist(gfp_t gfp, unsigned int order, unsigned int alloc_flags)
{
	unsigned long flags;
	struct page *page;

	raw_spin_lock_irqsave(&zone_lock, flags);
	page = rmqueue(order, alloc_flags);
	raw_spin_unlock_irqrestore(&zone_lock, flags);
	if (!page)
		return NULL;
	page->flags = order ? PG_head : 0;
	page->order = order;
	page->_refcount = 1;
	page->compound_head = 0;
	if (order && (gfp & __GFP_COMP))
		prep_compound_page(page, order);
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, PAGE_SIZE << order);
	return page;
}

static inline unsigned int gfp_to_alloc_flags(gfp_t gfp_mask, unsigned int order)
{
	unsigned int alloc_flags = ALLOC_WMARK_MIN | ALLOC_CPUSET;

	if (gfp_mask & __GFP_HIGH)
		alloc_flags |= ALLOC_MIN_RESERVE;
	if (gfp_mask & __GFP_KSWAPD_RECLAIM)
		alloc_flags |= ALLOC_KSWAPD;
	if (!(gfp_mask & __GFP_DIRECT_RECLAIM)) {
		if (!(gfp_mask & __GFP_NOMEMALLOC))
			alloc_flags |= ALLOC_NON_BLOCK;
		if (alloc_flags & ALLOC_MIN_RESERVE)
			alloc_flags &= ~ALLOC_CPUSET;
	}
	return alloc_flags;
}

/* An OOM victim (in task context) may use part of the reserve to get out (6.1: ALLOC_OOM). */
static inline int __gfp_pfmemalloc_flags(gfp_t gfp_mask)
{
	if (gfp_mask & __GFP_NOMEMALLOC)
		return 0;
	if (gfp_mask & __GFP_MEMALLOC)
		return ALLOC_NO_WATERMARKS;
	if (!(this_cpu()->preempt_count & (HARDIRQ_MASK | 0xff00 /* SOFTIRQ_MASK */))) {	/* !in_interrupt() */
		if (current->flags & PF_MEMALLOC)	/* reclaim's own allocations */
			return ALLOC_NO_WATERMARKS;
		if (tsk_is_oom_victim(current))
			return ALLOC_OOM;
	}
	return 0;
}

/* Whether the zone keeps mark free after an allocation of order (kswapd's test for a balanced
 * node; 6.1 counts the per-cpu lists' drift too, which the model does not have) */
noinline bool zone_watermark_ok_safe(struct zone *z, unsigned int order, unsigned long mark, int highest_zoneidx)
{
	return __zone_watermark_ok(order, mark, 0, global_zone_page_state(NR_FREE_PAGES));
}

/* Every zone the allocation may use has its node's kswapd woken (one here) */
static noinline void wake_all_kswapds(unsigned int order, gfp_t gfp_mask, enum zone_type highest_zoneidx)
{
	wakeup_kswapd(page_zone(NULL), gfp_mask, order, highest_zoneidx);
}

/* Direct reclaim: the allocating task frees pages itself (try_to_free_pages) as PF_MEMALLOC,
 * so that reclaim's own allocations take the reserves and never reclaim in turn. */
static inline unsigned long __perform_reclaim(gfp_t gfp_mask, unsigned int order)
{
	unsigned int noreclaim_flag = current->flags & PF_MEMALLOC;	/* memalloc_noreclaim_save */
	unsigned long progress;

	current->flags |= PF_MEMALLOC;
	progress = try_to_free_pages(NULL, order, gfp_mask, NULL);
	current->flags = (current->flags & ~PF_MEMALLOC) | noreclaim_flag;
	if (need_resched())	/* cond_resched() */
		schedule();
	return progress;
}

static inline struct page *__alloc_pages_direct_reclaim(gfp_t gfp_mask, unsigned int order,
							unsigned int alloc_flags, unsigned long *did_some_progress)
{
	*did_some_progress = __perform_reclaim(gfp_mask, order);
	if (!*did_some_progress)
		return NULL;
	return get_page_from_freelist(gfp_mask, order, alloc_flags);
}

/* Whether reclaim may still free enough: it made progress lately (MAX_RECLAIM_RETRIES
 * rounds without any end it), and the zone's free and reclaimable pages together would
 * pass the min watermark (oom:reclaim_retry_zone). */
static inline bool should_reclaim_retry(gfp_t gfp_mask, unsigned int order, unsigned int alloc_flags,
					bool did_some_progress, int *no_progress_loops)
{
	struct zone *zone = page_zone(NULL);
	unsigned long reclaimable, available;
	bool ret = false, wmark;

	if (did_some_progress && order <= PAGE_ALLOC_COSTLY_ORDER)
		*no_progress_loops = 0;
	else
		(*no_progress_loops)++;
	if (*no_progress_loops > MAX_RECLAIM_RETRIES)
		goto out;
	available = reclaimable = zone_reclaimable_pages(zone);
	available += global_zone_page_state(NR_FREE_PAGES);
	wmark = __zone_watermark_ok(order, min_wmark_pages(zone), alloc_flags, available);
	trace_reclaim_retry_zone(zone, order, reclaimable, available, min_wmark_pages(zone), *no_progress_loops,
				 wmark);
	ret = wmark;
out:
	if (need_resched())	/* cond_resched() */
		schedule();
	return ret;
}

/* Nothing to reclaim, nothing to compact: ask the OOM killer, under oom_lock (a task that
 * finds it taken lets the one holding it make progress for it). */
static inline struct page *__alloc_pages_may_oom(gfp_t gfp_mask, unsigned int order,
						 unsigned long *did_some_progress)
{
	struct oom_control oc = {
		.gfp_mask = gfp_mask,
		.order = order,
	};
	struct page *page;

	*did_some_progress = 0;
	if (!mutex_trylock(&oom_lock)) {
		*did_some_progress = 1;
		schedule_timeout_uninterruptible(1);
		return NULL;
	}
	/* once more, above the high watermark: only to catch another task's OOM kill */
	oom_victims_gone_seen = READ_ONCE(oom_victims_gone);
	page = get_page_from_freelist((gfp_mask | __GFP_HARDWALL) & ~__GFP_DIRECT_RECLAIM, order,
				      ALLOC_WMARK_HIGH | ALLOC_CPUSET);
	if (page)
		goto out;
	if (order > PAGE_ALLOC_COSTLY_ORDER)	/* the OOM killer will not help high orders */
		goto out;
	if (gfp_mask & (__GFP_RETRY_MAYFAIL | __GFP_THISNODE))
		goto out;
	if (out_of_memory(&oc))
		*did_some_progress = 1;
out:
	mutex_unlock(&oom_lock);
	return page;
}

/* 6.1's kallsyms name is GCC's clone's (constprop: its alloc_context), which ftrace does not list:
 * a symbol, not traceable; its __alloc_pages_may_oom is inlined, as there */
static struct page *__alloc_pages_slowpath(gfp_t gfp_mask, unsigned int order)
	__asm__("__alloc_pages_slowpath.constprop.0");
static noinline notrace struct page *__alloc_pages_slowpath(gfp_t gfp_mask, unsigned int order)
{
	bool can_direct_reclaim = gfp_mask & __GFP_DIRECT_RECLAIM;
	bool costly_order = order > PAGE_ALLOC_COSTLY_ORDER;
	unsigned int alloc_flags = gfp_to_alloc_flags(gfp_mask, order);
	enum zone_type highest_zoneidx = gfp_zone(gfp_mask);
	unsigned long did_some_progress;
	int no_progress_loops = 0;
	struct page *page;
	int reserve_flags;

	if (alloc_flags & ALLOC_KSWAPD)
		wake_all_kswapds(order, gfp_mask, highest_zoneidx);
	page = get_page_from_freelist(gfp_mask, order, alloc_flags);
	if (page)
		return page;
retry:
	if (alloc_flags & ALLOC_KSWAPD)	/* it may have gone to sleep meanwhile */
		wake_all_kswapds(order, gfp_mask, highest_zoneidx);
	reserve_flags = __gfp_pfmemalloc_flags(gfp_mask);
	if (reserve_flags)
		alloc_flags = reserve_flags | (alloc_flags & ALLOC_KSWAPD);
	page = get_page_from_freelist(gfp_mask, order, alloc_flags);
	if (page)
		return page;
	if (!can_direct_reclaim)
		return NULL;
	if (current->flags & PF_MEMALLOC)	/* no direct reclaim from within reclaim */
		return NULL;
	page = __alloc_pages_direct_reclaim(gfp_mask, order, alloc_flags, &did_some_progress);
	if (page)
		return page;
	if (gfp_mask & __GFP_NORETRY)
		return NULL;
	if (costly_order && !(gfp_mask & __GFP_RETRY_MAYFAIL))
		return NULL;
	if (should_reclaim_retry(gfp_mask, order, alloc_flags, did_some_progress > 0, &no_progress_loops))
		goto retry;
	page = __alloc_pages_may_oom(gfp_mask, order, &did_some_progress);
	if (page)
		return page;
	/* a victim that failed even with its share of the reserve gives up: it is dying */
	if (tsk_is_oom_victim(current) && ((alloc_flags & ALLOC_OOM) || (gfp_mask & __GFP_NOMEMALLOC)))
		return NULL;
	if (did_some_progress) {
		no_progress_loops = 0;
		goto retry;
	}
	return NULL;
}

struct page *__alloc_pages(gfp_t gfp, unsigned int order, int preferred_nid, void *nodemask)
{
	struct page *page = NULL;

	if (order < MAX_ORDER) {
		page = get_page_from_freelist(gfp, order, ALLOC_WMARK_LOW);
		if (!page)
			page = __alloc_pages_slowpath(gfp, order);
	}
	trace_mm_page_alloc(page, order, gfp, gfp_migratetype(gfp));
	return page;
}

/* si_meminfo(): the memory sysinfo() and /proc/meminfo report, in pages (no page cache counted
 * apart, no high memory) */
noinline void si_meminfo(struct sysinfo *val)
{
	val->totalram = boot_params.ram_size >> PAGE_SHIFT;
	val->sharedram = 0;
	val->freeram = global_zone_page_state(NR_FREE_PAGES);
	val->bufferram = 0;
	val->totalhigh = 0;
	val->freehigh = 0;
	val->mem_unit = PAGE_SIZE;
}

noinline unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);

	return page ? (unsigned long)page_address(page) : 0;
}

unsigned long get_zeroed_page(gfp_t gfp)
{
	return __get_free_pages(gfp | __GFP_ZERO, 0);
}

static __always_inline void free_pages_prepare(struct page *page, unsigned int order)
{
	u64 i;

	trace_mm_page_free(page, order);
	if (page->flags & PG_head)
		for (i = 1; i < 1UL << order; i++)
			page[i].compound_head = 0;	/* free_tail_pages_check() */
	page->flags = 0;
	page->slab_cache = NULL;
}

static __always_inline void __free_one_page(struct page *page, unsigned int order)
{
	u64 pfn = page_to_pfn(page);
	unsigned long flags;

	raw_spin_lock_irqsave(&zone_lock, flags);
	pfn_mark(pfn, 1UL << order, false);
	vm_zone_stat[NR_FREE_PAGES] += 1L << order;
	if (pfn < next_hint)
		next_hint = pfn;
	raw_spin_unlock_irqrestore(&zone_lock, flags);
}

/* free_unref_page's preparation of the block (6.1's, with its debug_pagealloc choice) */
static noinline bool free_pcp_prepare(struct page *page, unsigned int order)
{
	free_pages_prepare(page, order);
	return true;
}

/* A block of a low order back (6.1 keeps it on the cpu's pcp list, free_unref_page_commit,
 * until a batch goes to the buddy lists; no pcp lists here: straight to the free map) */
noinline void free_unref_page(struct page *page, unsigned int order)
{
	if (!free_pcp_prepare(page, order))
		return;
	__free_one_page(page, order);
}

/* release_pages(): a list of order-0 pages back */
noinline void free_unref_page_list(struct list_head *list)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, list, lru) {
		list_del(&page->lru);
		if (free_pcp_prepare(page, 0))
			__free_one_page(page, 0);
	}
}

/* A block of a costly order back to the free map */
static noinline void __free_pages_ok(struct page *page, unsigned int order, unsigned int fpi_flags)
{
	free_pages_prepare(page, order);
	__free_one_page(page, order);
}

static __always_inline void free_the_page(struct page *page, unsigned int order)
{
	if (order <= PAGE_ALLOC_COSTLY_ORDER)	/* pcp_allowed_order() */
		free_unref_page(page, order);
	else
		__free_pages_ok(page, order, 0);
}

noinline void __free_pages(struct page *page, unsigned int order)
{
	if (--page->_refcount)
		return;
	free_the_page(page, order);
}

void free_pages(unsigned long addr, unsigned int order)
{
	if (addr)
		__free_pages(virt_to_page(addr), order);
}

/* mm/mempolicy.c: the pages from the node the task's policy prefers (one node, no policy). */
/* a folio of 2^order pages (compound past order 0; no THP to prepare for order > 1) */
noinline struct page *__folio_alloc(gfp_t gfp, unsigned int order, int preferred_nid, void *nodemask)
{
	return __alloc_pages(gfp | __GFP_COMP, order, preferred_nid, nodemask);
}

noinline struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(gfp, order, 0, NULL);
}
