/*
 * A task's namespaces (include/linux/nsproxy.h, include/linux/proc_ns.h): task->nsproxy, shared
 * by every task here, init_nsproxy (fork without CLONE_NEW* takes a reference, as 6.1's
 * copy_namespaces(); no new namespaces are made: clone/unshare asking for one is EINVAL, as a
 * 6.1 built without them answers, for all but the mount namespace, which 6.1 always has).  Each namespace struct holds its ns_common where Debian
 * 6.1's does; the model's own fields, where it has any, come before it in the gap.
 */
#ifndef _NSPROXY_H
#define _NSPROXY_H
#include "ns_common.h"
#include "ipc.h"

/* the clone flags asking for a new namespace (include/uapi/linux/sched.h) */
#define CLONE_NEWNS	0x00020000
#define CLONE_NEWCGROUP	0x02000000
#define CLONE_NEWUTS	0x04000000
#define CLONE_NEWIPC	0x08000000
#define CLONE_NEWUSER	0x10000000
#define CLONE_NEWPID	0x20000000
#define CLONE_NEWNET	0x40000000
#define CLONE_NEWTIME	0x00000080

struct task_struct;
struct uts_namespace;
struct pid_namespace;
struct mnt_namespace;
struct net;

/* the IPC namespace: its objects and limits (ipc.h) in the gap before its ns_common */
struct ipc_namespace {
	union {
		u8 __gap_0[1104];
		struct ipc_namespace_ipc ipc;
	};
	struct ns_common ns;
};
/* the time and cgroup namespaces: nothing of them here but their ns_common */
struct time_namespace {
	u8 __gap_0[16];
	struct ns_common ns;
};
struct cgroup_namespace {
	struct ns_common ns;
};
extern struct ipc_namespace init_ipc_ns;
extern struct time_namespace init_time_ns;
extern struct cgroup_namespace init_cgroup_ns;

struct nsproxy {
	int count;			/* atomic_t */
	struct uts_namespace *uts_ns;
	struct ipc_namespace *ipc_ns;
	struct mnt_namespace *mnt_ns;
	struct pid_namespace *pid_ns_for_children;
	struct net *net_ns;
	struct time_namespace *time_ns;
	struct time_namespace *time_ns_for_children;
	struct cgroup_namespace *cgroup_ns;
};
_Static_assert(__builtin_offsetof(struct nsproxy, uts_ns) == 8 && __builtin_offsetof(struct nsproxy, mnt_ns) == 24 &&
	       __builtin_offsetof(struct nsproxy, net_ns) == 40 && __builtin_offsetof(struct nsproxy, cgroup_ns) == 64 &&
	       sizeof(struct nsproxy) == 72, "struct nsproxy as Debian 6.1's");
extern struct nsproxy init_nsproxy;

int copy_namespaces(unsigned long flags, struct task_struct *tsk);
void exit_task_namespaces(struct task_struct *p);

/* A kind of namespace as /proc/PID/ns/ names it: name (the link's), real_ns_name (what its
 * target says: pid_for_children's is "pid"), get (the task's one, NULL once it has none) */
struct proc_ns_operations {
	const char *name;
	const char *real_ns_name;
	int type;			/* its CLONE_NEW* flag */
	struct ns_common *(*get)(struct task_struct *task);
};
extern const struct proc_ns_operations netns_operations, utsns_operations, ipcns_operations,
	pidns_operations, pidns_for_children_operations, userns_operations, mntns_operations,
	cgroupns_operations, timens_operations, timens_for_children_operations;
#endif
