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
#include "../include/buffer_head.h"
#include "../include/slab.h"
#include "../include/trace/trace.h"
#include "../include/signal.h"

/* the waiters for any page's writeback (6.1 hashes them over folio_wait_table) */
static struct wait_queue_head folio_wait_table = {
	.lock = __SPIN_LOCK_UNLOCKED,
	.head = LIST_HEAD_INIT(folio_wait_table.head),
};

/* The slot of index in the mapping's page array; the array grown when asked (copied under the
 * mapping's lock, which reclaim clears slots under). */
notrace void **mapping_slot(struct address_space *m, unsigned long index, bool grow)
{
	while (index >= READ_ONCE(m->nr_slots)) {
		unsigned long n = max(16UL, m->nr_slots), flags;
		void **pages, **old = NULL;

		if (!grow)
			return NULL;
		while (n <= index)
			n *= 2;
		pages = kzalloc(n * sizeof(void *), GFP_KERNEL);
		if (!pages)
			return NULL;
		spin_lock_irqsave(&m->i_pages_lock, flags);
		if (m->nr_slots < n) {
			if (m->pages)
				memcpy(pages, m->pages, m->nr_slots * sizeof(void *));
			old = m->pages;
			m->pages = pages;
			m->nr_slots = n;
			pages = NULL;
		}
		spin_unlock_irqrestore(&m->i_pages_lock, flags);
		kfree(old);
		kfree(pages);
	}
	return &m->pages[index];
}

/* The page at index with a reference taken, or NULL (filemap_get_entry: a page reclaim is
 * taking out, its count frozen, is waited out; one that left meanwhile is let go) */
static __always_inline void *filemap_get_entry(struct address_space *mapping, unsigned long index)
{
	void **slot, *page;

	for (;;) {
		slot = mapping_slot(mapping, index, false);
		page = slot ? READ_ONCE(*slot) : NULL;
		if (!page)
			return NULL;
		if (!folio_try_get(page))
			continue;
		if (page == READ_ONCE(mapping->pages[index]))
			return page;
		folio_put(page);
	}
}

static noinline int __filemap_add_folio(struct address_space *mapping, void *page, unsigned long index, gfp_t gfp)
{
	unsigned long flags;
	void **slot;

	if (!mapping_slot(mapping, index, true))
		return -ENOMEM;
	spin_lock_irqsave(&mapping->i_pages_lock, flags);
	slot = mapping_slot(mapping, index, false);
	if (*slot) {
		spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
		return -EEXIST;
	}
	page_of(page)->mapping = mapping;
	page_of(page)->index = index;
	*slot = page;
	mapping->nrpages++;
	spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
	trace_mm_filemap_add_to_page_cache(mapping, page, index);
	return 0;
}

noinline int filemap_add_folio(struct address_space *mapping, void *page, unsigned long index, gfp_t gfp)
{
	int ret;

	page_of(page)->flags |= PG_locked;	/* __folio_set_locked */
	ret = __filemap_add_folio(mapping, page, index, gfp);
	if (ret)
		page_of(page)->flags &= ~PG_locked;
	else
		folio_add_lru(page);
	return ret;
}

/* ---- the bits a task waits on (PG_locked, PG_writeback): 6.1 hashes the waiters over
 * folio_wait_table, here one queue whose waiters each recheck their page's bit ---- */
static noinline void folio_wake_bit(void *page, unsigned long bit)
{
	__wake_up(&folio_wait_table, TASK_NORMAL, 0, NULL);
}

noinline void folio_wait_bit(void *page, unsigned long bit)
{
	wait_event(folio_wait_table, !(page_of(page)->flags & bit));
}

/* folio_lock's slow path: the page's lock is held, wait for it */
noinline void __folio_lock(void *page)
{
	while (!folio_trylock(page))
		folio_wait_bit(page, PG_locked);
}

/* Unlock a page, waking whoever waits for it (6.1: only when PG_waiters says someone does). */
noinline void folio_unlock(void *page)
{
	__atomic_fetch_and(&page_of(page)->flags, ~PG_locked, __ATOMIC_RELEASE);
	if (!list_empty(&folio_wait_table.head))
		folio_wake_bit(page, PG_locked);
}

/* A new page for the cache (filemap_alloc_folio → folio_alloc), zeroed here. */
noinline void *filemap_alloc_folio(gfp_t gfp, unsigned int order)
{
	return alloc_page_zeroed();
}

/* The cached page at index with a reference for the caller (folio_put), locked with FGP_LOCK;
 * made (zeroed, not uptodate) with FGP_CREAT. */
noinline void *__filemap_get_folio(struct address_space *mapping, unsigned long index, int fgp_flags, gfp_t gfp)
{
	void *page;
repeat:
	page = filemap_get_entry(mapping, index);
	if (page) {
		if (fgp_flags & FGP_LOCK) {
			folio_lock(page);
			if (page_of(page)->mapping != mapping) {	/* truncated or reclaimed meanwhile */
				folio_unlock(page);
				folio_put(page);
				goto repeat;
			}
		}
		if (fgp_flags & FGP_ACCESSED)
			folio_mark_accessed(page);
		return page;
	}
	if (!(fgp_flags & FGP_CREAT))
		return NULL;
	page = filemap_alloc_folio(gfp, 0);
	if (!page)
		return NULL;
	if (filemap_add_folio(mapping, page, index, gfp)) {
		__free_pages(virt_to_page(page), 0);
		goto repeat;	/* another task added one first */
	}
	folio_get(page);	/* the caller's (the allocation's is the cache's) */
	if (!(fgp_flags & FGP_LOCK))
		folio_unlock(page);
	return page;
}

/* A dirty page leaving the cache is no longer dirty memory of a file that writes back. */
static noinline void filemap_unaccount_folio(struct address_space *mapping, void *page)
{
	if (PageDirty(page) && mapping->a_ops && mapping->a_ops->writepage)	/* mapping_can_writeback */
		folio_account_cleaned(page);
}

/* Out of the mapping (page_cache_delete: its slot emptied), the mapping's lock held; the
 * caller drops the cache's reference. */
noinline void __filemap_remove_folio(struct address_space *mapping, void *page, unsigned long index)
{
	trace_mm_filemap_delete_from_page_cache(mapping, page, index);
	filemap_unaccount_folio(mapping, page);
	mapping->pages[index] = NULL;
	mapping->nrpages--;
	page_of(page)->mapping = NULL;
}

/* A page's private data released: its buffers (no file system here has a release_folio of
 * its own).  (6.1 releases them before the page leaves the cache; here as it is freed.) */
noinline bool filemap_release_folio(void *page, gfp_t gfp)
{
	return try_to_free_buffers(page);
}

/* The cache's reference dropped (the last one frees the page, off its LRU list). */
noinline void filemap_free_folio(struct address_space *mapping, void *page)
{
	if (page_of(page)->flags & PG_private)
		filemap_release_folio(page, 0);
	folio_put(page);
}

noinline void filemap_remove_folio(struct address_space *mapping, unsigned long index)
{
	void *page = mapping->pages[index];
	unsigned long flags;

	spin_lock_irqsave(&mapping->i_pages_lock, flags);
	__filemap_remove_folio(mapping, page, index);
	spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
	filemap_free_folio(mapping, page);
}

/* ---- truncation (mm/truncate.c) ---- */
/* A page about to leave: its dirtying cancelled (folio_cancel_dirty). */
static noinline void truncate_cleanup_folio(void *page)
{
	if (PageDirty(page)) {
		page_of(page)->flags &= ~PG_dirty;
		folio_account_cleaned(page);
	}
}

noinline int truncate_inode_folio(struct address_space *mapping, void *page, unsigned long index)
{
	truncate_cleanup_folio(page);
	filemap_remove_folio(mapping, index);
	return 0;
}

/* The pages of [lstart, lend] leave the cache once their writeback ended; the part of the
 * page lstart is in that the range does not cover whole stays, zeroed from lstart on. */
noinline void truncate_inode_pages_range(struct address_space *mapping, loff_t lstart, loff_t lend)
{
	unsigned long i, end = (unsigned long)lend >> PAGE_SHIFT;

	for (i = (lstart + PAGE_SIZE - 1) >> PAGE_SHIFT; i < mapping->nr_slots && i <= end; i++) {
		void *page = filemap_get_entry(mapping, i);

		if (!page)
			continue;
		folio_lock(page);
		if (page_of(page)->mapping == mapping) {	/* not reclaimed meanwhile */
			folio_wait_writeback(page);
			truncate_inode_folio(mapping, page, i);
		}
		folio_unlock(page);
		folio_put(page);
	}
	if ((lstart & (PAGE_SIZE - 1)) && (lstart >> PAGE_SHIFT) < mapping->nr_slots &&
	    mapping->pages[lstart >> PAGE_SHIFT])
		memset((char *)mapping->pages[lstart >> PAGE_SHIFT] + (lstart & (PAGE_SIZE - 1)), 0,
		       PAGE_SIZE - (lstart & (PAGE_SIZE - 1)));
}

noinline void truncate_inode_pages(struct address_space *mapping, loff_t lstart)
{
	truncate_inode_pages_range(mapping, lstart, (loff_t)-1);
}

/* An evicted inode's pages, all of them (nothing adds any now: its last reference is gone) */
noinline void truncate_inode_pages_final(struct address_space *mapping)
{
	truncate_inode_pages(mapping, 0);
}

/* The cached pages from index to max in a row, up to the batch's size (their lookup under RCU
 * in 6.1's xarray); how many it found. */
static noinline unsigned int filemap_get_read_batch(struct address_space *mapping, unsigned long index,
						    unsigned long max, void **batch, unsigned int size)
{
	unsigned int n = 0;

	for (; index <= max && n < size; index++) {
		void *page = filemap_get_entry(mapping, index);	/* a reference for the reader */

		if (!page)
			break;
		batch[n++] = page;
		if (!PageUptodate(page))	/* the batch ends at a page that needs reading */
			break;
	}
	return n;
}

/* Read a page in by the mapping's read_folio (synchronous here: 6.1 waits for the page's lock). */
static noinline int filemap_read_folio(struct file *file, struct address_space *mapping, void *page,
				       unsigned long index)
{
	int error = mapping->a_ops && mapping->a_ops->read_folio ?
		mapping->a_ops->read_folio(file, page, index) : 0;

	if (!error)
		page_of(page)->flags |= PG_uptodate;
	return error;
}

/* A page for a hole in the cache, added and read in (filemap_create_folio). */
static inline void *filemap_create_folio(struct file *file, struct address_space *mapping, unsigned long index,
					 int *error)
{
	void *page = filemap_alloc_folio(GFP_KERNEL, 0);

	*error = -ENOMEM;
	if (!page)
		return NULL;
	*error = filemap_add_folio(mapping, page, index, GFP_KERNEL);
	if (*error) {
		__free_pages(virt_to_page(page), 0);
		return NULL;
	}
	folio_get(page);	/* the reader's (the allocation's is the cache's) */
	*error = filemap_read_folio(file, mapping, page, index);
	folio_unlock(page);
	return page;
}

/* The page at index, read in if the cache has none or has it not up to date. */
static noinline void *filemap_get_pages(struct file *file, struct address_space *mapping, unsigned long index,
					int *error)
{
	void *page;

	*error = 0;
	while (!filemap_get_read_batch(mapping, index, index, &page, 1)) {
		page = filemap_create_folio(file, mapping, index, error);
		if (*error != -EEXIST)	/* (another reader added it first: look again) */
			return page;
	}
	if (!PageUptodate(page))	/* filemap_update_page */
		*error = filemap_read_folio(file, mapping, page, index);
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
		if (error) {
			folio_put(page);
			break;
		}
		/* the same page read again in a row is not a new access (pos_same_folio) */
		if (!offset || iocb->ki_pos != filp->f_pos)
			folio_mark_accessed(page);
		nr = min((loff_t)(PAGE_SIZE - offset), isize - pos);
		copied = copy_to_iter((char *)page + offset, nr, iter);
		folio_put(page);
		retval += copied;
		iocb->ki_pos += copied;
		if (copied != nr) {
			error = -EFAULT;
			break;
		}
	}
	file_accessed(filp);
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

/* May the one file be copied into the other (copy_file_range): regular files, the one open for
 * reading, the other for writing and not appending */
noinline int generic_file_rw_checks(struct file *file_in, struct file *file_out)
{
	struct inode *inode_in = file_in->f_inode;
	struct inode *inode_out = file_out->f_inode;

	/* Don't copy dirs, pipes, sockets... */
	if (S_ISDIR(inode_in->i_mode) || S_ISDIR(inode_out->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode_in->i_mode) || !S_ISREG(inode_out->i_mode))
		return -EINVAL;
	if (!(file_in->f_mode & FMODE_READ) || !(file_out->f_mode & FMODE_WRITE) ||
	    (file_out->f_flags & O_APPEND))
		return -EBADF;
	return 0;
}

/* The write's end within the process's RLIMIT_FSIZE (past it: SIGXFSZ and EFBIG) and the file
 * system's limit (every open is O_LARGEFILE on x86-64) */
noinline int generic_write_check_limits(struct file *file, loff_t pos, loff_t *count)
{
	loff_t max_size = file->f_mapping->host->i_sb->s_maxbytes;
	loff_t limit = rlimit(RLIMIT_FSIZE);

	if (limit != (loff_t)RLIM_INFINITY) {
		if (pos >= limit) {
			send_sig(SIGXFSZ, current, 0);
			return -EFBIG;
		}
		*count = min(*count, limit - pos);
	}
	if (pos >= max_size)
		return -EFBIG;
	*count = min(*count, max_size - pos);
	return 0;
}

/* O_APPEND's position, and the count cut to the limits; what is left to write (fs/read_write.c). */
/* fs/read_write.c: where a write goes (O_APPEND: the end) and how much of count it may write
 * there (the file size limits).  (No swap files here.) */
noinline int generic_write_checks_count(struct kiocb *iocb, loff_t *count)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file->f_mapping->host;

	if (!*count)
		return 0;
	if (iocb->ki_flags & IOCB_APPEND)
		iocb->ki_pos = inode->i_size;	/* i_size_read() */
	/* a non-blocking buffered write takes a file system that can (FMODE_BUF_WASYNC): none here */
	if (iocb->ki_flags & IOCB_NOWAIT)
		return -EINVAL;
	return generic_write_check_limits(file, iocb->ki_pos, count);
}

noinline ssize_t generic_write_checks(struct kiocb *iocb, struct iov_iter *from)
{
	loff_t count = iov_iter_count(from);
	int ret;

	ret = generic_write_checks_count(iocb, &count);
	if (ret)
		return ret;
	if (count < (loff_t)iov_iter_count(from))
		from->count = count;	/* iov_iter_truncate */
	return iov_iter_count(from);
}

noinline ssize_t __generic_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	int ret = file_remove_privs(iocb->ki_filp);

	if (ret)
		return ret;
	ret = file_update_time(iocb->ki_filp);
	if (ret)
		return ret;
	return generic_perform_write(iocb, from);
}

noinline ssize_t generic_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = iocb->ki_filp->f_mapping->host;
	ssize_t ret;

	mutex_lock(&inode->i_rwsem);
	ret = generic_write_checks(iocb, from);
	if (ret > 0)
		ret = __generic_file_write_iter(iocb, from);
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
	while (PageWriteback(page))
		folio_wait_bit(page, PG_writeback);
}

noinline void folio_end_writeback(void *page)
{
	__folio_end_writeback(page);
	folio_wake_bit(page, PG_writeback);	/* folio_wake */
}

static noinline void __filemap_fdatawait_range(struct address_space *mapping, loff_t start, loff_t end)
{
	unsigned long i, last = end >> PAGE_SHIFT;

	for (i = start >> PAGE_SHIFT; i <= last && i < mapping->nr_slots; i++)
		if (mapping->pages[i] && PageWriteback(mapping->pages[i]))
			folio_wait_writeback(mapping->pages[i]);
}

noinline int filemap_fdatawait_range(struct address_space *mapping, loff_t start, loff_t end)
{
	__filemap_fdatawait_range(mapping, start, end);
	return 0;	/* (no write error is recorded in a mapping: filemap_check_errors) */
}

/* The range's dirty pages written: started (WB_SYNC_NONE) or each written (WB_SYNC_ALL) */
noinline int __filemap_fdatawrite_range(struct address_space *mapping, loff_t start, loff_t end, int sync_mode)
{
	struct writeback_control wbc = {
		.sync_mode = sync_mode,
		.nr_to_write = LONG_MAX,
		.range_start = start,
		.range_end = end,
	};

	return filemap_fdatawrite_wbc(mapping, &wbc);
}

/* The range's writeback waited for, and the file's write error since it last looked (none is
 * recorded here) */
noinline int file_fdatawait_range(struct file *file, loff_t start_byte, loff_t end_byte)
{
	__filemap_fdatawait_range(file->f_mapping, start_byte, end_byte);
	return 0;
}

noinline int file_write_and_wait_range(struct file *file, loff_t lstart, loff_t lend)
{
	struct address_space *mapping = file->f_mapping;
	int err;

	if (lend < lstart)
		return 0;
	err = __filemap_fdatawrite_range(mapping, lstart, lend, WB_SYNC_ALL);
	if (err != -EIO)
		__filemap_fdatawait_range(mapping, lstart, lend);
	return err;
}

/* a_ops->dirty_folio of a file system on a block device */
noinline bool filemap_dirty_folio(struct address_space *mapping, void *page, unsigned long index)
{
	if (page_of(page)->flags & PG_dirty)
		return false;
	page_of(page)->flags |= PG_dirty;
	__folio_mark_dirty(mapping, page, index);
	__mark_inode_dirty(mapping->host, I_DIRTY_PAGES);
	return true;
}
