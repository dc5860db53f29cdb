/*
 * Mutexes (kernel/locking/mutex.c, without lockdep and ww_mutex): an
 * uncontended lock and unlock are one cmpxchg of the owner word; a contender
 * spins while the owner runs on a cpu (CONFIG_MUTEX_SPIN_ON_OWNER), then
 * queues on wait_list and sleeps until mutex_unlock() wakes the first
 * waiter.  A waiter that wakes and loses the race again asks for a handoff:
 * the next unlock passes the lock to it directly.  An interruptible (killable) waiter
 * gives up with -EINTR when a signal (SIGKILL) is pending.  lock:contention_begin and
 * contention_end bracket every wait, as in Linux 6.1.
 */
#include "../include/kernel.h"
#include "../include/signal.h"
#include "../include/trace/trace.h"

#define MUTEX_FLAG_WAITERS	0x01	/* wait_list is not empty: unlock must wake */
#define MUTEX_FLAG_HANDOFF	0x02	/* the first waiter asks for the lock to be handed to it */
#define MUTEX_FLAG_PICKUP	0x04	/* handed off: the named task may take it */
#define MUTEX_FLAGS		0x07

struct mutex_waiter {
	struct list_head list;
	struct task_struct *task;
};

static __always_inline struct task_struct *__owner_task(unsigned long owner)
{
	return (struct task_struct *)(owner & ~(unsigned long)MUTEX_FLAGS);
}

static __always_inline unsigned long __owner_flags(unsigned long owner)
{
	return owner & MUTEX_FLAGS;
}

static __always_inline struct task_struct *__mutex_owner(struct mutex *lock)
{
	return __owner_task(READ_ONCE(lock->owner));
}

void __mutex_init(struct mutex *lock)
{
	lock->owner = 0;
	lock->wait_lock = (raw_spinlock_t){ { { 0 } } };
	INIT_LIST_HEAD(&lock->wait_list);
}

bool mutex_is_locked(struct mutex *lock)
{
	return __mutex_owner(lock) != NULL;
}

/*
 * Take the lock if it is free (or was handed to us); with handoff, ask the
 * owner to hand it over.  NULL if this task owns it now, else the owner.
 */
static __always_inline struct task_struct *__mutex_trylock_common(struct mutex *lock, bool handoff)
{
	unsigned long owner = READ_ONCE(lock->owner), curr = (unsigned long)current;

	for (;;) {
		unsigned long flags = __owner_flags(owner), task = owner & ~(unsigned long)MUTEX_FLAGS;

		if (task) {
			if (flags & MUTEX_FLAG_PICKUP) {
				if (task != curr)
					break;
				flags &= ~(unsigned long)MUTEX_FLAG_PICKUP;
			} else if (handoff) {
				if (flags & MUTEX_FLAG_HANDOFF)
					break;
				flags |= MUTEX_FLAG_HANDOFF;
			} else {
				break;
			}
		} else {
			task = curr;
		}
		if (__atomic_compare_exchange_n(&lock->owner, &owner, task | flags, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			if (task == curr)
				return NULL;
			break;
		}
	}
	return __owner_task(owner);
}

static __always_inline bool __mutex_trylock(struct mutex *lock)
{
	return !__mutex_trylock_common(lock, false);
}

static __always_inline bool __mutex_trylock_or_handoff(struct mutex *lock, bool handoff)
{
	return !__mutex_trylock_common(lock, handoff);
}

static __always_inline void __mutex_set_flag(struct mutex *lock, unsigned long flag)
{
	__atomic_or_fetch(&lock->owner, flag, __ATOMIC_RELAXED);
}

static __always_inline void __mutex_clear_flag(struct mutex *lock, unsigned long flag)
{
	__atomic_and_fetch(&lock->owner, ~flag, __ATOMIC_RELAXED);
}

static __always_inline bool __mutex_waiter_is_first(struct mutex *lock, struct mutex_waiter *waiter)
{
	return list_first_entry(&lock->wait_list, struct mutex_waiter, list) == waiter;
}

static noinline void __mutex_add_waiter(struct mutex *lock, struct mutex_waiter *waiter, struct list_head *list)
{
	list_add_tail(&waiter->list, list);
	if (__mutex_waiter_is_first(lock, waiter))
		__mutex_set_flag(lock, MUTEX_FLAG_WAITERS);
}

static noinline void __mutex_remove_waiter(struct mutex *lock, struct mutex_waiter *waiter)
{
	list_del_init(&waiter->list);
	if (list_empty(&lock->wait_list))
		__mutex_clear_flag(lock, MUTEX_FLAGS);
}

/* Give the lock to task (which takes it with PICKUP), keeping the waiters flag. */
static void __mutex_handoff(struct mutex *lock, struct task_struct *task)
{
	unsigned long owner = READ_ONCE(lock->owner);

	for (;;) {
		unsigned long new = (owner & MUTEX_FLAG_WAITERS) | (unsigned long)task;

		if (task)
			new |= MUTEX_FLAG_PICKUP;
		if (__atomic_compare_exchange_n(&lock->owner, &owner, new, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED))
			break;
	}
}

/* The owner may let go soon while it runs; stop when it sleeps or we should. */
static noinline bool mutex_spin_on_owner(struct mutex *lock, struct task_struct *owner)
{
	while (__mutex_owner(lock) == owner) {
		barrier();
		if (!READ_ONCE(owner->on_cpu) || need_resched())
			return false;
		cpu_relax();
	}
	return true;
}

static __always_inline bool mutex_can_spin_on_owner(struct mutex *lock)
{
	struct task_struct *owner;

	if (need_resched())
		return false;
	owner = __mutex_owner(lock);
	return !owner || READ_ONCE(owner->on_cpu);
}

/* true: the lock is ours */
static __always_inline bool mutex_optimistic_spin(struct mutex *lock, struct mutex_waiter *waiter)
{
	if (!waiter && !mutex_can_spin_on_owner(lock))
		goto fail;
	for (;;) {
		struct task_struct *owner = __mutex_trylock_common(lock, false);

		if (!owner)
			return true;
		if (!mutex_spin_on_owner(lock, owner))
			goto fail;
		cpu_relax();
	}
fail:
	/* stopped for need_resched: give the cpu away now rather than just after taking the lock */
	if (need_resched()) {
		set_current_state(TASK_RUNNING);
		schedule_preempt_disabled();
	}
	return false;
}

static noinline int __sched __mutex_lock(struct mutex *lock, unsigned int state, unsigned int subclass,
				 void *nest_lock, unsigned long ip)
{
	struct mutex_waiter waiter;
	int ret = 0;

	preempt_disable();
	trace_contention_begin(lock, LCB_F_MUTEX | LCB_F_SPIN);
	if (__mutex_trylock(lock) || mutex_optimistic_spin(lock, NULL)) {
		trace_contention_end(lock, 0);
		preempt_enable();
		return 0;
	}
	raw_spin_lock(&lock->wait_lock);
	if (__mutex_trylock(lock))
		goto skip_wait;
	waiter.task = current;
	__mutex_add_waiter(lock, &waiter, &lock->wait_list);
	set_current_state(state);
	trace_contention_begin(lock, LCB_F_MUTEX);
	for (;;) {
		bool first;

		/* under wait_lock: an unlock that handed the lock over is seen here */
		if (__mutex_trylock(lock))
			goto acquired;
		if (signal_pending_state(state, current)) {
			ret = -EINTR;
			goto err;
		}
		raw_spin_unlock(&lock->wait_lock);
		schedule_preempt_disabled();
		first = __mutex_waiter_is_first(lock, &waiter);
		set_current_state(state);
		if (__mutex_trylock_or_handoff(lock, first))
			break;
		if (first) {
			trace_contention_begin(lock, LCB_F_MUTEX | LCB_F_SPIN);
			if (mutex_optimistic_spin(lock, &waiter))
				break;
			trace_contention_begin(lock, LCB_F_MUTEX);
		}
		raw_spin_lock(&lock->wait_lock);
	}
	raw_spin_lock(&lock->wait_lock);
acquired:
	set_current_state(TASK_RUNNING);
	__mutex_remove_waiter(lock, &waiter);
skip_wait:
	trace_contention_end(lock, 0);
	raw_spin_unlock(&lock->wait_lock);
	preempt_enable();
	return 0;
err:
	set_current_state(TASK_RUNNING);
	__mutex_remove_waiter(lock, &waiter);
	raw_spin_unlock(&lock->wait_lock);
	trace_contention_end(lock, ret);
	preempt_enable();
	return ret;
}

static noinline void __sched __mutex_lock_slowpath(struct mutex *lock)
{
	__mutex_lock(lock, TASK_UNINTERRUPTIBLE, 0, NULL, _RET_IP_);
}

static noinline int __sched __mutex_lock_interruptible_slowpath(struct mutex *lock)
{
	return __mutex_lock(lock, TASK_INTERRUPTIBLE, 0, NULL, _RET_IP_);
}

static noinline int __sched __mutex_lock_killable_slowpath(struct mutex *lock)
{
	return __mutex_lock(lock, TASK_KILLABLE, 0, NULL, _RET_IP_);
}

/* the uncontended lock: the owner word from 0 to current */
static __always_inline bool __mutex_trylock_fast(struct mutex *lock)
{
	unsigned long zero = 0;

	return __atomic_compare_exchange_n(&lock->owner, &zero, (unsigned long)current, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void __sched mutex_lock(struct mutex *lock)
{
	if (!__mutex_trylock_fast(lock))
		__mutex_lock_slowpath(lock);
}

int __sched mutex_lock_interruptible(struct mutex *lock)
{
	if (__mutex_trylock_fast(lock))
		return 0;
	return __mutex_lock_interruptible_slowpath(lock);
}

int __sched mutex_lock_killable(struct mutex *lock)
{
	if (__mutex_trylock_fast(lock))
		return 0;
	return __mutex_lock_killable_slowpath(lock);
}

int __sched mutex_trylock(struct mutex *lock)
{
	return __mutex_trylock(lock);
}

static noinline void __sched __mutex_unlock_slowpath(struct mutex *lock, unsigned long ip)
{
	struct task_struct *next = NULL;
	unsigned long owner = READ_ONCE(lock->owner);
	DEFINE_WAKE_Q(wake_q);

	/* let go at once, unless the first waiter asked for a handoff */
	for (;;) {
		if (owner & MUTEX_FLAG_HANDOFF)
			break;
		if (__atomic_compare_exchange_n(&lock->owner, &owner, __owner_flags(owner), false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
			if (owner & MUTEX_FLAG_WAITERS)
				break;
			return;
		}
	}
	raw_spin_lock(&lock->wait_lock);
	if (!list_empty(&lock->wait_list)) {
		next = list_first_entry(&lock->wait_list, struct mutex_waiter, list)->task;
		wake_q_add(&wake_q, next);
	}
	if (owner & MUTEX_FLAG_HANDOFF)
		__mutex_handoff(lock, next);
	preempt_disable();	/* the woken task stays until woken (wake_q_add()) */
	raw_spin_unlock(&lock->wait_lock);
	wake_up_q(&wake_q);
	preempt_enable();
}

void __sched mutex_unlock(struct mutex *lock)
{
	unsigned long curr = (unsigned long)current;

	if (__atomic_compare_exchange_n(&lock->owner, &curr, 0, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return;
	__mutex_unlock_slowpath(lock, _RET_IP_);
}
