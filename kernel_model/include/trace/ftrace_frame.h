/*
 * The frame ftrace_caller and ftrace_regs_caller (arch/ftrace_64.S) build
 * below the site's return address: a struct pt_regs, 8 bytes that align the
 * C call, then the flags and rax the trampoline pushed, the return into the
 * function (the site + 5) and the function's own return address.  Offsets
 * from the frame's start (the pt_regs); kernel/ftrace.c reads them too.
 */
#ifndef _TRACE_FTRACE_FRAME_H
#define _TRACE_FTRACE_FRAME_H

#define FTRACE_PTREGS_SIZE	168
#define FTRACE_FRAME_SIZE	176
#define FTRACE_T_RAX		(FTRACE_FRAME_SIZE + 0)
#define FTRACE_T_FLAGS		(FTRACE_FRAME_SIZE + 8)
#define FTRACE_T_RET		(FTRACE_FRAME_SIZE + 16)	/* into the function: the site + 5 */
#define FTRACE_T_PARENT		(FTRACE_FRAME_SIZE + 24)	/* the function's return address: its entry rsp */
#define MCOUNT_INSN_SIZE	5

#endif
