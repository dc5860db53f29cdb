/*
 * CPU exceptions in user mode (arch/x86/kernel/traps.c, arch/x86/mm/fault.c):
 * this kernel has no demand paging and no signal handlers, so every user
 * fault is fatal to the task, as an unhandled signal is in Linux: the
 * process dies by the signal (wait status = the signal number, no core dump
 * with the default RLIMIT_CORE of 0).  The machine only delivers exceptions
 * raised in user mode; one in the kernel is a panic.
 */
#include "../include/kernel.h"

#define SIGILL	4
#define SIGTRAP	5
#define SIGFPE	8
#define SIGSEGV	11

static void __noreturn force_sig_fault(int sig)
{
	local_irq_enable();	/* cond_local_irq_enable(): the fault came from user mode */
	do_group_exit(sig);
}

void exc_divide_error(struct pt_regs *regs)
{
	force_sig_fault(SIGFPE);
}

void exc_int3(struct pt_regs *regs)
{
	force_sig_fault(SIGTRAP);
}

void exc_invalid_op(struct pt_regs *regs)
{
	force_sig_fault(SIGILL);
}

void exc_general_protection(struct pt_regs *regs)
{
	force_sig_fault(SIGSEGV);
}

/* no VMAs to fix a fault up from: bad_area() for every user page fault */
void exc_page_fault(struct pt_regs *regs)
{
	force_sig_fault(SIGSEGV);
}
