/*
 * The kernel's requests to the host (include/kernel_request.h): one at a time, posted through
 * PORT_KERNEL_REQ and slept on until the host sets `done` and raises the call-function vector.
 */
#include "../include/kernel.h"
#include "../include/wait.h"
#include "../include/mutex.h"
#include "../include/kernel_request.h"

static DEFINE_MUTEX(kernel_request_mutex);	/* one request at a time */
static struct kernel_req kernel_req;
static struct wait_queue_head kernel_request_wq;
static bool kernel_request_wq_ready;

/* The host answered: the requester wakes (sysvec_call_function). */
void kernel_request_interrupt(void)
{
	if (READ_ONCE(kernel_request_wq_ready) && READ_ONCE(kernel_req.done))
		wake_up(&kernel_request_wq);
}

struct kernel_req *kernel_request_begin(void)
{
	mutex_lock(&kernel_request_mutex);
	memset(&kernel_req, 0, sizeof(kernel_req));
	return &kernel_req;
}

/* Registering a probe arms text, which the host does with every cpu stopped: the requester
 * sleeps rather than spins. */
int kernel_request_post(struct kernel_req *req)
{
	if (!kernel_request_wq_ready) {
		init_waitqueue_head(&kernel_request_wq);
		WRITE_ONCE(kernel_request_wq_ready, true);
	}
	req->result = -ENOSYS;
	WRITE_ONCE(req->done, 0);
	host_post_kernel_request(req);
	wait_event(kernel_request_wq, READ_ONCE(req->done));
	return req->result;
}

void kernel_request_end(void)
{
	mutex_unlock(&kernel_request_mutex);
}

int kernel_request(void (*fill)(struct kernel_req *req, const void *arg), const void *arg)
{
	struct kernel_req *req = kernel_request_begin();
	int ret;

	fill(req, arg);
	ret = kernel_request_post(req);
	kernel_request_end();
	return ret;
}
