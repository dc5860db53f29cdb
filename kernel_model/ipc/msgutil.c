/*
 * The initial IPC namespace and a message's copy in and out of user memory (Linux 6.1's
 * ipc/msgutil.c).
 */
#include "../include/kernel.h"
#include "../include/nsproxy.h"
#include "../include/slab.h"

/* 6.1's defaults (include/uapi/linux/msg.h, sem.h): msgmax, msgmnb, msgmni, and semmsl, semmns,
 * semopm, semmni */
#define MSGMAX	8192
#define MSGMNB	16384
#define SEMMSL	32000
#define SEMMNS	(IPCMNI_DEFAULT * SEMMSL)
#define SEMOPM	500
/* and shm's (include/uapi/linux/shm.h): shmmax, shmall, shmmni */
#define SHMMAX	(~0UL - (1UL << 24))
#define SHMALL	(~0UL - (1UL << 24))
#define SHMMNI	4096

#define IPC_IDS_INIT(k) { .last_idx = -1, .max_idx = -1, \
	.rwsem = __RWSEM_INITIALIZER(init_ipc_ns.ipc.ids[k].rwsem) }

struct ipc_namespace init_ipc_ns = {
	.ipc = {
		.ids = { IPC_IDS_INIT(IPC_SEM_IDS), IPC_IDS_INIT(IPC_MSG_IDS), IPC_IDS_INIT(IPC_SHM_IDS) },
		.sem_ctls = { SEMMSL, SEMMNS, SEMOPM, IPCMNI_DEFAULT },
		.msg_ctlmax = MSGMAX,
		.msg_ctlmnb = MSGMNB,
		.msg_ctlmni = IPCMNI_DEFAULT,
		.shm_ctlmax = SHMMAX,
		.shm_ctlall = SHMALL,
		.shm_ctlmni = SHMMNI,
	},
	.ns = { .ops = &ipcns_operations, .inum = PROC_IPC_INIT_INO, .count = 1 },
};

/* a message of `len` bytes from user memory: -ENOMEM, -EFAULT */
noinline struct msg_msg *load_msg(const void *src, size_t len)
{
	struct msg_msg *msg = kmalloc(sizeof(*msg) + len, GFP_KERNEL);

	if (!msg)
		return ERR_PTR(-ENOMEM);
	msg->m_ts = len;
	if (copy_from_user(msg->m_text, src, len)) {
		kfree(msg);
		return ERR_PTR(-EFAULT);
	}
	return msg;
}

/* its first `len` bytes to user memory: -1 on a fault */
noinline int store_msg(void *dest, struct msg_msg *msg, size_t len)
{
	return copy_to_user(dest, msg->m_text, len) ? -1 : 0;
}

noinline void free_msg(struct msg_msg *msg)
{
	kfree(msg);
}
