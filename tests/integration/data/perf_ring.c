/* A session process maps perf ring buffers of the emulated kernel (tests/integration/test_session_perf_record.py):
 * 6.1's mmap checks, regions coming back, samples of sys_enter_getuid (id: argv[1]) read from the
 * mapped pages, two events sharing one buffer (SET_OUTPUT). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_getuid(int id, int pid, int cpu)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .config = id,
		.sample_period = 1, .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW, .disabled = 1 };

	return syscall(__NR_perf_event_open, &a, pid, cpu, -1, 0);
}

static int try_map(int fd, size_t pages, int flags, off_t off)
{
	void *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, flags, fd, off);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, pages * 4096);
	return 0;
}

int main(int argc, char **argv)
{
	int id = atoi(argv[1]), fd, fd2, i, n = 0, mine = 0;
	struct perf_event_mmap_page *up;
	unsigned char *data;
	unsigned long long head, off;

	/* 6.1's checks */
	fd = open_getuid(id, 0, -1);
	printf("private %d\n", try_map(fd, 3, MAP_PRIVATE, 0));
	printf("pages4 %d\n", try_map(fd, 4, MAP_SHARED, 0));
	printf("pgoff %d\n", try_map(fd, 3, MAP_SHARED, 4096));
	printf("toobig %d\n", try_map(fd, 1 + 2048, MAP_SHARED, 0));
	close(fd);
	/* every buffer's region comes back when its event goes */
	for (i = 0; i < 200; i++) {
		fd = open_getuid(id, 0, -1);
		if (try_map(fd, 1 + 8, MAP_SHARED, 0))
			break;
		close(fd);
	}
	printf("cycles %d\n", i);
	/* samples in the buffer, one per getuid, SET_OUTPUT's too */
	fd = open_getuid(id, 0, -1);
	fd2 = open_getuid(id, 0, -1);
	up = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (up == MAP_FAILED)
		return 1;
	printf("set_output %d\n", ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, fd));
	i = ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fd2);
	printf("mapped_set_output %d %d\n", i, errno);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < 5; i++)
		syscall(__NR_getuid);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0);
	head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE);
	data = (unsigned char *)up + up->data_offset;
	for (off = 0; off < head;) {
		struct perf_event_header *h = (void *)(data + off % up->data_size);
		unsigned int *tid = (void *)(h + 1);

		if (h->type == PERF_RECORD_SAMPLE) {
			n++;
			mine += tid[1] == (unsigned int)syscall(__NR_gettid);
		}
		off += h->size;
	}
	printf("samples %d %d size %llu\n", n, mine, up->data_size);
	return 0;
}
