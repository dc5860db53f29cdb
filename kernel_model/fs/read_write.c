/*
 * Reads, writes and seeks (Linux's fs/read_write.c, lib/iov_iter.c's copies): read/write,
 * pread64/pwrite64, readv/writev (import_iovec, do_iter_read/write → ->read_iter/->write_iter,
 * or ->read/->write per segment), lseek, sendfile, kernel_read/kernel_write on kernel buffers.
 */
#include "../include/fs.h"
#include "../include/fsnotify.h"
#include "../include/security.h"
#include "../include/pagemap.h"
#include "../include/net.h"	/* MSG_MORE (include/linux/socket.h) */


/* ---- iov_iter: lib/iov_iter.c, built without ftrace as Linux builds lib/ ---- */
noinline notrace void iov_iter_kvec(struct iov_iter *i, unsigned int direction, const struct kvec *kvec,
		   unsigned long nr_segs, size_t count)
{
	*i = (struct iov_iter){ .iter_type = ITER_KVEC, .data_source = direction, .kvec = kvec,
				.nr_segs = nr_segs, .count = count };
}

static notrace void iov_iter_init(struct iov_iter *i, unsigned int direction, const struct iovec *iov,
				  unsigned long nr_segs, size_t count)
{
	*i = (struct iov_iter){ .iter_type = ITER_IOVEC, .data_source = direction, .iov = iov,
				.nr_segs = nr_segs, .count = count };
}

/* The current segment: its address and what is left of it. */
static notrace void *iter_seg(const struct iov_iter *i, size_t *len)
{
	if (i->iter_type == ITER_UBUF) {
		*len = i->count;
		return (char *)i->ubuf + i->iov_offset;
	}
	*len = i->iov[0].iov_len - i->iov_offset;
	return (char *)i->iov[0].iov_base + i->iov_offset;
}

notrace void iov_iter_advance(struct iov_iter *i, size_t bytes)
{
	bytes = min(bytes, i->count);
	i->count -= bytes;
	if (i->iter_type == ITER_UBUF) {
		i->iov_offset += bytes;
		return;
	}
	while (bytes) {
		size_t left = i->iov[0].iov_len - i->iov_offset;

		if (bytes < left) {
			i->iov_offset += bytes;
			return;
		}
		bytes -= left;
		i->iov++;
		i->nr_segs--;
		i->iov_offset = 0;
	}
	while (i->nr_segs && i->count && !i->iov[0].iov_len) {
		i->iov++;
		i->nr_segs--;
	}
}

/* Copy between kernel memory and the iterator: user segments through copy_*_user (a fault
 * ends the copy short), kernel ones by memcpy. */
static notrace size_t iterate(struct iov_iter *i, void *kaddr, size_t bytes, bool to_iter)
{
	size_t done = 0;

	bytes = min(bytes, i->count);
	while (done < bytes) {
		size_t len, n;
		void *seg = iter_seg(i, &len);

		n = min(len, bytes - done);
		if (!n) {
			iov_iter_advance(i, 0);
			if (!i->nr_segs)
				break;
			continue;
		}
		if (i->iter_type == ITER_KVEC) {
			if (to_iter)
				memcpy(seg, (char *)kaddr + done, n);
			else
				memcpy((char *)kaddr + done, seg, n);
		} else if (to_iter ? copy_to_user(seg, (char *)kaddr + done, n) :
				     copy_from_user((char *)kaddr + done, seg, n)) {
			break;
		}
		done += n;
		iov_iter_advance(i, n);
	}
	return done;
}

noinline notrace size_t _copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i)
{
	return iterate(i, (void *)addr, bytes, true);
}

noinline notrace size_t _copy_from_iter(void *addr, size_t bytes, struct iov_iter *i)
{
	return iterate(i, addr, bytes, false);
}

noinline notrace size_t iov_iter_zero(size_t bytes, struct iov_iter *i)
{
	static const char zeros[256];
	size_t done = 0;

	while (done < bytes && i->count) {
		size_t n = _copy_to_iter(zeros, min(bytes - done, sizeof(zeros)), i);

		if (!n)
			break;
		done += n;
	}
	return done;
}

/* ---- seeking ---- */
noinline loff_t vfs_setpos(struct file *file, loff_t offset, loff_t maxsize)
{
	if (offset < 0 || offset > maxsize)
		return -EINVAL;
	if (offset != file->f_pos) {
		file->f_pos = offset;
		file->f_version = 0;
	}
	return offset;
}

noinline loff_t generic_file_llseek_size(struct file *file, loff_t offset, int whence, loff_t maxsize, loff_t eof)
{
	switch (whence) {
	case SEEK_END:
		offset += eof;
		break;
	case SEEK_CUR:
		if (offset == 0)
			return file->f_pos;
		offset += file->f_pos;
		break;
	case SEEK_DATA:
		if ((unsigned long long)offset >= (unsigned long long)eof)
			return -ENXIO;
		break;
	case SEEK_HOLE:
		if ((unsigned long long)offset >= (unsigned long long)eof)
			return -ENXIO;
		offset = eof;
		break;
	}
	return vfs_setpos(file, offset, maxsize);
}

noinline loff_t generic_file_llseek(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file->f_mapping->host;

	return generic_file_llseek_size(file, offset, whence, inode->i_sb->s_maxbytes, inode->i_size);
}

loff_t fixed_size_llseek(struct file *file, loff_t offset, int whence, loff_t size)
{
	switch (whence) {
	case SEEK_SET: case SEEK_CUR: case SEEK_END:
		return generic_file_llseek_size(file, offset, whence, size, size);
	default:
		return -EINVAL;
	}
}

noinline loff_t noop_llseek(struct file *file, loff_t offset, int whence)
{
	return file->f_pos;
}

notrace loff_t no_llseek(struct file *file, loff_t offset, int whence)
{
	return -ESPIPE;
}

noinline loff_t default_llseek(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file->f_inode;
	loff_t retval;

	switch (whence) {
	case SEEK_END:
		offset += inode->i_size;
		break;
	case SEEK_CUR:
		if (offset == 0) {
			retval = file->f_pos;
			goto out;
		}
		offset += file->f_pos;
		break;
	case SEEK_DATA:
		if (offset >= inode->i_size) {
			retval = -ENXIO;
			goto out;
		}
		break;
	case SEEK_HOLE:
		if (offset >= inode->i_size) {
			retval = -ENXIO;
			goto out;
		}
		offset = inode->i_size;
		break;
	}
	retval = -EINVAL;
	if (offset >= 0) {
		if (offset != file->f_pos) {
			file->f_pos = offset;
			file->f_version = 0;
		}
		retval = offset;
	}
out:
	return retval;
}

noinline loff_t vfs_llseek(struct file *file, loff_t offset, int whence)
{
	if (!(file->f_mode & FMODE_LSEEK) || !file->f_op->llseek)
		return -ESPIPE;
	return file->f_op->llseek(file, offset, whence);
}

noinline off_t ksys_lseek(unsigned int fd, off_t offset, unsigned int whence)
{
	struct fd f = fdget_pos(fd);
	off_t retval;

	if (!f.file)
		return -EBADF;
	retval = -EINVAL;
	if (whence <= SEEK_HOLE) {
		loff_t res = vfs_llseek(f.file, offset, whence);

		retval = res;
		if (res != (loff_t)retval)
			retval = -EOVERFLOW;	/* LFS: should only happen on 32 bit platforms */
	}
	fdput_pos(f);
	return retval;
}

SYSCALL_DEFINE3(lseek, unsigned int, fd, off_t, offset, unsigned int, whence)
{
	return ksys_lseek(fd, offset, whence);
}

/* ---- read / write ---- */
noinline int rw_verify_area(int read_write, struct file *file, const loff_t *ppos, size_t count)
{
	if ((ssize_t)count < 0)
		return -EINVAL;
	if (ppos) {
		loff_t pos = *ppos;

		/* (unsigned_offsets(): a file whose offsets are addresses, /proc/PID/mem) */
		if (pos < 0) {
			if (!(file->f_mode & FMODE_UNSIGNED_OFFSET))
				return -EINVAL;
			if (count >= -pos)	/* both values are in 0..LLONG_MAX */
				return -EOVERFLOW;
		} else if ((loff_t)(pos + count) < 0) {
			if (!(file->f_mode & FMODE_UNSIGNED_OFFSET))
				return -EINVAL;
		}
	}
	return security_file_permission(file, read_write == READ ? MAY_READ : MAY_WRITE);
}

static notrace ssize_t new_sync_read(struct file *filp, char *buf, size_t len, loff_t *ppos)
{
	struct kiocb kiocb;
	struct iov_iter iter;
	ssize_t ret;

	init_sync_kiocb(&kiocb, filp);
	kiocb.ki_pos = ppos ? *ppos : 0;
	iov_iter_ubuf(&iter, READ, buf, len);
	ret = filp->f_op->read_iter(&kiocb, &iter);
	if (ppos)
		*ppos = kiocb.ki_pos;
	return ret;
}

static notrace ssize_t new_sync_write(struct file *filp, const char *buf, size_t len, loff_t *ppos)
{
	struct kiocb kiocb;
	struct iov_iter iter;
	ssize_t ret;

	init_sync_kiocb(&kiocb, filp);
	kiocb.ki_pos = ppos ? *ppos : 0;
	iov_iter_ubuf(&iter, WRITE, (void *)buf, len);
	ret = filp->f_op->write_iter(&kiocb, &iter);
	if (ret > 0 && ppos)
		*ppos = kiocb.ki_pos;
	return ret;
}

noinline ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)
{
	ssize_t ret;

	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	if (!(file->f_mode & FMODE_CAN_READ))
		return -EINVAL;
	if (!access_ok(buf, count))
		return -EFAULT;
	ret = rw_verify_area(READ, file, pos, count);
	if (ret)
		return ret;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	if (file->f_op->read)
		ret = file->f_op->read(file, buf, count, pos);
	else
		ret = new_sync_read(file, buf, count, pos);
	if (ret > 0) {
		fsnotify_access(file);
		add_rchar(current, ret);
	}
	inc_syscr(current);
	return ret;
}

noinline ssize_t vfs_write(struct file *file, const char *buf, size_t count, loff_t *pos)
{
	ssize_t ret;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!(file->f_mode & FMODE_CAN_WRITE))
		return -EINVAL;
	if (!access_ok(buf, count))
		return -EFAULT;
	ret = rw_verify_area(WRITE, file, pos, count);
	if (ret)
		return ret;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	if (file->f_op->write)
		ret = file->f_op->write(file, buf, count, pos);
	else
		ret = new_sync_write(file, buf, count, pos);
	if (ret > 0) {
		fsnotify_modify(file);
		add_wchar(current, ret);
	}
	inc_syscw(current);
	return ret;
}

/* Reads into kernel memory: only files with ->read_iter, as 6.1's __kernel_read. */
noinline ssize_t __kernel_read(struct file *file, void *buf, size_t count, loff_t *pos)
{
	struct kvec iov = { .iov_base = buf, .iov_len = min(count, (size_t)MAX_RW_COUNT) };
	struct kiocb kiocb;
	struct iov_iter iter;
	ssize_t ret;

	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	if (!(file->f_mode & FMODE_CAN_READ) || !file->f_op->read_iter)
		return -EINVAL;
	init_sync_kiocb(&kiocb, file);
	kiocb.ki_pos = pos ? *pos : 0;
	iov_iter_kvec(&iter, READ, &iov, 1, iov.iov_len);
	ret = file->f_op->read_iter(&kiocb, &iter);
	if (ret > 0) {
		if (pos)
			*pos = kiocb.ki_pos;
		add_rchar(current, ret);	/* (exec's reads of the program count too) */
	}
	inc_syscr(current);
	return ret;
}

noinline ssize_t kernel_read(struct file *file, void *buf, size_t count, loff_t *pos)
{
	ssize_t ret = rw_verify_area(READ, file, pos, count);

	if (ret)
		return ret;
	return __kernel_read(file, buf, count, pos);
}

/* The kernel's own write of an iterator's data, through the file's write_iter */
noinline ssize_t __kernel_write_iter(struct file *file, struct iov_iter *from, loff_t *pos)
{
	struct kiocb kiocb;
	ssize_t ret;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!(file->f_mode & FMODE_CAN_WRITE) || !file->f_op->write_iter)
		return -EINVAL;
	init_sync_kiocb(&kiocb, file);
	kiocb.ki_pos = pos ? *pos : 0;
	ret = file->f_op->write_iter(&kiocb, from);
	if (ret > 0) {
		if (pos)
			*pos = kiocb.ki_pos;
		add_wchar(current, ret);
	}
	inc_syscw(current);
	return ret;
}

noinline ssize_t __kernel_write(struct file *file, const void *buf, size_t count, loff_t *pos)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = min(count, (size_t)MAX_RW_COUNT) };
	struct iov_iter iter;

	iov_iter_kvec(&iter, WRITE, &iov, 1, iov.iov_len);
	return __kernel_write_iter(file, &iter, pos);
}

noinline ssize_t kernel_write(struct file *file, const void *buf, size_t count, loff_t *pos)
{
	ssize_t ret = rw_verify_area(WRITE, file, pos, count);

	if (ret)
		return ret;
	return __kernel_write(file, buf, count, pos);
}

/* f_pos for a read or write: a stream has none. */
static notrace loff_t *file_ppos(struct file *file)
{
	return file->f_mode & FMODE_STREAM ? NULL : &file->f_pos;
}

noinline ssize_t ksys_read(unsigned int fd, char *buf, size_t count)
{
	struct fd f = fdget_pos(fd);
	ssize_t ret = -EBADF;

	if (f.file) {
		loff_t pos, *ppos = file_ppos(f.file);

		if (ppos) {
			pos = *ppos;
			ppos = &pos;
		}
		ret = vfs_read(f.file, buf, count, ppos);
		if (ret >= 0 && ppos)
			f.file->f_pos = pos;
		fdput_pos(f);
	}
	return ret;
}

SYSCALL_DEFINE3(read, unsigned int, fd, char *, buf, size_t, count)
{
	return ksys_read(fd, buf, count);
}

noinline ssize_t ksys_write(unsigned int fd, const char *buf, size_t count)
{
	struct fd f = fdget_pos(fd);
	ssize_t ret = -EBADF;

	if (f.file) {
		loff_t pos, *ppos = file_ppos(f.file);

		if (ppos) {
			pos = *ppos;
			ppos = &pos;
		}
		ret = vfs_write(f.file, buf, count, ppos);
		if (ret >= 0 && ppos)
			f.file->f_pos = pos;
		fdput_pos(f);
	}
	return ret;
}

SYSCALL_DEFINE3(write, unsigned int, fd, const char *, buf, size_t, count)
{
	return ksys_write(fd, buf, count);
}

noinline ssize_t ksys_pread64(unsigned int fd, char *buf, size_t count, loff_t pos)
{
	struct fd f;
	ssize_t ret = -EBADF;

	if (pos < 0)
		return -EINVAL;
	f = fdget(fd);
	if (f.file) {
		ret = -ESPIPE;
		if (f.file->f_mode & FMODE_PREAD)
			ret = vfs_read(f.file, buf, count, &pos);
		fdput(f);
	}
	return ret;
}

SYSCALL_DEFINE4(pread64, unsigned int, fd, char *, buf, size_t, count, loff_t, pos)
{
	return ksys_pread64(fd, buf, count, pos);
}

noinline ssize_t ksys_pwrite64(unsigned int fd, const char *buf, size_t count, loff_t pos)
{
	struct fd f;
	ssize_t ret = -EBADF;

	if (pos < 0)
		return -EINVAL;
	f = fdget(fd);
	if (f.file) {
		ret = -ESPIPE;
		if (f.file->f_mode & FMODE_PWRITE)
			ret = vfs_write(f.file, buf, count, &pos);
		fdput(f);
	}
	return ret;
}

SYSCALL_DEFINE4(pwrite64, unsigned int, fd, const char *, buf, size_t, count, loff_t, pos)
{
	return ksys_pwrite64(fd, buf, count, pos);
}

/* ---- readv / writev (import_iovec: lib/iov_iter.c, not traced) ---- */
/* The nr_segs iovecs at uvec, in fast_iov when they fit, else in memory the caller frees; a
 * negative length is EINVAL (their addresses are the caller's to check: process_vm_readv's
 * remote ones are another process's) */
noinline notrace struct iovec *iovec_from_user(const struct iovec *uvec, unsigned long nr_segs,
					       unsigned long fast_segs, struct iovec *fast_iov)
{
	struct iovec *iov = fast_iov;
	unsigned long seg;
	int ret = -EFAULT;

	if (nr_segs == 0)
		return iov;
	if (nr_segs > UIO_MAXIOV)
		return ERR_PTR(-EINVAL);
	if (nr_segs > fast_segs) {
		iov = kmalloc(nr_segs * sizeof(struct iovec), GFP_KERNEL);
		if (!iov)
			return ERR_PTR(-ENOMEM);
	}
	if (copy_from_user(iov, uvec, nr_segs * sizeof(struct iovec)))	/* copy_iovec_from_user() */
		goto fail;
	ret = -EINVAL;
	for (seg = 0; seg < nr_segs; seg++)
		if ((ssize_t)iov[seg].iov_len < 0)
			goto fail;
	return iov;
fail:
	if (iov != fast_iov)
		kfree(iov);
	return ERR_PTR(ret);
}

noinline notrace ssize_t __import_iovec(int type, const struct iovec *uvec, unsigned nr_segs, unsigned fast_segs,
				struct iovec **iovp, struct iov_iter *i)
{
	struct iovec *iov;
	size_t total = 0;
	unsigned int seg;

	if (nr_segs == 0) {
		iov_iter_init(i, type, *iovp, 0, 0);
		*iovp = NULL;
		return 0;
	}
	iov = iovec_from_user(uvec, nr_segs, fast_segs, *iovp);
	if (IS_ERR(iov))
		return PTR_ERR(iov);
	for (seg = 0; seg < nr_segs; seg++) {
		ssize_t len = (ssize_t)iov[seg].iov_len;

		if (!access_ok(iov[seg].iov_base, len)) {
			if (iov != *iovp)
				kfree(iov);
			return -EFAULT;
		}
		if (len > MAX_RW_COUNT - (ssize_t)total) {
			len = MAX_RW_COUNT - total;
			iov[seg].iov_len = len;
		}
		total += len;
	}
	iov_iter_init(i, type, iov, nr_segs, total);
	*iovp = iov == *iovp ? NULL : iov;
	return total;
}

noinline notrace ssize_t import_iovec(int type, const struct iovec *uvec, unsigned nr_segs, unsigned fast_segs,
			      struct iovec **iovp, struct iov_iter *i)
{
	return __import_iovec(type, uvec, nr_segs, fast_segs, iovp, i);
}

/* A file with only ->read / ->write: one call per segment. */
static notrace ssize_t do_loop_readv_writev(struct file *filp, struct iov_iter *iter, loff_t *ppos, int type)
{
	ssize_t ret = 0;

	while (iov_iter_count(iter)) {
		size_t len;
		void *base = iter_seg(iter, &len);
		ssize_t nr;

		if (type == READ)
			nr = filp->f_op->read(filp, base, len, ppos);
		else
			nr = filp->f_op->write(filp, base, len, ppos);
		if (nr < 0) {
			if (!ret)
				ret = nr;
			break;
		}
		ret += nr;
		if (nr != (ssize_t)len)
			break;
		iov_iter_advance(iter, nr);
	}
	return ret;
}

noinline ssize_t do_iter_readv_writev(struct file *filp, struct iov_iter *iter, loff_t *ppos, int type)
{
	struct kiocb kiocb;
	ssize_t ret;

	init_sync_kiocb(&kiocb, filp);
	kiocb.ki_pos = ppos ? *ppos : 0;
	if (type == READ)
		ret = filp->f_op->read_iter(&kiocb, iter);
	else
		ret = filp->f_op->write_iter(&kiocb, iter);
	if (ppos)
		*ppos = kiocb.ki_pos;
	return ret;
}

noinline ssize_t do_iter_read(struct file *file, struct iov_iter *iter, loff_t *pos)
{
	size_t tot_len;
	ssize_t ret;

	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	if (!(file->f_mode & FMODE_CAN_READ))
		return -EINVAL;
	tot_len = iov_iter_count(iter);
	if (tot_len) {
		ret = rw_verify_area(READ, file, pos, tot_len);
		if (ret < 0)
			return ret;
		if (file->f_op->read_iter)
			ret = do_iter_readv_writev(file, iter, pos, READ);
		else
			ret = do_loop_readv_writev(file, iter, pos, READ);
	} else {
		ret = 0;
	}
	if (ret >= 0)	/* (an empty vector too, as 6.1) */
		fsnotify_access(file);
	return ret;
}

noinline ssize_t do_iter_write(struct file *file, struct iov_iter *iter, loff_t *pos)
{
	size_t tot_len;
	ssize_t ret;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!(file->f_mode & FMODE_CAN_WRITE))
		return -EINVAL;
	tot_len = iov_iter_count(iter);
	if (tot_len) {
		ret = rw_verify_area(WRITE, file, pos, tot_len);
		if (ret < 0)
			return ret;
		if (file->f_op->write_iter)
			ret = do_iter_readv_writev(file, iter, pos, WRITE);
		else
			ret = do_loop_readv_writev(file, iter, pos, WRITE);
	} else {
		ret = 0;
	}
	if (ret >= 0)	/* (an empty vector too, as 6.1) */
		fsnotify_modify(file);
	return ret;
}

noinline ssize_t vfs_readv(struct file *file, const struct iovec *vec, unsigned long vlen, loff_t *pos, int flags)
{
	struct iovec iovstack[UIO_FASTIOV], *iov = iovstack;
	struct iov_iter iter;
	ssize_t ret = import_iovec(READ, vec, vlen, UIO_FASTIOV, &iov, &iter);

	if (ret >= 0) {
		ret = do_iter_read(file, &iter, pos);
		kfree(iov);
	}
	return ret;
}

noinline ssize_t vfs_writev(struct file *file, const struct iovec *vec, unsigned long vlen, loff_t *pos, int flags)
{
	struct iovec iovstack[UIO_FASTIOV], *iov = iovstack;
	struct iov_iter iter;
	ssize_t ret = import_iovec(WRITE, vec, vlen, UIO_FASTIOV, &iov, &iter);

	if (ret >= 0) {
		ret = do_iter_write(file, &iter, pos);
		kfree(iov);
	}
	return ret;
}

noinline ssize_t do_readv(unsigned long fd, const struct iovec *vec, unsigned long vlen, int flags)
{
	struct fd f = fdget_pos(fd);
	ssize_t ret = -EBADF;

	if (f.file) {
		loff_t pos, *ppos = file_ppos(f.file);

		if (ppos) {
			pos = *ppos;
			ppos = &pos;
		}
		ret = vfs_readv(f.file, vec, vlen, ppos, flags);
		if (ret >= 0 && ppos)
			f.file->f_pos = pos;
		fdput_pos(f);
	}
	if (ret > 0)
		add_rchar(current, ret);
	inc_syscr(current);
	return ret;
}

noinline ssize_t do_writev(unsigned long fd, const struct iovec *vec, unsigned long vlen, int flags)
{
	struct fd f = fdget_pos(fd);
	ssize_t ret = -EBADF;

	if (f.file) {
		loff_t pos, *ppos = file_ppos(f.file);

		if (ppos) {
			pos = *ppos;
			ppos = &pos;
		}
		ret = vfs_writev(f.file, vec, vlen, ppos, flags);
		if (ret >= 0 && ppos)
			f.file->f_pos = pos;
		fdput_pos(f);
	}
	if (ret > 0)
		add_wchar(current, ret);
	inc_syscw(current);
	return ret;
}

SYSCALL_DEFINE3(readv, unsigned long, fd, const struct iovec *, vec, unsigned long, vlen)
{
	return do_readv(fd, vec, vlen, 0);
}

SYSCALL_DEFINE3(writev, unsigned long, fd, const struct iovec *, vec, unsigned long, vlen)
{
	return do_writev(fd, vec, vlen, 0);
}

/* ---- preadv / pwritev: at a position, the file's own left where it is ---- */
static noinline ssize_t do_preadv(unsigned long fd, const struct iovec *vec, unsigned long vlen, loff_t pos,
				  rwf_t flags)
{
	struct fd f;
	ssize_t ret = -EBADF;

	if (pos < 0)
		return -EINVAL;
	f = fdget(fd);
	if (f.file) {
		ret = -ESPIPE;
		if (f.file->f_mode & FMODE_PREAD)
			ret = vfs_readv(f.file, vec, vlen, &pos, flags);
		fdput(f);
	}
	if (ret > 0)
		add_rchar(current, ret);
	inc_syscr(current);
	return ret;
}

static noinline ssize_t do_pwritev(unsigned long fd, const struct iovec *vec, unsigned long vlen, loff_t pos,
				   rwf_t flags)
{
	struct fd f;
	ssize_t ret = -EBADF;

	if (pos < 0)
		return -EINVAL;
	f = fdget(fd);
	if (f.file) {
		ret = -ESPIPE;
		if (f.file->f_mode & FMODE_PWRITE)
			ret = vfs_writev(f.file, vec, vlen, &pos, flags);
		fdput(f);
	}
	if (ret > 0)
		add_wchar(current, ret);
	inc_syscw(current);
	return ret;
}

/* the offset in two halves (a 32-bit ABI's registers; the high one shifts out on x86-64) */
static __always_inline loff_t pos_from_hilo(unsigned long high, unsigned long low)
{
	return (((loff_t)high << 32) << 32) | low;
}

SYSCALL_DEFINE5(preadv, unsigned long, fd, const struct iovec *, vec, unsigned long, vlen, unsigned long, pos_l,
		unsigned long, pos_h)
{
	return do_preadv(fd, vec, vlen, pos_from_hilo(pos_h, pos_l), 0);
}

/* an offset of -1: the file's position, as readv */
SYSCALL_DEFINE6(preadv2, unsigned long, fd, const struct iovec *, vec, unsigned long, vlen, unsigned long, pos_l,
		unsigned long, pos_h, rwf_t, flags)
{
	loff_t pos = pos_from_hilo(pos_h, pos_l);

	if (pos == -1)
		return do_readv(fd, vec, vlen, flags);
	return do_preadv(fd, vec, vlen, pos, flags);
}

SYSCALL_DEFINE5(pwritev, unsigned long, fd, const struct iovec *, vec, unsigned long, vlen, unsigned long, pos_l,
		unsigned long, pos_h)
{
	return do_pwritev(fd, vec, vlen, pos_from_hilo(pos_h, pos_l), 0);
}

SYSCALL_DEFINE6(pwritev2, unsigned long, fd, const struct iovec *, vec, unsigned long, vlen, unsigned long, pos_l,
		unsigned long, pos_h, rwf_t, flags)
{
	loff_t pos = pos_from_hilo(pos_h, pos_l);

	if (pos == -1)
		return do_writev(fd, vec, vlen, flags);
	return do_pwritev(fd, vec, vlen, pos, flags);
}

/* ---- sendfile: through a kernel bounce buffer (6.1 splices through a pipe) ---- */
noinline long do_splice_direct(struct file *in, loff_t *ppos, struct file *out, loff_t *opos, size_t len)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	long done = 0;

	if (!buf)
		return -ENOMEM;
	while ((size_t)done < len) {
		struct kvec kv = { buf, min(len - done, PAGE_SIZE) };
		struct iov_iter it;
		struct kiocb kiocb;
		ssize_t n, w;

		init_sync_kiocb(&kiocb, in);
		kiocb.ki_pos = *ppos;
		iov_iter_kvec(&it, READ, &kv, 1, kv.iov_len);
		n = in->f_op->read_iter(&kiocb, &it);
		if (n <= 0) {
			if (!done)
				done = n;
			break;
		}
		*ppos = kiocb.ki_pos;
		if (out->f_op->sendpage) {	/* a socket: pipe_to_sendpage() */
			struct page *page = virt_to_page(buf);
			int more = (size_t)(done + n) < len ? MSG_MORE | MSG_SENDPAGE_NOTLAST : 0;

			w = out->f_op->sendpage(out, page, buf - (char *)page_address(page), n, opos, more);
		} else if (out->f_op->write_iter) {
			kv.iov_len = n;
			init_sync_kiocb(&kiocb, out);
			kiocb.ki_pos = *opos;
			iov_iter_kvec(&it, WRITE, &kv, 1, n);
			w = out->f_op->write_iter(&kiocb, &it);
			if (w > 0)
				*opos = kiocb.ki_pos;
		} else {
			w = -EINVAL;
		}
		if (w <= 0) {
			*ppos -= n;
			if (!done)
				done = w;
			break;
		}
		done += w;
		if (w < n) {
			*ppos -= n - w;
			break;
		}
	}
	kfree(buf);
	return done;
}

noinline ssize_t do_sendfile(int out_fd, int in_fd, loff_t *ppos, size_t count, loff_t max)
{
	struct file *in = fget(in_fd), *out = NULL;
	loff_t pos, out_pos;
	ssize_t retval = -EBADF;

	if (!in)
		goto out;
	if (!(in->f_mode & FMODE_READ))
		goto fput_in;
	retval = -ESPIPE;
	if (!ppos) {
		pos = in->f_pos;
	} else {
		pos = *ppos;
		if (!(in->f_mode & FMODE_PREAD))
			goto fput_in;
	}
	retval = rw_verify_area(READ, in, &pos, count);
	if (retval < 0)
		goto fput_in;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	retval = -EBADF;
	out = fget(out_fd);
	if (!out)
		goto fput_in;
	if (!(out->f_mode & FMODE_WRITE))
		goto fput_out;
	out_pos = out->f_pos;
	retval = rw_verify_area(WRITE, out, &out_pos, count);
	if (retval < 0)
		goto fput_out;
	retval = -EINVAL;
	if (!in->f_op->read_iter)
		goto fput_out;
	if (!max)
		max = in->f_inode->i_sb->s_maxbytes;
	if (pos + count > max) {
		retval = -EOVERFLOW;
		if (pos >= max)
			goto fput_out;
		count = max - pos;
	}
	retval = do_splice_direct(in, &pos, out, &out_pos, count);
	if (retval > 0) {
		add_rchar(current, retval);
		add_wchar(current, retval);
	}
	if (!(out->f_mode & FMODE_STREAM))
		out->f_pos = out_pos;
	if (ppos)
		*ppos = pos;
	else
		in->f_pos = pos;
	inc_syscr(current);
	inc_syscw(current);
fput_out:
	fput(out);
fput_in:
	fput(in);
out:
	return retval;
}

SYSCALL_DEFINE4(sendfile64, int, out_fd, int, in_fd, loff_t *, offset, size_t, count)
{
	loff_t pos;
	ssize_t ret;

	if (offset) {
		if (copy_from_user(&pos, offset, sizeof(loff_t)))
			return -EFAULT;
		ret = do_sendfile(out_fd, in_fd, &pos, count, 0);
		if (copy_to_user(offset, &pos, sizeof(loff_t)))
			return -EFAULT;
		return ret;
	}
	return do_sendfile(out_fd, in_fd, NULL, count, 0);
}

/* ---- copy_file_range: within one file system, through the page cache (no clone here) ---- */
/* The copy done by the kernel: read into a buffer, written out (6.1 splices through a pipe) */
noinline ssize_t generic_copy_file_range(struct file *file_in, loff_t pos_in, struct file *file_out,
					 loff_t pos_out, size_t len, unsigned int flags)
{
	return do_splice_direct(file_in, &pos_in, file_out, &pos_out, len > MAX_RW_COUNT ? MAX_RW_COUNT : len);
}

/* The files may be copied between, the count cut to the input's end and the output's limits */
static __always_inline int generic_copy_file_checks(struct file *file_in, loff_t pos_in, struct file *file_out,
						    loff_t pos_out, size_t *req_count, unsigned int flags)
{
	struct inode *inode_in = file_in->f_inode;
	struct inode *inode_out = file_out->f_inode;
	loff_t count = *req_count, size_in;
	int ret;

	ret = generic_file_rw_checks(file_in, file_out);
	if (ret)
		return ret;
	if (inode_in->i_sb != inode_out->i_sb)	/* (no file system here has ->copy_file_range) */
		return -EXDEV;
	/* Ensure offsets don't wrap. */
	if (pos_in + count < pos_in || pos_out + count < pos_out)
		return -EOVERFLOW;
	/* Shorten the copy to EOF */
	size_in = inode_in->i_size;
	if (pos_in >= size_in)
		count = 0;
	else
		count = min(count, size_in - pos_in);
	ret = generic_write_check_limits(file_out, pos_out, &count);
	if (ret)
		return ret;
	/* Don't allow overlapped copying within the same file. */
	if (inode_in == inode_out && pos_out + count > pos_in && pos_out < pos_in + count)
		return -EINVAL;
	*req_count = count;
	return 0;
}

noinline ssize_t vfs_copy_file_range(struct file *file_in, loff_t pos_in, struct file *file_out, loff_t pos_out,
				     size_t len, unsigned int flags)
{
	ssize_t ret;

	if (flags)
		return -EINVAL;
	ret = generic_copy_file_checks(file_in, pos_in, file_out, pos_out, &len, flags);
	if (unlikely(ret))
		return ret;
	ret = rw_verify_area(READ, file_in, &pos_in, len);
	if (unlikely(ret))
		return ret;
	ret = rw_verify_area(WRITE, file_out, &pos_out, len);
	if (unlikely(ret))
		return ret;
	if (len == 0)
		return 0;
	ret = generic_copy_file_range(file_in, pos_in, file_out, pos_out, len, flags);
	if (ret > 0) {
		fsnotify_access(file_in);
		add_rchar(current, ret);
		fsnotify_modify(file_out);
		add_wchar(current, ret);
	}
	inc_syscr(current);
	inc_syscw(current);
	return ret;
}

SYSCALL_DEFINE6(copy_file_range, int, fd_in, loff_t *, off_in, int, fd_out, loff_t *, off_out, size_t, len,
		unsigned int, flags)
{
	struct fd f_in, f_out;
	loff_t pos_in, pos_out;
	ssize_t ret = -EBADF;

	f_in = fdget(fd_in);
	if (!f_in.file)
		goto out2;
	f_out = fdget(fd_out);
	if (!f_out.file)
		goto out1;
	ret = -EFAULT;
	if (off_in) {
		if (copy_from_user(&pos_in, off_in, sizeof(loff_t)))
			goto out;
	} else {
		pos_in = f_in.file->f_pos;
	}
	if (off_out) {
		if (copy_from_user(&pos_out, off_out, sizeof(loff_t)))
			goto out;
	} else {
		pos_out = f_out.file->f_pos;
	}
	ret = -EINVAL;
	if (flags != 0)
		goto out;
	ret = vfs_copy_file_range(f_in.file, pos_in, f_out.file, pos_out, len, flags);
	if (ret > 0) {
		pos_in += ret;
		pos_out += ret;
		if (off_in) {
			if (copy_to_user(off_in, &pos_in, sizeof(loff_t)))
				ret = -EFAULT;
		} else {
			f_in.file->f_pos = pos_in;
		}
		if (off_out) {
			if (copy_to_user(off_out, &pos_out, sizeof(loff_t)))
				ret = -EFAULT;
		} else {
			f_out.file->f_pos = pos_out;
		}
	}
out:
	fdput(f_out);
out1:
	fdput(f_in);
out2:
	return ret;
}
