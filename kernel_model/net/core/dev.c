/*
 * The device layer (Linux's net/core/dev.c): transmit (dev_queue_xmit → __dev_queue_xmit →
 * dev_hard_start_xmit → xmit_one → the driver's ndo_start_xmit; loopback has no qdisc) with
 * net:net_dev_queue / net:net_dev_start_xmit / net:net_dev_xmit, and receive: netif_rx → netif_rx_internal (net:netif_rx)
 * → enqueue_to_backlog (a per-cpu queue of netdev_max_backlog packets; past it the packet is
 * dropped, reason CPU_BACKLOG) → NET_RX_SOFTIRQ → net_rx_action → napi_poll (napi:napi_poll) →
 * process_backlog → __netif_receive_skb → __netif_receive_skb_core (net:netif_receive_skb) →
 * ip_rcv.
 */
#include "../../include/net.h"
#include "../../include/trace/trace.h"

struct softnet_data softnet_data[NR_CPUS];
int netdev_max_backlog = 1000;		/* net.core.netdev_max_backlog */
static int netdev_budget = 300;		/* net.core.netdev_budget */
static int dev_weight_rx = 64;		/* net.core.dev_weight */
#define NET_RX_SUCCESS	0
#define NET_RX_DROP	1

static notrace noinline int xmit_one(struct sk_buff *skb, struct net_device *dev)
{
	unsigned int len = skb->len;
	int rc;

	trace_net_dev_start_xmit(skb, dev);
	rc = dev->netdev_ops->ndo_start_xmit(skb, dev);	/* netdev_start_xmit */
	trace_net_dev_xmit(skb, rc, dev, len);
	return rc;
}

noinline struct sk_buff *dev_hard_start_xmit(struct sk_buff *skb, struct net_device *dev, int *ret)
{
	*ret = xmit_one(skb, dev);
	return NULL;
}

noinline int __dev_queue_xmit(struct sk_buff *skb, struct net_device *sb_dev)
{
	struct net_device *dev = skb->dev;
	int rc = -ENETDOWN;

	skb_reset_mac_header(skb);
	local_bh_disable();	/* rcu_read_lock_bh() */
	trace_net_dev_queue(skb);
	if (dev->flags & IFF_UP) {
		dev_hard_start_xmit(skb, dev, &rc);
	} else {
		kfree_skb_reason(skb, SKB_DROP_REASON_DEV_READY);
	}
	local_bh_enable();	/* the receive softirq the loopback raised runs here */
	return rc;
}

/* ---- receive ---- */
static notrace void ____napi_schedule(struct softnet_data *sd, struct napi_struct *napi)
{
	list_add_tail(&napi->poll_list, &sd->poll_list);
	__raise_softirq_irqoff(NET_RX_SOFTIRQ);
}

static noinline int enqueue_to_backlog(struct sk_buff *skb, int cpu, unsigned int *qtail)
{
	struct softnet_data *sd = &softnet_data[cpu];
	enum skb_drop_reason reason = SKB_DROP_REASON_CPU_BACKLOG;
	unsigned long flags;
	unsigned int qlen;

	flags = arch_local_irq_save();
	spin_lock(&sd->input_pkt_queue.lock);
	qlen = sd->input_pkt_queue.qlen;
	if (qlen <= (unsigned int)netdev_max_backlog) {
		if (!qlen && !(sd->backlog.state & NAPIF_STATE_SCHED)) {
			sd->backlog.state |= NAPIF_STATE_SCHED;
			____napi_schedule(sd, &sd->backlog);
		}
		__skb_queue_tail(&sd->input_pkt_queue, skb);
		*qtail = sd->input_pkt_queue.qlen;
		spin_unlock(&sd->input_pkt_queue.lock);
		arch_local_irq_restore(flags);
		return NET_RX_SUCCESS;
	}
	sd->dropped++;
	spin_unlock(&sd->input_pkt_queue.lock);
	arch_local_irq_restore(flags);
	skb->dev->rx_dropped++;
	kfree_skb_reason(skb, reason);
	return NET_RX_DROP;
}

static noinline int netif_rx_internal(struct sk_buff *skb)
{
	unsigned int qtail;

	trace_netif_rx(skb);
	return enqueue_to_backlog(skb, smp_processor_id(), &qtail);
}

/* with bottom halves off (the loopback's transmit, in __dev_queue_xmit) */
noinline int __netif_rx(struct sk_buff *skb)
{
	return netif_rx_internal(skb);
}

noinline int netif_rx(struct sk_buff *skb)
{
	int ret;

	local_bh_disable();
	ret = netif_rx_internal(skb);
	local_bh_enable();
	return ret;
}

static noinline int __netif_receive_skb_core(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;

	trace_netif_receive_skb(skb);
	skb_reset_network_header(skb);
	if (skb->protocol == htons(ETH_P_IP))
		return ip_rcv(skb, skb->dev);
	if (skb->protocol == htons(ETH_P_IPV6))
		return ipv6_rcv(skb, skb->dev);
	kfree_skb_reason(skb, SKB_DROP_REASON_UNHANDLED_PROTO);
	return NET_RX_DROP;
}

static noinline int __netif_receive_skb_one_core(struct sk_buff *skb)
{
	return __netif_receive_skb_core(&skb);
}

static noinline int __netif_receive_skb(struct sk_buff *skb)
{
	return __netif_receive_skb_one_core(skb);
}

noinline int netif_receive_skb(struct sk_buff *skb)
{
	return __netif_receive_skb(skb);
}

/* the backlog's NAPI poll: up to quota packets of this cpu's input queue */
static noinline int process_backlog(struct napi_struct *napi, int quota)
{
	struct softnet_data *sd = container_of(napi, struct softnet_data, backlog);
	int work = 0;

	while (work < quota) {
		struct sk_buff *skb;

		local_irq_disable();
		spin_lock(&sd->input_pkt_queue.lock);
		skb = __skb_dequeue(&sd->input_pkt_queue);
		if (!skb) {
			/* napi_complete: nothing left, off the poll list */
			napi->state &= ~NAPIF_STATE_SCHED;
			spin_unlock(&sd->input_pkt_queue.lock);
			local_irq_enable();
			break;
		}
		spin_unlock(&sd->input_pkt_queue.lock);
		local_irq_enable();
		__netif_receive_skb(skb);
		work++;
		sd->processed++;
	}
	return work;
}

static notrace noinline int napi_poll(struct napi_struct *n, struct list_head *repoll)
{
	int weight = n->weight, work;

	work = n->poll(n, weight);
	trace_napi_poll(n, work, weight);
	if (work < weight)
		return work;
	list_add_tail(&n->poll_list, repoll);	/* more to do: poll it again */
	return work;
}

static void net_rx_action(struct softirq_action *h)
{
	struct softnet_data *sd = &softnet_data[smp_processor_id()];
	int budget = netdev_budget;
	struct list_head list, repoll;

	INIT_LIST_HEAD(&list);
	INIT_LIST_HEAD(&repoll);
	local_irq_disable();
	list_splice_init(&sd->poll_list, &list);
	local_irq_enable();
	for (;;) {
		struct napi_struct *n;

		if (list_empty(&list))
			break;
		n = list_first_entry(&list, struct napi_struct, poll_list);
		list_del_init(&n->poll_list);
		budget -= napi_poll(n, &repoll);
		if (budget <= 0) {
			sd->time_squeeze++;
			break;
		}
	}
	local_irq_disable();
	list_splice_tail_init(&list, &sd->poll_list);
	list_splice_tail_init(&repoll, &sd->poll_list);
	if (!list_empty(&sd->poll_list))
		__raise_softirq_irqoff(NET_RX_SOFTIRQ);
	local_irq_enable();
}

void __init net_dev_init(void)
{
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct softnet_data *sd = &softnet_data[cpu];

		INIT_LIST_HEAD(&sd->poll_list);
		skb_queue_head_init(&sd->input_pkt_queue);
		INIT_LIST_HEAD(&sd->backlog.poll_list);
		sd->backlog.poll = process_backlog;
		sd->backlog.weight = dev_weight_rx;
		sd->backlog.dev = NULL;
	}
	open_softirq(NET_RX_SOFTIRQ, net_rx_action);
}
