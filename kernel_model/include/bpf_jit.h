/* The JIT's executable memory (arch/ftrace_64.S, kernel/bpf/core.c): one program pack, as 6.1's
 * bpf_prog_pack handed out in 64-byte chunks, and the table of the images' kallsyms lines the
 * host reads for /proc/kallsyms and `tracefs-sim disasm`.  64 KiB, not 6.1's 2 MiB: a 2 MiB pack
 * moved the first free page frame (page_alloc.c: _end rounded up to 2 MiB) from 60 to 62 MiB,
 * and then the default workload's diskwriter got EFAULT for its mkdir's path (a user string
 * copy) and exited: a bug of the machine or the kernel that layout shows, not found yet. */
#ifndef _BPF_JIT_H
#define _BPF_JIT_H
#define BPF_PROG_PACK_SIZE	(64 * 1024)
#define BPF_PROG_CHUNK_SHIFT	6
#define BPF_PROG_CHUNK_SIZE	(1 << BPF_PROG_CHUNK_SHIFT)
#define BPF_PROG_CHUNK_COUNT	(BPF_PROG_PACK_SIZE / BPF_PROG_CHUNK_SIZE)
#define BPF_JIT_KSYMS		1024
/* bpf_prog_<16 hex>_<name> and its NUL: a name of 15 (prog_name) or, a function's name in the
 * program's BTF, of 101 at most (6.1: KSYM_NAME_LEN, 512, in all) */
#define BPF_JIT_KSYM_LEN	128
#endif
