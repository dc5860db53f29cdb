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
 *    answers ENOSYS: answer.c then says so to the caller), and the calls on the fds they make;
 *  - syslog(2) and open(2)/openat(2) of /dev/kmsg (mirror.c's opens_kmsg()), the kernel's log:
 *    read, readv, pread64, write, writev, pwrite64, lseek and fstat of its fd are the kernel's
 *    too.  A read of it that would wait for a record (devkmsg_read's wait_event) is held:
 *    the kernel makes it without waiting (SESSION_SC_NOWAIT) and says it would have, or the
 *    supervisor knows the reader is at the log's end (the kernel's reply says where each fd's
 *    reader is, the ring's log_next_seq where the log ends); a holder thread makes it again
 *    once the log passes the reader, a signal ends it (-ERESTARTSYS).
 *
 * An fd such a call makes in the kernel becomes a host fd of the process: a placeholder file
 * the supervisor adds to it (SECCOMP_IOCTL_NOTIF_ADDFD, atomically with the answer), whose
 * number the kernel's fd then takes (an FD record), so that the process and the kernel name it
 * alike.  read(2) and ioctl(2) on it are served; close(2) goes to both (mirrored); dup(2) and
 * fcntl(F_DUPFD) of it are made by the supervisor (the new fd's number known), dup2(2)/dup3(2)
 * by the host, noted.  mmap(2) of
 * it is served too: the kernel makes the perf ring buffer in a region of the machine's perf
 * pool (machine/perf_pool.py, kernel/mmap.c) and says which; the supervisor puts that region's
 * memory file in place of the fd (SECCOMP_ADDFD_FLAG_SETFD, as dup2 would) and lets the host
 * make the call, which so maps the very pages the kernel writes.  The process's later calls on
 * the fd are still the kernel's.  The supervisor keeps, per process, which of its fds are
 * such placeholders (forks copy the set, a successful exec drops the close-on-exec ones), and
 * which perf pool region each one's buffer is in (its mmap, or PERF_EVENT_IOC_SET_OUTPUT).
 *
 * poll(2) and ppoll(2) of a set with such fds are held (the host's poll would find a memory
 * file always ready, and perf would poll busily): the supervisor answers the call when one of
 * the fds is ready, from the kernel's word in the region's status page (uapi/perf_pool.h: a
 * wakeup of the buffer since the last poll, rb->poll of Linux's perf_poll) or the host's for
 * the others (a copy of the process's fd, pidfd_getfd), or at the timeout.  A thread of its
 * own holds them, woken by the kernel's PORT_PERF_WAKEUP doorbell (wake_fd, which signals.c
 * reads and passes on: serve_kernel_woke) or by the host fds; a signal for the caller ends the call as it ends Linux's poll (-ERESTARTNOHAND), its
 * death lets go of it (SECCOMP_IOCTL_NOTIF_ID_VALID).
 *
 * epoll_ctl(2) of such an fd (libbpf's perf buffers, bpftrace) is answered here: a memory file
 * has no poll, so the supervisor puts an eventfd of its own in the caller's epoll instance in
 * the fd's place (the instance taken with pidfd_getfd, the caller's event and data kept), edge
 * triggered, and a watcher thread writes it when the kernel has written records the reader has
 * not read (the mapped buffer's data_head moved past data_tail), as perf_poll() reports a
 * wakeup once.  The eventfd goes when the fd is closed, or the process exits or execs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "session_ring.h"
#include "perf_pool.h"

/* How long a caller waits for a kernel that makes no progress (a paused or stopped machine),
 * and at most for one that does (replaying a busy session's backlog: a perf_event_open or
 * bpf served late still gets the kernel's answer, not ENOSYS); then its call is answered as a
 * session without the kernel would have it (answer.c).  Progress is a record retired, and the
 * kernel retires none while it works on one long call (a large map's memory, a verifier pass on
 * a loaded box): 2 s refused BCC's and libbpf's first calls about one clean-clone run in two. */
#define SERVE_TIMEOUT_MS 10000
#define SERVE_MAX_WAIT_MS 30000
/* The kernel's struct new_utsname (6 fields of 65 bytes), from the first uname it answered a
 * caller of the default personality: later ones of such callers are answered with it at once
 * (until a sethostname or setdomainname, which the kernel serves too, changes it), not after
 * the kernel has replayed what the session did before (a burst of calls makes that seconds,
 * and bash asks at each start, for gethostname).  A caller of another personality (setarch
 * linux32: machine i686; uname26: release 2.6.x) has the kernel answer it. */
#define UTS_SIZE (6 * 65)
static char uts[UTS_SIZE];
static bool uts_known;
#define CATCH_UP_MS 1000	/* a held poll ending unready waits at most this for the kernel */

static int reply_fd = -1, wake_fd = -1;
#define MAX_POOL 256
static int pool_fds[MAX_POOL], nr_pool;
static struct perf_pool_status *pool_status[MAX_POOL];	/* each region's last page */
/* each region's first two pages, read only: a BPF ring buffer map's consumer_pos and
 * producer_pos, when the region holds one (its status says so) */
static const unsigned long long *pool_head[MAX_POOL];
static bool ringbuf_positions(int region, unsigned long long *prod, unsigned long long *cons);

/* ---- the fds of the kernel's objects, per process ---- */

#define MAX_SERVED_FD 4096	/* fds past this are never the kernel's (EMFILE) */
#define WORDS (MAX_SERVED_FD / 64)

struct served_fds {
	struct served_fds *next;
	pid_t tgid;
	unsigned long long open[WORDS], cloexec[WORDS];
	unsigned short region[MAX_SERVED_FD];	/* 1 + the pool region of the fd's buffer; 0: none */
	/* the kernel's /dev/kmsg: which fds, opened (or set) O_NONBLOCK, and the record each one's
	 * reader reads next, as the kernel said at the last call on it */
	unsigned long long kmsg[WORDS], kmsg_nonblock[WORDS];
	unsigned long long kmsg_seq[MAX_SERVED_FD];
	/* it mapped a served fd (a perf pool region) since its exec: its munmaps are the kernel's
	 * business even once the fd is closed (a BPF map's mapping holds the map) */
	bool mapped;
};

static pthread_mutex_t serve_mutex = PTHREAD_MUTEX_INITIALIZER;

void serve_lock(void)
{
	pthread_mutex_lock(&serve_mutex);
}

void serve_unlock(void)
{
	pthread_mutex_unlock(&serve_mutex);
}

static void set_bit_to(unsigned long long *set, long fd, bool on)
{
	if (on)
		set[fd / 64] |= 1ULL << (fd % 64);
	else
		set[fd / 64] &= ~(1ULL << (fd % 64));
}

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

/* Takes fd_lock: the process's table if fd is one of its served fds, else NULL. */
static struct served_fds *lock_served(pid_t tgid, long fd)
{
	struct served_fds *t;

	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	return t && bit(t->open, fd) ? t : NULL;
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

static int region_of(pid_t tgid, long fd);

static void add_served_fd(pid_t tgid, int fd, bool cloexec)
{
	struct served_fds *t;

	if (fd < 0 || fd >= MAX_SERVED_FD)
		return;
	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, true);
	if (t) {
		t->open[fd / 64] |= 1ULL << (fd % 64);
		t->region[fd] = 0;
		set_bit_to(t->kmsg, fd, false);
		if (cloexec)
			t->cloexec[fd / 64] |= 1ULL << (fd % 64);
		else
			t->cloexec[fd / 64] &= ~(1ULL << (fd % 64));
	}
	pthread_mutex_unlock(&fd_lock);
}

/* Whether the fd is the kernel's /dev/kmsg; its reader's next record and O_NONBLOCK. */
static bool kmsg_state(pid_t tgid, long fd, unsigned long long *seq, bool *nonblock)
{
	struct served_fds *t = lock_served(tgid, fd);
	bool yes = t && bit(t->kmsg, fd);

	if (yes) {
		*seq = t->kmsg_seq[fd];
		*nonblock = bit(t->kmsg_nonblock, fd);
	}
	pthread_mutex_unlock(&fd_lock);
	return yes;
}

static void note_kmsg_watch(pid_t tgid, long fd, unsigned long long seq);

/* What the kernel's reply to a served call said of the fd's file (SESSION_KMSG_*). */
static void set_kmsg_state(pid_t tgid, long fd, unsigned long long kmsg, unsigned long long seq)
{
	struct served_fds *t;

	if (fd < 0 || fd >= MAX_SERVED_FD)
		return;
	if ((t = lock_served(tgid, fd))) {
		set_bit_to(t->kmsg, fd, kmsg & SESSION_KMSG_FILE);
		set_bit_to(t->kmsg_nonblock, fd, kmsg & SESSION_KMSG_NONBLOCK);
		t->kmsg_seq[fd] = seq;
	}
	pthread_mutex_unlock(&fd_lock);
	note_kmsg_watch(tgid, fd, seq);
}

/* The sequence number of the kernel log's next record (the kernel's word in the ring). */
static unsigned long long log_next_seq(void)
{
	struct session_ring *ring = mirror_ring();

	return ring ? __atomic_load_n(&ring->log_next_seq, __ATOMIC_ACQUIRE) : 0;
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
	unsigned long long signalled;	/* data_head when the eventfd was last written (/dev/kmsg:
					 * the log's next record then) */
	bool kmsg;			/* the fd is /dev/kmsg: ready when the log passes kmsg_seq, */
	unsigned long long kmsg_seq;	/* its reader's next record (as the kernel last said) */
	unsigned long long wakeups;	/* a BPF ring buffer's: its region's wakeups at the last edge */
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

/* Under watch_lock: an edge on the watch's eventfd */
static void edge(struct epoll_watch *w)
{
	uint64_t one = 1;

	if (write(w->efd, &one, sizeof(one)) < 0 && errno == EAGAIN) {
		/* a full count: drain it, the edge comes with the next write */
		uint64_t n;

		if (read(w->efd, &n, sizeof(n)) == sizeof(n))
			(void)write(w->efd, &one, sizeof(one));
	}
}

/* Under watch_lock: the watch's region from now on (an mmap of its fd) */
static void watch_region(struct epoll_watch *w, int region)
{
	unsigned long long prod, cons;
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
	if (ringbuf_positions(region, &prod, &cons)) {
		/* ep_insert() polls the file at once: a ring buffer with data is ready now */
		w->wakeups = __atomic_load_n(&pool_status[region]->wakeups, __ATOMIC_ACQUIRE);
		if (prod != cons)
			edge(w);
	}
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

/* An epoll watch of a /dev/kmsg fd: where its reader is now. */
static void note_kmsg_watch(pid_t tgid, long fd, unsigned long long seq)
{
	struct epoll_watch *w;

	pthread_mutex_lock(&watch_lock);
	w = watch_of(tgid, (int)fd);
	if (w && w->kmsg)
		w->kmsg_seq = seq;
	pthread_mutex_unlock(&watch_lock);
}

/* Under watch_lock: an edge for each watched buffer with records written since the last one
 * and not all read (/dev/kmsg: a record its reader has not read, as devkmsg_poll says). */
static void signal_new_records(void)
{
	struct epoll_watch *w;

	for (w = watches; w; w = w->next) {
		unsigned long long head, tail;

		if (w->kmsg) {	/* a record its reader has not read, come since the last edge */
			head = log_next_seq();
			tail = head > w->kmsg_seq ? w->kmsg_seq : head;
		} else if (!w->page) {
			continue;
		} else if (ringbuf_positions(w->region, &head, &tail)) {
			/* a BPF ring buffer map: 6.1 wakes its waiters when a record is committed with
			 * the consumer caught up, or with BPF_RB_FORCE_WAKEUP, never with
			 * BPF_RB_NO_WAKEUP (bpf_ringbuf_commit()); the wakeup finds it ready if the
			 * data is still there to read (ringbuf_map_poll_kern()) */
			unsigned long long wakeups = __atomic_load_n(&pool_status[w->region]->wakeups, __ATOMIC_ACQUIRE);

			if (wakeups != w->wakeups) {
				w->wakeups = wakeups;
				if (head != tail)
					edge(w);
			}
			continue;
		} else {
			head = __atomic_load_n(&w->page->data_head, __ATOMIC_ACQUIRE);
			tail = __atomic_load_n(&w->page->data_tail, __ATOMIC_ACQUIRE);
		}
		if (head != tail && head != w->signalled) {
			w->signalled = head;
			edge(w);
		}
	}
}

/* Every 2 ms: signal_new_records().  Ends when nothing is watched (the next epoll_ctl starts
 * it again). */
static void *watch_buffers(void *unused)
{
	const struct timespec tick = { 0, 2000000 };

	(void)unused;
	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&watch_lock);
		if (!watches) {
			watcher_started = false;
			pthread_mutex_unlock(&watch_lock);
			return NULL;
		}
		signal_new_records();
		pthread_mutex_unlock(&watch_lock);
	}
	return NULL;
}

/*
 * Before a served call returns: what it made the kernel write (BPF_PROG_TEST_RUN of bpftrace's
 * END program, its printf()s) is signalled now, not at the watcher's next tick, as Linux's
 * perf_output wakes the buffer's pollers at once: the caller's next epoll_wait (bpftrace's last
 * drain, with no timeout) sees it.
 */
static void served_call_done(void)
{
	pthread_mutex_lock(&watch_lock);
	signal_new_records();
	pthread_mutex_unlock(&watch_lock);
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
	unsigned long long kmsg_seq = 0;
	bool kmsg, nonblock;
	struct epoll_event ev = { 0 };
	struct epoll_watch *w;

	if (op != EPOLL_CTL_DEL && target_io(req->pid, false, args[3], &ev, sizeof(ev)) != sizeof(ev)) {
		respond(listener, req->id, EFAULT, 0);
		return;
	}
	region = region_of(tgid, fd) - 1;  /* -1: not mapped (yet) */
	kmsg = kmsg_state(tgid, fd, &kmsg_seq, &nonblock);
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
		w->kmsg = kmsg;
		w->kmsg_seq = kmsg_seq;
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

static void answer_dup(int listener, const struct seccomp_notif *req, pid_t tgid);

bool serve_locally(int listener, const struct seccomp_notif *req, pid_t tgid, int how)
{
	if (how & SERVE_UTS) {
		bool copied = target_io(req->pid, true, req->data.args[0], uts, sizeof(uts)) == sizeof(uts);

		respond(listener, req->id, copied ? 0 : EFAULT, 0);
		return true;
	}
	if (how & SERVE_DUP) {
		answer_dup(listener, req, tgid);
		return true;
	}
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
	if (t) {
		t->open[fd / 64] &= ~(1ULL << (fd % 64));
		t->region[fd] = 0;
		set_bit_to(t->kmsg, fd, false);
	}
	pthread_mutex_unlock(&fd_lock);
	pthread_mutex_lock(&watch_lock);
	unwatch(tgid, fd);
	pthread_mutex_unlock(&watch_lock);
}

/* Under fd_lock: newfd names what oldfd names (a dup), in t. */
static void copy_served_fd(struct served_fds *t, long oldfd, long newfd, bool cloexec)
{
	set_bit_to(t->open, newfd, true);
	set_bit_to(t->cloexec, newfd, cloexec);
	t->region[newfd] = t->region[oldfd];
	set_bit_to(t->kmsg, newfd, bit(t->kmsg, oldfd));
	set_bit_to(t->kmsg_nonblock, newfd, bit(t->kmsg_nonblock, oldfd));
	t->kmsg_seq[newfd] = t->kmsg_seq[oldfd];
}

/*
 * dup2(2)/dup3(2), which the host makes (mirrored): newfd is then what oldfd is, a served fd
 * or not (a shell's `> /dev/kmsg` is an open, then a dup2 to 1; its restoring dup2 makes 1
 * the terminal again).
 */
void serve_fd_dup2(pid_t tgid, long oldfd, long newfd, bool cloexec)
{
	struct served_fds *t;
	bool served;

	if (oldfd == newfd || newfd < 0 || newfd >= MAX_SERVED_FD || oldfd < 0)
		return;
	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	served = t && bit(t->open, oldfd);
	if (served)
		copy_served_fd(t, oldfd, newfd, cloexec);
	pthread_mutex_unlock(&fd_lock);
	if (!served && is_served_fd(tgid, newfd))
		serve_fd_closed(tgid, newfd);	/* (the dup2 closes it first) */
	else if (served) {
		pthread_mutex_lock(&watch_lock);
		unwatch(tgid, newfd);
		pthread_mutex_unlock(&watch_lock);
	}
}

static bool has_served_fds(pid_t tgid);

/* fcntl(F_SETFL) and fcntl(F_SETFD) of a served fd, which the host makes and the kernel's
 * mirrored call too: what the supervisor keeps of it (O_NONBLOCK decides whether a /dev/kmsg
 * read at the log's end waits, FD_CLOEXEC whether an exec closes it). */
static void note_fcntl(pid_t tgid, long fd, int cmd, unsigned long long arg)
{
	struct served_fds *t;

	if (fd < 0 || fd >= MAX_SERVED_FD)
		return;
	if ((t = lock_served(tgid, fd))) {
		if (cmd == F_SETFL)
			set_bit_to(t->kmsg_nonblock, fd, arg & O_NONBLOCK);
		else
			set_bit_to(t->cloexec, fd, arg & FD_CLOEXEC);
	}
	pthread_mutex_unlock(&fd_lock);
}

/* close_range(2), which the host makes: the served fds from first to last are closed (or
 * become close-on-exec). */
void serve_fd_close_range(pid_t tgid, unsigned long long first, unsigned long long last, bool cloexec)
{
	struct served_fds *t;
	long fd;

	if (first >= MAX_SERVED_FD || first > last || !has_served_fds(tgid))
		return;
	if (last >= MAX_SERVED_FD)
		last = MAX_SERVED_FD - 1;
	for (fd = (long)first; fd <= (long)last; fd++) {
		if (!is_served_fd(tgid, fd))
			continue;
		if (!cloexec) {
			serve_fd_closed(tgid, fd);
			continue;
		}
		pthread_mutex_lock(&fd_lock);
		if ((t = fds_of(tgid, false)))
			set_bit_to(t->cloexec, fd, true);
		pthread_mutex_unlock(&fd_lock);
	}
}

/* The lowest fd number the process has free from `min` on (fcntl's F_DUPFD), or -1. */
static int lowest_free_fd(pid_t tgid, long min)
{
	static unsigned long long used[WORDS];
	char path[64];
	struct dirent *e;
	DIR *dir;
	long fd;

	if (min < 0 || min >= MAX_SERVED_FD)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)tgid);
	if (!(dir = opendir(path)))
		return -1;
	memset(used, 0, sizeof(used));
	while ((e = readdir(dir))) {
		fd = strtol(e->d_name, NULL, 10);
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd < MAX_SERVED_FD)
			set_bit_to(used, fd, true);
	}
	closedir(dir);
	for (fd = min; fd < MAX_SERVED_FD; fd++)
		if (!bit(used, fd))
			return (int)fd;
	return -1;
}

static int pidfd_getfd_of(pid_t pid, int fd);

/*
 * dup(2) or fcntl(F_DUPFD, F_DUPFD_CLOEXEC) of a served fd (SERVE_DUP): the supervisor makes
 * the new fd, the same file at the number the host's call would give (SECCOMP_IOCTL_NOTIF_ADDFD
 * with the answer), so that it knows the number and the new fd is served too; the kernel's
 * mirrored call gives its fd the same one.
 */
static void answer_dup(int listener, const struct seccomp_notif *req, pid_t tgid)
{
	const unsigned long long *args = req->data.args;
	bool fcntl_dup = req->data.nr == __NR_fcntl, cloexec = fcntl_dup && (int)args[1] == F_DUPFD_CLOEXEC;
	struct seccomp_notif_addfd addfd = {
		.id = req->id,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};
	int src, fd;

	if (fcntl_dup) {
		long min = (long)(int)args[2];
		int at;

		if (min < 0) {
			respond(listener, req->id, EINVAL, 0);
			return;
		}
		at = lowest_free_fd(tgid, min);
		if (at < 0) {
			respond(listener, req->id, min >= MAX_SERVED_FD ? EINVAL : EMFILE, 0);
			return;
		}
		addfd.flags |= SECCOMP_ADDFD_FLAG_SETFD;
		addfd.newfd = (unsigned int)at;
	}
	src = pidfd_getfd_of(req->pid, (int)args[0]);
	if (src < 0) {
		respond(listener, req->id, EBADF, 0);
		return;
	}
	addfd.srcfd = src;
	fd = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd);
	close(src);
	if (fd < 0) {
		if (errno != ENOENT)
			respond(listener, req->id, errno, 0);
		return;
	}
	if (fd < MAX_SERVED_FD) {
		struct served_fds *t;

		pthread_mutex_lock(&fd_lock);
		t = fds_of(tgid, false);
		if (t && bit(t->open, (long)args[0]))
			copy_served_fd(t, (long)args[0], fd, cloexec);
		pthread_mutex_unlock(&fd_lock);
	}
}

/* The pool region of the buffer the fd's event writes to (1 + it), or 0: none. */
static int region_of(pid_t tgid, long fd)
{
	struct served_fds *t;
	int region = 0;

	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	if (t && bit(t->open, fd))
		region = t->region[fd];
	pthread_mutex_unlock(&fd_lock);
	return region;
}

static void set_region(pid_t tgid, long fd, int region)
{
	struct served_fds *t;

	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	if (t && bit(t->open, fd)) {
		t->region[fd] = region;
		t->mapped = true;
	}
	pthread_mutex_unlock(&fd_lock);
}

static bool has_served_fds(pid_t tgid)
{
	struct served_fds *t;
	bool any = false;
	int i;

	pthread_mutex_lock(&fd_lock);
	t = fds_of(tgid, false);
	any = t && t->mapped;
	for (i = 0; t && i < WORDS && !any; i++)
		any = t->open[i] != 0;
	pthread_mutex_unlock(&fd_lock);
	return any;
}

void serve_fork(pid_t parent, pid_t child)
{
	struct served_fds *from, *to;

	pthread_mutex_lock(&fd_lock);
	from = fds_of(parent, false);
	if (from && (to = fds_of(child, true))) {
		memcpy(to->open, from->open, sizeof(to->open));
		memcpy(to->cloexec, from->cloexec, sizeof(to->cloexec));
		memcpy(to->region, from->region, sizeof(to->region));
		memcpy(to->kmsg, from->kmsg, sizeof(to->kmsg));
		memcpy(to->kmsg_nonblock, from->kmsg_nonblock, sizeof(to->kmsg_nonblock));
		memcpy(to->kmsg_seq, from->kmsg_seq, sizeof(to->kmsg_seq));
		to->mapped = from->mapped;
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
	if (t)
		t->mapped = false;	/* (an exec unmaps everything) */
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

static bool polls_served_fd(const struct seccomp_notif *req, pid_t tgid);

/*
 * A munmap (SERVE_UNMAP) of a process with served fds: the perf pool regions its range maps
 * (the regions' memory files are named perf-ring-N), as a mask for the kernel, which lets go
 * of their buffers' mappings (SESSION_SC_PERF_UNMAP); its fds no longer poll them.
 */
unsigned long long serve_unmapped_regions(pid_t tgid, unsigned long long addr, unsigned long long len)
{
	char path[64], line[512];
	unsigned long long mask = 0;
	FILE *maps;
	int region;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tgid);
	maps = fopen(path, "re");
	if (!maps)
		return 0;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long start, end;
		const char *name = strstr(line, "/memfd:perf-ring-");

		if (!name || sscanf(line, "%llx-%llx", &start, &end) != 2 || end <= addr || start >= addr + len)
			continue;
		region = atoi(name + strlen("/memfd:perf-ring-"));
		if (region >= 0 && region < 64 && region < nr_pool)
			mask |= 1ULL << region;
	}
	fclose(maps);
	if (mask) {
		struct served_fds *t;
		int fd;

		pthread_mutex_lock(&fd_lock);
		t = fds_of(tgid, false);
		for (fd = 0; t && fd < MAX_SERVED_FD; fd++)
			if (t->region[fd] && t->region[fd] <= 64 && (mask >> (t->region[fd] - 1) & 1))
				t->region[fd] = 0;
		pthread_mutex_unlock(&fd_lock);
	}
	return mask;
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

static bool empty_path(pid_t pid, unsigned long long addr)
{
	char c = 1;

	return addr && target_io(pid, false, addr, &c, 1) == 1 && !c;
}

int serve_kmsg_open(void)
{
	return reply_fd >= 0 ? SERVE_CALL | SERVE_NEW_FD : 0;
}

/* A read of a served fd: the kernel's (a /dev/kmsg reader that would wait is held, see
 * hold_read()); of a perf event or BPF object, read(2) only. */
static int serve_read(int nr, pid_t tgid, long fd)
{
	unsigned long long seq;
	bool nonblock;

	if (!is_served_fd(tgid, fd))
		return 0;
	if (!kmsg_state(tgid, fd, &seq, &nonblock))
		return nr == __NR_read ? SERVE_CALL : 0;
	if (!nonblock && seq >= log_next_seq())
		return SERVE_DEFER;	/* (nothing to read: no call until there is) */
	return SERVE_CALL | SERVE_NOWAIT;
}

/* The caller's personality is PER_LINUX with no flag that changes what uname says (its host
 * process's: personality(2) goes on on the host too) */
static bool default_personality(pid_t tid)
{
	char text[32];
	ssize_t n = read_proc(tid, "personality", text, sizeof(text) - 1);

	if (n <= 0)
		return false;
	text[n] = 0;
	return strtoul(text, NULL, 16) == 0;	/* (PER_LINUX: /proc/PID/personality's %08x) */
}

int serve_wanted(const struct seccomp_notif *req, pid_t tgid)
{
	const unsigned long long *args = req->data.args;
	unsigned long long seq;
	bool nonblock;

	if (reply_fd < 0)
		return 0;
	switch (req->data.nr) {
	case __NR_uname:
		return __atomic_load_n(&uts_known, __ATOMIC_ACQUIRE) && default_personality(req->pid) ?
		       SERVE_UTS : SERVE_CALL;
	case __NR_syslog:	/* the kernel's log, not the host's (dmesg) */
	case __NR_sethostname:	/* the kernel's names (uname's), never the host's */
	case __NR_setdomainname:
		return SERVE_CALL;
	case __NR_perf_event_open:
		return SERVE_CALL | SERVE_NEW_FD;
	case __NR_bpf:
		return SERVE_CALL | (bpf_cmd_makes_fd(args[0]) ? SERVE_NEW_FD : 0);
	case __NR_read:
	case __NR_readv:
	case __NR_pread64:
		return serve_read((int)req->data.nr, tgid, (long)args[0]);
	case __NR_ioctl:
		return is_served_fd(tgid, (long)args[0]) ? SERVE_CALL : 0;
	case __NR_write:	/* /dev/kmsg's: a record of the kernel's log */
	case __NR_writev:
	case __NR_pwrite64:
	case __NR_lseek:
		return kmsg_state(tgid, (long)args[0], &seq, &nonblock) ? SERVE_CALL : 0;
	case __NR_fstat:	/* /dev/kmsg's: the kernel's device (what head(1) asks) */
		return kmsg_state(tgid, (long)args[0], &seq, &nonblock) ? SERVE_CALL : 0;
	case __NR_newfstatat:	/* glibc's fstat(): (fd, "", AT_EMPTY_PATH) */
	case __NR_statx:
		return (args[req->data.nr == __NR_statx ? 2 : 3] & AT_EMPTY_PATH) &&
		       kmsg_state(tgid, (long)(int)args[0], &seq, &nonblock) && empty_path(req->pid, args[1]) ?
		       SERVE_CALL : 0;
	case __NR_dup:
		return is_served_fd(tgid, (long)args[0]) ? SERVE_DUP : 0;
	case __NR_fcntl:
		if ((int)args[1] == F_SETFL || (int)args[1] == F_SETFD)	/* (the host makes it) */
			note_fcntl(tgid, (long)args[0], (int)args[1], args[2]);
		return ((int)args[1] == F_DUPFD || (int)args[1] == F_DUPFD_CLOEXEC) &&
		       is_served_fd(tgid, (long)args[0]) ? SERVE_DUP : 0;
	case __NR_mmap:
		return is_served_fd(tgid, (long)args[4]) ? SERVE_CALL | SERVE_MAP : 0;
	case __NR_munmap:
		return has_served_fds(tgid) ? SERVE_UNMAP : 0;
	case __NR_poll:
	case __NR_ppoll:
		return wake_fd >= 0 && has_served_fds(tgid) && polls_served_fd(req, tgid) ? SERVE_HELD : 0;
	case __NR_epoll_ctl:
		return is_served_fd(tgid, (long)args[2]) ? SERVE_EPOLL : 0;
	default:
		return 0;
	}
}

void serve_init(int fd, int wake, const int *pool, int nr)
{
	int i;

	reply_fd = fd;
	for (i = 0; i < nr && i < MAX_POOL; i++) {
		struct stat st;
		void *page = MAP_FAILED;

		pool_fds[i] = pool[i];
		fcntl(pool[i], F_SETFD, FD_CLOEXEC);	/* the supervisor's, never the session's */
		if (fstat(pool[i], &st) == 0 && st.st_size >= PERF_POOL_STATUS_PAGES * 4096)
			page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, pool[i],
				    st.st_size - PERF_POOL_STATUS_PAGES * 4096);
		pool_status[i] = page == MAP_FAILED ? NULL : page;
		page = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, pool[i], 0);
		pool_head[i] = page == MAP_FAILED ? NULL : page;
	}
	nr_pool = i;
	if (wake >= 0) {
		fcntl(wake, F_SETFD, FD_CLOEXEC);
		wake_fd = wake;
	}
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
 * caller's memory meanwhile; false once the kernel retired no record of the ring for
 * SERVE_TIMEOUT_MS, or after SERVE_MAX_WAIT_MS.  (uname, which bash asks at each start, waits
 * so only once: later ones are the supervisor's, SERVE_UTS.) */
static bool wait_reply(struct session_ring *ring, pid_t pid, unsigned long long serial)
{
	struct session_reply *r = &ring->reply;
	unsigned long long progress = __atomic_load_n(&ring->retired, __ATOMIC_ACQUIRE);
	long long start = now_ms(), deadline = start + SERVE_TIMEOUT_MS;

	while (__atomic_load_n(&r->serial, __ATOMIC_ACQUIRE) != serial) {
		struct pollfd p = { .fd = reply_fd, .events = POLLIN };
		unsigned long long asked = __atomic_load_n(&r->uaccess.asked, __ATOMIC_ACQUIRE);
		long long now = now_ms(), left = deadline - now;
		uint64_t count;

		if (asked != r->uaccess.answered) {
			answer_uaccess(pid, &r->uaccess, asked);
			continue;
		}
		if (left <= 0) {
			unsigned long long retired = __atomic_load_n(&ring->retired, __ATOMIC_ACQUIRE);

			if (retired != progress && now - start < SERVE_MAX_WAIT_MS) {
				progress = retired;
				deadline = now + SERVE_TIMEOUT_MS;
				continue;
			}
			__atomic_store_n(&r->abandoned, serial, __ATOMIC_RELEASE);
			return false;
		}
		if (poll(&p, 1, (int)left) > 0 && read(reply_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
			return false;
	}
	return true;
}

static bool is_open_call(long nr)
{
	return nr == __NR_open || nr == __NR_openat || nr == __NR_openat2;
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
	int placeholder = memfd_create(req->data.nr == __NR_bpf ? "bpf" :
				       req->data.nr == __NR_perf_event_open ? "perf_event" : "kmsg", MFD_CLOEXEC), fd;

	if (placeholder < 0)
		return -ENFILE;
	if (is_open_call(req->data.nr) && (open_call_flags(req) & O_NONBLOCK))
		fcntl(placeholder, F_SETFL, O_NONBLOCK);	/* (F_GETFL shows the open's flags) */
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

/* ---- poll(2) and ppoll(2) of served fds (see the top) ---- */

#define HELD_MAX_FDS 1024	/* a larger set is left to the host */
#define HELD_CHECK_MS 20	/* how often the holder looks for a signal to a held call's caller */
#define ERESTARTSYS 512	/* a wait's answer to a signal: restarted with SA_RESTART, else EINTR */
#define ERESTARTNOHAND 514	/* poll's answer to a signal: EINTR after a handler, else restarted */

struct held_poll {
	struct held_poll *next;
	uint64_t id;
	pid_t pid, tgid;
	int nr;
	unsigned long long ufds, tsp;
	unsigned int nfds;
	long long deadline_ms;		/* -1: none */
	struct pollfd *fds;		/* the caller's set, revents as they will be answered */
	int *copy;			/* a host fd's copy (-1: a served fd, a negative one or none) */
	bool *bad;			/* an fd the process does not have: POLLNVAL */
	bool caught_up;			/* the kernel caught up with the session once since it came */
};

/* A read of /dev/kmsg that waits for a record (hold_read()): its notification. */
struct held_read {
	struct held_read *next;
	struct seccomp_notif req;
	pid_t tgid;
};

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct held_poll *held_new;	/* handed over to the holder, under held_lock */
static struct held_read *held_reads;	/* the holder's, under held_lock */
static int held_listener = -1, held_bell = -1;
static bool holder_started;
/* what the supervisor's polls took of each region's wakeups (perf_poll's xchg), under held_lock */
static unsigned long long seen_generation[MAX_POOL], seen_wakeups[MAX_POOL];

static bool read_pollfds(pid_t pid, unsigned long long addr, unsigned int nfds, struct pollfd *fds)
{
	return nfds == 0 || target_io(pid, false, addr, fds, nfds * sizeof(*fds)) == (ssize_t)(nfds * sizeof(*fds));
}

/* serve_wanted: whether a poll/ppoll names one of the process's served fds (and can be held) */
static bool polls_served_fd(const struct seccomp_notif *req, pid_t tgid)
{
	unsigned int nfds = (unsigned int)req->data.args[1], i;
	struct pollfd fds[64];

	if (nfds > HELD_MAX_FDS)
		return false;
	if (req->data.nr == __NR_ppoll && req->data.args[3])
		return false;	/* a signal mask for the wait: only the host can apply it */
	for (i = 0; i < nfds; i += 64) {
		unsigned int n = nfds - i < 64 ? nfds - i : 64, j;

		if (!read_pollfds(req->pid, req->data.args[0] + i * sizeof(*fds), n, fds))
			return false;
		for (j = 0; j < n; j++)
			if (is_served_fd(tgid, fds[j].fd))
				return true;
	}
	return false;
}

static struct perf_pool_status *status_of(int region)
{
	return region >= 0 && region < nr_pool ? pool_status[region] : NULL;
}

/* A region that holds a BPF ring buffer map (kernel/bpf/ringbuf.c): its positions. */
static bool ringbuf_positions(int region, unsigned long long *prod, unsigned long long *cons)
{
	struct perf_pool_status *st = status_of(region);

	if (!st || !__atomic_load_n(&st->ringbuf, __ATOMIC_ACQUIRE) || !pool_head[region])
		return false;
	*cons = __atomic_load_n(&pool_head[region][0], __ATOMIC_ACQUIRE);
	*prod = __atomic_load_n(&pool_head[region][4096 / 8], __ATOMIC_ACQUIRE);
	return true;
}

/*
 * Whether the record at consumer position cons of a ring buffer map's region is committed
 * (its header's BPF_RINGBUF_BUSY_BIT clear: submitted or discarded).  The kernel runs behind
 * the session: a poll that follows the caller's own syscall can come while the program that
 * syscall ran is between reserve and submit, which on Linux has ended before the syscall
 * returned; the poll is ready when the record is there to read.
 */
static bool ringbuf_committed(int region, unsigned long long cons)
{
	unsigned int len;
	unsigned long long mask = __atomic_load_n(&pool_status[region]->ringbuf_mask, __ATOMIC_ACQUIRE);

	if (pread(pool_fds[region], &len, sizeof(len), 2 * 4096 + (cons & mask)) != sizeof(len))
		return true;
	return !(len & (1U << 31));
}

/* Under held_lock: whether the region had a wakeup the polls did not take yet. */
static bool wakeup_pending(int region)
{
	struct perf_pool_status *st = status_of(region);

	return st && (__atomic_load_n(&st->generation, __ATOMIC_SEQ_CST) != seen_generation[region] ||
		      __atomic_load_n(&st->wakeups, __ATOMIC_SEQ_CST) != seen_wakeups[region]);
}

/* Under held_lock: whether the region had a wakeup since a poll last took one; takes it. */
static bool take_wakeup(int region)
{
	struct perf_pool_status *st = status_of(region);
	unsigned long long gen, wakeups;

	if (!wakeup_pending(region))
		return false;
	gen = __atomic_load_n(&st->generation, __ATOMIC_ACQUIRE);
	wakeups = __atomic_load_n(&st->wakeups, __ATOMIC_ACQUIRE);
	seen_generation[region] = gen;
	seen_wakeups[region] = wakeups;
	return wakeups != 0;
}

/* Under held_lock: one pass of do_poll(), each fd's revents; how many are ready. */
static int poll_pass(struct held_poll *h)
{
	int count = 0;
	unsigned int i;

	for (i = 0; i < h->nfds; i++) {
		struct pollfd *p = &h->fds[i];
		short mask = p->events | POLLERR | POLLHUP;

		p->revents = 0;
		if (p->fd < 0)
			continue;
		if (h->bad[i]) {
			p->revents = POLLNVAL;
		} else if (h->copy[i] < 0) {
			unsigned long long seq, prod, cons;
			int region = region_of(h->tgid, p->fd) - 1;
			bool nonblock;

			if (kmsg_state(h->tgid, p->fd, &seq, &nonblock)) {
				/* /dev/kmsg: a record its reader has not read (devkmsg_poll) */
				if (seq < log_next_seq())
					p->revents = (POLLIN | POLLRDNORM) & mask;
			} else if (ringbuf_positions(region, &prod, &cons)) {
				/* a BPF ring buffer map: data to read (ringbuf_map_poll_kern()); its
				 * wakeups only wake the holder to look */
				take_wakeup(region);
				if (prod != cons && ringbuf_committed(region, cons))
					p->revents = (POLLIN | POLLRDNORM) & mask;
			} else if (take_wakeup(region_of(h->tgid, p->fd) - 1)) {
				/* the kernel's event: EPOLLIN after a wakeup of its buffer */
				p->revents = POLLIN & mask;
			}
		} else {
			struct pollfd q = { .fd = h->copy[i], .events = p->events };

			if (poll(&q, 1, 0) > 0)
				p->revents = q.revents & (mask | POLLNVAL);
		}
		if (p->revents)
			count++;
	}
	return count;
}

static void free_held(struct held_poll *h)
{
	unsigned int i;

	for (i = 0; h->copy && i < h->nfds; i++)
		if (h->copy[i] >= 0)
			close(h->copy[i]);
	free(h->fds);
	free(h->copy);
	free(h->bad);
	free(h);
}

/*
 * Whether a signal the thread does not block is pending for it.  The caller of a held call
 * cannot take it (the filter's wait is killable only, once the supervisor took the call), so
 * the holder answers as Linux's poll does when a signal comes: -ERESTARTNOHAND.
 */
static bool signal_pending(pid_t tid)
{
	char buf[2048], *p;
	unsigned long long pending = 0, blocked = 0;

	if (read_proc(tid, "status", buf, sizeof(buf)) <= 0)
		return false;
	if ((p = strstr(buf, "\nSigPnd:")))
		pending |= strtoull(p + 8, NULL, 16);
	if ((p = strstr(buf, "\nShdPnd:")))
		pending |= strtoull(p + 8, NULL, 16);
	if ((p = strstr(buf, "\nSigBlk:")))
		blocked = strtoull(p + 8, NULL, 16);
	return (pending & ~blocked) != 0;
}

/* Give the held call its result: the revents written back, the count (0: the timeout). */
static void answer_held(struct held_poll *h, int count)
{
	if (h->nfds && target_io(h->pid, true, h->ufds, h->fds, h->nfds * sizeof(*h->fds)) !=
			       (ssize_t)(h->nfds * sizeof(*h->fds))) {
		respond(held_listener, h->id, EFAULT, 0);
		return;
	}
	if (h->nr == __NR_ppoll && h->tsp) {	/* ppoll(2) leaves the time not slept there */
		long long left = h->deadline_ms < 0 ? 0 : h->deadline_ms - now_ms();
		struct timespec ts = { 0, 0 };

		if (left > 0) {
			ts.tv_sec = left / 1000;
			ts.tv_nsec = left % 1000 * 1000000;
		}
		target_io(h->pid, true, h->tsp, &ts, sizeof(ts));
	}
	respond(held_listener, h->id, 0, count);
}

/* Under held_lock: tell the kernel to ring for the held calls' buffers; how many host fds
 * they wait on, and whether a wakeup came meanwhile. */
static unsigned int arm(struct held_poll *held, bool *pending)
{
	unsigned int n = 0, i;
	struct held_poll *h;

	*pending = false;
	for (h = held; h; h = h->next)
		for (i = 0; i < h->nfds; i++) {
			int region;

			if (h->copy[i] >= 0) {
				n++;
				continue;
			}
			region = h->fds[i].fd >= 0 ? region_of(h->tgid, h->fds[i].fd) - 1 : -1;
			if (status_of(region)) {
				__atomic_store_n(&status_of(region)->waiting, 1, __ATOMIC_SEQ_CST);
				/* a wakeup before `waiting` was seen rang no bell: look now */
				*pending |= wakeup_pending(region);
			}
		}
	return n;
}

static struct held_read *ready_reads;	/* the holder's, to be made (make_held_reads()) */

/*
 * Under held_lock: the held /dev/kmsg reads the log now has a record for move to ready_reads
 * (one whose fd is no longer the kernel's too: the kernel answers it); a signal for one's
 * caller ends it as Linux's wait_event_interruptible does (-ERESTARTSYS), its death lets go of
 * it.  Whether any is ready.
 */
static bool reads_ready(void)
{
	unsigned long long next = log_next_seq();
	struct held_read **p = &held_reads, *h;

	while ((h = *p)) {
		unsigned long long seq = 0;
		bool nonblock;

		if (ioctl(held_listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &h->req.id) < 0) {
			*p = h->next;
			free(h);
		} else if (!kmsg_state(h->tgid, (long)h->req.data.args[0], &seq, &nonblock) || seq < next) {
			*p = h->next;
			h->next = ready_reads;
			ready_reads = h;
		} else if (signal_pending(h->req.pid)) {
			*p = h->next;
			respond(held_listener, h->req.id, ERESTARTSYS, 0);
			free(h);
		} else {
			p = &h->next;
		}
	}
	return ready_reads != NULL;
}

static bool make_read(int listener, const struct seccomp_notif *req, pid_t tgid, unsigned long long serial);

/* The ready reads made (served, SERVE_NOWAIT): answered, or held again when another reader of
 * their file took the record first. */
static void make_held_reads(void)
{
	static unsigned long long record[SESSION_RECORD_MAX / 8];
	struct held_read *h;

	for (;;) {
		unsigned long long serial;

		pthread_mutex_lock(&held_lock);
		h = ready_reads;
		if (h)
			ready_reads = h->next;
		pthread_mutex_unlock(&held_lock);
		if (!h)
			return;
		serve_lock();
		serial = mirror_serve_again(&h->req, (void *)record, sizeof(record), SERVE_CALL | SERVE_NOWAIT);
		if (!serial || !make_read(held_listener, &h->req, h->tgid, serial))
			respond_continue(held_listener, h->req.id);	/* (as a served call the kernel
									 * does not answer) */
		serve_unlock();
		free(h);
	}
}

/* The holder: answers held calls as their fds get ready, lets go of interrupted ones. */
static void *hold_polls(void *unused __attribute__((unused)))
{
	struct held_poll *held = NULL;

	for (;;) {
		struct held_poll **p, *h;
		struct pollfd *wait;
		long long now, timeout = HELD_CHECK_MS;
		unsigned int n, i;
		uint64_t count;
		bool pending, catch_up;

		pthread_mutex_lock(&held_lock);
		while (held_new) {
			h = held_new;
			held_new = h->next;
			h->next = held;
			held = h;
		}
		now = now_ms();
		catch_up = false;
		for (p = &held; (h = *p);) {
			int ready = poll_pass(h);
			bool timed_out = h->deadline_ms >= 0 && now >= h->deadline_ms;
			bool signalled = !ready && !timed_out && signal_pending(h->pid);
			bool ending = !ready && (timed_out || signalled);

			if (ending && !h->caught_up) {
				/* before it ends with nothing ready (a timeout, a signal: perf trace's
				 * SIGCHLD), the kernel, which runs behind, catches up: the events of what
				 * the session did before are in the buffers, as on Linux */
				h->caught_up = catch_up = true;
				p = &h->next;
				continue;
			}
			if (ready || timed_out) {
				answer_held(h, ready);
			} else if (signalled) {
				respond(held_listener, h->id, ERESTARTNOHAND, 0);
			} else if (ioctl(held_listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &h->id) == 0) {
				if (h->deadline_ms >= 0 && h->deadline_ms - now < timeout)
					timeout = h->deadline_ms - now;
				p = &h->next;
				continue;
			}
			/* answered, or interrupted (a signal, the caller's death) */
			*p = h->next;
			free_held(h);
		}
		if (catch_up) {
			pthread_mutex_unlock(&held_lock);
			mirror_catch_up(CATCH_UP_MS);
			continue;
		}
		if (reads_ready()) {
			pthread_mutex_unlock(&held_lock);
			make_held_reads();
			continue;
		}
		n = 1 + arm(held, &pending);
		pthread_mutex_unlock(&held_lock);
		wait = calloc(n, sizeof(*wait));
		if (!wait) {
			usleep(1000);
			continue;
		}
		wait[0] = (struct pollfd){ .fd = held_bell, .events = POLLIN };
		for (h = held, n = 1; h; h = h->next)
			for (i = 0; i < h->nfds; i++)
				if (h->copy[i] >= 0)
					wait[n++] = (struct pollfd){ .fd = h->copy[i], .events = h->fds[i].events };
		if (poll(wait, n, pending || timeout < 0 ? 0 : (int)timeout) > 0 && wait[0].revents)
			(void)!read(held_bell, &count, sizeof(count));
		free(wait);
	}
	return NULL;
}

/* The kernel's wake eventfd rang (signals.c reads it): the holder looks at its polls again. */
void serve_kernel_woke(void)
{
	pthread_mutex_lock(&held_lock);
	if (holder_started)
		eventfd_write(held_bell, 1);
	pthread_mutex_unlock(&held_lock);
}

/* Under held_lock: the holder thread runs. */
static bool start_holder(int listener)
{
	held_listener = listener;
	if (!holder_started) {
		pthread_t thread;

		held_bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		holder_started = held_bell >= 0 && pthread_create(&thread, NULL, hold_polls, NULL) == 0;
	}
	return holder_started;
}

/*
 * A read of /dev/kmsg that would wait for a record (SERVE_DEFER, or a served SERVE_NOWAIT read
 * the kernel says would have): the holder makes it when the log has one for it (reads_ready()).
 * Linux's reader waits in devkmsg_read(); here the supervisor, which takes one call at a
 * time, cannot wait in the kernel's call, so the read is made once there is a record.
 */
static int hold_read(int listener, const struct seccomp_notif *req, pid_t tgid)
{
	struct held_read *h = calloc(1, sizeof(*h));

	if (!h) {
		respond(listener, req->id, ENOMEM, 0);
		return SERVE_ANSWERED;
	}
	h->req = *req;
	h->tgid = tgid;
	pthread_mutex_lock(&held_lock);
	if (!start_holder(listener)) {
		pthread_mutex_unlock(&held_lock);
		free(h);
		respond(listener, req->id, ENOMEM, 0);
		return SERVE_ANSWERED;
	}
	h->next = held_reads;
	held_reads = h;
	pthread_mutex_unlock(&held_lock);
	eventfd_write(held_bell, 1);
	return SERVE_ANSWERED;
}

/*
 * A served read of /dev/kmsg made (SERVE_NOWAIT): its answer, or held when it would wait.
 * False when the kernel did not answer.
 */
static bool make_read(int listener, const struct seccomp_notif *req, pid_t tgid, unsigned long long serial)
{
	struct session_ring *ring = mirror_ring();
	long long ret;
	unsigned long long kmsg;

	if (!ring || !wait_reply(ring, req->pid, serial))
		return false;
	ret = ring->reply.ret;
	kmsg = ring->reply.kmsg;
	if (kmsg & SESSION_KMSG_FILE)
		set_kmsg_state(tgid, (long)req->data.args[0], kmsg, ring->reply.kmsg_seq);
	served_call_done();
	if (ret == -EAGAIN && (kmsg & SESSION_KMSG_WOULD_BLOCK))
		hold_read(listener, req, tgid);
	else if (ret < 0)
		respond(listener, req->id, (int)-ret, 0);
	else
		respond(listener, req->id, 0, ret);
	return true;
}

/* A poll/ppoll naming served fds (SERVE_HELD): answered now when ready (or not to wait), else
 * handed to the holder. */
static int hold_poll(int listener, const struct seccomp_notif *req, pid_t tgid)
{
	struct held_poll *h = calloc(1, sizeof(*h));
	unsigned int nfds = (unsigned int)req->data.args[1], i;
	long long timeout_ms = -1;
	int pidfd = -1, ready, err = 0;

	if (!h)
		return SERVE_UNANSWERED;
	h->id = req->id;
	h->pid = req->pid;
	h->tgid = tgid;
	h->nr = req->data.nr;
	h->ufds = req->data.args[0];
	h->nfds = nfds;
	h->fds = calloc(nfds ? nfds : 1, sizeof(*h->fds));
	h->copy = calloc(nfds ? nfds : 1, sizeof(*h->copy));
	h->bad = calloc(nfds ? nfds : 1, sizeof(*h->bad));
	if (!h->fds || !h->copy || !h->bad)
		goto unanswered;
	for (i = 0; i < nfds; i++)
		h->copy[i] = -1;
	if (!read_pollfds(req->pid, h->ufds, nfds, h->fds))
		err = EFAULT;
	if (!err && req->data.nr == __NR_poll) {
		if ((int)req->data.args[2] >= 0)
			timeout_ms = (int)req->data.args[2];
	} else if (!err && (h->tsp = req->data.args[2])) {
		struct timespec ts;

		if (target_io(req->pid, false, h->tsp, &ts, sizeof(ts)) != sizeof(ts))
			err = EFAULT;
		else if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
			err = EINVAL;
		else
			timeout_ms = ts.tv_sec * 1000LL + (ts.tv_nsec + 999999) / 1000000;
	}
	if (err) {
		respond(listener, req->id, err, 0);
		free_held(h);
		return SERVE_ANSWERED;
	}
	h->deadline_ms = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	/* the process's other fds: a copy each, whose readiness is theirs */
	for (i = 0; i < nfds; i++) {
		if (h->fds[i].fd < 0 || is_served_fd(tgid, h->fds[i].fd))
			continue;
		if (pidfd < 0 && (pidfd = (int)syscall(SYS_pidfd_open, tgid, 0)) < 0)
			goto unanswered;
		h->copy[i] = (int)syscall(SYS_pidfd_getfd, pidfd, h->fds[i].fd, 0);
		if (h->copy[i] < 0) {
			if (errno != EBADF)
				goto unanswered;
			h->bad[i] = true;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	pidfd = -1;
	pthread_mutex_lock(&held_lock);
	held_listener = listener;
	ready = poll_pass(h);
	if (!ready && timeout_ms == 0) {	/* none ready: so it is, once the kernel caught up */
		pthread_mutex_unlock(&held_lock);
		mirror_catch_up(CATCH_UP_MS);
		pthread_mutex_lock(&held_lock);
		ready = poll_pass(h);
	}
	if (ready || timeout_ms == 0) {
		answer_held(h, ready);
		pthread_mutex_unlock(&held_lock);
		free_held(h);
		return SERVE_ANSWERED;
	}
	if (!start_holder(listener)) {
		pthread_mutex_unlock(&held_lock);
		goto unanswered;
	}
	h->next = held_new;
	held_new = h;
	pthread_mutex_unlock(&held_lock);
	eventfd_write(held_bell, 1);
	return SERVE_ANSWERED;
unanswered:
	if (pidfd >= 0)
		close(pidfd);
	free_held(h);
	return SERVE_UNANSWERED;	/* the host's poll, as before */
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

	if (!ring || !wait_reply(ring, req->pid, serial))
		return respond(listener, req->id, ENODEV, 0), SERVE_ANSWERED;
	ret = ring->reply.ret;
	region = ring->reply.region;
	if (ret < 0)
		return respond(listener, req->id, ret == -ENOSYS ? ENODEV : (int)-ret, 0), SERVE_ANSWERED;
	if (region < 0 || region >= nr_pool)
		return respond(listener, req->id, ENODEV, 0), SERVE_ANSWERED;
	addfd.srcfd = pool_fds[region];
	addfd.newfd_flags = is_cloexec(tgid, (long)req->data.args[4]) ? O_CLOEXEC : 0;
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
	set_region(tgid, (long)req->data.args[4], (int)region + 1);
	respond_continue(listener, req->id);
	return SERVE_ANSWERED;
}

int serve_answer(int listener, const struct seccomp_notif *req, pid_t tgid, unsigned long long serial,
		 int how)
{
	struct session_ring *ring = mirror_ring();
	unsigned long long kmsg, kmsg_seq;
	long long ret;
	int fd;

	if (how & SERVE_HELD)
		return hold_poll(listener, req, tgid);
	if (how & SERVE_DEFER)
		return hold_read(listener, req, tgid);
	if (how & SERVE_MAP)
		return answer_map(listener, req, tgid, ring, serial);
	if (how & SERVE_NOWAIT)
		return make_read(listener, req, tgid, serial) ? SERVE_ANSWERED : SERVE_UNANSWERED;
	if (!ring || !wait_reply(ring, req->pid, serial))
		return SERVE_UNANSWERED;
	ret = ring->reply.ret;
	kmsg = ring->reply.kmsg;
	kmsg_seq = ring->reply.kmsg_seq;
	if ((kmsg & SESSION_KMSG_FILE) && !(how & SERVE_NEW_FD))
		set_kmsg_state(tgid, (long)req->data.args[0], kmsg, kmsg_seq);
	served_call_done();
	if (ret == -ENOSYS)
		return SERVE_UNANSWERED;	/* a kernel without it: answer.c says so */
	if (ret < 0) {
		respond(listener, req->id, (int)-ret, 0);
		return SERVE_ANSWERED;
	}
	if (req->data.nr == __NR_sethostname || req->data.nr == __NR_setdomainname)
		__atomic_store_n(&uts_known, false, __ATOMIC_RELEASE);	/* the next uname asks again */
	if (req->data.nr == __NR_uname && !__atomic_load_n(&uts_known, __ATOMIC_ACQUIRE) &&
	    default_personality(req->pid) &&
	    target_io(req->pid, false, req->data.args[0], uts, sizeof(uts)) == sizeof(uts))
		__atomic_store_n(&uts_known, true, __ATOMIC_RELEASE);
	if (!(how & SERVE_NEW_FD)) {
		if (req->data.nr == __NR_ioctl && (unsigned int)req->data.args[1] == PERF_EVENT_IOC_SET_OUTPUT)
			/* the event writes where the other does (-1: nowhere) */
			set_region(tgid, (long)req->data.args[0], (int)req->data.args[2] == -1 ? 0 :
				   region_of(tgid, (long)(int)req->data.args[2]));
		respond(listener, req->id, 0, ret);
		return SERVE_ANSWERED;
	}
	fd = give_fd(listener, req, tgid, req->data.nr == __NR_bpf ||
		     (req->data.nr == __NR_perf_event_open && (req->data.args[4] & PERF_FLAG_FD_CLOEXEC)) ||
		     (is_open_call(req->data.nr) && (open_call_flags(req) & O_CLOEXEC)));
	if (fd < 0 && fd != -ENOENT)	/* ENOENT: the caller is gone */
		respond(listener, req->id, -fd, 0);
	if (fd >= 0 && (kmsg & SESSION_KMSG_FILE))
		set_kmsg_state(tgid, fd, kmsg, kmsg_seq);
	mirror_fd_given(req->pid, (int)ret, fd);
	return SERVE_ANSWERED;
}
