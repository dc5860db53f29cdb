/*
 * splice, tee, vmsplice (Linux's fs/splice.c): data moved between a pipe and a file, or
 * between two pipes, through the pipe's buffers.
 *
 *  - file -> pipe: splice_file_to_pipe -> do_splice_to -> the file's splice_read
 *    (generic_file_splice_read: its read_iter into new pages that become the pipe's buffers);
 *  - pipe -> file: do_splice_from -> the file's splice_write (iter_file_splice_write: each
 *    buffer written at the file's position, consumed as far as it was written);
 *  - pipe -> pipe: whole buffers move, a part of one is shared (a page reference, as tee's);
 *  - tee: the input pipe's buffers shared with the output pipe, nothing consumed;
 *  - vmsplice: user memory into a pipe (copied here: 6.1 maps the user's pages), or a pipe's
 *    buffers into user memory (pipe_to_user).
 * A pipe that cannot go on waits as its reads and writes do (pipe_wait_readable/writable),
 * unless SPLICE_F_NONBLOCK or the pipe file's O_NONBLOCK: EAGAIN.
 */
#include "../include/fs.h"
#include "../include/mm.h"
#include "../include/poll.h"
#include "../include/signal.h"
#include "../include/syscalls.h"

#define SPLICE_F_MOVE		0x01	/* (a hint: pages are copied or shared here) */
#define SPLICE_F_NONBLOCK	0x02
#define SPLICE_F_MORE		0x04
#define SPLICE_F_GIFT		0x08
#define SPLICE_F_ALL		(SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE | SPLICE_F_GIFT)

/* What a splice out of a pipe is at: 6.1's struct splice_desc */
struct splice_desc {
	size_t total_len;	/* left to do */
	unsigned int flags;
	loff_t pos;		/* the file's position (pipe -> file) */
	size_t num_spliced;	/* done */
	bool need_wakeup;	/* a buffer was freed: wake the writers before waiting */
	struct iov_iter *iter;	/* vmsplice's user memory */
};

static __always_inline void wakeup_pipe_readers(struct pipe_inode_info *pipe)
{
	wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);
}

static __always_inline void wakeup_pipe_writers(struct pipe_inode_info *pipe)
{
	wake_up_interruptible_sync_poll(&pipe->wr_wait, EPOLLOUT | EPOLLWRNORM);
}

/* Under the pipe's lock: until it has a free buffer; -EPIPE (and SIGPIPE) with no reader */
static noinline int wait_for_space(struct pipe_inode_info *pipe, unsigned int flags)
{
	for (;;) {
		if (!pipe->readers) {
			send_sig(SIGPIPE, current, 0);
			return -EPIPE;
		}
		if (!pipe_full(pipe->head, pipe->tail, pipe->max_usage))
			return 0;
		if (flags & SPLICE_F_NONBLOCK)
			return -EAGAIN;
		if (signal_pending(current) || pipe_wait_writable(pipe) < 0)
			return -ERESTARTSYS;
	}
}

/* A page of data as the pipe's next buffer (the caller made sure of a free one) */
static __always_inline void pipe_add_page(struct pipe_inode_info *pipe, void *page, size_t len)
{
	struct pipe_buffer *buf = &pipe->bufs[pipe->head & (pipe->ring_size - 1)];

	*buf = (struct pipe_buffer){ .page = page, .len = len };
	pipe->head++;
}

/* The pipe's free buffers filled from an iterator's source: by `from` (user memory: vmsplice)
 * or by the file's read_iter (in: splice_read).  The bytes, or -errno if none. */
static notrace ssize_t fill_pipe_pages(struct pipe_inode_info *pipe, size_t len, struct iov_iter *from,
				       struct file *in, loff_t *ppos)
{
	unsigned int slots = pipe->max_usage - pipe_occupancy(pipe->head, pipe->tail), n, i;
	struct kvec vec[PIPE_DEF_BUFFERS];
	struct iov_iter to;
	ssize_t ret = 0;

	size_t total = 0;

	for (n = 0; n < slots && n < PIPE_DEF_BUFFERS && len; n++) {
		vec[n].iov_base = alloc_page_zeroed();
		if (!vec[n].iov_base)
			break;
		vec[n].iov_len = min(len, (size_t)PAGE_SIZE);
		len -= vec[n].iov_len;
		total += vec[n].iov_len;
	}
	if (!n)
		return -ENOMEM;
	if (from) {
		for (i = 0; i < n; i++) {
			size_t got = copy_from_iter(vec[i].iov_base, vec[i].iov_len, from);

			ret += got;
			if (got < vec[i].iov_len)
				break;
		}
		if (!ret)
			ret = -EFAULT;
	} else {
		struct kiocb kiocb;

		iov_iter_kvec(&to, READ, vec, n, total);
		init_sync_kiocb(&kiocb, in);
		kiocb.ki_pos = *ppos;
		ret = in->f_op->read_iter(&kiocb, &to);	/* call_read_iter() */
		if (ret > 0)
			*ppos = kiocb.ki_pos;
	}
	for (i = 0; i < n; i++) {	/* what was filled becomes the pipe's, the rest goes */
		size_t used = ret > 0 ? min((size_t)ret - min((size_t)ret, (size_t)i * PAGE_SIZE), vec[i].iov_len) : 0;

		if (used)
			pipe_add_page(pipe, vec[i].iov_base, used);
		else
			free_page(vec[i].iov_base);
	}
	return ret;
}

/* A file's splice_read: its read_iter into new pages, the pipe's buffers from then on */
noinline ssize_t generic_file_splice_read(struct file *in, loff_t *ppos, struct pipe_inode_info *pipe, size_t len,
					  unsigned int flags)
{
	return fill_pipe_pages(pipe, len, NULL, in, ppos);
}

noinline long do_splice_to(struct file *in, loff_t *ppos, struct pipe_inode_info *pipe, size_t len,
			   unsigned int flags)
{
	unsigned int p_space;
	int ret;

	if (!(in->f_mode & FMODE_READ))
		return -EBADF;
	/* no more than the pipe has room for */
	p_space = pipe->max_usage - pipe_occupancy(pipe->head, pipe->tail);
	len = min(len, (size_t)p_space << PAGE_SHIFT);
	ret = rw_verify_area(READ, in, ppos, len);
	if (ret < 0)
		return ret;
	if (len > MAX_RW_COUNT)
		len = MAX_RW_COUNT;
	if (!in->f_op->splice_read)
		return -EINVAL;	/* warn_unsupported() */
	return in->f_op->splice_read(in, ppos, pipe, len, flags);
}

noinline long splice_file_to_pipe(struct file *in, struct pipe_inode_info *opipe, loff_t *offset, size_t len,
				  unsigned int flags)
{
	long ret;

	pipe_lock(opipe);
	ret = wait_for_space(opipe, flags);
	if (!ret)
		ret = do_splice_to(in, offset, opipe, len, flags);
	pipe_unlock(opipe);
	if (ret > 0)
		wakeup_pipe_readers(opipe);
	return ret;
}

/* ---- out of a pipe ---- */
/* Under the pipe's lock: 1 when it has a buffer, 0 at its end (no writer) or once something
 * was spliced, -EAGAIN or -ERESTARTSYS */
noinline int splice_from_pipe_next(struct pipe_inode_info *pipe, struct splice_desc *sd)
{
	if (signal_pending(current))	/* killable while there are always buffers */
		return -ERESTARTSYS;
	while (pipe_empty(pipe->head, pipe->tail)) {
		if (!pipe->writers)
			return 0;
		if (sd->num_spliced)
			return 0;
		if (sd->flags & SPLICE_F_NONBLOCK)
			return -EAGAIN;
		if (signal_pending(current))
			return -ERESTARTSYS;
		if (sd->need_wakeup) {
			wakeup_pipe_writers(pipe);
			sd->need_wakeup = false;
		}
		if (pipe_wait_readable(pipe) < 0)
			return -ERESTARTSYS;
	}
	return 1;
}

/* The oldest buffer had `used` bytes taken: freed once empty */
static __always_inline void pipe_consume(struct pipe_inode_info *pipe, struct splice_desc *sd, size_t used)
{
	struct pipe_buffer *buf = &pipe->bufs[pipe->tail & (pipe->ring_size - 1)];

	buf->offset += used;
	buf->len -= used;
	sd->num_spliced += used;
	sd->total_len -= used;
	if (!buf->len) {
		anon_pipe_buf_release(pipe, buf);
		pipe->tail++;
		sd->need_wakeup = true;
	}
}

static __always_inline void splice_from_pipe_end(struct pipe_inode_info *pipe, struct splice_desc *sd)
{
	if (sd->need_wakeup)
		wakeup_pipe_writers(pipe);
}

/* A file's splice_write: each buffer written at *ppos, as far as the file took it */
noinline ssize_t iter_file_splice_write(struct pipe_inode_info *pipe, struct file *out, loff_t *ppos, size_t len,
					unsigned int flags)
{
	struct splice_desc sd = { .total_len = len, .flags = flags, .pos = *ppos };
	ssize_t ret = 0;

	pipe_lock(pipe);
	while (sd.total_len) {
		struct pipe_buffer *buf;

		ret = splice_from_pipe_next(pipe, &sd);
		if (ret <= 0)
			break;
		buf = &pipe->bufs[pipe->tail & (pipe->ring_size - 1)];
		ret = kernel_write(out, (char *)buf->page + buf->offset, min(sd.total_len, (size_t)buf->len), &sd.pos);
		if (ret <= 0)
			break;
		*ppos = sd.pos;
		pipe_consume(pipe, &sd, ret);
	}
	splice_from_pipe_end(pipe, &sd);
	pipe_unlock(pipe);
	return sd.num_spliced ? (ssize_t)sd.num_spliced : ret;
}

static __always_inline long do_splice_from(struct pipe_inode_info *pipe, struct file *out, loff_t *ppos,
					   size_t len, unsigned int flags)
{
	if (!out->f_op->splice_write)
		return -EINVAL;	/* warn_unsupported() */
	return out->f_op->splice_write(pipe, out, ppos, len, flags);
}

/* vmsplice's actor: the buffer's bytes into the user's memory */
static noinline int pipe_to_user(struct pipe_inode_info *pipe, struct pipe_buffer *buf, struct splice_desc *sd)
{
	size_t n = copy_to_iter((char *)buf->page + buf->offset, min(sd->total_len, (size_t)buf->len), sd->iter);

	return n ? (int)n : -EFAULT;
}

/* The pipe's buffers to the actor until total_len is done or the pipe ends (the caller holds
 * its lock) */
noinline ssize_t __splice_from_pipe(struct pipe_inode_info *pipe, struct splice_desc *sd,
				    int (*actor)(struct pipe_inode_info *, struct pipe_buffer *, struct splice_desc *))
{
	int ret;

	do {
		ret = splice_from_pipe_next(pipe, sd);
		while (ret > 0 && sd->total_len && !pipe_empty(pipe->head, pipe->tail)) {	/* splice_from_pipe_feed() */
			ret = actor(pipe, &pipe->bufs[pipe->tail & (pipe->ring_size - 1)], sd);
			if (ret > 0)
				pipe_consume(pipe, sd, ret);
		}
	} while (ret > 0 && sd->total_len);
	splice_from_pipe_end(pipe, sd);
	return sd->num_spliced ? (ssize_t)sd->num_spliced : ret;
}

/* ---- between two pipes ---- */
/* Under its lock: until the input pipe has a buffer (0), or has no writer left (0 too) */
static __always_inline int ipipe_prep(struct pipe_inode_info *pipe, unsigned int flags)
{
	int ret = 0;

	if (!pipe_empty(pipe->head, pipe->tail))	/* (without the lock in 6.1: a hint) */
		return 0;
	pipe_lock(pipe);
	while (pipe_empty(pipe->head, pipe->tail)) {
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (!pipe->writers)
			break;
		if (flags & SPLICE_F_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		if (pipe_wait_readable(pipe) < 0) {
			ret = -ERESTARTSYS;
			break;
		}
	}
	pipe_unlock(pipe);
	return ret;
}

/* ... until the output pipe has room (0); -EPIPE with no reader */
static __always_inline int opipe_prep(struct pipe_inode_info *pipe, unsigned int flags)
{
	int ret = 0;

	if (!pipe_full(pipe->head, pipe->tail, pipe->max_usage))
		return 0;
	pipe_lock(pipe);
	while (pipe_full(pipe->head, pipe->tail, pipe->max_usage)) {
		if (!pipe->readers) {
			send_sig(SIGPIPE, current, 0);
			ret = -EPIPE;
			break;
		}
		if (flags & SPLICE_F_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		if (signal_pending(current) || pipe_wait_writable(pipe) < 0) {
			ret = -ERESTARTSYS;
			break;
		}
	}
	pipe_unlock(pipe);
	return ret;
}

/* Buffers from ipipe to opipe, up to len bytes: moved whole, or (move false: tee, or a part
 * of one) shared, the copy never merged into by a write */
static __always_inline long pipe_to_pipe(struct pipe_inode_info *ipipe, struct pipe_inode_info *opipe, size_t len,
					 bool move)
{
	unsigned int i_head = ipipe->head, i_tail = ipipe->tail, i_mask = ipipe->ring_size - 1;
	unsigned int o_mask = opipe->ring_size - 1;
	long ret = 0;

	while (len && !pipe_empty(i_head, i_tail) && !pipe_full(opipe->head, opipe->tail, opipe->max_usage)) {
		struct pipe_buffer *ibuf = &ipipe->bufs[i_tail & i_mask];
		struct pipe_buffer *obuf = &opipe->bufs[opipe->head & o_mask];

		if (move && len >= ibuf->len) {	/* the whole buffer moves */
			*obuf = *ibuf;
			ibuf->page = NULL;
			ipipe->tail = ++i_tail;
		} else {
			generic_pipe_buf_get(ipipe, ibuf);
			*obuf = *ibuf;
			obuf->flags &= ~PIPE_BUF_FLAG_CAN_MERGE;
			if (obuf->len > len)
				obuf->len = len;
			if (move) {
				ibuf->offset += obuf->len;
				ibuf->len -= obuf->len;
			} else {
				i_tail++;
			}
		}
		opipe->head++;
		ret += obuf->len;
		len -= obuf->len;
	}
	return ret;
}

/* splice_pipe_to_pipe(): waits as ipipe_prep()/opipe_prep() do, both locked while it moves */
static __always_inline long splice_pipe_to_pipe(struct pipe_inode_info *ipipe, struct pipe_inode_info *opipe,
						size_t len, unsigned int flags)
{
	unsigned int i_tail;
	long ret;

	for (;;) {
		ret = ipipe_prep(ipipe, flags);
		if (!ret)
			ret = opipe_prep(opipe, flags);
		if (ret)
			return ret;
		pipe_double_lock(ipipe, opipe);
		if (!opipe->readers) {
			send_sig(SIGPIPE, current, 0);
			ret = -EPIPE;
		} else if (!pipe_empty(ipipe->head, ipipe->tail) &&
			   !pipe_full(opipe->head, opipe->tail, opipe->max_usage)) {
			i_tail = ipipe->tail;
			ret = pipe_to_pipe(ipipe, opipe, len, true);
			if (ipipe->tail != i_tail)
				wakeup_pipe_writers(ipipe);
		} else if (pipe_empty(ipipe->head, ipipe->tail) && !ipipe->writers) {
			ret = 0;	/* its end */
		} else {
			pipe_unlock(ipipe);
			pipe_unlock(opipe);
			continue;	/* taken or filled meanwhile: wait again */
		}
		pipe_unlock(ipipe);
		pipe_unlock(opipe);
		if (ret > 0)
			wakeup_pipe_readers(opipe);
		return ret;
	}
}

/* tee's link_pipe(): the input's buffers shared, none consumed */
static __always_inline long link_pipe(struct pipe_inode_info *ipipe, struct pipe_inode_info *opipe, size_t len)
{
	long ret;

	pipe_double_lock(ipipe, opipe);
	if (!opipe->readers) {
		send_sig(SIGPIPE, current, 0);
		ret = -EPIPE;
	} else {
		ret = pipe_to_pipe(ipipe, opipe, len, false);
	}
	pipe_unlock(ipipe);
	pipe_unlock(opipe);
	if (ret > 0)
		wakeup_pipe_readers(opipe);
	return ret;
}

noinline long do_tee(struct file *in, struct file *out, size_t len, unsigned int flags)
{
	struct pipe_inode_info *ipipe = get_pipe_info(in, true);
	struct pipe_inode_info *opipe = get_pipe_info(out, true);
	long ret = -EINVAL;

	if (!(in->f_mode & FMODE_READ) || !(out->f_mode & FMODE_WRITE))
		return -EBADF;
	/* duplicating a pipe into itself would loop */
	if (ipipe && opipe && ipipe != opipe) {
		if ((in->f_flags | out->f_flags) & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		ret = ipipe_prep(ipipe, flags);
		if (!ret) {
			ret = opipe_prep(opipe, flags);
			if (!ret)
				ret = link_pipe(ipipe, opipe, len);
		}
	}
	return ret;
}

/* Which side is a pipe decides: a file into a pipe, a pipe into a file, or pipe to pipe */
noinline long do_splice(struct file *in, loff_t *off_in, struct file *out, loff_t *off_out, size_t len,
			unsigned int flags)
{
	struct pipe_inode_info *ipipe, *opipe;
	loff_t offset;
	long ret;

	if (!(in->f_mode & FMODE_READ) || !(out->f_mode & FMODE_WRITE))
		return -EBADF;
	ipipe = get_pipe_info(in, true);
	opipe = get_pipe_info(out, true);
	if (ipipe && opipe) {
		if (off_in || off_out)
			return -ESPIPE;
		if (ipipe == opipe)	/* splicing to self would be fun, but... */
			return -EINVAL;
		if ((in->f_flags | out->f_flags) & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		return splice_pipe_to_pipe(ipipe, opipe, len, flags);
	}
	if (ipipe) {
		if (off_in)
			return -ESPIPE;
		if (off_out) {
			if (!(out->f_mode & FMODE_PWRITE))
				return -EINVAL;
			offset = *off_out;
		} else {
			offset = out->f_pos;
		}
		if (out->f_flags & O_APPEND)
			return -EINVAL;
		ret = rw_verify_area(WRITE, out, &offset, len);
		if (ret < 0)
			return ret;
		if (in->f_flags & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		ret = do_splice_from(ipipe, out, &offset, len, flags);
		if (!off_out)
			out->f_pos = offset;
		else
			*off_out = offset;
		return ret;
	}
	if (opipe) {
		if (off_out)
			return -ESPIPE;
		if (off_in) {
			if (!(in->f_mode & FMODE_PREAD))
				return -EINVAL;
			offset = *off_in;
		} else {
			offset = in->f_pos;
		}
		if (out->f_flags & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		ret = splice_file_to_pipe(in, opipe, &offset, len, flags);
		if (!off_in)
			in->f_pos = offset;
		else
			*off_in = offset;
		return ret;
	}
	return -EINVAL;
}

/* The user's offsets in and out (ESPIPE for a pipe's) */
static noinline long __do_splice(struct file *in, loff_t *off_in, struct file *out, loff_t *off_out, size_t len,
				 unsigned int flags)
{
	struct pipe_inode_info *ipipe = get_pipe_info(in, true), *opipe = get_pipe_info(out, true);
	loff_t offset_in, offset_out, *__off_in = NULL, *__off_out = NULL;
	long ret;

	if ((ipipe && off_in) || (opipe && off_out))
		return -ESPIPE;
	if (off_out) {
		if (copy_from_user(&offset_out, off_out, sizeof(loff_t)))
			return -EFAULT;
		__off_out = &offset_out;
	}
	if (off_in) {
		if (copy_from_user(&offset_in, off_in, sizeof(loff_t)))
			return -EFAULT;
		__off_in = &offset_in;
	}
	ret = do_splice(in, __off_in, out, __off_out, len, flags);
	if (ret < 0)
		return ret;
	if (__off_out && copy_to_user(off_out, __off_out, sizeof(loff_t)))
		return -EFAULT;
	if (__off_in && copy_to_user(off_in, __off_in, sizeof(loff_t)))
		return -EFAULT;
	return ret;
}

SYSCALL_DEFINE6(splice, int, fd_in, loff_t *, off_in, int, fd_out, loff_t *, off_out, size_t, len,
		unsigned int, flags)
{
	struct file *in, *out;
	long error = -EBADF;

	if (!len)
		return 0;
	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	in = fget(fd_in);
	if (in) {
		out = fget(fd_out);
		if (out) {
			error = __do_splice(in, off_in, out, off_out, len, flags);
			fput(out);
		}
		fput(in);
	}
	return error;
}

SYSCALL_DEFINE4(tee, int, fdin, int, fdout, size_t, len, unsigned int, flags)
{
	struct file *in, *out;
	long error = -EBADF;

	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	if (!len)
		return 0;
	in = fget(fdin);
	if (in) {
		out = fget(fdout);
		if (out) {
			error = do_tee(in, out, len, flags);
			fput(out);
		}
		fput(in);
	}
	return error;
}

/* vmsplice into a pipe: as much of the user's memory as its free buffers take, once one is free */
static __always_inline long vmsplice_to_pipe(struct file *file, struct iov_iter *iter, unsigned int flags)
{
	struct pipe_inode_info *pipe = get_pipe_info(file, true);
	long ret;

	if (!pipe)
		return -EBADF;
	pipe_lock(pipe);	/* (the file's O_NONBLOCK is not looked at: SPLICE_F_NONBLOCK is) */
	ret = wait_for_space(pipe, flags);
	if (!ret)	/* iter_to_pipe() */
		ret = fill_pipe_pages(pipe, iov_iter_count(iter), iter, NULL, NULL);
	pipe_unlock(pipe);
	if (ret > 0)
		wakeup_pipe_readers(pipe);
	return ret;
}

/* vmsplice out of a pipe: its buffers into the user's memory (pipe_to_user) */
static __always_inline long vmsplice_to_user(struct file *file, struct iov_iter *iter, unsigned int flags)
{
	struct pipe_inode_info *pipe = get_pipe_info(file, true);
	struct splice_desc sd = { .total_len = iov_iter_count(iter), .flags = flags, .iter = iter };
	long ret;

	if (!pipe)
		return -EBADF;
	pipe_lock(pipe);
	ret = __splice_from_pipe(pipe, &sd, pipe_to_user);
	pipe_unlock(pipe);
	return ret;
}

SYSCALL_DEFINE4(vmsplice, int, fd, const struct iovec *, uiov, unsigned long, nr_segs, unsigned int, flags)
{
	struct iovec iovstack[UIO_FASTIOV], *iov = iovstack;
	struct iov_iter iter;
	struct file *file;
	long error;
	int type;

	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	file = fget(fd);
	if (!file)
		return -EBADF;
	/* vmsplice_type(): into the pipe through its write end, out of it through its read end */
	if (file->f_mode & FMODE_WRITE) {
		type = WRITE;
	} else if (file->f_mode & FMODE_READ) {
		type = READ;
	} else {
		error = -EBADF;
		goto out;
	}
	error = __import_iovec(type, uiov, nr_segs, UIO_FASTIOV, &iov, &iter);
	if (error < 0)
		goto out;
	if (!iov_iter_count(&iter))
		error = 0;
	else if (type == WRITE)
		error = vmsplice_to_pipe(file, &iter, flags);
	else
		error = vmsplice_to_user(file, &iter, flags);
	kfree(iov);
out:
	fput(file);
	return error;
}
