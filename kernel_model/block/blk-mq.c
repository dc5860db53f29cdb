/*
 * The multi-queue block layer (block/blk-mq.c, blk-mq-tag.c) for one hardware queue per
 * disk: a bio becomes a request (`blk_mq_submit_bio` → `blk_mq_get_new_requests`: a tag,
 * sleeping for one when all are in flight; `block:block_getrq`), plugged
 * (`blk_add_rq_to_plug`: `block:block_plug` for the first) or issued at once
 * (`blk_mq_try_issue_directly` → the driver's `queue_rq`, which calls
 * `blk_mq_start_request`: `block:block_rq_issue`).  A plug's requests go when it is flushed
 * (`blk_mq_flush_plug_list` → `blk_mq_plug_issue_direct`, the driver told of the last one).
 * The driver's completion: `blk_mq_complete_request` → its `complete` op →
 * `blk_mq_end_request` → `blk_update_request` (`block:block_rq_complete`, each bio ended)
 * and the tag freed.  No I/O scheduler (6.1's `none`), no merging, no requeue:
 * `block_rq_insert` stays silent as on 6.1 with an NVMe disk.
 */
#include "../include/blkdev.h"
#include "../include/slab.h"
#include "../include/timer.h"
#include "../include/trace/trace.h"

struct request_queue *blk_mq_init_queue(struct blk_mq_tag_set *set)
{
	struct request_queue *q = kzalloc(sizeof(*q), GFP_KERNEL);
	unsigned int i;

	if (!q || set->queue_depth > BLK_MQ_MAX_DEPTH)
		return NULL;
	q->tag_set = set;
	q->hctx.queue = q;
	q->hctx.driver_data = set->driver_data;
	q->tag_lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	init_waitqueue_head(&q->tag_wait);
	mutex_init(&q->debugfs_mutex);
	for (i = 0; i < set->queue_depth; i++) {
		struct request *rq = kzalloc(sizeof(*rq) + set->cmd_size, GFP_KERNEL);

		if (!rq)
			return NULL;
		rq->q = q;
		rq->mq_hctx = &q->hctx;
		rq->tag = i;
		q->static_rqs[i] = rq;
		q->tags_free |= 1UL << i;
	}
	return q;
}

notrace struct request *blk_mq_tag_to_rq(struct request_queue *q, unsigned int tag)
{
	return tag < q->tag_set->queue_depth ? q->static_rqs[tag] : NULL;
}

/* A free tag, or -1 (blk-mq-tag.c's __blk_mq_get_tag). */
static noinline int __blk_mq_get_tag(struct request_queue *q)
{
	unsigned long flags;
	int tag = -1;

	spin_lock_irqsave(&q->tag_lock, flags);
	if (q->tags_free) {
		tag = __builtin_ctzl(q->tags_free);
		q->tags_free &= ~(1UL << tag);
	}
	spin_unlock_irqrestore(&q->tag_lock, flags);
	return tag;
}

static noinline unsigned int blk_mq_get_tag(struct request_queue *q)
{
	int tag;

	/* all in flight: the plug's requests go first, then wait for a completion */
	if ((tag = __blk_mq_get_tag(q)) >= 0)
		return tag;
	if (current->plug)
		blk_mq_flush_plug_list(current->plug, false);
	wait_event(q->tag_wait, (tag = __blk_mq_get_tag(q)) >= 0);
	return tag;
}

static noinline void blk_mq_put_tag(struct request_queue *q, unsigned int tag)
{
	unsigned long flags;

	spin_lock_irqsave(&q->tag_lock, flags);
	q->tags_free |= 1UL << tag;
	spin_unlock_irqrestore(&q->tag_lock, flags);
	wake_up(&q->tag_wait);
}

static noinline struct request *__blk_mq_alloc_requests(struct request_queue *q, blk_opf_t opf)
{
	struct request *rq = q->static_rqs[blk_mq_get_tag(q)];

	rq->cmd_flags = opf;
	rq->rq_flags = 0;
	rq->bio = rq->biotail = NULL;
	rq->rq_next = NULL;
	rq->__data_len = 0;
	rq->__sector = (sector_t)-1;
	rq->start_time_ns = ktime_get();
	rq->io_start_time_ns = 0;
	rq->state = MQ_RQ_IDLE;
	return rq;
}

static notrace struct request *blk_mq_get_new_requests(struct request_queue *q, struct blk_plug *plug,
							 struct bio *bio)
{
	return __blk_mq_alloc_requests(q, bio->bi_opf);
}

static void blk_mq_bio_to_request(struct request *rq, struct bio *bio)
{
	rq->__sector = bio->bi_iter.bi_sector;
	rq->__data_len = bio->bi_iter.bi_size;
	rq->bio = rq->biotail = bio;
	bio->bi_next = NULL;
}

noinline void blk_mq_start_request(struct request *rq)
{
	trace_block_rq_issue(rq);
	rq->io_start_time_ns = ktime_get();
	WRITE_ONCE(rq->state, MQ_RQ_IN_FLIGHT);
}

/* Ends nr_bytes of the request's bios; true while some remain (none here: whole requests). */
noinline bool blk_update_request(struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct bio *bio = rq->bio;

	trace_block_rq_complete(rq, error, nr_bytes);
	while (bio) {
		struct bio *next = bio->bi_next;

		bio->bi_next = NULL;
		if (error)
			bio->bi_status = error;
		bio_endio(bio);	/* may free it */
		bio = next;
	}
	rq->bio = rq->biotail = NULL;
	rq->__data_len = 0;
	return false;
}

static noinline void __blk_mq_free_request(struct request *rq)
{
	WRITE_ONCE(rq->state, MQ_RQ_IDLE);
	blk_mq_put_tag(rq->q, rq->tag);
}

noinline void blk_mq_free_request(struct request *rq)
{
	__blk_mq_free_request(rq);
}

static inline void __blk_mq_end_request(struct request *rq, blk_status_t error)
{
	blk_mq_free_request(rq);
}

noinline void blk_mq_end_request(struct request *rq, blk_status_t error)
{
	blk_update_request(rq, error, blk_rq_bytes(rq));
	__blk_mq_end_request(rq, error);
}

/* The driver's completion: on the cpu its interrupt came to (no remote completion). */
noinline void blk_mq_complete_request(struct request *rq)
{
	WRITE_ONCE(rq->state, MQ_RQ_COMPLETE);
	rq->q->tag_set->ops->complete(rq);
}

static notrace blk_status_t __blk_mq_issue_directly(struct blk_mq_hw_ctx *hctx, struct request *rq, bool last)
{
	struct request_queue *q = rq->q;
	struct blk_mq_queue_data bd = { .rq = rq, .last = last };

	hctx->dispatched++;
	return q->tag_set->ops->queue_rq(hctx, &bd);
}

notrace blk_status_t blk_mq_request_issue_directly(struct request *rq, bool last)
{
	return __blk_mq_issue_directly(rq->mq_hctx, rq, last);
}

static noinline void blk_mq_try_issue_directly(struct blk_mq_hw_ctx *hctx, struct request *rq)
{
	blk_status_t ret = __blk_mq_issue_directly(hctx, rq, true);

	if (ret != BLK_STS_OK)
		blk_mq_end_request(rq, ret);
}

static noinline void blk_add_rq_to_plug(struct blk_plug *plug, struct request *rq)
{
	if (!plug->rq_count)
		trace_block_plug(rq->q);
	else if (plug->rq_count >= BLK_MAX_REQUEST_COUNT) {
		blk_mq_flush_plug_list(plug, false);
		trace_block_plug(rq->q);
	}
	rq->rq_next = plug->mq_list;
	plug->mq_list = rq;
	plug->rq_count++;
}

static noinline void blk_mq_commit_rqs(struct blk_mq_hw_ctx *hctx, int *queued, bool from_schedule)
{
	if (hctx->queue->tag_set->ops->commit_rqs) {
		trace_block_unplug(hctx->queue, *queued, !from_schedule);
		hctx->queue->tag_set->ops->commit_rqs(hctx);
	}
	*queued = 0;
}

/* The plug's requests to the driver, oldest first; it is told of the last. */
static notrace void blk_mq_plug_issue_direct(struct blk_plug *plug, bool from_schedule)
{
	struct request *list = NULL, *rq;
	struct blk_mq_hw_ctx *hctx = NULL;
	int queued = 0, errors = 0;

	while ((rq = plug->mq_list)) {	/* newest first: reverse it */
		plug->mq_list = rq->rq_next;
		rq->rq_next = list;
		list = rq;
	}
	while ((rq = list)) {
		blk_status_t ret;

		list = rq->rq_next;
		rq->rq_next = NULL;
		hctx = rq->mq_hctx;
		ret = blk_mq_request_issue_directly(rq, !list);
		if (ret == BLK_STS_OK) {
			queued++;
		} else {
			blk_mq_end_request(rq, ret);
			errors++;
		}
	}
	if (errors)
		blk_mq_commit_rqs(hctx, &queued, from_schedule);
}

noinline void blk_mq_flush_plug_list(struct blk_plug *plug, bool from_schedule)
{
	if (plug->rq_count == 0)
		return;
	plug->rq_count = 0;
	blk_mq_plug_issue_direct(plug, from_schedule);
}

noinline void blk_mq_submit_bio(struct bio *bio)
{
	struct request_queue *q = bdev_get_queue(bio->bi_bdev);
	struct blk_plug *plug = current->plug;
	struct request *rq;

	rq = blk_mq_get_new_requests(q, plug, bio);
	trace_block_getrq(bio);
	blk_mq_bio_to_request(rq, bio);
	if (op_is_flush(bio->bi_opf)) {
		blk_insert_flush(rq);
		return;
	}
	if (plug) {
		blk_add_rq_to_plug(plug, rq);
		return;
	}
	blk_mq_try_issue_directly(rq->mq_hctx, rq);
}
