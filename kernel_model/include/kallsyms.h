/*
 * The kernel's symbol table (kernel/kallsyms.c; the build appends it to .rodata:
 * scripts/kallsyms.py), as 6.1's include/linux/kallsyms.h declares its lookups.
 */
#ifndef _KALLSYMS_H
#define _KALLSYMS_H
#include "types.h"

#define KSYM_NAME_LEN		512
/* "%s+%#lx/%#lx [%s]": a name, two 64-bit numbers in hex, a module's name ("bpf") */
#define KSYM_SYMBOL_LEN		(KSYM_NAME_LEN + 2 * 18 + 3 + 64 + 4)

unsigned long kallsyms_lookup_name(const char *name);
int kallsyms_lookup_size_offset(unsigned long addr, unsigned long *symbolsize, unsigned long *offset);
const char *kallsyms_lookup(unsigned long addr, unsigned long *symbolsize, unsigned long *offset,
			    char **modname, char *namebuf);
/* "name+0x1a/0x310" (" [bpf]" after a BPF program's), or "0x..." where no symbol is: at most
 * KSYM_SYMBOL_LEN bytes with the NUL; returns the length */
int sprint_symbol(char *buffer, unsigned long address);
/* the same of a return address (%pB): named after its call, address - 1 */
int sprint_backtrace(char *buffer, unsigned long address);
/* the name of the symbol at addr into symname (KSYM_NAME_LEN); 0, or -ERANGE where none is */
int lookup_symbol_name(unsigned long addr, char *symname);
#endif
