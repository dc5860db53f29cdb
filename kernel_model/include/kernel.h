/* Core kernel structures: per-CPU data, tasks, runqueues, timers. */
#ifndef _KERNEL_H
#define _KERNEL_H
#include "types.h"
#include "ns_common.h"
#include "task_io_accounting.h"
#include "list.h"
#include "hostif.h"
#include "trace/slots.h"
#include "gfp.h"
#include "spinlock.h"
#include "mutex.h"
#include "interrupt.h"
#include "timer.h"
#include "resource.h"
#include "workqueue.h"
#include "mm.h"
#include "slab.h"

#define PAGE_SIZE 4096UL
#define PAGE_ALIGN(x) ALIGN(x, PAGE_SIZE)
#define THREAD_SIZE (16 * 1024UL)
#define __START_KERNEL_map 0xffffffff80000000UL
#define PAGE_OFFSET 0xffff888000000000UL
#define TASK_SIZE_MAX 0x00007ffffffff000UL
#define __KERNEL_CS 0x10
#define __KERNEL_DS 0x18
#define __USER_DS 0x2b
#define __USER_CS 0x33

#define __pa(x) ((u64)(x) >= __START_KERNEL_map ? (u64)(x) - __START_KERNEL_map : (u64)(x) - PAGE_OFFSET)
#define IS_ERR(p) ((unsigned long)(p) >= (unsigned long)-4095)
#define ERR_PTR(e) ((void *)(long)(e))
#define PTR_ERR(p) ((long)(p))
#define __va(x) ((void *)((u64)(x) + PAGE_OFFSET))

/* The PTE of va in mm, the tables on the way made where missing when alloc (pud_alloc,
 * pmd_alloc, pte_alloc: 6.1's inline walk; 4 levels, the p4d folded into the pgd). */
static __always_inline u64 *lookup_pte(struct mm_struct *mm, u64 va, bool alloc)
{
	u64 *pgd = &mm->pgd[(va >> 39) & 511], *pud, *pmd;

	if (!(*pgd & _PAGE_PRESENT) && (!alloc || __pud_alloc(mm, pgd, va)))
		return NULL;
	pud = (u64 *)__va(*pgd & PTE_PFN_MASK) + ((va >> 30) & 511);
	if (!(*pud & _PAGE_PRESENT) && (!alloc || __pmd_alloc(mm, pud, va)))
		return NULL;
	pmd = (u64 *)__va(*pud & PTE_PFN_MASK) + ((va >> 21) & 511);
	if (!(*pmd & _PAGE_PRESENT) && (!alloc || __pte_alloc(mm, pmd)))
		return NULL;
	return (u64 *)__va(*pmd & PTE_PFN_MASK) + ((va >> 12) & 511);
}

/* ---- preempt count (include/linux/preempt.h layout) ---- */
#define SOFTIRQ_OFFSET	0x100
#define HARDIRQ_OFFSET	0x10000
#define HARDIRQ_MASK	0xf0000
#define NMI_OFFSET	0x100000
#define NMI_MASK	0xf00000
#define NR_syscalls	451	/* x86-64's in Linux 6.1 (kernel/syscall_table.h) */

/* ---- registers saved on kernel entry (arch/x86/include/asm/ptrace.h order) ---- */
struct pt_regs {
	u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di;
	u64 orig_ax, ip, cs, flags, sp, ss;
};
static __always_inline bool user_mode(struct pt_regs *r) { return (r->cs & 3) == 3; }

/* ---- memory: struct mm_struct, vm_area_struct in mm.h ---- */

/* ---- files: include/fs.h (the VFS, fs/) ---- */
struct file;
struct file_operations;
struct fs_struct;
struct nsproxy;
struct files_struct;
struct nameidata;

/* ---- tasks ---- */
#define TASK_RUNNING			0x00000000
#define TASK_INTERRUPTIBLE		0x00000001
#define TASK_UNINTERRUPTIBLE		0x00000002
#define __TASK_STOPPED			0x00000004
#define __TASK_TRACED			0x00000008
#define EXIT_DEAD			0x00000010
#define EXIT_ZOMBIE			0x00000020
#define TASK_PARKED			0x00000040
#define TASK_DEAD			0x00000080
#define TASK_WAKEKILL			0x00000100	/* a fatal signal ends the sleep */
#define TASK_NOLOAD			0x00000400
#define TASK_NEW			0x00000800
#define TASK_KILLABLE			(TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#define TASK_IDLE			(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_REPORT			(TASK_RUNNING | TASK_INTERRUPTIBLE | \
					 TASK_UNINTERRUPTIBLE | __TASK_STOPPED | \
					 __TASK_TRACED | EXIT_DEAD | EXIT_ZOMBIE | \
					 TASK_PARKED)
#define TASK_REPORT_IDLE	(TASK_REPORT + 1)
#define TASK_REPORT_MAX		(TASK_REPORT_IDLE << 1)
#define PF_KTHREAD		0x00200000
#define PF_IDLE			0x00000002
#define PF_EXITING		0x00000004
#define PF_FORKNOEXEC		0x00000040	/* forked but did not exec */
#define PF_SUPERPRIV		0x00000100	/* used a capability (acct(5)'s ASU) */
#define PF_MEMALLOC		0x00000800	/* reclaiming: may use the reserves, never reclaims again */
#define PF_KSWAPD		0x00020000	/* kswapd */
#define PF_NO_SETAFFINITY	0x04000000
#define TASK_COMM_LEN 16
#define MAX_PRIO 140
#define DEFAULT_PRIO 120
#define MAX_RT_PRIO 100
#define MIN_NICE -20
#define MAX_NICE 19
#define NICE_TO_PRIO(nice) ((nice) + DEFAULT_PRIO)

/* arch/x86/include/asm/processor.h: sp first (__switch_to_asm), the user FS base */
struct thread_struct {
	u64 sp;
	unsigned long fsbase;
	unsigned long gsbase;		/* a session task's (arch_prctl): its host process's */
};
/* the FPU/SSE registers of a user task, saved at each switch (fxsave: the CPU has no xsave) */
struct fxregs_state { u8 bytes[512]; } __aligned(16);
struct rcu_head;
typedef void (*rcu_callback_t)(struct rcu_head *head);
struct rcu_head {
	struct rcu_head *next;
	rcu_callback_t func;
	unsigned long gp_seq;		/* the grace period it waits for */
};
/* function_graph: one entry per hooked return (kernel/ftrace.c) */
#define FTRACE_RETFUNC_DEPTH 50
struct ftrace_ret_stack {
	u64 ret;		/* the real return address */
	u64 func;		/* the traced function */
	u64 calltime;
	u64 slots;		/* trace-array slots that record its exit */
	u32 profile;		/* the function profiler's: its site's index + 1; 0: not profiled */
	u32 pad;
	u64 subtime;		/* the profiler's, graph-time off: its callees' time, not its own */
};
/*
 * The fields tools read from outside (BCC's programs, compiled against Debian's 6.1 headers and
 * reading with bpf_probe_read_kernel, and any probe that dereferences a task) are at Debian
 * 6.1's offsets (asserted below: __state, stack, flags, on_cpu, on_rq, prio, mm, exit_state,
 * exit_code, exit_signal, pid, tgid, real_parent, parent, children, sibling, group_leader,
 * set_child_tid, clear_child_tid, utime, stime, start_time, min_flt, maj_flt, comm, fs, files,
 * signal, sighand); the model's own fields fill the space between them (TASK_GAP: an anonymous
 * union of the fields and a pad to the next pinned offset, so the fields keep their names).
 */
#define TASK_GAP(from, to, ...) union { struct { __VA_ARGS__ }; u8 __gap_##from[(to) - (from)]; };
/* What the sender said of a signal: the siginfo a sigqueue holds (6.1's kernel_siginfo, its
 * fields by name; fill_siginfo() lays them out as user space reads them) */
struct sigqueue_info {
	int code, errno;
	pid_t pid;
	uid_t uid;
	u64 addr;	/* a fault's address; send_sigio's si_band */
	int fd;		/* send_sigio's si_fd */
	bool poll;	/* send_sigio's (its si_band and si_fd, not a sender's pid and uid) */
	int tid, overrun, sys_private;	/* SI_TIMER's: the timer, its overruns, its requeue count */
	u64 value;	/* si_value (sigqueue(3), a timer's sigev_value) */
	bool to_host;	/* the kernel's own for a session task (bpf_send_signal): sent on to its
			 * host process, from whatever context (signal.c: session_send_signal) */
	bool host_did;	/* the host did what sends it: a session task's kill(2)-family call, or
			 * its end (its SIGCHLD): signal.c shows it as 6.1 would, sends nothing */
};

/* include/linux/sched/wake_q.h: tasks to wake once the lock that found them is dropped; a
 * task is on one list at a time (its node's next not NULL), the list ends with WAKE_Q_TAIL */
struct wake_q_node {
	struct wake_q_node *next;
};
struct wake_q_head {
	struct wake_q_node *first;
	struct wake_q_node **lastp;
};
#define WAKE_Q_TAIL ((struct wake_q_node *)0x01)
#define DEFINE_WAKE_Q(name) struct wake_q_head name = { WAKE_Q_TAIL, &name.first }
static inline void wake_q_init(struct wake_q_head *head)
{
	head->first = WAKE_Q_TAIL;
	head->lastp = &head->first;
}

/* A task's scheduling entity (include/linux/sched.h): its place as 6.1's (CONFIG_FAIR_GROUP_SCHED),
 * of which the model keeps the runqueue (the times are task_struct's own fields here) */
struct sched_entity {
	u8 __gap_0[120];
	struct cfs_rq *cfs_rq;		/* where it is queued: its cpu's (set_task_rq()) */
	u8 __gap_128[128];
};

struct task_struct {
	struct thread_struct thread;	/* must stay first: __switch_to_asm uses offset 0 (6.1: thread_info) */
	volatile unsigned int __state;
	int cpu;
	void *stack;
	u32 __gap_40;
	unsigned int flags;
	volatile int polling;		/* TIF_POLLING_NRFLAG: an idle task polling need_resched */
	int on_cpu;
	TASK_GAP(56, 104,
		short oom_score_adj;		/* (6.1: signal->oom_score_adj; kept the same in every thread) */
		bool memdie;			/* TIF_MEMDIE: marked by the OOM killer (mm/oom_kill.c) */
		u32 rseq_len, rseq_sig;
		void *rseq;			/* kernel/rseq.c: the registered struct rseq (user address) */
		u64 exec_start;			/* when it last started running or was accounted */
		u64 sum_exec_runtime;		/* ns it has run */
		u64 prev_sum_exec_runtime;	/* sum_exec_runtime when it last switched in */
	)
	int on_rq;
	int prio;
	u8 __gap_112[16];
	struct sched_entity se;
	TASK_GAP(384, 2272,
		u64 vruntime;
		u64 nr_migrations;		/* (6.1: se.nr_migrations) times it moved to another cpu */
		unsigned long nvcsw, nivcsw;	/* context switches: it slept; it was preempted */
		struct sched_info {		/* kernel/sched/stats.h: its waits on a runqueue */
			unsigned long pcount;		/* times it came to run */
			unsigned long long run_delay;	/* ns it waited, runnable, for a cpu */
			unsigned long long last_arrival, last_queued;	/* when it last ran; began to wait (0: not waiting) */
		} sched_info;
		u64 timer_slack_ns;	/* added to a sleep's hrtimer: its expiry may be that late */
		u64 default_timer_slack_ns;	/* what a write of 0 to /proc/PID/timerslack_ns restores: the
						 * parent's slack when it forked */
		struct task_io_accounting ioac;	/* its I/O counts (/proc/PID/io) */
		struct list_head tasks;
		struct list_head run_list;
		struct pid *thread_pid;		/* its id (pid.h); pid is its number */
		struct list_head pid_link;	/* on thread_pid's tasks (6.1: pid_links[PIDTYPE_PID]) */
		u64 host_id;		/* set for a program the host started (not its children): its exit goes to the host */
		struct session_task *session;	/* a process of a session, run on the host (session.c) */
		int (*threadfn)(void *);
		void *threadarg;
		struct rcu_head rcu;		/* delayed_put_task_struct() after a grace period */
		int dead_refs;			/* a dead task's memory waits for these (put_dead_task()) */
		/* function tracers (kernel/ftrace.c): Linux's trace_recursion bits, the graph return stack */
		unsigned long trace_recursion;
		int trace_graph_depth;		/* depth of the set_graph_function entry being traced */
		int curr_ret_stack;		/* entries in ret_stack */
		int trace_overrun;		/* calls not hooked because ret_stack was full */
		u32 ftrace_timestamp_gen;	/* sleep-time off: the ftrace_control.sleep_time_off it was taken under */
		u64 ftrace_timestamp;		/* ... and when the task was switched out */
	)
	struct mm_struct *mm;
	/* perf_events (kernel/events/core.c) */
	TASK_GAP(2280, 2304,
		struct perf_event_context *perf_event_ctxp;	/* its per-task events, NULL: none */
	)
	int perf_sched_migrated;	/* moved cpus: counted as it comes in (cpu-migrations) */
	int exit_state;
	int exit_code;
	int exit_signal;		/* sent to the parent at exit; -1: a thread, reaped at once */
	TASK_GAP(2320, 2416,
		u64 blocked;			/* the signal mask */
		u64 pending;			/* signals sent to this thread, not yet delivered */
		u64 saved_sigmask;		/* rt_sigsuspend's caller's mask, back once a handler ran */
		u64 real_blocked;		/* rt_sigtimedwait's caller's mask while it waits */
		bool restore_sigmask;
		struct vfork_done *vfork_done;	/* CLONE_VFORK: the parent waits until we exec or exit */
		unsigned long sas_ss_sp;	/* sigaltstack(2): the alternate signal stack */
		size_t sas_ss_size;
		unsigned int sas_ss_flags;
		struct blk_plug *plug;		/* blk_start_plug()'s, until blk_finish_plug() */
		struct robust_list_head *robust_list;	/* set_robust_list(): walked at exit (futex.c) */
	)
	pid_t pid;
	pid_t tgid;
	TASK_GAP(2424, 2432,
		pid_t pgrp, sid;		/* its process group and session (6.1: signal->pids), each thread's */
	)
	/* the parent, which wait4 reaps it for (6.1: real_parent; parent is the tracer's when
	 * ptraced, which the model never is: both the same, set by task_set_parent()) */
	struct task_struct *real_parent;
	struct task_struct *parent;
	struct list_head children;
	struct list_head sibling;
	struct task_struct *group_leader;	/* the thread group's first task (tgid is its pid) */
	TASK_GAP(2488, 2632,
		/* its credentials (cred.h): what others see it as (objective), what it acts with
		 * (subjective, the same but while an override_creds() lasts) */
		const struct cred *real_cred;
		const struct cred *cred;
		u32 tty;			/* its controlling terminal's device number, 0: none (6.1:
						 * signal->tty); a session task's is its host process's */
		unsigned int personality;	/* personality(2): its execution domain and flags */
	)
	/* mm, threads, signals (mmap.c, memory.c, fork.c, signal.c, futex.c) */
	int *set_child_tid;		/* CLONE_CHILD_SETTID */
	int *clear_child_tid;		/* CLONE_CHILD_CLEARTID, set_tid_address(): zeroed and woken at exit */
	u8 __gap_2648[2656 - 2648];
	u64 utime, stime;		/* ns, by the ticks it took in user and kernel mode */
	u8 __gap_2672[2776 - 2672];
	u64 start_time;			/* ktime at fork */
	u8 __gap_2784[2792 - 2784];
	unsigned long min_flt, maj_flt;	/* page faults it took (mm_account_fault) */
	TASK_GAP(2808, 2976,
		/* SPLIT_RSS_COUNTING: its faults' changes to its own mm's rss counters, added to the
		 * mm every TASK_RSS_EVENTS_THRESH faults (sync_mm_rss; 6.1 has it at 2288) */
		struct task_rss_stat { int events; int count[NR_MM_COUNTERS]; } rss_stat;
	)
	char comm[TASK_COMM_LEN];
	struct nameidata *nameidata;	/* the path walk under way (fs/namei.c), for nd_jump_link */
	struct sysv_sem { struct sem_undo_list *undo_list; } sysvsem;	/* SEM_UNDO's (ipc/sem.c) */
	u8 __gap_3008[3040 - 3008];
	/* fs: the task's root and cwd, its fd table (fs/file.c; shared per CLONE_FS, CLONE_FILES) */
	struct fs_struct *fs;
	struct files_struct *files;
	u8 __gap_3056[8];
	struct nsproxy *nsproxy;	/* its namespaces (nsproxy.h): init_nsproxy */
	struct signal_struct *signal;	/* shared by the thread group (signal.h) */
	struct sighand_struct *sighand;	/* the handlers, shared with CLONE_SIGHAND */
	struct list_head sigqueue;	/* the pending signals' siginfo (struct sigqueue, signal.h) */
	/* function_graph's return stack (kernel/ftrace.c; past the fields at Debian's offsets: it
	 * grew with the slots' masks) */
	struct ftrace_ret_stack ret_stack[FTRACE_RETFUNC_DEPTH];
	struct fxregs_state fpu;	/* (6.1: thread.fpu) */
	struct io_context *io_context;	/* block/blk-ioc.c: its I/O priority, once set */
	struct mempolicy *mempolicy;	/* mm/mempolicy.c: its NUMA policy, NULL for the default */
	short il_prev;			/* ... the node its interleaving took last */
	/* a session task's limits (it has no signal_struct): its process's, a copy in each thread
	 * (kernel/sys.c) */
	struct rlimit session_rlim[RLIM_NLIMITS];
	/* a session task that ended: its EXIT record's place in the session ring's order (its
	 * host process ended between the calls of the records before and after it): exit.c's
	 * wait of a session parent takes its children in that order */
	u64 session_exit_seq;
	/* kernel/sched/core.c's setters: the policy and its parameters (the fair class runs every
	 * task here: a real-time or deadline policy is kept and reported), and the cpus the task
	 * may run on (0 until sched_setaffinity: every cpu) */
	unsigned int policy, rt_priority;
	bool sched_reset_on_fork;
	u64 dl_runtime, dl_deadline, dl_period;
	unsigned long cpus_mask;
	struct wake_q_node wake_q;	/* on a wake_q_head until woken (NULL: on none) */
};
#undef TASK_GAP
_Static_assert(offsetof(struct task_struct, se.cfs_rq) == 248, "task_struct.se as 6.1's");
_Static_assert(offsetof(struct task_struct, __state) == 24 && offsetof(struct task_struct, stack) == 32 &&
	       offsetof(struct task_struct, flags) == 44 && offsetof(struct task_struct, on_cpu) == 52 &&
	       offsetof(struct task_struct, on_rq) == 104 && offsetof(struct task_struct, prio) == 108 &&
	       offsetof(struct task_struct, mm) == 2272 && offsetof(struct task_struct, exit_state) == 2308 &&
	       offsetof(struct task_struct, exit_code) == 2312 && offsetof(struct task_struct, exit_signal) == 2316 &&
	       offsetof(struct task_struct, pid) == 2416 && offsetof(struct task_struct, tgid) == 2420 &&
	       offsetof(struct task_struct, real_parent) == 2432 && offsetof(struct task_struct, parent) == 2440 &&
	       offsetof(struct task_struct, children) == 2448 && offsetof(struct task_struct, sibling) == 2464 &&
	       offsetof(struct task_struct, group_leader) == 2480 &&
	       offsetof(struct task_struct, set_child_tid) == 2632 && offsetof(struct task_struct, clear_child_tid) == 2640 &&
	       offsetof(struct task_struct, utime) == 2656 && offsetof(struct task_struct, stime) == 2664 &&
	       offsetof(struct task_struct, start_time) == 2776 && offsetof(struct task_struct, min_flt) == 2792 &&
	       offsetof(struct task_struct, maj_flt) == 2800 && offsetof(struct task_struct, comm) == 2976 &&
	       offsetof(struct task_struct, fs) == 3040 && offsetof(struct task_struct, files) == 3048 &&
	       offsetof(struct task_struct, nsproxy) == 3064 &&
	       offsetof(struct task_struct, signal) == 3072 && offsetof(struct task_struct, sighand) == 3080,
	       "struct task_struct: the fields tools read at Debian 6.1's offsets");

/* 6.1 sets real_parent and parent apart only for ptrace, which the model has not */
static inline void task_set_parent(struct task_struct *p, struct task_struct *parent)
{
	p->real_parent = parent;
	p->parent = parent;
}

/* A cpu's fair-class runqueue (kernel/sched/sched.h), its head as 6.1's: runqlen reads
 * nr_running through task_struct.se.cfs_rq (BCC's, finding sched_entity.runnable_weight in
 * Debian's headers, reads 8 bytes further: idle_nr_running, as on 6.1) */
struct load_weight {
	unsigned long weight;
	u32 inv_weight;
};

/* The utilization a cfs runqueue had, its running time's decaying average (sched/pelt.c) */
#define SCHED_CAPACITY_SHIFT	10
#define SCHED_CAPACITY_SCALE	(1L << SCHED_CAPACITY_SHIFT)	/* a cpu's full capacity */
struct sched_avg {
	u64 last_update_time;		/* ns, at a 1024 ns boundary */
	u32 util_sum;
	u32 period_contrib;		/* the time into the current 1024 us period */
	unsigned long util_avg;		/* 0..SCHED_CAPACITY_SCALE */
};

struct cfs_rq {
	struct load_weight load;	/* (every task has nice 0's weight here: not kept) */
	unsigned int nr_running;	/* its entities: the queued ones and the running one */
	unsigned int h_nr_running;	/* the same through the group hierarchy (no task groups here) */
	unsigned int idle_nr_running;	/* those of them of policy SCHED_IDLE */
	unsigned int idle_h_nr_running;
	struct list_head queue;		/* runnable, not running (6.1's rbtree by vruntime) */
	struct task_struct *curr;	/* its running entity, NULL when none */
	struct sched_avg avg;		/* its utilization (sched/pelt.c) */
};
_Static_assert(offsetof(struct cfs_rq, nr_running) == 16 && offsetof(struct cfs_rq, idle_nr_running) == 24,
	       "cfs_rq's counts as 6.1's");

struct rq {
	struct cfs_rq cfs;
	unsigned int nr_running;	/* queued + current non-idle, every class's */
	struct task_struct *curr;
	struct task_struct *idle;
	u64 clock;
};

struct percpu {
	struct hostif_cpu h;		/* must stay first: read by the host and by asm via %gs */
	struct task_struct *curr_task;
	int preempt_count;
	volatile int need_resched;
	struct rq rq;
	struct list_head timers;	/* hrtimers armed on this cpu, sorted */
	unsigned long softirq_pending;
	struct task_struct *ksoftirqd;
	struct task_struct *migration;
	struct task_struct *kworker;
	struct pt_regs *irq_regs;	/* the interrupted context's registers (set_irq_regs) */
	u64 stat_syscalls, stat_ctxt, stat_irqs;
	u64 trace_clock_last;		/* last trace clock read on this cpu */
	u64 trace_clock_step;		/* host: ns a traced event's instructions take at least */
	u64 ktime_last;			/* last ktime_get() on this cpu: the clock never goes back */
	u32 trace_pending;		/* trace data committed since the last doorbell */
	u32 trace_taskinfo_save;	/* an event was committed since comms were last saved */
	u32 trace_opt_regs_ftrace;	/* trace_opt_regs are an ftrace site's (the function's entry) */
	u32 trace_opt_type;		/* the event type of trace_opt_slots (its extension words: trace_event_ext) */
	/* the record reserved in place, from reserve to commit (irqs off) */
	struct trace_ring *trace_ring;	/* the ring that holds it */
	u64 trace_slots_left;		/* further slots that get a copy at commit (word 0: trace/slots.h) */
	u64 trace_ts;			/* its time stamp */
	u64 trace_opt_slots;		/* ... an event's, whose slots take the stacktrace options' stacks after it */
	struct pt_regs *trace_opt_regs;	/* a kprobe's regs while its handler records: the stacks start there */
	u64 trace_ext_left[TRACE_EXT_WORDS];	/* trace_slots_left's extension words (its bit 63 set) */
	u64 trace_opt_ext[TRACE_EXT_WORDS];	/* trace_opt_slots' extension words when the pid lists took
						 * some of its event's out (trace_opt_type's TRACE_OPT_EXT_OWN) */
} __aligned(4096);

_Static_assert(offsetof(struct percpu, preempt_count) == PERCPU_PREEMPT_COUNT, "percpu layout");
extern struct percpu cpu_data[NR_CPUS];
extern struct boot_params boot_params;
extern struct host_requests host_requests;
extern int nr_cpu_ids;

/* volatile: a task may migrate across any schedule(), so the per-CPU
 * pointer must be re-read, never cached by the compiler (current itself is
 * stable for a task; the area it is read from is not). */
static __always_inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	asm volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}
static __always_inline int smp_processor_id(void) { return (int)this_cpu()->h.cpu; }

/*
 * The machine's time as cpu `pc` sees it now: the host sets now_ns between instruction slices;
 * a live machine also the TSC then (now_tsc, with its ns a tick), and a read adds the TSC's
 * ticks since: the time within the slice (the emulated rdtsc is the host's), so a clock read
 * late in a long slice (its thread descheduled on a busy host) is not the slice's start.
 * Seeded, the TSC is not the machine's time (now_tsc 0): the slice's time.  Masks, not
 * branches: each branch ends an emulated block, the unit the emulator's time goes by.
 */
static __always_inline u64 machine_clock_now(const struct percpu *pc)
{
	u64 now = READ_ONCE(pc->h.now_ns), tsc0 = READ_ONCE(pc->h.now_tsc);
	u32 lo, hi;
	u64 ticks;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	ticks = (((u64)hi << 32 | lo) - tsc0) & -(u64)(tsc0 != 0);
	ticks &= -(u64)((s64)ticks >= 0);	/* (a TSC behind the slice's: none) */
	return now + (u64)(((unsigned __int128)ticks * READ_ONCE(pc->h.tsc_mult)) >> 32);
}
/*
 * The timekeeper's offsets from CLOCK_MONOTONIC (6.1's offs_real, offs_boot, offs_tai): REALTIME
 * adds the wall clock of boot (`boot_params.boot_realtime_ns`: the host's, or a fixed date on a
 * seeded machine); TAI is REALTIME (no leap seconds: 6.1's tai_offset until adjtimex sets one);
 * BOOTTIME adds the host's CLOCK_BOOTTIME at boot (live; 0 seeded): a session's processes read
 * CLOCK_BOOTTIME from the host, and tools add it to the kernel's (bpftrace's strftime()).
 */
static __always_inline u64 tk_offs(enum tk_offsets offs)
{
	return offs == TK_OFFS_BOOT ? boot_params.boot_boottime_ns : boot_params.boot_realtime_ns;
}
/* one memory node: no NUMA */
static __always_inline int numa_node_id(void) { return 0; }
static __always_inline struct task_struct *get_current(void) { return this_cpu()->curr_task; }
#define current get_current()
static __always_inline bool need_resched(void) { return READ_ONCE(this_cpu()->need_resched); }

/* lib/lib.c */
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
size_t strlen(const char *s);
char *strnchr(const char *s, size_t count, int c);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
int memcmp(const void *a, const void *b, size_t n);
char *strscpy_pad(char *d, const char *s, size_t n);
int scnprintf(char *buf, size_t size, const char *fmt, ...);
int vscnprintf(char *buf, size_t size, const char *fmt, __builtin_va_list ap);
enum { DUMP_PREFIX_NONE, DUMP_PREFIX_ADDRESS, DUMP_PREFIX_OFFSET };	/* lib/hexdump.c */
void print_hex_dump(const char *level, const char *prefix_str, int prefix_type, int rowsize,
		    int groupsize, const void *buf, size_t len, bool ascii);

/* printk.c, version.c */
#define KERN_SOH	"\001"
#define KERN_EMERG	KERN_SOH "0"
#define KERN_ERR	KERN_SOH "3"
#define KERN_WARNING	KERN_SOH "4"
#define KERN_NOTICE	KERN_SOH "5"
#define KERN_INFO	KERN_SOH "6"
#define KERN_DEBUG	KERN_SOH "7"
int _printk(const char *fmt, ...);
#define printk(fmt, ...) _printk(fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...) printk(KERN_ERR fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) printk(KERN_WARNING fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...) printk(KERN_NOTICE fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) printk(KERN_INFO fmt, ##__VA_ARGS__)
void printk_init(void);
void wake_up_klogd(void);
void wake_up_klogd_work_func(void);	/* 6.1's klogd irq_work, run from the tick */
bool irq_work_needs_cpu(void);
/* kernel/bpf_trace.c: bpf_send_signal()'s irq_work, run from the tick too */
void bpf_send_signal_work_func(void);
bool bpf_send_signal_pending(void);
extern const struct file_operations kmsg_fops;
extern const char linux_banner[];
extern const char linux_proc_banner[];
#define __NEW_UTS_LEN 64
struct new_utsname {
	char sysname[__NEW_UTS_LEN + 1];
	char nodename[__NEW_UTS_LEN + 1];
	char release[__NEW_UTS_LEN + 1];
	char version[__NEW_UTS_LEN + 1];
	char machine[__NEW_UTS_LEN + 1];
	char domainname[__NEW_UTS_LEN + 1];
};
struct uts_namespace {
	struct new_utsname name;
	u8 __gap_390[408 - sizeof(struct new_utsname)];
	struct ns_common ns;			/* at 6.1's offset */
};
extern struct uts_namespace init_uts_ns;
const char *kbasename(const char *path);
char *strim(char *s);
char *strsep(char **s, const char *ct);
int strcasecmp(const char *s1, const char *s2);
static inline char *strstrip(char *s) { return strim(s); }
int kstrtoint(const char *s, unsigned int base, int *res);
int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
/* lib/kstrtox.h: the radix of a number (base 0: by its prefix) and its digits' value */
#define KSTRTOX_OVERFLOW	(1U << 31)
const char *_parse_integer_fixup_radix(const char *s, unsigned int *base);
unsigned int _parse_integer(const char *s, unsigned int base, unsigned long long *p);
int kstrtoull_from_user(const char *buf, size_t count, unsigned int base, unsigned long long *res);

/* hostio.c */
void host_doorbell(int port, u64 al);
void __noreturn panic(const char *msg);
void host_write(u64 id, int fd, const void *buf, size_t len);
void host_exit(u64 id, int status);
void host_spawned(u64 id, pid_t pid);
void host_code_page(const void *page);
void host_post_kernel_request(void *req);
void smp_send_reschedule(int cpu);

/* page_alloc.c, slab.c (mm.h, slab.h) and mm.c */
void page_alloc_init(u64 *pgd);
void mem_init(void);
void proc_caches_init(void);
void *alloc_page_zeroed(void);
void *alloc_thread_stack(void);
void free_thread_stack(void *p);
void put_task_stack(struct task_struct *tsk);
struct mm_struct *mm_alloc(void);
int map_user_page(struct mm_struct *mm, u64 va, void *page, bool exec);
int map_user_page_shared(struct mm_struct *mm, u64 va, void *page, bool exec);
void *user_page(struct mm_struct *mm, u64 va);
void vma_cache_init(void);
void fpu_init_user(struct task_struct *t);
void fpu_save(struct task_struct *t);
void fpu_flush_thread(void);
void flush_thread(void);
void mmput(struct mm_struct *mm);
void switch_mm(struct mm_struct *mm);
void membarrier_exec_mmap(struct mm_struct *mm);	/* sched/membarrier.c */
bool access_ok(const void *uaddr, size_t len);
long copy_from_user(void *to, const void *from, size_t n);
long copy_to_user(void *to, const void *from, size_t n);
long strncpy_from_user(char *dst, const char *src, long count);
char *strndup_user(const char *s, long n);



/* sched/core.c */
unsigned long long nr_context_switches(void);
int task_prio(const struct task_struct *p);
/* sys.c: the tasks of a PRIO_PROCESS (0), PRIO_PGRP (1) or PRIO_USER (2) and its who */
#define PRIO_MAX_TASKS	64	/* the tasks one call of a group or user reaches */
int prio_targets(int which, int who, struct task_struct **tasks);
bool can_nice(const struct task_struct *p, const int nice);
void set_user_nice(struct task_struct *p, long nice);
void sched_init(void);
void sched_init_idle(int cpu);
void scheduler_tick(void);
void schedule(void);
void schedule_preempt_disabled(void);
void schedule_idle(void);
void preempt_schedule_irq(void);
int wake_up_process(struct task_struct *p);
/* task onto head (unless on one already); wake_up_q(): each woken.  (6.1 holds a reference
 * on each task meanwhile; here the caller keeps preemption off from finding the tasks to
 * waking them, which keeps them from being freed: their release waits for a grace period) */
void wake_q_add(struct wake_q_head *head, struct task_struct *task);
void wake_up_q(struct wake_q_head *head);
int try_to_wake_up(struct task_struct *p, unsigned int state, int wake_flags);
int wake_up_state(struct task_struct *p, unsigned int state);
void kick_process(struct task_struct *p);
int sched_fork(unsigned long clone_flags, struct task_struct *p);
struct kernel_clone_args;
void sched_cgroup_fork(struct task_struct *p, struct kernel_clone_args *kargs);
void wake_up_new_task(struct task_struct *p);
void set_task_cpu(struct task_struct *p, int new_cpu);
/* smp_store_mb(), as 6.1's: the state is stored before the sleeper's next load (of its wake-up
 * condition) on every cpu's view, or a waker could find it still running and the condition
 * still false (x86 keeps a store in its buffer past a later load: xchg drains it) */
#define set_current_state(s) do { __atomic_exchange_n(&current->__state, (s), __ATOMIC_SEQ_CST); } while (0)
struct task_struct *__switch_to(struct task_struct *prev, struct task_struct *next);
void schedule_tail(struct task_struct *prev);
void cpu_startup_entry(void) __noreturn;
struct task_struct *find_task_by_pid(pid_t pid);
static inline bool is_global_init(struct task_struct *p)
{
	return p->tgid == 1;
}
/* kernel/pid.c (sys.c here): a task's ids as the caller's pid namespace sees them */
enum pid_type { PIDTYPE_PID, PIDTYPE_TGID, PIDTYPE_PGID, PIDTYPE_SID, PIDTYPE_MAX };
struct pid;
struct pid_namespace;
pid_t __task_pid_nr_ns(struct task_struct *task, enum pid_type type, struct pid_namespace *ns);
static inline pid_t task_pid_vnr(struct task_struct *tsk) { return __task_pid_nr_ns(tsk, PIDTYPE_PID, NULL); }
static inline pid_t task_tgid_vnr(struct task_struct *tsk) { return __task_pid_nr_ns(tsk, PIDTYPE_TGID, NULL); }
extern spinlock_t sched_lock;
extern struct list_head task_list;

/* time.c, tick_sched.c */
struct clock_event_device;
void hrtimer_interrupt(struct clock_event_device *dev);
void tick_sched_init(int cpu);
void tick_nohz_idle_enter(void);
void tick_nohz_idle_stop_tick(void);
void tick_nohz_idle_exit(void);
void tick_irq_enter(void);

/* fork.c / exit.c / exec.c */
pid_t kernel_thread(int (*fn)(void *), void *arg, const char *name, int cpu);
struct vfork_done {
	bool done;
	struct task_struct *parent;
};
void mm_release(struct task_struct *tsk, struct mm_struct *mm);
void exit_mm_release(struct task_struct *tsk, struct mm_struct *mm);
struct mm_struct *get_task_mm(struct task_struct *task);
struct mm_struct *mm_access(struct task_struct *task, unsigned int mode);
struct file *get_mm_exe_file(struct mm_struct *mm);
struct file *get_task_exe_file(struct task_struct *task);
/* the task's nice value, -20 (most favoured) to 19 (include/linux/sched.h) */
static inline int task_nice(const struct task_struct *p)
{
	return p->prio - DEFAULT_PRIO;
}
void exec_mm_release(struct task_struct *tsk, struct mm_struct *mm);
struct kernel_clone_args {
	u64 flags;
	int *pidfd;
	int *child_tid;
	int *parent_tid;
	int exit_signal;
	unsigned long stack;
	unsigned long stack_size;
	unsigned long tls;
};
long kernel_clone(struct kernel_clone_args *args);
void clone_set_child_tid(struct task_struct *p);
void __noreturn do_exit(long code);
#define WNOHANG 1
#define __WNOTHREAD	0x20000000	/* wait for the caller's own children only, not its group's */
#define __WALL		0x40000000	/* wait for every child, whatever its exit signal */
#define __WCLONE	0x80000000	/* wait for "clone" children only (exit signal not SIGCHLD) */
long do_wait(pid_t pid, struct pid *wo_pid, int *ustatus, int options);
bool has_reapable_child(void);
void __noreturn do_group_exit(int code);
void __set_task_comm(struct task_struct *tsk, const char *buf, bool exec);
char *__get_task_comm(char *buf, size_t buf_size, struct task_struct *tsk);
#define set_task_comm(tsk, from) __set_task_comm(tsk, from, false)
/* interp (128 bytes, or NULL): the interpreter a dynamically linked program named (its ENOEXEC) */
int kernel_execve(const char *filename, const char *const *argv, struct pt_regs *regs, char *interp);
void fork_init(void);
struct task_struct *alloc_task(void);
void __put_task_struct(struct task_struct *t);
static inline void put_task_struct(struct task_struct *t)
{
	__put_task_struct(t);	/* (no usage count: the last user frees it) */
}
void put_task_struct_rcu_user(struct task_struct *t);
void put_dead_task(struct task_struct *t);
extern struct task_struct *init_task_p;

/* fs/ (include/fs.h has the rest) */
void vfs_caches_init(void);
void vfs_mount_init(void);
struct file *filp_open(const char *filename, int flags, unsigned short mode);
int replace_fd(unsigned int fd, struct file *file, unsigned int flags);
struct file *hostpipe_open(u64 host_id, int fd);
struct file *hostpipe_open_input(u64 host_id);
void hostpipe_input(u64 host_id, const char *data, u32 len);
int init_dup(struct file *file);
struct file *get_file(struct file *f);
void fput(struct file *file);
int copy_files(unsigned long clone_flags, struct task_struct *tsk);
int copy_fs(unsigned long clone_flags, struct task_struct *tsk);
int copy_files_and_fs_of(struct task_struct *from, struct task_struct *tsk);
void exit_files(struct task_struct *tsk);
void exit_fs(struct task_struct *tsk);
void do_close_on_exec(struct files_struct *files);
/* the controlling terminal of the caller's thread group (0: none), as tty_jobctrl.c's */
void proc_set_tty(u32 tty);
int unshare_files(void);
int unshare_fs_struct(void);
int host_view_enter(void);

/* smpboot.c: per-cpu threads (ksoftirqd/N, ...) */
struct smp_hotplug_thread {
	int (*thread_should_run)(unsigned int cpu);
	void (*thread_fn)(unsigned int cpu);
	const char *thread_comm;	/* a format of the cpu number */
	struct task_struct *tasks[NR_CPUS];
};
int smpboot_register_percpu_thread(struct smp_hotplug_thread *ht);

/* vmstat.c */
void init_mm_internals(void);

/* kthreads.c */
void kthreads_init(void);
int kthreadd(void *unused);
extern struct task_struct *kthreadd_task;

/* rcu.c */
void call_rcu(struct rcu_head *head, rcu_callback_t func);
void synchronize_rcu(void);
void rcu_note_context_switch(bool preempt);
void rcu_sched_clock_irq(int user);
bool rcu_needs_cpu(void);
void rcu_init(void);
void rcu_spawn_gp_kthread(void);

/* irq.c */
void init_IRQ(void);

/* random.c */
u64 get_random_u64(void);

/* main.c */
extern char _stext[], _etext[], _end[];
extern u64 idle_stacks[NR_CPUS][THREAD_SIZE / 8];
#endif
