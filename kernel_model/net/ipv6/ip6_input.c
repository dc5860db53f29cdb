/*
 * IPv6 input (Linux's net/ipv6/ip6_input.c): ipv6_rcv → ip6_rcv_core (the header's checks) →
 * ip6_rcv_finish (the route: ::1 and the any address are local here) → ip6_input →
 * ip6_input_finish → ip6_protocol_deliver_rcu → tcp_v6_rcv or udpv6_rcv.
 */
#include "../../include/net.h"

noinline void ip6_protocol_deliver_rcu(struct net *net, struct sk_buff *skb, int nexthdr, bool have_final)
{
	switch (nexthdr) {
	case IPPROTO_TCP:
		tcp_v6_rcv(skb);
		break;
	case IPPROTO_UDP:
		udpv6_rcv(skb);
		break;
	default:
		kfree_skb_reason(skb, SKB_DROP_REASON_IP_NOPROTO);
	}
}

noinline int ip6_input_finish(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	skb_pull(skb, sizeof(struct ipv6hdr));
	skb_reset_transport_header(skb);
	ip6_protocol_deliver_rcu(net, skb, ipv6_hdr(skb)->nexthdr, false);
	return 0;
}

noinline int ip6_input(struct sk_buff *skb)
{
	return ip6_input_finish(NULL, NULL, skb);
}

noinline int ip6_rcv_finish(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	if (!ipv6_addr_loopback(&ipv6_hdr(skb)->daddr)) {
		kfree_skb_reason(skb, SKB_DROP_REASON_IP_INADDRERRORS);
		return 1;
	}
	return ip6_input(skb);	/* dst_input() */
}

noinline struct sk_buff *ip6_rcv_core(struct sk_buff *skb, struct net_device *dev, struct net *net)
{
	enum skb_drop_reason reason = SKB_DROP_REASON_IP_INHDR;
	const struct ipv6hdr *hdr;
	u32 pkt_len;

	if (skb->len < sizeof(struct ipv6hdr))
		goto drop;
	hdr = ipv6_hdr(skb);
	if (hdr->version != 6)
		goto drop;
	pkt_len = ntohs(hdr->payload_len);
	if (pkt_len + sizeof(struct ipv6hdr) > skb->len) {
		reason = SKB_DROP_REASON_PKT_TOO_SMALL;
		goto drop;
	}
	if (skb->len > pkt_len + sizeof(struct ipv6hdr)) {	/* pskb_trim_rcsum() */
		skb->tail -= skb->len - (pkt_len + sizeof(struct ipv6hdr));
		skb->len = pkt_len + sizeof(struct ipv6hdr);
	}
	return skb;
drop:
	kfree_skb_reason(skb, reason);
	return NULL;
}

noinline int ipv6_rcv(struct sk_buff *skb, struct net_device *dev)
{
	skb = ip6_rcv_core(skb, dev, NULL);
	if (!skb)
		return 1;
	return ip6_rcv_finish(NULL, NULL, skb);
}
