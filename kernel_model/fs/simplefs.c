/*
 * simplefs: a small file system on a block device (the machine's NVMe namespace), mounted at
 * /mnt.  Its names and inodes live in memory (the dcache, as tmpfs's: libfs), its files' data
 * on the disk in 4 KiB blocks, allocated when a page is first written (`simplefs_get_block`,
 * as ext2's get_block at write_begin; block 0 is the superblock's and never given out), freed
 * when the file shrinks or goes.  The data go through the page cache (mm/filemap.c):
 * `simplefs_write_begin` finds or makes the page (read in from its block when a write
 * covers part of it), `simplefs_write_end` dirties it (and the inode when the file grows),
 * the flusher or fsync writes it (`simplefs_writepage`: one bio of one page, its writeback
 * ended from the completion), `simplefs_read_folio` reads a page the cache lost.  The disk
 * is blank at each boot, so nothing is read from it at mount.
 */
#include "../include/pagemap.h"
#include "../include/blkdev.h"
#include "../include/buffer_head.h"
#include "../include/slab.h"

#define SIMPLEFS_MAGIC		0x51f5f5f5
#define SIMPLEFS_BLOCK_SHIFT	12
#define SECTORS_PER_BLOCK	(1 << (SIMPLEFS_BLOCK_SHIFT - SECTOR_SHIFT))

struct simplefs_sb_info {
	struct block_device *bdev;
	struct bdi_writeback wb;
	spinlock_t lock;		/* the bitmap */
	unsigned long nr_blocks;
	unsigned long free_blocks;
	unsigned long next;		/* where the next search for a free block starts */
	unsigned long *bitmap;		/* a bit per block in use */
};

struct simplefs_inode_info {
	u32 *blocks;			/* each page's block; 0: none yet */
	unsigned long nr;
};

static const struct inode_operations simplefs_file_inode_operations;
static const struct inode_operations simplefs_dir_inode_operations;
static const struct file_operations simplefs_file_operations;
static const struct address_space_operations simplefs_aops;

static notrace struct simplefs_sb_info *SIMPLEFS_SB(struct super_block *sb) { return sb->s_fs_info; }
static notrace struct simplefs_inode_info *SIMPLEFS_I(struct inode *inode) { return inode->i_private; }

/* ---- blocks ---- */
static noinline u32 simplefs_new_block(struct super_block *sb)
{
	struct simplefs_sb_info *sbi = SIMPLEFS_SB(sb);
	unsigned long flags, i, b;
	u32 block = 0;

	spin_lock_irqsave(&sbi->lock, flags);
	for (i = 0; i < sbi->nr_blocks && sbi->free_blocks; i++) {
		b = (sbi->next + i) % sbi->nr_blocks;
		if (!b || (sbi->bitmap[b / 64] & (1UL << (b % 64))))
			continue;
		sbi->bitmap[b / 64] |= 1UL << (b % 64);
		sbi->free_blocks--;
		sbi->next = b + 1;
		block = b;
		break;
	}
	spin_unlock_irqrestore(&sbi->lock, flags);
	return block;
}

static notrace void simplefs_free_block(struct super_block *sb, u32 b)
{
	struct simplefs_sb_info *sbi = SIMPLEFS_SB(sb);
	unsigned long flags;

	spin_lock_irqsave(&sbi->lock, flags);
	sbi->bitmap[b / 64] &= ~(1UL << (b % 64));
	sbi->free_blocks++;
	spin_unlock_irqrestore(&sbi->lock, flags);
}

/* The block of the file's page index (allocated when create): 0 if none, or -errno. */
static noinline long simplefs_get_block(struct inode *inode, unsigned long index, bool create)
{
	struct simplefs_inode_info *si = SIMPLEFS_I(inode);

	if (index >= si->nr) {
		unsigned long n = max(16UL, si->nr);
		u32 *blocks;

		if (!create)
			return 0;
		while (n <= index)
			n *= 2;
		blocks = kzalloc(n * sizeof(u32), GFP_KERNEL);
		if (!blocks)
			return -ENOMEM;
		if (si->blocks)
			memcpy(blocks, si->blocks, si->nr * sizeof(u32));
		kfree(si->blocks);
		si->blocks = blocks;
		si->nr = n;
	}
	if (!si->blocks[index] && create) {
		si->blocks[index] = simplefs_new_block(inode->i_sb);
		if (!si->blocks[index])
			return -ENOSPC;
		inode->i_blocks += PAGE_SIZE >> 9;
	}
	return si->blocks[index];
}

/* The blocks of pages from index on go back (truncation, eviction). */
static notrace void simplefs_free_blocks(struct inode *inode, unsigned long index)
{
	struct simplefs_inode_info *si = SIMPLEFS_I(inode);
	unsigned long i;

	for (i = index; i < si->nr; i++) {
		if (si->blocks[i]) {
			simplefs_free_block(inode->i_sb, si->blocks[i]);
			si->blocks[i] = 0;
			inode->i_blocks -= PAGE_SIZE >> 9;
		}
	}
}

/* ---- pages ---- */
static void simplefs_end_bio_write(struct bio *bio)
{
	void *page = bio->bi_private;

	folio_end_writeback(page);
	bio_put(bio);
}

static noinline int simplefs_writepage(struct address_space *mapping, void *page, unsigned long index,
				      struct writeback_control *wbc)
{
	struct inode *inode = mapping->host;
	long block = simplefs_get_block(inode, index, false);
	struct bio *bio;

	if (block <= 0)
		return block ? block : -EIO;	/* write_begin mapped every page it made */
	bio = bio_alloc(SIMPLEFS_SB(inode->i_sb)->bdev, 1,
			REQ_OP_WRITE | (wbc->sync_mode == WB_SYNC_ALL ? REQ_SYNC : 0), GFP_KERNEL);
	if (!bio)
		return -ENOMEM;
	bio->bi_iter.bi_sector = (sector_t)block * SECTORS_PER_BLOCK;
	bio_add_page(bio, virt_to_page(page), PAGE_SIZE, 0);
	bio->bi_end_io = simplefs_end_bio_write;
	bio->bi_private = page;
	if (page_buffers(page))		/* __block_write_full_page: the buffer goes to the disk */
		clear_buffer_dirty(page_buffers(page));
	folio_start_writeback(page);
	submit_bio(bio);
	return 0;
}

static noinline int simplefs_read_folio(struct file *file, void *page, unsigned long index)
{
	struct inode *inode = file->f_mapping->host;
	long block = simplefs_get_block(inode, index, false);
	struct bio *bio;
	int err;

	if (block <= 0) {	/* a hole */
		memset(page, 0, PAGE_SIZE);
		return block;
	}
	bio = bio_alloc(SIMPLEFS_SB(inode->i_sb)->bdev, 1, REQ_OP_READ, GFP_KERNEL);
	if (!bio)
		return -ENOMEM;
	bio->bi_iter.bi_sector = (sector_t)block * SECTORS_PER_BLOCK;
	bio_add_page(bio, virt_to_page(page), PAGE_SIZE, 0);
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

static noinline int simplefs_write_begin(struct file *file, struct address_space *mapping, loff_t pos, unsigned len,
					 void **pagep)
{
	struct inode *inode = mapping->host;
	unsigned long index = pos >> PAGE_SHIFT;
	void *page = __filemap_get_folio(mapping, index, FGP_LOCK | FGP_WRITE | FGP_CREAT, GFP_KERNEL);
	struct buffer_head *bh;
	long block;
	int err = 0;

	if (!page)
		return -ENOMEM;
	folio_wait_writeback(page);	/* folio_wait_stable */
	if (!PageUptodate(page)) {
		/* a partial write of a page with data on the disk reads it first */
		if ((pos & (PAGE_SIZE - 1)) || len < PAGE_SIZE) {
			err = simplefs_read_folio(file, page, index);
			if (err)
				goto out;
		}
		page_of(page)->flags |= PG_uptodate;
	}
	block = simplefs_get_block(inode, index, true);
	if (block < 0) {
		err = block;
		goto out;
	}
	bh = create_empty_buffers(mapping, page, index, PAGE_SIZE, 0);	/* create_page_buffers */
	if (!bh) {
		err = -ENOMEM;
		goto out;
	}
	bh->b_blocknr = block;
	bh->b_bdev = SIMPLEFS_SB(inode->i_sb)->bdev;
	bh->b_state |= 1UL << BH_Mapped;
	*pagep = page;	/* locked and held until write_end */
	return 0;
out:
	folio_unlock(page);
	folio_put(page);
	return err;
}

/* ext2's: its buffer dirtied, and so its page and inode (mark_buffer_dirty); the size grown */
static noinline int simplefs_write_end(struct file *file, struct address_space *mapping, loff_t pos, unsigned len,
				       unsigned copied, void *page)
{
	return generic_write_end(file, mapping, pos, len, copied, page);
}

static const struct address_space_operations simplefs_aops = {
	.writepage = simplefs_writepage,
	.read_folio = simplefs_read_folio,
	.dirty_folio = filemap_dirty_folio,
	.write_begin = simplefs_write_begin,
	.write_end = simplefs_write_end,
};

/* The file's dirty pages written and waited for, then the disk's cache flushed
 * (generic_file_fsync → blkdev_issue_flush). */
static noinline int simplefs_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct inode *inode = file->f_mapping->host;
	int err = file_write_and_wait_range(file, start, end);

	if (err)
		return err;
	inode->i_state &= ~(datasync ? I_DIRTY_DATASYNC : I_DIRTY_SYNC | I_DIRTY_DATASYNC);
	return blkdev_issue_flush(SIMPLEFS_SB(inode->i_sb)->bdev);
}

/* ---- inodes ---- */
static noinline struct inode *simplefs_get_inode(struct super_block *sb, struct inode *dir, umode_t mode)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = get_next_ino();
	inode_init_owner(inode, dir, mode);
	inode->i_generation = (u32)get_random_u64();
	if (S_ISDIR(mode)) {
		inc_nlink(inode);
		inode->i_op = &simplefs_dir_inode_operations;
		inode->i_fop = &simple_dir_operations;
		return inode;
	}
	inode->i_private = kzalloc(sizeof(struct simplefs_inode_info), GFP_KERNEL);
	if (!inode->i_private) {
		iput(inode);
		return NULL;
	}
	inode->i_op = &simplefs_file_inode_operations;
	inode->i_fop = &simplefs_file_operations;
	inode->i_mapping->a_ops = &simplefs_aops;
	inode->i_wb = &SIMPLEFS_SB(sb)->wb;
	return inode;
}

static noinline int simplefs_setattr(struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	int error = setattr_prepare(NULL, dentry, attr);

	if (error)
		return error;
	if ((attr->ia_valid & ATTR_SIZE) && S_ISREG(inode->i_mode) && attr->ia_size != inode->i_size) {
		loff_t newsize = attr->ia_size;

		/* (the caller holds i_rwsem: no write or writeback of the file meanwhile) */
		if (newsize < inode->i_size) {
			truncate_inode_pages(inode->i_mapping, newsize);
			simplefs_free_blocks(inode, (newsize + PAGE_SIZE - 1) >> PAGE_SHIFT);
		}
		inode->i_size = newsize;
		inode->i_ctime = inode->i_mtime = current_time(inode);
		mark_inode_dirty(inode);
	}
	setattr_copy(NULL, inode, attr);
	if (attr->ia_valid & (ATTR_MODE | ATTR_ATIME | ATTR_MTIME | ATTR_CTIME))
		mark_inode_dirty(inode);
	return 0;
}

static noinline int simplefs_getattr(const struct path *path, struct kstat *stat, u32 request_mask,
				     unsigned int query_flags)
{
	generic_fillattr(NULL, path->dentry->d_inode, stat);
	return 0;
}

static void simplefs_evict_inode(struct inode *inode)
{
	struct simplefs_inode_info *si = SIMPLEFS_I(inode);

	if (si) {
		inode_io_list_del(inode);
		truncate_inode_pages_final(inode->i_mapping);
		simplefs_free_blocks(inode, 0);
		kfree(si->blocks);
		kfree(si);
		inode->i_private = NULL;
	}
	clear_inode(inode);
}

/* ---- names ---- */
static noinline int simplefs_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
{
	struct inode *inode;

	if (!S_ISREG(mode) && !S_ISDIR(mode))
		return -EPERM;	/* no device nodes, fifos or sockets here */
	inode = simplefs_get_inode(dir->i_sb, dir, mode);
	if (!inode)
		return -ENOSPC;
	dir->i_ctime = dir->i_mtime = current_time(dir);
	d_instantiate(dentry, inode);
	dget(dentry);	/* pinned: the dcache is the directory */
	return 0;
}

static noinline int simplefs_create(struct inode *dir, struct dentry *dentry, umode_t mode, bool excl)
{
	return simplefs_mknod(dir, dentry, mode | S_IFREG, 0);
}

static noinline int simplefs_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	int error = simplefs_mknod(dir, dentry, mode | S_IFDIR, 0);

	if (!error)
		inc_nlink(dir);
	return error;
}

static const struct inode_operations simplefs_file_inode_operations = {
	.getattr = simplefs_getattr,
	.setattr = simplefs_setattr,
};

static const struct inode_operations simplefs_dir_inode_operations = {
	.create = simplefs_create,
	.lookup = simple_lookup,
	.link = simple_link,
	.unlink = simple_unlink,
	.mkdir = simplefs_mkdir,
	.rmdir = simple_rmdir,
	.mknod = simplefs_mknod,
	.rename = simple_rename,
	.setattr = simplefs_setattr,
};

static const struct file_operations simplefs_file_operations = {
	.open = generic_file_open,	/* (ext2's dquot_file_open, without quotas) */
	.llseek = generic_file_llseek,
	.read_iter = generic_file_read_iter,
	.write_iter = generic_file_write_iter,
	.fsync = simplefs_fsync,
	.splice_read = generic_file_splice_read,
	.splice_write = iter_file_splice_write,
};

static const struct super_operations simplefs_ops = {
	.evict_inode = simplefs_evict_inode,
	.statfs = simple_statfs,
};

/* data: the root's mode; the device: the first NVMe namespace (259:0) */
static noinline int simplefs_fill_super(struct super_block *sb, void *data)
{
	struct block_device *bdev = blkdev_get_by_dev(MKDEV(BLOCK_EXT_MAJOR, 0));
	struct simplefs_sb_info *sbi;
	struct inode *root;

	if (!bdev)
		return -ENODEV;
	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sbi->bdev = bdev;
	sbi->lock = (spinlock_t)__SPIN_LOCK_UNLOCKED;
	sbi->nr_blocks = bdev->bd_nr_sectors / SECTORS_PER_BLOCK;
	sbi->free_blocks = sbi->nr_blocks - 1;	/* block 0: the superblock's */
	sbi->bitmap = kzalloc((sbi->nr_blocks + 63) / 64 * 8, GFP_KERNEL);
	if (!sbi->bitmap)
		return -ENOMEM;
	sb->s_fs_info = sbi;
	sb->s_flags |= SB_NOSEC;	/* a block device's super block (6.1's get_tree_bdev/mount_bdev) */
	sb->s_op = &simplefs_ops;
	sb->s_dev = bdev->bd_dev;
	sb->s_blocksize_bits = SIMPLEFS_BLOCK_SHIFT;
	sb->s_blocksize = 1 << SIMPLEFS_BLOCK_SHIFT;
	sb->s_maxbytes = (loff_t)sbi->nr_blocks << SIMPLEFS_BLOCK_SHIFT;
	scnprintf(sb->s_id, sizeof(sb->s_id), "%s", bdev->bd_disk->disk_name);
	bdi_writeback_init(&sbi->wb, bdev->bd_dev, sb);
	root = simplefs_get_inode(sb, NULL, S_IFDIR | (data ? *(umode_t *)data : 0755));
	sb->s_root = root ? d_make_root(root) : NULL;
	return sb->s_root ? 0 : -ENOMEM;
}

struct file_system_type simplefs_fs_type = {
	.name = "simplefs",
	.fill_super = simplefs_fill_super,
	.magic = SIMPLEFS_MAGIC,
	.fs_flags = FS_REQUIRES_DEV,
};

void __init simplefs_init(void)
{
	register_filesystem(&simplefs_fs_type);
}
