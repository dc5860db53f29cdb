/* Signals (include/linux/signal.h, arch/x86/include/uapi/asm/sigcontext.h, ucontext.h):
 * the frame a handler runs on, as x86-64 Linux lays it out on the user stack. */
#ifndef _SIGNAL_H
#define _SIGNAL_H
#include "kernel.h"

#define _NSIG		64
#define SIGHUP		1
#define SIGINT		2
#define SIGQUIT		3
#define SIGILL		4
#define SIGTRAP		5
#define SIGABRT		6
#define SIGBUS		7
#define SIGFPE		8
#define SIGKILL		9
#define SIGUSR1		10
#define SIGSEGV		11
#define SIGUSR2		12
#define SIGPIPE		13
#define SIGALRM		14
#define SIGTERM		15
#define SIGCHLD		17
#define SIGCONT		18
#define SIGSTOP		19
#define SIGTSTP		20
#define SIGTTIN		21
#define SIGTTOU		22
#define SIGURG		23
#define SIGWINCH	28

struct sigcontext_64 {
	u64 r8, r9, r10, r11, r12, r13, r14, r15;
	u64 di, si, bp, bx, dx, ax, cx, sp, ip, flags;
	u16 cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2;
	u64 fpstate;			/* the fxsave area's user address */
	u64 reserved1[8];
};
struct k_sigaltstack { void *ss_sp; int ss_flags; int pad; size_t ss_size; };
struct ucontext {
	unsigned long uc_flags;
	struct ucontext *uc_link;
	struct k_sigaltstack uc_stack;
	struct sigcontext_64 uc_mcontext;
	u64 uc_sigmask;
};
struct kernel_siginfo {
	int si_signo, si_errno, si_code, pad;
	union {
		struct { int pid; unsigned int uid; } kill;
		struct { u64 addr; } fault;
		u8 bytes[112];
	};
};
struct rt_sigframe {
	char *pretcode;
	struct ucontext uc;
	struct kernel_siginfo info;
	/* fp state follows, 64-byte aligned */
};
_Static_assert(sizeof(struct sigcontext_64) == 256, "sigcontext as x86-64's");
_Static_assert(sizeof(struct ucontext) == 304, "ucontext as x86-64's");
_Static_assert(sizeof(struct kernel_siginfo) == 128, "siginfo as Linux's");

unsigned long get_sigframe_size(void);
#endif
