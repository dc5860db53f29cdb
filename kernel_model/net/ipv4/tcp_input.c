/*
 * TCP input (Linux's net/ipv4/tcp_input.c): tcp_rcv_established (tcp_ack, then
 * tcp_data_queue), tcp_rcv_state_process for every other state (LISTEN: a SYN makes a request,
 * tcp_v4_conn_request; SYN_SENT: tcp_rcv_synsent_state_process, tcp_finish_connect;
 * SYN_RECV → ESTABLISHED; the FIN states), tcp_fin, tcp_reset (tcp:tcp_receive_reset).  In
 * order data only: a segment past a gap is dropped and comes again with the retransmission.
 * The socket's counters as 6.1 keeps them: bytes_received (tcp_rcv_nxt_update), bytes_acked
 * (tcp_snd_una_update), delivered, the RTT estimate from the acked segments' send times
 * (tcp_ack_update_rtt → tcp_rtt_estimator, tcp_set_rto), the congestion window (Reno's slow
 * start and additive increase: tcp_reno_cong_avoid; tcp_enter_loss on a timeout).
 */
#include "../../include/net.h"
#include "../../include/trace/trace.h"

static notrace bool before(u32 seq1, u32 seq2) { return (s32)(seq1 - seq2) < 0; }
#define after(seq2, seq1) before(seq1, seq2)

#define FLAG_DATA_ACKED		0x04	/* this ACK acknowledged new data */
#define FLAG_RETRANS_DATA_ACKED	0x08	/* ... some of which was retransmitted */
#define FLAG_SYN_ACKED		0x10	/* this ACK acknowledged SYN */
#define FLAG_SND_UNA_ADVANCED	0x400	/* snd_una was changed (!= FLAG_DATA_ACKED) */
#define FLAG_ACKED		(FLAG_DATA_ACKED | FLAG_SYN_ACKED)

/* If we update tp->snd_una, also update tp->bytes_acked */
static __always_inline void tcp_snd_una_update(struct tcp_sock *tp, u32 ack)
{
	u32 delta = ack - tp->snd_una;

	tp->bytes_acked += delta;
	tp->snd_una = ack;
}

/* If we update tp->rcv_nxt, also update tp->bytes_received */
static __always_inline void tcp_rcv_nxt_update(struct tcp_sock *tp, u32 seq)
{
	u32 delta = seq - tp->rcv_nxt;

	tp->bytes_received += delta;
	WRITE_ONCE(tp->rcv_nxt, seq);
}

static __always_inline u32 tcp_rto_min_us(const struct sock *sk)
{
	return jiffies_to_usecs(inet_csk(sk)->icsk_rto_min);
}

/* Jacobson's estimator (SIGCOMM '88): srtt_us is 8 times the smoothed RTT, mdev_us 4 times its
 * mean deviation; rttvar_us the largest mdev of the last RTT, at least the minimal RTO */
static __always_inline void tcp_rtt_estimator(struct sock *sk, long mrtt_us)
{
	struct tcp_sock *tp = tcp_sk(sk);
	long m = mrtt_us; /* RTT */
	u32 srtt = tp->srtt_us;

	if (srtt != 0) {
		m -= (srtt >> 3);	/* m is now error in rtt est */
		srtt += m;		/* rtt = 7/8 rtt + 1/8 new */
		if (m < 0) {
			m = -m;		/* m is now abs(error) */
			m -= (tp->mdev_us >> 2);   /* similar update on mdev */
			/* a falling RTT moves mdev by a finer gain (as Eifel) */
			if (m > 0)
				m >>= 3;
		} else {
			m -= (tp->mdev_us >> 2);   /* similar update on mdev */
		}
		tp->mdev_us += m;		/* mdev = 3/4 mdev + 1/4 new */
		if (tp->mdev_us > tp->mdev_max_us) {
			tp->mdev_max_us = tp->mdev_us;
			if (tp->mdev_max_us > tp->rttvar_us)
				tp->rttvar_us = tp->mdev_max_us;
		}
		if (after(tp->snd_una, tp->rtt_seq)) {
			if (tp->mdev_max_us < tp->rttvar_us)
				tp->rttvar_us -= (tp->rttvar_us - tp->mdev_max_us) >> 2;
			tp->rtt_seq = tp->snd_nxt;
			tp->mdev_max_us = tcp_rto_min_us(sk);
		}
	} else {
		/* no previous measure. */
		srtt = m << 3;		/* take the measured time to be rtt */
		tp->mdev_us = m << 1;	/* make sure rto = 3*rtt */
		tp->rttvar_us = max(tp->mdev_us, tcp_rto_min_us(sk));
		tp->mdev_max_us = tp->rttvar_us;
		tp->rtt_seq = tp->snd_nxt;
	}
	tp->srtt_us = max(1U, srtt);
}

/* RTO = srtt + 4 * rttvar (RFC6298), at most TCP_RTO_MAX */
static __always_inline void tcp_set_rto(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	inet_csk(sk)->icsk_rto = usecs_to_jiffies((tp->srtt_us >> 3) + tp->rttvar_us);	/* __tcp_set_rto() */
	if (inet_csk(sk)->icsk_rto > TCP_RTO_MAX)	/* tcp_bound_rto() */
		inet_csk(sk)->icsk_rto = TCP_RTO_MAX;
}

/* an RTT sample (no timestamps option here: the acked segment's send time only) */
static noinline bool tcp_ack_update_rtt(struct sock *sk, const int flag, long seq_rtt_us, long sack_rtt_us,
					long ca_rtt_us)
{
	if (seq_rtt_us < 0)
		seq_rtt_us = sack_rtt_us;
	if (seq_rtt_us < 0)
		return false;
	tcp_rtt_estimator(sk, seq_rtt_us);
	tcp_set_rto(sk);
	/* RFC6298: only reset backoff on valid RTT measurement. */
	inet_csk(sk)->icsk_backoff = 0;
	return true;
}

/* the child's first RTT: from its request's SYN-ACK to the ACK that made it (none if the
 * SYN-ACK went again) */
noinline void tcp_synack_rtt_meas(struct sock *sk, struct request_sock *req)
{
	long rtt_us = -1L;

	if (req && !req->num_retrans && req->snt_synack)
		rtt_us = (long)(tcp_clock_us() - req->snt_synack);
	tcp_ack_update_rtt(sk, FLAG_SYN_ACKED, rtt_us, -1L, rtt_us);
}

/* slow start: the window grows by what was acked, up to snd_ssthresh; what is left over */
noinline u32 tcp_slow_start(struct tcp_sock *tp, u32 acked)
{
	u32 cwnd = min(tcp_snd_cwnd(tp) + acked, tp->snd_ssthresh);

	acked -= cwnd - tcp_snd_cwnd(tp);
	tcp_snd_cwnd_set(tp, min(cwnd, tp->snd_cwnd_clamp));
	return acked;
}

/* congestion avoidance: one segment more a window's worth of acked segments (w) */
noinline void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w, u32 acked)
{
	/* If credits accumulated at a higher w, apply them gently now. */
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + 1);
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= w) {
		u32 delta = tp->snd_cwnd_cnt / w;

		tp->snd_cwnd_cnt -= delta * w;
		tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + delta);
	}
	tcp_snd_cwnd_set(tp, min(tcp_snd_cwnd(tp), tp->snd_cwnd_clamp));
}

static __always_inline bool tcp_is_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (tp->is_cwnd_limited)
		return true;
	/* If in slow start, ensure cwnd grows to twice what was ACKed. */
	if (tcp_in_slow_start(tp))
		return tcp_snd_cwnd(tp) < 2 * tp->max_packets_out;
	return false;
}

/* Reno, the congestion control here (Debian's default is CUBIC, whose slow start is this one) */
noinline void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!tcp_is_cwnd_limited(sk))
		return;
	/* In "safe" area, increase. */
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	/* In dangerous area, increase slowly. */
	tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), acked);
}

noinline u32 tcp_reno_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return max(tcp_snd_cwnd(tp) >> 1U, 2U);
}

static __always_inline void tcp_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);	/* icsk_ca_ops->cong_avoid */
	tcp_sk(sk)->snd_cwnd_stamp = tcp_jiffies32;
}

/* a retransmission timeout: all in flight is lost (tcp_timeout_mark_lost), the window is one
 * segment more than what is still in flight, the threshold halved unless it was this loss's */
noinline void tcp_enter_loss(struct sock *sk)
{
	const struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct sk_buff *skb;

	for (skb = tp->rtx_queue.next; skb != (struct sk_buff *)&tp->rtx_queue; skb = skb->next) {
		struct tcp_skb_cb *tcb = TCP_SKB_CB(skb);

		if (tcb->sacked & TCPCB_SACKED_RETRANS) {	/* tcp_mark_skb_lost() */
			tcb->sacked &= ~TCPCB_SACKED_RETRANS;
			tp->retrans_out--;
		}
		if (!(tcb->sacked & TCPCB_LOST)) {
			tcb->sacked |= TCPCB_LOST;
			tp->lost_out++;
		}
	}
	/* Reduce ssthresh if it has not yet been made inside this window. */
	if (icsk->icsk_ca_state <= TCP_CA_Disorder || !after(tp->high_seq, tp->snd_una) ||
	    (icsk->icsk_ca_state == TCP_CA_Loss && !icsk->icsk_retransmits))
		tp->snd_ssthresh = tcp_reno_ssthresh(sk);	/* icsk_ca_ops->ssthresh */
	tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + 1);
	tp->snd_cwnd_cnt = 0;
	tp->snd_cwnd_stamp = tcp_jiffies32;
	tcp_set_ca_state(sk, TCP_CA_Loss);
	tp->high_seq = tp->snd_nxt;
}

/* the transfer begins (the handshake done): the initial congestion window, or one segment after
 * more than one SYN or SYN-ACK went again */
noinline void tcp_init_transfer(struct sock *sk, int bpf_op, struct sk_buff *skb)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (tp->total_retrans > 1)	/* (6.1: and tp->undo_marker) */
		tcp_snd_cwnd_set(tp, 1);
	else
		tcp_snd_cwnd_set(tp, TCP_INIT_CWND);	/* tcp_init_cwnd(): no route metrics here */
	tp->snd_cwnd_stamp = tcp_jiffies32;
}

/* the receiver's buffer autotuning (DRS) is not modelled: its tracepoint, at its start, fires */
noinline void tcp_rcv_space_adjust(struct sock *sk)
{
	trace_tcp_rcv_space_adjust(sk);
}

static notrace noinline void tcp_drop_reason(struct sock *sk, struct sk_buff *skb, enum skb_drop_reason reason)
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
	if (!sock_flag(sk, SOCK_DEAD)) {
		sk->sk_state_change(sk);
		/* an O_ASYNC owner: the peer's end of data; or hang-up, if ours is done too */
		if (sk->sk_shutdown == SHUTDOWN_MASK || sk->sk_state == TCP_CLOSE)
			sk_wake_async(sk, SOCK_WAKE_WAITD, POLL_HUP);
		else
			sk_wake_async(sk, SOCK_WAKE_WAITD, POLL_IN);
	}
}

/* the acked part of the retransmit queue goes: the segments in flight and delivered, an RTT
 * sample from the first and the last acked that never went again (Karn); the FLAG_*s */
static notrace noinline int tcp_clean_rtx_queue(struct sock *sk, u32 ack)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 first_ackt = 0, last_ackt = 0;
	long seq_rtt_us = -1L, ca_rtt_us = -1L;
	struct sk_buff *skb;
	int flag = 0;

	while ((skb = skb_peek(&tp->rtx_queue)) != NULL && !after(TCP_SKB_CB(skb)->end_seq, ack)) {
		struct tcp_skb_cb *scb = TCP_SKB_CB(skb);
		u8 sacked = scb->sacked;

		if (sacked & TCPCB_EVER_RETRANS) {
			if (sacked & TCPCB_SACKED_RETRANS)
				tp->retrans_out--;
			flag |= FLAG_RETRANS_DATA_ACKED;
		} else {
			last_ackt = skb->skb_mstamp_ns / 1000;	/* tcp_skb_timestamp_us() */
			if (!first_ackt)
				first_ackt = last_ackt;
		}
		if (sacked & TCPCB_LOST)
			tp->lost_out--;
		tp->packets_out--;
		tp->delivered++;	/* tcp_count_delivered() */
		flag |= (scb->tcp_flags & TCPHDR_SYN) ? FLAG_SYN_ACKED : FLAG_DATA_ACKED;
		skb_unlink(skb, &tp->rtx_queue);
		sk->sk_wmem_queued -= skb->truesize;
		__kfree_skb(skb);
	}
	if (first_ackt && !(flag & FLAG_RETRANS_DATA_ACKED)) {
		seq_rtt_us = (long)(tp->tcp_mstamp - first_ackt);
		ca_rtt_us = (long)(tp->tcp_mstamp - last_ackt);
	}
	tcp_ack_update_rtt(sk, flag, seq_rtt_us, -1L, ca_rtt_us);
	return flag;
}

static noinline int tcp_ack(struct sock *sk, const struct sk_buff *skb)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 ack = TCP_SKB_CB(skb)->ack_seq;
	u32 prior_delivered = tp->delivered;
	int flag;

	if (after(ack, tp->snd_nxt))
		return -1;	/* acks what we did not send */
	tp->snd_wnd = ntohs(tcp_hdr(skb)->window);
	if (before(ack, tp->snd_una))
		return 0;	/* old */
	if (after(ack, tp->snd_una)) {
		icsk->icsk_retransmits = 0;
		tcp_snd_una_update(tp, ack);
		flag = FLAG_SND_UNA_ADVANCED | tcp_clean_rtx_queue(sk, ack);
		/* the loss is over once what was in flight at the timeout is acked (tcp_process_loss) */
		if (icsk->icsk_ca_state == TCP_CA_Loss && !before(tp->snd_una, tp->high_seq))
			tcp_set_ca_state(sk, TCP_CA_Open);
		if (flag & FLAG_DATA_ACKED)	/* tcp_cong_control(): tcp_may_raise_cwnd() */
			tcp_cong_avoid(sk, ack, tp->delivered - prior_delivered);
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
		tcp_rcv_nxt_update(tp, tcb->end_seq);
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

	/* TCP congestion window tracking */
	trace_tcp_probe(sk, skb);

	tcp_mstamp_refresh(tcp_sk(sk));
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
	tcp_init_transfer(sk, 0, skb);	/* (BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB: no sock_ops here) */
	if (!sock_flag(sk, SOCK_DEAD)) {
		sk->sk_state_change(sk);
		sk_wake_async(sk, SOCK_WAKE_IO, POLL_OUT);	/* connected: it may write */
	}
}

/* <0: done here (skb freed by the caller); 1: answer with a reset */
static notrace noinline int tcp_rcv_synsent_state_process(struct sock *sk, struct sk_buff *skb)
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

	tcp_mstamp_refresh(tp);
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
		tp->delivered++; /* SYN-ACK delivery isn't tracked in tcp_ack */
		tcp_init_transfer(sk, 0, skb);	/* (BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB) */
		tcp_set_state(sk, TCP_ESTABLISHED);
		if (!sock_flag(sk, SOCK_DEAD))
			sk->sk_state_change(sk);
		/* (only a crossed SYN's socket has one: a passive child is not yet a socket's) */
		if (sk->sk_socket)
			sk_wake_async(sk, SOCK_WAKE_IO, POLL_OUT);
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
