/*
 * What Linux refuses to probe on the paths this kernel models
 * (kernel/kprobes.c's blacklist).  The C halves of the entry paths are
 * `noinstr` in Linux (arch/x86/entry/common.c, arch/x86/kernel/traps.c,
 * the DEFINE_IDTENTRY_SYSVEC handlers), so they are blacklisted: a probe
 * there would run with the machine state half switched.  The asm entry code
 * and the trace machinery are blacklisted as areas by the linker script.
 */
#include "../include/kernel.h"
#include "../include/kprobes.h"

void do_syscall_64(struct pt_regs *regs, int nr);
void irqentry_exit(struct pt_regs *regs);
void sysvec_apic_timer_interrupt(struct pt_regs *regs);
void sysvec_reschedule_ipi(struct pt_regs *regs);
void sysvec_call_function(struct pt_regs *regs);
void exc_divide_error(struct pt_regs *regs);
void exc_int3(struct pt_regs *regs);
void exc_invalid_op(struct pt_regs *regs);
void exc_general_protection(struct pt_regs *regs);
void exc_page_fault(struct pt_regs *regs);

NOKPROBE_SYMBOL(do_syscall_64)
NOKPROBE_SYMBOL(irqentry_exit)
NOKPROBE_SYMBOL(sysvec_apic_timer_interrupt)
NOKPROBE_SYMBOL(sysvec_reschedule_ipi)
NOKPROBE_SYMBOL(sysvec_call_function)
NOKPROBE_SYMBOL(exc_divide_error)
NOKPROBE_SYMBOL(exc_int3)
NOKPROBE_SYMBOL(exc_invalid_op)
NOKPROBE_SYMBOL(exc_general_protection)
NOKPROBE_SYMBOL(exc_page_fault)
