/*
 * TCP over IPv6 (Linux's net/ipv6/tcp_ipv6.c): tcp_v6_connect (::1, or through tcp_v4_connect
 * for an IPv4-mapped address, the socket's af_ops then ipv6_mapped), tcp_v6_rcv (the socket by
 * __inet6_lookup_established then inet6_lookup_listener), tcp_v6_do_rcv (an IPv4 segment of a
 * dual-stack socket goes to tcp_v4_do_rcv), a listener's requests (tcp_v6_conn_request,
 * tcp_v6_send_synack, tcp_v6_syn_recv_sock: an IPv4 request's child is IPv4-mapped) and resets
 * (tcp_v6_send_reset → tcp_v6_send_response).  tcpv6_prot: the TCPv6 slab's tcp6_sock.
 */
#include "../../include/net.h"
#include "../../include/slab.h"
#include "../../include/trace/trace.h"

#define LOOPBACK4_IPV6	htonl(0x7f000006)	/* 127.0.0.6: an IPv6 socket's IPv4 address */

int tcp_v6_do_rcv(struct sock *sk, struct sk_buff *skb);

noinline int tcp_v6_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in6 *usin = (struct sockaddr_in6 *)uaddr;
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct ipv6_pinfo *np = inet6_sk(sk);
	struct inet_sock *inet = inet_sk(sk);
	int err;

	if (addr_len < SIN6_LEN_RFC2133)
		return -EINVAL;
	if (usin->sin6_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (ipv6_addr_any(&usin->sin6_addr)) {	/* connect to self */
		if (ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr))
			ipv6_addr_set_v4mapped(htonl(INADDR_LOOPBACK), usin->sin6_addr.s6_addr);
		else
			usin->sin6_addr = in6addr_loopback;
	}
	sk->sk_v6_daddr = usin->sin6_addr;
	if (ipv6_addr_v4mapped(&usin->sin6_addr)) {	/* TCP over IPv4 */
		struct sockaddr_in sin;

		if (ipv6_only_sock(sk))
			return -ENETUNREACH;
		sin.sin_family = AF_INET;
		sin.sin_port = usin->sin6_port;
		sin.sin_addr.s_addr = usin->sin6_addr.s6_addr32[3];
		WRITE_ONCE(icsk->icsk_af_ops, &ipv6_mapped);
		sk->sk_backlog_rcv = tcp_v4_do_rcv;
		err = tcp_v4_connect(sk, (struct sockaddr *)&sin, sizeof(sin));
		if (err) {
			WRITE_ONCE(icsk->icsk_af_ops, &ipv6_specific);
			sk->sk_backlog_rcv = tcp_v6_do_rcv;
			return err;
		}
		/* (6.1: ip4_datagram-style rebuild: the v6 view of the v4 addresses) */
		ipv6_addr_set_v4mapped(inet->inet_saddr, np->saddr.s6_addr);
		ipv6_addr_set_v4mapped(inet->inet_rcv_saddr, sk->sk_v6_rcv_saddr.s6_addr);
		ipv6_addr_set_v4mapped(inet->inet_daddr, sk->sk_v6_daddr.s6_addr);
		return 0;
	}
	err = ip6_route_check(ipv6_addr_any(&sk->sk_v6_rcv_saddr) ? NULL : &sk->sk_v6_rcv_saddr, &usin->sin6_addr);
	if (err)
		return err;
	if (ipv6_addr_any(&sk->sk_v6_rcv_saddr))	/* ip6_dst_lookup_flow's source */
		sk->sk_v6_rcv_saddr = in6addr_loopback;
	np->saddr = sk->sk_v6_rcv_saddr;
	inet->inet_rcv_saddr = LOOPBACK4_IPV6;
	inet->inet_dport = usin->sin6_port;
	return tcp_connect_hashed(sk, inet6_hash_connect);
}

/* a reply without a socket of its own: to the segment's source, from its destination */
static noinline void tcp_v6_send_response(const struct sock *sk, struct sk_buff *skb, u32 seq, u32 ack, u8 flags)
{
	const struct tcphdr *th = tcp_hdr(skb);
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	struct sk_buff *rep = alloc_skb(MAX_HEADER, GFP_ATOMIC);

	if (!rep)
		return;
	skb_reserve(rep, MAX_HEADER);
	tcp_push_header(rep, th->dest, th->source, seq, ack, flags, 0);
	ip6_xmit(sk, rep, &ip6h->daddr, &ip6h->saddr, IPPROTO_TCP);
}

/* a reset answering skb (no socket, or one that refuses it) */
noinline void tcp_v6_send_reset(const struct sock *sk, struct sk_buff *skb)
{
	struct tcp_skb_cb *tcb = TCP_SKB_CB(skb);

	if (tcb->tcp_flags & TCPHDR_RST)
		return;
	if (sk)
		trace_tcp_send_reset(sk, skb);
	if (tcb->tcp_flags & TCPHDR_ACK)
		tcp_v6_send_response(sk, skb, tcb->ack_seq, 0, TCPHDR_RST);
	else
		tcp_v6_send_response(sk, skb, 0, tcb->end_seq, TCPHDR_RST | TCPHDR_ACK);
}

noinline int tcp_v6_send_synack(const struct sock *sk, struct request_sock *req)
{
	struct sk_buff *skb = tcp_synack_skb(sk, req);

	if (!skb)
		return -ENOMEM;
	return ip6_xmit(sk, skb, &req->__req_common.skc_v6_rcv_saddr, &req->__req_common.skc_v6_daddr,
			IPPROTO_TCP);
}

/* tcp_v6_init_req() */
static notrace void tcp_v6_init_req(struct request_sock *req, const struct sock *sk_listener, struct sk_buff *skb)
{
	req->__req_common.skc_family = AF_INET6;
	req->__req_common.skc_v6_daddr = ipv6_hdr(skb)->saddr;
	req->__req_common.skc_v6_rcv_saddr = ipv6_hdr(skb)->daddr;
}

static const struct tcp_request_sock_ops tcp_request_sock_ipv6_ops = {
	.init_req = tcp_v6_init_req,
	.send_synack = tcp_v6_send_synack,
};

noinline int tcp_v6_conn_request(struct sock *sk, struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return tcp_v4_conn_request(sk, skb);
	return tcp_conn_request(&tcp_request_sock_ipv6_ops, sk, skb);
}

/* the request is answered: the child, IPv6 (or an IPv4 request's: IPv4-mapped) */
noinline struct sock *tcp_v6_syn_recv_sock(const struct sock *sk, struct sk_buff *skb, struct request_sock *req)
{
	struct inet_sock *newinet;
	struct sock *newsk;

	if (skb->protocol == htons(ETH_P_IP)) {
		newsk = tcp_v4_syn_recv_sock(sk, skb, req);
		if (!newsk)
			return NULL;
		newinet = inet_sk(newsk);
		newinet->pinet6 = &((struct tcp6_sock *)newsk)->inet6;
		ipv6_addr_set_v4mapped(newinet->inet_daddr, newsk->sk_v6_daddr.s6_addr);
		ipv6_addr_set_v4mapped(newinet->inet_saddr, newinet->pinet6->saddr.s6_addr);
		newsk->sk_v6_rcv_saddr = newinet->pinet6->saddr;
		inet_csk(newsk)->icsk_af_ops = &ipv6_mapped;
		newsk->sk_backlog_rcv = tcp_v4_do_rcv;
		newsk->sk_ipv6only = 0;
		tcp_sk(newsk)->mss_cache = tcp_mss_for_mtu(newsk, loopback_dev->mtu);
		return newsk;
	}
	newsk = tcp_create_openreq_child(sk, req, skb);
	if (!newsk)
		return NULL;
	newinet = inet_sk(newsk);
	newinet->pinet6 = &((struct tcp6_sock *)newsk)->inet6;
	newinet->pinet6->saddr = req->__req_common.skc_v6_rcv_saddr;
	newinet->pinet6->hop_limit = 64;
	newinet->inet_daddr = newinet->inet_saddr = LOOPBACK4_IPV6;
	newinet->inet_rcv_saddr = LOOPBACK4_IPV6;
	newsk->sk_ipv6only = sk->sk_ipv6only;
	__inet_inherit_port(sk, newsk);
	inet_ehash_nolisten(newsk, NULL, NULL);
	return newsk;
}

noinline int tcp_v6_do_rcv(struct sock *sk, struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))	/* a dual-stack socket's IPv4 segment */
		return tcp_v4_do_rcv(sk, skb);
	return tcp_do_rcv_common(sk, skb, tcp_v6_send_reset);
}

static noinline void tcp_v6_fill_cb(struct sk_buff *skb, const struct ipv6hdr *hdr, const struct tcphdr *th)
{
	tcp_fill_cb_common(skb, th);
}

/* the segment's socket (tcp_v6_rcv's lookup), its control block filled */
static __always_inline struct sock *tcp_v6_lookup(struct sk_buff *skb, const struct tcphdr *th)
{
	const struct ipv6hdr *hdr = ipv6_hdr(skb);
	struct sock *sk;

	tcp_v6_fill_cb(skb, hdr, th);
	sk = __inet6_lookup_established(&hdr->saddr, th->source, &hdr->daddr, ntohs(th->dest));
	return sk ? : inet6_lookup_listener(&hdr->daddr, ntohs(th->dest));
}

noinline int tcp_v6_rcv(struct sk_buff *skb)
{
	return tcp_rcv_common(skb, tcp_v6_lookup, tcp_v6_send_reset, tcp_v6_do_rcv);
}

const struct inet_connection_sock_af_ops ipv6_specific = {
	.queue_xmit = inet6_csk_xmit,
	.conn_request = tcp_v6_conn_request,
	.syn_recv_sock = tcp_v6_syn_recv_sock,
	.net_header_len = sizeof(struct ipv6hdr),
	.setsockopt = ipv6_setsockopt,
	.getsockopt = ipv6_getsockopt,
};

/* an AF_INET6 socket's IPv4-mapped connection */
const struct inet_connection_sock_af_ops ipv6_mapped = {
	.queue_xmit = ip_queue_xmit,
	.conn_request = tcp_v6_conn_request,
	.syn_recv_sock = tcp_v6_syn_recv_sock,
	.net_header_len = sizeof(struct iphdr),
	.setsockopt = ipv6_setsockopt,
	.getsockopt = ipv6_getsockopt,
};

noinline int tcp_v6_init_sock(struct sock *sk)
{
	tcp_init_sock(sk);
	inet_csk(sk)->icsk_af_ops = &ipv6_specific;
	return 0;
}

struct proto tcpv6_prot = {
	.name = "TCPv6",
	.obj_size = sizeof(struct tcp6_sock),
	.close = tcp_close,
	.connect = tcp_v6_connect,
	.disconnect = tcp_disconnect,
	.shutdown = tcp_shutdown,
	.ioctl = tcp_ioctl,
	.sendpage = tcp_sendpage,
	.sendmsg = tcp_sendmsg,
	.recvmsg = tcp_recvmsg,
	.backlog_rcv = tcp_v6_do_rcv,
	.init = tcp_v6_init_sock,
	.destroy = tcp_v4_destroy_sock,
	.hash = inet6_hash,
	.unhash = inet_unhash,
	.get_port = inet_csk_get_port,
	.no_autobind = true,
	.setsockopt = tcp_setsockopt,
	.getsockopt = tcp_getsockopt,
};
