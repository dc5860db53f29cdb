/*
 * Disks (block/genhd.c, blk-mq's disk allocation, bdev.c's lookup): a gendisk with its
 * request queue and its whole-disk block_device (part0), given a dev_t in the extended
 * block major (259, as NVMe namespaces) when added, and found by it (`blkdev_get_by_dev`:
 * a file system's mount).
 */
#include "../include/blkdev.h"
#include "../include/slab.h"

/* the disks added (NULL after the last): the host lists them too, as the directories of
 * /sys/block a session shows (src/tracefs_sim/machine/blktrace.py) */
struct gendisk *disks[MAX_DISKS];
static unsigned int nr_ext_minors;

notrace struct gendisk *blk_mq_alloc_disk(struct blk_mq_tag_set *set, void *queuedata)
{
	struct gendisk *disk = kzalloc(sizeof(*disk), GFP_KERNEL);
	struct block_device *bdev = kzalloc(sizeof(*bdev), GFP_KERNEL);
	struct request_queue *q = blk_mq_init_queue(set);

	if (!disk || !bdev || !q)
		return NULL;
	disk->queue = q;
	disk->part0 = bdev;
	disk->private_data = queuedata;
	q->disk = disk;
	bdev->bd_disk = disk;
	bdev->bd_queue = q;
	return disk;
}

void set_capacity(struct gendisk *disk, sector_t sectors)
{
	disk->part0->bd_nr_sectors = sectors;
}

noinline int device_add_disk(struct gendisk *disk)
{
	unsigned int i;

	for (i = 0; i < MAX_DISKS && disks[i]; i++)
		;
	if (i == MAX_DISKS)
		return -ENOSPC;
	disk->major = BLOCK_EXT_MAJOR;
	disk->first_minor = nr_ext_minors++;
	disk->part0->bd_dev = MKDEV(disk->major, disk->first_minor);
	disks[i] = disk;
	printk(KERN_INFO "%s: %llu sectors\n", disk->disk_name, (unsigned long long)get_capacity(disk));
	return 0;
}

/* the disk's block device whose dev_t is dev, or NULL (no call of the traceable kind: sysfs
 * finds a disk's directory by its kobject, and blktrace's attributes use it) */
notrace struct block_device *disk_bdev_by_devt(dev_t dev)
{
	unsigned int i;

	for (i = 0; i < MAX_DISKS && disks[i]; i++)
		if (disk_devt(disks[i]) == dev)
			return disks[i]->part0;
	return NULL;
}

struct block_device *blkdev_get_by_dev(dev_t dev)
{
	return disk_bdev_by_devt(dev);
}
