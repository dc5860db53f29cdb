/* Files without a name (Linux's fs/anon_inodes.c): epoll instances, the host's output pipes;
 * all share one inode on the internal anon_inodefs mount, each its own dentry "[name]". */
#include "../include/fs.h"

#define ANON_INODE_FS_MAGIC 0x09041934
static struct vfsmount *anon_inode_mnt;
static struct inode *anon_inode_inode;

noinline struct file *anon_inode_getfile(const char *name, const struct file_operations *fops, void *priv, int flags)
{
	struct file *file;

	ihold(anon_inode_inode);
	file = alloc_file_pseudo(anon_inode_inode, anon_inode_mnt, name, flags & (O_ACCMODE | O_NONBLOCK), fops);
	if (IS_ERR(file)) {
		iput(anon_inode_inode);
		return file;
	}
	file->f_mapping = anon_inode_inode->i_mapping;
	file->private_data = priv;
	return file;
}

/* A new fd for an anon_inode_getfile() file (6.1's __anon_inode_getfd inlined): the fd or -errno */
noinline int anon_inode_getfd(const char *name, const struct file_operations *fops, void *priv, int flags)
{
	struct file *file;
	int fd = get_unused_fd_flags(flags);

	if (fd < 0)
		return fd;
	file = anon_inode_getfile(name, fops, priv, flags);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		return PTR_ERR(file);
	}
	fd_install(fd, file);
	return fd;
}

static char *anon_inodefs_dname(struct dentry *dentry, char *buffer, int buflen)
{
	return dynamic_dname(buffer, buflen, "anon_inode:%s", dentry->d_name.name);
}

static const struct dentry_operations anon_inodefs_dentry_operations = {
	.d_delete = always_delete_dentry,
	.d_dname = anon_inodefs_dname,
};

static notrace int anon_inodefs_fill_super(struct super_block *sb, void *data)
{
	return init_pseudo(sb, &anon_inodefs_dentry_operations);
}

static struct file_system_type anon_inode_fs_type = {
	.name = "anon_inodefs",
	.fill_super = anon_inodefs_fill_super,
	.magic = ANON_INODE_FS_MAGIC,
};

void __init anon_inode_init(void)
{
	anon_inode_mnt = kern_mount(&anon_inode_fs_type);
	if (IS_ERR(anon_inode_mnt))
		panic("anon_inode_init() kernel mount failed");
	anon_inode_inode = new_inode(anon_inode_mnt->mnt_sb);
	if (!anon_inode_inode)
		panic("anon_inode_init() inode allocation failed");
	anon_inode_inode->i_ino = get_next_ino();
	anon_inode_inode->i_mode = 0600;
	anon_inode_inode->i_flags |= S_PRIVATE;
}
