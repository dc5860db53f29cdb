/* VFS: file descriptors, read/write/open/close, an in-memory tree of static
 * files, /dev/null, /dev/zero, generated /proc files and the host pipe. */
#include "../include/syscalls.h"

#define O_ACCMODE 3
#define O_WRONLY 1
#define O_RDWR 2
#define O_CREAT 0100
#define AT_FDCWD -100
#define MAX_RW_COUNT (0x7ffff000L)
#define PATH_MAX 256

/* ---- file operations ---- */
static noinline ssize_t simple_read_from_buffer(char *to, size_t count, loff_t *ppos, const char *from, size_t avail)
{
	loff_t pos = *ppos;
	size_t n;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= avail || !count)
		return 0;
	n = min(count, avail - pos);
	if (copy_to_user(to, from + pos, n))
		return -EFAULT;
	*ppos = pos + n;
	return n;
}

static ssize_t ramfs_read(struct file *f, char *buf, size_t count, loff_t *ppos)
{
	struct inode *inode = f->f_inode;

	if (inode->show) {
		char tmp[512];
		size_t len = inode->show(tmp, sizeof(tmp));
		return simple_read_from_buffer(buf, count, ppos, tmp, len);
	}
	return simple_read_from_buffer(buf, count, ppos, inode->data, inode->size);
}
static const struct file_operations ramfs_file_operations = { .read = ramfs_read };

static ssize_t read_null(struct file *f, char *buf, size_t count, loff_t *ppos) { return 0; }
static ssize_t write_null(struct file *f, const char *buf, size_t count, loff_t *ppos) { return count; }
static const struct file_operations null_fops = { .read = read_null, .write = write_null };

static ssize_t read_zero(struct file *f, char *buf, size_t count, loff_t *ppos)
{
	static const char zeros[256];
	size_t done = 0;

	while (done < count) {
		size_t n = min(count - done, sizeof(zeros));
		if (copy_to_user(buf + done, zeros, n))
			return done ? (ssize_t)done : -EFAULT;
		done += n;
	}
	return done;
}
static const struct file_operations zero_fops = { .read = read_zero, .write = write_null };

/* stdout/stderr of host-started programs: bytes go to the host */
static ssize_t hostpipe_write(struct file *f, const char *buf, size_t count, loff_t *ppos)
{
	char tmp[256];
	size_t done = 0;

	while (done < count) {
		size_t n = min(count - done, sizeof(tmp));
		if (copy_from_user(tmp, buf + done, n))
			return done ? (ssize_t)done : -EFAULT;
		host_write(f->private_data, tmp, n);
		done += n;
	}
	return done;
}
static const struct file_operations hostpipe_fops = { .write = hostpipe_write };

/* ---- /proc ---- */
static int proc_uptime_show(char *buf, size_t len)
{
	u64 ns = ktime_get();
	return scnprintf(buf, len, "%lu.%02lu 0.00\n", ns / 1000000000UL, (ns / 10000000UL) % 100);
}

static int proc_stat_show(char *buf, size_t len)
{
	u64 ctxt = 0, irqs = 0;
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		ctxt += cpu_data[cpu].stat_ctxt;
		irqs += cpu_data[cpu].stat_irqs;
	}
	return scnprintf(buf, len, "intr %lu\nctxt %lu\nbtime 0\n", irqs, ctxt);
}

static int proc_version_show(char *buf, size_t len)
{
	struct new_utsname *uts = &init_uts_ns.name;

	return scnprintf(buf, len, linux_proc_banner, uts->sysname, uts->release, uts->version);
}

static int proc_loadavg_show(char *buf, size_t len)
{
	struct task_struct *t;
	int running = 0, total = 0, last = 0;

	list_for_each_entry(t, &task_list, tasks) {
		total++;
		running += t->__state == TASK_RUNNING;
		last = max(last, t->pid);
	}
	return scnprintf(buf, len, "0.00 0.00 0.00 %d/%d %d\n", running, total, last);
}

static const char passwd[] =
	"root:x:0:0:root:/root:/bin/bash\n"
	"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
	"bin:x:2:2:bin:/bin:/usr/sbin/nologin\n"
	"sys:x:3:3:sys:/dev:/usr/sbin/nologin\n"
	"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	"sshd:x:100:65534::/run/sshd:/usr/sbin/nologin\n"
	"redis:x:101:102::/var/lib/redis:/usr/sbin/nologin\n";
static const char group[] = "root:x:0:\ndaemon:x:1:\nbin:x:2:\nsys:x:3:\nredis:x:102:\nnogroup:x:65534:\n";
static const char hostname[] = "tracefs-sim\n";
static const char os_release[] = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n";
static const char sshd_config[] = "Port 22\nPermitRootLogin prohibit-password\nUsePAM yes\nSubsystem sftp /usr/lib/openssh/sftp-server\n";
static const char redis_conf[] = "bind 127.0.0.1\nport 6379\nhz 10\nsave 3600 1\n";
static const char node_app[] = "const http = require('http');\nhttp.createServer((q, r) => r.end('ok')).listen(3000);\n";

#define RAMFILE(p, d) { .path = p, .i_mode = S_IFREG | 0644, .i_fop = &ramfs_file_operations, .data = d, .size = sizeof(d) - 1 }
#define PROCFILE(p, fn) { .path = p, .i_mode = S_IFREG | 0444, .i_fop = &ramfs_file_operations, .show = fn }
static struct inode inodes[] = {
	RAMFILE("/etc/passwd", passwd),
	RAMFILE("/etc/group", group),
	RAMFILE("/etc/hostname", hostname),
	RAMFILE("/etc/os-release", os_release),
	RAMFILE("/etc/ssh/sshd_config", sshd_config),
	RAMFILE("/etc/redis/redis.conf", redis_conf),
	RAMFILE("/srv/app/server.js", node_app),
	PROCFILE("/proc/version", proc_version_show),
	PROCFILE("/proc/uptime", proc_uptime_show),
	PROCFILE("/proc/stat", proc_stat_show),
	PROCFILE("/proc/loadavg", proc_loadavg_show),
	{ .path = "/dev/null", .i_mode = S_IFCHR | 0666, .i_fop = &null_fops },
	{ .path = "/dev/zero", .i_mode = S_IFCHR | 0666, .i_fop = &zero_fops },
	{ .path = "/dev/kmsg", .i_mode = S_IFCHR | 0644, .i_fop = &kmsg_fops },
};

/* ---- struct file lifetime ---- */
static struct kmem_cache *filp_cachep;

void files_init(void)
{
	filp_cachep = kmem_cache_create("filp", sizeof(struct file), 0,
					SLAB_HWCACHE_ALIGN | SLAB_PANIC | SLAB_ACCOUNT, NULL);
}

static noinline struct file *alloc_file(struct inode *inode, const struct file_operations *fops, unsigned int flags)
{
	struct file *f = kmem_cache_zalloc(filp_cachep, GFP_KERNEL);

	if (!f)
		return NULL;
	f->f_inode = inode;
	f->f_op = fops;
	f->f_flags = flags;
	f->f_mode = ((flags & O_ACCMODE) != O_WRONLY ? FMODE_READ : 0) |
		    ((flags & O_ACCMODE) != 0 ? FMODE_WRITE : 0);
	f->f_count = 1;
	return f;
}

struct file *get_file(struct file *f)
{
	__atomic_add_fetch(&f->f_count, 1, __ATOMIC_RELAXED);
	return f;
}

void fput(struct file *f)
{
	if (__atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL) == 0) {
		if (f->f_op->release)
			f->f_op->release(f);
		kmem_cache_free(filp_cachep, f);
	}
}

struct file *hostpipe_open(u64 host_id)
{
	struct file *f = alloc_file(NULL, &hostpipe_fops, O_WRONLY);

	if (f)
		f->private_data = host_id;
	return f;
}

struct file *fget(unsigned int fd)
{
	if (fd >= NR_OPEN_DEFAULT)
		return NULL;
	return current->files[fd];
}

int get_unused_fd_flags(unsigned int flags)
{
	int fd;

	for (fd = 0; fd < NR_OPEN_DEFAULT; fd++)
		if (!current->files[fd])
			return fd;
	return -EMFILE;
}

void fd_install(unsigned int fd, struct file *f)
{
	current->files[fd] = f;
}

/* fs/file.c: install `file` at `fd` (a reference of its own), closing what was there */
int replace_fd(unsigned int fd, struct file *file, unsigned int flags)
{
	struct file *old;

	if (fd >= NR_OPEN_DEFAULT)
		return -EBADF;
	old = current->files[fd];
	current->files[fd] = get_file(file);
	if (old)
		fput(old);
	return fd;
}

int close_fd(unsigned int fd)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	current->files[fd] = NULL;
	fput(f);
	return 0;
}

/* ---- read / write ---- */
int rw_verify_area(int read_write, struct file *file, const loff_t *ppos, size_t count)
{
	if ((ssize_t)count < 0)
		return -EINVAL;
	if (ppos && *ppos < 0)
		return -EINVAL;
	return 0;
}

ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)
{
	ssize_t ret;

	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	if (!file->f_op->read)
		return -EINVAL;
	if (!access_ok(buf, count))
		return -EFAULT;
	ret = rw_verify_area(0, file, pos, count);
	if (ret)
		return ret;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	return file->f_op->read(file, buf, count, pos);
}

ssize_t vfs_write(struct file *file, const char *buf, size_t count, loff_t *pos)
{
	ssize_t ret;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!file->f_op->write)
		return -EINVAL;
	if (!access_ok(buf, count))
		return -EFAULT;
	ret = rw_verify_area(1, file, pos, count);
	if (ret)
		return ret;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	return file->f_op->write(file, buf, count, pos);
}

/* noinline: a frame of its own, as in Linux (function tracer: vfs_read <-ksys_read) */
noinline ssize_t ksys_read(unsigned int fd, char *buf, size_t count)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	return vfs_read(f, buf, count, &f->f_pos);
}

noinline ssize_t ksys_write(unsigned int fd, const char *buf, size_t count)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	return vfs_write(f, buf, count, &f->f_pos);
}

SYSCALL_DEFINE3(read, unsigned int, fd, char *, buf, size_t, count)
{
	return ksys_read(fd, buf, count);
}

SYSCALL_DEFINE3(write, unsigned int, fd, const char *, buf, size_t, count)
{
	return ksys_write(fd, buf, count);
}

SYSCALL_DEFINE1(close, unsigned int, fd)
{
	return close_fd(fd);
}

/* ---- open ---- */
struct filename { char name[PATH_MAX]; };

struct filename *getname(const char *uname)
{
	struct filename *fn = kmalloc(sizeof(*fn), GFP_KERNEL);
	long len;

	if (!fn)
		return (void *)-ENOMEM;
	len = strncpy_from_user(fn->name, uname, PATH_MAX);
	if (len < 0 || len == PATH_MAX || len == 0) {
		kfree(fn);
		return (void *)(len < 0 ? (long)-EFAULT : len == 0 ? (long)-ENOENT : (long)-ENAMETOOLONG);
	}
	return fn;
}

static noinline void putname(struct filename *fn)
{
	kfree(fn);
}

static noinline struct inode *path_lookupat(const char *path)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(inodes); i++)
		if (!strcmp(inodes[i].path, path))
			return &inodes[i];
	return NULL;
}

struct file *do_filp_open(int dfd, struct filename *pathname, int flags)
{
	struct inode *inode = path_lookupat(pathname->name);
	struct file *f;

	if (!inode)
		return (void *)(long)-ENOENT;
	if ((inode->i_mode & S_IFREG) && (flags & O_ACCMODE) != 0 && !(inode->i_fop->write))
		return (void *)(long)-EROFS;
	f = alloc_file(inode, inode->i_fop, flags);
	return f ? f : (void *)(long)-ENOMEM;
}

struct file *filp_open_path(const char *path, int flags)
{
	struct filename fn;

	strscpy_pad(fn.name, path, sizeof(fn.name));
	return do_filp_open(AT_FDCWD, &fn, flags);
}


long do_sys_openat2(int dfd, const char *filename, int flags, unsigned short mode)
{
	struct filename *tmp = getname(filename);
	struct file *f;
	int fd;

	if (IS_ERR(tmp))
		return (long)tmp;
	fd = get_unused_fd_flags(flags);
	if (fd >= 0) {
		f = do_filp_open(dfd, tmp, flags);
		if (IS_ERR(f))
			fd = (int)(long)f;
		else
			fd_install(fd, f);
	}
	putname(tmp);
	return fd;
}

/* noinline: both open syscalls call it, as in Linux 6.1 (the docs' kprobe target) */
noinline long do_sys_open(int dfd, const char *filename, int flags, unsigned short mode)
{
	return do_sys_openat2(dfd, filename, flags, mode);
}

SYSCALL_DEFINE3(open, const char *, filename, int, flags, umode_t, mode)
{
	return do_sys_open(AT_FDCWD, filename, flags, mode);
}

SYSCALL_DEFINE4(openat, int, dfd, const char *, filename, int, flags, umode_t, mode)
{
	return do_sys_open(dfd, filename, flags, mode);
}
