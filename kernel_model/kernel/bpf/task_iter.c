/*
 * The "task" and "task_file" iterators (6.1's kernel/bpf/task_iter.c): each task by pid (a
 * link's iter_info may name one task, tid, or one process's threads, pid or pid_fd), and each
 * open file of each task, the threads that share their process's files table skipped.
 *
 * This kernel's tasks have no usage count: where 6.1 takes a reference on the task it shows
 * (get_pid_task(), put_task_struct()), the iterator keeps preemption off, so that no grace
 * period can end and the task, freed only after one (put_task_struct_rcu_user()), stays.  It
 * finds the task under sched_lock, as /proc does; a file it shows holds a reference.
 */
#include "../../include/bpf.h"
#include "../../include/bpf_verifier.h"
#include "../../include/fs.h"

struct bpf_iter_seq_task_common {
	enum bpf_iter_task_type type;
	u32 pid;
};

struct bpf_iter_seq_task_info {
	/* The first field must be struct bpf_iter_seq_task_common (init_seq_pidns()) */
	struct bpf_iter_seq_task_common common;
	u32 tid;
};

/* the task the iterator shows stays until put (the reference 6.1 takes) */
static struct task_struct *task_iter_hold(struct task_struct *task)
{
	preempt_disable();
	return task;
}

static void task_iter_put(struct task_struct *task)
{
	preempt_enable();
}

static bool thread_group_leader(const struct task_struct *task)
{
	return task->group_leader == task;
}

/* find_ge_pid() and get_pid_task(): the live task of the lowest pid >= nr that the iterator's
 * type takes (sched_lock held); the threads that share their leader's files table skipped for
 * task_file */
static notrace struct task_struct *find_ge_task(const struct bpf_iter_seq_task_common *common, u32 nr,
					bool skip_if_dup_files)
{
	struct task_struct *t, *found = NULL;

	list_for_each_entry(t, &task_list, tasks) {
		if (t->pid <= 0 || (u32)t->pid < nr || (found && t->pid > found->pid))
			continue;
		if (common->type == BPF_TASK_ITER_TID && (u32)t->pid != common->pid)
			continue;
		if (common->type == BPF_TASK_ITER_TGID && (u32)t->tgid != common->pid)
			continue;
		if (skip_if_dup_files && !thread_group_leader(t) && t->group_leader && t->files == t->group_leader->files)
			continue;
		found = t;
	}
	return found;
}

/* task_seq_get_next(): the task at *tid or after it (*tid set to its pid), held; NULL at the end */
static noinline struct task_struct *task_seq_get_next(struct bpf_iter_seq_task_common *common, u32 *tid)
{
	struct task_struct *task;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);
	task = find_ge_task(common, *tid, false);
	if (task) {
		*tid = task->pid;
		task_iter_hold(task);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	return task;
}

static void *task_seq_start(struct seq_file *seq, loff_t *pos)
{
	struct bpf_iter_seq_task_info *info = seq->private;
	struct task_struct *task;

	task = task_seq_get_next(&info->common, &info->tid);
	if (!task)
		return NULL;
	if (*pos == 0)
		++*pos;
	return task;
}

static void *task_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct bpf_iter_seq_task_info *info = seq->private;

	++*pos;
	++info->tid;
	task_iter_put((struct task_struct *)v);
	return task_seq_get_next(&info->common, &info->tid);
}

struct bpf_iter__task {
	__bpf_md_ptr(struct bpf_iter_meta *, meta);
	__bpf_md_ptr(struct task_struct *, task);
};

DEFINE_BPF_ITER_FUNC(task, struct bpf_iter_meta *meta, struct task_struct *task)

static int __task_seq_show(struct seq_file *seq, struct task_struct *task, bool in_stop)
{
	struct bpf_iter_meta meta;
	struct bpf_iter__task ctx;
	struct bpf_prog *prog;

	meta.seq = seq;
	prog = bpf_iter_get_info(&meta, in_stop);
	if (!prog)
		return 0;
	ctx.meta = &meta;
	ctx.task = task;
	return bpf_iter_run_prog(prog, &ctx);
}

static int task_seq_show(struct seq_file *seq, void *v)
{
	return __task_seq_show(seq, v, false);
}

static void task_seq_stop(struct seq_file *seq, void *v)
{
	if (!v)
		(void)__task_seq_show(seq, v, true);
	else
		task_iter_put((struct task_struct *)v);
}

/* bpf_iter_attach_task(): every task, or the one iter_info's tid names, or the threads of its
 * pid (or pid_fd's process): at most one of them */
static int bpf_iter_attach_task(struct bpf_prog *prog, union bpf_iter_link_info *linfo, struct bpf_iter_aux_info *aux)
{
	if ((!!linfo->task.tid + !!linfo->task.pid + !!linfo->task.pid_fd) > 1)
		return -EINVAL;
	aux->task.type = BPF_TASK_ITER_ALL;
	if (linfo->task.tid != 0) {
		aux->task.type = BPF_TASK_ITER_TID;
		aux->task.pid = linfo->task.tid;
	}
	if (linfo->task.pid != 0) {
		aux->task.type = BPF_TASK_ITER_TGID;
		aux->task.pid = linfo->task.pid;
	}
	if (linfo->task.pid_fd != 0)
		return -EBADF;	/* pidfd_get_pid(): no file is a pidfd here (pidfd_open is not modelled) */
	return 0;
}

static const struct seq_operations task_seq_ops = {
	.start	= task_seq_start,
	.next	= task_seq_next,
	.stop	= task_seq_stop,
	.show	= task_seq_show,
};

struct bpf_iter_seq_task_file_info {
	/* The first field must be struct bpf_iter_seq_task_common (init_seq_pidns()) */
	struct bpf_iter_seq_task_common common;
	struct task_struct *task;	/* held while the file is shown */
	u32 tid;
	u32 fd;
};

/* task_lookup_next_fd_rcu() and get_file_rcu(): the task's open file at *fd or after it, a
 * reference (sched_lock held: the task's files table stays, exit_files() takes it to let go) */
static struct file *task_lookup_next_fd(struct task_struct *task, u32 *fd)
{
	struct files_struct *files = task->files;
	struct file *file = NULL;
	struct fdtable *fdt;
	u32 nr;

	if (!files)
		return NULL;
	spin_lock(&files->file_lock);
	fdt = files->fdt;
	for (nr = *fd; nr < fdt->max_fds; nr++) {
		if (fdt->fd[nr]) {
			file = get_file(fdt->fd[nr]);
			*fd = nr;
			break;
		}
	}
	spin_unlock(&files->file_lock);
	return file;
}

/* task_file_seq_get_next(): the next open file from info's task and fd on, its task held in
 * info->task; NULL (nothing held) at the end */
static struct file *task_file_seq_get_next(struct bpf_iter_seq_task_file_info *info)
{
	struct task_struct *task;
	unsigned long flags;
	struct file *file;
	u32 curr_fd = info->fd;

	spin_lock_irqsave(&sched_lock, flags);
	for (;;) {
		task = find_ge_task(&info->common, info->tid, true);
		if (!task)
			break;
		if ((u32)task->pid != info->tid) {	/* a task of its own: its files from 0 */
			info->tid = task->pid;
			curr_fd = 0;
		}
		file = task_lookup_next_fd(task, &curr_fd);
		if (file) {
			info->fd = curr_fd;
			info->task = task_iter_hold(task);
			spin_unlock_irqrestore(&sched_lock, flags);
			return file;
		}
		/* the current task is done, go to the next task */
		if (info->common.type == BPF_TASK_ITER_TID)
			break;
		info->tid++;
		curr_fd = 0;
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	info->task = NULL;
	info->fd = 0;
	return NULL;
}

static void *task_file_seq_start(struct seq_file *seq, loff_t *pos)
{
	struct bpf_iter_seq_task_file_info *info = seq->private;
	struct file *file;

	info->task = NULL;
	file = task_file_seq_get_next(info);
	if (file && *pos == 0)
		++*pos;
	return file;
}

/* the task is let go before the file (whose last reference may be this one: its release
 * must not run with preemption off) */
static void task_file_seq_put(struct bpf_iter_seq_task_file_info *info, struct file *file)
{
	task_iter_put(info->task);
	info->task = NULL;
	fput(file);
}

static void *task_file_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct bpf_iter_seq_task_file_info *info = seq->private;

	++*pos;
	++info->fd;
	task_file_seq_put(info, v);
	return task_file_seq_get_next(info);
}

struct bpf_iter__task_file {
	__bpf_md_ptr(struct bpf_iter_meta *, meta);
	__bpf_md_ptr(struct task_struct *, task);
	u32 fd __aligned(8);
	__bpf_md_ptr(struct file *, file);
};

DEFINE_BPF_ITER_FUNC(task_file, struct bpf_iter_meta *meta, struct task_struct *task, u32 fd, struct file *file)

static int __task_file_seq_show(struct seq_file *seq, struct file *file, bool in_stop)
{
	struct bpf_iter_seq_task_file_info *info = seq->private;
	struct bpf_iter__task_file ctx;
	struct bpf_iter_meta meta;
	struct bpf_prog *prog;

	meta.seq = seq;
	prog = bpf_iter_get_info(&meta, in_stop);
	if (!prog)
		return 0;
	ctx.meta = &meta;
	ctx.task = info->task;
	ctx.fd = info->fd;
	ctx.file = file;
	return bpf_iter_run_prog(prog, &ctx);
}

static int task_file_seq_show(struct seq_file *seq, void *v)
{
	return __task_file_seq_show(seq, v, false);
}

static void task_file_seq_stop(struct seq_file *seq, void *v)
{
	struct bpf_iter_seq_task_file_info *info = seq->private;

	if (!v)
		(void)__task_file_seq_show(seq, v, true);
	else
		task_file_seq_put(info, v);
}

/* init_seq_pidns(): what the link says the iterator walks (one pid namespace here) */
static int init_seq_pidns(void *priv_data, struct bpf_iter_aux_info *aux)
{
	struct bpf_iter_seq_task_common *common = priv_data;

	common->type = aux->task.type;
	common->pid = aux->task.pid;
	return 0;
}

static const struct seq_operations task_file_seq_ops = {
	.start	= task_file_seq_start,
	.next	= task_file_seq_next,
	.stop	= task_file_seq_stop,
	.show	= task_file_seq_show,
};

static const struct bpf_iter_seq_info task_seq_info = {
	.seq_ops		= &task_seq_ops,
	.init_seq_private	= init_seq_pidns,
	.seq_priv_size		= sizeof(struct bpf_iter_seq_task_info),
};

/* bpf_iter_fill_link_info(): the task or process a link's iterator is limited to */
static int bpf_iter_fill_link_info(const struct bpf_iter_aux_info *aux, struct bpf_link_info *info)
{
	switch (aux->task.type) {
	case BPF_TASK_ITER_TID:
		info->iter.task.tid = aux->task.pid;
		break;
	case BPF_TASK_ITER_TGID:
		info->iter.task.pid = aux->task.pid;
		break;
	default:
		break;
	}
	return 0;
}

static struct bpf_iter_reg task_reg_info = {
	.target			= "task",
	.attach_target		= bpf_iter_attach_task,
	.fill_link_info		= bpf_iter_fill_link_info,
	.ctx_arg_info_size	= 1,
	.ctx_arg_info		= {
		{ offsetof(struct bpf_iter__task, task), PTR_TO_BTF_ID | PTR_MAYBE_NULL, 0, "task_struct" },
	},
	.seq_info		= &task_seq_info,
};

static const struct bpf_iter_seq_info task_file_seq_info = {
	.seq_ops		= &task_file_seq_ops,
	.init_seq_private	= init_seq_pidns,
	.seq_priv_size		= sizeof(struct bpf_iter_seq_task_file_info),
};

static struct bpf_iter_reg task_file_reg_info = {
	.target			= "task_file",
	.attach_target		= bpf_iter_attach_task,
	.fill_link_info		= bpf_iter_fill_link_info,
	.ctx_arg_info_size	= 2,
	.ctx_arg_info		= {
		{ offsetof(struct bpf_iter__task_file, task), PTR_TO_BTF_ID | PTR_MAYBE_NULL, 0, "task_struct" },
		{ offsetof(struct bpf_iter__task_file, file), PTR_TO_BTF_ID | PTR_MAYBE_NULL, 0, "file" },
	},
	.seq_info		= &task_file_seq_info,
};

/* task_iter_init() (a late_initcall in 6.1): the targets */
void __init task_iter_init(void)
{
	bpf_iter_reg_target(&task_reg_info);
	bpf_iter_reg_target(&task_file_reg_info);
}
