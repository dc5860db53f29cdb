/*
 * The NVMe driver's core (drivers/nvme/host/core.c): a block request as an NVMe command
 * (`nvme_setup_cmd` → `nvme_setup_rw` / `nvme_setup_flush`, the request's tag as the command
 * id), and its end (`nvme_complete_rq` → `nvme_end_req` → `blk_mq_end_request`).
 */
#include "nvme.h"

static inline blk_status_t nvme_setup_rw(struct nvme_ns *ns, struct request *req, struct nvme_rw_command *cmnd,
					  u8 op)
{
	cmnd->opcode = op;
	cmnd->nsid = ns->ns_id;
	cmnd->slba = blk_rq_pos(req) >> (ns->lba_shift - SECTOR_SHIFT);
	cmnd->length = (blk_rq_bytes(req) >> ns->lba_shift) - 1;
	if (req->cmd_flags & REQ_FUA)
		cmnd->control |= 1 << 14;	/* NVME_RW_FUA */
	return BLK_STS_OK;
}

static __always_inline void nvme_setup_flush(struct nvme_ns *ns, struct nvme_rw_command *cmnd)
{
	cmnd->opcode = nvme_cmd_flush;
	cmnd->nsid = ns->ns_id;
}

noinline blk_status_t nvme_setup_cmd(struct nvme_ns *ns, struct request *req)
{
	struct nvme_rw_command *cmd = &nvme_req(req)->cmd;
	blk_status_t ret;

	memset(cmd, 0, sizeof(*cmd));
	nvme_req(req)->status = 0;
	nvme_req(req)->retries = 0;
	switch (req_op(req)) {
	case REQ_OP_FLUSH:
		nvme_setup_flush(ns, cmd);
		ret = BLK_STS_OK;
		break;
	case REQ_OP_READ:
		ret = nvme_setup_rw(ns, req, cmd, nvme_cmd_read);
		break;
	case REQ_OP_WRITE:
		ret = nvme_setup_rw(ns, req, cmd, nvme_cmd_write);
		break;
	default:
		return BLK_STS_IOERR;
	}
	cmd->command_id = req->tag;
	return ret;
}

noinline void nvme_cleanup_cmd(struct request *req)
{
}

notrace blk_status_t nvme_error_status(u16 status)
{
	switch (status & 0x7ff) {
	case NVME_SC_SUCCESS:
		return BLK_STS_OK;
	case NVME_SC_INVALID_OPCODE:
		return BLK_STS_NOTSUPP;
	default:
		return BLK_STS_IOERR;
	}
}

static __always_inline void nvme_end_req(struct request *req)
{
	blk_mq_end_request(req, nvme_error_status(nvme_req(req)->status));
}

noinline void nvme_complete_rq(struct request *req)
{
	nvme_end_req(req);
}
