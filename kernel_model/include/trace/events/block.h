/* block: bios and requests through the block layer (include/trace/events/block.h); blktrace's
 * probes are on those it registers on (TRACE_EVENT_BLK: include/trace/trace.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM block

#define RWBS_LEN	8

#define BLOCK_BIO_TEMPLATE(ev, probe) \
TRACE_EVENT_BLK(ev, probe, \
	TP_PROTO(struct bio *bio), \
	TP_ARGS(bio), \
	TP_STRUCT__entry( \
		__field( dev_t,		dev			) \
		__field( sector_t,	sector			) \
		__field( unsigned int,	nr_sector		) \
		__array( char,		rwbs,	RWBS_LEN	) \
		__array( char,		comm,	TASK_COMM_LEN	) \
	), \
	TP_fast_assign( \
		__entry->dev		= bio_dev(bio); \
		__entry->sector		= bio->bi_iter.bi_sector; \
		__entry->nr_sector	= bio_sectors(bio); \
		blk_fill_rwbs(__entry->rwbs, bio->bi_opf); \
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN); \
	), \
	TP_printk("%d,%d %s %llu + %u [%s]", \
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->rwbs, \
		  (unsigned long long)__entry->sector, \
		  __entry->nr_sector, __entry->comm) \
)
BLOCK_BIO_TEMPLATE(block_bio_queue, bio_queue)
BLOCK_BIO_TEMPLATE(block_getrq, getrq)

#define BLOCK_RQ_TEMPLATE(ev, probe) \
TRACE_EVENT_BLK(ev, probe, \
	TP_PROTO(struct request *rq), \
	TP_ARGS(rq), \
	TP_STRUCT__entry( \
		__field( dev_t,		dev			) \
		__field( sector_t,	sector			) \
		__field( unsigned int,	nr_sector		) \
		__field( unsigned int,	bytes			) \
		__array( char,		rwbs,	RWBS_LEN	) \
		__array( char,		comm,	TASK_COMM_LEN	) \
		__dynamic_array( char,	cmd,	1		) \
	), \
	TP_fast_assign( \
		__entry->dev	   = rq->q->disk ? disk_devt(rq->q->disk) : 0; \
		__entry->sector    = blk_rq_trace_sector(rq); \
		__entry->nr_sector = blk_rq_trace_nr_sectors(rq); \
		__entry->bytes     = blk_rq_bytes(rq); \
		blk_fill_rwbs(__entry->rwbs, rq->cmd_flags); \
		__get_str(cmd)[0] = '\0'; \
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN); \
	), \
	TP_printk("%d,%d %s %u (%s) %llu + %u [%s]", \
		  MAJOR(__entry->dev), MINOR(__entry->dev), \
		  __entry->rwbs, __entry->bytes, __get_str(cmd), \
		  (unsigned long long)__entry->sector, \
		  __entry->nr_sector, __entry->comm) \
)
BLOCK_RQ_TEMPLATE(block_rq_insert, rq_insert)
BLOCK_RQ_TEMPLATE(block_rq_issue, rq_issue)

TRACE_EVENT_BLK(block_rq_complete, rq_complete,
	TP_PROTO(struct request *rq, blk_status_t error, unsigned int nr_bytes),
	TP_ARGS(rq, error, nr_bytes),
	TP_STRUCT__entry(
		__field(  dev_t,	dev			)
		__field(  sector_t,	sector			)
		__field(  unsigned int,	nr_sector		)
		__field(  int	,	error			)
		__array(  char,		rwbs,	RWBS_LEN	)
		__dynamic_array( char,	cmd,	1		)
	),
	TP_fast_assign(
		__entry->dev	   = rq->q->disk ? disk_devt(rq->q->disk) : 0;
		__entry->sector    = blk_rq_pos(rq);
		__entry->nr_sector = nr_bytes >> 9;
		__entry->error     = blk_status_to_errno(error);
		blk_fill_rwbs(__entry->rwbs, rq->cmd_flags);
		__get_str(cmd)[0] = '\0';
	),
	TP_printk("%d,%d %s (%s) %llu + %u [%d]",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  __entry->rwbs, __get_str(cmd),
		  (unsigned long long)__entry->sector,
		  __entry->nr_sector, __entry->error)
)

TRACE_EVENT_BLK(block_bio_complete, bio_complete,
	TP_PROTO(struct request_queue *q, struct bio *bio),
	TP_ARGS(q, bio),
	TP_STRUCT__entry(
		__field( dev_t,		dev		)
		__field( sector_t,	sector		)
		__field( unsigned,	nr_sector	)
		__field( int,		error		)
		__array( char,		rwbs,	RWBS_LEN)
	),
	TP_fast_assign(
		__entry->dev		= bio_dev(bio);
		__entry->sector		= bio->bi_iter.bi_sector;
		__entry->nr_sector	= bio_sectors(bio);
		__entry->error		= blk_status_to_errno(bio->bi_status);
		blk_fill_rwbs(__entry->rwbs, bio->bi_opf);
	),
	TP_printk("%d,%d %s %llu + %u [%d]",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->rwbs,
		  (unsigned long long)__entry->sector,
		  __entry->nr_sector, __entry->error)
)

TRACE_EVENT_BLK(block_plug, plug,
	TP_PROTO(struct request_queue *q),
	TP_ARGS(q),
	TP_STRUCT__entry(
		__array( char,		comm,	TASK_COMM_LEN	)
	),
	TP_fast_assign(
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
	),
	TP_printk("[%s]", __entry->comm)
)

TRACE_EVENT_BLK(block_unplug, unplug,
	TP_PROTO(struct request_queue *q, unsigned int depth, bool explicit),
	TP_ARGS(q, depth, explicit),
	TP_STRUCT__entry(
		__field( int,		nr_rq			)
		__array( char,		comm,	TASK_COMM_LEN	)
	),
	TP_fast_assign(
		__entry->nr_rq = depth;
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
	),
	TP_printk("[%s] %d", __entry->comm, __entry->nr_rq)
)

/* DECLARE_EVENT_CLASS(block_buffer): a buffer head touched (touch_buffer: not modelled, so
 * block_touch_buffer never fires) or dirtied (mark_buffer_dirty) */
#define BLOCK_BUFFER_EVENT(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct buffer_head *bh), \
	TP_ARGS(bh), \
	TP_STRUCT__entry( \
		__field(  dev_t,	dev			) \
		__field(  sector_t,	sector			) \
		__field(  size_t,	size			) \
	), \
	TP_fast_assign( \
		__entry->dev		= bh->b_bdev ? bh->b_bdev->bd_dev : 0; \
		__entry->sector		= bh->b_blocknr; \
		__entry->size		= bh->b_size; \
	), \
	TP_printk("%d,%d sector=%llu size=%zu", \
		MAJOR(__entry->dev), MINOR(__entry->dev), \
		(unsigned long long)__entry->sector, __entry->size \
	) \
)
BLOCK_BUFFER_EVENT(block_touch_buffer)
BLOCK_BUFFER_EVENT(block_dirty_buffer)
#undef BLOCK_BUFFER_EVENT
