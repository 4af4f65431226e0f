/* A circular doubly linked list (Linux style, intrusive). */
#ifndef RUNG_LIST_H
#define RUNG_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)     \
	{                        \
		&(name), &(name) \
	}

static inline void list_init(struct list_head *h)
{
	h->next = h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void list_insert_between(struct list_head *n, struct list_head *prev,
				       struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	list_insert_between(n, head, head->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	list_insert_between(n, head->prev, head);
}

static inline void list_del(struct list_head *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
	n->next = n->prev = n;
}

/* list_del leaves the entry pointing at itself, so it may be deleted again. */
static inline void list_del_init(struct list_head *n)
{
	list_del(n);
}

#define list_entry(ptr, type, member)	     ((type *)((char *)(ptr)-offsetof(type, member)))
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_first_entry_or_null(head, type, member) \
	(list_empty(head) ? NULL : list_first_entry(head, type, member))

#define list_for_each_entry(pos, head, member)                                                 \
	for (pos = list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head); \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

#define list_for_each_entry_safe(pos, n, head, member)                  \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),  \
	    n = list_entry(pos->member.next, __typeof__(*pos), member); \
	     &pos->member != (head);                                    \
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

#endif
