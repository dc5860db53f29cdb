/*
 * User namespaces (kernel/user_namespace.c, kernel/user.c): the initial one, whose uid and gid
 * maps are 6.1's identity extent (ids 0..4294967294 to themselves; -1 maps to nothing).  The
 * ids a task holds are the kernel's (kuid_t); what user space gives or is told goes through
 * the maps: make_kuid()/make_kgid() in, from_kuid()/from_kgid() out (_munged: an unmapped id
 * is the overflow id, 65534).
 */
#include "../include/cred.h"
#include "../include/kernel.h"
#include "../include/nsproxy.h"

#define OVERFLOW_UID	65534

struct user_namespace init_user_ns = {
	.uid_map = { .nr_extents = 1, .extent[0] = { .first = 0, .lower_first = 0, .count = 4294967295U } },
	.gid_map = { .nr_extents = 1, .extent[0] = { .first = 0, .lower_first = 0, .count = 4294967295U } },
	.ns = { .ops = &userns_operations, .inum = PROC_USER_INIT_INO, .count = 3 },	/* 6.1: REFCOUNT_INIT(3) */
};

/* map_id_range_down_base(): the extent holding [id, id + count) on the namespace's side */
static inline struct uid_gid_extent *map_id_range_down_base(struct uid_gid_map *map, u32 id, u32 count)
{
	u32 first, last, id2 = id + count - 1;
	unsigned int idx;

	for (idx = 0; idx < map->nr_extents; idx++) {
		first = map->extent[idx].first;
		last = first + map->extent[idx].count - 1;
		if (id >= first && id <= last && (id2 >= first && id2 <= last))
			return &map->extent[idx];
	}
	return NULL;
}

/* A namespace's ids to the kernel's; (u32)-1 if not mapped */
noinline u32 map_id_range_down(struct uid_gid_map *map, u32 id, u32 count)
{
	struct uid_gid_extent *extent = map_id_range_down_base(map, id, count);

	return extent ? (id - extent->first) + extent->lower_first : (u32)-1;
}

/* A kernel id to the namespace's (map_id_up_base(): by the extents' lower side) */
noinline u32 map_id_up(struct uid_gid_map *map, u32 id)
{
	unsigned int idx;

	for (idx = 0; idx < map->nr_extents; idx++) {
		u32 first = map->extent[idx].lower_first, last = first + map->extent[idx].count - 1;

		if (id >= first && id <= last)
			return (id - first) + map->extent[idx].first;
	}
	return (u32)-1;
}

noinline kuid_t make_kuid(struct user_namespace *ns, uid_t uid)
{
	return map_id_range_down(&ns->uid_map, uid, 1);	/* map_id_down() */
}

noinline kgid_t make_kgid(struct user_namespace *ns, gid_t gid)
{
	return map_id_range_down(&ns->gid_map, gid, 1);
}

noinline uid_t from_kuid(struct user_namespace *targ, kuid_t kuid)
{
	return map_id_up(&targ->uid_map, kuid);
}

noinline gid_t from_kgid(struct user_namespace *targ, kgid_t kgid)
{
	return map_id_up(&targ->gid_map, kgid);
}

noinline uid_t from_kuid_munged(struct user_namespace *targ, kuid_t kuid)
{
	uid_t uid = from_kuid(targ, kuid);

	if (uid == (uid_t)-1)
		uid = OVERFLOW_UID;	/* overflowuid */
	return uid;
}

noinline gid_t from_kgid_munged(struct user_namespace *targ, kgid_t kgid)
{
	gid_t gid = from_kgid(targ, kgid);

	if (gid == (gid_t)-1)
		gid = OVERFLOW_UID;	/* overflowgid */
	return gid;
}
