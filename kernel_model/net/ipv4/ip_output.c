/*
 * IPv4 output (Linux's net/ipv4/ip_output.c): ip_queue_xmit (a connected socket's packet) and
 * ip_build_and_send_pkt (a reply built from a request's or a packet's addresses) put the IP
 * header on; ip_local_out → __ip_local_out → ip_output → ip_finish_output →
 * __ip_finish_output → ip_finish_output2 (the link header, neigh_output's part) →
 * dev_queue_xmit.  Every route is the loopback's.
 */
#include "../../include/net.h"

static u16 ip_ident;

/* include/net/checksum.h / arch/x86/include/asm/checksum_64.h: the header checksum */
notrace u16 ip_fast_csum(const void *iph, unsigned int ihl)
{
	const u16 *p = iph;
	u32 sum = 0;
	unsigned int i;

	for (i = 0; i < ihl * 2; i++)
		sum += p[i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

static noinline int ip_finish_output2(struct sock *sk, struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;

	eth_header(skb, dev, ETH_P_IP);
	return dev_queue_xmit(skb);
}

static noinline int __ip_finish_output(struct sock *sk, struct sk_buff *skb)
{
	if (skb->len > skb->dev->mtu) {
		kfree_skb_reason(skb, SKB_DROP_REASON_PKT_TOO_BIG);
		return -EMSGSIZE;
	}
	return ip_finish_output2(sk, skb);
}

static noinline int ip_finish_output(struct sock *sk, struct sk_buff *skb)
{
	return __ip_finish_output(sk, skb);
}

noinline int ip_output(struct sock *sk, struct sk_buff *skb)
{
	skb->protocol = htons(ETH_P_IP);
	return ip_finish_output(sk, skb);
}

static noinline int __ip_local_out(struct sock *sk, struct sk_buff *skb)
{
	struct iphdr *iph = ip_hdr(skb);

	iph->tot_len = htons(skb->len);
	iph->check = 0;
	iph->check = ip_fast_csum(iph, iph->ihl);
	skb->protocol = htons(ETH_P_IP);
	return 1;
}

noinline int ip_local_out(struct sock *sk, struct sk_buff *skb)
{
	int err = __ip_local_out(sk, skb);

	if (err == 1)
		err = ip_output(sk, skb);	/* dst_output() */
	return err;
}

static notrace void ip_fill_header(struct sk_buff *skb, __be32 saddr, __be32 daddr, u8 protocol, u8 ttl)
{
	struct iphdr *iph = skb_push(skb, sizeof(struct iphdr));

	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = 0;
	iph->frag_off = htons(0x4000);	/* IP_DF */
	iph->ttl = ttl;
	iph->protocol = protocol;
	iph->saddr = saddr;
	iph->daddr = daddr;
	iph->id = htons(__atomic_add_fetch(&ip_ident, 1, __ATOMIC_RELAXED));
	skb->dev = loopback_dev;
}

/* __ip_queue_xmit(): the socket's addresses */
static noinline int __ip_queue_xmit(struct sock *sk, struct sk_buff *skb, u8 tos)
{
	struct inet_sock *inet = inet_sk(sk);

	ip_fill_header(skb, inet->inet_saddr, inet->inet_daddr, sk->sk_protocol, inet->ttl ? : 64);
	return ip_local_out(sk, skb);
}

noinline int ip_queue_xmit(struct sock *sk, struct sk_buff *skb)
{
	return __ip_queue_xmit(sk, skb, inet_sk(sk)->tos);
}

noinline int ip_build_and_send_pkt(struct sk_buff *skb, const struct sock *sk, __be32 saddr, __be32 daddr, u8 protocol)
{
	ip_fill_header(skb, saddr, daddr, protocol, 64);
	return ip_local_out((struct sock *)sk, skb);
}
