/* The eBPF interpreter (kernel/bpf/core.c): ___bpf_prog_run() dispatches every instruction
 * through a table of labels, as 6.1's; __bpf_prog_runN() gives it a stack of N bytes (the
 * program's depth rounded up to 32); helpers are called at __bpf_call_base + imm, which the
 * verifier wrote in place of the helper's number; a bpf-to-bpf call (BPF_CALL_ARGS) runs the
 * callee's instructions in __bpf_prog_run_argsN() of the callee's stack, its R1-R5 the
 * caller's.  Also the program tag (SHA-1). */
#include "../../include/bpf.h"
#include "../../include/bpf_jit.h"
#include "../../include/bitops.h"
#include "../../include/btf.h"
#include "../../include/mm.h"
#include "../../include/perf_event.h"

#define DST	regs[insn->dst_reg]
#define SRC	regs[insn->src_reg]
#define FP	regs[BPF_REG_FP]
#define IMM	insn->imm

noinline u64 __bpf_call_base(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return 0;
}

typedef u64 (*bpf_call_args_fn)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5, const struct bpf_insn *insn);

noinline notrace u64 __bpf_call_base_args(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5, const struct bpf_insn *insn)
{
	return 0;
}

static u64 ___bpf_prog_run(u64 *regs, const struct bpf_insn *insn)
{
	static const void *const jumptable[256] = {
		[0 ... 255] = &&default_label,
#define ALU_OPS(cls) \
		[cls | BPF_ADD | BPF_X] = &&cls##_ADD_X, [cls | BPF_ADD | BPF_K] = &&cls##_ADD_K, \
		[cls | BPF_SUB | BPF_X] = &&cls##_SUB_X, [cls | BPF_SUB | BPF_K] = &&cls##_SUB_K, \
		[cls | BPF_AND | BPF_X] = &&cls##_AND_X, [cls | BPF_AND | BPF_K] = &&cls##_AND_K, \
		[cls | BPF_OR | BPF_X] = &&cls##_OR_X, [cls | BPF_OR | BPF_K] = &&cls##_OR_K, \
		[cls | BPF_XOR | BPF_X] = &&cls##_XOR_X, [cls | BPF_XOR | BPF_K] = &&cls##_XOR_K, \
		[cls | BPF_MUL | BPF_X] = &&cls##_MUL_X, [cls | BPF_MUL | BPF_K] = &&cls##_MUL_K, \
		[cls | BPF_LSH | BPF_X] = &&cls##_LSH_X, [cls | BPF_LSH | BPF_K] = &&cls##_LSH_K, \
		[cls | BPF_RSH | BPF_X] = &&cls##_RSH_X, [cls | BPF_RSH | BPF_K] = &&cls##_RSH_K, \
		[cls | BPF_ARSH | BPF_X] = &&cls##_ARSH_X, [cls | BPF_ARSH | BPF_K] = &&cls##_ARSH_K, \
		[cls | BPF_DIV | BPF_X] = &&cls##_DIV_X, [cls | BPF_DIV | BPF_K] = &&cls##_DIV_K, \
		[cls | BPF_MOD | BPF_X] = &&cls##_MOD_X, [cls | BPF_MOD | BPF_K] = &&cls##_MOD_K, \
		[cls | BPF_MOV | BPF_X] = &&cls##_MOV_X, [cls | BPF_MOV | BPF_K] = &&cls##_MOV_K, \
		[cls | BPF_NEG] = &&cls##_NEG
		ALU_OPS(BPF_ALU), ALU_OPS(BPF_ALU64),
		[BPF_ALU | BPF_END | BPF_TO_LE] = &&ALU_END_TO_LE,
		[BPF_ALU | BPF_END | BPF_TO_BE] = &&ALU_END_TO_BE,
#define JMP_OPS(cls) \
		[cls | BPF_JEQ | BPF_X] = &&cls##_JEQ_X, [cls | BPF_JEQ | BPF_K] = &&cls##_JEQ_K, \
		[cls | BPF_JNE | BPF_X] = &&cls##_JNE_X, [cls | BPF_JNE | BPF_K] = &&cls##_JNE_K, \
		[cls | BPF_JGT | BPF_X] = &&cls##_JGT_X, [cls | BPF_JGT | BPF_K] = &&cls##_JGT_K, \
		[cls | BPF_JLT | BPF_X] = &&cls##_JLT_X, [cls | BPF_JLT | BPF_K] = &&cls##_JLT_K, \
		[cls | BPF_JGE | BPF_X] = &&cls##_JGE_X, [cls | BPF_JGE | BPF_K] = &&cls##_JGE_K, \
		[cls | BPF_JLE | BPF_X] = &&cls##_JLE_X, [cls | BPF_JLE | BPF_K] = &&cls##_JLE_K, \
		[cls | BPF_JSGT | BPF_X] = &&cls##_JSGT_X, [cls | BPF_JSGT | BPF_K] = &&cls##_JSGT_K, \
		[cls | BPF_JSLT | BPF_X] = &&cls##_JSLT_X, [cls | BPF_JSLT | BPF_K] = &&cls##_JSLT_K, \
		[cls | BPF_JSGE | BPF_X] = &&cls##_JSGE_X, [cls | BPF_JSGE | BPF_K] = &&cls##_JSGE_K, \
		[cls | BPF_JSLE | BPF_X] = &&cls##_JSLE_X, [cls | BPF_JSLE | BPF_K] = &&cls##_JSLE_K, \
		[cls | BPF_JSET | BPF_X] = &&cls##_JSET_X, [cls | BPF_JSET | BPF_K] = &&cls##_JSET_K
		JMP_OPS(BPF_JMP), JMP_OPS(BPF_JMP32),
		[BPF_JMP | BPF_JA] = &&JMP_JA,
		[BPF_JMP32 | BPF_JA] = &&JMP32_JA,
		[BPF_JMP | BPF_CALL] = &&JMP_CALL,
		[BPF_JMP | BPF_CALL_ARGS] = &&JMP_CALL_ARGS,
		[BPF_JMP | BPF_TAIL_CALL] = &&JMP_TAIL_CALL,
		[BPF_JMP | BPF_EXIT] = &&JMP_EXIT,
		[BPF_LD | BPF_IMM | BPF_DW] = &&LD_IMM_DW,
#define MEM_OPS(sz) \
		[BPF_LDX | BPF_MEM | BPF_##sz] = &&LDX_MEM_##sz, \
		[BPF_STX | BPF_MEM | BPF_##sz] = &&STX_MEM_##sz, \
		[BPF_ST | BPF_MEM | BPF_##sz] = &&ST_MEM_##sz
		MEM_OPS(B), MEM_OPS(H), MEM_OPS(W), MEM_OPS(DW),
		[BPF_LDX | BPF_PROBE_MEM | BPF_B] = &&LDX_PROBE_MEM_B,
		[BPF_LDX | BPF_PROBE_MEM | BPF_H] = &&LDX_PROBE_MEM_H,
		[BPF_LDX | BPF_PROBE_MEM | BPF_W] = &&LDX_PROBE_MEM_W,
		[BPF_LDX | BPF_PROBE_MEM | BPF_DW] = &&LDX_PROBE_MEM_DW,
		[BPF_STX | BPF_ATOMIC | BPF_W] = &&STX_ATOMIC_W,
		[BPF_STX | BPF_ATOMIC | BPF_DW] = &&STX_ATOMIC_DW,
	};
	u32 tail_call_cnt = 0;
#define CONT	({ insn++; goto select_insn; })

select_insn:
	goto *jumptable[insn->code];

	/* ALU: 32-bit results are zero-extended; shifts take the amount modulo the width;
	 * division by zero gives 0, modulo by zero leaves the dividend (6.1's patched div/mod) */
#define ALU(OPC, OP) \
	BPF_ALU64_##OPC##_X: DST = DST OP SRC; CONT; \
	BPF_ALU_##OPC##_X: DST = (u32)DST OP (u32)SRC; CONT; \
	BPF_ALU64_##OPC##_K: DST = DST OP (u64)(s64)IMM; CONT; \
	BPF_ALU_##OPC##_K: DST = (u32)DST OP (u32)IMM; CONT;
	ALU(ADD, +)
	ALU(SUB, -)
	ALU(AND, &)
	ALU(OR, |)
	ALU(XOR, ^)
	ALU(MUL, *)
#undef ALU
BPF_ALU64_LSH_X: DST = DST << (SRC & 63); CONT;
BPF_ALU_LSH_X: DST = (u32)((u32)DST << (SRC & 31)); CONT;
BPF_ALU64_LSH_K: DST = DST << (IMM & 63); CONT;
BPF_ALU_LSH_K: DST = (u32)((u32)DST << (IMM & 31)); CONT;
BPF_ALU64_RSH_X: DST = DST >> (SRC & 63); CONT;
BPF_ALU_RSH_X: DST = (u32)DST >> (SRC & 31); CONT;
BPF_ALU64_RSH_K: DST = DST >> (IMM & 63); CONT;
BPF_ALU_RSH_K: DST = (u32)DST >> (IMM & 31); CONT;
BPF_ALU64_ARSH_X: DST = (u64)((s64)DST >> (SRC & 63)); CONT;
BPF_ALU_ARSH_X: DST = (u32)((s32)DST >> (SRC & 31)); CONT;
BPF_ALU64_ARSH_K: DST = (u64)((s64)DST >> (IMM & 63)); CONT;
BPF_ALU_ARSH_K: DST = (u32)((s32)DST >> (IMM & 31)); CONT;
BPF_ALU64_NEG: DST = -DST; CONT;
BPF_ALU_NEG: DST = (u32)-DST; CONT;
BPF_ALU64_MOV_X: DST = SRC; CONT;
BPF_ALU_MOV_X: DST = (u32)SRC; CONT;
BPF_ALU64_MOV_K: DST = (u64)(s64)IMM; CONT;
BPF_ALU_MOV_K: DST = (u32)IMM; CONT;
BPF_ALU64_DIV_X: DST = SRC ? DST / SRC : 0; CONT;
BPF_ALU_DIV_X: DST = (u32)SRC ? (u32)DST / (u32)SRC : 0; CONT;
BPF_ALU64_DIV_K: DST = IMM ? DST / (u64)(s64)IMM : 0; CONT;
BPF_ALU_DIV_K: DST = (u32)IMM ? (u32)DST / (u32)IMM : 0; CONT;
BPF_ALU64_MOD_X: DST = SRC ? DST % SRC : DST; CONT;
BPF_ALU_MOD_X: DST = (u32)SRC ? (u32)DST % (u32)SRC : (u32)DST; CONT;
BPF_ALU64_MOD_K: DST = IMM ? DST % (u64)(s64)IMM : DST; CONT;
BPF_ALU_MOD_K: DST = (u32)IMM ? (u32)DST % (u32)IMM : (u32)DST; CONT;
ALU_END_TO_LE:
	switch (IMM) {
	case 16: DST = (u16)DST; break;
	case 32: DST = (u32)DST; break;
	}
	CONT;
ALU_END_TO_BE:
	switch (IMM) {
	case 16: DST = __builtin_bswap16((u16)DST); break;
	case 32: DST = __builtin_bswap32((u32)DST); break;
	case 64: DST = __builtin_bswap64(DST); break;
	}
	CONT;

LD_IMM_DW:
	DST = (u64)(u32)insn[0].imm | ((u64)(u32)insn[1].imm) << 32;
	insn++;
	CONT;

#define MEM(SZ, T) \
LDX_MEM_##SZ: DST = *(T *)(unsigned long)(SRC + insn->off); CONT; \
STX_MEM_##SZ: *(T *)(unsigned long)(DST + insn->off) = SRC; CONT; \
ST_MEM_##SZ: *(T *)(unsigned long)(DST + insn->off) = IMM; CONT;
	MEM(B, u8)
	MEM(H, u16)
	MEM(W, u32)
	MEM(DW, u64)
#undef MEM

	/* a load through PTR_TO_BTF_ID: bpf_probe_read_kernel() of it, 0 where it faults (or is
	 * a user address) */
#define PROBE_MEM(SZ, T) \
LDX_PROBE_MEM_##SZ: \
	if (copy_from_kernel_nofault(&DST, (const void *)(unsigned long)(SRC + insn->off), sizeof(T))) \
		DST = 0; \
	DST = *(T *)&DST; \
	CONT;
	PROBE_MEM(B, u8)
	PROBE_MEM(H, u16)
	PROBE_MEM(W, u32)
	PROBE_MEM(DW, u64)
#undef PROBE_MEM

#define ATOMIC(SZ, T) \
STX_ATOMIC_##SZ: { \
	T *ptr = (T *)(unsigned long)(DST + insn->off); \
	switch (IMM) { \
	case BPF_ADD: __atomic_add_fetch(ptr, (T)SRC, __ATOMIC_SEQ_CST); break; \
	case BPF_AND: __atomic_and_fetch(ptr, (T)SRC, __ATOMIC_SEQ_CST); break; \
	case BPF_OR: __atomic_or_fetch(ptr, (T)SRC, __ATOMIC_SEQ_CST); break; \
	case BPF_XOR: __atomic_xor_fetch(ptr, (T)SRC, __ATOMIC_SEQ_CST); break; \
	case BPF_ADD | BPF_FETCH: SRC = (T)__atomic_fetch_add(ptr, (T)SRC, __ATOMIC_SEQ_CST); break; \
	case BPF_AND | BPF_FETCH: SRC = (T)__atomic_fetch_and(ptr, (T)SRC, __ATOMIC_SEQ_CST); break; \
	case BPF_OR | BPF_FETCH: SRC = (T)__atomic_fetch_or(ptr, (T)SRC, __ATOMIC_SEQ_CST); break; \
	case BPF_XOR | BPF_FETCH: SRC = (T)__atomic_fetch_xor(ptr, (T)SRC, __ATOMIC_SEQ_CST); break; \
	case BPF_XCHG: SRC = (T)__atomic_exchange_n(ptr, (T)SRC, __ATOMIC_SEQ_CST); break; \
	case BPF_CMPXCHG: { \
		T expected = (T)regs[BPF_REG_0]; \
		__atomic_compare_exchange_n(ptr, &expected, (T)SRC, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
		regs[BPF_REG_0] = expected; \
		break; } \
	default: goto default_label; \
	} \
	CONT; }
	ATOMIC(W, u32)
	ATOMIC(DW, u64)
#undef ATOMIC

JMP_JA:
	insn += insn->off;
	CONT;
JMP32_JA:	/* gotol: a 32-bit offset, in imm */
	insn += insn->imm;
	CONT;
JMP_CALL:
	regs[BPF_REG_0] = ((bpf_helper_fn)((char *)__bpf_call_base + insn->imm))(
		regs[BPF_REG_1], regs[BPF_REG_2], regs[BPF_REG_3], regs[BPF_REG_4], regs[BPF_REG_5]);
	CONT;
JMP_CALL_ARGS:
	/* bpf_patch_call_args(): imm the interpreter of the callee's stack, off where it starts */
	regs[BPF_REG_0] = ((bpf_call_args_fn)((char *)__bpf_call_base_args + insn->imm))(
		regs[BPF_REG_1], regs[BPF_REG_2], regs[BPF_REG_3], regs[BPF_REG_4], regs[BPF_REG_5],
		insn + insn->off + 1);
	CONT;
JMP_TAIL_CALL: {
	/* bpf_tail_call(ctx, R2 a program array, R3 an index): the program there, if any and
	 * fewer than MAX_TAIL_CALL_CNT tail calls ran, goes on in this frame and stack (the
	 * verifier gave an interpreted program using tail calls the largest stack); else the
	 * next instruction */
	struct bpf_array *array = container_of((struct bpf_map *)(unsigned long)regs[BPF_REG_2], struct bpf_array, map);
	u32 index = regs[BPF_REG_3];
	struct bpf_prog *prog;

	if (unlikely(index >= array->map.max_entries))
		CONT;
	if (unlikely(tail_call_cnt >= MAX_TAIL_CALL_CNT))
		CONT;
	tail_call_cnt++;
	prog = READ_ONCE(array->ptrs[index]);
	if (!prog)
		CONT;
	/* R1 is the context: bpf_tail_call_proto's ARG_PTR_TO_CTX */
	insn = prog->insnsi;
	goto select_insn;
}
JMP_EXIT:
	return regs[BPF_REG_0];

#define COND_JMP(SIGN, OPC, CMP) \
BPF_JMP_##OPC##_X: if ((SIGN##64)DST CMP (SIGN##64)SRC) { insn += insn->off; } CONT; \
BPF_JMP32_##OPC##_X: if ((SIGN##32)DST CMP (SIGN##32)SRC) { insn += insn->off; } CONT; \
BPF_JMP_##OPC##_K: if ((SIGN##64)DST CMP (SIGN##64)(s64)IMM) { insn += insn->off; } CONT; \
BPF_JMP32_##OPC##_K: if ((SIGN##32)DST CMP (SIGN##32)IMM) { insn += insn->off; } CONT;
	COND_JMP(u, JEQ, ==)
	COND_JMP(u, JNE, !=)
	COND_JMP(u, JGT, >)
	COND_JMP(u, JLT, <)
	COND_JMP(u, JGE, >=)
	COND_JMP(u, JLE, <=)
	COND_JMP(u, JSET, &)
	COND_JMP(s, JSGT, >)
	COND_JMP(s, JSLT, <)
	COND_JMP(s, JSGE, >=)
	COND_JMP(s, JSLE, <=)
#undef COND_JMP

default_label:
	/* the verifier lets no other opcode through */
	return 0;
}

#define DEFINE_BPF_PROG_RUN(stack_size) \
static unsigned int __bpf_prog_run##stack_size(const void *ctx, const struct bpf_insn *insn) \
{ \
	u64 stack[stack_size / sizeof(u64)]; \
	u64 regs[MAX_BPF_REG] = {}; \
\
	FP = (u64)(unsigned long)&stack[ARRAY_SIZE(stack)]; \
	regs[BPF_REG_1] = (u64)(unsigned long)ctx; \
	return ___bpf_prog_run(regs, insn); \
}
DEFINE_BPF_PROG_RUN(32) DEFINE_BPF_PROG_RUN(64) DEFINE_BPF_PROG_RUN(96) DEFINE_BPF_PROG_RUN(128)
DEFINE_BPF_PROG_RUN(160) DEFINE_BPF_PROG_RUN(192) DEFINE_BPF_PROG_RUN(224) DEFINE_BPF_PROG_RUN(256)
DEFINE_BPF_PROG_RUN(288) DEFINE_BPF_PROG_RUN(320) DEFINE_BPF_PROG_RUN(352) DEFINE_BPF_PROG_RUN(384)
DEFINE_BPF_PROG_RUN(416) DEFINE_BPF_PROG_RUN(448) DEFINE_BPF_PROG_RUN(480) DEFINE_BPF_PROG_RUN(512)

static unsigned int (*const interpreters[])(const void *ctx, const struct bpf_insn *insn) = {
	__bpf_prog_run32, __bpf_prog_run64, __bpf_prog_run96, __bpf_prog_run128,
	__bpf_prog_run160, __bpf_prog_run192, __bpf_prog_run224, __bpf_prog_run256,
	__bpf_prog_run288, __bpf_prog_run320, __bpf_prog_run352, __bpf_prog_run384,
	__bpf_prog_run416, __bpf_prog_run448, __bpf_prog_run480, __bpf_prog_run512,
};

#define DEFINE_BPF_PROG_RUN_ARGS(stack_size) \
static u64 __bpf_prog_run_args##stack_size(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5, const struct bpf_insn *insn) \
{ \
	u64 stack[stack_size / sizeof(u64)]; \
	u64 regs[MAX_BPF_REG] = { [BPF_REG_1] = r1, [BPF_REG_2] = r2, [BPF_REG_3] = r3, [BPF_REG_4] = r4, \
				  [BPF_REG_5] = r5 }; \
\
	FP = (u64)(unsigned long)&stack[ARRAY_SIZE(stack)]; \
	return ___bpf_prog_run(regs, insn); \
}
DEFINE_BPF_PROG_RUN_ARGS(32) DEFINE_BPF_PROG_RUN_ARGS(64) DEFINE_BPF_PROG_RUN_ARGS(96) DEFINE_BPF_PROG_RUN_ARGS(128)
DEFINE_BPF_PROG_RUN_ARGS(160) DEFINE_BPF_PROG_RUN_ARGS(192) DEFINE_BPF_PROG_RUN_ARGS(224) DEFINE_BPF_PROG_RUN_ARGS(256)
DEFINE_BPF_PROG_RUN_ARGS(288) DEFINE_BPF_PROG_RUN_ARGS(320) DEFINE_BPF_PROG_RUN_ARGS(352) DEFINE_BPF_PROG_RUN_ARGS(384)
DEFINE_BPF_PROG_RUN_ARGS(416) DEFINE_BPF_PROG_RUN_ARGS(448) DEFINE_BPF_PROG_RUN_ARGS(480) DEFINE_BPF_PROG_RUN_ARGS(512)

static const bpf_call_args_fn interpreters_args[] = {
	__bpf_prog_run_args32, __bpf_prog_run_args64, __bpf_prog_run_args96, __bpf_prog_run_args128,
	__bpf_prog_run_args160, __bpf_prog_run_args192, __bpf_prog_run_args224, __bpf_prog_run_args256,
	__bpf_prog_run_args288, __bpf_prog_run_args320, __bpf_prog_run_args352, __bpf_prog_run_args384,
	__bpf_prog_run_args416, __bpf_prog_run_args448, __bpf_prog_run_args480, __bpf_prog_run_args512,
};

/* bpf_patch_call_args(): a bpf-to-bpf call, interpreted, in a stack of the callee's depth */
noinline void bpf_patch_call_args(struct bpf_insn *insn, u32 stack_depth)
{
	if (!stack_depth)
		stack_depth = 1;
	insn->off = (s16)insn->imm;
	insn->imm = (s32)((char *)interpreters_args[(ALIGN(stack_depth, 32) / 32) - 1] - (char *)__bpf_call_base_args);
	insn->code = BPF_JMP | BPF_CALL_ARGS;
}

/* net.core.bpf_jit_enable: 1 as Debian's 6.1 boots (CONFIG_BPF_JIT_DEFAULT_ON, not ALWAYS_ON:
 * 0 may be written, and the programs loaded then are interpreted) */
int bpf_jit_enable = 1;

/* The store of proc_dointvec_minmax_bpf_enable() (net/core/sysctl_net_core.c), the value parsed
 * and range-checked (0..2) by the writer: 2 also dumps each image the JIT makes to the kernel log
 * (bpf_jit_dump()), and says so.  (6.1 also wants bpf_dump_raw_ok() of the writer for 2: root,
 * the one writer its file's mode lets in, has it.) */
notrace int bpf_jit_enable_store(int jit_enable)
{
	WRITE_ONCE(bpf_jit_enable, jit_enable);
	if (jit_enable == 2)
		pr_warn("bpf_jit_enable = 2 was set! NEVER use this in production, only for JIT debugging!\n");
	return 0;
}

/* bpf_tail_call(): the verifier makes each call a BPF_TAIL_CALL instruction, never a call */
const struct bpf_func_proto bpf_tail_call_proto = {
	.func = NULL,
	.ret_type = RET_VOID,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING },
};

/* bpf_prog_map_compatible(): a program array takes the type of the first program put in it or
 * loaded using it, and whether it was JITed; the others must have the same (a tail call jumps
 * into the program's code, or its instructions, with the caller's context) */
static raw_spinlock_t owner_lock;	/* (6.1's map->owner.lock, one for all maps here) */

noinline bool bpf_prog_map_compatible(struct bpf_map *map, const struct bpf_prog *fp)
{
	bool ret = true;

	raw_spin_lock(&owner_lock);
	if (!map->owner.type) {	/* no owner yet to be compatible with */
		map->owner.type = fp->type;
		map->owner.jited = fp->jited;
	} else {
		ret = map->owner.type == fp->type && map->owner.jited == fp->jited;
	}
	raw_spin_unlock(&owner_lock);
	return ret;
}

/* bpf_check_tail_call(): every program array the program uses takes it */
static int bpf_check_tail_call(const struct bpf_prog *fp)
{
	u32 i;

	for (i = 0; i < fp->used_map_cnt; i++)
		if (fp->used_maps[i]->map_type == BPF_MAP_TYPE_PROG_ARRAY &&
		    !bpf_prog_map_compatible(fp->used_maps[i], fp))
			return -EINVAL;
	return 0;
}

/* bpf_prog_select_runtime(): the interpreter whose stack holds the program's, then the JIT's
 * image where bpf_jit_enable asked for it at the load and the JIT made one (else the
 * interpreter stays, as 6.1 without CONFIG_BPF_JIT_ALWAYS_ON falls back to it) */
noinline struct bpf_prog *bpf_prog_select_runtime(struct bpf_prog *prog, int *err)
{
	u32 depth = prog->stack_depth ? prog->stack_depth : 1;

	*err = 0;
	if (prog->jited)	/* its functions JITed by the verifier (jit_subprogs()) */
		goto finalize;
	prog->bpf_func = interpreters[(ALIGN(depth, 32) / 32) - 1];
	prog->ksym_slot = -1;
	if (prog->jit_requested) {
		*err = bpf_prog_alloc_jited_linfo(prog);
		if (*err)
			return prog;
		prog = bpf_int_jit_compile(prog);
		bpf_prog_jit_attempt_done(prog);
	}
finalize:
	*err = bpf_check_tail_call(prog);
	return prog;
}

/* ---- where the JIT put each source line (the program's line_info) ---- */
noinline int bpf_prog_alloc_jited_linfo(struct bpf_prog *prog)
{
	if (!prog->nr_linfo || !prog->jit_requested)
		return 0;
	prog->jited_linfo = kvzalloc((u64)prog->nr_linfo * sizeof(*prog->jited_linfo), GFP_KERNEL);
	return prog->jited_linfo ? 0 : -ENOMEM;
}

/* an interpreted program has no line addresses */
noinline void bpf_prog_jit_attempt_done(struct bpf_prog *prog)
{
	if (prog->jited_linfo && (!prog->jited || !prog->jited_linfo[0])) {
		kvfree(prog->jited_linfo);
		prog->jited_linfo = NULL;
	}
}

/* bpf_prog_fill_jited_linfo(): the first line (of the function's, from linfo_idx) at the image's
 * start, each other one where the code of the instruction before it ends (insn_to_jit_off[i]:
 * the end of instruction i's code) */
noinline void bpf_prog_fill_jited_linfo(struct bpf_prog *prog, const u32 *insn_to_jit_off)
{
	const struct bpf_line_info *linfo = prog->linfo + prog->linfo_idx;
	void **jited_linfo = prog->jited_linfo + prog->linfo_idx;
	u32 i, insn_start, insn_end;

	if (!prog->jited_linfo)		/* the loader gave no line_info */
		return;
	insn_start = linfo[0].insn_off;
	insn_end = insn_start + prog->len;
	jited_linfo[0] = prog->bpf_func;
	for (i = 1; i < prog->nr_linfo - prog->linfo_idx && linfo[i].insn_off < insn_end; i++)
		jited_linfo[i] = (u8 *)prog->bpf_func + insn_to_jit_off[linfo[i].insn_off - insn_start - 1];
}

/* ---- the program pack (bpf_prog_pack_alloc() of 6.1): 64-byte chunks of bpf_prog_pack ---- */
extern u8 bpf_prog_pack[BPF_PROG_PACK_SIZE];
static unsigned long bpf_prog_pack_bitmap[BPF_PROG_CHUNK_COUNT / BITS_PER_LONG];
static raw_spinlock_t pack_lock;

static __always_inline bool chunk_used(u32 i)
{
	return bpf_prog_pack_bitmap[i / BITS_PER_LONG] >> (i % BITS_PER_LONG) & 1;
}

static __always_inline void chunks_set(u32 first, u32 n, bool used)
{
	u32 i;

	for (i = first; i < first + n; i++) {
		if (used)
			bpf_prog_pack_bitmap[i / BITS_PER_LONG] |= 1UL << (i % BITS_PER_LONG);
		else
			bpf_prog_pack_bitmap[i / BITS_PER_LONG] &= ~(1UL << (i % BITS_PER_LONG));
	}
}

/* size bytes of the pack, chunk-aligned, or NULL: the pack is full (6.1 would make another;
 * the program is interpreted) */
static noinline void *bpf_prog_pack_alloc(u32 size)
{
	u32 n = (size + BPF_PROG_CHUNK_SIZE - 1) >> BPF_PROG_CHUNK_SHIFT, i, run = 0;
	unsigned long flags;
	void *ptr = NULL;

	raw_spin_lock_irqsave(&pack_lock, flags);
	for (i = 0; i < BPF_PROG_CHUNK_COUNT; i++) {
		run = chunk_used(i) ? 0 : run + 1;
		if (run == n) {
			chunks_set(i + 1 - n, n, true);
			ptr = bpf_prog_pack + ((unsigned long)(i + 1 - n) << BPF_PROG_CHUNK_SHIFT);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&pack_lock, flags);
	return ptr;
}

static noinline void bpf_prog_pack_free(void *ptr, u32 size)
{
	u32 n = (size + BPF_PROG_CHUNK_SIZE - 1) >> BPF_PROG_CHUNK_SHIFT;
	u32 first = ((u8 *)ptr - bpf_prog_pack) >> BPF_PROG_CHUNK_SHIFT;
	unsigned long flags;

	raw_spin_lock_irqsave(&pack_lock, flags);
	chunks_set(first, n, false);
	raw_spin_unlock_irqrestore(&pack_lock, flags);
}

/* bpf_jit_binary_pack_alloc(): room for an image of size bytes (the JIT fills it: jit_fill_hole()) */
noinline void *bpf_jit_binary_pack_alloc(u32 size)
{
	return bpf_prog_pack_alloc(size);
}

/* bpf_jit_binary_pack_free(): int3 over it again (bpf_arch_text_invalidate()), then free */
noinline void bpf_jit_binary_pack_free(void *header, u32 size)
{
	memset(header, 0xcc, size);
	bpf_prog_pack_free(header, size);
}

noinline void bpf_jit_free(struct bpf_prog *prog)
{
	bpf_jit_free_extra_pass(prog);
	if (prog->jited && prog->jit_header)
		bpf_jit_binary_pack_free(prog->jit_header, prog->jit_size);
	kfree(prog);
}

/* a program of several functions: each function's image and bpf_prog (func[0]'s image is the
 * program's), then the program */
noinline void bpf_prog_free(struct bpf_prog *prog)
{
	u32 i;

	if (!prog->func_cnt) {
		bpf_jit_free(prog);
		return;
	}
	for (i = 0; i < prog->func_cnt; i++)
		bpf_jit_free(prog->func[i]);
	kfree(prog->func);
	kfree(prog);
}

/* ---- kallsyms (bpf_prog_kallsyms_add() of 6.1): a line per JITed program, which the host reads
 * for /proc/kallsyms (`t bpf_prog_<tag>_<name>\t[bpf]`) and `tracefs-sim disasm`.  A line is
 * valid while its start is not 0: written last, cleared first. ---- */
struct bpf_jit_ksym {
	unsigned long start, end;
	char name[BPF_JIT_KSYM_LEN];
};
struct bpf_jit_ksym bpf_jit_ksyms[BPF_JIT_KSYMS];
static raw_spinlock_t ksym_lock;

/* bpf_get_prog_name(): bpf_prog_<tag>, then _<name>: its function's name in its own BTF (whole,
 * where prog_name has 15 characters at most), else its name where it has one; sym has
 * KSYM_NAME_LEN bytes, which a BTF name (at most KSYM_NAME_LEN - 1) with the rest can fill */
notrace void bpf_get_prog_name(const struct bpf_prog *prog, char *sym)
{
	static const char hex[] = "0123456789abcdef";
	const char *name = prog->name;
	int i, n = 0;

	memcpy(sym, "bpf_prog_", 9);
	n = 9;
	for (i = 0; i < BPF_TAG_SIZE; i++) {
		sym[n++] = hex[prog->tag[i] >> 4];
		sym[n++] = hex[prog->tag[i] & 15];
	}
	/* a function of several: its own func_info record's name, else "F" */
	if (prog->func_info_cnt)
		name = btf_name_by_offset(prog->btf, btf_type_by_id(prog->btf, prog->func_info[prog->func_idx].type_id)->name_off);
	if (name[0]) {
		sym[n++] = '_';
		for (i = 0; name[i] && n < KSYM_NAME_LEN - 1; i++)
			sym[n++] = name[i];
	}
	sym[n] = 0;
}

noinline void bpf_prog_kallsyms_add(struct bpf_prog *prog)
{
	char name[KSYM_NAME_LEN];
	unsigned long flags;
	int i;

	if (!prog->jited || prog->ksym_slot >= 0)
		return;
	raw_spin_lock_irqsave(&ksym_lock, flags);
	for (i = 0; i < BPF_JIT_KSYMS; i++) {
		struct bpf_jit_ksym *k = &bpf_jit_ksyms[i];

		if (READ_ONCE(k->start))
			continue;
		/* (a name longer than a line holds is cut there) */
		bpf_get_prog_name(prog, name);
		memcpy(k->name, name, sizeof(k->name) - 1);
		k->name[sizeof(k->name) - 1] = 0;
		k->end = (unsigned long)prog->bpf_func + prog->jited_len;
		barrier();
		WRITE_ONCE(k->start, (unsigned long)prog->bpf_func);
		prog->ksym_slot = i;
		break;
	}
	raw_spin_unlock_irqrestore(&ksym_lock, flags);
}

noinline void bpf_prog_kallsyms_del(struct bpf_prog *prog)
{
	unsigned long flags;

	if (prog->ksym_slot < 0)
		return;
	raw_spin_lock_irqsave(&ksym_lock, flags);
	WRITE_ONCE(bpf_jit_ksyms[prog->ksym_slot].start, 0);
	raw_spin_unlock_irqrestore(&ksym_lock, flags);
	prog->ksym_slot = -1;
}

/* bpf_prog_kallsyms_del_all(): the program's line and each of its functions' */
noinline void bpf_prog_kallsyms_del_all(struct bpf_prog *prog)
{
	u32 i;

	for (i = 1; i < prog->func_cnt; i++)
		bpf_prog_kallsyms_del(prog->func[i]);
	bpf_prog_kallsyms_del(prog);
}

/* is_bpf_text_address(): addr in a JITed program's image.  Without ksym_lock: a sample's stack
 * walk asks from any context (an NMI too), as 6.1 reads its latch tree */
noinline bool is_bpf_text_address(unsigned long addr)
{
	u32 i;

	for (i = 0; i < BPF_JIT_KSYMS; i++) {
		const struct bpf_jit_ksym *k = &bpf_jit_ksyms[i];
		unsigned long start = READ_ONCE(k->start);

		if (start && addr >= start && addr < READ_ONCE(k->end))
			return true;
	}
	return false;
}

/* __bpf_address_lookup() (kallsyms_lookup() of an address in a program's image): its name into
 * sym (KSYM_NAME_LEN bytes), its size and addr's offset; NULL: no program's */
noinline const char *__bpf_address_lookup(unsigned long addr, unsigned long *size, unsigned long *off, char *sym)
{
	const char *ret = NULL;
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&ksym_lock, flags);
	for (i = 0; i < BPF_JIT_KSYMS; i++) {
		struct bpf_jit_ksym *k = &bpf_jit_ksyms[i];
		unsigned long start = READ_ONCE(k->start);

		if (!start || addr < start || addr >= k->end)
			continue;
		if (size)
			*size = k->end - start;
		if (off)
			*off = addr - start;
		memcpy(sym, k->name, strlen(k->name) + 1);	/* (shorter than a line) */
		ret = sym;
		break;
	}
	raw_spin_unlock_irqrestore(&ksym_lock, flags);
	return ret;
}

/* ---- exception tables (search_bpf_extables() of 6.1): the entry of a fault-safe load at addr
 * in a program's image, found through the kallsyms lines (6.1's latch tree of them) ---- */
noinline const struct bpf_ex_entry *search_bpf_extables(unsigned long addr)
{
	u32 i;

	if (addr < (unsigned long)bpf_prog_pack || addr >= (unsigned long)bpf_prog_pack + BPF_PROG_PACK_SIZE)
		return NULL;
	for (i = 0; i < BPF_JIT_KSYMS; i++) {
		struct bpf_jit_ksym *k = &bpf_jit_ksyms[i];
		const struct bpf_ex_entry *e, *table;
		unsigned long start = READ_ONCE(k->start);
		u32 n;

		if (!start || addr < start || addr >= k->end)
			continue;
		/* bpf_jit_ksym_extable(): the table follows the code, its count after it */
		table = (const struct bpf_ex_entry *)ALIGN(k->end, sizeof(int));
		n = *(const u32 *)table;
		table = (const struct bpf_ex_entry *)((const u32 *)table + 1);
		for (e = table; e < table + n; e++)
			if ((unsigned long)&e->insn + e->insn == addr)
				return e;
		return NULL;
	}
	return NULL;
}

/* On while the kernel.bpf_stats_enabled sysctl is 1 or a BPF_ENABLE_STATS fd is open: programs'
 * runs are counted and timed (kernel/bpf/syscall.c) */
struct static_key bpf_stats_enabled_key;

/* a run that started at `start` (sched_clock(); 0: before the key was on) ends: counted */
notrace void bpf_prog_update_stats(const struct bpf_prog *prog, u64 start)
{
	struct bpf_prog_stats *stats = (struct bpf_prog_stats *)&prog->stats[smp_processor_id()];

	if (!static_key_enabled(&bpf_stats_enabled_key) || !start)
		return;
	/* (an NMI's program may run in between on this cpu: each add is one instruction) */
	__atomic_add_fetch(&stats->cnt, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&stats->nsecs, perf_clock() - start, __ATOMIC_RELAXED);
}

/* bpf_prog_run(), as 6.1's __bpf_prog_run(): with the statistics' key on, the run is timed by
 * sched_clock() (perf_clock()) */
notrace u64 bpf_prog_run(const struct bpf_prog *prog, const void *ctx)
{
	u64 ret, start;

	if (!static_key_enabled(&bpf_stats_enabled_key))
		return prog->bpf_func(ctx, prog->insnsi);
	start = perf_clock();
	ret = prog->bpf_func(ctx, prog->insnsi);
	bpf_prog_update_stats(prog, start);
	return ret;
}

/* ---- the tag: SHA-1 of the program with map fds zeroed, its first 8 bytes ---- */

static notrace void sha1_block(u32 h[5], const u8 *p)
{
	u32 w[80], a, b, c, d, e, f, k, t;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (u32)p[4 * i] << 24 | (u32)p[4 * i + 1] << 16 | (u32)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 80; i++)
		w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4];
	for (i = 0; i < 80; i++) {
		if (i < 20) { f = (b & c) | (~b & d); k = 0x5a827999; }
		else if (i < 40) { f = b ^ c ^ d; k = 0x6ed9eba1; }
		else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8f1bbcdc; }
		else { f = b ^ c ^ d; k = 0xca62c1d6; }
		t = rol32(a, 5) + f + e + k + w[i];
		e = d; d = c; c = rol32(b, 30); b = a; a = t;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
}

/* bpf_prog_calc_tag(): over the instructions as loaded (ld_imm64 of a map: imm zeroed) */
void bpf_prog_calc_tag(struct bpf_prog *prog)
{
	bool was_ld_map = false;
	u32 h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	u64 bits = (u64)prog->len * sizeof(struct bpf_insn) * 8, i, n = 0;
	u8 block[64];
	int j;

	for (i = 0; i < prog->len; i++) {
		struct bpf_insn insn = prog->insnsi[i];

		if (!was_ld_map && insn.code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    (insn.src_reg == BPF_PSEUDO_MAP_FD || insn.src_reg == BPF_PSEUDO_MAP_VALUE)) {
			was_ld_map = true;
			insn.imm = 0;
		} else if (was_ld_map && insn.code == 0 && insn.dst_reg == 0 && insn.src_reg == 0 && insn.off == 0) {
			was_ld_map = false;
			insn.imm = 0;
		} else {
			was_ld_map = false;
		}
		memcpy(block + n, &insn, sizeof(insn));
		n += sizeof(insn);
		if (n == 64) {
			sha1_block(h, block);
			n = 0;
		}
	}
	block[n++] = 0x80;
	if (n > 56) {
		memset(block + n, 0, 64 - n);
		sha1_block(h, block);
		n = 0;
	}
	memset(block + n, 0, 56 - n);
	for (j = 0; j < 8; j++)
		block[56 + j] = bits >> (56 - 8 * j);
	sha1_block(h, block);
	for (j = 0; j < BPF_TAG_SIZE; j++)
		prog->tag[j] = h[j / 4] >> (24 - 8 * (j % 4));
}

/* ---- the programs of an attach point (bpf_prog_array) ---- */

/* bpf_prog_array_copy(): old without exclude, with include at the end; -EEXIST if it is there */
int bpf_prog_array_copy(struct bpf_prog_array *old, struct bpf_prog *exclude, struct bpf_prog *include,
			struct bpf_prog_array **new_array)
{
	u32 i, n = 0, cnt = old ? old->cnt : 0;
	struct bpf_prog_array *array;

	for (i = 0; i < cnt; i++)
		if (include && old->progs[i] == include)
			return -EEXIST;
	array = kzalloc(sizeof(*array) + sizeof(array->progs[0]) * (cnt + 1), GFP_KERNEL);
	if (!array)
		return -ENOMEM;
	for (i = 0; i < cnt; i++)
		if (old->progs[i] != exclude)
			array->progs[n++] = old->progs[i];
	if (include)
		array->progs[n++] = include;
	array->cnt = n;
	if (!n) {
		kfree(array);
		array = NULL;
	}
	*new_array = array;
	return 0;
}
