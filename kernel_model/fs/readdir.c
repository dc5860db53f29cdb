/* getdents64 (Linux's fs/readdir.c): iterate_dir → ->iterate_shared, which hands each entry to
 * filldir64, which lays out struct linux_dirent64 records in the user's buffer; the older
 * getdents' filldir lays out struct linux_dirent (the type in the record's last byte). */
#include "../include/fs.h"
#include "../include/signal.h"

struct linux_dirent64 {
	u64 d_ino;
	s64 d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct getdents_callback64 {
	struct dir_context ctx;
	struct linux_dirent64 *current_dir;
	int prev_reclen;
	int count;
	int error;
};

noinline int iterate_dir(struct file *file, struct dir_context *ctx)
{
	struct inode *inode = file->f_inode;
	int res = -ENOTDIR;

	if (!file->f_op->iterate_shared)
		goto out;
	res = -ENOENT;
	mutex_lock(&inode->i_rwsem);
	if (!(inode->i_flags & S_DEAD)) {
		ctx->pos = file->f_pos;
		res = file->f_op->iterate_shared(file, ctx);
		file->f_pos = ctx->pos;
		file_accessed(file);
	}
	mutex_unlock(&inode->i_rwsem);
out:
	return res;
}

static noinline int verify_dirent_name(const char *name, int len)
{
	int i;

	if (len <= 0 || len >= PATH_MAX)
		return -EIO;
	for (i = 0; i < len; i++)	/* memchr(name, '/', len) */
		if (name[i] == '/')
			return -EIO;
	return 0;
}

noinline bool filldir64(struct dir_context *ctx, const char *name, int namlen, loff_t offset, u64 ino, unsigned int d_type)
{
	struct getdents_callback64 *buf = container_of(ctx, struct getdents_callback64, ctx);
	struct linux_dirent64 *dirent, *prev;
	int reclen = ALIGN(offsetof(struct linux_dirent64, d_name) + namlen + 1, sizeof(u64));
	int prev_reclen;
	struct linux_dirent64 tmp;
	char zero = 0;

	buf->error = verify_dirent_name(name, namlen);
	if (unlikely(buf->error))
		return false;
	buf->error = -EINVAL;	/* only used if we fail.. */
	if (reclen > buf->count)
		return false;
	prev_reclen = buf->prev_reclen;
	dirent = buf->current_dir;
	prev = (void *)dirent - prev_reclen;
	buf->error = -EFAULT;
	if (prev_reclen && copy_to_user(&prev->d_off, &offset, sizeof(offset)))
		return false;
	tmp.d_ino = ino;
	tmp.d_off = 0;
	tmp.d_reclen = reclen;
	tmp.d_type = d_type;
	if (copy_to_user(dirent, &tmp, offsetof(struct linux_dirent64, d_name)) ||
	    copy_to_user(dirent->d_name, name, namlen) ||
	    copy_to_user(dirent->d_name + namlen, &zero, 1))
		return false;
	buf->error = 0;
	buf->prev_reclen = reclen;
	buf->current_dir = (void *)dirent + reclen;
	buf->count -= reclen;
	return true;
}

SYSCALL_DEFINE3(getdents64, unsigned int, fd, struct linux_dirent64 *, dirent, unsigned int, count)
{
	struct getdents_callback64 buf = {
		.ctx.actor = filldir64,
		.count = count,
		.current_dir = dirent
	};
	struct fd f;
	int error;

	if (!access_ok(dirent, count))
		return -EFAULT;
	f = fdget_pos(fd);
	if (!f.file)
		return -EBADF;
	error = iterate_dir(f.file, &buf.ctx);
	if (error >= 0)
		error = buf.error;
	if (buf.prev_reclen) {
		struct linux_dirent64 *lastdirent = (void *)buf.current_dir - buf.prev_reclen;
		loff_t d_off = buf.ctx.pos;

		if (copy_to_user(&lastdirent->d_off, &d_off, sizeof(d_off)))
			error = -EFAULT;
		else
			error = count - buf.count;
	}
	fdput_pos(f);
	return error;
}

struct linux_dirent {
	unsigned long d_ino;
	unsigned long d_off;
	unsigned short d_reclen;
	char d_name[];	/* then a NUL, padding, and the type in the last byte */
};

struct getdents_callback {
	struct dir_context ctx;
	struct linux_dirent *current_dir;
	int prev_reclen;
	int count;
	int error;
};

static noinline bool filldir(struct dir_context *ctx, const char *name, int namlen, loff_t offset, u64 ino,
			     unsigned int d_type)
{
	struct getdents_callback *buf = container_of(ctx, struct getdents_callback, ctx);
	struct linux_dirent *dirent, *prev;
	unsigned long d_ino = ino, d_off = offset;
	int reclen = ALIGN(offsetof(struct linux_dirent, d_name) + namlen + 2, sizeof(long));
	int prev_reclen;
	unsigned short d_reclen = reclen;
	char zero = 0, type = d_type;

	buf->error = verify_dirent_name(name, namlen);
	if (unlikely(buf->error))
		return false;
	buf->error = -EINVAL;	/* only used if we fail.. */
	if (reclen > buf->count)
		return false;
	prev_reclen = buf->prev_reclen;
	if (prev_reclen && signal_pending(current))
		return false;
	dirent = buf->current_dir;
	prev = (void *)dirent - prev_reclen;
	buf->error = -EFAULT;
	/* This might be 'dirent->d_off', but if so it will get overwritten */
	if (copy_to_user(&prev->d_off, &d_off, sizeof(d_off)) ||
	    copy_to_user(&dirent->d_ino, &d_ino, sizeof(d_ino)) ||
	    copy_to_user(&dirent->d_reclen, &d_reclen, sizeof(d_reclen)) ||
	    copy_to_user((char *)dirent + reclen - 1, &type, 1) ||
	    copy_to_user(dirent->d_name, name, namlen) ||
	    copy_to_user(dirent->d_name + namlen, &zero, 1))
		return false;
	buf->error = 0;
	buf->current_dir = (void *)dirent + reclen;
	buf->prev_reclen = reclen;
	buf->count -= reclen;
	return true;
}

SYSCALL_DEFINE3(getdents, unsigned int, fd, struct linux_dirent *, dirent, unsigned int, count)
{
	struct getdents_callback buf = {
		.ctx.actor = filldir,
		.count = count,
		.current_dir = dirent
	};
	struct fd f;
	int error;

	f = fdget_pos(fd);
	if (!f.file)
		return -EBADF;
	error = iterate_dir(f.file, &buf.ctx);
	if (error >= 0)
		error = buf.error;
	if (buf.prev_reclen) {
		struct linux_dirent *lastdirent = (void *)buf.current_dir - buf.prev_reclen;
		unsigned long d_off = buf.ctx.pos;

		if (copy_to_user(&lastdirent->d_off, &d_off, sizeof(d_off)))
			error = -EFAULT;
		else
			error = count - buf.count;
	}
	fdput_pos(f);
	return error;
}

/* fs/fs_types.c: a directory entry's type (DT_*) from an inode's mode */
noinline unsigned char fs_umode_to_dtype(umode_t mode)
{
	return (mode & S_IFMT) >> 12;	/* fs_ftype_to_dtype(fs_umode_to_ftype(mode)) */
}
