/*
 * hostfs (as UML's fs/hostfs): the host's file tree, read-only, through the host interface's
 * hostfs port (include/hostif.h, served natively by the machine).  An inode is a host node;
 * lookups go to the host one name at a time, every time (its dentries are not kept: the host's
 * tree changes under it), symlinks are read from the host and walked by this VFS, so no walk
 * leaves the host's "/" or follows a host link on the host.  Sizes and times come from the
 * host only when a stat asks for them.
 *
 * A mount without SB_RDONLY is the session's (fs/init.c's session view): its users are the
 * session's tasks, whose calls the host made already.  There a change (a write, a create, an
 * unlink, a rename, a mkdir...) is taken as done: it succeeds without touching the host (this
 * file system has no way to write there), and since lookups always ask the host, the next one
 * finds what the host's call left.  The host's device nodes are files whose reads find nothing
 * and whose writes are taken (the host's device had them).
 */
#include "../include/fs.h"
#include "../include/pagemap.h"
#include "../include/session.h"
#include "../include/poll.h"

#define HOSTFS_SUPER_MAGIC 0x00c0ffee

static const struct inode_operations hostfs_dir_iops, hostfs_link_iops, hostfs_file_iops;
static ssize_t hostfs_listxattr(struct dentry *dentry, char *buffer, size_t size);
static const struct file_operations hostfs_dir_fops, hostfs_file_fops;
static const struct file_operations hostfs_dev_fops;

/* An inode made by a session task's create that the host does not show (yet): no host node. */
#define HOSTFS_NO_NODE 0xffffffffu

static notrace bool hostfs_mirror(const struct super_block *sb)
{
	return !(sb->s_flags & SB_RDONLY);
}

/* One request to the host, on a kmalloc'd request (physically contiguous: slab memory). */
static notrace long hostfs_call(struct hostfs_req *req)
{
	req->result = -ENOSYS;	/* what a machine without the server leaves */
	asm volatile("outl %0, %w1" : : "a"((u32)__pa(req)), "Nd"(PORT_HOSTFS) : "memory");
	return req->result;
}

static notrace struct hostfs_req *req_alloc(u32 op, u32 handle)
{
	struct hostfs_req *req = kzalloc(sizeof(*req), GFP_KERNEL);

	if (req) {
		req->op = op;
		req->handle = handle;
	}
	return req;
}

static notrace u32 HOSTFS_I(const struct inode *inode)
{
	return (u32)(unsigned long)inode->i_private;
}

/* the host node an inode with marks (inotify's) stands for */
struct hostfs_node_id {
	u64 ino;
	u32 dev;
	umode_t mode;
};

static notrace int hostfs_watched_test(struct inode *inode, void *data)
{
	const struct hostfs_node_id *id = data;

	return inode->i_fsnotify_marks && inode->i_ino == id->ino && inode->i_generation == id->dev &&
	       (inode->i_mode & S_IFMT) == (id->mode & S_IFMT) &&
	       (u32)(unsigned long)inode->i_private != HOSTFS_NO_NODE;
}

/*
 * A watched inode of the same host node (inotify's marks are on the inode: the next lookup of
 * its name must find that one, not a new one), held; the lookup's new node given back.  Only
 * inodes with marks are looked for (the others are made anew, as hostfs does), and only while
 * the file system has some: the walk of its inodes is not for every lookup.
 */
static notrace struct inode *hostfs_find_watched(struct super_block *sb, u32 handle, umode_t mode, u64 ino, u32 dev)
{
	struct hostfs_node_id id = { ino, dev, mode };
	struct inode *inode;
	struct hostfs_req *req;

	if (!__atomic_load_n(&sb->s_fsnotify_connectors, __ATOMIC_RELAXED))
		return NULL;
	inode = ilookup5(sb, ino, hostfs_watched_test, &id);

	if (inode) {
		req = req_alloc(HOSTFS_RELEASE, handle);
		if (req)
			hostfs_call(req);
		kfree(req);
	}
	return inode;
}

/* An inode for the host's node `handle` (ino and dev: its identity on the host) */
static notrace struct inode *hostfs_iget(struct super_block *sb, u32 handle, umode_t mode, u64 ino, u32 dev)
{
	struct inode *inode = handle && handle != HOSTFS_NO_NODE ? hostfs_find_watched(sb, handle, mode, ino, dev) : NULL;

	if (inode)
		return inode;
	inode = new_inode(sb);
	if (!inode)
		return NULL;
	inode->i_ino = ino;
	inode->i_generation = dev;	/* (no generation of its own: the host's device) */
	inode->i_mode = mode;
	inode->i_private = (void *)(unsigned long)handle;
	switch (mode & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &hostfs_dir_iops;
		inode->i_fop = &hostfs_dir_fops;
		set_nlink(inode, 2);
		break;
	case S_IFLNK:
		inode->i_op = &hostfs_link_iops;
		break;
	case S_IFREG:
		inode->i_op = &hostfs_file_iops;
		inode->i_fop = &hostfs_file_fops;
		break;
	default:
		inode->i_op = &hostfs_file_iops;
		if (hostfs_mirror(sb) && (S_ISCHR(mode) || S_ISBLK(mode)))
			inode->i_fop = &hostfs_dev_fops;	/* the host's device served the session's call */
		else
			init_special_inode(inode, mode, 0);	/* no host device is reached from here */
	}
	return inode;
}

noinline struct dentry *hostfs_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	struct hostfs_req *req;
	struct inode *inode = NULL;
	unsigned short before = 0;
	long err;

	if (dentry->d_name.len >= sizeof(req->name))
		return (void *)(long)-ENAMETOOLONG;
	/* a session task's call that adds or removes it: the host made it already, and the call
	 * finds the name as it was before (it existed: the host's node, or one without a node) */
	if (hostfs_mirror(dir->i_sb) && current->session &&
	    session_lookup_before((const char *)dentry->d_name.name, dentry->d_name.len, &before)) {
		if (!before) {
			d_add(dentry, NULL);
			return NULL;
		}
	}
	req = req_alloc(HOSTFS_LOOKUP, HOSTFS_I(dir));
	if (!req)
		return (void *)(long)-ENOMEM;
	memcpy(req->name, dentry->d_name.name, dentry->d_name.len + 1);
	err = HOSTFS_I(dir) == HOSTFS_NO_NODE ? -ENOENT : hostfs_call(req);
	if (err == -ENOENT && before) {
		err = 0;
		inode = hostfs_iget(dir->i_sb, HOSTFS_NO_NODE, before, get_next_ino(), 0);
		if (!inode)
			err = -ENOMEM;
	} else if (!err) {
		inode = hostfs_iget(dir->i_sb, req->new_handle, req->mode, req->ino, req->st.dev);
		if (!inode) {
			req->op = HOSTFS_RELEASE;
			req->handle = req->new_handle;
			hostfs_call(req);
			err = -ENOMEM;
		}
	}
	kfree(req);
	if (err && err != -ENOENT)
		return (void *)err;
	d_add(dentry, inode);	/* ENOENT: a negative dentry */
	return NULL;
}

noinline int hostfs_getattr(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int query_flags)
{
	struct inode *inode = path->dentry->d_inode;
	struct hostfs_req *req;
	long err;

	if (HOSTFS_I(inode) == HOSTFS_NO_NODE) {
		generic_fillattr(NULL, inode, stat);
		return 0;
	}
	req = req_alloc(HOSTFS_GETATTR, HOSTFS_I(inode));
	if (!req)
		return -ENOMEM;
	err = hostfs_call(req);
	if (!err) {
		/* what the host says is the inode's now too (its size bounds reads) */
		inode->i_mode = req->st.mode;
		inode->i_uid = req->st.uid;
		inode->i_gid = req->st.gid;
		set_nlink(inode, req->st.nlink);
		inode->i_size = req->st.size;
		inode->i_blocks = req->st.blocks;
		inode->i_atime = (struct timespec64){ req->st.atime, req->st.atime_nsec };
		inode->i_mtime = (struct timespec64){ req->st.mtime, req->st.mtime_nsec };
		inode->i_ctime = (struct timespec64){ req->st.ctime, req->st.ctime_nsec };
		generic_fillattr(NULL, inode, stat);
		stat->blksize = req->st.blksize;
		stat->rdev = MKDEV((req->st.rdev >> 8) & 0xfff, (req->st.rdev & 0xff) | ((req->st.rdev >> 12) & 0xfff00));
	}
	kfree(req);
	return err;
}

/* The host's bytes at the file's offset, a page at a time through a bounce page. */
noinline ssize_t hostfs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = iocb->ki_filp->f_inode;
	struct hostfs_req *req;
	void *page;
	ssize_t done = 0;

	if (HOSTFS_I(inode) == HOSTFS_NO_NODE)
		return 0;
	req = req_alloc(HOSTFS_READ, HOSTFS_I(inode));
	page = alloc_page_zeroed();
	if (!req || !page) {
		kfree(req);
		if (page)
			__free_pages(virt_to_page(page), 0);
		return -ENOMEM;
	}
	while (iov_iter_count(to)) {
		long n;
		size_t copied;

		req->op = HOSTFS_READ;
		req->offset = iocb->ki_pos;
		req->buf = __pa(page);
		req->len = min(iov_iter_count(to), PAGE_SIZE);
		n = hostfs_call(req);
		if (n <= 0) {
			if (!done)
				done = n;
			break;
		}
		copied = copy_to_iter(page, n, to);
		done += copied;
		iocb->ki_pos += copied;
		if (copied < (size_t)n) {
			if (!done)
				done = -EFAULT;
			break;
		}
		if (n < (long)req->len)
			break;
	}
	__free_pages(virt_to_page(page), 0);
	kfree(req);
	return done;
}

struct host_dirent64 { u64 d_ino; s64 d_off; unsigned short d_reclen; unsigned char d_type; char d_name[]; };

/* The host directory's entries from its cookie ctx->pos, a page of them per request. */
noinline int hostfs_readdir(struct file *file, struct dir_context *ctx)
{
	struct hostfs_req *req = req_alloc(HOSTFS_READDIR, HOSTFS_I(file->f_inode));
	char *page = alloc_page_zeroed();
	long err = 0;

	if (!req || !page) {
		kfree(req);
		if (page)
			__free_pages(virt_to_page(page), 0);
		return -ENOMEM;
	}
	for (;;) {
		long n, pos = 0;

		req->op = HOSTFS_READDIR;
		req->offset = ctx->pos;
		req->buf = __pa(page);
		req->len = PAGE_SIZE;
		n = hostfs_call(req);
		if (n <= 0) {
			err = n;
			break;
		}
		while (pos < n) {
			struct host_dirent64 *d = (void *)(page + pos);

			if (!ctx->actor(ctx, d->d_name, strlen(d->d_name), ctx->pos, d->d_ino, d->d_type))
				goto out;
			ctx->pos = d->d_off;
			pos += d->d_reclen;
		}
	}
out:
	__free_pages(virt_to_page(page), 0);
	kfree(req);
	return err;
}

noinline const char *hostfs_get_link(struct dentry *dentry, struct inode *inode, char *buf)
{
	struct hostfs_req *req;
	char *page;
	long n;

	if (!dentry)	/* a lockless (cached-only) walk: the host's answer is not at hand */
		return (void *)(long)-ECHILD;
	req = req_alloc(HOSTFS_READLINK, HOSTFS_I(inode));
	page = alloc_page_zeroed();
	if (!req || !page) {
		kfree(req);
		if (page)
			__free_pages(virt_to_page(page), 0);
		return (void *)(long)-ENOMEM;
	}
	req->buf = __pa(page);
	req->len = PAGE_SIZE - 1;
	n = hostfs_call(req);
	if (n >= 0) {
		memcpy(buf, page, n);
		buf[n] = 0;
	}
	__free_pages(virt_to_page(page), 0);
	kfree(req);
	return n < 0 ? (void *)n : buf;
}

static void hostfs_evict_inode(struct inode *inode)
{
	struct hostfs_req *req;

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	req = req_alloc(HOSTFS_RELEASE, HOSTFS_I(inode));

	if (req && HOSTFS_I(inode) && HOSTFS_I(inode) != HOSTFS_NO_NODE) {	/* the root's node (0) stays */
		hostfs_call(req);
	}
	kfree(req);
}

/* ---- the session's mount: changes the host made already ---- */

/* A session task's write: the host wrote it. */
noinline ssize_t hostfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	size_t n = iov_iter_count(from);
	struct inode *inode = iocb->ki_filp->f_inode;

	iov_iter_advance(from, n);
	iocb->ki_pos += n;
	if (S_ISREG(inode->i_mode) && iocb->ki_pos > inode->i_size)
		inode->i_size = iocb->ki_pos;
	return n;
}

/* The host's device number of a node (0: none, or it is not a device) */
static u32 hostfs_dev_number(struct inode *inode)
{
	struct hostfs_req *req;
	u32 dev = 0;

	if (HOSTFS_I(inode) == HOSTFS_NO_NODE || !S_ISCHR(inode->i_mode))
		return 0;
	req = req_alloc(HOSTFS_GETATTR, HOSTFS_I(inode));
	if (!req)
		return 0;
	if (!hostfs_call(req))	/* glibc's dev_t: major's low 12 bits at 8, minor's low 8 at 0 */
		dev = MKDEV((req->st.rdev >> 8) & 0xfff, (req->st.rdev & 0xff) | ((req->st.rdev >> 12) & 0xfff00));
	kfree(req);
	return dev;
}

/* a terminal a session leader's open makes its controlling one (tty_open(): not /dev/tty,
 * /dev/ptmx's master side or with O_NOCTTY): the consoles, serial lines and ptys' slaves */
static bool hostfs_dev_is_terminal(u32 dev)
{
	return MAJOR(dev) == 4 || (MAJOR(dev) >= 136 && MAJOR(dev) <= 143) || dev == MKDEV(5, 1);
}

/* The host's device, opened by a session task: the host's open succeeded as this one does,
 * but for what the task's controlling terminal decides (drivers/tty/tty_io.c's tty_open):
 * /dev/tty without one is ENXIO (as a `tracefs-sim run` script's bash finds at start:
 * succeeding here would leave the kernel's fd table one fd ahead of the host's), and a
 * session leader without one takes the terminal it opens.  /dev/kmsg is this kernel's. */
static int hostfs_dev_open(struct inode *inode, struct file *file)
{
	u32 dev;

	if (file->f_path.dentry && file->f_path.dentry->d_name.len == 4 &&
	    !memcmp(file->f_path.dentry->d_name.name, "kmsg", 4) && hostfs_dev_number(inode) == MKDEV(1, 11)) {
		/* /dev/kmsg: this kernel's log, never the host's (the supervisor serves its open:
		 * the host makes none), as chrdev_open() gives the driver's file the device's */
		file->f_op = &kmsg_fops;
		return file->f_op->open(inode, file);
	}
	if (current->tty && current->sid != current->tgid)
		return 0;
	dev = hostfs_dev_number(inode);
	if (dev == MKDEV(5, 0))
		return current->tty ? 0 : -ENXIO;
	if (!current->tty && current->sid == current->tgid && hostfs_dev_is_terminal(dev) &&
	    !(file->f_flags & O_NOCTTY))
		proc_set_tty(dev);
	return 0;
}

/* TIOCGPTPEER on the host's /dev/ptmx: the host gave the process an fd for the pty's slave;
 * here a file for it takes the same number (the lowest free one, the host's too) */
static long hostfs_ptmx_peer(struct file *file, unsigned long flags)
{
	struct file *peer;
	int fd;

	if (hostfs_dev_number(file->f_inode) != MKDEV(5, 2))
		return -ENOTTY;
	fd = get_unused_fd_flags(flags & O_CLOEXEC);
	if (fd < 0)
		return fd;
	peer = hostfs_host_fd_file(flags & (O_ACCMODE | O_NONBLOCK));
	if (IS_ERR(peer)) {
		put_unused_fd(fd);
		return PTR_ERR(peer);
	}
	fd_install(fd, peer);
	return fd;
}

/* A host terminal's controlling-terminal requests (tty_jobctrl.c) and the pty master's
 * TIOCGPTPEER, whose answers change the task's own state; the others are the host's to
 * answer (ENOTTY here, as without a driver). */
static long hostfs_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	u32 dev;

	switch (cmd) {
	case 0x5441:	/* TIOCGPTPEER */
		return hostfs_ptmx_peer(file, arg);
	case 0x540E:	/* TIOCSCTTY: a session leader takes it (tiocsctty()) */
		dev = hostfs_dev_number(file->f_inode);
		if (current->sid != current->tgid || (current->tty && current->tty != dev))
			return -EPERM;
		proc_set_tty(dev ? dev : ~0u);	/* (an fd from outside the session: no number) */
		return 0;
	case 0x5422:	/* TIOCNOTTY: it gives its terminal up */
		if (!current->tty)
			return -ENOTTY;
		proc_set_tty(0);
		return 0;
	default:
		return -ENOTTY;
	}
}

/* The host's device: what the session task read there is the host's to know. */
static ssize_t hostfs_dev_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	return 0;
}

static ssize_t hostfs_dev_write(struct file *file, const char *buf, size_t count, loff_t *ppos)
{
	return count;
}

/* What it is ready for is the host's to know: nothing here.  A session task's poll or
 * epoll_wait on it sleeps until the host's call returned (its wait ends then, wait.c), as the
 * process did; epoll_ctl takes it (a file without ->poll would be EPERM, which the host's
 * call was not). */
static __poll_t hostfs_dev_poll(struct file *file, struct poll_table_struct *wait)
{
	return 0;
}

/* An fd a session's process had from outside the session (a terminal, a pipe): its calls
 * were the host's. */
noinline struct file *hostfs_host_fd_file(unsigned int flags)
{
	return anon_inode_getfile("[hostfd]", &hostfs_dev_fops, NULL, flags);
}

/* What the host's call made, as the host shows it now (a node-less inode if it shows none). */
static notrace int hostfs_instantiate(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	struct hostfs_req *req;
	struct inode *inode = NULL;

	if (dentry->d_name.len >= sizeof(req->name))
		return -ENAMETOOLONG;
	req = req_alloc(HOSTFS_LOOKUP, HOSTFS_I(dir));
	if (!req)
		return -ENOMEM;
	memcpy(req->name, dentry->d_name.name, dentry->d_name.len + 1);
	if (HOSTFS_I(dir) != HOSTFS_NO_NODE && !hostfs_call(req))
		inode = hostfs_iget(dir->i_sb, req->new_handle, req->mode, req->ino, req->st.dev);
	else
		inode = hostfs_iget(dir->i_sb, HOSTFS_NO_NODE, mode, get_next_ino(), 0);
	kfree(req);
	if (!inode)
		return -ENOMEM;
	d_instantiate(dentry, inode);
	return 0;
}

noinline int hostfs_create(struct inode *dir, struct dentry *dentry, umode_t mode, bool excl)
{
	return hostfs_instantiate(dir, dentry, S_IFREG | (mode & 07777));
}

noinline int hostfs_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	return hostfs_instantiate(dir, dentry, S_IFDIR | (mode & 07777));
}

noinline int hostfs_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
{
	return hostfs_instantiate(dir, dentry, mode);
}

noinline int hostfs_symlink(struct inode *dir, struct dentry *dentry, const char *target)
{
	return hostfs_instantiate(dir, dentry, S_IFLNK | 0777);
}

static int hostfs_link(struct dentry *old, struct inode *dir, struct dentry *dentry)
{
	return hostfs_instantiate(dir, dentry, old->d_inode->i_mode);
}

/* unlink, rmdir: the host removed it (its dentry goes: it is never kept). */
noinline int hostfs_unlink(struct inode *dir, struct dentry *dentry)
{
	return 0;
}

noinline int hostfs_rename2(struct inode *old_dir, struct dentry *old_dentry,
			    struct inode *new_dir, struct dentry *new_dentry, unsigned int flags)
{
	return 0;
}

noinline int hostfs_setattr(struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	int error = setattr_prepare(NULL, dentry, attr);

	if (error)
		return error;
	if (attr->ia_valid & ATTR_SIZE)
		inode->i_size = attr->ia_size;
	if (attr->ia_valid & ATTR_MODE)
		inode->i_mode = (inode->i_mode & S_IFMT) | (attr->ia_mode & 07777);
	if (attr->ia_valid & ATTR_UID)
		inode->i_uid = attr->ia_uid;
	if (attr->ia_valid & ATTR_GID)
		inode->i_gid = attr->ia_gid;
	return 0;
}

static const struct inode_operations hostfs_dir_iops = {
	.lookup = hostfs_lookup,
	.getattr = hostfs_getattr,
	.create = hostfs_create,
	.link = hostfs_link,
	.unlink = hostfs_unlink,
	.symlink = hostfs_symlink,
	.mkdir = hostfs_mkdir,
	.rmdir = hostfs_unlink,
	.mknod = hostfs_mknod,
	.rename = hostfs_rename2,
	.setattr = hostfs_setattr,
	.listxattr = hostfs_listxattr,
};

static const struct inode_operations hostfs_link_iops = {
	.get_link = hostfs_get_link,
	.getattr = hostfs_getattr,
	.setattr = hostfs_setattr,
	.listxattr = hostfs_listxattr,
};

static const struct inode_operations hostfs_file_iops = {
	.getattr = hostfs_getattr,
	.setattr = hostfs_setattr,
	.listxattr = hostfs_listxattr,
};

static const struct file_operations hostfs_file_fops = {
	.llseek = default_llseek,
	.read_iter = hostfs_read_iter,
	.write_iter = hostfs_write_iter,
	.fsync = noop_fsync,
	.splice_read = generic_file_splice_read,
	.splice_write = iter_file_splice_write,
};

static const struct file_operations hostfs_dev_fops = {
	.open = hostfs_dev_open,
	.unlocked_ioctl = hostfs_dev_ioctl,
	.llseek = noop_llseek,
	.read = hostfs_dev_read,
	.write = hostfs_dev_write,
	.poll = hostfs_dev_poll,
};

static const struct file_operations hostfs_dir_fops = {
	.llseek = default_llseek,
	.read = generic_read_dir,
	.iterate_shared = hostfs_readdir,
};

/* As UML's: this file system's kind, the counts of the host's (here: the one the node is on;
 * a node the host does not show yet, its root's) */
static noinline int hostfs_statfs(struct dentry *dentry, struct kstatfs *sf)
{
	u32 node = HOSTFS_I(dentry->d_inode);
	struct hostfs_req *req = req_alloc(HOSTFS_STATFS, node == HOSTFS_NO_NODE ? 0 : node);
	long err;

	if (!req)
		return -ENOMEM;
	err = hostfs_call(req);
	if (!err) {
		sf->f_blocks = req->sfs.blocks;
		sf->f_bfree = req->sfs.bfree;
		sf->f_bavail = req->sfs.bavail;
		sf->f_files = req->sfs.files;
		sf->f_ffree = req->sfs.ffree;
		sf->f_bsize = req->sfs.bsize;
		sf->f_namelen = req->sfs.namelen;
		sf->f_frsize = req->sfs.frsize;
		sf->f_fsid.val[0] = req->sfs.fsid[0];
		sf->f_fsid.val[1] = req->sfs.fsid[1];
		sf->f_type = HOSTFS_SUPER_MAGIC;
	}
	kfree(req);
	return err;
}

/* A GETXATTR (the host's attribute `name` of the node) or LISTXATTR (its names) through a
 * bounce page: more than a page is ERANGE here. */
static noinline long hostfs_xattr_call(u32 op, struct inode *inode, const char *name, void *buffer, size_t size)
{
	struct hostfs_req *req = req_alloc(op, HOSTFS_I(inode));
	void *page = NULL;
	long n;

	if (size)
		page = alloc_page_zeroed();
	if (!req || (size && !page)) {
		kfree(req);
		if (page)
			__free_pages(virt_to_page(page), 0);
		return -ENOMEM;
	}
	if (name)
		strscpy_pad(req->name, name, sizeof(req->name));
	req->buf = page ? __pa(page) : 0;
	req->len = min(size, PAGE_SIZE);
	n = hostfs_call(req);
	if (n > 0 && size)
		memcpy(buffer, page, n);
	if (page)
		__free_pages(virt_to_page(page), 0);
	kfree(req);
	return n;
}

/* any name: the host's file system decides */
static noinline int hostfs_xattr_get(const struct xattr_handler *handler, struct dentry *dentry,
				     struct inode *inode, const char *name, void *buffer, size_t size)
{
	if (HOSTFS_I(inode) == HOSTFS_NO_NODE)
		return -ENODATA;	/* made by a session's call since: none yet */
	return hostfs_xattr_call(HOSTFS_GETXATTR, inode, name, buffer, size);
}

/* Only a session task's (the host made the call; a read-only mount refused it before) */
static noinline int hostfs_xattr_set(const struct xattr_handler *handler, struct dentry *dentry,
				     struct inode *inode, const char *name, const void *value, size_t size,
				     int flags)
{
	return hostfs_mirror(inode->i_sb) ? 0 : -EROFS;
}

static noinline ssize_t hostfs_listxattr(struct dentry *dentry, char *buffer, size_t size)
{
	struct inode *inode = dentry->d_inode;

	if (HOSTFS_I(inode) == HOSTFS_NO_NODE)
		return 0;
	return hostfs_xattr_call(HOSTFS_LISTXATTR, inode, NULL, buffer, size);
}

static const struct xattr_handler hostfs_xattr_handler = {
	.prefix = "",	/* every name */
	.get = hostfs_xattr_get,
	.set = hostfs_xattr_set,
};

static const struct xattr_handler *hostfs_xattr_handlers[] = { &hostfs_xattr_handler, NULL };

static const struct super_operations hostfs_sbops = {
	.evict_inode = hostfs_evict_inode,
	.statfs = hostfs_statfs,
};

/* A file of the host's filesystem (its i_ino is the host's st_ino): uprobes name these. */
notrace bool hostfs_inode(const struct inode *inode)
{
	return inode->i_sb->s_op == &hostfs_sbops;
}

static const struct dentry_operations hostfs_dentry_ops = {
	.d_delete = always_delete_dentry,
};

static int hostfs_fill_super(struct super_block *sb, void *data)
{
	struct inode *root = hostfs_iget(sb, 0, S_IFDIR | 0755, 2, 0);

	if (!root)
		return -ENOMEM;
	sb->s_op = &hostfs_sbops;
	sb->s_flags |= SB_NOUSER;	/* the host's files: no guest mounts them, nor binds them elsewhere */
	sb->s_xattr = hostfs_xattr_handlers;
	sb->s_d_op = &hostfs_dentry_ops;
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

struct file_system_type hostfs_type = {
	.name = "hostfs",
	.fill_super = hostfs_fill_super,
	.magic = HOSTFS_SUPER_MAGIC,
};

void __init hostfs_init(void)
{
	register_filesystem(&hostfs_type);
}
