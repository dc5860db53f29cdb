/*
 * tracefs-sim-init: pid 1 of a session's PID namespace.
 *
 *   tracefs-sim-init [--terminal] [--report-fd FD] [--ring RAM_FD:OFFSET:SIZE:DOORBELL_FD:REPLY_FD]
 *                    [--perf-pool FD,FD,...]
 *                    [--helper PATH]... -- PROGRAM [ARG...]
 *
 * Started by `tracefs-sim shell`/`run` (session/launch.py) once the namespace's /proc is
 * mounted.  It
 *  1. makes the session's pids start at FIRST_SESSION_PID: the emulated kernel's own tasks
 *     keep the range below, so a session pid never names one of them;
 *  2. starts PROGRAM (the user's shell or script) in a process group of its own (and, with
 *     --terminal, in the terminal's foreground), under the session's seccomp filter;
 *  3. takes the filter's listener out of PROGRAM (pidfd_getfd) and starts the supervisor on
 *     it (supervisor.c; with --ring it mirrors every call into the emulated kernel's session
 *     ring, mirror.c, except those of the project's own tools, the --helper paths), keeping a
 *     duplicate: should the supervisor die, init answers the
 *     notifications itself (refusals and mounts as before), so the session never hangs on a
 *     listener nobody reads and never gets ENOSYS for everything;
 *  4. reaps every orphan of the namespace, reports PROGRAM's pid and its stops on FD
 *     ("pid N", "stopped"), and when PROGRAM ends, ends the rest of the session (SIGTERM,
 *     then SIGKILL when init exits) and exits with PROGRAM's status (128 + signal if killed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "session.h"

#define FIRST_SESSION_PID 1000
/* How long the rest of the session gets to end after PROGRAM did, before SIGKILL. */
#define GRACE_MS 2000
#define LISTENER_WAIT_MS 10000
/* Where PROGRAM's child keeps the pipe init tells it to go on with (above the listener's). */
#define GO_FD_IN_CHILD (LISTENER_FD_IN_CHILD + 1)

static int report_fd = -1;

static void report(const char *fmt, int value)
{
	char line[64];
	int len;

	if (report_fd < 0)
		return;
	len = snprintf(line, sizeof(line), fmt, value);
	if (write(report_fd, line, len) < 0)
		report_fd = -1;	/* the launcher is gone: nobody to tell */
}

static void die(const char *what)
{
	fprintf(stderr, "tracefs-sim-init: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void set_first_pid(void)
{
	char text[16];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	int len = snprintf(text, sizeof(text), "%d", FIRST_SESSION_PID - 1);

	if (fd < 0 || write(fd, text, len) != len)
		die("cannot set the session's first pid (/proc/sys/kernel/ns_last_pid)");
	close(fd);
}

/* The child that becomes PROGRAM: its own process group, default signals, the filter.  It
 * waits for init to have taken the listener (a byte on `go`) before it goes on: its exec
 * would close the listener, and a filter whose listener is closed fails every call. */
static void __attribute__((noreturn)) start_program(char **argv, bool terminal, bool notify_all,
						    const sigset_t *old_mask, int go)
{
	int listener;
	char byte;

	setpgid(0, 0);
	if (terminal) {
		signal(SIGTTOU, SIG_IGN);	/* tcsetpgrp from a background group */
		tcsetpgrp(0, getpgrp());
	}
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	if (dup2(go, GO_FD_IN_CHILD) < 0)
		_exit(126);
	fcntl(GO_FD_IN_CHILD, F_SETFD, FD_CLOEXEC);
	close(LISTENER_FD_IN_CHILD);
	close_range(GO_FD_IN_CHILD + 1, ~0U, 0);
	listener = install_session_filter(notify_all);
	if (listener != LISTENER_FD_IN_CHILD) {
		fprintf(stderr, "tracefs-sim-init: cannot install the session's seccomp filter: %s\n",
			listener < 0 ? strerror(errno) : "unexpected listener fd");
		_exit(126);
	}
	if (read(GO_FD_IN_CHILD, &byte, 1) != 1)
		_exit(126);	/* init could not take the listener: it said why */
	/* the listener and `go` are close-on-exec: PROGRAM holds neither */
	execvp(argv[0], argv);
	fprintf(stderr, "tracefs-sim: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static bool is_listener(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return !strcmp(target, "anon_inode:seccomp notify");
}

/* PROGRAM's listener, once its filter is installed; -1 if PROGRAM ended first. */
static int take_listener(pid_t program)
{
	int pidfd = pidfd_open(program, 0);
	uint64_t deadline = now_ms() + LISTENER_WAIT_MS;
	int fd = -1;

	if (pidfd < 0)
		die("pidfd_open");
	while (now_ms() < deadline) {
		fd = pidfd_getfd(pidfd, LISTENER_FD_IN_CHILD, 0);
		if (fd >= 0 && is_listener(fd))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		if (waitpid(program, NULL, WNOHANG | WNOWAIT | __WALL) == program)
			break;	/* it failed before its filter was in place */
		usleep(200);
	}
	close(pidfd);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* wake_fd: the kernel's wake eventfd (its signals for the session's processes), or -1 */
static pid_t start_supervisor(int listener, const sigset_t *old_mask, struct in_flight *in_flight, int wake_fd)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "tracefs-sim-sup");
	/* it answers the calls of the others' last moments: only init's exit ends it */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	mirror_start();
	if (wake_fd >= 0 && !signals_start(wake_fd))
		fprintf(stderr, "tracefs-sim-init: the kernel's signals will not reach the session's processes\n");
	supervise(listener, in_flight);
}

/* Answer one pending notification (init has taken over from a dead supervisor). */
static void answer_one(int listener)
{
	struct seccomp_notif req;

	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return;
	if (!answer_notification(listener, &req))
		respond_continue(listener, req.id);
}

/* Whether a process other than init and the supervisor is left in the namespace. */
static bool others_alive(pid_t supervisor)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	bool found = false;

	if (!proc)
		return false;
	while (!found && (e = readdir(proc))) {
		pid_t pid = atoi(e->d_name);

		found = pid > 1 && pid != supervisor;
	}
	closedir(proc);
	return found;
}

static int exit_code(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	bool terminal = false, mirrored = false;
	char *helper_paths[16];
	int nr_helpers = 0, ram_fd = -1, bell_fd = -1, reply_fd = -1, pool_fds[256], nr_pool = 0, wake_fd = -1;
	unsigned long long ring_offset = 0, ring_size = 0;
	int listener = -1, sigfd, status = 0, i, go[2];
	pid_t program, supervisor = 0;
	bool program_done = false, takeover = false;
	struct in_flight *in_flight;
	uint64_t kill_at = 0;
	sigset_t mask, old_mask;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--terminal"))
			terminal = true;
		else if (!strcmp(argv[i], "--report-fd") && i + 1 < argc)
			report_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ring") && i + 1 < argc &&
			 sscanf(argv[i + 1], "%d:%llu:%llu:%d:%d", &ram_fd, &ring_offset, &ring_size, &bell_fd,
				&reply_fd) == 5)
			i++;
		else if (!strcmp(argv[i], "--perf-pool") && i + 1 < argc) {
			char *p = argv[++i], *end;

			/* the perf pool's memory files, by region (serve.c) */
			while (*p && nr_pool < 256) {
				pool_fds[nr_pool++] = (int)strtol(p, &end, 10);
				p = *end == ',' ? end + 1 : end + strlen(end);
			}
		} else if (!strcmp(argv[i], "--perf-wake") && i + 1 < argc)
			wake_fd = atoi(argv[++i]);	/* the perf buffers' wakeups (serve.c) */
		else if (!strcmp(argv[i], "--helper") && i + 1 < argc && nr_helpers < 16)
			helper_paths[nr_helpers++] = argv[++i];
		else
			break;
	}
	if (i >= argc - 1 || strcmp(argv[i], "--")) {
		fprintf(stderr, "usage: tracefs-sim-init [--terminal] [--report-fd FD] "
			"[--ring RAM_FD:OFFSET:SIZE:DOORBELL_FD:REPLY_FD] [--perf-pool FD,FD,...] [--perf-wake FD] "
			"[--helper PATH]... "
			"-- PROGRAM [ARG...]\n");
		return 2;
	}
	if (getpid() != 1) {
		fprintf(stderr, "tracefs-sim-init: must be pid 1 of a new PID namespace\n");
		return 2;
	}
	prctl(PR_SET_NAME, "init");
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, &old_mask);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sigfd < 0)
		die("signalfd");
	if (answer_init() < 0)
		die("cannot open the session's tracefs and debugfs mounts");
	if (ram_fd >= 0) {
		mirrored = mirror_init(ram_fd, ring_offset, ring_size, bell_fd, helper_paths, nr_helpers);
		if (mirrored)
			serve_init(reply_fd, wake_fd, pool_fds, nr_pool);
		if (!mirrored)
			fprintf(stderr, "tracefs-sim-init: the emulated kernel has no session ring: "
				"the session's processes are not its tasks\n");
		close(ram_fd);	/* the mapping stays */
	}
	set_first_pid();

	in_flight = mmap(NULL, SUPERVISOR_RECEIVERS * sizeof(*in_flight), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (in_flight == MAP_FAILED)
		die("mmap");
	if (pipe2(go, O_CLOEXEC) < 0)
		die("pipe");
	program = fork();
	if (program < 0)
		die("fork");
	if (program == 0)
		start_program(argv + i + 1, terminal, mirrored, &old_mask, go[0]);
	close(go[0]);
	listener = take_listener(program);
	if (listener >= 0) {
		supervisor = start_supervisor(listener, &old_mask, in_flight, mirrored ? wake_fd : -1);
		if (write(go[1], "g", 1) != 1)
			die("cannot start the session's program");
	} else {
		fprintf(stderr, "tracefs-sim-init: cannot take the session's seccomp listener\n");
	}
	close(go[1]);	/* without the byte, PROGRAM's child gives up */
	report("pid %d\n", program);

	for (;;) {
		struct pollfd fds[2] = { { sigfd, POLLIN, 0 }, { takeover ? listener : -1, POLLIN, 0 } };
		int timeout = kill_at ? 20 : -1;	/* ending: look at who is left now and then */
		struct signalfd_siginfo si;
		pid_t pid;
		int st;

		if (poll(fds, 2, timeout) < 0 && errno != EINTR)
			die("poll");
		if (fds[1].revents & POLLIN)
			answer_one(listener);
		if (fds[0].revents & POLLIN && read(sigfd, &si, sizeof(si)) == sizeof(si) &&
		    si.ssi_signo != SIGCHLD && !kill_at) {
			/* the launcher asks the session to end (it signalled PROGRAM's group first) */
			kill(-1, SIGTERM);
			kill(-1, SIGCONT);
			kill_at = now_ms() + GRACE_MS;
		}
		while ((pid = waitpid(-1, &st, WNOHANG | __WALL | (terminal ? WUNTRACED : 0))) > 0) {
			if (pid == program && WIFSTOPPED(st)) {
				report("stopped\n", 0);
			} else if (pid == program) {
				program_done = true;
				status = st;
			} else if (pid == supervisor && listener >= 0) {
				takeover = true;
				answer_abandoned(listener, in_flight);
				fprintf(stderr, "tracefs-sim-init: the session's supervisor ended (status %d); "
					"init answers its calls from now on\n", exit_code(st));
			}
		}
		if (program_done && !kill_at) {
			kill(-1, SIGTERM);	/* init and the supervisor ignore it */
			kill(-1, SIGCONT);
			kill_at = now_ms() + GRACE_MS;
		}
		/* done once nobody but the supervisor is left, or when the grace is over */
		if (kill_at && (!others_alive(supervisor) || now_ms() >= kill_at))
			break;
	}
	return program_done ? exit_code(status) : 128 + SIGTERM;
}
