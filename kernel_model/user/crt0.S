/* Program entry: argc at (%rsp), argv after it. */
	.section .text.start, "ax"
	.globl _start
_start:
	movq	(%rsp), %rdi
	leaq	8(%rsp), %rsi
	andq	$-16, %rsp
	call	main
	movl	%eax, %edi
	call	exit
1:	jmp	1b
