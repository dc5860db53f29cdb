/* The registered file system types (Linux's fs/filesystems.c), /proc/filesystems, sysfs(2). */
#include "../include/fs.h"
#include "../include/syscalls.h"

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

/* ---- sysfs(2): the registered types by their index in the list (the model has no modules:
 * a type found is always usable, 6.1's try_module_get never fails for a built-in one) ---- */
noinline int fs_index(const char *__name)
{
	struct file_system_type *tmp;
	struct filename *name;
	int err, index;

	name = getname(__name);
	if (IS_ERR(name))
		return PTR_ERR(name);
	err = -EINVAL;
	for (tmp = file_systems, index = 0; tmp; tmp = tmp->next, index++) {
		if (strcmp(tmp->name, name->name) == 0) {
			err = index;
			break;
		}
	}
	putname(name);
	return err;
}

noinline int fs_name(unsigned int index, char *buf)
{
	struct file_system_type *tmp;

	for (tmp = file_systems; tmp; tmp = tmp->next, index--)
		if (index == 0)
			return copy_to_user(buf, tmp->name, strlen(tmp->name) + 1) ? -EFAULT : 0;
	return -EINVAL;
}

static int fs_maxindex(void)
{
	struct file_system_type *tmp;
	int index;

	for (tmp = file_systems, index = 0; tmp; tmp = tmp->next, index++)
		;
	return index;
}

/* option 1: a name's index, 2: an index's name, 3: how many */
SYSCALL_DEFINE3(sysfs, int, option, unsigned long, arg1, unsigned long, arg2)
{
	switch (option) {
	case 1:
		return fs_index((const char *)arg1);
	case 2:
		return fs_name(arg1, (char *)arg2);
	case 3:
		return fs_maxindex();
	}
	return -EINVAL;
}
