/*
 * The supervisor: a process of its own (a child of the session's init) that receives every
 * notification of the session's filter and answers it at once.  The wake-up is synchronous
 * (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6): the notifying thread hands its CPU to the
 * supervisor instead of waking it on another one, which is what makes a notification cost
 * microseconds rather than tens of them (../../../../../shared/notes/session-mirror.md).
 *
 * SUPERVISOR_RECEIVERS threads wait in RECV, so that a call is taken as soon as it is made even
 * while another is being served (session.h says why); they serve one call at a time.
 */
#include <errno.h>
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
};

static void *receive(void *arg)
{
	const struct receiver *self = arg;
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
		memset(req, 0, self->notif_size);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == EINTR || errno == ENOENT)	/* ENOENT: the caller died meanwhile */
				continue;
			_exit(errno == EBADF ? 0 : 1);
		}
		in_flight->id = req->id;
		in_flight->nr = req->data.nr;
		__atomic_store_n(&in_flight->busy, 1, __ATOMIC_RELEASE);
		serve_lock();
		serial = mirror_call(req, rec, sizeof(record), &how, &tgid);
		if ((serial || (how & (SERVE_HELD | SERVE_DEFER))) &&
		    serve_answer(listener, req, tgid, serial, how) == SERVE_ANSWERED)
			;
		else if (serve_locally(listener, req, tgid, how))
			;
		else if (!answer_notification(listener, req))
			respond_continue(listener, req->id);
		serve_unlock();
		__atomic_store_n(&in_flight->busy, 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

void supervise(int listener, struct in_flight *in_flight)
{
	static struct receiver receivers[SUPERVISOR_RECEIVERS];
	struct seccomp_notif_sizes sizes;
	size_t notif_size = sizeof(struct seccomp_notif);

	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0 && sizes.seccomp_notif > notif_size)
		notif_size = sizes.seccomp_notif;
	/* older kernels lack it: the wake-up is then an ordinary one */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	for (int r = 0; r < SUPERVISOR_RECEIVERS; r++) {
		pthread_t thread;

		receivers[r] = (struct receiver){ listener, notif_size, &in_flight[r] };
		/* (a receiver that cannot start leaves the others to do its part) */
		if (r > 0 && pthread_create(&thread, NULL, receive, &receivers[r]) != 0)
			continue;
	}
	receive(&receivers[0]);
	_exit(0);
}
