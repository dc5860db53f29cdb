/*
 * fsop FAMILY DIR: drives one family of file system calls inside DIR (which must not exist)
 * (or `fsop ls DIR`: an existing directory's entries, sorted; `fsop xattr PATH...`: the extended
 * attribute calls on each)
 * and prints each call and its result, one a line ("mkdir(d) = 0", "rmdir(d) = -39"), with
 * nothing that depends on the file system's kind or the machine (no inode numbers, times,
 * directory sizes, DIR itself).  The same binary runs on a Linux host too: its output there
 * is the specification of its output in the emulated kernel (tests/machine/test_vfs.py).
 */
#include "libc.h"

#define AT_FDCWD -100
#define O_RDWR 2
#define O_EXCL 0200
#define O_APPEND 02000
#define O_NONBLOCK 04000
#define O_DIRECTORY 0200000
#define O_NOFOLLOW 0400000
#define O_CLOEXEC 02000000
#define O_PATH 010000000
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_EMPTY_PATH 0x1000

static long sc(long nr, long a, long b, long c, long d, long e) { return syscall6(nr, a, b, c, d, e, 0); }
#define L(x) ((long)(x))

static void show(const char *what, long ret)
{
	printf("%s = %ld\n", what, ret);
}

static char name_buf[256];

/* fcntl(2)'s record locks: struct flock (= flock64 on x86-64) */
struct rlock { short type, whence; long start, len; int pid; };

/* fcntl(fd, cmd, {type, whence, start, len, pid}); the struct as the call left it in *out */
static long rl(int fd, int cmd, int type, int whence, long start, long len, int pid, struct rlock *out)
{
	struct rlock l = { (short)type, (short)whence, start, len, pid };
	long r = sc(72, fd, cmd, L(&l), 0, 0);

	if (out)
		*out = l;
	return r;
}

/* F_GETLK's answer: the lock in the way (its holder named against `holder`), or none */
static void show_getlk(const char *what, long ret, struct rlock *l, long holder)
{
	printf("%s = %ld: type %d whence %d start %ld len %ld holder %s\n", what, ret, l->type, l->whence,
	       l->start, l->len, l->type == 2 ? "-" : l->pid == holder ? "it" : l->pid == -1 ? "-1" : "other");
}

/* a call shown with its name: R("open(f, O_CREAT)", sc(...)) */
#define R(what, call) show(what, (call))

struct kstat_user {
	unsigned long st_dev, st_ino, st_nlink;
	unsigned int st_mode, st_uid, st_gid, pad;
	unsigned long st_rdev;
	long st_size, st_blksize, st_blocks;
	unsigned long times[6];
	long unused[3];
};

static void octal(unsigned int v, char *out)
{
	char tmp[16];
	int k = 0, i = 0;

	do tmp[k++] = '0' + (v & 7); while (v >>= 3);
	out[i++] = '0';
	while (k)
		out[i++] = tmp[--k];
	out[i] = 0;
}

static void show_stat(const char *what, long ret, struct kstat_user *st, int with_size)
{
	char mode[16];

	if (ret) {
		show(what, ret);
		return;
	}
	octal(st->st_mode, mode);
	if (with_size)
		printf("%s = 0 mode=%s nlink=%lu size=%ld\n", what, mode, st->st_nlink, st->st_size);
	else
		printf("%s = 0 mode=%s nlink=%lu\n", what, mode, st->st_nlink);
}

static void fam_open(void)
{
	char longname[300];
	int fd;

	memset(longname, 'x', 256);
	longname[256] = 0;
	R("open(missing)", open("missing", O_RDONLY, 0));
	R("open(, O_RDONLY)", open("", O_RDONLY, 0));
	fd = open("f", O_WRONLY | O_CREAT | O_EXCL, 0644);
	R("open(f, O_CREAT|O_EXCL)", fd);
	R("write(f, hello)", write(fd, "hello", 5));
	R("read(f opened O_WRONLY)", read(fd, name_buf, 5));
	R("close(f)", close(fd));
	R("close(f) again", close(fd));
	R("open(f, O_CREAT|O_EXCL) again", open("f", O_WRONLY | O_CREAT | O_EXCL, 0644));
	R("open(f, O_DIRECTORY)", open("f", O_RDONLY | O_DIRECTORY, 0));
	R("open(f/)", open("f/", O_RDONLY, 0));
	R("open(f/x)", open("f/x", O_RDONLY, 0));
	R("mkdir(d)", sc(83, L("d"), 0755, 0, 0, 0));
	R("open(d, O_WRONLY)", open("d", O_WRONLY, 0));
	R("open(d/, O_CREAT)", open("d/", O_WRONLY | O_CREAT, 0644));
	R("open(d, O_CREAT)", open("d", O_RDONLY | O_CREAT, 0644));
	R("open(xxx...256)", open(longname, O_RDONLY, 0));
	fd = open("d", O_RDONLY | O_DIRECTORY, 0);
	R("open(d, O_DIRECTORY)", fd);
	R("read(d)", read(fd, name_buf, 10));
	R("openat(d, g, O_CREAT)", sc(257, fd, L("g"), O_RDWR | O_CREAT, 0600, 0));
	R("openat(d, ../f)", sc(257, fd, L("../f"), O_RDONLY, 0, 0));
	R("openat(d, missing/..)", sc(257, fd, L("missing/.."), O_RDONLY, 0, 0));
	R("openat(99, f)", sc(257, 99, L("f"), O_RDONLY, 0, 0));
	R("openat(3, x)", sc(257, 3, L("x"), O_RDONLY, 0, 0));
	R("open(d/g)", open("d/g", O_RDONLY, 0));
	fd = open("f", O_WRONLY | O_TRUNC, 0);
	R("open(f, O_TRUNC)", fd);
	R("lseek(f, 0, SEEK_END) after O_TRUNC", sc(8, fd, 0, 2, 0, 0));
	fd = open("f", O_WRONLY | O_APPEND, 0);
	R("write(f O_APPEND, ab)", write(fd, "ab", 2));
	R("lseek(f, 0, SEEK_SET)", sc(8, fd, 0, 0, 0, 0));
	R("write(f O_APPEND, cd)", write(fd, "cd", 2));
	R("lseek(f, 0, SEEK_CUR)", sc(8, fd, 0, 1, 0, 0));
	fd = open("f", O_RDONLY | O_CLOEXEC, 0);
	R("fcntl(O_CLOEXEC fd, F_GETFD)", sc(72, fd, 1, 0, 0, 0));
	R("fcntl(O_CLOEXEC fd, F_GETFL) & O_ACCMODE|O_APPEND", sc(72, fd, 3, 0, 0, 0) & (3 | O_APPEND));
	fd = open("f", O_PATH, 0);
	R("open(f, O_PATH)", fd);
	R("read(O_PATH fd)", read(fd, name_buf, 1));
	R("fstat(O_PATH fd)", sc(5, fd, L(name_buf), 0, 0, 0) ? -1 : 0);
	R("open(f, O_RDONLY|O_CREAT, 04000) mode", open("f", O_RDONLY | O_CREAT, 0) >= 0);
	R("creat(c)", sc(85, L("c"), 0600, 0, 0, 0));
	R("open(/dev/null, O_RDWR)", open("/dev/null", O_RDWR, 0) >= 0);
	/* open_tree(2) without OPEN_TREE_CLONE: an O_PATH file of the object (dentry_open) */
	fd = sc(428, AT_FDCWD, L("f"), 0, 0, 0);
	R("open_tree(f) >= 0", fd >= 0);
	R("read(open_tree fd)", read(fd, name_buf, 1));
	R("fcntl(open_tree fd, F_GETFL) & O_PATH", sc(72, fd, 3, 0, 0, 0) & O_PATH);
	R("open_tree(fd, \"\", AT_EMPTY_PATH) >= 0", sc(428, fd, L(""), 0x1000, 0, 0) >= 0);
	R("open_tree(\"\")", sc(428, AT_FDCWD, L(""), 0, 0, 0));
	R("open_tree(missing)", sc(428, AT_FDCWD, L("missing"), 0, 0, 0));
	R("open_tree(f, 2)", sc(428, AT_FDCWD, L("f"), 2, 0, 0));
	R("open_tree(f, AT_RECURSIVE)", sc(428, AT_FDCWD, L("f"), 0x8000, 0, 0));
	R("open_tree(f, O_CLOEXEC): FD_CLOEXEC", sc(72, sc(428, AT_FDCWD, L("f"), O_CLOEXEC, 0, 0), 1, 0, 0, 0));
}

static void fam_rw(void)
{
	char buf[64];
	struct { void *base; size_t len; } iov[3];
	int fd = open("f", O_RDWR | O_CREAT, 0644), fd2;
	long off;

	R("write(f, 0123456789)", write(fd, "0123456789", 10));
	R("lseek(f, 2, SEEK_SET)", sc(8, fd, 2, 0, 0, 0));
	R("read(f, 3)", read(fd, buf, 3));
	buf[3] = 0;
	printf("  read %s\n", buf);
	R("lseek(f, -1, SEEK_CUR)", sc(8, fd, -1, 1, 0, 0));
	R("lseek(f, -20, SEEK_CUR)", sc(8, fd, -20, 1, 0, 0));
	R("lseek(f, -3, SEEK_END)", sc(8, fd, -3, 2, 0, 0));
	R("lseek(f, 0, 7)", sc(8, fd, 0, 7, 0, 0));
	R("lseek(f, 100, SEEK_DATA)", sc(8, fd, 100, 3, 0, 0));
	R("lseek(f, 2, SEEK_HOLE)", sc(8, fd, 2, 4, 0, 0));
	R("pread64(f, 4, 6)", sc(17, fd, L(buf), 4, 6, 0));
	buf[4] = 0;
	printf("  pread %s\n", buf);
	R("pread64(f, 4, -1)", sc(17, fd, L(buf), 4, -1, 0));
	R("pwrite64(f, XY, 20)", sc(18, fd, L("XY"), 2, 20, 0));
	R("lseek(f, 0, SEEK_CUR) after pwrite", sc(8, fd, 0, 1, 0, 0));
	R("lseek(f, 0, SEEK_END)", sc(8, fd, 0, 2, 0, 0));
	R("pread64(f, 12, 8)", sc(17, fd, L(buf), 12, 8, 0));
	for (off = 0; off < 12; off++)
		printf("%d ", buf[off]);
	printf("\n");
	iov[0].base = "ab"; iov[0].len = 2;
	iov[1].base = "cde"; iov[1].len = 3;
	iov[2].base = "f"; iov[2].len = 0;
	R("lseek(f, 0, SEEK_SET)", sc(8, fd, 0, 0, 0, 0));
	R("writev(f, ab cde)", sc(20, fd, L(iov), 3, 0, 0));
	iov[0].base = buf; iov[0].len = 1;
	iov[1].base = buf + 10; iov[1].len = 4;
	R("lseek(f, 0, SEEK_SET)", sc(8, fd, 0, 0, 0, 0));
	R("readv(f, 1+4)", sc(19, fd, L(iov), 2, 0, 0));
	buf[1] = 0;
	buf[14] = 0;
	printf("  readv %s %s\n", buf, buf + 10);
	R("readv(f, 1025 segments)", sc(19, fd, L(iov), 1025, 0, 0));
	/* preadv/pwritev (295, 296) at an offset, the file's own left; the v2 calls (327, 328)
	 * at the file's position for an offset of -1 */
	iov[0].base = buf; iov[0].len = 2;
	iov[1].base = buf + 10; iov[1].len = 2;
	R("lseek(f, 1, SEEK_SET)", sc(8, fd, 1, 0, 0, 0));
	R("preadv(f, 2+2, 2)", sc(295, fd, L(iov), 2, 2, 0));
	buf[2] = 0;
	buf[12] = 0;
	printf("  preadv %s %s\n", buf, buf + 10);
	R("lseek(f, 0, SEEK_CUR) after preadv", sc(8, fd, 0, 1, 0, 0));
	R("preadv(f, -2)", sc(295, fd, L(iov), 2, -2, 0));
	R("preadv2(f, 2+2, -1)", syscall6(327, fd, L(iov), 2, -1, 0, 0));
	R("lseek(f, 0, SEEK_CUR) after preadv2", sc(8, fd, 0, 1, 0, 0));
	R("preadv2(f, 2+2, 0)", syscall6(327, fd, L(iov), 2, 0, 0, 0));
	iov[0].base = "cd"; iov[0].len = 2;
	iov[1].base = "e"; iov[1].len = 1;
	R("pwritev(f, cd e, 2)", sc(296, fd, L(iov), 2, 2, 0));
	R("lseek(f, 0, SEEK_CUR) after pwritev", sc(8, fd, 0, 1, 0, 0));
	R("pwritev2(f, cd e, 2)", syscall6(328, fd, L(iov), 2, 2, 0, 0));
	R("pwritev(f, -2)", sc(296, fd, L(iov), 2, -2, 0));
	R("lseek(f, 0, SEEK_SET)", sc(8, fd, 0, 0, 0, 0));
	R("read(f, 8)", read(fd, buf, 8));
	buf[5] = 0;
	printf("  %s\n", buf);
	R("read(f, bad address)", read(fd, (void *)16, 4));
	R("write(f, bad address)", write(fd, (void *)16, 4));
	R("ftruncate(f, 3)", sc(77, fd, 3, 0, 0, 0));
	R("lseek(f, 0, SEEK_END) after ftruncate", sc(8, fd, 0, 2, 0, 0));
	R("ftruncate(f, -1)", sc(77, fd, -1, 0, 0, 0));
	R("truncate(f, 5000)", sc(76, L("f"), 5000, 0, 0, 0));
	R("pread64(f, 4, 4000) of the hole", sc(17, fd, L(buf), 4, 4000, 0));
	printf("  %d %d %d %d\n", buf[0], buf[1], buf[2], buf[3]);
	R("truncate(missing, 1)", sc(76, L("missing"), 1, 0, 0, 0));
	R("mkdir(d)", sc(83, L("d"), 0755, 0, 0, 0));
	R("truncate(d, 1)", sc(76, L("d"), 1, 0, 0, 0));
	R("fsync(f)", sc(74, fd, 0, 0, 0, 0));
	R("fdatasync(f)", sc(75, fd, 0, 0, 0, 0));
	R("fsync(99)", sc(74, 99, 0, 0, 0, 0));
	/* sync_file_range (277): a range's writeback started and waited for; syncfs (306) */
	R("sync_file_range(f, 0, 0, WRITE|WAIT_AFTER)", sc(277, fd, 0, 0, 6, 0));
	R("sync_file_range(f, 0, 4096, all)", sc(277, fd, 0, 4096, 7, 0));
	R("sync_file_range(f, 0, 0, 8)", sc(277, fd, 0, 0, 8, 0));
	R("sync_file_range(f, -1, 0, 0)", sc(277, fd, -1, 0, 0, 0));
	R("sync_file_range(99, 0, 0, 0)", sc(277, 99, 0, 0, 0, 0));
	R("syncfs(f)", sc(306, fd, 0, 0, 0, 0));
	R("syncfs(99)", sc(306, 99, 0, 0, 0, 0));
	fd2 = open("g", O_WRONLY | O_CREAT, 0644);
	off = 1;
	R("sendfile(g, f, &1, 3)", sc(40, fd2, fd, L(&off), 3, 0));
	printf("  offset %ld\n", off);
	R("sendfile(g, f, NULL, 100)", sc(40, fd2, fd, 0, 100, 0));
	R("lseek(g, 0, SEEK_END)", sc(8, fd2, 0, 2, 0, 0));
	R("sendfile(f, g opened O_WRONLY)", sc(40, fd, fd2, 0, 10, 0));
	/* copy_file_range (326): from f into a new file h, at offsets or the files' positions */
	{
		int h = open("h", O_RDWR | O_CREAT, 0644), d = open(".", O_RDONLY, 0);
		long in = 2, out = 0;

		R("copy_file_range(f, &2, h, &0, 5)", sc(326, fd, L(&in), h, L(&out), 5));
		printf("  offsets %ld %ld\n", in, out);
		R("copy_file_range(f, NULL, h, NULL, 4)", syscall6(326, fd, 0, h, 0, 4, 0));
		R("lseek(h, 0, SEEK_CUR)", sc(8, h, 0, 1, 0, 0));
		in = 1000000;
		R("copy_file_range(f, &past the end, h, NULL, 4)", syscall6(326, fd, L(&in), h, 0, 4, 0));
		in = 0;
		out = 1;
		R("copy_file_range(h, &0, h, &1, 3): overlapping", syscall6(326, h, L(&in), h, L(&out), 3, 0));
		R("copy_file_range(f, NULL, h, NULL, 4, flags 1)", syscall6(326, fd, 0, h, 0, 4, 1));
		R("copy_file_range(f, NULL, g opened O_WRONLY)", syscall6(326, fd, 0, fd2, 0, 4, 0));
		R("copy_file_range(g opened O_WRONLY, NULL, h)", syscall6(326, fd2, 0, h, 0, 4, 0));
		R("copy_file_range(., NULL, h)", syscall6(326, d, 0, h, 0, 4, 0));
		R("copy_file_range(99, NULL, h)", syscall6(326, 99, 0, h, 0, 4, 0));
		R("lseek(h, 0, SEEK_SET)", sc(8, h, 0, 0, 0, 0));
		R("read(h, 16)", read(h, buf, 16));
		buf[9] = 0;
		printf("  %s\n", buf);
		close(h);
		close(d);
	}
	R("read(/dev/zero, 8)", read(open("/dev/zero", O_RDONLY, 0), buf, 8));
	R("read(/dev/null, 8)", read(open("/dev/null", O_RDONLY, 0), buf, 8));
	R("write(/dev/full, 1)", write(open("/dev/full", O_WRONLY, 0), "x", 1));
	R("read(/dev/urandom, 32)", read(open("/dev/urandom", O_RDONLY, 0), buf, 32));
	R("lseek(/dev/null, 5, SEEK_SET)", sc(8, open("/dev/null", O_RDONLY, 0), 5, 0, 0, 0));
	R("fadvise64(f, 0, 0, POSIX_FADV_RANDOM)", sc(221, fd, 0, 0, 1, 0));
	R("fadvise64(f, 0, 4096, POSIX_FADV_WILLNEED)", sc(221, fd, 0, 4096, 3, 0));
	R("fadvise64(f, 0, 0, POSIX_FADV_DONTNEED)", sc(221, fd, 0, 0, 4, 0));
	R("fadvise64(f, 0, 0, 6)", sc(221, fd, 0, 0, 6, 0));
	R("fadvise64(f, 0, -1, POSIX_FADV_NORMAL)", sc(221, fd, 0, -1, 0, 0));
	R("fadvise64(/dev/null, 0, 0, POSIX_FADV_SEQUENTIAL)", sc(221, open("/dev/null", O_RDONLY, 0), 0, 0, 2, 0));
	R("fadvise64(99)", sc(221, 99, 0, 0, 0, 0));
}

/* struct statfs (x86-64) */
struct statfs_user { long type, bsize; unsigned long blocks, bfree, bavail, files, ffree; int fsid[2];
		     long namelen, frsize, flags, spare[4]; };

/* statfs, fstatfs: what does not depend on the file system the directory is on */
static void fam_statfs(void)
{
	struct statfs_user sf;
	int p[2];

	memset(&sf, 0, sizeof(sf));
	R("statfs(.)", sc(137, L("."), L(&sf), 0, 0, 0));
	printf("  bsize %ld, namelen %ld, frsize == bsize %d, ST_VALID %ld, bfree <= blocks %d\n", sf.bsize,
	       sf.namelen, sf.frsize == sf.bsize, sf.flags & 0x20, sf.bfree <= sf.blocks);
	R("statfs(/proc)", sc(137, L("/proc"), L(&sf), 0, 0, 0));
	{	/* a process's directory held open: a lookup revalidates its dentry; stat shows its owner */
		struct kstat_user pst;
		long pfd = open("/proc/self", O_RDONLY | O_DIRECTORY, 0);

		R("stat(/proc/self/) with the directory open", sc(4, L("/proc/self/"), L(&pst), 0, 0, 0));
		R("  its owner", pst.st_uid);
		R("  its mode", pst.st_mode);
		close(pfd);
	}
	printf("  type %ld, bsize %ld, namelen %ld, blocks %lu\n", sf.type, sf.bsize, sf.namelen, sf.blocks);
	R("statfs(missing)", sc(137, L("missing"), L(&sf), 0, 0, 0));
	R("statfs(f/x): f is no directory", sc(137, L("f/x"), L(&sf), 0, 0, 0));
	R("statfs(bad buffer)", sc(137, L("."), 16, 0, 0, 0));
	R("pipe(p)", sc(22, L(p), 0, 0, 0, 0));
	R("fstatfs(p[0])", sc(138, p[0], L(&sf), 0, 0, 0));
	printf("  type %ld, bsize %ld, namelen %ld, flags %ld\n", sf.type, sf.bsize, sf.namelen, sf.flags);
	R("fstatfs(99)", sc(138, 99, L(&sf), 0, 0, 0));
	R("sync_file_range(p[0], 0, 0, WRITE)", sc(277, p[0], 0, 0, 2, 0));
	close(p[0]);
	close(p[1]);
}

static void fam_stat(void)
{
	struct kstat_user st;
	int fd;

	sc(95, 022, 0, 0, 0, 0);	/* umask */
	fd = open("f", O_WRONLY | O_CREAT, 0666);
	write(fd, "abc", 3);
	show_stat("stat(f)", sc(4, L("f"), L(&st), 0, 0, 0), &st, 1);
	show_stat("fstat(f)", sc(5, fd, L(&st), 0, 0, 0), &st, 1);
	R("stat(missing)", sc(4, L("missing"), L(&st), 0, 0, 0));
	R("stat(f/x)", sc(4, L("f/x"), L(&st), 0, 0, 0));
	R("stat()", sc(4, L(""), L(&st), 0, 0, 0));
	R("stat(f, bad address)", sc(4, L("f"), 16, 0, 0, 0));
	R("fstat(99)", sc(5, 99, L(&st), 0, 0, 0));
	R("symlink(f, l)", sc(88, L("f"), L("l"), 0, 0, 0));
	show_stat("stat(l)", sc(4, L("l"), L(&st), 0, 0, 0), &st, 1);
	show_stat("lstat(l)", sc(6, L("l"), L(&st), 0, 0, 0), &st, 1);
	show_stat("newfstatat(fd, , AT_EMPTY_PATH)", sc(262, fd, L(""), L(&st), AT_EMPTY_PATH, 0), &st, 1);
	R("newfstatat(fd, , 0)", sc(262, fd, L(""), L(&st), 0, 0));
	show_stat("newfstatat(AT_FDCWD, l, AT_SYMLINK_NOFOLLOW)", sc(262, AT_FDCWD, L("l"), L(&st), AT_SYMLINK_NOFOLLOW, 0), &st, 1);
	R("newfstatat(AT_FDCWD, f, 0x1)", sc(262, AT_FDCWD, L("f"), L(&st), 1, 0));
	R("mkdir(d, 0700)", sc(83, L("d"), 0700, 0, 0, 0));
	show_stat("stat(d)", sc(4, L("d"), L(&st), 0, 0, 0), &st, 0);
	R("mkdir(d/e)", sc(83, L("d/e"), 0777, 0, 0, 0));
	show_stat("stat(d) with a subdirectory", sc(4, L("d"), L(&st), 0, 0, 0), &st, 0);
	show_stat("stat(d/e) (umask 022)", sc(4, L("d/e"), L(&st), 0, 0, 0), &st, 0);
	{
		unsigned int sx[64];

		memset(sx, 0, sizeof(sx));
		R("statx(f, STATX_BASIC_STATS)", sc(332, AT_FDCWD, L("f"), 0, 0x7ff, L(sx)));
		printf("  mask&0x7ff=%u mode=%u size=%u\n", sx[0] & 0x7ff, sx[7] & 0xffff, sx[10]);
		R("statx(f, flags 0x6000)", sc(332, AT_FDCWD, L("f"), 0x6000, 0x7ff, L(sx)));
		R("statx(f, mask 0x80000000)", sc(332, AT_FDCWD, L("f"), 0, 0x80000000UL, L(sx)));
	}
	R("chmod(f, 0600)", sc(90, L("f"), 0600, 0, 0, 0));
	show_stat("stat(f) after chmod", sc(4, L("f"), L(&st), 0, 0, 0), &st, 1);
	R("fchmod(fd, 0640)", sc(91, fd, 0640, 0, 0, 0));
	show_stat("stat(f) after fchmod", sc(4, L("f"), L(&st), 0, 0, 0), &st, 1);
	R("access(f, R_OK|W_OK)", sc(21, L("f"), 6, 0, 0, 0));
	R("access(f, 8)", sc(21, L("f"), 8, 0, 0, 0));
	R("access(missing, F_OK)", sc(21, L("missing"), 0, 0, 0, 0));
	R("faccessat(AT_FDCWD, d, X_OK)", sc(269, AT_FDCWD, L("d"), 1, 0, 0));
	R("access(f, X_OK)", sc(21, L("f"), 1, 0, 0, 0));
	{
		char *const args[] = { "status", NULL };

		R("execve(/proc/self/status) (noexec)", sc(59, L("/proc/self/status"), L(args), 0, 0, 0));
	}
	R("mknod(p, S_IFIFO|0644)", sc(133, L("p"), 0010644, 0, 0, 0));
	show_stat("stat(p)", sc(4, L("p"), L(&st), 0, 0, 0), &st, 1);
	R("mknod(n, S_IFCHR|0600, 1:3)", sc(133, L("n"), 0020600, (1 << 8) | 3, 0, 0));
	sc(4, L("n"), L(&st), 0, 0, 0);
	printf("  rdev=%lu\n", st.st_rdev);
	R("mknod(q, S_IFDIR)", sc(133, L("q"), 0040755, 0, 0, 0));
	R("mknod(q, 0170000)", sc(133, L("q"), 0170000, 0, 0, 0));
	R("mknodat(AT_FDCWD, f, S_IFREG)", sc(259, AT_FDCWD, L("f"), 0100644, 0, 0));
	R("mknod(r, 0644)", sc(133, L("r"), 0644, 0, 0, 0));
	show_stat("stat(r)", sc(4, L("r"), L(&st), 0, 0, 0), &st, 1);
	fam_statfs();
}

struct dirent_user { unsigned long ino; long off; unsigned short reclen; unsigned char type; char name[]; };

/* the directory's names, sorted, with their types, by getdents64 (217) or getdents (78: struct
 * linux_dirent, the name at 18, the type in the record's last byte) */
static void list_dir_by(const char *what, int fd, int nr)
{
	static char buf[4096];
	static char names[256][64];
	int n = 0, i, j;
	long r;

	while ((r = sc(nr, fd, L(buf), sizeof(buf), 0, 0)) > 0) {
		long pos = 0;

		while (pos < r && n < 256) {
			struct dirent_user *d = (void *)(buf + pos);
			unsigned char type = nr == 78 ? buf[pos + d->reclen - 1] : d->type;
			const char *name = nr == 78 ? buf + pos + 18 : d->name;

			names[n][0] = '0' + type / 10;
			names[n][1] = '0' + type % 10;
			names[n][2] = ' ';
			size_t len = strlen(name);

			if (len > 60)
				len = 60;
			memcpy(names[n] + 3, name, len);
			names[n][3 + len] = 0;
			n++;
			pos += d->reclen;
		}
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(names[j - 1] + 3, names[j] + 3) > 0; j--) {
			char t[64];

			memcpy(t, names[j], 64);
			memcpy(names[j], names[j - 1], 64);
			memcpy(names[j - 1], t, 64);
		}
	printf("%s: %s = %ld:", what, nr == 78 ? "getdents" : "getdents64", r);
	for (i = 0; i < n; i++)
		printf(" [%s]", names[i]);
	printf("\n");
}

static void list_dir(const char *what, int fd)
{
	list_dir_by(what, fd, 217);
}

static void show_cwd(const char *what, const char *base)
{
	char buf[512];
	long r = sc(79, L(buf), sizeof(buf), 0, 0, 0);
	size_t bl = strlen(base);

	if (r < 0)
		show(what, r);
	else
		printf("%s = DIR+%ld %s\n", what, r - (long)bl, strncmp(buf, base, bl) ? buf : buf + bl);
}

static void fam_dir(const char *base)
{
	int fd, i;
	char small[4];

	R("mkdir(d)", sc(83, L("d"), 0755, 0, 0, 0));
	R("mkdir(d) again", sc(83, L("d"), 0755, 0, 0, 0));
	R("mkdir(d/)", sc(83, L("d/"), 0755, 0, 0, 0));
	R("mkdir(e/)", sc(83, L("e/"), 0755, 0, 0, 0));
	R("mkdir(missing/x)", sc(83, L("missing/x"), 0755, 0, 0, 0));
	R("mkdir(.)", sc(83, L("."), 0755, 0, 0, 0));
	R("mkdirat(AT_FDCWD, d/s)", sc(258, AT_FDCWD, L("d/s"), 0755, 0, 0));
	for (i = 0; i < 5; i++) {
		char n[8] = "d/f0";

		n[3] = '0' + i;
		close(open(n, O_WRONLY | O_CREAT, 0644));
	}
	R("symlink(f0, d/l)", sc(88, L("f0"), L("d/l"), 0, 0, 0));
	fd = open("d", O_RDONLY | O_DIRECTORY, 0);
	list_dir("d", fd);
	R("lseek(d, 0, SEEK_SET)", sc(8, fd, 0, 0, 0, 0));
	list_dir("d again", fd);
	R("getdents64(d, 4 bytes)", sc(217, open("d", O_RDONLY, 0), L(small), sizeof(small), 0, 0));
	R("getdents64(f)", sc(217, open("d/f0", O_RDONLY, 0), L(name_buf), sizeof(name_buf), 0, 0));
	R("getdents64(99)", sc(217, 99, L(name_buf), sizeof(name_buf), 0, 0));
	R("lseek(d, 0, SEEK_SET)", sc(8, fd, 0, 0, 0, 0));
	list_dir_by("d by getdents", fd, 78);
	R("getdents(d, 4 bytes)", sc(78, open("d", O_RDONLY, 0), L(small), sizeof(small), 0, 0));
	R("getdents(f)", sc(78, open("d/f0", O_RDONLY, 0), L(name_buf), sizeof(name_buf), 0, 0));
	R("getdents(99)", sc(78, 99, L(name_buf), sizeof(name_buf), 0, 0));
	R("rmdir(d)", sc(84, L("d"), 0, 0, 0, 0));
	R("rmdir(d/f0)", sc(84, L("d/f0"), 0, 0, 0, 0));
	R("rmdir(d/.)", sc(84, L("d/."), 0, 0, 0, 0));
	R("rmdir(d/..)", sc(84, L("d/.."), 0, 0, 0, 0));
	R("unlink(d)", sc(87, L("d"), 0, 0, 0, 0));
	R("unlink(d/f0/)", sc(87, L("d/f0/"), 0, 0, 0, 0));
	R("unlink(d/f0)", sc(87, L("d/f0"), 0, 0, 0, 0));
	R("unlink(d/f0) again", sc(87, L("d/f0"), 0, 0, 0, 0));
	R("unlinkat(AT_FDCWD, d/s, AT_REMOVEDIR)", sc(263, AT_FDCWD, L("d/s"), AT_REMOVEDIR, 0, 0));
	R("unlinkat(AT_FDCWD, d/f1, 0x1)", sc(263, AT_FDCWD, L("d/f1"), 1, 0, 0));
	R("rename(d/f1, d/g1)", sc(82, L("d/f1"), L("d/g1"), 0, 0, 0));
	R("rename(d/f2, d/g1) (replaces)", sc(82, L("d/f2"), L("d/g1"), 0, 0, 0));
	R("rename(missing, x)", sc(82, L("missing"), L("x"), 0, 0, 0));
	R("mkdir(d/sub)", sc(83, L("d/sub"), 0755, 0, 0, 0));
	R("rename(d, d/sub/d)", sc(82, L("d"), L("d/sub/d"), 0, 0, 0));
	R("rename(d/g1, d/sub) (file onto dir)", sc(82, L("d/g1"), L("d/sub"), 0, 0, 0));
	R("rename(d/sub, d/g1) (dir onto file)", sc(82, L("d/sub"), L("d/g1"), 0, 0, 0));
	R("renameat2(d/g1, d/f3, RENAME_NOREPLACE)", sc(316, AT_FDCWD, L("d/g1"), AT_FDCWD, L("d/f3"), 1));
	R("renameat2(d/g1, d/h, RENAME_NOREPLACE)", sc(316, AT_FDCWD, L("d/g1"), AT_FDCWD, L("d/h"), 1));
	R("rename(d/sub, e)", sc(82, L("d/sub"), L("e"), 0, 0, 0));
	R("mkdir(d/full); mknod(d/full/x)", sc(83, L("d/full"), 0755, 0, 0, 0) | sc(133, L("d/full/x"), 0100644, 0, 0, 0));
	R("rename(e, d/full) (onto non-empty)", sc(82, L("e"), L("d/full"), 0, 0, 0));
	R("rename(d/full, e) (onto empty)", sc(82, L("d/full"), L("e"), 0, 0, 0));
	R("rename(d/h, /dev/null) (across mounts)", sc(82, L("d/h"), L("/dev/null"), 0, 0, 0) == -18);
	{	/* an entry already given removed between two reads: the others are all still seen */
		static char buf[96], rest[4096];
		char n[8] = "r/x0", first[64] = "";
		long r, pos, seen = 0;
		int rfd;

		R("mkdir(r)", sc(83, L("r"), 0755, 0, 0, 0));
		for (i = 0; i < 6; i++) {
			n[3] = '0' + i;
			close(open(n, O_WRONLY | O_CREAT, 0644));
		}
		rfd = open("r", O_RDONLY | O_DIRECTORY, 0);
		r = sc(217, rfd, L(buf), sizeof(buf), 0, 0);	/* ".", "..", two names */
		for (pos = 0; pos < r; pos += ((struct dirent_user *)(buf + pos))->reclen) {
			struct dirent_user *d = (void *)(buf + pos);

			if (d->name[0] == '.')
				continue;
			seen++;
			if (!first[0]) {
				memcpy(first, "r/", 2);
				memcpy(first + 2, d->name, strlen(d->name) + 1);
			}
		}
		R("unlink(a name read)", sc(87, L(first), 0, 0, 0, 0));
		while ((r = sc(217, rfd, L(rest), sizeof(rest), 0, 0)) > 0)
			for (pos = 0; pos < r; pos += ((struct dirent_user *)(rest + pos))->reclen)
				seen += ((struct dirent_user *)(rest + pos))->name[0] != '.';
		R("names seen by readdir with one removed on the way (6)", seen);
		close(rfd);
	}
	list_dir("d at the end", open("d", O_RDONLY, 0));
	list_dir("e at the end", open("e", O_RDONLY, 0));
	show_cwd("getcwd", base);
	R("chdir(d)", sc(80, L("d"), 0, 0, 0, 0));
	show_cwd("getcwd in d", base);
	R("getcwd(buf, 2)", sc(79, L(small), 2, 0, 0, 0));
	R("open(f3) relative to d", open("f3", O_RDONLY, 0) >= 0);
	R("chdir(..)", sc(80, L(".."), 0, 0, 0, 0));
	show_cwd("getcwd after ..", base);
	R("chdir(d/f3)", sc(80, L("d/f3"), 0, 0, 0, 0));
	R("chdir(missing)", sc(80, L("missing"), 0, 0, 0, 0));
	R("fchdir(d's fd)", sc(81, fd, 0, 0, 0, 0));
	show_cwd("getcwd after fchdir", base);
	R("fchdir(f's fd)", sc(81, open("f3", O_RDONLY, 0), 0, 0, 0, 0));
	R("mkdir(gone); chdir(gone)", sc(83, L("gone"), 0755, 0, 0, 0) | sc(80, L("gone"), 0, 0, 0, 0));
	R("rmdir(../gone)", sc(84, L("../gone"), 0, 0, 0, 0));
	R("getcwd in a removed directory", sc(79, L(name_buf), sizeof(name_buf), 0, 0, 0));
	R("mkdir(x) in a removed directory", sc(83, L("x"), 0755, 0, 0, 0));
	R("chdir(..) from a removed directory", sc(80, L(".."), 0, 0, 0, 0));
	show_cwd("getcwd after", base);
	R("chdir(gone)", sc(80, L("gone"), 0, 0, 0, 0));
	R("open(., O_RDONLY) in a removed directory", open(".", O_RDONLY, 0) >= 0);
	R("creat(x) in a removed directory", sc(85, L("x"), 0644, 0, 0, 0));
	R("chdir(/)", sc(80, L("/"), 0, 0, 0, 0));
	show_cwd("getcwd at /", "");
	R("chdir(/..)", sc(80, L("/.."), 0, 0, 0, 0));
	show_cwd("getcwd at /..", "");
}

static void fam_link(void)
{
	char buf[64];
	struct kstat_user st;
	long r;

	close(open("f", O_WRONLY | O_CREAT, 0644));
	R("symlink(f, l)", sc(88, L("f"), L("l"), 0, 0, 0));
	R("symlink(f, l) again", sc(88, L("f"), L("l"), 0, 0, 0));
	r = sc(89, L("l"), L(buf), sizeof(buf), 0, 0);
	R("readlink(l)", r);
	buf[r > 0 ? r : 0] = 0;
	printf("  -> %s\n", buf);
	R("readlink(l, 1 byte)", sc(89, L("l"), L(buf), 1, 0, 0));
	R("readlink(l, 0 bytes)", sc(89, L("l"), L(buf), 0, 0, 0));
	R("readlink(f)", sc(89, L("f"), L(buf), sizeof(buf), 0, 0));
	R("readlink(missing)", sc(89, L("missing"), L(buf), sizeof(buf), 0, 0));
	R("readlinkat(AT_FDCWD, l)", sc(267, AT_FDCWD, L("l"), L(buf), sizeof(buf), 0));
	R("symlink(missing, dangling)", sc(88, L("missing"), L("dangling"), 0, 0, 0));
	R("open(dangling)", open("dangling", O_RDONLY, 0));
	R("open(dangling, O_CREAT) makes its target", open("dangling", O_WRONLY | O_CREAT, 0644) >= 0);
	R("stat(missing) after", sc(4, L("missing"), L(&st), 0, 0, 0));
	R("open(l, O_NOFOLLOW)", open("l", O_RDONLY | O_NOFOLLOW, 0));
	R("open(l, O_NOFOLLOW|O_PATH)", open("l", O_NOFOLLOW | O_PATH, 0) >= 0);
	R("symlink(loop1, loop2)", sc(88, L("loop1"), L("loop2"), 0, 0, 0));
	R("symlink(loop2, loop1)", sc(88, L("loop2"), L("loop1"), 0, 0, 0));
	R("open(loop1)", open("loop1", O_RDONLY, 0));
	R("stat(loop1/x)", sc(4, L("loop1/x"), L(&st), 0, 0, 0));
	R("mkdir(d)", sc(83, L("d"), 0755, 0, 0, 0));
	R("symlink(d, ld)", sc(88, L("d"), L("ld"), 0, 0, 0));
	R("open(ld/new, O_CREAT)", open("ld/new", O_WRONLY | O_CREAT, 0644) >= 0);
	R("stat(d/new)", sc(4, L("d/new"), L(&st), 0, 0, 0));
	R("symlink(../f, d/up)", sc(88, L("../f"), L("d/up"), 0, 0, 0));
	R("open(ld/up)", open("ld/up", O_RDONLY, 0) >= 0);
	R("rmdir(ld)", sc(84, L("ld"), 0, 0, 0, 0));
	R("unlink(ld/)", sc(87, L("ld/"), 0, 0, 0, 0));
	R("link(f, h)", sc(86, L("f"), L("h"), 0, 0, 0));
	show_stat("stat(f) with 2 links", sc(4, L("f"), L(&st), 0, 0, 0), &st, 1);
	R("link(f, h) again", sc(86, L("f"), L("h"), 0, 0, 0));
	R("link(d, dl)", sc(86, L("d"), L("dl"), 0, 0, 0));
	R("link(l, hl) (the link itself)", sc(86, L("l"), L("hl"), 0, 0, 0));
	show_stat("lstat(hl)", sc(6, L("hl"), L(&st), 0, 0, 0), &st, 1);
	R("linkat(l, hf, AT_SYMLINK_FOLLOW)", sc(265, AT_FDCWD, L("l"), AT_FDCWD, L("hf"), 0x400));
	show_stat("lstat(hf)", sc(6, L("hf"), L(&st), 0, 0, 0), &st, 1);
	R("unlink(f)", sc(87, L("f"), 0, 0, 0, 0));
	show_stat("stat(h) after unlink(f)", sc(4, L("h"), L(&st), 0, 0, 0), &st, 1);
	R("open(l) after unlink(f)", open("l", O_RDONLY, 0));
	R("link(/dev/null, x) (across mounts)", sc(86, L("/dev/null"), L("x"), 0, 0, 0));
	{
		int fd = open("h", O_RDWR, 0);

		R("unlink(h) while open", sc(87, L("h"), 0, 0, 0, 0));
		R("unlink(hf) while open", sc(87, L("hf"), 0, 0, 0, 0));
		R("write(unlinked h, abc)", write(fd, "abc", 3));
		R("pread64(unlinked h)", sc(17, fd, L(buf), 8, 0, 0));
		show_stat("fstat(unlinked h)", sc(5, fd, L(&st), 0, 0, 0), &st, 1);
	}
}

static void fam_fd(void)
{
	int fd = open("f", O_RDWR | O_CREAT, 0644), i, n;
	long r;

	R("dup(f)", sc(32, fd, 0, 0, 0, 0));
	R("dup(99)", sc(32, 99, 0, 0, 0, 0));
	R("dup2(f, 10)", sc(33, fd, 10, 0, 0, 0));
	R("dup2(f, f)", sc(33, fd, fd, 0, 0, 0));
	R("dup2(99, 99)", sc(33, 99, 99, 0, 0, 0));
	R("dup2(f, 5000)", sc(33, fd, 5000, 0, 0, 0));
	R("dup3(f, f, 0)", sc(292, fd, fd, 0, 0, 0));
	R("dup3(f, 11, O_CLOEXEC)", sc(292, fd, 11, O_CLOEXEC, 0, 0));
	R("fcntl(11, F_GETFD)", sc(72, 11, 1, 0, 0, 0));
	R("dup3(f, 12, 1)", sc(292, fd, 12, 1, 0, 0));
	R("write(10, abc)", write(10, "abc", 3));
	R("lseek(f, 0, SEEK_CUR) shares the offset", sc(8, fd, 0, 1, 0, 0));
	R("fcntl(f, F_DUPFD, 20)", sc(72, fd, 0, 20, 0, 0));
	R("fcntl(f, F_DUPFD, 20) again", sc(72, fd, 0, 20, 0, 0));
	R("fcntl(f, F_DUPFD_CLOEXEC, 0)", sc(72, fd, 1030, 0, 0, 0));
	R("fcntl(f, F_DUPFD, 5000)", sc(72, fd, 0, 5000, 0, 0));
	R("fcntl(f, F_SETFD, FD_CLOEXEC)", sc(72, fd, 2, 1, 0, 0));
	R("fcntl(f, F_GETFD)", sc(72, fd, 1, 0, 0, 0));
	R("fcntl(f, F_GETFL)", sc(72, fd, 3, 0, 0, 0) & ~0100000);
	R("fcntl(f, F_SETFL, O_APPEND|O_NONBLOCK)", sc(72, fd, 4, O_APPEND | O_NONBLOCK, 0, 0));
	R("fcntl(f, F_GETFL) after", sc(72, fd, 3, 0, 0, 0) & ~0100000);
	R("fcntl(f, 12345)", sc(72, fd, 12345, 0, 0, 0));
	R("fcntl(99, F_GETFD)", sc(72, 99, 1, 0, 0, 0));
	/* flock (73): whole-file locks of an open file, shared by its descriptors, gone at its last
	 * close; a request that conflicts fails (LOCK_NB) or waits for the lock in its way */
	{
		int a = open("lk", O_RDWR | O_CREAT, 0644), b = open("lk", O_RDONLY, 0), c, d, st;
		struct timespec nap = { 0, 100000000 };

		R("flock(a, LOCK_EX)", sc(73, a, 2, 0, 0, 0));
		R("flock(b, LOCK_EX|LOCK_NB)", sc(73, b, 6, 0, 0, 0));
		R("flock(b, LOCK_SH|LOCK_NB)", sc(73, b, 5, 0, 0, 0));
		R("flock(a, LOCK_EX) again", sc(73, a, 2, 0, 0, 0));
		R("flock(a, LOCK_SH): a downgrade", sc(73, a, 1, 0, 0, 0));
		R("flock(b, LOCK_SH|LOCK_NB)", sc(73, b, 5, 0, 0, 0));
		R("flock(b, LOCK_EX|LOCK_NB) while a shares", sc(73, b, 6, 0, 0, 0));
		R("flock(b, LOCK_UN)", sc(73, b, 8, 0, 0, 0));
		R("flock(b, LOCK_UN) again", sc(73, b, 8, 0, 0, 0));
		R("flock(a, 0)", sc(73, a, 0, 0, 0, 0));
		R("flock(a, LOCK_SH|LOCK_EX)", sc(73, a, 3, 0, 0, 0));
		R("flock(99, LOCK_SH)", sc(73, 99, 1, 0, 0, 0));
		c = sc(32, a, 0, 0, 0, 0);
		R("close(a), its dup holding the lock", close(a));
		R("flock(b, LOCK_EX|LOCK_NB)", sc(73, b, 6, 0, 0, 0));
		R("flock(dup, LOCK_EX): an upgrade", sc(73, c, 2, 0, 0, 0));
		if (fork() == 0) {
			d = open("lk", O_RDONLY, 0);
			exit(sc(73, d, 1, 0, 0, 0) == 0 ? 5 : 6);	/* waits for the parent's lock */
		}
		nanosleep(&nap, NULL);
		R("flock(dup, LOCK_UN) with a waiter", sc(73, c, 8, 0, 0, 0));
		R("wait4", wait4(-1, &st, 0, NULL) > 0);
		printf("  status %d\n", st);
		R("close(dup): no lock left", close(c));
		R("flock(b, LOCK_EX|LOCK_NB) at last", sc(73, b, 6, 0, 0, 0));
		close(b);
	}
	/* fcntl record locks (72): POSIX locks of the process over byte ranges (its own never
	 * conflict, they merge, split and replace; another process's in the way: EAGAIN, or a wait;
	 * F_GETLK names the one in the way), all of the process's on the file gone at any close of
	 * it; OFD locks of the open file, gone at its last close; EDEADLK for a wait in a cycle */
	{
		int a = open("rl", O_RDWR | O_CREAT, 0644), b = open("rl", O_RDWR, 0), r = open("rl", O_RDONLY, 0);
		long me = getpid(), child;
		struct timespec nap = { 0, 150000000 };
		struct rlock l;
		int st;

		R("F_SETLK(a, WR, 0, 10)", rl(a, 6, 1, 0, 0, 10, 0, NULL));
		R("F_SETLK(a, RD, 5, 10): its own, split", rl(a, 6, 0, 0, 5, 10, 0, NULL));
		show_getlk("F_GETLK(b, WR, 0, 0): own locks", rl(b, 5, 1, 0, 0, 0, 0, &l), &l, me);
		R("F_SETLK(r, WR): not open for writing", rl(r, 6, 1, 0, 0, 1, 0, NULL));
		R("F_SETLK(a, type 7)", rl(a, 6, 7, 0, 0, 1, 0, NULL));
		R("F_SETLK(a, whence 5)", rl(a, 6, 1, 5, 0, 1, 0, NULL));
		R("F_SETLK(a, start -1)", rl(a, 6, 1, 0, -1, 1, 0, NULL));
		R("F_SETLK(a, start 5, len -10)", rl(a, 6, 1, 0, 5, -10, 0, NULL));
		R("F_SETLK(a, start max, len 2)", rl(a, 6, 1, 0, 0x7fffffffffffffffL, 2, 0, NULL));
		R("F_GETLK(a, UNLCK)", rl(a, 5, 2, 0, 0, 1, 0, NULL));
		R("F_OFD_SETLK(a, pid 1)", rl(a, 37, 1, 0, 0, 1, 1, NULL));
		R("F_OFD_GETLK(a, pid 1)", rl(a, 36, 1, 0, 0, 1, 1, NULL));
		R("F_SETLK(99)", rl(99, 6, 1, 0, 0, 1, 0, NULL));
		child = fork();
		if (child == 0) {
			int c = open("rl", O_RDWR, 0);

			show_getlk("child: F_GETLK(WR, 0, 100)", rl(c, 5, 1, 0, 0, 100, 0, &l), &l, me);
			show_getlk("child: F_GETLK(RD, 5, 5)", rl(c, 5, 0, 0, 5, 5, 0, &l), &l, me);
			show_getlk("child: F_GETLK(RD, SEEK_END -20, 20)", rl(c, 5, 0, 2, -20, 20, 0, &l), &l, me);
			R("child: F_SETLK(WR, 10, 10)", rl(c, 6, 1, 0, 10, 10, 0, NULL));
			R("child: F_SETLK(RD, 10, 10)", rl(c, 6, 0, 0, 10, 10, 0, NULL));
			R("child: F_SETLK(WR, 100, 0)", rl(c, 6, 1, 0, 100, 0, 0, NULL));
			exit(0);
		}
		R("wait4", wait4(child, &st, 0, NULL) == child);
		write(a, "0123456789abcdefghij", 20);
		R("close(b): the process's locks on rl go", close(b));
		child = fork();
		if (child == 0) {
			int c = open("rl", O_RDWR, 0);

			show_getlk("child: F_GETLK(WR, 0, 0) after the close", rl(c, 5, 1, 0, 0, 0, 0, &l), &l, me);
			R("child: F_OFD_SETLK(WR, 0, 4)", rl(c, 37, 1, 0, 0, 4, 0, NULL));
			R("child: F_SETLK(WR, 2, 1)", rl(c, 6, 1, 0, 2, 1, 0, NULL));
			R("child: F_OFD_SETLK(RD, 2, 1) of another open file", rl(open("rl", O_RDWR, 0), 37, 0, 0, 2, 1, 0, NULL));
			show_getlk("child: F_OFD_GETLK(WR, 0, 1) of another open file",
				   rl(open("rl", O_RDONLY, 0), 36, 1, 0, 0, 1, 0, &l), &l, getpid());
			R("child: close(c): its OFD lock goes", close(c));
			R("child: F_SETLK(WR, 0, 0) of another open file", rl(open("rl", O_RDWR, 0), 6, 1, 0, 0, 0, 0, NULL));
			exit(0);
		}
		R("wait4", wait4(child, &st, 0, NULL) == child);
		/* a wait, and a deadlock refused: the parent holds byte 0, a child byte 1, then
		 * waits for byte 0; the parent's wait for byte 1 would close the cycle */
		R("F_SETLK(a, WR, 0, 1)", rl(a, 6, 1, 0, 0, 1, 0, NULL));
		child = fork();
		if (child == 0) {
			int c = open("rl", O_RDWR, 0);

			rl(c, 6, 1, 0, 1, 1, 0, NULL);
			exit(rl(c, 7, 1, 0, 0, 1, 0, NULL) == 0 ? 7 : 8);	/* waits for the parent's byte */
		}
		nanosleep(&nap, NULL);
		R("F_SETLKW(a, WR, 1, 1): a deadlock", rl(a, 7, 1, 0, 1, 1, 0, NULL));
		R("F_SETLK(a, UNLCK, 0, 1) with a waiter", rl(a, 6, 2, 0, 0, 1, 0, NULL));
		R("wait4", wait4(child, &st, 0, NULL) == child);
		printf("  status %d\n", st);
		R("F_SETLKW(a, WR, 0, 0) at last", rl(a, 7, 1, 0, 0, 0, 0, NULL));
		close(a);
		close(r);
	}
	/* unshare (272): the fs information and the file table, already the caller's own here */
	R("unshare(CLONE_FILES|CLONE_FS)", sc(272, 0x600, 0, 0, 0, 0));
	R("unshare(CLONE_VM|CLONE_SIGHAND|CLONE_THREAD), one thread", sc(272, 0x10900, 0, 0, 0, 0));
	R("unshare(0)", sc(272, 0, 0, 0, 0, 0));
	R("unshare(1)", sc(272, 1, 0, 0, 0, 0));
	R("readlink(/proc/self/exe) > 0", sc(89, L("/proc/self/exe"), L(name_buf), sizeof(name_buf), 0, 0) > 0);
	R("ioctl(f, FIONREAD)", sc(16, fd, 0x541B, L(&n), 0, 0));
	sc(8, fd, 0, 0, 0, 0);
	sc(16, fd, 0x541B, L(&n), 0, 0);
	printf("  FIONREAD at 0: %d\n", n);
	R("ioctl(f, TCGETS)", sc(16, fd, 0x5401, L(name_buf), 0, 0));
	R("ioctl(f, FIOCLEX)", sc(16, fd, 0x5451, 0, 0, 0));
	R("ioctl(f, FIONCLEX); F_GETFD", sc(16, fd, 0x5450, 0, 0, 0) | sc(72, fd, 1, 0, 0, 0));
	R("ioctl(99, FIONREAD)", sc(16, 99, 0x541B, L(&n), 0, 0));
	R("ioctl(/dev/null, TCGETS)", sc(16, open("/dev/null", O_RDONLY, 0), 0x5401, L(name_buf), 0, 0));
	R("open(/dev/tty)", open("/dev/tty", O_RDWR, 0));
	for (i = 0; i < 3000; i++) {
		r = open("/dev/null", O_RDONLY, 0);
		if (r < 0)
			break;
		n = r;
	}
	R("open until it fails", r);
	printf("  the last fd %d\n", n);
	R("dup2(f, 1023)", sc(33, fd, 1023, 0, 0, 0));
	R("dup2(f, 1024)", sc(33, fd, 1024, 0, 0, 0));
	R("close(1023)", close(1023));
	R("open(/dev/null) again", open("/dev/null", O_RDONLY, 0));
	R("close(-1)", close(-1));
	R("close_range(100, 99, 0)", sc(436, 100, 99, 0, 0, 0));
	R("close_range(100, 200, 1)", sc(436, 100, 200, 1, 0, 0));
	R("close_range(100, 199, CLOSE_RANGE_CLOEXEC)", sc(436, 100, 199, 4, 0, 0));
	R("fcntl(100, F_GETFD)", sc(72, 100, 1, 0, 0, 0));
	R("fcntl(200, F_GETFD)", sc(72, 200, 1, 0, 0, 0));
	R("close_range(10, ~0U, 0)", sc(436, 10, 0xffffffffL, 0, 0, 0));
	R("fcntl(9, F_GETFD)", sc(72, 9, 1, 0, 0, 0));
	R("fcntl(10, F_GETFD)", sc(72, 10, 1, 0, 0, 0));
	R("close(500)", close(500));
	R("open(/dev/null) takes the lowest free fd (10)", open("/dev/null", O_RDONLY, 0));
	R("close_range(10, 10, CLOSE_RANGE_UNSHARE)", sc(436, 10, 10, 2, 0, 0));
	R("close(10)", close(10));
}

static void fam_pipe(void)
{
	int p[2], q[2], status, n;
	static char buf[70000];
	long r, total;

	R("pipe2(p, 0)", sc(293, L(p), 0, 0, 0, 0));
	printf("  fds %d %d\n", p[0], p[1]);
	R("write(p[1], hello)", write(p[1], "hello", 5));
	R("ioctl(p[0], FIONREAD)", sc(16, p[0], 0x541B, L(&n), 0, 0));
	printf("  FIONREAD %d\n", n);
	R("read(p[0], 3)", read(p[0], buf, 3));
	R("read(p[0], 10)", read(p[0], buf, 10));
	R("lseek(p[0])", sc(8, p[0], 0, 0, 0, 0));
	R("pread64(p[0])", sc(17, p[0], L(buf), 1, 0, 0));
	R("write(p[0])", write(p[0], "x", 1));
	R("read(p[1])", read(p[1], buf, 1));
	R("fsync(p[1])", sc(74, p[1], 0, 0, 0, 0));
	R("fcntl(p[1], F_GETPIPE_SZ)", sc(72, p[1], 1032, 0, 0, 0));
	R("fcntl(p[0], F_GETFL)", sc(72, p[0], 3, 0, 0, 0));
	R("fcntl(p[0], F_SETFL, O_NONBLOCK)", sc(72, p[0], 4, O_NONBLOCK, 0, 0));
	R("read(empty p[0], O_NONBLOCK)", read(p[0], buf, 10));
	R("pipe2(q, O_NONBLOCK|O_CLOEXEC)", sc(293, L(q), O_NONBLOCK | O_CLOEXEC, 0, 0, 0));
	R("fcntl(q[1], F_GETFD)", sc(72, q[1], 1, 0, 0, 0));
	memset(buf, 'a', sizeof(buf));
	R("write(q[1], 70000) fills it", write(q[1], buf, 70000));
	R("write(full q[1])", write(q[1], buf, 1));
	R("fcntl(full q[1], F_SETPIPE_SZ, 4096)", sc(72, q[1], 1031, 4096, 0, 0));
	R("fcntl(q[1], F_SETPIPE_SZ, 100000)", sc(72, q[1], 1031, 100000, 0, 0));
	R("fcntl(q[0], F_GETPIPE_SZ)", sc(72, q[0], 1032, 0, 0, 0));
	R("write(q[1], 70000) into the grown ring", write(q[1], buf, 70000));
	R("read(q[0], 70000)", read(q[0], buf, 70000));
	R("fadvise64(p[0], 0, 0, POSIX_FADV_NORMAL)", sc(221, p[0], 0, 0, 0, 0));
	R("pipe2(q, 0x1)", sc(293, L(q), 1, 0, 0, 0));
	R("pipe2(bad address)", sc(293, 16, 0, 0, 0, 0));
	/* a child writes 200000 bytes in pieces and exits; the parent reads them all, then EOF */
	sc(72, p[0], 4, 0, 0, 0);
	if (fork() == 0) {
		close(p[0]);
		memset(buf, 'b', sizeof(buf));
		for (total = 0; total < 200000; total += 5000)
			if (write(p[1], buf, 5000) != 5000)
				exit(1);
		exit(7);
	}
	close(p[1]);
	for (total = 0; (r = read(p[0], buf, sizeof(buf))) > 0; total += r)
		;
	R("read until EOF", r);
	printf("  read %ld bytes\n", total);
	R("wait4", wait4(-1, &status, 0, NULL) > 0);
	printf("  status %d\n", status);
	/* a FIFO */
	R("mknod(fifo, S_IFIFO)", sc(133, L("fifo"), 0010600, 0, 0, 0));
	R("open(fifo, O_WRONLY|O_NONBLOCK) without a reader", open("fifo", O_WRONLY | O_NONBLOCK, 0));
	n = open("fifo", O_RDONLY | O_NONBLOCK, 0);
	R("open(fifo, O_RDONLY|O_NONBLOCK)", n >= 0);
	R("read(fifo) without a writer", read(n, buf, 1));
	r = open("fifo", O_WRONLY, 0);
	R("open(fifo, O_WRONLY) with a reader", r >= 0);
	R("write(fifo, xyz)", write(r, "xyz", 3));
	R("read(fifo)", read(n, buf, 10));
	if (fork() == 0) {
		int w = open("fifo", O_WRONLY, 0);

		write(w, "from the child", 14);
		exit(0);
	}
	close(r);
	wait4(-1, &status, 0, NULL);	/* the FIFO keeps its bytes while a reader (n) holds it */
	R("read(fifo) what an exited child wrote", read(n, buf, 100));
	R("pipe(p)", sc(22, L(p), 0, 0, 0, 0));
	R("fstat(p[0]) is a FIFO", (sc(5, p[0], L(buf), 0, 0, 0) | (((struct kstat_user *)buf)->st_mode & 0170000)) == 0010000);
}

/* exec closes O_CLOEXEC fds, keeps the others; fork shares the open file (its offset) */
static void fam_exec(int argc, char **argv)
{
	char *args[] = { "fsop", "exec-child", argv[2], NULL };
	int fd = open("f", O_RDWR | O_CREAT, 0644), status;

	if (argc > 1 && !strcmp(argv[1], "exec-child")) {
		R("child: fcntl(3, F_GETFD)", sc(72, 3, 1, 0, 0, 0));
		R("child: fcntl(4, F_GETFD)", sc(72, 4, 1, 0, 0, 0));
		R("child: write(3, xy)", write(3, "xy", 2));
		exit(0);
	}
	R("open(f)", fd);
	R("open(f, O_CLOEXEC)", open("f", O_RDONLY | O_CLOEXEC, 0));
	if (fork() == 0) {
		R("child: write(f, abc)", write(fd, "abc", 3));
		exit(0);
	}
	wait4(-1, &status, 0, NULL);
	R("parent: lseek(f, 0, SEEK_CUR) after the child's write", sc(8, fd, 0, 1, 0, 0));
	if (fork() == 0) {
		execve(argv[0], args, NULL);
		exit(99);
	}
	wait4(-1, &status, 0, NULL);
	R("the exec'd child's status", status);
	R("parent: lseek(f, 0, SEEK_CUR) after the exec'd child's write", sc(8, fd, 0, 1, 0, 0));
}


/* three ids as getresuid/getresgid give them */
static void show_ids(const char *what, long nr)
{
	unsigned int r = 7, e = 7, s = 7;

	R(what, sc(nr, L(&r), L(&e), L(&s), 0, 0));
	printf("  %u %u %u\n", r, e, s);
}

/* vfork(2) in line: the child runs on this frame's stack while the parent waits */
static inline long vfork_inline(void)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"(58L) : "rcx", "r11", "memory");
	return ret;
}

struct robust_entry { struct robust_entry *next; long pad; unsigned int word; };
struct robust_head { struct robust_entry *next; long futex_offset; struct robust_entry *pending; };

/* waitid: who ended, how, left waitable (WNOWAIT) or reaped */
static void show_siginfo(const char *what, long ret, const int *si, long child)
{
	R(what, ret);
	printf("  signo %d, code %d, pid is the child's %d, uid %d, status %d\n", si[0], si[2], si[4] == child,
	       si[5], si[6]);
}

static void fam_waitid(void)
{
	int si[32], sync[2], status;
	long child;
	char byte;

	memset(si, 0x55, sizeof(si));
	R("waitid(P_ALL, WEXITED|WNOHANG) without children", sc(247, 0, 0, L(si), 4 | 1, 0));
	R("waitid(P_ALL, 0)", sc(247, 0, 0, L(si), 0, 0));
	R("waitid(P_PID, 0)", sc(247, 1, 0, L(si), 4, 0));
	R("waitid(7)", sc(247, 7, 0, L(si), 4, 0));
	R("waitid(P_PIDFD, 99)", sc(247, 3, 99, L(si), 4, 0));
	sc(22, L(sync), 0, 0, 0, 0);
	child = fork();
	if (child == 0) {
		read(sync[0], &byte, 1);
		exit(7);
	}
	show_siginfo("waitid(P_ALL, WEXITED|WNOHANG) while it runs", sc(247, 0, 0, L(si), 4 | 1, 0), si, 0);
	write(sync[1], "x", 1);
	show_siginfo("waitid(P_PID, WEXITED|WNOWAIT)", sc(247, 1, child, L(si), 4 | 0x01000000, 0), si, child);
	printf("  the rest left as it was: %d\n", si[3] == 0x55555555 && si[8] == 0x55555555);
	show_siginfo("waitid(P_PID, WEXITED) again", sc(247, 1, child, L(si), 4, 0), si, child);
	R("wait4(child) after", wait4(child, &status, 0, NULL));
	child = fork();
	if (child == 0) {
		sc(62, getpid(), 9, 0, 0, 0);
		exit(0);
	}
	show_siginfo("waitid(P_PGID, 0, WEXITED) of a killed child", sc(247, 2, 0, L(si), 4, 0), si, child);
}

/* ITIMER_REAL and alarm; SIGALRM blocked, so it stays pending where it can be seen */
static void fam_itimer(void)
{
	long it[4] = { 0, 0, 10, 0 }, old[4], bad[4] = { 0, 0, 1, 1000000 }, quick[4] = { 0, 0, 0, 50000 };
	unsigned long block = 1UL << 13, set = 0, none = 0, ign[4] = { 1, 0x04000000, 0, 0 };
	struct timespec nap = { 0, 300000000 };

	R("getitimer(ITIMER_REAL) unarmed", sc(36, 0, L(old), 0, 0, 0));
	printf("  %ld %ld %ld %ld\n", old[0], old[1], old[2], old[3]);
	R("setitimer(ITIMER_REAL, 10 s)", sc(38, 0, L(it), 0, 0, 0));
	R("getitimer(ITIMER_REAL)", sc(36, 0, L(old), 0, 0, 0));
	printf("  9 s < left <= 10 s: %d, no interval: %d\n",
	       old[2] * 1000000 + old[3] > 9000000 && old[2] * 1000000 + old[3] <= 10000000, !old[0] && !old[1]);
	R("alarm(5) says the old one's seconds", sc(37, 5, 0, 0, 0, 0));
	R("alarm(0) says 5", sc(37, 0, 0, 0, 0, 0));
	R("setitimer(ITIMER_REAL, 1.000001 s)", sc(38, 0, L(bad), 0, 0, 0));
	R("getitimer(5)", sc(36, 5, L(old), 0, 0, 0));
	R("getitimer(bad address)", sc(36, 0, 16, 0, 0, 0));
	R("rt_sigprocmask(SIG_BLOCK, SIGALRM)", sc(14, 0, L(&block), 0, 8, 0));
	R("setitimer(ITIMER_REAL, 50 ms)", sc(38, 0, L(quick), L(old), 0, 0));
	nanosleep(&nap, NULL);
	R("rt_sigpending() after it ran out", sc(127, L(&set), 8, 0, 0, 0));
	printf("  %lu\n", set);
	R("getitimer(ITIMER_REAL) after", sc(36, 0, L(old), 0, 0, 0));
	printf("  %ld %ld %ld %ld\n", old[0], old[1], old[2], old[3]);
	sc(13, 14, L(ign), 0, 8, 0);	/* SIG_IGN: it goes */
	R("rt_sigprocmask(SIG_SETMASK, none)", sc(14, 2, L(&none), 0, 8, 0));
}

/* process groups and sessions: what does not depend on the caller's own (the host's test
 * runner's, init's in the guest) */
static void fam_pgrp(void)
{
	long me = getpid(), child, moved, own;
	int status, sync[2];
	char byte;

	R("getpgid(0) == getpgrp()", sc(121, 0, 0, 0, 0, 0) == sc(111, 0, 0, 0, 0, 0));
	R("getsid(0) == getsid(getpid())", sc(124, 0, 0, 0, 0, 0) == sc(124, me, 0, 0, 0, 0));
	R("getpgid(4000000)", sc(121, 4000000, 0, 0, 0, 0));
	R("getsid(4000000)", sc(124, 4000000, 0, 0, 0, 0));
	R("setpgid(0, -1)", sc(109, 0, -1, 0, 0, 0));
	R("setpgid(4000000, 0)", sc(109, 4000000, 0, 0, 0, 0));
	R("setpgid(0, 0)", sc(109, 0, 0, 0, 0, 0));
	R("getpgrp() == getpid()", sc(111, 0, 0, 0, 0, 0) == me);
	R("setsid() as a group leader", sc(112, 0, 0, 0, 0, 0));
	R("setpgid(0, 4000000): no such group", sc(109, 0, 4000000, 0, 0, 0));
	sc(22, L(sync), 0, 0, 0, 0);
	child = fork();
	if (child == 0) {	/* it goes on when the parent has moved it (a byte on the pipe) */
		long pid = getpid();

		read(sync[0], &byte, 1);
		R("child: getpgrp() is its own after the parent's setpgid", sc(111, 0, 0, 0, 0, 0) == pid);
		R("child: setpgid(0, parent's group)", sc(109, 0, me, 0, 0, 0));
		R("child: setsid() == getpid() once the group is left", sc(112, 0, 0, 0, 0, 0) == pid);
		R("child: getsid(0) == getpid()", sc(124, 0, 0, 0, 0, 0) == pid);
		R("child: setpgid(0, 0) as a session leader", sc(109, 0, 0, 0, 0, 0));
		exit(0);
	}
	moved = sc(109, child, 0, 0, 0, 0);
	own = sc(121, child, 0, 0, 0, 0) == child;
	write(sync[1], "x", 1);
	wait4(-1, &status, 0, NULL);
	R("setpgid(child, 0)", moved);
	R("getpgid(child) == child", own);
	R("the child's status", status);
	/* wait4 by process group: a child moved to a group of its own is not in ours */
	child = fork();
	if (child == 0) {
		read(sync[0], &byte, 1);
		exit(3);
	}
	R("setpgid(child, 0)", sc(109, child, 0, 0, 0, 0));
	write(sync[1], "x", 1);
	R("wait4(0): none in our group", wait4(0, &status, 0, NULL));
	R("wait4(-child) == child", wait4(-child, &status, 0, NULL) == child);
	R("its status", status);
}

/* a task's ids and what they allow (run as root), its robust futexes, the system's figures */
static void fam_task(void)
{
	static struct robust_head head;
	static struct robust_entry mine, other;
	struct robust_head *got = 0;
	unsigned long len = 0, mask[16];
	long info[14], tms[4], r;
	int status;

	R("getuid()", sc(102, 0, 0, 0, 0, 0));
	R("geteuid()", sc(107, 0, 0, 0, 0, 0));
	R("getgid()", sc(104, 0, 0, 0, 0, 0));
	R("getegid()", sc(108, 0, 0, 0, 0, 0));
	show_ids("getresuid()", 118);
	show_ids("getresgid()", 120);
	R("getresuid(bad address)", sc(118, 16, L(&len), L(&len), 0, 0));
	R("getgroups(-1)", sc(115, -1, 0, 0, 0, 0));
	if (fork() == 0) {	/* the ids are the child's own */
		R("setresgid(-1, 100, -1)", sc(119, -1, 100, -1, 0, 0));
		show_ids("getresgid()", 120);
		R("setfsgid(200) gives the old fsgid", sc(123, 200, 0, 0, 0, 0));
		R("setfsgid(-1) gives the old fsgid", sc(123, -1, 0, 0, 0, 0));
		R("setregid(-1, 0)", sc(114, -1, 0, 0, 0, 0));
		show_ids("getresgid()", 120);
		R("setresuid(-1, 1000, -1)", sc(117, -1, 1000, -1, 0, 0));
		show_ids("getresuid()", 118);
		R("geteuid()", sc(107, 0, 0, 0, 0, 0));
		R("open(f, O_CREAT) in root's 0755 directory as 1000", sc(2, L("f"), 0100 | 1, 0644, 0, 0));
		R("setuid(1000) without the capability", sc(105, 1000, 0, 0, 0, 0));
		R("setresuid(2000, -1, -1) without it", sc(117, 2000, -1, -1, 0, 0));
		R("setfsuid(0) gives the old fsuid", sc(122, 0, 0, 0, 0, 0));
		R("setfsuid(-1) gives the old fsuid", sc(122, -1, 0, 0, 0, 0));
		r = sc(2, L("f"), 0100 | 1, 0644, 0, 0);
		R("open(f, O_CREAT) with fsuid 0", r >= 0);
		R("setresuid(-1, 0, -1)", sc(117, -1, 0, -1, 0, 0));
		R("setreuid(1000, 1000)", sc(113, 1000, 1000, 0, 0, 0));
		show_ids("getresuid()", 118);
		R("setuid(0) as 1000", sc(105, 0, 0, 0, 0, 0));
		R("setfsuid(0) as 1000 gives the old fsuid", sc(122, 0, 0, 0, 0, 0));
		R("setfsuid(-1): unchanged", sc(122, -1, 0, 0, 0, 0));
		R("setgid(5) as 1000", sc(106, 5, 0, 0, 0, 0));
		R("setuid(1000) as 1000", sc(105, 1000, 0, 0, 0, 0));
		R("setuid(-1)", sc(105, -1, 0, 0, 0, 0));
		R("prlimit64(1, RLIMIT_NOFILE) as 1000", sc(302, 1, 7, 0, L(mask), 0));
		{	/* a write by its owner (no CAP_FSETID) drops a file's set-user-id bit */
			struct kstat_user st;
			long sfd = sc(2, L("/tmp/.fsop-suid"), 01 | 0100 | 01000, 0644, 0, 0);

			R("open(/tmp/.fsop-suid) as 1000", sfd >= 0);
			R("chmod(04755)", sc(90, L("/tmp/.fsop-suid"), 04755, 0, 0, 0));
			sc(5, sfd, L(&st), 0, 0, 0);
			R("its mode", st.st_mode & 07777);
			R("write(x)", sc(1, sfd, L("x"), 1, 0, 0));
			sc(5, sfd, L(&st), 0, 0, 0);
			R("its mode after the write", st.st_mode & 07777);
			R("chmod(04755) again", sc(90, L("/tmp/.fsop-suid"), 04755, 0, 0, 0));
			R("write(y)", sc(1, sfd, L("y"), 1, 0, 0));
			sc(5, sfd, L(&st), 0, 0, 0);
			R("its mode after another write", st.st_mode & 07777);
			close(sfd);
			sc(87, L("/tmp/.fsop-suid"), 0, 0, 0, 0);
		}
		exit(0);
	}
	R("wait4", wait4(-1, &status, 0, NULL) > 0);
	R("the parent's geteuid()", sc(107, 0, 0, 0, 0, 0));
	R("prlimit64(1, RLIMIT_NOFILE) as root", sc(302, 1, 7, 0, L(mask), 0));
	/* robust futexes: a child that ends holding a lock leaves it OWNER_DIED, not another's */
	R("set_robust_list(head, 23)", sc(273, L(&head), 23, 0, 0, 0));
	R("set_robust_list(head, 24)", sc(273, L(&head), 24, 0, 0, 0));
	R("get_robust_list(0)", sc(274, 0, L(&got), L(&len), 0, 0));
	printf("  head is ours %d, len %lu\n", got == &head, len);
	R("get_robust_list(-1)", sc(274, -1, L(&got), L(&len), 0, 0));
	head.next = &mine;
	mine.next = &other;
	other.next = (struct robust_entry *)&head;
	head.futex_offset = (long)((char *)&mine.word - (char *)&mine);
	other.word = 12345;
	if (vfork_inline() == 0) {
		mine.word = sc(186, 0, 0, 0, 0, 0) | 0x80000000;	/* held by us, a waiter */
		sc(273, L(&head), 24, 0, 0, 0);
		sc(60, 0, 0, 0, 0, 0);
	}
	wait4(-1, &status, 0, NULL);
	printf("  after the vfork child's exit: %u (others' %u)\n", mine.word, other.word);
	/* what the system says of itself */
	R("sysinfo()", sc(99, L(info), 0, 0, 0, 0));
	printf("  uptime > 0 %d, totalram >= freeram > 0 %d, mem_unit %u, procs > 0 %d\n", info[0] > 0,
	       info[4] >= info[5] && info[5] > 0, (unsigned int)info[13], (unsigned short)info[10] > 0);
	R("sysinfo(bad address)", sc(99, 16, 0, 0, 0, 0));
	r = sc(100, L(tms), 0, 0, 0, 0);
	R("times() > 0", r > 0);
	printf("  utime, stime, cutime, cstime >= 0: %d\n", tms[0] >= 0 && tms[1] >= 0 && tms[2] >= 0 && tms[3] >= 0);
	R("times(NULL) > 0", sc(100, 0, 0, 0, 0, 0) > 0);
	R("times(bad address)", sc(100, 16, 0, 0, 0, 0));
	R("sched_yield()", sc(24, 0, 0, 0, 0, 0));
	/* the scheduling policy: SCHED_OTHER (0), no real-time priority; sched_rr_get_interval (148)
	 * gives the slice, under a second */
	{
		int prio = 7;
		struct timespec rr = { 7, 7 };

		R("sched_getscheduler(0)", sc(145, 0, 0, 0, 0, 0));
		R("sched_getscheduler(-1)", sc(145, -1, 0, 0, 0, 0));
		R("sched_getparam(0)", sc(143, 0, L(&prio), 0, 0, 0));
		printf("  sched_priority %d\n", prio);
		R("sched_getparam(0, NULL)", sc(143, 0, 0, 0, 0, 0));
		R("sched_getparam(0, bad address)", sc(143, 0, 16, 0, 0, 0));
		R("sched_get_priority_max(SCHED_FIFO)", sc(146, 1, 0, 0, 0, 0));
		R("sched_get_priority_min(SCHED_RR)", sc(147, 2, 0, 0, 0, 0));
		R("sched_get_priority_max(SCHED_OTHER)", sc(146, 0, 0, 0, 0, 0));
		R("sched_get_priority_min(SCHED_BATCH)", sc(147, 3, 0, 0, 0, 0));
		R("sched_get_priority_max(4)", sc(146, 4, 0, 0, 0, 0));
		R("sched_rr_get_interval(0)", sc(148, 0, L(&rr), 0, 0, 0));
		printf("  under a second %d\n", rr.tv_sec == 0 && rr.tv_nsec < 1000000000);
		R("sched_rr_get_interval(-1)", sc(148, -1, L(&rr), 0, 0, 0));
		R("sched_rr_get_interval(0, bad address)", sc(148, 0, 16, 0, 0, 0));
	}
	{
		unsigned int cpu = 999, node = 999;

		R("getcpu(&cpu, &node, NULL)", sc(309, L(&cpu), L(&node), 0, 0, 0));
		printf("  cpu < 64 %d, node %u\n", cpu < 64, node);
		R("getcpu(NULL, NULL, NULL)", sc(309, 0, 0, 0, 0, 0));
		R("getcpu(bad address)", sc(309, 16, 0, 0, 0, 0));
	}
	{
		unsigned long set = 0, block = 1UL << 9;	/* SIGUSR1 */
		unsigned long ign[4] = { 1, 0x04000000, 0, 0 };	/* SIG_IGN, SA_RESTORER */

		R("rt_sigpending(set, 8)", sc(127, L(&set), 8, 0, 0, 0));
		printf("  %lu\n", set);
		R("rt_sigprocmask(SIG_BLOCK, SIGUSR1)", sc(14, 0, L(&block), 0, 8, 0));
		R("kill(getpid(), SIGUSR1)", sc(62, getpid(), 10, 0, 0, 0));
		R("rt_sigpending(set, 8)", sc(127, L(&set), 8, 0, 0, 0));
		printf("  %lu\n", set);
		R("rt_sigpending(set, 9)", sc(127, L(&set), 9, 0, 0, 0));
		R("rt_sigpending(set, 4)", sc(127, L(&set), 4, 0, 0, 0));
		R("rt_sigpending(bad address, 8)", sc(127, 16, 8, 0, 0, 0));
		block = 0;
		R("rt_sigaction(SIGUSR1, SIG_IGN) drops it", sc(13, 10, L(ign), 0, 8, 0));
		R("rt_sigpending(set, 8)", sc(127, L(&set), 8, 0, 0, 0));
		printf("  %lu\n", set);
		R("rt_sigprocmask(SIG_SETMASK, none)", sc(14, 2, L(&block), 0, 8, 0));
	}
	memset(mask, 0, sizeof(mask));
	r = sc(204, 0, sizeof(mask), L(mask), 0, 0);
	R("sched_getaffinity(0, 128): a multiple of 8", r > 0 && r % 8 == 0);
	printf("  cpu 0 in it %lu\n", mask[0] & 1);
	R("sched_getaffinity(0, 12)", sc(204, 0, 12, L(mask), 0, 0));
	R("sched_getaffinity(0, 0)", sc(204, 0, 0, L(mask), 0, 0));
	R("sched_getaffinity(-1, 128)", sc(204, -1, sizeof(mask), L(mask), 0, 0));
	R("sched_getaffinity(bad address)", sc(204, 0, sizeof(mask), 16, 0, 0));
	fam_pgrp();
	fam_itimer();
	fam_waitid();
	/* getpriority/setpriority (140, 141): the nice raised (any task may), read back as 20 - nice */
	R("setpriority(PRIO_PROCESS, 0, 19)", sc(141, 0, 0, 19, 0, 0));
	R("getpriority(PRIO_PROCESS, 0)", sc(140, 0, 0, 0, 0, 0));
	R("setpriority(PRIO_PROCESS, self, 100): at most 19", sc(141, 0, sc(39, 0, 0, 0, 0, 0), 100, 0, 0));
	R("getpriority(PRIO_PROCESS, self)", sc(140, 0, sc(39, 0, 0, 0, 0, 0), 0, 0, 0));
	R("setpriority(PRIO_PROCESS, -1, 19)", sc(141, 0, -1, 19, 0, 0));
	R("getpriority(PRIO_PROCESS, -1)", sc(140, 0, -1, 0, 0, 0));
	R("setpriority(3, 0, 0)", sc(141, 3, 0, 0, 0, 0));
	R("getpriority(-1, 0)", sc(140, -1, 0, 0, 0, 0));
	/* ioprio_set (251), ioprio_get (252): best effort level 7, then idle, read back; a child
	 * inherits it */
	{
		int st;

		R("ioprio_set(PROCESS, 0, BE 7)", sc(251, 1, 0, (2 << 13) | 7, 0, 0));
		R("ioprio_get(PROCESS, 0)", sc(252, 1, 0, 0, 0, 0));
		R("ioprio_get(PROCESS, self)", sc(252, 1, getpid(), 0, 0, 0));
		if (fork() == 0)
			exit(sc(252, 1, 0, 0, 0, 0) == ((2 << 13) | 7) ? 3 : 4);
		R("wait4", wait4(-1, &st, 0, NULL) > 0);
		printf("  the child's: status %d\n", st);
		R("ioprio_set(PROCESS, 0, IDLE)", sc(251, 1, 0, 3 << 13, 0, 0));
		R("ioprio_get(PROCESS, 0)", sc(252, 1, 0, 0, 0, 0));
		R("ioprio_set(PROCESS, 0, class 5)", sc(251, 1, 0, 5 << 13, 0, 0));
		R("ioprio_set(PROCESS, 0, NONE 1)", sc(251, 1, 0, 1, 0, 0));
		R("ioprio_set(4, 0, BE 4)", sc(251, 4, 0, (2 << 13) | 4, 0, 0));
		R("ioprio_get(0, 0)", sc(252, 0, 0, 0, 0, 0));
		R("ioprio_get(PROCESS, -1)", sc(252, 1, -1, 0, 0, 0));
		R("ioprio_set(PROCESS, -1, BE 4)", sc(251, 1, -1, (2 << 13) | 4, 0, 0));
		R("ioprio_set(PROCESS, 0, BE 4)", sc(251, 1, 0, (2 << 13) | 4, 0, 0));
	}
	/* rt_sigtimedwait (128): a blocked signal taken without its handler, with its siginfo; none
	 * in time: EAGAIN */
	{
		unsigned long usr2 = 1UL << 11;
		struct { int signo, err, code, pad, pid; unsigned int uid; char rest[104]; } si;
		struct timespec wait = { 0, 20000000 }, zero = { 0, 0 }, bad = { 0, 1000000000 };

		R("rt_sigprocmask(SIG_BLOCK, SIGUSR2)", sc(14, 0, L(&usr2), 0, 8, 0));
		R("kill(getpid(), SIGUSR2)", sc(62, getpid(), 12, 0, 0, 0));
		memset(&si, 0x55, sizeof(si));
		R("rt_sigtimedwait(SIGUSR2)", sc(128, L(&usr2), L(&si), 0, 8, 0));
		printf("  signo %d, errno %d, code %d, pid is mine %d, uid %u\n", si.signo, si.err, si.code,
		       si.pid == getpid(), si.uid);
		R("rt_sigtimedwait(SIGUSR2, 20 ms)", sc(128, L(&usr2), L(&si), L(&wait), 8, 0));
		R("rt_sigtimedwait(SIGUSR2, 0 s)", sc(128, L(&usr2), L(&si), L(&zero), 8, 0));
		R("rt_sigtimedwait(SIGUSR2, 1e9 ns)", sc(128, L(&usr2), L(&si), L(&bad), 8, 0));
		R("rt_sigtimedwait(SIGUSR2, size 4)", sc(128, L(&usr2), L(&si), L(&zero), 4, 0));
		R("tkill(gettid(), SIGUSR2)", sc(200, sc(186, 0, 0, 0, 0, 0), 12, 0, 0, 0));
		R("rt_sigtimedwait(SIGUSR2, no siginfo, 0 s)", sc(128, L(&usr2), 0, L(&zero), 8, 0));
		/* rt_sigqueueinfo (129), rt_tgsigqueueinfo (297): the sender's own siginfo */
		memset(&si, 0, sizeof(si));
		si.code = -1;	/* SI_QUEUE */
		si.pid = getpid();
		R("rt_sigqueueinfo(self, SIGUSR2, SI_QUEUE)", sc(129, getpid(), 12, L(&si), 0, 0));
		memset(&si, 0x55, sizeof(si));
		R("rt_sigtimedwait(SIGUSR2) of it", sc(128, L(&usr2), L(&si), L(&zero), 8, 0));
		printf("  signo %d, code %d, pid is mine %d\n", si.signo, si.code, si.pid == getpid());
		memset(&si, 0, sizeof(si));
		si.code = -1;
		R("rt_tgsigqueueinfo(self, self, SIGUSR2, SI_QUEUE)",
		  sc(297, getpid(), sc(186, 0, 0, 0, 0, 0), 12, L(&si), 0));
		R("rt_sigtimedwait(SIGUSR2) of it", sc(128, L(&usr2), L(&si), L(&zero), 8, 0));
		printf("  signo %d, code %d\n", si.signo, si.code);
		memset(&si, 0, sizeof(si));
		R("rt_sigqueueinfo(1, SIGUSR2, SI_USER)", sc(129, 1, 12, L(&si), 0, 0));
		R("rt_sigqueueinfo(self, 99, SI_USER)", sc(129, getpid(), 99, L(&si), 0, 0));
		R("rt_sigqueueinfo(self, SIGUSR2, bad address)", sc(129, getpid(), 12, 16, 0, 0));
		R("rt_tgsigqueueinfo(0, 1, SIGUSR2)", sc(297, 0, 1, 12, L(&si), 0));
		R("rt_tgsigqueueinfo(self, 1, SIGUSR2, SI_USER)", sc(297, getpid(), 1, 12, L(&si), 0));
		R("rt_sigprocmask(SIG_UNBLOCK, SIGUSR2)", sc(14, 1, L(&usr2), 0, 8, 0));
	}
}

/* the lines of /proc/self/maps: one per VMA */
static long maps_lines(void)
{
	static char buf[16384];
	int fd = open("/proc/self/maps", O_RDONLY, 0);
	long n, total = 0, lines = 0, i;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0, total += n; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

/* madvise on an anonymous mapping and a file's */
static void fam_mm(void)
{
	long P = 4096, before;
	char *p = (char *)sc(9, 0, 4 * 4096, 3, 0x22, -1), *f;
	int fd, status, i;

	for (i = 0; i < 4; i++)
		p[i * P] = 'A' + i;
	R("madvise(p, 1 page, MADV_DONTNEED)", sc(28, L(p), P, 4, 0, 0));
	printf("  page 0 %d, page 1 %c\n", p[0], p[P]);
	R("madvise(p + 1, 1 page, MADV_DONTNEED)", sc(28, L(p + 1), P, 4, 0, 0));
	R("madvise(p, 1 page, 99)", sc(28, L(p), P, 99, 0, 0));
	R("madvise(p, 0, MADV_DONTNEED)", sc(28, L(p), 0, 4, 0, 0));
	R("madvise(p, -1, MADV_NORMAL)", sc(28, L(p), -1, 0, 0, 0));
	R("madvise(p, 1 page, MADV_FREE)", sc(28, L(p + P), P, 8, 0, 0));
	printf("  page 1 %c\n", p[P]);
	R("madvise(p, 4 pages, MADV_WILLNEED)", sc(28, L(p), 4 * P, 3, 0, 0));
	R("madvise(p, 4 pages, MADV_SEQUENTIAL)", sc(28, L(p), 4 * P, 2, 0, 0));
	before = maps_lines();
	R("madvise(p + 1 page, 1 page, MADV_DONTDUMP)", sc(28, L(p + P), P, 16, 0, 0));
	printf("  VMAs: %ld more\n", maps_lines() - before);
	R("madvise(p + 1 page, 1 page, MADV_DODUMP)", sc(28, L(p + P), P, 17, 0, 0));
	R("madvise(p + 2 pages, 1 page, MADV_WIPEONFORK)", sc(28, L(p + 2 * P), P, 18, 0, 0));
	R("madvise(p + 3 pages, 1 page, MADV_DONTFORK)", sc(28, L(p + 3 * P), P, 10, 0, 0));
	if (fork() == 0)
		exit(p[2 * P] == 0 && p[P] == 'B' ? 0 : 1);
	wait4(-1, &status, 0, NULL);
	R("a child's wiped page is empty, its others copied", status);
	R("madvise(p, 4 pages, MADV_POPULATE_WRITE)", sc(28, L(p), 4 * P, 23, 0, 0));
	R("munmap(p + 1 page, 1 page)", sc(11, L(p + P), P, 0, 0, 0));
	R("madvise(p, 4 pages, MADV_DONTNEED) over the hole", sc(28, L(p), 4 * P, 4, 0, 0));
	printf("  page 2 %d (zapped after the hole too)\n", p[2 * P]);
	R("madvise(unmapped, 1 page, MADV_NORMAL)", sc(28, L(p + P), P, 0, 0, 0));
	/* a file's private mapping */
	fd = open("f", O_RDWR | 0100, 0644);
	R("write(f, 1 page)", write(fd, p, P) == P);
	f = (char *)sc(9, 0, P, 1, 2, fd);
	R("madvise(file, MADV_FREE)", sc(28, L(f), P, 8, 0, 0));
	R("madvise(file, MADV_WIPEONFORK)", sc(28, L(f), P, 18, 0, 0));
	R("madvise(file, MADV_REMOVE)", sc(28, L(f), P, 9, 0, 0));
	R("madvise(file, MADV_POPULATE_WRITE) read-only", sc(28, L(f), P, 23, 0, 0));
	R("madvise(file, MADV_POPULATE_READ)", sc(28, L(f), P, 22, 0, 0));
	R("madvise(file, MADV_DONTNEED)", sc(28, L(f), P, 4, 0, 0));
	printf("  reads again: %d\n", f[0] == p[0]);
	close(fd);
}

/* Files made and removed a while later (BCC's filelife: their ages): one by open(O_CREAT),
 * one by mknod(S_IFREG), each unlinked after 0.3 s. */
static void fam_life(void)
{
	struct timespec pause = { 0, 300000000 };
	int fd = open("created", O_WRONLY | O_CREAT | O_EXCL, 0644);

	R("open(created, O_CREAT|O_EXCL) >= 0", fd >= 0);
	R("close(created)", close(fd));
	R("mknod(made, S_IFREG)", sc(133, L("made"), 0100644, 0, 0, 0));
	R("nanosleep(0.3 s)", nanosleep(&pause, 0));
	R("unlink(created)", sc(87, L("created"), 0, 0, 0, 0));
	R("unlink(made)", sc(87, L("made"), 0, 0, 0, 0));
}

/* what a mapping at a fixed address gives: 0 where it is the address asked for */
static long map_fixed(unsigned long addr)
{
	long r = sc(9, addr, 4096, 3, 0x32, -1);	/* PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED */

	if (r == (long)addr)
		sc(11, addr, 4096, 0, 0, 0);
	return r == (long)addr ? 0 : r;
}

/* The capability checks the hooks make: a mapping below mmap_min_addr needs CAP_SYS_RAWIO, a
 * signal to another user's process CAP_KILL (but SIGCONT within the session), chroot
 * CAP_SYS_CHROOT; run as root, then
 * by a child that became uid 1000. */
static void fam_cap(void)
{
	int status, parent = sc(39, 0, 0, 0, 0, 0);

	R("mmap(0, MAP_FIXED) as root", map_fixed(0));
	R("mmap(0x10000, MAP_FIXED) as root", map_fixed(0x10000));
	R("kill(1, 0) as root", sc(62, 1, 0, 0, 0, 0));
	/* capget (125): the header's version checked (an unknown one told v3's) */
	{
		struct { unsigned int version; int pid; } hdr = { 0x20080522, 0 };
		unsigned int data[6];

		R("capget(v3, self) as root", sc(125, L(&hdr), L(data), 0, 0, 0));
		hdr.version = 0x19980330;
		R("capget(v1, self) as root", sc(125, L(&hdr), L(data), 0, 0, 0));
		hdr.version = 1;
		R("capget(version 1)", sc(125, L(&hdr), L(data), 0, 0, 0));
		printf("  version told %u\n", hdr.version);
		hdr.version = 1;
		R("capget(version 1, NULL data): the version asked for", sc(125, L(&hdr), 0, 0, 0, 0));
		hdr.version = 0x20080522;
		hdr.pid = -1;
		R("capget(v3, -1)", sc(125, L(&hdr), L(data), 0, 0, 0));
		R("capget(bad header)", sc(125, 16, L(data), 0, 0, 0));
	}
	/* root's files, one only it may write, one anyone may */
	R("fchmod(mine, 0644)", sc(91, open("mine", O_RDWR | 0100, 0644), 0644, 0, 0, 0));
	R("fchmod(shared, 0666)", sc(91, open("shared", O_RDWR | 0100, 0644), 0666, 0, 0, 0));
	if (fork() == 0) {
		struct { long sec, nsec; } times[2] = { { 1, 0 }, { 2, 0 } };

		R("chroot(.) as root (the child's own root)", sc(161, L("."), 0, 0, 0, 0));
		R("setresuid(1000, 1000, 1000)", sc(117, 1000, 1000, 1000, 0, 0));
		R("chmod(root's file) as 1000", sc(90, L("mine"), 0600, 0, 0, 0));
		R("utimensat(root's file, times) as 1000", sc(280, AT_FDCWD, L("shared"), L(times), 0, 0));
		R("utimensat(root's 0644 file, now) as 1000", sc(280, AT_FDCWD, L("mine"), 0, 0, 0));
		R("utimensat(root's 0666 file, now) as 1000", sc(280, AT_FDCWD, L("shared"), 0, 0, 0));
		R("truncate(root's 0666 file, 1) as 1000", sc(76, L("shared"), 1, 0, 0, 0));
		R("truncate(root's 0666 file, -1) as 1000", sc(76, L("shared"), -1, 0, 0, 0));
		R("mmap(0, MAP_FIXED) as 1000", map_fixed(0));
		R("mmap(0x10000, MAP_FIXED) as 1000", map_fixed(0x10000));
		R("kill(1, 0) as 1000", sc(62, 1, 0, 0, 0, 0));
		R("kill(parent, 0) as 1000", sc(62, parent, 0, 0, 0, 0));
		R("kill(parent, SIGCONT) as 1000 (same session)", sc(62, parent, 18, 0, 0, 0));
		R("tgkill(parent, parent, 0) as 1000", sc(234, parent, parent, 0, 0, 0));
		R("kill(self, 0) as 1000", sc(62, sc(39, 0, 0, 0, 0, 0), 0, 0, 0, 0));
		R("chroot(.) as 1000", sc(161, L("."), 0, 0, 0, 0));
		{
			struct { unsigned int version; int pid; } hdr = { 0x20080522, 0 };
			unsigned int data[6] = { 7, 7, 7, 7, 7, 7 };

			R("capget(v3, self) as 1000", sc(125, L(&hdr), L(data), 0, 0, 0));
			printf("  effective %u %u, permitted %u %u\n", data[0], data[3], data[1], data[4]);
		}
		exit(0);
	}
	R("wait4", wait4(-1, &status, 0, NULL) > 0);
	printf("  status %d\n", status);
}

/* fsop xattr PATH...: the extended attribute calls a `ls -l` and a user make on each path */
static void xattrs(int argc, char **argv)
{
	static char value[300], longname[300];
	int i;

	memset(longname, 'a', sizeof(longname) - 1);
	for (i = 2; i < argc; i++) {
		long r;

		printf("%s:\n", argv[i]);
		R("lgetxattr(security.selinux, 255)", sc(192, L(argv[i]), L("security.selinux"), L(value), 255, 0));
		R("getxattr(system.posix_acl_access, NULL, 0)", sc(191, L(argv[i]), L("system.posix_acl_access"), 0, 0, 0));
		R("getxattr(user.tracefs_sim_none, NULL, 0)", sc(191, L(argv[i]), L("user.tracefs_sim_none"), 0, 0, 0));
		r = sc(191, L(argv[i]), L("user.tracefs_sim"), L(value), sizeof(value), 0);
		R("getxattr(user.tracefs_sim)", r);
		if (r > 0) {
			value[r] = 0;
			printf("  %s\n", value);
			R("getxattr(user.tracefs_sim, 1 byte)", sc(191, L(argv[i]), L("user.tracefs_sim"), L(value), 1, 0));
			R("getxattr(user.tracefs_sim, bad buffer)", sc(191, L(argv[i]), L("user.tracefs_sim"), 16, 64, 0));
		}
		R("getxattr(\"\")", sc(191, L(argv[i]), L(""), 0, 0, 0));
		R("getxattr(300-byte name)", sc(191, L(argv[i]), L(longname), 0, 0, 0));
	R("llistxattr(NULL, 0)", sc(195, L(argv[i]), 0, 0, 0, 0));
		R("listxattr(NULL, 0)", sc(194, L(argv[i]), 0, 0, 0, 0));
		R("listxattr(1 byte)", sc(194, L(argv[i]), L(value), 1, 0, 0));
	}
}

/* ---- /proc/locks ---- */

struct lock_names { long major, minor, ino, pids[3]; const char *pid_names[3]; long ids[16]; int nids; };

/* a token's value: hex or decimal digits from s up to a non-digit; *end after them */
static long parse_num(const char *s, int base, const char **end)
{
	long v = 0;

	for (;; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : base == 16 && *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0)
			break;
		v = v * base + d;
	}
	*end = s;
	return v;
}

/* One /proc/locks line, if it is a lock on the file: as the kernel wrote it but for its id
 * (numbered by first appearance), the pid (named) and the device and inode ("DEV:INO") */
static void show_lock_line(const char *line, const char *stop, struct lock_names *n)
{
	const char *p = line, *tok[12], *tend[12], *e;
	int ntok = 0, i, dev = -1, id_index;
	long id;

	while (p < stop && ntok < 12) {
		while (p < stop && *p == ' ')
			p++;
		if (p >= stop)
			break;
		tok[ntok] = p;
		while (p < stop && *p != ' ')
			p++;
		tend[ntok++] = p;
	}
	for (i = 0; i < ntok && dev < 0; i++) {
		const char *q = tok[i];
		long major, minor, ino;

		/* a lease breaker's (a request of no file): "<none>:0" */
		if (tend[i] - q == 8 && !strncmp(q, "<none>:0", 8)) {
			dev = i;
			break;
		}
		major = parse_num(q, 16, &e);

		if (e == q || *e != ':')
			continue;
		minor = parse_num(q = e + 1, 16, &e);
		if (e == q || *e != ':')
			continue;
		ino = parse_num(q = e + 1, 10, &e);
		if (e != tend[i])
			continue;
		if (major != n->major || minor != n->minor || ino != n->ino)
			return;
		dev = i;
	}
	if (dev < 1)
		return;
	id = parse_num(line, 10, &e);
	for (id_index = 0; id_index < n->nids && n->ids[id_index] != id; id_index++)
		;
	if (id_index == n->nids && n->nids < 16)
		n->ids[n->nids++] = id;
	printf("%d", id_index + 1);
	write(1, e, tok[dev - 1] - e);
	{
		long pid = parse_num(tok[dev - 1], 10, &e);
		const char *name = *tok[dev - 1] == '-' ? "-1" : "other";	/* (an OFD lock's: -1) */

		for (i = 0; i < 3 && *name == 'o'; i++)
			if (n->pids[i] && n->pids[i] == pid)
				name = n->pid_names[i];
		printf("%s %s", name, *tok[dev] == '<' ? "<none>:0" : "DEV:INO");
	}
	write(1, tend[dev], stop - tend[dev]);
	write(1, "\n", 1);
}

/* A /proc file's text (what fits of it) after the heading `what`; its length, or -1 (shown) */
static long read_proc_text(const char *what, const char *path, char *text, long size)
{
	int fd = open(path, O_RDONLY, 0);
	long len = 0, r;

	printf("%s:\n", what);
	if (fd < 0) {
		show("open", fd);
		return -1;
	}
	while (len < size - 1 && (r = read(fd, text + len, size - 1 - len)) > 0)
		len += r;
	close(fd);
	text[len] = 0;
	return len;
}

static void show_proc_locks(const char *what, struct lock_names *n)
{
	static char text[8192];
	long len = read_proc_text(what, "/proc/locks", text, sizeof(text));
	char *line, *nl;

	if (len < 0)
		return;
	n->nids = 0;
	for (line = text; (nl = memchr(line, '\n', text + len - line)); line = nl + 1)
		show_lock_line(line, nl, n);
}

/* /proc/self/fdinfo/FD (6.1's fs/proc/fd.c seq_show): its position and flags, that it has a
 * mount id and an inode, and its lock lines ("lock:\t" and a /proc/locks line, named as there) */
static void show_fdinfo(const char *what, int fd, struct lock_names *n)
{
	static char text[4096];
	char path[64];
	long len;
	char *line, *nl;

	memcpy(path, "/proc/self/fdinfo/", 18);
	path[18] = '0' + fd / 10;	/* (fds below 100) */
	path[19] = '0' + fd % 10;
	path[20] = 0;
	if (fd < 10)
		path[18] = '0' + fd, path[19] = 0;
	len = read_proc_text(what, path, text, sizeof(text));
	if (len < 0)
		return;
	n->nids = 0;
	for (line = text; (nl = memchr(line, '\n', text + len - line)); line = nl + 1) {
		if (!strncmp(line, "pos:", 4) || !strncmp(line, "flags:", 6)) {
			write(1, line, nl + 1 - line);
		} else if (!strncmp(line, "mnt_id:\t", 8) || !strncmp(line, "ino:\t", 5)) {
			write(1, line, (char *)memchr(line, '\t', nl - line) + 1 - line);
			printf("N\n");
		} else if (!strncmp(line, "eventfd-semaphore: ", 19)) {
			;	/* (6.5's line: not 6.1's) */
		} else if (!strncmp(line, "eventfd-id: ", 12)) {
			printf("eventfd-id: N\n");
		} else if (!strncmp(line, "tfd: ", 5)) {	/* up to pos:, then ino and sdev as N */
			char *ino = memchr(line, 'i', nl - line);

			while (ino && strncmp(ino, "ino:", 4))
				ino = memchr(ino + 1, 'i', nl - ino - 1);
			write(1, line, ino ? ino - line : nl - line);
			printf("ino:N sdev:N\n");
		} else if (!strncmp(line, "lock:\t", 6)) {
			write(1, "lock:\t", 6);
			show_lock_line(line + 6, nl, n);
		} else {
			write(1, line, nl + 1 - line);
		}
	}
}

/* The names show_proc_locks() gives: the file's device and inode, this process and two children */
static void lock_names_of(int fd, struct lock_names *n)
{
	struct kstat_user ks;

	sc(5, fd, L(&ks), 0, 0, 0);
	n->major = (ks.st_dev >> 8) & 0xfff;
	n->minor = (ks.st_dev & 0xff) | ((ks.st_dev >> 12) & 0xfff00);
	n->ino = ks.st_ino;
	n->pids[0] = getpid();
	n->pid_names[0] = "PID";
	n->pid_names[1] = "CHILD1";
	n->pid_names[2] = "CHILD2";
}

/* /proc/locks (lock_get_status()'s lines) while a file has a flock lock, POSIX locks of the
 * process, an OFD lock, and two requests of children blocked on one of them */
static void fam_proclocks(void)
{
	int a = open("pl", O_RDWR | O_CREAT, 0644), b = open("pl", O_RDWR, 0), st, i;
	struct timespec nap = { 0, 200000000 };
	struct lock_names n = { 0 };
	long child[2];

	lock_names_of(a, &n);
	R("flock(a, LOCK_SH)", sc(73, a, 1, 0, 0, 0));
	R("F_SETLK(a, WR, 0, 10)", rl(a, 6, 1, 0, 0, 10, 0, NULL));
	R("F_SETLK(a, RD, 20, 0)", rl(a, 6, 0, 0, 20, 0, 0, NULL));
	R("F_OFD_SETLK(b, RD, 100, 10)", rl(b, 37, 0, 0, 100, 10, 0, NULL));
	show_proc_locks("held", &n);
	show_fdinfo("fdinfo of a", a, &n);
	show_fdinfo("fdinfo of b", b, &n);
	R("F_SETFD(b, FD_CLOEXEC)", sc(72, b, 2, 1, 0, 0));
	R("lseek(b, 7)", sc(8, b, 7, 0, 0, 0));
	show_fdinfo("fdinfo of b, close-on-exec, at 7", b, &n);
	for (i = 0; i < 2; i++) {
		child[i] = fork();
		if (child[i] == 0) {
			int c = open("pl", O_RDWR, 0);

			rl(c, 7, 1, 0, 0, 5, 0, NULL);	/* F_SETLKW: waits for the parent's */
			exit(0);
		}
		n.pids[1 + i] = child[i];
		nanosleep(&nap, NULL);
	}
	show_proc_locks("two waiters", &n);
	R("F_SETLK(a, UNLCK, 0, 10)", rl(a, 6, 2, 0, 0, 10, 0, NULL));
	for (i = 0; i < 2; i++)
		R("wait4", wait4(child[i], &st, 0, NULL) == child[i]);
	R("close(b): the OFD lock goes", close(b));
	show_proc_locks("after", &n);
	close(a);
	sc(87, L("pl"), 0, 0, 0, 0);
}

/* the siginfo rt_sigtimedwait took: signo, code, and for send_sigio's si_band and si_fd */
struct poll_siginfo { int signo, err, code, pad; long band; int fd; char rest[100]; };

/* A pending signal of `mask` taken at once (rt_sigtimedwait, 0 s): which, with its siginfo */
static void take_signal(const char *what, unsigned long mask, int fd)
{
	struct poll_siginfo si;
	struct timespec zero = { 0, 0 };
	long r;

	memset(&si, 0x55, sizeof(si));
	r = sc(128, L(&mask), L(&si), L(&zero), 8, 0);
	R(what, r);
	if (r == 10)	/* F_SETSIG's: POLL_* code, the band, the fd */
		printf("  code %d band %ld fd is it %d\n", si.code, si.band, si.fd == fd);
	else if (r > 0)
		printf("  code %d\n", si.code);
}

/* Leases (F_SETLEASE/F_GETLEASE): what conflicts with which open; a break signals the holder
 * (SIGIO, or F_SETSIG's signal with POLL_MSG), shows in /proc/locks as BREAKING (and the waiting
 * open as a BREAKER under it), makes an O_NONBLOCK open fail with EWOULDBLOCK and a blocking one
 * (or truncate) wait until the holder downgrades or gives the lease up */
static void fam_lease(void)
{
	unsigned long sigs = (1UL << (29 - 1)) | (1UL << (10 - 1));	/* SIGIO, SIGUSR1: taken by hand */
	struct timespec nap = { 0, 200000000 };
	struct lock_names n = { 0 };
	int a, b, c, st, p[2];
	long child;

	R("rt_sigprocmask(SIG_BLOCK, SIGIO|SIGUSR1)", sc(14, 0, L(&sigs), 0, 8, 0));
	b = open("f", O_RDWR | O_CREAT, 0644);
	lock_names_of(b, &n);
	close(b);
	a = open("f", O_RDONLY, 0);
	R("F_GETLEASE(a) without one", sc(72, a, 1025, 0, 0, 0));
	R("F_SETLEASE(a, 5)", sc(72, a, 1024, 5, 0, 0));
	R("F_SETLEASE(a, F_UNLCK) without one", sc(72, a, 1024, 2, 0, 0));
	R("F_GETSIG(a)", sc(72, a, 11, 0, 0, 0));
	R("F_SETLEASE(a, F_WRLCK): a is the only open", sc(72, a, 1024, 1, 0, 0));
	R("F_GETLEASE(a)", sc(72, a, 1025, 0, 0, 0));
	R("F_GETOWN(a) is me (the lease's holder)", sc(72, a, 9, 0, 0, 0) == getpid());
	show_proc_locks("a write lease", &n);
	show_fdinfo("fdinfo of a", a, &n);
	R("F_SETLEASE(a, F_WRLCK) again", sc(72, a, 1024, 1, 0, 0));
	R("open(f, O_RDONLY|O_NONBLOCK) breaks it", open("f", O_RDONLY | O_NONBLOCK, 0));
	R("F_GETLEASE(a): to be downgraded", sc(72, a, 1025, 0, 0, 0));
	show_proc_locks("breaking to a read lease", &n);
	take_signal("rt_sigtimedwait: SIGIO to the holder", sigs, a);
	R("F_SETSIG(a, SIGUSR1)", sc(72, a, 10, 10, 0, 0));
	R("F_GETSIG(a)", sc(72, a, 11, 0, 0, 0));
	R("F_SETSIG(a, 65)", sc(72, a, 10, 65, 0, 0));
	R("F_SETLEASE(a, F_RDLCK): downgraded", sc(72, a, 1024, 0, 0, 0));
	R("F_GETLEASE(a)", sc(72, a, 1025, 0, 0, 0));
	show_proc_locks("a read lease", &n);
	b = open("f", O_RDONLY, 0);
	R("open(f, O_RDONLY) beside a read lease", b >= 0);
	R("F_SETLEASE(b, F_RDLCK): a second read lease", sc(72, b, 1024, 0, 0, 0));
	R("F_SETLEASE(b, F_WRLCK): not while a has one", sc(72, b, 1024, 1, 0, 0));
	R("close(b): its lease goes", close(b));
	R("open(f, O_WRONLY|O_NONBLOCK) breaks it", open("f", O_WRONLY | O_NONBLOCK, 0));
	R("F_GETLEASE(a): to be given up", sc(72, a, 1025, 0, 0, 0));
	take_signal("rt_sigtimedwait: F_SETSIG's SIGUSR1", sigs, a);
	show_proc_locks("breaking to none", &n);
	R("open(f, O_RDONLY|O_NONBLOCK) beside the breaking lease", (c = open("f", O_RDONLY | O_NONBLOCK, 0)) >= 0);
	close(c);
	child = fork();
	if (child == 0)	/* waits until the lease is given up */
		exit(open("f", O_WRONLY, 0) >= 0 ? 3 : 4);
	n.pids[1] = child;
	nanosleep(&nap, NULL);
	show_proc_locks("an open waiting for the lease", &n);
	take_signal("rt_sigtimedwait: no second signal", sigs, a);
	R("F_SETLEASE(a, F_UNLCK)", sc(72, a, 1024, 2, 0, 0));
	R("wait4: the open went ahead", wait4(child, &st, 0, NULL) == child);
	printf("  exit status %d\n", (st >> 8) & 0xff);
	R("F_GETLEASE(a)", sc(72, a, 1025, 0, 0, 0));
	R("F_GETOWN(a): nobody since", sc(72, a, 9, 0, 0, 0));
	R("F_GETSIG(a): 0 again", sc(72, a, 11, 0, 0, 0));
	show_proc_locks("no lease", &n);
	/* conflicts with opens at the time of the request */
	c = open("f", O_RDWR, 0);
	R("F_SETLEASE(a, F_RDLCK) while open for writing", sc(72, a, 1024, 0, 0, 0));
	R("F_SETLEASE(c, F_WRLCK) while a is open too", sc(72, c, 1024, 1, 0, 0));
	close(c);
	c = open("f", O_WRONLY, 0);
	close(a);
	R("F_SETLEASE(c, F_WRLCK): c (O_WRONLY) the only open", sc(72, c, 1024, 1, 0, 0));
	R("F_SETLEASE(c, F_RDLCK): c itself is open for writing", sc(72, c, 1024, 0, 0, 0));
	R("close(c)", close(c));
	show_proc_locks("after the holder's close", &n);
	/* truncate(2) breaks a lease too, as an open for writing */
	a = open("f", O_RDONLY, 0);
	R("F_SETLEASE(a, F_RDLCK)", sc(72, a, 1024, 0, 0, 0));
	child = fork();
	if (child == 0)
		exit(sc(76, L("f"), 0, 0, 0, 0) == 0 ? 5 : 6);
	n.pids[2] = child;
	nanosleep(&nap, NULL);
	R("F_GETLEASE(a): truncate breaks it", sc(72, a, 1025, 0, 0, 0));
	take_signal("rt_sigtimedwait: SIGIO", sigs, a);
	R("F_SETLEASE(a, F_UNLCK)", sc(72, a, 1024, 2, 0, 0));
	R("wait4: the truncate went ahead", wait4(child, &st, 0, NULL) == child);
	printf("  exit status %d\n", (st >> 8) & 0xff);
	close(a);
	/* no lease but on a regular file */
	a = open(".", O_RDONLY | O_DIRECTORY, 0);
	R("F_SETLEASE(directory, F_RDLCK)", sc(72, a, 1024, 0, 0, 0));
	close(a);
	sc(22, L(p), 0, 0, 0, 0);
	R("F_SETLEASE(pipe, F_RDLCK)", sc(72, p[0], 1024, 0, 0, 0));
	R("F_GETLEASE(pipe)", sc(72, p[0], 1025, 0, 0, 0));
	close(p[0]);
	close(p[1]);
	sc(87, L("f"), 0, 0, 0, 0);
}

/* Signal-driven I/O: a file's owner (F_SETOWN, F_SETOWN_EX), F_SETSIG, O_ASYNC on a pipe's
 * read end: data written signals the owner, as does the last writer's close */
static void fam_fasync(void)
{
	unsigned long sigs = (1UL << (29 - 1)) | (1UL << (10 - 1));
	struct { int type, pid; } ex;
	unsigned int uids[2];
	int p[2], f, on;

	R("rt_sigprocmask(SIG_BLOCK, SIGIO|SIGUSR1)", sc(14, 0, L(&sigs), 0, 8, 0));
	R("setpgid(0, 0): a process group of its own", sc(109, 0, 0, 0, 0, 0));
	sc(22, L(p), 0, 0, 0, 0);
	R("F_GETOWN(p[0]) of nobody", sc(72, p[0], 9, 0, 0, 0));
	R("F_SETOWN(p[0], 999999)", sc(72, p[0], 8, 999999, 0, 0));
	R("F_SETOWN(p[0], -(my process group))", sc(72, p[0], 8, -sc(111, 0, 0, 0, 0, 0), 0, 0));
	R("F_GETOWN(p[0]) is minus my process group", sc(72, p[0], 9, 0, 0, 0) == -sc(111, 0, 0, 0, 0, 0));
	memset(&ex, 0x55, sizeof(ex));
	R("F_GETOWN_EX(p[0])", sc(72, p[0], 16, L(&ex), 0, 0));
	printf("  type %d pid is my process group %d\n", ex.type, ex.pid == sc(111, 0, 0, 0, 0, 0));
	ex.type = 0;
	ex.pid = sc(186, 0, 0, 0, 0, 0);
	R("F_SETOWN_EX(p[0], F_OWNER_TID, gettid())", sc(72, p[0], 15, L(&ex), 0, 0));
	memset(&ex, 0x55, sizeof(ex));
	R("F_GETOWN_EX(p[0])", sc(72, p[0], 16, L(&ex), 0, 0));
	printf("  type %d pid is mine %d\n", ex.type, ex.pid == getpid());
	ex.type = 7;
	R("F_SETOWN_EX(p[0], type 7)", sc(72, p[0], 15, L(&ex), 0, 0));
	R("F_SETOWN(p[0], getpid())", sc(72, p[0], 8, getpid(), 0, 0));
	R("F_GETOWN(p[0]) is me", sc(72, p[0], 9, 0, 0, 0) == getpid());
	R("F_GETOWNER_UIDS(p[0])", sc(72, p[0], 17, L(uids), 0, 0));
	printf("  uid is mine %d euid is mine %d\n", uids[0] == getuid(), uids[1] == getuid());
	R("write(p[1]) without O_ASYNC", write(p[1], "x", 1));
	take_signal("rt_sigtimedwait: none", sigs, p[0]);
	R("F_SETFL(p[0], O_ASYNC)", sc(72, p[0], 4, 020000, 0, 0));
	R("F_GETFL(p[0]) & O_ASYNC", sc(72, p[0], 3, 0, 0, 0) & 020000);
	R("write(p[1])", write(p[1], "x", 1));
	take_signal("rt_sigtimedwait: SIGIO", sigs, p[0]);
	R("F_SETSIG(p[0], SIGUSR1)", sc(72, p[0], 10, 10, 0, 0));
	R("write(p[1])", write(p[1], "x", 1));
	take_signal("rt_sigtimedwait: SIGUSR1, POLL_IN", sigs, p[0]);
	R("close(p[1]): the last writer", close(p[1]));
	take_signal("rt_sigtimedwait: SIGUSR1 again", sigs, p[0]);
	R("F_SETFL(p[0], 0)", sc(72, p[0], 4, 0, 0, 0));
	R("F_GETFL(p[0]) & O_ASYNC", sc(72, p[0], 3, 0, 0, 0) & 020000);
	on = 1;
	R("ioctl(p[0], FIOASYNC, 1)", sc(16, p[0], 0x5452, L(&on), 0, 0));
	R("F_GETFL(p[0]) & O_ASYNC", sc(72, p[0], 3, 0, 0, 0) & 020000);
	on = 0;
	R("ioctl(p[0], FIOASYNC, 0)", sc(16, p[0], 0x5452, L(&on), 0, 0));
	R("F_GETFL(p[0]) & O_ASYNC", sc(72, p[0], 3, 0, 0, 0) & 020000);
	close(p[0]);
	/* a socket (sock_fasync): data, the peer's shutdown of writing, its close */
	sc(53, 1, 1, 0, L(p), 0);	/* socketpair(AF_UNIX, SOCK_STREAM) */
	on = -1;
	R("ioctl(s[0], FIOGETOWN)", sc(16, p[0], 0x8903, L(&on), 0, 0));
	printf("  owner %d\n", on);
	on = getpid();
	R("ioctl(s[0], FIOSETOWN, getpid())", sc(16, p[0], 0x8901, L(&on), 0, 0));
	on = -1;
	R("ioctl(s[0], SIOCGPGRP)", sc(16, p[0], 0x8904, L(&on), 0, 0));
	printf("  owner is me %d\n", on == getpid());
	on = 999999;
	R("ioctl(s[0], SIOCSPGRP, 999999)", sc(16, p[0], 0x8902, L(&on), 0, 0));
	R("F_SETOWN(s[0], getpid())", sc(72, p[0], 8, getpid(), 0, 0));
	R("F_SETFL(s[0], O_ASYNC)", sc(72, p[0], 4, 020000, 0, 0));
	R("F_GETFL(s[0]) & O_ASYNC", sc(72, p[0], 3, 0, 0, 0) & 020000);
	R("write(s[1])", write(p[1], "x", 1));
	take_signal("rt_sigtimedwait: SIGIO", sigs, p[0]);
	R("F_SETSIG(s[0], SIGUSR1)", sc(72, p[0], 10, 10, 0, 0));
	R("shutdown(s[1], SHUT_WR)", sc(48, p[1], 1, 0, 0, 0));
	take_signal("rt_sigtimedwait: SIGUSR1, POLL_IN", sigs, p[0]);
	R("close(s[1])", close(p[1]));
	take_signal("rt_sigtimedwait: SIGUSR1, POLL_HUP", sigs, p[0]);
	close(p[0]);
	/* a regular file has no ->fasync: O_ASYNC is not kept */
	f = open("r", O_RDWR | O_CREAT, 0644);
	R("F_SETFL(regular file, O_ASYNC)", sc(72, f, 4, 020000, 0, 0));
	R("F_GETFL(regular file) & O_ASYNC", sc(72, f, 3, 0, 0, 0) & 020000);
	on = 1;
	R("ioctl(regular file, FIOASYNC, 1)", sc(16, f, 0x5452, L(&on), 0, 0));
	on = 0;
	R("ioctl(regular file, FIOASYNC, 0)", sc(16, f, 0x5452, L(&on), 0, 0));
	close(f);
	sc(87, L("r"), 0, 0, 0, 0);
}

/* /proc/self/fdinfo of an eventfd (its count; an id) and an epoll set (an item a line: its fd,
 * events with EPOLLERR|EPOLLHUP added, data, the file's position), the numbers that depend on
 * the machine as N */
static void fam_fdinfo(void)
{
	struct lock_names n = { 0 };
	struct { unsigned int events; unsigned long data; } __attribute__((packed)) ev;
	unsigned long five = 5;
	int efd = sc(290, 0, 04000, 0, 0, 0), ep = sc(291, 0, 0, 0, 0, 0), p[2];

	R("eventfd2(0, EFD_NONBLOCK) is an fd", efd >= 0);
	R("write(efd, 5)", write(efd, &five, 8));
	show_fdinfo("fdinfo of the eventfd", efd, &n);
	sc(22, L(p), 0, 0, 0, 0);
	ev.events = 1;	/* EPOLLIN */
	ev.data = 0x1234;
	R("epoll_ctl(ADD, efd, EPOLLIN, 0x1234)", sc(233, ep, 1, efd, L(&ev), 0));
	show_fdinfo("fdinfo of the epoll set", ep, &n);
	ev.events = 4 | (1U << 31);	/* EPOLLOUT | EPOLLET */
	ev.data = 0xfeedface;
	R("epoll_ctl(ADD, p[1], EPOLLOUT|EPOLLET, 0xfeedface)", sc(233, ep, 1, p[1], L(&ev), 0));
	R("epoll_ctl(DEL, efd)", sc(233, ep, 2, efd, L(&ev), 0));
	show_fdinfo("fdinfo of the epoll set", ep, &n);
	close(p[0]);
	close(p[1]);
	close(ep);
	close(efd);
}

/* A lease whose holder never gives way: the breaker's open waits lease_break_time (45 s), then
 * time_out_leases() takes the lease away and the open goes ahead */
/* ---- personality(2): the execution domain and flags, what uname and mmap make of them ---- */
#define PER_LINUX32		0x0008
#define UNAME26			0x0020000
#define READ_IMPLIES_EXEC	0x0400000

/* /proc/self/personality as read, or the open's error */
static void show_proc_personality(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY, 0);
	long n;

	if (fd < 0) {
		printf("%s: %d\n", path, fd);
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	printf("%s: %s", path, buf);
}

/* The permissions /proc/self/maps shows for the mapping that starts at addr */
static void show_maps_perms(const char *what, unsigned long addr)
{
	static char buf[16384];
	int fd = open("/proc/self/maps", O_RDONLY, 0);
	long n, total = 0;
	char *line;

	while (total < (long)sizeof(buf) - 1 && (n = read(fd, buf + total, sizeof(buf) - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = 0;
	for (line = buf; *line; ) {
		unsigned long start = 0;
		char *c = line;

		for (; (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f'); c++)
			start = start * 16 + (*c <= '9' ? *c - '0' : *c - 'a' + 10);
		if (start == addr) {
			while (*c && *c != ' ')
				c++;
			c[5] = 0;	/* the four permission letters */
			printf("%s: %s\n", what, c + 1);
			return;
		}
		while (*line && *line++ != '\n')
			;
	}
	printf("%s: not mapped\n", what);
}

struct utsname_user { char sysname[65], nodename[65], release[65], version[65], machine[65], domain[65]; };

static void fam_persona(int argc, char **argv)
{
	char *args[] = { "fsop", "persona-child", "-", NULL };
	struct utsname_user u;
	long old, P = 4096;
	char *p;
	int status;

	if (argc > 1 && !strcmp(argv[1], "persona-child")) {
		R("exec'd child: personality(-1) (READ_IMPLIES_EXEC gone)", sc(135, 0xffffffff, 0, 0, 0, 0));
		exit(0);
	}
	old = sc(135, 0xffffffff, 0, 0, 0, 0);
	R("personality(-1)", old);
	show_proc_personality("/proc/self/personality");
	R("personality(PER_LINUX32)", sc(135, PER_LINUX32, 0, 0, 0, 0));
	R("uname()", sc(63, L(&u), 0, 0, 0, 0));
	printf("  machine %s\n", u.machine);
	R("personality(UNAME26)", sc(135, UNAME26, 0, 0, 0, 0));
	R("uname()", sc(63, L(&u), 0, 0, 0, 0));
	printf("  machine %s, release 2.6.x: %d\n", u.machine, !strncmp(u.release, "2.6.", 4));
	R("personality(READ_IMPLIES_EXEC | UNAME26)", sc(135, READ_IMPLIES_EXEC | UNAME26, 0, 0, 0, 0));
	show_proc_personality("/proc/self/personality");
	p = (char *)sc(9, 0, 2 * P, 1, 0x22, -1);	/* PROT_READ */
	show_maps_perms("  mmap(PROT_READ)", L(p));
	R("mprotect(p + 1 page, PROT_NONE)", sc(10, L(p + P), P, 0, 0, 0));
	show_maps_perms("  then", L(p + P));
	R("mprotect(p + 1 page, PROT_READ | PROT_WRITE)", sc(10, L(p + P), P, 3, 0, 0));
	show_maps_perms("  then", L(p + P));
	if (fork() == 0) {
		R("child: personality(-1)", sc(135, 0xffffffff, 0, 0, 0, 0));
		exit(0);
	}
	wait4(-1, &status, 0, NULL);
	if (fork() == 0) {
		execve(argv[0], args, NULL);
		exit(99);
	}
	wait4(-1, &status, 0, NULL);
	R("the exec'd child's status", status);
	R("personality(0xffff1234)", sc(135, 0xffff1234, 0, 0, 0, 0));
	R("personality(old)", sc(135, old, 0, 0, 0, 0));
	R("personality(-1)", sc(135, 0xffffffff, 0, 0, 0, 0));
}

/* ---- /proc/PID/mem: a process's memory by address, as a debugger reads and writes it ---- */
/* (noinline: its code is rewritten through /proc/self/mem below, then called) */
static __attribute__((noinline)) int answer(void)
{
	return 1;
}

static const char rodata_word[8] = "const";

static void fam_procmem(void)
{
	static const unsigned char ret2[] = { 0xb8, 2, 0, 0, 0, 0xc3 };	/* mov $2, %eax; ret */
	int (*volatile call)(void) = answer;
	long P = 4096;
	char *rw = (char *)sc(9, 0, 2 * P, 3, 0x22, -1), *ro, *none, buf[16];
	int fd = open("/proc/self/mem", O_RDWR, 0), status;

	R("open(/proc/self/mem, O_RDWR)", fd >= 0);
	R("munmap(rw + 1 page)", sc(11, L(rw + P), P, 0, 0, 0));
	R("pread(mem, across the end of a mapping, 8)", sc(17, fd, L(buf), 8, L(rw + P - 4), 0));
	memcpy(rw, "hello", 6);
	R("pread(mem, rw page, 5)", sc(17, fd, L(buf), 5, L(rw), 0));
	buf[5] = 0;
	printf("  %s\n", buf);
	R("pwrite(mem, rw page, HELLO)", sc(18, fd, L("HELLO"), 5, L(rw), 0));
	printf("  the page: %s\n", rw);
	/* a read-only private page, never touched: the zero page, then the write's own copy */
	ro = (char *)sc(9, 0, P, 1, 0x22, -1);
	memset(buf, 'x', 4);
	R("pread(mem, untouched read-only page, 4)", sc(17, fd, L(buf), 4, L(ro), 0));
	printf("  zeros: %d\n", !buf[0] && !buf[1] && !buf[2] && !buf[3]);
	R("pwrite(mem, read-only page, ro)", sc(18, fd, L("ro"), 3, L(ro), 0));
	printf("  the page: %s\n", ro);
	show_maps_perms("  its mapping", L(ro));
	none = (char *)sc(9, 0, P, 0, 0x22, -1);
	R("pread(mem, PROT_NONE page, 4)", sc(17, fd, L(buf), 4, L(none), 0));
	R("pwrite(mem, PROT_NONE page, 4)", sc(18, fd, L("abc"), 4, L(none), 0));
	R("mprotect(PROT_NONE page, PROT_READ)", sc(10, L(none), P, 1, 0, 0));
	printf("  the page: %s\n", none);
	R("pread(mem, unmapped, 4)", sc(17, fd, L(buf), 4, 0x10000, 0));
	R("lseek(mem, rw page, SEEK_SET) is the address", sc(8, fd, L(rw), 0, 0, 0) == L(rw));
	R("lseek(mem, 2, SEEK_CUR) is past it", sc(8, fd, 2, 1, 0, 0) == L(rw + 2));
	R("read(mem, 3) there", read(fd, buf, 3));
	buf[3] = 0;
	printf("  %s\n", buf);
	R("lseek(mem, 0, SEEK_END)", sc(8, fd, 0, 2, 0, 0));
	/* read-only data and code of the program (its file's private mappings) */
	R("pwrite(mem, rodata, CONST)", sc(18, fd, L("CONST"), 5, L(rodata_word), 0));
	printf("  rodata: %s\n", rodata_word);
	R("answer()", call());
	R("pwrite(mem, answer's code, mov $2 ret)", sc(18, fd, L(ret2), sizeof(ret2), L(answer), 0));
	R("answer() rewritten", call());
	/* a forked child's write is its own (COW) */
	if (fork() == 0) {
		int cfd = open("/proc/self/mem", O_RDWR, 0);

		sc(18, cfd, L("child"), 6, L(rw), 0);
		exit(strcmp(rw, "child") ? 1 : 0);
	}
	wait4(-1, &status, 0, NULL);
	R("the child wrote its own copy", status);
	printf("  the parent's page: %s\n", rw);
	close(fd);
	R("open(/proc/1/mem) as another user", getuid() ? open("/proc/1/mem", O_RDONLY, 0) : -13);
}

static void fam_leasebreak(void)
{
	unsigned long sigs = 1UL << (29 - 1);
	struct timespec nap = { 0, 200000000 }, t0, t1;
	struct lock_names n = { 0 };
	int a, b, st;
	long child, waited;

	R("rt_sigprocmask(SIG_BLOCK, SIGIO)", sc(14, 0, L(&sigs), 0, 8, 0));
	b = open("f", O_RDWR | O_CREAT, 0644);
	lock_names_of(b, &n);
	close(b);
	a = open("f", O_RDONLY, 0);
	R("F_SETLEASE(a, F_WRLCK)", sc(72, a, 1024, 1, 0, 0));
	child = fork();
	if (child == 0) {
		sc(228, 1, L(&t0), 0, 0, 0);	/* clock_gettime(CLOCK_MONOTONIC) */
		b = open("f", O_RDWR, 0);
		sc(228, 1, L(&t1), 0, 0, 0);
		waited = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		/* (45 s as the timer wheel rounds them: up to 2.048 s later at HZ 250) */
		printf("child: open = %d, after 45..47 s: %d\n", b >= 0, waited >= 45000 && waited < 47100);
		exit(0);
	}
	n.pids[1] = child;
	nanosleep(&nap, NULL);
	show_proc_locks("breaking", &n);
	take_signal("rt_sigtimedwait: SIGIO", sigs, a);
	R("wait4: the open went ahead at last", wait4(child, &st, 0, NULL) == child);
	R("F_GETLEASE(a): none left", sc(72, a, 1025, 0, 0, 0));
	show_proc_locks("after the break time", &n);
	R("F_SETLEASE(a, F_UNLCK)", sc(72, a, 1024, 2, 0, 0));
	close(a);
	sc(87, L("f"), 0, 0, 0, 0);
}

int main(int argc, char **argv)
{
	const char *fam = argc > 1 ? argv[1] : "";
	const char *dir = argc > 2 ? argv[2] : "";

	if (!strcmp(fam, "exec-child")) {
		fam_exec(argc, argv);
		return 0;
	}
	if (!strcmp(fam, "persona-child")) {
		fam_persona(argc, argv);
		return 0;
	}
	if (!strcmp(fam, "xattr")) {
		xattrs(argc, argv);
		return 0;
	}
	if (!strcmp(fam, "ls") && argc == 3) {	/* an existing directory's names and types */
		int fd = open(dir, O_RDONLY | O_DIRECTORY, 0);

		if (fd < 0) {
			show("open", fd);
			return 1;
		}
		list_dir(dir, fd);
		return 0;
	}
	if (argc != 3 || sc(83, L(dir), 0755, 0, 0, 0) || sc(80, L(dir), 0, 0, 0, 0)) {
		dprintf(2, "usage: fsop FAMILY NEW-DIR\n");
		return 2;
	}
	if (!strcmp(fam, "open"))
		fam_open();
	else if (!strcmp(fam, "rw"))
		fam_rw();
	else if (!strcmp(fam, "stat"))
		fam_stat();
	else if (!strcmp(fam, "dir"))
		fam_dir(dir);
	else if (!strcmp(fam, "link"))
		fam_link();
	else if (!strcmp(fam, "fd"))
		fam_fd();
	else if (!strcmp(fam, "pipe"))
		fam_pipe();
	else if (!strcmp(fam, "exec"))
		fam_exec(argc, argv);
	else if (!strcmp(fam, "task"))
		fam_task();
	else if (!strcmp(fam, "mm"))
		fam_mm();
	else if (!strcmp(fam, "life"))
		fam_life();
	else if (!strcmp(fam, "cap"))
		fam_cap();
	else if (!strcmp(fam, "proclocks"))
		fam_proclocks();
	else if (!strcmp(fam, "lease"))
		fam_lease();
	else if (!strcmp(fam, "fdinfo"))
		fam_fdinfo();
	else if (!strcmp(fam, "leasebreak"))
		fam_leasebreak();
	else if (!strcmp(fam, "fasync"))
		fam_fasync();
	else if (!strcmp(fam, "persona"))
		fam_persona(argc, argv);
	else if (!strcmp(fam, "procmem"))
		fam_procmem();
	else
		return 2;
	return 0;
}
