/* Attribute changes (Linux's fs/attr.c): notify_change asks the security hook, then has the
 * file system make the change (its ->setattr checks it, setattr_prepare's part); the caller
 * holds the inode's lock.  No inode here without ->setattr has its attributes changed: EPERM. */
#include "../include/fs.h"
#include "../include/security.h"
#include "../include/cred.h"

noinline int notify_change(void *idmap, struct dentry *dentry, struct iattr *attr, struct inode **delegated_inode)
{
	struct inode *inode = dentry->d_inode;
	int error;

	error = security_inode_setattr(&init_user_ns, dentry, attr);
	if (error)
		return error;
	if (!inode->i_op || !inode->i_op->setattr)
		return -EPERM;
	return inode->i_op->setattr(dentry, attr);
}
