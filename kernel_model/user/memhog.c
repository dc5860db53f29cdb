/* memhog [-a ADJ] [-s SECONDS] MIB: writes to MIB MiB of anonymous memory (0: without end, until
 * the OOM killer ends it), a byte a page, then holds it SECONDS (default 0) and exits.  -a first
 * writes ADJ to /proc/self/oom_score_adj. */
#include "libc.h"

#define MIB (1UL << 20)

static long number(const char *s)
{
	long v = atol(s);

	if (v < 0 || (*s != '-' && (*s < '0' || *s > '9'))) {
		dprintf(2, "memhog: invalid number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long mib, done, seconds = 0, i = 1;
	const char *adj = NULL;

	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "-a"))
			adj = argv[i + 1];
		else if (!strcmp(argv[i], "-s"))
			seconds = number(argv[i + 1]);
		else
			break;
	}
	if (i + 1 != argc) {
		dprintf(2, "usage: memhog [-a ADJ] [-s SECONDS] MIB\n");
		return 2;
	}
	mib = number(argv[i]);
	if (adj) {
		int fd = open("/proc/self/oom_score_adj", O_WRONLY, 0);
		long n = fd < 0 ? fd : write(fd, adj, strlen(adj));

		if (n < 0) {
			dprintf(2, "memhog: oom_score_adj %s: %s\n", adj, strerror(-n));
			return 1;
		}
		close(fd);
	}
	for (done = 0; !mib || done < mib; done++) {
		/* mmap(NULL, 1 MiB, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) */
		char *p = (char *)syscall6(9, 0, MIB, 3, 0x22, -1, 0);
		unsigned long off;

		if ((long)p < 0 && (long)p > -4096) {
			dprintf(2, "memhog: mmap: %s\n", strerror(-(long)p));
			return 1;
		}
		for (off = 0; off < MIB; off += 4096)
			p[off] = 1;
	}
	printf("memhog: %ld MiB touched\n", done);
	if (seconds)
		msleep(seconds * 1000);
	return 0;
}
