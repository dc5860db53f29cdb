/*
 * TCP output (Linux's net/ipv4/tcp_output.c): __tcp_transmit_skb (a clone of the queued
 * segment gets the TCP header: ports, sequence, the ack of what came, the flags, the window we
 * offer) → ip_queue_xmit; tcp_write_xmit sends what the peer's window allows from the write
 * queue and keeps it on the retransmit queue until acked; tcp_send_ack, tcp_send_fin,
 * tcp_send_active_reset, tcp_connect (the SYN), tcp_retransmit_skb (tcp:tcp_retransmit_skb).
 * The socket's counters as 6.1 keeps them: segs_out, data_segs_out, bytes_sent, packets_out,
 * bytes_retrans, retrans_out; what goes is bounded by the congestion window (tcp_cwnd_test).
 */
#include "../../include/net.h"
#include "../../include/trace/trace.h"

static notrace bool before(u32 seq1, u32 seq2) { return (s32)(seq1 - seq2) < 0; }
#define after(seq2, seq1) before(seq1, seq2)

/* the window we offer: the free part of the receive buffer, at most 64K (no scaling) */
static notrace noinline u16 tcp_select_window(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int free_space = sk->sk_rcvbuf - sk->sk_rmem_alloc;

	if (free_space < 0)
		free_space = 0;
	if (free_space > TCP_MAX_WINDOW)
		free_space = TCP_MAX_WINDOW;
	tp->rcv_wnd = free_space;
	return free_space;
}

/* the TCP header in front of the data (no options); the ack field only with TCPHDR_ACK */
notrace noinline void tcp_push_header(struct sk_buff *skb, __be16 sport, __be16 dport, u32 seq, u32 ack, u8 flags,
			      u16 window)
{
	struct tcphdr *th = skb_push(skb, sizeof(struct tcphdr));

	skb_reset_transport_header(skb);
	memset(th, 0, sizeof(*th));
	th->source = sport;
	th->dest = dport;
	th->seq = htonl(seq);
	th->ack_seq = (flags & TCPHDR_ACK) ? htonl(ack) : 0;
	((u8 *)th)[12] = (sizeof(struct tcphdr) / 4) << 4;
	((u8 *)th)[13] = flags;
	th->window = htons(window);
}

/* the TCP clock read once for what follows (its RTT samples and send times) */
noinline void tcp_mstamp_refresh(struct tcp_sock *tp)
{
	u64 val = tcp_clock_ns();

	tp->tcp_clock_cache = val;
	tp->tcp_mstamp = val / 1000;	/* div_u64(val, NSEC_PER_USEC) */
}

static noinline int __tcp_transmit_skb(struct sock *sk, struct sk_buff *skb, int clone_it, gfp_t gfp_mask)
{
	struct inet_sock *inet = inet_sk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_skb_cb *tcb;

	skb->skb_mstamp_ns = tp->tcp_clock_cache;	/* the queued one's send time (an RTT sample's start) */
	if (clone_it) {
		skb = skb_clone(skb, gfp_mask);
		if (!skb)
			return -ENOBUFS;
	}
	tcb = TCP_SKB_CB(skb);
	skb->sk = sk;
	if (skb->len) {	/* (before the header goes on: its data) */
		tp->data_segs_out++;
		tp->bytes_sent += skb->len;
	}
	tp->segs_out++;
	tcp_push_header(skb, inet->inet_sport, inet->inet_dport, tcb->seq, tp->rcv_nxt, tcb->tcp_flags,
			tcp_select_window(sk));
	return inet_csk(sk)->icsk_af_ops->queue_xmit(sk, skb);
}

static notrace noinline int tcp_transmit_skb(struct sock *sk, struct sk_buff *skb, int clone_it, gfp_t gfp_mask)
{
	return __tcp_transmit_skb(sk, skb, clone_it, gfp_mask);
}

/* with something unacked, the retransmit timer runs (icsk_rto from now); with nothing, it stops */
noinline void tcp_rearm_rto(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	if (skb_queue_empty(&tcp_sk(sk)->rtx_queue)) {
		icsk->icsk_pending = 0;
		sk_stop_timer(sk, &icsk->icsk_retransmit_timer);
		return;
	}
	icsk->icsk_pending = ICSK_TIME_RETRANS;
	icsk->icsk_timeout = jiffies + icsk->icsk_rto;
	sk_reset_timer(sk, &icsk->icsk_retransmit_timer, icsk->icsk_timeout);
}

static noinline void tcp_event_new_data_sent(struct sock *sk, struct sk_buff *skb)
{
	struct tcp_sock *tp = tcp_sk(sk);
	bool was_empty = skb_queue_empty(&tp->rtx_queue);

	skb_unlink(skb, &sk->sk_write_queue);
	skb_queue_tail(&tp->rtx_queue, skb);
	tp->snd_nxt = TCP_SKB_CB(skb)->end_seq;
	tp->packets_out++;	/* (one segment an skb: tcp_skb_pcount()) */
	if (was_empty || !timer_pending(&inet_csk(sk)->icsk_retransmit_timer))
		tcp_rearm_rto(sk);
}

/* how many more segments the congestion window lets go (a lone FIN always goes) */
static __always_inline u32 tcp_cwnd_test(const struct tcp_sock *tp, const struct sk_buff *skb)
{
	u32 in_flight, cwnd;

	if ((TCP_SKB_CB(skb)->tcp_flags & TCPHDR_FIN) && !skb->len)
		return 1;
	in_flight = tcp_packets_in_flight(tp);
	cwnd = tcp_snd_cwnd(tp);
	return in_flight < cwnd ? cwnd - in_flight : 0;
}

/* what was sent was or was not held back by the window (tcp_cwnd_validate): congestion
 * control grows the window only when it was the limit (tcp_is_cwnd_limited) */
static __always_inline void tcp_cwnd_validate(struct sock *sk, bool is_cwnd_limited)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!before(tp->snd_una, tp->cwnd_usage_seq) || is_cwnd_limited || tp->packets_out > tp->max_packets_out) {
		tp->is_cwnd_limited = is_cwnd_limited;
		tp->max_packets_out = tp->packets_out;
		tp->cwnd_usage_seq = tp->snd_nxt;
	}
}

/* what the congestion window and the peer's window allow; with nothing in flight the head goes
 * past the peer's window anyway (as a window probe would) */
static noinline bool tcp_write_xmit(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct sk_buff *skb;
	bool sent = false, is_cwnd_limited = false;

	tcp_mstamp_refresh(tp);
	while ((skb = skb_peek(&sk->sk_write_queue)) != NULL) {
		bool in_flight = !skb_queue_empty(&tp->rtx_queue);

		if (!tcp_cwnd_test(tp, skb)) {
			is_cwnd_limited = true;
			break;
		}
		if (in_flight && after(TCP_SKB_CB(skb)->end_seq, tp->snd_una + tp->snd_wnd))
			break;
		if (tcp_transmit_skb(sk, skb, 1, GFP_ATOMIC))
			break;
		tcp_event_new_data_sent(sk, skb);
		sent = true;
	}
	if (sent)
		tcp_cwnd_validate(sk, is_cwnd_limited);
	return sent;
}

/* what we have not sent or not had acked, thrown away (a reset, a destroy) */
noinline void tcp_write_queue_purge(struct sock *sk)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&sk->sk_write_queue)) != NULL)
		__kfree_skb(skb);
	while ((skb = skb_dequeue(&tcp_sk(sk)->rtx_queue)) != NULL)
		__kfree_skb(skb);
	sk->sk_wmem_queued = 0;
	tcp_sk(sk)->packets_out = 0;
}

noinline void tcp_push(struct sock *sk)
{
	if (!skb_queue_empty(&sk->sk_write_queue))
		tcp_write_xmit(sk);
}

noinline void tcp_send_ack(struct sock *sk)
{
	struct sk_buff *buff;

	if (sk->sk_state == TCP_CLOSE)
		return;
	buff = alloc_skb(MAX_HEADER, GFP_ATOMIC);
	if (!buff)
		return;
	skb_reserve(buff, MAX_HEADER);
	TCP_SKB_CB(buff)->seq = TCP_SKB_CB(buff)->end_seq = tcp_sk(sk)->snd_nxt;
	TCP_SKB_CB(buff)->tcp_flags = TCPHDR_ACK;
	__tcp_transmit_skb(sk, buff, 0, GFP_ATOMIC);
}

/* the FIN rides on the last unsent segment, or goes alone */
noinline void tcp_send_fin(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct sk_buff *skb = sk->sk_write_queue.prev;

	if (skb != (struct sk_buff *)&sk->sk_write_queue) {
		TCP_SKB_CB(skb)->tcp_flags |= TCPHDR_FIN;
		TCP_SKB_CB(skb)->end_seq++;
		tp->write_seq++;
	} else {
		skb = alloc_skb(MAX_HEADER, GFP_KERNEL);
		if (!skb)
			return;
		skb_reserve(skb, MAX_HEADER);
		TCP_SKB_CB(skb)->seq = tp->write_seq;
		TCP_SKB_CB(skb)->end_seq = tp->write_seq + 1;
		TCP_SKB_CB(skb)->tcp_flags = TCPHDR_ACK | TCPHDR_FIN;
		tp->write_seq++;
		skb_queue_tail(&sk->sk_write_queue, skb);
		sk->sk_wmem_queued += skb->truesize;
	}
	tcp_push(sk);
}

noinline void tcp_send_active_reset(struct sock *sk, gfp_t priority)
{
	struct sk_buff *skb = alloc_skb(MAX_HEADER, priority);

	if (!skb)
		return;
	skb_reserve(skb, MAX_HEADER);
	TCP_SKB_CB(skb)->seq = TCP_SKB_CB(skb)->end_seq = tcp_sk(sk)->snd_nxt;
	TCP_SKB_CB(skb)->tcp_flags = TCPHDR_ACK | TCPHDR_RST;
	tcp_transmit_skb(sk, skb, 0, priority);
	trace_tcp_send_reset(sk, NULL);
}

/* the SYN of a connect(): on the retransmit queue, the timer at TCP_TIMEOUT_INIT */
noinline int tcp_connect(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct sk_buff *buff;

	tp->snd_una = tp->write_seq;
	tp->snd_nxt = tp->write_seq;
	tp->snd_wnd = TCP_MAX_WINDOW;
	tp->rcv_nxt = 0;
	tcp_mstamp_refresh(tp);
	tp->mss_cache = tcp_mss_for_mtu(sk, loopback_dev->mtu);
	inet_csk(sk)->icsk_rto = TCP_TIMEOUT_INIT;
	inet_csk(sk)->icsk_retransmits = 0;
	buff = alloc_skb(MAX_HEADER, GFP_KERNEL);
	if (!buff)
		return -ENOBUFS;
	skb_reserve(buff, MAX_HEADER);
	TCP_SKB_CB(buff)->seq = tp->write_seq++;
	TCP_SKB_CB(buff)->end_seq = tp->write_seq;
	TCP_SKB_CB(buff)->tcp_flags = TCPHDR_SYN;
	skb_queue_tail(&sk->sk_write_queue, buff);
	sk->sk_wmem_queued += buff->truesize;
	tcp_transmit_skb(sk, buff, 1, GFP_KERNEL);	/* if it fails, the timer sends it again */
	tcp_event_new_data_sent(sk, buff);
	return 0;
}

/* once more, a segment sent before and not acked */
static noinline int __tcp_retransmit_skb(struct sock *sk, struct sk_buff *skb, int segs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int err = tcp_transmit_skb(sk, skb, 1, GFP_ATOMIC);

	if (!err) {
		tp->total_retrans++;
		tp->bytes_retrans += skb->len;
	}
	return err;
}

noinline int tcp_retransmit_skb(struct sock *sk, struct sk_buff *skb, int segs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int err = __tcp_retransmit_skb(sk, skb, segs);

	if (err == 0) {
		trace_tcp_retransmit_skb(sk, skb);
		/* in flight again; its ack is no RTT sample (Karn) */
		if (!(TCP_SKB_CB(skb)->sacked & TCPCB_SACKED_RETRANS))
			tp->retrans_out++;
		TCP_SKB_CB(skb)->sacked |= TCPCB_SACKED_RETRANS | TCPCB_EVER_RETRANS;
	}
	return err;
}
