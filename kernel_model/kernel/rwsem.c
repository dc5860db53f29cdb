/*
 * Read-write semaphores (kernel/locking/rwsem.c of Linux 6.1, without lockdep and the reader
 * spinning): a reader adds its bias to count and holds the lock unless a writer has it, a
 * waiter is queued or a handoff is asked for; a writer takes count from 0.  Waiters queue on
 * wait_list in order; the unlock that finds waiters wakes the first writer, or every reader
 * up to the next writers (rwsem_mark_wake(), which grants the readers their bias before they
 * run).  A writer waiting past RWSEM_WAIT_TIMEOUT asks for a handoff, which stops lock
 * stealing until it has the lock; a writer spins while the owner is a writer on a cpu.  An
 * interruptible (killable) waiter gives up with -EINTR on a signal (SIGKILL).
 * lock:contention_begin and contention_end (flags READ or WRITE, and SPIN while spinning)
 * bracket every wait, as in 6.1.
 */
#include "../include/kernel.h"
#include "../include/rwsem.h"
#include "../include/signal.h"
#include "../include/timer.h"
#include "../include/trace/trace.h"

#define RWSEM_WRITER_LOCKED	(1UL << 0)
#define RWSEM_FLAG_WAITERS	(1UL << 1)
#define RWSEM_FLAG_HANDOFF	(1UL << 2)
#define RWSEM_FLAG_READFAIL	(1UL << 63)
#define RWSEM_READER_SHIFT	8
#define RWSEM_READER_BIAS	(1UL << RWSEM_READER_SHIFT)
#define RWSEM_READER_MASK	(~(RWSEM_READER_BIAS - 1))
#define RWSEM_WRITER_MASK	RWSEM_WRITER_LOCKED
#define RWSEM_LOCK_MASK		(RWSEM_WRITER_MASK | RWSEM_READER_MASK)
#define RWSEM_READ_FAILED_MASK	(RWSEM_WRITER_MASK | RWSEM_FLAG_WAITERS | RWSEM_FLAG_HANDOFF | RWSEM_FLAG_READFAIL)

#define RWSEM_READER_OWNED	(1UL << 0)	/* owner: the last reader, not a writer */
#define RWSEM_OWNER_FLAGS_MASK	3UL

#define RWSEM_WAIT_TIMEOUT	((HZ + 249) / 250)	/* jiffies a waiter waits before a handoff (4 ms) */
#define MAX_READERS_WAKEUP	0x100

enum rwsem_waiter_type { RWSEM_WAITING_FOR_WRITE, RWSEM_WAITING_FOR_READ };
enum rwsem_wake_type { RWSEM_WAKE_ANY, RWSEM_WAKE_READERS, RWSEM_WAKE_READ_OWNED };

struct rwsem_waiter {
	struct list_head list;
	struct task_struct *task;	/* a reader's: NULL once it has the lock */
	enum rwsem_waiter_type type;
	unsigned long timeout;
	bool handoff_set;
};

static __always_inline long count_add_return(struct rw_semaphore *sem, long v, int order)
{
	return __atomic_add_fetch(&sem->count, v, order);
}

static __always_inline void rwsem_set_owner(struct rw_semaphore *sem)
{
	__atomic_store_n(&sem->owner, (unsigned long)current, __ATOMIC_RELAXED);
}

static __always_inline void rwsem_clear_owner(struct rw_semaphore *sem)
{
	__atomic_store_n(&sem->owner, 0, __ATOMIC_RELAXED);
}

static __always_inline void __rwsem_set_reader_owned(struct rw_semaphore *sem, struct task_struct *owner)
{
	__atomic_store_n(&sem->owner, (unsigned long)owner | RWSEM_READER_OWNED, __ATOMIC_RELAXED);
}

static __always_inline void rwsem_set_reader_owned(struct rw_semaphore *sem)
{
	__rwsem_set_reader_owned(sem, current);
}

void __init_rwsem(struct rw_semaphore *sem)
{
	sem->count = 0;
	sem->owner = 0;
	sem->wait_lock = (raw_spinlock_t){ { { 0 } } };
	INIT_LIST_HEAD(&sem->wait_list);
}

static __always_inline struct rwsem_waiter *rwsem_first_waiter(struct rw_semaphore *sem)
{
	return list_first_entry(&sem->wait_list, struct rwsem_waiter, list);
}

static __always_inline void rwsem_add_waiter(struct rw_semaphore *sem, struct rwsem_waiter *waiter)
{
	list_add_tail(&waiter->list, &sem->wait_list);
}

/* off the queue; false: it was the last (the flags go with it) */
static __always_inline bool rwsem_del_waiter(struct rw_semaphore *sem, struct rwsem_waiter *waiter)
{
	list_del(&waiter->list);
	if (!list_empty(&sem->wait_list))
		return true;
	__atomic_and_fetch(&sem->count, ~(RWSEM_FLAG_HANDOFF | RWSEM_FLAG_WAITERS), __ATOMIC_RELAXED);
	return false;
}

/*
 * Under wait_lock: the first waiter a writer (woken to try, RWSEM_WAKE_ANY only), or the readers
 * queued up to MAX_READERS_WAKEUP, their biases added for them first (unless the caller, a reader
 * that has the lock, already holds it: RWSEM_WAKE_READ_OWNED) and given up if a writer took the
 * lock meanwhile.
 */
static noinline void rwsem_mark_wake(struct rw_semaphore *sem, enum rwsem_wake_type wake_type,
				     struct wake_q_head *wake_q)
{
	struct rwsem_waiter *waiter, *tmp;
	long oldcount, woken = 0, adjustment = 0;
	struct list_head wlist;

	waiter = rwsem_first_waiter(sem);
	if (waiter->type == RWSEM_WAITING_FOR_WRITE) {
		if (wake_type == RWSEM_WAKE_ANY)
			wake_q_add(wake_q, waiter->task);
		return;
	}
	if (__atomic_load_n(&sem->count, __ATOMIC_RELAXED) < 0)	/* too many readers */
		return;
	if (wake_type != RWSEM_WAKE_READ_OWNED) {
		adjustment = RWSEM_READER_BIAS;
		oldcount = __atomic_fetch_add(&sem->count, adjustment, __ATOMIC_RELAXED);
		if (oldcount & RWSEM_WRITER_MASK) {
			/* a writer stole it: after waiting too long, ask for a handoff */
			if (time_after(jiffies, waiter->timeout)) {
				if (!(oldcount & RWSEM_FLAG_HANDOFF))
					adjustment -= RWSEM_FLAG_HANDOFF;
				waiter->handoff_set = true;
			}
			__atomic_add_fetch(&sem->count, -adjustment, __ATOMIC_RELAXED);
			return;
		}
		__rwsem_set_reader_owned(sem, waiter->task);
	}
	INIT_LIST_HEAD(&wlist);
	list_for_each_entry_safe(waiter, tmp, &sem->wait_list, list) {
		if (waiter->type == RWSEM_WAITING_FOR_WRITE)
			continue;
		woken++;
		list_move_tail(&waiter->list, &wlist);
		if (woken >= MAX_READERS_WAKEUP)
			break;
	}
	adjustment = woken * RWSEM_READER_BIAS - adjustment;
	oldcount = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
	if (list_empty(&sem->wait_list)) {
		adjustment -= RWSEM_FLAG_WAITERS;
		if (oldcount & RWSEM_FLAG_HANDOFF)
			adjustment -= RWSEM_FLAG_HANDOFF;
	} else if (woken && (oldcount & RWSEM_FLAG_HANDOFF)) {
		adjustment -= RWSEM_FLAG_HANDOFF;	/* a reader woke: writers need not give up */
	}
	if (adjustment)
		__atomic_add_fetch(&sem->count, adjustment, __ATOMIC_RELAXED);
	list_for_each_entry_safe(waiter, tmp, &wlist, list) {
		struct task_struct *tsk = waiter->task;

		__atomic_store_n(&waiter->task, NULL, __ATOMIC_RELEASE);	/* it has the lock */
		wake_q_add(wake_q, tsk);
	}
}

/* Under wait_lock, which it drops: waiter gives up; the next one may go if it was first. */
static __always_inline void rwsem_del_wake_waiter(struct rw_semaphore *sem, struct rwsem_waiter *waiter,
				  struct wake_q_head *wake_q)
{
	bool first = rwsem_first_waiter(sem) == waiter;

	preempt_disable();	/* the woken tasks stay until woken (wake_q_add()) */
	if (rwsem_del_waiter(sem, waiter) && first)
		rwsem_mark_wake(sem, RWSEM_WAKE_ANY, wake_q);
	raw_spin_unlock_irq(&sem->wait_lock);
	wake_up_q(wake_q);
	preempt_enable();
}

/* Under wait_lock: the waiters that count lets go (no writer: a writer or readers, or more
 * readers beside the readers that hold it) */
static __always_inline void rwsem_cond_wake_waiter(struct rw_semaphore *sem, long count,
						   struct wake_q_head *wake_q)
{
	if (count & RWSEM_WRITER_MASK)
		return;
	rwsem_mark_wake(sem, count & RWSEM_READER_MASK ? RWSEM_WAKE_READERS : RWSEM_WAKE_ANY, wake_q);
}

/* Under wait_lock: the lock for the writer waiter, or (after waiting too long) the handoff
 * asked for; the handoff asked by the first waiter stops the others */
static __always_inline bool rwsem_try_write_lock(struct rw_semaphore *sem, struct rwsem_waiter *waiter)
{
	struct rwsem_waiter *first = rwsem_first_waiter(sem);
	long count = __atomic_load_n(&sem->count, __ATOMIC_RELAXED), new;

	do {
		bool has_handoff = count & RWSEM_FLAG_HANDOFF;

		if (has_handoff && first->handoff_set && waiter != first)
			return false;
		new = count;
		if (count & RWSEM_LOCK_MASK) {
			if (has_handoff || !time_after(jiffies, waiter->timeout))
				return false;
			new |= RWSEM_FLAG_HANDOFF;
		} else {
			new |= RWSEM_WRITER_LOCKED;
			new &= ~RWSEM_FLAG_HANDOFF;
			if (sem->wait_list.next == sem->wait_list.prev)	/* list_is_singular() */
				new &= ~RWSEM_FLAG_WAITERS;
		}
	} while (!__atomic_compare_exchange_n(&sem->count, &count, new, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	if (new & RWSEM_FLAG_HANDOFF) {
		first->handoff_set = true;
		return false;
	}
	list_del(&waiter->list);
	rwsem_set_owner(sem);
	return true;
}

/* a writer's steal of a free lock (no handoff asked) */
static __always_inline bool rwsem_try_write_lock_unqueued(struct rw_semaphore *sem)
{
	long count = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	while (!(count & (RWSEM_LOCK_MASK | RWSEM_FLAG_HANDOFF))) {
		if (__atomic_compare_exchange_n(&sem->count, &count, count | RWSEM_WRITER_LOCKED, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			rwsem_set_owner(sem);
			return true;
		}
	}
	return false;
}

enum owner_state { OWNER_NULL = 1, OWNER_WRITER = 2, OWNER_READER = 4, OWNER_NONSPINNABLE = 8 };

static __always_inline enum owner_state rwsem_owner_state(unsigned long owner)
{
	if (owner & RWSEM_READER_OWNED)
		return OWNER_READER;
	return owner ? OWNER_WRITER : OWNER_NULL;
}

/* While a writer owns it and runs on a cpu: its owner when that changed, or NONSPINNABLE */
static noinline enum owner_state rwsem_spin_on_owner(struct rw_semaphore *sem)
{
	unsigned long owner = __atomic_load_n(&sem->owner, __ATOMIC_RELAXED);
	enum owner_state state = rwsem_owner_state(owner);

	if (state != OWNER_WRITER)
		return state;
	for (;;) {
		unsigned long new = __atomic_load_n(&sem->owner, __ATOMIC_RELAXED);

		if (new != owner) {
			state = rwsem_owner_state(new);
			break;
		}
		barrier();
		if (need_resched() || !READ_ONCE(((struct task_struct *)owner)->on_cpu)) {
			state = OWNER_NONSPINNABLE;
			break;
		}
		cpu_relax();
	}
	return state;
}

/* a writer spins for the lock while a running writer holds it (6.1's osq-less core) */
static __always_inline bool rwsem_optimistic_spin(struct rw_semaphore *sem)
{
	bool taken = false;

	preempt_disable();
	trace_contention_begin(sem, LCB_F_WRITE | LCB_F_SPIN);
	for (;;) {
		enum owner_state state = rwsem_spin_on_owner(sem);

		if (state != OWNER_NULL && state != OWNER_WRITER)
			break;
		if (rwsem_try_write_lock_unqueued(sem)) {
			taken = true;
			break;
		}
		if (need_resched())
			break;
		cpu_relax();
	}
	preempt_enable();
	if (taken)
		trace_contention_end(sem, 0);
	return taken;
}

/* Wait for the read lock (count: with this reader's bias added); -EINTR for a signal. */
static noinline int __sched rwsem_down_read_slowpath(struct rw_semaphore *sem, long count, unsigned int state)
{
	long adjustment = -RWSEM_READER_BIAS, rcnt = count >> RWSEM_READER_SHIFT;
	struct rwsem_waiter waiter;
	DEFINE_WAKE_Q(wake_q);

	/* steal it, unless readers own it already (then a sleeping waiter would starve) */
	if (((__atomic_load_n(&sem->owner, __ATOMIC_RELAXED) & RWSEM_READER_OWNED) && rcnt > 1 &&
	     !(count & RWSEM_WRITER_LOCKED)) || (count & (RWSEM_WRITER_LOCKED | RWSEM_FLAG_HANDOFF)))
		goto queue;
	rwsem_set_reader_owned(sem);
	if (rcnt == 1 && (count & RWSEM_FLAG_WAITERS)) {	/* the first reader wakes the others */
		raw_spin_lock_irq(&sem->wait_lock);
		if (!list_empty(&sem->wait_list))
			rwsem_mark_wake(sem, RWSEM_WAKE_READ_OWNED, &wake_q);
		raw_spin_unlock_irq(&sem->wait_lock);
		wake_up_q(&wake_q);
	}
	return 0;
queue:
	waiter.task = current;
	waiter.type = RWSEM_WAITING_FOR_READ;
	waiter.timeout = jiffies + RWSEM_WAIT_TIMEOUT;
	waiter.handoff_set = false;
	raw_spin_lock_irq(&sem->wait_lock);
	if (list_empty(&sem->wait_list)) {
		/* nobody queued and no writer: the bias added already holds it */
		if (!(__atomic_load_n(&sem->count, __ATOMIC_ACQUIRE) & RWSEM_WRITER_MASK)) {
			raw_spin_unlock_irq(&sem->wait_lock);
			rwsem_set_reader_owned(sem);
			return 0;
		}
		adjustment += RWSEM_FLAG_WAITERS;
	}
	rwsem_add_waiter(sem, &waiter);
	count = count_add_return(sem, adjustment, __ATOMIC_RELAXED);
	rwsem_cond_wake_waiter(sem, count, &wake_q);
	raw_spin_unlock_irq(&sem->wait_lock);
	wake_up_q(&wake_q);
	trace_contention_begin(sem, LCB_F_READ);
	for (;;) {
		set_current_state(state);
		if (!__atomic_load_n(&waiter.task, __ATOMIC_ACQUIRE))
			break;		/* rwsem_mark_wake() gave it the lock */
		if (signal_pending_state(state, current)) {
			raw_spin_lock_irq(&sem->wait_lock);
			if (waiter.task)
				goto out_nolock;
			raw_spin_unlock_irq(&sem->wait_lock);
			break;
		}
		schedule_preempt_disabled();
	}
	set_current_state(TASK_RUNNING);
	trace_contention_end(sem, 0);
	return 0;
out_nolock:
	rwsem_del_wake_waiter(sem, &waiter, &wake_q);
	set_current_state(TASK_RUNNING);
	trace_contention_end(sem, -EINTR);
	return -EINTR;
}

/* Wait for the write lock; -EINTR for a signal. */
static noinline int __sched rwsem_down_write_slowpath(struct rw_semaphore *sem, unsigned int state)
{
	struct rwsem_waiter waiter;
	DEFINE_WAKE_Q(wake_q);

	if (rwsem_optimistic_spin(sem))
		return 0;
	waiter.task = current;
	waiter.type = RWSEM_WAITING_FOR_WRITE;
	waiter.timeout = jiffies + RWSEM_WAIT_TIMEOUT;
	waiter.handoff_set = false;
	raw_spin_lock_irq(&sem->wait_lock);
	rwsem_add_waiter(sem, &waiter);
	if (rwsem_first_waiter(sem) != &waiter) {
		rwsem_cond_wake_waiter(sem, __atomic_load_n(&sem->count, __ATOMIC_RELAXED), &wake_q);
		if (wake_q.first != WAKE_Q_TAIL) {
			preempt_disable();
			raw_spin_unlock_irq(&sem->wait_lock);
			wake_up_q(&wake_q);
			preempt_enable();
			wake_q_init(&wake_q);
			raw_spin_lock_irq(&sem->wait_lock);
		}
	} else {
		__atomic_or_fetch(&sem->count, RWSEM_FLAG_WAITERS, __ATOMIC_RELAXED);
	}
	trace_contention_begin(sem, LCB_F_WRITE);
	set_current_state(state);
	for (;;) {
		if (rwsem_try_write_lock(sem, &waiter))
			break;
		raw_spin_unlock_irq(&sem->wait_lock);
		if (signal_pending_state(state, current))
			goto out_nolock;
		/* the handoff asked for: spin on a running writer rather than sleep */
		if (!(waiter.handoff_set && rwsem_spin_on_owner(sem) == OWNER_NULL)) {
			schedule();
			set_current_state(state);
		}
		raw_spin_lock_irq(&sem->wait_lock);
	}
	set_current_state(TASK_RUNNING);
	raw_spin_unlock_irq(&sem->wait_lock);
	trace_contention_end(sem, 0);
	return 0;
out_nolock:
	set_current_state(TASK_RUNNING);
	raw_spin_lock_irq(&sem->wait_lock);
	rwsem_del_wake_waiter(sem, &waiter, &wake_q);
	trace_contention_end(sem, -EINTR);
	return -EINTR;
}

/* The first waiter may go: a writer tries, or readers get the lock.  (6.1's is GCC's isra
 * clone, which ftrace lists by that name) */
static void rwsem_wake(struct rw_semaphore *sem) __asm__("rwsem_wake.isra.0");
static noinline void rwsem_wake(struct rw_semaphore *sem)
{
	DEFINE_WAKE_Q(wake_q);
	unsigned long flags;

	preempt_disable();
	raw_spin_lock_irqsave(&sem->wait_lock, flags);
	if (!list_empty(&sem->wait_list))
		rwsem_mark_wake(sem, RWSEM_WAKE_ANY, &wake_q);
	raw_spin_unlock_irqrestore(&sem->wait_lock, flags);
	wake_up_q(&wake_q);
	preempt_enable();
}

static __always_inline void rwsem_downgrade_wake(struct rw_semaphore *sem)
{
	DEFINE_WAKE_Q(wake_q);
	unsigned long flags;

	preempt_disable();
	raw_spin_lock_irqsave(&sem->wait_lock, flags);
	if (!list_empty(&sem->wait_list))
		rwsem_mark_wake(sem, RWSEM_WAKE_READ_OWNED, &wake_q);
	raw_spin_unlock_irqrestore(&sem->wait_lock, flags);
	wake_up_q(&wake_q);
	preempt_enable();
}

static __always_inline int __down_read_common(struct rw_semaphore *sem, unsigned int state)
{
	long count;
	int ret = 0;

	preempt_disable();
	count = count_add_return(sem, RWSEM_READER_BIAS, __ATOMIC_ACQUIRE);
	if (count & RWSEM_READ_FAILED_MASK)
		ret = rwsem_down_read_slowpath(sem, count, state);
	else
		rwsem_set_reader_owned(sem);
	preempt_enable();
	return ret;
}

static __always_inline int __down_write_common(struct rw_semaphore *sem, unsigned int state)
{
	long zero = 0;

	if (__atomic_compare_exchange_n(&sem->count, &zero, RWSEM_WRITER_LOCKED, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		rwsem_set_owner(sem);
		return 0;
	}
	return rwsem_down_write_slowpath(sem, state);
}

void __sched down_read(struct rw_semaphore *sem)
{
	__down_read_common(sem, TASK_UNINTERRUPTIBLE);
}

int __sched down_read_interruptible(struct rw_semaphore *sem)
{
	return __down_read_common(sem, TASK_INTERRUPTIBLE);
}

int __sched down_read_killable(struct rw_semaphore *sem)
{
	return __down_read_common(sem, TASK_KILLABLE);
}

int down_read_trylock(struct rw_semaphore *sem)
{
	long count = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	while (!(count & RWSEM_READ_FAILED_MASK)) {
		if (__atomic_compare_exchange_n(&sem->count, &count, count + RWSEM_READER_BIAS, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			rwsem_set_reader_owned(sem);
			return 1;
		}
	}
	return 0;
}

void up_read(struct rw_semaphore *sem)
{
	long count = count_add_return(sem, -RWSEM_READER_BIAS, __ATOMIC_RELEASE);

	if ((count & (RWSEM_LOCK_MASK | RWSEM_FLAG_WAITERS)) == RWSEM_FLAG_WAITERS)
		rwsem_wake(sem);
}

void __sched down_write(struct rw_semaphore *sem)
{
	__down_write_common(sem, TASK_UNINTERRUPTIBLE);
}

int __sched down_write_killable(struct rw_semaphore *sem)
{
	return __down_write_common(sem, TASK_KILLABLE);
}

int down_write_trylock(struct rw_semaphore *sem)
{
	long zero = 0;

	if (!__atomic_compare_exchange_n(&sem->count, &zero, RWSEM_WRITER_LOCKED, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return 0;
	rwsem_set_owner(sem);
	return 1;
}

void up_write(struct rw_semaphore *sem)
{
	long count;

	rwsem_clear_owner(sem);
	count = __atomic_fetch_add(&sem->count, -RWSEM_WRITER_LOCKED, __ATOMIC_RELEASE);
	if (count & RWSEM_FLAG_WAITERS)
		rwsem_wake(sem);
}

void downgrade_write(struct rw_semaphore *sem)
{
	long count;

	count = __atomic_fetch_add(&sem->count, -RWSEM_WRITER_LOCKED + RWSEM_READER_BIAS, __ATOMIC_RELEASE);
	rwsem_set_reader_owned(sem);
	if (count & RWSEM_FLAG_WAITERS)
		rwsem_downgrade_wake(sem);
}
