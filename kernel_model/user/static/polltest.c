/*
 * poll, ppoll, select, pselect6, eventfd and getrusage against a real libc (glibc), statically
 * linked: one behaviour per subcommand, each line what it saw (tests/machine/test_poll.py).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static const char *events(short ev)
{
	static char buf[64];

	buf[0] = 0;
	if (ev & POLLIN)
		strcat(buf, "IN|");
	if (ev & POLLOUT)
		strcat(buf, "OUT|");
	if (ev & POLLERR)
		strcat(buf, "ERR|");
	if (ev & POLLHUP)
		strcat(buf, "HUP|");
	if (ev & POLLNVAL)
		strcat(buf, "NVAL|");
	if (ev & POLLRDHUP)
		strcat(buf, "RDHUP|");
	if (!buf[0])
		return "0";
	buf[strlen(buf) - 1] = 0;
	return buf;
}

/* a pipe polled with a timeout: it times out, then a child's write makes it readable, then the
 * child's exit (the last writer gone) hangs it up */
static int cmd_pipe(void)
{
	struct pollfd p;
	int fds[2], ret;
	long t0;
	char buf[16];
	pid_t child;

	if (pipe(fds))
		return 1;
	p.fd = fds[0];
	p.events = POLLIN;
	t0 = now_ms();
	ret = poll(&p, 1, 100);
	printf("empty: ret=%d revents=%s waited>=100ms=%d\n", ret, events(p.revents), now_ms() - t0 >= 99);
	child = fork();
	if (child == 0) {
		close(fds[0]);
		msleep(50);
		if (write(fds[1], "hi", 2) != 2)
			_exit(1);
		msleep(50);
		_exit(0);
	}
	close(fds[1]);
	t0 = now_ms();
	ret = poll(&p, 1, 5000);
	printf("written: ret=%d revents=%s waited<5s=%d\n", ret, events(p.revents), now_ms() - t0 < 5000);
	ret = read(fds[0], buf, sizeof(buf));
	printf("read %d\n", ret);
	ret = poll(&p, 1, 5000);
	printf("writer gone: ret=%d revents=%s\n", ret, events(p.revents));
	waitpid(child, NULL, 0);
	p.fd = fds[0];
	p.events = POLLOUT;
	ret = poll(&p, 1, 0);
	printf("POLLOUT on a read end: ret=%d revents=%s\n", ret, events(p.revents));
	return 0;
}

/* select on a pipe: a timeout (the time left written back: 0), readiness (time left > 0),
 * the write end writable, a closed fd EBADF, bad arguments EINVAL */
static int cmd_select(void)
{
	int fds[2], ret;
	fd_set r, w;
	struct timeval tv;

	if (pipe(fds))
		return 1;
	FD_ZERO(&r);
	FD_SET(fds[0], &r);
	tv.tv_sec = 0;
	tv.tv_usec = 50000;
	ret = select(fds[0] + 1, &r, NULL, NULL, &tv);
	printf("timeout: ret=%d isset=%d left=%ld.%06ld\n", ret, FD_ISSET(fds[0], &r), (long)tv.tv_sec, (long)tv.tv_usec);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	FD_ZERO(&r);
	FD_SET(fds[0], &r);
	FD_ZERO(&w);
	FD_SET(fds[1], &w);
	tv.tv_sec = 5;
	tv.tv_usec = 0;
	ret = select(fds[1] + 1, &r, &w, NULL, &tv);
	printf("ready: ret=%d read=%d write=%d left>4s=%d\n", ret, FD_ISSET(fds[0], &r), FD_ISSET(fds[1], &w),
	       tv.tv_sec >= 4);
	FD_ZERO(&r);
	FD_SET(fds[0], &r);
	ret = select(fds[0] + 1, &r, NULL, NULL, NULL);
	printf("no timeout: ret=%d read=%d\n", ret, FD_ISSET(fds[0], &r));
	close(fds[1]);
	FD_ZERO(&r);
	FD_SET(fds[1], &r);
	errno = 0;
	ret = select(fds[1] + 1, &r, NULL, NULL, NULL);
	printf("closed fd: ret=%d errno=%s\n", ret, strerror(errno));
	errno = 0;
	ret = select(-1, NULL, NULL, NULL, NULL);
	printf("n=-1: ret=%d errno=%s\n", ret, strerror(errno));
	tv.tv_sec = 0;
	tv.tv_usec = -1;
	errno = 0;
	ret = select(0, NULL, NULL, NULL, &tv);
	printf("negative timeout: ret=%d errno=%s\n", ret, strerror(errno));
	{
		struct timespec ts = { 0, 20000000 };

		FD_ZERO(&r);
		FD_SET(fds[0], &r);
		ret = pselect(fds[0] + 1, &r, NULL, NULL, &ts, NULL);
		printf("pselect: ret=%d read=%d\n", ret, FD_ISSET(fds[0], &r));
	}
	return 0;
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	got_usr1++;
}

/* ppoll with a signal mask: a blocked SIGUSR1 pending is let in by ppoll's mask (EINTR, the
 * handler runs, the caller's mask is back after); kept blocked, the wait times out */
static int cmd_ppoll(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t block, empty, now;
	struct timespec ts = { 0, 50000000 };
	struct pollfd p;
	int fds[2], ret;

	if (pipe(fds))
		return 1;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, NULL);
	kill(getpid(), SIGUSR1);
	p.fd = fds[0];
	p.events = POLLIN;
	ret = ppoll(&p, 1, &ts, &block);
	printf("blocked: ret=%d handler=%d\n", ret, (int)got_usr1);
	sigemptyset(&empty);
	ts.tv_sec = 5;
	ts.tv_nsec = 0;
	errno = 0;
	ret = ppoll(&p, 1, &ts, &empty);
	printf("unblocked: ret=%d errno=%s handler=%d\n", ret, strerror(errno), (int)got_usr1);
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("mask after: SIGUSR1 blocked=%d\n", sigismember(&now, SIGUSR1));
	/* pselect6 the same way */
	kill(getpid(), SIGUSR1);
	{
		fd_set r;

		FD_ZERO(&r);
		FD_SET(fds[0], &r);
		errno = 0;
		ret = pselect(fds[0] + 1, &r, NULL, NULL, &ts, &empty);
		printf("pselect unblocked: ret=%d errno=%s handler=%d\n", ret, strerror(errno), (int)got_usr1);
	}
	return 0;
}

static volatile sig_atomic_t got_alrm;

static void on_alrm(int sig)
{
	got_alrm++;
}

static void arm(int ms)
{
	struct itimerval it = { .it_value = { 0, ms * 1000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

/* a signal's handler interrupts poll, select and epoll_wait: EINTR (no SA_RESTART restarts
 * them); select writes back the time that was left */
static int cmd_signal(void)
{
	struct sigaction sa = { .sa_handler = on_alrm };
	struct pollfd p;
	struct timeval tv = { 5, 0 };
	fd_set r;
	int fds[2], ret, ep;
	struct epoll_event ev = { .events = EPOLLIN }, out;

	if (pipe(fds))
		return 1;
	sigaction(SIGALRM, &sa, NULL);
	p.fd = fds[0];
	p.events = POLLIN;
	arm(50);
	errno = 0;
	ret = poll(&p, 1, -1);
	printf("poll: ret=%d errno=%s handler=%d\n", ret, strerror(errno), (int)got_alrm);
	FD_ZERO(&r);
	FD_SET(fds[0], &r);
	arm(50);
	errno = 0;
	ret = select(fds[0] + 1, &r, NULL, NULL, &tv);
	printf("select: ret=%d errno=%s handler=%d left 4..5s=%d\n", ret, strerror(errno), (int)got_alrm,
	       tv.tv_sec == 4 && tv.tv_usec > 0);
	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
	arm(50);
	errno = 0;
	ret = epoll_wait(ep, &out, 1, -1);
	printf("epoll_wait: ret=%d errno=%s handler=%d\n", ret, strerror(errno), (int)got_alrm);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	if (fork() == 0) {
		msleep(150);
		_exit(write(fds[1], "x", 1) != 1);
	}
	arm(50);
	errno = 0;
	ret = poll(&p, 1, -1);
	printf("poll with SA_RESTART: ret=%d errno=%s handler=%d revents=%s\n", ret, strerror(errno), (int)got_alrm,
	       events(p.revents));
	wait(NULL);
	return 0;
}

/* eventfd: a counter behind a file, read whole or (EFD_SEMAPHORE) one at a time */
static int cmd_eventfd(void)
{
	int fd = eventfd(0, EFD_NONBLOCK), ret;
	struct pollfd p;
	uint64_t v;

	if (fd < 0) {
		printf("eventfd: %s\n", strerror(errno));
		return 1;
	}
	errno = 0;
	ret = read(fd, &v, sizeof(v));
	printf("empty read: ret=%d errno=%s\n", ret, strerror(errno));
	p.fd = fd;
	p.events = POLLIN | POLLOUT;
	ret = poll(&p, 1, 0);
	printf("empty poll: ret=%d revents=%s\n", ret, events(p.revents));
	v = 3;
	ret = write(fd, &v, sizeof(v));
	ret = poll(&p, 1, 0);
	printf("after write: ret=%d revents=%s\n", ret, events(p.revents));
	v = 0;
	ret = read(fd, &v, sizeof(v));
	printf("read: ret=%d value=%llu\n", ret, (unsigned long long)v);
	errno = 0;
	ret = read(fd, &v, 4);
	printf("short read: ret=%d errno=%s\n", ret, strerror(errno));
	v = ~0ULL;
	errno = 0;
	ret = write(fd, &v, sizeof(v));
	printf("write ULLONG_MAX: ret=%d errno=%s\n", ret, strerror(errno));
	close(fd);
	fd = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
	for (int i = 0; i < 3; i++) {
		v = 0;
		errno = 0;
		ret = read(fd, &v, sizeof(v));
		printf("semaphore read: ret=%d value=%llu errno=%s\n", ret, (unsigned long long)v, strerror(errno));
	}
	errno = 0;
	ret = eventfd(0, 0x4);
	printf("bad flags: ret=%d errno=%s\n", ret, strerror(errno));
	/* a blocking read woken by another process's write, through poll */
	close(fd);
	fd = eventfd(0, 0);
	if (fork() == 0) {
		msleep(30);
		v = 7;
		_exit(write(fd, &v, sizeof(v)) != sizeof(v));
	}
	p.fd = fd;
	p.events = POLLIN;
	ret = poll(&p, 1, 5000);
	read(fd, &v, sizeof(v));
	printf("woken: ret=%d revents=%s value=%llu\n", ret, events(p.revents), (unsigned long long)v);
	wait(NULL);
	return 0;
}

/* the errors: EINVAL for nfds past RLIMIT_NOFILE, EFAULT, POLLNVAL for a closed fd, a negative
 * fd ignored */
static int cmd_errors(void)
{
	struct pollfd p[2] = { { .fd = 999, .events = POLLIN }, { .fd = -1, .events = POLLIN } };
	struct rlimit rl;
	int ret;

	getrlimit(RLIMIT_NOFILE, &rl);
	errno = 0;
	ret = poll(p, rl.rlim_cur + 1, 0);
	printf("nfds>RLIMIT_NOFILE: ret=%d errno=%s\n", ret, strerror(errno));
	struct pollfd *volatile bad = (struct pollfd *)16;

	errno = 0;
	ret = poll(bad, 1, 0);
	printf("bad pointer: ret=%d errno=%s\n", ret, strerror(errno));
	ret = poll(p, 2, 0);
	printf("closed and negative fds: ret=%d revents=%s,%s\n", ret, events(p[0].revents), events(p[1].revents));
	ret = poll(NULL, 0, 10);
	printf("no fds: ret=%d\n", ret);
	{
		int fd = open("/dev/null", 2);

		p[0].fd = fd;
		p[0].events = POLLIN | POLLOUT;
		ret = poll(p, 1, 0);
		printf("/dev/null: ret=%d revents=%s\n", ret, events(p[0].revents));
	}
	return 0;
}

/* sockets: a unix pair and a TCP connection over loopback */
static int cmd_socket(void)
{
	struct pollfd p;
	int sv[2], ret, l, c, a;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	char buf[8];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	p.fd = sv[0];
	p.events = POLLIN | POLLOUT;
	ret = poll(&p, 1, 0);
	printf("unix idle: ret=%d revents=%s\n", ret, events(p.revents));
	write(sv[1], "x", 1);
	ret = poll(&p, 1, 0);
	printf("unix data: ret=%d revents=%s\n", ret, events(p.revents));
	read(sv[0], buf, 1);
	close(sv[1]);
	p.events = POLLIN;
	ret = poll(&p, 1, 1000);
	printf("unix peer closed: ret=%d revents=%s\n", ret, events(p.revents));

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) || listen(l, 4) ||
	    getsockname(l, (struct sockaddr *)&sin, &len))
		return 1;
	p.fd = l;
	p.events = POLLIN;
	ret = poll(&p, 1, 0);
	printf("listener idle: ret=%d revents=%s\n", ret, events(p.revents));
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&sin, sizeof(sin)))
		return 1;
	ret = poll(&p, 1, 1000);
	printf("listener with a connection: ret=%d revents=%s\n", ret, events(p.revents));
	a = accept(l, NULL, NULL);
	p.fd = a;
	p.events = POLLIN | POLLOUT;
	ret = poll(&p, 1, 0);
	printf("tcp idle: ret=%d revents=%s\n", ret, events(p.revents));
	write(c, "ping", 4);
	p.events = POLLIN;
	ret = poll(&p, 1, 1000);
	printf("tcp data: ret=%d revents=%s\n", ret, events(p.revents));
	read(a, buf, 4);
	shutdown(c, SHUT_WR);
	ret = poll(&p, 1, 1000);
	printf("tcp peer shut: ret=%d revents=%s\n", ret, events(p.revents));
	{
		int u = socket(AF_INET, SOCK_DGRAM, 0);

		p.fd = u;
		p.events = POLLIN | POLLOUT;
		ret = poll(&p, 1, 0);
		printf("udp idle: ret=%d revents=%s\n", ret, events(p.revents));
	}
	return 0;
}

static int cmd_getrusage(void)
{
	struct rusage ru;
	volatile char *mem = malloc(64 << 10);
	int ret;

	for (int i = 0; i < (64 << 10); i += 4096)
		mem[i] = 1;
	usleep(1000);	/* (a sleep: a voluntary context switch) */
	ret = getrusage(RUSAGE_SELF, &ru);
	printf("self: ret=%d minflt>0=%d nvcsw>0=%d\n", ret, ru.ru_minflt > 0, ru.ru_nvcsw > 0);
	if (fork() == 0) {
		for (int i = 0; i < (64 << 10); i += 4096)
			mem[i] = 2;
		usleep(1000);
		_exit(0);
	}
	wait(NULL);
	ret = getrusage(RUSAGE_CHILDREN, &ru);
	printf("children: ret=%d minflt>0=%d nvcsw>0=%d\n", ret, ru.ru_minflt > 0, ru.ru_nvcsw > 0);
	ret = getrusage(RUSAGE_THREAD, &ru);
	printf("thread: ret=%d nvcsw>0=%d\n", ret, ru.ru_nvcsw > 0);
	errno = 0;
	ret = getrusage(5, &ru);
	printf("bad who: ret=%d errno=%s\n", ret, strerror(errno));
	return 0;
}

static void show_epoll(const char *what, int ret, struct epoll_event *ev)
{
	if (ret < 0)
		printf("%s: ret=%d errno=%s\n", what, ret, strerror(errno));
	else if (ret == 0)
		printf("%s: ret=0\n", what);
	else
		printf("%s: ret=%d events=%s data=%llu\n", what, ret, events(ev[0].events), (unsigned long long)ev[0].data.u64);
}

/* epoll on pipes, an eventfd and another epoll: level- and edge-triggered, one-shot, a closed
 * file leaving the set, the errors of epoll_ctl */
static int cmd_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 42 }, out[4];
	int ep = epoll_create1(EPOLL_CLOEXEC), fds[2], ret, efd, ep2, file;
	uint64_t one = 1;
	char c;

	if (ep < 0 || pipe(fds))
		return 1;
	ret = epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
	printf("add: ret=%d\n", ret);
	show_epoll("empty, 50ms", epoll_wait(ep, out, 4, 50), out);
	if (fork() == 0) {
		msleep(30);
		_exit(write(fds[1], "ab", 2) != 2);
	}
	show_epoll("written", epoll_wait(ep, out, 4, 5000), out);
	wait(NULL);
	show_epoll("level-triggered, again", epoll_wait(ep, out, 4, 0), out);
	ev.events = EPOLLIN | EPOLLET;
	ev.data.u64 = 43;
	printf("mod to EPOLLET: ret=%d\n", epoll_ctl(ep, EPOLL_CTL_MOD, fds[0], &ev));
	show_epoll("edge, first", epoll_wait(ep, out, 4, 0), out);
	show_epoll("edge, second", epoll_wait(ep, out, 4, 0), out);
	write(fds[1], "c", 1);
	show_epoll("edge, after a write", epoll_wait(ep, out, 4, 0), out);
	ev.events = EPOLLIN | EPOLLONESHOT;
	ev.data.u64 = 44;
	epoll_ctl(ep, EPOLL_CTL_MOD, fds[0], &ev);
	show_epoll("oneshot, first", epoll_wait(ep, out, 4, 0), out);
	write(fds[1], "d", 1);
	show_epoll("oneshot, disabled", epoll_wait(ep, out, 4, 0), out);
	errno = 0;
	show_epoll("add again", epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev), out);
	show_epoll("del", epoll_ctl(ep, EPOLL_CTL_DEL, fds[0], NULL), out);
	show_epoll("del again", epoll_ctl(ep, EPOLL_CTL_DEL, fds[0], NULL), out);
	show_epoll("add itself", epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev), out);
	file = open("/polltest-epoll-file", O_CREAT | O_RDWR, 0600);
	if (file < 0)
		file = open("/tmp/polltest-epoll-file", O_CREAT | O_RDWR, 0600);
	show_epoll("add a regular file", epoll_ctl(ep, EPOLL_CTL_ADD, file, &ev), out);
	show_epoll("bad maxevents", epoll_wait(ep, out, 0, 0), out);
	show_epoll("not an epoll fd", epoll_wait(fds[0], out, 4, 0), out);
	/* the write end: its reader gone, EPOLLERR; the read end: hung up once the writer goes */
	ev.events = EPOLLIN;
	ev.data.u64 = 45;
	epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
	while (read(fds[0], &c, 1) == 1 && c != 'd')
		;
	close(fds[1]);
	show_epoll("writer closed", epoll_wait(ep, out, 4, 1000), out);
	close(fds[0]);
	show_epoll("watched fd closed", epoll_wait(ep, out, 4, 0), out);
	/* an eventfd, and the set itself in another set and in poll */
	efd = eventfd(0, EFD_NONBLOCK);
	ev.events = EPOLLIN;
	ev.data.u64 = 46;
	epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
	ep2 = epoll_create(1);
	ev.data.u64 = 47;
	show_epoll("add a set to a set", epoll_ctl(ep2, EPOLL_CTL_ADD, ep, &ev), out);
	show_epoll("loop", epoll_ctl(ep, EPOLL_CTL_ADD, ep2, &ev), out);
	show_epoll("outer, idle", epoll_wait(ep2, out, 4, 0), out);
	write(efd, &one, sizeof(one));
	show_epoll("outer, eventfd signalled", epoll_wait(ep2, out, 4, 0), out);
	{
		struct pollfd p = { .fd = ep, .events = POLLIN };

		ret = poll(&p, 1, 0);
		printf("poll of the set: ret=%d revents=%s\n", ret, events(p.revents));
	}
	show_epoll("inner", epoll_wait(ep, out, 4, 0), out);
	return 0;
}

static void show_times(const char *what, int ret, const char *path)
{
	struct stat st;

	if (ret < 0) {
		printf("%s: ret=%d errno=%s\n", what, ret, strerror(errno));
		return;
	}
	stat(path, &st);
	printf("%s: ret=0 atime=%ld.%09ld mtime=%ld.%09ld\n", what, (long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	       (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* utimensat, futimens, utimes, utime on a tmpfs file; "now" shown as whether it is recent */
static int cmd_utimes(void)
{
	const char *path = "/tmp/polltest-times";
	struct timespec ts[2] = { { 1000, 500 }, { 2000, 600 } };
	struct timeval tv[2] = { { 3000, 7 }, { 4000, 8 } };
	struct utimbuf { long actime, modtime; } ub = { 5000, 6000 };
	struct stat st;
	int fd = open(path, O_CREAT | O_RDWR, 0644);

	if (fd < 0)
		return 1;
	show_times("utimensat", utimensat(AT_FDCWD, path, ts, 0), path);
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = 2500;
	show_times("atime omitted", utimensat(AT_FDCWD, path, ts, 0), path);
	ts[0].tv_sec = 1;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_nsec = UTIME_OMIT;
	show_times("both omitted, no such path", utimensat(AT_FDCWD, "/tmp/no/such", ts, 0), path);
	ts[0] = (struct timespec){ 1100, 0 };
	ts[1] = (struct timespec){ 2100, 0 };
	show_times("futimens", futimens(fd, ts), path);
	show_times("utimes", syscall(SYS_utimes, path, tv), path);
	show_times("futimesat", syscall(SYS_futimesat, AT_FDCWD, path, tv), path);
	show_times("utime", syscall(SYS_utime, path, &ub), path);
	errno = 0;
	ts[0].tv_nsec = 1000000000;
	show_times("bad nsec", utimensat(AT_FDCWD, path, ts, 0), path);
	tv[0].tv_usec = 1000000;
	show_times("bad usec", syscall(SYS_utimes, path, tv), path);
	show_times("bad flags", utimensat(AT_FDCWD, path, NULL, 0x4), path);
	show_times("no such file", utimensat(AT_FDCWD, "/tmp/no-such-file", NULL, 0), path);
	show_times("bad fd", futimens(12345, NULL), path);
	if (utimensat(AT_FDCWD, path, NULL, 0) || stat(path, &st))
		return 1;
	printf("now: recent=%d\n", labs((long)st.st_mtim.tv_sec - (long)time(NULL)) <= 5 &&
				  st.st_atim.tv_sec == st.st_mtim.tv_sec);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "pipe"))
		return cmd_pipe();
	if (!strcmp(argv[1], "select"))
		return cmd_select();
	if (!strcmp(argv[1], "ppoll"))
		return cmd_ppoll();
	if (!strcmp(argv[1], "eventfd"))
		return cmd_eventfd();
	if (!strcmp(argv[1], "errors"))
		return cmd_errors();
	if (!strcmp(argv[1], "socket"))
		return cmd_socket();
	if (!strcmp(argv[1], "epoll"))
		return cmd_epoll();
	if (!strcmp(argv[1], "utimes"))
		return cmd_utimes();
	if (!strcmp(argv[1], "signal"))
		return cmd_signal();
	if (!strcmp(argv[1], "getrusage"))
		return cmd_getrusage();
	return 2;
}
