/*
 * CPU exceptions (arch/x86/kernel/traps.c, arch/x86/mm/fault.c).  A page fault is
 * resolved from the address space's VMAs (demand paging, COW: mm/memory.c); what cannot be
 * resolved, and every other exception in user mode, is fatal to the task, as an unhandled
 * signal is in Linux: the process dies by the signal (wait status = the signal number, no
 * core dump with the default RLIMIT_CORE of 0).  The machine delivers page faults on user
 * addresses from kernel mode too (uaccess); any other exception in the kernel is a panic.
 */
#include "../include/kernel.h"
#include "../include/mmap_lock.h"
#include "../include/trace/trace.h"
#include "../include/signal.h"
#include "../include/uprobes.h"
#include "../include/perf_event.h"
#include "../include/oom.h"
#include "../include/kprobes.h"
#include "../include/bpf.h"

#define FPE_INTDIV	1
#define ILL_ILLOPN	2
#define TRAP_BRKPT	1

/* The signal goes to the task; it is taken on the way back to user mode. */
static noinline void do_trap(int sig, int code, unsigned long addr)
{
	local_irq_enable();	/* cond_local_irq_enable(): the fault came from user mode */
	force_sig_fault(sig, code, addr);
	local_irq_disable();
}

notrace void exc_divide_error(struct pt_regs *regs)
{
	do_trap(SIGFPE, FPE_INTDIV, regs->ip);
}

/* kprobes' handler, then the die notifiers' DIE_INT3: uprobes' arch_uprobe_exception_notify()
 * for a user-mode int3 */
static noinline bool do_int3(struct pt_regs *regs)
{
	int handled;

	if (kprobe_int3_handler(regs))
		return true;
	if (!user_mode(regs))
		return false;
	local_irq_enable();
	handled = uprobe_handle_swbp(regs);
	local_irq_disable();
	return handled;
}
NOKPROBE_SYMBOL(do_int3)

notrace void exc_int3(struct pt_regs *regs)
{
	if (user_mode(regs)) {
		/* do_int3_user(): a uprobe's breakpoint, or the task's */
		if (!do_int3(regs))
			do_trap(SIGTRAP, TRAP_BRKPT, 0);
		return;
	}
	/* irqentry_nmi_enter(): a kernel-mode int3 runs as an NMI does, whatever it hit */
	preempt_count_add(NMI_OFFSET + HARDIRQ_OFFSET);
	/* do_int3(), which 6.1's build inlines here (kprobe_int3_handler <-exc_int3 on the trace) */
	if (!kprobe_int3_handler(regs))
		panic("Fatal exception in interrupt");	/* die("int3"): an oops in an NMI */
	preempt_count_add(-(NMI_OFFSET + HARDIRQ_OFFSET));
}

notrace void exc_invalid_op(struct pt_regs *regs)
{
	do_trap(SIGILL, ILL_ILLOPN, regs->ip);
}

int fixup_exception(struct pt_regs *regs, int trapnr, unsigned long error_code, unsigned long fault_addr);

/* From kernel mode (the machine delivers only a JITed BPF program's: a fault-safe load of a
 * non-canonical address), its fixup or an oops. */
notrace void exc_general_protection(struct pt_regs *regs)
{
	if (!user_mode(regs)) {
		if (fixup_exception(regs, 13, 0, 0))
			return;
		panic("general protection fault");
	}
	do_trap(SIGSEGV, SI_KERNEL, 0);
}

/* ---- page faults (arch/x86/mm/fault.c) ---- */
struct exception_table_entry { u64 insn, fixup; };
extern const struct exception_table_entry __start___ex_table[], __stop___ex_table[];

noinline const struct exception_table_entry *search_exception_tables(unsigned long addr)
{
	const struct exception_table_entry *e;

	for (e = __start___ex_table; e < __stop___ex_table; e++)
		if (e->insn == addr)
			return e;
	return NULL;
}

/* A uaccess that faulted on what it may not touch resumes at its fixup; a JITed BPF program's
 * fault-safe load reads 0 (search_bpf_extables(), ex_handler_bpf()). */
noinline int fixup_exception(struct pt_regs *regs, int trapnr, unsigned long error_code,
			     unsigned long fault_addr)
{
	const struct exception_table_entry *e = search_exception_tables(regs->ip);
	const struct bpf_ex_entry *bpf;

	if (e) {
		regs->ip = e->fixup;
		return 1;
	}
	bpf = search_bpf_extables(regs->ip);
	if (bpf)
		return ex_handler_bpf(bpf, regs);
	return 0;
}

/* show_unhandled_signals (1 by default): the kernel log says where a process segfaulted */
static void show_signal_msg(struct pt_regs *regs, unsigned long error_code, unsigned long address)
{
	struct task_struct *tsk = current;
	struct vm_area_struct *vma;

	if (!unhandled_signal(tsk, SIGSEGV))	/* a handler takes it: nothing to say */
		return;
	vma = tsk->mm ? find_vma(tsk->mm, regs->ip) : NULL;
	if (vma && vma->vm_start <= regs->ip && vma->vm_file)	/* print_vma_addr(): the file's mapping */
		printk(KERN_INFO "%s[%d]: segfault at %lx ip %016lx sp %016lx error %lx in %s[%lx+%lx]\n",
		       tsk->comm, tsk->pid, address, regs->ip, regs->sp, error_code, tsk->comm,
		       vma->vm_start, vma->vm_end - vma->vm_start);
	else
		printk(KERN_INFO "%s[%d]: segfault at %lx ip %016lx sp %016lx error %lx\n",
		       tsk->comm, tsk->pid, address, regs->ip, regs->sp, error_code);
}

static noinline void __bad_area_nosemaphore(struct pt_regs *regs, unsigned long error_code,
					    unsigned long address)
{
	if (!user_mode(regs)) {
		if (fixup_exception(regs, 14, error_code, address))
			return;
		panic("BUG: unable to handle page fault for a user address in the kernel");
	}
	show_signal_msg(regs, error_code, address);
	force_sig_fault(SIGSEGV, (error_code & X86_PF_PROT) ? SEGV_ACCERR : SEGV_MAPERR, address);
}

noinline void bad_area_nosemaphore(struct pt_regs *regs, unsigned long error_code,
				   unsigned long address)
{
	__bad_area_nosemaphore(regs, error_code, address);
}

static inline void bad_area(struct pt_regs *regs, unsigned long error_code, unsigned long address)
{
	mmap_read_unlock(current->mm);
	__bad_area_nosemaphore(regs, error_code, address);
}

/* A fault with no page to give (a file mapping past the file's end): SIGBUS, or the kernel's
 * fixup of its user access */
static inline void do_sigbus(struct pt_regs *regs, unsigned long error_code, unsigned long address)
{
	if (!user_mode(regs)) {
		if (fixup_exception(regs, 14, error_code, address))	/* kernelmode_fixup_or_oops() */
			return;
		panic("BUG: unable to handle page fault for a user address in the kernel");
	}
	force_sig_fault(SIGBUS, BUS_ADRERR, address);
}

static inline bool access_error(unsigned long error_code, struct vm_area_struct *vma)
{
	if (error_code & X86_PF_WRITE)
		return !(vma->vm_flags & VM_WRITE);
	if (error_code & X86_PF_PROT)	/* read, present */
		return true;
	return !(vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC));	/* vma_is_accessible() */
}

static inline void do_user_addr_fault(struct pt_regs *regs, unsigned long error_code,
				      unsigned long address)
{
	struct task_struct *tsk = current;
	struct mm_struct *mm = tsk->mm;
	struct vm_area_struct *vma;
	unsigned int flags = 0;
	int fault;

	if (kprobe_page_fault(regs, 14))
		return;
	if (user_mode(regs)) {
		local_irq_enable();
		flags |= FAULT_FLAG_USER;
	} else if (regs->flags & X86_EFLAGS_IF) {
		local_irq_enable();
	}
	perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS, 1, regs, address);
	if (!mm || tsk->session) {	/* nothing here faults in: session memory is all mapped */
		bad_area_nosemaphore(regs, error_code, address);
		return;
	}
	if (error_code & X86_PF_WRITE)
		flags |= FAULT_FLAG_WRITE;
	if (error_code & X86_PF_INSTR)
		flags |= FAULT_FLAG_INSTRUCTION;
	vma = lock_mm_and_find_vma(mm, address, regs);
	if (!vma) {
		bad_area_nosemaphore(regs, error_code, address);
		return;
	}
	if (access_error(error_code, vma)) {
		bad_area(regs, error_code, address);	/* bad_area_access_error() */
		return;
	}
	fault = handle_mm_fault(vma, address, flags, regs);
	mmap_read_unlock(mm);
	if (!(fault & VM_FAULT_ERROR)) {	/* mm_account_fault(): no fault here waits for I/O (major) */
		tsk->min_flt++;
		perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, regs, address);
	}
	if (fault & VM_FAULT_OOM) {
		if (!user_mode(regs) && fixup_exception(regs, 14, error_code, address))
			return;
		pagefault_out_of_memory();	/* the allocation's OOM kill chose us, or retry the fault */
		return;
	}
	if (fault & VM_FAULT_SIGBUS)
		do_sigbus(regs, error_code, address);
	else if (fault & VM_FAULT_SIGSEGV)
		bad_area_nosemaphore(regs, error_code, address);
}

/* noinstr in Linux: not traceable; its events say what faulted */
notrace void exc_page_fault(struct pt_regs *regs, unsigned long error_code)
{
	unsigned long address;

	asm volatile("movq %%cr2, %0" : "=r"(address));
	if (user_mode(regs))
		trace_page_fault_user(address, regs, error_code);
	else
		trace_page_fault_kernel(address, regs, error_code);
	if (address >= TASK_SIZE_MAX) {
		/* do_kern_addr_fault(): nothing here faults in; a fault-safe load has its fixup
		 * (the machine delivers such a fault only from a JITed BPF program) */
		if (!user_mode(regs) && fixup_exception(regs, 14, error_code, address))
			return;
		panic("BUG: unable to handle page fault for a kernel address");
	}
	do_user_addr_fault(regs, error_code, address);
	local_irq_disable();
}
