/*
 * The blktrace record and its action bits (include/uapi/linux/blktrace_api.h of 6.1): what the
 * blk tracer writes as a TRACE_BLK entry (the trace_entry header over magic and sequence), and
 * what the host's formatter (src/tracefs_sim/trace/blk_output.py) reads back.
 */
#ifndef _UAPI_BLKTRACE_API_H
#define _UAPI_BLKTRACE_API_H

enum blktrace_cat {
	BLK_TC_READ	= 1 << 0,
	BLK_TC_WRITE	= 1 << 1,
	BLK_TC_FLUSH	= 1 << 2,
	BLK_TC_SYNC	= 1 << 3,
	BLK_TC_QUEUE	= 1 << 4,
	BLK_TC_REQUEUE	= 1 << 5,
	BLK_TC_ISSUE	= 1 << 6,
	BLK_TC_COMPLETE	= 1 << 7,
	BLK_TC_FS	= 1 << 8,
	BLK_TC_PC	= 1 << 9,
	BLK_TC_NOTIFY	= 1 << 10,
	BLK_TC_AHEAD	= 1 << 11,
	BLK_TC_META	= 1 << 12,
	BLK_TC_DISCARD	= 1 << 13,
	BLK_TC_DRV_DATA	= 1 << 14,
	BLK_TC_FUA	= 1 << 15,
};

#define BLK_TC_SHIFT		(16)
#define BLK_TC_ACT(act)		((act) << BLK_TC_SHIFT)

enum blktrace_act {
	__BLK_TA_QUEUE = 1,
	__BLK_TA_BACKMERGE,
	__BLK_TA_FRONTMERGE,
	__BLK_TA_GETRQ,
	__BLK_TA_SLEEPRQ,
	__BLK_TA_REQUEUE,
	__BLK_TA_ISSUE,
	__BLK_TA_COMPLETE,
	__BLK_TA_PLUG,
	__BLK_TA_UNPLUG_IO,
	__BLK_TA_UNPLUG_TIMER,
	__BLK_TA_INSERT,
	__BLK_TA_SPLIT,
	__BLK_TA_BOUNCE,
	__BLK_TA_REMAP,
	__BLK_TA_ABORT,
	__BLK_TA_DRV_DATA,
	__BLK_TA_CGROUP = 1 << 8,
};

#define BLK_TA_QUEUE		(__BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE))
#define BLK_TA_GETRQ		(__BLK_TA_GETRQ | BLK_TC_ACT(BLK_TC_QUEUE))
#define BLK_TA_ISSUE		(__BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_ISSUE))
#define BLK_TA_COMPLETE		(__BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_COMPLETE))
#define BLK_TA_PLUG		(__BLK_TA_PLUG | BLK_TC_ACT(BLK_TC_QUEUE))
#define BLK_TA_UNPLUG_IO	(__BLK_TA_UNPLUG_IO | BLK_TC_ACT(BLK_TC_QUEUE))
#define BLK_TA_UNPLUG_TIMER	(__BLK_TA_UNPLUG_TIMER | BLK_TC_ACT(BLK_TC_QUEUE))
#define BLK_TA_INSERT		(__BLK_TA_INSERT | BLK_TC_ACT(BLK_TC_QUEUE))

struct blk_io_trace {
	u32 magic;		/* (the trace_entry header in a TRACE_BLK entry) */
	u32 sequence;
	u64 time;
	u64 sector;		/* disk offset */
	u32 bytes;		/* transfer length */
	u32 action;		/* what happened */
	u32 pid;		/* who did it */
	u32 device;		/* device number */
	u32 cpu;		/* on what cpu did it happen */
	u16 error;		/* completion error */
	u16 pdu_len;		/* length of data after this trace */
	/* cgroup id will be stored here if exists */
};
_Static_assert(sizeof(struct blk_io_trace) == 48, "blk_io_trace layout");

#endif
