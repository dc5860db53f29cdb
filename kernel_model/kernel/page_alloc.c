/*
 * The page allocator (mm/page_alloc.c, without zones or buddies): free
 * frames are a bitmap, a block of order n is 2^n free frames aligned to its
 * size; every frame has its struct page in the virtual memory map
 * (vmemmap_populate()).  kmem:mm_page_alloc and mm_page_free record each
 * block, as 6.1's __alloc_pages() and free_pages_prepare() do.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

#define MAX_PAGES (1UL << 18)	/* 1 GiB of RAM */
#define PTE_P 0x001UL
#define PTE_W 0x002UL
#define PTE_ADDR 0x000ffffffffff000UL
#define PTE_NX (1UL << 63)

unsigned long vmemmap_base __ro_after_init = __VMEMMAP_BASE_L4;
static u64 page_bitmap[MAX_PAGES / 64];
static u64 first_pfn, last_pfn, next_hint;
u64 nr_free_pages;
static raw_spinlock_t zone_lock;

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
static void *memblock_alloc_page(void)
{
	u64 pfn = next_hint++;

	pfn_mark(pfn, 1, true);
	nr_free_pages--;
	return memset(__va(pfn << 12), 0, PAGE_SIZE);
}

/* The kernel table entry of va at a level, with the table below made if missing. */
static u64 *vmemmap_table(u64 *table, u64 va, int shift)
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

void __init page_alloc_init(u64 *pgd)
{
	first_pfn = ALIGN(__pa(_end), 1UL << 21) >> 12;
	last_pfn = boot_params.ram_size >> 12;
	if (last_pfn > MAX_PAGES)
		last_pfn = MAX_PAGES;
	next_hint = first_pfn;
	nr_free_pages = last_pfn - first_pfn;
	vmemmap_populate(pgd, last_pfn);
}

static __always_inline int gfp_migratetype(gfp_t gfp)
{
	return (gfp & GFP_MOVABLE_MASK) >> GFP_MOVABLE_SHIFT;
}

/* The first free block of this order: the lowest free frame for order 0 (recently freed
 * frames are reused first, so the host's resident set of guest RAM stays small). */
static struct page *rmqueue(unsigned int order)
{
	u64 n = 1UL << order, pfn, k;

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
	nr_free_pages -= n;
	return pfn_to_page(pfn);
}

/* its tail pages lead to the head (compound_head()) */
noinline void prep_compound_page(struct page *head, unsigned int order)
{
	u64 i;

	for (i = 1; i < 1UL << order; i++)
		head[i].compound_head = (unsigned long)head | 1;
}

static noinline struct page *get_page_from_freelist(gfp_t gfp, unsigned int order)
{
	unsigned long flags;
	struct page *page;

	raw_spin_lock_irqsave(&zone_lock, flags);
	page = rmqueue(order);
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

struct page *__alloc_pages(gfp_t gfp, unsigned int order, int preferred_nid, void *nodemask)
{
	struct page *page = NULL;

	if (order < MAX_ORDER)
		page = get_page_from_freelist(gfp, order);
	trace_mm_page_alloc(page, order, gfp, gfp_migratetype(gfp));
	return page;
}

unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
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

static void __free_one_page(struct page *page, unsigned int order)
{
	u64 pfn = page_to_pfn(page);
	unsigned long flags;

	raw_spin_lock_irqsave(&zone_lock, flags);
	pfn_mark(pfn, 1UL << order, false);
	nr_free_pages += 1UL << order;
	if (pfn < next_hint)
		next_hint = pfn;
	raw_spin_unlock_irqrestore(&zone_lock, flags);
}

void __free_pages(struct page *page, unsigned int order)
{
	if (--page->_refcount)
		return;
	free_pages_prepare(page, order);
	__free_one_page(page, order);
}

void free_pages(unsigned long addr, unsigned int order)
{
	if (addr)
		__free_pages(virt_to_page(addr), order);
}

/* mm/mempolicy.c: the pages from the node the task's policy prefers (one node, no policy). */
noinline struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(gfp, order, 0, NULL);
}
