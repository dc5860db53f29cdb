/*
 * Signals (kernel/signal.c, arch/x86/kernel/signal.c): sending (signal_generate), the
 * handlers (rt_sigaction) and mask (rt_sigprocmask), delivery on the way back to user mode
 * (signal_deliver) onto an rt_sigframe as x86-64 Linux lays it out, rt_sigreturn, and the
 * default actions: ignore, or end the thread group (a core-dumping signal too: RLIMIT_CORE
 * is 0, so the status is the signal alone).  Job control (stop/continue) is not modelled:
 * SIGSTOP and the stop signals are ignored by default.  The session's tasks (host processes)
 * take no signals here: one sent to them is handed to the session's supervisor, which sends
 * it to the host process (session_send_signal).
 */
#include "../include/syscalls.h"
#include "../include/pid.h"
#include "../include/signal.h"
#include "../include/trace/trace.h"
#include "../include/session.h"
#include "../include/cred.h"
#include "../include/security.h"
#include "../include/slab.h"
#include "../include/cputime.h"

#define FRAME_ALIGNMENT		16
#define MAX_FRAME_PADDING	(FRAME_ALIGNMENT - 1)
#define MAX_XSAVE_PADDING	63	/* the fp state is 64-byte aligned below the frame */
#define UC_SIGCONTEXT_SS	0x2
#define UC_STRICT_RESTORE_SS	0x4
#define SS_ONSTACK		1
#define SS_DISABLE		2
#define SS_AUTODISARM		(1U << 31)
#define SS_FLAG_BITS		SS_AUTODISARM
#define MINSIGSTKSZ		2048
#define X86_EFLAGS_TF		0x100UL
#define X86_EFLAGS_DF		0x400UL
#define X86_EFLAGS_RF		0x10000UL
/* the flags a handler may change (FIX_EFLAGS) */
#define FIX_EFLAGS	(0x1UL | 0x4UL | 0x10UL | 0x40UL | 0x80UL | 0x100UL | 0x400UL | 0x800UL | \
			 0x40000UL | 0x10000UL)
#define __NR_restart_syscall 219

enum { TRACE_SIGNAL_DELIVERED, TRACE_SIGNAL_IGNORED, TRACE_SIGNAL_ALREADY_PENDING,
       TRACE_SIGNAL_OVERFLOW_FAIL, TRACE_SIGNAL_LOSE_INFO };

/* The largest frame a handler may need (AT_MINSIGSTKSZ): siginfo and ucontext, the fxsave
 * area (no xsave on this CPU), and their alignment (init_sigframe_size()). */
unsigned long get_sigframe_size(void)
{
	unsigned long size = sizeof(struct rt_sigframe) + MAX_FRAME_PADDING +
			     sizeof(struct fxregs_state) + MAX_XSAVE_PADDING;

	return ALIGN(size, FRAME_ALIGNMENT);
}

static struct kmem_cache *sigqueue_cachep;

void __init signals_init(void)
{
	sigqueue_cachep = kmem_cache_create("sigqueue", sizeof(struct sigqueue), 0, SLAB_PANIC, NULL);
}

/* ---- the structures a task shares (copy_process) ---- */
/* copy_sighand(): the handlers of `cur`, shared (CLONE_SIGHAND) or copied; none: the defaults */
static notrace int copy_sighand(struct task_struct *cur, bool share, struct task_struct *p)
{
	if (share && cur && cur->sighand) {
		p->sighand = cur->sighand;
		__atomic_add_fetch(&p->sighand->count, 1, __ATOMIC_RELAXED);
		return 0;
	}
	p->sighand = kmalloc(sizeof(*p->sighand), GFP_KERNEL);
	if (!p->sighand)
		return -ENOMEM;
	if (cur && cur->sighand)
		memcpy(p->sighand->action, cur->sighand->action, sizeof(p->sighand->action));
	else
		memset(p->sighand->action, 0, sizeof(p->sighand->action));
	p->sighand->count = 1;
	init_waitqueue_head(&p->sighand->signalfd_wqh);
	return 0;
}

/*
 * A session task's handlers: what its process set with rt_sigaction, so the calls that read
 * or change them answer as Linux's do (its signals themselves are the host's: no signal_struct,
 * nothing is sent or delivered here).  A child of a session process has its parent's (a thread
 * shares them); one the host started has the defaults, which is all the kernel knows of it.
 */
notrace int session_copy_sighand(struct task_struct *parent, struct task_struct *p, bool thread)
{
	return copy_sighand(parent->session ? parent : NULL, thread, p);
}

notrace int copy_signal(unsigned long clone_flags, struct task_struct *p)
{
	struct task_struct *cur = current;

	if (copy_sighand(cur, clone_flags & 0x00000800 /* CLONE_SIGHAND */, p))
		return -ENOMEM;
	if ((clone_flags & 0x00010000 /* CLONE_THREAD */) && cur->signal) {
		p->signal = cur->signal;
		__atomic_add_fetch(&p->signal->sigcnt, 1, __ATOMIC_RELAXED);
	} else {
		p->signal = kmalloc(sizeof(*p->signal), GFP_KERNEL);
		if (!p->signal)
			return -ENOMEM;
		memset(p->signal, 0, sizeof(*p->signal));
		p->signal->sigcnt = 1;
		p->signal->nr_threads = 1;
		INIT_LIST_HEAD(&p->signal->posix_timers);
		mutex_init(&p->signal->cred_guard_mutex);
		init_rwsem(&p->signal->exec_update_lock);
		itimer_init(p->signal);
		/* the parent's limits (init's for the first tasks, which come before one) */
		memcpy(p->signal->rlim, cur->signal ? cur->signal->rlim : init_rlimits, sizeof(p->signal->rlim));
	}
	p->blocked = cur->blocked;
	p->pending = 0;
	INIT_LIST_HEAD(&p->sigqueue);
	return 0;
}

/* kernel/fork.c: a reference to the handlers dropped; the last frees them, the signalfd
 * pollers told first */
noinline void __cleanup_sighand(struct sighand_struct *sighand)
{
	if (!__atomic_sub_fetch(&sighand->count, 1, __ATOMIC_ACQ_REL)) {
		signalfd_cleanup(sighand);
		kfree(sighand);
	}
}

notrace void release_signal(struct task_struct *p)
{
	if (p->signal)	/* (__exit_signal): what was queued and not taken goes */
		flush_sigqueue(p);
	if (p->sighand)
		__cleanup_sighand(p->sighand);
	if (p->signal && !__atomic_sub_fetch(&p->signal->sigcnt, 1, __ATOMIC_ACQ_REL)) {
		itimer_exit(p->signal);
		if (p->signal->oom_mm)	/* an OOM victim's: mark_oom_victim() kept the struct */
			mmdrop(p->signal->oom_mm);
		kfree(p->signal);
	}
	p->sighand = NULL;
	p->signal = NULL;
}

/* exec: handlers go back to the default, ignored signals stay ignored */
void flush_signal_handlers(struct task_struct *t)
{
	int i;

	if (!t->sighand)
		return;
	if (t->sighand->count > 1) {	/* unshare_sighand() */
		struct sighand_struct *n = kmalloc(sizeof(*n), GFP_KERNEL);

		if (!n)
			return;
		memcpy(n->action, t->sighand->action, sizeof(n->action));
		n->count = 1;
		init_waitqueue_head(&n->signalfd_wqh);
		__cleanup_sighand(t->sighand);	/* (not its last reference) */
		t->sighand = n;
	}
	for (i = 0; i < _NSIG; i++) {
		struct k_sigaction *ka = &t->sighand->action[i];

		if (ka->sa_handler != SIG_IGN)
			ka->sa_handler = SIG_DFL;
		ka->sa_flags = 0;
		ka->sa_restorer = 0;
		ka->sa_mask = 0;
	}
}

/* ---- sending ---- */

spinlock_t siglock;	/* every task's pending set (one lock: few signals here) */

/*
 * A siginfo to queue, counted against the user of the task it goes to (its RLIMIT_SIGPENDING;
 * override_rlimit: a legacy signal from the kernel or kill(2), which must get through).  Over
 * the limit: NULL (6.1's print_dropped_signal() says so only with print-fatal-signals set).
 */
static noinline struct sigqueue *__sigqueue_alloc(int sig, struct task_struct *t, gfp_t gfp_flags,
						  int override_rlimit, const unsigned int sigqueue_flags)
{
	struct ucounts *ucounts = get_ucounts_uid(__task_cred(t)->uid);	/* task_ucounts(): its real uid's */
	struct sigqueue *q = NULL;
	long sigpending;

	if (!ucounts)
		return NULL;
	sigpending = inc_rlimit_get_ucounts(ucounts, UCOUNT_RLIMIT_SIGPENDING, override_rlimit);
	if (override_rlimit || likely(sigpending <= (long)task_rlimit(t, RLIMIT_SIGPENDING)))
		q = kmem_cache_alloc(sigqueue_cachep, gfp_flags);
	if (unlikely(q == NULL)) {
		dec_rlimit_put_ucounts(ucounts, UCOUNT_RLIMIT_SIGPENDING);
	} else {
		INIT_LIST_HEAD(&q->list);
		q->flags = sigqueue_flags;
		q->ucounts = ucounts;
	}
	return q;
}

/* (inlined in 6.1) a preallocated one is its owner's (a POSIX timer's) to free */
static __always_inline void __sigqueue_free(struct sigqueue *q)
{
	if (q->flags & SIGQUEUE_PREALLOC)
		return;
	if (q->ucounts) {
		dec_rlimit_put_ucounts(q->ucounts, UCOUNT_RLIMIT_SIGPENDING);
		q->ucounts = NULL;
	}
	kmem_cache_free(sigqueue_cachep, q);
}

/* The task's queued siginfo, all of it, and its pending set: the task is gone (__exit_signal) */
noinline void flush_sigqueue(struct task_struct *t)
{
	unsigned long flags = arch_local_irq_save();
	struct sigqueue *q;

	spin_lock(&siglock);
	t->pending = 0;	/* sigemptyset(&queue->signal) */
	while (!list_empty(&t->sigqueue)) {
		q = list_first_entry(&t->sigqueue, struct sigqueue, list);
		list_del_init(&q->list);
		__sigqueue_free(q);
	}
	spin_unlock(&siglock);
	arch_local_irq_restore(flags);
}

/* exec: the POSIX timers are gone (exit_itimers), and so are their queued signals; a signal
 * also sent otherwise stays pending */
static noinline void __flush_itimer_signals(struct task_struct *t)
{
	u64 signal = t->pending, retain = 0;
	struct sigqueue *q, *n;

	list_for_each_entry_safe(q, n, &t->sigqueue, list) {
		if (likely(q->info.code != SI_TIMER)) {
			retain |= sigmask(q->sig);
		} else {
			signal &= ~sigmask(q->sig);
			list_del_init(&q->list);
			__sigqueue_free(q);
		}
	}
	t->pending = signal | retain;
}

noinline void flush_itimer_signals(void)
{
	unsigned long flags;

	spin_lock_irqsave(&siglock, flags);
	__flush_itimer_signals(current);	/* (and the group's shared_pending: none here) */
	spin_unlock_irqrestore(&siglock, flags);
}

/* A POSIX timer's siginfo, allocated with it, counted against its creator's user */
noinline struct sigqueue *sigqueue_alloc(void)
{
	return __sigqueue_alloc(-1, current, GFP_KERNEL, 0, SIGQUEUE_PREALLOC);
}

/* The timer is gone: its siginfo with it, or, if still queued, once taken (collect_signal) */
noinline void sigqueue_free(struct sigqueue *q)
{
	unsigned long flags = arch_local_irq_save();

	spin_lock(&siglock);
	q->flags &= ~SIGQUEUE_PREALLOC;
	if (!list_empty(&q->list))
		q = NULL;
	spin_unlock(&siglock);
	arch_local_irq_restore(flags);
	if (q)
		__sigqueue_free(q);
}

static inline bool sig_handler_ignored(unsigned long handler, int sig);

static bool sig_ignored(struct task_struct *t, int sig)
{
	if (t->blocked & sigmask(sig))
		return false;	/* it may be unblocked, then taken */
	return sig_handler_ignored(t->sighand->action[sig - 1].sa_handler, sig);
}

static inline bool sig_handler_ignored(unsigned long handler, int sig)
{
	return handler == SIG_IGN || (handler == SIG_DFL && (sigmask(sig) & SIG_KERNEL_IGNORE_MASK));
}

static __always_inline void __sigqueue_free(struct sigqueue *q);

/* The signals of the mask out of the task's pending set, their queued siginfo freed; siglock
 * held */
static noinline void flush_sigqueue_mask(u64 *mask, struct task_struct *t)
{
	struct sigqueue *q, *n;

	if (!(t->pending & *mask))
		return;
	t->pending &= ~*mask;
	list_for_each_entry_safe(q, n, &t->sigqueue, list) {
		if (sigmask(q->sig) & *mask) {
			list_del_init(&q->list);
			__sigqueue_free(q);
		}
	}
}

/* do_sigaction()'s flush: the signal leaves every thread's pending set */
static void flush_pending_in_group(struct task_struct *tsk, int sig)
{
	unsigned long flags = arch_local_irq_save();
	u64 mask = sigmask(sig);
	struct task_struct *t;

	spin_lock(&siglock);
	spin_lock(&sched_lock);
	list_for_each_entry(t, &task_list, tasks)
		if (t == tsk || (t->signal && t->signal == tsk->signal))
			flush_sigqueue_mask(&mask, t);
	spin_unlock(&sched_lock);
	spin_unlock(&siglock);
	arch_local_irq_restore(flags);
}

/* Make the task notice: woken from an interruptible sleep (and, for a fatal signal, from an
 * uninterruptible one), or, running on another cpu, sent into the kernel (kick_process): it
 * sees the signal on its way out. */
noinline void signal_wake_up_state(struct task_struct *t, unsigned int state)
{
	if (!wake_up_state(t, state | TASK_INTERRUPTIBLE))
		kick_process(t);
}

static inline void signal_wake_up(struct task_struct *t, bool fatal)
{
	signal_wake_up_state(t, fatal ? TASK_UNINTERRUPTIBLE : 0);
}

/* The thread of t's group that takes a signal sent to the group (complete_signal()). */
static notrace struct task_struct *group_target(struct task_struct *t, int sig)
{
	struct task_struct *p, *found = t;
	unsigned long flags;

	if (!(t->blocked & sigmask(sig)) || !t->signal || t->signal->nr_threads <= 1)
		return t;
	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(p, &task_list, tasks)
		if (p->signal == t->signal && !p->exit_state && !(p->blocked & sigmask(sig))) {
			found = p;
			break;
		}
	spin_unlock_irqrestore(&sched_lock, flags);
	return found;
}

/* Whether the signal is to be queued: not if ignored (SIGKILL never is). */
static noinline bool prepare_signal(int sig, struct task_struct *p, bool force)
{
	return !sig_ignored(p, sig) || sig == SIGKILL;
}

static notrace void __zap_other_threads(struct task_struct *p, bool self);

/* A signal whose default action ends the group, taken by no handler (sig_fatal()) */
static __always_inline bool sig_fatal(struct task_struct *t, int sig)
{
	return !(sigmask(sig) & (SIG_KERNEL_IGNORE_MASK | SIG_KERNEL_STOP_MASK)) &&
	       t->sighand->action[sig - 1].sa_handler == SIG_DFL;
}

/*
 * The thread the signal was queued to is told, unless it blocks it.  A fatal signal (not one
 * that dumps core, which get_signal() takes) ends the whole group at once, as 6.1's: every
 * thread gets SIGKILL, which get_signal() then delivers.  With the siglock held.
 */
static noinline void complete_signal(int sig, struct task_struct *p, bool group)
{
	struct signal_struct *signal = p->signal;

	if ((p->blocked & sigmask(sig)) && sig != SIGKILL)	/* !wants_signal() */
		return;
	if (sig_fatal(p, sig) && !(signal->flags & SIGNAL_GROUP_EXIT) && !signal->group_exec_task &&
	    !(p->real_blocked & sigmask(sig)) && !(sigmask(sig) & SIG_KERNEL_COREDUMP_MASK)) {
		signal->flags = SIGNAL_GROUP_EXIT;
		signal->group_exit_code = sig;
		__zap_other_threads(p, true);
		return;
	}
	signal_wake_up(p, sig == SIGKILL);
}

/* A legacy (non-real-time) signal is pending once at most */
static inline bool legacy_queue(struct task_struct *t, int sig)
{
	return sig < SIGRTMIN && (t->pending & sigmask(sig));
}

/*
 * Queued with its siginfo: a real-time signal as many times as it is sent, until the user's
 * RLIMIT_SIGPENDING is reached (then EAGAIN if a queueing call sent it); a legacy one once, and
 * without its siginfo if none can be allocated.  A group's signal is queued on the thread that
 * takes it (6.1 queues it on the group's shared_pending and wakes that thread).
 */
static noinline int __send_signal_locked(int sig, struct sigqueue_info *info, struct task_struct *t,
					 bool group)
{
	struct task_struct *target = group ? group_target(t, sig) : t;
	int override_rlimit, ret = 0, result;
	struct sigqueue *q;

	result = TRACE_SIGNAL_IGNORED;
	if (!prepare_signal(sig, target, false))
		goto ret;
	result = TRACE_SIGNAL_ALREADY_PENDING;
	if (legacy_queue(target, sig))
		goto ret;
	result = TRACE_SIGNAL_DELIVERED;
	if (sig == SIGKILL || (target->flags & PF_KTHREAD))	/* no siginfo worth allocating */
		goto out_set;
	override_rlimit = sig < SIGRTMIN ? info->code >= 0 : 0;
	q = __sigqueue_alloc(sig, target, GFP_ATOMIC, override_rlimit, 0);
	if (q) {
		q->sig = sig;
		q->info = *info;
		list_add_tail(&q->list, &target->sigqueue);
	} else if (sig >= SIGRTMIN && info->code != SI_USER) {
		result = TRACE_SIGNAL_OVERFLOW_FAIL;	/* queue overflow: the sender is told */
		ret = -EAGAIN;
		goto ret;
	} else {
		result = TRACE_SIGNAL_LOSE_INFO;	/* sent, its siginfo lost */
	}
out_set:
	signalfd_notify(target, sig);
	target->pending |= sigmask(sig);
	complete_signal(sig, target, group);
ret:
	trace_signal_generate(sig, info, t, group, result);
	return ret;
}

/*
 * Whether the host sends this signal itself: one a session task's own call makes (its kill(2),
 * a write to a broken pipe) or its end makes (the SIGCHLD to its parent) is mirrored here after
 * the host made it, and the host's timers and files act for its processes (a signal from an
 * interrupt).  Only the emulated kernel's own reach the host through the supervisor: a call of
 * a task of its own (a guest program's kill(2)), and what says so (bpf_send_signal: to_host).
 */
static bool host_sends_it(const struct sigqueue_info *info)
{
	return !info->to_host && (info->host_did || current->session ||
				  (this_cpu()->preempt_count & (HARDIRQ_MASK | SOFTIRQ_MASK | NMI_MASK)));
}

/* The host's own of a session task's kill(2)-family call or end: shown as 6.1 shows it
 * (delivered, or ignored by the target's handler), sent by nobody here.  What the replay only
 * infers (a broken pipe's SIGPIPE: the replay's order of a pipe's calls may differ from the
 * host's) is not shown. */
static notrace void show_host_sent(int sig, struct sigqueue_info *info, struct task_struct *t, bool group)
{
	if (info->host_did)
		trace_signal_generate(sig, info, t, group,
				      prepare_signal(sig, t, false) ? TRACE_SIGNAL_DELIVERED : TRACE_SIGNAL_IGNORED);
}

/*
 * A session task's signal is its host process's.  One the host sends itself is only shown;
 * the kernel's own is handed to the session's supervisor, which sends it on the host (kill for
 * the group, tgkill for the thread).  What 6.1 reports of it comes from the handlers the
 * process set (its mask and pending set are the host's: it is never ALREADY_PENDING here); an
 * ignored one goes nowhere, as in 6.1.
 */
static notrace int session_send_signal(int sig, struct sigqueue_info *info, struct task_struct *t, bool group)
{
	int ret = 0, result = TRACE_SIGNAL_IGNORED;

	if (host_sends_it(info)) {
		show_host_sent(sig, info, t, group);
		return 0;
	}
	if (prepare_signal(sig, t, false)) {
		result = TRACE_SIGNAL_DELIVERED;
		if (!session_post_signal(t, sig, group)) {	/* the supervisor fell that far behind */
			result = TRACE_SIGNAL_OVERFLOW_FAIL;
			ret = -EAGAIN;
		}
	}
	trace_signal_generate(sig, info, t, group, result);
	return ret;
}

/*
 * A zombie keeps its pid and handlers until it is reaped: a signal to it is taken and ignored
 * (6.1's prepare_signal(): its group exited), as the host's kill(2) of an unreaped child is.
 * The replay of a session's kill(2) can come after (or during) the end of the process it
 * killed (each task's records are replayed on their own): one whose end came after the call in
 * the ring's order was alive for it.
 */
static notrace void signal_zombie(int sig, struct sigqueue_info *info, struct task_struct *t, bool group)
{
	bool host_call = host_sends_it(info), alive = false;

	if (host_call && !info->host_did)
		return;	/* (what the replay only infers) */
	if (host_call && current->session)
		alive = t->session_exit_seq > current->session->call_seq && prepare_signal(sig, t, false);
	trace_signal_generate(sig, info, t, group, alive ? TRACE_SIGNAL_DELIVERED : TRACE_SIGNAL_IGNORED);
}

/* With the siglock held: the host's processes' go to the host, kernel threads ignore them all. */
noinline int send_signal_locked(int sig, struct sigqueue_info *info, struct task_struct *t, bool group)
{
	if (t->exit_state || t->session_exit_seq) {	/* (the second: a session task in do_exit) */
		signal_zombie(sig, info, t, group);
		return 0;
	}
	if (t->session)
		return session_send_signal(sig, info, t, group);
	if (!t->signal || (t->flags & PF_KTHREAD))
		return 0;
	return __send_signal_locked(sig, info, t, group);
}

/* lock_task_sighand(): the task's handlers with their lock held (one lock here, `siglock`,
 * interrupts off), or NULL when the task has none (gone, or a session's task) */
noinline struct sighand_struct *__lock_task_sighand(struct task_struct *tsk, unsigned long *flags)
{
	struct sighand_struct *sighand;

	*flags = arch_local_irq_save();
	spin_lock(&siglock);
	sighand = READ_ONCE(tsk->sighand);
	if (!sighand) {
		spin_unlock(&siglock);
		arch_local_irq_restore(*flags);
	}
	return sighand;
}

static inline void unlock_task_sighand(struct task_struct *tsk, unsigned long *flags)
{
	spin_unlock(&siglock);
	arch_local_irq_restore(*flags);
}

/* The task is exiting: no signal is sent to it any more (a group's pending signals are each
 * thread's own here: none to hand to the others) */
noinline void exit_signals(struct task_struct *tsk)
{
	unsigned long flags;

	if (!tsk->signal || tsk->signal->nr_threads <= 1 || (tsk->signal->flags & SIGNAL_GROUP_EXIT)) {
		tsk->flags |= PF_EXITING;
		return;
	}
	if (__lock_task_sighand(tsk, &flags)) {
		tsk->flags |= PF_EXITING;
		unlock_task_sighand(tsk, &flags);
		return;
	}
	tsk->flags |= PF_EXITING;
}

noinline int do_send_sig_info(int sig, struct sigqueue_info *info, struct task_struct *p, bool group)
{
	unsigned long flags;
	int ret = -ESRCH;

	if (__lock_task_sighand(p, &flags)) {
		ret = send_signal_locked(sig, info, p, group);
		unlock_task_sighand(p, &flags);
	}
	return ret;
}

noinline int send_sig_info(int sig, struct sigqueue_info *info, struct task_struct *p)
{
	if (!valid_signal(sig))	/* (the kernel's own senders: no check_kill_permission) */
		return -EINVAL;
	return do_send_sig_info(sig, info, p, false);
}

/* send_sig(): SEND_SIG_PRIV (the kernel's: SI_KERNEL) or SEND_SIG_NOINFO (as if the current
 * task sent it: SI_USER, its pid and uid) */
noinline int send_sig(int sig, struct task_struct *p, int priv)
{
	struct sigqueue_info info = { .code = SI_KERNEL };

	if (!priv)
		info = (struct sigqueue_info){ .code = SI_USER, .pid = current->tgid, .uid = current_cred()->uid };
	return send_sig_info(sig, &info, p);
}

/* Taken even if blocked or ignored: the default action back, the signal unblocked; and
 * with the default action whatever the handler (HANDLER_SIG_DFL: a fatal one). */
enum sig_handler { HANDLER_CURRENT, HANDLER_SIG_DFL, HANDLER_EXIT };

static noinline int force_sig_info_to_task(struct sigqueue_info *info, struct task_struct *t, int sig,
					   enum sig_handler handler)
{
	struct k_sigaction *ka = &t->sighand->action[sig - 1];
	unsigned long flags = arch_local_irq_save();
	int ret;

	spin_lock(&siglock);
	if (ka->sa_handler == SIG_IGN || (t->blocked & sigmask(sig)) || handler != HANDLER_CURRENT) {
		ka->sa_handler = SIG_DFL;
		t->blocked &= ~sigmask(sig);
	}
	ret = send_signal_locked(sig, info, t, false);
	spin_unlock(&siglock);
	arch_local_irq_restore(flags);
	return ret;
}

noinline int force_sig_info(int sig, struct sigqueue_info *info)
{
	return force_sig_info_to_task(info, current, sig, HANDLER_CURRENT);
}

/* The kernel's signal to the current thread (SEND_SIG_PRIV), taken even if blocked or ignored */
noinline void force_sig(int sig)
{
	struct sigqueue_info info = { .code = SI_KERNEL };

	force_sig_info(sig, &info);
}

/* ... and fatal: no handler of the task's runs it */
noinline void force_fatal_sig(int sig)
{
	struct sigqueue_info info = { .code = SI_KERNEL };

	force_sig_info_to_task(&info, current, sig, HANDLER_SIG_DFL);
}

/* A fault's signal: to this thread, and taken even if blocked or ignored. */
static noinline int force_sig_fault_to_task(int sig, int code, unsigned long addr, struct task_struct *t)
{
	struct sigqueue_info info = { .code = code, .addr = addr };

	return force_sig_info(sig, &info);
}

void force_sig_fault(int sig, int code, unsigned long addr)
{
	if (!current->signal)	/* a session task: its signals are the host's */
		return;
	force_sig_fault_to_task(sig, code, addr, current);
}

/* A signal frame that could not be written: a SIGSEGV, fatal when it was SIGSEGV's own */
noinline void force_sigsegv(int sig)
{
	if (sig == SIGSEGV)
		force_fatal_sig(SIGSEGV);
	else
		force_sig(SIGSEGV);
}

/* Whether no handler of the task's takes the signal (the segfault line of the log is only for
 * those): init's are never taken, a handler is (no ptrace here) */
noinline bool unhandled_signal(struct task_struct *tsk, int sig)
{
	unsigned long handler;

	if (tsk->pid == 1)	/* is_global_init() */
		return true;
	if (!tsk->sighand)
		return true;
	handler = tsk->sighand->action[sig - 1].sa_handler;
	return handler == SIG_IGN || handler == SIG_DFL;
}

/* exit_group, or a fatal signal: every other thread of the group (and p itself, for a
 * signal) gets SIGKILL; siglock held.  Lock order: siglock, then sched_lock (which
 * try_to_wake_up takes). */
static notrace void __zap_other_threads(struct task_struct *p, bool self)
{
	struct task_struct *t, *wake[64];
	unsigned long f2;
	int n = 0, i;

	spin_lock_irqsave(&sched_lock, f2);
	list_for_each_entry(t, &task_list, tasks)
		if ((t != p || self) && t->signal == p->signal && !t->exit_state) {
			t->pending |= sigmask(SIGKILL);	/* no siginfo: SIGKILL's is never read */
			if (n < (int)ARRAY_SIZE(wake))
				wake[n++] = t;
		}
	spin_unlock_irqrestore(&sched_lock, f2);
	for (i = 0; i < n; i++)
		signal_wake_up(wake[i], true);
}

void zap_other_threads(struct task_struct *p)
{
	unsigned long flags = arch_local_irq_save();

	spin_lock(&siglock);
	__zap_other_threads(p, false);
	spin_unlock(&siglock);
	arch_local_irq_restore(flags);
}

/* A child's end, told to its parent (SIGCHLD, group-wide) */
#define CLD_EXITED	1
#define CLD_KILLED	2
void do_notify_parent(struct task_struct *tsk, int sig)
{
	struct sigqueue_info info = {
		.code = (tsk->exit_code & 0x7f) ? CLD_KILLED : CLD_EXITED,
		.pid = tsk->tgid, .uid = __task_cred(tsk)->uid,
		.host_did = tsk->session_exit_seq,	/* a session process's end: the host's SIGCHLD */
	};

	if (tsk->parent)
		do_send_sig_info(sig, &info, tsk->parent, true);
}

static __always_inline bool same_thread_group(struct task_struct *a, struct task_struct *b)
{
	return a->tgid == b->tgid;	/* (6.1: the same signal_struct) */
}

/* a sender's real or effective uid is the target's real or saved one, or it has CAP_KILL */
static __always_inline bool kill_ok_by_cred(struct task_struct *t)
{
	return current_cred()->euid == __task_cred(t)->suid || current_cred()->euid == __task_cred(t)->uid ||
	       current_cred()->uid == __task_cred(t)->suid || current_cred()->uid == __task_cred(t)->uid ||
	       ns_capable(&init_user_ns, CAP_KILL);
}

/* Whether the caller may signal t (kill(2)'s EPERM), then the security hook. */
static noinline int check_kill_permission(int sig, struct sigqueue_info *info, struct task_struct *t)
{
	struct kernel_siginfo kinfo;

	if (!valid_signal(sig))
		return -EINVAL;
	if (info->code > 0)	/* !si_fromuser(): the kernel's own */
		return 0;
	if (!same_thread_group(current, t) && !kill_ok_by_cred(t)) {
		/* SIGCONT within the session: sessions are the caller's own here (task_session) */
		if (sig != SIGCONT || t->sid != current->sid)
			return -EPERM;
	}
	/* the hook is given the siginfo as 6.1 builds it for kill(2) and tgkill(2) */
	memset(&kinfo, 0, sizeof(kinfo));
	kinfo.si_signo = sig;
	kinfo.si_code = info->code;
	kinfo.kill.pid = info->pid;
	kinfo.kill.uid = info->uid;
	return security_task_kill(t, &kinfo, sig, NULL);
}

/* The caller may, then the signal for p's whole group (or, not group, for p alone). */
noinline int group_send_sig_info(int sig, struct sigqueue_info *info, struct task_struct *p, bool group)
{
	int ret = check_kill_permission(sig, info, p);

	if (!ret && sig)
		ret = do_send_sig_info(sig, info, p, group);
	return ret;
}

noinline int kill_pid_info(int sig, struct sigqueue_info *info, struct pid *pid)
{
	struct task_struct *p = pid_task(pid, PIDTYPE_PID);
	int error;

	if (!p)
		return -ESRCH;
	if (p->group_leader && p->group_leader != p)
		p = p->group_leader;
	error = check_kill_permission(sig, info, p);	/* group_send_sig_info(), inlined as in 6.1's build */
	if (!error && sig)
		error = do_send_sig_info(sig, info, p, true);
	return error;
}

#define KILL_MAX 64	/* processes one kill(2) of a group, or of all, signals */

/* The processes (group leaders) in group pgrp (pgrp 0: all but init and the caller's), found
 * under the tasks' lock; preemption stays off while the caller signals them (rcu_read_lock():
 * a reaped task is freed after a grace period) */
static notrace int collect_processes(pid_t pgrp, struct task_struct **procs)
{
	struct task_struct *t;
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&sched_lock, flags);
	list_for_each_entry(t, &task_list, tasks) {
		if (t->group_leader != t || n == KILL_MAX)
			continue;
		if (pgrp ? t->pgrp == pgrp : t->pid > 1 && t->tgid != current->tgid && !(t->flags & PF_IDLE))
			procs[n++] = t;
	}
	spin_unlock_irqrestore(&sched_lock, flags);
	return n;
}

/* Every process of the group: 0 if any took it, else the last error */
noinline int __kill_pgrp_info(int sig, struct sigqueue_info *info, pid_t pgrp)
{
	struct task_struct *procs[KILL_MAX];
	int i, n, retval = -ESRCH;
	bool success = false;

	preempt_disable();
	n = collect_processes(pgrp, procs);
	for (i = 0; i < n; i++) {
		int err = group_send_sig_info(sig, info, procs[i], true);

		success |= !err;
		retval = err;
	}
	preempt_enable();
	return success ? 0 : retval;
}

/* kill(2)'s pid: a process, (0) the caller's process group, (-1) every process the caller may
 * signal but init and itself, (< -1) the group -pid */
static noinline int kill_something_info(int sig, struct sigqueue_info *info, pid_t pid)
{
	struct task_struct *procs[KILL_MAX];
	int i, n, retval = 0;

	if (pid > 0)
		return kill_pid_info(sig, info, find_vpid(pid));	/* kill_proc_info() */
	if (pid == (pid_t)0x80000000)	/* INT_MIN: -pid overflows */
		return -ESRCH;
	if (pid != -1)
		return __kill_pgrp_info(sig, info, pid ? -pid : current->pgrp);
	preempt_disable();
	n = collect_processes(0, procs);
	for (i = 0; i < n; i++) {
		int err = group_send_sig_info(sig, info, procs[i], true);

		if (err != -EPERM)
			retval = err;
	}
	preempt_enable();
	return n ? retval : -ESRCH;
}

/* restart_syscall(2): what a call interrupted with -ERESTART_RESTARTBLOCK left in the task's
 * restart_block, to go on with.  No call here leaves one (an interrupted nanosleep or poll ends
 * with EINTR or restarts whole), so every task's block holds 6.1's default,
 * do_no_restart_syscall: EINTR. */
struct restart_block;

noinline long do_no_restart_syscall(struct restart_block *param)
{
	return -EINTR;
}

SYSCALL_DEFINE0(restart_syscall)
{
	return do_no_restart_syscall(NULL);	/* current->restart_block.fn(&current->restart_block) */
}

SYSCALL_DEFINE2(kill, pid_t, pid, int, sig)
{
	struct sigqueue_info info = { .code = SI_USER, .pid = current->tgid, .uid = current_cred()->uid,
				      .host_did = current->session };

	if (sig < 0 || sig > _NSIG)
		return -EINVAL;
	return kill_something_info(sig, &info, pid);
}

/* The thread pid (of tgid, if given) gets the signal. */
static noinline int do_send_specific(pid_t tgid, pid_t pid, int sig, struct sigqueue_info *info)
{
	struct task_struct *p = find_task_by_vpid(pid);
	int error;

	if (!p || (tgid > 0 && p->tgid != tgid))
		return -ESRCH;
	error = check_kill_permission(sig, info, p);
	if (error || !sig)
		return error;
	return do_send_sig_info(sig, info, p, false);
}

static noinline int do_tkill(pid_t tgid, pid_t pid, int sig)
{
	struct sigqueue_info info = { .code = SI_TKILL, .pid = current->tgid, .uid = current_cred()->uid,
				      .host_did = current->session };

	return do_send_specific(tgid, pid, sig, &info);
}

SYSCALL_DEFINE3(tgkill, pid_t, tgid, pid_t, pid, int, sig)
{
	if (pid <= 0 || tgid <= 0)
		return -EINVAL;
	if (sig < 0 || sig > _NSIG)
		return -EINVAL;
	return do_tkill(tgid, pid, sig);
}

SYSCALL_DEFINE2(tkill, pid_t, pid, int, sig)
{
	if (pid <= 0)
		return -EINVAL;
	if (sig < 0 || sig > _NSIG)
		return -EINVAL;
	return do_tkill(0, pid, sig);
}

/* ---- rt_sigqueueinfo, rt_tgsigqueueinfo: a signal with the caller's own siginfo ---- */
/* What the user's siginfo says of the signal (its code, errno, sender; a fault's address) */
static __always_inline void sigqueue_info_of(struct sigqueue_info *to, const struct kernel_siginfo *from)
{
	const struct kernel_siginfo kinfo = *from;

	to->code = kinfo.si_code;
	to->errno = kinfo.si_errno;
	to->pid = kinfo.kill.pid;
	to->uid = kinfo.kill.uid;
	to->addr = kinfo.fault.addr;
	to->fd = 0;
	to->poll = false;
	to->tid = kinfo.timer.tid;
	to->overrun = kinfo.timer.overrun;
	to->sys_private = 0;
	to->value = kinfo.rt.value;
	to->to_host = false;
	to->host_did = current->session;	/* (rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal) */
}

static __always_inline int copy_sigqueue_info_from_user(int sig, struct sigqueue_info *to,
							 const struct kernel_siginfo *from)
{
	struct kernel_siginfo kinfo;

	if (copy_from_user(&kinfo, from, sizeof(kinfo)))	/* __copy_siginfo_from_user() */
		return -EFAULT;
	sigqueue_info_of(to, &kinfo);
	return 0;
}

/* ---- pidfd_send_signal: kill(2) through a pidfd, or rt_sigqueueinfo(2) with a siginfo ---- */
SYSCALL_DEFINE4(pidfd_send_signal, int, pidfd, int, sig, siginfo_t *, info, unsigned int, flags)
{
	struct sigqueue_info qinfo = { .code = SI_USER, .pid = current->tgid, .uid = current_cred()->uid,
				       .host_did = current->session };
	struct kernel_siginfo kinfo;
	struct file *file;
	struct pid *pid;
	int ret;

	if (flags)	/* none defined yet */
		return -EINVAL;
	file = fget(pidfd);
	if (!file)
		return -EBADF;
	pid = pidfd_pid(file);	/* pidfd_to_pid(): (a /proc/PID directory is none here) */
	if (IS_ERR(pid)) {
		ret = PTR_ERR(pid);
		goto err;
	}
	if (info) {
		ret = -EFAULT;
		if (copy_from_user(&kinfo, info, sizeof(kinfo)))	/* copy_siginfo_from_user_any() */
			goto err;
		ret = -EINVAL;
		if (sig != kinfo.si_signo)
			goto err;
		/* only to itself may a process send what looks like the kernel's or tkill's */
		ret = -EPERM;
		if (task_pid(current) != pid && (kinfo.si_code >= 0 || kinfo.si_code == SI_TKILL))
			goto err;
		sigqueue_info_of(&qinfo, &kinfo);
	}
	ret = kill_pid_info(sig, &qinfo, pid);
err:
	fput(file);
	return ret;
}

static noinline int do_rt_sigqueueinfo(pid_t pid, int sig, struct sigqueue_info *info)
{
	/* Not even root can pretend to send signals from the kernel.
	 * Nor can they impersonate a kill()/tgkill(), which adds source info. */
	if ((info->code >= 0 || info->code == SI_TKILL) && current->tgid != pid)
		return -EPERM;
	/* POSIX.1b doesn't mention process groups.  */
	return kill_pid_info(sig, info, find_vpid(pid));	/* kill_proc_info() */
}

SYSCALL_DEFINE3(rt_sigqueueinfo, pid_t, pid, int, sig, siginfo_t *, uinfo)
{
	struct sigqueue_info info;
	int ret = copy_sigqueue_info_from_user(sig, &info, (const struct kernel_siginfo *)uinfo);

	if (unlikely(ret))
		return ret;
	return do_rt_sigqueueinfo(pid, sig, &info);
}

static noinline int do_rt_tgsigqueueinfo(pid_t tgid, pid_t pid, int sig, struct sigqueue_info *info)
{
	/* This is only valid for single tasks */
	if (pid <= 0 || tgid <= 0)
		return -EINVAL;
	if ((info->code >= 0 || info->code == SI_TKILL) && current->pid != pid)
		return -EPERM;
	return do_send_specific(tgid, pid, sig, info);
}

SYSCALL_DEFINE4(rt_tgsigqueueinfo, pid_t, tgid, pid_t, pid, int, sig, siginfo_t *, uinfo)
{
	struct sigqueue_info info;
	int ret = copy_sigqueue_info_from_user(sig, &info, (const struct kernel_siginfo *)uinfo);

	if (unlikely(ret))
		return ret;
	return do_rt_tgsigqueueinfo(tgid, pid, sig, &info);
}

/* ---- handlers and the mask ---- */
struct user_sigaction { unsigned long handler, flags, restorer; u64 mask; };

noinline int do_sigaction(int sig, struct k_sigaction *act, struct k_sigaction *oact)
{
	struct k_sigaction *k;

	if (sig < 1 || sig > _NSIG || (act && (sigmask(sig) & SIG_KERNEL_ONLY_MASK)))
		return -EINVAL;
	if (!current->sighand)
		return -EINVAL;
	k = &current->sighand->action[sig - 1];
	if (oact)
		*oact = *k;
	if (act) {
		*k = *act;
		k->sa_mask &= ~SIG_KERNEL_ONLY_MASK;
		if (sig_handler_ignored(k->sa_handler, sig))	/* what is pending goes, blocked or not */
			flush_pending_in_group(current, sig);
	}
	return 0;
}

SYSCALL_DEFINE4(rt_sigaction, int, sig, const struct sigaction *, act, struct sigaction *, oact,
		size_t, sigsetsize)
{
	struct k_sigaction new, old;
	struct user_sigaction u;
	int ret;

	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (act) {
		if (copy_from_user(&u, act, sizeof(u)))
			return -EFAULT;
		new = (struct k_sigaction){ u.handler, u.flags, u.restorer, u.mask };
	}
	ret = do_sigaction(sig, act ? &new : NULL, oact ? &old : NULL);
	if (!ret && oact) {
		u = (struct user_sigaction){ old.sa_handler, old.sa_flags, old.sa_restorer, old.sa_mask };
		if (copy_to_user(oact, &u, sizeof(u)))
			return -EFAULT;
	}
	return ret;
}

/* With the siglock held (a group's pending signals are each thread's own here: none to
 * retarget to another thread) */
static noinline void __set_task_blocked(struct task_struct *tsk, const u64 *newset)
{
	tsk->blocked = *newset;
}

/* Under the siglock: a sender checks the mask with it held, so it sees either the old mask
 * (and the signal is pending before the caller looks) or the new one (and wakes the caller). */
noinline void __set_current_blocked(const u64 *newset)
{
	unsigned long flags = arch_local_irq_save();

	spin_lock(&siglock);
	__set_task_blocked(current, newset);
	spin_unlock(&siglock);
	arch_local_irq_restore(flags);
}

noinline void set_current_blocked(u64 mask)
{
	mask &= ~SIG_KERNEL_ONLY_MASK;	/* sigdelsetmask(newset, sigmask(SIGKILL) | sigmask(SIGSTOP)) */
	__set_current_blocked(&mask);
}

noinline int sigprocmask(int how, u64 *set, u64 *oldset)
{
	u64 blocked = current->blocked;

	if (oldset)
		*oldset = blocked;
	if (!set)
		return 0;
	switch (how) {
	case SIG_BLOCK:
		blocked |= *set;
		break;
	case SIG_UNBLOCK:
		blocked &= ~*set;
		break;
	case SIG_SETMASK:
		blocked = *set;
		break;
	default:
		return -EINVAL;
	}
	set_current_blocked(blocked);
	return 0;
}

SYSCALL_DEFINE4(rt_sigprocmask, int, how, sigset_t *, nset, sigset_t *, oset, size_t, sigsetsize)
{
	u64 new, old;
	int ret;

	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (nset && copy_from_user(&new, nset, sizeof(new)))
		return -EFAULT;
	ret = sigprocmask(how, nset ? &new : NULL, &old);
	if (!ret && oset && copy_to_user(oset, &old, sizeof(old)))
		return -EFAULT;
	return ret;
}

/* the blocked signals sent to the task and not yet taken (a group's are queued on one of its
 * threads here: each thread's own) */
static noinline void do_sigpending(u64 *set)
{
	unsigned long flags = arch_local_irq_save();

	spin_lock(&siglock);
	*set = current->pending & current->blocked;
	spin_unlock(&siglock);
	arch_local_irq_restore(flags);
}

SYSCALL_DEFINE2(rt_sigpending, sigset_t *, uset, size_t, sigsetsize)
{
	u64 set;

	if (sigsetsize > sizeof(u64))
		return -EINVAL;
	do_sigpending(&set);
	return copy_to_user(uset, &set, sigsetsize) ? -EFAULT : 0;
}

/* ---- delivery ---- */
struct ksignal {
	struct k_sigaction ka;
	struct sigqueue_info info;
	int sig;
};

#define SYNCHRONOUS_MASK (sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGILL) | sigmask(SIGTRAP) | \
			  sigmask(SIGFPE) | sigmask(SIGSYS))

/* The next signal of the pending set the mask lets through: synchronous (fault) signals
 * first, then the lowest; 0 if none */
static noinline int next_signal(const u64 *pending, const u64 *mask)
{
	u64 x = *pending & ~*mask;

	if (!x)
		return 0;
	if (x & SYNCHRONOUS_MASK)
		x &= SYNCHRONOUS_MASK;
	return __builtin_ctzl(x) + 1;
}

/* The first siginfo queued for the signal, out of the queue; the signal stays pending while
 * another is queued.  None (it could not be allocated, or SIGKILL's): SI_USER, no sender.
 * resched_timer: a POSIX timer's with an interval, to be restarted (posixtimer_rearm). */
static noinline void collect_signal(int sig, struct task_struct *t, struct sigqueue_info *info,
				    bool *resched_timer)
{
	struct sigqueue *q, *first = NULL;

	list_for_each_entry(q, &t->sigqueue, list) {
		if (q->sig == sig) {
			if (first)
				goto still_pending;
			first = q;
		}
	}
	t->pending &= ~sigmask(sig);
	if (first) {
still_pending:
		list_del_init(&first->list);
		*info = first->info;
		*resched_timer = (first->flags & SIGQUEUE_PREALLOC) && info->code == SI_TIMER &&
				 info->sys_private;
		__sigqueue_free(first);
	} else {
		*info = (struct sigqueue_info){ .code = SI_USER };
	}
}

/* With the siglock held: the next of the signals the mask lets through, with its information.
 * SIGALRM restarts an interval ITIMER_REAL for its next period; a POSIX timer's signal restarts
 * its timer, the siglock dropped meanwhile (timer locks are taken outside it), and tells the
 * overruns until then. */
noinline int dequeue_signal(struct task_struct *t, u64 *mask, struct sigqueue_info *info)
{
	bool resched_timer = false;
	int sig = next_signal(&t->pending, mask);	/* __dequeue_signal() */

	if (!sig)
		return 0;
	collect_signal(sig, t, info, &resched_timer);
	if (sig == SIGALRM)
		itimer_rearm(t);
	if (resched_timer) {
		spin_unlock(&siglock);
		posixtimer_rearm(info);
		spin_lock(&siglock);
	}
	info->sys_private = 0;	/* not for user space */
	return sig;
}

/*
 * A POSIX timer's expiry (posix_timer_event): its preallocated siginfo queued for the process
 * (or the thread, SIGEV_THREAD_ID) it names.  Still queued from the last expiry: one overrun
 * more.  1: the signal is ignored (the timer restarts by itself), -1: the task is gone.
 */
noinline int send_sigqueue(struct sigqueue *q, pid_t pid, bool thread)
{
	int sig = q->sig, ret = -1, result;
	struct task_struct *t, *target;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);	/* pid_task() */
	t = find_task_by_pid(pid);
	spin_unlock_irqrestore(&sched_lock, flags);
	if (!t || t->exit_state || !t->signal || t->session || (!thread && t->tgid != pid))
		return ret;
	if (!__lock_task_sighand(t, &flags))
		return ret;
	ret = 1;
	result = TRACE_SIGNAL_IGNORED;
	if (!prepare_signal(sig, t, false))
		goto out;
	ret = 0;
	if (unlikely(!list_empty(&q->list))) {
		q->info.overrun++;	/* already queued: counted, not queued twice */
		result = TRACE_SIGNAL_ALREADY_PENDING;
		goto out;
	}
	q->info.overrun = 0;
	target = thread ? t : group_target(t, sig);
	signalfd_notify(target, sig);
	list_add_tail(&q->list, &target->sigqueue);
	target->pending |= sigmask(sig);
	complete_signal(sig, target, !thread);
	result = TRACE_SIGNAL_DELIVERED;
out:
	trace_signal_generate(sig, &q->info, t, !thread, result);
	unlock_task_sighand(t, &flags);
	return ret;
}

/* The next signal to take, with its handler; or false when none (the defaults acted). */
static noinline bool get_signal(struct ksignal *ksig)
{
	struct task_struct *t = current;

	for (;;) {
		struct k_sigaction *ka;
		unsigned long flags;
		u64 ready;
		int sig;

		flags = arch_local_irq_save();
		spin_lock(&siglock);
		if (t->signal->flags & SIGNAL_GROUP_EXIT) {	/* the group is exiting: so do we */
			struct sigqueue_info noinfo = { .code = SI_USER };	/* SEND_SIG_NOINFO */

			t->pending &= ~sigmask(SIGKILL);
			trace_signal_deliver(SIGKILL, &noinfo, &t->sighand->action[SIGKILL - 1]);
			spin_unlock(&siglock);
			arch_local_irq_restore(flags);
			local_irq_enable();
			do_exit(t->signal->group_exit_code);
		}
		ready = t->pending & ~t->blocked;
		if (!ready) {
			spin_unlock(&siglock);
			arch_local_irq_restore(flags);
			return false;
		}
		sig = dequeue_signal(t, &t->blocked, &ksig->info);
		ka = &t->sighand->action[sig - 1];
		trace_signal_deliver(sig, &ksig->info, ka);
		if (ka->sa_handler == SIG_IGN) {
			spin_unlock(&siglock);
			arch_local_irq_restore(flags);
			continue;
		}
		if (ka->sa_handler != SIG_DFL) {
			ksig->ka = *ka;
			ksig->sig = sig;
			if (ka->sa_flags & SA_RESETHAND)
				ka->sa_handler = SIG_DFL;
			spin_unlock(&siglock);
			arch_local_irq_restore(flags);
			return true;
		}
		spin_unlock(&siglock);
		arch_local_irq_restore(flags);
		if (sigmask(sig) & (SIG_KERNEL_IGNORE_MASK | SIG_KERNEL_STOP_MASK))
			continue;	/* (job control is not modelled) */
		local_irq_enable();
		do_group_exit(sig);	/* killed by it (no core: RLIMIT_CORE is 0) */
	}
}

/* ---- the alternate signal stack (sigaltstack(2)) ---- */
static inline int __on_sig_stack(unsigned long sp)
{
	return sp > current->sas_ss_sp && sp - current->sas_ss_sp <= current->sas_ss_size;
}

static inline int on_sig_stack(unsigned long sp)
{
	if (current->sas_ss_flags & SS_AUTODISARM)	/* it may be in use, and is not ours to say */
		return 0;
	return __on_sig_stack(sp);
}

static inline int sas_ss_flags(unsigned long sp)
{
	if (!current->sas_ss_size)
		return SS_DISABLE;
	return on_sig_stack(sp) ? SS_ONSTACK : 0;
}

noinline notrace void sas_ss_reset(struct task_struct *p)
{
	p->sas_ss_sp = 0;
	p->sas_ss_size = 0;
	p->sas_ss_flags = SS_DISABLE;
}

struct sigaltstack_user { void *ss_sp; int ss_flags; size_t ss_size; };	/* stack_t */

static noinline int do_sigaltstack(const struct sigaltstack_user *ss, struct sigaltstack_user *oss,
				   unsigned long sp, size_t min_ss_size)
{
	struct task_struct *t = current;

	if (oss) {
		memset(oss, 0, sizeof(*oss));
		oss->ss_sp = (void *)t->sas_ss_sp;
		oss->ss_size = t->sas_ss_size;
		oss->ss_flags = sas_ss_flags(sp) | (t->sas_ss_flags & SS_FLAG_BITS);
	}
	if (ss) {
		unsigned long ss_sp = (unsigned long)ss->ss_sp;
		size_t ss_size = ss->ss_size;
		unsigned int ss_flags = ss->ss_flags, ss_mode;

		if (on_sig_stack(sp))
			return -EPERM;
		ss_mode = ss_flags & ~SS_FLAG_BITS;
		if (ss_mode != SS_DISABLE && ss_mode != SS_ONSTACK && ss_mode != 0)
			return -EINVAL;
		if (ss_mode == SS_DISABLE) {
			ss_size = 0;
			ss_sp = 0;
		} else if (ss_size < min_ss_size) {
			return -ENOMEM;
		}
		t->sas_ss_sp = ss_sp;
		t->sas_ss_size = ss_size;
		t->sas_ss_flags = ss_flags;
	}
	return 0;
}

SYSCALL_DEFINE2(sigaltstack, const stack_t *, uss, stack_t *, uoss)
{
	struct sigaltstack_user new, old;
	int err;

	if (current->session)	/* a host process: its stack is the host's business */
		return -ENOSYS;
	if (uss && copy_from_user(&new, uss, sizeof(new)))
		return -EFAULT;
	err = do_sigaltstack(uss ? &new : NULL, uoss ? &old : NULL, current_pt_regs()->sp, MINSIGSTKSZ);
	if (!err && uoss && copy_to_user(uoss, &old, sizeof(old)))
		err = -EFAULT;
	return err;
}

/* The siginfo as user space reads it, from what the sender said of the signal (6.1 queues it in
 * this layout) */
static __always_inline void fill_siginfo(struct kernel_siginfo *to, int sig, const struct sigqueue_info *info)
{
	memset(to, 0, sizeof(*to));
	to->si_signo = sig;
	to->si_errno = info->errno;
	to->si_code = info->code;
	if (info->code == SI_TIMER) {	/* siginfo_layout(): SIL_TIMER */
		to->timer.tid = info->tid;
		to->timer.overrun = info->overrun;
		to->timer.value = info->value;
	} else if (info->code >= 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE)) {
		to->fault.addr = info->addr;
	} else if (info->poll) {
		to->poll.band = info->addr, to->poll.fd = info->fd;
	} else {	/* SIL_KILL, or SIL_RT (a negative code: a user's queued signal) */
		to->rt.pid = info->pid, to->rt.uid = info->uid;
		to->rt.value = info->value;
	}
}

/* A siginfo out to user space: a signal frame's, sigtimedwait's */
noinline int copy_siginfo_to_user(struct kernel_siginfo *to, const struct kernel_siginfo *from)
{
	if (copy_to_user(to, from, sizeof(struct kernel_siginfo)))
		return -EFAULT;
	return 0;
}

/* The frame below the interrupted stack, or at the top of the alternate one for an SA_ONSTACK
 * handler (get_sigframe): fp state, then siginfo and ucontext (__setup_rt_frame). */
static noinline notrace int setup_rt_frame(struct ksignal *ksig, struct pt_regs *regs)
{
	struct task_struct *t = current;
	unsigned long sp = regs->sp - 128;	/* the red zone */
	unsigned long fp, frame_addr, math_size;
	struct rt_sigframe frame;
	struct sigcontext_64 *sc = &frame.uc.uc_mcontext;
	bool onsigstack = on_sig_stack(sp), entering_altstack = false;

	if (!(ksig->ka.sa_flags & SA_RESTORER))
		return -EFAULT;	/* x86-64 needs the libc's restorer */
	if ((ksig->ka.sa_flags & SA_ONSTACK) && sas_ss_flags(sp) == 0) {
		sp = t->sas_ss_sp + t->sas_ss_size;
		entering_altstack = true;
	}
	sp = fpu__alloc_mathframe(sp, 0, &fp, &math_size);
	sp = ((sp - sizeof(struct rt_sigframe)) & ~15UL) - 8;
	/* on the alternate stack and past its end: an address that faults (SIGSEGV) */
	if ((onsigstack || entering_altstack) && !__on_sig_stack(sp))
		return -EFAULT;
	frame_addr = sp;
	memset(&frame, 0, sizeof(frame));
	frame.pretcode = (char *)ksig->ka.sa_restorer;
	frame.uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	frame.uc.uc_stack.ss_sp = (void *)t->sas_ss_sp;	/* save_altstack_ex() */
	frame.uc.uc_stack.ss_flags = sas_ss_flags(regs->sp);
	frame.uc.uc_stack.ss_size = t->sas_ss_size;
	*sc = (struct sigcontext_64){
		.r8 = regs->r8, .r9 = regs->r9, .r10 = regs->r10, .r11 = regs->r11,
		.r12 = regs->r12, .r13 = regs->r13, .r14 = regs->r14, .r15 = regs->r15,
		.di = regs->di, .si = regs->si, .bp = regs->bp, .bx = regs->bx,
		.dx = regs->dx, .ax = regs->ax, .cx = regs->cx, .sp = regs->sp,
		.ip = regs->ip, .flags = regs->flags, .cs = regs->cs, .ss = regs->ss,
		.oldmask = t->restore_sigmask ? t->saved_sigmask : t->blocked, .fpstate = fp,
	};
	sc->cr2 = ksig->info.addr;
	frame.uc.uc_sigmask = t->restore_sigmask ? t->saved_sigmask : t->blocked;	/* sigmask_to_save() */
	if (!copy_fpstate_to_sigframe((void *)fp, (void *)fp, math_size, 0) ||
	    copy_to_user((void *)frame_addr, &frame, sizeof(frame)))
		return -EFAULT;
	if (ksig->ka.sa_flags & SA_SIGINFO) {
		struct kernel_siginfo info;

		fill_siginfo(&info, ksig->sig, &ksig->info);
		if (copy_siginfo_to_user(&((struct rt_sigframe *)frame_addr)->info, &info))
			return -EFAULT;
	}
	regs->di = ksig->sig;
	regs->ax = 0;
	regs->si = frame_addr + offsetof(struct rt_sigframe, info);
	regs->dx = frame_addr + offsetof(struct rt_sigframe, uc);
	regs->ip = ksig->ka.sa_handler;
	regs->sp = frame_addr;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	if (t->sas_ss_flags & SS_AUTODISARM)
		sas_ss_reset(t);
	return 0;
}

void signal_setup_done(int failed, struct ksignal *ksig, int stepping);

/* (inlined into arch_do_signal_or_restart, as 6.1's) */
static __always_inline void handle_signal(struct ksignal *ksig, struct pt_regs *regs)
{
	bool failed;

	if ((long)regs->orig_ax >= 0) {	/* from a system call: restart or EINTR */
		switch ((long)regs->ax) {
		case -ERESTART_RESTARTBLOCK:
		case -ERESTARTNOHAND:
			regs->ax = -EINTR;
			break;
		case -ERESTARTSYS:
			if (!(ksig->ka.sa_flags & SA_RESTART)) {
				regs->ax = -EINTR;
				break;
			}
			/* fall through */
		case -ERESTARTNOINTR:
			regs->ax = regs->orig_ax;
			regs->ip -= 2;
			break;
		}
	}
	failed = setup_rt_frame(ksig, regs) < 0;
	if (!failed) {
		regs->flags &= ~(X86_EFLAGS_DF | X86_EFLAGS_RF | X86_EFLAGS_TF);
		fpu__clear_user_states(current);	/* the handler starts with a clean FPU */
	}
	signal_setup_done(failed, ksig, false);
}

/* The frame written, the handler runs with its mask (signal_delivered(), inlined); or the
 * frame could not be written (no usable stack): a SIGSEGV no handler takes */
noinline void signal_setup_done(int failed, struct ksignal *ksig, int stepping)
{
	if (failed) {
		force_sigsegv(ksig->sig);
		return;
	}
	if (!(ksig->ka.sa_flags & SA_NODEFER))
		ksig->ka.sa_mask |= sigmask(ksig->sig);
	current->restore_sigmask = false;	/* the frame holds it: rt_sigreturn restores it */
	set_current_blocked(current->blocked | ksig->ka.sa_mask);
}

notrace void restore_saved_sigmask(void)
{
	if (current->restore_sigmask) {
		current->restore_sigmask = false;
		set_current_blocked(current->saved_sigmask);
	}
}

/* On the way back to user mode with a signal pending (exit_to_user_mode_loop). */
void arch_do_signal_or_restart(struct pt_regs *regs)
{
	struct ksignal ksig;

	if (get_signal(&ksig)) {
		handle_signal(&ksig, regs);
		return;
	}
	if ((long)regs->orig_ax >= 0) {	/* no handler: the call restarts */
		switch ((long)regs->ax) {
		case -ERESTARTNOHAND:
		case -ERESTARTSYS:
		case -ERESTARTNOINTR:
			regs->ax = regs->orig_ax;
			regs->ip -= 2;
			break;
		case -ERESTART_RESTARTBLOCK:
			regs->ax = __NR_restart_syscall;
			regs->ip -= 2;
			break;
		}
	}
	restore_saved_sigmask();
}

/* ppoll's and pselect6's mask for the wait (6.1's set_user_sigmask): the caller's back when
 * the call returns, or, when a signal interrupted it, once its handler's frame holds it
 * (restore_saved_sigmask_unless).  A session task's mask is its host process's. */
noinline int set_user_sigmask(const void *umask, size_t sigsetsize)
{
	u64 kmask;

	if (!umask)
		return 0;
	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (copy_from_user(&kmask, umask, sizeof(kmask)))
		return -EFAULT;
	if (current->session)
		return 0;
	current->saved_sigmask = current->blocked;
	current->restore_sigmask = true;
	set_current_blocked(kmask);
	return 0;
}

/* Sleep until a signal comes (to a handler, or fatal): inline, so the caller is where the task
 * waits (its wchan) */
static __always_inline long wait_for_signal(void)
{
	if (current->session)	/* it waits on the host, for the host's signal (session.c) */
		return -ERESTARTNOHAND;
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (signal_pending(current))
			break;
		schedule();
	}
	set_current_state(TASK_RUNNING);
	return -ERESTARTNOHAND;
}

static noinline long sigsuspend(void)
{
	return wait_for_signal();
}

/* (6.1 waits in pause itself: a paused task's wchan is __do_sys_pause) */
SYSCALL_DEFINE0(pause)
{
	return wait_for_signal();
}

SYSCALL_DEFINE2(rt_sigsuspend, sigset_t *, unewset, size_t, sigsetsize)
{
	u64 newset;

	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (copy_from_user(&newset, unewset, sizeof(newset)))
		return -EFAULT;
	if (current->session)
		return sigsuspend();
	current->saved_sigmask = current->blocked;
	current->restore_sigmask = true;
	set_current_blocked(newset);
	return sigsuspend();
}

/* Wait for one of the signals in `which` (blocked, or they would run their handlers), at most
 * the timeout: the signal taken out of the pending set, -EAGAIN when the time ran out, -EINTR
 * when another signal came */
static noinline int do_sigtimedwait(const u64 *which, struct sigqueue_info *info, const struct timespec64 *ts)
{
	struct task_struct *tsk = current;
	ktime_t *to = NULL, timeout = KTIME_MAX;
	u64 mask = *which, real_blocked, blocked;
	int sig, ret = 0;

	if (ts) {
		if (!timespec64_valid(ts))
			return -EINVAL;
		timeout = timespec64_to_ns(ts);
		to = &timeout;
	}
	/* Invert the set of allowed signals to get those we want to block. */
	mask &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
	mask = ~mask;
	spin_lock_irq(&siglock);
	sig = dequeue_signal(tsk, &mask, info);
	if (!sig && timeout) {
		/* None ready: those wanted unblocked while asleep, so that their arrival wakes it. */
		tsk->real_blocked = real_blocked = tsk->blocked;
		blocked = tsk->blocked & mask;
		__set_task_blocked(tsk, &blocked);
		set_current_state(TASK_INTERRUPTIBLE);
		spin_unlock_irq(&siglock);
		ret = schedule_hrtimeout_range(to, tsk->timer_slack_ns, HRTIMER_MODE_REL);
		spin_lock_irq(&siglock);
		__set_task_blocked(tsk, &real_blocked);
		tsk->real_blocked = 0;
		sig = dequeue_signal(tsk, &mask, info);
	}
	spin_unlock_irq(&siglock);
	if (sig)
		return sig;
	return ret ? -EINTR : -EAGAIN;
}

SYSCALL_DEFINE4(rt_sigtimedwait, const sigset_t *, uthese, siginfo_t *, uinfo,
		const struct __kernel_timespec *, uts, size_t, sigsetsize)
{
	struct sigqueue_info info;
	struct timespec64 ts;
	u64 these;
	int ret;

	if (sigsetsize != sizeof(u64))
		return -EINVAL;
	if (copy_from_user(&these, uthese, sizeof(these)))
		return -EFAULT;
	if (uts && get_timespec64(&ts, uts))
		return -EFAULT;
	if (current->session)
		return 0;	/* a session task waits on the host (session.c waits for its return) */
	ret = do_sigtimedwait(&these, &info, uts ? &ts : NULL);
	if (ret > 0 && uinfo) {
		struct kernel_siginfo kinfo;

		fill_siginfo(&kinfo, ret, &info);
		if (copy_siginfo_to_user((struct kernel_siginfo *)uinfo, &kinfo))
			ret = -EFAULT;
	}
	return ret;
}

/* The registers the frame holds (the flags the handler may change only), then its FPU state */
static noinline bool restore_sigcontext(struct pt_regs *regs, struct sigcontext_64 *usc, unsigned long uc_flags)
{
	struct sigcontext_64 sc;

	if (copy_from_user(&sc, usc, offsetof(struct sigcontext_64, reserved1)))
		return false;
	regs->r8 = sc.r8, regs->r9 = sc.r9, regs->r10 = sc.r10, regs->r11 = sc.r11;
	regs->r12 = sc.r12, regs->r13 = sc.r13, regs->r14 = sc.r14, regs->r15 = sc.r15;
	regs->di = sc.di, regs->si = sc.si, regs->bp = sc.bp, regs->bx = sc.bx;
	regs->dx = sc.dx, regs->ax = sc.ax, regs->cx = sc.cx, regs->sp = sc.sp;
	regs->ip = sc.ip;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->flags = (regs->flags & ~FIX_EFLAGS) | (sc.flags & FIX_EFLAGS);
	regs->orig_ax = -1;	/* no restart of the call the signal interrupted */
	return fpu__restore_sig((void *)sc.fpstate, 0);
}

/* What the handler left in uc_stack (errors other than a fault are squashed, as 6.1's) */
noinline int restore_altstack(const struct sigaltstack_user *uss)
{
	struct sigaltstack_user new;

	if (copy_from_user(&new, uss, sizeof(new)))
		return -EFAULT;
	(void)do_sigaltstack(&new, NULL, current_pt_regs()->sp, MINSIGSTKSZ);
	return 0;
}

/* A frame rt_sigreturn could not read: the log says so, then a SIGSEGV */
noinline void signal_fault(struct pt_regs *regs, void *frame, char *where)
{
	struct task_struct *me = current;

	/* (6.1 prints the frame's address hashed, %p, and where ip is: print_vma_addr) */
	printk(KERN_INFO "%s[%d] bad frame in %s frame:%lx ip:%lx sp:%lx orax:%lx\n",
	       me->comm, me->pid, where, (unsigned long)frame, regs->ip, regs->sp, regs->orig_ax);
	force_sig(SIGSEGV);
}

SYSCALL_DEFINE0(rt_sigreturn)
{
	struct pt_regs *regs = current_pt_regs();
	struct rt_sigframe *frame = (struct rt_sigframe *)(regs->sp - 8);
	u64 set;
	unsigned long uc_flags;

	if (!current->signal) {	/* a session task: the host returned from its handler */
		struct session_task *st = current->session;

		return st && st->sigreturn_known ? (long)st->sigreturn_ax : regs->ax;
	}
	if (copy_from_user(&set, &frame->uc.uc_sigmask, sizeof(set)) ||
	    copy_from_user(&uc_flags, &frame->uc.uc_flags, sizeof(uc_flags)))
		goto badframe;
	set_current_blocked(set);
	if (!restore_sigcontext(regs, &frame->uc.uc_mcontext, uc_flags))
		goto badframe;
	if (restore_altstack((struct sigaltstack_user *)&frame->uc.uc_stack))
		goto badframe;
	return regs->ax;
badframe:
	signal_fault(regs, frame, "rt_sigreturn");
	return 0;
}
