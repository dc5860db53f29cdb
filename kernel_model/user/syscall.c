/* syscall NR [ARG...]: system call NR with up to six integer arguments; prints its return value
 * as the kernel gave it (a negative errno on failure) and exits 0 if it succeeded. */
#include "libc.h"

int main(int argc, char **argv)
{
	long args[6] = { 0 }, ret;
	int i;

	if (argc < 2 || argc > 8) {
		dprintf(2, "usage: syscall NR [ARG...] (up to 6 integer arguments)\n");
		return 2;
	}
	for (i = 2; i < argc; i++)
		args[i - 2] = atol(argv[i]);
	ret = syscall6(atol(argv[1]), args[0], args[1], args[2], args[3], args[4], args[5]);
	if (ret < 0 && ret > -4096)
		printf("%ld (%s)\n", ret, strerror(-ret));
	else
		printf("%ld\n", ret);
	return ret < 0 && ret > -4096;
}
