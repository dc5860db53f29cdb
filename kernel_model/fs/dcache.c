/*
 * The dentry cache (Linux's fs/dcache.c and fs/d_path.c): a dentry names an inode (or, negative,
 * nothing) under its parent; all live dentries are in a hash by (parent, name).  tmpfs-like file
 * systems keep their whole tree here (a dentry pinned by its file system: libfs), procfs
 * dentries go at their last dput (always_delete_dentry).
 */
#include "../include/fs.h"
#include "../include/fsnotify.h"
#include "../include/maccess.h"
#include "../include/security.h"

#define D_HASH_BITS 10
static struct list_head dentry_hashtable[1 << D_HASH_BITS];
static struct kmem_cache *dentry_cache;
spinlock_t dcache_lock;	/* the hash, d_subdirs and every d_lockref (one lock) */

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

/* The operations of a dentry, and the flags that say which it has */
noinline void d_set_d_op(struct dentry *dentry, const struct dentry_operations *op)
{
	dentry->d_op = op;
	dentry->d_flags &= ~(DCACHE_OP_REVALIDATE | DCACHE_OP_DELETE);
	if (!op)
		return;
	if (op->d_revalidate)
		dentry->d_flags |= DCACHE_OP_REVALIDATE;
	if (op->d_delete)
		dentry->d_flags |= DCACHE_OP_DELETE;
}

/* A dentry of the super block, named (NULL: "/"), its own parent until someone links it */
static noinline struct dentry *__d_alloc(struct super_block *sb, const struct qstr *name)
{
	static const struct qstr slash_name = QSTR_INIT((const unsigned char *)"/", 1);
	/* (no s_dentry_lru: zeroed, where 6.1 sets each field) */
	struct dentry *dentry = kmem_cache_alloc_lru(dentry_cache, NULL, GFP_KERNEL | __GFP_ZERO);
	char *dname;

	if (!dentry)
		return NULL;
	if (!name)
		name = &slash_name;
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
	dentry->d_name.hash = full_name_hash(NULL, dname, name->len);
	dentry->d_lockref.count = 1;
	dentry->d_parent = dentry;
	dentry->d_sb = sb;
	INIT_LIST_HEAD(&dentry->d_hash);
	INIT_LIST_HEAD(&dentry->d_lru);
	INIT_LIST_HEAD(&dentry->d_subdirs);
	INIT_LIST_HEAD(&dentry->d_child);
	INIT_LIST_HEAD(&dentry->d_alias);
	d_set_d_op(dentry, sb ? sb->s_d_op : NULL);
	return dentry;
}

/* A child of parent: its name hashed under the parent, on the parent's list */
noinline struct dentry *d_alloc(struct dentry *parent, const struct qstr *name)
{
	struct dentry *dentry = __d_alloc(parent->d_sb, name);
	unsigned long flags;

	if (!dentry)
		return NULL;
	dentry->d_name.hash = full_name_hash(parent, (const char *)dentry->d_name.name, dentry->d_name.len);
	dentry->d_parent = dget(parent);
	spin_lock_irqsave(&dcache_lock, flags);
	list_add_tail(&dentry->d_child, &parent->d_subdirs);
	spin_unlock_irqrestore(&dcache_lock, flags);
	return dentry;
}

/* A root: no name and no parent (d_make_root's) */
noinline struct dentry *d_alloc_anon(struct super_block *sb)
{
	return __d_alloc(sb, NULL);
}

/* a directory's readdir position (libfs): on its d_subdirs past the last child it gave, skipped
 * by everyone else */
noinline struct dentry *d_alloc_cursor(struct dentry *parent)
{
	struct dentry *dentry = d_alloc_anon(parent->d_sb);

	if (dentry) {
		dentry->d_flags |= DCACHE_DENTRY_CURSOR;
		dentry->d_parent = dget(parent);
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
	struct dentry *res = NULL;

	if (root_inode) {
		res = d_alloc_anon(root_inode->i_sb);
		if (res)
			d_instantiate(res, root_inode);
		else
			iput(root_inode);
	}
	return res;
}

/* The dentry names the inode (on the inode's list of aliases) */
static noinline void __d_instantiate(struct dentry *dentry, struct inode *inode)
{
	unsigned long flags;

	spin_lock_irqsave(&dcache_lock, flags);
	list_add(&dentry->d_alias, &inode->i_dentry);
	dentry->d_inode = inode;
	spin_unlock_irqrestore(&dcache_lock, flags);
}

noinline void d_instantiate(struct dentry *entry, struct inode *inode)
{
	if (inode) {
		security_d_instantiate(entry, inode);
		__d_instantiate(entry, inode);
	}
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

/* Off the hash: lookups no longer find it */
static noinline void ___d_drop(struct dentry *dentry)
{
	list_del_init(&dentry->d_hash);
}

noinline void __d_drop(struct dentry *dentry)
{
	if (!d_unhashed(dentry)) {
		___d_drop(dentry);
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

/* A dentry its file system no longer vouches for (d_revalidate said 0): off the hash, so the
 * next lookup asks the file system again.  (6.1 then shrinks the cache below a positive one
 * and detaches mounts on it; its children here stay until their last dput) */
noinline void d_invalidate(struct dentry *dentry)
{
	unsigned long flags;

	spin_lock_irqsave(&dcache_lock, flags);
	if (d_unhashed(dentry)) {
		spin_unlock_irqrestore(&dcache_lock, flags);
		return;
	}
	__d_drop(dentry);
	spin_unlock_irqrestore(&dcache_lock, flags);
}

/* Under dcache_lock, which it drops: the dentry names no inode any more, the inode loses the
 * reference the name held */
static noinline void dentry_unlink_inode(struct dentry *dentry, unsigned long flags)
{
	struct inode *inode = dentry->d_inode;

	list_del_init(&dentry->d_alias);
	dentry->d_inode = NULL;
	spin_unlock_irqrestore(&dcache_lock, flags);
	if (!inode->i_nlink)
		fsnotify_inoderemove(inode);	/* its last name: IN_DELETE_SELF, its marks go */
	iput(inode);
}

/* The name leaves its inode: a negative dentry if nobody else holds it, else unhashed. */
noinline void d_delete(struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;
	unsigned long flags;

	spin_lock_irqsave(&dcache_lock, flags);
	if (dentry->d_lockref.count == 1 && inode) {
		dentry_unlink_inode(dentry, flags);
		return;
	}
	__d_drop(dentry);
	spin_unlock_irqrestore(&dcache_lock, flags);
}

/* The dentry's name is name (no file system here compares names its own way: d_compare) */
noinline bool d_same_name(const struct dentry *dentry, const struct dentry *parent, const struct qstr *name)
{
	if (dentry->d_name.len != name->len)
		return false;
	return !memcmp(dentry->d_name.name, name->name, name->len);	/* dentry_cmp() */
}

noinline struct dentry *__d_lookup(const struct dentry *parent, const struct qstr *name)
{
	u32 hash = full_name_hash(parent, (const char *)name->name, name->len);
	struct list_head *b = d_hash(parent, hash);
	struct dentry *dentry;

	list_for_each_entry(dentry, b, d_hash) {
		if (dentry->d_name.hash != hash || dentry->d_parent != parent)
			continue;
		if (!d_same_name(dentry, parent, name))
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

notrace noinline struct dentry *dget(struct dentry *dentry)
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

/* The ancestor of p2 that is a child of p1 (p1 an ancestor of p2), else NULL. */
noinline struct dentry *d_ancestor(struct dentry *p1, struct dentry *p2)
{
	struct dentry *p;

	for (p = p2; p != p->d_parent; p = p->d_parent)	/* !IS_ROOT(p) */
		if (p->d_parent == p1)
			return p;
	return NULL;
}

/* Is new_dentry old_dentry or below it?  (6.1 reads d_parent under rename_lock's seqcount;
 * here d_move() and this walk both run under dcache_lock.) */
noinline bool is_subdir(struct dentry *new_dentry, struct dentry *old_dentry)
{
	unsigned long flags;
	bool subdir;

	if (new_dentry == old_dentry)
		return true;
	spin_lock_irqsave(&dcache_lock, flags);
	subdir = d_ancestor(old_dentry, new_dentry);
	spin_unlock_irqrestore(&dcache_lock, flags);
	return subdir;
}

/* freed after a grace period: a lookup may still be reading it (its name kept as long) */
static noinline void __d_free(struct rcu_head *head)
{
	struct dentry *dentry = container_of(head, struct dentry, d_rcu);

	kmem_cache_free(dentry_cache, dentry);
}

static noinline void __d_free_external(struct rcu_head *head)
{
	struct dentry *dentry = container_of(head, struct dentry, d_rcu);

	kfree(dentry->d_name.name);	/* external_name() (no sharing of names here) */
	kmem_cache_free(dentry_cache, dentry);
}

static noinline void dentry_free(struct dentry *dentry)
{
	if (unlikely(dentry->d_name.name != dentry->d_iname)) {
		call_rcu(&dentry->d_rcu, __d_free_external);
		return;
	}
	call_rcu(&dentry->d_rcu, __d_free);
}

/* Under dcache_lock, count at 0: kill it (and give back its hold on the parent). */
static noinline struct dentry *__dentry_kill(struct dentry *dentry, unsigned long flags)
{
	struct dentry *parent = dentry->d_parent == dentry ? NULL : dentry->d_parent;
	struct inode *inode = dentry->d_inode;

	__d_drop(dentry);
	list_del_init(&dentry->d_child);
	if (inode)
		dentry_unlink_inode(dentry, flags);
	else
		spin_unlock_irqrestore(&dcache_lock, flags);
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

/* dentry takes target's name and place, under the lock (no exchange: RENAME_EXCHANGE is not
 * modelled) */
static noinline void __d_move(struct dentry *dentry, struct dentry *target, bool exchange, char *dname)
{
	struct dentry *old_parent = dentry->d_parent, *new_parent = target->d_parent;
	unsigned long flags;
	u32 len = target->d_name.len;

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

/* rename: dentry takes target's place (target is unhashed, dropped by the caller). */
noinline void d_move(struct dentry *dentry, struct dentry *target)
{
	char *dname = (char *)dentry->d_iname;

	if (target->d_name.len >= DNAME_INLINE_LEN && !(dname = kmalloc(target->d_name.len + 1, GFP_KERNEL)))
		return;
	__d_move(dentry, target, false, dname);
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
/* a name copied without faulting (a dentry renamed meanwhile may have freed it): 'x's then */
static noinline bool prepend_copy(void *dst, const void *src, int len)
{
	if (unlikely(copy_from_kernel_nofault(dst, src, len))) {
		memset(dst, 'x', len);
		return false;
	}
	return true;
}

static noinline int prepend(char **buffer, int *buflen, const char *str, int namelen)
{
	*buflen -= namelen;
	if (*buflen < 0)
		return -ENAMETOOLONG;
	*buffer -= namelen;
	prepend_copy(*buffer, str, namelen);
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
