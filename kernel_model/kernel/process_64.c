/* Per-thread CPU state of user tasks (arch/x86/kernel/process_64.c): arch_prctl's FS and GS
 * bases.  The FS base is written to the CPU at each switch to a user task (sched/core.c). */
#include "../include/syscalls.h"
#include "../include/session.h"
#include "../include/stacktrace.h"
#include "../include/personality.h"

#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define ARCH_GET_FS	0x1003
#define ARCH_GET_GS	0x1004
#define MSR_FS_BASE	0xc0000100

/* arch/x86/kernel/process.c: what of the old program's CPU state an exec drops (6.1 also
 * clears hardware breakpoints and TLS descriptors, which the model does not have) */
noinline void flush_thread(void)
{
	fpu_flush_thread();
}

/* An exec of a 64-bit program (load_elf_binary's SET_PERSONALITY2): the personality is the
 * parent's, less READ_IMPLIES_EXEC, which a 64-bit program never gets (the model has no 32-bit
 * tasks: TIF_ADDR32 and TS_COMPAT, which 6.1 clears here, are never set) */
noinline void set_personality_64bit(void)
{
	current->personality &= ~READ_IMPLIES_EXEC;
}

noinline long do_arch_prctl_64(struct task_struct *task, int option, unsigned long arg2)
{
	switch (option) {
	case ARCH_SET_FS:
		if (arg2 >= TASK_SIZE_MAX)
			return -EPERM;
		task->thread.fsbase = arg2;
		/* (a session task's FS base is its host thread's: none to load here) */
		if (task == current && !task->session)
			asm volatile("wrmsr" : : "c"(MSR_FS_BASE), "a"((u32)arg2), "d"((u32)(arg2 >> 32)));
		return 0;
	case ARCH_GET_FS:
		return copy_to_user((void *)arg2, &task->thread.fsbase, sizeof(unsigned long)) ? -EFAULT : 0;
	case ARCH_SET_GS:
		/* the kernel's %gs is the per-cpu area here (no SWAPGS for user GS bases): only a
		 * session task's, its host thread's, is kept */
		if (!task->session)
			return -EINVAL;
		if (arg2 >= TASK_SIZE_MAX)
			return -EPERM;
		task->thread.gsbase = arg2;
		return 0;
	case ARCH_GET_GS:
		if (!task->session)
			return -EINVAL;
		return copy_to_user((void *)arg2, &task->thread.gsbase, sizeof(unsigned long)) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

/* do_arch_prctl_common(): the options shared with 32-bit (CPUID faulting, AMX): none here */
noinline long do_arch_prctl_common(int option, unsigned long arg2)
{
	return -EINVAL;
}

SYSCALL_DEFINE2(arch_prctl, int, option, unsigned long, arg2)
{
	long ret;

	ret = do_arch_prctl_64(current, option, arg2);

	if (ret == -EINVAL)
		ret = do_arch_prctl_common(option, arg2);
	return ret;
}

static notrace bool first_unscheduled(void *cookie, unsigned long addr)
{
	if (in_sched_functions(addr))
		return true;
	*(unsigned long *)cookie = addr;
	return false;
}

/* get_wchan()'s unwinding of a task that switched out: its first frame outside the scheduler */
noinline unsigned long __get_wchan(struct task_struct *p)
{
	unsigned long addr = 0;

	arch_stack_walk(first_unscheduled, &addr, p);
	return addr;
}
