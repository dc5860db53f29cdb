// SPDX-License-Identifier: GPL-2.0
/*
 * The eBPF JIT to x86-64 (arch/x86/net/bpf_jit_comp.c of Linux 6.1, written for this kernel):
 * after the verifier, bpf_int_jit_compile() turns the program into machine code in a chunk of
 * the program pack (kernel/bpf/core.c), which prog->bpf_func then points at.  A program of
 * several functions is JITed a function at a time by the verifier (jit_subprogs()): a
 * bpf-to-bpf call is a call to the callee's image, written in an extra pass once every image
 * has its address.
 *
 * Registers as 6.1 maps them: R0-R5 are rax, rdi, rsi, rdx, rcx, r8 (a helper's arguments and
 * return value where the C calling convention has them), R6-R9 the callee-saved rbx, r13,
 * r14, r15, the frame pointer R10 is rbp; r10 and r11 are the JIT's scratch (BPF_REG_AX,
 * AUX_REG).  The prologue leaves 5 bytes of nop (6.1's room for a trampoline), zeroes the tail
 * call count in a program that may make tail calls (else 2 bytes of nop), makes a frame, reserves the program's stack below rbp and saves the
 * callee-saved registers the program uses.
 *
 * Code is emitted in passes until its length stops shrinking (jumps take their short forms
 * once their distances are known; after PADDING_PASSES a jump that could shrink further is
 * padded with nops instead, so the passes converge), then once more into the image.  A load
 * the verifier made fault-safe (BPF_PROBE_MEM: through PTR_TO_BTF_ID) first checks that its
 * address is a kernel one (else 0), and has an exception table entry after the code: a fault
 * on it zeroes the destination and goes on past it (ex_handler_bpf(), from the page fault and
 * general protection handlers' fixup_exception()).
 *
 * A tail call (bpf_tail_call()) jumps into the next program's image past its frame's making
 * (X86_TAIL_CALL_OFFSET), this frame unwound but for rbp; the count of tail calls made is kept
 * below the stack of each frame a tail call is reachable from (pushed rax: zeroed by the main
 * program's prologue, passed in rax down bpf-to-bpf calls).
 *
 * Not here, as the verifier makes none of them: direct tail calls (patched as the program array
 * changes: each is indirect), kfuncs, BPF_NOSPEC, classic BPF, constant blinding (bpf_jit_harden
 * is 0).
 */
#include "../../include/bpf.h"
#include "../../include/bpf_jit.h"

#define BPF_REG_AX	MAX_BPF_REG		/* r10 */
#define AUX_REG		(MAX_BPF_REG + 1)	/* r11 */

#define MAX_PASSES		20
#define PADDING_PASSES		(MAX_PASSES - 5)
#define BPF_MAX_INSN_SIZE	128
#define BPF_INSN_SAFETY		64
#define X86_PATCH_SIZE		5

#define X86_JB	0x72
#define X86_JAE	0x73
#define X86_JE	0x74
#define X86_JNE	0x75
#define X86_JBE	0x76
#define X86_JA	0x77
#define X86_JL	0x7C
#define X86_JGE	0x7D
#define X86_JLE	0x7E
#define X86_JG	0x7F

static const int reg2hex[] = {
	[BPF_REG_0] = 0,	/* rax */
	[BPF_REG_1] = 7,	/* rdi */
	[BPF_REG_2] = 6,	/* rsi */
	[BPF_REG_3] = 2,	/* rdx */
	[BPF_REG_4] = 1,	/* rcx */
	[BPF_REG_5] = 0,	/* r8 */
	[BPF_REG_6] = 3,	/* rbx */
	[BPF_REG_7] = 5,	/* r13 */
	[BPF_REG_8] = 6,	/* r14 */
	[BPF_REG_9] = 7,	/* r15 */
	[BPF_REG_FP] = 5,	/* rbp */
	[BPF_REG_AX] = 2,	/* r10 */
	[AUX_REG] = 3,		/* r11 */
};

/* where a fault-safe load's destination is in the pt_regs of its fault */
static const int reg2pt_regs[] = {
	[BPF_REG_0] = offsetof(struct pt_regs, ax),
	[BPF_REG_1] = offsetof(struct pt_regs, di),
	[BPF_REG_2] = offsetof(struct pt_regs, si),
	[BPF_REG_3] = offsetof(struct pt_regs, dx),
	[BPF_REG_4] = offsetof(struct pt_regs, cx),
	[BPF_REG_5] = offsetof(struct pt_regs, r8),
	[BPF_REG_6] = offsetof(struct pt_regs, bx),
	[BPF_REG_7] = offsetof(struct pt_regs, r13),
	[BPF_REG_8] = offsetof(struct pt_regs, r14),
	[BPF_REG_9] = offsetof(struct pt_regs, r15),
};

static const u8 simple_alu_opcodes[] = {
	[BPF_ADD] = 0x01, [BPF_SUB] = 0x29, [BPF_AND] = 0x21, [BPF_OR] = 0x09, [BPF_XOR] = 0x31,
	[BPF_LSH] = 0xE0, [BPF_RSH] = 0xE8, [BPF_ARSH] = 0xF8,
};

struct jit_context {
	int cleanup_addr;	/* the epilogue's offset */
	/* where the last pass's tail call went on when it did not jump, from its start */
	int tail_call_indirect_label;
};

/* what a function of a program of several (is_func) keeps between its JIT and its extra pass */
struct x64_jit_data {
	int *addrs;
	struct jit_context ctx;
	u8 *image;
	u32 size;
	int proglen;
	int pass;
	bool padding;
};

static __always_inline u8 *emit_code(u8 *ptr, u32 bytes, unsigned int len)
{
	if (len == 1)
		*ptr = bytes;
	else if (len == 2)
		*(u16 *)ptr = bytes;
	else
		*(u32 *)ptr = bytes;
	return ptr + len;
}

#define EMIT(bytes, len)	do { prog = emit_code(prog, bytes, len); } while (0)
#define EMIT1(b1)		EMIT(b1, 1)
#define EMIT2(b1, b2)		EMIT((b1) + ((b2) << 8), 2)
#define EMIT3(b1, b2, b3)	EMIT((b1) + ((b2) << 8) + ((b3) << 16), 3)
#define EMIT4(b1, b2, b3, b4)	EMIT((b1) + ((b2) << 8) + ((b3) << 16) + ((b4) << 24), 4)
#define EMIT1_off32(b1, off)		do { EMIT1(b1); EMIT(off, 4); } while (0)
#define EMIT2_off32(b1, b2, off)	do { EMIT2(b1, b2); EMIT(off, 4); } while (0)
#define EMIT3_off32(b1, b2, b3, off)	do { EMIT3(b1, b2, b3); EMIT(off, 4); } while (0)
#define EMIT4_off32(b1, b2, b3, b4, off)	do { EMIT4(b1, b2, b3, b4); EMIT(off, 4); } while (0)

static __always_inline bool is_imm8(int value)
{
	return value <= 127 && value >= -128;
}

/* 6.1's bound: a forward short jump no longer than 123, so that the passes converge */
static __always_inline bool is_imm8_jmp_offset(int value)
{
	return value <= 123 && value >= -128;
}

static __always_inline bool is_simm32(s64 value)
{
	return value == (s64)(s32)value;
}

static __always_inline bool is_uimm32(u64 value)
{
	return value == (u64)(u32)value;
}

/* r8-r15: a REX bit */
static __always_inline bool is_ereg(u32 reg)
{
	return (1 << reg) & ((1 << BPF_REG_5) | (1 << AUX_REG) | (1 << BPF_REG_7) | (1 << BPF_REG_8) |
			     (1 << BPF_REG_9) | (1 << BPF_REG_AX));
}

/* a byte register that needs a REX prefix: dil, sil, bpl, r8b-r15b */
static __always_inline bool is_ereg_8l(u32 reg)
{
	return is_ereg(reg) || (1 << reg) & ((1 << BPF_REG_1) | (1 << BPF_REG_2) | (1 << BPF_REG_FP));
}

static __always_inline bool is_axreg(u32 reg)
{
	return reg == BPF_REG_0;
}

static __always_inline u8 add_1mod(u8 byte, u32 reg)
{
	return is_ereg(reg) ? byte | 1 : byte;
}

static __always_inline u8 add_2mod(u8 byte, u32 r1, u32 r2)
{
	if (is_ereg(r1))
		byte |= 1;
	if (is_ereg(r2))
		byte |= 4;
	return byte;
}

static __always_inline u8 add_1reg(u8 byte, u32 dst_reg)
{
	return byte + reg2hex[dst_reg];
}

static __always_inline u8 add_2reg(u8 byte, u32 dst_reg, u32 src_reg)
{
	return byte + reg2hex[dst_reg] + (reg2hex[src_reg] << 3);
}

/* mov dst, src (64-bit) */
#define EMIT_mov(DST, SRC) \
	do { \
		if ((DST) != (SRC)) \
			EMIT3(add_2mod(0x48, DST, SRC), 0x89, add_2reg(0xC0, DST, SRC)); \
	} while (0)

static __always_inline int bpf_size_to_x86_bytes(int bpf_size)
{
	if (bpf_size == BPF_W)
		return 4;
	else if (bpf_size == BPF_H)
		return 2;
	else if (bpf_size == BPF_B)
		return 1;
	else if (bpf_size == BPF_DW)
		return 4;	/* imm32 */
	return 0;
}

static noinline void jit_fill_hole(void *area, unsigned int size)
{
	memset(area, 0xcc, size);	/* int3 */
}

static __always_inline void push_callee_regs(u8 **pprog, const bool *callee_regs_used)
{
	u8 *prog = *pprog;

	if (callee_regs_used[0])
		EMIT1(0x53);		/* push rbx */
	if (callee_regs_used[1])
		EMIT2(0x41, 0x55);	/* push r13 */
	if (callee_regs_used[2])
		EMIT2(0x41, 0x56);	/* push r14 */
	if (callee_regs_used[3])
		EMIT2(0x41, 0x57);	/* push r15 */
	*pprog = prog;
}

static noinline void pop_callee_regs(u8 **pprog, const bool *callee_regs_used)
{
	u8 *prog = *pprog;

	if (callee_regs_used[3])
		EMIT2(0x41, 0x5F);	/* pop r15 */
	if (callee_regs_used[2])
		EMIT2(0x41, 0x5E);	/* pop r14 */
	if (callee_regs_used[1])
		EMIT2(0x41, 0x5D);	/* pop r13 */
	if (callee_regs_used[0])
		EMIT1(0x5B);		/* pop rbx */
	*pprog = prog;
}

/* nops of up to 5 bytes each (x86_nops[]) */
static __always_inline void emit_nops(u8 **pprog, int len)
{
	static const u8 nops[6][5] = {
		{ 0 }, { 0x90 }, { 0x66, 0x90 }, { 0x0f, 0x1f, 0x00 }, { 0x0f, 0x1f, 0x40, 0x00 },
		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	};
	u8 *prog = *pprog;

	while (len > 0) {
		int n = len > 5 ? 5 : len;

		memcpy(prog, nops[n], n);
		prog += n;
		len -= n;
	}
	*pprog = prog;
}

/* a tail call jumps here in the next program's image: past the nops, the count's zeroing and
 * the frame's making */
#define X86_TAIL_CALL_OFFSET	11

static __always_inline void emit_prologue(u8 **pprog, u32 stack_depth, bool tail_call_reachable, bool is_subprog)
{
	u8 *prog = *pprog;

	emit_nops(&prog, X86_PATCH_SIZE);	/* room for a trampoline's call */
	if (tail_call_reachable && !is_subprog)
		EMIT2(0x31, 0xC0);		/* xor eax, eax: no tail call yet */
	else
		EMIT2(0x66, 0x90);		/* nop2 */
	EMIT1(0x55);				/* push rbp */
	EMIT3(0x48, 0x89, 0xE5);		/* mov rbp, rsp */
	/* X86_TAIL_CALL_OFFSET is here */
	if (stack_depth)			/* sub rsp, rounded_stack_depth */
		EMIT3_off32(0x48, 0x81, 0xEC, ALIGN(stack_depth, 8));
	if (tail_call_reachable)
		EMIT1(0x50);			/* push rax: the tail call count */
	*pprog = prog;
}

/*
 * emit_bpf_tail_call_indirect(): bpf_tail_call(ctx in rdi, the program array in rsi, the index
 * in rdx), as 6.1's:
 *	if (index >= array->map.max_entries) goto out;
 *	if (tail_call_cnt++ >= MAX_TAIL_CALL_CNT) goto out;
 *	prog = array->ptrs[index]; if (!prog) goto out;
 *	unwind this frame but rbp; goto *(prog->bpf_func + X86_TAIL_CALL_OFFSET);
 * out: (the label is the last pass's: the passes run until the code stops changing)
 */
_Static_assert(offsetof(struct bpf_array, map.max_entries) < 128, "cmp [rsi + imm8]");
static notrace void emit_bpf_tail_call_indirect(u8 **pprog, const bool *callee_regs_used, u32 stack_depth,
						 struct jit_context *ctx)
{
	int tcc_off = -4 - (int)ALIGN(stack_depth, 8);
	u8 *prog = *pprog, *start = *pprog;
	int offset;

	EMIT2(0x89, 0xD2);				/* mov edx, edx */
	EMIT3(0x39, 0x56, offsetof(struct bpf_array, map.max_entries));	/* cmp dword ptr [rsi + off], edx */
	offset = ctx->tail_call_indirect_label - (prog + 2 - start);
	EMIT2(X86_JBE, offset);				/* jbe out */

	EMIT2_off32(0x8B, 0x85, tcc_off);		/* mov eax, dword ptr [rbp + tcc_off] */
	EMIT3(0x83, 0xF8, MAX_TAIL_CALL_CNT);		/* cmp eax, MAX_TAIL_CALL_CNT */
	offset = ctx->tail_call_indirect_label - (prog + 2 - start);
	EMIT2(X86_JAE, offset);				/* jae out */
	EMIT3(0x83, 0xC0, 0x01);			/* add eax, 1 */
	EMIT2_off32(0x89, 0x85, tcc_off);		/* mov dword ptr [rbp + tcc_off], eax */

	/* mov rcx, [rsi + rdx * 8 + offsetof(ptrs)] */
	EMIT4_off32(0x48, 0x8B, 0x8C, 0xD6, offsetof(struct bpf_array, ptrs));
	EMIT3(0x48, 0x85, 0xC9);			/* test rcx, rcx */
	offset = ctx->tail_call_indirect_label - (prog + 2 - start);
	EMIT2(X86_JE, offset);				/* je out */

	pop_callee_regs(&prog, callee_regs_used);
	EMIT1(0x58);					/* pop rax: the count, for the next prologue */
	if (stack_depth)				/* add rsp, sd */
		EMIT3_off32(0x48, 0x81, 0xC4, ALIGN(stack_depth, 8));
	/* mov rcx, qword ptr [rcx + offsetof(bpf_func)] (this kernel's bpf_prog: a 32-bit offset) */
	EMIT3_off32(0x48, 0x8B, 0x89, offsetof(struct bpf_prog, bpf_func));
	EMIT4(0x48, 0x83, 0xC1, X86_TAIL_CALL_OFFSET);	/* add rcx, X86_TAIL_CALL_OFFSET */
	EMIT2(0xFF, 0xE1);				/* jmp rcx (no retpoline on this cpu) */
	EMIT1(0xCC);					/* int3: CONFIG_SLS */
	/* out: */
	ctx->tail_call_indirect_label = prog - start;
	*pprog = prog;
}

/* call func (ip: where the call is), or -ERANGE for one out of reach */
static __always_inline int emit_call(u8 **pprog, void *func, void *ip)
{
	u8 *prog = *pprog;
	s64 offset = (u8 *)func - ((u8 *)ip + X86_PATCH_SIZE);

	if (!is_simm32(offset))
		return -ERANGE;
	EMIT1_off32(0xE8, offset);
	*pprog = prog;
	return 0;
}

static noinline void emit_return(u8 **pprog, u8 *ip)
{
	u8 *prog = *pprog;

	EMIT1(0xC3);		/* ret (this kernel has no return thunk) */
	EMIT1(0xCC);		/* int3: Debian's 6.1 is built with CONFIG_SLS */
	*pprog = prog;
}

/* mov dst, imm32: sign-extended for ALU64, else zero-extended; xor for 0 */
static noinline void emit_mov_imm32(u8 **pprog, bool sign_propagate, u32 dst_reg, const u32 imm32)
{
	u8 *prog = *pprog;

	if (sign_propagate && (s32)imm32 < 0) {
		EMIT3_off32(add_1mod(0x48, dst_reg), 0xC7, add_1reg(0xC0, dst_reg), imm32);
		goto done;
	}
	if (imm32 == 0) {
		if (is_ereg(dst_reg))
			EMIT1(add_2mod(0x40, dst_reg, dst_reg));
		EMIT2(0x31, add_2reg(0xC0, dst_reg, dst_reg));
		goto done;
	}
	if (is_ereg(dst_reg))
		EMIT1(add_1mod(0x40, dst_reg));
	EMIT1_off32(add_1reg(0xB8, dst_reg), imm32);
done:
	*pprog = prog;
}

static noinline void emit_mov_imm64(u8 **pprog, u32 dst_reg, const u32 imm32_hi, const u32 imm32_lo)
{
	u8 *prog = *pprog;

	if (is_uimm32(((u64)imm32_hi << 32) | (u32)imm32_lo)) {
		emit_mov_imm32(&prog, false, dst_reg, imm32_lo);
	} else {
		EMIT2(add_1mod(0x48, dst_reg), add_1reg(0xB8, dst_reg));	/* movabs */
		EMIT(imm32_lo, 4);
		EMIT(imm32_hi, 4);
	}
	*pprog = prog;
}

static noinline void emit_mov_reg(u8 **pprog, bool is64, u32 dst_reg, u32 src_reg)
{
	u8 *prog = *pprog;

	if (is64) {
		EMIT_mov(dst_reg, src_reg);
	} else {
		if (is_ereg(dst_reg) || is_ereg(src_reg))
			EMIT1(add_2mod(0x40, dst_reg, src_reg));
		EMIT2(0x89, add_2reg(0xC0, dst_reg, src_reg));
	}
	*pprog = prog;
}

/* the ModR/M and displacement of *(ptr_reg + off), val_reg */
static noinline void emit_insn_suffix(u8 **pprog, u32 ptr_reg, u32 val_reg, int off)
{
	u8 *prog = *pprog;

	if (is_imm8(off))
		EMIT2(add_2reg(0x40, ptr_reg, val_reg), off);
	else
		EMIT1_off32(add_2reg(0x80, ptr_reg, val_reg), off);
	*pprog = prog;
}

static noinline void maybe_emit_mod(u8 **pprog, u32 dst_reg, u32 src_reg, bool is64)
{
	u8 *prog = *pprog;

	if (is64)
		EMIT1(add_2mod(0x48, dst_reg, src_reg));
	else if (is_ereg(dst_reg) || is_ereg(src_reg))
		EMIT1(add_2mod(0x40, dst_reg, src_reg));
	*pprog = prog;
}

static __always_inline void maybe_emit_1mod(u8 **pprog, u32 reg, bool is64)
{
	u8 *prog = *pprog;

	if (is64)
		EMIT1(add_1mod(0x48, reg));
	else if (is_ereg(reg))
		EMIT1(add_1mod(0x40, reg));
	*pprog = prog;
}

/* LDX: dst = *(size *)(src + off), zero-extended */
static noinline void emit_ldx(u8 **pprog, u32 size, u32 dst_reg, u32 src_reg, int off)
{
	u8 *prog = *pprog;

	switch (size) {
	case BPF_B:
		EMIT3(add_2mod(0x48, src_reg, dst_reg), 0x0F, 0xB6);	/* movzx */
		break;
	case BPF_H:
		EMIT3(add_2mod(0x48, src_reg, dst_reg), 0x0F, 0xB7);	/* movzx */
		break;
	case BPF_W:
		if (is_ereg(dst_reg) || is_ereg(src_reg))
			EMIT2(add_2mod(0x40, src_reg, dst_reg), 0x8B);
		else
			EMIT1(0x8B);
		break;
	case BPF_DW:
		EMIT2(add_2mod(0x48, src_reg, dst_reg), 0x8B);
		break;
	}
	emit_insn_suffix(&prog, src_reg, dst_reg, off);
	*pprog = prog;
}

/* STX: *(size *)(dst + off) = src */
static noinline void emit_stx(u8 **pprog, u32 size, u32 dst_reg, u32 src_reg, int off)
{
	u8 *prog = *pprog;

	switch (size) {
	case BPF_B:
		if (is_ereg(dst_reg) || is_ereg_8l(src_reg))
			EMIT2(add_2mod(0x40, dst_reg, src_reg), 0x88);
		else
			EMIT1(0x88);
		break;
	case BPF_H:
		if (is_ereg(dst_reg) || is_ereg(src_reg))
			EMIT3(0x66, add_2mod(0x40, dst_reg, src_reg), 0x89);
		else
			EMIT2(0x66, 0x89);
		break;
	case BPF_W:
		if (is_ereg(dst_reg) || is_ereg(src_reg))
			EMIT2(add_2mod(0x40, dst_reg, src_reg), 0x89);
		else
			EMIT1(0x89);
		break;
	case BPF_DW:
		EMIT2(add_2mod(0x48, dst_reg, src_reg), 0x89);
		break;
	}
	emit_insn_suffix(&prog, dst_reg, src_reg, off);
	*pprog = prog;
}

static noinline int emit_atomic(u8 **pprog, u8 atomic_op, u32 dst_reg, u32 src_reg, s16 off, u8 bpf_size)
{
	u8 *prog = *pprog;

	EMIT1(0xF0);	/* lock */
	maybe_emit_mod(&prog, dst_reg, src_reg, bpf_size == BPF_DW);
	switch (atomic_op) {
	case BPF_ADD:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		EMIT1(simple_alu_opcodes[atomic_op]);
		break;
	case BPF_ADD | BPF_FETCH:
		EMIT2(0x0F, 0xC1);	/* xadd */
		break;
	case BPF_XCHG:
		EMIT1(0x87);
		break;
	case BPF_CMPXCHG:
		EMIT2(0x0F, 0xB1);	/* r0 = cmpxchg(dst + off, r0, src) */
		break;
	default:
		return -EFAULT;
	}
	emit_insn_suffix(&prog, dst_reg, src_reg, off);
	*pprog = prog;
	return 0;
}

/* A fault-safe load faulted: its destination is 0, and the program goes on past it. */
noinline bool ex_handler_bpf(const struct bpf_ex_entry *x, struct pt_regs *regs)
{
	u32 reg = x->fixup >> 8;

	*(unsigned long *)((u8 *)regs + reg) = 0;
	regs->ip += x->fixup & 0xff;
	return true;
}

static __always_inline void detect_reg_usage(const struct bpf_insn *insn, int insn_cnt, bool *regs_used,
					     bool *tail_call_seen)
{
	int i;

	for (i = 0; i < insn_cnt; i++, insn++) {
		if (insn->code == (BPF_JMP | BPF_TAIL_CALL))
			*tail_call_seen = true;
		if (insn->dst_reg == BPF_REG_6 || insn->src_reg == BPF_REG_6)
			regs_used[0] = true;
		if (insn->dst_reg == BPF_REG_7 || insn->src_reg == BPF_REG_7)
			regs_used[1] = true;
		if (insn->dst_reg == BPF_REG_8 || insn->src_reg == BPF_REG_8)
			regs_used[2] = true;
		if (insn->dst_reg == BPF_REG_9 || insn->src_reg == BPF_REG_9)
			regs_used[3] = true;
	}
}

#define INSN_SZ_DIFF (((addrs[i] - addrs[i - 1]) - (prog - temp)))

/*
 * One pass: the code of every instruction at the offsets the last pass found (addrs[i]: where
 * instruction i ends, addrs[0] where the first begins), written to image if there is one.  The
 * code's length, or -errno.
 */
static noinline int do_jit(struct bpf_prog *bpf_prog, int *addrs, u8 *image, int oldproglen,
			   struct jit_context *ctx, bool jmp_padding)
{
	struct bpf_insn *insn = bpf_prog->insnsi;
	bool callee_regs_used[4] = {};
	bool tail_call_reachable = bpf_prog->tail_call_reachable, tail_call_seen = false;
	int insn_cnt = bpf_prog->len;
	bool seen_exit = false;
	u8 temp[BPF_MAX_INSN_SIZE + BPF_INSN_SAFETY];
	int i, excnt = 0;
	int ilen, proglen = 0;
	u8 *prog = temp;
	int err;

	detect_reg_usage(insn, insn_cnt, callee_regs_used, &tail_call_seen);
	/* a tail call in this program makes one reachable */
	tail_call_reachable |= tail_call_seen;
	emit_prologue(&prog, bpf_prog->stack_depth, tail_call_reachable, bpf_prog->func_idx != 0);
	push_callee_regs(&prog, callee_regs_used);
	ilen = prog - temp;
	if (image)
		memcpy(image + proglen, temp, ilen);
	proglen += ilen;
	addrs[0] = proglen;
	prog = temp;

	for (i = 1; i <= insn_cnt; i++, insn++) {
		const s32 imm32 = insn->imm;
		u32 dst_reg = insn->dst_reg;
		u32 src_reg = insn->src_reg;
		u8 b2 = 0, b3 = 0;
		u8 *start_of_ldx = NULL;
		s64 jmp_offset;
		u8 jmp_cond;
		u8 *func;
		int nops;

		switch (insn->code) {
		/* ALU */
		case BPF_ALU | BPF_ADD | BPF_X:
		case BPF_ALU | BPF_SUB | BPF_X:
		case BPF_ALU | BPF_AND | BPF_X:
		case BPF_ALU | BPF_OR | BPF_X:
		case BPF_ALU | BPF_XOR | BPF_X:
		case BPF_ALU64 | BPF_ADD | BPF_X:
		case BPF_ALU64 | BPF_SUB | BPF_X:
		case BPF_ALU64 | BPF_AND | BPF_X:
		case BPF_ALU64 | BPF_OR | BPF_X:
		case BPF_ALU64 | BPF_XOR | BPF_X:
			maybe_emit_mod(&prog, dst_reg, src_reg, BPF_CLASS(insn->code) == BPF_ALU64);
			b2 = simple_alu_opcodes[BPF_OP(insn->code)];
			EMIT2(b2, add_2reg(0xC0, dst_reg, src_reg));
			break;

		case BPF_ALU64 | BPF_MOV | BPF_X:
		case BPF_ALU | BPF_MOV | BPF_X:
			emit_mov_reg(&prog, BPF_CLASS(insn->code) == BPF_ALU64, dst_reg, src_reg);
			break;

		case BPF_ALU | BPF_NEG:
		case BPF_ALU64 | BPF_NEG:
			maybe_emit_1mod(&prog, dst_reg, BPF_CLASS(insn->code) == BPF_ALU64);
			EMIT2(0xF7, add_1reg(0xD8, dst_reg));
			break;

		case BPF_ALU | BPF_ADD | BPF_K:
		case BPF_ALU | BPF_SUB | BPF_K:
		case BPF_ALU | BPF_AND | BPF_K:
		case BPF_ALU | BPF_OR | BPF_K:
		case BPF_ALU | BPF_XOR | BPF_K:
		case BPF_ALU64 | BPF_ADD | BPF_K:
		case BPF_ALU64 | BPF_SUB | BPF_K:
		case BPF_ALU64 | BPF_AND | BPF_K:
		case BPF_ALU64 | BPF_OR | BPF_K:
		case BPF_ALU64 | BPF_XOR | BPF_K:
			maybe_emit_1mod(&prog, dst_reg, BPF_CLASS(insn->code) == BPF_ALU64);
			/* b3: the /r form, b2: the short form for rax */
			switch (BPF_OP(insn->code)) {
			case BPF_ADD: b3 = 0xC0; b2 = 0x05; break;
			case BPF_SUB: b3 = 0xE8; b2 = 0x2D; break;
			case BPF_AND: b3 = 0xE0; b2 = 0x25; break;
			case BPF_OR: b3 = 0xC8; b2 = 0x0D; break;
			case BPF_XOR: b3 = 0xF0; b2 = 0x35; break;
			}
			if (is_imm8(imm32))
				EMIT3(0x83, add_1reg(b3, dst_reg), imm32);
			else if (is_axreg(dst_reg))
				EMIT1_off32(b2, imm32);
			else
				EMIT2_off32(0x81, add_1reg(b3, dst_reg), imm32);
			break;

		case BPF_ALU64 | BPF_MOV | BPF_K:
		case BPF_ALU | BPF_MOV | BPF_K:
			emit_mov_imm32(&prog, BPF_CLASS(insn->code) == BPF_ALU64, dst_reg, imm32);
			break;

		case BPF_LD | BPF_IMM | BPF_DW:
			emit_mov_imm64(&prog, dst_reg, insn[1].imm, insn[0].imm);
			insn++;
			i++;
			break;

		/* dst %= src, dst /= src, by imm32 too: through rax and rdx (the verifier guarded a
		 * register divisor against 0, and refused a 0 constant) */
		case BPF_ALU | BPF_MOD | BPF_X:
		case BPF_ALU | BPF_DIV | BPF_X:
		case BPF_ALU | BPF_MOD | BPF_K:
		case BPF_ALU | BPF_DIV | BPF_K:
		case BPF_ALU64 | BPF_MOD | BPF_X:
		case BPF_ALU64 | BPF_DIV | BPF_X:
		case BPF_ALU64 | BPF_MOD | BPF_K:
		case BPF_ALU64 | BPF_DIV | BPF_K: {
			bool is64 = BPF_CLASS(insn->code) == BPF_ALU64;

			if (dst_reg != BPF_REG_0)
				EMIT1(0x50);	/* push rax */
			if (dst_reg != BPF_REG_3)
				EMIT1(0x52);	/* push rdx */
			if (BPF_SRC(insn->code) == BPF_X) {
				if (src_reg == BPF_REG_0 || src_reg == BPF_REG_3) {
					EMIT_mov(AUX_REG, src_reg);
					src_reg = AUX_REG;
				}
			} else {
				EMIT3_off32(0x49, 0xC7, 0xC3, imm32);	/* mov r11, imm32 */
				src_reg = AUX_REG;
			}
			if (dst_reg != BPF_REG_0)
				emit_mov_reg(&prog, is64, BPF_REG_0, dst_reg);
			EMIT2(0x31, 0xd2);	/* xor edx, edx */
			maybe_emit_1mod(&prog, src_reg, is64);
			EMIT2(0xF7, add_1reg(0xF0, src_reg));	/* div src */
			if (BPF_OP(insn->code) == BPF_MOD && dst_reg != BPF_REG_3)
				emit_mov_reg(&prog, is64, dst_reg, BPF_REG_3);
			else if (BPF_OP(insn->code) == BPF_DIV && dst_reg != BPF_REG_0)
				emit_mov_reg(&prog, is64, dst_reg, BPF_REG_0);
			if (dst_reg != BPF_REG_3)
				EMIT1(0x5A);	/* pop rdx */
			if (dst_reg != BPF_REG_0)
				EMIT1(0x58);	/* pop rax */
			break;
		}

		case BPF_ALU | BPF_MUL | BPF_K:
		case BPF_ALU64 | BPF_MUL | BPF_K:
			maybe_emit_mod(&prog, dst_reg, dst_reg, BPF_CLASS(insn->code) == BPF_ALU64);
			if (is_imm8(imm32))
				EMIT3(0x6B, add_2reg(0xC0, dst_reg, dst_reg), imm32);	/* imul dst, dst, imm8 */
			else
				EMIT2_off32(0x69, add_2reg(0xC0, dst_reg, dst_reg), imm32);
			break;

		case BPF_ALU | BPF_MUL | BPF_X:
		case BPF_ALU64 | BPF_MUL | BPF_X:
			maybe_emit_mod(&prog, src_reg, dst_reg, BPF_CLASS(insn->code) == BPF_ALU64);
			EMIT3(0x0F, 0xAF, add_2reg(0xC0, src_reg, dst_reg));	/* imul dst, src */
			break;

		/* shifts */
		case BPF_ALU | BPF_LSH | BPF_K:
		case BPF_ALU | BPF_RSH | BPF_K:
		case BPF_ALU | BPF_ARSH | BPF_K:
		case BPF_ALU64 | BPF_LSH | BPF_K:
		case BPF_ALU64 | BPF_RSH | BPF_K:
		case BPF_ALU64 | BPF_ARSH | BPF_K:
			maybe_emit_1mod(&prog, dst_reg, BPF_CLASS(insn->code) == BPF_ALU64);
			b3 = simple_alu_opcodes[BPF_OP(insn->code)];
			if (imm32 == 1)
				EMIT2(0xD1, add_1reg(b3, dst_reg));
			else
				EMIT3(0xC1, add_1reg(b3, dst_reg), imm32);
			break;

		case BPF_ALU | BPF_LSH | BPF_X:
		case BPF_ALU | BPF_RSH | BPF_X:
		case BPF_ALU | BPF_ARSH | BPF_X:
		case BPF_ALU64 | BPF_LSH | BPF_X:
		case BPF_ALU64 | BPF_RSH | BPF_X:
		case BPF_ALU64 | BPF_ARSH | BPF_X:
			/* the count goes in cl: a dst in rcx moves to r11 for the shift */
			if (dst_reg == BPF_REG_4) {
				EMIT_mov(AUX_REG, dst_reg);
				dst_reg = AUX_REG;
			}
			if (src_reg != BPF_REG_4) {
				EMIT1(0x51);	/* push rcx */
				EMIT_mov(BPF_REG_4, src_reg);
			}
			maybe_emit_1mod(&prog, dst_reg, BPF_CLASS(insn->code) == BPF_ALU64);
			b3 = simple_alu_opcodes[BPF_OP(insn->code)];
			EMIT2(0xD3, add_1reg(b3, dst_reg));	/* shl/shr/sar dst, cl */
			if (src_reg != BPF_REG_4)
				EMIT1(0x59);	/* pop rcx */
			if (insn->dst_reg == BPF_REG_4)
				EMIT_mov(insn->dst_reg, AUX_REG);
			break;

		case BPF_ALU | BPF_END | BPF_TO_BE:
			switch (imm32) {
			case 16:
				EMIT1(0x66);	/* ror ax, 8 */
				if (is_ereg(dst_reg))
					EMIT1(0x41);
				EMIT3(0xC1, add_1reg(0xC8, dst_reg), 8);
				if (is_ereg(dst_reg))	/* movzx eax, ax */
					EMIT3(0x45, 0x0F, 0xB7);
				else
					EMIT2(0x0F, 0xB7);
				EMIT1(add_2reg(0xC0, dst_reg, dst_reg));
				break;
			case 32:
				if (is_ereg(dst_reg))	/* bswap eax */
					EMIT2(0x41, 0x0F);
				else
					EMIT1(0x0F);
				EMIT1(add_1reg(0xC8, dst_reg));
				break;
			case 64:
				EMIT3(add_1mod(0x48, dst_reg), 0x0F, add_1reg(0xC8, dst_reg));	/* bswap rax */
				break;
			}
			break;

		case BPF_ALU | BPF_END | BPF_TO_LE:
			switch (imm32) {
			case 16:
				if (is_ereg(dst_reg))	/* movzx eax, ax */
					EMIT3(0x45, 0x0F, 0xB7);
				else
					EMIT2(0x0F, 0xB7);
				EMIT1(add_2reg(0xC0, dst_reg, dst_reg));
				break;
			case 32:
				if (is_ereg(dst_reg))	/* mov eax, eax */
					EMIT1(0x45);
				EMIT2(0x89, add_2reg(0xC0, dst_reg, dst_reg));
				break;
			case 64:
				break;
			}
			break;

		/* ST: *(size *)(dst + off) = imm */
		case BPF_ST | BPF_MEM | BPF_B:
			if (is_ereg(dst_reg))
				EMIT2(0x41, 0xC6);
			else
				EMIT1(0xC6);
			goto st;
		case BPF_ST | BPF_MEM | BPF_H:
			if (is_ereg(dst_reg))
				EMIT3(0x66, 0x41, 0xC7);
			else
				EMIT2(0x66, 0xC7);
			goto st;
		case BPF_ST | BPF_MEM | BPF_W:
			if (is_ereg(dst_reg))
				EMIT2(0x41, 0xC7);
			else
				EMIT1(0xC7);
			goto st;
		case BPF_ST | BPF_MEM | BPF_DW:
			EMIT2(add_1mod(0x48, dst_reg), 0xC7);
st:
			if (is_imm8(insn->off))
				EMIT2(add_1reg(0x40, dst_reg), insn->off);
			else
				EMIT1_off32(add_1reg(0x80, dst_reg), insn->off);
			EMIT(imm32, bpf_size_to_x86_bytes(BPF_SIZE(insn->code)));
			break;

		case BPF_STX | BPF_MEM | BPF_B:
		case BPF_STX | BPF_MEM | BPF_H:
		case BPF_STX | BPF_MEM | BPF_W:
		case BPF_STX | BPF_MEM | BPF_DW:
			emit_stx(&prog, BPF_SIZE(insn->code), dst_reg, src_reg, insn->off);
			break;

		/* LDX: dst = *(size *)(src + off) */
		case BPF_LDX | BPF_MEM | BPF_B:
		case BPF_LDX | BPF_PROBE_MEM | BPF_B:
		case BPF_LDX | BPF_MEM | BPF_H:
		case BPF_LDX | BPF_PROBE_MEM | BPF_H:
		case BPF_LDX | BPF_MEM | BPF_W:
		case BPF_LDX | BPF_PROBE_MEM | BPF_W:
		case BPF_LDX | BPF_MEM | BPF_DW:
		case BPF_LDX | BPF_PROBE_MEM | BPF_DW:
			if (BPF_MODE(insn->code) == BPF_PROBE_MEM) {
				/* src + off must be a kernel address: at least past user space and its
				 * guard page (plus |off|), and no wrap past the top (ERR_PTR + off);
				 * else the load is 0 */
				u64 limit = TASK_SIZE_MAX + PAGE_SIZE + (insn->off < 0 ? -insn->off : insn->off);
				u8 *end_of_jmp1, *end_of_jmp2;

				EMIT2(add_1mod(0x48, AUX_REG), add_1reg(0xB8, AUX_REG));	/* movabs r11, limit */
				EMIT((u32)limit, 4);
				EMIT(limit >> 32, 4);
				maybe_emit_mod(&prog, src_reg, AUX_REG, true);	/* cmp src, r11 */
				EMIT2(0x39, add_2reg(0xC0, src_reg, AUX_REG));
				EMIT2(X86_JB, 0);				/* jb 0 */
				end_of_jmp1 = prog;
				emit_mov_reg(&prog, true, AUX_REG, src_reg);	/* mov r11, src */
				maybe_emit_1mod(&prog, AUX_REG, true);		/* add r11, off */
				EMIT2_off32(0x81, add_1reg(0xC0, AUX_REG), insn->off);
				EMIT2(0x73, 0);					/* jnc the load */
				end_of_jmp2 = prog;
				emit_mov_imm32(&prog, false, dst_reg, 0);	/* xor dst, dst */
				EMIT2(0xEB, 0);					/* jmp past it */
				end_of_jmp1[-1] = end_of_jmp2 - end_of_jmp1;
				start_of_ldx = prog;
				end_of_jmp2[-1] = start_of_ldx - end_of_jmp2;
			}
			emit_ldx(&prog, BPF_SIZE(insn->code), dst_reg, src_reg, insn->off);
			if (BPF_MODE(insn->code) == BPF_PROBE_MEM) {
				struct bpf_ex_entry *ex;
				u8 *_insn = image + proglen + (start_of_ldx - temp);
				s64 delta;

				start_of_ldx[-1] = prog - start_of_ldx;
				if (!image)
					break;
				if (excnt >= (int)bpf_prog->num_exentries)
					return -EFAULT;
				ex = &bpf_prog->extable[excnt++];
				delta = _insn - (u8 *)&ex->insn;
				if (!is_simm32(delta))
					return -EFAULT;
				ex->insn = delta;
				ex->data = 0;	/* EX_TYPE_BPF: the only kind here */
				if (dst_reg > BPF_REG_9)
					return -EFAULT;
				/* the load's length, and where its destination is in pt_regs */
				ex->fixup = (prog - start_of_ldx) | (reg2pt_regs[dst_reg] << 8);
			}
			break;

		case BPF_STX | BPF_ATOMIC | BPF_W:
		case BPF_STX | BPF_ATOMIC | BPF_DW:
			if (insn->imm == (BPF_AND | BPF_FETCH) || insn->imm == (BPF_OR | BPF_FETCH) ||
			    insn->imm == (BPF_XOR | BPF_FETCH)) {
				/* no one instruction does these: a cmpxchg loop, r0 kept in r10 */
				bool is64 = BPF_SIZE(insn->code) == BPF_DW;
				u32 real_src_reg = src_reg, real_dst_reg = dst_reg;
				u8 *branch_target;

				emit_mov_reg(&prog, true, BPF_REG_AX, BPF_REG_0);
				if (src_reg == BPF_REG_0)
					real_src_reg = BPF_REG_AX;
				if (dst_reg == BPF_REG_0)
					real_dst_reg = BPF_REG_AX;
				branch_target = prog;
				emit_ldx(&prog, BPF_SIZE(insn->code), BPF_REG_0, real_dst_reg, insn->off);
				emit_mov_reg(&prog, is64, AUX_REG, BPF_REG_0);
				maybe_emit_mod(&prog, AUX_REG, real_src_reg, is64);
				EMIT2(simple_alu_opcodes[BPF_OP(insn->imm)], add_2reg(0xC0, AUX_REG, real_src_reg));
				err = emit_atomic(&prog, BPF_CMPXCHG, real_dst_reg, AUX_REG, insn->off,
						  BPF_SIZE(insn->code));
				if (err)
					return err;
				EMIT2(X86_JNE, -(prog - branch_target) - 2);	/* lost the race: again */
				emit_mov_reg(&prog, is64, real_src_reg, BPF_REG_0);
				emit_mov_reg(&prog, true, BPF_REG_0, BPF_REG_AX);
				break;
			}
			err = emit_atomic(&prog, insn->imm, dst_reg, src_reg, insn->off, BPF_SIZE(insn->code));
			if (err)
				return err;
			break;

		/* a helper: its address as the verifier gave it, relative to __bpf_call_base */
		case BPF_JMP | BPF_CALL:
			func = (u8 *)__bpf_call_base + imm32;
			if (tail_call_reachable) {
				/* RESTORE_TAIL_CALL_CNT: rax the count, for a callee's prologue to push */
				EMIT3_off32(0x48, 0x8B, 0x85, -(int)ALIGN(bpf_prog->stack_depth, 8) - 8);
				if (!imm32 || emit_call(&prog, func, image ? image + addrs[i - 1] + 7 : func))
					return -EINVAL;
			} else if (!imm32 || emit_call(&prog, func, image ? image + addrs[i - 1] : func)) {
				return -EINVAL;
			}
			break;

		case BPF_JMP | BPF_TAIL_CALL:
			emit_bpf_tail_call_indirect(&prog, callee_regs_used, bpf_prog->stack_depth, ctx);
			break;

		/* conditional jumps */
		case BPF_JMP | BPF_JEQ | BPF_X:
		case BPF_JMP | BPF_JNE | BPF_X:
		case BPF_JMP | BPF_JGT | BPF_X:
		case BPF_JMP | BPF_JLT | BPF_X:
		case BPF_JMP | BPF_JGE | BPF_X:
		case BPF_JMP | BPF_JLE | BPF_X:
		case BPF_JMP | BPF_JSGT | BPF_X:
		case BPF_JMP | BPF_JSLT | BPF_X:
		case BPF_JMP | BPF_JSGE | BPF_X:
		case BPF_JMP | BPF_JSLE | BPF_X:
		case BPF_JMP32 | BPF_JEQ | BPF_X:
		case BPF_JMP32 | BPF_JNE | BPF_X:
		case BPF_JMP32 | BPF_JGT | BPF_X:
		case BPF_JMP32 | BPF_JLT | BPF_X:
		case BPF_JMP32 | BPF_JGE | BPF_X:
		case BPF_JMP32 | BPF_JLE | BPF_X:
		case BPF_JMP32 | BPF_JSGT | BPF_X:
		case BPF_JMP32 | BPF_JSLT | BPF_X:
		case BPF_JMP32 | BPF_JSGE | BPF_X:
		case BPF_JMP32 | BPF_JSLE | BPF_X:
			maybe_emit_mod(&prog, dst_reg, src_reg, BPF_CLASS(insn->code) == BPF_JMP);
			EMIT2(0x39, add_2reg(0xC0, dst_reg, src_reg));	/* cmp dst, src */
			goto emit_cond_jmp;

		case BPF_JMP | BPF_JSET | BPF_X:
		case BPF_JMP32 | BPF_JSET | BPF_X:
			maybe_emit_mod(&prog, dst_reg, src_reg, BPF_CLASS(insn->code) == BPF_JMP);
			EMIT2(0x85, add_2reg(0xC0, dst_reg, src_reg));	/* test dst, src */
			goto emit_cond_jmp;

		case BPF_JMP | BPF_JSET | BPF_K:
		case BPF_JMP32 | BPF_JSET | BPF_K:
			maybe_emit_1mod(&prog, dst_reg, BPF_CLASS(insn->code) == BPF_JMP);
			EMIT2_off32(0xF7, add_1reg(0xC0, dst_reg), imm32);	/* test dst, imm32 */
			goto emit_cond_jmp;

		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JNE | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JLT | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JLE | BPF_K:
		case BPF_JMP | BPF_JSGT | BPF_K:
		case BPF_JMP | BPF_JSLT | BPF_K:
		case BPF_JMP | BPF_JSGE | BPF_K:
		case BPF_JMP | BPF_JSLE | BPF_K:
		case BPF_JMP32 | BPF_JEQ | BPF_K:
		case BPF_JMP32 | BPF_JNE | BPF_K:
		case BPF_JMP32 | BPF_JGT | BPF_K:
		case BPF_JMP32 | BPF_JLT | BPF_K:
		case BPF_JMP32 | BPF_JGE | BPF_K:
		case BPF_JMP32 | BPF_JLE | BPF_K:
		case BPF_JMP32 | BPF_JSGT | BPF_K:
		case BPF_JMP32 | BPF_JSLT | BPF_K:
		case BPF_JMP32 | BPF_JSGE | BPF_K:
		case BPF_JMP32 | BPF_JSLE | BPF_K:
			if (imm32 == 0) {	/* test dst, dst: a byte shorter */
				maybe_emit_mod(&prog, dst_reg, dst_reg, BPF_CLASS(insn->code) == BPF_JMP);
				EMIT2(0x85, add_2reg(0xC0, dst_reg, dst_reg));
				goto emit_cond_jmp;
			}
			maybe_emit_1mod(&prog, dst_reg, BPF_CLASS(insn->code) == BPF_JMP);
			if (is_imm8(imm32))	/* cmp dst, imm8/32 */
				EMIT3(0x83, add_1reg(0xF8, dst_reg), imm32);
			else
				EMIT2_off32(0x81, add_1reg(0xF8, dst_reg), imm32);
emit_cond_jmp:
			switch (BPF_OP(insn->code)) {
			case BPF_JEQ: jmp_cond = X86_JE; break;
			case BPF_JSET:
			case BPF_JNE: jmp_cond = X86_JNE; break;
			case BPF_JGT: jmp_cond = X86_JA; break;
			case BPF_JLT: jmp_cond = X86_JB; break;
			case BPF_JGE: jmp_cond = X86_JAE; break;
			case BPF_JLE: jmp_cond = X86_JBE; break;
			case BPF_JSGT: jmp_cond = X86_JG; break;
			case BPF_JSLT: jmp_cond = X86_JL; break;
			case BPF_JSGE: jmp_cond = X86_JGE; break;
			case BPF_JSLE: jmp_cond = X86_JLE; break;
			default: return -EFAULT;
			}
			jmp_offset = addrs[i + insn->off] - addrs[i];
			if (is_imm8_jmp_offset(jmp_offset)) {
				if (jmp_padding) {
					/* keep the length of the last pass: 4 bytes of nop where a long
					 * form became short */
					nops = INSN_SZ_DIFF - 2;
					if (nops != 0 && nops != 4)
						return -EFAULT;
					emit_nops(&prog, nops);
				}
				EMIT2(jmp_cond, jmp_offset);
			} else if (is_simm32(jmp_offset)) {
				EMIT2_off32(0x0F, jmp_cond + 0x10, jmp_offset);
			} else {
				return -EFAULT;
			}
			break;

		case BPF_JMP | BPF_JA:
		case BPF_JMP32 | BPF_JA:	/* gotol: its offset in imm */
			jmp_offset = BPF_CLASS(insn->code) == BPF_JMP ? insn->off : insn->imm;
			if (jmp_offset == -1)
				jmp_offset = -2;	/* to itself: always two bytes back */
			else
				jmp_offset = addrs[i + jmp_offset] - addrs[i];
			if (!jmp_offset) {
				/* to the next instruction: none, or the nops of the last pass's */
				if (jmp_padding) {
					nops = INSN_SZ_DIFF;
					if (nops != 0 && nops != 2 && nops != 5)
						return -EFAULT;
					emit_nops(&prog, nops);
				}
				break;
			}
emit_jmp:
			if (is_imm8_jmp_offset(jmp_offset)) {
				if (jmp_padding) {
					nops = INSN_SZ_DIFF - 2;
					if (nops != 0 && nops != 3)
						return -EFAULT;
					emit_nops(&prog, INSN_SZ_DIFF - 2);
				}
				EMIT2(0xEB, jmp_offset);
			} else if (is_simm32(jmp_offset)) {
				EMIT1_off32(0xE9, jmp_offset);
			} else {
				return -EFAULT;
			}
			break;

		case BPF_JMP | BPF_EXIT:
			if (seen_exit) {	/* a jump to the first exit's epilogue */
				jmp_offset = ctx->cleanup_addr - addrs[i];
				goto emit_jmp;
			}
			seen_exit = true;
			ctx->cleanup_addr = proglen;
			pop_callee_regs(&prog, callee_regs_used);
			EMIT1(0xC9);	/* leave */
			emit_return(&prog, image + addrs[i - 1] + (prog - temp));
			break;

		default:
			/* nothing else gets past the verifier: junk in the program */
			return -EINVAL;
		}

		ilen = prog - temp;
		if (ilen > BPF_MAX_INSN_SIZE)
			return -EFAULT;
		if (image) {
			/* the last pass: no byte past the image, no offset other than it found */
			if (unlikely(proglen + ilen > oldproglen || proglen + ilen != addrs[i]))
				return -EFAULT;
			memcpy(image + proglen, temp, ilen);
		}
		proglen += ilen;
		addrs[i] = proglen;
		prog = temp;
	}
	if (image && excnt != (int)bpf_prog->num_exentries)
		return -EFAULT;
	return proglen;
}

/* bpf_jit_free_extra_pass(): a function's JIT state, its extra pass never made (the image is
 * bpf_jit_free()'s) */
noinline notrace void bpf_jit_free_extra_pass(struct bpf_prog *prog)
{
	if (!prog->jit_data)
		return;
	kfree(prog->jit_data->addrs);
	kfree(prog->jit_data);
	prog->jit_data = NULL;
}

/* the image's pages made new to every cpu (bpf_arch_text_copy()), its lines' addresses */
static noinline notrace void jit_finalize(struct bpf_prog *prog, u8 *image, u32 size, const int *addrs)
{
	unsigned long page;

	for (page = (unsigned long)image & ~(PAGE_SIZE - 1); page < (unsigned long)image + size; page += PAGE_SIZE)
		host_code_page((void *)page);
	bpf_prog_fill_jited_linfo(prog, (const u32 *)addrs + 1);
}

/*
 * bpf_int_jit_compile(): the program as x86-64 code, or as it was (interpreted) where the JIT
 * cannot make it (the passes do not converge, the pack is full, no kallsyms line is left).  The
 * image: the code, then (4-aligned) the number of exception table entries and the entries.
 * A function of a program of several (is_func) is written once with its calls to a stand-in
 * (imm 1), its state kept; called again, it is written once more at the same offsets, its calls
 * now to the callees' images (the extra pass), and gets no kallsyms line here (jit_subprogs()).
 */
noinline struct bpf_prog *bpf_int_jit_compile(struct bpf_prog *prog)
{
	int proglen, oldproglen = 0, pass, i;
	struct x64_jit_data *jit_data = prog->jit_data;
	struct jit_context ctx = {};
	bool padding = false;
	u8 *image = NULL;
	u32 size = 0, tbl = 0, n = 0;
	unsigned int (*interpreter)(const void *, const struct bpf_insn *) = prog->bpf_func;
	int *addrs;

	if (jit_data) {		/* the extra pass */
		prog->jit_data = NULL;
		proglen = do_jit(prog, jit_data->addrs, jit_data->image, jit_data->proglen, &jit_data->ctx,
				 jit_data->padding);
		if (proglen != jit_data->proglen) {
			prog->jited = false;
			prog->jit_header = NULL;
			bpf_jit_binary_pack_free(jit_data->image, jit_data->size);
			prog->extable = NULL;
			prog->jited_len = 0;
			prog->bpf_func = interpreter;
		} else {
			if (bpf_jit_enable > 1)
				bpf_jit_dump(prog->len, proglen, jit_data->pass + 2, jit_data->image);
			jit_finalize(prog, jit_data->image, jit_data->size, jit_data->addrs);
		}
		kfree(jit_data->addrs);
		kfree(jit_data);
		return prog;
	}
	for (i = 0; i < (int)prog->len; i++)
		if (prog->insnsi[i].code == (BPF_LDX | BPF_PROBE_MEM | BPF_SIZE(prog->insnsi[i].code)))
			n++;
	prog->num_exentries = n;
	addrs = kmalloc(sizeof(*addrs) * (prog->len + 1), GFP_KERNEL);
	if (!addrs)
		return prog;
	/* a first guess: less than 64 bytes an instruction */
	for (proglen = 0, i = 0; i <= (int)prog->len; i++) {
		proglen += 64;
		addrs[i] = proglen;
	}
	ctx.cleanup_addr = proglen;
	/* the image shrinks each pass until it stops; then one more writes it */
	for (pass = 0; pass < MAX_PASSES || image; pass++) {
		if (!padding && pass >= PADDING_PASSES)
			padding = true;
		proglen = do_jit(prog, addrs, image, oldproglen, &ctx, padding);
		if (proglen <= 0)
			goto fail;
		if (image) {
			if (proglen != oldproglen)
				goto fail;
			break;
		}
		if (proglen == oldproglen) {
			tbl = ALIGN(proglen, sizeof(int));
			size = tbl + sizeof(u32) + n * sizeof(struct bpf_ex_entry);
			image = bpf_jit_binary_pack_alloc(size);
			if (!image)
				goto out;
			jit_fill_hole(image, size);
			*(u32 *)(image + tbl) = n;
			prog->extable = (struct bpf_ex_entry *)(image + tbl + sizeof(u32));
		}
		oldproglen = proglen;
	}
	if (bpf_jit_enable > 1)
		bpf_jit_dump(prog->len, proglen, pass + 1, image);
	if (!image)
		goto out;
	prog->bpf_func = (void *)image;
	prog->jited = true;
	prog->jited_len = proglen;
	prog->jit_header = image;
	prog->jit_size = size;
	if (prog->is_func) {	/* its calls are written in the extra pass */
		jit_data = kzalloc(sizeof(*jit_data), GFP_KERNEL);
		if (!jit_data)
			goto fail;
		*jit_data = (struct x64_jit_data){ .addrs = addrs, .ctx = ctx, .image = image, .size = size,
						   .proglen = proglen, .pass = pass, .padding = padding };
		prog->jit_data = jit_data;
		return prog;
	}
	bpf_prog_kallsyms_add(prog);
	if (prog->ksym_slot < 0)
		goto fail;
	jit_finalize(prog, image, size, addrs);
	goto out;
fail:
	if (image) {
		prog->jited = false;
		prog->jit_header = NULL;
		bpf_jit_binary_pack_free(image, size);
		prog->extable = NULL;
		prog->jited_len = 0;
		prog->bpf_func = interpreter;
	}
out:
	kfree(addrs);
	return prog;
}
