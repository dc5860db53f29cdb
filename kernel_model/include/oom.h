/* The OOM killer (include/linux/oom.h, mm/oom_kill.c): struct oom_control as Linux 6.1 lays
 * it out on x86-64 (BCC's oomkill reads oc->chosen and oc->totalpages at Debian 6.1's offsets). */
#ifndef _OOM_H
#define _OOM_H
#include "kernel.h"
#include "signal.h"

enum oom_constraint {
	CONSTRAINT_NONE,
	CONSTRAINT_CPUSET,
	CONSTRAINT_MEMORY_POLICY,
	CONSTRAINT_MEMCG,
};

struct zonelist;
struct mem_cgroup;
struct oom_control {
	struct zonelist *zonelist;	/* (one node, one zone here: NULL) */
	void *nodemask;
	struct mem_cgroup *memcg;	/* NULL: a global OOM */
	const gfp_t gfp_mask;
	const int order;
	unsigned long totalpages;	/* the RAM the allocation could have had */
	struct task_struct *chosen;	/* the victim; (void *)-1UL: wait for the one in flight */
	long chosen_points;
	enum oom_constraint constraint;
};
_Static_assert(offsetof(struct oom_control, gfp_mask) == 24 && offsetof(struct oom_control, totalpages) == 32 &&
	       offsetof(struct oom_control, chosen) == 40 && offsetof(struct oom_control, chosen_points) == 48 &&
	       sizeof(struct oom_control) == 64, "struct oom_control as Debian 6.1's");

#define LONG_MIN (-__LONG_MAX__ - 1)
/* include/uapi/linux/oom.h */
#define OOM_SCORE_ADJ_MIN	(-1000)
#define OOM_SCORE_ADJ_MAX	1000

/* A victim of the OOM killer: its group's signal struct holds the victim's mm. */
static inline bool tsk_is_oom_victim(struct task_struct *tsk)
{
	return tsk->signal && tsk->signal->oom_mm;
}

extern struct mutex oom_lock;
extern unsigned long oom_victims_gone, oom_victims_gone_seen;
bool out_of_memory(struct oom_control *oc);
long oom_badness(struct task_struct *p, unsigned long totalpages);
void exit_oom_victim(struct task_struct *tsk);
void pagefault_out_of_memory(void);
extern unsigned long _totalram_pages;
static inline unsigned long totalram_pages(void)
{
	return READ_ONCE(_totalram_pages);
}
#endif
