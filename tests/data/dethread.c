/* execve from a multithreaded program (tests/machine/test_progs.py): two threads wait in
 * pause(), and the main thread ("leader") or a third one ("thread") execs this program again,
 * which reports on the process it finds itself in. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char **args;

static void *waiter(void *a)
{
	for (;;)
		pause();
	return a;
}

static void *execer(void *a)
{
	char pid[32];
	char *v[] = { args[0], "after", pid, NULL };

	snprintf(pid, sizeof(pid), "%d", getpid());
	fflush(stdout);
	execve(args[0], v, (char *[]){ NULL });
	perror("execve");
	exit(1);
	return a;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char line[256];
	FILE *f;

	args = argv;
	if (argc > 2 && !strcmp(argv[1], "after")) {
		printf("pid kept %d, tid is the pid %d, threads:", getpid() == atoi(argv[2]),
		       (int)syscall(SYS_gettid) == getpid());
		f = fopen("/proc/self/status", "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "Threads:", 8))
				printf("%s", line + 8);
		return 7;
	}
	pthread_create(&t, NULL, waiter, NULL);
	pthread_create(&t, NULL, waiter, NULL);
	if (argc > 1 && !strcmp(argv[1], "thread")) {
		pthread_create(&t, NULL, execer, NULL);
		for (;;)
			pause();
	}
	execer(NULL);
	return 1;
}
