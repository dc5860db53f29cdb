/*
 * System V message queues (Linux 6.1's ipc/msg.c): msgget (ksys_msgget → ipcget → newque),
 * msgsnd (do_msgsnd), msgrcv (do_msgrcv: by type, MSG_NOERROR, MSG_EXCEPT, MSG_COPY), msgctl
 * (IPC_STAT/MSG_STAT/MSG_STAT_ANY, IPC_INFO/MSG_INFO, IPC_SET and IPC_RMID: msgctl_down).
 * A sender finding the queue full and a receiver finding no message sleep on the queue's wait
 * queue until it changes (6.1 queues them on q_senders/q_receivers and hands a message
 * straight to a waiting receiver, pipelined_send; here the woken receivers look again).
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

#define MSG_STAT	11
#define MSG_INFO	12
#define MSG_STAT_ANY	13
#define MSG_NOERROR	010000
#define MSG_EXCEPT	020000
#define MSG_COPY	040000

/* IPC_INFO's constants (include/uapi/linux/msg.h) */
#define MSGMNB		16384
#define MSGPOOL		(IPCMNI_DEFAULT * MSGMNB / 1024)
#define MSGTQL		MSGMNB
#define MSGMAP		MSGMNB
#define MSGSSZ		16
#define MSGSEG		0xffff

/* find_msg's modes */
#define SEARCH_ANY		1
#define SEARCH_EQUAL		2
#define SEARCH_NOTEQUAL		3
#define SEARCH_LESSEQUAL	4
#define SEARCH_NUMBER		5

struct msg_queue {
	struct kern_ipc_perm q_perm;
	time64_t q_stime;		/* last msgsnd */
	time64_t q_rtime;		/* last msgrcv */
	time64_t q_ctime;		/* last change */
	unsigned long q_cbytes;		/* bytes in the queue */
	unsigned long q_qnum;		/* messages in it */
	unsigned long q_qbytes;		/* at most that many bytes */
	pid_t q_lspid;			/* the last sender's tgid */
	pid_t q_lrpid;			/* the last receiver's */
	struct list_head q_messages;
	struct wait_queue_head wait;	/* senders and receivers sleeping on it */
	unsigned long gen;		/* moves on at each change a sleeper waits for */
};

/* the uapi's struct msqid64_ds (x86-64) and struct msginfo */
struct msqid64_ds {
	struct ipc64_perm msg_perm;
	long msg_stime, msg_rtime, msg_ctime;
	unsigned long msg_cbytes, msg_qnum, msg_qbytes;
	int msg_lspid, msg_lrpid;
	unsigned long __unused4, __unused5;
};
_Static_assert(sizeof(struct msqid64_ds) == 120, "msqid64_ds as x86-64's");
struct msginfo {
	int msgpool, msgmap, msgmax, msgmnb, msgmni, msgssz, msgtql;
	unsigned short msgseg;
};

/* the uapi's struct msgbuf: the type, then the text */
struct msgbuf {
	long mtype;
	char mtext[];
};

#define msg_ids(ns)	((ns)->ipc.ids[IPC_MSG_IDS])

/* the queue's sleepers look again */
static inline void msq_changed(struct msg_queue *msq)
{
	msq->gen++;
	wake_up_interruptible_all(&msq->wait);
}

noinline void msg_rcu_free(struct rcu_head *head)
{
	kfree(container_of(head, struct msg_queue, q_perm.rcu));
}

/* msgget's new queue: mode from the flags, msgmnb bytes at most; the caller holds the rwsem */
noinline int newque(struct ipc_namespace *ns, struct ipc_params *params)
{
	struct msg_queue *msq = kzalloc(sizeof(*msq), GFP_KERNEL);
	int retval;

	if (!msq)
		return -ENOMEM;
	msq->q_perm.mode = params->flg & S_IRWXUGO;
	msq->q_perm.key = params->key;
	msq->q_ctime = ktime_get_real_seconds();
	msq->q_qbytes = ns->ipc.msg_ctlmnb;
	INIT_LIST_HEAD(&msq->q_messages);
	init_waitqueue_head(&msq->wait);
	retval = ipc_addid(&msg_ids(ns), &msq->q_perm, ns->ipc.msg_ctlmni);
	if (retval < 0) {
		kfree(msq);
		return retval;
	}
	return msq->q_perm.id;
}

static inline long ksys_msgget(key_t key, int msgflg)
{
	static const struct ipc_ops msg_ops = { .getnew = newque };
	struct ipc_params msg_params = { .key = key, .flg = msgflg };
	struct ipc_namespace *ns;

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	ns = current_ipc_ns();
	return ipcget(ns, &msg_ids(ns), &msg_ops, &msg_params);
}

SYSCALL_DEFINE2(msgget, key_t, key, int, msgflg)
{
	return ksys_msgget(key, msgflg);
}

static inline struct msg_queue *msq_obtain_object_check(struct ipc_namespace *ns, int id)
{
	struct kern_ipc_perm *ipcp = ipc_obtain_object_check(&msg_ids(ns), id);

	return IS_ERR(ipcp) ? (struct msg_queue *)ipcp : container_of(ipcp, struct msg_queue, q_perm);
}

/* IPC_RMID and exit of a namespace: the queue's messages freed, its sleepers woken to answer
 * EIDRM (they see it deleted); the caller holds the rwsem */
noinline void freeque(struct ipc_namespace *ns, struct kern_ipc_perm *ipcp)
{
	struct msg_queue *msq = container_of(ipcp, struct msg_queue, q_perm);
	struct msg_msg *msg, *t;

	ipc_rmid(&msg_ids(ns), ipcp);
	msq_changed(msq);
	list_for_each_entry_safe(msg, t, &msq->q_messages, m_list) {
		ns->ipc.msg_hdrs--;
		free_msg(msg);
	}
	ns->ipc.msg_bytes -= msq->q_cbytes;
	ipc_rcu_putref(ipcp, msg_rcu_free);
}

/* IPC_SET and IPC_RMID: the creator's, the owner's or CAP_SYS_ADMIN's */
noinline int msgctl_down(struct ipc_namespace *ns, int msqid, int cmd, struct ipc64_perm *perm,
			 unsigned long msg_qbytes)
{
	struct kern_ipc_perm *ipcp;
	struct msg_queue *msq;
	int err = 0;

	down_write(&msg_ids(ns).rwsem);
	ipcp = ipcctl_obtain_check(ns, &msg_ids(ns), msqid, cmd, perm, msg_qbytes);
	if (IS_ERR(ipcp)) {
		err = PTR_ERR(ipcp);
		goto out;
	}
	msq = container_of(ipcp, struct msg_queue, q_perm);
	if (cmd == IPC_RMID) {
		freeque(ns, ipcp);
	} else if (msg_qbytes > ns->ipc.msg_ctlmnb && !capable(CAP_SYS_RESOURCE)) {
		err = -EPERM;
	} else {
		ipc_update_perm(perm, ipcp);
		msq->q_qbytes = msg_qbytes;
		msq->q_ctime = ktime_get_real_seconds();
		/* receivers may have lost the right to read, senders may fit now */
		msq_changed(msq);
	}
out:
	up_write(&msg_ids(ns).rwsem);
	return err;
}

/* IPC_INFO: the limits; MSG_INFO: the queues, messages and bytes in use.  Both return the
 * highest index in use. */
static inline int msgctl_info(struct ipc_namespace *ns, int msqid, int cmd, struct msginfo *msginfo)
{
	int max_idx;

	memset(msginfo, 0, sizeof(*msginfo));
	msginfo->msgmni = ns->ipc.msg_ctlmni;
	msginfo->msgmax = ns->ipc.msg_ctlmax;
	msginfo->msgmnb = ns->ipc.msg_ctlmnb;
	msginfo->msgssz = MSGSSZ;
	msginfo->msgseg = MSGSEG;
	down_write(&msg_ids(ns).rwsem);
	if (cmd == MSG_INFO) {
		msginfo->msgpool = msg_ids(ns).in_use;
		msginfo->msgmap = ns->ipc.msg_hdrs;
		msginfo->msgtql = ns->ipc.msg_bytes;
	} else {
		msginfo->msgmap = MSGMAP;
		msginfo->msgpool = MSGPOOL;
		msginfo->msgtql = MSGTQL;
	}
	max_idx = ipc_get_maxidx(&msg_ids(ns));
	up_write(&msg_ids(ns).rwsem);
	return max_idx < 0 ? 0 : max_idx;
}

/* IPC_STAT (an id: 0), MSG_STAT (an index: the queue's id), MSG_STAT_ANY (same, without the
 * read permission) */
noinline int msgctl_stat(struct ipc_namespace *ns, int msqid, int cmd, struct msqid64_ds *p)
{
	struct kern_ipc_perm *ipcp;
	struct msg_queue *msq;
	int err;

	memset(p, 0, sizeof(*p));
	down_write(&msg_ids(ns).rwsem);
	if (cmd == MSG_STAT || cmd == MSG_STAT_ANY)
		ipcp = ipc_obtain_object_idr(&msg_ids(ns), msqid);
	else
		ipcp = ipc_obtain_object_check(&msg_ids(ns), msqid);
	if (IS_ERR(ipcp)) {
		err = PTR_ERR(ipcp);
		goto out;
	}
	err = -EACCES;
	if (cmd != MSG_STAT_ANY && ipcperms(ns, ipcp, S_IRUGO))
		goto out;
	msq = container_of(ipcp, struct msg_queue, q_perm);
	kernel_to_ipc64_perm(ipcp, &p->msg_perm);
	p->msg_stime = msq->q_stime;
	p->msg_rtime = msq->q_rtime;
	p->msg_ctime = msq->q_ctime;
	p->msg_cbytes = msq->q_cbytes;
	p->msg_qnum = msq->q_qnum;
	p->msg_qbytes = msq->q_qbytes;
	p->msg_lspid = msq->q_lspid;
	p->msg_lrpid = msq->q_lrpid;
	err = cmd == IPC_STAT ? 0 : ipcp->id;
out:
	up_write(&msg_ids(ns).rwsem);
	return err;
}

static inline long ksys_msgctl(int msqid, int cmd, struct msqid64_ds *buf)
{
	struct ipc_namespace *ns;
	struct msqid64_ds msqid64;
	struct msginfo msginfo;
	int err;

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	if (msqid < 0 || cmd < 0)
		return -EINVAL;
	ns = current_ipc_ns();
	switch (cmd) {
	case IPC_INFO:
	case MSG_INFO:
		err = msgctl_info(ns, msqid, cmd, &msginfo);
		if (copy_to_user(buf, &msginfo, sizeof(msginfo)))
			err = -EFAULT;
		return err;
	case MSG_STAT:
	case MSG_STAT_ANY:
	case IPC_STAT:
		err = msgctl_stat(ns, msqid, cmd, &msqid64);
		if (err < 0)
			return err;
		if (copy_to_user(buf, &msqid64, sizeof(msqid64)))
			err = -EFAULT;
		return err;
	case IPC_SET:
		if (copy_from_user(&msqid64, buf, sizeof(msqid64)))
			return -EFAULT;
		return msgctl_down(ns, msqid, cmd, &msqid64.msg_perm, msqid64.msg_qbytes);
	case IPC_RMID:
		return msgctl_down(ns, msqid, cmd, NULL, 0);
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE3(msgctl, int, msqid, int, cmd, struct msqid_ds *, buf)
{
	return ksys_msgctl(msqid, cmd, (struct msqid64_ds *)buf);
}

/* room for `msgsz` more bytes and one more message (6.1 counts messages against q_qbytes too) */
static inline bool msg_fits_inqueue(struct msg_queue *msq, size_t msgsz)
{
	return msgsz + msq->q_cbytes <= msq->q_qbytes && 1 + msq->q_qnum <= msq->q_qbytes;
}

/* -ERESTARTNOHAND for a signal, -EIDRM when the object went away meanwhile, else 0: a sleeper
 * back from ipc_wait(), its reference dropped */
static inline int msq_sleep(struct ipc_namespace *ns, struct msg_queue *msq)
{
	int ret;

	ipc_rcu_getref(&msq->q_perm);
	ret = ipc_wait(&msq->wait, &msg_ids(ns), &msq->gen);
	if (msq->q_perm.deleted) {
		ipc_rcu_putref(&msq->q_perm, msg_rcu_free);
		return -EIDRM;
	}
	ipc_rcu_putref(&msq->q_perm, msg_rcu_free);
	return ret ? -ERESTARTNOHAND : 0;
}

noinline long do_msgsnd(int msqid, long mtype, void *mtext, size_t msgsz, int msgflg)
{
	struct ipc_namespace *ns = current_ipc_ns();
	struct msg_queue *msq;
	struct msg_msg *msg;
	int err;

	if (msgsz > ns->ipc.msg_ctlmax || (long)msgsz < 0 || msqid < 0)
		return -EINVAL;
	if (mtype < 1)
		return -EINVAL;
	msg = load_msg(mtext, msgsz);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	msg->m_type = mtype;

	down_write(&msg_ids(ns).rwsem);
	msq = msq_obtain_object_check(ns, msqid);
	if (IS_ERR(msq)) {
		err = PTR_ERR(msq);
		goto out;
	}
	for (;;) {
		err = -EACCES;
		if (ipcperms(ns, &msq->q_perm, S_IWUGO))
			goto out;
		if (msg_fits_inqueue(msq, msgsz))
			break;
		err = -EAGAIN;
		if (msgflg & IPC_NOWAIT)
			goto out;
		err = msq_sleep(ns, msq);
		if (err)
			goto out;
	}
	msq->q_lspid = task_tgid_vnr(current);
	msq->q_stime = ktime_get_real_seconds();
	list_add_tail(&msg->m_list, &msq->q_messages);
	msq->q_cbytes += msgsz;
	msq->q_qnum++;
	ns->ipc.msg_bytes += msgsz;
	ns->ipc.msg_hdrs++;
	msq_changed(msq);
	msg = NULL;
	err = 0;
out:
	up_write(&msg_ids(ns).rwsem);
	if (msg)
		free_msg(msg);
	return err;
}

/* get_user() of a long: its value or -EFAULT, returned in registers (a local whose address
 * were taken would keep the entry from jumping to do_msgsnd) */
struct user_long {
	long val;
	int err;
};
static noinline notrace struct user_long get_user_long(const long *uptr)
{
	struct user_long r = { 0, 0 };

	if (copy_from_user(&r.val, uptr, sizeof(r.val)))
		r.err = -EFAULT;
	return r;
}

static inline long ksys_msgsnd(int msqid, struct msgbuf *msgp, size_t msgsz, int msgflg)
{
	struct user_long mtype;

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	mtype = get_user_long(&msgp->mtype);
	if (mtype.err)
		return mtype.err;
	return do_msgsnd(msqid, mtype.val, msgp->mtext, msgsz, msgflg);
}

/* 6.1's x86-64 entries inline ksys_msgget, ksys_msgsnd and ksys_msgrcv (their out-of-line
 * copies serve the compat ipc(2) multiplexer, not modelled) and jump to do_msgsnd and
 * do_msgrcv: a function trace names their caller do_syscall_64 */
long __x64_sys_msgsnd(const struct pt_regs *regs) __attribute__((optimize("optimize-sibling-calls")));
long __x64_sys_msgrcv(const struct pt_regs *regs) __attribute__((optimize("optimize-sibling-calls")));

SYSCALL_DEFINE4(msgsnd, int, msqid, struct msgbuf *, msgp, size_t, msgsz, int, msgflg)
{
	return ksys_msgsnd(msqid, msgp, msgsz, msgflg);
}

/* whether a message is of the type a receiver asks for */
static inline int testmsg(struct msg_msg *msg, long type, int mode)
{
	switch (mode) {
	case SEARCH_ANY:
	case SEARCH_NUMBER:
		return 1;
	case SEARCH_LESSEQUAL:
		return msg->m_type <= type;
	case SEARCH_EQUAL:
		return msg->m_type == type;
	case SEARCH_NOTEQUAL:
		return msg->m_type != type;
	}
	return 0;
}

/* msgrcv's msgtyp and flags as a find_msg mode: 0 any, > 0 that type (any other with
 * MSG_EXCEPT), < 0 the lowest type up to its absolute value; MSG_COPY: the msgtyp-th message */
static inline int convert_mode(long *msgtyp, int msgflg)
{
	if (msgflg & MSG_COPY)
		return SEARCH_NUMBER;
	if (*msgtyp == 0)
		return SEARCH_ANY;
	if (*msgtyp < 0) {
		*msgtyp = *msgtyp == -__LONG_MAX__ - 1 ? __LONG_MAX__ : -*msgtyp;
		return SEARCH_LESSEQUAL;
	}
	return (msgflg & MSG_EXCEPT) ? SEARCH_NOTEQUAL : SEARCH_EQUAL;
}

/* the first message of the mode (for SEARCH_LESSEQUAL the first of the lowest type), or
 * -EAGAIN */
static inline struct msg_msg *find_msg(struct msg_queue *msq, long *msgtyp, int mode)
{
	struct msg_msg *msg, *found = NULL;
	long count = 0;

	list_for_each_entry(msg, &msq->q_messages, m_list) {
		if (!testmsg(msg, *msgtyp, mode))
			continue;
		if (mode == SEARCH_LESSEQUAL && msg->m_type != 1) {
			*msgtyp = msg->m_type - 1;
			found = msg;
		} else if (mode == SEARCH_NUMBER) {
			if (*msgtyp == count)
				return msg;
		} else {
			return msg;
		}
		count++;
	}
	return found ?: ERR_PTR(-EAGAIN);
}

/* MSG_COPY's copy of a message, which stays queued, into the one prepared from the receiver's
 * buffer (at most msgmax): -EINVAL when it does not fit */
noinline struct msg_msg *copy_msg(struct msg_msg *src, struct msg_msg *dst)
{
	if (src->m_ts > dst->m_ts)
		return ERR_PTR(-EINVAL);
	dst->m_type = src->m_type;
	dst->m_ts = src->m_ts;
	memcpy(dst->m_text, src->m_text, src->m_ts);
	return dst;
}

noinline long do_msg_fill(void *dest, struct msg_msg *msg, size_t bufsz)
{
	struct msgbuf *msgp = dest;
	size_t msgsz;

	if (copy_to_user(&msgp->mtype, &msg->m_type, sizeof(msg->m_type)))
		return -EFAULT;
	msgsz = bufsz > msg->m_ts ? msg->m_ts : bufsz;
	if (store_msg(msgp->mtext, msg, msgsz))
		return -EFAULT;
	return msgsz;
}

noinline long do_msgrcv(int msqid, void *buf, size_t bufsz, long msgtyp, int msgflg,
			long (*msg_handler)(void *, struct msg_msg *, size_t))
{
	struct ipc_namespace *ns = current_ipc_ns();
	struct msg_msg *msg, *copy = NULL;
	struct msg_queue *msq;
	int mode;

	if (msqid < 0 || (long)bufsz < 0)
		return -EINVAL;
	if (msgflg & MSG_COPY) {
		if ((msgflg & MSG_EXCEPT) || !(msgflg & IPC_NOWAIT))
			return -EINVAL;
		/* prepare_copy(): a message the size of the buffer, from it */
		copy = load_msg(buf, bufsz < ns->ipc.msg_ctlmax ? bufsz : ns->ipc.msg_ctlmax);
		if (IS_ERR(copy))
			return PTR_ERR(copy);
	}
	mode = convert_mode(&msgtyp, msgflg);

	down_write(&msg_ids(ns).rwsem);
	msq = msq_obtain_object_check(ns, msqid);
	if (IS_ERR(msq)) {
		msg = (struct msg_msg *)msq;
		goto out;
	}
	for (;;) {
		int err;

		msg = ERR_PTR(-EACCES);
		if (ipcperms(ns, &msq->q_perm, S_IRUGO))
			goto out;
		msg = find_msg(msq, &msgtyp, mode);
		if (!IS_ERR(msg)) {
			if (bufsz < msg->m_ts && !(msgflg & MSG_NOERROR)) {
				msg = ERR_PTR(-E2BIG);
			} else if (msgflg & MSG_COPY) {
				msg = copy_msg(msg, copy);
			} else {
				list_del(&msg->m_list);
				msq->q_qnum--;
				msq->q_rtime = ktime_get_real_seconds();
				msq->q_lrpid = task_tgid_vnr(current);
				msq->q_cbytes -= msg->m_ts;
				ns->ipc.msg_bytes -= msg->m_ts;
				ns->ipc.msg_hdrs--;
				msq_changed(msq);	/* a sender may fit now */
			}
			goto out;
		}
		msg = ERR_PTR(-ENOMSG);
		if (msgflg & IPC_NOWAIT)
			goto out;
		err = msq_sleep(ns, msq);
		if (err) {
			msg = ERR_PTR(err);
			goto out;
		}
	}
out:
	up_write(&msg_ids(ns).rwsem);
	if (IS_ERR(msg)) {
		if (copy)
			free_msg(copy);	/* free_copy() */
		return PTR_ERR(msg);
	}
	bufsz = msg_handler(buf, msg, bufsz);
	free_msg(msg);
	return bufsz;
}

static inline long ksys_msgrcv(int msqid, struct msgbuf *msgp, size_t msgsz, long msgtyp, int msgflg)
{
	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	return do_msgrcv(msqid, msgp, msgsz, msgtyp, msgflg, do_msg_fill);
}

SYSCALL_DEFINE5(msgrcv, int, msqid, struct msgbuf *, msgp, size_t, msgsz, long, msgtyp, int, msgflg)
{
	return ksys_msgrcv(msqid, msgp, msgsz, msgtyp, msgflg);
}

/* /proc/sysvipc/msg's line of a queue */
noinline int sysvipc_msg_proc_show(struct seq_file *s, void *it)
{
	struct kern_ipc_perm *ipcp = it;
	struct msg_queue *msq = container_of(ipcp, struct msg_queue, q_perm);

	seq_printf(s, "%10d %10d  %4o  %10lu %10lu %5u %5u %5u %5u %5u %5u %10llu %10llu %10llu\n",
		   ipcp->key, ipcp->id, ipcp->mode, msq->q_cbytes, msq->q_qnum, msq->q_lspid, msq->q_lrpid,
		   ipcp->uid, ipcp->gid, ipcp->cuid, ipcp->cgid, msq->q_stime, msq->q_rtime, msq->q_ctime);
	return 0;
}
