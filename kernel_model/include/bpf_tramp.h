/* The BPF trampolines' executable pages (arch/ftrace_64.S, kernel/bpf/trampoline.c): one page a
 * trampoline image, as 6.1's bpf_tramp_image (bpf_jit_alloc_exec(PAGE_SIZE)). */
#ifndef _BPF_TRAMP_H
#define _BPF_TRAMP_H
#define BPF_TRAMP_PAGES		32
#define BPF_TRAMP_AREA_SIZE	(BPF_TRAMP_PAGES * 4096)
#endif
