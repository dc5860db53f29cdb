/* Basic kernel types, compiler attributes and helpers shared by all kernel files. */
#ifndef _TYPES_H
#define _TYPES_H
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long s64;
typedef unsigned long size_t;
typedef long ssize_t;
typedef long loff_t;
typedef int pid_t;
typedef unsigned int uid_t;
typedef unsigned int gid_t;
typedef unsigned int gfp_t;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)

/* no ftrace site: for the functions 6.1 does not trace (it inlines them, builds them without
 * ftrace, or has none: the model's glue), so that available_filter_functions names 6.1's only
 * (tests/machine/test_filter_functions.py) */
#define notrace __attribute__((no_instrument_function))
/* As include/linux/compiler_types.h: an inline function is never traced, even where GCC keeps
 * a copy out of line (6.1's __mod_timer, sock_put: in kallsyms, not in available_filter_functions). */
#define inline inline notrace
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define __used __attribute__((used))
#define __aligned(x) __attribute__((aligned(x)))
#define __section(s) __attribute__((section(s)))
#define __noreturn __attribute__((noreturn))
/* boot-only code (include/linux/init.h): in the init text, whose ftrace records and kprobe
 * rights end with the boot (ftrace_free_init_mem(), core_kernel_text()); kallsyms keeps the
 * names, as 6.1's.  The code is not freed here. */
#define __init __section(".init.text")
/* written at boot only, then read-only (Linux write-protects it): laid out in .rodata */
#define __ro_after_init __section(".data..ro_after_init")
/* the scheduling functions (in_sched_functions(): a sleeping task's wchan is past them) */
#define __sched __section(".sched.text")
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() asm volatile("" ::: "memory")
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))
#define offsetof(t, m) __builtin_offsetof(t, m)
#define container_of(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* COUNT_ARGS(a, b, c): 3, up to 12 */
#define __COUNT_ARGS(_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _n, X...) _n
#define COUNT_ARGS(X...) __COUNT_ARGS(, ##X, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define ALIGN(x, a) (((x) + (a) - 1) & ~((u64)(a) - 1))
#define U32_MAX (~0U)
#define SIZE_MAX (~(size_t)0)
#define NUMA_NO_NODE (-1)
#define _RET_IP_ ((unsigned long)__builtin_return_address(0))

#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define EIO 5
#define E2BIG 7
#define ENOEXEC 8
#define EBADF 9
#define ECHILD 10
#define EAGAIN 11
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define ENODEV 19
#define EOVERFLOW 75
#define EOPNOTSUPP 95
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define EMFILE 24
#define ENOSPC 28
#define ESPIPE 29
#define ERANGE 34
#define ENAMETOOLONG 36
#define ENOSYS 38
#define EROFS 30
#define EACCES 13
#define ENOTTY 25
#define ENODEV 19
#define EOPNOTSUPP 95
#endif
