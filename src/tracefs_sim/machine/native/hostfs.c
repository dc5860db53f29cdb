/*
 * The host's side of the emulated kernel's hostfs (kernel_model/fs/hostfs.c; the request's
 * layout: kernel_model/include/uapi/hostfs.h): served in the `out` hook of the
 * CPU that asks (ports.c), with no Python, before the guest goes on.
 *
 * A node is a descriptor held here: a directory opened O_RDONLY|O_DIRECTORY, a regular file
 * O_RDONLY, anything else O_PATH; all with O_NOFOLLOW, each one name below a node already
 * held (openat), so a walk never leaves the tree below the host's "/" by "..", never follows a
 * host symlink (the guest reads links and walks them itself) and never opens a device, FIFO or
 * socket for reading.  At most HOSTFS_NODES nodes (ENFILE past that: the guest releases one
 * when its inode goes).  A directory on one of the host kernel's own file systems (proc,
 * sysfs, tracefs, debugfs, bpf, cgroup, FUSE, devpts, ...) is sealed: empty, nothing below.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#define HOSTFS_NODES 512
#define PAGE 4096

#include "hostfs.h"	/* kernel_model/include/uapi: the request */

struct hostfs_node {
	int fd;		/* -1: free */
	int sealed;	/* an empty directory standing for a host kernel file system */
	int dirfd;	/* a symlink's: its directory and its name there (its lgetxattr), else -1 */
	char *name;
};

static void node_close(struct hostfs_node *n)
{
	close(n->fd);
	n->fd = -1;
	if (n->dirfd >= 0)
		close(n->dirfd);
	n->dirfd = -1;
	free(n->name);
	n->name = NULL;
}

struct hostfs {
	uint8_t *ram;
	uint64_t ram_size;
	struct hostfs_node nodes[HOSTFS_NODES];
};

/* The host kernel's own file systems: shown as empty directories. */
static int sealed_fs(int fd)
{
	static const unsigned long magics[] = {
		0x9fa0,		/* proc */
		0x62656572,	/* sysfs */
		0x74726163,	/* tracefs */
		0x64626720,	/* debugfs */
		0xcafe4a11,	/* bpf */
		0x27e0eb,	/* cgroup */
		0x63677270,	/* cgroup2 */
		0x65735546,	/* fuse */
		0x65735543,	/* fusectl */
		0x1cd1,		/* devpts */
		0x73636673,	/* securityfs */
		0x6165676c,	/* pstore */
		0x62656570,	/* configfs */
		0xde5e81e4,	/* efivarfs */
		0x42494e4d,	/* binfmt_misc */
		0x19800202,	/* mqueue */
		0x6e736673,	/* nsfs */
	};
	struct statfs sfs;
	size_t i;

	if (fstatfs(fd, &sfs))
		return 1;
	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if ((unsigned long)sfs.f_type == magics[i])
			return 1;
	return 0;
}

struct hostfs *hostfs_new(void *ram, uint64_t ram_size, const char *root)
{
	struct hostfs *h = calloc(1, sizeof(*h));
	int i;

	if (!h)
		return NULL;
	h->ram = ram;
	h->ram_size = ram_size;
	for (i = 0; i < HOSTFS_NODES; i++)
		h->nodes[i].fd = h->nodes[i].dirfd = -1;
	h->nodes[0].fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (h->nodes[0].fd < 0) {
		free(h);
		return NULL;
	}
	return h;
}

void hostfs_free(struct hostfs *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < HOSTFS_NODES; i++)
		if (h->nodes[i].fd >= 0)
			node_close(&h->nodes[i]);
	free(h);
}

/* The guest's buffer (within one page of its RAM), or NULL. */
static void *guest_buf(struct hostfs *h, uint64_t pa, uint32_t len)
{
	if (len > PAGE || pa >= h->ram_size || h->ram_size - pa < len || (pa & (PAGE - 1)) + len > PAGE)
		return NULL;
	return h->ram + pa;
}

static struct hostfs_node *node(struct hostfs *h, uint32_t handle)
{
	if (handle >= HOSTFS_NODES || h->nodes[handle].fd < 0)
		return NULL;
	return &h->nodes[handle];
}

static int lookup(struct hostfs *h, struct hostfs_req *req)
{
	struct hostfs_node *dir = node(h, req->handle);
	size_t len = strnlen(req->name, sizeof(req->name));
	struct stat st;
	int fd, flags, slot;

	if (!dir)
		return -EBADF;
	if (len == 0 || len == sizeof(req->name) || memchr(req->name, '/', len) ||
	    !strcmp(req->name, ".") || !strcmp(req->name, ".."))
		return -EINVAL;
	if (dir->sealed)
		return -ENOENT;
	for (slot = 1; slot < HOSTFS_NODES && h->nodes[slot].fd >= 0; slot++)
		;
	if (slot == HOSTFS_NODES)
		return -ENFILE;
	fd = openat(dir->fd, req->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	/* a directory or a regular file is reopened for reading: the same object, or ENOENT */
	flags = S_ISDIR(st.st_mode) ? O_RDONLY | O_DIRECTORY : S_ISREG(st.st_mode) ? O_RDONLY | O_NONBLOCK : 0;
	if (flags) {
		int rfd = openat(dir->fd, req->name, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		struct stat again;

		if (rfd >= 0 && !fstat(rfd, &again) && again.st_dev == st.st_dev && again.st_ino == st.st_ino) {
			close(fd);
			fd = rfd;
		} else {
			if (rfd >= 0)
				close(rfd);
			else if (errno != EACCES && errno != EPERM) {
				close(fd);
				return -ENOENT;	/* changed under us */
			}
			/* unreadable on the host: kept as a name, its reads fail (EACCES) */
		}
	}
	if (S_ISLNK(st.st_mode)) {
		h->nodes[slot].dirfd = fcntl(dir->fd, F_DUPFD_CLOEXEC, 0);
		h->nodes[slot].name = strdup(req->name);
	}
	h->nodes[slot].fd = fd;
	h->nodes[slot].sealed = S_ISDIR(st.st_mode) && sealed_fs(fd);
	req->new_handle = slot;
	req->mode = st.st_mode;
	req->ino = st.st_ino;
	req->st.dev = st.st_dev;
	return 0;
}

static int getattr(struct hostfs *h, struct hostfs_req *req)
{
	struct hostfs_node *n = node(h, req->handle);
	struct stat st;

	if (!n)
		return -EBADF;
	if (fstat(n->fd, &st))
		return -errno;
	req->st = (struct hostfs_stat){
		.dev = st.st_dev, .ino = st.st_ino, .nlink = st.st_nlink, .mode = st.st_mode,
		.uid = st.st_uid, .gid = st.st_gid, .rdev = st.st_rdev, .size = st.st_size,
		.blksize = st.st_blksize, .blocks = st.st_blocks,
		.atime = st.st_atim.tv_sec, .atime_nsec = st.st_atim.tv_nsec,
		.mtime = st.st_mtim.tv_sec, .mtime_nsec = st.st_mtim.tv_nsec,
		.ctime = st.st_ctim.tv_sec, .ctime_nsec = st.st_ctim.tv_nsec,
	};
	if (n->sealed) {
		req->st.nlink = 2;
		req->st.size = 0;
	}
	return 0;
}

static int do_read(struct hostfs *h, struct hostfs_req *req)
{
	struct hostfs_node *n = node(h, req->handle);
	void *buf = guest_buf(h, req->buf, req->len);
	ssize_t r;

	if (!n)
		return -EBADF;
	if (!buf || req->offset > INT64_MAX)
		return -EINVAL;
	r = pread(n->fd, buf, req->len, (off_t)req->offset);
	return r < 0 ? (errno == EBADF ? -EACCES : -errno) : (int)r;
}

static int readdir_at(struct hostfs *h, struct hostfs_req *req)
{
	struct hostfs_node *n = node(h, req->handle);
	void *buf = guest_buf(h, req->buf, req->len);
	long r;

	if (!n)
		return -EBADF;
	if (!buf)
		return -EINVAL;
	if (n->sealed)
		return 0;
	if (lseek(n->fd, (off_t)req->offset, SEEK_SET) < 0)
		return -errno;
	r = syscall(SYS_getdents64, n->fd, buf, req->len);
	return r < 0 ? -errno : (int)r;
}

static int do_readlink(struct hostfs *h, struct hostfs_req *req)
{
	struct hostfs_node *n = node(h, req->handle);
	void *buf = guest_buf(h, req->buf, req->len);
	ssize_t r;

	if (!n)
		return -EBADF;
	if (!buf)
		return -EINVAL;
	r = readlinkat(n->fd, "", buf, req->len);
	return r < 0 ? -errno : (int)r;
}

static int do_statfs(struct hostfs *h, struct hostfs_req *req)
{
	struct hostfs_node *n = node(h, req->handle);
	struct statfs sf;

	if (!n)
		return -EBADF;
	if (fstatfs(n->fd, &sf))
		return -errno;
	req->sfs = (struct hostfs_statfs){
		.blocks = sf.f_blocks, .bfree = sf.f_bfree, .bavail = sf.f_bavail, .files = sf.f_files,
		.ffree = sf.f_ffree, .bsize = sf.f_bsize, .namelen = sf.f_namelen, .frsize = sf.f_frsize,
		.fsid = { sf.f_fsid.__val[0], sf.f_fsid.__val[1] },
	};
	return 0;
}

/* GETXATTR (req->name's value) or LISTXATTR (the names): on a descriptor, or a path */
static ssize_t xattr_at(int fd, const char *path, bool lnk, struct hostfs_req *req, const char *name, void *buf)
{
	if (req->op == HOSTFS_LISTXATTR)
		return fd >= 0 ? flistxattr(fd, buf, req->len) : lnk ? llistxattr(path, buf, req->len)
			: listxattr(path, buf, req->len);
	return fd >= 0 ? fgetxattr(fd, name, buf, req->len) : lnk ? lgetxattr(path, name, buf, req->len)
		: getxattr(path, name, buf, req->len);
}

/* lgetxattr(2) or llistxattr(2) of the node: on a descriptor opened for reading; an O_PATH one's
 * object by its /proc/self/fd link (followed to the object itself); a symlink by its name in its
 * directory (the link itself) */
static int do_xattr(struct hostfs *h, struct hostfs_req *req)
{
	struct hostfs_node *n = node(h, req->handle);
	void *buf = req->len ? guest_buf(h, req->buf, req->len) : NULL;
	char name[sizeof(req->name)], link[320];
	struct stat st;
	ssize_t r;
	int fl;

	if (!n)
		return -EBADF;
	if (req->len && !buf)
		return -EINVAL;
	memcpy(name, req->name, sizeof(name));
	name[sizeof(name) - 1] = 0;
	fl = fcntl(n->fd, F_GETFL);
	if (fl < 0)
		return -errno;
	if (!(fl & O_PATH)) {
		r = xattr_at(n->fd, NULL, false, req, name, buf);
	} else if (fstat(n->fd, &st)) {
		return -errno;
	} else if (S_ISLNK(st.st_mode)) {
		if (n->dirfd < 0 || !n->name)
			return -ENOMEM;
		snprintf(link, sizeof(link), "/proc/self/fd/%d/%s", n->dirfd, n->name);
		r = xattr_at(-1, link, true, req, name, buf);
	} else {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", n->fd);
		r = xattr_at(-1, link, false, req, name, buf);
	}
	return r < 0 ? -errno : (int)r;
}

/* The request at guest physical address pa: done in place. */
void hostfs_serve(struct hostfs *h, uint64_t pa)
{
	struct hostfs_req *req;

	if (!h || pa >= h->ram_size || h->ram_size - pa < sizeof(*req))
		return;
	req = (struct hostfs_req *)(h->ram + pa);
	switch (req->op) {
	case HOSTFS_LOOKUP:
		req->result = lookup(h, req);
		break;
	case HOSTFS_GETATTR:
		req->result = getattr(h, req);
		break;
	case HOSTFS_READ:
		req->result = do_read(h, req);
		break;
	case HOSTFS_READDIR:
		req->result = readdir_at(h, req);
		break;
	case HOSTFS_READLINK:
		req->result = do_readlink(h, req);
		break;
	case HOSTFS_STATFS:
		req->result = do_statfs(h, req);
		break;
	case HOSTFS_GETXATTR:
	case HOSTFS_LISTXATTR:
		req->result = do_xattr(h, req);
		break;
	case HOSTFS_RELEASE:
		if (req->handle && node(h, req->handle))
			node_close(&h->nodes[req->handle]);
		req->result = 0;
		break;
	default:
		req->result = -EINVAL;
	}
}
