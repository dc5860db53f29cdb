/*
 * /proc/sysvipc/ (Linux 6.1's ipc/util.c, ipc_init_proc_interface): a file per kind, its
 * header, then a line for each object of the reader's IPC namespace in index order.  The
 * directory's and the files' operations are notrace: 6.1's are procfs's generic ones
 * (proc_lookup, proc_readdir, the seq_file iterators), not these.
 */
#include "../include/kernel.h"
#include "../include/nsproxy.h"
#include "../include/fs.h"
#include "../fs/proc/internal.h"

struct ipc_proc_iface {
	const char *header;
	int ids;
	int (*show)(struct seq_file *s, void *it);
};

static const struct ipc_proc_iface msg_iface = {
	"       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime\n",
	IPC_MSG_IDS, sysvipc_msg_proc_show,
};
static const struct ipc_proc_iface sem_iface = {
	"       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n",
	IPC_SEM_IDS, sysvipc_sem_proc_show,
};

static const struct ipc_proc_iface shm_iface = {
	"       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n",
	IPC_SHM_IDS, sysvipc_shm_proc_show,
};

/* the header, then each object's line (6.1's seq_file start/next/show/stop) */
static inline int sysvipc_proc_print(struct seq_file *s, const struct ipc_proc_iface *iface)
{
	struct ipc_ids *ids = &current_ipc_ns()->ipc.ids[iface->ids];

	seq_puts(s, iface->header);
	down_write(&ids->rwsem);
	for (int idx = 0; idx <= ids->max_idx; idx++)
		if (ids->entries[idx])
			iface->show(s, ids->entries[idx]);
	up_write(&ids->rwsem);
	return 0;
}

static notrace int sysvipc_msg_show(struct seq_file *s, void *unused)
{
	return sysvipc_proc_print(s, &msg_iface);
}

static notrace int sysvipc_sem_show(struct seq_file *s, void *unused)
{
	return sysvipc_proc_print(s, &sem_iface);
}

static notrace int sysvipc_shm_show(struct seq_file *s, void *unused)
{
	return sysvipc_proc_print(s, &shm_iface);
}

static const struct pid_entry sysvipc_entries[] = {
	{ "msg", S_IFREG | 0444, sysvipc_msg_show },
	{ "sem", S_IFREG | 0444, sysvipc_sem_show },
	{ "shm", S_IFREG | 0444, sysvipc_shm_show },
};

static notrace struct dentry *proc_sysvipc_lookup(struct inode *dir, struct dentry *dentry, unsigned int flags)
{
	for (size_t i = 0; i < ARRAY_SIZE(sysvipc_entries); i++)
		if (!strcmp(sysvipc_entries[i].name, (const char *)dentry->d_name.name))
			return proc_pident_instantiate(dentry, &sysvipc_entries[i], NULL);
	return (void *)(long)-ENOENT;
}

static notrace int proc_sysvipc_readdir(struct file *file, struct dir_context *ctx)
{
	size_t nr = ARRAY_SIZE(sysvipc_entries);

	if (!dir_emit_dots(file, ctx))
		return 0;
	for (; ctx->pos < (loff_t)(nr + 2); ctx->pos++) {
		const struct pid_entry *p = &sysvipc_entries[ctx->pos - 2];

		if (!ctx->actor(ctx, p->name, strlen(p->name), ctx->pos, file->f_inode->i_ino + ctx->pos,
				fs_umode_to_dtype(p->mode)))
			return 0;
	}
	return 0;
}

const struct file_operations proc_sysvipc_operations = {
	.read = generic_read_dir,
	.iterate_shared = proc_sysvipc_readdir,
	.llseek = default_llseek,
};

const struct inode_operations proc_sysvipc_inode_operations = {
	.lookup = proc_sysvipc_lookup,
};
