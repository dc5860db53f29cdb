/*
 * Capabilities (kernel/capability.c): capable() and its namespace forms ask the security
 * hooks (security_capable → cap_capable, security/commoncap.c) whether the current task
 * has the capability; one that has it is marked PF_SUPERPRIV.  One user namespace, the
 * initial one; the ids are the subjective credentials (current_cred()).
 */
#include "../include/cred.h"
#include "../include/pid.h"
#include "../include/fs.h"
#include "../include/security.h"
#include "../include/syscalls.h"

/* ns_capable_common */
static __always_inline bool ns_capable_common(struct user_namespace *ns, int cap, unsigned int opts)
{
	if (security_capable(current_cred(), ns, cap, opts) == 0) {
		current->flags |= PF_SUPERPRIV;
		return true;
	}
	return false;
}

noinline bool ns_capable(struct user_namespace *ns, int cap)
{
	return ns_capable_common(ns, cap, CAP_OPT_NONE);
}

/* The set*id calls': CAP_SETUID or CAP_SETGID, asked as an id change (CAP_OPT_INSETID). */
noinline bool ns_capable_setid(struct user_namespace *ns, int cap)
{
	return ns_capable_common(ns, cap, CAP_OPT_INSETID);
}

noinline bool capable(int cap)
{
	return ns_capable(&init_user_ns, cap);
}

/* Whether the inode's owner and group have ids in ns (kuid_has_mapping, kgid_has_mapping): in
 * the one namespace here, the initial one, every id but the invalid one (-1) */
noinline bool privileged_wrt_inode_uidgid(struct user_namespace *ns, void *idmap, const struct inode *inode)
{
	return uid_valid(inode->i_uid) && gid_valid(inode->i_gid);
}

/* cap, and over this inode: its owner and group are mapped in the caller's namespace */
noinline bool capable_wrt_inode_uidgid(void *idmap, const struct inode *inode, int cap)
{
	struct user_namespace *ns = &init_user_ns;	/* current_user_ns() */

	return ns_capable(ns, cap) && privileged_wrt_inode_uidgid(ns, idmap, inode);
}

/* The file's owner (by the fsuid), or CAP_FOWNER (fs/inode.c). */
noinline bool inode_owner_or_capable(void *idmap, const struct inode *inode)
{
	if (current_cred()->fsuid == inode->i_uid)
		return true;
	return capable_wrt_inode_uidgid(idmap, inode, CAP_FOWNER);
}

/* ---- capget(2), capset(2): a task's capability sets, in the layout the header's version asks
 * for ---- */
#define _LINUX_CAPABILITY_VERSION_1	0x19980330
#define _LINUX_CAPABILITY_U32S_1	1
#define _LINUX_CAPABILITY_VERSION_2	0x20071026	/* deprecated - use v3 */
#define _LINUX_CAPABILITY_VERSION_3	0x20080522
#define _LINUX_CAPABILITY_U32S_3	2
#define _KERNEL_CAPABILITY_VERSION	_LINUX_CAPABILITY_VERSION_3
#define _KERNEL_CAPABILITY_U32S		_LINUX_CAPABILITY_U32S_3
#define CAP_LAST_U32			(_KERNEL_CAPABILITY_U32S - 1)
#define CAP_LAST_U32_VALID_MASK		((1U << (CAP_LAST_CAP - 31)) - 1)	/* CAP_TO_MASK(CAP_LAST_CAP + 1) - 1 */

struct __user_cap_header_struct { u32 version; int pid; };
struct __user_cap_data_struct { u32 effective, permitted, inheritable; };

/* The words of the sets the header's version has (v1: one); an unknown version is told the
 * kernel's (-EINVAL) */
static noinline int cap_validate_magic(cap_user_header_t header, unsigned int *tocopy)
{
	u32 version;

	if (copy_from_user(&version, &header->version, sizeof(version)))
		return -EFAULT;
	switch (version) {
	case _LINUX_CAPABILITY_VERSION_1:
		*tocopy = _LINUX_CAPABILITY_U32S_1;
		break;
	case _LINUX_CAPABILITY_VERSION_2:
	case _LINUX_CAPABILITY_VERSION_3:
		*tocopy = _LINUX_CAPABILITY_U32S_3;
		break;
	default:
		version = _KERNEL_CAPABILITY_VERSION;
		if (copy_to_user(&header->version, &version, sizeof(version)))
			return -EFAULT;
		return -EINVAL;
	}
	return 0;
}

/* the caller's sets, or another task's (pid) */
static __always_inline int cap_get_target_pid(pid_t pid, kernel_cap_t *pEp, kernel_cap_t *pIp, kernel_cap_t *pPp)
{
	struct task_struct *target;
	int ret;

	if (pid && pid != current->pid) {
		preempt_disable();	/* rcu_read_lock() */
		target = find_task_by_vpid(pid);
		ret = target ? security_capget(target, pEp, pIp, pPp) : -ESRCH;
		preempt_enable();
	} else {
		ret = security_capget(current, pEp, pIp, pPp);
	}
	return ret;
}

SYSCALL_DEFINE2(capget, cap_user_header_t, header, cap_user_data_t, dataptr)
{
	struct __user_cap_data_struct kdata[_KERNEL_CAPABILITY_U32S];
	kernel_cap_t pE, pI, pP;
	unsigned int tocopy, i;
	pid_t pid;
	int ret;

	ret = cap_validate_magic(header, &tocopy);
	if (!dataptr || ret != 0)
		return (!dataptr && ret == -EINVAL) ? 0 : ret;
	if (copy_from_user(&pid, &header->pid, sizeof(pid)))
		return -EFAULT;
	if (pid < 0)
		return -EINVAL;
	ret = cap_get_target_pid(pid, &pE, &pI, &pP);
	if (!ret) {
		for (i = 0; i < tocopy; i++) {
			kdata[i].effective = pE.cap[i];
			kdata[i].permitted = pP.cap[i];
			kdata[i].inheritable = pI.cap[i];
		}
		if (copy_to_user(dataptr, kdata, tocopy * sizeof(struct __user_cap_data_struct)))
			return -EFAULT;
	}
	return ret;
}

/* The caller's own sets (no other task's: EPERM) become the ones given, if cap_capset() allows
 * them; the words a v1 header leaves out are empty, the bits past CAP_LAST_CAP dropped. */
SYSCALL_DEFINE2(capset, cap_user_header_t, header, const cap_user_data_t, data)
{
	struct __user_cap_data_struct kdata[_KERNEL_CAPABILITY_U32S];
	kernel_cap_t inheritable, permitted, effective;
	unsigned int i, tocopy;
	struct cred *new;
	pid_t pid;
	int ret;

	ret = cap_validate_magic(header, &tocopy);
	if (ret != 0)
		return ret;
	if (copy_from_user(&pid, &header->pid, sizeof(pid)))
		return -EFAULT;
	if (pid != 0 && pid != task_pid_vnr(current))
		return -EPERM;
	if (copy_from_user(&kdata, data, tocopy * sizeof(struct __user_cap_data_struct)))
		return -EFAULT;
	for (i = 0; i < _KERNEL_CAPABILITY_U32S; i++) {
		effective.cap[i] = i < tocopy ? kdata[i].effective : 0;
		permitted.cap[i] = i < tocopy ? kdata[i].permitted : 0;
		inheritable.cap[i] = i < tocopy ? kdata[i].inheritable : 0;
	}
	effective.cap[CAP_LAST_U32] &= CAP_LAST_U32_VALID_MASK;
	permitted.cap[CAP_LAST_U32] &= CAP_LAST_U32_VALID_MASK;
	inheritable.cap[CAP_LAST_U32] &= CAP_LAST_U32_VALID_MASK;

	new = prepare_creds();
	if (!new)
		return -ENOMEM;
	ret = security_capset(new, current_cred(), &effective, &inheritable, &permitted);
	if (ret < 0) {
		abort_creds(new);
		return ret;
	}
	return commit_creds(new);
}
