/*
 * execve (fs/exec.c): the new address space with its stack and the argument and
 * environment strings on it, then the binary format's loader (binfmt_elf.c), which maps the
 * program.  The program is a file: one of the ELF images the kernel holds (kernel_model/user/,
 * found by the name's last component) or the VFS's (open_exec).
 */
#include "../include/syscalls.h"
#include "../include/pid.h"
#include "../include/mmap_lock.h"
#include "../include/binfmts.h"
#include "../include/fs.h"
#include "../include/trace/trace.h"
#include "../include/session.h"
#include "../include/perf_event.h"
#include "../include/signal.h"
#include "../include/security.h"
#include "../include/cred.h"

extern const struct user_program user_programs[];
extern const u64 nr_user_programs;

/* ---- the programs the kernel holds, as read-only files ---- */
static notrace ssize_t user_program_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	const struct user_program *prog = iocb->ki_filp->private_data;
	size_t n;

	if (iocb->ki_pos < 0 || (u64)iocb->ki_pos >= prog->image_size)
		return 0;
	n = copy_to_iter(prog->image + iocb->ki_pos, min((u64)iov_iter_count(to),
							    prog->image_size - iocb->ki_pos), to);
	iocb->ki_pos += n;
	return n;
}

static struct inode **user_program_inodes;
extern const u64 nr_user_programs;

/* opened by a path that reaches its inode (/proc/PID/exe: nd_jump_link): which program */
static notrace int user_program_file_open(struct inode *inode, struct file *file)
{
	u64 i;

	for (i = 0; i < nr_user_programs; i++)
		if (user_program_inodes[i] == inode) {
			file->private_data = (void *)&user_programs[i];
			return 0;
		}
	return -ENODEV;
}

static const struct file_operations user_program_fops = {
	.open = user_program_file_open,
	.read_iter = user_program_read_iter,
	.llseek = generic_file_llseek,
};

/* the held program a file reads, NULL for the VFS's files */
notrace const struct user_program *user_program_of(struct file *file)
{
	return file->f_op == &user_program_fops ? file->private_data : NULL;
}

/*
 * Their files are on a private mount no path reaches, as the blobs Linux embeds and runs
 * (kernel/usermode_driver.c's umd_setup_blob: a file on a private tmpfs): one inode per
 * program, and a name from that mount's root, "/cat", which is what /proc/PID/exe shows (a
 * static glibc program reads it at start and wants it absolute).
 */
#define USER_PROGRAM_FS_MAGIC	0x01021994	/* TMPFS_MAGIC */
static struct vfsmount *user_program_mnt;

static notrace char *user_program_dname(struct dentry *dentry, char *buffer, int buflen)
{
	return dynamic_dname(buffer, buflen, "/%s", dentry->d_name.name);
}

static const struct dentry_operations user_program_dentry_operations = {
	.d_delete = always_delete_dentry,
	.d_dname = user_program_dname,
};

static notrace int user_program_fill_super(struct super_block *sb, void *data)
{
	return init_pseudo(sb, &user_program_dentry_operations);
}

static struct file_system_type user_program_fs_type = {
	.name = "tmpfs",
	.fill_super = user_program_fill_super,
	.magic = USER_PROGRAM_FS_MAGIC,
};

void __init user_programs_init(void)
{
	u64 i;

	user_program_mnt = vfs_kern_mount(&user_program_fs_type, 0, "user_programs", NULL);
	user_program_inodes = kmalloc(nr_user_programs * sizeof(*user_program_inodes), GFP_KERNEL);
	if (IS_ERR(user_program_mnt) || !user_program_inodes)
		panic("user_programs_init() failed");
	for (i = 0; i < nr_user_programs; i++) {
		struct inode *inode = new_inode(user_program_mnt->mnt_sb);

		if (!inode)
			panic("user_programs_init() inode allocation failed");
		inode->i_ino = get_next_ino();
		inode->i_mode = S_IFREG | 0555;
		inode->i_size = user_programs[i].image_size;
		inode->i_fop = &user_program_fops;
		user_program_inodes[i] = inode;
	}
}

static struct file *user_program_open(u64 i)
{
	struct inode *inode = ihold(user_program_inodes[i]);
	struct file *file = alloc_file_pseudo(inode, user_program_mnt, user_programs[i].name, O_RDONLY,
					      &user_program_fops);

	if (IS_ERR(file)) {
		iput(inode);
		return file;
	}
	file->private_data = (void *)&user_programs[i];
	return file;
}

/* A mount without exec (noexec, or a file system that never runs programs) */
noinline bool path_noexec(const struct path *path)
{
	return (path->mnt->mnt_flags & MNT_NOEXEC) || (path->mnt->mnt_sb->s_iflags & SB_I_NOEXEC);
}

/* The file through the VFS, relative to the directory fd unless absolute (AT_EMPTY_PATH: the
 * fd's own file), refused unless a regular file on a mount that allows exec; opened for exec
 * as 6.1's open_exec_flags say (the name as a string here, 6.1's struct filename) */
static noinline struct file *do_open_execat(int fd, const char *name, int flags)
{
	struct open_flags open_exec_flags = {
		.open_flag = O_LARGEFILE | O_RDONLY,	/* (6.1's __FMODE_EXEC: no mandatory locks here) */
		.acc_mode = MAY_EXEC,
		.lookup_flags = LOOKUP_FOLLOW,
	};
	struct filename *filename;
	struct file *file;

	if ((flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) != 0)
		return ERR_PTR(-EINVAL);
	if (flags & AT_SYMLINK_NOFOLLOW)
		open_exec_flags.lookup_flags &= ~LOOKUP_FOLLOW;
	if (flags & AT_EMPTY_PATH)
		open_exec_flags.lookup_flags |= LOOKUP_EMPTY;
	filename = getname_kernel(name);
	if (IS_ERR(filename))
		return (struct file *)filename;
	file = do_filp_open(fd, filename, &open_exec_flags);
	putname(filename);
	if (IS_ERR(file))
		return file;
	if (!S_ISREG(file->f_inode->i_mode) || path_noexec(&file->f_path)) {
		fput(file);
		return ERR_PTR(-EACCES);
	}
	return file;
}

/* The file exec runs: the kernel's own programs (kernel_model/user/) by the name's last
 * component, as if they were on every directory of PATH, else the name through the VFS
 * (a tracefs-sim exec program's / is the host's: hostfs). */
static noinline struct file *open_exec(int fd, const char *filename, int flags)
{
	const char *base = kbasename(filename);
	u64 i;

	for (i = 0; *base && i < nr_user_programs; i++)
		if (!strcmp(user_programs[i].name, base))
			return user_program_open(i);
	return do_open_execat(fd, filename, flags);
}

/* ---- the new stack, filled before the old address space goes ---- */
static notrace noinline int __bprm_mm_init(struct linux_binprm *bprm)
{
	struct mm_struct *mm = bprm->mm;
	struct vm_area_struct *vma = vm_area_alloc(mm);

	if (!vma)
		return -ENOMEM;
	vma->vm_end = STACK_TOP;
	vma->vm_start = vma->vm_end - PAGE_SIZE;
	vma->vm_flags = VM_STACK_FLAGS;
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	vma->vm_pgoff = vma->vm_start >> 12;
	if (insert_vm_struct(mm, vma)) {
		vm_area_free(vma);
		return -ENOMEM;
	}
	bprm->vma = vma;
	mm->stack_vm = mm->total_vm = 1;
	bprm->p = vma->vm_end - sizeof(void *);
	return 0;
}

static notrace noinline int bprm_mm_init(struct linux_binprm *bprm)
{
	bprm->mm = mm_alloc();
	if (!bprm->mm)
		return -ENOMEM;
	return __bprm_mm_init(bprm);
}

/*
 * The nascent bprm->mm is not visible until exec_mmap() but it can use a lot of memory:
 * its stack's pages count in current->mm for a while (oom_badness's get_mm_rss), back to 0
 * once the exec succeeds or fails.
 */
static noinline void acct_arg_size(struct linux_binprm *bprm, unsigned long pages)
{
	struct mm_struct *mm = current->mm;
	long diff = (long)(pages - bprm->vma_pages);

	if (!mm || !diff)
		return;
	bprm->vma_pages = pages;
	add_mm_counter(mm, MM_ANONPAGES, diff);
}

/* The page of the new stack at pos, a reference held (get_user_pages on the new mm: the stack
 * grown down to it by hand first, within a quarter of the stack limit) */
static noinline struct page *get_arg_page(struct linux_binprm *bprm, unsigned long pos, int write)
{
	struct vm_area_struct *vma = bprm->vma;
	struct mm_struct *mm = bprm->mm;
	struct page *page;
	long ret;

	if (write && pos < vma->vm_start) {
		if (vma->vm_end - (pos & ~(PAGE_SIZE - 1)) > (8UL << 20) / 4)	/* _STK_LIM / 4 */
			return NULL;
		mmap_write_lock(mm);
		vma->vm_start = pos & ~(PAGE_SIZE - 1);
		vma->vm_pgoff = vma->vm_start >> 12;
		mmap_write_unlock(mm);
	}
	mmap_read_lock(mm);
	ret = get_user_pages_remote(mm, pos, 1, write ? FOLL_WRITE : 0, &page, NULL, NULL);
	mmap_read_unlock(mm);
	if (ret <= 0)
		return NULL;
	if (write)
		acct_arg_size(bprm, (vma->vm_end - vma->vm_start) >> 12);	/* vma_pages() */
	return page;
}

/* Bytes onto the new stack at bprm->p - len (downwards). */
static notrace int put_arg_bytes(struct linux_binprm *bprm, const char *src, unsigned long len)
{
	unsigned long pos;

	if (len > bprm->p)
		return -E2BIG;
	bprm->p -= len;
	for (pos = bprm->p; len; ) {
		unsigned long off = pos & (PAGE_SIZE - 1), n = min(len, PAGE_SIZE - off);
		struct page *page = get_arg_page(bprm, pos, 1);

		if (!page)
			return -E2BIG;
		memcpy((u8 *)page_address(page) + off, src, n);
		put_gup_page(page);	/* put_arg_page() */
		src += n, pos += n, len -= n;
	}
	return 0;
}

/* One string, NUL included: from the kernel, or from the old address space. */
static noinline int copy_string(struct linux_binprm *bprm, const char *str, bool from_user, char *tmp)
{
	long len;

	if (!from_user)
		return put_arg_bytes(bprm, str, strlen(str) + 1);
	len = strncpy_from_user(tmp, str, MAX_ARG_STRLEN);
	if (len < 0)
		return -EFAULT;
	if (len >= (long)MAX_ARG_STRLEN)
		return -E2BIG;
	return put_arg_bytes(bprm, tmp, len + 1);
}

/* A string of the kernel's, NUL included (the file name, a kernel_execve's vector) */
noinline int copy_string_kernel(const char *arg, struct linux_binprm *bprm)
{
	return put_arg_bytes(bprm, arg, strlen(arg) + 1);
}

/* a kernel vector, last string first */
static noinline int copy_strings_kernel(int argc, const char *const *argv, struct linux_binprm *bprm)
{
	while (argc-- > 0) {
		int ret = copy_string_kernel(argv[argc], bprm);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* argv or envp, last string first, so they read in order upwards from bprm->p */
static noinline int copy_strings(int argc, const char *const *argv, bool from_user,
				 struct linux_binprm *bprm)
{
	char *tmp = NULL;
	int ret = 0;

	if (from_user) {
		tmp = (char *)__get_free_pages(GFP_KERNEL, 5);	/* MAX_ARG_STRLEN */
		if (!tmp)
			return -ENOMEM;
	}
	while (argc-- > 0) {
		const char *str;

		if (from_user) {
			if (copy_from_user(&str, argv + argc, sizeof(str))) {
				ret = -EFAULT;
				break;
			}
		} else {
			str = argv[argc];
		}
		ret = copy_string(bprm, str, from_user, tmp);
		if (ret)
			break;
	}
	if (tmp)
		free_pages((unsigned long)tmp, 5);
	return ret;
}

/* The number of strings in a user vector (count()) */
static int count(const char *const *argv, bool from_user)
{
	int i = 0;

	if (!argv)
		return 0;
	for (;;) {
		const char *p;

		if (from_user) {
			if (copy_from_user(&p, argv + i, sizeof(p)))
				return -EFAULT;
		} else {
			p = argv[i];
		}
		if (!p)
			return i;
		if (++i >= 0x8000)	/* MAX_ARG_STRINGS, bounded by the stack's quarter */
			return -E2BIG;
	}
}

/* ---- the point of no return (exec_mmap: inlined into begin_new_exec, as 6.1's) ---- */
static __always_inline int exec_mmap(struct mm_struct *mm)
{
	struct task_struct *tsk = current;
	struct mm_struct *old_mm = tsk->mm;
	unsigned long flags;
	int ret;

	/* held for writing until setup_new_exec(): the task's readers (perf, /proc) see it
	 * before or after the exec, never half-way */
	ret = down_write_killable(&tsk->signal->exec_update_lock);
	if (ret)
		return ret;
	exec_mm_release(tsk, old_mm);	/* a vfork parent goes on */
	if (old_mm)
		sync_mm_rss(old_mm);
	mm->owner = tsk;
	spin_lock_irqsave(&sched_lock, flags);	/* (task_lock: /proc's readers of tsk->mm) */
	membarrier_exec_mmap(mm);
	tsk->mm = mm;
	switch_mm(mm);
	spin_unlock_irqrestore(&sched_lock, flags);
	if (old_mm)
		mmput(old_mm);
	return 0;
}

/* The task's name, NUL-terminated and zero-padded to buf_size (6.1 reads it under task_lock();
 * its writer here is the task itself, its readers hold the sched_lock that keeps the task) */
noinline char *__get_task_comm(char *buf, size_t buf_size, struct task_struct *tsk)
{
	strscpy_pad(buf, tsk->comm, buf_size);
	return buf;
}

void __set_task_comm(struct task_struct *tsk, const char *buf, bool exec)
{
	char before[TASK_COMM_LEN];

	trace_task_rename(tsk, buf);
	memcpy(before, tsk->comm, TASK_COMM_LEN);
	strscpy_pad(tsk->comm, buf, TASK_COMM_LEN);
	tracing_record_task_rename(tsk, before);
}

/*
 * The exec'ing task becomes the process's only thread (fs/exec.c): the others get SIGKILL
 * and are waited for; a thread that is not the group's leader then takes the leader's pid
 * (the process's) and its place as its parent's child, and the leader is released.
 */
static notrace noinline int de_thread(struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	struct task_struct *leader = tsk->group_leader;
	unsigned long flags;

	if (!sig || READ_ONCE(sig->nr_threads) <= 1)
		goto no_thread_group;
	if ((sig->flags & SIGNAL_GROUP_EXIT) || sig->group_exec_task)
		return -EAGAIN;
	sig->group_exec_task = tsk;
	if (leader != tsk) {	/* the host hears of the process's end from this task now */
		spin_lock_irqsave(&sched_lock, flags);
		tsk->host_id = leader->host_id;
		leader->host_id = 0;
		spin_unlock_irqrestore(&sched_lock, flags);
	}
	zap_other_threads(tsk);
	for (;;) {	/* each exiting thread wakes us once its exit_state is set */
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (READ_ONCE(sig->nr_threads) <= 1 && (leader == tsk || READ_ONCE(leader->exit_state)))
			break;
		schedule();
	}
	set_current_state(TASK_RUNNING);
	if (leader != tsk) {
		while (READ_ONCE(leader->on_cpu))
			cpu_relax();	/* another cpu is finishing its switch away from it */
		spin_lock_irqsave(&sched_lock, flags);
		exchange_tids(tsk, leader);
		tsk->group_leader = tsk;
		leader->group_leader = tsk;
		tsk->exit_signal = leader->exit_signal;
		leader->exit_signal = -1;
		task_set_parent(tsk, leader->parent);
		if (!list_empty(&leader->sibling)) {	/* list_replace_init() */
			list_add(&tsk->sibling, &leader->sibling);
			list_del_init(&leader->sibling);
		}
		spin_unlock_irqrestore(&sched_lock, flags);
		release_task(leader);
	}
	sig->group_exec_task = NULL;
	sig->flags = 0;
no_thread_group:
	return 0;
}

noinline int begin_new_exec(struct linux_binprm *bprm)
{
	struct task_struct *me = current;
	int retval;

	/* bprm_creds_from_file(): the credentials the program runs with, computed once committed */
	retval = security_bprm_creds_from_file(bprm, bprm->file);
	if (retval)
		return retval;
	retval = de_thread(me);
	if (retval)
		return retval;

	retval = unshare_files();	/* (a file table of its own before the old one's fds close) */
	if (retval)
		return retval;
	acct_arg_size(bprm, 0);
	retval = exec_mmap(bprm->mm);
	if (retval)
		return retval;
	bprm->mm = NULL;
	if (me->signal) {	/* the POSIX timers do not survive exec (a session task has none) */
		exit_itimers(me);
		flush_itimer_signals();
	}
	me->flags &= ~(PF_KTHREAD | PF_FORKNOEXEC);
	flush_thread();
	flush_signal_handlers(me);
	do_close_on_exec(me->files);
	__set_task_comm(me, kbasename(bprm->filename), true);
	perf_event_exec();
	/* install the new credentials */
	security_bprm_committing_creds(bprm);
	commit_creds(bprm->cred);
	bprm->cred = NULL;
	security_bprm_committed_creds(bprm);
	return 0;
}

/* arch/x86/mm/mmap.c: top-down below the stack's gap, not randomized */
noinline void arch_pick_mmap_layout(struct mm_struct *mm, void *rlim_stack)
{
	mm->mmap_base = STACK_TOP - (128UL << 20);
}

noinline void setup_new_exec(struct linux_binprm *bprm)
{
	struct mm_struct *mm = current->mm;

	arch_pick_mmap_layout(mm, NULL);
	mm->task_size = TASK_SIZE_MAX;
	up_write(&current->signal->exec_update_lock);
	mutex_unlock(&current->signal->cred_guard_mutex);
}

/* The stack VMA as the program starts with it: 128 KiB made room for below its contents. */
noinline int setup_arg_pages(struct linux_binprm *bprm, unsigned long stack_top, int executable_stack)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = bprm->vma;
	unsigned long stack_base;

	/* built where it runs (stack_top is STACK_TOP, not randomized): no shift */
	mm->arg_start = bprm->p;
	mmap_write_lock(mm);
	stack_base = vma->vm_start - 131072UL;
	if (vma->vm_end - stack_base > (8UL << 20))
		stack_base = vma->vm_end - (8UL << 20);
	expand_stack_locked(vma, stack_base);
	mm->start_stack = bprm->p;
	mmap_write_unlock(mm);
	return 0;
}

void finalize_exec(struct linux_binprm *bprm)
{
}

static __always_inline int exec_binprm(struct linux_binprm *bprm)
{
	pid_t old_pid = current->pid;
	int ret;

	/* search_binary_handler(): ELF is the one format */
	ret = security_bprm_check(bprm);
	if (ret)
		return ret;
	ret = load_elf_binary(bprm);
	if (ret < 0)
		return ret;
	trace_sched_process_exec(current, old_pid, bprm->filename);
	return 0;
}

/* the credentials the program will run with, from the caller's (6.1's, inline); the group's
 * cred_guard_mutex held until they are in (setup_new_exec) or given up (free_bprm), so that
 * no other exec of the group computes its own meanwhile */
static inline int prepare_bprm_creds(struct linux_binprm *bprm)
{
	if (mutex_lock_interruptible(&current->signal->cred_guard_mutex))
		return -ERESTARTNOINTR;
	bprm->cred = prepare_exec_creds();
	if (bprm->cred)
		return 0;
	mutex_unlock(&current->signal->cred_guard_mutex);
	return -ENOMEM;
}

noinline int bprm_execve(struct linux_binprm *bprm)
{
	int retval = prepare_bprm_creds(bprm);

	if (retval)
		return retval;
	retval = security_bprm_creds_for_exec(bprm);
	if (retval)
		return retval;
	return exec_binprm(bprm);
}

/* what an exec that did not replace the task leaves: the new address space, the file */
static noinline void free_bprm(struct linux_binprm *bprm)
{
	if (bprm->mm) {	/* not taken: the old address space stays */
		acct_arg_size(bprm, 0);
		mmput(bprm->mm);
	}
	if (bprm->cred) {	/* not committed */
		mutex_unlock(&current->signal->cred_guard_mutex);
		abort_creds(bprm->cred);
	}
	if (bprm->file)
		fput(bprm->file);
	kfree(bprm->fdpath);
	kfree(bprm);
}

/* the exec's state and its new address space (its stack's first page) */
static noinline struct linux_binprm *alloc_bprm(int fd, const char *filename)
{
	struct linux_binprm *bprm = kzalloc(sizeof(*bprm), GFP_KERNEL);
	int retval = -ENOMEM;

	if (!bprm)
		goto out;
	/* the name the program gets (AT_EXECFN, its comm): a relative one through a directory
	 * fd, or the fd's own file, is /dev/fd/N[/NAME] */
	if (fd == AT_FDCWD || filename[0] == '/') {
		bprm->filename = filename;
	} else {
		size_t len = strlen(filename) + 32;

		bprm->fdpath = kmalloc(len, GFP_KERNEL);
		if (!bprm->fdpath)
			goto out_free;
		if (filename[0] == '\0')
			scnprintf(bprm->fdpath, len, "/dev/fd/%d", fd);
		else
			scnprintf(bprm->fdpath, len, "/dev/fd/%d/%s", fd, filename);
		bprm->filename = bprm->fdpath;
	}
	retval = bprm_mm_init(bprm);
	if (retval)
		goto out_free;
	return bprm;
out_free:
	free_bprm(bprm);
out:
	return ERR_PTR(retval);
}

static noinline int do_execveat_common(int fd, const char *filename, const char *const *argv,
				       const char *const *envp, int flags, bool from_user, char *interp)
{
	struct linux_binprm *bprm = alloc_bprm(fd, filename);
	loff_t pos;
	int retval;

	if (IS_ERR(bprm))
		return PTR_ERR(bprm);
	bprm->file = open_exec(fd, filename, flags);
	if (IS_ERR(bprm->file)) {
		retval = PTR_ERR(bprm->file);
		bprm->file = NULL;
		goto out_free;
	}
	pos = 0;
	retval = kernel_read(bprm->file, bprm->buf, BINPRM_BUF_SIZE, &pos);
	if (retval < 0)
		goto out_free;
	retval = bprm->argc = count(argv, from_user);
	if (retval < 0)
		goto out_free;
	retval = bprm->envc = count(envp, from_user);
	if (retval < 0)
		goto out_free;
	/* the file name exec was given, then envp, then argv, downwards */
	retval = copy_string_kernel(bprm->filename, bprm);
	if (retval < 0)
		goto out_free;
	bprm->exec = bprm->p;
	retval = from_user ? copy_strings(bprm->envc, envp, true, bprm) : copy_strings_kernel(bprm->envc, envp, bprm);
	if (retval < 0)
		goto out_free;
	retval = from_user ? copy_strings(bprm->argc, argv, true, bprm) : copy_strings_kernel(bprm->argc, argv, bprm);
	if (retval < 0)
		goto out_free;
	retval = bprm_execve(bprm);
	if (retval == -ENOEXEC && interp)
		memcpy(interp, bprm->interp, sizeof(bprm->interp));
out_free:
	free_bprm(bprm);
	return retval;
}

/* From a kernel thread (init, a program the host asked for): becomes a user process when
 * its fn returns, through regs. argv: NULL-terminated, in the kernel. */
int kernel_execve(const char *filename, const char *const *argv, struct pt_regs *regs, char *interp)
{
	const char *const envp[] = { NULL };

	return do_execveat_common(AT_FDCWD, filename, argv, envp, 0, false, interp);
}

SYSCALL_DEFINE3(execve, const char *, filename, const char *const *, argv, const char *const *, envp)
{
	char path[256];
	long ret;

	ret = strncpy_from_user(path, filename, sizeof(path));
	if (ret < 0 || ret == sizeof(path))
		return ret < 0 ? ret : -ENAMETOOLONG;
	if (current->session)	/* a host program: exec'd here when it was on the host */
		return session_execve(path);
	return do_execveat_common(AT_FDCWD, path, argv, envp, 0, true, NULL);
}

/* execve relative to a directory fd (fexecve: the fd's own file, AT_EMPTY_PATH) */
SYSCALL_DEFINE5(execveat, int, fd, const char *, filename, const char *const *, argv,
		const char *const *, envp, int, flags)
{
	struct filename *name = getname_uflags(filename, flags);
	long ret;

	if (current->session) {	/* a host program: exec'd here when it was on the host */
		ret = session_execve(IS_ERR(name) ? "" : name->name);
		/* a failure the supervisor could only guess at (its guess looks at a path, not at
		 * the fd and flags): this kernel's own refusal where it has one */
		if (ret < 0 && IS_ERR(name))
			ret = PTR_ERR(name);
		else if (ret < 0 && (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)))
			ret = -EINVAL;
	} else {
		ret = IS_ERR(name) ? PTR_ERR(name) : do_execveat_common(fd, name->name, argv, envp, flags, true, NULL);
	}
	if (!IS_ERR(name))
		putname(name);
	return ret;
}
