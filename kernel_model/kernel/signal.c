/*
 * Signals (kernel/signal.c, arch/x86/kernel/signal.c): the frame a handler runs on.
 */
#include "../include/syscalls.h"
#include "../include/signal.h"

#define FRAME_ALIGNMENT		16
#define MAX_FRAME_PADDING	(FRAME_ALIGNMENT - 1)
#define MAX_XSAVE_PADDING	63	/* the fp state is 64-byte aligned below the frame */

/* The largest frame a handler may need (AT_MINSIGSTKSZ): siginfo and ucontext, the fxsave
 * area (no xsave on this CPU), and their alignment (init_sigframe_size()). */
unsigned long get_sigframe_size(void)
{
	unsigned long size = sizeof(struct rt_sigframe) + MAX_FRAME_PADDING +
			     sizeof(struct fxregs_state) + MAX_XSAVE_PADDING;

	return ALIGN(size, FRAME_ALIGNMENT);
}
