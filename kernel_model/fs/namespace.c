/*
 * Mounts (Linux's fs/namespace.c): a tree of struct mount, one namespace.  A dentry that has
 * something mounted on it is DCACHE_MOUNTED; lookup_mnt() finds the mount on (mnt, dentry)
 * in the mount hash.  /proc/mounts lists the tree in mount order.  open_tree(2) gives an
 * O_PATH file of a mount's object; not its OPEN_TREE_CLONE (a detached copy of the tree: no
 * anonymous mount namespaces here), EINVAL as for a flag it does not know.
 */
#include "../include/fs.h"
#include "../include/cred.h"
#include "../include/syscalls.h"
#include "../include/nsproxy.h"

#define M_HASH 64
static struct list_head mount_hashtable[M_HASH];
/* the namespace (6.1's init_mount_tree() allocates it; its number is given with its root) */
struct mnt_namespace init_mnt_ns = {
	.ns = { .ops = &mntns_operations, .count = 1 },
	.list = LIST_HEAD_INIT(init_mnt_ns.list),
};
static spinlock_t mount_lock;
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

/* Mounts live as long as the namespace (there is no umount): a mount in it never drops its
 * last reference here, so only the count is kept (6.1's fast path: mnt_ns set) */
static noinline void mntput_no_expire(struct mount *mnt)
{
	__atomic_sub_fetch(&mnt->mnt_count, 1, __ATOMIC_RELAXED);
}

noinline void mntput(struct vfsmount *mnt)
{
	if (mnt)
		mntput_no_expire(real_mount(mnt));	/* (no expiry marks: no automounts) */
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

noinline struct vfsmount *vfs_kern_mount(struct file_system_type *type, int flags, const char *name, void *data)
{
	struct super_block *mount_nodev(struct file_system_type *fs_type, int flags, void *data);
	struct mount *mnt;
	struct super_block *sb;

	if (!type)
		return (void *)(long)-ENODEV;
	mnt = kzalloc(sizeof(*mnt), GFP_KERNEL);
	if (!mnt)
		return (void *)(long)-ENOMEM;
	sb = mount_nodev(type, flags & SB_RDONLY, data);
	if (IS_ERR(sb)) {
		kfree(mnt);
		return (void *)sb;
	}
	mnt->mnt_devname = name;
	mnt->mnt_id = mnt_id_next++;
	mnt->mnt_count = 1;
	mnt->mnt.mnt_sb = sb;
	mnt->mnt.mnt_root = dget(sb->s_root);
	mnt->mnt.mnt_flags = (flags & SB_RDONLY) ? MNT_READONLY | MNT_RELATIME : MNT_RELATIME;
	mnt->mnt_parent = mnt;
	mnt->mnt_mountpoint = mnt->mnt.mnt_root;
	INIT_LIST_HEAD(&mnt->mnt_hash);
	INIT_LIST_HEAD(&mnt->mnt_mounts);
	INIT_LIST_HEAD(&mnt->mnt_child);
	INIT_LIST_HEAD(&mnt->mnt_list);
	return &mnt->mnt;
}

/* A file system's internal mount (pipefs, sockfs, anon_inodefs): none of a user mount's flags */
noinline struct vfsmount *kern_mount(struct file_system_type *type)
{
	struct vfsmount *mnt = vfs_kern_mount(type, 0, type->name, NULL);

	if (!IS_ERR(mnt))
		mnt->mnt_flags = MNT_INTERNAL;
	return mnt;
}

/* attach_recursive_mnt's work for a new mount: it goes on where. */
notrace noinline int do_add_mount_at(struct vfsmount *newm, const struct path *where)
{
	struct mount *mnt = real_mount(newm), *parent = real_mount(where->mnt);
	unsigned long flags;

	if (!d_is_dir(where->dentry) && S_ISDIR(newm->mnt_root->d_inode->i_mode))
		return -ENOTDIR;
	spin_lock_irqsave(&mount_lock, flags);
	mnt->mnt_parent = parent;
	mnt->mnt_mountpoint = dget(where->dentry);
	mntget(where->mnt);
	where->dentry->d_flags |= DCACHE_MOUNTED;
	list_add_tail(&mnt->mnt_hash, m_hash(where->mnt, where->dentry));
	list_add_tail(&mnt->mnt_child, &parent->mnt_mounts);
	list_add_tail(&mnt->mnt_list, &init_mnt_ns.list);
	spin_unlock_irqrestore(&mount_lock, flags);
	return 0;
}

/* Another mount of old's tree (a bind mount of its root), attached nowhere yet. */
noinline struct vfsmount *clone_mnt(struct vfsmount *old)
{
	struct mount *mnt = kzalloc(sizeof(*mnt), GFP_KERNEL), *o = real_mount(old);

	if (!mnt)
		return (void *)(long)-ENOMEM;
	mnt->mnt_devname = o->mnt_devname;
	mnt->mnt_id = mnt_id_next++;
	mnt->mnt_count = 1;
	mnt->mnt.mnt_sb = old->mnt_sb;
	mnt->mnt.mnt_root = dget(old->mnt_root);
	mnt->mnt.mnt_flags = old->mnt_flags;
	mnt->mnt_parent = mnt;
	mnt->mnt_mountpoint = mnt->mnt.mnt_root;
	INIT_LIST_HEAD(&mnt->mnt_hash);
	INIT_LIST_HEAD(&mnt->mnt_mounts);
	INIT_LIST_HEAD(&mnt->mnt_child);
	INIT_LIST_HEAD(&mnt->mnt_list);
	return &mnt->mnt;
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

/* /proc/mounts: "devname mountpoint type options 0 0", relative to the reader's root */
notrace int show_mounts(struct seq_file *m, void *v)
{
	struct mount *mnt;
	struct path root;
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	get_fs_root(current->fs, &root);
	list_for_each_entry(mnt, &init_mnt_ns.list, mnt_list) {
		struct path p = { &mnt->mnt, mnt->mnt.mnt_root };
		char *end = buf + PATH_MAX, *name = end;
		int len = PATH_MAX;
		extern int prepend_path(const struct path *, const struct path *, char **, int *);
		struct super_block *sb = mnt->mnt.mnt_sb;

		if (prepend_path(&p, &root, &name, &len) != 0)
			continue;	/* not under the reader's root */
		seq_escape_path(m, mnt->mnt_devname ? mnt->mnt_devname : "none");
		seq_putc(m, ' ');
		seq_write(m, name, end - name);
		seq_printf(m, " %s %s", sb->s_type->name, __mnt_is_readonly(&mnt->mnt) ? "ro" : "rw");
		if (mnt->mnt.mnt_flags & MNT_NOSUID)
			seq_puts(m, ",nosuid");
		if (mnt->mnt.mnt_flags & MNT_NODEV)
			seq_puts(m, ",nodev");
		if (mnt->mnt.mnt_flags & MNT_NOEXEC)
			seq_puts(m, ",noexec");
		seq_puts(m, ",relatime");
		if (sb->s_op && sb->s_op->show_options)
			sb->s_op->show_options(m, mnt->mnt.mnt_root);
		seq_puts(m, " 0 0\n");
	}
	path_put(&root);
	kfree(buf);
	return 0;
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
