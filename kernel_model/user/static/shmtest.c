/*
 * Shared mappings of tmpfs files against a real libc, statically linked: one behaviour per
 * subcommand, each line what it saw (tests/machine/test_shm.py; the expected lines are what
 * this binary printed on the reference Linux 6.1).  A write through a MAP_SHARED mapping is
 * the file's own page: read(2) sees it, and so does another process mapping the file.
 *   shmtest memfd      a memfd: mapping, read/write, fork, a second mapping, seals
 *   shmtest file DIR   a file on the tmpfs mounted at DIR
 *   shmtest truncate   a truncated memfd: SIGBUS past its end
 *   shmtest anon       MAP_SHARED | MAP_ANONYMOUS: a tmpfs file's pages, "/dev/zero (deleted)"
 *   shmtest sysv       System V shared memory: shmget, shmat, shmdt, every shmctl, the errors
 * The SysV calls are the raw syscalls, as the kernel takes them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_WRITE 0x0008
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 2
#endif

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

/* ---- System V shared memory ---- */
#define KEY 0x5e9f00d
static long shmget_(key_t key, size_t size, int flg) { return syscall(SYS_shmget, key, size, flg); }
static long shmat_(int id, const void *addr, int flg) { return syscall(SYS_shmat, id, addr, flg); }
static long shmdt_(const void *addr) { return syscall(SYS_shmdt, addr); }
static long shmctl_(int id, int cmd, void *buf) { return syscall(SYS_shmctl, id, cmd, buf); }

static int seg;

static void stat_line(const char *what)
{
	struct shmid_ds ds;
	long ret = shmctl_(seg, IPC_STAT, &ds);

	if (ret < 0) {
		printf("%s IPC_STAT: %s\n", what, errname(errno));
		return;
	}
	printf("%s IPC_STAT: key=%#x mode=%o segsz=%zu nattch=%lu cpid_is_me=%d lpid_is_me=%d atime>0=%d dtime>0=%d\n",
	       what, ds.shm_perm.__key, ds.shm_perm.mode, ds.shm_segsz, (unsigned long)ds.shm_nattch,
	       ds.shm_cpid == getpid(), ds.shm_lpid == getpid(), ds.shm_atime > 0, ds.shm_dtime > 0);
}

/* the segment's line of /proc/sysvipc/shm: the fields that do not depend on pids and times */
static void proc_line(void)
{
	FILE *f = fopen("/proc/sysvipc/shm", "r");
	char line[512];
	int n = 0;

	if (!f) {
		printf("/proc/sysvipc/shm: %s\n", errname(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		int key, id, cpid, lpid;
		unsigned int perms, uid, gid, cuid, cgid;
		unsigned long size, nattch, rss, swap;
		unsigned long long at, dt, ct;

		if (n++ == 0) {
			printf("header: %s", line);
			continue;
		}
		if (sscanf(line, "%d %d %o %lu %d %d %lu %u %u %u %u %llu %llu %llu %lu %lu", &key, &id, &perms, &size,
			   &cpid, &lpid, &nattch, &uid, &gid, &cuid, &cgid, &at, &dt, &ct, &rss, &swap) == 16 && id == seg)
			printf("line: key=%#x perms=%o size=%lu nattch=%lu uid=%u gid=%u rss=%lu swap=%lu id_ok=1 width=%zu\n",
			       key, perms, size, nattch, uid, gid, rss, swap, strlen(line));
	}
	fclose(f);
}

static void maps_line(void *p)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[256];

	while (fgets(line, sizeof(line), maps)) {
		char perms[8], name[128] = "";
		unsigned long start, off, ino;

		if (sscanf(line, "%lx-%*x %7s %lx %*s %lu %127[^\n]", &start, perms, &off, &ino, name) >= 4 &&
		    start == (unsigned long)p)
			printf("maps: %s %08lx ino_is_id=%d %s\n", perms, off, ino == (unsigned long)seg, name);
	}
	fclose(maps);
}

static void child_reads_and_writes(void *p)
{
	char *q = (char *)shmat_(seg, NULL, 0);

	printf("child: inherited reads '%s'\n", (char *)p);
	stat_line("child (inherited + its own)");
	strcpy(q + 64, "the child's attach");
	fflush(stdout);
}

static void write_readonly(void *p) { *(volatile char *)p = 1; }

static void as_other_user(void *unused)
{
	struct shmid_ds ds;

	if (setgid(1000) || setuid(1000))
		_exit(3);
	show("other user: shmget by key", shmget_(KEY, 0, 0600));
	show("other user: shmat", shmat_(seg, NULL, 0));
	show("other user: IPC_STAT", shmctl_(seg, IPC_STAT, &ds));
	printf("other user: SHM_STAT_ANY is the id: %d\n", shmctl_(seg & 0x7fff, SHM_STAT_ANY, &ds) == seg);
	show("other user: IPC_SET", shmctl_(seg, IPC_SET, &ds));
	show("other user: IPC_RMID", shmctl_(seg, IPC_RMID, NULL));
	show("other user: SHM_LOCK", shmctl_(seg, SHM_LOCK, NULL));
	fflush(stdout);
}

static void sysv_case(void)
{
	struct shmid_ds ds;
	struct shminfo info;
	struct shm_info sinfo;
	char *p, *r;
	long id2, ret;

	show("shmget of a key not in use", shmget_(KEY, 4096, 0600));
	show("shmget size 0", shmget_(KEY, 0, IPC_CREAT | 0600));
	seg = shmget_(KEY, 10000, IPC_CREAT | 0600);
	printf("shmget IPC_CREAT: %s\n", seg < 0 ? errname(errno) : "ok");
	show("shmget IPC_CREAT|IPC_EXCL again", shmget_(KEY, 10000, IPC_CREAT | IPC_EXCL | 0600));
	show("shmget bigger than it", shmget_(KEY, 20000, 0600));
	printf("shmget smaller: same id %d\n", shmget_(KEY, 5000, 0600) == seg);
	id2 = shmget_(IPC_PRIVATE, 4096, 0600);
	printf("shmget IPC_PRIVATE: new id %d\n", id2 >= 0 && id2 != seg);
	stat_line("new");
	show("shmat id -1", shmat_(-1, NULL, 0));
	show("shmat no such id", shmat_(seg + 0x8000 * 7, NULL, 0));
	show("shmat SHM_REMAP without an address", shmat_(seg, NULL, SHM_REMAP));
	p = (char *)shmat_(seg, NULL, 0);
	printf("shmat: %s\n", p == (void *)-1 ? errname(errno) : "ok");
	strcpy(p, "hello shm");
	stat_line("attached");
	maps_line(p);
	child("fork", child_reads_and_writes, p);
	printf("after the child: '%s' '%s'\n", p, p + 64);
	stat_line("after the child");
	show("shmat unaligned", shmat_(seg, p + 1, 0));
	show("shmat where it is attached", shmat_(seg, p, 0));
	r = (char *)shmat_(seg, p, SHM_REMAP);
	printf("shmat SHM_REMAP over itself: same address %d\n", r == p);
	show("shmdt inside it", shmdt_(p + 1));
	show("shmdt", shmdt_(p));
	show("shmdt again", shmdt_(p));
	r = (char *)shmat_(seg, p + 1, SHM_RND);
	printf("shmat SHM_RND: rounded down %d, reads '%s'\n", r == p, r);
	shmdt_(r);
	r = (char *)shmat_(seg, NULL, SHM_RDONLY);
	printf("shmat SHM_RDONLY reads '%s'\n", r);
	child("write to SHM_RDONLY", write_readonly, r);
	ok("SHM_RDONLY: mprotect rw", mprotect(r, 4096, PROT_READ | PROT_WRITE));
	shmdt_(r);
	stat_line("detached");

	ret = shmctl_(0, IPC_INFO, &info);
	printf("IPC_INFO: ret>=0=%d shmmax=%lu shmmin=%lu shmmni=%lu shmseg=%lu shmall=%lu\n", ret >= 0,
	       info.shmmax, info.shmmin, info.shmmni, info.shmseg, info.shmall);
	ret = shmctl_(0, SHM_INFO, &sinfo);
	printf("SHM_INFO: ret>=0=%d used_ids=%d shm_tot=%lu shm_rss=%lu shm_swp=%lu\n", ret >= 0, sinfo.used_ids,
	       sinfo.shm_tot, sinfo.shm_rss, sinfo.shm_swp);
	printf("SHM_STAT of its index: its id %d\n", shmctl_(seg & 0x7fff, SHM_STAT, &ds) == seg);
	show("shmctl bad command", shmctl_(seg, 99, &ds));
	show("shmctl IPC_STAT bad address", shmctl_(seg, IPC_STAT, (void *)8));
	shmctl_(seg, IPC_STAT, &ds);
	ds.shm_perm.mode = 0644;
	show("IPC_SET 0644", shmctl_(seg, IPC_SET, &ds));
	show("SHM_LOCK", shmctl_(seg, SHM_LOCK, NULL));
	stat_line("locked");
	show("SHM_UNLOCK", shmctl_(seg, SHM_UNLOCK, NULL));
	child("other user", as_other_user, NULL);
	proc_line();

	p = (char *)shmat_(seg, NULL, 0);
	show("IPC_RMID while attached", shmctl_(seg, IPC_RMID, NULL));
	stat_line("removed, attached");
	show("shmget of its key", shmget_(KEY, 4096, 0600));
	r = (char *)shmat_(seg, NULL, 0);
	printf("shmat of a removed one: %s, reads '%s'\n", r == (void *)-1 ? errname(errno) : "ok", p);
	stat_line("two attaches");
	shmdt_(r);
	show("last shmdt", shmdt_(p));
	stat_line("gone");
	show("IPC_RMID of the private one", shmctl_(id2, IPC_RMID, NULL));
	show("IPC_RMID again", shmctl_(id2, IPC_RMID, NULL));
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
	else if (argc > 1 && !strcmp(argv[1], "sysv"))
		sysv_case();
	else {
		fprintf(stderr, "usage: shmtest memfd|file DIR|truncate|anon|sysv\n");
		return 2;
	}
	return 0;
}
