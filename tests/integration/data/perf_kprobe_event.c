/* A kprobe event of kprobe_events as a tracepoint perf event (tests/integration/
 * test_session_perf_kprobe.py), run the same on the reference 6.1 and in a session.  argv[1]:
 * the tracing directory, where kprobes/pk is `p:kprobes/pk do_sys_openat2` (its enable 0).
 * Prints what a per-task counting event of it counts for 3 opens, the errno of its removal
 * while the event is open, its enable file meanwhile, the errno of SET_FILTER on it, and the
 * removal after the close. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static char dir[256];

static int write_file(const char *name, const char *text)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = errno;
	close(fd);
	return ret;
}

static void read_file(const char *name, char *buf, int len)
{
	char path[512];
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? 0 : read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .sample_period = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW };
	char id[32], enable[32];
	unsigned long long count = 0;
	int fd, i;

	if (argc < 2)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	read_file("events/kprobes/pk/id", id, sizeof(id));
	a.config = strtoull(id, NULL, 10);
	fd = syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("open %d\n", errno);
		return 1;
	}
	for (i = 0; i < 3; i++)
		close(open("/proc/self/stat", O_RDONLY));
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		printf("read %d\n", errno);
	printf("count %llu\n", count);
	printf("remove_busy %d\n", write_file("kprobe_events", "-:kprobes/pk\n"));
	read_file("events/kprobes/pk/enable", enable, sizeof(enable));
	printf("enable %s\n", enable);
	printf("filter %d\n", ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "common_pid != 0") ? errno : 0);
	close(fd);
	printf("remove %d\n", write_file("kprobe_events", "-:kprobes/pk\n"));
	return 0;
}
