/*
 * diskwriter: the default workload's disk writer, a small server's logger.  It appends
 * records of 1-16 KiB to /mnt/log/messages every 100-300 ms, fsyncs every other write, runs
 * sync(2) about every 4 s (the flusher kworker writes what is dirty) and rotates the file
 * past 4 MiB (messages -> messages.1, whose blocks the old one gives back).
 * `diskwriter FILE BYTES fsync|sync|none` writes BYTES to FILE once, then fsyncs, syncs or
 * not, and says so: the tests' writer; `sparse` writes one page at offset BYTES instead,
 * after a hole (a reader finds pages the cache never had).
 */
#include "libc.h"

#define O_WRONLY 1
#define O_CREAT 0100
#define O_TRUNC 01000
#define O_APPEND 02000
#define NR_LSEEK 8
#define NR_FSYNC 74
#define NR_RENAME 82
#define NR_MKDIR 83
#define NR_SYNC 162
#define ROTATE_BYTES (4L << 20)

static char buf[16384];

static long sys(long nr, long a, long b) { return syscall6(nr, a, b, 0, 0, 0, 0); }

static int write_once(const char *path, long bytes, const char *mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long left = bytes, ret = 0;

	if (fd < 0) {
		dprintf(2, "diskwriter: %s: %s\n", path, strerror(-fd));
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	if (!strcmp(mode, "later"))	/* a tick after the open's times: the write's are newer */
		msleep(10);
	if (!strcmp(mode, "sparse")) {
		ret = sys(NR_LSEEK, fd, bytes) < 0 || write(fd, buf, 4096) != 4096;
		left = 0;
	}
	while (left > 0) {
		long n = write(fd, buf, left < (long)sizeof(buf) ? left : (long)sizeof(buf));

		if (n <= 0) {
			dprintf(2, "diskwriter: write: %s\n", strerror(-n));
			return 1;
		}
		left -= n;
	}
	if (!strcmp(mode, "fsync"))
		ret = sys(NR_FSYNC, fd, 0);
	else if (!strcmp(mode, "sync"))
		ret = sys(NR_SYNC, 0, 0);
	close(fd);
	printf("%s: %ld bytes, %s = %ld\n", path, bytes, mode, ret);
	return ret != 0;
}

int main(int argc, char **argv)
{
	long size = 0, n;
	unsigned long i;
	int fd;

	if (argc == 4)
		return write_once(argv[1], atol(argv[2]), argv[3]);
	sys(NR_MKDIR, (long)"/mnt/log", 0755);
	fd = open("/mnt/log/messages", O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return 1;	/* no disk */
	for (i = 1;; i++) {
		long len = 1024 + (long)(random_u64() % (sizeof(buf) - 1024));

		msleep(100 + random_u64() % 200);
		n = dprintf(fd, "diskwriter[%d]: record %lu, %ld bytes\n", getpid(), i, len);
		memset(buf, 'a' + i % 26, len);
		n = write(fd, buf, len);
		if (n > 0)
			size += n;
		if (i % 2 == 0)
			sys(NR_FSYNC, fd, 0);
		if (i % 20 == 0)
			sys(NR_SYNC, 0, 0);
		if (size > ROTATE_BYTES) {
			close(fd);
			sys(NR_RENAME, (long)"/mnt/log/messages", (long)"/mnt/log/messages.1");
			fd = open("/mnt/log/messages", O_WRONLY | O_CREAT | O_APPEND, 0644);
			if (fd < 0)
				return 1;
			size = 0;
		}
	}
}
