/* net: packets queued, sent and received by a device (include/trace/events/net.h). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM net

TRACE_EVENT(net_dev_start_xmit,
	TP_PROTO(const struct sk_buff *skb, const struct net_device *dev),
	TP_ARGS(skb, dev),
	TP_STRUCT__entry(
		__string(	name,			dev->name	)
		__field(	u16,			queue_mapping	)
		__field(	const void *,		skbaddr		)
		__field(	bool,			vlan_tagged	)
		__field(	u16,			vlan_proto	)
		__field(	u16,			vlan_tci	)
		__field(	u16,			protocol	)
		__field(	u8,			ip_summed	)
		__field(	unsigned int,		len		)
		__field(	unsigned int,		data_len	)
		__field(	int,			network_offset	)
		__field(	bool,			transport_offset_valid)
		__field(	int,			transport_offset)
		__field(	u8,			tx_flags	)
		__field(	u16,			gso_size	)
		__field(	u16,			gso_segs	)
		__field(	u16,			gso_type	)
	),
	TP_fast_assign(
		__assign_str(name, dev->name);
		__entry->queue_mapping = skb->queue_mapping;
		__entry->skbaddr = skb;
		__entry->vlan_tagged = skb_vlan_tag_present(skb);
		__entry->vlan_proto = ntohs(skb->vlan_proto);
		__entry->vlan_tci = skb->vlan_tci;
		__entry->protocol = ntohs(skb->protocol);
		__entry->ip_summed = skb->ip_summed;
		__entry->len = skb->len;
		__entry->data_len = skb->data_len;
		__entry->network_offset = skb_network_offset(skb);
		__entry->transport_offset_valid =
			skb_transport_header_was_set(skb);
		__entry->transport_offset = skb_transport_header_was_set(skb) ?
			skb_transport_offset(skb) : 0;
		__entry->tx_flags = skb_shinfo(skb)->tx_flags;
		__entry->gso_size = skb_shinfo(skb)->gso_size;
		__entry->gso_segs = skb_shinfo(skb)->gso_segs;
		__entry->gso_type = skb_shinfo(skb)->gso_type;
	),
	TP_printk("dev=%s queue_mapping=%u skbaddr=%p vlan_tagged=%d vlan_proto=0x%04x vlan_tci=0x%04x protocol=0x%04x ip_summed=%d len=%u data_len=%u network_offset=%d transport_offset_valid=%d transport_offset=%d tx_flags=%d gso_size=%d gso_segs=%d gso_type=%#x",
		  __get_str(name), __entry->queue_mapping, __entry->skbaddr,
		  __entry->vlan_tagged, __entry->vlan_proto, __entry->vlan_tci,
		  __entry->protocol, __entry->ip_summed, __entry->len,
		  __entry->data_len,
		  __entry->network_offset, __entry->transport_offset_valid,
		  __entry->transport_offset, __entry->tx_flags,
		  __entry->gso_size, __entry->gso_segs, __entry->gso_type)
)

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
