/*
 * procfs's root (Linux's fs/proc/root.c, generic.c and the files it holds): the per-process
 * directories (base.c), "self", and the system files: version, uptime, stat, loadavg,
 * filesystems, meminfo, mounts (a link to self/mounts), sysvipc (ipc/proc.c).
 */
#include "../../include/cputime.h"
#include "internal.h"
#include "../../include/syslog.h"
#include "../../include/filelock.h"
#include "../../include/loadavg.h"
#include "../../include/mm.h"

struct super_block *proc_sb;

static int uptime_proc_show(struct seq_file *m, void *v)
{
	u64 ns = ktime_get_with_offset(TK_OFFS_BOOT), idle = 0;	/* (ktime_get_boottime_ts64()) */
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu_data[cpu].rq.idle)
			idle += cpu_data[cpu].rq.idle->sum_exec_runtime;
	seq_printf(m, "%lu.%02lu %lu.%02lu\n", ns / 1000000000UL, (ns / 10000000UL) % 100,
		   idle / 1000000000UL, (idle / 10000000UL) % 100);
	return 0;
}

/* a cpu line of /proc/stat ("cpu " the sum, "cpuN" each): the counters in USER_HZ
 * (nsec_to_clock_t) */
static notrace void show_cpustat(struct seq_file *m, int cpu, const u64 *cpustat)
{
	static const u8 order[NR_STATS] = { CPUTIME_USER, CPUTIME_NICE, CPUTIME_SYSTEM, CPUTIME_IDLE,
					    CPUTIME_IOWAIT, CPUTIME_IRQ, CPUTIME_SOFTIRQ, CPUTIME_STEAL,
					    CPUTIME_GUEST, CPUTIME_GUEST_NICE };
	int i;

	if (cpu < 0)
		seq_puts(m, "cpu ");
	else
		seq_printf(m, "cpu%d", cpu);
	for (i = 0; i < NR_STATS; i++)
		seq_printf(m, " %lu", nsec_to_clock_t(cpustat[order[i]]));
	seq_putc(m, '\n');
}

static int show_stat(struct seq_file *m, void *v)
{
	u64 irqs = 0, sum[NR_STATS] = { 0 };
	struct task_struct *t;
	unsigned long flags;
	int cpu, i, running = 0, total = 0;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		irqs += cpu_data[cpu].stat_irqs;
		for (i = 0; i < NR_STATS; i++)
			sum[i] += kernel_cpustat[cpu].cpustat[i];
	}
	show_cpustat(m, -1, sum);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		show_cpustat(m, cpu, kernel_cpustat[cpu].cpustat);
	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks) {
		total++;
		running += t->__state == TASK_RUNNING && !(t->flags & PF_IDLE);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	seq_printf(m, "intr %lu\nctxt %lu\nbtime 0\nprocesses %d\nprocs_running %d\nprocs_blocked 0\n",
		   irqs, nr_context_switches(), total, running);
	return 0;
}

static int version_proc_show(struct seq_file *m, void *v)
{
	struct new_utsname *uts = &init_uts_ns.name;

	seq_printf(m, linux_proc_banner, uts->sysname, uts->release, uts->version);
	return 0;
}

static int loadavg_proc_show(struct seq_file *m, void *v)
{
	struct task_struct *t;
	unsigned long flags;
	int running = 0, total = 0, last = 0;
	unsigned long avnrun[3];

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks) {
		total++;
		running += t->__state == TASK_RUNNING;
		last = max(last, t->pid);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	get_avenrun(avnrun, FIXED_1 / 200, 0);	/* rounded to hundredths */
	seq_printf(m, "%lu.%02lu %lu.%02lu %lu.%02lu %d/%d %d\n",
		   LOAD_INT(avnrun[0]), LOAD_FRAC(avnrun[0]), LOAD_INT(avnrun[1]), LOAD_FRAC(avnrun[1]),
		   LOAD_INT(avnrun[2]), LOAD_FRAC(avnrun[2]), running, total, last);
	return 0;
}

static int meminfo_proc_show(struct seq_file *m, void *v)
{
	struct sysinfo i;

	si_meminfo(&i);
	seq_printf(m, "MemTotal:       %8lu kB\n", i.totalram << (PAGE_SHIFT - 10));
	seq_printf(m, "MemFree:        %8lu kB\n", i.freeram << (PAGE_SHIFT - 10));
	return 0;
}

static const char *proc_self_get_link(struct dentry *dentry, struct inode *inode, char *buf)
{
	scnprintf(buf, PATH_MAX, "%d", current->tgid);
	return buf;
}

static notrace const char *proc_mounts_link(struct dentry *dentry, struct inode *inode, char *buf)
{
	return "self/mounts";
}

static const struct pid_entry proc_root_entries[] = {
	{ "filesystems", S_IFREG | 0444, filesystems_proc_show },
	{ "kmsg", S_IFREG | 0400, NULL, NULL, NULL, &proc_kmsg_operations },
	{ "loadavg", S_IFREG | 0444, loadavg_proc_show },
	{ "locks", S_IFREG | 0444, NULL, NULL, NULL, &proc_locks_operations },
	{ "meminfo", S_IFREG | 0444, meminfo_proc_show },
	{ "mounts", S_IFLNK | 0777, NULL, proc_mounts_link },
	{ "self", S_IFLNK | 0777, NULL, proc_self_get_link },
	{ "stat", S_IFREG | 0444, show_stat },
	{ "sysvipc", S_IFDIR | 0555, NULL, NULL, &proc_sysvipc_inode_operations, &proc_sysvipc_operations },
	{ "uptime", S_IFREG | 0444, uptime_proc_show },
	{ "version", S_IFREG | 0444, version_proc_show },
};

static unsigned int proc_next_ino = 0x1000;

notrace noinline struct inode *proc_make_inode(struct super_block *sb, umode_t mode, unsigned long ino)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = ino ? ino : __atomic_add_fetch(&proc_next_ino, 1, __ATOMIC_RELAXED);
	inode->i_mode = mode;
	if (S_ISDIR(mode))
		set_nlink(inode, 2);
	return inode;
}

static notrace const char *proc_entry_get_link(struct dentry *dentry, struct inode *inode, char *buf)
{
	const struct pid_entry *p = inode->i_entry;

	return p->get_link(dentry, inode, buf);
}

static const struct inode_operations proc_entry_link_inode_operations = {
	.get_link = proc_entry_get_link,
};

/* A fixed entry's inode (the root's or a process's: private is then the pid). */
/* fs/proc/base.c: a file's attributes change, but for its mode (O_TRUNC of a writable one, as
 * `echo 500 > /proc/self/oom_score_adj` opens it, succeeds and truncates nothing) */
notrace int proc_setattr(struct dentry *dentry, struct iattr *attr)	/* (not traceable in 6.1) */
{
	int error;

	if (attr->ia_valid & ATTR_MODE)
		return -EPERM;
	error = setattr_prepare(NULL, dentry, attr);
	if (error)
		return error;
	setattr_copy(NULL, dentry->d_inode, attr);
	return 0;
}

static const struct inode_operations proc_file_inode_operations = {
	.setattr = proc_setattr,
};

struct dentry *proc_pident_instantiate(struct dentry *dentry, const struct pid_entry *p, void *private)
{
	struct inode *inode = proc_make_inode(dentry->d_sb, p->mode, 0);

	if (!inode)
		return (void *)(long)-ENOMEM;
	inode->i_private = private;
	inode->i_entry = p;
	if (S_ISREG(p->mode)) {
		inode->i_fop = p->fop ? p->fop : &proc_single_file_operations;
		inode->i_op = &proc_file_inode_operations;
	} else if (S_ISLNK(p->mode)) {
		inode->i_op = p->proc_get_link ? &proc_pid_link_inode_operations :
						  &proc_entry_link_inode_operations;
	} else {
		inode->i_op = p->iop;
		inode->i_fop = p->fop;
	}
	d_add(dentry, inode);
	return NULL;
}

static noinline struct dentry *proc_root_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(proc_root_entries); i++)
		if (!strcmp(proc_root_entries[i].name, (const char *)dentry->d_name.name))
			return proc_pident_instantiate(dentry, &proc_root_entries[i], NULL);
	return proc_pid_lookup(dentry, flags);
}

static noinline int proc_root_readdir(struct file *file, struct dir_context *ctx)
{
	size_t nr = ARRAY_SIZE(proc_root_entries);

	if (!dir_emit_dots(file, ctx))
		return 0;
	for (; ctx->pos < (loff_t)(nr + 2); ctx->pos++) {
		const struct pid_entry *p = &proc_root_entries[ctx->pos - 2];

		if (!ctx->actor(ctx, p->name, strlen(p->name), ctx->pos, 0x1000 + ctx->pos,
				fs_umode_to_dtype(p->mode)))
			return 0;
	}
	return proc_pid_readdir(file, ctx);
}

static int proc_root_getattr(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int query_flags)
{
	generic_fillattr(NULL, path->dentry->d_inode, stat);
	stat->nlink = 2 + ARRAY_SIZE(proc_root_entries);
	return 0;
}

static const struct file_operations proc_root_operations = {
	.read = generic_read_dir,
	.iterate_shared = proc_root_readdir,
	.llseek = default_llseek,
};

static const struct inode_operations proc_root_inode_operations = {
	.lookup = proc_root_lookup,
	.getattr = proc_root_getattr,
};

static const struct super_operations proc_sops = {
	.statfs = simple_statfs,
};

static int proc_fill_super(struct super_block *s, void *data)
{
	struct inode *root = proc_make_inode(s, S_IFDIR | 0555, PROC_ROOT_INO);

	if (!root)
		return -ENOMEM;
	s->s_iflags |= SB_I_NOEXEC;	/* (6.1's SB_I_USERNS_VISIBLE and SB_I_NODEV: no user namespaces or device checks here) */
	s->s_op = &proc_sops;
	root->i_op = &proc_root_inode_operations;
	root->i_fop = &proc_root_operations;
	s->s_d_op = &simple_dentry_operations;	/* every dentry goes at its last dput */
	s->s_root = d_make_root(root);
	proc_sb = s;
	return s->s_root ? 0 : -ENOMEM;
}

struct file_system_type proc_fs_type = {
	.name = "proc",
	.fill_super = proc_fill_super,
	.magic = PROC_SUPER_MAGIC,
};

void __init proc_root_init(void)
{
	register_filesystem(&proc_fs_type);
}
