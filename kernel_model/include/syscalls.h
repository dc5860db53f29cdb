/*
 * SYSCALL_DEFINEn as Linux 6.1 builds it on x86-64 (include/linux/syscalls.h,
 * arch/x86/include/asm/syscall_wrapper.h):
 *
 *   SYSCALL_DEFINE3(read, unsigned int, fd, char *, buf, size_t, count) { body }
 *
 * defines __x64_sys_read(const struct pt_regs *regs), the table's entry point,
 * which unpacks di, si, dx, r10, r8, r9 into longs for __se_sys_read (always
 * inlined: 6.1's kallsyms has no __se_sys_), which casts them to the declared
 * types for __do_sys_read, the body.  __do_sys_<name> is out of line (and
 * notrace) where 6.1's kallsyms has it, inlined elsewhere: syscalls_gen.h,
 * generated from that kallsyms, says which.  SYSCALL_DEFINE0(name) makes
 * __x64_sys_<name> an alias of __do_sys_<name>, a traced static function, so
 * function tracers name it __do_sys_<name> as 6.1's do.
 *
 * The syscalls:* events come from kernel/syscall_events.h, generated from
 * the same definitions in 6.1's source (scripts/gen_syscalls.py).
 */
#ifndef _SYSCALLS_H
#define _SYSCALLS_H
#include "kernel.h"
#include "syscalls_gen.h"

/* ---- the uapi types syscall prototypes name (x86-64 sizes) ---- */
typedef unsigned short umode_t;
typedef int clockid_t;
typedef unsigned int gid_t;
typedef unsigned int qid_t;
typedef int key_t;
typedef int key_serial_t;
typedef int mqd_t;
typedef int timer_t;
typedef int rwf_t;
typedef long off_t;
typedef long __kernel_old_time_t;
typedef unsigned long aio_context_t;
typedef int __s32;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef struct { unsigned long sig[1]; } sigset_t;
typedef struct { unsigned long fds_bits[1024 / (8 * sizeof(long))]; } fd_set;
typedef struct siginfo siginfo_t;
typedef struct sigaltstack stack_t;
typedef struct __user_cap_header_struct *cap_user_header_t;
typedef struct __user_cap_data_struct *cap_user_data_t;
enum landlock_rule_type { LANDLOCK_RULE_PATH_BENEATH = 1 };

/* kernel/sys_ni.c: where every syscall this kernel lacks ends (-ENOSYS) */
long sys_ni_syscall(void);

/* The registers the task entered the kernel with (the top of its stack). */
static __always_inline struct pt_regs *task_pt_regs(struct task_struct *task)
{
	return (struct pt_regs *)((char *)task->stack + THREAD_SIZE) - 1;
}
#define current_pt_regs() task_pt_regs(current)

/*
 * How __do_sys_<name> is built (syscalls_gen.h names one for each syscall).
 * Out of line as in 6.1, notrace because 6.1's is `static inline`, which its
 * compiler_types.h makes notrace.
 */
#define __DO_SYS_OUT_OF_LINE noinline notrace
#define __DO_SYS_INLINED __always_inline

/* __MAP(n, m, t1, a1, ..., tn, an): m(t1, a1), ..., m(tn, an) */
#define __MAP0(m, ...)
#define __MAP1(m, t, a, ...) m(t, a)
#define __MAP2(m, t, a, ...) m(t, a), __MAP1(m, __VA_ARGS__)
#define __MAP3(m, t, a, ...) m(t, a), __MAP2(m, __VA_ARGS__)
#define __MAP4(m, t, a, ...) m(t, a), __MAP3(m, __VA_ARGS__)
#define __MAP5(m, t, a, ...) m(t, a), __MAP4(m, __VA_ARGS__)
#define __MAP6(m, t, a, ...) m(t, a), __MAP5(m, __VA_ARGS__)
#define __MAP(n, ...) __MAP##n(__VA_ARGS__)

#define __SC_DECL(t, a) t a
#define __TYPE_AS(t, v) __builtin_types_compatible_p(typeof((t)0), typeof(v))
#define __TYPE_IS_LL(t) (__TYPE_AS(t, 0LL) || __TYPE_AS(t, 0ULL))
#define __SC_LONG(t, a) __typeof(__builtin_choose_expr(__TYPE_IS_LL(t), 0LL, 0L)) a
#define __SC_CAST(t, a) (t) a
#define __SC_ARGS(t, a) a

/* 64-bit ABI: arguments in di, si, dx, r10, r8, r9 */
#define SC_X86_64_REGS_TO_ARGS(x, ...) \
	__MAP(x, __SC_ARGS, , regs->di, , regs->si, , regs->dx, , regs->r10, , regs->r8, , regs->r9)

#define SYSCALL_DEFINE0(sname) \
	static long __do_sys_##sname(const struct pt_regs *__unused); \
	long __x64_sys_##sname(const struct pt_regs *regs) __attribute__((alias("__do_sys_" #sname))); \
	static long __do_sys_##sname(const struct pt_regs *__unused)

#define SYSCALL_DEFINE1(name, ...) __SYSCALL_DEFINEx(1, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE2(name, ...) __SYSCALL_DEFINEx(2, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE3(name, ...) __SYSCALL_DEFINEx(3, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE4(name, ...) __SYSCALL_DEFINEx(4, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE5(name, ...) __SYSCALL_DEFINEx(5, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE6(name, ...) __SYSCALL_DEFINEx(6, _##name, __VA_ARGS__)

#define __SYSCALL_DEFINEx(x, name, ...) \
	long __x64_sys##name(const struct pt_regs *regs); \
	static __always_inline long __se_sys##name(__MAP(x, __SC_LONG, __VA_ARGS__)); \
	static __DO_SYS##name long __do_sys##name(__MAP(x, __SC_DECL, __VA_ARGS__)); \
	long __x64_sys##name(const struct pt_regs *regs) \
	{ \
		return __se_sys##name(SC_X86_64_REGS_TO_ARGS(x, __VA_ARGS__)); \
	} \
	static __always_inline long __se_sys##name(__MAP(x, __SC_LONG, __VA_ARGS__)) \
	{ \
		return __do_sys##name(__MAP(x, __SC_CAST, __VA_ARGS__)); \
	} \
	static __DO_SYS##name long __do_sys##name(__MAP(x, __SC_DECL, __VA_ARGS__))

/* A syscall the kernel defines nowhere: a weak entry point that fails (kernel/sys_ni.c) */
#define COND_SYSCALL(name) \
	__attribute__((weak)) long __x64_sys_##name(const struct pt_regs *__unused); \
	__attribute__((weak)) long __x64_sys_##name(const struct pt_regs *__unused) \
	{ \
		return sys_ni_syscall(); \
	}

#endif
