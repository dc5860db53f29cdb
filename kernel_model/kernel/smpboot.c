/* Per-cpu kernel threads (kernel/smpboot.c): one thread per cpu, bound to it,
 * that sleeps until thread_should_run() and then calls thread_fn(). */
#include "../include/kernel.h"

struct smpboot_thread_data {
	unsigned int cpu;
	struct smp_hotplug_thread *ht;
};

static int smpboot_thread_fn(void *data)
{
	struct smpboot_thread_data *td = data;
	struct smp_hotplug_thread *ht = td->ht;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		preempt_disable();
		if (!ht->thread_should_run(td->cpu)) {
			preempt_enable_no_resched();
			schedule();
		} else {
			set_current_state(TASK_RUNNING);
			preempt_enable();
			ht->thread_fn(td->cpu);
		}
	}
	return 0;
}

int smpboot_register_percpu_thread(struct smp_hotplug_thread *ht)
{
	char name[TASK_COMM_LEN];
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct smpboot_thread_data *td = kzalloc(sizeof(*td), GFP_KERNEL);
		pid_t pid;

		if (!td)
			return -ENOMEM;
		td->cpu = cpu;
		td->ht = ht;
		scnprintf(name, sizeof(name), ht->thread_comm, cpu);
		pid = kernel_thread(smpboot_thread_fn, td, name, cpu);
		if (pid < 0)
			return pid;
		ht->tasks[cpu] = find_task_by_pid(pid);
		ht->tasks[cpu]->flags |= PF_NO_SETAFFINITY;
	}
	return 0;
}
