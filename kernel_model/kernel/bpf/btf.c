// SPDX-License-Identifier: GPL-2.0
/*
 * BTF objects (kernel/bpf/btf.c): the kernel's own type information, vmlinux's BTF, which the
 * build puts in the image's .BTF section (pahole, from the kernel's DWARF), shown to user space
 * as BTF object 1 named "vmlinux": BPF_BTF_GET_NEXT_ID finds it, BPF_BTF_GET_FD_BY_ID opens it,
 * BPF_OBJ_GET_INFO_BY_FD copies its data out (how bpftrace and libbpf's
 * btf__load_from_kernel_by_id read a kernel's types).  Loading user BTF (BPF_BTF_LOAD) is not
 * here: EINVAL, as an unknown command.
 */
#include "../../include/fs.h"
#include "../../include/bpf.h"

extern const char __start_BTF[], __stop_BTF[];

struct btf {
	u32 id;
	const char *name;
	const void *data;
	u32 data_size;
	bool kernel_btf;
};

static struct btf btf_vmlinux = { .id = 1, .name = "vmlinux", .kernel_btf = true };

static ssize_t btf_read(struct file *f, char *buf, size_t n, loff_t *pos) { return -EINVAL; }
static ssize_t btf_write(struct file *f, const char *buf, size_t n, loff_t *pos) { return -EINVAL; }
const struct file_operations btf_fops = { .read = btf_read, .write = btf_write };

/* The vmlinux BTF when the image has one (btf_parse_vmlinux at boot in Linux). */
static struct btf *vmlinux_btf(void)
{
	if (!btf_vmlinux.data_size && (unsigned long)__stop_BTF > (unsigned long)__start_BTF) {
		btf_vmlinux.data = __start_BTF;
		btf_vmlinux.data_size = __stop_BTF - __start_BTF;
	}
	return btf_vmlinux.data_size ? &btf_vmlinux : NULL;
}

/* The first BTF id past start_id, 0 if none. */
u32 btf_next_id(u32 start_id)
{
	struct btf *btf = vmlinux_btf();

	return btf && btf->id > start_id ? btf->id : 0;
}

/* btf_get_fd_by_id: a read-only fd on the BTF object, -ENOENT for no such id. */
int btf_get_fd_by_id(u32 id)
{
	struct btf *btf = vmlinux_btf();
	struct file *f;
	int fd;

	if (!btf || btf->id != id)
		return -ENOENT;
	fd = get_unused_fd_flags(O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	f = anon_inode_getfile("btf", &btf_fops, btf, O_RDONLY | O_CLOEXEC);
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		return PTR_ERR(f);
	}
	fd_install(fd, f);
	return fd;
}

/* btf_get_info_by_fd: struct bpf_btf_info, with as much of the data and name as fit (a name
 * that does not: cut, NUL-ended, -ENOSPC). */
int btf_get_info_by_fd(const struct file *f, const union bpf_attr *attr, union bpf_attr *uattr)
{
	const struct btf *btf = f->private_data;
	struct bpf_btf_info info;
	u32 info_copy = min(attr->info.info_len, (u32)sizeof(info)), copy, name_len;
	char *uname;
	u32 uname_len;
	int ret = 0;

	memset(&info, 0, sizeof(info));
	if (copy_from_user(&info, (void *)attr->info.info, info_copy))
		return -EFAULT;
	info.id = btf->id;
	copy = min(btf->data_size, info.btf_size);
	if (copy_to_user((void *)info.btf, btf->data, copy))
		return -EFAULT;
	info.btf_size = btf->data_size;
	info.kernel_btf = btf->kernel_btf;
	uname = (char *)info.name;
	uname_len = info.name_len;
	if (!uname ^ !uname_len)
		return -EINVAL;
	name_len = strlen(btf->name);
	info.name_len = name_len;
	if (uname) {
		if (uname_len >= name_len + 1) {
			if (copy_to_user(uname, btf->name, name_len + 1))
				return -EFAULT;
		} else {
			char zero = '\0';

			if (copy_to_user(uname, btf->name, uname_len - 1) ||
			    copy_to_user(uname + uname_len - 1, &zero, 1))
				return -EFAULT;
			ret = -ENOSPC;	/* the caller's buffer is too short */
		}
	}
	if (copy_to_user((void *)attr->info.info, &info, info_copy) ||
	    copy_to_user(&uattr->info.info_len, &info_copy, sizeof(info_copy)))
		return -EFAULT;
	return ret;
}
