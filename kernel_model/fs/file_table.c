/* struct file lifetime (Linux's fs/file_table.c): alloc_empty_file, alloc_file_pseudo (pipes),
 * fput → __fput at the last reference (->release, then the path it held). */
#include "../include/fs.h"
#include "../include/fsnotify.h"
#include "../include/security.h"

static struct kmem_cache *filp_cachep;

static noinline struct file *__alloc_file(int flags, const void *cred)
{
	struct file *f = kmem_cache_zalloc(filp_cachep, GFP_KERNEL);
	int error;

	if (!f)
		return (void *)(long)-ENOMEM;
	error = security_file_alloc(f);
	if (unlikely(error)) {
		kmem_cache_free(filp_cachep, f);	/* file_free_rcu */
		return (void *)(long)error;
	}
	f->f_count = 1;
	f->f_flags = flags;
	f->f_mode = ((flags + 1) & O_ACCMODE) | FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE;
	mutex_init(&f->f_pos_lock);
	return f;
}

noinline struct file *alloc_empty_file(int flags, const void *cred)
{
	return __alloc_file(flags, cred);
}

noinline struct file *alloc_file(const struct path *path, int flags, const struct file_operations *fop)
{
	struct file *file = alloc_empty_file(flags, NULL);

	if (IS_ERR(file))
		return file;
	file->f_path = *path;
	file->f_inode = path->dentry->d_inode;
	file->f_mapping = file->f_inode->i_mapping;
	file->f_op = fop;
	file->f_mode |= FMODE_OPENED;
	if ((file->f_mode & (FMODE_READ | FMODE_WRITE)) == FMODE_READ)	/* i_readcount_inc() */
		__atomic_add_fetch(&file->f_inode->i_readcount, 1, __ATOMIC_RELAXED);
	if ((file->f_mode & FMODE_READ) && (fop->read || fop->read_iter))
		file->f_mode |= FMODE_CAN_READ;
	if ((file->f_mode & FMODE_WRITE) && (fop->write || fop->write_iter))
		file->f_mode |= FMODE_CAN_WRITE;
	return file;
}

/* A file on an inode that no directory names (pipes, the kernel's programs): a dentry of its
 * own on the fs root, so that d_path names it "/NAME". */
/* A second file on base's dentry (a pipe's read end) */
noinline struct file *alloc_file_clone(struct file *base, int flags, const struct file_operations *fops)
{
	struct file *f = alloc_file(&base->f_path, flags, fops);

	if (!IS_ERR(f)) {
		path_get(&f->f_path);
		f->f_mapping = base->f_mapping;
	}
	return f;
}

noinline struct file *alloc_file_pseudo(struct inode *inode, struct vfsmount *mnt, const char *name,
					int flags, const struct file_operations *fops)
{
	struct qstr this = QSTR_INIT((const unsigned char *)name, strlen(name));
	struct path path;
	struct file *file;

	path.dentry = d_alloc(mnt->mnt_sb->s_root, &this);	/* (6.1: d_alloc_pseudo, d_path by anon_ops) */
	if (!path.dentry)
		return (void *)(long)-ENOMEM;
	path.mnt = mntget(mnt);
	d_instantiate(path.dentry, inode);
	file = alloc_file(&path, flags, fops);
	if (IS_ERR(file)) {
		ihold(inode);
		path_put(&path);
	}
	return file;
}

notrace struct file *get_file(struct file *f)
{
	__atomic_add_fetch(&f->f_count, 1, __ATOMIC_RELAXED);
	return f;
}

noinline void __fput(struct file *file)
{
	struct inode *inode = file->f_inode;

	if (unlikely(file->f_ep))	/* eventpoll_release(): out of the epoll sets that have it */
		eventpoll_release_file(file);
	if (file->f_mode & FMODE_OPENED) {
		fsnotify_close(file);	/* (6.1: first, before eventpoll_release) */
		if (inode)
			locks_remove_file(file);
		if (unlikely(file->f_flags & FASYNC) && file->f_op && file->f_op->fasync)
			file->f_op->fasync(-1, file, 0);	/* off its fasync list */
		if (file->f_op && file->f_op->release)
			file->f_op->release(inode, file);
		if ((file->f_mode & FMODE_WRITE) && inode)
			__atomic_sub_fetch(&inode->i_writecount, 1, __ATOMIC_RELAXED);
		else if ((file->f_mode & FMODE_READ) && inode)	/* i_readcount_dec() */
			__atomic_sub_fetch(&inode->i_readcount, 1, __ATOMIC_RELAXED);
		if (file->f_mode & FMODE_WRITER)
			__mnt_drop_write(file->f_path.mnt);
	}
	if (file->f_path.dentry)
		path_put(&file->f_path);
	security_file_free(file);	/* file_free() */
	kmem_cache_free(filp_cachep, file);
}

noinline void fput(struct file *file)
{
	if (__atomic_sub_fetch(&file->f_count, 1, __ATOMIC_ACQ_REL) == 0)
		__fput(file);
}

void __init files_init(void)
{
	filp_cachep = kmem_cache_create("filp", sizeof(struct file), 0,
					SLAB_HWCACHE_ALIGN | SLAB_PANIC | SLAB_ACCOUNT, NULL);
}
