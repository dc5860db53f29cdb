/* Boot entry points. The host enters in long mode with paging on, %gs
 * pointing at the cpu's per-CPU area and %rsp at its idle stack. */
	.section .head.text, "ax"
	.globl startup_64
startup_64:
	xorl	%ebp, %ebp
	call	start_kernel
1:	hlt
	.pushsection __halt_resume_sites, "a"	/* (HALT_RESUME_SITE, hostif.h) */
	.quad	1b + 1
	.popsection
	jmp	1b

	.globl secondary_startup_64
secondary_startup_64:
	xorl	%ebp, %ebp
	call	start_secondary
2:	hlt
	.pushsection __halt_resume_sites, "a"	/* (HALT_RESUME_SITE, hostif.h) */
	.quad	2b + 1
	.popsection
	jmp	2b
