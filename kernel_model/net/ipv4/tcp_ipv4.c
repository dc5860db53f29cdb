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

struct sock *tcp_check_req(struct sock *sk, struct sk_buff *skb, struct request_sock *req);
int tcp_child_process(struct sock *parent, struct sock *child, struct sk_buff *skb);

noinline int tcp_v4_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in *usin = (struct sockaddr_in *)uaddr;
	struct inet_sock *inet = inet_sk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__be32 daddr;
	int err;

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
	tcp_set_state(sk, TCP_SYN_SENT);
	err = inet_hash_connect(sk);
	if (err)
		goto failure;
	tp->write_seq = (u32)get_random_u64();
	err = tcp_connect(sk);
	if (err)
		goto failure;
	return 0;
failure:
	tcp_set_state(sk, TCP_CLOSE);
	inet->inet_dport = 0;
	return err;
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
	struct sk_buff *skb = alloc_skb(MAX_HEADER, GFP_ATOMIC);
	int window = sk->sk_rcvbuf < TCP_MAX_WINDOW ? sk->sk_rcvbuf : TCP_MAX_WINDOW;

	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, MAX_HEADER);
	tcp_push_header(skb, htons(req->__req_common.skc_num), req->__req_common.skc_dport, req->snt_isn,
			req->rcv_isn + 1, TCPHDR_SYN | TCPHDR_ACK, window);
	return ip_build_and_send_pkt(skb, sk, req->__req_common.skc_rcv_saddr, req->__req_common.skc_daddr,
				     IPPROTO_TCP);
}

static notrace struct request_sock *tcp_find_req(struct sock *sk, const struct sk_buff *skb)
{
	struct request_sock *req;

	for (req = inet_csk(sk)->icsk_accept_queue.syn_head; req; req = req->dl_next)
		if (req->__req_common.skc_daddr == ip_hdr(skb)->saddr &&
		    req->__req_common.skc_dport == tcp_hdr(skb)->source &&
		    req->__req_common.skc_rcv_saddr == ip_hdr(skb)->daddr)
			return req;
	return NULL;
}

/* tcp_conn_request(): a SYN to a listener makes a request and the SYN-ACK; a full queue drops it */
static noinline int tcp_conn_request(struct sock *sk, struct sk_buff *skb)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct request_sock *req = tcp_find_req(sk, skb);

	if (req)	/* their SYN again: our SYN-ACK was lost */
		return tcp_v4_send_synack(sk, req);
	if (icsk->icsk_accept_queue.qlen + sk->sk_ack_backlog >= sk->sk_max_ack_backlog + 1)
		return 0;	/* tcp_listendrop() */
	req = kzalloc(sizeof(*req), GFP_ATOMIC);
	if (!req)
		return 0;
	req->__req_common.skc_state = TCP_NEW_SYN_RECV;
	req->__req_common.skc_family = AF_INET;
	req->__req_common.skc_daddr = ip_hdr(skb)->saddr;
	req->__req_common.skc_rcv_saddr = ip_hdr(skb)->daddr;
	req->__req_common.skc_dport = tcp_hdr(skb)->source;
	req->__req_common.skc_num = sk->sk_num;
	req->rsk_listener = sk;
	req->rcv_isn = TCP_SKB_CB(skb)->seq;
	req->snt_isn = (u32)get_random_u64();
	if (security_inet_conn_request(sk, skb, req)) {
		kfree(req);	/* drop_and_free */
		return 0;
	}
	req->dl_next = icsk->icsk_accept_queue.syn_head;
	icsk->icsk_accept_queue.syn_head = req;
	icsk->icsk_accept_queue.qlen++;
	tcp_v4_send_synack(sk, req);
	return 0;
}

noinline int tcp_v4_conn_request(struct sock *sk, struct sk_buff *skb)
{
	return tcp_conn_request(sk, skb);
}

/* the request is answered: the child socket, hashed, with the request's sequence numbers */
noinline struct sock *tcp_v4_syn_recv_sock(const struct sock *sk, struct sk_buff *skb, struct request_sock *req)
{
	struct sock *newsk = inet_csk_clone_lock(sk, req, GFP_ATOMIC);
	struct tcp_sock *newtp;

	if (!newsk)
		return NULL;
	/* tcp_create_openreq_child() */
	newtp = tcp_sk(newsk);
	newtp->rcv_nxt = req->rcv_isn + 1;
	newtp->copied_seq = newtp->rcv_nxt;
	newtp->snd_una = newtp->snd_nxt = newtp->write_seq = req->snt_isn + 1;
	newtp->snd_wnd = ntohs(tcp_hdr(skb)->window);
	newtp->mss_cache = tcp_mss_for_mtu(loopback_dev->mtu);
	newtp->nonagle = tcp_sk(sk)->nonagle;
	__inet_inherit_port(sk, newsk);
	inet_ehash_nolisten(newsk, NULL, NULL);
	return newsk;
}

/* a listener's segment: the ACK that completes a request, or a SYN, or a stray */
static noinline int tcp_v4_listen_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct request_sock *req = tcp_find_req(sk, skb);

	if (req && !(TCP_SKB_CB(skb)->tcp_flags & TCPHDR_SYN)) {
		struct sock *nsk = tcp_check_req(sk, skb, req);

		if (!nsk)
			return 1;
		return tcp_child_process(sk, nsk, skb);
	}
	return tcp_rcv_state_process(sk, skb);
}

noinline int tcp_v4_do_rcv(struct sock *sk, struct sk_buff *skb)
{
	int rsk;

	if (sk->sk_state == TCP_ESTABLISHED) {
		tcp_rcv_established(sk, skb);
		return 0;
	}
	if (sk->sk_state == TCP_LISTEN)
		rsk = tcp_v4_listen_rcv(sk, skb);
	else
		rsk = tcp_rcv_state_process(sk, skb);
	if (rsk) {
		tcp_v4_send_reset(sk, skb);
		kfree_skb_reason(skb, SKB_DROP_REASON_TCP_FLAGS);
	}
	return 0;
}

noinline int tcp_v4_rcv(struct sk_buff *skb)
{
	enum skb_drop_reason drop_reason = SKB_DROP_REASON_PKT_TOO_SMALL;
	struct tcp_skb_cb *tcb = TCP_SKB_CB(skb);
	const struct iphdr *iph;
	const struct tcphdr *th;
	struct sock *sk;
	unsigned int doff;

	if (skb->len < sizeof(struct tcphdr))
		goto discard_it;
	th = (const struct tcphdr *)skb->data;
	doff = th->doff * 4;
	if (doff < sizeof(struct tcphdr) || skb->len < doff)
		goto discard_it;
	iph = ip_hdr(skb);
	tcb->seq = ntohl(th->seq);
	tcb->tcp_flags = ((const u8 *)th)[13];
	tcb->end_seq = tcb->seq + !!(tcb->tcp_flags & TCPHDR_SYN) + !!(tcb->tcp_flags & TCPHDR_FIN) + skb->len - doff;
	tcb->ack_seq = ntohl(th->ack_seq);
	sk = __inet_lookup_established(iph->saddr, th->source, iph->daddr, ntohs(th->dest));
	if (!sk)
		sk = __inet_lookup_listener(iph->daddr, ntohs(th->dest));
	if (!sk) {
		drop_reason = SKB_DROP_REASON_NO_SOCKET;
		tcp_v4_send_reset(NULL, skb);
		goto discard_it;
	}
	skb_pull(skb, doff);
	bh_lock_sock(sk);
	/*
	 * A listener's segments are processed at once, also while its owner is in accept() or
	 * listen(), as 6.1's lockless listener does (its requests and accept queue are under the
	 * spinlock here): on the backlog, the ACK completing a request and the data right behind
	 * it would both wait for the listener, the data then finding no request (a reset) where
	 * 6.1's lookup finds the child the ACK made.
	 */
	if (sk->sk_state == TCP_LISTEN || !sock_owned_by_user(sk)) {
		tcp_v4_do_rcv(sk, skb);
	} else if (sk_add_backlog(sk, skb, sk->sk_rcvbuf + sk->sk_sndbuf)) {
		bh_unlock_sock(sk);
		sock_put(sk);
		drop_reason = SKB_DROP_REASON_SOCKET_BACKLOG;
		goto discard_it;
	}
	bh_unlock_sock(sk);
	sock_put(sk);
	return 0;
discard_it:
	kfree_skb_reason(skb, drop_reason);
	return 0;
}
