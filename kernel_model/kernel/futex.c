/*
 * Fast user-space locks (kernel/futex/): a task waits on a 32-bit word while it holds the
 * value it expects, and is woken by another's FUTEX_WAKE on the same word.  A private
 * futex is known by its address space and address, a shared one by the page it is on
 * (get_futex_key).  WAIT, WAKE and their _BITSET forms (what glibc's and musl's mutexes,
 * condition variables and pthread_join use); the requeue and PI operations are ENOSYS.
 */
#include "../include/syscalls.h"
#include "../include/signal.h"
#include "../include/session.h"

#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_CMD_MASK		~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)
#define FLAGS_SHARED		0x01
#define FLAGS_CLOCKRT		0x02
#define FUTEX_BITSET_MATCH_ANY	0xffffffff
#define ETIMEDOUT		110

union futex_key {
	struct { u64 word; void *ptr; } both;	/* (mm, address) or (page, offset) */
};

struct futex_q {
	struct list_head list;
	struct task_struct *task;
	union futex_key key;
	u32 bitset;
	bool woken;
};

/* One hash bucket for all: a mutex, so that reading the word may fault */
static DEFINE_MUTEX(futex_lock);
static LIST_HEAD(futex_waiters);

static noinline int get_futex_key(u32 *uaddr, unsigned int flags, union futex_key *key)
{
	u64 address = (u64)uaddr;
	u32 val;

	if (address & 3)
		return -EINVAL;
	if (!access_ok(uaddr, sizeof(u32)) || copy_from_user(&val, uaddr, sizeof(val)))
		return -EFAULT;	/* (and now the page is there) */
	if (!(flags & FLAGS_SHARED)) {
		key->both.word = address;
		key->both.ptr = current->mm;
		return 0;
	}
	key->both.word = (address & (PAGE_SIZE - 1));
	key->both.ptr = user_page(current->mm, address & ~(PAGE_SIZE - 1));
	return key->both.ptr ? 0 : -EFAULT;
}

static inline bool match_futex(union futex_key *a, union futex_key *b)
{
	return a->both.word == b->both.word && a->both.ptr == b->both.ptr;
}

noinline int futex_wake(u32 *uaddr, unsigned int flags, int nr_wake, u32 bitset)
{
	union futex_key key;
	struct futex_q *q, *n;
	int ret = 0;

	if (!bitset)
		return -EINVAL;
	ret = get_futex_key(uaddr, flags, &key);
	if (ret)
		return ret;
	mutex_lock(&futex_lock);
	list_for_each_entry_safe(q, n, &futex_waiters, list) {
		if (!match_futex(&q->key, &key) || !(q->bitset & bitset))
			continue;
		list_del_init(&q->list);
		WRITE_ONCE(q->woken, true);
		wake_up_process(q->task);
		if (++ret >= nr_wake)
			break;
	}
	mutex_unlock(&futex_lock);
	return ret;
}

/* Queued only if the word still holds val, read under the lock the waker takes. */
static noinline int futex_wait_setup(u32 *uaddr, u32 val, unsigned int flags, struct futex_q *q)
{
	u32 uval;
	int ret = get_futex_key(uaddr, flags, &q->key);

	if (ret)
		return ret;
	mutex_lock(&futex_lock);
	if (copy_from_user(&uval, uaddr, sizeof(uval))) {
		mutex_unlock(&futex_lock);
		return -EFAULT;
	}
	if (uval != val) {
		mutex_unlock(&futex_lock);
		return -EAGAIN;
	}
	list_add_tail(&q->list, &futex_waiters);
	set_current_state(TASK_INTERRUPTIBLE);
	mutex_unlock(&futex_lock);
	return 0;
}

static noinline void futex_wait_queue(struct futex_q *q, struct hrtimer_sleeper *timeout)
{
	if (timeout)
		hrtimer_start_range_ns(&timeout->timer, timeout->timer.softexpires,
				       timeout->timer.expires - timeout->timer.softexpires, HRTIMER_MODE_ABS);
	if (!READ_ONCE(q->woken) && (!timeout || timeout->task) && !signal_pending(current) &&
	    !session_host_moved_on(current))	/* a session task: the host's futex returned */
		schedule();
	set_current_state(TASK_RUNNING);
}

noinline int futex_wait(u32 *uaddr, unsigned int flags, u32 val, ktime_t *abs_time, u32 bitset)
{
	struct hrtimer_sleeper timeout;
	struct futex_q q = { .task = current, .bitset = bitset };
	int ret;

	if (!bitset)
		return -EINVAL;
	INIT_LIST_HEAD(&q.list);
	if (abs_time) {
		hrtimer_init_sleeper(&timeout, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
		hrtimer_set_expires_range_ns(&timeout.timer, *abs_time, current->timer_slack_ns);
	}
	ret = futex_wait_setup(uaddr, val, flags, &q);
	if (ret)
		return ret;
	futex_wait_queue(&q, abs_time ? &timeout : NULL);
	if (abs_time)
		hrtimer_cancel(&timeout.timer);
	mutex_lock(&futex_lock);
	if (!list_empty(&q.list))
		list_del_init(&q.list);	/* not woken: a timeout or a signal */
	mutex_unlock(&futex_lock);
	if (READ_ONCE(q.woken))
		return 0;
	if (abs_time && !timeout.task)
		return -ETIMEDOUT;
	return -ERESTARTSYS;
}

noinline long do_futex(u32 *uaddr, int op, u32 val, ktime_t *timeout, u32 *uaddr2, u32 val2, u32 val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	unsigned int flags = 0;

	if (!(op & FUTEX_PRIVATE_FLAG))
		flags |= FLAGS_SHARED;
	if (op & FUTEX_CLOCK_REALTIME) {
		flags |= FLAGS_CLOCKRT;
		if (cmd != FUTEX_WAIT_BITSET)
			return -ENOSYS;
	}
	if (current->session && (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET))
		return 0;	/* a session task waits on the host (session.c waits for its return) */
	switch (cmd) {
	case FUTEX_WAIT:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* fall through */
	case FUTEX_WAIT_BITSET:
		return futex_wait(uaddr, flags, val, timeout, val3);
	case FUTEX_WAKE:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* fall through */
	case FUTEX_WAKE_BITSET:
		return futex_wake(uaddr, flags, val, val3);
	}
	return -ENOSYS;
}

struct __kernel_timespec;
SYSCALL_DEFINE6(futex, u32 *, uaddr, int, op, u32, val, const struct __kernel_timespec *, utime,
		u32 *, uaddr2, u32, val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	ktime_t t, *tp = NULL;

	if (utime && (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET)) {
		struct { s64 tv_sec; long tv_nsec; } ts;

		if (copy_from_user(&ts, utime, sizeof(ts)))
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
			return -EINVAL;
		t = (u64)ts.tv_sec * 1000000000UL + ts.tv_nsec;
		if (cmd == FUTEX_WAIT)	/* relative; WAIT_BITSET's is absolute (the clocks start at boot here) */
			t += ktime_get();
		tp = &t;
	}
	return do_futex(uaddr, op, val, tp, uaddr2, (unsigned long)utime, val3);
}
