/* The standard streams of a program the host started (`tracefs-sim exec`): its stdout and its
 * stderr are each a file whose writes go to the host (host_write) with the program's id and which
 * of the caller's two it is; its stdin, when the caller gave it, a file whose reads take what the
 * host sends (HOST_REQ_STDIN requests, kthreads.c), asking for more (PORT_STDIN) when a reader
 * finds nothing left. */
#include "../include/fs.h"
#include "../include/wait.h"
#include "../include/poll.h"

/* private_data: the program's host id, shifted, and the fd (1 or 2) in the low bits */
#define HOSTPIPE_ID(f)	((u64)(f)->private_data >> 2)
#define HOSTPIPE_FD(f)	((int)((u64)(f)->private_data & 3))

/* ->write_iter, so that the kernel's own writes reach it too (kernel_write: kthreadd's message
 * when a program cannot be exec'd), not only a program's write(2)/writev(2). */
static ssize_t hostpipe_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	char tmp[256];
	size_t done = 0;

	while (iov_iter_count(from)) {
		size_t want = min(iov_iter_count(from), sizeof(tmp)), n = copy_from_iter(tmp, want, from);

		if (n)
			host_write(HOSTPIPE_ID(iocb->ki_filp), HOSTPIPE_FD(iocb->ki_filp), tmp, n);
		done += n;
		if (n < want)
			return done ? (ssize_t)done : -EFAULT;
	}
	return done;
}

static const struct file_operations hostpipe_fops = {
	.write_iter = hostpipe_write_iter,
	.llseek = no_llseek,
};

struct file *hostpipe_open(u64 host_id, int fd)
{
	struct file *f = anon_inode_getfile("[hostpipe]", &hostpipe_fops, (void *)(host_id << 2 | (fd & 3)),
					    O_WRONLY);

	if (!IS_ERR(f))
		stream_open(f->f_inode, f);
	return f;
}

/* ---- stdin ---- */

/* What the host sent that no one has read yet; the host sends only when asked, at most a
 * request's worth, so it always fits. */
struct hostpipe_in {
	struct list_head node;		/* in hostpipe_inputs */
	u64 id;
	wait_queue_head_t wait;
	u32 len, pos;			/* data[pos..len) is unread */
	bool eof;			/* the host said there is no more */
	bool asked;			/* the host was asked for more and has not answered */
	char data[HOST_REQ_ARGV];
};

static LIST_HEAD(hostpipe_inputs);
static spinlock_t hostpipe_lock = __SPIN_LOCK_UNLOCKED;

static void host_ask_input(u64 id)
{
	unsigned long flags = arch_local_irq_save();	/* db_arg is per-CPU */

	this_cpu()->h.db_arg[0] = id;
	host_doorbell(PORT_STDIN, 0);
	arch_local_irq_restore(flags);
}

/* Under hostpipe_lock: something to return (data or the end), asking the host once when not. */
static bool hostpipe_readable(struct hostpipe_in *in)
{
	if (in->pos < in->len || in->eof)
		return true;
	if (!in->asked) {
		in->asked = true;
		host_ask_input(in->id);
	}
	return false;
}

static ssize_t hostpipe_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct hostpipe_in *in = iocb->ki_filp->private_data;
	unsigned long flags;
	size_t n;

	if (!iov_iter_count(to))
		return 0;
	for (;;) {
		bool ready;

		spin_lock_irqsave(&hostpipe_lock, flags);
		ready = hostpipe_readable(in);
		spin_unlock_irqrestore(&hostpipe_lock, flags);
		if (ready)
			break;
		if (iocb->ki_filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(in->wait, READ_ONCE(in->pos) < READ_ONCE(in->len) || READ_ONCE(in->eof)))
			return -ERESTARTSYS;
	}
	spin_lock_irqsave(&hostpipe_lock, flags);
	n = min(iov_iter_count(to), (size_t)(in->len - in->pos));
	spin_unlock_irqrestore(&hostpipe_lock, flags);
	/* one reader at a time takes from in->pos (a task's fd 0: its threads and children share it
	 * as Linux's pipe readers share one under the pipe's mutex) */
	n = copy_to_iter(in->data + in->pos, n, to);
	spin_lock_irqsave(&hostpipe_lock, flags);
	in->pos += n;
	spin_unlock_irqrestore(&hostpipe_lock, flags);
	return n ? (ssize_t)n : (in->eof ? 0 : -EFAULT);
}

/* Readable when data is there, hung up when the host said there is no more (a pipe whose
 * writers are gone); asking the host for more, once, when neither, as a reader would. */
static __poll_t hostpipe_in_poll(struct file *f, poll_table *wait)
{
	struct hostpipe_in *in = f->private_data;
	unsigned long flags;
	__poll_t mask = 0;

	poll_wait(f, &in->wait, wait);
	spin_lock_irqsave(&hostpipe_lock, flags);
	if (hostpipe_readable(in)) {
		if (in->pos < in->len)
			mask |= EPOLLIN | EPOLLRDNORM;
		if (in->eof)
			mask |= EPOLLHUP;
	}
	spin_unlock_irqrestore(&hostpipe_lock, flags);
	return mask;
}

static int hostpipe_in_release(struct inode *inode, struct file *f)
{
	struct hostpipe_in *in = f->private_data;
	unsigned long flags;

	spin_lock_irqsave(&hostpipe_lock, flags);
	list_del_init(&in->node);
	spin_unlock_irqrestore(&hostpipe_lock, flags);
	kfree(in);
	return 0;
}

static const struct file_operations hostpipe_in_fops = {
	.read_iter = hostpipe_read_iter,
	.poll = hostpipe_in_poll,
	.release = hostpipe_in_release,
	.llseek = no_llseek,
};

/* The stdin of the host's program `host_id`, read-only. */
struct file *hostpipe_open_input(u64 host_id)
{
	struct hostpipe_in *in = kzalloc(sizeof(*in), GFP_KERNEL);
	unsigned long flags;
	struct file *f;

	if (!in)
		return ERR_PTR(-ENOMEM);
	in->id = host_id;
	init_waitqueue_head(&in->wait);
	f = anon_inode_getfile("[hostpipe]", &hostpipe_in_fops, in, O_RDONLY);
	if (IS_ERR(f)) {
		kfree(in);
		return f;
	}
	stream_open(f->f_inode, f);
	spin_lock_irqsave(&hostpipe_lock, flags);
	list_add(&in->node, &hostpipe_inputs);
	spin_unlock_irqrestore(&hostpipe_lock, flags);
	return f;
}

/* kthreadd, for a HOST_REQ_STDIN request: what program `host_id` reads next (len 0: its end).
 * A program whose stdin is gone (closed by everyone) drops it. */
void hostpipe_input(u64 host_id, const char *data, u32 len)
{
	struct hostpipe_in *in;
	unsigned long flags;

	spin_lock_irqsave(&hostpipe_lock, flags);
	list_for_each_entry(in, &hostpipe_inputs, node) {
		if (in->id != host_id)
			continue;
		in->asked = false;
		if (!len) {
			in->eof = true;
		} else if (in->pos == in->len) {	/* (always: it is sent when all was read) */
			len = min(len, (u32)sizeof(in->data));
			memcpy(in->data, data, len);
			in->pos = 0;
			in->len = len;
		}
		wake_up_interruptible(&in->wait);
		break;
	}
	spin_unlock_irqrestore(&hostpipe_lock, flags);
}
