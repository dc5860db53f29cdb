/* The bpf() system call's ABI as Linux 6.1's include/uapi/linux/bpf.h lays it out: the
 * subset of union bpf_attr, enums, instruction encoding and info structs this kernel serves.
 * Shared by the kernel (kernel/bpf/) and the guest programs that call bpf() (user/bpftest.c). */
#ifndef _UAPI_BPF_H
#define _UAPI_BPF_H

typedef unsigned char __u8;
typedef short __s16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
#define __aligned_u64 __u64 __attribute__((aligned(8)))

/* instruction classes (include/uapi/linux/bpf_common.h, bpf.h) */
#define BPF_CLASS(code) ((code) & 0x07)
#define BPF_LD		0x00
#define BPF_LDX		0x01
#define BPF_ST		0x02
#define BPF_STX		0x03
#define BPF_ALU		0x04
#define BPF_JMP		0x05
#define BPF_JMP32	0x06
#define BPF_ALU64	0x07
#define BPF_SIZE(code)  ((code) & 0x18)
#define BPF_W		0x00
#define BPF_H		0x08
#define BPF_B		0x10
#define BPF_DW		0x18
#define BPF_MODE(code)  ((code) & 0xe0)
#define BPF_IMM		0x00
#define BPF_ABS		0x20
#define BPF_IND		0x40
#define BPF_MEM		0x60
#define BPF_LEN		0x80
#define BPF_MSH		0xa0
#define BPF_ATOMIC	0xc0
#define BPF_OP(code)    ((code) & 0xf0)
#define BPF_ADD		0x00
#define BPF_SUB		0x10
#define BPF_MUL		0x20
#define BPF_DIV		0x30
#define BPF_OR		0x40
#define BPF_AND		0x50
#define BPF_LSH		0x60
#define BPF_RSH		0x70
#define BPF_NEG		0x80
#define BPF_MOD		0x90
#define BPF_XOR		0xa0
#define BPF_MOV		0xb0
#define BPF_ARSH	0xc0
#define BPF_END		0xd0
#define BPF_TO_LE	0x00
#define BPF_TO_BE	0x08
#define BPF_JA		0x00
#define BPF_JEQ		0x10
#define BPF_JGT		0x20
#define BPF_JGE		0x30
#define BPF_JSET	0x40
#define BPF_JNE		0x50
#define BPF_JSGT	0x60
#define BPF_JSGE	0x70
#define BPF_CALL	0x80
#define BPF_EXIT	0x90
#define BPF_JLT		0xa0
#define BPF_JLE		0xb0
#define BPF_JSLT	0xc0
#define BPF_JSLE	0xd0
#define BPF_SRC(code)   ((code) & 0x08)
#define BPF_K		0x00
#define BPF_X		0x08
#define BPF_FETCH	0x01
#define BPF_XCHG	(0xe0 | BPF_FETCH)
#define BPF_CMPXCHG	(0xf0 | BPF_FETCH)

enum { BPF_REG_0 = 0, BPF_REG_1, BPF_REG_2, BPF_REG_3, BPF_REG_4, BPF_REG_5, BPF_REG_6,
       BPF_REG_7, BPF_REG_8, BPF_REG_9, BPF_REG_10, __MAX_BPF_REG };
#define MAX_BPF_REG __MAX_BPF_REG

struct bpf_insn {
	__u8	code;
	__u8	dst_reg:4;
	__u8	src_reg:4;
	__s16	off;
	__s32	imm;
};

#define BPF_PSEUDO_MAP_FD	1
#define BPF_PSEUDO_MAP_IDX	5
#define BPF_PSEUDO_MAP_VALUE	2
#define BPF_PSEUDO_MAP_IDX_VALUE	6
#define BPF_PSEUDO_BTF_ID	3
#define BPF_PSEUDO_FUNC		4
#define BPF_PSEUDO_CALL		1
#define BPF_PSEUDO_KFUNC_CALL	2

enum bpf_cmd {
	BPF_MAP_CREATE, BPF_MAP_LOOKUP_ELEM, BPF_MAP_UPDATE_ELEM, BPF_MAP_DELETE_ELEM,
	BPF_MAP_GET_NEXT_KEY, BPF_PROG_LOAD, BPF_OBJ_PIN, BPF_OBJ_GET, BPF_PROG_ATTACH,
	BPF_PROG_DETACH, BPF_PROG_TEST_RUN, BPF_PROG_GET_NEXT_ID, BPF_MAP_GET_NEXT_ID,
	BPF_PROG_GET_FD_BY_ID, BPF_MAP_GET_FD_BY_ID, BPF_OBJ_GET_INFO_BY_FD, BPF_PROG_QUERY,
	BPF_RAW_TRACEPOINT_OPEN, BPF_BTF_LOAD, BPF_BTF_GET_FD_BY_ID, BPF_TASK_FD_QUERY,
	BPF_MAP_LOOKUP_AND_DELETE_ELEM, BPF_MAP_FREEZE, BPF_BTF_GET_NEXT_ID,
	BPF_MAP_LOOKUP_BATCH, BPF_MAP_LOOKUP_AND_DELETE_BATCH, BPF_MAP_UPDATE_BATCH,
	BPF_MAP_DELETE_BATCH, BPF_LINK_CREATE, BPF_LINK_UPDATE, BPF_LINK_GET_FD_BY_ID,
	BPF_LINK_GET_NEXT_ID, BPF_ENABLE_STATS, BPF_ITER_CREATE, BPF_LINK_DETACH, BPF_PROG_BIND_MAP,
};

enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC, BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_PROG_ARRAY,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY, BPF_MAP_TYPE_PERCPU_HASH, BPF_MAP_TYPE_PERCPU_ARRAY,
	BPF_MAP_TYPE_STACK_TRACE, BPF_MAP_TYPE_CGROUP_ARRAY, BPF_MAP_TYPE_LRU_HASH,
	BPF_MAP_TYPE_LRU_PERCPU_HASH, BPF_MAP_TYPE_LPM_TRIE, BPF_MAP_TYPE_ARRAY_OF_MAPS,
	BPF_MAP_TYPE_HASH_OF_MAPS, BPF_MAP_TYPE_DEVMAP, BPF_MAP_TYPE_SOCKMAP, BPF_MAP_TYPE_CPUMAP,
	BPF_MAP_TYPE_XSKMAP, BPF_MAP_TYPE_SOCKHASH, BPF_MAP_TYPE_CGROUP_STORAGE,
	BPF_MAP_TYPE_REUSEPORT_SOCKARRAY, BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE, BPF_MAP_TYPE_QUEUE,
	BPF_MAP_TYPE_STACK, BPF_MAP_TYPE_SK_STORAGE, BPF_MAP_TYPE_DEVMAP_HASH,
	BPF_MAP_TYPE_STRUCT_OPS, BPF_MAP_TYPE_RINGBUF, BPF_MAP_TYPE_INODE_STORAGE,
	BPF_MAP_TYPE_TASK_STORAGE, BPF_MAP_TYPE_BLOOM_FILTER, BPF_MAP_TYPE_USER_RINGBUF,
};

enum bpf_prog_type {
	BPF_PROG_TYPE_UNSPEC, BPF_PROG_TYPE_SOCKET_FILTER, BPF_PROG_TYPE_KPROBE,
	BPF_PROG_TYPE_SCHED_CLS, BPF_PROG_TYPE_SCHED_ACT, BPF_PROG_TYPE_TRACEPOINT,
	BPF_PROG_TYPE_XDP, BPF_PROG_TYPE_PERF_EVENT, BPF_PROG_TYPE_CGROUP_SKB,
	BPF_PROG_TYPE_CGROUP_SOCK, BPF_PROG_TYPE_LWT_IN, BPF_PROG_TYPE_LWT_OUT,
	BPF_PROG_TYPE_LWT_XMIT, BPF_PROG_TYPE_SOCK_OPS, BPF_PROG_TYPE_SK_SKB,
	BPF_PROG_TYPE_CGROUP_DEVICE, BPF_PROG_TYPE_SK_MSG, BPF_PROG_TYPE_RAW_TRACEPOINT,
	BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_PROG_TYPE_LWT_SEG6LOCAL, BPF_PROG_TYPE_LIRC_MODE2,
	BPF_PROG_TYPE_SK_REUSEPORT, BPF_PROG_TYPE_FLOW_DISSECTOR, BPF_PROG_TYPE_CGROUP_SYSCTL,
	BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE, BPF_PROG_TYPE_CGROUP_SOCKOPT,
	BPF_PROG_TYPE_TRACING, BPF_PROG_TYPE_STRUCT_OPS, BPF_PROG_TYPE_EXT, BPF_PROG_TYPE_LSM,
	BPF_PROG_TYPE_SK_LOOKUP, BPF_PROG_TYPE_SYSCALL,
};

/* map_flags */
#define BPF_F_NO_PREALLOC	(1U << 0)
#define BPF_F_NO_COMMON_LRU	(1U << 1)
#define BPF_F_NUMA_NODE		(1U << 2)
#define BPF_F_RDONLY		(1U << 3)
#define BPF_F_WRONLY		(1U << 4)
#define BPF_F_STACK_BUILD_ID	(1U << 5)

/* a stack map's value with BPF_F_STACK_BUILD_ID: an entry per frame */
#define BPF_BUILD_ID_SIZE 20
enum bpf_stack_build_id_status {
	BPF_STACK_BUILD_ID_EMPTY = 0,	/* user space need an empty entry to identify end of a trace */
	BPF_STACK_BUILD_ID_VALID = 1,	/* with valid build_id and offset */
	BPF_STACK_BUILD_ID_IP = 2,	/* couldn't get build_id, fallback to ip */
};
/* a socket filter's context: the program's view of the sk_buff (convert_ctx_access() makes its
 * loads the kernel's) */
struct __sk_buff {
	__u32 len, pkt_type, mark, queue_mapping, protocol, vlan_present, vlan_tci, vlan_proto;
	__u32 priority, ingress_ifindex, ifindex, tc_index;
	__u32 cb[5];
	__u32 hash, tc_classid, data, data_end, napi_id;
	__u32 family, remote_ip4, local_ip4, remote_ip6[4], local_ip6[4], remote_port, local_port;
	__u32 data_meta;
	__u64 flow_keys;	/* __bpf_md_ptr()s: a pointer in 8 bytes */
	__u64 tstamp;
	__u32 wire_len, gso_segs;
	__u64 sk;
	__u32 gso_size;
	__u8 tstamp_type;
	__u32 :24;
	__u64 hwtstamp;
};

struct bpf_stack_build_id {
	__s32 status;
	unsigned char build_id[BPF_BUILD_ID_SIZE];
	union {
		__u64 offset;
		__u64 ip;
	};
};
#define BPF_F_ZERO_SEED		(1U << 6)
#define BPF_F_RDONLY_PROG	(1U << 7)
#define BPF_F_WRONLY_PROG	(1U << 8)
#define BPF_F_CLONE		(1U << 9)
#define BPF_F_MMAPABLE		(1U << 10)
#define BPF_F_PRESERVE_ELEMS	(1U << 11)
#define BPF_F_INNER_MAP		(1U << 12)
/* BPF_MAP_UPDATE_ELEM flags */
#define BPF_ANY		0
#define BPF_NOEXIST	1
#define BPF_EXIST	2
#define BPF_F_LOCK	4
/* bpf_perf_event_output() flags: the array's index, or this cpu's */
#define BPF_F_INDEX_MASK	0xffffffffULL
#define BPF_F_CURRENT_CPU	BPF_F_INDEX_MASK
#define BPF_F_CTXLEN_MASK	(0xfffffULL << 32)
/* prog_flags */
#define BPF_F_STRICT_ALIGNMENT	(1U << 0)
#define BPF_F_ANY_ALIGNMENT	(1U << 1)
#define BPF_F_TEST_RND_HI32	(1U << 2)
#define BPF_F_TEST_STATE_FREQ	(1U << 3)
#define BPF_F_SLEEPABLE		(1U << 4)
#define BPF_F_XDP_HAS_FRAGS	(1U << 5)
#define BPF_F_TEST_RUN_ON_CPU	(1U << 0)

#define BPF_OBJ_NAME_LEN 16U
#define BPF_TAG_SIZE 8

enum bpf_stats_type {
	BPF_STATS_RUN_TIME = 0,	/* programs' run_time_ns and run_cnt */
};

union bpf_attr {
	struct {	/* BPF_MAP_CREATE */
		__u32	map_type;
		__u32	key_size;
		__u32	value_size;
		__u32	max_entries;
		__u32	map_flags;
		__u32	inner_map_fd;
		__u32	numa_node;
		char	map_name[BPF_OBJ_NAME_LEN];
		__u32	map_ifindex;
		__u32	btf_fd;
		__u32	btf_key_type_id;
		__u32	btf_value_type_id;
		__u32	btf_vmlinux_value_type_id;
		__u64	map_extra;
	};
	struct {	/* BPF_MAP_*_ELEM */
		__u32		map_fd;
		__aligned_u64	key;
		union {
			__aligned_u64 value;
			__aligned_u64 next_key;
		};
		__u64		flags;
	};
	struct {	/* BPF_MAP_*_BATCH */
		__aligned_u64	in_batch;	/* start the batch from here (NULL: the first) */
		__aligned_u64	out_batch;	/* where the next batch starts */
		__aligned_u64	keys;
		__aligned_u64	values;
		__u32		count;		/* in: the room in keys/values; out: the elements done */
		__u32		map_fd;
		__u64		elem_flags;
		__u64		flags;
	} batch;
	struct {	/* BPF_PROG_LOAD */
		__u32		prog_type;
		__u32		insn_cnt;
		__aligned_u64	insns;
		__aligned_u64	license;
		__u32		log_level;
		__u32		log_size;
		__aligned_u64	log_buf;
		__u32		kern_version;
		__u32		prog_flags;
		char		prog_name[BPF_OBJ_NAME_LEN];
		__u32		prog_ifindex;
		__u32		expected_attach_type;
		__u32		prog_btf_fd;
		__u32		func_info_rec_size;
		__aligned_u64	func_info;
		__u32		func_info_cnt;
		__u32		line_info_rec_size;
		__aligned_u64	line_info;
		__u32		line_info_cnt;
		__u32		attach_btf_id;
		union {
			__u32	attach_prog_fd;
			__u32	attach_btf_obj_fd;
		};
		__u32		core_relo_cnt;
		__aligned_u64	fd_array;
		__aligned_u64	core_relos;
		__u32		core_relo_rec_size;
	};
	struct {	/* BPF_BTF_LOAD */
		__aligned_u64	btf;
		__aligned_u64	btf_log_buf;
		__u32		btf_size;
		__u32		btf_log_size;
		__u32		btf_log_level;
	};
	struct {	/* BPF_OBJ_PIN, BPF_OBJ_GET */
		__aligned_u64	pathname;
		__u32		bpf_fd;
		__u32		file_flags;
	};
	struct {	/* BPF_PROG_TEST_RUN */
		__u32		prog_fd;
		__u32		retval;
		__u32		data_size_in;
		__u32		data_size_out;
		__aligned_u64	data_in;
		__aligned_u64	data_out;
		__u32		repeat;
		__u32		duration;
		__u32		ctx_size_in;
		__u32		ctx_size_out;
		__aligned_u64	ctx_in;
		__aligned_u64	ctx_out;
		__u32		flags;
		__u32		cpu;
		__u32		batch_size;
	} test;
	struct {	/* BPF_*_GET_*_ID */
		union {
			__u32	start_id;
			__u32	prog_id;
			__u32	map_id;
			__u32	btf_id;
			__u32	link_id;
		};
		__u32		next_id;
		__u32		open_flags;
	};
	struct {	/* BPF_OBJ_GET_INFO_BY_FD */
		__u32		bpf_fd;
		__u32		info_len;
		__aligned_u64	info;
	} info;
	struct {	/* BPF_RAW_TRACEPOINT_OPEN */
		__u64		name;
		__u32		prog_fd;
	} raw_tracepoint;
	struct {	/* BPF_LINK_CREATE */
		union {
			__u32	prog_fd;
			__u32	map_fd;
		};
		union {
			__u32	target_fd;
			__u32	target_ifindex;
		};
		__u32		attach_type;
		__u32		flags;
		union {
			__u32	target_btf_id;
			struct {
				__aligned_u64	iter_info;	/* a union bpf_iter_link_info */
				__u32		iter_info_len;
			};
			struct {
				__u32		flags;
				__u32		cnt;
				__aligned_u64	syms;
				__aligned_u64	addrs;
				__aligned_u64	cookies;
			} kprobe_multi;
			struct {
				__u32	target_btf_id;
				__u64	cookie;
			} tracing;
		};
	} link_create;
	struct {	/* BPF_ENABLE_STATS */
		__u32	type;
	} enable_stats;
	struct {	/* BPF_ITER_CREATE */
		__u32	link_fd;
		__u32	flags;
	} iter_create;
	struct {	/* BPF_TASK_FD_QUERY */
		__u32	pid;		/* in: the task's pid */
		__u32	fd;		/* in: its fd */
		__u32	flags;		/* in: 0 */
		__u32	buf_len;	/* in: buf's size; out: the name's length */
		__u64	buf;		/* in: where the name goes (tracepoint, function or file) */
		__u32	prog_id;	/* out */
		__u32	fd_type;	/* out: BPF_FD_TYPE_* */
		__u64	probe_offset;	/* out: a kprobe's offset in its function, a uprobe's in its file */
		__u64	probe_addr;	/* out: a kprobe's address (without a function) */
	} task_fd_query;
	struct {	/* BPF_PROG_BIND_MAP */
		__u32	prog_fd;
		__u32	map_fd;
		__u32	flags;
	} prog_bind_map;
	char __size[144];	/* sizeof(union bpf_attr) in 6.1 */
} __attribute__((aligned(8)));

struct bpf_prog_info {
	__u32 type;
	__u32 id;
	__u8  tag[BPF_TAG_SIZE];
	__u32 jited_prog_len;
	__u32 xlated_prog_len;
	__aligned_u64 jited_prog_insns;
	__aligned_u64 xlated_prog_insns;
	__u64 load_time;
	__u32 created_by_uid;
	__u32 nr_map_ids;
	__aligned_u64 map_ids;
	char name[BPF_OBJ_NAME_LEN];
	__u32 ifindex;
	__u32 gpl_compatible:1;
	__u32 :31;
	__u64 netns_dev;
	__u64 netns_ino;
	__u32 nr_jited_ksyms;
	__u32 nr_jited_func_lens;
	__aligned_u64 jited_ksyms;
	__aligned_u64 jited_func_lens;
	__u32 btf_id;
	__u32 func_info_rec_size;
	__aligned_u64 func_info;
	__u32 nr_func_info;
	__u32 nr_line_info;
	__aligned_u64 line_info;
	__aligned_u64 jited_line_info;
	__u32 nr_jited_line_info;
	__u32 line_info_rec_size;
	__u32 jited_line_info_rec_size;
	__u32 nr_prog_tags;
	__aligned_u64 prog_tags;
	__u64 run_time_ns;
	__u64 run_cnt;
	__u64 recursion_misses;
	__u32 verified_insns;
	__u32 attach_btf_obj_id;
	__u32 attach_btf_id;
	__u32 :32;
} __attribute__((aligned(8)));

/* a program's func_info and line_info records (BPF_PROG_LOAD, BPF_OBJ_GET_INFO_BY_FD): where a
 * function or a source line starts, by instruction; its BTF FUNC, or its file and line (offsets
 * in the BTF's strings), the line number in line_col's upper 22 bits */
struct bpf_func_info {
	__u32 insn_off;
	__u32 type_id;
};

struct bpf_line_info {
	__u32 insn_off;
	__u32 file_name_off;
	__u32 line_off;
	__u32 line_col;
};

struct bpf_map_info {
	__u32 type;
	__u32 id;
	__u32 key_size;
	__u32 value_size;
	__u32 max_entries;
	__u32 map_flags;
	char  name[BPF_OBJ_NAME_LEN];
	__u32 ifindex;
	__u32 btf_vmlinux_value_type_id;
	__u64 netns_dev;
	__u64 netns_ino;
	__u32 btf_id;
	__u32 btf_key_type_id;
	__u32 btf_value_type_id;
	__u32 :32;
	__u64 map_extra;
} __attribute__((aligned(8)));

struct bpf_btf_info {
	__aligned_u64 btf;
	__u32 btf_size;
	__u32 id;
	__aligned_u64 name;
	__u32 name_len;
	__u32 kernel_btf;
} __attribute__((aligned(8)));

/* what BPF_TASK_FD_QUERY found the fd to be */
enum bpf_task_fd_type {
	BPF_FD_TYPE_RAW_TRACEPOINT, BPF_FD_TYPE_TRACEPOINT, BPF_FD_TYPE_KPROBE, BPF_FD_TYPE_KRETPROBE,
	BPF_FD_TYPE_UPROBE, BPF_FD_TYPE_URETPROBE,
};

enum bpf_link_type {
	BPF_LINK_TYPE_UNSPEC = 0, BPF_LINK_TYPE_RAW_TRACEPOINT = 1, BPF_LINK_TYPE_TRACING = 2,
	BPF_LINK_TYPE_CGROUP = 3, BPF_LINK_TYPE_ITER = 4, BPF_LINK_TYPE_NETNS = 5, BPF_LINK_TYPE_XDP = 6,
	BPF_LINK_TYPE_PERF_EVENT = 7, BPF_LINK_TYPE_KPROBE_MULTI = 8, BPF_LINK_TYPE_STRUCT_OPS = 9,
};

/* BPF_OBJ_GET_INFO_BY_FD of a link (the members of the link types here) */
struct bpf_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	union {
		struct {
			__aligned_u64 tp_name;	/* in/out: the tracepoint's name */
			__u32 tp_name_len;	/* in/out: its buffer's length */
		} raw_tracepoint;
		struct {
			__u32 attach_type;
			__u32 target_obj_id;	/* the BTF object holding the target (vmlinux's) */
			__u32 target_btf_id;	/* the target's BTF type id */
		} tracing;
		struct {
			__aligned_u64 target_name;	/* in/out: the iterator target's name */
			__u32 target_name_len;	/* in/out: its buffer's length */
			union {
				struct {
					__u32 map_id;
				} map;
			};
			union {
				struct {
					__u64 cgroup_id;
					__u32 order;
				} cgroup;
				struct {
					__u32 tid;
					__u32 pid;
				} task;
			};
		} iter;
	};
} __attribute__((aligned(8)));
_Static_assert(sizeof(struct bpf_link_info) == 48, "bpf_link_info as 6.1's");

/* helpers, by number (___BPF_FUNC_MAPPER) */
enum bpf_func_id {
	BPF_FUNC_unspec, BPF_FUNC_map_lookup_elem, BPF_FUNC_map_update_elem,
	BPF_FUNC_map_delete_elem, BPF_FUNC_probe_read, BPF_FUNC_ktime_get_ns,
	BPF_FUNC_trace_printk, BPF_FUNC_get_prandom_u32, BPF_FUNC_get_smp_processor_id,
	BPF_FUNC_tail_call = 12, BPF_FUNC_map_push_elem = 87, BPF_FUNC_map_pop_elem = 88,
	BPF_FUNC_map_peek_elem = 89, BPF_FUNC_strtol = 105, BPF_FUNC_strtoul = 106, BPF_FUNC_strncmp = 182, BPF_FUNC_snprintf = 165,
	BPF_FUNC_get_current_pid_tgid = 14, BPF_FUNC_get_current_uid_gid = 15,
	BPF_FUNC_get_current_comm = 16, BPF_FUNC_perf_event_read = 22, BPF_FUNC_perf_event_output = 25,
	BPF_FUNC_get_stackid = 27, BPF_FUNC_get_current_task = 35, BPF_FUNC_skb_under_cgroup = 33, BPF_FUNC_current_task_under_cgroup = 37, BPF_FUNC_get_stack = 67, BPF_FUNC_perf_event_read_value = 55,
	BPF_FUNC_perf_prog_read_value = 56,
	BPF_FUNC_skb_output = 111, BPF_FUNC_xdp_output = 121,
	BPF_FUNC_probe_read_str = 45, BPF_FUNC_probe_read_user = 112,
	BPF_FUNC_probe_read_kernel = 113, BPF_FUNC_probe_read_user_str = 114,
	BPF_FUNC_probe_read_kernel_str = 115, BPF_FUNC_get_current_task_btf = 158,
	BPF_FUNC_ringbuf_output = 130, BPF_FUNC_ringbuf_reserve = 131, BPF_FUNC_ringbuf_submit = 132,
	BPF_FUNC_ringbuf_discard = 133, BPF_FUNC_ringbuf_query = 134,
	BPF_FUNC_seq_printf = 126, BPF_FUNC_seq_write = 127, BPF_FUNC_d_path = 147,
	BPF_FUNC_ktime_get_coarse_ns = 160, BPF_FUNC_get_func_ip = 173, BPF_FUNC_for_each_map_elem = 164, BPF_FUNC_loop = 181,
	BPF_FUNC_send_signal = 109, BPF_FUNC_send_signal_thread = 117,
	BPF_FUNC_get_numa_node_id = 42, BPF_FUNC_jiffies64 = 118, BPF_FUNC_ktime_get_boot_ns = 125,
	BPF_FUNC_map_lookup_percpu_elem = 195, BPF_FUNC_ktime_get_tai_ns = 208,
	__BPF_FUNC_MAX_ID = 210,
};

/* BPF_FUNC_ringbuf_output, _submit and _discard flags */
enum {
	BPF_RB_NO_WAKEUP = (1ULL << 0),
	BPF_RB_FORCE_WAKEUP = (1ULL << 1),
};
/* BPF_FUNC_ringbuf_query flags */
enum {
	BPF_RB_AVAIL_DATA = 0,
	BPF_RB_RING_SIZE = 1,
	BPF_RB_CONS_POS = 2,
	BPF_RB_PROD_POS = 3,
};
/* a BPF ring buffer record's header: its len's bits */
enum {
	BPF_RINGBUF_BUSY_BIT = (1U << 31),
	BPF_RINGBUF_DISCARD_BIT = (1U << 30),
	BPF_RINGBUF_HDR_SZ = 8,
};
#endif
