/* dd if=FILE of=FILE bs=N count=N: a read/write loop. */
#include "libc.h"

static char buf[65536];

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	long bs = 512, count = -1, full = 0, partial = 0, wfull = 0, bytes = 0;
	int i, ifd = 0, ofd = 1;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "if=", 3))
			in = argv[i] + 3;
		else if (!strncmp(argv[i], "of=", 3))
			out = argv[i] + 3;
		else if (!strncmp(argv[i], "bs=", 3))
			bs = atol(argv[i] + 3);
		else if (!strncmp(argv[i], "count=", 6))
			count = atol(argv[i] + 6);
		else {
			dprintf(2, "dd: unrecognized operand '%s'\n", argv[i]);
			return 1;
		}
	}
	if (bs <= 0 || bs > (long)sizeof(buf)) {
		dprintf(2, "dd: invalid number: 'bs'\n");
		return 1;
	}
	if (in && (ifd = open(in, O_RDONLY, 0)) < 0) {
		dprintf(2, "dd: failed to open '%s': %s\n", in, strerror(-ifd));
		return 1;
	}
	if (out && (ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0) {
		dprintf(2, "dd: failed to open '%s': %s\n", out, strerror(-ofd));
		return 1;
	}
	while (count < 0 || full + partial < count) {
		long n = read(ifd, buf, bs);
		if (n <= 0)
			break;
		if (n == bs)
			full++;
		else
			partial++;
		if (write(ofd, buf, n) == n)
			wfull += n == bs;
		bytes += n;
	}
	dprintf(2, "%ld+%ld records in\n%ld+%ld records out\n%ld bytes copied\n", full, partial, wfull,
		full + partial - wfull, bytes);
	return 0;
}
