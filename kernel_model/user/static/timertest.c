/*
 * POSIX timers and queued signals against a real libc (glibc), statically linked: one behaviour
 * per subcommand, each line what it saw (tests/machine/test_posix_timers.py; the expected lines
 * are what this binary printed on the reference Linux 6.1).  Times are checked as bounds, never
 * as exact values: only what a kernel guarantees is printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static long ms(const struct timespec *ts)
{
	return ts->tv_sec * 1000 + ts->tv_nsec / 1000000;
}

/* errno by name: the same lines from glibc and musl, whose strerror() texts differ */
static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EFAULT: return "EFAULT";
	case EAGAIN: return "EAGAIN";
	case ESRCH: return "ESRCH";
	case EPERM: return "EPERM";
	case EINTR: return "EINTR";
	}
	return "other";
}

static const char *err(int ret)
{
	return ret ? errname(errno) : "ok";
}

/* the raw call: glibc's timer_create keeps SIGEV_THREAD to itself and maps ids */
static int sys_timer_create(clockid_t clock, struct sigevent *sev, int *id)
{
	return syscall(SYS_timer_create, clock, sev, id);
}

static int sys_timer_settime(int id, int flags, const struct itimerspec *new, struct itimerspec *old)
{
	return syscall(SYS_timer_settime, id, flags, new, old);
}

static int sys_timer_gettime(int id, struct itimerspec *cur)
{
	return syscall(SYS_timer_gettime, id, cur);
}

static int sys_timer_getoverrun(int id)
{
	return syscall(SYS_timer_getoverrun, id);
}

static int sys_timer_delete(int id)
{
	return syscall(SYS_timer_delete, id);
}

static struct itimerspec its(long value_ms, long interval_ms)
{
	struct itimerspec it = {
		.it_value = { value_ms / 1000, (value_ms % 1000) * 1000000L },
		.it_interval = { interval_ms / 1000, (interval_ms % 1000) * 1000000L },
	};

	return it;
}

static void block(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

static int wait_one(int sig, siginfo_t *si, int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigtimedwait(&set, si, &ts);
}

/* ---- bad input ---- */
static int errors(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	struct itimerspec it = its(1000, 0), bad = its(0, 0);
	int id = -1, ret;

	ret = sys_timer_create(99, &sev, &id);
	printf("unknown clock: %s\n", err(ret));
	ret = sys_timer_create(CLOCK_MONOTONIC_RAW, &sev, &id);
	printf("CLOCK_MONOTONIC_RAW: %s\n", err(ret));
	sev.sigev_notify = 7;
	printf("sigev_notify 7: %s\n", err(sys_timer_create(CLOCK_MONOTONIC, &sev, &id)));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = 0;
	printf("signal 0: %s\n", err(sys_timer_create(CLOCK_MONOTONIC, &sev, &id)));
	sev.sigev_signo = 65;
	printf("signal 65: %s\n", err(sys_timer_create(CLOCK_MONOTONIC, &sev, &id)));
	sev.sigev_signo = SIGUSR1;
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_notify_thread_id = 1;	/* init: not a thread of ours */
	printf("SIGEV_THREAD_ID of another process: %s\n", err(sys_timer_create(CLOCK_MONOTONIC, &sev, &id)));
	printf("bad address for the id: %s\n", err(sys_timer_create(CLOCK_MONOTONIC, NULL, (int *)8)));
	printf("settime of no timer: %s\n", err(sys_timer_settime(12345, 0, &it, NULL)));
	printf("gettime of no timer: %s\n", err(sys_timer_gettime(-1, (struct itimerspec *)&it)));
	printf("getoverrun of no timer: %s\n", err(sys_timer_getoverrun(7) < 0));
	printf("delete of no timer: %s\n", err(sys_timer_delete(7)));
	if (sys_timer_create(CLOCK_MONOTONIC, NULL, &id))
		return 1;
	printf("first id: %d\n", id);
	bad.it_value.tv_nsec = 1000000000;
	printf("tv_nsec 1e9: %s\n", err(sys_timer_settime(id, 0, &bad, NULL)));
	printf("NULL setting: %s\n", err(sys_timer_settime(id, 0, NULL, NULL)));
	printf("delete: %s\n", err(sys_timer_delete(id)));
	printf("delete again: %s\n", err(sys_timer_delete(id)));
	if (sys_timer_create(CLOCK_MONOTONIC, NULL, &id))
		return 1;
	printf("next id: %d\n", id);
	return 0;
}

/* ---- a one-shot timer's signal to an SA_SIGINFO handler ---- */
static volatile int got_sig, got_code, got_value, got_tid, got_overrun;

static void handler(int sig, siginfo_t *si, void *uc)
{
	got_sig = sig;
	got_code = si->si_code;
	got_value = si->si_value.sival_int;
	got_tid = si->si_timerid;
	got_overrun = si->si_overrun;
}

static int handler_case(void)
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO };
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN + 1 };
	struct itimerspec it = its(20, 0), cur;
	sigset_t none;
	int id;

	sigaction(SIGRTMIN + 1, &sa, NULL);
	sev.sigev_value.sival_int = 0x1234;
	if (sys_timer_create(CLOCK_MONOTONIC, &sev, &id))
		return 1;
	block(SIGRTMIN + 1);
	sys_timer_settime(id, 0, &it, NULL);
	sys_timer_gettime(id, &cur);
	printf("armed: value<=20ms=%d value>0=%d interval=%ld\n", ms(&cur.it_value) <= 20,
	       cur.it_value.tv_sec || cur.it_value.tv_nsec, ms(&cur.it_interval));
	sigemptyset(&none);
	sigsuspend(&none);
	printf("handler: sig=SIGRTMIN+%d code=%s value=0x%x timerid=%d overrun=%d\n", got_sig - SIGRTMIN,
	       got_code == SI_TIMER ? "SI_TIMER" : "?", got_value, got_tid == id, got_overrun);
	sys_timer_gettime(id, &cur);
	printf("expired: value=%ld.%09ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);
	printf("delete: %s\n", err(sys_timer_delete(id)));
	return 0;
}

/* ---- an interval timer whose signal waits: overruns ---- */
static int overrun_case(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2 };
	struct itimerspec it = its(10, 10), cur, old;
	siginfo_t si;
	int id, sig, first;

	block(SIGUSR2);
	if (sys_timer_create(CLOCK_MONOTONIC, &sev, &id))
		return 1;
	sys_timer_settime(id, 0, &it, NULL);
	msleep(100);
	sig = wait_one(SIGUSR2, &si, 1000);
	first = si.si_overrun;
	printf("taken: sig=%d code=%s overrun>=5=%d value=%d\n", sig == SIGUSR2, si.si_code == SI_TIMER ? "SI_TIMER" : "?",
	       si.si_overrun >= 5, si.si_value.sival_int);
	printf("getoverrun == si_overrun: %d\n", sys_timer_getoverrun(id) == first);
	sig = wait_one(SIGUSR2, &si, 1000);
	printf("next: sig=%d overrun<=2=%d\n", sig == SIGUSR2, si.si_overrun <= 2);
	sys_timer_gettime(id, &cur);
	printf("gettime: interval=%ldms value<=10ms=%d\n", ms(&cur.it_interval), ms(&cur.it_value) <= 10);
	it = its(0, 0);
	sys_timer_settime(id, 0, &it, &old);
	printf("disarm: old interval=%ldms\n", ms(&old.it_interval));
	sys_timer_gettime(id, &cur);
	printf("disarmed: value=%ld interval=%ld\n", ms(&cur.it_value), ms(&cur.it_interval));
	printf("getoverrun after disarm: %d\n", sys_timer_getoverrun(id));
	printf("delete: %s\n", err(sys_timer_delete(id)));
	return 0;
}

/* ---- SIGEV_NONE: never signals; gettime tells the time left ---- */
static int none_case(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec it = its(50, 0), cur;
	int id;

	if (sys_timer_create(CLOCK_MONOTONIC, &sev, &id))
		return 1;
	sys_timer_settime(id, 0, &it, NULL);
	sys_timer_gettime(id, &cur);
	printf("armed: value<=50ms=%d value>0=%d\n", ms(&cur.it_value) <= 50,
	       cur.it_value.tv_sec || cur.it_value.tv_nsec);
	msleep(80);
	sys_timer_gettime(id, &cur);
	printf("after 80ms: value=%ld.%09ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);
	it = its(30, 20);
	sys_timer_settime(id, 0, &it, NULL);
	msleep(100);
	sys_timer_gettime(id, &cur);
	printf("interval, later: value<=20ms=%d value>0=%d getoverrun=%d\n", ms(&cur.it_value) <= 20,
	       cur.it_value.tv_sec || cur.it_value.tv_nsec, sys_timer_getoverrun(id));
	sys_timer_delete(id);
	return 0;
}

/* ---- SIGEV_THREAD_ID, CLOCK_REALTIME absolute, no sigevent (SIGALRM, value = id) ---- */
static int kinds_case(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL | SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	struct itimerspec it = its(10, 0), cur;
	struct timespec now;
	siginfo_t si;
	int id, id2, sig;

	block(SIGUSR1);
	block(SIGALRM);
	sev.sigev_notify_thread_id = syscall(SYS_gettid);
	printf("thread id: %s\n", err(sys_timer_create(CLOCK_MONOTONIC, &sev, &id)));
	sys_timer_settime(id, 0, &it, NULL);
	sig = wait_one(SIGUSR1, &si, 1000);
	printf("taken: %d code=%s\n", sig == SIGUSR1, si.si_code == SI_TIMER ? "SI_TIMER" : "?");
	sys_timer_delete(id);

	printf("no sigevent: %s\n", err(sys_timer_create(CLOCK_REALTIME, NULL, &id2)));
	clock_gettime(CLOCK_REALTIME, &now);
	it = its(0, 0);
	it.it_value = now;
	it.it_value.tv_nsec += 30000000;
	if (it.it_value.tv_nsec >= 1000000000)
		it.it_value.tv_sec++, it.it_value.tv_nsec -= 1000000000;
	printf("absolute: %s\n", err(sys_timer_settime(id2, TIMER_ABSTIME, &it, NULL)));
	sig = wait_one(SIGALRM, &si, 1000);
	printf("taken: %d code=%s value=id:%d\n", sig == SIGALRM, si.si_code == SI_TIMER ? "SI_TIMER" : "?",
	       si.si_value.sival_int == id2);
	it.it_value.tv_sec -= 10;	/* in the past: at once */
	sys_timer_settime(id2, TIMER_ABSTIME, &it, NULL);
	sig = wait_one(SIGALRM, &si, 1000);
	printf("past: %d\n", sig == SIGALRM);
	/* the time left of an absolute REALTIME timer, and of a TAI one, in their clocks */
	clock_gettime(CLOCK_REALTIME, &now);
	it = its(0, 0);
	it.it_value.tv_sec = now.tv_sec + 5;
	it.it_value.tv_nsec = now.tv_nsec;
	sys_timer_settime(id2, TIMER_ABSTIME, &it, NULL);
	sys_timer_gettime(id2, &cur);
	printf("absolute 5s ahead: left in (4s,5s]=%d\n", ms(&cur.it_value) > 4000 && ms(&cur.it_value) <= 5000);
	sys_timer_create(CLOCK_TAI, NULL, &id);
	clock_gettime(CLOCK_TAI, &now);
	it.it_value.tv_sec = now.tv_sec + 3;
	it.it_value.tv_nsec = now.tv_nsec;
	sys_timer_settime(id, TIMER_ABSTIME, &it, NULL);
	sys_timer_gettime(id, &cur);
	printf("TAI 3s ahead: left in (2s,3s]=%d\n", ms(&cur.it_value) > 2000 && ms(&cur.it_value) <= 3000);
	printf("boottime: %s\n", err(sys_timer_create(CLOCK_BOOTTIME, NULL, &id)));
	it = its(3000, 1000);
	sys_timer_settime(id, 0, &it, NULL);
	sys_timer_gettime(id, &cur);
	printf("boottime 3s: left in (2s,3s]=%d interval=%ldms\n", ms(&cur.it_value) > 2000 && ms(&cur.it_value) <= 3000,
	       ms(&cur.it_interval));
	/* the timers go with the process (exit_itimers) */
	return 0;
}

/* ---- queued signals: rt_sigqueueinfo, rt_tgsigqueueinfo, rt_sigtimedwait ---- */
static int sigqueueinfo(pid_t pid, int sig, int code, int value)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = code;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = value;
	return syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
}

static int queue_case(void)
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO };
	siginfo_t si;
	sigset_t none;
	int i, sig, status;
	pid_t child;

	block(SIGRTMIN);
	block(SIGUSR1);
	for (i = 1; i <= 3; i++) {
		union sigval v = { .sival_int = i * 10 };

		sigqueue(getpid(), SIGRTMIN, v);
	}
	sigqueueinfo(getpid(), SIGUSR1, SI_QUEUE, 7);
	sigqueueinfo(getpid(), SIGUSR1, SI_QUEUE, 8);
	for (i = 0; i < 3; i++) {
		sig = wait_one(SIGRTMIN, &si, 0);
		printf("rt %d: sig=%d code=%s value=%d pid=%d\n", i, sig == SIGRTMIN,
		       si.si_code == SI_QUEUE ? "SI_QUEUE" : "?", si.si_value.sival_int, si.si_pid == getpid());
	}
	sig = wait_one(SIGRTMIN, &si, 0);
	printf("rt empty: %d %s\n", sig, errname(errno));
	sig = wait_one(SIGUSR1, &si, 0);
	printf("legacy: sig=%d value=%d\n", sig == SIGUSR1, si.si_value.sival_int);
	sig = wait_one(SIGUSR1, &si, 0);
	printf("legacy again: %d %s\n", sig, errname(errno));

	/* a thread's own */
	siginfo_t tsi;
	memset(&tsi, 0, sizeof(tsi));
	tsi.si_signo = SIGRTMIN;
	tsi.si_code = SI_QUEUE;
	tsi.si_value.sival_int = 99;
	printf("tgsigqueueinfo: %s\n", err(syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), SIGRTMIN, &tsi)));
	sig = wait_one(SIGRTMIN, &si, 0);
	printf("taken: %d value=%d\n", sig == SIGRTMIN, si.si_value.sival_int);
	printf("tgsigqueueinfo tid 0: %s\n", err(syscall(SYS_rt_tgsigqueueinfo, getpid(), 0, SIGRTMIN, &tsi)));
	printf("sigqueueinfo bad pointer: %s\n", err(syscall(SYS_rt_sigqueueinfo, getpid(), SIGRTMIN, (void *)8)));
	printf("sigqueueinfo no such pid: %s\n", err(sigqueueinfo(999999, SIGRTMIN, SI_QUEUE, 1)));
	printf("sigqueueinfo signal 65: %s\n", err(sigqueueinfo(getpid(), 65, SI_QUEUE, 1)));

	/* SI_USER (0) or a kernel code to another process: not even root may pretend */
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	printf("to another, SI_USER: %s\n", err(sigqueueinfo(child, SIGTERM, SI_USER, 1)));
	printf("to another, SI_KERNEL: %s\n", err(sigqueueinfo(child, SIGTERM, SI_KERNEL, 1)));
	printf("to another, SI_TKILL: %s\n", err(sigqueueinfo(child, SIGTERM, SI_TKILL, 1)));
	printf("to another, SI_QUEUE: %s\n", err(sigqueueinfo(child, SIGTERM, SI_QUEUE, 1)));
	waitpid(child, &status, 0);
	printf("child: signaled=%d sig=%d\n", WIFSIGNALED(status), WTERMSIG(status));

	/* to a handler: si_value and si_code reach it */
	sigaction(SIGRTMIN + 2, &sa, NULL);
	block(SIGRTMIN + 2);
	sigqueueinfo(getpid(), SIGRTMIN + 2, SI_QUEUE, 4242);
	sigemptyset(&none);
	sigsuspend(&none);
	printf("handler: sig=SIGRTMIN+%d code=%s value=%d\n", got_sig - SIGRTMIN,
	       got_code == SI_QUEUE ? "SI_QUEUE" : "?", got_value);

	/* rt_sigtimedwait's own errors */
	struct timespec bad = { 0, 1000000000 };
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	printf("timedwait bad timeout: %s\n", err(syscall(SYS_rt_sigtimedwait, &set, &si, &bad, 8) < 0));
	printf("timedwait bad size: %s\n", err(syscall(SYS_rt_sigtimedwait, &set, &si, NULL, 4) < 0));
	bad.tv_nsec = 20000000;
	printf("timedwait timeout: %s\n", err(syscall(SYS_rt_sigtimedwait, &set, &si, &bad, 8) < 0));
	return 0;
}

/* RLIMIT_SIGPENDING: real-time signals queue until the user's limit, then EAGAIN */
static int rlimit_case(void)
{
	struct rlimit rl;
	long n = 0;
	int ret;

	getrlimit(RLIMIT_SIGPENDING, &rl);
	block(SIGRTMIN);
	for (;;) {
		ret = sigqueueinfo(getpid(), SIGRTMIN, SI_QUEUE, n);
		if (ret)
			break;
		n++;
	}
	printf("queued until: %s near limit=%d\n", errname(errno), n <= (long)rl.rlim_cur && n >= (long)rl.rlim_cur - 64);
	/* a legacy signal from kill() still goes through, past the limit */
	block(SIGUSR1);
	printf("kill over the limit: %s\n", err(kill(getpid(), SIGUSR1)));
	/* ignoring the signal drops what is queued */
	signal(SIGRTMIN, SIG_IGN);
	signal(SIGRTMIN, SIG_DFL);
	printf("after flush: %s\n", err(sigqueueinfo(getpid(), SIGRTMIN, SI_QUEUE, 1)));
	sigqueueinfo(getpid(), SIGRTMIN, SI_QUEUE, 2);
	/* /proc's SigQ: what the user has queued (the two, and kill's SIGUSR1, whose siginfo a
	 * legacy signal gets past the limit), of the limit */
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long q = -1, lim = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "SigQ: %ld/%ld", &q, &lim) == 2)
			break;
	printf("SigQ: %ld/limit=%d\n", q, lim == (long)rl.rlim_cur);
	return 0;
}

/* exec: the timers go, and their queued signals; a queued SI_QUEUE signal stays */
static int exec_case(char *self)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN };
	struct itimerspec it = its(1, 0);
	char *argv[] = { self, "execd", NULL };
	int id;

	block(SIGRTMIN);
	block(SIGRTMIN + 1);
	sys_timer_create(CLOCK_MONOTONIC, &sev, &id);
	sys_timer_settime(id, 0, &it, NULL);
	msleep(20);
	sigqueueinfo(getpid(), SIGRTMIN + 1, SI_QUEUE, 5);
	execve(self, argv, NULL);
	return 1;
}

static int execd_case(void)
{
	struct itimerspec cur;
	siginfo_t si;
	sigset_t pending;

	sigpending(&pending);
	printf("after exec: timer %s\n", err(sys_timer_gettime(0, &cur)));
	printf("timer's signal pending=%d, queued signal pending=%d\n", sigismember(&pending, SIGRTMIN),
	       sigismember(&pending, SIGRTMIN + 1));
	int sig = wait_one(SIGRTMIN + 1, &si, 0);

	printf("queued signal: %d value=%d\n", sig == SIGRTMIN + 1, si.si_value.sival_int);
	return 0;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(c, "errors"))
		return errors();
	if (!strcmp(c, "handler"))
		return handler_case();
	if (!strcmp(c, "overrun"))
		return overrun_case();
	if (!strcmp(c, "none"))
		return none_case();
	if (!strcmp(c, "kinds"))
		return kinds_case();
	if (!strcmp(c, "queue"))
		return queue_case();
	if (!strcmp(c, "rlimit"))
		return rlimit_case();
	if (!strcmp(c, "exec"))
		return exec_case(argv[0]);
	if (!strcmp(c, "execd"))
		return execd_case();
	fprintf(stderr, "usage: timertest errors|handler|overrun|none|kinds|queue|rlimit|exec\n");
	return 2;
}
