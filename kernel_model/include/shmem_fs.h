/* tmpfs's inodes and files (include/linux/shmem_fs.h, memfd.h): the seals of a memfd
 * (include/uapi/linux/fcntl.h's F_SEAL_*), kept in the inode's shmem_inode_info. */
#ifndef _SHMEM_FS_H
#define _SHMEM_FS_H
#include "fs.h"
#include "xattr.h"

#define F_ADD_SEALS		1033	/* F_LINUX_SPECIFIC_BASE + 9 */
#define F_GET_SEALS		1034
#define F_SEAL_SEAL		0x0001	/* no more seals */
#define F_SEAL_SHRINK		0x0002	/* no shrinking */
#define F_SEAL_GROW		0x0004	/* no growing */
#define F_SEAL_WRITE		0x0008	/* no writes */
#define F_SEAL_FUTURE_WRITE	0x0010	/* no new writes (mappings made before keep theirs) */

struct shmem_inode_info {
	unsigned int seals;		/* F_SEAL_*: a memfd's; F_SEAL_SEAL on every other file */
	struct simple_xattrs xattrs;	/* its security.* and trusted.* attributes */
	struct inode vfs_inode;
};

static inline struct shmem_inode_info *SHMEM_I(struct inode *inode)
{
	return container_of(inode, struct shmem_inode_info, vfs_inode);
}

bool shmem_file(struct file *file);
struct file *shmem_file_setup(const char *name, loff_t size, unsigned long flags);
struct file *shmem_kernel_file_setup(const char *name, loff_t size, unsigned long flags);
struct vm_area_struct;
int shmem_zero_setup(struct vm_area_struct *vma);
long memfd_fcntl(struct file *file, unsigned int cmd, unsigned long arg);
#endif
