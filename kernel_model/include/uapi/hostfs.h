/*
 * hostfs (kernel_model/fs/hostfs.c): the host's file tree, read-only, one name at a time.  The
 * guest rings PORT_HOSTFS (hostif.h) with the physical address of a request; the machine
 * (src/tracefs_sim/machine/native/hostfs.c) serves it before the guest goes on.
 * Plain C types only: this header is built into the kernel and into the machine's server.
 *
 * A node is a handle the host holds a descriptor for (0: the host's "/"); LOOKUP takes one name in a
 * directory node ("." and ".." and names with "/" are refused: the guest's VFS walks, and
 * resolves symlinks itself) and gives a new node with its type and identity only; GETATTR
 * gives the rest (size, times: only when asked, so a seeded run that never stats a file
 * holds none of them); READ, READDIR (raw linux_dirent64 records from a host directory
 * cookie), READLINK fill a buffer of at most a page; RELEASE gives the node back; STATFS gives the
counts of the host file system the node is on (fstatfs); GETXATTR the node's extended attribute
`name` into the buffer (len 0: its size only), as lgetxattr(2) gives it; LISTXATTR its names, as
llistxattr(2) gives them.  The host
 * holds a bounded number of nodes (ENFILE past it); the host's kernel file systems (proc,
 * sysfs, tracefs, debugfs, bpf, cgroup, FUSE, devpts, ...) are sealed: empty directories.
 */
#ifndef _UAPI_HOSTFS_H
#define _UAPI_HOSTFS_H

enum hostfs_op { HOSTFS_LOOKUP = 1, HOSTFS_GETATTR, HOSTFS_READ, HOSTFS_READDIR, HOSTFS_READLINK, HOSTFS_RELEASE,
		HOSTFS_STATFS, HOSTFS_GETXATTR, HOSTFS_LISTXATTR };
struct hostfs_stat {
	unsigned long long dev, ino, nlink;
	unsigned int mode, uid, gid, pad;
	unsigned long long rdev;
	long long size, blksize, blocks;
	long long atime, atime_nsec, mtime, mtime_nsec, ctime, ctime_nsec;
};
struct hostfs_statfs {
	unsigned long long blocks, bfree, bavail, files, ffree;
	long long bsize, namelen, frsize;
	int fsid[2];
};
struct hostfs_req {
	unsigned int op;
	int result;			/* out: >= 0 (READ, READDIR, READLINK: bytes), or -errno */
	unsigned int handle;		/* in: the node */
	unsigned int new_handle;	/* out (LOOKUP) */
	unsigned long long offset;	/* in: READ's file offset, READDIR's cookie */
	unsigned long long buf;		/* in: physical address of the buffer, within one page */
	unsigned int len;		/* in: its size */
	unsigned int mode;		/* out (LOOKUP): type and permissions */
	unsigned long long ino;		/* out (LOOKUP): the host's inode number */
	union {
		struct hostfs_stat st;		/* out (GETATTR; LOOKUP: st.dev, the node's device) */
		struct hostfs_statfs sfs;	/* out (STATFS) */
	};
	char name[256];			/* in (LOOKUP, GETXATTR) */
};
_Static_assert(__builtin_offsetof(struct hostfs_req, st) == 48 && sizeof(struct hostfs_stat) == 120 &&
	       __builtin_offsetof(struct hostfs_req, name) == 168, "struct hostfs_req");
#endif
