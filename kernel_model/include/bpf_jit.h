/* The JIT's executable memory (arch/ftrace_64.S, kernel/bpf/core.c): one program pack, as 6.1's
 * bpf_prog_pack (2 MiB of text, handed out in 64-byte chunks), and the table of the images'
 * kallsyms lines the host reads for /proc/kallsyms and `tracefs-sim disasm`. */
#ifndef _BPF_JIT_H
#define _BPF_JIT_H
#define BPF_PROG_PACK_SIZE	(2 * 1024 * 1024)
#define BPF_PROG_CHUNK_SHIFT	6
#define BPF_PROG_CHUNK_SIZE	(1 << BPF_PROG_CHUNK_SHIFT)
#define BPF_PROG_CHUNK_COUNT	(BPF_PROG_PACK_SIZE / BPF_PROG_CHUNK_SIZE)
#define BPF_JIT_KSYMS		1024
#define BPF_JIT_KSYM_LEN	64	/* bpf_prog_<16 hex>_<name of 15 at most> and its NUL */
#endif
