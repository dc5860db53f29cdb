/*
 * Served calls: the system calls of a session's processes that the emulated kernel answers
 * instead of the host.  The supervisor flags the call's record in the session ring
 * (SESSION_SC_SERVE, mirror.c); the call's task in the kernel makes it there like a mirrored
 * one, with its output buffers in its own scratch memory, and writes its result and those
 * buffers to the ring's reply (kernel_model/kernel/session.c), then rings the reply eventfd.
 * Here the supervisor waits for that reply, copies the buffers into the caller's memory and
 * answers the notification with the kernel's result; the host never makes the call.
 *
 * What is served: uname(2), so that a session's tools see the release of the kernel they
 * trace (6.1), as perf, bpftrace and BCC look up its headers, debug info and features by it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "session_ring.h"

/* How long a caller waits for the kernel (a paused or far-behind machine): then its call is
 * left to the host, as a session without the kernel would have it. */
#define SERVE_TIMEOUT_MS 2000

static int reply_fd = -1;

void serve_init(int fd)
{
	reply_fd = fd;
}

bool serve_wanted(long nr)
{
	return reply_fd >= 0 && nr == __NR_uname;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Wait until the reply is the one for `serial`; false on timeout. */
static bool wait_reply(const struct session_reply *r, unsigned long long serial)
{
	long long deadline = now_ms() + SERVE_TIMEOUT_MS;

	while (__atomic_load_n(&r->serial, __ATOMIC_ACQUIRE) != serial) {
		struct pollfd p = { .fd = reply_fd, .events = POLLIN };
		long long left = deadline - now_ms();
		uint64_t count;

		if (left <= 0)
			return false;
		if (poll(&p, 1, (int)left) > 0 && read(reply_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
			return false;
	}
	return true;
}

/* The reply's blobs that the call writes into the caller's memory; false if one could not be
 * written. */
static bool write_outputs(const struct seccomp_notif *req, const struct session_reply *r)
{
	const unsigned char *p = r->data, *end = r->data + sizeof(r->data);
	unsigned int i;

	for (i = 0; i < r->nr_out; i++) {
		const struct session_blob *b = (const void *)p;
		struct iovec local, remote;

		if (p + sizeof(*b) > end || b->arg >= 6 || p + sizeof(*b) + b->len > end)
			return false;
		p += sizeof(*b) + (b->len + 7) / 8 * 8;
		if (!mirror_arg_written(req->data.nr, b->arg))
			continue;	/* what the call only reads goes back to nobody */
		local.iov_base = (void *)(b + 1);
		local.iov_len = b->len;
		remote.iov_base = (void *)(uintptr_t)req->data.args[b->arg];
		remote.iov_len = b->len;
		if (process_vm_writev(req->pid, &local, 1, &remote, 1, 0) != (ssize_t)b->len)
			return false;
	}
	return true;
}

bool serve_answer(int listener, const struct seccomp_notif *req, unsigned long long serial)
{
	struct session_ring *ring = mirror_ring();
	const struct session_reply *r;
	long long ret;

	if (!ring || !wait_reply(&ring->reply, serial))
		return false;
	r = &ring->reply;
	ret = r->ret;
	if (ret >= 0 && !write_outputs(req, r))
		respond(listener, req->id, EFAULT, 0);
	else if (ret < 0)
		respond(listener, req->id, (int)-ret, 0);
	else
		respond(listener, req->id, 0, ret);
	return true;
}
