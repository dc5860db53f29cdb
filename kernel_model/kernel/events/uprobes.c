/*
 * uprobes (kernel/events/uprobes.c, arch/x86/kernel/uprobes.c of Linux 6.1), the guest half:
 * the int3 of an armed point goes into each page of the probed file that a mapping reads in
 * (a non-writable mapping: valid_vma()); a user-mode int3 comes to uprobe_handle_swbp(),
 * which finds the point by the mapping's inode and file offset, runs the consumers (the host's
 * handlers, at the hooked uprobe_dispatch, each record committed here), hijacks the return
 * address for a uretprobe, and has the original instruction run out of line: from a slot of
 * the process's XOL area ("[uprobes]", one page: slot 0 the uretprobe trampoline, each other
 * slot one probed instruction followed by a jump back), or emulated (call/jmp rel).
 *
 * Unlike Linux, a slot belongs to a probed address rather than to a thread (its content then
 * never changes, so threads share it without a single-step trap); the uretprobe return
 * instances of each task are kept in a small table here (Linux: task->utask).
 */
#include "../../include/kernel.h"
#include "../../include/mmap_lock.h"
#include "../../include/mm.h"
#include "../../include/fs.h"
#include "../../include/slab.h"
#include "../../include/uprobes.h"
#include "../../include/trace/trace.h"
#include "../../include/trace/probe_stage.h"
#include "../../include/trace/trigger.h"
#include "../../include/trace/uprobe_perf.h"

#define PROT_READ	0x1
#define PROT_EXEC	0x4
#define XOL_SLOT_BYTES	64
#define XOL_SLOTS	(PAGE_SIZE / XOL_SLOT_BYTES)
#define UTASKS		64
#define MAX_URETPROBE_DEPTH 16

struct uprobe_points uprobe_points __section(".data");

struct file *vma_mapped_file(struct vm_area_struct *vma);

struct xol_area {
	unsigned long vaddr;		/* where the page is mapped; slot 0: the trampoline */
	u8 *kaddr;			/* the page, through the direct map */
	unsigned long slot_bp[XOL_SLOTS];	/* the probed address each slot steps */
};

struct return_instance {
	unsigned long orig_ret_vaddr;	/* the return address the trampoline replaced */
	unsigned long func;		/* the probed address */
	unsigned long stack;		/* sp at the hit: where the return address is */
	u32 idx;			/* the point */
};

struct uprobe_task {
	struct task_struct *task;	/* NULL: free */
	int depth;
	struct return_instance ri[MAX_URETPROBE_DEPTH];
};

static struct uprobe_task utasks[UTASKS];
static spinlock_t utask_lock;

bool hostfs_inode(const struct inode *inode);

/* The inode number points name a file by: the host's st_ino of a hostfs file; 0 (no point
 * has it) for a file of another filesystem. */
static inline u64 inode_of(struct file *file)
{
	return hostfs_inode(file->f_inode) ? file->f_inode->i_ino : 0;
}

/* uprobe_mmap() for the one page a fault reads in: the armed points in it get their int3
 * (install_breakpoint() on a page of this mapping only: no other process sees it). */
notrace void uprobe_page_in(struct file *file, u64 pos, void *kaddr)
{
	u32 n = READ_ONCE(uprobe_points.count);
	u64 ino;

	if (!n)
		return;
	ino = inode_of(file);
	for (u32 i = 0; i < n; i++) {
		struct uprobe_point *p = &uprobe_points.p[i];

		if ((READ_ONCE(p->flags) & UPROBE_ARMED) && p->ino == ino && p->offset - pos < PAGE_SIZE)
			((u8 *)kaddr)[p->offset - pos] = UPROBE_SWBP_INSN;
	}
}

/* find_active_uprobe(): the armed point at this user address of the mm, or -1 */
static int find_active_uprobe(struct mm_struct *mm, unsigned long bp_vaddr)
{
	struct vm_area_struct *vma;
	struct file *file;
	int found = -1;

	mmap_read_lock(mm);
	vma = find_vma(mm, bp_vaddr);
	file = vma && vma->vm_start <= bp_vaddr ? vma_mapped_file(vma) : NULL;
	if (file) {
		u64 ino = inode_of(file), offset = bp_vaddr - vma->vm_start + (vma->vm_pgoff << 12);
		u32 n = READ_ONCE(uprobe_points.count);

		for (u32 i = 0; i < n; i++) {
			struct uprobe_point *p = &uprobe_points.p[i];

			if ((READ_ONCE(p->flags) & UPROBE_ARMED) && p->ino == ino && p->offset == offset) {
				found = i;
				break;
			}
		}
	}
	mmap_read_unlock(mm);
	return found;
}

/* The host's handlers run at a doorbell (no code hook: a hook that may stop the CPU mid-block
 * would slow every CPU down for as long as it is there).  A handler whose fetch met a user
 * page not mapped in yet sets *fault to its address (fault NULL: the last try, a fault is a
 * fault) and records nothing. */
noinline notrace void uprobe_dispatch(struct pt_regs *regs, u64 idx, u64 k, u64 func, u64 is_ret,
				      unsigned long *fault)
{
	struct uprobe_call call = { (u64)regs, idx, k, func, is_ret, (u64)fault };
	unsigned long flags = arch_local_irq_save();	/* db_arg is per-CPU */

	this_cpu()->h.db_arg[0] = (u64)&call;
	host_doorbell(PORT_UPROBE, 0);
	arch_local_irq_restore(flags);
}

#define UPROBE_FAULT_TRIES 8

/*
 * The record a handler staged, written as 6.1 writes a uprobe event's: trace_event_buffer_reserve()
 * takes tracing_gen_ctx_dec() in a preemptible context, so the context word borrows: the
 * flags come out one less and the preempt count byte 0xff.
 */
static notrace void uprobe_commit(void)
{
	struct probe_stage *st = &probe_stage[this_cpu()->h.cpu];
	unsigned long flags = arch_local_irq_save();
	u32 len = st->len;

	if (len && len <= PROBE_STAGE_MAX) {
		struct trace_event_file file = { .slots = dyn_file_slots(st->slots, st->type),
						 .triggers = st->triggers, .type = st->type };
		bool triggers = file.triggers;
		struct trace_entry *rec;

		/* with triggers, built in the scratch for them (uprobe_trace_func()'s
		 * trace_trigger_soft_disabled()), which commit it */
		rec = triggers ? event_trigger_scratch(sizeof(*rec) + len)
			       : trace_event_buffer_reserve(&file, sizeof(*rec) + len);
		if (rec) {
			trace_entry_fill_count(this_cpu(), rec, st->type, st->irqflags, trace_current_pid(this_cpu()), 0);
			memcpy(rec + 1, st->data, len);
			if (triggers)
				probe_trigger_commit(&file, rec, sizeof(*rec) + len, st->irqflags);
			else
				trace_event_commit(rec, sizeof(*rec) + len);
		}
	}
	st->len = 0;
	arch_local_irq_restore(flags);
}

static notrace void handler_chain(struct uprobe_point *p, u32 idx, struct pt_regs *regs, unsigned long func,
			  bool is_ret)
{
	u32 n = is_ret ? READ_ONCE(p->n_ret) : READ_ONCE(p->n_entry);

	for (u32 k = 0; k < n; k++) {
		/* a record program the guest runs, a perf event's (the uprobe PMU's), or the host's handler */
		u32 probe = k >= UPROBE_GUEST_CONSUMERS ? 0 : is_ret ? READ_ONCE(p->ret_probe[k]) : READ_ONCE(p->entry_probe[k]);

		if (probe & UPROBE_PERF_CONSUMER) {
			uprobe_perf_func(probe & ~UPROBE_PERF_CONSUMER, regs, func, is_ret);
			continue;
		}

		/* the fetch's copy_from_user() faults pages in, as Linux's does (the handler runs
		 * where it may sleep): the page is brought in and the handler runs again */
		for (int tries = 1; ; tries++) {
			unsigned long fault = 0;
			u8 byte;

			if (probe) {
				/* interrupts off until it is committed: the stage is this cpu's,
				 * which an interrupt's probe could use meanwhile */
				unsigned long flags = arch_local_irq_save();

				uprobe_guest_record(probe - 1, regs, func, is_ret,
						    tries < UPROBE_FAULT_TRIES ? &fault : NULL);
				if (!fault)
					uprobe_commit();
				arch_local_irq_restore(flags);
			} else
				uprobe_dispatch(regs, idx, k, func, is_ret, tries < UPROBE_FAULT_TRIES ? &fault : NULL);
			if (!fault)
				break;
			if (copy_from_user(&byte, (void *)fault, 1))	/* not mapped: a fault it is */
				tries = UPROBE_FAULT_TRIES - 1;
		}
		uprobe_commit();	/* (a host handler's: it staged while interrupts were on) */
	}
}

/* get_xol_area(): the mm's "[uprobes]" page, mapped on first use */
static notrace struct xol_area *get_xol_area(struct mm_struct *mm)
{
	struct xol_area *area = READ_ONCE(mm->uprobes_state.xol_area);
	unsigned long addr, populate;
	struct vm_area_struct *vma;
	struct page *page;
	u64 *pte;

	if (area)
		return area;
	area = kzalloc(sizeof(*area), GFP_KERNEL);
	page = alloc_page(GFP_HIGHUSER_MOVABLE | __GFP_ZERO);
	if (!area || !page)
		goto fail;
	page->flags |= PG_anon;
	mmap_write_lock(mm);
	if (mm->uprobes_state.xol_area) {	/* another thread made it */
		mmap_write_unlock(mm);
		__free_pages(page, 0);
		kfree(area);
		return mm->uprobes_state.xol_area;
	}
	addr = do_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, 0, &populate);
	vma = IS_ERR((void *)addr) ? NULL : find_vma(mm, addr);
	pte = vma ? lookup_pte(mm, addr, true) : NULL;
	if (!pte) {
		mmap_write_unlock(mm);
		goto fail;
	}
	area->vaddr = addr;
	area->kaddr = page_address(page);
	area->kaddr[0] = UPROBE_SWBP_INSN;	/* the uretprobe trampoline */
	host_code_page(area->kaddr);
	*pte = __pa(area->kaddr) | vma->vm_page_prot;
	WRITE_ONCE(mm->uprobes_state.xol_area, area);
	mmap_write_unlock(mm);
	return area;
fail:
	if (page)
		__free_pages(page, 0);
	kfree(area);
	return NULL;
}

/* xol_get_insn_slot(): the slot that runs the instruction at bp_vaddr (copy, then jmp back) */
static unsigned long xol_get_insn_slot(struct mm_struct *mm, struct uprobe_point *p, unsigned long bp_vaddr)
{
	struct xol_area *area = get_xol_area(mm);
	unsigned long slot = 0;
	u32 i;

	if (!area)
		return 0;
	/* (6.1 takes a slot from the area's bitmap; this kernel serialises on the mmap_lock
	 * held for writing, untraced: no mmap_lock event 6.1 would not show) */
	down_write(&mm->mmap_lock);
	for (i = 1; i < XOL_SLOTS; i++) {
		if (area->slot_bp[i] == bp_vaddr || !area->slot_bp[i])
			break;
	}
	if (i < XOL_SLOTS) {
		u8 *code = area->kaddr + i * XOL_SLOT_BYTES;

		if (!area->slot_bp[i]) {
			unsigned long next = bp_vaddr + p->len;
			u32 n = p->xol_len;

			memcpy(code, p->xol, n);
			if (p->riprel_at)			/* riprel_pre_xol(): the scratch register */
				memcpy(code + p->riprel_at, &next, 8);
			code[n] = 0xff;				/* jmp *0(%rip) */
			code[n + 1] = 0x25;
			memset(code + n + 2, 0, 4);
			memcpy(code + n + 6, &next, 8);
			host_code_page(area->kaddr);
			area->slot_bp[i] = bp_vaddr;
		}
		slot = area->vaddr + i * XOL_SLOT_BYTES;
	}
	up_write(&mm->mmap_lock);
	return slot;
}

static notrace struct uprobe_task *get_utask(struct task_struct *t, bool alloc)
{
	struct uprobe_task *free = NULL, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&utask_lock, flags);
	for (int i = 0; i < UTASKS; i++) {
		if (utasks[i].task == t) {
			found = &utasks[i];
			break;
		}
		if (!utasks[i].task && !free)
			free = &utasks[i];
	}
	if (!found && alloc && free) {
		free->task = t;
		free->depth = 0;
		found = free;
	}
	spin_unlock_irqrestore(&utask_lock, flags);
	return found;
}

/* prepare_uretprobe(): the return address goes to the trampoline */
static void prepare_uretprobe(struct uprobe_point *p, u32 idx, struct pt_regs *regs, unsigned long bp_vaddr)
{
	struct xol_area *area = get_xol_area(current->mm);
	struct uprobe_task *utask = get_utask(current, true);
	unsigned long orig_ret, trampoline;
	struct return_instance *ri;

	if (!area || !utask || utask->depth >= MAX_URETPROBE_DEPTH)
		return;	/* "uprobe: omit uretprobe due to nestedness limit" */
	trampoline = area->vaddr;
	if (copy_from_user(&orig_ret, (void *)regs->sp, sizeof(orig_ret)) ||
	    copy_to_user((void *)regs->sp, &trampoline, sizeof(trampoline)))
		return;
	ri = &utask->ri[utask->depth++];
	ri->orig_ret_vaddr = orig_ret;
	ri->func = bp_vaddr;
	ri->stack = regs->sp;
	ri->idx = idx;
}

/* handle_trampoline(): a probed function returned through the trampoline */
static int handle_trampoline(struct pt_regs *regs)
{
	struct uprobe_task *utask = get_utask(current, false);
	struct return_instance *ri;

	/* the instances of frames left by a longjmp (below the stack now) are dropped */
	while (utask && utask->depth && utask->ri[utask->depth - 1].stack < regs->sp - 8)
		utask->depth--;
	if (!utask || !utask->depth)
		return 0;	/* no return to take: SIGTRAP, as Linux */
	ri = &utask->ri[--utask->depth];
	regs->ip = ri->orig_ret_vaddr;
	if (ri->idx < READ_ONCE(uprobe_points.count))
		handler_chain(&uprobe_points.p[ri->idx], ri->idx, regs, ri->func, true);
	return 1;
}

/* check_jmp_cond(): whether a jcc with condition cc jumps under these flags */
static bool check_jmp_cond(u32 cc, unsigned long flags)
{
	bool cf = flags & 0x1, pf = flags & 0x4, zf = flags & 0x40, sf = flags & 0x80, of = flags & 0x800;
	bool taken;

	switch (cc >> 1) {
	case 0: taken = of; break;
	case 1: taken = cf; break;
	case 2: taken = zf; break;
	case 3: taken = cf || zf; break;
	case 4: taken = sf; break;
	case 5: taken = pf; break;
	case 6: taken = sf != of; break;
	default: taken = zf || sf != of; break;
	}
	return taken != (cc & 1);
}

/*
 * handle_swbp(): a user-mode int3 (regs->ip past it).  1: handled (the task goes on at
 * regs->ip); 0: not a uprobe's (the task gets its SIGTRAP).
 */
notrace int uprobe_handle_swbp(struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;
	unsigned long bp_vaddr = regs->ip - 1, slot;
	struct xol_area *area;
	struct uprobe_point *p;
	int idx;
	u8 insn;

	if (!mm)
		return 0;
	area = READ_ONCE(mm->uprobes_state.xol_area);
	if (area && bp_vaddr == area->vaddr)
		return handle_trampoline(regs);
	idx = find_active_uprobe(mm, bp_vaddr);
	if (idx < 0) {
		/* is_trap_at_addr(): a breakpoint removed meanwhile: run the instruction again */
		if (!copy_from_user(&insn, (void *)bp_vaddr, 1) && insn != UPROBE_SWBP_INSN) {
			regs->ip = bp_vaddr;
			return 1;
		}
		return 0;
	}
	p = &uprobe_points.p[idx];
	__atomic_add_fetch(&p->nhit, 1, __ATOMIC_RELAXED);
	regs->ip = bp_vaddr;	/* the handlers see the probed address */
	handler_chain(p, idx, regs, bp_vaddr, false);
	if (READ_ONCE(p->flags) & UPROBE_RET)
		prepare_uretprobe(p, idx, regs, bp_vaddr);
	/* arch_uprobe_skip_sstep(): branches are emulated */
	if (p->flags & UPROBE_EMU_CALL) {
		unsigned long next = bp_vaddr + p->len;

		if (copy_to_user((void *)(regs->sp - 8), &next, 8))
			return 0;
		regs->sp -= 8;
		regs->ip = next + p->rel;
		return 1;
	}
	if (p->flags & UPROBE_EMU_JMP) {
		regs->ip = bp_vaddr + p->len + p->rel;
		return 1;
	}
	if (p->flags & UPROBE_EMU_JCC) {
		regs->ip = bp_vaddr + p->len + (check_jmp_cond(p->cc, regs->flags) ? p->rel : 0);
		return 1;
	}
	slot = xol_get_insn_slot(mm, p, bp_vaddr);
	if (!slot) {
		regs->ip = bp_vaddr + 1;
		return 0;
	}
	regs->ip = slot;
	return 1;
}

/* uprobe_clear_state(): the mm goes (its XOL page goes with its mappings) */
void uprobe_clear_state(struct mm_struct *mm)
{
	kfree(mm->uprobes_state.xol_area);
	mm->uprobes_state.xol_area = NULL;
}

/* uprobe_free_utask(): the task exits */
void uprobe_free_utask(struct task_struct *t)
{
	struct uprobe_task *utask = get_utask(t, false);

	if (utask)
		WRITE_ONCE(utask->task, NULL);
}

/*
 * uprobe_copy_process(): a fork's child (its own mm, a copy of oldmm's mappings) gets the
 * parent's XOL area -- the same page, shared copy-on-write, whose slots mean the same in both
 * -- and the parent's pending uretprobe returns (dup_utask()): the child returns through the
 * trampoline as well.
 */
void uprobe_copy_process(struct task_struct *t, struct mm_struct *oldmm)
{
	struct xol_area *area = READ_ONCE(oldmm->uprobes_state.xol_area), *copy;
	struct uprobe_task *utask, *child;

	if (!area)
		return;
	copy = kmalloc(sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return;
	memcpy(copy, area, sizeof(*copy));
	t->mm->uprobes_state.xol_area = copy;
	utask = get_utask(current, false);
	if (!utask || !utask->depth)
		return;
	child = get_utask(t, true);
	if (child) {
		child->depth = utask->depth;
		memcpy(child->ri, utask->ri, sizeof(child->ri));
	}
}
