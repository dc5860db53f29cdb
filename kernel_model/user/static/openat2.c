/*
 * openat2's RESOLVE_* flags: a table of (dirfd, path, open flags, resolve flags) cases, each
 * printed with what it opened (by a name from the scratch tree it builds) or the errno.  The
 * same static binary runs on the reference Linux 6.1 (real-tracefs, /tmp a tmpfs) and in the
 * emulated kernel (tests/machine/test_openat2.py), which must print the same lines.
 *
 * usage: openat2 NEW-DIR   (NEW-DIR on a tmpfs mount of its own, /proc mounted)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ino 0: anything on the file system (a procfs file's inode number is its own business) */
static struct known { const char *name; dev_t dev; ino_t ino; } known[64];
static int nknown;

/* remember what path is (lstat: a link as itself) under name */
static void learn(const char *name, const char *path, int follow)
{
	struct stat st;

	if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
		printf("setup: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	known[nknown].name = name;
	known[nknown].dev = st.st_dev;
	known[nknown].ino = strncmp(name, "on ", 3) ? st.st_ino : 0;
	nknown++;
}

static const char *what(int fd)
{
	struct stat st;
	int i;

	if (fstat(fd, &st) != 0)
		return "fstat failed";
	for (i = 0; i < nknown; i++)
		if (known[i].dev == st.st_dev && known[i].ino == st.st_ino)
			return known[i].name;
	for (i = 0; i < nknown; i++)
		if (known[i].dev == st.st_dev && !known[i].ino)
			return known[i].name;
	return "other";
}

static const char *errname(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case ELOOP: return "ELOOP";
	case EXDEV: return "EXDEV";
	case EAGAIN: return "EAGAIN";
	case EINVAL: return "EINVAL";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EBADF: return "EBADF";
	case E2BIG: return "E2BIG";
	case EEXIST: return "EEXIST";
	}
	return strerror(e);
}

static const char *resolve_name(unsigned long long r)
{
	static char buf[128];

	buf[0] = 0;
	if (!r)
		return "0";
	if (r & RESOLVE_NO_XDEV) strcat(buf, "|NO_XDEV");
	if (r & RESOLVE_NO_MAGICLINKS) strcat(buf, "|NO_MAGICLINKS");
	if (r & RESOLVE_NO_SYMLINKS) strcat(buf, "|NO_SYMLINKS");
	if (r & RESOLVE_BENEATH) strcat(buf, "|BENEATH");
	if (r & RESOLVE_IN_ROOT) strcat(buf, "|IN_ROOT");
	if (r & RESOLVE_CACHED) strcat(buf, "|CACHED");
	if (r & ~0x3fULL) strcat(buf, "|other");
	return buf + 1;
}

/* label: the path as printed (an fd's number differs between machines), NULL: the path */
static void try_as(const char *label, const char *dname, int dfd, const char *path, int flags,
		   unsigned long long resolve)
{
	struct open_how how = { .flags = flags, .resolve = resolve };
	long fd = syscall(SYS_openat2, dfd, path, &how, sizeof(how));

	printf("%s %s flags=%#o resolve=%s: ", dname, label ? label : path, flags, resolve_name(resolve));
	if (fd < 0) {
		printf("%s\n", errname(errno));
		return;
	}
	printf("%s\n", what(fd));
	close(fd);
}

static void try(const char *dname, int dfd, const char *path, int flags, unsigned long long resolve)
{
	try_as(NULL, dname, dfd, path, flags, resolve);
}

#define X RESOLVE_NO_XDEV
#define M RESOLVE_NO_MAGICLINKS
#define S RESOLVE_NO_SYMLINKS
#define B RESOLVE_BENEATH
#define R RESOLVE_IN_ROOT
#define C RESOLVE_CACHED

int main(int argc, char **argv)
{
	static const char *rel[] = {
		"f", "b/g", ".", "..", "../a/f", "b/../f", "b/../../a/f", "../..", "../../..",
		"/", "/proc", "rel", "up", "abs", "root", "dotdot", "cl/g", "tproc", "tproc/uptime",
		"loop", "missing", "b/", "f/",
	};
	static const unsigned long long resolves[] = { 0, X, M, S, B, R, B | X, R | S };
	static const char *links[] = { "a/rel", "a/up", "a/abs", "a/root", "a/dotdot", "a/cl",
				       "a/tproc", "a/loop", "a/future", "a/long" };
	char d[512], p[600], exe[64], body[300], got[300];
	ssize_t n;
	int a, proc, ffd, statusfd, i, j;
	struct timespec future[2] = { { 4000000000LL, 0 }, { 0, UTIME_OMIT } };
	struct timespec past[2] = { { 1000000000LL, 0 }, { 1000000000LL, 0 } };

	if (argc != 2 || mkdir(argv[1], 0755) != 0) {
		fprintf(stderr, "usage: openat2 NEW-DIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(d, sizeof(d), "%s", argv[1]);
	if (chdir(d) != 0 || mkdir("a", 0755) || mkdir("a/b", 0755))
		return 1;
	close(open("a/f", O_CREAT | O_WRONLY, 0644));
	close(open("a/b/g", O_CREAT | O_WRONLY, 0644));
	snprintf(p, sizeof(p), "%s/a/f", d);
	if (symlink("b/g", "a/rel") || symlink("../a/f", "a/up") || symlink(p, "a/abs") ||
	    symlink("/", "a/root") || symlink("../..", "a/dotdot") || symlink("b", "a/cl") ||
	    symlink("/proc", "a/tproc") || symlink("loop", "a/loop") ||
	    symlink("b/g", "a/fresh") || symlink("b/g", "a/future"))
		return 1;
	/* a link longer than tmpfs keeps in memory of its own (128 bytes): its body in a page */
	strcpy(body, "b");
	for (i = 0; i < 40; i++)
		strcat(body, "/../b");
	strcat(body, "/g");
	if (symlink(body, "a/long"))
		return 1;
	/* links whose atime is ahead of their times and of now: following one needs no atime
	 * update (relatime), so a cached-only walk can follow it */
	for (i = 0; i < (int)(sizeof(links) / sizeof(links[0])); i++)
		if (utimensat(AT_FDCWD, links[i], future, AT_SYMLINK_NOFOLLOW))
			printf("setup: utimensat: %s\n", strerror(errno));
	/* and "fresh", whose atime is no later than its mtime: its next follow updates it (a link
	 * made in this clock tick would not be, yet: its atime is now) */
	if (utimensat(AT_FDCWD, "a/fresh", past, AT_SYMLINK_NOFOLLOW))
		printf("setup: utimensat: %s\n", strerror(errno));

	learn("a", "a", 0); learn("f", "a/f", 0); learn("b", "a/b", 0); learn("g", "a/b/g", 0);
	learn("dir", ".", 0); learn("/", "/", 0); learn("/proc", "/proc", 0);
	learn("rel(link)", "a/rel", 0); learn("up(link)", "a/up", 0); learn("abs(link)", "a/abs", 0);
	learn("root(link)", "a/root", 0); learn("loop(link)", "a/loop", 0); learn("cl(link)", "a/cl", 0);
	learn("tproc(link)", "a/tproc", 0); learn("dotdot(link)", "a/dotdot", 0);
	learn("on /proc", "/proc/uptime", 1); learn("exe", "/proc/self/exe", 1);
	learn("/tmp-root", "..", 0);

	a = open("a", O_PATH | O_DIRECTORY);
	proc = open("/proc", O_RDONLY | O_DIRECTORY);
	ffd = open("a/f", O_RDONLY);
	statusfd = open("/proc/self/status", O_RDONLY);
	learn("status", "/proc/self/status", 1);

	for (j = 0; j < (int)(sizeof(resolves) / sizeof(resolves[0])); j++)
		for (i = 0; i < (int)(sizeof(rel) / sizeof(rel[0])); i++)
			try("a", a, rel[i], O_RDONLY, resolves[j]);

	/* trailing links, not followed: O_PATH|O_NOFOLLOW opens the link itself */
	try("a", a, "rel", O_PATH | O_NOFOLLOW, S);
	try("a", a, "rel", O_RDONLY | O_NOFOLLOW, 0);
	try("a", a, "loop", O_PATH | O_NOFOLLOW, S);
	try("a", a, "cl/g", O_PATH | O_NOFOLLOW, S);

	/* magic links: /proc/PID/fd/N and exe jump (nd_jump_link) to the object itself */
	for (j = 0; j < 6; j++) {
		static const unsigned long long mr[] = { 0, M, X, B, S, R };

		snprintf(p, sizeof(p), "self/fd/%d", ffd);
		try_as("self/fd/F", "proc", proc, p, O_RDONLY, mr[j]);
		snprintf(p, sizeof(p), "self/fd/%d", statusfd);
		try_as("self/fd/STATUS", "proc", proc, p, O_RDONLY, mr[j]);
		try("proc", proc, "self/exe", O_RDONLY, mr[j]);
		snprintf(p, sizeof(p), "/proc/self/fd/%d", ffd);
		try_as("/proc/self/fd/F", "cwd", AT_FDCWD, p, O_RDONLY, mr[j]);
		try("cwd", AT_FDCWD, "/proc/self/exe", O_RDONLY, mr[j]);
	}
	snprintf(exe, sizeof(exe), "/proc/self/fd/%d", ffd);
	try_as("/proc/self/fd/F", "cwd", AT_FDCWD, exe, O_PATH | O_NOFOLLOW, M);

	/* cached-only walks: what the dcache holds (made by mkdir, open O_CREAT, symlink) opens;
	 * a name it lacks, a link whose atime wants an update, creation, truncation do not */
	try("a", a, "f", O_RDONLY, C);
	try("a", a, "f", O_WRONLY, C);
	try("a", a, "b/g", O_RDONLY, C);
	try("a", a, "../a/f", O_RDONLY, C);
	try("a", a, "missing", O_RDONLY, C);
	try("a", a, "missing", O_RDONLY, 0);
	try("a", a, "missing", O_RDONLY, C);
	try("a", a, "f", O_RDONLY | O_CREAT, C);
	try("a", a, "f", O_RDONLY | O_TRUNC, C);
	try("a", a, "future", O_RDONLY, C);
	try("a", a, "fresh", O_RDONLY, C);
	try("a", a, "..", O_RDONLY, C | B);
	try("a", a, "/", O_RDONLY, C | B);
	try("a", a, "../..", O_RDONLY, C | X);
	try("a", a, "../../..", O_RDONLY, C | X);
	try("a", a, "tproc", O_RDONLY, C | X);
	try("a", a, "b", O_RDONLY, C | R);
	try("a", a, "/b", O_RDONLY, C | R);

	/* the long link */
	try("a", a, "long", O_RDONLY, 0);
	try("a", a, "long", O_RDONLY, C);
	try("a", a, "long", O_RDONLY, S);
	try("a", a, "long", O_RDONLY, B);
	n = readlink("a/long", got, sizeof(got));
	printf("readlink long: %zd of %zu, same: %d\n", n, strlen(body), n > 0 && !strncmp(got, body, n));

	/* bad arguments */
	try("a", a, "f", O_RDONLY, B | R);
	try("a", a, "f", O_RDONLY, 0x40);
	try("bad", 1000, "f", O_RDONLY, B);
	try("f", ffd, "x", O_RDONLY, B);
	try("a", a, "", O_RDONLY, B);
	return 0;
}
