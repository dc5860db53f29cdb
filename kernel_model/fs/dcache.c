/*
 * The dentry cache (Linux's fs/dcache.c and fs/d_path.c): a dentry names an inode (or, negative,
 * nothing) under its parent; all live dentries are in a hash by (parent, name).  tmpfs-like file
 * systems keep their whole tree here (a dentry pinned by its file system: libfs), procfs
 * dentries go at their last dput (always_delete_dentry).
 */
#include "../include/fs.h"
#include "../include/security.h"

#define D_HASH_BITS 10
static struct list_head dentry_hashtable[1 << D_HASH_BITS];
static struct kmem_cache *dentry_cache;
static spinlock_t dcache_lock;	/* the hash, d_subdirs and every d_lockref (one lock) */

noinline u32 full_name_hash(const void *salt, const char *name, unsigned int len)
{
	u64 hash = (u64)salt * 0x9e3779b97f4a7c15UL;
	unsigned int i;

	for (i = 0; i < len; i++)
		hash = (hash + (u8)name[i]) * 0x100000001b3UL;
	return (u32)(hash ^ (hash >> 32));
}

static notrace struct list_head *d_hash(const struct dentry *parent, u32 hash)
{
	return &dentry_hashtable[(hash + ((u64)parent >> 6)) & ((1 << D_HASH_BITS) - 1)];
}

noinline struct dentry *d_alloc(struct dentry *parent, const struct qstr *name)
{
	struct dentry *dentry = kmem_cache_zalloc(dentry_cache, GFP_KERNEL);
	char *dname;
	unsigned long flags;

	if (!dentry)
		return NULL;
	if (name->len >= DNAME_INLINE_LEN) {
		dname = kmalloc(name->len + 1, GFP_KERNEL);
		if (!dname) {
			kmem_cache_free(dentry_cache, dentry);
			return NULL;
		}
	} else {
		dname = (char *)dentry->d_iname;
	}
	memcpy(dname, name->name, name->len);
	dname[name->len] = 0;
	dentry->d_name.name = (unsigned char *)dname;
	dentry->d_name.len = name->len;
	dentry->d_name.hash = full_name_hash(parent, dname, name->len);
	dentry->d_lockref.count = 1;
	INIT_LIST_HEAD(&dentry->d_hash);
	INIT_LIST_HEAD(&dentry->d_lru);
	INIT_LIST_HEAD(&dentry->d_subdirs);
	INIT_LIST_HEAD(&dentry->d_child);
	INIT_LIST_HEAD(&dentry->d_alias);
	if (parent) {
		dentry->d_parent = dget(parent);
		dentry->d_sb = parent->d_sb;
		dentry->d_op = parent->d_sb->s_d_op;
		spin_lock_irqsave(&dcache_lock, flags);
		list_add_tail(&dentry->d_child, &parent->d_subdirs);
		spin_unlock_irqrestore(&dcache_lock, flags);
	} else {
		dentry->d_parent = dentry;
	}
	return dentry;
}

struct dentry *d_alloc_name(struct dentry *parent, const char *name)
{
	struct qstr q = QSTR_INIT((const unsigned char *)name, strlen(name));

	return d_alloc(parent, &q);
}

struct dentry *d_make_root(struct inode *root_inode)
{
	static const struct qstr slash = QSTR_INIT((const unsigned char *)"/", 1);
	struct dentry *res = NULL;

	if (root_inode) {
		res = d_alloc(NULL, &slash);
		if (res) {
			res->d_sb = root_inode->i_sb;
			res->d_op = root_inode->i_sb->s_d_op;
			d_instantiate(res, root_inode);
		} else {
			iput(root_inode);
		}
	}
	return res;
}

noinline void d_instantiate(struct dentry *entry, struct inode *inode)
{
	if (inode)
		security_d_instantiate(entry, inode);
	entry->d_inode = inode;
	if (inode)
		list_add(&entry->d_alias, &inode->i_dentry);
}

static noinline void __d_rehash(struct dentry *entry)
{
	list_add(&entry->d_hash, d_hash(entry->d_parent, entry->d_name.hash));
	entry->d_flags |= DCACHE_HASHED;
}

noinline void d_add(struct dentry *entry, struct inode *inode)
{
	unsigned long flags;

	if (inode)
		d_instantiate(entry, inode);
	spin_lock_irqsave(&dcache_lock, flags);
	if (d_unhashed(entry))
		__d_rehash(entry);
	spin_unlock_irqrestore(&dcache_lock, flags);
}

noinline void __d_drop(struct dentry *dentry)
{
	if (!d_unhashed(dentry)) {
		list_del_init(&dentry->d_hash);
		dentry->d_flags &= ~DCACHE_HASHED;
	}
}

noinline void d_drop(struct dentry *dentry)
{
	unsigned long flags;

	spin_lock_irqsave(&dcache_lock, flags);
	__d_drop(dentry);
	spin_unlock_irqrestore(&dcache_lock, flags);
}

/* The name leaves its inode: a negative dentry if nobody else holds it, else unhashed. */
noinline void d_delete(struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;
	unsigned long flags;

	spin_lock_irqsave(&dcache_lock, flags);
	if (dentry->d_lockref.count == 1 && inode) {
		list_del_init(&dentry->d_alias);
		dentry->d_inode = NULL;
		spin_unlock_irqrestore(&dcache_lock, flags);
		iput(inode);
		return;
	}
	__d_drop(dentry);
	spin_unlock_irqrestore(&dcache_lock, flags);
}

noinline struct dentry *__d_lookup(const struct dentry *parent, const struct qstr *name)
{
	u32 hash = full_name_hash(parent, (const char *)name->name, name->len);
	struct list_head *b = d_hash(parent, hash);
	struct dentry *dentry;

	list_for_each_entry(dentry, b, d_hash) {
		if (dentry->d_parent != parent || dentry->d_name.hash != hash ||
		    dentry->d_name.len != name->len ||
		    memcmp(dentry->d_name.name, name->name, name->len))
			continue;
		dentry->d_lockref.count++;
		return dentry;
	}
	return NULL;
}

noinline struct dentry *d_lookup(const struct dentry *parent, const struct qstr *name)
{
	struct dentry *dentry;
	unsigned long flags;

	spin_lock_irqsave(&dcache_lock, flags);
	dentry = __d_lookup(parent, name);
	spin_unlock_irqrestore(&dcache_lock, flags);
	return dentry;
}

struct dentry *dget(struct dentry *dentry)
{
	unsigned long flags;

	if (dentry) {
		spin_lock_irqsave(&dcache_lock, flags);
		dentry->d_lockref.count++;
		spin_unlock_irqrestore(&dcache_lock, flags);
	}
	return dentry;
}

noinline struct dentry *dget_parent(struct dentry *dentry)
{
	return dget(dentry->d_parent);
}

static noinline void dentry_free(struct dentry *dentry)
{
	if (dentry->d_name.name != dentry->d_iname)
		kfree(dentry->d_name.name);
	kmem_cache_free(dentry_cache, dentry);
}

/* Under dcache_lock, count at 0: kill it (and give back its hold on the parent). */
static noinline struct dentry *__dentry_kill(struct dentry *dentry, unsigned long flags)
{
	struct dentry *parent = dentry->d_parent == dentry ? NULL : dentry->d_parent;
	struct inode *inode = dentry->d_inode;

	__d_drop(dentry);
	list_del_init(&dentry->d_child);
	list_del_init(&dentry->d_alias);
	dentry->d_inode = NULL;
	spin_unlock_irqrestore(&dcache_lock, flags);
	if (inode)
		iput(inode);
	dentry_free(dentry);
	return parent;
}

noinline void dput(struct dentry *dentry)
{
	unsigned long flags;

	while (dentry) {
		spin_lock_irqsave(&dcache_lock, flags);
		if (--dentry->d_lockref.count > 0) {
			spin_unlock_irqrestore(&dcache_lock, flags);
			return;
		}
		/* kept while hashed and positive, unless its file system drops it at last use */
		if (!d_unhashed(dentry) && dentry->d_inode &&
		    !(dentry->d_op && dentry->d_op->d_delete && dentry->d_op->d_delete(dentry))) {
			spin_unlock_irqrestore(&dcache_lock, flags);
			return;
		}
		if (!list_empty(&dentry->d_subdirs)) {	/* children still name it */
			spin_unlock_irqrestore(&dcache_lock, flags);
			return;
		}
		dentry = __dentry_kill(dentry, flags);
	}
}

/* rename: dentry takes target's place (target is unhashed, dropped by the caller). */
noinline void d_move(struct dentry *dentry, struct dentry *target)
{
	struct dentry *old_parent = dentry->d_parent, *new_parent = target->d_parent;
	unsigned long flags;
	char *dname = (char *)dentry->d_iname;
	u32 len = target->d_name.len;

	if (len >= DNAME_INLINE_LEN && !(dname = kmalloc(len + 1, GFP_KERNEL)))
		return;
	spin_lock_irqsave(&dcache_lock, flags);
	__d_drop(dentry);
	__d_drop(target);
	if (dentry->d_name.name != dentry->d_iname && dentry->d_name.name != (unsigned char *)dname)
		kfree(dentry->d_name.name);
	memcpy(dname, target->d_name.name, len + 1);
	dentry->d_name.name = (unsigned char *)dname;
	dentry->d_name.len = len;
	dentry->d_name.hash = full_name_hash(new_parent, dname, len);
	list_del_init(&dentry->d_child);
	list_add_tail(&dentry->d_child, &new_parent->d_subdirs);
	dentry->d_parent = new_parent;
	__d_rehash(dentry);
	spin_unlock_irqrestore(&dcache_lock, flags);
	if (old_parent != new_parent) {
		dget(new_parent);
		dput(old_parent);
	}
}

noinline void path_get(const struct path *path)
{
	mntget(path->mnt);
	dget(path->dentry);
}

noinline void path_put(const struct path *path)
{
	dput(path->dentry);
	mntput(path->mnt);
}

/* ---- d_path.c: a path's name, built from its end ---- */
static noinline int prepend(char **buffer, int *buflen, const char *str, int namelen)
{
	*buflen -= namelen;
	if (*buflen < 0)
		return -ENAMETOOLONG;
	*buffer -= namelen;
	memcpy(*buffer, str, namelen);
	return 0;
}

/* The path from root (the caller's; NULL: the namespace's) to path; 1: path is not under root. */
noinline int prepend_path(const struct path *path, const struct path *root, char **buffer, int *buflen)
{
	struct dentry *dentry = path->dentry;
	struct mount *mnt = real_mount(path->mnt);
	bool slash = false;

	while (!(root && dentry == root->dentry && &mnt->mnt == root->mnt)) {
		if (dentry == mnt->mnt.mnt_root) {
			if (mnt->mnt_parent == mnt) {	/* the namespace's root */
				if (!slash && prepend(buffer, buflen, "/", 1))
					return -ENAMETOOLONG;
				return root ? 1 : 0;
			}
			dentry = mnt->mnt_mountpoint;
			mnt = mnt->mnt_parent;
			continue;
		}
		if (prepend(buffer, buflen, (const char *)dentry->d_name.name, dentry->d_name.len) ||
		    prepend(buffer, buflen, "/", 1))
			return -ENAMETOOLONG;
		slash = true;
		dentry = dentry->d_parent;
	}
	if (!slash && prepend(buffer, buflen, "/", 1))
		return -ENAMETOOLONG;
	return 0;
}

noinline char *d_path(const struct path *path, char *buf, int buflen)
{
	char *res = buf + buflen;
	int error;

	if (path->dentry->d_op && path->dentry->d_op->d_dname && path->dentry != path->mnt->mnt_root)
		return path->dentry->d_op->d_dname(path->dentry, buf, buflen);
	if (prepend(&res, &buflen, "", 1))
		return (char *)(long)-ENAMETOOLONG;
	if (d_unhashed(path->dentry) && path->dentry->d_parent != path->dentry &&
	    prepend(&res, &buflen, " (deleted)", 10))
		return (char *)(long)-ENAMETOOLONG;
	error = prepend_path(path, NULL, &res, &buflen);
	return error < 0 ? (char *)(long)error : res;
}

SYSCALL_DEFINE2(getcwd, char *, buf, unsigned long, size)
{
	struct fs_struct *fs = current->fs;
	char *page = kmalloc(PATH_MAX, GFP_KERNEL);
	char *cwd = page + PATH_MAX;
	int buflen = PATH_MAX, error;
	struct path pwd, root;
	long len;

	if (!page)
		return -ENOMEM;
	get_fs_root(fs, &root);
	get_fs_pwd(fs, &pwd);
	prepend(&cwd, &buflen, "", 1);
	if (d_unhashed(pwd.dentry) && pwd.dentry->d_parent != pwd.dentry) {
		error = -ENOENT;
		goto out;
	}
	error = prepend_path(&pwd, &root, &cwd, &buflen);
	if (error < 0)
		goto out;
	if (error > 0 && prepend(&cwd, &buflen, "(unreachable)", 13)) {
		error = -ENAMETOOLONG;
		goto out;
	}
	len = PATH_MAX - buflen;
	error = -ERANGE;
	if (len <= (long)size) {
		error = len;
		if (copy_to_user(buf, cwd, len))
			error = -EFAULT;
	}
out:
	path_put(&pwd);
	path_put(&root);
	kfree(page);
	return error;
}

/* A synthetic name ("pipe:[123]"), as 6.1's dynamic_dname: at the end of buffer. */
noinline char *dynamic_dname(char *buffer, int buflen, const char *fmt, ...)
{
	char temp[64];
	__builtin_va_list args;
	int sz;

	__builtin_va_start(args, fmt);
	sz = vscnprintf(temp, sizeof(temp), fmt, args) + 1;
	__builtin_va_end(args);
	if (sz > (int)sizeof(temp) - 1 || sz > buflen)
		return (char *)(long)-ENAMETOOLONG;
	buffer += buflen - sz;
	return memcpy(buffer, temp, sz);
}

void __init dcache_init(void)
{
	int i;

	dentry_cache = kmem_cache_create("dentry", sizeof(struct dentry), 8, SLAB_PANIC, NULL);
	for (i = 0; i < (1 << D_HASH_BITS); i++)
		INIT_LIST_HEAD(&dentry_hashtable[i]);
}
