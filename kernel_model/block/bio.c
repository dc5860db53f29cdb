/*
 * bios (block/bio.c): allocation with inline vectors, pages added, the end of a bio's I/O
 * (`bio_endio`: `block:block_bio_complete` for a bio the queue traced), and waiting for one
 * (`submit_bio_wait`, the caller in TASK_UNINTERRUPTIBLE until the completion interrupt).
 */
#include "../include/blkdev.h"
#include "../include/slab.h"
#include "../include/trace/trace.h"

/* A bio's fields for its first use (6.1's bio_init; table: its vectors, inline here) */
noinline void bio_init(struct bio *bio, struct block_device *bdev, struct bio_vec *table,
		       unsigned short max_vecs, blk_opf_t opf)
{
	bio->bi_next = NULL;
	bio->bi_bdev = bdev;
	bio->bi_opf = opf;
	bio->bi_flags = 0;
	bio->bi_status = 0;
	bio->bi_iter.bi_sector = 0;
	bio->bi_iter.bi_size = 0;
	bio->bi_end_io = NULL;
	bio->bi_private = NULL;
	bio->bi_vcnt = 0;
	bio->bi_max_vecs = max_vecs;
}

/* A bio with room for nr_vecs segments, from the slab (6.1: the bio_set's mempool; no bio_set
 * here, and only inline vectors) */
noinline struct bio *bio_alloc_bioset(struct block_device *bdev, unsigned short nr_vecs, blk_opf_t opf,
				      gfp_t gfp_mask, void *bs)
{
	struct bio *bio;

	if (nr_vecs > BIO_MAX_INLINE_VECS)
		return NULL;
	bio = kmalloc(sizeof(*bio), gfp_mask);
	if (!bio)
		return NULL;
	bio_init(bio, bdev, bio->bi_inline_vecs, BIO_MAX_INLINE_VECS, opf);
	return bio;
}

static noinline void bio_free(struct bio *bio)
{
	kfree(bio);	/* (no cgroup, integrity or crypt context: bio_uninit has nothing to undo) */
}

noinline void bio_put(struct bio *bio)
{
	bio_free(bio);
}

/* the range continues the segment in physical memory */
static inline bool page_is_mergeable(const struct bio_vec *bv, struct page *page, unsigned int len,
				     unsigned int off, bool *same_page)
{
	size_t bv_end = bv->bv_offset + bv->bv_len;
	u64 vec_end_addr = ((u64)page_to_pfn(bv->bv_page) << 12) + bv_end - 1;	/* page_to_phys() */
	u64 page_addr = (u64)page_to_pfn(page) << 12;

	if (vec_end_addr + 1 != page_addr + off)
		return false;
	*same_page = ((vec_end_addr & ~0xfffUL) == page_addr);
	if (*same_page)
		return true;
	return (bv->bv_page + bv_end / PAGE_SIZE) == (page + off / PAGE_SIZE);
}

/* The page's range added to the bio's last segment when it continues it in memory */
noinline bool __bio_try_merge_page(struct bio *bio, struct page *page, unsigned int len, unsigned int off,
				   bool *same_page)
{
	if (bio->bi_vcnt > 0) {
		struct bio_vec *bv = &bio->bi_inline_vecs[bio->bi_vcnt - 1];

		if (page_is_mergeable(bv, page, len, off, same_page)) {
			if (bio->bi_iter.bi_size > 0xffffffffU - len) {
				*same_page = false;
				return false;
			}
			bv->bv_len += len;
			bio->bi_iter.bi_size += len;
			return true;
		}
	}
	return false;
}

noinline void __bio_add_page(struct bio *bio, struct page *page, unsigned int len, unsigned int off)
{
	struct bio_vec *bv = &bio->bi_inline_vecs[bio->bi_vcnt];

	bv->bv_page = page;
	bv->bv_len = len;
	bv->bv_offset = off;
	bio->bi_iter.bi_size += len;
	bio->bi_vcnt++;
}

/* The page's [off, off + len) as the bio's next segment: len, or 0 when it is full. */
noinline int bio_add_page(struct bio *bio, struct page *page, unsigned int len, unsigned int off)
{
	bool same_page = false;

	if (!__bio_try_merge_page(bio, page, len, off, &same_page)) {
		if (bio->bi_vcnt >= bio->bi_max_vecs)	/* bio_full() */
			return 0;
		__bio_add_page(bio, page, len, off);
	}
	return len;
}

noinline void bio_endio(struct bio *bio)
{
	if (bio->bi_bdev && bio_flagged(bio, BIO_TRACE_COMPLETION)) {
		trace_block_bio_complete(bdev_get_queue(bio->bi_bdev), bio);
		bio_clear_flag(bio, BIO_TRACE_COMPLETION);
	}
	if (bio->bi_end_io)
		bio->bi_end_io(bio);
}

struct bio_wait {
	struct wait_queue_head wait;
	int done;
};

static void submit_bio_wait_endio(struct bio *bio)
{
	struct bio_wait *w = bio->bi_private;

	WRITE_ONCE(w->done, 1);
	wake_up(&w->wait);
}

/* Submit and wait for the I/O: its errno. */
noinline int submit_bio_wait(struct bio *bio)
{
	struct bio_wait w = { .done = 0 };

	init_waitqueue_head(&w.wait);
	bio->bi_private = &w;
	bio->bi_end_io = submit_bio_wait_endio;
	bio->bi_opf |= REQ_SYNC;
	submit_bio(bio);
	wait_event(w.wait, READ_ONCE(w.done));
	return blk_status_to_errno(bio->bi_status);
}
