/*
 * Fast user-space locks (kernel/futex/): a task waits on a 32-bit word while it holds the
 * value it expects, and is woken by another's FUTEX_WAKE on the same word.  A private
 * futex is known by its address space and address, a shared one on memory processes share by
 * the page it is on, one on a process's own memory by its address space and address again
 * (get_futex_key).  WAIT, WAKE and their _BITSET forms (what glibc's and musl's mutexes,
 * condition variables and pthread_join use), and futex_waitv(2); the requeue and PI operations
 * are ENOSYS.
 */
#include "../include/syscalls.h"
#include "../include/pid.h"
#include "../include/signal.h"
#include "../include/session.h"
#include "../include/jhash.h"
#include "../include/ptrace.h"

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

struct futex_hash_bucket;

struct futex_q {
	struct list_head list;
	struct task_struct *task;
	struct futex_hash_bucket *lock_ptr;	/* its bucket while queued (6.1: the bucket's lock) */
	union futex_key key;
	u32 bitset;
	bool woken;
};

/* The waiters hashed by key (6.1's futex_queues: 256 buckets per cpu; 64 here), each under a
 * mutex, so that reading the word under it may fault */
#define FUTEX_HASH_SIZE 64
struct futex_hash_bucket {
	struct mutex lock;
	struct list_head chain;
};
static struct futex_hash_bucket futex_queues[FUTEX_HASH_SIZE];

/* The bucket of a key */
static noinline struct futex_hash_bucket *futex_hash(union futex_key *key)
{
	u32 hash = jhash(key, sizeof(*key), 0);

	return &futex_queues[hash & (FUTEX_HASH_SIZE - 1)];
}

void __init futex_init(void)
{
	unsigned int i;

	for (i = 0; i < FUTEX_HASH_SIZE; i++) {
		mutex_init(&futex_queues[i].lock);
		INIT_LIST_HEAD(&futex_queues[i].chain);
	}
}

/* The queue's bucket locked for a waiter */
static noinline struct futex_hash_bucket *futex_q_lock(struct futex_q *q)
{
	struct futex_hash_bucket *hb = futex_hash(&q->key);

	q->lock_ptr = hb;
	mutex_lock(&hb->lock);
	return hb;
}

static noinline void futex_q_unlock(struct futex_hash_bucket *hb)
{
	mutex_unlock(&hb->lock);
}

/* the word, read with the bucket locked (it may fault here: the bucket's lock is a mutex) */
static noinline int futex_get_value_locked(u32 *dest, u32 *from)
{
	return copy_from_user(dest, from, sizeof(*dest)) ? -EFAULT : 0;
}

static noinline void __futex_queue(struct futex_q *q, struct futex_hash_bucket *hb)
{
	list_add_tail(&q->list, &hb->chain);
	q->task = current;
}

/* the waiter off its bucket's chain (the bucket locked) */
static noinline void __futex_unqueue(struct futex_q *q)
{
	list_del_init(&q->list);
}

/* a waiter still queued (not woken: a timeout or a signal) taken off: 1, else 0 */
static noinline int futex_unqueue(struct futex_q *q)
{
	struct futex_hash_bucket *hb = q->lock_ptr;
	int ret = 0;

	if (hb) {
		mutex_lock(&hb->lock);
		if (!list_empty(&q->list)) {
			__futex_unqueue(q);
			ret = 1;
		}
		mutex_unlock(&hb->lock);
	}
	return ret;
}

/* a waiter the wake takes: off the chain, woken (6.1 wakes it after the bucket's unlock) */
static noinline void futex_wake_mark(struct futex_q *q)
{
	struct task_struct *p = q->task;

	__futex_unqueue(q);
	WRITE_ONCE(q->woken, true);
	wake_up_process(p);
}

/* the sleeper of a timed wait, NULL for none */
static noinline struct hrtimer_sleeper *futex_setup_timer(ktime_t *time, struct hrtimer_sleeper *timeout,
							  int flags, u64 range_ns)
{
	if (!time)
		return NULL;
	hrtimer_init_sleeper(timeout, (flags & FLAGS_CLOCKRT) ? CLOCK_REALTIME : CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	hrtimer_set_expires_range_ns(&timeout->timer, *time, range_ns);
	return timeout;
}

#define FUT_OFF_MMSHARED	1	/* (a bit the word's alignment leaves free) */

static noinline int get_futex_key(u32 *uaddr, unsigned int flags, union futex_key *key)
{
	u64 address = (u64)uaddr;
	struct vm_area_struct *vma;
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
	vma = find_vma(current->mm, address);
	if (vma && vma->vm_start <= address && !(vma->vm_flags & VM_SHARED)) {
		/* an anonymous page (6.1's PageAnon: FUT_OFF_MMSHARED): the address space's, whose
		 * page a fork's copy-on-write may replace between a wait and its wake */
		key->both.word = address | FUT_OFF_MMSHARED;
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
	struct futex_hash_bucket *hb;
	union futex_key key;
	struct futex_q *q, *n;
	int ret = 0;

	if (!bitset)
		return -EINVAL;
	ret = get_futex_key(uaddr, flags, &key);
	if (ret)
		return ret;
	hb = futex_hash(&key);
	mutex_lock(&hb->lock);
	list_for_each_entry_safe(q, n, &hb->chain, list) {
		if (!match_futex(&q->key, &key) || !(q->bitset & bitset))
			continue;
		futex_wake_mark(q);
		if (++ret >= nr_wake)
			break;
	}
	mutex_unlock(&hb->lock);
	return ret;
}

/* Queued only if the word still holds val, read under the lock the waker takes. */
static noinline int futex_wait_setup(u32 *uaddr, u32 val, unsigned int flags, struct futex_q *q,
				     struct futex_hash_bucket **hb)
{
	u32 uval;
	int ret = get_futex_key(uaddr, flags, &q->key);

	if (ret)
		return ret;
	*hb = futex_q_lock(q);
	ret = futex_get_value_locked(&uval, uaddr);
	if (ret) {
		futex_q_unlock(*hb);
		return ret;
	}
	if (uval != val) {
		futex_q_unlock(*hb);
		return -EAGAIN;
	}
	return 0;
}

static noinline void futex_wait_queue(struct futex_hash_bucket *hb, struct futex_q *q,
				      struct hrtimer_sleeper *timeout)
{
	/* futex_queue(): queued, the state set before the bucket is unlocked (a wake then finds it) */
	set_current_state(TASK_INTERRUPTIBLE);
	__futex_queue(q, hb);
	futex_q_unlock(hb);
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
	struct hrtimer_sleeper timeout, *to;
	struct futex_q q = { .task = current, .bitset = bitset };
	struct futex_hash_bucket *hb;
	int ret;

	if (!bitset)
		return -EINVAL;
	/* (the model's clocks start at boot: a CLOCK_REALTIME time is on the monotonic clock) */
	to = futex_setup_timer(abs_time, &timeout, flags & ~FLAGS_CLOCKRT, current->timer_slack_ns);
retry:
	INIT_LIST_HEAD(&q.list);
	ret = futex_wait_setup(uaddr, val, flags, &q, &hb);
	if (ret)
		goto out;
	futex_wait_queue(hb, &q, to);
	futex_unqueue(&q);	/* not woken: a timeout, a signal, or a wake-up for something else */
	ret = 0;
	if (READ_ONCE(q.woken))
		goto out;
	ret = -ETIMEDOUT;
	if (to && !to->task)
		goto out;
	/* a spurious wake-up (a parent woken by a child's end, say) waits again, as 6.1's */
	if (!signal_pending(current) && !session_host_moved_on(current))
		goto retry;
	ret = -ERESTARTSYS;
out:
	if (to)
		hrtimer_cancel(&to->timer);
	return ret;
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

SYSCALL_DEFINE6(futex, u32 *, uaddr, int, op, u32, val, const struct __kernel_timespec *, utime,
		u32 *, uaddr2, u32, val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	ktime_t t, *tp = NULL;

	if (utime && (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET)) {
		struct timespec64 ts;

		if (get_timespec64(&ts, utime))
			return -EFAULT;
		if (!timespec64_valid(&ts))	/* futex_init_timeout() */
			return -EINVAL;
		t = timespec64_to_ns(&ts);
		if (cmd == FUTEX_WAIT)	/* relative; WAIT_BITSET's is absolute (the clocks start at boot here) */
			t += ktime_get();
		tp = &t;
	}
	return do_futex(uaddr, op, val, tp, uaddr2, (unsigned long)utime, val3);
}

/* ---- futex_waitv(2) (kernel/futex/syscalls.c, waitwake.c): a wait on several words at once,
 * ended by a wake of any of them (its index returned), the timeout or a signal ---- */
#define FUTEX_32		2
#define FUTEX_WAITV_MAX		128
#define FUTEXV_WAITER_MASK	(FUTEX_32 | FUTEX_PRIVATE_FLAG)

struct futex_waitv {
	u64 val;
	u64 uaddr;
	u32 flags;
	u32 __reserved;
};

struct futex_vector {
	struct futex_waitv w;
	struct futex_q q;
};

/* every waiter off its bucket: the index of the last one a wake took, or -1 */
static int unqueue_multiple(struct futex_vector *v, int count)
{
	int ret = -1, i;

	for (i = 0; i < count; i++)
		if (!futex_unqueue(&v[i].q))
			ret = i;
	return ret;
}

/* All queued, each while its word holds its value: 0; 1 when one was woken meanwhile (*woken);
 * or -EFAULT, -EINVAL, -EAGAIN (a word changed).  The keys first: getting one may fault, which
 * the task must not do once it is queued and TASK_INTERRUPTIBLE.  (6.1 reads the words with
 * page faults off and retries after faulting one in; here the read faults in place, so an
 * -EFAULT there is a word that cannot be read.) */
static int futex_wait_multiple_setup(struct futex_vector *vs, int count, int *woken)
{
	struct futex_hash_bucket *hb;
	int ret, i;
	u32 uval;

	for (i = 0; i < count; i++) {
		ret = get_futex_key((u32 *)vs[i].w.uaddr, vs[i].w.flags & FUTEX_PRIVATE_FLAG ? 0 : FLAGS_SHARED,
				    &vs[i].q.key);
		if (unlikely(ret))
			return ret;
	}
	set_current_state(TASK_INTERRUPTIBLE);
	for (i = 0; i < count; i++) {
		u32 *uaddr = (u32 *)vs[i].w.uaddr;
		struct futex_q *q = &vs[i].q;

		hb = futex_q_lock(q);
		ret = futex_get_value_locked(&uval, uaddr);
		if (!ret && uval == (u32)vs[i].w.val) {
			__futex_queue(q, hb);	/* futex_queue(): queued, then the bucket unlocked */
			futex_q_unlock(hb);
			continue;
		}
		futex_q_unlock(hb);
		set_current_state(TASK_RUNNING);
		*woken = unqueue_multiple(vs, i);	/* a wake that came first wins over the error */
		if (*woken >= 0)
			return 1;
		return ret ? ret : -EAGAIN;
	}
	return 0;
}

/* asleep unless the timeout passed or a wake came (a bucket lock the setup slept on may have
 * left the task running: it then goes round again) */
static void futex_sleep_multiple(struct futex_vector *vs, unsigned int count, struct hrtimer_sleeper *to)
{
	if (to && !to->task)
		return;
	for (; count; count--, vs++)
		if (READ_ONCE(vs->q.woken))
			return;
	if (!signal_pending(current))
		schedule();
}

/* The index of a woken futex, -ETIMEDOUT, -ERESTARTSYS or the setup's error.  A session task
 * waits on the host (session.c waits for its return), as its FUTEX_WAIT does. */
noinline int futex_wait_multiple(struct futex_vector *vs, unsigned int count, struct hrtimer_sleeper *to)
{
	int ret, hint = 0;

	if (current->session)
		return 0;
	if (to)
		hrtimer_start_range_ns(&to->timer, to->timer.softexpires, 0, HRTIMER_MODE_ABS);
	while (1) {
		ret = futex_wait_multiple_setup(vs, count, &hint);
		if (ret)
			return ret > 0 ? hint : ret;
		futex_sleep_multiple(vs, count, to);
		set_current_state(TASK_RUNNING);
		ret = unqueue_multiple(vs, count);
		if (ret >= 0)
			return ret;
		if (to && !to->task)
			return -ETIMEDOUT;
		if (signal_pending(current))
			return -ERESTARTSYS;
		/* a spurious wake-up: again */
	}
}

static int futex_parse_waitv(struct futex_vector *futexv, struct futex_waitv *uwaitv, unsigned int nr_futexes)
{
	struct futex_waitv aux;
	unsigned int i;

	for (i = 0; i < nr_futexes; i++) {
		if (copy_from_user(&aux, &uwaitv[i], sizeof(aux)))
			return -EFAULT;
		if ((aux.flags & ~FUTEXV_WAITER_MASK) || aux.__reserved)
			return -EINVAL;
		if (!(aux.flags & FUTEX_32))
			return -EINVAL;
		futexv[i].w = aux;
		futexv[i].q = (struct futex_q){ .task = current, .bitset = FUTEX_BITSET_MATCH_ANY };
		INIT_LIST_HEAD(&futexv[i].q.list);
	}
	return 0;
}

/* flags: none yet; timeout: absolute, on clockid (realtime or monotonic) */
SYSCALL_DEFINE5(futex_waitv, struct futex_waitv *, waiters, unsigned int, nr_futexes, unsigned int, flags,
		struct __kernel_timespec *, timeout, clockid_t, clockid)
{
	struct hrtimer_sleeper to;
	struct futex_vector *futexv;
	struct timespec64 ts;
	ktime_t time;
	int ret;

	if (flags)
		return -EINVAL;
	if (!nr_futexes || nr_futexes > FUTEX_WAITV_MAX || !waiters)
		return -EINVAL;
	if (timeout) {
		if (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC)
			return -EINVAL;
		if (get_timespec64(&ts, timeout))
			return -EFAULT;
		if (!timespec64_valid(&ts))	/* futex_init_timeout() */
			return -EINVAL;
		/* (the model's clocks start at boot: a CLOCK_REALTIME time is on the monotonic clock) */
		time = timespec64_to_ns(&ts);
		futex_setup_timer(&time, &to, 0, 0);
	}
	futexv = kzalloc(nr_futexes * sizeof(*futexv), GFP_KERNEL);	/* kcalloc: at most 128 */
	if (!futexv) {
		ret = -ENOMEM;
		goto destroy_timer;
	}
	ret = futex_parse_waitv(futexv, waiters, nr_futexes);
	if (!ret)
		ret = futex_wait_multiple(futexv, nr_futexes, timeout ? &to : NULL);
	kfree(futexv);
destroy_timer:
	if (timeout)
		hrtimer_cancel(&to.timer);
	return ret;
}

/* ---- robust futexes (kernel/futex/core.c, syscalls.c): the locks a dying thread held ---- */
#define FUTEX_WAITERS		0x80000000
#define FUTEX_OWNER_DIED	0x40000000
#define FUTEX_TID_MASK		0x3fffffff
#define ROBUST_LIST_LIMIT	2048

struct robust_list { struct robust_list *next; };
struct robust_list_head {
	struct robust_list list;
	long futex_offset;
	struct robust_list *list_op_pending;
};

/* arch/x86/include/asm/futex.h: a locked cmpxchg on the user's word; a fault the page fault
 * handler cannot resolve lands on the fixup (-EFAULT) */
static inline int futex_atomic_cmpxchg_inatomic(u32 *uval, u32 *uaddr, u32 oldval, u32 newval)
{
	int ret = 0;

	if (!access_ok(uaddr, sizeof(u32)))
		return -EFAULT;
	asm volatile("1:\tlock cmpxchgl %3, %2\n"
		     "2:\n"
		     "\t.pushsection .text.unlikely, \"ax\"\n"
		     "3:\tmovl %4, %0\n"
		     "\tjmp 2b\n"
		     "\t.popsection\n"
		     "\t.pushsection __ex_table, \"a\"\n"
		     "\t.balign 8\n"
		     "\t.quad 1b, 3b\n"
		     "\t.popsection\n"
		     : "+r"(ret), "+a"(oldval), "+m"(*uaddr)
		     : "r"(newval), "i"(-EFAULT)
		     : "memory");
	*uval = oldval;
	return ret;
}

/* The cmpxchg of a futex word (6.1 disables page faults around it, its callers holding a
 * spinlock, and faults the page in after an -EFAULT; no lock here forbids the fault: the
 * handler resolves it in place, and -EFAULT is a word that cannot be written) */
static noinline int futex_cmpxchg_value_locked(u32 *curval, u32 *uaddr, u32 uval, u32 newval)
{
	return futex_atomic_cmpxchg_inatomic(curval, uaddr, uval, newval);
}

/* The dying thread owned the lock: OWNER_DIED for the next owner, a waiter woken to take it;
 * or (pending_op) it was between taking and listing one: a waiter that may have been woken
 * for it is woken again. */
static int handle_futex_death(u32 *uaddr, struct task_struct *curr, bool pi, bool pending_op)
{
	u32 uval, nval, mval;
	int err;

	if ((unsigned long)uaddr % sizeof(*uaddr))
		return -1;
retry:
	if (copy_from_user(&uval, uaddr, sizeof(uval)))
		return -1;
	if ((uval & FUTEX_TID_MASK) != (u32)curr->pid) {
		if (pending_op && !pi && (!(uval & FUTEX_TID_MASK) || !(uval & FUTEX_WAITERS)))
			futex_wake(uaddr, FLAGS_SHARED, 1, FUTEX_BITSET_MATCH_ANY);
		return 0;
	}
	mval = (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
	err = futex_cmpxchg_value_locked(&nval, uaddr, uval, mval);
	if (err)
		return -1;
	if (nval != uval)
		goto retry;
	if (!pi && (uval & FUTEX_WAITERS))
		futex_wake(uaddr, FLAGS_SHARED, 1, FUTEX_BITSET_MATCH_ANY);
	return 0;
}

/* a robust-list pointer; bit 0 says a PI futex */
static inline int fetch_robust_entry(struct robust_list **entry, struct robust_list **head, unsigned int *pi)
{
	unsigned long uentry;

	if (copy_from_user(&uentry, head, sizeof(uentry)))
		return -EFAULT;
	*entry = (void *)(uentry & ~1UL);
	*pi = uentry & 1;
	return 0;
}

/* Walk the user's list (carefully: any fault or loop ends the walk) and mark its locks dead. */
static void exit_robust_list(struct task_struct *curr)
{
	struct robust_list_head *head = curr->robust_list;
	struct robust_list *entry, *next_entry = NULL, *pending;
	unsigned int limit = ROBUST_LIST_LIMIT, pi, pip, next_pi;
	long futex_offset;
	int rc;

	if (fetch_robust_entry(&entry, &head->list.next, &pi))
		return;
	if (copy_from_user(&futex_offset, &head->futex_offset, sizeof(futex_offset)))
		return;
	if (fetch_robust_entry(&pending, &head->list_op_pending, &pip))
		return;
	while (entry != &head->list) {
		rc = fetch_robust_entry(&next_entry, &entry->next, &next_pi);
		if (entry != pending &&
		    handle_futex_death((u32 *)((char *)entry + futex_offset), curr, pi, false))
			return;
		if (rc)
			return;
		entry = next_entry;
		pi = next_pi;
		if (!--limit)
			break;
	}
	if (pending)
		handle_futex_death((u32 *)((char *)pending + futex_offset), curr, pip, true);
}

/* The robust locks the task held are marked dead (no PI futexes here).  A session task's
 * locks are the host's business (its kernel did this). */
static noinline void futex_cleanup(struct task_struct *tsk)
{
	if (unlikely(tsk->robust_list)) {
		if (!tsk->session && tsk->mm)
			exit_robust_list(tsk);
		tsk->robust_list = NULL;
	}
}

/* At exec and at exit, while the task still has its address space (the futex state it
 * leaves in, OK or DEAD, is for PI waiters: none here) */
noinline void futex_exec_release(struct task_struct *tsk)
{
	futex_cleanup(tsk);
}

noinline void futex_exit_release(struct task_struct *tsk)
{
	futex_cleanup(tsk);
}

SYSCALL_DEFINE2(set_robust_list, struct robust_list_head *, head, size_t, len)
{
	if (unlikely(len != sizeof(*head)))
		return -EINVAL;
	current->robust_list = head;
	return 0;
}

SYSCALL_DEFINE3(get_robust_list, int, pid, struct robust_list_head * *, head_ptr, size_t *, len_ptr)
{
	struct task_struct *p = current;
	struct robust_list_head *head;
	size_t len = sizeof(*head);
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);
	if (pid) {
		p = find_task_by_vpid(pid);
		if (!p) {
			spin_unlock_irqrestore(&sched_lock, flags);
			return -ESRCH;
		}
	}
	if (!ptrace_may_access(p, PTRACE_MODE_READ_REALCREDS)) {
		spin_unlock_irqrestore(&sched_lock, flags);
		return -EPERM;
	}
	head = p->robust_list;
	spin_unlock_irqrestore(&sched_lock, flags);
	if (copy_to_user(len_ptr, &len, sizeof(len)))
		return -EFAULT;
	return copy_to_user(head_ptr, &head, sizeof(head)) ? -EFAULT : 0;
}
