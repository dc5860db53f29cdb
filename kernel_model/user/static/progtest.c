/*
 * A test program against a real libc (glibc or musl), statically linked: what a user's
 * `gcc -static` program does, one behaviour per subcommand (tests/machine/test_progs.py).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int shared_value = 1;

static int cmd_hello(int argc, char **argv)
{
	printf("hello from %s, argc=%d\n", argv[0], argc);
	for (int i = 0; i < argc; i++)
		printf("argv[%d]=%s\n", i, argv[i]);
	printf("AT_PAGESZ=%lu AT_EXECFN=%s AT_PLATFORM=%s random=%d\n", getauxval(AT_PAGESZ),
	       (char *)getauxval(AT_EXECFN), (char *)getauxval(AT_PLATFORM), getauxval(AT_RANDOM) != 0);
	return 0;
}

/* small blocks from the brk heap, large ones mmap'd; each written and read back */
static int cmd_malloc(void)
{
	enum { SMALL = 2000, LARGE = 8 };
	static char *small[SMALL];
	char *large[LARGE];
	void *brk0 = sbrk(0);

	for (int i = 0; i < SMALL; i++) {
		small[i] = malloc(16 + i % 200);
		memset(small[i], i & 0xff, 16 + i % 200);
	}
	for (int i = 0; i < LARGE; i++) {
		large[i] = malloc((1 << 20) + i * 4096);
		memset(large[i], 0x5a ^ i, (1 << 20) + i * 4096);
	}
	for (int i = 0; i < SMALL; i++)
		for (int k = 0; k < 16 + i % 200; k++)
			if (small[i][k] != (char)(i & 0xff)) {
				printf("small block %d corrupt at %d\n", i, k);
				return 1;
			}
	for (int i = 0; i < LARGE; i++)
		for (int k = 0; k < (1 << 20) + i * 4096; k += 997)
			if (large[i][k] != (char)(0x5a ^ i)) {
				printf("large block %d corrupt at %d\n", i, k);
				return 1;
			}
	printf("brk grew: %s\n", sbrk(0) > brk0 ? "yes" : "no");
	for (int i = 0; i < LARGE; i++)
		free(large[i]);
	for (int i = 0; i < SMALL; i++)
		free(small[i]);
	printf("malloc ok\n");
	return 0;
}

/* the child's write is its own copy: the parent keeps its value */
/* pages the parent wrote before fork: after it they are copy-on-write in both */
static char cow_buf[4 * 4096 + 100];

static int cmd_fork(void)
{
	int status, p[2];
	long n, total = 0;
	pid_t pid;

	memset(cow_buf, 'p', sizeof(cow_buf));
	fflush(stdout);
	if (pipe(p))
		return printf("pipe: %s\n", strerror(errno)), 1;
	pid = fork();
	if (pid < 0) {
		printf("fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		shared_value = 2;
		printf("child sees %d\n", shared_value);
		fflush(stdout);
		memset(cow_buf, 'c', sizeof(cow_buf));
		_exit(write(p[1], cow_buf, sizeof(cow_buf)) == sizeof(cow_buf) ? 7 : 1);
	}
	close(p[1]);
	/* the kernel's copy to user space write-faults on each of the five pages in turn */
	while ((n = read(p[0], cow_buf + total, sizeof(cow_buf) - total)) > 0)
		total += n;
	if (waitpid(pid, &status, 0) != pid) {
		printf("waitpid: %s\n", strerror(errno));
		return 1;
	}
	printf("parent sees %d, child exited %d\n", shared_value, WEXITSTATUS(status));
	printf("parent read %ld bytes, %s\n", total,
	       memchr(cow_buf, 'p', sizeof(cow_buf)) ? "some its own" : "all the child's");
	return 0;
}

static int cmd_mmap(void)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return printf("mmap: %s\n", strerror(errno)), 1;
	printf("fresh page reads %d\n", p[4096]);
	strcpy(p + 4096, "written");
	if (mprotect(p + 4096, 4096, PROT_READ))
		return printf("mprotect: %s\n", strerror(errno)), 1;
	printf("after mprotect: %s\n", p + 4096);
	if (munmap(p, 4096) || munmap(p + 8192, 4096))
		return printf("munmap: %s\n", strerror(errno)), 1;
	printf("middle page kept: %s\n", p + 4096);
	if (mprotect(p, 4096, PROT_READ) == 0 || errno != ENOMEM)
		return printf("mprotect of an unmapped page did not fail with ENOMEM\n"), 1;
	printf("mmap ok\n");
	return 0;
}

static int cmd_segv(void)
{
	printf("about to fault\n");
	fflush(stdout);
	*(volatile int *)16 = 1;
	return 0;
}

static int cmd_wprotect(void)
{
	char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	printf("read-only page reads %d\n", p[0]);
	fflush(stdout);
	p[0] = 1;
	return 0;
}

static int cmd_stack(int depth)
{
	volatile char buf[4096];

	buf[0] = depth;
	if (depth > 0)
		return cmd_stack(depth - 1) + buf[0] - depth;
	printf("deep stack ok\n");
	return 0;
}

static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

static int cmd_threads(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)(i + 1)))
			return printf("pthread_create failed\n"), 1;
	for (int i = 0; i < 2; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		printf("thread %d returned %ld\n", i, (long)ret);
	}
	printf("counter=%d\n", counter);
	return counter != 20000;
}

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got = sig;
}

static int cmd_signal(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return printf("sigaction: %s\n", strerror(errno)), 1;
	kill(getpid(), SIGUSR1);
	printf("handler saw signal %d\n", (int)got);
	return got != SIGUSR1;
}

/* a process group's signal, SIGPIPE, a handler on the alternate stack */
static volatile sig_atomic_t on_altstack;

static void on_alt(int sig)
{
	stack_t ss;

	got = sig;
	on_altstack = !sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK);
}

static int cmd_sigmisc(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int fds[2];
	stack_t ss = { .ss_size = 65536 };
	char c = 'x';
	long r;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	setpgid(0, 0);			/* a group of its own: kill(0) is this process's */
	got = 0;
	r = kill(0, SIGUSR1);
	printf("kill(0): %ld, handler saw %d\n", r, (int)got);
	got = 0;
	r = kill(-getpgrp(), SIGUSR1);
	printf("kill(-pgrp): %ld, handler saw %d\n", r, (int)got);
	r = kill(-99999, SIGUSR1);
	printf("kill(-99999): %ld %s\n", r, strerror(errno));
	if (pipe(fds))
		return 1;
	close(fds[0]);
	got = 0;
	r = write(fds[1], &c, 1);
	printf("write to a pipe with no reader: %ld %s, handler saw %d\n", r, strerror(errno), (int)got);
	ss.ss_sp = malloc(ss.ss_size);
	sigaltstack(&ss, NULL);
	sa.sa_handler = on_alt;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, NULL);
	got = 0;
	raise(SIGUSR2);
	printf("handler on the alternate stack: %d %s\n", (int)got, on_altstack ? "yes" : "no");
	return 0;
}

/* a handler whose frame cannot be written (its alternate stack is not accessible): SIGSEGV,
 * whose handler's frame cannot be written either */
static int cmd_badframe(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_ONSTACK };
	stack_t ss = { .ss_size = 65536 };

	ss.ss_sp = mmap(NULL, ss.ss_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sigaltstack(&ss, NULL);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);	/* the SIGSEGV that follows has no frame either: fatal */
	printf("raising\n");
	fflush(stdout);
	raise(SIGUSR1);
	printf("survived\n");
	return 0;
}

/* rt_sigreturn with no frame where the stack says: SIGSEGV */
static int cmd_badreturn(void)
{
	printf("returning\n");
	fflush(stdout);
	asm volatile("mov $0x1000, %%rsp; mov $15, %%eax; syscall" ::: "memory");
	return 0;
}

static int cmd_uname(void)
{
	struct utsname u;
	struct rlimit stack;

	if (uname(&u) || getrlimit(RLIMIT_STACK, &stack))
		return printf("uname: %s\n", strerror(errno)), 1;
	printf("%s %s %s stack=%lu\n", u.sysname, u.release, u.machine, (unsigned long)stack.rlim_cur);
	return 0;
}

/* SIGTERM with no handler ends the process, and every thread with it */
static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* /proc/self/task: a directory per thread, each its own stat and wchan; its links 2 + threads */
static int cmd_taskdir(void)
{
	char path[64], buf[256];
	pthread_t t[2];
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int fd;

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, sleeper, NULL);
	nanosleep(&(struct timespec){ 0, 50000000 }, NULL);	/* (both in pause() by then) */
	if (stat("/proc/self/task", &st) == 0)
		printf("task links: %lu\n", (unsigned long)st.st_nlink);
	dir = opendir("/proc/self/task");
	while (dir && (d = readdir(dir))) {
		ssize_t n;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", d->d_name);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = 0;
		if (strchr(buf, ')'))
			*strchr(buf, ')') = 0;	/* "TID (COMM" */
		printf("%s %s is %s", atoi(d->d_name) == getpid() ? "leader" : "thread",
		       strchr(buf, '(') ? strchr(buf, '(') + 1 : "?", atoi(buf) == atoi(d->d_name) ? "itself" : "another");
		snprintf(path, sizeof(path), "/proc/self/task/%s/wchan", d->d_name);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = 0;
		printf(", waits in %s\n", buf);
	}
	if (dir)
		closedir(dir);
	snprintf(path, sizeof(path), "/proc/self/task/%d", getppid());
	printf("the parent's tid under it: %s\n", stat(path, &st) ? strerror(errno) : "found");
	return 0;
}

static int cmd_kill(void)
{
	pthread_t t;

	pthread_create(&t, NULL, sleeper, NULL);
	printf("killing myself\n");
	fflush(stdout);
	kill(getpid(), SIGTERM);
	return 0;
}

static int cmd_clock(void)
{
	struct timespec m0, m1, r, cpu;
	struct timespec nap = { 0, 2000000 };

	clock_gettime(CLOCK_MONOTONIC, &m0);
	nanosleep(&nap, NULL);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	long slept = (m1.tv_sec - m0.tv_sec) * 1000000000L + m1.tv_nsec - m0.tv_nsec;
	int moved = 1;

	printf("slept at least 2ms: %s\n", slept >= 2000000 ? "yes" : "no");
	/* the clock moves between two calls, as a ns clock does (not only between the machine's
	 * instruction slices) */
	for (int i = 0; i < 200; i++) {
		clock_gettime(CLOCK_MONOTONIC, &m0);
		clock_gettime(CLOCK_MONOTONIC, &m1);
		moved &= m1.tv_sec > m0.tv_sec || (m1.tv_sec == m0.tv_sec && m1.tv_nsec > m0.tv_nsec);
	}
	printf("each read later than the last: %s\n", moved ? "yes" : "no");
	printf("realtime after 2025: %s\n", r.tv_sec > 1735689600 ? "yes" : "no");
	printf("cpu time > 0: %s\n", cpu.tv_sec > 0 || cpu.tv_nsec > 0 ? "yes" : "no");
	return 0;
}

/* atime PATH: whether each of two reads, a tick apart, moves the file's access time */
static int cmd_atime(const char *path)
{
	struct timespec nap = { 0, 10000000 };
	struct stat before, after;
	char buf[64];
	int i, fd;

	for (i = 0; i < 2; i++) {
		if (stat(path, &before))
			return printf("stat: %s\n", strerror(errno)), 1;
		nanosleep(&nap, NULL);
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
			return printf("read: %s\n", strerror(errno)), 1;
		close(fd);
		stat(path, &after);
		printf("atime moved: %s\n", after.st_atim.tv_sec != before.st_atim.tv_sec ||
		       after.st_atim.tv_nsec != before.st_atim.tv_nsec ? "yes" : "no");
	}
	return 0;
}

/* every clock the kernel has, by the system calls themselves (no vDSO here either) */
static int cmd_clocks(void)
{
	static const clockid_t ids[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
					 CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
					 CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, CLOCK_TAI };
	struct timespec ts, res, now, until;
	struct timeval tv;
	struct tms tms;
	unsigned int i;
	long t;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		long g = syscall(SYS_clock_gettime, ids[i], &ts);
		long r = syscall(SYS_clock_getres, ids[i], &res);

		printf("clock %d: gettime %ld res %ld %ldns\n", (int)ids[i], g, r, r ? -1L : res.tv_nsec);
	}
	/* the caller's own CPU clocks by pid: MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) */
	printf("pid clock: %ld\n", syscall(SYS_clock_gettime, (clockid_t)((~getpid() << 3) | 2), &ts));
	printf("alarm clock: %ld\n", syscall(SYS_clock_gettime, 8 /* CLOCK_REALTIME_ALARM */, &ts) ? -errno : 0L);
	syscall(SYS_gettimeofday, &tv, NULL);
	t = syscall(SYS_time, NULL);
	printf("time agrees with gettimeofday: %s\n", t - tv.tv_sec <= 1 && t - tv.tv_sec >= -1 ? "yes" : "no");
	syscall(SYS_clock_gettime, CLOCK_REALTIME, &now);
	until = now;
	until.tv_nsec += 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	printf("abs sleep: %ld\n", syscall(SYS_clock_nanosleep, CLOCK_REALTIME, TIMER_ABSTIME, &until, NULL));
	printf("thread sleep: %ld\n", syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &until, NULL) ? -errno : 0L);
	printf("times: %s\n", syscall(SYS_times, &tms) > 0 ? "ok" : "failed");
	return 0;
}

/* threadexec: a second thread execs echo while the first waits in pthread_join (de_thread():
 * the first is killed, the exec'd program takes the thread group leader's pid) */
static void *exec_echo(void *arg)
{
	char *child[] = { "echo", "exec'd from a thread, pid", arg, NULL };

	execv("/bin/echo", child);
	printf("execv: %s\n", strerror(errno));
	return NULL;
}

static int cmd_threadexec(void)
{
	static char pid[16];
	pthread_t t;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	fflush(stdout);
	if (pthread_create(&t, NULL, exec_echo, pid))
		return printf("pthread_create failed\n"), 1;
	pthread_join(t, NULL);
	printf("the exec did not happen\n");
	return 1;
}

/* posix_spawn (clone with CLONE_VM|CLONE_VFORK in glibc, vfork in musl) of another program */
static int cmd_spawn(char **argv)
{
	char *child[] = { "echo", "spawned", "echo", NULL };
	int status;
	pid_t pid;

	(void)argv;
	if (posix_spawn(&pid, "/bin/echo", NULL, NULL, child, NULL))
		return printf("posix_spawn: %s\n", strerror(errno)), 1;
	fflush(stdout);
	if (waitpid(pid, &status, 0) != pid)
		return printf("waitpid: %s\n", strerror(errno)), 1;
	printf("child exited %d\n", WEXITSTATUS(status));
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "hello";

	if (!strcmp(cmd, "hello"))
		return cmd_hello(argc, argv);
	if (!strcmp(cmd, "malloc"))
		return cmd_malloc();
	if (!strcmp(cmd, "fork"))
		return cmd_fork();
	if (!strcmp(cmd, "mmap"))
		return cmd_mmap();
	if (!strcmp(cmd, "segv"))
		return cmd_segv();
	if (!strcmp(cmd, "wprotect"))
		return cmd_wprotect();
	if (!strcmp(cmd, "stack"))
		return cmd_stack(200);
	if (!strcmp(cmd, "threads"))
		return cmd_threads();
	if (!strcmp(cmd, "taskdir"))
		return cmd_taskdir();
	if (!strcmp(cmd, "sigmisc"))
		return cmd_sigmisc();
	if (!strcmp(cmd, "badframe"))
		return cmd_badframe();
	if (!strcmp(cmd, "badreturn"))
		return cmd_badreturn();
	if (!strcmp(cmd, "signal"))
		return cmd_signal();
	if (!strcmp(cmd, "uname"))
		return cmd_uname();
	if (!strcmp(cmd, "kill"))
		return cmd_kill();
	if (!strcmp(cmd, "clock"))
		return cmd_clock();
	if (!strcmp(cmd, "atime") && argc > 2)
		return cmd_atime(argv[2]);
	if (!strcmp(cmd, "clocks"))
		return cmd_clocks();
	if (!strcmp(cmd, "threadexec"))
		return cmd_threadexec();
	if (!strcmp(cmd, "spawn"))
		return cmd_spawn(argv);
	fprintf(stderr, "usage: %s hello|malloc|fork|mmap|segv|wprotect|stack|threads|threadexec|taskdir|signal|uname|kill|clock|spawn\n", argv[0]);
	return 2;
}
