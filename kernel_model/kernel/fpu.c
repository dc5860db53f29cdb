/*
 * A user task's FPU/SSE state across fork and signals (arch/x86/kernel/fpu/core.c, signal.c):
 * the CPU has fxsave and no xsave, so a task's state is the 512-byte fxsave area
 * (`task_struct.fpu`, 6.1's thread.fpu.fpstate->regs.fxsave) and a signal frame's copy of it is
 * that area, 64-byte aligned below the frame.
 */
#include "../include/kernel.h"
#include "../include/signal.h"

/* The child's state: a user task's is its parent's live registers; a kernel thread's the
 * state after reset (minimal) */
noinline int fpu_clone(struct task_struct *dst, unsigned long clone_flags, bool minimal)
{
	if (minimal) {
		memset(&dst->fpu, 0, sizeof(dst->fpu));
		*(u16 *)&dst->fpu.bytes[0] = 0x37f;	/* init_fpstate: cwd */
		*(u32 *)&dst->fpu.bytes[24] = 0x1f80;	/* mxcsr */
		return 0;
	}
	fpu_save(current);	/* save_fpregs_to_fpstate() */
	dst->fpu = current->fpu;
	return 0;
}

/* Room below sp for the state in a signal frame: its address (buf_fx) and size */
noinline unsigned long fpu__alloc_mathframe(unsigned long sp, int ia32_frame, unsigned long *buf_fx,
					    unsigned long *size)
{
	unsigned long frame_size = sizeof(struct fxregs_state);	/* xstate_sigframe_size() */

	*buf_fx = sp = (sp - frame_size) & ~63UL;
	*size = frame_size;
	return sp;
}

/* The live registers into the frame's area (copy_fpregs_to_sigframe: fxsave) */
noinline bool copy_fpstate_to_sigframe(void *buf, void *buf_fx, int size, u32 pkru)
{
	fpu_save(current);
	return !copy_to_user(buf_fx, &current->fpu, sizeof(current->fpu));
}

/* An exec: the program starts with the state after reset (fpstate_reset, fpu_reset_fpregs) */
noinline void fpu_flush_thread(void)
{
	fpu_init_user(current);
}

/* The handler starts with the state after reset */
noinline void fpu__clear_user_states(struct task_struct *t)
{
	fpu_init_user(t);
}

/* rt_sigreturn: the state the frame holds (its MXCSR's defined bits only) */
static noinline bool __fpu_restore_sig(void *buf, void *buf_fx, bool ia32_fxstate)
{
	struct fxregs_state fx;

	if (copy_from_user(&fx, buf_fx, sizeof(fx)))
		return false;
	*(u32 *)&fx.bytes[24] &= 0xffff;	/* mxcsr_feature_mask */
	current->fpu = fx;
	asm volatile("fxrstor64 %0" : : "m"(current->fpu));
	return true;
}

/* No state in the frame (fpstate NULL), or one that cannot be read: the state after reset */
noinline bool fpu__restore_sig(void *buf, int ia32_frame)
{
	bool success;

	if (!buf) {
		fpu__clear_user_states(current);
		return true;
	}
	success = __fpu_restore_sig(buf, buf, false);
	if (!success)
		fpu__clear_user_states(current);
	return success;
}
