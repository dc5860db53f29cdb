/*
 * The capability module (security/commoncap.c).  A task's effective set is what 6.1's
 * default securebits give root: all for an effective uid of 0 (cap_task_fix_setuid clears it
 * when the euid leaves 0), but the file-system ones (CAP_FS_MASK), which follow the fsuid
 * (dropped while it is not 0, raised when it is): no capability sets are kept in the cred.
 */
#include "../include/cred.h"
#include "../include/security.h"
#include "../include/binfmts.h"

#define CAP_FS_MASK ((1ULL << CAP_CHOWN) | (1ULL << CAP_MKNOD) | (1ULL << CAP_DAC_OVERRIDE) | \
		     (1ULL << CAP_DAC_READ_SEARCH) | (1ULL << CAP_FOWNER) | (1ULL << CAP_FSETID) | \
		     (1ULL << CAP_LINUX_IMMUTABLE) | (1ULL << CAP_MAC_OVERRIDE))

/* 0 if the task has cap in its effective set, -EPERM if not */
static __always_inline int cap_capable_body(const struct cred *cred, int cap)
{
	if ((CAP_FS_MASK >> cap) & 1)
		return cred->fsuid == 0 ? 0 : -EPERM;
	return cred->euid == 0 ? 0 : -EPERM;
}

/* (capable.bt's and BCC capable's kprobe) */
noinline int cap_capable(const struct cred *cred, struct user_namespace *targ_ns, int cap, unsigned int opts)
{
	return cap_capable_body(cred, cap);
}

/* The task's capability sets: permitted all while any of its uids is 0 (6.1's default
 * securebits: cap_emulate_setxuid clears it when none is), effective as cap_capable() grants
 * (the file-system ones with a fsuid of 0, the others with an euid of 0), no inheritable */
noinline int cap_capget(struct task_struct *target, kernel_cap_t *effective, kernel_cap_t *inheritable,
			kernel_cap_t *permitted)
{
	const kernel_cap_t full = { { ~0U, (1U << (CAP_LAST_CAP - 31)) - 1 } };
	u64 all = full.cap[0] | (u64)full.cap[1] << 32, eff = 0;
	const struct cred *cred = __task_cred(target);

	if (cred->euid == 0)
		eff |= all & ~CAP_FS_MASK;
	if (cred->fsuid == 0)
		eff |= CAP_FS_MASK;
	*effective = (kernel_cap_t){ { (u32)eff, (u32)(eff >> 32) } };
	*inheritable = (kernel_cap_t){ { 0, 0 } };
	*permitted = cred->uid == 0 || cred->euid == 0 || cred->suid == 0 ? full : (kernel_cap_t){ { 0, 0 } };
	return 0;
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
 * The credentials a program runs with (exec's bprm_creds_from_file).  The capability sets
 * follow the ids here (above), so what 6.1 computes of them -- root's full sets, a file's
 * capabilities (no security.capability attribute here), the downgrade of a traced set-id
 * program (no set-id programs: exec keeps the ids) -- is the ids themselves; what is left is
 * 6.1's reset of the saved and file-system ids to the effective ones, in the credentials exec
 * prepared (bprm->cred), which begin_new_exec() commits.
 */
noinline int cap_bprm_creds_from_file(struct linux_binprm *bprm, struct file *file)
{
	struct cred *new = bprm->cred;

	new->suid = new->fsuid = new->euid;
	new->sgid = new->fsgid = new->egid;
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

/* May the caller change the task's scheduling: if the task has capabilities the caller has not
 * (here: all of them, an effective uid of 0, against a caller without), only with CAP_SYS_NICE */
static noinline int cap_safe_nice(struct task_struct *p)
{
	if (task_euid(p) == 0 && current_euid() != 0 && !ns_capable(&init_user_ns, CAP_SYS_NICE))
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
