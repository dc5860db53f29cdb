/*
 * TCP congestion control's shared part (net/ipv4/tcp_cong.c): the congestion state set, traced
 * (tcp:tcp_cong_state_set, what BCC's tcpcong follows).  The model's one algorithm is Reno's,
 * built into tcp_input.c (6.1's default, cubic, is not modelled), with no set_state callback.
 */
#include "../../include/net.h"
#include "../../include/trace/trace.h"

noinline void tcp_set_ca_state(struct sock *sk, const u8 ca_state)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	trace_tcp_cong_state_set(sk, ca_state);
	icsk->icsk_ca_state = ca_state;
}
