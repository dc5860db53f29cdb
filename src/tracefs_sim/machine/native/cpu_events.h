/* What a CPU's hooks leave for the run loop (cpu.py's CpuEvents): written by
 * the `out` hook (ports.c) and the Python hooks, read by the native run loop
 * (runloop.c) and by runloop.py between slices. */
#ifndef CPU_EVENTS_H
#define CPU_EVENTS_H
#include <stdint.h>
#include <time.h>

typedef struct uc_struct uc_engine;
/* the Python `out` callback: a ctypes CFUNCTYPE, which takes the GIL itself */
typedef void (*out_fn)(uc_engine *uc, uint32_t port, int size, uint32_t value, void *user_data);
typedef int (*uc_emu_stop_fn)(uc_engine *uc);

struct hostfs;
struct slice_timer;
struct pmu_blocks;

struct cpu_events {
	int32_t entering_idle; /* the idle doorbell came: a stop right after `hlt` is a halt */
	int32_t python_ran;    /* a hook ran Python in this slice: the run loop looks at the CPU */
	int32_t deferred;      /* the deferred port rang since the run loop last passed it on */
	uint32_t deferred_port;
	out_fn python_out;     /* every other port */
	/* Set while the native run loop runs the CPU (its stops end a slice exactly,
	 * at a block start): a doorbell after quiet_ns without one passed on ends
	 * the slice, so that a lone doorbell reaches Python at once, as it did when
	 * it was a Python hook. */
	uc_emu_stop_fn emu_stop;
	uint64_t passed_at;    /* CLOCK_MONOTONIC ns a doorbell was last sent on its way */
	uint64_t quiet_ns;
	/* A doorbell for another process of the host (a session's supervisor, waiting for the
	 * kernel to answer a call it serves): an eventfd written here, no Python.  -1: none. */
	uint32_t notify_port;
	int32_t notify_fd;
	uint32_t hostfs_port;  /* served here (hostfs.c), no Python */
	uint32_t pad;
	struct hostfs *hostfs; /* the machine's (NULL: none) */
	/* A second such doorbell: a wakeup of a perf buffer a session's supervisor polls for. */
	uint32_t wake_port;
	int32_t wake_fd;
	/* The PMU (pmu.h): this CPU's counters, counted up to pmu_mark as the slice ends and at
	 * the guest's pmu_port doorbell; pmu_nmi: a count raised the NMI, for the run loop. */
	uint8_t *pmu;                 /* its struct hostif_pmu in RAM (NULL: none) */
	uint64_t pmu_tsc_khz;
	uint64_t pmu_ns_per_byte;
	const uint64_t *pmu_executed; /* seeded: the slice's bytes of code so far; NULL: live */
	int64_t *pmu_slice_left;      /* the bytes a slice ended by code may still start */
	/* the native loop's slice timer while it runs the CPU (slice.c), to end the slice sooner */
	struct slice_timer *pmu_timer;
	void (*pmu_shorten)(struct slice_timer *t, uint64_t budget_ns);
	uint64_t pmu_mark;
	uint32_t pmu_port;
	int32_t pmu_nmi;
	/* The counters of instructions and branches retired (pmu_insn.c): a block hook counts them,
	 * installed on the CPU (pmu.py) only while a counter of either is programmed. */
	int32_t pmu_insn_hooked;      /* the hook is installed */
	int32_t pmu_cr3_id;           /* UC_X86_REG_CR3 */
	int (*pmu_reg_read)(uc_engine *uc, int regid, void *value);
	uint8_t *pmu_ram;             /* the machine's RAM (physical address 0) */
	uint64_t pmu_ram_size;
	uint64_t pmu_kernel_map;      /* the kernel image's and the direct map's virtual bases */
	uint64_t pmu_page_offset;
	struct pmu_blocks *pmu_blocks; /* its decoded blocks */
	uint64_t pmu_page_va;         /* the user page whose bytes pmu_page holds (1: none) */
	const uint8_t *pmu_page;
	/* The guest waits for another cpu (a spinlock): the slice ends (emu_stop set: live). */
	uint32_t yield_port;
	/* The guest's full barrier, made on the host (hostif.h's PORT_FENCE). */
	uint32_t fence_port;
};

void hostfs_serve(struct hostfs *h, uint64_t pa);

static inline uint64_t cpu_events_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif
