/*
 * The capability module (security/commoncap.c).  A task has what its cred's effective set
 * holds; the sets move with the ids as 6.1's default securebits move them (cap_task_fix_setuid,
 * cap_bprm_creds_from_file: root's are the bounding set's) and as capset(2) and prctl(2) change
 * them.  One user namespace; no file capabilities (no security.capability attribute is read).
 */
#include "../include/cred.h"
#include "../include/security.h"
#include "../include/binfmts.h"
#include "../include/uapi/prctl.h"

/* 0 if the task has cap in its effective set, -EPERM if not */
static __always_inline int cap_capable_body(const struct cred *cred, int cap)
{
	return cap_raised(cred->cap_effective, cap) ? 0 : -EPERM;
}

/* (capable.bt's and BCC capable's kprobe) */
noinline int cap_capable(const struct cred *cred, struct user_namespace *targ_ns, int cap, unsigned int opts)
{
	return cap_capable_body(cred, cap);
}

noinline int cap_capget(struct task_struct *target, kernel_cap_t *effective, kernel_cap_t *inheritable,
			kernel_cap_t *permitted)
{
	const struct cred *cred = __task_cred(target);	/* (under rcu_read_lock: the caller's) */

	*effective = cred->cap_effective;
	*inheritable = cred->cap_inheritable;
	*permitted = cred->cap_permitted;
	return 0;
}

/* whether the caller may add to its inheritable set what it is not permitted (CAP_SETPCAP) */
static inline int cap_inh_is_capped(void)
{
	return cap_capable(current_cred(), current_cred()->user_ns, CAP_SETPCAP, CAP_OPT_NONE) != 0;
}

/* capset(2)'s new sets into new, if old may have them: no new inheritable one outside what it
 * has or is permitted (without CAP_SETPCAP) and the bounding set, no new permitted one, nothing
 * effective that is not permitted; the ambient ones no longer both are dropped */
noinline int cap_capset(struct cred *new, const struct cred *old, const kernel_cap_t *effective,
			const kernel_cap_t *inheritable, const kernel_cap_t *permitted)
{
	if (cap_inh_is_capped() && !cap_issubset(*inheritable, cap_combine(old->cap_inheritable, old->cap_permitted)))
		return -EPERM;
	if (!cap_issubset(*inheritable, cap_combine(old->cap_inheritable, old->cap_bset)))
		return -EPERM;
	if (!cap_issubset(*permitted, old->cap_permitted))
		return -EPERM;
	if (!cap_issubset(*effective, *permitted))
		return -EPERM;
	new->cap_effective = *effective;
	new->cap_inheritable = *inheritable;
	new->cap_permitted = *permitted;
	new->cap_ambient = cap_intersect(new->cap_ambient, cap_intersect(*permitted, *inheritable));
	return 0;
}

/* The uids changed (setuid, setreuid, setresuid): a task none of whose uids is 0 any more loses
 * its permitted and effective sets (but with SECURE_KEEP_CAPS) and its ambient one; leaving an
 * euid of 0 empties the effective set, taking one fills it with the permitted. */
static inline void cap_emulate_setxuid(struct cred *new, const struct cred *old)
{
	if ((old->uid == 0 || old->euid == 0 || old->suid == 0) && new->uid != 0 && new->euid != 0 &&
	    new->suid != 0) {
		if (!issecure(SECURE_KEEP_CAPS)) {
			new->cap_permitted = CAP_EMPTY_SET;
			new->cap_effective = CAP_EMPTY_SET;
		}
		new->cap_ambient = CAP_EMPTY_SET;	/* setresuid to non-root then exec drops them */
	}
	if (old->euid == 0 && new->euid != 0)
		new->cap_effective = CAP_EMPTY_SET;
	if (old->euid != 0 && new->euid == 0)
		new->cap_effective = new->cap_permitted;
}

/* The sets after an id change (security_task_fix_setuid's flags): the uids' (above), or the
 * fsuid's: the file-system capabilities go when it leaves 0, come back (as far as permitted)
 * when it becomes 0.  SECURE_NO_SETUID_FIXUP leaves them alone. */
noinline int cap_task_fix_setuid(struct cred *new, const struct cred *old, int flags)
{
	switch (flags) {
	case LSM_SETID_RE:
	case LSM_SETID_ID:
	case LSM_SETID_RES:
		if (!issecure(SECURE_NO_SETUID_FIXUP))
			cap_emulate_setxuid(new, old);
		break;
	case LSM_SETID_FS:
		if (!issecure(SECURE_NO_SETUID_FIXUP)) {
			if (old->fsuid == 0 && new->fsuid != 0)
				new->cap_effective = cap_drop(new->cap_effective, CAP_FS_SET);
			if (old->fsuid != 0 && new->fsuid == 0)
				new->cap_effective = cap_combine(new->cap_effective,
								 cap_intersect(new->cap_permitted, CAP_FS_SET));
		}
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* PR_CAPBSET_DROP: one capability out of the bounding set, with CAP_SETPCAP */
static int cap_prctl_drop(unsigned long cap)
{
	struct cred *new;

	if (!ns_capable(current_cred()->user_ns, CAP_SETPCAP))
		return -EPERM;
	if (!cap_valid(cap))
		return -EINVAL;
	new = prepare_creds();
	if (!new)
		return -ENOMEM;
	cap_lower(&new->cap_bset, cap);
	return commit_creds(new);
}

/* The prctl(2) options of the capability module; -ENOSYS for the others (prctl's own) */
noinline int cap_task_prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4,
			    unsigned long arg5)
{
	const struct cred *old = current_cred();
	struct cred *new;

	switch (option) {
	case PR_CAPBSET_READ:
		if (!cap_valid(arg2))
			return -EINVAL;
		return !!cap_raised(old->cap_bset, arg2);
	case PR_CAPBSET_DROP:
		return cap_prctl_drop(arg2);
	case PR_SET_SECUREBITS:
		/* no change to a locked bit, no unlocking, no unknown bit, and CAP_SETPCAP */
		if ((((old->securebits & SECURE_ALL_LOCKS) >> 1) & (old->securebits ^ arg2)) ||
		    (old->securebits & SECURE_ALL_LOCKS & ~arg2) || (arg2 & ~(SECURE_ALL_LOCKS | SECURE_ALL_BITS)) ||
		    cap_capable(current_cred(), current_cred()->user_ns, CAP_SETPCAP, CAP_OPT_NONE) != 0)
			return -EPERM;
		new = prepare_creds();
		if (!new)
			return -ENOMEM;
		new->securebits = arg2;
		return commit_creds(new);
	case PR_GET_SECUREBITS:
		return old->securebits;
	case PR_GET_KEEPCAPS:
		return !!issecure(SECURE_KEEP_CAPS);
	case PR_SET_KEEPCAPS:
		if (arg2 > 1)
			return -EINVAL;
		if (issecure(SECURE_KEEP_CAPS_LOCKED))
			return -EPERM;
		new = prepare_creds();
		if (!new)
			return -ENOMEM;
		if (arg2)
			new->securebits |= issecure_mask(SECURE_KEEP_CAPS);
		else
			new->securebits &= ~issecure_mask(SECURE_KEEP_CAPS);
		return commit_creds(new);
	case PR_CAP_AMBIENT:
		if (arg2 == PR_CAP_AMBIENT_CLEAR_ALL) {
			if (arg3 | arg4 | arg5)
				return -EINVAL;
			new = prepare_creds();
			if (!new)
				return -ENOMEM;
			new->cap_ambient = CAP_EMPTY_SET;
			return commit_creds(new);
		}
		if (!cap_valid(arg3) || arg4 || arg5)
			return -EINVAL;
		if (arg2 == PR_CAP_AMBIENT_IS_SET)
			return !!cap_raised(old->cap_ambient, arg3);
		if (arg2 != PR_CAP_AMBIENT_RAISE && arg2 != PR_CAP_AMBIENT_LOWER)
			return -EINVAL;
		if (arg2 == PR_CAP_AMBIENT_RAISE &&
		    (!cap_raised(old->cap_permitted, arg3) || !cap_raised(old->cap_inheritable, arg3) ||
		     issecure(SECURE_NO_CAP_AMBIENT_RAISE)))
			return -EPERM;
		new = prepare_creds();
		if (!new)
			return -ENOMEM;
		if (arg2 == PR_CAP_AMBIENT_RAISE)
			cap_raise(&new->cap_ambient, arg3);
		else
			cap_lower(&new->cap_ambient, arg3);
		return commit_creds(new);
	default:
		return -ENOSYS;
	}
}

/* vm.mmap_min_addr as Debian's 6.1 sets it (CONFIG_DEFAULT_MMAP_MIN_ADDR) */
unsigned long dac_mmap_min_addr = 65536;

/* A mapping below mmap_min_addr needs CAP_SYS_RAWIO; the task that used it is marked.  Debian's
 * 6.1 build inlines cap_capable() here: a kprobe on it never sees this check (nor here). */
noinline int cap_mmap_addr(unsigned long addr)
{
	int ret = 0;

	if (addr < dac_mmap_min_addr) {
		ret = cap_capable_body(current_cred(), CAP_SYS_RAWIO);
		if (ret == 0)
			current->flags |= PF_SUPERPRIV;
	}
	return ret;
}

noinline int cap_mmap_file(struct file *file, unsigned long reqprot, unsigned long prot, unsigned long flags)
{
	return 0;
}

/*
 * The credentials a program runs with (exec's bprm_creds_from_file), in those exec prepared
 * (bprm->cred), which begin_new_exec() commits.  No program has file capabilities here (no
 * security.capability attribute) nor set-id bits (exec keeps the ids), so 6.1's computation
 * comes down to: the permitted set starts empty (get_file_caps()); root (a uid or euid of 0,
 * without SECURE_NOROOT) is permitted its bounding and inheritable sets, effective with an euid of 0 (handle_privileged_root); the ambient set is
 * added to the permitted and is the effective one otherwise.  The saved and file-system ids
 * become the effective ones; SECURE_KEEP_CAPS ends with the exec.
 */
noinline int cap_bprm_creds_from_file(struct linux_binprm *bprm, struct file *file)
{
	const struct cred *old = current_cred();
	struct cred *new = bprm->cred;
	bool effective = false;

	new->cap_permitted = CAP_EMPTY_SET;
	if (!issecure(SECURE_NOROOT)) {	/* handle_privileged_root() */
		if (new->euid == 0 || new->uid == 0)
			new->cap_permitted = cap_combine(old->cap_bset, old->cap_inheritable);
		effective = new->euid == 0;
	}
	new->suid = new->fsuid = new->euid;
	new->sgid = new->fsgid = new->egid;
	new->cap_permitted = cap_combine(new->cap_permitted, new->cap_ambient);
	new->cap_effective = effective ? new->cap_permitted : new->cap_ambient;
	new->securebits &= ~issecure_mask(SECURE_KEEP_CAPS);
	return 0;
}

#define XATTR_NAME_CAPS "security.capability"

/* Does the inode carry file capabilities (security.capability) that a write must drop? */
noinline int cap_inode_need_killpriv(struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;
	int error;

	error = __vfs_getxattr(dentry, inode, XATTR_NAME_CAPS, NULL, 0);
	return error > 0;
}

/* Only CAP_SYS_ADMIN sets or removes a security.* attribute other than security.capability
 * (whose own check, cap_convert_nscap, is for the writer of file capabilities). */
noinline int cap_inode_setxattr(struct dentry *dentry, const char *name, const void *value, size_t size,
				int flags)
{
	if (strncmp(name, "security.", 9) != 0)
		return 0;
	if (strcmp(name, XATTR_NAME_CAPS) == 0)
		return 0;
	return ns_capable(&init_user_ns, CAP_SYS_ADMIN) ? 0 : -EPERM;
}

noinline int cap_inode_removexattr(struct dentry *dentry, const char *name)
{
	if (strncmp(name, "security.", 9) != 0)
		return 0;
	if (strcmp(name, XATTR_NAME_CAPS) == 0)
		return ns_capable(&init_user_ns, CAP_SETFCAP) ? 0 : -EPERM;
	return ns_capable(&init_user_ns, CAP_SYS_ADMIN) ? 0 : -EPERM;
}

/* May the caller change the task's scheduling: if the task is permitted capabilities the caller
 * is not, only with CAP_SYS_NICE */
static noinline int cap_safe_nice(struct task_struct *p)
{
	if (!cap_issubset(__task_cred(p)->cap_permitted, current_cred()->cap_permitted) &&
	    !ns_capable(&init_user_ns, CAP_SYS_NICE))
		return -EPERM;
	return 0;
}

noinline int cap_task_setnice(struct task_struct *p, int nice)
{
	return cap_safe_nice(p);
}

noinline int cap_task_setscheduler(struct task_struct *p)
{
	return cap_safe_nice(p);
}

noinline int cap_task_setioprio(struct task_struct *p, int ioprio)
{
	return cap_safe_nice(p);
}
