/*
 * The function tracers' trampolines (Linux's arch/x86/kernel/ftrace_64.S).
 *
 * ftrace_caller: the target of an enabled site's `call` (the function's
 * first instruction).  As Linux's, it saves only what the C call may
 * clobber and the function may still need: the argument registers, rax
 * (al counts a variadic call's vector registers) and the flags; rbp too,
 * for the tracers' stack walks.  r10 and r11 are dead at a function's
 * entry.  It calls ftrace_dispatch(regs) (kernel/ftrace.c) with interrupts
 * off and returns into the function; the dispatcher reads the site, the
 * parent and the flags from the frame (include/trace/ftrace_frame.h) and
 * fills the rest of the pt_regs the tracers read (ip, sp, flags) only when
 * it leaves its fast path.
 *
 * ftrace_regs_caller: the target of a site where an ftrace-based kprobe
 * sits (as Linux's ops with FTRACE_OPS_FL_SAVE_REGS): a whole pt_regs,
 * ftrace_regs_dispatch(ip, parent_ip, regs), every register and the flags
 * restored, and the return into the function, or to regs->ip if a kprobe
 * handler moved it off the site; where a BPF trampoline shares the site (an
 * ftrace direct call), the return goes into the trampoline instead, as if
 * the site had called it.
 *
 * return_to_handler: where function_graph makes a hooked function return;
 * rax/rdx (the return value) are preserved.
 *
 * ftrace_kprobe_hook: the host's ftrace-based kprobes put a one-address
 * code hook on its first instruction (rdi = the saved pt_regs); the record
 * the handler staged is committed right after.
 */
#include "trace/ftrace_frame.h"
#include "bpf_tramp.h"
#include "bpf_jit.h"

#define R15	0
#define R14	8
#define R13	16
#define R12	24
#define RBP	32
#define RBX	40
#define R11	48
#define R10	56
#define R9	64
#define R8	72
#define RAX	80
#define RCX	88
#define RDX	96
#define RSI	104
#define RDI	112
#define ORIG_RAX 120
#define RIP	128
#define CS	136
#define EFLAGS	144
#define RSP	152
#define SS	160
#define FRAME_SIZE	FTRACE_FRAME_SIZE
#define T_RAX		FTRACE_T_RAX
#define T_FLAGS		FTRACE_T_FLAGS
#define T_RET		FTRACE_T_RET
#define T_PARENT	FTRACE_T_PARENT

/* Both trampolines' way back: the argument registers, rax and the flags they saved first
 * (leaq, not addq: no flags changed before the popfq), into the traced function. */
	.macro RESTORE_ARGS
	movq	R9(%rsp), %r9
	movq	R8(%rsp), %r8
	movq	RCX(%rsp), %rcx
	movq	RDX(%rsp), %rdx
	movq	RSI(%rsp), %rsi
	movq	RDI(%rsp), %rdi
	.endm

	.macro RESTORE_ARGS_AND_RETURN
	RESTORE_ARGS
	leaq	FRAME_SIZE(%rsp), %rsp
	popq	%rax
	popfq
	ret
	.endm

	/* Linux gives the function tracer's ops a copy of ftrace_caller in memory of its own
	 * (arch_ftrace_update_trampoline()), which kallsyms cannot name: a stack trace's first
	 * frame is a bare address inside it.  This one is linked past _etext for the same. */
	.section .ftrace.tramp, "ax"
	.globl ftrace_caller
	.type ftrace_caller, @function
ftrace_caller:
	pushfq
	cli				/* the dispatcher runs with interrupts off; popfq restores them */
	pushq	%rax
	leaq	-FRAME_SIZE(%rsp), %rsp
	movq	%r9, R9(%rsp)
	movq	%r8, R8(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdi, RDI(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_dispatch
	RESTORE_ARGS_AND_RETURN
	.size ftrace_caller, .-ftrace_caller

	.text
	.globl ftrace_regs_caller
	.type ftrace_regs_caller, @function
ftrace_regs_caller:
	pushfq
	cli
	pushq	%rax
	leaq	-FRAME_SIZE(%rsp), %rsp
	movq	%r15, R15(%rsp)
	movq	%r14, R14(%rsp)
	movq	%r13, R13(%rsp)
	movq	%r12, R12(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rbx, RBX(%rsp)
	movq	%r11, R11(%rsp)
	movq	%r10, R10(%rsp)
	movq	%r9, R9(%rsp)
	movq	%r8, R8(%rsp)
	movq	%rax, RAX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdi, RDI(%rsp)
	movq	$-1, ORIG_RAX(%rsp)
	movq	$0x10, CS(%rsp)			/* __KERNEL_CS */
	movq	$0x18, SS(%rsp)			/* __KERNEL_DS */
	movq	T_FLAGS(%rsp), %rcx
	movq	%rcx, EFLAGS(%rsp)
	leaq	T_PARENT(%rsp), %rcx		/* the function's entry rsp */
	movq	%rcx, RSP(%rsp)
	movq	T_RET(%rsp), %rdi		/* the site */
	subq	$MCOUNT_INSN_SIZE, %rdi
	movq	%rdi, RIP(%rsp)
	movq	T_PARENT(%rsp), %rsi
	movq	%rsp, %rdx
	call	ftrace_regs_dispatch
	movq	%rax, ORIG_RAX(%rsp)		/* a direct trampoline's address, or 0 */
	/* resume after the call, or where a kprobe handler moved regs->ip (no branch) */
	movq	%rsp, %rcx
	movq	T_RET(%rcx), %rdx
	leaq	-MCOUNT_INSN_SIZE(%rdx), %rsi
	movq	RIP(%rcx), %rax
	cmpq	%rax, %rsi
	cmove	%rdx, %rax
	movq	%rax, T_RET(%rcx)
	movq	RAX(%rcx), %rax
	movq	%rax, T_RAX(%rcx)
	movq	EFLAGS(%rcx), %rax
	movq	%rax, T_FLAGS(%rcx)
	/* r11 (dead at a function's entry): where the pops of rax and the flags start */
	leaq	FRAME_SIZE(%rcx), %r11
	movq	ORIG_RAX(%rcx), %rdx
	testq	%rdx, %rdx
	jz	1f
	/* a direct call shares the site (6.1's ORIG_RAX of ftrace_regs_caller): rax and the flags
	 * one slot lower, the trampoline's address above them: the ret goes into it with the
	 * stack as the site's call would have left it */
	movq	T_RAX(%rcx), %rax
	movq	%rax, T_RAX-8(%rcx)
	movq	T_FLAGS(%rcx), %rax
	movq	%rax, T_RAX(%rcx)
	movq	%rdx, T_FLAGS(%rcx)
	leaq	FRAME_SIZE-8(%rcx), %r11
1:
	movq	R15(%rsp), %r15
	movq	R14(%rsp), %r14
	movq	R13(%rsp), %r13
	movq	R12(%rsp), %r12
	movq	RBP(%rsp), %rbp
	movq	RBX(%rsp), %rbx
	movq	R10(%rsp), %r10
	RESTORE_ARGS
	movq	%r11, %rsp
	popq	%rax
	popfq
	ret
	.size ftrace_regs_caller, .-ftrace_regs_caller

/* The BPF trampolines' pages (bpf_jit_alloc_exec(): kernel/bpf/trampoline.c writes them):
 * int3 where nothing was written. */
	.pushsection .bpf.tramp, "ax"
	.balign	4096
	.globl	bpf_tramp_area
	.type	bpf_tramp_area, @object
bpf_tramp_area:
	.fill	BPF_TRAMP_AREA_SIZE, 1, 0xcc
	.size	bpf_tramp_area, BPF_TRAMP_AREA_SIZE
	.balign	4096
	.popsection

/* The JIT's program pack (bpf_prog_pack_alloc(): kernel/bpf/core.c hands it out, the JIT writes
 * it; its size: include/bpf_jit.h): past _etext with the ftrace trampolines, as 6.1's packs are module memory, not the
 * kernel's text; int3 where no program is. */
	.pushsection .bpf.jit, "ax"
	.balign	4096
	.globl	bpf_prog_pack
	.type	bpf_prog_pack, @object
bpf_prog_pack:
	.fill	BPF_PROG_PACK_SIZE, 1, 0xcc
	.size	bpf_prog_pack, BPF_PROG_PACK_SIZE
	.balign	4096
	.popsection

	.globl return_to_handler
	.type return_to_handler, @function
return_to_handler:
	/* a slot for the real return address, the flags, rax, rdx (the return value) */
	leaq	-8(%rsp), %rsp
	pushfq
	cli
	pushq	%rax
	pushq	%rdx				/* and the call is 16-byte aligned */
	movq	16(%rsp), %rdi			/* flags, as the function returned */
	call	ftrace_return_to_handler
	movq	%rsp, %rdx
	movq	%rax, 24(%rdx)			/* the real return address */
	popq	%rdx
	popq	%rax
	popfq
	ret
	.size return_to_handler, .-return_to_handler

	.globl ftrace_kprobe_hook
	.type ftrace_kprobe_hook, @function
ftrace_kprobe_hook:
	nop
	call	probe_commit_stub
	ret
	.size ftrace_kprobe_hook, .-ftrace_kprobe_hook
