/*
 * The page cache (mm/filemap.c): pages enter a file's mapping (`filemap_add_folio` →
 * `__filemap_add_folio`: `filemap:mm_filemap_add_to_page_cache`) and leave it
 * (`filemap_remove_folio`: `mm_filemap_delete_from_page_cache`), are found or made
 * (`__filemap_get_folio`), read through (`generic_file_read_iter` → `filemap_read`: a page
 * not cached is read by the mapping's `read_folio`, a cached one marked accessed) and written
 * through (`generic_file_write_iter` → `generic_perform_write` → the mapping's
 * `write_begin`/`write_end`).  Data integrity: `file_write_and_wait_range` writes the
 * range's dirty pages (`filemap_fdatawrite_wbc` → `do_writepages`) and waits for their
 * writeback (`filemap_fdatawait_range` → `folio_wait_writeback`), which `folio_end_writeback`
 * ends from the I/O's completion.  A mapping without a `writepage` (tmpfs's files) is memory
 * only: its pages are never written back.
 */
#include "../include/pagemap.h"
#include "../include/slab.h"
#include "../include/trace/trace.h"

/* the waiters for any page's writeback (6.1 hashes them over folio_wait_table) */
static struct wait_queue_head folio_wait_table = {
	.lock = __SPIN_LOCK_UNLOCKED,
	.head = LIST_HEAD_INIT(folio_wait_table.head),
};

/* The slot of index in the mapping's page array; the array grown when asked. */
notrace void **mapping_slot(struct address_space *m, unsigned long index, bool grow)
{
	if (index >= m->nr_slots) {
		unsigned long n = max(16UL, m->nr_slots);
		void **pages;

		if (!grow)
			return NULL;
		while (n <= index)
			n *= 2;
		pages = kzalloc(n * sizeof(void *), GFP_KERNEL);
		if (!pages)
			return NULL;
		if (m->pages)
			memcpy(pages, m->pages, m->nr_slots * sizeof(void *));
		kfree(m->pages);
		m->pages = pages;
		m->nr_slots = n;
	}
	return &m->pages[index];
}

static noinline int __filemap_add_folio(struct address_space *mapping, void *page, unsigned long index, gfp_t gfp)
{
	void **slot = mapping_slot(mapping, index, true);

	if (!slot)
		return -ENOMEM;
	if (*slot)
		return -EEXIST;
	*slot = page;
	mapping->nrpages++;
	trace_mm_filemap_add_to_page_cache(mapping, page, index);
	return 0;
}

noinline int filemap_add_folio(struct address_space *mapping, void *page, unsigned long index, gfp_t gfp)
{
	int ret;

	page_of(page)->flags |= PG_locked;
	ret = __filemap_add_folio(mapping, page, index, gfp);
	if (ret)
		page_of(page)->flags &= ~PG_locked;
	else
		page_of(page)->flags |= PG_lru;	/* folio_add_lru */
	return ret;
}

/* The cached page at index; made (zeroed, not uptodate) with FGP_CREAT. */
noinline void *__filemap_get_folio(struct address_space *mapping, unsigned long index, int fgp_flags, gfp_t gfp)
{
	void **slot = mapping_slot(mapping, index, false);
	void *page = slot ? *slot : NULL;

	if (page) {
		if (fgp_flags & FGP_ACCESSED)
			folio_mark_accessed(page);
		return page;
	}
	if (!(fgp_flags & FGP_CREAT))
		return NULL;
	page = alloc_page_zeroed();
	if (!page)
		return NULL;
	if (filemap_add_folio(mapping, page, index, gfp)) {
		__free_pages(virt_to_page(page), 0);
		return NULL;
	}
	page_of(page)->flags &= ~PG_locked;	/* folio_unlock */
	return page;
}

noinline void filemap_remove_folio(struct address_space *mapping, unsigned long index)
{
	void *page = mapping->pages[index];

	trace_mm_filemap_delete_from_page_cache(mapping, page, index);
	folio_clear_dirty_for_io(page);	/* folio_account_cleaned */
	mapping->pages[index] = NULL;
	mapping->nrpages--;
	page_of(page)->flags = 0;
	__free_pages(virt_to_page(page), 0);
}

/* The pages from lstart on leave the cache, once their writeback ended (mm/truncate.c). */
noinline void truncate_inode_pages(struct address_space *mapping, loff_t lstart)
{
	unsigned long i;

	for (i = (lstart + PAGE_SIZE - 1) >> PAGE_SHIFT; i < mapping->nr_slots; i++) {
		void *page = mapping->pages[i];

		if (!page)
			continue;
		folio_wait_writeback(page);
		filemap_remove_folio(mapping, i);
	}
	if ((lstart & (PAGE_SIZE - 1)) && (lstart >> PAGE_SHIFT) < mapping->nr_slots &&
	    mapping->pages[lstart >> PAGE_SHIFT])
		memset((char *)mapping->pages[lstart >> PAGE_SHIFT] + (lstart & (PAGE_SIZE - 1)), 0,
		       PAGE_SIZE - (lstart & (PAGE_SIZE - 1)));
}

/* The page at index, read in if the cache has none (filemap_get_pages → filemap_read_folio). */
static noinline void *filemap_get_pages(struct file *file, struct address_space *mapping, unsigned long index,
					int *error)
{
	void *page = __filemap_get_folio(mapping, index, FGP_CREAT, GFP_KERNEL);

	*error = 0;
	if (!page) {
		*error = -ENOMEM;
		return NULL;
	}
	if (!PageUptodate(page)) {
		*error = mapping->a_ops && mapping->a_ops->read_folio ?
			mapping->a_ops->read_folio(file, page, index) : 0;
		if (!*error)
			page_of(page)->flags |= PG_uptodate;
	}
	return page;
}

static noinline ssize_t filemap_read(struct kiocb *iocb, struct iov_iter *iter, ssize_t already_read)
{
	struct file *filp = iocb->ki_filp;
	struct address_space *mapping = filp->f_mapping;
	struct inode *inode = mapping->host;
	ssize_t retval = already_read;
	int error = 0;

	while (iov_iter_count(iter)) {
		loff_t pos = iocb->ki_pos, isize = inode->i_size;
		unsigned long offset = pos & (PAGE_SIZE - 1);
		size_t nr, copied;
		void *page;

		if (pos >= isize)
			break;
		page = filemap_get_pages(filp, mapping, pos >> PAGE_SHIFT, &error);
		if (!page)
			break;
		if (error)
			break;
		/* the same page read again in a row is not a new access (pos_same_folio) */
		if (!offset || iocb->ki_pos != filp->f_pos)
			folio_mark_accessed(page);
		nr = min((loff_t)(PAGE_SIZE - offset), isize - pos);
		copied = copy_to_iter((char *)page + offset, nr, iter);
		retval += copied;
		iocb->ki_pos += copied;
		if (copied != nr) {
			error = -EFAULT;
			break;
		}
	}
	return retval ? retval : error;
}

noinline ssize_t generic_file_read_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	if (!iov_iter_count(iter))
		return 0;
	return filemap_read(iocb, iter, 0);
}

noinline ssize_t generic_perform_write(struct kiocb *iocb, struct iov_iter *i)
{
	struct file *file = iocb->ki_filp;
	struct address_space *mapping = file->f_mapping;
	const struct address_space_operations *a_ops = mapping->a_ops;
	loff_t pos = iocb->ki_pos;
	ssize_t written = 0;
	int status = 0;

	do {
		unsigned long offset = pos & (PAGE_SIZE - 1);
		size_t bytes = min(PAGE_SIZE - offset, iov_iter_count(i)), copied;
		void *page;

		status = a_ops->write_begin(file, mapping, pos, bytes, &page);
		if (status)
			break;
		copied = copy_from_iter((char *)page + offset, bytes, i);
		status = a_ops->write_end(file, mapping, pos, bytes, copied, page);
		if (!copied) {
			status = -EFAULT;
			break;
		}
		pos += copied;
		written += copied;
	} while (iov_iter_count(i));
	if (!written)
		return status;
	iocb->ki_pos += written;
	return written;
}

noinline ssize_t generic_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file->f_mapping->host;
	ssize_t ret;
	loff_t limit = inode->i_sb->s_maxbytes;

	mutex_lock(&inode->i_rwsem);
	if (iocb->ki_flags & IOCB_APPEND)
		iocb->ki_pos = inode->i_size;
	ret = iov_iter_count(from);
	if (ret > 0 && iocb->ki_pos >= limit) {
		ret = -EFBIG;
	} else if (ret > 0) {
		if ((loff_t)iov_iter_count(from) > limit - iocb->ki_pos)
			from->count = limit - iocb->ki_pos;
		inode->i_mtime = inode->i_ctime = current_time(inode);
		ret = generic_perform_write(iocb, from);
	}
	mutex_unlock(&inode->i_rwsem);
	return ret;
}

/* ---- writeback of a range, and waiting for it ---- */
noinline int filemap_fdatawrite_wbc(struct address_space *mapping, struct writeback_control *wbc)
{
	if (!mapping->a_ops || !mapping->a_ops->writepage || !mapping->nrpages)
		return 0;
	return do_writepages(mapping, wbc);
}

noinline void folio_wait_writeback(void *page)
{
	wait_event(folio_wait_table, !PageWriteback(page));
}

noinline void folio_end_writeback(void *page)
{
	page_of(page)->flags &= ~PG_writeback;
	__wake_up(&folio_wait_table, TASK_NORMAL, 0, NULL);
}

noinline int filemap_fdatawait_range(struct address_space *mapping, loff_t start, loff_t end)
{
	unsigned long i, last = end >> PAGE_SHIFT;

	for (i = start >> PAGE_SHIFT; i <= last && i < mapping->nr_slots; i++)
		if (mapping->pages[i] && PageWriteback(mapping->pages[i]))
			folio_wait_writeback(mapping->pages[i]);
	return 0;
}

noinline int file_write_and_wait_range(struct file *file, loff_t start, loff_t end)
{
	struct address_space *mapping = file->f_mapping;
	struct writeback_control wbc = {
		.sync_mode = WB_SYNC_ALL,
		.nr_to_write = LONG_MAX,
		.range_start = start,
		.range_end = end,
	};
	int err = filemap_fdatawrite_wbc(mapping, &wbc);

	if (!err)
		err = filemap_fdatawait_range(mapping, start, end);
	return err;
}

/* a_ops->dirty_folio of a file system on a block device */
noinline bool filemap_dirty_folio(struct address_space *mapping, void *page, unsigned long index)
{
	if (page_of(page)->flags & PG_dirty)
		return false;
	page_of(page)->flags |= PG_dirty;
	__atomic_add_fetch(&global_dirty_pages, 1, __ATOMIC_RELAXED);	/* folio_account_dirtied */
	trace_writeback_dirty_folio(mapping, index);
	__mark_inode_dirty(mapping->host, I_DIRTY_PAGES);
	return true;
}
