/*
 * The NVMe-like disk the machine emulates (src/tracefs_sim/machine/native/nvme.c) and the
 * kernel's driver (kernel_model/drivers/nvme/host/pci.c) share: one I/O queue pair in guest
 * memory, 64-byte submission entries and 16-byte completion entries as NVMe 1.4 lays them out
 * (include/linux/nvme.h: struct nvme_rw_command, struct nvme_completion, the phase bit), and
 * the controller's registers with the queue's doorbells.  The registers are a block of the
 * kernel's memory (`nvme_bar`) the machine reads between slices, as it does the HPET's: a
 * write to sq_tail is the doorbell.  The device fetches the new entries, moves the data
 * between the disk and the pages the PRPs name, and completes each command after its
 * service time (NVME_CMD_NS + NVME_BYTE_PS per byte, one command at a time), posting the
 * completion and raising its interrupt (MSI: `vector` on `cpu`).
 * Plain C types only: this header is built into the kernel and into the machine.
 */
#ifndef _UAPI_NVME_H
#define _UAPI_NVME_H

enum nvme_opcode { nvme_cmd_flush = 0x00, nvme_cmd_write = 0x01, nvme_cmd_read = 0x02 };

/* NVMe status codes (the field's bits 1..15; bit 0 is the phase) */
#define NVME_SC_SUCCESS		0x0
#define NVME_SC_INVALID_OPCODE	0x1
#define NVME_SC_INVALID_FIELD	0x2
#define NVME_SC_DATA_XFER_ERROR	0x4
#define NVME_SC_LBA_RANGE	0x80

#define NVME_LBA_SHIFT	9	/* 512-byte logical blocks */
#define NVME_QUEUE_DEPTH 64
#define NVME_MAX_XFER	8192	/* PRP1 + PRP2: at most two pages a command */
#define NVME_CMD_NS	20000	/* a command's fixed service time */
#define NVME_BYTE_PS	500	/* and per byte: 2 GB/s */

struct nvme_rw_command {	/* 64 bytes */
	unsigned char opcode;
	unsigned char flags;
	unsigned short command_id;
	unsigned int nsid;
	unsigned int cdw2, cdw3;
	unsigned long long metadata;
	unsigned long long prp1;	/* physical address of the first page */
	unsigned long long prp2;	/* of the second (the transfer crosses a page) */
	unsigned long long slba;	/* cdw10-11 */
	unsigned short length;		/* cdw12: blocks - 1 */
	unsigned short control;
	unsigned int dsmgmt;
	unsigned int reftag;
	unsigned short apptag, appmask;
};

struct nvme_completion {	/* 16 bytes */
	unsigned long long result;
	unsigned short sq_head;
	unsigned short sq_id;
	unsigned short command_id;
	unsigned short status;		/* bit 0: phase */
};

/* The controller's registers and the queue pair's doorbells. */
struct nvme_bar {
	/* written by the driver */
	unsigned long long sq_addr;	/* physical: NVME_QUEUE_DEPTH submission entries */
	unsigned long long cq_addr;	/* physical: NVME_QUEUE_DEPTH completion entries */
	unsigned int enable;		/* CC.EN: the queues are set */
	unsigned int sq_tail;		/* the submission queue's tail doorbell */
	unsigned int cq_head;		/* the completion queue's head doorbell */
	unsigned int pad;
	unsigned long long cpu;		/* the MSI's destination */
	unsigned long long vector;
	/* written by the machine */
	unsigned long long nsze;	/* namespace size in logical blocks (before boot) */
	unsigned int ready;		/* CSTS.RDY */
	unsigned int sq_head;		/* entries fetched */
	unsigned int cq_tail;		/* where the next completion goes */
	unsigned int cq_phase;		/* its phase bit */
	unsigned long long next_event_ns;	/* the next completion due; ~0: none */
};

_Static_assert(sizeof(struct nvme_rw_command) == 64 && sizeof(struct nvme_completion) == 16 &&
	       __builtin_offsetof(struct nvme_bar, nsze) == 48 && sizeof(struct nvme_bar) == 80,
	       "nvme layout");
#endif
