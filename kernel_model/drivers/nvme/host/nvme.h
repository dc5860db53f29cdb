/* The NVMe host driver's shared part (drivers/nvme/host/nvme.h): the namespace, the
 * per-request state (the blk-mq pdu), core.c's command setup and completion. */
#ifndef _NVME_HOST_H
#define _NVME_HOST_H
#include "../../../include/blkdev.h"
#include "../../../include/uapi/nvme.h"

struct nvme_ns {
	unsigned int ns_id;
	int lba_shift;
	struct gendisk *disk;
	struct request_queue *queue;
};

/* nvme_request: the command and its status, at the head of the request's pdu */
struct nvme_request {
	struct nvme_rw_command cmd;
	u16 status;
	u8 retries;
	u8 flags;
};
static __always_inline struct nvme_request *nvme_req(struct request *req) { return blk_mq_rq_to_pdu(req); }

blk_status_t nvme_setup_cmd(struct nvme_ns *ns, struct request *req);
void nvme_complete_rq(struct request *req);
void nvme_cleanup_cmd(struct request *req);
blk_status_t nvme_error_status(u16 status);
#endif
