/*
 * User copies (arch/x86/lib/copy_user_64.S): a fault on the user side that the page fault
 * handler cannot resolve lands on the fixup named in __ex_table, which returns the bytes
 * not copied (rep movsb leaves them in %rcx).
 */
	.text
	.globl copy_user_enhanced_fast_string
	.type copy_user_enhanced_fast_string, @function
/* unsigned long copy_user_enhanced_fast_string(void *to, const void *from, unsigned len) */
copy_user_enhanced_fast_string:
	movl	%edx, %ecx
1:	rep movsb
	xorl	%eax, %eax
	ret
2:	movl	%ecx, %eax
	ret
	.size copy_user_enhanced_fast_string, .-copy_user_enhanced_fast_string

	.section __ex_table, "a"
	.balign 8
	.quad	1b, 2b
	.previous
