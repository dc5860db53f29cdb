/* Page aging (mm/swap.c): an access marks a page referenced, a second one active. */
#include "../include/pagemap.h"

/* To the active list (folio_activate_fn, batched per cpu in 6.1). */
noinline void folio_activate(void *page)
{
	page_of(page)->flags |= PG_active;
}

noinline void folio_mark_accessed(void *page)
{
	struct page *p = page_of(page);

	if (!(p->flags & PG_referenced))
		p->flags |= PG_referenced;
	else if (!(p->flags & PG_active)) {
		folio_activate(page);
		p->flags &= ~PG_referenced;
	}
}

/* A new page of the cache goes on the LRU (6.1 batches it per cpu first; lru_add_fn). */
noinline void folio_add_lru(void *page)
{
	page_of(page)->flags |= PG_lru;
}

/* A new anonymous page of a VMA joins the LRU (mlock is not modelled: never unevictable). */
noinline void lru_cache_add_inactive_or_unevictable(struct page *page, struct vm_area_struct *vma)
{
	folio_add_lru(page_address(page));
}
