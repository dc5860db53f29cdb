/* fault [segv|ill|fpe|trap]: a program that crashes, by the CPU exception named (default
 * segv: a store through NULL), to show what a crash does to tracing around it. */
#include "libc.h"

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "segv";
	volatile int zero = 0;

	if (!strcmp(how, "segv"))
		*(volatile int *)0 = 1;
	else if (!strcmp(how, "ill"))
		asm volatile("ud2");
	else if (!strcmp(how, "fpe"))
		return 100 / zero;	/* (1 / x compiles to no division) */
	else if (!strcmp(how, "trap"))
		asm volatile("int3");
	dprintf(2, "fault: unknown fault '%s'\n", how);
	return 2;
}
