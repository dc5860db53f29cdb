/*
 * tmpfs (Linux's mm/shmem.c): files in pages of memory, directories and names in the dcache
 * (libfs).  A mount may hold at most half of RAM (size=50%, as tmpfs's default): past that a
 * write gets ENOSPC.  Directory sizes count BOGO_DIRENT_SIZE per entry, as 6.1's.
 */
#include "../include/pagemap.h"
#include "../include/shmem_fs.h"
#include "../include/slab.h"
#include "../include/signal.h"
#include "../include/exportfs.h"

#define TMPFS_MAGIC 0x01021994
#define BOGO_DIRENT_SIZE 20

struct shmem_sb_info {
	unsigned long max_blocks;	/* pages this mount may hold */
	unsigned long used_blocks;
	umode_t mode;			/* of its root */
};

static const struct inode_operations shmem_inode_operations;
static const struct inode_operations shmem_dir_inode_operations;
static ssize_t shmem_listxattr(struct dentry *dentry, char *buffer, size_t size);
static const struct file_operations shmem_file_operations;
static const struct address_space_operations shmem_aops;

static notrace struct shmem_sb_info *SHMEM_SB(struct super_block *sb) { return sb->s_fs_info; }

static struct kmem_cache *shmem_inode_cachep;
static struct vfsmount *shm_mnt;	/* the internal mount of memfds and shared memory */

static noinline struct inode *shmem_alloc_inode(struct super_block *sb)
{
	struct shmem_inode_info *info = kmem_cache_zalloc(shmem_inode_cachep, GFP_KERNEL);

	return info ? &info->vfs_inode : NULL;
}

static noinline void shmem_free_in_core_inode(struct inode *inode)
{
	kmem_cache_free(shmem_inode_cachep, SHMEM_I(inode));
}

noinline struct inode *shmem_get_inode(struct super_block *sb, struct inode *dir, umode_t mode, dev_t dev, unsigned long flags)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = get_next_ino();
	inode_init_owner(inode, dir, mode);
	inode->i_generation = (u32)get_random_u64();
	SHMEM_I(inode)->seals = F_SEAL_SEAL;	/* sealable only if memfd_create says so */
	simple_xattrs_init(&SHMEM_I(inode)->xattrs);
	switch (mode & S_IFMT) {
	default:
		inode->i_op = &shmem_inode_operations;
		init_special_inode(inode, mode, dev);
		break;
	case S_IFREG:
		inode->i_op = &shmem_inode_operations;
		inode->i_fop = &shmem_file_operations;
		inode->i_mapping->a_ops = &shmem_aops;
		break;
	case S_IFDIR:
		inc_nlink(inode);
		inode->i_size = 2 * BOGO_DIRENT_SIZE;
		inode->i_op = &shmem_dir_inode_operations;
		inode->i_fop = &simple_dir_operations;
		break;
	case S_IFLNK:
		break;
	}
	return inode;
}

/* ---- pages (in the mapping's array: mm/filemap.c's mapping_slot) ---- */
/* The page at index, made (zeroed) for a write: shmem_get_folio's work. */
/* ---- a file's pages ---- */
/* what shmem_get_folio() is asked for: a page to read (a hole: none), or to write (made) */
enum sgp_type { SGP_READ, SGP_NOALLOC, SGP_CACHE, SGP_WRITE, SGP_FALLOC };

/* A new zeroed page for the file, charged to the file system's blocks (ENOSPC past its size) */
static noinline void *shmem_alloc_and_acct_folio(gfp_t gfp, struct inode *inode, unsigned long index)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(inode->i_sb);
	void *page;

	if (sbinfo->used_blocks >= sbinfo->max_blocks)	/* shmem_inode_acct_block() */
		return (void *)(long)-ENOSPC;
	page = alloc_page_zeroed();	/* shmem_alloc_folio() */
	if (!page)
		return (void *)(long)-ENOSPC;
	page_of(page)->flags |= PG_swapbacked;	/* __folio_set_swapbacked(): mapped, it is RssShmem */
	sbinfo->used_blocks++;
	return page;
}

/* The page into the file's mapping at index */
static noinline int shmem_add_to_page_cache(void *page, struct address_space *mapping, unsigned long index, gfp_t gfp)
{
	void **slot = mapping_slot(mapping, index, true);

	if (!slot)
		return -ENOMEM;
	*slot = page;
	mapping->nrpages++;
	return 0;
}

/* The file's page at index in *pagep: the cached one, else (but for SGP_READ: a hole, NULL)
 * a new one */
noinline int shmem_get_folio_gfp(struct inode *inode, unsigned long index, void **pagep, enum sgp_type sgp,
				 gfp_t gfp, void *vma, void *vmf, void *fault_type)
{
	struct address_space *mapping = inode->i_mapping;
	void **slot = mapping_slot(mapping, index, false);
	void *page;
	int error;

	/* a mapping's fault (SGP_CACHE) past the end: SIGBUS */
	if (sgp <= SGP_CACHE && ((loff_t)index << PAGE_SHIFT) >= inode->i_size)
		return -EINVAL;
	if (slot && *slot) {
		*pagep = *slot;
		return 0;
	}
	*pagep = NULL;
	if (sgp == SGP_READ)
		return 0;
	page = shmem_alloc_and_acct_folio(gfp, inode, index);
	if (IS_ERR(page))
		return PTR_ERR(page);
	error = shmem_add_to_page_cache(page, mapping, index, gfp);
	if (error) {
		__free_pages(virt_to_page(page), 0);
		SHMEM_SB(inode->i_sb)->used_blocks--;	/* shmem_inode_unacct_blocks() */
		return error;
	}
	inode->i_blocks += PAGE_SIZE >> 9;	/* shmem_recalc_inode() */
	*pagep = page;
	return 0;
}

noinline int shmem_get_folio(struct inode *inode, unsigned long index, void **pagep, enum sgp_type sgp)
{
	return shmem_get_folio_gfp(inode, index, pagep, sgp, GFP_KERNEL, NULL, NULL, NULL);
}

noinline int shmem_write_begin(struct file *file, struct address_space *mapping, loff_t pos, unsigned len, void **pagep)
{
	struct shmem_inode_info *info = SHMEM_I(mapping->host);

	if (unlikely(info->seals & (F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))) {
		if (info->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
			return -EPERM;
		if ((info->seals & F_SEAL_GROW) && pos + len > mapping->host->i_size)
			return -EPERM;
	}
	return shmem_get_folio(mapping->host, pos >> PAGE_SHIFT, pagep, SGP_WRITE);
}

noinline int shmem_write_end(struct file *file, struct address_space *mapping, loff_t pos, unsigned len, unsigned copied, void *page)
{
	struct inode *inode = mapping->host;

	if (pos + copied > inode->i_size)
		inode->i_size = pos + copied;
	page_of(page)->flags |= PG_uptodate;	/* SetPageUptodate(): a new page is zeroed, then written */
	return copied;
}

noinline ssize_t shmem_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file->f_mapping->host;
	loff_t pos = iocb->ki_pos;
	ssize_t retval = 0;

	while (iov_iter_count(to)) {
		unsigned long index = pos >> PAGE_SHIFT, offset = pos & (PAGE_SIZE - 1);
		loff_t isize = inode->i_size;
		size_t nr, ret;
		void *page;
		int error;

		if (pos >= isize)
			break;
		nr = min((loff_t)(PAGE_SIZE - offset), isize - pos);
		error = shmem_get_folio(inode, index, &page, SGP_READ);
		if (error) {
			if (!retval)
				retval = error;
			break;
		}
		if (page)
			ret = copy_to_iter((char *)page + offset, nr, to);
		else
			ret = iov_iter_zero(nr, to);	/* a hole */
		retval += ret;
		pos += ret;
		if (ret != nr) {
			if (!retval)
				retval = -EFAULT;
			break;
		}
	}
	iocb->ki_pos = pos;
	file_accessed(file);
	return retval;
}

/* The bytes [lstart, lend] go: whole pages are freed, the parts of partial ones zeroed. */
static noinline void shmem_undo_range(struct inode *inode, loff_t lstart, loff_t lend)
{
	struct address_space *m = inode->i_mapping;
	struct shmem_sb_info *sbinfo = SHMEM_SB(inode->i_sb);
	unsigned long first = (lstart + PAGE_SIZE - 1) >> PAGE_SHIFT, end = ((u64)lend + 1) >> PAGE_SHIFT, i;
	unsigned long partial_start = lstart & (PAGE_SIZE - 1), partial_end = ((u64)lend + 1) & (PAGE_SIZE - 1);
	void *page;

	if (lend == -1)
		end = ~0UL;
	for (i = first; i < m->nr_slots && i < end; i++) {
		if (m->pages[i]) {
			__free_pages(virt_to_page(m->pages[i]), 0);
			m->pages[i] = NULL;
			m->nrpages--;
			sbinfo->used_blocks--;
			inode->i_blocks -= PAGE_SIZE >> 9;
		}
	}
	if (partial_start && (lstart >> PAGE_SHIFT) < m->nr_slots && (page = m->pages[lstart >> PAGE_SHIFT])) {
		unsigned long top = PAGE_SIZE;

		if ((lstart >> PAGE_SHIFT) == ((u64)lend >> PAGE_SHIFT) && lend != -1)
			top = partial_end ? partial_end : PAGE_SIZE;
		memset((char *)page + partial_start, 0, top - partial_start);
	}
	if (lend != -1 && partial_end && (lstart >> PAGE_SHIFT) < end && end < m->nr_slots &&
	    (page = m->pages[end]))
		memset(page, 0, partial_end);
}

/* Pages past newsize go (a partial last page is zeroed past it): 6.1's
 * shmem_truncate_range(inode, newsize, -1). */
noinline void shmem_truncate_range(struct inode *inode, loff_t newsize)
{
	shmem_undo_range(inode, newsize, -1);
}

noinline int shmem_setattr(struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	int error = setattr_prepare(NULL, dentry, attr);

	if (error)
		return error;
	if ((attr->ia_valid & ATTR_SIZE) && S_ISREG(inode->i_mode)) {
		loff_t oldsize = inode->i_size, newsize = attr->ia_size;
		unsigned int seals = SHMEM_I(inode)->seals;

		if ((newsize < oldsize && (seals & F_SEAL_SHRINK)) || (newsize > oldsize && (seals & F_SEAL_GROW)))
			return -EPERM;
		if (newsize != oldsize) {
			if (newsize < oldsize) {
				/* mapped pages past the new end go from the mappings (an access there:
				 * SIGBUS), before and after the pages go, as 6.1 */
				loff_t holebegin = ALIGN(newsize, PAGE_SIZE);

				unmap_mapping_range(inode->i_mapping, holebegin, 0, 1);
				shmem_truncate_range(inode, newsize);
				unmap_mapping_range(inode->i_mapping, holebegin, 0, 1);
			}
			inode->i_size = newsize;
			inode->i_ctime = inode->i_mtime = current_time(inode);
		}
	}
	setattr_copy(NULL, inode, attr);
	return 0;
}

noinline int shmem_getattr(const struct path *path, struct kstat *stat, u32 request_mask, unsigned int query_flags)
{
	generic_fillattr(NULL, path->dentry->d_inode, stat);
	return 0;
}

static void shmem_evict_inode(struct inode *inode)
{
	shmem_truncate_range(inode, 0);	/* its pages back to the file system's blocks */
	simple_xattrs_free(&SHMEM_I(inode)->xattrs);
	clear_inode(inode);
}

/* ---- names ---- */
noinline int shmem_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
{
	struct inode *inode = shmem_get_inode(dir->i_sb, dir, mode, dev, 0);

	if (!inode)
		return -ENOSPC;
	dir->i_size += BOGO_DIRENT_SIZE;
	dir->i_ctime = dir->i_mtime = current_time(dir);
	d_instantiate(dentry, inode);
	dget(dentry);	/* Extra count - pin the dentry in core */
	return 0;
}

noinline int shmem_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	int error = shmem_mknod(dir, dentry, mode | S_IFDIR, 0);

	if (error)
		return error;
	inc_nlink(dir);
	return 0;
}

noinline int shmem_create(struct inode *dir, struct dentry *dentry, umode_t mode, bool excl)
{
	return shmem_mknod(dir, dentry, mode | S_IFREG, 0);
}

noinline int shmem_link(struct dentry *old_dentry, struct inode *dir, struct dentry *dentry)
{
	dir->i_size += BOGO_DIRENT_SIZE;
	return simple_link(old_dentry, dir, dentry);
}

noinline int shmem_unlink(struct inode *dir, struct dentry *dentry)
{
	dir->i_size -= BOGO_DIRENT_SIZE;
	return simple_unlink(dir, dentry);
}

noinline int shmem_rmdir(struct inode *dir, struct dentry *dentry)
{
	if (!simple_empty(dentry))
		return -ENOTEMPTY;
	drop_nlink(dentry->d_inode);
	drop_nlink(dir);
	return shmem_unlink(dir, dentry);
}

noinline int shmem_rename2(struct inode *old_dir, struct dentry *old_dentry, struct inode *new_dir,
			   struct dentry *new_dentry, unsigned int flags)
{
	bool existed = new_dentry->d_inode;
	int err = simple_rename(old_dir, old_dentry, new_dir, new_dentry, flags);

	if (err)
		return err;
	if (existed)	/* simple_unlink took the target's entry; shmem_unlink's size goes too */
		new_dir->i_size -= BOGO_DIRENT_SIZE;
	old_dir->i_size -= BOGO_DIRENT_SIZE;
	new_dir->i_size += BOGO_DIRENT_SIZE;
	return 0;
}

/* A long link's body, in its page (a lockless walk takes it only when it is there) */
static noinline const char *shmem_get_link(struct dentry *dentry, struct inode *inode, char *buf)
{
	void *page;
	int error;

	if (!dentry) {	/* filemap_get_folio() */
		void **slot = mapping_slot(inode->i_mapping, 0, false);

		return slot && *slot ? *slot : (void *)(long)-ECHILD;
	}
	error = shmem_get_folio(inode, 0, &page, SGP_READ);
	if (error)
		return (void *)(long)error;
	return page ? page : (void *)(long)-ECHILD;
}

static const struct inode_operations shmem_symlink_inode_operations = {
	.get_link = shmem_get_link,
	.getattr = shmem_getattr,
	.listxattr = shmem_listxattr,
};

#define SHORT_SYMLINK_LEN 128

/* A link's body: a short one (up to 128 bytes with its NUL) in memory of its own (i_link), a
 * longer one in the file's first page */
noinline int shmem_symlink(struct inode *dir, struct dentry *dentry, const char *symname)
{
	size_t len = strlen(symname) + 1;
	struct inode *inode;

	if (len > PAGE_SIZE)
		return -ENAMETOOLONG;
	inode = shmem_get_inode(dir->i_sb, dir, S_IFLNK | 0777, 0, 0);
	if (!inode)
		return -ENOSPC;
	inode->i_size = len - 1;
	if (len <= SHORT_SYMLINK_LEN) {
		inode->i_link = kmalloc(len, GFP_KERNEL);
		if (!inode->i_link) {
			iput(inode);
			return -ENOMEM;
		}
		memcpy(inode->i_link, symname, len);
		inode->i_op = &simple_symlink_inode_operations;	/* (6.1's shmem_short_symlink_operations) */
	} else {
		void *page;
		int error = shmem_get_folio(inode, 0, &page, SGP_WRITE);

		if (error) {
			iput(inode);
			return error;
		}
		memcpy(page, symname, len);
		inode->i_op = &shmem_symlink_inode_operations;
	}
	dir->i_size += BOGO_DIRENT_SIZE;
	dir->i_ctime = dir->i_mtime = current_time(dir);
	d_instantiate(dentry, inode);
	dget(dentry);
	return 0;
}

/* ---- extended attributes (CONFIG_TMPFS_XATTR): security.* and trusted.*, in memory ---- */
static noinline int shmem_xattr_handler_get(const struct xattr_handler *handler, struct dentry *unused,
					    struct inode *inode, const char *name, void *buffer, size_t size)
{
	name = xattr_full_name(handler, name);
	return simple_xattr_get(&SHMEM_I(inode)->xattrs, name, buffer, size);
}

static noinline int shmem_xattr_handler_set(const struct xattr_handler *handler, struct dentry *unused,
					    struct inode *inode, const char *name, const void *value, size_t size,
					    int flags)
{
	int err;

	name = xattr_full_name(handler, name);
	err = simple_xattr_set(&SHMEM_I(inode)->xattrs, name, value, size, flags, NULL);
	if (!err)
		inode->i_ctime = current_time(inode);
	return err;
}

static const struct xattr_handler shmem_security_xattr_handler = {
	.prefix = XATTR_SECURITY_PREFIX,
	.get = shmem_xattr_handler_get,
	.set = shmem_xattr_handler_set,
};

static const struct xattr_handler shmem_trusted_xattr_handler = {
	.prefix = XATTR_TRUSTED_PREFIX,
	.get = shmem_xattr_handler_get,
	.set = shmem_xattr_handler_set,
};

/* (6.1's first two, CONFIG_TMPFS_POSIX_ACL's system.posix_acl_*, are not modelled) */
static const struct xattr_handler *shmem_xattr_handlers[] = {
	&shmem_security_xattr_handler,
	&shmem_trusted_xattr_handler,
	NULL
};

static noinline ssize_t shmem_listxattr(struct dentry *dentry, char *buffer, size_t size)
{
	return simple_xattr_list(dentry->d_inode, &SHMEM_I(dentry->d_inode)->xattrs, buffer, size);
}

static const struct inode_operations shmem_inode_operations = {
	.getattr = shmem_getattr,
	.setattr = shmem_setattr,
	.listxattr = shmem_listxattr,
};

static const struct inode_operations shmem_dir_inode_operations = {
	.create = shmem_create,
	.lookup = simple_lookup,
	.link = shmem_link,
	.unlink = shmem_unlink,
	.symlink = shmem_symlink,
	.mkdir = shmem_mkdir,
	.rmdir = shmem_rmdir,
	.mknod = shmem_mknod,
	.rename = shmem_rename2,
	.setattr = shmem_setattr,
	.listxattr = shmem_listxattr,
};

/* its pages are written through generic_perform_write (mm/filemap.c), never written back */
static const struct address_space_operations shmem_aops = {
	.write_begin = shmem_write_begin,
	.write_end = shmem_write_end,
};

/* Pages made for [offset, offset + len) (the size grows too, without FALLOC_FL_KEEP_SIZE), or a
 * hole punched there (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE). */
static noinline long shmem_fallocate(struct file *file, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = file->f_inode;
	struct shmem_sb_info *sbinfo = SHMEM_SB(inode->i_sb);
	struct shmem_inode_info *info = SHMEM_I(inode);
	unsigned long start, index, end;
	int error;

	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		if (info->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
			return -EPERM;
		/* the hole's whole pages go from the mappings too (unmap_mapping_range) */
		loff_t unmap_start = ALIGN(offset, PAGE_SIZE), unmap_end = ((offset + len) & PAGE_MASK) - 1;

		if (unmap_end > unmap_start)
			unmap_mapping_range(inode->i_mapping, unmap_start, 1 + unmap_end - unmap_start, 0);
		shmem_undo_range(inode, offset, offset + len - 1);
		error = 0;
		goto out;
	}
	error = inode_newsize_ok(inode, offset + len);	/* RLIMIT_FSIZE even with KEEP_SIZE */
	if (error)
		return error;
	if ((info->seals & F_SEAL_GROW) && offset + len > inode->i_size)
		return -EPERM;
	start = offset >> PAGE_SHIFT;
	end = (offset + len + PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (sbinfo->max_blocks && end - start > sbinfo->max_blocks)
		return -ENOSPC;	/* more than the mount may ever hold */
	for (index = start; index < end; index++) {
		void *page;

		if (signal_pending(current))
			error = -EINTR;
		else
			error = shmem_get_folio(inode, index, &page, SGP_FALLOC);
		/* (on an error the pages made so far stay: 6.1 frees them, shmem_undo_range of
		 * its !uptodate folios) */
		if (error)
			return error;
	}
	if (!(mode & FALLOC_FL_KEEP_SIZE) && offset + len > inode->i_size)
		inode->i_size = offset + len;	/* i_size_write */
out:
	if (!error)
		error = file_modified(file);
	return error;
}

/* ---- mappings (MAP_SHARED ones write the file's own pages) ---- */
/* The file's page at vmf->pgoff, made if a hole (read or written, the same page read(2) sees),
 * one reference for the PTE; past the end: SIGBUS */
static noinline int shmem_fault(struct vm_fault *vmf)
{
	struct inode *inode = vmf->vma->vm_file->f_inode;
	void *page;
	int error = shmem_get_folio_gfp(inode, vmf->pgoff, &page, SGP_CACHE, GFP_HIGHUSER_MOVABLE, vmf->vma, vmf, NULL);

	if (error)
		return error == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;	/* vmf_error() */
	get_page(page_of(page));
	vmf->page = page_of(page);
	return 0;
}

static const struct vm_operations_struct shmem_vm_ops = {
	.name = "shmem",
	.fault = shmem_fault,
};

/* No new shared writable mapping of a file sealed against writes (seal_check_write), and a
 * read-only one may not become writable (mprotect: EACCES).  A private mapping keeps the
 * model's copies read from the file (kernel/mmap.c's filemap_fault, where a uprobe puts its
 * breakpoints in a program's code: here never in the file's pages); 6.1 maps the file's pages
 * until they are written. */
static noinline int shmem_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct shmem_inode_info *info = SHMEM_I(file->f_inode);

	if ((info->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) && (vma->vm_flags & VM_SHARED)) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		vma->vm_flags &= ~VM_MAYWRITE;
	}
	file_accessed(file);
	if (vma->vm_flags & VM_SHARED)
		vma->vm_ops = &shmem_vm_ops;
	return 0;
}

static const struct file_operations shmem_file_operations = {
	.mmap = shmem_mmap,
	.llseek = generic_file_llseek,
	.read_iter = shmem_file_read_iter,
	.write_iter = generic_file_write_iter,
	.fsync = noop_fsync,
	.fallocate = shmem_fallocate,
	.splice_read = generic_file_splice_read,
	.splice_write = iter_file_splice_write,
};

static int shmem_show_options(struct seq_file *seq, struct dentry *root)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(root->d_sb);

	seq_printf(seq, ",size=%luk", sbinfo->max_blocks << (PAGE_SHIFT - 10));
	if (sbinfo->mode != (0777 | S_ISVTX))
		seq_printf(seq, ",mode=%03o", sbinfo->mode);
	return 0;
}

/* the mount's size (half the RAM) and what its files hold; no inode limit is kept (0, as
 * simple_statfs) */
static noinline int shmem_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(dentry->d_sb);

	buf->f_type = TMPFS_MAGIC;
	buf->f_bsize = PAGE_SIZE;
	buf->f_namelen = NAME_MAX;
	if (sbinfo->max_blocks) {
		buf->f_blocks = sbinfo->max_blocks;
		buf->f_bavail = buf->f_bfree = sbinfo->max_blocks - READ_ONCE(sbinfo->used_blocks);
	}
	return 0;
}

static const struct super_operations shmem_ops = {
	.alloc_inode = shmem_alloc_inode,
	.free_inode = shmem_free_in_core_inode,
	.evict_inode = shmem_evict_inode,
	.statfs = shmem_statfs,
	.show_options = shmem_show_options,
};

/* an inode's file handle: its generation and 64-bit number (inotify's fdinfo shows it) */
static noinline int shmem_encode_fh(struct inode *inode, u32 *fh, int *len, struct inode *parent)
{
	if (*len < 3) {
		*len = 3;
		return FILEID_INVALID;
	}
	fh[0] = inode->i_generation;
	fh[1] = inode->i_ino;
	fh[2] = ((u64)inode->i_ino) >> 32;
	*len = 3;
	return 1;
}

static const struct export_operations shmem_export_ops = {
	.encode_fh = shmem_encode_fh,
};

/* data: the root's mode (NULL: 1777) */
static noinline int shmem_fill_super(struct super_block *sb, void *data)
{
	struct shmem_sb_info *sbinfo = kzalloc(sizeof(*sbinfo), GFP_KERNEL);
	struct inode *inode;

	if (!sbinfo)
		return -ENOMEM;
	sbinfo->max_blocks = (boot_params.ram_size >> PAGE_SHIFT) / 2;
	sbinfo->mode = data ? *(umode_t *)data : 0777 | S_ISVTX;
	sb->s_fs_info = sbinfo;
	sb->s_flags |= SB_NOSEC;	/* (and SB_I_VERSION: no i_version here) */
	sb->s_op = &shmem_ops;
	sb->s_xattr = shmem_xattr_handlers;
	sb->s_export_op = &shmem_export_ops;
	inode = shmem_get_inode(sb, NULL, S_IFDIR | sbinfo->mode, 0, 0);
	sb->s_root = d_make_root(inode);
	return sb->s_root ? 0 : -ENOMEM;
}

struct file_system_type shmem_fs_type = {
	.name = "tmpfs",
	.fill_super = shmem_fill_super,
	.magic = TMPFS_MAGIC,
};

notrace bool shmem_file(struct file *file)
{
	return file->f_op == &shmem_file_operations;
}

/* An unlinked tmpfs file on mnt, named name (its dentry's) */
static noinline struct file *__shmem_file_setup(struct vfsmount *mnt, const char *name, loff_t size,
						unsigned long flags, unsigned int i_flags)
{
	struct inode *inode;
	struct file *res;

	if (IS_ERR(mnt))
		return (struct file *)mnt;	/* ERR_CAST */
	if (size < 0 || size > MAX_LFS_FILESIZE)
		return ERR_PTR(-EINVAL);
	inode = shmem_get_inode(mnt->mnt_sb, NULL, S_IFREG | 0777, 0, flags);
	if (unlikely(!inode))
		return ERR_PTR(-ENOSPC);
	inode->i_flags |= i_flags;
	inode->i_size = size;
	clear_nlink(inode);	/* it is unlinked */
	res = alloc_file_pseudo(inode, mnt, name, O_RDWR, &shmem_file_operations);
	if (IS_ERR(res))
		iput(inode);
	return res;
}

noinline struct file *shmem_file_setup(const char *name, loff_t size, unsigned long flags)
{
	return __shmem_file_setup(shm_mnt, name, size, flags, 0);
}

/* A file of the kernel's own (S_PRIVATE: no security checks on it): shared anonymous memory's
 * and SysV shared memory's */
noinline struct file *shmem_kernel_file_setup(const char *name, loff_t size, unsigned long flags)
{
	return __shmem_file_setup(shm_mnt, name, size, flags, S_PRIVATE);
}

/* Shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS) is a tmpfs file's pages: the VMA maps
 * a new unlinked file, "/dev/zero (deleted)" in /proc/PID/maps, which fork's children share */
noinline int shmem_zero_setup(struct vm_area_struct *vma)
{
	loff_t size = vma->vm_end - vma->vm_start;
	struct file *file = shmem_kernel_file_setup("dev/zero", size, vma->vm_flags);

	if (IS_ERR(file))
		return PTR_ERR(file);
	if (vma->vm_file)
		fput(vma->vm_file);
	vma->vm_file = file;
	vma->vm_ops = &shmem_vm_ops;
	return 0;
}

void __init shmem_init(void)
{
	shmem_inode_cachep = kmem_cache_create("shmem_inode_cache", sizeof(struct shmem_inode_info), 0,
					       SLAB_PANIC | SLAB_ACCOUNT, NULL);
	register_filesystem(&shmem_fs_type);
}

/* The internal mount memfds are made on (6.1 makes it in shmem_init; here once the boot
 * tree is mounted: its inodes want the task and clock state of then) */
void __init shmem_kern_mount_init(void)
{
	shm_mnt = kern_mount(&shmem_fs_type);
	if (IS_ERR(shm_mnt))
		panic("Could not kern_mount tmpfs");
}
