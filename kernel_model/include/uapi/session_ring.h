/*
 * The session ring: what a session's supervisor (src/tracefs_sim/session/native) tells the
 * emulated kernel (kernel/session.c) about the session's processes, so that they are tasks of
 * the emulated kernel and their system calls enter it.  One producer (the supervisor, on the
 * host), one consumer (the kernel); the ring lives in the kernel's memory, which the
 * supervisor maps from the machine's RAM file.
 *
 * Records follow each other, 8-byte aligned; one that does not fit before the end of the
 * data area is preceded by a PAD record up to the end and starts again at offset 0.  head and
 * tail count bytes since the start (they never wrap); the data is at (count % size).
 * Plain C types only: this header is built into the kernel and into the supervisor.
 */
#ifndef _UAPI_SESSION_RING_H
#define _UAPI_SESSION_RING_H

#define SESSION_RING_MAGIC 0x73657373696f6e31ULL	/* "session1" */
#define SESSION_RING_DATA_SIZE (4UL << 20)
#define SESSION_RECORD_MAX 4032		/* a record (and the kernel's copy of it) fits in a page */

enum session_record_type {
	SESSION_REC_PAD = 0,		/* nothing: skip to the data area's start */
	SESSION_REC_SYSCALL = 1,	/* a system call entered on the host: sc */
	SESSION_REC_NEW_TASK = 2,	/* a task the supervisor saw first: task */
	SESSION_REC_EXIT = 3,		/* the process ended without exit(2)/exit_group(2): exit */
	SESSION_REC_EXEC = 4,		/* the outcome of the task's last execve: exec */
	SESSION_REC_FD = 5,		/* the fd a served call made, as the process got it: fd */
	SESSION_REC_MAPS = 6,		/* the process's address space (its VMAs), as the host laid
					 * it out: maps; after a successful EXEC and a root's
					 * NEW_TASK, before the task's next call */
};

/* sc.flags */
#define SESSION_SC_SERVE 1	/* the kernel answers the call: the host does not make it (no
				 * blobs: its pointers are the caller's, see session_uaccess) */
#define SESSION_SC_NEW_FD 2	/* ... and what it returns is a new fd: the process gets a host fd
				 * for it, whose number an FD record then gives the kernel's */

#define SESSION_SC_PRESTAT 4	/* a call that adds or removes names (mkdir, unlink, rename, an
				 * O_CREAT open...): its serial says what its paths named before the
				 * host made it (the kernel makes it after), SESSION_PRESTAT_* */

#define SESSION_SC_PERF_UNMAP 8	/* a munmap of perf ring buffers: sc.serial is the mask of the
				 * perf pool regions the range maps in the process (< 64) */

#define SESSION_SC_SIGRETURN 16	/* an rt_sigreturn whose frame the supervisor read: sc.serial is
				 * the rax it restores (the call's result, as Linux's returns it) */

#define SESSION_SC_NOWAIT 32	/* a served read of /dev/kmsg: made without waiting for a record
				 * (the file's O_NONBLOCK for the call); a reader that would have
				 * waited is told so (SESSION_KMSG_WOULD_BLOCK), and the supervisor
				 * holds the caller until the log has a record for it */

/* sc.serial of a SESSION_SC_PRESTAT call: up to two paths (slot 0 at bit 0, slot 1 at bit
 * 32), each the argument it is, and the st_mode its last component had before the call (0: it
 * did not exist) */
#define SESSION_PRESTAT_VALID	(1U << 31)
#define SESSION_PRESTAT_ARG(x)	(((x) >> 16) & 7)
#define SESSION_PRESTAT_MODE(x)	((x) & 0xffff)

/* How a blob (the bytes behind a pointer argument, copied on the host) is laid out in the
 * task's user memory before the call is made there; the argument then points at it. */
enum session_blob_kind {
	SESSION_BLOB_IN = 0,		/* bytes the call reads: copied in */
	SESSION_BLOB_OUT = 1,		/* memory the call writes: len bytes of scratch, no data */
	SESSION_BLOB_STRV = 2,		/* argv/envp: `count` NUL-terminated strings, packed */
	SESSION_BLOB_IOV = 3,		/* readv's and writev's struct iovec array (`count` of them):
					 * laid out with each iov_base at the output window (the
					 * buffers' bytes are the host's: what the call moves there is
					 * not copied) */
};

struct session_blob {
	unsigned char arg;		/* which argument (0..5) */
	unsigned char kind;		/* enum session_blob_kind */
	unsigned short count;		/* STRV: how many strings */
	unsigned int len;		/* bytes (IN/STRV: that follow, padded to 8; OUT: size) */
};

struct session_record {
	unsigned short type;		/* enum session_record_type */
	unsigned short len;		/* the whole record, a multiple of 8 */
	int tid;			/* the task, as the session's PID namespace numbers it */
	unsigned long long ts;		/* CLOCK_MONOTONIC ns when the supervisor took it */
	union {
		struct {
			int nr;			/* x86-64 system call number */
			unsigned short nr_blobs;	/* blobs that follow args */
			unsigned short flags;		/* SESSION_SC_* */
			unsigned long long args[6];
			unsigned long long serial;	/* SESSION_SC_SERVE: what its reply carries */
		} sc;
		struct {
			int tgid;
			int ppid;		/* its parent; 0: not a task of the session */
			int creator;		/* the task whose clone made it; 0: unknown */
			int helper;		/* a process of the simulator's own tools: no calls follow */
			char comm[16];		/* its name when first seen */
			/* a process without a parent in the session (ppid 0): what it started with, in
			 * the payload: its cwd (cwd_len bytes with the NUL, padded to 8), then
			 * nr_rlimits struct session_rlimit (its resource limits, RLIMIT_* order),
			 * then nr_fds struct session_fd, each followed by its path (padded to 8) */
			unsigned short cwd_len;
			unsigned short nr_fds;
			int pgid, sid;		/* its process group and session, as the namespace sees them */
			unsigned int tty;	/* its controlling terminal's device number (0: none) */
			unsigned short nr_rlimits;
			unsigned short pad;
		} task;
		struct {
			int status;		/* as wait4 reports it */
		} exit;
		struct {
			int result;		/* 0 or -errno */
			unsigned short exe_len;	/* a success: the bytes of the path of the file the
						 * process runs (/proc/PID/exe, the NUL included)
						 * that follow, padded to 8; 0: none */
			unsigned short pad;
			char comm[16];		/* the task's name after it (a success) */
		} exec;
		struct {
			int kernel;		/* the fd the kernel's call returned */
			int host;		/* the number the process got for it, or -errno: none */
		} fd;
		struct {
			/* nr struct session_vma follow, in address order, each followed by
			 * its name (path_len bytes with the NUL, padded to 8).  A process with
			 * more VMAs than one record holds has several MAPS records, in order,
			 * each with the same header; `part` counts them from 0 (the VMAs past
			 * SESSION_MAPS_MAX_VMAS in all are left out: `truncated`) */
			unsigned short nr;
			unsigned short part;
			unsigned short truncated;
			unsigned short exec;		/* 1: the image an exec made (0: a root's) */
			unsigned long long start_brk;	/* /proc/PID/stat's start_brk */
			unsigned long long brk;		/* the [heap]'s end, or start_brk */
			unsigned long long mmap_base;	/* where top-down mmap starts: the end of the
							 * highest VMA below the [stack] */
			unsigned long long start_stack;	/* /proc/PID/stat's startstack */
		} maps;
	};
};

/* A VMA of a process (/proc/PID/maps: one line). */
struct session_vma {
	unsigned long long start, end;
	unsigned long long pgoff;	/* in pages (the line's offset / 4096) */
	unsigned int flags;		/* SESSION_VMA_* */
	unsigned short path_len;	/* the line's name that follows ("/usr/bin/ls", "[vdso]"), with
					 * its NUL; 0: none */
	unsigned short pad;
};
#define SESSION_VMA_READ	0x1	/* PROT_READ, PROT_WRITE, PROT_EXEC's bits */
#define SESSION_VMA_WRITE	0x2
#define SESSION_VMA_EXEC	0x4
#define SESSION_VMA_SHARED	0x8	/* 's' */
#define SESSION_VMA_FILE	0x10	/* maps a file (an inode: the line's inode is not 0) */
#define SESSION_VMA_STACK	0x20	/* [stack]: grows down */
#define SESSION_VMA_HEAP	0x40	/* [heap] */
#define SESSION_VMA_SPECIAL	0x80	/* [vdso], [vvar]...: the kernel's own pages */
#define SESSION_MAPS_MAX_VMAS	8192	/* at most this many in all */

/* A resource limit of a process without a parent in the session, as the host gave it (its
 * prlimit(2)): the kernel's task starts with these, not with init's (NEW_TASK). */
struct session_rlimit {
	unsigned long long cur, max;	/* RLIM_INFINITY: ~0 */
};

/* An fd a process without a parent in the session had when first seen (NEW_TASK). */
struct session_fd {
	int fd;
	unsigned int flags;		/* its open flags (fdinfo's, O_CLOEXEC included) */
	long long pos;			/* its offset */
	unsigned short path_len;	/* bytes of the path that follows, with the NUL */
	unsigned short pad[3];
};

/*
 * A served call (SESSION_SC_SERVE) is made by the kernel with the caller's own arguments: its
 * pointers are addresses in the host process.  Each access the kernel makes to that memory
 * (copy_from_user, copy_to_user, strncpy_from_user) is asked of the supervisor, which waits on
 * the call and does it with process_vm_readv/writev: the kernel fills a request and rings
 * PORT_SESSION_REPLY, then spins until `answered` is its request.  One call at a time: the
 * supervisor takes no other notification meanwhile.
 */
#define SESSION_UACCESS_MAX (16UL << 10)	/* bytes per request: longer accesses take several */

enum session_uaccess_op {
	SESSION_UACCESS_READ = 1,	/* len bytes at addr, into data */
	SESSION_UACCESS_WRITE = 2,	/* data's len bytes to addr */
	SESSION_UACCESS_STRING = 3,	/* a NUL-terminated string at addr, at most len bytes */
};

struct session_uaccess {
	volatile unsigned long long asked;	/* kernel: this request's number (written last) */
	volatile unsigned long long answered;	/* supervisor: the last it answered (written last) */
	unsigned int op;			/* enum session_uaccess_op */
	unsigned int pad;
	unsigned long long addr;
	unsigned long long len;
	long long result;			/* bytes copied (STRING: up to, not with, the NUL) or -1 */
	unsigned char data[SESSION_UACCESS_MAX];
};

/* The end of a served call, written by the kernel, which then rings PORT_SESSION_REPLY. */
struct session_reply {
	volatile unsigned long long serial;	/* the call's sc.serial: written last */
	long long ret;				/* what the call returned (-errno on failure) */
	/* supervisor: the serial of a call it stopped waiting for (the kernel was too slow): its
	 * memory accesses fail at once from then on */
	volatile unsigned long long abandoned;
	long long region;			/* a served mmap(2): the perf pool region it maps */
	/* a served call on (or opening) the kernel's /dev/kmsg: SESSION_KMSG_*, and the record
	 * the file's reader reads next (a writer's: 0) */
	unsigned long long kmsg;
	unsigned long long kmsg_seq;
	struct session_uaccess uaccess;
};

#define SESSION_KMSG_FILE	1	/* the call's file is the kernel's /dev/kmsg */
#define SESSION_KMSG_NONBLOCK	2	/* ... opened (or set) O_NONBLOCK */
#define SESSION_KMSG_WOULD_BLOCK 4	/* ... the read (SESSION_SC_NOWAIT) found no record, and would
					 * have waited for one */

/*
 * Signals the kernel sends to the session's processes (kernel/signal.c: a session task's
 * signals are its host process's): each is posted here, and the kernel rings PORT_PERF_WAKEUP
 * (the supervisor's wake eventfd); the supervisor sends it on the host (kill for a group's,
 * tgkill for a thread's) to a process of the session only.  The kernel never waits for it: a
 * signal posted while the queue is full is lost (`lost`).
 */
#define SESSION_SIGNALS 256	/* a power of two */

struct session_signal {
	int tid;		/* the task (tgkill) or the process (kill), as the namespace numbers it */
	int tgid;
	int sig;
	int group;		/* 1: to the process (kill), 0: to the thread (tgkill) */
};

struct session_signals {
	volatile unsigned long long posted;	/* kernel: signals posted (slot written first) */
	volatile unsigned long long taken;	/* supervisor: signals sent on (or refused) */
	volatile unsigned long long lost;	/* kernel: posted while full */
	volatile unsigned long long refused;	/* supervisor: not a process of the session */
	struct session_signal slot[SESSION_SIGNALS];	/* (count % SESSION_SIGNALS) */
};

struct session_ring {
	unsigned long long magic;
	unsigned long long data_size;
	unsigned long long clock_zero;	/* CLOCK_MONOTONIC ns of the kernel's clock 0 (host) */
	unsigned long long pad0[5];
	/* written by the supervisor */
	volatile unsigned long long head;	/* bytes produced */
	volatile unsigned long long lost;	/* records dropped: the ring was full */
	volatile unsigned long long produced;	/* records written */
	unsigned long long pad1[5];
	/* written by the kernel */
	volatile unsigned long long tail;	/* bytes consumed */
	volatile unsigned int consumer_waiting;	/* 1: the kernel found it empty: ring the doorbell */
	unsigned int pad2;
	/* records done with: a call made (its sys_enter recorded), another record acted on or
	 * dropped */
	volatile unsigned long long retired;
	/* every record up to this one, in the order they were written (the first is 1), is done
	 * with.  When it reaches what `produced` was, the kernel has caught up with the session
	 * as it was then: the daemon waits for that before it serves a tracefs file to the
	 * session's processes, so that what they did before shows, and what they do after does
	 * not, as on Linux.  (Tasks take their records in their own order: `retired` can reach
	 * that number while an older record still waits on a slow task's queue.) */
	volatile unsigned long long retired_upto;
	/* the sequence number of the next record of the kernel's log (printk): a /dev/kmsg
	 * reader behind it has one to read */
	volatile unsigned long long log_next_seq;
	unsigned long long pad3[3];
	unsigned char data[SESSION_RING_DATA_SIZE];
	struct session_reply reply;
	struct session_signals signals;
};

#endif
