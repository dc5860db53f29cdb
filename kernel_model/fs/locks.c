/*
 * File locks (Linux 6.1's fs/locks.c): flock(2)'s whole-file locks, shared or exclusive, held
 * by an open file (all its descriptors, in any process) until unlocked or its last close; and
 * fcntl(2)'s record locks over byte ranges: POSIX locks, owned by the process's file table
 * (released when it closes any fd of the file), and OFD locks, owned by the open file (released
 * at its last close).  An inode's locks are in its lock context (i_flctx, made at its first
 * lock, freed with the inode), POSIX and OFD ones in one list by owner, then start: an owner's
 * locks never overlap (a new one merges with, splits or replaces its own).  A request that
 * conflicts waits, unless non-blocking (EWOULDBLOCK/EAGAIN), blocked under the lock in its way
 * and woken when that one goes; a POSIX one that would close a cycle of waiting processes is
 * refused (EDEADLK).  And leases (fcntl F_SETLEASE): an open file's promise that no other open
 * for writing (a read lease) or at all (a write lease) happens unnoticed: such an open or a
 * truncate breaks it, signalling the holder (SIGIO, or F_SETSIG's signal) and waiting until it
 * downgrades or gives the lease up, or lease_break_time seconds pass.
 */
#include "../include/filelock.h"
#include "../include/trace/trace.h"
#include "../include/slab.h"
#include "../include/wait.h"
#include "../include/security.h"
#include "../include/syscalls.h"
#include "../include/kdev_t.h"
#include "../include/timer.h"
#include "../include/signal.h"
#include "../include/cred.h"

#define LOCK_SH		1	/* shared lock */
#define LOCK_EX		2	/* exclusive lock */
#define LOCK_NB		4	/* or'd with one of the above to prevent blocking */
#define LOCK_UN		8	/* remove lock */
#define LOCK_MAND	32	/* (removed in 5.15: ignored) */

static spinlock_t blocked_lock_lock;	/* every fl_blocker, fl_blocked_requests and blocked_posix */
/* the POSIX requests blocked on a POSIX lock (6.1's blocked_hash): what deadlock detection
 * follows from a lock's owner to the lock it waits for */
static LIST_HEAD(blocked_posix);
/* every granted lock, on the list of the cpu that took it, newest first (6.1's per-cpu
 * file_lock_list), for /proc/locks; file_rwsem: its writers are the lists' readers */
static struct list_head file_lock_list[NR_CPUS];
static spinlock_t file_rwsem;
static struct kmem_cache *flctx_cache;
static struct kmem_cache *filelock_cache;
static int leases_enable = 1;		/* (6.1's sysctl fs.leases-enable: no /proc/sys here) */
static int lease_break_time = 45;	/* seconds (fs.lease-break-time) */

static __always_inline bool lease_breaking(struct file_lock *fl)
{
	return fl->fl_flags & (FL_UNLOCK_PENDING | FL_DOWNGRADE_PENDING);
}

/* What a lease is, or will be once its pending break is done */
static __always_inline int target_leasetype(struct file_lock *fl)
{
	if (fl->fl_flags & FL_UNLOCK_PENDING)
		return F_UNLCK;
	if (fl->fl_flags & FL_DOWNGRADE_PENDING)
		return F_RDLCK;
	return fl->fl_type;
}

static __always_inline struct file_lock_context *locks_inode_context(const struct inode *inode)
{
	return READ_ONCE(inode->i_flctx);
}

/* The inode's lock context, made at its first lock (an unlock makes none) */
static noinline struct file_lock_context *locks_get_lock_context(struct inode *inode, int type)
{
	struct file_lock_context *ctx = locks_inode_context(inode);

	if (likely(ctx) || type == F_UNLCK)
		goto out;
	ctx = kmem_cache_alloc(flctx_cache, GFP_KERNEL);
	if (!ctx)
		goto out;
	memset(&ctx->flc_lock, 0, sizeof(ctx->flc_lock));
	INIT_LIST_HEAD(&ctx->flc_flock);
	INIT_LIST_HEAD(&ctx->flc_posix);
	INIT_LIST_HEAD(&ctx->flc_lease);
	/* another task's context made meanwhile is the one */
	if (!__sync_bool_compare_and_swap(&inode->i_flctx, NULL, ctx)) {
		kmem_cache_free(flctx_cache, ctx);
		ctx = locks_inode_context(inode);
	}
out:
	trace_locks_get_lock_context(inode, type, ctx);
	return ctx;
}

/* The lock context of an inode that goes (__destroy_inode): no lock is left in it */
noinline void locks_free_lock_context(struct inode *inode)
{
	struct file_lock_context *ctx = locks_inode_context(inode);

	if (unlikely(ctx)) {
		if (!list_empty(&ctx->flc_flock) || !list_empty(&ctx->flc_posix) || !list_empty(&ctx->flc_lease))
			printk(KERN_WARNING "Leaked locks on dev=0x%x:0x%x ino=0x%lx:\n",
			       MAJOR(inode->i_sb->s_dev), MINOR(inode->i_sb->s_dev), inode->i_ino);
		kmem_cache_free(flctx_cache, ctx);
	}
}

static __always_inline void locks_init_lock_heads(struct file_lock *fl)
{
	INIT_LIST_HEAD(&fl->fl_list);
	INIT_LIST_HEAD(&fl->fl_link);
	INIT_LIST_HEAD(&fl->fl_blocked_requests);
	INIT_LIST_HEAD(&fl->fl_blocked_member);
	init_waitqueue_head(&fl->fl_wait);
}

/* An empty lock */
noinline struct file_lock *locks_alloc_lock(void)
{
	struct file_lock *fl = kmem_cache_zalloc(filelock_cache, GFP_KERNEL);

	if (fl)
		locks_init_lock_heads(fl);
	return fl;
}

/* What a lock holds beyond itself: nothing here (no lock manager or file system operations),
 * and it must be out of every list and wait */
noinline void locks_release_private(struct file_lock *fl)
{
	if (!list_empty(&fl->fl_wait.head) || !list_empty(&fl->fl_list) || !list_empty(&fl->fl_link) ||
	    !list_empty(&fl->fl_blocked_requests) || !list_empty(&fl->fl_blocked_member))
		panic("locks_release_private: a lock still in use");
	fl->fl_lmops = NULL;
}

/* A lock not in use freed */
noinline void locks_free_lock(struct file_lock *fl)
{
	locks_release_private(fl);
	kmem_cache_free(filelock_cache, fl);
}

static noinline void locks_dispose_list(struct list_head *dispose)
{
	struct file_lock *fl;

	while (!list_empty(dispose)) {
		fl = list_first_entry(dispose, struct file_lock, fl_list);
		list_del_init(&fl->fl_list);
		locks_free_lock(fl);
	}
}

noinline void locks_init_lock(struct file_lock *fl)
{
	memset(fl, 0, sizeof(struct file_lock));
	locks_init_lock_heads(fl);
}

/* A new lock like fl, but of no file */
noinline void locks_copy_conflock(struct file_lock *new, struct file_lock *fl)
{
	new->fl_owner = fl->fl_owner;
	new->fl_pid = fl->fl_pid;
	new->fl_file = NULL;
	new->fl_flags = fl->fl_flags;
	new->fl_type = fl->fl_type;
	new->fl_start = fl->fl_start;
	new->fl_end = fl->fl_end;
}

/* A freshly initialised lock made a copy of fl */
noinline void locks_copy_lock(struct file_lock *new, struct file_lock *fl)
{
	locks_copy_conflock(new, fl);
	new->fl_file = fl->fl_file;
}

/* The requests blocked on fl, now blocked on new (the request fl became the lock new) */
static noinline void locks_move_blocks(struct file_lock *new, struct file_lock *fl)
{
	struct file_lock *f;

	if (list_empty(&fl->fl_blocked_requests))
		return;
	spin_lock(&blocked_lock_lock);
	list_splice_init(&fl->fl_blocked_requests, &new->fl_blocked_requests);
	list_for_each_entry(f, &new->fl_blocked_requests, fl_blocked_member)
		f->fl_blocker = new;
	spin_unlock(&blocked_lock_lock);
}

static __always_inline int flock_translate_cmd(int cmd)
{
	switch (cmd) {
	case LOCK_SH:
		return F_RDLCK;
	case LOCK_EX:
		return F_WRLCK;
	case LOCK_UN:
		return F_UNLCK;
	}
	return -EINVAL;
}

/* A flock request of the open file: owned by it, over the whole file */
static __always_inline void flock_make_lock(struct file *filp, struct file_lock *fl, int type)
{
	locks_init_lock(fl);
	fl->fl_file = filp;
	fl->fl_owner = filp;
	fl->fl_pid = current->tgid;
	fl->fl_flags = FL_FLOCK;
	fl->fl_type = type;
	fl->fl_end = OFFSET_MAX;
}

/* Every waiter on blocker woken, none blocked on it any more (blocked_lock_lock held) */
static noinline void __locks_wake_up_blocks(struct file_lock *blocker)
{
	while (!list_empty(&blocker->fl_blocked_requests)) {
		struct file_lock *waiter = list_first_entry(&blocker->fl_blocked_requests, struct file_lock,
							    fl_blocked_member);

		list_del_init(&waiter->fl_link);		/* __locks_delete_block */
		list_del_init(&waiter->fl_blocked_member);
		wake_up(&waiter->fl_wait);
		/* the "done" point: the waiter may go once it sees no blocker */
		__atomic_store_n(&waiter->fl_blocker, NULL, __ATOMIC_RELEASE);
	}
}

/* A waiter stops waiting: out of its blocker's list, and what waits on it woken; -ENOENT if it
 * was blocked on nothing */
noinline int locks_delete_block(struct file_lock *waiter)
{
	int status = -ENOENT;

	if (!__atomic_load_n(&waiter->fl_blocker, __ATOMIC_ACQUIRE) && list_empty(&waiter->fl_blocked_requests))
		return status;
	spin_lock(&blocked_lock_lock);
	if (waiter->fl_blocker)
		status = 0;
	__locks_wake_up_blocks(waiter);
	list_del_init(&waiter->fl_link);		/* __locks_delete_block */
	list_del_init(&waiter->fl_blocked_member);
	__atomic_store_n(&waiter->fl_blocker, NULL, __ATOMIC_RELEASE);
	spin_unlock(&blocked_lock_lock);
	return status;
}

/* The waiter blocked on blocker, or on the first of blocker's own waiters that it conflicts
 * with (woken only when it can run); what was blocked on the waiter is woken to try again */
static noinline void __locks_insert_block(struct file_lock *blocker, struct file_lock *waiter,
					  bool conflict(struct file_lock *, struct file_lock *))
{
	struct file_lock *fl;

new_blocker:
	list_for_each_entry(fl, &blocker->fl_blocked_requests, fl_blocked_member)
		if (conflict(fl, waiter)) {
			blocker = fl;
			goto new_blocker;
		}
	waiter->fl_blocker = blocker;
	list_add_tail(&waiter->fl_blocked_member, &blocker->fl_blocked_requests);
	if (IS_POSIX(blocker) && !IS_OFDLCK(blocker))
		list_add(&waiter->fl_link, &blocked_posix);	/* locks_insert_global_blocked() */
	__locks_wake_up_blocks(waiter);
}

static __always_inline void locks_insert_block(struct file_lock *blocker, struct file_lock *waiter,
					       bool conflict(struct file_lock *, struct file_lock *))
{
	spin_lock(&blocked_lock_lock);
	__locks_insert_block(blocker, waiter, conflict);
	spin_unlock(&blocked_lock_lock);
}

/* What waits on blocker woken (flc_lock held: none is added meanwhile) */
static __always_inline void locks_wake_up_blocks(struct file_lock *blocker)
{
	if (list_empty(&blocker->fl_blocked_requests))
		return;
	spin_lock(&blocked_lock_lock);
	__locks_wake_up_blocks(blocker);
	spin_unlock(&blocked_lock_lock);
}

static __always_inline void locks_insert_global_locks(struct file_lock *fl)
{
	int cpu = this_cpu()->h.cpu;

	spin_lock(&file_rwsem);
	fl->fl_link_cpu = cpu;
	list_add(&fl->fl_link, &file_lock_list[cpu]);
	spin_unlock(&file_rwsem);
}

static __always_inline void locks_delete_global_locks(struct file_lock *fl)
{
	if (list_empty(&fl->fl_link))	/* (hlist_unhashed(): never granted) */
		return;
	spin_lock(&file_rwsem);
	list_del_init(&fl->fl_link);
	spin_unlock(&file_rwsem);
}

/* A granted lock into its context's list, before `before` (flc_lock held) */
static __always_inline void locks_insert_lock_ctx(struct file_lock *fl, struct list_head *before)
{
	list_add_tail(&fl->fl_list, before);
	locks_insert_global_locks(fl);
}

/* A lock out of its context's list, its waiters woken (flc_lock held) */
static noinline void locks_unlink_lock_ctx(struct file_lock *fl)
{
	locks_delete_global_locks(fl);
	list_del_init(&fl->fl_list);
	locks_wake_up_blocks(fl);
}

static __always_inline void locks_delete_lock_ctx(struct file_lock *fl, struct list_head *dispose)
{
	locks_unlink_lock_ctx(fl);
	list_add(&fl->fl_list, dispose);
}

/* Whether two locks of other owners that meet conflict: either is exclusive */
static __always_inline bool locks_conflict(struct file_lock *caller_fl, struct file_lock *sys_fl)
{
	return sys_fl->fl_type == F_WRLCK || caller_fl->fl_type == F_WRLCK;
}

static __always_inline int assign_type(struct file_lock *fl, long type)
{
	if (type != F_RDLCK && type != F_WRLCK && type != F_UNLCK)
		return -EINVAL;
	fl->fl_type = type;
	return 0;
}

/* Whether sys_fl blocks caller_fl: never the same open file's */
static noinline bool flock_locks_conflict(struct file_lock *caller_fl, struct file_lock *sys_fl)
{
	if (caller_fl->fl_file == sys_fl->fl_file)
		return false;
	return locks_conflict(caller_fl, sys_fl);
}

/* Whether POSIX lock sys_fl blocks caller_fl: never the same owner's; else if their ranges meet */
noinline bool posix_locks_conflict(struct file_lock *caller_fl, struct file_lock *sys_fl)
{
	if (caller_fl->fl_owner == sys_fl->fl_owner)		/* posix_same_owner() */
		return false;
	if (!(caller_fl->fl_end >= sys_fl->fl_start && sys_fl->fl_end >= caller_fl->fl_start))
		return false;					/* !locks_overlap() */
	return locks_conflict(caller_fl, sys_fl);
}

/* Try the request on the inode: the open file's own lock of another type goes first (an
 * upgrade or downgrade is not atomic); 0 when taken (or unlocked), -EAGAIN on a conflict,
 * FILE_LOCK_DEFERRED when a sleeping request is now blocked on the conflicting lock */
static noinline int flock_lock_inode(struct inode *inode, struct file_lock *request)
{
	struct file_lock *new_fl = NULL;
	struct file_lock *fl;
	struct file_lock_context *ctx;
	int error = 0;
	bool found = false;
	LIST_HEAD(dispose);

	ctx = locks_get_lock_context(inode, request->fl_type);
	if (!ctx) {
		if (request->fl_type != F_UNLCK)
			return -ENOMEM;
		return (request->fl_flags & FL_EXISTS) ? -ENOENT : 0;
	}
	if (!(request->fl_flags & FL_ACCESS) && request->fl_type != F_UNLCK) {
		new_fl = locks_alloc_lock();
		if (!new_fl)
			return -ENOMEM;
	}
	spin_lock(&ctx->flc_lock);
	if (request->fl_flags & FL_ACCESS)
		goto find_conflict;
	list_for_each_entry(fl, &ctx->flc_flock, fl_list) {
		if (request->fl_file != fl->fl_file)
			continue;
		if (request->fl_type == fl->fl_type)
			goto out;
		found = true;
		locks_delete_lock_ctx(fl, &dispose);
		break;
	}
	if (request->fl_type == F_UNLCK) {
		if ((request->fl_flags & FL_EXISTS) && !found)
			error = -ENOENT;
		goto out;
	}
find_conflict:
	list_for_each_entry(fl, &ctx->flc_flock, fl_list) {
		if (!flock_locks_conflict(request, fl))
			continue;
		error = -EAGAIN;
		if (!(request->fl_flags & FL_SLEEP))
			goto out;
		error = FILE_LOCK_DEFERRED;
		locks_insert_block(fl, request, flock_locks_conflict);
		goto out;
	}
	if (request->fl_flags & FL_ACCESS)
		goto out;
	locks_copy_lock(new_fl, request);
	locks_move_blocks(new_fl, request);
	locks_insert_lock_ctx(new_fl, &ctx->flc_flock);
	new_fl = NULL;
	error = 0;
out:
	spin_unlock(&ctx->flc_lock);
	if (new_fl)
		locks_free_lock(new_fl);
	locks_dispose_list(&dispose);
	trace_flock_lock_inode(inode, request, error);
	return error;
}

/* flock_lock_inode_wait(): try, and while blocked sleep until the blocker goes; a signal ends
 * the wait (-ERESTARTSYS) */
static __always_inline int flock_lock_inode_wait(struct inode *inode, struct file_lock *fl)
{
	int error;

	for (;;) {
		error = flock_lock_inode(inode, fl);
		if (error != FILE_LOCK_DEFERRED)
			break;
		error = wait_event_interruptible(fl->fl_wait, list_empty(&fl->fl_blocked_member));
		if (error)
			break;
	}
	locks_delete_block(fl);
	return error;
}

/* A lock applied to the inode, waiting if it must (a FLOCK lock: the only kind here) */
noinline int locks_lock_inode_wait(struct inode *inode, struct file_lock *fl)
{
	return flock_lock_inode_wait(inode, fl);
}

SYSCALL_DEFINE2(flock, unsigned int, fd, unsigned int, cmd)
{
	int can_sleep, error, type;
	struct file_lock fl;
	struct fd f;

	if (cmd & LOCK_MAND)	/* no longer supported: ignored, as 6.1 does (with a warning) */
		return 0;
	type = flock_translate_cmd(cmd & ~LOCK_NB);
	if (type < 0)
		return type;
	error = -EBADF;
	f = fdget(fd);
	if (!f.file)
		return error;
	if (type != F_UNLCK && !(f.file->f_mode & (FMODE_READ | FMODE_WRITE)))
		goto out_putf;
	flock_make_lock(f.file, &fl, type);
	error = security_file_lock(f.file, fl.fl_type);
	if (error)
		goto out_putf;
	can_sleep = !(cmd & LOCK_NB);
	if (can_sleep)
		fl.fl_flags |= FL_SLEEP;
	error = locks_lock_inode_wait(f.file->f_inode, &fl);	/* locks_lock_file_wait() */
	locks_release_private(&fl);
out_putf:
	fdput(f);
	return error;
}

/* ---- POSIX and OFD record locks (fcntl(2)) ---- */

/* The first POSIX lock that conflicts with fl copied into it, or fl made F_UNLCK */
noinline void posix_test_lock(struct file *filp, struct file_lock *fl)
{
	struct file_lock_context *ctx = locks_inode_context(filp->f_inode);
	struct file_lock *cfl;

	if (!ctx || list_empty(&ctx->flc_posix)) {
		fl->fl_type = F_UNLCK;
		return;
	}
	spin_lock(&ctx->flc_lock);
	list_for_each_entry(cfl, &ctx->flc_posix, fl_list) {
		if (!posix_locks_conflict(fl, cfl))
			continue;
		locks_copy_conflock(fl, cfl);
		goto out;
	}
	fl->fl_type = F_UNLCK;
out:
	spin_unlock(&ctx->flc_lock);
}

#define MAX_DEADLK_ITERATIONS 10

/* The lock that the owner of block_fl waits for (the end of its chain of blockers), if any */
static __always_inline struct file_lock *what_owner_is_waiting_for(struct file_lock *block_fl)
{
	struct file_lock *fl;

	list_for_each_entry(fl, &blocked_posix, fl_link)
		if (fl->fl_owner == block_fl->fl_owner) {
			while (fl->fl_blocker)
				fl = fl->fl_blocker;
			return fl;
		}
	return NULL;
}

/* Whether caller_fl waiting for block_fl closes a cycle: its owner holds what the chain of
 * owners from block_fl's waits for (OFD locks have no process to follow: never); a chain
 * longer than a few is given up on (blocked_lock_lock held) */
static __always_inline int posix_locks_deadlock(struct file_lock *caller_fl, struct file_lock *block_fl)
{
	int i = 0;

	if (IS_OFDLCK(caller_fl))
		return 0;
	while ((block_fl = what_owner_is_waiting_for(block_fl))) {
		if (i++ > MAX_DEADLK_ITERATIONS)
			return 0;
		if (caller_fl->fl_owner == block_fl->fl_owner)
			return 1;
	}
	return 0;
}

/*
 * A POSIX (or OFD) lock, or an unlock, applied to the inode: a conflict is -EAGAIN (its copy in
 * conflock), or FILE_LOCK_DEFERRED with the request blocked on it (FL_SLEEP), or -EDEADLK; else
 * the owner's locks of the range are replaced, the same type's adjacent or overlapping ones
 * merged into one, another type's cut back or split in two around it.
 */
static noinline int posix_lock_inode(struct inode *inode, struct file_lock *request, struct file_lock *conflock)
{
	struct file_lock *fl, *tmp, *new_fl = NULL, *new_fl2 = NULL, *left = NULL, *right = NULL;
	struct file_lock_context *ctx;
	bool added = false;
	LIST_HEAD(dispose);
	int error;

	ctx = locks_get_lock_context(inode, request->fl_type);
	if (!ctx)
		return request->fl_type == F_UNLCK ? 0 : -ENOMEM;
	/* the two locks a split may need, before the lock is taken */
	if (!(request->fl_flags & FL_ACCESS) &&
	    (request->fl_type != F_UNLCK || request->fl_start != 0 || request->fl_end != OFFSET_MAX)) {
		new_fl = locks_alloc_lock();
		new_fl2 = locks_alloc_lock();
	}
	spin_lock(&ctx->flc_lock);
	if (request->fl_type != F_UNLCK) {
		list_for_each_entry(fl, &ctx->flc_posix, fl_list) {
			if (!posix_locks_conflict(request, fl))
				continue;
			if (conflock)
				locks_copy_conflock(conflock, fl);
			error = -EAGAIN;
			if (!(request->fl_flags & FL_SLEEP))
				goto out;
			/* deadlock detection and blocking under one lock */
			error = -EDEADLK;
			spin_lock(&blocked_lock_lock);
			__locks_wake_up_blocks(request);	/* nothing blocked on it is followed */
			if (likely(!posix_locks_deadlock(request, fl))) {
				error = FILE_LOCK_DEFERRED;
				__locks_insert_block(fl, request, posix_locks_conflict);
			}
			spin_unlock(&blocked_lock_lock);
			goto out;
		}
	}
	error = 0;
	if (request->fl_flags & FL_ACCESS)
		goto out;
	/* the owner's first lock, then each of its locks in order */
	list_for_each_entry(fl, &ctx->flc_posix, fl_list)
		if (request->fl_owner == fl->fl_owner)
			break;
	list_for_each_entry_safe_from(fl, tmp, &ctx->flc_posix, fl_list) {
		if (request->fl_owner != fl->fl_owner)
			break;
		if (request->fl_type == fl->fl_type) {
			/* (start - 1, not end + 1: an end of OFFSET_MAX would wrap) */
			if (fl->fl_end < request->fl_start - 1)
				continue;
			if (fl->fl_start - 1 > request->fl_end)
				break;	/* wholly after: the new one goes before it */
			/* adjacent or overlapping: one lock from the lower start to the higher end */
			if (fl->fl_start > request->fl_start)
				fl->fl_start = request->fl_start;
			else
				request->fl_start = fl->fl_start;
			if (fl->fl_end < request->fl_end)
				fl->fl_end = request->fl_end;
			else
				request->fl_end = fl->fl_end;
			if (added) {
				locks_delete_lock_ctx(fl, &dispose);
				continue;
			}
			request = fl;
			added = true;
		} else {
			if (fl->fl_end < request->fl_start)
				continue;
			if (fl->fl_start > request->fl_end)
				break;
			if (request->fl_type == F_UNLCK)
				added = true;
			if (fl->fl_start < request->fl_start)
				left = fl;
			if (fl->fl_end > request->fl_end) {
				right = fl;	/* reaches past the new one: the new one goes before it */
				break;
			}
			if (fl->fl_start >= request->fl_start) {
				/* wholly covered: replaced (by new_fl the first time) */
				if (added) {
					locks_delete_lock_ctx(fl, &dispose);
					continue;
				}
				error = -ENOLCK;
				if (!new_fl)
					goto out;
				locks_copy_lock(new_fl, request);
				locks_move_blocks(new_fl, request);
				request = new_fl;
				new_fl = NULL;
				locks_insert_lock_ctx(request, &fl->fl_list);
				locks_delete_lock_ctx(fl, &dispose);
				added = true;
			}
		}
	}
	/* nothing was inserted so far: bailing out here is still safe */
	error = -ENOLCK;
	if (right && left == right && !new_fl2)
		goto out;
	error = 0;
	if (!added) {
		if (request->fl_type == F_UNLCK) {
			if (request->fl_flags & FL_EXISTS)
				error = -ENOENT;
			goto out;
		}
		if (!new_fl) {
			error = -ENOLCK;
			goto out;
		}
		locks_copy_lock(new_fl, request);
		locks_move_blocks(new_fl, request);
		locks_insert_lock_ctx(new_fl, &fl->fl_list);	/* before fl (the list's head: at its end) */
		fl = new_fl;
		new_fl = NULL;
	}
	if (right) {
		if (left == right) {
			/* the new lock splits an old one in two: the second piece is new_fl2 */
			left = new_fl2;
			new_fl2 = NULL;
			locks_copy_lock(left, right);
			locks_insert_lock_ctx(left, &fl->fl_list);
		}
		right->fl_start = request->fl_end + 1;
		locks_wake_up_blocks(right);
	}
	if (left) {
		left->fl_end = request->fl_start - 1;
		locks_wake_up_blocks(left);
	}
out:
	trace_posix_lock_inode(inode, request, error);
	spin_unlock(&ctx->flc_lock);
	if (new_fl)
		locks_free_lock(new_fl);
	if (new_fl2)
		locks_free_lock(new_fl2);
	locks_dispose_list(&dispose);
	return error;
}

noinline int posix_lock_file(struct file *filp, struct file_lock *fl, struct file_lock *conflock)
{
	return posix_lock_inode(filp->f_inode, fl, conflock);
}

/* A record lock of the file applied (no file system here has its own ->lock) */
noinline int vfs_lock_file(struct file *filp, unsigned int cmd, struct file_lock *fl, struct file_lock *conf)
{
	return posix_lock_file(filp, fl, conf);
}

/* The lock that would conflict with fl, in fl (no file system here has its own ->lock) */
noinline int vfs_test_lock(struct file *filp, struct file_lock *fl)
{
	posix_test_lock(filp, fl);
	return 0;
}

/* The pid F_GETLK reports of a lock's holder: -1 for an OFD lock (no process owns it); one
 * pid namespace here */
noinline pid_t locks_translate_pid(struct file_lock *fl)
{
	return IS_OFDLCK(fl) ? -1 : (pid_t)fl->fl_pid;
}

/* A struct flock checked and made a POSIX lock of the caller's over its range: l_whence's
 * origin plus l_start, for l_len bytes (0: to the end of any file; < 0: the bytes before) */
noinline int flock64_to_posix_lock(struct file *filp, struct file_lock *fl, struct flock *l)
{
	switch (l->l_whence) {
	case SEEK_SET:
		fl->fl_start = 0;
		break;
	case SEEK_CUR:
		fl->fl_start = filp->f_pos;
		break;
	case SEEK_END:
		fl->fl_start = READ_ONCE(filp->f_inode->i_size);	/* i_size_read() */
		break;
	default:
		return -EINVAL;
	}
	if (l->l_start > OFFSET_MAX - fl->fl_start)
		return -EOVERFLOW;
	fl->fl_start += l->l_start;
	if (fl->fl_start < 0)
		return -EINVAL;
	if (l->l_len > 0) {
		if (l->l_len - 1 > OFFSET_MAX - fl->fl_start)
			return -EOVERFLOW;
		fl->fl_end = fl->fl_start + (l->l_len - 1);
	} else if (l->l_len < 0) {
		if (fl->fl_start + l->l_len < 0)
			return -EINVAL;
		fl->fl_end = fl->fl_start - 1;
		fl->fl_start += l->l_len;
	} else {
		fl->fl_end = OFFSET_MAX;
	}
	fl->fl_owner = current->files;
	fl->fl_pid = current->tgid;
	fl->fl_file = filp;
	fl->fl_flags = FL_POSIX;
	return assign_type(fl, l->l_type);
}

/* F_GETLK / F_OFD_GETLK: the first lock that would conflict with the one described, or
 * l_type F_UNLCK */
long fcntl_getlk(struct file *filp, unsigned int cmd, struct flock *flock)
{
	struct file_lock *fl = locks_alloc_lock();
	long error;

	if (!fl)
		return -ENOMEM;
	error = -EINVAL;
	if (flock->l_type != F_RDLCK && flock->l_type != F_WRLCK)
		goto out;
	error = flock64_to_posix_lock(filp, fl, flock);
	if (error)
		goto out;
	if (cmd == F_OFD_GETLK) {
		error = -EINVAL;
		if (flock->l_pid != 0)
			goto out;
		fl->fl_flags |= FL_OFDLCK;
		fl->fl_owner = filp;
	}
	error = vfs_test_lock(filp, fl);
	if (error)
		goto out;
	flock->l_type = fl->fl_type;
	if (fl->fl_type != F_UNLCK) {	/* posix_lock_to_flock() */
		flock->l_pid = locks_translate_pid(fl);
		flock->l_start = fl->fl_start;
		flock->l_len = fl->fl_end == OFFSET_MAX ? 0 : fl->fl_end - fl->fl_start + 1;
		flock->l_whence = SEEK_SET;
	}
out:
	locks_free_lock(fl);
	return error;
}

/* Try the lock, and while blocked sleep until its blocker goes; a signal ends the wait */
static __always_inline int do_lock_file_wait(struct file *filp, unsigned int cmd, struct file_lock *fl)
{
	int error = security_file_lock(filp, fl->fl_type);

	if (error)
		return error;
	for (;;) {
		error = vfs_lock_file(filp, cmd, fl, NULL);
		if (error != FILE_LOCK_DEFERRED)
			break;
		error = wait_event_interruptible(fl->fl_wait, list_empty(&fl->fl_blocked_member));
		if (error)
			break;
	}
	locks_delete_block(fl);
	return error;
}

/* F_SETLK(W) / F_OFD_SETLK(W): the lock described applied to the open file, for the process
 * (POSIX) or for the open file itself (OFD: l_pid must be 0) */
long fcntl_setlk(unsigned int fd, struct file *filp, unsigned int cmd, struct flock *flock)
{
	struct file_lock *file_lock = locks_alloc_lock();
	struct inode *inode = filp->f_inode;
	long error;

	if (!file_lock)
		return -ENOLCK;
	error = flock64_to_posix_lock(filp, file_lock, flock);
	if (error)
		goto out;
	/* check_fmode_for_setlk(): a read lock needs the file open for reading, a write lock writing */
	error = -EBADF;
	if ((file_lock->fl_type == F_RDLCK && !(filp->f_mode & FMODE_READ)) ||
	    (file_lock->fl_type == F_WRLCK && !(filp->f_mode & FMODE_WRITE)))
		goto out;
	switch (cmd) {
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		error = -EINVAL;
		if (flock->l_pid != 0)
			goto out;
		file_lock->fl_flags |= FL_OFDLCK;
		file_lock->fl_owner = filp;
		if (cmd == F_OFD_SETLK) {
			cmd = F_SETLK;
			break;
		}
		cmd = F_SETLKW;
		/* fallthrough */
	case F_SETLKW:
		file_lock->fl_flags |= FL_SLEEP;
	}
	error = do_lock_file_wait(filp, cmd, file_lock);
	/* a close of the fd meanwhile (another thread's): the process's locks of the file go */
	if (!error && file_lock->fl_type != F_UNLCK && !(file_lock->fl_flags & FL_OFDLCK)) {
		struct files_struct *files = current->files;
		struct file *f = NULL;
		unsigned long irq;

		spin_lock_irqsave(&files->file_lock, irq);	/* files_lookup_fd_locked() */
		if (fd < files->fdt->max_fds)
			f = files->fdt->fd[fd];
		spin_unlock_irqrestore(&files->file_lock, irq);
		if (f != filp) {
			locks_remove_posix(filp, files);
			error = -EBADF;
		}
	}
out:
	trace_fcntl_setlk(inode, file_lock, error);
	locks_free_lock(file_lock);
	return error;
}

/* ---- leases (fcntl F_SETLEASE / F_GETLEASE) ---- */

/* A broken lease's holder told: SIGIO (or F_SETSIG's signal) with POLL_MSG to its owner */
noinline bool lease_break_callback(struct file_lock *fl)
{
	kill_fasync(&fl->fl_fasync, SIGIO, POLL_MSG);
	return false;	/* (the lease stays until its holder gives it up or it times out) */
}

/* A new lease's holder: its fd on the lease's fasync list (the entry priv brought, which is
 * then the lease's: *priv NULL), the caller's process the file's owner, for the signal */
noinline void lease_setup(struct file_lock *fl, void **priv)
{
	struct file *filp = fl->fl_file;
	struct fasync_struct *fa = *priv;

	if (!fasync_insert_entry(fa->fa_fd, filp, &fl->fl_fasync, fa))
		*priv = NULL;
	__f_setown(filp, current->tgid, PIDTYPE_TGID, 0);
}

static const struct lock_manager_operations lease_manager_ops;

/* A lease of the open file (NULL: a breaker's request), of the caller, over the whole file */
static __always_inline int lease_init(struct file *filp, long type, struct file_lock *fl)
{
	if (assign_type(fl, type) != 0)
		return -EINVAL;
	fl->fl_owner = filp;
	fl->fl_pid = current->tgid;
	fl->fl_file = filp;
	fl->fl_flags = FL_LEASE;
	fl->fl_start = 0;
	fl->fl_end = OFFSET_MAX;
	fl->fl_lmops = &lease_manager_ops;
	return 0;
}

static __always_inline struct file_lock *lease_alloc(struct file *filp, long type)
{
	struct file_lock *fl = locks_alloc_lock();
	int error;

	if (fl == NULL)
		return ERR_PTR(-ENOMEM);
	error = lease_init(filp, type, fl);
	if (error) {
		locks_free_lock(fl);
		return ERR_PTR(error);
	}
	return fl;
}

/* A break's pending flags cleared by the change that satisfies it */
static __always_inline void lease_clear_pending(struct file_lock *fl, int arg)
{
	switch (arg) {
	case F_UNLCK:
		fl->fl_flags &= ~FL_UNLOCK_PENDING;
		/* fallthrough */
	case F_RDLCK:
		fl->fl_flags &= ~FL_DOWNGRADE_PENDING;
	}
}

/* A lease made of type arg (F_UNLCK: gone, with its owner and fasync entry), its breakers woken
 * (flc_lock held) */
noinline int lease_modify(struct file_lock *fl, int arg, struct list_head *dispose)
{
	int error = assign_type(fl, arg);

	if (error)
		return error;
	lease_clear_pending(fl, arg);
	locks_wake_up_blocks(fl);
	if (arg == F_UNLCK) {
		struct file *filp = fl->fl_file;

		f_delown(filp);
		filp->f_owner.signum = 0;
		fasync_helper(0, fl->fl_file, 0, &fl->fl_fasync);
		if (fl->fl_fasync != NULL) {
			printk(KERN_ERR "locks_delete_lock: fasync == %p\n", fl->fl_fasync);
			fl->fl_fasync = NULL;
		}
		locks_delete_lock_ctx(fl, dispose);
	}
	return 0;
}

static const struct lock_manager_operations lease_manager_ops = {
	.lm_break = lease_break_callback,
	.lm_change = lease_modify,
	.lm_setup = lease_setup,
};

static __always_inline bool past_time(unsigned long then)
{
	if (!then)	/* 0: never expires */
		return false;
	return time_after(jiffies, then);
}

/* The leases whose break time passed: downgraded or gone, as the break wanted (flc_lock held) */
noinline void time_out_leases(struct inode *inode, struct list_head *dispose)
{
	struct file_lock_context *ctx = locks_inode_context(inode);
	struct file_lock *fl, *tmp;

	list_for_each_entry_safe(fl, tmp, &ctx->flc_lease, fl_list) {
		trace_time_out_leases(inode, fl);
		if (past_time(fl->fl_downgrade_time))
			lease_modify(fl, F_RDLCK, dispose);
		if (past_time(fl->fl_break_time))
			lease_modify(fl, F_UNLCK, dispose);
	}
}

/* Whether an open (the breaker) conflicts with a lease: a write lease with any, a read lease
 * with an open for writing */
noinline bool leases_conflict(struct file_lock *lease, struct file_lock *breaker)
{
	bool rc;

	if ((breaker->fl_flags & FL_DELEG) && (lease->fl_flags & FL_LEASE))
		rc = false;
	else
		rc = locks_conflict(breaker, lease);
	trace_leases_conflict(rc, lease, breaker);
	return rc;
}

static __always_inline bool any_leases_conflict(struct inode *inode, struct file_lock *breaker)
{
	struct file_lock_context *ctx = locks_inode_context(inode);
	struct file_lock *fl;

	list_for_each_entry(fl, &ctx->flc_lease, fl_list)
		if (leases_conflict(fl, breaker))
			return true;
	return false;
}

/* An open with mode (O_RDONLY: breaks write leases; else every lease) or a truncate: each
 * conflicting lease marked breaking and its holder told; then, unless O_NONBLOCK
 * (-EWOULDBLOCK), wait blocked under the first lease until the holders have given way or the
 * break time passed (a signal: -ERESTARTSYS) */
noinline int __break_lease(struct inode *inode, unsigned int mode, unsigned int type)
{
	int error = 0;
	struct file_lock_context *ctx;
	struct file_lock *new_fl, *fl, *tmp;
	unsigned long break_time;
	int want_write = (mode & O_ACCMODE) != O_RDONLY;
	LIST_HEAD(dispose);

	new_fl = lease_alloc(NULL, want_write ? F_WRLCK : F_RDLCK);
	if (IS_ERR(new_fl))
		return PTR_ERR(new_fl);
	new_fl->fl_flags = type;
	ctx = locks_inode_context(inode);
	if (!ctx)
		goto free_lock;
	spin_lock(&ctx->flc_lock);
	time_out_leases(inode, &dispose);
	if (!any_leases_conflict(inode, new_fl))
		goto out;
	break_time = 0;
	if (lease_break_time > 0) {
		break_time = jiffies + lease_break_time * HZ;
		if (break_time == 0)
			break_time++;	/* so that 0 means no break time */
	}
	list_for_each_entry_safe(fl, tmp, &ctx->flc_lease, fl_list) {
		if (!leases_conflict(fl, new_fl))
			continue;
		if (want_write) {
			if (fl->fl_flags & FL_UNLOCK_PENDING)
				continue;
			fl->fl_flags |= FL_UNLOCK_PENDING;
			fl->fl_break_time = break_time;
		} else {
			if (lease_breaking(fl))
				continue;
			fl->fl_flags |= FL_DOWNGRADE_PENDING;
			fl->fl_downgrade_time = break_time;
		}
		if (fl->fl_lmops->lm_break(fl))
			locks_delete_lock_ctx(fl, &dispose);
	}
	if (list_empty(&ctx->flc_lease))
		goto out;
	if (mode & O_NONBLOCK) {
		trace_break_lease_noblock(inode, new_fl);
		error = -EAGAIN;	/* EWOULDBLOCK */
		goto out;
	}
restart:
	fl = list_first_entry(&ctx->flc_lease, struct file_lock, fl_list);
	break_time = fl->fl_break_time;
	if (break_time != 0)
		break_time -= jiffies;
	if (break_time == 0)
		break_time++;
	locks_insert_block(fl, new_fl, leases_conflict);
	trace_break_lease_block(inode, new_fl);
	spin_unlock(&ctx->flc_lock);
	locks_dispose_list(&dispose);
	error = wait_event_interruptible_timeout(new_fl->fl_wait, list_empty(&new_fl->fl_blocked_member),
						 break_time);
	spin_lock(&ctx->flc_lock);
	trace_break_lease_unblock(inode, new_fl);
	locks_delete_block(new_fl);
	if (error >= 0) {
		/* the next conflicting lease not broken yet, if any: wait for it too */
		if (error == 0)
			time_out_leases(inode, &dispose);
		if (any_leases_conflict(inode, new_fl))
			goto restart;
		error = 0;
	}
out:
	spin_unlock(&ctx->flc_lock);
	locks_dispose_list(&dispose);
free_lock:
	locks_free_lock(new_fl);
	return error;
}

/* F_GETLEASE: the open file's lease type, or what a pending break makes it; F_UNLCK if none */
noinline int fcntl_getlease(struct file *filp)
{
	struct file_lock *fl;
	struct inode *inode = filp->f_inode;
	struct file_lock_context *ctx = locks_inode_context(inode);
	int type = F_UNLCK;
	LIST_HEAD(dispose);

	if (ctx && !list_empty(&ctx->flc_lease)) {
		spin_lock(&ctx->flc_lock);
		time_out_leases(inode, &dispose);
		list_for_each_entry(fl, &ctx->flc_lease, fl_list) {
			if (fl->fl_file != filp)
				continue;
			type = target_leasetype(fl);
			break;
		}
		spin_unlock(&ctx->flc_lock);
		locks_dispose_list(&dispose);
	}
	return type;
}

/* Whether another open stands in the way of the lease: for a read lease an open for writing;
 * for a write lease any open but the caller's own (a negative i_writecount, an executable's
 * denial of writes, too) */
static noinline int check_conflicting_open(struct file *filp, const long arg, int flags)
{
	struct inode *inode = filp->f_inode;
	int self_wcount = 0, self_rcount = 0;

	if (flags & FL_DELEG)
		return 0;
	if (arg == F_RDLCK)
		return __atomic_load_n(&inode->i_writecount, __ATOMIC_RELAXED) > 0 ? -EAGAIN : 0;
	else if (arg != F_WRLCK)
		return 0;
	if (filp->f_mode & FMODE_WRITE)
		self_wcount = 1;
	else if (filp->f_mode & FMODE_READ)
		self_rcount = 1;
	if (__atomic_load_n(&inode->i_writecount, __ATOMIC_RELAXED) != self_wcount ||
	    __atomic_load_n(&inode->i_readcount, __ATOMIC_RELAXED) != self_rcount)
		return -EAGAIN;
	return 0;
}

/* A lease set, or the open file's own changed (then *flp stays the caller's to free) */
static __always_inline int generic_add_lease(struct file *filp, long arg, struct file_lock **flp, void **priv)
{
	struct file_lock *fl, *my_fl = NULL, *lease;
	struct inode *inode = filp->f_inode;
	struct file_lock_context *ctx;
	int error;
	LIST_HEAD(dispose);

	lease = *flp;
	trace_generic_add_lease(inode, lease);
	ctx = locks_get_lock_context(inode, arg);	/* (arg is never F_UNLCK here) */
	if (!ctx)
		return -ENOMEM;
	spin_lock(&ctx->flc_lock);
	time_out_leases(inode, &dispose);
	error = check_conflicting_open(filp, arg, lease->fl_flags);
	if (error)
		goto out;
	/* an exclusive lease here is ours (another's would have blocked our open); an exclusive
	 * one wanted: no other open of the file but this one */
	error = -EAGAIN;
	list_for_each_entry(fl, &ctx->flc_lease, fl_list) {
		if (fl->fl_file == filp && fl->fl_owner == lease->fl_owner) {
			my_fl = fl;
			continue;
		}
		if (arg == F_WRLCK)	/* no exclusive lease while another has one */
			goto out;
		if (fl->fl_flags & FL_UNLOCK_PENDING)	/* nor a new one while another's breaks */
			goto out;
	}
	if (my_fl != NULL) {
		lease = my_fl;
		error = lease->fl_lmops->lm_change(lease, arg, &dispose);
		if (error)
			goto out;
		goto out_setup;
	}
	error = -EINVAL;
	if (!leases_enable)
		goto out;
	locks_insert_lock_ctx(lease, &ctx->flc_lease);
	/* break_lease()'s check is lockless: an open may have come in since the check above */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	error = check_conflicting_open(filp, arg, lease->fl_flags);
	if (error) {
		locks_unlink_lock_ctx(lease);
		goto out;
	}
out_setup:
	if (lease->fl_lmops->lm_setup)
		lease->fl_lmops->lm_setup(lease, priv);
out:
	spin_unlock(&ctx->flc_lock);
	locks_dispose_list(&dispose);
	if (!error && !my_fl)
		*flp = NULL;
	return error;
}

/* The open file's lease given up: -EAGAIN if it has none */
static __always_inline int generic_delete_lease(struct file *filp, void *owner)
{
	int error = -EAGAIN;
	struct file_lock *fl, *victim = NULL;
	struct inode *inode = filp->f_inode;
	struct file_lock_context *ctx = locks_inode_context(inode);
	LIST_HEAD(dispose);

	if (!ctx) {
		trace_generic_delete_lease(inode, NULL);
		return error;
	}
	spin_lock(&ctx->flc_lock);
	list_for_each_entry(fl, &ctx->flc_lease, fl_list) {
		if (fl->fl_file == filp && fl->fl_owner == owner) {
			victim = fl;
			break;
		}
	}
	trace_generic_delete_lease(inode, victim);
	if (victim)
		error = victim->fl_lmops->lm_change(victim, F_UNLCK, &dispose);
	spin_unlock(&ctx->flc_lock);
	locks_dispose_list(&dispose);
	return error;
}

/* A lease on a regular file of the caller's (or with CAP_LEASE) set, changed or given up */
noinline int generic_setlease(struct file *filp, long arg, struct file_lock **flp, void **priv)
{
	struct inode *inode = filp->f_inode;
	int error;

	if (inode->i_uid != current_cred()->fsuid && !capable(CAP_LEASE))
		return -EACCES;
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	error = security_file_lock(filp, arg);
	if (error)
		return error;
	switch (arg) {
	case F_UNLCK:
		return generic_delete_lease(filp, *priv);
	case F_RDLCK:
	case F_WRLCK:
		return generic_add_lease(filp, arg, flp, priv);
	default:
		return -EINVAL;
	}
}

/* (no file system here has its own ->setlease, nor does any subsystem watch leases set) */
noinline int vfs_setlease(struct file *filp, long arg, struct file_lock **lease, void **priv)
{
	return generic_setlease(filp, arg, lease, priv);
}

static __always_inline int do_fcntl_add_lease(unsigned int fd, struct file *filp, long arg)
{
	struct file_lock *fl;
	struct fasync_struct *new;
	int error;

	fl = lease_alloc(filp, arg);
	if (IS_ERR(fl))
		return PTR_ERR(fl);
	new = fasync_alloc();
	if (!new) {
		locks_free_lock(fl);
		return -ENOMEM;
	}
	new->fa_fd = fd;
	error = vfs_setlease(filp, arg, &fl, (void **)&new);
	if (fl)
		locks_free_lock(fl);
	if (new)
		fasync_free(new);
	return error;
}

/* F_SETLEASE: a read or write lease on the open file, or (F_UNLCK) none; the holder is
 * signalled when an open breaks it (F_SETSIG chooses the signal) */
noinline int fcntl_setlease(unsigned int fd, struct file *filp, long arg)
{
	if (arg == F_UNLCK)
		return vfs_setlease(filp, F_UNLCK, NULL, (void **)&filp);
	return do_fcntl_add_lease(fd, filp, arg);
}

/* A close of one of the owner's fds of the file (filp_close()), or the open file's last close
 * (owner: the file, its OFD locks): the owner's record locks of the file go */
noinline void locks_remove_posix(struct file *filp, fl_owner_t owner)
{
	struct inode *inode = filp->f_inode;
	struct file_lock_context *ctx = locks_inode_context(inode);
	struct file_lock lock;
	int error;

	if (!ctx || list_empty(&ctx->flc_posix))
		return;
	locks_init_lock(&lock);
	lock.fl_type = F_UNLCK;
	lock.fl_flags = FL_POSIX | FL_CLOSE;
	lock.fl_start = 0;
	lock.fl_end = OFFSET_MAX;
	lock.fl_owner = owner;
	lock.fl_pid = current->tgid;
	lock.fl_file = filp;
	error = vfs_lock_file(filp, F_SETLK, &lock, NULL);
	trace_locks_remove_posix(inode, &lock, error);
}

/* The open file's flock lock released at its last close */
static noinline void locks_remove_flock(struct file *filp, struct file_lock_context *flctx)
{
	struct file_lock fl;

	if (list_empty(&flctx->flc_flock))
		return;
	flock_make_lock(filp, &fl, F_UNLCK);
	fl.fl_flags |= FL_CLOSE;
	flock_lock_inode(filp->f_inode, &fl);
}

/* The open file's lease given up at its last close */
static __always_inline void locks_remove_lease(struct file *filp, struct file_lock_context *ctx)
{
	struct file_lock *fl, *tmp;
	LIST_HEAD(dispose);

	if (list_empty(&ctx->flc_lease))
		return;
	spin_lock(&ctx->flc_lock);
	list_for_each_entry_safe(fl, tmp, &ctx->flc_lease, fl_list)
		if (filp == fl->fl_file)
			lease_modify(fl, F_UNLCK, &dispose);
	spin_unlock(&ctx->flc_lock);
	locks_dispose_list(&dispose);
}

/* Every lock of the open file's found gone after its release, or told of */
static noinline void locks_check_ctx_file_list(struct file *filp, struct list_head *list, char *list_type)
{
	struct inode *inode = filp->f_inode;
	struct file_lock *fl;

	list_for_each_entry(fl, list, fl_list)
		if (fl->fl_file == filp)
			printk(KERN_WARNING "Leaked %s lock on dev=0x%x:0x%x ino=0x%lx fl_flags=0x%x fl_type=0x%x fl_pid=%u\n",
			       list_type, MAJOR(inode->i_sb->s_dev), MINOR(inode->i_sb->s_dev), inode->i_ino,
			       fl->fl_flags, fl->fl_type, fl->fl_pid);
}

/* The last close of an open file (__fput): its locks go */
noinline void locks_remove_file(struct file *filp)
{
	struct file_lock_context *ctx = locks_inode_context(filp->f_inode);

	if (!ctx)
		return;
	locks_remove_posix(filp, filp);	/* its OFD locks */
	locks_remove_flock(filp, ctx);
	locks_remove_lease(filp, ctx);
	spin_lock(&ctx->flc_lock);
	locks_check_ctx_file_list(filp, &ctx->flc_posix, "POSIX");
	locks_check_ctx_file_list(filp, &ctx->flc_flock, "FLOCK");
	locks_check_ctx_file_list(filp, &ctx->flc_lease, "LEASE");
	spin_unlock(&ctx->flc_lock);
}

void __init filelock_init(void)
{
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		INIT_LIST_HEAD(&file_lock_list[cpu]);
	flctx_cache = kmem_cache_create("file_lock_ctx", sizeof(struct file_lock_context), 0, SLAB_PANIC, NULL);
	filelock_cache = kmem_cache_create("file_lock_cache", sizeof(struct file_lock), 0, SLAB_PANIC, NULL);
}

/* ---- /proc/locks ---- */

struct locks_iterator {
	int li_cpu;
	loff_t li_pos;
};

/* One lock's line (its blocked requests' too, after "-> " indented by their depth) */
noinline void lock_get_status(struct seq_file *f, struct file_lock *fl, loff_t id, char *pfx, int repeat)
{
	struct inode *inode = fl->fl_file ? fl->fl_file->f_inode : NULL;
	int type = fl->fl_type, pad;

	seq_printf(f, "%ld: ", (long)id);
	if (repeat) {	/* "%*s" of pfx in repeat - 1 + strlen(pfx) columns */
		for (pad = repeat - 1; pad > 0; pad--)
			seq_putc(f, ' ');
		seq_puts(f, pfx);
	}
	if (IS_POSIX(fl)) {
		if (fl->fl_flags & FL_ACCESS)
			seq_puts(f, "ACCESS");
		else if (IS_OFDLCK(fl))
			seq_puts(f, "OFDLCK");
		else
			seq_puts(f, "POSIX ");
		seq_printf(f, " %s ", inode == NULL ? "*NOINODE*" : "ADVISORY ");
	} else if (IS_FLOCK(fl)) {
		seq_puts(f, "FLOCK  ADVISORY  ");
	} else if (IS_LEASE(fl)) {
		seq_puts(f, fl->fl_flags & FL_DELEG ? "DELEG  " : "LEASE  ");
		if (lease_breaking(fl))
			seq_puts(f, "BREAKING  ");
		else if (fl->fl_file)
			seq_puts(f, "ACTIVE    ");
		else
			seq_puts(f, "BREAKER   ");	/* an open waiting for the lease it broke */
	} else {
		seq_puts(f, "UNKNOWN UNKNOWN  ");
	}
	if (IS_LEASE(fl))
		type = target_leasetype(fl);
	seq_printf(f, "%s ", type == F_WRLCK ? "WRITE" : type == F_RDLCK ? "READ" : "UNLCK");
	if (inode)	/* userspace relies on this representation of dev_t */
		seq_printf(f, "%d %02x:%02x:%lu ", locks_translate_pid(fl), MAJOR(inode->i_sb->s_dev),
			   MINOR(inode->i_sb->s_dev), inode->i_ino);
	else
		seq_printf(f, "%d <none>:0 ", locks_translate_pid(fl));
	if (!IS_POSIX(fl))
		seq_puts(f, "0 EOF\n");
	else if (fl->fl_end == OFFSET_MAX)
		seq_printf(f, "%ld EOF\n", (long)fl->fl_start);
	else
		seq_printf(f, "%ld %ld\n", (long)fl->fl_start, (long)fl->fl_end);
}

/* The locks of one list the open file holds (its own, or its process's: files) */
static noinline void __show_fd_locks(struct seq_file *f, struct list_head *head, int *id, struct file *filp,
				     struct files_struct *files)
{
	struct file_lock *fl;

	list_for_each_entry(fl, head, fl_list) {
		if (filp != fl->fl_file)
			continue;
		if (fl->fl_owner != files && fl->fl_owner != filp)
			continue;
		(*id)++;
		seq_puts(f, "lock:\t");
		lock_get_status(f, fl, *id, "", 0);
	}
}

/* /proc/PID/fdinfo/N's lock lines: the file's flock, POSIX/OFD locks and lease */
noinline void show_fd_locks(struct seq_file *f, struct file *filp, struct files_struct *files)
{
	struct file_lock_context *ctx = locks_inode_context(filp->f_inode);
	int id = 0;

	if (!ctx)
		return;
	spin_lock(&ctx->flc_lock);
	__show_fd_locks(f, &ctx->flc_flock, &id, filp, files);
	__show_fd_locks(f, &ctx->flc_posix, &id, filp, files);
	__show_fd_locks(f, &ctx->flc_lease, &id, filp, files);
	spin_unlock(&ctx->flc_lock);
}

static notrace struct file_lock *get_next_blocked_member(struct file_lock *node)
{
	struct file_lock *tmp;

	if (node == NULL || node->fl_blocker == NULL)
		return NULL;
	tmp = list_entry(node->fl_blocked_member.next, struct file_lock, fl_blocked_member);
	if (&tmp->fl_blocked_member == &node->fl_blocker->fl_blocked_requests)
		return NULL;
	return tmp;
}

/* A granted lock and, as a tree (a lock's first waiter its left child, the waiter after it
 * its right one), the requests blocked on it */
noinline int locks_show(struct seq_file *f, void *v)
{
	struct locks_iterator *iter = f->private;
	struct file_lock *cur = v, *tmp;
	int level = 0;

	if (locks_translate_pid(cur) == 0)
		return 0;
	while (cur != NULL) {
		lock_get_status(f, cur, iter->li_pos, level ? "-> " : "", level);
		if (!list_empty(&cur->fl_blocked_requests)) {
			cur = list_first_entry(&cur->fl_blocked_requests, struct file_lock, fl_blocked_member);
			level++;
		} else {
			tmp = get_next_blocked_member(cur);
			while (tmp == NULL && cur->fl_blocker != NULL) {
				cur = cur->fl_blocker;
				level--;
				tmp = get_next_blocked_member(cur);
			}
			cur = tmp;
		}
	}
	return 0;
}

/* seq_hlist_start_percpu()/seq_hlist_next_percpu() over the per-cpu lists */
static notrace struct file_lock *file_lock_list_from(int *cpu, struct list_head *node)
{
	while (node == &file_lock_list[*cpu]) {	/* the end of this cpu's list: the next cpu's */
		if (++*cpu == NR_CPUS)
			return NULL;
		node = file_lock_list[*cpu].next;
	}
	return list_entry(node, struct file_lock, fl_link);
}

noinline void *locks_start(struct seq_file *f, loff_t *pos)
{
	struct locks_iterator *iter = f->private;
	struct file_lock *fl;
	loff_t n = *pos;

	iter->li_pos = *pos + 1;
	spin_lock(&file_rwsem);
	spin_lock(&blocked_lock_lock);
	iter->li_cpu = 0;
	for (fl = file_lock_list_from(&iter->li_cpu, file_lock_list[0].next); fl && n; n--)
		fl = file_lock_list_from(&iter->li_cpu, fl->fl_link.next);
	return fl;
}

noinline void *locks_next(struct seq_file *f, void *v, loff_t *pos)
{
	struct locks_iterator *iter = f->private;
	struct file_lock *fl = v;

	++iter->li_pos;
	++*pos;
	return file_lock_list_from(&iter->li_cpu, fl->fl_link.next);
}

noinline void locks_stop(struct seq_file *f, void *v)
{
	spin_unlock(&blocked_lock_lock);
	spin_unlock(&file_rwsem);
}

static const struct seq_operations locks_seq_operations = {
	.start	= locks_start,
	.next	= locks_next,
	.stop	= locks_stop,
	.show	= locks_show,
};

static notrace int locks_open(struct inode *inode, struct file *file)
{
	return seq_open_private(file, &locks_seq_operations, sizeof(struct locks_iterator));
}

const struct file_operations proc_locks_operations = {
	.open = locks_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};
