/*
 * Sockets as files (Linux's net/socket.c): sockfs inodes ("socket:[ino]"), the socket
 * system calls and their 6.1 handler chains (__sys_socket → sock_create → __sock_create →
 * the family's create; __sys_bind, __sys_listen, __sys_connect → __sys_connect_file,
 * __sys_accept4 → __sys_accept4_file → do_accept, __sys_sendto → __sock_sendmsg (the security
 * hook) → sock_sendmsg_nosec (sock_sendmsg: the kernel's own callers'), __sys_recvfrom → sock_recvmsg → sock_recvmsg_nosec, __sys_shutdown →
 * __sys_shutdown_sock, __sys_socketpair, __sys_getsockname/__sys_getpeername,
 * __sys_setsockopt/__sys_getsockopt), and read/write on a socket (sock_read_iter,
 * sock_write_iter).  A session's (host) processes keep the host's network: their socket
 * calls run on the host; here a session task makes no socket (ENOSYS, as before sockets were
 * modelled), so its other socket calls find none.
 */
#include "../include/net.h"
#include "../include/cred.h"
#include "../include/poll.h"
#include "../include/slab.h"
#include "../include/signal.h"
#include "../include/syscalls.h"
#include "../include/security.h"

#define SOCKFS_MAGIC 0x534F434B
static struct vfsmount *sock_mnt;
static const struct net_proto_family *net_families[NPROTO];
static const struct file_operations socket_file_ops;
static struct kmem_cache *sock_inode_cachep;

int sock_register(const struct net_proto_family *ops)
{
	if (ops->family < 0 || ops->family >= NPROTO)
		return -ENOBUFS;
	net_families[ops->family] = ops;
	return 0;
}

noinline struct socket *sock_alloc(void)
{
	struct inode *inode = new_inode(sock_mnt->mnt_sb);
	struct socket *sock;

	if (!inode)
		return NULL;
	sock = kmem_cache_zalloc(sock_inode_cachep, GFP_KERNEL);
	if (!sock) {
		iput(inode);
		return NULL;
	}
	init_waitqueue_head(&sock->wq.wait);
	inode->i_ino = get_next_ino();
	inode->i_mode = S_IFSOCK | 0777;
	inode->i_uid = current_cred()->fsuid;
	inode->i_gid = current_cred()->fsgid;
	inode->i_private = sock;
	sock->inode = inode;
	sock->state = SS_UNCONNECTED;
	return sock;
}

static noinline void __sock_release(struct socket *sock)
{
	struct inode *inode = sock->inode;

	if (sock->ops) {
		sock->ops->release(sock);
		sock->sk = NULL;
		sock->ops = NULL;
	}
	if (sock->wq.fasync_list)	/* (__fput took the file off its list first) */
		printk(KERN_ERR "__sock_release: fasync list not empty!\n");
	inode->i_private = NULL;
	if (!sock->file)	/* a file's inode goes with its dentry */
		iput(inode);
	kmem_cache_free(sock_inode_cachep, sock);
}

/* a socket without a file (a failed create's or accept's) */
noinline void sock_release(struct socket *sock)
{
	__sock_release(sock);
}

static int sock_close(struct inode *inode, struct file *filp)
{
	__sock_release(filp->private_data);
	return 0;
}

noinline struct socket *sock_from_file(struct file *file)
{
	if (file->f_op == &socket_file_ops)
		return file->private_data;
	return NULL;
}

static noinline struct file *sock_alloc_file(struct socket *sock, int flags)
{
	struct file *file;

	file = alloc_file_pseudo(sock->inode, sock_mnt, "", O_RDWR | (flags & O_NONBLOCK), &socket_file_ops);
	if (IS_ERR(file)) {
		sock_release(sock);
		return file;
	}
	sock->file = file;
	file->private_data = sock;
	stream_open(sock->inode, file);
	return file;
}

static notrace noinline int sock_map_fd(struct socket *sock, int flags)
{
	struct file *newfile;
	int fd = get_unused_fd_flags(flags);

	if (fd < 0) {
		sock_release(sock);
		return fd;
	}
	newfile = sock_alloc_file(sock, flags);
	if (IS_ERR(newfile)) {
		put_unused_fd(fd);
		return PTR_ERR(newfile);
	}
	fd_install(fd, newfile);
	return fd;
}

static noinline struct socket *sockfd_lookup_light(int fd, int *err, struct file **filp)
{
	struct file *file = fget(fd);
	struct socket *sock;

	*err = -EBADF;
	if (!file)
		return NULL;
	sock = sock_from_file(file);
	if (!sock) {
		*err = -ENOTSOCK;
		fput(file);
		return NULL;
	}
	*filp = file;
	return sock;
}

static noinline int __sock_create(int family, int type, int protocol, struct socket **res, int kern)
{
	const struct net_proto_family *pf;
	struct socket *sock;
	int err;

	if (family < 0 || family >= NPROTO)
		return -EAFNOSUPPORT;
	if (type < 0 || type >= 11)	/* SOCK_MAX */
		return -EINVAL;
	err = security_socket_create(family, type, protocol, kern);
	if (err)
		return err;
	pf = net_families[family];
	if (!pf)
		return -EAFNOSUPPORT;
	sock = sock_alloc();
	if (!sock)
		return -ENFILE;
	sock->type = type;
	err = pf->create(sock, protocol, kern);
	if (err < 0) {
		sock->ops = NULL;
		sock_release(sock);
		return err;
	}
	err = security_socket_post_create(sock, family, type, protocol, kern);
	if (err) {
		sock_release(sock);
		return err;
	}
	*res = sock;
	return 0;
}

noinline int sock_create(int family, int type, int protocol, struct socket **res)
{
	return __sock_create(family, type, protocol, res, 0);
}

static noinline int __sys_socket(int family, int type, int protocol)
{
	struct socket *sock;
	int flags = type & ~SOCK_TYPE_MASK, retval;

	if (current->session)	/* a session's process keeps the host's network */
		return -ENOSYS;
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	type &= SOCK_TYPE_MASK;
	retval = sock_create(family, type, protocol, &sock);
	if (retval < 0)
		return retval;
	return sock_map_fd(sock, flags & (O_CLOEXEC | O_NONBLOCK));
}

SYSCALL_DEFINE3(socket, int, family, int, type, int, protocol)
{
	return __sys_socket(family, type, protocol);
}

static noinline int __sys_socketpair(int family, int type, int protocol, int *usockvec)
{
	struct socket *sock1, *sock2;
	struct file *newfile1, *newfile2;
	int fd1, fd2, err, flags = type & ~SOCK_TYPE_MASK;

	if (current->session)	/* a session's process keeps the host's network */
		return -ENOSYS;
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	type &= SOCK_TYPE_MASK;
	fd1 = get_unused_fd_flags(flags);
	if (fd1 < 0)
		return fd1;
	fd2 = get_unused_fd_flags(flags);
	if (fd2 < 0) {
		put_unused_fd(fd1);
		return fd2;
	}
	err = copy_to_user(&usockvec[0], &fd1, sizeof(fd1)) || copy_to_user(&usockvec[1], &fd2, sizeof(fd2))
		? -EFAULT : 0;
	if (err)
		goto out;
	err = sock_create(family, type, protocol, &sock1);
	if (err < 0)
		goto out;
	err = sock_create(family, type, protocol, &sock2);
	if (err < 0) {
		sock_release(sock1);
		goto out;
	}
	err = security_socket_socketpair(sock1, sock2);
	if (!err)
		err = sock1->ops->socketpair(sock1, sock2);
	if (err < 0) {
		sock_release(sock2);
		sock_release(sock1);
		goto out;
	}
	newfile1 = sock_alloc_file(sock1, flags);
	if (IS_ERR(newfile1)) {
		err = PTR_ERR(newfile1);
		sock_release(sock2);
		goto out;
	}
	newfile2 = sock_alloc_file(sock2, flags);
	if (IS_ERR(newfile2)) {
		err = PTR_ERR(newfile2);
		fput(newfile1);
		goto out;
	}
	fd_install(fd1, newfile1);
	fd_install(fd2, newfile2);
	return 0;
out:
	put_unused_fd(fd2);
	put_unused_fd(fd1);
	return err;
}

SYSCALL_DEFINE4(socketpair, int, family, int, type, int, protocol, int *, usockvec)
{
	return __sys_socketpair(family, type, protocol, usockvec);
}

static noinline int move_addr_to_kernel(void *uaddr, int ulen, struct sockaddr_storage *kaddr)
{
	if (ulen < 0 || ulen > (int)sizeof(struct sockaddr_storage))
		return -EINVAL;
	if (ulen == 0)
		return 0;
	if (copy_from_user(kaddr, uaddr, ulen))
		return -EFAULT;
	return 0;
}

static noinline int move_addr_to_user(struct sockaddr_storage *kaddr, int klen, void *uaddr, int *ulen)
{
	int len;

	if (copy_from_user(&len, ulen, sizeof(len)))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if (len > klen)
		len = klen;
	if (len && copy_to_user(uaddr, kaddr, len))
		return -EFAULT;
	if (copy_to_user(ulen, &klen, sizeof(klen)))
		return -EFAULT;
	return 0;
}

static noinline int __sys_bind(int fd, struct sockaddr *umyaddr, int addrlen)
{
	struct sockaddr_storage address;
	struct file *file;
	struct socket *sock;
	int err;

	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	err = move_addr_to_kernel(umyaddr, addrlen, &address);
	if (!err)
		err = security_socket_bind(sock, (struct sockaddr *)&address, addrlen);
	if (!err)
		err = sock->ops->bind(sock, (struct sockaddr *)&address, addrlen);
	fput(file);
	return err;
}

SYSCALL_DEFINE3(bind, int, fd, struct sockaddr *, umyaddr, int, addrlen)
{
	return __sys_bind(fd, umyaddr, addrlen);
}

static noinline int __sys_listen(int fd, int backlog)
{
	struct file *file;
	struct socket *sock;
	int err;

	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	if ((unsigned int)backlog > SOMAXCONN)
		backlog = SOMAXCONN;
	err = security_socket_listen(sock, backlog);
	if (!err)
		err = sock->ops->listen(sock, backlog);
	fput(file);
	return err;
}

SYSCALL_DEFINE2(listen, int, fd, int, backlog)
{
	return __sys_listen(fd, backlog);
}

static noinline int __sys_connect_file(struct file *file, struct sockaddr_storage *address, int addrlen, int file_flags)
{
	struct socket *sock = sock_from_file(file);
	int err;

	if (!sock)
		return -ENOTSOCK;
	err = security_socket_connect(sock, (struct sockaddr *)address, addrlen);
	if (err)
		return err;
	return sock->ops->connect(sock, (struct sockaddr *)address, addrlen, sock->file->f_flags | file_flags);
}

static noinline int __sys_connect(int fd, struct sockaddr *uservaddr, int addrlen)
{
	struct sockaddr_storage address;
	struct file *file = fget(fd);
	int ret;

	if (!file)
		return -EBADF;
	ret = move_addr_to_kernel(uservaddr, addrlen, &address);
	if (!ret)
		ret = __sys_connect_file(file, &address, addrlen, 0);
	fput(file);
	return ret;
}

SYSCALL_DEFINE3(connect, int, fd, struct sockaddr *, uservaddr, int, addrlen)
{
	return __sys_connect(fd, uservaddr, addrlen);
}

static noinline struct file *do_accept(struct file *file, unsigned int file_flags, struct sockaddr *upeer_sockaddr,
				       int *upeer_addrlen, int flags)
{
	struct socket *sock = sock_from_file(file), *newsock;
	struct sockaddr_storage address;
	struct file *newfile;
	int err, len;

	if (!sock)
		return ERR_PTR(-ENOTSOCK);
	newsock = sock_alloc();
	if (!newsock)
		return ERR_PTR(-ENFILE);
	newsock->type = sock->type;
	newsock->ops = sock->ops;
	newfile = sock_alloc_file(newsock, flags);
	if (IS_ERR(newfile))
		return newfile;
	err = security_socket_accept(sock, newsock);
	if (err)
		goto out_fd;
	err = sock->ops->accept(sock, newsock, sock->file->f_flags | file_flags, false);
	if (err < 0)
		goto out_fd;
	if (upeer_sockaddr) {
		len = newsock->ops->getname(newsock, (struct sockaddr *)&address, 2);
		if (len < 0) {
			err = -ECONNABORTED;
			goto out_fd;
		}
		err = move_addr_to_user(&address, len, upeer_sockaddr, upeer_addrlen);
		if (err < 0)
			goto out_fd;
	}
	return newfile;
out_fd:
	fput(newfile);
	return ERR_PTR(err);
}

static notrace noinline int __sys_accept4_file(struct file *file, struct sockaddr *upeer_sockaddr, int *upeer_addrlen,
				       int flags)
{
	struct file *newfile;
	int newfd;

	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	newfd = get_unused_fd_flags(flags);
	if (newfd < 0)
		return newfd;
	newfile = do_accept(file, 0, upeer_sockaddr, upeer_addrlen, flags);
	if (IS_ERR(newfile)) {
		put_unused_fd(newfd);
		return PTR_ERR(newfile);
	}
	fd_install(newfd, newfile);
	return newfd;
}

static noinline int __sys_accept4(int fd, struct sockaddr *upeer_sockaddr, int *upeer_addrlen, int flags)
{
	struct file *f = fget(fd);
	int ret;

	if (!f)
		return -EBADF;
	ret = __sys_accept4_file(f, upeer_sockaddr, upeer_addrlen, flags);
	fput(f);
	return ret;
}

SYSCALL_DEFINE4(accept4, int, fd, struct sockaddr *, upeer_sockaddr, int *, upeer_addrlen, int, flags)
{
	return __sys_accept4(fd, upeer_sockaddr, upeer_addrlen, flags);
}

SYSCALL_DEFINE3(accept, int, fd, struct sockaddr *, upeer_sockaddr, int *, upeer_addrlen)
{
	return __sys_accept4(fd, upeer_sockaddr, upeer_addrlen, 0);
}

static notrace noinline int __sys_getname(int fd, struct sockaddr *usockaddr, int *usockaddr_len, int peer)
{
	struct sockaddr_storage address;
	struct file *file;
	struct socket *sock;
	int err;

	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	err = peer ? security_socket_getpeername(sock) : security_socket_getsockname(sock);
	if (!err)
		err = sock->ops->getname(sock, (struct sockaddr *)&address, peer);
	if (err >= 0)
		err = move_addr_to_user(&address, err, usockaddr, usockaddr_len);
	fput(file);
	return err;
}

SYSCALL_DEFINE3(getsockname, int, fd, struct sockaddr *, usockaddr, int *, usockaddr_len)
{
	return __sys_getname(fd, usockaddr, usockaddr_len, 0);
}

SYSCALL_DEFINE3(getpeername, int, fd, struct sockaddr *, usockaddr, int *, usockaddr_len)
{
	return __sys_getname(fd, usockaddr, usockaddr_len, 1);
}

static notrace noinline int sock_sendmsg_nosec(struct socket *sock, struct msghdr *msg)
{
	return sock->ops->sendmsg(sock, msg, iov_iter_count(&msg->msg_iter));
}

static noinline int __sock_sendmsg(struct socket *sock, struct msghdr *msg)
{
	int err = security_socket_sendmsg(sock, msg, iov_iter_count(&msg->msg_iter));

	return err ?: sock_sendmsg_nosec(sock, msg);
}

/* the kernel's own sends: the address is copied, so the protocol may change its copy */
noinline int sock_sendmsg(struct socket *sock, struct msghdr *msg)
{
	struct sockaddr_storage *save_addr = msg->msg_name, address;
	int save_len = msg->msg_namelen, ret;

	if (msg->msg_name) {
		memcpy(&address, msg->msg_name, msg->msg_namelen);
		msg->msg_name = &address;
	}
	ret = __sock_sendmsg(sock, msg);
	msg->msg_name = save_addr;
	msg->msg_namelen = save_len;
	return ret;
}

static notrace noinline int sock_recvmsg_nosec(struct socket *sock, struct msghdr *msg, int flags)
{
	return sock->ops->recvmsg(sock, msg, iov_iter_count(&msg->msg_iter), flags);
}

noinline int sock_recvmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	int err = security_socket_recvmsg(sock, msg, iov_iter_count(&msg->msg_iter), flags);

	return err ?: sock_recvmsg_nosec(sock, msg, flags);
}

static notrace void import_ubuf(struct iov_iter *i, int direction, void *buf, size_t len)
{
	*i = (struct iov_iter){ .iter_type = ITER_UBUF, .data_source = direction, .ubuf = buf,
				.nr_segs = 1, .count = len };
}

static noinline int __sys_sendto(int fd, void *buff, size_t len, unsigned int flags, struct sockaddr *addr,
				 int addr_len)
{
	struct sockaddr_storage address;
	struct msghdr msg = { 0 };
	struct file *file;
	struct socket *sock;
	int err;

	if (len > 0x7ffff000)
		len = 0x7ffff000;
	if (!access_ok(buff, len))
		return -EFAULT;
	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	import_ubuf(&msg.msg_iter, WRITE, buff, len);
	if (addr) {
		err = move_addr_to_kernel(addr, addr_len, &address);
		if (err < 0)
			goto out;
		msg.msg_name = &address;
		msg.msg_namelen = addr_len;
	}
	if (sock->file->f_flags & O_NONBLOCK)
		flags |= MSG_DONTWAIT;
	msg.msg_flags = flags;
	err = __sock_sendmsg(sock, &msg);
out:
	fput(file);
	return err;
}

SYSCALL_DEFINE6(sendto, int, fd, void *, buff, size_t, len, unsigned int, flags, struct sockaddr *, addr,
		int, addr_len)
{
	return __sys_sendto(fd, buff, len, flags, addr, addr_len);
}

static noinline int __sys_recvfrom(int fd, void *ubuf, size_t size, unsigned int flags, struct sockaddr *addr,
				   int *addr_len)
{
	struct sockaddr_storage address;
	struct msghdr msg = { 0 };
	struct file *file;
	struct socket *sock;
	int err, err2;

	if (size > 0x7ffff000)
		size = 0x7ffff000;
	if (!access_ok(ubuf, size))
		return -EFAULT;
	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	import_ubuf(&msg.msg_iter, READ, ubuf, size);
	memset(&address, 0, sizeof(address));
	msg.msg_name = addr ? &address : NULL;
	if (sock->file->f_flags & O_NONBLOCK)
		flags |= MSG_DONTWAIT;
	err = sock_recvmsg(sock, &msg, flags);
	if (err >= 0 && addr != NULL) {
		err2 = move_addr_to_user(&address, msg.msg_namelen, addr, addr_len);
		if (err2 < 0)
			err = err2;
	}
	fput(file);
	return err;
}

SYSCALL_DEFINE6(recvfrom, int, fd, void *, ubuf, size_t, size, unsigned int, flags, struct sockaddr *, addr,
		int *, addr_len)
{
	return __sys_recvfrom(fd, ubuf, size, flags, addr, addr_len);
}

/* sendmsg / recvmsg: the user's msghdr (include/linux/socket.h) */
struct user_msghdr {
	void *msg_name;
	int msg_namelen;
	struct iovec *msg_iov;
	size_t msg_iovlen;
	void *msg_control;
	size_t msg_controllen;
	unsigned int msg_flags;
};

/* the name into kernel memory, the iovec as the message's iterator; ancillary data
 * (SCM_RIGHTS, IP_PKTINFO...) is not modelled: EOPNOTSUPP */
static noinline int copy_msghdr_from_user(struct msghdr *kmsg, struct user_msghdr *umsg,
					  struct sockaddr_storage *addr, void **uaddr, struct iovec **iov, int type)
{
	struct user_msghdr msg;
	ssize_t err;

	if (copy_from_user(&msg, umsg, sizeof(msg)))
		return -EFAULT;
	if (msg.msg_controllen)
		return -EOPNOTSUPP;
	kmsg->msg_name = NULL;
	kmsg->msg_namelen = 0;
	*uaddr = msg.msg_name;
	if (msg.msg_name && msg.msg_namelen) {
		if (type == WRITE) {
			err = move_addr_to_kernel(msg.msg_name, msg.msg_namelen, addr);
			if (err < 0)
				return err;
			kmsg->msg_namelen = msg.msg_namelen;
		}
		kmsg->msg_name = addr;
	}
	if (msg.msg_iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	kmsg->msg_flags = msg.msg_flags;
	err = __import_iovec(type, msg.msg_iov, msg.msg_iovlen, UIO_FASTIOV, iov, &kmsg->msg_iter);
	return err < 0 ? err : 0;
}

/* The message, its header in the kernel now, sent by the socket's protocol. */
static noinline int ____sys_sendmsg(struct socket *sock, struct msghdr *msg_sys, unsigned int flags)
{
	if (sock->file->f_flags & O_NONBLOCK)
		flags |= MSG_DONTWAIT;
	msg_sys->msg_flags = flags;
	return __sock_sendmsg(sock, msg_sys);
}

static noinline long ___sys_sendmsg(struct socket *sock, struct user_msghdr *msg, struct msghdr *msg_sys,
				    unsigned int flags)
{
	struct sockaddr_storage address;
	struct iovec iovstack[UIO_FASTIOV], *iov = iovstack;
	void *uaddr;
	int err;

	err = copy_msghdr_from_user(msg_sys, msg, &address, &uaddr, &iov, WRITE);
	if (err < 0)
		return err;
	err = ____sys_sendmsg(sock, msg_sys, flags);
	kfree(iov);
	return err;
}

static noinline long __sys_sendmsg(int fd, struct user_msghdr *msg, unsigned int flags)
{
	struct file *file;
	struct socket *sock;
	int err;

	struct msghdr msg_sys;

	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	err = ___sys_sendmsg(sock, msg, &msg_sys, flags);
	fput(file);
	return err;
}

SYSCALL_DEFINE3(sendmsg, int, fd, struct user_msghdr *, msg, unsigned int, flags)
{
	return __sys_sendmsg(fd, msg, flags);
}

/* The message received by the socket's protocol into the kernel's header, then the sender's
 * address, the flags and (no control messages) the control length back to the user's. */
static noinline int ____sys_recvmsg(struct socket *sock, struct msghdr *msg_sys, struct user_msghdr *msg,
				   void *uaddr, unsigned int flags, struct sockaddr_storage *addr)
{
	size_t zero = 0;
	unsigned int out_flags = 0;
	int err, len;

	memset(addr, 0, sizeof(*addr));
	msg_sys->msg_namelen = 0;
	if (sock->file->f_flags & O_NONBLOCK)
		flags |= MSG_DONTWAIT;
	len = sock_recvmsg(sock, msg_sys, flags);
	if (len < 0)
		return len;
	if (uaddr) {
		err = move_addr_to_user(addr, msg_sys->msg_namelen, uaddr, &msg->msg_namelen);
		if (err < 0)
			return err;
	}
	if (copy_to_user(&msg->msg_flags, &out_flags, sizeof(out_flags)) ||
	    copy_to_user(&msg->msg_controllen, &zero, sizeof(zero)))
		return -EFAULT;
	return len;
}

static noinline long ___sys_recvmsg(struct socket *sock, struct user_msghdr *msg, struct msghdr *msg_sys,
				    unsigned int flags)
{
	struct sockaddr_storage addr;
	struct iovec iovstack[UIO_FASTIOV], *iov = iovstack;
	void *uaddr;
	int err;

	err = copy_msghdr_from_user(msg_sys, msg, &addr, &uaddr, &iov, READ);
	if (err < 0)
		return err;
	if (!msg_sys->msg_name)
		uaddr = NULL;
	err = ____sys_recvmsg(sock, msg_sys, msg, uaddr, flags, &addr);
	kfree(iov);
	return err;
}

static noinline long __sys_recvmsg(int fd, struct user_msghdr *msg, unsigned int flags)
{
	struct file *file;
	struct socket *sock;
	int err;

	struct msghdr msg_sys;

	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	err = ___sys_recvmsg(sock, msg, &msg_sys, flags);
	fput(file);
	return err;
}

SYSCALL_DEFINE3(recvmsg, int, fd, struct user_msghdr *, msg, unsigned int, flags)
{
	return __sys_recvmsg(fd, msg, flags);
}

/* ---- sendmmsg, recvmmsg: a vector of messages, each one sendmsg's or recvmsg's ---- */
struct mmsghdr {
	struct user_msghdr msg_hdr;
	unsigned int msg_len;		/* what the message's call returned */
};
#define MSG_OOB		1
#define MSG_WAITFORONE	0x10000		/* MSG_DONTWAIT once one has come */
#define MSG_CMSG_COMPAT	0x80000000	/* (a 32-bit caller's, never a 64-bit one's) */

/* A message's result into its msg_len (put_user()), and on to the next */
static __always_inline int mmsg_put_len(struct mmsghdr **entry, int len)
{
	int err = copy_to_user(&(*entry)->msg_len, &len, sizeof(len)) ? -EFAULT : 0;

	++*entry;
	return err;
}

/* The messages sent: how many, or the first one's error.  A stream socket that took part of a
 * message ends the run there. */
static noinline int __sys_sendmmsg(int fd, struct mmsghdr *mmsg, unsigned int vlen, unsigned int flags)
{
	struct mmsghdr *entry = mmsg;
	struct msghdr msg_sys;
	struct socket *sock;
	struct file *file;
	int err, datagrams = 0;

	if (flags & MSG_CMSG_COMPAT)
		return -EINVAL;
	if (vlen > UIO_MAXIOV)
		vlen = UIO_MAXIOV;
	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	err = 0;
	while (datagrams < vlen) {
		err = ___sys_sendmsg(sock, &entry->msg_hdr, &msg_sys, flags);
		if (err < 0)
			break;
		err = mmsg_put_len(&entry, err);
		if (err)
			break;
		++datagrams;
		if (iov_iter_count(&msg_sys.msg_iter))	/* msg_data_left() */
			break;
	}
	fput(file);
	return datagrams ? datagrams : err;	/* an error only when none was sent */
}

SYSCALL_DEFINE4(sendmmsg, int, fd, struct mmsghdr *, mmsg, unsigned int, vlen, unsigned int, flags)
{
	return __sys_sendmmsg(fd, mmsg, vlen, flags);
}

/* The messages received: how many, or the first one's error.  The timeout is looked at after
 * each message (the first is waited for as recvmsg waits); its time left goes back in it.  An
 * error after some were received is the socket's (SO_ERROR) for the next call. */
static noinline int do_recvmmsg(int fd, struct mmsghdr *mmsg, unsigned int vlen, unsigned int flags,
				struct timespec64 *timeout)
{
	struct mmsghdr *entry = mmsg;
	struct msghdr msg_sys;
	struct socket *sock;
	struct file *file;
	ktime_t end_time;
	int err, datagrams = 0;

	if (timeout && poll_select_set_timeout(&end_time, timeout->tv_sec, timeout->tv_nsec))
		return -EINVAL;
	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	err = sock_error(sock->sk);	/* (no MSG_ERRQUEUE here) */
	if (err) {
		datagrams = err;
		goto out_put;
	}
	while (datagrams < vlen) {
		err = ___sys_recvmsg(sock, &entry->msg_hdr, &msg_sys, flags & ~MSG_WAITFORONE);
		if (err < 0)
			break;
		err = mmsg_put_len(&entry, err);
		if (err)
			break;
		++datagrams;
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
		if (timeout) {
			struct timespec64 now;
			ktime_t left;

			ktime_get_ts64(&now);
			left = end_time - timespec64_to_ns(&now);
			if (left < 0)
				left = 0;
			timeout->tv_sec = left / NSEC_PER_SEC;
			timeout->tv_nsec = left % NSEC_PER_SEC;
			if (!left)	/* the time is up: fewer than vlen */
				break;
		}
		if (msg_sys.msg_flags & MSG_OOB)	/* out of band data: at once */
			break;
	}
	if (err == 0)
		goto out_put;
	if (datagrams == 0) {
		datagrams = err;
		goto out_put;
	}
	if (err != -EAGAIN)	/* kept for the next call, or getsockopt(SO_ERROR) */
		sock->sk->sk_err = -err;
out_put:
	fput(file);
	return datagrams;
}

static noinline int __sys_recvmmsg(int fd, struct mmsghdr *mmsg, unsigned int vlen, unsigned int flags,
				   struct __kernel_timespec *timeout)
{
	struct timespec64 timeout_sys;
	int datagrams;

	if (timeout && get_timespec64(&timeout_sys, timeout))
		return -EFAULT;
	if (!timeout)
		return do_recvmmsg(fd, mmsg, vlen, flags, NULL);
	datagrams = do_recvmmsg(fd, mmsg, vlen, flags, &timeout_sys);
	if (datagrams > 0 && put_timespec64(&timeout_sys, timeout))
		datagrams = -EFAULT;
	return datagrams;
}

SYSCALL_DEFINE5(recvmmsg, int, fd, struct mmsghdr *, mmsg, unsigned int, vlen, unsigned int, flags,
		struct __kernel_timespec *, timeout)
{
	if (flags & MSG_CMSG_COMPAT)
		return -EINVAL;
	return __sys_recvmmsg(fd, mmsg, vlen, flags, timeout);
}

static noinline int __sys_setsockopt(int fd, int level, int optname, char *optval, int optlen)
{
	struct file *file;
	struct socket *sock;
	int err;

	if (optlen < 0)
		return -EINVAL;
	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	err = security_socket_setsockopt(sock, level, optname);
	if (err)
		goto out_put;
	if (level == SOL_SOCKET)
		err = sock_setsockopt(sock, level, optname, optval, optlen);
	else
		err = sock->ops->setsockopt ? sock->ops->setsockopt(sock, level, optname, optval, optlen)
					    : -EOPNOTSUPP;
out_put:
	fput(file);
	return err;
}

SYSCALL_DEFINE5(setsockopt, int, fd, int, level, int, optname, char *, optval, int, optlen)
{
	return __sys_setsockopt(fd, level, optname, optval, optlen);
}

static noinline int __sys_getsockopt(int fd, int level, int optname, char *optval, int *optlen)
{
	struct file *file;
	struct socket *sock;
	int err;

	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	err = security_socket_getsockopt(sock, level, optname);
	if (err)
		goto out_put;
	if (level == SOL_SOCKET)
		err = sock_getsockopt(sock, level, optname, optval, optlen);
	else
		err = sock->ops->getsockopt ? sock->ops->getsockopt(sock, level, optname, optval, optlen)
					    : -EOPNOTSUPP;
out_put:
	fput(file);
	return err;
}

SYSCALL_DEFINE5(getsockopt, int, fd, int, level, int, optname, char *, optval, int *, optlen)
{
	return __sys_getsockopt(fd, level, optname, optval, optlen);
}

static noinline int __sys_shutdown_sock(struct socket *sock, int how)
{
	int err = security_socket_shutdown(sock, how);

	return err ?: sock->ops->shutdown(sock, how);
}

static noinline int __sys_shutdown(int fd, int how)
{
	struct file *file;
	struct socket *sock;
	int err;

	sock = sockfd_lookup_light(fd, &err, &file);
	if (!sock)
		return err;
	err = __sys_shutdown_sock(sock, how);
	fput(file);
	return err;
}

SYSCALL_DEFINE2(shutdown, int, fd, int, how)
{
	return __sys_shutdown(fd, how);
}

/* read(2)/write(2) on a socket */
static noinline ssize_t sock_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct socket *sock = file->private_data;
	struct msghdr msg = { .msg_iter = *to };
	ssize_t res;

	if (file->f_flags & O_NONBLOCK || (iocb->ki_flags & IOCB_NOWAIT))
		msg.msg_flags = MSG_DONTWAIT;
	if (!iov_iter_count(to))
		return 0;
	res = sock_recvmsg(sock, &msg, msg.msg_flags);
	*to = msg.msg_iter;
	return res;
}

/* len bytes of kernel memory (vec) sent as a message of the socket */
noinline int kernel_sendmsg(struct socket *sock, struct msghdr *msg, struct kvec *vec, size_t num, size_t size)
{
	iov_iter_kvec(&msg->msg_iter, WRITE, vec, num, size);
	return sock_sendmsg(sock, msg);
}

/* a page sent by a socket without a sendpage of its own: as a message of its bytes */
noinline ssize_t sock_no_sendpage(struct socket *sock, struct page *page, int offset, size_t size, int flags)
{
	struct msghdr msg = { .msg_flags = flags };
	struct kvec iov = { (char *)page_address(page) + offset, size };

	return kernel_sendmsg(sock, &msg, &iov, 1, size);
}

noinline int kernel_sendpage(struct socket *sock, struct page *page, int offset, size_t size, int flags)
{
	if (sock->ops->sendpage)
		return sock->ops->sendpage(sock, page, offset, size, flags);
	return sock_no_sendpage(sock, page, offset, size, flags);
}

/* sendfile's pages to a socket (6.1: splice's pipe_to_sendpage) */
static noinline ssize_t sock_sendpage(struct file *file, struct page *page, int offset, size_t size, loff_t *ppos,
				      int more)
{
	struct socket *sock = file->private_data;
	int flags = (file->f_flags & O_NONBLOCK) ? MSG_DONTWAIT : 0;

	flags |= more;	/* a combination of MSG_MORE and MSG_SENDPAGE_NOTLAST */
	return kernel_sendpage(sock, page, offset, size, flags);
}

static noinline ssize_t sock_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct socket *sock = file->private_data;
	struct msghdr msg = { .msg_iter = *from };
	ssize_t res;

	if (file->f_flags & O_NONBLOCK || (iocb->ki_flags & IOCB_NOWAIT))
		msg.msg_flags = MSG_DONTWAIT;
	res = __sock_sendmsg(sock, &msg);
	*from = msg.msg_iter;
	return res;
}

/* A socket's readiness is its protocol's (tcp_poll, datagram_poll, unix_poll). */
static noinline __poll_t sock_poll(struct file *file, poll_table *wait)
{
	struct socket *sock = file->private_data;

	if (!sock->ops->poll)
		return 0;
	return sock->ops->poll(file, sock, wait);
}

/* An ioctl the socket's family answers (inet_ioctl: the protocol's, tcp_ioctl); what none does
 * is a device's (an ifreq's: no network devices' ioctls here, ENOTTY) */
static noinline long sock_do_ioctl(struct net *net, struct socket *sock, unsigned int cmd, unsigned long arg)
{
	int err = sock->ops->ioctl ? sock->ops->ioctl(sock, cmd, arg) : -ENOIOCTLCMD;

	if (err != -ENOIOCTLCMD)
		return err;
	return -ENOTTY;	/* (!is_socket_ioctl_cmd(), or dev_ioctl()'s unknown request) */
}

/* A socket's ioctl (its file's unlocked_ioctl): the owner its SIGIO goes to (FIOSETOWN,
 * SIOCSPGRP; FIOGETOWN, SIOCGPGRP), else the family's */
static noinline long sock_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct socket *sock = file->private_data;
	int pid, err;

	switch (cmd) {
	case FIOSETOWN:
	case SIOCSPGRP:
		err = -EFAULT;
		if (copy_from_user(&pid, (void *)arg, sizeof(pid)))
			break;
		err = f_setown(sock->file, pid, 1);
		break;
	case FIOGETOWN:
	case SIOCGPGRP:
		pid = f_getown(sock->file);
		err = copy_to_user((void *)arg, &pid, sizeof(pid)) ? -EFAULT : 0;
		break;
	default:
		err = sock_do_ioctl(NULL, sock, cmd, arg);
		break;
	}
	return err;
}

/* O_ASYNC on a socket: its file on the socket's fasync list (SOCK_FASYNC while any is) */
static noinline int sock_fasync(int fd, struct file *filp, int on)
{
	struct socket *sock = filp->private_data;
	struct sock *sk = sock->sk;
	struct socket_wq *wq = &sock->wq;

	if (sk == NULL)
		return -EINVAL;
	lock_sock(sk);
	fasync_helper(fd, filp, on, &wq->fasync_list);
	if (!wq->fasync_list)
		sock_reset_flag(sk, SOCK_FASYNC);
	else
		sock_set_flag(sk, SOCK_FASYNC);
	release_sock(sk);
	return 0;
}

/* The owners on the socket's fasync list signalled: SIGIO with band, unless a reader waits
 * for the data itself (SOCK_WAKE_WAITD), or (SOCK_WAKE_SPACE) no writer found the buffer full;
 * SIGURG for urgent data */
noinline int sock_wake_async(struct socket_wq *wq, int how, int band)
{
	if (!wq || !wq->fasync_list)
		return -1;
	switch (how) {
	case SOCK_WAKE_WAITD:
		if (wq->flags & (1UL << SOCKWQ_ASYNC_WAITDATA))
			break;
		goto call_kill;
	case SOCK_WAKE_SPACE:
		if (!(__atomic_fetch_and(&wq->flags, ~(1UL << SOCKWQ_ASYNC_NOSPACE), __ATOMIC_RELAXED) &
		      (1UL << SOCKWQ_ASYNC_NOSPACE)))
			break;
		/* fallthrough */
	case SOCK_WAKE_IO:
call_kill:
		kill_fasync(&wq->fasync_list, SIGIO, band);
		break;
	case SOCK_WAKE_URG:
		kill_fasync(&wq->fasync_list, SIGURG, band);
	}
	return 0;
}

static const struct file_operations socket_file_ops = {
	.llseek = no_llseek,
	.read_iter = sock_read_iter,
	.write_iter = sock_write_iter,
	.poll = sock_poll,
	.unlocked_ioctl = sock_ioctl,
	.release = sock_close,
	.fasync = sock_fasync,
	.sendpage = sock_sendpage,
};

static char *sockfs_dname(struct dentry *dentry, char *buffer, int buflen)
{
	return dynamic_dname(buffer, buflen, "socket:[%lu]", dentry->d_inode->i_ino);
}

static const struct dentry_operations sockfs_dentry_operations = {
	.d_delete = always_delete_dentry,
	.d_dname = sockfs_dname,
};

static notrace int sockfs_fill_super(struct super_block *sb, void *data)
{
	return init_pseudo(sb, &sockfs_dentry_operations);
}

static struct file_system_type sock_fs_type = {
	.name = "sockfs",
	.fill_super = sockfs_fill_super,
	.magic = SOCKFS_MAGIC,
};

void skb_init(void);

void __init sock_init(void)
{
	sock_inode_cachep = kmem_cache_create("sock_inode_cache", sizeof(struct socket), 64,
					      SLAB_PANIC | SLAB_ACCOUNT, NULL);
	skb_init();
	register_filesystem(&sock_fs_type);
	sock_mnt = kern_mount(&sock_fs_type);
	if (IS_ERR(sock_mnt))
		panic("sockfs: kernel mount failed");
	net_dev_init();
	loopback_net_init();
	inet_init();
	inet6_init();
	af_unix_init();
}
