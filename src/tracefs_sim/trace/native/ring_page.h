/* The host's definition of Linux 6.1's ring-buffer data page (kernel/trace/ring_buffer.c, as
 * events/header_page and events/header_event describe it): the C modules include it, and
 * _entry exports it to the Python ones (ring_buffer.py, rb_page.py), so the host writes it
 * down once.  (The guest's writer has its own, include/trace/ring.h of kernel_model.) */
#ifndef TRACEFS_SIM_RING_PAGE_H
#define TRACEFS_SIM_RING_PAGE_H

/* struct buffer_data_page: u64 time_stamp, local_t commit, then data[] */
#define PAGE_SIZE 4096
#define PAGE_TIMESTAMP_OFFSET 0
#define PAGE_COMMIT_OFFSET 8
#define BUF_PAGE_HDR_SIZE 16
#define BUF_PAGE_SIZE (PAGE_SIZE - BUF_PAGE_HDR_SIZE)
/* flags in commit, and the lost-events count stored after the data */
#define RB_MISSED_EVENTS (1ULL << 31)
#define RB_MISSED_STORED (1ULL << 30)
#define COMMIT_SIZE_MASK (RB_MISSED_STORED - 1)
#define MISSED_COUNT_SIZE 8
/* struct ring_buffer_event: u32 type_len:5, time_delta:27; u32 array[] */
#define EVENT_TYPE_LEN_BITS 5
#define TS_SHIFT 27
#define RB_EVNT_HDR_SIZE 4
#define RB_ALIGNMENT 4
#define RB_EVNT_MIN_SIZE 8	/* the smallest event that can carry a padding length */
#define TYPE_DATA_LEN_MAX 28
#define TYPE_PADDING 29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP 31
#define RB_LEN_TIME_EXTEND 8
#define RB_MAX_SMALL_DATA (RB_ALIGNMENT * TYPE_DATA_LEN_MAX)
#define TS_MSB (0xF8ULL << 56)	/* clock bits a TIME_STAMP event cannot hold (rb_fix_abs_ts) */

#endif
