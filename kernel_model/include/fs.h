/*
 * The VFS (kernel_model/fs/): the structures probes reach into, with Linux 6.1's offsets for
 * the fields a probe or a tool dereferences (pinned below against 6.1's BTF, `pahole`), and
 * the interfaces between the VFS core and the file systems (tmpfs, devtmpfs, procfs, pipefs).
 */
#ifndef _FS_H
#define _FS_H
#include "syscalls.h"
#include "wait.h"
#include "uapi/hostfs.h"

#ifndef ENXIO
#define ENXIO 6
#endif
#define EXDEV 18
#define ENODEV 19
#define ENFILE 23
#define ENOTTY 25
#define EFBIG 27
#define EPIPE 32
#define ENOTEMPTY 39
#define ELOOP 40
#define ENOTRECOVERABLE 131
#define EOVERFLOW 75
#define EOPNOTSUPP 95
#define ERANGE 34
#define ENODATA 61
#ifndef PAGE_SHIFT
#define PAGE_SHIFT 12
#endif
typedef unsigned short umode_t;

/* ---- uapi: open flags, modes, *at flags ---- */
#define O_ACCMODE	00000003
#define O_RDONLY	00000000
#define O_WRONLY	00000001
#define O_RDWR		00000002
#define O_CREAT		00000100
#define O_EXCL		00000200
#define O_NOCTTY	00000400
#define O_TRUNC		00001000
#define O_APPEND	00002000
#define O_NONBLOCK	00004000
#define O_DSYNC		00010000
#define FASYNC		00020000
#define O_DIRECT	00040000
#define O_LARGEFILE	00100000
#define O_DIRECTORY	00200000
#define O_NOFOLLOW	00400000
#define O_NOATIME	01000000
#define O_CLOEXEC	02000000
#define __O_SYNC	04000000
#define O_PATH		010000000
#define __O_TMPFILE	020000000
#define VALID_OPEN_FLAGS (O_RDONLY | O_WRONLY | O_RDWR | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | \
			  O_APPEND | O_NONBLOCK | O_DSYNC | FASYNC | O_DIRECT | O_LARGEFILE | \
			  O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | __O_SYNC | O_PATH | __O_TMPFILE)

#define AT_FDCWD		-100
#define AT_SYMLINK_NOFOLLOW	0x100
#define AT_REMOVEDIR		0x200
#define AT_EACCESS		0x200
#define AT_SYMLINK_FOLLOW	0x400
#define AT_NO_AUTOMOUNT		0x800
#define AT_EMPTY_PATH		0x1000
#define AT_RECURSIVE		0x8000	/* (open_tree: the whole subtree) */
#define OPEN_TREE_CLONE		1
#define OPEN_TREE_CLOEXEC	O_CLOEXEC
#define AT_STATX_SYNC_TYPE	0x6000
#define RENAME_NOREPLACE	1
#define RENAME_EXCHANGE		2
#define RENAME_WHITEOUT		4

#define S_IFMT   00170000
#define S_IFSOCK 0140000
#define S_IFLNK	 0120000
#define S_IFREG  0100000
#define S_IFBLK  0060000
#define S_IFDIR  0040000
#define S_IFCHR  0020000
#define S_IFIFO  0010000
#define S_ISUID  0004000
#define S_ISGID  0002000
#define S_ISVTX  0001000
#define S_IXGRP  00010
#define S_IWOTH  00002
#define S_IALLUGO 07777
#define S_ISLNK(m)	(((m) & S_IFMT) == S_IFLNK)
#define S_ISREG(m)	(((m) & S_IFMT) == S_IFREG)
#define S_ISDIR(m)	(((m) & S_IFMT) == S_IFDIR)
#define S_ISCHR(m)	(((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m)	(((m) & S_IFMT) == S_IFBLK)
#define S_ISFIFO(m)	(((m) & S_IFMT) == S_IFIFO)
#define S_ISSOCK(m)	(((m) & S_IFMT) == S_IFSOCK)
#define S_DEAD		(1 << 4)	/* i_flags: a removed directory */
#define S_NOATIME	(1 << 1)	/* i_flags: no atime updates */
#define S_NOSEC		(1 << 12)	/* i_flags: no suid or security attributes to drop at a write */
#define SB_NOSEC	(1 << 28)	/* s_flags: its inodes may have S_NOSEC */
#define S_PRIVATE	(1 << 9)
#define MAY_EXEC	0x01
#define MAY_WRITE	0x02
#define MAY_READ	0x04
#define MAY_ACCESS	0x10
#define MAY_OPEN	0x20

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define SEEK_DATA 3
#define SEEK_HOLE 4
#define MAX_LFS_FILESIZE 0x7fffffffffffffffL
#define MAX_RW_COUNT (0x7ffff000L)	/* INT_MAX & PAGE_MASK */
#define PATH_MAX 4096
#define NAME_MAX 255
#define MAXSYMLINKS 40
#define NR_OPEN_DEFAULT 64		/* BITS_PER_LONG: the fd_array[] in files_struct */

#include "kdev_t.h"
typedef unsigned int fmode_t;
#define FMODE_READ		0x1
#define FMODE_WRITE		0x2
#define FMODE_LSEEK		0x4
#define FMODE_PREAD		0x8
#define FMODE_PWRITE		0x10
#define FMODE_EXEC		0x20
#define FMODE_ATOMIC_POS	0x8000
#define FMODE_PATH		0x4000
#define FMODE_CAN_READ		0x20000
#define FMODE_CAN_WRITE		0x40000
#define FMODE_OPENED		0x80000
#define FMODE_CREATED		0x100000
#define FMODE_WRITER		0x10000	/* holds write access to its mount */
#define FMODE_RANDOM		0x1000
#define FMODE_STREAM		0x200000
#define FMODE_UNSIGNED_OFFSET	0x2000	/* any offset, as unsigned (/proc/PID/mem: addresses) */
#define FMODE_NOWAIT		0x8000000


/* ---- struct filename: getname()'s copy of a user path (name first, as opensnoop reads) ---- */
struct filename {
	const char *name;		/* pointer to the actual string */
	const char *uptr;		/* original userland pointer */
	int refcnt;
	void *aname;
	char iname[];
};
#define EMBEDDED_NAME_MAX (PATH_MAX - sizeof(struct filename))

struct qstr {
	union {
		struct { u32 hash; u32 len; };
		u64 hash_len;
	};
	const unsigned char *name;
};
#define QSTR_INIT(n, l) { { { .hash = 0, .len = l } }, .name = n }

struct vfsmount;
struct dentry;
struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};

struct inode;
struct super_block;
struct file;
struct kstat;
struct dir_context;
struct iov_iter;
struct kiocb;
struct seq_file;
struct iattr;

struct dentry_operations {
	int (*d_revalidate)(struct dentry *, unsigned int);
	int (*d_delete)(const struct dentry *);
	char *(*d_dname)(struct dentry *, char *, int);	/* the name of a dentry no directory holds */
};

#define DNAME_INLINE_LEN 32
#define DCACHE_MOUNTED		0x00010000
#define DCACHE_DENTRY_CURSOR	0x20000000
#define DCACHE_OP_DELETE	0x00000008
#define DCACHE_OP_REVALIDATE	0x00000004
#define DCACHE_HASHED		0x00000010	/* on the dentry hash (Linux: !d_unhashed()) */
struct dentry {
	unsigned int d_flags;
	u32 d_seq;
	struct list_head d_hash;	/* 6.1: hlist_bl_node, 16 bytes */
	struct dentry *d_parent;
	struct qstr d_name;
	struct inode *d_inode;		/* NULL: a negative dentry */
	unsigned char d_iname[DNAME_INLINE_LEN];
	struct { spinlock_t lock; int count; } d_lockref;
	const struct dentry_operations *d_op;
	struct super_block *d_sb;
	unsigned long d_time;
	void *d_fsdata;
	struct list_head d_lru;
	struct list_head d_child;	/* in the parent's d_subdirs */
	struct list_head d_subdirs;
	union {
		struct list_head d_alias;	/* on the inode's list while positive */
		struct rcu_head d_rcu;		/* its freeing, once off it */
	};				/* 6.1's d_u */
};

struct inode_operations {
	struct dentry *(*lookup)(struct inode *, struct dentry *, unsigned int);
	const char *(*get_link)(struct dentry *, struct inode *, char *buf);
	int (*permission)(struct inode *, int);
	int (*readlink)(struct dentry *, char *, int);
	int (*create)(struct inode *, struct dentry *, umode_t, bool);
	int (*link)(struct dentry *, struct inode *, struct dentry *);
	int (*unlink)(struct inode *, struct dentry *);
	int (*symlink)(struct inode *, struct dentry *, const char *);
	int (*mkdir)(struct inode *, struct dentry *, umode_t);
	int (*rmdir)(struct inode *, struct dentry *);
	int (*mknod)(struct inode *, struct dentry *, umode_t, dev_t);
	int (*rename)(struct inode *, struct dentry *, struct inode *, struct dentry *, unsigned int);
	int (*setattr)(struct dentry *, struct iattr *);
	int (*getattr)(const struct path *, struct kstat *, u32, unsigned int);
	ssize_t (*listxattr)(struct dentry *, char *, size_t);	/* NULL: no names (fs/xattr.c) */
};

struct poll_table_struct;
struct pipe_inode_info;
struct vm_area_struct;
struct file_operations {
	loff_t (*llseek)(struct file *, loff_t, int);
	ssize_t (*read)(struct file *, char *, size_t, loff_t *);
	ssize_t (*write)(struct file *, const char *, size_t, loff_t *);
	ssize_t (*read_iter)(struct kiocb *, struct iov_iter *);
	ssize_t (*write_iter)(struct kiocb *, struct iov_iter *);
	int (*iterate_shared)(struct file *, struct dir_context *);
	long (*unlocked_ioctl)(struct file *, unsigned int, unsigned long);
	int (*open)(struct inode *, struct file *);
	int (*release)(struct inode *, struct file *);
	/* each close of an fd of the file (filp_close), with the closing file table */
	int (*flush)(struct file *, void *id);
	int (*fsync)(struct file *, loff_t, loff_t, int datasync);
	long (*fcntl)(struct file *, unsigned int, unsigned long);	/* pipe_fcntl's place */
	/* O_ASYNC turned on or off (fcntl F_SETFL): the file's fasync list (fasync_helper) */
	int (*fasync)(int, struct file *, int);
	/* what /proc/PID/fdinfo/N adds of this kind of file (eventfd's count, epoll's items) */
	void (*show_fdinfo)(struct seq_file *m, struct file *f);
	/* what the file is ready for (EPOLL* bits), the caller queued on its wait queues by the
	 * poll_table (include/poll.h); none: always ready (DEFAULT_POLLMASK) */
	unsigned int (*poll)(struct file *, struct poll_table_struct *);
	/* a MAP_SHARED mapping of memory the host can share (the perf pool, kernel/mmap.c):
	 * the pool region mapped, or -errno */
	long (*mmap_shared)(struct file *, unsigned long len, unsigned long prot, unsigned long flags,
			    unsigned long pgoff);
	/* size bytes of a page at offset, written by sendfile (6.1: splice's pipe_to_sendpage) */
	ssize_t (*sendpage)(struct file *, struct page *, int, size_t, loff_t *, int);
	/* space for [offset, offset + len) (FALLOC_FL_* mode): fs/open.c's vfs_fallocate */
	long (*fallocate)(struct file *, int mode, loff_t offset, loff_t len);
	/* splice(2) (fs/splice.c): up to len bytes from *ppos into the pipe's free buffers, or
	 * from the pipe's buffers to the file at *ppos; none: EINVAL */
	ssize_t (*splice_write)(struct pipe_inode_info *, struct file *, loff_t *, size_t, unsigned int);
	ssize_t (*splice_read)(struct file *, loff_t *, struct pipe_inode_info *, size_t, unsigned int);
	/* the new VMA of a mapping of the file set up (its vm_ops: how its pages fault in);
	 * none: its pages are read from it (kernel/mmap.c's file_vm_ops), shared ones read-only */
	int (*mmap)(struct file *, struct vm_area_struct *);
};

/* A file's pages (mm/filemap's address space, reduced to its page array). */
struct address_space_operations;
struct address_space {
	struct inode *host;
	void **pages;			/* kernel addresses of the pages, by index; NULL: a hole */
	unsigned long nr_slots;
	unsigned long nrpages;
	unsigned long writeback_index;	/* where the last cyclic writeback stopped */
	const struct address_space_operations *a_ops;	/* include/pagemap.h; NULL: memory only */
	spinlock_t i_pages_lock;	/* 6.1's xa_lock of i_pages: slots set and cleared under it */
	/* the VMAs mapping the file (6.1's i_mmap interval tree; a list here), for truncate's
	 * unmap_mapping_range, and how many of them are VM_SHARED and VM_MAYWRITE (negative:
	 * none may be made, F_SEAL_WRITE), both under i_mmap_rwsem */
	struct list_head i_mmap;
	int i_mmap_writable;
	struct mutex i_mmap_rwsem;
};

struct pipe_inode_info;
struct inode {
	umode_t i_mode;
	unsigned short i_opflags;
	uid_t i_uid;
	uid_t i_gid;
	unsigned int i_flags;
	void *i_acl, *i_default_acl;
	const struct inode_operations *i_op;
	struct super_block *i_sb;
	struct address_space *i_mapping;
	void *i_security;
	unsigned long i_ino;
	unsigned int i_nlink;
	dev_t i_rdev;
	loff_t i_size;
	struct timespec64 i_atime, i_mtime, i_ctime;
	spinlock_t i_lock;
	unsigned short i_bytes;
	u8 i_blkbits, i_write_hint;
	u64 i_blocks;
	unsigned long i_state;
	struct mutex i_rwsem;		/* 6.1: an rw_semaphore */
	struct list_head i_sb_list;	/* in its super block's s_inodes */
	struct list_head i_dentry;	/* the dentries naming it */
	int i_count;
	int i_writecount;
	int i_readcount;		/* open read-only (6.1 with CONFIG_IMA, as Debian's) */
	const struct file_operations *i_fop;
	void *i_flctx;
	struct address_space i_data;
	union {
		struct pipe_inode_info *i_pipe;
		char *i_link;
	};
	u32 i_generation;
	void *i_private;
	const void *i_entry;		/* procfs: the entry (or fd) it was made from (6.1: PROC_I(inode)) */
	/* writeback (fs/fs-writeback.c): its flusher, its place in the flusher's dirty list */
	struct bdi_writeback *i_wb;
	struct list_head i_io_list;
	unsigned long dirtied_when;	/* jiffies of its first dirtying */
	/* fsnotify (include/fsnotify_backend.h): its marks, the union of their masks */
	u32 i_fsnotify_mask;
	struct fsnotify_mark_connector *i_fsnotify_marks;
};

struct file_system_type;
struct export_operations;
struct kstatfs {
	long f_type, f_bsize;
	u64 f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	struct { int val[2]; } f_fsid;
	long f_namelen, f_frsize, f_flags, f_spare[4];
};
struct super_operations {
	struct inode *(*alloc_inode)(struct super_block *sb);	/* zeroed, its own structure around it */
	void (*free_inode)(struct inode *);
	void (*evict_inode)(struct inode *);
	int (*statfs)(struct dentry *, struct kstatfs *);
	int (*show_options)(struct seq_file *, struct dentry *);
};
/* include/linux/xattr.h: the attributes of a name prefix ("" here: every name) */
struct xattr_handler {
	const char *name;
	const char *prefix;
	int flags;
	int (*get)(const struct xattr_handler *, struct dentry *dentry, struct inode *inode,
		   const char *name, void *buffer, size_t size);
	/* value NULL: remove (flags XATTR_CREATE, XATTR_REPLACE) */
	int (*set)(const struct xattr_handler *, struct dentry *dentry, struct inode *inode,
		   const char *name, const void *value, size_t size, int flags);
};
extern const struct super_operations simple_super_operations;
int simple_statfs(struct dentry *dentry, struct kstatfs *buf);
int vfs_statfs(const struct path *path, struct kstatfs *buf);
#define SB_RDONLY	1
#define SB_SYNCHRONOUS	16
#define SB_MANDLOCK	64
#define SB_DIRSYNC	128
#define SB_SILENT	32768
#define SB_POSIXACL	(1 << 16)
#define SB_I_VERSION	(1 << 23)
#define SB_LAZYTIME	(1 << 25)
#define SB_NOUSER	(1 << 31)	/* no user's mount (a pseudo file system's) */
struct super_block {
	struct list_head s_list;
	dev_t s_dev;
	unsigned char s_blocksize_bits;
	unsigned long s_blocksize;
	loff_t s_maxbytes;
	struct file_system_type *s_type;
	const struct super_operations *s_op;
	void *dq_op, *s_qcop;
	const struct export_operations *s_export_op;	/* include/exportfs.h; NULL: the generic handles */
	unsigned long s_flags;
	unsigned long s_iflags;
	unsigned long s_magic;
	struct dentry *s_root;
	const struct dentry_operations *s_d_op;	/* the default of its dentries */
	unsigned long s_next_ino;
	struct list_head s_inodes;
	u8 __pad0[168 - 144];
	const struct xattr_handler **s_xattr;	/* NULL: no extended attributes (EOPNOTSUPP) */
	u8 __pad[968 - 176];
	char s_id[32];
	void *s_fs_info;
	long s_fsnotify_connectors;	/* its inodes with fsnotify marks (6.1's, an atomic count) */
	struct list_head s_mounts;	/* its mounts (mount.mnt_instance) */
	int s_active;			/* its active users: its mounts, the mount contexts on it (deactivate_super) */
};

#define MNT_NOSUID	0x01
#define MNT_NODEV	0x02
#define MNT_NOEXEC	0x04
#define SB_I_NOEXEC	0x00000002	/* super_block.s_iflags: ignore executables */
#define SB_I_NODEV	0x00000004	/* ... and device files */
bool path_noexec(const struct path *path);

/* fs/inode.c, fs/attr.c: a write drops the set-id bits and file capabilities */
int file_remove_privs(struct file *file);
int file_modified(struct file *file);
/* include/uapi/linux/falloc.h: fallocate(2)'s modes */
#define FALLOC_FL_KEEP_SIZE	0x01	/* the size stays */
#define FALLOC_FL_PUNCH_HOLE	0x02	/* the range's blocks go */
#define FALLOC_FL_NO_HIDE_STALE	0x04
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#define FALLOC_FL_ZERO_RANGE	0x10
#define FALLOC_FL_INSERT_RANGE	0x20
#define FALLOC_FL_UNSHARE_RANGE	0x40
#define FALLOC_FL_SUPPORTED_MASK (FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE | \
				  FALLOC_FL_ZERO_RANGE | FALLOC_FL_INSERT_RANGE | FALLOC_FL_UNSHARE_RANGE)
int dentry_needs_remove_privs(void *idmap, struct dentry *dentry);
int setattr_should_drop_suidgid(void *idmap, struct inode *inode);
int setattr_should_drop_sgid(void *idmap, const struct inode *inode);
bool in_group_or_capable(void *idmap, const struct inode *inode, gid_t gid);
ssize_t __vfs_getxattr(struct dentry *dentry, struct inode *inode, const char *name, void *value, size_t size);
#define MNT_NOATIME	0x08
#define MNT_RELATIME	0x20
#define MNT_NODIRATIME	0x10
#define MNT_READONLY	0x40
#define MNT_NOSYMFOLLOW	0x80
#define MNT_SHARED	0x1000		/* in a peer group (pnode.c) */
#define MNT_UNBINDABLE	0x2000
#define MNT_INTERNAL	0x4000
#define MNT_UMOUNT	0x8000000	/* umount_tree() took it out of its namespace */
#define MNT_ATIME_MASK	(MNT_NOATIME | MNT_NODIRATIME | MNT_RELATIME)
#define MNT_USER_SETTABLE_MASK (MNT_NOSUID | MNT_NODEV | MNT_NOEXEC | MNT_NOATIME | MNT_NODIRATIME | \
				MNT_RELATIME | MNT_READONLY | MNT_NOSYMFOLLOW)
struct vfsmount {
	struct dentry *mnt_root;
	struct super_block *mnt_sb;
	int mnt_flags;
	void *mnt_userns;
};
struct mount {
	struct list_head mnt_hash;
	struct mount *mnt_parent;
	struct dentry *mnt_mountpoint;
	struct vfsmount mnt;
	u8 __rcu[16];
	void *mnt_pcp;
	struct list_head mnt_mounts;	/* its children */
	struct list_head mnt_child;	/* in its parent's mnt_mounts */
	struct list_head mnt_instance;
	const char *mnt_devname;
	struct list_head mnt_list;	/* in the namespace's list, in mount order */
	int mnt_count;
	int mnt_id;
	int mnt_writers;	/* write accesses held (mnt_want_write) */
	/* propagation (fs/pnode.c): peers share a group id; a slave is on its master's list */
	struct list_head mnt_share;	/* its peers, MNT_SHARED */
	struct list_head mnt_slave_list;	/* its slaves */
	struct list_head mnt_slave;	/* in its master's mnt_slave_list */
	struct mount *mnt_master;	/* NULL: not a slave */
	int mnt_group_id;		/* its peer group (0: none) */
	int mnt_expiry_mark;		/* umount2(MNT_EXPIRE)'s mark, cleared by a use (mntput) */
};
static inline struct mount *real_mount(struct vfsmount *mnt) { return container_of(mnt, struct mount, mnt); }

/* The mount namespace (fs/mount.h): one, every task's (nsproxy->mnt_ns), its ns_common where
 * Debian 6.1's is (mountsnoop reads task->nsproxy->mnt_ns->ns.inum) */
struct mnt_namespace {
	struct ns_common ns;
	struct mount *root;
	struct list_head list;		/* its mounts, in mount order */
};
_Static_assert(offsetof(struct mnt_namespace, ns) == 0 && offsetof(struct mnt_namespace, root) == 24 &&
	       offsetof(struct mnt_namespace, list) == 32, "struct mnt_namespace as Debian 6.1's");
extern struct mnt_namespace init_mnt_ns;

#define FS_REQUIRES_DEV 1
struct fs_context;
struct file_system_type {
	const char *name;
	int fs_flags;
	int (*fill_super)(struct super_block *sb, void *data);
	/* one option of a mount(2)'s data, "key=value" (value NULL: "key"); NULL: the type takes
	 * none (6.1's fs_context_operations.parse_param; -ENOPARAM: not one of its own) */
	int (*parse_param)(struct fs_context *fc, const char *key, const char *value);
	int (*parse_monolithic)(struct fs_context *fc, void *data);	/* NULL: generic_parse_monolithic */
	int (*get_tree)(struct fs_context *fc);	/* NULL: get_tree_nodev (a new super block a mount) */
	struct file_system_type *next;
	unsigned long magic;
};

/*
 * A mount(2) being made or a super block being reconfigured (include/linux/fs_context.h, the
 * part the model has): the super block flags asked for and the type's own options, parsed
 * into fs_private (its fill_super's data).
 */
struct fs_context {
	struct file_system_type *fs_type;
	void *fs_private;		/* NULL on a reconfiguration: the type's options are not changed */
	const char *source;
	struct dentry *root;		/* vfs_get_tree()'s super block's root */
	unsigned int sb_flags, sb_flags_mask;
	umode_t mode;			/* fs_private's storage for the types whose data is a mode */
};
#define ENOPARAM 519
struct fs_context *fs_context_for_mount(struct file_system_type *fs_type, unsigned int sb_flags);
struct fs_context *fs_context_for_reconfigure(struct dentry *dentry, unsigned int sb_flags, unsigned int sb_flags_mask);
int vfs_parse_fs_string(struct fs_context *fc, const char *key, const char *value, size_t v_size);
int parse_monolithic_mount_data(struct fs_context *fc, void *data);
int generic_parse_monolithic(struct fs_context *fc, void *data);
struct vfsmount *vfs_create_mount(struct fs_context *fc);
int vfs_get_tree(struct fs_context *fc);
int get_tree_nodev(struct fs_context *fc);
void put_fs_context(struct fs_context *fc);

/* data's options, "key[=value]" separated by commas, one at a time to vfs_parse_fs_string (the
 * loop of generic_parse_monolithic and of the types' own parse_monolithic) */
static __always_inline int vfs_parse_monolithic_sep(struct fs_context *fc, char *options)
{
	char *key;

	while ((key = strsep(&options, ",")) != NULL) {
		char *value;
		int ret;

		if (!*key)
			continue;
		value = strnchr(key, strlen(key), '=');
		if (value) {
			if (value == key)
				continue;
			*value++ = 0;
		}
		ret = vfs_parse_fs_string(fc, key, value, value ? strlen(value) : 0);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Who a file's SIGIO goes to (fcntl F_SETOWN(_EX)): a task, its process or a process group,
 * with the setter's ids (the permission send_sigio checks) and F_SETSIG's signal (0: SIGIO) */
struct fown_struct {
	union { spinlock_t lock; u64 __lock_word; };	/* 6.1: an rwlock_t */
	pid_t pid;			/* 6.1: a struct pid * */
	u32 __pid_word;
	enum pid_type pid_type;
	uid_t uid, euid;
	int signum;
};
_Static_assert(sizeof(struct fown_struct) == 32, "fown_struct as 6.1's");

/* An open file's entry on a list of those told of I/O by signal (fasync_helper's: a pipe's
 * readers, a lease's holder) */
struct fasync_struct {
	spinlock_t fa_lock;		/* (6.1: an rwlock) */
	int magic;
	int fa_fd;
	struct fasync_struct *fa_next;
	struct file *fa_file;
	struct rcu_head fa_rcu;
};
#define FASYNC_MAGIC 0x4601
int fasync_helper(int fd, struct file *filp, int on, struct fasync_struct **fapp);
struct fasync_struct *fasync_insert_entry(int fd, struct file *filp, struct fasync_struct **fapp,
					  struct fasync_struct *new);
int fasync_remove_entry(struct file *filp, struct fasync_struct **fapp);
struct fasync_struct *fasync_alloc(void);
void fasync_free(struct fasync_struct *new);
void kill_fasync(struct fasync_struct **fp, int sig, int band);
void __f_setown(struct file *filp, pid_t pid, enum pid_type type, int force);
void f_delown(struct file *filp);
int f_setown(struct file *filp, unsigned long arg, int force);
pid_t f_getown(struct file *filp);
struct file {
	union {
		struct { void *next, *func; } f_rcuhead;	/* 6.1's callback_head: 16 bytes */
		unsigned int f_iocb_flags;
	};
	struct path f_path;
	struct inode *f_inode;
	const struct file_operations *f_op;
	spinlock_t f_lock;
	long f_count;
	unsigned int f_flags;
	fmode_t f_mode;
	struct mutex f_pos_lock;
	u8 __pad_pos[104 - 72 - sizeof(struct mutex)];
	loff_t f_pos;
	struct fown_struct f_owner;
	const void *f_cred;
	struct file_ra_state {		/* readahead state (none is done here) */
		unsigned long start;
		unsigned int size, async_size, ra_pages, mmap_miss;
		loff_t prev_pos;
	} f_ra;
	u64 f_version;
	void *f_security;
	void *private_data;
	void *f_ep;
	struct address_space *f_mapping;
	u32 f_wb_err, f_sb_err;
};

struct fs_struct {
	int users;
	spinlock_t lock;
	u32 seq;
	int umask;
	int in_exec;
	struct path root, pwd;
};

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
	unsigned long *close_on_exec;
	unsigned long *open_fds;
	unsigned long *full_fds_bits;
	struct rcu_head rcu;
};
struct files_struct {
	int count;
	bool resize_in_progress;
	wait_queue_head_t resize_wait;
	u8 __pad_wait[32 - 8 - sizeof(wait_queue_head_t)];
	struct fdtable *fdt;
	struct fdtable fdtab;
	spinlock_t file_lock __aligned(64);
	unsigned int next_fd;
	unsigned long close_on_exec_init[1];
	unsigned long open_fds_init[1];
	unsigned long full_fds_bits_init[1];
	struct file *fd_array[NR_OPEN_DEFAULT];
} __aligned(64);

/* struct kstat and the user's struct stat / statx */
struct kstat {
	u32 result_mask;
	umode_t mode;
	unsigned int nlink;
	u32 blksize;
	u64 attributes, attributes_mask;
	u64 ino;
	dev_t dev, rdev;
	uid_t uid, gid;
	loff_t size;
	struct timespec64 atime, mtime, ctime, btime;
	u64 blocks;
	u64 mnt_id;
};

/* getdents64: the dir_context an ->iterate_shared fills */
struct dir_context;
typedef bool (*filldir_t)(struct dir_context *, const char *, int, loff_t, u64, unsigned int);
struct dir_context {
	filldir_t actor;
	loff_t pos;
};
#define DT_UNKNOWN 0
#define DT_FIFO 1
#define DT_CHR 2
#define DT_DIR 4
#define DT_BLK 6
#define DT_REG 8
#define DT_LNK 10
#define DT_SOCK 12
unsigned char fs_umode_to_dtype(umode_t mode);

/* iov_iter / kiocb: the ->read_iter / ->write_iter interface */
struct iovec { void *iov_base; size_t iov_len; };
struct kvec { void *iov_base; size_t iov_len; };
enum iter_type { ITER_IOVEC, ITER_KVEC, ITER_UBUF };
struct iov_iter {
	u8 iter_type;
	bool data_source;		/* WRITE: the iterator's memory is read */
	size_t iov_offset;		/* in the current segment */
	size_t count;			/* bytes left */
	union {
		const struct iovec *iov;
		const struct kvec *kvec;
		void *ubuf;
	};
	unsigned long nr_segs;
};
#define READ 0
#define WRITE 1
struct kiocb {
	struct file *ki_filp;
	loff_t ki_pos;
	int ki_flags;
};
#define IOCB_APPEND	(1 << 1)
#define IOCB_NOWAIT	(1 << 7)

struct iattr {
	unsigned int ia_valid;
	umode_t ia_mode;
	uid_t ia_uid;			/* ATTR_UID: the new owner (6.1: ia_vfsuid) */
	gid_t ia_gid;			/* ATTR_GID: the new group */
	loff_t ia_size;
	struct timespec64 ia_atime, ia_mtime, ia_ctime;	/* ATTR_ATIME/MTIME/CTIME: set to these */
};
#define ATTR_MODE	(1 << 0)
#define ATTR_UID	(1 << 1)
#define ATTR_GID	(1 << 2)
#define ATTR_SIZE	(1 << 3)
#define ATTR_ATIME	(1 << 4)
#define ATTR_MTIME	(1 << 5)
#define ATTR_CTIME	(1 << 6)
#define ATTR_ATIME_SET	(1 << 7)
#define ATTR_MTIME_SET	(1 << 8)
#define ATTR_TIMES_SET	(1 << 16)
#define ATTR_TOUCH	(1 << 17)
#define ATTR_FORCE	(1 << 9)	/* not a change of the caller's: no permission checks */
#define ATTR_KILL_SUID	(1 << 11)
#define ATTR_KILL_SGID	(1 << 12)
#define ATTR_KILL_PRIV	(1 << 14)
void setattr_copy(void *idmap, struct inode *inode, const struct iattr *attr);
int setattr_prepare(void *idmap, struct dentry *dentry, struct iattr *attr);
int inode_newsize_ok(const struct inode *inode, loff_t offset);
int simple_setattr(void *idmap, struct dentry *dentry, struct iattr *iattr);
/* fs/locks.c */
void filelock_init(void);
void fcntl_init(void);
void locks_remove_file(struct file *filp);
void locks_free_lock_context(struct inode *inode);

/* ---- nameidata-facing helpers (namei.c) ---- */
#define LOOKUP_FOLLOW		0x0001
#define LOOKUP_DIRECTORY	0x0002
#define LOOKUP_AUTOMOUNT	0x0004	/* (no automount points here) */
#define LOOKUP_EMPTY		0x4000
#define LOOKUP_PARENT		0x0010
/* openat2's RESOLVE_* flags as the walk's (build_open_flags) */
#define LOOKUP_NO_SYMLINKS	0x010000	/* no symlink crossing */
#define LOOKUP_NO_MAGICLINKS	0x020000	/* no nd_jump_link() crossing */
#define LOOKUP_NO_XDEV		0x040000	/* no mountpoint crossing */
#define LOOKUP_BENEATH		0x080000	/* no escaping from the starting point */
#define LOOKUP_IN_ROOT		0x100000	/* the dirfd is the walk's root */
#define LOOKUP_CACHED		0x200000	/* only what the dcache has */
#define LOOKUP_IS_SCOPED	(LOOKUP_BENEATH | LOOKUP_IN_ROOT)
int nd_jump_link(const struct path *path);
bool path_is_under(const struct path *path1, const struct path *path2);
bool is_subdir(struct dentry *new_dentry, struct dentry *old_dentry);

struct open_flags {
	int open_flag;
	umode_t mode;
	int acc_mode;
	int intent;
	int lookup_flags;
};

/* pipes (pipe.c) */
#define PIPE_DEF_BUFFERS 16
struct pipe_buffer {
	void *page;		/* 6.1: struct page *; here the page's kernel address */
	unsigned int offset, len;
	const void *ops;
	unsigned int flags;
	unsigned long private;
};
#define PIPE_BUF_FLAG_CAN_MERGE 0x10	/* a write may add to the buffer's page */
struct pipe_inode_info {
	struct mutex mutex;
	wait_queue_head_t rd_wait, wr_wait;
	unsigned int head, tail;
	unsigned int max_usage, ring_size;
	unsigned int nr_accounted;
	unsigned int readers, writers, files;
	unsigned int r_counter, w_counter;
	bool poll_usage;
	void *tmp_page;
	struct fasync_struct *fasync_readers, *fasync_writers;
	struct pipe_buffer *bufs;
	void *user;
};

/* /proc files made by a seq_operations' show (seq_file.c) */
struct seq_file;
#define SEQ_START_TOKEN ((void *)1)
struct seq_operations {
	void *(*start)(struct seq_file *m, loff_t *pos);
	void (*stop)(struct seq_file *m, void *v);
	void *(*next)(struct seq_file *m, void *v, loff_t *pos);
	int (*show)(struct seq_file *m, void *v);
};

struct seq_file {
	char *buf;
	size_t size, count, from;
	loff_t index;
	const struct seq_operations *op;
	void *private;
};

/* 6.1's offsets of what probes and tools dereference (pahole on 6.1's BTF vmlinux) */
_Static_assert(offsetof(struct filename, name) == 0 && offsetof(struct filename, uptr) == 8 &&
	       offsetof(struct filename, iname) == 32, "struct filename as 6.1's");
_Static_assert(offsetof(struct path, mnt) == 0 && offsetof(struct path, dentry) == 8, "struct path");
_Static_assert(offsetof(struct qstr, name) == 8 && sizeof(struct qstr) == 16, "struct qstr");
_Static_assert(offsetof(struct dentry, d_parent) == 24 && offsetof(struct dentry, d_name) == 32 &&
	       offsetof(struct dentry, d_inode) == 48 && offsetof(struct dentry, d_iname) == 56 &&
	       offsetof(struct dentry, d_sb) == 104, "struct dentry as 6.1's");
_Static_assert(offsetof(struct inode, i_mode) == 0 && offsetof(struct inode, i_uid) == 4 &&
	       offsetof(struct inode, i_op) == 32 && offsetof(struct inode, i_sb) == 40 &&
	       offsetof(struct inode, i_ino) == 64 && offsetof(struct inode, i_nlink) == 72 &&
	       offsetof(struct inode, i_rdev) == 76 && offsetof(struct inode, i_size) == 80 &&
	       offsetof(struct inode, i_atime) == 88 && offsetof(struct inode, i_mtime) == 104 &&
	       offsetof(struct inode, i_ctime) == 120, "struct inode as 6.1's");
_Static_assert(offsetof(struct super_block, s_dev) == 16 && offsetof(struct super_block, s_type) == 40 &&
	       offsetof(struct super_block, s_magic) == 96 && offsetof(struct super_block, s_root) == 104 &&
	       offsetof(struct super_block, s_xattr) == 168 && offsetof(struct super_block, s_id) == 968,
	       "struct super_block as 6.1's");
_Static_assert(offsetof(struct vfsmount, mnt_root) == 0 && offsetof(struct vfsmount, mnt_sb) == 8 &&
	       offsetof(struct vfsmount, mnt_flags) == 16, "struct vfsmount");
_Static_assert(offsetof(struct mount, mnt_parent) == 16 && offsetof(struct mount, mnt_mountpoint) == 24 &&
	       offsetof(struct mount, mnt) == 32 && offsetof(struct mount, mnt_devname) == 136, "struct mount");
_Static_assert(offsetof(struct file, f_path) == 16 && offsetof(struct file, f_inode) == 32 &&
	       offsetof(struct file, f_op) == 40 && offsetof(struct file, f_count) == 56 &&
	       offsetof(struct file, f_flags) == 64 && offsetof(struct file, f_mode) == 68 &&
	       offsetof(struct file, f_pos) == 104 && offsetof(struct file, private_data) == 200 &&
	       offsetof(struct file, f_mapping) == 216, "struct file as 6.1's");
_Static_assert(offsetof(struct fs_struct, umask) == 12 && offsetof(struct fs_struct, root) == 24 &&
	       offsetof(struct fs_struct, pwd) == 40, "struct fs_struct");
_Static_assert(offsetof(struct files_struct, fdt) == 32 && offsetof(struct files_struct, fdtab) == 40 &&
	       offsetof(struct files_struct, next_fd) == 132 && offsetof(struct files_struct, fd_array) == 160,
	       "struct files_struct");
_Static_assert(offsetof(struct fdtable, fd) == 8 && offsetof(struct fdtable, open_fds) == 24, "struct fdtable");
_Static_assert(offsetof(struct pipe_inode_info, head) == 80 && offsetof(struct pipe_inode_info, readers) == 100 &&
	       offsetof(struct pipe_inode_info, bufs) == 152, "struct pipe_inode_info");
struct pipe_inode_info *get_pipe_info(struct file *file, bool for_splice);
void pipe_lock(struct pipe_inode_info *pipe);
void pipe_unlock(struct pipe_inode_info *pipe);
void pipe_double_lock(struct pipe_inode_info *pipe1, struct pipe_inode_info *pipe2);
/* (6.1's return nothing: here -ERESTARTSYS when a signal, or a session task's host call
 * ending, cut the wait short) */
int pipe_wait_readable(struct pipe_inode_info *pipe);
int pipe_wait_writable(struct pipe_inode_info *pipe);
void anon_pipe_buf_release(struct pipe_inode_info *pipe, struct pipe_buffer *buf);
bool generic_pipe_buf_get(struct pipe_inode_info *pipe, struct pipe_buffer *buf);
static inline unsigned int pipe_occupancy(unsigned int head, unsigned int tail) { return head - tail; }
static inline bool pipe_empty(unsigned int head, unsigned int tail) { return head == tail; }
static inline bool pipe_full(unsigned int head, unsigned int tail, unsigned int limit)
{
	return pipe_occupancy(head, tail) >= limit;
}
/* splice.c: the file systems' splice_read and splice_write */
ssize_t generic_file_splice_read(struct file *in, loff_t *ppos, struct pipe_inode_info *pipe, size_t len,
				 unsigned int flags);
ssize_t iter_file_splice_write(struct pipe_inode_info *pipe, struct file *out, loff_t *ppos, size_t len,
			       unsigned int flags);

/* ---- interfaces ---- */
extern const struct dentry_operations simple_dentry_operations;

/* super.c, filesystems.c, namespace.c */
int register_filesystem(struct file_system_type *fs);
struct file_system_type *get_fs_type(const char *name);
void iterate_supers(void (*f)(struct super_block *, void *), void *arg);
struct super_block *user_get_super(dev_t dev, bool excl);
struct super_block *mount_nodev(struct file_system_type *fs_type, int flags, void *data);
void deactivate_super(struct super_block *s);
int reconfigure_super(struct fs_context *fc);
int sb_prepare_remount_readonly(struct super_block *sb);
void mnt_propagation_clone(struct mount *mnt, struct mount *old);
void change_mnt_propagation(struct mount *mnt, int type);
int mnt_alloc_group_id(struct mount *mnt);
void mnt_release_group_id(struct mount *mnt);
void chroot_fs_refs(const struct path *old_root, const struct path *new_root);
struct vfsmount *vfs_kern_mount(struct file_system_type *type, int flags, const char *name, void *data);
struct vfsmount *kern_mount(struct file_system_type *type);
int do_add_mount_at(struct vfsmount *mnt, const struct path *where);
struct vfsmount *lookup_mnt(const struct path *path);
struct vfsmount *clone_mnt(struct vfsmount *old, struct dentry *root);
void mnt_set_root(struct vfsmount *mnt);
void mnt_add_tree(struct vfsmount *mnt);
struct vfsmount *mntget(struct vfsmount *mnt);
void mntput(struct vfsmount *mnt);
void mnt_init(void);
int show_mounts(struct seq_file *m, void *v);
int show_mountinfo(struct seq_file *m, void *v);
int filesystems_proc_show(struct seq_file *m, void *v);
bool __mnt_is_readonly(struct vfsmount *mnt);
bool atime_needs_update(const struct path *path, struct inode *inode);
void touch_atime(const struct path *path);
void clear_inode(struct inode *inode);
#define MAX_NON_LFS	((1UL << 31) - 1)
int generic_file_open(struct inode *inode, struct file *filp);
/* a read's access time (O_NOATIME: none) */
static inline void file_accessed(struct file *file)
{
	if (!(file->f_flags & O_NOATIME))
		touch_atime(&file->f_path);
}
int __mnt_want_write(struct vfsmount *m);
int mnt_want_write(struct vfsmount *m);
void __mnt_drop_write(struct vfsmount *mnt);
void mnt_drop_write(struct vfsmount *mnt);
int __mnt_want_write_file(struct file *file);
void __mnt_drop_write_file(struct file *file);
int mnt_want_write_file(struct file *file);
void mnt_drop_write_file(struct file *file);
extern struct vfsmount *root_mnt;

/* dcache.c, inode.c */
struct dentry *d_alloc(struct dentry *parent, const struct qstr *name);
struct dentry *d_alloc_anon(struct super_block *sb);
struct dentry *d_alloc_cursor(struct dentry *parent);
extern spinlock_t dcache_lock;
void d_set_d_op(struct dentry *dentry, const struct dentry_operations *op);
bool d_same_name(const struct dentry *dentry, const struct dentry *parent, const struct qstr *name);
void inode_sb_list_add(struct inode *inode);
struct dentry *d_alloc_name(struct dentry *parent, const char *name);
struct dentry *d_make_root(struct inode *root_inode);
struct dentry *d_lookup(const struct dentry *parent, const struct qstr *name);
void d_add(struct dentry *dentry, struct inode *inode);
void d_instantiate(struct dentry *dentry, struct inode *inode);
void d_delete(struct dentry *dentry);
void d_drop(struct dentry *dentry);
void d_invalidate(struct dentry *dentry);
void d_move(struct dentry *dentry, struct dentry *target);
struct dentry *dget(struct dentry *dentry);
struct dentry *dget_parent(struct dentry *dentry);
void dput(struct dentry *dentry);
char *d_path(const struct path *path, char *buf, int buflen);
char *dynamic_dname(char *buffer, int buflen, const char *fmt, ...);
struct file *anon_inode_getfile(const char *name, const struct file_operations *fops, void *priv, int flags);
int anon_inode_getfd(const char *name, const struct file_operations *fops, void *priv, int flags);
u32 full_name_hash(const void *salt, const char *name, unsigned int len);
void path_get(const struct path *path);
void path_put(const struct path *path);
static inline bool d_is_dir(const struct dentry *d) { return d->d_inode && S_ISDIR(d->d_inode->i_mode); }
static inline bool special_file(umode_t mode) { return S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) || S_ISSOCK(mode); }
static inline bool d_mountpoint(const struct dentry *d) { return d->d_flags & DCACHE_MOUNTED; }
static inline bool d_unhashed(const struct dentry *d) { return !(d->d_flags & DCACHE_HASHED); }
static inline bool is_sxid(umode_t mode) { return mode & (S_ISUID | S_ISGID); }
static inline bool IS_NOSEC(const struct inode *inode)
{
	return (inode->i_sb->s_flags & SB_NOSEC) && (inode->i_flags & S_NOSEC);
}
/* a write found nothing to drop: the next ones need not look (until a mode change or a
 * security attribute) */
static inline void inode_has_no_xattr(struct inode *inode)
{
	if (!is_sxid(inode->i_mode) && (inode->i_sb->s_flags & SB_NOSEC))
		inode->i_flags |= S_NOSEC;
}
struct inode *new_inode(struct super_block *sb);
struct inode *ilookup5(struct super_block *sb, unsigned long hashval, int (*test)(struct inode *, void *), void *data);
struct inode *ihold(struct inode *inode);
void iput(struct inode *inode);
void inode_init_owner(struct inode *inode, const struct inode *dir, umode_t mode);
void init_special_inode(struct inode *inode, umode_t mode, dev_t rdev);
unsigned int get_next_ino(void);
struct timespec64 current_time(struct inode *inode);
void set_nlink(struct inode *inode, unsigned int nlink);
void clear_nlink(struct inode *inode);
void inc_nlink(struct inode *inode);
void drop_nlink(struct inode *inode);
void vfs_caches_init(void);

/* namei.c */
struct filename *getname(const char *filename);
struct filename *getname_flags(const char *filename, int flags, int *empty);
struct filename *getname_kernel(const char *filename);
struct filename *getname_uflags(const char *filename, int uflags);
void putname(struct filename *name);
int filename_lookup(int dfd, struct filename *name, unsigned int flags, struct path *path, struct path *root);
int kern_path(const char *name, unsigned int flags, struct path *path);
int vfs_path_lookup(struct dentry *dentry, struct vfsmount *mnt, const char *name, unsigned int flags,
		    struct path *path);
int user_path_at_empty(int dfd, const char *name, unsigned int flags, struct path *path, int *empty);
struct file *do_filp_open(int dfd, struct filename *pathname, const struct open_flags *op);
int inode_permission(struct inode *inode, int mask);
int generic_permission(void *idmap, struct inode *inode, int mask);
struct dentry *kern_path_create(int dfd, const char *pathname, struct path *path, unsigned int lookup_flags);
void done_path_create(struct path *path, struct dentry *dentry);
int vfs_mkdir(void *idmap, struct inode *dir, struct dentry *dentry, umode_t mode);
int vfs_unlink(void *idmap, struct inode *dir, struct dentry *dentry, struct inode **delegated);
/* a regular file made by f(dentry, mode, arg): a file system's own objects (mqueue's queues) */
int vfs_mkobj(struct dentry *dentry, umode_t mode, int (*f)(struct dentry *, umode_t, void *), void *arg);
struct dentry *lookup_one_len(const char *name, struct dentry *base, int len);
/* vfs_rename()'s arguments, as 6.1 passes them (the mount's user namespaces: the one there is) */
struct user_namespace;
struct renamedata {
	struct user_namespace *old_mnt_userns;
	struct inode *old_dir;
	struct dentry *old_dentry;
	struct user_namespace *new_mnt_userns;
	struct inode *new_dir;
	struct dentry *new_dentry;
	struct inode **delegated_inode;
	unsigned int flags;
};
int vfs_rename(struct renamedata *rd);
int vfs_mknod(void *idmap, struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev);
int vfs_symlink(void *idmap, struct inode *dir, struct dentry *dentry, const char *oldname);
int readlink_copy(char *buffer, int buflen, const char *link);	/* (fs/namei.c) */
int init_mkdir(const char *pathname, umode_t mode);
int init_mknod(const char *filename, umode_t mode, unsigned int dev);
int init_symlink(const char *oldname, const char *newname);

/* open.c, file_table.c, file.c */
struct file *alloc_empty_file(int flags, const void *cred);
struct cred;
struct file *dentry_open(const struct path *path, int flags, const struct cred *cred);
struct file *alloc_file_clone(struct file *base, int flags, const struct file_operations *fops);
struct file *alloc_file_pseudo(struct inode *inode, struct vfsmount *mnt, const char *name,
			       int flags, const struct file_operations *fops);
struct file *filp_open(const char *filename, int flags, umode_t mode);
int vfs_open(const struct path *path, struct file *file);
int filp_close(struct file *filp, void *id);
int do_truncate(void *idmap, struct dentry *dentry, loff_t start, unsigned int time_attrs, struct file *filp);
int do_truncate_file(struct file *file);
int notify_change(void *idmap, struct dentry *dentry, struct iattr *attr, struct inode **delegated_inode);
void files_init(void);
int nonseekable_open(struct inode *inode, struct file *filp);
int stream_open(struct inode *inode, struct file *filp);
int get_unused_fd_flags(unsigned int flags);
void put_unused_fd(unsigned int fd);
struct file *fget_task(struct task_struct *task, unsigned int fd);
int receive_fd(struct file *file, unsigned int o_flags);
void fd_install(unsigned int fd, struct file *file);
struct file *fget(unsigned int fd);
struct file *fget_raw(unsigned int fd);
int __get_unused_fd_flags(unsigned flags, unsigned long nofile);

/* include/linux/file.h: a light reference to the fd's file (none taken while the table is not
 * shared: FDPUT_FPUT says one was), f_pos locked for a shared file (FDPUT_POS_UNLOCK) */
struct fd {
	struct file *file;
	unsigned int flags;
};
#define FDPUT_FPUT       1
#define FDPUT_POS_UNLOCK 2
unsigned long __fdget(unsigned int fd);
unsigned long __fdget_raw(unsigned int fd);
unsigned long __fdget_pos(unsigned int fd);
void __f_unlock_pos(struct file *f);
void fput(struct file *file);
static inline struct fd __to_fd(unsigned long v) { return (struct fd){ (struct file *)(v & ~3UL), v & 3 }; }
static inline struct fd fdget(unsigned int fd) { return __to_fd(__fdget(fd)); }
static inline struct fd fdget_raw(unsigned int fd) { return __to_fd(__fdget_raw(fd)); }
static inline struct fd fdget_pos(int fd) { return __to_fd(__fdget_pos(fd)); }
static inline void fdput(struct fd fd)
{
	if (fd.flags & FDPUT_FPUT)
		fput(fd.file);
}
static inline void fdput_pos(struct fd f)
{
	if (f.flags & FDPUT_POS_UNLOCK)
		__f_unlock_pos(f.file);
	fdput(f);
}
void fput(struct file *file);
void eventpoll_release_file(struct file *file);	/* kernel/epoll.c */
struct file *get_epoll_tfile_raw_ptr(struct file *file, int tfd, unsigned long toff);	/* kcmp(2) */
struct file *get_file(struct file *f);
int vfs_fsync_range(struct file *file, loff_t start, loff_t end, int datasync);	/* (fs/sync.c) */
int vfs_fadvise(struct file *file, loff_t offset, loff_t len, int advice);	/* (mm/fadvise.c) */
int close_fd(unsigned int fd);
void set_close_on_exec(unsigned int fd, int flag);
bool get_close_on_exec(unsigned int fd);
int replace_fd(unsigned int fd, struct file *file, unsigned int flags);
int f_dupfd(unsigned int from, struct file *file, unsigned flags);
struct files_struct *dup_fd(struct files_struct *oldf, int *errorp);
void do_close_on_exec(struct files_struct *files);
void exit_files(struct task_struct *tsk);
int copy_files(unsigned long clone_flags, struct task_struct *tsk);
struct fs_struct *copy_fs_struct(struct fs_struct *old);
void free_fs_struct(struct fs_struct *fs);
int copy_fs(unsigned long clone_flags, struct task_struct *tsk);
void exit_fs(struct task_struct *tsk);
void put_fs_struct(struct fs_struct *fs);
void put_files_struct(struct files_struct *files);
int unshare_files(void);
int unshare_fs_struct(void);
void set_fs_pwd(struct fs_struct *fs, const struct path *path);
void set_fs_root(struct fs_struct *fs, const struct path *path);
void get_fs_root(struct fs_struct *fs, struct path *root);
void get_fs_pwd(struct fs_struct *fs, struct path *pwd);
extern struct files_struct init_files;
extern struct fs_struct init_fs;

/* read_write.c */
ssize_t kernel_read(struct file *file, void *buf, size_t count, loff_t *pos);
ssize_t kernel_write(struct file *file, const void *buf, size_t count, loff_t *pos);
int rw_verify_area(int read_write, struct file *file, const loff_t *ppos, size_t count);
ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos);
ssize_t vfs_write(struct file *file, const char *buf, size_t count, loff_t *pos);
loff_t generic_file_llseek(struct file *file, loff_t offset, int whence);
loff_t default_llseek(struct file *file, loff_t offset, int whence);
loff_t noop_llseek(struct file *file, loff_t offset, int whence);
loff_t no_llseek(struct file *file, loff_t offset, int whence);
loff_t fixed_size_llseek(struct file *file, loff_t offset, int whence, loff_t size);
ssize_t ksys_read(unsigned int fd, char *buf, size_t count);
ssize_t ksys_write(unsigned int fd, const char *buf, size_t count);
size_t _copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i);
size_t _copy_from_iter(void *addr, size_t bytes, struct iov_iter *i);
/* include/linux/uio.h */
static __always_inline size_t copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i)
{
	return _copy_to_iter(addr, bytes, i);
}

static __always_inline size_t copy_from_iter(void *addr, size_t bytes, struct iov_iter *i)
{
	return _copy_from_iter(addr, bytes, i);
}
size_t iov_iter_zero(size_t bytes, struct iov_iter *i);
void iov_iter_advance(struct iov_iter *i, size_t bytes);
void iov_iter_kvec(struct iov_iter *i, unsigned int direction, const struct kvec *kvec,
		   unsigned long nr_segs, size_t count);
static inline size_t iov_iter_count(const struct iov_iter *i) { return i->count; }
#define UIO_MAXIOV 1024
#define UIO_FASTIOV 8
/* lib/iov_iter.c: a user iovec array as an iterator; *iovp is set to what to kfree (or NULL) */
struct iovec *iovec_from_user(const struct iovec *uvec, unsigned long nr_segs, unsigned long fast_segs,
			      struct iovec *fast_iov);
ssize_t __import_iovec(int type, const struct iovec *uvec, unsigned nr_segs, unsigned fast_segs,
		       struct iovec **iovp, struct iov_iter *i);
/* an iterator over one user buffer (include/linux/uio.h) */
static inline void iov_iter_ubuf(struct iov_iter *i, unsigned int direction, void *buf, size_t count)
{
	*i = (struct iov_iter){ .iter_type = ITER_UBUF, .data_source = direction, .ubuf = buf,
				.nr_segs = 1, .count = count };
}

static inline void init_sync_kiocb(struct kiocb *kiocb, struct file *filp)
{
	kiocb->ki_filp = filp;
	kiocb->ki_pos = 0;
	kiocb->ki_flags = (filp->f_flags & O_APPEND) ? IOCB_APPEND : 0;
}

/* stat.c */
void generic_fillattr(void *idmap, struct inode *inode, struct kstat *stat);
int vfs_getattr(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int flags);

/* A directory's "." and "..", at positions 0 and 1 (include/linux/fs.h's dir_emit_dots()): false
 * when the caller's buffer is full */
static inline bool dir_emit_dots(struct file *file, struct dir_context *ctx)
{
	struct dentry *dentry = file->f_path.dentry;

	if (ctx->pos == 0) {
		if (!ctx->actor(ctx, ".", 1, ctx->pos, dentry->d_inode->i_ino, DT_DIR))
			return false;
		ctx->pos = 1;
	}
	if (ctx->pos == 1) {
		if (!ctx->actor(ctx, "..", 2, ctx->pos, dentry->d_parent->d_inode->i_ino, DT_DIR))
			return false;
		ctx->pos = 2;
	}
	return true;
}

/* libfs.c */
struct dentry *simple_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags);
int dcache_dir_open(struct inode *inode, struct file *file);
int dcache_dir_close(struct inode *inode, struct file *file);
loff_t dcache_dir_lseek(struct file *file, loff_t offset, int whence);
int dcache_readdir(struct file *file, struct dir_context *ctx);
ssize_t generic_read_dir(struct file *filp, char *buf, size_t siz, loff_t *ppos);
int simple_unlink(struct inode *dir, struct dentry *dentry);
int simple_rmdir(struct inode *dir, struct dentry *dentry);
int simple_rename(struct inode *old_dir, struct dentry *old_dentry, struct inode *new_dir,
		  struct dentry *new_dentry, unsigned int flags);
int simple_link(struct dentry *old_dentry, struct inode *dir, struct dentry *dentry);
int simple_empty(struct dentry *dentry);
int simple_getattr(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int flags);
int noop_fsync(struct file *file, loff_t start, loff_t end, int datasync);
int always_delete_dentry(const struct dentry *dentry);
const char *simple_get_link(struct dentry *dentry, struct inode *inode, char *buf);
int simple_open(struct inode *inode, struct file *file);
int init_pseudo(struct super_block *sb, const struct dentry_operations *dops);
ssize_t simple_read_from_buffer(void *to, size_t count, loff_t *ppos, const void *from, size_t available);
extern const struct file_operations simple_dir_operations;
extern const struct inode_operations simple_dir_inode_operations;
extern const struct inode_operations simple_symlink_inode_operations;

/* seq_file.c */
ssize_t seq_read(struct file *file, char *buf, size_t size, loff_t *ppos);
int single_open(struct file *file, int (*show)(struct seq_file *, void *), void *data);
int single_release(struct inode *inode, struct file *file);
int seq_open(struct file *file, const struct seq_operations *op);
int seq_open_private(struct file *filp, const struct seq_operations *ops, int psize);
int seq_release_private(struct inode *inode, struct file *file);
loff_t seq_lseek(struct file *file, loff_t offset, int whence);
int seq_release(struct inode *inode, struct file *file);
void seq_printf(struct seq_file *m, const char *fmt, ...);
void seq_puts(struct seq_file *m, const char *s);
void render_sigset_t(struct seq_file *m, const char *header, u64 *set);	/* (fs/proc/base.c) */
void seq_putc(struct seq_file *m, char c);
void seq_put_decimal_ull_width(struct seq_file *m, const char *delimiter, unsigned long long num, unsigned int width);
void seq_put_decimal_ull(struct seq_file *m, const char *delimiter, unsigned long long num);
void seq_write(struct seq_file *m, const void *data, size_t len);
void *__seq_open_private(struct file *f, const struct seq_operations *ops, int psize);
/* a write did not fit: the buffer is full (seq_set_overflow()) */
static inline bool seq_has_overflowed(struct seq_file *m)
{
	return m->count == m->size;
}
int seq_path(struct seq_file *m, const struct path *path, const char *esc);

/* char_dev.c, drivers/mem.c */
extern const struct file_operations def_chr_fops;
int register_chrdev_region_fops(unsigned int major, unsigned int minor, const struct file_operations *fops);
void chr_dev_init(void);

/* shmem.c, devtmpfs.c, proc/, pipe.c, initramfs.c */
void shmem_init(void);
void shmem_kern_mount_init(void);
void devtmpfs_init(void);
int devtmpfs_mount(void);
void proc_root_init(void);
void pipe_init(void);
void populate_rootfs(void);
void hostfs_init(void);
extern struct file_system_type hostfs_type;
struct file *hostfs_host_fd_file(unsigned int flags);
int session_view_enter(struct task_struct *tsk, const char *cwd);
struct file *hostpipe_open(u64 host_id, int fd);

/* fs bring-up: mounts and the boot tree (fs/init.c) */
void vfs_mount_init(void);
#endif
