/*
 * The emulated PMU's counters of instructions retired (event 0xc0, INST_RETIRED.ANY_P) and of
 * branch instructions retired (event 0xc4, BR_INST_RETIRED.ALL_BRANCHES): a Unicorn block hook,
 * called as the CPU enters each translated block, adds the block's instructions to the counters
 * of those events that count its privilege level (user mode: an address in the lower half), and
 * its branches to those of branches.  What a block holds is decoded once (capstone's
 * cs_disasm_iter, for the instructions' lengths) and kept in a per-CPU table under its address,
 * size and a hash of its bytes (patched kernel text, another process's code at the same
 * address: another entry).  pmu.py installs the hook on a CPU only while one of its counters is
 * programmed with either event, and drops the CPU's translated code as it does (the hook's calls
 * are compiled into it); no hook, no cost.  The hook never stops the CPU itself: like the
 * cycles' overflow (pmu.h), a counter that wraps with INT raises the NMI and ends the slice as
 * near as the slice allows (seeded: at the next block; live: the slice timer's shortest).
 *
 * What counts as a branch is what the instruction's bytes say (insn_class): conditional and
 * unconditional jumps, calls and returns, direct and indirect, the loop family, and the far
 * transfers (syscall, sysret, iret, int, int3), as the event counts them on Intel's cores, taken
 * or not.  A rep-prefixed string instruction is one instruction: QEMU runs each of its rounds as
 * a block of its own that begins with it, not counted again after a block that ended with it.
 * A block is counted as it is entered: one that faults part way, or that a slice's end stops
 * at its start, counts whole (a CPU counts what retires).
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
#define MAX_BLOCK (2 * PAGE_SIZE)	/* a translated block spans two pages at most */
#define NR_BLOCKS 4096			/* the table's entries (a power of two) */

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

/* The block's bytes (NULL: some are not mapped): in place in a kernel linear map, else copied
 * into buf (MAX_BLOCK of them at most). */
static const uint8_t *block_bytes(uc_engine *uc, struct cpu_events *e, uint64_t va, uint32_t size,
				  uint8_t *buf)
{
	uint32_t done = 0;

	if (va >= e->pmu_kernel_map && va - e->pmu_kernel_map + size <= e->pmu_ram_size)
		return e->pmu_ram + (va - e->pmu_kernel_map);
	if (size > MAX_BLOCK)
		return NULL;
	while (done < size) {
		uint64_t at = va + done, in_page = PAGE_SIZE - (at & (PAGE_SIZE - 1));
		const uint8_t *page = page_of(uc, e, at);
		uint32_t n = size - done < in_page ? size - done : (uint32_t)in_page;

		if (!page)
			return NULL;
		memcpy(buf + done, page + (at & (PAGE_SIZE - 1)), n);
		done += n;
	}
	return buf;
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

/* capstone's: bool cs_disasm_iter(csh, const uint8_t **code, size_t *size, uint64_t *address, cs_insn *) */
typedef _Bool (*cs_disasm_iter_fn)(size_t handle, const uint8_t **code, size_t *size, uint64_t *address,
				   void *insn);

/* What a block holds */
struct block {
	uint64_t pc;
	uint64_t hash;		/* of its bytes (FNV-1a) */
	uint64_t last_rep;	/* the address of its last instruction, a rep string one (0: not) */
	uint32_t size;
	uint16_t insns;
	uint8_t branches;
	uint8_t first_rep;	/* its first instruction is a rep string one */
};

/* A CPU's table and decoder (pmu.py allocates pmu_blocks_size() bytes for it) */
struct pmu_blocks {
	size_t cs_handle;		/* capstone, x86-64 */
	cs_disasm_iter_fn disasm_iter;
	void *cs_insn;			/* cs_malloc's */
	uint64_t prev_rep;		/* the rep string instruction the last block ended with (0: none) */
	struct block table[NR_BLOCKS];
	uint8_t buf[MAX_BLOCK];
};

size_t pmu_blocks_size(void)
{
	return sizeof(struct pmu_blocks);
}

void pmu_blocks_init(struct pmu_blocks *b, size_t cs_handle, void *disasm_iter, void *cs_insn)
{
	memset(b, 0, sizeof(*b));
	b->cs_handle = cs_handle;
	b->disasm_iter = (cs_disasm_iter_fn)disasm_iter;
	b->cs_insn = cs_insn;
}

static uint64_t fnv1a(const uint8_t *p, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* the block's entry, decoded now if it is not the one the table has */
static const struct block *block_of(struct pmu_blocks *b, uint64_t pc, uint32_t size, const uint8_t *bytes)
{
	uint64_t hash = fnv1a(bytes, size);
	struct block *k = &b->table[(pc ^ (pc >> 12) ^ size) & (NR_BLOCKS - 1)];
	const uint8_t *code = bytes;
	size_t left = size;
	uint64_t at = pc;

	if (k->pc == pc && k->size == size && k->hash == hash)
		return k;
	memset(k, 0, sizeof(*k));
	k->pc = pc;
	k->size = size;
	k->hash = hash;
	while (left) {
		uint64_t start = at;
		const uint8_t *insn = code;
		unsigned cls;

		if (!b->disasm_iter(b->cs_handle, &code, &left, &at, b->cs_insn)) {
			k->insns++;	/* not decodable: the block ends in its #UD */
			break;
		}
		cls = insn_class(insn, (int)(at - start));
		k->insns++;
		k->branches += (cls & INSN_BRANCH) != 0;
		if (start == pc)
			k->first_rep = (cls & INSN_REP_STRING) != 0;
		k->last_rep = cls & INSN_REP_STRING ? start : 0;
	}
	return k;
}

/* The counters of `event` this block counts on (bit i: counter i), in `user` mode or the kernel's */
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

/* UC_HOOK_BLOCK callback: void (*)(uc_engine *, uint64_t address, uint32_t size, void *user_data) */
void pmu_block_hook(uc_engine *uc, uint64_t address, uint32_t size, void *user_data)
{
	struct cpu_events *e = user_data;
	struct pmu_blocks *b = e->pmu_blocks;
	uint64_t ctrl = pmu_u64(e, PMU_CTRL), prev_rep = b->prev_rep;
	int user = address < USER_TOP, i;
	unsigned insns_on, branches_on;
	const struct block *k;
	const uint8_t *bytes;
	uint64_t insns;

	b->prev_rep = 0;
	if (!user)
		e->pmu_page_va = 1;	/* the kernel may change the user mappings */
	if (!ctrl || !size)
		return;
	insns_on = counting(e, ctrl, PMU_EVENT_INSNS, user);
	branches_on = counting(e, ctrl, PMU_EVENT_BRANCHES, user);
	if ((!insns_on && !branches_on) || !(bytes = block_bytes(uc, e, address, size, b->buf)))
		return;
	k = block_of(b, address, size, bytes);
	b->prev_rep = k->last_rep;
	insns = k->insns - (k->first_rep && prev_rep == address);	/* the rep's next round */
	for (i = 0; i < PMU_NR; i++) {
		uint64_t add = (insns_on >> i & 1) ? insns : (branches_on >> i & 1) ? k->branches : 0;

		if (add && pmu_count(e, i, add))
			pmu_end_slice_by(e, 0);
	}
}

/* pmu.py: whether the CPU needs the hook (a counter programmed with either event, on or not) */
int pmu_wants_insn_hook(const struct cpu_events *e)
{
	return pmu_wants_insn_hook_(e);
}
