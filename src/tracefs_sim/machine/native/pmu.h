/*
 * The emulated PMU's device (kernel_model/include/hostif.h's struct hostif_pmu; pmu.py): a
 * CPU's general counters of unhalted core cycles count the virtual TSC's cycles of the time it
 * runs guest code.  That time is taken up to a mark: the slice's start (pmu_slice_begin), moved
 * on by each count.  A count (pmu_sync) comes as the slice ends and whenever the guest asks,
 * by its PMU port (ports.c), before it reads or reprograms a counter, so what it reads is exact
 * to the instruction slices' clock, not to the last slice's end.  Live, the time is the host's
 * monotonic clock; seeded, the slice's bytes of code x ns per byte (deterministic).
 * Header-only: in the run loop (runloop.c, and its exports for runloop.py) and the port hook.
 */
#ifndef PMU_H
#define PMU_H
#include <stdint.h>
#include <string.h>

#include "cpu_events.h"

/* struct hostif_pmu */
#define PMU_CTRL 0
#define PMU_STATUS 8
#define PMU_MASKED 16
#define PMU_EVTSEL 24
#define PMU_CTR 56
#define PMU_NMI_STACK 88
#define PMU_NMI_STACK_SIZE 16384	/* hostif.h */
#define PMU_NR 4
#define PMU_WRAP ((uint64_t)1 << 48)
#define PMU_USR (1ULL << 16)
#define PMU_OS (1ULL << 17)
#define PMU_EN (1ULL << 22)
#define PMU_INT (1ULL << 20)
#define PMU_EVENT_MASK 0xffffULL
#define PMU_EVENT_CYCLES 0x3c
#define PMU_EVENT_INSNS 0xc0	/* counted by pmu_insn.c's hook */
#define PMU_EVENT_BRANCHES 0xc4
/* live: the shortest slice the PMU asks of the slice timer, whose stops come from its thread
 * (without it, budgets down to 1 ns, as a frequency's first period of 1 asks, and the session's
 * machine hung now and then after a frequency perf record; why was not found); an overflow
 * comes up to this late, its cycles counted */
#define PMU_MIN_LIVE_NS 20000

static inline uint64_t pmu_u64(const struct cpu_events *e, unsigned off)
{
	uint64_t v;

	memcpy(&v, e->pmu + off, sizeof(v));
	return v;
}

static inline void pmu_put(struct cpu_events *e, unsigned off, uint64_t v)
{
	memcpy(e->pmu + off, &v, sizeof(v));
}

/* the counters counting (global_ctrl and their evtsel), with INT too if irq_only; in_mode: of
 * those, the ones that count the mode `user` says (evtsel's USR or OS) */
static inline unsigned pmu_counting(const struct cpu_events *e, uint64_t ctrl, int irq_only)
{
	unsigned on = 0;
	int i;

	for (i = 0; i < PMU_NR; i++) {
		uint64_t sel = pmu_u64(e, PMU_EVTSEL + 8 * i);

		if ((ctrl >> i & 1) && (sel & PMU_EN) && (sel & (PMU_USR | PMU_OS)) &&
		    (sel & PMU_EVENT_MASK) == PMU_EVENT_CYCLES && (!irq_only || (sel & PMU_INT)))
			on |= 1u << i;
	}
	return on;
}

static inline int pmu_in_mode(const struct cpu_events *e, int i, int user)
{
	return (pmu_u64(e, PMU_EVTSEL + 8 * i) & (user ? PMU_USR : PMU_OS)) != 0;
}

/* a counting counter counts one privilege level only: the run loop tells the slice's */
static inline int pmu_needs_mode_(const struct cpu_events *e)
{
	uint64_t ctrl;
	unsigned on;
	int i;

	if (!e->pmu || !(ctrl = pmu_u64(e, PMU_CTRL)) || !(on = pmu_counting(e, ctrl, 0)))
		return 0;
	for (i = 0; i < PMU_NR; i++)
		if ((on >> i & 1) && pmu_in_mode(e, i, 1) != pmu_in_mode(e, i, 0))
			return 1;
	return 0;
}

/* the time the CPU ran: live, the clock; seeded, its slice's code */
static inline uint64_t pmu_now(const struct cpu_events *e)
{
	return e->pmu_executed ? *e->pmu_executed * e->pmu_ns_per_byte : cpu_events_clock();
}

/* the CPU runs its NMI handler (its stack pointer is on the NMI's stack): NMIs are blocked
 * until its iret, as a CPU's are */
static inline int pmu_in_nmi(const struct cpu_events *e, uint64_t rsp)
{
	uint64_t top = e->pmu ? pmu_u64(e, PMU_NMI_STACK) : 0;

	return top && rsp <= top && rsp > top - PMU_NMI_STACK_SIZE;
}

static inline void pmu_slice_begin_(struct cpu_events *e)
{
	e->pmu_mark = e->pmu_executed ? 0 : cpu_events_clock();
}

/* a slice's budget: at most the time left until an interrupting counter overflows */
static inline uint64_t pmu_budget_(const struct cpu_events *e, uint64_t budget)
{
	uint64_t ctrl;
	unsigned on;
	int i;

	if (!e->pmu || !(ctrl = pmu_u64(e, PMU_CTRL)) || !(on = pmu_counting(e, ctrl, 1)))
		return budget;
	for (i = 0; i < PMU_NR; i++) {
		uint64_t left, ns;

		if (!(on >> i & 1))
			continue;
		left = PMU_WRAP - (pmu_u64(e, PMU_CTR + 8 * i) & (PMU_WRAP - 1));
		ns = (left * 1000000 + e->pmu_tsc_khz - 1) / e->pmu_tsc_khz;
		if (ns < budget)
			budget = ns;
	}
	if (!e->pmu_executed && budget < PMU_MIN_LIVE_NS)
		budget = PMU_MIN_LIVE_NS;
	return budget;
}

/* counter i counts n more; a wrap sets its status bit and, with INT, raises the NMI once
 * unmasked: 1 if this count raised it */
static inline int pmu_count(struct cpu_events *e, int i, uint64_t n)
{
	uint64_t v = (pmu_u64(e, PMU_CTR + 8 * i) & (PMU_WRAP - 1)) + n;
	int raised = 0;

	if (v >= PMU_WRAP) {
		pmu_put(e, PMU_STATUS, pmu_u64(e, PMU_STATUS) | (uint64_t)1 << i);
		if ((pmu_u64(e, PMU_EVTSEL + 8 * i) & PMU_INT) && !pmu_u64(e, PMU_MASKED)) {
			pmu_put(e, PMU_MASKED, 1);
			e->pmu_nmi = 1;
			raised = 1;
		}
	}
	pmu_put(e, PMU_CTR + 8 * i, v & (PMU_WRAP - 1));
	return raised;
}

/* the cycles run since the mark (in user mode if `user`, else in the kernel) go to the counters
 * of that mode; an overflow raises the NMI once unmasked */
static inline void pmu_sync_(struct cpu_events *e, int user)
{
	uint64_t now, ctrl, cycles;
	unsigned on;
	int i;

	if (!e->pmu)
		return;
	now = pmu_now(e);
	ctrl = pmu_u64(e, PMU_CTRL);
	if (!ctrl || !(on = pmu_counting(e, ctrl, 0)) || now <= e->pmu_mark) {
		e->pmu_mark = now > e->pmu_mark ? now : e->pmu_mark;
		return;
	}
	cycles = (now - e->pmu_mark) * e->pmu_tsc_khz / 1000000;
	/* what the division left behind stays for the next count */
	e->pmu_mark = now - ((now - e->pmu_mark) * e->pmu_tsc_khz % 1000000) / e->pmu_tsc_khz;
	for (i = 0; i < PMU_NR; i++)
		if ((on >> i & 1) && pmu_in_mode(e, i, user))
			pmu_count(e, i, cycles);
}

/* a counter of instructions or branches is programmed: the CPU needs pmu_insn.c's hook */
static inline int pmu_wants_insn_hook_(const struct cpu_events *e)
{
	int i;

	if (!e->pmu)
		return 0;
	for (i = 0; i < PMU_NR; i++) {
		uint64_t sel = pmu_u64(e, PMU_EVTSEL + 8 * i);

		if ((sel & PMU_EN) && ((sel & PMU_EVENT_MASK) == PMU_EVENT_INSNS ||
				       (sel & PMU_EVENT_MASK) == PMU_EVENT_BRANCHES))
			return 1;
	}
	return 0;
}

/* From the CPU's hooks: the slice ends after b ns more at most, as near as the slice allows:
 * seeded, after the code that time takes (deterministic); live, by the slice timer's CPU time
 * (slice.c's slice_timer_shorten), PMU_MIN_LIVE_NS at the least.  (Not emu_stop from a hook:
 * the run then went astray.) */
static inline void pmu_end_slice_by(struct cpu_events *e, uint64_t b)
{
	if (e->pmu_executed && e->pmu_slice_left) {
		int64_t bytes = (int64_t)(b / e->pmu_ns_per_byte);

		if (bytes < 1 && b)
			bytes = 1;
		if (*e->pmu_slice_left > bytes)
			*e->pmu_slice_left = bytes;
	} else if (e->pmu_timer) {
		e->pmu_shorten(e->pmu_timer, b < PMU_MIN_LIVE_NS ? PMU_MIN_LIVE_NS : b);
	} else if (e->pmu_slice_left) {
		*e->pmu_slice_left = 0;
	}
}

/*
 * The guest's doorbell (ports.c), as it reads or reprograms its counters, and as it enters from
 * or returns to user mode while a counter counts one level only (user: the time up to now was
 * user mode's, the kernel's else): they count up to now, and when one is armed to interrupt
 * sooner than the slice would end, the slice ends by its overflow.  A counter of instructions
 * or branches programmed or no longer: the slice ends at once, for pmu.py to add or remove
 * their hook (live, by uc_emu_stop here; seeded, by the slice's bytes).
 */
static inline void pmu_port(uc_engine *uc, struct cpu_events *e, int user)
{
	uint64_t b;

	pmu_sync_(e, user);
	if (!e->pmu)
		return;
	if (e->pmu_insn_hooked != pmu_wants_insn_hook_(e) && !e->pmu_executed && e->emu_stop) {
		/* live: the slice timer's stop comes PMU_MIN_LIVE_NS late at the least, and a thread's
		 * wake-up later still: a task's whole run could go uncounted.  Stopped here, the slice
		 * ends with the rest of this block (as the deferred doorbell's stop does) */
		e->emu_stop(uc);
		return;
	}
	if (e->pmu_nmi || e->pmu_insn_hooked != pmu_wants_insn_hook_(e))
		b = 0;		/* an overflow now (a user-mode stretch ended): the NMI soon */
	else if ((b = pmu_budget_(e, UINT64_MAX)) == UINT64_MAX)
		return;
	pmu_end_slice_by(e, b);
}
#endif
