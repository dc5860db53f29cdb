/* The BPF subsystem's kernel side (include/linux/bpf.h, bpf_verifier.h, filter.h of 6.1): maps
 * with their ops, programs, helper prototypes, program types' verifier ops. */
#ifndef _BPF_H
#define _BPF_H
#include "kernel.h"
#include "uapi/bpf.h"
#include "maccess.h"
#include "jump_label.h"

#define ENOTSUPP	524	/* the kernel-internal "not supported" bpf() returns */
#define EOPNOTSUPP	95
#define EPROTO		71	/* a precise event's program that reads stacks without the chain */
#define ERANGE		34
#define E2BIG_		E2BIG

#define MAX_BPF_STACK		512
#define MAX_BPF_FUNC_ARGS	12
#define BPF_MAXINSNS		4096
#define BPF_COMPLEXITY_LIMIT_INSNS	1000000
#define BPF_MAX_VAR_OFF		(1 << 29)
#define BPF_REG_FP		BPF_REG_10
/* filter.h's kernel-only mode: a load through PTR_TO_BTF_ID the verifier made fault-safe (a
 * fault, or an address below the kernel's, gives 0) */
#define BPF_PROBE_MEM		0x20
#define BPF_CALL_ARGS		0xe0	/* an interpreted bpf-to-bpf call (bpf_patch_call_args) */
#define BPF_TAIL_CALL		0xf0	/* bpf_tail_call(), as the verifier leaves it (do_misc_fixups) */
#include "kallsyms.h"	/* KSYM_NAME_LEN */

/* ---- maps ---- */
struct bpf_map;
struct file;
struct poll_table_struct;
struct btf;
struct btf_type;
/* a program's function a helper calls (bpf_loop's, bpf_for_each_map_elem's callback): its
 * JITed image, called as C calls a helper */
typedef u64 (*bpf_callback_t)(u64, u64, u64, u64, u64);
#define BPF_MAX_LOOPS	(8 * 1024 * 1024)	/* bpf_loop's nr_loops */
struct bpf_map_ops {
	int (*map_alloc_check)(union bpf_attr *attr);
	struct bpf_map *(*map_alloc)(union bpf_attr *attr);
	void (*map_free)(struct bpf_map *map);
	int (*map_get_next_key)(struct bpf_map *map, void *key, void *next_key);
	/* from a program: this cpu's value */
	void *(*map_lookup_elem)(struct bpf_map *map, void *key);
	/* from the syscall, where it differs (an LRU map's lookup marks the element used; not this) */
	void *(*map_lookup_elem_sys_only)(struct bpf_map *map, void *key);
	long (*map_update_elem)(struct bpf_map *map, void *key, void *value, u64 flags);
	long (*map_delete_elem)(struct bpf_map *map, void *key);
	/* keyless maps (queue, stack): a value in, the next out (or only seen) */
	long (*map_push_elem)(struct bpf_map *map, void *value, u64 flags);
	long (*map_pop_elem)(struct bpf_map *map, void *value);
	long (*map_peek_elem)(struct bpf_map *map, void *value);
	/* BPF_MAP_LOOKUP_AND_DELETE_ELEM of a hash map: key's value (every cpu's of a per-cpu
	 * map), the element gone */
	int (*map_lookup_and_delete_elem)(struct bpf_map *map, void *key, void *value, u64 flags);
	/* from the syscall on a per-cpu map: every possible cpu's value, round_up(value_size, 8) apart */
	int (*map_lookup_percpu)(struct bpf_map *map, void *key, void *value);
	int (*map_update_percpu)(struct bpf_map *map, void *key, void *value, u64 flags);
	/* BPF_PSEUDO_MAP_VALUE: the address of the value at off (arrays) */
	int (*map_direct_value_addr)(const struct bpf_map *map, u64 *imm, u32 off);
	int (*map_direct_value_meta)(const struct bpf_map *map, u64 imm, u32 *off);
	/* map_gen_lookup(): the instructions a program's lookup becomes, in insn_buf; their count */
	int (*map_gen_lookup)(struct bpf_map *map, struct bpf_insn *insn_buf);
	/* fd arrays: the syscall's update, whose value is an fd, through the map's file map_file */
	int (*map_fd_update_elem)(struct bpf_map *map, struct file *map_file, void *key, void *value, u64 flags);
	/* a file of the map is closed (fd arrays drop what was put through it) */
	void (*map_release)(struct bpf_map *map, struct file *map_file);
	/* the map's last file is closed (a program array empties: its programs may hold the map) */
	void (*map_release_uref)(struct bpf_map *map);
	/* an fd array's lookup from the syscall: what stands for the object at key (a program's
	 * id), -ENOENT: none */
	int (*map_fd_sys_lookup_elem)(struct bpf_map *map, void *key, u32 *value);
	/* a session's served mmap of the map's fd (6.1's map_mmap, checked): the perf pool
	 * region mapped at the same offset (kernel/mmap.c), or -errno */
	long (*map_mmap_shared)(struct bpf_map *map, unsigned long len, unsigned long prot, unsigned long pgoff);
	/* the map type's own check of its BTF key and value types (key_type void: keyless BTF);
	 * none: a key type must be given */
	int (*map_check_btf)(const struct bpf_map *map, const struct btf *btf, const struct btf_type *key_type,
			     const struct btf_type *value_type);
	/* poll of the map's fd: EPOLL* bits (6.1's map_poll) */
	unsigned int (*map_poll)(struct bpf_map *map, struct file *filp, struct poll_table_struct *pts);
	/* bpf_for_each_map_elem(): callback_fn(map, key, value, callback_ctx) on each element
	 * until it returns 1; the elements visited */
	long (*map_for_each_callback)(struct bpf_map *map, bpf_callback_t callback_fn, void *callback_ctx, u64 flags);
	/* bpf_map_lookup_percpu_elem(): cpu's value of a per-cpu map, from a program */
	void *(*map_lookup_percpu_elem)(struct bpf_map *map, void *key, u32 cpu);
	/* BPF_MAP_*_BATCH: many elements a call (the generic_map_*_batch() or the map's own) */
	int (*map_lookup_batch)(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr);
	int (*map_lookup_and_delete_batch)(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr);
	int (*map_update_batch)(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr);
	int (*map_delete_batch)(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr);
};
/*
 * The start of a BPF_MAP_*_BATCH: the elements the user has room for (batch.count; 0: nothing
 * to do), the user's count zeroed first so that a fault part way leaves it true (it ends as the
 * elements done); elem_flags takes BPF_F_LOCK only, for maps whose values have a bpf_spin_lock
 * (none here): EINVAL.  A negative errno.
 */
static __always_inline long bpf_map_batch_start(const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 zero = 0;

	if (attr->batch.elem_flags)
		return -EINVAL;
	if (!attr->batch.count)
		return 0;
	if (copy_to_user(&uattr->batch.count, &zero, sizeof(zero)))
		return -EFAULT;
	return attr->batch.count;
}
int generic_map_lookup_batch(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr);
int generic_map_update_batch(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr);
int generic_map_delete_batch(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr);

struct bpf_map {
	const struct bpf_map_ops *ops;
	u32 map_type;
	u32 key_size;
	u32 value_size;
	u32 max_entries;
	u32 map_flags;
	u32 id;
	int refcnt;		/* programs and fds holding it */
	int usercnt;		/* its files (6.1's user references): a program array empties at 0 */
	struct list_head id_node;	/* in the maps by id, once it has one */
	char name[BPF_OBJ_NAME_LEN];
	u64 map_extra;
	struct btf *btf;	/* its BTF (a reference), and its key's and value's type ids there */
	u32 btf_key_type_id, btf_value_type_id;
	bool frozen;		/* BPF_MAP_FREEZE: the syscall side may not write it any more */
	/* a program array's owner: the type of the first program put in it or using it, and
	 * whether that one was JITed; every other must match (bpf_prog_map_compatible()) */
	struct {
		u32 type;
		bool jited;
	} owner;
};

/* an array map (arraymap.c): the values (or an fd array's pointers), elem_size bytes each */
struct bpf_array {
	struct bpf_map map;
	u32 elem_size;		/* round_up(value_size, 8) */
	u32 stride;		/* bytes per index: elem_size, times the cpus for a per-cpu array */
	char *value;
	int region;		/* BPF_F_MMAPABLE: the perf pool region value is, else -1 */
	/* a program array's programs, here (6.1's layout: a tail call's JITed code reads
	 * ptrs[index] off the map's address) */
	void *ptrs[] __attribute__((aligned(8)));
};

extern const struct bpf_map_ops htab_map_ops, htab_percpu_map_ops, htab_lru_map_ops, htab_lru_percpu_map_ops;
extern const struct bpf_map_ops array_map_ops, percpu_array_map_ops, perf_event_array_map_ops;
extern const struct bpf_map_ops stack_trace_map_ops, ringbuf_map_ops, cgroup_array_map_ops, prog_array_map_ops;
extern const struct bpf_map_ops queue_map_ops, stack_map_ops;
struct bpf_prog;
/* kernel/bpf/core.c: a program array's programs' type and JIT must be the same */
#define MAX_TAIL_CALL_CNT	33
bool bpf_prog_map_compatible(struct bpf_map *map, const struct bpf_prog *fp);
int bpf_stackmap_copy(struct bpf_map *map, void *key, void *value);
struct pt_regs;
long bpf_get_stackid_regs(struct pt_regs *regs, struct bpf_map *map, u64 flags);
long bpf_get_stack_regs(struct pt_regs *regs, void *buf, u32 size, u64 flags);
void bpf_map_init_from_attr(struct bpf_map *map, union bpf_attr *attr);
void *bpf_map_area_alloc(u64 size, int numa_node);
void bpf_map_area_free(void *base);
struct bpf_event_entry **bpf_perf_event_array_slot(struct bpf_map *map, u32 index);	/* NULL: past the end */
static __always_inline bool bpf_map_is_percpu(const struct bpf_map *map)
{
	return map->map_type == BPF_MAP_TYPE_PERCPU_HASH || map->map_type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       map->map_type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}
static __always_inline bool bpf_map_flags_access_ok(u32 flags)
{
	return (flags & (BPF_F_RDONLY | BPF_F_WRONLY)) != (BPF_F_RDONLY | BPF_F_WRONLY) &&
	       (flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) != (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG);
}
#include "jhash.h"
u32 bpf_num_possible_cpus(void);

/* ---- helper prototypes (what the verifier checks a call against) ---- */
enum bpf_arg_type {
	ARG_DONTCARE = 0,
	ARG_CONST_MAP_PTR,
	ARG_PTR_TO_MAP_KEY,
	ARG_PTR_TO_MAP_VALUE,
	ARG_PTR_TO_MEM,		/* initialized memory of the next argument's size */
	ARG_PTR_TO_UNINIT_MEM,	/* memory the helper writes */
	ARG_CONST_SIZE,
	ARG_CONST_SIZE_OR_ZERO,
	ARG_PTR_TO_CTX,
	ARG_ANYTHING,
	ARG_PTR_TO_ALLOC_MEM,		/* a reservation (bpf_ringbuf_reserve()'s) */
	ARG_CONST_ALLOC_SIZE_OR_ZERO,	/* a known constant: the size of the memory the helper returns */
	ARG_PTR_TO_FUNC,		/* a function of the program, the helper calls it (a callback) */
	ARG_PTR_TO_STACK_OR_NULL,	/* the stack, or NULL */
	ARG_PTR_TO_BTF_ID,		/* PTR_TO_BTF_ID of the struct arg_btf_struct names */
	ARG_PTR_TO_UNINIT_MAP_VALUE,	/* room for a map's value, which the helper writes */
	ARG_PTR_TO_LONG,		/* 8 aligned bytes the helper writes (6.1's ARG_PTR_TO_FIXED_SIZE_MEM
					 * | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED of arg_size 8) */
	ARG_PTR_TO_CONST_STR,		/* a NUL-terminated string in a read-only map's value */
};
/* an argument's flags: the helper releases the reference it is (6.1's OBJ_RELEASE); it may be
 * NULL (6.1's PTR_MAYBE_NULL on an argument: a known 0 passes, its size must then be 0) */
#define OBJ_RELEASE	0x80
#define ARG_MAYBE_NULL	0x40
#define BPF_BASE_ARG(t)	((t) & ~(OBJ_RELEASE | ARG_MAYBE_NULL))
enum bpf_return_type {
	RET_INTEGER,
	RET_VOID,
	RET_PTR_TO_MAP_VALUE_OR_NULL,
	RET_PTR_TO_BTF_ID,	/* PTR_TO_BTF_ID of the struct ret_btf_struct names in vmlinux's BTF */
	RET_PTR_TO_ALLOC_MEM_OR_NULL,	/* memory of ARG_CONST_ALLOC_SIZE_OR_ZERO's size, a reference */
};
typedef u64 (*bpf_helper_fn)(u64, u64, u64, u64, u64);
struct bpf_prog;
struct bpf_func_proto {
	bpf_helper_fn func;
	bool gpl_only;
	u8 ret_type;
	u8 arg_type[5];
	const char *ret_btf_struct;
	const char *arg_btf_struct;	/* the struct an ARG_PTR_TO_BTF_ID argument points to */
	bool (*allowed)(const struct bpf_prog *prog);	/* NULL: any program that has the helper */
};
#define BPF_CALL_x(name, ...) u64 name(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)

extern const struct bpf_func_proto bpf_get_stackid_proto;
extern const struct bpf_func_proto bpf_get_stackid_proto_pe, bpf_get_stack_proto, bpf_get_stack_proto_pe;
extern const struct bpf_func_proto bpf_map_lookup_elem_proto, bpf_map_update_elem_proto,
	bpf_map_delete_elem_proto, bpf_get_smp_processor_id_proto, bpf_ktime_get_ns_proto,
	bpf_ktime_get_coarse_ns_proto, bpf_get_current_pid_tgid_proto, bpf_get_current_uid_gid_proto,
	bpf_get_current_comm_proto, bpf_get_prandom_u32_proto, bpf_jiffies64_proto;
extern const struct bpf_func_proto bpf_ringbuf_output_proto, bpf_ringbuf_reserve_proto,
	bpf_ringbuf_submit_proto, bpf_ringbuf_discard_proto, bpf_ringbuf_query_proto, bpf_loop_proto,
	bpf_for_each_map_elem_proto, bpf_tail_call_proto, bpf_map_push_elem_proto, bpf_map_pop_elem_proto,
	bpf_map_peek_elem_proto, bpf_strtol_proto, bpf_strtoul_proto, bpf_strncmp_proto, bpf_snprintf_proto;
/* kernel/bpf_trace.c: whether fmt is a format bpf_snprintf() takes with num_args u64s (-EINVAL) */
int bpf_bprintf_check(const char *fmt, u32 num_args);
const struct bpf_func_proto *bpf_base_func_proto(int func_id);

/* ---- programs ---- */
enum bpf_access_type { BPF_READ = 1, BPF_WRITE = 2 };
struct bpf_prog;
/* what is_valid_access says of a context field (bpf_insn_access_aux): its size, when a program
 * may read part of it (a narrow load, widened and masked by convert_ctx_access's caller) */
struct bpf_verifier_log;
struct bpf_insn_access_aux {
	u32 reg_type;		/* what a load gives: SCALAR_VALUE (the caller's start) or PTR_TO_BTF_ID */
	u32 btf_id;		/* PTR_TO_BTF_ID: the struct's type */
	u32 ctx_field_size;
	struct bpf_verifier_log *log;	/* where btf_ctx_access() says why it refuses */
};
struct bpf_verifier_ops {
	const struct bpf_func_proto *(*get_func_proto)(int func_id, const struct bpf_prog *prog);
	bool (*is_valid_access)(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog,
				struct bpf_insn_access_aux *info);
	/* the instructions a load from the context becomes (the program's view of it is not the
	 * kernel's), in insn_buf; their count; target_size: the size of the field it reads */
	u32 (*convert_ctx_access)(enum bpf_access_type type, const struct bpf_insn *si, struct bpf_insn *insn_buf,
				  struct bpf_prog *prog, u32 *target_size);
};
/* bpf_ctx_narrow_access_ok(): a load of the field's first bytes, of a power-of-two size */
static inline bool bpf_ctx_narrow_access_ok(u32 off, u32 size, u32 size_default)
{
	return size <= size_default && (size & (size - 1)) == 0;
}

struct bpf_prog_ops {
	int (*test_run)(struct bpf_prog *prog, const union bpf_attr *kattr, union bpf_attr *uattr);
};

/* struct bpf_prog_stats: a cpu's count of a program's runs and the time they took (6.1 counts
 * them only while bpf_stats_enabled_key is on: the sysctl, or a BPF_ENABLE_STATS fd) */
struct bpf_prog_stats {
	u64 cnt;
	u64 nsecs;
};

struct bpf_prog {
	u32 len;			/* instructions */
	u32 type;
	u32 expected_attach_type;
	u32 id;
	u8 tag[BPF_TAG_SIZE];
	int refcnt;
	struct list_head id_node;	/* in the programs by id, once it has one */
	bool gpl_compatible;
	u32 verified_insns;
	u64 load_time;
	uid_t created_by_uid;
	char name[BPF_OBJ_NAME_LEN];
	struct bpf_map **used_maps;
	u32 used_map_cnt;
	u32 stack_depth;		/* bytes of stack the verifier saw used */
	u32 max_ctx_offset;		/* end of the furthest context access */
	int active[NR_CPUS];		/* runs on each cpu now (a tracepoint's program: no recursion) */
	u64 misses;			/* runs skipped for that */
	unsigned int (*bpf_func)(const void *ctx, const struct bpf_insn *insn);
	/* the JIT's (arch/x86/net/bpf_jit_comp.c): bpf_func is the image's code, jited_len bytes
	 * long, in a chunk of the program pack (jit_header, jit_size bytes); its loads through
	 * PTR_TO_BTF_ID have an exception table entry each, after the code */
	bool jit_requested;		/* bpf_jit_enable when it was loaded: the verifier's fixups for the JIT */
	bool jited;
	bool call_get_stack;		/* it calls bpf_get_stackid or bpf_get_stack (the verifier says) */
	/* a tail call may run in it or in a function it calls (the JIT keeps the count in its frame) */
	bool tail_call_reachable;
	u32 jited_len;
	void *jit_header;
	u32 jit_size;
	struct bpf_ex_entry *extable;
	u32 num_exentries;
	int ksym_slot;			/* its line in bpf_jit_ksyms[] (/proc/kallsyms), -1: none */
	/* a program of several functions, JITed (jit_subprogs()): each function a bpf_prog of its
	 * own (is_func, func_idx), JITed apart, then once more (the extra pass, jit_data kept for it)
	 * with its calls to the others' images; the program's func[] lists them all, func[0] the
	 * main one, whose image is the program's.  The functions share the program's BTF records. */
	bool is_func;
	u32 func_idx;
	struct bpf_prog **func;
	u32 func_cnt;
	u32 linfo_idx;			/* a function's first line_info record */
	struct x64_jit_data *jit_data;
	struct rcu_head rcu;		/* freed after a grace period (__bpf_prog_put_rcu) */
	/* a tracing program's target (check_attach_btf_id): its BTF FUNC, that FUNC's FUNC_PROTO,
	 * its name, its address and its ftrace site (0: none) */
	u32 attach_btf_id;
	const struct btf_type *attach_func_proto;
	const char *attach_func_name;
	bool attach_btf_trace;		/* a BTF raw tracepoint's (tp_btf): ctx skips its __data */
	unsigned long attach_func_addr;
	unsigned long attach_site;
	/* an iterator program's context pointers that are not what its function's BTF says
	 * (bpf_iter_prog_supported(): the target's, PTR_TO_BTF_ID_OR_NULL) */
	const struct bpf_ctx_arg_aux *ctx_arg_info;
	u32 ctx_arg_info_size;
	/* its own BTF (check_btf_info(), a reference) with its func_info and line_info (insn_off:
	 * as the program runs, after the verifier's patches), and where the JIT put each line */
	struct btf *btf;
	struct bpf_func_info *func_info;
	u32 func_info_cnt;
	struct bpf_line_info *linfo;
	u32 nr_linfo;
	void **jited_linfo;
	const struct bpf_verifier_ops *ops;
	const struct bpf_prog_ops *prog_ops;
	struct bpf_prog_stats stats[NR_CPUS];	/* its runs while bpf_stats_enabled_key is on */
	struct bpf_insn insnsi[];
};

extern const struct bpf_verifier_ops kprobe_verifier_ops, tracepoint_verifier_ops,
	raw_tracepoint_verifier_ops, perf_event_verifier_ops, tracing_verifier_ops, sk_filter_verifier_ops;
extern const struct bpf_prog_ops kprobe_prog_ops, tracepoint_prog_ops, raw_tracepoint_prog_ops,
	perf_event_prog_ops, tracing_prog_ops, sk_filter_prog_ops;

/* enum bpf_attach_type's tracing values (uapi) */
#define BPF_TRACE_RAW_TP	23
#define BPF_TRACE_FENTRY	24
#define BPF_TRACE_FEXIT		25
#define BPF_MODIFY_RETURN	26
#define BPF_TRACE_ITER		28
#define BPF_PERF_EVENT		41
#define BPF_TRACE_KPROBE_MULTI	42

/* bpf_ctx_arg_aux: a context field a load of which gives reg_type of btf_id (the struct named
 * btf_struct in vmlinux's BTF: 6.1's BTF_ID, resolved at the first program's load here) */
struct bpf_ctx_arg_aux {
	u32 offset;
	u32 reg_type;
	u32 btf_id;
	const char *btf_struct;
};

/* ---- BPF iterators (bpf_iter.c, task_iter.c) ---- */
/* a context field holding a pointer, 8 bytes whatever the pointer's size (uapi's __bpf_md_ptr) */
#define __bpf_md_ptr(type, name)	\
union {					\
	type name;			\
	__u64 :64;			\
} __attribute__((aligned(8)))
/* what every iterator program's context starts with: where it writes (bpf_seq_printf()'s seq),
 * the read's session and the object's number in it */
struct seq_file;
struct bpf_iter_meta {
	__bpf_md_ptr(struct seq_file *, seq);
	u64 session_id;
	u64 seq_num;
};
/* bpf_iter_link_info: what BPF_LINK_CREATE's iter_info may say of an iterator (a task's) */
union bpf_iter_link_info {
	struct {
		__u32 map_fd;
	} map;
	struct {
		__u32 tid;
		__u32 pid;
		__u32 pid_fd;
	} task;
};
enum bpf_iter_task_type { BPF_TASK_ITER_ALL = 0, BPF_TASK_ITER_TID, BPF_TASK_ITER_TGID };
struct bpf_iter_aux_info {
	struct {
		enum bpf_iter_task_type type;
		u32 pid;
	} task;
};
/* bpf_iter_seq_info: the seq_file a target's iterator fds read through, and its private part */
struct seq_operations;
struct bpf_iter_seq_info {
	const struct seq_operations *seq_ops;
	int (*init_seq_private)(void *priv_data, struct bpf_iter_aux_info *aux);
	void (*fini_seq_private)(void *priv_data);
	u32 seq_priv_size;
};
#define BPF_ITER_CTX_ARG_MAX 2
/* bpf_iter_reg: a target ("task"), its program's function bpf_iter_<target> in the BTF */
struct bpf_iter_reg {
	const char *target;
	int (*attach_target)(struct bpf_prog *prog, union bpf_iter_link_info *linfo,
			     struct bpf_iter_aux_info *aux);
	/* BPF_OBJ_GET_INFO_BY_FD of a link: the target's members of info.iter (NULL: none) */
	int (*fill_link_info)(const struct bpf_iter_aux_info *aux, struct bpf_link_info *info);
	u32 ctx_arg_info_size;
	struct bpf_ctx_arg_aux ctx_arg_info[BPF_ITER_CTX_ARG_MAX];
	const struct bpf_iter_seq_info *seq_info;
};
/* DEFINE_BPF_ITER_FUNC: the function whose BTF prototype is the target's context (never called:
 * an __init function, as 6.1's, which the BTF keeps and ftrace does not) */
#define BPF_ITER_FUNC_PREFIX "bpf_iter_"
#define DEFINE_BPF_ITER_FUNC(target, args...)			\
	extern int bpf_iter_ ## target(args);			\
	int __init bpf_iter_ ## target(args) { return 0; }
int bpf_iter_reg_target(struct bpf_iter_reg *reg_info);
bool bpf_iter_prog_supported(struct bpf_prog *prog);
struct bpf_prog *bpf_iter_get_info(struct bpf_iter_meta *meta, bool in_stop);
int bpf_iter_run_prog(struct bpf_prog *prog, void *ctx);
/* a reference on a live object (refcnt not yet 0): refcount_inc_not_zero() */
static inline bool bpf_inc_not_zero(int *refcnt)
{
	int old = __atomic_load_n(refcnt, __ATOMIC_RELAXED);

	while (old > 0)
		if (__atomic_compare_exchange_n(refcnt, &old, old + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return true;
	return false;
}
#define BTF_MAX_TYPE		0x000fffff

/* a BPF_PROG_TYPE_PERF_EVENT program's context: what it sees (uapi bpf_perf_event.h), and
 * what the kernel passes (bpf_perf_event_data_kern), its loads rewritten from one to the other */
struct bpf_perf_event_data {
	struct pt_regs regs;		/* bpf_user_pt_regs_t */
	u64 sample_period;
	u64 addr;
};
struct perf_sample_data;
struct perf_event;
struct bpf_perf_event_data_kern {
	struct pt_regs *regs;
	struct perf_sample_data *data;
	struct perf_event *event;
};
int bpf_overflow_handler(struct perf_event *event, struct perf_sample_data *data, struct pt_regs *regs);
extern int bpf_prog_active[NR_CPUS];	/* trace_call_bpf()'s and the overflow's: no nesting */

/*
 * The programs on an attach point (bpf_prog_array): replaced whole under the attach point's
 * mutex, read lock-free with preemption off; the old array, and the references of programs no
 * longer in the new one, go after a grace period.
 */
#define BPF_TRACE_MAX_PROGS	64
struct bpf_prog_array {
	struct rcu_head rcu;
	struct bpf_prog *put;		/* the program detached by this replacement, put with it */
	u32 cnt;
	struct bpf_prog *progs[];
};
int bpf_prog_array_copy(struct bpf_prog_array *old, struct bpf_prog *exclude, struct bpf_prog *include,
			struct bpf_prog_array **new_array);
void bpf_prog_array_free_put(struct bpf_prog_array *array, struct bpf_prog *put);

/* core.c: the interpreter */
u64 __bpf_call_base(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);
u64 bpf_prog_run(const struct bpf_prog *prog, const void *ctx);
/* the interpreter or the JIT's image; *err: ENOMEM for the JIT's line addresses */
struct bpf_prog *bpf_prog_select_runtime(struct bpf_prog *prog, int *err);
int bpf_prog_alloc_jited_linfo(struct bpf_prog *prog);
void bpf_prog_jit_attempt_done(struct bpf_prog *prog);
void bpf_prog_fill_jited_linfo(struct bpf_prog *prog, const u32 *insn_to_jit_off);
void bpf_prog_calc_tag(struct bpf_prog *prog);
void bpf_prog_free(struct bpf_prog *prog);
/* the JIT (bpf_jit_comp.c, core.c): net.core.bpf_jit_enable (1: programs are compiled to x86-64
 * as they load; 0: interpreted), the program pack their images are in, the exception table entry
 * of a fault-safe load (6.1's, relative: the load at &insn + insn, the dst register's pt_regs
 * offset and the load's length in fixup) and the kallsyms lines of the images */
extern int bpf_jit_enable;
/* include/linux/filter.h: what bpf_jit_enable 2 prints of each image the JIT made (image NULL:
 * the passes did not converge, the first line only) */
static inline void bpf_jit_dump(unsigned int flen, unsigned int proglen, u32 pass, void *image)
{
	pr_err("flen=%u proglen=%u pass=%u image=%p from=%s pid=%d\n", flen, proglen, pass, image,
	       current->comm, current->pid);
	if (image)
		print_hex_dump(KERN_ERR, "JIT code: ", DUMP_PREFIX_OFFSET, 16, 1, image, proglen, false);
}
/* net/core/sysctl_net_core.c: a write of bpf_jit_enable (0..2, checked by the writer) */
int bpf_jit_enable_store(int jit_enable);
extern struct static_key bpf_stats_enabled_key;
extern int sysctl_unprivileged_bpf_disabled;
int bpf_stats_enabled_store(int val);
int bpf_unpriv_disabled_store(int val);
void bpf_prog_update_stats(const struct bpf_prog *prog, u64 start);
/* bpf_prog_<tag>[_<name>]: a JITed program's kallsyms name (at least BPF_JIT_KSYM_LEN bytes) */
void bpf_get_prog_name(const struct bpf_prog *prog, char *sym);
struct bpf_ex_entry { int insn, fixup, data; };
struct bpf_prog *bpf_int_jit_compile(struct bpf_prog *prog);
void bpf_patch_call_args(struct bpf_insn *insn, u32 stack_depth);
void bpf_prog_kallsyms_del_all(struct bpf_prog *prog);
void *bpf_jit_binary_pack_alloc(u32 size);
void bpf_jit_binary_pack_free(void *header, u32 size);
void bpf_jit_free(struct bpf_prog *prog);
void bpf_jit_free_extra_pass(struct bpf_prog *prog);
void bpf_prog_kallsyms_add(struct bpf_prog *prog);	/* (ksym_slot >= 0: it has its line) */
void bpf_prog_kallsyms_del(struct bpf_prog *prog);
const char *__bpf_address_lookup(unsigned long addr, unsigned long *size, unsigned long *off, char *sym);
bool is_bpf_text_address(unsigned long addr);
bool ex_handler_bpf(const struct bpf_ex_entry *x, struct pt_regs *regs);
const struct bpf_ex_entry *search_bpf_extables(unsigned long addr);
void host_code_page(const void *page);
/* verifier.c */
int bpf_check(struct bpf_prog **prog, union bpf_attr *attr, union bpf_attr *uattr);
/* syscall.c */
void bpf_map_put(struct bpf_map *map);
struct bpf_map *bpf_map_get(u32 ufd);	/* a reference, or an ERR_PTR */
void bpf_prog_put(struct bpf_prog *prog);
void bpf_prog_inc(struct bpf_prog *prog);
struct bpf_prog *bpf_prog_get(u32 ufd);
/* links: a program attached for as long as a file holds the link (release undoes it, and frees
 * it); its id from its first fd on (BPF_LINK_GET_NEXT_ID, BPF_LINK_GET_FD_BY_ID) */
struct bpf_link;
struct bpf_link_ops {
	void (*release)(struct bpf_link *link);
	/* BPF_OBJ_GET_INFO_BY_FD: the type's own members of info (NULL: none) */
	int (*fill_link_info)(const struct bpf_link *link, struct bpf_link_info *info);
};
struct bpf_link {
	int refcnt;		/* its files */
	u32 id;
	enum bpf_link_type type;
	const struct bpf_link_ops *ops;
	struct bpf_prog *prog;
	struct list_head id_node;	/* in the id-ordered list of links */
};
void bpf_link_init(struct bpf_link *link, enum bpf_link_type type, const struct bpf_link_ops *ops,
		   struct bpf_prog *prog);
int bpf_link_new_fd(struct bpf_link *link);
int bpf_link_info_name(u64 ubuf, u32 *ulen, const char *name);
struct bpf_link *bpf_link_get_from_fd(int fd);	/* borrowed: the caller holds the fd */
/* bpf_iter.c */
int bpf_iter_link_attach(const union bpf_attr *attr, struct bpf_prog *prog);
int bpf_iter_new_fd(struct bpf_link *link);
/* bpf_trace.c: raw tracepoints */
struct tracepoint *bpf_get_raw_tracepoint(const char *name);
int bpf_probe_register(struct tracepoint *tp, struct bpf_prog *prog);
void bpf_probe_unregister(struct tracepoint *tp, struct bpf_prog *prog);
/* btf.c: the kernel's own BTF (object 1, "vmlinux") */
extern const struct file_operations btf_fops;
u32 btf_next_id(u32 start_id);
int btf_get_fd_by_id(u32 id);
/* BPF_BTF_LOAD (kernel/bpf/btf.c): the user's BTF checked as 6.1's btf_parse(), an fd on it */
int btf_new_fd(const union bpf_attr *attr);
bool btf_is_kernel(const struct btf *btf);
u32 btf_obj_id(const struct btf *btf);
struct btf *bpf_get_btf_vmlinux(void);	/* NULL: an image without BTF */
/* map_check_btf(): the map's key and value sizes are its BTF types' */
int map_check_btf(struct bpf_map *map, const struct btf *btf, u32 btf_key_id, u32 btf_value_id);
/* map_check_no_btf: a map type whose BTF cannot be checked (ENOTSUPP) */
int map_check_no_btf(const struct bpf_map *map, const struct btf *btf, const struct btf_type *key_type,
		     const struct btf_type *value_type);
void btf_get(struct btf *btf);
void btf_put(struct btf *btf);
int btf_get_info_by_fd(const struct file *f, const union bpf_attr *attr, union bpf_attr *uattr);
/* a program's own BTF (check_btf_info()): the user's BTF object of fd, a reference (ERR_PTR:
 * EBADF, EINVAL not a BTF); its types by id and its strings by offset (NULL: none there) */
struct btf *btf_get_by_fd(int fd);
const struct btf_type *btf_type_by_id(const struct btf *btf, u32 type_id);
const char *btf_name_by_offset(const struct btf *btf, u32 offset);
int bpf_check_uarg_tail_zero(u64 uaddr, size_t expected, size_t actual);
u32 btf_func_nr_regs(const struct btf_type *func_proto);
bool btf_ctx_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog,
		   struct bpf_insn_access_aux *info);
/* trace_kprobe.c: ftrace direct calls (register_ftrace_direct()/unregister_ftrace_direct()): the
 * site calls tramp (0: no longer), whose size bytes of code (named name) the kernel has just
 * written; the host patches the site */
int ftrace_set_direct(unsigned long site, unsigned long tramp, u32 size, const char *name);
/* trampoline.c: fentry/fexit programs on their function (a BPF_RAW_TRACEPOINT_OPEN link) */
int bpf_trampoline_link_prog(struct bpf_prog *prog);
void bpf_trampoline_unlink_prog(struct bpf_prog *prog);
/* test_run.c */
int bpf_prog_test_run_raw_tp(struct bpf_prog *prog, const union bpf_attr *kattr, union bpf_attr *uattr);
/* maccess.c */
#endif
