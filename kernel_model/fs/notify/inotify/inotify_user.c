/*
 * inotify (fs/notify/inotify/inotify_user.c): inotify_init1 makes a group behind an anon
 * inode fd; inotify_add_watch puts a mark on a path's inode (a watch descriptor: the group's
 * cyclic idr's next), or changes the one it has; inotify_rm_watch destroys one (IN_IGNORED
 * queued).  read() takes whole struct inotify_event records (names NUL-padded to 16 bytes;
 * EINVAL if the first does not fit), waiting for one unless O_NONBLOCK; poll is readable while
 * the queue holds one; FIONREAD its bytes.  A user may have max_user_instances groups and
 * max_user_watches marks (EMFILE, ENOSPC); a queue holds max_queued_events (then one
 * IN_Q_OVERFLOW); fdinfo lists its watches (fs/notify/fdinfo.c).  (The limits are fixed: no
 * /proc/sys/fs/inotify here.)
 */
#include "inotify.h"
#include "../../../include/syscalls.h"
#include "../../../include/fsnotify.h"
#include "../../../include/poll.h"
#include "../../../include/slab.h"
#include "../../../include/cred.h"
#include "../../../include/mm.h"
#include "../../../include/signal.h"
#include "../../../include/security.h"

#define FIONREAD		0x541B
#define INOTIFY_IOC_SETNEXTWD	0x40044900	/* _IOW('I', 0, __s32): CONFIG_CHECKPOINT_RESTORE's */
#define INT_MAX			0x7fffffff
#define INOTIFY_WATCH_COST	(sizeof(struct inotify_inode_mark) + 2 * sizeof(struct inode))

static int inotify_max_queued_events = 16384;
static int inotify_max_user_instances = 128;
static unsigned long inotify_max_user_watches;	/* 1% of RAM's worth of watches, 8192 to 1048576 */

/* ---- each user's instances and watches (6.1: the user namespace's ucounts; here 64 users
 * at once, a 65th's inotify_init EMFILE) ---- */
#define INOTIFY_USERS 64
static struct inotify_ucount {
	uid_t uid;
	int instances;
	long watches;
} inotify_ucounts[INOTIFY_USERS];
static spinlock_t inotify_ucounts_lock;

static notrace unsigned long max_user_watches(void)
{
	if (!inotify_max_user_watches) {	/* inotify_user_setup()'s */
		struct sysinfo si;
		unsigned long max;

		si_meminfo(&si);
		max = (((si.totalram - si.totalhigh) / 100) << PAGE_SHIFT) / INOTIFY_WATCH_COST;
		inotify_max_user_watches = max < 8192 ? 8192 : max > 1048576 ? 1048576 : max;
	}
	return inotify_max_user_watches;
}

/* the uid's counts (a free slot taken for a new uid), or NULL; under inotify_ucounts_lock */
static notrace struct inotify_ucount *inotify_ucount(uid_t uid)
{
	struct inotify_ucount *free = NULL;
	int i;

	for (i = 0; i < INOTIFY_USERS; i++) {
		struct inotify_ucount *u = &inotify_ucounts[i];

		if ((u->instances || u->watches) && u->uid == uid)
			return u;
		if (!free && !u->instances && !u->watches)
			free = u;
	}
	if (free)
		free->uid = uid;
	return free;
}

/* one more of the uid's instances (or watches), if under its limit */
static notrace bool inotify_inc_ucount(uid_t uid, bool watch)
{
	struct inotify_ucount *u;
	unsigned long flags;
	bool ok = false;

	spin_lock_irqsave(&inotify_ucounts_lock, flags);
	u = inotify_ucount(uid);
	if (u && watch && u->watches < max_user_watches()) {
		u->watches++;
		ok = true;
	} else if (u && !watch && u->instances < inotify_max_user_instances) {
		u->instances++;
		ok = true;
	}
	spin_unlock_irqrestore(&inotify_ucounts_lock, flags);
	return ok;
}

static notrace void inotify_dec_ucount(uid_t uid, bool watch)
{
	struct inotify_ucount *u;
	unsigned long flags;

	spin_lock_irqsave(&inotify_ucounts_lock, flags);
	u = inotify_ucount(uid);
	if (u && watch && u->watches)
		u->watches--;
	else if (u && !watch && u->instances)
		u->instances--;
	spin_unlock_irqrestore(&inotify_ucounts_lock, flags);
}

notrace void inotify_dec_watches(uid_t uid)
{
	inotify_dec_ucount(uid, true);
}

notrace void inotify_dec_instances(uid_t uid)
{
	inotify_dec_ucount(uid, false);
}

/* ---- the fd ---- */
static const struct file_operations inotify_fops;

static noinline __poll_t inotify_poll(struct file *file, poll_table *wait)
{
	struct fsnotify_group *group = file->private_data;
	__poll_t ret = 0;

	poll_wait(file, &group->notification_waitq, wait);
	if (!fsnotify_notify_queue_is_empty(group))
		ret = EPOLLIN | EPOLLRDNORM;
	return ret;
}

/* a name's bytes in the record: with its NUL, padded to a multiple of the record's size */
static inline int round_event_name_len(struct fsnotify_event *fsn_event)
{
	struct inotify_event_info *event = INOTIFY_E(fsn_event);

	if (!event->name_len)
		return 0;
	return ALIGN(event->name_len + 1, sizeof(struct inotify_event));
}

/* Under notification_lock: the first event if it fits in count bytes (NULL: none;
 * -EINVAL: it does not fit) */
static notrace struct fsnotify_event *get_one_event(struct fsnotify_group *group, size_t count)
{
	struct fsnotify_event *event;

	if (fsnotify_notify_queue_is_empty(group))
		return NULL;
	event = fsnotify_peek_first_event(group);
	if (sizeof(struct inotify_event) + round_event_name_len(event) > count)
		return ERR_PTR(-EINVAL);
	fsnotify_remove_first_event(group);
	return event;
}

/* the record: the header, the name, its NUL padding; its size */
static notrace ssize_t copy_event_to_user(struct fsnotify_group *group, struct fsnotify_event *fsn_event, char *buf)
{
	struct inotify_event_info *event = INOTIFY_E(fsn_event);
	static const char zeros[sizeof(struct inotify_event)];
	size_t pad_name_len = round_event_name_len(fsn_event);
	struct inotify_event inotify_event = {
		.wd = event->wd,
		/* (inotify_mask_to_arg: the events, IN_ISDIR and the ones inotify itself queues) */
		.mask = event->mask & (IN_ALL_EVENTS | IN_ISDIR | IN_UNMOUNT | IN_IGNORED | IN_Q_OVERFLOW),
		.cookie = event->sync_cookie,
		.len = pad_name_len,
	};
	size_t event_size = sizeof(inotify_event);
	size_t pad, done;

	if (copy_to_user(buf, &inotify_event, event_size))
		return -EFAULT;
	buf += event_size;
	if (pad_name_len) {
		if (copy_to_user(buf, event->name, event->name_len))
			return -EFAULT;
		buf += event->name_len;
		for (pad = pad_name_len - event->name_len; pad; pad -= done) {	/* clear_user */
			done = min(pad, sizeof(zeros));
			if (copy_to_user(buf, zeros, done))
				return -EFAULT;
			buf += done;
		}
		event_size += pad_name_len;
	}
	return event_size;
}

static noinline ssize_t inotify_read(struct file *file, char *buf, size_t count, loff_t *pos)
{
	struct fsnotify_group *group = file->private_data;
	struct fsnotify_event *kevent;
	char *start = buf;
	unsigned long flags;
	ssize_t ret;

	for (;;) {
		spin_lock_irqsave(&group->notification_lock, flags);
		kevent = get_one_event(group, count);
		spin_unlock_irqrestore(&group->notification_lock, flags);
		if (kevent) {
			ret = PTR_ERR(kevent);
			if (IS_ERR(kevent))
				break;
			ret = copy_event_to_user(group, kevent, buf);
			fsnotify_destroy_event(group, kevent);
			if (ret < 0)
				break;
			buf += ret;
			count -= ret;
			continue;
		}
		ret = -EAGAIN;
		if (file->f_flags & O_NONBLOCK)
			break;
		ret = -ERESTARTSYS;
		if (signal_pending(current))
			break;
		if (start != buf)
			break;
		/* (6.1: wait_woken) until an event is queued, a signal or the host's call ending */
		if (wait_event_interruptible(group->notification_waitq, !fsnotify_notify_queue_is_empty(group)))
			break;
	}
	if (start != buf && ret != -EFAULT)
		ret = buf - start;
	return ret;
}

static noinline int inotify_release(struct inode *ignored, struct file *file)
{
	fsnotify_destroy_group(file->private_data);
	return 0;
}

static noinline long inotify_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fsnotify_group *group = file->private_data;
	struct fsnotify_event *fsn_event;
	unsigned long flags;
	int send_len = 0;

	switch (cmd) {
	case FIONREAD:
		spin_lock_irqsave(&group->notification_lock, flags);
		list_for_each_entry(fsn_event, &group->notification_list, list)
			send_len += sizeof(struct inotify_event) + round_event_name_len(fsn_event);
		spin_unlock_irqrestore(&group->notification_lock, flags);
		return copy_to_user((void *)arg, &send_len, sizeof(send_len)) ? -EFAULT : 0;
	case INOTIFY_IOC_SETNEXTWD:
		if (arg < 1 || arg > INT_MAX)
			return -EINVAL;
		group->inotify_data.last_wd = (int)arg - 1;	/* idr_set_cursor */
		return 0;
	}
	return -ENOTTY;
}

/* O_ASYNC: SIGIO when an event is queued */
static noinline int fsnotify_fasync(int fd, struct file *file, int on)
{
	struct fsnotify_group *group = file->private_data;

	return fasync_helper(fd, file, on, &group->fsn_fa) >= 0 ? 0 : -EIO;
}

static const struct file_operations inotify_fops = {
	.show_fdinfo = inotify_show_fdinfo,
	.poll = inotify_poll,
	.read = inotify_read,
	.fasync = fsnotify_fasync,
	.release = inotify_release,
	.unlocked_ioctl = inotify_ioctl,
	.llseek = noop_llseek,
};

/* ---- watches: the group's marks by wd ---- */
static noinline struct inotify_inode_mark *inotify_idr_find(struct fsnotify_group *group, int wd)
{
	struct fsnotify_mark *mark;

	list_for_each_entry(mark, &group->marks_list, g_list) {
		struct inotify_inode_mark *i_mark = container_of(mark, struct inotify_inode_mark, fsn_mark);

		if (i_mark->wd == wd && wd > 0) {
			fsnotify_get_mark(mark);
			return i_mark;
		}
	}
	return NULL;
}

/* the next wd after the last handed out, skipping those in use (idr_alloc_cyclic from 1) */
static notrace int inotify_add_to_idr(struct fsnotify_group *group, struct inotify_inode_mark *i_mark)
{
	struct inotify_group_private_data *data = &group->inotify_data;
	int wd = data->last_wd, tries;
	struct inotify_inode_mark *busy;

	for (tries = 0; tries < INT_MAX; tries++) {
		wd = wd >= INT_MAX || wd < 1 ? 1 : wd + 1;
		busy = inotify_idr_find(group, wd);
		if (!busy)
			break;
		fsnotify_put_mark(&busy->fsn_mark);
	}
	data->last_wd = wd;
	i_mark->wd = wd;
	return 0;
}

noinline void inotify_remove_from_idr(struct fsnotify_group *group, struct inotify_inode_mark *i_mark)
{
	i_mark->wd = -1;
}

/* A watch goes: IN_IGNORED queued for it, its wd given back, its user's count too. */
noinline void inotify_ignored_and_remove_idr(struct fsnotify_mark *fsn_mark, struct fsnotify_group *group)
{
	struct inotify_inode_mark *i_mark = container_of(fsn_mark, struct inotify_inode_mark, fsn_mark);

	inotify_handle_inode_event(fsn_mark, FS_IN_IGNORED, NULL, NULL, NULL, 0);
	inotify_remove_from_idr(group, i_mark);
	inotify_dec_watches(group->inotify_data.uid);
}

static inline u32 inotify_arg_to_mask(struct inode *inode, u32 arg)
{
	u32 mask = FS_UNMOUNT;

	if (S_ISDIR(inode->i_mode))
		mask |= FS_EVENT_ON_CHILD;
	return mask | (arg & INOTIFY_USER_MASK);
}

static inline unsigned int inotify_arg_to_flags(u32 arg)
{
	unsigned int flags = 0;

	if (arg & IN_EXCL_UNLINK)
		flags |= FSNOTIFY_MARK_FLAG_EXCL_UNLINK;
	if (arg & IN_ONESHOT)
		flags |= FSNOTIFY_MARK_FLAG_IN_ONESHOT;
	return flags;
}

#define INOTIFY_MARK_FLAGS (FSNOTIFY_MARK_FLAG_EXCL_UNLINK | FSNOTIFY_MARK_FLAG_IN_ONESHOT)

/* the group's watch of the inode, its mask replaced (or added to: IN_MASK_ADD); its wd, or
 * -ENOENT when there is none, -EEXIST for IN_MASK_CREATE */
static notrace int inotify_update_existing_watch(struct fsnotify_group *group, struct inode *inode, u32 arg)
{
	struct fsnotify_mark *fsn_mark = fsnotify_find_mark(inode, group);
	int ret;

	if (!fsn_mark)
		return -ENOENT;
	if (arg & IN_MASK_CREATE) {
		ret = -EEXIST;
	} else {
		if (!(arg & IN_MASK_ADD)) {
			fsn_mark->mask = 0;
			fsn_mark->flags &= ~INOTIFY_MARK_FLAGS;
		}
		fsn_mark->mask |= inotify_arg_to_mask(inode, arg);
		fsn_mark->flags |= inotify_arg_to_flags(arg);
		fsnotify_recalc_mask(inode->i_fsnotify_marks);
		ret = container_of(fsn_mark, struct inotify_inode_mark, fsn_mark)->wd;
	}
	fsnotify_put_mark(fsn_mark);
	return ret;
}

static notrace int inotify_new_watch(struct fsnotify_group *group, struct inode *inode, u32 arg)
{
	struct inotify_inode_mark *tmp_i_mark = kmalloc(sizeof(*tmp_i_mark), GFP_KERNEL);
	int ret;

	if (!tmp_i_mark)
		return -ENOMEM;
	fsnotify_init_mark(&tmp_i_mark->fsn_mark, group);
	tmp_i_mark->fsn_mark.mask = inotify_arg_to_mask(inode, arg);
	tmp_i_mark->fsn_mark.flags = inotify_arg_to_flags(arg);
	tmp_i_mark->wd = -1;
	ret = inotify_add_to_idr(group, tmp_i_mark);
	if (ret)
		goto out_err;
	if (!inotify_inc_ucount(group->inotify_data.uid, true)) {
		inotify_remove_from_idr(group, tmp_i_mark);
		ret = -ENOSPC;
		goto out_err;
	}
	ret = fsnotify_add_mark_locked(&tmp_i_mark->fsn_mark, inode, 0);
	if (ret) {
		inotify_remove_from_idr(group, tmp_i_mark);
		inotify_dec_watches(group->inotify_data.uid);
		goto out_err;
	}
	ret = tmp_i_mark->wd;
out_err:
	fsnotify_put_mark(&tmp_i_mark->fsn_mark);	/* (the lists hold theirs) */
	return ret;
}

static noinline int inotify_update_watch(struct fsnotify_group *group, struct inode *inode, u32 arg)
{
	int ret;

	mutex_lock(&group->mark_mutex);
	ret = inotify_update_existing_watch(group, inode, arg);
	if (ret == -ENOENT)
		ret = inotify_new_watch(group, inode, arg);
	mutex_unlock(&group->mark_mutex);
	return ret;
}

/* the path's inode, if the caller may read it */
static noinline int inotify_find_inode(const char *dirname, struct path *path, unsigned int flags, u64 mask)
{
	int error = user_path_at_empty(AT_FDCWD, dirname, flags, path, NULL);

	if (error)
		return error;
	error = inode_permission(path->dentry->d_inode, MAY_READ);	/* path_permission */
	if (error)
		path_put(path);
	/* (then security_path_notify: no module has the hook) */
	return error;
}

/* ---- the syscalls ---- */
static notrace struct fsnotify_group *inotify_new_group(unsigned int max_events)
{
	struct fsnotify_group *group = fsnotify_alloc_group(&inotify_fsnotify_ops, 0);
	struct inotify_event_info *oevent;

	if (IS_ERR(group))
		return group;
	oevent = kmalloc(sizeof(*oevent), GFP_KERNEL);
	if (!oevent) {
		fsnotify_destroy_group(group);
		return ERR_PTR(-ENOMEM);
	}
	group->overflow_event = &oevent->fse;
	INIT_LIST_HEAD(&oevent->fse.list);
	oevent->mask = FS_Q_OVERFLOW;
	oevent->wd = -1;
	oevent->sync_cookie = 0;
	oevent->name_len = 0;
	group->max_events = max_events;
	group->inotify_data.uid = current_euid();
	group->inotify_data.charged = inotify_inc_ucount(group->inotify_data.uid, false);
	if (!group->inotify_data.charged) {
		fsnotify_destroy_group(group);
		return ERR_PTR(-EMFILE);
	}
	return group;
}

static noinline int do_inotify_init(int flags)
{
	struct fsnotify_group *group;
	int ret;

	if (flags & ~(IN_CLOEXEC | IN_NONBLOCK))
		return -EINVAL;
	group = inotify_new_group(inotify_max_queued_events);
	if (IS_ERR(group))
		return PTR_ERR(group);
	ret = anon_inode_getfd("inotify", &inotify_fops, group, O_RDONLY | flags);
	if (ret < 0)
		fsnotify_destroy_group(group);
	return ret;
}

SYSCALL_DEFINE1(inotify_init1, int, flags)
{
	return do_inotify_init(flags);
}

SYSCALL_DEFINE0(inotify_init)
{
	return do_inotify_init(0);
}

SYSCALL_DEFINE3(inotify_add_watch, int, fd, const char *, pathname, u32, mask)
{
	struct fsnotify_group *group;
	unsigned int flags = 0;
	struct path path;
	struct fd f;
	int ret;

	/* no bits inotify does not know, and some */
	if (mask & ~ALL_INOTIFY_BITS)
		return -EINVAL;
	if (!(mask & ALL_INOTIFY_BITS))
		return -EINVAL;
	f = fdget(fd);
	if (!f.file)
		return -EBADF;
	ret = -EINVAL;
	if ((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE))
		goto fput_and_out;
	if (f.file->f_op != &inotify_fops)
		goto fput_and_out;
	if (!(mask & IN_DONT_FOLLOW))
		flags |= LOOKUP_FOLLOW;
	if (mask & IN_ONLYDIR)
		flags |= LOOKUP_DIRECTORY;
	ret = inotify_find_inode(pathname, &path, flags, mask & IN_ALL_EVENTS);
	if (ret)
		goto fput_and_out;
	group = f.file->private_data;
	ret = inotify_update_watch(group, path.dentry->d_inode, mask);
	path_put(&path);
fput_and_out:
	fdput(f);
	return ret;
}

SYSCALL_DEFINE2(inotify_rm_watch, int, fd, __s32, wd)
{
	struct inotify_inode_mark *i_mark;
	struct fsnotify_group *group;
	struct fd f = fdget(fd);
	int ret = -EINVAL;

	if (!f.file)
		return -EBADF;
	if (f.file->f_op != &inotify_fops)
		goto out;
	group = f.file->private_data;
	i_mark = inotify_idr_find(group, wd);
	if (!i_mark)
		goto out;
	ret = 0;
	fsnotify_destroy_mark(&i_mark->fsn_mark, group);
	fsnotify_put_mark(&i_mark->fsn_mark);	/* inotify_idr_find's */
out:
	fdput(f);
	return ret;
}
