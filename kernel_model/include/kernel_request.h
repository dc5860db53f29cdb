/*
 * The kernel's requests to the host (kernel/kernel_request.c; the host's side is
 * machine/kernel_requests.py): what the kernel needs done by machinery that is the host's.  The
 * probe engines are the host's (they patch text with every cpu stopped), so the kprobe and
 * uprobe PMUs ask them for probes and a BPF trampoline asks for its ftrace site; the top-level
 * trace array's event files are the host's, so trace_set_clr_event() asks for an event.  The
 * kernel posts one request at a time (PORT_KERNEL_REQ) and sleeps; the host answers it later, sets
 * `done` and raises the call-function vector, whose handler wakes the requester
 * (kernel_request_interrupt()).
 */
#ifndef _KERNEL_REQUEST_H
#define _KERNEL_REQUEST_H
#include "types.h"

/* KPROBE_REGISTER/KPROBE_UNREGISTER: a local probe of the kprobe PMU (trace/kprobe_perf.h);
 * KPROBE_PERF_OPEN/KPROBE_PERF_CLOSE: a kprobe event of kprobe_events as a tracepoint perf source
 * (its id in probe), TRACE_REG_PERF_REGISTER/UNREGISTER: the host arms its probes for perf
 * (TP_FLAG_PROFILE) and answers how many, their indexes in kprobe_guest.probes written as u32s
 * over name; the event may not go while perf holds it */
/* FTRACE_DIRECT: the ftrace site at addr calls the trampoline at offset (0: no longer;
 * register_ftrace_direct()), whose is_return bytes of code, named name, the kernel has just
 * written; result 0 or -errno */
/* EVENT_ENABLE: trace_set_clr_event() of 6.1: the top-level trace array's events matching
 * name "system\0event" enabled (is_return 1) or disabled (0); result 0 or -errno (-EINVAL: none
 * matched) */
/* UPROBE_REGISTER/UPROBE_UNREGISTER: a consumer of the uprobe PMU's (trace/uprobe_perf.h) at
 * offset in the hostfs file whose host path is in text and inode number the first u64 of name,
 * addr its reference counter's offset, probe its slot in uprobe_perf_calls[]; result 0 or -errno */
enum {
	KERNEL_REQ_KPROBE_REGISTER = 1, KERNEL_REQ_KPROBE_UNREGISTER = 2, KERNEL_REQ_KPROBE_PERF_OPEN = 3,
	KERNEL_REQ_KPROBE_PERF_CLOSE = 4, KERNEL_REQ_FTRACE_DIRECT = 6, KERNEL_REQ_UPROBE_REGISTER = 7,
	KERNEL_REQ_UPROBE_UNREGISTER = 8, KERNEL_REQ_EVENT_ENABLE = 9,
};
#define KERNEL_REQ_NAME_LEN	512	/* KSYM_NAME_LEN */
#define KERNEL_REQ_TEXT_LEN	4096

/* One request; the kernel posts one at a time (kernel_request_mutex). */
struct kernel_req {
	u32 op;				/* KERNEL_REQ_* */
	u32 is_return;
	u64 addr;			/* KPROBE_REGISTER without a function: the address (kprobe_addr) */
	u64 offset;			/* KPROBE_REGISTER with a function: the offset in it (probe_offset) */
	u32 probe;			/* KPROBE_UNREGISTER: the probe's index in kprobe_guest.probes;
					 * KPROBE_PERF_OPEN/CLOSE: the event's id */
	s32 result;			/* KPROBE_REGISTER: the probe's index, KPROBE_PERF_OPEN: the
					 * number of probes; or -errno */
	volatile u32 done;		/* the host answered */
	u32 pad;
	char name[KERNEL_REQ_NAME_LEN];	/* KPROBE_REGISTER: the function's name; "": by address */
	char text[KERNEL_REQ_TEXT_LEN];	/* KPROBE_PERF_OPEN's answer: the event's fields after the
					 * common ones (its format file's), a line each:
					 * "type\tname\toffset\tsize\tsigned\n", NUL-terminated */
};

_Static_assert(offsetof(struct kernel_req, addr) == 8, "kernel_req layout");
_Static_assert(offsetof(struct kernel_req, probe) == 24, "kernel_req layout");
_Static_assert(offsetof(struct kernel_req, name) == 40, "kernel_req layout");

/* kernel_request_begin(): the request, zeroed, the caller's until kernel_request_end() (one at a
 * time: others wait); kernel_request_post(): posted, slept on until the host answered it: its
 * result (its answer readable until the end) */
struct kernel_req *kernel_request_begin(void);
int kernel_request_post(struct kernel_req *req);
void kernel_request_end(void);
/* a request filled by fill(req, arg), posted and ended: its result */
int kernel_request(void (*fill)(struct kernel_req *req, const void *arg), const void *arg);
/* the call-function interrupt: the host may have answered the request */
void kernel_request_interrupt(void);
#endif
