#ifndef _SCHED_DEBUG_H
#define _SCHED_DEBUG_H
/* include/linux/sched/debug.h: what /proc/PID/sched shows (kernel/sched/debug.c) */
struct pid_namespace;
struct seq_file;
void proc_sched_show_task(struct task_struct *p, struct pid_namespace *ns, struct seq_file *m);
#endif
