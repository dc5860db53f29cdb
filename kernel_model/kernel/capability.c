/*
 * Capabilities (kernel/capability.c): capable() and its namespace forms ask the security
 * hooks (security_capable → cap_capable, security/commoncap.c) whether the current task
 * has the capability; one that has it is marked PF_SUPERPRIV.  One user namespace, the
 * initial one; the task's ids stand for its struct cred.
 */
#include "../include/cred.h"
#include "../include/fs.h"

/* ns_capable_common */
static __always_inline bool ns_capable_common(struct user_namespace *ns, int cap, unsigned int opts)
{
	if (security_capable((const struct cred *)current, ns, cap, opts) == 0) {
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

/* cap over the inode: its owner and group are mapped in the namespace (privileged_wrt_inode_uidgid:
 * always, in the one namespace there is) */
noinline bool capable_wrt_inode_uidgid(void *idmap, const struct inode *inode, int cap)
{
	return ns_capable(&init_user_ns, cap);
}

/* The file's owner (by the fsuid), or CAP_FOWNER (fs/inode.c). */
noinline bool inode_owner_or_capable(void *idmap, const struct inode *inode)
{
	if (current->fsuid == inode->i_uid)
		return true;
	return capable_wrt_inode_uidgid(idmap, inode, CAP_FOWNER);
}
