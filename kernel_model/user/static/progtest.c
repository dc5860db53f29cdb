/*
 * A test program against a real libc (glibc or musl), statically linked: what a user's
 * `gcc -static` program does, one behaviour per subcommand (tests/machine/test_progs.py).
 */
#define _GNU_SOURCE	/* mremap() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <sys/inotify.h>
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

/* mremap(): growing in place, a move when something is in the way, shrinking, MREMAP_FIXED,
 * MREMAP_DONTUNMAP, and what it refuses; addresses are said relative to each other, so the
 * output is the same under any kernel that places mappings alike */
static const char *mremap_err(void *p)
{
	return p == MAP_FAILED ? strerror(errno) : "no error";
}

static int cmd_mremap(void)
{
	const long pg = 4096;
	char *base = mmap(NULL, 8 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *p, *q, *r, *dst;

	if (base == MAP_FAILED)
		return printf("mmap: %s\n", strerror(errno)), 1;
	munmap(base + 2 * pg, 6 * pg);		/* two pages with a hole of six above them */
	strcpy(base, "first");
	strcpy(base + pg, "second");
	p = mremap(base, 2 * pg, 4 * pg, 0);
	if (p == MAP_FAILED)
		return printf("grow: %s\n", strerror(errno)), 1;
	printf("grown %s: %s %s, new page reads %d\n", p == base ? "in place" : "elsewhere", p, p + pg, p[3 * pg]);
	if (mmap(p + 4 * pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return printf("mmap fixed: %s\n", strerror(errno)), 1;
	printf("grow into a mapping without MREMAP_MAYMOVE: %s\n", mremap_err(mremap(p, 4 * pg, 8 * pg, 0)));
	q = mremap(p, 4 * pg, 8 * pg, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return printf("move: %s\n", strerror(errno)), 1;
	printf("moved %s: %s %s\n", q == p ? "nowhere" : "elsewhere", q, q + pg);
	printf("the old range: %s\n", mremap_err(mremap(p, pg, pg, 0)));
	r = mremap(q, 8 * pg, 2 * pg, 0);
	printf("shrunk %s: %s, past its end: %s\n", r == q ? "in place" : "elsewhere", r + pg,
	       mremap_err(mremap(q + 2 * pg, pg, pg, 0)));
	dst = mmap(NULL, 4 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r = mremap(q, 2 * pg, 2 * pg, MREMAP_MAYMOVE | MREMAP_FIXED, dst + pg);
	if (r == MAP_FAILED)
		return printf("fixed: %s\n", strerror(errno)), 1;
	printf("MREMAP_FIXED %s: %s %s\n", r == dst + pg ? "there" : "elsewhere", r, r + pg);
	q = mremap(r, 2 * pg, 2 * pg, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);	/* (a hint: not MREMAP_FIXED) */
	if (q == MAP_FAILED)
		return printf("dontunmap: %s\n", strerror(errno)), 1;
	printf("MREMAP_DONTUNMAP: %s %s, the old range kept, reading %d\n", q, q + pg, r[pg]);
	printf("unknown flag: %s\n", mremap_err(mremap(q, pg, pg, 8)));
	printf("zero new length: %s\n", mremap_err(mremap(q, pg, 0, 0)));
	printf("unaligned: %s\n", mremap_err(mremap(q + 1, pg, pg, 0)));
	printf("MREMAP_FIXED without MREMAP_MAYMOVE: %s\n", mremap_err(mremap(q, pg, pg, MREMAP_FIXED, dst)));
	printf("MREMAP_DONTUNMAP resizing: %s\n", mremap_err(mremap(q, pg, 2 * pg, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL)));
	printf("overlapping MREMAP_FIXED: %s\n", mremap_err(mremap(q, 2 * pg, 2 * pg, MREMAP_MAYMOVE | MREMAP_FIXED, q + pg)));
	printf("across a VMA's end: %s\n", mremap_err(mremap(q, 4 * pg, 6 * pg, MREMAP_MAYMOVE, NULL)));
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

/* threads of one mm faulting on the same pages at once (the fault path holds the mmap_lock for
 * reading only: each PTE is set once, under its table's lock): each thread reads every page
 * (the zero page), then writes its own word in each; every word must be there after */
#define FAULT_THREADS 4
#define FAULT_PAGES 256
static unsigned char *fault_area;

static void *fault_worker(void *arg)
{
	long id = (long)arg;
	long sum = 0;

	for (int i = 0; i < FAULT_PAGES; i++)
		sum += fault_area[i * 4096 + 64 * id];
	for (int i = 0; i < FAULT_PAGES; i++)
		((volatile long *)(fault_area + i * 4096))[8 * id] = id + 1;
	return (void *)sum;
}

static long statm_resident(void)
{
	long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident;
}

static int cmd_faults(void)
{
	pthread_t t[FAULT_THREADS];
	long before, lost = 0, zeros = 0;

	fault_area = mmap(NULL, FAULT_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fault_area == MAP_FAILED)
		return printf("mmap: %s\n", strerror(errno)), 1;
	before = statm_resident();
	for (long i = 0; i < FAULT_THREADS; i++)
		if (pthread_create(&t[i], NULL, fault_worker, (void *)i))
			return printf("pthread_create failed\n"), 1;
	for (int i = 0; i < FAULT_THREADS; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		zeros += ret != NULL;
	}
	for (int i = 0; i < FAULT_PAGES; i++)
		for (long id = 0; id < FAULT_THREADS; id++)
			lost += ((long *)(fault_area + i * 4096))[8 * id] != id + 1;
	printf("faults: %d threads, %d pages, %ld words lost, %ld nonzero reads, resident grew %s\n",
	       FAULT_THREADS, FAULT_PAGES, lost, zeros,
	       statm_resident() - before >= FAULT_PAGES ? "by every page" : "short");
	return lost || zeros;
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
	siginfo_t si;
	pid_t child;
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
	child = fork();
	if (child == 0)
		_exit(0);
	waitid(P_PID, child, &si, WEXITED | WNOWAIT);	/* a zombie now, not reaped */
	r = kill(child, SIGTERM);
	printf("kill(zombie): %ld, tgkill(zombie): %ld\n", r, syscall(SYS_tgkill, child, child, SIGTERM));
	waitpid(child, NULL, 0);
	r = kill(child, SIGTERM);
	printf("kill(reaped): %ld %s\n", r, strerror(errno));
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

/* threadwait: a process waits for the children of all its threads (do_wait's
 * while_each_thread), only its calling thread's with __WNOTHREAD; a thread's children go to
 * another thread of the group when it exits (find_new_reaper); a "clone" child (its exit signal
 * not SIGCHLD) is waited for with __WCLONE or __WALL only, the others without __WCLONE */
static int threadwait_to_main[2], threadwait_to_thread[2];

static void *fork_and_hold(void *hold)
{
	pid_t pid = fork(), tid = syscall(SYS_gettid);
	char c;

	if (!pid)
		_exit(hold ? 3 : 4);
	/* the child's pid and its own tid to the main thread; held: then wait for its word */
	if (write(threadwait_to_main[1], &pid, sizeof(pid)) != sizeof(pid) ||
	    write(threadwait_to_main[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	if (hold && read(threadwait_to_thread[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static void print_wait(const char *what, pid_t pid, int options)
{
	int status = 0;
	pid_t got = waitpid(pid, &status, options);

	if (got < 0)
		printf("%s: %s\n", what, strerror(errno));
	else
		printf("%s: %s, status %d\n", what, got == pid ? "the child" : "another", WEXITSTATUS(status));
}

static int cmd_threadwait(void)
{
	char task[64];
	pthread_t t;
	pid_t pid, tid;
	int i;

	fflush(stdout);
	if (pipe(threadwait_to_main) || pipe(threadwait_to_thread) ||
	    pthread_create(&t, NULL, fork_and_hold, "hold") ||
	    read(threadwait_to_main[0], &pid, sizeof(pid)) != sizeof(pid) ||
	    read(threadwait_to_main[0], &tid, sizeof(tid)) != sizeof(tid))
		return printf("setup failed\n"), 1;
	print_wait("a live thread's child, __WNOTHREAD", pid, __WNOTHREAD);
	print_wait("a live thread's child", pid, 0);
	if (write(threadwait_to_thread[1], "x", 1) != 1 || pthread_join(t, NULL))
		return printf("join failed\n"), 1;
	if (pthread_create(&t, NULL, fork_and_hold, NULL) || pthread_join(t, NULL) ||
	    read(threadwait_to_main[0], &pid, sizeof(pid)) != sizeof(pid) ||
	    read(threadwait_to_main[0], &tid, sizeof(tid)) != sizeof(tid))
		return printf("thread failed\n"), 1;
	/* pthread_join returns at the thread's exit_mm(): its children move at exit_notify() */
	snprintf(task, sizeof(task), "/proc/self/task/%d", (int)tid);
	for (i = 0; i < 10000 && !access(task, F_OK); i++)
		usleep(1000);
	print_wait("an exited thread's child, __WNOTHREAD", pid, __WNOTHREAD);
	pid = syscall(SYS_clone, 0, NULL, NULL, NULL, 0);	/* exit signal 0: a "clone" child */
	if (!pid)
		syscall(SYS_exit_group, 5);
	print_wait("a clone child", pid, 0);
	print_wait("a clone child, __WCLONE", pid, __WCLONE);
	pid = fork();
	if (!pid)
		_exit(6);
	print_wait("a forked child, __WCLONE", pid, __WCLONE);
	print_wait("a forked child, __WALL", pid, __WALL);
	return 0;
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

/* timerfd (fs/timerfd.c): what a timer file reads, polls and says about itself, and the
 * refusals.  No figure that depends on how fast the machine is gets printed. */
#ifndef TFD_IOC_SET_TICKS
#define TFD_IOC_SET_TICKS _IOW('T', 0, unsigned long long)	/* (older libc headers lack it) */
#endif

#ifndef FALLOC_FL_ZERO_RANGE	/* (musl's headers lack the modes past PUNCH_HOLE) */
#define FALLOC_FL_COLLAPSE_RANGE	0x08
#define FALLOC_FL_ZERO_RANGE		0x10
#define FALLOC_FL_INSERT_RANGE		0x20
#define FALLOC_FL_UNSHARE_RANGE		0x40
#endif

static const char *errname(long ret)
{
	return ret >= 0 ? "ok" : errno == EINVAL ? "EINVAL" : errno == EBADF ? "EBADF" :
	       errno == EAGAIN ? "EAGAIN" : errno == EFAULT ? "EFAULT" : strerror(errno);
}

static void timerfd_fdinfo(int fd)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f) {
		printf("fdinfo: %s\n", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "clockid:", 8) || !strncmp(line, "settime flags:", 14) ||
		    !strncmp(line, "it_interval:", 12))
			printf("fdinfo %s", line);
	fclose(f);
}

static int cmd_timerfd(void)
{
	struct itimerspec its = { 0 }, old;
	struct pollfd pfd;
	struct timespec now;
	unsigned long long ticks = 0;
	int fd, pipefd[2];
	long ret;
	char small[4];

	printf("bad flags: %s\n", errname(timerfd_create(CLOCK_MONOTONIC, 1)));
	printf("bad clock: %s\n", errname(timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0)));
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return printf("timerfd_create: %s\n", strerror(errno)), 1;
	printf("cloexec %d nonblock %d\n", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC), !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	timerfd_gettime(fd, &old);
	printf("unarmed: value %ld.%09ld interval %ld.%09ld\n", (long)old.it_value.tv_sec, old.it_value.tv_nsec,
	       (long)old.it_interval.tv_sec, old.it_interval.tv_nsec);
	printf("read of an unarmed timer: %s\n", errname(read(fd, &ticks, sizeof(ticks))));
	printf("read of 4 bytes: %s\n", errname(read(fd, small, sizeof(small))));
	printf("settime bad flags: %s\n", errname(timerfd_settime(fd, 4, &its, NULL)));
	its.it_value.tv_nsec = 1000000000;
	printf("settime bad nsec: %s\n", errname(timerfd_settime(fd, 0, &its, NULL)));
	its.it_value.tv_nsec = 0;
	printf("settime bad fd: %s\n", errname(timerfd_settime(1000, 0, &its, NULL)));
	if (pipe(pipefd))
		return 1;
	printf("settime on a pipe: %s\n", errname(timerfd_settime(pipefd[0], 0, &its, NULL)));
	printf("gettime on a pipe: %s\n", errname(timerfd_gettime(pipefd[0], &old)));
	printf("gettime to a bad address: %s\n", errname(timerfd_gettime(fd, (void *)8)));

	/* one-shot, relative: armed, then readable once */
	its.it_value.tv_sec = 100;
	timerfd_settime(fd, 0, &its, NULL);
	timerfd_gettime(fd, &old);
	printf("armed for 100 s: value in (99, 100]: %d\n", old.it_value.tv_sec == 99 ||
	       (old.it_value.tv_sec == 100 && !old.it_value.tv_nsec));
	its.it_value.tv_sec = 0;
	its.it_value.tv_nsec = 2000000;
	timerfd_settime(fd, 0, &its, &old);
	printf("re-armed: the old value was in (99, 100]: %d\n", old.it_value.tv_sec == 99 ||
	       (old.it_value.tv_sec == 100 && !old.it_value.tv_nsec));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	ret = poll(&pfd, 1, 5000);
	printf("poll: %ld revents %#x\n", ret, pfd.revents);
	ret = read(fd, &ticks, sizeof(ticks));
	printf("read: %s ticks %llu\n", errname(ret), ticks);
	printf("read again: %s\n", errname(read(fd, &ticks, sizeof(ticks))));
	timerfd_gettime(fd, &old);
	printf("expired: value %ld.%09ld\n", (long)old.it_value.tv_sec, old.it_value.tv_nsec);

	/* periodic: the missed intervals are counted */
	its.it_value.tv_nsec = 1000000;
	its.it_interval.tv_nsec = 1000000;
	timerfd_settime(fd, 0, &its, NULL);
	nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	ticks = 0;
	ret = read(fd, &ticks, sizeof(ticks));
	printf("periodic read: %s ticks >= 10: %d\n", errname(ret), ticks >= 10);
	timerfd_gettime(fd, &old);
	printf("periodic: interval %ld.%09ld\n", (long)old.it_interval.tv_sec, old.it_interval.tv_nsec);
	timerfd_fdinfo(fd);
	its = (struct itimerspec){ 0 };
	timerfd_settime(fd, 0, &its, NULL);
	timerfd_gettime(fd, &old);
	printf("disarmed: value %ld.%09ld interval %ld.%09ld\n", (long)old.it_value.tv_sec, old.it_value.tv_nsec,
	       (long)old.it_interval.tv_sec, old.it_interval.tv_nsec);

	/* TFD_IOC_SET_TICKS (CONFIG_CHECKPOINT_RESTORE) */
	ticks = 5;
	printf("set ticks: %s\n", errname(ioctl(fd, TFD_IOC_SET_TICKS, &ticks)));
	ticks = 0;
	ret = read(fd, &ticks, sizeof(ticks));
	printf("read: %s ticks %llu\n", errname(ret), ticks);
	ticks = 0;
	printf("set no ticks: %s\n", errname(ioctl(fd, TFD_IOC_SET_TICKS, &ticks)));
	printf("another ioctl: %s\n", ioctl(fd, FIONREAD, &ticks) < 0 && errno == ENOTTY ? "ENOTTY" : errname(0));
	close(fd);

	/* CLOCK_REALTIME, absolute: a blocking read until then; a time past fires at once */
	fd = timerfd_create(CLOCK_REALTIME, 0);
	clock_gettime(CLOCK_REALTIME, &now);
	its = (struct itimerspec){ .it_value = now };
	its.it_value.tv_nsec += 3000000;
	if (its.it_value.tv_nsec >= 1000000000) {
		its.it_value.tv_sec++;
		its.it_value.tv_nsec -= 1000000000;
	}
	timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL);
	timerfd_fdinfo(fd);
	ret = read(fd, &ticks, sizeof(ticks));
	printf("absolute: %s ticks %llu\n", errname(ret), ticks);
	its.it_value = (struct timespec){ 1, 0 };
	timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
	ret = read(fd, &ticks, sizeof(ticks));
	printf("in the past: %s ticks %llu\n", errname(ret), ticks);
	close(fd);
	fd = timerfd_create(CLOCK_BOOTTIME, 0);
	its.it_value = (struct timespec){ 0, 1000000 };
	timerfd_settime(fd, 0, &its, NULL);
	ret = read(fd, &ticks, sizeof(ticks));
	printf("boottime: %s ticks %llu\n", errname(ret), ticks);
	close(fd);
	return 0;
}

/* signalfd (fs/signalfd.c): blocked signals read as records, poll, a new set, fdinfo */
static void signalfd_fdinfo(int fd)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "sigmask:", 8))
			printf("fdinfo %s", line);
	fclose(f);
}

static int cmd_signalfd(void)
{
	struct signalfd_siginfo si[4];
	sigset_t mask, all;
	struct pollfd pfd;
	int fd, fd2, pipefd[2], status, i;
	long ret;
	pid_t child;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	printf("bad flags: %s\n", errname(signalfd(-1, &mask, 1)));
	printf("bad size: %s\n", errname(syscall(SYS_signalfd4, -1, &mask, 4, 0)));
	printf("bad mask address: %s\n", errname(syscall(SYS_signalfd4, -1, (void *)8, 8, 0)));
	printf("bad fd: %s\n", errname(signalfd(1000, &mask, 0)));
	if (pipe(pipefd))
		return 1;
	printf("a pipe: %s\n", errname(signalfd(pipefd[0], &mask, 0)));
	fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return printf("signalfd: %s\n", strerror(errno)), 1;
	printf("cloexec %d nonblock %d\n", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC), !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	signalfd_fdinfo(fd);
	printf("read, none pending: %s\n", errname(read(fd, si, sizeof(si))));
	printf("read of 64 bytes: %s\n", errname(read(fd, si, 64)));

	raise(SIGUSR1);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	ret = poll(&pfd, 1, 0);
	printf("poll: %ld revents %#x\n", ret, pfd.revents);
	ret = read(fd, si, sizeof(si));
	printf("read: %ld bytes, signo %u code %d pid ours %d uid ours %d\n", ret, si[0].ssi_signo, si[0].ssi_code,
	       si[0].ssi_pid == (unsigned)getpid(), si[0].ssi_uid == getuid());
	ret = poll(&pfd, 1, 0);
	printf("poll again: %ld\n", ret);

	/* several at once: the lowest first, each queued real-time one as sent */
	sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = 42 });
	sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = 43 });
	kill(getpid(), SIGUSR2);
	ret = read(fd, si, sizeof(si));
	printf("read: %ld bytes\n", ret);
	for (i = 0; i < ret / (long)sizeof(si[0]); i++)
		printf("  signo %u code %d int %d\n", si[i].ssi_signo, si[i].ssi_code, si[i].ssi_int);

	/* a new set: SIGUSR1 stays pending, unread */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR2);
	printf("new set: same fd %d\n", signalfd(fd, &mask, 0) == fd);
	signalfd_fdinfo(fd);
	raise(SIGUSR1);
	printf("read, SIGUSR1 not in the set: %s\n", errname(read(fd, si, sizeof(si))));
	sigpending(&all);
	printf("SIGUSR1 pending: %d\n", sigismember(&all, SIGUSR1));
	sigfillset(&all);
	signalfd(fd, &all, 0);
	signalfd_fdinfo(fd);
	ret = read(fd, si, sizeof(si));
	printf("every signal: %ld bytes, signo %u\n", ret, si[0].ssi_signo);

	/* a blocking read, woken by a child's kill */
	fflush(stdout);
	fd2 = signalfd(-1, &all, 0);
	child = fork();
	if (child == 0) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	ret = read(fd2, si, sizeof(si));
	printf("blocking read: %ld bytes, signo %u from the child %d\n", ret, si[0].ssi_signo,
	       si[0].ssi_pid == (unsigned)child);
	waitpid(child, &status, 0);
	close(fd2);
	close(fd);
	return 0;
}

/* memfd_create (mm/memfd.c on tmpfs): an unlinked file named memfd:NAME, and its seals */
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x1
#define F_SEAL_SHRINK 0x2
#define F_SEAL_GROW 0x4
#define F_SEAL_WRITE 0x8
#define F_SEAL_FUTURE_WRITE 0x10
#endif

static int cmd_memfd(void)
{
	char name[260], link[300], path[64], buf[16] = { 0 };
	struct stat st;
	long ret;
	int fd, fd2, pipefd[2];
	char *p;

	printf("bad flags: %s\n", errname(syscall(SYS_memfd_create, "x", 0x100)));
	printf("bad name address: %s\n", errname(syscall(SYS_memfd_create, (void *)8, 0)));
	memset(name, 'n', 250);
	name[250] = 0;
	printf("a name of 250: %s\n", errname(syscall(SYS_memfd_create, name, 0)));
	name[249] = 0;
	fd = syscall(SYS_memfd_create, name, 0);
	printf("a name of 249: %s\n", errname(fd));
	close(fd);
	fd = syscall(SYS_memfd_create, "test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return printf("memfd_create: %s\n", strerror(errno)), 1;
	printf("cloexec %d flags %#o\n", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC), fcntl(fd, F_GETFL) & ~O_LARGEFILE);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ret = readlink(path, link, sizeof(link) - 1);
	link[ret > 0 ? ret : 0] = 0;
	printf("its link: %s\n", link);
	fstat(fd, &st);
	printf("mode %o nlink %ld size %ld\n", st.st_mode, (long)st.st_nlink, (long)st.st_size);
	printf("write: %ld\n", (long)write(fd, "hello", 5));
	ret = pread(fd, buf, sizeof(buf) - 1, 0);
	printf("pread: %ld %s\n", ret, buf);
	printf("ftruncate 8192: %s\n", errname(ftruncate(fd, 8192)));
	fstat(fd, &st);
	printf("size %ld blocks %ld\n", (long)st.st_size, (long)st.st_blocks);
	p = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
	printf("private mapping reads: %.5s\n", p == MAP_FAILED ? strerror(errno) : p);
	munmap(p, 8192);

	printf("seals: %d\n", fcntl(fd, F_GET_SEALS));
	printf("add GROW|SHRINK: %s\n", errname(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK)));
	printf("shrink: %s\n", errname(ftruncate(fd, 4096)));
	printf("grow: %s\n", errname(ftruncate(fd, 16384)));
	printf("write past the end: %s\n", errname(pwrite(fd, "x", 1, 8192)));
	printf("write within: %s\n", errname(pwrite(fd, "J", 1, 0)));
	printf("add WRITE: %s\n", errname(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE)));
	printf("write: %s\n", errname(pwrite(fd, "x", 1, 0)));
	printf("an unknown seal: %s\n", errname(fcntl(fd, F_ADD_SEALS, 0x100)));
	printf("add SEAL: %s\n", errname(fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL)));
	printf("add FUTURE_WRITE after SEAL: %s\n", fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) < 0 && errno == EPERM ? "EPERM" : "?");
	printf("seals: %#x\n", fcntl(fd, F_GET_SEALS));
	ret = pread(fd, buf, 5, 0);
	printf("pread: %ld %.5s\n", ret, buf);
	close(fd);

	fd2 = syscall(SYS_memfd_create, "plain", 0);
	printf("not sealable: seals %d, add: %s\n", fcntl(fd2, F_GET_SEALS),
	       fcntl(fd2, F_ADD_SEALS, F_SEAL_WRITE) < 0 && errno == EPERM ? "EPERM" : "?");
	close(fd2);
	if (pipe(pipefd))
		return 1;
	printf("a pipe's seals: %s\n", errname(fcntl(pipefd[0], F_GET_SEALS)));
	return 0;
}

/* chown and its family (fs/open.c chown_common, notify_change): owner and group changes,
 * the set-id bits a non-directory loses, 6.1's permission rules for an unprivileged caller */
static void show_owner(const char *what, const char *path, int follow)
{
	struct stat st;

	if ((follow ? stat : lstat)(path, &st))
		printf("%s: %s\n", what, strerror(errno));
	else
		printf("%s: %u:%u mode %o\n", what, st.st_uid, st.st_gid, st.st_mode & 07777);
}

static int cmd_chown(void)
{
	char dir[64], file[96], link[96], mine[96];
	int fd, status;
	pid_t child;

	snprintf(dir, sizeof(dir), "/tmp/progtest-chown.%d", getpid());
	snprintf(file, sizeof(file), "%s/f", dir);
	snprintf(link, sizeof(link), "%s/l", dir);
	snprintf(mine, sizeof(mine), "%s/mine", dir);
	if (mkdir(dir, 0777) || chmod(dir, 02777))
		return printf("mkdir: %s\n", strerror(errno)), 1;
	fd = open(file, O_CREAT | O_RDWR, 0);
	fchmod(fd, 06755);
	if (symlink("f", link))
		return printf("symlink: %s\n", strerror(errno)), 1;
	show_owner("new", file, 1);
	printf("chown: %s\n", errname(chown(file, 1000, 1000)));
	show_owner("set-id bits dropped", file, 1);
	fchmod(fd, 02710);
	printf("lchown: %s\n", errname(lchown(link, 2000, 2000)));
	show_owner("the link", link, 0);
	show_owner("its target", file, 1);
	printf("chown through the link: %s\n", errname(chown(link, 3000, -1)));
	show_owner("its target", file, 1);
	printf("fchown, the group only: %s\n", errname(fchown(fd, -1, 4000)));
	show_owner("the group changed", file, 1);
	printf("a directory: %s\n", errname(fchownat(AT_FDCWD, dir, 5, 5, 0)));
	show_owner("its set-gid kept", dir, 1);
	printf("AT_EMPTY_PATH: %s\n", errname(fchownat(fd, "", 6, -1, AT_EMPTY_PATH)));
	show_owner("by fd", file, 1);
	printf("bad flag: %s\n", errname(fchownat(AT_FDCWD, file, 0, 0, 1)));
	printf("empty path without AT_EMPTY_PATH: %s\n", errname(fchownat(fd, "", 0, 0, 0)) );
	printf("bad fd: %s\n", errname(fchown(1000, 0, 0)));
	printf("missing: %s\n", strerror(chown("/tmp/progtest-chown-missing/x", 0, 0) ? errno : 0));
	fflush(stdout);
	child = fork();
	if (child == 0) {
		int mfd;

		if (setresgid(100, 100, 100) || setresuid(1000, 1000, 1000))
			_exit(printf("setresuid: %s\n", strerror(errno)));
		printf("not the owner: %s\n", strerror(chown(file, 1000, -1) ? errno : 0));
		printf("not the owner, -1 -1: %s\n", strerror(chown(file, -1, -1) ? errno : 0));
		mfd = open(mine, O_CREAT | O_RDWR, 0644);
		show_owner("mine", mine, 1);
		printf("to myself: %s\n", errname(fchown(mfd, 1000, -1)));
		printf("to my group: %s\n", errname(fchown(mfd, -1, 100)));
		printf("to another group: %s\n", strerror(fchown(mfd, -1, 200) ? errno : 0));
		printf("to another user: %s\n", strerror(fchown(mfd, 1001, -1) ? errno : 0));
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	close(fd);
	unlink(mine);
	unlink(link);
	unlink(file);
	rmdir(dir);
	return 0;
}

/* msync (mm/msync.c): the flags and alignment it refuses, holes (ENOMEM), a shared file
 * mapping written back */
static int cmd_msync(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char path[64], *p, *f;
	int fd;

	p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	printf("MS_SYNC: %s\n", errname(msync(p, 3 * pg, MS_SYNC)));
	printf("MS_ASYNC: %s\n", errname(msync(p, 3 * pg, MS_ASYNC)));
	printf("MS_INVALIDATE: %s\n", errname(msync(p, 3 * pg, MS_INVALIDATE)));
	printf("a length not of pages: %s\n", errname(msync(p, 1, MS_SYNC)));
	printf("no length: %s\n", errname(msync(p, 0, MS_SYNC)));
	printf("bad flags: %s\n", errname(msync(p, pg, 8)));
	printf("unaligned: %s\n", errname(msync(p + 1, pg, MS_SYNC)));
	printf("MS_ASYNC|MS_SYNC: %s\n", errname(msync(p, pg, MS_ASYNC | MS_SYNC)));
	munmap(p + pg, pg);
	printf("a hole, MS_SYNC: %s\n", strerror(msync(p, 3 * pg, MS_SYNC) ? errno : 0));
	printf("a hole, MS_ASYNC: %s\n", strerror(msync(p, 3 * pg, MS_ASYNC) ? errno : 0));
	printf("a hole, MS_INVALIDATE: %s\n", strerror(msync(p, 3 * pg, MS_INVALIDATE) ? errno : 0));
	printf("the hole alone: %s\n", strerror(msync(p + pg, pg, MS_SYNC) ? errno : 0));
	munmap(p, 3 * pg);

	snprintf(path, sizeof(path), "/tmp/progtest-msync.%d", getpid());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "data", 4) != 4)
		return printf("file: %s\n", strerror(errno)), 1;
	f = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	if (f == MAP_FAILED)
		return printf("mmap: %s\n", strerror(errno)), 1;
	printf("a shared file mapping, MS_SYNC: %s, reads %.4s\n", errname(msync(f, pg, MS_SYNC)), f);
	munmap(f, pg);
	close(fd);
	unlink(path);
	return 0;
}

/* readahead (mm/readahead.c): WILLNEED advice on a regular file open for reading */
static int cmd_readahead(void)
{
	char path[64];
	int fd, wfd, pipefd[2], dfd;

	snprintf(path, sizeof(path), "/tmp/progtest-readahead.%d", getpid());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "data", 4) != 4)
		return printf("file: %s\n", strerror(errno)), 1;
	printf("a file: %s\n", errname(readahead(fd, 0, 4096)));
	printf("past its end: %s\n", errname(readahead(fd, 1 << 20, 4096)));
	wfd = open(path, O_WRONLY);
	printf("open for writing only: %s\n", errname(readahead(wfd, 0, 4096)));
	printf("a bad fd: %s\n", errname(readahead(1000, 0, 4096)));
	if (pipe(pipefd))
		return 1;
	printf("a pipe: %s\n", errname(readahead(pipefd[0], 0, 4096)));
	dfd = open("/tmp", O_RDONLY | O_DIRECTORY);
	printf("a directory: %s\n", errname(readahead(dfd, 0, 4096)));
	close(dfd);
	close(wfd);
	close(fd);
	unlink(path);
	return 0;
}

/* resource limits (kernel/sys.c do_prlimit): set, refused, inherited by fork and kept over exec,
 * and held where they bound something: fds (RLIMIT_NOFILE), file size (RLIMIT_FSIZE), mappings
 * (RLIMIT_AS, RLIMIT_DATA), processes of a user (RLIMIT_NPROC).  Only soft limits are printed
 * and hard ones only lowered: the host's hard limits are its own, and its root may lack
 * CAP_SYS_RESOURCE. */
static void show_limit(const char *what, int resource)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl))
		printf("%s: %s\n", what, strerror(errno));
	else if (rl.rlim_cur == RLIM_INFINITY)
		printf("%s: unlimited\n", what);
	else
		printf("%s: %lu\n", what, (unsigned long)rl.rlim_cur);
}

/* the soft limit set, the hard one kept */
static int set_soft(int resource, unsigned long cur)
{
	struct rlimit rl;

	getrlimit(resource, &rl);
	rl.rlim_cur = cur == RLIM_INFINITY ? rl.rlim_max : cur;
	return setrlimit(resource, &rl);
}

static int set_limit(int resource, unsigned long cur, unsigned long max)
{
	struct rlimit rl = { cur, max };

	return setrlimit(resource, &rl);
}

static volatile int xfsz_signals;

static void on_xfsz(int sig)
{
	(void)sig;
	xfsz_signals++;
}

static int cmd_rlimit_show(void)
{
	show_limit("after exec, RLIMIT_NOFILE", RLIMIT_NOFILE);
	show_limit("after exec, RLIMIT_CORE", RLIMIT_CORE);
	return 0;
}

static const char *errstr(int failed)
{
	return failed ? strerror(errno) : "ok";
}

static void rlimit_files(void)
{
	int fd, i, last;

	for (fd = 3; fd < 64; fd++)	/* 0-2 open, so 3 to 7 under a limit of 8 */
		close(fd);
	printf("NOFILE 8: %s\n", errname(set_soft(RLIMIT_NOFILE, 8)));
	for (last = -1, i = 0; i < 10; i++) {
		fd = open("/proc/self/stat", O_RDONLY);
		if (fd < 0)
			break;
		last = fd;
	}
	printf("opened up to fd %d, then %s\n", last, errstr(fd < 0));
	close(7);
	printf("dup2 to 7: %s, to 8: %s\n", errname(dup2(0, 7)), errname(dup2(0, 8)));
	printf("F_DUPFD from 8: %s\n", errname(fcntl(0, F_DUPFD, 8)));
	printf("poll of 9 fds: %s\n", errname(poll(NULL, 9, 0)));
	for (fd = 3; fd < 8; fd++)
		close(fd);
	printf("NOFILE 64: %s\n", errname(set_soft(RLIMIT_NOFILE, 64)));
}

static void rlimit_fsize(void)
{
	char path[64];
	int fd, failed;

	snprintf(path, sizeof(path), "/tmp/progtest-rlimit.%d", getpid());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	signal(SIGXFSZ, on_xfsz);
	printf("FSIZE 10: %s\n", errname(set_soft(RLIMIT_FSIZE, 10)));
	printf("write 16: %zd\n", write(fd, "0123456789abcdef", 16));
	failed = write(fd, "x", 1) < 0;
	printf("write at the limit: %s, SIGXFSZ %d\n", errstr(failed), xfsz_signals);
	failed = ftruncate(fd, 100);
	printf("ftruncate past it: %s, SIGXFSZ %d\n", errstr(failed), xfsz_signals);
	printf("ftruncate within: %s\n", errname(ftruncate(fd, 4)));
	printf("pwrite at 8: %zd\n", pwrite(fd, "ABCD", 4, 8));
	set_soft(RLIMIT_FSIZE, RLIM_INFINITY);
	printf("the soft limit at the hard one, write: %zd\n", pwrite(fd, "0123456789abcdef", 16, 10));
	close(fd);
	unlink(path);
}

static void rlimit_mappings(void)
{
	char *p;

	printf("DATA 16 MiB: %s\n", errname(set_soft(RLIMIT_DATA, 16 << 20)));
	p = mmap(NULL, 32 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("32 MiB private writable: %s\n", errstr(p == MAP_FAILED));
	p = mmap(NULL, 32 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("32 MiB read-only: %s\n", errstr(p == MAP_FAILED));
	if (p != MAP_FAILED)
		munmap(p, 32 << 20);
	printf("sbrk 32 MiB: %s\n", errstr(sbrk(32 << 20) == (void *)-1));
	set_soft(RLIMIT_DATA, RLIM_INFINITY);
	printf("AS 1 GiB: %s\n", errname(set_soft(RLIMIT_AS, 1UL << 30)));
	p = mmap(NULL, 2UL << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	printf("2 GiB: %s\n", errstr(p == MAP_FAILED));
	set_soft(RLIMIT_AS, RLIM_INFINITY);
}

static int cmd_rlimit(void)
{
	struct rlimit rl, old;
	int status;
	pid_t child;

	printf("soft above hard: %s\n", errname(set_limit(RLIMIT_CORE, 2, 1)));
	printf("an unknown resource: %s\n", errname(set_limit(RLIM_NLIMITS, 0, 0)));
	printf("NOFILE past nr_open: %s\n", errstr(set_limit(RLIMIT_NOFILE, 8, RLIM_INFINITY)));
	printf("CORE 4096: %s\n", errname(set_soft(RLIMIT_CORE, 4096)));
	show_limit("RLIMIT_CORE", RLIMIT_CORE);
	rl.rlim_cur = rl.rlim_max = 1 << 20;
	printf("prlimit, old and new: %s\n", errname(prlimit(0, RLIMIT_CORE, &rl, &old)));
	printf("old: %lu\n", (unsigned long)old.rlim_cur);
	show_limit("RLIMIT_CORE", RLIMIT_CORE);
	printf("prlimit of nobody: %s\n", errstr(prlimit(0x3fffffff, RLIMIT_CORE, NULL, &old)));
	rlimit_files();

	/* fork inherits, exec keeps */
	fflush(stdout);
	child = fork();
	if (child == 0) {
		show_limit("the child's RLIMIT_NOFILE", RLIMIT_NOFILE);
		fflush(stdout);
		execl("/proc/self/exe", "progtest", "rlimit-show", (char *)NULL);
		_exit(printf("exec: %s\n", strerror(errno)));
	}
	waitpid(child, &status, 0);
	rlimit_fsize();
	rlimit_mappings();

	/* a user's processes, and a hard limit it may lower but not raise */
	fflush(stdout);
	child = fork();
	if (child == 0) {
		pid_t grandchild;

		if (setresgid(100, 100, 100) || setresuid(1000, 1000, 1000))
			_exit(printf("setresuid: %s\n", strerror(errno)));
		printf("lower the hard NOFILE: %s\n", errname(set_limit(RLIMIT_NOFILE, 32, 32)));
		printf("raise it again: %s\n", errstr(set_limit(RLIMIT_NOFILE, 32, 64)));
		printf("NPROC 1: %s\n", errname(set_limit(RLIMIT_NPROC, 1, 1)));
		fflush(stdout);
		grandchild = fork();
		if (grandchild == 0)
			_exit(0);
		printf("fork past NPROC: %s\n", grandchild < 0 ? errname(-1) : "forked");
		if (grandchild > 0)
			waitpid(grandchild, NULL, 0);
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	return 0;
}

/* mlock (mm/mlock.c) and mincore (mm/mincore.c): VM_LOCKED ranges and their pages faulted in,
 * VmLck, MCL_FUTURE and MAP_LOCKED, RLIMIT_MEMLOCK for a user without CAP_IPC_LOCK; which pages
 * are resident, and the refusals */
static long vmlck(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmLck:", 6))
			kb = atol(line + 6);
	if (f)
		fclose(f);
	return kb;
}

static void show_resident(const char *what, void *p, size_t len)
{
	unsigned char vec[16];
	char out[17];
	size_t i, n = (len + 4095) / 4096;

	if (mincore(p, len, vec)) {
		printf("%s: %s\n", what, strerror(errno));
		return;
	}
	for (i = 0; i < n && i < 16; i++)
		out[i] = '0' + (vec[i] & 1);
	out[i] = 0;
	printf("%s: %s\n", what, out);
}

static int cmd_mlock(void)
{
	long pg = 4096;
	char *p, *q, path[64];
	unsigned char vec[4];
	int fd, status, r;
	pid_t child;

	p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	show_resident("untouched", p, 4 * pg);
	p[0] = p[2 * pg] = 1;
	show_resident("pages 0 and 2 written", p, 4 * pg);
	printf("mincore, unaligned: %s\n", errstr(mincore(p + 1, pg, vec)));
	printf("mincore, a bad vector: %s\n", errstr(mincore(p, pg, (void *)8)));
	printf("mincore, a length not of pages: %s\n", errstr(mincore(p, pg + 1, vec)));
	r = mlock(p, 4 * pg);
	printf("mlock: %s, VmLck %ld kB\n", errstr(r), vmlck());
	show_resident("locked", p, 4 * pg);
	r = mlock(p, 2 * pg);
	printf("mlock again: %s, VmLck %ld kB\n", errstr(r), vmlck());
	r = munlock(p + pg, pg);
	printf("munlock a page: %s, VmLck %ld kB\n", errstr(r), vmlck());
	r = munlock(p + 1, 1);
	printf("munlock unaligned: %s, VmLck %ld kB\n", errstr(r), vmlck());
	printf("mlock2 bad flags: %s\n", errname(mlock2(p, pg, 2)));
	q = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r = mlock2(q, 4 * pg, MLOCK_ONFAULT);
	printf("mlock2 MLOCK_ONFAULT: %s, VmLck %ld kB\n", errstr(r), vmlck());
	show_resident("locked on fault", q, 4 * pg);
	munmap(q, 4 * pg);
	printf("unmapped: VmLck %ld kB\n", vmlck());
	munmap(p + 3 * pg, pg);
	printf("mlock over a hole: %s\n", errstr(mlock(p, 4 * pg)));
	show_resident("mincore over a hole", p, 4 * pg);
	printf("mincore of nothing: %s\n", errstr(mincore(p + 3 * pg, pg, vec)));
	q = mmap(NULL, 2 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("mlock of PROT_NONE: %s\n", errstr(mlock(q, 2 * pg)));
	munmap(q, 2 * pg);
	r = munlockall();
	printf("munlockall: %s, VmLck %ld kB\n", errstr(r), vmlck());
	printf("mlockall(0): %s, MCL_ONFAULT alone: %s\n", errname(mlockall(0)), errname(mlockall(MCL_ONFAULT)));
	printf("mlockall(MCL_FUTURE): %s\n", errstr(mlockall(MCL_FUTURE)));
	q = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	show_resident("mapped after it", q, 2 * pg);
	printf("VmLck %ld kB\n", vmlck());
	munmap(q, 2 * pg);
	munlockall();
	r = mlockall(MCL_CURRENT);
	printf("mlockall(MCL_CURRENT): %s, something locked: %s\n", errstr(r), vmlck() > 0 ? "yes" : "no");
	show_resident("after it", p, 2 * pg);
	munlockall();
	q = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	show_resident("MAP_LOCKED", q, 2 * pg);
	printf("VmLck %ld kB\n", vmlck());
	munmap(q, 2 * pg);

	snprintf(path, sizeof(path), "/tmp/progtest-mincore.%d", getpid());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 3 * pg) || pwrite(fd, "x", 1, 0) != 1)
		return printf("file: %s\n", strerror(errno)), 1;
	q = mmap(NULL, 3 * pg, PROT_READ, MAP_SHARED, fd, 0);
	show_resident("a file, its first page written", q, pg);
	munmap(q, 3 * pg);
	close(fd);
	unlink(path);

	/* a user without CAP_IPC_LOCK, held to RLIMIT_MEMLOCK */
	fflush(stdout);
	child = fork();
	if (child == 0) {
		printf("the child's VmLck %ld kB\n", vmlck());
		if (setresgid(100, 100, 100) || setresuid(1000, 1000, 1000))
			_exit(printf("setresuid: %s\n", strerror(errno)));
		set_limit(RLIMIT_MEMLOCK, 2 * pg, 2 * pg);
		printf("MEMLOCK 2 pages, mlock 3: %s\n", errstr(mlock(p, 3 * pg)));
		printf("mlock 2: %s\n", errstr(mlock(p, 2 * pg)));
		printf("mlock 2 again: %s\n", errstr(mlock(p, 2 * pg)));
		printf("MAP_LOCKED past it: %s\n",
		       errstr(mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0) == MAP_FAILED));
		printf("mlockall(MCL_CURRENT): %s\n", errstr(mlockall(MCL_CURRENT)));
		set_limit(RLIMIT_MEMLOCK, 0, 0);
		printf("MEMLOCK 0, mlock: %s\n", errstr(mlock(p, pg)));
		printf("MEMLOCK 0, mlockall: %s\n", errstr(mlockall(MCL_FUTURE)));
		printf("MEMLOCK 0, MAP_LOCKED: %s\n",
		       errstr(mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0) == MAP_FAILED));
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	return 0;
}

/* the scheduler's setters (kernel/sched/core.c): policies and their checks, sched_attr, the
 * reset-on-fork flag, affinity and the migration it makes */
struct progtest_sched_attr {
	unsigned int size, sched_policy;
	unsigned long long sched_flags;
	int sched_nice;
	unsigned int sched_priority;
	unsigned long long sched_runtime, sched_deadline, sched_period;
	unsigned int sched_util_min, sched_util_max;
	unsigned char pad[8];
};

static long setattr(pid_t pid, struct progtest_sched_attr *a, unsigned int flags)
{
	return syscall(SYS_sched_setattr, pid, a, flags);
}

/* /proc/self/stat's rt_priority and policy (its 40th and 41st fields) */
static void stat_policy(unsigned int *rt_priority, unsigned int *policy)
{
	char buf[1024], *p;
	int field = 2;
	FILE *f = fopen("/proc/self/stat", "r");

	*rt_priority = *policy = ~0U;
	if (!f)
		return;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	for (; p && *p; p++)
		if (*p == ' ' && ++field == 40)
			sscanf(p + 1, "%u %u", rt_priority, policy);
}

static void show_policy(const char *what)
{
	struct sched_param sp = { 0 };
	unsigned int rt_priority, policy;

	sched_getparam(0, &sp);
	stat_policy(&rt_priority, &policy);
	printf("%s: policy %#x priority %d nice %d, stat's %u %u\n", what, sched_getscheduler(0),
	       sp.sched_priority, getpriority(PRIO_PROCESS, 0), rt_priority, policy);
}

/* SCHED_IDLE, then spinning N iterations (argument): a task the fair class counts as idle
 * (cfs_rq.idle_nr_running) while queued */
static int cmd_idlespin(const char *count)
{
	struct sched_param sp = { 0 };
	volatile unsigned long i, n = strtoul(count, NULL, 0);

	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		return perror("sched_setscheduler"), 1;
	for (i = 0; i < n; i++)
		;
	printf("idlespin: policy %#x, %lu iterations\n", sched_getscheduler(0), n);
	return 0;
}

static int cmd_sched(void)
{
	struct progtest_sched_attr a;
	struct sched_param sp;
	cpu_set_t set;
	int status, i;
	pid_t child;
	long r;

	show_policy("at the start");
	sp.sched_priority = 0;
	printf("SCHED_BATCH: %s\n", errname(sched_setscheduler(0, SCHED_BATCH, &sp)));
	show_policy("batch");
	printf("SCHED_FIFO at 0: %s\n", errname(sched_setscheduler(0, SCHED_FIFO, &sp)));
	sp.sched_priority = 100;
	printf("SCHED_FIFO at 100: %s\n", errname(sched_setscheduler(0, SCHED_FIFO, &sp)));
	sp.sched_priority = 10;
	printf("SCHED_BATCH at 10: %s\n", errname(sched_setscheduler(0, SCHED_BATCH, &sp)));
	printf("SCHED_FIFO at 10: %s\n", errname(sched_setscheduler(0, SCHED_FIFO, &sp)));
	show_policy("fifo");
	sp.sched_priority = 20;
	printf("sched_setparam 20: %s\n", errname(sched_setparam(0, &sp)));
	show_policy("fifo");
	sp.sched_priority = 0;
	printf("a policy of none: %s, a negative one: %s\n", errname(sched_setscheduler(0, 4, &sp)),
	       errname(sched_setscheduler(0, -1, &sp)));
	printf("no param: %s, nobody: %s\n", errname(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, NULL)),
	       errstr(sched_setscheduler(0x3fffffff, SCHED_OTHER, &sp)));
	sp.sched_priority = 5;
	printf("SCHED_FIFO|SCHED_RESET_ON_FORK: %s\n", errname(sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp)));
	show_policy("reset on fork");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		show_policy("its child");
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	sp.sched_priority = 0;

	memset(&a, 0, sizeof(a));
	a.size = 48;
	a.sched_policy = SCHED_OTHER;
	a.sched_nice = 5;
	printf("sched_setattr nice 5: %s\n", errname(setattr(0, &a, 0)));
	show_policy("nice 5");
	memset(&a, 0, sizeof(a));
	r = syscall(SYS_sched_getattr, 0, &a, 48, 0);
	printf("sched_getattr: %s size %u policy %u flags %#llx nice %d\n", errname(r), a.size, a.sched_policy,
	       a.sched_flags, a.sched_nice);
	memset(&a, 0, sizeof(a));
	r = syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0);
	printf("sched_getattr, %zu bytes: %s size %u\n", sizeof(a), errname(r), a.size);
	printf("sched_getattr, 47 bytes: %s; flags: %s\n", errname(syscall(SYS_sched_getattr, 0, &a, 47, 0)),
	       errname(syscall(SYS_sched_getattr, 0, &a, 48, 1)));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.pad[0] = 1;
	r = setattr(0, &a, 0);
	printf("sched_setattr, unknown bytes set: %s, size now %u\n", errstr(r), a.size);
	a.size = 40;
	printf("sched_setattr, 40 bytes: %s; flags: %s\n", errstr(setattr(0, &a, 0)), errname(setattr(0, &a, 1)));
	memset(&a, 0, sizeof(a));
	a.size = 48;
	a.sched_policy = SCHED_DEADLINE;
	a.sched_runtime = 20000000;
	a.sched_deadline = 10000000;
	a.sched_period = 30000000;
	printf("SCHED_DEADLINE, runtime past the deadline: %s\n", errname(setattr(0, &a, 0)));
	a.sched_flags = 0x80;
	a.sched_policy = SCHED_OTHER;
	printf("an unknown flag: %s\n", errname(setattr(0, &a, 0)));
	a.sched_flags = 0x08 | 0x10;	/* SCHED_FLAG_KEEP_POLICY | KEEP_PARAMS */
	printf("keep policy and params: %s\n", errname(setattr(0, &a, 0)));
	show_policy("kept");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		if (setresgid(100, 100, 100) || setresuid(1000, 1000, 1000))
			_exit(printf("setresuid: %s\n", strerror(errno)));
		sp.sched_priority = 1;
		printf("unprivileged SCHED_FIFO: %s\n", errstr(sched_setscheduler(0, SCHED_FIFO, &sp)));
		memset(&a, 0, sizeof(a));
		a.size = 48;
		a.sched_nice = -1;
		printf("unprivileged nice -1: %s\n", errstr(setattr(0, &a, 0)));
		a.sched_nice = 10;
		printf("unprivileged nice 10: %s\n", errname(setattr(0, &a, 0)));
		sp.sched_priority = 0;
		printf("another user's task: %s\n", errstr(sched_setscheduler(getppid(), SCHED_BATCH, &sp)));
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		printf("another user's affinity: %s\n", errstr(sched_setaffinity(getppid(), sizeof(set), &set)));
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);

	CPU_ZERO(&set);
	printf("an empty cpu mask: %s\n", errname(sched_setaffinity(0, sizeof(set), &set)));
	CPU_SET(60, &set);
	printf("only a cpu that is not there: %s\n", errname(sched_setaffinity(0, sizeof(set), &set)));
	printf("nobody's: %s\n", errstr(sched_setaffinity(0x3fffffff, sizeof(set), &set)));
	for (i = 0; i < 2; i++) {
		CPU_ZERO(&set);
		CPU_SET(i, &set);
		r = sched_setaffinity(0, sizeof(set), &set);
		printf("pinned to cpu %d: %s, runs on %d", i, errname(r), sched_getcpu());
		CPU_ZERO(&set);
		sched_getaffinity(0, sizeof(set), &set);
		printf(", mask has %d cpu(s), cpu %d: %d\n", CPU_COUNT(&set), i, CPU_ISSET(i, &set));
	}
	fflush(stdout);
	child = fork();
	if (child == 0) {
		printf("the child runs on %d\n", sched_getcpu());
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	return 0;
}

/* Extended attributes on tmpfs (a memfd: tmpfs on the host too): trusted.* and security.* kept,
 * set, replaced, listed and removed, and 6.1's refusals.  (user.* is 6.1's EOPNOTSUPP on tmpfs
 * and a later kernel's ok: tested by its return in the machine, not printed.) */
static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names sorted (6.1 lists the newest first, later kernels in their tree's order) */
static void show_list(const char *what, int fd)
{
	char list[256], *names[16];
	long n = flistxattr(fd, list, sizeof(list)), i, k = 0;

	printf("%s: %s", what, errname(n));
	for (i = 0; i < n && k < 16; i += strlen(list + i) + 1)
		names[k++] = list + i;
	qsort(names, k, sizeof(*names), cmp_names);
	for (i = 0; i < k; i++)
		printf(" [%s]", names[i]);
	printf("\n");
}

static int cmd_xattr(void)
{
	char name[300], value[16] = { 0 }, *big;
	int fd = syscall(SYS_memfd_create, "xattr", 0), pipefd[2];
	long n;

	if (fd < 0)
		return printf("memfd_create: %s\n", strerror(errno)), 1;
	show_list("none yet", fd);
	printf("get a missing one: %s\n", errname(fgetxattr(fd, "trusted.a", value, sizeof(value))));
	printf("set trusted.b: %s\n", errname(fsetxattr(fd, "trusted.b", "bee", 3, 0)));
	printf("set trusted.a: %s\n", errname(fsetxattr(fd, "trusted.a", "alpha", 5, XATTR_CREATE)));
	printf("create it again: %s\n", errname(fsetxattr(fd, "trusted.a", "x", 1, XATTR_CREATE)));
	printf("replace a missing one: %s\n", errname(fsetxattr(fd, "trusted.c", "x", 1, XATTR_REPLACE)));
	printf("replace trusted.a: %s\n", errname(fsetxattr(fd, "trusted.a", "ALPHA!", 6, XATTR_REPLACE)));
	n = fgetxattr(fd, "trusted.a", value, sizeof(value));
	printf("get: %s %ld %.*s\n", errname(n), n, n > 0 ? (int)n : 0, value);
	printf("its size: %ld\n", (long)fgetxattr(fd, "trusted.a", NULL, 0));
	printf("a small buffer: %s\n", errname(fgetxattr(fd, "trusted.a", value, 2)));
	show_list("listed", fd);
	printf("list size: %ld\n", (long)flistxattr(fd, NULL, 0));
	printf("a small list buffer: %s\n", errname(flistxattr(fd, name, 5)));
	printf("an empty value: %s\n", errname(fsetxattr(fd, "security.empty", "", 0, 0)));
	printf("its size: %ld\n", (long)fgetxattr(fd, "security.empty", value, sizeof(value)));
	printf("both flags: %s\n", errname(fsetxattr(fd, "trusted.a", "x", 1, XATTR_CREATE | XATTR_REPLACE)));
	printf("bad flags: %s\n", errname(fsetxattr(fd, "trusted.a", "x", 1, 4)));
	printf("an empty name: %s\n", errname(fsetxattr(fd, "", "x", 1, 0)));
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	memcpy(name, "trusted.", 8);
	printf("a long name: %s\n", errname(fsetxattr(fd, name, "x", 1, 0)));
	printf("no namespace: %s\n", errname(fsetxattr(fd, "nonamespace", "x", 1, 0)));
	printf("a namespace alone: %s\n", errname(fsetxattr(fd, "trusted.", "x", 1, 0)));
	big = calloc(1, 65537);
	printf("a value of 64k + 1: %s\n", errname(fsetxattr(fd, "trusted.big", big, 65537, 0)));
	free(big);
	printf("a bad value address: %s\n", errname(syscall(SYS_fsetxattr, fd, "trusted.f", 8L, 4L, 0L)));
	printf("remove trusted.b: %s\n", errname(fremovexattr(fd, "trusted.b")));
	printf("remove it again: %s\n", errname(fremovexattr(fd, "trusted.b")));
	show_list("after", fd);
	printf("a bad fd: %s\n", errname(fsetxattr(1000, "trusted.a", "x", 1, 0)));
	if (pipe(pipefd))
		return 1;
	printf("a pipe: %s\n", errname(fsetxattr(pipefd[0], "trusted.a", "x", 1, 0)));
	show_list("a pipe's", pipefd[0]);
	fsetxattr(fd, "user.u", "x", 1, 0);
	close(fd);
	return 0;
}

/* fallocate on tmpfs (a memfd): space made with and without FALLOC_FL_KEEP_SIZE, a hole punched,
 * the seals, and vfs_fallocate's refusals */
static void show_size(const char *what, int fd)
{
	struct stat st;

	fstat(fd, &st);
	printf("%s: size %ld blocks %ld\n", what, (long)st.st_size, (long)st.st_blocks);
}

static int cmd_fallocate(void)
{
	int fd = syscall(SYS_memfd_create, "falloc", MFD_ALLOW_SEALING), rfd, pipefd[2], dfd;
	char path[64], buf[8192];

	if (fd < 0)
		return printf("memfd_create: %s\n", strerror(errno)), 1;
	printf("allocate 2 pages: %s\n", errname(fallocate(fd, 0, 0, 8192)));
	show_size("then", fd);
	printf("keep the size: %s\n", errname(fallocate(fd, FALLOC_FL_KEEP_SIZE, 8192, 4096)));
	show_size("then", fd);
	printf("within, from the middle of a page: %s\n", errname(fallocate(fd, 0, 100, 5000)));
	show_size("then", fd);
	memset(buf, 'x', sizeof(buf));
	pwrite(fd, buf, sizeof(buf), 0);
	printf("a hole without KEEP_SIZE: %s\n", errname(fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 4096)));
	printf("a hole of the first page and 10 bytes: %s\n",
	       errname(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4106)));
	show_size("then", fd);
	pread(fd, buf, sizeof(buf), 0);
	printf("bytes 0, 4105, 4106: %d %d %c\n", buf[0], buf[4105], buf[4106]);
	printf("a hole within a page: %s\n", errname(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 5000, 10)));
	pread(fd, buf, sizeof(buf), 0);
	printf("bytes 4999, 5000, 5009, 5010: %c %d %d %c\n", buf[4999], buf[5000], buf[5009], buf[5010]);
	printf("zero range: %s\n", errname(fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, 4096)));
	printf("hole and zero: %s\n", errname(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0, 4096)));
	/* (6.1's EINVAL, a later kernel's EOPNOTSUPP: tested by their returns in the machine) */
	fallocate(fd, FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_KEEP_SIZE, 0, 4096);
	fallocate(fd, FALLOC_FL_INSERT_RANGE | FALLOC_FL_KEEP_SIZE, 0, 4096);
	printf("unshare with a hole: %s\n", errname(fallocate(fd, FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_PUNCH_HOLE, 0, 4096)));
	printf("collapse: %s\n", errname(fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, 4096)));
	printf("an unknown mode: %s\n", errname(fallocate(fd, 0x100, 0, 4096)));
	printf("length 0: %s\n", errname(fallocate(fd, 0, 0, 0)));
	printf("a negative offset: %s\n", errname(fallocate(fd, 0, -1, 4096)));
	printf("past the largest size: %s\n", errname(fallocate(fd, 0, 0x7fffffffffffff00LL, 4096)));
	printf("seal GROW: %s\n", errname(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW)));
	printf("grow: %s\n", errname(fallocate(fd, 0, 0, 1 << 20)));
	printf("within: %s\n", errname(fallocate(fd, 0, 0, 4096)));
	printf("seal WRITE: %s\n", errname(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE)));
	printf("a hole: %s\n", errname(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096)));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rfd = open(path, O_RDONLY);
	printf("read only: %s\n", errname(fallocate(rfd, 0, 0, 4096)));
	printf("a bad fd: %s\n", errname(fallocate(1000, 0, 0, 4096)));
	if (pipe(pipefd))
		return 1;
	printf("a pipe: %s\n", errname(fallocate(pipefd[1], 0, 0, 4096)));
	dfd = open("/dev/null", O_WRONLY);
	printf("/dev/null: %s\n", errname(fallocate(dfd, 0, 0, 4096)));
	close(dfd);
	close(rfd);
	close(fd);
	return 0;
}

/* inotify (fs/notify/inotify): a directory's and a file's watches, the events of creating,
 * writing, reading, changing, renaming and removing, their records as read() gives them, the
 * watch flags, a blocking read woken by a child's create, poll, FIONREAD and 6.1's refusals */
static int show_events(const char *what, int fd)
{
	char buf[4096] __attribute__((aligned(8)));
	long n = read(fd, buf, sizeof(buf)), i;
	unsigned int cookie = 0;
	int count = 0;

	printf("%s: %s\n", what, errname(n));
	for (i = 0; i < n; count++) {
		struct inotify_event *ev = (struct inotify_event *)(buf + i);

		/* a rename's cookie: the same for its two events, not printed (any number) */
		printf("  wd %d mask %#x len %u %s%s\n", ev->wd, ev->mask, ev->len, ev->len ? ev->name : "",
		       ev->mask & IN_MOVED_TO ? (ev->cookie == cookie && cookie ? " (its cookie)" : " (another cookie)") : "");
		if (ev->mask & IN_MOVED_FROM)
			cookie = ev->cookie;
		i += sizeof(*ev) + ev->len;
	}
	return count;
}

/* fdinfo's line of a watch of a memfd (tmpfs on the host too): its fields, the file handle's
 * inode number against the file's (the numbers themselves differ) */
static void inotify_fdinfo(int fd)
{
	int mfd = syscall(SYS_memfd_create, "watched", 0);
	unsigned int wd, sdev, mask, ignored, bytes, type, fh[3];
	char path[64], line[256], handle[64];
	unsigned long ino;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	inotify_add_watch(fd, path, IN_MODIFY | IN_EXCL_UNLINK);
	fstat(mfd, &st);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "inotify wd:%x ino:%lx sdev:%x mask:%x ignored_mask:%x fhandle-bytes:%x fhandle-type:%x f_handle:%63s",
			   &wd, &ino, &sdev, &mask, &ignored, &bytes, &type, handle) != 8 || ino != st.st_ino)
			continue;
		sscanf(handle, "%8x%8x%8x", &fh[0], &fh[1], &fh[2]);
		/* (the handle's words as bytes: the second, little-endian, is the inode number) */
		printf("fdinfo: wd %x mask %#x ignored_mask %x fhandle-bytes %x type %x, its inode's: %d\n", wd, mask,
		       ignored, bytes, type, __builtin_bswap32(fh[1]) == (unsigned int)st.st_ino);
	}
	if (f)
		fclose(f);
	close(mfd);
}

static int cmd_inotify(void)
{
	char dir[64], file[96], moved[96], sub[96], buf[64];
	int fd, bfd, wd, fwd, pipefd[2], fdf, avail, i, status;
	struct pollfd pfd;
	pid_t child;

	snprintf(dir, sizeof(dir), "/tmp/progtest-inotify.%d", getpid());
	snprintf(file, sizeof(file), "%s/file", dir);
	snprintf(moved, sizeof(moved), "%s/moved-file", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	if (mkdir(dir, 0755))
		return printf("mkdir: %s\n", strerror(errno)), 1;
	printf("bad flags: %s\n", errname(inotify_init1(1)));
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	printf("init1: cloexec %d nonblock %d\n", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC), !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	printf("read with none: %s\n", errname(read(fd, buf, sizeof(buf))));
	printf("no events asked: %s\n", errname(inotify_add_watch(fd, dir, 0)));
	printf("an unknown bit: %s\n", errname(inotify_add_watch(fd, dir, IN_CREATE | 0x08000000)));
	printf("MASK_ADD and MASK_CREATE: %s\n", errname(inotify_add_watch(fd, dir, IN_CREATE | IN_MASK_ADD | IN_MASK_CREATE)));
	printf("a bad fd: %s\n", errname(inotify_add_watch(1000, dir, IN_CREATE)));
	if (pipe(pipefd))
		return 1;
	printf("not an inotify fd: %s\n", errname(inotify_add_watch(pipefd[0], dir, IN_CREATE)));
	printf("a missing path: %s\n", errname(inotify_add_watch(fd, "/tmp/no/such/path", IN_CREATE)));
	wd = inotify_add_watch(fd, dir, IN_ALL_EVENTS);
	printf("watch the directory: %d\n", wd);
	printf("again with MASK_CREATE: %s\n", errname(inotify_add_watch(fd, dir, IN_CREATE | IN_MASK_CREATE)));
	printf("again: %d\n", inotify_add_watch(fd, dir, IN_ALL_EVENTS));

	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	printf("poll with none: %d\n", poll(&pfd, 1, 0));
	fdf = open(file, O_CREAT | O_WRONLY, 0644);
	i = poll(&pfd, 1, 0);
	printf("poll: %d revents %#x\n", i, pfd.revents);
	ioctl(fd, FIONREAD, &avail);
	printf("FIONREAD: %d\n", avail);
	printf("a buffer too small: %s\n", errname(read(fd, buf, sizeof(struct inotify_event) + 4)));
	write(fdf, "hello", 5);
	write(fdf, "hello", 5);	/* (merged with the one before) */
	close(fdf);
	show_events("create, write twice, close", fd);

	fwd = inotify_add_watch(fd, file, IN_ALL_EVENTS);
	printf("watch the file: %d\n", fwd);
	printf("ONLYDIR on it: %s\n", errname(inotify_add_watch(fd, file, IN_ATTRIB | IN_ONLYDIR)));
	fdf = open(file, O_RDONLY);
	read(fdf, buf, sizeof(buf));
	close(fdf);
	chmod(file, 0600);
	show_events("open, read, close, chmod (both watches)", fd);
	printf("the file's, MASK_ADD: %d\n", inotify_add_watch(fd, file, IN_MODIFY | IN_MASK_ADD));
	printf("the file's, only ATTRIB: %d\n", inotify_add_watch(fd, file, IN_ATTRIB));
	fdf = open(file, O_RDONLY);
	close(fdf);
	truncate(file, 0);
	show_events("open, close, truncate", fd);

	fdf = open(file, O_RDWR);
	{
		struct iovec v = { buf, 3 };

		writev(fdf, &v, 1);
		readv(fdf, &v, 0);	/* (nothing read: an event all the same) */
	}
	close(fdf);
	show_events("open, writev, an empty readv, close", fd);

	mkdir(sub, 0755);
	rename(file, moved);
	show_events("mkdir, rename", fd);
	unlink(moved);
	rmdir(sub);
	show_events("unlink (the watched file), rmdir", fd);

	printf("rm_watch of a bad wd: %s\n", errname(inotify_rm_watch(fd, 99)));
	printf("rm_watch of a gone one: %s\n", errname(inotify_rm_watch(fd, fwd)));
	printf("rm_watch not inotify: %s\n", errname(inotify_rm_watch(pipefd[0], wd)));
	printf("rm_watch: %s\n", errname(inotify_rm_watch(fd, wd)));
	show_events("then", fd);

	wd = inotify_add_watch(fd, dir, IN_CREATE | IN_ONESHOT);
	printf("a one-shot watch: %d\n", wd);
	close(open(file, O_CREAT | O_WRONLY, 0644));
	unlink(file);
	show_events("create, unlink", fd);

	/* a blocking read, woken by a child's create */
	bfd = inotify_init();
	printf("init: cloexec %d nonblock %d\n", !!(fcntl(bfd, F_GETFD) & FD_CLOEXEC), !!(fcntl(bfd, F_GETFL) & O_NONBLOCK));
	wd = inotify_add_watch(bfd, dir, IN_CREATE | IN_DELETE | IN_DONT_FOLLOW);
	printf("its watch: %d\n", wd);
	child = fork();
	if (child == 0) {
		struct timespec t = { 0, 100000000 };

		nanosleep(&t, NULL);
		close(open(file, O_CREAT | O_WRONLY, 0644));
		_exit(0);
	}
	show_events("a blocking read", bfd);
	waitpid(child, &status, 0);
	unlink(file);
	show_events("unlink", bfd);

	/* IN_EXCL_UNLINK: a write to an open file once unlinked is not the directory's event */
	fdf = open(file, O_CREAT | O_WRONLY, 0644);
	wd = inotify_add_watch(bfd, dir, IN_MODIFY | IN_EXCL_UNLINK);
	unlink(file);
	write(fdf, "x", 1);
	fwd = inotify_add_watch(bfd, dir, IN_MODIFY);
	write(fdf, "x", 1);
	close(fdf);
	show_events("EXCL_UNLINK, a write after the unlink; without, another", bfd);

	inotify_fdinfo(bfd);
	close(bfd);
	close(fd);
	rmdir(dir);
	return 0;
}

/* a user's instances: 128 (max_user_instances), then EMFILE (the machine's alone: the host's
 * root has instances of its own) */
static int cmd_inotify_instances(void)
{
	int n = 0, fd;

	while ((fd = inotify_init1(IN_CLOEXEC)) >= 0)
		n++;
	printf("%d instances, then %s\n", n, errname(fd));
	return 0;
}

/* the queue's overflow: 16384 events, then one IN_Q_OVERFLOW, the rest lost */
static int cmd_inotify_overflow(void)
{
	char file[64], buf[8];
	int fd = inotify_init1(IN_NONBLOCK), fdf, avail, i;
	long total;

	snprintf(file, sizeof(file), "/tmp/progtest-inotify.%d", getpid());
	fdf = open(file, O_CREAT | O_RDWR, 0644);
	printf("watch: %d\n", inotify_add_watch(fd, file, IN_MODIFY | IN_ACCESS));
	for (i = 0; i < 8200; i++) {
		pwrite(fdf, "x", 1, 0);	/* a write and a read: two events, not merged */
		pread(fdf, buf, 1, 0);
	}
	ioctl(fd, FIONREAD, &avail);
	printf("queued: %d bytes\n", avail);
	for (total = 0;;) {
		char big[4096] __attribute__((aligned(8)));
		long n = read(fd, big, sizeof(big)), j;

		if (n <= 0)
			break;
		for (j = 0; j < n; j += sizeof(struct inotify_event) + ((struct inotify_event *)(big + j))->len) {
			struct inotify_event *ev = (struct inotify_event *)(big + j);

			if (ev->mask & IN_Q_OVERFLOW)
				printf("after %ld events: wd %d mask %#x\n", total, ev->wd, ev->mask);
			total++;
		}
	}
	printf("events read: %ld\n", total);
	close(fdf);
	unlink(file);
	close(fd);
	return 0;
}

/* membarrier (kernel/sched/membarrier.c): the commands x86-64 has (the host's newer
 * MEMBARRIER_CMD_GET_REGISTRATIONS, 1 << 9, masked off), a private expedited barrier refused
 * until the process registers for it, each flavour apart, and 6.1's refusals */
static int cmd_membarrier(void)
{
	static const struct { const char *what; int cmd; unsigned int flags; int cpu; } calls[] = {
		{ "private expedited, unregistered", 1 << 3, 0, 0 },
		{ "register private expedited", 1 << 4, 0, 0 },
		{ "private expedited", 1 << 3, 0, 0 },
		{ "sync core, unregistered", 1 << 5, 0, 0 },
		{ "register sync core", 1 << 6, 0, 0 },
		{ "sync core", 1 << 5, 0, 0 },
		{ "rseq, unregistered", 1 << 7, 0, 0 },
		{ "register rseq", 1 << 8, 0, 0 },
		{ "rseq", 1 << 7, 0, 0 },
		{ "rseq on cpu 0", 1 << 7, 1, 0 },
		{ "rseq, a bad flag", 1 << 7, 2, 0 },
		{ "global", 1 << 0, 0, 0 },
		{ "register global expedited", 1 << 2, 0, 0 },
		{ "global expedited", 1 << 1, 0, 0 },
		{ "a flag on another command", 1 << 3, 1, 0 },
		{ "no such command", 1 << 12, 0, 0 },
		{ "a negative command", -1, 0, 0 },
	};
	long mask = syscall(SYS_membarrier, 0, 0, 0);

	printf("query: %#lx\n", mask < 0 ? mask : mask & ~(1L << 9));
	for (unsigned int i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		printf("%s: %s\n", calls[i].what,
		       errname(syscall(SYS_membarrier, calls[i].cmd, calls[i].flags, calls[i].cpu)));
	return 0;
}

/* execveat (fs/exec.c do_execveat_common with a directory fd): a name relative to it, the fd's
 * own file (AT_EMPTY_PATH, fexecve), AT_SYMLINK_NOFOLLOW, and 6.1's refusals */
static int run_execveat(int dfd, const char *name, const char *how, int flags)
{
	char *const args[] = { "progtest", "execd", (char *)how, NULL };
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		syscall(SYS_execveat, dfd, name, args, environ, flags);
		printf("%s: %s\n", how, strerror(errno));
		fflush(stdout);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	printf("%s: exit status %d\n", how, WEXITSTATUS(status));
	fflush(stdout);
	return 0;
}

static int cmd_execveat(void)
{
	char *const args[] = { "progtest", "execd", NULL };
	char path[64];
	int exe, self, dir, file;

	fflush(stdout);
	exe = open("/proc/self/exe", O_RDONLY);
	self = open("/proc/self", O_RDONLY | O_DIRECTORY);
	dir = open("/tmp", O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "/tmp/progtest-execveat.%d", getpid());
	file = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (exe < 0 || self < 0 || dir < 0 || file < 0)
		return printf("open: %s\n", strerror(errno)), 1;
	printf("an unknown flag: %s\n", errname(syscall(SYS_execveat, exe, "", args, environ, AT_EMPTY_PATH | 0x4)));
	printf("no name without AT_EMPTY_PATH: %s\n", errname(syscall(SYS_execveat, exe, "", args, environ, 0)));
	printf("a bad fd: %s\n", errname(syscall(SYS_execveat, 1000, "exe", args, environ, 0)));
	printf("relative to a file: %s\n", errname(syscall(SYS_execveat, exe, "exe", args, environ, 0)));
	printf("a symlink, AT_SYMLINK_NOFOLLOW: %s\n",
	       errname(syscall(SYS_execveat, self, "exe", args, environ, AT_SYMLINK_NOFOLLOW)));
	printf("a directory's own file: %s\n", errname(syscall(SYS_execveat, dir, "", args, environ, AT_EMPTY_PATH)));
	printf("a file without x: %s\n", errname(syscall(SYS_execveat, file, "", args, environ, AT_EMPTY_PATH)));
	printf("no such name: %s\n", errname(syscall(SYS_execveat, dir, "progtest-none", args, environ, 0)));
	close(file);
	unlink(path);
	fflush(stdout);
	return run_execveat(self, "exe", "relative to /proc/self", 0) ||
	       run_execveat(exe, "", "the fd's own file", AT_EMPTY_PATH) ||
	       run_execveat(1000, "/proc/self/exe", "an absolute name, a bad fd", 0);
}

/* pidfds (kernel/pid.c, kernel/fork.c): pidfd_open, its poll on the process's exit,
 * pidfd_send_signal, pidfd_getfd, waitid(P_PIDFD) and clone's CLONE_PIDFD, with 6.1's refusals */
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x1000
#endif

static int pidfd_thread_up[2], pidfd_thread_go[2];

static void *pidfd_thread(void *arg)
{
	char c;

	*(pid_t *)arg = syscall(SYS_gettid);
	write(pidfd_thread_up[1], "", 1);
	read(pidfd_thread_go[0], &c, 1);	/* until the main thread has tried its tid */
	return NULL;
}

static int pidfd_ready(int pidfd, int timeout)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, timeout) == 1 && (p.revents & POLLIN);
}

static int cmd_pidfd(void)
{
	int go[2], pidfd, got, flags;
	pthread_t thread;
	pid_t child, tid;
	siginfo_t info;
	struct stat a, b;

	pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	printf("its own: %s, close-on-exec %d, flags %#x\n", errname(pidfd), fcntl(pidfd, F_GETFD),
	       fcntl(pidfd, F_GETFL) & (O_ACCMODE | O_NONBLOCK));
	close(pidfd);
	printf("an unknown flag: %s\n", errname(syscall(SYS_pidfd_open, getpid(), 1)));
	printf("pid 0: %s\n", errname(syscall(SYS_pidfd_open, 0, 0)));
	printf("pid -1: %s\n", errname(syscall(SYS_pidfd_open, -1, 0)));
	printf("no such pid: %s\n", errname(syscall(SYS_pidfd_open, 0x3ffffff0, 0)));
	if (pipe(pidfd_thread_up) || pipe(pidfd_thread_go) || pthread_create(&thread, NULL, pidfd_thread, &tid) ||
	    read(pidfd_thread_up[0], &got, 1) != 1)
		return 1;
	/* (6.1 says EINVAL, as the trace shows; later kernels ENOENT) */
	printf("a thread's tid: %s\n", syscall(SYS_pidfd_open, tid, 0) < 0 ? "refused" : "ok");
	write(pidfd_thread_go[1], "", 1);
	if (pthread_join(thread, NULL))
		return 1;
	close(pidfd_thread_up[0]);
	close(pidfd_thread_up[1]);
	close(pidfd_thread_go[0]);
	close(pidfd_thread_go[1]);

	/* a child that waits: not ready, signalled, ready, waited for through the pidfd */
	if (pipe(go))
		return 1;
	fflush(stdout);
	child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		read(go[0], &c, 1);
		_exit(0);
	}
	pidfd = syscall(SYS_pidfd_open, child, O_NONBLOCK);
	printf("a child: %s, flags %#x\n", errname(pidfd), fcntl(pidfd, F_GETFL) & (O_ACCMODE | O_NONBLOCK));
	printf("ready while it runs: %d\n", pidfd_ready(pidfd, 0));
	memset(&info, 0, sizeof(info));
	printf("waitid, nonblocking pidfd: %s\n", errname(waitid(P_PIDFD, pidfd, &info, WEXITED)));
	got = syscall(SYS_pidfd_getfd, pidfd, go[0], 0);
	printf("its fd: %s, close-on-exec %d, the same pipe %d\n", errname(got), fcntl(got, F_GETFD),
	       !fstat(got, &a) && !fstat(go[0], &b) && a.st_ino == b.st_ino);
	close(got);
	printf("getfd, a flag: %s\n", errname(syscall(SYS_pidfd_getfd, pidfd, go[0], 1)));
	printf("getfd, no such fd: %s\n", errname(syscall(SYS_pidfd_getfd, pidfd, 999, 0)));
	printf("getfd, not a pidfd: %s\n", errname(syscall(SYS_pidfd_getfd, go[0], 0, 0)));
	printf("signal 0: %s\n", errname(syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0)));
	printf("signal, an unknown flag: %s\n", errname(syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0x100)));
	printf("signal, a bad signal: %s\n", errname(syscall(SYS_pidfd_send_signal, pidfd, 1000, NULL, 0)));
	printf("signal, not a pidfd: %s\n", errname(syscall(SYS_pidfd_send_signal, go[0], SIGTERM, NULL, 0)));
	printf("signal, no fd: %s\n", errname(syscall(SYS_pidfd_send_signal, 999, SIGTERM, NULL, 0)));
	memset(&info, 0, sizeof(info));
	info.si_signo = SIGUSR1;
	info.si_code = SI_QUEUE;
	printf("siginfo of another signal: %s\n", errname(syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, &info, 0)));
	info.si_signo = SIGTERM;
	info.si_code = SI_USER;
	printf("siginfo as kill's, to another: %s\n", errname(syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, &info, 0)));
	printf("SIGTERM: %s\n", errname(syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0)));
	printf("ready once it died: %d\n", pidfd_ready(pidfd, -1));
	got = syscall(SYS_pidfd_open, child, 0);	/* (a blocking one: the exit may not be waitable yet) */
	memset(&info, 0, sizeof(info));
	flags = waitid(P_PIDFD, got, &info, WEXITED);
	printf("waitid: %s, the child %d, code %d, status %d\n", errname(flags), info.si_pid == child, info.si_code,
	       info.si_status);
	close(got);
	printf("signal once reaped: %s\n", errname(syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0)));
	printf("getfd once reaped: %s\n", errname(syscall(SYS_pidfd_getfd, pidfd, 0, 0)));
	printf("ready once reaped: %d\n", pidfd_ready(pidfd, 0));
	printf("pidfd_open once reaped: %s\n", errname(syscall(SYS_pidfd_open, child, 0)));
	close(pidfd);
	printf("waitid, a negative fd: %s\n", errname(waitid(P_PIDFD, -1, &info, WEXITED)));
	printf("waitid, not a pidfd: %s\n", errname(waitid(P_PIDFD, go[0], &info, WEXITED)));
	close(go[0]);
	close(go[1]);

	/* clone(CLONE_PIDFD): the pidfd where the parent tid would go */
	fflush(stdout);
	child = syscall(SYS_clone, CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, 0, &pidfd, NULL, 0);
	if (child == 0)
		_exit(99);
	printf("CLONE_PIDFD with the parent tid in the same place: %s\n", errname(child));
	fflush(stdout);
	child = syscall(SYS_clone, CLONE_PIDFD | CLONE_DETACHED | SIGCHLD, 0, &pidfd, NULL, 0);
	if (child == 0)
		_exit(99);
	printf("CLONE_PIDFD with CLONE_DETACHED: %s\n", errname(child));
	fflush(stdout);
	pidfd = -1;
	child = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pidfd, NULL, 0);
	if (child == 0)
		_exit(7);
	flags = fcntl(pidfd, F_GETFD);
	printf("CLONE_PIDFD: %s, a pidfd %d, close-on-exec %d, ready %d\n", errname(child), pidfd >= 0, flags,
	       pidfd_ready(pidfd, -1));
	memset(&info, 0, sizeof(info));
	flags = waitid(P_PIDFD, pidfd, &info, WEXITED);
	printf("its waitid: %s, the child %d, code %d, status %d\n", errname(flags), info.si_pid == child,
	       info.si_code, info.si_status);
	close(pidfd);
	return 0;
}

/* sendmmsg, recvmmsg (net/socket.c over sendmsg and recvmsg): each message's length in its
 * msg_len, MSG_WAITFORONE, the time left in recvmmsg's timeout, an error only when no message
 * went, and 6.1's refusals; on a pair of AF_UNIX datagram sockets */
static int mmsg_send(int fd, const char *const *texts, unsigned int n)
{
	struct mmsghdr msgs[8];
	struct iovec iovs[8];

	memset(msgs, 0, sizeof(msgs));
	for (unsigned int i = 0; i < n; i++) {
		iovs[i].iov_base = (void *)texts[i];
		iovs[i].iov_len = strlen(texts[i]);
		msgs[i].msg_hdr.msg_iov = &iovs[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	return sendmmsg(fd, msgs, n, 0);
}

static void mmsg_show(const char *what, int fd, unsigned int vlen, int flags, struct timespec *timeout)
{
	char bufs[8][16];
	struct mmsghdr msgs[8];
	struct iovec iovs[8];
	int got;

	memset(msgs, 0, sizeof(msgs));
	for (unsigned int i = 0; i < 8; i++) {
		memset(bufs[i], 0, sizeof(bufs[i]));
		iovs[i].iov_base = bufs[i];
		iovs[i].iov_len = sizeof(bufs[i]) - 1;
		msgs[i].msg_hdr.msg_iov = &iovs[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	got = recvmmsg(fd, msgs, vlen, flags, timeout);
	printf("%s: %s", what, got < 0 ? errname(got) : "");
	for (int i = 0; i < got; i++)
		printf("%s%u '%s'", i ? ", " : "", msgs[i].msg_len, bufs[i]);
	printf("\n");
}

static int cmd_mmsg(void)
{
	static const char *const three[] = { "one", "two!", "three" }, *const two[] = { "four", "five" };
	struct timespec timeout = { 5, 0 };
	struct mmsghdr msgs[2];
	struct iovec iov = { (void *)"six", 3 };
	int sv[2], pipefd[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) || pipe(pipefd))
		return printf("socketpair: %s\n", strerror(errno)), 1;
	printf("sendmmsg of three: %d\n", mmsg_send(sv[0], three, 3));
	mmsg_show("recvmmsg, MSG_DONTWAIT", sv[1], 8, MSG_DONTWAIT, NULL);
	mmsg_show("recvmmsg of none, MSG_DONTWAIT", sv[1], 8, MSG_DONTWAIT, NULL);
	printf("sendmmsg of two: %d\n", mmsg_send(sv[0], two, 2));
	mmsg_show("recvmmsg, MSG_WAITFORONE", sv[1], 8, MSG_WAITFORONE, NULL);
	printf("sendmmsg of three: %d\n", mmsg_send(sv[0], three, 3));
	mmsg_show("recvmmsg of two, a timeout", sv[1], 2, 0, &timeout);
	printf("time left: %d\n", timeout.tv_sec <= 5 && (timeout.tv_sec > 0 || timeout.tv_nsec > 0));
	mmsg_show("recvmmsg of the last, MSG_DONTWAIT", sv[1], 8, MSG_DONTWAIT, NULL);
	/* the second message's iovec is bad: the first went, and that is all that is said */
	memset(msgs, 0, sizeof(msgs));
	msgs[0].msg_hdr.msg_iov = &iov;
	msgs[0].msg_hdr.msg_iovlen = 1;
	msgs[1].msg_hdr.msg_iov = (void *)8;
	msgs[1].msg_hdr.msg_iovlen = 1;
	printf("sendmmsg, a bad second: %d", sendmmsg(sv[0], msgs, 2, 0));
	printf(", the first's length %u\n", msgs[0].msg_len);
	printf("sendmmsg, a bad first: %s\n", errname(sendmmsg(sv[0], msgs + 1, 1, 0)));
	mmsg_show("recvmmsg, MSG_DONTWAIT", sv[1], 8, MSG_DONTWAIT, NULL);
	printf("sendmmsg of none: %d\n", sendmmsg(sv[0], msgs, 0, 0));
	printf("recvmmsg of none: %d\n", recvmmsg(sv[1], msgs, 0, MSG_DONTWAIT, NULL));
	printf("sendmmsg, MSG_CMSG_COMPAT: %s\n", errname(sendmmsg(sv[0], msgs, 1, 0x80000000)));
	printf("recvmmsg, MSG_CMSG_COMPAT: %s\n", errname(recvmmsg(sv[1], msgs, 1, 0x80000000, NULL)));
	printf("sendmmsg, a bad fd: %s\n", errname(sendmmsg(999, msgs, 1, 0)));
	printf("recvmmsg, a pipe: %s\n", errname(recvmmsg(pipefd[0], msgs, 1, MSG_DONTWAIT, NULL)));
	timeout.tv_nsec = 1000000000;
	printf("recvmmsg, a bad timeout: %s\n", errname(recvmmsg(sv[1], msgs, 1, MSG_DONTWAIT, &timeout)));
	printf("recvmmsg, a bad vector: %s\n", errname(recvmmsg(sv[1], (void *)8, 1, MSG_DONTWAIT, NULL)));
	close(sv[0]);
	close(sv[1]);
	close(pipefd[0]);
	close(pipefd[1]);
	return 0;
}

/* splice, tee, vmsplice (fs/splice.c): a file into a pipe (at an offset of the caller's or the
 * file's own), a pipe into a file, pipe to pipe (a part of a buffer), tee's copy that leaves
 * the input as it was, vmsplice both ways, SPLICE_F_NONBLOCK, and 6.1's refusals */
static void splice_drain(const char *what, int fd)
{
	char buf[64];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = 0;
	printf("%s: %s '%s'\n", what, n < 0 ? errname(n) : "read", buf);
}

static int cmd_splice(void)
{
	char path[64], buf[16] = "";
	int fd, wfd, afd, p[2], q[2];
	loff_t off;
	struct iovec iov[2] = { { (void *)"vm", 2 }, { (void *)"splice", 6 } }, out = { buf, sizeof(buf) - 1 };

	signal(SIGPIPE, SIG_IGN);	/* (EPIPE instead) */
	snprintf(path, sizeof(path), "/tmp/progtest-splice.%d", getpid());
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "hello splice world", 18) != 18 || lseek(fd, 0, SEEK_SET) || pipe(p) || pipe(q))
		return printf("setup: %s\n", strerror(errno)), 1;
	off = 6;
	printf("file at an offset into a pipe: %zd", splice(fd, &off, p[1], NULL, 6, 0));
	printf(", offset %lld, the file's %lld\n", (long long)off, (long long)lseek(fd, 0, SEEK_CUR));
	printf("file at its position into a pipe: %zd", splice(fd, NULL, p[1], NULL, 5, 0));
	printf(", the file's %lld\n", (long long)lseek(fd, 0, SEEK_CUR));
	splice_drain("the pipe", p[0]);
	off = 18;
	printf("at the end of the file: %zd\n", splice(fd, &off, p[1], NULL, 5, 0));
	write(p[1], "ABC", 3);
	off = 0;
	printf("pipe into the file: %zd", splice(p[0], NULL, fd, &off, 10, 0));
	printf(", offset %lld\n", (long long)off);
	pread(fd, buf, 8, 0);
	buf[8] = 0;
	printf("the file: '%s'\n", buf);
	printf("an empty pipe, SPLICE_F_NONBLOCK: %s\n", errname(splice(p[0], NULL, fd, NULL, 10, SPLICE_F_NONBLOCK)));
	write(p[1], "xyz123", 6);
	printf("pipe to pipe, a part: %zd\n", splice(p[0], NULL, q[1], NULL, 4, 0));
	splice_drain("the output", q[0]);
	splice_drain("the input", p[0]);
	printf("pipe to pipe, empty, SPLICE_F_NONBLOCK: %s\n",
	       errname(splice(p[0], NULL, q[1], NULL, 4, SPLICE_F_NONBLOCK)));
	write(p[1], "teedata", 7);
	printf("tee: %zd\n", tee(p[0], q[1], 100, 0));
	splice_drain("tee's output", q[0]);
	splice_drain("tee's input", p[0]);
	printf("tee, empty, SPLICE_F_NONBLOCK: %s\n", errname(tee(p[0], q[1], 100, SPLICE_F_NONBLOCK)));
	printf("tee to itself: %s\n", errname(tee(p[0], p[1], 100, 0)));
	printf("tee from a file: %s\n", errname(tee(fd, q[1], 100, 0)));
	printf("tee, a bad flag: %s\n", errname(tee(p[0], q[1], 100, 0x10)));
	printf("tee of nothing: %zd\n", tee(p[0], q[1], 0, 0));
	off = 0;
	printf("an offset on a pipe: %s\n", errname(splice(p[0], &off, fd, NULL, 4, 0)));
	printf("a pipe to itself: %s\n", errname(splice(p[0], NULL, p[1], NULL, 4, 0)));
	printf("a file to a file: %s\n", errname(splice(fd, NULL, fd, NULL, 4, 0)));
	printf("a bad flag: %s\n", errname(splice(fd, NULL, p[1], NULL, 4, 0x10)));
	printf("nothing: %zd\n", splice(fd, NULL, p[1], NULL, 0, 0));
	printf("a bad fd: %s\n", errname(splice(999, NULL, p[1], NULL, 4, 0)));
	wfd = open(path, O_WRONLY);
	afd = open(path, O_WRONLY | O_APPEND);
	printf("from a file open for writing: %s\n", errname(splice(wfd, NULL, p[1], NULL, 4, 0)));
	printf("from the pipe's write end: %s\n", errname(splice(p[1], NULL, q[1], NULL, 4, 0)));
	write(p[1], "x", 1);
	printf("into an O_APPEND file: %s\n", errname(splice(p[0], NULL, afd, NULL, 4, 0)));
	splice_drain("the pipe", p[0]);
	printf("vmsplice in: %zd\n", vmsplice(p[1], iov, 2, 0));
	splice_drain("the pipe", p[0]);
	write(p[1], "outdata", 7);
	printf("vmsplice out: %zd", vmsplice(p[0], &out, 1, 0));
	printf(" '%s'\n", buf);
	printf("vmsplice, a bad flag: %s\n", errname(vmsplice(p[1], iov, 2, 0x10)));
	printf("vmsplice, a file: %s\n", errname(vmsplice(fd, iov, 2, 0)));
	printf("vmsplice out, empty, SPLICE_F_NONBLOCK: %s\n", errname(vmsplice(p[0], &out, 1, SPLICE_F_NONBLOCK)));
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while (write(p[1], path, sizeof(path)) > 0)
		;
	printf("vmsplice into a full pipe, SPLICE_F_NONBLOCK: %s\n", errname(vmsplice(p[1], iov, 2, SPLICE_F_NONBLOCK)));
	close(p[1]);
	close(q[0]);
	printf("tee, no reader: %s\n", errname(tee(p[0], q[1], 100, 0)));
	close(p[0]);
	close(q[1]);
	if (pipe(p))
		return 1;
	close(p[1]);
	printf("an empty pipe without writers: %zd\n", splice(p[0], NULL, fd, NULL, 4, 0));
	close(p[0]);
	close(afd);
	close(wfd);
	close(fd);
	unlink(path);
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
	if (!strcmp(cmd, "mremap"))
		return cmd_mremap();
	if (!strcmp(cmd, "timerfd"))
		return cmd_timerfd();
	if (!strcmp(cmd, "signalfd"))
		return cmd_signalfd();
	if (!strcmp(cmd, "memfd"))
		return cmd_memfd();
	if (!strcmp(cmd, "chown"))
		return cmd_chown();
	if (!strcmp(cmd, "msync"))
		return cmd_msync();
	if (!strcmp(cmd, "sched"))
		return cmd_sched();
	if (!strcmp(cmd, "idlespin") && argc > 2)
		return cmd_idlespin(argv[2]);
	if (!strcmp(cmd, "mlock"))
		return cmd_mlock();
	if (!strcmp(cmd, "rlimit"))
		return cmd_rlimit();
	if (!strcmp(cmd, "rlimit-show"))
		return cmd_rlimit_show();
	if (!strcmp(cmd, "readahead"))
		return cmd_readahead();
	if (!strcmp(cmd, "xattr"))
		return cmd_xattr();
	if (!strcmp(cmd, "fallocate"))
		return cmd_fallocate();
	if (!strcmp(cmd, "inotify"))
		return cmd_inotify();
	if (!strcmp(cmd, "inotify-overflow"))
		return cmd_inotify_overflow();
	if (!strcmp(cmd, "inotify-instances"))
		return cmd_inotify_instances();
	if (!strcmp(cmd, "membarrier"))
		return cmd_membarrier();
	if (!strcmp(cmd, "execveat"))
		return cmd_execveat();
	if (!strcmp(cmd, "execd") && argc > 2)
		return printf("exec'd, %s\n", argv[2]), 3;
	if (!strcmp(cmd, "pidfd"))
		return cmd_pidfd();
	if (!strcmp(cmd, "mmsg"))
		return cmd_mmsg();
	if (!strcmp(cmd, "splice"))
		return cmd_splice();
	if (!strcmp(cmd, "segv"))
		return cmd_segv();
	if (!strcmp(cmd, "wprotect"))
		return cmd_wprotect();
	if (!strcmp(cmd, "stack"))
		return cmd_stack(200);
	if (!strcmp(cmd, "threads"))
		return cmd_threads();
	if (!strcmp(cmd, "faults"))
		return cmd_faults();
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
	if (!strcmp(cmd, "threadwait"))
		return cmd_threadwait();
	fprintf(stderr, "usage: %s hello|malloc|fork|mmap|mremap|segv|wprotect|stack|threads|faults|threadexec|threadwait|taskdir|signal|uname|kill|clock|spawn\n", argv[0]);
	return 2;
}
