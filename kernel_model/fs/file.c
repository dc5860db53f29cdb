/*
 * File descriptor tables (Linux's fs/file.c): a files_struct per task (shared by CLONE_FILES),
 * its fdtable growing by doubling up to RLIMIT_NOFILE (expand_files), the close-on-exec and
 * open bitmaps; dup/dup2/dup3, close.  And fs_struct (Linux's fs/fs_struct.c): a task's root,
 * cwd and umask, chdir/fchdir/chroot.
 */
#include "../include/filelock.h"

#define BITS_PER_LONG 64
void free_fs_struct(struct fs_struct *fs);
static struct kmem_cache *files_cachep, *fs_cachep;
struct files_struct init_files;
struct fs_struct init_fs = { .users = 1, .umask = 0022 };

static notrace bool test_bit(unsigned int nr, const unsigned long *map) { return map[nr / 64] >> (nr % 64) & 1; }
static notrace void __set_bit(unsigned int nr, unsigned long *map) { map[nr / 64] |= 1UL << (nr % 64); }
static notrace void __clear_bit(unsigned int nr, unsigned long *map) { map[nr / 64] &= ~(1UL << (nr % 64)); }

/* fs.nr_open: the most fds a table may have, and so RLIMIT_NOFILE's highest value */
unsigned int sysctl_nr_open = 1024 * 1024;

static notrace unsigned int rlimit_nofile(void)
{
	return rlimit(RLIMIT_NOFILE);
}

static notrace void init_files_struct(struct files_struct *f)
{
	f->count = 1;
	f->file_lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	f->fdt = &f->fdtab;
	f->fdtab.max_fds = NR_OPEN_DEFAULT;
	f->fdtab.fd = f->fd_array;
	f->fdtab.close_on_exec = f->close_on_exec_init;
	f->fdtab.open_fds = f->open_fds_init;
	f->fdtab.full_fds_bits = f->full_fds_bits_init;
	init_waitqueue_head(&f->resize_wait);
}

static noinline struct fdtable *alloc_fdtable(unsigned int nr)
{
	struct fdtable *fdt = kzalloc(sizeof(*fdt), GFP_KERNEL);
	size_t bitmap = ALIGN(nr, BITS_PER_LONG) / 8;

	if (!fdt)
		return NULL;
	fdt->max_fds = nr;
	fdt->fd = kzalloc(nr * sizeof(struct file *), GFP_KERNEL);
	fdt->open_fds = kzalloc(2 * bitmap + 8, GFP_KERNEL);
	if (!fdt->fd || !fdt->open_fds) {
		kfree(fdt->fd);
		kfree(fdt->open_fds);
		kfree(fdt);
		return NULL;
	}
	fdt->close_on_exec = fdt->open_fds + bitmap / 8;
	fdt->full_fds_bits = fdt->close_on_exec + bitmap / 8;
	return fdt;
}

static notrace void free_fdtable(struct files_struct *files, struct fdtable *fdt)
{
	if (fdt == &files->fdtab)
		return;
	kfree(fdt->fd);
	kfree(fdt->open_fds);
	kfree(fdt);
}

/* A table expand_files() replaced, freed after a grace period: a lookup of another thread
 * (under rcu_read_lock) may still be reading it */
static noinline void free_fdtable_rcu(struct rcu_head *rcu)
{
	struct fdtable *fdt = container_of(rcu, struct fdtable, rcu);

	kfree(fdt->fd);	/* __free_fdtable() */
	kfree(fdt->open_fds);
	kfree(fdt);
}

static notrace void copy_fdtable(struct fdtable *nfdt, struct fdtable *ofdt)
{
	memcpy(nfdt->fd, ofdt->fd, ofdt->max_fds * sizeof(struct file *));
	memcpy(nfdt->open_fds, ofdt->open_fds, ofdt->max_fds / 8);
	memcpy(nfdt->close_on_exec, ofdt->close_on_exec, ofdt->max_fds / 8);
}

/* Make room for fd nr: a table of the next power of two (at least 256 entries, at most fs.nr_open). */
noinline int expand_files(struct files_struct *files, unsigned int nr)
{
	struct fdtable *new, *cur = files->fdt;
	unsigned int size = 256;

	if (nr < cur->max_fds)
		return 0;
	if (nr >= sysctl_nr_open)	/* (the callers hold nr under RLIMIT_NOFILE) */
		return -EMFILE;
	while (size <= nr)
		size *= 2;
	size = min(size, sysctl_nr_open);
	new = alloc_fdtable(size);
	if (!new)
		return -ENOMEM;
	copy_fdtable(new, cur);
	files->fdt = new;
	if (cur != &files->fdtab)
		call_rcu(&cur->rcu, free_fdtable_rcu);
	return 1;
}

noinline int alloc_fd(unsigned start, unsigned end, unsigned flags)
{
	struct files_struct *files = current->files;
	struct fdtable *fdt;
	unsigned int fd;
	unsigned long irq;
	int error;

	spin_lock_irqsave(&files->file_lock, irq);
	fd = max(start, files->next_fd);
	for (;;) {
		fdt = files->fdt;
		while (fd < fdt->max_fds && test_bit(fd, fdt->open_fds))
			fd++;
		if (fd >= end) {
			error = -EMFILE;
			goto out;
		}
		if (fd < fdt->max_fds)
			break;
		error = expand_files(files, fd);
		if (error < 0)
			goto out;
	}
	if (start <= files->next_fd)
		files->next_fd = fd + 1;
	__set_bit(fd, fdt->open_fds);
	if (flags & O_CLOEXEC)
		__set_bit(fd, fdt->close_on_exec);
	else
		__clear_bit(fd, fdt->close_on_exec);
	error = fd;
out:
	spin_unlock_irqrestore(&files->file_lock, irq);
	return error;
}

/* the lowest free fd below nofile (RLIMIT_NOFILE's, for the caller's own table) */
noinline int __get_unused_fd_flags(unsigned flags, unsigned long nofile)
{
	return alloc_fd(0, nofile, flags);
}

noinline int get_unused_fd_flags(unsigned flags)
{
	return __get_unused_fd_flags(flags, rlimit_nofile());
}

static notrace void __put_unused_fd(struct files_struct *files, unsigned int fd)
{
	__clear_bit(fd, files->fdt->open_fds);
	if (fd < files->next_fd)
		files->next_fd = fd;
}

noinline void put_unused_fd(unsigned int fd)
{
	struct files_struct *files = current->files;
	unsigned long irq;

	spin_lock_irqsave(&files->file_lock, irq);
	__put_unused_fd(files, fd);
	spin_unlock_irqrestore(&files->file_lock, irq);
}

noinline void fd_install(unsigned int fd, struct file *file)
{
	struct files_struct *files = current->files;
	unsigned long irq;

	spin_lock_irqsave(&files->file_lock, irq);
	files->fdt->fd[fd] = file;
	spin_unlock_irqrestore(&files->file_lock, irq);
}

/* The file at fd, taken out of the table (its reference goes to the caller). */
noinline struct file *pick_file(struct files_struct *files, unsigned fd)
{
	struct fdtable *fdt = files->fdt;
	struct file *file;

	if (fd >= fdt->max_fds)
		return NULL;
	file = fdt->fd[fd];
	if (file) {
		fdt->fd[fd] = NULL;
		__clear_bit(fd, fdt->close_on_exec);
		__put_unused_fd(files, fd);
	}
	return file;
}

/* A close of an fd (id: the file table it was in): the file's ->flush, the table's POSIX locks
 * of the file go */
noinline int filp_close(struct file *filp, void *id)
{
	int retval = 0;

	if (!filp->f_count)
		return 0;
	if (filp->f_op && filp->f_op->flush)
		retval = filp->f_op->flush(filp, id);
	if (likely(!(filp->f_mode & FMODE_PATH)))
		locks_remove_posix(filp, id);
	fput(filp);
	return retval;
}

noinline int close_fd(unsigned fd)
{
	struct files_struct *files = current->files;
	struct file *file;
	unsigned long irq;

	spin_lock_irqsave(&files->file_lock, irq);
	file = pick_file(files, fd);
	spin_unlock_irqrestore(&files->file_lock, irq);
	if (!file)
		return -EBADF;
	return filp_close(file, files);
}

SYSCALL_DEFINE1(close, unsigned int, fd)
{
	int retval = close_fd(fd);

	/* can't restart close syscall because file table entry was cleared */
	if (retval == -ERESTARTSYS)
		retval = -EINTR;
	return retval;
}

/* fget: the file at fd with a reference of the caller's; NULL: no such fd (O_PATH: fget_raw). */
/* fd's file in files, with a reference; none where its mode has a bit of mask (FMODE_PATH: an
 * O_PATH file is no file for fget()) */
static notrace struct file *__fget_files(struct files_struct *files, unsigned int fd, fmode_t mask)
{
	struct file *file = NULL;
	unsigned long irq;

	if (!files)
		return NULL;
	spin_lock_irqsave(&files->file_lock, irq);
	if (fd < files->fdt->max_fds) {
		file = files->fdt->fd[fd];
		if (file && (file->f_mode & mask))
			file = NULL;
		if (file)
			get_file(file);
	}
	spin_unlock_irqrestore(&files->file_lock, irq);
	return file;
}

static __always_inline struct file *__fget(unsigned int fd, fmode_t mask)
{
	return __fget_files(current->files, fd, mask);
}

/* fd's file in another task's table, with a reference (the caller holds sched_lock, under
 * which exit_files() lets the table go: 6.1's task_lock) */
noinline struct file *fget_task(struct task_struct *task, unsigned int fd)
{
	return __fget_files(task->files, fd, 0);
}

noinline struct file *fget(unsigned int fd)
{
	return __fget(fd, FMODE_PATH);
}

noinline struct file *fget_raw(unsigned int fd)
{
	return __fget(fd, 0);
}

/* No reference taken while the table is the caller's alone (no other task can close the fd
 * meanwhile); 6.1 reads the table under RCU, here under its lock */
static noinline unsigned long __fget_light(unsigned int fd, fmode_t mask)
{
	struct files_struct *files = current->files;
	struct file *file = NULL;

	if (__atomic_load_n(&files->count, __ATOMIC_ACQUIRE) == 1) {
		unsigned long irq;

		spin_lock_irqsave(&files->file_lock, irq);	/* files_lookup_fd_raw() */
		if (fd < files->fdt->max_fds)
			file = files->fdt->fd[fd];
		spin_unlock_irqrestore(&files->file_lock, irq);
		if (!file || unlikely(file->f_mode & mask))
			return 0;
		return (unsigned long)file;
	}
	file = __fget(fd, mask);
	if (!file)
		return 0;
	return FDPUT_FPUT | (unsigned long)file;
}

noinline unsigned long __fdget(unsigned int fd)
{
	return __fget_light(fd, FMODE_PATH);
}

noinline unsigned long __fdget_raw(unsigned int fd)
{
	return __fget_light(fd, 0);
}

/* threads or another process share the file (a count past one), or it is a directory */
static inline bool file_needs_f_pos_lock(struct file *file)
{
	return (file->f_mode & FMODE_ATOMIC_POS) &&
		(file->f_count > 1 || S_ISDIR(file->f_inode->i_mode));
}

noinline unsigned long __fdget_pos(unsigned int fd)
{
	unsigned long v = __fdget(fd);
	struct file *file = (struct file *)(v & ~3UL);

	if (file && file_needs_f_pos_lock(file)) {
		v |= FDPUT_POS_UNLOCK;
		mutex_lock(&file->f_pos_lock);
	}
	return v;
}

noinline void __f_unlock_pos(struct file *f)
{
	mutex_unlock(&f->f_pos_lock);
}

void set_close_on_exec(unsigned int fd, int flag)
{
	struct files_struct *files = current->files;
	unsigned long irq;

	spin_lock_irqsave(&files->file_lock, irq);
	if (flag)
		__set_bit(fd, files->fdt->close_on_exec);
	else
		__clear_bit(fd, files->fdt->close_on_exec);
	spin_unlock_irqrestore(&files->file_lock, irq);
}

bool get_close_on_exec(unsigned int fd)
{
	struct files_struct *files = current->files;

	return fd < files->fdt->max_fds && test_bit(fd, files->fdt->close_on_exec);
}

/* Under file_lock: fd (made room for) now holds file; what it held is closed. */
static noinline int do_dup2(struct files_struct *files, struct file *file, unsigned fd, unsigned flags, unsigned long irq)
{
	struct fdtable *fdt = files->fdt;
	struct file *tofree = fdt->fd[fd];

	get_file(file);
	fdt->fd[fd] = file;
	__set_bit(fd, fdt->open_fds);
	if (flags & O_CLOEXEC)
		__set_bit(fd, fdt->close_on_exec);
	else
		__clear_bit(fd, fdt->close_on_exec);
	spin_unlock_irqrestore(&files->file_lock, irq);
	if (tofree)
		filp_close(tofree, files);
	return fd;
}

noinline int replace_fd(unsigned fd, struct file *file, unsigned flags)
{
	struct files_struct *files = current->files;
	unsigned long irq;
	int err;

	if (fd >= rlimit_nofile())
		return -EBADF;
	spin_lock_irqsave(&files->file_lock, irq);
	err = expand_files(files, fd);
	if (err < 0) {
		spin_unlock_irqrestore(&files->file_lock, irq);
		return err;
	}
	return do_dup2(files, file, fd, flags, irq);
}

noinline int ksys_dup3(unsigned int oldfd, unsigned int newfd, int flags)
{
	struct files_struct *files = current->files;
	struct file *file;
	unsigned long irq;
	int err = -EBADF;

	if ((flags & ~O_CLOEXEC) != 0)
		return -EINVAL;
	if (oldfd == newfd)
		return -EINVAL;
	if (newfd >= rlimit_nofile())
		return -EBADF;
	spin_lock_irqsave(&files->file_lock, irq);
	err = expand_files(files, newfd);
	file = oldfd < files->fdt->max_fds ? files->fdt->fd[oldfd] : NULL;
	if (!file) {
		spin_unlock_irqrestore(&files->file_lock, irq);
		return -EBADF;
	}
	if (err < 0) {
		spin_unlock_irqrestore(&files->file_lock, irq);
		return err == -EMFILE ? -EBADF : err;
	}
	return do_dup2(files, file, newfd, flags, irq);
}

SYSCALL_DEFINE3(dup3, unsigned int, oldfd, unsigned int, newfd, int, flags)
{
	return ksys_dup3(oldfd, newfd, flags);
}

SYSCALL_DEFINE2(dup2, unsigned int, oldfd, unsigned int, newfd)
{
	if (oldfd == newfd) {
		struct file *f = fget_raw(oldfd);

		if (!f)
			return -EBADF;
		fput(f);
		return oldfd;
	}
	return ksys_dup3(oldfd, newfd, 0);
}

SYSCALL_DEFINE1(dup, unsigned int, fildes)
{
	int ret = -EBADF;
	struct file *file = fget_raw(fildes);

	if (file) {
		ret = get_unused_fd_flags(0);
		if (ret >= 0)
			fd_install(ret, file);
		else
			fput(file);
	}
	return ret;
}

noinline int f_dupfd(unsigned int from, struct file *file, unsigned flags)
{
	int err;

	if (from >= rlimit_nofile())
		return -EINVAL;
	err = alloc_fd(from, rlimit_nofile(), flags);
	if (err >= 0) {
		get_file(file);
		fd_install(err, file);
	}
	return err;
}

/* A copy of oldf for a fork (not CLONE_FILES): every open file gets a reference. */
noinline struct files_struct *dup_fd(struct files_struct *oldf, int *errorp)
{
	struct files_struct *newf = kmem_cache_zalloc(files_cachep, GFP_KERNEL);
	struct fdtable *old_fdt, *new_fdt;
	unsigned int i;
	unsigned long irq;

	*errorp = -ENOMEM;
	if (!newf)
		return NULL;
	init_files_struct(newf);
	spin_lock_irqsave(&oldf->file_lock, irq);
	old_fdt = oldf->fdt;
	while (old_fdt->max_fds > newf->fdt->max_fds) {
		unsigned int want = old_fdt->max_fds;

		spin_unlock_irqrestore(&oldf->file_lock, irq);
		new_fdt = alloc_fdtable(want);
		if (!new_fdt) {
			kmem_cache_free(files_cachep, newf);
			return NULL;
		}
		free_fdtable(newf, newf->fdt);
		newf->fdt = new_fdt;
		spin_lock_irqsave(&oldf->file_lock, irq);
		old_fdt = oldf->fdt;
	}
	new_fdt = newf->fdt;
	copy_fdtable(new_fdt, old_fdt);
	for (i = 0; i < old_fdt->max_fds; i++)
		if (new_fdt->fd[i])
			get_file(new_fdt->fd[i]);
	newf->next_fd = oldf->next_fd;
	spin_unlock_irqrestore(&oldf->file_lock, irq);
	return newf;
}

static notrace void close_files(struct files_struct *files)
{
	struct fdtable *fdt = files->fdt;
	unsigned int i;

	for (i = 0; i < fdt->max_fds; i++) {
		struct file *file = fdt->fd[i];

		if (file) {
			fdt->fd[i] = NULL;
			filp_close(file, files);
		}
	}
}

notrace noinline void put_fs_struct(struct fs_struct *fs)
{
	if (__atomic_sub_fetch(&fs->users, 1, __ATOMIC_ACQ_REL) == 0)
		free_fs_struct(fs);
}

noinline void put_files_struct(struct files_struct *files)
{
	if (__atomic_sub_fetch(&files->count, 1, __ATOMIC_ACQ_REL) == 0) {
		close_files(files);
		free_fdtable(files, files->fdt);
		if (files != &init_files)
			kmem_cache_free(files_cachep, files);
	}
}

void exit_files(struct task_struct *tsk)
{
	struct files_struct *files;
	unsigned long irq;

	spin_lock_irqsave(&sched_lock, irq);	/* procfs takes its reference under it */
	files = tsk->files;
	tsk->files = NULL;
	spin_unlock_irqrestore(&sched_lock, irq);
	if (files)
		put_files_struct(files);
}

/* exec: the fds marked close-on-exec are closed. */
noinline void do_close_on_exec(struct files_struct *files)
{
	unsigned long irq;
	unsigned int fd;

	spin_lock_irqsave(&files->file_lock, irq);
	for (fd = 0; fd < files->fdt->max_fds; fd++) {
		struct file *file;

		if (!test_bit(fd, files->fdt->close_on_exec))
			continue;
		file = pick_file(files, fd);
		if (!file)
			continue;
		spin_unlock_irqrestore(&files->file_lock, irq);
		filp_close(file, files);
		spin_lock_irqsave(&files->file_lock, irq);
	}
	spin_unlock_irqrestore(&files->file_lock, irq);
}

#define CLONE_FS	0x00000200
#define CLONE_FILES	0x00000400
static notrace int __copy_files(struct files_struct *oldf, unsigned long clone_flags, struct task_struct *tsk)
{
	struct files_struct *newf;
	int error = 0;

	if (clone_flags & CLONE_FILES) {
		__atomic_add_fetch(&oldf->count, 1, __ATOMIC_RELAXED);
		tsk->files = oldf;
		return 0;
	}
	newf = dup_fd(oldf, &error);
	if (!newf)
		return error;
	tsk->files = newf;
	return 0;
}

notrace noinline int copy_files(unsigned long clone_flags, struct task_struct *tsk)
{
	return __copy_files(current->files ? current->files : &init_files, clone_flags, tsk);
}

/* ---- fs_struct ---- */
notrace noinline void get_fs_root(struct fs_struct *fs, struct path *root)
{
	unsigned long irq;

	spin_lock_irqsave(&fs->lock, irq);
	*root = fs->root;
	path_get(root);
	spin_unlock_irqrestore(&fs->lock, irq);
}

notrace noinline void get_fs_pwd(struct fs_struct *fs, struct path *pwd)
{
	unsigned long irq;

	spin_lock_irqsave(&fs->lock, irq);
	*pwd = fs->pwd;
	path_get(pwd);
	spin_unlock_irqrestore(&fs->lock, irq);
}

noinline void set_fs_root(struct fs_struct *fs, const struct path *path)
{
	struct path old;
	unsigned long irq;

	path_get(path);
	spin_lock_irqsave(&fs->lock, irq);
	old = fs->root;
	fs->root = *path;
	spin_unlock_irqrestore(&fs->lock, irq);
	if (old.dentry)
		path_put(&old);
}

noinline void set_fs_pwd(struct fs_struct *fs, const struct path *path)
{
	struct path old;
	unsigned long irq;

	path_get(path);
	spin_lock_irqsave(&fs->lock, irq);
	old = fs->pwd;
	fs->pwd = *path;
	spin_unlock_irqrestore(&fs->lock, irq);
	if (old.dentry)
		path_put(&old);
}

static inline int replace_path(struct path *p, const struct path *old, const struct path *new)
{
	if (likely(p->dentry != old->dentry || p->mnt != old->mnt))
		return 0;
	*p = *new;
	return 1;
}

/* Every task's root and cwd that were old_root become new_root (pivot_root) */
noinline void chroot_fs_refs(const struct path *old_root, const struct path *new_root)
{
	struct task_struct *p;
	unsigned long flags, irq;
	int count = 0;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(p, &task_list, tasks) {
		struct fs_struct *fs = p->fs;
		int hits = 0;

		if (!fs)
			continue;
		spin_lock_irqsave(&fs->lock, irq);
		hits += replace_path(&fs->root, old_root, new_root);
		hits += replace_path(&fs->pwd, old_root, new_root);
		while (hits--) {
			count++;
			path_get(new_root);
		}
		spin_unlock_irqrestore(&fs->lock, irq);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	while (count--)
		path_put(old_root);
}

noinline struct fs_struct *copy_fs_struct(struct fs_struct *old)
{
	struct fs_struct *fs = kmem_cache_zalloc(fs_cachep, GFP_KERNEL);

	if (fs) {
		fs->users = 1;
		fs->umask = old->umask;
		get_fs_root(old, &fs->root);
		get_fs_pwd(old, &fs->pwd);
	}
	return fs;
}

noinline void free_fs_struct(struct fs_struct *fs)
{
	path_put(&fs->root);
	path_put(&fs->pwd);
	if (fs != &init_fs)
		kmem_cache_free(fs_cachep, fs);
}

void exit_fs(struct task_struct *tsk)
{
	struct fs_struct *fs;
	unsigned long irq;

	spin_lock_irqsave(&sched_lock, irq);
	fs = tsk->fs;
	tsk->fs = NULL;
	spin_unlock_irqrestore(&sched_lock, irq);
	if (fs && __atomic_sub_fetch(&fs->users, 1, __ATOMIC_ACQ_REL) == 0)
		free_fs_struct(fs);
}

static notrace int __copy_fs(struct fs_struct *fs, unsigned long clone_flags, struct task_struct *tsk)
{
	if (clone_flags & CLONE_FS) {
		__atomic_add_fetch(&fs->users, 1, __ATOMIC_RELAXED);
		tsk->fs = fs;
		return 0;
	}
	tsk->fs = copy_fs_struct(fs);
	return tsk->fs ? 0 : -ENOMEM;
}

notrace noinline int copy_fs(unsigned long clone_flags, struct task_struct *tsk)
{
	return __copy_fs(current->fs ? current->fs : &init_fs, clone_flags, tsk);
}

/* A copy of another task's fd table and fs_struct (a session task made for its parent by
 * whoever takes the record); from's must outlive the call (its parent, or init). */
notrace int copy_files_and_fs_of(struct task_struct *from, struct task_struct *tsk)
{
	return __copy_files(from->files ? from->files : &init_files, 0, tsk) ?:
	       __copy_fs(from->fs ? from->fs : &init_fs, 0, tsk);
}

SYSCALL_DEFINE1(umask, int, mask)
{
	int old = current->fs->umask;

	current->fs->umask = mask & 0777;
	return old;
}

void __init files_struct_init(void)
{
	files_cachep = kmem_cache_create("files_cache", sizeof(struct files_struct), 64, SLAB_PANIC, NULL);
	fs_cachep = kmem_cache_create("fs_cache", sizeof(struct fs_struct), 0, SLAB_PANIC, NULL);
	init_files_struct(&init_files);
	init_fs.lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
}

/* The task's own copy of a shared fd table (exec; a kernel thread becoming a program). */
noinline int unshare_files(void)
{
	struct task_struct *task = current;
	struct files_struct *old = task->files, *copy;
	unsigned long irq;
	int error;

	if (!old || old->count == 1)
		return 0;
	copy = dup_fd(old, &error);
	if (!copy)
		return error;
	spin_lock_irqsave(&sched_lock, irq);
	task->files = copy;
	spin_unlock_irqrestore(&sched_lock, irq);
	put_files_struct(old);
	return 0;
}

/* ---- close_range(2) ---- */
#define CLOSE_RANGE_UNSHARE	(1U << 1)
#define CLOSE_RANGE_CLOEXEC	(1U << 2)

static notrace void __range_cloexec(struct files_struct *files, unsigned int fd, unsigned int max_fd)
{
	unsigned long irq;

	spin_lock_irqsave(&files->file_lock, irq);
	max_fd = min(max_fd, files->fdt->max_fds - 1);
	for (; fd <= max_fd; fd++)
		__set_bit(fd, files->fdt->close_on_exec);
	spin_unlock_irqrestore(&files->file_lock, irq);
}

static notrace void __range_close(struct files_struct *files, unsigned int fd, unsigned int max_fd)
{
	unsigned long irq;
	struct file *file;

	for (; fd <= max_fd; fd++) {
		spin_lock_irqsave(&files->file_lock, irq);
		if (fd >= files->fdt->max_fds) {
			spin_unlock_irqrestore(&files->file_lock, irq);
			break;
		}
		file = pick_file(files, fd);
		spin_unlock_irqrestore(&files->file_lock, irq);
		if (file)
			filp_close(file, files);
	}
}

/* Close (or mark close-on-exec) every fd from fd to max_fd; CLOSE_RANGE_UNSHARE: in a table of
 * the task's own first. */
noinline int __close_range(unsigned int fd, unsigned int max_fd, unsigned int flags)
{
	int err;

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))
		return -EINVAL;
	if (fd > max_fd)
		return -EINVAL;
	if (flags & CLOSE_RANGE_UNSHARE) {
		err = unshare_files();
		if (err)
			return err;
	}
	if (flags & CLOSE_RANGE_CLOEXEC)
		__range_cloexec(current->files, fd, max_fd);
	else
		__range_close(current->files, fd, max_fd);
	return 0;
}

SYSCALL_DEFINE3(close_range, unsigned int, fd, unsigned int, max_fd, unsigned int, flags)
{
	return __close_range(fd, max_fd, flags);
}

noinline int unshare_fs_struct(void)
{
	struct fs_struct *fs = current->fs, *new_fs;
	unsigned long irq;

	if (!fs || fs->users == 1)
		return 0;
	new_fs = copy_fs_struct(fs);
	if (!new_fs)
		return -ENOMEM;
	spin_lock_irqsave(&sched_lock, irq);
	current->fs = new_fs;
	spin_unlock_irqrestore(&sched_lock, irq);
	put_fs_struct(fs);
	return 0;
}

/* A file another task had, as a new fd of the caller's (pidfd_getfd, SCM_RIGHTS in 6.1) */
static noinline int __receive_fd(struct file *file, unsigned int o_flags)
{
	int new_fd = get_unused_fd_flags(o_flags);

	if (new_fd < 0)
		return new_fd;
	fd_install(new_fd, get_file(file));
	return new_fd;
}

noinline int receive_fd(struct file *file, unsigned int o_flags)
{
	return __receive_fd(file, o_flags);
}
