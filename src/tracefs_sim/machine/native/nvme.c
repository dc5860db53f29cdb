/*
 * The NVMe-like disk (kernel_model/include/uapi/nvme.h): its storage is host memory the
 * machine gives it (machine/nvme.py), its registers a block of guest RAM (`nvme_bar`).
 * nvme_poll() runs between slices, as the HPET's comparator does (runloop.c, and
 * runloop.py on a seeded machine): it fetches the entries the driver's doorbell announced,
 * moves their data, and posts each completion when its service time has passed; the caller
 * raises the returned vector on the returned cpu (one interrupt for the completions a poll
 * posts, as a coalescing controller).  Commands are served one at a time in order, so the
 * completions come in submission order.
 *
 * No Unicorn header or library: see slice.c.
 */
#include <stdint.h>
#include <string.h>

#include "nvme.h"

#define PAGE_SIZE 4096
#define NEVER (~(uint64_t)0)

struct nvme_inflight {
	uint64_t due;
	uint16_t command_id;
	uint16_t status;
	uint16_t sq_head;	/* the fetch position after it: the completion reports it */
	uint16_t pad;
};

/* machine/nvme.py's NvmeState */
struct nvme_dev {
	uint8_t *disk;
	uint64_t disk_size;
	uint64_t bar_pa;
	uint64_t busy_until;	/* the time the last fetched command completes */
	uint32_t first, count;	/* the in-flight commands, a ring in submission order */
	uint64_t commands;	/* served since boot (reads, writes, flushes) */
	uint64_t bytes;
	struct nvme_inflight inflight[NVME_QUEUE_DEPTH];
};

static int in_ram(uint64_t pa, uint64_t len, uint64_t ram_size)
{
	return pa <= ram_size && len <= ram_size - pa;
}

/* Move one command's data; its NVMe status. */
static uint16_t nvme_execute(struct nvme_dev *d, const struct nvme_rw_command *c, uint8_t *ram,
			     uint64_t ram_size, uint64_t *len)
{
	uint64_t bytes, off, first;
	uint8_t *dev;

	*len = 0;
	if (c->opcode == nvme_cmd_flush)
		return NVME_SC_SUCCESS;
	if (c->opcode != nvme_cmd_write && c->opcode != nvme_cmd_read)
		return NVME_SC_INVALID_OPCODE;
	bytes = ((uint64_t)c->length + 1) << NVME_LBA_SHIFT;
	off = c->slba << NVME_LBA_SHIFT;
	if (c->slba >= d->disk_size >> NVME_LBA_SHIFT || bytes > d->disk_size - off)
		return NVME_SC_LBA_RANGE;
	first = PAGE_SIZE - (c->prp1 & (PAGE_SIZE - 1));
	if (first > bytes)
		first = bytes;
	if (bytes > NVME_MAX_XFER || (bytes > first && (c->prp2 & (PAGE_SIZE - 1))) ||
	    bytes - first > PAGE_SIZE)
		return NVME_SC_INVALID_FIELD;
	if (!in_ram(c->prp1, first, ram_size) || (bytes > first && !in_ram(c->prp2, bytes - first, ram_size)))
		return NVME_SC_DATA_XFER_ERROR;
	dev = d->disk + off;
	if (c->opcode == nvme_cmd_write) {
		memcpy(dev, ram + c->prp1, first);
		memcpy(dev + first, ram + c->prp2, bytes - first);
	} else {
		memcpy(ram + c->prp1, dev, first);
		memcpy(ram + c->prp2, dev + first, bytes - first);
	}
	*len = bytes;
	return NVME_SC_SUCCESS;
}

/* Fetch what the doorbell announced, post what is due; the vector to raise (0: none). */
uint32_t nvme_poll(struct nvme_dev *d, uint8_t *ram, uint64_t ram_size, uint64_t now, uint32_t *cpu)
{
	struct nvme_bar *bar;
	uint32_t posted = 0;

	if (!d || !in_ram(d->bar_pa, sizeof(*bar), ram_size))
		return 0;
	bar = (struct nvme_bar *)(ram + d->bar_pa);
	if (!bar->enable) {
		bar->ready = 0;
		return 0;
	}
	if (!bar->ready) {	/* enabled: the queues start empty */
		bar->ready = 1;
		bar->sq_head = bar->cq_tail = 0;
		bar->cq_phase = 1;
		d->count = 0;
		d->busy_until = now;
	}
	while (bar->sq_head != bar->sq_tail % NVME_QUEUE_DEPTH && d->count < NVME_QUEUE_DEPTH &&
	       in_ram(bar->sq_addr, NVME_QUEUE_DEPTH * sizeof(struct nvme_rw_command), ram_size)) {
		struct nvme_rw_command c;
		struct nvme_inflight *f = &d->inflight[(d->first + d->count) % NVME_QUEUE_DEPTH];
		uint64_t len;

		memcpy(&c, ram + bar->sq_addr + bar->sq_head * sizeof(c), sizeof(c));
		bar->sq_head = (bar->sq_head + 1) % NVME_QUEUE_DEPTH;
		f->status = nvme_execute(d, &c, ram, ram_size, &len);
		f->command_id = c.command_id;
		f->sq_head = bar->sq_head;
		if (d->busy_until < now)
			d->busy_until = now;
		d->busy_until += NVME_CMD_NS + len * NVME_BYTE_PS / 1000;
		f->due = d->busy_until;
		d->count++;
		d->commands++;
		d->bytes += len;
	}
	while (d->count && d->inflight[d->first].due <= now &&
	       in_ram(bar->cq_addr, NVME_QUEUE_DEPTH * sizeof(struct nvme_completion), ram_size)) {
		struct nvme_inflight *f = &d->inflight[d->first];
		struct nvme_completion cqe = {
			.sq_head = f->sq_head, .sq_id = 1, .command_id = f->command_id,
			.status = (uint16_t)(f->status << 1 | bar->cq_phase),
		};

		if ((bar->cq_tail + 1) % NVME_QUEUE_DEPTH == bar->cq_head % NVME_QUEUE_DEPTH)
			break;	/* the completion queue is full: the driver has not consumed it yet */
		memcpy(ram + bar->cq_addr + bar->cq_tail * sizeof(cqe), &cqe, sizeof(cqe));
		if (++bar->cq_tail == NVME_QUEUE_DEPTH) {
			bar->cq_tail = 0;
			bar->cq_phase ^= 1;
		}
		d->first = (d->first + 1) % NVME_QUEUE_DEPTH;
		d->count--;
		posted++;
	}
	bar->next_event_ns = d->count ? d->inflight[d->first].due : NEVER;
	if (!posted || bar->vector < 0x20 || bar->vector > 255)
		return 0;
	*cpu = (uint32_t)bar->cpu;
	return (uint32_t)bar->vector;
}
