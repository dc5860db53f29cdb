/*
 * UDP over IPv6 (Linux's net/ipv6/udp.c, datagram.c's connect): udpv6_sendmsg (to ::1; an
 * IPv4-mapped destination goes through udp_sendmsg, as 6.1's) → ip6_make_skb →
 * udp_v6_send_skb → ip6_send_skb; udpv6_rcv → __udp6_lib_rcv: the socket bound to the port
 * (__udp6_lib_lookup) → udp6_unicast_rcv_skb → udpv6_queue_rcv_skb → udpv6_queue_rcv_one_skb
 * → __udp_enqueue_schedule_skb; udpv6_recvmsg with the source (an IPv4 datagram's mapped);
 * ip6_datagram_connect.
 */
#include "../../include/net.h"
#include "../../include/poll.h"
#include "../../include/slab.h"

noinline int udp_v6_get_port(struct sock *sk, unsigned short snum)
{
	return udp_lib_get_port(sk, snum, 0);
}

noinline int udp_v6_send_skb(struct sk_buff *skb)
{
	struct udphdr *uh = udp_hdr(skb);

	uh->len = htons(skb->len - sizeof(struct ipv6hdr));
	return ip6_send_skb(skb);
}

noinline int udpv6_sendmsg(struct sock *sk, struct msghdr *msg, size_t len)
{
	struct sockaddr_in6 *sin6 = msg->msg_name;
	struct inet_sock *inet = inet_sk(sk);
	struct ipv6_pinfo *np = inet6_sk(sk);
	const struct in6_addr *daddr;
	struct in6_addr saddr;
	__be16 dport;
	struct sk_buff *skb;
	int err;

	if (sin6) {
		if (msg->msg_namelen < (int)offsetof(struct sockaddr, sa_data))
			return -EINVAL;
		if (sin6->sin6_family != AF_INET6)
			return -EAFNOSUPPORT;
		if (msg->msg_namelen < SIN6_LEN_RFC2133)
			return -EINVAL;
		daddr = &sin6->sin6_addr;
		dport = sin6->sin6_port;
		if (!dport)
			return -EINVAL;
	} else {
		if (sk->sk_state != TCP_ESTABLISHED)
			return -EDESTADDRREQ;
		daddr = &sk->sk_v6_daddr;
		dport = inet->inet_dport;
	}
	if (ipv6_addr_v4mapped(daddr)) {	/* IPv4 of a dual-stack socket: udp_sendmsg's */
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = dport,
					   .sin_addr.s_addr = daddr->s6_addr32[3] };

		if (ipv6_only_sock(sk))
			return -ENETUNREACH;
		if (sin6) {
			msg->msg_name = &sin;
			msg->msg_namelen = sizeof(sin);
		}
		err = udp_sendmsg(sk, msg, len);
		msg->msg_name = sin6;
		return err;
	}
	err = ip6_route_check(ipv6_addr_any(&np->saddr) ? NULL : &np->saddr,
			      ipv6_addr_any(daddr) ? &in6addr_loopback : daddr);
	if (err)
		return err;
	if (len > 0xFFFF - sizeof(struct udphdr))
		return -EMSGSIZE;
	saddr = ipv6_addr_any(&np->saddr) ? in6addr_loopback : np->saddr;
	skb = udp_make_skb(sk, msg, len, dport);
	if (IS_ERR(skb))
		return PTR_ERR(skb);
	skb = ip6_make_skb(sk, skb, &saddr, ipv6_addr_any(daddr) ? &in6addr_loopback : daddr);
	err = udp_v6_send_skb(skb);
	return err < 0 ? err : (int)len;
}

noinline int udpv6_queue_rcv_one_skb(struct sock *sk, struct sk_buff *skb)
{
	return udp_queue_rcv_one_skb_common(sk, skb);
}

noinline int udpv6_queue_rcv_skb(struct sock *sk, struct sk_buff *skb)
{
	return udpv6_queue_rcv_one_skb(sk, skb);
}

noinline int udp6_unicast_rcv_skb(struct sock *sk, struct sk_buff *skb, struct udphdr *uh)
{
	int ret = udpv6_queue_rcv_skb(sk, skb);

	if (ret > 0)
		return -ret;
	return 0;
}

noinline int __udp6_lib_rcv(struct sk_buff *skb, int proto)
{
	struct udphdr *uh = udp_rcv_header(skb);
	struct sock *sk;

	if (!uh)
		return 0;
	UDP_SKB_CB(skb)->saddr6 = ipv6_hdr(skb)->saddr;
	UDP_SKB_CB(skb)->sport = uh->source;
	sk = __udp6_lib_lookup(&ipv6_hdr(skb)->daddr, ntohs(uh->dest));
	return udp_lib_rcv_to_sock(sk, skb, uh, udp6_unicast_rcv_skb);
}

noinline int udpv6_rcv(struct sk_buff *skb)
{
	return __udp6_lib_rcv(skb, IPPROTO_UDP);
}

noinline int udpv6_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *addr_len)
{
	struct sockaddr_in6 *sin6 = msg->msg_name;
	struct sk_buff *skb;
	size_t copied;
	int err;

	skb = udp_recv_copy(sk, msg, len, flags, &err, &copied);
	if (!skb)
		return err;
	if (sin6) {
		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = UDP_SKB_CB(skb)->sport;
		if (skb->protocol == htons(ETH_P_IP))	/* a dual-stack socket's IPv4 datagram */
			ipv6_addr_set_v4mapped(UDP_SKB_CB(skb)->saddr, sin6->sin6_addr.s6_addr);
		else
			sin6->sin6_addr = UDP_SKB_CB(skb)->saddr6;
		*addr_len = sizeof(*sin6);
	}
	if (!(flags & MSG_PEEK))
		skb_consume_udp(sk, skb, copied);
	return copied;
}

/* datagram.c: the default destination (the socket bound already: inet_dgram_connect) */
noinline int __ip6_datagram_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in6 *usin = (struct sockaddr_in6 *)uaddr;
	struct inet_sock *inet = inet_sk(sk);
	struct ipv6_pinfo *np = inet6_sk(sk);
	int err;

	if (usin->sin6_family == AF_INET) {
		if (ipv6_only_sock(sk))
			return -EAFNOSUPPORT;
		return __ip4_datagram_connect(sk, uaddr, addr_len);
	}
	if (addr_len < SIN6_LEN_RFC2133)
		return -EINVAL;
	if (usin->sin6_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (ipv6_addr_v4mapped(&usin->sin6_addr)) {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = usin->sin6_port,
					   .sin_addr.s_addr = usin->sin6_addr.s6_addr32[3] };

		if (ipv6_only_sock(sk))
			return -ENETUNREACH;
		err = __ip4_datagram_connect(sk, (struct sockaddr *)&sin, sizeof(sin));
		if (err)
			return err;
		ipv6_addr_set_v4mapped(inet->inet_daddr, sk->sk_v6_daddr.s6_addr);
		if (ipv6_addr_any(&np->saddr))
			ipv6_addr_set_v4mapped(inet->inet_saddr, np->saddr.s6_addr);
		if (ipv6_addr_any(&sk->sk_v6_rcv_saddr))
			ipv6_addr_set_v4mapped(inet->inet_rcv_saddr, sk->sk_v6_rcv_saddr.s6_addr);
		return 0;
	}
	err = ip6_route_check(ipv6_addr_any(&np->saddr) ? NULL : &np->saddr,
			      ipv6_addr_any(&usin->sin6_addr) ? &in6addr_loopback : &usin->sin6_addr);
	if (err)
		return err;
	sk->sk_v6_daddr = ipv6_addr_any(&usin->sin6_addr) ? in6addr_loopback : usin->sin6_addr;
	if (ipv6_addr_any(&np->saddr))
		np->saddr = in6addr_loopback;
	if (ipv6_addr_any(&sk->sk_v6_rcv_saddr)) {
		sk->sk_v6_rcv_saddr = in6addr_loopback;
		inet->inet_rcv_saddr = htonl(0x7f000006);	/* LOOPBACK4_IPV6 */
	}
	inet->inet_dport = usin->sin6_port;
	sk->sk_state = TCP_ESTABLISHED;
	return 0;
}

noinline int ip6_datagram_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	int res;

	lock_sock(sk);
	res = __ip6_datagram_connect(sk, uaddr, addr_len);
	release_sock(sk);
	return res;
}

noinline int udpv6_setsockopt(struct sock *sk, int level, int optname, void *optval, unsigned int optlen)
{
	return ipv6_setsockopt(sk, level, optname, optval, optlen);	/* (no SOL_UDP options modelled) */
}

noinline int udpv6_getsockopt(struct sock *sk, int level, int optname, void *optval, int *optlen)
{
	return ipv6_getsockopt(sk, level, optname, optval, optlen);
}

struct proto udpv6_prot = {
	.name = "UDPv6",
	.obj_size = sizeof(struct udp6_sock),
	.close = udp_lib_close,
	.connect = ip6_datagram_connect,
	.unhash = udp_lib_unhash,
	.get_port = udp_v6_get_port,
	.sendmsg = udpv6_sendmsg,
	.recvmsg = udpv6_recvmsg,
	.setsockopt = udpv6_setsockopt,
	.getsockopt = udpv6_getsockopt,
};

int inet6_release(struct socket *sock);
int inet6_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len);
int inet6_getname(struct socket *sock, struct sockaddr *uaddr, int peer);
int inet6_sendmsg(struct socket *sock, struct msghdr *msg, size_t size);
int inet6_recvmsg(struct socket *sock, struct msghdr *msg, size_t size, int flags);

const struct proto_ops inet6_dgram_ops = {
	.family = PF_INET6,
	.release = inet6_release,
	.bind = inet6_bind,
	.connect = inet_dgram_connect,
	.socketpair = sock_no_socketpair,
	.accept = sock_no_accept,
	.getname = inet6_getname,
	.listen = sock_no_listen,
	.shutdown = inet_shutdown,
	.setsockopt = sock_common_setsockopt,
	.getsockopt = sock_common_getsockopt,
	.sendmsg = inet6_sendmsg,
	.recvmsg = inet6_recvmsg,
	.poll = udp_poll,
};
