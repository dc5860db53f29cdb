/*
 * The entry of bios into the block layer (block/blk-core.c): `submit_bio` →
 * `submit_bio_noacct` (limits) → `submit_bio_noacct_nocheck` (`block:block_bio_queue`, and
 * the bio marked for `block_bio_complete`) → `__submit_bio` → the queue's `blk_mq_submit_bio`;
 * plugs (`blk_start_plug`, `blk_finish_plug` → `__blk_flush_plug`), status codes.
 */
#include "../include/blkdev.h"
#include "../include/trace/trace.h"

static const struct {
	int errno;
} blk_errors[] = {
	[BLK_STS_OK] = { 0 },
	[BLK_STS_NOTSUPP] = { -EOPNOTSUPP },
	[BLK_STS_RESOURCE] = { -ENOMEM },
	[BLK_STS_IOERR] = { -EIO },
};

int blk_status_to_errno(blk_status_t status)
{
	if (status >= ARRAY_SIZE(blk_errors) || (status && !blk_errors[status].errno))
		return -EIO;
	return blk_errors[status].errno;
}

static noinline void __submit_bio(struct bio *bio)
{
	blk_mq_submit_bio(bio);
}

static noinline void submit_bio_noacct_nocheck(struct bio *bio)
{
	if (!bio_flagged(bio, BIO_TRACE_COMPLETION)) {
		trace_block_bio_queue(bio);
		bio_set_flag(bio, BIO_TRACE_COMPLETION);
	}
	__submit_bio(bio);
}

noinline void submit_bio_noacct(struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;

	if (bio_op(bio) != REQ_OP_FLUSH &&
	    (bio->bi_iter.bi_sector >= bdev->bd_nr_sectors ||
	     bio_sectors(bio) > bdev->bd_nr_sectors - bio->bi_iter.bi_sector)) {
		bio->bi_status = BLK_STS_IOERR;
		bio_endio(bio);
		return;
	}
	/* a flush without data is a request of its own; a write that asks for one keeps it */
	submit_bio_noacct_nocheck(bio);
}

noinline void submit_bio(struct bio *bio)
{
	if (bio_op(bio) == REQ_OP_READ)
		task_io_account_read(bio->bi_iter.bi_size);	/* (the submitter's: a kworker's readahead is its own) */
	submit_bio_noacct(bio);
}

noinline void blk_start_plug(struct blk_plug *plug)
{
	struct task_struct *tsk = current;

	if (tsk->plug)	/* nested: the outermost plug flushes */
		return;
	plug->mq_list = NULL;
	plug->rq_count = 0;
	tsk->plug = plug;
}

static noinline void __blk_flush_plug(struct blk_plug *plug, bool from_schedule)
{
	if (plug->mq_list)
		blk_mq_flush_plug_list(plug, from_schedule);
}

noinline void blk_finish_plug(struct blk_plug *plug)
{
	if (plug == current->plug) {
		__blk_flush_plug(plug, false);
		current->plug = NULL;
	}
}

/* blktrace.c's: the request's operation and flags as the block events' rwbs */
notrace void blk_fill_rwbs(char *rwbs, blk_opf_t opf)
{
	int i = 0;

	if (opf & REQ_PREFLUSH)
		rwbs[i++] = 'F';
	switch (opf & REQ_OP_MASK) {
	case REQ_OP_WRITE:
		rwbs[i++] = 'W';
		break;
	case REQ_OP_DISCARD:
		rwbs[i++] = 'D';
		break;
	case REQ_OP_SECURE_ERASE:
		rwbs[i++] = 'D';
		rwbs[i++] = 'E';
		break;
	case REQ_OP_FLUSH:
		rwbs[i++] = 'F';
		break;
	case REQ_OP_READ:
		rwbs[i++] = 'R';
		break;
	default:
		rwbs[i++] = 'N';
	}
	if (opf & REQ_FUA)
		rwbs[i++] = 'F';
	if (opf & REQ_RAHEAD)
		rwbs[i++] = 'A';
	if (opf & REQ_SYNC)
		rwbs[i++] = 'S';
	if (opf & REQ_META)
		rwbs[i++] = 'M';
	rwbs[i] = '\0';
}
