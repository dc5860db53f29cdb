/* The instruction printer of the verifier log (kernel/bpf/disasm.c): "5: (85) call
 * bpf_map_lookup_elem#1", "6: (79) r0 = *(u64 *)(r0 +0)". */
#include "../../include/bpf_verifier.h"
#include "func_names.h"

static const char *const bpf_alu_string[16] = {
	"+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=", "neg", "%=", "^=", "=", "s>>=", "endian",
};
static const char *const bpf_atomic_alu_string[16] = {
	[BPF_ADD >> 4] = "add", [BPF_AND >> 4] = "and", [BPF_OR >> 4] = "or", [BPF_XOR >> 4] = "xor",
};
static const char *const bpf_ldst_string[] = { "u32", "u16", "u8", "u64" };
static const char *const bpf_jmp_string[16] = {
	"jmp", "==", ">", ">=", "&", "!=", "s>", "s>=", "call", "exit", "<", "<=", "s<", "s<=",
};
static const char *const bpf_class_string[8] = { "ld", "ldx", "st", "stx", "alu", "jmp", "jmp32", "alu64" };

noinline const char *func_id_name(int id)
{
	if (id >= 0 && id < __BPF_FUNC_MAX_ID && func_id_str[id])
		return func_id_str[id];
	return "unknown";
}

/* "%+d" */
static const char *signed_off(char *buf, int off)
{
	scnprintf(buf, 16, off < 0 ? "%d" : "+%d", off);
	return buf;
}

void print_bpf_insn(struct bpf_verifier_log *log, const struct bpf_insn *insn, bool allow_ptr_leaks)
{
	u8 class = BPF_CLASS(insn->code);
	char o[16];

#define verbose(...) bpf_verifier_log_write(log, __VA_ARGS__)
	if (class == BPF_ALU || class == BPF_ALU64) {
		char r = class == BPF_ALU ? 'w' : 'r';
		if (BPF_OP(insn->code) == BPF_END) {
			if (class == BPF_ALU64)
				verbose("BUG_alu64_%02x\n", insn->code);
			else
				verbose("(%02x) r%d = %s%d r%d\n", insn->code, insn->dst_reg,
					BPF_SRC(insn->code) == BPF_TO_BE ? "be" : "le", insn->imm, insn->dst_reg);
		} else if (BPF_OP(insn->code) == BPF_NEG) {
			verbose("(%02x) %c%d = -%c%d\n", insn->code, r, insn->dst_reg, r, insn->dst_reg);
		} else if (BPF_SRC(insn->code) == BPF_X) {
			verbose("(%02x) %c%d %s %c%d\n", insn->code, r, insn->dst_reg,
				bpf_alu_string[BPF_OP(insn->code) >> 4], r, insn->src_reg);
		} else {
			verbose("(%02x) %c%d %s %d\n", insn->code, r, insn->dst_reg,
				bpf_alu_string[BPF_OP(insn->code) >> 4], insn->imm);
		}
	} else if (class == BPF_STX) {
		const char *sz = bpf_ldst_string[BPF_SIZE(insn->code) >> 3];
		const char *w = BPF_SIZE(insn->code) == BPF_DW ? "64" : "";
		if (BPF_MODE(insn->code) == BPF_MEM)
			verbose("(%02x) *(%s *)(r%d %s) = r%d\n", insn->code, sz, insn->dst_reg,
				signed_off(o, insn->off), insn->src_reg);
		else if (BPF_MODE(insn->code) == BPF_ATOMIC &&
			 (insn->imm == BPF_ADD || insn->imm == BPF_AND || insn->imm == BPF_OR || insn->imm == BPF_XOR))
			verbose("(%02x) lock *(%s *)(r%d %s) %s r%d\n", insn->code, sz, insn->dst_reg,
				signed_off(o, insn->off), bpf_alu_string[BPF_OP(insn->imm) >> 4], insn->src_reg);
		else if (BPF_MODE(insn->code) == BPF_ATOMIC &&
			 (insn->imm == (BPF_ADD | BPF_FETCH) || insn->imm == (BPF_AND | BPF_FETCH) ||
			  insn->imm == (BPF_OR | BPF_FETCH) || insn->imm == (BPF_XOR | BPF_FETCH)))
			verbose("(%02x) r%d = atomic%s_fetch_%s((%s *)(r%d %s), r%d)\n", insn->code, insn->src_reg, w,
				bpf_atomic_alu_string[BPF_OP(insn->imm) >> 4], sz, insn->dst_reg,
				signed_off(o, insn->off), insn->src_reg);
		else if (BPF_MODE(insn->code) == BPF_ATOMIC && insn->imm == BPF_CMPXCHG)
			verbose("(%02x) r0 = atomic%s_cmpxchg((%s *)(r%d %s), r0, r%d)\n", insn->code, w, sz,
				insn->dst_reg, signed_off(o, insn->off), insn->src_reg);
		else if (BPF_MODE(insn->code) == BPF_ATOMIC && insn->imm == BPF_XCHG)
			verbose("(%02x) r%d = atomic%s_xchg((%s *)(r%d %s), r%d)\n", insn->code, insn->src_reg, w, sz,
				insn->dst_reg, signed_off(o, insn->off), insn->src_reg);
		else
			verbose("BUG_%02x\n", insn->code);
	} else if (class == BPF_ST) {
		if (BPF_MODE(insn->code) == BPF_MEM)
			verbose("(%02x) *(%s *)(r%d %s) = %d\n", insn->code, bpf_ldst_string[BPF_SIZE(insn->code) >> 3],
				insn->dst_reg, signed_off(o, insn->off), insn->imm);
		else if (BPF_MODE(insn->code) == 0xc0)
			verbose("(%02x) nospec\n", insn->code);
		else
			verbose("BUG_st_%02x\n", insn->code);
	} else if (class == BPF_LDX) {
		if (BPF_MODE(insn->code) != BPF_MEM)
			verbose("BUG_ldx_%02x\n", insn->code);
		else
			verbose("(%02x) r%d = *(%s *)(r%d %s)\n", insn->code, insn->dst_reg,
				bpf_ldst_string[BPF_SIZE(insn->code) >> 3], insn->src_reg, signed_off(o, insn->off));
	} else if (class == BPF_LD) {
		if (BPF_MODE(insn->code) == BPF_ABS) {
			verbose("(%02x) r0 = *(%s *)skb[%d]\n", insn->code, bpf_ldst_string[BPF_SIZE(insn->code) >> 3],
				insn->imm);
		} else if (BPF_MODE(insn->code) == BPF_IND) {
			verbose("(%02x) r0 = *(%s *)skb[r%d + %d]\n", insn->code,
				bpf_ldst_string[BPF_SIZE(insn->code) >> 3], insn->src_reg, insn->imm);
		} else if (BPF_MODE(insn->code) == BPF_IMM && BPF_SIZE(insn->code) == BPF_DW) {
			u64 imm = ((u64)(u32)insn[1].imm << 32) | (u32)insn->imm;
			bool is_ptr = insn->src_reg == BPF_PSEUDO_MAP_FD || insn->src_reg == BPF_PSEUDO_MAP_VALUE;
			if (is_ptr && !allow_ptr_leaks)
				imm = 0;
			verbose("(%02x) r%d = 0x%lx\n", insn->code, insn->dst_reg, imm);
		} else {
			verbose("BUG_ld_%02x\n", insn->code);
		}
	} else if (class == BPF_JMP32 || class == BPF_JMP) {
		u8 opcode = BPF_OP(insn->code);
		char r = class == BPF_JMP32 ? 'w' : 'r';
		if (opcode == BPF_CALL) {
			if (insn->src_reg == BPF_PSEUDO_CALL)
				verbose("(%02x) call pc%s\n", insn->code, signed_off(o, insn->imm));
			else
				verbose("(%02x) call %s#%d\n", insn->code, insn->src_reg ? "unknown" : func_id_name(insn->imm),
					insn->imm);	/* a helper's name only with src_reg 0 (__func_get_name()) */
		} else if (insn->code == (BPF_JMP | BPF_JA)) {
			verbose("(%02x) goto pc%s\n", insn->code, signed_off(o, insn->off));
		} else if (insn->code == (BPF_JMP | BPF_EXIT)) {
			verbose("(%02x) exit\n", insn->code);
		} else if (BPF_SRC(insn->code) == BPF_X) {
			verbose("(%02x) if %c%d %s %c%d goto pc%s\n", insn->code, r, insn->dst_reg,
				bpf_jmp_string[opcode >> 4], r, insn->src_reg, signed_off(o, insn->off));
		} else {
			verbose("(%02x) if %c%d %s 0x%x goto pc%s\n",
				insn->code, r, insn->dst_reg, bpf_jmp_string[opcode >> 4], insn->imm, signed_off(o, insn->off));
		}
	} else {
		verbose("(%02x) %s\n", insn->code, bpf_class_string[class]);
	}
#undef verbose
}
