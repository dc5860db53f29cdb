/*
 * POSIX message queues (Linux 6.1's ipc/mqueue.c): the mqueue file system, one inode per queue
 * (its mqueue_inode_info), the queues of an IPC namespace in the root of its internal mount;
 * mq_open (do_mq_open: O_CREAT, O_EXCL, the attributes' limits), mq_unlink, mq_timedsend and
 * mq_timedreceive (the highest priority first, sleepers until the absolute CLOCK_REALTIME
 * timeout, a message handed straight to a waiting receiver and a waiting sender's message taken
 * in at a receive: pipelined_send/pipelined_receive), mq_notify (SIGEV_NONE, SIGEV_SIGNAL;
 * SIGEV_THREAD needs a netlink socket, which the model has none of), mq_getsetattr, a read of
 * the queue file (its QSIZE and notification) and poll on it.
 * 6.1 keeps a queue's messages in an rbtree of priorities, each a list of its messages; here the
 * priorities are a list in increasing order (the highest, 6.1's msg_tree_rightmost, last).
 * A session's (host) processes keep the host's queues: the kernel makes none for them (ENOSYS,
 * as for their System V IPC).
 */
#include "../include/kernel.h"
#include "../include/nsproxy.h"
#include "../include/slab.h"
#include "../include/signal.h"
#include "../include/timer.h"
#include "../include/syscalls.h"
#include "../include/fs.h"
#include "../include/poll.h"
#include "../include/pid.h"
#include "../include/resource.h"
#include "../include/cred.h"
#include "../include/net.h"

#define MQUEUE_MAGIC	0x19800202
#define DIRENT_SIZE	20
#define FILENT_SIZE	80

#define SEND		0
#define RECV		1

#define STATE_NONE	0
#define STATE_READY	1

/* include/linux/ipc_namespace.h and uapi/linux/mqueue.h's limits */
#define MQ_PRIO_MAX		32768
#define DFLT_QUEUESMAX		256
#define DFLT_MSG		10
#define DFLT_MSGMAX		10
#define HARD_MSGMAX		65536
#define DFLT_MSGSIZE		8192
#define DFLT_MSGSIZEMAX		8192
#define HARD_MSGSIZEMAX		(16 * 1024 * 1024)

/* What a queue's memory counts against RLIMIT_MSGQUEUE, 6.1's sizes: a struct msg_msg per
 * message and a struct posix_msg_tree_node per priority (the model's structures differ) */
#define MQ_MSG_MSG_SIZE		48
#define MQ_TREE_NODE_SIZE	48

/* the uapi's struct mq_attr */
struct mq_attr {
	long mq_flags;		/* O_NONBLOCK */
	long mq_maxmsg;
	long mq_msgsize;
	long mq_curmsgs;
	long __reserved[4];
};

/* the messages of one priority (6.1: a node of the rbtree) */
struct posix_msg_tree_node {
	struct list_head prio_list;	/* in msg_tree, by increasing priority */
	struct list_head msg_list;
	int priority;
};

/* a task asleep in a send (its message in msg) or a receive (the message given it) */
struct ext_wait_queue {
	struct task_struct *task;
	struct list_head list;
	struct msg_msg *msg;
	int state;		/* STATE_READY once a sender or receiver did its work for it */
};

struct mqueue_inode_info {
	spinlock_t lock;
	struct inode vfs_inode;
	wait_queue_head_t wait_q;	/* poll's sleepers */

	struct list_head msg_tree;	/* the priorities in use (posix_msg_tree_node) */
	struct posix_msg_tree_node *node_cache;	/* one spare, so that a send need not allocate */
	struct mq_attr attr;

	struct sigevent notify;
	struct pid *notify_owner;	/* the process mq_notify registered, NULL: none */
	struct ucounts *ucounts;	/* the creator's, whose RLIMIT_MSGQUEUE the queue counts in */

	struct ext_wait_queue e_wait_q[2];	/* the senders and the receivers asleep, by priority */

	unsigned long qsize;		/* the bytes of its messages */
};

static struct file_system_type mqueue_fs_type;
static const struct inode_operations mqueue_dir_inode_operations;
static const struct file_operations mqueue_file_operations;
static const struct super_operations mqueue_super_ops;
static void remove_notification(struct mqueue_inode_info *info);

static struct kmem_cache *mqueue_inode_cachep;
static spinlock_t mq_lock;	/* the namespaces' mq_queues_count */

static inline struct mqueue_inode_info *MQUEUE_I(struct inode *inode)
{
	return container_of(inode, struct mqueue_inode_info, vfs_inode);
}

/* the queue's namespace (its super block's) */
static inline struct ipc_namespace *__get_ns_from_inode(struct inode *inode)
{
	return inode->i_sb->s_fs_info;
}

/* A message at the end of its priority's list, a list for a new priority (the spare one if
 * there is one): -ENOMEM. */
static noinline int msg_insert(struct msg_msg *msg, struct mqueue_inode_info *info)
{
	struct posix_msg_tree_node *leaf;
	struct list_head *pos = &info->msg_tree;

	list_for_each_entry_reverse(leaf, &info->msg_tree, prio_list) {
		if (leaf->priority == msg->m_type)
			goto insert_msg;
		if (leaf->priority < msg->m_type)
			break;
		pos = &leaf->prio_list;
	}
	if (info->node_cache) {
		leaf = info->node_cache;
		info->node_cache = NULL;
	} else {
		leaf = kmalloc(sizeof(*leaf), GFP_ATOMIC);
		if (!leaf)
			return -ENOMEM;
		INIT_LIST_HEAD(&leaf->msg_list);
	}
	leaf->priority = msg->m_type;
	list_add_tail(&leaf->prio_list, pos);	/* before the first higher priority */
insert_msg:
	info->attr.mq_curmsgs++;
	info->qsize += msg->m_ts;
	list_add_tail(&msg->m_list, &leaf->msg_list);
	return 0;
}

/* an emptied priority goes: kept as the spare, or freed */
static inline void msg_tree_erase(struct posix_msg_tree_node *leaf, struct mqueue_inode_info *info)
{
	list_del(&leaf->prio_list);
	if (info->node_cache)
		kfree(leaf);
	else
		info->node_cache = leaf;
}

/* the oldest message of the highest priority, taken off; NULL when there is none */
static inline struct msg_msg *msg_get(struct mqueue_inode_info *info)
{
	struct posix_msg_tree_node *leaf;
	struct msg_msg *msg;

	if (list_empty(&info->msg_tree))
		return NULL;
	leaf = list_last_entry(&info->msg_tree, struct posix_msg_tree_node, prio_list);
	msg = list_first_entry(&leaf->msg_list, struct msg_msg, m_list);
	list_del(&msg->m_list);
	if (list_empty(&leaf->msg_list))
		msg_tree_erase(leaf, info);
	info->attr.mq_curmsgs--;
	info->qsize -= msg->m_ts;
	return msg;
}

/* the bytes a queue of these attributes counts against RLIMIT_MSGQUEUE: 0 on an overflow */
static inline unsigned long mq_bytes_of(const struct mq_attr *attr)
{
	unsigned long mq_treesize, mq_bytes;

	mq_treesize = attr->mq_maxmsg * MQ_MSG_MSG_SIZE +
		min((unsigned int)attr->mq_maxmsg, (unsigned int)MQ_PRIO_MAX) * MQ_TREE_NODE_SIZE;
	mq_bytes = attr->mq_maxmsg * attr->mq_msgsize;
	if (mq_bytes + mq_treesize < mq_bytes)
		return 0;
	return mq_bytes + mq_treesize;
}

/* The root directory, or a queue: attr's sizes (NULL: the namespace's defaults) checked against
 * its limits (EINVAL; CAP_SYS_RESOURCE: the hard ones), its bytes against the creator's
 * RLIMIT_MSGQUEUE (EMFILE). */
static noinline struct inode *mqueue_get_inode(struct super_block *sb, struct ipc_namespace *ipc_ns, umode_t mode,
					       struct mq_attr *attr)
{
	struct inode *inode;
	int ret = -ENOMEM;

	inode = new_inode(sb);
	if (!inode)
		goto err;

	inode->i_ino = get_next_ino();
	inode->i_mode = mode;
	inode->i_uid = current_fsuid();
	inode->i_gid = current_fsgid();
	inode->i_mtime = inode->i_ctime = inode->i_atime = current_time(inode);

	if (S_ISREG(mode)) {
		struct mqueue_inode_info *info = MQUEUE_I(inode);
		unsigned long mq_bytes;

		inode->i_fop = &mqueue_file_operations;
		inode->i_size = FILENT_SIZE;
		init_waitqueue_head(&info->wait_q);
		INIT_LIST_HEAD(&info->e_wait_q[SEND].list);
		INIT_LIST_HEAD(&info->e_wait_q[RECV].list);
		INIT_LIST_HEAD(&info->msg_tree);
		memset(&info->attr, 0, sizeof(info->attr));
		info->attr.mq_maxmsg = min(ipc_ns->ipc.mq_msg_max, ipc_ns->ipc.mq_msg_default);
		info->attr.mq_msgsize = min(ipc_ns->ipc.mq_msgsize_max, ipc_ns->ipc.mq_msgsize_default);
		if (attr) {
			info->attr.mq_maxmsg = attr->mq_maxmsg;
			info->attr.mq_msgsize = attr->mq_msgsize;
		}

		ret = -EINVAL;
		if (info->attr.mq_maxmsg <= 0 || info->attr.mq_msgsize <= 0)
			goto out_inode;
		if (capable(CAP_SYS_RESOURCE)) {
			if (info->attr.mq_maxmsg > HARD_MSGMAX || info->attr.mq_msgsize > HARD_MSGSIZEMAX)
				goto out_inode;
		} else {
			if (info->attr.mq_maxmsg > ipc_ns->ipc.mq_msg_max ||
			    info->attr.mq_msgsize > ipc_ns->ipc.mq_msgsize_max)
				goto out_inode;
		}
		ret = -EOVERFLOW;
		if (info->attr.mq_msgsize > (~0UL) / info->attr.mq_maxmsg)
			goto out_inode;
		mq_bytes = mq_bytes_of(&info->attr);
		if (!mq_bytes)
			goto out_inode;
		info->ucounts = get_ucounts_uid(current_uid());	/* current_ucounts(): the real uid's */
		if (info->ucounts) {
			long msgqueue;

			spin_lock(&mq_lock);
			msgqueue = inc_rlimit_ucounts(info->ucounts, UCOUNT_RLIMIT_MSGQUEUE, mq_bytes);
			if (msgqueue == __LONG_MAX__ || msgqueue > (long)rlimit(RLIMIT_MSGQUEUE)) {
				dec_rlimit_ucounts(info->ucounts, UCOUNT_RLIMIT_MSGQUEUE, mq_bytes);
				spin_unlock(&mq_lock);
				put_ucounts(info->ucounts);
				info->ucounts = NULL;
				ret = -EMFILE;
				goto out_inode;
			}
			spin_unlock(&mq_lock);
		}
	} else if (S_ISDIR(mode)) {
		inc_nlink(inode);
		inode->i_size = 2 * DIRENT_SIZE;	/* some things misbehave with 0 */
		inode->i_op = &mqueue_dir_inode_operations;
		inode->i_fop = &simple_dir_operations;
	}
	return inode;
out_inode:
	iput(inode);
err:
	return ERR_PTR(ret);
}

/* A super block of the caller's IPC namespace (6.1: mqueue_init_fs_context's, which the
 * namespace's internal mount is made with), its root a sticky directory all may write. */
static noinline int mqueue_fill_super(struct super_block *sb, void *data)
{
	struct ipc_namespace *ns = current_ipc_ns();
	struct inode *inode;

	sb->s_fs_info = ns;
	sb->s_iflags |= SB_I_NOEXEC | SB_I_NODEV;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = MQUEUE_MAGIC;
	sb->s_op = &mqueue_super_ops;

	inode = mqueue_get_inode(sb, ns, S_IFDIR | S_ISVTX | S_IRWXUGO, NULL);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	sb->s_root = d_make_root(inode);
	if (!sb->s_root)
		return -ENOMEM;
	return 0;
}

static noinline struct inode *mqueue_alloc_inode(struct super_block *sb)
{
	struct mqueue_inode_info *ei = kmem_cache_zalloc(mqueue_inode_cachep, GFP_KERNEL);

	return ei ? &ei->vfs_inode : NULL;
}

static noinline void mqueue_free_inode(struct inode *inode)
{
	kmem_cache_free(mqueue_inode_cachep, MQUEUE_I(inode));
}

/* A queue's end (unlinked, its last file closed): its messages freed, its bytes and its place
 * given back to its creator and its namespace. */
static noinline void mqueue_evict_inode(struct inode *inode)
{
	struct mqueue_inode_info *info;
	struct ipc_namespace *ipc_ns;
	struct msg_msg *msg, *nmsg;
	LIST_HEAD(tmp_msg);

	clear_inode(inode);
	if (S_ISDIR(inode->i_mode))
		return;

	ipc_ns = __get_ns_from_inode(inode);
	info = MQUEUE_I(inode);
	spin_lock(&info->lock);
	while ((msg = msg_get(info)) != NULL)
		list_add_tail(&msg->m_list, &tmp_msg);
	kfree(info->node_cache);
	spin_unlock(&info->lock);

	list_for_each_entry_safe(msg, nmsg, &tmp_msg, m_list) {
		list_del(&msg->m_list);
		free_msg(msg);
	}

	if (info->ucounts) {
		spin_lock(&mq_lock);
		dec_rlimit_ucounts(info->ucounts, UCOUNT_RLIMIT_MSGQUEUE, mq_bytes_of(&info->attr));
		ipc_ns->ipc.mq_queues_count--;
		spin_unlock(&mq_lock);
		put_ucounts(info->ucounts);
		info->ucounts = NULL;
	}
}

/* A new queue for dentry: ENOSPC past the namespace's queues_max (but for CAP_SYS_RESOURCE). */
static noinline int mqueue_create_attr(struct dentry *dentry, umode_t mode, void *arg)
{
	struct inode *dir = dentry->d_parent->d_inode;
	struct ipc_namespace *ipc_ns = __get_ns_from_inode(dir);
	struct mq_attr *attr = arg;
	struct inode *inode;

	spin_lock(&mq_lock);
	if (ipc_ns->ipc.mq_queues_count >= ipc_ns->ipc.mq_queues_max && !capable(CAP_SYS_RESOURCE)) {
		spin_unlock(&mq_lock);
		return -ENOSPC;
	}
	ipc_ns->ipc.mq_queues_count++;
	spin_unlock(&mq_lock);

	inode = mqueue_get_inode(dir->i_sb, ipc_ns, mode, attr);
	if (IS_ERR(inode)) {
		spin_lock(&mq_lock);
		ipc_ns->ipc.mq_queues_count--;
		spin_unlock(&mq_lock);
		return PTR_ERR(inode);
	}

	dir->i_size += DIRENT_SIZE;
	dir->i_ctime = dir->i_mtime = dir->i_atime = current_time(dir);
	d_instantiate(dentry, inode);
	dget(dentry);	/* the directory's: the name stays until mq_unlink */
	return 0;
}

/* open(2) with O_CREAT in a mount of the file system: a queue of the default attributes */
static noinline int mqueue_create(struct inode *dir, struct dentry *dentry, umode_t mode, bool excl)
{
	return mqueue_create_attr(dentry, mode, NULL);
}

static noinline int mqueue_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;

	dir->i_ctime = dir->i_mtime = dir->i_atime = current_time(dir);
	dir->i_size -= DIRENT_SIZE;
	drop_nlink(inode);
	dput(dentry);	/* the directory's reference (mqueue_create_attr) */
	return 0;
}

/* A read of the queue file: its size and notification, not its messages. */
static noinline ssize_t mqueue_read_file(struct file *filp, char *u_data, size_t count, loff_t *off)
{
	struct inode *inode = filp->f_inode;
	struct mqueue_inode_info *info = MQUEUE_I(inode);
	char buffer[FILENT_SIZE];
	ssize_t ret;

	spin_lock(&info->lock);
	scnprintf(buffer, sizeof(buffer), "QSIZE:%-10lu NOTIFY:%-5d SIGNO:%-5d NOTIFY_PID:%-6d\n",
		 info->qsize, info->notify_owner ? info->notify.sigev_notify : 0,
		 (info->notify_owner && info->notify.sigev_notify == SIGEV_SIGNAL) ? info->notify.sigev_signo : 0,
		 pid_vnr(info->notify_owner));
	spin_unlock(&info->lock);
	buffer[sizeof(buffer) - 1] = '\0';

	ret = simple_read_from_buffer(u_data, count, off, buffer, strlen(buffer));
	if (ret <= 0)
		return ret;
	inode->i_atime = inode->i_ctime = current_time(inode);
	return ret;
}

/* a close by the process registered for notification ends the registration */
static noinline int mqueue_flush_file(struct file *filp, void *id)
{
	struct mqueue_inode_info *info = MQUEUE_I(filp->f_inode);

	spin_lock(&info->lock);
	if (task_tgid(current) == info->notify_owner)
		remove_notification(info);
	spin_unlock(&info->lock);
	return 0;
}

static noinline unsigned int mqueue_poll_file(struct file *filp, struct poll_table_struct *poll_tab)
{
	struct mqueue_inode_info *info = MQUEUE_I(filp->f_inode);
	unsigned int retval = 0;

	poll_wait(filp, &info->wait_q, poll_tab);

	spin_lock(&info->lock);
	if (info->attr.mq_curmsgs)
		retval = EPOLLIN | EPOLLRDNORM;
	if (info->attr.mq_curmsgs < info->attr.mq_maxmsg)
		retval |= EPOLLOUT | EPOLLWRNORM;
	spin_unlock(&info->lock);
	return retval;
}

/* the caller on the senders' or receivers' list, before the first of a lower priority */
static inline void wq_add(struct mqueue_inode_info *info, int sr, struct ext_wait_queue *ewp)
{
	struct ext_wait_queue *walk;

	list_for_each_entry(walk, &info->e_wait_q[sr].list, list) {
		if (walk->task->prio <= current->prio) {
			list_add_tail(&ewp->list, &walk->list);
			return;
		}
	}
	list_add_tail(&ewp->list, &info->e_wait_q[sr].list);
}

/* Asleep (sr: SEND or RECV) until the other side did the work (0), a signal (-ERESTARTSYS)
 * or the absolute CLOCK_REALTIME timeout (-ETIMEDOUT; none: NULL).  Called with info->lock
 * held; returns without it. */
static noinline int wq_sleep(struct mqueue_inode_info *info, int sr, ktime_t *timeout, struct ext_wait_queue *ewp)
{
	int retval;
	int time;

	wq_add(info, sr, ewp);

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		spin_unlock(&info->lock);
		time = schedule_hrtimeout_range_clock(timeout, 0, HRTIMER_MODE_ABS, CLOCK_REALTIME);

		if (__atomic_load_n(&ewp->state, __ATOMIC_ACQUIRE) == STATE_READY)
			return 0;
		spin_lock(&info->lock);
		if (READ_ONCE(ewp->state) == STATE_READY) {
			retval = 0;
			goto out_unlock;
		}
		if (signal_pending(current)) {
			retval = -ERESTARTSYS;
			break;
		}
		if (time == 0) {
			retval = -ETIMEDOUT;
			break;
		}
	}
	list_del(&ewp->list);
out_unlock:
	spin_unlock(&info->lock);
	return retval;
}

/* the sleeper served first: the last on the list (the highest priority, the longest asleep) */
static inline struct ext_wait_queue *wq_get_first_waiter(struct mqueue_inode_info *info, int sr)
{
	struct list_head *ptr = info->e_wait_q[sr].list.prev;

	if (ptr == &info->e_wait_q[sr].list)
		return NULL;
	return list_entry(ptr, struct ext_wait_queue, list);
}

/* The queue became non-empty with no receiver asleep: the registered process is told (once:
 * the registration ends); poll's sleepers are woken in any case. */
static noinline void __do_notify(struct mqueue_inode_info *info)
{
	if (info->notify_owner && info->attr.mq_curmsgs == 1) {
		if (info->notify.sigev_notify == SIGEV_SIGNAL && info->notify.sigev_signo) {
			struct sigqueue_info sig_i = {
				.code = SI_MESGQ,
				.value = info->notify.sigev_value,
				.pid = task_tgid_vnr(current),
				.uid = current_uid(),
			};
			struct task_struct *task = pid_task(info->notify_owner, PIDTYPE_TGID);

			/* not through kill_pid_info(): the kernel's, no permission check */
			if (task)
				do_send_sig_info(info->notify.sigev_signo, &sig_i, task, true);
		}
		put_pid(info->notify_owner);
		info->notify_owner = NULL;
	}
	wake_up(&info->wait_q);
}

static inline int prepare_timeout(const struct __kernel_timespec *u_abs_timeout, struct timespec64 *ts)
{
	if (get_timespec64(ts, u_abs_timeout))
		return -EFAULT;
	if (!timespec64_valid(ts))
		return -EINVAL;
	return 0;
}

static noinline void remove_notification(struct mqueue_inode_info *info)
{
	put_pid(info->notify_owner);
	info->notify_owner = NULL;
}

/* An existing queue: EEXIST for O_CREAT|O_EXCL, EINVAL for O_WRONLY|O_RDWR, the access asked
 * for against its mode; none: ENOENT without O_CREAT, else a new queue of attr (ro: the mount
 * is read-only). */
static inline int prepare_open(struct dentry *dentry, int oflag, int ro, umode_t mode, struct mq_attr *attr)
{
	static const int oflag2acc[O_ACCMODE] = { MAY_READ, MAY_WRITE, MAY_READ | MAY_WRITE };

	if (!dentry->d_inode) {
		if (!(oflag & O_CREAT))
			return -ENOENT;
		if (ro)
			return ro;
		return vfs_mkobj(dentry, mode & ~current->fs->umask, mqueue_create_attr, attr);
	}
	if ((oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		return -EEXIST;
	if ((oflag & O_ACCMODE) == (O_RDWR | O_WRONLY))
		return -EINVAL;
	return inode_permission(dentry->d_inode, oflag2acc[oflag & O_ACCMODE]);
}

static noinline int do_mq_open(const char *u_name, int oflag, umode_t mode, struct mq_attr *attr)
{
	struct vfsmount *mnt = current_ipc_ns()->ipc.mq_mnt;
	struct dentry *root = mnt->mnt_root;
	struct filename *name;
	struct path path;
	int fd, error;
	int ro;

	name = getname(u_name);
	if (IS_ERR(name))
		return PTR_ERR(name);

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		goto out_putname;

	ro = mnt_want_write(mnt);	/* dropped in any case */
	mutex_lock(&root->d_inode->i_rwsem);
	path.dentry = lookup_one_len(name->name, root, strlen(name->name));
	if (IS_ERR(path.dentry)) {
		error = PTR_ERR(path.dentry);
		goto out_putfd;
	}
	path.mnt = mntget(mnt);
	error = prepare_open(path.dentry, oflag, ro, mode, attr);
	if (!error) {
		struct file *file = dentry_open(&path, oflag, current_cred());

		if (!IS_ERR(file))
			fd_install(fd, file);
		else
			error = PTR_ERR(file);
	}
	path_put(&path);
out_putfd:
	if (error) {
		put_unused_fd(fd);
		fd = error;
	}
	mutex_unlock(&root->d_inode->i_rwsem);
	if (!ro)
		mnt_drop_write(mnt);
out_putname:
	putname(name);
	return fd;
}

SYSCALL_DEFINE4(mq_open, const char *, u_name, int, oflag, umode_t, mode, struct mq_attr *, u_attr)
{
	struct mq_attr attr;

	if (current->session)	/* a session's process keeps the host's queues */
		return -ENOSYS;
	if (u_attr && copy_from_user(&attr, u_attr, sizeof(struct mq_attr)))
		return -EFAULT;
	return do_mq_open(u_name, oflag, mode, u_attr ? &attr : NULL);
}

/* The name goes; the queue lives on while a file has it open. */
SYSCALL_DEFINE1(mq_unlink, const char *, u_name)
{
	struct vfsmount *mnt;
	struct filename *name;
	struct dentry *dentry;
	struct inode *inode = NULL;
	int err;

	if (current->session)	/* a session's process keeps the host's queues */
		return -ENOSYS;
	mnt = current_ipc_ns()->ipc.mq_mnt;
	name = getname(u_name);
	if (IS_ERR(name))
		return PTR_ERR(name);

	err = mnt_want_write(mnt);
	if (err)
		goto out_name;
	mutex_lock(&mnt->mnt_root->d_inode->i_rwsem);
	dentry = lookup_one_len(name->name, mnt->mnt_root, strlen(name->name));
	if (IS_ERR(dentry)) {
		err = PTR_ERR(dentry);
		goto out_unlock;
	}

	inode = dentry->d_inode;
	if (!inode) {
		err = -ENOENT;
	} else {
		ihold(inode);
		err = vfs_unlink(NULL, dentry->d_parent->d_inode, dentry, NULL);
	}
	dput(dentry);

out_unlock:
	mutex_unlock(&mnt->mnt_root->d_inode->i_rwsem);
	iput(inode);
	mnt_drop_write(mnt);
out_name:
	putname(name);
	return err;
}

/* this sleeper's work is done: off the list, woken once the lock is dropped */
static inline void __pipelined_op(struct wake_q_head *wake_q, struct mqueue_inode_info *info,
				  struct ext_wait_queue *this)
{
	struct task_struct *task = this->task;

	list_del(&this->list);
	__atomic_store_n(&this->state, STATE_READY, __ATOMIC_RELEASE);
	wake_q_add(wake_q, task);
}

/* a sender's message straight to the receiver asleep first */
static inline void pipelined_send(struct wake_q_head *wake_q, struct mqueue_inode_info *info,
				  struct msg_msg *message, struct ext_wait_queue *receiver)
{
	receiver->msg = message;
	__pipelined_op(wake_q, info, receiver);
}

/* a receive made room: the first sender asleep has its message queued, else pollers wake */
static inline void pipelined_receive(struct wake_q_head *wake_q, struct mqueue_inode_info *info)
{
	struct ext_wait_queue *sender = wq_get_first_waiter(info, SEND);

	if (!sender) {
		wake_up_interruptible(&info->wait_q);
		return;
	}
	if (msg_insert(sender->msg, info))
		return;
	__pipelined_op(wake_q, info, sender);
}

/* the queue of an fd: EBADF for no file, or a file of another kind */
static inline struct mqueue_inode_info *mqueue_of(struct fd f)
{
	if (unlikely(!f.file || f.file->f_op != &mqueue_file_operations))
		return NULL;
	return MQUEUE_I(f.file->f_inode);
}

static noinline int do_mq_timedsend(int mqdes, const char *u_msg_ptr, size_t msg_len, unsigned int msg_prio,
				    struct timespec64 *ts)
{
	struct mqueue_inode_info *info;
	struct ext_wait_queue wait;
	struct ext_wait_queue *receiver;
	struct msg_msg *msg_ptr;
	struct posix_msg_tree_node *new_leaf = NULL;
	ktime_t expires, *timeout = NULL;
	struct inode *inode;
	struct fd f;
	int ret = 0;
	DEFINE_WAKE_Q(wake_q);

	if (unlikely(msg_prio >= (unsigned long)MQ_PRIO_MAX))
		return -EINVAL;
	if (ts) {
		expires = timespec64_to_ns(ts);
		timeout = &expires;
	}

	f = fdget(mqdes);
	info = mqueue_of(f);
	if (unlikely(!info || !(f.file->f_mode & FMODE_WRITE))) {
		ret = -EBADF;
		goto out_fput;
	}
	inode = f.file->f_inode;
	if (unlikely(msg_len > info->attr.mq_msgsize)) {
		ret = -EMSGSIZE;
		goto out_fput;
	}

	msg_ptr = load_msg(u_msg_ptr, msg_len);
	if (IS_ERR(msg_ptr)) {
		ret = PTR_ERR(msg_ptr);
		goto out_fput;
	}
	msg_ptr->m_ts = msg_len;
	msg_ptr->m_type = msg_prio;

	/* a new priority's list allocated outside the lock */
	if (!info->node_cache)
		new_leaf = kmalloc(sizeof(*new_leaf), GFP_KERNEL);

	spin_lock(&info->lock);
	if (!info->node_cache && new_leaf) {
		INIT_LIST_HEAD(&new_leaf->msg_list);
		info->node_cache = new_leaf;
		new_leaf = NULL;
	} else {
		kfree(new_leaf);
	}

	if (info->attr.mq_curmsgs == info->attr.mq_maxmsg) {
		if (f.file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
		} else {
			wait.task = current;
			wait.msg = msg_ptr;
			WRITE_ONCE(wait.state, STATE_NONE);
			ret = wq_sleep(info, SEND, timeout, &wait);
			/* a receiver queued the message (0), or it is still ours */
			goto out_free;
		}
	} else {
		receiver = wq_get_first_waiter(info, RECV);
		if (receiver) {
			pipelined_send(&wake_q, info, msg_ptr, receiver);
		} else {
			ret = msg_insert(msg_ptr, info);
			if (ret)
				goto out_unlock;
			__do_notify(info);
		}
		inode->i_atime = inode->i_mtime = inode->i_ctime = current_time(inode);
	}
out_unlock:
	spin_unlock(&info->lock);
	wake_up_q(&wake_q);
out_free:
	if (ret)
		free_msg(msg_ptr);
out_fput:
	fdput(f);
	return ret;
}

static noinline int do_mq_timedreceive(int mqdes, char *u_msg_ptr, size_t msg_len, unsigned int *u_msg_prio,
				       struct timespec64 *ts)
{
	struct mqueue_inode_info *info;
	struct ext_wait_queue wait;
	struct posix_msg_tree_node *new_leaf = NULL;
	ktime_t expires, *timeout = NULL;
	struct msg_msg *msg_ptr;
	struct inode *inode;
	struct fd f;
	ssize_t ret;

	if (ts) {
		expires = timespec64_to_ns(ts);
		timeout = &expires;
	}

	f = fdget(mqdes);
	info = mqueue_of(f);
	if (unlikely(!info || !(f.file->f_mode & FMODE_READ))) {
		ret = -EBADF;
		goto out_fput;
	}
	inode = f.file->f_inode;
	if (unlikely(msg_len < info->attr.mq_msgsize)) {
		ret = -EMSGSIZE;
		goto out_fput;
	}

	/* the spare list for the sender a receive takes in (pipelined_receive) */
	if (!info->node_cache)
		new_leaf = kmalloc(sizeof(*new_leaf), GFP_KERNEL);

	spin_lock(&info->lock);
	if (!info->node_cache && new_leaf) {
		INIT_LIST_HEAD(&new_leaf->msg_list);
		info->node_cache = new_leaf;
	} else {
		kfree(new_leaf);
	}

	if (info->attr.mq_curmsgs == 0) {
		if (f.file->f_flags & O_NONBLOCK) {
			spin_unlock(&info->lock);
			ret = -EAGAIN;
		} else {
			wait.task = current;
			WRITE_ONCE(wait.state, STATE_NONE);
			ret = wq_sleep(info, RECV, timeout, &wait);
			msg_ptr = wait.msg;
		}
	} else {
		DEFINE_WAKE_Q(wake_q);

		msg_ptr = msg_get(info);
		inode->i_atime = inode->i_mtime = inode->i_ctime = current_time(inode);
		pipelined_receive(&wake_q, info);
		spin_unlock(&info->lock);
		wake_up_q(&wake_q);
		ret = 0;
	}
	if (ret == 0) {
		ret = msg_ptr->m_ts;
		if ((u_msg_prio && copy_to_user(u_msg_prio, &msg_ptr->m_type, sizeof(*u_msg_prio))) ||
		    store_msg(u_msg_ptr, msg_ptr, msg_ptr->m_ts))
			ret = -EFAULT;
		free_msg(msg_ptr);
	}
out_fput:
	fdput(f);
	return ret;
}

SYSCALL_DEFINE5(mq_timedsend, mqd_t, mqdes, const char *, u_msg_ptr, size_t, msg_len, unsigned int, msg_prio,
		const struct __kernel_timespec *, u_abs_timeout)
{
	struct timespec64 ts, *p = NULL;

	if (current->session)	/* a session's process keeps the host's queues */
		return -ENOSYS;
	if (u_abs_timeout) {
		int res = prepare_timeout(u_abs_timeout, &ts);

		if (res)
			return res;
		p = &ts;
	}
	return do_mq_timedsend(mqdes, u_msg_ptr, msg_len, msg_prio, p);
}

SYSCALL_DEFINE5(mq_timedreceive, mqd_t, mqdes, char *, u_msg_ptr, size_t, msg_len, unsigned int *, u_msg_prio,
		const struct __kernel_timespec *, u_abs_timeout)
{
	struct timespec64 ts, *p = NULL;

	if (current->session)	/* a session's process keeps the host's queues */
		return -ENOSYS;
	if (u_abs_timeout) {
		int res = prepare_timeout(u_abs_timeout, &ts);

		if (res)
			return res;
		p = &ts;
	}
	return do_mq_timedreceive(mqdes, u_msg_ptr, msg_len, u_msg_prio, p);
}

/* SIGEV_THREAD's socket: 6.1's netlink_getsockbyfilp() of the fd in sigev_signo.  The model has
 * no netlink sockets, so no fd is one: ENOTSOCK for a file that is not a socket, EINVAL for a
 * socket of another family. */
static inline int mq_notify_sock_of(int fd)
{
	struct fd f = fdget(fd);
	int ret;

	if (!f.file)
		return -EBADF;
	ret = S_ISSOCK(f.file->f_inode->i_mode) ? -EINVAL : -ENOTSOCK;
	fdput(f);
	return ret;
}

static noinline int do_mq_notify(int mqdes, const struct sigevent *notification)
{
	struct mqueue_inode_info *info;
	struct inode *inode;
	struct fd f;
	int ret;

	if (notification != NULL) {
		if (unlikely(notification->sigev_notify != SIGEV_NONE &&
			     notification->sigev_notify != SIGEV_SIGNAL &&
			     notification->sigev_notify != SIGEV_THREAD))
			return -EINVAL;
		if (notification->sigev_notify == SIGEV_SIGNAL && !valid_signal(notification->sigev_signo))
			return -EINVAL;
		if (notification->sigev_notify == SIGEV_THREAD) {
			char cookie[32];	/* NOTIFY_COOKIE_LEN */

			if (copy_from_user(cookie, (void *)notification->sigev_value, sizeof(cookie)))
				return -EFAULT;
			return mq_notify_sock_of(notification->sigev_signo);
		}
	}

	f = fdget(mqdes);
	info = mqueue_of(f);
	if (!info) {
		ret = -EBADF;
		goto out_fput;
	}
	inode = f.file->f_inode;

	ret = 0;
	spin_lock(&info->lock);
	if (notification == NULL) {
		if (info->notify_owner == task_tgid(current)) {
			remove_notification(info);
			inode->i_atime = inode->i_ctime = current_time(inode);
		}
	} else if (info->notify_owner != NULL) {
		ret = -EBUSY;
	} else {
		info->notify.sigev_notify = notification->sigev_notify;
		if (notification->sigev_notify == SIGEV_SIGNAL) {
			info->notify.sigev_signo = notification->sigev_signo;
			info->notify.sigev_value = notification->sigev_value;
		}
		info->notify_owner = get_pid(task_tgid(current));
		inode->i_atime = inode->i_ctime = current_time(inode);
	}
	spin_unlock(&info->lock);
out_fput:
	fdput(f);
	return ret;
}

SYSCALL_DEFINE2(mq_notify, mqd_t, mqdes, const struct sigevent *, u_notification)
{
	struct sigevent n, *p = NULL;

	if (current->session)	/* a session's process keeps the host's queues */
		return -ENOSYS;
	if (u_notification) {
		if (copy_from_user(&n, u_notification, sizeof(struct sigevent)))
			return -EFAULT;
		p = &n;
	}
	return do_mq_notify(mqdes, p);
}

/* old: the attributes with the file's O_NONBLOCK; new: only mq_flags's O_NONBLOCK is set */
static noinline int do_mq_getsetattr(int mqdes, struct mq_attr *new, struct mq_attr *old)
{
	struct mqueue_inode_info *info;
	struct inode *inode;
	struct fd f;

	if (new && (new->mq_flags & (~O_NONBLOCK)))
		return -EINVAL;

	f = fdget(mqdes);
	info = mqueue_of(f);
	if (!info) {
		fdput(f);
		return -EBADF;
	}
	inode = f.file->f_inode;

	spin_lock(&info->lock);
	if (old) {
		*old = info->attr;
		old->mq_flags = f.file->f_flags & O_NONBLOCK;
	}
	if (new) {
		spin_lock(&f.file->f_lock);
		if (new->mq_flags & O_NONBLOCK)
			f.file->f_flags |= O_NONBLOCK;
		else
			f.file->f_flags &= ~O_NONBLOCK;
		spin_unlock(&f.file->f_lock);
		inode->i_atime = inode->i_ctime = current_time(inode);
	}
	spin_unlock(&info->lock);
	fdput(f);
	return 0;
}

SYSCALL_DEFINE3(mq_getsetattr, mqd_t, mqdes, const struct mq_attr *, u_mqstat, struct mq_attr *, u_omqstat)
{
	struct mq_attr mqstat, omqstat;
	int ret;

	if (current->session)	/* a session's process keeps the host's queues */
		return -ENOSYS;
	if (u_mqstat) {
		if (copy_from_user(&mqstat, u_mqstat, sizeof(struct mq_attr)))
			return -EFAULT;
	}
	ret = do_mq_getsetattr(mqdes, u_mqstat ? &mqstat : NULL, u_omqstat ? &omqstat : NULL);
	if (ret || !u_omqstat)
		return ret;
	if (copy_to_user(u_omqstat, &omqstat, sizeof(struct mq_attr)))
		return -EFAULT;
	return 0;
}

static const struct inode_operations mqueue_dir_inode_operations = {
	.lookup = simple_lookup,
	.create = mqueue_create,
	.unlink = mqueue_unlink,
};

static const struct file_operations mqueue_file_operations = {
	.flush = mqueue_flush_file,
	.poll = mqueue_poll_file,
	.read = mqueue_read_file,
	.llseek = default_llseek,
};

static const struct super_operations mqueue_super_ops = {
	.alloc_inode = mqueue_alloc_inode,
	.free_inode = mqueue_free_inode,
	.evict_inode = mqueue_evict_inode,
	.statfs = simple_statfs,
};

/* every mount of mqueue is of the caller's IPC namespace's one instance (6.1's get_tree_keyed
 * on the namespace); the namespace's internal mount makes it */
static noinline int mqueue_get_tree(struct fs_context *fc)
{
	struct vfsmount *mnt = current_ipc_ns()->ipc.mq_mnt;

	if (!mnt)
		return get_tree_nodev(fc);
	__atomic_add_fetch(&mnt->mnt_sb->s_active, 1, __ATOMIC_RELAXED);
	fc->root = dget(mnt->mnt_sb->s_root);
	return 0;
}

static struct file_system_type mqueue_fs_type = {
	.name = "mqueue",
	.fill_super = mqueue_fill_super,
	.get_tree = mqueue_get_tree,
	.magic = MQUEUE_MAGIC,
};

/* the namespace's internal mount, which mq_open and mq_unlink work in (inlined in 6.1) */
static inline struct vfsmount *mq_create_mount(struct ipc_namespace *ns)
{
	struct vfsmount *mnt = vfs_kern_mount(&mqueue_fs_type, 0, mqueue_fs_type.name, ns);

	if (!IS_ERR(mnt))
		mnt->mnt_flags = MNT_INTERNAL;
	return mnt;
}

/* an IPC namespace's limits (/proc/sys/fs/mqueue/'s) and its mount */
noinline int mq_init_ns(struct ipc_namespace *ns)
{
	struct vfsmount *m;

	ns->ipc.mq_queues_count = 0;
	ns->ipc.mq_queues_max = DFLT_QUEUESMAX;
	ns->ipc.mq_msg_max = DFLT_MSGMAX;
	ns->ipc.mq_msgsize_max = DFLT_MSGSIZEMAX;
	ns->ipc.mq_msg_default = DFLT_MSG;
	ns->ipc.mq_msgsize_default = DFLT_MSGSIZE;

	m = mq_create_mount(ns);
	if (IS_ERR(m))
		return PTR_ERR(m);
	ns->ipc.mq_mnt = m;
	return 0;
}

/* 6.1's __initcall: the inode cache, the file system type (mount -t mqueue finds it), the
 * initial namespace's mount */
void __init init_mqueue_fs(void)
{
	mqueue_inode_cachep = kmem_cache_create("mqueue_inode_cache", sizeof(struct mqueue_inode_info), 0,
						SLAB_HWCACHE_ALIGN | SLAB_ACCOUNT, NULL);
	if (!mqueue_inode_cachep || register_filesystem(&mqueue_fs_type) || mq_init_ns(&init_ipc_ns))
		panic("init_mqueue_fs");
}
