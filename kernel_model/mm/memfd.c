/*
 * memfd_create and file sealing (Linux 6.1's mm/memfd.c): an unlinked tmpfs file on the
 * internal shm mount, named "memfd:NAME", and the seals fcntl adds to it (F_ADD_SEALS,
 * F_GET_SEALS), which tmpfs's write and setattr paths check (mm/shmem.c).  No hugetlbfs
 * here: MFD_HUGETLB fails as 6.1's hugetlb_file_setup does without CONFIG_HUGETLBFS.
 * F_SEAL_WRITE is refused with EBUSY while the file has a shared writable mapping (6.1's
 * mapping_deny_writable); no page here is pinned by get_user_pages for long, so 6.1's wait
 * for pins (memfd_wait_for_pins) has nothing to wait for.
 */
#include "../include/syscalls.h"
#include "../include/shmem_fs.h"
#include "../include/slab.h"

#define MFD_CLOEXEC		0x0001U
#define MFD_ALLOW_SEALING	0x0002U
#define MFD_HUGETLB		0x0004U
#define MFD_HUGE_SHIFT		26
#define MFD_HUGE_MASK		0x3f
#define MFD_ALL_FLAGS		(MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB)

#define MFD_NAME_PREFIX		"memfd:"
#define MFD_NAME_PREFIX_LEN	(sizeof(MFD_NAME_PREFIX) - 1)
#define MFD_NAME_MAX_LEN	(NAME_MAX - MFD_NAME_PREFIX_LEN)

#define F_ALL_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)

/* The seals of a tmpfs file, NULL for any other */
noinline unsigned int *memfd_file_seals_ptr(struct file *file)
{
	if (shmem_file(file))
		return &SHMEM_I(file->f_inode)->seals;
	return NULL;
}

/* No shared writable mapping of the file may be made from now on: EBUSY if there is one */
static inline int mapping_deny_writable(struct address_space *mapping)
{
	int error = 0;

	mutex_lock(&mapping->i_mmap_rwsem);
	if (mapping->i_mmap_writable > 0)
		error = -EBUSY;
	else
		mapping->i_mmap_writable--;
	mutex_unlock(&mapping->i_mmap_rwsem);
	return error;
}

/* Seals are only ever added; F_SEAL_SEAL stops that too */
static __always_inline int memfd_add_seals(struct file *file, unsigned int seals)
{
	struct inode *inode = file->f_inode;
	unsigned int *file_seals;
	int error;

	if (!(file->f_mode & FMODE_WRITE))
		return -EPERM;
	if (seals & ~(unsigned int)F_ALL_SEALS)
		return -EINVAL;
	mutex_lock(&inode->i_rwsem);	/* inode_lock() */
	file_seals = memfd_file_seals_ptr(file);
	if (!file_seals)
		error = -EINVAL;
	else if (*file_seals & F_SEAL_SEAL)
		error = -EPERM;
	else {
		error = 0;
		if ((seals & F_SEAL_WRITE) && !(*file_seals & F_SEAL_WRITE))
			error = mapping_deny_writable(file->f_mapping);
		if (!error)
			*file_seals |= seals;
	}
	mutex_unlock(&inode->i_rwsem);
	return error;
}

static __always_inline int memfd_get_seals(struct file *file)
{
	unsigned int *seals = memfd_file_seals_ptr(file);

	return seals ? *seals : -EINVAL;
}

noinline long memfd_fcntl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case F_ADD_SEALS:
		if (arg > U32_MAX)	/* no upper 32 bits */
			return -EINVAL;
		return memfd_add_seals(file, arg);
	case F_GET_SEALS:
		return memfd_get_seals(file);
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE2(memfd_create, const char *, uname, unsigned int, flags)
{
	struct file *file;
	int fd, error;
	char *name;
	long len;

	if (!(flags & MFD_HUGETLB)) {
		if (flags & ~MFD_ALL_FLAGS)
			return -EINVAL;
	} else if (flags & ~(MFD_ALL_FLAGS | (MFD_HUGE_MASK << MFD_HUGE_SHIFT))) {
		return -EINVAL;	/* (a huge page size may be encoded in the flags) */
	}
	name = kmalloc(MFD_NAME_PREFIX_LEN + MFD_NAME_MAX_LEN + 1, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	memcpy(name, MFD_NAME_PREFIX, MFD_NAME_PREFIX_LEN);
	/* (6.1 measures with strnlen_user, then copies: the same answers) */
	len = strncpy_from_user(&name[MFD_NAME_PREFIX_LEN], uname, MFD_NAME_MAX_LEN + 1);
	if (len < 0) {
		error = -EFAULT;
		goto err_name;
	}
	if (len > MFD_NAME_MAX_LEN) {	/* no terminating zero within the limit */
		error = -EINVAL;
		goto err_name;
	}
	fd = get_unused_fd_flags((flags & MFD_CLOEXEC) ? O_CLOEXEC : 0);
	if (fd < 0) {
		error = fd;
		goto err_name;
	}
	if (flags & MFD_HUGETLB)
		file = ERR_PTR(-ENOSYS);	/* hugetlb_file_setup() without hugetlbfs */
	else
		file = shmem_file_setup(name, 0, 0);
	if (IS_ERR(file)) {
		error = PTR_ERR(file);
		put_unused_fd(fd);
		goto err_name;
	}
	file->f_mode |= FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE;
	file->f_flags |= O_LARGEFILE;
	if (flags & MFD_ALLOW_SEALING) {
		unsigned int *file_seals = memfd_file_seals_ptr(file);

		if (file_seals)
			*file_seals &= ~F_SEAL_SEAL;
	}
	fd_install(fd, file);
	kfree(name);
	return fd;

err_name:
	kfree(name);
	return error;
}
