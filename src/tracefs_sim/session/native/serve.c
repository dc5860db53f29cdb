/*
 * Served calls: the system calls of a session's processes that the emulated kernel answers
 * instead of the host.  The supervisor flags the call's record in the session ring
 * (SESSION_SC_SERVE, mirror.c) and waits here: the call's task in the kernel makes it with the
 * caller's own arguments, asking the supervisor for each access to the caller's memory (the
 * ring's uaccess request; done here with process_vm_readv/writev), then writes its result to
 * the ring's reply (kernel_model/kernel/session.c).  The supervisor answers the notification
 * with that result; the host never makes the call.
 *
 * What is served:
 *  - uname(2), so that a session's tools see the release of the kernel they trace (6.1), as
 *    perf, bpftrace and BCC look up its headers, debug info and features by it;
 *  - perf_event_open(2) and bpf(2), the kernel's perf events and BPF (a kernel without them
 *    answers ENOSYS: answer.c then says so to the caller), and the calls on the fds they make.
 *
 * An fd such a call makes in the kernel becomes a host fd of the process: a placeholder file
 * the supervisor adds to it (SECCOMP_IOCTL_NOTIF_ADDFD, atomically with the answer), whose
 * number the kernel's fd then takes (an FD record), so that the process and the kernel name it
 * alike.  read(2) and ioctl(2) on it are served; close(2) goes to both (mirrored).  mmap(2) of
 * it is served too: the kernel makes the perf ring buffer in a region of the machine's perf
 * pool (machine/perf_pool.py, kernel/mmap.c) and says which; the supervisor puts that region's
 * memory file in place of the fd (SECCOMP_ADDFD_FLAG_SETFD, as dup2 would) and lets the host
 * make the call, which so maps the very pages the kernel writes.  The process's later calls on
 * the fd are still the kernel's.  poll(2) on it is the host's: a memory file is always ready
 * (perf then polls busily).  The supervisor keeps, per process, which of its fds are
 * such placeholders: forks copy the set, a successful exec drops the close-on-exec ones.
 *
 * epoll_ctl(2) of such an fd (libbpf's perf buffers, bpftrace) is answered here: a memory file
 * has no poll, so the supervisor puts an eventfd of its own in the caller's epoll instance in
 * the fd's place (the instance taken with pidfd_getfd, the caller's event and data kept), edge
 * triggered, and a watcher thread writes it when the kernel has written records the reader has
 * not read (the mapped buffer's data_head moved past data_tail), as perf_poll() reports a
 * wakeup once.  The eventfd goes when the fd is closed, or the process exits or execs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <linux/perf_event.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "session_ring.h"

/* How long a caller waits for the kernel (a paused or far-behind machine): then its call is
 * left to the host, as a session without the kernel would have it. */
#define SERVE_TIMEOUT_MS 2000

static int reply_fd = -1;
#define MAX_POOL 256
static int pool_fds[MAX_POOL], nr_pool;

/* ---- the fds of the kernel's objects, per process ---- */

#define MAX_SERVED_FD 4096	/* fds past this are never the kernel's (EMFILE) */
#define WORDS (MAX_SERVED_FD / 64)

struct served_fds {
	struct served_fds *next;
	pid_t tgid;
	unsigned long long open[WORDS], cloexec[WORDS];
	short mapped[MAX_SERVED_FD];	/* 1 + the pool region an fd's mmap made it, 0: none */
};

#define FD_BUCKETS 256
static struct served_fds *fd_tables[FD_BUCKETS];
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

/* Under fd_lock: the process's table, made if `make`. */
static struct served_fds *fds_of(pid_t tgid, bool make)
{
	struct served_fds **head = &fd_tables[(unsigned int)tgid % FD_BUCKETS], *t;

	for (t = *head; t; t = t->next)
		if (t->tgid == tgid)
			return t;
	if (!make || !(t = calloc(1, sizeof(*t))))
		return NULL;
	t->tgid = tgid;
	t->next = *head;
	*head = t;
	return t;
}

static bool bit(const unsigned long long *set, long fd)
{
	return fd >= 0 && fd < MAX_SERVED_FD && (set[fd / 64] >> (fd % 64) & 1);
}

static bool is_served_fd(pid_t tgid, long fd)
{
	struct served_fds *t;
	bool yes;

	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	yes = t && bit(t->open, fd);
	pthread_mutex_unlock(&fd_lock);
	return yes;
}

/* The pool region fd's mmap made it, -1: none (yet) */
static int mapped_region(pid_t tgid, long fd)
{
	struct served_fds *t;
	int region = -1;

	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	if (t && bit(t->open, fd))
		region = t->mapped[fd] - 1;
	pthread_mutex_unlock(&fd_lock);
	return region;
}

static void set_mapped(pid_t tgid, long fd, int region)
{
	struct served_fds *t;

	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	if (t && bit(t->open, fd))
		t->mapped[fd] = (short)(region + 1);
	pthread_mutex_unlock(&fd_lock);
}

static void add_served_fd(pid_t tgid, int fd, bool cloexec)
{
	struct served_fds *t;

	if (fd < 0 || fd >= MAX_SERVED_FD)
		return;
	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, true);
	if (t) {
		t->open[fd / 64] |= 1ULL << (fd % 64);
		t->mapped[fd] = 0;
		if (cloexec)
			t->cloexec[fd / 64] |= 1ULL << (fd % 64);
		else
			t->cloexec[fd / 64] &= ~(1ULL << (fd % 64));
	}
	pthread_mutex_unlock(&fd_lock);
}

/* ---- epoll on served fds: an eventfd in the fd's place, written on new records ---- */

static ssize_t target_io(pid_t pid, bool write, unsigned long long addr, void *buf, size_t len);

struct epoll_watch {
	struct epoll_watch *next;
	pid_t tgid;
	int fd;			/* the process's served fd */
	int efd;		/* the supervisor's eventfd, in the process's epoll instances */
	int region;		/* the pool region the fd maps, -1 until known */
	struct perf_event_mmap_page *page;	/* that region's user page, read only */
	unsigned long long signalled;	/* data_head when the eventfd was last written */
};

static struct epoll_watch *watches;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t watcher;
static bool watcher_started;

/* Under watch_lock */
static struct epoll_watch *watch_of(pid_t tgid, int fd)
{
	struct epoll_watch *w;

	for (w = watches; w; w = w->next)
		if (w->tgid == tgid && w->fd == fd)
			return w;
	return NULL;
}

/* Under watch_lock: the watch's region from now on (an mmap of its fd) */
static void watch_region(struct epoll_watch *w, int region)
{
	void *page;

	if (w->region == region || region < 0 || region >= nr_pool)
		return;
	page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, pool_fds[region], 0);
	if (page == MAP_FAILED)
		return;
	if (w->page)
		munmap(w->page, 4096);
	w->page = page;
	w->region = region;
	w->signalled = __atomic_load_n(&w->page->data_tail, __ATOMIC_ACQUIRE);
}

/* Under watch_lock: the process's watches of fd (fd < 0: all of them) go; their eventfds
 * leave the epoll instances with them. */
static void unwatch(pid_t tgid, long fd)
{
	struct epoll_watch **p = &watches, *w;

	while ((w = *p)) {
		if (w->tgid != tgid || (fd >= 0 && w->fd != fd)) {
			p = &w->next;
			continue;
		}
		*p = w->next;
		close(w->efd);
		if (w->page)
			munmap(w->page, 4096);
		free(w);
	}
}

/* Every 2 ms: an edge for each watched buffer with records written since the last one and
 * not all read.  Ends when nothing is watched (the next epoll_ctl starts it again). */
static void *watch_buffers(void *unused)
{
	const struct timespec tick = { 0, 2000000 };

	(void)unused;
	for (;;) {
		struct epoll_watch *w;

		nanosleep(&tick, NULL);
		pthread_mutex_lock(&watch_lock);
		if (!watches) {
			watcher_started = false;
			pthread_mutex_unlock(&watch_lock);
			return NULL;
		}
		for (w = watches; w; w = w->next) {
			unsigned long long head, tail;
			uint64_t one = 1;

			if (!w->page)
				continue;
			head = __atomic_load_n(&w->page->data_head, __ATOMIC_ACQUIRE);
			tail = __atomic_load_n(&w->page->data_tail, __ATOMIC_ACQUIRE);
			if (head != tail && head != w->signalled) {
				w->signalled = head;
				if (write(w->efd, &one, sizeof(one)) < 0 && errno == EAGAIN) {
					/* a full count: drain it, the edge comes with the next write */
					uint64_t n;

					if (read(w->efd, &n, sizeof(n)) == sizeof(n))
						(void)write(w->efd, &one, sizeof(one));
				}
			}
		}
		pthread_mutex_unlock(&watch_lock);
	}
	return NULL;
}

static int pidfd_getfd_of(pid_t pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), got;

	if (pidfd < 0)
		return -1;
	got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return got;
}

/* epoll_ctl(epfd, op, fd, event) of a served fd, answered: the same on the caller's epoll
 * instance with the watch's eventfd, edge triggered. */
static void answer_epoll_ctl(int listener, const struct seccomp_notif *req, pid_t tgid)
{
	const unsigned long long *args = req->data.args;
	int op = (int)args[1], fd = (int)args[2], epfd, ret, err = 0, region;
	struct epoll_event ev = { 0 };
	struct epoll_watch *w;

	if (op != EPOLL_CTL_DEL && target_io(req->pid, false, args[3], &ev, sizeof(ev)) != sizeof(ev)) {
		respond(listener, req->id, EFAULT, 0);
		return;
	}
	region = mapped_region(tgid, fd);
	epfd = pidfd_getfd_of(req->pid, (int)args[0]);
	if (epfd < 0) {
		respond(listener, req->id, EBADF, 0);
		return;
	}
	pthread_mutex_lock(&watch_lock);
	w = watch_of(tgid, fd);
	if (!w && op == EPOLL_CTL_ADD && (w = calloc(1, sizeof(*w)))) {
		w->tgid = tgid;
		w->fd = fd;
		w->region = -1;
		w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (w->efd < 0) {
			free(w);
			w = NULL;
		} else {
			w->next = watches;
			watches = w;
			watch_region(w, region);
		}
	}
	if (!w) {
		err = op == EPOLL_CTL_ADD ? ENOMEM : ENOENT;
	} else {
		ev.events |= EPOLLET;
		ret = epoll_ctl(epfd, op, w->efd, &ev);
		if (ret < 0)
			err = errno;
	}
	if (!watcher_started && !err && pthread_create(&watcher, NULL, watch_buffers, NULL) == 0) {
		pthread_detach(watcher);
		watcher_started = true;
	}
	pthread_mutex_unlock(&watch_lock);
	close(epfd);
	respond(listener, req->id, err, 0);
}

bool serve_locally(int listener, const struct seccomp_notif *req, pid_t tgid, int how)
{
	if (!(how & SERVE_EPOLL))
		return false;
	answer_epoll_ctl(listener, req, tgid);
	return true;
}

void serve_fd_closed(pid_t tgid, long fd)
{
	struct served_fds *t;

	if (fd < 0 || fd >= MAX_SERVED_FD)
		return;
	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	if (t)
		t->open[fd / 64] &= ~(1ULL << (fd % 64));
	pthread_mutex_unlock(&fd_lock);
	pthread_mutex_lock(&watch_lock);
	unwatch(tgid, fd);
	pthread_mutex_unlock(&watch_lock);
}

void serve_fork(pid_t parent, pid_t child)
{
	struct served_fds *from, *to;

	pthread_mutex_lock(&fd_lock);
	from = fds_of(parent, false);
	if (from && (to = fds_of(child, true))) {
		memcpy(to->open, from->open, sizeof(to->open));
		memcpy(to->cloexec, from->cloexec, sizeof(to->cloexec));
		memcpy(to->mapped, from->mapped, sizeof(to->mapped));
	}
	pthread_mutex_unlock(&fd_lock);
}

void serve_exec(pid_t tgid)
{
	struct served_fds *t;
	int i;

	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	pthread_mutex_lock(&watch_lock);
	for (i = 0; t && i < MAX_SERVED_FD; i++)
		if (bit(t->cloexec, i))
			unwatch(tgid, i);
	pthread_mutex_unlock(&watch_lock);
	for (i = 0; t && i < WORDS; i++) {
		t->open[i] &= ~t->cloexec[i];
		t->cloexec[i] = 0;
	}
	pthread_mutex_unlock(&fd_lock);
}

void serve_exit(pid_t tgid)
{
	struct served_fds **p = &fd_tables[(unsigned int)tgid % FD_BUCKETS], *t;

	pthread_mutex_lock(&watch_lock);
	unwatch(tgid, -1);
	pthread_mutex_unlock(&watch_lock);
	pthread_mutex_lock(&fd_lock);
	for (; (t = *p); p = &t->next)
		if (t->tgid == tgid) {
			*p = t->next;
			free(t);
			break;
		}
	pthread_mutex_unlock(&fd_lock);
}

/* ---- which calls ---- */

/* bpf(2) commands that return a new fd (include/uapi/linux/bpf.h, 6.1) */
static bool bpf_cmd_makes_fd(unsigned long long cmd)
{
	switch (cmd) {
	case 0:		/* BPF_MAP_CREATE */
	case 5:		/* BPF_PROG_LOAD */
	case 7:		/* BPF_OBJ_GET */
	case 13:	/* BPF_PROG_GET_FD_BY_ID */
	case 14:	/* BPF_MAP_GET_FD_BY_ID */
	case 17:	/* BPF_RAW_TRACEPOINT_OPEN */
	case 18:	/* BPF_BTF_LOAD */
	case 19:	/* BPF_BTF_GET_FD_BY_ID */
	case 28:	/* BPF_LINK_CREATE */
	case 30:	/* BPF_LINK_GET_FD_BY_ID */
	case 32:	/* BPF_ENABLE_STATS */
	case 33:	/* BPF_ITER_CREATE */
		return true;
	default:
		return false;
	}
}

#define PERF_FLAG_FD_CLOEXEC (1UL << 3)

int serve_wanted(const struct seccomp_notif *req, pid_t tgid)
{
	const unsigned long long *args = req->data.args;

	if (reply_fd < 0)
		return 0;
	switch (req->data.nr) {
	case __NR_uname:
		return SERVE_CALL;
	case __NR_perf_event_open:
		return SERVE_CALL | SERVE_NEW_FD;
	case __NR_bpf:
		return SERVE_CALL | (bpf_cmd_makes_fd(args[0]) ? SERVE_NEW_FD : 0);
	case __NR_read:
	case __NR_ioctl:
		return is_served_fd(tgid, (long)args[0]) ? SERVE_CALL : 0;
	case __NR_mmap:
		return is_served_fd(tgid, (long)args[4]) ? SERVE_CALL | SERVE_MAP : 0;
	case __NR_epoll_ctl:
		return is_served_fd(tgid, (long)args[2]) ? SERVE_EPOLL : 0;
	default:
		return 0;
	}
}

void serve_init(int fd, const int *pool, int nr)
{
	int i;

	reply_fd = fd;
	for (i = 0; i < nr && i < MAX_POOL; i++) {
		pool_fds[i] = pool[i];
		fcntl(pool[i], F_SETFD, FD_CLOEXEC);	/* the supervisor's, never the session's */
	}
	nr_pool = i;
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

/* The host fd for the kernel's new fd `kfd`, given to the process with the answer: its
 * number, or -errno (then the call fails with it). */
static int give_fd(int listener, const struct seccomp_notif *req, pid_t tgid, bool cloexec)
{
	struct seccomp_notif_addfd addfd = {
		.id = req->id,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};
	int placeholder = memfd_create(req->data.nr == __NR_bpf ? "bpf" : "perf_event", MFD_CLOEXEC), fd;

	if (placeholder < 0)
		return -ENFILE;
	addfd.srcfd = placeholder;
	fd = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd);
	close(placeholder);
	if (fd < 0)
		return -errno;
	add_served_fd(tgid, fd, cloexec);
	return fd;
}

static bool is_cloexec(pid_t tgid, long fd)
{
	struct served_fds *t;
	bool yes;

	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	yes = t && bit(t->cloexec, fd);
	pthread_mutex_unlock(&fd_lock);
	return yes;
}

/* A served mmap: the fd becomes the file of the pool region the kernel mapped (the reply's),
 * then the host makes the call.  Never the placeholder: without the kernel's answer, ENODEV. */
static int answer_map(int listener, const struct seccomp_notif *req, pid_t tgid, struct session_ring *ring,
		      unsigned long long serial)
{
	long long ret, region;
	struct seccomp_notif_addfd addfd = {
		.id = req->id,
		.flags = SECCOMP_ADDFD_FLAG_SETFD,
		.newfd = (unsigned int)req->data.args[4],
	};

	if (!ring || !wait_reply(&ring->reply, req->pid, serial))
		return respond(listener, req->id, ENODEV, 0), SERVE_ANSWERED;
	ret = ring->reply.ret;
	region = ring->reply.region;
	if (ret < 0)
		return respond(listener, req->id, ret == -ENOSYS ? ENODEV : (int)-ret, 0), SERVE_ANSWERED;
	if (region < 0 || region >= nr_pool)
		return respond(listener, req->id, ENODEV, 0), SERVE_ANSWERED;
	addfd.srcfd = pool_fds[region];
	addfd.newfd_flags = is_cloexec(tgid, (long)req->data.args[4]) ? O_CLOEXEC : 0;
	set_mapped(tgid, (long)req->data.args[4], (int)region);
	pthread_mutex_lock(&watch_lock);
	{
		struct epoll_watch *w = watch_of(tgid, (int)req->data.args[4]);

		if (w)
			watch_region(w, (int)region);
	}
	pthread_mutex_unlock(&watch_lock);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd) < 0) {
		if (errno != ENOENT)	/* ENOENT: the caller is gone */
			respond(listener, req->id, errno, 0);
		return SERVE_ANSWERED;
	}
	respond_continue(listener, req->id);
	return SERVE_ANSWERED;
}

int serve_answer(int listener, const struct seccomp_notif *req, pid_t tgid, unsigned long long serial,
		 int how)
{
	struct session_ring *ring = mirror_ring();
	long long ret;
	int fd;

	if (how & SERVE_MAP)
		return answer_map(listener, req, tgid, ring, serial);
	if (!ring || !wait_reply(&ring->reply, req->pid, serial))
		return SERVE_UNANSWERED;
	ret = ring->reply.ret;
	if (ret == -ENOSYS)
		return SERVE_UNANSWERED;	/* a kernel without it: answer.c says so */
	if (ret < 0) {
		respond(listener, req->id, (int)-ret, 0);
		return SERVE_ANSWERED;
	}
	if (!(how & SERVE_NEW_FD)) {
		respond(listener, req->id, 0, ret);
		return SERVE_ANSWERED;
	}
	fd = give_fd(listener, req, tgid, req->data.nr == __NR_bpf ||
		     (req->data.nr == __NR_perf_event_open && (req->data.args[4] & PERF_FLAG_FD_CLOEXEC)));
	if (fd < 0 && fd != -ENOENT)	/* ENOENT: the caller is gone */
		respond(listener, req->id, -fd, 0);
	mirror_fd_given(req->pid, (int)ret, fd);
	return SERVE_ANSWERED;
}
