/*
 * The perf_events ABI of Linux 6.1 (include/uapi/linux/perf_event.h): what user space passes to
 * perf_event_open(2), the ioctls on its fds, the read() formats and the ring buffer's layout.
 * Shared by the kernel (kernel/events/) and the user programs (user/perf.c).
 */
#ifndef _UAPI_PERF_EVENT_H
#define _UAPI_PERF_EVENT_H

enum perf_type_id {
	PERF_TYPE_HARDWARE = 0,
	PERF_TYPE_SOFTWARE = 1,
	PERF_TYPE_TRACEPOINT = 2,
	PERF_TYPE_HW_CACHE = 3,
	PERF_TYPE_RAW = 4,
	PERF_TYPE_BREAKPOINT = 5,
	PERF_TYPE_MAX,
};
#define PERF_PMU_TYPE_SHIFT 32
#define PERF_HW_EVENT_MASK 0xffffffff

enum perf_hw_id {
	PERF_COUNT_HW_CPU_CYCLES = 0,
	PERF_COUNT_HW_INSTRUCTIONS = 1,
	PERF_COUNT_HW_CACHE_REFERENCES = 2,
	PERF_COUNT_HW_CACHE_MISSES = 3,
	PERF_COUNT_HW_BRANCH_INSTRUCTIONS = 4,
	PERF_COUNT_HW_BRANCH_MISSES = 5,
	PERF_COUNT_HW_BUS_CYCLES = 6,
	PERF_COUNT_HW_STALLED_CYCLES_FRONTEND = 7,
	PERF_COUNT_HW_STALLED_CYCLES_BACKEND = 8,
	PERF_COUNT_HW_REF_CPU_CYCLES = 9,
	PERF_COUNT_HW_MAX,
};

enum perf_sw_ids {
	PERF_COUNT_SW_CPU_CLOCK = 0,
	PERF_COUNT_SW_TASK_CLOCK = 1,
	PERF_COUNT_SW_PAGE_FAULTS = 2,
	PERF_COUNT_SW_CONTEXT_SWITCHES = 3,
	PERF_COUNT_SW_CPU_MIGRATIONS = 4,
	PERF_COUNT_SW_PAGE_FAULTS_MIN = 5,
	PERF_COUNT_SW_PAGE_FAULTS_MAJ = 6,
	PERF_COUNT_SW_ALIGNMENT_FAULTS = 7,
	PERF_COUNT_SW_EMULATION_FAULTS = 8,
	PERF_COUNT_SW_DUMMY = 9,
	PERF_COUNT_SW_BPF_OUTPUT = 10,
	PERF_COUNT_SW_CGROUP_SWITCHES = 11,
	PERF_COUNT_SW_MAX,
};

enum perf_event_sample_format {
	PERF_SAMPLE_IP = 1U << 0,
	PERF_SAMPLE_TID = 1U << 1,
	PERF_SAMPLE_TIME = 1U << 2,
	PERF_SAMPLE_ADDR = 1U << 3,
	PERF_SAMPLE_READ = 1U << 4,
	PERF_SAMPLE_CALLCHAIN = 1U << 5,
	PERF_SAMPLE_ID = 1U << 6,
	PERF_SAMPLE_CPU = 1U << 7,
	PERF_SAMPLE_PERIOD = 1U << 8,
	PERF_SAMPLE_STREAM_ID = 1U << 9,
	PERF_SAMPLE_RAW = 1U << 10,
	PERF_SAMPLE_BRANCH_STACK = 1U << 11,
	PERF_SAMPLE_REGS_USER = 1U << 12,
	PERF_SAMPLE_STACK_USER = 1U << 13,
	PERF_SAMPLE_WEIGHT = 1U << 14,
	PERF_SAMPLE_DATA_SRC = 1U << 15,
	PERF_SAMPLE_IDENTIFIER = 1U << 16,
	PERF_SAMPLE_TRANSACTION = 1U << 17,
	PERF_SAMPLE_REGS_INTR = 1U << 18,
	PERF_SAMPLE_PHYS_ADDR = 1U << 19,
	PERF_SAMPLE_AUX = 1U << 20,
	PERF_SAMPLE_CGROUP = 1U << 21,
	PERF_SAMPLE_DATA_PAGE_SIZE = 1U << 22,
	PERF_SAMPLE_CODE_PAGE_SIZE = 1U << 23,
	PERF_SAMPLE_WEIGHT_STRUCT = 1U << 24,
	PERF_SAMPLE_MAX = 1U << 25,
};

#define PERF_SAMPLE_BRANCH_USER		(1U << 0)
#define PERF_SAMPLE_BRANCH_KERNEL	(1U << 1)
#define PERF_SAMPLE_BRANCH_HV		(1U << 2)
#define PERF_SAMPLE_BRANCH_PLM_ALL	(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)
#define PERF_SAMPLE_BRANCH_MAX		(1U << 19)

enum perf_event_read_format {
	PERF_FORMAT_TOTAL_TIME_ENABLED = 1U << 0,
	PERF_FORMAT_TOTAL_TIME_RUNNING = 1U << 1,
	PERF_FORMAT_ID = 1U << 2,
	PERF_FORMAT_GROUP = 1U << 3,
	PERF_FORMAT_LOST = 1U << 4,
	PERF_FORMAT_MAX = 1U << 5,
};

#define PERF_ATTR_SIZE_VER0	64	/* sizeof first published struct */
#define PERF_ATTR_SIZE_VER1	72	/* add: config2 */
#define PERF_ATTR_SIZE_VER2	80	/* add: branch_sample_type */
#define PERF_ATTR_SIZE_VER3	96	/* add: sample_regs_user, sample_stack_user */
#define PERF_ATTR_SIZE_VER4	104	/* add: sample_regs_intr */
#define PERF_ATTR_SIZE_VER5	112	/* add: aux_watermark */
#define PERF_ATTR_SIZE_VER6	120	/* add: aux_sample_size */
#define PERF_ATTR_SIZE_VER7	128	/* add: sig_data */

struct perf_event_attr {
	unsigned int type;
	unsigned int size;
	unsigned long long config;
	union {
		unsigned long long sample_period;
		unsigned long long sample_freq;
	};
	unsigned long long sample_type;
	unsigned long long read_format;
	unsigned long long disabled : 1, inherit : 1, pinned : 1, exclusive : 1,
		exclude_user : 1, exclude_kernel : 1, exclude_hv : 1, exclude_idle : 1,
		mmap : 1, comm : 1, freq : 1, inherit_stat : 1, enable_on_exec : 1, task : 1,
		watermark : 1, precise_ip : 2, mmap_data : 1, sample_id_all : 1,
		exclude_host : 1, exclude_guest : 1,
		exclude_callchain_kernel : 1, exclude_callchain_user : 1, mmap2 : 1, comm_exec : 1,
		use_clockid : 1, context_switch : 1, write_backward : 1, namespaces : 1,
		ksymbol : 1, bpf_event : 1, aux_output : 1, cgroup : 1, text_poke : 1,
		build_id : 1, inherit_thread : 1, remove_on_exec : 1, sigtrap : 1,
		__reserved_1 : 26;
	union {
		unsigned int wakeup_events;
		unsigned int wakeup_watermark;
	};
	unsigned int bp_type;
	union {
		unsigned long long bp_addr;
		unsigned long long kprobe_func;
		unsigned long long uprobe_path;
		unsigned long long config1;
	};
	union {
		unsigned long long bp_len;
		unsigned long long kprobe_addr;
		unsigned long long probe_offset;
		unsigned long long config2;
	};
	unsigned long long branch_sample_type;
	unsigned long long sample_regs_user;
	unsigned int sample_stack_user;
	int clockid;
	unsigned long long sample_regs_intr;
	unsigned int aux_watermark;
	unsigned short sample_max_stack;
	unsigned short __reserved_2;
	unsigned int aux_sample_size;
	unsigned int __reserved_3;
	unsigned long long sig_data;
};
_Static_assert(sizeof(struct perf_event_attr) == PERF_ATTR_SIZE_VER7, "6.1's perf_event_attr");

/* ioctls: _IO('$', n), _IOW/_IOR with the argument's size */
#define PERF_EVENT_IOC_ENABLE			0x2400
#define PERF_EVENT_IOC_DISABLE			0x2401
#define PERF_EVENT_IOC_REFRESH			0x2402
#define PERF_EVENT_IOC_RESET			0x2403
#define PERF_EVENT_IOC_PERIOD			0x40082404
#define PERF_EVENT_IOC_SET_OUTPUT		0x2405
#define PERF_EVENT_IOC_SET_FILTER		0x40082406
#define PERF_EVENT_IOC_ID			0x80082407
#define PERF_EVENT_IOC_SET_BPF			0x40042408
#define PERF_EVENT_IOC_PAUSE_OUTPUT		0x40042409
#define PERF_EVENT_IOC_QUERY_BPF		0xc008240a
#define PERF_EVENT_IOC_MODIFY_ATTRIBUTES	0x4008240b

enum perf_event_ioc_flags {
	PERF_IOC_FLAG_GROUP = 1U << 0,
};

/* The first page of an event's mmap: the counter's state, then where the records are. */
struct perf_event_mmap_page {
	unsigned int version;
	unsigned int compat_version;
	unsigned int lock;		/* seqlock of the fields up to data_head */
	unsigned int index;
	long long offset;
	unsigned long long time_enabled;
	unsigned long long time_running;
	unsigned long long capabilities;	/* bit 1: cap_bit0_is_deprecated */
	unsigned short pmc_width;
	unsigned short time_shift;
	unsigned int time_mult;
	unsigned long long time_offset;
	unsigned long long time_zero;
	unsigned int size;
	unsigned int __reserved_1;
	unsigned long long time_cycles;
	unsigned long long time_mask;
	unsigned char __reserved[116 * 8];
	unsigned long long data_head;	/* the kernel's: where the next record goes */
	unsigned long long data_tail;	/* the reader's: what it has read */
	unsigned long long data_offset;
	unsigned long long data_size;
	unsigned long long aux_head;
	unsigned long long aux_tail;
	unsigned long long aux_offset;
	unsigned long long aux_size;
};
_Static_assert(__builtin_offsetof(struct perf_event_mmap_page, data_head) == 1024, "6.1's mmap page");

struct perf_event_header {
	unsigned int type;
	unsigned short misc;
	unsigned short size;
};

#define PERF_RECORD_MISC_CPUMODE_MASK	(7 << 0)
#define PERF_RECORD_MISC_KERNEL		(1 << 0)
#define PERF_RECORD_MISC_USER		(2 << 0)
#define PERF_RECORD_MISC_MMAP_DATA	(1 << 13)
#define PERF_RECORD_MISC_COMM_EXEC	(1 << 13)

enum perf_event_type {
	PERF_RECORD_MMAP = 1,
	PERF_RECORD_LOST = 2,
	PERF_RECORD_COMM = 3,
	PERF_RECORD_EXIT = 4,
	PERF_RECORD_THROTTLE = 5,
	PERF_RECORD_UNTHROTTLE = 6,
	PERF_RECORD_FORK = 7,
	PERF_RECORD_READ = 8,
	PERF_RECORD_SAMPLE = 9,
	PERF_RECORD_MMAP2 = 10,
	PERF_RECORD_KSYMBOL = 17,
	PERF_RECORD_BPF_EVENT = 18,
	PERF_RECORD_MAX,
};

/* PERF_RECORD_KSYMBOL's ksym_type and flags */
#define PERF_RECORD_KSYMBOL_TYPE_BPF		1
#define PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER	(1 << 0)
/* PERF_RECORD_BPF_EVENT's type */
enum perf_bpf_event_type {
	PERF_BPF_EVENT_UNKNOWN = 0,
	PERF_BPF_EVENT_PROG_LOAD = 1,
	PERF_BPF_EVENT_PROG_UNLOAD = 2,
	PERF_BPF_EVENT_MAX,
};

#define PERF_MAX_STACK_DEPTH		127
#define PERF_CONTEXT_HV			((unsigned long long)-32)
#define PERF_CONTEXT_KERNEL		((unsigned long long)-128)
#define PERF_CONTEXT_USER		((unsigned long long)-512)

#define PERF_FLAG_FD_NO_GROUP		(1UL << 0)
#define PERF_FLAG_FD_OUTPUT		(1UL << 1)
#define PERF_FLAG_PID_CGROUP		(1UL << 2)
#define PERF_FLAG_FD_CLOEXEC		(1UL << 3)
#define PERF_FLAG_ALL	(PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC)
#endif
