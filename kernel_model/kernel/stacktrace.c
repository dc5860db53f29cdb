/*
 * Stack traces of a task (6.1's kernel/stacktrace.c, arch/x86/kernel/stacktrace.c): the return
 * addresses up its kernel stack, by the frame pointers the kernel is built with (6.1's ORC
 * unwinder finds the same frames), each return function_graph hooked given as the real one.
 * /proc/PID/stack and wchan read a sleeping task's.
 */
#include "../include/stacktrace.h"
#include "../include/trace/ftrace.h"

/* __switch_to_asm's frame on a task that switched out: the callee-saved registers it pushed
 * (r15 first, rbp last: its caller's frame pointer), then the return into __schedule */
struct inactive_task_frame {
	unsigned long r15, r14, r13, r12, bx, bp, ret_addr;
};

noinline void arch_stack_walk(stack_trace_consume_fn consume_entry, void *cookie, struct task_struct *task)
{
	unsigned long lo = (unsigned long)task->stack, hi = lo + THREAD_SIZE, bp, ret;
	int graph_idx = task->curr_ret_stack;

	if (!task->stack)
		return;
	if (task == current) {
		bp = (unsigned long)__builtin_frame_address(0);	/* its first return: into our caller */
	} else {
		const struct inactive_task_frame *frame = (const void *)READ_ONCE(task->thread.sp);

		/* running elsewhere, its stack changes under the walk: 6.1's unwinder gives up too */
		if (READ_ONCE(task->on_cpu) || (unsigned long)frame < lo || (unsigned long)(frame + 1) > hi)
			return;
		ret = ftrace_graph_ret_addr(task, &graph_idx, frame->ret_addr);
		if (!kernel_text_address(ret) || !consume_entry(cookie, ret))
			return;
		bp = frame->bp;
	}
	while (bp >= lo && bp + 16 <= hi && !(bp & 7)) {
		const unsigned long *frame = (const unsigned long *)bp;

		ret = ftrace_graph_ret_addr(task, &graph_idx, frame[1]);
		if (!kernel_text_address(ret) || !consume_entry(cookie, ret))
			return;
		if (frame[0] <= bp)	/* (frames go up the stack) */
			return;
		bp = frame[0];
	}
}

struct stacktrace_cookie {
	unsigned long *store;
	unsigned int size, skip, len;
};

noinline bool stack_trace_consume_entry(void *cookie, unsigned long addr)
{
	struct stacktrace_cookie *c = cookie;

	if (c->len >= c->size)
		return false;
	if (c->skip > 0) {
		c->skip--;
		return true;
	}
	c->store[c->len++] = addr;
	return c->len < c->size;
}

noinline bool stack_trace_consume_entry_nosched(void *cookie, unsigned long addr)
{
	if (in_sched_functions(addr))
		return true;
	return stack_trace_consume_entry(cookie, addr);
}

noinline unsigned int stack_trace_save_tsk(struct task_struct *task, unsigned long *store, unsigned int size,
					   unsigned int skipnr)
{
	struct stacktrace_cookie c = {
		.store = store,
		.size = size,
		.skip = skipnr + (current == task),	/* this function's own frame */
	};

	arch_stack_walk(stack_trace_consume_entry_nosched, &c, task);
	return c.len;
}
