/*
 * What a session's processes ask of the kernel's tracing never reaches the host kernel:
 *
 *  - mount(2) of tracefs or debugfs mounts the simulator there (the session's
 *    /sys/kernel/tracing, or its debugfs stand-in with tracing/ inside), in the caller's own
 *    mount namespace, as libtracefs and ftracetest expect a mount of their own to work;
 *  - umount2(2) of such a debugfs unmounts it with the simulator mounted inside it;
 *  - fsopen(2) of those types (the new mount API) is refused with ENOSYS, the answer of a
 *    kernel without the new API, on which libmount falls back to mount(2);
 *  - perf_event_open(2) and bpf(2) are the emulated kernel's (serve.c); one it did not answer
 *    (a session that does not mirror, or a kernel too far behind) is refused with ENOSYS (a
 *    kernel built without perf events or the BPF syscall) and a line on the caller's stderr
 *    says why;
 *  - init_module, finit_module and delete_module are refused the same way (no modules);
 *  - syslog(2) is the emulated kernel's (serve.c); one it did not answer (a session that does
 *    not mirror, or a kernel too far behind) is refused the same way, never the host's log.
 *
 * Anything else continues on the host untouched.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session.h"

/* The mounts a mount(2) of tracefs / debugfs clones (O_PATH fds, opened at start-up in the
 * session's namespace), and that namespace. */
static int tracing_dir_fd = -1, debugfs_dir_fd = -1, own_mnt_ns_fd = -1;

int answer_init(void)
{
	tracing_dir_fd = open(SESSION_TRACING_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	debugfs_dir_fd = open(SESSION_DEBUGFS_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	own_mnt_ns_fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	return tracing_dir_fd < 0 || debugfs_dir_fd < 0 || own_mnt_ns_fd < 0 ? -1 : 0;
}

int respond(int listener, uint64_t id, int err, int64_t val)
{
	struct seccomp_notif_resp resp = { .id = id, .error = err ? -err : 0, .val = err ? 0 : val };

	return ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

int respond_continue(int listener, uint64_t id)
{
	struct seccomp_notif_resp resp = { .id = id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };

	return ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

ssize_t read_target_string(pid_t pid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (!addr)
		return -1;
	/* page by page: a string may end just before an unmapped page */
	while (got < size) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		struct iovec local, remote;
		ssize_t n;
		char *nul;

		if (chunk > size - got)
			chunk = size - got;
		local = (struct iovec){ buf + got, chunk };
		remote = (struct iovec){ (void *)(uintptr_t)(addr + got), chunk };
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return -1;
		nul = memchr(buf + got, '\0', n);
		if (nul)
			return nul - buf;
		got += n;
	}
	return -1;
}

/* True while the notification is still pending: what was read from the target belongs to
 * the call being answered (the thread did not die, or exec, meanwhile). */
static bool still_valid(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* Whether (pid, call) was told already: a tool probing a feature retries it many times,
 * and the line is said once.  A small ring of the latest pairs is enough for that. */
static bool told_before(pid_t pid, const char *call)
{
	static struct { pid_t pid; const char *call; } told[64];
	static unsigned int next;

	for (unsigned int i = 0; i < 64; i++)
		if (told[i].pid == pid && told[i].call == call)
			return true;
	told[next].pid = pid;
	told[next].call = call;
	next = (next + 1) % 64;
	return false;
}

/* One line on the caller's stderr, before its own error message. */
static void tell_caller(pid_t pid, const char *call, const char *why)
{
	char path[64], line[512];
	int fd, len;

	if (told_before(pid, call))
		return;
	snprintf(path, sizeof(path), "/proc/%d/fd/2", (int)pid);
	fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "tracefs-sim: %s() refused: %s\n", call, why);
	if (write(fd, line, len) < 0) {
		/* nothing more to do: the caller still gets the errno */
	}
	close(fd);
}

/*
 * Run op(arg) in the mount namespace of `pid` (a session process may have unshared its own);
 * returns its result (0 or an errno).  setns() of a mount namespace needs a single-threaded
 * caller, which the supervisor is not: a namespace other than its own gets a child process.
 */
static int in_mount_ns_of(pid_t pid, int (*op)(void *), void *arg)
{
	char ns_path[64];
	struct stat theirs, ours;
	pid_t child;
	int status, ns_fd;

	snprintf(ns_path, sizeof(ns_path), "/proc/%d/ns/mnt", (int)pid);
	if (stat(ns_path, &theirs) < 0 || fstat(own_mnt_ns_fd, &ours) < 0)
		return errno;
	if (theirs.st_ino == ours.st_ino && theirs.st_dev == ours.st_dev)
		return op(arg);
	ns_fd = open(ns_path, O_RDONLY | O_CLOEXEC);
	if (ns_fd < 0)
		return errno;
	child = fork();
	if (child == 0)
		_exit(setns(ns_fd, CLONE_NEWNS) < 0 ? errno : op(arg));
	close(ns_fd);
	if (child < 0 || waitpid(child, &status, __WALL) != child)
		return EAGAIN;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EAGAIN;
}

struct attach {
	int tree;		/* the detached clone to attach */
	const char *where;	/* the target, as /proc/PID/{root,cwd}/... */
};

static int attach_tree(void *arg)
{
	const struct attach *a = arg;
	int target = open(a->where, O_PATH | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (target < 0)
		return errno;
	if (move_mount(a->tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		err = errno;
	close(target);
	return err;
}

/* The target path of a call, as the caller sees it (its own root and working directory). */
static void caller_path(pid_t pid, const char *path, char *where, size_t size)
{
	snprintf(where, size, "/proc/%d/%s/%s", (int)pid, path[0] == '/' ? "root" : "cwd", path);
}

/*
 * mount(source, target, fstype, flags, data) of tracefs/debugfs: the session's mount of the
 * simulator (or of its debugfs stand-in, recursively) cloned onto target.  Remounts, binds
 * and moves carry no filesystem type of their own: they continue on the host, inside the
 * session's private mount namespace.
 */
static bool answer_mount(int listener, const struct seccomp_notif *req)
{
	const __u64 *arg = req->data.args;
	char fstype[32], target[PATH_MAX], where[PATH_MAX + 64];
	struct attach a = { .tree = -1, .where = where };
	int err = 0;
	bool debugfs;

	if (read_target_string(req->pid, arg[2], fstype, sizeof(fstype)) < 0)
		return false;
	if (strcmp(fstype, "tracefs") && strcmp(fstype, "debugfs"))
		return false;
	if (arg[3] & (MS_REMOUNT | MS_BIND | MS_MOVE | MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE))
		return false;
	debugfs = !strcmp(fstype, "debugfs");
	if (read_target_string(req->pid, arg[1], target, sizeof(target)) < 0) {
		err = EFAULT;
		goto answer;
	}
	if (!still_valid(listener, req->id))
		return true;
	caller_path(req->pid, target, where, sizeof(where));
	a.tree = open_tree(debugfs ? debugfs_dir_fd : tracing_dir_fd, "",
			   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | (debugfs ? AT_RECURSIVE : 0));
	err = a.tree < 0 ? errno : in_mount_ns_of(req->pid, attach_tree, &a);
	if (a.tree >= 0)
		close(a.tree);
answer:
	respond(listener, req->id, err, 0);
	return true;
}

struct detach {
	const char *where;
	int flags;
};

static int detach_tree(void *arg)
{
	const struct detach *d = arg;

	return umount2(d->where, MNT_DETACH | d->flags) < 0 ? errno : 0;
}

/*
 * umount2(target, flags) of a debugfs mount answered above: it holds the simulator's
 * tracing/ (and kprobes/) mounted inside, as debugfs holds its automounted tracefs, which
 * would make a plain unmount EBUSY; unmounted here with everything under it, as the whole
 * that mount(2) made.  Any other unmount continues on the host, in the session's namespace.
 */
static bool answer_umount(int listener, const struct seccomp_notif *req)
{
	char target[PATH_MAX], where[PATH_MAX + 64];
	struct detach d = { .where = where, .flags = req->data.args[1] & UMOUNT_NOFOLLOW };
	struct stat st, debugfs;

	if (read_target_string(req->pid, req->data.args[0], target, sizeof(target)) < 0)
		return false;
	caller_path(req->pid, target, where, sizeof(where));
	/* a clone of the debugfs stand-in shares its superblock, hence its device */
	if (stat(where, &st) < 0 || fstat(debugfs_dir_fd, &debugfs) < 0 || st.st_dev != debugfs.st_dev)
		return false;
	if (!still_valid(listener, req->id))
		return true;
	respond(listener, req->id, in_mount_ns_of(req->pid, detach_tree, &d), 0);
	return true;
}

/* fsopen(fsname, flags): the new mount API is not served for the simulator's types. */
static bool answer_fsopen(int listener, const struct seccomp_notif *req)
{
	char fsname[32];

	if (read_target_string(req->pid, req->data.args[0], fsname, sizeof(fsname)) < 0)
		return false;
	if (strcmp(fsname, "tracefs") && strcmp(fsname, "debugfs"))
		return false;
	respond(listener, req->id, ENOSYS, 0);
	return true;
}

static bool refuse(int listener, const struct seccomp_notif *req, const char *call, const char *why)
{
	tell_caller(req->pid, call, why);
	respond(listener, req->id, ENOSYS, 0);
	return true;
}

static bool answered_here(long nr)
{
	switch (nr) {
	case __NR_mount: case __NR_umount2: case __NR_fsopen: case __NR_perf_event_open: case __NR_bpf:
	case __NR_init_module: case __NR_finit_module: case __NR_delete_module: case __NR_syslog:
		return true;
	default:
		return false;
	}
}

/* Whether a task of the namespace waits for the supervisor in one of the calls answered here
 * (/proc/TID/syscall of the tasks whose wait channel is seccomp's). */
static bool refusable_call_waiting(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;
	bool found = false;

	while (proc && !found && (p = readdir(proc))) {
		char wchan[64], syscall_line[256];
		pid_t tid;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		tid = (pid_t)atoi(p->d_name);
		if (read_proc(tid, "wchan", wchan, sizeof(wchan)) <= 0 || !strstr(wchan, "seccomp"))
			continue;
		found = read_proc(tid, "syscall", syscall_line, sizeof(syscall_line)) > 0 &&
			answered_here(strtol(syscall_line, NULL, 10));
	}
	if (proc)
		closedir(proc);
	return found;
}

#define ABANDONED_WINDOW 64

void answer_abandoned(int listener, struct in_flight *in_flight)
{
	uint64_t last = 0;
	bool refuse;

	/* the ones they were answering: known */
	for (int r = 0; r < SUPERVISOR_RECEIVERS; r++) {
		uint64_t id = in_flight[r].id;

		if (__atomic_load_n(&in_flight[r].busy, __ATOMIC_ACQUIRE) && still_valid(listener, id)) {
			if (answered_here(in_flight[r].nr))
				respond(listener, id, ENOSYS, 0);	/* its arguments went with the supervisor */
			else
				respond_continue(listener, id);
		}
		last = id > last ? id : last;
	}
	/* ones received as it died: ids count up, and the receivers take them in turn, so they are
	 * near the newest a receiver stored; those left are sent (ID_VALID says so of no other).
	 * Their numbers are unknown: if a call that must never reach the host waits, they are all
	 * refused, else they go on. */
	refuse = refusable_call_waiting();
	for (uint64_t id = last > ABANDONED_WINDOW ? last - ABANDONED_WINDOW : 1; id != last + 1 + ABANDONED_WINDOW; id++)
		if (still_valid(listener, id))
			refuse ? respond(listener, id, ENOSYS, 0) : respond_continue(listener, id);
}

bool answer_notification(int listener, const struct seccomp_notif *req)
{
	switch (req->data.nr) {
	case __NR_mount:
		return answer_mount(listener, req);
	case __NR_umount2:
		return answer_umount(listener, req);
	case __NR_fsopen:
		return answer_fsopen(listener, req);
	case __NR_perf_event_open:
		return refuse(listener, req, "perf_event_open",
			      "the emulated kernel did not serve this call (a session without mirroring, "
			      "or a kernel too far behind), and a session never opens perf events on the host kernel");
	case __NR_bpf:
		return refuse(listener, req, "bpf",
			      "the emulated kernel did not serve this call (a session without mirroring, "
			      "or a kernel too far behind), and a session never loads programs into the host kernel");
	case __NR_init_module:
	case __NR_finit_module:
	case __NR_delete_module:
		return refuse(listener, req, req->data.nr == __NR_delete_module ? "delete_module" : "init_module",
			      "the emulated kernel has no loadable modules, and a session never loads "
			      "them into the host kernel");
	case __NR_syslog:
		return refuse(listener, req, "syslog",
			      "the emulated kernel did not answer (its log is read in a mirrored "
			      "session), and a session never reads the host kernel's");
	default:
		return false;
	}
}
