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
