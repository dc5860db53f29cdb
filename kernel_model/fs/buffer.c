/*
 * Buffer heads (fs/buffer.c), as far as a file system of 4 KiB blocks on 4 KiB pages uses
 * them: one buffer a page, made at write_begin (`create_empty_buffers`, 6.1's
 * `__block_write_begin_int` → `create_page_buffers`), hung on the page's `private`; a write's
 * end dirties it (`block_write_end` → `__block_commit_write` → `mark_buffer_dirty`, which
 * dirties the page and the inode: `__folio_mark_dirty`, `__mark_inode_dirty(I_DIRTY_PAGES)`),
 * the page's writeback cleans it (`clear_buffer_dirty`, as `__block_write_full_page`), and it
 * goes with its page (`filemap_release_folio` → `try_to_free_buffers`, from
 * `filemap_free_folio` here, where 6.1 frees it before the page leaves the cache).
 */
#include "../include/pagemap.h"
#include "../include/buffer_head.h"
#include "../include/slab.h"
#include "../include/trace/trace.h"

static struct kmem_cache *bh_cachep;

static notrace struct kmem_cache *bh_cache(void)
{
	if (!bh_cachep)		/* buffer_init(), on first use */
		bh_cachep = kmem_cache_create("buffer_head", sizeof(struct buffer_head), 0, 0, NULL);
	return bh_cachep;
}

noinline struct buffer_head *alloc_buffer_head(gfp_t gfp_flags)
{
	struct kmem_cache *cache = bh_cache();

	return cache ? kmem_cache_zalloc(cache, gfp_flags) : NULL;
}

noinline void free_buffer_head(struct buffer_head *bh)
{
	kmem_cache_free(bh_cachep, bh);
}

/* The page's buffer (one block a page), made if it has none; NULL without memory. */
noinline struct buffer_head *create_empty_buffers(struct address_space *mapping, void *page, unsigned long index,
						  unsigned long blocksize, unsigned long b_state)
{
	struct buffer_head *bh = page_buffers(page);

	if (bh)
		return bh;
	bh = alloc_buffer_head(GFP_NOFS);
	if (!bh)
		return NULL;
	bh->b_this_page = bh;
	bh->b_page = virt_to_page(page);
	bh->b_data = page;
	bh->b_size = blocksize;
	bh->b_state = b_state;
	bh->b_mapping = mapping;
	bh->b_index = index;
	page_of(page)->private = (unsigned long)bh;	/* attach_page_private */
	page_of(page)->flags |= PG_private;
	return bh;
}

/* The buffer dirty, and with it its page and the page's inode (6.1: mark_buffer_dirty). */
noinline void mark_buffer_dirty(struct buffer_head *bh)
{
	void *page = page_address(bh->b_page);
	struct address_space *mapping;

	trace_block_dirty_buffer(bh);
	if (bh->b_state & (1UL << BH_Dirty))
		return;
	bh->b_state |= 1UL << BH_Dirty;
	if (page_of(page)->flags & PG_dirty)		/* folio_test_set_dirty */
		return;
	page_of(page)->flags |= PG_dirty;
	mapping = bh->b_mapping;
	if (mapping) {
		__folio_mark_dirty(mapping, page, bh->b_index);
		__mark_inode_dirty(mapping->host, I_DIRTY_PAGES);
	}
}

static noinline int __block_commit_write(struct inode *inode, void *page, unsigned from, unsigned to)
{
	struct buffer_head *bh = page_buffers(page);

	if (bh && from < to) {	/* the one buffer covers the page */
		bh->b_state |= 1UL << BH_Uptodate;
		mark_buffer_dirty(bh);
	}
	return 0;
}

/* The written part's buffers uptodate and dirty; what was copied. */
noinline int block_write_end(struct file *file, struct address_space *mapping, loff_t pos, unsigned len,
			     unsigned copied, void *page)
{
	unsigned start = pos & (PAGE_SIZE - 1);

	__block_commit_write(mapping->host, page, start, start + copied);
	return copied;
}

/* block_write_end, then the file's size grown to the write's end (generic_write_end). */
noinline int generic_write_end(struct file *file, struct address_space *mapping, loff_t pos, unsigned len,
			       unsigned copied, void *page)
{
	struct inode *inode = mapping->host;

	copied = block_write_end(file, mapping, pos, len, copied, page);
	if (pos + copied > inode->i_size) {
		inode->i_size = pos + copied;
		mark_inode_dirty(inode);
	}
	folio_unlock(page);	/* write_begin's lock and reference */
	folio_put(page);
	return copied;
}

/* The page's buffers freed (none dirty: a page leaving the cache was cleaned or cancelled). */
noinline bool try_to_free_buffers(void *page)
{
	struct buffer_head *bh = page_buffers(page);

	if (!bh)
		return true;
	page_of(page)->private = 0;			/* detach_page_private */
	page_of(page)->flags &= ~PG_private;
	free_buffer_head(bh);
	return true;
}
