/*
 * The mmu_gather (mm/mmu_gather.c): batches of the pages an unmap took out of the page tables,
 * freed once the TLBs forgot them.  No page-table freeing is gathered here (munmap keeps the
 * tables; exit frees them with the mm), so no tlb_table_flush.
 */
#include "../include/tlb.h"
#include "../include/gfp.h"

/* the active batch is full: the next one, allocated if need be (never sleeping: on failure the
 * caller flushes instead) */
static inline bool tlb_next_batch(struct mmu_gather *tlb)
{
	struct mmu_gather_batch *batch = tlb->active;

	if (batch->next) {
		tlb->active = batch->next;
		return true;
	}
	if (tlb->batch_count == MAX_GATHER_BATCH_COUNT)
		return false;
	batch = (void *)__get_free_pages(GFP_NOWAIT | __GFP_NOWARN, 0);
	if (!batch)
		return false;
	tlb->batch_count++;
	batch->next = NULL;
	batch->nr = 0;
	batch->max = MAX_GATHER_BATCH;
	tlb->active->next = batch;
	tlb->active = batch;
	return true;
}

/* every batch's pages freed; the batches stay for more */
static noinline void tlb_batch_pages_flush(struct mmu_gather *tlb)
{
	struct mmu_gather_batch *batch;

	for (batch = &tlb->local; batch && batch->nr; batch = batch->next) {
		struct page **pages = batch->pages;

		do {
			unsigned int nr = min(512U, batch->nr);	/* (6.1 may reschedule between) */

			free_pages_and_swap_cache(pages, nr);
			pages += nr;
			batch->nr -= nr;
		} while (batch->nr);
	}
	tlb->active = &tlb->local;
}

static inline void tlb_batch_list_free(struct mmu_gather *tlb)
{
	struct mmu_gather_batch *batch, *next;

	for (batch = tlb->local.next; batch; batch = next) {
		next = batch->next;
		free_pages((unsigned long)batch, 0);
	}
	tlb->local.next = NULL;
}

/* Gather one page more; true if the batches are full: the caller must flush first */
noinline bool __tlb_remove_page_size(struct mmu_gather *tlb, struct page *page, int page_size)
{
	struct mmu_gather_batch *batch = tlb->active;

	batch->pages[batch->nr++] = page;
	if (batch->nr == batch->max) {
		if (!tlb_next_batch(tlb))
			return true;
	}
	return false;
}

/* the TLB entries of the range go on every CPU (tlb_flush_mmu_tlbonly, inline in 6.1) */
static inline void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb)
{
	if (!tlb->end)
		return;
	flush_tlb_mm_range(tlb->mm, tlb->start, tlb->end);	/* tlb_flush() */
	tlb->start = TASK_SIZE_MAX;	/* __tlb_reset_range() */
	tlb->end = 0;
}

/* The TLBs forget the range, then the gathered pages are freed (inlined into tlb_finish_mmu
 * by Debian's 6.1 build: real-tracefs shows tlb_batch_pages_flush <-tlb_finish_mmu) */
static __always_inline void __tlb_flush_mmu(struct mmu_gather *tlb)
{
	tlb_flush_mmu_tlbonly(tlb);
	tlb_batch_pages_flush(tlb);	/* tlb_flush_mmu_free() */
}

noinline void tlb_flush_mmu(struct mmu_gather *tlb)
{
	__tlb_flush_mmu(tlb);
}

/* An unmap of part of mm begins */
noinline void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	tlb->mm = mm;
	tlb->fullmm = 0;
	tlb->local.next = NULL;
	tlb->local.nr = 0;
	tlb->local.max = MMU_GATHER_BUNDLE;
	tlb->active = &tlb->local;
	tlb->batch_count = 0;
	tlb->start = TASK_SIZE_MAX;	/* __tlb_reset_range() */
	tlb->end = 0;
}

/* ... and ends: the last flush, the extra batches freed */
noinline void tlb_finish_mmu(struct mmu_gather *tlb)
{
	__tlb_flush_mmu(tlb);
	tlb_batch_list_free(tlb);
}
