/*
 * A task's namespaces (kernel/nsproxy.c): every task shares init_nsproxy, the initial
 * namespaces, as 6.1's tasks do until one asks for a new namespace; asking is EINVAL here
 * (clone_flags_valid(), ksys_unshare(): no namespace is made).  So no nsproxy and no namespace
 * is ever freed: the counts are kept (fork takes a reference, exit drops it), the objects stay.
 * The kinds' proc_ns_operations (6.1: each in its namespace's file) give /proc/PID/ns/ a
 * task's namespace of each kind.
 */
#include "../include/kernel.h"
#include "../include/nsproxy.h"
#include "../include/pid.h"
#include "../include/cred.h"
#include "../include/fs.h"
#include "../include/net.h"
#include "../include/signal.h"

/* the initial namespaces of the kinds with nothing else in the model (kernel/time/namespace.c,
 * kernel/cgroup/cgroup.c): their 6.1 counts and numbers; init_ipc_ns is ipc/msgutil.c's */
struct time_namespace init_time_ns = {
	.ns = { .ops = &timens_operations, .inum = PROC_TIME_INIT_INO, .count = 3 },
};
struct cgroup_namespace init_cgroup_ns = {
	.ns = { .ops = &cgroupns_operations, .inum = PROC_CGROUP_INIT_INO, .count = 2 },
};

struct nsproxy init_nsproxy = {
	.count = 1,
	.uts_ns = &init_uts_ns,
	.ipc_ns = &init_ipc_ns,
	.mnt_ns = &init_mnt_ns,
	.pid_ns_for_children = &init_pid_ns,
	.net_ns = &init_net,
	.time_ns = &init_time_ns,
	.time_ns_for_children = &init_time_ns,
	.cgroup_ns = &init_cgroup_ns,
};

/* fork: the child shares its parent's namespaces (clone flags asking for new ones were
 * refused before) */
noinline int copy_namespaces(unsigned long flags, struct task_struct *tsk)
{
	struct nsproxy *old_ns = current->nsproxy ? current->nsproxy : &init_nsproxy;

	__atomic_add_fetch(&old_ns->count, 1, __ATOMIC_RELAXED);	/* get_nsproxy() */
	tsk->nsproxy = old_ns;
	return 0;
}

/* exit: the task lets go of its namespaces (switch_task_namespaces(p, NULL)); the last
 * reference to init_nsproxy is the boot's, never dropped */
noinline void exit_task_namespaces(struct task_struct *p)
{
	struct nsproxy *ns;
	unsigned long flags;

	spin_lock_irqsave(&sched_lock, flags);	/* task_lock() */
	ns = p->nsproxy;
	p->nsproxy = NULL;
	spin_unlock_irqrestore(&sched_lock, flags);
	if (ns)
		__atomic_sub_fetch(&ns->count, 1, __ATOMIC_RELAXED);	/* put_nsproxy() */
}

/* The task's namespace of a kind; NULL once it has exited (no nsproxy).  The caller holds
 * sched_lock (6.1's get takes task_lock() itself, and a reference: these are never freed). */
#define NSPROXY_GET(fn, field)							\
static noinline struct ns_common *fn(struct task_struct *task)			\
{										\
	return task->nsproxy ? &task->nsproxy->field->ns : NULL;		\
}
NSPROXY_GET(netns_get, net_ns)
NSPROXY_GET(utsns_get, uts_ns)
NSPROXY_GET(ipcns_get, ipc_ns)
NSPROXY_GET(pidns_for_children_get, pid_ns_for_children)
NSPROXY_GET(mntns_get, mnt_ns)
NSPROXY_GET(cgroupns_get, cgroup_ns)
NSPROXY_GET(timens_get, time_ns)
NSPROXY_GET(timens_for_children_get, time_ns_for_children)

/* the pid namespace the task's pid is in (task_active_pid_ns()) */
static noinline struct ns_common *pidns_get(struct task_struct *task)
{
	struct pid *pid = task->thread_pid;

	return pid ? &pid->numbers[pid->level].ns->ns : NULL;
}

/* its credentials' user namespace */
static noinline struct ns_common *userns_get(struct task_struct *task)
{
	return &task->cred->user_ns->ns;	/* __task_cred() */
}

const struct proc_ns_operations netns_operations = { .name = "net", .type = CLONE_NEWNET, .get = netns_get };
const struct proc_ns_operations utsns_operations = { .name = "uts", .type = CLONE_NEWUTS, .get = utsns_get };
const struct proc_ns_operations ipcns_operations = { .name = "ipc", .type = CLONE_NEWIPC, .get = ipcns_get };
const struct proc_ns_operations pidns_operations = { .name = "pid", .type = CLONE_NEWPID, .get = pidns_get };
const struct proc_ns_operations pidns_for_children_operations = {
	.name = "pid_for_children", .real_ns_name = "pid", .type = CLONE_NEWPID, .get = pidns_for_children_get,
};
const struct proc_ns_operations userns_operations = { .name = "user", .type = CLONE_NEWUSER, .get = userns_get };
const struct proc_ns_operations mntns_operations = { .name = "mnt", .type = CLONE_NEWNS, .get = mntns_get };
const struct proc_ns_operations cgroupns_operations = { .name = "cgroup", .type = CLONE_NEWCGROUP, .get = cgroupns_get };
const struct proc_ns_operations timens_operations = { .name = "time", .type = CLONE_NEWTIME, .get = timens_get };
const struct proc_ns_operations timens_for_children_operations = {
	.name = "time_for_children", .real_ns_name = "time", .type = CLONE_NEWTIME, .get = timens_for_children_get,
};
