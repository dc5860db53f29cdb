/*
 * System V IPC (Linux 6.1's ipc/util.h, include/linux/ipc.h, include/linux/ipc_namespace.h and
 * the uapi's ipc.h, msg.h, sem.h): an object's kern_ipc_perm, the ipc_ids of a kind in an IPC
 * namespace, and what ipc/util.c gives msg.c and sem.c.  The objects of a kind are found by
 * index (6.1's idr) in a growing table, by key with a walk of it (6.1's rhashtable).
 */
#ifndef _IPC_H
#define _IPC_H
#include "kernel.h"
#include "cred.h"
#include "rwsem.h"
#include "wait.h"
#include "syscalls.h"

/* include/uapi/linux/ipc.h */
#define IPC_PRIVATE	((key_t)0)
#define IPC_CREAT	00001000
#define IPC_EXCL	00002000
#define IPC_NOWAIT	00004000
#define IPC_RMID	0
#define IPC_SET		1
#define IPC_STAT	2
#define IPC_INFO	3

#define S_IRUGO		00444
#define S_IWUGO		00222
#define S_IRWXUGO	00777

/* the id of an object: its sequence number above its index (IPCMNI_SHIFT, without
 * ipcmni_extend); at most IPCMNI objects of a kind */
#define IPCMNI_SHIFT	15
#define IPCMNI		32768
#define IPCMNI_DEFAULT	32000
#define IPC_MIN_CYCLE	64	/* RADIX_TREE_MAP_SIZE */
#define ipcid_seq_max()	(0x7fffffff >> IPCMNI_SHIFT)
#define ipcid_to_idx(id)	((id) & (IPCMNI - 1))
#define ipcid_to_seqx(id)	((id) >> IPCMNI_SHIFT)

#define CAP_IPC_OWNER	15

/* the errnos only IPC answers (include/uapi/asm-generic/errno.h) */
#define ENOMSG	42	/* no message of the type asked for */
#define EIDRM	43	/* the object was removed */
#define EFBIG	27	/* semop: a semaphore number past the array's */

/* an object's owner, mode and id (include/linux/ipc.h); deleted once IPC_RMID took it out of
 * its ids (sleepers on it then answer EIDRM); refcount: its ids' and each sleeper's */
struct kern_ipc_perm {
	bool deleted;
	int id;
	key_t key;
	kuid_t uid;
	kgid_t gid;
	kuid_t cuid;
	kgid_t cgid;
	umode_t mode;
	unsigned long seq;
	struct rcu_head rcu;	/* its freeing, after a grace period */
	int refcount;
};

/* the uapi's struct ipc64_perm, x86-64's (asm-generic/ipcbuf.h) */
struct ipc64_perm {
	key_t key;
	u32 uid, gid, cuid, cgid;
	u32 mode;
	unsigned short seq;
	unsigned short __pad2;
	unsigned long __unused1, __unused2;
};
_Static_assert(sizeof(struct ipc64_perm) == 48, "ipc64_perm as x86-64's");

/* the objects of one kind (ipc/util.h): rwsem held over every look-up and change here (6.1
 * takes it for creation and removal and a spinlock per object for the rest) */
struct ipc_ids {
	int in_use;
	unsigned short seq;
	struct rw_semaphore rwsem;
	int max_idx;
	int last_idx;
	int next_idx;			/* where the next index is looked for (the idr's idr_next) */
	struct kern_ipc_perm **entries;	/* by index, NULL where free */
	int size;			/* entries' length */
};

#define IPC_SEM_IDS	0
#define IPC_MSG_IDS	1
#define IPC_SHM_IDS	2

/* What of 6.1's struct ipc_namespace the model has: in the gap before its ns_common. */
struct ipc_namespace_ipc {
	struct ipc_ids ids[3];
	int sem_ctls[4];	/* semmsl, semmns, semopm, semmni */
	int used_sems;
	unsigned int msg_ctlmax;
	unsigned int msg_ctlmnb;
	unsigned int msg_ctlmni;
	long msg_bytes;		/* 6.1's percpu_msg_bytes */
	long msg_hdrs;		/* 6.1's percpu_msg_hdrs */
	size_t shm_ctlmax;	/* a segment's most bytes */
	size_t shm_ctlall;	/* the pages all segments may have */
	unsigned long shm_tot;	/* the pages they have */
	int shm_ctlmni;		/* at most that many segments */
	/* POSIX message queues (ipc/mqueue.c): the namespace's mqueue mount, its queues, limits */
	struct vfsmount *mq_mnt;
	unsigned int mq_queues_count;
	unsigned int mq_queues_max;	/* /proc/sys/fs/mqueue/queues_max */
	unsigned int mq_msg_max;	/* msg_max, msgsize_max, msg_default, msgsize_default */
	unsigned int mq_msgsize_max;
	unsigned int mq_msg_default;
	unsigned int mq_msgsize_default;
};

/* msgget/semget's arguments (ipc/util.h's ipc_params) */
struct ipc_params {
	key_t key;
	int flg;
	union {
		size_t size;	/* shm */
		int nsems;	/* sem */
	} u;
};

struct ipc_namespace;
/* a kind's creation and checks of an existing object (ipc/util.h's ipc_ops) */
struct ipc_ops {
	int (*getnew)(struct ipc_namespace *ns, struct ipc_params *params);
	int (*more_checks)(struct kern_ipc_perm *ipcp, struct ipc_params *params);
};

#define current_ipc_ns()	(current->nsproxy->ipc_ns)
void init_mqueue_fs(void);	/* ipc/mqueue.c: the mqueue file system, the initial namespace's mount */
int ipcget(struct ipc_namespace *ns, struct ipc_ids *ids, const struct ipc_ops *ops, struct ipc_params *params);
int ipc_addid(struct ipc_ids *ids, struct kern_ipc_perm *new, int limit);
void ipc_rmid(struct ipc_ids *ids, struct kern_ipc_perm *ipcp);
int ipcperms(struct ipc_namespace *ns, struct kern_ipc_perm *ipcp, short flag);
struct kern_ipc_perm *ipc_obtain_object_idr(struct ipc_ids *ids, int id);
struct kern_ipc_perm *ipc_obtain_object_check(struct ipc_ids *ids, int id);
struct kern_ipc_perm *ipcctl_obtain_check(struct ipc_namespace *ns, struct ipc_ids *ids, int id, int cmd,
					  struct ipc64_perm *perm, int extra_perm);
int ipc_update_perm(struct ipc64_perm *in, struct kern_ipc_perm *out);
void kernel_to_ipc64_perm(struct kern_ipc_perm *in, struct ipc64_perm *out);
bool ipc_rcu_getref(struct kern_ipc_perm *ipcp);

/* IPC_INFO's answer: the highest index in use, -1 when there is none */
static inline int ipc_get_maxidx(struct ipc_ids *ids)
{
	if (ids->in_use == 0)
		return -1;
	if (ids->in_use == IPCMNI_DEFAULT)
		return IPCMNI_DEFAULT - 1;
	return ids->max_idx;
}
void ipc_rcu_putref(struct kern_ipc_perm *ipcp, void (*func)(struct rcu_head *head));
int ipc_wait(struct wait_queue_head *wq, struct ipc_ids *ids, unsigned long *gen);

/* a message (include/linux/msg.h): its text follows it, in one allocation (6.1 chains
 * page-sized segments) */
struct msg_msg {
	struct list_head m_list;
	long m_type;
	size_t m_ts;		/* its text's size */
	char m_text[];
};
struct msg_msg *load_msg(const void *src, size_t len);
int store_msg(void *dest, struct msg_msg *msg, size_t len);
void free_msg(struct msg_msg *msg);
/* /proc/sysvipc/'s line of an object (ipc/proc.c walks them) */
struct seq_file;
int sysvipc_msg_proc_show(struct seq_file *s, void *it);
int sysvipc_sem_proc_show(struct seq_file *s, void *it);
int sysvipc_shm_proc_show(struct seq_file *s, void *it);
void ipc_set_key_private(struct ipc_ids *ids, struct kern_ipc_perm *ipcp);

int copy_semundo(unsigned long clone_flags, struct task_struct *tsk);
void exit_sem(struct task_struct *tsk);
#endif
