/*
 * What the kinds of System V IPC share (Linux 6.1's ipc/util.c): ipcget's creation or look-up
 * by key, the ids (index and sequence number) of objects, the permission checks, removal.
 */
#include "../include/kernel.h"
#include "../include/nsproxy.h"
#include "../include/slab.h"
#include "../include/signal.h"
#include "../include/timer.h"

/* the object of a key (6.1: the ids' rhashtable); the caller holds ids->rwsem */
static inline struct kern_ipc_perm *ipc_findkey(struct ipc_ids *ids, key_t key)
{
	for (int i = 0; i <= ids->max_idx && i < ids->size; i++) {
		struct kern_ipc_perm *p = ids->entries[i];

		if (p && p->key == key)
			return p;
	}
	return NULL;
}

/* the first free index from `from` below `end` in the table, growing it as needed; -ENOSPC
 * when none is free, -ENOMEM */
static inline int ipc_idr_find_free(struct ipc_ids *ids, int from, int end)
{
	int idx;

	for (idx = from; idx < end && idx < ids->size && ids->entries[idx]; idx++)
		;
	if (idx >= end)
		return -ENOSPC;
	if (idx == ids->size) {
		int size = ids->size ? ids->size * 2 : 16;
		struct kern_ipc_perm **entries = kzalloc(size * sizeof(*entries), GFP_KERNEL);

		if (!entries)
			return -ENOMEM;
		if (ids->size)
			memcpy(entries, ids->entries, ids->size * sizeof(*entries));
		kfree(ids->entries);
		ids->entries = entries;
		ids->size = size;
	}
	return idx;
}

/* An index for `new`, as 6.1's idr_alloc_cyclic gives it: the first free one after the last
 * given, wrapping to 0, below max(in_use * 3 / 2, 64) (so that a freed index is not given again
 * at once, and the ids stay small). */
static inline int ipc_idr_alloc(struct ipc_ids *ids, struct kern_ipc_perm *new)
{
	int end = ids->in_use * 3 / 2, idx;

	if (end < IPC_MIN_CYCLE)
		end = IPC_MIN_CYCLE;
	if (end > IPCMNI)
		end = IPCMNI;
	idx = ids->next_idx < end ? ids->next_idx : 0;
	idx = ipc_idr_find_free(ids, idx, end);
	if (idx == -ENOSPC && ids->next_idx > 0)
		idx = ipc_idr_find_free(ids, 0, end);
	if (idx < 0)
		return idx;
	ids->next_idx = idx + 1;
	ids->entries[idx] = new;
	return idx;
}

/* Gives `new` an index and an id: the sequence number goes up when an index is used again
 * below the last one given, so a removed object's id does not name its successor. */
noinline int ipc_addid(struct ipc_ids *ids, struct kern_ipc_perm *new, int limit)
{
	int idx;

	if (limit > IPCMNI_DEFAULT)
		limit = IPCMNI_DEFAULT;
	if (ids->in_use >= limit)
		return -ENOSPC;
	new->cuid = new->uid = current_euid();
	new->gid = new->cgid = current_egid();
	new->deleted = false;
	new->refcount = 1;
	idx = ipc_idr_alloc(ids, new);
	if (idx < 0)
		return idx;
	if (idx <= ids->last_idx) {
		ids->seq++;
		if (ids->seq >= ipcid_seq_max())
			ids->seq = 0;
	}
	ids->last_idx = idx;
	new->seq = ids->seq;
	new->id = (new->seq << IPCMNI_SHIFT) + idx;
	ids->in_use++;
	if (idx > ids->max_idx)
		ids->max_idx = idx;
	return idx;
}

/* an IPC_PRIVATE get: always a new object */
static inline int ipcget_new(struct ipc_namespace *ns, struct ipc_ids *ids, const struct ipc_ops *ops,
		      struct ipc_params *params)
{
	int err;

	down_write(&ids->rwsem);
	err = ops->getnew(ns, params);
	up_write(&ids->rwsem);
	return err;
}

/* An existing object for a get: its id, or -EACCES when the flags ask for more than its mode
 * grants. */
static inline int ipc_check_perms(struct ipc_namespace *ns, struct kern_ipc_perm *ipcp, struct ipc_params *params)
{
	if (ipcperms(ns, ipcp, params->flg))
		return -EACCES;
	return ipcp->id;
}

/* a get by key: the key's object, or a new one with IPC_CREAT; -ENOENT without, -EEXIST with
 * IPC_CREAT|IPC_EXCL for a key in use */
static inline int ipcget_public(struct ipc_namespace *ns, struct ipc_ids *ids, const struct ipc_ops *ops,
			 struct ipc_params *params)
{
	struct kern_ipc_perm *ipcp;
	int flg = params->flg, err;

	down_write(&ids->rwsem);
	ipcp = ipc_findkey(ids, params->key);
	if (!ipcp) {
		err = (flg & IPC_CREAT) ? ops->getnew(ns, params) : -ENOENT;
	} else if ((flg & IPC_CREAT) && (flg & IPC_EXCL)) {
		err = -EEXIST;
	} else {
		err = ops->more_checks ? ops->more_checks(ipcp, params) : 0;
		if (!err)
			err = ipc_check_perms(ns, ipcp, params);
	}
	up_write(&ids->rwsem);
	return err;
}

noinline int ipcget(struct ipc_namespace *ns, struct ipc_ids *ids, const struct ipc_ops *ops,
		    struct ipc_params *params)
{
	if (params->key == IPC_PRIVATE)
		return ipcget_new(ns, ids, ops, params);
	return ipcget_public(ns, ids, ops, params);
}

/* Takes an object out of its ids: no call finds it any more; sleepers on it see it deleted.
 * The caller holds ids->rwsem. */
noinline void ipc_rmid(struct ipc_ids *ids, struct kern_ipc_perm *ipcp)
{
	int idx = ipcid_to_idx(ipcp->id);

	ids->entries[idx] = NULL;
	ids->in_use--;
	ipcp->deleted = true;
	if (idx == ids->max_idx) {
		do {
			idx--;
		} while (idx >= 0 && !ids->entries[idx]);
		ids->max_idx = idx;
	}
}

/* A removed object that stays until it is let go of (an attached shm segment): no get finds
 * it by its key any more */
noinline void ipc_set_key_private(struct ipc_ids *ids, struct kern_ipc_perm *ipcp)
{
	ipcp->key = IPC_PRIVATE;
}

/* 0 when the caller may do `flag` (S_IRUGO, S_IWUGO, or a get's mode bits) on the object: the
 * owner's, the group's or the others' bits of its mode, or CAP_IPC_OWNER; -1 otherwise */
noinline int ipcperms(struct ipc_namespace *ns, struct kern_ipc_perm *ipcp, short flag)
{
	kuid_t euid = current_euid();
	int requested_mode = (flag >> 6) | (flag >> 3) | flag;
	int granted_mode = ipcp->mode;

	if (euid == ipcp->cuid || euid == ipcp->uid)
		granted_mode >>= 6;
	else if (in_group_p(ipcp->cgid) || in_group_p(ipcp->gid))
		granted_mode >>= 3;
	if ((requested_mode & ~granted_mode & 0007) && !capable(CAP_IPC_OWNER))
		return -1;
	return 0;
}

/* the uapi's view of an object's permissions (IPC_STAT) */
noinline void kernel_to_ipc64_perm(struct kern_ipc_perm *in, struct ipc64_perm *out)
{
	memset(out, 0, sizeof(*out));
	out->key = in->key;
	out->uid = in->uid;
	out->gid = in->gid;
	out->cuid = in->cuid;
	out->cgid = in->cgid;
	out->mode = in->mode;
	out->seq = in->seq;
}

/* IPC_SET: the new owner and permission bits (the mode's other bits stay) */
noinline int ipc_update_perm(struct ipc64_perm *in, struct kern_ipc_perm *out)
{
	out->uid = in->uid;
	out->gid = in->gid;
	out->mode = (out->mode & ~S_IRWXUGO) | (in->mode & S_IRWXUGO);
	return 0;
}

/* the object at the index of `id` (6.1's idr_find), NULL where there is none */
static inline struct kern_ipc_perm *ipc_idr_find(struct ipc_ids *ids, int id)
{
	int idx = ipcid_to_idx(id);

	return idx < ids->size ? ids->entries[idx] : NULL;
}

/* the object at the index of `id`, whatever its sequence number (MSG_STAT's index);
 * -EINVAL where there is none.  The caller holds ids->rwsem. */
noinline struct kern_ipc_perm *ipc_obtain_object_idr(struct ipc_ids *ids, int id)
{
	struct kern_ipc_perm *out = ipc_idr_find(ids, id);

	return out ? out : ERR_PTR(-EINVAL);
}

/* the object of `id`: -EINVAL when its index is free or holds a later object */
static inline struct kern_ipc_perm *__ipc_obtain_object_check(struct ipc_ids *ids, int id)
{
	struct kern_ipc_perm *out = ipc_idr_find(ids, id);

	if (!out || ipcid_to_seqx(id) != out->seq)
		return ERR_PTR(-EINVAL);
	return out;
}

noinline struct kern_ipc_perm *ipc_obtain_object_check(struct ipc_ids *ids, int id)
{
	return __ipc_obtain_object_check(ids, id);
}

/* IPC_SET and IPC_RMID's object: only its creator, its owner or CAP_SYS_ADMIN may (-EPERM) */
noinline struct kern_ipc_perm *ipcctl_obtain_check(struct ipc_namespace *ns, struct ipc_ids *ids, int id,
						   int cmd, struct ipc64_perm *perm, int extra_perm)
{
	struct kern_ipc_perm *ipcp = __ipc_obtain_object_check(ids, id);	/* (inlined in 6.1) */
	kuid_t euid = current_euid();

	if (IS_ERR(ipcp))
		return ipcp;
	if (euid == ipcp->cuid || euid == ipcp->uid || capable(CAP_SYS_ADMIN))
		return ipcp;
	return ERR_PTR(-EPERM);
}

/* A sleeper's hold on an object, so that its removal does not free it under the sleeper. */
noinline bool ipc_rcu_getref(struct kern_ipc_perm *ipcp)
{
	return ipcp->refcount++ > 0;
}

/* the last reference gone: `func` frees the object after a grace period.  The caller holds
 * the ids' rwsem. */
noinline void ipc_rcu_putref(struct kern_ipc_perm *ipcp, void (*func)(struct rcu_head *head))
{
	if (--ipcp->refcount == 0)
		call_rcu(&ipcp->rcu, func);
}

/* (the model's own: 6.1 sleeps with schedule() after queueing itself on the object's list)
 * Sleeps until *gen moves on (the object changed: a message came or went, a semaphore's value,
 * its removal), with ids->rwsem dropped meanwhile; the caller holds a reference to the object.
 * 0, or -ERESTARTSYS when a signal came. */
notrace int ipc_wait(struct wait_queue_head *wq, struct ipc_ids *ids, unsigned long *gen)
{
	unsigned long seen = *gen;
	int ret;

	up_write(&ids->rwsem);
	ret = wait_event_interruptible(*wq, READ_ONCE(*gen) != seen);
	down_write(&ids->rwsem);
	return ret;
}
