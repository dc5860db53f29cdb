/*
 * Commits the record a host-side probe handler staged (include/trace/
 * probe_stage.h) into the rings, as trace_event_buffer_reserve/commit do
 * for a kprobe event in Linux: common header from the probed context's
 * flags, the staged body copied after it.
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/trace/probe_stage.h"

struct probe_stage probe_stage[NR_CPUS];

notrace void probe_stage_commit(void)
{
	struct probe_stage *st = &probe_stage[this_cpu()->h.cpu];
	unsigned long flags = arch_local_irq_save();
	u32 len = st->len;

	if (len <= PROBE_STAGE_MAX) {
		struct trace_event_file file = { st->slots, st->type, 0 };
		struct trace_entry *rec;

		preempt_disable();	/* the record shows the probed context's count */
		rec = trace_event_buffer_reserve(&file, sizeof(*rec) + len);
		if (rec) {
			tracing_generic_entry_update(rec, &file, st->irqflags);
			memcpy(rec + 1, st->data, len);
			trace_event_commit(rec, sizeof(*rec) + len);
		}
		preempt_enable_no_resched();
	}
	st->len = 0;
	arch_local_irq_restore(flags);
}

/*
 * probe_commit_stub: called from the probe trampolines, which must not
 * change a register or a flag of the probed context.  Nothing staged (the
 * common case) costs a few instructions.
 */
asm(
"	.text\n"
"	.globl probe_commit_stub\n"
"	.type probe_commit_stub, @function\n"
"probe_commit_stub:\n"
"	pushfq\n"
"	pushq	%rax\n"
"	movq	%gs:8, %rax\n"			/* hostif_cpu.cpu */
"	imulq	$" __stringify(PROBE_STAGE_SIZE) ", %rax\n"
"	cmpl	$0, probe_stage(%rax)\n"
"	jne	1f\n"
"	popq	%rax\n"
"	popfq\n"
"	ret\n"
"1:	pushq	%rcx\n"
"	pushq	%rdx\n"
"	pushq	%rsi\n"
"	pushq	%rdi\n"
"	pushq	%r8\n"
"	pushq	%r9\n"
"	pushq	%r10\n"
"	pushq	%r11\n"
"	call	probe_stage_commit\n"
"	popq	%r11\n"
"	popq	%r10\n"
"	popq	%r9\n"
"	popq	%r8\n"
"	popq	%rdi\n"
"	popq	%rsi\n"
"	popq	%rdx\n"
"	popq	%rcx\n"
"	popq	%rax\n"
"	popfq\n"
"	ret\n"
"	.size probe_commit_stub, .-probe_commit_stub\n");
