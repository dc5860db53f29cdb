/*
 * Spinlocks as Linux 6.1 builds them on x86-64 (include/linux/spinlock*.h,
 * asm-generic/qspinlock.h): spin_lock() -> raw_spin_lock() -> the out-of-line,
 * traceable _raw_spin_lock() (kernel/spinlock.c) -> queued_spin_lock(), whose
 * contended case is native_queued_spin_lock_slowpath() (kernel/qspinlock.c).
 *
 * The trace machinery (the ring writers, the function tracers' dispatcher,
 * the kprobe handlers) takes none of these: a probe or tracer on a lock
 * function would recurse into the code that serves it.  Its few locks are
 * notrace_spinlock_t, every instruction inline.
 */
#ifndef _SPINLOCK_H
#define _SPINLOCK_H
#include "types.h"
#include "hostif.h"	/* PORT_YIELD */

#define X86_EFLAGS_IF 0x200UL
#define PERCPU_PREEMPT_COUNT 208	/* offsetof(struct percpu, preempt_count), asserted in kernel.h */
#define __pc_str1(x) #x
#define __pc_str(x) __pc_str1(x)
/* x86's __preempt_count: one per-cpu int, changed by single %gs-relative instructions */
static __always_inline void preempt_count_add(int n)
{
	asm volatile("addl %0, %%gs:" __pc_str(PERCPU_PREEMPT_COUNT) : : "ri"(n) : "memory");
}
#define preempt_disable() preempt_count_add(1)
#define preempt_enable_no_resched() preempt_count_add(-1)
/* PREEMPT_VOLUNTARY (Debian's default of PREEMPT_DYNAMIC): no preemption point here */
#define preempt_enable() preempt_count_add(-1)

static __always_inline unsigned long arch_local_save_flags(void)
{
	unsigned long f;
	asm volatile("pushfq; popq %0" : "=r"(f) : : "memory");
	return f;
}
static __always_inline unsigned long arch_local_irq_save(void)
{
	unsigned long f;
	asm volatile("pushfq; popq %0; cli" : "=r"(f) : : "memory");
	return f;
}
static __always_inline void arch_local_irq_restore(unsigned long f)
{
	if (f & X86_EFLAGS_IF)
		asm volatile("sti" ::: "memory");
}
static __always_inline void local_irq_enable(void) { asm volatile("sti" ::: "memory"); }
static __always_inline void local_irq_disable(void) { asm volatile("cli" ::: "memory"); }
/*
 * A wait for another cpu (a lock's holder, a flag it sets) or for the host.  The machine runs
 * its cpus one at a time, in turns (1 ms slices on a live machine), and passes the host's
 * doorbells between them: what is waited for cannot happen before this cpu's turn ends, so the
 * host is told (PORT_YIELD) and ends it, as a hypervisor's pause-loop exit does.  Spinning out
 * the turn instead made a contended lock change hands once per turn: a session's replay of a
 * getppid() loop, taking session_lock per record against the ring's worker on the other cpu,
 * crawled at ~100-500 calls/s.  (A seeded machine's turns end by code executed, as before.)
 */
static __always_inline void cpu_relax(void)
{
	asm volatile("pause; outb %%al, %%dx" : : "a"(0), "d"(PORT_YIELD) : "memory");
}

/*
 * A full barrier that holds on the host too: before a look at what a host thread writes, after
 * a store that thread must see (a "ring me when you write" flag).  The guest's mfence alone is
 * no barrier there: Unicorn's TCG emits none without parallel cpus (PORT_FENCE).
 */
static __always_inline void host_mb(void)
{
	asm volatile("mfence; outb %%al, %%dx" : : "a"(0), "d"(PORT_FENCE) : "memory");
}

/* ---- qspinlock (include/asm-generic/qspinlock_types.h) ---- */
typedef struct qspinlock {
	union {
		u32 val;
		struct { u8 locked; u8 pending; };
		struct { u16 locked_pending; u16 tail; };
	};
} arch_spinlock_t;

#define _Q_LOCKED_VAL		1U
#define _Q_LOCKED_MASK		0xffU
#define _Q_PENDING_VAL		(1U << 8)
#define _Q_PENDING_MASK		0xff00U
#define _Q_LOCKED_PENDING_MASK	(_Q_LOCKED_MASK | _Q_PENDING_MASK)
#define _Q_TAIL_IDX_OFFSET	16
#define _Q_TAIL_CPU_OFFSET	18
#define _Q_TAIL_MASK		0xffff0000U

typedef struct raw_spinlock { arch_spinlock_t raw_lock; } raw_spinlock_t;
typedef struct spinlock { struct raw_spinlock rlock; } spinlock_t;
#define __SPIN_LOCK_UNLOCKED { { { { 0 } } } }

void native_queued_spin_lock_slowpath(struct qspinlock *lock, u32 val);

static __always_inline bool queued_spin_trylock(struct qspinlock *lock)
{
	u32 val = READ_ONCE(lock->val);

	return !val && __atomic_compare_exchange_n(&lock->val, &val, _Q_LOCKED_VAL, false,
						   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static __always_inline void queued_spin_lock(struct qspinlock *lock)
{
	u32 val = 0;

	if (likely(__atomic_compare_exchange_n(&lock->val, &val, _Q_LOCKED_VAL, false,
					       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		return;
	native_queued_spin_lock_slowpath(lock, val);
}

static __always_inline void queued_spin_unlock(struct qspinlock *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

static __always_inline bool queued_spin_is_locked(struct qspinlock *lock)
{
	return READ_ONCE(lock->val) != 0;
}

/* ---- the out-of-line lock functions (kernel/spinlock.c) ---- */
void _raw_spin_lock(raw_spinlock_t *lock);
void _raw_spin_lock_irq(raw_spinlock_t *lock);
unsigned long _raw_spin_lock_irqsave(raw_spinlock_t *lock);
int _raw_spin_trylock(raw_spinlock_t *lock);
void _raw_spin_unlock(raw_spinlock_t *lock);
void _raw_spin_unlock_irq(raw_spinlock_t *lock);
void _raw_spin_unlock_irqrestore(raw_spinlock_t *lock, unsigned long flags);

#define raw_spin_lock(l)			_raw_spin_lock(l)
#define raw_spin_lock_irq(l)			_raw_spin_lock_irq(l)
#define raw_spin_lock_irqsave(l, flags)		do { flags = _raw_spin_lock_irqsave(l); } while (0)
#define raw_spin_trylock(l)			_raw_spin_trylock(l)
#define raw_spin_unlock(l)			_raw_spin_unlock(l)
#define raw_spin_unlock_irq(l)			_raw_spin_unlock_irq(l)
#define raw_spin_unlock_irqrestore(l, flags)	_raw_spin_unlock_irqrestore(l, flags)

#define spin_lock(l)				raw_spin_lock(&(l)->rlock)
#define spin_lock_irq(l)			raw_spin_lock_irq(&(l)->rlock)
#define spin_lock_irqsave(l, flags)		raw_spin_lock_irqsave(&(l)->rlock, flags)
#define spin_trylock(l)				raw_spin_trylock(&(l)->rlock)
#define spin_unlock(l)				raw_spin_unlock(&(l)->rlock)
#define spin_unlock_irq(l)			raw_spin_unlock_irq(&(l)->rlock)
#define spin_unlock_irqrestore(l, flags)	raw_spin_unlock_irqrestore(&(l)->rlock, flags)

/* ---- the trace machinery's own locks: inline test-and-set, nothing traceable ---- */
typedef struct { volatile int locked; } notrace_spinlock_t;

static __always_inline void notrace_spin_lock(notrace_spinlock_t *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (READ_ONCE(l->locked))
			cpu_relax();
}
static __always_inline void notrace_spin_unlock(notrace_spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
#endif
