/* The registered file system types (Linux's fs/filesystems.c), /proc/filesystems. */
#include "../include/fs.h"

static struct file_system_type *file_systems;

noinline int register_filesystem(struct file_system_type *fs)
{
	struct file_system_type **p;

	for (p = &file_systems; *p; p = &(*p)->next)
		if (!strcmp((*p)->name, fs->name))
			return -EBUSY;
	fs->next = NULL;
	*p = fs;
	return 0;
}

noinline struct file_system_type *get_fs_type(const char *name)
{
	struct file_system_type *p;

	for (p = file_systems; p; p = p->next)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

int filesystems_proc_show(struct seq_file *m, void *v)
{
	struct file_system_type *p;

	for (p = file_systems; p; p = p->next)
		seq_printf(m, "%s\t%s\n", (p->fs_flags & FS_REQUIRES_DEV) ? "" : "nodev", p->name);
	return 0;
}
