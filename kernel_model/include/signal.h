/* Signals (include/linux/signal.h, arch/x86/include/uapi/asm/sigcontext.h, ucontext.h):
 * the frame a handler runs on, as x86-64 Linux lays it out on the user stack. */
#ifndef _SIGNAL_H
#define _SIGNAL_H
#include "kernel.h"
#include "timer.h"
#include "wait.h"
#include "mutex.h"
#include "rwsem.h"

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
#define SIGXCPU		24
#define SIGXFSZ		25
#define SIGWINCH	28
#define SIGIO		29
#define SIGPOLL		SIGIO
#define SIGSYS		31
#define SIGRTMIN	32
#define SIGRTMAX	_NSIG

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
		struct { long band; int fd; } poll;
		struct { int pid; unsigned int uid; u64 value; } rt;
		struct { int tid, overrun; u64 value; int sys_private; } timer;
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

#define SIG_DFL		0UL
#define SIG_IGN		1UL
#define SA_NOCLDSTOP	0x00000001
#define SA_NOCLDWAIT	0x00000002
#define SA_SIGINFO	0x00000004
#define SA_RESTORER	0x04000000
#define SA_ONSTACK	0x08000000
#define SA_RESTART	0x10000000
#define SA_NODEFER	0x40000000
#define SA_RESETHAND	0x80000000UL
#define SIG_BLOCK	0
#define SIG_UNBLOCK	1
#define SIG_SETMASK	2
#define SI_USER		0
#define SI_KERNEL	0x80
#define SI_SIGIO	-5	/* sent by queued SIGIO */
/* SIGPOLL's codes (send_sigio's reasons) */
#define POLL_IN		1	/* data input available */
#define POLL_OUT	2	/* output buffers available */
#define POLL_MSG	3	/* input message available */
#define POLL_ERR	4	/* i/o error */
#define POLL_PRI	5	/* high priority input available */
#define POLL_HUP	6	/* device disconnected */
#define NSIGPOLL	6
#define SI_TKILL	(-6)
#define SI_QUEUE	(-1)	/* sigqueue(3), rt_sigqueueinfo */
#define SI_TIMER	(-2)	/* a POSIX timer's expiry */
#define SI_MESGQ	(-3)	/* a POSIX message queue's arrival (mq_notify) */
/* how a POSIX timer notifies (uapi/asm-generic/siginfo.h) */
#define SIGEV_SIGNAL	0
#define SIGEV_NONE	1
#define SIGEV_THREAD	2
#define SIGEV_THREAD_ID	4
/* the uapi sigevent: what timer_create and mq_notify are told to do */
struct sigevent {
	u64 sigev_value;
	int sigev_signo;
	int sigev_notify;
	int sigev_notify_thread_id;	/* _sigev_un._tid */
	int pad[11];
};
#define SEGV_MAPERR	1
#define SEGV_ACCERR	2
#define BUS_ADRERR	2	/* SIGBUS: no page at the address (a file mapping past its end) */
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ERESTART_RESTARTBLOCK	516

#define sigmask(sig)	(1UL << ((sig) - 1))
/* what the kernel does with a signal no handler takes (kernel/signal.c's sig_kernel_*) */
#define SIG_KERNEL_ONLY_MASK	(sigmask(SIGKILL) | sigmask(SIGSTOP))
#define SIG_KERNEL_IGNORE_MASK	(sigmask(SIGCONT) | sigmask(SIGCHLD) | sigmask(SIGWINCH) | sigmask(SIGURG))
#define SIG_KERNEL_STOP_MASK	(sigmask(SIGSTOP) | sigmask(SIGTSTP) | sigmask(SIGTTIN) | sigmask(SIGTTOU))
#define SIG_KERNEL_COREDUMP_MASK (sigmask(SIGQUIT) | sigmask(SIGILL) | sigmask(SIGTRAP) | \
	sigmask(SIGABRT) | sigmask(SIGFPE) | sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(31) | \
	sigmask(24) | sigmask(25))

struct k_sigaction {
	unsigned long sa_handler;
	unsigned long sa_flags;
	unsigned long sa_restorer;
	u64 sa_mask;
};
struct sighand_struct {
	int count;
	struct k_sigaction action[_NSIG];
	wait_queue_head_t signalfd_wqh;	/* the readers of signalfds (fs/signalfd.c) */
};
/* the thread group's (include/linux/sched/signal.h) */
#define SIGNAL_GROUP_EXIT	0x00000004
struct signal_struct {
	int sigcnt;			/* tasks referring to it */
	int nr_threads;			/* of them alive */
	int flags;
	int group_exit_code;
	struct task_struct *group_exec_task;	/* de_thread(): the thread that execs, the others go */
	u64 cutime, cstime;			/* of the reaped children (wait_task_zombie) */
	unsigned long cmin_flt, cmaj_flt;
	unsigned long cnvcsw, cnivcsw;		/* ... their context switches */
	struct hrtimer real_timer;		/* ITIMER_REAL (kernel/itimer.c): SIGALRM to leader_pid */
	pid_t leader_pid;
	ktime_t it_real_incr;			/* its interval, 0: none */
	short oom_score_adj_min;		/* (6.1's; oom_score_adj itself is each task's here) */
	struct mm_struct *oom_mm;		/* an OOM victim's mm (mm_count held): tsk_is_oom_victim() */
	struct task_io_accounting ioac;		/* the I/O of its tasks released (__exit_signal) */
	struct list_head posix_timers;		/* the group's POSIX timers (posix_timers.c) */
	unsigned int next_posix_timer_id;
	struct rlimit rlim[RLIM_NLIMITS];	/* the process's limits (kernel/sys.c) */
	struct mutex cred_guard_mutex;		/* one exec (its credentials) at a time */
	struct rw_semaphore exec_update_lock;	/* written by an exec from its new mm to its end */
};

/* A pending signal's siginfo, queued on the task (include/linux/signal_types.h); a POSIX
 * timer's is allocated with the timer (SIGQUEUE_PREALLOC) and queued again at each expiry. */
#define SIGQUEUE_PREALLOC	1
struct ucounts;
struct sigqueue {
	struct list_head list;
	int flags;
	int sig;
	struct sigqueue_info info;
	struct ucounts *ucounts;	/* whose RLIMIT_SIGPENDING it counts in */
};
/* every task's sighand->siglock (one lock here): the pending sets and queues, a group's POSIX
 * timer list */
extern spinlock_t siglock;
void signals_init(void);
void init_posix_timers(void);
struct sigqueue *sigqueue_alloc(void);
void sigqueue_free(struct sigqueue *q);
struct k_itimer;
int send_sigqueue(struct sigqueue *q, pid_t pid, bool thread);
void posixtimer_rearm(struct sigqueue_info *info);
void exit_itimers(struct task_struct *tsk);
void flush_sigqueue(struct task_struct *t);
void flush_itimer_signals(void);

/* kernel/ucount.c: the signals queued per user, held to RLIMIT_SIGPENDING, and the bytes of
 * the POSIX message queues each made, held to RLIMIT_MSGQUEUE */
enum ucount_type { UCOUNT_RLIMIT_SIGPENDING, UCOUNT_RLIMIT_MSGQUEUE, UCOUNT_RLIMIT_COUNTS };
struct ucounts *get_ucounts_uid(uid_t uid);
void put_ucounts(struct ucounts *u);
long inc_rlimit_ucounts(struct ucounts *ucounts, enum ucount_type type, long v);
bool dec_rlimit_ucounts(struct ucounts *ucounts, enum ucount_type type, long v);
long inc_rlimit_get_ucounts(struct ucounts *ucounts, enum ucount_type type, bool override_rlimit);
void dec_rlimit_put_ucounts(struct ucounts *ucounts, enum ucount_type type);
long ucounts_sigpending(uid_t uid);
/* fs/signalfd.c: the handlers go; a signal is pending: the signalfd readers are woken */
void signalfd_cleanup(struct sighand_struct *sighand);
static inline void signalfd_notify(struct task_struct *tsk, int sig)
{
	if (unlikely(waitqueue_active(&tsk->sighand->signalfd_wqh)))
		wake_up(&tsk->sighand->signalfd_wqh);
}
int dequeue_signal(struct task_struct *t, u64 *mask, struct sigqueue_info *info);
void itimer_init(struct signal_struct *sig);
void itimer_exit(struct signal_struct *sig);
void itimer_rearm(struct task_struct *tsk);

static inline bool task_sigpending(struct task_struct *t)
{
	return t->signal && (t->pending & ~t->blocked & ~0UL);
}
static inline bool signal_pending(struct task_struct *t)
{
	return t->signal && (t->pending & (~t->blocked | sigmask(SIGKILL)));
}
/* include/linux/sched/signal.h: whether a sleep in state ends for what is pending (an
 * interruptible one for any signal, a killable one for SIGKILL) */
static inline bool signal_pending_state(unsigned int state, struct task_struct *p)
{
	if (!(state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL)) || !signal_pending(p))
		return false;
	return (state & TASK_INTERRUPTIBLE) || (p->pending & sigmask(SIGKILL));
}

unsigned long get_sigframe_size(void);
void restore_saved_sigmask(void);
int set_user_sigmask(const void *umask, size_t sigsetsize);
/* the mask set_user_sigmask() replaced, back, unless a signal interrupted the call: then its
 * delivery (handle_signal's frame, or arch_do_signal_or_restart) puts it back */
static inline void restore_saved_sigmask_unless(bool interrupted)
{
	if (!interrupted)
		restore_saved_sigmask();
}
int copy_signal(unsigned long clone_flags, struct task_struct *p);
int session_copy_sighand(struct task_struct *parent, struct task_struct *p, bool thread);
void release_signal(struct task_struct *p);
void flush_signal_handlers(struct task_struct *t);
void force_sig_fault(int sig, int code, unsigned long addr);
int send_sig_info(int sig, struct sigqueue_info *info, struct task_struct *p);
int send_sig(int sig, struct task_struct *p, int priv);
int kill_pid_info(int sig, struct sigqueue_info *info, struct pid *pid);
void force_sig(int sig);
void exit_signals(struct task_struct *tsk);
bool unhandled_signal(struct task_struct *tsk, int sig);
static __always_inline bool valid_signal(unsigned long sig)
{
	return sig <= _NSIG;
}
int do_send_sig_info(int sig, struct sigqueue_info *info, struct task_struct *p, bool group);
/* kill(2)'s checks, then the signal for p's process (group) or p alone (6.1's pid_type) */
int group_send_sig_info(int sig, struct sigqueue_info *info, struct task_struct *p, bool group);
void zap_other_threads(struct task_struct *p);
void release_task(struct task_struct *p);
void do_notify_parent(struct task_struct *tsk, int sig);
void arch_do_signal_or_restart(struct pt_regs *regs);

/* kernel/fpu.c: the FPU state across fork and signal frames */
int fpu_clone(struct task_struct *dst, unsigned long clone_flags, bool minimal);
unsigned long fpu__alloc_mathframe(unsigned long sp, int ia32_frame, unsigned long *buf_fx, unsigned long *size);
bool copy_fpstate_to_sigframe(void *buf, void *buf_fx, int size, u32 pkru);
void fpu__clear_user_states(struct task_struct *t);
bool fpu__restore_sig(void *buf, int ia32_frame);
#endif
