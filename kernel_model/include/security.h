/*
 * The LSM hooks (include/linux/security.h): the security_* functions the kernel's paths call,
 * security/security.c.  This kernel is built with one LSM, "capability" (security/commoncap.c),
 * whose hooks those of 6.1's capability_hooks are; every other hook runs its empty list and
 * returns its default, as 6.1's call_int_hook does with no module behind it.
 */
#ifndef _SECURITY_H
#define _SECURITY_H
#include "fs.h"
#include "cred.h"

struct inode;
struct dentry;
struct path;
struct file;
struct qstr;
struct linux_binprm;
struct vm_area_struct;
struct socket;
struct sock;
struct sockaddr;
struct msghdr;
struct sk_buff;
struct kstat;
struct kernel_siginfo;
struct cred;
struct task_struct;
struct iattr;
struct user_namespace;

/* the capability module: security/commoncap.c */
extern unsigned long dac_mmap_min_addr;
int cap_mmap_addr(unsigned long addr);
int cap_task_setnice(struct task_struct *p, int nice);
int cap_mmap_file(struct file *file, unsigned long reqprot, unsigned long prot, unsigned long flags);
int cap_bprm_creds_from_file(struct linux_binprm *bprm, struct file *file);

/* exec */
int security_bprm_creds_for_exec(struct linux_binprm *bprm);
int security_bprm_creds_from_file(struct linux_binprm *bprm, struct file *file);
int security_bprm_check(struct linux_binprm *bprm);
void security_bprm_committing_creds(struct linux_binprm *bprm);
void security_bprm_committed_creds(struct linux_binprm *bprm);

/* inodes and paths */
int security_inode_alloc(struct inode *inode);
void security_inode_free(struct inode *inode);
void security_d_instantiate(struct dentry *dentry, struct inode *inode);
int security_path_mknod(const struct path *dir, struct dentry *dentry, umode_t mode, unsigned int dev);
int security_path_mkdir(const struct path *dir, struct dentry *dentry, umode_t mode);
int security_path_rmdir(const struct path *dir, struct dentry *dentry);
int security_path_unlink(const struct path *dir, struct dentry *dentry);
int security_path_symlink(const struct path *dir, struct dentry *dentry, const char *old_name);
int security_path_link(struct dentry *old_dentry, const struct path *new_dir, struct dentry *new_dentry);
int security_path_rename(const struct path *old_dir, struct dentry *old_dentry,
			 const struct path *new_dir, struct dentry *new_dentry, unsigned int flags);
int security_path_truncate(const struct path *path);
int security_path_chmod(const struct path *path, umode_t mode);
int security_path_chown(const struct path *path, uid_t uid, gid_t gid);
int security_path_chroot(const struct path *path);
int security_inode_create(struct inode *dir, struct dentry *dentry, umode_t mode);
int security_inode_link(struct dentry *old_dentry, struct inode *dir, struct dentry *new_dentry);
int security_inode_unlink(struct inode *dir, struct dentry *dentry);
int security_inode_symlink(struct inode *dir, struct dentry *dentry, const char *old_name);
int security_inode_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode);
int security_inode_rmdir(struct inode *dir, struct dentry *dentry);
int security_inode_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev);
int security_inode_rename(struct inode *old_dir, struct dentry *old_dentry,
			  struct inode *new_dir, struct dentry *new_dentry, unsigned int flags);
int security_inode_readlink(struct dentry *dentry);
int security_inode_follow_link(struct dentry *dentry, struct inode *inode, bool rcu);
int security_inode_permission(struct inode *inode, int mask);
int security_inode_getattr(const struct path *path);
int security_inode_getxattr(struct dentry *dentry, const char *name);
int security_inode_setxattr(struct dentry *dentry, const char *name, const void *value, size_t size, int flags);
void security_inode_post_setxattr(struct dentry *dentry, const char *name, const void *value, size_t size,
				  int flags);
int security_inode_listxattr(struct dentry *dentry);
int security_inode_removexattr(struct dentry *dentry, const char *name);
int security_inode_listsecurity(struct inode *inode, char *buffer, size_t buffer_size);
int cap_inode_setxattr(struct dentry *dentry, const char *name, const void *value, size_t size, int flags);
int cap_inode_removexattr(struct dentry *dentry, const char *name);
int security_inode_need_killpriv(struct dentry *dentry);
int security_task_setpgid(struct task_struct *p, pid_t pgid);
int security_task_getpgid(struct task_struct *p);
int security_task_getscheduler(struct task_struct *p);
int security_task_setioprio(struct task_struct *p, int ioprio);
int security_task_getioprio(struct task_struct *p);
int cap_task_setioprio(struct task_struct *p, int ioprio);
/* security_task_fix_setuid()'s flags: which id call changed the ids */
#define LSM_SETID_ID	1	/* setuid */
#define LSM_SETID_RE	2	/* setreuid */
#define LSM_SETID_RES	4	/* setresuid */
#define LSM_SETID_FS	8	/* setfsuid */
int security_capset(struct cred *new, const struct cred *old, const kernel_cap_t *effective,
		    const kernel_cap_t *inheritable, const kernel_cap_t *permitted);
int cap_capset(struct cred *new, const struct cred *old, const kernel_cap_t *effective,
	       const kernel_cap_t *inheritable, const kernel_cap_t *permitted);
int security_task_fix_setuid(struct cred *new, const struct cred *old, int flags);
int cap_task_fix_setuid(struct cred *new, const struct cred *old, int flags);
int security_task_prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5);
int cap_task_prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5);
int security_capget(struct task_struct *target, kernel_cap_t *effective, kernel_cap_t *inheritable,
		    kernel_cap_t *permitted);
int cap_capget(struct task_struct *target, kernel_cap_t *effective, kernel_cap_t *inheritable,
	       kernel_cap_t *permitted);
int security_task_getsid(struct task_struct *p);
int security_task_setscheduler(struct task_struct *p);
int cap_task_setscheduler(struct task_struct *p);
int security_task_prlimit(const struct cred *cred, const struct cred *tcred, unsigned int flags);
struct rlimit;
int security_task_setrlimit(struct task_struct *p, unsigned int resource, struct rlimit *new_rlim);
int security_task_setnice(struct task_struct *p, int nice);
int security_syslog(int type);
int security_sb_statfs(struct dentry *dentry);
#define PERF_SECURITY_OPEN		0
struct perf_event_attr;
struct perf_event;
int security_perf_event_open(struct perf_event_attr *attr, int type);
int security_perf_event_read(struct perf_event *event);
int security_perf_event_write(struct perf_event *event);
union bpf_attr;
struct bpf_map;
struct bpf_prog;
int security_bpf(int cmd, union bpf_attr *attr, unsigned int size);
int security_bpf_map(struct bpf_map *map, fmode_t fmode);
int security_bpf_prog(struct bpf_prog *prog);
int security_bpf_map_alloc(struct bpf_map *map);
int security_bpf_prog_alloc(void *aux);
int cap_inode_need_killpriv(struct dentry *dentry);
int security_inode_setattr(struct user_namespace *mnt_userns, struct dentry *dentry, struct iattr *attr);

/* files */
int security_file_permission(struct file *file, int mask);
int security_file_alloc(struct file *file);
void security_file_free(struct file *file);
int security_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int security_file_lock(struct file *file, unsigned int cmd);
int security_mmap_file(struct file *file, unsigned long prot, unsigned long flags);
int security_mmap_addr(unsigned long addr);
int security_file_mprotect(struct vm_area_struct *vma, unsigned long reqprot, unsigned long prot);
int security_file_fcntl(struct file *file, unsigned int cmd, unsigned long arg);
struct fown_struct;
void security_file_set_fowner(struct file *file);
int security_file_send_sigiotask(struct task_struct *tsk, struct fown_struct *fown, int sig);
int security_file_open(struct file *file);

/* tasks */
int security_task_alloc(struct task_struct *task, unsigned long clone_flags);
void security_task_free(struct task_struct *task);
int security_task_kill(struct task_struct *p, struct kernel_siginfo *info, int sig, const struct cred *cred);

/* sockets */
int security_socket_create(int family, int type, int protocol, int kern);
int security_socket_post_create(struct socket *sock, int family, int type, int protocol, int kern);
int security_socket_socketpair(struct socket *socka, struct socket *sockb);
int security_socket_bind(struct socket *sock, struct sockaddr *address, int addrlen);
int security_socket_connect(struct socket *sock, struct sockaddr *address, int addrlen);
int security_socket_listen(struct socket *sock, int backlog);
int security_socket_accept(struct socket *sock, struct socket *newsock);
int security_socket_sendmsg(struct socket *sock, struct msghdr *msg, int size);
int security_socket_recvmsg(struct socket *sock, struct msghdr *msg, int size, int flags);
int security_socket_getsockname(struct socket *sock);
int security_socket_getpeername(struct socket *sock);
int security_socket_getsockopt(struct socket *sock, int level, int optname);
int security_socket_setsockopt(struct socket *sock, int level, int optname);
int security_socket_shutdown(struct socket *sock, int how);
int security_sk_alloc(struct sock *sk, int family, gfp_t priority);
void security_sk_free(struct sock *sk);
#endif
