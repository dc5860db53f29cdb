/*
 * A perf pool region (machine/perf_pool.py, kernel/events/ring_buffer.c): the ring buffer a
 * session's process maps (the user page and the data pages, from the region's start), and in
 * the region's last page, which nobody maps, the kernel's word to the session's supervisor on
 * that buffer: what poll(2) of an fd whose events write there sees (rb->poll of Linux's
 * perf_poll).  A region may hold a BPF ring buffer map instead (its status says so).  The supervisor answers a process's poll of such fds from it
 * (session/native/serve.c) and waits for the kernel's PORT_PERF_WAKEUP meanwhile.
 * Plain C types only: this header is built into the kernel and into the supervisor.
 */
#ifndef _UAPI_PERF_POOL_H
#define _UAPI_PERF_POOL_H

struct perf_pool_status {
	unsigned long long generation;	/* buffers made in the region so far (rb_alloc) */
	unsigned long long wakeups;	/* perf_output_wakeup()s of this generation's buffer */
	unsigned int waiting;		/* the supervisor sleeps on it: ring PORT_PERF_WAKEUP */
	unsigned int ringbuf;		/* the region holds a BPF ring buffer map (kernel/bpf/ringbuf.c),
					 * not a perf buffer: its consumer_pos starts page 0 and its
					 * producer_pos page 1; wakeups count bpf_ringbuf_notify()s */
	unsigned long long ringbuf_mask;	/* its data's size less one; the data from page 2 */
};

#define PERF_POOL_STATUS_PAGES 1	/* at the region's end */

#endif
