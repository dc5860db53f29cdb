/*
 * Per-user counts (kernel/ucount.c): here the signals each user has queued, which
 * __sigqueue_alloc() holds to RLIMIT_SIGPENDING, and the bytes of the POSIX message queues it
 * made, which mqueue_get_inode() holds to RLIMIT_MSGQUEUE.  One user namespace, so a user's ucounts is
 * its uid's; the table is small (the machine has few users), an entry freed when its count
 * drops to zero.
 */
#include "../include/kernel.h"
#include "../include/signal.h"

#define UCOUNTS_MAX	64

struct ucounts {
	uid_t uid;
	long count;			/* get_ucounts() references: one per queued signal, per queue */
	long rlimit[UCOUNT_RLIMIT_COUNTS];	/* per enum ucount_type */
};

static struct ucounts ucounts_table[UCOUNTS_MAX];
static spinlock_t ucounts_lock;

/* alloc_ucounts(): the uid's entry, made on first use; NULL when the table is full */
notrace struct ucounts *get_ucounts_uid(uid_t uid)
{
	struct ucounts *u, *free = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ucounts_lock, flags);
	for (u = ucounts_table; u < ucounts_table + UCOUNTS_MAX; u++) {
		if (u->count && u->uid == uid)
			break;
		if (!u->count && !free)
			free = u;
	}
	if (u == ucounts_table + UCOUNTS_MAX) {
		u = free;
		if (u)
			*u = (struct ucounts){ .uid = uid };
	}
	if (u)
		u->count++;
	spin_unlock_irqrestore(&ucounts_lock, flags);
	return u;
}

noinline void put_ucounts(struct ucounts *u)
{
	unsigned long flags;

	spin_lock_irqsave(&ucounts_lock, flags);
	u->count--;
	spin_unlock_irqrestore(&ucounts_lock, flags);
}

/* The count after this one (the limit is the caller's to check: the initial namespace has
 * none of its own); the reference get_ucounts_uid() took is the count's. */
noinline long inc_rlimit_get_ucounts(struct ucounts *ucounts, enum ucount_type type, bool override_rlimit)
{
	return __atomic_add_fetch(&ucounts->rlimit[type], 1, __ATOMIC_RELAXED);
}

noinline void dec_rlimit_put_ucounts(struct ucounts *ucounts, enum ucount_type type)
{
	__atomic_sub_fetch(&ucounts->rlimit[type], 1, __ATOMIC_RELAXED);
	put_ucounts(ucounts);
}

/* the count after adding v, which the caller holds to its rlimit (the reference is its own) */
noinline long inc_rlimit_ucounts(struct ucounts *ucounts, enum ucount_type type, long v)
{
	return __atomic_add_fetch(&ucounts->rlimit[type], v, __ATOMIC_RELAXED);
}

/* whether the count is still positive after taking v off */
noinline bool dec_rlimit_ucounts(struct ucounts *ucounts, enum ucount_type type, long v)
{
	return __atomic_sub_fetch(&ucounts->rlimit[type], v, __ATOMIC_RELAXED) > 0;
}

/* /proc/PID/status's SigQ: the signals the task's user has queued */
notrace long ucounts_sigpending(uid_t uid)
{
	struct ucounts *u;

	for (u = ucounts_table; u < ucounts_table + UCOUNTS_MAX; u++)
		if (READ_ONCE(u->count) && u->uid == uid)
			return READ_ONCE(u->rlimit[UCOUNT_RLIMIT_SIGPENDING]);
	return 0;
}
