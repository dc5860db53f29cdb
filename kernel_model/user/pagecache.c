/* pagecache write FILE MIB | pagecache read FILE: writes MIB MiB of a pattern to FILE (each
 * 8-byte word its own offset, plus one) and fsyncs it, so that its pages in the page cache are
 * clean; or reads FILE back through the page cache and checks every word.  A file larger than
 * free memory read this way makes the kernel reclaim: the tests of page reclaim. */
#include "libc.h"

#define O_WRONLY 1
#define O_CREAT 0100
#define O_TRUNC 01000
#define NR_FSYNC 74
#define CHUNK (64 << 10)

static unsigned long buf[CHUNK / 8];

static int write_file(const char *path, long mib)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	unsigned long off = 0, i;
	long ret;

	if (fd < 0) {
		dprintf(2, "pagecache: %s: %s\n", path, strerror(-fd));
		return 1;
	}
	for (; off < (unsigned long)mib << 20; off += CHUNK) {
		for (i = 0; i < CHUNK / 8; i++)
			buf[i] = off + i * 8 + 1;
		if ((ret = write(fd, buf, CHUNK)) != CHUNK) {
			dprintf(2, "pagecache: write: %s\n", ret < 0 ? strerror(-ret) : "short write");
			return 1;
		}
	}
	if ((ret = syscall6(NR_FSYNC, fd, 0, 0, 0, 0, 0))) {
		dprintf(2, "pagecache: fsync: %s\n", strerror(-ret));
		return 1;
	}
	close(fd);
	printf("pagecache: %ld MiB written\n", mib);
	return 0;
}

static int read_file(const char *path)
{
	int fd = open(path, O_RDONLY, 0);
	unsigned long off = 0, i;
	long n;

	if (fd < 0) {
		dprintf(2, "pagecache: %s: %s\n", path, strerror(-fd));
		return 1;
	}
	while ((n = read(fd, buf, CHUNK)) > 0) {
		for (i = 0; i < (unsigned long)n / 8; i++)
			if (buf[i] != off + i * 8 + 1) {
				printf("pagecache: bad data at %lu: %lu\n", off + i * 8, buf[i]);
				return 1;
			}
		off += n;
	}
	if (n < 0) {
		dprintf(2, "pagecache: read: %s\n", strerror(-n));
		return 1;
	}
	close(fd);
	printf("pagecache: %lu MiB read, data correct\n", off >> 20);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write"))
		return write_file(argv[2], atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "read"))
		return read_file(argv[2]);
	dprintf(2, "usage: pagecache write FILE MIB | pagecache read FILE\n");
	return 2;
}
