/*
 * Shared mappings of tmpfs files against a real libc, statically linked: one behaviour per
 * subcommand, each line what it saw (tests/machine/test_shm.py; the expected lines are what
 * this binary printed on the reference Linux 6.1).  A write through a MAP_SHARED mapping is
 * the file's own page: read(2) sees it, and so does another process mapping the file.
 *   shmtest memfd      a memfd: mapping, read/write, fork, a second mapping, seals
 *   shmtest file DIR   a file on the tmpfs mounted at DIR
 *   shmtest truncate   a truncated memfd: SIGBUS past its end
 *   shmtest anon       MAP_SHARED | MAP_ANONYMOUS: a tmpfs file's pages, "/dev/zero (deleted)"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_WRITE 0x0008
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 2
#endif

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case ENOMEM: return "ENOMEM";
	}
	return "other";
}

static void ok(const char *what, long ret)
{
	if (ret < 0)
		printf("%s: %s\n", what, errname(errno));
	else
		printf("%s: ok\n", what);
}

static void *map(const char *what, size_t len, int prot, int fd)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED) {
		printf("%s: %s\n", what, errname(errno));
		return NULL;
	}
	printf("%s: ok\n", what);
	return p;
}

/* the file's bytes [off, off + len) as read(2) gives them */
static void show_read(const char *what, int fd, off_t off, size_t len)
{
	char buf[64] = "";
	ssize_t n = pread(fd, buf, len < sizeof(buf) - 1 ? len : sizeof(buf) - 1, off);

	printf("%s: %zd '%s'\n", what, n, n > 0 ? buf : "");
}

/* how a child that runs fn ended: its exit status, or the signal that killed it */
static void child(const char *what, void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		printf("%s: killed by signal %d\n", what, WTERMSIG(status));
	else
		printf("%s: exit %d\n", what, WEXITSTATUS(status));
}

static void write_at_100(void *p) { strcpy((char *)p + 100, "from the child"); }

static int child_fd;
/* a mapping of its own, written at 200 */
static void map_and_write_at_200(void *unused)
{
	char *q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, child_fd, 0);

	if (q == MAP_FAILED)
		_exit(1);
	strcpy(q + 200, "the child's own mapping");
	munmap(q, 4096);
}

/* mapping and file, both ways, and other processes' mappings */
static void shared_file(int fd)
{
	char *p;

	ok("ftruncate 8192", ftruncate(fd, 8192));
	p = map("mmap MAP_SHARED rw", 8192, PROT_READ | PROT_WRITE, fd);
	if (!p)
		return;
	strcpy(p, "through the mapping");
	show_read("read after a write to the mapping", fd, 0, 19);
	pwrite(fd, "by write(2)", 11, 4096);
	printf("mapping after pwrite: '%.11s'\n", p + 4096);
	child("forked child writes the mapping", write_at_100, p);
	printf("mapping after the child: '%s'\n", p + 100);
	show_read("read after the child", fd, 100, 14);
	child_fd = fd;
	child("child maps the file itself", map_and_write_at_200, NULL);
	printf("mapping after the child's mapping: '%s'\n", p + 200);
	ok("munmap", munmap(p, 8192));
	show_read("read after munmap", fd, 0, 19);
}

static void memfd_case(void)
{
	int fd = syscall(SYS_memfd_create, "shmtest", MFD_ALLOW_SEALING), rofd;
	char path[64], *p;

	shared_file(fd);
	p = map("map again", 4096, PROT_READ | PROT_WRITE, fd);
	ok("F_SEAL_WRITE while mapped writable", fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
	munmap(p, 4096);
	ok("F_SEAL_WRITE after munmap", fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
	map("sealed: mmap MAP_SHARED rw", 4096, PROT_READ | PROT_WRITE, fd);
	ok("sealed: write", pwrite(fd, "x", 1, 0));
	p = map("sealed: mmap MAP_SHARED r", 4096, PROT_READ, fd);
	if (p)
		ok("sealed mapping: mprotect rw", mprotect(p, 4096, PROT_READ | PROT_WRITE));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rofd = open(path, O_RDONLY);
	map("O_RDONLY: mmap MAP_SHARED rw", 4096, PROT_READ | PROT_WRITE, rofd);
	p = map("O_RDONLY: mmap MAP_SHARED r", 4096, PROT_READ, rofd);
	if (p) {
		printf("O_RDONLY mapping reads: '%.19s'\n", p);
		ok("O_RDONLY mapping: mprotect rw", mprotect(p, 4096, PROT_READ | PROT_WRITE));
	}
}

static void file_case(const char *dir)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/shmtest.file", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ok("open", fd);
	shared_file(fd);
	close(fd);
	fd = open(path, O_RDONLY);
	show_read("reopened: read", fd, 100, 14);
	unlink(path);
}

static void touch(void *p) { printf("read %d\n", *(volatile char *)p); fflush(stdout); }

static void truncate_case(void)
{
	int fd = syscall(SYS_memfd_create, "shmtest", 0);
	char *p;

	ftruncate(fd, 8192);
	p = map("mmap 3 pages of 2", 3 * 4096, PROT_READ | PROT_WRITE, fd);
	p[4096] = 'x';
	child("touch page 2 (past the end)", touch, p + 8192);
	ok("ftruncate 4096", ftruncate(fd, 4096));
	child("touch page 1 after the truncate", touch, p + 4096);
	child("touch page 0 after the truncate", touch, p);
	ok("ftruncate 8192", ftruncate(fd, 8192));
	printf("page 1 after growing again: %d\n", p[4096]);
}

static void anon_case(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0), line[256];
	FILE *maps;

	printf("mmap MAP_SHARED|MAP_ANONYMOUS: %s\n", p == MAP_FAILED ? errname(errno) : "ok");
	strcpy(p, "parent");
	child("forked child writes", write_at_100, p);
	printf("after the child: '%s' '%s'\n", p, p + 100);
	maps = fopen("/proc/self/maps", "r");
	while (fgets(line, sizeof(line), maps)) {
		char perms[8], name[128] = "";
		unsigned long start, off;

		if (sscanf(line, "%lx-%*x %7s %lx %*s %*u %127[^\n]", &start, perms, &off, name) >= 3 &&
		    start == (unsigned long)p)
			printf("maps: %s %08lx %s\n", perms, off, name);
	}
	fclose(maps);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "memfd"))
		memfd_case();
	else if (argc > 2 && !strcmp(argv[1], "file"))
		file_case(argv[2]);
	else if (argc > 1 && !strcmp(argv[1], "truncate"))
		truncate_case();
	else if (argc > 1 && !strcmp(argv[1], "anon"))
		anon_case();
	else {
		fprintf(stderr, "usage: shmtest memfd|file DIR|truncate|anon\n");
		return 2;
	}
	return 0;
}
