/*
 * TCP over IPv4 (Linux's net/ipv4/tcp_ipv4.c): tcp_v4_connect (route: the loopback network;
 * a local port by inet_hash_connect; the SYN), tcp_v4_rcv (the segment's control block, the
 * socket by __inet_lookup_established then __inet_lookup_listener, processed at once or put
 * on the owner's backlog; a listener's at once), tcp_v4_do_rcv, the requests of a listener (tcp_v4_conn_request,
 * tcp_v4_send_synack, tcp_v4_syn_recv_sock) and resets (tcp_v4_send_reset).
 */
#include "../../include/net.h"
#include "../../include/slab.h"
#include "../../include/trace/trace.h"


noinline int tcp_v4_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in *usin = (struct sockaddr_in *)uaddr;
	struct inet_sock *inet = inet_sk(sk);
	__be32 daddr;

	if (addr_len < (int)sizeof(struct sockaddr_in))
		return -EINVAL;
	if (usin->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	daddr = usin->sin_addr.s_addr;
	if (!daddr)
		daddr = htonl(INADDR_LOOPBACK);	/* 0.0.0.0: this host */
	if (!ipv4_is_loopback(daddr))
		return -ENETUNREACH;		/* the only route is the loopback's */
	if (!inet->inet_saddr)
		inet->inet_saddr = htonl(INADDR_LOOPBACK);
	if (!inet->inet_rcv_saddr)
		inet->inet_rcv_saddr = inet->inet_saddr;
	inet->inet_dport = usin->sin_port;
	inet->inet_daddr = daddr;
	return tcp_connect_hashed(sk, inet_hash_connect);
}

/* a reset answering skb (no socket, or one that refuses it) */
noinline void tcp_v4_send_reset(const struct sock *sk, struct sk_buff *skb)
{
	struct tcphdr *th = tcp_hdr(skb);
	struct tcp_skb_cb *tcb = TCP_SKB_CB(skb);
	struct sk_buff *rep;
	u32 seq, ack;
	u8 flags;

	if (tcb->tcp_flags & TCPHDR_RST)
		return;
	if (tcb->tcp_flags & TCPHDR_ACK) {
		seq = tcb->ack_seq;
		ack = 0;
		flags = TCPHDR_RST;
	} else {
		seq = 0;
		ack = tcb->end_seq;
		flags = TCPHDR_RST | TCPHDR_ACK;
	}
	rep = alloc_skb(MAX_HEADER, GFP_ATOMIC);
	if (!rep)
		return;
	skb_reserve(rep, MAX_HEADER);
	tcp_push_header(rep, th->dest, th->source, seq, ack, flags, 0);
	if (sk)
		trace_tcp_send_reset(sk, skb);
	ip_build_and_send_pkt(rep, sk, ip_hdr(skb)->daddr, ip_hdr(skb)->saddr, IPPROTO_TCP);
}

noinline int tcp_v4_send_synack(const struct sock *sk, struct request_sock *req)
{
	struct sk_buff *skb = tcp_synack_skb(sk, req);

	if (!skb)
		return -ENOMEM;
	return ip_build_and_send_pkt(skb, sk, req->__req_common.skc_rcv_saddr, req->__req_common.skc_daddr,
				     IPPROTO_TCP);
}

/* the request of the listener this segment answers (its addresses, by the segment's family) */
notrace struct request_sock *tcp_find_req(struct sock *sk, const struct sk_buff *skb)
{
	struct request_sock *req;
	bool v6 = skb->protocol == htons(ETH_P_IPV6);

	for (req = inet_csk(sk)->icsk_accept_queue.syn_head; req; req = req->dl_next) {
		if (req->__req_common.skc_dport != tcp_hdr(skb)->source)
			continue;
		if (v6 ? ipv6_addr_equal(&req->__req_common.skc_v6_daddr, &ipv6_hdr(skb)->saddr) &&
			 ipv6_addr_equal(&req->__req_common.skc_v6_rcv_saddr, &ipv6_hdr(skb)->daddr) :
			 req->__req_common.skc_daddr == ip_hdr(skb)->saddr &&
			 req->__req_common.skc_rcv_saddr == ip_hdr(skb)->daddr)
			return req;
	}
	return NULL;
}

/* tcp_v4_init_req(): the request's addresses, the segment's */
static notrace void tcp_v4_init_req(struct request_sock *req, const struct sock *sk_listener, struct sk_buff *skb)
{
	req->__req_common.skc_family = AF_INET;
	req->__req_common.skc_daddr = ip_hdr(skb)->saddr;
	req->__req_common.skc_rcv_saddr = ip_hdr(skb)->daddr;
}

const struct tcp_request_sock_ops tcp_request_sock_ipv4_ops = {
	.init_req = tcp_v4_init_req,
	.send_synack = tcp_v4_send_synack,
};

/* tcp_conn_request() (tcp_input.c): a SYN to a listener makes a request and the SYN-ACK; a full
 * queue drops it */
noinline int tcp_conn_request(const struct tcp_request_sock_ops *af_ops, struct sock *sk, struct sk_buff *skb)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct request_sock *req = tcp_find_req(sk, skb);

	if (req)	/* their SYN again: our SYN-ACK was lost */
		return af_ops->send_synack(sk, req);
	if (icsk->icsk_accept_queue.qlen + sk->sk_ack_backlog >= sk->sk_max_ack_backlog + 1)
		return 0;	/* tcp_listendrop() */
	req = kzalloc(sizeof(*req), GFP_ATOMIC);
	if (!req)
		return 0;
	req->__req_common.skc_state = TCP_NEW_SYN_RECV;
	af_ops->init_req(req, sk, skb);
	req->__req_common.skc_dport = tcp_hdr(skb)->source;
	req->__req_common.skc_num = sk->sk_num;
	req->rsk_listener = sk;
	req->__req_common.skc_net = sk->sk_net;	/* inet_reqsk_alloc(): the listener's namespace */
	req->rcv_isn = TCP_SKB_CB(skb)->seq;
	req->snt_isn = (u32)get_random_u64();
	if (security_inet_conn_request(sk, skb, req)) {
		kfree(req);	/* drop_and_free */
		return 0;
	}
	req->dl_next = icsk->icsk_accept_queue.syn_head;
	icsk->icsk_accept_queue.syn_head = req;
	icsk->icsk_accept_queue.qlen++;
	af_ops->send_synack(sk, req);
	return 0;
}

noinline int tcp_v4_conn_request(struct sock *sk, struct sk_buff *skb)
{
	return tcp_conn_request(&tcp_request_sock_ipv4_ops, sk, skb);
}

/* the request is answered: the child socket, hashed, with the request's sequence numbers */
noinline struct sock *tcp_v4_syn_recv_sock(const struct sock *sk, struct sk_buff *skb, struct request_sock *req)
{
	struct sock *newsk = tcp_create_openreq_child(sk, req, skb);

	if (!newsk)
		return NULL;
	__inet_inherit_port(sk, newsk);
	inet_ehash_nolisten(newsk, NULL, NULL);
	return newsk;
}

noinline int tcp_v4_do_rcv(struct sock *sk, struct sk_buff *skb)
{
	return tcp_do_rcv_common(sk, skb, tcp_v4_send_reset);
}

static noinline void tcp_v4_fill_cb(struct sk_buff *skb, const struct iphdr *iph, const struct tcphdr *th)
{
	tcp_fill_cb_common(skb, th);
}

/* the segment's socket (tcp_v4_rcv's lookup), its control block filled */
static __always_inline struct sock *tcp_v4_lookup(struct sk_buff *skb, const struct tcphdr *th)
{
	const struct iphdr *iph = ip_hdr(skb);
	struct sock *sk;

	tcp_v4_fill_cb(skb, iph, th);
	sk = __inet_lookup_established(iph->saddr, th->source, iph->daddr, ntohs(th->dest));
	return sk ? : __inet_lookup_listener(iph->daddr, ntohs(th->dest));
}

noinline int tcp_v4_rcv(struct sk_buff *skb)
{
	return tcp_rcv_common(skb, tcp_v4_lookup, tcp_v4_send_reset, tcp_v4_do_rcv);
}

const struct inet_connection_sock_af_ops ipv4_specific = {
	.queue_xmit = ip_queue_xmit,
	.conn_request = tcp_v4_conn_request,
	.syn_recv_sock = tcp_v4_syn_recv_sock,
	.net_header_len = sizeof(struct iphdr),
};

noinline int tcp_v4_init_sock(struct sock *sk)
{
	tcp_init_sock(sk);
	inet_csk(sk)->icsk_af_ops = &ipv4_specific;
	return 0;
}
