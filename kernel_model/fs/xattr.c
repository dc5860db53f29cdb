/*
 * Extended attributes (fs/xattr.c): getxattr, lgetxattr, fgetxattr as 6.1's.  A name goes to the
 * handler of the super block's s_xattr whose prefix it has; a file system without handlers has
 * none (EOPNOTSUPP): here only hostfs has them (the host's attributes), tmpfs is as a kernel
 * built without CONFIG_TMPFS_XATTR.  No security module: security.* names go to the file
 * system.  Setting and listing are not modelled (ENOSYS).
 */
#include "../include/syscalls.h"
#include "../include/fs.h"
#include "../include/cred.h"
#include "../include/security.h"

#define XATTR_NAME_MAX		255
#define XATTR_SIZE_MAX		65536
#define XATTR_SECURITY_PREFIX	"security."
#define XATTR_SYSTEM_PREFIX	"system."
#define XATTR_TRUSTED_PREFIX	"trusted."
#define XATTR_USER_PREFIX	"user."

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
	if (has_prefix(name, XATTR_SECURITY_PREFIX) || has_prefix(name, XATTR_SYSTEM_PREFIX))
		return 0;
	if (has_prefix(name, XATTR_TRUSTED_PREFIX))
		return capable(CAP_SYS_ADMIN) ? 0 : (mask & MAY_WRITE) ? -EPERM : -ENODATA;
	if (has_prefix(name, XATTR_USER_PREFIX) && !S_ISREG(inode->i_mode) && !S_ISDIR(inode->i_mode))
		return (mask & MAY_WRITE) ? -EPERM : -ENODATA;
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
	void *value;
	void *kvalue;
	size_t size;
	char *kname;
};

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
