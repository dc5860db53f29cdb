/*
 * bios (block/bio.c): allocation with inline vectors, pages added, the end of a bio's I/O
 * (`bio_endio`: `block:block_bio_complete` for a bio the queue traced), and waiting for one
 * (`submit_bio_wait`, the caller in TASK_UNINTERRUPTIBLE until the completion interrupt).
 */
#include "../include/blkdev.h"
#include "../include/slab.h"
#include "../include/trace/trace.h"

notrace struct bio *bio_alloc(struct block_device *bdev, unsigned short nr_vecs, blk_opf_t opf, gfp_t gfp)
{
	struct bio *bio;

	if (nr_vecs > BIO_MAX_INLINE_VECS)
		return NULL;
	bio = kzalloc(sizeof(*bio), gfp);
	if (!bio)
		return NULL;
	bio->bi_bdev = bdev;
	bio->bi_opf = opf;
	bio->bi_max_vecs = BIO_MAX_INLINE_VECS;
	return bio;
}

noinline void bio_put(struct bio *bio)
{
	kfree(bio);
}

/* The page's [off, off + len) as the bio's next segment: len, or 0 when it is full. */
noinline int bio_add_page(struct bio *bio, struct page *page, unsigned int len, unsigned int off)
{
	struct bio_vec *bv;

	if (bio->bi_vcnt >= bio->bi_max_vecs)
		return 0;
	bv = &bio->bi_inline_vecs[bio->bi_vcnt++];
	bv->bv_page = page;
	bv->bv_len = len;
	bv->bv_offset = off;
	bio->bi_iter.bi_size += len;
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
