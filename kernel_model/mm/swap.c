/* Page aging (mm/swap.c): an access marks a page referenced, a second one active; a page of
 * the page cache joins its node's inactive file list, moves to the active one when activated,
 * and leaves its list with its last reference (mm/vmscan.c reclaims from the lists). */
#include "../include/pagemap.h"
#include "../include/mmzone.h"
#include "../include/tlb.h"

/* To the active list (folio_activate_fn, batched per cpu in 6.1); a page reclaim has isolated
 * (off the lists) is flagged, and goes to the active list when reclaim puts it back. */
noinline void folio_activate(void *page)
{
	struct page *p = page_of(page);
	struct lruvec *lruvec = folio_lruvec(p);
	unsigned long flags;

	spin_lock_irqsave(&lruvec->lru_lock, flags);
	if (folio_on_lru_list(p) && !(p->flags & PG_active)) {
		lruvec_del_folio(p);
		p->flags |= PG_active;
		lruvec_add_folio(p);
	} else {
		p->flags |= PG_active;
	}
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
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

/* A page onto its list (6.1 batches pages per cpu first, folio_batch_move_lru); an anonymous
 * one is only flagged */
static noinline void lru_add_fn(struct lruvec *lruvec, struct page *page)
{
	page->flags |= PG_lru;
	if (folio_on_lru_list(page))
		lruvec_add_folio(page);
}

noinline void folio_add_lru(void *page)
{
	struct page *p = page_of(page);
	struct lruvec *lruvec = folio_lruvec(p);
	unsigned long flags;

	spin_lock_irqsave(&lruvec->lru_lock, flags);
	lru_add_fn(lruvec, p);
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
}

/* A page's last reference gone: off its list (__page_cache_release), then freed */
noinline void __folio_put(struct page *page)
{
	if (folio_on_lru_list(page)) {
		struct lruvec *lruvec = folio_lruvec(page);
		unsigned long flags;

		spin_lock_irqsave(&lruvec->lru_lock, flags);
		lruvec_del_folio(page);
		page->flags &= ~(PG_lru | PG_active);
		spin_unlock_irqrestore(&lruvec->lru_lock, flags);
	}
	free_unref_page(page, 0);
}

/* A new anonymous page of a VMA joins the LRU (mlock is not modelled: never unevictable). */
noinline void lru_cache_add_inactive_or_unevictable(struct page *page, struct vm_area_struct *vma)
{
	folio_add_lru(page_address(page));
}

/*
 * The references an unmap held (free_pages_and_swap_cache): a page whose last one goes leaves
 * the LRU and is freed with the others (free_unref_page_list); a block of a higher order (a
 * folio of more than a page) goes back whole.
 */
noinline void release_pages(struct page **pages, int nr)
{
	LIST_HEAD(pages_to_free);
	int i;

	for (i = 0; i < nr; i++) {
		struct page *page = pages[i];

		if (page->order) {	/* folio_test_large(): __folio_put_large() */
			__free_pages(page, page->order);
			continue;
		}
		if (--page->_refcount)	/* put_page_testzero() */
			continue;
		page->flags &= ~(PG_lru | PG_active);	/* lruvec_del_folio(), __folio_clear_lru_flags() */
		list_add(&page->lru, &pages_to_free);
	}
	free_unref_page_list(&pages_to_free);
}
