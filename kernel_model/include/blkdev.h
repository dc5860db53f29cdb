/*
 * The block layer (include/linux/blk_types.h, bio.h, blkdev.h, blk-mq.h as 6.1 has them,
 * reduced to what this kernel's one disk uses): bios, requests with a tag each, one hardware
 * queue per disk, plugs; block/bio.c, blk-core.c, blk-mq.c implement them,
 * drivers/nvme/host/pci.c is the one driver.
 */
#ifndef _BLKDEV_H
#define _BLKDEV_H
#include "kernel.h"
#include "mm.h"
#include "wait.h"
#include "kdev_t.h"
#include "mutex.h"

struct inode;

typedef u64 sector_t;
typedef u32 blk_opf_t;
typedef u8 blk_status_t;

#define SECTOR_SHIFT 9
#define SECTOR_SIZE (1 << SECTOR_SHIFT)

/* blk_opf_t: the operation in the low 8 bits, then the flags (6.1's numbering) */
#define REQ_OP_BITS	8
#define REQ_OP_MASK	((1 << REQ_OP_BITS) - 1)
enum req_op {
	REQ_OP_READ = 0,
	REQ_OP_WRITE = 1,
	REQ_OP_FLUSH = 2,
	REQ_OP_DISCARD = 3,
	REQ_OP_SECURE_ERASE = 5,
};
enum req_flag_bits {
	__REQ_FAILFAST_DEV = REQ_OP_BITS,
	__REQ_FAILFAST_TRANSPORT,
	__REQ_FAILFAST_DRIVER,
	__REQ_SYNC,
	__REQ_META,
	__REQ_PRIO,
	__REQ_NOMERGE,
	__REQ_IDLE,
	__REQ_INTEGRITY,
	__REQ_FUA,
	__REQ_PREFLUSH,
	__REQ_RAHEAD,
	__REQ_BACKGROUND,
};
#define REQ_SYNC	(1U << __REQ_SYNC)
#define REQ_META	(1U << __REQ_META)
#define REQ_IDLE	(1U << __REQ_IDLE)
#define REQ_FUA		(1U << __REQ_FUA)
#define REQ_PREFLUSH	(1U << __REQ_PREFLUSH)
#define REQ_RAHEAD	(1U << __REQ_RAHEAD)
#define REQ_BACKGROUND	(1U << __REQ_BACKGROUND)
#define op_is_write(op)	((op) & 1)
#define op_is_flush(op)	((op) & (REQ_FUA | REQ_PREFLUSH))

#define BLK_STS_OK		0
#define BLK_STS_NOTSUPP		1
#define BLK_STS_IOERR		10
#define BLK_STS_RESOURCE	9
int blk_status_to_errno(blk_status_t status);

struct gendisk;
struct request_queue;
struct block_device {
	sector_t bd_start_sect;
	sector_t bd_nr_sectors;
	struct gendisk *bd_disk;
	struct request_queue *bd_queue;
	dev_t bd_dev;
	struct inode *bd_inode;		/* its page cache: the disk's blocks (metadata) */
};

struct bio_vec {
	struct page *bv_page;
	unsigned int bv_len;
	unsigned int bv_offset;
};
struct bvec_iter {
	sector_t bi_sector;		/* device address in 512-byte sectors */
	unsigned int bi_size;		/* residual I/O count */
};

struct bio;
typedef void (bio_end_io_t)(struct bio *);
#define BIO_MAX_INLINE_VECS 2
enum { BIO_TRACE_COMPLETION = 9 };	/* bi_flags bits (6.1's numbering) */
struct bio {
	struct bio *bi_next;		/* request queue link */
	struct block_device *bi_bdev;
	blk_opf_t bi_opf;
	unsigned short bi_flags;
	blk_status_t bi_status;
	struct bvec_iter bi_iter;
	bio_end_io_t *bi_end_io;
	void *bi_private;
	unsigned short bi_vcnt;
	unsigned short bi_max_vecs;
	struct bio_vec bi_inline_vecs[BIO_MAX_INLINE_VECS];
};

static __always_inline bool bio_flagged(struct bio *bio, unsigned int bit) { return bio->bi_flags & (1U << bit); }
static __always_inline void bio_set_flag(struct bio *bio, unsigned int bit) { bio->bi_flags |= 1U << bit; }
static __always_inline void bio_clear_flag(struct bio *bio, unsigned int bit) { bio->bi_flags &= ~(1U << bit); }
#define bio_dev(bio)		((bio)->bi_bdev ? (bio)->bi_bdev->bd_dev : 0)
#define bio_sectors(bio)	((bio)->bi_iter.bi_size >> 9)
#define bio_op(bio)		((bio)->bi_opf & REQ_OP_MASK)

struct bio *bio_alloc_bioset(struct block_device *bdev, unsigned short nr_vecs, blk_opf_t opf, gfp_t gfp_mask, void *bs);
/* from fs_bio_set (there are no bio_sets here) */
static __always_inline struct bio *bio_alloc(struct block_device *bdev, unsigned short nr_vecs, blk_opf_t opf,
					     gfp_t gfp)
{
	return bio_alloc_bioset(bdev, nr_vecs, opf, gfp, NULL);
}
void bio_put(struct bio *bio);
int bio_add_page(struct bio *bio, struct page *page, unsigned int len, unsigned int off);
void bio_endio(struct bio *bio);
void submit_bio(struct bio *bio);
void submit_bio_noacct(struct bio *bio);
int submit_bio_wait(struct bio *bio);
int blkdev_issue_flush(struct block_device *bdev);

/* requests */
enum mq_rq_state { MQ_RQ_IDLE = 0, MQ_RQ_IN_FLIGHT = 1, MQ_RQ_COMPLETE = 2 };
struct blk_mq_hw_ctx;
struct request {
	struct request_queue *q;
	struct blk_mq_hw_ctx *mq_hctx;
	blk_opf_t cmd_flags;
	unsigned int rq_flags;
	int tag;
	unsigned int __data_len;	/* total data len */
	sector_t __sector;		/* sector cursor */
	struct bio *bio;
	struct bio *biotail;
	struct request *rq_next;	/* in a plug's list */
	u64 start_time_ns;
	u64 io_start_time_ns;
	enum mq_rq_state state;
	/* the driver's part (tag_set->cmd_size bytes) follows: blk_mq_rq_to_pdu() */
};
static __always_inline sector_t blk_rq_pos(const struct request *rq) { return rq->__sector; }
static __always_inline unsigned int blk_rq_bytes(const struct request *rq) { return rq->__data_len; }
static __always_inline unsigned int blk_rq_sectors(const struct request *rq) { return blk_rq_bytes(rq) >> SECTOR_SHIFT; }
/* no passthrough requests here: every request addresses sectors */
#define blk_rq_trace_sector(rq)		blk_rq_pos(rq)
#define blk_rq_trace_nr_sectors(rq)	blk_rq_sectors(rq)
#define req_op(rq)			((rq)->cmd_flags & REQ_OP_MASK)
static __always_inline void *blk_mq_rq_to_pdu(struct request *rq) { return rq + 1; }
static __always_inline struct request *blk_mq_rq_from_pdu(void *pdu) { return (struct request *)pdu - 1; }

struct blk_mq_queue_data {
	struct request *rq;
	bool last;
};
struct blk_mq_ops {
	blk_status_t (*queue_rq)(struct blk_mq_hw_ctx *, const struct blk_mq_queue_data *);
	void (*commit_rqs)(struct blk_mq_hw_ctx *);
	void (*complete)(struct request *);
};

#define BLK_MQ_MAX_DEPTH 64
struct blk_mq_tag_set {
	const struct blk_mq_ops *ops;
	unsigned int queue_depth;	/* tags */
	unsigned int cmd_size;		/* the driver's per-request bytes */
	void *driver_data;
};
struct blk_mq_hw_ctx {
	struct request_queue *queue;
	void *driver_data;
	unsigned int queue_num;
	unsigned long dispatched;
};
struct request_queue {
	struct gendisk *disk;
	struct blk_mq_tag_set *tag_set;
	struct blk_mq_hw_ctx hctx;	/* one hardware queue */
	spinlock_t tag_lock;
	u64 tags_free;			/* a bit per free tag */
	struct request *static_rqs[BLK_MQ_MAX_DEPTH];
	struct wait_queue_head tag_wait;	/* submitters waiting for a tag */
	struct blk_trace *blk_trace;	/* blktrace's, while /sys/block/DEV/trace/enable is 1 (kernel/blktrace.c) */
	struct mutex debugfs_mutex;	/* serialises blk_trace's set-up and removal */
};

#define DISK_NAME_LEN 32
#define MAX_DISKS 4
extern struct gendisk *disks[MAX_DISKS];	/* block/genhd.c: those added, NULL after the last */
struct gendisk {
	int major;
	int first_minor;
	char disk_name[DISK_NAME_LEN];
	struct request_queue *queue;
	struct block_device *part0;
	void *private_data;
};
static __always_inline dev_t disk_devt(struct gendisk *disk) { return disk->part0->bd_dev; }
static __always_inline struct request_queue *bdev_get_queue(struct block_device *bdev) { return bdev->bd_queue; }
static __always_inline sector_t get_capacity(struct gendisk *disk) { return disk->part0->bd_nr_sectors; }

struct request_queue *blk_mq_init_queue(struct blk_mq_tag_set *set);
struct gendisk *blk_mq_alloc_disk(struct blk_mq_tag_set *set, void *queuedata);
int device_add_disk(struct gendisk *disk);
void set_capacity(struct gendisk *disk, sector_t sectors);
struct block_device *blkdev_get_by_dev(dev_t dev);
struct block_device *disk_bdev_by_devt(dev_t dev);
/* kernel/blktrace.c: a /sys/block/DEV/trace/ attribute shown or stored (HOST_REQ_BLK_TRACE_ATTR) */
long blk_trace_attr_request(u32 dev, u32 attr, bool store, u32 count);
void blk_mq_start_request(struct request *rq);
void blk_mq_end_request(struct request *rq, blk_status_t error);
bool blk_update_request(struct request *rq, blk_status_t error, unsigned int nr_bytes);
void blk_mq_complete_request(struct request *rq);
struct request *blk_mq_tag_to_rq(struct request_queue *q, unsigned int tag);
void blk_mq_submit_bio(struct bio *bio);
blk_status_t blk_mq_request_issue_directly(struct request *rq, bool last);
void blk_insert_flush(struct request *rq);
void blk_fill_rwbs(char *rwbs, blk_opf_t opf);

/* plugs (block/blk-core.c) */
#define BLK_MAX_REQUEST_COUNT 32
struct blk_plug {
	struct request *mq_list;	/* the plugged requests, newest first */
	unsigned short rq_count;
};
void blk_start_plug(struct blk_plug *plug);
void blk_finish_plug(struct blk_plug *plug);
void blk_mq_flush_plug_list(struct blk_plug *plug, bool from_schedule);

#define BLOCK_EXT_MAJOR 259

/* block/blk-ioc.c: a task's I/O context (its I/O priority) */
struct io_context {
	long refcount;
	int active_ref;
	unsigned short ioprio;
};
#define NUMA_NO_NODE	(-1)
struct io_context *alloc_io_context(gfp_t gfp_flags, int node);
void put_io_context(struct io_context *ioc);
void exit_io_context(struct task_struct *task);
int set_task_ioprio(struct task_struct *task, int ioprio);
void blk_ioc_init(void);
#define PFN_PHYS(pfn) ((u64)(pfn) << 12)
#endif
