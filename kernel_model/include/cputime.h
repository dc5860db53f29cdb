/* CPU time accounting (include/linux/kernel_stat.h, sched/cputime.h): the per-cpu counters of
 * /proc/stat's cpu lines and a thread group's times; kernel/sched/cputime.c. */
#ifndef _CPUTIME_H
#define _CPUTIME_H
#include "types.h"

#define SOFTIRQ_MASK	0xff00

enum cpu_usage_stat {
	CPUTIME_USER,
	CPUTIME_NICE,
	CPUTIME_SYSTEM,
	CPUTIME_SOFTIRQ,
	CPUTIME_IRQ,
	CPUTIME_IDLE,
	CPUTIME_IOWAIT,
	CPUTIME_STEAL,
	CPUTIME_GUEST,
	CPUTIME_GUEST_NICE,
	NR_STATS,
};

struct kernel_cpustat {
	u64 cpustat[NR_STATS];	/* ns */
};
extern struct kernel_cpustat kernel_cpustat[];

struct task_cputime {
	u64 stime;
	u64 utime;
	unsigned long long sum_exec_runtime;
};

struct task_struct;
void account_user_time(struct task_struct *p, u64 cputime);
void account_system_time(struct task_struct *p, int hardirq_offset, u64 cputime);
void account_system_index_time(struct task_struct *p, u64 cputime, enum cpu_usage_stat index);
void account_idle_time(u64 cputime);
void account_process_tick(struct task_struct *p, int user_tick);
void account_idle_ticks(unsigned long ticks);
void task_cputime(struct task_struct *t, u64 *utime, u64 *stime);
void thread_group_cputime(struct task_struct *tsk, struct task_cputime *times);
void thread_group_cputime_adjusted(struct task_struct *p, u64 *ut, u64 *st);
void cputime_adjust(u64 rtime, u64 *ut, u64 *st);
u64 task_sched_runtime(struct task_struct *t);
#endif
