/*
 * The mirror: what the session's processes do, written into the emulated kernel's session
 * ring (kernel_model/include/uapi/session_ring.h, kernel_model/kernel/session.c), where they
 * are tasks whose system calls enter that kernel.
 *
 * For every notification the supervisor takes (supervisor.c), in this order:
 *  1. what happened to the task since its last call: a task never seen before (NEW_TASK, with
 *     its tgid, parent and the clone that made it), the children its last clone made, the
 *     outcome of its last execve (EXEC); after a successful exec's EXEC and a root's NEW_TASK,
 *     its address space (MAPS, from /proc/PID/maps);
 *  2. the call itself (SYSCALL): its number, arguments and the bytes behind its pointer
 *     arguments (syscall_args.h, generated from the kernel's syscall table), read from the
 *     caller's memory and written before the call is answered: whatever the call then does
 *     (open a tracefs file, whose daemon waits for the kernel to have done every record
 *     written before) finds it in the ring.  The filter's waits are killable once the
 *     supervisor took the notification (WAIT_KILLABLE_RECV): only a death can cancel the call;
 *     its EXIT record follows;
 *  3. a thread of its own watches each process's pidfd: a process that ends without exit(2)
 *     or exit_group(2) (a signal) gets an EXIT record per task.
 * A full ring is waited for while the kernel takes records off it (see produce()); a record is
 * counted as lost only when the kernel stalled.  The project's
 * own tools (`tracefs-sim exec` and the like, --helper paths) are tasks of the kernel too,
 * but their calls are not mirrored, only their end.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "session_ring.h"

struct arg_rule {
	unsigned char kind;
	signed char len_arg;
	unsigned short size;
};
/* What is behind a pointer argument (gen_syscall_args.py says which, per argument) */
enum {
	ARG_NONE,
	ARG_STR,	/* a NUL-terminated string */
	ARG_BUF_IN,	/* the length argument's bytes plus `size` (msgsnd's mtype), read */
	ARG_STRUCT_IN,	/* `size` bytes, read or written */
	ARG_STRV,	/* argv, envp */
	ARG_OUT,	/* written: the length argument's bytes, or `size` */
	ARG_ARRAY_IN,	/* the length argument's count of `size`-byte elements, read (and maybe
			 * written back: poll's revents) */
	ARG_ARRAY_OUT,	/* ... written */
	ARG_SIZED_IN,	/* a struct whose first u32 is its size (`size` when 0), read */
	ARG_OUT_PAGES,	/* one byte per page of the length argument's bytes, written (mincore) */
	ARG_IOV,	/* the length argument's count of struct iovec, whose buffers the kernel
			 * reads or writes in its output window (readv, writev) */
};
#include "syscall_args.h"

#define CLONE_VFORK 0x00004000
#define CLONE_THREAD 0x00010000
#define BUF_IN_MAX 256		/* of a buffer the call reads (write's data): the start */
#define STRV_MAX 2048		/* of argv/envp */
#define ARRAY_IN_MAX 2048	/* of an array the call reads (poll's fds): a longer one is not
				 * copied (the kernel's copy of the host's address faults) */
#define SIZED_IN_MAX 512	/* of a struct of its own size (sched_attr): its start */

/* A task of the session, as the supervisor knows it. */
struct known {
	struct known *next;
	pid_t tid, tgid;
	bool helper;		/* one of the project's tools: its calls are not mirrored */
	bool exited;		/* it made exit/exit_group: no EXIT record when its process ends */
	bool unannounced;	/* its NEW_TASK record was lost: the kernel has no task for its calls */
	bool clone_pending;	/* its last call was a clone: look for the child at its next one */
	bool clone_thread;	/* ... of a thread */
	bool threaded;		/* (a process's first task) it had other threads: an exec by one of
				 * them goes on under this tid (de_thread), where no outcome was looked
				 * for, so its exec_marks may be an older image's */
	bool exec_pending;	/* its last call was an execve: its outcome goes before its next */
	char *exec_path;	/* the file its pending execve names (looked at only if it fails) */
	int syscall_fd;		/* its /proc/TID/syscall, kept open once it returned from a signal
				 * handler (-1: not open): read again at each rt_sigreturn */
	unsigned long long exec_marks[2];	/* its image's start_code, start_brk (from the stat
						 * read when it was met, or after its last exec:
						 * only an exec changes them; see threaded) */
};

#define BUCKETS 4096
static struct known *known_tasks[BUCKETS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct session_ring *ring;
static int doorbell_fd = -1, exits_epoll = -1;
static struct stat helpers[16];	/* the project's tools (--helper) */
static int nr_helpers;

/* ---- the ring ---- */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The doorbell (an eventfd the machine turns into the kernel's interrupt) is rung when the
 * kernel said it waits for records, but at most once per BELL_GAP_NS while calls flow: a
 * record that comes sooner waits for the bell thread, and the kernel takes the batch.  So a
 * tight loop of calls costs the host one wake-up of the machine per gap, not one per call.
 * Records someone waits for (a served call, the fd its process got) ring at once.
 */
#define BELL_GAP_NS 100000ULL
static unsigned long long last_rung;
static bool bell_late;		/* a record waits for the bell thread */
static pthread_cond_t bell_cond = PTHREAD_COND_INITIALIZER;

/* Under lock. */
static void ring_bell(void)
{
	ring->consumer_waiting = 0;
	last_rung = now_ns();
	eventfd_write(doorbell_fd, 1);
}

/* Under lock: whether a record of `len` bytes fits in the ring now. */
static bool fits(unsigned long long len)
{
	unsigned long long head = ring->head, size = SESSION_RING_DATA_SIZE;
	unsigned long long off = head % size, pad = off + len > size ? size - off : 0;

	return head + pad + len - __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE) <= size;
}

/*
 * Under lock: wait until a record of `len` bytes fits, as long as the kernel takes records
 * (its tail moves): a burst of calls the kernel replays slower than the host makes them then
 * costs the callers time, at the kernel's pace, instead of calls.  The kernel taking none for
 * RING_STALL_NS (a paused or stopped machine) ends the wait, and none is waited for again until
 * the ring had room: a stalled kernel costs the session one wait, not one a call.  The lock is
 * kept: the other supervisor threads' records come after this one, in the order of the calls.
 */
#define RING_STALL_NS (1000 * 1000000ULL)
static bool ring_stalled;

static bool wait_for_room(unsigned long long len)
{
	const struct timespec pause = { 0, 20000 };
	unsigned long long tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE), moved = now_ns();

	if (fits(len)) {
		ring_stalled = false;
		return true;
	}
	while (!ring_stalled && !fits(len)) {
		unsigned long long now;

		if (__atomic_load_n(&ring->consumer_waiting, __ATOMIC_SEQ_CST))
			ring_bell();	/* (the bell thread waits for the lock) */
		nanosleep(&pause, NULL);
		now = now_ns();
		if (__atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE) != tail) {
			tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
			moved = now;
		} else if (now - moved >= RING_STALL_NS) {
			ring_stalled = true;
		}
	}
	return fits(len);
}

/* Under lock: append a record (rec->len set, a multiple of 8); counts it lost when it does not
 * fit (wait_for_room()). */
static bool produce(const struct session_record *rec)
{
	unsigned long long head = ring->head, size = SESSION_RING_DATA_SIZE;
	unsigned long long off = head % size, pad = off + rec->len > size ? size - off : 0;

	if (!wait_for_room(rec->len)) {
		ring->lost++;
		return false;
	}
	if (pad) {
		struct session_record *p = (void *)&ring->data[off];

		p->type = SESSION_REC_PAD;
		head += pad;
		off = 0;
	}
	memcpy(&ring->data[off], rec, rec->len);
	ring->produced++;
	__atomic_store_n(&ring->head, head + rec->len, __ATOMIC_RELEASE);
	/* the kernel sets consumer_waiting, then looks at head: the one who looks last sees */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ring->consumer_waiting, __ATOMIC_SEQ_CST)) {
		bool urgent = rec->type == SESSION_REC_FD ||
			      (rec->type == SESSION_REC_SYSCALL && (rec->sc.flags & SESSION_SC_SERVE));

		if (urgent || now_ns() - last_rung >= BELL_GAP_NS)
			ring_bell();
		else if (!bell_late) {
			bell_late = true;
			pthread_cond_signal(&bell_cond);
		}
	}
	return true;
}

/* The bell thread: rings for the records that came too soon after the last ring. */
static void *ring_late(void *unused __attribute__((unused)))
{
	pthread_mutex_lock(&lock);
	for (;;) {
		unsigned long long wait;
		struct timespec ts;

		while (!bell_late)
			pthread_cond_wait(&bell_cond, &lock);
		wait = last_rung + BELL_GAP_NS - now_ns();
		if (wait <= BELL_GAP_NS) {	/* (else the gap is over already) */
			pthread_mutex_unlock(&lock);
			ts.tv_sec = 0;
			ts.tv_nsec = wait;
			nanosleep(&ts, NULL);
			pthread_mutex_lock(&lock);
		}
		bell_late = false;
		if (__atomic_load_n(&ring->consumer_waiting, __ATOMIC_SEQ_CST))
			ring_bell();
	}
	return NULL;
}

/* ---- what the supervisor knows of the session's tasks (under lock) ---- */

static struct known *find(pid_t tid)
{
	struct known *k;

	for (k = known_tasks[(unsigned int)tid % BUCKETS]; k; k = k->next)
		if (k->tid == tid)
			return k;
	return NULL;
}

static void drop(struct known *k)
{
	free(k->exec_path);
	if (k->syscall_fd >= 0)
		close(k->syscall_fd);
	free(k);
}

static void forget(pid_t tid)
{
	struct known **p = &known_tasks[(unsigned int)tid % BUCKETS], *k;

	for (; (k = *p); p = &k->next)
		if (k->tid == tid) {
			*p = k->next;
			drop(k);
			return;
		}
}

ssize_t read_proc(pid_t tid, const char *what, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static int status_field(const char *status, const char *name)
{
	const char *p = strstr(status, name);

	return p ? atoi(p + strlen(name)) : 0;
}

/* Fields of /proc/TID/stat after the comm: number `n` (as proc(5) numbers them, 3 = state). */
static unsigned long long stat_field(const char *stat, int n)
{
	const char *p = strrchr(stat, ')');
	int i;

	if (!p)
		return 0;
	for (i = 2; i < n && p; i++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* The comm in /proc/TID/stat (as the kernel has it: not escaped), into comm[16]; false if none. */
static bool stat_comm(const char *stat, char comm[16])
{
	const char *open = strchr(stat, '('), *close = strrchr(stat, ')');
	size_t n;

	if (!open || !close || close < open)
		return false;
	n = close - (open + 1);
	memcpy(comm, open + 1, n < 15 ? n : 15);
	return true;
}

static void watch_exit(pid_t tgid)
{
	int fd = pidfd_open(tgid, 0);
	struct epoll_event ev = { .events = EPOLLIN };

	if (fd < 0)
		return;
	ev.data.u64 = (unsigned long long)(unsigned int)tgid << 32 | (unsigned int)fd;
	if (epoll_ctl(exits_epoll, EPOLL_CTL_ADD, fd, &ev) < 0)
		close(fd);
}

/* Append `len` bytes to a record being built in `buf` (SESSION_RECORD_MAX), padded to 8. */
static bool append(struct session_record *rec, const void *data, size_t len)
{
	size_t at = rec->len, padded = (len + 7) & ~7UL;

	if (at + padded > SESSION_RECORD_MAX)
		return false;
	memset((char *)rec + at, 0, padded);
	memcpy((char *)rec + at, data, len);
	rec->len = at + padded;
	return true;
}

/* A process without a parent in the session: its cwd, resource limits and fds, for the
 * kernel's copy (which would otherwise start with init's limits). */
static void describe_start(pid_t tid, struct session_record *rec)
{
	char path[64], target[PATH_MAX], info[512];
	struct dirent *d;
	ssize_t n;
	DIR *dir;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)tid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0 || n > 1024)
		n = 0;
	target[n] = 0;
	if (!append(rec, target, n + 1))
		return;
	rec->task.cwd_len = n + 1;
	for (r = 0; r < RLIMIT_NLIMITS; r++) {
		struct rlimit64 lim;
		struct session_rlimit l;

		if (prlimit64(tid, r, NULL, &lim))
			break;	/* (the process is gone: the kernel keeps what it got) */
		l.cur = lim.rlim_cur;
		l.max = lim.rlim_max;
		if (!append(rec, &l, sizeof(l)))
			return;
		rec->task.nr_rlimits++;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)tid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		struct session_fd f = { 0 };
		size_t before = rec->len;
		char *p;

		if (d->d_name[0] == '.')
			continue;
		f.fd = atoi(d->d_name);
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, f.fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0 || n > 1024)
			n = 0;
		target[n] = 0;
		snprintf(path, sizeof(path), "fdinfo/%d", f.fd);
		if (read_proc(tid, path, info, sizeof(info)) < 0)
			continue;
		p = strstr(info, "pos:");
		f.pos = p ? strtoll(p + 4, NULL, 10) : 0;
		p = strstr(info, "flags:");
		f.flags = p ? strtoul(p + 6, NULL, 8) : 0;
		f.path_len = n + 1;
		if (!append(rec, &f, sizeof(f)) || !append(rec, target, n + 1)) {
			rec->len = before;
			break;
		}
		rec->task.nr_fds++;
	}
	closedir(dir);
}

/*
 * The process's address space as the host laid it out (/proc/PID/maps), for the kernel's VMAs
 * of its task: MAPS records, as many as its VMAs need (each VMA with its name; a record holds
 * what fits in SESSION_RECORD_MAX, about 50 VMAs of libraries; SESSION_MAPS_MAX_VMAS in all,
 * the rest left out and said so).  Read while the process is stopped in the call the
 * supervisor was notified of: after an exec, that is its first call, before it mapped anything
 * itself.
 */
struct vma_line {
	struct session_vma v;
	char *name;
};

struct vma_list {
	struct vma_line *vmas;
	size_t nr, cap;
	unsigned long long stack;	/* [stack]'s start */
	struct session_record *rec;	/* (its maps: brk, truncated) */
};

static void produce_maps(struct session_record *rec, const struct vma_line *vmas, size_t nr)
{
	size_t i = 0, part = 0;

	do {
		rec->len = sizeof(*rec);
		rec->ts = now_ns();
		rec->maps.nr = 0;
		rec->maps.part = part++;
		for (; i < nr; i++) {
			size_t before = rec->len;

			if (!append(rec, &vmas[i].v, sizeof(vmas[i].v)) ||
			    (vmas[i].v.path_len && !append(rec, vmas[i].name, vmas[i].v.path_len))) {
				rec->len = before;
				break;
			}
			rec->maps.nr++;
		}
		produce(rec);
	} while (i < nr);
}

/* A VMA of the list (l->v: its range, pgoff and R/W/X/S bits; `file`: it maps an inode), named
 * `name` as maps names it ("" for none); false when no memory is left. */
static bool add_vma(struct vma_list *list, struct vma_line l, bool file, const char *name)
{
	size_t len = strlen(name);

	if (file)
		l.v.flags |= SESSION_VMA_FILE;
	if (!strcmp(name, "[stack]")) {
		l.v.flags |= SESSION_VMA_STACK;
		list->stack = l.v.start;
	} else if (!strcmp(name, "[heap]")) {
		l.v.flags |= SESSION_VMA_HEAP;
		list->rec->maps.brk = l.v.end;
	} else if (name[0] == '[') {
		l.v.flags |= SESSION_VMA_SPECIAL;
	}
	if (list->nr == SESSION_MAPS_MAX_VMAS) {
		list->rec->maps.truncated = 1;
		return true;
	}
	if (list->nr == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 64;
		struct vma_line *more = realloc(list->vmas, cap * sizeof(*more));

		if (!more)
			return false;
		list->vmas = more;
		list->cap = cap;
	}
	l.v.path_len = len && len < 1024 ? len + 1 : 0;
	l.name = l.v.path_len ? strdup(name) : NULL;
	if (l.v.path_len && !l.name)
		l.v.path_len = 0;
	list->vmas[list->nr++] = l;
	return true;
}

/* PROCMAP_QUERY (Linux 6.11, uapi/linux/fs.h; newer than Debian 12's headers): the VMA at or
 * after an address, from an ioctl on /proc/PID/maps, without the text: a VMA costs ~0.6 us
 * where a line of the text costs ~1.2 to make and parse. */
struct procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY _IOWR(0x66, 17, struct procmap_query)
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA 0x10
/* its vma_flags are SESSION_VMA_READ, WRITE, EXEC and SHARED's bits */

/* The VMAs by PROCMAP_QUERY; false when the host has no such ioctl (nothing listed). */
static bool list_vmas_by_query(int fd, struct vma_list *list)
{
	char name[PATH_MAX];
	unsigned long long addr = 0;

	for (;;) {
		struct procmap_query q = {
			.size = sizeof(q), .query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA, .query_addr = addr,
			.vma_name_size = sizeof(name), .vma_name_addr = (uintptr_t)name,
		};

		int err = ioctl(fd, PROCMAP_QUERY, &q) < 0 ? errno : 0;

		if (err == ENAMETOOLONG) {	/* (a name too long for a record anyway) */
			q.vma_name_size = 0;
			q.vma_name_addr = 0;
			err = ioctl(fd, PROCMAP_QUERY, &q) < 0 ? errno : 0;
		}
		if (err)	/* ENOENT: past the last VMA; ENOTTY: no such ioctl */
			return addr || (err != ENOTTY && err != EINVAL);
		if (!q.vma_name_size)
			name[0] = 0;
		addr = q.vma_end;
		if (!add_vma(list, (struct vma_line){ .v = { .start = q.vma_start, .end = q.vma_end,
							      .pgoff = q.vma_offset >> 12, .flags = q.vma_flags & 0xf } },
			     q.inode != 0, name))
			return true;
	}
}

/* The VMAs by maps' text (a host without PROCMAP_QUERY). */
static void list_vmas_by_text(int fd, struct vma_list *list)
{
	FILE *f = fdopen(dup(fd), "re");
	char *line = NULL;
	size_t line_cap = 0;

	while (f && getline(&line, &line_cap, f) > 0) {
		struct vma_line l = { .name = NULL };
		char perms[8] = "";
		unsigned long long off, ino;
		int name_at = 0;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu %n", &l.v.start, &l.v.end, perms, &off, &ino,
			   &name_at) < 5 || l.v.end > (1ULL << 47))
			continue;	/* [vsyscall]: not in the task's range */
		l.v.pgoff = off >> 12;
		l.v.flags = (perms[0] == 'r' ? SESSION_VMA_READ : 0) | (perms[1] == 'w' ? SESSION_VMA_WRITE : 0) |
			    (perms[2] == 'x' ? SESSION_VMA_EXEC : 0) | (perms[3] == 's' ? SESSION_VMA_SHARED : 0);
		if (!add_vma(list, l, ino != 0, name_at ? line + name_at : ""))
			break;
	}
	free(line);
	if (f)
		fclose(f);
}

static void describe_maps(pid_t tid, bool exec, const char *stat_now)
{
	union {
		struct session_record rec;
		char bytes[SESSION_RECORD_MAX];
	} u = { .rec = { .type = SESSION_REC_MAPS, .tid = tid } };
	struct session_record *rec = &u.rec;
	struct vma_list list = { .rec = rec };
	char path[64], stat[1024];
	const char *st = stat_now;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!list_vmas_by_query(fd, &list))
		list_vmas_by_text(fd, &list);
	close(fd);
	if (!list.vmas)
		return;
	if (!st && read_proc(tid, "stat", stat, sizeof(stat)) > 0)
		st = stat;
	if (st) {
		rec->maps.start_brk = stat_field(st, 47);
		rec->maps.start_stack = stat_field(st, 28);
	}
	if (!rec->maps.brk || rec->maps.brk < rec->maps.start_brk)
		rec->maps.brk = rec->maps.start_brk;
	for (i = 0; i < list.nr; i++)	/* top-down mmap starts above the highest mapping below the stack */
		if (list.vmas[i].v.end <= list.stack && !(list.vmas[i].v.flags & SESSION_VMA_STACK) &&
		    list.vmas[i].v.end > rec->maps.mmap_base)
			rec->maps.mmap_base = list.vmas[i].v.end;
	rec->maps.exec = exec;
	produce_maps(rec, list.vmas, list.nr);
	for (i = 0; i < list.nr; i++)
		free(list.vmas[i].name);
	free(list.vmas);
}

/* What an exec changes (startcode, start_brk: ASLR moves a new image's code and heap), from a
 * /proc/TID/stat read. */
static void exec_marks(const char *stat, unsigned long long marks[2])
{
	marks[0] = stat_field(stat, 26);	/* startcode */
	marks[1] = stat_field(stat, 47);	/* start_brk */
}

/* A task seen for the first time: known, and announced to the kernel. */
static struct known *meet(pid_t tid, pid_t creator)
{
	union {
		struct session_record rec;
		char bytes[SESSION_RECORD_MAX];
	} u = { .rec = { .type = SESSION_REC_NEW_TASK, .tid = tid } };
	struct session_record *rec = &u.rec;
	struct known *k, *parent;
	char status[2048], stat[1024], *after;
	pid_t ppid;

	/* stat has all but the tgid, which a task alone in its process does not need: status,
	 * twice the cost, only for a task with other threads */
	if (read_proc(tid, "stat", stat, sizeof(stat)) < 0 || !(after = strrchr(stat, ')')))
		return NULL;
	/* A task that already ended (a zombie child a parent's clone lists) is not announced: if
	 * it made a call, it was met then and forgotten when its process ended (process_ended()),
	 * and a second NEW_TASK would ask the kernel for a second task of a tid it still has; if
	 * it made none, the kernel has nothing of it to replay. */
	if (after[1] == ' ' && (after[2] == 'Z' || after[2] == 'X'))
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->tid = tid;
	k->tgid = tid;
	k->syscall_fd = -1;
	exec_marks(stat, k->exec_marks);
	ppid = stat_field(stat, 4);
	if (stat_field(stat, 20) > 1 && read_proc(tid, "status", status, sizeof(status)) > 0 &&
	    status_field(status, "\nTgid:"))
		k->tgid = status_field(status, "\nTgid:");
	parent = k->tgid != tid ? find(k->tgid) : find(ppid);
	if (k->tgid != tid && parent)
		parent->threaded = true;
	k->helper = parent && parent->helper;
	k->next = known_tasks[(unsigned int)tid % BUCKETS];
	known_tasks[(unsigned int)tid % BUCKETS] = k;
	if (k->tgid == tid) {
		watch_exit(tid);
		if (parent)
			serve_fork(parent->tgid, tid);	/* (a fork copies the fd table) */
	}

	rec->len = sizeof(*rec);
	rec->ts = now_ns();
	rec->task.tgid = k->tgid;
	rec->task.ppid = find(ppid) ? ppid : 0;
	rec->task.creator = creator ? creator : (parent ? parent->tid : 0);
	rec->task.helper = k->helper;
	sscanf(after, ") %*c %*d %d %d %u", &rec->task.pgid, &rec->task.sid, &rec->task.tty);
	stat_comm(stat, rec->task.comm);
	if (!rec->task.ppid && !rec->task.creator && k->tgid == tid && !k->helper) {
		describe_start(tid, rec);
		k->unannounced = !produce(rec);
		if (!k->unannounced)
			describe_maps(tid, false, NULL);	/* a root: the address space it came with */
		return k;
	}
	k->unannounced = !produce(rec);
	return k;
}

/* The children (or threads) the task's last clone made, not met yet. */
static void meet_children(struct known *k)
{
	char path[96];
	DIR *dir;
	struct dirent *e;

	k->clone_pending = false;
	if (k->clone_thread) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)k->tgid);
		dir = opendir(path);
		while (dir && (e = readdir(dir))) {
			pid_t tid = atoi(e->d_name);

			if (tid > 0 && !find(tid))
				meet(tid, k->tid);
		}
		if (dir)
			closedir(dir);
		return;
	}
	{
		char children[4096], *p = children;

		snprintf(path, sizeof(path), "task/%d/children", (int)k->tid);
		if (read_proc(k->tgid, path, children, sizeof(children)) <= 0)
			return;
		while (*p) {
			pid_t child = strtol(p, &p, 10);

			if (child <= 0)
				break;
			if (!find(child))
				meet(child, k->tid);
		}
	}
}

/* What the task's execve of `path` failed with: the file's absence or permissions (access()
 * fails with what a lookup fails with, or EACCES when the file is there but not executable).
 * Looked at once the exec failed, which most do not: the file is as the exec found it. */
static int exec_error(pid_t pid, const char *path)
{
	char where[PATH_MAX + 64];

	if (!path)
		return ENOMEM;
	snprintf(where, sizeof(where), "/proc/%d/%s/%s", (int)pid, path[0] == '/' ? "root" : "cwd", path);
	return access(where, X_OK) < 0 ? errno : ENOEXEC;
}

/* The outcome of the task's last execve: a new image (ASLR moves its code and heap) or not. */
static void exec_outcome(struct known *k)
{
	union {
		struct session_record rec;
		char bytes[SESSION_RECORD_MAX];
	} u = { .rec = { .type = SESSION_REC_EXEC, .tid = k->tid, .len = sizeof(u.rec) } };
	struct session_record *rec = &u.rec;
	unsigned long long now[2] = { 0, 0 };
	char stat[1024];
	bool stat_read;

	k->exec_pending = false;
	stat_read = read_proc(k->tid, "stat", stat, sizeof(stat)) > 0;
	if (stat_read)
		exec_marks(stat, now);
	rec->ts = now_ns();
	if (now[0] != k->exec_marks[0] || now[1] != k->exec_marks[1]) {
		char path[64], exe[PATH_MAX];
		ssize_t n;

		rec->exec.result = 0;
		serve_exec(k->tgid);
		if (stat_read)
			stat_comm(stat, rec->exec.comm);	/* the new one */
		/* what it runs (a script's interpreter): the kernel's mm->exe_file */
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)k->tid);
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = 0;
			if (append(rec, exe, n + 1))
				rec->exec.exe_len = n + 1;
		}
	} else {
		rec->exec.result = -exec_error(k->tid, k->exec_path);
	}
	if (stat_read)	/* the marks the next execve is told by */
		memcpy(k->exec_marks, now, sizeof(now));
	produce(rec);
	if (!rec->exec.result && !k->helper)
		describe_maps(k->tid, true, stat_read ? stat : NULL);	/* the new image's */
}

/* ---- a call's record ---- */

static bool read_target(pid_t pid, unsigned long long addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

unsigned long long open_call_flags(const struct seccomp_notif *req)
{
	unsigned long long how_flags = 0;	/* struct open_how's first member */

	switch (req->data.nr) {
	case __NR_open:
		return req->data.args[1];
	case __NR_openat:
		return req->data.args[2];
	default:	/* openat2: an unreadable or short how fails the call itself */
		if (req->data.args[3] >= sizeof(how_flags))
			read_target(req->pid, req->data.args[2], &how_flags, sizeof(how_flags));
		return how_flags;
	}
}

/*
 * What an rt_sigreturn of the task returns: the rax its signal frame restores.  The frame's
 * return address was popped by the handler's `ret`, so the frame is at sp - 8; sp is in
 * /proc/TID/syscall (the task is stopped in the call), kept open: a shell returns from its
 * SIGCHLD handler once a command, and a pread of the open file costs ~1 us where an open, read
 * and close cost ~5.  x86-64's rt_sigframe: pretcode, then the
 * ucontext (uc_flags, uc_link, uc_stack: 40 bytes), whose sigcontext has rax 14th (r8..r15, rdi,
 * rsi, rbp, rbx, rdx, rax).
 */
#define SIGFRAME_RAX (8 + 40 + 13 * 8)

static bool sigreturn_ax(struct known *k, unsigned long long *ax)
{
	char buf[512];
	unsigned long long sp;
	ssize_t n = -1;

	if (k->syscall_fd < 0) {
		snprintf(buf, sizeof(buf), "/proc/%d/syscall", (int)k->tid);
		k->syscall_fd = open(buf, O_RDONLY | O_CLOEXEC);
	}
	if (k->syscall_fd >= 0)
		n = pread(k->syscall_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "NR ARG1 ... ARG6 SP PC" */
	if (sscanf(buf, "%*s %*s %*s %*s %*s %*s %*s %llx", &sp) != 1)
		return false;
	return read_target(k->tid, sp - 8 + SIGFRAME_RAX, ax, sizeof(*ax));
}

/* Append a blob to the record being built; false when it does not fit. */
static bool add_blob(struct session_record *rec, size_t room, int arg, int kind, int count,
		     const void *data, size_t len)
{
	struct session_blob *b = (void *)((char *)rec + rec->len);
	size_t need = sizeof(*b) + (kind == SESSION_BLOB_OUT ? 0 : (len + 7) / 8 * 8);

	if (rec->len + need > room)
		return false;
	b->arg = arg;
	b->kind = kind;
	b->count = count;
	b->len = len;
	if (kind != SESSION_BLOB_OUT) {
		memcpy(b + 1, data, len);
		memset((char *)(b + 1) + len, 0, need - sizeof(*b) - len);
	}
	rec->len += need;
	rec->sc.nr_blobs++;
	return true;
}

/* Up to `len` bytes at `addr`, as far as the target's memory is readable, in one
 * process_vm_readv (a page an iovec: a partial read stops at the first unreadable page);
 * the bytes read, 0 if none. */
#define READ_UPTO_PAGES 24
static size_t read_upto(pid_t pid, unsigned long long addr, void *buf, size_t len)
{
	struct iovec local[READ_UPTO_PAGES], remote[READ_UPTO_PAGES];
	size_t at = 0;
	int n = 0;
	ssize_t got;

	while (at < len && n < READ_UPTO_PAGES) {
		size_t chunk = 4096 - ((addr + at) & 4095);

		if (chunk > len - at)
			chunk = len - at;
		local[n] = (struct iovec){ (char *)buf + at, chunk };
		remote[n++] = (struct iovec){ (void *)(uintptr_t)(addr + at), chunk };
		at += chunk;
	}
	got = n ? process_vm_readv(pid, local, n, remote, n, 0) : 0;
	return got > 0 ? (size_t)got : 0;
}

/*
 * argv/envp: the strings, packed, as many as fit in STRV_MAX bytes.  An exec's vectors are
 * read in a few calls, not two a string (an envp of 40 strings cost ~100 us an exec): the
 * pointers STRV_BATCH at a time, and the strings a span of memory at a time, the span from a
 * string not read yet to the last of the vector's strings that lie within STRV_SPAN_MAX above
 * it (a process's inherited environment is on its stack side by side, the strings a shell
 * made in its heap: two spans, kept in STRV_SPANS slots).  A string a span's read did not get
 * whole is read alone.
 */
#define STRV_BATCH 256
#define STRV_SPAN_MAX (8 * 4096)
#define STRV_SPANS 4

static struct strv_span {
	unsigned long long start;
	size_t got;		/* 0: the slot is free */
	char bytes[STRV_SPAN_MAX + STRV_MAX];
} spans[STRV_SPANS];	/* (under lock: the vectors of the call being recorded) */
static unsigned int next_span;

/* The call's vectors are recorded: what was read of them is the past. */
static void strv_forget(void)
{
	for (int j = 0; j < STRV_SPANS; j++)
		spans[j].got = 0;
}

/* The string at ptrs[i] (NUL-terminated, at most `left` bytes with its NUL) copied to `to`: its
 * length, or -1 when unreadable or too long. */
static ssize_t strv_string(pid_t pid, const unsigned long long *ptrs, size_t i, size_t nr, char *to, size_t left)
{
	struct strv_span *span = NULL;
	unsigned long long ptr = ptrs[i], hi = ptr;
	size_t at, avail, j;
	char *nul;

	for (j = 0; j < STRV_SPANS && !span; j++)
		if (spans[j].got && ptr >= spans[j].start && ptr - spans[j].start < spans[j].got)
			span = &spans[j];
	if (!span) {
		for (j = i + 1; j < nr; j++)
			if (ptrs[j] > hi && ptrs[j] - ptr <= STRV_SPAN_MAX)
				hi = ptrs[j];
		span = &spans[next_span++ % STRV_SPANS];
		span->start = ptr;
		span->got = read_upto(pid, ptr, span->bytes, hi - ptr + STRV_MAX);
	}
	at = ptr - span->start;
	avail = at < span->got ? span->got - at : 0;
	if (avail > left)
		avail = left;
	nul = avail ? memchr(span->bytes + at, '\0', avail) : NULL;
	if (nul) {
		memcpy(to, span->bytes + at, nul - (span->bytes + at) + 1);
		return nul - (span->bytes + at);
	}
	if (avail == left)
		return -1;	/* longer than what is left */
	return read_target_string(pid, ptr, to, left);
}

static bool add_strv(struct session_record *rec, size_t room, pid_t pid, int arg, unsigned long long vec)
{
	unsigned long long ptrs[STRV_BATCH];
	char strings[STRV_MAX];
	size_t used = 0;
	int count = 0;
	bool more = vec != 0;

	while (more) {
		size_t nr = read_upto(pid, vec + 8 * count, ptrs, sizeof(ptrs)) / 8, i;

		more = nr == STRV_BATCH;
		for (i = 0; i < nr && ptrs[i]; i++)
			;
		if (i < nr) {
			nr = i;
			more = false;
		}
		for (i = 0; i < nr; i++) {
			ssize_t n = used < sizeof(strings) ?
				    strv_string(pid, ptrs, i, nr, strings + used, sizeof(strings) - used) : -1;

			if (n < 0) {
				more = false;
				break;
			}
			used += n + 1;
			count++;
		}
	}
	strv_forget();
	return add_blob(rec, room, arg, SESSION_BLOB_STRV, count, strings, used);
}

/*
 * The calls that add or remove names: which arguments are their paths (and directory fds), so
 * that the record says what each path named before the host's call (SESSION_SC_PRESTAT): the
 * kernel makes the call after the host did, and would see the host's result instead.
 */
struct prestat_rule { short nr; signed char dfd[2], path[2]; signed char creat_flags; };

static const struct prestat_rule prestat_rules[] = {
	{ 83, { -1, -1 }, { 0, -1 }, -1 },	/* mkdir */
	{ 258, { 0, -1 }, { 1, -1 }, -1 },	/* mkdirat */
	{ 84, { -1, -1 }, { 0, -1 }, -1 },	/* rmdir */
	{ 87, { -1, -1 }, { 0, -1 }, -1 },	/* unlink */
	{ 263, { 0, -1 }, { 1, -1 }, -1 },	/* unlinkat */
	{ 82, { -1, -1 }, { 0, 1 }, -1 },	/* rename */
	{ 264, { 0, 2 }, { 1, 3 }, -1 },	/* renameat */
	{ 316, { 0, 2 }, { 1, 3 }, -1 },	/* renameat2 */
	{ 86, { -1, -1 }, { 0, 1 }, -1 },	/* link */
	{ 265, { 0, 2 }, { 1, 3 }, -1 },	/* linkat */
	{ 88, { -1, -1 }, { 1, -1 }, -1 },	/* symlink */
	{ 266, { 1, -1 }, { 2, -1 }, -1 },	/* symlinkat */
	{ 133, { -1, -1 }, { 0, -1 }, -1 },	/* mknod */
	{ 259, { 0, -1 }, { 1, -1 }, -1 },	/* mknodat */
	{ 85, { -1, -1 }, { 0, -1 }, -1 },	/* creat */
	{ 2, { -1, -1 }, { 0, -1 }, 1 },	/* open (O_CREAT) */
	{ 257, { 0, -1 }, { 1, -1 }, 2 },	/* openat (O_CREAT) */
};

/* The st_mode `path` (relative to the task's dfd) names now, without following a last link;
 * 0 if nothing. */
static unsigned int prestat(pid_t pid, long long dfd, const char *path)
{
	char where[64];
	struct stat st;
	int dir, ret;

	if (path[0] == '/')
		snprintf(where, sizeof(where), "/proc/%d/root", (int)pid);
	else if ((int)dfd == AT_FDCWD)
		snprintf(where, sizeof(where), "/proc/%d/cwd", (int)pid);
	else
		snprintf(where, sizeof(where), "/proc/%d/fd/%d", (int)pid, (int)dfd);
	dir = open(where, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return 0;
	ret = fstatat(dir, path[0] == '/' ? path + 1 : path, &st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH);
	close(dir);
	return ret ? 0 : st.st_mode & 0xffff;
}

static void add_prestat(struct session_record *rec, pid_t pid, const unsigned long long *args)
{
	const struct prestat_rule *r = NULL;
	unsigned int i, slot;

	for (i = 0; i < sizeof(prestat_rules) / sizeof(prestat_rules[0]); i++)
		if (prestat_rules[i].nr == rec->sc.nr)
			r = &prestat_rules[i];
	if (!r || (r->creat_flags >= 0 && !(args[(int)r->creat_flags] & O_CREAT)))
		return;
	for (slot = 0; slot < 2; slot++) {
		char buf[PATH_MAX];
		unsigned int mode;

		if (r->path[slot] < 0 || !args[(int)r->path[slot]] ||
		    read_target_string(pid, args[(int)r->path[slot]], buf, sizeof(buf)) <= 0)
			continue;
		mode = prestat(pid, r->dfd[slot] < 0 ? AT_FDCWD : (long long)args[(int)r->dfd[slot]], buf);
		rec->sc.serial |= (unsigned long long)(SESSION_PRESTAT_VALID | (unsigned int)r->path[slot] << 16 | mode)
				  << (32 * slot);
	}
	if (rec->sc.serial)
		rec->sc.flags |= SESSION_SC_PRESTAT;
}

/* An OUT blob for the array or vector a call writes at `ptr`, if the process can write there
 * at all: a bad pointer is left as the host's, so that the kernel's copy faults as the host's
 * did (mincore's EFAULT).  (Its first byte is looked at; write(2)'s buffers and the like are
 * not, the hot path stays one read a call.) */
static void add_out(struct session_record *rec, size_t room, pid_t pid, int arg, unsigned long long ptr,
		    size_t len)
{
	char byte;

	if (!len || read_target(pid, ptr, &byte, 1))
		add_blob(rec, room, arg, SESSION_BLOB_OUT, 0, NULL, len);
}

/* The call's record: number, arguments, and what is behind its pointers (none for a call the
 * kernel serves: it reads and writes the caller's memory itself, serve.c). */
static void build_syscall(struct session_record *rec, size_t room, const struct seccomp_notif *req, int how)
{
	bool served = how & SERVE_CALL;
	const struct arg_rule *rules = req->data.nr < SYSCALL_ARGS_NR && !served ? syscall_args[req->data.nr] : NULL;
	int i;

	/* rseq's pointer is kept as it is (the kernel compares it at EBUSY and unregistration) */
	if (req->data.nr == __NR_rseq)
		rules = NULL;

	rec->type = SESSION_REC_SYSCALL;
	rec->tid = req->pid;
	rec->ts = now_ns();
	rec->sc.nr = req->data.nr;
	rec->sc.nr_blobs = 0;
	rec->sc.flags = (served ? SESSION_SC_SERVE : 0) | (how & SERVE_NEW_FD ? SESSION_SC_NEW_FD : 0) |
			(served && (how & SERVE_NOWAIT) ? SESSION_SC_NOWAIT : 0);
	rec->sc.serial = 0;
	for (i = 0; i < 6; i++)
		rec->sc.args[i] = req->data.args[i];
	rec->len = offsetof(struct session_record, sc) + sizeof(rec->sc);
	for (i = 0; rules && i < 6; i++) {
		unsigned long long ptr = req->data.args[i], count;
		char buf[PATH_MAX];
		size_t len;
		ssize_t n;

		if (!rules[i].kind || !ptr)
			continue;
		switch (rules[i].kind) {
		case ARG_STR:
			n = read_target_string(req->pid, ptr, buf, sizeof(buf));
			if (n >= 0)
				add_blob(rec, room, i, SESSION_BLOB_IN, 0, buf, n + 1);
			break;
		case ARG_BUF_IN:
			len = rules[i].len_arg >= 0 ? req->data.args[rules[i].len_arg] : 0;
			len = len > (size_t)BUF_IN_MAX - rules[i].size ? BUF_IN_MAX : len + rules[i].size;
			if (len && read_target(req->pid, ptr, buf, len))
				add_blob(rec, room, i, SESSION_BLOB_IN, 0, buf, len);
			break;
		case ARG_ARRAY_IN:
			count = req->data.args[rules[i].len_arg];
			if (count && count <= ARRAY_IN_MAX / rules[i].size &&
			    read_target(req->pid, ptr, buf, count * rules[i].size))
				add_blob(rec, room, i, SESSION_BLOB_IN, 0, buf, count * rules[i].size);
			break;
		case ARG_ARRAY_OUT:
			count = req->data.args[rules[i].len_arg];
			if (count <= UINT_MAX / rules[i].size)	/* (the kernel refuses a negative one) */
				add_out(rec, room, req->pid, i, ptr, count * rules[i].size);
			break;
		case ARG_SIZED_IN: {
			unsigned int size;

			if (!read_target(req->pid, ptr, &size, sizeof(size)))
				break;
			/* (one too small or too large: the kernel reads its size, and says E2BIG) */
			len = size ? size : rules[i].size;
			len = len < sizeof(size) ? sizeof(size) : len > SIZED_IN_MAX ? SIZED_IN_MAX : len;
			if (read_target(req->pid, ptr, buf, len) || read_target(req->pid, ptr, buf, len = sizeof(size)))
				add_blob(rec, room, i, SESSION_BLOB_IN, 0, buf, len);
			break;
		}
		case ARG_IOV:
			count = req->data.args[rules[i].len_arg];
			if (count && count <= ARRAY_IN_MAX / 16 && read_target(req->pid, ptr, buf, count * 16))
				add_blob(rec, room, i, SESSION_BLOB_IOV, count, buf, count * 16);
			break;
		case ARG_OUT_PAGES:
			count = (req->data.args[rules[i].len_arg] + 4095) / 4096;
			if (count <= UINT_MAX)
				add_out(rec, room, req->pid, i, ptr, count);
			break;
		case ARG_STRUCT_IN:
			if (read_target(req->pid, ptr, buf, rules[i].size))
				add_blob(rec, room, i, SESSION_BLOB_IN, 0, buf, rules[i].size);
			break;
		case ARG_STRV:
			add_strv(rec, room, req->pid, i, ptr);
			break;
		case ARG_OUT:
			len = rules[i].len_arg >= 0 ? req->data.args[rules[i].len_arg] : rules[i].size;
			add_blob(rec, room, i, SESSION_BLOB_OUT, 0, NULL, len);
			break;
		}
	}
	/* arch_prctl's ARCH_GET_FS/ARCH_GET_GS (0x1003, 0x1004) write the base at arg 1; the
	 * set options take a value there */
	if (req->data.nr == __NR_arch_prctl && !served &&
	    (req->data.args[0] == 0x1003 || req->data.args[0] == 0x1004) && req->data.args[1])
		add_blob(rec, room, 1, SESSION_BLOB_OUT, 0, NULL, 8);
	/* fcntl's record lock commands (F_GETLK, F_SETLK, F_SETLKW: 5-7; their OFD forms: 36-38)
	 * take a struct flock (32 bytes) at arg 2, an unsigned long to the syscall table */
	if (req->data.nr == __NR_fcntl && !served && req->data.args[2] &&
	    ((req->data.args[1] >= 5 && req->data.args[1] <= 7) || (req->data.args[1] >= 36 && req->data.args[1] <= 38))) {
		char flock[32];

		if (read_target(req->pid, req->data.args[2], flock, sizeof(flock)))
			add_blob(rec, room, 2, SESSION_BLOB_IN, 0, flock, sizeof(flock));
	}
	if (!served)
		add_prestat(rec, req->pid, req->data.args);
	rec->len = (rec->len + 7) / 8 * 8;
}

/*
 * Whether an open(2)/openat(2)/openat2(2) (its record built, the path in its blob) opens /dev/kmsg, which
 * the kernel then serves (serve.c): its path is "/dev/kmsg", or another whose last component
 * is "kmsg" (a link named so, openat of "kmsg" in /dev) that names the device (1:11, followed
 * as the open follows it).  Other opens cost a look at the path's end.  (What reaches the
 * device by another name is the host's open of it, which the session's nodev mount over
 * /dev/kmsg refuses: EACCES, namespace.py.)
 */
static bool opens_kmsg(const struct seccomp_notif *req, const struct session_record *rec)
{
	const struct session_blob *b = (const void *)((const char *)rec + offsetof(struct session_record, sc) +
						       sizeof(rec->sc));
	int path_arg = req->data.nr == __NR_open ? 0 : 1;
	const char *path, *last;
	char where[PATH_MAX + 64];
	struct stat st;
	size_t len;

	if (!rec->sc.nr_blobs || b->arg != path_arg || b->kind != SESSION_BLOB_IN || b->len < 5)
		return false;
	path = (const char *)(b + 1);
	len = b->len - 1;	/* (the NUL counted) */
	if (path[len] || len < 4 || memcmp(path + len - 4, "kmsg", 4))
		return false;
	if (!strcmp(path, "/dev/kmsg") || !strcmp(path, "/proc/kmsg"))
		return true;
	last = path + len - 4;
	if (last != path && last[-1] != '/')
		return false;
	if (path[0] == '/')
		snprintf(where, sizeof(where), "/proc/%d/root%s", (int)req->pid, path);
	else if (req->data.nr == __NR_open || (int)req->data.args[0] == AT_FDCWD)
		snprintf(where, sizeof(where), "/proc/%d/cwd/%s", (int)req->pid, path);
	else
		snprintf(where, sizeof(where), "/proc/%d/fd/%d/%s", (int)req->pid, (int)req->data.args[0], path);
	if ((open_call_flags(req) & O_NOFOLLOW) ? lstat(where, &st) : stat(where, &st))
		return false;
	if (S_ISCHR(st.st_mode))
		return st.st_rdev == makedev(1, 11);
	/* /proc/kmsg by another name: the file the process's /proc/kmsg is */
	{
		struct stat proc_kmsg;

		snprintf(where, sizeof(where), "/proc/%d/root/proc/kmsg", (int)req->pid);
		return S_ISREG(st.st_mode) && !stat(where, &proc_kmsg) &&
		       st.st_dev == proc_kmsg.st_dev && st.st_ino == proc_kmsg.st_ino;
	}
}

/* Whether `path`, as the task sees it, is one of the project's tools (the same file: one
 * stat, where a realpath() costs a call a component). */
static bool is_helper(pid_t pid, const char *path)
{
	char where[PATH_MAX + 64];
	struct stat st;
	int i;

	if (!nr_helpers)
		return false;
	snprintf(where, sizeof(where), "/proc/%d/%s/%s", (int)pid, path[0] == '/' ? "root" : "cwd", path);
	if (stat(where, &st) < 0)
		return false;
	for (i = 0; i < nr_helpers; i++)
		if (st.st_dev == helpers[i].st_dev && st.st_ino == helpers[i].st_ino)
			return true;
	return false;
}

/* Before the call is answered: what happened since the task's last call, and the call's
 * record (built in `rec`, room bytes). */
unsigned long long mirror_call(const struct seccomp_notif *req, struct session_record *rec, size_t room,
			       int *how, pid_t *tgid)
{
	static unsigned long long serials;
	unsigned long long served = 0;
	struct known *k;
	long nr = req->data.nr;
	bool produced;

	*how = 0;
	*tgid = req->pid;
	if (!ring)
		return 0;
	pthread_mutex_lock(&lock);
	k = find(req->pid);
	if (!k)
		k = meet(req->pid, 0);
	if (!k)
		goto out;
	if (k->clone_pending)
		meet_children(k);
	if (k->exec_pending)
		exec_outcome(k);
	if (k->helper && nr != __NR_exit && nr != __NR_exit_group)
		goto out;
	if (k->unannounced) {	/* (its records would wait in the kernel for ever) */
		ring->lost++;
		goto out;
	}
	*tgid = k->tgid;
	*how = serve_wanted(req, k->tgid);
	if (*how & SERVE_DEFER)	/* a /dev/kmsg read held until the log has a record for it */
		goto out;
	build_syscall(rec, room, req, *how);
	if ((nr == __NR_open || nr == __NR_openat || nr == __NR_openat2) && !*how && opens_kmsg(req, rec) &&
	    (*how = serve_kmsg_open()))
		build_syscall(rec, room, req, *how);
	if (*how & SERVE_UNMAP) {
		unsigned long long regions = serve_unmapped_regions(k->tgid, req->data.args[0], req->data.args[1]);

		if (regions) {
			rec->sc.flags |= SESSION_SC_PERF_UNMAP;
			rec->sc.serial = regions;
		}
	}
	switch (nr) {
	case __NR_clone:
	case __NR_clone3:
	case __NR_fork:
	case __NR_vfork: {
		unsigned long long flags = req->data.args[0];

		if (nr == __NR_clone3 && !read_target(req->pid, req->data.args[0], &flags, sizeof(flags)))
			flags = 0;
		/* A vfork child (dash's commands, posix_spawn's) is met at its own first call: its
		 * parent waits in the clone until it execs or exits, both calls, and one killed
		 * before any call is a zombie, which meet() leaves out; so its parent's children
		 * need no look. */
		k->clone_pending = nr != __NR_vfork && !(nr != __NR_fork && (flags & CLONE_VFORK));
		k->clone_thread = (nr == __NR_clone || nr == __NR_clone3) && (flags & CLONE_THREAD);
		break;
	}
	case __NR_execve:
	case __NR_execveat: {
		char path[PATH_MAX];
		int path_arg = nr == __NR_execve ? 0 : 1;

		if (read_target_string(req->pid, req->data.args[path_arg], path, sizeof(path)) < 0)
			break;
		k->exec_pending = true;
		free(k->exec_path);
		k->exec_path = strdup(path);
		if (k->tid != k->tgid || k->threaded) {	/* (exec_marks: the image now) */
			char stat[1024];

			if (read_proc(req->pid, "stat", stat, sizeof(stat)) > 0)
				exec_marks(stat, k->exec_marks);
		}
		if (is_helper(req->pid, path))
			k->helper = true;	/* its exec is mirrored, then nothing but its end */
		break;
	}
	case __NR_rt_sigreturn: {
		unsigned long long ax;

		if (sigreturn_ax(k, &ax)) {
			rec->sc.flags |= SESSION_SC_SIGRETURN;
			rec->sc.serial = ax;
		}
		break;
	}
	case __NR_close:
		serve_fd_closed(k->tgid, (long)req->data.args[0]);
		break;
	case __NR_close_range:	/* (CLOSE_RANGE_CLOEXEC: 1 << 2) */
		serve_fd_close_range(k->tgid, req->data.args[0], req->data.args[1], req->data.args[2] & 4);
		break;
	case __NR_dup2:
	case __NR_dup3:
		serve_fd_dup2(k->tgid, (long)req->data.args[0], (long)req->data.args[1],
			      nr == __NR_dup3 && (req->data.args[2] & O_CLOEXEC));
		break;
	}
	if (rec->sc.flags & SESSION_SC_SERVE)
		rec->sc.serial = ++serials;
	produced = produce(rec);
	if (produced && (rec->sc.flags & SESSION_SC_SERVE))
		served = rec->sc.serial;
	/* an exit the kernel was told of (lost, its task would wait in the kernel for ever, and a
	 * parent's wait4 there with it: process_ended() tells it then) */
	if ((nr == __NR_exit || nr == __NR_exit_group) && produced) {
		k->exited = true;
		if (nr == __NR_exit && k->tid != k->tgid)
			forget(req->pid);	/* a thread ends; its process's end is watched */
	}
out:
	pthread_mutex_unlock(&lock);
	return served;
}

/*
 * A held /dev/kmsg read (serve.c), now that the log has a record for it: its record, a served
 * call as mirror_call() writes one; its serial (0: not written).  Under the serve lock.
 */
unsigned long long mirror_serve_again(const struct seccomp_notif *req, struct session_record *rec, size_t room,
				      int how)
{
	static unsigned long long again;
	unsigned long long served = 0;
	struct known *k;

	if (!ring)
		return 0;
	pthread_mutex_lock(&lock);
	k = find(req->pid);
	if (k && !k->helper) {
		build_syscall(rec, room, req, how);
		rec->sc.serial = (1ULL << 63) | ++again;	/* (apart from mirror_call's) */
		if (produce(rec))
			served = rec->sc.serial;
	}
	pthread_mutex_unlock(&lock);
	return served;
}

struct session_ring *mirror_ring(void)
{
	return ring;
}

/* Whether `tid` is a task of the session the supervisor traces, of process `tgid` (a task it
 * forgets as soon as its process ends: a pid the host then gives again is not the session's). */
bool mirror_traces(pid_t tid, pid_t tgid)
{
	struct known *k;
	bool found;

	pthread_mutex_lock(&lock);
	k = find(tid);
	found = k && k->tgid == tgid;
	pthread_mutex_unlock(&lock);
	return found;
}

/*
 * Wait, at most max_ms, until the kernel is done with every record written so far (it runs
 * behind the host: it replays the calls as their records come), so that what a held poll
 * then finds in the perf buffers is what the session did before the poll, as on Linux, where
 * a task's events are in the buffers by the time it exits: `perf trace -- CMD` polls 100 ms
 * after its child's exit for the last events, then reads no more.
 */
void mirror_catch_up(long long max_ms)
{
	const struct timespec pause = { 0, 200000 };
	unsigned long long target, deadline;

	if (!ring)
		return;
	pthread_mutex_lock(&lock);
	target = ring->produced;
	pthread_mutex_unlock(&lock);
	deadline = now_ns() + (unsigned long long)max_ms * 1000000ULL;
	while (__atomic_load_n(&ring->retired_upto, __ATOMIC_ACQUIRE) < target && now_ns() < deadline)
		nanosleep(&pause, NULL);
}

void mirror_fd_given(pid_t tid, int kfd, int fd)
{
	struct session_record rec = { .type = SESSION_REC_FD, .tid = tid, .len = sizeof(rec) };

	rec.ts = now_ns();
	rec.fd.kernel = kfd;
	rec.fd.host = fd;
	pthread_mutex_lock(&lock);
	produce(&rec);
	pthread_mutex_unlock(&lock);
}

/* ---- ends ---- */

/*
 * The process `tgid` ended: its tasks that did not exit by themselves end with its status
 * (without an EXIT record, a task of the kernel waits for ever for its next call, and its
 * parent's wait4 there with it).  The status is read only for those: a process that ended
 * with exit_group(2), as most do, costs no /proc read.
 */
static bool all_exited(pid_t tgid)	/* (under lock) */
{
	for (unsigned int b = 0; b < BUCKETS; b++)
		for (struct known *k = known_tasks[b]; k; k = k->next)
			if (k->tgid == tgid && !k->exited)
				return false;
	return true;
}

static void process_ended(pid_t tgid, int pidfd)
{
	struct session_record rec = { .type = SESSION_REC_EXIT, .len = sizeof(rec) };
	pid_t *ending = NULL;
	size_t nr = 0, cap = 0, i;
	char stat[1024];
	unsigned int b;
	int status = 9;	/* SIGKILL, when the zombie is already reaped */
	bool need_status;

	pthread_mutex_lock(&lock);
	need_status = !all_exited(tgid);
	pthread_mutex_unlock(&lock);
	if (need_status && read_proc(tgid, "stat", stat, sizeof(stat)) > 0 && stat_field(stat, 52))
		status = stat_field(stat, 52);
	pthread_mutex_lock(&lock);
	for (b = 0; b < BUCKETS; b++) {
		struct known **p = &known_tasks[b], *k;

		while ((k = *p)) {
			if (k->tgid != tgid) {
				p = &k->next;
				continue;
			}
			if (!k->exited && nr == cap) {
				pid_t *more = realloc(ending, (cap = cap ? 2 * cap : 8) * sizeof(*ending));

				if (more)
					ending = more;
				else
					cap = nr;
			}
			if (!k->exited && nr < cap)
				ending[nr++] = k->tid;
			*p = k->next;
			drop(k);
		}
	}
	for (i = 0; i < nr; i++) {
		rec.tid = ending[i];
		rec.ts = now_ns();
		rec.exit.status = status;
		produce(&rec);
	}
	pthread_mutex_unlock(&lock);
	free(ending);
	serve_exit(tgid);
	epoll_ctl(exits_epoll, EPOLL_CTL_DEL, pidfd, NULL);
	close(pidfd);
}

static void *watch_exits(void *unused __attribute__((unused)))
{
	for (;;) {
		struct epoll_event ev[16];
		int n = epoll_wait(exits_epoll, ev, 16, -1), i;

		for (i = 0; i < n; i++)
			process_ended(ev[i].data.u64 >> 32, (int)(ev[i].data.u64 & 0xffffffff));
	}
	return NULL;
}

/* Map the kernel's ring out of the machine's RAM file; false (no mirror) if it is not there. */
bool mirror_init(int ram_fd, unsigned long long offset, unsigned long long size, int bell,
		 char **helper_paths, int nr_helper_paths)
{
	unsigned long long page = offset & ~4095ULL;
	void *map;

	if (size < sizeof(struct session_ring))
		return false;
	map = mmap(NULL, size + (offset - page), PROT_READ | PROT_WRITE, MAP_SHARED, ram_fd, page);
	if (map == MAP_FAILED)
		return false;
	ring = (void *)((char *)map + (offset - page));
	if (ring->magic != SESSION_RING_MAGIC || ring->data_size != SESSION_RING_DATA_SIZE) {
		munmap(map, size + (offset - page));
		ring = NULL;
		return false;
	}
	doorbell_fd = bell;
	for (int i = 0; i < nr_helper_paths && nr_helpers < (int)(sizeof(helpers) / sizeof(helpers[0])); i++)
		if (stat(helper_paths[i], &helpers[nr_helpers]) == 0)
			nr_helpers++;
	return true;
}

/* In the supervisor's process (threads do not survive a fork): the watch on processes' ends.
 * Without it, nothing is mirrored. */
void mirror_start(void)
{
	pthread_t thread;

	if (!ring)
		return;
	exits_epoll = epoll_create1(EPOLL_CLOEXEC);
	if (exits_epoll < 0 || pthread_create(&thread, NULL, watch_exits, NULL) ||
	    pthread_create(&thread, NULL, ring_late, NULL)) {
		fprintf(stderr, "tracefs-sim-init: cannot watch the session's processes: %s\n", strerror(errno));
		ring = NULL;
	}
}

unsigned long long mirror_lost(void)
{
	return ring ? ring->lost : 0;
}
