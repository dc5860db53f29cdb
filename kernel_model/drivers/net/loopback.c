/*
 * The loopback device (Linux's drivers/net/loopback.c): "lo", every packet sent is received
 * on the same cpu: loopback_xmit → __netif_rx, with bottom halves off (in __dev_queue_xmit),
 * so the receive softirq runs when the sender enables them again.
 */
#include "../../include/net.h"
#include "../../include/slab.h"

struct net_device *loopback_dev;

struct ethhdr {
	u8 h_dest[6];
	u8 h_source[6];
	__be16 h_proto;
} __attribute__((packed));

/* net/ethernet/eth.c: the header off, the protocol it names */
static noinline __be16 eth_type_trans(struct sk_buff *skb, struct net_device *dev)
{
	struct ethhdr *eth = (struct ethhdr *)skb->data;

	skb->dev = dev;
	skb_reset_mac_header(skb);
	skb_pull(skb, ETH_HLEN);
	skb->pkt_type = PACKET_HOST;
	return eth->h_proto;
}

static noinline netdev_tx_t loopback_xmit(struct sk_buff *skb, struct net_device *dev)
{
	unsigned int len;

	skb->sk = NULL;		/* skb_orphan() */
	skb->protocol = eth_type_trans(skb, dev);
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	len = skb->len;
	if (__netif_rx(skb) == 0) {
		dev->tx_packets++;
		dev->tx_bytes += len;
		dev->rx_packets++;
		dev->rx_bytes += len;
	}
	return NETDEV_TX_OK;
}

static const struct net_device_ops loopback_ops = {
	.ndo_start_xmit = loopback_xmit,
};

void loopback_net_init(void)
{
	struct net_device *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

	if (!dev)
		panic("loopback: no device");
	strscpy_pad(dev->name, "lo", IFNAMSIZ);
	dev->ifindex = 1;
	dev->mtu = 65536;
	dev->flags = IFF_UP | IFF_LOOPBACK;
	dev->netdev_ops = &loopback_ops;
	loopback_dev = dev;
}

/* net/ethernet/eth.c's header for a packet to the loopback: zero addresses */
noinline int eth_header(struct sk_buff *skb, struct net_device *dev, unsigned short type)
{
	struct ethhdr *eth = skb_push(skb, ETH_HLEN);

	memset(eth, 0, 12);
	eth->h_proto = htons(type);
	return ETH_HLEN;
}
