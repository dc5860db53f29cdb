/*
 * poll(2), ppoll(2), select(2), pselect6(2) as Linux 6.1's fs/select.c: each file's ->poll()
 * (vfs_poll) says what it is ready for and, the first time round, queues a poll_table_entry on
 * each wait queue it names (__pollwait); a wake-up there (pollwake) marks the poll_wqueues
 * triggered and wakes the poller, which sleeps in poll_schedule_timeout() until then, its
 * deadline or a signal, and scans again.  Timeouts are absolute monotonic deadlines with
 * select_estimate_accuracy()'s slack; select and pselect6 write back the time left; ppoll and
 * pselect6 run with the caller's signal mask (set_user_sigmask), restored on the way out
 * unless a signal interrupted (-ERESTARTNOHAND: its handler's frame holds it).
 *
 * A session task (a host process, kernel/session.c) replays the host's call: its wait ends
 * as soon as the host's call returned (its next record is queued), whatever it found here.
 */
#include "../include/poll.h"
#include "../include/signal.h"
#include "../include/session.h"
#include "../include/slab.h"
#include "../include/timer.h"
#include "../include/mm.h"

#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define USEC_PER_SEC	1000000L
#define MSEC_PER_SEC	1000L
#define MAX_SLACK	(100 * NSEC_PER_MSEC)
#define SELECT_TIME_MAX	((s64)~((u64)1 << 63))	/* KTIME_MAX, TIME64_MAX */

struct __kernel_old_timeval { long tv_sec, tv_usec; };
struct pollfd { int fd; short events; short revents; };

/* ---- deadlines ---- */

static notrace long __estimate_accuracy(ktime_t left)
{
	long slack;

	if (left < 0)
		return 0;
	slack = left / 1000;	/* 0.1% of the timeout, at most 100 ms */
	return slack > MAX_SLACK ? MAX_SLACK : slack;
}

/* The slack of a sleep until `end`: the task's timer slack at least. */
noinline u64 select_estimate_accuracy(ktime_t *end)
{
	u64 slack = current->timer_slack_ns, ret;

	if (slack == 0)
		return 0;
	ret = __estimate_accuracy(*end - ktime_get());
	return ret < slack ? slack : ret;
}

/* kernel/time/time.c: lhs + rhs, normalized; a sum that overflows is TIME64_MAX seconds */
noinline struct timespec64 timespec64_add_safe(const struct timespec64 lhs, const struct timespec64 rhs)
{
	struct timespec64 res;
	u64 sec = (u64)lhs.tv_sec + rhs.tv_sec;
	long nsec = lhs.tv_nsec + rhs.tv_nsec;

	while (nsec >= NSEC_PER_SEC) {	/* set_normalized_timespec64 */
		nsec -= NSEC_PER_SEC;
		sec++;
	}
	res.tv_sec = sec;
	res.tv_nsec = nsec;
	if (res.tv_sec < lhs.tv_sec || res.tv_sec < rhs.tv_sec) {
		res.tv_sec = SELECT_TIME_MAX;	/* TIME64_MAX */
		res.tv_nsec = 0;
	}
	return res;
}

/* *to: the deadline `sec`, `nsec` from now; 0 for a zero timeout (no wait at all). */
noinline int poll_select_set_timeout(ktime_t *to, s64 sec, long nsec)
{
	if (sec < 0 || nsec < 0 || nsec >= NSEC_PER_SEC)	/* !timespec64_valid() */
		return -EINVAL;
	if (!sec && !nsec) {
		*to = 0;
	} else {
		struct timespec64 now, ts;

		ktime_get_ts64(&now);
		ts = timespec64_add_safe(now, (struct timespec64){ .tv_sec = sec, .tv_nsec = nsec });

		/* timespec64_to_ktime: past KTIME_SEC_MAX seconds, KTIME_MAX */
		if (ts.tv_sec >= SELECT_TIME_MAX / NSEC_PER_SEC)
			*to = SELECT_TIME_MAX;
		else
			*to = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	}
	return 0;
}

enum poll_time_type { PT_TIMEVAL = 0, PT_OLD_TIMEVAL = 1, PT_TIMESPEC = 2, PT_OLD_TIMESPEC = 3 };

/* The mask back (unless a signal's handler is to run), and the time left to `p`. */
static noinline int poll_select_finish(ktime_t *end_time, void *p, enum poll_time_type pt_type, int ret)
{
	struct timespec64 now;
	ktime_t left;

	restore_saved_sigmask_unless(ret == -ERESTARTNOHAND);
	if (!p)
		return ret;
	if (!*end_time)		/* no update for a zero timeout */
		return ret;
	ktime_get_ts64(&now);
	left = *end_time - timespec64_to_ns(&now);
	if (left < 0)
		left = 0;
	if (pt_type == PT_TIMEVAL) {
		struct __kernel_old_timeval rtv = { left / NSEC_PER_SEC, left % NSEC_PER_SEC / NSEC_PER_USEC };

		if (!copy_to_user(p, &rtv, sizeof(rtv)))
			return ret;
	} else {
		struct timespec64 rts = { left / NSEC_PER_SEC, left % NSEC_PER_SEC };

		if (!put_timespec64(&rts, p))
			return ret;
	}
	/* the caller's copy went away: what was done stays done, as 6.1 says */
	if (ret == -ERESTARTNOHAND)
		ret = -EINTR;
	return ret;
}

/* ---- the waiter: poll_wqueues ---- */

struct poll_table_page {
	struct poll_table_page *next;
	struct poll_table_entry *entry;
	struct poll_table_entry entries[];
};
#define POLL_TABLE_FULL(table) \
	((unsigned long)((table)->entry + 1) > PAGE_SIZE + (unsigned long)(table))

static void __pollwait(struct file *filp, wait_queue_head_t *wait_address, poll_table *p);

noinline void poll_initwait(struct poll_wqueues *pwq)
{
	init_poll_funcptr(&pwq->pt, __pollwait);
	pwq->polling_task = current;
	pwq->triggered = 0;
	pwq->error = 0;
	pwq->table = NULL;
	pwq->inline_index = 0;
}

static __always_inline void free_poll_entry(struct poll_table_entry *entry)
{
	remove_wait_queue(entry->wait_address, &entry->wait);
	fput(entry->filp);
}

noinline void poll_freewait(struct poll_wqueues *pwq)
{
	struct poll_table_page *p = pwq->table;
	int i;

	for (i = 0; i < pwq->inline_index; i++)
		free_poll_entry(pwq->inline_entries + i);
	while (p) {
		struct poll_table_entry *entry = p->entry;
		struct poll_table_page *old;

		do {
			entry--;
			free_poll_entry(entry);
		} while (entry > p->entries);
		old = p;
		p = p->next;
		free_pages((unsigned long)old, 0);
	}
}

static __always_inline struct poll_table_entry *poll_get_entry(struct poll_wqueues *p)
{
	struct poll_table_page *table = p->table;

	if (p->inline_index < N_INLINE_POLL_ENTRIES)
		return p->inline_entries + p->inline_index++;
	if (!table || POLL_TABLE_FULL(table)) {
		struct poll_table_page *new_table = (struct poll_table_page *)__get_free_pages(GFP_KERNEL, 0);

		if (!new_table) {
			p->error = -ENOMEM;
			return NULL;
		}
		new_table->entry = new_table->entries;
		new_table->next = table;
		p->table = new_table;
		table = new_table;
	}
	return table->entry++;
}

static __always_inline int __pollwake(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	struct poll_wqueues *pwq = wait->private;

	/* the poller sees triggered once awake (it went to sleep only if it was not) */
	__atomic_store_n(&pwq->triggered, 1, __ATOMIC_SEQ_CST);
	return try_to_wake_up(pwq->polling_task, mode, sync);
}

/* The wake function of a poller's entry: a wake-up for events it does not wait for is not its. */
static noinline int pollwake(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	struct poll_table_entry *entry = container_of(wait, struct poll_table_entry, wait);

	if (key && !(key_to_poll(key) & entry->key))
		return 0;
	return __pollwake(wait, mode, sync, key);
}

/* Add a new entry: the poll_table's queueing procedure. */
static noinline void __pollwait(struct file *filp, wait_queue_head_t *wait_address, poll_table *p)
{
	struct poll_wqueues *pwq = container_of(p, struct poll_wqueues, pt);
	struct poll_table_entry *entry = poll_get_entry(pwq);

	if (!entry)
		return;
	entry->filp = get_file(filp);
	entry->wait_address = wait_address;
	entry->key = p->_key;
	entry->wait.flags = 0;
	entry->wait.func = pollwake;
	entry->wait.private = pwq;
	INIT_LIST_HEAD(&entry->wait.entry);
	add_wait_queue(wait_address, &entry->wait);
}

/* Sleep until a wake-up, the deadline (NULL: none) or a signal; 0 when the deadline passed. */
static __always_inline int poll_schedule_timeout(struct poll_wqueues *pwq, int state, ktime_t *expires,
						 unsigned long slack)
{
	int rc = -EINTR;

	set_current_state(state);
	if (!__atomic_load_n(&pwq->triggered, __ATOMIC_SEQ_CST))
		rc = schedule_hrtimeout_range(expires, slack, HRTIMER_MODE_ABS);
	set_current_state(TASK_RUNNING);
	__atomic_store_n(&pwq->triggered, 0, __ATOMIC_SEQ_CST);
	return rc;
}

/* ---- select ---- */

#define POLLIN_SET	(EPOLLRDNORM | EPOLLRDBAND | EPOLLIN | EPOLLHUP | EPOLLERR)
#define POLLOUT_SET	(EPOLLWRBAND | EPOLLWRNORM | EPOLLOUT | EPOLLERR)
#define POLLEX_SET	(EPOLLPRI)
#define BITS_PER_LONG	64
#define FDS_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define FDS_BYTES(nr)	(FDS_LONGS(nr) * sizeof(long))

typedef struct {
	unsigned long *in, *out, *ex;
	unsigned long *res_in, *res_out, *res_ex;
} fd_set_bits;

static __always_inline int get_fd_set(unsigned long nr, void *ufdset, unsigned long *fdset)
{
	nr = FDS_BYTES(nr);
	if (ufdset)
		return copy_from_user(fdset, ufdset, nr) ? -EFAULT : 0;
	memset(fdset, 0, nr);
	return 0;
}

static __always_inline unsigned long set_fd_set(unsigned long nr, void *ufdset, unsigned long *fdset)
{
	if (ufdset)
		return copy_to_user(ufdset, fdset, FDS_BYTES(nr));
	return 0;
}

/* The highest fd set, plus one; -EBADF if a set one is not open. */
static __always_inline int max_select_fd(unsigned long n, fd_set_bits *fds)
{
	int max = -1;
	unsigned long i;

	for (i = 0; i < n; i++) {
		unsigned long bit = 1UL << (i % BITS_PER_LONG), w = i / BITS_PER_LONG;
		struct file *f;

		if (!((fds->in[w] | fds->out[w] | fds->ex[w]) & bit))
			continue;
		f = fget(i);
		if (!f)
			return -EBADF;
		fput(f);
		max = i;
	}
	return max + 1;
}

static __always_inline void wait_key_set(poll_table *wait, unsigned long in, unsigned long out, unsigned long bit)
{
	wait->_key = POLLEX_SET;
	if (in & bit)
		wait->_key |= POLLIN_SET;
	if (out & bit)
		wait->_key |= POLLOUT_SET;
}

static noinline int do_select(int n, fd_set_bits *fds, ktime_t *end_time)
{
	ktime_t *to = NULL;
	struct poll_wqueues table;
	poll_table *wait;
	int retval, i, timed_out = 0;
	u64 slack = 0;

	retval = max_select_fd(n, fds);
	if (retval < 0)
		return retval;
	n = retval;
	poll_initwait(&table);
	wait = &table.pt;
	if (end_time && !*end_time) {
		wait->_qproc = NULL;
		timed_out = 1;
	}
	if (end_time && !timed_out)
		slack = select_estimate_accuracy(end_time);
	retval = 0;
	for (;;) {
		unsigned long *rinp, *routp, *rexp, *inp, *outp, *exp;

		inp = fds->in; outp = fds->out; exp = fds->ex;
		rinp = fds->res_in; routp = fds->res_out; rexp = fds->res_ex;
		for (i = 0; i < n; ++rinp, ++routp, ++rexp) {
			unsigned long in, out, ex, all_bits, bit = 1, j;
			unsigned long res_in = 0, res_out = 0, res_ex = 0;
			__poll_t mask;

			in = *inp++; out = *outp++; ex = *exp++;
			all_bits = in | out | ex;
			if (all_bits == 0) {
				i += BITS_PER_LONG;
				continue;
			}
			for (j = 0; j < BITS_PER_LONG; ++j, ++i, bit <<= 1) {
				struct file *f;

				if (i >= n)
					break;
				if (!(bit & all_bits))
					continue;
				mask = EPOLLNVAL;
				f = fget(i);
				if (f) {
					wait_key_set(wait, in, out, bit);
					mask = vfs_poll(f, wait);
					fput(f);
				}
				if ((mask & POLLIN_SET) && (in & bit)) {
					res_in |= bit;
					retval++;
					wait->_qproc = NULL;
				}
				if ((mask & POLLOUT_SET) && (out & bit)) {
					res_out |= bit;
					retval++;
					wait->_qproc = NULL;
				}
				if ((mask & POLLEX_SET) && (ex & bit)) {
					res_ex |= bit;
					retval++;
					wait->_qproc = NULL;
				}
			}
			if (res_in)
				*rinp = res_in;
			if (res_out)
				*routp = res_out;
			if (res_ex)
				*rexp = res_ex;
		}
		wait->_qproc = NULL;
		if (retval || timed_out || signal_pending(current) || session_host_moved_on(current))
			break;
		if (table.error) {
			retval = table.error;
			break;
		}
		if (end_time && !to)
			to = end_time;
		if (!poll_schedule_timeout(&table, TASK_INTERRUPTIBLE, to, slack))
			timed_out = 1;
	}
	poll_freewait(&table);
	return retval;
}

/* The caller's sets in, the results out; n past the fd table's size is cut to it. */
noinline int core_sys_select(int n, fd_set *inp, fd_set *outp, fd_set *exp, ktime_t *end_time)
{
	fd_set_bits fds;
	unsigned long *bits;
	int ret, max_fds;
	size_t size;

	ret = -EINVAL;
	if (n < 0)
		goto out_nofds;
	max_fds = current->files->fdt->max_fds;
	if (n > max_fds)
		n = max_fds;
	size = FDS_BYTES(n);
	ret = -ENOMEM;
	bits = kmalloc(6 * size + 1, GFP_KERNEL);
	if (!bits)
		goto out_nofds;
	fds.in = bits;
	fds.out = (void *)((char *)bits + size);
	fds.ex = (void *)((char *)bits + 2 * size);
	fds.res_in = (void *)((char *)bits + 3 * size);
	fds.res_out = (void *)((char *)bits + 4 * size);
	fds.res_ex = (void *)((char *)bits + 5 * size);
	if ((ret = get_fd_set(n, inp, fds.in)) || (ret = get_fd_set(n, outp, fds.out)) ||
	    (ret = get_fd_set(n, exp, fds.ex)))
		goto out;
	memset(fds.res_in, 0, 3 * size);
	ret = do_select(n, &fds, end_time);
	if (ret < 0)
		goto out;
	if (!ret) {
		ret = -ERESTARTNOHAND;
		if (signal_pending(current))
			goto out;
		ret = 0;
	}
	if (set_fd_set(n, inp, fds.res_in) || set_fd_set(n, outp, fds.res_out) ||
	    set_fd_set(n, exp, fds.res_ex))
		ret = -EFAULT;
out:
	kfree(bits);
out_nofds:
	return ret;
}

static noinline int kern_select(int n, fd_set *inp, fd_set *outp, fd_set *exp, struct __kernel_old_timeval *tvp)
{
	ktime_t end_time, *to = NULL;
	struct __kernel_old_timeval tv;
	int ret;

	if (tvp) {
		if (copy_from_user(&tv, tvp, sizeof(tv)))
			return -EFAULT;
		to = &end_time;
		if (poll_select_set_timeout(to, tv.tv_sec + (tv.tv_usec / USEC_PER_SEC),
					    (tv.tv_usec % USEC_PER_SEC) * NSEC_PER_USEC))
			return -EINVAL;
	}
	ret = core_sys_select(n, inp, outp, exp, to);
	return poll_select_finish(&end_time, tvp, PT_TIMEVAL, ret);
}

SYSCALL_DEFINE5(select, int, n, fd_set *, inp, fd_set *, outp, fd_set *, exp, struct __kernel_old_timeval *, tvp)
{
	return kern_select(n, inp, outp, exp, tvp);
}

/* ppoll's and pselect6's start: the deadline from the caller's timespec (none: *to stays
 * NULL), then the caller's signal mask for the wait */
static __always_inline int timespec_timeout_and_sigmask(void *tsp, ktime_t *end_time, ktime_t **to,
							const sigset_t *sigmask, size_t sigsetsize)
{
	struct timespec64 ts;

	if (tsp) {
		if (get_timespec64(&ts, tsp))
			return -EFAULT;
		*to = end_time;
		if (poll_select_set_timeout(end_time, ts.tv_sec, ts.tv_nsec))
			return -EINVAL;
	}
	return set_user_sigmask(sigmask, sigsetsize);
}

static noinline long do_pselect(int n, fd_set *inp, fd_set *outp, fd_set *exp, void *tsp,
				const sigset_t *sigmask, size_t sigsetsize, enum poll_time_type type)
{
	ktime_t end_time, *to = NULL;
	int ret = timespec_timeout_and_sigmask(tsp, &end_time, &to, sigmask, sigsetsize);

	if (ret)
		return ret;
	ret = core_sys_select(n, inp, outp, exp, to);
	return poll_select_finish(&end_time, tsp, type, ret);
}

/* pselect6's sixth argument: the mask and its size, packed (6.1's sigset_argpack) */
struct sigset_argpack {
	sigset_t *p;
	size_t size;
};

SYSCALL_DEFINE6(pselect6, int, n, fd_set *, inp, fd_set *, outp, fd_set *, exp, struct __kernel_timespec *, tsp,
		void *, sig)
{
	struct sigset_argpack x = { NULL, 0 };

	if (sig && copy_from_user(&x, sig, sizeof(x)))
		return -EFAULT;
	return do_pselect(n, inp, outp, exp, tsp, x.p, x.size, PT_TIMESPEC);
}

/* ---- poll ---- */

static __always_inline __poll_t do_pollfd(struct pollfd *pollfd, poll_table *pwait)
{
	int fd = pollfd->fd;
	__poll_t mask = 0, filter;
	struct file *f;

	if (fd < 0)
		goto out;
	mask = EPOLLNVAL;
	f = fget(fd);
	if (!f)
		goto out;
	filter = (unsigned short)pollfd->events | EPOLLERR | EPOLLHUP;	/* demangle_poll() */
	pwait->_key = filter;
	mask = vfs_poll(f, pwait);
	mask &= filter;		/* mask out unneeded events */
	fput(f);
out:
	pollfd->revents = mask;	/* mangle_poll() */
	return mask;
}

static __always_inline int do_poll(struct pollfd *fds, unsigned int nfds, struct poll_wqueues *wait,
				   ktime_t *end_time)
{
	poll_table *pt = &wait->pt;
	ktime_t *to = NULL;
	int timed_out = 0, count = 0;
	u64 slack = 0;
	unsigned int i;

	if (end_time && !*end_time) {	/* a zero timeout: one scan */
		pt->_qproc = NULL;
		timed_out = 1;
	}
	if (end_time && !timed_out)
		slack = select_estimate_accuracy(end_time);
	for (;;) {
		for (i = 0; i < nfds; i++) {
			/* a ready fd ends the queueing: no wait will follow */
			if (do_pollfd(&fds[i], pt)) {
				count++;
				pt->_qproc = NULL;
			}
		}
		pt->_qproc = NULL;
		if (!count) {
			count = wait->error;
			if (signal_pending(current))
				count = -ERESTARTNOHAND;
		}
		if (count || timed_out || session_host_moved_on(current))
			break;
		if (end_time && !to)
			to = end_time;
		if (!poll_schedule_timeout(wait, TASK_INTERRUPTIBLE, to, slack))
			timed_out = 1;
	}
	return count;
}

static noinline int do_sys_poll(struct pollfd *ufds, unsigned int nfds, ktime_t *end_time)
{
	struct poll_wqueues table;
	struct pollfd *fds;
	unsigned int i;
	int err;

	if (nfds > rlimit(RLIMIT_NOFILE))
		return -EINVAL;
	fds = kmalloc(nfds * sizeof(*fds) + 1, GFP_KERNEL);
	if (!fds)
		return -ENOMEM;
	err = -EFAULT;
	if (copy_from_user(fds, ufds, nfds * sizeof(*fds)))
		goto out_fds;
	poll_initwait(&table);
	err = do_poll(fds, nfds, &table, end_time);
	poll_freewait(&table);
	if (!access_ok(ufds, nfds * sizeof(*ufds)))
		goto out_fds_fault;
	for (i = 0; i < nfds; i++)
		if (copy_to_user(&ufds[i].revents, &fds[i].revents, sizeof(short)))
			goto out_fds_fault;
	goto out_fds;
out_fds_fault:
	err = -EFAULT;
out_fds:
	kfree(fds);
	return err;
}

SYSCALL_DEFINE3(poll, struct pollfd *, ufds, unsigned int, nfds, int, timeout_msecs)
{
	ktime_t end_time, *to = NULL;

	if (timeout_msecs >= 0) {
		to = &end_time;
		poll_select_set_timeout(to, timeout_msecs / MSEC_PER_SEC, NSEC_PER_MSEC * (timeout_msecs % MSEC_PER_SEC));
	}
	/* (6.1 restarts an interrupted poll with the time left through its restart_block; no
	 * stop signal here leaves one to restart: a handler makes it EINTR) */
	return do_sys_poll(ufds, nfds, to);
}

SYSCALL_DEFINE5(ppoll, struct pollfd *, ufds, unsigned int, nfds, struct __kernel_timespec *, tsp,
		const sigset_t *, sigmask, size_t, sigsetsize)
{
	ktime_t end_time, *to = NULL;
	int ret = timespec_timeout_and_sigmask(tsp, &end_time, &to, sigmask, sigsetsize);

	if (ret)
		return ret;
	ret = do_sys_poll(ufds, nfds, to);
	return poll_select_finish(&end_time, tsp, PT_TIMESPEC, ret);
}
