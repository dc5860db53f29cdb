/*
 * nettest FAMILY: drives sockets over the loopback and prints each call's result, one a line
 * ("connect(refused) = -111"), with nothing that depends on the machine (no port numbers,
 * addresses only of the loopback).  Families: tcp (a server and a forked client: handshake,
 * data both ways, more than a window's worth, EOF, a reset, the errors of misuse), slow (a
 * reader with a small receive buffer, late: what did not fit comes again), busy (connections
 * while another process holds the listener's lock), unix (socketpair, stream and datagram),
 * udp (datagrams, their source, a connected socket), tcp6 and udp6 (the same over IPv6's ::1,
 * and IPv4 on a dual-stack AF_INET6 socket: IPv4-mapped addresses, IPV6_V6ONLY), life and life6
 * (a connection with known byte counts both ways), sendfile (a file's bytes to a socket).  The same binary runs on a Linux host
 * too: its output there is the specification of its output in the emulated kernel
 * (tests/machine/test_net.py).
 */
#include "libc.h"

#define AF_UNIX 1
#define SOCK_DGRAM 2
#define SO_TYPE 3
#define SO_ERROR 4
#define SO_ACCEPTCONN 30
#define SO_RCVBUF 8
#define MSG_PEEK 2
#define MSG_DONTWAIT 0x40
#define MSG_NOSIGNAL 0x4000
#define SHUT_WR 1
#define NR_socket 41
#define NR_connect 42
#define NR_accept 43
#define NR_sendto 44
#define NR_recvfrom 45
#define NR_shutdown 48
#define NR_bind 49
#define NR_listen 50
#define NR_getsockname 51
#define NR_getpeername 52
#define NR_socketpair 53
#define NR_setsockopt 54
#define NR_getsockopt 55
#define NR_sendmsg 46
#define NR_recvmsg 47
#define NR_accept4 288
#define NR_pipe2 293
#define NR_sendfile 40
#define NR_unlink 87
#define O_RDWR 2


struct iovec { void *iov_base; size_t iov_len; };

static long sc(long nr, long a, long b, long c, long d, long e, long f) { return syscall6(nr, a, b, c, d, e, f); }
#define L(x) ((long)(x))
static void show(const char *what, long ret) { printf("%s = %ld\n", what, ret); }
static unsigned int loopback(unsigned char last) { return 127 | (unsigned int)last << 24; }

static long sock_in(int type) { return sc(NR_socket, AF_INET, type, 0, 0, 0, 0); }
static long bind_in(int fd, unsigned int addr, unsigned short port)
{
	struct sockaddr_in sin = { AF_INET, htons(port), addr, { 0 } };

	return sc(NR_bind, fd, L(&sin), sizeof(sin), 0, 0, 0);
}
static long connect_in(int fd, unsigned int addr, unsigned short port)
{
	struct sockaddr_in sin = { AF_INET, htons(port), addr, { 0 } };

	return sc(NR_connect, fd, L(&sin), sizeof(sin), 0, 0, 0);
}
static unsigned short port_of(int fd)
{
	struct sockaddr_in sin;
	int len = sizeof(sin);

	sc(NR_getsockname, fd, L(&sin), L(&len), 0, 0, 0);
	return htons(sin.sin_port);
}
static long readall(int fd, char *buf, long want)
{
	long got = 0, n;

	while (got < want && (n = read(fd, buf + got, want - got)) > 0)
		got += n;
	return n < 0 && !got ? n : got;
}

/* the client's lines go through a pipe, printed by the parent after its own */
static char clog[2048];
static int clog_len;
static void cshow(const char *what, long ret)
{
	char line[128];
	int n = 0;
	const char *p = what;
	char tmp[24];
	int k = 0;
	unsigned long u = ret < 0 ? -ret : ret;

	while (*p)
		line[n++] = *p++;
	line[n++] = ' '; line[n++] = '='; line[n++] = ' ';
	if (ret < 0)
		line[n++] = '-';
	do tmp[k++] = '0' + u % 10; while (u /= 10);
	while (k)
		line[n++] = tmp[--k];
	line[n++] = '\n';
	memcpy(clog + clog_len, line, n);
	clog_len += n;
}

static int memcmp_(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

static char big[200000];

/* the server's side of a connection: hello, world, more than a window's worth, EOF */
static void serve(int a)
{
	static char in[200000];
	char buf[64];
	long got, same = 1, i;

	show("read(hello)", readall(a, buf, 5));
	show("hello is hello", memcmp_(buf, "hello", 5) == 0);
	show("write(world)", write(a, "world", 5));
	got = readall(a, in, sizeof(in));
	show("read(200000)", got);
	for (i = 0; i < got; i++)
		if (in[i] != (char)(i * 7))
			same = 0;
	show("data intact", same);
	show("read(EOF)", read(a, buf, sizeof(buf)));
	show("close", close(a));
}

/* the client's side of it (its lines through cshow), closed at the end */
static void talk(int c)
{
	char buf[64];

	cshow("client: write(hello)", write(c, "hello", 5));
	cshow("client: read(reply)", readall(c, buf, 5));
	cshow("client: reply is world", memcmp_(buf, "world", 5) == 0);
	{
		/* TCP_INFO (struct tcp_info, 232 bytes in 6.1) once hello is acked and world read */
		unsigned char ti[512];
		int len = sizeof(ti);
		long r = sc(NR_getsockopt, c, 6, 11, L(ti), L(&len), 0);
		unsigned int *u32 = (unsigned int *)ti;
		unsigned long *u64 = (unsigned long *)ti;

		cshow("client: getsockopt(TCP_INFO)", r);
		cshow("client: tcp_info length >= 232 (6.1's; later kernels' longer)", len >= 232);
		cshow("client: tcpi_state", ti[0]);
		cshow("client: tcpi_ca_state", ti[1]);
		cshow("client: tcpi_rto >= 200 ms", u32[2] >= 200000);
		cshow("client: tcpi_unacked", u32[6]);
		cshow("client: tcpi_total_retrans", u32[25]);
		cshow("client: tcpi_bytes_acked", u64[15]);
		cshow("client: tcpi_bytes_received", u64[16]);
		cshow("client: tcpi_data_segs_in", u32[38]);
		cshow("client: tcpi_data_segs_out", u32[39]);
		cshow("client: tcpi_bytes_sent", u64[25]);
		len = 8;
		cshow("client: getsockopt(TCP_INFO, 8 bytes)", sc(NR_getsockopt, c, 6, 11, L(ti), L(&len), 0));
		cshow("client: its length", len);
	}
	cshow("client: write(200000)", write(c, big, sizeof(big)));
	cshow("client: shutdown(SHUT_WR)", sc(NR_shutdown, c, SHUT_WR, 0, 0, 0, 0));
	cshow("client: read(after peer close)", read(c, buf, sizeof(buf)));
	close(c);
}

static int tcp(void)
{
	int srv = sock_in(SOCK_STREAM), one = 1, pfd[2], status, a, len, type;
	struct sockaddr_in peer;
	unsigned short port;
	char buf[64];
	long r, pid, i;

	show("socket(AF_INET, SOCK_STREAM)", srv >= 0);
	show("setsockopt(SO_REUSEADDR)", sc(NR_setsockopt, srv, SOL_SOCKET, SO_REUSEADDR, L(&one), 4, 0));
	show("bind(10.0.0.1)", bind_in(srv, 0x0100000a, 0));
	show("bind(127.0.0.1:0)", bind_in(srv, loopback(1), 0));
	show("bind(again)", bind_in(srv, loopback(1), 0));
	port = port_of(srv);
	show("port is ephemeral", port >= 32768);
	show("accept(not listening)", sc(NR_accept4, srv, 0, 0, 0, 0, 0));
	show("listen(8)", sc(NR_listen, srv, 8, 0, 0, 0, 0));
	len = 4;
	sc(NR_getsockopt, srv, SOL_SOCKET, SO_ACCEPTCONN, L(&one), L(&len), 0);
	show("SO_ACCEPTCONN", one);
	{
		int other = sock_in(SOCK_STREAM);

		show("bind(same port, other socket)", bind_in(other, loopback(1), port));
		show("connect(no listener)", connect_in(other, loopback(1), 1));
		close(other);
		other = sock_in(SOCK_STREAM);
		show("getpeername(unconnected)", sc(NR_getpeername, other, L(&peer), L(&len), 0, 0, 0));
		show("send(unconnected)", sc(NR_sendto, other, L("x"), 1, MSG_NOSIGNAL, 0, 0));
		show("recv(unconnected)", sc(NR_recvfrom, other, L(buf), 1, 0, 0, 0));
		show("shutdown(unconnected)", sc(NR_shutdown, other, SHUT_WR, 0, 0, 0, 0));
		close(other);
	}
	sc(NR_pipe2, L(pfd), 0, 0, 0, 0, 0);
	for (i = 0; i < (long)sizeof(big); i++)
		big[i] = (char)(i * 7);
	pid = fork();
	if (pid == 0) {
		int c = sock_in(SOCK_STREAM);

		close(pfd[0]);
		cshow("client: connect", connect_in(c, loopback(1), port));
		cshow("client: connect(again)", connect_in(c, loopback(1), port));
		talk(c);
		/* a second connection: the server closes it with our data unread: a reset */
		c = sock_in(SOCK_STREAM);
		cshow("client: connect(2)", connect_in(c, loopback(1), port));
		cshow("client: write(unread)", write(c, "unread", 6));
		cshow("client: read(reset)", read(c, buf, sizeof(buf)));
		cshow("client: write(after reset)", sc(NR_sendto, c, L("x"), 1, MSG_NOSIGNAL, 0, 0));
		close(c);
		write(pfd[1], clog, clog_len);
		exit(0);
	}
	close(pfd[1]);
	len = sizeof(peer);
	a = sc(NR_accept4, srv, L(&peer), L(&len), 0, 0, 0);
	show("accept", a >= 0);
	show("peer address is 127.0.0.1", peer.sin_family == AF_INET && peer.sin_addr == loopback(1) && len == 16);
	len = 4;
	sc(NR_getsockopt, a, SOL_SOCKET, SO_TYPE, L(&type), L(&len), 0);
	show("SO_TYPE", type);
	{
		int on = 1, v = -1;

		show("setsockopt(TCP_NODELAY)", sc(NR_setsockopt, a, 6, 1, L(&on), 4, 0));
		len = 4;
		show("getsockopt(TCP_NODELAY)", sc(NR_getsockopt, a, 6, 1, L(&v), L(&len), 0));
		show("TCP_NODELAY", v);
		show("getsockopt(SOL_TCP, 99)", sc(NR_getsockopt, a, 6, 99, L(&v), L(&len), 0));
	}
	serve(a);
	a = sc(NR_accept4, srv, 0, 0, 0, 0, 0);
	show("accept(2)", a >= 0);
	show("recv(MSG_PEEK)", sc(NR_recvfrom, a, L(buf), 6, MSG_PEEK, 0, 0));
	show("close(unread)", close(a));
	wait4(pid, &status, 0, NULL);
	show("client exit status", status);
	close(srv);
	while ((r = read(pfd[0], buf, sizeof(buf))) > 0)
		write(1, buf, r);
	return 0;
}

/*
 * A reader slower than its sender: the server's receive buffer is small (SO_RCVBUF 4096) and it
 * sleeps before it reads; the client sends more than fits.  Nothing is lost to the programs.
 */
static int slow(void)
{
	int srv = sock_in(SOCK_STREAM), rcvbuf = 4096, status, a, len = 4;
	static char in[65536];
	unsigned short port;
	long pid, got, i, same = 1;

	show("setsockopt(SO_RCVBUF, 4096)", sc(NR_setsockopt, srv, SOL_SOCKET, SO_RCVBUF, L(&rcvbuf), 4, 0));
	sc(NR_getsockopt, srv, SOL_SOCKET, SO_RCVBUF, L(&rcvbuf), L(&len), 0);
	show("SO_RCVBUF", rcvbuf);
	show("bind", bind_in(srv, loopback(1), 0));
	show("listen", sc(NR_listen, srv, 1, 0, 0, 0, 0));
	port = port_of(srv);
	for (i = 0; i < (long)sizeof(in); i++)
		big[i] = (char)(i * 13);
	pid = fork();
	if (pid == 0) {
		int c = sock_in(SOCK_STREAM);

		if (connect_in(c, loopback(1), port) || write(c, big, sizeof(in)) != sizeof(in))
			exit(1);
		close(c);
		exit(0);
	}
	a = sc(NR_accept4, srv, 0, 0, 0, 0, 0);
	show("accept", a >= 0);
	msleep(1500);
	got = readall(a, in, sizeof(in));
	show("read(65536)", got);
	for (i = 0; i < got; i++)
		if (in[i] != (char)(i * 13))
			same = 0;
	show("data intact", same);
	show("read(EOF)", read(a, in, 1));
	wait4(pid, &status, 0, NULL);
	show("client exit status", status);
	return 0;
}

/*
 * Connections made while another process keeps the listener's lock (a setsockopt loop): each
 * client connects and sends a byte at once, so the ACK ending the handshake and that byte
 * come one behind the other while the listener may be owned.  Each accepted connection must
 * hold its byte (the listener's segments are not deferred to its owner: the byte would then
 * find no request, and a reset).
 */
#define BUSY_ROUNDS 300
#define O_NONBLOCK_ 04000
static int busy(void)
{
	int srv = sock_in(SOCK_STREAM), p[2], one = 1, status, i, held = 0;
	long busy_pid, client;
	unsigned short port;
	char c;

	show("bind", bind_in(srv, loopback(1), 0));
	show("listen", sc(NR_listen, srv, 512, 0, 0, 0, 0));
	port = port_of(srv);
	show("pipe2", sc(NR_pipe2, L(p), O_NONBLOCK_, 0, 0, 0, 0));
	busy_pid = fork();
	if (busy_pid == 0) {	/* until the pipe's write end closes */
		close(p[1]);
		while (read(p[0], &c, 1) < 0)
			sc(NR_setsockopt, srv, SOL_SOCKET, SO_REUSEADDR, L(&one), 4, 0);
		exit(0);
	}
	close(p[0]);
	client = fork();
	if (client == 0) {
		int failed = 0;

		for (i = 0; i < BUSY_ROUNDS; i++) {
			int s = sock_in(SOCK_STREAM);

			if (connect_in(s, loopback(1), port) || write(s, "x", 1) != 1)
				failed++;
			close(s);
		}
		exit(failed);
	}
	wait4(client, &status, 0, NULL);
	show("client's failed connections", status >> 8);
	for (i = 0; i < BUSY_ROUNDS; i++) {
		int a = sc(NR_accept4, srv, 0, 0, 0, 0, 0);

		if (a >= 0 && sc(NR_recvfrom, a, L(&c), 1, MSG_DONTWAIT, 0, 0) == 1 && c == 'x')
			held++;
		close(a);
	}
	show("accepted connections holding their byte", held);
	close(p[1]);
	wait4(busy_pid, &status, 0, NULL);
	show("setsockopt loop's exit status", status);
	return 0;
}

/* socketpair(AF_UNIX): a stream pair (data, more than its buffer through a child, EOF, EPIPE)
 * and a datagram pair (message boundaries, truncation, nonblocking) */
static int unix_(void)
{
	int sv[2], dv[2], status;
	char buf[64];
	long pid, i, got, same = 1;
	static char in[300000];

	show("socketpair(AF_UNIX, SOCK_STREAM)", sc(NR_socketpair, AF_UNIX, SOCK_STREAM, 0, L(sv), 0, 0));
	show("write(hello)", write(sv[0], "hello", 5));
	show("read", read(sv[1], buf, sizeof(buf)));
	show("hello is hello", memcmp_(buf, "hello", 5) == 0);
	show("recv(nonblocking, empty)", sc(NR_recvfrom, sv[1], L(buf), 1, MSG_DONTWAIT, 0, 0));
	for (i = 0; i < (long)sizeof(in); i++)
		big[i % sizeof(big)] = (char)(i * 3);
	pid = fork();
	if (pid == 0) {
		long n = 0;

		close(sv[1]);
		for (i = 0; i < (long)sizeof(in); i += n) {
			long chunk = sizeof(in) - i < 100000 ? sizeof(in) - i : 100000;

			for (n = 0; n < chunk; n++)
				big[n] = (char)((i + n) * 3);
			n = write(sv[0], big, chunk);
			if (n <= 0)
				exit(1);
		}
		sc(NR_shutdown, sv[0], SHUT_WR, 0, 0, 0, 0);
		n = read(sv[0], buf, sizeof(buf));	/* the parent's close: EOF */
		exit(n == 0 ? 0 : 2);
	}
	close(sv[0]);
	got = readall(sv[1], in, sizeof(in));
	show("read(300000)", got);
	for (i = 0; i < got; i++)
		if (in[i] != (char)(i * 3))
			same = 0;
	show("data intact", same);
	show("read(EOF)", read(sv[1], buf, sizeof(buf)));
	close(sv[1]);
	wait4(pid, &status, 0, NULL);
	show("child exit status", status);
	show("socketpair(AF_UNIX, SOCK_STREAM)", sc(NR_socketpair, AF_UNIX, SOCK_STREAM, 0, L(sv), 0, 0));
	close(sv[1]);
	show("send(peer closed)", sc(NR_sendto, sv[0], L("x"), 1, MSG_NOSIGNAL, 0, 0));
	show("read(peer closed)", read(sv[0], buf, sizeof(buf)));
	close(sv[0]);
	show("socketpair(AF_UNIX, SOCK_DGRAM)", sc(NR_socketpair, AF_UNIX, SOCK_DGRAM, 0, L(dv), 0, 0));
	show("send(a)", write(dv[0], "a", 1));
	show("send(bcd)", write(dv[0], "bcd", 3));
	show("send(hello)", write(dv[0], "hello", 5));
	show("recv", read(dv[1], buf, sizeof(buf)));
	show("recv", read(dv[1], buf, sizeof(buf)));
	show("recv(2 of hello)", read(dv[1], buf, 2));
	show("he is he", memcmp_(buf, "he", 2) == 0);
	show("recv(nonblocking, empty)", sc(NR_recvfrom, dv[1], L(buf), sizeof(buf), MSG_DONTWAIT, 0, 0));
	show("send(the other way)", write(dv[1], "back", 4));
	show("recv", read(dv[0], buf, sizeof(buf)));
	close(dv[0]);
	close(dv[1]);
	return 0;
}

/* UDP on the loopback: datagrams with their source, truncation, a connected socket */
static int udp(void)
{
	int s = sock_in(SOCK_DGRAM), c = sock_in(SOCK_DGRAM), d = sock_in(SOCK_DGRAM), len;
	struct sockaddr_in to = { AF_INET, 0, 0, { 0 } }, from;
	char buf[64];

	show("socket(AF_INET, SOCK_DGRAM)", s >= 0 && c >= 0);
	show("bind(10.0.0.1)", bind_in(s, 0x0100000a, 0));
	show("bind(127.0.0.1:0)", bind_in(s, loopback(1), 0));
	to.sin_port = htons(port_of(s));
	to.sin_addr = loopback(1);
	show("send(no address)", sc(NR_sendto, c, L("x"), 1, 0, 0, 0));
	show("sendto(ping)", sc(NR_sendto, c, L("ping"), 4, 0, L(&to), sizeof(to)));
	len = sizeof(from);
	show("recvfrom", sc(NR_recvfrom, s, L(buf), sizeof(buf), 0, L(&from), L(&len)));
	show("from 127.0.0.1, the sender's port", from.sin_family == AF_INET && from.sin_addr == loopback(1) &&
	     htons(from.sin_port) == port_of(c) && len == 16);
	show("sendto(hello world)", sc(NR_sendto, c, L("hello world"), 11, 0, L(&to), sizeof(to)));
	show("recv(5 of it)", sc(NR_recvfrom, s, L(buf), 5, 0, 0, 0));
	show("recv(nonblocking, empty)", sc(NR_recvfrom, s, L(buf), sizeof(buf), MSG_DONTWAIT, 0, 0));
	show("connect", sc(NR_connect, c, L(&to), sizeof(to), 0, 0, 0));
	show("send(abc)", write(c, "abc", 3));
	show("recv", read(s, buf, sizeof(buf)));
	show("getpeername", sc(NR_getpeername, c, L(&from), L(&len), 0, 0, 0));
	show("peer is the server", htons(from.sin_port) == port_of(s));
	{
		struct iovec iov[2] = { { "gather", 6 }, { "ed", 2 } }, riov[2];
		struct msghdr_u { void *name; int namelen; struct iovec *iov; size_t iovlen; void *control;
				  size_t controllen; unsigned int flags; } m = { &to, sizeof(to), iov, 2, 0, 0, 0 };
		char a[3], b[16];

		show("sendmsg(2 iovecs, to the server)", sc(NR_sendmsg, d, L(&m), 0, 0, 0, 0));
		riov[0].iov_base = a; riov[0].iov_len = 3;
		riov[1].iov_base = b; riov[1].iov_len = sizeof(b);
		memset(&from, 0, sizeof(from));
		m = (struct msghdr_u){ &from, sizeof(from), riov, 2, 0, 0, 0 };
		show("recvmsg(2 iovecs)", sc(NR_recvmsg, s, L(&m), 0, 0, 0, 0));
		show("scattered", memcmp_(a, "gat", 3) == 0 && memcmp_(b, "hered", 5) == 0);
		show("msg_namelen", m.namelen);
		show("from d's port", htons(from.sin_port) == port_of(d));
	}
	to.sin_port = htons(1);
	show("sendto(a port nobody has)", sc(NR_sendto, d, L("x"), 1, 0, L(&to), sizeof(to)));
	close(s);
	close(c);
	close(d);
	return 0;
}

/* ---- IPv6 ---- */
#define AF_INET6 10
#define IPPROTO_IPV6 41
#define IPV6_V6ONLY 26
struct sockaddr_in6 { unsigned short sin6_family, sin6_port; unsigned int sin6_flowinfo; unsigned char sin6_addr[16];
		      unsigned int sin6_scope_id; };
static long sock_in6(int type) { return sc(NR_socket, AF_INET6, type, 0, 0, 0, 0); }
/* ::LAST, or ::ffff:127.0.0.LAST when mapped */
static struct sockaddr_in6 in6(unsigned char last, int mapped, unsigned short port)
{
	struct sockaddr_in6 a;

	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_port = htons(port);
	if (mapped) {
		a.sin6_addr[10] = a.sin6_addr[11] = 0xff;
		a.sin6_addr[12] = 127;
	}
	a.sin6_addr[15] = last;
	return a;
}
static long bind_in6(int fd, unsigned char last, int mapped, unsigned short port)
{
	struct sockaddr_in6 a = in6(last, mapped, port);

	return sc(NR_bind, fd, L(&a), sizeof(a), 0, 0, 0);
}
static long connect_in6(int fd, unsigned char last, int mapped, unsigned short port)
{
	struct sockaddr_in6 a = in6(last, mapped, port);

	return sc(NR_connect, fd, L(&a), sizeof(a), 0, 0, 0);
}
static unsigned short port_of6(int fd)
{
	struct sockaddr_in6 a;
	int len = sizeof(a);

	sc(NR_getsockname, fd, L(&a), L(&len), 0, 0, 0);
	return htons(a.sin6_port);
}
static int is_addr6(const struct sockaddr_in6 *a, unsigned char last, int mapped)
{
	struct sockaddr_in6 b = in6(last, mapped, 0);

	return a->sin6_family == AF_INET6 && memcmp_(a->sin6_addr, b.sin6_addr, 16) == 0;
}
static long v6only(int fd, int set)
{
	int v = set, len = 4;

	if (set >= 0)
		return sc(NR_setsockopt, fd, IPPROTO_IPV6, IPV6_V6ONLY, L(&v), 4, 0);
	sc(NR_getsockopt, fd, IPPROTO_IPV6, IPV6_V6ONLY, L(&v), L(&len), 0);
	return v;
}

static void show2(const char *what, const char *how, long ret)
{
	char line[128];
	int n = 0;

	while (*what && n < 80)
		line[n++] = *what++;
	while (*how && n < 126)
		line[n++] = *how++;
	line[n] = 0;
	show(line, ret);
}

/* a connection to srv's port by c (connected: connect's result), its peer as accept sees it
 * (::ffff:127.0.0.1 or ::1), a byte each way */
static void exchange(const char *what, int srv, int c, long connected, int mapped)
{
	struct sockaddr_in6 peer;
	int a, len = sizeof(peer);
	char b = 0;

	show2(what, ": connect", connected);
	if (connected)
		return;
	a = sc(NR_accept4, srv, L(&peer), L(&len), 0, 0, 0);
	show2(what, mapped ? ": peer is ::ffff:127.0.0.1" : ": peer is ::1", is_addr6(&peer, 1, mapped) && len == 28);
	write(c, "x", 1);
	read(a, &b, 1);
	write(a, "y", 1);
	read(c, &b, 1);
	show2(what, ": a byte each way", b == 'y');
	close(a);
}

static int tcp6(void)
{
	int srv = sock_in6(SOCK_STREAM), pfd[2], status, a, len;
	struct sockaddr_in6 peer, me;
	unsigned short port;
	char buf[64];
	long r, pid, i;

	show("socket(AF_INET6, SOCK_STREAM)", srv >= 0);
	show("IPV6_V6ONLY", v6only(srv, -1));
	show("bind(::2)", bind_in6(srv, 2, 0, 0));
	{
		struct sockaddr_in6 a = in6(1, 0, 0);

		show("bind(short address)", sc(NR_bind, srv, L(&a), 20, 0, 0, 0));
		a.sin6_family = AF_INET;
		show("bind(AF_INET in a sockaddr_in6)", sc(NR_bind, srv, L(&a), sizeof(a), 0, 0, 0));
	}
	show("bind(::1:0)", bind_in6(srv, 1, 0, 0));
	show("IPV6_V6ONLY (bound to ::1)", v6only(srv, -1));
	show("setsockopt(IPV6_V6ONLY, bound)", v6only(srv, 1));
	port = port_of6(srv);
	show("port is ephemeral", port >= 32768);
	len = sizeof(me);
	sc(NR_getsockname, srv, L(&me), L(&len), 0, 0, 0);
	show("getsockname is ::1", is_addr6(&me, 1, 0) && len == 28);
	show("listen(8)", sc(NR_listen, srv, 8, 0, 0, 0, 0));
	{
		int other = sock_in6(SOCK_STREAM);

		show("bind(same port, other socket)", bind_in6(other, 1, 0, port));
		show("connect(no listener)", connect_in6(other, 1, 0, 1));
		close(other);
		other = sock_in6(SOCK_STREAM);
		show("getpeername(unconnected)", sc(NR_getpeername, other, L(&peer), L(&len), 0, 0, 0));
		close(other);
		other = sock_in(SOCK_STREAM);
		show("IPv4 connect to the ::1 listener's port", connect_in(other, loopback(1), port));
		close(other);
		other = sock_in6(SOCK_STREAM);
		show("bind(::ffff:127.0.0.1)", bind_in6(other, 1, 1, 0));
		show("connect(::1) from an IPv4-mapped address", connect_in6(other, 1, 0, port));
		close(other);
	}
	sc(NR_pipe2, L(pfd), 0, 0, 0, 0, 0);
	for (i = 0; i < (long)sizeof(big); i++)
		big[i] = (char)(i * 7);
	pid = fork();
	if (pid == 0) {
		int c = sock_in6(SOCK_STREAM);
		struct sockaddr_in6 p;
		int plen = sizeof(p);

		close(pfd[0]);
		cshow("client: connect", connect_in6(c, 1, 0, port));
		cshow("client: connect(again)", connect_in6(c, 1, 0, port));
		sc(NR_getpeername, c, L(&p), L(&plen), 0, 0, 0);
		cshow("client: getpeername is [::1]:port", is_addr6(&p, 1, 0) && htons(p.sin6_port) == port);
		talk(c);
		write(pfd[1], clog, clog_len);
		exit(0);
	}
	close(pfd[1]);
	len = sizeof(peer);
	a = sc(NR_accept4, srv, L(&peer), L(&len), 0, 0, 0);
	show("accept", a >= 0);
	show("peer address is ::1", is_addr6(&peer, 1, 0) && len == 28);
	len = sizeof(me);
	sc(NR_getsockname, a, L(&me), L(&len), 0, 0, 0);
	show("accepted's name is [::1]:port", is_addr6(&me, 1, 0) && htons(me.sin6_port) == port);
	serve(a);
	wait4(pid, &status, 0, NULL);
	show("client exit status", status);
	close(srv);
	while ((r = read(pfd[0], buf, sizeof(buf))) > 0)
		write(1, buf, r);

	/* dual stack: a listener on :: takes IPv4, its peers IPv4-mapped */
	srv = sock_in6(SOCK_STREAM);
	show("bind(::)", bind_in6(srv, 0, 0, 0));
	show("IPV6_V6ONLY (bound to ::)", v6only(srv, -1));
	port = port_of6(srv);
	show("listen", sc(NR_listen, srv, 8, 0, 0, 0, 0));
	{
		int c = sock_in(SOCK_STREAM);

		exchange("IPv4 socket to 127.0.0.1", srv, c, connect_in(c, loopback(1), port), 1);
		close(c);
		c = sock_in6(SOCK_STREAM);
		exchange("IPv6 socket to ::ffff:127.0.0.1", srv, c, connect_in6(c, 1, 1, port), 1);
		len = sizeof(me);
		sc(NR_getsockname, c, L(&me), L(&len), 0, 0, 0);
		show("its name is ::ffff:127.0.0.1", is_addr6(&me, 1, 1));
		close(c);
		c = sock_in6(SOCK_STREAM);
		show("setsockopt(IPV6_V6ONLY)", v6only(c, 1));
		show("IPV6_V6ONLY socket to ::ffff:127.0.0.1", connect_in6(c, 1, 1, port));
		close(c);
		c = sock_in6(SOCK_STREAM);
		exchange("IPv6 socket to ::1", srv, c, connect_in6(c, 1, 0, port), 0);
		close(c);
	}
	close(srv);
	srv = sock_in6(SOCK_STREAM);
	show("setsockopt(IPV6_V6ONLY)", v6only(srv, 1));
	show("bind(::, v6 only)", bind_in6(srv, 0, 0, 0));
	port = port_of6(srv);
	sc(NR_listen, srv, 8, 0, 0, 0, 0);
	{
		int c = sock_in(SOCK_STREAM);

		show("IPv4 connect to a v6-only listener", connect_in(c, loopback(1), port));
		close(c);
		c = sock_in(SOCK_STREAM);
		show("IPv4 bind to its port", bind_in(c, loopback(1), port));
		close(c);
	}
	close(srv);
	return 0;
}

static int udp6(void)
{
	int s = sock_in6(SOCK_DGRAM), c = sock_in6(SOCK_DGRAM), len;
	struct sockaddr_in6 to, from;
	char buf[64];

	show("socket(AF_INET6, SOCK_DGRAM)", s >= 0 && c >= 0);
	show("bind(::2)", bind_in6(s, 2, 0, 0));
	show("bind(::1:0)", bind_in6(s, 1, 0, 0));
	to = in6(1, 0, port_of6(s));
	show("send(no address)", sc(NR_sendto, c, L("x"), 1, 0, 0, 0));
	show("sendto(ping)", sc(NR_sendto, c, L("ping"), 4, 0, L(&to), sizeof(to)));
	len = sizeof(from);
	show("recvfrom", sc(NR_recvfrom, s, L(buf), sizeof(buf), 0, L(&from), L(&len)));
	show("from ::1, the sender's port", is_addr6(&from, 1, 0) && htons(from.sin6_port) == port_of6(c) && len == 28);
	show("connect", sc(NR_connect, c, L(&to), sizeof(to), 0, 0, 0));
	show("send(abc)", write(c, "abc", 3));
	show("recv", read(s, buf, sizeof(buf)));
	len = sizeof(from);
	show("getpeername", sc(NR_getpeername, c, L(&from), L(&len), 0, 0, 0));
	show("peer is the server", is_addr6(&from, 1, 0) && htons(from.sin6_port) == port_of6(s));
	to.sin6_port = htons(1);
	show("sendto(a port nobody has)", sc(NR_sendto, s, L("x"), 1, 0, L(&to), sizeof(to)));
	{
		int m = sock_in6(SOCK_DGRAM);

		show("bind(::ffff:127.0.0.1)", bind_in6(m, 1, 1, 0));
		show("sendto(::1) from an IPv4-mapped address", sc(NR_sendto, m, L("x"), 1, 0, L(&to), sizeof(to)));
		show("connect(::1) from an IPv4-mapped address", sc(NR_connect, m, L(&to), sizeof(to), 0, 0, 0));
		close(m);
	}
	close(s);
	close(c);
	/* dual stack */
	s = sock_in6(SOCK_DGRAM);
	show("bind(::)", bind_in6(s, 0, 0, 0));
	{
		struct sockaddr_in sin = { AF_INET, htons(port_of6(s)), loopback(1), { 0 } };
		int d = sock_in(SOCK_DGRAM);

		show("IPv4 sendto 127.0.0.1", sc(NR_sendto, d, L("v4"), 2, 0, L(&sin), sizeof(sin)));
		len = sizeof(from);
		show("recvfrom", sc(NR_recvfrom, s, L(buf), sizeof(buf), 0, L(&from), L(&len)));
		show("from ::ffff:127.0.0.1", is_addr6(&from, 1, 1) && htons(from.sin6_port) == port_of(d));
		close(d);
		c = sock_in6(SOCK_DGRAM);
		to = in6(1, 1, port_of6(s));
		show("IPv6 sendto ::ffff:127.0.0.1", sc(NR_sendto, c, L("mapped"), 6, 0, L(&to), sizeof(to)));
		len = sizeof(from);
		show("recvfrom", sc(NR_recvfrom, s, L(buf), sizeof(buf), 0, L(&from), L(&len)));
		show("from ::ffff:127.0.0.1", is_addr6(&from, 1, 1) && htons(from.sin6_port) == port_of6(c));
		close(c);
	}
	close(s);
	return 0;
}

/*
 * A connection's life with known byte counts, over 127.0.0.1 (life) or ::1 (life6), for the
 * tools that read tcp_sock's counters (BCC's tcplife: TX_KB/RX_KB): the client sends
 * LIFE_UP bytes and shuts its side, the server reads them to EOF, answers with LIFE_DOWN bytes
 * and shuts its side; the client reads them to EOF and then the server closes.
 */
#define LIFE_UP		150000
#define LIFE_DOWN	70000
static int life(int v6)
{
	static char in[LIFE_UP];
	int srv = v6 ? sock_in6(SOCK_STREAM) : sock_in(SOCK_STREAM), pfd[2], status, a;
	unsigned short port;
	long pid, got;

	show("bind", v6 ? bind_in6(srv, 1, 0, 0) : bind_in(srv, loopback(1), 0));
	port = v6 ? port_of6(srv) : port_of(srv);
	show("listen", sc(NR_listen, srv, 8, 0, 0, 0, 0));
	sc(NR_pipe2, L(pfd), 0, 0, 0, 0, 0);
	pid = fork();
	if (pid == 0) {
		int s = v6 ? sock_in6(SOCK_STREAM) : sock_in(SOCK_STREAM);

		close(pfd[0]);
		cshow("client: connect", v6 ? connect_in6(s, 1, 0, port) : connect_in(s, loopback(1), port));
		cshow("client: write", write(s, big, LIFE_UP));
		cshow("client: shutdown(SHUT_WR)", sc(NR_shutdown, s, SHUT_WR, 0, 0, 0, 0));
		cshow("client: read to EOF", readall(s, in, sizeof(in)));
		write(pfd[1], clog, clog_len);
		close(pfd[1]);		/* the server closes once we have it all */
		close(s);
		exit(0);
	}
	close(pfd[1]);
	a = sc(NR_accept4, srv, 0, 0, 0, 0, 0);
	show("accept", a >= 0);
	got = readall(a, in, sizeof(in));
	show("read to EOF", got);
	show("read(EOF)", read(a, in, 1));
	show("write", write(a, big, LIFE_DOWN));
	show("shutdown(SHUT_WR)", sc(NR_shutdown, a, SHUT_WR, 0, 0, 0, 0));
	{
		char log[sizeof(clog)];
		long n, len = 0;

		while ((n = read(pfd[0], log + len, sizeof(log) - len)) > 0)	/* the client's EOF */
			len += n;
		write(1, log, len);
	}
	show("close", close(a));
	wait4(pid, &status, 0, NULL);
	show("client exit status", status);
	close(srv);
	return 0;
}

/*
 * sendfile() of a file to a connected TCP socket (6.1: its pages through tcp_sendpage), read
 * back intact by the peer.
 */
#define SENDFILE_LEN	10000
static int sendfile_(void)
{
	static char in[SENDFILE_LEN + 1];
	int srv = sock_in(SOCK_STREAM), status, a, f, same = 1;
	unsigned short port;
	long pid, got, i;

	for (i = 0; i < SENDFILE_LEN; i++)
		big[i] = (char)(i * 11);
	f = open("/tmp/nettest-sendfile", O_CREAT | O_TRUNC | O_RDWR, 0600);
	show("file written", write(f, big, SENDFILE_LEN));
	show("bind", bind_in(srv, loopback(1), 0));
	port = port_of(srv);
	show("listen", sc(NR_listen, srv, 8, 0, 0, 0, 0));
	pid = fork();
	if (pid == 0) {
		int s = sock_in(SOCK_STREAM);
		long off = 0;

		if (connect_in(s, loopback(1), port) || sc(NR_sendfile, s, f, L(&off), SENDFILE_LEN, 0, 0) != SENDFILE_LEN ||
		    off != SENDFILE_LEN)
			exit(1);
		close(s);
		exit(0);
	}
	a = sc(NR_accept4, srv, 0, 0, 0, 0, 0);
	show("accept", a >= 0);
	got = readall(a, in, sizeof(in));
	show("read to EOF", got);
	for (i = 0; i < got; i++)
		if (in[i] != (char)(i * 11))
			same = 0;
	show("data intact", same);
	wait4(pid, &status, 0, NULL);
	show("client (sendfile) exit status", status);
	close(a);
	close(srv);
	close(f);
	sc(NR_unlink, L("/tmp/nettest-sendfile"), 0, 0, 0, 0, 0);
	return 0;
}

/* the signal rt_sigtimedwait takes at once of SIGIO and SIGUSR1: which, its code and band */
static void take_sigio(const char *what)
{
	unsigned long mask = (1UL << (29 - 1)) | (1UL << (10 - 1));
	struct { int signo, err, code, pad; long band; int fd; char rest[100]; } si;
	struct { long s, ns; } zero = { 0, 0 };
	long r = sc(128, L(&mask), L(&si), L(&zero), 8, 0, 0);

	show(what, r);
	if (r == 10)
		printf("  code %d band %ld\n", si.code, si.band);
}

/* O_ASYNC TCP sockets (sock_fasync, sock_wake_async): a listener told of a connection, a
 * connecting socket of its connect, an accepted one of data and of the peer's FIN */
static int async_tcp(void)
{
	unsigned long mask = (1UL << (29 - 1)) | (1UL << (10 - 1));
	int srv = sock_in(SOCK_STREAM), c = sock_in(SOCK_STREAM), a;
	unsigned short port;

	show("rt_sigprocmask(SIG_BLOCK, SIGIO|SIGUSR1)", sc(14, 0, L(&mask), 0, 8, 0, 0));
	show("bind", bind_in(srv, loopback(1), 0));
	show("listen", sc(NR_listen, srv, 8, 0, 0, 0, 0));
	port = port_of(srv);
	show("F_SETOWN(listener)", sc(72, srv, 8, getpid(), 0, 0, 0));
	show("F_SETFL(listener, O_ASYNC)", sc(72, srv, 4, 020000, 0, 0, 0));
	show("F_SETOWN(client)", sc(72, c, 8, getpid(), 0, 0, 0));
	show("F_SETSIG(client, SIGUSR1)", sc(72, c, 10, 10, 0, 0, 0));
	show("F_SETFL(client, O_ASYNC)", sc(72, c, 4, 020000, 0, 0, 0));
	show("connect", connect_in(c, loopback(1), port));
	take_sigio("rt_sigtimedwait: the client's connect");
	take_sigio("rt_sigtimedwait: the listener's connection");
	take_sigio("rt_sigtimedwait: nothing more");
	a = sc(NR_accept4, srv, 0, 0, 0, 0, 0);
	show("accept", a >= 0);
	show("F_SETOWN(accepted)", sc(72, a, 8, getpid(), 0, 0, 0));
	show("F_SETSIG(accepted, SIGUSR1)", sc(72, a, 10, 10, 0, 0, 0));
	show("F_SETFL(accepted, O_ASYNC)", sc(72, a, 4, 020000, 0, 0, 0));
	show("write(client)", write(c, "x", 1));
	take_sigio("rt_sigtimedwait: data for the accepted socket");
	show("shutdown(client, SHUT_WR)", sc(NR_shutdown, c, SHUT_WR, 0, 0, 0, 0));
	take_sigio("rt_sigtimedwait: its FIN");
	close(c);
	close(a);
	close(srv);
	return 0;
}

/* A socket's ioctls (sock_ioctl -> inet_ioctl -> tcp_ioctl): unread, unacked and unsent bytes;
 * a listener's EINVAL; a terminal's request ENOTTY */
static int tcp_ioctls(void)
{
	int srv = sock_in(SOCK_STREAM), c = sock_in(SOCK_STREAM), a, v;
	char buf[16];

	show("bind", bind_in(srv, loopback(1), 0));
	show("listen", sc(NR_listen, srv, 8, 0, 0, 0, 0));
	v = -1;
	show("ioctl(listener, FIONREAD)", sc(16, srv, 0x541B, L(&v), 0, 0, 0));
	show("ioctl(listener, SIOCOUTQ)", sc(16, srv, 0x5411, L(&v), 0, 0, 0));
	show("ioctl(listener, SIOCATMARK)", sc(16, srv, 0x8905, L(&v), 0, 0, 0));
	show("  at mark", v);
	show("ioctl(unconnected, FIONREAD)", sc(16, c, 0x541B, L(&v), 0, 0, 0));
	show("  unread", v);
	show("connect", connect_in(c, loopback(1), port_of(srv)));
	a = sc(NR_accept4, srv, 0, 0, 0, 0, 0);
	show("accept", a >= 0);
	show("write(client, 5)", write(c, "hello", 5));
	show("ioctl(accepted, FIONREAD)", sc(16, a, 0x541B, L(&v), 0, 0, 0));
	show("  unread", v);
	show("read(accepted, 2)", read(a, buf, 2));
	sc(16, a, 0x541B, L(&v), 0, 0, 0);
	show("  unread after it", v);
	show("ioctl(client, SIOCOUTQ)", sc(16, c, 0x5411, L(&v), 0, 0, 0));
	show("  unacked", v);
	show("ioctl(client, SIOCOUTQNSD)", sc(16, c, 0x894B, L(&v), 0, 0, 0));
	show("  unsent", v);
	show("shutdown(client, SHUT_WR)", sc(NR_shutdown, c, SHUT_WR, 0, 0, 0, 0));
	sc(16, a, 0x541B, L(&v), 0, 0, 0);
	show("  unread after the FIN", v);
	show("ioctl(accepted, TCGETS)", sc(16, a, 0x5401, L(buf), 0, 0, 0));
	close(a);
	close(c);
	close(srv);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "ioctl"))
		return tcp_ioctls();
	if (argc == 2 && !strcmp(argv[1], "async"))
		return async_tcp();
	if (argc == 2 && !strcmp(argv[1], "sendfile"))
		return sendfile_();
	if (argc == 2 && !strcmp(argv[1], "life"))
		return life(0);
	if (argc == 2 && !strcmp(argv[1], "life6"))
		return life(1);
	if (argc == 2 && !strcmp(argv[1], "tcp6"))
		return tcp6();
	if (argc == 2 && !strcmp(argv[1], "udp6"))
		return udp6();
	if (argc == 2 && !strcmp(argv[1], "udp"))
		return udp();
	if (argc == 2 && !strcmp(argv[1], "unix"))
		return unix_();
	if (argc == 2 && !strcmp(argv[1], "tcp"))
		return tcp();
	if (argc == 2 && !strcmp(argv[1], "slow"))
		return slow();
	if (argc == 2 && !strcmp(argv[1], "busy"))
		return busy();
	dprintf(2, "usage: nettest tcp|slow|busy|unix|udp|tcp6|udp6|life|life6|sendfile\n");
	return 2;
}
