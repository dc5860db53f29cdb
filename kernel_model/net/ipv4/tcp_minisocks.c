/*
 * Requests and children (Linux's net/ipv4/tcp_minisocks.c): tcp_check_req (the ACK of our
 * SYN-ACK turns the request into a child socket, on the listener's accept queue) and
 * tcp_child_process (the child takes the segment: SYN_RECV → ESTABLISHED; the listener's
 * accept() is woken).
 */
#include "../../include/net.h"
#include "../../include/slab.h"

static notrace void reqsk_unlink(struct sock *sk, struct request_sock *req)
{
	struct request_sock **pp = &inet_csk(sk)->icsk_accept_queue.syn_head;

	while (*pp && *pp != req)
		pp = &(*pp)->dl_next;
	if (*pp) {
		*pp = req->dl_next;
		inet_csk(sk)->icsk_accept_queue.qlen--;
	}
}

/* the child of a request: the listener's clone with the request's sequence numbers */
noinline struct sock *tcp_create_openreq_child(const struct sock *sk, struct request_sock *req, struct sk_buff *skb)
{
	struct sock *newsk = inet_csk_clone_lock(sk, req, GFP_ATOMIC);
	struct tcp_sock *newtp;

	if (!newsk)
		return NULL;
	newtp = tcp_sk(newsk);
	newtp->rcv_nxt = req->rcv_isn + 1;
	newtp->copied_seq = newtp->rcv_nxt;
	newtp->segs_in = 1;	/* the SYN */
	newtp->total_retrans = req->num_retrans;
	newtp->snd_una = newtp->snd_nxt = newtp->write_seq = req->snt_isn + 1;
	newtp->snd_wnd = ntohs(tcp_hdr(skb)->window);
	newtp->rcv_wnd = tcp_synack_window(sk);	/* what its SYN-ACK offered */
	newtp->mss_cache = tcp_mss_for_mtu(newsk, loopback_dev->mtu);
	newtp->nonagle = tcp_sk(sk)->nonagle;
	return newsk;
}

noinline struct sock *tcp_check_req(struct sock *sk, struct sk_buff *skb, struct request_sock *req)
{
	struct tcp_skb_cb *tcb = TCP_SKB_CB(skb);
	struct sock *child;

	if (tcb->tcp_flags & TCPHDR_RST) {
		reqsk_unlink(sk, req);
		kfree(req);
		kfree_skb_reason(skb, SKB_DROP_REASON_TCP_RESET);
		return sk;	/* nothing more: the caller sees the listener and returns */
	}
	if (!(tcb->tcp_flags & TCPHDR_ACK) || tcb->ack_seq != req->snt_isn + 1)
		return NULL;	/* reset */
	child = inet_csk(sk)->icsk_af_ops->syn_recv_sock(sk, skb, req);
	if (!child)
		return NULL;
	tcp_synack_rtt_meas(child, req);
	reqsk_unlink(sk, req);
	kfree(req);
	inet_csk_reqsk_queue_add(sk, child);	/* inet_csk_complete_hashdance() */
	return child;
}

noinline int tcp_child_process(struct sock *parent, struct sock *child, struct sk_buff *skb)
{
	int ret;

	if (child == parent)
		return 0;
	bh_lock_sock(child);
	tcp_segs_in(tcp_sk(child), skb);
	ret = tcp_rcv_state_process(child, skb);
	bh_unlock_sock(child);
	parent->sk_data_ready(parent);
	return ret;	/* the caller resets */
}
