/*
 * IPv4 input (Linux's net/ipv4/ip_input.c): ip_rcv → ip_rcv_core (the header's checks) →
 * ip_rcv_finish (the route: a loopback address is local) → ip_local_deliver →
 * ip_local_deliver_finish → ip_protocol_deliver_rcu → tcp_v4_rcv or udp_rcv.
 */
#include "../../include/net.h"

u16 ip_fast_csum(const void *iph, unsigned int ihl);

static noinline void ip_protocol_deliver_rcu(struct sk_buff *skb, int protocol)
{
	switch (protocol) {
	case IPPROTO_TCP:
		tcp_v4_rcv(skb);
		break;
	case IPPROTO_UDP:
		udp_rcv(skb);
		break;
	default:
		kfree_skb_reason(skb, SKB_DROP_REASON_IP_NOPROTO);
	}
}

static noinline int ip_local_deliver_finish(struct sk_buff *skb)
{
	skb_pull(skb, ip_hdr(skb)->ihl * 4);
	skb_reset_transport_header(skb);
	ip_protocol_deliver_rcu(skb, ip_hdr(skb)->protocol);
	return 0;
}

noinline int ip_local_deliver(struct sk_buff *skb)
{
	return ip_local_deliver_finish(skb);
}

static noinline int ip_rcv_finish(struct sk_buff *skb)
{
	if (!ipv4_is_loopback(ip_hdr(skb)->daddr)) {
		kfree_skb_reason(skb, SKB_DROP_REASON_IP_INADDRERRORS);
		return 1;
	}
	return ip_local_deliver(skb);
}

static noinline struct sk_buff *ip_rcv_core(struct sk_buff *skb)
{
	struct iphdr *iph;
	unsigned int len;
	enum skb_drop_reason reason = SKB_DROP_REASON_IP_INHDR;

	if (skb->len < sizeof(struct iphdr))
		goto drop;
	iph = ip_hdr(skb);
	if (iph->ihl < 5 || iph->version != 4 || skb->len < iph->ihl * 4u)
		goto drop;
	if (ip_fast_csum(iph, iph->ihl)) {
		reason = SKB_DROP_REASON_IP_CSUM;
		goto drop;
	}
	len = ntohs(iph->tot_len);
	if (skb->len < len || len < iph->ihl * 4u) {
		reason = SKB_DROP_REASON_PKT_TOO_SMALL;
		goto drop;
	}
	if (skb->len > len) {	/* pskb_trim_rcsum() */
		skb->tail -= skb->len - len;
		skb->len = len;
	}
	return skb;
drop:
	kfree_skb_reason(skb, reason);
	return NULL;
}

noinline int ip_rcv(struct sk_buff *skb, struct net_device *dev)
{
	skb = ip_rcv_core(skb);
	if (!skb)
		return 1;
	return ip_rcv_finish(skb);
}
