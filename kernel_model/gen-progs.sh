#!/bin/sh
# Emit the assembly that embeds the user programs (their ELF files) and their table (name,
# image, size, flags) into the kernel.
# usage: gen-progs.sh BUILD_DIR prog... -- static-prog...   (BUILD_DIR/user/PROG.img: the ELF
# file; the programs before -- are the kernel's own, built for the general registers only)
set -e
dir=$1; shift
echo '	.section .rodata, "a"'
progs=$(echo "$@" | sed 's/ -- / /; s/ --$//')
for p in $progs; do
	l=$(echo "$p" | tr -- '-' '_')
	echo "	.balign 4096"
	echo "prog_${l}_image: .incbin \"$dir/user/$p.img\""
	echo "prog_${l}_image_end:"
	echo "prog_${l}_name: .asciz \"$p\""
done
echo '	.balign 8'
echo '	.globl user_programs'
echo 'user_programs:'
own=2
n=0
for p in "$@"; do
	if [ "$p" = -- ]; then own=0; continue; fi
	l=$(echo "$p" | tr -- '-' '_')
	flags=$own
	[ "$p" = init ] && flags=$((flags | 1))
	n=$((n + 1))
	echo "	.quad prog_${l}_name, prog_${l}_image, prog_${l}_image_end - prog_${l}_image, $flags"
done
echo '	.size user_programs, .-user_programs'
echo '	.globl nr_user_programs'
echo "nr_user_programs: .quad $n"
