/* Linux 6.1's ring-buffer data page (kernel/trace/ring_buffer.c, as events/header_page and
 * events/header_event describe it), written down once for both sides: the guest's writer
 * (include/trace/ring.h, kernel/trace_ring.c) and the host's native modules
 * (src/tracefs_sim/trace/native: the drain's walk, the records; _entry exports the values to
 * the Python ones, ring_buffer.py and rb_page.py).  Definitions only: no types, no includes. */
#ifndef _UAPI_RING_PAGE_H
#define _UAPI_RING_PAGE_H

/* struct buffer_data_page: u64 time_stamp, local_t commit, then data[] */
#define RB_PAGE_SIZE		4096
#define PAGE_TIMESTAMP_OFFSET	0
#define PAGE_COMMIT_OFFSET	8
#define BUF_PAGE_HDR_SIZE	16
#define BUF_PAGE_SIZE		(RB_PAGE_SIZE - BUF_PAGE_HDR_SIZE)
/* flags in commit, and the lost-events count stored after the data */
#define RB_MISSED_EVENTS	(1ULL << 31)
#define RB_MISSED_STORED	(1ULL << 30)
#define COMMIT_SIZE_MASK	(RB_MISSED_STORED - 1)
#define MISSED_COUNT_SIZE	8
/* struct ring_buffer_event: u32 type_len:5, time_delta:27; u32 array[] */
#define EVENT_TYPE_LEN_BITS	5
#define TS_SHIFT		27
#define TS_MASK			((1UL << TS_SHIFT) - 1)
#define TS_MSB			(0xF8ULL << 56)	/* clock bits a TIME_STAMP event cannot hold (rb_fix_abs_ts) */
#define RB_EVNT_HDR_SIZE	4
#define RB_ALIGNMENT		4
#define RB_EVNT_MIN_SIZE	8	/* the smallest event that can carry a padding length */
/* enum ring_buffer_type (include/linux/ring_buffer.h) */
#define RINGBUF_TYPE_DATA_TYPE_LEN_MAX	28
#define RINGBUF_TYPE_PADDING		29
#define RINGBUF_TYPE_TIME_EXTEND	30
#define RINGBUF_TYPE_TIME_STAMP		31
#define RB_LEN_TIME_EXTEND	8
#define RB_MAX_SMALL_DATA	(RB_ALIGNMENT * RINGBUF_TYPE_DATA_TYPE_LEN_MAX)
/* ring_buffer_lock_reserve() refuses longer payloads (room for a header and array[0]) */
#define BUF_MAX_DATA_SIZE	(BUF_PAGE_SIZE - 2 * RB_EVNT_HDR_SIZE)

#endif
