/*
 * NUMA memory policies (mm/mempolicy.c) on the model's one node: a task's policy, set by
 * set_mempolicy(2) and read by get_mempolicy(2) with 6.1's checks and errnos.  With one node
 * every policy allocates from node 0, so the policy is kept and reported, never consulted.
 * A forked child gets a copy of its parent's, exec keeps it, exit drops it.  No VMA policies
 * (mbind is ENOSYS): get_mempolicy finds the default at any address, set_mempolicy_home_node
 * no policy to change.  migrate_pages has no page off node 0 to move.
 */
#include "../include/syscalls.h"
#include "../include/mm.h"
#include "../include/mmap_lock.h"
#include "../include/bitops.h"
#include "../include/mempolicy.h"
#include "../include/pid.h"
#include "../include/cred.h"
#include "../include/ptrace.h"

#define MPOL_F_STATIC_NODES	(1 << 15)
#define MPOL_F_RELATIVE_NODES	(1 << 14)
#define MPOL_F_NUMA_BALANCING	(1 << 13)
#define MPOL_MODE_FLAGS		(MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING)
/* get_mempolicy's flags */
#define MPOL_F_NODE		(1 << 0)
#define MPOL_F_ADDR		(1 << 1)
#define MPOL_F_MEMS_ALLOWED	(1 << 2)

#define nr_node_ids		MAX_NUMNODES	/* the nodes there are: node 0 */
/* the nodes with memory that the task may use (cpuset_current_mems_allowed & N_MEMORY) */
#define mems_allowed		((nodemask_t){ { 1 } })

/* what a task without a policy of its own has: local allocation */
static struct mempolicy default_policy = { .refcnt = 1, .mode = MPOL_LOCAL };

static bool nodes_empty(const nodemask_t *n)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(n->bits); i++)
		if (n->bits[i])
			return false;
	return true;
}

/* *dst = *a & *b */
static void nodes_and(nodemask_t *dst, const nodemask_t *a, const nodemask_t *b)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dst->bits); i++)
		dst->bits[i] = a->bits[i] & b->bits[i];
}

/* The node mask set_mempolicy's caller gave: maxnode - 1 bits of nmask, those past a node
 * mask's size all clear. */
noinline int get_nodes(nodemask_t *nodes, const unsigned long *nmask, unsigned long maxnode)
{
	unsigned long t;

	--maxnode;
	*nodes = (nodemask_t){ { 0 } };
	if (maxnode == 0 || !nmask)
		return 0;
	if (maxnode > PAGE_SIZE * 8)
		return -EINVAL;
	/* the part past NODEMASK_BITS must be zero: checked a word at a time from the end */
	while (maxnode > NODEMASK_BITS) {
		unsigned long bits = min(maxnode, (unsigned long)BITS_PER_LONG);

		if (copy_from_user(&t, &nmask[(maxnode - 1) / BITS_PER_LONG], sizeof(t)))
			return -EFAULT;
		if (bits % BITS_PER_LONG)
			t &= (1UL << bits) - 1;
		if (maxnode - bits >= NODEMASK_BITS) {
			maxnode -= bits;
		} else {	/* (NODEMASK_BITS is whole words: the word is past it) */
			maxnode = NODEMASK_BITS;
		}
		if (t)
			return -EINVAL;
	}
	/* get_bitmap(): the words that hold maxnode bits, the last one's bits past it cleared */
	if (copy_from_user(nodes->bits, nmask, (maxnode + BITS_PER_LONG - 1) / BITS_PER_LONG * sizeof(long)))
		return -EFAULT;
	if (maxnode % BITS_PER_LONG)
		nodes->bits[maxnode / BITS_PER_LONG] &= (1UL << (maxnode % BITS_PER_LONG)) - 1;
	return 0;
}

/* A node mask to get_mempolicy's caller: maxnode - 1 bits' worth of longs, those past the
 * kernel's nodes zeroed (at most a page of them) */
static int copy_nodes_to_user(unsigned long *mask, unsigned long maxnode, const nodemask_t *nodes)
{
	static const unsigned long zeros[64];
	unsigned long copy = ((maxnode - 1 + 63) & ~63UL) / 8;
	unsigned int nbytes = (nr_node_ids + BITS_PER_LONG - 1) / BITS_PER_LONG * sizeof(long);

	if (copy > nbytes) {
		unsigned long off;

		if (copy > PAGE_SIZE)
			return -EINVAL;
		for (off = nbytes; off < copy; off += sizeof(zeros))	/* clear_user() */
			if (copy_to_user((char *)mask + off, zeros, min(copy - off, sizeof(zeros))))
				return -EFAULT;
		copy = nbytes;
	}
	return copy_to_user(mask, nodes->bits, copy) ? -EFAULT : 0;
}

/* a policy of mode on nodes (NULL for MPOL_DEFAULT: the task's own goes) */
noinline struct mempolicy *mpol_new(unsigned short mode, unsigned short flags, nodemask_t *nodes)
{
	struct mempolicy *policy;

	if (mode == MPOL_DEFAULT)
		return nodes_empty(nodes) ? NULL : ERR_PTR(-EINVAL);
	if (mode == MPOL_PREFERRED) {
		if (nodes_empty(nodes)) {
			if (flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))
				return ERR_PTR(-EINVAL);
			mode = MPOL_LOCAL;	/* preferred with no node: local */
		}
	} else if (mode == MPOL_LOCAL) {
		if (!nodes_empty(nodes) || (flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)))
			return ERR_PTR(-EINVAL);
	} else if (nodes_empty(nodes)) {
		return ERR_PTR(-EINVAL);
	}
	policy = kzalloc(sizeof(*policy), GFP_KERNEL);
	if (!policy)
		return ERR_PTR(-ENOMEM);
	policy->refcnt = 1;
	policy->mode = mode;
	policy->flags = flags;
	return policy;
}

/* The policy's nodes: the caller's, as the task may use them (static: those it names; relative:
 * folded onto the allowed ones, which with one node is node 0 for any; else those it names that
 * are allowed); none left is EINVAL.  A preferred policy keeps the first. */
static int mpol_set_nodemask(struct mempolicy *pol, const nodemask_t *nodes)
{
	nodemask_t mask;

	if (!pol || pol->mode == MPOL_LOCAL)
		return 0;
	if (pol->flags & MPOL_F_RELATIVE_NODES)	/* mpol_relative_nodemask() */
		mask = nodes_empty(nodes) ? (nodemask_t){ { 0 } } : mems_allowed;
	else
		nodes_and(&mask, nodes, &mems_allowed);
	/* what the user asked for, kept for get_mempolicy (mpol_store_user_nodemask) */
	pol->user_nodemask = (pol->flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)) ? *nodes : mems_allowed;
	if (nodes_empty(&mask))	/* mpol_new_preferred(), mpol_new_nodemask() */
		return -EINVAL;
	pol->nodes = mask;	/* (a preferred policy's first node: the only one) */
	return 0;
}

noinline long do_set_mempolicy(unsigned short mode, unsigned short flags, nodemask_t *nodes)
{
	struct mempolicy *new = mpol_new(mode, flags, nodes), *old;
	int ret;

	if (IS_ERR(new))
		return PTR_ERR(new);
	ret = mpol_set_nodemask(new, nodes);
	if (ret) {
		mpol_put(new);
		return ret;
	}
	old = current->mempolicy;
	current->mempolicy = new;
	if (new && new->mode == MPOL_INTERLEAVE)
		current->il_prev = NODEMASK_BITS - 1;
	mpol_put(old);
	return 0;
}

/* the mode's flags split off; a mode past the last, or flags that contradict, EINVAL */
static inline int sanitize_mpol_flags(int *mode, unsigned short *flags)
{
	*flags = *mode & MPOL_MODE_FLAGS;
	*mode &= ~MPOL_MODE_FLAGS;
	if ((unsigned int)*mode >= MPOL_MAX)
		return -EINVAL;
	if ((*flags & MPOL_F_STATIC_NODES) && (*flags & MPOL_F_RELATIVE_NODES))
		return -EINVAL;
	if ((*flags & MPOL_F_NUMA_BALANCING) && *mode != MPOL_BIND)
		return -EINVAL;
	return 0;
}

noinline long kernel_set_mempolicy(int mode, const unsigned long *nmask, unsigned long maxnode)
{
	unsigned short mode_flags;
	nodemask_t nodes;
	int lmode = mode;
	int err;

	err = sanitize_mpol_flags(&lmode, &mode_flags);
	if (err)
		return err;
	err = get_nodes(&nodes, nmask, maxnode);
	if (err)
		return err;
	return do_set_mempolicy(lmode, mode_flags, &nodes);
}

SYSCALL_DEFINE3(set_mempolicy, int, mode, const unsigned long *, nmask, unsigned long, maxnode)
{
	return kernel_set_mempolicy(mode, nmask, maxnode);
}

/* the nodes a policy allocates from (none for local) */
static void get_policy_nodemask(struct mempolicy *p, nodemask_t *nodes)
{
	*nodes = (nodemask_t){ { 0 } };
	if (p != &default_policy && p->mode != MPOL_LOCAL)
		*nodes = p->nodes;
}

/* the node of the page at addr, faulted in; a session task's pages are its host process's,
 * on the one node there is */
static int lookup_node(struct mm_struct *mm, unsigned long addr)
{
	struct page *p = NULL;
	long ret = 0;

	mmap_read_lock(mm);
	if (!mm_host_vmas(mm)) {
		ret = get_user_pages_remote(mm, addr & PAGE_MASK, 1, 0, &p, NULL, NULL);
		if (ret > 0) {
			ret = 0;	/* page_to_nid(p) */
			put_gup_page(p);
		}
	}
	mmap_read_unlock(mm);
	return ret;
}

/* The policy (its mode and flags, or with MPOL_F_NODE a node) and its nodes: the task's, the
 * VMA's at addr (MPOL_F_ADDR), or the nodes the task may use (MPOL_F_MEMS_ALLOWED). */
static long do_get_mempolicy(int *policy, nodemask_t *nmask, unsigned long addr, unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	struct mempolicy *pol = current->mempolicy;
	int err;

	if (flags & ~(unsigned long)(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED))
		return -EINVAL;
	if (flags & MPOL_F_MEMS_ALLOWED) {
		if (flags & (MPOL_F_NODE | MPOL_F_ADDR))
			return -EINVAL;
		*policy = 0;
		*nmask = mems_allowed;
		return 0;
	}
	if (flags & MPOL_F_ADDR) {
		/* the VMA's policy: none here (no mbind), so the default */
		mmap_read_lock(mm);
		if (!vma_lookup(mm, addr)) {
			mmap_read_unlock(mm);
			return -EFAULT;
		}
		mmap_read_unlock(mm);
		pol = NULL;
	} else if (addr) {
		return -EINVAL;
	}
	if (!pol)
		pol = &default_policy;
	if (flags & MPOL_F_NODE) {
		if (flags & MPOL_F_ADDR) {
			err = lookup_node(mm, addr);
			if (err < 0)
				return err;
			*policy = err;
		} else if (pol == current->mempolicy && pol->mode == MPOL_INTERLEAVE) {
			*policy = 0;	/* next_node_in(il_prev, nodes): the one node */
		} else {
			return -EINVAL;
		}
	} else {
		*policy = (pol == &default_policy ? MPOL_DEFAULT : pol->mode) | (pol->flags & MPOL_MODE_FLAGS);
	}
	if (nmask) {
		if (pol->flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))
			*nmask = pol->user_nodemask;
		else
			get_policy_nodemask(pol, nmask);
	}
	return 0;
}

noinline int kernel_get_mempolicy(int *policy, unsigned long *nmask, unsigned long maxnode,
				  unsigned long addr, unsigned long flags)
{
	int err, pval;
	nodemask_t nodes;

	if (nmask != NULL && maxnode < nr_node_ids)
		return -EINVAL;
	err = do_get_mempolicy(&pval, &nodes, addr, flags);
	if (err)
		return err;
	if (policy && copy_to_user(policy, &pval, sizeof(pval)))
		return -EFAULT;
	if (nmask)
		err = copy_nodes_to_user(nmask, maxnode, &nodes);
	return err;
}

SYSCALL_DEFINE5(get_mempolicy, int *, policy, unsigned long *, nmask, unsigned long, maxnode,
		unsigned long, addr, unsigned long, flags)
{
	return kernel_get_mempolicy(policy, nmask, maxnode, addr, flags);
}

/* set_mempolicy_home_node(2): the node the bind or preferred-many policies of a range's VMAs
 * allocate from first.  Only a VMA with a policy of its own is changed, and none has one here
 * (no mbind): the range's VMAs are all passed over, which 6.1 answers ENOENT. */
SYSCALL_DEFINE4(set_mempolicy_home_node, unsigned long, start, unsigned long, len, unsigned long, home_node,
		unsigned long, flags)
{
	struct mm_struct *mm = current->mm;
	unsigned long end;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (flags != 0)	/* for future extensions */
		return -EINVAL;
	if (home_node >= NODEMASK_BITS || home_node >= nr_node_ids)	/* !node_online() */
		return -EINVAL;
	len = PAGE_ALIGN(len);
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	mmap_write_lock(mm);	/* (each VMA in [start, end): vma_policy() NULL, passed over) */
	mmap_write_unlock(mm);
	return -ENOENT;
}

/* ---- migrate_pages(2): a process's pages moved from some nodes to others ---- */

/* The pages of mm on the nodes of from, each moved to its node in to: the count that could not
 * be.  Every page here is on node 0, and node 0 maps to itself or to a node without memory
 * (which the caller took out of to): nothing moves, nothing fails. */
noinline int do_migrate_pages(struct mm_struct *mm, const nodemask_t *from, const nodemask_t *to, int flags)
{
	mmap_read_lock(mm);	/* (each <source, dest> pair: no page on source to queue) */
	mmap_read_unlock(mm);
	return 0;
}

#define MPOL_MF_MOVE		(1 << 1)
#define MPOL_MF_MOVE_ALL	(1 << 2)

/* nodes_subset(*a, *b) */
static bool nodes_subset(const nodemask_t *a, const nodemask_t *b)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(a->bits); i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

noinline int kernel_migrate_pages(pid_t pid, unsigned long maxnode, const unsigned long *old_nodes,
				  const unsigned long *new_nodes)
{
	const nodemask_t allowed = mems_allowed;	/* cpuset_mems_allowed(): the task's, the caller's */
	struct task_struct *task;
	struct mm_struct *mm;
	nodemask_t old, new;
	int err;

	err = get_nodes(&old, old_nodes, maxnode);
	if (!err)
		err = get_nodes(&new, new_nodes, maxnode);
	if (err)
		return err;
	preempt_disable();	/* rcu_read_lock(): the task stays while it is looked at */
	task = pid ? find_task_by_vpid(pid) : current;
	if (!task)
		err = -ESRCH;
	else if (!ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS))
		err = -EPERM;
	else if (!nodes_subset(&new, &allowed) && !capable(CAP_SYS_NICE))
		err = -EPERM;
	else if (nodes_and(&new, &new, &allowed), nodes_empty(&new))
		err = -EINVAL;
	/* (security_task_movememory(): no LSM here has the hook) */
	mm = err ? NULL : get_task_mm(task);
	preempt_enable();
	if (err)
		return err;
	if (!mm)
		return -EINVAL;
	err = do_migrate_pages(mm, &old, &new, capable(CAP_SYS_NICE) ? MPOL_MF_MOVE_ALL : MPOL_MF_MOVE);
	mmput(mm);
	return err;
}

SYSCALL_DEFINE4(migrate_pages, pid_t, pid, unsigned long, maxnode, const unsigned long *, old_nodes,
		const unsigned long *, new_nodes)
{
	return kernel_migrate_pages(pid, maxnode, old_nodes, new_nodes);
}

/* ---- a task's policy over fork and exit ---- */
noinline struct mempolicy *__mpol_dup(struct mempolicy *old)
{
	struct mempolicy *new = kmalloc(sizeof(*new), GFP_KERNEL);

	if (!new)
		return ERR_PTR(-ENOMEM);
	*new = *old;
	new->refcnt = 1;
	return new;
}

noinline void __mpol_put(struct mempolicy *p)
{
	if (__atomic_sub_fetch(&p->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(p);
}

/* do_exit: the task's policy goes */
noinline void mpol_put_task_policy(struct task_struct *task)
{
	struct mempolicy *pol = task->mempolicy;

	task->mempolicy = NULL;
	mpol_put(pol);
}
