/* Encoding an inode's file handle (fs/exportfs/expfs.c): its file system's encode_fh, or the
 * generic one (32-bit inode number and generation). */
#include "../../include/exportfs.h"

/* (6.1's export_encode_fh: the generic handle, without a parent's) */
static notrace int export_encode_fh(struct inode *inode, u32 *fid, int *max_len, struct inode *parent)
{
	if (*max_len < 2) {
		*max_len = 2;
		return FILEID_INVALID;
	}
	fid[0] = inode->i_ino;
	fid[1] = inode->i_generation;
	*max_len = 2;
	return FILEID_INO32_GEN;
}

noinline int exportfs_encode_inode_fh(struct inode *inode, u32 *fid, int *max_len, struct inode *parent)
{
	const struct export_operations *nop = inode->i_sb->s_export_op;

	if (nop && nop->encode_fh)
		return nop->encode_fh(inode, fid, max_len, parent);
	return export_encode_fh(inode, fid, max_len, parent);
}
