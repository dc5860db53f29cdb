/* System call dispatch (arch/x86/entry/common.c) and the simple syscalls. */
#include "../include/kernel.h"
#include "../include/trace/trace.h"
#include "../include/session.h"

typedef long (*sys_call_ptr_t)(struct pt_regs *);
#define __SYSCALL(nr, sym) long sym(struct pt_regs *);
#include "syscall_table.h"
#undef __SYSCALL

static long __x64_sys_ni_syscall(struct pt_regs *regs)
{
	return -ENOSYS;
}

#define __SYSCALL(nr, sym) [nr] = sym,
const sys_call_ptr_t sys_call_table[NR_syscalls] = {
	[0 ... NR_syscalls - 1] = __x64_sys_ni_syscall,
#include "syscall_table.h"
};
#undef __SYSCALL

void syscall_exit_to_user_mode(struct pt_regs *regs)
{
	struct percpu *pc;

	if (current->session)	/* its next call, when the host made it */
		session_exit_to_user_mode(regs);
	for (;;) {
		local_irq_disable();
		pc = this_cpu();
		if (!READ_ONCE(pc->need_resched))
			break;
		local_irq_enable();
		preempt_schedule_irq();
	}
}

void do_syscall_64(struct pt_regs *regs, int nr)
{
	this_cpu()->stat_syscalls++;
	local_irq_enable();
	trace_sys_enter(regs, regs->orig_ax);
	if (current->session)
		session_syscall_entered();
	if ((unsigned int)nr < NR_syscalls)
		regs->ax = sys_call_table[nr](regs);
	else
		regs->ax = -ENOSYS;
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

static noinline long __do_sys_getuid(void)
{
	return from_kuid_munged(current->uid);
}

long __x64_sys_getuid(struct pt_regs *regs)
{
	return __do_sys_getuid();
}

long __x64_sys_getpid(struct pt_regs *regs)
{
	return current->tgid;
}

long __x64_sys_getppid(struct pt_regs *regs)
{
	return current->parent ? current->parent->tgid : 0;
}
