/*
 * The mmu_gather (include/asm-generic/tlb.h, mm/mmu_gather.c): an unmap's pages are not freed
 * as their PTEs are cleared but gathered, then freed only after every CPU's TLB forgot them
 * (tlb_flush_mmu: the range's flush, then the batch): a thread on another CPU must not reach a
 * page through a stale entry once it is someone else's.
 */
#ifndef _TLB_H
#define _TLB_H
#include "kernel.h"
#include "mm.h"

#define MMU_GATHER_BUNDLE	8	/* the pages of the batch inside the mmu_gather */

struct mmu_gather_batch {
	struct mmu_gather_batch *next;
	unsigned int nr;
	unsigned int max;
	struct page *pages[];
};

/* a page more: another batch, a page long (as many as 10,000 pages, MAX_GATHER_BATCH_COUNT) */
#define MAX_GATHER_BATCH	((PAGE_SIZE - sizeof(struct mmu_gather_batch)) / sizeof(void *))
#define MAX_GATHER_BATCH_COUNT	(10000UL / MAX_GATHER_BATCH)

struct mmu_gather {
	struct mm_struct *mm;
	unsigned long start, end;	/* the range whose TLB entries go (__tlb_adjust_range) */
	unsigned int fullmm : 1;	/* the whole address space (exit) */
	unsigned int batch_count;
	struct mmu_gather_batch *active;
	struct mmu_gather_batch local;
	struct page *__pages[MMU_GATHER_BUNDLE];
};

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_finish_mmu(struct mmu_gather *tlb);
void tlb_flush_mmu(struct mmu_gather *tlb);
bool __tlb_remove_page_size(struct mmu_gather *tlb, struct page *page, int page_size);

/* the PTE of address went: its TLB entry must go before the page is freed.  This CPU's goes at
 * once (invlpg); the others' at the flush, the range noted here */
static inline void tlb_remove_tlb_entry(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long address)
{
	tlb->start = min(tlb->start, address);
	tlb->end = max(tlb->end, address + PAGE_SIZE);
	flush_tlb_page(vma, address);
}

/* true: the batch is full (no page for another), flush before gathering more */
static inline bool __tlb_remove_page(struct mmu_gather *tlb, struct page *page)
{
	return __tlb_remove_page_size(tlb, page, PAGE_SIZE);
}

/* mm/swap_state.c, mm/swap.c: the gathered pages' references dropped, the last ones freed */
void free_pages_and_swap_cache(struct page **pages, int nr);
void release_pages(struct page **pages, int nr);
#endif
