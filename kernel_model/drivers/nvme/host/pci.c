/*
 * The NVMe PCI driver (drivers/nvme/host/pci.c) for the machine's disk
 * (include/uapi/nvme.h): one I/O queue pair (`nvme0q1`, its interrupt an MSI on cpu 0), the
 * namespace `nvme0n1` (259:0).  `nvme_queue_rq`: the command set up (core.c), the request
 * started (`block_rq_issue`), its pages as PRPs, the entry copied into the submission queue,
 * the doorbell written for the last of a batch (`nvme_commit_rqs` for the rest).  The
 * interrupt: `nvme_irq` → `nvme_poll_cq` → `nvme_handle_cqe` for each new completion (its
 * phase bit), each request completed (`blk_mq_complete_request` → `nvme_pci_complete_rq`
 * → `nvme_complete_rq`), the completion queue's head doorbell written.
 */
#include "nvme.h"
#include "../../../include/interrupt.h"
#include "../../../include/slab.h"

#define NVME_IRQ 24

struct nvme_bar nvme_bar __section(".data");

struct nvme_queue {
	struct nvme_dev *dev;
	spinlock_t sq_lock;
	struct nvme_rw_command *sq_cmds;
	volatile struct nvme_completion *cqes;
	u16 q_depth;
	u16 sq_tail;
	u16 last_sq_tail;
	u16 cq_head;
	u16 qid;
	u8 cq_phase;
	unsigned int cq_vector;
	struct blk_mq_tags *tags;
};

struct nvme_dev {
	struct nvme_queue queue;
	struct blk_mq_tag_set tagset;
	struct nvme_ns ns;
	struct nvme_bar *bar;
};

static struct nvme_dev nvme_dev0;

static __always_inline void nvme_write_sq_db(struct nvme_queue *nvmeq, bool write_sq)
{
	if (!write_sq)
		return;
	barrier();
	WRITE_ONCE(nvmeq->dev->bar->sq_tail, nvmeq->sq_tail);
	nvmeq->last_sq_tail = nvmeq->sq_tail;
}

static __always_inline void nvme_sq_copy_cmd(struct nvme_queue *nvmeq, struct nvme_rw_command *cmd)
{
	memcpy(&nvmeq->sq_cmds[nvmeq->sq_tail], cmd, sizeof(*cmd));
	if (++nvmeq->sq_tail == nvmeq->q_depth)
		nvmeq->sq_tail = 0;
}

static noinline void nvme_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct nvme_queue *nvmeq = hctx->driver_data;

	spin_lock(&nvmeq->sq_lock);
	if (nvmeq->sq_tail != nvmeq->last_sq_tail)
		nvme_write_sq_db(nvmeq, true);
	spin_unlock(&nvmeq->sq_lock);
}

/* The request's pages as PRP1 (and PRP2: a second page); whole pages or one piece of one. */
static noinline blk_status_t nvme_map_data(struct nvme_dev *dev, struct request *req, struct nvme_rw_command *cmnd)
{
	struct bio *bio = req->bio;
	struct bio_vec *bv = bio->bi_inline_vecs;

	if (bio->bi_next || bio->bi_vcnt > 2 || !bio->bi_vcnt ||
	    (bio->bi_vcnt == 2 && (bv[0].bv_offset + bv[0].bv_len != PAGE_SIZE || bv[1].bv_offset)))
		return BLK_STS_IOERR;
	cmnd->prp1 = PFN_PHYS(page_to_pfn(bv[0].bv_page)) + bv[0].bv_offset;
	if (bio->bi_vcnt == 2)
		cmnd->prp2 = PFN_PHYS(page_to_pfn(bv[1].bv_page));
	return BLK_STS_OK;
}

static noinline blk_status_t nvme_prep_rq(struct nvme_dev *dev, struct request *req)
{
	blk_status_t ret = nvme_setup_cmd(&dev->ns, req);

	if (ret)
		return ret;
	if (blk_rq_bytes(req)) {
		ret = nvme_map_data(dev, req, &nvme_req(req)->cmd);
		if (ret) {
			nvme_cleanup_cmd(req);
			return ret;
		}
	}
	blk_mq_start_request(req);
	return BLK_STS_OK;
}

static noinline blk_status_t nvme_queue_rq(struct blk_mq_hw_ctx *hctx, const struct blk_mq_queue_data *bd)
{
	struct nvme_queue *nvmeq = hctx->driver_data;
	struct request *req = bd->rq;
	blk_status_t ret;

	ret = nvme_prep_rq(nvmeq->dev, req);
	if (ret)
		return ret;
	spin_lock(&nvmeq->sq_lock);
	nvme_sq_copy_cmd(nvmeq, &nvme_req(req)->cmd);
	nvme_write_sq_db(nvmeq, bd->last);
	spin_unlock(&nvmeq->sq_lock);
	return BLK_STS_OK;
}

static noinline void nvme_pci_unmap_rq(struct request *req)
{
}

static noinline void nvme_pci_complete_rq(struct request *req)
{
	nvme_pci_unmap_rq(req);
	nvme_complete_rq(req);
}

static __always_inline bool nvme_cqe_pending(struct nvme_queue *nvmeq)
{
	return (READ_ONCE(nvmeq->cqes[nvmeq->cq_head].status) & 1) == nvmeq->cq_phase;
}

static __always_inline void nvme_ring_cq_doorbell(struct nvme_queue *nvmeq)
{
	WRITE_ONCE(nvmeq->dev->bar->cq_head, nvmeq->cq_head);
}

static __always_inline void nvme_update_cq_head(struct nvme_queue *nvmeq)
{
	if (++nvmeq->cq_head == nvmeq->q_depth) {
		nvmeq->cq_head = 0;
		nvmeq->cq_phase ^= 1;
	}
}

static inline void nvme_handle_cqe(struct nvme_queue *nvmeq, u16 idx)
{
	volatile struct nvme_completion *cqe = &nvmeq->cqes[idx];
	struct request *req = blk_mq_tag_to_rq(nvmeq->dev->ns.queue, cqe->command_id);

	if (!req || req->state != MQ_RQ_IN_FLIGHT) {
		printk(KERN_WARNING "nvme nvme0: invalid id %d completed on queue %d\n", cqe->command_id, nvmeq->qid);
		return;
	}
	nvme_req(req)->status = cqe->status >> 1;
	blk_mq_complete_request(req);
}

static inline bool nvme_poll_cq(struct nvme_queue *nvmeq)
{
	bool found = false;

	while (nvme_cqe_pending(nvmeq)) {
		found = true;
		barrier();	/* rmb */
		nvme_handle_cqe(nvmeq, nvmeq->cq_head);
		nvme_update_cq_head(nvmeq);
	}
	if (found)
		nvme_ring_cq_doorbell(nvmeq);
	return found;
}

static noinline irqreturn_t nvme_irq(int irq, void *data)
{
	struct nvme_queue *nvmeq = data;

	return nvme_poll_cq(nvmeq) ? IRQ_HANDLED : IRQ_NONE;
}

static const struct blk_mq_ops nvme_mq_ops = {
	.queue_rq = nvme_queue_rq,
	.commit_rqs = nvme_commit_rqs,
	.complete = nvme_pci_complete_rq,
};

/* The controller enabled with its queue pair, its interrupt requested, the namespace's disk added. */
static noinline int nvme_probe(struct nvme_dev *dev)
{
	struct nvme_queue *nvmeq = &dev->queue;
	struct nvme_bar *bar = dev->bar = &nvme_bar;
	struct gendisk *disk;

	if (!bar->nsze)
		return -ENODEV;	/* the machine has no disk */
	nvmeq->dev = dev;
	nvmeq->qid = 1;
	nvmeq->q_depth = NVME_QUEUE_DEPTH;
	nvmeq->sq_lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	nvmeq->sq_cmds = alloc_page_zeroed();
	nvmeq->cqes = alloc_page_zeroed();
	if (!nvmeq->sq_cmds || !nvmeq->cqes)
		return -ENOMEM;
	nvmeq->cq_phase = 1;
	nvmeq->cq_vector = assign_irq_vector(NVME_IRQ, 0);
	if (!nvmeq->cq_vector)
		return -ENOSPC;
	irq_set_handler(NVME_IRQ, handle_edge_irq, "edge");
	request_irq(NVME_IRQ, nvme_irq, 0, "nvme0q1", nvmeq);
	bar->sq_addr = __pa(nvmeq->sq_cmds);
	bar->cq_addr = __pa((void *)nvmeq->cqes);
	bar->cpu = 0;
	bar->vector = nvmeq->cq_vector;
	barrier();
	WRITE_ONCE(bar->enable, 1);
	while (!READ_ONCE(bar->ready))	/* nvme_wait_ready: the machine sees CC.EN between slices */
		cpu_relax();

	dev->tagset.ops = &nvme_mq_ops;
	dev->tagset.queue_depth = NVME_QUEUE_DEPTH - 1;	/* a full queue keeps one entry free */
	dev->tagset.cmd_size = sizeof(struct nvme_request);
	dev->tagset.driver_data = nvmeq;
	dev->ns.ns_id = 1;
	dev->ns.lba_shift = NVME_LBA_SHIFT;
	disk = blk_mq_alloc_disk(&dev->tagset, &dev->ns);
	if (!disk)
		return -ENOMEM;
	dev->ns.disk = disk;
	dev->ns.queue = disk->queue;
	scnprintf(disk->disk_name, DISK_NAME_LEN, "nvme0n%d", dev->ns.ns_id);
	set_capacity(disk, bar->nsze << (NVME_LBA_SHIFT - SECTOR_SHIFT));
	return device_add_disk(disk);
}

void __init nvme_init(void)
{
	int err = nvme_probe(&nvme_dev0);

	if (err && err != -ENODEV)
		printk(KERN_ERR "nvme nvme0: probe failed: %d\n", err);
}
