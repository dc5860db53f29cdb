/*
 * Library routines for file systems whose tree is the dcache (Linux's fs/libfs.c): tmpfs,
 * devtmpfs.  A name exists while its dentry is hashed and positive; lookups of other names
 * make negative dentries; readdir walks d_subdirs (".", "..", then the children).
 */
#include "../include/fs.h"
#include "../include/pagemap.h"

noinline int always_delete_dentry(const struct dentry *dentry)
{
	return 1;
}

const struct dentry_operations simple_dentry_operations = {
	.d_delete = always_delete_dentry,
};

noinline struct dentry *simple_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	if (dentry->d_name.len > NAME_MAX)
		return (void *)(long)-ENAMETOOLONG;
	if (!dentry->d_sb->s_d_op)
		d_set_d_op(dentry, &simple_dentry_operations);
	d_add(dentry, NULL);
	return NULL;
}

noinline int simple_getattr(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int query_flags)
{
	struct inode *inode = path->dentry->d_inode;

	generic_fillattr(NULL, inode, stat);
	stat->blocks = inode->i_mapping->nrpages << (PAGE_SHIFT - 9);
	return 0;
}

static notrace bool simple_positive(const struct dentry *d)
{
	return d->d_inode && !d_unhashed(d);
}

noinline int dcache_dir_open(struct inode *inode, struct file *file)
{
	file->private_data = d_alloc_cursor(file->f_path.dentry);
	return file->private_data ? 0 : -ENOMEM;
}

noinline int dcache_dir_close(struct inode *inode, struct file *file)
{
	dput(file->private_data);
	return 0;
}

/* The count-th positive child after p (cursors skipped), held; last's hold dropped */
static noinline struct dentry *scan_positives(struct dentry *cursor, struct list_head *p, loff_t count,
					      struct dentry *last)
{
	struct dentry *dentry = cursor->d_parent, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&dcache_lock, flags);
	while ((p = p->next) != &dentry->d_subdirs) {
		struct dentry *d = list_entry(p, struct dentry, d_child);

		if (d->d_flags & DCACHE_DENTRY_CURSOR)
			continue;
		if (simple_positive(d) && !--count) {
			d->d_lockref.count++;	/* dget_dlock() */
			found = d;
			break;
		}
	}
	spin_unlock_irqrestore(&dcache_lock, flags);
	dput(last);
	return found;
}

noinline loff_t dcache_dir_lseek(struct file *file, loff_t offset, int whence)
{
	struct dentry *dentry = file->f_path.dentry;

	switch (whence) {
	case SEEK_CUR:
		offset += file->f_pos;
		/* fall through */
	case SEEK_SET:
		if (offset >= 0)
			break;
		/* fall through */
	default:
		return -EINVAL;
	}
	if (offset != file->f_pos) {
		struct dentry *cursor = file->private_data;
		struct dentry *to = NULL;
		unsigned long flags;

		if (offset > 2)
			to = scan_positives(cursor, &dentry->d_subdirs, offset - 2, NULL);
		spin_lock_irqsave(&dcache_lock, flags);
		if (to)
			list_move(&cursor->d_child, &to->d_child);
		else
			list_del_init(&cursor->d_child);
		spin_unlock_irqrestore(&dcache_lock, flags);
		dput(to);
		file->f_pos = offset;
	}
	return offset;
}

/* ".", "..", then the positive children from the cursor on; the cursor moved past the last one
 * given (a child removed meanwhile does not shift the others, as a position count would) */
noinline int dcache_readdir(struct file *file, struct dir_context *ctx)
{
	struct dentry *dentry = file->f_path.dentry;
	struct dentry *cursor = file->private_data;
	struct list_head *anchor = &dentry->d_subdirs;
	struct dentry *next = NULL;
	struct list_head *p;
	unsigned long flags;

	if (!dir_emit_dots(file, ctx))
		return 0;
	if (ctx->pos == 2)
		p = anchor;
	else if (!list_empty(&cursor->d_child))
		p = &cursor->d_child;
	else
		return 0;

	while ((next = scan_positives(cursor, p, 1, next)) != NULL) {
		if (!ctx->actor(ctx, (const char *)next->d_name.name, next->d_name.len, ctx->pos,
				next->d_inode->i_ino, fs_umode_to_dtype(next->d_inode->i_mode)))
			break;
		ctx->pos++;
		p = &next->d_child;
	}
	spin_lock_irqsave(&dcache_lock, flags);
	if (next)
		list_move_tail(&cursor->d_child, &next->d_child);
	else
		list_del_init(&cursor->d_child);
	spin_unlock_irqrestore(&dcache_lock, flags);
	dput(next);
	return 0;
}

noinline ssize_t generic_read_dir(struct file *filp, char *buf, size_t siz, loff_t *ppos)
{
	return -EISDIR;
}

const struct file_operations simple_dir_operations = {
	.open = dcache_dir_open,
	.release = dcache_dir_close,
	.llseek = dcache_dir_lseek,
	.read = generic_read_dir,
	.iterate_shared = dcache_readdir,
	.fsync = noop_fsync,
};

const struct inode_operations simple_dir_inode_operations = {
	.lookup = simple_lookup,
};

noinline int simple_empty(struct dentry *dentry)
{
	struct dentry *child;

	list_for_each_entry(child, &dentry->d_subdirs, d_child)
		if (simple_positive(child))
			return 0;
	return 1;
}

noinline int simple_link(struct dentry *old_dentry, struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = old_dentry->d_inode;

	inode->i_ctime = dir->i_ctime = dir->i_mtime = current_time(inode);
	inc_nlink(inode);
	ihold(inode);
	dget(dentry);	/* the file system pins its names */
	d_instantiate(dentry, inode);
	return 0;
}

noinline int simple_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;

	inode->i_ctime = dir->i_ctime = dir->i_mtime = current_time(inode);
	drop_nlink(inode);
	dput(dentry);	/* the pin simple_link/mknod took */
	return 0;
}

noinline int simple_rmdir(struct inode *dir, struct dentry *dentry)
{
	if (!simple_empty(dentry))
		return -ENOTEMPTY;
	drop_nlink(dentry->d_inode);
	simple_unlink(dir, dentry);
	drop_nlink(dir);
	return 0;
}

noinline int simple_rename(struct inode *old_dir, struct dentry *old_dentry, struct inode *new_dir,
			   struct dentry *new_dentry, unsigned int flags)
{
	struct inode *inode = old_dentry->d_inode;
	int they_are_dirs = d_is_dir(old_dentry);

	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	if (new_dentry->d_inode) {
		if (they_are_dirs && !simple_empty(new_dentry))
			return -ENOTEMPTY;
		if (they_are_dirs) {
			drop_nlink(new_dentry->d_inode);
			drop_nlink(old_dir);
		}
		simple_unlink(new_dir, new_dentry);
	} else if (they_are_dirs) {
		drop_nlink(old_dir);
		inc_nlink(new_dir);
	}
	old_dir->i_ctime = old_dir->i_mtime = new_dir->i_ctime = new_dir->i_mtime =
		inode->i_ctime = current_time(old_dir);
	return 0;
}

noinline int noop_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	return 0;
}

/* An in-memory inode's attributes */
noinline int simple_setattr(void *idmap, struct dentry *dentry, struct iattr *iattr)
{
	struct inode *inode = dentry->d_inode;
	int error = setattr_prepare(idmap, dentry, iattr);

	if (error)
		return error;
	if (iattr->ia_valid & ATTR_SIZE)
		inode->i_size = iattr->ia_size;	/* truncate_setsize(): no pages of its own here */
	setattr_copy(idmap, inode, iattr);
	mark_inode_dirty(inode);
	return 0;
}

noinline const char *simple_get_link(struct dentry *dentry, struct inode *inode, char *buf)
{
	return inode->i_link;
}

const struct inode_operations simple_symlink_inode_operations = {
	.get_link = simple_get_link,
};

int simple_open(struct inode *inode, struct file *file)
{
	if (inode->i_private)
		file->private_data = inode->i_private;
	return 0;
}

noinline ssize_t simple_read_from_buffer(void *to, size_t count, loff_t *ppos, const void *from, size_t available)
{
	loff_t pos = *ppos;
	size_t ret;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= available || !count)
		return 0;
	if (count > available - pos)
		count = available - pos;
	ret = copy_to_user(to, (const char *)from + pos, count);
	if (ret == count)
		return -EFAULT;
	count -= ret;
	*ppos = pos + count;
	return count;
}

/* A file system the kernel keeps to itself (pipefs, anon_inodefs): a root and the dentry
 * operations of its files (Linux's init_pseudo). */
noinline int init_pseudo(struct super_block *sb, const struct dentry_operations *dops)
{
	struct inode *root = new_inode(sb);

	if (!root)
		return -ENOMEM;
	root->i_ino = 1;
	root->i_mode = S_IFDIR | 0600;
	root->i_op = &simple_dir_inode_operations;
	root->i_fop = &simple_dir_operations;
	set_nlink(root, 2);
	sb->s_op = &simple_super_operations;
	sb->s_d_op = dops;
	sb->s_flags |= SB_NOUSER;	/* (pseudo_fs_fill_super) */
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

/* statfs of a file system that counts no blocks: its kind, the page as its block, NAME_MAX */
noinline int simple_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	buf->f_type = dentry->d_sb->s_magic;
	buf->f_bsize = PAGE_SIZE;
	buf->f_namelen = NAME_MAX;
	return 0;
}

const struct super_operations simple_super_operations = {
	.statfs = simple_statfs,
};
