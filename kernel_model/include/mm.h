/* Page frames and their allocator (include/linux/mm_types.h, mm.h, gfp.h):
 * a struct page per frame in the virtual memory map at vmemmap_base (the
 * page's pfn is its index), allocated in power-of-two blocks. */
#ifndef _MM_H
#define _MM_H
#include "types.h"
#include "list.h"
#include "gfp.h"

struct kmem_cache;
struct page {
	unsigned long flags;		/* PG_* */
	struct list_head slab_list;	/* a slab: in its cache's partial list */
	struct kmem_cache *slab_cache;	/* a slab: its cache */
	void *freelist;			/* a slab: its first free object */
	unsigned int inuse;		/* a slab: objects allocated */
	unsigned int objects;		/* a slab: objects it holds */
	int _refcount;
	unsigned int order;		/* the block's order, in its first page */
	unsigned long pad;
};
_Static_assert(sizeof(struct page) == 64, "struct page is 64 bytes, as on x86-64 Linux");

#define PG_slab		(1UL << 9)
#define PG_head		(1UL << 16)	/* the first page of a block of order > 0 */

/* arch/x86/include/asm/pgtable_64_types.h, page_64.h: no KASLR, so the default base */
#define __VMEMMAP_BASE_L4	0xffffea0000000000UL
extern unsigned long vmemmap_base;
#define VMEMMAP_START		vmemmap_base
#define vmemmap			((struct page *)VMEMMAP_START)
#define __pfn_to_page(pfn)	(vmemmap + (pfn))
#define __page_to_pfn(page)	(unsigned long)((page) - vmemmap)
#define pfn_to_page __pfn_to_page
#define page_to_pfn __page_to_pfn
/* (__va and __pa: kernel.h) */
#define page_address(page)	__va(page_to_pfn(page) << 12)
#define virt_to_page(kaddr)	pfn_to_page(__pa(kaddr) >> 12)

#define MAX_ORDER 11
#define THREAD_SIZE_ORDER 2
/* the migrate type of an allocation, from its gfp flags (gfp_migratetype()) */
enum { MIGRATE_UNMOVABLE, MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE };
#define GFP_MOVABLE_MASK	(__GFP_RECLAIMABLE | __GFP_MOVABLE)
#define GFP_MOVABLE_SHIFT	3
#define GFP_PGTABLE_USER	(GFP_KERNEL_ACCOUNT | __GFP_ZERO)
#define THREADINFO_GFP		(GFP_KERNEL_ACCOUNT | __GFP_ZERO)

struct page *__alloc_pages(gfp_t gfp, unsigned int order, int preferred_nid, void *nodemask);
static __always_inline struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(gfp, order, 0, NULL);
}
#define alloc_page(gfp) alloc_pages(gfp, 0)
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
unsigned long get_zeroed_page(gfp_t gfp);
void __free_pages(struct page *page, unsigned int order);
void free_pages(unsigned long addr, unsigned int order);
#define free_page(addr) free_pages((unsigned long)(addr), 0)
extern u64 nr_free_pages;
/* include/uapi/asm-generic/mman-common.h, mman.h */
#define PROT_WRITE 0x2
#define MAP_SHARED 0x01
#endif
