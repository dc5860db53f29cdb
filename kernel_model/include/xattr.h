/*
 * Extended attributes (include/linux/xattr.h, uapi/linux/xattr.h): the names' namespaces, the
 * flags of setxattr(2), and the simple_xattrs list in memory that tmpfs keeps on its inodes
 * (fs/xattr.c's simple_xattr_*).
 */
#ifndef _XATTR_H
#define _XATTR_H
#include "fs.h"
#include "list.h"

#define XATTR_CREATE	0x1	/* set value, fail if attr already exists */
#define XATTR_REPLACE	0x2	/* set value, fail if attr does not exist */

#define XATTR_NAME_MAX		255
#define XATTR_SIZE_MAX		65536
#define XATTR_LIST_MAX		65536
#define XATTR_SECURITY_PREFIX	"security."
#define XATTR_SYSTEM_PREFIX	"system."
#define XATTR_TRUSTED_PREFIX	"trusted."
#define XATTR_USER_PREFIX	"user."

struct simple_xattrs {
	struct list_head head;		/* of simple_xattr, the newest first */
};

struct simple_xattr {
	struct list_head list;
	char *name;			/* the whole name, its prefix with it */
	size_t size;
	char value[];
};

static inline void simple_xattrs_init(struct simple_xattrs *xattrs)
{
	INIT_LIST_HEAD(&xattrs->head);
}

void simple_xattrs_free(struct simple_xattrs *xattrs);
int simple_xattr_get(struct simple_xattrs *xattrs, const char *name, void *buffer, size_t size);
int simple_xattr_set(struct simple_xattrs *xattrs, const char *name, const void *value, size_t size,
		     int flags, ssize_t *removed_size);
ssize_t simple_xattr_list(struct inode *inode, struct simple_xattrs *xattrs, char *buffer, size_t size);
const char *xattr_full_name(const struct xattr_handler *handler, const char *name);
#endif
