/* tcp: the TCP events the model's TCP produces (include/trace/events/tcp.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp

/* the state names stay in these formats (no eval map in this system): the printer knows them */
TRACE_PRINT_ENUM_OF(tcp, TCP_ESTABLISHED);
TRACE_PRINT_ENUM_OF(tcp, TCP_SYN_SENT);
TRACE_PRINT_ENUM_OF(tcp, TCP_SYN_RECV);
TRACE_PRINT_ENUM_OF(tcp, TCP_FIN_WAIT1);
TRACE_PRINT_ENUM_OF(tcp, TCP_FIN_WAIT2);
TRACE_PRINT_ENUM_OF(tcp, TCP_TIME_WAIT);
TRACE_PRINT_ENUM_OF(tcp, TCP_CLOSE);
TRACE_PRINT_ENUM_OF(tcp, TCP_CLOSE_WAIT);
TRACE_PRINT_ENUM_OF(tcp, TCP_LAST_ACK);
TRACE_PRINT_ENUM_OF(tcp, TCP_LISTEN);
TRACE_PRINT_ENUM_OF(tcp, TCP_CLOSING);
TRACE_PRINT_ENUM_OF(tcp, TCP_NEW_SYN_RECV);

#define tcp_state_name(state)	__print_symbolic(state,			\
		{ TCP_ESTABLISHED, "TCP_ESTABLISHED" },			\
		{ TCP_SYN_SENT, "TCP_SYN_SENT" },			\
		{ TCP_SYN_RECV, "TCP_SYN_RECV" },			\
		{ TCP_FIN_WAIT1, "TCP_FIN_WAIT1" },			\
		{ TCP_FIN_WAIT2, "TCP_FIN_WAIT2" },			\
		{ TCP_TIME_WAIT, "TCP_TIME_WAIT" },			\
		{ TCP_CLOSE, "TCP_CLOSE" },				\
		{ TCP_CLOSE_WAIT, "TCP_CLOSE_WAIT" },			\
		{ TCP_LAST_ACK, "TCP_LAST_ACK" },			\
		{ TCP_LISTEN, "TCP_LISTEN" },				\
		{ TCP_CLOSING, "TCP_CLOSING" },				\
		{ TCP_NEW_SYN_RECV, "TCP_NEW_SYN_RECV" })
#define tcp_family_name(val)	__print_symbolic(val, { AF_INET, "AF_INET" }, { AF_INET6, "AF_INET6" })

/* tcp_event_sk_skb: sk valid, skb may be NULL */
#define TCP_EVENT_SK_SKB(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(const struct sock *sk, const struct sk_buff *skb), \
	TP_ARGS(sk, skb), \
	TP_STRUCT__entry( \
		__field(const void *, skbaddr) \
		__field(const void *, skaddr) \
		__field(int, state) \
		__field(__u16, sport) \
		__field(__u16, dport) \
		__field(__u16, family) \
		__array(__u8, saddr, 4) \
		__array(__u8, daddr, 4) \
		__array(__u8, saddr_v6, 16) \
		__array(__u8, daddr_v6, 16) \
	), \
	TP_fast_assign( \
		const struct inet_sock *inet = inet_sk(sk); \
		__entry->skbaddr = skb; \
		__entry->skaddr = sk; \
		__entry->state = sk->sk_state; \
		__entry->sport = ntohs(inet->inet_sport); \
		__entry->dport = ntohs(inet->inet_dport); \
		__entry->family = sk->sk_family; \
		*(__be32 *)__entry->saddr = inet->inet_saddr; \
		*(__be32 *)__entry->daddr = inet->inet_daddr; \
		TP_STORE_V6_ADDRS(sk, inet, __entry); \
	), \
	TP_printk("family=%s sport=%hu dport=%hu saddr=%pI4 daddr=%pI4 saddrv6=%pI6c daddrv6=%pI6c state=%s", \
		  tcp_family_name(__entry->family), \
		  __entry->sport, __entry->dport, __entry->saddr, __entry->daddr, \
		  __entry->saddr_v6, __entry->daddr_v6, \
		  tcp_state_name(__entry->state)) \
)
TCP_EVENT_SK_SKB(tcp_retransmit_skb)
TCP_EVENT_SK_SKB(tcp_send_reset)

/* tcp_event_sk: sk valid */
#define TCP_EVENT_SK(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct sock *sk), \
	TP_ARGS(sk), \
	TP_STRUCT__entry( \
		__field(const void *, skaddr) \
		__field(__u16, sport) \
		__field(__u16, dport) \
		__field(__u16, family) \
		__array(__u8, saddr, 4) \
		__array(__u8, daddr, 4) \
		__array(__u8, saddr_v6, 16) \
		__array(__u8, daddr_v6, 16) \
		__field(__u64, sock_cookie) \
	), \
	TP_fast_assign( \
		const struct inet_sock *inet = inet_sk(sk); \
		__entry->skaddr = sk; \
		__entry->sport = ntohs(inet->inet_sport); \
		__entry->dport = ntohs(inet->inet_dport); \
		__entry->family = sk->sk_family; \
		*(__be32 *)__entry->saddr = inet->inet_saddr; \
		*(__be32 *)__entry->daddr = inet->inet_daddr; \
		TP_STORE_V6_ADDRS(sk, inet, __entry); \
		__entry->sock_cookie = sk->sk_cookie; \
	), \
	TP_printk("family=%s sport=%hu dport=%hu saddr=%pI4 daddr=%pI4 saddrv6=%pI6c daddrv6=%pI6c sock_cookie=%llx", \
		  tcp_family_name(__entry->family), \
		  __entry->sport, __entry->dport, \
		  __entry->saddr, __entry->daddr, \
		  __entry->saddr_v6, __entry->daddr_v6, \
		  __entry->sock_cookie) \
)
TCP_EVENT_SK(tcp_receive_reset)
TCP_EVENT_SK(tcp_destroy_sock)
TCP_EVENT_SK(tcp_rcv_space_adjust)

_Static_assert(sizeof(struct sockaddr_in6) == 28, "tcp_probe's sockaddr fields");

/* an established socket's segment arriving (tcp_rcv_established): its addresses and ports as
 * sockaddrs (TP_STORE_ADDR_PORTS of net_probe_common.h), the congestion state */
TRACE_EVENT(tcp_probe,
	TP_PROTO(struct sock *sk, struct sk_buff *skb),
	TP_ARGS(sk, skb),
	TP_STRUCT__entry(
		/* sockaddr_in6 is always bigger than sockaddr_in (its size, as 6.1's format shows it) */
		__array(__u8, saddr, 28)
		__array(__u8, daddr, 28)
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u16, family)
		__field(__u32, mark)
		__field(__u16, data_len)
		__field(__u32, snd_nxt)
		__field(__u32, snd_una)
		__field(__u32, snd_cwnd)
		__field(__u32, ssthresh)
		__field(__u32, snd_wnd)
		__field(__u32, srtt)
		__field(__u32, rcv_wnd)
		__field(__u64, sock_cookie)
	),
	TP_fast_assign(
		const struct inet_sock *inet = inet_sk(sk);
		const struct tcp_sock *tp = tcp_sk(sk);

		memset(__entry->saddr, 0, sizeof(struct sockaddr_in6));
		memset(__entry->daddr, 0, sizeof(struct sockaddr_in6));
		TP_STORE_ADDR_PORTS(__entry, inet, sk);
		/* For filtering use */
		__entry->sport = ntohs(inet->inet_sport);
		__entry->dport = ntohs(inet->inet_dport);
		__entry->mark = 0;	/* skb->mark: no SO_MARK or netfilter here to set one */
		__entry->family = sk->sk_family;
		/* 6.1's skb->len - __tcp_hdrlen(th): the header is pulled before here (tcp_rcv_common) */
		__entry->data_len = skb->len;
		__entry->snd_nxt = tp->snd_nxt;
		__entry->snd_una = tp->snd_una;
		__entry->snd_cwnd = tcp_snd_cwnd(tp);
		__entry->snd_wnd = tp->snd_wnd;
		__entry->rcv_wnd = tp->rcv_wnd;
		__entry->ssthresh = tcp_current_ssthresh(sk);
		__entry->srtt = tp->srtt_us >> 3;
		__entry->sock_cookie = sk->sk_cookie;
	),
	TP_printk("family=%s src=%pISpc dest=%pISpc mark=%#x data_len=%d snd_nxt=%#x snd_una=%#x snd_cwnd=%u ssthresh=%u snd_wnd=%u srtt=%u rcv_wnd=%u sock_cookie=%llx",
		  tcp_family_name(__entry->family),
		  __entry->saddr, __entry->daddr, __entry->mark,
		  __entry->data_len, __entry->snd_nxt, __entry->snd_una,
		  __entry->snd_cwnd, __entry->ssthresh, __entry->snd_wnd,
		  __entry->srtt, __entry->rcv_wnd, __entry->sock_cookie)
)

/* the congestion state set (tcp_set_ca_state): Loss at a retransmission timeout, Open once what
 * was in flight then is acked, and at a disconnect */
TRACE_EVENT(tcp_cong_state_set,
	TP_PROTO(struct sock *sk, const u8 ca_state),
	TP_ARGS(sk, ca_state),
	TP_STRUCT__entry(
		__field(const void *, skaddr)
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u16, family)
		__array(__u8, saddr, 4)
		__array(__u8, daddr, 4)
		__array(__u8, saddr_v6, 16)
		__array(__u8, daddr_v6, 16)
		__field(__u8, cong_state)
	),
	TP_fast_assign(
		const struct inet_sock *inet = inet_sk(sk);
		__entry->skaddr = sk;
		__entry->sport = ntohs(inet->inet_sport);
		__entry->dport = ntohs(inet->inet_dport);
		__entry->family = sk->sk_family;
		*(__be32 *)__entry->saddr = inet->inet_saddr;
		*(__be32 *)__entry->daddr = inet->inet_daddr;
		TP_STORE_V6_ADDRS(sk, inet, __entry);
		__entry->cong_state = ca_state;
	),
	TP_printk("family=%s sport=%hu dport=%hu saddr=%pI4 daddr=%pI4 saddrv6=%pI6c daddrv6=%pI6c cong_state=%u",
		  tcp_family_name(__entry->family),
		  __entry->sport, __entry->dport,
		  __entry->saddr, __entry->daddr,
		  __entry->saddr_v6, __entry->daddr_v6,
		  __entry->cong_state)
)
