/*
 * membarrier(2) (kernel/sched/membarrier.c): a memory barrier on every thread of the caller's
 * process (PRIVATE_EXPEDITED, once the process registered for it), or of every process that
 * registered (GLOBAL_EXPEDITED), or after a grace period on every cpu (GLOBAL).  The
 * registration is the mm's membarrier_state, cleared by exec (membarrier_exec_mmap).
 *
 * 6.1 interrupts the cpus running such threads (an IPI whose handler is the barrier); the
 * model has no IPIs between its cpus, so the calls check, register and fail as 6.1's and the
 * barrier is the caller's own.  (6.1 inlines the global and the register paths.)
 */
#include "../../include/kernel.h"
#include "../../include/mm.h"
#include "../../include/syscalls.h"

/* include/uapi/linux/membarrier.h */
enum membarrier_cmd {
	MEMBARRIER_CMD_QUERY = 0,
	MEMBARRIER_CMD_GLOBAL = (1 << 0),
	MEMBARRIER_CMD_GLOBAL_EXPEDITED = (1 << 1),
	MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED = (1 << 2),
	MEMBARRIER_CMD_PRIVATE_EXPEDITED = (1 << 3),
	MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED = (1 << 4),
	MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE = (1 << 5),
	MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE = (1 << 6),
	MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ = (1 << 7),
	MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ = (1 << 8),
};
#define MEMBARRIER_CMD_FLAG_CPU	(1 << 0)

/* include/linux/sched/mm.h: the mm's state */
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_READY		(1U << 0)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED			(1U << 1)
#define MEMBARRIER_STATE_GLOBAL_EXPEDITED_READY			(1U << 2)
#define MEMBARRIER_STATE_GLOBAL_EXPEDITED			(1U << 3)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_SYNC_CORE_READY	(1U << 4)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_SYNC_CORE		(1U << 5)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_RSEQ_READY		(1U << 6)
#define MEMBARRIER_STATE_PRIVATE_EXPEDITED_RSEQ			(1U << 7)
#define MEMBARRIER_FLAG_SYNC_CORE	(1U << 0)
#define MEMBARRIER_FLAG_RSEQ		(1U << 1)

/* x86-64 has ARCH_HAS_MEMBARRIER_SYNC_CORE and RSEQ: every command */
#define MEMBARRIER_CMD_BITMASK							\
	(MEMBARRIER_CMD_GLOBAL | MEMBARRIER_CMD_GLOBAL_EXPEDITED		\
	 | MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED				\
	 | MEMBARRIER_CMD_PRIVATE_EXPEDITED					\
	 | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED				\
	 | MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE				\
	 | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE			\
	 | MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ				\
	 | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ)

static __always_inline int membarrier_state(struct mm_struct *mm)
{
	return __atomic_load_n(&mm->membarrier_state, __ATOMIC_RELAXED);
}

static __always_inline void membarrier_state_or(struct mm_struct *mm, int bits)
{
	__atomic_fetch_or(&mm->membarrier_state, bits, __ATOMIC_SEQ_CST);
}

/* exec's new address space starts unregistered */
noinline void membarrier_exec_mmap(struct mm_struct *mm)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&mm->membarrier_state, 0, __ATOMIC_RELAXED);
}

static __always_inline int membarrier_global_expedited(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* system call entry is not a mb */
	return 0;
}

static noinline int membarrier_private_expedited(int flags, int cpu_id)
{
	struct mm_struct *mm = current->mm;

	if (flags == MEMBARRIER_FLAG_SYNC_CORE) {
		if (!(membarrier_state(mm) & MEMBARRIER_STATE_PRIVATE_EXPEDITED_SYNC_CORE_READY))
			return -EPERM;
	} else if (flags == MEMBARRIER_FLAG_RSEQ) {
		if (!(membarrier_state(mm) & MEMBARRIER_STATE_PRIVATE_EXPEDITED_RSEQ_READY))
			return -EPERM;
	} else if (!(membarrier_state(mm) & MEMBARRIER_STATE_PRIVATE_EXPEDITED_READY)) {
		return -EPERM;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

/* Every cpu running the mm sees its new state before the registration returns: after a grace
 * period, each one has switched at least once (6.1 then also interrupts them). */
static noinline int sync_runqueues_membarrier_state(struct mm_struct *mm)
{
	if (mm->mm_users == 1 || nr_cpu_ids == 1) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return 0;
	}
	synchronize_rcu();
	return 0;
}

static __always_inline int membarrier_register_global_expedited(void)
{
	struct mm_struct *mm = current->mm;
	int ret;

	if (membarrier_state(mm) & MEMBARRIER_STATE_GLOBAL_EXPEDITED_READY)
		return 0;
	membarrier_state_or(mm, MEMBARRIER_STATE_GLOBAL_EXPEDITED);
	ret = sync_runqueues_membarrier_state(mm);
	if (ret)
		return ret;
	membarrier_state_or(mm, MEMBARRIER_STATE_GLOBAL_EXPEDITED_READY);
	return 0;
}

static noinline int membarrier_register_private_expedited(int flags)
{
	struct mm_struct *mm = current->mm;
	int ready_state = MEMBARRIER_STATE_PRIVATE_EXPEDITED_READY,
	    set_state = MEMBARRIER_STATE_PRIVATE_EXPEDITED, ret;

	if (flags == MEMBARRIER_FLAG_SYNC_CORE)
		ready_state = MEMBARRIER_STATE_PRIVATE_EXPEDITED_SYNC_CORE_READY;
	else if (flags == MEMBARRIER_FLAG_RSEQ)
		ready_state = MEMBARRIER_STATE_PRIVATE_EXPEDITED_RSEQ_READY;
	/* threads of other processes may share the mm (CLONE_VM without CLONE_THREAD) */
	if ((membarrier_state(mm) & ready_state) == ready_state)
		return 0;
	if (flags & MEMBARRIER_FLAG_SYNC_CORE)
		set_state |= MEMBARRIER_STATE_PRIVATE_EXPEDITED_SYNC_CORE;
	if (flags & MEMBARRIER_FLAG_RSEQ)
		set_state |= MEMBARRIER_STATE_PRIVATE_EXPEDITED_RSEQ;
	membarrier_state_or(mm, set_state);
	ret = sync_runqueues_membarrier_state(mm);
	if (ret)
		return ret;
	membarrier_state_or(mm, ready_state);
	return 0;
}

SYSCALL_DEFINE3(membarrier, int, cmd, unsigned int, flags, int, cpu_id)
{
	switch (cmd) {
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ:
		if (flags && flags != MEMBARRIER_CMD_FLAG_CPU)
			return -EINVAL;
		break;
	default:
		if (flags)
			return -EINVAL;
	}
	if (!(flags & MEMBARRIER_CMD_FLAG_CPU))
		cpu_id = -1;
	switch (cmd) {
	case MEMBARRIER_CMD_QUERY:
		return MEMBARRIER_CMD_BITMASK;	/* (no nohz_full cpus) */
	case MEMBARRIER_CMD_GLOBAL:
		if (nr_cpu_ids > 1)
			synchronize_rcu();
		return 0;
	case MEMBARRIER_CMD_GLOBAL_EXPEDITED:
		return membarrier_global_expedited();
	case MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED:
		return membarrier_register_global_expedited();
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED:
		return membarrier_private_expedited(0, cpu_id);
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED:
		return membarrier_register_private_expedited(0);
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE:
		return membarrier_private_expedited(MEMBARRIER_FLAG_SYNC_CORE, cpu_id);
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE:
		return membarrier_register_private_expedited(MEMBARRIER_FLAG_SYNC_CORE);
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ:
		return membarrier_private_expedited(MEMBARRIER_FLAG_RSEQ, cpu_id);
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ:
		return membarrier_register_private_expedited(MEMBARRIER_FLAG_RSEQ);
	default:
		return -EINVAL;
	}
}
