/*
 * Session tasks: the processes of a `tracefs-sim shell`/`run` session, which run on the host,
 * as tasks of this kernel.  Their supervisor (src/tracefs_sim/session/native) writes what they
 * do into the session ring (include/uapi/session_ring.h): a record per system call, with the
 * bytes behind its pointer arguments, and one per task it first sees, per exec outcome and per
 * death by a signal.  Here each of those becomes what it is in Linux:
 *
 *  - a task is created by its parent's clone (kernel_clone: sched_process_fork,
 *    sched_wakeup_new), with the host's pid and tgid; a task whose parent is not in the
 *    session (the session's first shell, orphans) is forked from init;
 *  - its system calls are made from user mode: on its way back to user mode the task takes its
 *    next record, lays the blobs out in its own user memory (so a probe reading
 *    `+0($arg2):ustring` reads the host's path), loads the registers and returns to a
 *    `syscall` instruction, which enters entry_SYSCALL_64 -> do_syscall_64 -> the handler with
 *    the host's number and arguments;
 *  - time is shared: a call that may block on the host (read, wait4, poll, nanosleep, ...)
 *    sleeps here until the task's next record shows the host call returned, so sched_switch
 *    shows the task going to sleep and waking; between calls (its user time on the host) it
 *    waits for the next record in the same way;
 *  - execve becomes an exec here when the host's succeeded (the supervisor tells: the EXEC
 *    record), with the new comm and sched_process_exec; exit and exit_group run do_exit; a
 *    death by a signal ends the task when its EXIT record comes;
 *  - a call the supervisor asks this kernel to answer (SESSION_SC_SERVE: the host does not
 *    make it) is made the same way with the caller's own arguments; the supervisor reads and
 *    writes the caller's memory for it (session_uaccess), and gets its result in the ring's
 *    reply.
 *
 * The ring is drained by the host's "call function" interrupt (irq.c), which moves each
 * record onto its task's queue and wakes the task; the supervisor rings it when the kernel
 * said it was waiting (consumer_waiting).  What the task's user memory holds: a page with the
 * `syscall` it returns to, scratch pages for the blobs, and a window that calls may write
 * into freely (their output buffers), every page of it one shared physical page.
 */
#include "../include/fs.h"
#include "../include/session.h"
#include "../include/mmap_lock.h"
#include "../include/binfmts.h"
#include "../include/personality.h"
#include "../include/trace/trace.h"
#include "../include/uapi/session_ring.h"
#include "../include/perf_event.h"
#include "../include/signal.h"
#include "../include/workqueue.h"

struct session_ring session_ring __aligned(4096);

#define CLONE_VM 0x00000100

/* The user memory of a session task (see above).  Threads share their address space (one
 * mm, as their processes do on the host); each has its own scratch pages: the first thread's
 * at SESSION_SCRATCH_VA, the others' in slots from SESSION_SLOTS_VA.  These pages are in the
 * page tables only: the mm's VMAs are the host process's (MMF_HOST_VMAS), and may overlap them. */
#define SESSION_STUB_VA		0x7ffe00000000UL
#define SESSION_SCRATCH_VA	(SESSION_STUB_VA + PAGE_SIZE)
#define SESSION_SCRATCH_PAGES	4
#define SESSION_SCRATCH_SIZE	(SESSION_SCRATCH_PAGES * PAGE_SIZE)
#define SESSION_SINK_VA		(SESSION_STUB_VA + (1UL << 20))
#define SESSION_SINK_SIZE	(1UL << 20)
#define SESSION_SLOTS_VA	(SESSION_SINK_VA + SESSION_SINK_SIZE)
#define SESSION_SLOTS		4096	/* threads alive at once in one process, but the first */

/* A record on its task's queue (a copy out of the ring). */
struct queued_record {
	struct list_head node;
	struct list_head inflight;	/* on `inflight` until it is done with */
	u64 seq;			/* its place in the ring's order: the first record is 1 */
	struct session_record rec;	/* rec.len bytes, payload included */
};

#define TID_BUCKETS 256
static struct list_head tid_buckets[TID_BUCKETS];
static spinlock_t session_lock;
static LIST_HEAD(pending_roots);	/* NEW_TASK records of tasks without a parent in the session */
static struct wait_queue_head served_wq;	/* served calls waiting for older records */
static void *stub_page, *sink_page;
u64 session_records_taken, session_tasks_created;

static struct list_head *bucket(pid_t tid)
{
	return &tid_buckets[(unsigned int)tid % TID_BUCKETS];
}

/* Under session_lock. */
static struct session_task *lookup(pid_t tid)
{
	struct session_task *st;

	list_for_each_entry(st, bucket(tid), node)
		if (st->tid == tid)
			return st;
	return NULL;
}

/* Under session_lock: the tid's entry, made (parked, without a task yet) if new. */
static struct session_task *lookup_or_park(pid_t tid)
{
	struct session_task *st = lookup(tid);

	if (st)
		return st;
	st = kzalloc(sizeof(*st), GFP_ATOMIC);
	if (!st)
		return NULL;
	st->tid = tid;
	INIT_LIST_HEAD(&st->queue);
	list_add_tail(&st->node, bucket(tid));
	return st;
}

/*
 * The kernel's signals for the session's processes (uapi/session_ring.h: session_signals): the
 * slot first, then the count the supervisor reads, then its wake eventfd (no answer waited for).
 * Any cpu, any context: a lock of its own, the producers' only.
 */
static spinlock_t session_signal_lock;

bool session_post_signal(struct task_struct *t, int sig, bool group)
{
	struct session_signals *q = &session_ring.signals;
	unsigned long flags;
	bool posted = false;

	spin_lock_irqsave(&session_signal_lock, flags);
	if (q->posted - __atomic_load_n(&q->taken, __ATOMIC_ACQUIRE) < SESSION_SIGNALS) {
		q->slot[q->posted % SESSION_SIGNALS] = (struct session_signal){
			.tid = group ? t->tgid : t->pid, .tgid = t->tgid, .sig = sig, .group = group };
		__atomic_store_n(&q->posted, q->posted + 1, __ATOMIC_RELEASE);
		posted = true;
	} else {
		q->lost++;
	}
	spin_unlock_irqrestore(&session_signal_lock, flags);
	if (posted)
		host_doorbell(PORT_PERF_WAKEUP, 0);
	return posted;
}

/* the ring's records past an interrupt's budget (session_ring_interrupt()) */
static struct work_struct session_ring_work;
static notrace void session_ring_work_fn(struct work_struct *work);

void __init session_init(void)
{
	int i;

	session_ring.data_size = SESSION_RING_DATA_SIZE;
	session_ring.consumer_waiting = 1;	/* empty: the first record rings */
	session_ring.magic = SESSION_RING_MAGIC;	/* last: the host may look now */
	for (i = 0; i < TID_BUCKETS; i++)
		INIT_LIST_HEAD(&tid_buckets[i]);
	init_waitqueue_head(&served_wq);
	INIT_WORK(&session_ring_work, session_ring_work_fn);
}

/* ---- the ring ---- */

static struct queued_record *copy_out(const struct session_record *rec)
{
	struct queued_record *q = kmalloc(offsetof(struct queued_record, rec) + rec->len, GFP_ATOMIC);

	if (q)
		memcpy(&q->rec, rec, rec->len);
	return q;
}

/*
 * Records done with: struct session_ring's `retired` counts them, `retired_upto` says up to
 * which record in the ring's order all are.  Tasks take their records in their own order, so
 * a count can reach a number while an older record still waits on a slow task's queue: the
 * daemon waits for `retired_upto`.  Records not done with are on `inflight`, oldest first.
 */
static LIST_HEAD(inflight);
static u64 records_taken;	/* taken off the ring: the seq of the last */
static u64 given_up_upto;	/* older records a served call waited for in vain (see below) */

/* Under session_lock. */
static void publish_retired(u64 n)
{
	u64 upto = list_empty(&inflight) ? records_taken :
		   list_first_entry(&inflight, struct queued_record, inflight)->seq - 1;

	__atomic_add_fetch(&session_ring.retired, n, __ATOMIC_RELEASE);
	if (!list_empty(&served_wq.head))	/* (an address space's waiter may wait for any) */
		wake_up_interruptible_all(&served_wq);
	__atomic_store_n(&session_ring.retired_upto, upto, __ATOMIC_RELEASE);
}

/* Whether every record older than q is done with, but those given up on; with mm, every
 * record of the tasks that run in mm. */
static bool older_records_done(struct queued_record *q, struct mm_struct *mm)
{
	struct queued_record *r;
	unsigned long flags;
	bool done = true;

	spin_lock_irqsave(&session_lock, flags);
	list_for_each_entry(r, &inflight, inflight) {
		if (r == q || r->seq > q->seq)
			break;
		if (r->seq <= given_up_upto)
			continue;
		if (mm) {
			struct session_task *other = lookup(r->rec.tid);

			if (!other || !other->task || other->task->mm != mm)
				continue;
		}
		done = false;
		break;
	}
	spin_unlock_irqrestore(&session_lock, flags);
	return done;
}

/*
 * A session task's wait that found no child to wait for: whether the other tasks of its
 * address space (its threads) have records still to do that their processes wrote before the
 * call (each task's records replay on their own: a thread's clone of the child whose end the
 * host's wait took may come here after the wait).
 */
bool session_older_records_of_mm(struct task_struct *t)
{
	struct queued_record *r;
	unsigned long flags;
	bool pending = false;

	spin_lock_irqsave(&session_lock, flags);
	list_for_each_entry(r, &inflight, inflight) {
		struct session_task *other;

		if (r->seq >= t->session->call_seq)
			break;
		if (r->seq <= given_up_upto)
			continue;
		other = lookup(r->rec.tid);
		if (other && other->task && other->task != t && other->task->mm == t->mm) {
			pending = true;
			break;
		}
	}
	spin_unlock_irqrestore(&session_lock, flags);
	return pending;
}

/*
 * A call this kernel serves (perf_event_open, the calls on its fds, bpf) acts on the kernel as
 * it is when the call is made here.  Other tasks' records may still wait on their queues (the
 * kernel runs behind the host): the call first waits until the records written before its own
 * are done with, so that it comes after what the session did before it, as on Linux: perf
 * trace's DISABLE after the last calls of its workload, bpftrace's map reads after its
 * events.  At most a second (the supervisor waits 2 s for the reply); records still there
 * then are not waited for again by later calls.  With mm: only the records of the tasks that
 * share that address space (changes_mm()).
 */
static void wait_for_older_records(struct queued_record *q, struct mm_struct *mm)
{
	unsigned long deadline = jiffies + HZ;
	struct wait_queue_entry wait = { .private = current };

	INIT_LIST_HEAD(&wait.entry);
	for (;;) {
		/* (a fatal signal: the call is not made, nothing to wait for) */
		if (prepare_to_wait_event(&served_wq, &wait, TASK_INTERRUPTIBLE) || older_records_done(q, mm))
			break;
		if (time_after_eq(jiffies, deadline)) {
			given_up_upto = max(given_up_upto, q->seq - 1);
			break;
		}
		schedule_timeout(deadline - jiffies);
	}
	finish_wait(&served_wq, &wait);
}

/* Under session_lock. */
static void __retire(struct queued_record *q)
{
	list_del_init(&q->inflight);
	publish_retired(1);
}

static void retire(struct queued_record *q)
{
	unsigned long flags;

	spin_lock_irqsave(&session_lock, flags);
	__retire(q);
	spin_unlock_irqrestore(&session_lock, flags);
}

/* Under session_lock: put a record where it belongs, and wake whoever waits for it. */
static void deliver(struct queued_record *q)
{
	struct session_record *rec = &q->rec;
	struct session_task *st;

	if (rec->type == SESSION_REC_NEW_TASK) {
		struct session_task *child = lookup_or_park(rec->tid);
		struct session_task *creator = rec->task.creator ? lookup(rec->task.creator) : NULL;

		if (child)
			child->tgid = rec->task.tgid;
		if (creator) {
			/* its clone takes it (session_clone), once the creator (maybe still to be
			 * made itself) gets there: its queue keeps the order the host's calls had */
			st = creator;
		} else {
			list_add_tail(&q->node, &pending_roots);	/* kthreadd forks it (irq.c wakes it) */
			return;
		}
	} else {
		/* a call's record may come before its task does (its clone is still to run here); an
		 * end or an exec outcome only for a task that is there */
		st = rec->type == SESSION_REC_SYSCALL ? lookup_or_park(rec->tid) : lookup(rec->tid);
		if (!st) {
			__retire(q);
			kfree(q);
			return;
		}
	}
	list_add_tail(&q->node, &st->queue);
	if (rec->type == SESSION_REC_EXIT)
		st->killed = true;
	if (st->task && (st->waiting || st->killed))
		wake_up_process(st->task);
	else if (st->task)	/* asleep in a call (a pipe, a FIFO): its wait ends (wait.c) */
		try_to_wake_up(st->task, TASK_INTERRUPTIBLE, 0);
}

/*
 * Move up to `budget` records from the ring onto their tasks' queues.  True when the ring is
 * empty (and the supervisor told to ring for the next), false when records are left.
 *
 * One consumer at a time (ring_lock): the worker, or an interrupt; an interrupt that finds
 * another at it (`trylock`) does not wait for it (false: its caller queues the worker).  It
 * cannot leave the records to that one: it may be past its last look at head, and the
 * supervisor rings once for a consumer that said it waits.  session_lock is taken a record at
 * a time, for its delivery only.
 *
 * Why: the machine runs its cpus one after the other in slices (1 ms), so a cpu spinning on a
 * lock whose holder's slice ended spins its whole slice.  With session_lock held across a batch
 * and a worker taking batch after batch while the host wrote them, a task replaying its calls
 * on the other cpu (it takes session_lock for each record) got it a few hundred times a second:
 * a getppid() loop's replay crawled at ~100-500 calls/s until the loop ended, and the ring
 * overflowed; an interrupt spinning on ring_lock there did the same.
 */
static spinlock_t ring_lock;

static notrace bool session_ring_take(unsigned int budget, bool interrupt)
{
	struct session_ring *r = &session_ring;
	unsigned long flags = arch_local_irq_save();
	bool empty = false;

	if (interrupt && !spin_trylock(&ring_lock)) {
		/* not "empty": the other consumer may have looked at head for the last time before
		 * the record this interrupt is for; the worker (queued by the caller) takes it */
		arch_local_irq_restore(flags);
		return false;
	}
	if (!interrupt)
		spin_lock(&ring_lock);
	while (budget--) {
		u64 tail = r->tail, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

		if (tail == head) {
			/* tell the supervisor to ring; then look once more (it may have just written) */
			__atomic_store_n(&r->consumer_waiting, 1, __ATOMIC_SEQ_CST);
			host_mb();	/* the store before the load, on the host too */
			if (__atomic_load_n(&r->head, __ATOMIC_SEQ_CST) == tail) {
				empty = true;
				break;
			}
			r->consumer_waiting = 0;
			continue;
		}
		{
			const struct session_record *rec =
				(const void *)&r->data[tail % SESSION_RING_DATA_SIZE];
			u64 len = rec->len;

			if (rec->type == SESSION_REC_PAD) {
				len = SESSION_RING_DATA_SIZE - tail % SESSION_RING_DATA_SIZE;
			} else if (len >= offsetof(struct session_record, sc) && len <= SESSION_RECORD_MAX &&
				   !(len & 7)) {
				struct queued_record *q = copy_out(rec);

				spin_lock(&session_lock);
				records_taken++;
				if (q) {
					session_records_taken++;
					q->seq = records_taken;
					list_add_tail(&q->inflight, &inflight);
					deliver(q);
				} else {
					publish_retired(1);	/* dropped: no memory for it */
				}
				spin_unlock(&session_lock);
			} else {
				panic("session ring: a record of a bad length");
			}
			__atomic_store_n(&r->tail, tail + len, __ATOMIC_RELEASE);
		}
	}
	spin_unlock(&ring_lock);
	arch_local_irq_restore(flags);
	return empty;
}

/*
 * The interrupt takes a bounded batch (as NAPI's budget): a session that writes records as
 * fast as they are taken (its calls' replay slowed by a tracer) would otherwise keep the cpu
 * in the interrupt, and the task it interrupted (a traced program) would never run again.
 * The rest goes to a worker, which the scheduler shares the cpu with.
 */
#define SESSION_RING_BUDGET 256

static notrace void session_ring_work_fn(struct work_struct *work)
{
	while (!session_ring_take(SESSION_RING_BUDGET, false))
		if (need_resched())
			schedule();
}


/* The host's interrupt: move what the ring holds onto the tasks' queues. */
notrace void session_ring_interrupt(void)
{
	if (!session_ring_take(SESSION_RING_BUDGET, true))
		schedule_work(&session_ring_work);
}

/* ---- a session task's user memory ---- */

/* A fresh address space with the stub, scratch pages and the sink; NULL if out of memory. */
static struct mm_struct *session_mm(void **scratch)
{
	struct mm_struct *mm = mm_alloc();
	u64 va;
	int i;

	if (!mm)
		return NULL;
	mm->flags |= 1UL << MMF_GENREGS_ONLY;	/* the stub's registers are loaded from each record */
	mm->flags |= 1UL << MMF_HOST_VMAS;	/* its VMAs: the host process's (MAPS records, fork) */
	mm->mmap_base = STACK_TOP - (128UL << 20);	/* (as exec's, until a MAPS record says) */
	if (!stub_page) {
		static const u8 stub[] = { 0x0f, 0x05, 0x0f, 0x0b };	/* syscall; ud2 */

		stub_page = alloc_page_zeroed();
		sink_page = alloc_page_zeroed();
		if (!stub_page || !sink_page)
			goto fail;
		memcpy(stub_page, stub, sizeof(stub));
		host_code_page(stub_page);
	}
	if (map_user_page_shared(mm, SESSION_STUB_VA, stub_page, true))
		goto fail;
	for (i = 0; i < SESSION_SCRATCH_PAGES; i++) {
		scratch[i] = alloc_page_zeroed();
		if (!scratch[i] || map_user_page(mm, SESSION_SCRATCH_VA + i * PAGE_SIZE, scratch[i], false))
			goto fail;
	}
	for (va = SESSION_SINK_VA; va < SESSION_SINK_VA + SESSION_SINK_SIZE; va += PAGE_SIZE)
		if (map_user_page_shared(mm, va, sink_page, false))
			goto fail;
	return mm;
fail:
	mmput(mm);
	return NULL;
}

/*
 * A thread's own scratch pages in the address space it shares (CLONE_VM): the first free slot
 * (its pages not mapped).  -ENOMEM when every slot is taken.
 */
static int thread_scratch(struct mm_struct *mm, struct session_task *st)
{
	int slot, i, ret = -ENOMEM;

	down_write(&mm->mmap_lock);	/* (the page tables only: no mmap_lock event) */
	for (slot = 0; slot < SESSION_SLOTS; slot++) {
		u64 va = SESSION_SLOTS_VA + slot * SESSION_SCRATCH_SIZE;

		if (user_page(mm, va))
			continue;
		for (i = 0; i < SESSION_SCRATCH_PAGES; i++) {
			st->scratch[i] = alloc_page_zeroed();
			if (!st->scratch[i] || map_user_page(mm, va + i * PAGE_SIZE, st->scratch[i], false))
				break;
		}
		if (i == SESSION_SCRATCH_PAGES) {
			st->scratch_va = va;
			ret = 0;
		} else {	/* (what was mapped goes with the mm) */
			if (st->scratch[i])
				free_page(st->scratch[i]);
		}
		break;
	}
	up_write(&mm->mmap_lock);
	return ret;
}

/* A thread's scratch slot is free again when it ends or execs (its pages go). */
static void release_scratch(struct task_struct *tsk)
{
	struct session_task *st = tsk->session;
	struct mm_struct *mm = tsk->mm;
	int i;

	if (!mm || st->scratch_va < SESSION_SLOTS_VA)
		return;
	down_write(&mm->mmap_lock);
	for (i = 0; i < SESSION_SCRATCH_PAGES; i++) {
		u64 *pte = lookup_pte(mm, st->scratch_va + i * PAGE_SIZE, false);

		if (pte && *pte) {
			*pte = 0;
			asm volatile("invlpg (%0)" : : "r"(st->scratch_va + i * PAGE_SIZE) : "memory");
			free_page(st->scratch[i]);
		}
		st->scratch[i] = NULL;
	}
	flush_tlb_mm_range(mm, st->scratch_va, st->scratch_va + SESSION_SCRATCH_SIZE);
	up_write(&mm->mmap_lock);
	st->scratch_va = 0;
}

/* The kernel's own mappings of a host process (arch_vma_name(), special_mapping_name()):
 * VMAs without a file, named in /proc/PID/maps */
static const struct vm_operations_struct host_special_vm_ops[] = {
	{ .name = "[vdso]" }, { .name = "[vvar]" }, { .name = "[vvar_vclock]" }, { .name = "[uprobes]" },
};

static const struct vm_operations_struct *host_special_ops(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(host_special_vm_ops); i++)
		if (!strcmp(host_special_vm_ops[i].name, name))
			return &host_special_vm_ops[i];
	return NULL;
}

/*
 * A MAPS record: VMAs of the host process, into the task's (fresh) address space, with the
 * layout's marks.  Bookkeeping only (MMF_HOST_VMAS): no page is mapped for them.  A file's
 * VMA holds the file at its path in the task's view of the host's tree (one open for the
 * consecutive VMAs of a file), so /proc/PID/maps names it; an exec's are perf's MMAP2
 * records, as load_elf_binary's mappings are on Linux.
 */
static void session_apply_maps(struct mm_struct *mm, const struct session_record *rec)
{
	const u8 *p = (const u8 *)(rec + 1), *end = (const u8 *)rec + rec->len;
	struct file *file = NULL;
	const char *file_path = NULL;
	unsigned int i;

	if (!mm || !mm_host_vmas(mm))
		return;
	mmap_write_lock(mm);
	mm->start_brk = rec->maps.start_brk;
	mm->brk = rec->maps.brk;
	mm->start_stack = rec->maps.start_stack;
	if (rec->maps.mmap_base)
		mm->mmap_base = rec->maps.mmap_base;
	for (i = 0; i < rec->maps.nr && p + sizeof(struct session_vma) <= end; i++) {
		const struct session_vma *v = (const void *)p;
		const char *name = (const char *)(v + 1);
		unsigned long pages = (v->end - v->start) >> 12;
		struct vm_area_struct *vma;

		p += sizeof(*v) + ALIGN(v->path_len, 8);
		if (p > end || (v->path_len && name[v->path_len - 1]))
			break;
		if (!v->path_len)
			name = "";
		if (v->start >= v->end || v->end > TASK_SIZE_MAX || (v->start | v->end) & (PAGE_SIZE - 1))
			continue;
		vma = vm_area_alloc(mm);
		if (!vma)
			break;
		vma->vm_start = v->start;
		vma->vm_end = v->end;
		vma->vm_flags = (v->flags & SESSION_VMA_READ ? VM_READ : 0) |
				(v->flags & SESSION_VMA_WRITE ? VM_WRITE : 0) |
				(v->flags & SESSION_VMA_EXEC ? VM_EXEC : 0) | VM_MAYREAD | VM_MAYEXEC |
				(v->flags & SESSION_VMA_STACK ? VM_GROWSDOWN : 0);
		if (v->flags & SESSION_VMA_SHARED)	/* a read-only shared file: opened read-only */
			vma->vm_flags |= VM_SHARED | VM_MAYSHARE |
					 (v->flags & SESSION_VMA_WRITE ? VM_MAYWRITE : 0);
		else
			vma->vm_flags |= VM_MAYWRITE;
		if (v->flags & SESSION_VMA_HEAP)
			vma->vm_flags |= VM_ACCOUNT;	/* do_brk_flags()'s, so that the brk grows it */
		if (v->flags & SESSION_VMA_FILE) {
			vma->vm_ops = &host_file_vm_ops;
			vma->vm_pgoff = v->pgoff;
			if (name[0] == '/' && (!file_path || strcmp(file_path, name))) {
				if (file)
					fput(file);
				file = filp_open(name, O_RDONLY, 0);
				if (IS_ERR(file))
					file = NULL;
				file_path = name;
			}
			if (file && name[0] == '/')
				vma->vm_file = get_file(file);
		} else {
			vma->vm_pgoff = v->start >> 12;
			if (v->flags & SESSION_VMA_SPECIAL)
				vma->vm_ops = host_special_ops(name);
		}
		vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
		if (insert_vm_struct(mm, vma)) {	/* (overlaps one it has: left out) */
			vm_area_free(vma);
			continue;
		}
		if (vma->vm_flags & VM_EXEC)
			mm->exec_vm += pages;
		else if (vma->vm_flags & VM_GROWSDOWN)
			mm->stack_vm += pages;
		else if ((vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE)
			mm->data_vm += pages;
		if (rec->maps.exec && vma->vm_file)
			perf_event_mmap(vma->vm_file, vma->vm_start, vma->vm_end - vma->vm_start, vma->vm_pgoff,
					vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC),
					vma->vm_flags & VM_SHARED ? 0x01 : 0x02);	/* MAP_SHARED, MAP_PRIVATE */
	}
	if (file)
		fput(file);
	mmap_write_unlock(mm);
}

/* Give the current task (a session task) a fresh address space. */
int session_exec_mm(struct task_struct *tsk)
{
	void *scratch[SESSION_SCRATCH_PAGES];
	struct mm_struct *mm = session_mm(scratch), *old = tsk->mm;

	if (!mm)
		return -ENOMEM;
	release_scratch(tsk);	/* a thread's slot in the address space it leaves */
	memcpy(tsk->session->scratch, scratch, sizeof(scratch));
	tsk->session->scratch_va = SESSION_SCRATCH_VA;
	tsk->mm = mm;
	if (tsk == current)
		switch_mm(mm);
	if (old)
		mmput(old);
	return 0;
}

/* ---- served calls ---- */

/*
 * A served call on /dev/kmsg (the calls on an fd, or an open that made one): what the
 * supervisor keeps of its file, to hold a reader that waits for a record (SESSION_SC_NOWAIT)
 * and to answer a poll of it: whether it is the kernel's /dev/kmsg, non-blocking, and which
 * record its reader reads next.
 */
static void serve_kmsg_state(struct session_task *st, struct session_reply *r, long ret, int nr, u64 arg0)
{
	struct file *file;
	long fd = -1;
	u64 seq = 0;

	r->kmsg = 0;
	r->kmsg_seq = 0;
	switch (nr) {
	case 0: case 1: case 8: case 16: case 17: case 18: case 19: case 20:	/* read...writev */
		fd = (long)(int)arg0;
		break;
	case 2: case 257: case 437:	/* open, openat, openat2 */
		fd = ret;
		break;
	}
	if (fd < 0 || !(file = fget(fd)))
		return;
	if (devkmsg_file_seq(file, &seq)) {
		r->kmsg = SESSION_KMSG_FILE;
		if (st->serving_nowait == file) {
			file->f_flags &= ~O_NONBLOCK;	/* (it was not the file's: load_syscall) */
			if (ret == -EAGAIN)
				r->kmsg |= SESSION_KMSG_WOULD_BLOCK;
		}
		if (file->f_flags & O_NONBLOCK)
			r->kmsg |= SESSION_KMSG_NONBLOCK;
		r->kmsg_seq = seq;
	}
	fput(file);
}

/* A served call is done: its result, to the supervisor that waits. */
static void serve_reply(struct session_task *st, long ret, int nr, u64 arg0)
{
	struct session_reply *r = &session_ring.reply;

	serve_kmsg_state(st, r, ret, nr, arg0);
	if (st->serving_nowait) {
		st->serving_nowait->f_flags &= ~O_NONBLOCK;
		fput(st->serving_nowait);
		st->serving_nowait = NULL;
	}
	r->ret = ret;
	r->region = st->serving_region;
	__atomic_store_n(&r->serial, st->serving, __ATOMIC_RELEASE);
	st->serving = 0;
	host_doorbell(PORT_SESSION_REPLY, 0);
}

/* How long the kernel waits for the supervisor to do one access (it waits on the call, so it
 * answers at once; only a dead one takes this long). */
#define UACCESS_TIMEOUT_NS 2000000000ULL

/* One request (at most SESSION_UACCESS_MAX bytes) to the supervisor: its result, -1 if none. */
static long long uaccess_request(u64 serial, unsigned int op, u64 addr, void *buf, u64 len)
{
	struct session_reply *r = &session_ring.reply;
	struct session_uaccess *ua = &r->uaccess;
	u64 asked = ua->asked + 1, deadline = ktime_get() + UACCESS_TIMEOUT_NS;
	long long result;

	if (__atomic_load_n(&r->abandoned, __ATOMIC_ACQUIRE) == serial)
		return -1;
	ua->op = op;
	ua->addr = addr;
	ua->len = len;
	if (op == SESSION_UACCESS_WRITE)
		memcpy(ua->data, buf, len);
	__atomic_store_n(&ua->asked, asked, __ATOMIC_RELEASE);
	host_doorbell(PORT_SESSION_REPLY, 0);
	while (__atomic_load_n(&ua->answered, __ATOMIC_ACQUIRE) != asked) {
		if (__atomic_load_n(&r->abandoned, __ATOMIC_ACQUIRE) == serial || ktime_get() > deadline)
			return -1;
		cpu_relax();
	}
	result = ua->result;
	if (result >= 0 && op != SESSION_UACCESS_WRITE)	/* a string's NUL too, when it came */
		memcpy(buf, ua->data, op == SESSION_UACCESS_STRING && (u64)result < len ? result + 1 : result);
	return result;
}

/* The bytes not copied (copy_*_user's result); for SESSION_UACCESS_STRING, strncpy_from_user's. */
static long session_uaccess(unsigned int op, u64 uaddr, void *buf, u64 len)
{
	u64 serial = current->session->serving, done = 0;

	while (done < len) {
		u64 n = len - done < SESSION_UACCESS_MAX ? len - done : SESSION_UACCESS_MAX;
		long long got = uaccess_request(serial, op, uaddr + done, (u8 *)buf + done, n);

		if (got < 0)
			return op == SESSION_UACCESS_STRING ? -EFAULT : (long)(len - done);
		done += got;
		if (op == SESSION_UACCESS_STRING && (u64)got < n)
			return done;	/* the NUL */
		if ((u64)got < n)
			return len - done;
	}
	return op == SESSION_UACCESS_STRING ? (long)len : 0;
}

/*
 * copy_from_user and friends for a task making a served call (mm.c): its user pointers are
 * its host process's, and the supervisor reads and writes there.
 */
long session_copy_from_user(void *to, u64 from, u64 n)
{
	return session_uaccess(SESSION_UACCESS_READ, from, to, n);
}

long session_copy_to_user(u64 to, const void *from, u64 n)
{
	return session_uaccess(SESSION_UACCESS_WRITE, to, (void *)from, n);
}

long session_strncpy_from_user(char *dst, u64 src, long count)
{
	return session_uaccess(SESSION_UACCESS_STRING, src, dst, count);
}

bool session_lookup_before(const char *name, unsigned int len, unsigned short *mode)
{
	struct session_task *st = current->session;
	int i;

	for (i = 0; st && i < 2; i++)
		if (st->before[i].name && st->before[i].len == len && !memcmp(st->before[i].name, name, len)) {
			st->before[i].name = NULL;
			*mode = st->before[i].mode;
			return true;
		}
	return false;
}

/* ---- waiting for the host ---- */

/* Sleep until the task has a record queued (or was killed); the first one, left queued. */
static struct queued_record *wait_for_record(struct session_task *st)
{
	struct queued_record *q = NULL;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&session_lock, flags);
		if (!list_empty(&st->queue))
			q = list_first_entry(&st->queue, struct queued_record, node);
		if (q) {
			st->waiting = false;
			spin_unlock_irqrestore(&session_lock, flags);
			set_current_state(TASK_RUNNING);
			return q;
		}
		set_current_state(TASK_INTERRUPTIBLE);
		st->waiting = true;
		spin_unlock_irqrestore(&session_lock, flags);
		schedule();
	}
}

static void unqueue(struct queued_record *q)
{
	unsigned long flags;

	spin_lock_irqsave(&session_lock, flags);
	list_del_init(&q->node);
	spin_unlock_irqrestore(&session_lock, flags);
}

/*
 * The calls that may block on the host: after the handler ran here, the task sleeps until its
 * next record comes, which is when the host call had returned.  Numbers of
 * arch/x86/entry/syscalls/syscall_64.tbl.
 */
static bool may_block(int nr)
{
	switch (nr) {
	case 0: case 17: case 19: case 295: case 327:		/* read, pread64, readv, preadv(2) */
	case 1: case 18: case 20: case 296: case 328:		/* write, pwrite64, writev, pwritev(2) */
	case 7: case 23: case 270: case 271:			/* poll, select, pselect6, ppoll */
	case 232: case 281: case 441:				/* epoll_wait, epoll_pwait(2) */
	case 34: case 130: case 128:				/* pause, rt_sigsuspend, rt_sigtimedwait */
	case 35: case 230:					/* nanosleep, clock_nanosleep */
	case 61: case 247:					/* wait4, waitid */
	case 202: case 449:					/* futex, futex_waitv */
	case 43: case 288: case 42: case 45: case 47:		/* accept(4), connect, recvfrom, recvmsg */
	case 44: case 46: case 299: case 307:			/* sendto, sendmsg, recvmmsg, sendmmsg */
	case 73: case 72:					/* flock, fcntl (F_SETLKW) */
	case 69: case 70: case 64: case 65:			/* msgsnd, msgrcv, semget, semop */
	case 220: case 208:					/* semtimedop, io_getevents */
	case 2: case 257: case 437:				/* open, openat, openat2 (a FIFO) */
	case 40: case 275: case 276: case 278:			/* sendfile, splice, tee, vmsplice */
	case 59: case 322:					/* execve, execveat (until it is done) */
		return true;
	default:
		return false;
	}
}

/* The task's fd `from` under the number `to` (closing what `to` was); `to` or -errno. */
static int renumber_fd(int from, int to)
{
	struct file *f = fget(from);
	int ret;

	if (!f)
		return -EBADF;
	ret = replace_fd(to, f, 0);
	fput(f);	/* fget's reference (replace_fd took its own) */
	if (ret >= 0)
		close_fd(from);
	return ret;
}

/*
 * The fd a served call made is the host fd the supervisor gave the process (SESSION_REC_FD,
 * which the supervisor writes before it takes the process's next call): the task's fd takes
 * that number, so the process's later calls on it name it the same here.  Returns the number,
 * or -errno (the fd closed) when the process got none.
 */
static long take_fd_record(struct session_task *st, int kfd)
{
	struct queued_record *q = wait_for_record(st);
	long host;

	if (q->rec.type != SESSION_REC_FD || q->rec.fd.kernel != kfd) {
		/* the supervisor never said (it died): the fd stays as it is */
		return kfd;
	}
	unqueue(q);
	retire(q);
	host = q->rec.fd.host;
	kfree(q);
	if (host < 0) {
		close_fd(kfd);
		return host;
	}
	if (host != kfd && renumber_fd(kfd, host) < 0) {
		close_fd(kfd);
		return -EMFILE;
	}
	return host;
}

/* do_syscall_64, once the call's sys_enter is recorded: the record is done with. */
void session_syscall_entered(void)
{
	struct session_task *st = current->session;
	struct queued_record *q = st->entering;

	if (!q)
		return;
	st->entering = NULL;
	retire(q);
	kfree(q);
}

/* do_syscall_64, after the handler: a call that may block waits for the host's return. */
void session_syscall_done(struct pt_regs *regs)
{
	struct session_task *st = current->session;

	st->entered = false;
	if (st->serving) {	/* the host does not make it: nothing to wait for */
		bool new_fd = st->serving_new_fd && (long)regs->ax >= 0;

		serve_reply(st, regs->ax, (int)regs->orig_ax, regs->di);
		if (new_fd)	/* the process's number for it comes next: sys_exit shows that */
			regs->ax = take_fd_record(st, regs->ax);
		return;
	}
	if (may_block(regs->orig_ax) && !st->killed)
		wait_for_record(st);
}

static struct task_struct *session_fork(struct task_struct *parent, struct session_task *st,
					const struct session_record *rec, unsigned long clone_flags);

/* ---- the next system call ---- */

/* Lay a SYSCALL record out in the task's registers and user memory. */
static void load_syscall(struct session_task *st, struct pt_regs *regs, const struct session_record *rec)
{
	const u8 *p = (const u8 *)(rec + 1), *end = (const u8 *)rec + rec->len;
	u64 args[6], used = 0;
	const char *laid[6] = { NULL };
	int i, b;

	/* a served call's pointers are its host process's (session_uaccess): it has no blobs */
	st->serving = rec->sc.flags & SESSION_SC_SERVE ? rec->sc.serial : 0;
	st->serving_new_fd = rec->sc.flags & SESSION_SC_NEW_FD;
	st->serving_region = -1;
	if (st->serving && (rec->sc.flags & SESSION_SC_NOWAIT)) {
		/* a /dev/kmsg read the supervisor holds while it would wait: made without waiting
		 * (serve_reply() takes the flag back and says it would have) */
		struct file *file = fget((unsigned int)rec->sc.args[0]);

		if (file && !(file->f_flags & O_NONBLOCK) && devkmsg_file_seq(file, &(u64){ 0 })) {
			file->f_flags |= O_NONBLOCK;
			st->serving_nowait = file;
		} else if (file) {
			fput(file);
		}
	}
	st->perf_unmap = rec->sc.flags & SESSION_SC_PERF_UNMAP ? rec->sc.serial : 0;
	st->sigreturn_known = rec->sc.flags & SESSION_SC_SIGRETURN;
	st->sigreturn_ax = st->sigreturn_known ? rec->sc.serial : 0;
	for (i = 0; i < 6; i++)
		args[i] = rec->sc.args[i];
	for (b = 0; b < rec->sc.nr_blobs && p + sizeof(struct session_blob) <= end; b++) {
		const struct session_blob *blob = (const void *)p;
		u64 room = SESSION_SCRATCH_SIZE - used;
		u64 at = st->scratch_va + used;
		u8 *k = (u8 *)st->scratch[used / PAGE_SIZE] + used % PAGE_SIZE;

		p += sizeof(*blob);
		if (blob->arg >= 6)
			break;
		if (blob->kind == SESSION_BLOB_OUT) {
			if (blob->len <= SESSION_SINK_SIZE)
				args[blob->arg] = SESSION_SINK_VA;
			continue;
		}
		if (p + blob->len > end)
			break;
		if (blob->kind == SESSION_BLOB_IN && blob->len <= room && blob->len <= PAGE_SIZE - used % PAGE_SIZE) {
			memcpy(k, p, blob->len);
			args[blob->arg] = at;
			laid[blob->arg] = blob->len && !k[blob->len - 1] ? (const char *)k : NULL;
			used += ALIGN(blob->len, 8);
		} else if (blob->kind == SESSION_BLOB_STRV) {
			/* the pointer array, then the strings (in one page) */
			u64 vec = (blob->count + 1) * 8, s = at + vec;
			const char *str = (const char *)p;
			u64 *ptrs = (u64 *)k;
			int n;

			if (vec + blob->len > room || vec + blob->len > PAGE_SIZE - used % PAGE_SIZE)
				goto next;
			memcpy(k + vec, p, blob->len);
			for (n = 0; n < blob->count && str < (const char *)p + blob->len; n++) {
				ptrs[n] = s + (str - (const char *)p);
				str += strlen(str) + 1;
			}
			ptrs[n] = 0;
			args[blob->arg] = at;
			used += ALIGN(vec + blob->len, 8);
		} else if (blob->kind == SESSION_BLOB_IOV && blob->len <= room &&
			   blob->len <= PAGE_SIZE - used % PAGE_SIZE && blob->len == blob->count * 16UL) {
			u64 *iov = (u64 *)k;
			int n;

			memcpy(k, p, blob->len);
			for (n = 0; n < blob->count; n++)	/* iov_base, iov_len */
				if (iov[2 * n + 1] <= SESSION_SINK_SIZE)
					iov[2 * n] = SESSION_SINK_VA;
			args[blob->arg] = at;
			used += ALIGN(blob->len, 8);
		}
next:
		p += ALIGN(blob->len, 8);
	}
	for (i = 0; i < 2; i++) {
		u32 before = rec->sc.serial >> (32 * i);
		const char *path = laid[SESSION_PRESTAT_ARG(before)], *last;
		unsigned int len;

		st->before[i].name = NULL;
		if (!(rec->sc.flags & SESSION_SC_PRESTAT) || !(before & SESSION_PRESTAT_VALID) || !path)
			continue;
		/* the last component: trailing slashes are not part of it */
		len = strlen(path);
		while (len > 1 && path[len - 1] == '/')
			len--;
		for (last = path + len; last > path && last[-1] != '/'; last--)
			;
		st->before[i].name = last;
		st->before[i].len = path + len - last;
		st->before[i].mode = SESSION_PRESTAT_MODE(before);
	}
	regs->orig_ax = regs->ax = (u64)(u32)rec->sc.nr;
	regs->di = args[0];
	regs->si = args[1];
	regs->dx = args[2];
	regs->r10 = args[3];
	regs->r8 = args[4];
	regs->r9 = args[5];
	regs->ip = SESSION_STUB_VA;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->sp = st->scratch_va + SESSION_SCRATCH_SIZE;
	regs->flags = X86_EFLAGS_IF | 0x2;
}

/*
 * On the way back to user mode (syscall_exit_to_user_mode): the task's next call, once the
 * host made it.  Records that are not calls act here: a death by a signal ends the task.
 */
/*
 * A task without a parent in the session, as its process was when the supervisor first saw
 * it: the session view (fs/init.c: the host's files, this kernel's /proc), the host's cwd, and
 * the fds it came with (the files at their paths when the view has them, as the host opened
 * them; hostfs's host fds for the others: terminals, pipes, sockets).
 */
static void session_start(const struct session_record *rec)
{
	const u8 *p = (const u8 *)(rec + 1), *end = (const u8 *)rec + rec->len;
	int i;

	if (!rec->task.cwd_len || p + rec->task.cwd_len > end || p[rec->task.cwd_len - 1])
		return;
	if (session_view_enter(current, (const char *)p))
		return;
	p += ALIGN(rec->task.cwd_len, 8) + rec->task.nr_rlimits * sizeof(struct session_rlimit);
	for (i = 0; i < rec->task.nr_fds && p + sizeof(struct session_fd) <= end; i++) {
		const struct session_fd *f = (const void *)p;
		const char *path = (const char *)(f + 1);
		unsigned int flags = f->flags & (O_ACCMODE | O_APPEND | O_NONBLOCK | O_DIRECTORY | O_PATH);
		struct file *file = NULL;

		p += sizeof(*f);
		if (!f->path_len || p + f->path_len > end || path[f->path_len - 1])
			break;
		p += ALIGN(f->path_len, 8);
		if (path[0] == '/') {
			file = filp_open(path, flags, 0);
			if (IS_ERR(file))
				file = NULL;
			else if (!S_ISCHR(file->f_inode->i_mode) && !S_ISFIFO(file->f_inode->i_mode))
				file->f_pos = f->pos;
		}
		if (!file) {
			file = hostfs_host_fd_file(flags & (O_ACCMODE | O_APPEND | O_NONBLOCK));
			if (IS_ERR(file))
				continue;
		}
		if (f->fd >= 0 && replace_fd(f->fd, file, f->flags & O_CLOEXEC) < 0)
			printk(KERN_WARNING "session: %d: no fd %d\n", current->pid, f->fd);
		fput(file);
	}
}

/*
 * The calls that change an address space or copy it (mmap, mprotect, munmap, brk, mremap,
 * madvise; clone, fork, vfork, clone3).  The threads of a process share one mm but each
 * replays its own records: such a call of one thread first waits until the calls the others
 * made before it on the host are done here (as a served call waits for all older records), so
 * the mm changes in the host's order (one thread's munmap of what another then mapped again
 * at the same address; a fork after another thread's munmap).
 */
static bool changes_mm(int nr)
{
	switch (nr) {
	case 9: case 10: case 11: case 12: case 25: case 28:
	case 56: case 57: case 58: case 435:
		return true;
	default:
		return false;
	}
}

void session_exit_to_user_mode(struct pt_regs *regs)
{
	struct session_task *st = current->session;

	if (st->start) {
		session_start(st->start);
		kfree(st->start);
		st->start = NULL;
	}

	while (!st->entered) {
		struct queued_record *q = wait_for_record(st);
		struct session_record *rec = &q->rec;

		unqueue(q);
		if (rec->type == SESSION_REC_SYSCALL) {
			if (rec->sc.flags & SESSION_SC_SERVE)
				wait_for_older_records(q, NULL);
			else if (current->mm && current->mm->mm_users > 1 && changes_mm(rec->sc.nr))
				wait_for_older_records(q, current->mm);
			load_syscall(st, regs, rec);
			st->entered = true;
			st->entering = q;	/* done with at its sys_enter */
			st->call_seq = q->seq;
			continue;
		} else if (rec->type == SESSION_REC_EXIT) {
			int status = rec->exit.status;

			current->session_exit_seq = q->seq;
			retire(q);
			kfree(q);
			do_exit(status);
		} else if (rec->type == SESSION_REC_MAPS) {
			session_apply_maps(current->mm, rec);
		} else if (rec->type == SESSION_REC_NEW_TASK) {
			/* a child its clone gave up on (the supervisor saw it late): forked now */
			struct session_task *child;
			struct task_struct *p = NULL;
			unsigned long flags;

			spin_lock_irqsave(&session_lock, flags);
			child = lookup(rec->tid);
			spin_unlock_irqrestore(&session_lock, flags);
			if (child && !child->task) {
				rec->task.comm[0] = 0;
				p = session_fork(current, child, rec,
						 rec->task.tgid == current->tgid ? CLONE_VM : 0);	/* a thread */
			}
			if (p)
				session_wake_new_task(current, p);
		}
		/* (an EXEC record nobody waited for: its execve gave up on it) */
		retire(q);
		kfree(q);
	}
}

/* execve/execveat of a session task: done here when it was done on the host. */
/* mm->exe_file: the file the host says the process runs now (set_mm_exe_file()), by its
 * path in the session's view of the host's tree; none if that view cannot open it */
static void session_set_exe_file(struct mm_struct *mm, const struct session_record *rec)
{
	const char *path = (const char *)(rec + 1);
	struct file *file;

	if (!rec->exec.exe_len || sizeof(*rec) + rec->exec.exe_len > rec->len || path[rec->exec.exe_len - 1])
		return;
	file = filp_open(path, O_RDONLY, 0);
	if (!IS_ERR(file)) {
		set_mm_exe_file(mm, file);
		fput(file);
	}
}

long session_execve(const char *filename)
{
	struct task_struct *tsk = current;
	struct session_task *st = tsk->session;
	struct queued_record *q;
	pid_t old_pid = tsk->pid;
	long ret;

	q = wait_for_record(st);
	if (q->rec.type != SESSION_REC_EXEC)
		return -ENOEXEC;	/* the supervisor never said (it died): the next record is a call */
	unqueue(q);
	retire(q);
	ret = q->rec.exec.result;
	if (!ret)	/* begin_new_exec(): a file table of its own, without its close-on-exec fds */
		ret = unshare_files();
	if (!ret) {
		ret = session_exec_mm(tsk);
		if (!ret) {
			session_set_exe_file(tsk->mm, &q->rec);
			tsk->rseq = NULL;	/* rseq_execve() */
			tsk->rseq_len = tsk->rseq_sig = 0;
			flush_signal_handlers(tsk);
			do_close_on_exec(tsk->files);
			tsk->flags &= ~PF_FORKNOEXEC;
			__set_task_comm(tsk, q->rec.exec.comm, true);
			perf_event_exec();
			set_personality_64bit();	/* load_elf_binary()'s, as the host's */
			trace_sched_process_exec(tsk, old_pid, filename);
		}
	}
	kfree(q);
	return ret;
}

/* ---- tasks ---- */

/*
 * The address space of a session task's child (copy_mm): its parent's own (CLONE_VM: a thread,
 * a vfork child), with scratch pages of its own; or a copy of its VMAs (dup_mm: the host's fork
 * copied them), whose pages are the child's fresh stub, scratch and sink.
 */
static int session_copy_mm(struct task_struct *parent, struct task_struct *p, unsigned long clone_flags)
{
	struct mm_struct *oldmm = parent->session ? parent->mm : NULL;

	if ((clone_flags & CLONE_VM) && mm_host_vmas(oldmm)) {
		__atomic_add_fetch(&oldmm->mm_users, 1, __ATOMIC_RELAXED);
		p->mm = oldmm;
		return thread_scratch(oldmm, p->session);
	}
	if (session_exec_mm(p))
		return -ENOMEM;
	if (parent->mm && parent->mm->exe_file)	/* dup_mm(): the child runs what its parent did */
		p->mm->exe_file = get_file(parent->mm->exe_file);
	if (!oldmm)
		return 0;
	p->mm->mmap_base = oldmm->mmap_base;
	memcpy(&p->mm->start_code, &oldmm->start_code,
	       offsetof(struct mm_struct, rss_stat) - offsetof(struct mm_struct, start_code));
	return mm_host_vmas(oldmm) ? dup_mmap(p->mm, oldmm) : 0;
}

/* The ktime of a record's host time (the supervisor's CLOCK_MONOTONIC when it took the call),
 * not later than now; now when the machine's clock has no host origin (seeded) */
static u64 session_record_ktime(const struct session_record *rec)
{
	u64 zero = READ_ONCE(boot_params.boot_monotonic_ns), now = ktime_get();

	if (!zero || rec->ts <= zero || rec->ts - zero > now)
		return now;
	return rec->ts - zero;
}

/*
 * A task without a parent in the session starts with its host process's resource limits
 * (the NEW_TASK record's, after its cwd), not with those of init it is forked from here: the
 * limits the shell that started the session set (`ulimit -n`) hold in the session.
 */
_Static_assert(sizeof(struct session_rlimit) == sizeof(struct rlimit), "the ring's rlimit is the kernel's");

static void session_start_rlimits(struct task_struct *p, const struct session_record *rec)
{
	const u8 *lims = (const u8 *)(rec + 1) + ALIGN(rec->task.cwd_len, 8);
	unsigned int nr = min(rec->task.nr_rlimits, RLIM_NLIMITS);

	if (!rec->task.cwd_len || lims + nr * sizeof(struct session_rlimit) > (const u8 *)rec + rec->len)
		return;
	memcpy(p->session_rlim, lims, nr * sizeof(struct session_rlimit));
}

/* A task for `st` (its NEW_TASK record q), a child of `parent` made by a clone with these
 * flags (CLONE_VM: sharing its address space). */
static struct task_struct *session_fork(struct task_struct *parent, struct session_task *st,
					const struct session_record *rec, unsigned long clone_flags)
{
	struct task_struct *p = session_copy_process(parent, rec->tid, rec->task.tgid);

	if (!p)
		return NULL;
	/* it started with the host's clone, not with its replay here, which may lag (and catch
	 * up before its exit: exitsnoop's age would come out short) */
	p->start_time = session_record_ktime(rec);
	p->session = st;
	if (session_copy_mm(parent, p, clone_flags)) {
		release_scratch(p);
		p->session = NULL;
		session_free_process(p);
		return NULL;
	}
	if (!(clone_flags & CLONE_VM) && parent->session) {	/* rseq_fork() */
		p->rseq = parent->rseq;
		p->rseq_len = parent->rseq_len;
		p->rseq_sig = parent->rseq_sig;
	}
	if (rec->task.comm[0])
		strscpy_pad(p->comm, rec->task.comm, TASK_COMM_LEN);
	if (!parent->session) {	/* a program the host started: its group and session are the host's */
		p->flags &= ~PF_FORKNOEXEC;
		p->pgrp = rec->task.pgid;
		p->sid = rec->task.sid;
		p->tty = rec->task.tty;
	}
	if (parent == current && perf_event_init_task(p, 0)) {	/* the forking task's inherited events */
		p->session = NULL;
		session_free_process(p);
		return NULL;
	}
	if (parent == init_task_p && rec->len > sizeof(*rec) && rec->task.cwd_len) {
		session_start_rlimits(p, rec);
		st->start = kmalloc(rec->len, GFP_KERNEL);
		if (st->start)
			memcpy(st->start, rec, rec->len);
	}
	st->task = p;
	session_tasks_created++;
	return p;
}

/* Under session_lock: the tid is free again, its records are done with. */
static void forget(struct session_task *st)
{
	struct queued_record *q, *n;

	list_del_init(&st->node);
	kfree(st->start);
	list_for_each_entry_safe(q, n, &st->queue, node) {
		__retire(q);
		kfree(q);
	}
	if (st->entering) {	/* a call loaded, never entered */
		__retire(st->entering);
		kfree(st->entering);
	}
}

/* A task session_fork() could not make: its records would wait for ever, holding back every
 * wait for the records before a session's tracefs access (machine.py) */
static void forget_unmade(struct session_task *st)
{
	unsigned long flags;

	spin_lock_irqsave(&session_lock, flags);
	forget(st);
	spin_unlock_irqrestore(&session_lock, flags);
	kfree(st);
}

/*
 * kernel_clone of a session task: the child the host made.  The supervisor announces it
 * (NEW_TASK) when it first sees it, which is before the parent's next call: so once the
 * parent has any record queued, the announcement is there, or the host's clone made no child
 * the supervisor could see (it failed, or the child died at once).
 */
long session_clone(unsigned long clone_flags)
{
	struct session_task *st = current->session, *child = NULL;
	struct queued_record *q, *found = NULL;
	struct task_struct *p = NULL;
	unsigned long flags;

	wait_for_record(st);
	spin_lock_irqsave(&session_lock, flags);
	list_for_each_entry(q, &st->queue, node)
		if (q->rec.type == SESSION_REC_NEW_TASK) {
			found = q;
			break;
		}
	if (found) {
		list_del_init(&found->node);
		child = lookup(found->rec.tid);
	}
	spin_unlock_irqrestore(&session_lock, flags);
	if (!found)
		return -EAGAIN;
	retire(found);
	if (child && !child->task) {
		found->rec.task.comm[0] = 0;	/* a child has its parent's name */
		p = session_fork(current, child, &found->rec, clone_flags);
	}
	kfree(found);
	if (!p) {
		if (child && !child->task)
			forget_unmade(child);
		return -ENOMEM;
	}
	session_wake_new_task(current, p);
	return p->pid;
}

/* kthreadd: tasks whose parent is not in the session, forked from init. */
void session_create_roots(void)
{
	struct queued_record *q;
	unsigned long flags;

	for (;;) {
		struct session_task *st;
		struct task_struct *p;

		spin_lock_irqsave(&session_lock, flags);
		q = list_empty(&pending_roots) ? NULL :
			list_first_entry(&pending_roots, struct queued_record, node);
		if (q)
			list_del_init(&q->node);
		st = q ? lookup(q->rec.tid) : NULL;
		spin_unlock_irqrestore(&session_lock, flags);
		if (!q)
			return;
		p = st && !st->task && init_task_p ? session_fork(init_task_p, st, &q->rec, 0) : NULL;
		if (p)
			session_wake_new_task(init_task_p, p);
		else if (st && !st->task && init_task_p)
			forget_unmade(st);
		retire(q);
		kfree(q);
	}
}

bool session_roots_pending(void)
{
	return !list_empty(&pending_roots);
}

/* do_exit of a session task: its queue goes, and the tid is free again. */
void session_task_exit(struct task_struct *tsk)
{
	struct session_task *st = tsk->session;
	unsigned long flags;

	if (!tsk->session_exit_seq)	/* its exit(2) or exit_group(2): that call's place */
		tsk->session_exit_seq = st->call_seq;
	release_scratch(tsk);	/* a thread's slot, for the next */
	if (st->serving_nowait) {	/* a /dev/kmsg read loaded, never made */
		st->serving_nowait->f_flags &= ~O_NONBLOCK;
		fput(st->serving_nowait);
		st->serving_nowait = NULL;
	}
	spin_lock_irqsave(&session_lock, flags);
	forget(st);
	spin_unlock_irqrestore(&session_lock, flags);
	tsk->session = NULL;
	kfree(st);
}
