/*
 * The supervisor: a process of its own (a child of the session's init) that receives every
 * notification of the session's filter and answers it at once.  The wake-up is synchronous
 * (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6): the notifying thread hands its CPU to the
 * supervisor instead of waking it on another one, which is what makes a notification cost
 * microseconds rather than tens of them (../../../../../shared/notes/session-mirror.md).
 *
 * SUPERVISOR_RECEIVERS threads receive, so that a call is taken as soon as it is made even
 * while another is being served (session.h says why; below: when the spares wait in RECV);
 * they serve one call at a time.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <time.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "session.h"
#include "session_ring.h"

struct receiver {
	int listener;
	size_t notif_size;		/* the kernel's notification may be larger than this header's struct */
	struct in_flight *in_flight;	/* this receiver's, in memory shared with init */
	bool spare;			/* in RECV only while spares are wanted (below) */
	pid_t serving;			/* the thread whose call it serves (0: none) */
};

/*
 * The receivers.  Linux wakes every thread waiting in RECV at each notification (with
 * SYNC_WAKE_UP all of them on the caller's CPU, where they run one after the other and all but
 * one find nothing): with the four always in RECV a getppid() cost 12-17 us where it costs 4-8
 * with one, and a fork+exec makes ~40 calls.  So the first receiver always waits in RECV and
 * the others, spares, only while they are wanted: for SPARE_NS after a call was seen waiting
 * while another was served (a receiver took one while another served another thread's, or one
 * was pending when a call's record was written) or after a served call (the kernel's answer
 * may take a while).  A spare past that time goes back to sleep after its next notification
 * (RECV has no timeout).
 */
#define SPARE_NS 200000000ULL
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spare_wanted = PTHREAD_COND_INITIALIZER;
static unsigned long long spares_until;	/* (monotonic ns) */
static struct receiver receivers[SUPERVISOR_RECEIVERS];

static unsigned long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void want_spares(void)
{
	unsigned long long until = monotonic_ns() + SPARE_NS;

	/* (renewed at most once every SPARE_NS / 8) */
	if (__atomic_load_n(&spares_until, __ATOMIC_RELAXED) + SPARE_NS / 8 > until)
		return;
	pthread_mutex_lock(&spare_lock);
	__atomic_store_n(&spares_until, until, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&spare_wanted);
	pthread_mutex_unlock(&spare_lock);
}

/* Whether another receiver serves a call of another thread than `tid` (the receiver that
 * answered tid's last call may not have marked itself done yet: tid ran at once). */
static bool another_served(struct receiver *self, pid_t tid)
{
	bool found = false;

	__atomic_store_n(&self->serving, tid, __ATOMIC_SEQ_CST);
	for (int r = 0; r < SUPERVISOR_RECEIVERS; r++) {
		pid_t other = __atomic_load_n(&receivers[r].serving, __ATOMIC_SEQ_CST);

		found |= &receivers[r] != self && other && other != tid;
	}
	return found;
}

/* Whether a notification waits for a receiver (while spares are not wanted: they take it). */
static bool waiting(int listener)
{
	struct pollfd pfd = { listener, POLLIN, 0 };

	return monotonic_ns() >= __atomic_load_n(&spares_until, __ATOMIC_RELAXED) && poll(&pfd, 1, 0) > 0 &&
	       (pfd.revents & POLLIN);
}

/* A spare: until spares are wanted. */
static void spare_wait(void)
{
	if (monotonic_ns() < __atomic_load_n(&spares_until, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&spare_lock);
	while (monotonic_ns() >= spares_until)
		pthread_cond_wait(&spare_wanted, &spare_lock);
	pthread_mutex_unlock(&spare_lock);
}

static void *receive(void *arg)
{
	struct receiver *self = arg;
	int listener = self->listener;
	struct in_flight *in_flight = self->in_flight;
	struct seccomp_notif *req = calloc(1, self->notif_size);
	/* (used under the serve lock only: one for all receivers) */
	static unsigned long long record[SESSION_RECORD_MAX / 8];
	struct session_record *rec = (void *)record;
	unsigned long long serial;
	pid_t tgid;
	int how;

	if (!req)
		_exit(1);
	for (;;) {
		if (self->spare)
			spare_wait();
		memset(req, 0, self->notif_size);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == EINTR || errno == ENOENT)	/* ENOENT: the caller died meanwhile */
				continue;
			_exit(errno == EBADF ? 0 : 1);
		}
		if (another_served(self, req->pid))
			want_spares();	/* calls come from several threads at once */
		in_flight->id = req->id;
		in_flight->nr = req->data.nr;
		__atomic_store_n(&in_flight->busy, 1, __ATOMIC_RELEASE);
		serve_lock();
		serial = mirror_call(req, rec, sizeof(record), &how, &tgid);
		/* (the kernel's answer may take a while; or a call of another thread came meanwhile:
		 * looked at before the answer, after which the caller's next call may come at once) */
		if (serial || (how & (SERVE_HELD | SERVE_DEFER)) || waiting(listener))
			want_spares();
		if ((serial || (how & (SERVE_HELD | SERVE_DEFER))) &&
		    serve_answer(listener, req, tgid, serial, how) == SERVE_ANSWERED)
			;
		else if (serve_locally(listener, req, tgid, how))
			;
		else if (!answer_notification(listener, req))
			respond_continue(listener, req->id);
		serve_unlock();
		__atomic_store_n(&in_flight->busy, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&self->serving, 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

void supervise(int listener, struct in_flight *in_flight)
{
	struct seccomp_notif_sizes sizes;
	size_t notif_size = sizeof(struct seccomp_notif);

	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0 && sizes.seccomp_notif > notif_size)
		notif_size = sizes.seccomp_notif;
	/* older kernels lack it: the wake-up is then an ordinary one */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	for (int r = 0; r < SUPERVISOR_RECEIVERS; r++) {
		pthread_t thread;

		receivers[r] = (struct receiver){ listener, notif_size, &in_flight[r], r > 0, 0 };
		/* (a receiver that cannot start leaves the others to do its part) */
		if (r > 0 && pthread_create(&thread, NULL, receive, &receivers[r]) != 0)
			continue;
	}
	receive(&receivers[0]);
	_exit(0);
}
