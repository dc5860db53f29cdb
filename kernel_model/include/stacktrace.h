/* Stack traces of a task (6.1's include/linux/stacktrace.h): kernel/stacktrace.c */
#ifndef _STACKTRACE_H
#define _STACKTRACE_H
#include "kernel.h"

/* an address in the kernel's text (kernel/events/callchain.c; 6.1: kernel/extable.c) */
bool kernel_text_address(u64 addr);

/* called with each return address found, outermost last; false stops the walk */
typedef bool (*stack_trace_consume_fn)(void *cookie, unsigned long addr);
/* the return addresses up task's kernel stack: current's from the caller's frame, another's
 * from where it last switched out; none of a task running on another cpu */
void arch_stack_walk(stack_trace_consume_fn consume_entry, void *cookie, struct task_struct *task);
/* up to size of them into store, the scheduler's own left out, the first skipnr dropped (and
 * stack_trace_save_tsk's own frame when task is current); the number stored */
unsigned int stack_trace_save_tsk(struct task_struct *task, unsigned long *store, unsigned int size,
				  unsigned int skipnr);
/* an address in the scheduler's text (__sched: schedule, schedule_timeout, do_nanosleep...) */
int in_sched_functions(unsigned long addr);
/* where a sleeping task waits: its first return address outside the scheduler (0: it runs, or
 * is current), with sched_lock held; __get_wchan() the unwinding of it (6.1: linux/sched.h,
 * asm/processor.h) */
unsigned long get_wchan(struct task_struct *p);
unsigned long __get_wchan(struct task_struct *p);
#endif
