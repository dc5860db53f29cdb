/* devtmpfs (Linux's drivers/base/devtmpfs.c): a tmpfs instance the kernel fills with the
 * device nodes of its drivers, mounted on /dev. */
#include "../include/fs.h"

extern struct file_system_type shmem_fs_type;
static struct file_system_type dev_fs_type;

static notrace int devtmpfs_fill_super(struct super_block *sb, void *data)
{
	static umode_t mode = 0755;

	return shmem_fs_type.fill_super(sb, &mode);
}

/* the instance the kernel fills, mounted on /dev at boot (6.1's devtmpfs mnt) */
static struct super_block *devtmpfs_sb;

/* every mount of devtmpfs is of the one instance (6.1's public_dev_mount) */
static noinline int public_dev_mount(struct fs_context *fc)
{
	int err;

	if (devtmpfs_sb) {
		__atomic_add_fetch(&devtmpfs_sb->s_active, 1, __ATOMIC_RELAXED);
		fc->root = dget(devtmpfs_sb->s_root);
		return 0;
	}
	err = get_tree_nodev(fc);
	if (!err)
		devtmpfs_sb = fc->root->d_sb;
	return err;
}

static struct file_system_type dev_fs_type = {
	.name = "devtmpfs",
	.fill_super = devtmpfs_fill_super,
	.get_tree = public_dev_mount,
	.magic = 0x01021994,
};

/* The nodes of the drivers (drivers/char/mem.c's devlist, the tty), as devtmpfs makes them. */
static const struct {
	const char *name;
	umode_t mode;
	unsigned int major, minor;
} devnodes[] = {
	{ "null", 0666, 1, 3 }, { "zero", 0666, 1, 5 }, { "full", 0666, 1, 7 },
	{ "random", 0666, 1, 8 }, { "urandom", 0666, 1, 9 }, { "kmsg", 0644, 1, 11 },
	{ "tty", 0666, 5, 0 },
};

noinline int devtmpfs_create_node(const char *name, umode_t mode, dev_t dev)
{
	char path[64];

	scnprintf(path, sizeof(path), "/dev/%s", name);
	return init_mknod(path, S_IFCHR | mode, dev);
}

void __init devtmpfs_init(void)
{
	register_filesystem(&dev_fs_type);
}

/* Mounted on /dev, with its nodes and the links udev would add (fd, stdin, stdout, stderr). */
int __init devtmpfs_mount(void)
{
	struct vfsmount *mnt = vfs_kern_mount(&dev_fs_type, 0, "udev", NULL);
	struct path path;
	size_t i;
	int err;

	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	err = kern_path("/dev", LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	if (err)
		return err;
	mnt->mnt_flags |= MNT_NOSUID;
	err = do_add_mount_at(mnt, &path);
	path_put(&path);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(devnodes); i++)
		devtmpfs_create_node(devnodes[i].name, devnodes[i].mode, MKDEV(devnodes[i].major, devnodes[i].minor));
	init_symlink("/proc/self/fd", "/dev/fd");
	init_symlink("/proc/self/fd/0", "/dev/stdin");
	init_symlink("/proc/self/fd/1", "/dev/stdout");
	init_symlink("/proc/self/fd/2", "/dev/stderr");
	return init_mkdir("/dev/shm", 01777);
}
