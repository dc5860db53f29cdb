/*
 * Kernel entry and exit: the syscall instruction (the machine performs the
 * CPL switch and lands here), host-injected interrupt vectors, fork return
 * and the context switch.  pt_regs layout as in arch/x86/entry/calling.h.
 */
#define TOP_OF_STACK	16
#define USER_RSP	24

	.macro PUSH_REGS
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rax
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	.endm

	.macro POP_REGS
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	.endm

	.text
	.globl entry_SYSCALL_64
	.type entry_SYSCALL_64, @function
entry_SYSCALL_64:
	movq	%rsp, %gs:USER_RSP
	movq	%gs:TOP_OF_STACK, %rsp
	pushq	$0x2b			/* pt_regs->ss */
	pushq	%gs:USER_RSP		/* pt_regs->sp */
	pushq	%r11			/* pt_regs->flags */
	pushq	$0x33			/* pt_regs->cs */
	pushq	%rcx			/* pt_regs->ip */
	.globl entry_SYSCALL_64_after_hwframe
entry_SYSCALL_64_after_hwframe:		/* as Linux's: the hardware frame is complete */
	pushq	%rax			/* pt_regs->orig_ax */
	PUSH_REGS
	movq	%rsp, %rdi
	movslq	%eax, %rsi
	call	do_syscall_64
	/*
	 * Linux checks here whether SYSRET can return to user mode, so the call's return
	 * address lies inside entry_SYSCALL_64_after_hwframe (a stack trace's last kernel
	 * frame); this kernel always returns with iretq.
	 */
	jmp	restore_regs_and_return_to_usermode
	.size entry_SYSCALL_64, .-entry_SYSCALL_64

	.globl restore_regs_and_return_to_usermode
	.type restore_regs_and_return_to_usermode, @function
restore_regs_and_return_to_usermode:
	POP_REGS
	addq	$8, %rsp		/* orig_ax */
	iretq
	.size restore_regs_and_return_to_usermode, .-restore_regs_and_return_to_usermode

/* Host-injected vectors: the machine pushed ss, rsp, rflags, cs, rip. */
	.macro IDTENTRY_SYSVEC name handler
	.globl \name
	.type \name, @function
\name:
	pushq	$-1			/* orig_ax */
	PUSH_REGS
	movq	%rsp, %rdi
	call	pmu_enter_from_user	/* (the PMU's user/kernel split) */
	movq	%rsp, %rdi
	call	\handler
	movq	%rsp, %rdi
	call	irqentry_exit
	POP_REGS
	addq	$8, %rsp
	iretq
	.size \name, .-\name
	.endm

/* CPU exceptions (the machine delivers those of user mode, and page faults on user
 * addresses from the kernel).  Those with a hardware error code have it in orig_ax: it
 * goes to the handler as its second argument, and orig_ax becomes -1 (idtentry.h). */
	.macro IDTENTRY_ERRORCODE name handler
	.globl \name
	.type \name, @function
\name:
	PUSH_REGS
	movq	%rsp, %rdi
	call	pmu_enter_from_user
	movq	%rsp, %rdi
	movq	15*8(%rsp), %rsi
	movq	$-1, 15*8(%rsp)
	call	\handler
	movq	%rsp, %rdi
	call	irqentry_exit
	POP_REGS
	addq	$8, %rsp
	iretq
	.size \name, .-\name
	.endm

	IDTENTRY_SYSVEC asm_exc_divide_error exc_divide_error
	IDTENTRY_SYSVEC asm_exc_invalid_op exc_invalid_op
	IDTENTRY_ERRORCODE asm_exc_general_protection exc_general_protection
	IDTENTRY_ERRORCODE asm_exc_page_fault exc_page_fault

/*
 * #BP (6.1's idtentry for X86_TRAP_BP): from kernel mode, the frame is copied 6 words lower,
 * leaving a gap below the interrupted stack for an emulated push (a kprobe's call, pushf).
 */
	.globl asm_exc_int3
	.type asm_exc_int3, @function
asm_exc_int3:
	pushq	$-1			/* orig_ax */
	testb	$3, 16(%rsp)		/* cs */
	jnz	1f
	.rept	6
	pushq	5*8(%rsp)
	.endr
1:	PUSH_REGS
	movq	%rsp, %rdi
	call	pmu_enter_from_user
	movq	%rsp, %rdi
	call	exc_int3
	movq	%rsp, %rdi
	call	irqentry_exit
	POP_REGS
	addq	$8, %rsp
	iretq
	.size asm_exc_int3, .-asm_exc_int3

/*
 * The NMI (vector 2), which the machine delivers for the PMU's overflow whatever EFLAGS.IF: the
 * interrupted registers go to exc_nmi as pt_regs, and it returns with iretq and no exit work
 * (no preemption, no signals: 6.1's NMI return does none either).  The PMI stays masked until
 * the handler re-arms it, so NMIs do not nest.
 */
	.globl asm_exc_nmi
	.type asm_exc_nmi, @function
asm_exc_nmi:
	pushq	$-1			/* orig_ax */
	PUSH_REGS
	movq	%rsp, %rdi
	call	exc_nmi
	POP_REGS
	addq	$8, %rsp
	iretq
	.size asm_exc_nmi, .-asm_exc_nmi

/*
 * External interrupts: the stub of each vector pushes its number where the
 * hardware puts an error code, common_interrupt(regs, vector) takes it from
 * there (and leaves orig_ax -1, as for the other interrupts).
 */
#define ORIG_RAX 120
	.globl asm_common_interrupt
	.type asm_common_interrupt, @function
asm_common_interrupt:
	PUSH_REGS
	movq	%rsp, %rdi
	call	pmu_enter_from_user
	movq	%rsp, %rdi
	movq	ORIG_RAX(%rsp), %rsi
	movq	$-1, ORIG_RAX(%rsp)
	call	common_interrupt
	movq	%rsp, %rdi
	call	irqentry_exit
	POP_REGS
	addq	$8, %rsp
	iretq
	.size asm_common_interrupt, .-asm_common_interrupt

/* One 8-byte stub per external vector, from FIRST_EXTERNAL_VECTOR (0x20) on: the host
 * delivers vector v at irq_entries_start + 8 * (v - 0x20).  The legacy lines' vectors
 * (0x30 + irq) are all this machine routes. */
	.balign 8
	.globl irq_entries_start
	.type irq_entries_start, @function
irq_entries_start:
	vector = 0x20
	.rept 0x20
	.byte	0x6a, vector		/* pushq $vector */
	jmp	asm_common_interrupt
	.balign 8, 0xcc
	vector = vector + 1
	.endr
	.size irq_entries_start, .-irq_entries_start

	IDTENTRY_SYSVEC asm_sysvec_apic_timer_interrupt sysvec_apic_timer_interrupt
	IDTENTRY_SYSVEC asm_sysvec_reschedule_ipi sysvec_reschedule_ipi
	IDTENTRY_SYSVEC asm_sysvec_call_function sysvec_call_function

/* __switch_to_asm(prev, next): callee-saved regs live on the old stack. */
	.globl __switch_to_asm
	.type __switch_to_asm, @function
__switch_to_asm:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, 0(%rdi)
	movq	0(%rsi), %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	jmp	__switch_to
	.size __switch_to_asm, .-__switch_to_asm

/* First return of a new task: %rbx = kernel thread fn (or 0), %r12 = arg. */
	.globl ret_from_fork
	.type ret_from_fork, @function
ret_from_fork:
	movq	%rax, %rdi
	call	schedule_tail
	testq	%rbx, %rbx
	jz	1f
	movq	%r12, %rdi
	call	*%rbx			/* returns only after kernel_execve */
1:	movq	%rsp, %rdi
	call	syscall_exit_to_user_mode
	jmp	restore_regs_and_return_to_usermode
	.size ret_from_fork, .-ret_from_fork
