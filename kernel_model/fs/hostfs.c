/*
 * hostfs (as UML's fs/hostfs): the host's file tree, read-only, through the host interface's
 * hostfs port (include/hostif.h, served natively by the machine).  An inode is a host node;
 * lookups go to the host one name at a time, every time (its dentries are not kept: the host's
 * tree changes under it), symlinks are read from the host and walked by this VFS, so no walk
 * leaves the host's "/" or follows a host link on the host.  Sizes and times come from the
 * host only when a stat asks for them.
 */
#include "../include/fs.h"

#define HOSTFS_SUPER_MAGIC 0x00c0ffee

static const struct inode_operations hostfs_dir_iops, hostfs_link_iops, hostfs_file_iops;
static const struct file_operations hostfs_dir_fops, hostfs_file_fops;

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

static notrace struct inode *hostfs_iget(struct super_block *sb, u32 handle, umode_t mode, u64 ino)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = ino;
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
		init_special_inode(inode, mode, 0);	/* no host device is reached from here */
	}
	return inode;
}

noinline struct dentry *hostfs_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	struct hostfs_req *req;
	struct inode *inode = NULL;
	long err;

	if (dentry->d_name.len >= sizeof(req->name))
		return (void *)(long)-ENAMETOOLONG;
	req = req_alloc(HOSTFS_LOOKUP, HOSTFS_I(dir));
	if (!req)
		return (void *)(long)-ENOMEM;
	memcpy(req->name, dentry->d_name.name, dentry->d_name.len + 1);
	err = hostfs_call(req);
	if (!err) {
		inode = hostfs_iget(dir->i_sb, req->new_handle, req->mode, req->ino);
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
	struct hostfs_req *req = req_alloc(HOSTFS_GETATTR, HOSTFS_I(inode));
	long err;

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
	struct hostfs_req *req = req_alloc(HOSTFS_READ, HOSTFS_I(inode));
	void *page = alloc_page_zeroed();
	ssize_t done = 0;

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
	struct hostfs_req *req = req_alloc(HOSTFS_READLINK, HOSTFS_I(inode));
	char *page = alloc_page_zeroed();
	long n;

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
	struct hostfs_req *req = req_alloc(HOSTFS_RELEASE, HOSTFS_I(inode));

	if (req && HOSTFS_I(inode)) {	/* the root's node (0) stays */
		hostfs_call(req);
	}
	kfree(req);
}

static const struct inode_operations hostfs_dir_iops = {
	.lookup = hostfs_lookup,
	.getattr = hostfs_getattr,
};

static const struct inode_operations hostfs_link_iops = {
	.get_link = hostfs_get_link,
	.getattr = hostfs_getattr,
};

static const struct inode_operations hostfs_file_iops = {
	.getattr = hostfs_getattr,
};

static const struct file_operations hostfs_file_fops = {
	.llseek = default_llseek,
	.read_iter = hostfs_read_iter,
};

static const struct file_operations hostfs_dir_fops = {
	.llseek = default_llseek,
	.read = generic_read_dir,
	.iterate_shared = hostfs_readdir,
};

static const struct super_operations hostfs_sbops = {
	.evict_inode = hostfs_evict_inode,
};

static const struct dentry_operations hostfs_dentry_ops = {
	.d_delete = always_delete_dentry,
};

static int hostfs_fill_super(struct super_block *sb, void *data)
{
	struct inode *root = hostfs_iget(sb, 0, S_IFDIR | 0755, 2);

	if (!root)
		return -ENOMEM;
	sb->s_op = &hostfs_sbops;
	sb->s_d_op = &hostfs_dentry_ops;
	sb->s_flags |= SB_RDONLY;
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

struct file_system_type hostfs_type = {
	.name = "hostfs",
	.fill_super = hostfs_fill_super,
	.magic = HOSTFS_SUPER_MAGIC,
};

void hostfs_init(void)
{
	register_filesystem(&hostfs_type);
}
