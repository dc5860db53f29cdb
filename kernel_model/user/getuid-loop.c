/* getuid-loop N: N getuid() calls, printing each result. */
#include "libc.h"

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1;

	if (n < 0) {
		dprintf(2, "getuid-loop: invalid count '%s'\n", argv[1]);
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("%u\n", getuid());
	return 0;
}
