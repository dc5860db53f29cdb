/*
 * Mount propagation types (Linux's fs/pnode.c, the part that keeps them): a shared mount is
 * in a peer group (mnt_group_id, its peers on mnt_share), a slave has a master (mnt_master,
 * on its mnt_slave_list), an unbindable one is MNT_UNBINDABLE, a private one none of these.
 * mount(2)'s MS_SHARED/MS_SLAVE/MS_PRIVATE/MS_UNBINDABLE set them and /proc/PID/mountinfo
 * shows them; events are not propagated between peers and slaves (README).
 */
#include "../include/fs.h"

#define MS_UNBINDABLE	(1 << 17)
#define MS_PRIVATE	(1 << 18)
#define MS_SLAVE	(1 << 19)
#define MS_SHARED	(1 << 20)

/* peer group ids in use (6.1's mnt_group_ida: the lowest free one is given) */
#define GROUP_IDS 4096
static unsigned long group_ids[GROUP_IDS / 64];

notrace int mnt_alloc_group_id(struct mount *mnt)
{
	int id;

	for (id = 1; id < GROUP_IDS; id++) {
		if (!(group_ids[id / 64] & (1UL << (id % 64)))) {
			group_ids[id / 64] |= 1UL << (id % 64);
			mnt->mnt_group_id = id;
			return 0;
		}
	}
	return -ENOSPC;
}

noinline void mnt_release_group_id(struct mount *mnt)
{
	group_ids[mnt->mnt_group_id / 64] &= ~(1UL << (mnt->mnt_group_id % 64));
	mnt->mnt_group_id = 0;
}

static inline struct mount *next_peer(struct mount *p)
{
	return list_entry(p->mnt_share.next, struct mount, mnt_share);
}

/* mnt leaves its peer group and becomes a slave of a peer (one of the same root first), or
 * stays a slave of its master, or is private when it has neither; its slaves follow it */
static inline int do_make_slave(struct mount *mnt)
{
	struct mount *master, *slave_mnt, *m;

	if (list_empty(&mnt->mnt_share)) {
		if (mnt->mnt.mnt_flags & MNT_SHARED) {
			mnt_release_group_id(mnt);
			mnt->mnt.mnt_flags &= ~MNT_SHARED;
		}
		master = mnt->mnt_master;
		if (!master) {
			while (!list_empty(&mnt->mnt_slave_list)) {
				slave_mnt = list_first_entry(&mnt->mnt_slave_list, struct mount, mnt_slave);
				list_del_init(&slave_mnt->mnt_slave);
				slave_mnt->mnt_master = NULL;
			}
			return 0;
		}
	} else {
		for (m = master = next_peer(mnt); m != mnt; m = next_peer(m)) {
			if (m->mnt.mnt_root == mnt->mnt.mnt_root) {
				master = m;
				break;
			}
		}
		list_del_init(&mnt->mnt_share);
		mnt->mnt_group_id = 0;
		mnt->mnt.mnt_flags &= ~MNT_SHARED;
	}
	list_for_each_entry(slave_mnt, &mnt->mnt_slave_list, mnt_slave)
		slave_mnt->mnt_master = master;
	list_del(&mnt->mnt_slave);
	list_add(&mnt->mnt_slave, &master->mnt_slave_list);
	list_splice_init(&mnt->mnt_slave_list, master->mnt_slave_list.prev);
	mnt->mnt_master = master;
	return 0;
}

/* mnt's propagation type becomes type (one of the four MS_ flags) */
noinline void change_mnt_propagation(struct mount *mnt, int type)
{
	if (type == MS_SHARED) {
		mnt->mnt.mnt_flags |= MNT_SHARED;	/* set_mnt_shared() */
		return;
	}
	do_make_slave(mnt);
	if (type != MS_SLAVE) {
		list_del_init(&mnt->mnt_slave);
		mnt->mnt_master = NULL;
		if (type == MS_UNBINDABLE)
			mnt->mnt.mnt_flags |= MNT_UNBINDABLE;
		else
			mnt->mnt.mnt_flags &= ~MNT_UNBINDABLE;
	}
}

/* A bind mount's copy of old (clone_mnt): in old's peer group, a slave of old's master */
notrace void mnt_propagation_clone(struct mount *mnt, struct mount *old)
{
	if (old->mnt.mnt_flags & MNT_SHARED) {
		mnt->mnt_group_id = old->mnt_group_id;
		list_add(&mnt->mnt_share, &old->mnt_share);
	}
	if (old->mnt_master) {
		list_add(&mnt->mnt_slave, &old->mnt_slave);
		mnt->mnt_master = old->mnt_master;
	}
}
