#!/bin/sh
# Emit the assembly that embeds the user programs and their table (name,
# image, size, load address, entry, memory size, flags, text size) into the kernel.
# usage: gen-progs.sh BUILD_DIR prog...
set -e
dir=$1; shift
echo '	.section .rodata, "a"'
for p in "$@"; do
	l=$(echo "$p" | tr -- '-' '_')
	echo "	.balign 4096"
	echo "prog_${l}_image: .incbin \"$dir/user/$p.bin\""
	echo "prog_${l}_image_end:"
	echo "prog_${l}_name: .asciz \"$p\""
done
echo '	.balign 8'
echo '	.globl user_programs'
echo 'user_programs:'
for p in "$@"; do
	l=$(echo "$p" | tr -- '-' '_')
	entry=$(nm "$dir/user/$p.elf" | awk '$3 == "_start" { print $1 }')
	end=$(nm "$dir/user/$p.elf" | awk '$3 == "_end" { print $1 }')
	etext=$(nm "$dir/user/$p.elf" | awk '$3 == "_etext" { print $1 }')
	flags=0
	[ "$p" = init ] && flags=1
	echo "	.quad prog_${l}_name, prog_${l}_image, prog_${l}_image_end - prog_${l}_image, 0x400000, 0x$entry, 0x$end - 0x400000, $flags, 0x$etext - 0x400000"
done
echo '	.size user_programs, .-user_programs'
echo '	.globl nr_user_programs'
echo "nr_user_programs: .quad $#"
