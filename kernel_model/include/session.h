/* Session tasks (kernel/session.c): the host processes of a session, as tasks of this kernel. */
#ifndef _SESSION_H
#define _SESSION_H
#include "kernel.h"

/* The lowest pid a session process gets (its PID namespace's init sets it): the kernel's
 * own tasks take pids below it (fork.c's alloc_pid). */
#define FIRST_SESSION_PID 1000

struct queued_record;

struct session_task {
	struct list_head node;		/* in session.c's table, by tid */
	struct list_head queue;		/* its records, oldest first */
	pid_t tid, tgid;
	struct task_struct *task;	/* NULL while its records wait for the clone that makes it */
	bool waiting;			/* asleep until a record comes */
	bool killed;			/* its process died on the host: it ends at the next chance */
	bool entered;			/* a call is loaded (or running): no other is taken */
	struct queued_record *entering;	/* the record of the call loaded, until its sys_enter */
	u64 call_seq;			/* ... its place in the ring's order */
	void *scratch[4];		/* the pages its calls' blobs are laid out in */
	u64 scratch_va;			/* ... where (each thread of an address space has its own) */
	u64 serving;			/* the serial of the served call it makes, or 0 */
	bool serving_new_fd;		/* ... which returns a new fd (SESSION_SC_NEW_FD) */
	int serving_region;		/* ... which mapped this perf pool region (-1: none) */
	struct file *serving_nowait;	/* ... a read made O_NONBLOCK for the call (SESSION_SC_NOWAIT) */
	u64 perf_unmap;			/* the perf pool regions its munmap unmaps (a mask) */
	u64 sigreturn_ax;		/* its rt_sigreturn's result: the rax its frame restores */
	bool sigreturn_known;		/* ... when the supervisor could read the frame */
	struct session_record *start;	/* a root's NEW_TASK (its cwd and fds), until it runs */
	struct {			/* the call's paths as they were before the host made it */
		const char *name;	/* their last component (in the task's scratch), NULL: none */
		unsigned int len;
		unsigned short mode;	/* 0: it did not exist */
	} before[2];
};

/* hostfs's lookup of `name` in a session task's call: what it named before the host's call
 * (*mode, 0 for nothing), once, if the call says (SESSION_SC_PRESTAT). */
bool session_lookup_before(const char *name, unsigned int len, unsigned short *mode);

/* A served call's access to its caller's memory (mm.c's uaccess for such a task). */
static inline bool session_remote_uaccess(struct task_struct *t)
{
	return t->session && t->session->serving;
}
long session_copy_from_user(void *to, u64 from, u64 n);
long session_copy_to_user(u64 to, const void *from, u64 n);
long session_strncpy_from_user(char *dst, u64 src, long count);
/* A served mmap(2) mapped this perf pool region: the supervisor gives the process its file. */
static inline void session_serve_region(struct task_struct *t, int region)
{
	t->session->serving_region = region;
}

/* A SIGKILL is pending, or the task's process died on the host: what it sleeps in gives up. */
static inline bool fatal_signal_pending(struct task_struct *t)
{
	return (t->session && t->session->killed) || (t->pending & (1UL << 8) /* SIGKILL */);
}

/* The host call a session task's handler sleeps in returned (its next record is queued): a
 * wait here must end too, or the task would sleep past its process (an absolute deadline of
 * the host's clock, a pipe the host drained). */
static inline bool session_host_moved_on(struct task_struct *t)
{
	return t->session && !list_empty(&t->session->queue);
}

/* wait4's: another thread's records from before the task's call are still to be done */
bool session_older_records_of_mm(struct task_struct *t);

void session_init(void);
void session_ring_interrupt(void);
/* A signal for the task's host process (kill for its group, tgkill for the thread), handed to
 * the supervisor; false: its queue was full, the signal is lost. */
bool session_post_signal(struct task_struct *t, int sig, bool group);
extern struct session_ring session_ring;
/* printk.c: whether the file is /dev/kmsg, and its reader's next record */
struct file;
bool devkmsg_file_seq(struct file *file, u64 *seq);
void session_exit_to_user_mode(struct pt_regs *regs);
void session_syscall_entered(void);
void session_syscall_done(struct pt_regs *regs);
long session_clone(unsigned long clone_flags);
long session_execve(const char *filename);
void session_create_roots(void);
bool session_roots_pending(void);
void session_task_exit(struct task_struct *tsk);

/* fork.c: a task with the given pid and tgid, a child of `parent` (the caller gives it its
 * address space), and its start (sched_process_fork, sched_wakeup_new); or its undoing. */
struct task_struct *session_copy_process(struct task_struct *parent, pid_t pid, pid_t tgid);
void session_wake_new_task(struct task_struct *parent, struct task_struct *p);
void session_free_process(struct task_struct *p);
#endif
