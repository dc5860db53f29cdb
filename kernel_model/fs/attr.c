/* Attribute changes (Linux's fs/attr.c): notify_change asks the security hook, then has the
 * file system make the change (its ->setattr checks it, setattr_prepare's part); the caller
 * holds the inode's lock.  No inode here without ->setattr has its attributes changed: EPERM. */
#include "../include/fs.h"
#include "../include/security.h"
#include "../include/cred.h"

/* The set-group-id bit a change drops: unless group-executable, kept for a member of the file's
 * group or a holder of CAP_FSETID */
noinline int setattr_should_drop_sgid(void *idmap, const struct inode *inode)
{
	umode_t mode = inode->i_mode;

	if (!(mode & S_ISGID))
		return 0;
	if (mode & S_IXGRP)
		return ATTR_KILL_SGID;
	if (!in_group_or_capable(idmap, inode, inode->i_gid))
		return ATTR_KILL_SGID;
	return 0;
}

/* The set-id bits a write to a regular file drops (none for a holder of CAP_FSETID) */
noinline int setattr_should_drop_suidgid(void *idmap, struct inode *inode)
{
	umode_t mode = inode->i_mode;
	int kill = 0;

	/* suid always must be killed */
	if (unlikely(mode & S_ISUID))
		kill = ATTR_KILL_SUID;
	kill |= setattr_should_drop_sgid(idmap, inode);
	if (unlikely(kill && !capable(CAP_FSETID) && S_ISREG(mode)))
		return kill;
	return 0;
}

noinline int notify_change(void *idmap, struct dentry *dentry, struct iattr *attr, struct inode **delegated_inode)
{
	struct inode *inode = dentry->d_inode;
	umode_t mode = inode->i_mode;
	unsigned int ia_valid = attr->ia_valid;
	int error;

	if ((ia_valid & ATTR_MODE) && is_sxid(attr->ia_mode))
		inode->i_flags &= ~S_NOSEC;	/* Flag setting protected by i_mutex */
	if (ia_valid & ATTR_KILL_PRIV) {
		error = security_inode_need_killpriv(dentry);
		if (error < 0)
			return error;
		if (error == 0)
			ia_valid = attr->ia_valid &= ~ATTR_KILL_PRIV;
	}
	if ((ia_valid & ATTR_KILL_SUID) && (mode & S_ISUID)) {
		ia_valid = attr->ia_valid |= ATTR_MODE;
		attr->ia_mode = (inode->i_mode & ~S_ISUID);
	}
	if ((ia_valid & ATTR_KILL_SGID) && (mode & S_ISGID)) {
		if (!(ia_valid & ATTR_MODE)) {
			ia_valid = attr->ia_valid |= ATTR_MODE;
			attr->ia_mode = inode->i_mode;
		}
		attr->ia_mode &= ~S_ISGID;
	}
	if (!(attr->ia_valid & ~(ATTR_KILL_SUID | ATTR_KILL_SGID)))
		return 0;

	error = security_inode_setattr(&init_user_ns, dentry, attr);
	if (error)
		return error;
	if (!inode->i_op || !inode->i_op->setattr)
		return -EPERM;
	return inode->i_op->setattr(dentry, attr);
}
