/*
 * System V shared memory (Linux 6.1's ipc/shm.c): shmget (ksys_shmget → ipcget → newseg: a
 * segment is an unlinked tmpfs file "SYSV<key>", shmem_kernel_file_setup), shmat (do_shmat:
 * do_mmap of a file of its own on the segment's, whose ->mmap, shm_mmap, maps the tmpfs
 * file's pages: fs/shmem.c's shmem_fault), shmdt (ksys_shmdt: the VMAs of the segment's file
 * from the address on), shmctl (IPC_STAT/SHM_STAT/SHM_STAT_ANY, IPC_INFO/SHM_INFO, IPC_SET,
 * IPC_RMID: destroyed at the last detach, its key IPC_PRIVATE and SHM_DEST set meanwhile,
 * SHM_LOCK/SHM_UNLOCK).  A VMA's copy (fork, a split) is one more attach (shm_open), its end
 * one less (shm_close), so exit and exec detach too.  kernel.shm_rmid_forced is 0 (there is no
 * sysctl to set it): a segment outlives its creator until IPC_RMID.  A session's (host)
 * processes keep the host's IPC: the kernel makes no segments for them (ENOSYS).
 */
#include "../include/kernel.h"
#include "../include/nsproxy.h"
#include "../include/slab.h"
#include "../include/syscalls.h"
#include "../include/fs.h"
#include "../include/mmap_lock.h"
#include "../include/shmem_fs.h"

/* include/uapi/linux/shm.h */
#define SHMMIN		1
#define SHM_RDONLY	010000
#define SHM_RND		020000
#define SHM_REMAP	040000
#define SHM_EXEC	0100000
#define SHM_HUGETLB	04000
#define SHM_LOCK	11
#define SHM_UNLOCK	12
#define SHM_STAT	13
#define SHM_INFO	14
#define SHM_STAT_ANY	15
#define SHM_DEST	01000	/* in the mode: removed, destroyed at the last detach */
#define SHM_LOCKED	02000	/* in the mode: SHM_LOCK'd */
#define SHMLBA		PAGE_SIZE

struct shmid_kernel {
	struct kern_ipc_perm shm_perm;
	struct file *shm_file;		/* the tmpfs file of its pages */
	unsigned long shm_nattch;	/* its attaches: VMAs, and do_shmat's while it maps */
	unsigned long shm_segsz;
	time64_t shm_atim, shm_dtim, shm_ctim;
	pid_t shm_cprid, shm_lprid;	/* its creator's tgid, the last shmat or shmdt's */
};

/* what a segment's attach file (do_shmat's) knows: the segment and its tmpfs file, and the
 * vm_ops that file's ->mmap gave the VMA (shmem's) */
struct shm_file_data {
	struct shmid_kernel *shp;	/* (held: an attach file lives within an attach) */
	struct ipc_namespace *ns;
	struct file *file;
	const struct vm_operations_struct *vm_ops;
};

/* the uapi's struct shmid64_ds (x86-64), shminfo64 and shm_info */
struct shmid64_ds {
	struct ipc64_perm shm_perm;
	size_t shm_segsz;
	long shm_atime, shm_dtime, shm_ctime;
	int shm_cpid, shm_lpid;
	unsigned long shm_nattch;
	unsigned long __unused4, __unused5;
};
_Static_assert(sizeof(struct shmid64_ds) == 112, "shmid64_ds as x86-64's");
struct shminfo64 {
	unsigned long shmmax, shmmin, shmmni, shmseg, shmall;
	unsigned long __unused1, __unused2, __unused3, __unused4;
};
struct shm_info {
	int used_ids;
	unsigned long shm_tot, shm_rss, shm_swp, swap_attempts, swap_successes;
};

#define shm_ids(ns)	((ns)->ipc.ids[IPC_SHM_IDS])
#define shm_file_data(file)	((struct shm_file_data *)(file)->private_data)

static const struct file_operations shm_file_operations;
static const struct vm_operations_struct shm_vm_ops;

static noinline void shm_rcu_free(struct rcu_head *head)
{
	kfree(container_of(head, struct shmid_kernel, shm_perm.rcu));
}

/* The segment goes: out of its ids, its pages with its file.  The caller holds the ids' rwsem. */
static noinline void shm_destroy(struct ipc_namespace *ns, struct shmid_kernel *shp)
{
	struct file *shm_file = shp->shm_file;

	shp->shm_file = NULL;
	ns->ipc.shm_tot -= (shp->shm_segsz + PAGE_SIZE - 1) >> PAGE_SHIFT;
	ipc_rmid(&shm_ids(ns), &shp->shm_perm);	/* shm_rmid() */
	fput(shm_file);
	ipc_rcu_putref(&shp->shm_perm, shm_rcu_free);
}

/* destroyed at its last detach once removed (no kernel.shm_rmid_forced here) */
static inline bool shm_may_destroy(struct shmid_kernel *shp)
{
	return shp->shm_nattch == 0 && (shp->shm_perm.mode & SHM_DEST);
}

/* An attach: the segment's nattch, atime and last pid.  The caller holds the ids' rwsem. */
static noinline int __shm_open(struct shm_file_data *sfd)
{
	struct shmid_kernel *shp = sfd->shp;

	if (sfd->file != shp->shm_file)	/* destroyed meanwhile */
		return -EINVAL;
	shp->shm_atim = ktime_get_real_seconds();
	shp->shm_lprid = task_tgid_vnr(current);
	shp->shm_nattch++;
	return 0;
}

/* a VMA's copy (fork, a split) attaches again */
static noinline void shm_open(struct vm_area_struct *vma)
{
	struct shm_file_data *sfd = shm_file_data(vma->vm_file);

	down_write(&shm_ids(sfd->ns).rwsem);
	__shm_open(sfd);
	up_write(&shm_ids(sfd->ns).rwsem);
}

/* A detach: the segment goes with its last one once removed */
static noinline void __shm_close(struct shm_file_data *sfd)
{
	struct ipc_namespace *ns = sfd->ns;
	struct shmid_kernel *shp = sfd->shp;

	down_write(&shm_ids(ns).rwsem);
	shp->shm_lprid = task_tgid_vnr(current);
	shp->shm_dtim = ktime_get_real_seconds();
	shp->shm_nattch--;
	if (shm_may_destroy(shp))
		shm_destroy(ns, shp);
	up_write(&shm_ids(ns).rwsem);
}

static noinline void shm_close(struct vm_area_struct *vma)
{
	__shm_close(shm_file_data(vma->vm_file));
}

/* the segment's page, by the tmpfs file's fault */
static noinline int shm_fault(struct vm_fault *vmf)
{
	return shm_file_data(vmf->vma->vm_file)->vm_ops->fault(vmf);
}

static const struct vm_operations_struct shm_vm_ops = {
	.name = "shm",
	.open = shm_open,
	.close = shm_close,
	.fault = shm_fault,
};

/* The attach file's mapping: an attach, then the tmpfs file's own mmap, whose vm_ops the
 * segment's stand before */
static noinline int shm_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct shm_file_data *sfd = shm_file_data(file);
	int ret;

	down_write(&shm_ids(sfd->ns).rwsem);
	ret = __shm_open(sfd);
	up_write(&shm_ids(sfd->ns).rwsem);
	if (ret)
		return ret;
	ret = sfd->file->f_op->mmap(sfd->file, vma);	/* call_mmap() */
	if (ret) {
		__shm_close(sfd);
		return ret;
	}
	sfd->vm_ops = vma->vm_ops;
	vma->vm_ops = &shm_vm_ops;
	return 0;
}

static noinline int shm_release(struct inode *ino, struct file *file)
{
	struct shm_file_data *sfd = shm_file_data(file);

	fput(sfd->file);
	kfree(sfd);
	return 0;
}

static const struct file_operations shm_file_operations = {
	.mmap = shm_mmap,
	.release = shm_release,
};

/* ---- shmget ---- */
/* A new segment of params->u.size bytes: EINVAL outside SHMMIN..shmmax, ENOSPC past shmall
 * or shmmni; the id, or an errno */
static noinline int newseg(struct ipc_namespace *ns, struct ipc_params *params)
{
	size_t size = params->u.size, numpages = (size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	int shmflg = params->flg, error;
	struct shmid_kernel *shp;
	struct file *file;
	char name[13];

	if (size < SHMMIN || size > ns->ipc.shm_ctlmax)
		return -EINVAL;
	if (numpages << PAGE_SHIFT < size)
		return -ENOSPC;
	if (ns->ipc.shm_tot + numpages < ns->ipc.shm_tot || ns->ipc.shm_tot + numpages > ns->ipc.shm_ctlall)
		return -ENOSPC;
	if (shmflg & SHM_HUGETLB)
		return -ENOSYS;	/* no hugetlbfs (as memfd_create's MFD_HUGETLB) */
	shp = kzalloc(sizeof(*shp), GFP_KERNEL);
	if (!shp)
		return -ENOMEM;
	shp->shm_perm.key = params->key;
	shp->shm_perm.mode = shmflg & S_IRWXUGO;
	scnprintf(name, sizeof(name), "SYSV%08x", params->key);
	file = shmem_kernel_file_setup(name, size, 0);
	if (IS_ERR(file)) {
		kfree(shp);
		return PTR_ERR(file);
	}
	shp->shm_cprid = task_tgid_vnr(current);
	shp->shm_ctim = ktime_get_real_seconds();
	shp->shm_segsz = size;
	shp->shm_file = file;
	error = ipc_addid(&shm_ids(ns), &shp->shm_perm, ns->ipc.shm_ctlmni);
	if (error < 0) {
		fput(file);
		kfree(shp);
		return error;
	}
	file->f_inode->i_ino = shp->shm_perm.id;	/* ipcs and maps show the id as the inode */
	ns->ipc.shm_tot += numpages;
	return shp->shm_perm.id;
}

/* an existing segment's get may not ask for more than its size */
static noinline int shm_more_checks(struct kern_ipc_perm *ipcp, struct ipc_params *params)
{
	struct shmid_kernel *shp = container_of(ipcp, struct shmid_kernel, shm_perm);

	return shp->shm_segsz < params->u.size ? -EINVAL : 0;
}

static const struct ipc_ops shm_ops = {
	.getnew = newseg,
	.more_checks = shm_more_checks,
};

noinline long ksys_shmget(key_t key, size_t size, int shmflg)
{
	struct ipc_params shm_params = { .key = key, .flg = shmflg, .u.size = size };

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	return ipcget(current_ipc_ns(), &shm_ids(current_ipc_ns()), &shm_ops, &shm_params);
}

SYSCALL_DEFINE3(shmget, key_t, key, size_t, size, int, shmflg)
{
	return ksys_shmget(key, size, shmflg);
}

/* ---- shmctl ---- */
/* IPC_STAT by id, SHM_STAT and SHM_STAT_ANY by index (these answer the id); EACCES without
 * read permission but for SHM_STAT_ANY */
static noinline int shmctl_stat(struct ipc_namespace *ns, int shmid, int cmd, struct shmid64_ds *tbuf)
{
	struct kern_ipc_perm *ipcp;
	struct shmid_kernel *shp;
	int err;

	memset(tbuf, 0, sizeof(*tbuf));
	down_write(&shm_ids(ns).rwsem);
	if (cmd == SHM_STAT || cmd == SHM_STAT_ANY)
		ipcp = ipc_obtain_object_idr(&shm_ids(ns), shmid);
	else
		ipcp = ipc_obtain_object_check(&shm_ids(ns), shmid);
	err = PTR_ERR(ipcp);
	if (IS_ERR(ipcp))
		goto out;
	err = -EACCES;
	if (cmd != SHM_STAT_ANY && ipcperms(ns, ipcp, S_IRUGO))
		goto out;
	shp = container_of(ipcp, struct shmid_kernel, shm_perm);
	kernel_to_ipc64_perm(ipcp, &tbuf->shm_perm);
	tbuf->shm_segsz = shp->shm_segsz;
	tbuf->shm_atime = shp->shm_atim;
	tbuf->shm_dtime = shp->shm_dtim;
	tbuf->shm_ctime = shp->shm_ctim;
	tbuf->shm_cpid = shp->shm_cprid;
	tbuf->shm_lpid = shp->shm_lprid;
	tbuf->shm_nattch = shp->shm_nattch;
	err = cmd == IPC_STAT ? 0 : ipcp->id;
out:
	up_write(&shm_ids(ns).rwsem);
	return err;
}

/* The segment's pages in memory, summed over all (shm_get_stat, shm_add_rss_swap: nothing is
 * swapped here) */
static inline unsigned long shm_rss(struct ipc_namespace *ns)
{
	struct ipc_ids *ids = &shm_ids(ns);
	unsigned long rss = 0;

	for (int idx = 0; idx <= ids->max_idx; idx++)
		if (ids->entries[idx])
			rss += container_of(ids->entries[idx], struct shmid_kernel, shm_perm)->shm_file->f_mapping->nrpages;
	return rss;
}

/* IPC_INFO's limits or SHM_INFO's usage; both answer the highest index in use (0: none) */
static inline int shmctl_info(struct ipc_namespace *ns, int cmd, struct shminfo64 *shminfo, struct shm_info *shm_info)
{
	int err;

	down_write(&shm_ids(ns).rwsem);
	if (cmd == IPC_INFO) {
		memset(shminfo, 0, sizeof(*shminfo));
		shminfo->shmmni = shminfo->shmseg = ns->ipc.shm_ctlmni;
		shminfo->shmmax = ns->ipc.shm_ctlmax;
		shminfo->shmall = ns->ipc.shm_ctlall;
		shminfo->shmmin = SHMMIN;
	} else {	/* shmctl_shm_info() */
		memset(shm_info, 0, sizeof(*shm_info));
		shm_info->used_ids = shm_ids(ns).in_use;
		shm_info->shm_rss = shm_rss(ns);
		shm_info->shm_tot = ns->ipc.shm_tot;
	}
	err = ipc_get_maxidx(&shm_ids(ns));
	up_write(&shm_ids(ns).rwsem);
	return err < 0 ? 0 : err;
}

/* IPC_RMID: destroyed now when no one is attached, else at the last detach (SHM_DEST, its key
 * private meanwhile) */
static noinline void do_shm_rmid(struct ipc_namespace *ns, struct kern_ipc_perm *ipcp)
{
	struct shmid_kernel *shp = container_of(ipcp, struct shmid_kernel, shm_perm);

	if (shp->shm_nattch) {
		shp->shm_perm.mode |= SHM_DEST;
		ipc_set_key_private(&shm_ids(ns), &shp->shm_perm);
	} else {
		shm_destroy(ns, shp);
	}
}

/* IPC_SET and IPC_RMID: the creator's, the owner's or CAP_SYS_ADMIN's (EPERM) */
static noinline int shmctl_down(struct ipc_namespace *ns, int shmid, int cmd, struct shmid64_ds *shmid64)
{
	struct kern_ipc_perm *ipcp;
	int err = 0;

	down_write(&shm_ids(ns).rwsem);
	ipcp = ipcctl_obtain_check(ns, &shm_ids(ns), shmid, cmd, shmid64 ? &shmid64->shm_perm : NULL, 0);
	if (IS_ERR(ipcp)) {
		err = PTR_ERR(ipcp);
	} else if (cmd == IPC_RMID) {
		do_shm_rmid(ns, ipcp);
	} else {
		err = ipc_update_perm(&shmid64->shm_perm, ipcp);
		if (!err)
			container_of(ipcp, struct shmid_kernel, shm_perm)->shm_ctim = ktime_get_real_seconds();
	}
	up_write(&shm_ids(ns).rwsem);
	return err;
}

#define CAP_IPC_LOCK	14
#define RLIMIT_MEMLOCK	8

/* SHM_LOCK and SHM_UNLOCK: only a flag here (no page is ever reclaimed from a segment: there
 * is no swap); the owner's or CAP_IPC_LOCK's, SHM_LOCK within a RLIMIT_MEMLOCK that is not 0
 * (6.1's user_shm_lock also counts the user's locked segments against it: not modelled) */
static noinline int shmctl_do_lock(struct ipc_namespace *ns, int shmid, int cmd)
{
	struct kern_ipc_perm *ipcp;
	int err = 0;

	down_write(&shm_ids(ns).rwsem);
	ipcp = ipc_obtain_object_check(&shm_ids(ns), shmid);
	if (IS_ERR(ipcp)) {
		err = PTR_ERR(ipcp);
		goto out;
	}
	if (!capable(CAP_IPC_LOCK)) {
		kuid_t euid = current_euid();

		err = -EPERM;
		if (euid != ipcp->uid && euid != ipcp->cuid)
			goto out;
		if (cmd == SHM_LOCK && !rlimit(RLIMIT_MEMLOCK))
			goto out;
		err = 0;
	}
	if (cmd == SHM_LOCK)
		ipcp->mode |= SHM_LOCKED;
	else
		ipcp->mode &= ~SHM_LOCKED;
out:
	up_write(&shm_ids(ns).rwsem);
	return err;
}

static inline long ksys_shmctl(int shmid, int cmd, struct shmid_ds *buf)
{
	struct ipc_namespace *ns;
	struct shmid64_ds sem64;
	struct shminfo64 shminfo;
	struct shm_info shm_info;
	int err;

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	if (cmd < 0 || shmid < 0)
		return -EINVAL;
	ns = current_ipc_ns();
	switch (cmd) {
	case IPC_INFO:
		err = shmctl_info(ns, cmd, &shminfo, NULL);
		if (copy_to_user(buf, &shminfo, sizeof(shminfo)))
			err = -EFAULT;
		return err;
	case SHM_INFO:
		err = shmctl_info(ns, cmd, NULL, &shm_info);
		if (copy_to_user(buf, &shm_info, sizeof(shm_info)))
			err = -EFAULT;
		return err;
	case SHM_STAT:
	case SHM_STAT_ANY:
	case IPC_STAT:
		err = shmctl_stat(ns, shmid, cmd, &sem64);
		if (err < 0)
			return err;
		if (copy_to_user(buf, &sem64, sizeof(sem64)))
			err = -EFAULT;
		return err;
	case IPC_SET:
		if (copy_from_user(&sem64, buf, sizeof(sem64)))
			return -EFAULT;
		return shmctl_down(ns, shmid, cmd, &sem64);
	case IPC_RMID:
		return shmctl_down(ns, shmid, cmd, NULL);
	case SHM_LOCK:
	case SHM_UNLOCK:
		return shmctl_do_lock(ns, shmid, cmd);
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE3(shmctl, int, shmid, int, cmd, struct shmid_ds *, buf)
{
	return ksys_shmctl(shmid, cmd, buf);
}

/* ---- shmat and shmdt ---- */
/* The segment mapped at shmaddr (0: where mmap finds room; SHM_RND rounds down to SHMLBA;
 * SHM_REMAP replaces what is there, else EINVAL if anything is), read-only with SHM_RDONLY;
 * *raddr its address.  EACCES without the permission asked, EIDRM for a destroyed one. */
noinline long do_shmat(int shmid, char *shmaddr, int shmflg, unsigned long *raddr, unsigned long shmlba)
{
	unsigned long addr = (unsigned long)shmaddr, flags = MAP_SHARED, prot, size, populate = 0;
	struct ipc_namespace *ns = current_ipc_ns();
	struct kern_ipc_perm *ipcp;
	struct shm_file_data *sfd;
	struct shmid_kernel *shp;
	int acc_mode, f_flags;
	struct file *file;
	long err;

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	if (shmid < 0)
		return -EINVAL;
	if (addr) {
		if (addr & (shmlba - 1)) {
			if (!(shmflg & SHM_RND))
				return -EINVAL;	/* (SHMLBA is a page on x86) */
			addr &= ~(shmlba - 1);	/* round down */
			if (!addr && (shmflg & SHM_REMAP))
				return -EINVAL;
		}
		flags |= MAP_FIXED;
	} else if (shmflg & SHM_REMAP) {
		return -EINVAL;
	}
	if (shmflg & SHM_RDONLY) {
		prot = PROT_READ;
		acc_mode = S_IRUGO;
		f_flags = O_RDONLY;
	} else {
		prot = PROT_READ | PROT_WRITE;
		acc_mode = S_IRUGO | S_IWUGO;
		f_flags = O_RDWR;
	}
	if (shmflg & SHM_EXEC) {
		prot |= PROT_EXEC;
		acc_mode |= 0111;	/* S_IXUGO */
	}

	down_write(&shm_ids(ns).rwsem);
	ipcp = ipc_obtain_object_check(&shm_ids(ns), shmid);
	if (IS_ERR(ipcp)) {
		up_write(&shm_ids(ns).rwsem);
		return PTR_ERR(ipcp);
	}
	if (ipcperms(ns, ipcp, acc_mode)) {
		up_write(&shm_ids(ns).rwsem);
		return -EACCES;
	}
	shp = container_of(ipcp, struct shmid_kernel, shm_perm);
	if (!shp->shm_file) {	/* !ipc_valid_object() */
		up_write(&shm_ids(ns).rwsem);
		return -EIDRM;
	}
	get_file(shp->shm_file);
	shp->shm_nattch++;	/* held while it is mapped */
	size = shp->shm_file->f_inode->i_size;
	up_write(&shm_ids(ns).rwsem);

	err = -ENOMEM;
	sfd = kzalloc(sizeof(*sfd), GFP_KERNEL);
	if (!sfd) {
		fput(shp->shm_file);
		goto out_nattch;
	}
	file = alloc_file_clone(shp->shm_file, f_flags, &shm_file_operations);
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		kfree(sfd);
		fput(shp->shm_file);
		goto out_nattch;
	}
	sfd->shp = shp;
	sfd->ns = ns;
	sfd->file = shp->shm_file;	/* (the reference taken above) */
	file->private_data = sfd;

	mmap_write_lock(current->mm);
	err = -EINVAL;
	if (addr && !(shmflg & SHM_REMAP) &&
	    (addr + size < addr || find_vma_intersection(current->mm, addr, addr + size)))
		goto invalid;
	addr = do_mmap(file, addr, size, prot, flags, 0, &populate);
	*raddr = addr;
	err = IS_ERR((void *)addr) ? (long)addr : 0;
invalid:
	mmap_write_unlock(current->mm);
	fput(file);
out_nattch:
	down_write(&shm_ids(ns).rwsem);
	shp->shm_nattch--;
	if (shm_may_destroy(shp))
		shm_destroy(ns, shp);
	up_write(&shm_ids(ns).rwsem);
	return err;
}

SYSCALL_DEFINE3(shmat, int, shmid, char *, shmaddr, int, shmflg)
{
	unsigned long ret;
	long err = do_shmat(shmid, shmaddr, shmflg, &ret, SHMLBA);

	return err ? err : (long)ret;
}

static inline bool shm_vma_at(struct vm_area_struct *vma, unsigned long addr)
{
	return vma->vm_ops == &shm_vm_ops && (vma->vm_start - addr) / PAGE_SIZE == vma->vm_pgoff;
}

/* Detach the segment attached at shmaddr: its VMAs (of the same attach file) from there on,
 * within its size; EINVAL when none starts there */
noinline long ksys_shmdt(char *shmaddr)
{
	struct mm_struct *mm = current->mm;
	unsigned long addr = (unsigned long)shmaddr, size = 0, next;
	struct vm_area_struct *vma;
	struct file *file = NULL;
	int retval = -EINVAL;

	if (current->session)	/* a session's process keeps the host's IPC */
		return -ENOSYS;
	if (addr & ~PAGE_MASK)
		return retval;
	mmap_write_lock(mm);
	for (vma = find_vma(mm, addr); vma; vma = find_vma(mm, next)) {
		next = vma->vm_end;
		if (shm_vma_at(vma, addr)) {
			file = vma->vm_file;
			size = PAGE_ALIGN(file->f_inode->i_size);
			get_file(file);	/* (compared below, after its VMA went) */
			do_mas_munmap(mm, vma->vm_start, vma->vm_end - vma->vm_start);
			retval = 0;
			break;
		}
	}
	for (vma = file ? find_vma(mm, next) : NULL; vma && (loff_t)(vma->vm_end - addr) <= (loff_t)size;
	     vma = find_vma(mm, next)) {
		next = vma->vm_end;
		if (shm_vma_at(vma, addr) && vma->vm_file == file)
			do_mas_munmap(mm, vma->vm_start, vma->vm_end - vma->vm_start);
	}
	mmap_write_unlock(mm);
	if (file)
		fput(file);
	return retval;
}

SYSCALL_DEFINE1(shmdt, char *, shmaddr)
{
	return ksys_shmdt(shmaddr);
}

/* /proc/sysvipc/shm's line of a segment */
noinline int sysvipc_shm_proc_show(struct seq_file *s, void *it)
{
	struct kern_ipc_perm *ipcp = it;
	struct shmid_kernel *shp = container_of(ipcp, struct shmid_kernel, shm_perm);
	unsigned long rss = shp->shm_file ? shp->shm_file->f_mapping->nrpages : 0;

	seq_printf(s, "%10d %10d  %4o %21lu %5u %5u  %5lu %5u %5u %5u %5u %10llu %10llu %10llu %21lu %21lu\n",
		   ipcp->key, ipcp->id, ipcp->mode, shp->shm_segsz, shp->shm_cprid, shp->shm_lprid,
		   shp->shm_nattch, ipcp->uid, ipcp->gid, ipcp->cuid, ipcp->cgid, shp->shm_atim,
		   shp->shm_dtim, shp->shm_ctim, rss * PAGE_SIZE, 0UL);
	return 0;
}
