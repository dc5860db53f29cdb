/*
 * poll (include/linux/poll.h, include/uapi/asm-generic/poll.h): a file's ->poll() reports what
 * it is ready for and, given a poll_table with a queueing procedure, puts the caller on the wait
 * queues whose wake-ups may change that (poll_wait); fs/select.c's poll/select and
 * fs/eventpoll.c's epoll are the callers.
 */
#ifndef _POLL_H
#define _POLL_H
#include "fs.h"

typedef unsigned int __poll_t;

#define POLLIN		0x0001
#define POLLPRI		0x0002
#define POLLOUT		0x0004
#define POLLERR		0x0008
#define POLLHUP		0x0010
#define POLLNVAL	0x0020
#define POLLRDNORM	0x0040
#define POLLRDBAND	0x0080
#define POLLWRNORM	0x0100
#define POLLWRBAND	0x0200
#define POLLMSG		0x0400
#define POLLRDHUP	0x2000
#define POLLFREE	0x4000	/* the wait queue goes: let go of it (wake_up_pollfree) */

#define EPOLLIN		POLLIN
#define EPOLLPRI	POLLPRI
#define EPOLLOUT	POLLOUT
#define EPOLLERR	POLLERR
#define EPOLLHUP	POLLHUP
#define EPOLLNVAL	POLLNVAL
#define EPOLLRDNORM	POLLRDNORM
#define EPOLLRDBAND	POLLRDBAND
#define EPOLLWRNORM	POLLWRNORM
#define EPOLLWRBAND	POLLWRBAND
#define EPOLLMSG	POLLMSG
#define EPOLLRDHUP	POLLRDHUP

/* what a file without ->poll always is (a regular file, /dev/null, /dev/zero) */
#define DEFAULT_POLLMASK (EPOLLIN | EPOLLOUT | EPOLLRDNORM | EPOLLWRNORM)

struct poll_table_struct;
typedef void (*poll_queue_proc)(struct file *, wait_queue_head_t *, struct poll_table_struct *);
typedef struct poll_table_struct {
	poll_queue_proc _qproc;		/* NULL: report only, queue nothing */
	__poll_t _key;			/* the events the caller waits for */
} poll_table;

static inline void poll_wait(struct file *filp, wait_queue_head_t *wait_address, poll_table *p)
{
	if (p && p->_qproc && wait_address)
		p->_qproc(filp, wait_address, p);
}

static inline bool poll_does_not_wait(const poll_table *p)
{
	return p == NULL || p->_qproc == NULL;
}

static inline __poll_t poll_requested_events(const poll_table *p)
{
	return p ? p->_key : ~(__poll_t)0;
}

static inline void init_poll_funcptr(poll_table *pt, poll_queue_proc qproc)
{
	pt->_qproc = qproc;
	pt->_key = ~(__poll_t)0;
}

static inline bool file_can_poll(struct file *file)
{
	return file->f_op->poll;
}

/* vfs_poll(): the file's mask, DEFAULT_POLLMASK for a file without ->poll */
static __always_inline __poll_t vfs_poll(struct file *file, struct poll_table_struct *pt)
{
	if (!file->f_op->poll)
		return DEFAULT_POLLMASK;
	return file->f_op->poll(file, pt);
}

/* fs/select.c's waiter: one entry per wait queue a ->poll() named */
struct poll_table_entry {
	struct file *filp;
	__poll_t key;
	struct wait_queue_entry wait;
	wait_queue_head_t *wait_address;
};

struct poll_table_page;
#define N_INLINE_POLL_ENTRIES 12
struct poll_wqueues {
	poll_table pt;
	struct poll_table_page *table;
	struct task_struct *polling_task;
	int triggered;
	int error;
	int inline_index;
	struct poll_table_entry inline_entries[N_INLINE_POLL_ENTRIES];
};

void poll_initwait(struct poll_wqueues *pwq);
void poll_freewait(struct poll_wqueues *pwq);
int poll_select_set_timeout(ktime_t *to, s64 sec, long nsec);
u64 select_estimate_accuracy(s64 *end);

struct socket;
/* net: a socket's ->poll (sock_poll) calls its proto_ops' */
__poll_t datagram_poll(struct file *file, struct socket *sock, poll_table *wait);
__poll_t tcp_poll(struct file *file, struct socket *sock, poll_table *wait);
__poll_t udp_poll(struct file *file, struct socket *sock, poll_table *wait);
#endif
