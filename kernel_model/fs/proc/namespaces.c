/*
 * /proc/PID/ns/ (fs/proc/namespaces.c): a link per kind of namespace, in 6.1's order, whose
 * readlink names the task's namespace as fs/nsfs.c's ns_get_name() does: "mnt:[4026531841]".
 * Following one is ENOENT here: its target is an nsfs inode, and there is no nsfs (so no
 * setns(2) through them either).
 */
#include "internal.h"
#include "../../include/nsproxy.h"
#include "../../include/ptrace.h"

static const struct proc_ns_operations *const ns_entries[] = {
	&netns_operations,
	&utsns_operations,
	&ipcns_operations,
	&pidns_operations,
	&pidns_for_children_operations,
	&userns_operations,
	&mntns_operations,
	&cgroupns_operations,
	&timens_operations,
	&timens_for_children_operations,
};

/* "name:[inum]" of the task's namespace of the kind; -ENOENT once it has none (fs/nsfs.c) */
static noinline int ns_get_name(char *buf, size_t size, struct task_struct *task,
				const struct proc_ns_operations *ns_ops)
{
	struct ns_common *ns = ns_ops->get(task);

	if (!ns)
		return -ENOENT;
	return scnprintf(buf, size, "%s:[%u]", ns_ops->real_ns_name ? ns_ops->real_ns_name : ns_ops->name,
			 ns->inum);
}

static noinline const char *proc_ns_get_link(struct dentry *dentry, struct inode *inode, char *buf)
{
	return (void *)(long)-ENOENT;	/* (ns_get_path(): no nsfs) */
}

/* Who may read it: ptrace_may_access(PTRACE_MODE_READ_FSCREDS), else EACCES */
static noinline int proc_ns_readlink(struct dentry *dentry, char *buffer, int buflen)
{
	const struct proc_ns_operations *ns_ops = dentry->d_inode->i_entry;
	struct task_struct *task;
	unsigned long irq;
	char name[50];
	int res = -EACCES;

	task = get_proc_task_locked(dentry->d_inode, &irq);
	if (!task)
		return res;
	if (ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS))
		res = ns_get_name(name, sizeof(name), task, ns_ops);
	spin_unlock_irqrestore(&sched_lock, irq);
	if (res >= 0)
		res = readlink_copy(buffer, buflen, name);
	return res;
}

static const struct inode_operations proc_ns_link_inode_operations = {
	.readlink = proc_ns_readlink,
	.get_link = proc_ns_get_link,
	.setattr = proc_setattr,
};

static noinline struct dentry *proc_ns_instantiate(struct dentry *dentry, pid_t pid, const void *ptr)
{
	struct inode *inode = proc_pid_make_inode(dentry->d_sb, pid, S_IFLNK | 0777);

	if (!inode)
		return (void *)(long)-ENOENT;
	inode->i_entry = ptr;	/* (6.1: PROC_I(inode)->ns_ops) */
	inode->i_op = &proc_ns_link_inode_operations;
	d_set_d_op(dentry, &proc_pid_dentry_operations);
	d_add(dentry, inode);
	return NULL;
}

/* ".", "..", then a link per kind */
static noinline int proc_ns_dir_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *inode = file->f_inode;
	unsigned long irq;

	if (!get_proc_task_locked(inode, &irq))
		return -ENOENT;
	spin_unlock_irqrestore(&sched_lock, irq);
	if (!dir_emit_dots(file, ctx))
		return 0;
	for (; ctx->pos < (loff_t)ARRAY_SIZE(ns_entries) + 2; ctx->pos++) {
		const struct proc_ns_operations *ops = ns_entries[ctx->pos - 2];

		if (!proc_fill_cache(file, ctx, ops->name, strlen(ops->name), proc_ns_instantiate,
				     PROC_I_PID(inode), ops))
			break;
	}
	return 0;
}

static noinline struct dentry *proc_ns_dir_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	unsigned long irq;
	size_t i;

	if (!get_proc_task_locked(dir, &irq))
		return (void *)(long)-ENOENT;
	spin_unlock_irqrestore(&sched_lock, irq);
	for (i = 0; i < ARRAY_SIZE(ns_entries); i++)
		if (!strcmp(ns_entries[i]->name, (const char *)dentry->d_name.name))
			return proc_ns_instantiate(dentry, PROC_I_PID(dir), ns_entries[i]);
	return (void *)(long)-ENOENT;
}

const struct file_operations proc_ns_dir_operations = {
	.read = generic_read_dir,
	.iterate_shared = proc_ns_dir_readdir,
	.llseek = generic_file_llseek,
};

const struct inode_operations proc_ns_dir_inode_operations = {
	.lookup = proc_ns_dir_lookup,
	.getattr = pid_getattr,
	.setattr = proc_setattr,
};
