/*
 * Socket buffers (Linux's net/core/skbuff.c): a head from skbuff_head_cache, a data buffer
 * from kmalloc with skb_shared_info at its end; skb_clone() shares the data (dataref), the
 * last reference frees it.  kfree_skb_reason() is a drop (skb:kfree_skb with its reason),
 * consume_skb() a normal end (skb:consume_skb).
 */
#include "../../include/net.h"
#include "../../include/slab.h"
#include "../../include/trace/trace.h"

static struct kmem_cache *skbuff_head_cache;

#define SKB_DATA_ALIGN(x) (((x) + 63) & ~63u)

noinline struct sk_buff *__alloc_skb(unsigned int size, gfp_t gfp_mask, int flags, int node)
{
	struct sk_buff *skb;
	unsigned char *data;

	skb = kmem_cache_zalloc(skbuff_head_cache, gfp_mask);
	if (!skb)
		return NULL;
	size = SKB_DATA_ALIGN(size);
	data = kmalloc(size + sizeof(struct skb_shared_info), gfp_mask);
	if (!data) {
		kmem_cache_free(skbuff_head_cache, skb);
		return NULL;
	}
	skb->head = skb->data = data;
	skb->tail = 0;
	skb->end = size;
	skb->users = 1;
	skb->truesize = size + sizeof(struct sk_buff);
	skb->mac_header = skb->network_header = skb->transport_header = 0xffff;
	memset(skb_shinfo(skb), 0, sizeof(struct skb_shared_info));
	skb_shinfo(skb)->dataref = 1;
	return skb;
}

noinline struct sk_buff *skb_clone(struct sk_buff *skb, gfp_t gfp_mask)
{
	struct sk_buff *n = kmem_cache_alloc(skbuff_head_cache, gfp_mask);

	if (!n)
		return NULL;
	memcpy(n, skb, sizeof(*n));
	n->next = n->prev = NULL;
	n->sk = NULL;
	n->users = 1;
	n->cloned = 1;
	skb->cloned = 1;
	__atomic_add_fetch(&skb_shinfo(skb)->dataref, 1, __ATOMIC_RELAXED);
	return n;
}

static noinline void skb_release_data(struct sk_buff *skb)
{
	if (__atomic_sub_fetch(&skb_shinfo(skb)->dataref, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(skb->head);
}

/* the data (its last reference), then the head */
noinline void __kfree_skb(struct sk_buff *skb)
{
	skb_release_data(skb);
	kmem_cache_free(skbuff_head_cache, skb);
}

static notrace bool skb_unref(struct sk_buff *skb)
{
	if (!skb)
		return false;
	if (READ_ONCE(skb->users) == 1)
		return true;
	return __atomic_sub_fetch(&skb->users, 1, __ATOMIC_ACQ_REL) == 0;
}

noinline void kfree_skb_reason(struct sk_buff *skb, enum skb_drop_reason reason)
{
	if (!skb_unref(skb))
		return;
	trace_kfree_skb(skb, __builtin_return_address(0), reason);
	__kfree_skb(skb);
}

noinline void consume_skb(struct sk_buff *skb)
{
	if (!skb_unref(skb))
		return;
	trace_consume_skb(skb);
	__kfree_skb(skb);
}

noinline void *skb_put(struct sk_buff *skb, unsigned int len)
{
	void *tmp = skb_tail_pointer(skb);

	skb->tail += len;
	skb->len += len;
	if (skb->tail > skb->end)
		panic("skb_put: over panic");
	return tmp;
}

noinline void *skb_push(struct sk_buff *skb, unsigned int len)
{
	skb->data -= len;
	skb->len += len;
	if (skb->data < skb->head)
		panic("skb_push: under panic");
	return skb->data;
}

noinline void *skb_pull(struct sk_buff *skb, unsigned int len)
{
	if (len > skb->len)
		return NULL;
	skb->len -= len;
	return skb->data += len;
}

/* ---- queues: the __ forms with the queue's lock held (or none needed) ---- */
notrace void skb_queue_head_init(struct sk_buff_head *list)
{
	spin_lock_init(&list->lock);
	__skb_queue_head_init(list);
}

notrace void __skb_queue_tail(struct sk_buff_head *list, struct sk_buff *newsk)
{
	struct sk_buff *prev = list->prev;

	newsk->next = (struct sk_buff *)list;
	newsk->prev = prev;
	prev->next = newsk;
	list->prev = newsk;
	list->qlen++;
}

notrace void __skb_unlink(struct sk_buff *skb, struct sk_buff_head *list)
{
	struct sk_buff *next = skb->next, *prev = skb->prev;

	list->qlen--;
	next->prev = prev;
	prev->next = next;
	skb->next = skb->prev = NULL;
}

notrace struct sk_buff *__skb_dequeue(struct sk_buff_head *list)
{
	struct sk_buff *skb = skb_peek(list);

	if (skb)
		__skb_unlink(skb, list);
	return skb;
}

noinline void skb_queue_tail(struct sk_buff_head *list, struct sk_buff *newsk)
{
	unsigned long flags;

	spin_lock_irqsave(&list->lock, flags);
	__skb_queue_tail(list, newsk);
	spin_unlock_irqrestore(&list->lock, flags);
}

noinline struct sk_buff *skb_dequeue(struct sk_buff_head *list)
{
	unsigned long flags;
	struct sk_buff *skb;

	spin_lock_irqsave(&list->lock, flags);
	skb = __skb_dequeue(list);
	spin_unlock_irqrestore(&list->lock, flags);
	return skb;
}

noinline void skb_unlink(struct sk_buff *skb, struct sk_buff_head *list)
{
	unsigned long flags;

	spin_lock_irqsave(&list->lock, flags);
	__skb_unlink(skb, list);
	spin_unlock_irqrestore(&list->lock, flags);
}

noinline void skb_queue_purge(struct sk_buff_head *list)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(list)) != NULL)
		kfree_skb(skb);
}

/* net/core/datagram.c: len bytes from offset of the skb's data to the user */
noinline int skb_copy_datagram_iter(const struct sk_buff *skb, int offset, struct iov_iter *to, int len)
{
	trace_skb_copy_datagram_iovec(skb, len);
	if (copy_to_iter(skb->data + offset, len, to) != (size_t)len)
		return -EFAULT;
	return 0;
}

void __init skb_init(void)
{
	skbuff_head_cache = kmem_cache_create("skbuff_head_cache", sizeof(struct sk_buff), 64,
					      SLAB_PANIC, NULL);
}
