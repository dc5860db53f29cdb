/*
 * The contract between the emulated kernel and the machine that runs it
 * (src/tracefs_sim/machine/hostif.py mirrors these layouts; the static
 * asserts below pin them).  Guest->host: `out` to a doorbell port with the
 * arguments in the per-CPU area.  Host->guest: boot_params before boot,
 * host_requests mailbox + a host-injected interrupt after.
 */
#ifndef _HOSTIF_H
#define _HOSTIF_H
#include "types.h"

#define NR_CPUS 8
#define PORT_IPI	0x510	/* al = target cpu: wake it and inject the reschedule vector */
#define PORT_WRITE	0x511	/* db_arg: host id, kernel buffer address, length, fd (1 or 2) */
#define PORT_EXIT	0x512	/* db_arg: host id, exit status (wait status word) */
#define PORT_PANIC	0x513	/* db_arg: message address, length */
#define PORT_READY	0x514	/* al = 0: APs may start; al = 1: init is running */
#define PORT_SPAWNED	0x515	/* db_arg: host id, pid of the task that runs it */
#define PORT_IDLE	0x516	/* this cpu halts next (sti; hlt): sleep until next_event_ns or an IPI */
/* Follows every `hlt` (inline asm): the address after it goes in __halt_resume_sites, where the
 * host's run loop knows a halted cpu by its stop address (machine/image.py halt_resume_sites). */
#define HALT_RESUME_SITE	"911:\n.pushsection __halt_resume_sites, \"a\"\n.quad 911b\n.popsection\n"
#define PORT_TRACE	0x517	/* a trace ring page filled, or a tick found committed trace data */
#define PORT_CODE	0x518	/* db_arg: physical address of a page just filled with user code */
#define PORT_IPI_TIMER	0x519	/* al = target cpu: inject the local timer vector (a tick broadcast) */
#define PORT_CONSOLE	0x51a	/* db_arg: text address, length: the serial console's output */
#define PORT_SESSION_REPLY 0x51b	/* the session ring's reply is written (kernel/session.c) */
#define PORT_HOSTFS	0x51c	/* outl: eax = physical address of a struct hostfs_req (uapi/hostfs.h),
				 * served at once (natively: src/tracefs_sim/machine/native/hostfs.c) */
#define PORT_TLB	0x51d	/* a user address space other CPUs may run lost translations:
				 * they forget every user one (the TLB shootdown's IPIs) */
#define PORT_UPROBE	0x51e	/* db_arg: address of a struct uprobe_call: the host's uprobe
				 * handlers run (kernel/events/uprobes.c, probes/uprobes.py) */
#define PORT_KPROBE_HIT	0x51f	/* db_arg: pt_regs, KPROBE_HOST_*, address: an int3 point's host
				 * handlers (include/trace/probe_stage.h) */
#define PORT_PERF_WAKEUP 0x520	/* al = perf pool region: a wakeup of the buffer there, which a
				 * session's supervisor waits for (uapi/perf_pool.h) */
#define PORT_KERNEL_REQ	0x521	/* db_arg: address of the struct kernel_req posted
				 * (kernel_request.h); the host answers it later, sets its
				 * `done` and raises the call-function vector */
#define PORT_STDIN	0x522	/* db_arg: host id: a reader of its stdin found it empty: send more */
#define PORT_PMU	0x523	/* the PMU's counters are read or reprogrammed next: the host counts
				 * them up to now (natively: src/tracefs_sim/machine/native/pmu.h) */
#define PORT_REPLY	0x524	/* db_arg: request id, result (0 or -errno): kthreadd's answer to a host
				 * request that has one (HOST_REQ_TRACE_SLOT) */
#define PORT_TRACE_FULL	0x525	/* al = slot: this cpu's trace ring of that slot is full: a live host
				 * drains it before the guest goes on (the ring is a transport;
				 * Linux's buffer, the host's, may have room) */
#define PORT_YIELD	0x526	/* cpu_relax(): this cpu waits for another or for the host: a
				 * live host ends its slice, as a hypervisor's pause-loop exit does
				 * (the cpus run one at a time, in turns: the other cannot go on
				 * before this one's turn ends) */
#define PORT_FENCE	0x527	/* host_mb(): a full barrier on the host.  Unicorn's TCG (no
				 * parallel cpus) makes no host fence of the guest's mfence or
				 * lock prefix, so a guest store may still sit in the host cpu's
				 * store buffer at its next load: a handshake with a host thread
				 * (store a flag, then look at what the host wrote) needs this */

#define WORKLOAD_NONE	0
#define WORKLOAD_DEFAULT 1

/*
 * The emulated PMU: Intel's architectural performance monitoring (version 2) with
 * PMU_NR_COUNTERS general counters per cpu, whose registers are the hostif_pmu of its
 * hostif_cpu rather than MSRs.  Three events are counted (umask 0): unhalted core cycles (0x3c),
 * the virtual TSC's cycles (trace/clock.py's TSC_KHZ) over the time the cpu ran guest code, added
 * as each instruction slice ends (live: the slice's host time; seeded: its code bytes x the
 * seeded clock's ns per byte); instructions retired (0xc0) and branch instructions retired
 * (0xc4), counted as the cpu runs them (a block hook the host adds while one is programmed:
 * src/tracefs_sim/machine/native/pmu_insn.c).  A counter whose evtsel has EN, USR and OS and whose
 * global_ctrl bit is set counts; when it wraps past 2^PMU_CNTVAL_BITS its global_status bit is
 * set and, with INT, the host ends the slice there and delivers an NMI (vector 2, whatever
 * EFLAGS.IF) unless lvtpc_masked, which the delivery sets.
 */
#define PMU_NR_COUNTERS		4
#define PMU_CNTVAL_BITS		48
#define PMU_EVTSEL_USR		(1ULL << 16)
#define PMU_EVTSEL_OS		(1ULL << 17)
#define PMU_EVTSEL_INT		(1ULL << 20)
#define PMU_EVTSEL_EN		(1ULL << 22)
#define PMU_EVENT_CYCLES	0x3c	/* UnHalted Core Cycles, umask 0 */
#define PMU_EVENT_INSNS		0xc0	/* Instructions Retired */
#define PMU_EVENT_BRANCHES	0xc4	/* Branch Instructions Retired */
#define PMU_NMI_STACK_SIZE	16384	/* the NMI's stack (nmi_stack): no NMI while the cpu is on it */

struct boot_params {
	u64 magic;
	u64 nr_cpus;
	u64 ram_size;
	u64 seeded;
	u64 seed;
	u64 workload;
	u64 boot_realtime_ns;	/* CLOCK_REALTIME when the virtual clock read 0 */
	/* the perf pool (machine/perf_pool.py): regions of memory the host can share with a
	 * session's process, for perf ring buffers; physical, in the direct map */
	u64 perf_pool_base;
	u64 perf_pool_count;
	u64 perf_pool_region_size;
	u64 boot_monotonic_ns;	/* live: the host's CLOCK_MONOTONIC when the virtual clock read 0
				 * (the run loop's; 0 seeded): session records' times in ktime */
	/* after the perf pool's perf_pool_count regions, its big ones (BPF ring buffers that a
	 * region does not hold), each perf_pool_big_size bytes */
	u64 perf_pool_big_count;
	u64 perf_pool_big_size;
	u64 boot_boottime_ns;	/* live: the host's CLOCK_BOOTTIME when the virtual clock read 0 (0
				 * seeded): the machine's offs_boot, so that its CLOCK_BOOTTIME is the
				 * one a session's processes read from the host */
};

/* The head of every CPU's per-CPU area; %gs points at it. */
struct hostif_cpu {
	u64 self;		/* 0: address of this struct */
	u64 cpu;		/* 8 */
	u64 top_of_stack;	/* 16: kernel stack top of the running task */
	u64 user_rsp;		/* 24: scratch for entry_SYSCALL_64 */
	u64 now_ns;		/* 32: virtual clock, written by the host */
	u64 next_event_ns;	/* 40: earliest timer on this cpu, read by the host at hlt */
	u64 db_arg[4];		/* 48: doorbell arguments */
	u64 user_state;		/* 80: the user task running here has FPU/SSE registers and an FS
				 * base of its own: the machine's CPL switch keeps them */
	struct hostif_pmu {	/* 88: this cpu's performance counters (below) */
		u64 global_ctrl;	/* bit i: counter i counts (IA32_PERF_GLOBAL_CTRL) */
		u64 global_status;	/* bit i: counter i overflowed; the host sets, the guest clears */
		u64 lvtpc_masked;	/* the host sets it as it delivers the PMI; the guest clears it
					 * to take the next (the local APIC's LVTPC mask bit) */
		u64 evtsel[PMU_NR_COUNTERS];	/* IA32_PERFEVTSELx: event, umask, USR, OS, INT, EN */
		u64 ctr[PMU_NR_COUNTERS];	/* IA32_PMCx: PMU_CNTVAL_BITS wide, counting up */
		u64 nmi_stack;		/* the NMI's stack top (its IST entry): the guest sets it */
	} pmu;
	/* 184: a live machine's host TSC when it took now_ns (0: none, seeded), and the TSC's
	 * ns a tick (32.32 fixed point): reads within a slice add the TSC's ticks since */
	u64 now_tsc;
	u64 tsc_mult;
};

/*
 * The HPET the host emulates: its first comparator, one-shot, and the IO-APIC
 * entry its interrupt goes through.  When the clock reaches deadline the host
 * sets deadline to ~0 and raises the external interrupt `vector` on `cpu`.
 */
struct hostif_hpet {
	u64 deadline;		/* ns of the clock; ~0: disarmed */
	u64 cpu;
	u64 vector;
};

#define HOST_REQ_SLOTS 16
#define HOST_REQ_ARGV 1000
enum host_request_kind {
	HOST_REQ_SPAWN,		/* run argv: the program `id` */
	HOST_REQ_STDIN,		/* argv[0..len) is what program `id` reads next on its stdin; len 0: EOF */
	/* a trace instance's buffers (kernel/trace_ring.c): slot argc allocated (flags 1) or freed
	 * (flags 0); the answer at PORT_REPLY */
	HOST_REQ_TRACE_SLOT,
	/* a write of len bytes (kernel/trace_marker.c's trace_marker_text) by pid `flags` to slot
	 * argc's trace_marker: its print event's triggers run on it; the answer at PORT_REPLY */
	HOST_REQ_TRACE_MARKER,
	/* a write of the value `flags` (an int) to the sysctl argc (enum host_sysctl), parsed and
	 * range-checked by the host: the kernel's own store of it; the answer at PORT_REPLY */
	HOST_REQ_SYSCTL,
	/* /sys/block/DEV/trace/'s attribute `flags & 0xff` of the disk whose dev_t is argc
	 * (kernel/blktrace.c): shown into blk_trace_attr_buf (flags' bit 8 clear), or stored from
	 * its first len bytes (set); the answer (the length shown, the count stored or -errno) at
	 * PORT_REPLY */
	HOST_REQ_BLK_TRACE_ATTR,
};
#define HOST_BLK_TRACE_STORE	0x100	/* a HOST_REQ_BLK_TRACE_ATTR's flags: a store */
enum host_sysctl {
	HOST_SYSCTL_BPF_JIT_ENABLE,	/* net.core.bpf_jit_enable (kernel/bpf/core.c) */
	HOST_SYSCTL_BPF_STATS_ENABLED,	/* kernel.bpf_stats_enabled (kernel/bpf/syscall.c) */
	HOST_SYSCTL_UNPRIVILEGED_BPF_DISABLED,	/* kernel.unprivileged_bpf_disabled (kernel/bpf/syscall.c) */
};
#define HOST_SPAWN_STDIN 1	/* flags of a spawn: its stdin is the host's (HOST_REQ_STDIN), not /dev/null */
struct host_request {
	u64 id;
	u32 argc;
	u32 len;
	u32 kind;
	u32 flags;
	char argv[HOST_REQ_ARGV];	/* argc NUL-terminated strings (a spawn), data (stdin) */
};
struct host_requests {
	u32 head;			/* written by the host */
	u32 tail;			/* written by the guest */
	u32 pad[2];
	struct host_request slot[HOST_REQ_SLOTS];
};

_Static_assert(offsetof(struct hostif_cpu, now_ns) == 32, "hostif layout");

_Static_assert(offsetof(struct hostif_cpu, db_arg) == 48, "hostif layout");
_Static_assert(offsetof(struct hostif_cpu, user_state) == 80, "hostif layout");
_Static_assert(offsetof(struct hostif_cpu, pmu) == 88, "hostif layout");
_Static_assert(sizeof(struct hostif_pmu) == 96, "hostif layout");
_Static_assert(offsetof(struct hostif_cpu, now_tsc) == 184, "hostif layout");
_Static_assert(sizeof(struct host_request) == 1024, "hostif layout");
_Static_assert(offsetof(struct boot_params, perf_pool_base) == 56, "hostif layout");
_Static_assert(offsetof(struct boot_params, boot_monotonic_ns) == 80, "hostif layout");
_Static_assert(offsetof(struct boot_params, perf_pool_big_count) == 88, "hostif layout");
_Static_assert(offsetof(struct boot_params, boot_boottime_ns) == 104, "hostif layout");
_Static_assert(offsetof(struct host_requests, slot) == 16, "hostif layout");
#endif
