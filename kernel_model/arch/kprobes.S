/*
 * The guest half of the kprobe engine (arch/x86/kernel/kprobes/): the
 * kretprobe trampoline and the executable area the engine writes
 * out-of-line instruction copies and optprobe detour buffers into.
 * All of it lies in the kprobes text area, which cannot itself be probed.
 *
 * Recording goes through probe_commit_stub (kernel/trace_probe.c): the
 * host-side handler stages a record in this CPU's probe_stage and the stub
 * writes it into the ring.
 */
#include "../include/kprobes.h"

	.section .kprobes.text, "ax"

/*
 * A kretprobe's function returns here (its return address was swapped for
 * this one).  The slot pushed first takes the real return address, which
 * the host hook at kretprobe_hook writes (and stages the return record);
 * the stub commits the record, preserving every register (rax/rdx: the
 * return value); `ret` leaves through the slot to the real caller.
 */
	.globl	__kretprobe_trampoline
	.type	__kretprobe_trampoline, @function
__kretprobe_trampoline:
	pushq	$0
	.globl	kretprobe_hook
kretprobe_hook:
	call	probe_commit_stub
	ret
	.size	__kretprobe_trampoline, .-__kretprobe_trampoline

/* Out-of-line copies and detour buffers, written by the host (int3 fill:
 * running into an unused part traps). */
	.balign	4096
	.globl	kprobe_insn_slots
	.type	kprobe_insn_slots, @object
kprobe_insn_slots:
	.fill	KPROBE_INSN_SLOTS_SIZE, 1, 0xcc
	.size	kprobe_insn_slots, KPROBE_INSN_SLOTS_SIZE
	.balign	4096
