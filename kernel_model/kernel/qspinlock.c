/*
 * The contended case of a queued spinlock (kernel/locking/qspinlock.c,
 * native, without paravirt): the lock word holds the owner's locked byte, a
 * pending bit for the first waiter, and the tail of an MCS queue of per-cpu
 * nodes for the others.  The first waiter spins on the owner alone; a later
 * one queues, and only that is contention to the tracepoint (as in Linux, a
 * lock between two CPUs never reaches lock:contention_begin: it takes three).
 */
#include "../include/kernel.h"
#include "../include/trace/trace.h"

#define MAX_NODES 4		/* one per context: task, softirq, hardirq, nmi */
#define _Q_PENDING_LOOPS 1

struct mcs_spinlock {
	struct mcs_spinlock *next;
	int locked;		/* set by the predecessor: this node heads the queue */
	int count;		/* nesting depth, in the cpu's first node only */
};

static struct mcs_spinlock qnodes[NR_CPUS][MAX_NODES] __aligned(64);

static __always_inline u32 encode_tail(int cpu, int idx)
{
	return (u32)(cpu + 1) << _Q_TAIL_CPU_OFFSET | (u32)idx << _Q_TAIL_IDX_OFFSET;
}

static __always_inline struct mcs_spinlock *decode_tail(u32 tail)
{
	int cpu = (tail >> _Q_TAIL_CPU_OFFSET) - 1;
	int idx = (tail >> _Q_TAIL_IDX_OFFSET) & 3;

	return &qnodes[cpu][idx];
}

/* The tail becomes ours; the previous tail (locked and pending bits kept). */
static __always_inline u32 xchg_tail(struct qspinlock *lock, u32 tail)
{
	return (u32)__atomic_exchange_n(&lock->tail, (u16)(tail >> _Q_TAIL_IDX_OFFSET), __ATOMIC_RELAXED)
		<< _Q_TAIL_IDX_OFFSET;
}

static __always_inline void clear_pending(struct qspinlock *lock)
{
	WRITE_ONCE(lock->pending, 0);
}

/* pending -> locked in one store: the owner is gone and nobody else may take it */
static __always_inline void clear_pending_set_locked(struct qspinlock *lock)
{
	WRITE_ONCE(lock->locked_pending, _Q_LOCKED_VAL);
}

static __always_inline void set_locked(struct qspinlock *lock)
{
	WRITE_ONCE(lock->locked, _Q_LOCKED_VAL);
}

void native_queued_spin_lock_slowpath(struct qspinlock *lock, u32 val)
{
	struct mcs_spinlock *node, *next;
	int cpu = smp_processor_id(), idx, loops;
	u32 tail, old;

	/* a pending waiter being handed the lock right now: give it a moment */
	for (loops = _Q_PENDING_LOOPS; val == _Q_PENDING_VAL && loops; loops--) {
		cpu_relax();
		val = READ_ONCE(lock->val);
	}
	if (val & ~_Q_LOCKED_MASK)
		goto queue;
	/* trylock or become the pending waiter */
	val = __atomic_fetch_or(&lock->val, _Q_PENDING_VAL, __ATOMIC_ACQUIRE);
	if (val & ~_Q_LOCKED_MASK) {
		/* someone got there first; undo the pending bit if it was ours */
		if (!(val & _Q_PENDING_MASK))
			clear_pending(lock);
		goto queue;
	}
	while (READ_ONCE(lock->locked))
		cpu_relax();
	clear_pending_set_locked(lock);
	return;

queue:
	node = &qnodes[cpu][0];
	idx = node->count++;
	tail = encode_tail(cpu, idx);
	trace_contention_begin(lock, LCB_F_SPIN);
	if (unlikely(idx >= MAX_NODES)) {
		/* nested deeper than the nodes go: spin on the lock word */
		while (!queued_spin_trylock(lock))
			cpu_relax();
		goto release;
	}
	node += idx;
	node->locked = 0;
	node->next = NULL;
	if (queued_spin_trylock(lock))
		goto release;
	old = xchg_tail(lock, tail);
	next = NULL;
	if (old & _Q_TAIL_MASK) {
		WRITE_ONCE(decode_tail(old)->next, node);
		while (!READ_ONCE(node->locked))
			cpu_relax();
		next = READ_ONCE(node->next);
	}
	/* head of the queue: wait for the owner and the pending waiter to go */
	while ((val = READ_ONCE(lock->val)) & _Q_LOCKED_PENDING_MASK)
		cpu_relax();
	/* the last in the queue takes the lock and empties the tail in one go */
	if ((val & _Q_TAIL_MASK) == tail &&
	    __atomic_compare_exchange_n(&lock->val, &val, _Q_LOCKED_VAL, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		goto release;
	set_locked(lock);
	while (!(next = READ_ONCE(node->next)))
		cpu_relax();
	WRITE_ONCE(next->locked, 1);
release:
	trace_contention_end(lock, 0);
	qnodes[cpu][0].count--;
}
