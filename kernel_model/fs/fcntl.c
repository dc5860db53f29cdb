/* fcntl (Linux's fs/fcntl.c): F_DUPFD(_CLOEXEC), F_GETFD/F_SETFD, F_GETFL/F_SETFL, the record
 * locks (F_GETLK, F_SETLK(W) and their OFD forms) and leases (F_SETLEASE/F_GETLEASE: fs/locks.c),
 * the pipe's F_GETPIPE_SZ/F_SETPIPE_SZ; and signal-driven I/O: a file's owner (F_SETOWN(_EX)),
 * its signal (F_SETSIG), O_ASYNC, and the fasync lists that send_sigio() signals the owners of
 * files on when I/O is possible (a pipe's readers and writers, a broken lease's holder). */
#include "../include/filelock.h"
#include "../include/security.h"
#include "../include/cred.h"
#include "../include/signal.h"
#include "../include/slab.h"
#include "../include/poll.h"
#include "../include/shmem_fs.h"

#define F_DUPFD		0
#define F_GETFD		1
#define F_SETFD		2
#define F_GETFL		3
#define F_SETFL		4
#define F_SETOWN	8
#define F_GETOWN	9
#define F_SETSIG	10
#define F_GETSIG	11
#define F_SETOWN_EX	15
#define F_GETOWN_EX	16
#define F_GETOWNER_UIDS	17
#define F_OWNER_TID	0
#define F_OWNER_PID	1
#define F_OWNER_PGRP	2
#define F_DUPFD_CLOEXEC	1030
#define F_SETPIPE_SZ	1031
#define F_GETPIPE_SZ	1032
#define FD_CLOEXEC	1
#define SETFL_MASK (O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME)

static notrace int setfl(int fd, struct file *filp, unsigned int arg)
{
	struct inode *inode = filp->f_inode;

	int error;

	if ((arg & O_NOATIME) && !(filp->f_flags & O_NOATIME) && !inode_owner_or_capable(NULL, inode))
		return -EPERM;
	/* ->fasync sets or clears FASYNC itself (a file without one ignores O_ASYNC) */
	if (((arg ^ filp->f_flags) & FASYNC) && filp->f_op->fasync) {
		error = filp->f_op->fasync(fd, filp, (arg & FASYNC) != 0);
		if (error < 0)
			return error;
	}
	spin_lock(&filp->f_lock);
	filp->f_flags = (arg & SETFL_MASK) | (filp->f_flags & ~SETFL_MASK);
	spin_unlock(&filp->f_lock);
	return 0;
}

/* ---- a file's owner: who its SIGIO goes to ---- */

/* Whether a struct pid of that number is in use (6.1's find_vpid() != NULL): a task's pid, or
 * a process group's or session's id (numbers here, with no struct pid: kernel/pid.c's
 * find_vpid() knows tasks' pids only) */
static notrace bool vpid_in_use(pid_t nr)
{
	struct task_struct *t;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks)
		if (t->pid == nr || t->pgrp == nr || t->sid == nr) {
			found = true;
			break;
		}
	spin_unlock_irqrestore(&sched_lock, flags);
	return found;
}

/* The task the owner names, if any (6.1's pid_task(): of a process group its first member) */
static notrace struct task_struct *owner_task(pid_t nr, enum pid_type type)
{
	struct task_struct *t, *found = NULL;
	unsigned long flags;

	if (!nr)
		return NULL;
	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks)
		if (type == PIDTYPE_PGID ? t->pgrp == nr : type == PIDTYPE_TGID ? t->pid == nr && t->tgid == nr
										 : t->pid == nr) {
			found = t;
			break;
		}
	spin_unlock_irqrestore(&sched_lock, flags);
	return found;
}

noinline void __f_setown(struct file *filp, pid_t pid, enum pid_type type, int force)
{
	unsigned long flags;

	spin_lock_irqsave(&filp->f_owner.lock, flags);
	if (force || !filp->f_owner.pid) {
		filp->f_owner.pid = pid;
		filp->f_owner.pid_type = type;
		if (pid) {
			security_file_set_fowner(filp);
			filp->f_owner.uid = current_cred()->uid;
			filp->f_owner.euid = current_cred()->euid;
		}
	}
	spin_unlock_irqrestore(&filp->f_owner.lock, flags);
}

/* F_SETOWN: a process (arg > 0) or a process group (-arg); 0: nobody */
noinline int f_setown(struct file *filp, unsigned long arg, int force)
{
	enum pid_type type = PIDTYPE_TGID;
	int who = arg;

	if (who < 0) {
		if (who == (int)0x80000000)	/* INT_MIN: -who would overflow */
			return -EINVAL;
		type = PIDTYPE_PGID;
		who = -who;
	}
	if (who && !vpid_in_use(who))
		return -ESRCH;
	__f_setown(filp, who, type, force);
	return 0;
}

noinline void f_delown(struct file *filp)
{
	__f_setown(filp, 0, PIDTYPE_TGID, 1);
}

/* F_GETOWN: the owner while it is there (a process group: negative) */
noinline pid_t f_getown(struct file *filp)
{
	pid_t pid = 0;
	unsigned long flags;

	spin_lock_irqsave(&filp->f_owner.lock, flags);
	if (owner_task(filp->f_owner.pid, filp->f_owner.pid_type)) {
		pid = filp->f_owner.pid;
		if (filp->f_owner.pid_type == PIDTYPE_PGID)
			pid = -pid;
	}
	spin_unlock_irqrestore(&filp->f_owner.lock, flags);
	return pid;
}

struct f_owner_ex {
	int type;
	pid_t pid;
};

static __always_inline int f_setown_ex(struct file *filp, unsigned long arg)
{
	struct f_owner_ex owner;
	int type;

	if (copy_from_user(&owner, (void *)arg, sizeof(owner)))
		return -EFAULT;
	switch (owner.type) {
	case F_OWNER_TID:
		type = PIDTYPE_PID;
		break;
	case F_OWNER_PID:
		type = PIDTYPE_TGID;
		break;
	case F_OWNER_PGRP:
		type = PIDTYPE_PGID;
		break;
	default:
		return -EINVAL;
	}
	if (owner.pid && !vpid_in_use(owner.pid))
		return -ESRCH;
	__f_setown(filp, owner.pid, type, 1);
	return 0;
}

static __always_inline int f_getown_ex(struct file *filp, unsigned long arg)
{
	struct f_owner_ex owner = { 0 };
	unsigned long flags;

	spin_lock_irqsave(&filp->f_owner.lock, flags);
	if (owner_task(filp->f_owner.pid, filp->f_owner.pid_type))
		owner.pid = filp->f_owner.pid;
	owner.type = filp->f_owner.pid_type == PIDTYPE_PID ? F_OWNER_TID :
		     filp->f_owner.pid_type == PIDTYPE_PGID ? F_OWNER_PGRP : F_OWNER_PID;
	spin_unlock_irqrestore(&filp->f_owner.lock, flags);
	if (copy_to_user((void *)arg, &owner, sizeof(owner)))
		return -EFAULT;
	return 0;
}

/* F_GETOWNER_UIDS (CONFIG_CHECKPOINT_RESTORE): the ids of who set the owner */
static __always_inline int f_getowner_uids(struct file *filp, unsigned long arg)
{
	uid_t src[2];
	unsigned long flags;

	spin_lock_irqsave(&filp->f_owner.lock, flags);
	src[0] = filp->f_owner.uid;
	src[1] = filp->f_owner.euid;
	spin_unlock_irqrestore(&filp->f_owner.lock, flags);
	return copy_to_user((void *)arg, src, sizeof(src)) ? -EFAULT : 0;
}

/* ---- signal-driven I/O ---- */

/* si_band of each of send_sigio's reasons (POLL_IN ...) */
static const long band_table[NSIGPOLL] = {
	EPOLLIN | EPOLLRDNORM,			/* POLL_IN */
	EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND,	/* POLL_OUT */
	EPOLLIN | EPOLLRDNORM | EPOLLMSG,	/* POLL_MSG */
	EPOLLERR,				/* POLL_ERR */
	EPOLLPRI | EPOLLRDBAND,			/* POLL_PRI */
	EPOLLHUP | EPOLLERR			/* POLL_HUP */
};

/* Whether who set the owner may signal p: root, or its uid or suid is theirs */
static __always_inline int sigio_perm(struct task_struct *p, struct fown_struct *fown, int sig)
{
	return (fown->euid == 0 || fown->euid == __task_cred(p)->suid || fown->euid == __task_cred(p)->uid ||
		fown->uid == __task_cred(p)->suid || fown->uid == __task_cred(p)->uid) &&
	       !security_file_send_sigiotask(p, fown, sig);
}

/* The sicodes that are some signals' own (6.1's SIG_SPECIFIC_SICODES_MASK) */
#define SIG_SPECIFIC_SICODES_MASK (sigmask(SIGILL) | sigmask(SIGFPE) | sigmask(SIGSEGV) | sigmask(SIGBUS) | \
				   sigmask(SIGTRAP) | sigmask(SIGCHLD) | sigmask(SIGPOLL) | sigmask(SIGSYS))

/* F_SETSIG's signal with the fd and the band in its siginfo; failing that (or with none set)
 * a plain SIGIO */
noinline void send_sigio_to_task(struct task_struct *p, struct fown_struct *fown, int fd, int reason,
				 enum pid_type type)
{
	int signum = READ_ONCE(fown->signum);
	bool group = type != PIDTYPE_PID;

	if (!sigio_perm(p, fown, signum))
		return;
	if (signum) {
		struct sigqueue_info si = { .code = reason, .fd = fd, .poll = true };

		/* POLL_IN ... are SIGPOLL's codes; other signals with codes of their own get
		 * SI_SIGIO, so that their codes are not misread */
		if (signum != SIGPOLL && signum < 32 && (sigmask(signum) & SIG_SPECIFIC_SICODES_MASK))
			si.code = SI_SIGIO;
		si.addr = reason - POLL_IN >= NSIGPOLL ? ~0L : band_table[reason - POLL_IN];
		if (!do_send_sig_info(signum, &si, p, group))
			return;
	}
	{
		struct sigqueue_info priv = { .code = SI_KERNEL };	/* SEND_SIG_PRIV */

		do_send_sig_info(SIGIO, &priv, p, group);
	}
}

/* The file's owner (a task, a process, each process of a group) signalled of I/O on fd */
noinline void send_sigio(struct fown_struct *fown, int fd, int band)
{
	enum pid_type type;
	unsigned long flags;
	pid_t pid;

	spin_lock_irqsave(&fown->lock, flags);
	type = fown->pid_type;
	pid = fown->pid;
	if (!pid)
		goto out_unlock_fown;
	if (type <= PIDTYPE_TGID) {
		struct task_struct *p = owner_task(pid, PIDTYPE_PID);

		if (p)
			send_sigio_to_task(p, fown, fd, band, type);
	} else {
		struct task_struct *t, *procs[64];
		unsigned long f;
		int i, n = 0;

		spin_lock_irqsave(&sched_lock, f);	/* do_each_pid_task(): every task of the group */
		list_for_each_entry(t, &task_list, tasks)
			if (t->pgrp == pid && n < 64)
				procs[n++] = t;
		spin_unlock_irqrestore(&sched_lock, f);
		for (i = 0; i < n; i++)
			send_sigio_to_task(procs[i], fown, fd, band, type);
	}
out_unlock_fown:
	spin_unlock_irqrestore(&fown->lock, flags);
}

static spinlock_t fasync_lock;
static struct kmem_cache *fasync_cache;

noinline void fasync_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(fasync_cache, container_of(head, struct fasync_struct, fa_rcu));
}

/* The open file's entry off the list (then positive, FASYNC cleared); 0 if it had none */
noinline int fasync_remove_entry(struct file *filp, struct fasync_struct **fapp)
{
	struct fasync_struct *fa, **fp;
	int result = 0;

	spin_lock(&filp->f_lock);
	spin_lock(&fasync_lock);
	for (fp = fapp; (fa = *fp) != NULL; fp = &fa->fa_next) {
		if (fa->fa_file != filp)
			continue;
		spin_lock(&fa->fa_lock);
		fa->fa_file = NULL;
		spin_unlock(&fa->fa_lock);
		*fp = fa->fa_next;
		call_rcu(&fa->fa_rcu, fasync_free_rcu);	/* kill_fasync() may be walking it */
		filp->f_flags &= ~FASYNC;
		result = 1;
		break;
	}
	spin_unlock(&fasync_lock);
	spin_unlock(&filp->f_lock);
	return result;
}

noinline struct fasync_struct *fasync_alloc(void)
{
	return kmem_cache_alloc(fasync_cache, GFP_KERNEL);
}

/* An entry that never was on a list freed (one that was goes by RCU) */
noinline void fasync_free(struct fasync_struct *new)
{
	kmem_cache_free(fasync_cache, new);
}

/* The open file on the list with fd (FASYNC set), as new; the entry it already had (then only
 * its fd changed, new unused) */
noinline struct fasync_struct *fasync_insert_entry(int fd, struct file *filp, struct fasync_struct **fapp,
						   struct fasync_struct *new)
{
	struct fasync_struct *fa, **fp;

	spin_lock(&filp->f_lock);
	spin_lock(&fasync_lock);
	for (fp = fapp; (fa = *fp) != NULL; fp = &fa->fa_next) {
		if (fa->fa_file != filp)
			continue;
		spin_lock(&fa->fa_lock);
		fa->fa_fd = fd;
		spin_unlock(&fa->fa_lock);
		goto out;
	}
	memset(&new->fa_lock, 0, sizeof(new->fa_lock));
	new->magic = FASYNC_MAGIC;
	new->fa_file = filp;
	new->fa_fd = fd;
	new->fa_next = *fapp;
	__atomic_store_n(fapp, new, __ATOMIC_RELEASE);	/* rcu_assign_pointer() */
	filp->f_flags |= FASYNC;
out:
	spin_unlock(&fasync_lock);
	spin_unlock(&filp->f_lock);
	return fa;
}

static __always_inline int fasync_add_entry(int fd, struct file *filp, struct fasync_struct **fapp)
{
	struct fasync_struct *new = fasync_alloc();

	if (!new)
		return -ENOMEM;
	if (fasync_insert_entry(fd, filp, fapp, new)) {
		fasync_free(new);
		return 0;
	}
	return 1;
}

/* A file's ->fasync: the open file on the list or off it; positive if that changed it */
noinline int fasync_helper(int fd, struct file *filp, int on, struct fasync_struct **fapp)
{
	if (!on)
		return fasync_remove_entry(filp, fapp);
	return fasync_add_entry(fd, filp, fapp);
}

/* The owner of each open file on the list signalled (SIGURG only to those with F_SETSIG) */
noinline void kill_fasync(struct fasync_struct **fp, int sig, int band)
{
	struct fasync_struct *fa = __atomic_load_n(fp, __ATOMIC_ACQUIRE);

	if (!fa)	/* (the usual case: nobody asked) */
		return;
	for (; fa; fa = __atomic_load_n(&fa->fa_next, __ATOMIC_ACQUIRE)) {	/* kill_fasync_rcu() */
		unsigned long flags;

		if (fa->magic != FASYNC_MAGIC) {
			printk(KERN_ERR "kill_fasync: bad magic number in fasync_struct!\n");
			break;
		}
		spin_lock_irqsave(&fa->fa_lock, flags);
		if (fa->fa_file) {
			struct fown_struct *fown = &fa->fa_file->f_owner;

			if (!(sig == SIGURG && fown->signum == 0))
				send_sigio(fown, fa->fa_fd, band);
		}
		spin_unlock_irqrestore(&fa->fa_lock, flags);
	}
}

void __init fcntl_init(void)
{
	fasync_cache = kmem_cache_create("fasync_cache", sizeof(struct fasync_struct), 0, SLAB_PANIC, NULL);
}

noinline long do_fcntl(int fd, unsigned int cmd, unsigned long arg, struct file *filp)
{
	long err = -EINVAL;

	switch (cmd) {
	case F_DUPFD:
		err = f_dupfd(arg, filp, 0);
		break;
	case F_DUPFD_CLOEXEC:
		err = f_dupfd(arg, filp, O_CLOEXEC);
		break;
	case F_GETFD:
		err = get_close_on_exec(fd) ? FD_CLOEXEC : 0;
		break;
	case F_SETFD:
		err = 0;
		set_close_on_exec(fd, arg & FD_CLOEXEC);
		break;
	case F_GETFL:
		err = filp->f_flags;
		break;
	case F_SETFL:
		err = setfl(fd, filp, arg);
		break;
	case F_OFD_GETLK:
	case F_GETLK: {
		struct flock flock;

		if (copy_from_user(&flock, (void *)arg, sizeof(flock)))
			return -EFAULT;
		err = fcntl_getlk(filp, cmd, &flock);
		if (!err && copy_to_user((void *)arg, &flock, sizeof(flock)))
			return -EFAULT;
		break;
	}
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
	case F_SETLK:
	case F_SETLKW: {
		struct flock flock;

		if (copy_from_user(&flock, (void *)arg, sizeof(flock)))
			return -EFAULT;
		err = fcntl_setlk(fd, filp, cmd, &flock);
		break;
	}
	case F_GETOWN:
		/* (an owning process group's negative id: an error to libc, as in Linux) */
		err = f_getown(filp);
		break;
	case F_SETOWN:
		err = f_setown(filp, arg, 1);
		break;
	case F_GETOWN_EX:
		err = f_getown_ex(filp, arg);
		break;
	case F_SETOWN_EX:
		err = f_setown_ex(filp, arg);
		break;
	case F_GETOWNER_UIDS:
		err = f_getowner_uids(filp, arg);
		break;
	case F_GETSIG:
		err = filp->f_owner.signum;
		break;
	case F_SETSIG:
		if (arg > _NSIG)	/* !valid_signal(); 0: SIGIO again */
			break;
		err = 0;
		filp->f_owner.signum = arg;
		break;
	case F_GETLEASE:
		err = fcntl_getlease(filp);
		break;
	case F_SETLEASE:
		err = fcntl_setlease(fd, filp, arg);
		break;
	case F_SETPIPE_SZ:
	case F_GETPIPE_SZ:
		err = filp->f_op && filp->f_op->fcntl ? filp->f_op->fcntl(filp, cmd, arg) : -EBADF;
		break;
	case F_ADD_SEALS:
	case F_GET_SEALS:
		err = memfd_fcntl(filp, cmd, (unsigned int)arg);	/* (6.1 passes argi) */
		break;
	default:
		break;
	}
	return err;
}

static notrace int check_fcntl_cmd(unsigned cmd)
{
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
	case F_GETFD:
	case F_SETFD:
	case F_GETFL:
		return 1;
	}
	return 0;
}

SYSCALL_DEFINE3(fcntl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct fd f = fdget_raw(fd);
	long err = -EBADF;

	if (!f.file)
		goto out;
	if (f.file->f_mode & FMODE_PATH) {
		if (!check_fcntl_cmd(cmd))
			goto out1;
	}
	err = security_file_fcntl(f.file, cmd, arg);
	if (!err)
		err = do_fcntl(fd, cmd, arg, f.file);
out1:
	fdput(f);
out:
	return err;
}
