#include "libc.h"

int main(int argc, char **argv)
{
	char buf[1024];
	size_t n = 0;
	int i;

	for (i = 1; i < argc; i++) {
		size_t l = strlen(argv[i]);
		if (n + l + 2 > sizeof(buf)) {
			write(1, buf, n);
			n = 0;
		}
		memcpy(buf + n, argv[i], l);
		n += l;
		if (i + 1 < argc)
			buf[n++] = ' ';
	}
	buf[n++] = '\n';
	write(1, buf, n);
	return 0;
}
