/*
 * struct sock (Linux's net/core/sock.c): allocation from the protocol's slab, the socket
 * lock (a spinlock and an owner flag: a task owns the socket while it works on it; what the
 * receive softirq brings meanwhile waits on sk_backlog and is processed by release_sock()),
 * the default wakeups on the socket's wait queue, timers that hold a reference, the generic
 * socket options.
 */
#include "../../include/net.h"
#include "../../include/security.h"
#include "../../include/poll.h"
#include "../../include/slab.h"
#include "../../include/trace/trace.h"

static u64 sk_cookie_gen;

static noinline struct sock *sk_prot_alloc(struct proto *prot, gfp_t priority, int family)
{
	struct sock *sk = kmem_cache_zalloc(prot->slab, priority);

	if (!sk)
		return NULL;
	if (security_sk_alloc(sk, family, priority)) {
		kmem_cache_free(prot->slab, sk);
		return NULL;
	}
	return sk;
}

noinline struct sock *sk_alloc(int family, gfp_t priority, struct proto *prot, int kern)
{
	struct sock *sk = sk_prot_alloc(prot, priority, family);

	if (!sk)
		return NULL;
	sk->sk_family = family;
	sk->sk_prot = prot;
	sk->sk_net.net = &init_net;	/* sock_net_set(): the caller's namespace, the only one */
	sk->sk_refcnt = 1;
	spin_lock_init(&sk->sk_lock.slock);
	return sk;
}

static noinline void __sk_destruct(struct sock *sk)
{
	if (sk->sk_destruct)
		sk->sk_destruct(sk);
	skb_queue_purge(&sk->sk_receive_queue);
	skb_queue_purge(&sk->sk_write_queue);
	security_sk_free(sk);	/* sk_prot_free() */
	kmem_cache_free(sk->sk_prot->slab, sk);
}

/* 6.1's sk_destruct(): no reuseport group, no SOCK_RCU_FREE socket here: freed at once */
noinline void sk_destruct(struct sock *sk)
{
	__sk_destruct(sk);
}

/* no sock_diag listeners: straight to sk_destruct() */
static noinline void __sk_free(struct sock *sk)
{
	sk_destruct(sk);
}

/* 6.1 frees when sk_wmem_alloc drops to 0: no sk_buff here holds the socket's write memory,
 * so the last sock_put()'s sk_free() is the last reference */
noinline void sk_free(struct sock *sk)
{
	__sk_free(sk);
}

notrace noinline void sock_put(struct sock *sk)
{
	if (__atomic_sub_fetch(&sk->sk_refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		sk_free(sk);
}

noinline void sock_def_wakeup(struct sock *sk)
{
	if (sk->sk_wq)
		wake_up_interruptible_all(&sk->sk_wq->wait);
}

noinline void sock_def_readable(struct sock *sk)
{
	if (sk->sk_wq)
		wake_up_interruptible_all(&sk->sk_wq->wait);
	sk_wake_async(sk, SOCK_WAKE_WAITD, POLL_IN);
}

/* (an O_ASYNC owner is signalled only if a writer found no room: SOCKWQ_ASYNC_NOSPACE) */
static noinline void sock_def_write_space(struct sock *sk)
{
	if (sk->sk_wq)
		wake_up_interruptible_all(&sk->sk_wq->wait);
	sk_wake_async(sk, SOCK_WAKE_SPACE, POLL_OUT);
}

static noinline void sock_def_error_report(struct sock *sk)
{
	if (sk->sk_wq)
		wake_up_interruptible_all(&sk->sk_wq->wait);	/* EPOLLERR */
	sk_wake_async(sk, SOCK_WAKE_IO, POLL_ERR);
}

/* The socket has an error (sk_err) its owner should see. */
noinline void sk_error_report(struct sock *sk)
{
	sk->sk_error_report(sk);
	if (sk->sk_family == AF_INET || sk->sk_family == AF_INET6)
		trace_inet_sk_error_report(sk);
}

noinline void sock_init_data_uid(struct socket *sock, struct sock *sk, uid_t uid)
{
	sk->sk_uid = uid;
	skb_queue_head_init(&sk->sk_receive_queue);
	skb_queue_head_init(&sk->sk_write_queue);
	sk->sk_rcvbuf = SYSCTL_RMEM_DEFAULT;
	sk->sk_sndbuf = SYSCTL_WMEM_DEFAULT;
	sk->sk_state = TCP_CLOSE;
	sk->sk_socket = sock;
	if (sock) {
		sk->sk_type = sock->type;
		sk->sk_wq = &sock->wq;
		sock->sk = sk;
	}
	sk->sk_state_change = sock_def_wakeup;
	sk->sk_data_ready = sock_def_readable;
	sk->sk_write_space = sock_def_write_space;
	sk->sk_error_report = sock_def_error_report;
	sk->sk_cookie = __atomic_add_fetch(&sk_cookie_gen, 1, __ATOMIC_RELAXED);
}

/* the socket's owner: its sockfs inode's (a kernel socket without one: root) */
noinline void sock_init_data(struct socket *sock, struct sock *sk)
{
	uid_t uid = sock && sock->inode ? sock->inode->i_uid : 0;

	sock_init_data_uid(sock, sk, uid);
}

/* ---- the socket lock ---- */
static noinline void __lock_sock(struct sock *sk)
{
	/* another task owns it: wait (spinning with the lock dropped, as the owner's work is short) */
	while (sock_owned_by_user(sk)) {
		spin_unlock(&sk->sk_lock.slock);
		local_bh_enable();
		schedule();
		local_bh_disable();
		spin_lock(&sk->sk_lock.slock);
	}
}

noinline void lock_sock_nested(struct sock *sk, int subclass)
{
	local_bh_disable();
	spin_lock(&sk->sk_lock.slock);
	if (sk->sk_lock.owned)
		__lock_sock(sk);
	sk->sk_lock.owned = 1;
	spin_unlock(&sk->sk_lock.slock);
	local_bh_enable();
}

/* the packets that came while the socket was owned, in order (with the lock dropped) */
static noinline void __release_sock(struct sock *sk)
{
	struct sk_buff *skb, *next;

	while ((skb = sk->sk_backlog.head) != NULL) {
		sk->sk_backlog.head = sk->sk_backlog.tail = NULL;
		spin_unlock(&sk->sk_lock.slock);
		local_bh_enable();
		do {
			next = skb->next;
			skb->next = NULL;
			sk->sk_backlog_rcv(sk, skb);
			skb = next;
		} while (skb);
		local_bh_disable();
		spin_lock(&sk->sk_lock.slock);
	}
	sk->sk_backlog.len = 0;
}

noinline void release_sock(struct sock *sk)
{
	local_bh_disable();
	spin_lock(&sk->sk_lock.slock);
	if (sk->sk_backlog.tail)
		__release_sock(sk);
	sk->sk_lock.owned = 0;
	spin_unlock(&sk->sk_lock.slock);
	local_bh_enable();
}

/* with the slock held (softirq): queue for the owner, or drop past the limit */
notrace noinline int sk_add_backlog(struct sock *sk, struct sk_buff *skb, unsigned int limit)
{
	if ((unsigned int)(sk->sk_backlog.len + sk->sk_rmem_alloc) > limit)
		return -ENOBUFS;
	skb->next = NULL;
	if (!sk->sk_backlog.tail)
		sk->sk_backlog.head = skb;
	else
		sk->sk_backlog.tail->next = skb;
	sk->sk_backlog.tail = skb;
	sk->sk_backlog.len += skb->truesize;
	return 0;
}

/* Wait for data in the receive queue (the socket locked); 0 when the wait was interrupted. */
noinline int sk_wait_data(struct sock *sk, long *timeo)
{
	int rc;

	sk_set_bit(SOCKWQ_ASYNC_WAITDATA, sk);	/* the data it waits for signals no O_ASYNC owner */
	rc = sk_wait_event(sk, !skb_queue_empty(&sk->sk_receive_queue) || READ_ONCE(sk->sk_err) ||
			       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) || sk->sk_backlog.tail);
	sk_clear_bit(SOCKWQ_ASYNC_WAITDATA, sk);
	return rc == 0;
}

/* a timer holds a reference on its socket while it is pending */
noinline int sk_reset_timer(struct sock *sk, struct timer_list *timer, unsigned long expires)
{
	if (!mod_timer(timer, expires)) {
		sock_hold(sk);
		return 0;
	}
	return 1;
}

noinline void sk_stop_timer(struct sock *sk, struct timer_list *timer)
{
	if (del_timer(timer))
		sock_put(sk);
}

notrace noinline int sock_error(struct sock *sk)
{
	int err = READ_ONCE(sk->sk_err);

	if (!err)
		return 0;
	return -__atomic_exchange_n(&sk->sk_err, 0, __ATOMIC_RELAXED);
}

/* The close of a socket without connections (UDP's udp_lib_close): the protocol's state, its
 * place in the protocol's hash, the file's hold */
noinline void sk_common_release(struct sock *sk)
{
	if (sk->sk_prot->destroy)
		sk->sk_prot->destroy(sk);
	/* Observation: when sk_common_release is called, processes have no access to socket. But net still has. */
	sk->sk_prot->unhash(sk);
	/* In this point socket cannot receive new packets, but it is possible that some packets are in
	 * flight: they are dropped by the protocol when the socket is found dead */
	sock_orphan(sk);
	sock_put(sk);
}

/* ---- SOL_SOCKET options ---- */
/* 6.1's: a BPF program's setsockopt (current->bpf_ctx) already holds the lock; none here */
noinline void sockopt_lock_sock(struct sock *sk)
{
	lock_sock(sk);
}

noinline void sockopt_release_sock(struct sock *sk)
{
	release_sock(sk);
}

noinline int sk_setsockopt(struct sock *sk, int level, int optname, void *optval, unsigned int optlen)
{
	int val, err;

	err = sockopt_int_from_user(optval, optlen, &val);
	if (err)
		return err;
	sockopt_lock_sock(sk);
	switch (optname) {
	case SO_REUSEADDR:
		sk->sk_reuse = val ? 1 : 0;
		break;
	case SO_KEEPALIVE:
		break;
	case SO_SNDBUF:
		val = min(val, SYSCTL_RMEM_MAX);
		sk->sk_sndbuf = max(val * 2, SOCK_MIN_SNDBUF);
		break;
	case SO_RCVBUF:
		val = min(val, SYSCTL_RMEM_MAX);
		sk->sk_userlocks |= SOCK_RCVBUF_LOCK;
		sk->sk_rcvbuf = max(val * 2, SOCK_MIN_RCVBUF);
		break;
	default:
		sockopt_release_sock(sk);
		return -ENOPROTOOPT;
	}
	sockopt_release_sock(sk);
	return 0;
}

noinline int sock_setsockopt(struct socket *sock, int level, int optname, void *optval, unsigned int optlen)
{
	return sk_setsockopt(sock->sk, level, optname, optval, optlen);
}

noinline int sk_getsockopt(struct sock *sk, int level, int optname, void *optval, int *optlen)
{
	int len, v;

	if (copy_from_user(&len, optlen, sizeof(len)))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	switch (optname) {
	case SO_TYPE:		v = sk->sk_type; break;
	case SO_ERROR:		v = -sock_error(sk); break;
	case SO_REUSEADDR:	v = sk->sk_reuse; break;
	case SO_SNDBUF:		v = sk->sk_sndbuf; break;
	case SO_RCVBUF:		v = sk->sk_rcvbuf; break;
	case SO_ACCEPTCONN:	v = sk->sk_state == TCP_LISTEN; break;
	case SO_PROTOCOL:	v = sk->sk_protocol; break;
	case SO_DOMAIN:		v = sk->sk_family; break;
	default:
		return -ENOPROTOOPT;
	}
	if (len > (int)sizeof(int))
		len = sizeof(int);
	if (copy_to_user(optval, &v, len) || copy_to_user(optlen, &len, sizeof(len)))
		return -EFAULT;
	return 0;
}

noinline int sock_getsockopt(struct socket *sock, int level, int optname, void *optval, int *optlen)
{
	return sk_getsockopt(sock->sk, level, optname, optval, optlen);
}

/* the protocol's options (net/core/sock.c): SOL_SOCKET's are sock_setsockopt()'s, the
 * others the protocol's */
noinline int sock_common_setsockopt(struct socket *sock, int level, int optname, void *optval,
				    unsigned int optlen)
{
	struct sock *sk = sock->sk;

	return sk->sk_prot->setsockopt(sk, level, optname, optval, optlen);
}

noinline int sock_common_getsockopt(struct socket *sock, int level, int optname, void *optval, int *optlen)
{
	struct sock *sk = sock->sk;

	return sk->sk_prot->getsockopt(sk, level, optname, optval, optlen);
}

int sock_no_socketpair(struct socket *sock1, struct socket *sock2) { return -EOPNOTSUPP; }
int sock_no_accept(struct socket *sock, struct socket *newsock, int flags, bool kern) { return -EOPNOTSUPP; }
int sock_no_listen(struct socket *sock, int backlog) { return -EOPNOTSUPP; }

/* A datagram socket's readiness (net/core/datagram.c): a datagram queued, an error, a shutdown;
 * writable while its send buffer has room (nothing waits in it here: always). */
noinline __poll_t datagram_poll(struct file *file, struct socket *sock, poll_table *wait)
{
	struct sock *sk = sock->sk;
	__poll_t mask = 0;

	poll_wait(file, &sk->sk_wq->wait, wait);	/* sock_poll_wait() */
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (sk->sk_shutdown & RCV_SHUTDOWN)
		mask |= EPOLLRDHUP | EPOLLIN | EPOLLRDNORM;
	if (sk->sk_shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	if (!skb_queue_empty(&sk->sk_receive_queue))
		mask |= EPOLLIN | EPOLLRDNORM;
	mask |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;	/* sock_writeable() */
	return mask;
}
