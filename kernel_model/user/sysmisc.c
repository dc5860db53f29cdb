/*
 * sysmisc FAMILY: drives one family of the kernel's small calls and prints each call and its
 * result, one a line ("sethostname(len -1) = -22"), with nothing that depends on the machine
 * but what the test compares itself (the file system names sysfs(2) lists).  Families:
 * uts (sethostname, setdomainname and uname), sysfs, ustat, kcmp, pkey, futex_waitv, pidfd
 * (process_madvise, process_mrelease), restart (restart_syscall), mempolicy (set_mempolicy,
 * get_mempolicy, set_mempolicy_home_node, migrate_pages).
 * For the emulated kernel only: `uts` renames the machine it runs on.
 */
#include "libc.h"

#define NR_pipe 22
#define NR_mprotect 10
#define NR_mmap 9
#define NR_newstat 4
#define NR_statfs 137
#define NR_dup 32
#define NR_getppid 110
#define NR_setuid 105
#define NR_uname 63
#define NR_epoll_ctl 233
#define NR_ustat 136
#define NR_sysfs 139
#define NR_sethostname 170
#define NR_setdomainname 171
#define NR_kcmp 312
#define NR_pkey_mprotect 329
#define NR_pkey_alloc 330
#define NR_pkey_free 331

#define BAD_PTR 1L	/* an address no program maps */

static long sc(long nr, long a, long b, long c, long d, long e) { return syscall6(nr, a, b, c, d, e, 0); }
#define L(x) ((long)(x))
#define R(what, call) printf("%s = %ld\n", what, (long)(call))

struct utsname_user { char sysname[65], nodename[65], release[65], version[65], machine[65], domain[65]; };

static void show_names(void)
{
	struct utsname_user u;

	R("uname", sc(NR_uname, L(&u), 0, 0, 0, 0));
	printf("nodename '%s' domainname '%s'\n", u.nodename, u.domain);
}

/* fn in a child that gave up root (uid 1000), the parent waiting for it */
static void as_user(void (*fn)(long), long arg)
{
	int pid = fork(), status;

	if (pid == 0) {
		sc(NR_setuid, 1000, 0, 0, 0, 0);
		fn(arg);
		exit(0);
	}
	wait4(pid, &status, 0, NULL);
}

/* ---- uts: the node and domain names, and who may set them ---- */
static void uts_unprivileged(long unused)
{
	R("sethostname as uid 1000", sc(NR_sethostname, L("x"), 1, 0, 0, 0));
	R("setdomainname as uid 1000", sc(NR_setdomainname, L("x"), 1, 0, 0, 0));
}

static void fam_uts(void)
{
	static const char long_name[] = "0123456789012345678901234567890123456789012345678901234567890123";

	show_names();
	R("sethostname(guest-node)", sc(NR_sethostname, L("guest-node"), 10, 0, 0, 0));
	R("setdomainname(example.org)", sc(NR_setdomainname, L("example.org"), 11, 0, 0, 0));
	show_names();
	R("sethostname(len 3 of a longer string)", sc(NR_sethostname, L("abcdef"), 3, 0, 0, 0));
	R("sethostname(64 bytes)", sc(NR_sethostname, L(long_name), 64, 0, 0, 0));
	show_names();
	R("sethostname(len 65)", sc(NR_sethostname, L(long_name), 65, 0, 0, 0));
	R("sethostname(len -1)", sc(NR_sethostname, L("x"), -1, 0, 0, 0));
	R("sethostname(bad pointer)", sc(NR_sethostname, BAD_PTR, 4, 0, 0, 0));
	R("setdomainname(len 65)", sc(NR_setdomainname, L(long_name), 65, 0, 0, 0));
	R("setdomainname(bad pointer)", sc(NR_setdomainname, BAD_PTR, 4, 0, 0, 0));
	R("setdomainname(len 0)", sc(NR_setdomainname, L("x"), 0, 0, 0, 0));
	as_user(uts_unprivileged, 0);
	show_names();
}

/* ---- sysfs(2): the registered file system types by index ---- */
static void fam_sysfs(void)
{
	char name[64];
	long n = sc(NR_sysfs, 3, 0, 0, 0, 0), i;

	printf("sysfs(3) = %ld\n", n);
	for (i = 0; i < n; i++) {
		long r = sc(NR_sysfs, 2, i, L(name), 0, 0);

		printf("sysfs(2, %ld) = %ld '%s', sysfs(1, '%s') = %ld\n", i, r, r ? "" : name, r ? "" : name,
		       sc(NR_sysfs, 1, L(name), 0, 0, 0));
	}
	R("sysfs(2, count)", sc(NR_sysfs, 2, n, L(name), 0, 0));
	R("sysfs(2, 0, bad buffer)", sc(NR_sysfs, 2, 0, BAD_PTR, 0, 0));
	R("sysfs(1, nosuchfs)", sc(NR_sysfs, 1, L("nosuchfs"), 0, 0, 0));
	R("sysfs(1, bad pointer)", sc(NR_sysfs, 1, BAD_PTR, 0, 0, 0));
	R("sysfs(0)", sc(NR_sysfs, 0, 0, 0, 0, 0));
	R("sysfs(4)", sc(NR_sysfs, 4, 0, 0, 0, 0));
}

/* ---- ustat(2): a mounted device's free blocks and inodes, as statfs counts them ---- */
/* the device of a path: struct stat (144 bytes) begins with st_dev */
static unsigned long dev_of(const char *path)
{
	unsigned long st[18];

	sc(NR_newstat, L(path), L(st), 0, 0, 0);
	return st[0];
}

struct statfs_user { long f_type, f_bsize; unsigned long f_blocks, f_bfree, f_bavail, f_files, f_ffree; long rest[8]; };
struct ustat_user { int f_tfree; unsigned long f_tinode; char f_fname[6], f_fpack[6]; };

/* ustat against statfs of the same file system, taken until no write came between the
 * statfs before the ustat and the one after (another task may be writing there) */
static void ustat_of(const char *path)
{
	struct statfs_user before, after;
	struct ustat_user u;
	int tries = 0;
	long r;

	do {
		memset(&u, 0x55, sizeof(u));
		sc(NR_statfs, L(path), L(&before), 0, 0, 0);
		r = sc(NR_ustat, dev_of(path), L(&u), 0, 0, 0);
		sc(NR_statfs, L(path), L(&after), 0, 0, 0);
	} while ((before.f_bfree != after.f_bfree || before.f_ffree != after.f_ffree) && ++tries < 1000);
	printf("ustat(%s) = %ld: free blocks as statfs %s, free inodes as statfs %s, names empty %s\n", path, r,
	       (unsigned long)u.f_tfree == (unsigned int)after.f_bfree ? "yes" : "no",
	       u.f_tinode == after.f_ffree ? "yes" : "no", !u.f_fname[0] && !u.f_fpack[5] ? "yes" : "no");
}

static void fam_ustat(void)
{
	struct ustat_user u;

	ustat_of("/");
	ustat_of("/proc");
	R("ustat(no such device)", sc(NR_ustat, 0xfff00, L(&u), 0, 0, 0));
	R("ustat(/, bad buffer)", sc(NR_ustat, dev_of("/"), BAD_PTR, 0, 0, 0));
}

/* ---- kcmp(2): which kernel objects two tasks share ---- */
enum { KCMP_FILE, KCMP_VM, KCMP_FILES, KCMP_FS, KCMP_SIGHAND, KCMP_IO, KCMP_SYSVSEM, KCMP_EPOLL_TFD };
struct kcmp_epoll_slot { unsigned int efd, tfd, toff; };
#define EPOLL_CTL_ADD 1

static long kcmp(long pid1, long pid2, long type, long idx1, long idx2)
{
	return sc(NR_kcmp, pid1, pid2, type, idx1, idx2);
}

/* a result of two different objects: 1 or 2, as the pair's order */
static const char *differ(long r)
{
	return r == 1 || r == 2 ? "differ" : "?";
}

static void kcmp_unprivileged(long parent)
{
	R("kcmp(root parent, self, KCMP_VM) as uid 1000", kcmp(parent, getpid(), KCMP_VM, 0, 0));
	R("kcmp(self, self, KCMP_VM) as uid 1000", kcmp(getpid(), getpid(), KCMP_VM, 0, 0));
}

static void fam_kcmp(void)
{
	int self = getpid(), pipefd[2], child, status, devnull, devnull2, ep, tgt;
	struct kcmp_epoll_slot slot;
	struct epoll_event ev = { 1, 0 };
	long r, r2;
	char c;

	devnull = open("/dev/null", O_RDONLY, 0);
	devnull2 = open("/dev/null", O_RDONLY, 0);
	sc(NR_pipe, L(pipefd), 0, 0, 0, 0);
	child = fork();
	if (child == 0) {	/* stays until the parent closes the pipe */
		close(pipefd[1]);
		read(pipefd[0], &c, 1);
		exit(0);
	}
	for (r = KCMP_VM; r <= KCMP_IO; r++)
		printf("kcmp(self, self, %ld) = %ld\n", r, kcmp(self, self, r, 0, 0));
	r = kcmp(self, child, KCMP_VM, 0, 0);
	r2 = kcmp(child, self, KCMP_VM, 0, 0);
	printf("kcmp(self, child, KCMP_VM): %s, reversed the other order %s\n", differ(r), r + r2 == 3 ? "yes" : "no");
	printf("kcmp(self, child, KCMP_FILES): %s\n", differ(kcmp(self, child, KCMP_FILES, 0, 0)));
	printf("kcmp(self, child, KCMP_FS): %s\n", differ(kcmp(self, child, KCMP_FS, 0, 0)));
	printf("kcmp(self, child, KCMP_SIGHAND): %s\n", differ(kcmp(self, child, KCMP_SIGHAND, 0, 0)));
	R("kcmp(self, child, KCMP_FILE, the forked fd)", kcmp(self, child, KCMP_FILE, devnull, devnull));
	R("kcmp(self, self, KCMP_FILE, fd and its dup)", kcmp(self, self, KCMP_FILE, devnull, sc(NR_dup, devnull, 0, 0, 0, 0)));
	printf("kcmp(self, self, KCMP_FILE, two opens of a file): %s\n", differ(kcmp(self, self, KCMP_FILE, devnull, devnull2)));
	R("kcmp(self, self, KCMP_FILE, a closed fd)", kcmp(self, self, KCMP_FILE, devnull, 999));
	R("kcmp(self, self, KCMP_SYSVSEM)", kcmp(self, self, KCMP_SYSVSEM, 0, 0));
	R("kcmp(self, self, 8)", kcmp(self, self, 8, 0, 0));
	R("kcmp(self, self, -1)", kcmp(self, self, -1, 0, 0));
	R("kcmp(self, no such pid, KCMP_VM)", kcmp(self, 999999, KCMP_VM, 0, 0));
	R("kcmp(no such pid, self, 8)", kcmp(999999, self, 8, 0, 0));

	/* the pipe's read end, the set's one target (fd tgt) */
	ep = epoll_create1(0);
	tgt = pipefd[0];
	ev.data = tgt;
	R("epoll_ctl(ADD, the pipe)", sc(NR_epoll_ctl, ep, EPOLL_CTL_ADD, tgt, L(&ev), 0));
	slot = (struct kcmp_epoll_slot){ ep, tgt, 0 };
	R("kcmp(EPOLL_TFD, the set's target file itself)", kcmp(self, self, KCMP_EPOLL_TFD, tgt, L(&slot)));
	R("kcmp(EPOLL_TFD, the child's fd of it)", kcmp(child, self, KCMP_EPOLL_TFD, tgt, L(&slot)));
	printf("kcmp(EPOLL_TFD, another file): %s\n", differ(kcmp(self, self, KCMP_EPOLL_TFD, devnull, L(&slot))));
	slot.toff = 1;
	R("kcmp(EPOLL_TFD, toff 1)", kcmp(self, self, KCMP_EPOLL_TFD, tgt, L(&slot)));
	slot = (struct kcmp_epoll_slot){ ep, devnull, 0 };
	R("kcmp(EPOLL_TFD, an fd not in the set)", kcmp(self, self, KCMP_EPOLL_TFD, tgt, L(&slot)));
	slot = (struct kcmp_epoll_slot){ devnull, tgt, 0 };
	R("kcmp(EPOLL_TFD, efd not an epoll set)", kcmp(self, self, KCMP_EPOLL_TFD, tgt, L(&slot)));
	slot = (struct kcmp_epoll_slot){ 999, tgt, 0 };
	R("kcmp(EPOLL_TFD, efd closed)", kcmp(self, self, KCMP_EPOLL_TFD, tgt, L(&slot)));
	R("kcmp(EPOLL_TFD, idx1 closed)", kcmp(self, self, KCMP_EPOLL_TFD, 999, L(&slot)));
	R("kcmp(EPOLL_TFD, bad slot)", kcmp(self, self, KCMP_EPOLL_TFD, devnull, BAD_PTR));
	R("kcmp(no such pid, self, EPOLL_TFD, bad slot)", kcmp(999999, self, KCMP_EPOLL_TFD, devnull, BAD_PTR));

	close(pipefd[1]);
	wait4(child, &status, 0, NULL);
	as_user(kcmp_unprivileged, self);
}

/* ---- protection keys, on a cpu without them ---- */
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_PRIVATE 2
#define MAP_ANONYMOUS 0x20

static void fam_pkey(void)
{
	long addr = sc(NR_mmap, 0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);

	R("pkey_alloc(0, 0)", sc(NR_pkey_alloc, 0, 0, 0, 0, 0));
	R("pkey_alloc(0, PKEY_DISABLE_WRITE)", sc(NR_pkey_alloc, 0, 2, 0, 0, 0));
	R("pkey_alloc(flags 1, 0)", sc(NR_pkey_alloc, 1, 0, 0, 0, 0));
	R("pkey_alloc(0, init_val 4)", sc(NR_pkey_alloc, 0, 4, 0, 0, 0));
	R("pkey_free(0)", sc(NR_pkey_free, 0, 0, 0, 0, 0));
	R("pkey_free(1)", sc(NR_pkey_free, 1, 0, 0, 0, 0));
	R("pkey_free(-1)", sc(NR_pkey_free, -1, 0, 0, 0, 0));
	R("pkey_mprotect(key -1)", sc(NR_pkey_mprotect, addr, 4096, PROT_READ, -1, 0));
	R("pkey_mprotect(key 0)", sc(NR_pkey_mprotect, addr, 4096, PROT_READ, 0, 0));
	R("pkey_mprotect(key 1)", sc(NR_pkey_mprotect, addr, 4096, PROT_READ, 1, 0));
	R("pkey_mprotect(key 0, unaligned start)", sc(NR_pkey_mprotect, addr + 1, 4096, PROT_READ, 0, 0));
	R("pkey_mprotect(key 0, len 0)", sc(NR_pkey_mprotect, addr, 0, PROT_READ, 0, 0));
	R("pkey_mprotect(key -1, unmapped)", sc(NR_pkey_mprotect, 4096, 4096, PROT_READ, -1, 0));
	R("mprotect back to read-write", sc(NR_mprotect, addr, 8192, PROT_READ | PROT_WRITE, 0, 0));
}

/* ---- futex_waitv(2): a wait on several words, a wake of one of them ---- */
#define NR_futex 202
#define NR_futex_waitv 449
#define FUTEX_WAKE 1
#define FUTEX_32 2
#define FUTEX_PRIVATE_FLAG 128
#define MAP_SHARED 1
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
struct futex_waitv { unsigned long val, uaddr; unsigned int flags, reserved; };

static long waitv(struct futex_waitv *w, long n, long flags, struct timespec *ts, long clock)
{
	return sc(NR_futex_waitv, L(w), n, flags, L(ts), clock);
}

static void fam_futex_waitv(void)
{
	/* two words in a shared mapping, so that a forked child's wait is on the parent's */
	unsigned int *words = (unsigned int *)sc(NR_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
	struct futex_waitv w[2] = { { 0, L(&words[0]), FUTEX_32, 0 }, { 5, L(&words[1]), FUTEX_32, 0 } };
	struct timespec past = { 0, 0 }, bad = { 0, 1000000000 };
	int child, status;
	long r;

	words[0] = 0;
	words[1] = 5;
	R("futex_waitv(flags 1)", waitv(w, 2, 1, NULL, 0));
	R("futex_waitv(0 waiters)", waitv(w, 0, 0, NULL, 0));
	R("futex_waitv(129 waiters)", waitv(w, 129, 0, NULL, 0));
	R("futex_waitv(NULL waiters)", waitv(NULL, 1, 0, NULL, 0));
	R("futex_waitv(bad waiters)", waitv((void *)BAD_PTR, 1, 0, NULL, 0));
	R("futex_waitv(timeout on CLOCK_BOOTTIME)", waitv(w, 2, 0, &past, 7));
	R("futex_waitv(bad timeout pointer)", waitv(w, 2, 0, (void *)BAD_PTR, CLOCK_MONOTONIC));
	R("futex_waitv(timeout nsec 1e9)", waitv(w, 2, 0, &bad, CLOCK_MONOTONIC));
	R("futex_waitv(a past monotonic deadline)", waitv(w, 2, 0, &past, CLOCK_MONOTONIC));
	R("futex_waitv(a past realtime deadline, private)",
	  (w[0].flags = w[1].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG, waitv(w, 2, 0, &past, CLOCK_REALTIME)));
	w[1].val = 6;
	R("futex_waitv(second word not its value)", waitv(w, 2, 0, NULL, 0));
	w[1].val = 5;
	w[1].flags = 0;
	R("futex_waitv(a waiter without FUTEX_32)", waitv(w, 2, 0, NULL, 0));
	w[1].flags = FUTEX_32 | 1;
	R("futex_waitv(a waiter with an unknown flag)", waitv(w, 2, 0, NULL, 0));
	w[1].flags = FUTEX_32;
	w[1].reserved = 1;
	R("futex_waitv(__reserved set)", waitv(w, 2, 0, NULL, 0));
	w[1].reserved = 0;
	w[1].uaddr = L(&words[1]) + 1;
	R("futex_waitv(unaligned word)", waitv(w, 2, 0, NULL, 0));
	w[1].uaddr = 4096;
	R("futex_waitv(unmapped word)", waitv(w, 2, 0, NULL, 0));
	w[1].uaddr = L(&words[1]);

	/* a child waits on both; the parent wakes the second until one waiter is woken */
	child = fork();
	if (child == 0)
		exit((int)waitv(w, 2, 0, NULL, 0));
	do {
		r = sc(NR_futex, L(&words[1]), FUTEX_WAKE, 1, 0, 0);
		if (!r)
			msleep(1);
	} while (r == 0);
	wait4(child, &status, 0, NULL);
	printf("FUTEX_WAKE of the second word = %ld, the waiter's futex_waitv = %d\n", r, (status >> 8) & 0xff);
}

/* ---- process_madvise(2), process_mrelease(2): another process's memory, by its pidfd ---- */
#define NR_pidfd_open 434
#define NR_process_madvise 440
#define NR_process_mrelease 448
#define MADV_WILLNEED 3
#define MADV_DONTNEED 4
#define MADV_COLD 20
#define MADV_PAGEOUT 21
struct iovec_user { long base; unsigned long len; };

static long pmadvise(int pidfd, struct iovec_user *iov, long n, long advice, long flags)
{
	return sc(NR_process_madvise, pidfd, L(iov), n, advice, flags);
}

/* as uid 1000: the root parent's memory (EACCES), its own (no CAP_SYS_NICE: EPERM) */
static void pidfd_unprivileged(long parent_pidfd)
{
	long self = sc(NR_pidfd_open, getpid(), 0, 0, 0, 0);
	struct iovec_user iov = { (long)&self & ~4095L, 4096 };

	R("process_madvise(root parent) as uid 1000", pmadvise(parent_pidfd, &iov, 1, MADV_COLD, 0));
	R("process_madvise(self) as uid 1000", pmadvise(self, &iov, 1, MADV_COLD, 0));
}

static void fam_pidfd(void)
{
	long mem = sc(NR_mmap, 0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	struct iovec_user iov[3] = { { mem, 4096 }, { mem + 4096, 8192 }, { 4096, 4096 } };
	int pipefd[2], child, status, self, pidfd, devnull = open("/dev/null", O_RDONLY, 0);
	char c;

	sc(NR_pipe, L(pipefd), 0, 0, 0, 0);
	child = fork();
	if (child == 0) {	/* stays until the parent closes the pipe: its mm is the fork's copy */
		close(pipefd[1]);
		read(pipefd[0], &c, 1);
		exit(0);
	}
	pidfd = sc(NR_pidfd_open, child, 0, 0, 0, 0);
	self = sc(NR_pidfd_open, getpid(), 0, 0, 0, 0);
	R("process_madvise(child, 2 segments, WILLNEED)", pmadvise(pidfd, iov, 2, MADV_WILLNEED, 0));
	R("process_madvise(child, COLD)", pmadvise(pidfd, iov, 2, MADV_COLD, 0));
	R("process_madvise(child, PAGEOUT)", pmadvise(pidfd, iov, 1, MADV_PAGEOUT, 0));
	R("process_madvise(self, COLD)", pmadvise(self, iov, 2, MADV_COLD, 0));
	R("process_madvise(child, then an unmapped segment)", pmadvise(pidfd, iov, 3, MADV_COLD, 0));
	R("process_madvise(child, an unmapped segment first)", pmadvise(pidfd, iov + 2, 1, MADV_COLD, 0));
	R("process_madvise(child, no segments)", pmadvise(pidfd, iov, 0, MADV_COLD, 0));
	R("process_madvise(child, DONTNEED)", pmadvise(pidfd, iov, 1, MADV_DONTNEED, 0));
	R("process_madvise(child, flags 1)", pmadvise(pidfd, iov, 1, MADV_COLD, 1));
	R("process_madvise(child, 1025 segments)", pmadvise(pidfd, iov, 1025, MADV_COLD, 0));
	R("process_madvise(child, bad vector)", pmadvise(pidfd, (void *)BAD_PTR, 1, MADV_COLD, 0));
	R("process_madvise(not a pidfd)", pmadvise(devnull, iov, 1, MADV_COLD, 0));
	R("process_madvise(closed fd)", pmadvise(999, iov, 1, MADV_COLD, 0));
	R("process_madvise(not a pidfd, DONTNEED)", pmadvise(devnull, iov, 1, MADV_DONTNEED, 0));
	as_user(pidfd_unprivileged, self);

	R("process_mrelease(child, flags 1)", sc(NR_process_mrelease, pidfd, 1, 0, 0, 0));
	R("process_mrelease(a live child)", sc(NR_process_mrelease, pidfd, 0, 0, 0, 0));
	R("process_mrelease(not a pidfd)", sc(NR_process_mrelease, devnull, 0, 0, 0, 0));
	R("process_mrelease(closed fd)", sc(NR_process_mrelease, 999, 0, 0, 0, 0));
	close(pipefd[1]);
	wait4(child, &status, 0, NULL);
	R("process_mrelease(a reaped child)", sc(NR_process_mrelease, pidfd, 0, 0, 0, 0));
	R("process_madvise(a reaped child)", pmadvise(pidfd, iov, 1, MADV_COLD, 0));
}

/* ---- restart_syscall(2), called with nothing to restart ---- */
static void fam_restart(void)
{
	R("restart_syscall", sc(219, 0, 0, 0, 0, 0));
}

/* ---- set_mempolicy(2), get_mempolicy(2) on a machine of one NUMA node ---- */
#define NR_set_mempolicy 238
#define NR_get_mempolicy 239
#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_F_STATIC_NODES (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NUMA_BALANCING (1 << 13)
#define MPOL_F_NODE 1
#define MPOL_F_ADDR 2
#define MPOL_F_MEMS_ALLOWED 4

static void show_policy(const char *what, long addr, long flags)
{
	unsigned long mask[2] = { 0x55, 0x55 };
	int mode = -1;
	long r = sc(NR_get_mempolicy, L(&mode), L(mask), 128, addr, flags);

	printf("%s = %ld: mode %d mask %ld %ld\n", what, r, mode, (long)mask[0], (long)mask[1]);
}

static long setpol(long mode, unsigned long mask, long maxnode)
{
	unsigned long m[2] = { mask, 0 };

	return sc(NR_set_mempolicy, mode, L(m), maxnode, 0, 0);
}

/* as uid 1000: the root parent's pages (EPERM), its own to a node it may not use (EPERM) */
static void migrate_unprivileged(long parent)
{
	unsigned long n0[2] = { 1, 0 }, n01[2] = { 3, 0 };

	R("migrate_pages(root parent) as uid 1000", sc(256, parent, 64, L(n0), L(n0), 0));
	R("migrate_pages(self, 0 to 0-1) as uid 1000", sc(256, 0, 64, L(n0), L(n01), 0));
	R("migrate_pages(self, 0 to 0) as uid 1000", sc(256, 0, 64, L(n0), L(n0), 0));
}

static void mempolicy_child(long unused)
{
	show_policy("get_mempolicy in a forked child", 0, 0);
}

static void fam_mempolicy(void)
{
	static unsigned long big[40];
	long page = sc(NR_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	int mode;

	show_policy("get_mempolicy", 0, 0);
	show_policy("get_mempolicy(MEMS_ALLOWED)", 0, MPOL_F_MEMS_ALLOWED);
	R("set_mempolicy(BIND, node 0)", setpol(MPOL_BIND, 1, 64));
	show_policy("get_mempolicy", 0, 0);
	R("get_mempolicy(NODE) of a bind policy", sc(NR_get_mempolicy, L(&mode), 0, 0, 0, MPOL_F_NODE));
	R("set_mempolicy(BIND, node 1)", setpol(MPOL_BIND, 2, 64));
	R("set_mempolicy(BIND, no node)", setpol(MPOL_BIND, 0, 64));
	R("set_mempolicy(BIND, maxnode 1)", setpol(MPOL_BIND, 1, 1));
	R("set_mempolicy(INTERLEAVE, nodes 0-1)", setpol(MPOL_INTERLEAVE, 3, 64));
	show_policy("get_mempolicy", 0, 0);
	R("get_mempolicy(NODE) of interleave", (mode = -1, sc(NR_get_mempolicy, L(&mode), 0, 0, 0, MPOL_F_NODE)));
	printf("its next node %d\n", mode);
	R("set_mempolicy(PREFERRED, no node)", setpol(MPOL_PREFERRED, 0, 64));
	show_policy("get_mempolicy", 0, 0);
	R("set_mempolicy(PREFERRED, nodes 0-1)", setpol(MPOL_PREFERRED, 3, 64));
	show_policy("get_mempolicy", 0, 0);
	R("set_mempolicy(PREFERRED|STATIC, no node)", setpol(MPOL_PREFERRED | MPOL_F_STATIC_NODES, 0, 64));
	R("set_mempolicy(LOCAL, node 0)", setpol(MPOL_LOCAL, 1, 64));
	R("set_mempolicy(LOCAL|RELATIVE)", setpol(MPOL_LOCAL | MPOL_F_RELATIVE_NODES, 0, 64));
	R("set_mempolicy(LOCAL)", setpol(MPOL_LOCAL, 0, 64));
	show_policy("get_mempolicy", 0, 0);
	R("set_mempolicy(BIND|STATIC, nodes 0-1)", setpol(MPOL_BIND | MPOL_F_STATIC_NODES, 3, 64));
	show_policy("get_mempolicy", 0, 0);
	R("set_mempolicy(BIND|STATIC, node 1)", setpol(MPOL_BIND | MPOL_F_STATIC_NODES, 2, 64));
	R("set_mempolicy(BIND|RELATIVE, node 5)", setpol(MPOL_BIND | MPOL_F_RELATIVE_NODES, 32, 64));
	show_policy("get_mempolicy", 0, 0);
	as_user(mempolicy_child, 0);
	R("set_mempolicy(BIND|STATIC|RELATIVE)", setpol(MPOL_BIND | MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES, 1, 64));
	R("set_mempolicy(BIND|NUMA_BALANCING)", setpol(MPOL_BIND | MPOL_F_NUMA_BALANCING, 1, 64));
	R("set_mempolicy(INTERLEAVE|NUMA_BALANCING)", setpol(MPOL_INTERLEAVE | MPOL_F_NUMA_BALANCING, 1, 64));
	R("set_mempolicy(mode 6)", setpol(6, 1, 64));
	R("set_mempolicy(mode -1)", setpol(-1, 1, 64));
	R("set_mempolicy(DEFAULT, node 0)", setpol(MPOL_DEFAULT, 1, 64));
	R("set_mempolicy(BIND, bad mask)", sc(NR_set_mempolicy, MPOL_BIND, BAD_PTR, 64, 0, 0));
	R("set_mempolicy(BIND, maxnode past a page of bits)", sc(NR_set_mempolicy, MPOL_BIND, L(big), 4096 * 8 + 2, 0, 0));
	big[0] = 1;
	big[30] = 1;	/* node 1920 */
	R("set_mempolicy(BIND, nodes 0 and 1920)", sc(NR_set_mempolicy, MPOL_BIND, L(big), 2048, 0, 0));
	big[30] = 0;
	big[1] = 1;	/* node 64 */
	R("set_mempolicy(BIND, nodes 0 and 64)", sc(NR_set_mempolicy, MPOL_BIND, L(big), 128, 0, 0));
	big[1] = 0;
	R("set_mempolicy(BIND, node 0 of 2048)", sc(NR_set_mempolicy, MPOL_BIND, L(big), 2048, 0, 0));
	R("set_mempolicy(DEFAULT)", setpol(MPOL_DEFAULT, 0, 0));
	show_policy("get_mempolicy", 0, 0);

	show_policy("get_mempolicy(ADDR) of a mapped page", page, MPOL_F_ADDR);
	R("get_mempolicy(NODE|ADDR) of a mapped page", (mode = -1, sc(NR_get_mempolicy, L(&mode), 0, 0, page, MPOL_F_NODE | MPOL_F_ADDR)));
	printf("its node %d\n", mode);
	R("get_mempolicy(ADDR) unmapped", sc(NR_get_mempolicy, L(&mode), 0, 0, 4096, MPOL_F_ADDR));
	R("get_mempolicy(addr without ADDR)", sc(NR_get_mempolicy, L(&mode), 0, 0, page, 0));
	R("get_mempolicy(flags 8)", sc(NR_get_mempolicy, L(&mode), 0, 0, 0, 8));
	R("get_mempolicy(MEMS_ALLOWED|NODE)", sc(NR_get_mempolicy, L(&mode), 0, 0, 0, MPOL_F_MEMS_ALLOWED | MPOL_F_NODE));
	R("get_mempolicy(NODE) of the default", sc(NR_get_mempolicy, L(&mode), 0, 0, 0, MPOL_F_NODE));
	R("get_mempolicy(maxnode 0)", sc(NR_get_mempolicy, L(&mode), L(big), 0, 0, 0));
	R("get_mempolicy(maxnode past a page)", sc(NR_get_mempolicy, L(&mode), L(big), 4096 * 8 + 2, 0, 0));
	R("get_mempolicy(a page of bits)", sc(NR_get_mempolicy, L(&mode), L(big), 4096 * 8 + 1, 0, 0));
	R("get_mempolicy(bad mode pointer)", sc(NR_get_mempolicy, BAD_PTR, 0, 0, 0, 0));
	R("get_mempolicy(bad mask)", sc(NR_get_mempolicy, L(&mode), BAD_PTR, 64, 0, 0));
	R("get_mempolicy(no pointers)", sc(NR_get_mempolicy, 0, 0, 0, 0, 0));

	R("set_mempolicy_home_node(a mapped page, node 0)", sc(450, page, 4096, 0, 0, 0));
	R("set_mempolicy_home_node(unmapped, node 0)", sc(450, 4096, 4096, 0, 0, 0));
	R("set_mempolicy_home_node(len 0)", sc(450, page, 0, 0, 0, 0));
	R("set_mempolicy_home_node(node 1)", sc(450, page, 4096, 1, 0, 0));
	R("set_mempolicy_home_node(node 5000)", sc(450, page, 4096, 5000, 0, 0));
	R("set_mempolicy_home_node(flags 1)", sc(450, page, 4096, 0, 1, 0));
	R("set_mempolicy_home_node(unaligned)", sc(450, page + 1, 4096, 0, 0, 0));
	R("set_mempolicy_home_node(past the end of memory)", sc(450, -8192L, 16384, 0, 0, 0));
	as_user(migrate_unprivileged, getpid());
	{
		unsigned long n0[2] = { 1, 0 }, n1[2] = { 2, 0 }, n01[2] = { 3, 0 };

		R("migrate_pages(self, 0 to 0)", sc(256, 0, 64, L(n0), L(n0), 0));
		R("migrate_pages(self, 1 to 0)", sc(256, getpid(), 64, L(n1), L(n0), 0));
		R("migrate_pages(self, 0 to 0-1)", sc(256, 0, 64, L(n0), L(n01), 0));
		R("migrate_pages(self, 0 to 1)", sc(256, 0, 64, L(n0), L(n1), 0));
		R("migrate_pages(self, 0 to none)", sc(256, 0, 64, L(n0), 0, 0));
		R("migrate_pages(no such pid)", sc(256, 999999, 64, L(n0), L(n0), 0));
		R("migrate_pages(bad old mask)", sc(256, 0, 64, BAD_PTR, L(n0), 0));
		R("migrate_pages(bad new mask)", sc(256, 0, 64, L(n0), BAD_PTR, 0));
		R("migrate_pages(maxnode past a page of bits)", sc(256, 0, 4096 * 8 + 2, L(n0), L(n0), 0));
	}
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(void); } fams[] = {
		{ "uts", fam_uts }, { "sysfs", fam_sysfs }, { "ustat", fam_ustat }, { "kcmp", fam_kcmp },
		{ "pkey", fam_pkey }, { "futex_waitv", fam_futex_waitv },
		{ "pidfd", fam_pidfd }, { "restart", fam_restart },
		{ "mempolicy", fam_mempolicy },
	};
	unsigned int i;

	for (i = 0; argc == 2 && i < sizeof(fams) / sizeof(fams[0]); i++) {
		if (!strcmp(argv[1], fams[i].name)) {
			fams[i].fn();
			return 0;
		}
	}
	dprintf(2, "usage: sysmisc uts|sysfs|ustat|kcmp|pkey|futex_waitv|pidfd|restart|mempolicy\n");
	return 2;
}
