/*
 * mountop DIR: mount(2) and umount2(2) in DIR (which must not exist, on a file system a mount
 * can go on): a tmpfs mounted there, a bind mount of it, remounts read-only, a move, the
 * propagation types, umounts (busy, lazy, expired) and the errors; prints each call and its
 * result, one a line, and what /proc/self/mounts and mountinfo show of DIR's mounts with
 * nothing that depends on the machine (no mount ids, device numbers, tmpfs sizes).  Run as
 * root.  The same static binary runs on a real Linux 6.1: its output there is the
 * specification of its output in the emulated kernel (tests/machine/test_mount.py).
 */
#include "libc.h"

#define NR_stat 4
#define NR_statfs 137
#define NR_mkdir 83
#define NR_rmdir 84
#define NR_symlink 88
#define NR_chdir 80
#define NR_setuid 105
#define NR_pivot_root 155
#define NR_chroot 161
#define NR_mount 165
#define NR_umount2 166

#define MS_RDONLY 1
#define MS_NOSUID 2
#define MS_NOEXEC 8
#define MS_NOSYMFOLLOW 256
#define MS_REMOUNT 32
#define MS_BIND 4096
#define MS_MOVE 8192
#define MS_REC 16384
#define MS_UNBINDABLE (1 << 17)
#define MS_PRIVATE (1 << 18)
#define MS_SLAVE (1 << 19)
#define MS_SHARED (1 << 20)
#define MS_STRICTATIME (1 << 24)
#define MNT_FORCE 1
#define MNT_DETACH 2
#define MNT_EXPIRE 4
#define UMOUNT_NOFOLLOW 8

static long sc(long nr, long a, long b, long c, long d, long e) { return syscall6(nr, a, b, c, d, e, 0); }
#define L(x) ((long)(x))
#define R(what, call) printf("%s = %ld\n", what, (long)(call))

static const char *dir;
static char pbuf[8][256];

/* DIR + suffix, in one of a few buffers (several names live at once) */
static const char *at(const char *suffix)
{
	static int next;
	char *p = pbuf[next++ % 8];
	size_t n = strlen(dir);

	memcpy(p, dir, n);
	memcpy(p + n, suffix, strlen(suffix) + 1);
	return p;
}

static long mnt(const char *src, const char *target, const char *type, long flags, const char *data)
{
	return sc(NR_mount, L(src), L(target), L(type), flags, L(data));
}

static long umnt(const char *target, long flags)
{
	return sc(NR_umount2, L(target), flags, 0, 0, 0);
}

/* struct stat's st_dev (the first field) and st_mode (at 24) */
static unsigned long stat_field(const char *path, int word)
{
	unsigned long st[18];

	if (sc(NR_stat, L(path), L(st), 0, 0, 0))
		return -1;
	return word == 3 ? (unsigned int)st[3] : st[word];
}

static long put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long n;

	if (fd < 0)
		return fd;
	n = write(fd, text, strlen(text));
	close(fd);
	return n;
}

static void show_file(const char *what, const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY, 0);
	long n = fd < 0 ? fd : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0) {
		printf("%s: %ld\n", what, n);
		return;
	}
	buf[n] = 0;
	printf("%s: '%s'\n", what, buf);
}

static char text[65536];

static long slurp(const char *path)
{
	int fd = open(path, O_RDONLY, 0);
	long n, total = 0;

	if (fd < 0)
		return fd;
	while ((n = read(fd, text + total, sizeof(text) - 1 - total)) > 0)
		total += n;
	close(fd);
	text[total] = 0;
	return total;
}

/* a line's fields, split at spaces in place (at most max) */
static int fields(char *line, char **f, int max)
{
	int n = 0;

	while (*line && n < max) {
		f[n++] = line;
		while (*line && *line != ' ')
			line++;
		if (*line)
			*line++ = 0;
	}
	return n;
}

/* options without the machine's: a tmpfs's size= and nr_inodes= */
static void print_opts(const char *opts)
{
	char buf[512];
	char *p = buf, *tok;
	int first = 1;

	memcpy(buf, opts, strlen(opts) + 1);
	while (*p) {
		tok = p;
		while (*p && *p != ',')
			p++;
		if (*p)
			*p++ = 0;
		if (!strncmp(tok, "size=", 5) || !strncmp(tok, "nr_inodes=", 10) || !strncmp(tok, "inode64", 7))
			continue;
		printf("%s%s", first ? "" : ",", tok);
		first = 0;
	}
}

/* the line at *next (NUL-terminated in place; *next moves past it), NULL at the end */
static char *next_line(char **next)
{
	char *line = *next;

	if (!*line)
		return NULL;
	while (**next && **next != '\n')
		(*next)++;
	if (**next)
		*(*next)++ = 0;
	return line;
}

/* the lines of /proc/self/mounts on a mount point under DIR ("DIR" in them as "D") */
static void show_mounts(const char *when)
{
	char *line, *next, *f[6];
	size_t n = strlen(dir);

	printf("mounts %s:\n", when);
	slurp("/proc/self/mounts");
	for (next = text; (line = next_line(&next));) {
		if (fields(line, f, 6) < 4 || strncmp(f[1], dir, n) || f[1][n] != '/')
			continue;
		printf("  %s D%s %s ", f[0], f[1] + n, f[2]);
		print_opts(f[3]);
		printf("\n");
	}
}

/* ... and of /proc/self/mountinfo: root, mount point, options, the optional fields (a peer
 * group as "shared", a master as "master"), type, source, super block options */
static void show_mountinfo(const char *when)
{
	char *line, *next, *f[16];
	size_t n = strlen(dir);
	int nf, i;

	printf("mountinfo %s:\n", when);
	slurp("/proc/self/mountinfo");
	for (next = text; (line = next_line(&next));) {
		nf = fields(line, f, 16);
		if (nf < 10 || strncmp(f[4], dir, n) || f[4][n] != '/')
			continue;
		printf("  %s D%s %s", f[3], f[4] + n, f[5]);
		for (i = 6; i < nf && strcmp(f[i], "-"); i++) {
			char *colon = f[i];

			while (*colon && *colon != ':')
				colon++;
			*colon = 0;
			printf(" %s", f[i]);
		}
		if (i + 3 < nf) {
			printf(" - %s %s ", f[i + 1], f[i + 2]);
			print_opts(f[i + 3]);
		}
		printf("\n");
	}
}

static int same_dev(const char *a, const char *b)
{
	return stat_field(a, 0) == stat_field(b, 0);
}

static void unprivileged(void)
{
	int pid = fork(), status;

	if (pid == 0) {
		sc(NR_setuid, 1000, 0, 0, 0, 0);
		R("mount as uid 1000", mnt("none", at("/a"), "tmpfs", 0, NULL));
		R("umount2 as uid 1000", umnt(at("/a"), 0));
		exit(0);
	}
	wait4(pid, &status, 0, NULL);
}

/* in a child, chrooted into D (a bind mount of it): its root goes to r/old, r becomes "/" */
static void pivot_child(void)
{
	int pid = fork(), status;

	if (pid == 0) {
		R("chdir D", sc(NR_chdir, L(dir), 0, 0, 0, 0));
		R("chroot .", sc(NR_chroot, L("."), 0, 0, 0, 0));
		R("pivot_root(r/old, r) (not a mount)", sc(NR_pivot_root, L("r/old"), L("r"), 0, 0, 0));
		R("pivot_root(r, marker) (not a directory)", sc(NR_pivot_root, L("r"), L("marker"), 0, 0, 0));
		R("pivot_root(r, r/old)", sc(NR_pivot_root, L("r"), L("r/old"), 0, 0, 0));
		show_file("/old/marker", "/old/marker");
		show_file("/marker", "/marker");
		show_file("marker (the cwd moved too)", "marker");
		R("umount2(/old, MNT_DETACH)", umnt("/old", MNT_DETACH));
		R("umount2(/) (the root)", umnt("/", 0));
		exit(0);
	}
	wait4(pid, &status, 0, NULL);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2) {
		dprintf(2, "usage: mountop DIR\n");
		return 2;
	}
	dir = argv[1];
	if (sc(NR_mkdir, L(dir), 0755, 0, 0, 0)) {
		dprintf(2, "mountop: cannot make %s\n", dir);
		return 1;
	}
	R("mkdir D/a", sc(NR_mkdir, L(at("/a")), 0755, 0, 0, 0));

	/* a new tmpfs */
	R("mount(tmpfs, D/a, tmpfs, MS_NOSUID, mode=750)", mnt("tmpfs", at("/a"), "tmpfs", MS_NOSUID, "mode=750"));
	printf("D/a mode %lu, another device than D: %d\n", stat_field(at("/a"), 3) & 07777, !same_dev(at("/a"), dir));
	R("write D/a/f", put(at("/a/f"), "hello"));
	R("mkdir D/a/sub", sc(NR_mkdir, L(at("/a/sub")), 0755, 0, 0, 0));
	R("write D/a/sub/g", put(at("/a/sub/g"), "in sub"));
	show_mounts("after the tmpfs");

	/* bind mounts */
	R("mkdir D/b", sc(NR_mkdir, L(at("/b")), 0755, 0, 0, 0));
	R("mount(D/a, D/b, MS_BIND)", mnt(at("/a"), at("/b"), NULL, MS_BIND, NULL));
	show_file("D/b/f", at("/b/f"));
	R("mkdir D/c", sc(NR_mkdir, L(at("/c")), 0755, 0, 0, 0));
	R("mount(D/a/sub, D/c, MS_BIND)", mnt(at("/a/sub"), at("/c"), NULL, MS_BIND, NULL));
	show_file("D/c/g", at("/c/g"));
	R("mount(D/nonexistent, D/c, MS_BIND)", mnt(at("/nonexistent"), at("/c"), NULL, MS_BIND, NULL));
	R("mount(\"\", D/c, MS_BIND)", mnt("", at("/c"), NULL, MS_BIND, NULL));

	/* read-only: one mount (a bind remount), then the file system */
	R("mount(D/b, MS_REMOUNT|MS_BIND|MS_RDONLY)", mnt(NULL, at("/b"), NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	R("write D/b/f2", put(at("/b/f2"), "x"));
	R("write D/a/f2", put(at("/a/f2"), "x"));
	fd = open(at("/a/f2"), O_WRONLY, 0);
	R("open D/a/f2 for writing", fd < 0 ? fd : 0);
	R("mount(D/a, MS_REMOUNT|MS_RDONLY) with a file open for writing", mnt(NULL, at("/a"), NULL, MS_REMOUNT | MS_RDONLY, NULL));
	close(fd);
	R("mount(D/a, MS_REMOUNT|MS_RDONLY)", mnt(NULL, at("/a"), NULL, MS_REMOUNT | MS_RDONLY, NULL));
	R("write D/a/f3", put(at("/a/f3"), "x"));
	R("mount(D/c, MS_REMOUNT|MS_BIND) (rw)", mnt(NULL, at("/c"), NULL, MS_REMOUNT | MS_BIND, NULL));
	R("write D/c/h (its file system read-only)", put(at("/c/h"), "x"));
	R("mount(D/a, MS_REMOUNT, mode=700)", mnt(NULL, at("/a"), NULL, MS_REMOUNT, "mode=700"));
	R("write D/a/f3", put(at("/a/f3"), "x"));
	R("mount(D/a/sub, MS_REMOUNT) (not a mount's root)", mnt(NULL, at("/a/sub"), NULL, MS_REMOUNT, NULL));
	R("mount(D/a, MS_REMOUNT, ro,sync)", mnt(NULL, at("/a"), NULL, MS_REMOUNT, "ro,sync"));
	show_mounts("after the remounts");
	R("mount(D/a, MS_REMOUNT|MS_STRICTATIME|MS_NOEXEC)", mnt(NULL, at("/a"), NULL, MS_REMOUNT | MS_STRICTATIME | MS_NOEXEC, "rw,async"));
	show_mounts("after the rw remount");

	/* propagation types */
	R("mount(D/a, MS_SHARED)", mnt(NULL, at("/a"), NULL, MS_SHARED, NULL));
	R("mkdir D/d", sc(NR_mkdir, L(at("/d")), 0755, 0, 0, 0));
	R("mount(D/a, D/d, MS_BIND)", mnt(at("/a"), at("/d"), NULL, MS_BIND, NULL));
	R("mount(D/d, MS_SLAVE)", mnt(NULL, at("/d"), NULL, MS_SLAVE, NULL));
	R("mount(D/c, MS_UNBINDABLE)", mnt(NULL, at("/c"), NULL, MS_UNBINDABLE, NULL));
	show_mountinfo("after the propagation types");
	R("mount(D/c, D/b, MS_BIND) (unbindable)", mnt(at("/c"), at("/b"), NULL, MS_BIND, NULL));
	R("mount(D/a, MS_SHARED|MS_PRIVATE)", mnt(NULL, at("/a"), NULL, MS_SHARED | MS_PRIVATE, NULL));
	R("mount(D/a/sub, MS_PRIVATE) (not a mount's root)", mnt(NULL, at("/a/sub"), NULL, MS_PRIVATE, NULL));
	R("mount(D/a, MS_PRIVATE)", mnt(NULL, at("/a"), NULL, MS_PRIVATE, NULL));
	R("mount(D/c, MS_PRIVATE)", mnt(NULL, at("/c"), NULL, MS_PRIVATE, NULL));
	R("umount2(D/d)", umnt(at("/d"), 0));
	show_mountinfo("after private");

	/* a move */
	R("mkdir D/m", sc(NR_mkdir, L(at("/m")), 0755, 0, 0, 0));
	R("mount(D/b, D/m, MS_MOVE)", mnt(at("/b"), at("/m"), NULL, MS_MOVE, NULL));
	show_file("D/m/f", at("/m/f"));
	printf("D/b on D's device again: %d\n", same_dev(at("/b"), dir));
	R("mount(D/a/sub, D/b, MS_MOVE) (not a mount's root)", mnt(at("/a/sub"), at("/b"), NULL, MS_MOVE, NULL));
	R("mount(D/m, D/m/sub, MS_MOVE) (under itself)", mnt(at("/m"), at("/m/sub"), NULL, MS_MOVE, NULL));
	R("mount(D, D/b, MS_MOVE) (not a mount)", mnt(dir, at("/b"), NULL, MS_MOVE, NULL));

	/* umount: busy, then not */
	fd = open(at("/c/g"), O_RDONLY, 0);
	R("umount2(D/c) with a file open", umnt(at("/c"), 0));
	R("umount2(D/c, MNT_FORCE) with a file open", umnt(at("/c"), MNT_FORCE));
	close(fd);
	R("umount2(D/c)", umnt(at("/c"), 0));
	R("umount2(D/c) again", umnt(at("/c"), 0));
	printf("D/c on D's device again: %d\n", same_dev(at("/c"), dir));
	R("umount2(D/m, MNT_EXPIRE)", umnt(at("/m"), MNT_EXPIRE));
	R("umount2(D/m, MNT_EXPIRE) again", umnt(at("/m"), MNT_EXPIRE));
	R("umount2(D/m, MNT_EXPIRE|MNT_DETACH)", umnt(at("/m"), MNT_EXPIRE | MNT_DETACH));
	R("symlink D/l -> a", sc(NR_symlink, L("a"), L(at("/l")), 0, 0, 0));
	R("umount2(D/l, UMOUNT_NOFOLLOW)", umnt(at("/l"), UMOUNT_NOFOLLOW));

	/* a tree busy with a mount on it; a lazy umount of it */
	R("mkdir D/a/sub2", sc(NR_mkdir, L(at("/a/sub2")), 0755, 0, 0, 0));
	R("mount(tmpfs, D/a/sub2, tmpfs)", mnt("inner", at("/a/sub2"), "tmpfs", 0, NULL));
	R("write D/a/sub2/i", put(at("/a/sub2/i"), "inner"));
	R("umount2(D/a) with a mount on it", umnt(at("/a"), 0));
	show_mounts("before the lazy umount");
	fd = open(at("/a/sub2/i"), O_RDONLY, 0);
	R("umount2(D/a, MNT_DETACH) with a file open below", umnt(at("/a"), MNT_DETACH));
	show_mounts("after the lazy umount");
	{
		char buf[16];
		long n = read(fd, buf, sizeof(buf));

		printf("read the open file after = %ld\n", n);
	}
	close(fd);
	printf("D/a on D's device again: %d\n", same_dev(at("/a"), dir));
	R("umount2(D/a)", umnt(at("/a"), 0));

	/* errors */
	R("mount(x, D/a, nosuchfs)", mnt("x", at("/a"), "nosuchfs", 0, NULL));
	R("mount(x, D/a, NULL type)", mnt("x", at("/a"), NULL, 0, NULL));
	R("mount(x, D/nonexistent, tmpfs)", mnt("x", at("/nonexistent"), "tmpfs", 0, NULL));
	R("write D/file", put(at("/file"), "x"));
	R("mount(x, D/file, tmpfs)", mnt("x", at("/file"), "tmpfs", 0, NULL));
	R("mount(x, D/a, tmpfs, bogus=1)", mnt("x", at("/a"), "tmpfs", 0, "bogus=1"));
	R("mount(x, D/a, tmpfs, nosuid) (a flag as an option)", mnt("x", at("/a"), "tmpfs", 0, "nosuid"));
	R("mount(x, D/a, tmpfs, mode=9)", mnt("x", at("/a"), "tmpfs", 0, "mode=9"));
	R("mount(x, D/a, pipefs)", mnt("x", at("/a"), "pipefs", 0, NULL));
	R("mount(x, D/a, proc, hidepid=x)", mnt("x", at("/a"), "proc", 0, "hidepid=x"));
	R("mount(x, D/a, tmpfs, bad address)", mnt("x", at("/a"), (const char *)1, 0, NULL));
	R("umount2(D/a) (not a mount)", umnt(at("/a"), 0));
	R("umount2(D/nonexistent)", umnt(at("/nonexistent"), 0));
	R("umount2(D/a, 0x100)", umnt(at("/a"), 0x100));
	unprivileged();

	/* a recursive bind mount; a mount without symlinks; statfs's flags */
	R("mount(t, D/a, tmpfs, MS_NOSYMFOLLOW)", mnt("t", at("/a"), "tmpfs", MS_NOSYMFOLLOW, NULL));
	R("write D/a/f", put(at("/a/f"), "data"));
	R("symlink D/a/l -> f", sc(NR_symlink, L("f"), L(at("/a/l")), 0, 0, 0));
	show_file("D/a/l", at("/a/l"));
	{
		long st[15];

		R("statfs(D/a)", sc(NR_statfs, L(at("/a")), L(st), 0, 0, 0));
		printf("f_flags %lx\n", st[13]);
	}
	R("mkdir D/a/s", sc(NR_mkdir, L(at("/a/s")), 0755, 0, 0, 0));
	R("mount(u, D/a/s, tmpfs, MS_RDONLY)", mnt("u", at("/a/s"), "tmpfs", MS_RDONLY, NULL));
	R("mount(D/a, D/b, MS_BIND|MS_REC)", mnt(at("/a"), at("/b"), NULL, MS_BIND | MS_REC, NULL));
	show_mounts("after the recursive bind");
	R("write D/b/s/x (read-only there too)", put(at("/b/s/x"), "x"));
	R("umount2(D/b) with a mount on it", umnt(at("/b"), 0));
	R("umount2(D/b, MNT_DETACH)", umnt(at("/b"), MNT_DETACH));
	R("umount2(D/a/s)", umnt(at("/a/s"), 0));
	R("umount2(D/a)", umnt(at("/a"), 0));
	show_mounts("after their umounts");

	/* a proc instance, and its umount */
	R("mount(proc, D/a, proc, MS_NOSUID|MS_NOEXEC)", mnt("proc", at("/a"), "proc", MS_NOSUID | MS_NOEXEC, NULL));
	printf("D/a/self/mounts there: %d\n", stat_field(at("/a/self/mounts"), 0) != (unsigned long)-1);
	show_mounts("with proc");
	R("umount2(D/a)", umnt(at("/a"), 0));
	R("mount(devtmpfs, D/a, devtmpfs)", mnt("devtmpfs", at("/a"), "devtmpfs", 0, NULL));
	printf("D/a/null is /dev's: %d\n", stat_field(at("/a/null"), 0) == stat_field("/dev/null", 0) &&
	       stat_field(at("/a/null"), 1) == stat_field("/dev/null", 1));
	R("umount2(D/a)", umnt(at("/a"), 0));
	/* pivot_root: a child chrooted into a bind mount of D swaps it for a tmpfs */
	R("pivot_root(D, D) (the root attached nowhere)", sc(NR_pivot_root, L(dir), L(dir), 0, 0, 0));
	R("mkdir D/r", sc(NR_mkdir, L(at("/r")), 0755, 0, 0, 0));
	R("write D/marker", put(at("/marker"), "old root"));
	R("mount(D, D, MS_BIND)", mnt(dir, dir, NULL, MS_BIND, NULL));
	R("mount(r, D/r, tmpfs)", mnt("r", at("/r"), "tmpfs", 0, NULL));
	R("mkdir D/r/old", sc(NR_mkdir, L(at("/r/old")), 0755, 0, 0, 0));
	pivot_child();
	show_mounts("after pivot_root");
	R("umount2(D, MNT_DETACH)", umnt(dir, MNT_DETACH));
	show_mounts("at the end");
	return 0;
}
