/*
 * Unix domain sockets (Linux's net/unix/af_unix.c), as far as socketpair() makes them: a pair
 * of connected SOCK_STREAM or SOCK_DGRAM sockets; unix_stream_sendmsg queues the data as
 * sk_buffs on the peer's receive queue (waiting while the peer's buffer is full),
 * unix_stream_recvmsg copies from one's own (a partly read skb keeps its rest), a datagram is
 * one skb read whole or truncated; shutdown and close tell the peer (EOF, EPIPE).  Names
 * (bind, connect, listen, accept) are not modelled: EOPNOTSUPP.
 */
#include "../../include/net.h"
#include "../../include/poll.h"
#include "../../include/slab.h"
#include "../../include/signal.h"

struct unix_sock {
	struct sock sk;
	struct sock *peer;
};
static __always_inline struct unix_sock *unix_sk(const struct sock *sk) { return (struct unix_sock *)sk; }
static __always_inline struct sock *unix_peer(const struct sock *sk) { return unix_sk(sk)->peer; }

static struct proto unix_proto = { .name = "UNIX", .obj_size = sizeof(struct unix_sock) };
static const struct proto_ops unix_stream_ops, unix_dgram_ops;

#define unix_state_lock(s)	spin_lock(&(s)->sk_lock.slock)
#define unix_state_unlock(s)	spin_unlock(&(s)->sk_lock.slock)

/* the socket's last words: what it had received and not read */
static noinline void unix_sock_destructor(struct sock *sk)
{
	skb_queue_purge(&sk->sk_receive_queue);
}

static noinline struct sock *unix_create1(struct socket *sock, int kern, int type)
{
	struct sock *sk = sk_alloc(PF_UNIX, GFP_KERNEL, &unix_proto, kern);

	if (!sk)
		return ERR_PTR(-ENOMEM);
	sock_init_data(sock, sk);
	sk->sk_state = TCP_CLOSE;
	sk->sk_destruct = unix_sock_destructor;
	return sk;
}

static noinline int unix_create(struct socket *sock, int protocol, int kern)
{
	struct sock *sk;

	if (protocol && protocol != PF_UNIX)
		return -EPROTONOSUPPORT;
	sock->state = SS_UNCONNECTED;
	switch (sock->type) {
	case SOCK_STREAM:
		sock->ops = &unix_stream_ops;
		break;
	case SOCK_DGRAM:
		sock->ops = &unix_dgram_ops;
		break;
	default:
		return -ESOCKTNOSUPPORT;
	}
	sk = unix_create1(sock, kern, sock->type);
	if (IS_ERR(sk))
		return PTR_ERR(sk);
	return 0;
}

static noinline int unix_socketpair(struct socket *socka, struct socket *sockb)
{
	struct sock *ska = socka->sk, *skb = sockb->sk;

	sock_hold(ska);
	sock_hold(skb);
	unix_sk(ska)->peer = skb;
	unix_sk(skb)->peer = ska;
	ska->sk_state = skb->sk_state = TCP_ESTABLISHED;
	socka->state = sockb->state = SS_CONNECTED;
	return 0;
}

static noinline int unix_release_sock(struct sock *sk)
{
	struct sock *peer;

	unix_state_lock(sk);
	sock_set_flag(sk, SOCK_DEAD);
	sk->sk_shutdown = SHUTDOWN_MASK;
	peer = unix_peer(sk);
	unix_sk(sk)->peer = NULL;
	sk->sk_state = TCP_CLOSE;
	sk->sk_socket = NULL;
	sk->sk_wq = NULL;
	unix_state_unlock(sk);
	if (peer) {
		unix_state_lock(peer);
		if (sk->sk_type == SOCK_STREAM)
			peer->sk_shutdown = SHUTDOWN_MASK;
		unix_state_unlock(peer);
		peer->sk_state_change(peer);
		if (sk->sk_type == SOCK_STREAM)
			sk_wake_async(peer, SOCK_WAKE_WAITD, POLL_HUP);
		sock_put(peer);
	}
	skb_queue_purge(&sk->sk_receive_queue);
	sock_put(sk);
	return 0;
}

static noinline int unix_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;
	sock->sk = NULL;
	return unix_release_sock(sk);
}

static noinline int unix_shutdown(struct socket *sock, int mode)
{
	struct sock *sk = sock->sk, *other;

	if (mode < SHUT_RD || mode > SHUT_RDWR)
		return -EINVAL;
	mode++;	/* RCV_SHUTDOWN 1, SEND_SHUTDOWN 2 */
	unix_state_lock(sk);
	sk->sk_shutdown |= mode;
	other = unix_peer(sk);
	unix_state_unlock(sk);
	sk->sk_state_change(sk);
	if (other && sk->sk_type == SOCK_STREAM) {
		int peer_mode = (mode & RCV_SHUTDOWN ? SEND_SHUTDOWN : 0) | (mode & SEND_SHUTDOWN ? RCV_SHUTDOWN : 0);

		unix_state_lock(other);
		other->sk_shutdown |= peer_mode;
		unix_state_unlock(other);
		other->sk_state_change(other);
		if (peer_mode == SHUTDOWN_MASK)
			sk_wake_async(other, SOCK_WAKE_WAITD, POLL_HUP);
		else if (peer_mode & RCV_SHUTDOWN)
			sk_wake_async(other, SOCK_WAKE_WAITD, POLL_IN);
	}
	return 0;
}

static noinline int unix_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_un *sunaddr = (struct sockaddr_un *)uaddr;

	if (peer && !unix_peer(sock->sk))
		return -ENOTCONN;
	sunaddr->sun_family = AF_UNIX;
	return sizeof(short);	/* unnamed */
}

static notrace bool unix_peer_full(const struct sock *other)
{
	return READ_ONCE(other->sk_rmem_alloc) >= READ_ONCE(other->sk_rcvbuf);
}

/* wait for room in the peer's buffer; 0, or -errno */
static noinline int unix_wait_for_peer(struct sock *sk, struct sock *other, bool nonblock)
{
	if (nonblock)
		return -EAGAIN;
	if (wait_event_interruptible(sk->sk_wq->wait, !unix_peer_full(other) || sock_flag(other, SOCK_DEAD) ||
							  (READ_ONCE(other->sk_shutdown) & RCV_SHUTDOWN)))
		return -ERESTARTSYS;
	return 0;
}

static notrace noinline int unix_send(struct socket *sock, struct msghdr *msg, size_t len, bool stream)
{
	struct sock *sk = sock->sk, *other = unix_peer(sk);
	bool nonblock = msg->msg_flags & MSG_DONTWAIT;
	size_t sent = 0;
	int err;

	if (msg->msg_name)
		return stream ? -EOPNOTSUPP : -EISCONN;
	if (!other)
		return stream ? -ENOTCONN : -EDESTADDRREQ;
	if (!stream && len > (size_t)sk->sk_sndbuf - 32)
		return -EMSGSIZE;
	do {
		size_t size = stream ? min(len - sent, (size_t)(sk->sk_sndbuf / 2 - 64)) : len;
		struct sk_buff *skb;

		err = -EPIPE;
		if ((sk->sk_shutdown & SEND_SHUTDOWN) || sock_flag(other, SOCK_DEAD) ||
		    (other->sk_shutdown & RCV_SHUTDOWN))
			goto pipe_err;
		if (unix_peer_full(other)) {
			err = unix_wait_for_peer(sk, other, nonblock);
			if (err)
				goto out_err;
			continue;
		}
		skb = alloc_skb(size, GFP_KERNEL);
		if (!skb) {
			err = -ENOBUFS;
			goto out_err;
		}
		if (copy_from_iter(skb_put(skb, size), size, &msg->msg_iter) != size) {
			__kfree_skb(skb);
			err = -EFAULT;
			goto out_err;
		}
		unix_state_lock(other);
		if (sock_flag(other, SOCK_DEAD) || (other->sk_shutdown & RCV_SHUTDOWN)) {
			unix_state_unlock(other);
			__kfree_skb(skb);
			err = -EPIPE;
			goto pipe_err;
		}
		skb->sk = other;
		skb_queue_tail(&other->sk_receive_queue, skb);
		other->sk_rmem_alloc += skb->truesize;
		unix_state_unlock(other);
		other->sk_data_ready(other);
		sent += size;
	} while (sent < len);
	return sent;
pipe_err:
	if (sent)
		return sent;
	if (stream && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return err;
out_err:
	return sent ? (int)sent : err;
}

static noinline int unix_stream_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	return unix_send(sock, msg, len, true);
}

static noinline int unix_dgram_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	return unix_send(sock, msg, len, false);
}

/* the head of the queue, or why there is none (0: EOF) */
static notrace noinline struct sk_buff *unix_wait_skb(struct sock *sk, bool nonblock, int *err)
{
	for (;;) {
		struct sk_buff *skb = skb_peek(&sk->sk_receive_queue);

		if (skb)
			return skb;
		*err = 0;
		if (sk->sk_shutdown & RCV_SHUTDOWN)
			return NULL;
		*err = -EAGAIN;
		if (nonblock)
			return NULL;
		if (wait_event_interruptible(sk->sk_wq->wait, !skb_queue_empty(&sk->sk_receive_queue) ||
								  (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN))) {
			*err = -ERESTARTSYS;
			return NULL;
		}
	}
}

static notrace noinline void unix_consume(struct sock *sk, struct sk_buff *skb)
{
	struct sock *other;

	skb_unlink(skb, &sk->sk_receive_queue);
	unix_state_lock(sk);
	sk->sk_rmem_alloc -= skb->truesize;
	other = unix_peer(sk);
	unix_state_unlock(sk);
	consume_skb(skb);
	if (other && other->sk_wq)	/* a writer waiting for room */
		wake_up_interruptible_all(&other->sk_wq->wait);
}

/* unix_stream_read_state: the reader's, its actor copying each chunk */
struct unix_stream_read_state {
	int (*recv_actor)(struct sk_buff *, int, int, struct unix_stream_read_state *);
	struct socket *socket;
	struct msghdr *msg;
	size_t size;
	int flags;
};

static noinline int unix_stream_read_actor(struct sk_buff *skb, int skip, int chunk,
					   struct unix_stream_read_state *state)
{
	int ret = skb_copy_datagram_iter(skb, skip, &state->msg->msg_iter, chunk);	/* skb_copy_datagram_msg */

	return ret ?: chunk;
}

static noinline int unix_stream_read_generic(struct unix_stream_read_state *state, bool freezable)
{
	struct sock *sk = state->socket->sk;
	bool nonblock = state->flags & MSG_DONTWAIT;
	size_t size = state->size;
	int copied = 0, err = 0;

	if (state->flags & MSG_PEEK)
		return -EOPNOTSUPP;
	while ((size_t)copied < size) {
		struct sk_buff *skb = copied ? skb_peek(&sk->sk_receive_queue) : unix_wait_skb(sk, nonblock, &err);
		int chunk;

		if (!skb)
			break;
		chunk = state->recv_actor(skb, 0, min((size_t)skb->len, size - copied), state);
		if (chunk < 0) {
			if (!copied)
				copied = -EFAULT;
			break;
		}
		copied += chunk;
		skb_pull(skb, chunk);
		if (!skb->len)
			unix_consume(sk, skb);
	}
	return copied ? copied : err;
}

static noinline int unix_stream_recvmsg(struct socket *sock, struct msghdr *msg, size_t size, int flags)
{
	struct unix_stream_read_state state = {
		.recv_actor = unix_stream_read_actor,
		.socket = sock,
		.msg = msg,
		.size = size,
		.flags = flags
	};

	return unix_stream_read_generic(&state, true);
}

static noinline int __unix_dgram_recvmsg(struct sock *sk, struct msghdr *msg, size_t size, int flags)
{
	struct sk_buff *skb;
	int err;
	size_t len;

	if (flags & MSG_PEEK)
		return -EOPNOTSUPP;
	skb = unix_wait_skb(sk, flags & MSG_DONTWAIT, &err);
	if (!skb)
		return err;
	len = min((size_t)skb->len, size);
	if (skb_copy_datagram_iter(skb, 0, &msg->msg_iter, len))
		return -EFAULT;
	unix_consume(sk, skb);
	return len;
}

static noinline int unix_dgram_recvmsg(struct socket *sock, struct msghdr *msg, size_t size, int flags)
{
	return __unix_dgram_recvmsg(sock->sk, msg, size, flags);
}

/* Writable while the peer's buffer has room (or the peer is gone: the write fails at once). */
static notrace bool unix_writable(const struct sock *sk)
{
	struct sock *other = unix_peer(sk);

	return !other || !unix_peer_full(other) || sock_flag(other, SOCK_DEAD) ||
	       (READ_ONCE(other->sk_shutdown) & RCV_SHUTDOWN);
}

static __always_inline __poll_t unix_common_poll(struct file *file, struct socket *sock, poll_table *wait)
{
	struct sock *sk = sock->sk;
	__poll_t mask = 0;
	u8 shutdown;

	poll_wait(file, &sk->sk_wq->wait, wait);	/* sock_poll_wait() */
	shutdown = READ_ONCE(sk->sk_shutdown);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLRDHUP | EPOLLIN | EPOLLRDNORM;
	if (!skb_queue_empty(&sk->sk_receive_queue))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (sk->sk_type == SOCK_STREAM && READ_ONCE(sk->sk_state) == TCP_CLOSE)
		mask |= EPOLLHUP;
	if (unix_writable(sk))
		mask |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;
	return mask;
}

static noinline __poll_t unix_poll(struct file *file, struct socket *sock, poll_table *wait)
{
	return unix_common_poll(file, sock, wait);
}

static noinline __poll_t unix_dgram_poll(struct file *file, struct socket *sock, poll_table *wait)
{
	return unix_common_poll(file, sock, wait);
}

static notrace int unix_no_bind(struct socket *sock, struct sockaddr *a, int len) { return -EOPNOTSUPP; }
static notrace int unix_no_connect(struct socket *sock, struct sockaddr *a, int len, int flags) { return -EOPNOTSUPP; }

static const struct proto_ops unix_stream_ops = {
	.family = PF_UNIX,
	.release = unix_release,
	.bind = unix_no_bind,
	.connect = unix_no_connect,
	.socketpair = unix_socketpair,
	.accept = sock_no_accept,
	.getname = unix_getname,
	.listen = sock_no_listen,
	.shutdown = unix_shutdown,
	.sendmsg = unix_stream_sendmsg,
	.recvmsg = unix_stream_recvmsg,
	.poll = unix_poll,
};

static const struct proto_ops unix_dgram_ops = {
	.family = PF_UNIX,
	.release = unix_release,
	.bind = unix_no_bind,
	.connect = unix_no_connect,
	.socketpair = unix_socketpair,
	.accept = sock_no_accept,
	.getname = unix_getname,
	.listen = sock_no_listen,
	.shutdown = unix_shutdown,
	.sendmsg = unix_dgram_sendmsg,
	.recvmsg = unix_dgram_recvmsg,
	.poll = unix_dgram_poll,
};

static const struct net_proto_family unix_family_ops = {
	.family = PF_UNIX,
	.create = unix_create,
};

void __init af_unix_init(void)
{
	unix_proto.slab = kmem_cache_create("UNIX", sizeof(struct unix_sock), 64, SLAB_PANIC | SLAB_ACCOUNT, NULL);
	sock_register(&unix_family_ops);
}
