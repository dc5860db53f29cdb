/*
 * Task credentials (kernel/cred.c, kernel/groups.c): the ids a task acts with, a `struct cred`
 * shared by reference and replaced whole, never changed in place once a task uses it.  A
 * change is made on a copy (prepare_creds()) and installed by commit_creds(); the old one goes
 * after a grace period (put_cred_rcu()), since readers look at another task's without a lock.
 * A user namespace maps every id to itself.  The capability sets are copied with the ids
 * (security/commoncap.c moves them).  The supplementary groups (kernel/groups.c)
 * are a sorted array shared by reference as the cred is.
 */
#include "../include/syscalls.h"
#include "../include/cred.h"
#include "../include/slab.h"

#define CLONE_THREAD	0x00010000	/* (uapi/linux/sched.h) */

static struct kmem_cache *cred_jar;

/* the idle tasks', and through them every task's first ids: root's, with every capability
 * permitted, effective and in the bounding set, none inheritable or ambient; no supplementary
 * groups */
static struct group_info init_groups = { .usage = 2 };	/* (never freed) */

struct cred init_cred = {
	.usage = 4,	/* (never freed) */
	.securebits = 0,	/* SECUREBITS_DEFAULT */
	.cap_inheritable = CAP_EMPTY_SET,
	.cap_permitted = CAP_FULL_SET,
	.cap_effective = CAP_FULL_SET,
	.cap_bset = CAP_FULL_SET,
	.cap_ambient = CAP_EMPTY_SET,
	.user_ns = &init_user_ns,
	.group_info = &init_groups,
};

void __init cred_init(void)
{
	cred_jar = kmem_cache_create("cred_jar", sizeof(struct cred), 0, SLAB_HWCACHE_ALIGN | SLAB_PANIC | SLAB_ACCOUNT,
				     NULL);
}

/* the memory of a credential no reader can see any more */
static noinline void put_cred_rcu(struct rcu_head *rcu)
{
	struct cred *cred = container_of(rcu, struct cred, rcu);

	put_group_info(cred->group_info);
	kmem_cache_free(cred_jar, cred);
}

/* the last reference gone (put_cred()): free it once readers are done with it */
noinline void __put_cred(struct cred *cred)
{
	if (cred->non_rcu)
		put_cred_rcu(&cred->rcu);
	else
		call_rcu(&cred->rcu, put_cred_rcu);
}

/* a task freed: its two references go */
noinline void exit_creds(struct task_struct *tsk)
{
	const struct cred *cred = tsk->real_cred;

	tsk->real_cred = NULL;
	put_cred(cred);
	cred = tsk->cred;
	tsk->cred = NULL;
	put_cred(cred);
}

/* A reference to another task's objective credentials (/proc/PID/status's), taken while the
 * task may be committing new ones: one whose last reference just went (its memory waits for a
 * grace period) is not taken, the task's newer one is (6.1's get_cred_rcu() loop) */
noinline const struct cred *get_task_cred(struct task_struct *task)
{
	const struct cred *cred;
	int usage;

	do {
		cred = READ_ONCE(task->real_cred);
		usage = __atomic_load_n(&cred->usage, __ATOMIC_RELAXED);
		while (usage && !__atomic_compare_exchange_n((int *)&cred->usage, &usage, usage + 1, false,
							     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			;
	} while (!usage);
	return cred;
}

/* the copy prepare_creds() makes */
static __always_inline struct cred *cred_dup(const struct cred *old)
{
	struct cred *new = kmem_cache_alloc(cred_jar, GFP_KERNEL);

	if (!new)
		return NULL;
	*new = *old;
	new->usage = 1;
	new->non_rcu = false;
	get_group_info(new->group_info);
	return new;
}

/* A copy of the caller's credentials to change and commit (or abort): one reference, the caller's */
noinline struct cred *prepare_creds(void)
{
	return cred_dup(current->cred);
}

/* exec's (prepare_bprm_creds()): what the program starts from, before its file's set-id bits
 * and capabilities (cap_bprm_creds_from_file()) are applied; the thread keyrings would go here */
noinline struct cred *prepare_exec_creds(void)
{
	return prepare_creds();
}

/*
 * Install new credentials in the current task, both its objective and subjective ones (no
 * override may be under way), taking the caller's reference; the old ones' two references go.
 */
noinline int commit_creds(struct cred *new)
{
	struct task_struct *task = current;
	const struct cred *old = task->real_cred;

	get_cred(new);	/* a reference for the subjective pointer too */
	WRITE_ONCE(task->real_cred, new);
	WRITE_ONCE(task->cred, new);
	put_cred(old);
	put_cred(old);
	return 0;
}

/* A prepared copy not committed after all (a set*id call refused) */
noinline void abort_creds(struct cred *new)
{
	put_cred(new);
}

/* Act with other credentials for a while (faccessat's real ids); returns the ones to revert to */
noinline const struct cred *override_creds(const struct cred *new)
{
	const struct cred *old = current->cred;

	get_cred(new);
	WRITE_ONCE(current->cred, new);
	return old;
}

noinline void revert_creds(const struct cred *old)
{
	const struct cred *override = current->cred;

	WRITE_ONCE(current->cred, old);
	put_cred(override);
}

/*
 * copy_process(): the child starts with its parent's credentials (p->cred, copied with the
 * task: dup_task_struct()).  A thread shares them; a new process gets its own copy, as its
 * ucounts and keyrings would differ.  (A session's task may be made by another task than its
 * parent: its copy is of the parent's, not the caller's.)  On failure the task has none.
 */
noinline int copy_creds(struct task_struct *p, unsigned long clone_flags)
{
	struct cred *new;

	if (clone_flags & CLONE_THREAD) {
		p->real_cred = get_cred(p->cred);
		get_cred(p->cred);
		return 0;
	}
	new = p->cred == current->cred ? prepare_creds() : cred_dup(p->cred);
	if (!new) {
		p->cred = p->real_cred = NULL;
		return -ENOMEM;
	}
	p->cred = p->real_cred = get_cred(new);
	return 0;
}

/* ---- kernel/groups.c ---- */
noinline struct group_info *groups_alloc(int gidsetsize)
{
	struct group_info *gi = kmalloc(sizeof(*gi) + gidsetsize * sizeof(kgid_t), GFP_KERNEL_ACCOUNT);

	if (!gi)
		return NULL;
	gi->usage = 1;
	gi->ngroups = gidsetsize;
	return gi;
}

noinline void groups_free(struct group_info *group_info)
{
	kfree(group_info);	/* kvfree() */
}

/* in order, for groups_search()'s halving (6.1: sort() with gid_cmp; lib/ is untraced) */
noinline void groups_sort(struct group_info *group_info)
{
	int i, j;

	for (i = 1; i < group_info->ngroups; i++) {
		kgid_t g = group_info->gid[i];

		for (j = i; j > 0 && group_info->gid[j - 1] > g; j--)
			group_info->gid[j] = group_info->gid[j - 1];
		group_info->gid[j] = g;
	}
}

/* whether grp is one of the groups */
noinline int groups_search(const struct group_info *group_info, kgid_t grp)
{
	unsigned int left = 0, right = group_info->ngroups;

	while (left < right) {
		unsigned int mid = (left + right) / 2;

		if (grp > group_info->gid[mid])
			left = mid + 1;
		else if (grp < group_info->gid[mid])
			right = mid;
		else
			return 1;
	}
	return 0;
}

/* new credentials take these groups (a reference of their own) */
noinline void set_groups(struct cred *new, struct group_info *group_info)
{
	put_group_info(new->group_info);
	get_group_info(group_info);
	new->group_info = group_info;
}

/* the caller's groups become these: a copy of its credentials with them, committed */
noinline int set_current_groups(struct group_info *group_info)
{
	struct cred *new = prepare_creds();

	if (!new)
		return -ENOMEM;
	set_groups(new, group_info);
	return commit_creds(new);
}

SYSCALL_DEFINE2(getgroups, int, gidsetsize, gid_t *, grouplist)
{
	const struct cred *cred = current_cred();
	int i;

	if (gidsetsize < 0)
		return -EINVAL;
	i = cred->group_info->ngroups;
	if (gidsetsize) {
		int j;

		if (i > gidsetsize)
			return -EINVAL;
		for (j = 0; j < i; j++) {	/* groups_to_user() */
			gid_t gid = from_kgid_munged(cred->user_ns, cred->group_info->gid[j]);

			if (copy_to_user(grouplist + j, &gid, sizeof(gid)))
				return -EFAULT;
		}
	}
	return i;
}

/* CAP_SETGID (the one user namespace allows setgroups) */
noinline bool may_setgroups(void)
{
	return ns_capable_setid(current_cred()->user_ns, CAP_SETGID);
}

SYSCALL_DEFINE2(setgroups, int, gidsetsize, gid_t *, grouplist)
{
	struct group_info *group_info;
	int retval, i;

	if (!may_setgroups())
		return -EPERM;
	if ((unsigned int)gidsetsize > NGROUPS_MAX)
		return -EINVAL;
	group_info = groups_alloc(gidsetsize);
	if (!group_info)
		return -ENOMEM;
	for (i = 0; i < gidsetsize; i++) {	/* groups_from_user() */
		gid_t gid;
		kgid_t kgid;

		if (copy_from_user(&gid, grouplist + i, sizeof(gid))) {
			put_group_info(group_info);
			return -EFAULT;
		}
		kgid = make_kgid(current_cred()->user_ns, gid);
		if (!gid_valid(kgid)) {
			put_group_info(group_info);
			return -EINVAL;
		}
		group_info->gid[i] = kgid;
	}
	groups_sort(group_info);
	retval = set_current_groups(group_info);
	put_group_info(group_info);
	return retval;
}

/* whether the task's file system group is `grp`, or one of its supplementary groups */
noinline int in_group_p(kgid_t grp)
{
	const struct cred *cred = current_cred();

	if (grp != cred->fsgid)
		return groups_search(cred->group_info, grp);
	return 1;
}
