/*
 * Served calls: the system calls of a session's processes that the emulated kernel answers
 * instead of the host.  The supervisor flags the call's record in the session ring
 * (SESSION_SC_SERVE, mirror.c) and waits here: the call's task in the kernel makes it with the
 * caller's own arguments, asking the supervisor for each access to the caller's memory (the
 * ring's uaccess request; done here with process_vm_readv/writev), then writes its result to
 * the ring's reply (kernel_model/kernel/session.c).  The supervisor answers the notification
 * with that result; the host never makes the call.
 *
 * What is served: uname(2), so that a session's tools see the release of the kernel they
 * trace (6.1), as perf, bpftrace and BCC look up its headers, debug info and features by it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
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

static ssize_t target_io(pid_t pid, bool write, unsigned long long addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return write ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
		     : process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

/* A string at addr, at most len bytes: its length (the NUL copied too) or len without one. */
static long long read_string(pid_t pid, unsigned long long addr, unsigned char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		/* a page at a time: the string may end just before an unmapped one */
		size_t n = 4096 - (addr + done) % 4096;
		unsigned char *nul;

		if (n > len - done)
			n = len - done;
		if (target_io(pid, false, addr + done, buf + done, n) != (ssize_t)n)
			return -1;
		nul = memchr(buf + done, 0, n);
		if (nul)
			return nul - buf;
		done += n;
	}
	return len;
}

/* The kernel's request for the caller's memory, done. */
static void answer_uaccess(pid_t pid, struct session_uaccess *ua, unsigned long long asked)
{
	size_t len = ua->len <= sizeof(ua->data) ? ua->len : sizeof(ua->data);
	ssize_t n;

	switch (ua->op) {
	case SESSION_UACCESS_READ:
	case SESSION_UACCESS_WRITE:
		n = target_io(pid, ua->op == SESSION_UACCESS_WRITE, ua->addr, ua->data, len);
		ua->result = n < 0 ? -1 : n;
		break;
	case SESSION_UACCESS_STRING:
		ua->result = read_string(pid, ua->addr, ua->data, len);
		break;
	default:
		ua->result = -1;
	}
	__atomic_store_n(&ua->answered, asked, __ATOMIC_RELEASE);
}

/* Wait until the reply is the one for `serial`, answering the kernel's accesses to the
 * caller's memory meanwhile; false on timeout. */
static bool wait_reply(struct session_reply *r, pid_t pid, unsigned long long serial)
{
	long long deadline = now_ms() + SERVE_TIMEOUT_MS;

	while (__atomic_load_n(&r->serial, __ATOMIC_ACQUIRE) != serial) {
		struct pollfd p = { .fd = reply_fd, .events = POLLIN };
		unsigned long long asked = __atomic_load_n(&r->uaccess.asked, __ATOMIC_ACQUIRE);
		long long left = deadline - now_ms();
		uint64_t count;

		if (asked != r->uaccess.answered) {
			answer_uaccess(pid, &r->uaccess, asked);
			continue;
		}
		if (left <= 0) {
			__atomic_store_n(&r->abandoned, serial, __ATOMIC_RELEASE);
			return false;
		}
		if (poll(&p, 1, (int)left) > 0 && read(reply_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
			return false;
	}
	return true;
}

bool serve_answer(int listener, const struct seccomp_notif *req, unsigned long long serial)
{
	struct session_ring *ring = mirror_ring();
	long long ret;

	if (!ring || !wait_reply(&ring->reply, req->pid, serial))
		return false;
	ret = ring->reply.ret;
	if (ret < 0)
		respond(listener, req->id, (int)-ret, 0);
	else
		respond(listener, req->id, 0, ret);
	return true;
}
