/*
 * Task credentials (kernel/cred.c, kernel/groups.c): the ids a task acts with, a `struct cred`
 * shared by reference and replaced whole, never changed in place once a task uses it.  A
 * change is made on a copy (prepare_creds()) and installed by commit_creds(); the old one goes
 * after a grace period (put_cred_rcu()), since readers look at another task's without a lock.
 * A user namespace maps every id to itself.  No capability sets are kept: root's (an
 * effective uid of 0; for the file checks a fsuid of 0) are all of them, what 6.1 gives a task
 * under the default securebits (cap_emulate_setxuid).  No supplementary groups (setgroups is
 * not modelled): a task's groups are its fsgid alone.
 */
#include "../include/syscalls.h"
#include "../include/cred.h"
#include "../include/slab.h"

#define CLONE_THREAD	0x00010000	/* (uapi/linux/sched.h) */

static struct kmem_cache *cred_jar;

/* the idle tasks', and through them every task's first ids: root's */
struct cred init_cred = {
	.usage = 4,	/* (never freed) */
	.user_ns = &init_user_ns,
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

/* the copy prepare_creds() makes */
static __always_inline struct cred *cred_dup(const struct cred *old)
{
	struct cred *new = kmem_cache_alloc(cred_jar, GFP_KERNEL);

	if (!new)
		return NULL;
	*new = *old;
	new->usage = 1;
	new->non_rcu = false;
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

/* whether the task's file system group is `grp` (or one of its supplementary groups: none) */
noinline int in_group_p(kgid_t grp)
{
	return current_fsgid() == grp;
}

/* kernel/groups.c: the supplementary groups, of which a task here has none */
SYSCALL_DEFINE2(getgroups, int, gidsetsize, gid_t *, grouplist)
{
	if (gidsetsize < 0)
		return -EINVAL;
	return 0;
}
