/*
 * The x86 `syscall` instruction, from inside Unicorn (tracefs_sim.machine.cpu).
 *
 * Unicorn does not execute `syscall`: it calls the CPU's UC_HOOK_INSN hooks
 * and then adds the instruction's length to RIP.  The hook does what the CPU
 * would, the CPL switch included (Unicorn will not load a CPL-0 SS from CPL 3,
 * so the CPU's kernel-mode state is a Unicorn context snapshot taken at CPL 0):
 * restore the snapshot, keep the user's address space and registers, RCX =
 * return address, R11 = RFLAGS, RFLAGS &= ~FMASK, RIP = LSTAR.  Every system
 * call of every task comes through here, so it must not cost a trip through
 * Python (a few microseconds and the GIL).
 *
 * kernel_mode_enter() is the CPL switch alone; the machine's Python interrupt
 * and exception entry calls it too, so the snapshot and the CR3 it holds have
 * one keeper.
 *
 * As in slice.c, no Unicorn header or library: the entry points are passed in
 * by the caller (the Python binding loads libunicorn privately).
 */
#include <stdint.h>

typedef struct uc_struct uc_engine;
typedef struct uc_context uc_context;
typedef int (*uc_batch_fn)(uc_engine *uc, const int *ids, void *const *vals, int count);
typedef int (*uc_context_fn)(uc_engine *uc, uc_context *context);
typedef int (*uc_reg_fn)(uc_engine *uc, int regid, const void *value);
typedef int (*uc_emu_stop_fn)(uc_engine *uc);

/* Batch order (cpu.py's _REGS, first SYSCALL_NREGS): the 16 GPRs, RIP, EFLAGS
 * (read and written back), CR3 (read only). */
enum { REG_RCX = 2, REG_R11 = 11, REG_RIP = 16, REG_EFLAGS = 17, REG_CR3 = 18,
       SYSCALL_NWRITE = 18, SYSCALL_NREGS = 19 };

#define SYSCALL_INSN_LEN 2 /* Unicorn adds it to RIP after the hook returns */

/* A user task's registers that the CPL-0 snapshot would overwrite (it holds the whole CPU):
 * the FPU and SSE registers and the FS base (cpu.py's _USER_STATE_REGS). */
#define NR_USER_STATE 29

/* One per CPU: the hook's user_data, filled by cpu.py. */
struct syscall_cpu {
	uc_batch_fn reg_read_batch;
	uc_batch_fn reg_write_batch;
	uc_context_fn context_restore;
	uc_context_fn context_save;
	uc_reg_fn reg_write;
	uc_emu_stop_fn emu_stop;
	uc_context *kctx;  /* this CPU's CPL-0 snapshot */
	uint64_t kctx_cr3; /* the CR3 it holds */
	uint64_t entry;    /* MSR_LSTAR */
	uint64_t fmask;    /* MSR_FMASK */
	int cr3_id;
	int error;         /* first Unicorn error in the hook (the run was stopped); 0: none */
	int ids[SYSCALL_NREGS];
	uint64_t vals[SYSCALL_NREGS];
	void *ptrs[SYSCALL_NREGS]; /* &vals[i] */
	/* hostif_cpu.user_state in guest RAM: the kernel sets it while a task with user
	 * registers of its own runs on this CPU */
	const volatile uint64_t *user_state;
	int us_ids[NR_USER_STATE];
	uint8_t us_vals[NR_USER_STATE][16];
	void *us_ptrs[NR_USER_STATE]; /* &us_vals[i] */
};

/* Restore the CPL-0 snapshot, keeping address space cr3: the snapshot is
 * re-taken when cr3 is not the one it holds, so the next entry from the same
 * task restores its own page tables.  Returns a Unicorn error, 0 if none. */
int kernel_mode_enter(uc_engine *uc, struct syscall_cpu *c, uint64_t cr3)
{
	int keep = *c->user_state != 0, err = 0;

	if (keep)
		err = c->reg_read_batch(uc, c->us_ids, c->us_ptrs, NR_USER_STATE);
	if (!err)
		err = c->context_restore(uc, c->kctx);
	if (!err && cr3 != c->kctx_cr3) {
		err = c->reg_write(uc, c->cr3_id, &cr3);
		if (!err)
			err = c->context_save(uc, c->kctx);
		if (!err)
			c->kctx_cr3 = cr3;
	}
	if (!err && keep)
		err = c->reg_write_batch(uc, c->us_ids, c->us_ptrs, NR_USER_STATE);
	return err;
}

static int syscall_enter(uc_engine *uc, struct syscall_cpu *c)
{
	uint64_t *v = c->vals;
	uint64_t rip, rflags;
	int err = c->reg_read_batch(uc, c->ids, c->ptrs, SYSCALL_NREGS);

	if (err)
		return err;
	rip = v[REG_RIP];
	rflags = v[REG_EFLAGS];
	err = kernel_mode_enter(uc, c, v[REG_CR3]);
	if (err)
		return err;
	/* the snapshot's GPRs are the kernel's: the user's go back, as a CPU keeps them */
	v[REG_RCX] = rip + SYSCALL_INSN_LEN;
	v[REG_R11] = rflags;
	v[REG_EFLAGS] = rflags & ~c->fmask;
	v[REG_RIP] = c->entry - SYSCALL_INSN_LEN;
	return c->reg_write_batch(uc, c->ids, c->ptrs, SYSCALL_NWRITE);
}

/* UC_HOOK_INSN (UC_X86_INS_SYSCALL) callback: void (*)(uc_engine *, void *user_data) */
void syscall_insn_hook(uc_engine *uc, void *user_data)
{
	struct syscall_cpu *c = user_data;
	int err = syscall_enter(uc, c);

	if (err) {
		if (!c->error)
			c->error = err;
		c->emu_stop(uc);
	}
}
