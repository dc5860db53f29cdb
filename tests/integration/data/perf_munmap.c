/* munmap of a perf ring buffer in a session reaches the emulated kernel
 * (tests/integration/test_session_perf_record.py): with their events still open, 100 buffers
 * mapped and unmapped one after the other (more than the machine's perf pool has regions),
 * a buffer mapped again in another size once unmapped, an event that mapped one then
 * redirected (SET_OUTPUT).  argv[1]: the id of syscalls:sys_enter_getuid. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_getuid(int id)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .config = id,
		.sample_period = 1, .sample_type = PERF_SAMPLE_TID, .disabled = 1 };

	return syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

static int map(int fd, int pages, void **p)
{
	*p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return *p == MAP_FAILED ? errno : 0;
}

int main(int argc, char **argv)
{
	int id = atoi(argv[1]), i, fd, other, err;
	void *p, *q;

	for (i = 0; i < 100; i++) {
		fd = open_getuid(id);
		if (fd < 0 || map(fd, 1 + 8, &p))
			break;
		munmap(p, 9 * 4096);
	}
	printf("mapped %d\n", i);
	fd = open_getuid(id);
	map(fd, 1 + 8, &p);
	printf("mapped again other size %d\n", map(fd, 1 + 16, &q));	/* EINVAL: the buffer is there */
	munmap(p, 9 * 4096);
	err = map(fd, 1 + 16, &p);
	printf("unmapped, other size %d\n", err);
	other = open_getuid(id);
	printf("set_output while mapped %d\n", ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, other) < 0 ? errno : 0);
	munmap(p, 17 * 4096);
	printf("set_output unmapped %d\n", ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, other) < 0 ? errno : 0);
	return 0;
}
