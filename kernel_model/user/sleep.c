/* sleep SECONDS (decimal fractions allowed) */
#include "libc.h"

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 0 };
	const char *p;
	long frac = 100000000;

	if (argc < 2) {
		dprintf(2, "sleep: missing operand\n");
		return 1;
	}
	for (p = argv[1]; *p >= '0' && *p <= '9'; p++)
		ts.tv_sec = ts.tv_sec * 10 + (*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9' && frac; p++, frac /= 10)
			ts.tv_nsec += (*p - '0') * frac;
	if (*p || p == argv[1]) {
		dprintf(2, "sleep: invalid time interval '%s'\n", argv[1]);
		return 1;
	}
	return nanosleep(&ts, NULL) < 0;
}
