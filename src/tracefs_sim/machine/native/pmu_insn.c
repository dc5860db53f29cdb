/*
 * The emulated PMU's counters of instructions retired (event 0xc0, INST_RETIRED.ANY_P) and of
 * branch instructions retired (event 0xc4, BR_INST_RETIRED.ALL_BRANCHES): a Unicorn code hook,
 * called before each instruction the CPU executes, counts it on the counters of those events
 * that count its privilege level (user mode: an address in the lower half), and, for a branch,
 * on those of branches.  pmu.py installs the hook on a CPU only while one of its counters is
 * programmed with either event, and drops the CPU's translated code as it does (the hook's
 * calls are compiled into it); no hook, no cost.  The hook never stops the CPU itself: like
 * the cycles' overflow (pmu.h), a counter that wraps with INT raises the NMI and ends the slice
 * as near as the slice allows (seeded: at the next block; live: the slice timer's shortest).
 *
 * What counts as a branch is what the instruction's bytes say (the decode below): conditional
 * and unconditional jumps, calls and returns, direct and indirect, the loop family, and the far
 * transfers (syscall, sysret, iret, int, int3), as the event counts them on Intel's cores,
 * taken or not.  A rep-prefixed string instruction is one instruction (QEMU runs each of its
 * rounds as the instruction again: the rounds after the first are not counted).  An
 * instruction that faults is counted when it is started, and again when it is restarted.
 *
 * No Unicorn header or library: see slice.c.
 */
#include <stdint.h>
#include <string.h>

#include "pmu.h"

#define PAGE_SIZE 4096ULL
#define PTE_P 1ULL
#define PTE_PS (1ULL << 7)
#define PTE_ADDR 0x000ffffffffff000ULL
#define USER_TOP (1ULL << 47)
#define MAX_INSN 15

enum { INSN_BRANCH = 1, INSN_REP_STRING = 2 };

/* The physical address of va through the page table at cr3 (hooks.py's translate); 0 if not
 * mapped.  (Page 0 holds no code.) */
static uint64_t walk(const struct cpu_events *e, uint64_t cr3, uint64_t va)
{
	uint64_t table = cr3 & PTE_ADDR;
	int shift;

	for (shift = 39; shift >= 12; shift -= 9) {
		uint64_t entry_pa = table + 8 * ((va >> shift) & 511), entry;

		if (entry_pa + 8 > e->pmu_ram_size)
			return 0;
		memcpy(&entry, e->pmu_ram + entry_pa, sizeof(entry));
		if (!(entry & PTE_P))
			return 0;
		if (shift != 12 && (entry & PTE_PS)) {
			uint64_t span = 1ULL << shift;

			return (entry & PTE_ADDR & ~(span - 1)) | (va & (span - 1));
		}
		table = entry & PTE_ADDR;
	}
	return table | (va & (PAGE_SIZE - 1));
}

/* The host address of the page holding va (NULL: not mapped).  The kernel's linear maps by
 * their offsets; a user page through the page table, remembered until the CPU next runs kernel
 * code (where every change of address space or of a user mapping is made). */
static const uint8_t *page_of(uc_engine *uc, struct cpu_events *e, uint64_t va)
{
	uint64_t page = va & ~(PAGE_SIZE - 1), pa, cr3 = 0;

	if (page >= e->pmu_kernel_map)
		pa = page - e->pmu_kernel_map;
	else if (page >= e->pmu_page_offset && page - e->pmu_page_offset < e->pmu_ram_size)
		pa = page - e->pmu_page_offset;
	else if (page < USER_TOP && page == e->pmu_page_va)
		return e->pmu_page;
	else if (e->pmu_reg_read(uc, e->pmu_cr3_id, &cr3) || !(pa = walk(e, cr3, page)))
		return NULL;
	if (pa >= e->pmu_ram_size)
		return NULL;
	if (page < USER_TOP) {
		e->pmu_page_va = page;
		e->pmu_page = e->pmu_ram + pa;
	}
	return e->pmu_ram + pa;
}

/* The instruction's bytes (size of them, at most MAX_INSN), copied into buf; 0 if some are
 * not mapped. */
static int insn_bytes(uc_engine *uc, struct cpu_events *e, uint64_t va, uint32_t size, uint8_t *buf)
{
	uint32_t done = 0;

	if (size > MAX_INSN)
		size = MAX_INSN;
	while (done < size) {
		uint64_t at = va + done, in_page = PAGE_SIZE - (at & (PAGE_SIZE - 1));
		const uint8_t *page = page_of(uc, e, at);
		uint32_t n = size - done < in_page ? size - done : (uint32_t)in_page;

		if (!page)
			return 0;
		memcpy(buf + done, page + (at & (PAGE_SIZE - 1)), n);
		done += n;
	}
	return (int)size;
}

/* INSN_* of an x86-64 instruction's bytes */
static unsigned insn_class(const uint8_t *b, int size)
{
	int i = 0, rep = 0;
	uint8_t op;

	for (; i < size; i++) {		/* legacy prefixes */
		uint8_t p = b[i];

		if (p == 0xf2 || p == 0xf3)
			rep = 1;
		else if (p != 0x26 && p != 0x2e && p != 0x36 && p != 0x3e && p != 0x64 &&
			 p != 0x65 && p != 0x66 && p != 0x67 && p != 0xf0)
			break;
	}
	if (i < size && (b[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i >= size)
		return 0;
	op = b[i];
	if (op == 0x0f) {
		uint8_t op2 = i + 1 < size ? b[i + 1] : 0;

		/* jcc rel32; syscall, sysret, sysenter, sysexit */
		return (op2 >= 0x80 && op2 <= 0x8f) || op2 == 0x05 || op2 == 0x07 || op2 == 0x34 ||
		       op2 == 0x35 ? INSN_BRANCH : 0;
	}
	if ((op >= 0x70 && op <= 0x7f) ||		/* jcc rel8 */
	    (op >= 0xe0 && op <= 0xe3) ||		/* loopne, loope, loop, jrcxz */
	    op == 0xe8 || op == 0xe9 || op == 0xeb ||	/* call, jmp */
	    op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb ||	/* ret, lret */
	    op == 0xcc || op == 0xcd || op == 0xcf)	/* int3, int n, iret */
		return INSN_BRANCH;
	if (op == 0xff && i + 1 < size) {		/* call/jmp near and far, indirect: /2../5 */
		unsigned reg = b[i + 1] >> 3 & 7;

		return reg >= 2 && reg <= 5 ? INSN_BRANCH : 0;
	}
	if (rep && ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) ||
		    (op >= 0x6c && op <= 0x6f)))	/* movs, cmps, stos, lods, scas, ins, outs */
		return INSN_REP_STRING;
	return 0;
}

/* The counters this instruction counts on (bit i: counter i), of event `event`'s, in `user`
 * mode or the kernel's */
static unsigned counting(const struct cpu_events *e, uint64_t ctrl, uint64_t event, int user)
{
	unsigned on = 0;
	int i;

	for (i = 0; i < PMU_NR; i++) {
		uint64_t sel = pmu_u64(e, PMU_EVTSEL + 8 * i);

		if ((ctrl >> i & 1) && (sel & PMU_EN) && (sel & PMU_EVENT_MASK) == event &&
		    (sel & (user ? PMU_USR : PMU_OS)))
			on |= 1u << i;
	}
	return on;
}

/* UC_HOOK_CODE callback: void (*)(uc_engine *, uint64_t address, uint32_t size, void *user_data) */
void pmu_insn_hook(uc_engine *uc, uint64_t address, uint32_t size, void *user_data)
{
	struct cpu_events *e = user_data;
	uint64_t ctrl = pmu_u64(e, PMU_CTRL), status;
	int user = address < USER_TOP, i;
	unsigned insns, branches, cls = 0;
	uint8_t bytes[MAX_INSN];
	int n;

	if (!user)
		e->pmu_page_va = 1;	/* the kernel may change the user mappings */
	if (!ctrl)
		goto out;
	insns = counting(e, ctrl, PMU_EVENT_INSNS, user);
	branches = counting(e, ctrl, PMU_EVENT_BRANCHES, user);
	if (!insns && !branches)
		goto out;
	if ((n = insn_bytes(uc, e, address, size, bytes)))
		cls = insn_class(bytes, n);
	if ((cls & INSN_REP_STRING) && address == e->pmu_last_ip)
		goto out;	/* the rep's next round */
	if (!(cls & INSN_BRANCH))
		branches = 0;
	status = pmu_u64(e, PMU_STATUS);
	for (i = 0; i < PMU_NR; i++) {
		uint64_t v;

		if (!((insns | branches) >> i & 1))
			continue;
		v = (pmu_u64(e, PMU_CTR + 8 * i) & (PMU_WRAP - 1)) + 1;
		if (v >= PMU_WRAP) {
			status |= (uint64_t)1 << i;
			if ((pmu_u64(e, PMU_EVTSEL + 8 * i) & PMU_INT) && !pmu_u64(e, PMU_MASKED)) {
				pmu_put(e, PMU_MASKED, 1);
				e->pmu_nmi = 1;
				pmu_end_slice_by(e, 0);
			}
		}
		pmu_put(e, PMU_CTR + 8 * i, v & (PMU_WRAP - 1));
	}
	pmu_put(e, PMU_STATUS, status);
out:
	e->pmu_last_ip = address;
}

/* pmu.py: whether the CPU needs the hook (a counter programmed with either event, on or not) */
int pmu_wants_insn_hook(const struct cpu_events *e)
{
	return pmu_wants_insn_hook_(e);
}
