/*
 * The guest half of the kprobe engine (arch/x86/kernel/kprobes/): the
 * kretprobe trampoline and the executable area the engine writes
 * out-of-line instruction copies and optprobe detour buffers into.
 * All of it lies in the kprobes text area, which cannot itself be probed.
 *
 * Guest-handled probes record from the handlers these enter
 * (kernel/trace_probe.c); a host-side handler stages its record in this
 * CPU's probe_stage and probe_commit_stub writes it into the ring.
 */
#include "../include/kprobes.h"

	.section .kprobes.text, "ax"

/*
 * A kretprobe's function returns here (its return address was swapped for
 * this one).  The slot pushed first takes the real return address.  The
 * guest's handler (kretprobe_guest_return) finds the instance of this call,
 * fills the slot and writes the record; a call hooked by a host-handled
 * kretprobe goes on to the host's hook at kretprobe_hook, which fills the
 * slot and stages the record for the stub to commit.  Every register and
 * the flags are kept (rax/rdx: the return value); `ret` leaves through the
 * slot to the real caller.
 */
#define KG_FRAME 168			/* struct pt_regs */

/*
 * A struct pt_regs below the flags the entry pushed: every register, orig_ax
 * -1, ip, kernel cs and ss, the pushed flags, and sp: the stack as it was
 * sp_above bytes above the frame (rax is clobbered).
 */
	.macro SAVE_PT_REGS ip, sp_above
	subq	$KG_FRAME, %rsp
	movq	%r15, 0(%rsp)
	movq	%r14, 8(%rsp)
	movq	%r13, 16(%rsp)
	movq	%r12, 24(%rsp)
	movq	%rbp, 32(%rsp)
	movq	%rbx, 40(%rsp)
	movq	%r11, 48(%rsp)
	movq	%r10, 56(%rsp)
	movq	%r9, 64(%rsp)
	movq	%r8, 72(%rsp)
	movq	%rax, 80(%rsp)
	movq	%rcx, 88(%rsp)
	movq	%rdx, 96(%rsp)
	movq	%rsi, 104(%rsp)
	movq	%rdi, 112(%rsp)
	movq	$-1, 120(%rsp)			/* orig_ax */
	movq	\ip, 128(%rsp)
	movq	$0x10, 136(%rsp)		/* __KERNEL_CS */
	movq	KG_FRAME(%rsp), %rax		/* the pushed flags */
	movq	%rax, 144(%rsp)
	leaq	KG_FRAME+\sp_above(%rsp), %rax
	movq	%rax, 152(%rsp)
	movq	$0x18, 160(%rsp)		/* __KERNEL_DS */
	.endm

/* The registers a C call may have changed (it keeps r12-r15 and rbp; rbx held the frame),
 * with movs only: the flags are kept. */
	.macro RESTORE_CLOBBERED
	movq	40(%rsp), %rbx
	movq	48(%rsp), %r11
	movq	56(%rsp), %r10
	movq	64(%rsp), %r9
	movq	72(%rsp), %r8
	movq	80(%rsp), %rax
	movq	88(%rsp), %rcx
	movq	96(%rsp), %rdx
	movq	104(%rsp), %rsi
	movq	112(%rsp), %rdi
	.endm
	.globl	arch_rethook_trampoline
	.type	arch_rethook_trampoline, @function
arch_rethook_trampoline:
	pushq	$0
	pushfq
	cli
	SAVE_PT_REGS ip=$0, sp_above=16	/* ip: the handler's (the real caller); sp: past flags and the slot, as after the ret */
	movq	%rsp, %rdi
	movq	%rsp, %rbx
	andq	$-16, %rsp			/* the C ABI's alignment */
	call	kretprobe_guest_return
	movq	%rbx, %rsp
	testq	%rax, %rax			/* only movs and lea until the jz */
	RESTORE_CLOBBERED
	leaq	KG_FRAME(%rsp), %rsp
	jz	1f
	popfq
	ret
1:	popfq
	.globl	kretprobe_hook
kretprobe_hook:
	call	probe_commit_stub
	ret
	.size	arch_rethook_trampoline, .-arch_rethook_trampoline

/*
 * kprobe_guest_stub: a guest-handled point's slot starts `pushq $point;
 * call kprobe_guest_stub` (the int3 handler sends the CPU there; an
 * optimised probe jumps there).  It saves the probed context as a pt_regs
 * (sp: the probed rsp, ip: filled by nobody -- the handler knows the point),
 * runs kprobe_guest_slot(point, regs) with interrupts off, restores every
 * register and the flags and returns past the pushed index, into the
 * relocated instructions.
 */
	.globl	kprobe_guest_stub
	.type	kprobe_guest_stub, @function
kprobe_guest_stub:
	pushfq
	cli
	SAVE_PT_REGS ip=$0, sp_above=24	/* sp: past flags, return address, point */
	movq	KG_FRAME+16(%rsp), %rdi		/* the point */
	movq	%rsp, %rsi
	movq	%rsp, %rbx
	andq	$-16, %rsp			/* the C ABI's alignment */
	call	kprobe_guest_slot
	movq	%rbx, %rsp
	RESTORE_CLOBBERED
	addq	$KG_FRAME, %rsp
	popfq
	ret	$8
	.size	kprobe_guest_stub, .-kprobe_guest_stub

/* Out-of-line copies and detour buffers, written by the host (int3 fill:
 * running into an unused part traps). */
	.balign	4096
	.globl	kprobe_insn_slots
	.type	kprobe_insn_slots, @object
kprobe_insn_slots:
	.fill	KPROBE_INSN_SLOTS_SIZE, 1, 0xcc
	.size	kprobe_insn_slots, KPROBE_INSN_SLOTS_SIZE
	.balign	4096
