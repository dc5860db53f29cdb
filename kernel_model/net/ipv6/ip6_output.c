/*
 * IPv6 output (Linux's net/ipv6/ip6_output.c, inet6_connection_sock.c's inet6_csk_xmit): a
 * connected socket's packet (inet6_csk_xmit) and a reply's (the SYN-ACK, a reset) take their
 * IPv6 header in ip6_xmit, a datagram's in ip6_send_skb's ip6_local_out; then dst_output:
 * ip6_output → ip6_finish_output → ip6_finish_output2 (the link header) → dev_queue_xmit.
 * Every route is the loopback's (::1).
 */
#include "../../include/net.h"

noinline int ip6_finish_output2(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	eth_header(skb, skb->dev, ETH_P_IPV6);
	return dev_queue_xmit(skb);
}

/* __ip6_finish_output (inline in 6.1): no fragments here, a packet past the MTU is dropped */
static __always_inline int __ip6_finish_output(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	if (skb->len > skb->dev->mtu) {
		kfree_skb_reason(skb, SKB_DROP_REASON_PKT_TOO_BIG);
		return -EMSGSIZE;
	}
	return ip6_finish_output2(net, sk, skb);
}

noinline int ip6_finish_output(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	return __ip6_finish_output(net, sk, skb);
}

noinline int ip6_output(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	skb->protocol = htons(ETH_P_IPV6);
	skb->dev = loopback_dev;
	return ip6_finish_output(net, sk, skb);
}

/* the IPv6 header in front of the transport's */
static notrace void ip6_fill_header(struct sk_buff *skb, const struct in6_addr *saddr, const struct in6_addr *daddr,
				    u8 proto, u8 hlimit)
{
	unsigned int payload = skb->len;
	struct ipv6hdr *hdr = skb_push(skb, sizeof(struct ipv6hdr));

	skb_reset_network_header(skb);
	hdr->version = 6;
	hdr->priority = 0;
	hdr->flow_lbl[0] = hdr->flow_lbl[1] = hdr->flow_lbl[2] = 0;
	hdr->payload_len = htons(payload);
	hdr->nexthdr = proto;
	hdr->hop_limit = hlimit;
	hdr->saddr = *saddr;
	hdr->daddr = *daddr;
	skb->protocol = htons(ETH_P_IPV6);
	skb->dev = loopback_dev;
}

/* a packet of a socket (or a reply for one), the addresses given */
noinline int ip6_xmit(const struct sock *sk, struct sk_buff *skb, const struct in6_addr *saddr,
		      const struct in6_addr *daddr, u8 proto)
{
	if (skb->len + sizeof(struct ipv6hdr) > 0xFFFF + sizeof(struct ipv6hdr)) {
		kfree_skb_reason(skb, SKB_DROP_REASON_PKT_TOO_BIG);
		return -EMSGSIZE;
	}
	ip6_fill_header(skb, saddr, daddr, proto, 64);
	return ip6_output(NULL, (struct sock *)sk, skb);	/* dst_output() */
}

/* a connection's segment: its own addresses (inet6_connection_sock.c) */
noinline int inet6_csk_xmit(struct sock *sk, struct sk_buff *skb)
{
	const struct ipv6_pinfo *np = inet6_sk(sk);

	return ip6_xmit(sk, skb, &np->saddr, &sk->sk_v6_daddr, sk->sk_protocol);
}

noinline int __ip6_local_out(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	ipv6_hdr(skb)->payload_len = htons(skb->len - sizeof(struct ipv6hdr));
	skb->protocol = htons(ETH_P_IPV6);
	return 1;
}

noinline int ip6_local_out(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	int err = __ip6_local_out(net, sk, skb);

	if (err == 1)
		err = ip6_output(net, sk, skb);	/* dst_output() */
	return err;
}

/* a datagram built by ip6_make_skb: out it goes */
noinline int ip6_send_skb(struct sk_buff *skb)
{
	return ip6_local_out(NULL, skb->sk, skb);
}

/* a datagram's IPv6 header (6.1 builds it from the corked queue in __ip6_make_skb) */
noinline struct sk_buff *ip6_make_skb(struct sock *sk, struct sk_buff *skb, const struct in6_addr *saddr,
				      const struct in6_addr *daddr)
{
	ip6_fill_header(skb, saddr, daddr, sk->sk_protocol, 64);
	return skb;
}
