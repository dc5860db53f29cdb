/*
 * Extended attributes (fs/xattr.c): the get, set, list and remove syscalls as 6.1's.  A name
 * goes to the handler of the super block's s_xattr whose prefix it has; a file system without
 * handlers has none (EOPNOTSUPP; 6.1's IOP_XATTR is that s_xattr here).  hostfs has one for
 * every name (the host's attributes); tmpfs keeps security.* and trusted.* in memory, as 6.1's
 * shmem with CONFIG_TMPFS_XATTR (user.* is 6.6's).  No security module but capability's:
 * security.* names go to the file system.  The simple_xattr_* list that tmpfs keeps is here too,
 * as in 6.1.
 */
#include "../include/syscalls.h"
#include "../include/xattr.h"
#include "../include/cred.h"
#include "../include/security.h"
#include "../include/mm.h"
#include "../include/slab.h"
#include "../include/fsnotify.h"

/* the rest of a after its prefix, or NULL */
static const char *strcmp_prefix(const char *a, const char *a_prefix)
{
	while (*a_prefix && *a == *a_prefix) {
		a++;
		a_prefix++;
	}
	return *a_prefix ? NULL : a;
}

static inline bool has_prefix(const char *name, const char *prefix)
{
	return strcmp_prefix(name, prefix) != NULL;
}

static noinline const struct xattr_handler *xattr_resolve_name(struct inode *inode, const char **name)
{
	const struct xattr_handler **handlers = inode->i_sb->s_xattr, *handler;

	if (!handlers)
		return ERR_PTR(-EOPNOTSUPP);
	for (; (handler = *handlers); handlers++) {
		const char *n = strcmp_prefix(*name, handler->prefix ? handler->prefix : handler->name);

		if (n) {
			if (!handler->prefix ^ !*n) {
				if (*n)
					continue;
				return ERR_PTR(-EINVAL);
			}
			*name = n;
			return handler;
		}
	}
	return ERR_PTR(-EOPNOTSUPP);
}

static noinline int xattr_permission(struct inode *inode, const char *name, int mask)
{
	/* (no immutable or append-only inodes here: no chattr) */
	if (has_prefix(name, XATTR_SECURITY_PREFIX) || has_prefix(name, XATTR_SYSTEM_PREFIX))
		return 0;
	if (has_prefix(name, XATTR_TRUSTED_PREFIX))
		return capable(CAP_SYS_ADMIN) ? 0 : (mask & MAY_WRITE) ? -EPERM : -ENODATA;
	if (has_prefix(name, XATTR_USER_PREFIX)) {
		if (!S_ISREG(inode->i_mode) && !S_ISDIR(inode->i_mode))
			return (mask & MAY_WRITE) ? -EPERM : -ENODATA;
		/* a sticky directory's: its owner's and the privileged's */
		if (S_ISDIR(inode->i_mode) && (inode->i_mode & S_ISVTX) && (mask & MAY_WRITE) &&
		    !inode_owner_or_capable(NULL, inode))
			return -EPERM;
	}
	return inode_permission(inode, mask);
}

noinline ssize_t __vfs_getxattr(struct dentry *dentry, struct inode *inode, const char *name, void *value,
				size_t size)
{
	const struct xattr_handler *handler = xattr_resolve_name(inode, &name);

	if (IS_ERR(handler))
		return PTR_ERR(handler);
	if (!handler->get)
		return -EOPNOTSUPP;
	return handler->get(handler, dentry, inode, name, value, size);
}

noinline ssize_t vfs_getxattr(void *mnt_userns, struct dentry *dentry, const char *name, void *value, size_t size)
{
	struct inode *inode = dentry->d_inode;
	int error = xattr_permission(inode, name, MAY_READ);

	if (error)
		return error;
	error = security_inode_getxattr(dentry, name);
	if (error)
		return error;
	/* (a "security." name's value: 6.1 asks security_inode_getsecurity first, whose only
	 * module here, capability, answers security.capability alone, which no file has) */
	return __vfs_getxattr(dentry, inode, name, value, size);
}

struct xattr_ctx {
	void *value;		/* the user's buffer (get), or value (set: 6.1's cvalue) */
	void *kvalue;
	size_t size;
	char *kname;
	unsigned int flags;	/* set: XATTR_CREATE, XATTR_REPLACE */
};

/* the name with the handler's prefix back in front (it was cut off by xattr_resolve_name) */
noinline const char *xattr_full_name(const struct xattr_handler *handler, const char *name)
{
	return name - strlen(handler->prefix ? handler->prefix : handler->name);
}

noinline int __vfs_setxattr(struct dentry *dentry, struct inode *inode, const char *name, const void *value,
			    size_t size, int flags)
{
	const struct xattr_handler *handler = xattr_resolve_name(inode, &name);

	if (IS_ERR(handler))
		return PTR_ERR(handler);
	if (!handler->set)
		return -EOPNOTSUPP;
	if (size == 0)
		value = "";	/* an empty value, not a removal */
	return handler->set(handler, dentry, inode, name, value, size, flags);
}

/* No permission check: the caller made it.  A security.* name may carry what a write must drop. */
noinline int __vfs_setxattr_noperm(struct dentry *dentry, const char *name, const void *value, size_t size,
				   int flags)
{
	struct inode *inode = dentry->d_inode;
	int error = -EOPNOTSUPP;

	if (has_prefix(name, XATTR_SECURITY_PREFIX))
		inode->i_flags &= ~S_NOSEC;
	if (inode->i_sb->s_xattr) {	/* 6.1: IOP_XATTR */
		error = __vfs_setxattr(dentry, inode, name, value, size, flags);
		if (!error) {
			fsnotify_xattr(dentry);
			security_inode_post_setxattr(dentry, name, value, size, flags);
		}
	}
	/* (without handlers 6.1 offers a security.* name to security_inode_setsecurity: no
	 * module here takes one, EOPNOTSUPP) */
	return error;
}

noinline int __vfs_setxattr_locked(struct dentry *dentry, const char *name, const void *value, size_t size,
				   int flags)
{
	int error = xattr_permission(dentry->d_inode, name, MAY_WRITE);

	if (error)
		return error;
	error = security_inode_setxattr(dentry, name, value, size, flags);
	if (error)
		return error;
	/* (try_break_deleg: no leases delegate here) */
	return __vfs_setxattr_noperm(dentry, name, value, size, flags);
}

noinline int vfs_setxattr(void *mnt_userns, struct dentry *dentry, const char *name, const void *value,
			  size_t size, int flags)
{
	/* (security.capability's value is not converted: cap_convert_nscap, no user namespaces) */
	return __vfs_setxattr_locked(dentry, name, value, size, flags);
}

noinline int setxattr_copy(const char *name, struct xattr_ctx *ctx)
{
	long error;

	if (ctx->flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	error = strncpy_from_user(ctx->kname, name, XATTR_NAME_MAX + 1);
	if (error == 0 || error == XATTR_NAME_MAX + 1)
		return -ERANGE;
	if (error < 0)
		return error;
	if (ctx->size) {
		if (ctx->size > XATTR_SIZE_MAX)
			return -E2BIG;
		ctx->kvalue = kvmalloc(ctx->size, GFP_KERNEL);	/* 6.1: vmemdup_user */
		if (!ctx->kvalue)
			return -ENOMEM;
		if (copy_from_user(ctx->kvalue, ctx->value, ctx->size))
			return -EFAULT;
	}
	return 0;
}

noinline int do_setxattr(void *mnt_userns, struct dentry *dentry, struct xattr_ctx *ctx)
{
	/* (setxattr_convert: POSIX ACLs' ids mapped into a user namespace, none here) */
	return vfs_setxattr(mnt_userns, dentry, ctx->kname, ctx->kvalue, ctx->size, ctx->flags);
}

static noinline int setxattr(struct dentry *d, const char *name, const void *value, size_t size, int flags)
{
	char kname[XATTR_NAME_MAX + 1];
	struct xattr_ctx ctx = { .value = (void *)value, .size = size, .kname = kname, .flags = flags };
	int error = setxattr_copy(name, &ctx);

	if (!error)
		error = do_setxattr(NULL, d, &ctx);
	kvfree(ctx.kvalue);
	return error;
}

static noinline int path_setxattr(const char *pathname, const char *name, const void *value, size_t size,
				  int flags, unsigned int lookup_flags)
{
	struct path path;
	int error = user_path_at_empty(AT_FDCWD, pathname, lookup_flags, &path, NULL);

	if (error)
		return error;
	error = mnt_want_write(path.mnt);
	if (!error) {
		error = setxattr(path.dentry, name, value, size, flags);
		mnt_drop_write(path.mnt);
	}
	path_put(&path);
	return error;
}

SYSCALL_DEFINE5(setxattr, const char *, pathname, const char *, name, const void *, value, size_t, size,
		int, flags)
{
	return path_setxattr(pathname, name, value, size, flags, LOOKUP_FOLLOW);
}

SYSCALL_DEFINE5(lsetxattr, const char *, pathname, const char *, name, const void *, value, size_t, size,
		int, flags)
{
	return path_setxattr(pathname, name, value, size, flags, 0);
}

SYSCALL_DEFINE5(fsetxattr, int, fd, const char *, name, const void *, value, size_t, size, int, flags)
{
	struct file *f = fget(fd);
	int error;

	if (!f)
		return -EBADF;
	error = mnt_want_write_file(f);
	if (!error) {
		error = setxattr(f->f_path.dentry, name, value, size, flags);
		mnt_drop_write_file(f);
	}
	fput(f);
	return error;
}


noinline ssize_t do_getxattr(void *mnt_userns, struct dentry *d, struct xattr_ctx *ctx)
{
	ssize_t error;

	if (ctx->size) {
		if (ctx->size > XATTR_SIZE_MAX)
			ctx->size = XATTR_SIZE_MAX;
		ctx->kvalue = kzalloc(ctx->size, GFP_KERNEL);
		if (!ctx->kvalue)
			return -ENOMEM;
	}
	error = vfs_getxattr(mnt_userns, d, ctx->kname, ctx->kvalue, ctx->size);
	if (error > 0) {
		if (ctx->size && copy_to_user(ctx->value, ctx->kvalue, error))
			error = -EFAULT;
	} else if (error == -ERANGE && ctx->size >= XATTR_SIZE_MAX) {
		error = -E2BIG;	/* a value bigger than any may be */
	}
	return error;
}

static noinline ssize_t getxattr(struct dentry *d, const char *name, void *value, size_t size)
{
	char kname[XATTR_NAME_MAX + 1];
	struct xattr_ctx ctx = { .value = value, .size = size, .kname = kname };
	ssize_t error = strncpy_from_user(kname, name, sizeof(kname));

	if (error == 0 || error == sizeof(kname))
		error = -ERANGE;
	if (error < 0)
		return error;
	error = do_getxattr(NULL, d, &ctx);
	kfree(ctx.kvalue);
	return error;
}

static noinline ssize_t path_getxattr(const char *pathname, const char *name, void *value, size_t size,
				      unsigned int lookup_flags)
{
	struct path path;
	ssize_t error = user_path_at_empty(AT_FDCWD, pathname, lookup_flags, &path, NULL);

	if (error)
		return error;
	error = getxattr(path.dentry, name, value, size);
	path_put(&path);
	return error;
}

SYSCALL_DEFINE4(getxattr, const char *, pathname, const char *, name, void *, value, size_t, size)
{
	return path_getxattr(pathname, name, value, size, LOOKUP_FOLLOW);
}

SYSCALL_DEFINE4(lgetxattr, const char *, pathname, const char *, name, void *, value, size_t, size)
{
	return path_getxattr(pathname, name, value, size, 0);
}

SYSCALL_DEFINE4(fgetxattr, int, fd, const char *, name, void *, value, size_t, size)
{
	struct file *f = fget(fd);
	ssize_t error;

	if (!f)
		return -EBADF;
	error = getxattr(f->f_path.dentry, name, value, size);
	fput(f);
	return error;
}

/* ---- listing ---- */
noinline ssize_t vfs_listxattr(struct dentry *dentry, char *list, size_t size)
{
	struct inode *inode = dentry->d_inode;
	ssize_t error = security_inode_listxattr(dentry);

	if (error)
		return error;
	if (inode->i_op && inode->i_op->listxattr && inode->i_sb->s_xattr)	/* (an inode may have no i_op here) */
		return inode->i_op->listxattr(dentry, list, size);
	error = security_inode_listsecurity(inode, list, size);
	if (size && error > size)
		error = -ERANGE;
	return error;
}

static noinline ssize_t listxattr(struct dentry *d, char *list, size_t size)
{
	char *klist = NULL;
	ssize_t error;

	if (size) {
		if (size > XATTR_LIST_MAX)
			size = XATTR_LIST_MAX;
		klist = kvmalloc(size, GFP_KERNEL);
		if (!klist)
			return -ENOMEM;
	}
	error = vfs_listxattr(d, klist, size);
	if (error > 0) {
		if (size && copy_to_user(list, klist, error))
			error = -EFAULT;
	} else if (error == -ERANGE && size >= XATTR_LIST_MAX) {
		error = -E2BIG;	/* a list longer than any may be */
	}
	kvfree(klist);
	return error;
}

static noinline ssize_t path_listxattr(const char *pathname, char *list, size_t size, unsigned int lookup_flags)
{
	struct path path;
	ssize_t error = user_path_at_empty(AT_FDCWD, pathname, lookup_flags, &path, NULL);

	if (error)
		return error;
	error = listxattr(path.dentry, list, size);
	path_put(&path);
	return error;
}

SYSCALL_DEFINE3(listxattr, const char *, pathname, char *, list, size_t, size)
{
	return path_listxattr(pathname, list, size, LOOKUP_FOLLOW);
}

SYSCALL_DEFINE3(llistxattr, const char *, pathname, char *, list, size_t, size)
{
	return path_listxattr(pathname, list, size, 0);
}

SYSCALL_DEFINE3(flistxattr, int, fd, char *, list, size_t, size)
{
	struct file *f = fget(fd);
	ssize_t error;

	if (!f)
		return -EBADF;
	error = listxattr(f->f_path.dentry, list, size);
	fput(f);
	return error;
}

/* ---- removing ---- */
noinline int __vfs_removexattr(struct dentry *dentry, const char *name)
{
	struct inode *inode = dentry->d_inode;
	const struct xattr_handler *handler = xattr_resolve_name(inode, &name);

	if (IS_ERR(handler))
		return PTR_ERR(handler);
	if (!handler->set)
		return -EOPNOTSUPP;
	return handler->set(handler, dentry, inode, name, NULL, 0, XATTR_REPLACE);
}

noinline int __vfs_removexattr_locked(struct dentry *dentry, const char *name)
{
	int error = xattr_permission(dentry->d_inode, name, MAY_WRITE);

	if (error)
		return error;
	error = security_inode_removexattr(dentry, name);
	if (error)
		return error;
	error = __vfs_removexattr(dentry, name);
	if (!error)
		fsnotify_xattr(dentry);	/* (then evm_inode_post_removexattr: not built) */
	return error;
}

noinline int vfs_removexattr(void *mnt_userns, struct dentry *dentry, const char *name)
{
	return __vfs_removexattr_locked(dentry, name);
}

static noinline int removexattr(struct dentry *d, const char *name)
{
	char kname[XATTR_NAME_MAX + 1];
	long error = strncpy_from_user(kname, name, sizeof(kname));

	if (error == 0 || error == sizeof(kname))
		error = -ERANGE;
	if (error < 0)
		return error;
	return vfs_removexattr(NULL, d, kname);
}

static noinline int path_removexattr(const char *pathname, const char *name, unsigned int lookup_flags)
{
	struct path path;
	int error = user_path_at_empty(AT_FDCWD, pathname, lookup_flags, &path, NULL);

	if (error)
		return error;
	error = mnt_want_write(path.mnt);
	if (!error) {
		error = removexattr(path.dentry, name);
		mnt_drop_write(path.mnt);
	}
	path_put(&path);
	return error;
}

SYSCALL_DEFINE2(removexattr, const char *, pathname, const char *, name)
{
	return path_removexattr(pathname, name, LOOKUP_FOLLOW);
}

SYSCALL_DEFINE2(lremovexattr, const char *, pathname, const char *, name)
{
	return path_removexattr(pathname, name, 0);
}

SYSCALL_DEFINE2(fremovexattr, int, fd, const char *, name)
{
	struct file *f = fget(fd);
	int error;

	if (!f)
		return -EBADF;
	error = mnt_want_write_file(f);
	if (!error) {
		error = removexattr(f->f_path.dentry, name);
		mnt_drop_write_file(f);
	}
	fput(f);
	return error;
}

/* ---- the attributes a file system keeps in memory (tmpfs's) ---- */
static noinline struct simple_xattr *simple_xattr_alloc(const void *value, size_t size)
{
	struct simple_xattr *new_xattr = kvmalloc(sizeof(*new_xattr) + size, GFP_KERNEL);

	if (!new_xattr)
		return NULL;
	new_xattr->size = size;
	memcpy(new_xattr->value, value, size);
	return new_xattr;
}

static notrace void simple_xattr_free(struct simple_xattr *xattr)
{
	kfree(xattr->name);
	kvfree(xattr);
}

noinline int simple_xattr_get(struct simple_xattrs *xattrs, const char *name, void *buffer, size_t size)
{
	struct simple_xattr *xattr;

	list_for_each_entry(xattr, &xattrs->head, list) {
		if (strcmp(name, xattr->name))
			continue;
		if (!buffer)
			return xattr->size;
		if (size < xattr->size)
			return -ERANGE;
		memcpy(buffer, xattr->value, xattr->size);
		return xattr->size;
	}
	return -ENODATA;
}

/* Set name's value (NULL: remove it); *removed_size: the size of the value it replaced, or -1 */
noinline int simple_xattr_set(struct simple_xattrs *xattrs, const char *name, const void *value, size_t size,
			      int flags, ssize_t *removed_size)
{
	struct simple_xattr *xattr, *new_xattr = NULL;
	int err = 0;

	if (removed_size)
		*removed_size = -1;
	if (value) {
		size_t len = strlen(name) + 1;

		new_xattr = simple_xattr_alloc(value, size);
		if (!new_xattr)
			return -ENOMEM;
		new_xattr->name = kmalloc(len, GFP_KERNEL);	/* 6.1: kstrdup */
		if (!new_xattr->name) {
			kvfree(new_xattr);
			return -ENOMEM;
		}
		memcpy(new_xattr->name, name, len);
	}
	list_for_each_entry(xattr, &xattrs->head, list) {
		if (!strcmp(name, xattr->name)) {
			if (flags & XATTR_CREATE) {
				xattr = new_xattr;
				err = -EEXIST;
			} else if (new_xattr) {
				list_add(&new_xattr->list, &xattr->list);	/* list_replace */
				list_del(&xattr->list);
				if (removed_size)
					*removed_size = xattr->size;
			} else {
				list_del(&xattr->list);
				if (removed_size)
					*removed_size = xattr->size;
			}
			goto out;
		}
	}
	if (flags & XATTR_REPLACE) {
		xattr = new_xattr;
		err = -ENODATA;
	} else {
		list_add(&new_xattr->list, &xattrs->head);
		xattr = NULL;
	}
out:
	if (xattr)
		simple_xattr_free(xattr);
	return err;
}

static noinline int xattr_list_one(char **buffer, ssize_t *remaining_size, const char *name)
{
	size_t len = strlen(name) + 1;

	if (*buffer) {
		if (*remaining_size < len)
			return -ERANGE;
		memcpy(*buffer, name, len);
		*buffer += len;
	}
	*remaining_size -= len;
	return 0;
}

/* The names, each ending in a NUL; trusted.* ones only for CAP_SYS_ADMIN.  (No POSIX ACLs.) */
noinline ssize_t simple_xattr_list(struct inode *inode, struct simple_xattrs *xattrs, char *buffer, size_t size)
{
	bool trusted = capable(CAP_SYS_ADMIN);	/* 6.1: ns_capable_noaudit */
	struct simple_xattr *xattr;
	ssize_t remaining_size = size;
	int err = 0;

	list_for_each_entry(xattr, &xattrs->head, list) {
		if (!trusted && has_prefix(xattr->name, XATTR_TRUSTED_PREFIX))
			continue;
		err = xattr_list_one(&buffer, &remaining_size, xattr->name);
		if (err)
			break;
	}
	return err ? err : size - remaining_size;
}

/* an evicted inode's attributes go (inline in 6.1: untraced) */
notrace void simple_xattrs_free(struct simple_xattrs *xattrs)
{
	struct simple_xattr *xattr, *n;

	list_for_each_entry_safe(xattr, n, &xattrs->head, list) {
		list_del(&xattr->list);
		simple_xattr_free(xattr);
	}
}
