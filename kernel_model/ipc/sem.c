/*
 * System V semaphores (Linux 6.1's ipc/sem.c): semget (ksys_semget → ipcget → newary), semop
 * and semtimedop (do_semtimedop → __do_semtimedop → perform_atomic_semop), semctl (GETVAL,
 * SETVAL, GETALL, SETALL, GETPID, GETNCNT, GETZCNT, IPC_STAT/SEM_STAT/SEM_STAT_ANY,
 * IPC_INFO/SEM_INFO, IPC_SET, IPC_RMID) and SEM_UNDO's adjustments, applied when the last task
 * sharing them exits (exit_sem) or unshares them.
 * A semop that cannot proceed queues itself on the array (one queue in arrival order: 6.1
 * keeps simple operations on per-semaphore queues, which gives the same order of wake-ups
 * here) and sleeps; whoever changes a value performs the queued operations that can now
 * proceed (update_queue) and wakes their tasks with the result.
 * A session's (host) processes keep the host's IPC: the kernel makes no objects for them
 * (ENOSYS, as for their sockets).
 */
#include "../include/kernel.h"
#include "../include/nsproxy.h"
#include "../include/slab.h"
#include "../include/signal.h"
#include "../include/timer.h"
#include "../include/syscalls.h"
#include "../include/fs.h"

/* include/uapi/linux/sem.h */
#define SEM_UNDO	0x1000
#define GETPID		11
#define GETVAL		12
#define GETALL		13
#define GETNCNT		14
#define GETZCNT		15
#define SETVAL		16
#define SETALL		17
#define SEM_STAT	18
#define SEM_INFO	19
#define SEM_STAT_ANY	20
#define SEMVMX		32767
#define SEMAEM		SEMVMX
#define SEMUSZ		20

#define CLONE_SYSVSEM	0x00040000	/* (include/uapi/linux/sched.h) */

struct sem {
	int semval;
	pid_t sempid;		/* the tgid of the last task to change it */
	time64_t sem_otime;	/* its last semop */
};

struct sem_array {
	struct kern_ipc_perm sem_perm;
	time64_t sem_ctime;
	struct list_head pending;	/* struct sem_queue: the sleeping semops, first come first */
	struct list_head list_id;	/* struct sem_undo: the undo structures of this array */
	int sem_nsems;
	struct sem sems[];
};

/* a sleeping semop */
struct sem_queue {
	struct list_head list;
	struct task_struct *sleeper;
	struct sem_undo *undo;
	pid_t pid;			/* its tgid */
	int status;			/* -EINTR while it waits; then its result */
	struct sembuf *sops;
	struct sembuf *blocking;	/* the operation it waits on (GETNCNT, GETZCNT) */
	int nsops;
	bool alter;			/* whether it changes a value */
};

/* a process's adjustments of one array (SEM_UNDO), in its list and in the array's */
struct sem_undo {
	struct list_head list_proc;
	struct list_head list_id;
	struct sem_undo_list *ulp;
	int semid;			/* -1 once the array is gone */
	short semadj[];
};

/* a process's undo structures: task->sysvsem.undo_list, shared by CLONE_SYSVSEM */
struct sem_undo_list {
	int refcnt;
	struct list_head list_proc;
};

/* the uapi's struct sembuf, semid64_ds (x86-64) and seminfo */
struct sembuf {
	unsigned short sem_num;
	short sem_op;
	short sem_flg;
};
struct semid64_ds {
	struct ipc64_perm sem_perm;
	long sem_otime;
	unsigned long __unused1;
	long sem_ctime;
	unsigned long __unused2;
	unsigned long sem_nsems;
	unsigned long __unused3, __unused4;
};
_Static_assert(sizeof(struct semid64_ds) == 104, "semid64_ds as x86-64's");
struct seminfo {
	int semmap, semmni, semmns, semmnu, semmsl, semopm, semume, semusz, semvmx, semaem;
};

#define sem_ids(ns)	((ns)->ipc.ids[IPC_SEM_IDS])
#define sc_semmsl	ipc.sem_ctls[0]
#define sc_semmns	ipc.sem_ctls[1]
#define sc_semopm	ipc.sem_ctls[2]
#define sc_semmni	ipc.sem_ctls[3]

noinline void sem_rcu_free(struct rcu_head *head)
{
	kfree(container_of(head, struct sem_array, sem_perm.rcu));
}

/* semget's new array of nsems semaphores, all 0; the caller holds the rwsem */
noinline int newary(struct ipc_namespace *ns, struct ipc_params *params)
{
	int nsems = params->u.nsems, retval;
	struct sem_array *sma;

	if (!nsems)
		return -EINVAL;
	if (ns->ipc.used_sems + nsems > ns->sc_semmns)
		return -ENOSPC;
	sma = kzalloc(sizeof(*sma) + nsems * sizeof(sma->sems[0]), GFP_KERNEL);
	if (!sma)
		return -ENOMEM;
	sma->sem_perm.mode = params->flg & S_IRWXUGO;
	sma->sem_perm.key = params->key;
	sma->sem_nsems = nsems;
	sma->sem_ctime = ktime_get_real_seconds();
	INIT_LIST_HEAD(&sma->pending);
	INIT_LIST_HEAD(&sma->list_id);
	retval = ipc_addid(&sem_ids(ns), &sma->sem_perm, ns->sc_semmni);
	if (retval < 0) {
		kfree(sma);
		return retval;
	}
	ns->ipc.used_sems += nsems;
	return sma->sem_perm.id;
}

/* an existing array for semget: -EINVAL when it has fewer semaphores than asked for */
noinline int sem_more_checks(struct kern_ipc_perm *ipcp, struct ipc_params *params)
{
	struct sem_array *sma = container_of(ipcp, struct sem_array, sem_perm);

	return params->u.nsems > sma->sem_nsems ? -EINVAL : 0;
}

static inline long ksys_semget(key_t key, int nsems, int semflg)
{
	static const struct ipc_ops sem_ops = { .getnew = newary, .more_checks = sem_more_checks };
	struct ipc_params sem_params = { .key = key, .flg = semflg, .u.nsems = nsems };
	struct ipc_namespace *ns;

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	ns = current_ipc_ns();
	if (nsems < 0 || nsems > ns->sc_semmsl)
		return -EINVAL;
	return ipcget(ns, &sem_ids(ns), &sem_ops, &sem_params);
}

SYSCALL_DEFINE3(semget, key_t, key, int, nsems, int, semflg)
{
	return ksys_semget(key, nsems, semflg);
}

static inline struct sem_array *sem_obtain_object_check(struct ipc_namespace *ns, int id)
{
	struct kern_ipc_perm *ipcp = ipc_obtain_object_check(&sem_ids(ns), id);

	return IS_ERR(ipcp) ? (struct sem_array *)ipcp : container_of(ipcp, struct sem_array, sem_perm);
}

/* Performs the operations at once or none of them: 0 done, 1 when one must wait (a decrement
 * below 0, a wait for zero of a non-zero value), -EAGAIN instead when that one has
 * IPC_NOWAIT, -ERANGE past SEMVMX or SEMAEM.  Each operation sees the values the ones before
 * it made (6.1's perform_atomic_semop_slow, which its fast path equals for distinct
 * semaphores). */
noinline int perform_atomic_semop(struct sem_array *sma, struct sem_queue *q)
{
	struct sembuf *sop;
	struct sem_undo *un = q->undo;
	int result;

	for (sop = q->sops; sop < q->sops + q->nsops; sop++) {
		struct sem *curr = &sma->sems[sop->sem_num];

		result = curr->semval;
		if (!sop->sem_op && result)
			goto would_block;
		result += sop->sem_op;
		if (result < 0)
			goto would_block;
		if (result > SEMVMX) {
			result = -ERANGE;
			goto undo;
		}
		if (sop->sem_flg & SEM_UNDO) {
			int undo = un->semadj[sop->sem_num] - sop->sem_op;

			if (undo < (-SEMAEM - 1) || undo > SEMAEM) {
				result = -ERANGE;
				goto undo;
			}
			un->semadj[sop->sem_num] = undo;
		}
		curr->semval = result;
	}
	for (sop = q->sops; sop < q->sops + q->nsops; sop++)
		sma->sems[sop->sem_num].sempid = q->pid;
	return 0;

would_block:
	q->blocking = sop;
	result = sop->sem_flg & IPC_NOWAIT ? -EAGAIN : 1;
undo:
	/* take back what the operations before `sop` did */
	while (--sop >= q->sops) {
		sma->sems[sop->sem_num].semval -= sop->sem_op;
		if (sop->sem_flg & SEM_UNDO)
			un->semadj[sop->sem_num] += sop->sem_op;
	}
	return result;
}

/* a sleeping semop's result: it is off the queue, and its task runs again */
static inline void wake_up_sem_queue(struct sem_queue *q, int error)
{
	list_del(&q->list);
	WRITE_ONCE(q->status, error);
	wake_up_process(q->sleeper);
}

/* Performs the queued operations that can now proceed, first come first, until none can;
 * returns how many it woke. */
noinline int update_queue(struct sem_array *sma)
{
	struct sem_queue *q, *tmp;
	int semop_completed = 0;
	bool again;

	do {
		again = false;
		list_for_each_entry_safe(q, tmp, &sma->pending, list) {
			int error = perform_atomic_semop(sma, q);

			if (error > 0)
				continue;	/* still waits */
			wake_up_sem_queue(q, error);
			if (!error) {
				semop_completed++;
				/* a change may let an earlier one proceed */
				again = q->alter;
				if (again)
					break;
			}
		}
	} while (again);
	return semop_completed;
}

/* after a change of values: the time of the operations done (sops, NULL for semctl and
 * exit_sem), and the queued operations that can proceed now */
static inline void do_smart_update(struct sem_array *sma, struct sembuf *sops, int nsops, int otime)
{
	if (update_queue(sma))
		otime = 1;
	if (otime && sops) {
		time64_t now = ktime_get_real_seconds();

		for (int i = 0; i < nsops; i++)
			sma->sems[sops[i].sem_num].sem_otime = now;
	}
}

/* the process's undo structures, made on first use (the caller holds the rwsem) */
static inline struct sem_undo_list *get_undo_list(void)
{
	struct sem_undo_list *ulp = current->sysvsem.undo_list;

	if (!ulp) {
		ulp = kzalloc(sizeof(*ulp), GFP_KERNEL);
		if (!ulp)
			return NULL;
		ulp->refcnt = 1;
		INIT_LIST_HEAD(&ulp->list_proc);
		current->sysvsem.undo_list = ulp;
	}
	return ulp;
}

noinline struct sem_undo *lookup_undo(struct sem_undo_list *ulp, int semid)
{
	struct sem_undo *un;

	list_for_each_entry(un, &ulp->list_proc, list_proc)
		if (un->semid == semid)
			return un;
	return NULL;
}

/* the process's adjustments of the array semid, made on first use; the caller holds the
 * rwsem */
static inline struct sem_undo *find_alloc_undo(struct ipc_namespace *ns, int semid)
{
	struct sem_undo_list *ulp = get_undo_list();
	struct sem_array *sma;
	struct sem_undo *un;

	if (!ulp)
		return ERR_PTR(-ENOMEM);
	un = lookup_undo(ulp, semid);
	if (un)
		return un;
	sma = sem_obtain_object_check(ns, semid);
	if (IS_ERR(sma))
		return (struct sem_undo *)sma;
	un = kzalloc(sizeof(*un) + sma->sem_nsems * sizeof(un->semadj[0]), GFP_KERNEL);
	if (!un)
		return ERR_PTR(-ENOMEM);
	un->ulp = ulp;
	un->semid = semid;
	list_add(&un->list_proc, &ulp->list_proc);
	list_add(&un->list_id, &sma->list_id);
	return un;
}

noinline long __do_semtimedop(int semid, struct sembuf *sops, unsigned int nsops,
			      const struct timespec64 *timeout, struct ipc_namespace *ns)
{
	bool undos = false, alter = false, timed_out = false;
	ktime_t expires, *exp = NULL;
	struct sem_queue queue;
	struct sem_array *sma;
	struct sem_undo *un = NULL;
	struct sembuf *sop;
	int error, max = 0;

	if (nsops < 1 || semid < 0)
		return -EINVAL;
	if (nsops > ns->sc_semopm)
		return -E2BIG;
	if (timeout) {
		if (!timespec64_valid(timeout))
			return -EINVAL;
		/* ktime_add_safe(): a sum past KTIME_MAX is KTIME_MAX */
		if (__builtin_add_overflow(ktime_get(), timespec64_to_ns(timeout), &expires) || expires < 0)
			expires = (ktime_t)~0ULL >> 1;
		exp = &expires;
	}
	for (sop = sops; sop < sops + nsops; sop++) {
		if (sop->sem_num >= max)
			max = sop->sem_num;
		if (sop->sem_flg & SEM_UNDO)
			undos = true;
		if (sop->sem_op != 0)
			alter = true;
	}

	down_write(&sem_ids(ns).rwsem);
	if (undos) {
		un = find_alloc_undo(ns, semid);
		if (IS_ERR(un)) {
			error = PTR_ERR(un);
			goto out;
		}
	}
	sma = sem_obtain_object_check(ns, semid);
	if (IS_ERR(sma)) {
		error = PTR_ERR(sma);
		goto out;
	}
	error = -EFBIG;
	if (max >= sma->sem_nsems)
		goto out;
	error = -EACCES;
	if (ipcperms(ns, &sma->sem_perm, alter ? S_IWUGO : S_IRUGO))
		goto out;

	queue.sops = sops;
	queue.nsops = nsops;
	queue.undo = un;
	queue.pid = task_tgid_vnr(current);
	queue.alter = alter;
	error = perform_atomic_semop(sma, &queue);
	if (error == 0) {
		if (alter)
			do_smart_update(sma, sops, nsops, 1);
		else
			sma->sems[sops[0].sem_num].sem_otime = ktime_get_real_seconds();	/* set_semotime() */
		goto out;
	}
	if (error < 0)
		goto out;

	/* it waits: on the array's queue until an update performs it, the array goes (EIDRM), a
	 * signal comes (EINTR: semop is never restarted) or the timeout passes (EAGAIN) */
	list_add_tail(&queue.list, &sma->pending);
	ipc_rcu_getref(&sma->sem_perm);
	do {
		WRITE_ONCE(queue.status, -EINTR);
		queue.sleeper = current;
		set_current_state(TASK_INTERRUPTIBLE);
		up_write(&sem_ids(ns).rwsem);
		timed_out = !schedule_hrtimeout_range(exp, current->timer_slack_ns, HRTIMER_MODE_ABS);
		down_write(&sem_ids(ns).rwsem);
		error = READ_ONCE(queue.status);
		if (error != -EINTR)
			break;
		if (timed_out)
			error = -EAGAIN;
	} while (error == -EINTR && !signal_pending(current));
	if (READ_ONCE(queue.status) == -EINTR)	/* still queued: no update performed it */
		list_del(&queue.list);	/* unlink_queue() */
	ipc_rcu_putref(&sma->sem_perm, sem_rcu_free);
out:
	up_write(&sem_ids(ns).rwsem);
	return error;
}

noinline long do_semtimedop(int semid, struct sembuf *tsops, unsigned int nsops, const struct timespec64 *timeout)
{
	struct ipc_namespace *ns = current_ipc_ns();
	struct sembuf *sops;
	long ret;

	if (nsops > ns->sc_semopm)
		return -E2BIG;
	if (nsops < 1)
		return -EINVAL;
	sops = kmalloc(nsops * sizeof(*sops), GFP_KERNEL);
	if (!sops)
		return -ENOMEM;
	if (copy_from_user(sops, tsops, nsops * sizeof(*tsops)))
		ret = -EFAULT;
	else
		ret = __do_semtimedop(semid, sops, nsops, timeout, ns);
	kfree(sops);
	return ret;
}

static inline long ksys_semtimedop(int semid, struct sembuf *tsops, unsigned int nsops,
			      const struct __kernel_timespec *timeout)
{
	struct timespec64 ts;

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	if (timeout) {
		if (get_timespec64(&ts, timeout))
			return -EFAULT;
		return do_semtimedop(semid, tsops, nsops, &ts);
	}
	return do_semtimedop(semid, tsops, nsops, NULL);
}

SYSCALL_DEFINE4(semtimedop, int, semid, struct sembuf *, tsops, unsigned int, nsops,
		const struct __kernel_timespec *, timeout)
{
	return ksys_semtimedop(semid, tsops, nsops, timeout);
}

/* 6.1's x86-64 entry of semop jumps to do_semtimedop: a function trace names its caller
 * do_syscall_64 (and semget's and semtimedop's inline ksys_semget and ksys_semtimedop, whose
 * out-of-line copies serve the compat ipc(2) multiplexer, not modelled) */
long __x64_sys_semop(const struct pt_regs *regs) __attribute__((optimize("optimize-sibling-calls")));

SYSCALL_DEFINE3(semop, int, semid, struct sembuf *, tsops, unsigned, nsops)
{
	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	return do_semtimedop(semid, tsops, nsops, NULL);
}

/* IPC_RMID: the queued semops answer EIDRM, the undo structures of the array go */
noinline void freeary(struct ipc_namespace *ns, struct kern_ipc_perm *ipcp)
{
	struct sem_array *sma = container_of(ipcp, struct sem_array, sem_perm);
	struct sem_queue *q, *tq;
	struct sem_undo *un, *tu;

	list_for_each_entry_safe(un, tu, &sma->list_id, list_id) {
		list_del(&un->list_id);
		list_del(&un->list_proc);
		kfree(un);
	}
	list_for_each_entry_safe(q, tq, &sma->pending, list)
		wake_up_sem_queue(q, -EIDRM);
	ipc_rmid(&sem_ids(ns), ipcp);
	ns->ipc.used_sems -= sma->sem_nsems;
	ipc_rcu_putref(ipcp, sem_rcu_free);
}

/* the last semop's time: the latest of the semaphores' */
static inline time64_t get_semotime(struct sem_array *sma)
{
	time64_t res = sma->sems[0].sem_otime;

	for (int i = 1; i < sma->sem_nsems; i++)
		if (sma->sems[i].sem_otime > res)
			res = sma->sems[i].sem_otime;
	return res;
}

/* IPC_STAT (an id: 0), SEM_STAT (an index: the array's id), SEM_STAT_ANY (same, without the
 * read permission) */
noinline int semctl_stat(struct ipc_namespace *ns, int semid, int cmd, struct semid64_ds *semid64)
{
	struct kern_ipc_perm *ipcp;
	struct sem_array *sma;
	int err;

	memset(semid64, 0, sizeof(*semid64));
	down_write(&sem_ids(ns).rwsem);
	if (cmd == SEM_STAT || cmd == SEM_STAT_ANY)
		ipcp = ipc_obtain_object_idr(&sem_ids(ns), semid);
	else
		ipcp = ipc_obtain_object_check(&sem_ids(ns), semid);
	if (IS_ERR(ipcp)) {
		err = PTR_ERR(ipcp);
		goto out;
	}
	err = -EACCES;
	if (cmd != SEM_STAT_ANY && ipcperms(ns, ipcp, S_IRUGO))
		goto out;
	sma = container_of(ipcp, struct sem_array, sem_perm);
	kernel_to_ipc64_perm(ipcp, &semid64->sem_perm);
	semid64->sem_otime = get_semotime(sma);
	semid64->sem_ctime = sma->sem_ctime;
	semid64->sem_nsems = sma->sem_nsems;
	err = cmd == IPC_STAT ? 0 : ipcp->id;
out:
	up_write(&sem_ids(ns).rwsem);
	return err;
}

/* IPC_INFO: the limits; SEM_INFO: the arrays and semaphores in use.  Both return the highest
 * index in use. */
static inline int semctl_info(struct ipc_namespace *ns, int semid, int cmd, void *p)
{
	struct seminfo seminfo;
	int max_idx;

	memset(&seminfo, 0, sizeof(seminfo));
	seminfo.semmni = ns->sc_semmni;
	seminfo.semmns = ns->sc_semmns;
	seminfo.semmsl = ns->sc_semmsl;
	seminfo.semopm = ns->sc_semopm;
	seminfo.semvmx = SEMVMX;
	seminfo.semmnu = ns->sc_semmns;	/* SEMMNU */
	seminfo.semmap = ns->sc_semmns;	/* SEMMAP */
	seminfo.semume = ns->sc_semopm;	/* SEMUME */
	down_write(&sem_ids(ns).rwsem);
	if (cmd == SEM_INFO) {
		seminfo.semusz = sem_ids(ns).in_use;
		seminfo.semaem = ns->ipc.used_sems;
	} else {
		seminfo.semusz = SEMUSZ;
		seminfo.semaem = SEMAEM;
	}
	max_idx = ipc_get_maxidx(&sem_ids(ns));
	up_write(&sem_ids(ns).rwsem);
	if (copy_to_user(p, &seminfo, sizeof(seminfo)))
		return -EFAULT;
	return max_idx < 0 ? 0 : max_idx;
}

/* the undo adjustments of semaphore semnum (-1: all) no longer count: its value was set */
static inline void sem_clear_semadj(struct sem_array *sma, int semnum)
{
	struct sem_undo *un;

	list_for_each_entry(un, &sma->list_id, list_id) {
		if (semnum >= 0)
			un->semadj[semnum] = 0;
		else
			memset(un->semadj, 0, sma->sem_nsems * sizeof(un->semadj[0]));
	}
}

noinline int semctl_setval(struct ipc_namespace *ns, int semid, int semnum, int val)
{
	struct sem_array *sma;
	int err;

	if (val > SEMVMX || val < 0)
		return -ERANGE;
	down_write(&sem_ids(ns).rwsem);
	sma = sem_obtain_object_check(ns, semid);
	if (IS_ERR(sma)) {
		err = PTR_ERR(sma);
		goto out;
	}
	err = -EINVAL;
	if (semnum < 0 || semnum >= sma->sem_nsems)
		goto out;
	err = -EACCES;
	if (ipcperms(ns, &sma->sem_perm, S_IWUGO))
		goto out;
	sem_clear_semadj(sma, semnum);
	sma->sems[semnum].semval = val;
	sma->sems[semnum].sempid = task_tgid_vnr(current);
	sma->sem_ctime = ktime_get_real_seconds();
	do_smart_update(sma, NULL, 0, 0);
	err = 0;
out:
	up_write(&sem_ids(ns).rwsem);
	return err;
}

/* how many queued semops wait on semaphore semnum: to decrement it, or (count_zero) for it to
 * be 0 */
noinline int count_semcnt(struct sem_array *sma, unsigned short semnum, bool count_zero)
{
	struct sem_queue *q;
	int semcnt = 0;

	list_for_each_entry(q, &sma->pending, list) {
		struct sembuf *sop = q->blocking;

		if (sop->sem_num != semnum)
			continue;
		if (count_zero ? sop->sem_op == 0 : sop->sem_op < 0)
			semcnt++;
	}
	return semcnt;
}

/* GETALL, SETALL (arrays of unsigned short at p), GETVAL, GETPID, GETNCNT, GETZCNT */
noinline int semctl_main(struct ipc_namespace *ns, int semid, int semnum, int cmd, void *p)
{
	unsigned short *vals = NULL;
	struct sem_array *sma;
	int err, nsems;

	down_write(&sem_ids(ns).rwsem);
	sma = sem_obtain_object_check(ns, semid);
	if (IS_ERR(sma)) {
		err = PTR_ERR(sma);
		goto out;
	}
	nsems = sma->sem_nsems;
	err = -EACCES;
	if (ipcperms(ns, &sma->sem_perm, cmd == SETALL ? S_IWUGO : S_IRUGO))
		goto out;
	if (cmd == GETALL || cmd == SETALL) {
		err = -ENOMEM;
		vals = kmalloc(nsems * sizeof(*vals), GFP_KERNEL);
		if (!vals)
			goto out;
	}
	switch (cmd) {
	case GETALL:
		for (int i = 0; i < nsems; i++)
			vals[i] = sma->sems[i].semval;
		err = copy_to_user(p, vals, nsems * sizeof(*vals)) ? -EFAULT : 0;
		goto out;
	case SETALL:
		err = -EFAULT;
		if (copy_from_user(vals, p, nsems * sizeof(*vals)))
			goto out;
		err = -ERANGE;
		for (int i = 0; i < nsems; i++)
			if (vals[i] > SEMVMX)
				goto out;
		sem_clear_semadj(sma, -1);
		for (int i = 0; i < nsems; i++) {
			sma->sems[i].semval = vals[i];
			sma->sems[i].sempid = task_tgid_vnr(current);
		}
		sma->sem_ctime = ktime_get_real_seconds();
		do_smart_update(sma, NULL, 0, 0);
		err = 0;
		goto out;
	}
	err = -EINVAL;
	if (semnum < 0 || semnum >= nsems)
		goto out;
	switch (cmd) {
	case GETVAL:
		err = sma->sems[semnum].semval;
		break;
	case GETPID:
		err = sma->sems[semnum].sempid;
		break;
	case GETNCNT:
		err = count_semcnt(sma, semnum, false);
		break;
	case GETZCNT:
		err = count_semcnt(sma, semnum, true);
		break;
	}
out:
	up_write(&sem_ids(ns).rwsem);
	kfree(vals);
	return err;
}

/* IPC_SET and IPC_RMID: the creator's, the owner's or CAP_SYS_ADMIN's */
noinline int semctl_down(struct ipc_namespace *ns, int semid, int cmd, struct semid64_ds *semid64)
{
	struct kern_ipc_perm *ipcp;
	int err = 0;

	down_write(&sem_ids(ns).rwsem);
	ipcp = ipcctl_obtain_check(ns, &sem_ids(ns), semid, cmd, &semid64->sem_perm, 0);
	if (IS_ERR(ipcp)) {
		err = PTR_ERR(ipcp);
		goto out;
	}
	if (cmd == IPC_RMID) {
		freeary(ns, ipcp);
	} else {
		ipc_update_perm(&semid64->sem_perm, ipcp);
		container_of(ipcp, struct sem_array, sem_perm)->sem_ctime = ktime_get_real_seconds();
	}
out:
	up_write(&sem_ids(ns).rwsem);
	return err;
}

static inline long ksys_semctl(int semid, int semnum, int cmd, unsigned long arg)
{
	struct ipc_namespace *ns;
	void *p = (void *)arg;
	struct semid64_ds semid64;
	int err;

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	if (semid < 0)
		return -EINVAL;
	ns = current_ipc_ns();
	switch (cmd) {
	case IPC_INFO:
	case SEM_INFO:
		return semctl_info(ns, semid, cmd, p);
	case IPC_STAT:
	case SEM_STAT:
	case SEM_STAT_ANY:
		err = semctl_stat(ns, semid, cmd, &semid64);
		if (err < 0)
			return err;
		if (copy_to_user(p, &semid64, sizeof(semid64)))
			err = -EFAULT;
		return err;
	case GETALL:
	case GETVAL:
	case GETPID:
	case GETNCNT:
	case GETZCNT:
	case SETALL:
		return semctl_main(ns, semid, semnum, cmd, p);
	case SETVAL:
		return semctl_setval(ns, semid, semnum, (int)arg);
	case IPC_SET:
		if (copy_from_user(&semid64, p, sizeof(semid64)))
			return -EFAULT;
		return semctl_down(ns, semid, cmd, &semid64);
	case IPC_RMID:
		return semctl_down(ns, semid, cmd, &semid64);
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE4(semctl, int, semid, int, semnum, int, cmd, unsigned long, arg)
{
	return ksys_semctl(semid, semnum, cmd, arg);
}

/* fork: a CLONE_SYSVSEM child shares its parent's undo structures, any other starts without */
noinline int copy_semundo(unsigned long clone_flags, struct task_struct *tsk)
{
	struct ipc_namespace *ns = current_ipc_ns();
	struct sem_undo_list *ulp;

	tsk->sysvsem.undo_list = NULL;
	if (!(clone_flags & CLONE_SYSVSEM))
		return 0;
	down_write(&sem_ids(ns).rwsem);
	ulp = get_undo_list();
	if (ulp) {
		ulp->refcnt++;
		tsk->sysvsem.undo_list = ulp;
	}
	up_write(&sem_ids(ns).rwsem);
	return ulp ? 0 : -ENOMEM;
}

/* The last task sharing the undo structures exits (or unshares them): each array still there
 * gets its adjustments, its values kept within 0..SEMVMX, and its queued semops a look. */
noinline void exit_sem(struct task_struct *tsk)
{
	struct ipc_namespace *ns = &init_ipc_ns;	/* the one IPC namespace (no CLONE_NEWIPC) */
	struct sem_undo_list *ulp = tsk->sysvsem.undo_list;
	struct sem_undo *un, *tu;

	if (!ulp)
		return;
	tsk->sysvsem.undo_list = NULL;
	down_write(&sem_ids(ns).rwsem);
	if (--ulp->refcnt)
		goto out;
	list_for_each_entry_safe(un, tu, &ulp->list_proc, list_proc) {
		struct sem_array *sma = sem_obtain_object_check(ns, un->semid);

		if (!IS_ERR(sma)) {
			for (int i = 0; i < sma->sem_nsems; i++) {
				struct sem *semaphore = &sma->sems[i];

				if (!un->semadj[i])
					continue;
				semaphore->semval += un->semadj[i];
				if (semaphore->semval < 0)
					semaphore->semval = 0;
				if (semaphore->semval > SEMVMX)
					semaphore->semval = SEMVMX;
				semaphore->sempid = task_tgid_vnr(tsk);
			}
			do_smart_update(sma, NULL, 0, 1);
		}
		list_del(&un->list_id);
		list_del(&un->list_proc);
		kfree(un);
	}
	kfree(ulp);
out:
	up_write(&sem_ids(ns).rwsem);
}

/* /proc/sysvipc/sem's line of an array */
noinline int sysvipc_sem_proc_show(struct seq_file *s, void *it)
{
	struct kern_ipc_perm *ipcp = it;
	struct sem_array *sma = container_of(ipcp, struct sem_array, sem_perm);

	seq_printf(s, "%10d %10d  %4o %10u %5u %5u %5u %5u %10llu %10llu\n",
		   ipcp->key, ipcp->id, ipcp->mode, sma->sem_nsems, ipcp->uid, ipcp->gid, ipcp->cuid, ipcp->cgid,
		   get_semotime(sma), sma->sem_ctime);
	return 0;
}
