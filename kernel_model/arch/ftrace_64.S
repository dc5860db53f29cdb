/*
 * The function tracers' trampolines (Linux's arch/x86/kernel/ftrace_64.S).
 *
 * ftrace_caller: the target of every enabled site's `call` (the function's
 * first instruction).  It saves the part of struct pt_regs the C call
 * clobbers and the tracers read (ip = the site, sp = the function's entry
 * rsp, at its return address, flags, bp), calls
 * ftrace_dispatch(ip, parent_ip, regs, 0) (kernel/ftrace.c) and returns
 * into the function.  When the dispatcher reports a kprobe at the site,
 * ftrace_regs_caller completes the pt_regs, calls it again with 1,
 * restores every register and the flags and returns into the function, or
 * to regs->ip if a kprobe handler moved it off the site.
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
	/*
	 * As Linux's ftrace_caller (not ftrace_regs_caller): only what the C
	 * call clobbers, and the fields the tracers read (ip, flags, sp, bp).
	 * rbx, r12-r15 and rbp survive the call: the C ABI preserves them.
	 * Every store is a cost per traced call, the function tracer's floor.
	 */
	movq	%r11, R11(%rsp)
	movq	%r10, R10(%rsp)
	movq	%r9, R9(%rsp)
	movq	%r8, R8(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdi, RDI(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	T_FLAGS(%rsp), %rcx
	movq	%rcx, EFLAGS(%rsp)
	leaq	T_PARENT(%rsp), %rcx		/* the function's entry rsp */
	movq	%rcx, RSP(%rsp)
	movq	T_RET(%rsp), %rdi		/* the site: our return address - 5 */
	subq	$MCOUNT_INSN_SIZE, %rdi
	movq	%rdi, RIP(%rsp)
	movq	T_PARENT(%rsp), %rsi		/* parent_ip */
	movq	%rsp, %rdx
	xorl	%ecx, %ecx			/* not the whole pt_regs */
	call	ftrace_dispatch
	testq	%rax, %rax
	jnz	ftrace_regs_caller		/* a kprobe is here: it needs every register */
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

/*
 * ftrace_regs_caller: the dispatcher found a kprobe at the site and did
 * nothing yet.  The frame gets the rest of pt_regs (the callee-saved
 * registers still hold the function's values), the dispatcher runs again
 * with all of it (and the site it found), and every register is restored
 * from the frame.
 */
	.type ftrace_regs_caller, @function
ftrace_regs_caller:
	movq	%rax, %rcx			/* full: the site + 1, as the dispatcher returned it */
	movq	%r15, R15(%rsp)
	movq	%r14, R14(%rsp)
	movq	%r13, R13(%rsp)
	movq	%r12, R12(%rsp)
	movq	%rbx, RBX(%rsp)
	movq	$-1, ORIG_RAX(%rsp)
	movq	$0x10, CS(%rsp)			/* __KERNEL_CS */
	movq	$0x18, SS(%rsp)			/* __KERNEL_DS */
	movq	T_RAX(%rsp), %rax
	movq	%rax, RAX(%rsp)
	movq	RIP(%rsp), %rdi
	movq	T_PARENT(%rsp), %rsi
	movq	%rsp, %rdx
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
	.size ftrace_regs_caller, .-ftrace_regs_caller

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
