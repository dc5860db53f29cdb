/* Side-band records of the emulated kernel (tests/integration/test_session_perf_record.py): a
 * dummy software event per cpu asking for comm and task records, mapped; a child that execs
 * /bin/true; then the FORK, COMM (exec) and EXIT records of the child found in the buffers. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CPUS 8

int main(void)
{
	struct perf_event_mmap_page *up[CPUS] = { 0 };
	int fds[CPUS], n = 0, cpu, fork_seen = 0, exit_seen = 0, comm_seen = 0;
	pid_t child;

	for (cpu = 0; cpu < CPUS; cpu++) {
		struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
			.config = PERF_COUNT_SW_DUMMY, .comm = 1, .comm_exec = 1, .task = 1, .sample_id_all = 1,
			.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME };

		fds[cpu] = syscall(__NR_perf_event_open, &a, -1, cpu, -1, 0);
		if (fds[cpu] < 0)
			break;
		up[cpu] = mmap(NULL, 9 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fds[cpu], 0);
		if (up[cpu] == MAP_FAILED)
			return 1;
		n++;
	}
	child = fork();
	if (child == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(child, NULL, 0);
	usleep(200000);	/* the kernel takes the child's end after the host */
	for (cpu = 0; cpu < n; cpu++) {
		unsigned char *data = (unsigned char *)up[cpu] + up[cpu]->data_offset;
		unsigned long long head = __atomic_load_n(&up[cpu]->data_head, __ATOMIC_ACQUIRE), off;

		for (off = 0; off < head;) {
			struct perf_event_header *h = (void *)(data + off % up[cpu]->data_size);
			unsigned int *w = (void *)(h + 1);

			if (h->type == PERF_RECORD_FORK && w[0] == (unsigned int)child && w[1] == (unsigned int)getpid())
				fork_seen++;
			if (h->type == PERF_RECORD_EXIT && w[0] == (unsigned int)child)
				exit_seen++;
			if (h->type == PERF_RECORD_COMM && w[0] == (unsigned int)child && !strcmp((char *)(w + 2), "true") &&
			    (h->misc & PERF_RECORD_MISC_COMM_EXEC))
				comm_seen++;
			off += h->size;
		}
	}
	printf("cpus %d fork %d comm %d exit %d\n", n > 1, fork_seen, comm_seen, exit_seen);
	return 0;
}
