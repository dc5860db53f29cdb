/*
 * TCP input (Linux's net/ipv4/tcp_input.c): tcp_rcv_established (tcp_ack, then
 * tcp_data_queue), tcp_rcv_state_process for every other state (LISTEN: a SYN makes a request,
 * tcp_v4_conn_request; SYN_SENT: tcp_rcv_synsent_state_process, tcp_finish_connect;
 * SYN_RECV → ESTABLISHED; the FIN states), tcp_fin, tcp_reset (tcp:tcp_receive_reset).  In
 * order data only: a segment past a gap is dropped and comes again with the retransmission.
 */
#include "../../include/net.h"
#include "../../include/trace/trace.h"

static notrace bool before(u32 seq1, u32 seq2) { return (s32)(seq1 - seq2) < 0; }
#define after(seq2, seq1) before(seq1, seq2)

/* the receiver's buffer autotuning (DRS) is not modelled: its tracepoint, at its start, fires */
noinline void tcp_rcv_space_adjust(struct sock *sk)
{
	trace_tcp_rcv_space_adjust(sk);
}

static noinline void tcp_drop_reason(struct sock *sk, struct sk_buff *skb, enum skb_drop_reason reason)
{
	kfree_skb_reason(skb, reason);
}

noinline void tcp_reset(struct sock *sk, struct sk_buff *skb)
{
	int err;

	trace_tcp_receive_reset(sk);
	switch (sk->sk_state) {
	case TCP_SYN_SENT:
		err = ECONNREFUSED;
		break;
	case TCP_CLOSE_WAIT:
		err = EPIPE;
		break;
	case TCP_CLOSE:
		return;
	default:
		err = ECONNRESET;
	}
	tcp_done_with_error(sk, err);
}

/* tcp_time_wait(): the connection is over for us (no TIME_WAIT socket is kept) */
static noinline void tcp_time_wait(struct sock *sk, int state, int timeo)
{
	tcp_done(sk);
}

static noinline void tcp_fin(struct sock *sk)
{
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | RCV_SHUTDOWN);
	sock_set_flag(sk, SOCK_DONE);
	switch (sk->sk_state) {
	case TCP_SYN_RECV:
	case TCP_ESTABLISHED:
		tcp_set_state(sk, TCP_CLOSE_WAIT);
		break;
	case TCP_FIN_WAIT1:
		tcp_send_ack(sk);
		tcp_set_state(sk, TCP_CLOSING);
		break;
	case TCP_FIN_WAIT2:
		tcp_send_ack(sk);
		tcp_time_wait(sk, TCP_TIME_WAIT, 0);
		return;
	default:
		break;
	}
	if (!sock_flag(sk, SOCK_DEAD))
		sk->sk_state_change(sk);
}

/* the acked part of the retransmit queue goes; the peer's window is noted */
static noinline int tcp_clean_rtx_queue(struct sock *sk, u32 ack)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct sk_buff *skb;
	int acked = 0;

	while ((skb = skb_peek(&tp->rtx_queue)) != NULL && !after(TCP_SKB_CB(skb)->end_seq, ack)) {
		skb_unlink(skb, &tp->rtx_queue);
		sk->sk_wmem_queued -= skb->truesize;
		__kfree_skb(skb);
		acked++;
	}
	return acked;
}

static noinline int tcp_ack(struct sock *sk, const struct sk_buff *skb)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 ack = TCP_SKB_CB(skb)->ack_seq;

	if (after(ack, tp->snd_nxt))
		return -1;	/* acks what we did not send */
	tp->snd_wnd = ntohs(tcp_hdr(skb)->window);
	if (before(ack, tp->snd_una))
		return 0;	/* old */
	if (after(ack, tp->snd_una)) {
		tp->snd_una = ack;
		tcp_clean_rtx_queue(sk, ack);
		icsk->icsk_retransmits = 0;
		icsk->icsk_backoff = 0;
		icsk->icsk_rto = TCP_RTO_MIN;	/* a loopback's round trip is next to nothing */
		tcp_rearm_rto(sk);
		if (sk->sk_socket && sk->sk_wmem_queued < sk->sk_sndbuf)
			sk->sk_write_space(sk);
	}
	tcp_push(sk);	/* the window may let more go */
	return 1;
}

static noinline void tcp_data_queue(struct sock *sk, struct sk_buff *skb)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_skb_cb *tcb = TCP_SKB_CB(skb);
	bool fin = tcb->tcp_flags & TCPHDR_FIN;

	if (tcb->seq == tcb->end_seq) {
		__kfree_skb(skb);
		return;
	}
	if (tcb->seq == tp->rcv_nxt) {
		if (skb->len && sk->sk_rmem_alloc + (int)skb->truesize > sk->sk_rcvbuf &&
		    !skb_queue_empty(&sk->sk_receive_queue)) {
			/* tcp_try_rmem_schedule() failed: no room, the sender will retransmit */
			tcp_send_ack(sk);
			tcp_drop_reason(sk, skb, SKB_DROP_REASON_PROTO_MEM);
			return;
		}
		tp->rcv_nxt = tcb->end_seq;
		if (skb->len) {
			skb->sk = sk;
			skb_queue_tail(&sk->sk_receive_queue, skb);
			sk->sk_rmem_alloc += skb->truesize;
		}
		if (fin)
			tcp_fin(sk);
		if (!sock_flag(sk, SOCK_DEAD))
			sk->sk_data_ready(sk);
		tcp_send_ack(sk);
		if (!skb->len)
			__kfree_skb(skb);
		return;
	}
	tcp_send_ack(sk);	/* a duplicate ack tells the sender where we are */
	if (!after(tcb->end_seq, tp->rcv_nxt))
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_OLD_DATA);
	else
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_OFO_DROP);
}

noinline void tcp_rcv_established(struct sock *sk, struct sk_buff *skb)
{
	u8 flags = TCP_SKB_CB(skb)->tcp_flags;

	if (flags & TCPHDR_RST) {
		tcp_reset(sk, skb);
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_RESET);
		return;
	}
	if (flags & TCPHDR_SYN) {
		tcp_send_ack(sk);
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_INVALID_SYN);
		return;
	}
	if (!(flags & TCPHDR_ACK)) {
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_FLAGS);
		return;
	}
	tcp_ack(sk, skb);
	tcp_data_queue(sk, skb);
}

static noinline void tcp_finish_connect(struct sock *sk, struct sk_buff *skb)
{
	tcp_set_state(sk, TCP_ESTABLISHED);
	if (skb)
		security_inet_conn_established(sk, skb);
	if (!sock_flag(sk, SOCK_DEAD))
		sk->sk_state_change(sk);
}

/* <0: done here (skb freed by the caller); 1: answer with a reset */
static noinline int tcp_rcv_synsent_state_process(struct sock *sk, struct sk_buff *skb)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_skb_cb *tcb = TCP_SKB_CB(skb);

	if (tcb->tcp_flags & TCPHDR_ACK) {
		if (tcb->ack_seq != tp->snd_nxt)
			return 1;
		if (tcb->tcp_flags & TCPHDR_RST) {
			tcp_reset(sk, skb);
			return 0;
		}
		if (!(tcb->tcp_flags & TCPHDR_SYN))
			return 0;
		tp->rcv_nxt = tcb->seq + 1;
		tp->copied_seq = tp->rcv_nxt;
		tcp_ack(sk, skb);
		tcp_finish_connect(sk, skb);
		tcp_send_ack(sk);
		return -1;
	}
	return 0;	/* a bare SYN (simultaneous open) or no ACK: dropped */
}

noinline int tcp_rcv_state_process(struct sock *sk, struct sk_buff *skb)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_skb_cb *tcb = TCP_SKB_CB(skb);
	u8 flags = tcb->tcp_flags;
	int queued;

	switch (sk->sk_state) {
	case TCP_CLOSE:
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_CLOSE);
		return 0;
	case TCP_LISTEN:
		if (flags & TCPHDR_ACK)
			return 1;
		if (flags & TCPHDR_RST) {
			tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_RESET);
			return 0;
		}
		if (flags & TCPHDR_SYN) {
			if (inet_csk(sk)->icsk_af_ops->conn_request(sk, skb) < 0)
				return 1;
			consume_skb(skb);
			return 0;
		}
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_FLAGS);
		return 0;
	case TCP_SYN_SENT:
		queued = tcp_rcv_synsent_state_process(sk, skb);
		if (queued > 0)
			return queued;
		__kfree_skb(skb);
		return 0;
	}
	if (flags & TCPHDR_RST) {
		tcp_reset(sk, skb);
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_RESET);
		return 0;
	}
	if (!(flags & TCPHDR_ACK)) {
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_FLAGS);
		return 0;
	}
	if (tcp_ack(sk, skb) < 0) {
		if (sk->sk_state == TCP_SYN_RECV)
			return 1;
		tcp_send_ack(sk);
		tcp_drop_reason(sk, skb, SKB_DROP_REASON_TCP_ACK_UNSENT_DATA);
		return 0;
	}
	switch (sk->sk_state) {
	case TCP_SYN_RECV:
		tcp_set_state(sk, TCP_ESTABLISHED);
		if (!sock_flag(sk, SOCK_DEAD))
			sk->sk_state_change(sk);
		break;
	case TCP_FIN_WAIT1:
		if (tp->snd_una == tp->write_seq) {	/* our FIN is acked */
			tcp_set_state(sk, TCP_FIN_WAIT2);
			WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | SEND_SHUTDOWN);
			if (!sock_flag(sk, SOCK_DEAD))
				sk->sk_state_change(sk);
		}
		break;
	case TCP_CLOSING:
		if (tp->snd_una == tp->write_seq) {
			tcp_time_wait(sk, TCP_TIME_WAIT, 0);
			__kfree_skb(skb);
			return 0;
		}
		break;
	case TCP_LAST_ACK:
		if (tp->snd_una == tp->write_seq) {
			tcp_done(sk);
			__kfree_skb(skb);
			return 0;
		}
		break;
	}
	switch (sk->sk_state) {
	case TCP_CLOSE_WAIT:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
		if (!before(tcb->seq, tp->rcv_nxt)) {	/* data after their FIN: ignored */
			__kfree_skb(skb);
			return 0;
		}
		fallthrough;
	case TCP_FIN_WAIT1:
	case TCP_FIN_WAIT2:
	case TCP_ESTABLISHED:
		tcp_data_queue(sk, skb);
		return 0;
	}
	__kfree_skb(skb);
	return 0;
}
