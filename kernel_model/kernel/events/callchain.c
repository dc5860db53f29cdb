/*
 * Call chains of samples (kernel/events/callchain.c, arch/x86/events/core.c's
 * perf_callchain_kernel/user): PERF_CONTEXT_KERNEL, the sampled ip, then the return addresses
 * found by walking the frame pointers (the kernel is built with them) up the task's kernel
 * stack; PERF_CONTEXT_USER and the user frames of a task that has a user mode here.
 */
#include "../../include/perf_event.h"
#include "../../include/maccess.h"
#include "../../include/bpf.h"

#define PERF_CALLCHAIN_MAX (PERF_MAX_STACK_DEPTH + 3)	/* nr, two contexts, the frames */

/* one per cpu: samples are taken under perf_lock with interrupts off */
static u64 perf_callchain_entries[NR_CPUS][1 + PERF_CALLCHAIN_MAX];

/* the kernel's text, and the code it writes at run time past it: its JITed BPF programs (6.1's
 * __kernel_text_address(); the trampolines' area lies in the text here) */
noinline bool kernel_text_address(u64 addr)
{
	return (addr >= (u64)_stext && addr < (u64)_etext) || is_bpf_text_address(addr);
}

noinline int perf_callchain_kernel(u64 *ips, int nr, int max, struct pt_regs *regs, bool add_mark)
{
	struct task_struct *task = current;
	u64 lo = (u64)task->stack, hi = lo + THREAD_SIZE, bp = regs->bp;
	bool first = true;

	if (add_mark)
		ips[nr++] = PERF_CONTEXT_KERNEL;
	ips[nr++] = regs->ip;
	if (!task->stack)
		return nr;
	/* at a function's entry (its ftrace site, or just past it: a kprobe there), its frame is
	 * not made yet: its caller's return address is at sp, as 6.1's ORC unwinder finds it */
	if ((ftrace_is_site(regs->ip) || ftrace_is_site(regs->ip - 1)) && regs->sp >= lo && regs->sp + 8 <= hi &&
	    nr < max) {
		u64 ret = *(u64 *)regs->sp;

		if (kernel_text_address(ret))
			ips[nr++] = ret;
	}
	while (nr < max) {
		u64 *frame = (u64 *)bp, ret;

		if (bp < lo || bp + 16 > hi || (bp & 7))
			break;
		ret = frame[1];
		if (!kernel_text_address(ret))
			break;
		/* perf_fetch_caller_regs(): the first frame returns to the sampled ip itself */
		if (!(first && ret == regs->ip))
			ips[nr++] = ret;
		first = false;
		if (frame[0] <= bp)
			break;
		bp = frame[0];
	}
	return nr;
}

noinline int perf_callchain_user(u64 *ips, int nr, int max, struct pt_regs *regs, bool add_mark)
{
	u64 bp = regs->bp;

	if (add_mark)
		ips[nr++] = PERF_CONTEXT_USER;
	ips[nr++] = regs->ip;
	while (nr < max) {
		u64 frame[2];

		/* __copy_from_user_nmi(): no fault taken (a sample may come in an NMI) */
		if (!bp || (bp & 7) || copy_from_user_nofault(frame, (void *)bp, sizeof(frame)))
			break;
		if (!frame[1])
			break;
		ips[nr++] = frame[1];
		if (frame[0] <= bp)
			break;
		bp = frame[0];
	}
	return nr;
}

/*
 * get_perf_callchain(): into ips (room for max), the kernel's frames of regs and/or the user's
 * of the current task, each part after its context mark if add_mark; the number of entries
 */
int get_perf_callchain(u64 *ips, struct pt_regs *regs, bool kernel, bool user, int max, bool add_mark)
{
	struct pt_regs *user_regs = user_mode(regs) ? regs : NULL;
	int nr = 0, marks = add_mark ? 1 : 0;

	if (kernel && !user_regs)
		nr = perf_callchain_kernel(ips, nr, max, regs, add_mark);
	/* a task of this kernel's own programs; a session task's stack is its host process's */
	if (!user_regs && current->mm && current->stack)
		user_regs = task_pt_regs(current);
	if (current->session)
		user_regs = NULL;
	if (user && user_regs && nr + marks + 1 <= max)
		nr = perf_callchain_user(ips, nr, max, user_regs, add_mark);
	return nr;
}

/* a sample's chain, its first word the number of entries */
u64 *perf_callchain(struct perf_event *event, struct pt_regs *regs)
{
	u64 *entry = perf_callchain_entries[smp_processor_id()];
	int max = min((int)event->attr.sample_max_stack + 2, PERF_CALLCHAIN_MAX);

	entry[0] = get_perf_callchain(entry + 1, regs, !event->attr.exclude_callchain_kernel,
				      !event->attr.exclude_callchain_user, max, true);
	return entry;
}
