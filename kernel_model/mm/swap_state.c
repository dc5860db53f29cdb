/*
 * The swap cache (mm/swap_state.c): none here (no swap), so freeing an unmap's gathered pages
 * is dropping their references.  (6.1 drains the per-cpu LRU batches first, which the model
 * does not keep, and takes each page out of the swap cache.)
 */
#include "../include/tlb.h"
#include "../include/pagemap.h"

noinline void free_pages_and_swap_cache(struct page **pages, int nr)
{
	release_pages(pages, nr);
}

/* The page of the file's page cache at index, if there is one (no swap cache to look in too):
 * mincore's question of a file mapping's page not mapped */
noinline void *find_get_incore_page(struct address_space *mapping, unsigned long index)
{
	return __filemap_get_folio(mapping, index, 0, 0);
}
