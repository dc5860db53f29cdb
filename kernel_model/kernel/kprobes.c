/*
 * What Linux refuses to probe on the paths this kernel models
 * (kernel/kprobes.c's blacklist).  The C halves of the entry paths are
 * `noinstr` in Linux (arch/x86/entry/common.c, arch/x86/kernel/traps.c,
 * the DEFINE_IDTENTRY_SYSVEC handlers), so they are blacklisted: a probe
 * there would run with the machine state half switched.  The asm entry code
 * and the trace machinery are blacklisted as areas by the linker script.
 */
#include "../include/kernel.h"
#include "../include/kprobes.h"
#include "../include/trace/probe_stage.h"
#include "../include/trace/kprobe_perf.h"

void do_syscall_64(struct pt_regs *regs, int nr);
void irqentry_exit(struct pt_regs *regs);
void sysvec_apic_timer_interrupt(struct pt_regs *regs);
void sysvec_reschedule_ipi(struct pt_regs *regs);
void sysvec_call_function(struct pt_regs *regs);
void exc_divide_error(struct pt_regs *regs);
void exc_int3(struct pt_regs *regs);
void exc_invalid_op(struct pt_regs *regs);
void exc_general_protection(struct pt_regs *regs);
void exc_page_fault(struct pt_regs *regs);

NOKPROBE_SYMBOL(do_syscall_64)
NOKPROBE_SYMBOL(irqentry_exit)
NOKPROBE_SYMBOL(sysvec_apic_timer_interrupt)
NOKPROBE_SYMBOL(sysvec_reschedule_ipi)
NOKPROBE_SYMBOL(sysvec_call_function)
NOKPROBE_SYMBOL(exc_divide_error)
NOKPROBE_SYMBOL(exc_int3)
NOKPROBE_SYMBOL(exc_invalid_op)
NOKPROBE_SYMBOL(exc_general_protection)
NOKPROBE_SYMBOL(exc_page_fault)

/*
 * Int3 kprobes (arch/x86/kernel/kprobes/core.c).  The machine delivers a kernel-mode int3
 * through the #BP gate (asm_exc_int3 -> exc_int3 -> kprobe_int3_handler); a probe's handlers
 * run there (a host point's: the host's, asked at a doorbell, kernel/trace_probe.c),
 * then the CPU single-steps the copy of the probed instruction in its insn slot, which an
 * int3 ends, and resumes past the original (6.1 single-steps that way since 5.18).  A
 * point's copy (p->ainsn.insn) is its kg_point's insn; the cpu's kprobe_ctlblk keeps the
 * probed and copy addresses, so a step finishes even if the probe went meanwhile (its slot
 * is not reused while a CPU runs in it).
 */
#define KPROBE_HIT_ACTIVE	0x00000001
#define KPROBE_HIT_SS		0x00000002
#define KPROBE_REENTER		0x00000004
#define KPROBE_HIT_SSDONE	0x00000008
#define INT3_INSN_SIZE		1
#define INT3_INSN_OPCODE	0xcc
#define MAX_INSN_SIZE		16

struct kprobe_running {			/* current_kprobe: what a step needs of it */
	unsigned long addr;		/* p->addr; 0: none */
	unsigned long insn;		/* p->ainsn.insn */
};

struct prev_kprobe {
	struct kprobe_running kp;
	unsigned long status;
	unsigned long old_flags;
	unsigned long saved_flags;
};

struct kprobe_ctlblk {
	struct kprobe_running current_kprobe;
	unsigned long kprobe_status;
	unsigned long kprobe_old_flags;
	unsigned long kprobe_saved_flags;
	struct prev_kprobe prev_kprobe;
};

static struct kprobe_ctlblk kprobe_ctlblk[NR_CPUS];

static __always_inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return &kprobe_ctlblk[this_cpu()->h.cpu];
}

/* The int3 point at addr (a guest point armed with an int3), or NULL. */
noinline const struct kg_point *get_kprobe(unsigned long addr)
{
	const struct kg_point *pt = kprobe_guest_point(addr);

	return pt && (pt->insn || pt->emulate) ? pt : NULL;
}
NOKPROBE_SYMBOL(get_kprobe)

/* A hit whose handlers did not run, on each enabled probe of the point (a host point's: the
 * host counts them). */
noinline void kprobes_inc_nmissed_count(const struct kg_point *p)
{
	u32 i;

	if (p->host) {
		struct percpu *pc = this_cpu();

		pc->h.db_arg[1] = KPROBE_HOST_MISSED;
		pc->h.db_arg[2] = p->addr;
		host_doorbell(PORT_KPROBE_HIT, 0);
		return;
	}
	for (i = p->first; i; i = kprobe_guest.probes[i - 1].next)
		if (kprobe_guest.probes[i - 1].slots || kprobe_guest.probes[i - 1].triggers || kprobe_perf_calls[i - 1])
			__atomic_add_fetch(&kprobe_guest.probes[i - 1].nmissed, 1, __ATOMIC_RELAXED);
}
NOKPROBE_SYMBOL(kprobes_inc_nmissed_count)

static __always_inline unsigned long kprobe_copy(const struct kg_point *p)
{
	return p->insn ? (unsigned long)kprobe_insn_slots + p->insn - 1 : 0;
}

static __always_inline void set_current_kprobe(const struct kg_point *p, struct pt_regs *regs,
					       struct kprobe_ctlblk *kcb)
{
	kcb->current_kprobe = (struct kprobe_running){ p->addr, kprobe_copy(p) };
	kcb->kprobe_saved_flags = kcb->kprobe_old_flags = regs->flags & X86_EFLAGS_IF;
}

static __always_inline void save_previous_kprobe(struct kprobe_ctlblk *kcb)
{
	kcb->prev_kprobe = (struct prev_kprobe){ kcb->current_kprobe, kcb->kprobe_status,
						 kcb->kprobe_old_flags, kcb->kprobe_saved_flags };
}

static __always_inline void restore_previous_kprobe(struct kprobe_ctlblk *kcb)
{
	kcb->current_kprobe = kcb->prev_kprobe.kp;
	kcb->kprobe_status = kcb->prev_kprobe.status;
	kcb->kprobe_old_flags = kcb->prev_kprobe.old_flags;
	kcb->kprobe_saved_flags = kcb->prev_kprobe.saved_flags;
}

static __always_inline void __kprobe_post_process(struct kprobe_ctlblk *kcb)
{
	if (kcb->kprobe_status == KPROBE_REENTER) {
		restore_previous_kprobe(kcb);
	} else {
		kcb->kprobe_status = KPROBE_HIT_SSDONE;	/* (no post handlers here) */
		kcb->current_kprobe.addr = 0;		/* reset_current_kprobe() */
	}
}

/* (after an emulated instruction; 6.1's build inlines it, and resume_singlestep(), into
 * kprobe_int3_handler() for the end of a step) */
static noinline void kprobe_post_process(struct kprobe_ctlblk *kcb)
{
	__kprobe_post_process(kcb);
}
NOKPROBE_SYMBOL(kprobe_post_process)

/* ---- emulated instructions (regs->ip past the int3; the #BP entry left a gap below the
 * probed stack for a push: asm_exc_int3) ---- */
#define X86_EFLAGS_CF	0x0001UL
#define X86_EFLAGS_PF	0x0004UL
#define X86_EFLAGS_ZF	0x0040UL
#define X86_EFLAGS_SF	0x0080UL
#define X86_EFLAGS_OF	0x0800UL

static __always_inline void int3_emulate_push(struct pt_regs *regs, unsigned long val)
{
	regs->sp -= sizeof(unsigned long);
	*(unsigned long *)regs->sp = val;
}

static __always_inline unsigned long int3_emulate_pop(struct pt_regs *regs)
{
	unsigned long val = *(unsigned long *)regs->sp;

	regs->sp += sizeof(unsigned long);
	return val;
}

static __always_inline unsigned long kprobe_next_ip(const struct kg_point *p, struct pt_regs *regs)
{
	return regs->ip - INT3_INSN_SIZE + p->size;
}

static noinline void kprobe_emulate_ifmodifiers(const struct kg_point *p, struct pt_regs *regs)
{
	switch (p->type) {
	case 0xfa:	/* cli */
		regs->flags &= ~X86_EFLAGS_IF;
		break;
	case 0xfb:	/* sti */
		regs->flags |= X86_EFLAGS_IF;
		break;
	case 0x9c:	/* pushf */
		int3_emulate_push(regs, regs->flags);
		break;
	case 0x9d:	/* popf */
		regs->flags = int3_emulate_pop(regs);
		break;
	}
	regs->ip = kprobe_next_ip(p, regs);
}
NOKPROBE_SYMBOL(kprobe_emulate_ifmodifiers)

static noinline void kprobe_emulate_ret(const struct kg_point *p, struct pt_regs *regs)
{
	regs->ip = int3_emulate_pop(regs);
}
NOKPROBE_SYMBOL(kprobe_emulate_ret)

static noinline void kprobe_emulate_call(const struct kg_point *p, struct pt_regs *regs)
{
	unsigned long next = kprobe_next_ip(p, regs);

	int3_emulate_push(regs, next);
	regs->ip = next + p->rel32;
}
NOKPROBE_SYMBOL(kprobe_emulate_call)

static noinline void kprobe_emulate_jmp(const struct kg_point *p, struct pt_regs *regs)
{
	regs->ip = kprobe_next_ip(p, regs) + p->rel32;
}
NOKPROBE_SYMBOL(kprobe_emulate_jmp)

static noinline void kprobe_emulate_jcc(const struct kg_point *p, struct pt_regs *regs)
{
	static const unsigned long jcc_mask[6] = {
		X86_EFLAGS_OF, X86_EFLAGS_CF, X86_EFLAGS_ZF, X86_EFLAGS_CF | X86_EFLAGS_ZF,
		X86_EFLAGS_SF, X86_EFLAGS_PF,
	};
	unsigned long ip = kprobe_next_ip(p, regs);
	bool invert = p->type & 1, match;

	if (p->type < 0xc) {
		match = regs->flags & jcc_mask[p->type >> 1];
	} else {
		match = !!(regs->flags & X86_EFLAGS_SF) ^ !!(regs->flags & X86_EFLAGS_OF);
		if (p->type >= 0xe)
			match = match || (regs->flags & X86_EFLAGS_ZF);
	}
	if (match != invert)
		ip += p->rel32;
	regs->ip = ip;
}
NOKPROBE_SYMBOL(kprobe_emulate_jcc)

static noinline void kprobe_emulate_loop(const struct kg_point *p, struct pt_regs *regs)
{
	unsigned long ip = kprobe_next_ip(p, regs);
	bool match;

	/* the count register at the address size (Linux's emulation keeps the bits above it) */
	unsigned long mask = p->asize == 64 ? ~0UL : p->asize == 32 ? 0xffffffffUL : 0xffffUL;
	unsigned long cx = regs->cx & mask;

	if (p->type != 3) {	/* LOOP*: 6.1 tests the count before its decrement */
		match = cx != 0;
		regs->cx = (regs->cx & ~mask) | ((cx - 1) & mask);
	} else {		/* JCXZ */
		match = cx == 0;
	}
	if (p->type == 0)	/* LOOPNE */
		match = match && !(regs->flags & X86_EFLAGS_ZF);
	else if (p->type == 1)	/* LOOPE */
		match = match && (regs->flags & X86_EFLAGS_ZF);
	if (match)
		ip += p->rel32;
	regs->ip = ip;
}
NOKPROBE_SYMBOL(kprobe_emulate_loop)

/* struct pt_regs's registers by their number in the instruction (addrmode_regoffs[]) */
static __always_inline unsigned long kprobe_indirect_target(const struct kg_point *p, struct pt_regs *regs)
{
	static const u8 regoffs[16] = {
		offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx), offsetof(struct pt_regs, dx),
		offsetof(struct pt_regs, bx), offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
		offsetof(struct pt_regs, si), offsetof(struct pt_regs, di), offsetof(struct pt_regs, r8),
		offsetof(struct pt_regs, r9), offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
		offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13), offsetof(struct pt_regs, r14),
		offsetof(struct pt_regs, r15),
	};

	return *(unsigned long *)((u8 *)regs + regoffs[p->type & 15]);
}

static noinline void kprobe_emulate_call_indirect(const struct kg_point *p, struct pt_regs *regs)
{
	unsigned long target = kprobe_indirect_target(p, regs);

	int3_emulate_push(regs, kprobe_next_ip(p, regs));
	regs->ip = target;
}
NOKPROBE_SYMBOL(kprobe_emulate_call_indirect)

static noinline void kprobe_emulate_jmp_indirect(const struct kg_point *p, struct pt_regs *regs)
{
	regs->ip = kprobe_indirect_target(p, regs);
}
NOKPROBE_SYMBOL(kprobe_emulate_jmp_indirect)

/* p->ainsn.emulate_op */
static void (*const kprobe_emulate_ops[])(const struct kg_point *, struct pt_regs *) = {
	[KG_EMULATE_IFMODIFIERS] = kprobe_emulate_ifmodifiers,
	[KG_EMULATE_RET] = kprobe_emulate_ret,
	[KG_EMULATE_CALL] = kprobe_emulate_call,
	[KG_EMULATE_JMP] = kprobe_emulate_jmp,
	[KG_EMULATE_JCC] = kprobe_emulate_jcc,
	[KG_EMULATE_LOOP] = kprobe_emulate_loop,
	[KG_EMULATE_CALL_INDIRECT] = kprobe_emulate_call_indirect,
	[KG_EMULATE_JMP_INDIRECT] = kprobe_emulate_jmp_indirect,
};

static noinline void setup_singlestep(const struct kg_point *p, struct pt_regs *regs,
				      struct kprobe_ctlblk *kcb, int reenter)
{
	if (reenter) {
		save_previous_kprobe(kcb);
		set_current_kprobe(p, regs, kcb);
		kcb->kprobe_status = KPROBE_REENTER;
	} else {
		kcb->kprobe_status = KPROBE_HIT_SS;
	}
	if (p->emulate && p->emulate < ARRAY_SIZE(kprobe_emulate_ops)) {
		kprobe_emulate_ops[p->emulate](p, regs);
		kprobe_post_process(kcb);
		return;
	}
	/* interrupts off, on at the copy: the int3 after it comes back here */
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = kprobe_copy(p);
}
NOKPROBE_SYMBOL(setup_singlestep)

/* The second int3 (regs->ip past it): back to the instruction after the original. */
static __always_inline void resume_singlestep(struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	regs->flags |= kcb->kprobe_saved_flags;
	regs->ip += (kcb->current_kprobe.addr - kcb->current_kprobe.insn) - INT3_INSN_SIZE;
}

/* Another probe hit while one is being handled or stepped: stepped without its handlers. */
static noinline int reenter_kprobe(const struct kg_point *p, struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	switch (kcb->kprobe_status) {
	case KPROBE_HIT_SSDONE:
	case KPROBE_HIT_ACTIVE:
	case KPROBE_HIT_SS:
		kprobes_inc_nmissed_count(p);
		setup_singlestep(p, regs, kcb, 1);
		return 1;
	case KPROBE_REENTER:
		panic("Unrecoverable kprobe detected.");
	default:
		return 0;
	}
}
NOKPROBE_SYMBOL(reenter_kprobe)

static __always_inline int kprobe_is_ss(struct kprobe_ctlblk *kcb)
{
	return kcb->kprobe_status == KPROBE_HIT_SS || kcb->kprobe_status == KPROBE_REENTER;
}

/* Interrupts are off throughout (the #BP gate is an interrupt gate); 1: the int3 was a kprobe's. */
noinline int kprobe_int3_handler(struct pt_regs *regs)
{
	unsigned long addr;
	const struct kg_point *p;
	struct kprobe_ctlblk *kcb;

	if (user_mode(regs))
		return 0;
	addr = regs->ip - INT3_INSN_SIZE;
	kcb = get_kprobe_ctlblk();
	p = get_kprobe(addr);
	if (p) {
		if (kcb->current_kprobe.addr) {
			if (reenter_kprobe(p, regs, kcb))
				return 1;
		} else {
			set_current_kprobe(p, regs, kcb);
			kcb->kprobe_status = KPROBE_HIT_ACTIVE;
			kprobe_dispatcher(p, regs);	/* the pre-handler: never skips the step */
			setup_singlestep(p, regs, kcb, 0);
			return 1;
		}
	} else if (kprobe_is_ss(kcb)) {
		unsigned long insn = kcb->current_kprobe.insn;

		if (insn < regs->ip && insn + MAX_INSN_SIZE > regs->ip) {
			/* most probably the second int3 of a step */
			resume_singlestep(regs, kcb);
			__kprobe_post_process(kcb);
			return 1;
		}
	}
	if (*(const u8 *)addr != INT3_INSN_OPCODE) {
		/* the probe went after the CPU hit its int3: the original instruction again */
		regs->ip = addr;
		return 1;
	}
	return 0;		/* not a kprobe's */
}
NOKPROBE_SYMBOL(kprobe_int3_handler)

/*
 * From the page fault handler (kprobe_page_fault()): a fault of the copy being stepped (a
 * uaccess instruction probed) is taken at the original instruction, whose exception table
 * entry fixes it up; 0: the fault handler goes on.
 */
noinline int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	if (regs->ip == kcb->current_kprobe.insn) {
		regs->ip = kcb->current_kprobe.addr;
		regs->flags |= kcb->kprobe_old_flags;
		if (kcb->kprobe_status == KPROBE_REENTER)
			restore_previous_kprobe(kcb);
		else
			kcb->current_kprobe.addr = 0;
	}
	return 0;
}
NOKPROBE_SYMBOL(kprobe_fault_handler)

notrace int kprobe_page_fault(struct pt_regs *regs, unsigned int trap)
{
	if (user_mode(regs) || !get_kprobe_ctlblk()->current_kprobe.addr)
		return 0;
	return kprobe_fault_handler(regs, trap);
}
