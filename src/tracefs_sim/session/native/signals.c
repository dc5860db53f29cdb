/*
 * The signals the emulated kernel sends to the session's processes (a BPF program's
 * bpf_send_signal, a guest program's kill(2)): the kernel posts each in the ring's signal
 * queue (session_ring.h: session_signals) and rings the wake eventfd, which a thread of its own
 * here waits on.  It sends each on the host, kill(2) for a process's, tgkill(2) for a
 * thread's, and only to a task the supervisor traces (mirror_traces): never init, never the
 * supervisor, never a pid outside the session.  The same eventfd tells of perf buffer wakeups:
 * each wake-up is passed on to serve.c's holder of polls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "session.h"
#include "session_ring.h"

static int wake_fd = -1;

int signal_send(const struct session_signal *s)
{
	if (s->sig < 1 || s->sig > 64 || s->tgid <= 1 || s->tid <= 1 || s->tgid == getpid() ||
	    (s->group && s->tid != s->tgid) || !mirror_traces(s->tid, s->tgid))
		return -EPERM;
	if (s->group ? kill(s->tgid, s->sig) : syscall(SYS_tgkill, s->tgid, s->tid, s->sig))
		return -errno;
	return 0;
}

/* Every signal posted since the last look. */
static void send_posted(struct session_signals *q)
{
	unsigned long long taken = q->taken, posted = __atomic_load_n(&q->posted, __ATOMIC_ACQUIRE);

	for (; taken != posted; taken++) {
		struct session_signal s = q->slot[taken % SESSION_SIGNALS];

		if (signal_send(&s) == -EPERM)
			__atomic_add_fetch(&q->refused, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&q->taken, taken + 1, __ATOMIC_RELEASE);	/* the slot is free */
	}
}

static void *take_wakeups(void *unused __attribute__((unused)))
{
	struct session_ring *ring = mirror_ring();
	struct pollfd wait = { .fd = wake_fd, .events = POLLIN };
	uint64_t count;

	for (;;) {
		send_posted(&ring->signals);	/* (those posted before the first wake-up too) */
		if (poll(&wait, 1, -1) < 0 && errno != EINTR)
			return NULL;
		(void)!read(wake_fd, &count, sizeof(count));
		serve_kernel_woke();
	}
}

bool signals_start(int fd)
{
	pthread_t thread;

	if (fd < 0 || !mirror_ring())
		return false;
	wake_fd = fd;
	return pthread_create(&thread, NULL, take_wakeups, NULL) == 0;
}
