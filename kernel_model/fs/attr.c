/* Attribute changes (Linux's fs/attr.c): notify_change asks the security hook, then has the
 * file system make the change (its ->setattr checks it with setattr_prepare() and copies it
 * with setattr_copy()); the caller holds the inode's lock.  An inode without ->setattr takes
 * simple_setattr(). */
#include "../include/fs.h"
#include "../include/fsnotify.h"
#include "../include/security.h"
#include "../include/cred.h"
#include "../include/signal.h"

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

/* May the file take the new size?  Not below 0, nor past the process's RLIMIT_FSIZE (SIGXFSZ
 * too) or what its file system can hold (no swap files) */
noinline int inode_newsize_ok(const struct inode *inode, loff_t offset)
{
	unsigned long limit;

	if (offset < 0)
		return -EINVAL;
	if (inode->i_size < offset) {
		limit = rlimit(RLIMIT_FSIZE);
		if (limit != RLIM_INFINITY && offset > (loff_t)limit) {
			send_sig(SIGXFSZ, current, 0);
			return -EFBIG;
		}
		if (offset > inode->i_sb->s_maxbytes)
			return -EFBIG;
	}
	return 0;
}

/* A new owner: the owner may "give" the file to itself, CAP_CHOWN to anyone */
static __always_inline bool chown_ok(void *idmap, const struct inode *inode, uid_t uid)
{
	if (current_fsuid() == inode->i_uid && uid == inode->i_uid)
		return true;
	return capable_wrt_inode_uidgid(idmap, inode, CAP_CHOWN);
}

/* A new group: the owner may pick one of its groups, CAP_CHOWN any */
static __always_inline bool chgrp_ok(void *idmap, const struct inode *inode, gid_t gid)
{
	if (current_fsuid() == inode->i_uid && (gid == inode->i_gid || in_group_p(gid)))
		return true;
	return capable_wrt_inode_uidgid(idmap, inode, CAP_CHOWN);
}

/* May the caller make the change (a file system's ->setattr asks first)?  A size its file
 * system takes; a new owner or group as chown_ok/chgrp_ok say; a mode or given times only by
 * the owner or a holder of CAP_FOWNER, the set-group-id bit of a new mode dropped for one not
 * in the file's group (nor CAP_FSETID).  ATTR_FORCE: the kernel's own change, no permission
 * asked. */
noinline int setattr_prepare(void *idmap, struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	unsigned int ia_valid = attr->ia_valid;

	/* size constraints first: they cannot be overridden with ATTR_FORCE */
	if (ia_valid & ATTR_SIZE) {
		int error = inode_newsize_ok(inode, attr->ia_size);

		if (error)
			return error;
	}
	if (ia_valid & ATTR_FORCE)
		return 0;	/* (ATTR_KILL_PRIV's security_inode_killpriv: no capability xattrs to drop) */
	if ((ia_valid & ATTR_UID) && !chown_ok(idmap, inode, attr->ia_uid))
		return -EPERM;
	if ((ia_valid & ATTR_GID) && !chgrp_ok(idmap, inode, attr->ia_gid))
		return -EPERM;
	if (ia_valid & ATTR_MODE) {
		if (!inode_owner_or_capable(idmap, inode))
			return -EPERM;
		if (!in_group_or_capable(idmap, inode, inode->i_gid))
			attr->ia_mode &= ~S_ISGID;
	}
	if ((ia_valid & (ATTR_MTIME_SET | ATTR_ATIME_SET | ATTR_TIMES_SET)) && !inode_owner_or_capable(idmap, inode))
		return -EPERM;
	return 0;
}

/* A setattr's change copied into the inode, once the file system has allowed it (its
 * ->setattr).  The set-group-id bit of a new mode goes unless the caller is in the file's
 * (new) group or may set it anyway (CAP_FSETID). */
noinline void setattr_copy(void *idmap, struct inode *inode, const struct iattr *attr)
{
	unsigned int ia_valid = attr->ia_valid;

	if (ia_valid & ATTR_UID)
		inode->i_uid = attr->ia_uid;
	if (ia_valid & ATTR_GID)
		inode->i_gid = attr->ia_gid;

	if (ia_valid & ATTR_ATIME)
		inode->i_atime = attr->ia_atime;
	if (ia_valid & ATTR_MTIME)
		inode->i_mtime = attr->ia_mtime;
	if (ia_valid & ATTR_CTIME)
		inode->i_ctime = attr->ia_ctime;
	if (ia_valid & ATTR_MODE) {
		umode_t mode = attr->ia_mode;

		if (!in_group_or_capable(idmap, inode, inode->i_gid))
			mode &= ~S_ISGID;
		inode->i_mode = mode;
	}
}

noinline int notify_change(void *idmap, struct dentry *dentry, struct iattr *attr, struct inode **delegated_inode)
{
	struct inode *inode = dentry->d_inode;
	umode_t mode = inode->i_mode;
	unsigned int ia_valid = attr->ia_valid;
	struct timespec64 now;
	int error;

	/* utimes(2) with no times (or both UTIME_NOW): the owner, or who may write it, and
	 * setattr_prepare() asks nothing of it */
	if ((ia_valid & ATTR_TOUCH) && !inode_owner_or_capable(idmap, inode)) {
		error = inode_permission(inode, MAY_WRITE);
		if (error)
			return error;
	}
	if ((ia_valid & ATTR_MODE) && is_sxid(attr->ia_mode))
		inode->i_flags &= ~S_NOSEC;	/* Flag setting protected by i_mutex */
	/* the change time is now; so are the others, unless set (utimes with times) */
	now = current_time(inode);
	attr->ia_ctime = now;
	if (!(ia_valid & ATTR_ATIME_SET))
		attr->ia_atime = now;
	if (!(ia_valid & ATTR_MTIME_SET))
		attr->ia_mtime = now;
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
	if (!inode->i_op)
		return -EPERM;
	if (inode->i_op->setattr)
		error = inode->i_op->setattr(dentry, attr);
	else
		error = simple_setattr(idmap, dentry, attr);	/* (tmpfs' symlinks, simple directories) */
	if (!error)
		fsnotify_change(dentry, attr->ia_valid);
	return error;
}
