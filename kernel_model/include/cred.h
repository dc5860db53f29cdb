/* Task credentials (kernel/cred.c): the ids are fields of task_struct */
#ifndef _CRED_H
#define _CRED_H
#include "kernel.h"

int copy_creds(struct task_struct *p, struct task_struct *parent);
int in_group_p(gid_t grp);

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
#define CAP_SYS_RAWIO		17
#define CAP_SYS_PTRACE		19
#define CAP_SYS_CHROOT		18
#define CAP_SYS_NICE		23
#define CAP_SYS_ADMIN		21
#define CAP_SYS_RESOURCE	24
#define CAP_MKNOD		27
#define CAP_LEASE		28
#define CAP_MAC_OVERRIDE	32
#define CAP_PERFMON		38
#define CAP_BPF			39
#define CAP_LAST_CAP		40	/* CAP_CHECKPOINT_RESTORE */
/* security.h's options to security_capable() */
#define CAP_OPT_NONE	0x0
#define CAP_OPT_INSETID	0x4

/* 6.1's struct cred is the task's own fields here: the capability checks take the task */
struct cred;

/* kernel/user_namespace.c: the initial namespace, its id maps (6.1's layout of the base extents) */
struct uid_gid_extent { u32 first, lower_first, count; };
struct uid_gid_map {
	u32 nr_extents;
	struct uid_gid_extent extent[5];	/* UID_GID_MAP_MAX_BASE_EXTENTS */
};
struct user_namespace {
	struct uid_gid_map uid_map, gid_map;
	int level;
	int count;
};
extern struct user_namespace init_user_ns;
typedef uid_t kuid_t;	/* (the kernel's ids are bare here) */
typedef gid_t kgid_t;
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
