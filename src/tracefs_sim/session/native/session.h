/*
 * tracefs-sim-init: pid 1 of a session's PID namespace and the supervisor of its processes'
 * system calls (seccomp user notification).  See tracefs_sim/session/__init__.py for the
 * whole picture; this header is what init.c, supervisor.c, answer.c and filter.c share.
 */
#ifndef TRACEFS_SIM_SESSION_H
#define TRACEFS_SIM_SESSION_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Newer than Debian 12's headers (Linux 6.6). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* The fd number the listener gets in the session's first process: it closes every fd above
 * stderr before installing the filter, so the listener is the lowest free one. */
#define LISTENER_FD_IN_CHILD 3

/* Where the simulator is mounted inside the session (namespace.py's TRACING_DIR and the
 * tmpfs standing in for debugfs): what a mount of tracefs or debugfs gets. */
#define SESSION_TRACING_DIR "/sys/kernel/tracing"
#define SESSION_DEBUGFS_DIR "/sys/kernel/debug"

/* filter.c: install the session's filter in the calling process; returns the listener fd or
 * -1 with errno set.  notify_all: every x86-64 call goes to the supervisor (to be mirrored);
 * otherwise only those answer.c answers. */
int install_session_filter(bool notify_all);

/* answer.c: the system calls a session's processes may not make on the host.  Answers the
 * notification (the call is either served here or refused) and returns true, or returns
 * false for a call that should simply continue on the host.  The sources of the mounts that
 * mount(2) of tracefs/debugfs gets are opened once by answer_init(). */
int answer_init(void);
bool answer_notification(int listener, const struct seccomp_notif *req);

/* Continue the notified call on the host, as if no filter were there. */
int respond_continue(int listener, uint64_t id);
/* Fail the notified call with -err (or succeed with `val` when err is 0). */
int respond(int listener, uint64_t id, int err, int64_t val);

/* The supervisor receives with several threads, so that a notification is taken at once even
 * while another is being served: until it is taken the caller's wait is interruptible, and a
 * signal then (a SIGCHLD, say) would fail the call with EINTR where Linux's would not; once
 * taken it is killable only (WAIT_KILLABLE_RECV).  Serving stays one call at a time.  All but
 * one wait in RECV only while calls come from several threads at once (supervisor.c). */
#define SUPERVISOR_RECEIVERS 4

/* The notification each receiving thread is answering, in memory it shares with init: should
 * the supervisor die half-way, its callers would wait for ever on notifications nobody else
 * received.  (Killed between a RECV's return and its next store, it leaves one init cannot see:
 * answer.c's answer_abandoned() looks for it among the ids around those it knows.) */
struct in_flight {
	volatile uint64_t id;	/* the last it received */
	volatile int nr;
	volatile int busy;	/* 1 from RECV to the answer */
};
/* init.c: answer what a dead supervisor left half-done (in_flight: one per receiver). */
void answer_abandoned(int listener, struct in_flight *in_flight);

/* signals.c: in the supervisor's process, the thread that takes the kernel's wake-ups: it sends
 * the signals the kernel posted for the session's processes (session_ring.h: session_signals)
 * on to them, then tells serve.c.  false: it could not start. */
struct session_signal;
bool signals_start(int wake_fd);
/* ... one signal of the queue, sent if its target is a process of the session (else refused):
 * 0, or -errno */
int signal_send(const struct session_signal *s);

/* supervisor.c: serve the listener until it is closed (the session ended); never returns.
 * in_flight: SUPERVISOR_RECEIVERS entries. */
void __attribute__((noreturn)) supervise(int listener, struct in_flight *in_flight);

/* mirror.c: the session's processes as tasks of the emulated kernel (its session ring). */
struct session_record;
bool mirror_init(int ram_fd, unsigned long long offset, unsigned long long size, int doorbell_fd,
		 char **helper_paths, int nr_helper_paths);
void mirror_start(void);
/* Writes the call's record; returns its serial when the kernel is to answer the call (serve.c;
 * *how: its SERVE_* flags, *tgid: the caller's process), else 0. */
unsigned long long mirror_call(const struct seccomp_notif *req, struct session_record *rec, size_t room,
			       int *how, pid_t *tgid);
struct session_ring *mirror_ring(void);
bool mirror_traces(pid_t tid, pid_t tgid);
/* A held served call, made at last: its record written again; its serial (0: none). */
unsigned long long mirror_serve_again(const struct seccomp_notif *req, struct session_record *rec, size_t room,
				      int how);
void mirror_catch_up(long long max_ms);

/* mirror.c: a /proc file of the task `tid`, whole (small files only), NUL-terminated in buf;
 * its length, or -1 when the task is gone. */
ssize_t read_proc(pid_t tid, const char *what, char *buf, size_t size);
/* mirror.c: the FD record: the kernel's fd `kfd` is the process's `fd` (-errno: it got none). */
void mirror_fd_given(pid_t tid, int kfd, int fd);

/* serve.c: the calls the emulated kernel answers instead of the host. */
enum {
	SERVE_CALL = 1,		/* serve_wanted: the kernel answers it */
	SERVE_NEW_FD = 2,	/* ... and it returns a new fd */
	SERVE_MAP = 4,		/* ... an mmap: the kernel says which perf pool region it maps, the
				 * host then maps that region's file (never the placeholder) */
	SERVE_UNMAP = 16,	/* a munmap, maybe of perf buffers: mirrored with the regions it
				 * unmaps (serve_unmapped_regions), made by the host */
	SERVE_HELD = 8,		/* a poll of served fds: mirrored as any call, and answered by the
				 * supervisor when they are ready (not SERVE_CALL) */
	SERVE_EPOLL = 32,	/* epoll_ctl of a served fd: the supervisor answers it (serve_locally) */
	SERVE_UTS = 64,		/* uname once the kernel answered one: the supervisor answers with
				 * the kernel's utsname it kept (serve_locally), mirrored as any call */
	SERVE_NOWAIT = 128,	/* a served read of /dev/kmsg: made without waiting for a record;
				 * one that would have waited is held (SESSION_SC_NOWAIT) */
	SERVE_DEFER = 256,	/* a /dev/kmsg read that would wait: held, no record written until
				 * the log has a record for it (then a served SERVE_NOWAIT read) */
	SERVE_DUP = 512,	/* dup/fcntl(F_DUPFD) of a served fd: the supervisor makes the new fd
				 * (serve_locally), mirrored as any call */
	SERVE_ANSWERED = 1,	/* serve_answer: done */
	SERVE_UNANSWERED = 0,	/* ... the kernel did not answer (too slow, or ENOSYS): the
				 * caller answers (answer.c, or the host) */
};
/* reply_fd: the kernel's "answered" eventfd; wake_fd: its perf buffer wakeups' (or -1), which
 * signals.c reads (serve_kernel_woke() passes them on); pool_fds: the perf pool's memory files,
 * by region */
void serve_init(int reply_fd, int wake_fd, const int *pool_fds, int nr_pool);
/* The kernel rang the wake eventfd: the holder of polls looks at the perf buffers again. */
void serve_kernel_woke(void);
/* How the call is served (SERVE_* flags), or 0: not; `tgid` is the caller's process. */
int serve_wanted(const struct seccomp_notif *req, pid_t tgid);
/* Wait for the kernel's answer to the served call `serial` and give it to the caller. */
int serve_answer(int listener, const struct seccomp_notif *req, pid_t tgid, unsigned long long serial,
		 int how);
unsigned long long serve_unmapped_regions(pid_t tgid, unsigned long long addr, unsigned long long len);
/* A call the supervisor answers itself (SERVE_EPOLL); false: not such a call. */
bool serve_locally(int listener, const struct seccomp_notif *req, pid_t tgid, int how);
/* What the supervisor learns of a process's fds and life (mirror.c). */
void serve_fd_closed(pid_t tgid, long fd);
void serve_fd_dup2(pid_t tgid, long oldfd, long newfd, bool cloexec);
void serve_fd_close_range(pid_t tgid, unsigned long long first, unsigned long long last, bool cloexec);
/* An open(2)/openat(2) of /dev/kmsg: how it is served (0: the kernel serves nothing). */
int serve_kmsg_open(void);
/* One served call at a time (the ring's reply): the supervisor's loop takes it for each
 * notification, the holder of /dev/kmsg reads to make one it held. */
void serve_lock(void);
void serve_unlock(void);
void serve_fork(pid_t parent, pid_t child);
void serve_exec(pid_t tgid);
void serve_exit(pid_t tgid);

/* The open flags of an open(2), openat(2) or openat2(2) notification (openat2's from the
 * caller's struct open_how; 0 when unreadable). */
unsigned long long open_call_flags(const struct seccomp_notif *req);

/* Reading a target's memory (process_vm_readv).  Returns the length of the NUL-terminated
 * string copied into buf (at most size - 1 bytes), or -1 when unreadable or too long. */
ssize_t read_target_string(pid_t pid, uint64_t addr, char *buf, size_t size);

#endif
