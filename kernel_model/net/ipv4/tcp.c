/*
 * TCP, the socket side (Linux's net/ipv4/tcp.c): tcp_set_state (sock:inet_sock_set_state;
 * leaving for CLOSE unhashes and frees the port), tcp_sendmsg → tcp_sendmsg_locked (data cut
 * in segments of mss_cache on the write queue, waiting for room past sk_sndbuf), tcp_push,
 * tcp_recvmsg → tcp_recvmsg_locked (waiting in sk_wait_data; a window update goes out as the
 * reader frees room: tcp_cleanup_rbuf), tcp_shutdown / tcp_close (FIN, or a reset when unread
 * data is thrown away), tcp_disconnect, tcp_done.
 */
#include "../../include/net.h"
#include "../../include/poll.h"
#include "../../include/slab.h"
#include "../../include/signal.h"
#include "../../include/trace/trace.h"

noinline void tcp_set_state(struct sock *sk, int state)
{
	int oldstate = sk->sk_state;

	inet_sk_state_store(sk, state);
	if (state == TCP_CLOSE && oldstate != TCP_CLOSE) {
		sk->sk_prot->unhash(sk);
		inet_put_port(sk);
	}
}

/* the connection is over: no timers; an orphan goes, a socket with a file is woken */
noinline void tcp_done(struct sock *sk)
{
	tcp_set_state(sk, TCP_CLOSE);
	tcp_clear_xmit_timers(sk);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	if (!sock_flag(sk, SOCK_DEAD))
		sk->sk_state_change(sk);
	else
		inet_csk_destroy_sock(sk);
}

/* the connection ends with an error its owner is told of (a reset, a timeout) */
noinline void tcp_done_with_error(struct sock *sk, int err)
{
	WRITE_ONCE(sk->sk_err, err);
	tcp_write_queue_purge(sk);
	tcp_done(sk);
	if (!sock_flag(sk, SOCK_DEAD))
		sk_error_report(sk);
}

noinline int tcp_init_sock(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	skb_queue_head_init(&tp->rtx_queue);
	tcp_init_xmit_timers(sk);
	inet_csk(sk)->icsk_rto = TCP_TIMEOUT_INIT;
	inet_csk(sk)->icsk_rto_min = TCP_RTO_MIN;
	tp->mdev_us = jiffies_to_usecs(TCP_TIMEOUT_INIT);
	/* So many TCP implementations out there (incorrectly) count the initial SYN frame in
	 * their delayed-ACK and congestion control algorithms that we must have the following
	 * bandaid to talk efficiently to them.  -DaveM */
	tcp_snd_cwnd_set(tp, TCP_INIT_CWND);
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	tp->snd_cwnd_clamp = ~0;
	tp->mss_cache = TCP_MSS_DEFAULT;
	sk->sk_state = TCP_CLOSE;
	sk->sk_write_space = sk_stream_write_space;
	sk->sk_sndbuf = TCP_WMEM_DEFAULT;
	sk->sk_rcvbuf = TCP_RMEM_DEFAULT;
	return 0;
}

noinline void tcp_v4_destroy_sock(struct sock *sk)
{

	trace_tcp_destroy_sock(sk);
	tcp_clear_xmit_timers(sk);
	tcp_write_queue_purge(sk);
	skb_queue_purge(&sk->sk_receive_queue);
	sk->sk_rmem_alloc = 0;
}

/* sk_stream_wait_connect(): the handshake of a connect() in progress */
static noinline int sk_stream_wait_connect(struct sock *sk, bool nonblock)
{
	for (;;) {
		if (sk->sk_err)
			return sock_error(sk);
		if ((1 << sk->sk_state) & ~(TCPF_SYN_SENT | TCPF_SYN_RECV))
			return -EPIPE;
		if (nonblock)
			return -EAGAIN;
		if (sk_wait_event(sk, !((1 << READ_ONCE(sk->sk_state)) & (TCPF_SYN_SENT | TCPF_SYN_RECV))))
			return -ERESTARTSYS;
		if ((1 << sk->sk_state) & (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT))
			return 0;
	}
}

static notrace bool sk_stream_memory_free(const struct sock *sk)
{
	return READ_ONCE(sk->sk_wmem_queued) < READ_ONCE(sk->sk_sndbuf);
}

/* sk_stream_wait_memory(): room in the send buffer */
static noinline int sk_stream_wait_memory(struct sock *sk, bool nonblock)
{
	sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);	/* room made signals an O_ASYNC owner */
	if (nonblock)
		return -EAGAIN;
	if (sk_wait_event(sk, sk_stream_memory_free(sk) || READ_ONCE(sk->sk_err) ||
			      (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN)))
		return -ERESTARTSYS;
	if (sk->sk_err || (sk->sk_shutdown & SEND_SHUTDOWN))
		return -EPIPE;
	return 0;
}

/* A stream socket's write space (6.1's net/core/stream.c): writers woken once the send buffer
 * has room for as much again as is queued (__sk_stream_is_writeable()), and an O_ASYNC owner
 * signalled if a writer found it full */
noinline void sk_stream_write_space(struct sock *sk)
{
	struct socket *sock = sk->sk_socket;
	struct socket_wq *wq;
	int queued = READ_ONCE(sk->sk_wmem_queued);

	if (READ_ONCE(sk->sk_sndbuf) - queued >= (queued >> 1) && sk_stream_memory_free(sk) && sock) {
		wq = READ_ONCE(sk->sk_wq);
		if (wq && waitqueue_active(&wq->wait))	/* skwq_has_sleeper() */
			wake_up_interruptible_poll(&wq->wait, EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND);
		if (wq && wq->fasync_list && !(sk->sk_shutdown & SEND_SHUTDOWN))
			sock_wake_async(wq, SOCK_WAKE_SPACE, POLL_OUT);
	}
}

static noinline int sk_stream_error(struct sock *sk, int flags, int err)
{
	if (err == -EPIPE)
		err = sock_error(sk) ? : -EPIPE;
	if (err == -EPIPE && !(flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return err;
}

static noinline int tcp_sendmsg_locked(struct sock *sk, struct msghdr *msg, size_t size)
{
	struct tcp_sock *tp = tcp_sk(sk);
	bool nonblock = msg->msg_flags & MSG_DONTWAIT;
	int copied = 0, err;

	if ((1 << sk->sk_state) & ~(TCPF_ESTABLISHED | TCPF_CLOSE_WAIT)) {
		err = sk_stream_wait_connect(sk, nonblock);
		if (err != 0)
			goto do_error;
	}
	err = -EPIPE;
	if (sk->sk_err || (sk->sk_shutdown & SEND_SHUTDOWN))
		goto do_error;
	while (iov_iter_count(&msg->msg_iter)) {
		struct sk_buff *skb;
		size_t copy = min(iov_iter_count(&msg->msg_iter), (size_t)tp->mss_cache);

		if (!sk_stream_memory_free(sk)) {
			tcp_push(sk);
			err = sk_stream_wait_memory(sk, nonblock);
			if (err)
				goto do_error;
			continue;
		}
		skb = alloc_skb(MAX_HEADER + copy, GFP_KERNEL);
		if (!skb) {
			err = -ENOBUFS;
			goto do_error;
		}
		skb_reserve(skb, MAX_HEADER);
		if (copy_from_iter(skb_put(skb, copy), copy, &msg->msg_iter) != copy) {
			__kfree_skb(skb);
			err = -EFAULT;
			goto do_error;
		}
		TCP_SKB_CB(skb)->seq = tp->write_seq;
		TCP_SKB_CB(skb)->end_seq = tp->write_seq + copy;
		TCP_SKB_CB(skb)->tcp_flags = TCPHDR_ACK | TCPHDR_PSH;
		tp->write_seq += copy;
		skb_queue_tail(&sk->sk_write_queue, skb);
		sk->sk_wmem_queued += skb->truesize;
		copied += copy;
	}
	tcp_push(sk);
	return copied;
do_error:
	if (copied) {
		tcp_push(sk);
		return copied;
	}
	return sk_stream_error(sk, msg->msg_flags, err);
}

noinline int tcp_sendmsg(struct sock *sk, struct msghdr *msg, size_t size)
{
	int ret;

	lock_sock(sk);
	ret = tcp_sendmsg_locked(sk, msg, size);
	release_sock(sk);
	return ret;
}

/* a page's bytes as data (6.1 adds the page itself to the skbs as a fragment; here they are
 * copied as tcp_sendmsg copies, the loopback having scatter-gather: NETIF_F_SG) */
noinline ssize_t do_tcp_sendpages(struct sock *sk, struct page *page, int offset, size_t size, int flags)
{
	struct msghdr msg = { .msg_flags = flags };
	struct kvec iov = { (char *)page_address(page) + offset, size };

	iov_iter_kvec(&msg.msg_iter, WRITE, &iov, 1, size);
	return tcp_sendmsg_locked(sk, &msg, size);
}

noinline int tcp_sendpage_locked(struct sock *sk, struct page *page, int offset, size_t size, int flags)
{
	return do_tcp_sendpages(sk, page, offset, size, flags);
}

noinline int tcp_sendpage(struct sock *sk, struct page *page, int offset, size_t size, int flags)
{
	int ret;

	lock_sock(sk);
	ret = tcp_sendpage_locked(sk, page, offset, size, flags);
	release_sock(sk);
	return ret;
}

/* the reader freed room: tell the sender when the window it knows grew a good deal */
static noinline void tcp_cleanup_rbuf(struct sock *sk, int copied)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 free_space = sk->sk_rcvbuf - sk->sk_rmem_alloc;

	if (free_space > TCP_MAX_WINDOW)
		free_space = TCP_MAX_WINDOW;
	if (copied > 0 && sk->sk_state != TCP_CLOSE && free_space >= 2 * tp->rcv_wnd)
		tcp_send_ack(sk);
}

static noinline int tcp_recvmsg_locked(struct sock *sk, struct msghdr *msg, size_t len, int flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	bool nonblock = flags & MSG_DONTWAIT;
	u32 peek_seq = tp->copied_seq, *seq = (flags & MSG_PEEK) ? &peek_seq : &tp->copied_seq;
	int copied = 0, err = 0;
	size_t target = (flags & MSG_WAITALL) ? len : 1;

	if (sk->sk_state == TCP_LISTEN)
		return -ENOTCONN;
	do {
		struct sk_buff *skb, *tmp;
		bool found = false;

		skb_queue_walk_safe(&sk->sk_receive_queue, skb, tmp) {
			u32 offset = *seq - TCP_SKB_CB(skb)->seq;

			if (offset < skb->len) {
				size_t used = min((size_t)(skb->len - offset), len);

				err = skb_copy_datagram_iter(skb, offset, &msg->msg_iter, used);
				if (err) {
					if (!copied)
						copied = -EFAULT;
					goto out;
				}
				*seq += used;
				copied += used;
				len -= used;
				found = true;
				tcp_rcv_space_adjust(sk);
				if (used + offset < skb->len)
					break;
			}
			if (!(flags & MSG_PEEK) && *seq == TCP_SKB_CB(skb)->end_seq) {
				skb_unlink(skb, &sk->sk_receive_queue);
				sk->sk_rmem_alloc -= skb->truesize;
				__kfree_skb(skb);	/* tcp_eat_recv_skb() */
			}
			if (!len)
				break;
		}
		if (found && (size_t)copied >= target)
			break;
		if (copied && (size_t)copied >= target)
			break;
		if (sk->sk_err) {
			copied = copied ? : sock_error(sk);
			break;
		}
		if (sk->sk_shutdown & RCV_SHUTDOWN)
			break;
		if (sk->sk_state == TCP_CLOSE) {
			copied = copied ? : -ENOTCONN;
			break;
		}
		if (nonblock) {
			copied = copied ? : -EAGAIN;
			break;
		}
		if (!len)
			break;
		tcp_cleanup_rbuf(sk, copied);
		if (!sk_wait_data(sk, NULL)) {
			copied = copied ? : -ERESTARTSYS;
			break;
		}
	} while (len > 0);
out:
	tcp_cleanup_rbuf(sk, copied);
	return copied;
}

noinline int tcp_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *addr_len)
{
	int ret;

	lock_sock(sk);
	ret = tcp_recvmsg_locked(sk, msg, len, flags);
	release_sock(sk);
	return ret;
}

/* the state a close or a shutdown(SHUT_WR) moves to, and whether a FIN goes */
static const unsigned char new_state[16] = {
	[0]			= TCP_CLOSE,
	[TCP_ESTABLISHED]	= TCP_FIN_WAIT1 | 0x10,
	[TCP_SYN_SENT]		= TCP_CLOSE,
	[TCP_SYN_RECV]		= TCP_FIN_WAIT1 | 0x10,
	[TCP_FIN_WAIT1]		= TCP_FIN_WAIT1,
	[TCP_FIN_WAIT2]		= TCP_FIN_WAIT2,
	[TCP_TIME_WAIT]		= TCP_CLOSE,
	[TCP_CLOSE]		= TCP_CLOSE,
	[TCP_CLOSE_WAIT]	= TCP_LAST_ACK | 0x10,
	[TCP_LAST_ACK]		= TCP_LAST_ACK,
	[TCP_LISTEN]		= TCP_CLOSE,
	[TCP_CLOSING]		= TCP_CLOSING,
	[TCP_NEW_SYN_RECV]	= TCP_CLOSE,
};

static notrace noinline int tcp_close_state(struct sock *sk)
{
	int next = (int)new_state[sk->sk_state];
	int ns = next & 0xf;

	tcp_set_state(sk, ns);
	return next & 0x10;
}

noinline void tcp_shutdown(struct sock *sk, int how)
{
	if (!(how & SEND_SHUTDOWN))
		return;
	if ((1 << sk->sk_state) & (TCPF_ESTABLISHED | TCPF_SYN_SENT | TCPF_SYN_RECV | TCPF_CLOSE_WAIT)) {
		if (tcp_close_state(sk))
			tcp_send_fin(sk);
	}
}

noinline int tcp_disconnect(struct sock *sk, int flags)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	int old_state = sk->sk_state;

	if (old_state != TCP_CLOSE)
		tcp_set_state(sk, TCP_CLOSE);
	if (old_state == TCP_LISTEN)
		inet_csk_listen_stop(sk);
	else if ((1 << old_state) & (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT | TCPF_FIN_WAIT1 | TCPF_FIN_WAIT2 |
				    TCPF_CLOSING | TCPF_LAST_ACK)) {
		tcp_send_active_reset(sk, GFP_KERNEL);
		WRITE_ONCE(sk->sk_err, ECONNRESET);
	} else if (old_state == TCP_SYN_SENT)
		WRITE_ONCE(sk->sk_err, ECONNRESET);
	tcp_clear_xmit_timers(sk);
	skb_queue_purge(&sk->sk_receive_queue);
	tcp_write_queue_purge(sk);
	sk->sk_rmem_alloc = 0;
	inet_sk(sk)->inet_dport = 0;	/* (the peer's address stays, as 6.1's) */
	if (!(sk->sk_userlocks & SOCK_BINDADDR_LOCK))	/* inet_bhash2_reset_saddr() */
		inet_reset_saddr(sk);
	sk->sk_shutdown = 0;
	/* the connection's estimates and counters start again */
	tp->srtt_us = 0;
	tp->mdev_us = jiffies_to_usecs(TCP_TIMEOUT_INIT);
	icsk->icsk_backoff = 0;
	icsk->icsk_rto = TCP_TIMEOUT_INIT;
	icsk->icsk_rto_min = TCP_RTO_MIN;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	tcp_snd_cwnd_set(tp, TCP_INIT_CWND);
	tp->snd_cwnd_cnt = 0;
	tp->is_cwnd_limited = 0;
	tp->max_packets_out = 0;
	tp->delivered = 0;
	tcp_set_ca_state(sk, TCP_CA_Open);
	tp->retrans_out = tp->lost_out = 0;	/* tcp_clear_retrans() */
	tp->total_retrans = 0;
	tp->segs_in = 0;
	tp->segs_out = 0;
	tp->bytes_sent = 0;
	tp->bytes_acked = 0;
	tp->bytes_received = 0;
	tp->bytes_retrans = 0;
	tp->data_segs_in = 0;
	tp->data_segs_out = 0;
	sk_error_report(sk);
	return 0;
}

/* (the socket's lock held; it releases it, the backlog processed, before it looks at the
 * state once more: 6.1 runs __release_sock() under the bh lock and releases in tcp_close()) */
noinline void __tcp_close(struct sock *sk, long timeout)
{
	struct sk_buff *skb;
	int data_was_unread = 0, state;

	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	if (sk->sk_state == TCP_LISTEN) {
		tcp_set_state(sk, TCP_CLOSE);
		inet_csk_listen_stop(sk);
		goto adjudge_to_death;
	}
	while ((skb = skb_dequeue(&sk->sk_receive_queue)) != NULL) {
		u32 len = TCP_SKB_CB(skb)->end_seq - TCP_SKB_CB(skb)->seq;

		data_was_unread += len;
		sk->sk_rmem_alloc -= skb->truesize;
		__kfree_skb(skb);
	}
	if (sk->sk_state == TCP_CLOSE)
		goto adjudge_to_death;
	if (data_was_unread) {
		/* RFC 2525 2.17: unread data is lost, the peer is told by a reset */
		tcp_set_state(sk, TCP_CLOSE);
		tcp_send_active_reset(sk, GFP_KERNEL);
	} else if (tcp_close_state(sk)) {
		tcp_send_fin(sk);
	}
adjudge_to_death:
	state = sk->sk_state;
	sock_hold(sk);
	sock_orphan(sk);
	release_sock(sk);	/* the backlog: a packet there may end the connection */
	local_bh_disable();
	bh_lock_sock(sk);
	if (state == TCP_CLOSE) {	/* else the orphan lives on until its connection ends (tcp_done) */
		bh_unlock_sock(sk);
		tcp_clear_xmit_timers(sk);
		inet_csk_destroy_sock(sk);
	} else {
		bh_unlock_sock(sk);
	}
	local_bh_enable();
}

noinline void tcp_close(struct sock *sk, long timeout)
{
	lock_sock(sk);
	__tcp_close(sk, timeout);
	sock_put(sk);
}

/* ---- SOL_TCP options (6.1's do_tcp_setsockopt/do_tcp_getsockopt, the ones modelled) ---- */
#define TCP_NAGLE_OFF	1
#define TCP_NAGLE_CORK	2
#define TCP_NAGLE_PUSH	4

/* segments go out as they are written here (no pending frames to push) */
noinline void __tcp_sock_set_nodelay(struct sock *sk, bool on)
{
	if (on)
		tcp_sk(sk)->nonagle |= TCP_NAGLE_OFF | TCP_NAGLE_PUSH;
	else
		tcp_sk(sk)->nonagle &= ~TCP_NAGLE_OFF;
}

static noinline int do_tcp_setsockopt(struct sock *sk, int level, int optname, void *optval, unsigned int optlen)
{
	int val, err;

	err = sockopt_int_from_user(optval, optlen, &val);
	if (err)
		return err;
	sockopt_lock_sock(sk);
	switch (optname) {
	case TCP_NODELAY:
		__tcp_sock_set_nodelay(sk, val);
		break;
	default:
		err = -ENOPROTOOPT;
		break;
	}
	sockopt_release_sock(sk);
	return err;
}

/* another level is the address family's (ipv6_setsockopt; IPv4's ip_setsockopt is not modelled) */
noinline int tcp_setsockopt(struct sock *sk, int level, int optname, void *optval, unsigned int optlen)
{
	const struct inet_connection_sock_af_ops *af = READ_ONCE(inet_csk(sk)->icsk_af_ops);

	if (level != SOL_TCP)
		return af->setsockopt ? af->setsockopt(sk, level, optname, optval, optlen) : -ENOPROTOOPT;
	return do_tcp_setsockopt(sk, level, optname, optval, optlen);
}

/* The bytes a read would take now (tcp_inq()): none while connecting, the FIN not counted (no
 * urgent data is ever received here) */
static __always_inline int tcp_inq(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int answ;

	if ((1 << sk->sk_state) & ((1 << TCP_SYN_SENT) | (1 << TCP_SYN_RECV)))
		return 0;
	answ = tp->rcv_nxt - tp->copied_seq;
	if (answ && sock_flag(sk, SOCK_DONE))	/* subtract 1 if the FIN was received */
		answ--;
	return answ;
}

/* SIOCINQ (FIONREAD): unread bytes; SIOCOUTQ: unacked ones; SIOCOUTQNSD: unsent ones;
 * SIOCATMARK: at urgent data (never here) */
noinline int tcp_ioctl(struct sock *sk, int cmd, unsigned long arg)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int answ;

	switch (cmd) {
	case SIOCINQ:
		if (sk->sk_state == TCP_LISTEN)
			return -EINVAL;
		lock_sock(sk);	/* (lock_sock_fast) */
		answ = tcp_inq(sk);
		release_sock(sk);
		break;
	case SIOCATMARK:
		answ = 0;	/* (tp->urg_data: none) */
		break;
	case SIOCOUTQ:
		if (sk->sk_state == TCP_LISTEN)
			return -EINVAL;
		if ((1 << sk->sk_state) & ((1 << TCP_SYN_SENT) | (1 << TCP_SYN_RECV)))
			answ = 0;
		else
			answ = READ_ONCE(tp->write_seq) - tp->snd_una;
		break;
	case SIOCOUTQNSD:
		if (sk->sk_state == TCP_LISTEN)
			return -EINVAL;
		if ((1 << sk->sk_state) & ((1 << TCP_SYN_SENT) | (1 << TCP_SYN_RECV)))
			answ = 0;
		else
			answ = READ_ONCE(tp->write_seq) - READ_ONCE(tp->snd_nxt);
		break;
	default:
		return -ENOIOCTLCMD;
	}
	return copy_to_user((void *)arg, &answ, sizeof(answ)) ? -EFAULT : 0;
}

/* TCP_INFO's answer (include/uapi/linux/tcp.h) */
struct tcp_info {
	u8 tcpi_state, tcpi_ca_state, tcpi_retransmits, tcpi_probes, tcpi_backoff, tcpi_options;
	u8 tcpi_snd_wscale:4, tcpi_rcv_wscale:4;
	u8 tcpi_delivery_rate_app_limited:1, tcpi_fastopen_client_fail:2;
	u32 tcpi_rto, tcpi_ato, tcpi_snd_mss, tcpi_rcv_mss;
	u32 tcpi_unacked, tcpi_sacked, tcpi_lost, tcpi_retrans, tcpi_fackets;
	/* times */
	u32 tcpi_last_data_sent, tcpi_last_ack_sent, tcpi_last_data_recv, tcpi_last_ack_recv;
	/* metrics */
	u32 tcpi_pmtu, tcpi_rcv_ssthresh, tcpi_rtt, tcpi_rttvar, tcpi_snd_ssthresh, tcpi_snd_cwnd;
	u32 tcpi_advmss, tcpi_reordering, tcpi_rcv_rtt, tcpi_rcv_space, tcpi_total_retrans;
	u64 tcpi_pacing_rate, tcpi_max_pacing_rate;
	u64 tcpi_bytes_acked, tcpi_bytes_received;
	u32 tcpi_segs_out, tcpi_segs_in;
	u32 tcpi_notsent_bytes, tcpi_min_rtt, tcpi_data_segs_in, tcpi_data_segs_out;
	u64 tcpi_delivery_rate;
	u64 tcpi_busy_time, tcpi_rwnd_limited, tcpi_sndbuf_limited;
	u32 tcpi_delivered, tcpi_delivered_ce;
	u64 tcpi_bytes_sent, tcpi_bytes_retrans;
	u32 tcpi_dsack_dups, tcpi_reord_seen, tcpi_rcv_ooopack, tcpi_snd_wnd;
};
_Static_assert(sizeof(struct tcp_info) == 232, "struct tcp_info as 6.1's uapi");

/* The connection's state and counters as 6.1 reports them, from what this TCP keeps: no
 * options (no timestamps, SACK, window scaling or ECN are negotiated here), no pacing (the
 * rates are unlimited, ~0), no receive-side RTT, delayed-ack or chrono accounting (0) */
noinline void tcp_get_info(struct sock *sk, struct tcp_info *info)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct inet_connection_sock *icsk = inet_csk(sk);
	int notsent;

	memset(info, 0, sizeof(*info));
	if (sk->sk_type != SOCK_STREAM)
		return;
	info->tcpi_state = READ_ONCE(sk->sk_state);	/* inet_sk_state_load() */
	info->tcpi_pacing_rate = ~0ULL;			/* sk_pacing_rate: never computed here */
	info->tcpi_max_pacing_rate = ~0ULL;
	info->tcpi_snd_cwnd = tcp_snd_cwnd(tp);
	if (info->tcpi_state == TCP_LISTEN) {
		/* a listener's: the children ready for accept(), the backlog */
		info->tcpi_unacked = READ_ONCE(sk->sk_ack_backlog);
		info->tcpi_sacked = READ_ONCE(sk->sk_max_ack_backlog);
		return;
	}
	lock_sock(sk);	/* (lock_sock_fast) */
	info->tcpi_ca_state = icsk->icsk_ca_state;
	info->tcpi_retransmits = icsk->icsk_retransmits;
	info->tcpi_backoff = icsk->icsk_backoff;
	info->tcpi_rto = jiffies_to_usecs(icsk->icsk_rto);
	info->tcpi_snd_mss = tp->mss_cache;
	info->tcpi_unacked = tp->packets_out;
	info->tcpi_lost = tp->lost_out;
	info->tcpi_retrans = tp->retrans_out;
	info->tcpi_rtt = tp->srtt_us >> 3;
	info->tcpi_rttvar = tp->mdev_us >> 2;
	info->tcpi_snd_ssthresh = tp->snd_ssthresh;
	info->tcpi_total_retrans = tp->total_retrans;
	info->tcpi_bytes_acked = tp->bytes_acked;
	info->tcpi_bytes_received = tp->bytes_received;
	notsent = tp->write_seq - tp->snd_nxt;
	info->tcpi_notsent_bytes = notsent > 0 ? notsent : 0;
	info->tcpi_segs_out = tp->segs_out;
	info->tcpi_segs_in = READ_ONCE(tp->segs_in);
	info->tcpi_data_segs_in = READ_ONCE(tp->data_segs_in);
	info->tcpi_data_segs_out = tp->data_segs_out;
	info->tcpi_delivered = tp->delivered;
	info->tcpi_bytes_sent = tp->bytes_sent;
	info->tcpi_bytes_retrans = tp->bytes_retrans;
	info->tcpi_snd_wnd = tp->snd_wnd;
	release_sock(sk);
}

static noinline int do_tcp_getsockopt(struct sock *sk, int level, int optname, void *optval, int *optlen)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int val, len;

	if (copy_from_user(&len, optlen, sizeof(int)))
		return -EFAULT;
	len = (unsigned int)len < sizeof(int) ? (unsigned int)len : sizeof(int);	/* min_t(unsigned int, ...) */
	if (len < 0)
		return -EINVAL;
	switch (optname) {
	case TCP_INFO: {
		struct tcp_info info;

		if (copy_from_user(&len, optlen, sizeof(int)))
			return -EFAULT;
		tcp_get_info(sk, &info);
		len = (unsigned int)len < sizeof(info) ? (unsigned int)len : sizeof(info);
		if (copy_to_user(optlen, &len, sizeof(int)))
			return -EFAULT;
		if (copy_to_user(optval, &info, len))
			return -EFAULT;
		return 0;
	}
	case TCP_MAXSEG:
		val = tp->mss_cache;
		break;
	case TCP_NODELAY:
		val = !!(tp->nonagle & TCP_NAGLE_OFF);
		break;
	default:
		return -ENOPROTOOPT;
	}
	return sockopt_int_to_user(optval, optlen, len, val);
}

noinline int tcp_getsockopt(struct sock *sk, int level, int optname, void *optval, int *optlen)
{
	const struct inet_connection_sock_af_ops *af = READ_ONCE(inet_csk(sk)->icsk_af_ops);

	if (level != SOL_TCP)
		return af->getsockopt ? af->getsockopt(sk, level, optname, optval, optlen) : -ENOPROTOOPT;
	return do_tcp_getsockopt(sk, level, optname, optval, optlen);
}

struct proto tcp_prot = {
	.name = "TCP",
	.obj_size = sizeof(struct tcp_sock),
	.close = tcp_close,
	.connect = tcp_v4_connect,
	.disconnect = tcp_disconnect,
	.shutdown = tcp_shutdown,
	.ioctl = tcp_ioctl,
	.sendmsg = tcp_sendmsg,
	.recvmsg = tcp_recvmsg,
	.sendpage = tcp_sendpage,
	.backlog_rcv = tcp_v4_do_rcv,
	.init = tcp_v4_init_sock,
	.destroy = tcp_v4_destroy_sock,
	.hash = inet_hash,
	.unhash = inet_unhash,
	.get_port = inet_csk_get_port,
	.no_autobind = true,
	.setsockopt = tcp_setsockopt,
	.getsockopt = tcp_getsockopt,
};

void inet_hashinfo_init(void);

void __init tcp_init(void)
{
	inet_hashinfo_init();
}

/* A TCP socket's readiness (6.1's tcp_poll): a listener's is its accept queue
 * (inet_csk_listen_poll); a connection is readable with data queued or the peer's FIN
 * (RCV_SHUTDOWN), writable with room in its send buffer, hung up once both directions are shut
 * or it is closed; EPOLLERR with an error.  Until the handshake is done, neither. */
noinline __poll_t tcp_poll(struct file *file, struct socket *sock, poll_table *wait)
{
	struct sock *sk = sock->sk;
	__poll_t mask = 0;
	u8 shutdown;
	int state;

	poll_wait(file, &sk->sk_wq->wait, wait);	/* sock_poll_wait() */
	state = READ_ONCE(sk->sk_state);
	if (state == TCP_LISTEN)
		return READ_ONCE(inet_csk(sk)->icsk_accept_queue.rskq_accept_head) ? EPOLLIN | EPOLLRDNORM : 0;
	shutdown = READ_ONCE(sk->sk_shutdown);
	if (shutdown == SHUTDOWN_MASK || state == TCP_CLOSE)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (state != TCP_SYN_SENT && state != TCP_SYN_RECV) {
		if (!skb_queue_empty(&sk->sk_receive_queue))	/* tcp_stream_is_readable() */
			mask |= EPOLLIN | EPOLLRDNORM;
		if (!(shutdown & SEND_SHUTDOWN)) {
			if (sk_stream_memory_free(sk))
				mask |= EPOLLOUT | EPOLLWRNORM;
		} else {
			mask |= EPOLLOUT | EPOLLWRNORM;
		}
	}
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	return mask;
}
