/*
 * Pipes and FIFOs (Linux's fs/pipe.c): a ring of PIPE_DEF_BUFFERS page buffers; a reader
 * sleeps on rd_wait while the ring is empty and writers remain, a writer on wr_wait while it
 * is full; each side wakes the other.  pipe2() makes an inode on the internal pipefs mount and
 * two files on it; a FIFO (mknod S_IFIFO) gets its pipe at the first open (fifo_open), where an
 * open for one side waits for the other (wait_for_partner) unless O_NONBLOCK.
 */
#include "../include/fs.h"
#include "../include/cred.h"
#include "../include/poll.h"
#include "../include/signal.h"

#define PIPEFS_MAGIC 0x50495045
static struct vfsmount *pipe_mnt;
const struct file_operations pipefifo_fops;


noinline struct pipe_inode_info *alloc_pipe_info(void)
{
	struct pipe_inode_info *pipe = kzalloc(sizeof(*pipe), GFP_KERNEL);

	if (!pipe)
		return NULL;
	pipe->bufs = kzalloc(PIPE_DEF_BUFFERS * sizeof(struct pipe_buffer), GFP_KERNEL);
	if (!pipe->bufs) {
		kfree(pipe);
		return NULL;
	}
	init_waitqueue_head(&pipe->rd_wait);
	init_waitqueue_head(&pipe->wr_wait);
	pipe->r_counter = pipe->w_counter = 1;
	pipe->max_usage = PIPE_DEF_BUFFERS;
	pipe->ring_size = PIPE_DEF_BUFFERS;
	mutex_init(&pipe->mutex);
	return pipe;
}

noinline void free_pipe_info(struct pipe_inode_info *pipe)
{
	unsigned int i;

	for (i = 0; i < pipe->ring_size; i++)
		if (pipe->bufs[i].page)
			__free_pages(virt_to_page(pipe->bufs[i].page), 0);
	if (pipe->tmp_page)
		__free_pages(virt_to_page(pipe->tmp_page), 0);
	kfree(pipe->bufs);
	kfree(pipe);
}

noinline void anon_pipe_buf_release(struct pipe_inode_info *pipe, struct pipe_buffer *buf)
{
	struct page *page = virt_to_page(buf->page);

	/* keep one page for the next write, as 6.1's tmp_page, unless another pipe has it too
	 * (tee) */
	if (page_count(page) == 1 && !pipe->tmp_page)
		pipe->tmp_page = buf->page;
	else
		__free_pages(page, 0);
	buf->page = NULL;
}

/* another reference to the buffer's page (tee, a part of a buffer spliced to another pipe) */
noinline bool generic_pipe_buf_get(struct pipe_inode_info *pipe, struct pipe_buffer *buf)
{
	get_page(virt_to_page(buf->page));
	return true;
}

noinline void pipe_lock(struct pipe_inode_info *pipe)
{
	mutex_lock(&pipe->mutex);
}

noinline void pipe_unlock(struct pipe_inode_info *pipe)
{
	mutex_unlock(&pipe->mutex);
}

/* both, the lower address first (splice and tee between two pipes) */
noinline void pipe_double_lock(struct pipe_inode_info *pipe1, struct pipe_inode_info *pipe2)
{
	if (pipe1 < pipe2) {
		pipe_lock(pipe1);
		pipe_lock(pipe2);
	} else {
		pipe_lock(pipe2);
		pipe_lock(pipe1);
	}
}

static notrace bool pipe_readable(const struct pipe_inode_info *pipe)
{
	return !pipe_empty(READ_ONCE(pipe->head), READ_ONCE(pipe->tail)) || !READ_ONCE(pipe->writers);
}

static notrace bool pipe_writable(const struct pipe_inode_info *pipe)
{
	return !pipe_full(READ_ONCE(pipe->head), READ_ONCE(pipe->tail), READ_ONCE(pipe->max_usage)) ||
	       !READ_ONCE(pipe->readers);
}

/* The caller holds the pipe's lock: it lets it go while it waits for data (or no writer) */
noinline int pipe_wait_readable(struct pipe_inode_info *pipe)
{
	int ret;

	pipe_unlock(pipe);
	ret = wait_event_interruptible(pipe->rd_wait, pipe_readable(pipe));
	pipe_lock(pipe);
	return ret;
}

/* ... for room (or no reader) */
noinline int pipe_wait_writable(struct pipe_inode_info *pipe)
{
	int ret;

	pipe_unlock(pipe);
	ret = wait_event_interruptible(pipe->wr_wait, pipe_writable(pipe));
	pipe_lock(pipe);
	return ret;
}

noinline ssize_t pipe_read(struct kiocb *iocb, struct iov_iter *to)
{
	size_t total_len = iov_iter_count(to);
	struct file *filp = iocb->ki_filp;
	struct pipe_inode_info *pipe = filp->private_data;
	bool was_full;
	ssize_t ret = 0;

	if (!total_len)
		return 0;
	mutex_lock(&pipe->mutex);
	was_full = pipe_full(pipe->head, pipe->tail, pipe->max_usage);
	for (;;) {
		unsigned int head = pipe->head, tail = pipe->tail, mask = pipe->ring_size - 1;

		if (!pipe_empty(head, tail)) {
			struct pipe_buffer *buf = &pipe->bufs[tail & mask];
			size_t chars = min((size_t)buf->len, total_len), written;

			written = copy_to_iter((char *)buf->page + buf->offset, chars, to);
			if (written < chars) {
				if (!ret)
					ret = -EFAULT;
				break;
			}
			ret += chars;
			buf->offset += chars;
			buf->len -= chars;
			if (!buf->len) {
				anon_pipe_buf_release(pipe, buf);
				tail++;
				pipe->tail = tail;
			}
			total_len -= chars;
			if (!total_len)
				break;	/* common path: read succeeded */
			if (!pipe_empty(head, tail))	/* More to do? */
				continue;
		}
		if (!pipe->writers)
			break;
		if (ret)
			break;
		if (filp->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		mutex_unlock(&pipe->mutex);
		/* we're going to sleep: wake any writer that waits for room first */
		if (was_full)
			wake_up_interruptible_sync_poll(&pipe->wr_wait, EPOLLOUT | EPOLLWRNORM);
		kill_fasync(&pipe->fasync_writers, SIGIO, POLL_OUT);
		if (wait_event_interruptible(pipe->rd_wait, !pipe_empty(READ_ONCE(pipe->head), READ_ONCE(pipe->tail)) ||
							    !READ_ONCE(pipe->writers)) < 0)
			return -ERESTARTSYS;
		mutex_lock(&pipe->mutex);
		was_full = pipe_full(pipe->head, pipe->tail, pipe->max_usage);
	}
	mutex_unlock(&pipe->mutex);
	if (was_full)
		wake_up_interruptible_sync_poll(&pipe->wr_wait, EPOLLOUT | EPOLLWRNORM);
	kill_fasync(&pipe->fasync_writers, SIGIO, POLL_OUT);
	if (ret > 0)
		file_accessed(filp);
	return ret;
}

noinline ssize_t pipe_write(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *filp = iocb->ki_filp;
	struct pipe_inode_info *pipe = filp->private_data;
	size_t total_len = iov_iter_count(from);
	ssize_t ret = 0;
	bool was_empty = false;
	unsigned int head, mask;
	size_t chars;

	if (!total_len)
		return 0;
	mutex_lock(&pipe->mutex);
	if (!pipe->readers) {
		send_sig(SIGPIPE, current, 0);
		ret = -EPIPE;
		goto out;
	}
	/* merge into the last buffer when it has room */
	head = pipe->head;
	was_empty = pipe_empty(head, pipe->tail);
	mask = pipe->ring_size - 1;
	chars = total_len & (PAGE_SIZE - 1);
	if (chars && !was_empty) {
		struct pipe_buffer *buf = &pipe->bufs[(head - 1) & mask];
		unsigned int offset = buf->offset + buf->len;

		if ((buf->flags & PIPE_BUF_FLAG_CAN_MERGE) && offset + chars <= PAGE_SIZE) {
			size_t copied = copy_from_iter((char *)buf->page + offset, chars, from);

			if (copied < chars) {
				ret = -EFAULT;
				goto out;
			}
			buf->len += chars;
			ret = chars;
			if (!iov_iter_count(from))
				goto out;
		}
	}
	for (;;) {
		if (!pipe->readers) {
			send_sig(SIGPIPE, current, 0);
			if (!ret)
				ret = -EPIPE;
			break;
		}
		head = pipe->head;
		if (!pipe_full(head, pipe->tail, pipe->max_usage)) {
			struct pipe_buffer *buf = &pipe->bufs[head & mask];
			void *page = pipe->tmp_page;
			size_t copied;

			if (!page) {
				page = alloc_page_zeroed();
				if (!page) {
					if (!ret)
						ret = -ENOMEM;
					break;
				}
			}
			pipe->tmp_page = NULL;
			pipe->head = head + 1;
			buf->page = page;
			buf->offset = 0;
			buf->len = 0;
			buf->flags = (filp->f_flags & 040000) ? 0 : PIPE_BUF_FLAG_CAN_MERGE;	/* O_DIRECT: packets */
			copied = copy_from_iter(page, PAGE_SIZE, from);
			if (!copied && iov_iter_count(from)) {
				if (!ret)
					ret = -EFAULT;
				break;
			}
			buf->len = copied;
			ret += copied;
			if (!iov_iter_count(from))
				break;
		}
		if (!pipe_full(head + 1, pipe->tail, pipe->max_usage))
			continue;
		/* Wait for buffer space to become available. */
		if (filp->f_flags & O_NONBLOCK) {
			if (!ret)
				ret = -EAGAIN;
			break;
		}
		mutex_unlock(&pipe->mutex);
		wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);	/* readers take what is there first */
		kill_fasync(&pipe->fasync_readers, SIGIO, POLL_IN);
		if (wait_event_interruptible(pipe->wr_wait, !pipe_full(READ_ONCE(pipe->head), READ_ONCE(pipe->tail),
									pipe->max_usage) || !READ_ONCE(pipe->readers)) < 0) {
			if (!ret)
				ret = -ERESTARTSYS;
			return ret;
		}
		mutex_lock(&pipe->mutex);
		was_empty = true;
	}
out:
	mutex_unlock(&pipe->mutex);
	if (ret > 0)
		wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);
	kill_fasync(&pipe->fasync_readers, SIGIO, POLL_IN);
	if (ret > 0)
		filp->f_inode->i_mtime = filp->f_inode->i_ctime = current_time(filp->f_inode);
	return ret;
}

/* What the pipe is ready for: data to read (or no writer left: EPOLLHUP, except on a FIFO
 * opened O_NONBLOCK before any writer came), room to write (or no reader: EPOLLERR).  The
 * poller is queued first, then the state read, so a change in between wakes it. */
static noinline __poll_t pipe_poll(struct file *filp, poll_table *wait)
{
	struct pipe_inode_info *pipe = filp->private_data;
	unsigned int head, tail;
	__poll_t mask;

	if (filp->f_mode & FMODE_READ)
		poll_wait(filp, &pipe->rd_wait, wait);
	if (filp->f_mode & FMODE_WRITE)
		poll_wait(filp, &pipe->wr_wait, wait);
	head = READ_ONCE(pipe->head);
	tail = READ_ONCE(pipe->tail);
	mask = 0;
	if (filp->f_mode & FMODE_READ) {
		if (!pipe_empty(head, tail))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (!pipe->writers && filp->f_version != pipe->w_counter)
			mask |= EPOLLHUP;
	}
	if (filp->f_mode & FMODE_WRITE) {
		if (!pipe_full(head, tail, pipe->max_usage))
			mask |= EPOLLOUT | EPOLLWRNORM;
		if (!pipe->readers)
			mask |= EPOLLERR;
	}
	return mask;
}

noinline int pipe_release(struct inode *inode, struct file *file)
{
	struct pipe_inode_info *pipe = file->private_data;
	bool free_it;

	mutex_lock(&pipe->mutex);
	if (file->f_mode & FMODE_READ)
		pipe->readers--;
	if (file->f_mode & FMODE_WRITE)
		pipe->writers--;
	/* Was that the last reader or writer, but not the other side? */
	if (!pipe->readers != !pipe->writers) {
		wake_up_interruptible_all(&pipe->rd_wait);
		wake_up_interruptible_all(&pipe->wr_wait);
		kill_fasync(&pipe->fasync_readers, SIGIO, POLL_IN);
		kill_fasync(&pipe->fasync_writers, SIGIO, POLL_OUT);
	}
	free_it = !--pipe->files;
	if (free_it)
		inode->i_pipe = NULL;
	mutex_unlock(&pipe->mutex);
	if (free_it)
		free_pipe_info(pipe);
	return 0;
}

/* O_ASYNC on a pipe end: its owner signalled when there is data to read (a read end) or room
 * to write (a write end) */
noinline int pipe_fasync(int fd, struct file *filp, int on)
{
	struct pipe_inode_info *pipe = filp->private_data;
	int retval = 0;

	mutex_lock(&pipe->mutex);
	if (filp->f_mode & FMODE_READ)
		retval = fasync_helper(fd, filp, on, &pipe->fasync_readers);
	if ((filp->f_mode & FMODE_WRITE) && retval >= 0) {
		int read_ret = retval;

		retval = fasync_helper(fd, filp, on, &pipe->fasync_writers);
		if (retval < 0 && read_ret > 0)	/* undo only a reader entry this call added */
			fasync_helper(-1, filp, 0, &pipe->fasync_readers);
	}
	mutex_unlock(&pipe->mutex);
	return retval;
}

#define FIONREAD 0x541B
noinline long pipe_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct pipe_inode_info *pipe = filp->private_data;
	unsigned int count = 0, head, tail, mask;

	if (cmd != FIONREAD)
		return -515;	/* ENOIOCTLCMD */
	mutex_lock(&pipe->mutex);
	head = pipe->head;
	tail = pipe->tail;
	mask = pipe->ring_size - 1;
	while (tail != head) {
		count += pipe->bufs[tail & mask].len;
		tail++;
	}
	mutex_unlock(&pipe->mutex);
	return copy_to_user((void *)arg, &count, sizeof(count)) ? -EFAULT : 0;
}

#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032
/* a size for the ring: a power of two of pages, at least one (POSIX's minimum) */
noinline unsigned int round_pipe_size(unsigned long size)
{
	if (size > (1U << 31))
		return 0;
	/* Minimum pipe size, as required by POSIX */
	if (size < PAGE_SIZE)
		return PAGE_SIZE;
	return 1U << (64 - __builtin_clzl(size - 1));	/* roundup_pow_of_two() */
}

/* The ring reallocated with nr_slots buffers, what it holds moved to its start */
noinline int pipe_resize_ring(struct pipe_inode_info *pipe, unsigned int nr_slots)
{
	struct pipe_buffer *bufs;
	unsigned int head, tail, mask, n;
	unsigned long irq;

	bufs = kzalloc(nr_slots * sizeof(*bufs), GFP_KERNEL);
	if (unlikely(!bufs))
		return -ENOMEM;
	spin_lock_irqsave(&pipe->rd_wait.lock, irq);
	mask = pipe->ring_size - 1;
	head = pipe->head;
	tail = pipe->tail;
	n = pipe_occupancy(head, tail);
	if (nr_slots < n) {
		spin_unlock_irqrestore(&pipe->rd_wait.lock, irq);
		kfree(bufs);
		return -EBUSY;
	}
	/* The pipe array wraps around, so just start the new one at zero and adjust the indices */
	if (n > 0) {
		unsigned int h = head & mask;
		unsigned int t = tail & mask;

		if (h > t) {
			memcpy(bufs, pipe->bufs + t, n * sizeof(struct pipe_buffer));
		} else {
			unsigned int tsize = pipe->ring_size - t;

			if (h > 0)
				memcpy(bufs + tsize, pipe->bufs, h * sizeof(struct pipe_buffer));
			memcpy(bufs, pipe->bufs + t, tsize * sizeof(struct pipe_buffer));
		}
	}
	head = n;
	tail = 0;
	kfree(pipe->bufs);
	pipe->bufs = bufs;
	pipe->ring_size = nr_slots;
	if (pipe->max_usage > nr_slots)
		pipe->max_usage = nr_slots;
	pipe->tail = tail;
	pipe->head = head;
	/* (no watch queues) */
	pipe->max_usage = nr_slots;
	pipe->nr_accounted = nr_slots;
	spin_unlock_irqrestore(&pipe->rd_wait.lock, irq);
	/* This might have made more room for writers */
	wake_up_interruptible(&pipe->wr_wait);
	return 0;
}

#define PIPE_MAX_SIZE	1048576	/* /proc/sys/fs/pipe-max-size */

/* F_SETPIPE_SZ (no per-user pipe accounting here: only the size limit for the unprivileged) */
static inline long pipe_set_size(struct pipe_inode_info *pipe, unsigned long arg)
{
	unsigned int nr_slots, size;
	long ret;

	size = round_pipe_size(arg);
	nr_slots = size >> PAGE_SHIFT;
	if (!nr_slots)
		return -EINVAL;
	/* a grow past pipe-max-size needs CAP_SYS_RESOURCE; a shrink never does */
	if (nr_slots > pipe->max_usage && size > PIPE_MAX_SIZE && !capable(CAP_SYS_RESOURCE))
		return -EPERM;
	ret = pipe_resize_ring(pipe, nr_slots);
	if (ret < 0)
		return ret;
	return pipe->max_usage * PAGE_SIZE;
}

/* The pipe behind a file, NULL if it is none */
noinline struct pipe_inode_info *get_pipe_info(struct file *file, bool for_splice)
{
	struct pipe_inode_info *pipe = file->private_data;

	if (file->f_op != &pipefifo_fops || !pipe)
		return NULL;
	return pipe;
}

noinline long pipe_fcntl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pipe_inode_info *pipe;
	long ret;

	pipe = get_pipe_info(file, false);
	if (!pipe)
		return -EBADF;
	mutex_lock(&pipe->mutex);	/* __pipe_lock */
	switch (cmd) {
	case F_SETPIPE_SZ:
		ret = pipe_set_size(pipe, arg);
		break;
	case F_GETPIPE_SZ:
		ret = pipe->max_usage * PAGE_SIZE;
		break;
	default:
		ret = -EINVAL;
		break;
	}
	mutex_unlock(&pipe->mutex);
	return ret;
}

static noinline bool wait_for_partner(struct pipe_inode_info *pipe, unsigned int *cnt)
{
	unsigned int cur = *cnt;
	long ret;

	mutex_unlock(&pipe->mutex);
	ret = wait_event_interruptible(pipe->rd_wait, READ_ONCE(*cnt) != cur);
	mutex_lock(&pipe->mutex);
	return ret == 0;
}

static notrace void wake_up_partner(struct pipe_inode_info *pipe)
{
	wake_up_interruptible_all(&pipe->rd_wait);
}

static DEFINE_MUTEX(pipe_lock_fifo);	/* inode->i_lock's part in fifo_open: the pipe's making */

noinline int fifo_open(struct inode *inode, struct file *filp)
{
	struct pipe_inode_info *pipe;
	bool is_pipe = inode->i_sb->s_magic == PIPEFS_MAGIC;
	int ret;

	filp->f_version = 0;
	mutex_lock(&pipe_lock_fifo);
	if (inode->i_pipe) {
		pipe = inode->i_pipe;
		pipe->files++;
	} else {
		pipe = alloc_pipe_info();
		if (!pipe) {
			mutex_unlock(&pipe_lock_fifo);
			return -ENOMEM;
		}
		pipe->files = 1;
		inode->i_pipe = pipe;
	}
	mutex_unlock(&pipe_lock_fifo);
	filp->private_data = pipe;
	mutex_lock(&pipe->mutex);
	stream_open(inode, filp);
	switch (filp->f_mode & (FMODE_READ | FMODE_WRITE)) {
	case FMODE_READ:
		pipe->r_counter++;
		if (pipe->readers++ == 0)
			wake_up_partner(pipe);
		if (!is_pipe && !pipe->writers) {
			if ((filp->f_flags & O_NONBLOCK)) {
				/* suppress EPOLLHUP until we have seen a writer */
				filp->f_version = pipe->w_counter;
			} else if (!wait_for_partner(pipe, &pipe->w_counter)) {
				ret = -ERESTARTSYS;
				goto err_rd;
			}
		}
		break;
	case FMODE_WRITE:
		ret = -ENXIO;
		if (!is_pipe && (filp->f_flags & O_NONBLOCK) && !pipe->readers)
			goto err;
		pipe->w_counter++;
		if (!pipe->writers++)
			wake_up_partner(pipe);
		if (!is_pipe && !pipe->readers) {
			if (!wait_for_partner(pipe, &pipe->r_counter)) {
				ret = -ERESTARTSYS;
				goto err_wr;
			}
		}
		break;
	case FMODE_READ | FMODE_WRITE:
		pipe->readers++;
		pipe->writers++;
		pipe->r_counter++;
		pipe->w_counter++;
		if (pipe->readers == 1 || pipe->writers == 1)
			wake_up_partner(pipe);
		break;
	default:
		ret = -EINVAL;
		goto err;
	}
	mutex_unlock(&pipe->mutex);
	return 0;
err_rd:
	if (!--pipe->readers)
		wake_up_interruptible(&pipe->wr_wait);
	goto err;
err_wr:
	if (!--pipe->writers)
		wake_up_interruptible_all(&pipe->rd_wait);
err:
	mutex_unlock(&pipe->mutex);
	mutex_lock(&pipe_lock_fifo);
	if (!--pipe->files) {
		inode->i_pipe = NULL;
		mutex_unlock(&pipe_lock_fifo);
		free_pipe_info(pipe);
	} else {
		mutex_unlock(&pipe_lock_fifo);
	}
	return ret;
}

const struct file_operations pipefifo_fops = {
	.open = fifo_open,
	.llseek = no_llseek,
	.read_iter = pipe_read,
	.write_iter = pipe_write,
	.poll = pipe_poll,
	.unlocked_ioctl = pipe_ioctl,
	.release = pipe_release,
	.fasync = pipe_fasync,
	.fcntl = pipe_fcntl,
};

static notrace struct inode *get_pipe_inode(void)
{
	struct inode *inode = new_inode(pipe_mnt->mnt_sb);
	struct pipe_inode_info *pipe;

	if (!inode)
		return NULL;
	inode->i_ino = get_next_ino();
	pipe = alloc_pipe_info();
	if (!pipe) {
		iput(inode);
		return NULL;
	}
	inode->i_pipe = pipe;
	pipe->files = 2;
	pipe->readers = pipe->writers = 1;
	inode->i_fop = &pipefifo_fops;
	inode->i_mode = S_IFIFO | 0600;
	inode->i_uid = current_cred()->uid;
	inode->i_gid = current_cred()->uid;
	return inode;
}

noinline int create_pipe_files(struct file **res, int flags)
{
	struct inode *inode = get_pipe_inode();
	struct file *f;

	if (!inode)
		return -ENFILE;
	f = alloc_file_pseudo(inode, pipe_mnt, "", O_WRONLY | (flags & (O_NONBLOCK | O_DIRECT)), &pipefifo_fops);
	if (IS_ERR(f)) {
		free_pipe_info(inode->i_pipe);
		iput(inode);
		return PTR_ERR(f);
	}
	f->private_data = inode->i_pipe;
	res[0] = alloc_file_clone(f, O_RDONLY | (flags & O_NONBLOCK), &pipefifo_fops);
	if (IS_ERR(res[0])) {
		fput(f);
		return PTR_ERR(res[0]);
	}
	res[0]->private_data = inode->i_pipe;
	res[1] = f;
	stream_open(inode, res[0]);
	stream_open(inode, res[1]);
	return 0;
}

static notrace int __do_pipe_flags(int *fd, struct file **files, int flags)
{
	int error, fdw, fdr;

	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	error = create_pipe_files(files, flags);
	if (error)
		return error;
	error = get_unused_fd_flags(flags);
	if (error < 0)
		goto err_read_pipe;
	fdr = error;
	error = get_unused_fd_flags(flags);
	if (error < 0)
		goto err_fdr;
	fdw = error;
	fd[0] = fdr;
	fd[1] = fdw;
	return 0;
err_fdr:
	put_unused_fd(fdr);
err_read_pipe:
	fput(files[0]);
	fput(files[1]);
	return error;
}

noinline int do_pipe2(int *fildes, int flags)
{
	struct file *files[2];
	int fd[2];
	int error = __do_pipe_flags(fd, files, flags);

	if (!error) {
		if (copy_to_user(fildes, fd, sizeof(fd))) {
			fput(files[0]);
			fput(files[1]);
			put_unused_fd(fd[0]);
			put_unused_fd(fd[1]);
			error = -EFAULT;
		} else {
			fd_install(fd[0], files[0]);
			fd_install(fd[1], files[1]);
		}
	}
	return error;
}

SYSCALL_DEFINE2(pipe2, int *, fildes, int, flags)
{
	return do_pipe2(fildes, flags);
}

SYSCALL_DEFINE1(pipe, int *, fildes)
{
	return do_pipe2(fildes, 0);
}

static char *pipefs_dname(struct dentry *dentry, char *buffer, int buflen)
{
	return dynamic_dname(buffer, buflen, "pipe:[%lu]", dentry->d_inode->i_ino);
}

static const struct dentry_operations pipefs_dentry_operations = {
	.d_delete = always_delete_dentry,
	.d_dname = pipefs_dname,
};

static notrace int pipefs_fill_super(struct super_block *sb, void *data)
{
	return init_pseudo(sb, &pipefs_dentry_operations);
}

static struct file_system_type pipe_fs_type = {
	.name = "pipefs",
	.fill_super = pipefs_fill_super,
	.magic = PIPEFS_MAGIC,
};

void __init pipe_init(void)
{
	register_filesystem(&pipe_fs_type);
	pipe_mnt = kern_mount(&pipe_fs_type);
	if (IS_ERR(pipe_mnt))
		panic("pipefs: kernel mount failed");
}
