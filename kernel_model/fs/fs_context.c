/*
 * Mount contexts (Linux's fs/fs_context.c, the legacy mount(2) path): the options of a mount
 * or remount, "key[=value],..." in its data page, split and given one at a time first to the
 * generic super block flags and then to the type's parse_param.
 */
#include "../include/fs.h"

/* the super block flags an option may set or clear (6.1's common_set/clear_sb_flag) */
static const struct { const char *name; unsigned int flag; bool set; } sb_flag_options[] = {
	{ "dirsync", SB_DIRSYNC, true }, { "lazytime", SB_LAZYTIME, true }, { "mand", SB_MANDLOCK, true },
	{ "ro", SB_RDONLY, true }, { "sync", SB_SYNCHRONOUS, true },
	{ "async", SB_SYNCHRONOUS, false }, { "nolazytime", SB_LAZYTIME, false },
	{ "nomand", SB_MANDLOCK, false }, { "rw", SB_RDONLY, false },
};

/* mount(2)'s flags, not options: an option of one of these names is refused */
static const char *const forbidden_sb_flag[] = {
	"bind", "dev", "exec", "move", "noatime", "nodev", "nodiratime", "noexec", "norelatime",
	"nostrictatime", "nosuid", "private", "rec", "relatime", "remount", "shared", "slave",
	"strictatime", "suid", "unbindable",
};

static inline int vfs_parse_sb_flag(struct fs_context *fc, const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(forbidden_sb_flag); i++)
		if (!strcmp(key, forbidden_sb_flag[i]))
			return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(sb_flag_options); i++) {
		if (strcmp(key, sb_flag_options[i].name))
			continue;
		if (sb_flag_options[i].set)
			fc->sb_flags |= sb_flag_options[i].flag;
		else
			fc->sb_flags &= ~sb_flag_options[i].flag;
		fc->sb_flags_mask |= sb_flag_options[i].flag;
		return 0;
	}
	return -ENOPARAM;
}

/* One option: a super block flag, the source, or the type's own (6.1's vfs_parse_fs_param) */
noinline int vfs_parse_fs_string(struct fs_context *fc, const char *key, const char *value, size_t v_size)
{
	int ret;

	if (!*key)
		return -EINVAL;
	ret = vfs_parse_sb_flag(fc, key);
	if (ret != -ENOPARAM)
		return ret;
	if (fc->fs_type->parse_param) {
		ret = fc->fs_type->parse_param(fc, key, value);
		if (ret != -ENOPARAM)
			return ret;
	}
	if (!strcmp(key, "source")) {	/* (vfs_parse_fs_param_source) */
		if (!value)
			return -EINVAL;
		if (fc->source)
			return -EINVAL;	/* "Multiple sources" */
		fc->source = value;
		return 0;
	}
	return -EINVAL;	/* "Unknown parameter" */
}

noinline int generic_parse_monolithic(struct fs_context *fc, void *data)
{
	return vfs_parse_monolithic_sep(fc, data);
}

/* data: the options, a NUL-terminated page (mount(2)'s copy); NULL: none */
noinline int parse_monolithic_mount_data(struct fs_context *fc, void *data)
{
	int (*monolithic_mount_data)(struct fs_context *, void *) = fc->fs_type->parse_monolithic;

	if (!data)
		return 0;
	if (!monolithic_mount_data)
		monolithic_mount_data = generic_parse_monolithic;
	return monolithic_mount_data(fc, data);
}

static noinline struct fs_context *alloc_fs_context(struct file_system_type *fs_type, unsigned int sb_flags,
						    unsigned int sb_flags_mask)
{
	struct fs_context *fc = kzalloc(sizeof(*fc), GFP_KERNEL);

	if (!fc)
		return ERR_PTR(-ENOMEM);
	fc->fs_type = fs_type;
	fc->sb_flags = sb_flags;
	fc->sb_flags_mask = sb_flags_mask;
	return fc;
}

/* A new mount's: the options go to fs_private, for fill_super (a mode, as at boot: NULL
 * until an option sets it, the type's default then) */
noinline struct fs_context *fs_context_for_mount(struct file_system_type *fs_type, unsigned int sb_flags)
{
	return alloc_fs_context(fs_type, sb_flags, 0);
}

/* A remount's: the super block's flags in sb_flags_mask change; its type's options stay */
noinline struct fs_context *fs_context_for_reconfigure(struct dentry *dentry, unsigned int sb_flags,
						       unsigned int sb_flags_mask)
{
	struct fs_context *fc = alloc_fs_context(dentry->d_sb->s_type, sb_flags, sb_flags_mask);

	if (!IS_ERR(fc)) {
		__atomic_add_fetch(&dentry->d_sb->s_active, 1, __ATOMIC_RELAXED);
		fc->root = dget(dentry);
	}
	return fc;
}

/* The super block a mount of fc's type is of (fc->root), active for fc until put_fs_context */
noinline int vfs_get_tree(struct fs_context *fc)
{
	return fc->fs_type->get_tree ? fc->fs_type->get_tree(fc) : get_tree_nodev(fc);
}

noinline void put_fs_context(struct fs_context *fc)
{
	if (fc->root) {
		struct super_block *sb = fc->root->d_sb;

		dput(fc->root);
		deactivate_super(sb);
	}
	kfree(fc);
}
