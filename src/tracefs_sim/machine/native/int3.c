/*
 * A kernel-mode int3 taken as the CPU takes it: through the guest's #BP gate.
 *
 * Unicorn reports an `int3` to UC_HOOK_INTR callbacks instead of delivering it
 * through the IDT.  This callback delivers a kernel-mode one itself, as a CPU
 * does through an interrupt gate at CPL 0 with no IST (6.1's #BP gate:
 * SYSG(X86_TRAP_BP, asm_exc_int3)): the stack aligned down to 16 bytes, the
 * frame ss, rsp, rflags, cs, rip (rip past the int3) pushed, IF and TF
 * cleared, on at the gate's handler.  The guest's exc_int3 then runs its
 * kprobe handlers (kprobe_int3_handler) and returns with iretq.  No Python.
 *
 * User-mode int3s (uprobes, the task's own) and what this hook cannot deliver
 * (a stack outside guest RAM) go on to the machine's Python interrupt hook
 * unchanged.  It replaces that hook rather than sitting beside it:
 * Unicorn calls every INTR hook of a CPU, so a second one could not tell that
 * the first had taken the trap.
 *
 * As in slice.c, no Unicorn header or library: uc_reg_read / uc_reg_write and
 * the register ids are passed in by the caller.
 */
#include <stdint.h>
#include <string.h>

#define EFLAGS_TF 0x100UL
#define EFLAGS_IF 0x200UL
#define EFLAGS_NT 0x4000UL
#define EFLAGS_RF 0x10000UL
#define KERNEL_DS 0x18UL

typedef struct uc_struct uc_engine;
typedef int (*uc_reg_fn)(uc_engine *uc, int regid, void *value);
typedef void (*uc_intr_fn)(uc_engine *uc, uint32_t intno, void *user_data);

/* The gate, shared by every CPU; set before they run. */
struct int3_gate {
	uint64_t handler;                   /* the #BP gate's handler; 0: none, all go to the host */
	uint8_t *ram;                       /* guest RAM in this process */
	uint64_t ram_size;
	uint64_t kernel_map, page_offset;   /* the kernel image's and the direct map's starts */
};

enum { REG_RIP, REG_CS, REG_RSP, REG_RFLAGS, NR_REGS };

/* One per CPU: the hook's user_data. */
struct int3_cpu {
	const struct int3_gate *gate;
	uc_reg_fn reg_read;
	uc_reg_fn reg_write;
	int ids[NR_REGS];
	uc_intr_fn fallback; /* the machine's interrupt hook */
	void *fallback_data;
	uint64_t delivered; /* int3s delivered to the guest here (tests and benchmarks read it) */
};

static uint8_t *guest_ram(const struct int3_gate *t, uint64_t va, uint64_t len)
{
	uint64_t pa;

	if (va >= t->kernel_map)
		pa = va - t->kernel_map;
	else if (va >= t->page_offset && va - t->page_offset < t->ram_size)
		pa = va - t->page_offset;
	else
		return NULL;
	return pa <= t->ram_size && len <= t->ram_size - pa ? t->ram + pa : NULL;
}

/* The gate's delivery; 0 when done (registers and frame written). */
static int deliver(uc_engine *uc, struct int3_cpu *c, const uint64_t *r)
{
	const struct int3_gate *t = c->gate;
	uint64_t frame = (r[REG_RSP] & ~0xfUL) - 5 * 8;
	uint64_t words[5] = { r[REG_RIP], r[REG_CS], r[REG_RFLAGS], r[REG_RSP], KERNEL_DS };
	uint64_t rflags = r[REG_RFLAGS] & ~(EFLAGS_IF | EFLAGS_TF | EFLAGS_NT | EFLAGS_RF);
	uint64_t rip = t->handler;
	uint8_t *at = guest_ram(t, frame, sizeof(words));

	if (!at)
		return -1;
	memcpy(at, words, sizeof(words));
	if (c->reg_write(uc, c->ids[REG_RSP], &frame) || c->reg_write(uc, c->ids[REG_RFLAGS], &rflags) ||
	    c->reg_write(uc, c->ids[REG_RIP], &rip))
		return -1;
	return 0;
}

/* UC_HOOK_INTR callback: void (*)(uc_engine *, uint32_t intno, void *user_data) */
void int3_intr_hook(uc_engine *uc, uint32_t intno, void *user_data)
{
	struct int3_cpu *c = user_data;
	const struct int3_gate *t = c->gate;
	uint64_t r[NR_REGS] = { 0 };	/* (Unicorn writes cs and rflags narrower) */

	if (intno == 3 && t->handler) {
		int i;

		for (i = 0; i < NR_REGS; i++)
			if (c->reg_read(uc, c->ids[i], &r[i]))
				break;
		/* RIP is past the int3; a user-mode trap is the task's: the host delivers it */
		if (i == NR_REGS && !(r[REG_CS] & 3) && !deliver(uc, c, r)) {
			c->delivered++;
			return;
		}
	}
	c->fallback(uc, intno, c->fallback_data);
}
