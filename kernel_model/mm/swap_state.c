/*
 * The swap cache (mm/swap_state.c): none here (no swap), so freeing an unmap's gathered pages
 * is dropping their references.  (6.1 drains the per-cpu LRU batches first, which the model
 * does not keep, and takes each page out of the swap cache.)
 */
#include "../include/tlb.h"

noinline void free_pages_and_swap_cache(struct page **pages, int nr)
{
	release_pages(pages, nr);
}
