/* File handles (include/linux/exportfs.h): an inode as a few words its file system can find it
 * by again; here only encoded (inotify's fdinfo: no name_to_handle_at, no NFS export). */
#ifndef _EXPORTFS_H
#define _EXPORTFS_H
#include "fs.h"

#define FILEID_INO32_GEN	1	/* 32-bit inode number, 32-bit generation */
#define FILEID_INVALID		0xff
#define MAX_HANDLE_SZ		128

struct export_operations {
	/* the handle's words in fh (at most *max_len, its length there); its type, or
	 * FILEID_INVALID with the length it needs */
	int (*encode_fh)(struct inode *inode, u32 *fh, int *max_len, struct inode *parent);
};

int exportfs_encode_inode_fh(struct inode *inode, u32 *fid, int *max_len, struct inode *parent);
#endif
