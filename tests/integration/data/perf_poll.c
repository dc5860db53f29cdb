/* poll(2) of perf event fds in a session (tests/integration/test_session_perf_record.py): the
 * supervisor holds the call until the emulated kernel wakes the buffer (wakeup_events), a host
 * fd of the same set is ready, the timeout, or a signal, as Linux's perf_poll has it.  argv[1]:
 * the id of syscalls:sys_enter_getuid. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int open_getuid(int id, int wakeup_events)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .config = id,
		.sample_period = 1, .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW,
		.wakeup_events = wakeup_events };

	return syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

static int poll1(int fd, int timeout, short *revents)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, timeout);

	*revents = p.revents;
	return n;
}

static void getuids(int n)
{
	while (n--)
		syscall(__NR_getuid);
}

static int fd;
static volatile int polled = -2;
static short woken_revents;

static void *poller(void *unused)
{
	polled = poll1(fd, -1, &woken_revents);
	return unused;
}

static void on_alarm(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	int id = atoi(argv[1]), fd2, pipefd[2], n;
	struct pollfd two[2];
	struct sigaction sa;
	struct itimerval it = { .it_value = { 0, 200000 } };
	struct timespec ts = { 0, 100000000 };
	pthread_t thread;
	void *up;
	short rev;

	fd = open_getuid(id, 2);		/* a wakeup every second sample */
	fd2 = open_getuid(id, 0);
	up = mmap(NULL, 9 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd < 0 || fd2 < 0 || up == MAP_FAILED)
		return 1;
	n = poll1(fd, 0, &rev);
	printf("empty %d %d\n", n, rev);
	getuids(1);
	n = poll1(fd, 0, &rev);
	printf("one sample %d %d\n", n, rev);
	getuids(1);
	n = poll1(fd, 5000, &rev);
	printf("wakeup %d %#x\n", n, rev);
	n = poll1(fd, 0, &rev);
	printf("taken %d %d\n", n, rev);
	/* a host fd of the same set */
	if (pipe(pipefd) || write(pipefd[1], "x", 1) != 1)
		return 1;
	two[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	two[1] = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	n = poll(two, 2, 5000);
	printf("pipe %d %#x %#x\n", n, two[0].revents, two[1].revents);
	/* asleep in poll until the kernel's wakeup */
	pthread_create(&thread, NULL, poller, NULL);
	usleep(200000);
	getuids(2);
	pthread_join(thread, NULL);
	printf("woken %d %#x\n", polled, woken_revents);
	/* an event writing to the other's buffer: its fd sees the buffer's wakeups */
	n = ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, fd);
	getuids(2);		/* four samples, the second of fd's: a wakeup */
	n = poll1(fd2, 5000, &rev) * 10 + n;
	printf("set_output %d %#x\n", n, rev);
	/* the timeout; ppoll leaves no time */
	n = poll1(fd, 100, &rev);
	printf("timeout %d %d\n", n, rev);
	two[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	n = ppoll(two, 1, &ts, NULL);
	printf("ppoll %d %ld %ld\n", n, (long)ts.tv_sec, ts.tv_nsec);
	/* a signal ends the wait: EINTR after its handler */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	n = poll1(fd, -1, &rev);
	printf("signal %d %s\n", n, n < 0 ? strerror(errno) : "-");
	return 0;
}
