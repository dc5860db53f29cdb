/*
 * TCP's retransmit timer (Linux's net/ipv4/tcp_timer.c): tcp_write_timer (TIMER_SOFTIRQ; a
 * socket a task owns gets it again a little later) → tcp_write_timer_handler →
 * tcp_retransmit_timer: what is unacked goes again (tcp_retransmit_skb), the RTO doubles up
 * to TCP_RTO_MAX; a SYN unanswered TCP_SYN_RETRIES times, or data TCP_RETR2 times, ends the
 * connection (ETIMEDOUT).
 */
#include "../../include/net.h"

static notrace noinline void tcp_write_err(struct sock *sk)
{
	tcp_done_with_error(sk, ETIMEDOUT);
}

static noinline void tcp_retransmit_timer(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct sk_buff *skb;
	int limit = (1 << sk->sk_state) & (TCPF_SYN_SENT | TCPF_SYN_RECV) ? TCP_SYN_RETRIES : TCP_RETR2;

	if (skb_queue_empty(&tp->rtx_queue))
		return;
	if (icsk->icsk_retransmits >= limit) {
		tcp_write_err(sk);
		return;
	}
	/* everything unacked is lost (tcp_enter_loss): it all goes again, in order */
	tcp_enter_loss(sk);
	for (skb = tp->rtx_queue.next; skb != (struct sk_buff *)&tp->rtx_queue; skb = skb->next)
		if (tcp_retransmit_skb(sk, skb, 1))
			break;
	icsk->icsk_retransmits++;
	icsk->icsk_backoff++;
	icsk->icsk_rto = min(icsk->icsk_rto * 2, TCP_RTO_MAX);
	tcp_rearm_rto(sk);
}

static noinline void tcp_write_timer_handler(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	if (((1 << sk->sk_state) & (TCPF_CLOSE | TCPF_LISTEN)) || !icsk->icsk_pending)
		return;
	if (time_after(icsk->icsk_timeout, jiffies)) {
		sk_reset_timer(sk, &icsk->icsk_retransmit_timer, icsk->icsk_timeout);
		return;
	}
	tcp_mstamp_refresh(tcp_sk(sk));
	icsk->icsk_pending = 0;
	tcp_retransmit_timer(sk);
}

static void tcp_write_timer(struct timer_list *t)
{
	struct inet_connection_sock *icsk = container_of(t, struct inet_connection_sock, icsk_retransmit_timer);
	struct sock *sk = &icsk->icsk_inet.sk;

	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk))
		tcp_write_timer_handler(sk);
	else	/* the owner is at work on it: later (6.1 defers it to release_sock) */
		sk_reset_timer(sk, &icsk->icsk_retransmit_timer, jiffies + 1);
	bh_unlock_sock(sk);
	sock_put(sk);	/* the timer's reference */
}

/* net/ipv4/inet_connection_sock.c: the connection's timers (the retransmit one here: no
 * delayed ACK or keepalive timer is modelled) */
noinline void inet_csk_init_xmit_timers(struct sock *sk, void (*retransmit_handler)(struct timer_list *t))
{
	timer_setup(&inet_csk(sk)->icsk_retransmit_timer, retransmit_handler, 0);
}

noinline void inet_csk_clear_xmit_timers(struct sock *sk)
{
	inet_csk(sk)->icsk_pending = 0;
	sk_stop_timer(sk, &inet_csk(sk)->icsk_retransmit_timer);
}

noinline void tcp_init_xmit_timers(struct sock *sk)
{
	inet_csk_init_xmit_timers(sk, &tcp_write_timer);
}
