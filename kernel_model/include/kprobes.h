/* Kprobes support in the kernel image (include/linux/kprobes.h,
 * include/asm-generic/kprobes.h): what may not be probed, and the guest
 * half of the probe engine (arch/kprobes.S). */
#ifndef _KPROBES_H
#define _KPROBES_H

#define KPROBE_INSN_SLOTS_SIZE (16 * 1024)

#ifndef __ASSEMBLER__
/* NOKPROBE_SYMBOL(fn): fn's address goes into the _kprobe_blacklist section
 * (__start/__stop_kprobe_blacklist); the engine refuses probes anywhere in
 * fn, as register_kprobe() refuses within_kprobe_blacklist() addresses. */
#define __NOKPROBE_SYMBOL(fname)					\
	static unsigned long __attribute__((used, section("_kprobe_blacklist"))) \
		_kbl_addr_##fname = (unsigned long)fname;
#define NOKPROBE_SYMBOL(fname) __NOKPROBE_SYMBOL(fname)

/* __kprobes: the function is linked into the kprobes text area
 * (__kprobes_text_start..__kprobes_text_end), blacklisted as a whole. */
#define __kprobes __attribute__((__section__(".kprobes.text")))

/* kernel/kprobes.c: the #BP gate's kprobe handler (1: the int3 was a kprobe's), and the
 * page fault handler's check for a step that faulted (kprobe_page_fault()) */
struct pt_regs;
int kprobe_int3_handler(struct pt_regs *regs);
int kprobe_page_fault(struct pt_regs *regs, unsigned int trap);

/* arch/kprobes.S */
extern char kprobe_insn_slots[KPROBE_INSN_SLOTS_SIZE];
extern char arch_rethook_trampoline[];
#endif

#endif
