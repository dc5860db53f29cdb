/* System call dispatch (arch/x86/entry/common.c) and the simple syscalls. */
#include "../include/syscalls.h"
#include "../include/trace/trace.h"
#include "../include/session.h"
#include "../include/signal.h"
#include "../include/perf_event.h"
#include "../include/personality.h"
#include "../include/nsproxy.h"
#include "../include/rwsem.h"

typedef long (*sys_call_ptr_t)(const struct pt_regs *);
#define __SYSCALL(nr, sym) extern long __x64_##sym(const struct pt_regs *);
#include "../include/cred.h"
#include "syscall_table.h"
#undef __SYSCALL

/* arch/x86/entry/syscall_64.c */
#define __SYSCALL(nr, sym) __x64_##sym,
const sys_call_ptr_t sys_call_table[] = {
#include "../include/cred.h"
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

/*
 * kernel/entry/common.c's syscall work, where Linux 6.1 fires raw_syscalls' tracepoints:
 * syscall_trace_enter() (GCC's constprop clone in 6.1's kallsyms) runs on entry while the task
 * has syscall work (SYSCALL_WORK_SYSCALL_TRACEPOINT: the tracepoint has probes; here its
 * keys), syscall_exit_to_user_mode_prepare() on every way back from a call, a new task's first
 * one included (ret_from_fork: a forked child's sys_exit of its clone, 0).  So the events'
 * stacks are 6.1's (trace_event_raw_event_sys_enter, syscall_trace_enter.constprop.0,
 * do_syscall_64).
 */
static long syscall_trace_enter(struct pt_regs *regs, long nr) __asm__("syscall_trace_enter.constprop.0");

static noinline long syscall_trace_enter(struct pt_regs *regs, long nr)
{
	trace_sys_enter(regs, nr);
	return nr;
}

static noinline void syscall_exit_to_user_mode_prepare(struct pt_regs *regs)
{
	trace_sys_exit(regs, regs->ax);
}

/* exit_to_user_mode_loop(): what an interrupt's way back to user mode shares with a call's */
notrace void irqentry_exit_to_user_mode(struct pt_regs *regs)
{
	struct percpu *pc;

	if (current->session)	/* its next call, when the host made it */
		session_exit_to_user_mode(regs);
	for (;;) {
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

notrace void syscall_exit_to_user_mode(struct pt_regs *regs)
{
	syscall_exit_to_user_mode_prepare(regs);
	irqentry_exit_to_user_mode(regs);
}

/* noinstr in 6.1, as the whole entry path (irqentry_*, exc_*): not traceable */
notrace void do_syscall_64(struct pt_regs *regs, int nr)
{
	pmu_enter_from_user(regs);
	this_cpu()->stat_syscalls++;
	local_irq_enable();
	if (static_branch_unlikely(&__tracepoint_sys_enter.key) ||
	    static_branch_unlikely(&__tracepoint_sys_enter.kernel_key))
		syscall_trace_enter(regs, regs->orig_ax);
	if (current->session)
		session_syscall_entered();
	if ((unsigned int)nr < NR_syscalls)
		regs->ax = sys_call_table[nr](regs);
	else
		regs->ax = __x64_sys_ni_syscall(regs);	/* an invalid syscall, but still a syscall */
	if (current->session)	/* a call that may block returns when the host's did */
		session_syscall_done(regs);
	syscall_exit_to_user_mode(regs);
}

SYSCALL_DEFINE0(getuid)
{
	return from_kuid_munged(&init_user_ns, current_cred()->uid);	/* current_user_ns() */
}

SYSCALL_DEFINE0(getpid)
{
	return task_tgid_vnr(current);
}

SYSCALL_DEFINE0(getppid)
{
	return current->parent ? task_tgid_vnr(current->parent) : 0;
}

/* kernel/sys.c: a PER_LINUX32 task's machine is a 32-bit one's */
#define COMPAT_UTS_MACHINE	"i686"
#define override_architecture(name) \
	(personality(current->personality) == PER_LINUX32 && \
	 copy_to_user(name->machine, COMPAT_UTS_MACHINE, sizeof(COMPAT_UTS_MACHINE)))

/* UNAME26: for programs that cannot handle "Linux 3.0", release 6.1.x reads 2.6.61.x (the
 * release's first three numbers become 2.6.(60 + patchlevel); the rest is kept) */
#define LINUX_VERSION_PATCHLEVEL	1
noinline int override_release(char *release, size_t len)
{
	int ret = 0;

	if (current->personality & UNAME26) {
		const char *rest = init_uts_ns.name.release;	/* UTS_RELEASE */
		char buf[65] = { 0 };
		int ndots = 0;
		unsigned int v;
		size_t copy;

		while (*rest) {
			if (*rest == '.' && ++ndots >= 3)
				break;
			if (!(*rest >= '0' && *rest <= '9') && *rest != '.')
				break;
			rest++;
		}
		v = LINUX_VERSION_PATCHLEVEL + 60;
		copy = len < 1 ? 1 : min(len, sizeof(buf));	/* clamp_t */
		copy = scnprintf(buf, copy, "2.6.%u%s", v, rest);
		ret = copy_to_user(release, buf, copy + 1);
	}
	return ret;
}

/* kernel/utsname.c: the lock of every UTS namespace's names; the task's namespace's names */
static DECLARE_RWSEM(uts_sem);
static inline struct new_utsname *utsname(void)
{
	return &current->nsproxy->uts_ns->name;
}

/* kernel/sys.c: the names of this kernel (version.c), as the task's UTS namespace holds them,
 * as the task's personality asks for them */
SYSCALL_DEFINE1(newuname, struct new_utsname *, name)
{
	struct new_utsname tmp;

	down_read(&uts_sem);
	memcpy(&tmp, utsname(), sizeof(tmp));
	up_read(&uts_sem);
	if (copy_to_user(name, &tmp, sizeof(tmp)))
		return -EFAULT;
	if (override_release(name->release, sizeof(tmp.release)))
		return -EFAULT;
	if (override_architecture(name))
		return -EFAULT;
	return 0;
}

/* kernel/sys.c: a new node or domain name, len bytes without a NUL (the rest of the field is
 * cleared), for CAP_SYS_ADMIN in the namespace's owner, the initial user namespace.  (6.1 also
 * mixes the name into the random pool and wakes pollers of /proc/sys/kernel/{host,domain}name:
 * the model has neither.) */
#define SET_UTS_FIELD(field)							\
	int errno;								\
	char tmp[__NEW_UTS_LEN];						\
										\
	if (!ns_capable(&init_user_ns, CAP_SYS_ADMIN))				\
		return -EPERM;							\
	if (len < 0 || len > __NEW_UTS_LEN)					\
		return -EINVAL;							\
	errno = -EFAULT;							\
	if (!copy_from_user(tmp, name, len)) {					\
		struct new_utsname *u;						\
										\
		down_write(&uts_sem);						\
		u = utsname();							\
		memcpy(u->field, tmp, len);					\
		memset(u->field + len, 0, sizeof(u->field) - len);		\
		errno = 0;							\
		up_write(&uts_sem);						\
	}									\
	return errno

SYSCALL_DEFINE2(sethostname, char *, name, int, len)
{
	SET_UTS_FIELD(nodename);
}

SYSCALL_DEFINE2(setdomainname, char *, name, int, len)
{
	SET_UTS_FIELD(domainname);
}
