/* A user's own program (tests/machine/test_progs.py builds it with gcc -static and musl-gcc
 * -static): file mmap, stdio, malloc, pthreads, signals (one on a sigaltstack), fork + execve of a static program. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static char altstack[65536];
static volatile int on_alt;
static void on_usr1(int sig) { got = sig; }
static void on_usr2(int sig)
{
	char here;
	stack_t now;

	sigaltstack(NULL, &now);
	on_alt = &here >= altstack && &here < altstack + sizeof(altstack) && now.ss_flags == SS_ONSTACK;
}

static void *worker(void *arg)
{
	long *n = arg;
	char *p = malloc(1000);
	snprintf(p, 1000, "worker %ld", *n);
	*n = strlen(p);
	free(p);
	return n;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return printf("child %s\n", argv[2]), 42;
	/* file mmap: private (written: a copy) and shared read-only */
	int fd = open(argv[0], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		return perror("open self"), 1;
	char *priv = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	char *shared = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	void *shw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (priv == MAP_FAILED || shared == MAP_FAILED)
		return perror("mmap"), 1;
	printf("mmap: %.4s %.4s shared-write %s\n", priv + 1, shared + 1, shw == MAP_FAILED ? "refused" : "mapped");
	priv[1] = 'X';
	printf("private copy: %c, file's page: %c\n", priv[1], shared[1]);
	/* threads */
	pthread_t t[2];
	long n[2] = { 1, 22 };
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, &n[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("threads: %ld %ld\n", n[0], n[1]);
	/* signals */
	signal(SIGUSR1, on_usr1);
	kill(getpid(), SIGUSR1);
	printf("signal: %d\n", (int)got);
	/* a handler on the alternate stack (SA_ONSTACK) */
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) }, old;
	struct sigaction sa = { .sa_handler = on_usr2, .sa_flags = SA_ONSTACK };
	if (sigaltstack(&ss, NULL) || sigaction(SIGUSR2, &sa, NULL))
		return perror("sigaltstack"), 1;
	raise(SIGUSR2);
	sigaltstack(NULL, &old);
	printf("sigaltstack: handler on it %d, after: flags %d size %zu\n", on_alt, old.ss_flags, old.ss_size);
	ss.ss_size = 100;
	printf("too small: %s\n", sigaltstack(&ss, NULL) ? strerror(errno) : "taken");
	/* fork + execve of a static program (itself) */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char *args[] = { argv[0], "child", "hello", NULL };
		execve(argv[0], args, (char *[]){ NULL });
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child exited %d\n", WEXITSTATUS(status));
	return argc > 1 ? atoi(argv[1]) : 0;
}
