/* Super blocks (Linux's fs/super.c): one per mounted instance here (tmpfs, proc, devtmpfs
 * are all "nodev" file systems, each mount a new anonymous device).  One whose last mount
 * goes (deactivate_super) leaves the list; its inodes and dentries are not freed (the model
 * has no kill_sb: a tmpfs's files stay in memory, unreachable). */
#include "../include/fs.h"

static LIST_HEAD(super_blocks);
static unsigned int unnamed_dev_next = 1;

static noinline struct super_block *alloc_super(struct file_system_type *type, int flags)
{
	struct super_block *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	INIT_LIST_HEAD(&s->s_inodes);
	INIT_LIST_HEAD(&s->s_mounts);
	s->s_active = 1;
	s->s_type = type;
	s->s_flags = flags;
	s->s_blocksize = PAGE_SIZE;
	s->s_blocksize_bits = 12;
	s->s_maxbytes = MAX_LFS_FILESIZE;
	s->s_magic = type->magic;
	return s;
}

/* get_anon_bdev(): 0:N, a device number for a file system without a disk */
noinline dev_t get_anon_bdev(void)
{
	return MKDEV(0, unnamed_dev_next++);
}

noinline struct super_block *mount_nodev(struct file_system_type *fs_type, int flags, void *data)
{
	struct super_block *s = alloc_super(fs_type, flags);
	int error;

	if (!s)
		return (void *)(long)-ENOMEM;
	s->s_dev = get_anon_bdev();
	scnprintf(s->s_id, sizeof(s->s_id), "%s", fs_type->name);
	error = fs_type->fill_super(s, data);
	if (error) {
		kfree(s);
		return (void *)(long)error;
	}
	list_add_tail(&s->s_list, &super_blocks);
	return s;
}

/* A new super block for a mount (every type a guest mounts is a "nodev" one) */
noinline int get_tree_nodev(struct fs_context *fc)
{
	struct super_block *sb = mount_nodev(fc->fs_type, fc->sb_flags, fc->fs_private);

	if (IS_ERR(sb))
		return PTR_ERR(sb);
	fc->root = dget(sb->s_root);
	return 0;
}

/* The last active user of s is gone (the last umount of its mounts) */
noinline void deactivate_super(struct super_block *s)
{
	if (__atomic_sub_fetch(&s->s_active, 1, __ATOMIC_ACQ_REL) == 0)
		list_del_init(&s->s_list);	/* (generic_shutdown_super's part the model has) */
}

/*
 * A remount's new super block flags (fc's, those in its mask): going read-only needs no write
 * access held on any of s's mounts (sb_prepare_remount_readonly: EBUSY).  (6.1 also calls the
 * type's reconfigure with its options: none of the model's types changes any.)
 */
noinline int reconfigure_super(struct fs_context *fc)
{
	struct super_block *sb = fc->root->d_sb;
	bool remount_ro = (fc->sb_flags_mask & SB_RDONLY) && (fc->sb_flags & SB_RDONLY) && !(sb->s_flags & SB_RDONLY);

	if (remount_ro) {
		int err = sb_prepare_remount_readonly(sb);

		if (err)
			return err;
	}
	WRITE_ONCE(sb->s_flags, (sb->s_flags & ~fc->sb_flags_mask) | (fc->sb_flags & fc->sb_flags_mask));
	return 0;
}

/* f on every super block (sync(2)) */
noinline void iterate_supers(void (*f)(struct super_block *, void *), void *arg)
{
	struct super_block *sb;

	list_for_each_entry(sb, &super_blocks, s_list)
		f(sb, arg);
}

/* The mounted super block of device dev (ustat(2)), or NULL; its memory is never freed here,
 * so no reference is taken (6.1's s_count and s_umount, dropped by drop_super()) */
noinline struct super_block *user_get_super(dev_t dev, bool excl)
{
	struct super_block *sb;

	list_for_each_entry(sb, &super_blocks, s_list)
		if (sb->s_dev == dev && sb->s_root)
			return sb;
	return NULL;
}
