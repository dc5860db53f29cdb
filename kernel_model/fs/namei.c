/*
 * Path name lookup (Linux's fs/namei.c): getname() copies a user path into a struct filename;
 * a walk (struct nameidata) starts at the task's root or cwd or a directory fd (path_init),
 * takes one component at a time (link_path_walk → walk_component: ".", ".." across mounts,
 * the dcache (lookup_fast) or the file system (__lookup_slow), mounts (step_into)), follows
 * symlinks (at most MAXSYMLINKS per walk: ELOOP) and ends at the last component, which the
 * caller looks up its way: path_lookupat (stat, chdir...), path_openat (open, O_CREAT),
 * filename_create (mkdir, mknod, symlink, link), the parent for unlink/rmdir/rename.
 * The operations on names: vfs_mkdir, vfs_mknod, vfs_symlink, vfs_link, vfs_unlink,
 * vfs_rmdir, vfs_rename, vfs_readlink, and their syscalls.
 */
#include "../include/fs.h"
#include "../include/cred.h"
#include "../include/security.h"
#include "../include/fsnotify.h"

enum { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };

struct nameidata {
	struct path path;		/* where the walk is */
	struct qstr last;		/* the last component, unlooked */
	struct path root;
	unsigned int flags;
	int last_type;
	int total_link_count;
	int dfd;
	struct filename *name;
	char *links[MAXSYMLINKS + 1];	/* bodies of the symlinks being walked (freed at the end) */
	int nr_links;
	/* what is done with the last component once a trailing symlink is walked: a lookup
	 * (lookup_last) or an open (open_last_lookups, with the file and flags) */
	int (*last_fn)(struct nameidata *nd);
	struct file *file;
	const struct open_flags *op;
	unsigned int state;		/* ND_ROOT_PRESET, ND_ROOT_GRABBED, ND_JUMPED */
	int depth;			/* symlink bodies being walked */
	umode_t dir_mode;		/* the last component's directory (may_follow_link) */
	uid_t dir_uid;
	struct nameidata *saved;	/* the task's walk before this one (set_nameidata) */
};

enum { ND_ROOT_PRESET = 1, ND_ROOT_GRABBED = 2, ND_JUMPED = 4 };

static DEFINE_MUTEX(rename_mutex);	/* s_vfs_rename_mutex */

/* ---- getname ---- */
static struct kmem_cache *names_cachep;

noinline struct filename *getname_flags(const char *filename, int flags, int *empty)
{
	struct filename *result = kmem_cache_zalloc(names_cachep, GFP_KERNEL);
	char *kname;
	long len;

	if (!result)
		return (void *)(long)-ENOMEM;
	kname = (char *)result->iname;
	result->name = kname;
	len = strncpy_from_user(kname, filename, EMBEDDED_NAME_MAX);
	if (len < 0) {
		kmem_cache_free(names_cachep, result);
		return (void *)len;
	}
	if (len == EMBEDDED_NAME_MAX) {
		kmem_cache_free(names_cachep, result);
		return (void *)(long)-ENAMETOOLONG;
	}
	result->refcnt = 1;
	if (!len) {
		if (empty)
			*empty = 1;
		if (!(flags & LOOKUP_EMPTY)) {
			kmem_cache_free(names_cachep, result);
			return (void *)(long)-ENOENT;
		}
	}
	result->uptr = filename;
	return result;
}

/* a syscall's name whose flags may say AT_EMPTY_PATH (execveat) */
noinline struct filename *getname_uflags(const char *filename, int uflags)
{
	return getname_flags(filename, (uflags & AT_EMPTY_PATH) ? LOOKUP_EMPTY : 0, NULL);
}

noinline struct filename *getname(const char *filename)
{
	return getname_flags(filename, 0, NULL);
}

noinline struct filename *getname_kernel(const char *filename)
{
	struct filename *result = kmem_cache_zalloc(names_cachep, GFP_KERNEL);
	size_t len = strlen(filename) + 1;

	if (!result)
		return (void *)(long)-ENOMEM;
	if (len > EMBEDDED_NAME_MAX) {
		kmem_cache_free(names_cachep, result);
		return (void *)(long)-ENAMETOOLONG;
	}
	memcpy(result->iname, filename, len);
	result->name = result->iname;
	result->refcnt = 1;
	return result;
}

noinline void putname(struct filename *name)
{
	if (IS_ERR(name) || !name)
		return;
	if (--name->refcnt > 0)
		return;
	kmem_cache_free(names_cachep, name);
}

/* ---- permissions ---- */
noinline int generic_permission(void *idmap, struct inode *inode, int mask)
{
	umode_t mode = inode->i_mode;
	int granted;

	mask &= MAY_READ | MAY_WRITE | MAY_EXEC;
	if (current_cred()->fsuid == inode->i_uid)
		granted = (mode >> 6) & 7;
	else if (in_group_p(inode->i_gid))
		granted = (mode >> 3) & 7;
	else
		granted = mode & 7;
	if ((mask & ~granted) == 0)
		return 0;
	if (S_ISDIR(mode)) {	/* DACs are overridable for directories */
		if (!(mask & MAY_WRITE) && capable_wrt_inode_uidgid(idmap, inode, CAP_DAC_READ_SEARCH))
			return 0;
		if (capable_wrt_inode_uidgid(idmap, inode, CAP_DAC_OVERRIDE))
			return 0;
		return -EACCES;
	}
	/* searching includes executable on directories, else just read */
	if (mask == MAY_READ && capable_wrt_inode_uidgid(idmap, inode, CAP_DAC_READ_SEARCH))
		return 0;
	/* read/write DACs are always overridable; executable ones when an exec bit is set */
	if ((!(mask & MAY_EXEC) || (mode & 0111)) && capable_wrt_inode_uidgid(idmap, inode, CAP_DAC_OVERRIDE))
		return 0;
	return -EACCES;
}

noinline int inode_permission(struct inode *inode, int mask)
{
	int retval;

	if ((mask & MAY_WRITE) && (inode->i_sb->s_flags & SB_RDONLY) &&
	    (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) || S_ISLNK(inode->i_mode)))
		return -EROFS;
	if (inode->i_op && inode->i_op->permission)	/* do_inode_permission() */
		retval = inode->i_op->permission(inode, mask);
	else
		retval = generic_permission(NULL, inode, mask);
	if (retval)
		return retval;
	return security_inode_permission(inode, mask);
}

static notrace int may_lookup(struct nameidata *nd)
{
	return inode_permission(nd->path.dentry->d_inode, MAY_EXEC);
}

/* ---- the walk ---- */
/*
 * There is no lockless (RCU) walk here: each walk takes references as 6.1's ref-walk does.
 * openat2's RESOLVE_CACHED (LOOKUP_CACHED) asks for 6.1's lockless walk only, failing where it
 * would have to leave it (try_to_unlazy refuses with LOOKUP_CACHED: -ECHILD, and the ref-walk
 * retry's path_init answers -EAGAIN): where the dcache lacks a name, a link's atime wants an
 * update, a link's body needs its dentry (a magic link, a host's link), ".." meets the
 * BENEATH root or NO_XDEV a mount.  Such a walk gives -EAGAIN at those points.
 */
static notrace void set_nameidata(struct nameidata *p)
{
	p->saved = current->nameidata;
	current->nameidata = p;
}

static notrace void restore_nameidata(struct nameidata *p)
{
	current->nameidata = p->saved;
}

static noinline int set_root(struct nameidata *nd)
{
	/* a scoped walk's root is its dirfd: jumping to the task's would break out of it */
	if (nd->flags & LOOKUP_IS_SCOPED)
		return -ENOTRECOVERABLE;
	get_fs_root(current->fs, &nd->root);
	nd->state |= ND_ROOT_GRABBED;
	return 0;
}

noinline int nd_jump_root(struct nameidata *nd)
{
	if (unlikely(nd->flags & LOOKUP_BENEATH))
		return -EXDEV;
	if (unlikely(nd->flags & LOOKUP_NO_XDEV)) {
		/* absolute path arguments to path_init() are allowed (nd->path not yet set) */
		if (nd->path.mnt != NULL && nd->path.mnt != nd->root.mnt)
			return -EXDEV;
	}
	if (!nd->root.mnt) {
		int error = set_root(nd);

		if (error)
			return error;
	}
	path_put(&nd->path);
	nd->path = nd->root;
	path_get(&nd->path);
	nd->state |= ND_JUMPED;
	return 0;
}

/*
 * A magic link's ->get_link (/proc/PID/fd/N, exe, cwd, root) jumps the walk under way to the
 * object itself (path, with a reference, consumed), not to a name.
 */
noinline int nd_jump_link(const struct path *path)
{
	struct nameidata *nd = current->nameidata;
	int error = -ELOOP;

	if (unlikely(nd->flags & LOOKUP_NO_MAGICLINKS))
		goto err;
	error = -EXDEV;
	if (unlikely(nd->flags & LOOKUP_NO_XDEV)) {
		if (nd->path.mnt != path->mnt)
			goto err;
	}
	/* not safe for scoped lookups: the object may be anywhere */
	if (unlikely(nd->flags & LOOKUP_IS_SCOPED))
		goto err;
	path_put(&nd->path);
	nd->path = *path;
	nd->state |= ND_JUMPED;
	return 0;
err:
	path_put(path);
	return error;
}

noinline const char *path_init(struct nameidata *nd, unsigned int flags)
{
	const char *s = nd->name->name;

	nd->flags = flags;
	nd->state |= ND_JUMPED;
	nd->last_type = LAST_ROOT;
	nd->total_link_count = 0;
	nd->nr_links = 0;
	nd->depth = 0;
	if (nd->state & ND_ROOT_PRESET) {	/* vfs_path_lookup: the caller's root */
		if (*s && unlikely(!d_is_dir(nd->root.dentry)))
			return (void *)(long)-ENOTDIR;
		nd->path = nd->root;
		path_get(&nd->path);
		return s;
	}
	nd->root.mnt = NULL;
	nd->root.dentry = NULL;

	/* absolute pathname: from the root (LOOKUP_IN_ROOT's is the dirfd) */
	if (*s == '/' && !(flags & LOOKUP_IN_ROOT)) {
		int error = nd_jump_root(nd);

		if (unlikely(error))
			return (void *)(long)error;
		return s;
	}
	/* relative pathname: from the cwd or the dirfd */
	if (nd->dfd == AT_FDCWD) {
		get_fs_pwd(current->fs, &nd->path);
	} else {
		struct file *f = fget_raw(nd->dfd);

		if (!f)
			return (void *)(long)-EBADF;
		if (*s && !d_is_dir(f->f_path.dentry)) {
			fput(f);
			return (void *)(long)-ENOTDIR;
		}
		nd->path = f->f_path;
		path_get(&nd->path);
		fput(f);
	}
	/* a scoped lookup's root is where it starts */
	if (flags & LOOKUP_IS_SCOPED) {
		nd->root = nd->path;
		path_get(&nd->root);
		nd->state |= ND_ROOT_GRABBED;
	}
	return s;
}

noinline void terminate_walk(struct nameidata *nd)
{
	int i;

	path_put(&nd->path);
	nd->path.mnt = NULL;
	nd->path.dentry = NULL;
	if (nd->state & ND_ROOT_GRABBED) {
		path_put(&nd->root);
		nd->state &= ~ND_ROOT_GRABBED;
	}
	for (i = 0; i < nd->nr_links; i++)
		kfree(nd->links[i]);
	nd->nr_links = 0;
}

/*
 * Mount traversal, the out-of-line part: down through whatever is mounted on path (which
 * holds a reference to its mount), to the top mount's root; *jumped: it moved.
 */
noinline int __traverse_mounts(struct path *path, unsigned int flags, bool *jumped)
{
	struct vfsmount *mnt = path->mnt;

	while (flags & DCACHE_MOUNTED) {
		struct vfsmount *mounted = lookup_mnt(path);

		if (!mounted)	/* not in our namespace */
			break;
		dput(path->dentry);
		mntput(path->mnt);
		path->mnt = mounted;
		path->dentry = dget(mounted->mnt_root);
		flags = path->dentry->d_flags;
	}
	*jumped = path->mnt != mnt;
	if (!path->dentry->d_inode)
		return -ENOENT;
	return 0;
}

static __always_inline int traverse_mounts(struct path *path, bool *jumped)
{
	unsigned int flags = path->dentry->d_flags;

	if (likely(!(flags & DCACHE_MOUNTED))) {	/* fastpath */
		*jumped = false;
		return 0;
	}
	return __traverse_mounts(path, flags, jumped);
}

/* path: dentry (a reference, consumed) in the walk's mount, or what is mounted on it */
static __always_inline int handle_mounts(struct nameidata *nd, struct dentry *dentry, struct path *path)
{
	bool jumped;
	int ret;

	path->mnt = mntget(nd->path.mnt);
	path->dentry = dentry;
	/* 6.1's lockless walk leaves itself to refuse a NO_XDEV crossing: a cached one cannot */
	if (unlikely((nd->flags & (LOOKUP_CACHED | LOOKUP_NO_XDEV)) == (LOOKUP_CACHED | LOOKUP_NO_XDEV)) &&
	    d_mountpoint(dentry))
		ret = -EAGAIN;
	else
		ret = traverse_mounts(path, &jumped);
	if (!ret && jumped) {
		if (unlikely(nd->flags & LOOKUP_NO_XDEV))
			ret = -EXDEV;
		else
			nd->state |= ND_JUMPED;
	}
	if (unlikely(ret))
		path_put(path);
	return ret;
}

/* The mount m is on, up to one whose mount point is not its root, short of root's mount: in
 * path (no references). */
noinline bool choose_mountpoint_rcu(struct mount *m, const struct path *root, struct path *path, unsigned *seqp)
{
	while (m->mnt_parent != m) {	/* mnt_has_parent() */
		struct dentry *mountpoint = m->mnt_mountpoint;

		m = m->mnt_parent;
		if (unlikely(root->dentry == mountpoint && root->mnt == &m->mnt))
			break;
		if (mountpoint != m->mnt.mnt_root) {
			path->mnt = &m->mnt;
			path->dentry = mountpoint;
			*seqp = 0;
			return true;
		}
	}
	return false;
}

static notrace bool choose_mountpoint(struct mount *m, const struct path *root, struct path *path)
{
	unsigned seq;
	bool found;

	/* (6.1 retries while mount_lock's seqcount moves; mounts change here under the lock
	 * of a syscall the walk cannot race with) */
	found = choose_mountpoint_rcu(m, root, path, &seq);
	if (found)
		path_get(path);	/* __legitimize_path() */
	return found;
}

/* "..": the parent, up to the mount point when at a mount's root; the root stays itself. */
static notrace struct dentry *follow_dotdot(struct nameidata *nd)
{
	if (nd->path.dentry == nd->root.dentry && nd->path.mnt == nd->root.mnt)	/* path_equal */
		goto in_root;
	if (unlikely(nd->path.dentry == nd->path.mnt->mnt_root)) {
		struct path path;

		if (!choose_mountpoint(real_mount(nd->path.mnt), &nd->root, &path))
			goto in_root;
		if (unlikely(nd->flags & LOOKUP_NO_XDEV) && (nd->flags & LOOKUP_CACHED)) {
			path_put(&path);	/* follow_dotdot_rcu's -ECHILD */
			return (void *)(long)-EAGAIN;
		}
		path_put(&nd->path);
		nd->path = path;
		if (unlikely(nd->flags & LOOKUP_NO_XDEV))
			return (void *)(long)-EXDEV;
	}
	return dget_parent(nd->path.dentry);
in_root:
	if (unlikely(nd->flags & LOOKUP_BENEATH))
		return (void *)(long)(nd->flags & LOOKUP_CACHED ? -EAGAIN : -EXDEV);
	return dget(nd->path.dentry);
}

enum { WALK_TRAILING = 1, WALK_MORE = 2, WALK_NOFOLLOW = 4 };
noinline int step_into(struct nameidata *nd, int flags, struct dentry *dentry);

noinline int handle_dots(struct nameidata *nd, int type)
{
	if (type == LAST_DOTDOT) {
		struct dentry *parent;

		if (!nd->root.mnt) {
			int error = set_root(nd);

			if (error)
				return error;
		}
		parent = follow_dotdot(nd);
		if (IS_ERR(parent))
			return PTR_ERR(parent);
		/* (6.1 then checks mount_lock's and rename_lock's seqcounts for a scoped walk: a
		 * racing rename or mount may have moved ".." above the root, -EAGAIN.  The walk here
		 * holds its references and nothing renames under it.) */
		return step_into(nd, WALK_NOFOLLOW, parent);
	}
	return 0;
}

noinline struct dentry *lookup_fast(struct nameidata *nd)
{
	struct dentry *dentry = d_lookup(nd->path.dentry, &nd->last);

	if (dentry && dentry->d_op && dentry->d_op->d_revalidate &&
	    dentry->d_op->d_revalidate(dentry, nd->flags) <= 0) {
		d_drop(dentry);
		dput(dentry);
		return NULL;
	}
	return dentry;
}

/* Ask the file system (its ->lookup), under the directory's lock. */
noinline struct dentry *__lookup_slow(const struct qstr *name, struct dentry *dir, unsigned int flags)
{
	struct inode *inode = dir->d_inode;
	struct dentry *dentry, *old;

	dentry = d_lookup(dir, name);	/* made while we waited for the lock? */
	if (dentry)
		return dentry;
	if (inode->i_flags & S_DEAD)	/* a removed directory holds no names */
		return (void *)(long)-ENOENT;
	dentry = d_alloc(dir, name);
	if (!dentry)
		return (void *)(long)-ENOMEM;
	old = inode->i_op->lookup(inode, dentry, flags);
	if (old) {
		dput(dentry);
		dentry = old;
	}
	return dentry;
}

static notrace struct dentry *lookup_slow(const struct qstr *name, struct dentry *dir, unsigned int flags)
{
	struct inode *inode = dir->d_inode;
	struct dentry *res;

	if (!inode->i_op || !inode->i_op->lookup)
		return (void *)(long)-ENOTDIR;
	mutex_lock(&inode->i_rwsem);
	res = __lookup_slow(name, dir, flags);
	mutex_unlock(&inode->i_rwsem);
	return res;
}

/*
 * protected_symlinks (on, as 6.1's default): a trailing link in a sticky world-writable
 * directory is followed only by its owner or when the directory's owner owns it too; even
 * CAP_DAC_OVERRIDE does not pass.
 */
static __always_inline int may_follow_link(struct nameidata *nd, const struct inode *inode)
{
	if (current_cred()->fsuid == inode->i_uid)
		return 0;
	if ((nd->dir_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
		return 0;
	if (nd->dir_uid == inode->i_uid)
		return 0;
	return -EACCES;
}

/*
 * The link's body, kept in nd until the walk ends; a body from "/" has moved the walk to the
 * root.  NULL: nothing left to walk (a link to "/", or a magic link's jump, nd_jump_link).
 */
static notrace const char *pick_link(struct nameidata *nd, struct path *link, int flags)
{
	struct inode *inode = link->dentry->d_inode;
	const char *res;
	char *buf;
	int error;

	if (++nd->total_link_count > MAXSYMLINKS || nd->nr_links >= MAXSYMLINKS)
		return (void *)(long)-ELOOP;
	if (flags & WALK_TRAILING) {
		error = may_follow_link(nd, inode);
		if (unlikely(error))
			return (void *)(long)error;
	}
	if (unlikely(nd->flags & LOOKUP_NO_SYMLINKS) || unlikely(link->mnt->mnt_flags & MNT_NOSYMFOLLOW))
		return (void *)(long)-ELOOP;
	if (!(nd->flags & LOOKUP_CACHED))
		touch_atime(link);
	else if (atime_needs_update(link, inode))
		return (void *)(long)-EAGAIN;
	error = security_inode_follow_link(link->dentry, inode, nd->flags & LOOKUP_CACHED);
	if (unlikely(error))
		return (void *)(long)error;
	res = inode->i_link;
	if (!res) {
		buf = kmalloc(PATH_MAX, GFP_KERNEL);
		if (!buf)
			return (void *)(long)-ENOMEM;
		nd->links[nd->nr_links++] = buf;
		/* the lockless walk passes no dentry: a body that needs it is -ECHILD */
		if (nd->flags & LOOKUP_CACHED) {
			res = inode->i_op->get_link(NULL, inode, buf);
			if (res == (void *)(long)-ECHILD)
				return (void *)(long)-EAGAIN;
		} else {
			res = inode->i_op->get_link(link->dentry, inode, buf);
		}
		if (!res)	/* a pure jump */
			return NULL;
		if (IS_ERR(res))
			return res;
	}
	if (*res == '/') {
		error = nd_jump_root(nd);
		if (unlikely(error))
			return (void *)(long)error;
		while (unlikely(*++res == '/'))
			;
	}
	return *res ? res : NULL;
}

static int walk_symlink(struct nameidata *nd, const char *body);
noinline int walk_component(struct nameidata *nd, int flags);

/*
 * Move the walk onto dentry (found in nd->path; a reference, consumed), across mounts; a
 * symlink there is walked when it is not the last component or the walk follows the last one.
 */
noinline int step_into(struct nameidata *nd, int flags, struct dentry *dentry)
{
	struct path path;
	const char *body;
	int err = handle_mounts(nd, dentry, &path);

	if (err < 0)
		return err;
	if (likely(!path.dentry->d_inode || !S_ISLNK(path.dentry->d_inode->i_mode)) ||
	    ((flags & WALK_TRAILING) && !(nd->flags & LOOKUP_FOLLOW)) || (flags & WALK_NOFOLLOW)) {
		/* not a symlink or should not follow */
		path_put(&nd->path);
		nd->path = path;
		return 0;
	}
	body = pick_link(nd, &path, flags);
	path_put(&path);
	if (IS_ERR(body))
		return PTR_ERR(body);
	if (!body)	/* nd->path is where the link led */
		return 0;
	err = walk_symlink(nd, body);
	if (err)
		return err;
	if (!(flags & WALK_TRAILING))	/* the link's own last component, a directory on the way */
		return walk_component(nd, WALK_MORE);
	return nd->last_fn(nd);
}

static notrace int lookup_last(struct nameidata *nd)
{
	if (nd->last_type == LAST_NORM && nd->last.name[nd->last.len])
		nd->flags |= LOOKUP_FOLLOW | LOOKUP_DIRECTORY;
	return walk_component(nd, WALK_TRAILING);
}

noinline int walk_component(struct nameidata *nd, int flags)
{
	struct dentry *dentry;

	if (nd->last_type != LAST_NORM)
		return handle_dots(nd, nd->last_type);
	dentry = lookup_fast(nd);
	if (!dentry) {
		if (nd->flags & LOOKUP_CACHED)	/* not in the dcache */
			return -EAGAIN;
		dentry = lookup_slow(&nd->last, nd->path.dentry, nd->flags);
		if (IS_ERR(dentry))
			return PTR_ERR(dentry);
	}
	if (!dentry->d_inode && !(flags & WALK_TRAILING)) {
		dput(dentry);
		return -ENOENT;
	}
	return step_into(nd, flags, dentry);
}

/*
 * Walk name up to its last component (left in nd->last, nd->last_type); nd->path is then
 * the directory holding it.  A trailing slash makes the last component a directory.
 */
static noinline int link_path_walk(const char *name, struct nameidata *nd)
	__asm__("link_path_walk.part.0.constprop.0");
static noinline int link_path_walk(const char *name, struct nameidata *nd)
{
	while (*name == '/')
		name++;
	if (!*name) {
		nd->last_type = LAST_ROOT;
		goto done;
	}
	for (;;) {
		const char *end = name;
		int err, type = LAST_NORM;

		err = may_lookup(nd);
		if (err)
			return err;
		while (*end && *end != '/')
			end++;
		if (end - name > NAME_MAX)
			return -ENAMETOOLONG;
		if (name[0] == '.' && end - name == 1)
			type = LAST_DOT;
		else if (name[0] == '.' && name[1] == '.' && end - name == 2)
			type = LAST_DOTDOT;
		nd->last.name = (const unsigned char *)name;
		nd->last.len = end - name;
		nd->last.hash = full_name_hash(nd->path.dentry, name, end - name);
		nd->last_type = type;
		while (*end == '/')
			end++;
		if (!*end) {
			if (end > name + nd->last.len)	/* trailing slashes */
				nd->flags |= LOOKUP_FOLLOW | LOOKUP_DIRECTORY;
			goto done;
		}
		err = walk_component(nd, WALK_MORE);
		if (err)
			return err;
		if (!d_is_dir(nd->path.dentry))
			return -ENOTDIR;
		name = end;
	}
done:
	if (!nd->depth) {	/* the name's own last directory (may_follow_link) */
		nd->dir_uid = nd->path.dentry->d_inode->i_uid;
		nd->dir_mode = nd->path.dentry->d_inode->i_mode;
	}
	return 0;
}

/* A symlink's body, from where the walk is (pick_link has moved it to the root for "/..."). */
static notrace int walk_symlink(struct nameidata *nd, const char *body)
{
	unsigned int flags = nd->flags;
	int err;

	nd->flags |= LOOKUP_FOLLOW;	/* components inside a link are always followed */
	nd->depth++;
	err = link_path_walk(body, nd);
	nd->depth--;
	nd->flags = (nd->flags & LOOKUP_DIRECTORY) | flags;
	return err;
}

noinline int complete_walk(struct nameidata *nd)
{
	/* a scoped walk's end is checked once more to be under its root: a namei bug must not
	 * hand out a file outside it */
	if (unlikely(nd->flags & LOOKUP_IS_SCOPED) && !path_is_under(&nd->path, &nd->root))
		return -EXDEV;
	if ((nd->flags & LOOKUP_DIRECTORY) && !d_is_dir(nd->path.dentry))
		return -ENOTDIR;
	return 0;
}

/* Walk to the object itself: nd->path is it (with a reference) on success. */
noinline int path_lookupat(struct nameidata *nd, unsigned int flags, struct path *path)
{
	const char *s = path_init(nd, flags);
	int err;

	nd->last_fn = lookup_last;
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = link_path_walk(s, nd);
	if (!err && nd->last_type != LAST_ROOT)
		err = lookup_last(nd);
	if (!err && !nd->path.dentry->d_inode)
		err = -ENOENT;
	if (!err)
		err = complete_walk(nd);
	if (!err) {
		*path = nd->path;
		nd->path.mnt = NULL;
		nd->path.dentry = NULL;
	}
	terminate_walk(nd);
	return err;
}

noinline int filename_lookup(int dfd, struct filename *name, unsigned int flags, struct path *path, struct path *root)
{
	struct nameidata nd = { .dfd = dfd, .name = name };
	int err;

	if (IS_ERR(name))
		return PTR_ERR(name);
	set_nameidata(&nd);
	err = path_lookupat(&nd, flags, path);
	restore_nameidata(&nd);
	return err;
}

/* Walk to the parent of the last component: nd keeps the parent and nd->last. */
static noinline int path_parentat(struct nameidata *nd, unsigned int flags)
{
	const char *s = path_init(nd, flags);

	return IS_ERR(s) ? PTR_ERR(s) : link_path_walk(s, nd);
}

/* The parent of nd->name's last component, as the task's walk (6.1's hands back the parent, the
 * last component and its type; here they stay in the caller's nd) */
noinline int __filename_parentat(struct nameidata *nd, unsigned int flags)
{
	int err;

	if (IS_ERR(nd->name))
		return PTR_ERR(nd->name);
	set_nameidata(nd);
	err = path_parentat(nd, flags);
	restore_nameidata(nd);
	return err;
}

/* name below (mnt, dentry), which is also the walk's root ("/" and ".." stop there). */
noinline int vfs_path_lookup(struct dentry *dentry, struct vfsmount *mnt, const char *name,
			     unsigned int flags, struct path *path)
{
	struct filename *fn = getname_kernel(name);
	struct nameidata nd = { .dfd = AT_FDCWD, .name = fn, .root = { mnt, dentry }, .state = ND_ROOT_PRESET };
	int err;

	if (IS_ERR(fn))
		return PTR_ERR(fn);
	set_nameidata(&nd);
	err = path_lookupat(&nd, flags, path);
	restore_nameidata(&nd);
	putname(fn);
	return err;
}

noinline int kern_path(const char *name, unsigned int flags, struct path *path)
{
	struct filename *fn = getname_kernel(name);
	int err = filename_lookup(AT_FDCWD, fn, flags, path, NULL);

	putname(fn);
	return err;
}

noinline int user_path_at_empty(int dfd, const char *name, unsigned int flags, struct path *path, int *empty)
{
	struct filename *fn = getname_flags(name, flags, empty);
	int err;

	if (IS_ERR(fn))
		return PTR_ERR(fn);
	if (!fn->name[0] && (flags & LOOKUP_EMPTY)) {	/* AT_EMPTY_PATH: the fd itself */
		struct file *f = fget_raw(dfd);

		putname(fn);
		if (dfd == AT_FDCWD) {
			get_fs_pwd(current->fs, path);
			return 0;
		}
		if (!f)
			return -EBADF;
		*path = f->f_path;
		path_get(path);
		fput(f);
		return 0;
	}
	err = filename_lookup(dfd, fn, flags, path, NULL);
	putname(fn);
	return err;
}

/* A name the dcache has, still valid by its file system (an invalid one is dropped and looked
 * up again) */
static noinline struct dentry *lookup_dcache(const struct qstr *name, struct dentry *dir, unsigned int flags)
{
	struct dentry *dentry = d_lookup(dir, name);

	if (dentry && (dentry->d_flags & DCACHE_OP_REVALIDATE)) {
		int error = dentry->d_op->d_revalidate(dentry, flags);	/* d_revalidate() */

		if (unlikely(error <= 0)) {
			if (!error)
				d_invalidate(dentry);
			dput(dentry);
			return error ? (void *)(long)error : NULL;
		}
	}
	return dentry;
}

/* The last component under a locked parent: the dcache, else the file system. */
noinline struct dentry *lookup_one_qstr_excl(const struct qstr *name, struct dentry *base, unsigned int flags)
{
	struct dentry *dentry = lookup_dcache(name, base, flags), *old;
	struct inode *dir = base->d_inode;

	if (dentry)
		return dentry;
	if (!dir->i_op || !dir->i_op->lookup)
		return (void *)(long)-ENOTDIR;
	if (dir->i_flags & S_DEAD)
		return (void *)(long)-ENOENT;
	dentry = d_alloc(base, name);
	if (!dentry)
		return (void *)(long)-ENOMEM;
	old = dir->i_op->lookup(dir, dentry, flags);
	if (old) {
		dput(dentry);
		dentry = old;
	}
	return dentry;
}

/* A kernel caller's one name (no walk): EACCES for an empty name, "." and "..", one with a '/',
 * or a directory the caller may not search. */
noinline int lookup_one_common(void *idmap, const char *name, struct dentry *base, int len, struct qstr *this)
{
	this->name = (const unsigned char *)name;
	this->len = len;
	this->hash = full_name_hash(base, name, len);
	if (!len)
		return -EACCES;
	if (unlikely(name[0] == '.') && (len < 2 || (len == 2 && name[1] == '.')))
		return -EACCES;
	while (len--) {
		unsigned int c = *(const unsigned char *)name++;

		if (c == '/' || c == '\0')
			return -EACCES;
	}
	return inode_permission(base->d_inode, MAY_EXEC);
}

/* The name in base, whose inode the caller holds locked. */
noinline struct dentry *lookup_one_len(const char *name, struct dentry *base, int len)
{
	struct qstr q;
	int err = lookup_one_common(NULL, name, base, len, &q);

	if (err)
		return (void *)(long)err;
	return lookup_one_qstr_excl(&q, base, 0);
}

/* ---- open ---- */
/* May device files on this mount be opened (not "nodev")? */
noinline bool may_open_dev(const struct path *path)
{
	return !(path->mnt->mnt_flags & MNT_NODEV) && !(path->mnt->mnt_sb->s_iflags & SB_I_NODEV);
}

noinline int may_open(void *idmap, const struct path *path, int acc_mode, int flag)
{
	struct dentry *dentry = path->dentry;
	struct inode *inode = dentry->d_inode;
	int error;

	if (!inode)
		return -ENOENT;
	switch (inode->i_mode & S_IFMT) {
	case S_IFLNK:
		return -ELOOP;
	case S_IFDIR:
		if (acc_mode & MAY_WRITE)
			return -EISDIR;
		if (acc_mode & MAY_EXEC)	/* (exec's open) */
			return -EACCES;
		break;
	case S_IFBLK:
	case S_IFCHR:
		if (!may_open_dev(path))
			return -EACCES;
		/* fall through */
	case S_IFIFO:
	case S_IFSOCK:
		if (acc_mode & MAY_EXEC)
			return -EACCES;
		flag &= ~O_TRUNC;
		break;
	case S_IFREG:
		if ((acc_mode & MAY_EXEC) && path_noexec(path))
			return -EACCES;
		break;
	}
	if ((acc_mode & MAY_WRITE) && __mnt_is_readonly(path->mnt) &&
	    (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode)))
		return -EROFS;
	error = inode_permission(inode, acc_mode & (MAY_READ | MAY_WRITE | MAY_EXEC));
	if (error)
		return error;
	return 0;
}

static notrace int open_to_namei_flags(int flag) { return flag; }

/* O_CREAT and the plain open of the last component. */
static notrace int open_last_lookups(struct nameidata *nd)
{
	struct file *file = nd->file;
	const struct open_flags *op = nd->op;
	struct dentry *dir = nd->path.dentry, *dentry;
	int open_flag = op->open_flag, err;
	bool got_write;

	if (nd->last_type != LAST_NORM) {
		if (open_flag & O_CREAT)
			return -EISDIR;
		return handle_dots(nd, nd->last_type);
	}
	if (!(open_flag & O_CREAT)) {
		if (nd->last.name[nd->last.len])
			nd->flags |= LOOKUP_FOLLOW | LOOKUP_DIRECTORY;
		return walk_component(nd, WALK_TRAILING);
	}
	if (nd->last.name[nd->last.len])	/* "name/" with O_CREAT */
		return -EISDIR;
	/* not failed yet on a read-only mount: the lookup decides (an existing file opens) */
	got_write = !mnt_want_write(nd->path.mnt);
	mutex_lock(&dir->d_inode->i_rwsem);
	dentry = lookup_one_qstr_excl(&nd->last, dir, 0);
	if (IS_ERR(dentry)) {
		mutex_unlock(&dir->d_inode->i_rwsem);
		if (got_write)
			mnt_drop_write(nd->path.mnt);
		return PTR_ERR(dentry);
	}
	if (!dentry->d_inode) {
		struct inode *d = dir->d_inode;

		/* may_o_create(): the path hook, then the directory's permission */
		err = !got_write ? -EROFS :
		      security_path_mknod(&nd->path, dentry, op->mode & ~current->fs->umask, 0);
		if (!err)
			err = inode_permission(d, MAY_WRITE | MAY_EXEC);
		if (!err && !d->i_op->create)
			err = -EACCES;
		if (!err)
			err = d->i_op->create(d, dentry, op->mode & ~current->fs->umask, true);
		mutex_unlock(&dir->d_inode->i_rwsem);
		if (got_write)
			mnt_drop_write(nd->path.mnt);
		if (err) {
			dput(dentry);
			return err;
		}
		file->f_mode |= FMODE_CREATED;
		fsnotify_create(dir->d_inode, dentry);	/* (open_last_lookups') */
		dput(nd->path.dentry);
		nd->path.dentry = dentry;
		return 0;
	}
	mutex_unlock(&dir->d_inode->i_rwsem);
	if (got_write)
		mnt_drop_write(nd->path.mnt);
	if (open_flag & O_EXCL) {
		dput(dentry);
		return -EEXIST;
	}
	return step_into(nd, WALK_TRAILING, dentry);
}

static notrace int do_open(struct nameidata *nd, struct file *file, const struct open_flags *op)
{
	int open_flag = op->open_flag, acc_mode = op->acc_mode, error;
	bool do_truncate = false;

	if (!nd->path.dentry->d_inode)
		return -ENOENT;
	error = complete_walk(nd);
	if (error)
		return error;
	if (file->f_mode & FMODE_CREATED) {
		open_flag &= ~O_TRUNC;
		acc_mode = 0;
	} else if ((open_flag & O_DIRECTORY) && !d_is_dir(nd->path.dentry)) {
		return -ENOTDIR;
	} else if (d_is_dir(nd->path.dentry) && (open_flag & O_CREAT)) {
		return -EISDIR;
	}
	if (!S_ISREG(nd->path.dentry->d_inode->i_mode)) {
		open_flag &= ~O_TRUNC;
	} else if (open_flag & O_TRUNC) {
		error = mnt_want_write(nd->path.mnt);
		if (error)
			return error;
		do_truncate = true;
	}
	error = may_open(NULL, &nd->path, acc_mode, open_flag);
	if (!error && !(file->f_mode & FMODE_OPENED))
		error = vfs_open(&nd->path, file);
	if (!error && do_truncate)
		error = do_truncate_file(file);
	if (do_truncate)
		mnt_drop_write(nd->path.mnt);
	return error;
}

noinline struct file *path_openat(struct nameidata *nd, const struct open_flags *op, unsigned flags)
{
	struct file *file = alloc_empty_file(op->open_flag, NULL);
	const char *s;
	int error;

	if (IS_ERR(file))
		return file;
	if (file->f_flags & O_PATH) {	/* do_o_path: the object itself, no may_open */
		struct path path;

		error = path_lookupat(nd, flags, &path);
		if (!error) {
			error = vfs_open(&path, file);
			path_put(&path);
		}
		goto out;
	}
	s = path_init(nd, flags);
	nd->last_fn = open_last_lookups;
	nd->file = file;
	nd->op = op;
	error = IS_ERR(s) ? PTR_ERR(s) : link_path_walk(s, nd);
	if (!error) {
		error = open_last_lookups(nd);
		if (!error)
			error = do_open(nd, file, op);
	}
	terminate_walk(nd);
out:
	if (!error)
		return file;
	fput(file);
	return (void *)(long)error;
}

noinline struct file *do_filp_open(int dfd, struct filename *pathname, const struct open_flags *op)
{
	struct nameidata nd = { .dfd = dfd, .name = pathname };
	struct file *filp;

	set_nameidata(&nd);
	filp = path_openat(&nd, op, op->lookup_flags);
	restore_nameidata(&nd);
	return filp;
}

/* ---- creating names ---- */
noinline struct dentry *filename_create(int dfd, struct filename *name, struct path *path, unsigned int lookup_flags)
{
	int err2;
	struct nameidata nd = { .dfd = dfd, .name = name };
	bool want_dir = lookup_flags & LOOKUP_DIRECTORY;
	struct dentry *dentry;
	int err;

	if (IS_ERR(name))
		return (void *)name;
	err = __filename_parentat(&nd, 0);
	if (err)
		goto fail;
	if (nd.last_type != LAST_NORM) {
		err = -EEXIST;
		goto fail;
	}
	/* a read-only mount fails later, so that the lookup's errors come first (EEXIST) */
	err2 = mnt_want_write(nd.path.mnt);
	mutex_lock(&nd.path.dentry->d_inode->i_rwsem);
	dentry = lookup_one_qstr_excl(&nd.last, nd.path.dentry, 0);
	if (IS_ERR(dentry)) {
		err = PTR_ERR(dentry);
		goto unlock;
	}
	if (dentry->d_inode) {
		dput(dentry);
		err = -EEXIST;
		goto unlock;
	}
	if (!want_dir && nd.last.name[nd.last.len]) {	/* "name/" for a non-directory */
		dput(dentry);
		err = -ENOENT;
		goto unlock;
	}
	if (err2) {
		dput(dentry);
		err = err2;
		goto unlock;
	}
	*path = nd.path;
	nd.path.mnt = NULL;
	nd.path.dentry = NULL;
	terminate_walk(&nd);
	return dentry;
unlock:
	mutex_unlock(&nd.path.dentry->d_inode->i_rwsem);
	if (!err2)
		mnt_drop_write(nd.path.mnt);
fail:
	terminate_walk(&nd);
	return (void *)(long)err;
}

noinline void done_path_create(struct path *path, struct dentry *dentry)
{
	dput(dentry);
	mutex_unlock(&path->dentry->d_inode->i_rwsem);
	mnt_drop_write(path->mnt);
	path_put(path);
}

noinline struct dentry *kern_path_create(int dfd, const char *pathname, struct path *path, unsigned int lookup_flags)
{
	struct filename *fn = getname_kernel(pathname);
	struct dentry *d = filename_create(dfd, fn, path, lookup_flags);

	putname(fn);
	return d;
}

static noinline int may_create(struct inode *dir)
{
	return inode_permission(dir, MAY_WRITE | MAY_EXEC);
}

noinline int vfs_mkdir(void *idmap, struct inode *dir, struct dentry *dentry, umode_t mode)
{
	int error = may_create(dir);

	if (error)
		return error;
	if (!dir->i_op->mkdir)
		return -EPERM;
	mode = (mode & (S_IALLUGO | S_ISVTX)) | S_IFDIR;
	error = security_inode_mkdir(dir, dentry, mode);
	if (error)
		return error;
	error = dir->i_op->mkdir(dir, dentry, mode);
	if (!error)
		fsnotify_mkdir(dir, dentry);
	return error;
}

noinline int vfs_mknod(void *idmap, struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
{
	int error = may_create(dir);

	if (error)
		return error;
	if ((S_ISCHR(mode) || S_ISBLK(mode)) && !capable(CAP_MKNOD))
		return -EPERM;
	if (!dir->i_op->mknod)
		return -EPERM;
	error = security_inode_mknod(dir, dentry, mode, dev);
	if (error)
		return error;
	error = dir->i_op->mknod(dir, dentry, mode, dev);
	if (!error)
		fsnotify_create(dir, dentry);
	return error;
}

/* A regular file made in dir for dentry (mknod's; open's O_CREAT calls ->create itself). */
noinline int vfs_create(void *idmap, struct inode *dir, struct dentry *dentry, umode_t mode, bool want_excl)
{
	int error = may_create(dir);

	if (error)
		return error;
	if (!dir->i_op->create)
		return -EACCES;
	mode = (mode & S_IALLUGO) | S_IFREG;
	error = security_inode_create(dir, dentry, mode);
	if (error)
		return error;
	error = dir->i_op->create(dir, dentry, mode, want_excl);
	if (!error)
		fsnotify_create(dir, dentry);
	return error;
}

/* A regular file for dentry that f makes with arg, not a file system's ->create. */
noinline int vfs_mkobj(struct dentry *dentry, umode_t mode, int (*f)(struct dentry *, umode_t, void *), void *arg)
{
	struct inode *dir = dentry->d_parent->d_inode;
	int error = may_create(dir);

	if (error)
		return error;
	mode = (mode & S_IALLUGO) | S_IFREG;
	error = security_inode_create(dir, dentry, mode);
	if (error)
		return error;
	error = f(dentry, mode, arg);
	if (!error)
		fsnotify_create(dir, dentry);
	return error;
}

noinline int vfs_symlink(void *idmap, struct inode *dir, struct dentry *dentry, const char *oldname)
{
	int error = may_create(dir);

	if (error)
		return error;
	if (!dir->i_op->symlink)
		return -EPERM;
	error = security_inode_symlink(dir, dentry, oldname);
	if (error)
		return error;
	error = dir->i_op->symlink(dir, dentry, oldname);
	if (!error)
		fsnotify_create(dir, dentry);
	return error;
}

noinline int vfs_link(struct dentry *old_dentry, void *idmap, struct inode *dir, struct dentry *new_dentry, struct inode **delegated)
{
	struct inode *inode = old_dentry->d_inode;
	int error;

	if (!inode)
		return -ENOENT;
	error = may_create(dir);
	if (error)
		return error;
	if (dir->i_sb != inode->i_sb)
		return -EXDEV;
	if (S_ISDIR(inode->i_mode))
		return -EPERM;
	if (!dir->i_op->link)
		return -EPERM;
	error = security_inode_link(old_dentry, dir, new_dentry);
	if (error)
		return error;
	error = dir->i_op->link(old_dentry, dir, new_dentry);
	if (!error)
		fsnotify_link(dir, inode, new_dentry);
	return error;
}

static notrace umode_t mode_strip_umask(umode_t mode)
{
	return mode & ~current->fs->umask;
}

noinline int do_mkdirat(int dfd, struct filename *name, umode_t mode)
{
	struct path path;
	struct dentry *dentry = filename_create(dfd, name, &path, LOOKUP_DIRECTORY);
	int error;

	if (IS_ERR(dentry)) {
		putname(name);
		return PTR_ERR(dentry);
	}
	mode = mode_strip_umask(mode);
	error = security_path_mkdir(&path, dentry, mode);
	if (!error)
		error = vfs_mkdir(NULL, path.dentry->d_inode, dentry, mode);
	done_path_create(&path, dentry);
	putname(name);
	return error;
}

SYSCALL_DEFINE3(mkdirat, int, dfd, const char *, pathname, umode_t, mode)
{
	return do_mkdirat(dfd, getname(pathname), mode);
}

SYSCALL_DEFINE2(mkdir, const char *, pathname, umode_t, mode)
{
	return do_mkdirat(AT_FDCWD, getname(pathname), mode);
}

static notrace int may_mknod(umode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
	case 0:
		return 0;
	case S_IFDIR:
		return -EPERM;
	default:
		return -EINVAL;
	}
}

noinline int do_mknodat(int dfd, struct filename *name, umode_t mode, unsigned int dev)
{
	struct path path;
	struct dentry *dentry;
	int error = may_mknod(mode);

	if (error) {
		putname(name);
		return error;
	}
	dentry = filename_create(dfd, name, &path, 0);
	if (IS_ERR(dentry)) {
		putname(name);
		return PTR_ERR(dentry);
	}
	mode = mode_strip_umask(mode);
	error = security_path_mknod(&path, dentry, mode, dev);
	if (error)
		goto out2;
	switch (mode & S_IFMT) {
	case 0:
	case S_IFREG:
		error = vfs_create(NULL, path.dentry->d_inode, dentry, mode, true);
		break;
	case S_IFCHR:
	case S_IFBLK:
		error = vfs_mknod(NULL, path.dentry->d_inode, dentry, mode, ((dev >> 8) & 0xfff) << 20 | (dev & 0xff) | ((dev >> 12) & 0xfff00));
		break;
	case S_IFIFO:
	case S_IFSOCK:
		error = vfs_mknod(NULL, path.dentry->d_inode, dentry, mode, 0);
		break;
	}
out2:
	done_path_create(&path, dentry);
	putname(name);
	return error;
}

SYSCALL_DEFINE4(mknodat, int, dfd, const char *, filename, umode_t, mode, unsigned int, dev)
{
	return do_mknodat(dfd, getname(filename), mode, dev);
}

SYSCALL_DEFINE3(mknod, const char *, filename, umode_t, mode, unsigned, dev)
{
	return do_mknodat(AT_FDCWD, getname(filename), mode, dev);
}

noinline int do_symlinkat(struct filename *from, int newdfd, struct filename *to)
{
	struct path path;
	struct dentry *dentry;
	int error;

	if (IS_ERR(from)) {
		error = PTR_ERR(from);
		goto out;
	}
	dentry = filename_create(newdfd, to, &path, 0);
	error = PTR_ERR(dentry);
	if (IS_ERR(dentry))
		goto out;
	error = security_path_symlink(&path, dentry, from->name);
	if (!error)
		error = vfs_symlink(NULL, path.dentry->d_inode, dentry, from->name);
	done_path_create(&path, dentry);
out:
	putname(to);
	putname(from);
	return error;
}

SYSCALL_DEFINE3(symlinkat, const char *, oldname, int, newdfd, const char *, newname)
{
	return do_symlinkat(getname(oldname), newdfd, getname(newname));
}

SYSCALL_DEFINE2(symlink, const char *, oldname, const char *, newname)
{
	return do_symlinkat(getname(oldname), AT_FDCWD, getname(newname));
}

/* A hard link's source that is safe for anyone to pin (protected_hardlinks): a regular file,
 * not setuid, not an executable setgid one, that the caller may read and write */
static __always_inline bool safe_hardlink_source(void *idmap, struct inode *inode)
{
	umode_t mode = inode->i_mode;

	if (!S_ISREG(mode))
		return false;
	if (mode & S_ISUID)
		return false;
	if ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		return false;
	if (inode_permission(inode, MAY_READ | MAY_WRITE))
		return false;
	return true;
}

/* protected_hardlinks (on, as 6.1's default): a link to another user's file takes its owner (or
 * CAP_FOWNER) or a safe source; else EPERM */
noinline int may_linkat(void *idmap, const struct path *link)
{
	struct inode *inode = link->dentry->d_inode;

	if (safe_hardlink_source(idmap, inode) || inode_owner_or_capable(idmap, inode))
		return 0;
	return -EPERM;
}

noinline int do_linkat(int olddfd, struct filename *old, int newdfd, struct filename *new, int flags)
{
	struct dentry *new_dentry;
	struct path old_path, new_path;
	int error;

	if ((flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)) != 0) {
		error = -EINVAL;
		goto out_putnames;
	}
	error = filename_lookup(olddfd, old, (flags & AT_SYMLINK_FOLLOW) ? LOOKUP_FOLLOW : 0, &old_path, NULL);
	if (error)
		goto out_putnames;
	new_dentry = filename_create(newdfd, new, &new_path, 0);
	error = PTR_ERR(new_dentry);
	if (IS_ERR(new_dentry))
		goto out_putpath;
	error = -EXDEV;
	if (old_path.mnt != new_path.mnt)
		goto out_dput;
	error = may_linkat(NULL, &old_path);
	if (unlikely(error))
		goto out_dput;
	error = security_path_link(old_path.dentry, &new_path, new_dentry);
	if (!error)
		error = vfs_link(old_path.dentry, NULL, new_path.dentry->d_inode, new_dentry, NULL);
out_dput:
	done_path_create(&new_path, new_dentry);
out_putpath:
	path_put(&old_path);
out_putnames:
	putname(old);
	putname(new);
	return error;
}

SYSCALL_DEFINE5(linkat, int, olddfd, const char *, oldname, int, newdfd, const char *, newname, int, flags)
{
	return do_linkat(olddfd, getname(oldname), newdfd, getname(newname), flags);
}

SYSCALL_DEFINE2(link, const char *, oldname, const char *, newname)
{
	return do_linkat(AT_FDCWD, getname(oldname), AT_FDCWD, getname(newname), 0);
}

/* ---- removing names ---- */
/* In a sticky directory (/tmp), only the file's owner, the directory's or CAP_FOWNER may
 * remove or rename it */
noinline bool __check_sticky(void *idmap, struct inode *dir, struct inode *inode)
{
	uid_t fsuid = current_cred()->fsuid;

	if (inode->i_uid == fsuid)
		return false;
	if (dir->i_uid == fsuid)
		return false;
	return !capable_wrt_inode_uidgid(idmap, inode, CAP_FOWNER);
}

static inline bool check_sticky(void *idmap, struct inode *dir, struct inode *inode)
{
	if (!(dir->i_mode & S_ISVTX))
		return false;
	return __check_sticky(idmap, dir, inode);
}

static noinline int may_delete(struct inode *dir, struct dentry *victim, bool isdir)
{
	int error;

	if (!victim->d_inode)
		return -ENOENT;
	error = inode_permission(dir, MAY_WRITE | MAY_EXEC);
	if (error)
		return error;
	if (check_sticky(NULL, dir, victim->d_inode))
		return -EPERM;
	if (isdir) {
		if (!d_is_dir(victim))
			return -ENOTDIR;
		if (victim == victim->d_sb->s_root)
			return -EBUSY;
	} else if (d_is_dir(victim)) {
		return -EISDIR;
	}
	return 0;
}

noinline int vfs_rmdir(void *idmap, struct inode *dir, struct dentry *dentry)
{
	int error = may_delete(dir, dentry, true);

	if (error)
		return error;
	if (!dir->i_op->rmdir)
		return -EPERM;
	if (d_mountpoint(dentry))
		return -EBUSY;
	error = security_inode_rmdir(dir, dentry);
	if (error)
		return error;
	error = dir->i_op->rmdir(dir, dentry);
	if (!error) {
		dentry->d_inode->i_flags |= S_DEAD;
		d_delete_notify(dir, dentry);
	}
	return error;
}

noinline int vfs_unlink(void *idmap, struct inode *dir, struct dentry *dentry, struct inode **delegated)
{
	int error = may_delete(dir, dentry, false);

	if (error)
		return error;
	if (!dir->i_op->unlink)
		return -EPERM;
	if (d_mountpoint(dentry))
		return -EBUSY;
	error = security_inode_unlink(dir, dentry);
	if (error)
		return error;
	error = dir->i_op->unlink(dir, dentry);
	if (!error) {
		fsnotify_link_count(dentry->d_inode);
		d_delete_notify(dir, dentry);
	}
	return error;
}

/* unlink and rmdir: the parent, then the victim under its lock. */
static __always_inline struct dentry *lookup_victim(int dfd, struct filename *name, struct nameidata *nd, int *err, bool rmdir)
{
	struct dentry *dentry;

	nd->dfd = dfd;
	nd->name = name;
	*err = __filename_parentat(nd, 0);
	if (*err)
		return NULL;
	if (nd->last_type != LAST_NORM) {
		*err = !rmdir ? -EISDIR : nd->last_type == LAST_DOT ? -EINVAL :
		       nd->last_type == LAST_DOTDOT ? -ENOTEMPTY : -EBUSY;
		return NULL;
	}
	*err = mnt_want_write(nd->path.mnt);
	if (*err)
		return NULL;
	mutex_lock(&nd->path.dentry->d_inode->i_rwsem);
	dentry = lookup_one_qstr_excl(&nd->last, nd->path.dentry, 0);
	if (IS_ERR(dentry)) {
		*err = PTR_ERR(dentry);
		goto unlock;
	}
	if (!dentry->d_inode) {
		*err = -ENOENT;
	} else if (!rmdir && nd->last.name[nd->last.len] && !d_is_dir(dentry)) {
		*err = -ENOTDIR;
	} else {
		return dentry;	/* the caller drops the lock and the write access */
	}
	dput(dentry);
unlock:
	mutex_unlock(&nd->path.dentry->d_inode->i_rwsem);
	mnt_drop_write(nd->path.mnt);
	return NULL;
}

noinline int do_rmdir(int dfd, struct filename *name)
{
	struct nameidata nd = {};
	struct dentry *dentry;
	int error;

	if (IS_ERR(name))
		return PTR_ERR(name);
	dentry = lookup_victim(dfd, name, &nd, &error, true);
	if (dentry) {
		error = security_path_rmdir(&nd.path, dentry);
		if (!error)
			error = vfs_rmdir(NULL, nd.path.dentry->d_inode, dentry);
		dput(dentry);
		mutex_unlock(&nd.path.dentry->d_inode->i_rwsem);
		mnt_drop_write(nd.path.mnt);
	}
	terminate_walk(&nd);
	putname(name);
	return error;
}

SYSCALL_DEFINE1(rmdir, const char *, pathname)
{
	return do_rmdir(AT_FDCWD, getname(pathname));
}

noinline int do_unlinkat(int dfd, struct filename *name)
{
	struct nameidata nd = {};
	struct dentry *dentry;
	int error;

	if (IS_ERR(name))
		return PTR_ERR(name);
	dentry = lookup_victim(dfd, name, &nd, &error, false);
	if (dentry) {
		error = security_path_unlink(&nd.path, dentry);
		if (!error)
			error = vfs_unlink(NULL, nd.path.dentry->d_inode, dentry, NULL);
		dput(dentry);
		mutex_unlock(&nd.path.dentry->d_inode->i_rwsem);
		mnt_drop_write(nd.path.mnt);
	}
	terminate_walk(&nd);
	putname(name);
	return error;
}

SYSCALL_DEFINE3(unlinkat, int, dfd, const char *, pathname, int, flag)
{
	if ((flag & ~AT_REMOVEDIR) != 0)
		return -EINVAL;
	if (flag & AT_REMOVEDIR)
		return do_rmdir(dfd, getname(pathname));
	return do_unlinkat(dfd, getname(pathname));
}

SYSCALL_DEFINE1(unlink, const char *, pathname)
{
	return do_unlinkat(AT_FDCWD, getname(pathname));
}

/* ---- rename ---- */
static notrace bool is_ancestor(struct dentry *a, struct dentry *d)
{
	for (; d != d->d_parent; d = d->d_parent)
		if (d == a)
			return true;
	return d == a;
}

noinline int vfs_rename(struct renamedata *rd)
{
	struct inode *old_dir = rd->old_dir, *new_dir = rd->new_dir;
	struct dentry *old_dentry = rd->old_dentry, *new_dentry = rd->new_dentry;
	unsigned int flags = rd->flags;
	bool is_dir = d_is_dir(old_dentry);
	char old_name_buf[NAME_MAX + 1];
	struct inode *target;
	struct qstr old_name;
	int error;

	if (old_dentry->d_inode == new_dentry->d_inode)
		return 0;
	error = may_delete(old_dir, old_dentry, is_dir);
	if (error)
		return error;
	if (!new_dentry->d_inode)
		error = may_create(new_dir);
	else
		error = may_delete(new_dir, new_dentry, is_dir);
	if (error)
		return error;
	if (!old_dir->i_op->rename)
		return -EPERM;
	error = security_inode_rename(old_dir, old_dentry, new_dir, new_dentry, flags);
	if (error)
		return error;
	if (is_ancestor(old_dentry, new_dentry->d_parent))
		return -EINVAL;
	if (d_mountpoint(old_dentry) || d_mountpoint(new_dentry))
		return -EBUSY;
	/* the old name, for IN_MOVED_FROM (6.1: take_dentry_name_snapshot) */
	memcpy(old_name_buf, old_dentry->d_name.name, old_dentry->d_name.len + 1);
	old_name.hash_len = old_dentry->d_name.hash_len;
	old_name.name = (const unsigned char *)old_name_buf;
	error = old_dir->i_op->rename(old_dir, old_dentry, new_dir, new_dentry, flags);
	if (error)
		return error;
	target = new_dentry->d_inode;
	if (target) {
		ihold(target);	/* (6.1 holds it locked across the rename) */
		if (is_dir)
			target->i_flags |= S_DEAD;
		d_delete(new_dentry);
	}
	d_move(old_dentry, new_dentry);
	fsnotify_move(old_dir, new_dir, &old_name, is_dir, target, old_dentry);
	if (target)
		iput(target);
	return 0;
}

/* A rename's two parent directories locked: the rename mutex first (one rename at a time
 * changes the tree's shape), then the two in address order (6.1 orders them by ancestry, its
 * trap the ancestor it returns; do_renameat2 checks ancestry itself here: NULL) */
noinline struct dentry *lock_rename(struct dentry *p1, struct dentry *p2)
{
	struct inode *a = p1->d_inode, *b = p2->d_inode;

	mutex_lock(&rename_mutex);
	if (a == b) {
		mutex_lock(&a->i_rwsem);
	} else if (a < b) {
		mutex_lock(&a->i_rwsem);
		mutex_lock(&b->i_rwsem);
	} else {
		mutex_lock(&b->i_rwsem);
		mutex_lock(&a->i_rwsem);
	}
	return NULL;
}

noinline void unlock_rename(struct dentry *p1, struct dentry *p2)
{
	mutex_unlock(&p1->d_inode->i_rwsem);
	if (p1->d_inode != p2->d_inode)
		mutex_unlock(&p2->d_inode->i_rwsem);
	mutex_unlock(&rename_mutex);
}

noinline int do_renameat2(int olddfd, struct filename *from, int newdfd, struct filename *to, unsigned int flags)
{
	struct nameidata ond = {}, nnd = {};
	struct dentry *old_dentry = NULL, *new_dentry = NULL;
	struct renamedata rd;
	struct inode *a, *b;
	int error;

	if (IS_ERR(from) || IS_ERR(to)) {
		error = IS_ERR(from) ? PTR_ERR(from) : PTR_ERR(to);
		goto put_names;
	}
	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) {
		error = -EINVAL;
		goto put_names;
	}
	if (flags & (RENAME_EXCHANGE | RENAME_WHITEOUT)) {
		error = (flags & RENAME_EXCHANGE) && (flags & RENAME_NOREPLACE) ? -EINVAL : -EINVAL;
		goto put_names;
	}
	ond.dfd = olddfd;
	ond.name = from;
	nnd.dfd = newdfd;
	nnd.name = to;
	error = __filename_parentat(&ond, 0);
	if (error)
		goto exit1;
	error = __filename_parentat(&nnd, 0);
	if (error)
		goto exit1;
	error = -EXDEV;
	if (ond.path.mnt != nnd.path.mnt)
		goto exit1;
	error = -EBUSY;
	if (ond.last_type != LAST_NORM)
		goto exit1;
	if (nnd.last_type != LAST_NORM)
		goto exit1;
	error = mnt_want_write(ond.path.mnt);
	if (error)
		goto exit1;
	lock_rename(nnd.path.dentry, ond.path.dentry);
	a = ond.path.dentry->d_inode;
	b = nnd.path.dentry->d_inode;
	old_dentry = lookup_one_qstr_excl(&ond.last, ond.path.dentry, 0);
	error = PTR_ERR(old_dentry);
	if (IS_ERR(old_dentry)) {
		old_dentry = NULL;
		goto exit_lock;
	}
	error = -ENOENT;
	if (!old_dentry->d_inode)
		goto exit_lock;
	new_dentry = lookup_one_qstr_excl(&nnd.last, nnd.path.dentry, 0);
	error = PTR_ERR(new_dentry);
	if (IS_ERR(new_dentry)) {
		new_dentry = NULL;
		goto exit_lock;
	}
	error = -EEXIST;
	if ((flags & RENAME_NOREPLACE) && new_dentry->d_inode)
		goto exit_lock;
	error = -ENOTDIR;
	if (!d_is_dir(old_dentry) && (ond.last.name[ond.last.len] || nnd.last.name[nnd.last.len]))
		goto exit_lock;
	error = -EINVAL;	/* source is an ancestor of the target */
	if (is_ancestor(old_dentry, nnd.path.dentry))
		goto exit_lock;
	error = -ENOTEMPTY;	/* target is an ancestor of the source */
	if (is_ancestor(new_dentry, ond.path.dentry))
		goto exit_lock;
	error = security_path_rename(&ond.path, old_dentry, &nnd.path, new_dentry, flags);
	if (error)
		goto exit_lock;
	rd.old_mnt_userns = rd.new_mnt_userns = &init_user_ns;
	rd.old_dir = a;
	rd.old_dentry = old_dentry;
	rd.new_dir = b;
	rd.new_dentry = new_dentry;
	rd.delegated_inode = NULL;
	rd.flags = flags;
	error = vfs_rename(&rd);
exit_lock:
	if (new_dentry)
		dput(new_dentry);
	if (old_dentry)
		dput(old_dentry);
	unlock_rename(nnd.path.dentry, ond.path.dentry);
	mnt_drop_write(ond.path.mnt);
exit1:
	terminate_walk(&ond);
	terminate_walk(&nnd);
put_names:
	putname(from);
	putname(to);
	return error;
}

SYSCALL_DEFINE5(renameat2, int, olddfd, const char *, oldname, int, newdfd, const char *, newname, unsigned int, flags)
{
	return do_renameat2(olddfd, getname(oldname), newdfd, getname(newname), flags);
}

SYSCALL_DEFINE4(renameat, int, olddfd, const char *, oldname, int, newdfd, const char *, newname)
{
	return do_renameat2(olddfd, getname(oldname), newdfd, getname(newname), 0);
}

SYSCALL_DEFINE2(rename, const char *, oldname, const char *, newname)
{
	return do_renameat2(AT_FDCWD, getname(oldname), AT_FDCWD, getname(newname), 0);
}

/* ---- readlink ---- */
noinline int readlink_copy(char *buffer, int buflen, const char *link)
{
	int len = PTR_ERR(link);

	if (IS_ERR(link))
		return len;
	len = strlen(link);
	if (len > buflen)
		len = buflen;
	if (copy_to_user(buffer, link, len))
		len = -EFAULT;
	return len;
}

noinline int vfs_readlink(struct dentry *dentry, char *buffer, int buflen)
{
	struct inode *inode = dentry->d_inode;
	char *buf;
	int res;

	if (inode->i_op && inode->i_op->readlink)	/* its own (procfs' magic links: d_path) */
		return inode->i_op->readlink(dentry, buffer, buflen);
	if (!S_ISLNK(inode->i_mode))
		return -EINVAL;
	if (inode->i_link)
		return readlink_copy(buffer, buflen, inode->i_link);
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	res = readlink_copy(buffer, buflen, inode->i_op->get_link(dentry, inode, buf));
	kfree(buf);
	return res;
}

noinline int do_readlinkat(int dfd, const char *pathname, char *buf, int bufsiz)
{
	struct path path;
	int error, empty = 0;

	if (bufsiz <= 0)
		return -EINVAL;
	error = user_path_at_empty(dfd, pathname, LOOKUP_EMPTY, &path, &empty);
	if (error)
		return error;
	error = security_inode_readlink(path.dentry);
	if (!error) {
		touch_atime(&path);
		error = vfs_readlink(path.dentry, buf, bufsiz);
	}
	if (error == -EINVAL && empty)
		error = -ENOENT;
	path_put(&path);
	return error;
}

SYSCALL_DEFINE4(readlinkat, int, dfd, const char *, pathname, char *, buf, int, bufsiz)
{
	return do_readlinkat(dfd, pathname, buf, bufsiz);
}

SYSCALL_DEFINE3(readlink, const char *, path, char *, buf, int, bufsiz)
{
	return do_readlinkat(AT_FDCWD, path, buf, bufsiz);
}

/* ---- for the kernel's own boot-time tree (init/do_mounts, initramfs) ---- */
int __init init_mkdir(const char *pathname, umode_t mode)
{
	struct path path;
	struct dentry *dentry = kern_path_create(AT_FDCWD, pathname, &path, LOOKUP_DIRECTORY);
	int error;

	if (IS_ERR(dentry))
		return PTR_ERR(dentry);
	error = vfs_mkdir(NULL, path.dentry->d_inode, dentry, mode);
	done_path_create(&path, dentry);
	return error;
}

int __init init_mknod(const char *filename, umode_t mode, unsigned int dev)
{
	struct path path;
	struct dentry *dentry = kern_path_create(AT_FDCWD, filename, &path, 0);
	int error;

	if (IS_ERR(dentry))
		return PTR_ERR(dentry);
	error = vfs_mknod(NULL, path.dentry->d_inode, dentry, mode, dev);
	done_path_create(&path, dentry);
	return error;
}

int __init init_symlink(const char *oldname, const char *newname)
{
	struct path path;
	struct dentry *dentry = kern_path_create(AT_FDCWD, newname, &path, 0);
	int error;

	if (IS_ERR(dentry))
		return PTR_ERR(dentry);
	error = vfs_symlink(NULL, path.dentry->d_inode, dentry, oldname);
	done_path_create(&path, dentry);
	return error;
}

void __init namei_init(void)
{
	names_cachep = kmem_cache_create("names_cache", PATH_MAX, 0, SLAB_HWCACHE_ALIGN | SLAB_PANIC, NULL);
}
