/*
 * ftrace_dump() (kernel/trace/trace.c): the top-level buffer printed into the kernel's log
 * in the latency format, consumed, by the `dump` and `cpudump` function commands.  The
 * buffer and its printers are the host's, so the kernel asks for the text and prints what
 * the host writes here: it turns tracing off and rings PORT_TRACE; the host (its drain)
 * writes the next part of the text and raises the call-function interrupt; the kernel
 * prints it (ftrace_dump_print(), from that interrupt) and asks for more until the last.
 */
#ifndef _TRACE_FTRACE_DUMP_H
#define _TRACE_FTRACE_DUMP_H
#include "../kernel.h"

#define FTRACE_DUMP_TEXT_SIZE 8192

enum ftrace_dump_mode {
	DUMP_NONE,
	DUMP_ALL,
	DUMP_ORIG,
};

struct ftrace_dump_state {
	u32 running;			/* dump_running: one dump at a time */
	s32 cpu;			/* the buffer dumped: a CPU's (DUMP_ORIG), or -1: all */
	u32 asked;			/* the kernel waits for text: set by it, cleared by the host */
	u32 len;			/* bytes of text the host wrote (whole lines) */
	u32 last;			/* the host's text ends the dump */
	u32 ready;			/* the host's answer is written (the kernel takes it) */
	char text[FTRACE_DUMP_TEXT_SIZE];
};

extern struct ftrace_dump_state ftrace_dump_state;

void ftrace_dump(enum ftrace_dump_mode oops_dump_mode);
/* from the call-function interrupt: print what the host wrote */
void ftrace_dump_print(void);
#endif
