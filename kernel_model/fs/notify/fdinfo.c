/*
 * /proc/PID/fdinfo/N of an inotify fd (fs/notify/fdinfo.c): a line per watch, the newest first:
 * its wd, the inode, its device, the mask as the user gave it, and the inode's file handle.
 */
#include "../../include/fsnotify_backend.h"
#include "../../include/exportfs.h"
#include "../../include/mutex.h"
#include "inotify/inotify.h"

static noinline void show_mark_fhandle(struct seq_file *m, struct inode *inode)
{
	u32 fh[MAX_HANDLE_SZ / 4];
	int size = MAX_HANDLE_SZ >> 2, ret, i;

	ret = exportfs_encode_inode_fh(inode, fh, &size, NULL);
	if (ret == FILEID_INVALID || ret < 0)
		return;
	seq_printf(m, "fhandle-bytes:%x fhandle-type:%x f_handle:", size * 4, ret);
	for (i = 0; i < size * 4; i++)
		seq_printf(m, "%02x", (int)((u8 *)fh)[i]);
}

static noinline void inotify_fdinfo(struct seq_file *m, struct fsnotify_mark *mark)
{
	struct inotify_inode_mark *inode_mark = container_of(mark, struct inotify_inode_mark, fsn_mark);
	struct inode *inode = mark->connector ? mark->connector->inode : NULL;

	if (!inode)
		return;
	seq_printf(m, "inotify wd:%x ino:%lx sdev:%x mask:%x ignored_mask:0 ", inode_mark->wd, inode->i_ino,
		   inode->i_sb->s_dev, inotify_mark_user_mask(mark));
	show_mark_fhandle(m, inode);
	seq_putc(m, '\n');
}

/* (GCC's isra clone in 6.1) */
static noinline void show_fdinfo(struct seq_file *m, struct file *f,
				 void (*show)(struct seq_file *m, struct fsnotify_mark *mark))
	__asm__("show_fdinfo.isra.0");
static noinline void show_fdinfo(struct seq_file *m, struct file *f,
				 void (*show)(struct seq_file *m, struct fsnotify_mark *mark))
{
	struct fsnotify_group *group = f->private_data;
	struct fsnotify_mark *mark;

	mutex_lock(&group->mark_mutex);
	list_for_each_entry(mark, &group->marks_list, g_list)
		show(m, mark);
	mutex_unlock(&group->mark_mutex);
}

noinline void inotify_show_fdinfo(struct seq_file *m, struct file *f)
{
	show_fdinfo(m, f, inotify_fdinfo);
}
