/*
 * Mounts (Linux's fs/namespace.c): a tree of struct mount, one namespace.  A dentry that has
 * something mounted on it is DCACHE_MOUNTED; lookup_mnt() finds the mount on (mnt, dentry)
 * in the mount hash.  /proc/mounts and /proc/PID/mountinfo list the tree in mount order.
 * mount(2) makes a new mount, a bind mount (MS_BIND, MS_REC), a remount, a move, or changes
 * a propagation type (pnode.c); umount2(2) takes a mount out (MNT_DETACH: lazily, the mount
 * lives on until its last user goes).  A mount's count: one for the namespace's tree, one
 * for each mount on it, each path held on it (open files, cwds).
 * open_tree(2) gives an O_PATH file of a mount's object; not its OPEN_TREE_CLONE (a detached
 * copy of the tree: no anonymous mount namespaces here), EINVAL as for a flag it does not know.
 * pivot_root swaps the caller's root mount for another.  The new mount API (fsopen, fsmount,
 * move_mount, ...) is not here (ENOSYS).
 */
#include "../include/fs.h"
#include "../include/cred.h"
#include "../include/syscalls.h"
#include "../include/nsproxy.h"
#include "../include/session.h"
#include "../include/fsnotify.h"

/* mount(2)'s flags (include/uapi/linux/mount.h) */
#define MS_RDONLY	1
#define MS_NOSUID	2
#define MS_NODEV	4
#define MS_NOEXEC	8
#define MS_REMOUNT	32
#define MS_NOSYMFOLLOW	256
#define MS_NOATIME	1024
#define MS_NODIRATIME	2048
#define MS_BIND		4096
#define MS_MOVE		8192
#define MS_REC		16384
#define MS_SILENT	32768
#define MS_UNBINDABLE	(1 << 17)
#define MS_PRIVATE	(1 << 18)
#define MS_SLAVE	(1 << 19)
#define MS_SHARED	(1 << 20)
#define MS_RELATIME	(1 << 21)
#define MS_STRICTATIME	(1 << 24)
#define MS_NOUSER	(1U << 31)
#define MS_MGC_VAL	0xC0ED0000
#define MS_MGC_MSK	0xffff0000
#define MS_RMT_MASK	(SB_RDONLY | SB_SYNCHRONOUS | SB_MANDLOCK | SB_I_VERSION | SB_LAZYTIME)
/* umount2(2)'s */
#define MNT_FORCE	1
#define MNT_DETACH	2
#define MNT_EXPIRE	4
#define UMOUNT_NOFOLLOW	8
#define UMOUNT_UNUSED	0x80000000	/* the flag a caller may use to test for the others */

#define M_HASH 64
static struct list_head mount_hashtable[M_HASH];
/* the namespace (6.1's init_mount_tree() allocates it; its number is given with its root) */
struct mnt_namespace init_mnt_ns = {
	.ns = { .ops = &mntns_operations, .count = 1 },
	.list = LIST_HEAD_INIT(init_mnt_ns.list),
};
static spinlock_t mount_lock;
static DEFINE_MUTEX(namespace_sem);	/* changes of the tree (6.1's namespace_sem, a rwsem) */
static int mnt_id_next = 20;
struct vfsmount *root_mnt;

static notrace struct list_head *m_hash(struct vfsmount *mnt, struct dentry *dentry)
{
	return &mount_hashtable[(((u64)mnt >> 6) + ((u64)dentry >> 6)) % M_HASH];
}

noinline struct vfsmount *mntget(struct vfsmount *mnt)
{
	if (mnt)
		__atomic_add_fetch(&real_mount(mnt)->mnt_count, 1, __ATOMIC_RELAXED);
	return mnt;
}

static void cleanup_mnt(struct mount *mnt);
static void umount_tree(struct mount *mnt);

/* A mount in a namespace keeps a reference of the tree's (6.1's fast path: mnt_ns set); one
 * taken out (MNT_UMOUNT) ends with its last reference */
static noinline void mntput_no_expire(struct mount *mnt)
{
	if (__atomic_sub_fetch(&mnt->mnt_count, 1, __ATOMIC_ACQ_REL) == 0 && (mnt->mnt.mnt_flags & MNT_UMOUNT))
		cleanup_mnt(mnt);
}

/* a use of the mount: an umount2(MNT_EXPIRE) mark goes */
noinline void mntput(struct vfsmount *mnt)
{
	if (mnt) {
		struct mount *m = real_mount(mnt);

		if (unlikely(m->mnt_expiry_mark))
			WRITE_ONCE(m->mnt_expiry_mark, 0);
		mntput_no_expire(m);
	}
}

noinline bool __mnt_is_readonly(struct vfsmount *mnt)
{
	return (mnt->mnt_flags & MNT_READONLY) || (mnt->mnt_sb->s_flags & SB_RDONLY);
}

/*
 * Write access to a mount (6.1's mnt_want_write family): counted in mnt_writers, refused on a
 * read-only mount or super block (EROFS).  Every change of a file system's tree or an inode
 * takes it around the change; an open for writing holds it until its file's last fput
 * (FMODE_WRITER).  (No freezing: sb_start_write() has nothing to wait for.)
 */
noinline int __mnt_want_write(struct vfsmount *m)
{
	struct mount *mnt = real_mount(m);
	int ret = 0;

	preempt_disable();
	__atomic_add_fetch(&mnt->mnt_writers, 1, __ATOMIC_SEQ_CST);	/* mnt_inc_writers() */
	if (__mnt_is_readonly(m)) {	/* mnt_is_readonly() */
		__atomic_sub_fetch(&mnt->mnt_writers, 1, __ATOMIC_RELAXED);
		ret = -EROFS;
	}
	preempt_enable();
	return ret;
}

noinline int mnt_want_write(struct vfsmount *m)
{
	return __mnt_want_write(m);
}

noinline void __mnt_drop_write(struct vfsmount *mnt)
{
	preempt_disable();
	__atomic_sub_fetch(&real_mount(mnt)->mnt_writers, 1, __ATOMIC_RELEASE);	/* mnt_dec_writers() */
	preempt_enable();
}

noinline void mnt_drop_write(struct vfsmount *mnt)
{
	__mnt_drop_write(mnt);
}

/* A file open for writing holds its access already (a mount made read-only since: EROFS) */
noinline int __mnt_want_write_file(struct file *file)
{
	if (file->f_mode & FMODE_WRITER)
		return __mnt_is_readonly(file->f_path.mnt) ? -EROFS : 0;
	return __mnt_want_write(file->f_path.mnt);
}

noinline void __mnt_drop_write_file(struct file *file)
{
	if (!(file->f_mode & FMODE_WRITER))
		__mnt_drop_write(file->f_path.mnt);
}

/* (6.1: with the super block's freeze protection, sb_start_write: no freezing here) */
noinline int mnt_want_write_file(struct file *file)
{
	return __mnt_want_write_file(file);
}

noinline void mnt_drop_write_file(struct file *file)
{
	__mnt_drop_write_file(file);
}

noinline struct mount *__lookup_mnt(struct vfsmount *mnt, struct dentry *dentry)
{
	struct mount *p;

	list_for_each_entry(p, m_hash(mnt, dentry), mnt_hash)
		if (&p->mnt_parent->mnt == mnt && p->mnt_mountpoint == dentry)
			return p;
	return NULL;
}

/* The mount on path (the last one mounted there), with a reference; NULL: none. */
noinline struct vfsmount *lookup_mnt(const struct path *path)
{
	struct mount *child, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&mount_lock, flags);
	list_for_each_entry(child, m_hash(path->mnt, path->dentry), mnt_hash)
		if (&child->mnt_parent->mnt == path->mnt && child->mnt_mountpoint == path->dentry)
			found = child;
	if (found)
		mntget(&found->mnt);
	spin_unlock_irqrestore(&mount_lock, flags);
	return found ? &found->mnt : NULL;
}

/* Is (mnt, dentry) reachable from root: up the mounts to root's, then below its dentry? */
noinline bool is_path_reachable(struct mount *mnt, struct dentry *dentry, const struct path *root)
{
	while (&mnt->mnt != root->mnt && mnt->mnt_parent != mnt) {	/* mnt_has_parent() */
		dentry = mnt->mnt_mountpoint;
		mnt = mnt->mnt_parent;
	}
	return &mnt->mnt == root->mnt && is_subdir(dentry, root->dentry);
}

noinline bool path_is_under(const struct path *path1, const struct path *path2)
{
	unsigned long flags;
	bool res;

	spin_lock_irqsave(&mount_lock, flags);
	res = is_path_reachable(real_mount(path1->mnt), path1->dentry, path2);
	spin_unlock_irqrestore(&mount_lock, flags);
	return res;
}

static notrace void mnt_init_lists(struct mount *mnt)
{
	INIT_LIST_HEAD(&mnt->mnt_hash);
	INIT_LIST_HEAD(&mnt->mnt_mounts);
	INIT_LIST_HEAD(&mnt->mnt_child);
	INIT_LIST_HEAD(&mnt->mnt_list);
	INIT_LIST_HEAD(&mnt->mnt_share);
	INIT_LIST_HEAD(&mnt->mnt_slave_list);
	INIT_LIST_HEAD(&mnt->mnt_slave);
}

/* A mount of root (of sb), attached nowhere yet, with one reference: its caller's */
static noinline struct mount *alloc_vfsmnt(const char *name, struct dentry *root)
{
	struct mount *mnt = kzalloc(sizeof(*mnt), GFP_KERNEL);

	if (!mnt)
		return NULL;
	mnt->mnt_devname = kstrdup(name, GFP_KERNEL);
	if (!mnt->mnt_devname) {
		kfree(mnt);
		return NULL;
	}
	mnt->mnt_id = mnt_id_next++;
	mnt->mnt_count = 1;
	mnt->mnt.mnt_sb = root->d_sb;
	mnt->mnt.mnt_root = dget(root);
	mnt->mnt_parent = mnt;
	mnt->mnt_mountpoint = mnt->mnt.mnt_root;
	mnt_init_lists(mnt);
	list_add_tail(&mnt->mnt_instance, &root->d_sb->s_mounts);
	return mnt;
}

/* The mount of a new super block (vfs_get_tree()'s): the super block's first active user */
noinline struct vfsmount *vfs_create_mount(struct fs_context *fc)
{
	struct mount *mnt = alloc_vfsmnt(fc->source ? fc->source : "none", fc->root);

	if (!mnt)
		return (void *)(long)-ENOMEM;
	__atomic_add_fetch(&fc->root->d_sb->s_active, 1, __ATOMIC_RELAXED);
	return &mnt->mnt;
}

noinline struct vfsmount *vfs_kern_mount(struct file_system_type *type, int flags, const char *name, void *data)
{
	struct vfsmount *mnt;
	struct fs_context *fc;
	int err;

	if (!type)
		return (void *)(long)-ENODEV;
	fc = fs_context_for_mount(type, flags & SB_RDONLY);
	if (IS_ERR(fc))
		return (void *)fc;
	fc->source = name;
	fc->fs_private = data;
	err = vfs_get_tree(fc);
	mnt = err ? (void *)(long)err : vfs_create_mount(fc);
	put_fs_context(fc);
	if (!IS_ERR(mnt))
		mnt->mnt_flags |= (flags & SB_RDONLY) ? MNT_READONLY | MNT_RELATIME : MNT_RELATIME;
	return mnt;
}

/* A file system's internal mount (pipefs, sockfs, anon_inodefs): none of a user mount's flags */
noinline struct vfsmount *kern_mount(struct file_system_type *type)
{
	struct vfsmount *mnt = vfs_kern_mount(type, 0, type->name, NULL);

	if (!IS_ERR(mnt))
		mnt->mnt_flags = MNT_INTERNAL;
	return mnt;
}

/* Is a mount in the namespace (not an internal one, nor one taken out)? */
static inline bool check_mnt(struct mount *mnt)
{
	return !list_empty(&mnt->mnt_list);
}

static inline bool mnt_has_parent(struct mount *mnt)
{
	return mnt != mnt->mnt_parent;
}

/* child goes on (mnt, dentry): it holds a reference of its parent and the mount point */
static inline void mnt_set_mountpoint(struct mount *mnt, struct dentry *dentry, struct mount *child_mnt)
{
	mntget(&mnt->mnt);
	child_mnt->mnt_mountpoint = dget(dentry);
	child_mnt->mnt_parent = mnt;
	dentry->d_flags |= DCACHE_MOUNTED;
}

/* ... and is found there by lookup_mnt() (mount_lock held) */
static inline void attach_mnt(struct mount *mnt, struct mount *parent, struct dentry *dentry)
{
	mnt_set_mountpoint(parent, dentry, mnt);
	list_add_tail(&mnt->mnt_hash, m_hash(&parent->mnt, dentry));
	list_add_tail(&mnt->mnt_child, &parent->mnt_mounts);
}

/* Is anything mounted on dentry, on any mount of its file system? */
static notrace bool dentry_has_mounts(struct dentry *dentry)
{
	struct mount *p;
	int i;

	for (i = 0; i < M_HASH; i++)
		list_for_each_entry(p, &mount_hashtable[i], mnt_hash)
			if (p->mnt_mountpoint == dentry)
				return true;
	return false;
}

/* mnt leaves its mount point (mount_lock held): its parent's reference and the mount point's
 * are the caller's to drop (put_mountpoint's DCACHE_MOUNTED goes with the last mount there) */
static noinline struct dentry *unhash_mnt(struct mount *mnt)
{
	struct dentry *mp = mnt->mnt_mountpoint;

	mnt->mnt_parent = mnt;
	mnt->mnt_mountpoint = mnt->mnt.mnt_root;
	list_del_init(&mnt->mnt_child);
	list_del_init(&mnt->mnt_hash);
	if (!dentry_has_mounts(mp))
		mp->d_flags &= ~DCACHE_MOUNTED;
	return mp;
}

/* The mount after p in a walk of the tree at root, parents first; NULL: none */
static notrace struct mount *next_mnt(struct mount *p, struct mount *root)
{
	struct list_head *next = p->mnt_mounts.next;

	if (next == &p->mnt_mounts) {
		while (1) {
			if (p == root)
				return NULL;
			next = p->mnt_child.next;
			if (next != &p->mnt_parent->mnt_mounts)
				break;
			p = p->mnt_parent;
		}
	}
	return list_entry(next, struct mount, mnt_child);
}

/* the last mount of the tree at p in next_mnt()'s walk (to go past the tree) */
static notrace struct mount *skip_mnt_tree(struct mount *p)
{
	struct list_head *prev = p->mnt_mounts.prev;

	while (prev != &p->mnt_mounts) {
		p = list_entry(prev, struct mount, mnt_child);
		prev = p->mnt_mounts.prev;
	}
	return p;
}

/* A tree of mounts (mnt and those below it) goes into the namespace */
static noinline void commit_tree(struct mount *mnt)
{
	struct mount *m;

	for (m = mnt; m; m = next_mnt(m, mnt))
		list_add_tail(&m->mnt_list, &init_mnt_ns.list);
}

/*
 * source_mnt's tree goes on (dest_mnt, dentry): a new tree into the namespace, or (moving) one
 * of its own from where it was.  (6.1 also propagates the new mounts to the peers and slaves of
 * dest_mnt: the model keeps propagation types only, pnode.c.)
 */
noinline int attach_recursive_mnt(struct mount *source_mnt, struct mount *dest_mnt, struct dentry *dentry,
				  bool moving)
{
	unsigned long flags;

	spin_lock_irqsave(&mount_lock, flags);
	attach_mnt(source_mnt, dest_mnt, dentry);
	spin_unlock_irqrestore(&mount_lock, flags);
	if (!moving)
		commit_tree(source_mnt);
	return 0;
}

/* (The boot tree's mounts: attach_recursive_mnt's work for a new mount on where.) */
notrace noinline int do_add_mount_at(struct vfsmount *newm, const struct path *where)
{
	if (!d_is_dir(where->dentry) && S_ISDIR(newm->mnt_root->d_inode->i_mode))
		return -ENOTDIR;
	return attach_recursive_mnt(real_mount(newm), real_mount(where->mnt), where->dentry, false);
}

/* Another mount of old's file system, of its directory root (a bind mount), attached nowhere
 * yet: in old's peer group, a slave of its master (pnode.c) */
noinline struct vfsmount *clone_mnt(struct vfsmount *old, struct dentry *root)
{
	struct mount *o = real_mount(old), *mnt = alloc_vfsmnt(o->mnt_devname, root);

	if (!mnt)
		return (void *)(long)-ENOMEM;
	mnt->mnt.mnt_flags = old->mnt_flags & ~(MNT_INTERNAL | MNT_UMOUNT);
	__atomic_add_fetch(&root->d_sb->s_active, 1, __ATOMIC_RELAXED);
	mnt_propagation_clone(mnt, o);
	return &mnt->mnt;
}

/* A copy of the tree of mnt's from dentry down (MS_REC): each mount below dentry cloned onto
 * its parent's copy; unbindable ones (and what is on them) left out */
noinline struct mount *copy_tree(struct mount *mnt, struct dentry *dentry)
{
	struct mount *res, *p, *q, *r, *parent;
	struct vfsmount *copy = clone_mnt(&mnt->mnt, dentry);
	unsigned long flags;

	if (IS_ERR(copy))
		return (void *)copy;
	res = q = real_mount(copy);
	p = mnt;
	list_for_each_entry(r, &mnt->mnt_mounts, mnt_child) {
		struct mount *s;

		if (!is_subdir(r->mnt_mountpoint, dentry))
			continue;
		for (s = r; s; s = next_mnt(s, r)) {
			if (s->mnt.mnt_flags & MNT_UNBINDABLE) {
				s = skip_mnt_tree(s);
				continue;
			}
			while (p != s->mnt_parent) {
				p = p->mnt_parent;
				q = q->mnt_parent;
			}
			p = s;
			parent = q;
			copy = clone_mnt(&p->mnt, p->mnt.mnt_root);
			if (IS_ERR(copy)) {
				umount_tree(res);
				return (void *)copy;
			}
			q = real_mount(copy);
			spin_lock_irqsave(&mount_lock, flags);
			attach_mnt(q, parent, p->mnt_mountpoint);
			spin_unlock_irqrestore(&mount_lock, flags);
		}
	}
	return res;
}

/* The namespace's root: rootfs ("/"), its own parent (init_mount_tree(): alloc_mnt_ns()'s
 * number) */
notrace void mnt_set_root(struct vfsmount *mnt)
{
	if (ns_alloc_inum(&init_mnt_ns.ns))
		panic("Can't allocate initial namespace");
	init_mnt_ns.root = real_mount(mnt);
	root_mnt = mnt;
	list_add_tail(&real_mount(mnt)->mnt_list, &init_mnt_ns.list);
}

/* The root of a tree of its own (the host view): listed, attached nowhere. */
notrace void mnt_add_tree(struct vfsmount *mnt)
{
	list_add_tail(&real_mount(mnt)->mnt_list, &init_mnt_ns.list);
}

static notrace void seq_escape_path(struct seq_file *m, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
			seq_printf(m, "\\%03o", (u8)*s);
		else
			seq_putc(m, *s);
	}
}

/* the mount's own flags, after "rw"/"ro" (show_mnt_opts) */
static notrace void show_mnt_opts(struct seq_file *m, struct vfsmount *mnt)
{
	static const struct { int flag; const char *str; } mnt_opts[] = {
		{ MNT_NOSUID, ",nosuid" }, { MNT_NODEV, ",nodev" }, { MNT_NOEXEC, ",noexec" },
		{ MNT_NOATIME, ",noatime" }, { MNT_NODIRATIME, ",nodiratime" }, { MNT_RELATIME, ",relatime" },
		{ MNT_NOSYMFOLLOW, ",nosymfollow" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mnt_opts); i++)
		if (mnt->mnt_flags & mnt_opts[i].flag)
			seq_puts(m, mnt_opts[i].str);
}

/* the super block's flags (show_sb_opts) */
static notrace void show_sb_opts(struct seq_file *m, struct super_block *sb)
{
	static const struct { int flag; const char *str; } fs_opts[] = {
		{ SB_SYNCHRONOUS, ",sync" }, { SB_DIRSYNC, ",dirsync" }, { SB_MANDLOCK, ",mand" },
		{ SB_LAZYTIME, ",lazytime" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fs_opts); i++)
		if (sb->s_flags & fs_opts[i].flag)
			seq_puts(m, fs_opts[i].str);
}

/* The mount point of mnt as the reader's root sees it, into buf's end; NULL: not under it */
static notrace char *mount_point_name(struct mount *mnt, const struct path *root, char *buf, int len)
{
	extern int prepend_path(const struct path *, const struct path *, char **, int *);
	struct path p = { &mnt->mnt, mnt->mnt.mnt_root };
	char *name = buf + len - 1;

	*name = 0;
	len--;
	if (prepend_path(&p, root, &name, &len) != 0)
		return NULL;
	return name;
}

/* A mount's root in its file system (a bind mount's directory), into buf's end (6.1's
 * dentry_path_raw) */
static notrace char *mount_root_name(struct dentry *dentry, char *buf, int len)
{
	char *p = buf + len - 1;

	*p = 0;
	if (dentry == dentry->d_sb->s_root)
		*--p = '/';
	for (; dentry != dentry->d_sb->s_root && dentry->d_parent != dentry; dentry = dentry->d_parent) {
		int n = dentry->d_name.len;

		if (p - buf < n + 1)
			return NULL;
		p -= n;
		memcpy(p, dentry->d_name.name, n);
		*--p = '/';
	}
	return p;
}

/* show(m, mount, its mount point's name, PATH_MAX / 2 bytes of scratch) for each mount under
 * the reader's root, in mount order (the walk of 6.1's mounts_open_common files) */
static notrace int show_each_mount(struct seq_file *m, void (*show)(struct seq_file *, struct mount *, const char *, char *))
{
	struct mount *mnt;
	struct path root;
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	get_fs_root(current->fs, &root);
	mutex_lock(&namespace_sem);
	list_for_each_entry(mnt, &init_mnt_ns.list, mnt_list) {
		char *name = mount_point_name(mnt, &root, buf, PATH_MAX / 2);

		if (name)	/* (else not under the reader's root) */
			show(m, mnt, name, buf + PATH_MAX / 2);
	}
	mutex_unlock(&namespace_sem);
	path_put(&root);
	kfree(buf);
	return 0;
}

/* /proc/mounts: "devname mountpoint type options 0 0" */
static notrace void show_vfsmnt(struct seq_file *m, struct mount *mnt, const char *name, char *scratch)
{
	struct super_block *sb = mnt->mnt.mnt_sb;

	seq_escape_path(m, mnt->mnt_devname ? mnt->mnt_devname : "none");
	seq_putc(m, ' ');
	seq_escape_path(m, name);
	seq_printf(m, " %s %s", sb->s_type->name, __mnt_is_readonly(&mnt->mnt) ? "ro" : "rw");
	show_sb_opts(m, sb);
	show_mnt_opts(m, &mnt->mnt);
	if (sb->s_op && sb->s_op->show_options)
		sb->s_op->show_options(m, mnt->mnt.mnt_root);
	seq_puts(m, " 0 0\n");
}

notrace int show_mounts(struct seq_file *m, void *v)
{
	return show_each_mount(m, show_vfsmnt);
}

/*
 * /proc/PID/mountinfo: "id parent major:minor root mountpoint options [shared:N] [master:N]
 * [unbindable] - type source superoptions" (6.1's propagate_from:N, for a master the reader
 * cannot see, is not shown).
 */
static notrace void show_mountinfo_one(struct seq_file *m, struct mount *r, const char *name, char *scratch)
{
	struct super_block *sb = r->mnt.mnt_sb;
	char *in_sb = mount_root_name(r->mnt.mnt_root, scratch, PATH_MAX / 2);

	if (!in_sb)
		return;
	seq_printf(m, "%d %d %u:%u ", r->mnt_id, r->mnt_parent->mnt_id, MAJOR(sb->s_dev), MINOR(sb->s_dev));
	seq_escape_path(m, in_sb);
	seq_putc(m, ' ');
	seq_escape_path(m, name);
	seq_puts(m, (r->mnt.mnt_flags & MNT_READONLY) ? " ro" : " rw");
	show_mnt_opts(m, &r->mnt);
	if (r->mnt.mnt_flags & MNT_SHARED)
		seq_printf(m, " shared:%d", r->mnt_group_id);
	if (r->mnt_master)
		seq_printf(m, " master:%d", r->mnt_master->mnt_group_id);
	if (r->mnt.mnt_flags & MNT_UNBINDABLE)
		seq_puts(m, " unbindable");
	seq_printf(m, " - %s ", sb->s_type->name);
	seq_escape_path(m, r->mnt_devname ? r->mnt_devname : "none");
	seq_puts(m, (sb->s_flags & SB_RDONLY) ? " ro" : " rw");
	show_sb_opts(m, sb);
	if (sb->s_op && sb->s_op->show_options)
		sb->s_op->show_options(m, r->mnt.mnt_root);
	seq_putc(m, '\n');
}

notrace int show_mountinfo(struct seq_file *m, void *v)
{
	return show_each_mount(m, show_mountinfo_one);
}

/* ---- umount ---- */

/* mnt's last reference is gone (it was taken out of the namespace): what is still mounted on
 * it (a lazy umount's tree, kept connected until now) goes too, then its file system's use */
static noinline void cleanup_mnt(struct mount *mnt)
{
	struct mount *p, *n;
	struct dentry *mp;
	unsigned long flags;

	list_for_each_entry_safe(p, n, &mnt->mnt_mounts, mnt_child) {
		spin_lock_irqsave(&mount_lock, flags);
		mp = unhash_mnt(p);
		spin_unlock_irqrestore(&mount_lock, flags);
		dput(mp);
		mntput(&p->mnt);	/* the tree's reference it kept */
	}
	list_del(&mnt->mnt_instance);
	kfree(mnt->mnt_devname);
	dput(mnt->mnt.mnt_root);
	deactivate_super(mnt->mnt.mnt_sb);
	kfree(mnt);
}

/*
 * mnt and every mount below it leave the namespace (namespace_sem held).  mnt leaves its mount
 * point and drops the tree's reference; the mounts below stay connected to it (a lazily
 * unmounted tree still works for who is in it) and go when it goes (cleanup_mnt).
 */
static noinline void umount_tree(struct mount *mnt)
{
	struct mount *parent = mnt->mnt_parent, *p;
	struct dentry *mp = NULL;
	unsigned long flags;

	mntget(&mnt->mnt);	/* (until the tree is taken apart: 6.1 puts at namespace_unlock) */
	/* each mount below gives back its reference of its parent but stays on it */
	for (p = mnt; p; p = next_mnt(p, mnt)) {
		p->mnt.mnt_flags |= MNT_UMOUNT;
		list_del_init(&p->mnt_list);
		change_mnt_propagation(p, MS_PRIVATE);
		if (p != mnt)
			mntput(&p->mnt_parent->mnt);
	}
	if (mnt_has_parent(mnt)) {
		spin_lock_irqsave(&mount_lock, flags);
		mp = unhash_mnt(mnt);	/* (umount_mnt) */
		spin_unlock_irqrestore(&mount_lock, flags);
		dput(mp);
		mntput(&parent->mnt);
	}
	mntput(&mnt->mnt);	/* the tree's reference */
	mntput(&mnt->mnt);
}

/* Is mnt in use: anything mounted on it, or more references than the tree's and the caller's
 * (refcnt)?  (6.1 asks the same of its peers' copies: none here, pnode.c) */
noinline int propagate_mount_busy(struct mount *mnt, int refcnt)
{
	return !list_empty(&mnt->mnt_mounts) || READ_ONCE(mnt->mnt_count) > refcnt;
}

static inline bool may_mount(void)
{
	return ns_capable(&init_user_ns, CAP_SYS_ADMIN);
}

/* umount of the caller's root: it is made read-only instead (do_umount_root) */
static inline int do_umount_root(struct super_block *sb)
{
	struct fs_context *fc;
	int ret = 0;

	if (!(sb->s_flags & SB_RDONLY)) {
		fc = fs_context_for_reconfigure(sb->s_root, SB_RDONLY, SB_RDONLY);
		if (IS_ERR(fc))
			return PTR_ERR(fc);
		ret = reconfigure_super(fc);
		put_fs_context(fc);
	}
	return ret;
}

static inline int do_umount(struct mount *mnt, int flags)
{
	struct super_block *sb = mnt->mnt.mnt_sb;
	int retval = 0;

	/* MNT_EXPIRE: a first call marks an unused mount, a second takes it if no one used it
	 * meanwhile (mntput clears the mark) */
	if (flags & MNT_EXPIRE) {
		if (&mnt->mnt == current->fs->root.mnt || flags & (MNT_FORCE | MNT_DETACH))
			return -EINVAL;
		if (READ_ONCE(mnt->mnt_count) != 2)
			return -EBUSY;
		if (!__atomic_exchange_n(&mnt->mnt_expiry_mark, 1, __ATOMIC_SEQ_CST))
			return -EAGAIN;
	}
	/* (MNT_FORCE: 6.1 calls the super block's umount_begin; none of the model's types has one) */
	if (&mnt->mnt == current->fs->root.mnt && !(flags & MNT_DETACH)) {
		if (!ns_capable(&init_user_ns, CAP_SYS_ADMIN))
			return -EPERM;
		return do_umount_root(sb);
	}
	mutex_lock(&namespace_sem);
	if (flags & MNT_DETACH) {
		if (!list_empty(&mnt->mnt_list))
			umount_tree(mnt);
	} else {
		retval = -EBUSY;
		if (!propagate_mount_busy(mnt, 2)) {
			if (!list_empty(&mnt->mnt_list))
				umount_tree(mnt);
			retval = 0;
		}
	}
	mutex_unlock(&namespace_sem);
	return retval;
}

static inline int can_umount(const struct path *path, int flags)
{
	struct mount *mnt = real_mount(path->mnt);

	if (!may_mount())
		return -EPERM;
	if (path->dentry != path->mnt->mnt_root)
		return -EINVAL;
	if (!check_mnt(mnt))
		return -EINVAL;
	if (flags & MNT_FORCE && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

/* path: the caller's reference, dropped here */
noinline int path_umount(struct path *path, int flags)
{
	struct mount *mnt = real_mount(path->mnt);
	int ret;

	ret = can_umount(path, flags);
	if (!ret)
		ret = do_umount(mnt, flags);
	/* we mustn't call path_put() as that would clear mnt_expiry_mark */
	dput(path->dentry);
	mntput_no_expire(mnt);
	return ret;
}

static inline int ksys_umount(const char *name, int flags)
{
	int lookup_flags = 0;	/* (6.1's LOOKUP_MOUNTPOINT: no automounts, no revalidation here) */
	struct path path;
	int ret;

	if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW))
		return -EINVAL;
	if (!(flags & UMOUNT_NOFOLLOW))
		lookup_flags |= LOOKUP_FOLLOW;
	ret = user_path_at_empty(AT_FDCWD, name, lookup_flags, &path, NULL);
	if (ret)
		return ret;
	return path_umount(&path, flags);
}

/* A session's process: its mounts are the host's (made there already); the emulated tree stays */
SYSCALL_DEFINE2(umount, char *, name, int, flags)
{
	if (current->session)
		return -ENOSYS;
	return ksys_umount(name, flags);
}

/* ---- mount ---- */

/* The mount to mount on at path: the one on top of what is mounted there (path moves to its
 * root); ENOENT for a directory removed */
noinline int lock_mount(struct path *path)
{
	struct vfsmount *mnt;

	for (;;) {
		if (d_unlinked(path->dentry))	/* (cant_mount) */
			return -ENOENT;
		mnt = lookup_mnt(path);
		if (!mnt)
			return 0;
		path_put(path);
		path->mnt = mnt;
		path->dentry = dget(mnt->mnt_root);
	}
}

/* mnt goes on mp's (parent, dentry) */
noinline int graft_tree(struct mount *mnt, struct mount *p, struct dentry *mp)
{
	if (mnt->mnt.mnt_sb->s_flags & SB_NOUSER)
		return -EINVAL;
	if (d_is_dir(mp) != d_is_dir(mnt->mnt.mnt_root))
		return -ENOTDIR;
	return attach_recursive_mnt(mnt, p, mp, false);
}

/* a new mount's flags: those of the per-mount ones a user may set */
static noinline int do_add_mount(struct mount *newmnt, const struct path *path, int mnt_flags)
{
	struct mount *parent = real_mount(path->mnt);

	if (unlikely(!check_mnt(parent)))
		return -EINVAL;
	/* Refuse the same filesystem on the same mount point */
	if (path->mnt->mnt_sb == newmnt->mnt.mnt_sb && path->mnt->mnt_root == path->dentry)
		return -EBUSY;
	if (S_ISLNK(newmnt->mnt.mnt_root->d_inode->i_mode))
		return -EINVAL;
	newmnt->mnt.mnt_flags = mnt_flags;
	return graft_tree(newmnt, parent, path->dentry);
}

static inline int do_new_mount_fc(struct fs_context *fc, struct path *mountpoint, int mnt_flags)
{
	struct vfsmount *mnt = vfs_create_mount(fc);
	int error;

	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	mutex_lock(&namespace_sem);
	error = lock_mount(mountpoint);
	if (!error)
		error = do_add_mount(real_mount(mnt), mountpoint, mnt_flags);
	mutex_unlock(&namespace_sem);
	if (error < 0) {
		real_mount(mnt)->mnt.mnt_flags |= MNT_UMOUNT;	/* (never in the tree: it ends here) */
		mntput(mnt);
	}
	return error;
}

/* a type of the model's that takes a mode (tmpfs, devtmpfs, proc): fill_super's data */
static inline int do_new_mount(struct path *path, const char *fstype, int sb_flags, int mnt_flags,
				 const char *name, void *data)
{
	struct file_system_type *type;
	struct fs_context *fc;
	int err = 0;

	if (!fstype)
		return -EINVAL;
	type = get_fs_type(fstype);
	if (!type)
		return -ENODEV;
	if (type->fs_flags & FS_REQUIRES_DEV)
		return -ENODEV;	/* (block device file systems: not a guest's to mount here, README) */
	fc = fs_context_for_mount(type, sb_flags);
	if (IS_ERR(fc))
		return PTR_ERR(fc);
	if (name)
		err = vfs_parse_fs_string(fc, "source", name, strlen(name));
	if (!err)
		err = parse_monolithic_mount_data(fc, data);
	if (!err)
		err = vfs_get_tree(fc);
	if (!err)
		err = do_new_mount_fc(fc, path, mnt_flags);
	put_fs_context(fc);
	return err;
}

noinline struct mount *__do_loopback(struct path *old_path, int recurse)
{
	struct mount *old = real_mount(old_path->mnt);
	struct vfsmount *mnt;

	if (old->mnt.mnt_flags & MNT_UNBINDABLE)
		return ERR_PTR(-EINVAL);
	if (!check_mnt(old))
		return ERR_PTR(-EINVAL);
	if (recurse)
		return copy_tree(old, old_path->dentry);
	mnt = clone_mnt(old_path->mnt, old_path->dentry);
	return IS_ERR(mnt) ? (void *)mnt : real_mount(mnt);
}

/* MS_BIND: old_name's tree (MS_REC: with what is mounted below it) mounted at path too */
static inline int do_loopback(struct path *path, const char *old_name, int recurse)
{
	struct path old_path;
	struct mount *mnt, *parent;
	int err;

	if (!old_name || !*old_name)
		return -EINVAL;
	err = kern_path(old_name, LOOKUP_FOLLOW | LOOKUP_AUTOMOUNT, &old_path);
	if (err)
		return err;
	mutex_lock(&namespace_sem);
	err = lock_mount(path);
	if (err)
		goto out;
	parent = real_mount(path->mnt);
	err = -EINVAL;
	if (!check_mnt(parent))
		goto out;
	mnt = __do_loopback(&old_path, recurse);
	if (IS_ERR(mnt)) {
		err = PTR_ERR(mnt);
		goto out;
	}
	err = graft_tree(mnt, parent, path->dentry);
	if (err)
		umount_tree(mnt);
out:
	mutex_unlock(&namespace_sem);
	path_put(&old_path);
	return err;
}

static inline int flags_to_propagation_type(int ms_flags)
{
	int type = ms_flags & ~(MS_REC | MS_SILENT);

	/* Fail if any non-propagation flags are set */
	if (type & ~(MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE))
		return 0;
	/* Only one propagation flag should be set */
	if (type & (type - 1))
		return 0;
	return type;
}

/* every mount of the tree at mnt (MS_REC) or mnt alone without a peer group gets one (6.1
 * gives the new ids back on a failure: here the only one is running out of ids) */
static inline int invent_group_ids(struct mount *mnt, bool recurse)
{
	struct mount *p;
	int err;

	for (p = mnt; p; p = recurse ? next_mnt(p, mnt) : NULL) {
		if (!p->mnt_group_id && (err = mnt_alloc_group_id(p)))
			return err;
	}
	return 0;
}

/* MS_SHARED, MS_SLAVE, MS_PRIVATE, MS_UNBINDABLE (MS_REC: for the tree on it too) */
static inline int do_change_type(struct path *path, int ms_flags)
{
	struct mount *m, *mnt = real_mount(path->mnt);
	int recurse = ms_flags & MS_REC;
	int type, err = 0;

	if (path->dentry != path->mnt->mnt_root)
		return -EINVAL;
	type = flags_to_propagation_type(ms_flags);
	if (!type)
		return -EINVAL;
	mutex_lock(&namespace_sem);
	if (type == MS_SHARED)
		err = invent_group_ids(mnt, recurse);
	for (m = mnt; !err && m; m = recurse ? next_mnt(m, mnt) : NULL)
		change_mnt_propagation(m, type);
	mutex_unlock(&namespace_sem);
	return err;
}

/* A mount's own flags change: those a user sets, the others kept */
static inline void set_mount_attributes(struct mount *mnt, int mnt_flags)
{
	mnt_flags |= mnt->mnt.mnt_flags & ~MNT_USER_SETTABLE_MASK;
	mnt->mnt.mnt_flags = mnt_flags;
}

/* read-only needs no write access held on it (EBUSY) */
static inline int mnt_make_readonly(struct mount *mnt)
{
	if (READ_ONCE(mnt->mnt_writers) > 0)
		return -EBUSY;
	mnt->mnt.mnt_flags |= MNT_READONLY;
	return 0;
}

noinline int sb_prepare_remount_readonly(struct super_block *sb)
{
	struct mount *mnt;

	list_for_each_entry(mnt, &sb->s_mounts, mnt_instance)
		if (READ_ONCE(mnt->mnt_writers) > 0)
			return -EBUSY;
	return 0;
}

static inline int change_mount_ro_state(struct mount *mnt, unsigned int mnt_flags)
{
	bool readonly_request = (mnt_flags & MNT_READONLY);

	if (readonly_request == __mnt_is_readonly(&mnt->mnt))
		return 0;
	if (readonly_request)
		return mnt_make_readonly(mnt);
	mnt->mnt.mnt_flags &= ~MNT_READONLY;
	return 0;
}

/* MS_REMOUNT|MS_BIND: this mount's flags only, its file system's stay */
static inline int do_reconfigure_mnt(struct path *path, unsigned int mnt_flags)
{
	struct mount *mnt = real_mount(path->mnt);
	int ret;

	if (!check_mnt(mnt))
		return -EINVAL;
	if (path->dentry != mnt->mnt.mnt_root)
		return -EINVAL;
	mutex_lock(&namespace_sem);
	ret = change_mount_ro_state(mnt, mnt_flags);
	if (ret == 0)
		set_mount_attributes(mnt, mnt_flags);
	mutex_unlock(&namespace_sem);
	return ret;
}

/* MS_REMOUNT: the file system's flags (read-only for every mount of it) and this mount's */
static inline int do_remount(struct path *path, int ms_flags, int sb_flags, int mnt_flags, void *data)
{
	struct mount *mnt = real_mount(path->mnt);
	struct fs_context *fc;
	int err;

	if (!check_mnt(mnt))
		return -EINVAL;
	if (path->dentry != path->mnt->mnt_root)
		return -EINVAL;
	fc = fs_context_for_reconfigure(path->dentry, sb_flags, MS_RMT_MASK);
	if (IS_ERR(fc))
		return PTR_ERR(fc);
	err = parse_monolithic_mount_data(fc, data);
	if (!err) {
		mutex_lock(&namespace_sem);
		err = reconfigure_super(fc);
		if (!err)
			set_mount_attributes(mnt, mnt_flags);
		mutex_unlock(&namespace_sem);
	}
	put_fs_context(fc);
	return err;
}

static inline bool tree_contains_unbindable(struct mount *mnt)
{
	struct mount *p;

	for (p = mnt; p; p = next_mnt(p, mnt))
		if (p->mnt.mnt_flags & MNT_UNBINDABLE)
			return true;
	return false;
}

/* MS_MOVE: the tree at old_path goes to new_path */
noinline int do_move_mount(struct path *old_path, struct path *new_path)
{
	struct mount *p, *old, *parent;
	struct dentry *old_mp;
	unsigned long flags;
	int err;

	mutex_lock(&namespace_sem);
	err = lock_mount(new_path);
	if (err)
		goto out;
	old = real_mount(old_path->mnt);
	p = real_mount(new_path->mnt);
	parent = old->mnt_parent;
	err = -EINVAL;
	/* The mountpoint must be in our namespace, the thing moved mounted and ours (attached) */
	if (!check_mnt(p) || !check_mnt(old) || !mnt_has_parent(old))
		goto out;
	if (old_path->dentry != old_path->mnt->mnt_root)
		goto out;
	if (d_is_dir(new_path->dentry) != d_is_dir(old_path->dentry))
		goto out;
	/* Don't move a mount residing in a shared parent. */
	if (parent->mnt.mnt_flags & MNT_SHARED)
		goto out;
	/* Don't move a mount tree containing unbindable mounts to a destination mount which is shared. */
	if ((p->mnt.mnt_flags & MNT_SHARED) && tree_contains_unbindable(old))
		goto out;
	err = -ELOOP;
	for (; mnt_has_parent(p); p = p->mnt_parent)
		if (p == old)
			goto out;
	spin_lock_irqsave(&mount_lock, flags);
	old_mp = unhash_mnt(old);
	spin_unlock_irqrestore(&mount_lock, flags);
	err = attach_recursive_mnt(old, real_mount(new_path->mnt), new_path->dentry, true);
	dput(old_mp);
	mntput_no_expire(parent);
out:
	mutex_unlock(&namespace_sem);
	return err;
}

static inline int do_move_mount_old(struct path *path, const char *old_name)
{
	struct path old_path;
	int err;

	if (!old_name || !*old_name)
		return -EINVAL;
	err = kern_path(old_name, LOOKUP_FOLLOW, &old_path);
	if (err)
		return err;
	err = do_move_mount(&old_path, path);
	path_put(&old_path);
	return err;
}

/* What mount(2) does at path, by its flags (6.1's order: a remount, a bind, a propagation
 * type, a move, or else a new mount) */
noinline int path_mount(const char *dev_name, struct path *path, const char *type_page, unsigned long flags,
			void *data_page)
{
	unsigned int mnt_flags = 0, sb_flags;

	/* Discard magic */
	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~MS_MGC_MSK;
	/* Basic sanity checks */
	if (data_page)
		((char *)data_page)[PAGE_SIZE - 1] = 0;
	if (flags & MS_NOUSER)
		return -EINVAL;
	if (!may_mount())
		return -EPERM;
	/* Default to relatime unless overriden */
	if (!(flags & MS_NOATIME))
		mnt_flags |= MNT_RELATIME;
	/* Separate the per-mountpoint flags */
	if (flags & MS_NOSUID)
		mnt_flags |= MNT_NOSUID;
	if (flags & MS_NODEV)
		mnt_flags |= MNT_NODEV;
	if (flags & MS_NOEXEC)
		mnt_flags |= MNT_NOEXEC;
	if (flags & MS_NOATIME)
		mnt_flags |= MNT_NOATIME;
	if (flags & MS_NODIRATIME)
		mnt_flags |= MNT_NODIRATIME;
	if (flags & MS_STRICTATIME)
		mnt_flags &= ~(MNT_RELATIME | MNT_NOATIME);
	if (flags & MS_RDONLY)
		mnt_flags |= MNT_READONLY;
	if (flags & MS_NOSYMFOLLOW)
		mnt_flags |= MNT_NOSYMFOLLOW;
	/* The default atime for remount is preservation */
	if ((flags & MS_REMOUNT) &&
	    ((flags & (MS_NOATIME | MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME)) == 0)) {
		mnt_flags &= ~MNT_ATIME_MASK;
		mnt_flags |= path->mnt->mnt_flags & MNT_ATIME_MASK;
	}
	sb_flags = flags & (SB_RDONLY | SB_SYNCHRONOUS | SB_MANDLOCK | SB_DIRSYNC | SB_SILENT | SB_POSIXACL |
			    SB_LAZYTIME | SB_I_VERSION);

	if ((flags & (MS_REMOUNT | MS_BIND)) == (MS_REMOUNT | MS_BIND))
		return do_reconfigure_mnt(path, mnt_flags);
	if (flags & MS_REMOUNT)
		return do_remount(path, flags, sb_flags, mnt_flags, data_page);
	if (flags & MS_BIND)
		return do_loopback(path, dev_name, flags & MS_REC);
	if (flags & (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE))
		return do_change_type(path, flags);
	if (flags & MS_MOVE)
		return do_move_mount_old(path, dev_name);
	return do_new_mount(path, type_page, sb_flags, mnt_flags, dev_name, data_page);
}

/* (inlined into __x64_sys_mount as in 6.1, where path_mount's caller is the syscall) */
static __always_inline long do_mount(const char *dev_name, const char *dir_name, const char *type_page,
				     unsigned long flags, void *data_page)
{
	struct path path;
	int ret;

	ret = user_path_at_empty(AT_FDCWD, dir_name, LOOKUP_FOLLOW, &path, NULL);
	if (ret)
		return ret;
	ret = path_mount(dev_name, &path, type_page, flags, data_page);
	path_put(&path);
	return ret;
}

/* mount(2)'s data: a page of it, as much as can be read (EFAULT: none) */
noinline void *copy_mount_options(const void *data)
{
	size_t first = PAGE_SIZE - ((unsigned long)data & (PAGE_SIZE - 1));
	char *copy;

	if (!data)
		return NULL;
	copy = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!copy)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(copy, data, first)) {
		kfree(copy);
		return ERR_PTR(-EFAULT);
	}
	if (first < PAGE_SIZE && copy_from_user(copy + first, (const char *)data + first, PAGE_SIZE - first))
		memset(copy + first, 0, PAGE_SIZE - first);
	return copy;
}

static notrace char *copy_mount_string(const void *data)
{
	return data ? strndup_user(data, PATH_MAX) : NULL;
}

/* A session's process: its mounts are the host's (made there already); the emulated tree stays */
SYSCALL_DEFINE5(mount, char *, dev_name, char *, dir_name, char *, type, unsigned long, flags, void *, data)
{
	char *kernel_type, *kernel_dev;
	void *options;
	int ret;

	if (current->session)
		return -ENOSYS;
	kernel_type = copy_mount_string(type);
	ret = PTR_ERR(kernel_type);
	if (IS_ERR(kernel_type))
		goto out_type;
	kernel_dev = copy_mount_string(dev_name);
	ret = PTR_ERR(kernel_dev);
	if (IS_ERR(kernel_dev))
		goto out_dev;
	options = copy_mount_options(data);
	ret = PTR_ERR(options);
	if (IS_ERR(options))
		goto out_data;
	ret = do_mount(kernel_dev, dir_name, kernel_type, flags, options);
	kfree(options);
out_data:
	kfree(kernel_dev);
out_dev:
	kfree(kernel_type);
out_type:
	return ret;
}

/*
 * pivot_root(new_root, put_old): the caller's root mount goes on put_old (under new_root), and
 * new_root's mount where the root mount was; every task whose root or cwd was the old root gets
 * new_root instead (chroot_fs_refs).
 */
SYSCALL_DEFINE2(pivot_root, const char *, new_root, const char *, put_old)
{
	struct path new, old, root;
	struct mount *new_mnt, *root_mnt, *old_mnt, *root_parent, *ex_parent;
	struct dentry *new_mp, *root_mp;
	unsigned long flags;
	int error;

	if (current->session)	/* (its root is the host's: see mount) */
		return -ENOSYS;
	if (!may_mount())
		return -EPERM;
	error = user_path_at_empty(AT_FDCWD, new_root, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &new, NULL);
	if (error)
		return error;
	error = user_path_at_empty(AT_FDCWD, put_old, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &old, NULL);
	if (error)
		goto out1;
	get_fs_root(current->fs, &root);
	mutex_lock(&namespace_sem);
	error = lock_mount(&old);
	if (error)
		goto out3;
	error = -EINVAL;
	new_mnt = real_mount(new.mnt);
	root_mnt = real_mount(root.mnt);
	old_mnt = real_mount(old.mnt);
	ex_parent = new_mnt->mnt_parent;
	root_parent = root_mnt->mnt_parent;
	if ((old_mnt->mnt.mnt_flags & MNT_SHARED) || (ex_parent->mnt.mnt_flags & MNT_SHARED) ||
	    (root_parent->mnt.mnt_flags & MNT_SHARED))
		goto out3;
	if (!check_mnt(root_mnt) || !check_mnt(new_mnt))
		goto out3;
	error = -ENOENT;
	if (d_unlinked(new.dentry))
		goto out3;
	error = -EBUSY;
	if (new_mnt == root_mnt || old_mnt == root_mnt)
		goto out3;	/* loop, on the same file system */
	error = -EINVAL;
	if (root.mnt->mnt_root != root.dentry)
		goto out3;	/* not a mountpoint */
	if (!mnt_has_parent(root_mnt))
		goto out3;	/* not attached */
	if (new.mnt->mnt_root != new.dentry)
		goto out3;	/* not a mountpoint */
	if (!mnt_has_parent(new_mnt))
		goto out3;	/* not attached */
	/* make sure we can reach put_old from new_root */
	if (!is_path_reachable(old_mnt, old.dentry, &new))
		goto out3;
	/* make certain new is below the root */
	if (!is_path_reachable(new_mnt, new.dentry, &root))
		goto out3;
	spin_lock_irqsave(&mount_lock, flags);
	new_mp = unhash_mnt(new_mnt);	/* (umount_mnt) */
	root_mp = unhash_mnt(root_mnt);	/* we'll need its mountpoint */
	/* mount old root on put_old */
	attach_mnt(root_mnt, old_mnt, old.dentry);
	/* mount new_root on / */
	attach_mnt(new_mnt, root_parent, root_mp);
	spin_unlock_irqrestore(&mount_lock, flags);
	mntput(&ex_parent->mnt);	/* new_mnt's reference of where it was */
	mntput(&root_parent->mnt);	/* root_mnt's (new_mnt took one of its own) */
	dput(new_mp);
	dput(root_mp);
	chroot_fs_refs(&root, &new);
	error = 0;
out3:
	mutex_unlock(&namespace_sem);
	path_put(&root);
	path_put(&old);
out1:
	path_put(&new);
	return error;
}

SYSCALL_DEFINE3(open_tree, int, dfd, const char *, filename, unsigned, flags)
{
	int lookup_flags = LOOKUP_AUTOMOUNT | LOOKUP_FOLLOW;
	struct file *file;
	struct path path;
	int error, fd;

	if (flags & ~(AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW | OPEN_TREE_CLOEXEC))
		return -EINVAL;	/* (OPEN_TREE_CLONE among them: see above) */
	if (flags & AT_RECURSIVE)	/* (only with OPEN_TREE_CLONE) */
		return -EINVAL;
	if (flags & AT_NO_AUTOMOUNT)
		lookup_flags &= ~LOOKUP_AUTOMOUNT;
	if (flags & AT_SYMLINK_NOFOLLOW)
		lookup_flags &= ~LOOKUP_FOLLOW;
	if (flags & AT_EMPTY_PATH)
		lookup_flags |= LOOKUP_EMPTY;
	fd = get_unused_fd_flags(flags & O_CLOEXEC);
	if (fd < 0)
		return fd;
	error = user_path_at_empty(dfd, filename, lookup_flags, &path, NULL);	/* (user_path_at()) */
	if (unlikely(error)) {
		file = ERR_PTR(error);
	} else {
		file = dentry_open(&path, O_PATH, current_cred());
		path_put(&path);
	}
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		return PTR_ERR(file);
	}
	fd_install(fd, file);
	return fd;
}

void __init mnt_init(void)
{
	int i;

	for (i = 0; i < M_HASH; i++)
		INIT_LIST_HEAD(&mount_hashtable[i]);
}
