/*
 * File locks (6.1's include/linux/fs.h part and uapi fcntl.h): struct file_lock and an inode's
 * lock context, which fs/locks.c keeps and the filelock events record.
 */
#ifndef _FILELOCK_H
#define _FILELOCK_H
#include "fs.h"

#define EDEADLK		35
#define ENOLCK		37

#define F_RDLCK		0
#define F_WRLCK		1
#define F_UNLCK		2

/* fcntl(2)'s record locks (uapi asm-generic/fcntl.h; x86-64: the 64-bit forms are these) */
#define F_GETLK		5
#define F_SETLK		6
#define F_SETLKW	7
#define F_OFD_GETLK	36
#define F_OFD_SETLK	37
#define F_OFD_SETLKW	38
/* leases (F_LINUX_SPECIFIC_BASE + 0, + 1) */
#define F_SETLEASE	1024
#define F_GETLEASE	1025

#define FL_POSIX	1
#define FL_FLOCK	2
#define FL_DELEG	4	/* an NFSv4 delegation (none here) */
#define FL_ACCESS	8	/* not trying to lock, just looking */
#define FL_EXISTS	16	/* when unlocking, test for existence */
#define FL_LEASE	32	/* a lease held on an open file */
#define FL_CLOSE	64	/* unlock on close */
#define FL_SLEEP	128	/* a blocking lock */
#define FL_DOWNGRADE_PENDING	256	/* a lease being broken to a read lease */
#define FL_UNLOCK_PENDING	512	/* a lease being broken to none */
#define FL_OFDLCK	1024	/* owned by the open file, not the process */

#define FILE_LOCK_DEFERRED 1
#define OFFSET_MAX	((loff_t)(~0ULL >> 1))

typedef void *fl_owner_t;

/* struct flock (= flock64 on x86-64) */
struct flock {
	short l_type;
	short l_whence;
	loff_t l_start;
	loff_t l_len;
	int l_pid;
};

struct file_lock;
/* What a lease's holder does of a break and a change (6.1's lock manager operations: the
 * fcntl leases' lease_manager_ops are the only ones here) */
struct lock_manager_operations {
	bool (*lm_break)(struct file_lock *);
	int (*lm_change)(struct file_lock *, int, struct list_head *);
	void (*lm_setup)(struct file_lock *, void **);
};

struct file_lock {
	struct file_lock *fl_blocker;		/* the lock we are blocked on */
	struct list_head fl_list;		/* in the context's list, or a dispose list */
	struct list_head fl_link;		/* a granted lock: in its cpu's file_lock_list (/proc/locks);
						 * a blocked POSIX request: in the global blocked list */
	int fl_link_cpu;			/* which cpu's file_lock_list it is on */
	struct list_head fl_blocked_requests;	/* the requests waiting on this one */
	struct list_head fl_blocked_member;	/* in its blocker's fl_blocked_requests */
	fl_owner_t fl_owner;			/* POSIX: the files_struct (OFD: the open file) */
	unsigned int fl_flags;
	unsigned char fl_type;
	pid_t fl_pid;
	wait_queue_head_t fl_wait;
	struct file *fl_file;
	loff_t fl_start, fl_end;
	const struct lock_manager_operations *fl_lmops;
	struct fasync_struct *fl_fasync;	/* a lease: its holder's, told of a break */
	unsigned long fl_break_time;		/* a lease being broken: when it goes (jiffies; 0: never) */
	unsigned long fl_downgrade_time;	/* ... when it becomes a read lease */
};

struct file_lock_context {
	spinlock_t flc_lock;
	struct list_head flc_flock;
	struct list_head flc_posix;		/* by owner, then by start */
	struct list_head flc_lease;
};

#define IS_POSIX(fl)	((fl)->fl_flags & FL_POSIX)
#define IS_FLOCK(fl)	((fl)->fl_flags & FL_FLOCK)
#define IS_OFDLCK(fl)	((fl)->fl_flags & FL_OFDLCK)
#define IS_LEASE(fl)	((fl)->fl_flags & (FL_LEASE | FL_DELEG))

long fcntl_getlk(struct file *filp, unsigned int cmd, struct flock *flock);
long fcntl_setlk(unsigned int fd, struct file *filp, unsigned int cmd, struct flock *flock);
void locks_remove_posix(struct file *filp, fl_owner_t owner);
int fcntl_setlease(unsigned int fd, struct file *filp, long arg);
int fcntl_getlease(struct file *filp);
int __break_lease(struct inode *inode, unsigned int mode, unsigned int type);

/* An open or truncate: the inode's leases that conflict with it broken, waiting for their
 * holders unless O_NONBLOCK (lockless: a lease being set meanwhile re-checks the opens) */
static inline int break_lease(struct inode *inode, unsigned int mode)
{
	struct file_lock_context *ctx = __atomic_load_n((struct file_lock_context **)&inode->i_flctx, __ATOMIC_SEQ_CST);

	if (ctx && !list_empty(&ctx->flc_lease))
		return __break_lease(inode, mode, FL_LEASE);
	return 0;
}
extern const struct file_operations proc_locks_operations;	/* /proc/locks */
struct seq_file;
struct files_struct;
void show_fd_locks(struct seq_file *f, struct file *filp, struct files_struct *files);
#endif
