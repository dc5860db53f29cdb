/*
 * Virtually contiguous memory (mm/vmalloc.c): `__vmalloc` takes pages one at a time from the
 * page allocator and maps them, in a row, in the kernel's vmalloc area (6.1's
 * `__VMALLOC_BASE_L4`, 32 TiB), with a guard page after each area; `vfree` unmaps them and
 * gives them back.  The area's top-level entry is made at boot (6.1's
 * `preallocate_vmalloc_pages`), so every mm's copy of the kernel half shares its tables.
 * 6.1 purges freed areas lazily (one TLB flush a batch) before it hands their addresses out
 * again; here an address is never handed out again (32 TiB last), so no cpu can keep a stale
 * translation of a live area.  The areas are a list (6.1: a red-black tree by address).
 */
#include "../include/kernel.h"
#include "../include/mm.h"
#include "../include/slab.h"

#ifndef PAGE_SHIFT
#define PAGE_SHIFT 12
#endif

#define VMALLOC_START	0xffffc90000000000UL
#define VMALLOC_END	(VMALLOC_START + (32UL << 40) - 1)
#define VM_PAGE_KERNEL	(_PAGE_PRESENT | _PAGE_RW | (1UL << 63))	/* PAGE_KERNEL: rw, nx */

struct vm_struct {
	struct vm_struct *next;
	void *addr;
	unsigned long size;		/* with the guard page, as 6.1's */
	unsigned int nr_pages;
	struct page **pages;
};

static struct vm_struct *vmlist;
static unsigned long vmap_next = VMALLOC_START;
static raw_spinlock_t vmap_area_lock;

void __init vmalloc_init(void)
{
	lookup_pte(&init_mm, VMALLOC_START, true);	/* the area's pgd entry, before any mm copies it */
}

noinline bool is_vmalloc_addr(const void *x)
{
	return (unsigned long)x >= VMALLOC_START && (unsigned long)x <= VMALLOC_END;
}

static noinline void vunmap_range(unsigned long addr, unsigned int nr_pages)
{
	unsigned int i;

	for (i = 0; i < nr_pages; i++)
		*lookup_pte(&init_mm, addr + ((unsigned long)i << PAGE_SHIFT), false) = 0;
}

static notrace noinline int vmap_pages_range(unsigned long addr, struct page **pages, unsigned int nr_pages)
{
	unsigned int i;

	for (i = 0; i < nr_pages; i++) {
		u64 *pte = lookup_pte(&init_mm, addr + ((unsigned long)i << PAGE_SHIFT), true);

		if (!pte) {
			vunmap_range(addr, i);
			return -ENOMEM;
		}
		*pte = __pa(page_address(pages[i])) | VM_PAGE_KERNEL;
	}
	return 0;
}

static void vm_free_pages(struct vm_struct *area, unsigned int nr)
{
	while (nr--)
		__free_pages(area->pages[nr], 0);
	kfree(area->pages);
	kfree(area);
}

noinline void *__vmalloc(unsigned long size, gfp_t gfp_mask)
{
	struct vm_struct *area;
	unsigned long flags;
	unsigned int i;

	size = ALIGN(size, PAGE_SIZE);
	if (!size || size >> PAGE_SHIFT > 1UL << 31)
		return NULL;
	area = kzalloc(sizeof(*area), GFP_KERNEL);
	if (!area)
		return NULL;
	area->nr_pages = size >> PAGE_SHIFT;
	area->pages = kmalloc(area->nr_pages * sizeof(struct page *), GFP_KERNEL);
	if (!area->pages) {
		kfree(area);
		return NULL;
	}
	for (i = 0; i < area->nr_pages; i++) {		/* vm_area_alloc_pages */
		area->pages[i] = alloc_pages(gfp_mask, 0);
		if (!area->pages[i]) {
			vm_free_pages(area, i);
			return NULL;
		}
	}
	area->size = size + PAGE_SIZE;
	raw_spin_lock_irqsave(&vmap_area_lock, flags);
	if (vmap_next + area->size - 1 > VMALLOC_END) {
		raw_spin_unlock_irqrestore(&vmap_area_lock, flags);
		vm_free_pages(area, area->nr_pages);
		return NULL;
	}
	area->addr = (void *)vmap_next;
	vmap_next += area->size;
	raw_spin_unlock_irqrestore(&vmap_area_lock, flags);
	if (vmap_pages_range((unsigned long)area->addr, area->pages, area->nr_pages)) {
		vm_free_pages(area, area->nr_pages);
		return NULL;
	}
	raw_spin_lock_irqsave(&vmap_area_lock, flags);
	area->next = vmlist;
	vmlist = area;
	raw_spin_unlock_irqrestore(&vmap_area_lock, flags);
	return area->addr;
}

void *vmalloc(unsigned long size)
{
	return __vmalloc(size, GFP_KERNEL);
}

void *vzalloc(unsigned long size)
{
	return __vmalloc(size, GFP_KERNEL | __GFP_ZERO);
}

noinline void vfree(const void *addr)
{
	struct vm_struct **p, *area = NULL;
	unsigned long flags;

	if (!addr)
		return;
	raw_spin_lock_irqsave(&vmap_area_lock, flags);
	for (p = &vmlist; *p; p = &(*p)->next)
		if ((*p)->addr == addr) {
			area = *p;
			*p = area->next;
			break;
		}
	raw_spin_unlock_irqrestore(&vmap_area_lock, flags);
	if (!area)
		return;		/* 6.1 WARNs: "Trying to vfree() nonexistent vm area" */
	vunmap_range((unsigned long)area->addr, area->nr_pages);
	vm_free_pages(area, area->nr_pages);
}

/* (mm/util.c) */
/* kvmalloc_node() (mm/util.c): kmalloc for what fits in PAGE_ALLOC_COSTLY_ORDER's pages, vmalloc
 * past; __GFP_ZERO zeroes either */
noinline void *kvmalloc_node(size_t size, gfp_t flags, int node)
{
	if (size <= (PAGE_SIZE << 3))
		return kmalloc(size, flags);
	return __vmalloc(size, flags);
}

void kvfree(const void *addr)
{
	if (is_vmalloc_addr(addr))
		vfree(addr);
	else
		kfree(addr);
}
