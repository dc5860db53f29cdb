/*
 * The boot file tree (Linux's init/initramfs.c): a "newc" cpio archive built from
 * kernel_model/initramfs/ (the Makefile, `cpio -H newc`), linked into the image, unpacked
 * into the root file system at boot: directories, regular files (written through the VFS,
 * kernel_write), symlinks.  Owners and modes come from the archive; times do not (they are
 * the build's, so a seeded machine's tree stays the same).
 */
#include "../include/fs.h"

extern const char __initramfs_start[], __initramfs_end[];

static notrace unsigned long parse_hex(const char *s)
{
	unsigned long v = 0;
	int i;

	for (i = 0; i < 8; i++) {
		char c = s[i];

		v = v * 16 + (c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0');
	}
	return v;
}

static notrace int __init do_name(const char *name, umode_t mode, uid_t uid, const char *body, size_t size)
{
	char path[PATH_MAX];
	int err = 0;

	if (!strcmp(name, ".") || !strcmp(name, "TRAILER!!!"))
		return 0;
	if (scnprintf(path, sizeof(path), "/%s", name[0] == '.' && name[1] == '/' ? name + 2 : name) >= PATH_MAX - 1)
		return -ENAMETOOLONG;
	if (S_ISDIR(mode)) {
		err = init_mkdir(path, mode & S_IALLUGO);
	} else if (S_ISREG(mode)) {
		struct file *f = filp_open(path, O_WRONLY | O_CREAT | O_TRUNC, mode & S_IALLUGO);
		loff_t pos = 0;

		if (IS_ERR(f))
			return PTR_ERR(f);
		if (size && kernel_write(f, body, size, &pos) != (ssize_t)size)
			err = -EIO;
		f->f_inode->i_uid = f->f_inode->i_gid = uid;
		fput(f);
		return err;
	} else if (S_ISLNK(mode)) {
		char target[PATH_MAX];

		if (size >= sizeof(target))
			return -ENAMETOOLONG;
		memcpy(target, body, size);
		target[size] = 0;
		return init_symlink(target, path);
	}
	return err == -EEXIST ? 0 : err;
}

noinline notrace int __init unpack_to_rootfs(const char *buf, unsigned long len)
{
	const char *p = buf, *end = buf + len;

	while (p + 110 <= end) {
		unsigned long mode, uid, filesize, namesize;
		const char *name, *body;
		int err;

		if (memcmp(p, "070701", 6) && memcmp(p, "070702", 6))
			return -EINVAL;
		mode = parse_hex(p + 14);
		uid = parse_hex(p + 22);
		filesize = parse_hex(p + 54);
		namesize = parse_hex(p + 94);
		name = p + 110;
		body = buf + ALIGN(name + namesize - buf, 4);
		if (body + filesize > end || name[namesize - 1])
			return -EINVAL;
		if (!strcmp(name, "TRAILER!!!"))
			return 0;
		err = do_name(name, mode, uid, body, filesize);
		if (err)
			return err;
		p = buf + ALIGN(body + filesize - buf, 4);
	}
	return 0;
}

void __init populate_rootfs(void)
{
	int err = unpack_to_rootfs(__initramfs_start, __initramfs_end - __initramfs_start);

	if (err)
		printk(KERN_EMERG "Initramfs unpacking failed: %d\n", err);
}
