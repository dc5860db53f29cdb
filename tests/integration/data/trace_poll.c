/* poll(2) of the trace pipes, as trace_poll() answers it: trace_pipe when a record is in, a
 * cpu's pipe once its buffer is buffer_percent full (a tiny unexpanded buffer always is), any of
 * them always with options/block; a record coming in wakes a poll of trace_pipe.
 * Usage: trace_poll TRACING_DIR; run on cpu 0 (taskset 1). */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *T;

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void put(const char *file, const char *text)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", T, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		printf("write %s: failed\n", file);
	close(fd);
}

/* poll FILE for `timeout` ms: what it returned, and whether it waited the whole time */
static void try(const char *what, const char *file, int timeout)
{
	char path[512];
	struct pollfd pfd;
	long t0;
	int r;

	snprintf(path, sizeof(path), "%s/%s", T, file);
	pfd.fd = open(path, O_RDONLY | O_NONBLOCK);
	pfd.events = POLLIN;
	pfd.revents = 0;
	t0 = now_ms();
	r = poll(&pfd, 1, timeout);
	printf("%s %s: poll=%d revents=%#x waited=%d\n", what, file, r, pfd.revents, now_ms() - t0 >= timeout);
	close(pfd.fd);
}

int main(int argc, char **argv)
{
	T = argc > 1 ? argv[1] : "/sys/kernel/tracing";
	put("trace", "");
	try("unexpanded", "trace_pipe", 300);
	try("unexpanded", "per_cpu/cpu0/trace_pipe", 300);
	try("unexpanded", "per_cpu/cpu0/trace_pipe_raw", 300);
	put("buffer_size_kb", "1408");
	try("expanded", "per_cpu/cpu0/trace_pipe", 300);
	try("expanded", "per_cpu/cpu0/trace_pipe_raw", 300);
	put("trace_marker", "one");
	try("one record", "trace_pipe", 300);
	try("one record", "per_cpu/cpu0/trace_pipe_raw", 300);
	put("buffer_percent", "0");
	try("percent 0", "per_cpu/cpu0/trace_pipe_raw", 300);
	put("buffer_percent", "50");
	put("trace", "");
	put("options/block", "1");
	try("block", "trace_pipe", 300);
	try("block", "per_cpu/cpu0/trace_pipe_raw", 300);
	put("options/block", "0");
	if (fork() == 0) {	/* a record in 0.3 s wakes the poll */
		usleep(300000);
		put("trace_marker", "later");
		_exit(0);
	}
	try("woken", "trace_pipe", 20000);
	return 0;
}
