/*
 * File locks (Linux 6.1's fs/locks.c): flock(2)'s whole-file locks, shared or exclusive, held
 * by an open file (all its descriptors, in any process) until unlocked or its last close.  An
 * inode's locks are in its lock context (i_flctx, made at its first lock, freed with the
 * inode); a request that conflicts waits, unless LOCK_NB (EWOULDBLOCK), blocked under the lock
 * in its way and woken when that one goes.  No POSIX (fcntl) locks, OFD locks or leases here.
 */
#include "../include/fs.h"
#include "../include/slab.h"
#include "../include/wait.h"
#include "../include/security.h"
#include "../include/syscalls.h"
#include "../include/kdev_t.h"

#define LOCK_SH		1	/* shared lock */
#define LOCK_EX		2	/* exclusive lock */
#define LOCK_NB		4	/* or'd with one of the above to prevent blocking */
#define LOCK_UN		8	/* remove lock */
#define LOCK_MAND	32	/* (removed in 5.15: ignored) */

#define F_RDLCK		0
#define F_WRLCK		1
#define F_UNLCK		2

#define FL_FLOCK	2
#define FL_ACCESS	8	/* not trying to lock, just looking */
#define FL_EXISTS	16	/* when unlocking, test for existence */
#define FL_CLOSE	64	/* unlock on close */
#define FL_SLEEP	128	/* a blocking lock */

#define FILE_LOCK_DEFERRED 1
#define OFFSET_MAX	((loff_t)(~0ULL >> 1))

struct file_lock {
	struct file_lock *fl_blocker;		/* the lock we are blocked on */
	struct list_head fl_list;		/* in the context's flc_flock, or a dispose list */
	struct list_head fl_blocked_requests;	/* the requests waiting on this one */
	struct list_head fl_blocked_member;	/* in its blocker's fl_blocked_requests */
	void *fl_owner;
	unsigned int fl_flags;
	unsigned char fl_type;
	pid_t fl_pid;
	wait_queue_head_t fl_wait;
	struct file *fl_file;
	loff_t fl_start, fl_end;
};

struct file_lock_context {
	spinlock_t flc_lock;
	struct list_head flc_flock;
};

static spinlock_t blocked_lock_lock;	/* every fl_blocker and fl_blocked_requests */
static struct kmem_cache *flctx_cache;
static struct kmem_cache *filelock_cache;

static __always_inline struct file_lock_context *locks_inode_context(const struct inode *inode)
{
	return READ_ONCE(inode->i_flctx);
}

/* The inode's lock context, made at its first lock (an unlock makes none) */
static noinline struct file_lock_context *locks_get_lock_context(struct inode *inode, int type)
{
	struct file_lock_context *ctx = locks_inode_context(inode);

	if (likely(ctx) || type == F_UNLCK)
		return ctx;
	ctx = kmem_cache_alloc(flctx_cache, GFP_KERNEL);
	if (!ctx)
		return NULL;
	memset(&ctx->flc_lock, 0, sizeof(ctx->flc_lock));
	INIT_LIST_HEAD(&ctx->flc_flock);
	/* another task's context made meanwhile is the one */
	if (!__sync_bool_compare_and_swap(&inode->i_flctx, NULL, ctx)) {
		kmem_cache_free(flctx_cache, ctx);
		ctx = locks_inode_context(inode);
	}
	return ctx;
}

/* The lock context of an inode that goes (__destroy_inode): no lock is left in it */
noinline void locks_free_lock_context(struct inode *inode)
{
	struct file_lock_context *ctx = locks_inode_context(inode);

	if (unlikely(ctx)) {
		if (!list_empty(&ctx->flc_flock))
			printk(KERN_WARNING "Leaked locks on dev=0x%x:0x%x ino=0x%lx:\n",
			       MAJOR(inode->i_sb->s_dev), MINOR(inode->i_sb->s_dev), inode->i_ino);
		kmem_cache_free(flctx_cache, ctx);
	}
}

static __always_inline void locks_init_lock_heads(struct file_lock *fl)
{
	INIT_LIST_HEAD(&fl->fl_list);
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
	if (!list_empty(&fl->fl_wait.head) || !list_empty(&fl->fl_list) ||
	    !list_empty(&fl->fl_blocked_requests) || !list_empty(&fl->fl_blocked_member))
		panic("locks_release_private: a lock still in use");
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

		list_del_init(&waiter->fl_blocked_member);	/* __locks_delete_block */
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
	__locks_wake_up_blocks(waiter);
}

static __always_inline void locks_insert_block(struct file_lock *blocker, struct file_lock *waiter,
					       bool conflict(struct file_lock *, struct file_lock *))
{
	spin_lock(&blocked_lock_lock);
	__locks_insert_block(blocker, waiter, conflict);
	spin_unlock(&blocked_lock_lock);
}

/* A lock out of its context's list, its waiters woken (flc_lock held) */
static noinline void locks_unlink_lock_ctx(struct file_lock *fl)
{
	list_del_init(&fl->fl_list);
	if (list_empty(&fl->fl_blocked_requests))	/* locks_wake_up_blocks() */
		return;
	spin_lock(&blocked_lock_lock);
	__locks_wake_up_blocks(fl);
	spin_unlock(&blocked_lock_lock);
}

static __always_inline void locks_delete_lock_ctx(struct file_lock *fl, struct list_head *dispose)
{
	locks_unlink_lock_ctx(fl);
	list_add(&fl->fl_list, dispose);
}

/* Whether sys_fl blocks caller_fl: never the same open file's; else either exclusive */
static noinline bool flock_locks_conflict(struct file_lock *caller_fl, struct file_lock *sys_fl)
{
	if (caller_fl->fl_file == sys_fl->fl_file)
		return false;
	return sys_fl->fl_type == F_WRLCK || caller_fl->fl_type == F_WRLCK;	/* locks_conflict() */
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
	list_add_tail(&new_fl->fl_list, &ctx->flc_flock);	/* locks_insert_lock_ctx() */
	new_fl = NULL;
	error = 0;
out:
	spin_unlock(&ctx->flc_lock);
	if (new_fl)
		locks_free_lock(new_fl);
	locks_dispose_list(&dispose);
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
	locks_remove_flock(filp, ctx);
	spin_lock(&ctx->flc_lock);
	locks_check_ctx_file_list(filp, &ctx->flc_flock, "FLOCK");
	spin_unlock(&ctx->flc_lock);
}

void __init filelock_init(void)
{
	flctx_cache = kmem_cache_create("file_lock_ctx", sizeof(struct file_lock_context), 0, SLAB_PANIC, NULL);
	filelock_cache = kmem_cache_create("file_lock_cache", sizeof(struct file_lock), 0, SLAB_PANIC, NULL);
}
