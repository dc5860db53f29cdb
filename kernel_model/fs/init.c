/*
 * The mount tree at boot (Linux's init_mount_tree, do_mounts and what an init system mounts):
 * a tmpfs as "/" filled from the initramfs, then remounted read-only; proc on /proc,
 * devtmpfs on /dev, tmpfs on /tmp, /run and /dev/shm.
 */
#include "../include/fs.h"

extern struct file_system_type shmem_fs_type, proc_fs_type, simplefs_fs_type;
void simplefs_init(void);
void dcache_init(void);
void inode_init(void);
void namei_init(void);
void files_struct_init(void);
void anon_inode_init(void);
void user_programs_init(void);

void host_view_init(void);

static notrace int mount_at(struct file_system_type *type, const char *devname, const char *where,
			    int mnt_flags, umode_t mode)
{
	struct vfsmount *mnt = vfs_kern_mount(type, 0, devname, &mode);
	struct path path;
	int err;

	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	err = kern_path(where, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	if (err)
		return err;
	mnt->mnt_flags |= mnt_flags;
	err = do_add_mount_at(mnt, &path);
	path_put(&path);
	return err;
}

static notrace void mkdir_p(const char *path, umode_t mode)
{
	int err = init_mkdir(path, mode);

	if (err && err != -EEXIST)
		printk(KERN_ERR "mkdir %s: %d\n", path, err);
}

/* The next free fd of the caller for file (a reference of its own): init's console
 * (init/do_mounts's init_dup). */
int __init init_dup(struct file *file)
{
	int fd = get_unused_fd_flags(0);

	if (fd < 0)
		return fd;
	fd_install(fd, get_file(file));
	return 0;
}

void __init vfs_caches_init(void)
{
	dcache_init();
	inode_init();
	namei_init();
	files_init();
	filelock_init();
	fcntl_init();
	files_struct_init();
	mnt_init();
	shmem_init();
	proc_root_init();
	devtmpfs_init();
	pipe_init();
	anon_inode_init();
	user_programs_init();
	chr_dev_init();
	hostfs_init();
	simplefs_init();
}

void __init vfs_mount_init(void)
{
	umode_t root_mode = 0755;
	struct vfsmount *root = vfs_kern_mount(&shmem_fs_type, 0, "rootfs", &root_mode);
	struct path path;

	if (IS_ERR(root))
		panic("Can't create rootfs");
	mnt_set_root(root);
	path.mnt = root;
	path.dentry = root->mnt_root;
	set_fs_root(&init_fs, &path);
	set_fs_pwd(&init_fs, &path);
	populate_rootfs();
	mkdir_p("/proc", 0555);
	mkdir_p("/dev", 0755);
	mkdir_p("/tmp", 01777);
	mkdir_p("/run", 0755);
	mkdir_p("/root", 0700);
	mkdir_p("/mnt", 0755);
	if (mount_at(&proc_fs_type, "proc", "/proc", MNT_NOSUID | MNT_NODEV | MNT_NOEXEC, 0555) ||
	    devtmpfs_mount() ||
	    mount_at(&shmem_fs_type, "tmpfs", "/dev/shm", MNT_NOSUID | MNT_NODEV, 01777) ||
	    mount_at(&shmem_fs_type, "tmpfs", "/tmp", MNT_NOSUID | MNT_NODEV, 01777) ||
	    mount_at(&shmem_fs_type, "tmpfs", "/run", MNT_NOSUID | MNT_NODEV, 0755))
		panic("VFS: Unable to mount the boot file systems");
	/* the disk (drivers/nvme), where the machine has one */
	if (mount_at(&simplefs_fs_type, "/dev/nvme0n1", "/mnt", MNT_NOSUID | MNT_NODEV, 0755) == -ENODEV)
		printk(KERN_INFO "no disk: nothing mounted on /mnt\n");
	root->mnt_flags |= MNT_READONLY;	/* mount -o remount,ro / */
	host_view_init();
	shmem_kern_mount_init();
}

/*
 * The host view: the tree the programs the host starts (`tracefs-sim exec`) see, as their
 * root: the host's "/" (hostfs, read-only), and on it this kernel's /proc, /dev, /dev/shm, /tmp
 * and /run (the same file systems as the boot tree's: what a program leaves in /tmp, the
 * services see).  Where the host has no such directory, that one is left out.
 */
static struct path host_root;

static notrace void clone_onto_host_view(const char *from, const char *to)
{
	struct path src, where;
	struct vfsmount *mnt;

	if (kern_path(from, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &src))
		return;
	if (!vfs_path_lookup(host_root.dentry, host_root.mnt, to, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &where)) {
		mnt = clone_mnt(src.mnt, src.dentry);
		if (!IS_ERR(mnt) && do_add_mount_at(mnt, &where))
			printk(KERN_ERR "host view: no %s\n", to);
		path_put(&where);
	}
	path_put(&src);
}

void __init host_view_init(void)
{
	struct vfsmount *host = vfs_kern_mount(&hostfs_type, SB_RDONLY, "hostfs", NULL);

	if (IS_ERR(host)) {
		printk(KERN_ERR "hostfs: %ld\n", PTR_ERR(host));
		return;
	}
	mnt_add_tree(host);
	host_root.mnt = host;
	host_root.dentry = host->mnt_root;
	clone_onto_host_view("/proc", "proc");
	clone_onto_host_view("/dev", "dev");
	clone_onto_host_view("/dev/shm", "dev/shm");
	clone_onto_host_view("/tmp", "tmp");
	clone_onto_host_view("/run", "run");
	clone_onto_host_view("/mnt", "mnt");
}

/* The calling task's root and cwd become the host view's "/" (a spawned program's). */
notrace int host_view_enter(void)
{
	if (!host_root.mnt)
		return -ENOENT;
	set_fs_root(current->fs, &host_root);
	set_fs_pwd(current->fs, &host_root);
	return 0;
}

/*
 * The session view: the root of the session's tasks (kernel/session.c), the host processes of
 * a `tracefs-sim shell`/`run` session.  Their files are the host's: the host's "/" (hostfs,
 * taking their changes as the host's, see hostfs.c), and on it only this kernel's /proc (their
 * /dev, /tmp and /run are the host's, where their calls were made).
 */
static struct path session_root;

static notrace int session_view_init(void)
{
	struct vfsmount *host = vfs_kern_mount(&hostfs_type, 0, "hostfs", NULL);
	struct path src, where;

	if (IS_ERR(host))
		return PTR_ERR(host);
	mnt_add_tree(host);
	session_root.mnt = host;
	session_root.dentry = host->mnt_root;
	if (kern_path("/proc", LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &src))
		return 0;
	if (!vfs_path_lookup(session_root.dentry, session_root.mnt, "proc", LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &where)) {
		struct vfsmount *mnt = clone_mnt(src.mnt, src.dentry);

		if (!IS_ERR(mnt) && do_add_mount_at(mnt, &where))
			printk(KERN_ERR "session view: no /proc\n");
		path_put(&where);
	}
	path_put(&src);
	return 0;
}

/* The task's root becomes the session view's "/", its cwd `cwd` there (or "/" if the host's
 * cwd is not there: a directory since removed). */
notrace int session_view_enter(struct task_struct *tsk, const char *cwd)
{
	struct path pwd;

	if (!session_root.mnt && session_view_init())
		return -ENOENT;
	set_fs_root(tsk->fs, &session_root);
	if (cwd && cwd[0] == '/' &&
	    !vfs_path_lookup(session_root.dentry, session_root.mnt, cwd + 1, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &pwd)) {
		set_fs_pwd(tsk->fs, &pwd);
		path_put(&pwd);
	} else {
		set_fs_pwd(tsk->fs, &session_root);
	}
	return 0;
}
