/*
 * Dirty pages and their writing (mm/page-writeback.c): `folio_mark_dirty` (the mapping's
 * `dirty_folio`), the flusher's intervals (`dirty_writeback_interval`: 5 s,
 * `dirty_expire_interval`: 30 s, in centiseconds as /proc/sys/vm/dirty_*_centisecs), and a
 * mapping's writeback: `do_writepages` → `write_cache_pages` over its dirty pages in the
 * range, each cleared for I/O (`folio_clear_dirty_for_io`) and given to the file system's
 * `writepage` (`__writepage`), under a plug so they go to the disk together.
 */
#include "../include/pagemap.h"
#include "../include/blkdev.h"
#include "../include/trace/trace.h"

unsigned int dirty_writeback_interval = 5 * 100;	/* centiseconds */
unsigned int dirty_expire_interval = 30 * 100;

noinline bool folio_mark_dirty(struct address_space *mapping, void *page, unsigned long index)
{
	if (mapping->a_ops && mapping->a_ops->dirty_folio)
		return mapping->a_ops->dirty_folio(mapping, page, index);
	return false;
}

noinline bool folio_clear_dirty_for_io(void *page)
{
	struct page *p = page_of(page);

	if (!(p->flags & PG_dirty))
		return false;
	p->flags &= ~PG_dirty;
	__atomic_sub_fetch(&global_dirty_pages, 1, __ATOMIC_RELAXED);
	return true;
}

/* A dirty page's accounting undone (it leaves the cache, or its dirtying is cancelled). */
noinline void folio_account_cleaned(void *page)
{
	__atomic_sub_fetch(&global_dirty_pages, 1, __ATOMIC_RELAXED);
	task_io_account_cancelled_write(PAGE_SIZE);
}

/* The page dirty in its mapping: counted (folio_account_dirtied: NR_FILE_DIRTY and its event). */
noinline void __folio_mark_dirty(struct address_space *mapping, void *page, unsigned long index)
{
	__atomic_add_fetch(&global_dirty_pages, 1, __ATOMIC_RELAXED);
	task_io_account_write(PAGE_SIZE);
	trace_writeback_dirty_folio(mapping, index);
}

/* The page's writeback over: whether it was under writeback (NR_WRITEBACK's count in 6.1). */
noinline bool __folio_end_writeback(void *page)
{
	bool ret = page_of(page)->flags & PG_writeback;

	page_of(page)->flags &= ~PG_writeback;
	return ret;
}

/* The page under writeback (its I/O submitted next); folio_start_writeback() is this. */
noinline bool __folio_start_writeback(void *page, bool keep_write)
{
	bool ret = page_of(page)->flags & PG_writeback;

	page_of(page)->flags |= PG_writeback;
	return ret;
}

static noinline int __writepage(struct address_space *mapping, void *page, unsigned long index,
				struct writeback_control *wbc)
{
	return mapping->a_ops->writepage(mapping, page, index, wbc);
}

noinline int write_cache_pages(struct address_space *mapping, struct writeback_control *wbc)
{
	struct inode *inode = mapping->host;
	unsigned long index, end, i;
	int ret = 0;

	if (wbc->range_cyclic) {
		index = mapping->writeback_index;
		end = ~0UL;
	} else {
		index = wbc->range_start >> PAGE_SHIFT;
		end = wbc->range_end >> PAGE_SHIFT;
	}
	mutex_lock(&inode->i_rwsem);	/* the page array does not move under us */
	for (i = index; i <= end && i < mapping->nr_slots; i++) {
		void *page = mapping->pages[i];

		if (!page || !PageDirty(page))
			continue;
		if (PageWriteback(page)) {
			if (wbc->sync_mode == WB_SYNC_NONE)
				continue;
			folio_wait_writeback(page);
		}
		/* locked from its cleaning to its writeback's start: reclaim sees it dirty or
		 * under writeback, never clean before its data is on the way */
		folio_lock(page);
		if (!folio_clear_dirty_for_io(page)) {
			folio_unlock(page);
			continue;
		}
		trace_wbc_writepage(wbc, inode_bdi_name(inode));
		ret = __writepage(mapping, page, i, wbc);
		folio_unlock(page);
		if (ret)
			break;
		if (--wbc->nr_to_write <= 0 && wbc->sync_mode == WB_SYNC_NONE) {
			i++;
			break;
		}
	}
	if (wbc->range_cyclic)
		mapping->writeback_index = i < mapping->nr_slots ? i : 0;
	mutex_unlock(&inode->i_rwsem);
	return ret;
}

noinline int do_writepages(struct address_space *mapping, struct writeback_control *wbc)
{
	struct blk_plug plug;
	int ret;

	if (wbc->nr_to_write <= 0)
		return 0;
	blk_start_plug(&plug);
	ret = write_cache_pages(mapping, wbc);
	blk_finish_plug(&plug);
	return ret;
}
