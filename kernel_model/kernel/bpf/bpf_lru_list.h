/* The LRU lists of the LRU hash maps (kernel/bpf/bpf_lru_list.h of 6.1). */
#ifndef _BPF_LRU_LIST_H
#define _BPF_LRU_LIST_H
#include "../../include/kernel.h"
#include "../../include/list.h"

#define NR_BPF_LRU_LIST_T	3
#define NR_BPF_LRU_LIST_COUNT	2
#define NR_BPF_LRU_LOCAL_LIST_T	2
#define BPF_LOCAL_LIST_T_OFFSET	NR_BPF_LRU_LIST_T

enum bpf_lru_list_type {
	BPF_LRU_LIST_T_ACTIVE,
	BPF_LRU_LIST_T_INACTIVE,
	BPF_LRU_LIST_T_FREE,
	BPF_LRU_LOCAL_LIST_T_FREE,
	BPF_LRU_LOCAL_LIST_T_PENDING,
};

struct bpf_lru_node {
	struct list_head list;
	u16 cpu;
	u8 type;
	u8 ref;		/* looked up since it was last rotated */
};

struct bpf_lru_list {
	struct list_head lists[NR_BPF_LRU_LIST_T];
	unsigned int counts[NR_BPF_LRU_LIST_COUNT];
	struct list_head *next_inactive_rotation;	/* where the next inactive rotation starts */
	raw_spinlock_t lock;
};

/* a cpu's own free nodes, and the ones it handed out since its last flush to the common list */
struct bpf_lru_locallist {
	struct list_head lists[NR_BPF_LRU_LOCAL_LIST_T];
	u16 next_steal;
	raw_spinlock_t lock;
};

struct bpf_common_lru {
	struct bpf_lru_list lru_list;
	struct bpf_lru_locallist *local_list;	/* one per possible cpu */
};

/* del_from_htab(arg, node): unlink node's element from its map; false if it was not there */
typedef bool (*del_from_htab_func)(void *arg, struct bpf_lru_node *node);

struct bpf_lru {
	union {
		struct bpf_common_lru common_lru;
		struct bpf_lru_list *percpu_lru;	/* BPF_F_NO_COMMON_LRU: one list per possible cpu */
	};
	del_from_htab_func del_from_htab;
	void *del_arg;
	unsigned int hash_offset;	/* from a node to its element's hash */
	unsigned int nr_scans;
	bool percpu;
};

static __always_inline void bpf_lru_node_set_ref(struct bpf_lru_node *node)
{
	if (!READ_ONCE(node->ref))
		WRITE_ONCE(node->ref, 1);
}

int bpf_lru_init(struct bpf_lru *lru, bool percpu, u32 hash_offset, del_from_htab_func del_from_htab,
		 void *delete_arg);
void bpf_lru_populate(struct bpf_lru *lru, void *buf, u32 node_offset, u32 elem_size, u32 nr_elems);
void bpf_lru_destroy(struct bpf_lru *lru);
struct bpf_lru_node *bpf_lru_pop_free(struct bpf_lru *lru, u32 hash);
void bpf_lru_push_free(struct bpf_lru *lru, struct bpf_lru_node *node);
#endif
