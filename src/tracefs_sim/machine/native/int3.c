/*
 * Kernel-mode int3 redirects, from inside Unicorn.
 *
 * A kprobe whose handlers run entirely in the guest needs nothing of the host
 * at its int3 but a new RIP: the point's slot (`push $point; call
 * kprobe_guest_stub; <copied insn>; jmp back`).  Going through Python for
 * that costs a few microseconds per hit; this UC_HOOK_INTR callback does it
 * natively for the addresses in a table the host fills (with every CPU
 * stopped), and hands every other interrupt (another vector, a user-mode
 * int3, an int3 not in the table) to the machine's Python interrupt hook
 * unchanged.  It replaces that hook rather than sitting beside it: Unicorn
 * calls every INTR hook of a CPU, so a second one could not tell that the
 * first had taken the trap.
 *
 * As in slice.c, no Unicorn header or library: uc_reg_read / uc_reg_write and
 * the register ids are passed in by the caller.
 */
#include <stdint.h>

#define INT3_TABLE_SIZE 256 /* the guest's kprobe point table (kernel/trace_probe.c) */

typedef struct uc_struct uc_engine;
typedef int (*uc_reg_fn)(uc_engine *uc, int regid, void *value);
typedef void (*uc_intr_fn)(uc_engine *uc, uint32_t intno, void *user_data);

/* Shared by every CPU; the host changes it only with every CPU stopped. */
struct int3_table {
	uint32_t count;                   /* entries in use: [0, count) */
	uint32_t reserved;
	uint64_t addr[INT3_TABLE_SIZE];   /* address of the int3 byte */
	uint64_t target[INT3_TABLE_SIZE]; /* where the CPU goes on instead */
};

/* One per CPU: the hook's user_data. */
struct int3_cpu {
	const struct int3_table *table;
	uc_reg_fn reg_read;
	uc_reg_fn reg_write;
	int rip_id, cs_id;
	uc_intr_fn fallback; /* the machine's interrupt hook */
	void *fallback_data;
	uint64_t redirected; /* hits taken here (tests and benchmarks read it) */
};

/* UC_HOOK_INTR callback: void (*)(uc_engine *, uint32_t intno, void *user_data) */
void int3_intr_hook(uc_engine *uc, uint32_t intno, void *user_data)
{
	struct int3_cpu *c = user_data;

	if (intno == 3) {
		const struct int3_table *t = c->table;
		uint64_t rip = 0, cs = 0;

		/* RIP is past the int3; a user-mode trap is the task's, never a probe's */
		if (t->count && !c->reg_read(uc, c->cs_id, &cs) && !(cs & 3) &&
		    !c->reg_read(uc, c->rip_id, &rip)) {
			uint64_t at = rip - 1;

			for (uint32_t i = 0; i < t->count; i++) {
				if (t->addr[i] == at) {
					uint64_t target = t->target[i];

					if (c->reg_write(uc, c->rip_id, &target))
						break;
					c->redirected++;
					return;
				}
			}
		}
	}
	c->fallback(uc, intno, c->fallback_data);
}
