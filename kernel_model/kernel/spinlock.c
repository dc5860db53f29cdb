/*
 * The out-of-line spinlock functions (kernel/locking/spinlock.c with
 * include/linux/spinlock_api_smp.h's bodies): every spin_lock*() of the
 * kernel is a call here, traceable as in Linux 6.1 (x86-64, Debian's config:
 * none of them inlined).  They live in .spinlock.text, between
 * __lock_text_start and __lock_text_end.
 */
#include "../include/kernel.h"

#define __lockfunc __attribute__((section(".spinlock.text")))

extern char __lock_text_start[], __lock_text_end[];

/* an address in these functions: an unwinder's "scheduler" frames include them */
notrace int in_lock_functions(unsigned long addr)
{
	return addr >= (unsigned long)__lock_text_start && addr < (unsigned long)__lock_text_end;
}

static __always_inline void do_raw_spin_lock(raw_spinlock_t *lock)
{
	queued_spin_lock(&lock->raw_lock);
}

static __always_inline void do_raw_spin_unlock(raw_spinlock_t *lock)
{
	queued_spin_unlock(&lock->raw_lock);
}

void __lockfunc _raw_spin_lock(raw_spinlock_t *lock)
{
	preempt_disable();
	do_raw_spin_lock(lock);
}

unsigned long __lockfunc _raw_spin_lock_irqsave(raw_spinlock_t *lock)
{
	unsigned long flags = arch_local_irq_save();

	preempt_disable();
	do_raw_spin_lock(lock);
	return flags;
}

void __lockfunc _raw_spin_lock_irq(raw_spinlock_t *lock)
{
	local_irq_disable();
	preempt_disable();
	do_raw_spin_lock(lock);
}

int __lockfunc _raw_spin_trylock(raw_spinlock_t *lock)
{
	preempt_disable();
	if (queued_spin_trylock(&lock->raw_lock))
		return 1;
	preempt_enable();
	return 0;
}

void __lockfunc _raw_spin_unlock(raw_spinlock_t *lock)
{
	do_raw_spin_unlock(lock);
	preempt_enable();
}

void __lockfunc _raw_spin_unlock_irqrestore(raw_spinlock_t *lock, unsigned long flags)
{
	do_raw_spin_unlock(lock);
	arch_local_irq_restore(flags);
	preempt_enable();
}

void __lockfunc _raw_spin_unlock_irq(raw_spinlock_t *lock)
{
	do_raw_spin_unlock(lock);
	local_irq_enable();
	preempt_enable();
}
