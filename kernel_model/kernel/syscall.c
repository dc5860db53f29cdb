/* System call dispatch (arch/x86/entry/common.c) and the simple syscalls. */
#include "../include/syscalls.h"
#include "../include/trace/trace.h"
#include "../include/session.h"
#include "../include/signal.h"
#include "../include/perf_event.h"

typedef long (*sys_call_ptr_t)(const struct pt_regs *);
#define __SYSCALL(nr, sym) extern long __x64_##sym(const struct pt_regs *);
#include "syscall_table.h"
#undef __SYSCALL

/* arch/x86/entry/syscall_64.c */
#define __SYSCALL(nr, sym) __x64_##sym,
const sys_call_ptr_t sys_call_table[] = {
#include "syscall_table.h"
};
#undef __SYSCALL
_Static_assert(ARRAY_SIZE(sys_call_table) == NR_syscalls, "NR_syscalls is not syscall_table.h's");

/* kernel/sys_ni.c: the body of every syscall this kernel does not have */
long sys_ni_syscall(void)
{
	return -ENOSYS;
}

/*
 * arch/x86/entry/common.c: where numbers past the table go.  That file is
 * built without ftrace, so unlike sys_ni_syscall this is not traceable.
 */
notrace SYSCALL_DEFINE0(ni_syscall)
{
	return -ENOSYS;
}

notrace void syscall_exit_to_user_mode(struct pt_regs *regs)
{
	struct percpu *pc;

	if (current->session)	/* its next call, when the host made it */
		session_exit_to_user_mode(regs);
	for (;;) {	/* exit_to_user_mode_loop() */
		local_irq_disable();
		pc = this_cpu();
		if (READ_ONCE(pc->need_resched)) {
			local_irq_enable();
			preempt_schedule_irq();
			continue;
		}
		if (task_sigpending(current) && !current->session) {
			local_irq_enable();
			arch_do_signal_or_restart(regs);
			continue;
		}
		break;
	}
	pmu_exit_to_user();	/* (the PMU's user/kernel split) */
}

/* noinstr in 6.1, as the whole entry path (irqentry_*, exc_*): not traceable */
notrace void do_syscall_64(struct pt_regs *regs, int nr)
{
	pmu_enter_from_user(regs);
	this_cpu()->stat_syscalls++;
	local_irq_enable();
	trace_sys_enter(regs, regs->orig_ax);
	if (current->session)
		session_syscall_entered();
	if ((unsigned int)nr < NR_syscalls)
		regs->ax = sys_call_table[nr](regs);
	else
		regs->ax = __x64_sys_ni_syscall(regs);	/* an invalid syscall, but still a syscall */
	if (current->session)	/* a call that may block returns when the host's did */
		session_syscall_done(regs);
	trace_sys_exit(regs, regs->ax);
	syscall_exit_to_user_mode(regs);
}

/* kernel/user_namespace.c: the init namespace maps every uid to itself */
static noinline uid_t from_kuid_munged(uid_t kuid)
{
	return kuid == (uid_t)-1 ? 65534 : kuid;
}

SYSCALL_DEFINE0(getuid)
{
	return from_kuid_munged(current->uid);
}

SYSCALL_DEFINE0(getpid)
{
	return current->tgid;
}

SYSCALL_DEFINE0(getppid)
{
	return current->parent ? current->parent->tgid : 0;
}

/* kernel/sys.c: the names of this kernel (version.c), as the task's UTS namespace holds them */
SYSCALL_DEFINE1(newuname, struct new_utsname *, name)
{
	struct new_utsname tmp;

	memcpy(&tmp, &init_uts_ns.name, sizeof(tmp));
	if (copy_to_user(name, &tmp, sizeof(tmp)))
		return -EFAULT;
	return 0;
}
