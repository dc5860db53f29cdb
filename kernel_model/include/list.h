/* Doubly linked circular lists, as in include/linux/list.h. */
#ifndef _LIST_H
#define _LIST_H
#include "types.h"
struct list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
static __always_inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l; l->prev = l; }
static __always_inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{ next->prev = n; n->next = next; n->prev = prev; prev->next = n; }
static __always_inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static __always_inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static __always_inline void list_del_init(struct list_head *e)
{ e->next->prev = e->prev; e->prev->next = e->next; INIT_LIST_HEAD(e); }
static __always_inline void list_del(struct list_head *e)
{ e->next->prev = e->prev; e->prev->next = e->next; }
static __always_inline void list_move(struct list_head *e, struct list_head *h) { list_del(e); list_add(e, h); }
static __always_inline void list_move_tail(struct list_head *e, struct list_head *h) { list_del(e); list_add_tail(e, h); }
static __always_inline bool list_empty(const struct list_head *h) { return h->next == h; }
static __always_inline void __list_splice(const struct list_head *list, struct list_head *prev,
					  struct list_head *next)
{
	struct list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}
static __always_inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}
static __always_inline void list_splice_tail_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}
#define list_entry(p, t, m) container_of(p, t, m)
#define list_first_entry(h, t, m) list_entry((h)->next, t, m)
#define list_for_each_entry(pos, head, m) \
	for (pos = list_entry((head)->next, typeof(*pos), m); &pos->m != (head); \
	     pos = list_entry(pos->m.next, typeof(*pos), m))
#define list_first_entry_or_null(h, t, m) (list_empty(h) ? NULL : list_first_entry(h, t, m))
#define list_last_entry(h, t, m) list_entry((h)->prev, t, m)
#define list_for_each_entry_reverse(pos, head, m) \
	for (pos = list_entry((head)->prev, typeof(*pos), m); &pos->m != (head); \
	     pos = list_entry(pos->m.prev, typeof(*pos), m))
#define list_for_each_entry_safe(pos, n, head, m) \
	for (pos = list_entry((head)->next, typeof(*pos), m), n = list_entry(pos->m.next, typeof(*pos), m); \
	     &pos->m != (head); pos = n, n = list_entry(n->m.next, typeof(*n), m))
/* from pos on (pos itself first) */
#define list_for_each_entry_safe_from(pos, n, head, m) \
	for (n = list_entry(pos->m.next, typeof(*pos), m); \
	     &pos->m != (head); pos = n, n = list_entry(n->m.next, typeof(*n), m))
#define list_for_each_entry_safe_reverse(pos, n, head, m) \
	for (pos = list_entry((head)->prev, typeof(*pos), m), n = list_entry(pos->m.prev, typeof(*pos), m); \
	     &pos->m != (head); pos = n, n = list_entry(n->m.prev, typeof(*n), m))
#endif
