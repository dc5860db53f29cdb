/* Task credentials (include/linux/cred.h, kernel/cred.c) */
#ifndef _CRED_H
#define _CRED_H
#include "kernel.h"

/* include/uapi/linux/capability.h: the capabilities the model asks for */
#define CAP_CHOWN		0
#define CAP_DAC_OVERRIDE	1
#define CAP_DAC_READ_SEARCH	2
#define CAP_FOWNER		3
#define CAP_FSETID		4
#define CAP_KILL		5
#define CAP_SETGID		6
#define CAP_SETUID		7
#define CAP_LINUX_IMMUTABLE	9
#define CAP_IPC_LOCK		14
#define CAP_SETPCAP		8
#define CAP_SYS_RAWIO		17
#define CAP_SYS_CHROOT		18
#define CAP_SYS_PTRACE		19
#define CAP_SYS_NICE		23
#define CAP_SYS_ADMIN		21
#define CAP_SYS_RESOURCE	24
#define CAP_MKNOD		27
#define CAP_LEASE		28
#define CAP_SETFCAP		31
#define CAP_MAC_OVERRIDE	32
#define CAP_PERFMON		38
#define CAP_BPF			39
#define CAP_LAST_CAP		40	/* CAP_CHECKPOINT_RESTORE */
#define cap_valid(x)		((x) >= 0 && (x) <= CAP_LAST_CAP)

/* include/linux/capability.h: a capability set, two words */
typedef struct kernel_cap_struct { u32 cap[2]; } kernel_cap_t;
#define CAP_EMPTY_SET	((kernel_cap_t){ { 0, 0 } })
#define CAP_FULL_SET	((kernel_cap_t){ { ~0U, (1U << (CAP_LAST_CAP - 31)) - 1 } })
/* the file-system ones, which follow the fsuid (CAP_FS_SET) */
#define CAP_FS_SET	((kernel_cap_t){ { (1U << CAP_CHOWN) | (1U << CAP_MKNOD) | (1U << CAP_DAC_OVERRIDE) | \
					   (1U << CAP_DAC_READ_SEARCH) | (1U << CAP_FOWNER) | \
					   (1U << CAP_FSETID) | (1U << CAP_LINUX_IMMUTABLE), \
					   1U << (CAP_MAC_OVERRIDE - 32) } })

static inline bool cap_raised(kernel_cap_t c, int flag)
{
	return c.cap[flag >> 5] & (1U << (flag & 31));
}

static inline void cap_raise(kernel_cap_t *c, int flag)
{
	c->cap[flag >> 5] |= 1U << (flag & 31);
}

static inline void cap_lower(kernel_cap_t *c, int flag)
{
	c->cap[flag >> 5] &= ~(1U << (flag & 31));
}

static inline kernel_cap_t cap_combine(kernel_cap_t a, kernel_cap_t b)
{
	return (kernel_cap_t){ { a.cap[0] | b.cap[0], a.cap[1] | b.cap[1] } };
}

static inline kernel_cap_t cap_intersect(kernel_cap_t a, kernel_cap_t b)
{
	return (kernel_cap_t){ { a.cap[0] & b.cap[0], a.cap[1] & b.cap[1] } };
}

static inline kernel_cap_t cap_drop(kernel_cap_t a, kernel_cap_t drop)
{
	return (kernel_cap_t){ { a.cap[0] & ~drop.cap[0], a.cap[1] & ~drop.cap[1] } };
}

static inline bool cap_isclear(kernel_cap_t a)
{
	return !(a.cap[0] | a.cap[1]);
}

/* whether a has nothing b has not */
static inline bool cap_issubset(kernel_cap_t a, kernel_cap_t b)
{
	return cap_isclear(cap_drop(a, b));
}

/* include/uapi/linux/securebits.h: the bits of cred->securebits, each with its lock above it */
#define SECURE_NOROOT			0
#define SECURE_NO_SETUID_FIXUP		2
#define SECURE_KEEP_CAPS		4
#define SECURE_NO_CAP_AMBIENT_RAISE	6
#define issecure_mask(X)		(1 << (X))
#define SECURE_KEEP_CAPS_LOCKED		(SECURE_KEEP_CAPS + 1)
#define SECURE_ALL_BITS		(issecure_mask(SECURE_NOROOT) | issecure_mask(SECURE_NO_SETUID_FIXUP) | \
				 issecure_mask(SECURE_KEEP_CAPS) | issecure_mask(SECURE_NO_CAP_AMBIENT_RAISE))
#define SECURE_ALL_LOCKS	(SECURE_ALL_BITS << 1)
#define issecure(X)		(issecure_mask(X) & current_cred()->securebits)
/* security.h's options to security_capable() */
#define CAP_OPT_NONE	0x0
#define CAP_OPT_INSETID	0x4


/* kernel/user_namespace.c: the initial namespace, its id maps (6.1's layout of the base extents) */
struct uid_gid_extent { u32 first, lower_first, count; };
struct uid_gid_map {
	u32 nr_extents;
	struct uid_gid_extent extent[5];	/* UID_GID_MAP_MAX_BASE_EXTENTS */
};
struct user_namespace {		/* (its fields at Debian 6.1's offsets: its maps are 72 bytes) */
	struct uid_gid_map uid_map;
	u8 __gap_64[72 - 64];
	struct uid_gid_map gid_map;
	u8 __gap_136[224 - 136];
	int level;
	u8 __gap_228[240 - 228];
	struct ns_common ns;
};
_Static_assert(__builtin_offsetof(struct user_namespace, ns) == 240, "user_namespace.ns as Debian 6.1's");
extern struct user_namespace init_user_ns;
typedef uid_t kuid_t;	/* (the kernel's ids are bare here) */
typedef gid_t kgid_t;

/*
 * The ids a task acts with, 6.1's struct cred (its members in 6.1's order up to the ids, so
 * `curtask->cred->uid`-style reads find them): shared by reference, never changed once
 * committed.  A change is prepare_creds() (a copy), its fields set, commit_creds() (the task's
 * two pointers swapped, the old copy freed after a grace period); a thread group shares one
 * until a thread changes its own.  The capability sets follow the ids as 6.1's commoncap.c
 * moves them (security/commoncap.c); there are no keyrings or LSM blobs between them and user_ns.
 */
struct cred {
	int usage;			/* atomic_t */
	kuid_t uid;			/* real */
	kgid_t gid;
	kuid_t suid;			/* saved */
	kgid_t sgid;
	kuid_t euid;			/* effective */
	kgid_t egid;
	kuid_t fsuid;			/* for file system access */
	kgid_t fsgid;
	unsigned securebits;		/* SUID-less security management */
	kernel_cap_t cap_inheritable;	/* caps our children can inherit */
	kernel_cap_t cap_permitted;	/* caps we're permitted */
	kernel_cap_t cap_effective;	/* caps we can actually use */
	kernel_cap_t cap_bset;		/* capability bounding set */
	kernel_cap_t cap_ambient;	/* ambient capability set */
	struct user_namespace *user_ns;
	struct group_info *group_info;	/* its supplementary groups, shared by reference */
	bool non_rcu;			/* freed at once, not after a grace period (access_override_creds) */
	struct rcu_head rcu;
};
_Static_assert(__builtin_offsetof(struct cred, cap_ambient) == 72, "cred's capability sets as 6.1's");
extern struct cred init_cred;

/* kernel/groups.c: a task's supplementary groups, sorted (groups_search), never changed once a
 * cred holds them */
struct group_info {
	int usage;		/* atomic_t */
	int ngroups;
	kgid_t gid[];
};
#define NGROUPS_MAX	65536

struct group_info *groups_alloc(int gidsetsize);
void groups_free(struct group_info *group_info);
void groups_sort(struct group_info *group_info);
int groups_search(const struct group_info *group_info, kgid_t grp);
void set_groups(struct cred *new, struct group_info *group_info);
int set_current_groups(struct group_info *group_info);

static inline struct group_info *get_group_info(struct group_info *gi)
{
	__atomic_add_fetch(&gi->usage, 1, __ATOMIC_RELAXED);
	return gi;
}

static inline void put_group_info(struct group_info *gi)
{
	if (__atomic_sub_fetch(&gi->usage, 1, __ATOMIC_ACQ_REL) == 0)
		groups_free(gi);
}

void __init cred_init(void);
struct cred *prepare_creds(void);
struct cred *prepare_exec_creds(void);
int commit_creds(struct cred *new);
void abort_creds(struct cred *new);
const struct cred *override_creds(const struct cred *new);
void revert_creds(const struct cred *old);
void __put_cred(struct cred *cred);
int copy_creds(struct task_struct *p, unsigned long clone_flags);
void exit_creds(struct task_struct *tsk);
int in_group_p(kgid_t grp);
const struct cred *get_task_cred(struct task_struct *task);

static inline const struct cred *get_cred(const struct cred *cred)
{
	__atomic_add_fetch(&((struct cred *)cred)->usage, 1, __ATOMIC_RELAXED);
	return cred;
}

static inline void put_cred(const struct cred *cred)
{
	if (__atomic_sub_fetch(&((struct cred *)cred)->usage, 1, __ATOMIC_ACQ_REL) == 0)
		__put_cred((struct cred *)cred);
}

/* the subjective ids (what the task acts with: an override's) and a task's objective ones */
#define current_cred()		(current->cred)
#define __task_cred(task)	((task)->real_cred)
#define task_uid(task)		(__task_cred(task)->uid)
#define task_euid(task)		(__task_cred(task)->euid)
#define current_uid()		(current_cred()->uid)
#define current_gid()		(current_cred()->gid)
#define current_euid()		(current_cred()->euid)
#define current_egid()		(current_cred()->egid)
#define current_suid()		(current_cred()->suid)
#define current_fsuid()		(current_cred()->fsuid)
#define current_fsgid()		(current_cred()->fsgid)
static inline bool uid_valid(kuid_t uid) { return uid != (kuid_t)-1; }
static inline bool gid_valid(kgid_t gid) { return gid != (kgid_t)-1; }
kuid_t make_kuid(struct user_namespace *ns, uid_t uid);
kgid_t make_kgid(struct user_namespace *ns, gid_t gid);
uid_t from_kuid(struct user_namespace *targ, kuid_t kuid);
gid_t from_kgid(struct user_namespace *targ, kgid_t kgid);
uid_t from_kuid_munged(struct user_namespace *targ, kuid_t kuid);
gid_t from_kgid_munged(struct user_namespace *targ, kgid_t kgid);
struct inode;

/* kernel/capability.c */
bool capable(int cap);
bool ns_capable(struct user_namespace *ns, int cap);
bool ns_capable_setid(struct user_namespace *ns, int cap);
bool capable_wrt_inode_uidgid(void *idmap, const struct inode *inode, int cap);
bool inode_owner_or_capable(void *idmap, const struct inode *inode);
/* security/security.c, security/commoncap.c */
int security_capable(const struct cred *cred, struct user_namespace *ns, int cap, unsigned int opts);
int cap_capable(const struct cred *cred, struct user_namespace *targ_ns, int cap, unsigned int opts);

static inline bool perfmon_capable(void)
{
	return capable(CAP_PERFMON) || capable(CAP_SYS_ADMIN);
}

static inline bool bpf_capable(void)
{
	return capable(CAP_BPF) || capable(CAP_SYS_ADMIN);
}
#endif
