/* The verifier's state (include/linux/bpf_verifier.h, tnum.h of 6.1). */
#ifndef _BPF_VERIFIER_H
#define _BPF_VERIFIER_H
#include "bpf.h"

struct tnum { u64 value; u64 mask; };
#define TNUM(_v, _m) ((struct tnum){ .value = (_v), .mask = (_m) })
static const struct tnum tnum_unknown = { .value = 0, .mask = -1UL };
struct tnum tnum_const(u64 value);
struct tnum tnum_range(u64 min, u64 max);
struct tnum tnum_lshift(struct tnum a, u8 shift);
struct tnum tnum_rshift(struct tnum a, u8 shift);
struct tnum tnum_arshift(struct tnum a, u8 min_shift, u8 insn_bitness);
struct tnum tnum_add(struct tnum a, struct tnum b);
struct tnum tnum_sub(struct tnum a, struct tnum b);
struct tnum tnum_and(struct tnum a, struct tnum b);
struct tnum tnum_or(struct tnum a, struct tnum b);
struct tnum tnum_xor(struct tnum a, struct tnum b);
struct tnum tnum_mul(struct tnum a, struct tnum b);
struct tnum tnum_intersect(struct tnum a, struct tnum b);
struct tnum tnum_cast(struct tnum a, u8 size);
bool tnum_in(struct tnum a, struct tnum b);
int tnum_strn(char *str, size_t size, struct tnum a);
struct tnum tnum_subreg(struct tnum a);
struct tnum tnum_clear_subreg(struct tnum a);
struct tnum tnum_const_subreg(struct tnum a, u32 value);
static inline bool tnum_is_const(struct tnum a) { return !a.mask; }
static inline bool tnum_is_unknown(struct tnum a) { return !~a.mask; }
static inline bool tnum_equals_const(struct tnum a, u64 b) { return tnum_is_const(a) && a.value == b; }
static inline bool tnum_subreg_is_const(struct tnum a) { return !tnum_subreg(a).mask; }

enum bpf_reg_type {
	NOT_INIT = 0,
	SCALAR_VALUE,
	PTR_TO_CTX,
	CONST_PTR_TO_MAP,
	PTR_TO_MAP_VALUE,
	PTR_TO_MAP_KEY,
	PTR_TO_STACK,
	PTR_TO_BTF_ID,		/* a kernel struct of vmlinux's BTF (btf_id), read through fault-safe loads */
	PTR_TO_MEM,		/* mem_size bytes of memory (with MEM_ALLOC: a ring buffer reservation) */
	PTR_TO_FUNC,		/* a function of the program (subprogno), a callback (ld_imm64 BPF_PSEUDO_FUNC) */
	__BPF_REG_TYPE_MAX,
	PTR_MAYBE_NULL = 0x100,
	MEM_ALLOC = 0x200,	/* memory a helper allocated: a reference to release (ref_obj_id) */
};
#define base_type(t) ((t) & 0xff)

enum bpf_reg_liveness {
	REG_LIVE_NONE = 0,
	REG_LIVE_READ32 = 0x1,
	REG_LIVE_READ64 = 0x2,
	REG_LIVE_READ = REG_LIVE_READ32 | REG_LIVE_READ64,
	REG_LIVE_WRITTEN = 0x4,
	REG_LIVE_DONE = 0x8,
};

struct bpf_reg_state {
	u32 type;
	s32 off;		/* fixed offset of a pointer */
	u32 id;			/* a maybe-null pointer's, shared by its copies */
	union {
		u32 btf_id;	/* PTR_TO_BTF_ID: the struct's type in vmlinux's BTF */
		u32 mem_size;	/* PTR_TO_MEM: the memory's size */
		u32 subprogno;	/* PTR_TO_FUNC: the function's number */
	};
	struct bpf_map *map_ptr;
	struct tnum var_off;
	s64 smin_value, smax_value;
	u64 umin_value, umax_value;
	s32 s32_min_value, s32_max_value;
	u32 u32_min_value, u32_max_value;
	u8 live;
	u8 frameno;		/* PTR_TO_STACK: whose stack, the frame's number in the call chain */
	u32 ref_obj_id;		/* the reference (acquired_refs) the pointer is, 0: none (in live's
				 * padding: a state is copied at every branch) */
};

#define BPF_REG_SIZE 8
enum bpf_stack_slot_type { STACK_INVALID, STACK_SPILL, STACK_MISC, STACK_ZERO };
struct bpf_stack_state {
	struct bpf_reg_state spilled_ptr;
	u8 slot_type[BPF_REG_SIZE];
};

#define MAX_BPF_STACK_SLOTS (MAX_BPF_STACK / BPF_REG_SIZE)
/* a reference the program holds (a ring buffer reservation): its id, the instruction that
 * acquired it */
struct bpf_reference_state {
	int id;
	int insn_idx;
	int callback_ref;	/* the frame of the callback that acquired it (0: none) */
};
/* one function's frame of a path: its registers and stack (a bpf-to-bpf call makes one for the
 * callee, the caller's kept below it) */
#define MAX_CALL_FRAMES 8
#define BPF_MAX_SUBPROGS 256
#define BPF_MAIN_FUNC (-1)
struct bpf_func_state {
	struct bpf_reg_state regs[MAX_BPF_REG];
	int callsite;		/* the call instruction, where the callee's exit returns past */
	u32 frameno;		/* in the call chain, 0 the main program */
	u32 subprogno;		/* which function */
	u32 inst;		/* this call's number (a checkpoint's frame of the same call: liveness) */
	u32 allocated_stack;	/* bytes of stack the path has touched, in slots of 8 */
	bool in_callback_fn;	/* a callback a helper calls (bpf_loop's): R0 in callback_ret_range */
	struct tnum callback_ret_range;
	struct bpf_stack_state stack[MAX_BPF_STACK_SLOTS];
};

struct bpf_verifier_state {
	struct bpf_func_state *frame[MAX_CALL_FRAMES];	/* kmalloc'd, each state its own */
	u32 curframe;
	struct bpf_verifier_state *parent;	/* the checkpoint this path continues */
	u32 branches;		/* paths from here still being explored */
	u32 insn_idx;		/* of a checkpoint */
	u32 acquired_refs;	/* references held, in refs[] (6.1 copies them into a callee's
				 * frame and back at its exit: one array for the path is the same) */
	struct bpf_reference_state *refs;	/* kmalloc'd, acquired_refs long, each state its own
						 * copy (6.1's: no limit but memory) */
};

struct bpf_verifier_log {
	u32 level;
	u32 len_used;
	u32 len_total;
	char *ubuf;
	char kbuf[1024];
};
#define BPF_LOG_LEVEL1	1
#define BPF_LOG_LEVEL2	2
#define BPF_LOG_STATS	4
#define BPF_LOG_LEVEL	(BPF_LOG_LEVEL1 | BPF_LOG_LEVEL2)
#define BPF_LOG_MASK	(BPF_LOG_LEVEL | BPF_LOG_STATS)

static inline bool bpf_verifier_log_full(const struct bpf_verifier_log *log)
{
	return log->len_used >= log->len_total - 1;
}
/* the log is being written (a level, a buffer with room) */
static inline bool bpf_verifier_log_needed(const struct bpf_verifier_log *log)
{
	return log->level && log->ubuf && !bpf_verifier_log_full(log);
}
/* what a log asked for must be usable: 128 bytes to 1 GiB, a buffer, known level bits */
bool bpf_verifier_log_attr_valid(const struct bpf_verifier_log *log);

void print_bpf_insn(struct bpf_verifier_log *log, const struct bpf_insn *insn, bool allow_ptr_leaks);
const char *func_id_name(int id);
void bpf_verifier_vlog(struct bpf_verifier_log *log, const char *fmt, __builtin_va_list args);
__attribute__((format(printf, 2, 3))) void bpf_verifier_log_write(struct bpf_verifier_log *log, const char *fmt, ...);
#endif
