/* net: packets queued, sent and received by a device (include/trace/events/net.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM net

TRACE_EVENT(net_dev_xmit,
	TP_PROTO(struct sk_buff *skb, int rc, struct net_device *dev, unsigned int skb_len),
	TP_ARGS(skb, rc, dev, skb_len),
	TP_STRUCT__entry(
		__field(	void *,		skbaddr		)
		__field(	unsigned int,	len		)
		__field(	int,		rc		)
		__string(	name,		dev->name	)
	),
	TP_fast_assign(
		__entry->skbaddr = skb;
		__entry->len = skb_len;
		__entry->rc = rc;
		__assign_str(name, dev->name);
	),
	TP_printk("dev=%s skbaddr=%p len=%u rc=%d",
		__get_str(name), __entry->skbaddr, __entry->len, __entry->rc)
)

#define NET_DEV_TEMPLATE(ev) \
TRACE_EVENT(ev, \
	TP_PROTO(struct sk_buff *skb), \
	TP_ARGS(skb), \
	TP_STRUCT__entry( \
		__field(	void *,		skbaddr		) \
		__field(	unsigned int,	len		) \
		__string(	name,		skb->dev->name	) \
	), \
	TP_fast_assign( \
		__entry->skbaddr = skb; \
		__entry->len = skb->len; \
		__assign_str(name, skb->dev->name); \
	), \
	TP_printk("dev=%s skbaddr=%p len=%u", \
		__get_str(name), __entry->skbaddr, __entry->len) \
)
NET_DEV_TEMPLATE(net_dev_queue)
NET_DEV_TEMPLATE(netif_receive_skb)
NET_DEV_TEMPLATE(netif_rx)
