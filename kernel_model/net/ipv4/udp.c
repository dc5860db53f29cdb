/*
 * UDP over IPv4 (Linux's net/ipv4/udp.c, the socket side of af_inet.c's datagram ops):
 * udp_sendmsg (the destination given or connected; an unbound socket gets an ephemeral port)
 * → ip_build_and_send_pkt; udp_rcv → __udp4_lib_rcv: the socket bound to the port, its receive
 * queue (__udp_queue_rcv_skb; past sk_rcvbuf: sock:sock_rcvqueue_full and a SOCKET_RCVBUFF
 * drop), no socket: a NO_SOCKET drop; udp_recvmsg one datagram a call, with its source.
 */
#include "../../include/net.h"
#include "../../include/poll.h"
#include "../../include/slab.h"
#include "../../include/trace/trace.h"

struct udp_skb_cb {
	__be32 saddr;
	__be16 sport;
};
#define UDP_SKB_CB(skb) ((struct udp_skb_cb *)&((skb)->cb[0]))

struct sock *__udp4_lib_lookup(__be32 daddr, u16 hnum);

static noinline int udp_lib_get_port(struct sock *sk)
{
	if (inet_sk(sk)->inet_num)
		return 0;
	if (inet_csk_get_port(sk, 0))
		return -EAGAIN;
	inet_sk(sk)->inet_sport = htons(inet_sk(sk)->inet_num);
	return 0;
}

noinline int udp_sendmsg(struct sock *sk, struct msghdr *msg, size_t len)
{
	struct inet_sock *inet = inet_sk(sk);
	struct sockaddr_in *usin = msg->msg_name;
	__be32 daddr, saddr;
	__be16 dport;
	struct sk_buff *skb;
	struct udphdr *uh;
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
	lock_sock(sk);
	err = udp_lib_get_port(sk);
	release_sock(sk);
	if (err)
		return err;
	saddr = inet->inet_saddr ? : htonl(INADDR_LOOPBACK);
	skb = alloc_skb(MAX_HEADER + len, GFP_KERNEL);
	if (!skb)
		return -ENOBUFS;
	skb_reserve(skb, MAX_HEADER);
	if (copy_from_iter(skb_put(skb, len), len, &msg->msg_iter) != len) {
		__kfree_skb(skb);
		return -EFAULT;
	}
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = inet->inet_sport;
	uh->dest = dport;
	uh->len = htons(skb->len);
	uh->check = 0;
	skb->sk = sk;
	err = ip_build_and_send_pkt(skb, sk, saddr, daddr, IPPROTO_UDP);
	return err < 0 ? err : (int)len;
}

static noinline int __udp_queue_rcv_skb(struct sock *sk, struct sk_buff *skb)
{
	if (sk->sk_rmem_alloc + (int)skb->truesize > sk->sk_rcvbuf) {
		trace_sock_rcvqueue_full(sk, skb);
		kfree_skb_reason(skb, SKB_DROP_REASON_SOCKET_RCVBUFF);
		return -1;
	}
	skb->sk = sk;
	skb_queue_tail(&sk->sk_receive_queue, skb);
	sk->sk_rmem_alloc += skb->truesize;
	sk->sk_data_ready(sk);
	return 0;
}

static noinline int __udp4_lib_rcv(struct sk_buff *skb)
{
	struct udphdr *uh;
	struct sock *sk;
	unsigned int ulen;

	if (skb->len < sizeof(struct udphdr))
		goto short_packet;
	uh = (struct udphdr *)skb->data;
	ulen = ntohs(uh->len);
	if (ulen < sizeof(struct udphdr) || ulen > skb->len)
		goto short_packet;
	UDP_SKB_CB(skb)->saddr = ip_hdr(skb)->saddr;
	UDP_SKB_CB(skb)->sport = uh->source;
	sk = __udp4_lib_lookup(ip_hdr(skb)->daddr, ntohs(uh->dest));
	if (!sk) {
		kfree_skb_reason(skb, SKB_DROP_REASON_NO_SOCKET);
		return 0;
	}
	skb_pull(skb, sizeof(struct udphdr));
	skb->len = ulen - sizeof(struct udphdr);
	__udp_queue_rcv_skb(sk, skb);
	sock_put(sk);
	return 0;
short_packet:
	kfree_skb_reason(skb, SKB_DROP_REASON_PKT_TOO_SMALL);
	return 0;
}

noinline int udp_rcv(struct sk_buff *skb)
{
	return __udp4_lib_rcv(skb);
}

noinline int udp_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *addr_len)
{
	struct sockaddr_in *sin = msg->msg_name;
	struct sk_buff *skb;
	size_t copied;

	for (;;) {
		skb = skb_peek(&sk->sk_receive_queue);
		if (skb)
			break;
		if (sk->sk_shutdown & RCV_SHUTDOWN)
			return 0;
		if (flags & MSG_DONTWAIT)
			return -EAGAIN;
		if (wait_event_interruptible(sk->sk_wq->wait, !skb_queue_empty(&sk->sk_receive_queue) ||
								  (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN)))
			return -ERESTARTSYS;
	}
	copied = min((size_t)skb->len, len);
	if (skb_copy_datagram_iter(skb, 0, &msg->msg_iter, copied))
		return -EFAULT;
	if (sin) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = UDP_SKB_CB(skb)->sport;
		sin->sin_addr.s_addr = UDP_SKB_CB(skb)->saddr;
		*addr_len = sizeof(*sin);
	}
	if (!(flags & MSG_PEEK)) {
		skb_unlink(skb, &sk->sk_receive_queue);
		sk->sk_rmem_alloc -= skb->truesize;
		consume_skb(skb);
	}
	return copied;
}

/* ip4_datagram_connect(): the default destination */
static noinline int udp_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in *usin = (struct sockaddr_in *)uaddr;
	struct inet_sock *inet = inet_sk(sk);
	int err;

	if (addr_len < (int)sizeof(*usin))
		return -EINVAL;
	if (usin->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (usin->sin_addr.s_addr && !ipv4_is_loopback(usin->sin_addr.s_addr))
		return -ENETUNREACH;
	lock_sock(sk);
	err = udp_lib_get_port(sk);
	if (!err) {
		if (!inet->inet_saddr)
			inet->inet_saddr = htonl(INADDR_LOOPBACK);
		inet->inet_daddr = usin->sin_addr.s_addr ? : htonl(INADDR_LOOPBACK);
		inet->inet_dport = usin->sin_port;
		sk->sk_state = TCP_ESTABLISHED;
	}
	release_sock(sk);
	return err;
}

static noinline void udp_lib_close(struct sock *sk, long timeout)
{
	lock_sock(sk);
	sk->sk_state = TCP_CLOSE;
	sk->sk_shutdown = SHUTDOWN_MASK;
	release_sock(sk);
	inet_put_port(sk);
	sock_put(sk);
}

static noinline int inet_dgram_connect(struct socket *sock, struct sockaddr *uaddr, int addr_len, int flags)
{
	int err = sock->sk->sk_prot->connect(sock->sk, uaddr, addr_len);

	if (!err)
		sock->state = SS_CONNECTED;
	return err;
}

struct proto udp_prot = {
	.name = "UDP",
	.obj_size = sizeof(struct inet_sock),
	.close = udp_lib_close,
	.connect = udp_connect,
	.sendmsg = udp_sendmsg,
	.recvmsg = udp_recvmsg,
};

int inet_release(struct socket *sock);
int inet_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len);
int inet_getname(struct socket *sock, struct sockaddr *uaddr, int peer);
int inet_sendmsg(struct socket *sock, struct msghdr *msg, size_t size);
int inet_recvmsg(struct socket *sock, struct msghdr *msg, size_t size, int flags);
int inet_shutdown(struct socket *sock, int how);

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
