/*
 * The per-process directories (Linux's fs/proc/base.c, array.c, fd.c): /proc/PID holds comm,
 * status, mounts, the cwd and root links, and fd/ (a link per open fd, named by d_path:
 * "/tmp/x", "pipe:[N]", "anon_inode:[eventpoll]").  A directory's dentry is valid while its
 * process lives (pid_revalidate).
 */
#include "../../include/cputime.h"
#include "internal.h"
#include "../../include/bitops.h"
#include "../../include/signal.h"
#include "../../include/mmap_lock.h"
#include "../../include/oom.h"
#include "../../include/cred.h"
#include "../../include/trace/trace.h"
#include "../../include/filelock.h"
#include "../../include/ptrace.h"
#include "../../include/stacktrace.h"
#include "../../include/kallsyms.h"
#include "../../include/sched_debug.h"

/* The task of a /proc/PID inode, with sched_lock held (NULL: gone, lock released). */
notrace noinline struct task_struct *get_proc_task_locked(struct inode *inode, unsigned long *flags)
{
	struct task_struct *t;

	spin_lock_irqsave(&sched_lock, *flags);
	t = find_task_by_pid(PROC_I_PID(inode));
	if (!t || t->exit_state == EXIT_DEAD) {
		spin_unlock_irqrestore(&sched_lock, *flags);
		return NULL;
	}
	return t;
}

/* The owner a /proc/PID inode shows: the task's effective ids (root for a kernel thread; the
 * dumpable check of a non-directory: every mm here is SUID_DUMP_USER) */
noinline void task_dump_owner(struct task_struct *task, umode_t mode, uid_t *ruid, gid_t *rgid)
{
	if (unlikely(task->flags & PF_KTHREAD)) {
		*ruid = 0;
		*rgid = 0;
		return;
	}
	*ruid = __task_cred(task)->euid;
	*rgid = __task_cred(task)->egid;
}

/* a /proc/PID inode's owner as its task's now (a setuid since the lookup) */
noinline void pid_update_inode(struct task_struct *task, struct inode *inode)
{
	task_dump_owner(task, inode->i_mode, &inode->i_uid, &inode->i_gid);
	inode->i_mode &= ~(S_ISUID | S_ISGID);
}

static noinline int pid_revalidate(struct dentry *dentry, unsigned int flags)
{
	unsigned long irq;
	struct task_struct *t = dentry->d_inode ? get_proc_task_locked(dentry->d_inode, &irq) : NULL;

	if (!t)
		return 0;
	pid_update_inode(t, dentry->d_inode);
	spin_unlock_irqrestore(&sched_lock, irq);
	return 1;
}

/* stat of a /proc/PID file: its task's owner */
noinline int pid_getattr(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int query_flags)
{
	struct inode *inode = path->dentry->d_inode;
	struct task_struct *task;
	unsigned long irq;

	generic_fillattr(NULL, inode, stat);
	stat->uid = 0;
	stat->gid = 0;
	task = get_proc_task_locked(inode, &irq);
	if (task) {
		task_dump_owner(task, inode->i_mode, &stat->uid, &stat->gid);
		spin_unlock_irqrestore(&sched_lock, irq);
	}
	return 0;
}

const struct dentry_operations proc_pid_dentry_operations = {
	.d_revalidate = pid_revalidate,
	.d_delete = always_delete_dentry,
};

static const char *const task_state_array[] = {
	"R (running)", "S (sleeping)", "D (disk sleep)", "T (stopped)", "t (tracing stop)",
	"X (dead)", "Z (zombie)", "P (parked)", "I (idle)",
};

static notrace const char *get_task_state(struct task_struct *tsk)
{
	unsigned int state = (READ_ONCE(tsk->__state) | tsk->exit_state) & TASK_REPORT;
	int i = 0;

	if ((READ_ONCE(tsk->__state) & TASK_IDLE) == TASK_IDLE)
		return task_state_array[8];
	while (state) {
		state >>= 1;
		i++;
	}
	return task_state_array[i];
}

/* The fields a show prints, copied out under sched_lock. */
struct task_snap {
	char comm[TASK_COMM_LEN];
	const char *state;
	pid_t pid, tgid, ppid, pgrp, sid;
	const struct cred *cred;	/* if asked for, a reference (get_task_cred()): put_cred() when done */
	int umask, fdsize, threads;
	u64 pending, blocked, ignored, caught;
	unsigned long qlim, qsize;
	unsigned long nvcsw, nivcsw;
};

/* the handlers ignoring and catching signals (collect_sigign_sigcatch()) */
static notrace void collect_sigign_sigcatch(struct task_struct *p, u64 *ign, u64 *catch)
{
	int i;

	*ign = *catch = 0;
	if (!p->sighand)
		return;
	for (i = 1; i <= 64; i++) {
		unsigned long h = (unsigned long)p->sighand->action[i - 1].sa_handler;

		if (h == (unsigned long)SIG_IGN)
			*ign |= 1UL << (i - 1);
		else if (h != (unsigned long)SIG_DFL)
			*catch |= 1UL << (i - 1);
	}
}

/* (inlined: its get_task_cred() is its caller's, the show's, as task_state()'s in 6.1) */
static __always_inline int snap_task(void *pid, struct task_snap *s, bool creds)
{
	struct task_struct *t;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);
	t = find_task_by_pid((pid_t)(long)pid);
	if (!t) {
		spin_unlock_irqrestore(&sched_lock, flags);
		return -ESRCH;
	}
	__get_task_comm(s->comm, TASK_COMM_LEN, t);	/* proc_task_name() */
	s->state = get_task_state(t);
	s->pid = t->pid;
	s->tgid = t->tgid;
	s->ppid = t->parent ? t->parent->tgid : 0;
	s->cred = creds ? get_task_cred(t) : NULL;
	s->umask = t->fs ? t->fs->umask : -1;
	s->fdsize = t->files ? t->files->fdt->max_fds : 0;
	s->threads = t->signal ? t->signal->nr_threads : 1;
	s->pgrp = t->pgrp;
	s->sid = t->sid;
	s->pending = t->pending;
	s->blocked = t->blocked;
	collect_sigign_sigcatch(t, &s->ignored, &s->caught);
	s->qlim = task_rlimit(t, RLIMIT_SIGPENDING);
	s->qsize = ucounts_sigpending(__task_cred(t)->uid);	/* the signals its user has queued */
	s->nvcsw = t->nvcsw;
	s->nivcsw = t->nivcsw;
	spin_unlock_irqrestore(&sched_lock, flags);
	return 0;
}

static int comm_show(struct seq_file *m, void *pid)
{
	struct task_snap s;
	int err = snap_task(pid, &s, false);

	if (err)
		return err;
	seq_printf(m, "%s\n", s.comm);
	return 0;
}

/* The command name, its special characters escaped (proc_task_name(m, p, true): ESCAPE_SPACE,
 * ESCAPE_SPECIAL and the newline and backslash, as octal or \n \t ...) */
noinline void proc_task_name(struct seq_file *m, const char *tcomm, bool escape)
{
	const unsigned char *c;

	for (c = (const unsigned char *)tcomm; *c; c++) {
		if (!escape || (*c > ' ' && *c < 0x7f && *c != '\\'))
			seq_putc(m, *c);
		else if (*c == '\n')
			seq_puts(m, "\\n");
		else if (*c == '\t')
			seq_puts(m, "\\t");
		else if (*c == '\\')
			seq_puts(m, "\\\\");
		else if (*c == ' ' || *c == '\v' || *c == '\f' || *c == '\r' || *c == '\a' || *c == '\e')
			seq_printf(m, "\\%c", *c == ' ' ? 's' : *c == '\v' ? 'v' : *c == '\f' ? 'f' :
				   *c == '\r' ? 'r' : *c == '\a' ? 'a' : 'e');
		else
			seq_printf(m, "\\%03o", *c);
	}
}

/* A signal set as 16 hex digits, the highest signals first */
noinline void render_sigset_t(struct seq_file *m, const char *header, u64 *set)
{
	int i = 64;

	seq_puts(m, header);
	do {
		i -= 4;
		seq_putc(m, "0123456789abcdef"[(*set >> i) & 0xf]);
	} while (i >= 4);
	seq_putc(m, '\n');
}

/* A capability set as 16 hex digits, the high word first */
static inline void render_cap_t(struct seq_file *m, const char *header, const kernel_cap_t *a)
{
	seq_printf(m, "%s%08x%08x\n", header, a->cap[1], a->cap[0]);
}

#define SEQ_PUT_DEC(str, val) seq_put_decimal_ull_width(m, str, (val) << (PAGE_SHIFT - 10), 8)
/* The address space's sizes in kB: its mappings (peak, total, locked, pinned, data, stack, text
 * and libraries), its resident pages and page tables */
noinline void task_mem(struct seq_file *m, struct mm_struct *mm)
{
	unsigned long text, lib, swap, anon, file, shmem;
	unsigned long hiwater_vm, total_vm, hiwater_rss, total_rss;

	anon = get_mm_counter(mm, MM_ANONPAGES);
	file = get_mm_counter(mm, MM_FILEPAGES);
	shmem = get_mm_counter(mm, MM_SHMEMPAGES);
	hiwater_vm = total_vm = mm->total_vm;
	if (hiwater_vm < mm->hiwater_vm)
		hiwater_vm = mm->hiwater_vm;
	hiwater_rss = total_rss = anon + file + shmem;
	if (hiwater_rss < mm->hiwater_rss)
		hiwater_rss = mm->hiwater_rss;
	text = ((mm->end_code + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1)) - (mm->start_code & ~(PAGE_SIZE - 1));
	text = min(text, mm->exec_vm << PAGE_SHIFT);
	lib = (mm->exec_vm << PAGE_SHIFT) - text;
	swap = get_mm_counter(mm, MM_SWAPENTS);
	SEQ_PUT_DEC("VmPeak:\t", hiwater_vm);
	SEQ_PUT_DEC(" kB\nVmSize:\t", total_vm);
	SEQ_PUT_DEC(" kB\nVmLck:\t", mm->locked_vm);
	SEQ_PUT_DEC(" kB\nVmPin:\t", (unsigned long)mm->pinned_vm);
	SEQ_PUT_DEC(" kB\nVmHWM:\t", hiwater_rss);
	SEQ_PUT_DEC(" kB\nVmRSS:\t", total_rss);
	SEQ_PUT_DEC(" kB\nRssAnon:\t", anon);
	SEQ_PUT_DEC(" kB\nRssFile:\t", file);
	SEQ_PUT_DEC(" kB\nRssShmem:\t", shmem);
	SEQ_PUT_DEC(" kB\nVmData:\t", mm->data_vm);
	SEQ_PUT_DEC(" kB\nVmStk:\t", mm->stack_vm);
	seq_put_decimal_ull_width(m, " kB\nVmExe:\t", text >> 10, 8);
	seq_put_decimal_ull_width(m, " kB\nVmLib:\t", lib >> 10, 8);
	seq_put_decimal_ull_width(m, " kB\nVmPTE:\t", mm_pgtables_bytes(mm) >> 10, 8);
	SEQ_PUT_DEC(" kB\nVmSwap:\t", swap);
	seq_puts(m, " kB\n");
}

static struct mm_struct *get_pid_task_mm(pid_t pid);

/* fs/proc/task_mmu.c: statm's sizes in pages; the total */
noinline unsigned long task_statm(struct mm_struct *mm, unsigned long *shared, unsigned long *text,
				  unsigned long *data, unsigned long *resident)
{
	*shared = get_mm_counter(mm, MM_FILEPAGES) + get_mm_counter(mm, MM_SHMEMPAGES);
	*text = (((mm->end_code + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1)) - (mm->start_code & ~(PAGE_SIZE - 1))) >> PAGE_SHIFT;
	*data = mm->data_vm + mm->stack_vm;
	*resident = *shared + get_mm_counter(mm, MM_ANONPAGES);
	return mm->total_vm;
}

/* /proc/PID/statm (fs/proc/array.c): size resident shared text lib data dt, in pages (lib and
 * dt are always 0 since 2.6) */
static noinline int proc_pid_statm(struct seq_file *m, void *pid)
{
	unsigned long size = 0, resident = 0, shared = 0, text = 0, data = 0;
	struct mm_struct *mm = get_pid_task_mm((pid_t)(long)pid);

	if (mm) {
		size = task_statm(mm, &shared, &text, &data, &resident);
		mmput(mm);
	}
	seq_put_decimal_ull(m, "", size);
	seq_put_decimal_ull(m, " ", resident);
	seq_put_decimal_ull(m, " ", shared);
	seq_put_decimal_ull(m, " ", text);
	seq_put_decimal_ull(m, " ", 0);
	seq_put_decimal_ull(m, " ", data);
	seq_put_decimal_ull(m, " ", 0);
	seq_putc(m, '\n');
	return 0;
}

/* /proc/PID/limits: each resource limit's soft and hard values, as getrlimit gives them */
static const struct limit_names { const char *name, *unit; } lnames[16] = {
	{ "Max cpu time", "seconds" },
	{ "Max file size", "bytes" },
	{ "Max data size", "bytes" },
	{ "Max stack size", "bytes" },
	{ "Max core file size", "bytes" },
	{ "Max resident set", "bytes" },
	{ "Max processes", "processes" },
	{ "Max open files", "files" },
	{ "Max locked memory", "bytes" },
	{ "Max address space", "bytes" },
	{ "Max file locks", "locks" },
	{ "Max pending signals", "signals" },
	{ "Max msgqueue size", "bytes" },
	{ "Max nice priority", NULL },
	{ "Max realtime priority", NULL },
	{ "Max realtime timeout", "us" },
};

static noinline int proc_pid_limits(struct seq_file *m, void *pid)
{
	unsigned long cur[ARRAY_SIZE(lnames)], max[ARRAY_SIZE(lnames)], flags;
	struct task_struct *task;
	unsigned int i;

	spin_lock_irqsave(&sched_lock, flags);	/* (6.1: lock_task_sighand) */
	task = find_task_by_pid((pid_t)(long)pid);
	if (!task) {
		spin_unlock_irqrestore(&sched_lock, flags);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(lnames); i++) {
		cur[i] = task_rlimit(task, i);
		max[i] = task_rlimit_max(task, i);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	seq_puts(m, "Limit                     Soft Limit           Hard Limit           Units     \n");
	for (i = 0; i < ARRAY_SIZE(lnames); i++) {
		if (cur[i] == ~0UL)	/* RLIM_INFINITY */
			seq_printf(m, "%-25s %-20s ", lnames[i].name, "unlimited");
		else
			seq_printf(m, "%-25s %-20lu ", lnames[i].name, cur[i]);
		if (max[i] == ~0UL)
			seq_printf(m, "%-20s ", "unlimited");
		else
			seq_printf(m, "%-20lu ", max[i]);
		if (lnames[i].unit)
			seq_printf(m, "%-10s\n", lnames[i].unit);
		else
			seq_putc(m, '\n');
	}
	return 0;
}

/* /proc/PID/status as 6.1's fs/proc/array.c: task_state, task_mem, task_sig, task_cap,
 * task_context_switch_counts (no seccomp or cpu list lines yet) */
noinline int proc_pid_status(struct seq_file *m, void *pid)
{
	struct mm_struct *mm;
	struct task_snap s;
	int err = snap_task(pid, &s, true), g;

	if (err)
		return err;
	seq_puts(m, "Name:\t");
	proc_task_name(m, s.comm, true);
	seq_putc(m, '\n');
	/* task_state() */
	if (s.umask >= 0)
		seq_printf(m, "Umask:\t%04o\n", s.umask);
	seq_puts(m, "State:\t");
	seq_puts(m, s.state);
	seq_put_decimal_ull(m, "\nTgid:\t", s.tgid);
	seq_put_decimal_ull(m, "\nNgid:\t", 0);
	seq_put_decimal_ull(m, "\nPid:\t", s.pid);
	seq_put_decimal_ull(m, "\nPPid:\t", s.ppid);
	seq_put_decimal_ull(m, "\nTracerPid:\t", 0);
	seq_put_decimal_ull(m, "\nUid:\t", from_kuid_munged(&init_user_ns, s.cred->uid));
	seq_put_decimal_ull(m, "\t", from_kuid_munged(&init_user_ns, s.cred->euid));
	seq_put_decimal_ull(m, "\t", from_kuid_munged(&init_user_ns, s.cred->suid));
	seq_put_decimal_ull(m, "\t", from_kuid_munged(&init_user_ns, s.cred->fsuid));
	seq_put_decimal_ull(m, "\nGid:\t", from_kgid_munged(&init_user_ns, s.cred->gid));
	seq_put_decimal_ull(m, "\t", from_kgid_munged(&init_user_ns, s.cred->egid));
	seq_put_decimal_ull(m, "\t", from_kgid_munged(&init_user_ns, s.cred->sgid));
	seq_put_decimal_ull(m, "\t", from_kgid_munged(&init_user_ns, s.cred->fsgid));
	seq_put_decimal_ull(m, "\nFDSize:\t", s.fdsize);
	seq_puts(m, "\nGroups:\t");
	for (g = 0; g < s.cred->group_info->ngroups; g++)
		seq_put_decimal_ull(m, g ? " " : "", from_kgid_munged(&init_user_ns, s.cred->group_info->gid[g]));
	seq_putc(m, ' ');		/* (6.1's trailing space) */
	seq_put_decimal_ull(m, "\nNStgid:\t", s.tgid);
	seq_put_decimal_ull(m, "\nNSpid:\t", s.pid);
	seq_put_decimal_ull(m, "\nNSpgid:\t", s.pgrp);
	seq_put_decimal_ull(m, "\nNSsid:\t", s.sid);
	seq_putc(m, '\n');
	mm = get_pid_task_mm((pid_t)(long)pid);
	if (mm) {
		task_mem(m, mm);	/* (no hugetlb pages, no THP: not built in) */
		seq_put_decimal_ull(m, "CoreDumping:\t", 0);	/* task_core_dumping(): no core dumps here */
		seq_putc(m, '\n');
		mmput(mm);
	}
	/* task_sig(): SigQ is what the task's user has queued, of its RLIMIT_SIGPENDING */
	seq_put_decimal_ull(m, "Threads:\t", s.threads);
	seq_put_decimal_ull(m, "\nSigQ:\t", s.qsize);
	seq_put_decimal_ull(m, "/", s.qlim);
	render_sigset_t(m, "\nSigPnd:\t", &s.pending);
	render_sigset_t(m, "ShdPnd:\t", &(u64){ 0 });
	render_sigset_t(m, "SigBlk:\t", &s.blocked);
	render_sigset_t(m, "SigIgn:\t", &s.ignored);
	render_sigset_t(m, "SigCgt:\t", &s.caught);
	/* task_cap() */
	render_cap_t(m, "CapInh:\t", &s.cred->cap_inheritable);
	render_cap_t(m, "CapPrm:\t", &s.cred->cap_permitted);
	render_cap_t(m, "CapEff:\t", &s.cred->cap_effective);
	render_cap_t(m, "CapBnd:\t", &s.cred->cap_bset);
	render_cap_t(m, "CapAmb:\t", &s.cred->cap_ambient);
	put_cred(s.cred);
	/* task_context_switch_counts() */
	seq_put_decimal_ull(m, "voluntary_ctxt_switches:\t", s.nvcsw);
	seq_put_decimal_ull(m, "\nnonvoluntary_ctxt_switches:\t", s.nivcsw);
	seq_putc(m, '\n');
	return 0;
}

static notrace int proc_pid_mounts_show(struct seq_file *m, void *pid)
{
	return show_mounts(m, pid);
}

static notrace int proc_pid_mountinfo_show(struct seq_file *m, void *pid)
{
	return show_mountinfo(m, pid);
}

/* cwd and root: the task's fs_struct paths */
static notrace int get_task_path(struct inode *inode, struct path *path, bool root)
{
	unsigned long flags;
	struct task_struct *t = get_proc_task_locked(inode, &flags);
	int err = -ENOENT;

	if (!t)
		return -ENOENT;
	if (t->fs) {
		*path = root ? t->fs->root : t->fs->pwd;
		path_get(path);
		err = 0;
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	return err;
}

static int proc_cwd_link(struct dentry *dentry, struct path *path)
{
	return get_task_path(dentry->d_inode, path, false);
}

static int proc_root_link(struct dentry *dentry, struct path *path)
{
	return get_task_path(dentry->d_inode, path, true);
}

/* The address space of process pid, a reference held; mmput() when done.  (Preemption off
 * while it is asked: rcu_read_lock(), a reaped task is freed after a grace period.) */
static notrace struct mm_struct *get_pid_task_mm(pid_t pid)
{
	struct task_struct *t;
	struct mm_struct *mm = NULL;
	unsigned long flags;

	preempt_disable();
	spin_lock_irqsave(&sched_lock, flags);
	t = find_task_by_pid(pid);
	spin_unlock_irqrestore(&sched_lock, flags);
	if (t)
		mm = get_task_mm(t);
	preempt_enable();
	return mm;
}

/* exe: the file the process runs (mm->exe_file) */
static int proc_exe_link(struct dentry *dentry, struct path *exe_path)
{
	struct file *exe_file = NULL;
	struct task_struct *t;
	unsigned long flags;

	preempt_disable();	/* (the task stays: rcu) */
	spin_lock_irqsave(&sched_lock, flags);
	t = find_task_by_pid(PROC_I_PID(dentry->d_inode));
	spin_unlock_irqrestore(&sched_lock, flags);
	if (t)
		exe_file = get_task_exe_file(t);
	preempt_enable();
	if (!exe_file)
		return -ENOENT;
	*exe_path = exe_file->f_path;
	path_get(exe_path);
	fput(exe_file);
	return 0;
}

/* cmdline (get_mm_cmdline): the argument strings as they are in the process's memory now;
 * where it wrote over the last NUL (setproctitle), up to the first NUL from arg_start. */
static notrace int proc_pid_cmdline_show(struct seq_file *m, void *pid)
{
	struct mm_struct *mm = get_pid_task_mm((pid_t)(long)pid);
	unsigned long arg_start, arg_end, pos, len;
	char *page, c = 0;

	if (!mm)
		return 0;	/* a kernel thread: empty */
	page = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!page) {
		mmput(mm);
		return -ENOMEM;
	}
	arg_start = mm->arg_start;
	arg_end = mm->arg_end;
	if (arg_end > arg_start && access_remote_vm(mm, arg_end - 1, &c, 1, FOLL_ANON) == 1 && c) {
		/* get_mm_proctitle(): one page at most, to its first NUL */
		unsigned long n = 0;

		len = access_remote_vm(mm, arg_start, page, PAGE_SIZE, FOLL_ANON);
		while (n < len && page[n])
			n++;
		seq_write(m, page, n);
	} else {
		for (pos = arg_start; pos < arg_end; pos += len) {
			len = access_remote_vm(mm, pos, page, min(arg_end - pos, PAGE_SIZE), FOLL_ANON);
			if (!len)
				break;
			seq_write(m, page, len);
		}
	}
	kfree(page);
	mmput(mm);
	return 0;
}

/* ---- stat (fs/proc/array.c: do_task_stat, whole group) ---- */
struct stat_snap {
	char comm[TASK_COMM_LEN];
	char state;
	pid_t pid, ppid, pgrp, sid;
	unsigned int flags;
	int priority, nice, threads, exit_signal, cpu, exit_code;
	unsigned int rt_priority, policy;
	bool running;
	unsigned long min_flt, maj_flt, cmin_flt, cmaj_flt;
	u64 utime, stime, rtime, cutime, cstime, start_time, pending, blocked, ignored, caught;
};

/* the task's numbers; whole: its faults and times those of its whole thread group */
static notrace int snap_stat(pid_t pid, bool whole, struct stat_snap *s)
{
	struct task_struct *leader, *t;
	unsigned long flags;

	memset(s, 0, sizeof(*s));
	spin_lock_irqsave(&sched_lock, flags);
	leader = find_task_by_pid(pid);
	if (!leader) {
		spin_unlock_irqrestore(&sched_lock, flags);
		return -ESRCH;
	}
	__get_task_comm(s->comm, TASK_COMM_LEN, leader);	/* proc_task_name() */
	s->state = get_task_state(leader)[0];
	s->pid = leader->pid;
	s->ppid = leader->parent ? leader->parent->tgid : 0;
	s->pgrp = leader->pgrp;
	s->sid = leader->sid;
	s->flags = leader->flags;
	s->priority = task_prio(leader);
	s->nice = task_nice(leader);
	s->rt_priority = leader->rt_priority;
	s->policy = leader->policy;
	s->threads = leader->signal ? leader->signal->nr_threads : 1;
	s->running = leader->__state == TASK_RUNNING;
	s->exit_signal = leader->exit_signal;
	s->cpu = leader->cpu;
	s->exit_code = leader->exit_code;
	s->start_time = leader->start_time;
	s->pending = leader->pending;
	s->blocked = leader->blocked;
	list_for_each_entry(t, &task_list, tasks)	/* the live threads of the group, or itself */
		if (whole ? t->tgid == leader->tgid : t == leader) {
			s->min_flt += t->min_flt;
			s->maj_flt += t->maj_flt;
			s->utime += t->utime;
			s->stime += t->stime;
			s->rtime += t->sum_exec_runtime;
		}
	if (leader->signal) {
		s->cutime = leader->signal->cutime;
		s->cstime = leader->signal->cstime;
		s->cmin_flt = leader->signal->cmin_flt;
		s->cmaj_flt = leader->signal->cmaj_flt;
	}
	collect_sigign_sigcatch(leader, &s->ignored, &s->caught);
	spin_unlock_irqrestore(&sched_lock, flags);
	return 0;
}

/* fs/proc/task_mmu.c: the size of the address space, in bytes */
static noinline unsigned long task_vsize(struct mm_struct *mm)
{
	return PAGE_SIZE * mm->total_vm;
}

static noinline int do_task_stat(struct seq_file *m, pid_t pid, int whole)
{
	struct mm_struct *mm = get_pid_task_mm(pid);
	struct stat_snap s;
	unsigned long vsize = 0, rss = 0;
	int err = snap_stat(pid, whole, &s);

	if (err) {
		if (mm)
			mmput(mm);
		return err;
	}
	if (mm) {
		vsize = task_vsize(mm);
		rss = get_mm_rss(mm);	/* the pages its mappings have in memory */
	}
	cputime_adjust(s.rtime, &s.utime, &s.stime);
	/* no task has a controlling terminal */
	seq_printf(m, "%d (%s) %c %d %d %d 0 -1 %u %lu %lu %lu %lu %lu %lu %lu %lu %d %d %d 0 %lu %lu %lu %lu",
		   s.pid, s.comm, s.state, s.ppid, s.pgrp, s.sid, s.flags, s.min_flt, s.cmin_flt, s.maj_flt, s.cmaj_flt,
		   nsec_to_clock_t(s.utime), nsec_to_clock_t(s.stime), nsec_to_clock_t(s.cutime),
		   nsec_to_clock_t(s.cstime), s.priority, s.nice, s.threads,
		   nsec_to_clock_t(s.start_time), vsize, rss, ~0UL);
	seq_printf(m, " %lu %lu %lu 0 0 %lu %lu %lu %lu %d 0 0 %d %d %u %u 0 0 0",
		   mm ? mm->start_code : 0, mm ? mm->end_code : 0, mm ? mm->start_stack : 0,
		   s.pending & 0x7fffffffUL, s.blocked & 0x7fffffffUL, s.ignored & 0x7fffffffUL,
		   s.caught & 0x7fffffffUL, s.threads < 2 && !s.running, s.exit_signal, s.cpu, s.rt_priority,
		   s.policy);
	if (mm)
		seq_printf(m, " %lu %lu %lu %lu %lu %lu %lu", mm->start_data, mm->end_data, mm->start_brk,
			   mm->arg_start, mm->arg_end, mm->env_start, mm->env_end);
	else
		seq_puts(m, " 0 0 0 0 0 0 0");
	seq_printf(m, " %d\n", s.exit_code);
	if (mm)
		mmput(mm);
	return 0;
}

/* /proc/<pid>/stat: the whole thread group's */
static int proc_tgid_stat(struct seq_file *m, void *pid)
{
	return do_task_stat(m, (pid_t)(long)pid, 1);
}

/* /proc/<pid>/task/<tid>/stat: the thread's own */
static noinline int proc_tid_stat(struct seq_file *m, void *pid)
{
	return do_task_stat(m, (pid_t)(long)pid, 0);
}

/* ---- maps (fs/proc/task_mmu.c: show_map_vma) ---- */
static void seq_pad_to(struct seq_file *m, size_t line_start, size_t width)
{
	while (m->count < m->size && m->count - line_start < width)
		seq_putc(m, ' ');
	seq_putc(m, ' ');
}

static noinline void show_map_vma(struct seq_file *m, struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	struct file *file = vma->vm_file;
	unsigned long flags = vma->vm_flags, ino = 0;
	unsigned long long pgoff = 0;
	size_t line = m->count;
	const char *name = NULL;
	dev_t dev = 0;

	if (file) {
		dev = file->f_inode->i_sb->s_dev;
		ino = file->f_inode->i_ino;
		pgoff = (unsigned long long)vma->vm_pgoff << 12;
	}
	seq_printf(m, "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu ", vma->vm_start, vma->vm_end,
		   flags & VM_READ ? 'r' : '-', flags & VM_WRITE ? 'w' : '-', flags & VM_EXEC ? 'x' : '-',
		   flags & VM_MAYSHARE ? 's' : 'p', pgoff, MAJOR(dev), MINOR(dev), ino);
	if (file) {
		char *buf = kmalloc(PATH_MAX, GFP_KERNEL), *p;

		seq_pad_to(m, line, 25 + sizeof(void *) * 6 - 1);
		p = buf ? d_path(&file->f_path, buf, PATH_MAX) : (char *)(long)-ENOMEM;
		if (!IS_ERR(p))
			for (; *p; p++)	/* seq_file_path(m, file, "\n"): a newline as \012 */
				*p == '\n' ? seq_puts(m, "\\012") : seq_putc(m, *p);
		kfree(buf);
	} else if (vma->vm_ops && vma->vm_ops->name && vma->vm_ops->name[0] == '[') {
		name = vma->vm_ops->name;	/* arch_vma_name(): [vdso], [vvar] (a host process's) */
	} else if (vma->vm_start <= mm->brk && vma->vm_end >= mm->start_brk) {
		name = "[heap]";
	} else if (vma->vm_start <= mm->start_stack && vma->vm_end >= mm->start_stack) {
		name = "[stack]";
	}
	if (name) {
		seq_pad_to(m, line, 25 + sizeof(void *) * 6 - 1);
		seq_puts(m, name);
	}
	seq_putc(m, '\n');
}

/* one line of maps (the seq_file's show of a vma) */
static noinline int show_map(struct seq_file *m, void *v)
{
	show_map_vma(m, v);
	return 0;
}

static notrace int proc_pid_maps_show(struct seq_file *m, void *pid)
{
	struct mm_struct *mm = get_pid_task_mm((pid_t)(long)pid);
	struct vm_area_struct *vma;

	if (!mm)
		return 0;
	mmap_read_lock(mm);
	list_for_each_entry(vma, &mm->mm_mt.vmas, vm_list)
		show_map(m, vma);
	mmap_read_unlock(mm);
	mmput(mm);
	return 0;
}

/* ---- fd/ ---- */
static notrace struct files_struct *get_task_files(struct inode *inode)
{
	unsigned long flags;
	struct task_struct *t = get_proc_task_locked(inode, &flags);
	struct files_struct *files = NULL;

	if (!t)
		return NULL;
	files = t->files;
	if (files)
		__atomic_add_fetch(&files->count, 1, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&sched_lock, flags);
	return files;
}

static notrace struct file *fget_task_fd(struct inode *inode, unsigned int fd)
{
	struct files_struct *files = get_task_files(inode);
	struct file *file = NULL;
	unsigned long irq;

	if (!files)
		return NULL;
	spin_lock_irqsave(&files->file_lock, irq);
	if (fd < files->fdt->max_fds && files->fdt->fd[fd])
		file = get_file(files->fdt->fd[fd]);
	spin_unlock_irqrestore(&files->file_lock, irq);
	put_files_struct(files);
	return file;
}

static noinline int proc_fd_link(struct dentry *dentry, struct path *path)
{
	struct inode *inode = dentry->d_inode;
	struct file *file = fget_task_fd(inode, (unsigned int)(long)inode->i_entry);

	if (!file)
		return -ENOENT;
	*path = file->f_path;
	path_get(path);
	fput(file);
	return 0;
}

/*
 * The magic links: cwd, root, exe and fd/N name an object (6.1's PROC_I(inode)->op.proc_get_link);
 * following one jumps the walk to it (nd_jump_link), whatever its name (a deleted file, a pipe);
 * reading one gives its d_path.
 */
static const struct inode_operations proc_fd_link_inode_operations;
static notrace int proc_get_link_op(struct dentry *dentry, struct path *path)
{
	const struct pid_entry *p = dentry->d_inode->i_entry;

	if (dentry->d_inode->i_op == &proc_fd_link_inode_operations)
		return proc_fd_link(dentry, path);
	return p->proc_get_link(dentry, path);
}

static notrace int do_proc_readlink(const struct path *path, char *buffer, int buflen)
{
	char *tmp = kmalloc(PATH_MAX, GFP_KERNEL);
	char *pathname;
	int len;

	if (!tmp)
		return -ENOMEM;
	pathname = d_path(path, tmp, PATH_MAX);
	len = PTR_ERR(pathname);
	if (IS_ERR(pathname))
		goto out;
	len = tmp + PATH_MAX - 1 - pathname;
	if (len > buflen)
		len = buflen;
	if (copy_to_user(buffer, pathname, len))
		len = -EFAULT;
out:
	kfree(tmp);
	return len;
}

static noinline int proc_pid_readlink(struct dentry *dentry, char *buffer, int buflen)
{
	struct path path;
	int error = proc_get_link_op(dentry, &path);

	if (error)
		return error;
	error = do_proc_readlink(&path, buffer, buflen);
	path_put(&path);
	return error;
}

static noinline const char *proc_pid_get_link(struct dentry *dentry, struct inode *inode, char *buf)
{
	struct path path;
	int error;

	if (!dentry)	/* the lockless walk: not without the dentry */
		return (void *)(long)-ECHILD;
	error = proc_get_link_op(dentry, &path);
	if (!error)
		error = nd_jump_link(&path);
	return (void *)(long)error;
}

static const struct inode_operations proc_fd_link_inode_operations = {
	.readlink = proc_pid_readlink,
	.get_link = proc_pid_get_link,
	.setattr = proc_setattr,
};

const struct inode_operations proc_pid_link_inode_operations = {
	.readlink = proc_pid_readlink,
	.get_link = proc_pid_get_link,
	.setattr = proc_setattr,
};

static notrace int fd_from_name(const struct qstr *name)
{
	unsigned int i, fd = 0;

	if (!name->len || name->len > 9 || (name->name[0] == '0' && name->len > 1))
		return -1;
	for (i = 0; i < name->len; i++) {
		if (name->name[i] < '0' || name->name[i] > '9')
			return -1;
		fd = fd * 10 + name->name[i] - '0';
	}
	return fd;
}

/* fd/N's inode: a magic link to the file, its mode as the file's (r-x for reading, -wx for
 * writing: tid_fd_update_inode) */
static noinline struct dentry *proc_fd_instantiate(struct dentry *dentry, struct inode *dir, unsigned int fd,
						   fmode_t f_mode)
{
	umode_t mode = S_IFLNK;
	struct inode *inode;

	if (f_mode & FMODE_READ)
		mode |= 0500;
	if (f_mode & FMODE_WRITE)
		mode |= 0300;
	inode = proc_make_inode(dir->i_sb, mode, 0);
	if (!inode)
		return (void *)(long)-ENOENT;
	inode->i_private = dir->i_private;
	inode->i_entry = (void *)(long)fd;
	inode->i_op = &proc_fd_link_inode_operations;
	inode->i_size = 64;
	d_add(dentry, inode);
	return NULL;
}

static noinline struct dentry *proc_lookupfd(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	int fd = fd_from_name(&dentry->d_name);
	struct file *file;
	fmode_t f_mode;

	if (fd < 0)
		return (void *)(long)-ENOENT;
	file = fget_task_fd(dir, fd);	/* tid_fd_mode() */
	if (!file)
		return (void *)(long)-ENOENT;
	f_mode = file->f_mode;
	fput(file);
	return proc_fd_instantiate(dentry, dir, fd, f_mode);
}

/* The fd directory: the task's own threads pass even where its mode would not let them (a
 * setuid program's fds, say) */
static noinline int proc_fd_permission(struct inode *inode, int mask)
{
	int rv = generic_permission(NULL, inode, mask);

	if (rv == 0)
		return rv;
	if (PROC_I_PID(inode) == current->tgid)	/* same_thread_group(p, current) */
		rv = 0;
	return rv;
}

/* fd's (or fdinfo's) entries: ".", "..", then each open fd, by number; dtype: what each is (6.1
 * takes it from the inode the instantiate function makes: a link in fd/, a file in fdinfo/) */
static noinline int proc_readfd_common(struct file *file, struct dir_context *ctx, unsigned char dtype)
{
	struct inode *inode = file->f_inode;
	struct files_struct *files;
	unsigned int fd;

	if (!dir_emit_dots(file, ctx))
		return 0;
	files = get_task_files(inode);
	if (!files)
		return 0;
	for (fd = ctx->pos - 2; fd < files->fdt->max_fds; fd++, ctx->pos++) {
		char name[12];
		int len;

		if (!READ_ONCE(files->fdt->fd[fd]))
			continue;
		len = scnprintf(name, sizeof(name), "%u", fd);
		if (!ctx->actor(ctx, name, len, ctx->pos, (dtype == DT_LNK ? 0x10000 : 0x20000) + fd, dtype))
			break;
	}
	put_files_struct(files);
	return 0;
}

static noinline int proc_readfd(struct file *file, struct dir_context *ctx)
{
	return proc_readfd_common(file, ctx, DT_LNK);	/* proc_fd_instantiate */
}

static const struct file_operations proc_fd_operations = {
	.read = generic_read_dir,
	.iterate_shared = proc_readfd,
	.llseek = default_llseek,
};

static const struct inode_operations proc_fd_inode_operations = {
	.lookup = proc_lookupfd,
	.permission = proc_fd_permission,
	.setattr = proc_setattr,
};

/* ---- fdinfo/ (6.1's fs/proc/fd.c): what each open fd is ---- */

/* fdinfo/N: its position, flags (O_CLOEXEC from the fd table), mount id and inode, then its
 * locks (show_fd_locks: the lock lines /proc/locks has, each "lock:\t" first) and what its kind
 * of file adds (->show_fdinfo) */
static noinline int seq_show(struct seq_file *m, void *v)
{
	struct inode *inode = m->private;
	unsigned int fd = (unsigned int)(long)inode->i_entry;
	struct files_struct *files = get_task_files(inode);
	struct file *file = NULL;
	unsigned long irq;
	int f_flags = 0;

	if (!files)
		return -ENOENT;
	spin_lock_irqsave(&files->file_lock, irq);
	if (fd < files->fdt->max_fds && files->fdt->fd[fd]) {
		file = get_file(files->fdt->fd[fd]);
		f_flags = file->f_flags;
		if ((files->fdt->close_on_exec[fd / BITS_PER_LONG] >> (fd % BITS_PER_LONG)) & 1)	/* close_on_exec() */
			f_flags |= O_CLOEXEC;
	}
	spin_unlock_irqrestore(&files->file_lock, irq);
	if (!file) {
		put_files_struct(files);
		return -ENOENT;
	}
	seq_printf(m, "pos:\t%lld\nflags:\t0%o\nmnt_id:\t%i\nino:\t%lu\n", (long long)file->f_pos, f_flags,
		   real_mount(file->f_path.mnt)->mnt_id, file->f_inode->i_ino);
	show_fd_locks(m, file, files);	/* (files only compared, never followed) */
	put_files_struct(files);
	if (file->f_op && file->f_op->show_fdinfo)
		file->f_op->show_fdinfo(m, file);
	fput(file);
	return 0;
}

/* Who may read another's fdinfo: ptrace_may_access(PTRACE_MODE_READ_FSCREDS) */
static __always_inline int proc_fdinfo_access_allowed(struct inode *inode)
{
	unsigned long irq;
	struct task_struct *task = get_proc_task_locked(inode, &irq);
	bool allowed;

	if (!task)
		return -ESRCH;
	allowed = ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS);
	spin_unlock_irqrestore(&sched_lock, irq);
	return allowed ? 0 : -EACCES;
}

static noinline int seq_fdinfo_open(struct inode *inode, struct file *file)
{
	int ret = proc_fdinfo_access_allowed(inode);

	if (ret)
		return ret;
	return single_open(file, seq_show, inode);
}

static const struct file_operations proc_fdinfo_file_operations = {
	.open = seq_fdinfo_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static noinline struct dentry *proc_fdinfo_instantiate(struct dentry *dentry, struct inode *dir, unsigned int fd)
{
	struct inode *inode = proc_make_inode(dir->i_sb, S_IFREG | 0444, 0);

	if (!inode)
		return (void *)(long)-ENOENT;
	inode->i_private = dir->i_private;
	inode->i_entry = (void *)(long)fd;
	inode->i_fop = &proc_fdinfo_file_operations;
	d_add(dentry, inode);
	return NULL;
}

static noinline struct dentry *proc_lookupfdinfo(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	int fd = fd_from_name(&dentry->d_name);
	struct file *file;

	if (fd < 0)
		return (void *)(long)-ENOENT;
	file = fget_task_fd(dir, fd);
	if (!file)
		return (void *)(long)-ENOENT;
	fput(file);
	return proc_fdinfo_instantiate(dentry, dir, fd);
}

static noinline int proc_readfdinfo(struct file *file, struct dir_context *ctx)
{
	return proc_readfd_common(file, ctx, DT_REG);	/* proc_fdinfo_instantiate */
}

/* The fdinfo directory: its readers checked as fdinfo/N's openers are */
static noinline int proc_fdinfo_permission(struct inode *inode, int mask)
{
	int rv = generic_permission(NULL, inode, mask);

	if (rv)
		return rv;
	return proc_fdinfo_access_allowed(inode);
}

static const struct file_operations proc_fdinfo_operations = {
	.read = generic_read_dir,
	.iterate_shared = proc_readfdinfo,
	.llseek = default_llseek,
};

static const struct inode_operations proc_fdinfo_inode_operations = {
	.lookup = proc_lookupfdinfo,
	.permission = proc_fdinfo_permission,
	.setattr = proc_setattr,
};

/* ---- oom_score, oom_score_adj: the OOM killer's view of the process (mm/oom_kill.c) ---- */
/* its badness as 0..2000: 1000 plus its share of RAM in thousandths, scaled by 2/3 */
static noinline int proc_oom_score(struct seq_file *m, void *pid)
{
	unsigned long totalpages = totalram_pages(), flags;	/* + total_swap_pages: no swap */
	struct task_struct *t;
	long badness, points = 0;

	spin_lock_irqsave(&sched_lock, flags);
	t = find_task_by_pid((pid_t)(long)pid);
	if (!t) {
		spin_unlock_irqrestore(&sched_lock, flags);
		return -ESRCH;
	}
	badness = oom_badness(t, totalpages);
	spin_unlock_irqrestore(&sched_lock, flags);
	if (badness != LONG_MIN)
		points = (1000 + badness * 1000 / (long)totalpages) * 2 / 3;
	seq_printf(m, "%lu\n", points);
	return 0;
}

static noinline ssize_t oom_score_adj_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	struct task_struct *t;
	unsigned long flags;
	char buffer[16];
	short adj;

	t = get_proc_task_locked(file->f_inode, &flags);
	if (!t)
		return -ESRCH;
	adj = t->oom_score_adj;
	spin_unlock_irqrestore(&sched_lock, flags);
	return simple_read_from_buffer(buf, count, ppos, buffer, scnprintf(buffer, sizeof(buffer), "%d\n", adj));
}

static DEFINE_MUTEX(oom_adj_mutex);

/* The process's oom_score_adj (6.1 keeps it in the signal struct: here every thread of the group
 * has it); below oom_score_adj_min only with CAP_SYS_RESOURCE, which moves the minimum too.
 * (Processes sharing the mm but not the thread group, MMF_MULTIPROCESS, are not modelled.) */
/* 6.1's kallsyms name is GCC's IPA-SRA clone's (its `legacy` argument gone: oom_adj is not modelled) */
static int __set_oom_adj(struct file *file, int oom_adj) __asm__("__set_oom_adj.isra.0");
static noinline int __set_oom_adj(struct file *file, int oom_adj)
{
	bool resource = capable(CAP_SYS_RESOURCE);
	struct task_struct *task, *t;
	unsigned long flags;
	int err = 0;

	mutex_lock(&oom_adj_mutex);
	task = get_proc_task_locked(file->f_inode, &flags);
	if (!task) {
		mutex_unlock(&oom_adj_mutex);
		return -ESRCH;
	}
	/* (a session's task has no signal struct: no minimum of its own) */
	if (task->signal && (short)oom_adj < task->signal->oom_score_adj_min && !resource) {
		err = -EACCES;
	} else {
		list_for_each_entry(t, &task_list, tasks)
			if (t->tgid == task->tgid)
				t->oom_score_adj = oom_adj;
		if (resource && task->signal)
			task->signal->oom_score_adj_min = (short)oom_adj;
		/* another process's task stays only under the lock (6.1 holds a reference: the
		 * event then shows irqs off here); the writer's own process stays as long as it */
		if (task->tgid != current->tgid)
			trace_oom_score_adj_update(task);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	if (!err && task->tgid == current->tgid)
		trace_oom_score_adj_update(task);
	mutex_unlock(&oom_adj_mutex);
	return err;
}

static noinline ssize_t oom_score_adj_write(struct file *file, const char *buf, size_t count, loff_t *ppos)
{
	char buffer[13];	/* PROC_NUMBUF */
	int oom_score_adj, err;

	memset(buffer, 0, sizeof(buffer));
	if (count > sizeof(buffer) - 1)
		count = sizeof(buffer) - 1;
	if (copy_from_user(buffer, buf, count))
		return -EFAULT;
	err = kstrtoint(strstrip(buffer), 0, &oom_score_adj);
	if (err)
		return err;
	if (oom_score_adj < OOM_SCORE_ADJ_MIN || oom_score_adj > OOM_SCORE_ADJ_MAX)
		return -EINVAL;
	err = __set_oom_adj(file, oom_score_adj);
	return err < 0 ? err : count;
}

static const struct file_operations proc_oom_score_adj_operations = {
	.read = oom_score_adj_read,
	.write = oom_score_adj_write,
	.llseek = default_llseek,
};

/* ---- its environment and aux vector, read from its memory ---- */

/* The task's address space if the reader may look into it so (mm_access(): -EACCES otherwise;
 * NULL: a kernel thread, or one exiting), the struct held (mmgrab), not its memory: a reader
 * keeps no exited process's pages */
noinline struct mm_struct *proc_mem_open(struct inode *inode, unsigned int mode)
{
	unsigned long irq;
	struct task_struct *task = get_proc_task_locked(inode, &irq);
	struct mm_struct *mm;

	if (!task)
		return ERR_PTR(-ESRCH);
	mm = task->mm;
	if (mm && ((task->flags & (PF_KTHREAD | PF_EXITING)) || task->exit_state))
		mm = NULL;
	if (mm && mm != current->mm && !ptrace_may_access(task, mode | PTRACE_MODE_FSCREDS))
		mm = ERR_PTR(-EACCES);
	else if (mm)
		mmgrab(mm);
	spin_unlock_irqrestore(&sched_lock, irq);
	return mm;
}

static __always_inline int __mem_open(struct inode *inode, struct file *file, unsigned int mode)
{
	struct mm_struct *mm = proc_mem_open(inode, mode);

	if (IS_ERR(mm))
		return PTR_ERR(mm);
	file->private_data = mm;
	return 0;
}

static noinline int mem_release(struct inode *inode, struct file *file)
{
	struct mm_struct *mm = file->private_data;

	if (mm)
		mmdrop(mm);
	return 0;
}

/* ---- its memory (mem): read and written at its addresses, by a reader that may trace it ---- */
static noinline int mem_open(struct inode *inode, struct file *file)
{
	int ret = __mem_open(inode, file, PTRACE_MODE_ATTACH);

	/* OK to pass negative loff_t, we can catch out-of-range */
	file->f_mode |= FMODE_UNSIGNED_OFFSET;
	return ret;
}

/* A page at a time through a kernel buffer: FOLL_FORCE reads what the task cannot and writes
 * into its read-only private mappings (a COW copy of their page, read-only to it still) */
static noinline ssize_t mem_rw(struct file *file, char *buf, size_t count, loff_t *ppos, int write)
{
	struct mm_struct *mm = file->private_data;
	unsigned long addr = *ppos;
	unsigned int flags;
	ssize_t copied;
	char *page;

	if (!mm)
		return 0;
	page = (char *)__get_free_pages(GFP_KERNEL, 0);
	if (!page)
		return -ENOMEM;
	copied = 0;
	if (!mmget_not_zero(mm))
		goto free;
	flags = FOLL_FORCE | (write ? FOLL_WRITE : 0);
	while (count > 0) {
		size_t this_len = min(count, PAGE_SIZE);

		if (write && copy_from_user(page, buf, this_len)) {
			copied = -EFAULT;
			break;
		}
		this_len = access_remote_vm(mm, addr, page, this_len, flags);
		if (!this_len) {
			if (!copied)
				copied = -EIO;
			break;
		}
		if (!write && copy_to_user(buf, page, this_len)) {
			copied = -EFAULT;
			break;
		}
		buf += this_len;
		addr += this_len;
		copied += this_len;
		count -= this_len;
	}
	*ppos = addr;
	mmput(mm);
free:
	free_page(page);
	return copied;
}

static noinline ssize_t mem_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	return mem_rw(file, buf, count, ppos, 0);
}

static noinline ssize_t mem_write(struct file *file, const char *buf, size_t count, loff_t *ppos)
{
	return mem_rw(file, (char *)buf, count, ppos, 1);
}

/* any position (an address), from the start or the current one */
noinline loff_t mem_lseek(struct file *file, loff_t offset, int orig)
{
	switch (orig) {
	case 0:	/* SEEK_SET */
		file->f_pos = offset;
		break;
	case 1:	/* SEEK_CUR */
		file->f_pos += offset;
		break;
	default:
		return -EINVAL;
	}
	return file->f_pos;	/* (force_successful_syscall_return(): an address is no errno) */
}

static const struct file_operations proc_mem_operations = {
	.llseek = mem_lseek,
	.read = mem_read,
	.write = mem_write,
	.open = mem_open,
	.release = mem_release,
};

static noinline int environ_open(struct inode *inode, struct file *file)
{
	return __mem_open(inode, file, PTRACE_MODE_READ);
}

/* the strings between env_start and env_end, as they are now in its memory */
static noinline ssize_t environ_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	struct mm_struct *mm = file->private_data;
	unsigned long src = *ppos, env_start, env_end;
	ssize_t ret = 0;
	char *page;

	if (!mm || !mm->env_end)	/* (not yet spawned far enough to have one) */
		return 0;
	page = (char *)__get_free_pages(GFP_KERNEL, 0);
	if (!page)
		return -ENOMEM;
	if (!mmget_not_zero(mm))
		goto free;
	env_start = mm->env_start;
	env_end = mm->env_end;
	while (count > 0) {
		size_t this_len;
		int retval;

		if (src >= env_end - env_start)
			break;
		this_len = min(min(count, PAGE_SIZE), env_end - (env_start + src));
		retval = access_remote_vm(mm, env_start + src, page, this_len, FOLL_ANON);
		if (retval <= 0) {
			ret = retval;
			break;
		}
		if (copy_to_user(buf, page, retval)) {
			ret = -EFAULT;
			break;
		}
		ret += retval;
		src += retval;
		buf += retval;
		count -= retval;
	}
	*ppos = src;
	mmput(mm);
free:
	free_page(page);
	return ret;
}

static const struct file_operations proc_environ_operations = {
	.open = environ_open,
	.read = environ_read,
	.llseek = default_llseek,
	.release = mem_release,
};

static noinline int auxv_open(struct inode *inode, struct file *file)
{
	return __mem_open(inode, file, PTRACE_MODE_READ_FSCREDS);
}

/* the aux vector exec gave it (saved_auxv), to its AT_NULL pair */
static noinline ssize_t auxv_read(struct file *file, char *buf, size_t count, loff_t *ppos)
{
	struct mm_struct *mm = file->private_data;
	unsigned int nwords = 0;

	if (!mm)
		return 0;
	do {
		nwords += 2;
	} while (nwords < AT_VECTOR_SIZE && mm->saved_auxv[nwords - 2] != 0);	/* AT_NULL */
	return simple_read_from_buffer(buf, count, ppos, mm->saved_auxv, nwords * sizeof(mm->saved_auxv[0]));
}

static const struct file_operations proc_auxv_operations = {
	.open = auxv_open,
	.read = auxv_read,
	.llseek = default_llseek,
	.release = mem_release,
};

/* ---- its I/O counts (io) ---- */

/* The task's counts; whole: its thread group's, the released threads' with them (signal->ioac) */
static noinline int do_io_accounting(struct inode *inode, struct seq_file *m, int whole)
{
	struct task_io_accounting acct;
	struct task_struct *task, *t;
	unsigned long irq;

	task = get_proc_task_locked(inode, &irq);
	if (!task)
		return -ESRCH;
	if (!ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS)) {
		spin_unlock_irqrestore(&sched_lock, irq);
		return -EACCES;
	}
	acct = task->ioac;
	if (whole && task->signal) {
		task_io_accounting_add(&acct, &task->signal->ioac);
		list_for_each_entry(t, &task_list, tasks)
			if (t->tgid == task->tgid && t != task)
				task_io_accounting_add(&acct, &t->ioac);
	}
	spin_unlock_irqrestore(&sched_lock, irq);
	seq_printf(m, "rchar: %lu\nwchar: %lu\nsyscr: %lu\nsyscw: %lu\nread_bytes: %lu\nwrite_bytes: %lu\n"
		   "cancelled_write_bytes: %lu\n", (unsigned long)acct.rchar, (unsigned long)acct.wchar,
		   (unsigned long)acct.syscr, (unsigned long)acct.syscw, (unsigned long)acct.read_bytes,
		   (unsigned long)acct.write_bytes, (unsigned long)acct.cancelled_write_bytes);
	return 0;
}

static noinline int proc_tid_io_accounting(struct seq_file *m, void *pid)
{
	return do_io_accounting(m->private, m, 0);
}

static noinline int proc_tgid_io_accounting(struct seq_file *m, void *pid)
{
	return do_io_accounting(m->private, m, 1);
}

/* ---- where it waits, its kernel stack, its system call; its timer slack ---- */

/* lock_trace(): may the reader look into the task as a tracer would (-EPERM else).  (6.1 also
 * takes its exec_update_lock: here sched_lock, held by the caller, keeps it from exec'ing.) */
static __always_inline int lock_trace(struct task_struct *task)
{
	return ptrace_may_access(task, PTRACE_MODE_ATTACH_FSCREDS) ? 0 : -EPERM;
}

/* the function it sleeps in, by name; "0" for one that runs, or that the reader may not see */
static noinline int proc_pid_wchan(struct seq_file *m, void *pid)
{
	char symname[KSYM_NAME_LEN];
	unsigned long wchan = 0, irq;
	struct task_struct *task = get_proc_task_locked(m->private, &irq);

	if (!task)
		return -ESRCH;
	if (ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS))
		wchan = get_wchan(task);
	spin_unlock_irqrestore(&sched_lock, irq);
	if (wchan && !lookup_symbol_name(wchan, symname))
		seq_puts(m, symname);
	else
		seq_putc(m, '0');
	return 0;
}

#define MAX_STACK_TRACE_DEPTH 64

/* Its kernel stack, a line per return address (the scheduler's left out; none while it runs
 * on another cpu), for root only: the addresses are hidden ([<0>]), their symbols not. */
static noinline int proc_pid_stack(struct seq_file *m, void *pid)
{
	unsigned long entries[MAX_STACK_TRACE_DEPTH], irq;
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i, nr_entries = 0;
	struct task_struct *task;
	int err;

	/* (6.1: file_ns_capable() of the opener; the reader here) */
	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	task = get_proc_task_locked(m->private, &irq);
	if (!task)
		return -ESRCH;
	err = lock_trace(task);
	if (!err)
		nr_entries = stack_trace_save_tsk(task, entries, MAX_STACK_TRACE_DEPTH, 0);
	spin_unlock_irqrestore(&sched_lock, irq);
	for (i = 0; i < nr_entries; i++) {
		sprint_backtrace(sym, entries[i]);	/* %pB */
		seq_printf(m, "[<0>] %s\n", sym);
	}
	return err;
}

/* Its personality (personality(2)), to a reader that may trace it */
static noinline int proc_pid_personality(struct seq_file *m, void *pid)
{
	unsigned long irq;
	struct task_struct *task = get_proc_task_locked(m->private, &irq);
	unsigned int personality = 0;
	int err;

	if (!task)
		return -ESRCH;
	err = lock_trace(task);
	if (!err)
		personality = task->personality;
	spin_unlock_irqrestore(&sched_lock, irq);
	if (!err)
		seq_printf(m, "%08x\n", personality);
	return err;
}

/* ---- its scheduler state (kernel/sched/debug.c) and its waits for a cpu (sched_info) ---- */
static noinline int sched_show(struct seq_file *m, void *v)
{
	struct inode *inode = m->private;
	unsigned long irq;
	struct task_struct *p = get_proc_task_locked(inode, &irq);

	if (!p)
		return -ESRCH;
	proc_sched_show_task(p, NULL, m);	/* (under sched_lock: 6.1 holds a reference) */
	spin_unlock_irqrestore(&sched_lock, irq);
	return 0;
}

/* A write resets 6.1's schedstats (proc_sched_set_task()), which the model does not keep:
 * taken whole, for a task still there */
static noinline ssize_t sched_write(struct file *file, const char *buf, size_t count, loff_t *offset)
{
	unsigned long irq;
	struct task_struct *p = get_proc_task_locked(file->f_inode, &irq);

	if (!p)
		return -ESRCH;
	spin_unlock_irqrestore(&sched_lock, irq);
	return count;
}

static noinline int sched_open(struct inode *inode, struct file *filp)
{
	return single_open(filp, sched_show, inode);
}

static const struct file_operations proc_pid_sched_operations = {
	.open = sched_open,
	.read = seq_read,
	.write = sched_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* time on the cpu, time waiting for one, times it came to run */
static noinline int proc_pid_schedstat(struct seq_file *m, void *pid)
{
	unsigned long long runtime, run_delay;
	unsigned long pcount, irq;
	struct task_struct *task = get_proc_task_locked(m->private, &irq);

	if (!task)
		return -ESRCH;
	runtime = task->sum_exec_runtime;
	run_delay = task->sched_info.run_delay;
	pcount = task->sched_info.pcount;
	spin_unlock_irqrestore(&sched_lock, irq);
	seq_printf(m, "%llu %llu %lu\n", runtime, run_delay, pcount);
	return 0;
}

/* lib/syscall.c: the system call a task is in, from its user registers */
struct syscall_info {
	u64 sp;
	struct {
		int nr;
		u64 instruction_pointer;
		u64 args[6];
	} data;
};

static notrace void collect_syscall(struct task_struct *target, struct syscall_info *info)
{
	struct pt_regs *regs;

	memset(info, 0, sizeof(*info));
	if (!target->stack) {	/* no stack: in no call */
		info->data.nr = -1;
		return;
	}
	regs = task_pt_regs(target);
	info->sp = regs->sp;
	info->data.instruction_pointer = regs->ip;
	info->data.nr = (int)regs->orig_ax;	/* (an exception's error code where it took one) */
	if (info->data.nr != -1) {
		info->data.args[0] = regs->di;
		info->data.args[1] = regs->si;
		info->data.args[2] = regs->dx;
		info->data.args[3] = regs->r10;
		info->data.args[4] = regs->r8;
		info->data.args[5] = regs->r9;
	}
}

/* current's own, or a task's that has switched out (-EAGAIN while it runs) */
static notrace int task_current_syscall(struct task_struct *target, struct syscall_info *info)
{
	if (target != current && (READ_ONCE(target->__state) == TASK_RUNNING || READ_ONCE(target->on_cpu)))
		return -EAGAIN;
	collect_syscall(target, info);
	return 0;
}

/* "nr args... sp ip", "-1 sp ip" outside a call, or "running" */
static noinline int proc_pid_syscall(struct seq_file *m, void *pid)
{
	struct syscall_info info;
	unsigned long irq;
	struct task_struct *task = get_proc_task_locked(m->private, &irq);
	int res;

	if (!task)
		return -ESRCH;
	res = lock_trace(task);
	if (!res)
		res = task_current_syscall(task, &info) ? 1 : 0;
	spin_unlock_irqrestore(&sched_lock, irq);
	if (res < 0)
		return res;
	if (res)
		seq_puts(m, "running\n");
	else if (info.data.nr < 0)
		seq_printf(m, "%d 0x%lx 0x%lx\n", info.data.nr, (unsigned long)info.sp,
			   (unsigned long)info.data.instruction_pointer);
	else
		seq_printf(m, "%d 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx\n", info.data.nr,
			   (unsigned long)info.data.args[0], (unsigned long)info.data.args[1],
			   (unsigned long)info.data.args[2], (unsigned long)info.data.args[3],
			   (unsigned long)info.data.args[4], (unsigned long)info.data.args[5],
			   (unsigned long)info.sp, (unsigned long)info.data.instruction_pointer);
	return 0;
}

/* How late its sleeps' timers may fire (ns): its own, or another's with CAP_SYS_NICE */
static noinline ssize_t timerslack_ns_write(struct file *file, const char *buf, size_t count, loff_t *offset)
{
	unsigned long long slack_ns;
	struct task_struct *p;
	unsigned long irq;
	int err = kstrtoull_from_user(buf, count, 10, &slack_ns);

	if (err < 0)
		return err;
	p = get_proc_task_locked(file->f_inode, &irq);
	if (!p)
		return -ESRCH;
	if (p != current && !capable(CAP_SYS_NICE)) {
		count = -EPERM;
	} else {
		if (p->prio < MAX_RT_PRIO)	/* task_is_realtime(): its sleeps are exact */
			slack_ns = 0;
		else if (slack_ns == 0)
			slack_ns = p->default_timer_slack_ns;
		p->timer_slack_ns = slack_ns;
	}
	spin_unlock_irqrestore(&sched_lock, irq);
	return count;
}

static noinline int timerslack_ns_show(struct seq_file *m, void *v)
{
	struct task_struct *p;
	unsigned long irq;
	u64 slack_ns;

	p = get_proc_task_locked(m->private, &irq);
	if (!p)
		return -ESRCH;
	if (p != current && !capable(CAP_SYS_NICE)) {
		spin_unlock_irqrestore(&sched_lock, irq);
		return -EPERM;
	}
	slack_ns = p->timer_slack_ns;
	spin_unlock_irqrestore(&sched_lock, irq);
	seq_printf(m, "%lu\n", (unsigned long)slack_ns);
	return 0;
}

static noinline int timerslack_ns_open(struct inode *inode, struct file *filp)
{
	return single_open(filp, timerslack_ns_show, inode);
}

static const struct file_operations proc_pid_set_timerslack_ns_operations = {
	.open = timerslack_ns_open,
	.read = seq_read,
	.write = timerslack_ns_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- /proc/PID ---- */
static const struct inode_operations proc_task_inode_operations;
static const struct file_operations proc_task_operations;

/* (6.1's entries the model has, in 6.1's order) */
static const struct pid_entry tgid_base_stuff[] = {
	{ "task", S_IFDIR | 0555, NULL, NULL, &proc_task_inode_operations, &proc_task_operations },
	{ "fd", S_IFDIR | 0500, NULL, NULL, &proc_fd_inode_operations, &proc_fd_operations },
	{ "fdinfo", S_IFDIR | 0555, NULL, NULL, &proc_fdinfo_inode_operations, &proc_fdinfo_operations },
	{ "ns", S_IFDIR | 0511, NULL, NULL, &proc_ns_dir_inode_operations, &proc_ns_dir_operations },
	{ "environ", S_IFREG | 0400, NULL, NULL, NULL, &proc_environ_operations },
	{ "auxv", S_IFREG | 0400, NULL, NULL, NULL, &proc_auxv_operations },
	{ "status", S_IFREG | 0444, proc_pid_status },
	{ "personality", S_IFREG | 0400, proc_pid_personality },
	{ "limits", S_IFREG | 0444, proc_pid_limits },
	{ "sched", S_IFREG | 0644, NULL, NULL, NULL, &proc_pid_sched_operations },
	{ "comm", S_IFREG | 0644, comm_show },
	{ "syscall", S_IFREG | 0400, proc_pid_syscall },
	{ "cmdline", S_IFREG | 0444, proc_pid_cmdline_show },
	{ "stat", S_IFREG | 0444, proc_tgid_stat },
	{ "statm", S_IFREG | 0444, proc_pid_statm },
	{ "maps", S_IFREG | 0444, proc_pid_maps_show },
	{ "mem", S_IFREG | 0600, NULL, NULL, NULL, &proc_mem_operations },
	{ "cwd", S_IFLNK | 0777, .proc_get_link = proc_cwd_link },
	{ "root", S_IFLNK | 0777, .proc_get_link = proc_root_link },
	{ "exe", S_IFLNK | 0777, .proc_get_link = proc_exe_link },
	{ "mounts", S_IFREG | 0444, proc_pid_mounts_show },
	{ "mountinfo", S_IFREG | 0444, proc_pid_mountinfo_show },
	{ "wchan", S_IFREG | 0444, proc_pid_wchan },
	{ "stack", S_IFREG | 0400, proc_pid_stack },
	{ "schedstat", S_IFREG | 0444, proc_pid_schedstat },
	{ "oom_score", S_IFREG | 0444, proc_oom_score },
	{ "oom_score_adj", S_IFREG | 0644, NULL, NULL, NULL, &proc_oom_score_adj_operations },
	{ "io", S_IFREG | 0400, proc_tgid_io_accounting },
	{ "timerslack_ns", S_IFREG | 0666, NULL, NULL, NULL, &proc_pid_set_timerslack_ns_operations },
};

struct dentry *proc_pident_instantiate(struct dentry *dentry, const struct pid_entry *p, void *private);

/* An entry of a process's directory by name (the process still there) */
static noinline struct dentry *proc_pident_lookup(struct inode *dir, struct dentry *dentry,
						  const struct pid_entry *p, const struct pid_entry *end)
{
	struct dentry *res = (void *)(long)-ENOENT;
	unsigned long irq;
	struct task_struct *task = get_proc_task_locked(dir, &irq);

	if (!task)
		return res;
	spin_unlock_irqrestore(&sched_lock, irq);
	for (; p < end; p++) {
		if (!strcmp(p->name, (const char *)dentry->d_name.name)) {
			res = proc_pident_instantiate(dentry, p, dir->i_private);
			break;
		}
	}
	return res;
}

static noinline struct dentry *proc_tgid_base_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	return proc_pident_lookup(dir, dentry, tgid_base_stuff, tgid_base_stuff + ARRAY_SIZE(tgid_base_stuff));
}

/* ".", "..", then the entries (the process still there) */
static noinline int proc_pident_readdir(struct file *file, struct dir_context *ctx,
					const struct pid_entry *ents, unsigned int nents)
{
	struct inode *inode = file->f_inode;
	size_t nr = nents;
	unsigned long irq;
	struct task_struct *task = get_proc_task_locked(inode, &irq);

	if (!task)
		return -ENOENT;
	spin_unlock_irqrestore(&sched_lock, irq);

	if (!dir_emit_dots(file, ctx))
		return 0;
	for (; ctx->pos < (loff_t)(nr + 2); ctx->pos++) {
		const struct pid_entry *p = &ents[ctx->pos - 2];

		if (!ctx->actor(ctx, p->name, strlen(p->name), ctx->pos, 0x2000 + ctx->pos,
				fs_umode_to_dtype(p->mode)))
			return 0;
	}
	return 0;
}

static noinline int proc_tgid_base_readdir(struct file *file, struct dir_context *ctx)
{
	return proc_pident_readdir(file, ctx, tgid_base_stuff, ARRAY_SIZE(tgid_base_stuff));
}

/* ---- /proc/PID/task: a directory per thread of the process ---- */

/* a thread's own files (6.1's tid_base_stuff, of those the model has) */
static const struct pid_entry tid_base_stuff[] = {
	{ "fd", S_IFDIR | 0500, NULL, NULL, &proc_fd_inode_operations, &proc_fd_operations },
	{ "fdinfo", S_IFDIR | 0555, NULL, NULL, &proc_fdinfo_inode_operations, &proc_fdinfo_operations },
	{ "ns", S_IFDIR | 0511, NULL, NULL, &proc_ns_dir_inode_operations, &proc_ns_dir_operations },
	{ "environ", S_IFREG | 0400, NULL, NULL, NULL, &proc_environ_operations },
	{ "auxv", S_IFREG | 0400, NULL, NULL, NULL, &proc_auxv_operations },
	{ "status", S_IFREG | 0444, proc_pid_status },
	{ "personality", S_IFREG | 0400, proc_pid_personality },
	{ "limits", S_IFREG | 0444, proc_pid_limits },
	{ "sched", S_IFREG | 0644, NULL, NULL, NULL, &proc_pid_sched_operations },
	{ "comm", S_IFREG | 0644, comm_show },
	{ "syscall", S_IFREG | 0400, proc_pid_syscall },
	{ "cmdline", S_IFREG | 0444, proc_pid_cmdline_show },
	{ "stat", S_IFREG | 0444, proc_tid_stat },
	{ "statm", S_IFREG | 0444, proc_pid_statm },
	{ "maps", S_IFREG | 0444, proc_pid_maps_show },
	{ "mem", S_IFREG | 0600, NULL, NULL, NULL, &proc_mem_operations },
	{ "cwd", S_IFLNK | 0777, .proc_get_link = proc_cwd_link },
	{ "root", S_IFLNK | 0777, .proc_get_link = proc_root_link },
	{ "exe", S_IFLNK | 0777, .proc_get_link = proc_exe_link },
	{ "mounts", S_IFREG | 0444, proc_pid_mounts_show },
	{ "mountinfo", S_IFREG | 0444, proc_pid_mountinfo_show },
	{ "wchan", S_IFREG | 0444, proc_pid_wchan },
	{ "stack", S_IFREG | 0400, proc_pid_stack },
	{ "schedstat", S_IFREG | 0444, proc_pid_schedstat },
	{ "oom_score", S_IFREG | 0444, proc_oom_score },
	{ "oom_score_adj", S_IFREG | 0644, NULL, NULL, NULL, &proc_oom_score_adj_operations },
	{ "io", S_IFREG | 0400, proc_tid_io_accounting },
};

/* a directory's links: "." and its parent's entry, and each subdirectory's ".." */
static notrace unsigned int pid_entry_nlink(const struct pid_entry *entries, unsigned int n)
{
	unsigned int i, count = 2;

	for (i = 0; i < n; i++)
		if (S_ISDIR(entries[i].mode))
			++count;
	return count;
}

static noinline int proc_tid_base_readdir(struct file *file, struct dir_context *ctx)
{
	return proc_pident_readdir(file, ctx, tid_base_stuff, ARRAY_SIZE(tid_base_stuff));
}

static noinline struct dentry *proc_tid_base_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	return proc_pident_lookup(dir, dentry, tid_base_stuff, tid_base_stuff + ARRAY_SIZE(tid_base_stuff));
}

/* (no chmod of a thread's directory: proc_setattr's refusal, then its change) */
static noinline int proc_nochmod_setattr(struct dentry *dentry, struct iattr *attr)
{
	if (attr->ia_valid & ATTR_MODE)
		return -EPERM;
	return proc_setattr(dentry, attr);
}

static const struct file_operations proc_tid_base_operations = {
	.read = generic_read_dir,
	.iterate_shared = proc_tid_base_readdir,
	.llseek = default_llseek,
};

static const struct inode_operations proc_tid_base_inode_operations = {
	.lookup = proc_tid_base_lookup,
	.getattr = pid_getattr,
	.setattr = proc_nochmod_setattr,
};

static noinline struct dentry *proc_task_instantiate(struct dentry *dentry, pid_t tid, const void *ptr)
{
	struct inode *inode = proc_pid_make_inode(dentry->d_sb, tid, S_IFDIR | 0555);

	if (!inode)
		return (void *)(long)-ENOENT;
	inode->i_op = &proc_tid_base_inode_operations;
	inode->i_fop = &proc_tid_base_operations;
	set_nlink(inode, pid_entry_nlink(tid_base_stuff, ARRAY_SIZE(tid_base_stuff)));
	d_set_d_op(dentry, &proc_pid_dentry_operations);
	d_add(dentry, inode);
	return NULL;
}

/* a thread of the directory's process, by its tid */
static noinline struct dentry *proc_task_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	int tid = fd_from_name(&dentry->d_name);
	struct task_struct *task;
	bool same_group;
	unsigned long irq;

	if (tid <= 0 || !get_proc_task_locked(dir, &irq))
		return (void *)(long)-ENOENT;
	task = find_task_by_pid(tid);
	same_group = task && task->tgid == PROC_I_PID(dir) && task->exit_state != EXIT_DEAD;
	spin_unlock_irqrestore(&sched_lock, irq);
	if (!same_group)
		return (void *)(long)-ENOENT;
	return proc_task_instantiate(dentry, tid, NULL);
}

/* A readdir entry of a child made on demand: its dentry, found or made as a lookup would
 * make it, gives the entry its inode's number and type */
noinline bool proc_fill_cache(struct file *file, struct dir_context *ctx, const char *name, unsigned int len,
			      instantiate_t instantiate, pid_t pid, const void *ptr)
{
	struct dentry *child, *dir = file->f_path.dentry;
	struct qstr qname = QSTR_INIT((const unsigned char *)name, len);
	unsigned long ino = 0;
	unsigned int type = DT_UNKNOWN;

	child = d_lookup(dir, &qname);
	if (!child) {
		child = d_alloc(dir, &qname);
		if (child && instantiate(child, pid, ptr)) {	/* (an error: the child stays negative) */
			dput(child);
			child = NULL;
		}
	}
	if (child) {
		if (child->d_inode) {
			ino = child->d_inode->i_ino;
			type = fs_umode_to_dtype(child->d_inode->i_mode);
		}
		dput(child);
	}
	/* (6.1 gives an entry it could not make inode 1) */
	return ctx->actor(ctx, name, len, ctx->pos, ino ? ino : 1, type);
}

/* ".", "..", then the threads by tid; f_version: the last one given, where the next call
 * goes on from (a seek back to the start forgets it) */
static noinline int proc_task_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *inode = file->f_inode;
	pid_t tgid = PROC_I_PID(inode), last;
	unsigned long irq;

	if (!get_proc_task_locked(inode, &irq))
		return -ENOENT;
	spin_unlock_irqrestore(&sched_lock, irq);
	if (!dir_emit_dots(file, ctx))
		return 0;
	last = ctx->pos > 2 ? (pid_t)file->f_version : 0;
	for (;;) {
		struct task_struct *t;
		pid_t tid = 0;
		char name[12];
		int len;

		spin_lock_irqsave(&sched_lock, irq);
		list_for_each_entry(t, &task_list, tasks)
			if (t->tgid == tgid && t->pid > last && t->exit_state != EXIT_DEAD && (!tid || t->pid < tid))
				tid = t->pid;
		spin_unlock_irqrestore(&sched_lock, irq);
		if (!tid)
			break;
		len = scnprintf(name, sizeof(name), "%d", tid);
		if (!proc_fill_cache(file, ctx, name, len, proc_task_instantiate, tid, NULL))
			break;
		file->f_version = last = tid;
		ctx->pos++;
	}
	return 0;
}

/* the directory's links: its own two, and one per thread's directory */
static noinline int proc_task_getattr(const struct path *path, struct kstat *stat, u32 request_mask,
				      unsigned int query_flags)
{
	struct inode *inode = path->dentry->d_inode;
	struct task_struct *p;
	unsigned long irq;

	generic_fillattr(NULL, inode, stat);
	p = get_proc_task_locked(inode, &irq);
	if (p) {
		stat->nlink += p->signal ? p->signal->nr_threads : 1;
		spin_unlock_irqrestore(&sched_lock, irq);
	}
	return 0;
}

static const struct inode_operations proc_task_inode_operations = {
	.lookup = proc_task_lookup,
	.getattr = proc_task_getattr,
	.setattr = proc_nochmod_setattr,
};

static const struct file_operations proc_task_operations = {
	.read = generic_read_dir,
	.iterate_shared = proc_task_readdir,
	.llseek = default_llseek,
};

static const struct file_operations proc_tgid_base_operations = {
	.read = generic_read_dir,
	.iterate_shared = proc_tgid_base_readdir,
	.llseek = default_llseek,
};

static const struct inode_operations proc_tgid_base_inode_operations = {
	.lookup = proc_tgid_base_lookup,
	.getattr = pid_getattr,
	.setattr = proc_setattr,
};

/* a /proc/PID inode of the process, owned as task_dump_owner says (the task by its pid: no
 * task reference counts here; NULL if it is gone meanwhile) */
noinline struct inode *proc_pid_make_inode(struct super_block *sb, pid_t tgid, umode_t mode)
{
	struct inode *inode = proc_make_inode(sb, mode, 0);
	struct task_struct *task;
	unsigned long irq;

	if (!inode)
		return NULL;
	inode->i_private = (void *)(long)tgid;
	task = get_proc_task_locked(inode, &irq);
	if (!task) {
		iput(inode);
		return NULL;
	}
	task_dump_owner(task, 0, &inode->i_uid, &inode->i_gid);
	spin_unlock_irqrestore(&sched_lock, irq);
	return inode;
}

static const struct inode_operations proc_tgid_base_inode_operations;
static const struct file_operations proc_tgid_base_operations;

static noinline struct dentry *proc_pid_instantiate(struct dentry *dentry, pid_t tgid, const void *ptr)
{
	struct inode *inode = proc_pid_make_inode(dentry->d_sb, tgid, S_IFDIR | 0555);

	if (!inode)
		return (void *)(long)-ENOENT;
	inode->i_op = &proc_tgid_base_inode_operations;
	inode->i_fop = &proc_tgid_base_operations;
	set_nlink(inode, pid_entry_nlink(tgid_base_stuff, ARRAY_SIZE(tgid_base_stuff)));
	d_set_d_op(dentry, &proc_pid_dentry_operations);
	d_add(dentry, inode);
	return NULL;
}

noinline struct dentry *proc_pid_lookup(struct dentry *dentry, unsigned int flags)
{
	int pid = fd_from_name(&dentry->d_name);
	struct dentry *result;
	struct task_struct *t;
	unsigned long irq;

	if (pid <= 0)
		return (void *)(long)-ENOENT;
	spin_lock_irqsave(&sched_lock, irq);
	t = find_task_by_pid(pid);
	if (!t || t->pid != t->tgid || t->exit_state == EXIT_DEAD) {
		spin_unlock_irqrestore(&sched_lock, irq);
		return (void *)(long)-ENOENT;
	}
	spin_unlock_irqrestore(&sched_lock, irq);
	result = proc_pid_instantiate(dentry, pid, NULL);
	return result;
}

/* The processes after the fixed entries: position 2 + nr_entries + n is the nth by pid. */
noinline int proc_pid_readdir(struct file *file, struct dir_context *ctx)
{
	loff_t base = ctx->pos;
	pid_t next = 0;

	/* pids in ascending order, one lookup each: resumable at the next larger pid */
	for (;;) {
		struct task_struct *t;
		unsigned long irq;
		pid_t best = 0;
		char name[12];
		int len;

		spin_lock_irqsave(&sched_lock, irq);
		list_for_each_entry(t, &task_list, tasks)
			if (t->pid == t->tgid && t->pid > next && t->exit_state != EXIT_DEAD &&
			    !(t->flags & PF_IDLE) && (!best || t->pid < best))
				best = t->pid;
		spin_unlock_irqrestore(&sched_lock, irq);
		if (!best)
			break;
		next = best;
		if (file->f_version && best <= (pid_t)file->f_version)
			continue;
		len = scnprintf(name, sizeof(name), "%d", best);
		if (!ctx->actor(ctx, name, len, ctx->pos, 0x100000 + best, DT_DIR))
			break;
		file->f_version = best;
		ctx->pos++;
	}
	(void)base;
	return 0;
}

/* ---- the files: single_open on the entry's show ---- */
/* a process's file (fs/proc/base.c): the entry's show of the inode's process */
static noinline int proc_single_show(struct seq_file *m, void *v)
{
	struct inode *inode = m->private;
	const struct pid_entry *p = inode->i_entry;

	return p->show(m, inode->i_private);
}

/* a process's file shows through proc_single_show(); a root one (proc_create_single's, no
 * process) by its show */
int proc_single_open(struct inode *inode, struct file *file)
{
	const struct pid_entry *p = inode->i_entry;

	if (inode->i_private)
		return single_open(file, proc_single_show, inode);
	return single_open(file, p->show, NULL);
}

const struct file_operations proc_single_file_operations = {
	.open = proc_single_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};
