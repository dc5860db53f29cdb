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
	pid_t serving;			/* the thread whose call it serves (0: none, or it answers it) */
};

/*
 * The receivers.  Linux wakes every thread waiting in RECV at each notification (with
 * SYNC_WAKE_UP all of them on the caller's CPU, where they run one after the other and all but
 * one find nothing): with the four always in RECV a getppid() cost 12-17 us where it costs 4-8
 * with one, and a fork+exec makes ~40 calls.  So the first receiver always waits in RECV and
 * the others, spares, only while they are wanted, and only as many as the calls seen at once
 * need: for SPARE_NS after calls of two threads were seen in the receivers at once, one spare
 * (a shell's fork+exec, its parent and child calling at once, then keeps one spare in RECV, not
 * three); for ALL_SPARES_NS after calls of more, all of them.  Seen at once: a receiver took a call while others
 * served other threads'; a call waited while every receiver up was busy; a served call (the
 * kernel's answer may take a while) while others were busy.  A spare past its time goes back
 * to sleep after its next notification (RECV has no timeout).
 */
#define SPARE_NS 200000000ULL
#define ALL_SPARES_NS 20000000ULL
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spare_wanted = PTHREAD_COND_INITIALIZER;
static unsigned long long spares_until[SUPERVISOR_RECEIVERS];	/* (monotonic ns; [0] unused) */
static struct receiver receivers[SUPERVISOR_RECEIVERS];

static unsigned long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Spares wanted from now, for `calls` calls of different threads seen at once: one for two (a
 * shell and its child) for SPARE_NS, every one for more for ALL_SPARES_NS (a program whose
 * threads call at once sees them again and again; a shell's fork loop, now and then one three
 * at once, for which keeping them all in RECV made every call wake four receivers). */
static void want_spares(int calls)
{
	unsigned long long now = monotonic_ns();
	int upto = calls <= 2 ? 1 : SUPERVISOR_RECEIVERS - 1;
	bool renew = false;

	/* (each renewed at most once every eighth of its time) */
	for (int r = 1; r <= upto; r++) {
		unsigned long long span = r == 1 ? SPARE_NS : ALL_SPARES_NS;

		renew |= __atomic_load_n(&spares_until[r], __ATOMIC_RELAXED) + span / 8 <= now + span;
	}
	if (!renew)
		return;
	pthread_mutex_lock(&spare_lock);
	for (int r = 1; r <= upto; r++) {
		unsigned long long until = now + (r == 1 ? SPARE_NS : ALL_SPARES_NS);

		if (__atomic_load_n(&spares_until[r], __ATOMIC_RELAXED) < until)
			__atomic_store_n(&spares_until[r], until, __ATOMIC_RELAXED);
	}
	pthread_cond_broadcast(&spare_wanted);
	pthread_mutex_unlock(&spare_lock);
}

/* How many other receivers serve calls of other threads than `tid` (the receiver that
 * answered tid's last call may not have marked itself done yet: tid ran at once). */
static int others_served(struct receiver *self, pid_t tid)
{
	int found = 0;

	__atomic_store_n(&self->serving, tid, __ATOMIC_SEQ_CST);
	for (int r = 0; r < SUPERVISOR_RECEIVERS; r++) {
		pid_t other = __atomic_load_n(&receivers[r].serving, __ATOMIC_SEQ_CST);

		found += &receivers[r] != self && other && other != tid;
	}
	return found;
}

/* How many receivers serve a call now (this one too). */
static int busy_receivers(void)
{
	int busy = 0;

	for (int r = 0; r < SUPERVISOR_RECEIVERS; r++)
		busy += __atomic_load_n(&receivers[r].serving, __ATOMIC_SEQ_CST) != 0;
	return busy;
}

/* How many receivers wait in RECV or serve: the first, and the spares wanted now. */
static int awake_receivers(void)
{
	unsigned long long now = monotonic_ns();
	int awake = 1;

	for (int r = 1; r < SUPERVISOR_RECEIVERS; r++)
		awake += now < __atomic_load_n(&spares_until[r], __ATOMIC_RELAXED);
	return awake;
}

/* Whether a notification waits while every receiver up is busy: a call of yet another thread
 * (not one a receiver about to be back in RECV would take: a receiver is busy only until it
 * answers, below).  Not looked at while every spare is wanted. */
static bool waiting(int listener)
{
	struct pollfd pfd = { listener, POLLIN, 0 };

	/* (the poll, a system call, only when every receiver up is busy) */
	return monotonic_ns() < __atomic_load_n(&spares_until[SUPERVISOR_RECEIVERS - 1], __ATOMIC_RELAXED) ? false :
	       busy_receivers() >= awake_receivers() && poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

/* Spare `r`: until it is wanted. */
static void spare_wait(int r)
{
	if (monotonic_ns() < __atomic_load_n(&spares_until[r], __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&spare_lock);
	while (monotonic_ns() >= spares_until[r])
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
	int how, others;
	bool held;

	if (!req)
		_exit(1);
	for (;;) {
		if (self->spare)
			spare_wait(self - receivers);
		memset(req, 0, self->notif_size);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == EINTR || errno == ENOENT)	/* ENOENT: the caller died meanwhile */
				continue;
			_exit(errno == EBADF ? 0 : 1);
		}
		others = others_served(self, req->pid);
		if (others)
			want_spares(others + 1);	/* calls come from several threads at once */
		in_flight->id = req->id;
		in_flight->nr = req->data.nr;
		__atomic_store_n(&in_flight->busy, 1, __ATOMIC_RELEASE);
		serve_lock();
		serial = mirror_call(req, rec, sizeof(record), &how, &tgid);
		held = serial || (how & (SERVE_HELD | SERVE_DEFER));
		/* (the kernel's answer may take a while; or a call of another thread came meanwhile
		 * that no receiver was free to take: looked at before the answer, after which the
		 * caller's next call may come at once) */
		if (held || waiting(listener))
			want_spares(busy_receivers() + 1);
		if (!held)	/* (done with but for the answer) */
			__atomic_store_n(&self->serving, 0, __ATOMIC_SEQ_CST);
		if (held && serve_answer(listener, req, tgid, serial, how) == SERVE_ANSWERED)
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
