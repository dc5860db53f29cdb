/*
 * The LSM hooks (security/security.c).  This kernel is built with one LSM, "capability"
 * (security/commoncap.c): a hook it implements in 6.1 (capability_hooks: capable, mmap_addr,
 * mmap_file, bprm_creds_from_file, ...) calls its cap_* function; every other one runs
 * call_int_hook()/call_void_hook() over an empty list and returns the hook's default, as a 6.1
 * built without other modules does.  The checks 6.1 makes before its list (IS_PRIVATE: an
 * inode the kernel keeps for itself is no module's business) are kept.  No blobs: with no
 * module asking for one, 6.1's lsm_*_alloc() leave i_security, f_security, ... NULL, fields
 * this kernel's structures do not have.  Every security_* function here is traceable, as
 * 6.1's available_filter_functions lists them.
 */
#include "../include/security.h"
#include "../include/cred.h"
#include "../include/binfmts.h"
#include "../include/net.h"
#include "../include/personality.h"

/* what call_int_hook(HOOK, IRC, ...) returns with no module on HOOK's list */
#define call_int_hook_empty(IRC)	(IRC)

static __always_inline bool IS_PRIVATE(const struct inode *inode)
{
	return inode->i_flags & S_PRIVATE;
}

static __always_inline struct inode *d_backing_inode(const struct dentry *dentry)
{
	return dentry->d_inode;
}

static __always_inline bool d_is_positive(const struct dentry *dentry)
{
	return dentry->d_inode != NULL;
}

/* ---- tasks, the log, file systems: hooks no module here implements ---- */
noinline int security_task_setpgid(struct task_struct *p, pid_t pgid)
{
	return call_int_hook_empty(0);
}

noinline int security_task_getpgid(struct task_struct *p)
{
	return call_int_hook_empty(0);
}

noinline int security_capget(struct task_struct *target, kernel_cap_t *effective, kernel_cap_t *inheritable,
			     kernel_cap_t *permitted)
{
	return cap_capget(target, effective, inheritable, permitted);	/* call_int_hook(capget, 0, ...) */
}

noinline int security_capset(struct cred *new, const struct cred *old, const kernel_cap_t *effective,
			     const kernel_cap_t *inheritable, const kernel_cap_t *permitted)
{
	return cap_capset(new, old, effective, inheritable, permitted);	/* call_int_hook(capset, 0, ...) */
}

noinline int security_task_fix_setuid(struct cred *new, const struct cred *old, int flags)
{
	return cap_task_fix_setuid(new, old, flags);	/* call_int_hook(task_fix_setuid, 0, ...) */
}

/* the capability module's options, or -ENOSYS: prctl's own (6.1's call_int_hook with -ENOSYS
 * as the "not mine" answer) */
noinline int security_task_prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4,
				 unsigned long arg5)
{
	return cap_task_prctl(option, arg2, arg3, arg4, arg5);
}

noinline int security_task_setscheduler(struct task_struct *p)
{
	return cap_task_setscheduler(p);	/* call_int_hook(task_setscheduler, 0, p) */
}

noinline int security_task_getscheduler(struct task_struct *p)
{
	return call_int_hook_empty(0);
}

noinline int security_task_setioprio(struct task_struct *p, int ioprio)
{
	return cap_task_setioprio(p, ioprio);	/* call_int_hook(task_setioprio, 0, p, ioprio) */
}

noinline int security_task_getioprio(struct task_struct *p)
{
	return call_int_hook_empty(0);
}

noinline int security_task_prlimit(const struct cred *cred, const struct cred *tcred, unsigned int flags)
{
	return call_int_hook_empty(0);
}

noinline int security_task_setrlimit(struct task_struct *p, unsigned int resource, struct rlimit *new_rlim)
{
	return call_int_hook_empty(0);
}

noinline int security_task_setnice(struct task_struct *p, int nice)
{
	return cap_task_setnice(p, nice);	/* call_int_hook(task_setnice, 0, p, nice) */
}

noinline int security_task_getsid(struct task_struct *p)
{
	return call_int_hook_empty(0);
}

noinline int security_syslog(int type)
{
	return call_int_hook_empty(0);
}

noinline int security_sb_statfs(struct dentry *dentry)
{
	return call_int_hook_empty(0);
}

/* ---- perf events (no module: allowed) ---- */
noinline int security_perf_event_open(struct perf_event_attr *attr, int type)
{
	return call_int_hook_empty(0);
}

noinline int security_perf_event_read(struct perf_event *event)
{
	return call_int_hook_empty(0);
}

noinline int security_perf_event_write(struct perf_event *event)
{
	return call_int_hook_empty(0);
}

/* ---- bpf (no module: allowed) ---- */
noinline int security_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return call_int_hook_empty(0);
}

noinline int security_bpf_map(struct bpf_map *map, fmode_t fmode)
{
	return call_int_hook_empty(0);
}

noinline int security_bpf_prog(struct bpf_prog *prog)
{
	return call_int_hook_empty(0);
}

noinline int security_bpf_map_alloc(struct bpf_map *map)
{
	return call_int_hook_empty(0);
}

noinline int security_bpf_prog_alloc(void *aux)
{
	return call_int_hook_empty(0);
}

/* ---- inet connections (no module: allowed, nothing kept) ---- */
noinline void security_sock_graft(struct sock *sk, struct socket *parent)
{
	/* call_void_hook(sock_graft, sk, parent): no module */
}

noinline int security_inet_conn_request(const struct sock *sk, struct sk_buff *skb, struct request_sock *req)
{
	return call_int_hook_empty(0);
}

noinline void security_inet_csk_clone(struct sock *newsk, const struct request_sock *req)
{
	/* call_void_hook(inet_csk_clone, newsk, req): no module */
}

noinline void security_inet_conn_established(struct sock *sk, struct sk_buff *skb)
{
	/* call_void_hook(inet_conn_established, sk, skb): no module */
}

/* ---- capability ---- */
noinline int security_capable(const struct cred *cred, struct user_namespace *ns, int cap, unsigned int opts)
{
	return cap_capable(cred, ns, cap, opts);	/* call_int_hook(capable, 0, ...) */
}

/* ---- exec (fs/exec.c's bprm_execve, search_binary_handler, begin_new_exec) ---- */
noinline int security_bprm_creds_for_exec(struct linux_binprm *bprm)
{
	return call_int_hook_empty(0);
}

noinline int security_bprm_creds_from_file(struct linux_binprm *bprm, struct file *file)
{
	return cap_bprm_creds_from_file(bprm, file);	/* call_int_hook(bprm_creds_from_file, 0, ...) */
}

noinline int security_bprm_check(struct linux_binprm *bprm)
{
	/* then ima_bprm_check(): IMA is not built */
	return call_int_hook_empty(0);
}

noinline void security_bprm_committing_creds(struct linux_binprm *bprm)
{
}

noinline void security_bprm_committed_creds(struct linux_binprm *bprm)
{
}

/* ---- inodes ---- */
noinline int security_inode_alloc(struct inode *inode)
{
	return call_int_hook_empty(0);	/* lsm_inode_alloc(): no blob to allocate */
}

noinline void security_inode_free(struct inode *inode)
{
}

noinline void security_d_instantiate(struct dentry *dentry, struct inode *inode)
{
	if (unlikely(inode && IS_PRIVATE(inode)))
		return;
}

/* ---- paths (CONFIG_SECURITY_PATH) ---- */
noinline int security_path_mknod(const struct path *dir, struct dentry *dentry, umode_t mode, unsigned int dev)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dir->dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_mkdir(const struct path *dir, struct dentry *dentry, umode_t mode)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dir->dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_rmdir(const struct path *dir, struct dentry *dentry)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dir->dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_unlink(const struct path *dir, struct dentry *dentry)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dir->dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_symlink(const struct path *dir, struct dentry *dentry, const char *old_name)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dir->dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_link(struct dentry *old_dentry, const struct path *new_dir, struct dentry *new_dentry)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(old_dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_rename(const struct path *old_dir, struct dentry *old_dentry,
				  const struct path *new_dir, struct dentry *new_dentry, unsigned int flags)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(old_dentry)) ||
		     (d_is_positive(new_dentry) && IS_PRIVATE(d_backing_inode(new_dentry)))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_truncate(const struct path *path)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(path->dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_chmod(const struct path *path, umode_t mode)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(path->dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_chown(const struct path *path, uid_t uid, gid_t gid)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(path->dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_path_chroot(const struct path *path)
{
	return call_int_hook_empty(0);
}

/* ---- inode operations ---- */
noinline int security_inode_create(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	if (unlikely(IS_PRIVATE(dir)))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_link(struct dentry *old_dentry, struct inode *dir, struct dentry *new_dentry)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(old_dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_unlink(struct inode *dir, struct dentry *dentry)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_symlink(struct inode *dir, struct dentry *dentry, const char *old_name)
{
	if (unlikely(IS_PRIVATE(dir)))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	if (unlikely(IS_PRIVATE(dir)))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_rmdir(struct inode *dir, struct dentry *dentry)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
{
	if (unlikely(IS_PRIVATE(dir)))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_rename(struct inode *old_dir, struct dentry *old_dentry,
				   struct inode *new_dir, struct dentry *new_dentry, unsigned int flags)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(old_dentry)) ||
		     (d_is_positive(new_dentry) && IS_PRIVATE(d_backing_inode(new_dentry)))))
		return 0;
	/* RENAME_EXCHANGE asks the (empty) list for the swapped pair first */
	return call_int_hook_empty(0);
}

noinline int security_inode_readlink(struct dentry *dentry)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_follow_link(struct dentry *dentry, struct inode *inode, bool rcu)
{
	if (unlikely(IS_PRIVATE(inode)))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_permission(struct inode *inode, int mask)
{
	if (unlikely(IS_PRIVATE(inode)))
		return 0;
	return call_int_hook_empty(0);
}

/* the capability module's: a security.capability attribute to drop */
noinline int security_inode_need_killpriv(struct dentry *dentry)
{
	return cap_inode_need_killpriv(dentry);
}

noinline int security_inode_setattr(struct user_namespace *mnt_userns, struct dentry *dentry, struct iattr *attr)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dentry))))
		return 0;
	/* then evm_inode_setattr(): EVM is not built */
	return call_int_hook_empty(0);
}

noinline int security_inode_getxattr(struct dentry *dentry, const char *name)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dentry))))
		return 0;
	/* then evm_inode_getxattr(): EVM is not built */
	return call_int_hook_empty(0);
}

/* 6.1's call_int_hook(inode_setxattr, 1, ...): no module has the hook, so the capability
 * check runs (cap_inode_setxattr); then ima and evm, not built */
noinline int security_inode_setxattr(struct dentry *dentry, const char *name, const void *value, size_t size,
				     int flags)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dentry))))
		return 0;
	return cap_inode_setxattr(dentry, name, value, size, flags);
}

noinline void security_inode_post_setxattr(struct dentry *dentry, const char *name, const void *value,
					   size_t size, int flags)
{
	/* call_void_hook(inode_post_setxattr, ...) and evm_inode_post_setxattr: none built */
}

noinline int security_inode_listxattr(struct dentry *dentry)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dentry))))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_removexattr(struct dentry *dentry, const char *name)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(dentry))))
		return 0;
	return cap_inode_removexattr(dentry, name);	/* as setxattr's */
}

/* the names a module keeps for the inode itself (none here) */
noinline int security_inode_listsecurity(struct inode *inode, char *buffer, size_t buffer_size)
{
	if (unlikely(IS_PRIVATE(inode)))
		return 0;
	return call_int_hook_empty(0);
}

noinline int security_inode_getattr(const struct path *path)
{
	if (unlikely(IS_PRIVATE(d_backing_inode(path->dentry))))
		return 0;
	return call_int_hook_empty(0);
}

/* ---- files ---- */
noinline int security_file_permission(struct file *file, int mask)
{
	/* then fsnotify_perm(): no fanotify permission events here */
	return call_int_hook_empty(0);
}

noinline int security_file_alloc(struct file *file)
{
	return call_int_hook_empty(0);	/* lsm_file_alloc(): no blob cache */
}

noinline void security_file_free(struct file *file)
{
}

noinline int security_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return call_int_hook_empty(0);
}

noinline int security_file_lock(struct file *file, unsigned int cmd)
{
	return call_int_hook_empty(0);
}

/* The protection a mapping will really have: PROT_READ implies PROT_EXEC under the
 * READ_IMPLIES_EXEC personality, unless the file is on a noexec mount */
static __always_inline unsigned long mmap_prot(struct file *file, unsigned long prot)
{
	if ((prot & (PROT_READ | PROT_EXEC)) != PROT_READ)
		return prot;
	if (!(current->personality & READ_IMPLIES_EXEC))
		return prot;
	if (!file || !path_noexec(&file->f_path))	/* (no DAX: no mmap_capabilities to ask) */
		return prot | PROT_EXEC;
	return prot;
}

noinline int security_mmap_file(struct file *file, unsigned long prot, unsigned long flags)
{
	/* call_int_hook(mmap_file, 0, ...): the capability module's, then ima_file_mmap() (no IMA) */
	return cap_mmap_file(file, prot, mmap_prot(file, prot), flags);
}

noinline int security_mmap_addr(unsigned long addr)
{
	return cap_mmap_addr(addr);	/* call_int_hook(mmap_addr, 0, addr) */
}

noinline int security_file_mprotect(struct vm_area_struct *vma, unsigned long reqprot, unsigned long prot)
{
	return call_int_hook_empty(0);
}

noinline int security_file_fcntl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return call_int_hook_empty(0);
}

noinline void security_file_set_fowner(struct file *file)
{
}

noinline int security_file_send_sigiotask(struct task_struct *tsk, struct fown_struct *fown, int sig)
{
	return call_int_hook_empty(0);
}

noinline int security_file_open(struct file *file)
{
	/* then fsnotify_perm(file, MAY_OPEN): no fanotify permission events here */
	return call_int_hook_empty(0);
}

/* ---- tasks ---- */
noinline int security_task_alloc(struct task_struct *task, unsigned long clone_flags)
{
	return call_int_hook_empty(0);	/* lsm_task_alloc(): no blob */
}

noinline void security_task_free(struct task_struct *task)
{
}

noinline int security_task_kill(struct task_struct *p, struct kernel_siginfo *info, int sig, const struct cred *cred)
{
	return call_int_hook_empty(0);
}

/* ---- sockets ---- */
noinline int security_socket_create(int family, int type, int protocol, int kern)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_post_create(struct socket *sock, int family, int type, int protocol, int kern)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_socketpair(struct socket *socka, struct socket *sockb)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_bind(struct socket *sock, struct sockaddr *address, int addrlen)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_connect(struct socket *sock, struct sockaddr *address, int addrlen)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_listen(struct socket *sock, int backlog)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_accept(struct socket *sock, struct socket *newsock)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_sendmsg(struct socket *sock, struct msghdr *msg, int size)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_recvmsg(struct socket *sock, struct msghdr *msg, int size, int flags)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_getsockname(struct socket *sock)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_getpeername(struct socket *sock)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_getsockopt(struct socket *sock, int level, int optname)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_setsockopt(struct socket *sock, int level, int optname)
{
	return call_int_hook_empty(0);
}

noinline int security_socket_shutdown(struct socket *sock, int how)
{
	return call_int_hook_empty(0);
}

noinline int security_sk_alloc(struct sock *sk, int family, gfp_t priority)
{
	return call_int_hook_empty(0);	/* lsm: no sk blob */
}

noinline void security_sk_free(struct sock *sk)
{
}
