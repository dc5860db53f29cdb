/*
 * UDP over IPv4 (Linux's net/ipv4/udp.c, the socket side of af_inet.c's datagram ops):
 * udp_sendmsg (the destination given or connected; an unbound socket got an ephemeral port in
 * inet_send_prepare) → ip_build_and_send_pkt; udp_rcv → __udp4_lib_rcv: the socket bound to the
 * port, its receive queue (udp_unicast_rcv_skb → ... → __udp_enqueue_schedule_skb; past
 * sk_rcvbuf: sock:sock_rcvqueue_full and a SOCKET_RCVBUFF drop), no socket: a NO_SOCKET drop;
 * udp_recvmsg one datagram a call (__skb_recv_udp, skb_consume_udp), with its source.
 */
#include "../../include/net.h"
#include "../../include/poll.h"
#include "../../include/slab.h"
#include "../../include/trace/trace.h"

struct sock *__udp4_lib_lookup(__be32 daddr, u16 hnum);

/* 0, or 1 when the port is taken; 0 asks for a free one (the bind table is the one TCP's
 * ports are in here: inet_csk_get_port's search) */
noinline int udp_lib_get_port(struct sock *sk, unsigned short snum, unsigned int hash2_nulladdr)
{
	return inet_csk_get_port(sk, snum);
}

noinline int udp_v4_get_port(struct sock *sk, unsigned short snum)
{
	return udp_lib_get_port(sk, snum, 0);
}

noinline int udp_sendmsg(struct sock *sk, struct msghdr *msg, size_t len)
{
	struct inet_sock *inet = inet_sk(sk);
	struct sockaddr_in *usin = msg->msg_name;
	__be32 daddr, saddr;
	__be16 dport;
	struct sk_buff *skb;
	int err;

	if (len > 0xFFFF - sizeof(struct iphdr) - sizeof(struct udphdr))
		return -EMSGSIZE;
	if (usin) {
		if (msg->msg_namelen < (int)sizeof(*usin))
			return -EINVAL;
		if (usin->sin_family != AF_INET)
			return -EAFNOSUPPORT;
		daddr = usin->sin_addr.s_addr;
		dport = usin->sin_port;
		if (!dport)
			return -EINVAL;
	} else {
		if (sk->sk_state != TCP_ESTABLISHED)
			return -EDESTADDRREQ;
		daddr = inet->inet_daddr;
		dport = inet->inet_dport;
	}
	if (!daddr)
		daddr = htonl(INADDR_LOOPBACK);
	if (!ipv4_is_loopback(daddr))
		return -ENETUNREACH;
	saddr = inet->inet_saddr ? : htonl(INADDR_LOOPBACK);
	skb = udp_make_skb(sk, msg, len, dport);
	if (IS_ERR(skb))
		return PTR_ERR(skb);
	err = ip_build_and_send_pkt(skb, sk, saddr, daddr, IPPROTO_UDP);
	return err < 0 ? err : (int)len;
}

/* the datagram onto the socket's receive queue, within sk_rcvbuf */
noinline int __udp_enqueue_schedule_skb(struct sock *sk, struct sk_buff *skb)
{
	if (sk->sk_rmem_alloc + (int)skb->truesize > sk->sk_rcvbuf) {
		trace_sock_rcvqueue_full(sk, skb);
		return -ENOMEM;
	}
	skb->sk = sk;
	skb_queue_tail(&sk->sk_receive_queue, skb);
	sk->sk_rmem_alloc += skb->truesize;
	sk->sk_data_ready(sk);
	return 0;
}

noinline int udp_queue_rcv_one_skb(struct sock *sk, struct sk_buff *skb)
{
	return udp_queue_rcv_one_skb_common(sk, skb);
}

/* (no GSO datagrams to segment) */
noinline int udp_queue_rcv_skb(struct sock *sk, struct sk_buff *skb)
{
	return udp_queue_rcv_one_skb(sk, skb);
}

noinline int udp_unicast_rcv_skb(struct sock *sk, struct sk_buff *skb, struct udphdr *uh)
{
	int ret = udp_queue_rcv_skb(sk, skb);

	/* a return value > 0 means to resubmit the input, but it wants the return to be -protocol, or 0 */
	if (ret > 0)
		return -ret;
	return 0;
}

static noinline int __udp4_lib_rcv(struct sk_buff *skb)
{
	struct udphdr *uh = udp_rcv_header(skb);
	struct sock *sk;

	if (!uh)
		return 0;
	UDP_SKB_CB(skb)->saddr = ip_hdr(skb)->saddr;
	UDP_SKB_CB(skb)->sport = uh->source;
	sk = __udp4_lib_lookup(ip_hdr(skb)->daddr, ntohs(uh->dest));
	return udp_lib_rcv_to_sock(sk, skb, uh, udp_unicast_rcv_skb);
}

noinline int udp_rcv(struct sk_buff *skb)
{
	return __udp4_lib_rcv(skb);
}

/* the receive queue's first datagram, unlinked unless peeked; waiting for one (a blocking
 * socket) as __skb_wait_for_more_packets does */
noinline struct sk_buff *__skb_recv_udp(struct sock *sk, unsigned int flags, int *off, int *err)
{
	struct sk_buff *skb;

	for (;;) {
		unsigned long irq;

		spin_lock_irqsave(&sk->sk_receive_queue.lock, irq);	/* __skb_try_recv_from_queue */
		skb = skb_peek(&sk->sk_receive_queue);
		if (skb && !(flags & MSG_PEEK))
			__skb_unlink(skb, &sk->sk_receive_queue);
		spin_unlock_irqrestore(&sk->sk_receive_queue.lock, irq);
		if (skb)
			return skb;
		*err = 0;
		if (sk->sk_shutdown & RCV_SHUTDOWN)
			return NULL;
		*err = -EAGAIN;
		if (flags & MSG_DONTWAIT)
			return NULL;
		*err = -ERESTARTSYS;
		if (wait_event_interruptible(sk->sk_wq->wait, !skb_queue_empty(&sk->sk_receive_queue) ||
								  (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN)))
			return NULL;
	}
}

/* the receive memory the datagram held given back */
noinline void udp_rmem_release(struct sock *sk, int size, int partial, bool rx_queue_lock_held)
{
	sk->sk_rmem_alloc -= size;
}

noinline void skb_consume_udp(struct sock *sk, struct sk_buff *skb, int len)
{
	udp_rmem_release(sk, skb->truesize, 1, false);
	consume_skb(skb);
}

noinline int udp_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *addr_len)
{
	struct sockaddr_in *sin = msg->msg_name;
	struct sk_buff *skb;
	size_t copied;
	int err;

	skb = udp_recv_copy(sk, msg, len, flags, &err, &copied);
	if (!skb)
		return err;
	if (sin) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = UDP_SKB_CB(skb)->sport;
		sin->sin_addr.s_addr = UDP_SKB_CB(skb)->saddr;
		*addr_len = sizeof(*sin);
	}
	if (!(flags & MSG_PEEK))
		skb_consume_udp(sk, skb, copied);
	return copied;
}

/* net/ipv4/datagram.c: the default destination (the socket bound already: inet_dgram_connect) */
noinline int __ip4_datagram_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in *usin = (struct sockaddr_in *)uaddr;
	struct inet_sock *inet = inet_sk(sk);

	if (addr_len < (int)sizeof(*usin))
		return -EINVAL;
	if (usin->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (usin->sin_addr.s_addr && !ipv4_is_loopback(usin->sin_addr.s_addr))
		return -ENETUNREACH;
	if (!inet->inet_saddr)
		inet->inet_saddr = htonl(INADDR_LOOPBACK);
	inet->inet_daddr = usin->sin_addr.s_addr ? : htonl(INADDR_LOOPBACK);
	inet->inet_dport = usin->sin_port;
	sk->sk_state = TCP_ESTABLISHED;
	return 0;
}

noinline int ip4_datagram_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	int res;

	lock_sock(sk);
	res = __ip4_datagram_connect(sk, uaddr, addr_len);
	release_sock(sk);
	return res;
}

/* out of the port table (6.1's UDP hash) */
noinline void udp_lib_unhash(struct sock *sk)
{
	inet_put_port(sk);
}


struct proto udp_prot = {
	.name = "UDP",
	.obj_size = sizeof(struct inet_sock),
	.close = udp_lib_close,
	.connect = ip4_datagram_connect,
	.unhash = udp_lib_unhash,
	.get_port = udp_v4_get_port,
	.sendmsg = udp_sendmsg,
	.recvmsg = udp_recvmsg,
};

int inet_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len);
int inet_getname(struct socket *sock, struct sockaddr *uaddr, int peer);
int inet_sendmsg(struct socket *sock, struct msghdr *msg, size_t size);
int inet_recvmsg(struct socket *sock, struct msghdr *msg, size_t size, int flags);

/* A UDP socket's readiness: datagram_poll's */
noinline __poll_t udp_poll(struct file *file, struct socket *sock, poll_table *wait)
{
	return datagram_poll(file, sock, wait);
}

const struct proto_ops inet_dgram_ops = {
	.family = PF_INET,
	.release = inet_release,
	.bind = inet_bind,
	.connect = inet_dgram_connect,
	.socketpair = sock_no_socketpair,
	.accept = sock_no_accept,
	.getname = inet_getname,
	.listen = sock_no_listen,
	.shutdown = inet_shutdown,
	.sendmsg = inet_sendmsg,
	.recvmsg = inet_recvmsg,
	.poll = udp_poll,
};
