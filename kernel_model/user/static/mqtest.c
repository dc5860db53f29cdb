/*
 * POSIX message queues against a real libc, statically linked: one behaviour per subcommand,
 * each line what it saw (tests/machine/test_mqueue.py; the expected lines are what this binary
 * printed on the reference Linux 6.1).  The calls are the raw syscalls, as the kernel takes them
 * (libc's mq_open strips the leading '/' and refuses some names itself).  A child that must be
 * asleep in a call before the parent acts is waited for through /proc/PID/stat, with a generous
 * bound.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "children.h"
#include "report.h"

static long open_(const char *name, int oflag, int mode, struct mq_attr *attr)
{
	return syscall(SYS_mq_open, name, oflag, mode, attr);
}
static long send_(int fd, const char *text, size_t len, unsigned prio, const struct timespec *to)
{
	return syscall(SYS_mq_timedsend, fd, text, len, prio, to);
}
static long recv_(int fd, char *buf, size_t len, unsigned *prio, const struct timespec *to)
{
	return syscall(SYS_mq_timedreceive, fd, buf, len, prio, to);
}
static long notify_(int fd, const struct sigevent *ev) { return syscall(SYS_mq_notify, fd, ev); }
static long getsetattr_(int fd, const struct mq_attr *new, struct mq_attr *old)
{
	return syscall(SYS_mq_getsetattr, fd, new, old);
}
static long unlink_(const char *name) { return syscall(SYS_mq_unlink, name); }

static long send(int fd, const char *text, unsigned prio)
{
	return send_(fd, text, strlen(text), prio, NULL);
}

/* a receive as a line: the priority and text, or the errno */
static void recv(const char *what, int fd, size_t size, const struct timespec *to)
{
	static char buf[1 << 16];
	unsigned prio = 0;
	long n = recv_(fd, buf, size, &prio, to);

	if (n < 0)
		printf("%s: %s\n", what, errname(errno));
	else
		printf("%s: prio=%u text=%.*s\n", what, prio, (int)n, buf);
}

static void show_attr(const char *what, int fd)
{
	struct mq_attr a;
	long ret = getsetattr_(fd, NULL, &a);

	if (ret < 0)
		printf("%s: %s\n", what, errname(errno));
	else
		printf("%s: flags=%#lx maxmsg=%ld msgsize=%ld curmsgs=%ld\n", what, a.mq_flags, a.mq_maxmsg,
		       a.mq_msgsize, a.mq_curmsgs);
}

/* the queue file's line (read(2) of the queue's fd), its pid replaced by "self" or "0" */
static void show_file(const char *what, int fd)
{
	char buf[128];
	long n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *p;
	int pid;

	if (n < 0) {
		printf("%s: %s\n", what, errname(errno));
		return;
	}
	buf[n] = '\0';
	p = strstr(buf, "NOTIFY_PID:");
	if (p && sscanf(p + 11, "%d", &pid) == 1 && pid == getpid())
		printf("%s: %.*s(self) len=%ld\n", what, (int)(p + 11 - buf), buf, n);
	else
		printf("%s: %s", what, buf);
}

static void show_poll(const char *what, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
	int n = poll(&p, 1, 0);

	printf("%s: n=%d in=%d out=%d\n", what, n, !!(p.revents & POLLIN), !!(p.revents & POLLOUT));
}

/* open's names and flags, the attributes' limits */
static void case_open(void)
{
	struct mq_attr attr = { 0 };
	long fd;

	ok("open of a name not in use", open_("mqt-a", O_RDWR, 0, NULL));
	ok("open a/b O_CREAT", open_("mqt/b", O_RDWR | O_CREAT, 0600, NULL));
	ok("open . O_CREAT", open_(".", O_RDWR | O_CREAT, 0600, NULL));
	ok("open .. O_CREAT", open_("..", O_RDWR | O_CREAT, 0600, NULL));
	ok("open empty name O_CREAT", open_("", O_RDWR | O_CREAT, 0600, NULL));
	ok("open bad name address", open_((char *)8, O_RDWR | O_CREAT, 0600, NULL));
	ok("open bad attr address", open_("mqt-a", O_RDWR | O_CREAT, 0600, (struct mq_attr *)8));
	attr.mq_maxmsg = 0, attr.mq_msgsize = 16;
	ok("open maxmsg 0", open_("mqt-a", O_RDWR | O_CREAT, 0600, &attr));
	attr.mq_maxmsg = 4, attr.mq_msgsize = -1;
	ok("open msgsize -1", open_("mqt-a", O_RDWR | O_CREAT, 0600, &attr));
	attr.mq_maxmsg = 65537, attr.mq_msgsize = 16;
	ok("open maxmsg 65537", open_("mqt-a", O_RDWR | O_CREAT, 0600, &attr));
	attr.mq_maxmsg = 4, attr.mq_msgsize = 16 * 1024 * 1024 + 1;
	ok("open msgsize 16M+1", open_("mqt-a", O_RDWR | O_CREAT, 0600, &attr));
	attr.mq_maxmsg = 200, attr.mq_msgsize = 8192;
	ok("open past RLIMIT_MSGQUEUE", open_("mqt-a", O_RDWR | O_CREAT, 0600, &attr));
	ok("open of the name after the failures", open_("mqt-a", O_RDWR, 0, NULL));

	fd = open_("mqt-a", O_RDWR | O_CREAT | O_EXCL, 0600, NULL);
	ok("open O_CREAT|O_EXCL", fd);
	show_attr("attributes by default", fd);
	ok("open O_CREAT|O_EXCL again", open_("mqt-a", O_RDWR | O_CREAT | O_EXCL, 0600, NULL));
	ok("open O_CREAT of the existing queue", open_("mqt-a", O_RDWR | O_CREAT, 0600, NULL));
	ok("open O_WRONLY|O_RDWR", open_("mqt-a", O_WRONLY | O_RDWR, 0, NULL));
	printf("close-on-exec: %d\n", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	attr.mq_maxmsg = 3, attr.mq_msgsize = 100;
	fd = open_("mqt-b", O_RDONLY | O_CREAT | O_NONBLOCK, 0640, &attr);
	ok("open with attributes, O_NONBLOCK", fd);
	show_attr("its attributes", fd);
	ok("unlink", unlink_("mqt-a"));
	ok("unlink again", unlink_("mqt-a"));
	ok("unlink a/b", unlink_("mqt/b"));
	ok("unlink the other", unlink_("mqt-b"));
}

/* send and receive: priorities, sizes, modes, non-blocking, timeouts */
static void case_sendrecv(void)
{
	struct mq_attr attr = { .mq_maxmsg = 3, .mq_msgsize = 64 }, nb = { .mq_flags = O_NONBLOCK };
	struct timespec past = { 1, 0 }, bad = { 0, 1000000000 };
	int fd, rd, wr, pfd[2];

	fd = open_("mqt-s", O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
	ok("open", fd);
	ok("send prio 32768", send(fd, "x", 32768));
	ok("send 65 bytes", send_(fd, "0123456789012345678901234567890123456789012345678901234567890123456789", 65, 0, NULL));
	recv("receive into 63 bytes", fd, 63, NULL);
	ok("send bad address", send_(fd, (char *)8, 4, 0, NULL));
	ok("send bad fd", send(999, "x", 0));
	pipe(pfd);
	ok("send on a pipe", send(pfd[1], "x", 0));
	recv("receive on a pipe", pfd[0], 64, NULL);
	ok("send bad timeout", send_(fd, "x", 1, 0, &bad));
	rd = open_("mqt-s", O_RDONLY, 0, NULL);
	wr = open_("mqt-s", O_WRONLY, 0, NULL);
	ok("send on an O_RDONLY fd", send(rd, "x", 0));
	recv("receive on an O_WRONLY fd", wr, 64, NULL);
	show_poll("poll empty", fd);
	show_file("file empty", fd);
	ok("send a1", send(fd, "a1", 1));
	ok("send b5", send(wr, "b5", 5));
	ok("send c1", send(fd, "c1", 1));
	show_poll("poll full", fd);
	show_attr("attributes full", fd);
	show_file("file full", fd);
	ok("send when full, timeout in the past", send_(fd, "x", 1, 0, &past));
	ok("set O_NONBLOCK", getsetattr_(fd, &nb, NULL));
	show_attr("attributes non-blocking", fd);
	ok("send when full O_NONBLOCK", send(fd, "x", 0));
	recv("receive", fd, 64, NULL);
	ok("send d3", send(fd, "d3", 3));
	recv("receive", rd, 64, NULL);
	recv("receive", fd, 64, NULL);
	show_poll("poll one", fd);
	recv("receive", fd, 64, NULL);
	recv("receive empty O_NONBLOCK", fd, 64, NULL);
	nb.mq_flags = 0;
	ok("clear O_NONBLOCK", getsetattr_(fd, &nb, NULL));
	recv("receive empty, timeout in the past", fd, 64, &past);
	recv("receive bad timeout", fd, 64, &bad);
	nb.mq_flags = 1;
	ok("getsetattr mq_flags 1", getsetattr_(fd, &nb, NULL));
	ok("getsetattr bad fd", getsetattr_(999, NULL, &nb));
	ok("getsetattr on a pipe", getsetattr_(pfd[0], NULL, &nb));
	ok("send empty message", send_(fd, "", 0, 7, NULL));
	recv("receive it", fd, 64, NULL);
	ok("unlink while open", unlink_("mqt-s"));
	ok("open after unlink", open_("mqt-s", O_RDWR, 0, NULL));
	ok("send after unlink", send(fd, "still", 2));
	recv("receive after unlink", fd, 64, NULL);
}

static volatile sig_atomic_t got_sig, got_code, got_value, got_pid;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	got_sig = sig;
	got_code = si->si_code;
	got_value = si->si_value.sival_int;
	got_pid = si->si_pid;
}

/* mq_notify: registration, EBUSY, the signal at the first message, its end at close */
static void case_notify(void)
{
	struct sigaction sa = { .sa_sigaction = on_sig, .sa_flags = SA_SIGINFO };
	struct sigevent ev = { 0 };
	char cookie[32] = { 0 };
	int fd, fd2, pfd[2];
	pid_t pid;

	sigaction(SIGUSR1, &sa, NULL);
	fd = open_("mqt-n", O_RDWR | O_CREAT | O_EXCL, 0600, NULL);
	ok("open", fd);
	fd2 = open_("mqt-n", O_RDWR, 0, NULL);
	ev.sigev_notify = 7;
	ok("notify sigev_notify 7", notify_(fd, &ev));
	ev.sigev_notify = SIGEV_SIGNAL, ev.sigev_signo = 65;
	ok("notify signal 65", notify_(fd, &ev));
	ok("notify bad fd", notify_(999, NULL));
	ok("notify bad address", notify_(fd, (struct sigevent *)8));
	pipe(pfd);
	ev.sigev_notify = SIGEV_THREAD, ev.sigev_signo = pfd[0], ev.sigev_value.sival_ptr = cookie;
	ok("notify SIGEV_THREAD on a pipe", notify_(fd, &ev));
	ev.sigev_signo = 999;
	ok("notify SIGEV_THREAD bad fd", notify_(fd, &ev));
	ev.sigev_notify = SIGEV_NONE;
	ok("notify SIGEV_NONE", notify_(fd, &ev));
	show_file("file", fd);
	ok("notify again", notify_(fd2, &ev));
	ok("notify NULL", notify_(fd, NULL));
	show_file("file", fd);
	ev.sigev_notify = SIGEV_SIGNAL, ev.sigev_signo = SIGUSR1, ev.sigev_value.sival_int = 42;
	ok("notify SIGEV_SIGNAL", notify_(fd, &ev));
	show_file("file", fd);
	pid = fork();
	if (pid == 0) {
		ok("child: notify", notify_(fd, &ev));
		ok("child: notify NULL (not its own)", notify_(fd, NULL));
		exit(0);
	}
	child_status(pid);
	show_file("file after the child", fd);
	ok("send", send(fd, "one", 1));
	printf("signal: sig=%d code=%d value=%d pid=self:%d\n", got_sig, got_code, got_value, got_pid == getpid());
	show_file("file after the signal", fd);
	got_sig = 0;
	ok("send to a non-empty queue", send(fd, "two", 1));
	ok("notify again after it", notify_(fd, &ev));
	recv("receive", fd, 8192, NULL);
	recv("receive", fd, 8192, NULL);
	ok("send to the emptied queue", send(fd, "three", 1));
	printf("signal: sig=%d code=%d value=%d\n", got_sig, got_code, got_value);
	recv("receive", fd, 8192, NULL);
	ev.sigev_notify = SIGEV_NONE;
	ok("notify SIGEV_NONE", notify_(fd, &ev));
	close(fd2);
	show_file("file after closing another fd", fd);
	fd2 = open_("mqt-n", O_RDWR, 0, NULL);
	close(fd);
	show_file("file after closing the fd", fd2);
	ok("unlink", unlink_("mqt-n"));
}

static void on_usr2(int sig) { }

/* sleepers: a receiver woken by a send, a sender by a receive, a signal, a timeout */
static void case_block(void)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 16 };
	struct sigaction sa = { .sa_handler = on_usr2 };	/* no SA_RESTART */
	int fd;
	pid_t pid;

	sigaction(SIGUSR2, &sa, NULL);
	fd = open_("mqt-w", O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
	ok("open", fd);
	pid = fork();
	if (pid == 0) {
		recv("child: blocking receive", fd, 16, NULL);
		exit(0);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	ok("send", send(fd, "hello", 4));
	printf("child: %d\n", child_status(pid));
	show_attr("attributes", fd);

	ok("send to fill", send(fd, "first", 1));
	pid = fork();
	if (pid == 0) {
		ok("child: blocking send", send(fd, "second", 9));
		exit(0);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	recv("receive", fd, 16, NULL);
	printf("child: %d\n", child_status(pid));
	recv("receive", fd, 16, NULL);

	pid = fork();
	if (pid == 0) {
		recv("child: receive interrupted", fd, 16, NULL);
		exit(0);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	kill(pid, SIGUSR2);
	printf("child: %d\n", child_status(pid));

	pid = fork();
	if (pid == 0) {
		struct timespec to;

		clock_gettime(CLOCK_REALTIME, &to);
		to.tv_nsec += 50 * 1000 * 1000;
		if (to.tv_nsec >= 1000000000)
			to.tv_sec++, to.tv_nsec -= 1000000000;
		recv("child: receive with a timeout", fd, 16, &to);
		exit(0);
	}
	printf("child: %d\n", child_status(pid));
	show_attr("attributes", fd);
	ok("unlink", unlink_("mqt-w"));
}

/* another user: the mode's bits */
static void case_perm(void)
{
	int fd = open_("mqt-p", O_RDWR | O_CREAT | O_EXCL, 0640, NULL);
	pid_t pid;

	ok("open 0640", fd);
	pid = fork();
	if (pid == 0) {
		if (setgid(1000) || setuid(1000))
			exit(2);
		ok("other user: open O_RDONLY", open_("mqt-p", O_RDONLY, 0, NULL));
		ok("other user: open O_WRONLY", open_("mqt-p", O_WRONLY, 0, NULL));
		ok("other user: unlink", unlink_("mqt-p"));
		ok("other user: create its own", open_("mqt-u", O_RDWR | O_CREAT, 0600, NULL));
		exit(0);
	}
	printf("child: %d\n", child_status(pid));
	ok("open the other user's O_RDWR (root)", open_("mqt-u", O_RDWR, 0, NULL));
	ok("unlink the other user's (root)", unlink_("mqt-u"));
	ok("unlink", unlink_("mqt-p"));
}

/* the queue's file: its stat, its file system, its /proc/self/fd link, before and after unlink */
static void case_file(void)
{
	struct stat st;
	struct statfs sfs;
	char path[64], link[128];
	long n;
	int fd = open_("mqt-f", O_RDWR | O_CREAT | O_EXCL, 0640, NULL);

	ok("open", fd);
	ok("send", send(fd, "abc", 1));
	ok("fstat", fstat(fd, &st));
	printf("fstat: mode=%o nlink=%ld size=%ld uid=%d blksize=%ld\n", st.st_mode, (long)st.st_nlink,
	       (long)st.st_size, st.st_uid, (long)st.st_blksize);
	ok("fstatfs", fstatfs(fd, &sfs));
	printf("fstatfs: type=%#lx bsize=%ld namelen=%ld\n", (long)sfs.f_type, (long)sfs.f_bsize, (long)sfs.f_namelen);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	printf("fd link: %.*s\n", n < 0 ? 0 : (int)n, link);
	ok("lseek", lseek(fd, 6, SEEK_SET));
	n = read(fd, link, 10);
	printf("read from 6: %.*s\n", n < 0 ? 0 : (int)n, link);
	ok("write", write(fd, "x", 1));
	ok("unlink", unlink_("mqt-f"));
	ok("fstat after unlink", fstat(fd, &st));
	printf("fstat: nlink=%ld\n", (long)st.st_nlink);
	n = readlink(path, link, sizeof(link) - 1);
	printf("fd link: %.*s\n", n < 0 ? 0 : (int)n, link);
	recv("receive", fd, 8192, NULL);
}

/* an unprivileged user's limits: msg_max and msgsize_max, queues_max, RLIMIT_MSGQUEUE; root's */
static void case_limits(void)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 1 };
	char name[32];
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = { 97 * 3, 97 * 3 };
		int i, made = 0, fds[300];

		if (setgid(1000) || setuid(1000))
			exit(2);
		attr.mq_maxmsg = 11, attr.mq_msgsize = 16;
		ok("user: maxmsg 11", open_("mqt-l", O_RDWR | O_CREAT, 0600, &attr));
		attr.mq_maxmsg = 10, attr.mq_msgsize = 8193;
		ok("user: msgsize 8193", open_("mqt-l", O_RDWR | O_CREAT, 0600, &attr));
		attr.mq_maxmsg = 1, attr.mq_msgsize = 1;
		for (i = 0; i < 300; i++) {
			snprintf(name, sizeof(name), "mqt-l%d", i);
			fds[i] = open_(name, O_RDWR | O_CREAT, 0600, &attr);
			if (fds[i] < 0)
				break;
			made++;
		}
		printf("user: queues made %d, then %s\n", made, errname(errno));
		for (i = 0; i < made; i++) {
			snprintf(name, sizeof(name), "mqt-l%d", i);
			unlink_(name);
			close(fds[i]);	/* the queue goes with its last file */
		}
		setrlimit(RLIMIT_MSGQUEUE, &rl);
		for (i = 0, made = 0; i < 10; i++) {
			snprintf(name, sizeof(name), "mqt-r%d", i);
			if (open_(name, O_RDWR | O_CREAT, 0600, &attr) < 0)
				break;
			made++;
		}
		printf("user: RLIMIT_MSGQUEUE %d: queues made %d, then %s\n", 97 * 3, made, errname(errno));
		for (i = 0; i < made; i++) {
			snprintf(name, sizeof(name), "mqt-r%d", i);
			unlink_(name);
		}
		exit(0);
	}
	printf("child: %d\n", child_status(pid));
	attr.mq_maxmsg = 11, attr.mq_msgsize = 8193;
	ok("root: maxmsg 11 msgsize 8193", open_("mqt-l", O_RDWR | O_CREAT, 0600, &attr));
	ok("unlink", unlink_("mqt-l"));
}

/* poll asleep on an empty queue, woken by a send */
static void case_pollwait(void)
{
	int fd = open_("mqt-q", O_RDWR | O_CREAT | O_EXCL, 0600, NULL);
	pid_t pid;

	ok("open", fd);
	pid = fork();
	if (pid == 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		/* its status says what poll saw: 0 for one fd readable */
		exit(poll(&p, 1, -1) == 1 && (p.revents & POLLIN) ? 0 : 1);
	}
	printf("child asleep: %d\n", wait_asleep(pid));
	ok("send", send(fd, "wake", 1));
	printf("child: %d\n", child_status(pid));
	ok("unlink", unlink_("mqt-q"));
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(void); } cases[] = {
		{ "open", case_open }, { "sendrecv", case_sendrecv }, { "notify", case_notify },
		{ "block", case_block }, { "perm", case_perm }, { "file", case_file },
		{ "limits", case_limits }, { "pollwait", case_pollwait },
	};

	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (argc > 1 && !strcmp(argv[1], cases[i].name)) {
			cases[i].fn();
			return 0;
		}
	fprintf(stderr, "usage: mqtest open|sendrecv|notify|block|perm|file|limits|pollwait\n");
	return 2;
}
