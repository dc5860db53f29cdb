/*
 * The out-of-memory killer (mm/oom_kill.c): when a blocking allocation finds nothing left
 * (page_alloc.c's __alloc_pages_may_oom), out_of_memory picks the process whose memory is the
 * largest share of RAM (oom_badness: rss, swap entries and page tables, moved by its
 * oom_score_adj; kernel threads and init never), prints the kernel log lines 6.1 prints
 * (the invoking task, the tasks' table, the summary, "Out of memory: Killed process ..."),
 * and kills it: SIGKILL to it and to every process sharing its mm, marked as the victim
 * (oom:mark_victim), which gives its allocations part of the reserve until it exits.  Until
 * then, further OOMs wait for it (the selection aborts on a victim whose mm is still there).
 * Not modelled: the oom reaper thread (no oom:wake_reaper / *_task_reaping events; its reaping
 * is there for process_mrelease(2)), memcg and cpuset
 * constraints (always a global OOM, CONSTRAINT_NONE), panic_on_oom, oom_kill_allocating_task,
 * and dump_header's stack dump and show_mem() lines (Mem-Info and the per-zone tables).
 */
#include "../include/fs.h"
#include "../include/cred.h"
#include "../include/kernel.h"
#include "../include/oom.h"
#include "../include/session.h"
#include "../include/trace/trace.h"
#include "../include/syscalls.h"
#include "../include/pid.h"
#include "../include/mmap_lock.h"

DEFINE_MUTEX(oom_lock);
static int oom_victims;		/* victims in flight: their memory is not back yet */
/* (the model's) victims whose memory came back, ever; and its count when the allocation now
 * asking the OOM killer last found no page (page_alloc.c, under oom_lock) */
unsigned long oom_victims_gone, oom_victims_gone_seen;

#define K(x) ((x) << (PAGE_SHIFT - 10))

/* kernel threads and init are never killed; nor a session's tasks (no signal struct: their
 * signals and their memory are their host processes', killing them would free nothing here) */
static inline bool oom_unkillable_task(struct task_struct *p)
{
	return is_global_init(p) || (p->flags & (PF_KTHREAD | PF_IDLE)) || !p->signal;
}

static inline bool same_thread_group(struct task_struct *a, struct task_struct *b)
{
	return a->tgid == b->tgid;
}

/*
 * A thread of p's group that still has its mm (p itself may be a leader that exited while
 * its threads go on), or NULL.  The caller holds sched_lock (6.1: task_lock of the thread;
 * here the lock under which exec and the last switch of a dead task change tsk->mm).
 */
noinline struct task_struct *find_lock_task_mm(struct task_struct *p)
{
	struct task_struct *t;

	if (p->mm)
		return p;
	list_for_each_entry(t, &task_list, tasks)
		if (same_thread_group(t, p) && t->mm)
			return t;
	return NULL;
}

/* Whether p (a process) uses mm: a thread of it that still has one uses this one. */
noinline bool process_shares_mm(struct task_struct *p, struct mm_struct *mm)
{
	struct task_struct *t;

	list_for_each_entry(t, &task_list, tasks)	/* for_each_thread */
		if (same_thread_group(t, p) && t->mm)
			return t->mm == mm;
	return false;
}

/*
 * The badness of p: its pages in RAM, swap entries and page tables (in pages), plus its
 * oom_score_adj in thousandths of RAM; LONG_MIN for a task never to be killed.
 */
noinline long oom_badness(struct task_struct *p, unsigned long totalpages)
{
	long points, adj;

	if (oom_unkillable_task(p))
		return LONG_MIN;
	p = find_lock_task_mm(p);
	if (!p)
		return LONG_MIN;
	adj = p->oom_score_adj;
	if (adj == OOM_SCORE_ADJ_MIN || (p->mm->flags & (1UL << MMF_OOM_SKIP)) || p->vfork_done)
		return LONG_MIN;	/* (p->vfork_done: in_vfork(), a vfork child on its parent's mm) */
	points = get_mm_rss(p->mm) + get_mm_counter(p->mm, MM_SWAPENTS) + mm_pgtables_bytes(p->mm) / PAGE_SIZE;
	adj *= totalpages / 1000;
	return points + adj;
}

/* Each process in turn: the one with the most points so far is chosen; a victim still on its
 * way out aborts the selection (chosen = -1: wait for it), unless its memory is already gone. */
static noinline int oom_evaluate_task(struct task_struct *task, void *arg)
{
	struct oom_control *oc = arg;
	long points;

	if (oom_unkillable_task(task))
		return 0;
	if (tsk_is_oom_victim(task)) {
		if (task->signal->oom_mm->flags & (1UL << MMF_OOM_SKIP))
			return 0;
		oc->chosen = (void *)-1UL;
		return 1;
	}
	points = oom_badness(task, oc->totalpages);
	if (points == LONG_MIN || points < oc->chosen_points)
		return 0;
	oc->chosen = task;
	oc->chosen_points = points;
	return 0;
}

/* for_each_process: every thread group's leader (zombie leaders of live threads included) */
#define for_each_process(p) \
	list_for_each_entry(p, &task_list, tasks) \
		if (p->pid == p->tgid)

static void select_bad_process(struct oom_control *oc)
{
	struct task_struct *p;
	unsigned long flags;

	oc->chosen_points = LONG_MIN;
	spin_lock_irqsave(&sched_lock, flags);
	for_each_process(p)
		if (oom_evaluate_task(p, oc))
			break;
	spin_unlock_irqrestore(&sched_lock, flags);
	/*
	 * The model puts a dead task's mm at its last switch, after its parent may have reaped it
	 * (6.1's exit_mm comes before the exit is told): a victim gone from the task list may still
	 * be freeing its memory, or have freed it since the allocation failed.  Either way that is
	 * progress: wait for it and retry, as for a victim found above.
	 */
	if (oc->chosen != (void *)-1UL && (READ_ONCE(oom_victims) ||
					    READ_ONCE(oom_victims_gone) != oom_victims_gone_seen))
		oc->chosen = (void *)-1UL;
}

static noinline int dump_task(struct task_struct *p, void *arg)
{
	struct task_struct *task;

	if (oom_unkillable_task(p))
		return 0;
	task = find_lock_task_mm(p);
	if (!task)	/* all its threads left their mm: they cannot be killed anyway */
		return 0;
	printk(KERN_INFO "[%7d] %5u %5d %8lu %8lu %8ld %8lu         %5d %s\n",
	       task->pid, __task_cred(task)->uid, task->tgid, task->mm->total_vm, get_mm_rss(task->mm),
	       (long)mm_pgtables_bytes(task->mm), get_mm_counter(task->mm, MM_SWAPENTS),
	       (int)task->oom_score_adj, task->comm);
	return 0;
}

static void dump_tasks(struct oom_control *oc)
{
	struct task_struct *p;
	unsigned long flags;

	printk(KERN_INFO "Tasks state (memory values in pages):\n");
	printk(KERN_INFO "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n");
	spin_lock_irqsave(&sched_lock, flags);
	for_each_process(p)
		dump_task(p, oc);
	spin_unlock_irqrestore(&sched_lock, flags);
}

static void format_gfp(char *buf, size_t size, gfp_t gfp)
{
	unsigned long flags = gfp;
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; gfpflag_names[i].name && flags; i++) {	/* %pGg: format_flags(gfpflag_names) */
		unsigned long mask = gfpflag_names[i].mask;

		if (!mask || (flags & mask) != mask)
			continue;
		flags &= ~mask;
		len += scnprintf(buf + len, size - len, "%s%s", len ? "|" : "", gfpflag_names[i].name);
	}
	if (flags)
		scnprintf(buf + len, size - len, "%s0x%lx", len ? "|" : "", flags);
}

/* (in .text.unlikely in 6.1: in kallsyms, not traceable) */
static noinline notrace void dump_header(struct oom_control *oc, struct task_struct *p)
{
	char gfp[256];

	format_gfp(gfp, sizeof(gfp), oc->gfp_mask);
	printk(KERN_WARNING "%s invoked oom-killer: gfp_mask=0x%x(%s), order=%d, oom_score_adj=%d\n",
	       current->comm, oc->gfp_mask, gfp, oc->order, (int)current->oom_score_adj);
	dump_tasks(oc);
	if (p)	/* dump_oom_summary(): one line of the context (no cpuset, no memcg) */
		printk(KERN_INFO "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,"
		       "global_oom,task_memcg=/,task=%s,pid=%d,uid=%u\n", p->comm, p->pid, __task_cred(p)->uid);
}

/* The victim's allocations may use part of the reserve (tsk_is_oom_victim) until it exits. */
static noinline void mark_oom_victim(struct task_struct *tsk)
{
	struct mm_struct *mm;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);	/* (task_lock: tsk->mm stays) */
	mm = tsk->mm;
	if (!mm || !tsk->signal || __atomic_exchange_n(&tsk->memdie, true, __ATOMIC_ACQ_REL)) {	/* TIF_MEMDIE */
		spin_unlock_irqrestore(&sched_lock, flags);
		return;
	}
	if (!__sync_val_compare_and_swap(&tsk->signal->oom_mm, NULL, mm))
		mmgrab(mm);	/* held until the signal struct goes (release_signal) */
	spin_unlock_irqrestore(&sched_lock, flags);
	__atomic_add_fetch(&oom_victims, 1, __ATOMIC_RELAXED);
	trace_mark_victim(tsk, __task_cred(tsk)->uid);
}

/* A victim's mm is gone (the model puts a dead task's mm at its last switch: that task). */
noinline void exit_oom_victim(struct task_struct *tsk)
{
	tsk->memdie = false;
	__atomic_add_fetch(&oom_victims_gone, 1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&oom_victims, 1, __ATOMIC_RELEASE);
}

static inline bool __task_will_free_mem(struct task_struct *task)
{
	struct signal_struct *sig = task->signal;

	if (sig && (sig->flags & SIGNAL_GROUP_EXIT))
		return true;
	return (!sig || sig->nr_threads <= 1) && (task->flags & PF_EXITING);
}

/* Whether the task is dying and will free its mm: it and every process sharing the mm exit
 * (under sched_lock, which keeps task->mm as it is). */
static noinline bool task_will_free_mem(struct task_struct *task)
{
	struct mm_struct *mm;
	struct task_struct *p;
	unsigned long flags;
	bool ret = true;

	spin_lock_irqsave(&sched_lock, flags);
	mm = task->mm;
	if (!mm || !__task_will_free_mem(task) || (mm->flags & (1UL << MMF_OOM_SKIP)))
		ret = false;
	else if (READ_ONCE(mm->mm_users) > 1)
		for_each_process(p) {
			if (!process_shares_mm(p, mm) || same_thread_group(task, p))
				continue;
			ret = __task_will_free_mem(p);
			if (!ret)
				break;
		}
	spin_unlock_irqrestore(&sched_lock, flags);
	return ret;
}

#define MAX_SHARERS 16
static noinline void __oom_kill_process(struct task_struct *victim, const char *message)
{
	struct sigqueue_info info = { .code = SI_KERNEL };	/* SEND_SIG_PRIV */
	struct task_struct *p, *sharers[MAX_SHARERS];
	struct mm_struct *mm;
	unsigned long flags;
	int i, n = 0;

	spin_lock_irqsave(&sched_lock, flags);
	p = find_lock_task_mm(victim);
	if (!p) {
		spin_unlock_irqrestore(&sched_lock, flags);
		printk(KERN_INFO "%s: OOM victim %d (%s) is already exiting. Skip killing the task\n",
		       message, victim->pid, victim->comm);
		return;
	}
	victim = p;
	mm = victim->mm;
	mmgrab(mm);
	spin_unlock_irqrestore(&sched_lock, flags);

	/* SIGKILL first, so that the reserve it gets is not the user's to deplete */
	do_send_sig_info(SIGKILL, &info, victim, true);
	mark_oom_victim(victim);
	printk(KERN_ERR "%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, "
	       "shmem-rss:%lukB, UID:%u pgtables:%lukB oom_score_adj:%d\n",
	       message, victim->pid, victim->comm, K(mm->total_vm), K(get_mm_counter(mm, MM_ANONPAGES)),
	       K(get_mm_counter(mm, MM_FILEPAGES)), K(get_mm_counter(mm, MM_SHMEMPAGES)), __task_cred(victim)->uid,
	       mm_pgtables_bytes(mm) >> 10, (int)victim->oom_score_adj);

	/* every other process on the same mm (a vfork child, CLONE_VM without a thread group) */
	spin_lock_irqsave(&sched_lock, flags);
	for_each_process(p) {
		if (!process_shares_mm(p, mm) || same_thread_group(p, victim))
			continue;
		if (is_global_init(p)) {
			__atomic_or_fetch(&mm->flags, 1UL << MMF_OOM_SKIP, __ATOMIC_RELAXED);
			printk(KERN_INFO "oom killer %d (%s) has mm pinned by %d (%s)\n",
			       victim->pid, victim->comm, p->pid, p->comm);
			continue;
		}
		if (p->flags & PF_KTHREAD)
			continue;
		if (n < MAX_SHARERS)
			sharers[n++] = p;
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	for (i = 0; i < n; i++)	/* (signals are sent without sched_lock: siglock comes first) */
		do_send_sig_info(SIGKILL, &info, sharers[i], true);
	mmdrop(mm);
}

static noinline void oom_kill_process(struct oom_control *oc, const char *message)
{
	struct task_struct *victim = oc->chosen;

	/* already on its way out: no alarm, no kill, only the reserve to die quickly */
	if (task_will_free_mem(victim)) {
		mark_oom_victim(victim);
		return;
	}
	dump_header(oc, victim);
	__oom_kill_process(victim, message);
}

/*
 * Kill the process that frees the most memory.  Returns whether that helped (a victim was
 * killed, or one is still on its way out): the allocator then retries.  The caller holds
 * oom_lock.  Tasks found here stay valid while preemption is off (freed after an RCU grace
 * period once reaped, as 6.1's under rcu_read_lock).
 */
noinline bool out_of_memory(struct oom_control *oc)
{
	bool ret;

	/* the current task, already dying, gets the reserve to exit */
	if (task_will_free_mem(current)) {
		mark_oom_victim(current);
		return true;
	}
	/* no OOM kill for an allocation that cannot enter file systems (GFP_NOFS, GFP_NOIO) */
	if (oc->gfp_mask && !(oc->gfp_mask & __GFP_FS))
		return true;
	oc->constraint = CONSTRAINT_NONE;
	oc->totalpages = totalram_pages();	/* + total_swap_pages: no swap */
	preempt_disable();
	select_bad_process(oc);
	if (!oc->chosen) {
		dump_header(oc, NULL);
		printk(KERN_WARNING "Out of memory and no killable processes...\n");
		panic("System is deadlocked on memory\n");
	}
	if (oc->chosen != (void *)-1UL)
		oom_kill_process(oc, "Out of memory");
	ret = !!oc->chosen;
	preempt_enable();
	return ret;
}

/* A fault's allocation failed and the fault handler got VM_FAULT_OOM: the OOM killer ran in the
 * allocation (a global OOM, no memcg to handle here); a task it killed just goes. */
noinline void pagefault_out_of_memory(void)
{
	if (fatal_signal_pending(current))
		return;
	printk(KERN_WARNING "Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF\n");
}

/*
 * The memory of a dying process's mm given back now, not at its last exit (the oom reaper's
 * work, which process_mrelease(2) does for its caller): the pages of every private mapping
 * (a shared one's stay with its file) zapped.  The caller holds the mmap_lock for reading.
 * A session task's VMAs are its host process's: nothing of them is here to free.
 */
noinline bool __oom_reap_task_mm(struct mm_struct *mm)
{
	struct vm_area_struct *vma;

	if (mm_host_vmas(mm))
		return true;
	list_for_each_entry(vma, &mm->mm_mt.vmas, vm_list) {
		if (vma->vm_flags & VM_PFNMAP)	/* (and VM_HUGETLB: no hugetlb here) */
			continue;
		if (vma_is_anonymous(vma) || !(vma->vm_flags & VM_SHARED))
			zap_page_range(vma, vma->vm_start, vma->vm_end);
	}
	return true;
}

/* A process (its pidfd) that is exiting, its memory reaped at once: EINVAL unless it is on its
 * way out (or its memory already went), ESRCH once no thread has an mm. */
SYSCALL_DEFINE2(process_mrelease, int, pidfd, unsigned int, flags)
{
	struct mm_struct *mm = NULL;
	struct task_struct *task, *p;
	unsigned int f_flags;
	unsigned long irq;
	bool reap = false;
	long ret = 0;

	if (flags)
		return -EINVAL;
	preempt_disable();	/* rcu_read_lock(): the task stays while it is looked at */
	task = pidfd_get_task(pidfd, &f_flags);
	if (IS_ERR(task)) {
		preempt_enable();
		return PTR_ERR(task);
	}
	/* a thread that still has the mm, during the group's exit */
	spin_lock_irqsave(&sched_lock, irq);
	p = find_lock_task_mm(task);
	if (p) {
		mm = p->mm;
		mmgrab(mm);
	}
	spin_unlock_irqrestore(&sched_lock, irq);
	if (!mm) {
		preempt_enable();
		return -ESRCH;
	}
	if (task_will_free_mem(p))
		reap = true;
	else if (!(mm->flags & (1UL << MMF_OOM_SKIP)))
		ret = -EINVAL;	/* an error only if the work is not done yet */
	preempt_enable();
	if (reap) {
		if (mmap_read_lock_killable(mm)) {
			ret = -EINTR;
		} else {
			/* MMF_OOM_SKIP again: exit_mmap may have freed it all meanwhile */
			if (!(mm->flags & (1UL << MMF_OOM_SKIP)) && !__oom_reap_task_mm(mm))
				ret = -EAGAIN;
			mmap_read_unlock(mm);
		}
	}
	mmdrop(mm);
	return ret;
}
