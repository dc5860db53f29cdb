#include "libc.h"

int main(int argc, char **argv)
{
	char buf[1024];
	int i, ret = 0;

	for (i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY, 0);
		long n;

		if (fd < 0) {
			dprintf(2, "cat: %s: %s\n", argv[i], strerror(-fd));
			ret = 1;
			continue;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			write(1, buf, n);
		if (n < 0) {
			dprintf(2, "cat: %s: %s\n", argv[i], strerror(-n));
			ret = 1;
		}
		close(fd);
	}
	return ret;
}
