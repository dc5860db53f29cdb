/*
 * PF_INET6 sockets (Linux's net/ipv6/af_inet6.c, inet6_hashtables.c's hashing,
 * ipv6_sockglue.c's options): inet6_create (TCPv6 for SOCK_STREAM, UDPv6 for SOCK_DGRAM),
 * inet6_bind → __inet6_bind (::1, the any address, or an IPv4-mapped loopback address on a
 * dual-stack socket; any other address is not this host's), inet6_getname, inet6_sendmsg /
 * inet6_recvmsg, inet6_release; IPV6_V6ONLY (ipv6_setsockopt → do_ipv6_setsockopt).  The rest
 * of a socket's life is af_inet.c's (connect, listen, accept, shutdown).
 */
#include "../../include/net.h"
#include "../../include/poll.h"
#include "../../include/slab.h"

#define LOOPBACK4_IPV6	htonl(0x7f000006)

/* an AF_INET6 socket's last words (sk_destruct) */
noinline void inet6_sock_destruct(struct sock *sk)
{
	inet_sock_destruct(sk);
}

static const struct inet_protosw inetsw6[] = {
	{ SOCK_STREAM, IPPROTO_TCP, &tcpv6_prot, &inet6_stream_ops },
	{ SOCK_DGRAM, IPPROTO_UDP, &udpv6_prot, &inet6_dgram_ops },
};

static noinline int inet6_create(struct socket *sock, int protocol, int kern)
{
	return inet_create_sock(sock, protocol, kern, PF_INET6, inetsw6, ARRAY_SIZE(inetsw6));
}

noinline int inet6_release(struct socket *sock)
{
	return inet_release(sock);	/* (no IPv6 multicast or flow labels to drop) */
}

static noinline int __inet6_bind(struct sock *sk, struct sockaddr *uaddr, int addr_len, u32 flags)
{
	struct sockaddr_in6 *addr = (struct sockaddr_in6 *)uaddr;
	struct inet_sock *inet = inet_sk(sk);
	struct ipv6_pinfo *np = inet6_sk(sk);
	bool mapped = ipv6_addr_v4mapped(&addr->sin6_addr), any = ipv6_addr_any(&addr->sin6_addr);
	unsigned short snum = ntohs(addr->sin6_port);
	__be32 v4addr = 0;
	int saved_ipv6only, err = 0;

	lock_sock(sk);
	if (sk->sk_state != TCP_CLOSE || inet->inet_num) {
		err = -EINVAL;
		goto out;
	}
	if (mapped) {
		/* binding to v4-mapped address on a v6-only socket makes no sense */
		if (ipv6_only_sock(sk)) {
			err = -EINVAL;
			goto out;
		}
		v4addr = addr->sin6_addr.s6_addr32[3];
		if (v4addr != INADDR_ANY && !ipv4_is_loopback(v4addr)) {
			err = -EADDRNOTAVAIL;
			goto out;
		}
	} else if (!any) {
		v4addr = LOOPBACK4_IPV6;	/* no IPv4 equivalent */
		if (!ipv6_addr_loopback(&addr->sin6_addr)) {	/* ipv6_chk_addr(): ::1 is lo's */
			err = -EADDRNOTAVAIL;
			goto out;
		}
	}
	inet->inet_rcv_saddr = v4addr;
	inet->inet_saddr = v4addr;
	sk->sk_v6_rcv_saddr = addr->sin6_addr;
	np->saddr = addr->sin6_addr;
	saved_ipv6only = sk->sk_ipv6only;
	if (!any && !mapped)
		sk->sk_ipv6only = 1;
	if (sk->sk_prot->get_port(sk, snum)) {
		sk->sk_ipv6only = saved_ipv6only;
		inet->inet_rcv_saddr = inet->inet_saddr = 0;	/* inet_reset_saddr() */
		sk->sk_v6_rcv_saddr = np->saddr = in6addr_any;
		err = -EADDRINUSE;
		goto out;
	}
	if (!any)
		sk->sk_userlocks |= SOCK_BINDADDR_LOCK;
	if (snum)
		sk->sk_userlocks |= SOCK_BINDPORT_LOCK;
	inet->inet_sport = htons(inet->inet_num);
	inet->inet_dport = 0;
	inet->inet_daddr = 0;
out:
	release_sock(sk);
	return err;
}

noinline int inet6_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in6 *addr = (struct sockaddr_in6 *)uaddr;

	if (addr_len < SIN6_LEN_RFC2133)
		return -EINVAL;
	if (addr->sin6_family != AF_INET6)
		return -EAFNOSUPPORT;
	return __inet6_bind(sock->sk, uaddr, addr_len, 0);
}

noinline int inet6_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_in6 *sin = (struct sockaddr_in6 *)uaddr;
	struct sock *sk = sock->sk;
	struct inet_sock *inet = inet_sk(sk);
	struct ipv6_pinfo *np = inet6_sk(sk);

	sin->sin6_family = AF_INET6;
	sin->sin6_flowinfo = 0;
	sin->sin6_scope_id = 0;
	lock_sock(sk);
	if (peer) {
		if (!inet->inet_dport ||
		    (((1 << sk->sk_state) & (TCPF_CLOSE | TCPF_SYN_SENT)) && peer == 1)) {
			release_sock(sk);
			return -ENOTCONN;
		}
		sin->sin6_port = inet->inet_dport;
		sin->sin6_addr = sk->sk_v6_daddr;
	} else {
		if (ipv6_addr_any(&sk->sk_v6_rcv_saddr))
			sin->sin6_addr = np->saddr;
		else
			sin->sin6_addr = sk->sk_v6_rcv_saddr;
		sin->sin6_port = inet->inet_sport;
	}
	release_sock(sk);
	return sizeof(*sin);
}

noinline int inet6_sendmsg(struct socket *sock, struct msghdr *msg, size_t size)
{
	return inet_sendmsg_common(sock, msg, size);
}

noinline int inet6_recvmsg(struct socket *sock, struct msghdr *msg, size_t size, int flags)
{
	return inet_recvmsg_common(sock, msg, size, flags);
}

/* inet6_hashtables.c: a listener into the listening hash; a connection's port and hash */
noinline int inet6_hash(struct sock *sk)
{
	int err = 0;

	if (sk->sk_state != TCP_CLOSE)
		err = __inet_hash(sk, NULL);
	return err;
}

noinline int inet6_hash_connect(struct sock *sk)
{
	return __inet_hash_connect(sk);
}

/* ---- IPPROTO_IPV6 options (ipv6_sockglue.c): IPV6_V6ONLY ---- */
static noinline int do_ipv6_setsockopt(struct sock *sk, int level, int optname, void *optval, unsigned int optlen)
{
	int val, err;

	err = sockopt_int_from_user(optval, optlen, &val);
	if (err)
		return err;
	sockopt_lock_sock(sk);
	switch (optname) {
	case IPV6_V6ONLY:
		err = -EINVAL;
		if (inet_sk(sk)->inet_num)
			break;
		sk->sk_ipv6only = !!val;
		err = 0;
		break;
	default:
		err = -ENOPROTOOPT;
	}
	sockopt_release_sock(sk);
	return err;
}

noinline int ipv6_setsockopt(struct sock *sk, int level, int optname, void *optval, unsigned int optlen)
{
	if (level != IPPROTO_IPV6)
		return -ENOPROTOOPT;
	return do_ipv6_setsockopt(sk, level, optname, optval, optlen);
}

static noinline int do_ipv6_getsockopt(struct sock *sk, int level, int optname, void *optval, int *optlen)
{
	int len, val;

	if (copy_from_user(&len, optlen, sizeof(int)))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	switch (optname) {
	case IPV6_V6ONLY:
		val = sk->sk_ipv6only;
		break;
	default:
		return -ENOPROTOOPT;
	}
	len = (unsigned int)len < sizeof(int) ? (unsigned int)len : sizeof(int);
	return sockopt_int_to_user(optval, optlen, len, val);
}

noinline int ipv6_getsockopt(struct sock *sk, int level, int optname, void *optval, int *optlen)
{
	if (level != IPPROTO_IPV6)
		return -ENOPROTOOPT;
	return do_ipv6_getsockopt(sk, level, optname, optval, optlen);
}

/* An inet6 socket's ioctl: the routing and interface requests are not modelled; the rest the
 * protocol's (tcp_ioctl) */
noinline int inet6_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct sock *sk = sock->sk;

	if (!sk->sk_prot->ioctl)
		return -ENOIOCTLCMD;
	return sk->sk_prot->ioctl(sk, cmd, arg);
}

const struct proto_ops inet6_stream_ops = {
	.family = PF_INET6,
	.release = inet6_release,
	.ioctl = inet6_ioctl,
	.bind = inet6_bind,
	.connect = inet_stream_connect,
	.socketpair = sock_no_socketpair,
	.accept = inet_accept,
	.getname = inet6_getname,
	.listen = inet_listen,
	.shutdown = inet_shutdown,
	.setsockopt = sock_common_setsockopt,
	.getsockopt = sock_common_getsockopt,
	.sendpage = inet_sendpage,
	.sendmsg = inet6_sendmsg,
	.recvmsg = inet6_recvmsg,
	.poll = tcp_poll,
};

static const struct net_proto_family inet6_family_ops = {
	.family = PF_INET6,
	.create = inet6_create,
};

void __init inet6_init(void)
{
	tcpv6_prot.slab = kmem_cache_create("TCPv6", sizeof(struct tcp6_sock), 64, SLAB_PANIC | SLAB_ACCOUNT, NULL);
	udpv6_prot.slab = kmem_cache_create("UDPv6", sizeof(struct udp6_sock), 64, SLAB_PANIC | SLAB_ACCOUNT, NULL);
	sock_register(&inet6_family_ops);
}
