/* Character devices (Linux's fs/char_dev.c): a table of (major, minor) → file operations;
 * opening a character special file (def_chr_fops: chrdev_open) takes its driver's operations,
 * or ENXIO when no driver has the number. */
#include "../include/fs.h"

struct char_device_struct {
	unsigned int major, minor;
	const struct file_operations *fops;
};
static struct char_device_struct chrdevs[32];
static int nr_chrdevs;

notrace int register_chrdev_region_fops(unsigned int major, unsigned int minor, const struct file_operations *fops)
{
	if (nr_chrdevs >= (int)ARRAY_SIZE(chrdevs))
		return -EBUSY;
	chrdevs[nr_chrdevs++] = (struct char_device_struct){ major, minor, fops };
	return 0;
}

noinline int chrdev_open(struct inode *inode, struct file *filp)
{
	const struct file_operations *fops = NULL;
	int i;

	for (i = 0; i < nr_chrdevs; i++)
		if (MKDEV(chrdevs[i].major, chrdevs[i].minor) == inode->i_rdev)
			fops = chrdevs[i].fops;
	if (!fops)
		return -ENXIO;
	filp->f_op = fops;
	if (fops->open)
		return fops->open(inode, filp);
	return 0;
}

const struct file_operations def_chr_fops = {
	.open = chrdev_open,
	.llseek = noop_llseek,
};
