/*
 * Cache flushes (block/blk-flush.c): `blkdev_issue_flush` sends an empty write with
 * REQ_PREFLUSH (rwbs "FWS" as it queues); `blk_insert_flush` makes a data-less one the
 * device's flush request (REQ_OP_FLUSH | REQ_PREFLUSH: "FF"), issued at once; a write with
 * REQ_FUA goes as it is (the NVMe disk honours FUA).  No data write carries a PREFLUSH here.
 */
#include "../include/blkdev.h"
#include "../include/slab.h"

noinline void blk_insert_flush(struct request *rq)
{
	if (!blk_rq_bytes(rq))
		rq->cmd_flags = REQ_OP_FLUSH | REQ_PREFLUSH;
	if (blk_mq_request_issue_directly(rq, true) != BLK_STS_OK)
		blk_mq_end_request(rq, BLK_STS_IOERR);
}

noinline int blkdev_issue_flush(struct block_device *bdev)
{
	struct bio *bio = bio_alloc(bdev, 0, REQ_OP_WRITE | REQ_PREFLUSH, GFP_KERNEL);
	int err;

	if (!bio)
		return -ENOMEM;
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}
