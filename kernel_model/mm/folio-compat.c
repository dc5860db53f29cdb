/*
 * The page-based names of folio calls (mm/folio-compat.c), kept in 6.1 for callers not yet
 * converted to folios: `mark_page_accessed` (6.1's callers: buffer lookups' touch_buffer, a
 * young PTE's zap, get_user_pages' FOLL_TOUCH, which is the model's: mm/gup.c) and
 * `add_to_page_cache_lru` (readahead_expand, secretmem).  6.1's own read path calls the folio names (`filemap_read` →
 * `folio_mark_accessed`, `filemap_create_folio` → `filemap_add_folio`), and so does this
 * kernel's: BCC's cachestat, which counts these two, sees no calls from reads here, as on
 * 6.1 with a file system that reads through the page cache's folio path.
 */
#include "../include/pagemap.h"

noinline void mark_page_accessed(struct page *page)
{
	folio_mark_accessed(page_address(page));	/* page_folio(page) */
}

noinline int add_to_page_cache_lru(struct page *page, struct address_space *mapping, unsigned long index, gfp_t gfp)
{
	return filemap_add_folio(mapping, page_address(page), index, gfp);
}
