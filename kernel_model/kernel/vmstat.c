/*
 * Per-cpu statistics folded into global counters (mm/vmstat.c): each cpu's
 * vmstat_update() runs as a deferrable delayed work on mm_percpu_wq, once a
 * second while its counters change; vmstat_shepherd(), on system_wq every
 * second, queues it again for a cpu whose counters moved after it stopped.
 */
#include "../include/kernel.h"

#define sysctl_stat_interval HZ

u64 vm_stat_syscalls, vm_stat_ctxt;
static u64 fold_syscalls[NR_CPUS], fold_ctxt[NR_CPUS];
static struct delayed_work vmstat_work[NR_CPUS];
static struct delayed_work shepherd;

static noinline bool need_update(int cpu)
{
	return cpu_data[cpu].stat_syscalls != fold_syscalls[cpu] || cpu_data[cpu].stat_ctxt != fold_ctxt[cpu];
}

/* This cpu's counters into the global ones: whether they had moved. */
static noinline int refresh_cpu_vm_stats(void)
{
	int cpu = smp_processor_id();
	struct percpu *pc = &cpu_data[cpu];
	u64 s = pc->stat_syscalls, c = pc->stat_ctxt;
	int changes = (s != fold_syscalls[cpu]) + (c != fold_ctxt[cpu]);

	__atomic_add_fetch(&vm_stat_syscalls, s - fold_syscalls[cpu], __ATOMIC_RELAXED);
	__atomic_add_fetch(&vm_stat_ctxt, c - fold_ctxt[cpu], __ATOMIC_RELAXED);
	fold_syscalls[cpu] = s;
	fold_ctxt[cpu] = c;
	return changes;
}

static void vmstat_update(struct work_struct *w)
{
	if (refresh_cpu_vm_stats())
		queue_delayed_work_on(smp_processor_id(), mm_percpu_wq, &vmstat_work[smp_processor_id()],
				      round_jiffies_relative(sysctl_stat_interval));
}

static void vmstat_shepherd(struct work_struct *w)
{
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (!(READ_ONCE(vmstat_work[cpu].work.data) & WORK_STRUCT_PENDING) && need_update(cpu))
			queue_delayed_work_on(cpu, mm_percpu_wq, &vmstat_work[cpu], 0);
	queue_delayed_work_on(WORK_CPU_UNBOUND, system_wq, &shepherd, round_jiffies_relative(sysctl_stat_interval));
}

void __init init_mm_internals(void)
{
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		INIT_DEFERRABLE_WORK(&vmstat_work[cpu], vmstat_update);
	INIT_DEFERRABLE_WORK(&shepherd, vmstat_shepherd);
	queue_delayed_work_on(WORK_CPU_UNBOUND, system_wq, &shepherd, round_jiffies_relative(sysctl_stat_interval));
}
