/*
 * Restartable sequences (kernel/rseq.c): a thread's registration of its struct rseq.
 *
 * For a session task the struct is in its host process, whose kernel keeps its cpu_id fields
 * and aborts its critical sections: here the call is the registration's bookkeeping, with
 * 6.1's checks and errnos (fork keeps it, a CLONE_VM child and exec drop it: session.c).
 * The kernel's own ELF programs get ENOSYS: keeping their cpu_id_start/cpu_id up to date on
 * each return to user mode (rseq_handle_notify_resume) is not done here.
 */
#include "../include/syscalls.h"
#include "../include/session.h"

#define RSEQ_FLAG_UNREGISTER	(1 << 0)
#define RSEQ_SIZE		32	/* 6.1's struct rseq, __aligned(4 * sizeof(u64)) */

SYSCALL_DEFINE4(rseq, struct rseq *, rseq, u32, rseq_len, int, flags, u32, sig)
{
	if (!current->session)
		return -ENOSYS;
	if (flags & RSEQ_FLAG_UNREGISTER) {
		if (flags & ~RSEQ_FLAG_UNREGISTER)
			return -EINVAL;
		if (current->rseq != rseq || !current->rseq)
			return -EINVAL;
		if (rseq_len != current->rseq_len)
			return -EINVAL;
		if (current->rseq_sig != sig)
			return -EPERM;
		/* (rseq_reset_rseq_cpu_id(): the host's kernel writes the host's struct) */
		current->rseq = NULL;
		current->rseq_sig = 0;
		current->rseq_len = 0;
		return 0;
	}
	if (flags)
		return -EINVAL;
	if (current->rseq) {
		/* registered: the same registration again is EBUSY */
		if (current->rseq != rseq || rseq_len != current->rseq_len)
			return -EINVAL;
		if (current->rseq_sig != sig)
			return -EPERM;
		return -EBUSY;
	}
	if (((unsigned long)rseq & (RSEQ_SIZE - 1)) || rseq_len != RSEQ_SIZE)
		return -EINVAL;
	if (!access_ok(rseq, rseq_len))
		return -EFAULT;
	current->rseq = rseq;
	current->rseq_len = rseq_len;
	current->rseq_sig = sig;
	return 0;
}
