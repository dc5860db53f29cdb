/*
 * A live machine's run loop while nothing needs Python (tracefs_sim.machine.runloop).
 *
 * runloop.py interleaves the CPUs in slices ended by the slice timer
 * (slice.c).  Between two slices it fires the timers whose deadline passed
 * (each CPU's local APIC timer, the HPET), wakes a halted CPU an interrupt is
 * for and injects pending interrupts; done in Python, that
 * takes the GIL several times a slice, and while the trace core's threads run
 * Python each take waits for them (up to the interpreter's switch interval).
 * loop_run() does the same work here, slice after slice, round robin from
 * where it last stopped, and returns to Python only when Python has something
 * to do:
 *   LOOP_REQUEST  another thread asked for the loop (a command, a stop);
 *   LOOP_PYTHON   a hook ran Python in the CPU's slice (a doorbell, a fault)
 *                 or the deferred doorbell rang or the syscall hook failed:
 *                 runloop.py finishes that CPU's slice;
 *   LOOP_IDLE     a whole round ran no CPU (all halted: runloop.py sleeps);
 *   LOOP_ERROR    Unicorn failed on the CPU (error);
 *   LOOP_BAD_STACK an interrupt frame would go outside RAM: runloop.py
 *                 delivers it itself, and fails as it always did.
 * The PMU (pmu.h): after each slice the cycles the CPU ran go to its enabled counters, a
 * counter that wraps raises the NMI, which goes in before any other vector and whatever
 * EFLAGS.IF; while a counter may interrupt, a slice's budget is at most the time left to its
 * overflow.  A load or two per slice while no counter counts.  A counter of instructions or
 * branches needs a hook of the CPU's (pmu_insn.c), which Python adds and removes: the slice
 * that sees one programmed or gone returns LOOP_PYTHON.
 * External interrupts wait in a CPU's irr (one bit per vector, as the local
 * APIC's request register); the devices are the HPET, whose comparator
 * fires when the clock reaches the deadline the guest wrote (hpet_fire), and
 * the disk (nvme.c: nvme_fire).
 * It is called through ctypes, which releases the GIL for the whole call.
 *
 * No Unicorn header or library: see slice.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pmu.h"

struct slice_timer;
struct nvme_dev;
void slice_timer_begin(struct slice_timer *t, uc_engine *uc, uint64_t budget_ns);
void slice_timer_end(struct slice_timer *t);
void slice_timer_shorten(struct slice_timer *t, uint64_t budget_ns);

typedef int (*uc_emu_start_fn)(uc_engine *uc, uint64_t begin, uint64_t until, uint64_t timeout,
			       size_t count);
typedef int (*uc_reg_read_fn)(uc_engine *uc, int regid, void *value);
typedef int (*uc_batch_fn)(uc_engine *uc, const int *ids, void *const *vals, int count);
typedef int (*kernel_mode_enter_fn)(uc_engine *uc, void *syscall_cpu, uint64_t cr3);

enum { LOOP_REQUEST = 1, LOOP_PYTHON, LOOP_IDLE, LOOP_ERROR, LOOP_BAD_STACK };
enum { VEC_TIMER = 1, VEC_RESCHED = 2, VEC_CALL_FUNC = 4, VEC_NMI = 8 };
/* most urgent first; loop.handlers is in this order */
static const uint32_t vectors[3] = { VEC_CALL_FUNC, VEC_RESCHED, VEC_TIMER };

/* Batch order (cpu.py's _REGS): the 16 GPRs, RIP, EFLAGS (written back), CR3, CS. */
enum { REG_RSP = 7, REG_RIP = 16, REG_EFLAGS = 17, REG_CR3 = 18, REG_CS = 19, NWRITE = 18, NREGS = 20 };
#define EFLAGS_TF 0x100
#define EFLAGS_IF 0x200
#define KERNEL_DS 0x18
#define USER_SS 0x2b
#define FRAME_WORDS 5 /* rip, cs, rflags, rsp, ss */
#define FIRST_EXTERNAL_VECTOR 0x20

/* One per CPU (runloop.py's LoopCpu). */
struct loop_cpu {
	/* the run loop's state of the CPU, shared with runloop.py */
	int32_t online;
	int32_t halted;
	uint32_t pending;   /* VEC_* raised, not yet delivered */
	uint32_t reserved;
	uint64_t irr[4];    /* external vectors raised, not yet delivered */
	/* set once */
	uc_engine *uc;
	struct cpu_events *events;
	void *syscall_cpu;             /* kernel_mode_enter's state (syscall.c) */
	const int32_t *syscall_error;  /* its error: the syscall hook failed */
	uint64_t now_pa;               /* struct hostif_cpu's now_ns, next_event_ns, top_of_stack */
	uint64_t next_event_pa;
	uint64_t top_of_stack_pa;
	uint64_t now_tsc_pa;           /* its now_tsc, then tsc_mult */
	int32_t ids[NREGS];
	uint64_t vals[NREGS];
	void *ptrs[NREGS];             /* &vals[i] */
};

/* runloop.py's NativeLoop */
struct loop {
	struct slice_timer *timer;
	uint64_t budget_ns;        /* a slice's CPU time */
	uint8_t *ram;
	uint64_t ram_size;
	uint64_t clock_zero;       /* CLOCK_MONOTONIC ns at the live clock's 0 */
	uint64_t handlers[3];      /* entry of each of vectors[] */
	uint64_t irq_entries;      /* the stub of external vector 0x20; one per 8 bytes on */
	uint64_t hpet_pa;          /* struct hostif_hpet */
	const uint64_t *halt_sites; /* sorted: the addresses right after each `hlt` */
	uint64_t nr_halt_sites;
	uint64_t kernel_map;       /* the kernel image's and the direct map's virtual bases */
	uint64_t page_offset;
	uint64_t direct_map_size;
	uc_emu_start_fn emu_start;
	uc_emu_stop_fn emu_stop;
	uc_reg_read_fn reg_read;
	uc_batch_fn reg_read_batch;
	uc_batch_fn reg_write_batch;
	kernel_mode_enter_fn kernel_mode_enter;
	int32_t rip_id;
	int32_t nr_cpus;
	struct loop_cpu *cpus;
	int32_t exit_request;      /* set by other threads: return at the next slice boundary */
	int32_t cursor;            /* the CPU whose turn is next */
	int32_t cpu;               /* out: the CPU the return is about */
	int32_t error;             /* out: LOOP_ERROR's Unicorn error */
	struct nvme_dev *nvme;     /* the disk (nvme.c), or NULL */
	uint64_t nmi_handler;      /* asm_exc_nmi: vector 2's entry */
};

uint32_t nvme_poll(struct nvme_dev *d, uint8_t *ram, uint64_t ram_size, uint64_t now, uint32_t *cpu);

static uint64_t live_now(const struct loop *l)
{
	return cpu_events_clock() - l->clock_zero;
}

static inline uint64_t host_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/*
 * The TSC's ns a tick, 32.32 fixed point (0 until known), from the TSC and the clock read
 * together at the first slice and again once TSC_CALIBRATE_NS later.  The emulated CPUs' rdtsc
 * is the host's (Unicorn's TCG reads it), so the guest's clock reads add the ticks since its
 * slice began (hostif_cpu.now_tsc) to the clock's value then: time within a slice, not a
 * step per read.  One host, one TSC rate: shared by every loop of the process.
 */
#define TSC_CALIBRATE_NS 50000000ull
static uint64_t tsc_cal_ns, tsc_cal_tsc, tsc_mult;

static uint64_t tsc_mult_now(uint64_t clock_ns, uint64_t tsc)
{
	uint64_t mult = __atomic_load_n(&tsc_mult, __ATOMIC_RELAXED), ns0, tsc0;

	if (mult)
		return mult;
	ns0 = __atomic_load_n(&tsc_cal_ns, __ATOMIC_ACQUIRE);
	if (!ns0) {
		uint64_t none = 0;

		if (__atomic_compare_exchange_n(&tsc_cal_ns, &none, clock_ns, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			__atomic_store_n(&tsc_cal_tsc, tsc, __ATOMIC_RELEASE);
		return 0;
	}
	tsc0 = __atomic_load_n(&tsc_cal_tsc, __ATOMIC_ACQUIRE);
	if (!tsc0 || clock_ns - ns0 < TSC_CALIBRATE_NS || tsc <= tsc0)
		return 0;
	mult = (uint64_t)(((unsigned __int128)(clock_ns - ns0) << 32) / (tsc - tsc0));
	__atomic_store_n(&tsc_mult, mult, __ATOMIC_RELAXED);
	return mult;
}

/* A CPU's slice begins at `now`, when the TSC read `tsc`: its clock, and the TSC (none
 * until calibrated). */
static void set_now(struct loop *l, struct loop_cpu *c, uint64_t now, uint64_t tsc)
{
	uint64_t mult = tsc_mult_now(now + l->clock_zero, tsc);
	uint64_t tsc_words[2] = { mult ? tsc : 0, mult };

	memcpy(l->ram + c->now_pa, &now, sizeof(now));
	memcpy(l->ram + c->now_tsc_pa, tsc_words, sizeof(tsc_words));
}

static uint64_t ram_u64(const struct loop *l, uint64_t pa)
{
	uint64_t v;

	memcpy(&v, l->ram + pa, sizeof(v));
	return v;
}

static int is_halt_site(const struct loop *l, uint64_t addr)
{
	size_t lo = 0, hi = l->nr_halt_sites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->halt_sites[mid] == addr)
			return 1;
		if (l->halt_sites[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The physical address of [va, va + size) in the kernel image or direct map; 0 if not in RAM. */
static int kernel_phys(const struct loop *l, uint64_t va, uint64_t size, uint64_t *pa)
{
	if (va >= l->kernel_map)
		*pa = va - l->kernel_map;
	else if (va >= l->page_offset && va - l->page_offset < l->direct_map_size)
		*pa = va - l->page_offset;
	else
		return 0;
	return *pa <= l->ram_size && size <= l->ram_size - *pa;
}

/* cpu.py's Cpu._enter_handler: push the hardware frame, enter handler (on the stack ist if
 * not 0: the NMI's, an IST entry, which the syscall entry's window on the user stack needs). */
static int enter_handler(struct loop *l, struct loop_cpu *c, uint64_t handler, uint64_t ist)
{
	uint64_t *v = c->vals;
	uint64_t user = v[REG_CS] & 3;
	uint64_t new_rsp = ist ? ist : user ? ram_u64(l, c->top_of_stack_pa) : v[REG_RSP] & ~(uint64_t)0xf;
	uint64_t frame = new_rsp - 8 * FRAME_WORDS, pa;
	uint64_t words[FRAME_WORDS] = { v[REG_RIP], v[REG_CS], v[REG_EFLAGS], v[REG_RSP],
					user ? USER_SS : KERNEL_DS };
	int err;

	if (!kernel_phys(l, frame, sizeof(words), &pa))
		return LOOP_BAD_STACK;
	if (user && (err = l->kernel_mode_enter(c->uc, c->syscall_cpu, v[REG_CR3])))
		goto fail;
	memcpy(l->ram + pa, words, sizeof(words));
	v[REG_RSP] = frame;
	v[REG_RIP] = handler;
	v[REG_EFLAGS] &= ~(uint64_t)(EFLAGS_IF | EFLAGS_TF);
	err = l->reg_write_batch(c->uc, c->ids, c->ptrs, NWRITE);
	if (!err)
		return 0;
fail:
	l->error = err;
	return LOOP_ERROR;
}

static int irr_any(const struct loop_cpu *c)
{
	return (c->irr[0] | c->irr[1] | c->irr[2] | c->irr[3]) != 0;
}

/* runloop.py's Runner._lapic_timer_fire: the local APIC timer's deadline (TSC-deadline
 * mode: the guest writes next_event_ns, which disarms when it fires). */
static void lapic_timer_fire(struct loop *l, struct loop_cpu *c, uint64_t now)
{
	uint64_t never = ~(uint64_t)0;

	if (now < ram_u64(l, c->next_event_pa))
		return;
	memcpy(l->ram + c->next_event_pa, &never, sizeof(never));
	c->pending |= VEC_TIMER;
}

/* runloop.py's Runner._hpet_fire: the comparator reached, its interrupt raised once. */
static void hpet_fire(struct loop *l, uint64_t now)
{
	uint64_t cpu, vector, never = ~(uint64_t)0;

	if (now < ram_u64(l, l->hpet_pa))
		return;
	memcpy(l->ram + l->hpet_pa, &never, sizeof(never));
	cpu = ram_u64(l, l->hpet_pa + 8);
	vector = ram_u64(l, l->hpet_pa + 16);
	if (cpu < (uint64_t)l->nr_cpus && vector >= FIRST_EXTERNAL_VECTOR && vector < 256)
		l->cpus[cpu].irr[vector / 64] |= (uint64_t)1 << (vector % 64);
}

/* runloop.py's Runner._nvme_fire: the disk fetches and completes commands, its MSI raised. */
static void nvme_fire(struct loop *l, uint64_t now)
{
	uint32_t cpu = 0, vector = nvme_poll(l->nvme, l->ram, l->ram_size, now, &cpu);

	if (vector && cpu < (uint32_t)l->nr_cpus)
		l->cpus[cpu].irr[vector / 64] |= (uint64_t)1 << (vector % 64);
}

/* runloop.py's slices: the PMU's part (pmu.h), before and after each (pmu.py) */
uint64_t pmu_budget(struct cpu_events *e, uint64_t budget)
{
	return pmu_budget_(e, budget);
}

int pmu_needs_mode(struct cpu_events *e)
{
	return pmu_needs_mode_(e);
}

/* the slice's cycles counted (user: the CPU is in user mode); 1 if the NMI is raised */
int pmu_slice_end(struct cpu_events *e, int user)
{
	int nmi;

	pmu_sync_(e, user);
	nmi = e->pmu_nmi;
	e->pmu_nmi = 0;
	return nmi;
}

/* runloop.py's Runner._deliver: the most urgent pending vector, if the CPU takes interrupts. */
static int deliver(struct loop *l, struct loop_cpu *c)
{
	int err = l->reg_read_batch(c->uc, c->ids, c->ptrs, NREGS);
	int k, r;

	if (err) {
		l->error = err;
		return LOOP_ERROR;
	}
	/* sti's interrupt shadow: let it reach the hlt first (see runloop.py) */
	if (is_halt_site(l, c->vals[REG_RIP] + 1))
		return 0;
	/* not maskable: whatever EFLAGS.IF, but not inside the NMI handler (until its iret) */
	if ((c->pending & VEC_NMI) && !pmu_in_nmi(c->events, c->vals[REG_RSP])) {
		r = enter_handler(l, c, l->nmi_handler, pmu_u64(c->events, PMU_NMI_STACK));
		if (r)
			return r;
		c->pending &= ~VEC_NMI;
		c->halted = 0;
		c->events->entering_idle = 0;
		return 0;
	}
	for (k = 0; k < 3; k++) {
		if (!(c->pending & vectors[k]))
			continue;
		if (!(c->vals[REG_EFLAGS] & EFLAGS_IF))
			return 0;
		r = enter_handler(l, c, l->handlers[k], 0);
		if (r)
			return r;
		c->pending &= ~vectors[k];
		c->halted = 0;
		c->events->entering_idle = 0;
		return 0;
	}
	for (k = 3; k >= 0; k--) {
		int vector;

		if (!c->irr[k])
			continue;
		if (!(c->vals[REG_EFLAGS] & EFLAGS_IF))
			return 0;
		vector = 64 * k + 63 - __builtin_clzll(c->irr[k]);
		r = enter_handler(l, c, l->irq_entries + 8 * (vector - FIRST_EXTERNAL_VECTOR), 0);
		if (r)
			return r;
		c->irr[k] &= ~((uint64_t)1 << (vector % 64));
		c->halted = 0;
		c->events->entering_idle = 0;
		return 0;
	}
	return 0;
}

/* (only while a counter counts one privilege level) */
static int cpu_in_user_mode(struct loop *l, struct loop_cpu *c)
{
	uint64_t cs = 0;

	return !l->reg_read(c->uc, c->ids[REG_CS], &cs) && (cs & 3);
}

static int run_slice(struct loop *l, struct loop_cpu *c)
{
	uint64_t pc;
	int err = l->reg_read(c->uc, l->rip_id, &pc);

	if (!err) {
		c->events->emu_stop = l->emu_stop;
		slice_timer_begin(l->timer, c->uc, pmu_budget_(c->events, l->budget_ns));
		c->events->pmu_timer = l->timer;
		c->events->pmu_shorten = slice_timer_shorten;
		pmu_slice_begin_(c->events);
		err = l->emu_start(c->uc, pc, 0, 0, 0);
		if (pmu_slice_end(c->events, pmu_needs_mode_(c->events) && cpu_in_user_mode(l, c)))
			c->pending |= VEC_NMI;
		/* a counter of instructions or branches programmed or no longer: pmu.py adds or
		 * removes their hook (pmu_insn.c) */
		if (c->events->pmu_insn_hooked != pmu_wants_insn_hook_(c->events))
			c->events->python_ran = 1;
		c->events->pmu_timer = NULL;
		slice_timer_end(l->timer);
		c->events->emu_stop = NULL;
	}
	if (err) {
		l->error = err;
		return LOOP_ERROR;
	}
	/* a doorbell goes on at the slice's end: the guest's rings fill in a few ms under load */
	if (*c->syscall_error || c->events->python_ran || c->events->deferred)
		return LOOP_PYTHON;
	return 0;
}

int loop_run(struct loop *l)
{
	for (;;) {
		int ran = 0, n;

		for (n = 0; n < l->nr_cpus; n++) {
			int i = l->cursor, r;
			struct loop_cpu *c = &l->cpus[i];
			uint64_t now, tsc;

			if (__atomic_load_n(&l->exit_request, __ATOMIC_ACQUIRE))
				return LOOP_REQUEST;
			l->cursor = (i + 1) % l->nr_cpus;
			l->cpu = i;
			if (!c->online)
				continue;
			now = live_now(l);
			tsc = host_tsc();
			hpet_fire(l, now);
			nvme_fire(l, now);
			lapic_timer_fire(l, c, now);
			if (c->halted && !c->pending && !irr_any(c))
				continue;
			set_now(l, c, now, tsc);
			if ((c->pending || irr_any(c)) && (r = deliver(l, c)))
				return r;
			if (c->halted)
				continue;
			ran = 1;
			r = run_slice(l, c);
			if (r)
				return r;
		}
		if (!ran)
			return LOOP_IDLE;
	}
}
