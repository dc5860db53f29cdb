/*
 * The function tracers' trampolines (Linux's arch/x86/kernel/ftrace_64.S).
 *
 * ftrace_caller: the target of every enabled site's `call` (the function's
 * first instruction).  It saves a full struct pt_regs (ip = the site, sp =
 * the function's entry rsp, at its return address), calls
 * ftrace_dispatch(ip, parent_ip, regs) (kernel/ftrace.c), restores every
 * register and the flags and returns into the function, or to regs->ip if
 * a kprobe handler moved it off the site.
 *
 * return_to_handler: where function_graph makes a hooked function return;
 * rax/rdx (the return value) are preserved.
 *
 * ftrace_kprobe_hook: the host's ftrace-based kprobes put a one-address
 * code hook on its first instruction (rdi = the saved pt_regs); the record
 * the handler staged is committed right after.
 */
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
#define PTREGS_SIZE 168
#define MCOUNT_INSN_SIZE 5
/* below the two words ftrace_caller pushes: pt_regs + 8 bytes (a 16-byte aligned call) */
#define FRAME_SIZE 176
/* above the frame: what ftrace_caller pushed, and the call's return address */
#define T_RAX		(FRAME_SIZE + 0)
#define T_FLAGS		(FRAME_SIZE + 8)
#define T_RET		(FRAME_SIZE + 16)	/* into the function: the site + 5 */
#define T_PARENT	(FRAME_SIZE + 24)	/* the function's return address */

	.text
	.globl ftrace_caller
	.type ftrace_caller, @function
ftrace_caller:
	pushfq
	cli				/* the dispatcher runs with interrupts off; popfq restores them */
	pushq	%rax
	leaq	-FRAME_SIZE(%rsp), %rsp
	movq	%rsp, %rax
	movq	%r15, R15(%rax)
	movq	%r14, R14(%rax)
	movq	%r13, R13(%rax)
	movq	%r12, R12(%rax)
	movq	%rbp, RBP(%rax)
	movq	%rbx, RBX(%rax)
	movq	%r11, R11(%rax)
	movq	%r10, R10(%rax)
	movq	%r9, R9(%rax)
	movq	%r8, R8(%rax)
	movq	%rcx, RCX(%rax)
	movq	%rdx, RDX(%rax)
	movq	%rsi, RSI(%rax)
	movq	%rdi, RDI(%rax)
	movq	$-1, ORIG_RAX(%rax)
	movq	$0x10, CS(%rax)			/* __KERNEL_CS */
	movq	$0x18, SS(%rax)			/* __KERNEL_DS */
	movq	T_RAX(%rax), %rcx
	movq	%rcx, RAX(%rax)
	movq	T_FLAGS(%rax), %rcx
	movq	%rcx, EFLAGS(%rax)
	leaq	T_PARENT(%rax), %rcx		/* the function's entry rsp */
	movq	%rcx, RSP(%rax)
	movq	T_RET(%rax), %rdi		/* the site: our return address - 5 */
	subq	$MCOUNT_INSN_SIZE, %rdi
	movq	%rdi, RIP(%rax)
	movq	T_PARENT(%rax), %rsi		/* parent_ip */
	movq	%rax, %rdx
	call	ftrace_dispatch
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
	movq	R15(%rsp), %r15
	movq	R14(%rsp), %r14
	movq	R13(%rsp), %r13
	movq	R12(%rsp), %r12
	movq	RBP(%rsp), %rbp
	movq	RBX(%rsp), %rbx
	movq	R11(%rsp), %r11
	movq	R10(%rsp), %r10
	movq	R9(%rsp), %r9
	movq	R8(%rsp), %r8
	movq	RCX(%rsp), %rcx
	movq	RDX(%rsp), %rdx
	movq	RSI(%rsp), %rsi
	movq	RDI(%rsp), %rdi
	leaq	FRAME_SIZE(%rsp), %rsp
	popq	%rax
	popfq
	ret
	.size ftrace_caller, .-ftrace_caller

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
