/*
 * PF_INET sockets (Linux's net/ipv4/af_inet.c): inet_create (TCP for SOCK_STREAM, UDP for
 * SOCK_DGRAM: udp.c), inet_bind, inet_listen, inet_stream_connect (__inet_stream_connect: the
 * protocol's connect, then the wait for the handshake), inet_accept, inet_getname,
 * inet_sendmsg / inet_recvmsg, inet_shutdown, inet_release; inet_sk_set_state()
 * (sock:inet_sock_set_state).  Addresses: the loopback network, 127.0.0.0/8.
 */
#include "../../include/net.h"
#include "../../include/poll.h"
#include "../../include/slab.h"
#include "../../include/trace/trace.h"

noinline void inet_sk_set_state(struct sock *sk, int state)
{
	trace_inet_sock_set_state(sk, sk->sk_state, state);
	sk->sk_state = state;
}

/* the same, a store-release: lockless readers (poll, the lookups) see the state last */
noinline void inet_sk_state_store(struct sock *sk, int newstate)
{
	trace_inet_sock_set_state(sk, sk->sk_state, newstate);
	__atomic_store_n(&sk->sk_state, newstate, __ATOMIC_RELEASE);
}

/* an inet socket's last words (sk_destruct): what it had received and not read */
noinline void inet_sock_destruct(struct sock *sk)
{
	skb_queue_purge(&sk->sk_receive_queue);
}

static const struct inet_protosw inetsw_array[] = {
	{ SOCK_STREAM, IPPROTO_TCP, &tcp_prot, &inet_stream_ops },
	{ SOCK_DGRAM, IPPROTO_UDP, &udp_prot, &inet_dgram_ops },
};

static noinline int inet_create(struct socket *sock, int protocol, int kern)
{
	return inet_create_sock(sock, protocol, kern, PF_INET, inetsw_array, ARRAY_SIZE(inetsw_array));
}

noinline int inet_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (sk) {
		sock->sk = NULL;
		sk->sk_prot->close(sk, 0);
	}
	return 0;
}

static noinline int __inet_bind(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in *addr = (struct sockaddr_in *)uaddr;
	struct inet_sock *inet = inet_sk(sk);
	unsigned short snum;
	int err;

	if (addr_len < (int)sizeof(struct sockaddr_in))
		return -EINVAL;
	if (addr->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	/* only the loopback network and the any address are this host's */
	if (addr->sin_addr.s_addr != INADDR_ANY && !ipv4_is_loopback(addr->sin_addr.s_addr))
		return -EADDRNOTAVAIL;
	snum = ntohs(addr->sin_port);
	lock_sock(sk);
	err = -EINVAL;
	if (sk->sk_state != TCP_CLOSE || inet->inet_num)
		goto out;
	inet->inet_rcv_saddr = inet->inet_saddr = addr->sin_addr.s_addr;
	err = inet_csk_get_port(sk, snum);
	if (err) {
		inet->inet_saddr = inet->inet_rcv_saddr = 0;
		err = -EADDRINUSE;
		goto out;
	}
	if (inet->inet_rcv_saddr)
		sk->sk_userlocks |= SOCK_BINDADDR_LOCK;
	if (snum)
		sk->sk_userlocks |= SOCK_BINDPORT_LOCK;
	inet->inet_sport = htons(inet->inet_num);
	inet->inet_daddr = 0;
	inet->inet_dport = 0;
	err = 0;
out:
	release_sock(sk);
	return err;
}

noinline int inet_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	return __inet_bind(sock->sk, uaddr, addr_len);
}

noinline int inet_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	int err = -EINVAL;

	lock_sock(sk);
	if (sock->state != SS_UNCONNECTED || sock->type != SOCK_STREAM)
		goto out;
	if (!((1 << sk->sk_state) & (TCPF_CLOSE | TCPF_LISTEN)))
		goto out;
	sk->sk_max_ack_backlog = backlog;
	if (sk->sk_state != TCP_LISTEN) {
		err = inet_csk_listen_start(sk);
		if (err)
			goto out;
	}
	err = 0;
out:
	release_sock(sk);
	return err;
}

static noinline int __inet_stream_connect(struct socket *sock, struct sockaddr *uaddr, int addr_len, int flags)
{
	struct sock *sk = sock->sk;
	int err;

	if (addr_len < (int)sizeof(uaddr->sa_family))
		return -EINVAL;
	switch (sock->state) {
	default:
		return -EINVAL;
	case SS_CONNECTED:
		return -EISCONN;
	case SS_CONNECTING:
		if (sk->sk_state == TCP_ESTABLISHED || sk->sk_state == TCP_CLOSE_WAIT)
			return -EISCONN;
		if (flags & O_NONBLOCK)
			return -EALREADY;
		break;
	case SS_UNCONNECTED:
		if (sk->sk_state != TCP_CLOSE)
			return -EISCONN;
		err = sk->sk_prot->connect(sk, uaddr, addr_len);
		if (err < 0)
			return err;
		sock->state = SS_CONNECTING;
		if (flags & O_NONBLOCK)
			return -EINPROGRESS;
		break;
	}
	/* inet_wait_for_connect() */
	if ((1 << sk->sk_state) & (TCPF_SYN_SENT | TCPF_SYN_RECV)) {
		if (sk_wait_event(sk, !((1 << READ_ONCE(sk->sk_state)) & (TCPF_SYN_SENT | TCPF_SYN_RECV))))
			return -ERESTARTSYS;
	}
	if (sk->sk_state == TCP_CLOSE) {	/* sock_error: the connection is gone */
		err = sock_error(sk) ? : -ECONNABORTED;
		sock->state = SS_UNCONNECTED;
		if (sk->sk_prot->disconnect(sk, flags))
			sock->state = SS_DISCONNECTING;
		return err;
	}
	sock->state = SS_CONNECTED;
	return 0;
}

noinline int inet_stream_connect(struct socket *sock, struct sockaddr *uaddr, int addr_len, int flags)
{
	int err;

	lock_sock(sock->sk);
	err = __inet_stream_connect(sock, uaddr, addr_len, flags);
	release_sock(sock->sk);
	return err;
}

noinline int inet_accept(struct socket *sock, struct socket *newsock, int flags, bool kern)
{
	struct sock *sk1 = sock->sk, *sk2;
	int err = -EINVAL;

	sk2 = inet_csk_accept(sk1, flags, &err, kern);
	if (!sk2)
		return err;
	lock_sock(sk2);
	sock_graft(sk2, newsock);
	newsock->state = SS_CONNECTED;
	release_sock(sk2);
	return 0;
}

noinline int inet_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sock *sk = sock->sk;
	struct inet_sock *inet = inet_sk(sk);
	struct sockaddr_in *sin = (struct sockaddr_in *)uaddr;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (peer) {
		if (!inet->inet_dport ||
		    (((1 << sk->sk_state) & (TCPF_CLOSE | TCPF_SYN_SENT)) && peer == 1))
			return -ENOTCONN;
		sin->sin_port = inet->inet_dport;
		sin->sin_addr.s_addr = inet->inet_daddr;
	} else {
		__be32 addr = inet->inet_rcv_saddr;

		if (!addr)
			addr = inet->inet_saddr;
		sin->sin_port = inet->inet_sport;
		sin->sin_addr.s_addr = addr;
	}
	return sizeof(*sin);
}

/* an unbound socket's first send or connect: an ephemeral port */
static noinline int inet_autobind(struct sock *sk)
{
	struct inet_sock *inet;

	/* We may need to bind the socket. */
	lock_sock(sk);
	inet = inet_sk(sk);
	if (!inet->inet_num) {
		if (sk->sk_prot->get_port(sk, 0)) {
			release_sock(sk);
			return -EAGAIN;
		}
		inet->inet_sport = htons(inet->inet_num);
	}
	release_sock(sk);
	return 0;
}

noinline int inet_send_prepare(struct sock *sk)
{
	/* We may need to bind the socket. */
	if (!READ_ONCE(inet_sk(sk)->inet_num) && !sk->sk_prot->no_autobind && inet_autobind(sk))
		return -EAGAIN;
	return 0;
}

noinline int inet_sendmsg(struct socket *sock, struct msghdr *msg, size_t size)
{
	return inet_sendmsg_common(sock, msg, size);
}

/* a page to send: the protocol's sendpage (TCP's), or as a message (sock_no_sendpage) */
noinline ssize_t inet_sendpage(struct socket *sock, struct page *page, int offset, size_t size, int flags)
{
	struct sock *sk = sock->sk;
	const struct proto *prot;

	if (unlikely(inet_send_prepare(sk)))
		return -EAGAIN;
	prot = READ_ONCE(sk->sk_prot);	/* IPV6_ADDRFORM can change sk->sk_prot under us. */
	if (prot->sendpage)
		return prot->sendpage(sk, page, offset, size, flags);
	return sock_no_sendpage(sock, page, offset, size, flags);
}

/* a datagram socket's default destination (bound first) */
noinline int inet_dgram_connect(struct socket *sock, struct sockaddr *uaddr, int addr_len, int flags)
{
	struct sock *sk = sock->sk;

	if (addr_len < (int)sizeof(uaddr->sa_family))
		return -EINVAL;
	if (!inet_sk(sk)->inet_num && inet_autobind(sk))
		return -EAGAIN;
	return sk->sk_prot->connect(sk, uaddr, addr_len);
}

noinline int inet_recvmsg(struct socket *sock, struct msghdr *msg, size_t size, int flags)
{
	return inet_recvmsg_common(sock, msg, size, flags);
}

noinline int inet_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	int err = 0;

	how++;	/* SHUT_RD/WR/RDWR: 1, 2, 3 */
	if ((how & ~SHUTDOWN_MASK) || !how)
		return -EINVAL;
	lock_sock(sk);
	if (sock->state == SS_CONNECTING) {
		if ((1 << sk->sk_state) & (TCPF_SYN_SENT | TCPF_SYN_RECV | TCPF_CLOSE))
			sock->state = SS_DISCONNECTING;
		else
			sock->state = SS_CONNECTED;
	}
	switch (sk->sk_state) {
	case TCP_CLOSE:
		err = -ENOTCONN;
		fallthrough;
	default:
		WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | how);
		if (sk->sk_prot->shutdown)
			sk->sk_prot->shutdown(sk, how);
		break;
	case TCP_LISTEN:
		if (!(how & RCV_SHUTDOWN))
			break;
		fallthrough;
	case TCP_SYN_SENT:
		err = tcp_disconnect(sk, O_NONBLOCK);
		sock->state = err ? SS_DISCONNECTING : SS_UNCONNECTED;
		break;
	}
	sk->sk_state_change(sk);
	release_sock(sk);
	return err;
}

/* An inet socket's ioctl: the routing, ARP and interface requests are not modelled (ENOTTY);
 * the rest the protocol's (tcp_ioctl) */
noinline int inet_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct sock *sk = sock->sk;

	return sk->sk_prot->ioctl ? sk->sk_prot->ioctl(sk, cmd, arg) : -ENOIOCTLCMD;
}

const struct proto_ops inet_stream_ops = {
	.family = PF_INET,
	.release = inet_release,
	.ioctl = inet_ioctl,
	.bind = inet_bind,
	.connect = inet_stream_connect,
	.socketpair = sock_no_socketpair,
	.accept = inet_accept,
	.getname = inet_getname,
	.listen = inet_listen,
	.shutdown = inet_shutdown,
	.setsockopt = sock_common_setsockopt,
	.getsockopt = sock_common_getsockopt,
	.sendmsg = inet_sendmsg,
	.recvmsg = inet_recvmsg,
	.poll = tcp_poll,
	.sendpage = inet_sendpage,
};

static const struct net_proto_family inet_family_ops = {
	.family = PF_INET,
	.create = inet_create,
};

void tcp_init(void);

void __init inet_init(void)
{
	tcp_prot.slab = kmem_cache_create("TCP", sizeof(struct tcp_sock), 64, SLAB_PANIC | SLAB_ACCOUNT, NULL);
	udp_prot.slab = kmem_cache_create("UDP", sizeof(struct inet_sock), 64, SLAB_PANIC | SLAB_ACCOUNT, NULL);
	tcp_init();
	sock_register(&inet_family_ops);
}
