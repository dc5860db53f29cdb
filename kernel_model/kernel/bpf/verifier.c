/* The eBPF verifier (kernel/bpf/verifier.c of 6.1): the program's functions and control flow
 * first (add_subprog_and_kfunc, check_subprogs, check_cfg: a function at each bpf-to-bpf call's
 * target, jumps in range and in their function, every instruction reachable, back-edges for the
 * privileged only), then every path simulated (do_check) on abstract registers and stack, a
 * frame of them per function the path is in (a call pushes the callee's, its exit pops it): the
 * type of each value (scalar with signed/unsigned 64/32-bit bounds and a tnum, pointer to ctx,
 * stack, map or map value, maybe-null), every memory access checked against its object, every
 * helper call against its prototype; branches pushed on a stack and explored depth first,
 * states checkpointed at prune points so an equal (or contained) state ends a path, and an
 * equal one on the path itself is an infinite loop.  The log is 6.1's: each instruction as it
 * is processed, the registers it changed after it, the message of what it rejects, and at
 * log level 1 only the failing path (a finished path's lines are rolled back).
 * Then the rewrites: map fds become map pointers, helper numbers call offsets; a program of
 * several functions has each JITed apart, calling the others' images (fixup_call_args,
 * jit_subprogs), or its calls run their callee in an interpreter of the callee's stack. */
#include "../../include/bpf_verifier.h"
#include "../../include/trace/ftrace.h"	/* ftrace_is_site() */
#include "../../include/btf.h"
#include "../../include/cred.h"
#include "../../include/mm.h"

#define S64_MIN ((s64)(-0x7fffffffffffffffL - 1))
#define S64_MAX ((s64)0x7fffffffffffffffL)
#define U64_MAX (~0UL)
#define S32_MIN ((s32)(-0x7fffffff - 1))
#define S32_MAX ((s32)0x7fffffff)
#define U32_MAX (~0U)
#define BPF_COMPLEXITY_LIMIT_JMP_SEQ 8192
#define BPF_COMPLEXITY_LIMIT_STATES 64
#define BPF_MAX_VAR_OFF (1 << 29)
#define BPF_MAX_VAR_SIZ (1 << 29)
#define PERF_MAX_TRACE_SIZE 2048
#define MAX_ERRNO 4095

struct bpf_verifier_stack_elem {
	struct bpf_verifier_state st;
	int insn_idx;
	int prev_insn_idx;
	u32 log_pos;
	struct bpf_verifier_stack_elem *next;
};

struct bpf_verifier_state_list {
	struct bpf_verifier_state state;
	struct bpf_verifier_state_list *next;
	int miss_cnt, hit_cnt;
};

struct bpf_insn_aux_data {
	bool seen;
	bool prune_point;
	u8 cfg_state;		/* check_cfg's DFS marks */
	u8 cfg_branch;
	u32 map_index;		/* ld_imm64 of a map: which used_maps */
	u64 map_off;
	struct bpf_map *map_ptr;	/* a map helper call: the map every path passes (or POISON) */
	u32 new_idx;		/* after do_misc_fixups: where the instruction's patch starts */
	u32 ptr_type;		/* a load: the type of the pointer it reads through (every path's) */
	u32 ctx_field_size;	/* a load from the context: the size of the field it reads */
	/* a bpf_loop call: inlined when every path gives flags 0 and the same callback */
	struct bpf_loop_inline_state {
		bool initialized;
		bool fit_for_inline;
		u32 callback_subprogno;
	} loop_inline_state;
};

#define BPF_MAP_PTR_POISON ((struct bpf_map *)0xeB9FUL)

struct bpf_call_arg_meta {
	struct bpf_map *map_ptr;
	int regno;
	u32 mem_size;		/* ARG_CONST_ALLOC_SIZE_OR_ZERO's */
	u64 msize_max_value;	/* ARG_CONST_SIZE(_OR_ZERO)'s largest value (do_refine_retval_range) */
	u32 ref_obj_id;		/* the reference an argument is */
	int release_regno;	/* the argument the helper releases (OBJ_RELEASE) */
	int subprogno;		/* ARG_PTR_TO_FUNC's: the callback */
};

struct bpf_verifier_env {
	struct bpf_prog *prog;
	struct bpf_verifier_log log;
	struct bpf_verifier_state *cur_state;
	struct bpf_verifier_stack_elem *head;
	int stack_size;
	struct bpf_verifier_state_list **explored_states;
	struct bpf_verifier_state_list *free_list;	/* dropped checkpoints a path may still walk up */
	struct bpf_insn_aux_data *insn_aux_data;
	struct bpf_map *used_maps[64];
	u32 used_map_cnt;
	u32 id_gen;
	int insn_idx, prev_insn_idx;
	u32 insn_processed, prev_insn_processed;
	u32 jmps_processed, prev_jmps_processed;
	u32 total_states, peak_states, max_states_per_insn, free_states;
	u32 longest_mark_read_walk;
	u32 prev_log_len, prev_insn_print_len;
	u32 scratched_regs;
	u64 scratched_stack_slots;
	u32 max_ctx_offset;
	bool allow_ptr_leaks, allow_uninit_stack, bpf_capable;
	bool test_state_freq;
	bool strict_alignment;	/* BPF_F_STRICT_ALIGNMENT: every access aligned */
	int *insn_stack;	/* check_cfg */
	u32 id_inst;		/* the last bpf_func_state.inst given */
	/* the program's functions (add_subprog_and_kfunc: func#0 at insn 0, then each target of a
	 * bpf-to-bpf call in order of start), each with its first line_info record and the stack
	 * it uses; one past the last, start = the program's length */
	u32 subprog_cnt;
	struct bpf_subprog_info {
		u32 start;
		u32 linfo_idx;
		u16 stack_depth;
		bool unreliable;	/* a call did not match its BTF prototype (func_info_aux's) */
		bool has_tail_call;	/* it calls bpf_tail_call() */
		bool tail_call_reachable;	/* it, or a function it calls, does */
	} subprog_info[BPF_MAX_SUBPROGS + 1];
	const struct bpf_line_info *prev_linfo;	/* the source line the log showed last */
};

/* ---- the log ---- */
noinline void bpf_verifier_vlog(struct bpf_verifier_log *log, const char *fmt, __builtin_va_list args)
{
	u32 n = vscnprintf(log->kbuf, sizeof(log->kbuf), fmt, args);

	n = min(log->len_total - log->len_used - 1, n);
	log->kbuf[n] = '\0';
	if (!copy_to_user(log->ubuf + log->len_used, log->kbuf, n + 1))
		log->len_used += n;
	else
		log->ubuf = NULL;
}

noinline bool bpf_verifier_log_attr_valid(const struct bpf_verifier_log *log)
{
	return log->len_total >= 128 && log->len_total <= 0xffffffffU >> 2 && log->level && log->ubuf &&
	       !(log->level & ~BPF_LOG_MASK);
}

void bpf_verifier_log_write(struct bpf_verifier_log *log, const char *fmt, ...)
{
	__builtin_va_list args;

	if (!bpf_verifier_log_needed(log))
		return;
	__builtin_va_start(args, fmt);
	bpf_verifier_vlog(log, fmt, args);
	__builtin_va_end(args);
}
#define verbose(env, ...) bpf_verifier_log_write(&(env)->log, __VA_ARGS__)

/* back to new_pos; a full log stays as it filled (bpf_verifier_log_needed()) */
static void bpf_vlog_reset(struct bpf_verifier_log *log, u32 new_pos)
{
	char zero = 0;

	if (!log->level || !log->ubuf || bpf_verifier_log_full(log) || new_pos > log->len_used)
		return;
	log->len_used = new_pos;
	if (copy_to_user(log->ubuf + new_pos, &zero, 1))
		log->ubuf = NULL;
}

/* find_linfo(): the line_info record of the line insn_off is in (the last one starting at or
 * before it), NULL if the program has none */
static inline const struct bpf_line_info *find_linfo(const struct bpf_verifier_env *env, u32 insn_off)
{
	const struct bpf_prog *prog = env->prog;
	u32 i;

	if (!prog->nr_linfo || insn_off >= prog->len)
		return NULL;
	for (i = 1; i < prog->nr_linfo; i++)
		if (insn_off < prog->linfo[i].insn_off)
			break;
	return &prog->linfo[i - 1];
}

static inline bool linfo_isspace(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* verbose_linfo(): the source line of insn_off, after prefix, where it is not the line the log
 * showed last */
static noinline __attribute__((format(printf, 3, 4))) void verbose_linfo(struct bpf_verifier_env *env, u32 insn_off,
									  const char *prefix_fmt, ...)
{
	const struct bpf_line_info *linfo;
	const char *line;

	if (!bpf_verifier_log_needed(&env->log))
		return;
	linfo = find_linfo(env, insn_off);
	if (!linfo || linfo == env->prev_linfo)
		return;
	if (prefix_fmt) {
		__builtin_va_list args;

		__builtin_va_start(args, prefix_fmt);
		bpf_verifier_vlog(&env->log, prefix_fmt, args);
		__builtin_va_end(args);
	}
	line = btf_name_by_offset(env->prog->btf, linfo->line_off);
	while (linfo_isspace(*line))	/* ltrim() */
		line++;
	verbose(env, "%s\n", line);
	env->prev_linfo = linfo;
}

/* the name of vmlinux's type btf_id (kernel_type_name()) */
static const char *btf_struct_name(u32 btf_id)
{
	const struct btf_type *t = btf_vmlinux_type_by_id(btf_id);

	return (t ? btf_vmlinux_name_by_offset(t->name_off) : NULL) ?: "";
}

static noinline const char *reg_type_str(u32 type, char *buf)
{
	static const char *const str[] = {
		[NOT_INIT] = "?", [SCALAR_VALUE] = "scalar", [PTR_TO_CTX] = "ctx",
		[CONST_PTR_TO_MAP] = "map_ptr", [PTR_TO_MAP_VALUE] = "map_value",
		[PTR_TO_MAP_KEY] = "map_key", [PTR_TO_STACK] = "fp", [PTR_TO_BTF_ID] = "ptr_",
		[PTR_TO_MEM] = "mem", [PTR_TO_FUNC] = "func",
	};
	scnprintf(buf, 32, "%s%s%s", type & MEM_ALLOC ? "alloc_" : "", str[base_type(type)],
		  !(type & PTR_MAYBE_NULL) ? "" : base_type(type) == PTR_TO_BTF_ID ? "or_null_" : "_or_null");
	return buf;
}

static void mark_reg_scratched(struct bpf_verifier_env *env, u32 regno) { env->scratched_regs |= 1U << regno; }
static void mark_stack_slot_scratched(struct bpf_verifier_env *env, u32 spi) { env->scratched_stack_slots |= 1UL << spi; }

static void print_liveness(struct bpf_verifier_env *env, u8 live)
{
	if (live & (REG_LIVE_READ | REG_LIVE_WRITTEN | REG_LIVE_DONE))
		verbose(env, "_");
	if (live & REG_LIVE_READ)
		verbose(env, "r");
	if (live & REG_LIVE_WRITTEN)
		verbose(env, "w");
	if (live & REG_LIVE_DONE)
		verbose(env, "D");
}

static void print_reg(struct bpf_verifier_env *env, const struct bpf_reg_state *reg)
{
	u32 t = reg->type;
	char tb[32];

	if ((t == SCALAR_VALUE || t == PTR_TO_STACK) && tnum_is_const(reg->var_off)) {
		verbose(env, "%s%ld", t == SCALAR_VALUE ? "" : reg_type_str(t, tb), (s64)(reg->var_off.value + reg->off));
		return;
	}
	{
		const char *sep = "";
#define verbose_a(fmt, ...) ({ verbose(env, "%s" fmt, sep, __VA_ARGS__); sep = ","; })
		verbose(env, "%s", reg_type_str(t, tb));
		if (base_type(t) == PTR_TO_BTF_ID)
			verbose(env, "%s", btf_struct_name(reg->btf_id));
		verbose(env, "(");
		if (reg->id)
			verbose_a("id=%d", reg->id);
		if ((base_type(t) == PTR_TO_MEM || base_type(t) == PTR_TO_BTF_ID) && reg->ref_obj_id)
			verbose_a("ref_obj_id=%d", reg->ref_obj_id);
		if (t != SCALAR_VALUE)
			verbose_a("off=%d", reg->off);
		if (base_type(t) == CONST_PTR_TO_MAP || base_type(t) == PTR_TO_MAP_KEY || base_type(t) == PTR_TO_MAP_VALUE)
			verbose_a("ks=%d,vs=%d", reg->map_ptr->key_size, reg->map_ptr->value_size);
		if (tnum_is_const(reg->var_off)) {
			verbose_a("imm=%lx", reg->var_off.value);
		} else {
			if (reg->smin_value != (s64)reg->umin_value && reg->smin_value != S64_MIN)
				verbose_a("smin=%ld", reg->smin_value);
			if (reg->smax_value != (s64)reg->umax_value && reg->smax_value != S64_MAX)
				verbose_a("smax=%ld", reg->smax_value);
			if (reg->umin_value != 0)
				verbose_a("umin=%lu", reg->umin_value);
			if (reg->umax_value != U64_MAX)
				verbose_a("umax=%lu", reg->umax_value);
			if (!tnum_is_unknown(reg->var_off)) {
				char tn_buf[48];
				tnum_strn(tn_buf, sizeof(tn_buf), reg->var_off);
				verbose_a("var_off=%s", tn_buf);
			}
			if (reg->s32_min_value != reg->smin_value && reg->s32_min_value != S32_MIN)
				verbose_a("s32_min=%d", reg->s32_min_value);
			if (reg->s32_max_value != reg->smax_value && reg->s32_max_value != S32_MAX)
				verbose_a("s32_max=%d", reg->s32_max_value);
			if (reg->u32_min_value != reg->umin_value && reg->u32_min_value != 0)
				verbose_a("u32_min=%d", (int)reg->u32_min_value);
			if (reg->u32_max_value != reg->umax_value && reg->u32_max_value != U32_MAX)
				verbose_a("u32_max=%d", (int)reg->u32_max_value);
		}
#undef verbose_a
		verbose(env, ")");
	}
}

static const char slot_type_char[] = { [STACK_INVALID] = '?', [STACK_SPILL] = 'r', [STACK_MISC] = 'm', [STACK_ZERO] = '0' };

static void print_verifier_state(struct bpf_verifier_env *env, const struct bpf_func_state *state, bool print_all)
{
	const struct bpf_verifier_state *vstate = env->cur_state;	/* its references */
	int i, j;

	if (state->frameno)
		verbose(env, " frame%d:", state->frameno);
	for (i = 0; i < MAX_BPF_REG; i++) {
		const struct bpf_reg_state *reg = &state->regs[i];
		if (reg->type == NOT_INIT)
			continue;
		if (!print_all && !(env->scratched_regs & (1U << i)))
			continue;
		verbose(env, " R%d", i);
		print_liveness(env, reg->live);
		verbose(env, "=");
		print_reg(env, reg);
	}
	for (i = 0; i < (int)(state->allocated_stack / BPF_REG_SIZE); i++) {
		char types_buf[BPF_REG_SIZE + 1], tb[32];
		bool valid = false;

		for (j = 0; j < BPF_REG_SIZE; j++) {
			if (state->stack[i].slot_type[j] != STACK_INVALID)
				valid = true;
			types_buf[j] = slot_type_char[state->stack[i].slot_type[j]];
		}
		types_buf[BPF_REG_SIZE] = 0;
		if (!valid)
			continue;
		if (!print_all && !(env->scratched_stack_slots & (1UL << i)))
			continue;
		verbose(env, " fp%d", (-i - 1) * BPF_REG_SIZE);
		print_liveness(env, state->stack[i].spilled_ptr.live);
		if (state->stack[i].slot_type[BPF_REG_SIZE - 1] == STACK_SPILL) {
			const struct bpf_reg_state *reg = &state->stack[i].spilled_ptr;
			verbose(env, "=%s", reg->type == SCALAR_VALUE ? "" : reg_type_str(reg->type, tb));
			if (reg->type == SCALAR_VALUE && tnum_is_const(reg->var_off))
				verbose(env, "%ld", (s64)(reg->var_off.value + reg->off));
		} else {
			verbose(env, "=%s", types_buf);
		}
	}
	if (vstate->acquired_refs && vstate->refs[0].id) {
		verbose(env, " refs=%d", vstate->refs[0].id);
		for (i = 1; i < (int)vstate->acquired_refs; i++)
			if (vstate->refs[i].id)
				verbose(env, ",%d", vstate->refs[i].id);
	}
	if (state->in_callback_fn)
		verbose(env, " cb");
	verbose(env, "\n");
	if (!print_all) {
		env->scratched_regs = 0;
		env->scratched_stack_slots = 0;
	}
}

static u32 vlog_alignment(u32 pos)
{
	return ALIGN(max(pos + 8 / 2, 40U), 8) - pos - 1;
}

static void print_insn_state(struct bpf_verifier_env *env, const struct bpf_func_state *state)
{
	if (env->prev_log_len && env->prev_log_len == env->log.len_used) {
		u32 pad = vlog_alignment(env->prev_insn_print_len), i;
		char spaces[64];

		bpf_vlog_reset(&env->log, env->prev_log_len - 1);
		for (i = 0; i < pad && i < sizeof(spaces) - 2; i++)
			spaces[i] = ' ';
		spaces[i++] = ';';
		spaces[i] = 0;
		verbose(env, "%s", spaces);
	} else {
		verbose(env, "%d:", env->insn_idx);
	}
	print_verifier_state(env, state, false);
}

/* ---- register state ---- */
static void __mark_reg32_unbounded(struct bpf_reg_state *reg)
{
	reg->s32_min_value = S32_MIN;
	reg->s32_max_value = S32_MAX;
	reg->u32_min_value = 0;
	reg->u32_max_value = U32_MAX;
}

static void __mark_reg64_unbounded(struct bpf_reg_state *reg)
{
	reg->smin_value = S64_MIN;
	reg->smax_value = S64_MAX;
	reg->umin_value = 0;
	reg->umax_value = U64_MAX;
}

static void __mark_reg_unbounded(struct bpf_reg_state *reg)
{
	__mark_reg64_unbounded(reg);
	__mark_reg32_unbounded(reg);
}

static void ___mark_reg_known(struct bpf_reg_state *reg, u64 imm)
{
	reg->var_off = tnum_const(imm);
	reg->smin_value = (s64)imm;
	reg->smax_value = (s64)imm;
	reg->umin_value = imm;
	reg->umax_value = imm;
	reg->s32_min_value = (s32)imm;
	reg->s32_max_value = (s32)imm;
	reg->u32_min_value = (u32)imm;
	reg->u32_max_value = (u32)imm;
}

static noinline void __mark_reg_known(struct bpf_reg_state *reg, u64 imm)
{
	reg->off = 0;
	reg->id = 0;
	reg->btf_id = 0;
	reg->ref_obj_id = 0;
	___mark_reg_known(reg, imm);
}

static void __mark_reg32_known(struct bpf_reg_state *reg, u64 imm)
{
	reg->var_off = tnum_const_subreg(reg->var_off, imm);
	reg->s32_min_value = (s32)imm;
	reg->s32_max_value = (s32)imm;
	reg->u32_min_value = (u32)imm;
	reg->u32_max_value = (u32)imm;
}

static void __mark_reg_known_zero(struct bpf_reg_state *reg) { __mark_reg_known(reg, 0); }

static void __mark_reg_const_zero(struct bpf_reg_state *reg)
{
	__mark_reg_known(reg, 0);
	reg->type = SCALAR_VALUE;
}

static noinline void __mark_reg_unknown(struct bpf_reg_state *reg)
{
	u8 live = reg->live;

	memset(reg, 0, sizeof(*reg));
	reg->live = live;
	reg->type = SCALAR_VALUE;
	reg->var_off = tnum_unknown;
	__mark_reg_unbounded(reg);
}

static void __mark_reg_not_init(struct bpf_reg_state *reg)
{
	__mark_reg_unknown(reg);
	reg->type = NOT_INIT;
}

static void __update_reg32_bounds(struct bpf_reg_state *reg)
{
	struct tnum var32_off = tnum_subreg(reg->var_off);

	reg->s32_min_value = max(reg->s32_min_value, (s32)(var32_off.value | (var32_off.mask & (u32)S32_MIN)));
	reg->s32_max_value = min(reg->s32_max_value, (s32)(var32_off.value | (var32_off.mask & S32_MAX)));
	reg->u32_min_value = max(reg->u32_min_value, (u32)var32_off.value);
	reg->u32_max_value = min(reg->u32_max_value, (u32)(var32_off.value | var32_off.mask));
}

static void __update_reg64_bounds(struct bpf_reg_state *reg)
{
	reg->smin_value = max(reg->smin_value, (s64)(reg->var_off.value | (reg->var_off.mask & (u64)S64_MIN)));
	reg->smax_value = min(reg->smax_value, (s64)(reg->var_off.value | (reg->var_off.mask & S64_MAX)));
	reg->umin_value = max(reg->umin_value, reg->var_off.value);
	reg->umax_value = min(reg->umax_value, reg->var_off.value | reg->var_off.mask);
}

static void __update_reg_bounds(struct bpf_reg_state *reg)
{
	__update_reg32_bounds(reg);
	__update_reg64_bounds(reg);
}

static void __reg32_deduce_bounds(struct bpf_reg_state *reg)
{
	if (reg->s32_min_value >= 0 || reg->s32_max_value < 0) {
		reg->s32_min_value = reg->u32_min_value = max((u32)reg->s32_min_value, reg->u32_min_value);
		reg->s32_max_value = reg->u32_max_value = min((u32)reg->s32_max_value, reg->u32_max_value);
		return;
	}
	if ((s32)reg->u32_max_value >= 0) {
		reg->s32_min_value = reg->u32_min_value;
		reg->s32_max_value = reg->u32_max_value = min((u32)reg->s32_max_value, reg->u32_max_value);
	} else if ((s32)reg->u32_min_value < 0) {
		reg->s32_min_value = reg->u32_min_value = max((u32)reg->s32_min_value, reg->u32_min_value);
		reg->s32_max_value = reg->u32_max_value;
	}
}

static void __reg64_deduce_bounds(struct bpf_reg_state *reg)
{
	if (reg->smin_value >= 0 || reg->smax_value < 0) {
		reg->smin_value = reg->umin_value = max((u64)reg->smin_value, reg->umin_value);
		reg->smax_value = reg->umax_value = min((u64)reg->smax_value, reg->umax_value);
		return;
	}
	if ((s64)reg->umax_value >= 0) {
		reg->smin_value = reg->umin_value;
		reg->smax_value = reg->umax_value = min((u64)reg->smax_value, reg->umax_value);
	} else if ((s64)reg->umin_value < 0) {
		reg->smin_value = reg->umin_value = max((u64)reg->smin_value, reg->umin_value);
		reg->smax_value = reg->umax_value;
	}
}

static void __reg_bound_offset(struct bpf_reg_state *reg)
{
	struct tnum var64_off = tnum_intersect(reg->var_off, tnum_range(reg->umin_value, reg->umax_value));
	struct tnum var32_off = tnum_intersect(tnum_subreg(var64_off),
					       tnum_range(reg->u32_min_value, reg->u32_max_value));

	reg->var_off = tnum_or(tnum_clear_subreg(var64_off), var32_off);
}

static void reg_bounds_sync(struct bpf_reg_state *reg)
{
	__update_reg_bounds(reg);
	__reg32_deduce_bounds(reg);
	__reg64_deduce_bounds(reg);
	__reg_bound_offset(reg);
	__update_reg_bounds(reg);
}

static bool __reg32_bound_s64(s32 a) { return a >= 0 && a <= S32_MAX; }
static bool __reg64_bound_s32(s64 a) { return a >= S32_MIN && a <= S32_MAX; }
static bool __reg64_bound_u32(u64 a) { return a > 0 && a < U32_MAX; }

static void __reg_assign_32_into_64(struct bpf_reg_state *reg)
{
	reg->umin_value = reg->u32_min_value;
	reg->umax_value = reg->u32_max_value;
	if (__reg32_bound_s64(reg->s32_min_value) && __reg32_bound_s64(reg->s32_max_value)) {
		reg->smin_value = reg->s32_min_value;
		reg->smax_value = reg->s32_max_value;
	} else {
		reg->smin_value = 0;
		reg->smax_value = U32_MAX;
	}
}

static void __reg_combine_32_into_64(struct bpf_reg_state *reg)
{
	if (tnum_equals_const(tnum_clear_subreg(reg->var_off), 0))
		__reg_assign_32_into_64(reg);
	else
		__mark_reg64_unbounded(reg);
	reg_bounds_sync(reg);
}

static void __reg_combine_64_into_32(struct bpf_reg_state *reg)
{
	__mark_reg32_unbounded(reg);
	if (__reg64_bound_s32(reg->smin_value) && __reg64_bound_s32(reg->smax_value)) {
		reg->s32_min_value = (s32)reg->smin_value;
		reg->s32_max_value = (s32)reg->smax_value;
	}
	if (__reg64_bound_u32(reg->umin_value) && __reg64_bound_u32(reg->umax_value)) {
		reg->u32_min_value = (u32)reg->umin_value;
		reg->u32_max_value = (u32)reg->umax_value;
	}
	reg_bounds_sync(reg);
}

static void zext_32_to_64(struct bpf_reg_state *reg)
{
	reg->var_off = tnum_subreg(reg->var_off);
	__reg_assign_32_into_64(reg);
}

/* coerce_reg_to_size(): the value of a load of size bytes */
static void coerce_reg_to_size(struct bpf_reg_state *reg, int size)
{
	u64 mask = size == 8 ? U64_MAX : (1UL << (size * 8)) - 1;

	reg->var_off = tnum_cast(reg->var_off, size);
	if ((reg->umin_value & ~mask) == (reg->umax_value & ~mask)) {
		reg->umin_value &= mask;
		reg->umax_value &= mask;
	} else {
		reg->umin_value = 0;
		reg->umax_value = mask;
	}
	reg->smin_value = reg->umin_value;
	reg->smax_value = reg->umax_value;
	if (size >= 4)
		__reg_combine_64_into_32(reg);
	else {
		__mark_reg32_unbounded(reg);
		reg_bounds_sync(reg);
	}
}

static bool __is_scalar_unbounded(const struct bpf_reg_state *reg)
{
	return tnum_is_unknown(reg->var_off) && reg->smin_value == S64_MIN && reg->smax_value == S64_MAX &&
	       reg->umin_value == 0 && reg->umax_value == U64_MAX && reg->s32_min_value == S32_MIN &&
	       reg->s32_max_value == S32_MAX && reg->u32_min_value == 0 && reg->u32_max_value == U32_MAX;
}

static bool register_is_null(const struct bpf_reg_state *reg)
{
	return reg->type == SCALAR_VALUE && tnum_equals_const(reg->var_off, 0);
}

static bool register_is_const(const struct bpf_reg_state *reg)
{
	return reg->type == SCALAR_VALUE && tnum_is_const(reg->var_off);
}

static bool register_is_bounded(const struct bpf_reg_state *reg)
{
	return reg->type == SCALAR_VALUE && !__is_scalar_unbounded(reg);
}

static struct bpf_func_state *cur_func(struct bpf_verifier_env *env)
{
	return env->cur_state->frame[env->cur_state->curframe];
}
static struct bpf_reg_state *cur_regs(struct bpf_verifier_env *env) { return cur_func(env)->regs; }
/* func(): the frame whose stack a PTR_TO_STACK register points into */
static struct bpf_func_state *func(struct bpf_verifier_env *env, const struct bpf_reg_state *reg)
{
	return env->cur_state->frame[reg->frameno];
}

static bool is_pointer_value(struct bpf_verifier_env *env, int regno)
{
	return !env->allow_ptr_leaks && cur_regs(env)[regno].type != SCALAR_VALUE;
}

static noinline void mark_reg_unknown(struct bpf_verifier_env *env, struct bpf_reg_state *regs, u32 regno)
{
	__mark_reg_unknown(regs + regno);
}

static noinline void mark_reg_not_init(struct bpf_verifier_env *env, struct bpf_reg_state *regs, u32 regno)
{
	__mark_reg_not_init(regs + regno);
}

static noinline void mark_reg_known_zero(struct bpf_verifier_env *env, struct bpf_reg_state *regs, u32 regno)
{
	__mark_reg_known_zero(regs + regno);
}

static noinline void init_reg_state(struct bpf_verifier_env *env, struct bpf_func_state *state)
{
	struct bpf_reg_state *regs = state->regs;
	int i;

	for (i = 0; i < MAX_BPF_REG; i++) {
		mark_reg_not_init(env, regs, i);
		regs[i].live = REG_LIVE_NONE;
	}
	regs[BPF_REG_FP].type = PTR_TO_STACK;
	mark_reg_known_zero(env, regs, BPF_REG_FP);
	regs[BPF_REG_FP].type = PTR_TO_STACK;
	regs[BPF_REG_FP].frameno = state->frameno;
	regs[BPF_REG_1].type = PTR_TO_CTX;
	mark_reg_known_zero(env, regs, BPF_REG_1);
	regs[BPF_REG_1].type = PTR_TO_CTX;
}

static void init_func_state(struct bpf_verifier_env *env, struct bpf_func_state *state, int callsite, u32 frameno,
			    u32 subprogno)
{
	state->callsite = callsite;
	state->frameno = frameno;
	state->subprogno = subprogno;
	state->inst = frameno ? ++env->id_inst : 0;
	init_reg_state(env, state);
	/* every register is new: the first instruction's line shows them */
	env->scratched_regs = ~0U;
	env->scratched_stack_slots = ~0UL;
}

/* mark_reg_read(): a read of a register (idx >= 0) or a stack slot (idx = -1 - spi) of frame
 * frameno is a read in every checkpoint up the path until one where the path wrote it; mark_read
 * in the statistics is the longest such walk.  A checkpoint taken before the call that made the
 * frame had the callee's arguments R1-R5 in its caller's frame (6.1 links them by the registers'
 * parent pointers; here by the frame's call, inst). */
static struct bpf_reg_state *live_slot(struct bpf_func_state *st, int idx)
{
	return idx >= 0 ? &st->regs[idx] : &st->stack[-1 - idx].spilled_ptr;
}

static void mark_reg_read(struct bpf_verifier_env *env, u32 frameno, int idx)
{
	struct bpf_verifier_state *cur = env->cur_state, *pst = cur->parent;
	struct bpf_reg_state *state = live_slot(cur->frame[frameno], idx), *parent;
	u32 cnt = 0;

	while (pst) {
		if (state->live & REG_LIVE_WRITTEN)
			break;
		while (frameno > pst->curframe || pst->frame[frameno]->inst != cur->frame[frameno]->inst) {
			if (!frameno || idx < BPF_REG_1 || idx > BPF_REG_5)
				goto out;
			frameno--;
		}
		parent = live_slot(pst->frame[frameno], idx);
		if (parent->live & REG_LIVE_READ64)
			break;
		parent->live |= REG_LIVE_READ64;
		parent->live &= ~REG_LIVE_READ32;
		state = parent;
		pst = pst->parent;
		cnt++;
	}
out:
	if (env->longest_mark_read_walk < cnt)
		env->longest_mark_read_walk = cnt;
}

enum reg_arg_type { SRC_OP, DST_OP, DST_OP_NO_MARK };

static noinline int check_reg_arg(struct bpf_verifier_env *env, u32 regno, enum reg_arg_type t)
{
	struct bpf_reg_state *regs = cur_regs(env), *reg;

	if (regno >= MAX_BPF_REG) {
		verbose(env, "R%d is invalid\n", regno);
		return -EINVAL;
	}
	mark_reg_scratched(env, regno);
	reg = &regs[regno];
	if (t == SRC_OP) {
		if (reg->type == NOT_INIT) {
			verbose(env, "R%d !read_ok\n", regno);
			return -EACCES;
		}
		if (regno != BPF_REG_FP)
			mark_reg_read(env, env->cur_state->curframe, regno);
	} else {
		if (regno == BPF_REG_FP) {
			verbose(env, "frame pointer is read only\n");
			return -EACCES;
		}
		reg->live |= REG_LIVE_WRITTEN;
		if (t == DST_OP)
			mark_reg_unknown(env, regs, regno);
	}
	return 0;
}

/* ---- scalar arithmetic: each op on the 32-bit and the 64-bit bounds (6.1's rules) ---- */
#define SCALAR_OPS(SFX, S, U, SMIN, SMAX, UMAX_T, smin, smax, umin, umax, KNOWN, MARK_KNOWN, SUBREG) \
static bool signed_add##SFX##_overflows(S a, S b) { S res = (S)((U)a + (U)b); return b < 0 ? res > a : res < a; } \
static bool signed_sub##SFX##_overflows(S a, S b) { S res = (S)((U)a - (U)b); return b < 0 ? res < a : res > a; } \
static void scalar##SFX##_min_max_add(struct bpf_reg_state *dst, struct bpf_reg_state *src) \
{ \
	if (signed_add##SFX##_overflows(dst->smin, src->smin) || signed_add##SFX##_overflows(dst->smax, src->smax)) { \
		dst->smin = SMIN; dst->smax = SMAX; \
	} else { dst->smin += src->smin; dst->smax += src->smax; } \
	if ((U)(dst->umin + src->umin) < src->umin || (U)(dst->umax + src->umax) < src->umax) { \
		dst->umin = 0; dst->umax = UMAX_T; \
	} else { dst->umin += src->umin; dst->umax += src->umax; } \
} \
static void scalar##SFX##_min_max_sub(struct bpf_reg_state *dst, struct bpf_reg_state *src) \
{ \
	if (signed_sub##SFX##_overflows(dst->smin, src->smax) || signed_sub##SFX##_overflows(dst->smax, src->smin)) { \
		dst->smin = SMIN; dst->smax = SMAX; \
	} else { dst->smin -= src->smax; dst->smax -= src->smin; } \
	if (dst->umin < src->umax) { dst->umin = 0; dst->umax = UMAX_T; } \
	else { dst->umin -= src->umax; dst->umax -= src->umin; } \
} \
static void scalar##SFX##_min_max_mul(struct bpf_reg_state *dst, struct bpf_reg_state *src) \
{ \
	if (src->smin < 0 || dst->smin < 0 || src->umax > (UMAX_T >> (sizeof(U) * 4)) || \
	    dst->umax > (UMAX_T >> (sizeof(U) * 4))) { \
		dst->smin = SMIN; dst->smax = SMAX; dst->umin = 0; dst->umax = UMAX_T; return; \
	} \
	dst->umin *= src->umin; dst->umax *= src->umax; \
	if (dst->umax > (U)SMAX) { dst->smin = SMIN; dst->smax = SMAX; } \
	else { dst->smin = dst->umin; dst->smax = dst->umax; } \
} \
static void scalar##SFX##_min_max_and(struct bpf_reg_state *dst, struct bpf_reg_state *src) \
{ \
	struct tnum v = SUBREG(dst->var_off); \
	if (KNOWN(src->var_off) && KNOWN(dst->var_off)) { MARK_KNOWN(dst, v.value); return; } \
	dst->umin = v.value; dst->umax = min(dst->umax, src->umax); \
	if (dst->smin < 0 || src->smin < 0) { dst->smin = SMIN; dst->smax = SMAX; } \
	else { dst->smin = dst->umin; dst->smax = dst->umax; } \
} \
static void scalar##SFX##_min_max_or(struct bpf_reg_state *dst, struct bpf_reg_state *src) \
{ \
	struct tnum v = SUBREG(dst->var_off); \
	if (KNOWN(src->var_off) && KNOWN(dst->var_off)) { MARK_KNOWN(dst, v.value); return; } \
	dst->umin = max(dst->umin, src->umin); dst->umax = v.value | v.mask; \
	if (dst->smin < 0 || src->smin < 0) { dst->smin = SMIN; dst->smax = SMAX; } \
	else { dst->smin = dst->umin; dst->smax = dst->umax; } \
} \
static void scalar##SFX##_min_max_xor(struct bpf_reg_state *dst, struct bpf_reg_state *src) \
{ \
	struct tnum v = SUBREG(dst->var_off); \
	if (KNOWN(src->var_off) && KNOWN(dst->var_off)) { MARK_KNOWN(dst, v.value); return; } \
	dst->umin = v.value; dst->umax = v.value | v.mask; \
	if (dst->smin >= 0 && src->smin >= 0) { dst->smin = dst->umin; dst->smax = dst->umax; } \
	else { dst->smin = SMIN; dst->smax = SMAX; } \
}
#define SUBREG64(t) (t)
#define MARK64(r, v) __mark_reg_known(r, v)
#define MARK32(r, v) __mark_reg32_known(r, v)
SCALAR_OPS(, s64, u64, S64_MIN, S64_MAX, U64_MAX, smin_value, smax_value, umin_value, umax_value,
	   tnum_is_const, MARK64, SUBREG64)
SCALAR_OPS(32, s32, u32, S32_MIN, S32_MAX, U32_MAX, s32_min_value, s32_max_value, u32_min_value, u32_max_value,
	   tnum_subreg_is_const, MARK32, tnum_subreg)

static void __scalar32_min_max_lsh(struct bpf_reg_state *dst, u64 umin_val, u64 umax_val)
{
	dst->s32_min_value = S32_MIN;
	dst->s32_max_value = S32_MAX;
	if (umax_val > 31 || dst->u32_max_value > 1ULL << (31 - umax_val)) {
		dst->u32_min_value = 0;
		dst->u32_max_value = U32_MAX;
	} else {
		dst->u32_min_value <<= umin_val;
		dst->u32_max_value <<= umax_val;
	}
}

static void scalar32_min_max_lsh(struct bpf_reg_state *dst, struct bpf_reg_state *src)
{
	struct tnum subreg = tnum_subreg(dst->var_off);

	__scalar32_min_max_lsh(dst, src->u32_min_value, src->u32_max_value);
	dst->var_off = tnum_subreg(tnum_lshift(subreg, src->u32_min_value));
	__mark_reg64_unbounded(dst);
	__update_reg32_bounds(dst);
}

static void scalar_min_max_lsh(struct bpf_reg_state *dst, struct bpf_reg_state *src)
{
	u64 umin_val = src->umin_value, umax_val = src->umax_value;

	if (umin_val == 32 && umax_val == 32) {
		dst->smax_value = (s64)dst->s32_max_value << 32;
		dst->smin_value = (s64)dst->s32_min_value << 32;
	} else {
		dst->smax_value = S64_MAX;
		dst->smin_value = S64_MIN;
	}
	if (dst->umax_value > 1ULL << (63 - umax_val)) {
		dst->umin_value = 0;
		dst->umax_value = U64_MAX;
	} else {
		dst->umin_value <<= umin_val;
		dst->umax_value <<= umax_val;
	}
	__scalar32_min_max_lsh(dst, umin_val, umax_val);
	dst->var_off = tnum_lshift(dst->var_off, umin_val);
	__update_reg_bounds(dst);
}

static void scalar32_min_max_rsh(struct bpf_reg_state *dst, struct bpf_reg_state *src)
{
	struct tnum subreg = tnum_subreg(dst->var_off);

	dst->s32_min_value = S32_MIN;
	dst->s32_max_value = S32_MAX;
	dst->var_off = tnum_rshift(subreg, src->u32_min_value);
	dst->u32_min_value >>= src->u32_max_value;
	dst->u32_max_value >>= src->u32_min_value;
	__mark_reg64_unbounded(dst);
	__update_reg32_bounds(dst);
}

static void scalar_min_max_rsh(struct bpf_reg_state *dst, struct bpf_reg_state *src)
{
	dst->smin_value = S64_MIN;
	dst->smax_value = S64_MAX;
	dst->var_off = tnum_rshift(dst->var_off, src->umin_value);
	dst->umin_value >>= src->umax_value;
	dst->umax_value >>= src->umin_value;
	__mark_reg32_unbounded(dst);
	__update_reg_bounds(dst);
}

static void scalar32_min_max_arsh(struct bpf_reg_state *dst, struct bpf_reg_state *src)
{
	u64 umin_val = src->u32_min_value;

	dst->s32_min_value = (u32)(((s32)dst->s32_min_value) >> umin_val);
	dst->s32_max_value = (u32)(((s32)dst->s32_max_value) >> umin_val);
	dst->var_off = tnum_arshift(tnum_subreg(dst->var_off), umin_val, 32);
	dst->u32_min_value = 0;
	dst->u32_max_value = U32_MAX;
	__mark_reg64_unbounded(dst);
	__update_reg32_bounds(dst);
}

static void scalar_min_max_arsh(struct bpf_reg_state *dst, struct bpf_reg_state *src)
{
	u64 umin_val = src->umin_value;

	dst->smin_value >>= umin_val;
	dst->smax_value >>= umin_val;
	dst->var_off = tnum_arshift(dst->var_off, umin_val, 64);
	dst->umin_value = 0;
	dst->umax_value = U64_MAX;
	__mark_reg32_unbounded(dst);
	__update_reg_bounds(dst);
}

static int adjust_scalar_min_max_vals(struct bpf_verifier_env *env, struct bpf_insn *insn,
				      struct bpf_reg_state *dst, struct bpf_reg_state src)
{
	u8 opcode = BPF_OP(insn->code);
	u64 insn_bitness = BPF_CLASS(insn->code) == BPF_ALU64 ? 64 : 32;
	bool alu32 = BPF_CLASS(insn->code) != BPF_ALU64, src_known;

	if (alu32) {
		src_known = tnum_subreg_is_const(src.var_off);
		if ((src_known && (src.s32_min_value != src.s32_max_value || src.u32_min_value != src.u32_max_value)) ||
		    src.s32_min_value > src.s32_max_value || src.u32_min_value > src.u32_max_value) {
			__mark_reg_unknown(dst);
			return 0;
		}
	} else {
		src_known = tnum_is_const(src.var_off);
		if ((src_known && (src.smin_value != src.smax_value || src.umin_value != src.umax_value)) ||
		    src.smin_value > src.smax_value || src.umin_value > src.umax_value) {
			__mark_reg_unknown(dst);
			return 0;
		}
	}
	if (!src_known && opcode != BPF_ADD && opcode != BPF_SUB && opcode != BPF_AND) {
		__mark_reg_unknown(dst);
		return 0;
	}
	switch (opcode) {
	case BPF_ADD:
		scalar32_min_max_add(dst, &src);
		scalar_min_max_add(dst, &src);
		dst->var_off = tnum_add(dst->var_off, src.var_off);
		break;
	case BPF_SUB:
		scalar32_min_max_sub(dst, &src);
		scalar_min_max_sub(dst, &src);
		dst->var_off = tnum_sub(dst->var_off, src.var_off);
		break;
	case BPF_MUL:
		dst->var_off = tnum_mul(dst->var_off, src.var_off);
		scalar32_min_max_mul(dst, &src);
		scalar_min_max_mul(dst, &src);
		break;
	case BPF_AND:
		dst->var_off = tnum_and(dst->var_off, src.var_off);
		scalar32_min_max_and(dst, &src);
		scalar_min_max_and(dst, &src);
		__update_reg_bounds(dst);
		break;
	case BPF_OR:
		dst->var_off = tnum_or(dst->var_off, src.var_off);
		scalar32_min_max_or(dst, &src);
		scalar_min_max_or(dst, &src);
		__update_reg_bounds(dst);
		break;
	case BPF_XOR:
		dst->var_off = tnum_xor(dst->var_off, src.var_off);
		scalar32_min_max_xor(dst, &src);
		scalar_min_max_xor(dst, &src);
		__update_reg_bounds(dst);
		break;
	case BPF_LSH:
		if (src.umax_value >= insn_bitness) {
			__mark_reg_unknown(dst);
			break;
		}
		if (alu32)
			scalar32_min_max_lsh(dst, &src);
		else
			scalar_min_max_lsh(dst, &src);
		break;
	case BPF_RSH:
		if (src.umax_value >= insn_bitness) {
			__mark_reg_unknown(dst);
			break;
		}
		if (alu32)
			scalar32_min_max_rsh(dst, &src);
		else
			scalar_min_max_rsh(dst, &src);
		break;
	case BPF_ARSH:
		if (src.umax_value >= insn_bitness) {
			__mark_reg_unknown(dst);
			break;
		}
		if (alu32)
			scalar32_min_max_arsh(dst, &src);
		else
			scalar_min_max_arsh(dst, &src);
		break;
	default:
		__mark_reg_unknown(dst);
		break;
	}
	if (alu32)
		zext_32_to_64(dst);
	reg_bounds_sync(dst);
	return 0;
}

/* ---- pointer arithmetic ---- */
static const char *const alu_str[16] = {
	"+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=", "neg", "%=", "^=", "=", "s>>=", "endian",
};

static bool check_reg_sane_offset(struct bpf_verifier_env *env, const struct bpf_reg_state *reg, u32 type)
{
	bool known = tnum_is_const(reg->var_off);
	s64 val = reg->var_off.value, smin = reg->smin_value;
	char tb[32];

	if (known && (val >= BPF_MAX_VAR_OFF || val <= -BPF_MAX_VAR_OFF)) {
		verbose(env, "math between %s pointer and %ld is not allowed\n", reg_type_str(type, tb), val);
		return false;
	}
	if (reg->off >= BPF_MAX_VAR_OFF || reg->off <= -BPF_MAX_VAR_OFF) {
		verbose(env, "%s pointer offset %d is not allowed\n", reg_type_str(type, tb), reg->off);
		return false;
	}
	if (smin == S64_MIN) {
		verbose(env, "math between %s pointer and register with unbounded min value is not allowed\n",
			reg_type_str(type, tb));
		return false;
	}
	if (smin >= BPF_MAX_VAR_OFF || smin <= -BPF_MAX_VAR_OFF) {
		verbose(env, "value %ld makes %s pointer be out of bounds\n", smin, reg_type_str(type, tb));
		return false;
	}
	return true;
}

static int adjust_ptr_min_max_vals(struct bpf_verifier_env *env, struct bpf_insn *insn,
				   const struct bpf_reg_state *ptr_reg, const struct bpf_reg_state *off_reg)
{
	struct bpf_reg_state *regs = cur_regs(env), *dst_reg = &regs[insn->dst_reg];
	bool known = tnum_is_const(off_reg->var_off);
	s64 smin_val = off_reg->smin_value, smax_val = off_reg->smax_value;
	s64 smin_ptr = ptr_reg->smin_value, smax_ptr = ptr_reg->smax_value;
	u64 umin_val = off_reg->umin_value, umax_val = off_reg->umax_value;
	u64 umin_ptr = ptr_reg->umin_value, umax_ptr = ptr_reg->umax_value;
	u8 opcode = BPF_OP(insn->code);
	u32 dst = insn->dst_reg;
	struct bpf_reg_state ptr = *ptr_reg;
	char tb[32];

	if ((known && (smin_val != smax_val || umin_val != umax_val)) || smin_val > smax_val || umin_val > umax_val) {
		__mark_reg_unknown(dst_reg);
		return 0;
	}
	if (BPF_CLASS(insn->code) != BPF_ALU64) {
		if (opcode == BPF_SUB && env->allow_ptr_leaks) {
			__mark_reg_unknown(dst_reg);
			return 0;
		}
		verbose(env, "R%d 32-bit pointer arithmetic prohibited\n", dst);
		return -EACCES;
	}
	if (ptr.type & PTR_MAYBE_NULL) {
		verbose(env, "R%d pointer arithmetic on %s prohibited, null-check it first\n", dst, reg_type_str(ptr.type, tb));
		return -EACCES;
	}
	if (base_type(ptr.type) == CONST_PTR_TO_MAP && !(known && smin_val == 0 && opcode == BPF_ADD)) {
		verbose(env, "R%d pointer arithmetic on %s prohibited\n", dst, reg_type_str(ptr.type, tb));
		return -EACCES;
	}
	dst_reg->type = ptr.type;
	dst_reg->id = ptr.id;
	dst_reg->map_ptr = ptr.map_ptr;
	dst_reg->btf_id = ptr.btf_id;
	dst_reg->ref_obj_id = ptr.ref_obj_id;
	if (!check_reg_sane_offset(env, off_reg, ptr.type) || !check_reg_sane_offset(env, &ptr, ptr.type))
		return -EINVAL;
	__mark_reg32_unbounded(dst_reg);
	switch (opcode) {
	case BPF_ADD:
		if (known && (ptr.off + smin_val == (s64)(s32)(ptr.off + smin_val))) {
			dst_reg->smin_value = smin_ptr;
			dst_reg->smax_value = smax_ptr;
			dst_reg->umin_value = umin_ptr;
			dst_reg->umax_value = umax_ptr;
			dst_reg->var_off = ptr.var_off;
			dst_reg->off = ptr.off + smin_val;
			break;
		}
		if (signed_add_overflows(smin_ptr, smin_val) || signed_add_overflows(smax_ptr, smax_val)) {
			dst_reg->smin_value = S64_MIN;
			dst_reg->smax_value = S64_MAX;
		} else {
			dst_reg->smin_value = smin_ptr + smin_val;
			dst_reg->smax_value = smax_ptr + smax_val;
		}
		if (umin_ptr + umin_val < umin_ptr || umax_ptr + umax_val < umax_ptr) {
			dst_reg->umin_value = 0;
			dst_reg->umax_value = U64_MAX;
		} else {
			dst_reg->umin_value = umin_ptr + umin_val;
			dst_reg->umax_value = umax_ptr + umax_val;
		}
		dst_reg->var_off = tnum_add(ptr.var_off, off_reg->var_off);
		dst_reg->off = ptr.off;
		break;
	case BPF_SUB:
		if (dst_reg == off_reg) {
			verbose(env, "R%d tried to subtract pointer from scalar\n", dst);
			return -EACCES;
		}
		if (ptr.type == PTR_TO_STACK) {
			verbose(env, "R%d subtraction from stack pointer prohibited\n", dst);
			return -EACCES;
		}
		if (known && (ptr.off - smin_val == (s64)(s32)(ptr.off - smin_val))) {
			dst_reg->smin_value = smin_ptr;
			dst_reg->smax_value = smax_ptr;
			dst_reg->umin_value = umin_ptr;
			dst_reg->umax_value = umax_ptr;
			dst_reg->var_off = ptr.var_off;
			dst_reg->off = ptr.off - smin_val;
			break;
		}
		if (signed_sub_overflows(smin_ptr, smax_val) || signed_sub_overflows(smax_ptr, smin_val)) {
			dst_reg->smin_value = S64_MIN;
			dst_reg->smax_value = S64_MAX;
		} else {
			dst_reg->smin_value = smin_ptr - smax_val;
			dst_reg->smax_value = smax_ptr - smin_val;
		}
		if (umin_ptr < umax_val) {
			dst_reg->umin_value = 0;
			dst_reg->umax_value = U64_MAX;
		} else {
			dst_reg->umin_value = umin_ptr - umax_val;
			dst_reg->umax_value = umax_ptr - umin_val;
		}
		dst_reg->var_off = tnum_sub(ptr.var_off, off_reg->var_off);
		dst_reg->off = ptr.off;
		break;
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		verbose(env, "R%d bitwise operator %s on pointer prohibited\n", dst, alu_str[opcode >> 4]);
		return -EACCES;
	default:
		verbose(env, "R%d pointer arithmetic with %s operator prohibited\n", dst, alu_str[opcode >> 4]);
		return -EACCES;
	}
	if (!check_reg_sane_offset(env, dst_reg, ptr.type))
		return -EINVAL;
	reg_bounds_sync(dst_reg);
	return 0;
}

static noinline int adjust_reg_min_max_vals(struct bpf_verifier_env *env, struct bpf_insn *insn)
{
	struct bpf_reg_state *regs = cur_regs(env), *dst_reg = &regs[insn->dst_reg], *src_reg, off_reg;
	const struct bpf_reg_state *ptr_reg = NULL;
	u8 opcode = BPF_OP(insn->code);

	if (dst_reg->type != SCALAR_VALUE)
		ptr_reg = dst_reg;
	else
		dst_reg->id = 0;
	if (BPF_SRC(insn->code) == BPF_X) {
		src_reg = &regs[insn->src_reg];
		if (src_reg->type != SCALAR_VALUE) {
			if (dst_reg->type != SCALAR_VALUE) {
				if (opcode == BPF_SUB && env->allow_ptr_leaks) {
					mark_reg_unknown(env, regs, insn->dst_reg);
					return 0;
				}
				verbose(env, "R%d pointer %s pointer prohibited\n", insn->dst_reg, alu_str[opcode >> 4]);
				return -EACCES;
			}
			off_reg = *dst_reg;
			return adjust_ptr_min_max_vals(env, insn, src_reg, &off_reg);
		} else if (ptr_reg) {
			off_reg = *src_reg;
			return adjust_ptr_min_max_vals(env, insn, ptr_reg, &off_reg);
		}
	} else {
		memset(&off_reg, 0, sizeof(off_reg));
		off_reg.type = SCALAR_VALUE;
		__mark_reg_known(&off_reg, insn->imm);
		src_reg = &off_reg;
		if (ptr_reg)
			return adjust_ptr_min_max_vals(env, insn, ptr_reg, src_reg);
	}
	return adjust_scalar_min_max_vals(env, insn, dst_reg, *src_reg);
}

static int check_alu_op(struct bpf_verifier_env *env, struct bpf_insn *insn)
{
	struct bpf_reg_state *regs = cur_regs(env);
	u8 opcode = BPF_OP(insn->code);
	int err;

	if (opcode == BPF_END || opcode == BPF_NEG) {
		if (opcode == BPF_NEG) {
			if (BPF_SRC(insn->code) != BPF_K || insn->src_reg != BPF_REG_0 || insn->off != 0 || insn->imm != 0) {
				verbose(env, "BPF_NEG uses reserved fields\n");
				return -EINVAL;
			}
		} else if (insn->src_reg != BPF_REG_0 || insn->off != 0 ||
			   (insn->imm != 16 && insn->imm != 32 && insn->imm != 64) || BPF_CLASS(insn->code) == BPF_ALU64) {
			verbose(env, "BPF_END uses reserved fields\n");
			return -EINVAL;
		}
		err = check_reg_arg(env, insn->dst_reg, SRC_OP);
		if (err)
			return err;
		if (is_pointer_value(env, insn->dst_reg)) {
			verbose(env, "R%d pointer arithmetic prohibited\n", insn->dst_reg);
			return -EACCES;
		}
		return check_reg_arg(env, insn->dst_reg, DST_OP);
	} else if (opcode == BPF_MOV) {
		if (BPF_SRC(insn->code) == BPF_X) {
			if (insn->imm != 0 || insn->off != 0) {
				verbose(env, "BPF_MOV uses reserved fields\n");
				return -EINVAL;
			}
			err = check_reg_arg(env, insn->src_reg, SRC_OP);
			if (err)
				return err;
		} else if (insn->src_reg != BPF_REG_0 || insn->off != 0) {
			verbose(env, "BPF_MOV uses reserved fields\n");
			return -EINVAL;
		}
		err = check_reg_arg(env, insn->dst_reg, DST_OP_NO_MARK);
		if (err)
			return err;
		if (BPF_SRC(insn->code) == BPF_X) {
			struct bpf_reg_state *src_reg = regs + insn->src_reg, *dst_reg = regs + insn->dst_reg;
			if (BPF_CLASS(insn->code) == BPF_ALU64) {
				if (src_reg->type == SCALAR_VALUE && !src_reg->id)
					src_reg->id = ++env->id_gen;
				*dst_reg = *src_reg;
				dst_reg->live |= REG_LIVE_WRITTEN;
			} else {
				if (is_pointer_value(env, insn->src_reg)) {
					verbose(env, "R%d partial copy of pointer\n", insn->src_reg);
					return -EACCES;
				} else if (src_reg->type == SCALAR_VALUE) {
					*dst_reg = *src_reg;
					dst_reg->id = 0;
					dst_reg->live |= REG_LIVE_WRITTEN;
				} else {
					mark_reg_unknown(env, regs, insn->dst_reg);
				}
				zext_32_to_64(dst_reg);
				reg_bounds_sync(dst_reg);
			}
		} else {
			mark_reg_unknown(env, regs, insn->dst_reg);
			regs[insn->dst_reg].type = SCALAR_VALUE;
			if (BPF_CLASS(insn->code) == BPF_ALU64)
				__mark_reg_known(regs + insn->dst_reg, (u64)(s64)insn->imm);
			else
				__mark_reg_known(regs + insn->dst_reg, (u32)insn->imm);
		}
		return 0;
	} else if (opcode > BPF_END) {
		verbose(env, "invalid BPF_ALU opcode %x\n", opcode);
		return -EINVAL;
	}
	if (BPF_SRC(insn->code) == BPF_X) {
		if (insn->imm != 0 || insn->off != 0) {
			verbose(env, "BPF_ALU uses reserved fields\n");
			return -EINVAL;
		}
		err = check_reg_arg(env, insn->src_reg, SRC_OP);
		if (err)
			return err;
	} else if (insn->src_reg != BPF_REG_0 || insn->off != 0) {
		verbose(env, "BPF_ALU uses reserved fields\n");
		return -EINVAL;
	}
	err = check_reg_arg(env, insn->dst_reg, SRC_OP);
	if (err)
		return err;
	if ((opcode == BPF_MOD || opcode == BPF_DIV) && BPF_SRC(insn->code) == BPF_K && insn->imm == 0) {
		verbose(env, "div by zero\n");
		return -EINVAL;
	}
	if ((opcode == BPF_LSH || opcode == BPF_RSH || opcode == BPF_ARSH) && BPF_SRC(insn->code) == BPF_K) {
		int size = BPF_CLASS(insn->code) == BPF_ALU64 ? 64 : 32;
		if (insn->imm < 0 || insn->imm >= size) {
			verbose(env, "invalid shift %d\n", insn->imm);
			return -EINVAL;
		}
	}
	err = check_reg_arg(env, insn->dst_reg, DST_OP_NO_MARK);
	if (err)
		return err;
	return adjust_reg_min_max_vals(env, insn);
}

/* ---- memory: stack, map values, context ---- */
enum bpf_access_src { ACCESS_DIRECT = 1, ACCESS_HELPER = 2 };

static void grow_stack_state(struct bpf_func_state *state, int size)
{
	if (size > (int)state->allocated_stack)
		state->allocated_stack = size;
}

/* update_stack_depth(): the most stack the function of the frame uses */
static void update_stack_depth(struct bpf_verifier_env *env, const struct bpf_func_state *state, int off)
{
	struct bpf_subprog_info *sub = &env->subprog_info[state->subprogno];

	if ((u32)-off > sub->stack_depth)
		sub->stack_depth = -off;
}

static int check_stack_access_within_bounds(struct bpf_verifier_env *env, int regno, int off, int access_size,
					    enum bpf_access_src src, enum bpf_access_type type)
{
	struct bpf_reg_state *reg = cur_regs(env) + regno;
	struct bpf_func_state *state = func(env, reg);
	const char *err_extra = src == ACCESS_HELPER ? " indirect access to" : type == BPF_READ ? " read from" : " write to";
	s64 min_off, max_off, min_valid_off;
	int err = 0;

	if (tnum_is_const(reg->var_off)) {
		min_off = (s64)reg->var_off.value + off;
		max_off = min_off + access_size;
	} else {
		if (reg->smax_value >= BPF_MAX_VAR_OFF || reg->smin_value <= -BPF_MAX_VAR_OFF) {
			verbose(env, "invalid unbounded variable-offset%s stack R%d\n", err_extra, regno);
			return -EACCES;
		}
		min_off = reg->smin_value + off;
		max_off = reg->smax_value + off + access_size;
	}
	min_valid_off = type == BPF_WRITE || env->allow_uninit_stack ? -MAX_BPF_STACK : -(s64)state->allocated_stack;
	if (min_off < min_valid_off || min_off > -1)
		err = -EACCES;
	if (!err && max_off > 0)
		err = -EINVAL;
	if (!err && access_size < 0)
		err = -EFAULT;
	if (err) {
		if (tnum_is_const(reg->var_off)) {
			verbose(env, "invalid%s stack R%d off=%d size=%d\n", err_extra, regno, off, access_size);
		} else {
			char tn_buf[48];
			tnum_strn(tn_buf, sizeof(tn_buf), reg->var_off);
			verbose(env, "invalid variable-offset%s stack R%d var_off=%s size=%d\n", err_extra, regno,
				tn_buf, access_size);
		}
		return err;
	}
	grow_stack_state(state, ALIGN(-min_off, BPF_REG_SIZE));
	return 0;
}

static bool is_spilled_reg(const struct bpf_stack_state *stack)
{
	return stack->slot_type[BPF_REG_SIZE - 1] == STACK_SPILL;
}

static noinline void save_register_state(struct bpf_func_state *state, int spi, struct bpf_reg_state *reg)
{
	int i;

	state->stack[spi].spilled_ptr = *reg;
	state->stack[spi].spilled_ptr.live |= REG_LIVE_WRITTEN;
	for (i = 0; i < BPF_REG_SIZE; i++)
		state->stack[spi].slot_type[i] = STACK_SPILL;
}

static notrace int check_stack_write(struct bpf_verifier_env *env, int ptr_regno, int off, int size, int value_regno,
			     const struct bpf_insn *insn)
{
	struct bpf_reg_state *ptr = cur_regs(env) + ptr_regno, *reg = NULL;
	struct bpf_func_state *state = func(env, ptr);
	int i, spi;

	if (value_regno >= 0)
		reg = cur_regs(env) + value_regno;
	if (!tnum_is_const(ptr->var_off)) {
		/* variable offset: every byte it may hit becomes unknown data */
		s64 min_off = ptr->smin_value + off, max_off = ptr->smax_value + off + size;
		bool zero = (reg && register_is_null(reg)) || (!reg && BPF_CLASS(insn->code) == BPF_ST && insn->imm == 0);
		for (i = min_off; i < max_off; i++) {
			int slot = -i - 1;
			spi = slot / BPF_REG_SIZE;
			if (is_spilled_reg(&state->stack[spi])) {
				int j;
				for (j = 0; j < BPF_REG_SIZE; j++)
					state->stack[spi].slot_type[j] = STACK_MISC;
				state->stack[spi].spilled_ptr.type = NOT_INIT;
			}
			if (!(zero && state->stack[spi].slot_type[slot % BPF_REG_SIZE] == STACK_ZERO))
				state->stack[spi].slot_type[slot % BPF_REG_SIZE] = STACK_MISC;
			mark_stack_slot_scratched(env, spi);
		}
		update_stack_depth(env, state, min_off);
		return 0;
	}
	off += ptr->var_off.value;
	{
		int slot = -off - 1;
		spi = slot / BPF_REG_SIZE;
		update_stack_depth(env, state, off);
		mark_stack_slot_scratched(env, spi);
		if (reg && !(off % BPF_REG_SIZE) && size == BPF_REG_SIZE && register_is_bounded(reg) &&
		    !register_is_null(reg) && env->bpf_capable) {
			save_register_state(state, spi, reg);
		} else if (!reg && !(off % BPF_REG_SIZE) && size == BPF_REG_SIZE && BPF_CLASS(insn->code) == BPF_ST &&
			   insn->imm != 0 && env->bpf_capable) {
			/* a constant stored: known when read back, as a spilled register's */
			struct bpf_reg_state fake_reg = {};

			__mark_reg_known(&fake_reg, (s64)insn->imm);
			fake_reg.type = SCALAR_VALUE;
			save_register_state(state, spi, &fake_reg);
		} else if (reg && reg->type != SCALAR_VALUE) {
			if (size != BPF_REG_SIZE) {
				verbose_linfo(env, env->insn_idx, "; ");
				verbose(env, "invalid size of register spill\n");
				return -EACCES;
			}
			if (state != cur_func(env) && reg->type == PTR_TO_STACK) {
				verbose(env, "cannot spill pointers to stack into stack frame of the caller\n");
				return -EINVAL;
			}
			save_register_state(state, spi, reg);
		} else {
			u8 type = STACK_MISC;

			state->stack[spi].spilled_ptr.type = NOT_INIT;
			if (is_spilled_reg(&state->stack[spi]))
				for (i = 0; i < BPF_REG_SIZE; i++)
					state->stack[spi].slot_type[i] = STACK_MISC;
			if (size == BPF_REG_SIZE)
				state->stack[spi].spilled_ptr.live |= REG_LIVE_WRITTEN;
			if ((reg && register_is_null(reg)) || (!reg && BPF_CLASS(insn->code) == BPF_ST && insn->imm == 0))
				type = STACK_ZERO;
			for (i = 0; i < size; i++)
				state->stack[spi].slot_type[(slot - i) % BPF_REG_SIZE] = type;
		}
	}
	return 0;
}

static int check_stack_read(struct bpf_verifier_env *env, int ptr_regno, int off, int size, int dst_regno)
{
	struct bpf_reg_state *ptr = cur_regs(env) + ptr_regno, *regs = cur_regs(env);
	struct bpf_func_state *state = func(env, ptr);
	int i, slot, spi, zeros = 0;

	if (!tnum_is_const(ptr->var_off)) {
		if (dst_regno >= 0)
			mark_reg_unknown(env, regs, dst_regno);
		return 0;
	}
	off += ptr->var_off.value;
	slot = -off - 1;
	spi = slot / BPF_REG_SIZE;
	mark_reg_read(env, state->frameno, -1 - spi);
	if (is_spilled_reg(&state->stack[spi])) {
		struct bpf_reg_state *reg = &state->stack[spi].spilled_ptr;
		if (size != BPF_REG_SIZE) {
			if (reg->type != SCALAR_VALUE) {
				verbose(env, "invalid size of register fill\n");
				return -EACCES;
			}
			if (dst_regno >= 0) {
				mark_reg_unknown(env, regs, dst_regno);
				regs[dst_regno].live |= REG_LIVE_WRITTEN;
			}
			return 0;
		}
		if (dst_regno >= 0) {
			regs[dst_regno] = *reg;
			regs[dst_regno].live |= REG_LIVE_WRITTEN;
		}
		return 0;
	}
	for (i = 0; i < size; i++) {
		u8 type = state->stack[spi].slot_type[(slot - i) % BPF_REG_SIZE];
		if (type == STACK_MISC)
			continue;
		if (type == STACK_ZERO) {
			zeros++;
			continue;
		}
		if (type == STACK_INVALID && env->allow_uninit_stack)
			continue;
		verbose(env, "invalid read from stack off %d+%d size %d\n", off, i, size);
		return -EACCES;
	}
	if (dst_regno >= 0) {
		if (zeros == size)
			__mark_reg_const_zero(&regs[dst_regno]);
		else
			mark_reg_unknown(env, regs, dst_regno);
		regs[dst_regno].live |= REG_LIVE_WRITTEN;
	}
	return 0;
}

static int __check_mem_access(struct bpf_verifier_env *env, int regno, int off, int size, u32 mem_size,
			      bool zero_size_allowed)
{
	bool size_ok = size > 0 || (size == 0 && zero_size_allowed);
	struct bpf_reg_state *reg = &cur_regs(env)[regno];

	if (off >= 0 && size_ok && (u64)off + size <= mem_size)
		return 0;
	if (base_type(reg->type) == PTR_TO_MAP_KEY)
		verbose(env, "invalid access to map key, key_size=%d off=%d size=%d\n", mem_size, off, size);
	else if (base_type(reg->type) == PTR_TO_MAP_VALUE)
		verbose(env, "invalid access to map value, value_size=%d off=%d size=%d\n", mem_size, off, size);
	else
		verbose(env, "invalid access to memory, mem_size=%u off=%d size=%d\n", mem_size, off, size);
	return -EACCES;
}

static int check_mem_region_access(struct bpf_verifier_env *env, u32 regno, int off, int size, u32 mem_size,
				   bool zero_size_allowed)
{
	struct bpf_reg_state *reg = &cur_regs(env)[regno];
	int err;

	if (reg->smin_value < 0 && (reg->smin_value == S64_MIN || (off + reg->smin_value != (s64)(s32)(off + reg->smin_value)) ||
				    reg->smin_value + off < 0)) {
		verbose(env, "R%d min value is negative, either use unsigned index or do a if (index >=0) check.\n", regno);
		return -EACCES;
	}
	err = __check_mem_access(env, regno, reg->smin_value + off, size, mem_size, zero_size_allowed);
	if (err) {
		verbose(env, "R%d min value is outside of the allowed memory range\n", regno);
		return err;
	}
	if (reg->umax_value >= BPF_MAX_VAR_OFF) {
		verbose(env, "R%d unbounded memory access, make sure to bounds check any such access\n", regno);
		return -EACCES;
	}
	err = __check_mem_access(env, regno, reg->umax_value + off, size, mem_size, zero_size_allowed);
	if (err) {
		verbose(env, "R%d max value is outside of the allowed memory range\n", regno);
		return err;
	}
	return 0;
}

static noinline int check_map_access(struct bpf_verifier_env *env, u32 regno, int off, int size, bool zero_size_allowed)
{
	struct bpf_reg_state *reg = &cur_regs(env)[regno];

	return check_mem_region_access(env, regno, off, size, reg->map_ptr->value_size, zero_size_allowed);
}

/* *reg_type: what the load gives (a scalar, or PTR_TO_BTF_ID of *btf_id: a tracing program's
 * pointer argument) */
static int check_ctx_access(struct bpf_verifier_env *env, int insn_idx, int off, int size, enum bpf_access_type t,
			    u32 *reg_type, u32 *btf_id)
{
	struct bpf_insn_access_aux info = { .reg_type = SCALAR_VALUE, .log = &env->log };

	if (env->prog->ops->is_valid_access && env->prog->ops->is_valid_access(off, size, t, env->prog, &info)) {
		*reg_type = info.reg_type;
		if (base_type(info.reg_type) == PTR_TO_BTF_ID)
			*btf_id = info.btf_id;
		else
			env->insn_aux_data[insn_idx].ctx_field_size = info.ctx_field_size;
		if ((u32)(off + size) > env->max_ctx_offset)
			env->max_ctx_offset = off + size;
		return 0;
	}
	verbose(env, "invalid bpf_context access off=%d size=%d\n", off, size);
	return -EACCES;
}

static int check_ptr_off_reg(struct bpf_verifier_env *env, const struct bpf_reg_state *reg, int regno)
{
	char tb[32];

	if (reg->off < 0) {
		verbose(env, "negative offset %s ptr R%d off=%d disallowed\n", reg_type_str(reg->type, tb), regno, reg->off);
		return -EACCES;
	}
	if (reg->off) {
		verbose(env, "dereference of modified %s ptr R%d off=%d disallowed\n", reg_type_str(reg->type, tb),
			regno, reg->off);
		return -EACCES;
	}
	if (!tnum_is_const(reg->var_off) || reg->var_off.value) {
		char tn_buf[48];
		tnum_strn(tn_buf, sizeof(tn_buf), reg->var_off);
		verbose(env, "variable %s access var_off=%s disallowed\n", reg_type_str(reg->type, tb), tn_buf);
		return -EACCES;
	}
	return 0;
}

/* check_ptr_alignment(): stack accesses always aligned, as the spill tracking needs; any other
 * one only when strict (an atomic's, strict_alignment_once: x86 has efficient unaligned access
 * otherwise); a byte always is */
static noinline int check_ptr_alignment(struct bpf_verifier_env *env, const struct bpf_reg_state *reg, int off, int size,
					bool strict_alignment_once)
{
	bool strict = env->strict_alignment || strict_alignment_once;
	const char *pointer_desc = "";
	struct tnum reg_off;

	switch (reg->type) {
	case PTR_TO_MAP_KEY:
		pointer_desc = "key ";
		break;
	case PTR_TO_MAP_VALUE:
		pointer_desc = "value ";
		break;
	case PTR_TO_CTX:
		pointer_desc = "context ";
		break;
	case PTR_TO_STACK:
		pointer_desc = "stack ";
		strict = true;
		break;
	default:
		break;
	}
	/* check_generic_ptr_alignment() */
	if (!strict || size == 1)
		return 0;
	reg_off = tnum_add(reg->var_off, tnum_const(reg->off + off));
	if (!tnum_is_const(tnum_and(reg_off, tnum_const(size - 1))) || (reg_off.value & (size - 1))) {
		char tn_buf[48];
		tnum_strn(tn_buf, sizeof(tn_buf), reg->var_off);
		verbose(env, "misaligned %saccess off %s+%d+%d size %d\n", pointer_desc, tn_buf, reg->off, off, size);
		return -EACCES;
	}
	return 0;
}

/* a load gives a scalar, or PTR_TO_BTF_ID of btf_id (mark_btf_ld_reg()) */
static void mark_btf_ld_reg(struct bpf_verifier_env *env, struct bpf_reg_state *regs, u32 regno, u32 reg_type,
			    u32 btf_id)
{
	if (reg_type == SCALAR_VALUE) {
		mark_reg_unknown(env, regs, regno);
		return;
	}
	mark_reg_known_zero(env, regs, regno);
	regs[regno].type = reg_type;
	regs[regno].btf_id = btf_id;
	if (reg_type & PTR_MAYBE_NULL)	/* (an iterator's object: its null check marks each copy) */
		regs[regno].id = ++env->id_gen;
}

/*
 * check_ptr_to_btf_access(): a load through a pointer to a kernel struct, at a constant offset,
 * reads a member of the struct (btf_struct_access): a scalar, or PTR_TO_BTF_ID again for a
 * pointer to a struct; it is made fault-safe (BPF_PROBE_MEM) after the checks.  A tracing
 * program may not write through it.
 */
static int check_ptr_to_btf_access(struct bpf_verifier_env *env, struct bpf_reg_state *regs, int regno, int off,
				   int size, enum bpf_access_type atype, int value_regno)
{
	struct bpf_reg_state *reg = regs + regno;
	const struct btf_type *t = btf_vmlinux_type_by_id(reg->btf_id);
	const char *tname = btf_struct_name(reg->btf_id);
	u32 btf_id = 0;
	int ret;

	if (off < 0) {
		verbose(env, "R%d is ptr_%s invalid negative access: off=%d\n", regno, tname, off);
		return -EACCES;
	}
	if (!tnum_is_const(reg->var_off) || reg->var_off.value) {
		char tn_buf[48];

		tnum_strn(tn_buf, sizeof(tn_buf), reg->var_off);
		verbose(env, "R%d is ptr_%s invalid variable offset: off=%d, var_off=%s\n", regno, tname, off, tn_buf);
		return -EACCES;
	}
	if (atype != BPF_READ) {
		verbose(env, "only read is supported\n");
		return -EACCES;
	}
	ret = btf_struct_access(&env->log, t, off, size, &btf_id);
	if (ret < 0)
		return ret;
	if (value_regno >= 0)
		mark_btf_ld_reg(env, regs, value_regno, ret, btf_id);
	return 0;
}

static int bpf_size_to_bytes(int bpf_size)
{
	return bpf_size == BPF_B ? 1 : bpf_size == BPF_H ? 2 : bpf_size == BPF_W ? 4 : 8;
}

/* bpf_map_is_rdonly(): neither the program nor, frozen, the syscall side writes the map (6.1:
 * nor a writable mmap of it, which this kernel does not count) */
static bool bpf_map_is_rdonly(const struct bpf_map *map)
{
	return (map->map_flags & BPF_F_RDONLY_PROG) && READ_ONCE(map->frozen);
}

/* bpf_map_direct_read(): the value's bytes at off, as the load of size reads them */
static int bpf_map_direct_read(struct bpf_map *map, int off, int size, u64 *val)
{
	u64 addr;
	void *ptr;
	int err;

	err = map->ops->map_direct_value_addr(map, &addr, off);
	if (err)
		return err;
	ptr = (void *)(long)addr + off;
	switch (size) {
	case sizeof(u8):
		*val = *(u8 *)ptr;
		break;
	case sizeof(u16):
		*val = *(u16 *)ptr;
		break;
	case sizeof(u32):
		*val = *(u32 *)ptr;
		break;
	case sizeof(u64):
		*val = *(u64 *)ptr;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int check_mem_access(struct bpf_verifier_env *env, int insn_idx, u32 regno, int off, int bpf_size,
			    enum bpf_access_type t, int value_regno, const struct bpf_insn *insn)
{
	struct bpf_reg_state *regs = cur_regs(env), *reg = regs + regno;
	int size = bpf_size_to_bytes(bpf_size), err;
	u32 reg_type = SCALAR_VALUE, btf_id = 0;
	char tb[32];

	/* an atomic's access strict, as check_atomic()'s strict_alignment_once */
	err = check_ptr_alignment(env, reg, off, size, BPF_CLASS(insn->code) == BPF_STX && BPF_MODE(insn->code) == BPF_ATOMIC);
	if (err)
		return err;
	off += reg->off;
	if (reg->type == PTR_TO_MAP_VALUE) {
		if (t == BPF_WRITE && (reg->map_ptr->map_flags & BPF_F_RDONLY_PROG)) {
			verbose(env, "write into map forbidden, value_size=%d off=%d size=%d\n",
				reg->map_ptr->value_size, off, size);
			return -EACCES;
		}
		if (t == BPF_READ && (reg->map_ptr->map_flags & BPF_F_WRONLY_PROG)) {
			verbose(env, "read from map forbidden, value_size=%d off=%d size=%d\n",
				reg->map_ptr->value_size, off, size);
			return -EACCES;
		}
		err = check_map_access(env, regno, off, size, false);
		if (!err && t == BPF_READ && value_regno >= 0) {
			struct bpf_map *map = reg->map_ptr;
			u64 val;

			/* a frozen map the program may not write: what it reads there is known */
			if (tnum_is_const(reg->var_off) && bpf_map_is_rdonly(map) && map->ops->map_direct_value_addr) {
				err = bpf_map_direct_read(map, off + reg->var_off.value, size, &val);
				if (err)
					return err;
				regs[value_regno].type = SCALAR_VALUE;
				__mark_reg_known(&regs[value_regno], val);
			} else {
				mark_reg_unknown(env, regs, value_regno);
			}
		}
	} else if (reg->type == PTR_TO_MAP_KEY) {	/* a bpf_for_each_map_elem callback's key */
		if (t == BPF_WRITE) {
			verbose(env, "write to change key R%d not allowed\n", regno);
			return -EACCES;
		}
		err = check_mem_region_access(env, regno, off, size, reg->map_ptr->key_size, false);
		if (err)
			return err;
		if (value_regno >= 0)
			mark_reg_unknown(env, regs, value_regno);
	} else if (reg->type == PTR_TO_CTX) {
		if (t == BPF_WRITE && value_regno >= 0 && is_pointer_value(env, value_regno)) {
			verbose(env, "R%d leaks addr into ctx\n", value_regno);
			return -EACCES;
		}
		err = check_ptr_off_reg(env, reg, regno);
		if (err < 0)
			return err;
		err = check_ctx_access(env, insn_idx, off, size, t, &reg_type, &btf_id);
		if (err)
			verbose_linfo(env, insn_idx, "; ");
		if (!err && t == BPF_READ && value_regno >= 0)
			mark_btf_ld_reg(env, regs, value_regno, reg_type, btf_id);
	} else if (reg->type == PTR_TO_STACK) {
		err = check_stack_access_within_bounds(env, regno, off, size, ACCESS_DIRECT, t);
		if (err)
			return err;
		if (t == BPF_READ)
			err = check_stack_read(env, regno, off, size, value_regno);
		else
			err = check_stack_write(env, regno, off, size, value_regno, insn);
	} else if (reg->type == PTR_TO_BTF_ID) {
		err = check_ptr_to_btf_access(env, regs, regno, off, size, t, value_regno);
	} else if (base_type(reg->type) == PTR_TO_MEM && !(reg->type & PTR_MAYBE_NULL)) {
		if (t == BPF_WRITE && value_regno >= 0 && is_pointer_value(env, value_regno)) {
			verbose(env, "R%d leaks addr into mem\n", value_regno);
			return -EACCES;
		}
		err = check_mem_region_access(env, regno, off, size, reg->mem_size, false);
		if (!err && value_regno >= 0 && t == BPF_READ)
			mark_reg_unknown(env, regs, value_regno);
	} else {
		verbose(env, "R%d invalid mem access '%s'\n", regno, reg_type_str(reg->type, tb));
		return -EACCES;
	}
	if (!err && size < BPF_REG_SIZE && value_regno >= 0 && t == BPF_READ && regs[value_regno].type == SCALAR_VALUE)
		coerce_reg_to_size(&regs[value_regno], size);
	return err;
}

static noinline int check_atomic(struct bpf_verifier_env *env, int insn_idx, struct bpf_insn *insn)
{
	int load_reg, err;
	char tb[32];

	switch (insn->imm) {
	case BPF_ADD: case BPF_ADD | BPF_FETCH:
	case BPF_AND: case BPF_AND | BPF_FETCH:
	case BPF_OR: case BPF_OR | BPF_FETCH:
	case BPF_XOR: case BPF_XOR | BPF_FETCH:
	case BPF_XCHG:
	case BPF_CMPXCHG:
		break;
	default:
		verbose(env, "BPF_ATOMIC uses invalid atomic opcode %02x\n", insn->imm);
		return -EINVAL;
	}
	if (BPF_SIZE(insn->code) != BPF_W && BPF_SIZE(insn->code) != BPF_DW) {
		verbose(env, "invalid atomic operand size\n");
		return -EINVAL;
	}
	err = check_reg_arg(env, insn->src_reg, SRC_OP);
	if (err)
		return err;
	err = check_reg_arg(env, insn->dst_reg, SRC_OP);
	if (err)
		return err;
	if (insn->imm == BPF_CMPXCHG) {
		err = check_reg_arg(env, BPF_REG_0, SRC_OP);
		if (err)
			return err;
		if (is_pointer_value(env, BPF_REG_0)) {
			verbose(env, "R%d leaks addr into mem\n", BPF_REG_0);
			return -EACCES;
		}
	}
	if (is_pointer_value(env, insn->src_reg)) {
		verbose(env, "R%d leaks addr into mem\n", insn->src_reg);
		return -EACCES;
	}
	if (cur_regs(env)[insn->dst_reg].type == PTR_TO_CTX) {
		verbose(env, "BPF_ATOMIC stores into R%d %s is not allowed\n", insn->dst_reg,
			reg_type_str(cur_regs(env)[insn->dst_reg].type, tb));
		return -EACCES;
	}
	if (insn->imm & BPF_FETCH)
		load_reg = insn->imm == BPF_CMPXCHG ? BPF_REG_0 : insn->src_reg;
	else
		load_reg = -1;
	/* a read of the old value, then a write */
	err = check_mem_access(env, insn_idx, insn->dst_reg, insn->off, BPF_SIZE(insn->code), BPF_READ, load_reg, insn);
	if (!err && load_reg >= 0)
		cur_regs(env)[load_reg].live |= REG_LIVE_WRITTEN;
	if (err)
		return err;
	return check_mem_access(env, insn_idx, insn->dst_reg, insn->off, BPF_SIZE(insn->code), BPF_WRITE, -1, insn);
}

/* ---- states: the exploration stack and the checkpoints ---- */
/* resize_reference_state(): room for n references (6.1's realloc_array: a new array, the old
 * references copied; -ENOMEM when there is no memory, the only limit) */
static notrace int resize_reference_state(struct bpf_verifier_state *state, u32 n)
{
	struct bpf_reference_state *refs;

	if (n <= state->acquired_refs)
		return 0;
	refs = kzalloc((u64)n * sizeof(*refs), GFP_KERNEL);
	if (!refs)
		return -ENOMEM;
	if (state->acquired_refs)
		memcpy(refs, state->refs, state->acquired_refs * sizeof(*refs));
	kfree(state->refs);
	state->refs = refs;
	return 0;
}

/* free_verifier_state(): a state's own frames and references (the state itself is its owner's) */
static noinline void free_verifier_state(struct bpf_verifier_state *st)
{
	u32 i;

	for (i = 0; i < MAX_CALL_FRAMES; i++) {
		kfree(st->frame[i]);
		st->frame[i] = NULL;
	}
	kfree(st->refs);
	st->refs = NULL;
	st->acquired_refs = 0;
}

/* copy_verifier_state(): dst (owning nothing) a copy of src with frames and references of its
 * own (a state copied at a branch or a checkpoint); on failure dst owns nothing still */
static noinline int copy_verifier_state(struct bpf_verifier_state *dst, const struct bpf_verifier_state *src)
{
	u32 i;

	*dst = *src;
	for (i = 0; i < MAX_CALL_FRAMES; i++)
		dst->frame[i] = NULL;
	dst->refs = NULL;
	if (src->acquired_refs) {
		dst->refs = kmalloc(src->acquired_refs * sizeof(*dst->refs), GFP_KERNEL);
		if (!dst->refs)
			goto nomem;
		memcpy(dst->refs, src->refs, src->acquired_refs * sizeof(*dst->refs));
	}
	for (i = 0; i <= src->curframe; i++) {
		dst->frame[i] = kmalloc(sizeof(*dst->frame[i]), GFP_KERNEL);
		if (!dst->frame[i])
			goto nomem;
		memcpy(dst->frame[i], src->frame[i], sizeof(*dst->frame[i]));
	}
	return 0;
nomem:
	free_verifier_state(dst);
	return -ENOMEM;
}

static noinline struct bpf_verifier_state *push_stack(struct bpf_verifier_env *env, int insn_idx, int prev_insn_idx)
{
	struct bpf_verifier_stack_elem *elem = kmalloc(sizeof(*elem), GFP_KERNEL);

	if (!elem)
		return NULL;
	elem->insn_idx = insn_idx;
	elem->prev_insn_idx = prev_insn_idx;
	elem->next = env->head;
	elem->log_pos = env->log.len_used;
	env->head = elem;
	env->stack_size++;
	if (copy_verifier_state(&elem->st, env->cur_state))
		return NULL;	/* (popped by free_stack(): nothing to free) */
	if (env->stack_size > BPF_COMPLEXITY_LIMIT_JMP_SEQ) {
		verbose(env, "The sequence of %d jumps is too complex.\n", env->stack_size);
		return NULL;
	}
	if (elem->st.parent)
		++elem->st.parent->branches;
	return &elem->st;
}

static noinline int pop_stack(struct bpf_verifier_env *env, int *prev_insn_idx, int *insn_idx, bool pop_log)
{
	struct bpf_verifier_stack_elem *elem = env->head;

	if (!elem)
		return -ENOENT;
	free_verifier_state(env->cur_state);	/* the popped state's own frames instead */
	*env->cur_state = elem->st;
	if (pop_log)
		bpf_vlog_reset(&env->log, elem->log_pos);
	if (insn_idx)
		*insn_idx = elem->insn_idx;
	if (prev_insn_idx)
		*prev_insn_idx = elem->prev_insn_idx;
	env->head = elem->next;
	kfree(elem);
	env->stack_size--;
	return 0;
}

static void free_stack(struct bpf_verifier_env *env)
{
	while (pop_stack(env, NULL, NULL, false) == 0)
		;
}

static void update_branch_counts(struct bpf_verifier_env *env, struct bpf_verifier_state *st)
{
	while (st) {
		u32 br = --st->branches;
		if (br)
			break;
		st = st->parent;
	}
}

/* an explored state's scalar covers the current one's: its range and known bits */
static bool range_within(const struct bpf_reg_state *old, const struct bpf_reg_state *cur)
{
	return old->umin_value <= cur->umin_value && old->umax_value >= cur->umax_value &&
	       old->smin_value <= cur->smin_value && old->smax_value >= cur->smax_value &&
	       old->u32_min_value <= cur->u32_min_value && old->u32_max_value >= cur->u32_max_value &&
	       old->s32_min_value <= cur->s32_min_value && old->s32_max_value >= cur->s32_max_value;
}

static bool regsafe(const struct bpf_reg_state *rold, const struct bpf_reg_state *rcur)
{
	if (rold->type == NOT_INIT)
		return true;
	if (rcur->type == NOT_INIT)
		return false;
	if (rold->type == SCALAR_VALUE) {
		if (rcur->type != SCALAR_VALUE)
			return false;
		return range_within(rold, rcur) && tnum_in(rold->var_off, rcur->var_off);
	}
	if (rold->type != rcur->type || rold->off != rcur->off || rold->map_ptr != rcur->map_ptr ||
	    rold->btf_id != rcur->btf_id || rold->ref_obj_id != rcur->ref_obj_id)
		return false;
	if ((rold->type & PTR_MAYBE_NULL) && rold->id != rcur->id)
		return false;
	return range_within(rold, rcur) && tnum_in(rold->var_off, rcur->var_off);
}

static bool stacksafe(struct bpf_verifier_env *env, const struct bpf_func_state *old,
		      const struct bpf_func_state *cur)
{
	u32 i;

	for (i = 0; i < old->allocated_stack; i++) {
		u32 spi = i / BPF_REG_SIZE, k = i % BPF_REG_SIZE;
		u8 o = old->stack[spi].slot_type[k];
		u8 c = i < cur->allocated_stack ? cur->stack[spi].slot_type[k] : STACK_INVALID;

		if (o == STACK_INVALID && env->allow_uninit_stack && c != STACK_SPILL)
			continue;
		if (o == STACK_MISC && (c == STACK_ZERO || c == STACK_MISC || (c == STACK_INVALID && env->allow_uninit_stack)))
			continue;
		if (o != c)
			return false;
		if (k == BPF_REG_SIZE - 1 && o == STACK_SPILL &&
		    !regsafe(&old->stack[spi].spilled_ptr, &cur->stack[spi].spilled_ptr))
			return false;
	}
	return true;
}

static bool func_states_equal(struct bpf_verifier_env *env, const struct bpf_func_state *old,
			      const struct bpf_func_state *cur)
{
	int i;

	for (i = 0; i < MAX_BPF_REG; i++)
		if (!regsafe(&old->regs[i], &cur->regs[i]))
			return false;
	return stacksafe(env, old, cur);
}

/* states_equal(): the same call chain (each frame called from the same place), every frame's
 * registers and stack covered, the same references held */
static bool states_equal(struct bpf_verifier_env *env, const struct bpf_verifier_state *old,
			 const struct bpf_verifier_state *cur)
{
	u32 i;

	if (old->curframe != cur->curframe)
		return false;
	if (old->acquired_refs != cur->acquired_refs ||
	    memcmp(old->refs, cur->refs, sizeof(old->refs[0]) * old->acquired_refs))
		return false;
	for (i = 0; i <= old->curframe; i++) {
		if (old->frame[i]->callsite != cur->frame[i]->callsite)
			return false;
		if (!func_states_equal(env, old->frame[i], cur->frame[i]))
			return false;
	}
	return true;
}

/* states_maybe_looping(): the current frame's registers exactly the same */
static bool states_maybe_looping(const struct bpf_verifier_state *old, const struct bpf_verifier_state *cur)
{
	int i;

	if (old->curframe != cur->curframe)
		return false;
	for (i = 0; i < MAX_BPF_REG; i++) {
		const struct bpf_reg_state *a = &old->frame[old->curframe]->regs[i], *b = &cur->frame[cur->curframe]->regs[i];
		if (a->type != b->type || a->off != b->off || a->id != b->id || a->map_ptr != b->map_ptr || a->btf_id != b->btf_id ||
		    a->var_off.value != b->var_off.value || a->var_off.mask != b->var_off.mask ||
		    a->smin_value != b->smin_value || a->smax_value != b->smax_value ||
		    a->umin_value != b->umin_value || a->umax_value != b->umax_value ||
		    a->s32_min_value != b->s32_min_value || a->s32_max_value != b->s32_max_value ||
		    a->u32_min_value != b->u32_min_value || a->u32_max_value != b->u32_max_value)
			return false;
	}
	return true;
}

/* explored_state(): the list an instruction's checkpoints are in, shared as 6.1's hash of the
 * instruction and the frame's call site shares it (its statistics count the list's) */
static struct bpf_verifier_state_list **explored_state(struct bpf_verifier_env *env, int idx)
{
	struct bpf_verifier_state *cur = env->cur_state;

	return &env->explored_states[((u32)idx ^ (u32)cur->frame[cur->curframe]->callsite) % env->prog->len];
}

static int is_state_visited(struct bpf_verifier_env *env, int insn_idx)
{
	struct bpf_verifier_state_list *new_sl, *sl, **pprev;
	struct bpf_verifier_state *cur = env->cur_state;
	bool add_new_state = env->test_state_freq;
	int i, states_cnt = 0;
	u32 j;

	if (!env->insn_aux_data[insn_idx].prune_point)
		return 0;
	if (env->jmps_processed - env->prev_jmps_processed >= 2 &&
	    env->insn_processed - env->prev_insn_processed >= 8)
		add_new_state = true;
	pprev = explored_state(env, insn_idx);
	sl = *pprev;
	while (sl) {
		states_cnt++;
		if (sl->state.insn_idx != (u32)insn_idx)
			goto next;
		if (sl->state.branches) {
			if (states_maybe_looping(&sl->state, cur) && states_equal(env, &sl->state, cur)) {
				verbose_linfo(env, insn_idx, "; ");
				verbose(env, "infinite loop detected at insn %d\n", insn_idx);
				return -EINVAL;
			}
			if (env->jmps_processed - env->prev_jmps_processed < 20 &&
			    env->insn_processed - env->prev_insn_processed < 100)
				add_new_state = false;
			goto miss;
		}
		if (states_equal(env, &sl->state, cur)) {
			sl->hit_cnt++;
			return 1;
		}
miss:
		if (add_new_state)
			sl->miss_cnt++;
		if (sl->miss_cnt > sl->hit_cnt * 3 + 3) {
			/* unlikely to prune anything: dropped (kept until the end, a parent still) */
			*pprev = sl->next;
			sl->next = env->free_list;
			env->free_list = sl;
			sl = *pprev;
			continue;
		}
next:
		pprev = &sl->next;
		sl = *pprev;
	}
	if ((u32)states_cnt > env->max_states_per_insn)
		env->max_states_per_insn = states_cnt;
	if (!add_new_state)
		return 0;
	new_sl = kzalloc(sizeof(*new_sl), GFP_KERNEL);
	if (!new_sl)
		return -ENOMEM;
	env->total_states++;
	env->peak_states++;
	env->prev_jmps_processed = env->jmps_processed;
	env->prev_insn_processed = env->insn_processed;
	if (copy_verifier_state(&new_sl->state, cur)) {
		kfree(new_sl);
		return -ENOMEM;
	}
	new_sl->state.insn_idx = insn_idx;
	pprev = explored_state(env, insn_idx);
	new_sl->next = *pprev;
	*pprev = new_sl;
	cur->parent = &new_sl->state;
	/* writes from here on are not writes from the checkpoint's point of view */
	for (j = 0; j <= cur->curframe; j++) {
		for (i = 0; i < MAX_BPF_REG; i++)
			cur->frame[j]->regs[i].live = REG_LIVE_NONE;
		for (i = 0; i < MAX_BPF_STACK_SLOTS; i++)
			cur->frame[j]->stack[i].spilled_ptr.live = REG_LIVE_NONE;
	}
	return 0;
}

/* ---- conditional jumps: which way, and what each way tells ---- */
/* reg_type_not_null(): pointers 6.1 knows are never NULL when compared with 0 (the socket
 * pointers but for these there are none here); a stack or context pointer compared with 0 is
 * followed both ways, as 6.1 does */
static bool reg_type_not_null(u32 type)
{
	return type == PTR_TO_MAP_VALUE || type == PTR_TO_MAP_KEY;
}

/* is_branch32_taken() / is_branch64_taken(): 1 taken, 0 not, -1 either, from the bounds */
#define IS_BRANCH_TAKEN(SFX, U, S, OFF, umin, umax, smin, smax) \
static int is_branch##SFX##_taken(struct bpf_reg_state *reg, U val, u8 opcode) \
{ \
	struct tnum t = OFF; \
	S sval = (S)val; \
\
	switch (opcode) { \
	case BPF_JEQ: \
		if (tnum_is_const(t)) \
			return !!tnum_equals_const(t, val); \
		break; \
	case BPF_JNE: \
		if (tnum_is_const(t)) \
			return !tnum_equals_const(t, val); \
		break; \
	case BPF_JSET: \
		if ((~t.mask & t.value) & val) \
			return 1; \
		if (!((t.mask | t.value) & val)) \
			return 0; \
		break; \
	case BPF_JGT: return reg->umin > val ? 1 : reg->umax <= val ? 0 : -1; \
	case BPF_JSGT: return reg->smin > sval ? 1 : reg->smax <= sval ? 0 : -1; \
	case BPF_JLT: return reg->umax < val ? 1 : reg->umin >= val ? 0 : -1; \
	case BPF_JSLT: return reg->smax < sval ? 1 : reg->smin >= sval ? 0 : -1; \
	case BPF_JGE: return reg->umin >= val ? 1 : reg->umax < val ? 0 : -1; \
	case BPF_JSGE: return reg->smin >= sval ? 1 : reg->smax < sval ? 0 : -1; \
	case BPF_JLE: return reg->umax <= val ? 1 : reg->umin > val ? 0 : -1; \
	case BPF_JSLE: return reg->smax <= sval ? 1 : reg->smin > sval ? 0 : -1; \
	} \
	return -1; \
}
IS_BRANCH_TAKEN(32, u32, s32, tnum_subreg(reg->var_off), u32_min_value, u32_max_value, s32_min_value, s32_max_value)
IS_BRANCH_TAKEN(64, u64, s64, reg->var_off, umin_value, umax_value, smin_value, smax_value)

static int is_branch_taken(struct bpf_reg_state *reg, u64 val, u8 opcode, bool is_jmp32)
{
	if (reg->type != SCALAR_VALUE) {
		if (!reg_type_not_null(reg->type) || val != 0)
			return -1;
		return opcode == BPF_JEQ ? 0 : opcode == BPF_JNE ? 1 : -1;
	}
	if (is_jmp32)
		return is_branch32_taken(reg, val, opcode);
	return is_branch64_taken(reg, val, opcode);
}

/* What the comparison of a register with val teaches each way (true: the jump is taken). */
static void reg_set_min_max(struct bpf_reg_state *true_reg, struct bpf_reg_state *false_reg, u64 val, u32 val32,
			    u8 opcode, bool is_jmp32)
{
	struct tnum false_32off = tnum_subreg(false_reg->var_off), false_64off = false_reg->var_off;
	struct tnum true_32off = tnum_subreg(true_reg->var_off), true_64off = true_reg->var_off;
	s64 sval = (s64)val;
	s32 sval32 = (s32)val32;

	if (false_reg->type != SCALAR_VALUE)
		return;
	switch (opcode) {
	case BPF_JEQ:
	case BPF_JNE: {
		/* the register is val one way; its copies (same id) stay copies */
		struct bpf_reg_state *reg = opcode == BPF_JEQ ? true_reg : false_reg;
		struct tnum *off32 = opcode == BPF_JEQ ? &true_32off : &false_32off;
		struct tnum *off64 = opcode == BPF_JEQ ? &true_64off : &false_64off;
		if (is_jmp32) {
			__mark_reg32_known(reg, val32);
			*off32 = tnum_subreg(reg->var_off);
		} else {
			___mark_reg_known(reg, val);
			*off64 = reg->var_off;
		}
		break;
	}
	case BPF_JSET:
		if (is_jmp32) {
			false_32off = tnum_and(false_32off, tnum_const(~val32));
			if (!(val32 & (val32 - 1)))
				true_32off = tnum_or(true_32off, tnum_const(val32));
		} else {
			false_64off = tnum_and(false_64off, tnum_const(~val));
			if (!(val & (val - 1)))
				true_64off = tnum_or(true_64off, tnum_const(val));
		}
		break;
	case BPF_JGE:
	case BPF_JGT:
		if (is_jmp32) {
			u32 false_umax = opcode == BPF_JGT ? val32 : val32 - 1;
			u32 true_umin = opcode == BPF_JGT ? val32 + 1 : val32;
			false_reg->u32_max_value = min(false_reg->u32_max_value, false_umax);
			true_reg->u32_min_value = max(true_reg->u32_min_value, true_umin);
		} else {
			u64 false_umax = opcode == BPF_JGT ? val : val - 1;
			u64 true_umin = opcode == BPF_JGT ? val + 1 : val;
			false_reg->umax_value = min(false_reg->umax_value, false_umax);
			true_reg->umin_value = max(true_reg->umin_value, true_umin);
		}
		break;
	case BPF_JSGE:
	case BPF_JSGT:
		if (is_jmp32) {
			s32 false_smax = opcode == BPF_JSGT ? sval32 : sval32 - 1;
			s32 true_smin = opcode == BPF_JSGT ? sval32 + 1 : sval32;
			false_reg->s32_max_value = min(false_reg->s32_max_value, false_smax);
			true_reg->s32_min_value = max(true_reg->s32_min_value, true_smin);
		} else {
			s64 false_smax = opcode == BPF_JSGT ? sval : sval - 1;
			s64 true_smin = opcode == BPF_JSGT ? sval + 1 : sval;
			false_reg->smax_value = min(false_reg->smax_value, false_smax);
			true_reg->smin_value = max(true_reg->smin_value, true_smin);
		}
		break;
	case BPF_JLE:
	case BPF_JLT:
		if (is_jmp32) {
			u32 false_umin = opcode == BPF_JLT ? val32 : val32 + 1;
			u32 true_umax = opcode == BPF_JLT ? val32 - 1 : val32;
			false_reg->u32_min_value = max(false_reg->u32_min_value, false_umin);
			true_reg->u32_max_value = min(true_reg->u32_max_value, true_umax);
		} else {
			u64 false_umin = opcode == BPF_JLT ? val : val + 1;
			u64 true_umax = opcode == BPF_JLT ? val - 1 : val;
			false_reg->umin_value = max(false_reg->umin_value, false_umin);
			true_reg->umax_value = min(true_reg->umax_value, true_umax);
		}
		break;
	case BPF_JSLE:
	case BPF_JSLT:
		if (is_jmp32) {
			s32 false_smin = opcode == BPF_JSLT ? sval32 : sval32 + 1;
			s32 true_smax = opcode == BPF_JSLT ? sval32 - 1 : sval32;
			false_reg->s32_min_value = max(false_reg->s32_min_value, false_smin);
			true_reg->s32_max_value = min(true_reg->s32_max_value, true_smax);
		} else {
			s64 false_smin = opcode == BPF_JSLT ? sval : sval + 1;
			s64 true_smax = opcode == BPF_JSLT ? sval - 1 : sval;
			false_reg->smin_value = max(false_reg->smin_value, false_smin);
			true_reg->smax_value = min(true_reg->smax_value, true_smax);
		}
		break;
	default:
		return;
	}
	if (is_jmp32) {
		false_reg->var_off = tnum_or(tnum_clear_subreg(false_64off), tnum_subreg(false_32off));
		true_reg->var_off = tnum_or(tnum_clear_subreg(true_64off), tnum_subreg(true_32off));
		__reg_combine_32_into_64(false_reg);
		__reg_combine_32_into_64(true_reg);
	} else {
		false_reg->var_off = false_64off;
		true_reg->var_off = true_64off;
		__reg_combine_64_into_32(false_reg);
		__reg_combine_64_into_32(true_reg);
	}
}

static u8 flip_opcode(u32 opcode)
{
	static const u8 opcode_flip[16] = {
		[BPF_JEQ >> 4] = BPF_JEQ, [BPF_JNE >> 4] = BPF_JNE, [BPF_JSET >> 4] = BPF_JSET,
		[BPF_JGE >> 4] = BPF_JLE, [BPF_JGT >> 4] = BPF_JLT, [BPF_JLE >> 4] = BPF_JGE,
		[BPF_JLT >> 4] = BPF_JGT, [BPF_JSGE >> 4] = BPF_JSLE, [BPF_JSGT >> 4] = BPF_JSLT,
		[BPF_JSLE >> 4] = BPF_JSGE, [BPF_JSLT >> 4] = BPF_JSGT,
	};
	return opcode_flip[opcode >> 4];
}

static void reg_set_min_max_inv(struct bpf_reg_state *true_reg, struct bpf_reg_state *false_reg, u64 val,
				u32 val32, u8 opcode, bool is_jmp32)
{
	opcode = flip_opcode(opcode);
	if (opcode)
		reg_set_min_max(true_reg, false_reg, val, val32, opcode, is_jmp32);
}

static void __reg_combine_min_max(struct bpf_reg_state *src_reg, struct bpf_reg_state *dst_reg)
{
	src_reg->umin_value = dst_reg->umin_value = max(src_reg->umin_value, dst_reg->umin_value);
	src_reg->umax_value = dst_reg->umax_value = min(src_reg->umax_value, dst_reg->umax_value);
	src_reg->smin_value = dst_reg->smin_value = max(src_reg->smin_value, dst_reg->smin_value);
	src_reg->smax_value = dst_reg->smax_value = min(src_reg->smax_value, dst_reg->smax_value);
	src_reg->var_off = dst_reg->var_off = tnum_intersect(src_reg->var_off, dst_reg->var_off);
	reg_bounds_sync(src_reg);
	reg_bounds_sync(dst_reg);
}

static void reg_combine_min_max(struct bpf_reg_state *true_src, struct bpf_reg_state *true_dst,
				struct bpf_reg_state *false_src, struct bpf_reg_state *false_dst, u8 opcode)
{
	if (opcode == BPF_JEQ)
		__reg_combine_min_max(true_src, true_dst);
	else if (opcode == BPF_JNE)
		__reg_combine_min_max(false_src, false_dst);
}

/* every frame's registers and spilled registers are where a copy of a register may be (6.1's
 * bpf_for_each_reg_in_vstate) */
#define for_each_reg_in_vstate(vstate, reg, body)						\
	do {											\
		u32 __f; int __i;								\
		for (__f = 0; __f <= (vstate)->curframe; __f++) {				\
			struct bpf_func_state *__st = (vstate)->frame[__f];			\
			for (__i = 0; __i < MAX_BPF_REG; __i++) {				\
				reg = &__st->regs[__i];						\
				body;								\
			}									\
			for (__i = 0; __i < MAX_BPF_STACK_SLOTS; __i++) {			\
				if (!is_spilled_reg(&__st->stack[__i]))				\
					continue;						\
				reg = &__st->stack[__i].spilled_ptr;				\
				body;								\
			}									\
		}										\
	} while (0)

static void find_equal_scalars(struct bpf_verifier_state *vstate, struct bpf_reg_state *known_reg)
{
	struct bpf_reg_state *reg;

	for_each_reg_in_vstate(vstate, reg, ({
		if (reg->type == SCALAR_VALUE && reg->id == known_reg->id)
			*reg = *known_reg;
	}));
}

/* after "if rX == 0": a maybe-null pointer (and every copy of it) is null one way, valid the other */
static void mark_ptr_or_null_reg(struct bpf_reg_state *reg, u32 id, bool is_null)
{
	if (!(reg->type & PTR_MAYBE_NULL) || reg->id != id)
		return;
	if (is_null) {
		reg->type = SCALAR_VALUE;
		__mark_reg_known_zero(reg);
	} else {
		reg->type &= ~PTR_MAYBE_NULL;
		reg->id = 0;	/* (ref_obj_id stays, until release_reference()) */
	}
}

static int release_reference_state(struct bpf_verifier_state *state, int ptr_id);

static void mark_ptr_or_null_regs(struct bpf_verifier_state *vstate, u32 regno, bool is_null)
{
	struct bpf_reg_state *regs = vstate->frame[vstate->curframe]->regs, *reg;
	u32 id = regs[regno].id, ref_obj_id = regs[regno].ref_obj_id;

	if (ref_obj_id && ref_obj_id == id && is_null)	/* NULL: nothing was acquired */
		release_reference_state(vstate, id);

	for_each_reg_in_vstate(vstate, reg, mark_ptr_or_null_reg(reg, id, is_null));
}

static noinline int check_cond_jmp_op(struct bpf_verifier_env *env, struct bpf_insn *insn, int *insn_idx)
{
	struct bpf_verifier_state *this_branch = env->cur_state, *other_branch;
	struct bpf_reg_state *regs = cur_regs(env), *dst_reg, *other_branch_regs, *src_reg = NULL;
	u8 opcode = BPF_OP(insn->code);
	bool is_jmp32;
	int pred = -1, err;

	if (opcode == BPF_JA || opcode > BPF_JSLE) {
		verbose(env, "invalid BPF_JMP/JMP32 opcode %x\n", opcode);
		return -EINVAL;
	}
	err = check_reg_arg(env, insn->dst_reg, SRC_OP);
	if (err)
		return err;
	dst_reg = &regs[insn->dst_reg];
	if (BPF_SRC(insn->code) == BPF_X) {
		if (insn->imm != 0) {
			verbose(env, "BPF_JMP/JMP32 uses reserved fields\n");
			return -EINVAL;
		}
		err = check_reg_arg(env, insn->src_reg, SRC_OP);
		if (err)
			return err;
		src_reg = &regs[insn->src_reg];
		if (is_pointer_value(env, insn->src_reg)) {
			verbose(env, "R%d pointer comparison prohibited\n", insn->src_reg);
			return -EACCES;
		}
	} else if (insn->src_reg != BPF_REG_0) {
		verbose(env, "BPF_JMP/JMP32 uses reserved fields\n");
		return -EINVAL;
	}
	is_jmp32 = BPF_CLASS(insn->code) == BPF_JMP32;
	if (BPF_SRC(insn->code) == BPF_K)
		pred = is_branch_taken(dst_reg, is_jmp32 ? (u64)(u32)insn->imm : (u64)(s64)insn->imm, opcode, is_jmp32);
	else if (src_reg->type == SCALAR_VALUE && is_jmp32 && tnum_is_const(tnum_subreg(src_reg->var_off)))
		pred = is_branch_taken(dst_reg, tnum_subreg(src_reg->var_off).value, opcode, is_jmp32);
	else if (src_reg->type == SCALAR_VALUE && !is_jmp32 && tnum_is_const(src_reg->var_off))
		pred = is_branch_taken(dst_reg, src_reg->var_off.value, opcode, is_jmp32);
	if (pred == 1) {
		*insn_idx += insn->off;
		if (env->log.level & BPF_LOG_LEVEL)
			print_insn_state(env, this_branch->frame[this_branch->curframe]);
		return 0;
	} else if (pred == 0) {
		if (env->log.level & BPF_LOG_LEVEL)
			print_insn_state(env, this_branch->frame[this_branch->curframe]);
		return 0;
	}
	other_branch = push_stack(env, *insn_idx + insn->off + 1, *insn_idx);
	if (!other_branch)
		return -EFAULT;
	other_branch_regs = other_branch->frame[other_branch->curframe]->regs;
	if (BPF_SRC(insn->code) == BPF_X) {
		if (dst_reg->type == SCALAR_VALUE && src_reg->type == SCALAR_VALUE) {
			if (tnum_is_const(src_reg->var_off) || (is_jmp32 && tnum_is_const(tnum_subreg(src_reg->var_off))))
				reg_set_min_max(&other_branch_regs[insn->dst_reg], dst_reg, src_reg->var_off.value,
						tnum_subreg(src_reg->var_off).value, opcode, is_jmp32);
			else if (tnum_is_const(dst_reg->var_off) || (is_jmp32 && tnum_is_const(tnum_subreg(dst_reg->var_off))))
				reg_set_min_max_inv(&other_branch_regs[insn->src_reg], src_reg, dst_reg->var_off.value,
						    tnum_subreg(dst_reg->var_off).value, opcode, is_jmp32);
			else if (!is_jmp32 && (opcode == BPF_JEQ || opcode == BPF_JNE))
				reg_combine_min_max(&other_branch_regs[insn->src_reg], &other_branch_regs[insn->dst_reg],
						    src_reg, dst_reg, opcode);
			if (src_reg->id) {
				find_equal_scalars(this_branch, src_reg);
				find_equal_scalars(other_branch, &other_branch_regs[insn->src_reg]);
			}
		}
	} else if (dst_reg->type == SCALAR_VALUE) {
		reg_set_min_max(&other_branch_regs[insn->dst_reg], dst_reg, (u64)(s64)insn->imm, (u32)insn->imm,
				opcode, is_jmp32);
	}
	if (dst_reg->type == SCALAR_VALUE && dst_reg->id) {
		find_equal_scalars(this_branch, dst_reg);
		find_equal_scalars(other_branch, &other_branch_regs[insn->dst_reg]);
	}
	if (!is_jmp32 && BPF_SRC(insn->code) == BPF_K && insn->imm == 0 &&
	    (opcode == BPF_JEQ || opcode == BPF_JNE) && (dst_reg->type & PTR_MAYBE_NULL)) {
		mark_ptr_or_null_regs(this_branch, insn->dst_reg, opcode == BPF_JNE);
		mark_ptr_or_null_regs(other_branch, insn->dst_reg, opcode == BPF_JEQ);
	} else if (is_pointer_value(env, insn->dst_reg)) {
		verbose(env, "R%d pointer comparison prohibited\n", insn->dst_reg);
		return -EACCES;
	}
	if (env->log.level & BPF_LOG_LEVEL)
		print_insn_state(env, this_branch->frame[this_branch->curframe]);
	return 0;
}

/* ---- helper calls ---- */
static const u32 map_key_value_types[] = { PTR_TO_STACK, 0x100 + 1, 0x100 + 2, PTR_TO_MAP_KEY, PTR_TO_MAP_VALUE };
static const char *const map_key_value_names = "fp, pkt, pkt_meta, map_key, map_value";
static const char *const mem_names = "fp, pkt, pkt_meta, map_key, map_value, mem, alloc_mem, buf";

static int check_reg_type(struct bpf_verifier_env *env, u32 regno, u8 arg_type, const struct bpf_func_proto *fn)
{
	struct bpf_reg_state *reg = cur_regs(env) + regno;
	const char *expected;
	char tb[32];
	u32 i;

	switch (arg_type) {
	case ARG_PTR_TO_BTF_ID:
		if (reg->type != PTR_TO_BTF_ID) {
			expected = "ptr_";
			break;
		}
		if (!btf_struct_ids_match(&env->log, reg->btf_id, reg->off, btf_vmlinux_struct_id(fn->arg_btf_struct))) {
			verbose(env, "R%d is of type %s but %s is expected\n", regno, btf_struct_name(reg->btf_id),
				fn->arg_btf_struct);
			return -EACCES;
		}
		return 0;
	case ARG_CONST_MAP_PTR:
		if (reg->type == CONST_PTR_TO_MAP)
			return 0;
		expected = "map_ptr";
		break;
	case ARG_PTR_TO_MAP_KEY:
	case ARG_PTR_TO_MAP_VALUE:
	case ARG_PTR_TO_UNINIT_MAP_VALUE:
		for (i = 0; i < ARRAY_SIZE(map_key_value_types); i++)
			if (reg->type == map_key_value_types[i])
				return 0;
		expected = map_key_value_names;
		break;
	case ARG_PTR_TO_CONST_STR:
		if (reg->type == PTR_TO_MAP_VALUE)
			return 0;
		expected = "map_value";
		break;
	case ARG_PTR_TO_MEM:
	case ARG_PTR_TO_LONG:
	case ARG_PTR_TO_UNINIT_MEM: {
		/* an argument that may be NULL takes a pointer that may be (6.1 folds the flag) */
		u32 type = fn->arg_type[regno - BPF_REG_1] & ARG_MAYBE_NULL ? reg->type & ~PTR_MAYBE_NULL : reg->type;

		if (type == PTR_TO_STACK || type == PTR_TO_MAP_KEY || type == PTR_TO_MAP_VALUE ||
		    type == PTR_TO_MEM || type == (PTR_TO_MEM | MEM_ALLOC))
			return 0;
		expected = mem_names;
		break;
	}
	case ARG_PTR_TO_ALLOC_MEM:
		if (reg->type == (PTR_TO_MEM | MEM_ALLOC))
			return 0;
		expected = "alloc_mem";
		break;
	case ARG_CONST_SIZE:
	case ARG_CONST_SIZE_OR_ZERO:
	case ARG_CONST_ALLOC_SIZE_OR_ZERO:
		if (reg->type == SCALAR_VALUE)
			return 0;
		expected = "scalar";
		break;
	case ARG_PTR_TO_CTX:
		if (reg->type == PTR_TO_CTX)
			return 0;
		expected = "ctx";
		break;
	case ARG_PTR_TO_FUNC:
		if (reg->type == PTR_TO_FUNC)
			return 0;
		expected = "func";
		break;
	case ARG_PTR_TO_STACK_OR_NULL:
		if (reg->type == PTR_TO_STACK || register_is_null(reg))
			return 0;
		expected = "fp";
		break;
	default:
		return 0;
	}
	verbose(env, "R%d type=%s expected=%s\n", regno, reg_type_str(reg->type, tb), expected);
	return -EACCES;
}

/* A helper's access to the stack: memory it reads must be initialized (uninitialized bytes are
 * allowed to the privileged); as a helper may write anything, each byte it touches becomes
 * STACK_MISC (6.1's "clobber").  raw: memory the helper fills (ARG_PTR_TO_UNINIT_MEM), each
 * byte written as by a one-byte store. */
static noinline int check_stack_range_initialized(struct bpf_verifier_env *env, int regno, int off, int access_size,
					 bool zero_size_allowed, struct bpf_call_arg_meta *meta)
{
	struct bpf_reg_state *reg = cur_regs(env) + regno;
	struct bpf_func_state *state = func(env, reg);
	int err, min_off, max_off, i, j, slot, spi;
	bool raw = meta && meta->regno == -1;

	if (access_size == 0 && !zero_size_allowed) {
		verbose(env, "invalid zero-sized read\n");
		return -EACCES;
	}
	err = check_stack_access_within_bounds(env, regno, off, access_size, ACCESS_HELPER, BPF_WRITE);
	if (err)
		return err;
	if (tnum_is_const(reg->var_off)) {
		min_off = max_off = reg->var_off.value + off;
	} else {
		min_off = reg->smin_value + off;
		max_off = reg->smax_value + off;
		raw = false;
	}
	update_stack_depth(env, state, min_off);
	if (raw) {
		static const struct bpf_insn call = { .code = BPF_JMP | BPF_CALL };
		for (i = 0; i < access_size; i++) {
			err = check_stack_write(env, regno, off + i, 1, -1, &call);
			if (err)
				return err;
		}
		return 0;
	}
	for (i = min_off; i < max_off + access_size; i++) {
		u8 *stype;

		slot = -i - 1;
		spi = slot / BPF_REG_SIZE;
		stype = &state->stack[spi].slot_type[slot % BPF_REG_SIZE];
		if (*stype == STACK_MISC)
			goto mark;
		if (*stype == STACK_ZERO || (*stype == STACK_INVALID && env->allow_uninit_stack)) {
			*stype = STACK_MISC;
			goto mark;
		}
		if (is_spilled_reg(&state->stack[spi]) &&
		    (state->stack[spi].spilled_ptr.type == SCALAR_VALUE || env->allow_ptr_leaks)) {
			__mark_reg_unknown(&state->stack[spi].spilled_ptr);
			for (j = 0; j < BPF_REG_SIZE; j++)
				if (state->stack[spi].slot_type[j] == STACK_SPILL)
					state->stack[spi].slot_type[j] = STACK_MISC;
			goto mark;
		}
		if (tnum_is_const(reg->var_off)) {
			verbose(env, "invalid indirect read from stack R%d off %d+%d size %d\n", regno, min_off,
				i - min_off, access_size);
		} else {
			char tn_buf[48];
			tnum_strn(tn_buf, sizeof(tn_buf), reg->var_off);
			verbose(env, "invalid indirect read from stack R%d var_off %s+%d size %d\n", regno, tn_buf,
				i - min_off, access_size);
		}
		return -EACCES;
mark:
		mark_reg_read(env, state->frameno, -1 - spi);
	}
	return 0;
}

/* meta: the helper writes the memory (ARG_PTR_TO_UNINIT_MEM) */
static int check_helper_mem_access(struct bpf_verifier_env *env, int regno, int access_size,
				   bool zero_size_allowed, struct bpf_call_arg_meta *meta)
{
	struct bpf_reg_state *reg = cur_regs(env) + regno;
	char tb[32];

	switch (base_type(reg->type)) {
	case PTR_TO_MAP_KEY:
		return check_mem_region_access(env, regno, reg->off, access_size, reg->map_ptr->key_size, false);
	case PTR_TO_MAP_VALUE:
		return check_map_access(env, regno, reg->off, access_size, zero_size_allowed);
	case PTR_TO_STACK:
		return check_stack_range_initialized(env, regno, reg->off, access_size, zero_size_allowed, meta);
	case PTR_TO_MEM:
		return check_mem_region_access(env, regno, reg->off, access_size, reg->mem_size, zero_size_allowed);
	default:
		if (zero_size_allowed && access_size == 0 && register_is_null(reg))
			return 0;
		verbose(env, "R%d type=%s ", regno, reg_type_str(reg->type, tb));
		verbose(env, "expected=%s\n", reg_type_str(PTR_TO_STACK, tb));	/* (6.1 names the stack only) */
		return -EACCES;
	}
}

static noinline int check_mem_size_reg(struct bpf_verifier_env *env, struct bpf_reg_state *reg, u32 regno,
			      bool zero_size_allowed, bool uninit)
{
	struct bpf_call_arg_meta wmeta = { .regno = -1 };
	struct bpf_call_arg_meta *meta = uninit ? &wmeta : NULL;
	int err;

	if (reg->smin_value < 0) {
		verbose(env, "R%d min value is negative, either use unsigned or 'var &= const'\n", regno);
		return -EACCES;
	}
	if (reg->umin_value == 0) {
		err = check_helper_mem_access(env, regno - 1, 0, zero_size_allowed, meta);
		if (err)
			return err;
	}
	if (reg->umax_value >= BPF_MAX_VAR_SIZ) {
		verbose(env, "R%d unbounded memory access, use 'var &= const' or 'if (var < const)'\n", regno);
		return -EACCES;
	}
	return check_helper_mem_access(env, regno - 1, reg->umax_value, zero_size_allowed, meta);
}

static int check_func_arg(struct bpf_verifier_env *env, u32 arg, struct bpf_call_arg_meta *meta,
			  const struct bpf_func_proto *fn)
{
	u32 regno = BPF_REG_1 + arg;
	struct bpf_reg_state *reg = cur_regs(env) + regno;
	u8 arg_type = BPF_BASE_ARG(fn->arg_type[arg]);
	int err;

	if (arg_type == ARG_DONTCARE)
		return 0;
	err = check_reg_arg(env, regno, SRC_OP);
	if (err)
		return err;
	if (arg_type == ARG_ANYTHING) {
		if (is_pointer_value(env, regno)) {
			verbose(env, "R%d leaks addr into helper function\n", regno);
			return -EACCES;
		}
		return 0;
	}
	/* a NULL where the helper takes one (its size is then checked to be 0) */
	if ((fn->arg_type[arg] & ARG_MAYBE_NULL) && register_is_null(reg))
		goto skip_type_check;
	err = check_reg_type(env, regno, arg_type, fn);
	if (err)
		return err;
	if (reg->type == PTR_TO_CTX) {
		err = check_ptr_off_reg(env, reg, regno);
		if (err)
			return err;
	}
	if (arg_type == ARG_PTR_TO_ALLOC_MEM) {	/* check_func_arg_reg_off(): no offset */
		err = check_ptr_off_reg(env, reg, regno);
		if (err)
			return err;
	}
skip_type_check:
	if (fn->arg_type[arg] & OBJ_RELEASE) {
		if (!reg->ref_obj_id && !register_is_null(reg)) {
			verbose(env, "R%d must be referenced when passed to release function\n", regno);
			return -EINVAL;
		}
		meta->release_regno = regno;
	}
	if (reg->ref_obj_id) {
		if (meta->ref_obj_id) {
			verbose(env, "verifier internal error: more than one arg with ref_obj_id R%d %u %u\n",
				regno, reg->ref_obj_id, meta->ref_obj_id);
			return -EFAULT;
		}
		meta->ref_obj_id = reg->ref_obj_id;
	}
	switch (arg_type) {
	case ARG_CONST_MAP_PTR:
		meta->map_ptr = reg->map_ptr;
		break;
	case ARG_PTR_TO_FUNC:
		meta->subprogno = reg->subprogno;
		break;
	case ARG_PTR_TO_MAP_KEY:
		if (!meta->map_ptr) {
			verbose(env, "invalid map_ptr to access map->key\n");
			return -EACCES;
		}
		err = check_helper_mem_access(env, regno, meta->map_ptr->key_size, false, NULL);
		break;
	case ARG_PTR_TO_MAP_VALUE:
		if (!meta->map_ptr) {
			verbose(env, "invalid map_ptr to access map->value\n");
			return -EACCES;
		}
		err = check_helper_mem_access(env, regno, meta->map_ptr->value_size, false, NULL);
		break;
	case ARG_PTR_TO_UNINIT_MAP_VALUE: {	/* (6.1's MEM_UNINIT | MEM_WRITE: raw_mode) */
		struct bpf_call_arg_meta wmeta = { .regno = -1 };

		if (!meta->map_ptr) {
			verbose(env, "invalid map_ptr to access map->value\n");
			return -EACCES;
		}
		err = check_helper_mem_access(env, regno, meta->map_ptr->value_size, false, &wmeta);
		break;
	}
	case ARG_CONST_SIZE:
	case ARG_CONST_SIZE_OR_ZERO:
		meta->msize_max_value = reg->umax_value;
		err = check_mem_size_reg(env, reg, regno, arg_type == ARG_CONST_SIZE_OR_ZERO,
					 BPF_BASE_ARG(fn->arg_type[arg - 1]) == ARG_PTR_TO_UNINIT_MEM);
		break;
	case ARG_CONST_ALLOC_SIZE_OR_ZERO:
		if (!tnum_is_const(reg->var_off)) {
			verbose(env, "R%d is not a known constant'\n", regno);
			return -EACCES;
		}
		meta->mem_size = reg->var_off.value;
		break;
	case ARG_PTR_TO_LONG: {	/* 8 bytes written, aligned (bpf_strtol()'s result) */
		struct bpf_call_arg_meta wmeta = { .regno = -1 };

		err = check_helper_mem_access(env, regno, sizeof(u64), false, &wmeta);
		if (!err)
			err = check_ptr_alignment(env, reg, 0, sizeof(u64), true);
		break;
	}
	case ARG_PTR_TO_CONST_STR: {
		/* a string the helper may read to its NUL: in a frozen read-only map's value,
		 * at a known offset, terminated there */
		struct bpf_map *map = reg->map_ptr;
		u64 map_addr;
		int map_off;

		if (!bpf_map_is_rdonly(map)) {
			verbose(env, "R%d does not point to a readonly map'\n", regno);
			return -EACCES;
		}
		if (!tnum_is_const(reg->var_off)) {
			verbose(env, "R%d is not a constant address'\n", regno);
			return -EACCES;
		}
		if (!map->ops->map_direct_value_addr) {
			verbose(env, "no direct value access support for this map type\n");
			return -EACCES;
		}
		err = check_map_access(env, regno, reg->off, map->value_size - reg->off, false);
		if (err)
			return err;
		map_off = reg->off + reg->var_off.value;
		err = map->ops->map_direct_value_addr(map, &map_addr, map_off);
		if (err) {
			verbose(env, "direct value access on string failed\n");
			return err;
		}
		if (!strnchr((char *)(long)map_addr + map_off, map->value_size - map_off, 0)) {
			verbose(env, "string is not zero-terminated\n");
			return -EINVAL;
		}
		break;
	}
	}
	return err;
}

/* check_map_func_compatibility(): the map types a helper takes, and the helpers a map type
 * may be passed to, for the types and helpers of this kernel */
static int check_map_func_compatibility(struct bpf_verifier_env *env, struct bpf_map *map, int func_id)
{
	if (!map)
		return 0;
	switch (map->map_type) {
	case BPF_MAP_TYPE_PROG_ARRAY:
		if (func_id != BPF_FUNC_tail_call)
			goto error;
		break;
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		if (func_id != BPF_FUNC_map_peek_elem && func_id != BPF_FUNC_map_pop_elem &&
		    func_id != BPF_FUNC_map_push_elem)
			goto error;
		break;
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
		if (func_id != BPF_FUNC_perf_event_read && func_id != BPF_FUNC_perf_event_output &&
		    func_id != BPF_FUNC_skb_output && func_id != BPF_FUNC_perf_event_read_value &&
		    func_id != BPF_FUNC_xdp_output)
			goto error;
		break;
	case BPF_MAP_TYPE_STACK_TRACE:
		if (func_id != BPF_FUNC_get_stackid)
			goto error;
		break;
	case BPF_MAP_TYPE_CGROUP_ARRAY:
		if (func_id != BPF_FUNC_skb_under_cgroup && func_id != BPF_FUNC_current_task_under_cgroup)
			goto error;
		break;
	case BPF_MAP_TYPE_RINGBUF:
		if (func_id != BPF_FUNC_ringbuf_output && func_id != BPF_FUNC_ringbuf_reserve &&
		    func_id != BPF_FUNC_ringbuf_query)
			goto error;
		break;
	default:
		break;
	}
	switch (func_id) {
	case BPF_FUNC_tail_call:
		if (map->map_type != BPF_MAP_TYPE_PROG_ARRAY)
			goto error;
		/* the interpreter runs a tail-called program in the caller's frame: not in a callee's */
		if (env->subprog_cnt > 1 && !env->prog->jit_requested) {
			verbose(env, "tail_calls are not allowed in non-JITed programs with bpf-to-bpf calls\n");
			return -EINVAL;
		}
		break;
	case BPF_FUNC_get_stackid:
		if (map->map_type != BPF_MAP_TYPE_STACK_TRACE)
			goto error;
		break;
	case BPF_FUNC_map_pop_elem:
	case BPF_FUNC_map_peek_elem:
	case BPF_FUNC_map_push_elem:	/* (6.1's bloom filters too: not here) */
		if (map->map_type != BPF_MAP_TYPE_QUEUE && map->map_type != BPF_MAP_TYPE_STACK)
			goto error;
		break;
	case BPF_FUNC_perf_event_read:
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_perf_event_read_value:
	case BPF_FUNC_skb_output:
	case BPF_FUNC_xdp_output:
		if (map->map_type != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
			goto error;
		break;
	case BPF_FUNC_ringbuf_output:
	case BPF_FUNC_ringbuf_reserve:
	case BPF_FUNC_ringbuf_query:
		if (map->map_type != BPF_MAP_TYPE_RINGBUF)
			goto error;
		break;
	case BPF_FUNC_current_task_under_cgroup:
	case BPF_FUNC_skb_under_cgroup:
		if (map->map_type != BPF_MAP_TYPE_CGROUP_ARRAY)
			goto error;
		break;
	case BPF_FUNC_map_lookup_percpu_elem:
		if (map->map_type != BPF_MAP_TYPE_PERCPU_ARRAY && map->map_type != BPF_MAP_TYPE_PERCPU_HASH &&
		    map->map_type != BPF_MAP_TYPE_LRU_PERCPU_HASH)
			goto error;
		break;
	}
	return 0;
error:
	verbose(env, "cannot pass map_type %d into func %s#%d\n", map->map_type, func_id_name(func_id), func_id);
	return -EINVAL;
}

/* ---- references (a ring buffer reservation): acquired by a helper, released by one ---- */
/* acquire_reference_state(): a new reference held, acquired at insn_idx; its id */
static noinline int acquire_reference_state(struct bpf_verifier_env *env, int insn_idx)
{
	struct bpf_verifier_state *state = env->cur_state;
	int id, err = resize_reference_state(state, state->acquired_refs + 1);

	if (err)
		return err;
	id = ++env->id_gen;
	state->refs[state->acquired_refs].id = id;
	state->refs[state->acquired_refs].insn_idx = insn_idx;
	state->refs[state->acquired_refs].callback_ref = cur_func(env)->in_callback_fn ? (int)state->curframe : 0;
	state->acquired_refs++;
	return id;
}

/* release_reference_state(): the reference no longer held (the last one takes its place) */
static int release_reference_state(struct bpf_verifier_state *state, int ptr_id)
{
	u32 i, last_idx = state->acquired_refs - 1;

	for (i = 0; i < state->acquired_refs; i++) {
		if (state->refs[i].id != ptr_id)
			continue;
		if (last_idx && i != last_idx)
			state->refs[i] = state->refs[last_idx];
		memset(&state->refs[last_idx], 0, sizeof(state->refs[0]));
		state->acquired_refs--;
		return 0;	/* (6.1 keeps the array's room: acquired_refs says what is held) */
	}
	return -EINVAL;
}

/* release_reference(): released, and every copy of the pointer unusable */
static noinline int release_reference(struct bpf_verifier_env *env, int ref_obj_id)
{
	struct bpf_verifier_state *state = env->cur_state;
	struct bpf_reg_state *reg;
	int err = release_reference_state(state, ref_obj_id);

	if (err)
		return err;
	for_each_reg_in_vstate(state, reg, ({
		if (reg->ref_obj_id == (u32)ref_obj_id) {
			if (!env->allow_ptr_leaks)
				__mark_reg_not_init(reg);
			else
				__mark_reg_unknown(reg);
		}
	}));
	return 0;
}

/* check_reference_leak(): a program may not exit holding a reference (a function it calls may:
 * its references are its caller's), nor a callback holding one it acquired */
static int check_reference_leak(struct bpf_verifier_env *env)
{
	struct bpf_verifier_state *state = env->cur_state;
	struct bpf_func_state *func = cur_func(env);
	bool lingering = false;
	u32 i;

	if (state->curframe && !func->in_callback_fn)
		return 0;
	for (i = 0; i < state->acquired_refs; i++) {
		if (func->in_callback_fn && state->refs[i].callback_ref != (int)state->curframe)
			continue;
		verbose(env, "Unreleased reference id=%d alloc_insn=%d\n", state->refs[i].id, state->refs[i].insn_idx);
		lingering = true;
	}
	return lingering ? -EINVAL : 0;
}

/* do_refine_retval_range(): what a helper that fills a buffer returns is at most its size (or
 * a negative errno), so that a program may use it as a length */
static void do_refine_retval_range(struct bpf_reg_state *regs, int ret_type, int func_id,
				   struct bpf_call_arg_meta *meta)
{
	struct bpf_reg_state *ret_reg = &regs[BPF_REG_0];

	if (ret_type != RET_INTEGER ||
	    (func_id != BPF_FUNC_get_stack && func_id != BPF_FUNC_probe_read_str &&
	     func_id != BPF_FUNC_probe_read_kernel_str && func_id != BPF_FUNC_probe_read_user_str))
		return;
	ret_reg->smax_value = meta->msize_max_value;
	ret_reg->s32_max_value = meta->msize_max_value;
	ret_reg->smin_value = -MAX_ERRNO;
	ret_reg->s32_min_value = -MAX_ERRNO;
	reg_bounds_sync(ret_reg);
}

/* verbose_invalid_scalar(): "At <ctx> the register <reg> has value ... should have been in ..." */
static notrace void verbose_invalid_scalar(struct bpf_verifier_env *env, const struct bpf_reg_state *reg, struct tnum range,
				   const char *ctx, const char *reg_name)
{
	char tn_buf[48];

	verbose(env, "At %s the register %s ", ctx, reg_name);
	if (!tnum_is_unknown(reg->var_off)) {
		tnum_strn(tn_buf, sizeof(tn_buf), reg->var_off);
		verbose(env, "has value %s", tn_buf);
	} else {
		verbose(env, "has unknown scalar value");
	}
	tnum_strn(tn_buf, sizeof(tn_buf), range);
	verbose(env, " should have been in %s\n", tn_buf);
}

typedef int (*set_callee_state_fn)(struct bpf_verifier_env *env, struct bpf_func_state *caller,
				   struct bpf_func_state *callee, int insn_idx);
static noinline int __check_func_call(struct bpf_verifier_env *env, int *insn_idx, int subprog,
				      set_callee_state_fn set_callee_state_cb);
static int set_loop_callback_state(struct bpf_verifier_env *env, struct bpf_func_state *caller,
				   struct bpf_func_state *callee, int insn_idx);
static noinline int set_map_elem_callback_state(struct bpf_verifier_env *env, struct bpf_func_state *caller,
						struct bpf_func_state *callee, int insn_idx);

/* clear_caller_saved_regs(): a call leaves R0-R5 unreadable until written (R0: what it returns) */
static void clear_caller_saved_regs(struct bpf_verifier_env *env, struct bpf_reg_state *regs)
{
	static const int caller_saved[] = { BPF_REG_0, BPF_REG_1, BPF_REG_2, BPF_REG_3, BPF_REG_4, BPF_REG_5 };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(caller_saved); i++) {
		mark_reg_not_init(env, regs, caller_saved[i]);
		check_reg_arg(env, caller_saved[i], DST_OP_NO_MARK);
	}
}

/* update_loop_inline_state(): a bpf_loop call stays fit for inlining while each path reaching it
 * passes flags a known 0 (loop_flag_is_zero(): every scalar is precise here) and the same
 * callback */
static void update_loop_inline_state(struct bpf_verifier_env *env, struct bpf_insn_aux_data *aux, u32 subprogno)
{
	struct bpf_loop_inline_state *state = &aux->loop_inline_state;
	bool flags_zero = register_is_null(&cur_regs(env)[BPF_REG_4]);

	if (!state->initialized) {
		state->initialized = true;
		state->fit_for_inline = flags_zero;
		state->callback_subprogno = subprogno;
		return;
	}
	if (state->fit_for_inline)
		state->fit_for_inline = flags_zero && state->callback_subprogno == subprogno;
}

/* check_bpf_snprintf_call(): bpf_snprintf()'s format (a constant string: R3 checked it) takes
 * the arguments R5 says, a whole number of u64s */
static int check_bpf_snprintf_call(struct bpf_verifier_env *env, struct bpf_reg_state *regs)
{
	struct bpf_reg_state *fmt_reg = &regs[BPF_REG_3], *data_len_reg = &regs[BPF_REG_5];
	struct bpf_map *fmt_map = fmt_reg->map_ptr;
	int err, fmt_map_off;
	u64 fmt_addr;

	if (data_len_reg->var_off.value % 8)
		return -EINVAL;
	fmt_map_off = fmt_reg->off + fmt_reg->var_off.value;
	err = fmt_map->ops->map_direct_value_addr(fmt_map, &fmt_addr, fmt_map_off);
	if (err) {
		verbose(env, "verifier bug\n");
		return -EFAULT;
	}
	err = bpf_bprintf_check((char *)(long)fmt_addr + fmt_map_off, data_len_reg->var_off.value / 8);
	if (err < 0)
		verbose(env, "Invalid format string\n");
	return err < 0 ? err : 0;
}

static noinline int check_helper_call(struct bpf_verifier_env *env, struct bpf_insn *insn, int *insn_idx_p)
{
	const struct bpf_func_proto *fn = NULL;
	struct bpf_call_arg_meta meta;
	struct bpf_reg_state *regs;
	int i, err, func_id = insn->imm;

	if (func_id < 0 || func_id >= __BPF_FUNC_MAX_ID) {
		verbose(env, "invalid func %s#%d\n", func_id_name(func_id), func_id);
		return -EINVAL;
	}
	if (env->prog->ops->get_func_proto)
		fn = env->prog->ops->get_func_proto(func_id, env->prog);
	if (!fn) {
		verbose(env, "unknown func %s#%d\n", func_id_name(func_id), func_id);
		return -EINVAL;
	}
	if (!env->prog->gpl_compatible && fn->gpl_only) {
		verbose(env, "cannot call GPL-restricted function from non-GPL compatible program\n");
		return -EINVAL;
	}
	if (fn->allowed && !fn->allowed(env->prog)) {
		verbose(env, "helper call is not allowed in probe\n");
		return -EINVAL;
	}
	memset(&meta, 0, sizeof(meta));
	for (i = 0; i < 5; i++) {
		err = check_func_arg(env, i, &meta, fn);
		if (err)
			return err;
	}
	if (meta.release_regno) {
		err = -EINVAL;
		if (meta.ref_obj_id)
			err = release_reference(env, meta.ref_obj_id);
		else if (register_is_null(&cur_regs(env)[meta.release_regno]))
			err = 0;
		if (err) {
			verbose(env, "func %s#%d reference has not been acquired before\n", func_id_name(func_id), func_id);
			return err;
		}
	}
	if (func_id == BPF_FUNC_map_lookup_elem || func_id == BPF_FUNC_map_update_elem ||
	    func_id == BPF_FUNC_map_delete_elem || func_id == BPF_FUNC_for_each_map_elem ||
	    func_id == BPF_FUNC_map_lookup_percpu_elem || func_id == BPF_FUNC_tail_call ||
	    func_id == BPF_FUNC_map_push_elem || func_id == BPF_FUNC_map_pop_elem ||
	    func_id == BPF_FUNC_map_peek_elem) {	/* (record_func_map()) */
		struct bpf_insn_aux_data *aux = &env->insn_aux_data[*insn_idx_p];

		if ((meta.map_ptr->map_flags & BPF_F_RDONLY_PROG) &&
		    (func_id == BPF_FUNC_map_update_elem || func_id == BPF_FUNC_map_delete_elem ||
		     func_id == BPF_FUNC_map_push_elem || func_id == BPF_FUNC_map_pop_elem)) {
			verbose(env, "write into map forbidden\n");
			return -EACCES;
		}
		if (!aux->map_ptr)
			aux->map_ptr = meta.map_ptr;
		else if (aux->map_ptr != meta.map_ptr)
			aux->map_ptr = BPF_MAP_PTR_POISON;
	}
	/* record_func_key(): a tail call's map is a program array (its key, for 6.1's direct tail
	 * calls, is not recorded: every tail call here is indirect) */
	if (func_id == BPF_FUNC_tail_call && meta.map_ptr->map_type != BPF_MAP_TYPE_PROG_ARRAY) {
		verbose(env, "kernel subsystem misconfigured verifier\n");
		return -EINVAL;
	}
	if (func_id == BPF_FUNC_tail_call) {
		/* the program it jumps to cannot release what this one holds */
		err = check_reference_leak(env);
		if (err) {
			verbose(env, "tail_call would lead to reference leak\n");
			return err;
		}
	}
	if (func_id == BPF_FUNC_snprintf) {	/* check_bpf_snprintf_call() */
		err = check_bpf_snprintf_call(env, cur_regs(env));
		if (err)
			return err;
	}
	regs = cur_regs(env);
	if (func_id == BPF_FUNC_loop)
		update_loop_inline_state(env, &env->insn_aux_data[*insn_idx_p], meta.subprogno);
	/* a callback verified next, as if called once */
	if (func_id == BPF_FUNC_loop || func_id == BPF_FUNC_for_each_map_elem) {
		err = __check_func_call(env, insn_idx_p, meta.subprogno,
					func_id == BPF_FUNC_loop ? set_loop_callback_state : set_map_elem_callback_state);
		if (err)
			return err;
	}
	clear_caller_saved_regs(env, regs);	/* (the caller's; live marks on the callee's, as 6.1) */
	switch (fn->ret_type) {
	case RET_INTEGER:
		mark_reg_unknown(env, regs, BPF_REG_0);
		break;
	case RET_VOID:
		regs[BPF_REG_0].type = NOT_INIT;
		break;
	case RET_PTR_TO_MAP_VALUE_OR_NULL:
		mark_reg_known_zero(env, regs, BPF_REG_0);
		if (!meta.map_ptr) {
			verbose(env, "kernel subsystem misconfigured verifier\n");
			return -EINVAL;
		}
		regs[BPF_REG_0].map_ptr = meta.map_ptr;
		regs[BPF_REG_0].type = PTR_TO_MAP_VALUE | PTR_MAYBE_NULL;
		regs[BPF_REG_0].id = ++env->id_gen;
		break;
	case RET_PTR_TO_BTF_ID:
		mark_reg_known_zero(env, regs, BPF_REG_0);
		regs[BPF_REG_0].type = PTR_TO_BTF_ID;
		regs[BPF_REG_0].btf_id = fn->ret_btf_struct ? btf_vmlinux_struct_id(fn->ret_btf_struct) : 0;
		if (!regs[BPF_REG_0].btf_id) {
			verbose(env, "invalid return type %u of func %s#%d\n", RET_PTR_TO_BTF_ID, func_id_name(func_id),
				func_id);
			return -EINVAL;
		}
		break;
	case RET_PTR_TO_ALLOC_MEM_OR_NULL:
		mark_reg_known_zero(env, regs, BPF_REG_0);
		regs[BPF_REG_0].type = PTR_TO_MEM | MEM_ALLOC | PTR_MAYBE_NULL;
		regs[BPF_REG_0].mem_size = meta.mem_size;
		regs[BPF_REG_0].id = ++env->id_gen;
		break;
	}
	/* after the callback's frame, as 6.1: a map without a walk is "not allowed" first */
	err = check_map_func_compatibility(env, meta.map_ptr, func_id);
	if (err)
		return err;
	do_refine_retval_range(regs, fn->ret_type, func_id, &meta);
	/* the stack helpers: a perf event's program gets its sample's chain (bpf_overflow_handler) */
	if (func_id == BPF_FUNC_get_stackid || func_id == BPF_FUNC_get_stack)
		env->prog->call_get_stack = true;
	if (func_id == BPF_FUNC_ringbuf_reserve) {	/* is_acquire_function() */
		int id = acquire_reference_state(env, *insn_idx_p);

		if (id < 0)
			return id;
		regs[BPF_REG_0].id = id;	/* for mark_ptr_or_null_reg() */
		regs[BPF_REG_0].ref_obj_id = id;	/* for release_reference() */
	}
	return 0;
}

/* ---- loads of 64-bit immediates: maps by fd become map pointers ---- */
/* find_subprog(): the function starting at off, -ENOENT: none */
static int find_subprog(struct bpf_verifier_env *env, int off)
{
	u32 lo = 0, hi = env->subprog_cnt;

	while (lo < hi) {	/* subprog_info is sorted by start */
		u32 mid = (lo + hi) / 2;

		if (env->subprog_info[mid].start == (u32)off)
			return mid;
		if (env->subprog_info[mid].start < (u32)off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* the function instruction off is in */
static u32 find_containing_subprog(struct bpf_verifier_env *env, u32 off)
{
	u32 i = 0;

	while (i + 1 < env->subprog_cnt && env->subprog_info[i + 1].start <= off)
		i++;
	return i;
}

static int check_ld_imm(struct bpf_verifier_env *env, struct bpf_insn *insn)
{
	struct bpf_insn_aux_data *aux = &env->insn_aux_data[env->insn_idx];
	struct bpf_reg_state *regs = cur_regs(env), *dst_reg;
	int err;

	if (BPF_SIZE(insn->code) != BPF_DW) {
		verbose(env, "invalid BPF_LD_IMM insn\n");
		return -EINVAL;
	}
	if (insn->off != 0) {
		verbose(env, "BPF_LD_IMM64 uses reserved fields\n");
		return -EINVAL;
	}
	err = check_reg_arg(env, insn->dst_reg, DST_OP);
	if (err)
		return err;
	dst_reg = &regs[insn->dst_reg];
	if (insn->src_reg == 0) {
		u64 imm = ((u64)(insn + 1)->imm << 32) | (u32)insn->imm;
		dst_reg->type = SCALAR_VALUE;
		__mark_reg_known(&regs[insn->dst_reg], imm);
		return 0;
	}
	mark_reg_known_zero(env, regs, insn->dst_reg);
	if (insn->src_reg == BPF_PSEUDO_FUNC) {	/* a callback: a static function, not the main one */
		int subprogno = find_subprog(env, env->insn_idx + insn->imm + 1);

		if (!env->prog->func_info) {
			verbose(env, "missing btf func_info\n");
			return -EINVAL;
		}
		if (btf_type_vlen(btf_type_by_id(env->prog->btf, env->prog->func_info[subprogno].type_id)) !=
		    BTF_FUNC_STATIC) {
			verbose(env, "callback function not static\n");
			return -EINVAL;
		}
		if (subprogno == 0) {
			verbose(env, "callback function cannot be the main program\n");
			return -EINVAL;
		}
		dst_reg->type = PTR_TO_FUNC;
		dst_reg->subprogno = subprogno;
		return 0;
	}
	dst_reg->map_ptr = env->used_maps[aux->map_index];
	if (insn->src_reg == BPF_PSEUDO_MAP_VALUE) {
		dst_reg->type = PTR_TO_MAP_VALUE;
		dst_reg->off = aux->map_off;
	} else {
		dst_reg->type = CONST_PTR_TO_MAP;
	}
	return 0;
}

/* ---- bpf-to-bpf calls: a frame for the callee, R1-R5 its arguments (6.1's __check_func_call,
 * prepare_func_exit) ---- */

/* ---- global functions: a func_info of BTF_FUNC_GLOBAL linkage, verified apart on its BTF
 * prototype, each call checked against it (6.1's btf.c: btf_prepare_func_args(),
 * btf_check_func_arg_match(); here beside the verifier's state they read) ---- */
#define MAX_BPF_FUNC_REG_ARGS 5

static bool subprog_is_global(const struct bpf_verifier_env *env, int subprog)
{
	return env->prog->func_info &&
	       btf_type_vlen(btf_type_by_id(env->prog->btf, env->prog->func_info[subprog].type_id)) == BTF_FUNC_GLOBAL;
}

/* the program's BTF type id past its modifiers (btf_type_skip_modifiers()); NULL: void */
static notrace const struct btf_type *prog_btf_skip_modifiers(const struct btf *btf, u32 id)
{
	const struct btf_type *t = id ? btf_type_by_id(btf, id) : NULL;

	while (t && btf_type_is_modifier(t))
		t = t->type ? btf_type_by_id(btf, t->type) : NULL;
	return t;
}

/* the bytes a pointer's target takes (btf_resolve_size()); -EINVAL: it has no size */
static notrace long prog_btf_resolve_size(const struct btf *btf, const struct btf_type *t, u32 *size)
{
	u32 nelems = 1;

	while (t && btf_kind(t) == BTF_KIND_ARRAY) {
		const struct btf_array *array = (const struct btf_array *)(t + 1);

		nelems *= array->nelems;
		t = prog_btf_skip_modifiers(btf, array->type);
	}
	if (!t)
		return -EINVAL;
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
		*size = nelems * t->size;
		return 0;
	case BTF_KIND_PTR:
		*size = nelems * sizeof(void *);
		return 0;
	}
	return -EINVAL;
}

/* btf_get_prog_ctx_type(): ptr points to the struct the program type's context is (by name) */
static notrace bool btf_is_prog_ctx_type(const struct bpf_verifier_env *env, const struct btf_type *ptr)
{
	const struct btf_type *t = prog_btf_skip_modifiers(env->prog->btf, ptr->type);
	const char *ctx_name;

	if (!t || !__btf_type_is_struct(t))
		return false;
	switch (env->prog->type) {
	case BPF_PROG_TYPE_SOCKET_FILTER:
		ctx_name = "__sk_buff";
		break;
	case BPF_PROG_TYPE_KPROBE:	/* bpf_user_pt_regs_t, a typedef of it */
		ctx_name = "pt_regs";
		break;
	case BPF_PROG_TYPE_PERF_EVENT:
		ctx_name = "bpf_perf_event_data";
		break;
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		ctx_name = "bpf_raw_tracepoint_args";
		break;
	default:	/* a tracepoint's u64, tracing's void *: no struct */
		return false;
	}
	return !strcmp(btf_name_by_offset(env->prog->btf, t->name_off), ctx_name);
}

/* check_mem_reg(): reg points to mem_size bytes a function may read and write, or is NULL */
static noinline int check_mem_reg(struct bpf_verifier_env *env, struct bpf_reg_state *reg, u32 regno, u32 mem_size)
{
	struct bpf_call_arg_meta wmeta = { .regno = -1 };
	struct bpf_reg_state saved_reg = *reg;
	int err;

	if (register_is_null(reg))
		return 0;
	reg->type &= ~PTR_MAYBE_NULL;	/* (mark_ptr_not_null_reg()) */
	err = check_helper_mem_access(env, regno, mem_size, true, NULL);
	err = err ?: check_helper_mem_access(env, regno, mem_size, true, &wmeta);
	*reg = saved_reg;
	return err;
}

/* btf_check_func_arg_match(): the registers regs as the function's BTF prototype has its
 * arguments: scalars, its context, (a global function's, at a call) memory of the size pointed
 * to; -EINVAL and why in the log if not */
static noinline int btf_check_func_arg_match(struct bpf_verifier_env *env, int subprog, struct bpf_reg_state *regs,
				    bool ptr_to_mem_ok, bool processing_call)
{
	const struct btf *btf = env->prog->btf;
	u32 func_id = env->prog->func_info[subprog].type_id, i, nargs;
	const struct btf_type *t = btf_type_by_id(btf, func_id), *ref_t;
	const char *func_name = btf_name_by_offset(btf, t->name_off);
	const struct btf_param *args;
	int ret;

	t = btf_type_by_id(btf, t->type);
	if (!t || !btf_type_is_func_proto(t)) {
		verbose(env, "Invalid BTF of func %s\n", func_name);
		return -EFAULT;
	}
	args = (const struct btf_param *)(t + 1);
	nargs = btf_type_vlen(t);
	if (nargs > MAX_BPF_FUNC_REG_ARGS) {
		verbose(env, "Function %s has %d > %d args\n", func_name, nargs, MAX_BPF_FUNC_REG_ARGS);
		return -EINVAL;
	}
	for (i = 0; i < nargs; i++) {
		u32 regno = i + 1, type_size;
		struct bpf_reg_state *reg = &regs[regno];

		t = prog_btf_skip_modifiers(btf, args[i].type);
		if (t && (btf_type_is_int(t) || btf_is_any_enum(t))) {
			if (reg->type == SCALAR_VALUE)
				continue;
			verbose(env, "R%d is not a scalar\n", regno);
			return -EINVAL;
		}
		if (!t || !btf_type_is_ptr(t)) {
			verbose(env, "Unrecognized arg#%d type %s\n", i, t ? btf_type_str(t) : "UNKNOWN");
			return -EINVAL;
		}
		/* check_func_arg_reg_off(): an offset only into the stack, a map or memory */
		switch (base_type(reg->type)) {
		case PTR_TO_STACK: case PTR_TO_MAP_KEY: case PTR_TO_MAP_VALUE: case PTR_TO_MEM: case SCALAR_VALUE:
			break;
		default:
			ret = check_ptr_off_reg(env, reg, regno);
			if (ret < 0)
				return ret;
		}
		ref_t = prog_btf_skip_modifiers(btf, t->type);
		if (btf_is_prog_ctx_type(env, t)) {
			if (reg->type != PTR_TO_CTX) {
				verbose(env, "arg#%d expected pointer to ctx, but got %s\n", i, btf_type_str(t));
				return -EINVAL;
			}
		} else if (ptr_to_mem_ok && processing_call) {
			if (prog_btf_resolve_size(btf, ref_t, &type_size)) {
				verbose(env, "arg#%d reference type('%s %s') size cannot be determined: %d\n", i,
					ref_t ? btf_type_str(ref_t) : "UNKNOWN",
					ref_t ? btf_name_by_offset(btf, ref_t->name_off) : "", -EINVAL);
				return -EINVAL;
			}
			if (check_mem_reg(env, reg, regno, type_size))
				return -EINVAL;
		} else {
			verbose(env, "reg type unsupported for arg#%d function %s#%d\n", i, func_name, func_id);
			return -EINVAL;
		}
	}
	return 0;
}

/* btf_check_subprog_arg_match() (the main function's registers) and btf_check_subprog_call()
 * (a call's): a mismatch makes the function unreliable, its BTF no longer trusted */
static int btf_check_subprog_call(struct bpf_verifier_env *env, int subprog, struct bpf_reg_state *regs,
				  bool processing_call)
{
	int err;

	if (!env->prog->func_info)
		return -EINVAL;
	if (!env->prog->func_info[subprog].type_id)
		return -EFAULT;
	if (env->subprog_info[subprog].unreliable)
		return -EINVAL;
	err = btf_check_func_arg_match(env, subprog, regs, subprog_is_global(env, subprog), processing_call);
	if (err)
		env->subprog_info[subprog].unreliable = true;
	return err;
}

/* btf_prepare_func_args(): a global function's arguments as its prototype has them: scalars,
 * its context, memory of the size pointed to or NULL; the return a scalar */
static noinline int btf_prepare_func_args(struct bpf_verifier_env *env, int subprog, struct bpf_reg_state *regs)
{
	const struct btf *btf = env->prog->btf;
	const struct btf_type *t = btf_type_by_id(btf, env->prog->func_info[subprog].type_id);
	const char *tname = btf_name_by_offset(btf, t->name_off);
	const struct btf_param *args;
	u32 i, nargs;

	if (env->log.level & BPF_LOG_LEVEL)
		verbose(env, "Validating %s() func#%d...\n", tname, subprog);
	if (env->subprog_info[subprog].unreliable) {
		verbose(env, "Verifier bug in function %s()\n", tname);
		return -EFAULT;
	}
	t = btf_type_by_id(btf, t->type);
	if (!t || !btf_type_is_func_proto(t)) {
		verbose(env, "Invalid type of function %s()\n", tname);
		return -EFAULT;
	}
	args = (const struct btf_param *)(t + 1);
	nargs = btf_type_vlen(t);
	if (nargs > MAX_BPF_FUNC_REG_ARGS) {
		verbose(env, "Global function %s() with %d > %d args. Buggy compiler.\n", tname, nargs,
			MAX_BPF_FUNC_REG_ARGS);
		return -EINVAL;
	}
	t = prog_btf_skip_modifiers(btf, t->type);
	if (!t || (!btf_type_is_int(t) && !btf_is_any_enum(t))) {
		verbose(env, "Global function %s() doesn't return scalar. Only those are supported.\n", tname);
		return -EINVAL;
	}
	for (i = 0; i < nargs; i++) {
		struct bpf_reg_state *reg = &regs[i + 1];
		const struct btf_type *ref_t;

		t = prog_btf_skip_modifiers(btf, args[i].type);
		if (t && (btf_type_is_int(t) || btf_is_any_enum(t))) {
			reg->type = SCALAR_VALUE;
			continue;
		}
		if (t && btf_type_is_ptr(t)) {
			if (btf_is_prog_ctx_type(env, t)) {
				reg->type = PTR_TO_CTX;
				continue;
			}
			ref_t = prog_btf_skip_modifiers(btf, t->type);
			if (prog_btf_resolve_size(btf, ref_t, &reg->mem_size)) {
				verbose(env, "arg#%d reference type('%s %s') size cannot be determined: %d\n", i,
					ref_t ? btf_type_str(ref_t) : "UNKNOWN",
					ref_t ? btf_name_by_offset(btf, ref_t->name_off) : "", -EINVAL);
				return -EINVAL;
			}
			reg->type = PTR_TO_MEM | PTR_MAYBE_NULL;
			reg->id = ++env->id_gen;
			continue;
		}
		verbose(env, "Arg#%d type %s in %s() is not supported yet.\n", i, t ? btf_type_str(t) : "UNKNOWN", tname);
		return -EINVAL;
	}
	return 0;
}

typedef int (*set_callee_state_fn)(struct bpf_verifier_env *env, struct bpf_func_state *caller,
				   struct bpf_func_state *callee, int insn_idx);

/* set_callee_state(): a bpf-to-bpf call's callee gets the caller's R1-R5 */
static int set_callee_state(struct bpf_verifier_env *env, struct bpf_func_state *caller, struct bpf_func_state *callee,
			    int insn_idx)
{
	int i;

	for (i = BPF_REG_1; i <= BPF_REG_5; i++)
		callee->regs[i] = caller->regs[i];
	return 0;
}

/* set_loop_callback_state(): bpf_loop(nr_loops, callback_fn, callback_ctx, flags) calls
 * callback_fn(index, callback_ctx), which returns 0 or 1 */
static int set_loop_callback_state(struct bpf_verifier_env *env, struct bpf_func_state *caller,
				   struct bpf_func_state *callee, int insn_idx)
{
	__mark_reg_unknown(&callee->regs[BPF_REG_1]);
	callee->regs[BPF_REG_1].type = SCALAR_VALUE;
	callee->regs[BPF_REG_2] = caller->regs[BPF_REG_3];
	__mark_reg_not_init(&callee->regs[BPF_REG_3]);
	__mark_reg_not_init(&callee->regs[BPF_REG_4]);
	__mark_reg_not_init(&callee->regs[BPF_REG_5]);
	callee->in_callback_fn = true;
	callee->callback_ret_range = tnum_range(0, 1);
	return 0;
}

/* map_set_for_each_callback_args(): bpf_for_each_map_elem(map, callback_fn, callback_ctx, flags)
 * calls callback_fn(map, key, value, callback_ctx): the key read only, the value the map's */
static noinline int map_set_for_each_callback_args(struct bpf_verifier_env *env, struct bpf_func_state *caller,
						   struct bpf_func_state *callee)
{
	callee->regs[BPF_REG_1] = caller->regs[BPF_REG_1];
	callee->regs[BPF_REG_2].type = PTR_TO_MAP_KEY;
	__mark_reg_known_zero(&callee->regs[BPF_REG_2]);
	callee->regs[BPF_REG_2].map_ptr = caller->regs[BPF_REG_1].map_ptr;
	callee->regs[BPF_REG_3].type = PTR_TO_MAP_VALUE;
	__mark_reg_known_zero(&callee->regs[BPF_REG_3]);
	callee->regs[BPF_REG_3].map_ptr = caller->regs[BPF_REG_1].map_ptr;
	callee->regs[BPF_REG_4] = caller->regs[BPF_REG_3];	/* a pointer to the stack, or NULL */
	__mark_reg_not_init(&callee->regs[BPF_REG_5]);
	return 0;
}

/* set_map_elem_callback_state(): the map of the call (one map: the same at every visit) must
 * have a walk; the callback returns 0 or 1 */
static noinline int set_map_elem_callback_state(struct bpf_verifier_env *env, struct bpf_func_state *caller,
						struct bpf_func_state *callee, int insn_idx)
{
	struct bpf_map *map = env->insn_aux_data[insn_idx].map_ptr;
	int err;

	if (map == BPF_MAP_PTR_POISON) {
		verbose(env, "tail_call abusing map_ptr\n");
		return -EINVAL;
	}
	if (!map->ops->map_for_each_callback) {
		verbose(env, "callback function not allowed for map\n");
		return -ENOTSUPP;
	}
	err = map_set_for_each_callback_args(env, caller, callee);
	if (err)
		return err;
	callee->in_callback_fn = true;
	callee->callback_ret_range = tnum_range(0, 1);
	return 0;
}

/* __check_func_call(): a frame for the callee, which is verified next, its registers as
 * set_callee_state_cb sets them (a callback's: its helper's arguments) */
static noinline int __check_func_call(struct bpf_verifier_env *env, int *insn_idx, int subprog,
				      set_callee_state_fn set_callee_state_cb)
{
	struct bpf_verifier_state *state = env->cur_state;
	struct bpf_func_state *caller, *callee;
	int err;

	if (state->curframe + 1 >= MAX_CALL_FRAMES) {
		verbose(env, "the call stack of %d frames is too deep\n", state->curframe + 2);
		return -E2BIG;
	}
	caller = state->frame[state->curframe];
	/* the arguments against the callee's prototype; a global callee, verified apart, is not
	 * followed: its result a scalar */
	err = btf_check_subprog_call(env, subprog, caller->regs, true);
	if (err == -EFAULT)
		return err;
	if (subprog_is_global(env, subprog)) {
		if (err) {
			verbose(env, "Caller passes invalid args into func#%d\n", subprog);
			return err;
		}
		if (env->log.level & BPF_LOG_LEVEL)
			verbose(env, "Func#%d is global and valid. Skipping.\n", subprog);
		clear_caller_saved_regs(env, caller->regs);
		mark_reg_unknown(env, caller->regs, BPF_REG_0);
		return 0;
	}
	callee = kzalloc(sizeof(*callee), GFP_KERNEL);
	if (!callee)
		return -ENOMEM;
	state->frame[state->curframe + 1] = callee;
	/* the callee reads none of R0, R6-R9 and its own stack before writing them; it may use
	 * the caller's stack through pointers passed to it */
	init_func_state(env, callee, *insn_idx, state->curframe + 1, subprog);
	callee->callback_ret_range = tnum_range(0, 0);
	err = set_callee_state_cb(env, caller, callee, *insn_idx);
	if (err) {
		kfree(callee);
		state->frame[state->curframe + 1] = NULL;
		return err;
	}
	clear_caller_saved_regs(env, caller->regs);
	state->curframe++;
	*insn_idx = env->subprog_info[subprog].start - 1;	/* the callee's first insn next */
	if (env->log.level & BPF_LOG_LEVEL) {
		verbose(env, "caller:\n");
		print_verifier_state(env, caller, true);
		verbose(env, "callee:\n");
		print_verifier_state(env, callee, true);
	}
	return 0;
}

static noinline notrace int check_func_call(struct bpf_verifier_env *env, struct bpf_insn *insn, int *insn_idx)
{
	int subprog, target_insn = *insn_idx + insn->imm + 1;

	subprog = find_subprog(env, target_insn);
	if (subprog < 0) {
		verbose(env, "verifier bug. No program starts at insn %d\n", target_insn);
		return -EFAULT;
	}
	return __check_func_call(env, insn_idx, subprog, set_callee_state);
}

static noinline int prepare_func_exit(struct bpf_verifier_env *env, int *insn_idx)
{
	struct bpf_verifier_state *state = env->cur_state;
	struct bpf_func_state *callee = state->frame[state->curframe], *caller;
	struct bpf_reg_state *r0 = &callee->regs[BPF_REG_0];

	if (r0->type == PTR_TO_STACK) {
		/* the callee's own stack is gone; 6.1 refuses any stack pointer */
		verbose(env, "cannot return stack pointer to the caller\n");
		return -EINVAL;
	}
	caller = state->frame[state->curframe - 1];
	if (callee->in_callback_fn) {
		/* what the helper is told: 0 or 1; the caller's R0 is the helper's */
		if (r0->type != SCALAR_VALUE) {
			verbose(env, "R0 not a scalar value\n");
			return -EACCES;
		}
		mark_reg_read(env, state->curframe, BPF_REG_0);
		if (!tnum_in(callee->callback_ret_range, r0->var_off)) {
			verbose_invalid_scalar(env, r0, callee->callback_ret_range, "callback return", "R0");
			return -EINVAL;
		}
	} else {
		caller->regs[BPF_REG_0] = *r0;	/* whatever R0 had in the callee */
	}
	*insn_idx = callee->callsite + 1;
	if (env->log.level & BPF_LOG_LEVEL) {
		verbose(env, "returning from callee:\n");
		print_verifier_state(env, callee, true);
		verbose(env, "to caller at %d:\n", *insn_idx);
		print_verifier_state(env, caller, true);
	}
	kfree(callee);
	state->frame[state->curframe--] = NULL;
	return 0;
}

/* ---- the control-flow graph (check_subprogs, check_cfg) ---- */
static bool bpf_pseudo_call(const struct bpf_insn *insn)
{
	return insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg == BPF_PSEUDO_CALL;
}

static bool bpf_pseudo_func(const struct bpf_insn *insn)
{
	return insn->code == (BPF_LD | BPF_IMM | BPF_DW) && insn->src_reg == BPF_PSEUDO_FUNC;
}

/* add_subprog(): a function starting at off (kept sorted by start); its number */
static int add_subprog(struct bpf_verifier_env *env, int off)
{
	int ret, i;

	if (off >= (int)env->prog->len || off < 0) {
		verbose(env, "call to invalid destination\n");
		return -EINVAL;
	}
	ret = find_subprog(env, off);
	if (ret >= 0)
		return ret;
	if (env->subprog_cnt >= BPF_MAX_SUBPROGS) {
		verbose(env, "too many subprograms\n");
		return -E2BIG;
	}
	for (i = env->subprog_cnt; i > 0 && env->subprog_info[i - 1].start > (u32)off; i--)
		env->subprog_info[i] = env->subprog_info[i - 1];
	memset(&env->subprog_info[i], 0, sizeof(env->subprog_info[i]));
	env->subprog_info[i].start = off;
	env->subprog_cnt++;
	return env->subprog_cnt - 1;
}

/* add_subprog_and_kfunc(): func#0 at insn 0, a function at each bpf-to-bpf call's target (and
 * each callback's, ld_imm64 of BPF_PSEUDO_FUNC); calls are for CAP_BPF.  (kfunc calls: refused
 * by do_check, this kernel has none.) */
static noinline int add_subprog_and_kfunc(struct bpf_verifier_env *env)
{
	struct bpf_insn *insn = env->prog->insnsi;
	int i, ret, insn_cnt = env->prog->len;

	ret = add_subprog(env, 0);
	if (ret)
		return ret;
	for (i = 0; i < insn_cnt; i++, insn++) {
		if (!bpf_pseudo_func(insn) && !bpf_pseudo_call(insn) &&
		    !(insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg == BPF_PSEUDO_KFUNC_CALL))
			continue;
		if (!env->bpf_capable) {
			verbose(env, "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN\n");
			return -EPERM;
		}
		if (bpf_pseudo_func(insn) || bpf_pseudo_call(insn)) {
			ret = add_subprog(env, i + insn->imm + 1);
			if (ret < 0)
				return ret;
		}
	}
	/* one past the last: its start the end of the last function */
	env->subprog_info[env->subprog_cnt].start = insn_cnt;
	if (env->log.level & BPF_LOG_LEVEL2)
		for (i = 0; i < (int)env->subprog_cnt; i++)
			verbose(env, "func#%d @%d\n", i, env->subprog_info[i].start);
	return 0;
}

/* check_subprogs(): every jump stays in its function, and each function ends in an exit or a
 * jump (no falling into the next one) */
static int check_subprogs(struct bpf_verifier_env *env)
{
	struct bpf_subprog_info *subprog = env->subprog_info;
	struct bpf_insn *insn = env->prog->insnsi;
	int i, insn_cnt = env->prog->len, cur_subprog = 0, off;
	int subprog_start = subprog[0].start, subprog_end = subprog[1].start;

	for (i = 0; i < insn_cnt; i++) {
		u8 code = insn[i].code;

		if (code == (BPF_JMP | BPF_CALL) && insn[i].imm == BPF_FUNC_tail_call && insn[i].src_reg != BPF_PSEUDO_CALL)
			subprog[cur_subprog].has_tail_call = true;
		if (BPF_CLASS(code) != BPF_JMP && BPF_CLASS(code) != BPF_JMP32)
			goto next;
		if (BPF_OP(code) == BPF_EXIT || BPF_OP(code) == BPF_CALL)
			goto next;
		if (code == (BPF_JMP32 | BPF_JA))	/* gotol (6.1.192 has it): its offset in imm */
			off = i + insn[i].imm + 1;
		else
			off = i + insn[i].off + 1;
		if (off < subprog_start || off >= subprog_end) {
			verbose(env, "jump out of range from insn %d to %d\n", i, off);
			return -EINVAL;
		}
next:
		if (i == subprog_end - 1) {
			if (code != (BPF_JMP | BPF_EXIT) && code != (BPF_JMP32 | BPF_JA) && code != (BPF_JMP | BPF_JA)) {
				verbose(env, "last insn is not an exit or jmp\n");
				return -EINVAL;
			}
			subprog_start = subprog_end;
			cur_subprog++;
			if (cur_subprog < (int)env->subprog_cnt)
				subprog_end = subprog[cur_subprog + 1].start;
		}
	}
	return 0;
}

/* check_max_stack_depth(): down every chain of calls from func#0, at most 8 frames and 512
 * bytes of stack, each function's rounded up to 32 (the interpreter's granularity).  A tail
 * call leaves its callers' frames on the stack: a function that makes one may be called with at
 * most 256 bytes of them (33 tail calls * 256 bytes: 8k at worst), and each function on a chain
 * to one is tail_call_reachable (the JIT passes the count down its calls). */
static int check_max_stack_depth(struct bpf_verifier_env *env)
{
	struct bpf_subprog_info *subprog = env->subprog_info;
	struct bpf_insn *insn = env->prog->insnsi;
	int depth = 0, frame = 0, idx = 0, i = 0, j, subprog_end;
	int ret_insn[MAX_CALL_FRAMES], ret_prog[MAX_CALL_FRAMES];
	bool tail_call_reachable = false;

process_func:
	if (idx && subprog[idx].has_tail_call && depth >= 256) {
		verbose(env, "tail_calls are not allowed when call stack of previous frames is %d bytes. Too large\n",
			depth);
		return -EACCES;
	}
	depth += ALIGN(subprog[idx].stack_depth ? subprog[idx].stack_depth : 1, 32);
	if (depth > MAX_BPF_STACK) {
		verbose(env, "combined stack size of %d calls is %d. Too large\n", frame + 1, depth);
		return -EACCES;
	}
continue_func:
	subprog_end = subprog[idx + 1].start;
	for (; i < subprog_end; i++) {
		int next_insn, sidx;

		if (!bpf_pseudo_call(insn + i) && !bpf_pseudo_func(insn + i))
			continue;
		ret_insn[frame] = i + 1;
		ret_prog[frame] = idx;
		next_insn = i + insn[i].imm + 1;
		sidx = find_subprog(env, next_insn);
		if (sidx < 0) {
			verbose(env, "verifier bug. No program starts at insn %d\n", next_insn);
			return -EFAULT;
		}
		i = next_insn;
		idx = sidx;
		if (subprog[idx].has_tail_call)
			tail_call_reachable = true;
		frame++;
		if (frame >= MAX_CALL_FRAMES) {
			verbose(env, "the call stack of %d frames is too deep !\n", frame);
			return -E2BIG;
		}
		goto process_func;
	}
	if (tail_call_reachable)
		for (j = 0; j < frame; j++)
			subprog[ret_prog[j]].tail_call_reachable = true;
	if (subprog[0].tail_call_reachable)	/* (its own tail calls: the JIT sees them) */
		env->prog->tail_call_reachable = true;
	if (frame == 0)
		return 0;
	depth -= ALIGN(subprog[idx].stack_depth ? subprog[idx].stack_depth : 1, 32);
	frame--;
	i = ret_insn[frame];
	idx = ret_prog[frame];
	goto continue_func;
}

/* ---- the program's own BTF: its functions and source lines (check_btf_info) ---- */
#define MIN_BPF_FUNCINFO_SIZE	8
#define MAX_FUNCINFO_REC_SIZE	252
#define MIN_BPF_LINEINFO_SIZE	sizeof(struct bpf_line_info)	/* offsetofend(, line_col) */
#define MAX_LINEINFO_REC_SIZE	MAX_FUNCINFO_REC_SIZE
#define INT_MAX			0x7fffffff

/* check_btf_func(): a func_info record per function, in order, each at its function's first
 * instruction and naming a FUNC of the program's BTF.  Records may be longer than this kernel's
 * if their tail is zeros (else E2BIG, with the size it reads written back for the loader).
 * A function other than the main one that makes a tail call must return an int (its caller
 * gets the tail-called program's return value).  (LD_ABS: no program type here has it.) */
static inline int check_btf_func(struct bpf_verifier_env *env, const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 i, nfuncs = attr->func_info_cnt, urec_size, min_size, krec_size = sizeof(struct bpf_func_info);
	const struct btf_type *type, *func_proto;
	struct bpf_prog *prog = env->prog;
	struct bpf_func_info *krecord;
	u32 prev_offset = 0;
	u64 urecord;
	int ret;

	if (!nfuncs)
		return 0;
	if (nfuncs != env->subprog_cnt) {
		verbose(env, "number of funcs in func_info doesn't match number of subprogs\n");
		return -EINVAL;
	}
	urec_size = attr->func_info_rec_size;
	if (urec_size < MIN_BPF_FUNCINFO_SIZE || urec_size > MAX_FUNCINFO_REC_SIZE || urec_size % sizeof(u32)) {
		verbose(env, "invalid func info rec size %u\n", urec_size);
		return -EINVAL;
	}
	urecord = attr->func_info;
	min_size = min(krec_size, urec_size);
	krecord = kvzalloc((u64)nfuncs * krec_size, GFP_KERNEL);
	if (!krecord)
		return -ENOMEM;
	for (i = 0; i < nfuncs; i++) {
		ret = bpf_check_uarg_tail_zero(urecord, krec_size, urec_size);
		if (ret) {
			if (ret == -E2BIG) {
				verbose(env, "nonzero tailing record in func info");
				if (copy_to_user(&uattr->func_info_rec_size, &min_size, sizeof(min_size)))
					ret = -EFAULT;
			}
			goto err_free;
		}
		if (copy_from_user(&krecord[i], (void *)urecord, min_size)) {
			ret = -EFAULT;
			goto err_free;
		}
		ret = -EINVAL;
		if (i == 0) {
			if (krecord[i].insn_off) {
				verbose(env, "nonzero insn_off %u for the first func info record", krecord[i].insn_off);
				goto err_free;
			}
		} else if (krecord[i].insn_off <= prev_offset) {
			verbose(env, "same or smaller insn offset (%u) than previous func info record (%u)",
				krecord[i].insn_off, prev_offset);
			goto err_free;
		}
		if (env->subprog_info[i].start != krecord[i].insn_off) {
			verbose(env, "func_info BTF section doesn't match subprog layout in BPF program\n");
			goto err_free;
		}
		type = btf_type_by_id(prog->btf, krecord[i].type_id);
		if (!type || !btf_type_is_func(type)) {
			verbose(env, "invalid type id %d in func info", krecord[i].type_id);
			goto err_free;
		}
		/* (BPF_BTF_LOAD's btf_func_check() saw its FUNC_PROTO) */
		func_proto = btf_type_by_id(prog->btf, type->type);
		if (!func_proto || !btf_type_is_func_proto(func_proto))
			goto err_free;
		if (i && env->subprog_info[i].has_tail_call) {
			const struct btf_type *ret_type = prog_btf_skip_modifiers(prog->btf, func_proto->type);

			if (!ret_type || !(btf_type_is_small_int(ret_type) || btf_is_any_enum(ret_type))) {
				verbose(env, "tail_call is only allowed in functions that return 'int'.\n");
				goto err_free;
			}
		}
		prev_offset = krecord[i].insn_off;
		urecord += urec_size;
	}
	prog->func_info = krecord;
	prog->func_info_cnt = nfuncs;
	return 0;
err_free:
	kvfree(krecord);
	return ret;
}

/* check_btf_line(): line_info records in strictly increasing instruction order, each at an
 * instruction (not an ld_imm64's second half) of the program, naming its file and source line
 * by strings of the program's BTF, and each function's first instruction starting a line */
noinline int check_btf_line(struct bpf_verifier_env *env, const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 i, s, nr_linfo = attr->line_info_cnt, ncopy, expected_size, rec_size, prev_offset = 0;
	struct bpf_subprog_info *sub = env->subprog_info;
	struct bpf_prog *prog = env->prog;
	struct bpf_line_info *linfo;
	u64 ulinfo;
	int err;

	if (!nr_linfo)
		return 0;
	if (nr_linfo > INT_MAX / sizeof(struct bpf_line_info))
		return -EINVAL;
	rec_size = attr->line_info_rec_size;
	if (rec_size < MIN_BPF_LINEINFO_SIZE || rec_size > MAX_LINEINFO_REC_SIZE || rec_size & (sizeof(u32) - 1))
		return -EINVAL;
	/* zeroed: a loader's records may be shorter than this kernel's */
	linfo = kvzalloc((u64)nr_linfo * sizeof(struct bpf_line_info), GFP_KERNEL);
	if (!linfo)
		return -ENOMEM;
	s = 0;
	ulinfo = attr->line_info;
	expected_size = sizeof(struct bpf_line_info);
	ncopy = min(expected_size, rec_size);
	for (i = 0; i < nr_linfo; i++) {
		err = bpf_check_uarg_tail_zero(ulinfo, expected_size, rec_size);
		if (err) {
			if (err == -E2BIG) {
				verbose(env, "nonzero tailing record in line_info");
				if (copy_to_user(&uattr->line_info_rec_size, &expected_size, sizeof(expected_size)))
					err = -EFAULT;
			}
			goto err_free;
		}
		if (copy_from_user(&linfo[i], (void *)ulinfo, ncopy)) {
			err = -EFAULT;
			goto err_free;
		}
		/* (linfo[0] at insn 0 is the "missing bpf_line_info for func#0" check below) */
		if ((i && linfo[i].insn_off <= prev_offset) || linfo[i].insn_off >= prog->len) {
			verbose(env, "Invalid line_info[%u].insn_off:%u (prev_offset:%u prog->len:%u)\n", i,
				linfo[i].insn_off, prev_offset, prog->len);
			err = -EINVAL;
			goto err_free;
		}
		if (!prog->insnsi[linfo[i].insn_off].code) {
			verbose(env, "Invalid insn code at line_info[%u].insn_off\n", i);
			err = -EINVAL;
			goto err_free;
		}
		if (!btf_name_by_offset(prog->btf, linfo[i].line_off) ||
		    !btf_name_by_offset(prog->btf, linfo[i].file_name_off)) {
			verbose(env, "Invalid line_info[%u].line_off or .file_name_off\n", i);
			err = -EINVAL;
			goto err_free;
		}
		if (s != env->subprog_cnt) {
			if (linfo[i].insn_off == sub[s].start) {
				sub[s].linfo_idx = i;
				s++;
			} else if (sub[s].start < linfo[i].insn_off) {
				verbose(env, "missing bpf_line_info for func#%u\n", s);
				err = -EINVAL;
				goto err_free;
			}
		}
		prev_offset = linfo[i].insn_off;
		ulinfo += rec_size;
	}
	if (s != env->subprog_cnt) {
		verbose(env, "missing bpf_line_info for %u funcs starting from func#%u\n", env->subprog_cnt - s, s);
		err = -EINVAL;
		goto err_free;
	}
	prog->linfo = linfo;
	prog->nr_linfo = nr_linfo;
	return 0;
err_free:
	kvfree(linfo);
	return err;
}

/* check_btf_info(): a program's func_info and line_info, about its own BTF (prog_btf_fd: a
 * user's BTF object, which the program keeps; not vmlinux's).  Without either, prog_btf_fd is
 * not looked at.  Then 6.1 applies the CO-RE relocations (core_relo_cnt, bpf_core_apply()),
 * which this kernel does not: EINVAL, as a kernel without them (libbpf relocates in user space). */
static inline int check_btf_info(struct bpf_verifier_env *env, const union bpf_attr *attr, union bpf_attr *uattr)
{
	struct btf *btf;
	u32 i;
	int err;

	if (!attr->func_info_cnt && !attr->line_info_cnt) {
		/* check_abnormal_return(): without BTF a function's return type is unknown */
		for (i = 1; i < env->subprog_cnt; i++)
			if (env->subprog_info[i].has_tail_call) {
				verbose(env, "tail_call is not allowed in subprogs without BTF\n");
				return -EINVAL;
			}
		return 0;
	}
	btf = btf_get_by_fd(attr->prog_btf_fd);
	if (IS_ERR(btf))
		return PTR_ERR(btf);
	if (btf_is_kernel(btf)) {
		btf_put(btf);
		return -EACCES;
	}
	env->prog->btf = btf;
	err = check_btf_func(env, attr, uattr);
	if (err)
		return err;
	err = check_btf_line(env, attr, uattr);
	if (err)
		return err;
	return attr->core_relo_cnt ? -EINVAL : 0;
}

enum { DISCOVERED = 0x10, EXPLORED = 0x20, FALLTHROUGH = 1, BRANCH = 2 };
enum { DONE_EXPLORING = 0, KEEP_EXPLORING = 1 };

static int push_insn(int t, int w, int e, struct bpf_verifier_env *env, bool loop_ok, int *cur_stack)
{
	struct bpf_insn_aux_data *aux = env->insn_aux_data;

	if (e == FALLTHROUGH && aux[t].cfg_state >= (DISCOVERED | FALLTHROUGH))
		return DONE_EXPLORING;
	if (e == BRANCH && aux[t].cfg_state >= (DISCOVERED | BRANCH))
		return DONE_EXPLORING;
	if (w < 0 || w >= (int)env->prog->len) {
		verbose_linfo(env, t, "%d: ", t);
		verbose(env, "jump out of range from insn %d to %d\n", t, w);
		return -EINVAL;
	}
	if (e == BRANCH)
		aux[w].prune_point = true;
	if (aux[w].cfg_state == 0) {
		aux[t].cfg_state = DISCOVERED | e;
		aux[w].cfg_state = DISCOVERED;
		env->insn_stack[(*cur_stack)++] = w;
		return KEEP_EXPLORING;
	} else if ((aux[w].cfg_state & 0xF0) == DISCOVERED) {
		if (loop_ok && env->bpf_capable)
			return DONE_EXPLORING;
		verbose_linfo(env, t, "%d: ", t);
		verbose_linfo(env, w, "%d: ", w);
		verbose(env, "back-edge from insn %d to %d\n", t, w);
		return -EINVAL;
	} else if (aux[w].cfg_state == EXPLORED) {
		aux[t].cfg_state = DISCOVERED | e;
	} else {
		verbose(env, "insn state internal bug\n");
		return -EFAULT;
	}
	return DONE_EXPLORING;
}

static int visit_insn(int t, struct bpf_verifier_env *env, int *cur_stack)
{
	struct bpf_insn *insns = env->prog->insnsi;
	struct bpf_insn_aux_data *aux = env->insn_aux_data;
	int ret;

	if (bpf_pseudo_func(&insns[t])) {	/* a callback: on past it, and into the callback */
		ret = push_insn(t, t + 2, FALLTHROUGH, env, false, cur_stack);
		if (ret)
			return ret;
		aux[t + 2].prune_point = true;
		aux[t].prune_point = true;
		return push_insn(t, t + insns[t].imm + 1, BRANCH, env, true, cur_stack);
	}
	if (BPF_CLASS(insns[t].code) != BPF_JMP && BPF_CLASS(insns[t].code) != BPF_JMP32)
		return push_insn(t, t + (insns[t].code == (BPF_LD | BPF_IMM | BPF_DW) ? 2 : 1), FALLTHROUGH, env,
				 false, cur_stack);
	switch (BPF_OP(insns[t].code)) {
	case BPF_EXIT:
		return DONE_EXPLORING;
	case BPF_CALL:	/* visit_func_call_insn(): on past it, and into a bpf-to-bpf call's callee */
		ret = push_insn(t, t + 1, FALLTHROUGH, env, false, cur_stack);
		if (ret)
			return ret;
		aux[t + 1].prune_point = true;
		if (insns[t].src_reg == BPF_PSEUDO_CALL) {
			aux[t].prune_point = true;
			ret = push_insn(t, t + insns[t].imm + 1, BRANCH, env, false, cur_stack);
		}
		return ret;
	case BPF_JA: {
		int off = BPF_CLASS(insns[t].code) == BPF_JMP ? insns[t].off : insns[t].imm;

		if (BPF_SRC(insns[t].code) != BPF_K)
			return -EINVAL;
		ret = push_insn(t, t + off + 1, FALLTHROUGH, env, true, cur_stack);
		if (ret)
			return ret;
		aux[t + off + 1].prune_point = true;
		return ret;
	}
	default:
		aux[t].prune_point = true;
		ret = push_insn(t, t + 1, FALLTHROUGH, env, true, cur_stack);
		if (ret)
			return ret;
		return push_insn(t, t + insns[t].off + 1, BRANCH, env, true, cur_stack);
	}
}

static noinline int check_cfg(struct bpf_verifier_env *env)
{
	int insn_cnt = env->prog->len, cur_stack = 1, ret = 0, i;

	env->insn_stack = kmalloc((u64)insn_cnt * sizeof(int), GFP_KERNEL);
	if (!env->insn_stack)
		return -ENOMEM;
	env->insn_stack[0] = 0;
	env->insn_aux_data[0].cfg_state = DISCOVERED;
	while (cur_stack > 0) {
		int t = env->insn_stack[cur_stack - 1];

		ret = visit_insn(t, env, &cur_stack);
		if (ret == DONE_EXPLORING) {
			env->insn_aux_data[t].cfg_state = EXPLORED;
			cur_stack--;
		} else if (ret < 0) {
			goto err;
		}
	}
	for (i = 0; i < insn_cnt; i++) {
		struct bpf_insn *insn = &env->prog->insnsi[i];

		if (env->insn_aux_data[i].cfg_state != EXPLORED) {
			verbose(env, "unreachable insn %d\n", i);
			ret = -EINVAL;
			goto err;
		}
		if (insn->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (env->insn_aux_data[i + 1].cfg_state) {
				verbose(env, "jump into the middle of ldimm64 insn %d\n", i);
				ret = -EINVAL;
				goto err;
			}
			i++;
		}
	}
	ret = 0;
err:
	kfree(env->insn_stack);
	env->insn_stack = NULL;
	return ret;
}

/* bpf_opcode_in_insntable(): the opcodes the interpreter has */
noinline bool bpf_opcode_in_insntable(u8 code)
{
	u8 cls = BPF_CLASS(code), op = BPF_OP(code);

	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		if (op == BPF_END)
			return cls == BPF_ALU;
		if (op == BPF_NEG)
			return BPF_SRC(code) == BPF_K;
		return op <= BPF_ARSH;
	case BPF_JMP:
		if (op == BPF_JA || op == BPF_CALL || op == BPF_EXIT)	/* (not the internal tail call) */
			return BPF_SRC(code) == BPF_K;
		return op <= BPF_JSLE;
	case BPF_JMP32:
		if (op == BPF_JA)	/* gotol */
			return BPF_SRC(code) == BPF_K;
		return op != BPF_CALL && op != BPF_EXIT && op <= BPF_JSLE;
	case BPF_LD:
		if (BPF_MODE(code) == BPF_ABS || BPF_MODE(code) == BPF_IND)
			return BPF_SIZE(code) != BPF_DW;
		return code == (BPF_LD | BPF_IMM | BPF_DW);
	case BPF_LDX:
	case BPF_ST:
		return BPF_MODE(code) == BPF_MEM;
	case BPF_STX:
		return BPF_MODE(code) == BPF_MEM ||
		       (BPF_MODE(code) == BPF_ATOMIC && (BPF_SIZE(code) == BPF_W || BPF_SIZE(code) == BPF_DW));
	}
	return false;
}

static int resolve_pseudo_ldimm64(struct bpf_verifier_env *env)
{
	struct bpf_insn *insn = env->prog->insnsi;
	int insn_cnt = env->prog->len, i;
	u32 j;

	for (i = 0; i < insn_cnt; i++, insn++) {
		if (BPF_CLASS(insn->code) == BPF_LDX && (BPF_MODE(insn->code) != BPF_MEM || insn->imm != 0)) {
			verbose(env, "BPF_LDX uses reserved fields\n");
			return -EINVAL;
		}
		if (insn[0].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			struct bpf_insn_aux_data *aux = &env->insn_aux_data[i];
			struct bpf_map *map;
			u64 addr;
			int fd;

			if (i == insn_cnt - 1 || insn[1].code != 0 || insn[1].dst_reg != 0 || insn[1].src_reg != 0 ||
			    insn[1].off != 0) {
				verbose(env, "invalid bpf_ld_imm64 insn\n");
				return -EINVAL;
			}
			if (insn[0].src_reg == 0 || insn[0].src_reg == BPF_PSEUDO_FUNC)	/* (check_ld_imm()'s) */
				goto next_insn;
			if (!(insn[0].src_reg == BPF_PSEUDO_MAP_VALUE ||
			      (insn[0].src_reg == BPF_PSEUDO_MAP_FD && insn[1].imm == 0))) {
				verbose(env, "unrecognized bpf_ld_imm64 insn\n");
				return -EINVAL;
			}
			fd = insn[0].imm;
			map = bpf_map_get(fd);
			if (IS_ERR(map)) {
				verbose(env, "fd %d is not pointing to valid bpf_map\n", fd);
				return PTR_ERR(map);
			}
			if (insn[0].src_reg == BPF_PSEUDO_MAP_FD) {
				addr = (unsigned long)map;
			} else {
				u32 off = insn[1].imm;
				int err;

				if (off >= BPF_MAX_VAR_OFF) {
					verbose(env, "direct value offset of %u is not allowed\n", off);
					bpf_map_put(map);
					return -EINVAL;
				}
				if (!map->ops->map_direct_value_addr) {
					verbose(env, "no direct value access support for this map type\n");
					bpf_map_put(map);
					return -EINVAL;
				}
				err = map->ops->map_direct_value_addr(map, &addr, off);
				if (err) {
					verbose(env, "invalid access to map value pointer, value_size=%u off=%u\n",
						map->value_size, off);
					bpf_map_put(map);
					return err;
				}
				aux->map_off = off;
				addr += off;
			}
			insn[0].imm = (u32)addr;
			insn[1].imm = addr >> 32;
			for (j = 0; j < env->used_map_cnt; j++) {
				if (env->used_maps[j] == map) {
					aux->map_index = j;
					bpf_map_put(map);
					goto next_insn;
				}
			}
			if (env->used_map_cnt >= ARRAY_SIZE(env->used_maps)) {
				bpf_map_put(map);
				return -E2BIG;
			}
			aux->map_index = env->used_map_cnt;
			env->used_maps[env->used_map_cnt++] = map;	/* the reference goes to the program */
next_insn:
			insn++;
			i++;
			continue;
		}
		if (!bpf_opcode_in_insntable(insn->code)) {
			verbose(env, "unknown opcode %02x\n", insn->code);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- the walk over every path ---- */
static int check_ld_abs(struct bpf_verifier_env *env, struct bpf_insn *insn)
{
	if (env->prog->type != BPF_PROG_TYPE_SOCKET_FILTER) {
		verbose(env, "BPF_LD_[ABS|IND] instructions not allowed for this program type\n");
		return -EINVAL;
	}
	/* no socket buffers reach a program here: what would read one is refused */
	verbose(env, "BPF_LD_[ABS|IND] instructions not allowed for this program type\n");
	return -EINVAL;
}

/* check_return_code(): fentry/fexit programs return 0, iterators 0 or 1 (the other types here may
 * return anything) */
static int check_return_code(struct bpf_verifier_env *env)
{
	const struct bpf_reg_state *reg = &cur_regs(env)[BPF_REG_0];
	struct tnum range = tnum_const(0);
	char tn_buf[48];

	if (env->cur_state->frame[0]->subprogno) {	/* a global function's: any scalar */
		if (reg->type != SCALAR_VALUE) {
			verbose(env, "At subprogram exit the register R0 is not a scalar value (%s)\n",
				reg_type_str(reg->type, tn_buf));
			return -EINVAL;
		}
		return 0;
	}
	if (env->prog->type != BPF_PROG_TYPE_TRACING)
		return 0;
	if (env->prog->expected_attach_type == BPF_TRACE_ITER)
		range = tnum_range(0, 1);	/* 1: show the object again (bpf_iter_run_prog()) */
	if (reg->type != SCALAR_VALUE) {
		verbose(env, "At program exit the register R0 is not a known value (%s)\n",
			reg_type_str(reg->type, tn_buf));
		return -EINVAL;
	}
	if (!tnum_in(range, reg->var_off)) {
		verbose_invalid_scalar(env, reg, range, "program exit", "R0");
		return -EINVAL;
	}
	return 0;
}

/* reg_type_mismatch_ok(): pointers whose loads are not rewritten */
static bool reg_type_mismatch_ok(u32 type)
{
	return base_type(type) != PTR_TO_CTX && base_type(type) != PTR_TO_BTF_ID;
}

static int do_check(struct bpf_verifier_env *env)
{
	bool pop_log = !(env->log.level & BPF_LOG_LEVEL2);
	struct bpf_verifier_state *state = env->cur_state;
	struct bpf_insn *insns = env->prog->insnsi;
	struct bpf_reg_state *regs;
	int insn_cnt = env->prog->len, prev_insn_idx = -1;
	bool do_print_state = false;

	for (;;) {
		struct bpf_insn *insn;
		u8 class;
		int err;

		env->prev_insn_idx = prev_insn_idx;
		if (env->insn_idx >= insn_cnt) {
			verbose(env, "invalid insn idx %d insn_cnt %d\n", env->insn_idx, insn_cnt);
			return -EFAULT;
		}
		insn = &insns[env->insn_idx];
		class = BPF_CLASS(insn->code);
		if (++env->insn_processed > BPF_COMPLEXITY_LIMIT_INSNS) {
			verbose(env, "BPF program is too large. Processed %d insn\n", env->insn_processed);
			return -E2BIG;
		}
		err = is_state_visited(env, env->insn_idx);
		if (err < 0)
			return err;
		if (err == 1) {
			if (env->log.level & BPF_LOG_LEVEL) {
				if (do_print_state)
					verbose(env, "\nfrom %d to %d: safe\n", env->prev_insn_idx, env->insn_idx);
				else
					verbose(env, "%d: safe\n", env->insn_idx);
			}
			goto process_bpf_exit;
		}
		if (env->log.level & BPF_LOG_LEVEL2 && do_print_state) {
			verbose(env, "\nfrom %d to %d:", env->prev_insn_idx, env->insn_idx);
			print_verifier_state(env, cur_func(env), true);
			do_print_state = false;
		}
		if (env->log.level & BPF_LOG_LEVEL) {
			if (env->scratched_regs || env->scratched_stack_slots)
				print_insn_state(env, cur_func(env));
			verbose_linfo(env, env->insn_idx, "; ");
			env->prev_log_len = env->log.len_used;
			verbose(env, "%d: ", env->insn_idx);
			print_bpf_insn(&env->log, insn, env->allow_ptr_leaks);
			env->prev_insn_print_len = env->log.len_used - env->prev_log_len;
			env->prev_log_len = env->log.len_used;
		}
		regs = cur_regs(env);
		env->insn_aux_data[env->insn_idx].seen = true;
		prev_insn_idx = env->insn_idx;

		if (class == BPF_ALU || class == BPF_ALU64) {
			err = check_alu_op(env, insn);
			if (err)
				return err;
		} else if (class == BPF_LDX) {
			u32 src_reg_type, *prev_src_type;

			err = check_reg_arg(env, insn->src_reg, SRC_OP);
			if (err)
				return err;
			err = check_reg_arg(env, insn->dst_reg, DST_OP_NO_MARK);
			if (err)
				return err;
			src_reg_type = regs[insn->src_reg].type;
			err = check_mem_access(env, env->insn_idx, insn->src_reg, insn->off, BPF_SIZE(insn->code),
					       BPF_READ, insn->dst_reg, insn);
			if (err)
				return err;
			/* a load from the context or through PTR_TO_BTF_ID is rewritten: it must read
			 * through the same kind of pointer on every path (reg_type_mismatch()) */
			prev_src_type = &env->insn_aux_data[env->insn_idx].ptr_type;
			if (*prev_src_type == NOT_INIT) {
				*prev_src_type = src_reg_type;
			} else if (src_reg_type != *prev_src_type &&
				   (!reg_type_mismatch_ok(src_reg_type) || !reg_type_mismatch_ok(*prev_src_type))) {
				verbose(env, "same insn cannot be used with different pointers\n");
				return -EINVAL;
			}
		} else if (class == BPF_STX) {
			if (BPF_MODE(insn->code) == BPF_ATOMIC) {
				err = check_atomic(env, env->insn_idx, insn);
				if (err)
					return err;
				env->insn_idx++;
				continue;
			}
			if (BPF_MODE(insn->code) != BPF_MEM || insn->imm != 0) {
				verbose(env, "BPF_STX uses reserved fields\n");
				return -EINVAL;
			}
			err = check_reg_arg(env, insn->src_reg, SRC_OP);
			if (err)
				return err;
			err = check_reg_arg(env, insn->dst_reg, SRC_OP);
			if (err)
				return err;
			err = check_mem_access(env, env->insn_idx, insn->dst_reg, insn->off, BPF_SIZE(insn->code),
					       BPF_WRITE, insn->src_reg, insn);
			if (err)
				return err;
		} else if (class == BPF_ST) {
			char tb[32];

			if (BPF_MODE(insn->code) != BPF_MEM || insn->src_reg != BPF_REG_0) {
				verbose(env, "BPF_ST uses reserved fields\n");
				return -EINVAL;
			}
			err = check_reg_arg(env, insn->dst_reg, SRC_OP);
			if (err)
				return err;
			if (regs[insn->dst_reg].type == PTR_TO_CTX) {
				verbose(env, "BPF_ST stores into R%d %s is not allowed\n", insn->dst_reg,
					reg_type_str(regs[insn->dst_reg].type, tb));
				return -EACCES;
			}
			err = check_mem_access(env, env->insn_idx, insn->dst_reg, insn->off, BPF_SIZE(insn->code),
					       BPF_WRITE, -1, insn);
			if (err)
				return err;
		} else if (class == BPF_JMP || class == BPF_JMP32) {
			u8 opcode = BPF_OP(insn->code);

			env->jmps_processed++;
			if (opcode == BPF_CALL) {
				if (BPF_SRC(insn->code) != BPF_K || insn->off != 0 ||
				    (insn->src_reg != BPF_REG_0 && insn->src_reg != BPF_PSEUDO_CALL &&
				     insn->src_reg != BPF_PSEUDO_KFUNC_CALL) ||
				    insn->dst_reg != BPF_REG_0 || class == BPF_JMP32) {
					verbose(env, "BPF_CALL uses reserved fields\n");
					return -EINVAL;
				}
				if (insn->src_reg == BPF_PSEUDO_KFUNC_CALL) {
					verbose(env, "function calls are not supported here\n");
					return -EINVAL;
				}
				if (insn->src_reg == BPF_PSEUDO_CALL)
					err = check_func_call(env, insn, &env->insn_idx);
				else
					err = check_helper_call(env, insn, &env->insn_idx);
				if (err)
					return err;
			} else if (opcode == BPF_JA) {
				if (BPF_SRC(insn->code) != BPF_K || insn->src_reg != BPF_REG_0 ||
				    insn->dst_reg != BPF_REG_0 || (class == BPF_JMP && insn->imm != 0) ||
				    (class == BPF_JMP32 && insn->off != 0)) {
					verbose(env, "BPF_JA uses reserved fields\n");
					return -EINVAL;
				}
				env->insn_idx += (class == BPF_JMP ? insn->off : insn->imm) + 1;
				continue;
			} else if (opcode == BPF_EXIT) {
				if (BPF_SRC(insn->code) != BPF_K || insn->imm != 0 || insn->src_reg != BPF_REG_0 ||
				    insn->dst_reg != BPF_REG_0 || class == BPF_JMP32) {
					verbose(env, "BPF_EXIT uses reserved fields\n");
					return -EINVAL;
				}
				/* before prepare_func_exit(), as 6.1 */
				err = check_reference_leak(env);
				if (err)
					return err;
				if (state->curframe) {
					/* the exit of a called function */
					err = prepare_func_exit(env, &env->insn_idx);
					if (err)
						return err;
					do_print_state = true;
					continue;
				}
				err = check_reg_arg(env, BPF_REG_0, SRC_OP);
				if (err)
					return err;
				if (is_pointer_value(env, BPF_REG_0)) {
					verbose(env, "R0 leaks addr as return value\n");
					return -EACCES;
				}
				err = check_return_code(env);
				if (err)
					return err;
process_bpf_exit:
				env->scratched_regs = ~0U;
				env->scratched_stack_slots = ~0UL;
				update_branch_counts(env, env->cur_state);
				err = pop_stack(env, &prev_insn_idx, &env->insn_idx, pop_log);
				if (err < 0) {
					if (err != -ENOENT)
						return err;
					break;
				}
				do_print_state = true;
				continue;
			} else {
				err = check_cond_jmp_op(env, insn, &env->insn_idx);
				if (err)
					return err;
			}
		} else if (class == BPF_LD) {
			u8 mode = BPF_MODE(insn->code);

			if (mode == BPF_ABS || mode == BPF_IND) {
				err = check_ld_abs(env, insn);
				if (err)
					return err;
			} else if (mode == BPF_IMM) {
				err = check_ld_imm(env, insn);
				if (err)
					return err;
				env->insn_idx++;
				env->insn_aux_data[env->insn_idx].seen = true;	/* (sanitize_mark_insn_seen()) */
			} else {
				verbose(env, "invalid BPF_LD mode\n");
				return -EINVAL;
			}
		} else {
			verbose(env, "unknown insn class %d\n", class);
			return -EINVAL;
		}
		env->insn_idx++;
	}
	return 0;
}

/* ---- after verification: what the program runs as (do_misc_fixups) ----
 * A division or modulo by a register gets 6.1's guard (x / 0 = 0, x % 0 = x), a lookup in one
 * array or hash map its inline form, every helper number its call offset.  Patches grow the
 * program; the jumps across them are moved (bpf_patch_insn_data). */
#define MAX_PATCH 24	/* (an inlined bpf_loop: 20) */

/*
 * convert_ctx_accesses() for one load from the context: the program type's instructions for the
 * field; a narrower load than the field reads the whole field, then shifts and masks its part.
 */
static int convert_ctx_access(struct bpf_verifier_env *env, u32 i, struct bpf_insn *buf)
{
	struct bpf_insn insn = env->prog->insnsi[i];
	u32 ctx_field_size = env->insn_aux_data[i].ctx_field_size, target_size = 0, size, size_default;
	s16 off = insn.off;
	bool is_narrower_load;
	int cnt;

	size = bpf_size_to_bytes(BPF_SIZE(insn.code));
	is_narrower_load = size < ctx_field_size;
	size_default = ctx_field_size > 4 ? ctx_field_size : 4;	/* bpf_ctx_off_adjust_machine() */
	if (is_narrower_load) {
		u8 size_code = ctx_field_size == 4 ? BPF_W : ctx_field_size == 8 ? BPF_DW : BPF_H;

		insn.off = off & ~(size_default - 1);
		insn.code = BPF_LDX | BPF_MEM | size_code;
	}
	cnt = env->prog->ops->convert_ctx_access(BPF_READ, &insn, buf, env->prog, &target_size);
	if (cnt == 0 || cnt >= MAX_PATCH - 2 || (ctx_field_size && !target_size)) {
		verbose(env, "bpf verifier is misconfigured\n");
		return -EINVAL;
	}
	if (is_narrower_load && size < target_size) {
		u8 shift = (off & (size_default - 1)) * 8;	/* bpf_ctx_narrow_access_offset(), little endian */
		u8 cls = ctx_field_size <= 4 ? BPF_ALU : BPF_ALU64;

		if (shift)
			buf[cnt++] = (struct bpf_insn){ .code = cls | BPF_RSH | BPF_K, .dst_reg = insn.dst_reg, .imm = shift };
		buf[cnt++] = (struct bpf_insn){ .code = cls | BPF_AND | BPF_K, .dst_reg = insn.dst_reg,
						.imm = (s32)((1ULL << size * 8) - 1) };
	}
	return cnt;
}

/* the stack an inlined bpf_loop takes past its function's: R6-R8 spilled, 8-aligned */
static u32 loop_inline_stack_extra(u16 stack_depth)
{
	return BPF_REG_SIZE * 3 + (ALIGN(stack_depth, 8) - stack_depth);
}

static bool is_bpf_loop_call(const struct bpf_insn *insn)
{
	return insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg == 0 && insn->imm == BPF_FUNC_loop;
}

/* inline_bpf_loop(): bpf_loop(nr_loops, callback, ctx, 0) as a loop in the program (bpf_iter.c's,
 * in step with it), R6-R8 its variables, spilled at stack_base; its callback call (the 13th,
 * a bpf-to-bpf call) aimed by do_misc_fixups(); the instructions in buf, their count */
static noinline int inline_bpf_loop(s32 stack_base, struct bpf_insn *buf)
{
	s32 r6_offset = stack_base, r7_offset = stack_base + BPF_REG_SIZE, r8_offset = stack_base + 2 * BPF_REG_SIZE;
	const struct bpf_insn insns[] = {
		/* too many loops: -E2BIG, to the end */
		{ .code = BPF_JMP | BPF_JLE | BPF_K, .dst_reg = BPF_REG_1, .off = 2, .imm = BPF_MAX_LOOPS },
		{ .code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = -E2BIG },
		{ .code = BPF_JMP | BPF_JA, .off = 16 },
		/* R6-R8 spilled, the loop's variables */
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_6, .off = r6_offset },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_7, .off = r7_offset },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_8, .off = r8_offset },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_6, .src_reg = BPF_REG_1 },	/* max */
		{ .code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = BPF_REG_7 },				/* count */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_8, .src_reg = BPF_REG_3 },	/* ctx */
		/* the header: done at max */
		{ .code = BPF_JMP | BPF_JGE | BPF_X, .dst_reg = BPF_REG_7, .src_reg = BPF_REG_6, .off = 5 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_7 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_8 },
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL },	/* BPF_CALL_REL(callback) */
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_7, .imm = 1 },
		/* on while the callback returns 0 */
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = -6 },
		/* the calls made; R6-R8 back */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_7 },
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_6, .src_reg = BPF_REG_10, .off = r6_offset },
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_7, .src_reg = BPF_REG_10, .off = r7_offset },
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_8, .src_reg = BPF_REG_10, .off = r8_offset },
	};

	memcpy(buf, insns, sizeof(insns));
	return ARRAY_SIZE(insns);
}
#define LOOP_INLINE_CALL 12	/* the callback's call in inline_bpf_loop()'s */

static notrace int patch_program(struct bpf_verifier_env *env, u32 *new_len, struct bpf_insn *out, bool count_only)
{
	struct bpf_prog *prog = env->prog;
	u32 i, n = 0, cur_subprog = 0;

	for (i = 0; i < prog->len; i++) {
		struct bpf_insn *insn = &prog->insnsi[i], buf[MAX_PATCH];
		int cnt = 0;
		u8 code = insn->code;

		if (i == env->subprog_info[cur_subprog + 1].start)
			cur_subprog++;
		if (is_bpf_loop_call(insn) && env->insn_aux_data[i].loop_inline_state.fit_for_inline) {
			u16 depth = env->subprog_info[cur_subprog].stack_depth;

			cnt = inline_bpf_loop(-(s32)(depth + loop_inline_stack_extra(depth)), buf);	/* (optimize_bpf_loop()) */
		} else if (code == (BPF_ALU64 | BPF_MOD | BPF_X) || code == (BPF_ALU64 | BPF_DIV | BPF_X) ||
		    code == (BPF_ALU | BPF_MOD | BPF_X) || code == (BPF_ALU | BPF_DIV | BPF_X)) {
			bool is64 = BPF_CLASS(code) == BPF_ALU64, isdiv = BPF_OP(code) == BPF_DIV;
			u8 jcls = is64 ? BPF_JMP : BPF_JMP32;

			if (isdiv) {
				buf[cnt++] = (struct bpf_insn){ .code = jcls | BPF_JNE | BPF_K, .dst_reg = insn->src_reg, .off = 2 };
				buf[cnt++] = (struct bpf_insn){ .code = BPF_ALU | BPF_XOR | BPF_X, .dst_reg = insn->dst_reg,
								.src_reg = insn->dst_reg };
				buf[cnt++] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = 1 };
				buf[cnt++] = *insn;
			} else {
				buf[cnt++] = (struct bpf_insn){ .code = jcls | BPF_JEQ | BPF_K, .dst_reg = insn->src_reg,
								.off = 1 + (is64 ? 0 : 1) };
				buf[cnt++] = *insn;
				if (!is64) {
					buf[cnt++] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = 1 };
					buf[cnt++] = (struct bpf_insn){ .code = BPF_ALU | BPF_MOV | BPF_X, .dst_reg = insn->dst_reg,
									.src_reg = insn->dst_reg };
				}
			}
		} else if (BPF_CLASS(code) == BPF_LDX && env->insn_aux_data[i].ptr_type == PTR_TO_CTX &&
			   env->prog->ops->convert_ctx_access) {
			cnt = convert_ctx_access(env, i, buf);
			if (cnt < 0)
				return cnt;
		} else if (BPF_CLASS(code) == BPF_LDX && env->insn_aux_data[i].ptr_type == PTR_TO_BTF_ID) {
			buf[cnt] = *insn;	/* fault-safe: a bad pointer reads 0 */
			buf[cnt++].code = BPF_LDX | BPF_PROBE_MEM | BPF_SIZE(code);
		} else if (bpf_pseudo_call(insn)) {
			buf[cnt++] = *insn;	/* its target moved by do_misc_fixups() */
		} else if (code == (BPF_JMP | BPF_CALL) && insn->imm == BPF_FUNC_tail_call) {
			/* an opcode of its own, which the interpreter and the JIT know: the program
			 * array may change under it (6.1's direct tail calls, patched in the JITed
			 * code as the array changes, are not here: each is an indirect one) */
			buf[cnt++] = (struct bpf_insn){ .code = BPF_JMP | BPF_TAIL_CALL };
		} else if (code == (BPF_JMP | BPF_CALL)) {
			struct bpf_map *map = env->insn_aux_data[i].map_ptr;
			const struct bpf_func_proto *fn = env->prog->ops->get_func_proto(insn->imm, env->prog);
			void *direct = NULL;

			/* for the JIT, a map's own lookup inline and its ops called directly (6.1's
			 * BPF_CALL_IMM(ops->map_*_elem)); interpreted, the helpers */
			if (env->prog->jit_requested && map && map != BPF_MAP_PTR_POISON) {
				if (insn->imm == BPF_FUNC_map_lookup_elem && map->ops->map_gen_lookup) {
					cnt = map->ops->map_gen_lookup(map, buf);
					if (cnt == -EOPNOTSUPP)
						cnt = 0;
					else if (cnt <= 0 || cnt > MAX_PATCH) {
						verbose(env, "bpf verifier is misconfigured\n");
						return -EINVAL;
					}
				}
				if (insn->imm == BPF_FUNC_map_lookup_elem)
					direct = map->ops->map_lookup_elem;
				else if (insn->imm == BPF_FUNC_map_update_elem)
					direct = map->ops->map_update_elem;
				else if (insn->imm == BPF_FUNC_map_delete_elem)
					direct = map->ops->map_delete_elem;
				else if (insn->imm == BPF_FUNC_for_each_map_elem)
					direct = map->ops->map_for_each_callback;
				else if (insn->imm == BPF_FUNC_map_lookup_percpu_elem)
					direct = map->ops->map_lookup_percpu_elem;
				else if (insn->imm == BPF_FUNC_map_push_elem)
					direct = map->ops->map_push_elem;
				else if (insn->imm == BPF_FUNC_map_pop_elem)
					direct = map->ops->map_pop_elem;
				else if (insn->imm == BPF_FUNC_map_peek_elem)
					direct = map->ops->map_peek_elem;
			}
			if (cnt) {
				/* map_gen_lookup's patch */
			} else if (direct) {
				buf[cnt] = *insn;
				buf[cnt++].imm = (s32)((char *)direct - (char *)__bpf_call_base);
			} else {
				if (!fn || !fn->func) {
					verbose(env, "kernel subsystem misconfigured func %s#%d\n", func_id_name(insn->imm),
						insn->imm);
					return -EFAULT;
				}
				buf[cnt] = *insn;
				buf[cnt++].imm = (s32)((char *)fn->func - (char *)__bpf_call_base);
			}
		} else {
			buf[cnt++] = *insn;
		}
		if (!count_only)
			memcpy(out + n, buf, cnt * sizeof(buf[0]));
		env->insn_aux_data[i].new_idx = n;
		n += cnt;
	}
	*new_len = n;
	return 0;
}

/* sanitize_dead_code(): what no path reached becomes a jump to itself, never run, so that the
 * fixups see none of it (a call libbpf poisoned for a relocation that failed, in a branch a
 * frozen .rodata value rules out).  6.1 does this for the unprivileged and, for a privileged
 * loader, removes those instructions (opt_remove_dead_code): here they stay, as traps, and the
 * program keeps its length. */
static void sanitize_dead_code(struct bpf_verifier_env *env)
{
	struct bpf_insn trap = { .code = BPF_JMP | BPF_JA, .off = -1 };
	u32 i;

	for (i = 0; i < env->prog->len; i++)
		if (!env->insn_aux_data[i].seen)
			env->prog->insnsi[i] = trap;
}

static noinline int do_misc_fixups(struct bpf_verifier_env *env, struct bpf_prog **progp)
{
	struct bpf_prog *prog = *progp, *new_prog;
	struct bpf_insn_aux_data *aux = env->insn_aux_data;
	bool inlined[BPF_MAX_SUBPROGS] = {};	/* a function with an inlined bpf_loop */
	u32 new_len, i;
	int err;

	err = patch_program(env, &new_len, NULL, true);
	if (err)
		return err;
	new_prog = kzalloc(sizeof(*new_prog) + (u64)new_len * sizeof(struct bpf_insn), GFP_KERNEL);
	if (!new_prog)
		return -ENOMEM;
	*new_prog = *prog;
	new_prog->len = new_len;
	patch_program(env, &new_len, new_prog->insnsi, false);
	/* the original jumps, from where each now is to where its target now starts */
	for (i = 0; i < prog->len; i++) {
		struct bpf_insn *insn = &prog->insnsi[i];
		u8 cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);
		u32 at = aux[i].new_idx;	/* jumps are never patched: each is where its patch starts */

		if (bpf_pseudo_call(insn) || bpf_pseudo_func(insn)) {	/* a call's target moves as a jump's */
			new_prog->insnsi[at].imm = (s32)aux[i + insn->imm + 1].new_idx - (s32)at - 1;
			continue;
		}
		if (is_bpf_loop_call(insn) && aux[i].loop_inline_state.fit_for_inline) {	/* its callback's call */
			u32 cb = env->subprog_info[aux[i].loop_inline_state.callback_subprogno].start;

			new_prog->insnsi[at + LOOP_INLINE_CALL].imm =
				(s32)aux[cb].new_idx - (s32)(at + LOOP_INLINE_CALL) - 1;
			inlined[find_containing_subprog(env, i)] = true;
			continue;
		}
		if ((cls != BPF_JMP && cls != BPF_JMP32) || op == BPF_CALL || op == BPF_EXIT)
			continue;
		if (insn->code == (BPF_JMP32 | BPF_JA))	/* gotol: imm the offset (bpf_adj_delta_to_off()) */
			new_prog->insnsi[at].imm = (s32)aux[i + insn->imm + 1].new_idx - (s32)at - 1;
		else
			new_prog->insnsi[at].off = (s32)aux[i + insn->off + 1].new_idx - (s32)at - 1;
	}
	/* each source line from where its first instruction's patch now starts (bpf_adj_linfo()
	 * for each patch 6.1 makes); each function where it now starts (adjust_btf_func()) */
	for (i = 0; i < new_prog->nr_linfo; i++)
		new_prog->linfo[i].insn_off = aux[new_prog->linfo[i].insn_off].new_idx;
	for (i = 0; i < new_prog->func_info_cnt; i++)
		new_prog->func_info[i].insn_off = aux[env->subprog_info[i].start].new_idx;
	for (i = 0; i < env->subprog_cnt; i++) {	/* (adjust_subprog_starts()) */
		env->subprog_info[i].start = aux[env->subprog_info[i].start].new_idx;
		if (inlined[i])	/* the inlined loops' spill slots */
			env->subprog_info[i].stack_depth += loop_inline_stack_extra(env->subprog_info[i].stack_depth);
	}
	env->subprog_info[env->subprog_cnt].start = new_len;
	/* an interpreted program's tail call runs the next program in its stack: the largest */
	if (env->subprog_info[0].has_tail_call && !new_prog->jit_requested)
		env->subprog_info[0].stack_depth = MAX_BPF_STACK;
	kfree(prog);
	*progp = new_prog;
	env->prog = new_prog;
	return 0;
}

/* free_subprogs(): the functions' bpf_progs and images, after a JIT that failed */
static void free_subprogs(struct bpf_prog **func, u32 cnt)
{
	u32 i;

	for (i = 0; i < cnt; i++) {
		if (!func[i])
			continue;
		bpf_prog_kallsyms_del(func[i]);
		bpf_jit_free(func[i]);
	}
	kfree(func);
}

/*
 * jit_subprogs(): each function JITed apart, as a bpf_prog of its own, its calls to a stand-in;
 * then, every image's address known, each once more with its calls to its callees' images (the
 * extra pass); the program's image func[0]'s.  The program's instructions keep their calls as
 * 6.1 shows them (off the callee's distance, imm its number).  0, or -ENOTSUPP and the program
 * as it was (to be interpreted), or -EFAULT.
 */
static noinline int jit_subprogs(struct bpf_verifier_env *env)
{
	struct bpf_prog *prog = env->prog, **func;
	struct bpf_insn *insn;
	s32 *call_imm;
	int err = -ENOMEM;
	u32 i, j;

	call_imm = kzalloc((u64)prog->len * sizeof(*call_imm), GFP_KERNEL);
	if (!call_imm)
		return -ENOMEM;
	for (i = 0, insn = prog->insnsi; i < prog->len; i++, insn++) {
		int subprog;

		if (!bpf_pseudo_call(insn) && !bpf_pseudo_func(insn))
			continue;
		subprog = find_subprog(env, i + insn->imm + 1);
		if (subprog < 0) {
			verbose(env, "verifier bug. No program starts at insn %d\n", i + insn->imm + 1);
			kfree(call_imm);
			return -EFAULT;
		}
		insn->off = subprog;	/* for now: the callee's number */
		call_imm[i] = insn->imm;
		insn->imm = 1;		/* __bpf_call_base + 1 to the JIT, for its size */
		if (bpf_pseudo_func(insn))
			insn[1].imm = 1;	/* (a 64-bit constant's code, whatever its value) */
	}
	func = kzalloc(env->subprog_cnt * sizeof(*func), GFP_KERNEL);
	if (!func || bpf_prog_alloc_jited_linfo(prog))
		goto out_undo_insn;
	for (i = 0; i < env->subprog_cnt; i++) {
		u32 start = env->subprog_info[i].start, len = env->subprog_info[i + 1].start - start;
		struct bpf_prog *f = kzalloc(sizeof(*f) + len * sizeof(struct bpf_insn), GFP_KERNEL);

		if (!f)
			goto out_free;
		memcpy(f->insnsi, &prog->insnsi[start], len * sizeof(struct bpf_insn));
		f->type = prog->type;
		f->len = len;
		bpf_prog_calc_tag(f);
		f->is_func = true;
		f->func_idx = i;
		f->name[0] = 'F';
		f->stack_depth = env->subprog_info[i].stack_depth;
		f->tail_call_reachable = env->subprog_info[i].tail_call_reachable;
		f->jit_requested = true;
		f->ksym_slot = -1;
		/* the program's, not freed with the function */
		f->btf = prog->btf;
		f->func_info = prog->func_info;
		f->func_info_cnt = prog->func_info_cnt;
		f->linfo = prog->linfo;
		f->nr_linfo = prog->nr_linfo;
		f->jited_linfo = prog->jited_linfo;
		f->linfo_idx = env->subprog_info[i].linfo_idx;
		func[i] = bpf_int_jit_compile(f);
		if (!func[i]->jited) {
			err = -ENOTSUPP;
			goto out_free;
		}
	}
	/* every image's address known: the calls to them, and the extra pass */
	for (i = 0; i < env->subprog_cnt; i++) {
		insn = func[i]->insnsi;
		for (j = 0; j < func[i]->len; j++, insn++) {
			if (bpf_pseudo_func(insn)) {	/* the callback's address */
				insn[0].imm = (u32)(unsigned long)func[insn->off]->bpf_func;
				insn[1].imm = (u64)(unsigned long)func[insn->off]->bpf_func >> 32;
			} else if (bpf_pseudo_call(insn)) {
				insn->imm = (s32)((char *)func[insn->off]->bpf_func - (char *)__bpf_call_base);
			}
		}
		func[i]->func = func;
		func[i]->func_cnt = env->subprog_cnt;
	}
	for (i = 0; i < env->subprog_cnt; i++) {
		void *old_bpf_func = func[i]->bpf_func;

		bpf_int_jit_compile(func[i]);
		if (!func[i]->jited || func[i]->bpf_func != old_bpf_func) {
			verbose(env, "JIT doesn't support bpf-to-bpf calls\n");
			err = -ENOTSUPP;
			goto out_free;
		}
	}
	/* a kallsyms line for each function but the first, whose image is the program's */
	for (i = 1; i < env->subprog_cnt; i++) {
		bpf_prog_kallsyms_add(func[i]);
		if (func[i]->ksym_slot < 0) {
			err = -ENOTSUPP;
			goto out_free;
		}
	}
	prog->jited = true;
	prog->bpf_func = func[0]->bpf_func;
	prog->jited_len = func[0]->jited_len;
	prog->extable = func[0]->extable;
	prog->num_exentries = func[0]->num_exentries;
	prog->ksym_slot = -1;
	bpf_prog_kallsyms_add(prog);
	if (prog->ksym_slot < 0) {
		prog->jited = false;
		err = -ENOTSUPP;
		goto out_free;
	}
	prog->func = func;
	prog->func_cnt = env->subprog_cnt;
	/* the program's calls as a dump shows them after a JIT */
	for (i = 0, insn = prog->insnsi; i < prog->len; i++, insn++) {
		if (bpf_pseudo_func(insn)) {
			insn[0].imm = call_imm[i];
			insn[1].imm = insn->off;
			insn->off = 0;
			continue;
		}
		if (!bpf_pseudo_call(insn))
			continue;
		insn->imm = insn->off;
		insn->off = call_imm[i];
	}
	bpf_prog_jit_attempt_done(prog);
	kfree(call_imm);
	return 0;
out_free:
	free_subprogs(func, env->subprog_cnt);
	func = NULL;
out_undo_insn:
	kfree(func);
	prog->jit_requested = false;
	for (i = 0, insn = prog->insnsi; i < prog->len; i++, insn++) {
		if (!bpf_pseudo_call(insn) && !bpf_pseudo_func(insn))
			continue;
		insn->off = 0;
		insn->imm = call_imm[i];
		if (bpf_pseudo_func(insn))
			insn[1].imm = 0;
	}
	bpf_prog_jit_attempt_done(prog);
	kfree(call_imm);
	return err;
}

/* fixup_call_args(): the functions JITed, each calling the others' images (jit_subprogs());
 * else, interpreted, each call runs its callee in an interpreter of the callee's stack */
static noinline notrace int fixup_call_args(struct bpf_verifier_env *env)
{
	struct bpf_prog *prog = env->prog;
	struct bpf_insn *insn = prog->insnsi;
	u32 i;
	int err;

	if (env->subprog_cnt <= 1)
		return 0;
	if (prog->jit_requested) {
		err = jit_subprogs(env);
		if (err == 0 || err == -EFAULT)
			return err;
	}
	prog->jit_requested = false;
	if (prog->tail_call_reachable) {	/* the interpreter's calls cannot pass the count */
		verbose(env, "tail_calls are not allowed in non-JITed programs with bpf-to-bpf calls\n");
		return -EINVAL;
	}
	for (i = 0; i < prog->len; i++, insn++) {
		int subprog;

		if (bpf_pseudo_func(insn)) {
			verbose(env, "callbacks are not allowed in non-JITed programs\n");
			return -EINVAL;
		}
		if (!bpf_pseudo_call(insn))
			continue;
		subprog = find_subprog(env, i + insn->imm + 1);
		if (subprog < 0) {
			verbose(env, "verifier bug. No program starts at insn %d\n", i + insn->imm + 1);
			return -EFAULT;
		}
		bpf_patch_call_args(insn, env->subprog_info[subprog].stack_depth);
	}
	return 0;
}

static notrace void free_explored_states(struct bpf_verifier_env *env);

/* do_check_common(): a path from the function's start in a state of its own: the main
 * function's R1 its context, a global function's arguments from its prototype */
static noinline int do_check_common(struct bpf_verifier_env *env, int subprog)
{
	struct bpf_verifier_state *state = env->cur_state;
	struct bpf_reg_state *regs;
	int ret, i;

	free_verifier_state(state);	/* (the last pass's) */
	state->frame[0] = kzalloc(sizeof(*state->frame[0]), GFP_KERNEL);
	if (!state->frame[0])
		return -ENOMEM;
	state->curframe = 0;
	state->parent = NULL;
	state->branches = 1;
	init_func_state(env, state->frame[0], BPF_MAIN_FUNC, 0, subprog);
	env->prev_linfo = NULL;
	env->insn_idx = env->subprog_info[subprog].start;
	regs = state->frame[0]->regs;
	if (subprog) {
		mark_reg_not_init(env, regs, BPF_REG_1);
		ret = btf_prepare_func_args(env, subprog, regs);
		if (ret)
			return ret;
		for (i = BPF_REG_1; i <= BPF_REG_5; i++) {
			if (regs[i].type == PTR_TO_CTX) {
				mark_reg_known_zero(env, regs, i);
			} else if (regs[i].type == SCALAR_VALUE) {
				mark_reg_unknown(env, regs, i);
			} else if (base_type(regs[i].type) == PTR_TO_MEM) {
				u32 mem_size = regs[i].mem_size;

				mark_reg_known_zero(env, regs, i);
				regs[i].mem_size = mem_size;
				regs[i].id = ++env->id_gen;
			}
		}
	} else {
		ret = btf_check_subprog_call(env, 0, regs, false);	/* (btf_check_subprog_arg_match()) */
		if (ret == -EFAULT)
			return ret;
	}
	ret = do_check(env);
	free_stack(env);
	if (!ret && !(env->log.level & BPF_LOG_LEVEL2))
		bpf_vlog_reset(&env->log, 0);
	free_explored_states(env);
	return ret;
}

/* do_check_subprogs(): each global function verified on its own, before the main one */
static int do_check_subprogs(struct bpf_verifier_env *env)
{
	u32 i;
	int ret;

	if (!env->prog->func_info)
		return 0;
	for (i = 1; i < env->subprog_cnt; i++) {
		if (!subprog_is_global(env, i))
			continue;
		ret = do_check_common(env, i);
		if (ret)
			return ret;
		if (env->log.level & BPF_LOG_LEVEL)
			verbose(env, "Func#%d is safe for any args that match its prototype\n", i);
	}
	return 0;
}

static void print_verification_stats(struct bpf_verifier_env *env)
{
	if (env->log.level & BPF_LOG_STATS) {
		u32 i;

		verbose(env, "verification time %d usec\n", 0);
		verbose(env, "stack depth ");
		for (i = 0; i < env->subprog_cnt; i++)
			verbose(env, "%d%s", env->subprog_info[i].stack_depth, i + 1 < env->subprog_cnt ? "+" : "");
		verbose(env, "\n");
	}
	verbose(env, "processed %d insns (limit %d) max_states_per_insn %d total_states %d peak_states %d mark_read %d\n",
		env->insn_processed, BPF_COMPLEXITY_LIMIT_INSNS, env->max_states_per_insn, env->total_states,
		env->peak_states, env->longest_mark_read_walk);
}

static notrace void free_explored_states(struct bpf_verifier_env *env)
{
	struct bpf_verifier_state_list *fl, *fn;
	u32 i;

	for (fl = env->free_list; fl; fl = fn) {
		fn = fl->next;
		free_verifier_state(&fl->state);
		kfree(fl);
	}
	env->free_list = NULL;
	for (i = 0; i < env->prog->len; i++) {
		struct bpf_verifier_state_list *sl = env->explored_states[i], *n;
		for (; sl; sl = n) {
			n = sl->next;
			free_verifier_state(&sl->state);
			kfree(sl);
		}
		env->explored_states[i] = NULL;	/* (free_states(): each pass its own) */
	}
}

/* __get_type_size(): the bytes a value of type btf_id takes in registers (*ret_type: the type
 * past its modifiers); -EINVAL: not an int, enum, pointer or struct */
static notrace int get_type_size(u32 btf_id, const struct btf_type **ret_type)
{
	const struct btf_type *t;

	*ret_type = btf_vmlinux_type_by_id(0);
	if (!btf_id)
		return 0;
	t = btf_vmlinux_skip_modifiers(btf_id, NULL);
	if (!t)
		return -EINVAL;
	*ret_type = t;
	if (btf_type_is_ptr(t))
		return sizeof(void *);
	if (btf_type_is_int(t) || btf_is_any_enum(t) || __btf_type_is_struct(t))
		return t->size;
	return -EINVAL;
}

/* btf_distill_func_proto(): what a trampoline can pass of the function's arguments */
noinline int btf_distill_func_proto(struct bpf_verifier_env *env, const struct btf_type *func, const char *tname)
{
	const struct btf_param *args = (const struct btf_param *)(func + 1);
	u32 nargs = btf_type_vlen(func), i;
	const struct btf_type *t;
	int ret;

	if (nargs > MAX_BPF_FUNC_ARGS) {
		verbose(env, "The function %s has %d arguments. Too many.\n", tname, nargs);
		return -EINVAL;
	}
	ret = get_type_size(func->type, &t);
	if (ret < 0 || __btf_type_is_struct(t)) {
		verbose(env, "The function %s return type %s is unsupported.\n", tname, btf_type_str(t));
		return -EINVAL;
	}
	for (i = 0; i < nargs; i++) {
		if (i == nargs - 1 && args[i].type == 0) {
			verbose(env, "The function %s with variable args is unsupported.\n", tname);
			return -EINVAL;
		}
		ret = get_type_size(args[i].type, &t);
		if (ret < 0 || ret > 16) {
			verbose(env, "The function %s arg%d type %s is unsupported.\n", tname, i, btf_type_str(t));
			return -EINVAL;
		}
		if (ret == 0) {
			verbose(env, "The function %s has malformed void argument.\n", tname);
			return -EINVAL;
		}
	}
	return 0;
}

/* check_attach_btf_id() and bpf_check_attach_target() for fentry/fexit on a vmlinux function:
 * the program's target, by its BTF id, must be a FUNC with an address */
static int check_attach_btf_id(struct bpf_verifier_env *env)
{
	struct bpf_prog *prog = env->prog;
	u32 btf_id = prog->attach_btf_id;
	const struct btf_type *t;
	const char *tname;
	unsigned long addr, site = 0;
	int ret;

	if (prog->type != BPF_PROG_TYPE_TRACING)
		return 0;
	if (!btf_id) {
		verbose(env, "Tracing programs must provide btf_id\n");
		return -EINVAL;
	}
	t = btf_vmlinux_type_by_id(btf_id);
	if (!t) {
		verbose(env, "attach_btf_id %u is invalid\n", btf_id);
		return -EINVAL;
	}
	tname = btf_vmlinux_name_by_offset(t->name_off);
	if (!tname) {
		verbose(env, "attach_btf_id %u doesn't have a name\n", btf_id);
		return -EINVAL;
	}
	switch (prog->expected_attach_type) {
	case BPF_TRACE_RAW_TP: {
		/* a tracepoint by its probes' prototype, the typedef btf_trace_<name> */
		static const char prefix[] = "btf_trace_";

		if (btf_kind(t) != BTF_KIND_TYPEDEF) {
			verbose(env, "attach_btf_id %u is not a typedef\n", btf_id);
			return -EINVAL;
		}
		if (strncmp(prefix, tname, sizeof(prefix) - 1)) {
			verbose(env, "attach_btf_id %u points to wrong type name %s\n", btf_id, tname);
			return -EINVAL;
		}
		tname += sizeof(prefix) - 1;
		t = btf_vmlinux_type_by_id(t->type);
		if (!t || !btf_type_is_ptr(t))
			return -EINVAL;
		t = btf_vmlinux_type_by_id(t->type);
		if (!t || !btf_type_is_func_proto(t))
			return -EINVAL;
		prog->attach_func_proto = t;
		prog->attach_func_name = tname;
		prog->attach_btf_trace = true;
		return 0;
	}
	case BPF_TRACE_FENTRY:
	case BPF_TRACE_FEXIT:
	case BPF_TRACE_ITER:
		break;
	default:
		/* fmod_ret: not in this kernel */
		return -EINVAL;
	}
	if (!btf_type_is_func(t)) {
		verbose(env, "attach_btf_id %u is not a function\n", btf_id);
		return -EINVAL;
	}
	t = btf_vmlinux_type_by_id(t->type);
	if (!t || !btf_type_is_func_proto(t))
		return -EINVAL;
	ret = btf_distill_func_proto(env, t, tname);
	if (ret)
		return ret;
	if (prog->expected_attach_type == BPF_TRACE_ITER) {
		/* an iterator: its function bpf_iter_<target> names a registered target, whose
		 * context it gets (no address: the function is never called) */
		prog->attach_func_proto = t;
		prog->attach_func_name = tname;
		return bpf_iter_prog_supported(prog) ? 0 : -EINVAL;
	}
	addr = kallsyms_lookup_name(tname);
	if (!addr) {
		verbose(env, "The address of function %s cannot be found\n", tname);
		return -ENOENT;
	}
	site = ftrace_is_site(addr) ? addr : 0;	/* (ftrace_location()) */
	prog->attach_func_proto = t;
	prog->attach_func_name = tname;
	prog->attach_func_addr = addr;
	prog->attach_site = site;
	return 0;
}

int bpf_check(struct bpf_prog **progp, union bpf_attr *attr, union bpf_attr *uattr)
{
	struct bpf_prog *prog = *progp;
	struct bpf_verifier_env *env = kzalloc(sizeof(*env), GFP_KERNEL);
	struct bpf_verifier_log *log;
	int ret;
	u32 i;

	if (!env)
		return -ENOMEM;
	log = &env->log;
	env->prog = prog;
	env->insn_aux_data = kzalloc(sizeof(*env->insn_aux_data) * prog->len, GFP_KERNEL);
	env->explored_states = kzalloc(sizeof(*env->explored_states) * prog->len, GFP_KERNEL);
	env->cur_state = kzalloc(sizeof(*env->cur_state), GFP_KERNEL);
	ret = -ENOMEM;
	if (!env->insn_aux_data || !env->explored_states || !env->cur_state)
		goto err_free_env;
	env->cur_state->frame[0] = kzalloc(sizeof(*env->cur_state->frame[0]), GFP_KERNEL);
	if (!env->cur_state->frame[0])
		goto err_free_env;
	log->level = attr->log_level;
	log->ubuf = (char *)attr->log_buf;
	log->len_total = attr->log_size;
	if (log->level || log->ubuf || log->len_total) {
		ret = -EINVAL;
		if (!bpf_verifier_log_attr_valid(log))
			goto err_free_env;
	}
	env->allow_ptr_leaks = env->allow_uninit_stack = perfmon_capable();	/* bpf_allow_ptr_leaks() */
	env->bpf_capable = capable(CAP_BPF) || capable(CAP_SYS_ADMIN);
	env->test_state_freq = attr->prog_flags & BPF_F_TEST_STATE_FREQ;
	/* x86 has efficient unaligned access: strict only when asked, and not with ANY_ALIGNMENT */
	env->strict_alignment = (attr->prog_flags & BPF_F_STRICT_ALIGNMENT) && !(attr->prog_flags & BPF_F_ANY_ALIGNMENT);

	bpf_prog_calc_tag(prog);
	ret = add_subprog_and_kfunc(env);
	if (ret < 0)
		goto skip_full_check;
	ret = check_subprogs(env);
	if (ret < 0)
		goto skip_full_check;
	ret = check_btf_info(env, attr, uattr);
	if (ret < 0)
		goto skip_full_check;
	ret = check_attach_btf_id(env);
	if (ret < 0)
		goto skip_full_check;
	ret = resolve_pseudo_ldimm64(env);
	if (ret < 0)
		goto skip_full_check;
	ret = check_cfg(env);
	if (ret < 0)
		goto skip_full_check;
	ret = do_check_subprogs(env);
	ret = ret ?: do_check_common(env, 0);	/* (do_check_main()) */
skip_full_check:
	if (ret == 0)
		ret = check_max_stack_depth(env);
	free_explored_states(env);
	if (ret == 0)
		sanitize_dead_code(env);
	if (ret == 0)
		ret = do_misc_fixups(env, progp);
	if (ret == 0)
		ret = fixup_call_args(env);
	prog = *progp;
	print_verification_stats(env);
	prog->verified_insns = env->insn_processed;
	prog->stack_depth = env->subprog_info[0].stack_depth;
	prog->max_ctx_offset = env->max_ctx_offset;
	if (log->level && bpf_verifier_log_full(log))
		ret = -ENOSPC;
	if (log->level && !log->ubuf)
		ret = -EFAULT;
	if (env->used_map_cnt) {
		/* the program keeps the maps it names */
		prog->used_maps = kmalloc(sizeof(env->used_maps[0]) * env->used_map_cnt, GFP_KERNEL);
		if (!prog->used_maps) {
			for (i = 0; i < env->used_map_cnt; i++)
				bpf_map_put(env->used_maps[i]);
			if (!ret)
				ret = -ENOMEM;
		} else {
			memcpy(prog->used_maps, env->used_maps, sizeof(env->used_maps[0]) * env->used_map_cnt);
			prog->used_map_cnt = env->used_map_cnt;
		}
	}
err_free_env:
	if (env->cur_state)
		free_verifier_state(env->cur_state);
	kfree(env->cur_state);
	kfree(env->explored_states);
	kfree(env->insn_aux_data);
	kfree(env);
	return ret;
}
