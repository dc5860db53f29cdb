/*
 * The kernel's part of Linux 6.1's kernel/trace/trace_events.c: the event files of the top-level
 * trace array are the host's (trace/event_control.py), so what the kernel asks of them is a request to
 * the host (include/kernel_request.h).
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/kernel_request.h"

/* trace_set_clr_event(): the host enables (set) or disables the events of system named event as
 * a write to their enable files would (the buffers left as they are: 6.1 does not expand them
 * here) */
int trace_set_clr_event(const char *system, const char *event, int set)
{
	size_t len = strlen(system);
	struct kernel_req *req;
	int ret;

	if (len + 1 + strlen(event) + 1 > sizeof(req->name))
		return -EINVAL;
	req = kernel_request_begin();
	req->op = KERNEL_REQ_EVENT_ENABLE;
	req->is_return = !!set;
	memcpy(req->name, system, len);
	strscpy_pad(req->name + len + 1, event, sizeof(req->name) - len - 1);
	ret = kernel_request_post(req);
	kernel_request_end();
	return ret;
}
