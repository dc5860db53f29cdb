/* procfs internals (Linux's fs/proc/internal.h) */
#ifndef _PROC_INTERNAL_H
#define _PROC_INTERNAL_H
#include "../../include/fs.h"

#define PROC_SUPER_MAGIC 0x9fa0
#define PROC_ROOT_INO 1

/* A fixed entry of a directory: a file made by show(), a symlink, or a directory. */
struct pid_entry {
	const char *name;
	umode_t mode;
	int (*show)(struct seq_file *m, void *task_pid);	/* files: the task's pid in private */
	const char *(*get_link)(struct dentry *, struct inode *, char *);
	const struct inode_operations *iop;		/* directories */
	const struct file_operations *fop;
	int (*proc_get_link)(struct dentry *, struct path *);	/* magic links (nd_jump_link) */
};

/* makes a lookup's child dentry for pid: NULL, or an ERR_PTR */
typedef struct dentry *instantiate_t(struct dentry *dentry, pid_t pid, const void *ptr);
bool proc_fill_cache(struct file *file, struct dir_context *ctx, const char *name, unsigned int len,
		     instantiate_t instantiate, pid_t pid, const void *ptr);

extern struct super_block *proc_sb;
struct inode *proc_make_inode(struct super_block *sb, umode_t mode, unsigned long ino);
struct dentry *proc_pid_lookup(struct dentry *dentry, unsigned int flags);
int proc_pid_readdir(struct file *file, struct dir_context *ctx);
int proc_single_open(struct inode *inode, struct file *file);
extern const struct file_operations proc_single_file_operations;
struct dentry *proc_pident_instantiate(struct dentry *dentry, const struct pid_entry *p, void *private);
/* /proc/sysvipc (ipc/proc.c) */
extern const struct inode_operations proc_sysvipc_inode_operations;
extern const struct file_operations proc_sysvipc_operations;
extern const struct dentry_operations proc_pid_dentry_operations;
extern const struct inode_operations proc_pid_link_inode_operations;
int proc_setattr(struct dentry *dentry, struct iattr *attr);
struct task_struct *get_proc_task_locked(struct inode *inode, unsigned long *flags);
struct inode *proc_pid_make_inode(struct super_block *sb, pid_t tgid, umode_t mode);
int pid_getattr(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int query_flags);
extern const struct file_operations proc_ns_dir_operations;		/* namespaces.c */
extern const struct inode_operations proc_ns_dir_inode_operations;
#define PROC_I_PID(inode) ((pid_t)(long)(inode)->i_private)
#endif
