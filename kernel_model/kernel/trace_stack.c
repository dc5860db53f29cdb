/*
 * The stack tracer (Linux 6.1's kernel/trace/trace_stack.c): at every
 * function entry whose site is flagged FTRACE_SITE_STACK (the host flags the
 * sites stack_trace_filter lets through while kernel.stack_tracer_enabled is
 * set), the dispatcher calls check_stack(), which keeps the deepest stack
 * seen: its size, its return addresses from the traced function's on, and
 * how deep each one's slot lies.  The host reads it for stack_trace and
 * stack_max_size.  Interrupts are off and the dispatcher's recursion guard
 * is held, so no check nests on this cpu (Linux's disable_stack_tracer).
 */
#include "../include/kernel.h"
#include "../include/trace/ftrace.h"

struct stack_tracer stack_tracer;

static notrace void stack_lock(void)
{
	while (__atomic_exchange_n(&stack_tracer.lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static notrace void stack_unlock(void)
{
	__atomic_store_n(&stack_tracer.lock, 0, __ATOMIC_RELEASE);
}

/*
 * check_stack(): the stack in use at the site regs->ip is from the slot of the
 * site's return address (function+5, pushed by its call of the trampoline:
 * what Linux finds as tracer_frame) to the top of the task's stack.  A new
 * maximum takes the stack trace and finds each return address in the stack,
 * in order, from the trampoline's frame up: the depth of its slot is its
 * stack_trace_index; one not found (a hooked return) is left out.
 */
notrace void check_stack(struct task_struct *t, struct pt_regs *regs)
{
	unsigned long base = (unsigned long)t->stack, top = base + THREAD_SIZE;
	unsigned long *start = (unsigned long *)regs, *p;
	unsigned long this_size = top - (regs->sp - sizeof(long));
	unsigned long *dump = (unsigned long *)stack_tracer.dump;
	int i, x, nr;

	/* interrupts and the idle loop run on the task's stack here; another stack is not measured */
	if (regs->sp <= base || regs->sp > top || this_size <= READ_ONCE(stack_tracer.max_size))
		return;
	stack_lock();
	if (this_size <= stack_tracer.max_size)
		goto out;
	WRITE_ONCE(stack_tracer.seq, stack_tracer.seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	stack_tracer.max_size = this_size;
	nr = ftrace_unwind(t, regs, dump, 0, STACK_TRACE_ENTRIES - 1);
	i = 0;
	x = 0;
	while (i < nr) {
		int found = 0;

		stack_tracer.index[x] = this_size;
		for (p = start; p < (unsigned long *)top && i < nr; p++) {
			if (*p == dump[i]) {
				dump[x] = dump[i++];
				this_size = stack_tracer.index[x++] = (top - (unsigned long)p);
				found = 1;
				start = p + 1;
			}
		}
		if (!found)
			i++;
	}
	stack_tracer.nr_entries = x;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	WRITE_ONCE(stack_tracer.seq, stack_tracer.seq + 1);
out:
	stack_unlock();
}
