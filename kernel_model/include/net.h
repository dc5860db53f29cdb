/*
 * The network stack (Linux 6.1's include/linux/net.h, skbuff.h, netdevice.h, include/net/sock.h,
 * inet_sock.h, inet_connection_sock.h, tcp.h, af_unix.h, reduced to what kernel_model/net/ uses):
 * sockets as files of sockfs, struct sock (its sock_common head with 6.1's offsets, which probes
 * read: skc_daddr, skc_rcv_saddr, skc_dport, skc_num, skc_family, skc_state), sk_buffs with
 * shared, reference-counted data, the loopback device, TCP over IPv4, AF_UNIX.
 */
#ifndef _NET_H
#define _NET_H
#include "fs.h"
#include "wait.h"
#include "timer.h"
#include "interrupt.h"
#include "signal.h"

#ifndef spin_lock_init
#define spin_lock_init(l) (*(l) = (spinlock_t)__SPIN_LOCK_UNLOCKED)
#endif
#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif

#ifndef ENOTSOCK
#define ENOTSOCK	88
#define EDESTADDRREQ	89
#define EMSGSIZE	90
#define EPROTOTYPE	91
#define ENOPROTOOPT	92
#define EPROTONOSUPPORT	93
#define ESOCKTNOSUPPORT	94
#define EOPNOTSUPP	95
#define EAFNOSUPPORT	97
#define EADDRINUSE	98
#define EADDRNOTAVAIL	99
#define ENETUNREACH	101
#define ENETDOWN	100
#define ECONNABORTED	103
#define ECONNRESET	104
#define ENOBUFS		105
#define EISCONN		106
#define ENOTCONN	107
#define ETIMEDOUT	110
#define ECONNREFUSED	111
#define EALREADY	114
#define EINPROGRESS	115
#endif

#define AF_UNSPEC	0
#define AF_UNIX		1
#define AF_INET		2
#define AF_INET6	10
#define PF_UNIX		AF_UNIX
#define PF_INET		AF_INET
#define PF_INET6	AF_INET6
#define NPROTO		46

#define SOCK_STREAM	1
#define SOCK_DGRAM	2
#define SOCK_RAW	3
#define SOCK_SEQPACKET	5
#define SOCK_TYPE_MASK	0xf
#define SOCK_NONBLOCK	O_NONBLOCK
#define SOCK_CLOEXEC	O_CLOEXEC

#define IPPROTO_IP	0
#define IPPROTO_TCP	6
#define IPPROTO_UDP	17
#define IPPROTO_IPV6	41
#define IPPROTO_DCCP	33
#define IPPROTO_SCTP	132
#define IPPROTO_MPTCP	262

#define MSG_PEEK	2
#define MSG_DONTWAIT	0x40
#define MSG_WAITALL	0x100
#define MSG_NOSIGNAL	0x4000
#define MSG_MORE	0x8000		/* more data to come */
#define MSG_SENDPAGE_NOTLAST 0x20000	/* sendpage() internal: not the last page */
#define MSG_CMSG_CLOEXEC 0x40000000

#define SHUT_RD		0
#define SHUT_WR		1
#define SHUT_RDWR	2
#define RCV_SHUTDOWN	1
#define SEND_SHUTDOWN	2
#define SHUTDOWN_MASK	3

#define SOL_SOCKET	1
#define SO_REUSEADDR	2
#define SO_TYPE		3
#define SO_ERROR	4
#define SO_SNDBUF	7
#define SO_RCVBUF	8
#define SO_KEEPALIVE	9
#define SO_REUSEPORT	15
#define SO_ACCEPTCONN	30
#define SO_PROTOCOL	38
#define SO_DOMAIN	39
#define SOL_TCP		6
#define TCP_NODELAY	1
#define TCP_MAXSEG	2
#define TCP_INFO	11	/* information about this connection: struct tcp_info */

#define SOMAXCONN	4096
#define SOCK_MIN_RCVBUF	2304
#define SOCK_MIN_SNDBUF	4608
#define SYSCTL_WMEM_DEFAULT 212992	/* net.core.wmem_default */
#define SYSCTL_RMEM_DEFAULT 212992
#define SYSCTL_RMEM_MAX	212992
#define TCP_RMEM_DEFAULT 131072		/* net.ipv4.tcp_rmem[1] */
#define TCP_WMEM_DEFAULT 16384		/* net.ipv4.tcp_wmem[1] */

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef u16 __be16;
typedef u32 __be32;
typedef u32 __wsum;
typedef u16 sa_family_t;

static __always_inline u16 htons(u16 x) { return __builtin_bswap16(x); }
static __always_inline u16 ntohs(u16 x) { return __builtin_bswap16(x); }
static __always_inline u32 htonl(u32 x) { return __builtin_bswap32(x); }
static __always_inline u32 ntohl(u32 x) { return __builtin_bswap32(x); }
#define INADDR_ANY	0u
#define INADDR_LOOPBACK	0x7f000001u
static __always_inline bool ipv4_is_loopback(__be32 addr) { return (addr & htonl(0xff000000)) == htonl(0x7f000000); }

struct sockaddr { sa_family_t sa_family; char sa_data[14]; };
struct in_addr { __be32 s_addr; };
struct sockaddr_in { sa_family_t sin_family; __be16 sin_port; struct in_addr sin_addr; u8 __pad[8]; };
#define UNIX_PATH_MAX 108
struct sockaddr_un { sa_family_t sun_family; char sun_path[UNIX_PATH_MAX]; };
/* IPv6 addresses (include/uapi/linux/in6.h) */
struct in6_addr {
	union {
		__u8 u6_addr8[16];
		__be16 u6_addr16[8];
		__be32 u6_addr32[4];
	} in6_u;
#define s6_addr		in6_u.u6_addr8
#define s6_addr32	in6_u.u6_addr32
};
struct sockaddr_in6 {
	sa_family_t sin6_family;
	__be16 sin6_port;
	__be32 sin6_flowinfo;
	struct in6_addr sin6_addr;
	__u32 sin6_scope_id;
};
#define SIN6_LEN_RFC2133 24
#define IPV6_V6ONLY	26
struct sockaddr_storage { sa_family_t ss_family; char __data[126]; };

/* a socket call's message: the name, the data as an iov_iter (include/linux/socket.h) */
struct msghdr {
	void *msg_name;
	int msg_namelen;
	struct iov_iter msg_iter;
	unsigned int msg_flags;
};

/* ---- sk_buffs (include/linux/skbuff.h) ---- */
struct sk_buff_head {
	struct sk_buff *next, *prev;
	u32 qlen;
	spinlock_t lock;
};

/* at the end of the data buffer: the references of the skbs sharing it (clones) */
struct skb_shared_info {
	u8 tx_flags;			/* no timestamping here: 0 */
	unsigned short gso_size, gso_segs;	/* no GSO here: TCP sends MSS-sized skbs */
	unsigned int gso_type;
	int dataref;
};

struct sk_buff {
	struct sk_buff *next, *prev;
	struct sock *sk;
	struct net_device *dev;
	char cb[48] __aligned(8);		/* the protocol's control block (tcp_skb_cb) */
	unsigned int len, data_len;
	u16 mac_len, hdr_len;
	u8 __pkt_type_offset[0];		/* where the byte of pkt_type is (a BPF context load reads it) */
	u8 pkt_type:3, cloned:1, ip_summed:2;
	__be16 protocol;
	u16 queue_mapping;			/* one tx queue a device */
	__be16 vlan_proto;			/* no VLANs: 0 */
	u16 vlan_tci;
	u16 transport_header, network_header, mac_header;
	unsigned char *head, *data;
	unsigned int tail, end;			/* offsets from head */
	unsigned int truesize;
	int users;
	u64 skb_mstamp_ns;			/* TCP: when it was (last) sent, tcp_clock_ns() */
};

#define CHECKSUM_UNNECESSARY	1
#define PACKET_HOST		0
#define PACKET_LOOPBACK		5
#define ETH_P_IP		0x0800
#define ETH_P_IPV6		0x86DD
#define ETH_HLEN		14
#define MAX_HEADER		128	/* room for the headers in front of the data */

static __always_inline struct skb_shared_info *skb_shinfo(const struct sk_buff *skb)
{
	return (struct skb_shared_info *)(skb->head + skb->end);
}
static __always_inline unsigned char *skb_tail_pointer(const struct sk_buff *skb) { return skb->head + skb->tail; }
static __always_inline unsigned int skb_headroom(const struct sk_buff *skb) { return skb->data - skb->head; }
static __always_inline void skb_reserve(struct sk_buff *skb, int len) { skb->data += len; skb->tail += len; }
static __always_inline unsigned char *skb_network_header(const struct sk_buff *skb) { return skb->head + skb->network_header; }
static __always_inline int skb_network_offset(const struct sk_buff *skb) { return skb->network_header - (skb->data - skb->head); }
static __always_inline bool skb_transport_header_was_set(const struct sk_buff *skb) { return skb->transport_header != 0xffff; }
static __always_inline int skb_transport_offset(const struct sk_buff *skb) { return skb->transport_header - (skb->data - skb->head); }
static __always_inline bool skb_vlan_tag_present(const struct sk_buff *skb) { return skb->vlan_proto != 0; }
static __always_inline unsigned char *skb_transport_header(const struct sk_buff *skb) { return skb->head + skb->transport_header; }
static __always_inline void skb_reset_network_header(struct sk_buff *skb) { skb->network_header = skb->data - skb->head; }
static __always_inline void skb_reset_transport_header(struct sk_buff *skb) { skb->transport_header = skb->data - skb->head; }
static __always_inline void skb_reset_mac_header(struct sk_buff *skb) { skb->mac_header = skb->data - skb->head; }
static __always_inline bool skb_queue_empty(const struct sk_buff_head *list) { return list->next == (const struct sk_buff *)list; }
static __always_inline struct sk_buff *skb_peek(const struct sk_buff_head *list)
{
	struct sk_buff *skb = list->next;

	return skb == (struct sk_buff *)list ? NULL : skb;
}
static __always_inline void __skb_queue_head_init(struct sk_buff_head *list)
{
	list->prev = list->next = (struct sk_buff *)list;
	list->qlen = 0;
}
#define skb_queue_walk_safe(queue, skb, tmp) \
	for (skb = (queue)->next, tmp = skb->next; skb != (struct sk_buff *)(queue); skb = tmp, tmp = skb->next)

enum skb_drop_reason {
	SKB_NOT_DROPPED_YET = 0,
	SKB_DROP_REASON_NOT_SPECIFIED,
	SKB_DROP_REASON_NO_SOCKET,
	SKB_DROP_REASON_PKT_TOO_SMALL,
	SKB_DROP_REASON_TCP_CSUM,
	SKB_DROP_REASON_SOCKET_FILTER,
	SKB_DROP_REASON_UDP_CSUM,
	SKB_DROP_REASON_NETFILTER_DROP,
	SKB_DROP_REASON_OTHERHOST,
	SKB_DROP_REASON_IP_CSUM,
	SKB_DROP_REASON_IP_INHDR,
	SKB_DROP_REASON_IP_RPFILTER,
	SKB_DROP_REASON_UNICAST_IN_L2_MULTICAST,
	SKB_DROP_REASON_XFRM_POLICY,
	SKB_DROP_REASON_IP_NOPROTO,
	SKB_DROP_REASON_SOCKET_RCVBUFF,
	SKB_DROP_REASON_PROTO_MEM,
	SKB_DROP_REASON_TCP_MD5NOTFOUND,
	SKB_DROP_REASON_TCP_MD5UNEXPECTED,
	SKB_DROP_REASON_TCP_MD5FAILURE,
	SKB_DROP_REASON_SOCKET_BACKLOG,
	SKB_DROP_REASON_TCP_FLAGS,
	SKB_DROP_REASON_TCP_ZEROWINDOW,
	SKB_DROP_REASON_TCP_OLD_DATA,
	SKB_DROP_REASON_TCP_OVERWINDOW,
	SKB_DROP_REASON_TCP_OFOMERGE,
	SKB_DROP_REASON_TCP_RFC7323_PAWS,
	SKB_DROP_REASON_TCP_INVALID_SEQUENCE,
	SKB_DROP_REASON_TCP_RESET,
	SKB_DROP_REASON_TCP_INVALID_SYN,
	SKB_DROP_REASON_TCP_CLOSE,
	SKB_DROP_REASON_TCP_FASTOPEN,
	SKB_DROP_REASON_TCP_OLD_ACK,
	SKB_DROP_REASON_TCP_TOO_OLD_ACK,
	SKB_DROP_REASON_TCP_ACK_UNSENT_DATA,
	SKB_DROP_REASON_TCP_OFO_QUEUE_PRUNE,
	SKB_DROP_REASON_TCP_OFO_DROP,
	SKB_DROP_REASON_IP_OUTNOROUTES,
	SKB_DROP_REASON_BPF_CGROUP_EGRESS,
	SKB_DROP_REASON_IPV6DISABLED,
	SKB_DROP_REASON_NEIGH_CREATEFAIL,
	SKB_DROP_REASON_NEIGH_FAILED,
	SKB_DROP_REASON_NEIGH_QUEUEFULL,
	SKB_DROP_REASON_NEIGH_DEAD,
	SKB_DROP_REASON_TC_EGRESS,
	SKB_DROP_REASON_QDISC_DROP,
	SKB_DROP_REASON_CPU_BACKLOG,
	SKB_DROP_REASON_XDP,
	SKB_DROP_REASON_TC_INGRESS,
	SKB_DROP_REASON_UNHANDLED_PROTO,
	SKB_DROP_REASON_SKB_CSUM,
	SKB_DROP_REASON_SKB_GSO_SEG,
	SKB_DROP_REASON_SKB_UCOPY_FAULT,
	SKB_DROP_REASON_DEV_HDR,
	SKB_DROP_REASON_DEV_READY,
	SKB_DROP_REASON_FULL_RING,
	SKB_DROP_REASON_NOMEM,
	SKB_DROP_REASON_HDR_TRUNC,
	SKB_DROP_REASON_TAP_FILTER,
	SKB_DROP_REASON_TAP_TXFILTER,
	SKB_DROP_REASON_ICMP_CSUM,
	SKB_DROP_REASON_INVALID_PROTO,
	SKB_DROP_REASON_IP_INADDRERRORS,
	SKB_DROP_REASON_IP_INNOROUTES,
	SKB_DROP_REASON_PKT_TOO_BIG,
	SKB_DROP_REASON_TC_CHAIN_NOTFOUND,
	SKB_DROP_REASON_MAX,
};

/* net/core/skbuff.c */
struct sk_buff *__alloc_skb(unsigned int size, gfp_t priority, int flags, int node);
static __always_inline struct sk_buff *alloc_skb(unsigned int size, gfp_t priority)
{
	return __alloc_skb(size, priority, 0, -1);
}
struct sk_buff *skb_clone(struct sk_buff *skb, gfp_t gfp_mask);
void kfree_skb_reason(struct sk_buff *skb, enum skb_drop_reason reason);
#define kfree_skb(skb) kfree_skb_reason(skb, SKB_DROP_REASON_NOT_SPECIFIED)
void consume_skb(struct sk_buff *skb);
void __kfree_skb(struct sk_buff *skb);
void *skb_put(struct sk_buff *skb, unsigned int len);
void *skb_push(struct sk_buff *skb, unsigned int len);
void *skb_pull(struct sk_buff *skb, unsigned int len);
void skb_queue_head_init(struct sk_buff_head *list);
void skb_queue_tail(struct sk_buff_head *list, struct sk_buff *newsk);
struct sk_buff *skb_dequeue(struct sk_buff_head *list);
void skb_unlink(struct sk_buff *skb, struct sk_buff_head *list);
void skb_queue_purge(struct sk_buff_head *list);
void __skb_queue_tail(struct sk_buff_head *list, struct sk_buff *newsk);
struct sk_buff *__skb_dequeue(struct sk_buff_head *list);
void __skb_unlink(struct sk_buff *skb, struct sk_buff_head *list);
int skb_copy_datagram_iter(const struct sk_buff *skb, int offset, struct iov_iter *to, int len);

/* ---- devices (include/linux/netdevice.h, net/core/dev.c) ---- */
#define IFNAMSIZ 16
struct net_device;
typedef enum { NETDEV_TX_OK = 0, NETDEV_TX_BUSY = 0x10 } netdev_tx_t;
struct net_device_ops {
	netdev_tx_t (*ndo_start_xmit)(struct sk_buff *skb, struct net_device *dev);
};
struct net_device {
	char name[IFNAMSIZ];
	int ifindex;
	unsigned int mtu;
	unsigned int flags;
	const struct net_device_ops *netdev_ops;
	u64 tx_packets, tx_bytes, rx_packets, rx_bytes, rx_dropped;
};
#define IFF_UP		0x1
#define IFF_LOOPBACK	0x8

#define NAPIF_STATE_SCHED 1
struct napi_struct {
	struct list_head poll_list;
	unsigned long state;
	int weight;
	int (*poll)(struct napi_struct *, int);
	struct net_device *dev;
};

/* per cpu: the backlog of received packets, a NAPI context of its own (process_backlog) */
struct softnet_data {
	struct list_head poll_list;
	struct sk_buff_head input_pkt_queue;
	struct napi_struct backlog;
	unsigned int processed, dropped, time_squeeze;
};
extern struct softnet_data softnet_data[NR_CPUS];
extern int netdev_max_backlog;
extern struct net_device *blackhole_netdev;
extern struct net_device *loopback_dev;

int __dev_queue_xmit(struct sk_buff *skb, struct net_device *sb_dev);
/* include/linux/netdevice.h: an inline, so 6.1 traces __dev_queue_xmit */
static inline int dev_queue_xmit(struct sk_buff *skb)
{
	return __dev_queue_xmit(skb, NULL);
}
int __netif_rx(struct sk_buff *skb);
int netif_rx(struct sk_buff *skb);
int netif_receive_skb(struct sk_buff *skb);
void net_dev_init(void);
void loopback_net_init(void);
int eth_header(struct sk_buff *skb, struct net_device *dev, unsigned short type);

/* ::ffff:a.b.c.d (include/net/ipv6.h), for the events' v6 fields: nothing traceable */
static __always_inline void ipv6_addr_set_v4mapped(__be32 addr, __u8 *v6)
{
	*(u64 *)v6 = 0;
	*(u32 *)(v6 + 8) = htonl(0x0000ffff);
	*(__be32 *)(v6 + 12) = addr;
}

/* the events' v6 fields (TP_STORE_ADDRS of include/trace/events/net_probe_common.h): an
 * AF_INET6 socket's own addresses, an AF_INET one's IPv4-mapped */
#define TP_STORE_V6_ADDRS(sk, inet, entry) do {						\
	if ((sk)->sk_family == AF_INET6) {						\
		*(struct in6_addr *)(entry)->saddr_v6 = (sk)->__sk_common.skc_v6_rcv_saddr;	\
		*(struct in6_addr *)(entry)->daddr_v6 = (sk)->__sk_common.skc_v6_daddr;	\
	} else {									\
		ipv6_addr_set_v4mapped((inet)->inet_saddr, (entry)->saddr_v6);		\
		ipv6_addr_set_v4mapped((inet)->inet_daddr, (entry)->daddr_v6);		\
	}										\
} while (0)

/* the events' sockaddr fields (TP_STORE_ADDR_PORTS of include/trace/events/net_probe_common.h):
 * the family's sockaddr with the socket's ports and addresses (an AF_INET6 socket's bound
 * source: 6.1's inet6_sk(sk)->saddr, the same once connected) */
#define TP_STORE_ADDR_PORTS(entry, inet, sk) do {					\
	if ((sk)->sk_family == AF_INET6) {						\
		struct sockaddr_in6 *v6 = (void *)(entry)->saddr;			\
		v6->sin6_family = AF_INET6;						\
		v6->sin6_port = (inet)->inet_sport;					\
		v6->sin6_addr = (sk)->__sk_common.skc_v6_rcv_saddr;			\
		v6 = (void *)(entry)->daddr;						\
		v6->sin6_family = AF_INET6;						\
		v6->sin6_port = (inet)->inet_dport;					\
		v6->sin6_addr = (sk)->__sk_common.skc_v6_daddr;				\
	} else {									\
		struct sockaddr_in *v4 = (void *)(entry)->saddr;			\
		v4->sin_family = AF_INET;						\
		v4->sin_port = (inet)->inet_sport;					\
		v4->sin_addr.s_addr = (inet)->inet_saddr;				\
		v4 = (void *)(entry)->daddr;						\
		v4->sin_family = AF_INET;						\
		v4->sin_port = (inet)->inet_dport;					\
		v4->sin_addr.s_addr = (inet)->inet_daddr;				\
	}										\
} while (0)

/* include/net/ipv6.h's address tests (inline there too) */
static __always_inline bool ipv6_addr_any(const struct in6_addr *a)
{
	return !(a->s6_addr32[0] | a->s6_addr32[1] | a->s6_addr32[2] | a->s6_addr32[3]);
}
static __always_inline bool ipv6_addr_equal(const struct in6_addr *a, const struct in6_addr *b)
{
	return !((a->s6_addr32[0] ^ b->s6_addr32[0]) | (a->s6_addr32[1] ^ b->s6_addr32[1]) |
		 (a->s6_addr32[2] ^ b->s6_addr32[2]) | (a->s6_addr32[3] ^ b->s6_addr32[3]));
}
static __always_inline bool ipv6_addr_loopback(const struct in6_addr *a)
{
	return !(a->s6_addr32[0] | a->s6_addr32[1] | a->s6_addr32[2] | (a->s6_addr32[3] ^ htonl(1)));
}
static __always_inline bool ipv6_addr_v4mapped(const struct in6_addr *a)
{
	return !(a->s6_addr32[0] | a->s6_addr32[1] | (a->s6_addr32[2] ^ htonl(0x0000ffff)));
}
#define in6addr_any ((struct in6_addr){ { { 0 } } })
#define in6addr_loopback ((struct in6_addr){ { .u6_addr32 = { 0, 0, 0, htonl(1) } } })

/* ---- sockets (include/linux/net.h) ---- */
typedef enum {
	SS_FREE = 0, SS_UNCONNECTED, SS_CONNECTING, SS_CONNECTED, SS_DISCONNECTING
} socket_state;

struct socket_wq {
	wait_queue_head_t wait;
	struct fasync_struct *fasync_list;	/* O_ASYNC's: the owners sock_wake_async signals */
	unsigned long flags;			/* SOCKWQ_ASYNC_*: when not to signal */
};
#define SOCKWQ_ASYNC_NOSPACE	0	/* a writer found no room: signal when there is */
#define SOCKWQ_ASYNC_WAITDATA	1	/* a reader waits for data: no signal for it */
/* sock_wake_async()'s hows */
enum { SOCK_WAKE_IO, SOCK_WAKE_WAITD, SOCK_WAKE_SPACE, SOCK_WAKE_URG };
int sock_wake_async(struct socket_wq *wq, int how, int band);

struct socket;
struct sock;
struct proto_ops {
	int family;
	int (*release)(struct socket *sock);
	/* the family's ioctls (inet_ioctl: the protocol's); -ENOIOCTLCMD for the rest */
	int (*ioctl)(struct socket *sock, unsigned int cmd, unsigned long arg);
	int (*bind)(struct socket *sock, struct sockaddr *myaddr, int sockaddr_len);
	int (*connect)(struct socket *sock, struct sockaddr *vaddr, int sockaddr_len, int flags);
	int (*socketpair)(struct socket *sock1, struct socket *sock2);
	int (*accept)(struct socket *sock, struct socket *newsock, int flags, bool kern);
	int (*getname)(struct socket *sock, struct sockaddr *addr, int peer);
	int (*listen)(struct socket *sock, int len);
	int (*shutdown)(struct socket *sock, int flags);
	int (*setsockopt)(struct socket *sock, int level, int optname, void *optval, unsigned int optlen);
	int (*getsockopt)(struct socket *sock, int level, int optname, void *optval, int *optlen);
	int (*sendmsg)(struct socket *sock, struct msghdr *m, size_t total_len);
	int (*recvmsg)(struct socket *sock, struct msghdr *m, size_t total_len, int flags);
	ssize_t (*sendpage)(struct socket *sock, struct page *page, int offset, size_t size, int flags);
	/* sock_poll's: what the socket is ready for (include/poll.h) */
	unsigned int (*poll)(struct file *file, struct socket *sock, struct poll_table_struct *wait);
};

struct socket {
	socket_state state;
	short type;
	unsigned long flags;
	struct file *file;
	struct sock *sk;
	const struct proto_ops *ops;
	struct socket_wq wq;
	struct inode *inode;		/* its sockfs inode (6.1: SOCK_INODE(), a socket_alloc) */
};

struct net_proto_family {
	int family;
	int (*create)(struct socket *sock, int protocol, int kern);
};
int sock_register(const struct net_proto_family *fam);

/* socket.c */
struct socket *sock_alloc(void);
void sock_release(struct socket *sock);
int sock_create(int family, int type, int protocol, struct socket **res);
int sock_sendmsg(struct socket *sock, struct msghdr *msg);
int kernel_sendmsg(struct socket *sock, struct msghdr *msg, struct kvec *vec, size_t num, size_t len);
int kernel_sendpage(struct socket *sock, struct page *page, int offset, size_t size, int flags);
ssize_t sock_no_sendpage(struct socket *sock, struct page *page, int offset, size_t size, int flags);
ssize_t inet_sendpage(struct socket *sock, struct page *page, int offset, size_t size, int flags);
int tcp_sendpage(struct sock *sk, struct page *page, int offset, size_t size, int flags);
int sock_recvmsg(struct socket *sock, struct msghdr *msg, int flags);
struct socket *sock_from_file(struct file *file);
void sock_init(void);

/* ---- struct sock (include/net/sock.h) ---- */
/* The network namespaces (include/net/net_namespace.h): one, init_net; nothing of it here but
 * its ns_common, where Debian 6.1's struct net has it */
struct net {
	u8 __gap_0[128];
	struct ns_common ns;
};
extern struct net init_net;
typedef struct { struct net *net; } possible_net_t;	/* (CONFIG_NET_NS) */
void net_ns_init(void);

struct sock_common {
	union {
		u64 skc_addrpair;
		struct {
			__be32 skc_daddr;
			__be32 skc_rcv_saddr;
		};
	};
	union {
		unsigned int skc_hash;
		u16 skc_u16hashes[2];
	};
	union {
		u32 skc_portpair;
		struct {
			__be16 skc_dport;
			u16 skc_num;
		};
	};
	unsigned short skc_family;
	volatile unsigned char skc_state;
	unsigned char skc_reuse:4;
	unsigned char skc_reuseport:1;
	unsigned char skc_ipv6only:1;
	unsigned char skc_net_refcnt:1;
	int skc_bound_dev_if;
	struct list_head skc_bind_node;	/* with its local port (inet_csk_get_port) */
	struct proto *skc_prot;
	possible_net_t skc_net;		/* its network namespace: init_net */
	struct in6_addr skc_v6_daddr;	/* an AF_INET6 socket's peer and local address */
	struct in6_addr skc_v6_rcv_saddr;
	u8 __gap_88[104 - 88];
	struct list_head skc_node;	/* in the established or the listening table */
	u8 __gap_120[128 - 120];
	int skc_refcnt;
};
/* what probes and BCC's programs (Debian's 6.1 headers) read, at 6.1's offsets */
_Static_assert(offsetof(struct sock_common, skc_daddr) == 0 && offsetof(struct sock_common, skc_rcv_saddr) == 4 &&
	       offsetof(struct sock_common, skc_dport) == 12 && offsetof(struct sock_common, skc_num) == 14 &&
	       offsetof(struct sock_common, skc_family) == 16 && offsetof(struct sock_common, skc_state) == 18 &&
	       offsetof(struct sock_common, skc_bound_dev_if) == 20 && offsetof(struct sock_common, skc_bind_node) == 24 &&
	       offsetof(struct sock_common, skc_prot) == 40 && offsetof(struct sock_common, skc_net) == 48 &&
	       offsetof(struct sock_common, skc_v6_daddr) == 56 && offsetof(struct sock_common, skc_v6_rcv_saddr) == 72 &&
	       offsetof(struct sock_common, skc_node) == 104 && offsetof(struct sock_common, skc_refcnt) == 128 &&
	       sizeof(struct sock_common) == 136, "struct sock_common as Debian 6.1's");

typedef struct {
	spinlock_t slock;
	int owned;
} socket_lock_t;

struct proto;
#define SOCK_GAP(from, to, ...) union { struct { __VA_ARGS__ }; u8 __gap_##from[(to) - (from)]; };
struct sock {
	struct sock_common __sk_common;
#define sk_daddr	__sk_common.skc_daddr
#define sk_rcv_saddr	__sk_common.skc_rcv_saddr
#define sk_dport	__sk_common.skc_dport
#define sk_v6_daddr	__sk_common.skc_v6_daddr
#define sk_v6_rcv_saddr	__sk_common.skc_v6_rcv_saddr
#define sk_ipv6only	__sk_common.skc_ipv6only
#define sk_num		__sk_common.skc_num
#define sk_family	__sk_common.skc_family
#define sk_state	__sk_common.skc_state
#define sk_reuse	__sk_common.skc_reuse
#define sk_node		__sk_common.skc_node
#define sk_refcnt	__sk_common.skc_refcnt
#define sk_prot		__sk_common.skc_prot
#define sk_net		__sk_common.skc_net
	/* the fields tools read (BCC's bindsnoop, tcpsynbl, compiled against Debian's 6.1 headers)
	 * at Debian 6.1's offsets, the model's own between them (SOCK_GAP: a union of the fields
	 * and a pad to the next pinned offset, as task_struct's TASK_GAP) */
	SOCK_GAP(136, 512,
		socket_lock_t sk_lock;
		struct {			/* packets that came while the owner held the lock */
			struct sk_buff *head, *tail;
			int len;
		} sk_backlog;
		struct sk_buff_head sk_receive_queue;
		struct sk_buff_head sk_write_queue;
		int sk_rcvbuf, sk_sndbuf;
		int sk_rmem_alloc, sk_wmem_queued;
		int sk_err;
		u8 sk_shutdown;
		u8 sk_userlocks;
	)
	u16 __gap_512;
	u16 sk_type;
	u16 sk_protocol;
	u16 __gap_518;
	SOCK_GAP(520, 552,
		u64 sk_cookie;
	)
	u32 sk_ack_backlog;
	u32 sk_max_ack_backlog;
	uid_t sk_uid;
	u32 __gap_564;
	SOCK_GAP(568, 776,
		unsigned long sk_flags;
		struct socket *sk_socket;
		struct socket_wq *sk_wq;
		void (*sk_state_change)(struct sock *sk);
		void (*sk_data_ready)(struct sock *sk);
		void (*sk_error_report)(struct sock *sk);
		void (*sk_write_space)(struct sock *sk);
		int (*sk_backlog_rcv)(struct sock *sk, struct sk_buff *skb);
		void (*sk_destruct)(struct sock *sk);
	)
};
_Static_assert(offsetof(struct sock, sk_type) == 514 &&
	       offsetof(struct sock, sk_protocol) == 516 && offsetof(struct sock, sk_ack_backlog) == 552 &&
	       offsetof(struct sock, sk_max_ack_backlog) == 556 && offsetof(struct sock, sk_uid) == 560 &&
	       sizeof(struct sock) == 776, "struct sock: the fields tools read at Debian 6.1's offsets");
#define SOCK_DEAD	1
#define SOCK_DONE	2
#define SOCK_FASYNC	16	/* its socket's fasync list is not empty (sock_fasync) */
#define SOCK_RCVBUF_LOCK 2
#define SOCK_BINDADDR_LOCK 4
#define SOCK_BINDPORT_LOCK 8

struct proto {
	const char *name;
	unsigned int obj_size;
	void (*close)(struct sock *sk, long timeout);
	int (*connect)(struct sock *sk, struct sockaddr *uaddr, int addr_len);
	int (*disconnect)(struct sock *sk, int flags);
	void (*shutdown)(struct sock *sk, int how);
	int (*sendmsg)(struct sock *sk, struct msghdr *msg, size_t len);
	int (*recvmsg)(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *addr_len);
	int (*sendpage)(struct sock *sk, struct page *page, int offset, size_t size, int flags);
	int (*backlog_rcv)(struct sock *sk, struct sk_buff *skb);
	int (*init)(struct sock *sk);
	void (*destroy)(struct sock *sk);
	int (*hash)(struct sock *sk);
	void (*unhash)(struct sock *sk);
	int (*get_port)(struct sock *sk, unsigned short snum);
	bool no_autobind;		/* connections bind as they connect (TCP) */
	int (*setsockopt)(struct sock *sk, int level, int optname, void *optval, unsigned int optlen);
	int (*getsockopt)(struct sock *sk, int level, int optname, void *optval, int *optlen);
	int (*ioctl)(struct sock *sk, int cmd, unsigned long arg);	/* SIOCINQ, SIOCOUTQ, ... */
	struct kmem_cache *slab;
};
/* the socket ioctls (include/uapi/linux/sockios.h, asm-generic/sockios.h) */
#define SIOCINQ		0x541B	/* FIONREAD */
#define SIOCOUTQ	0x5411	/* TIOCOUTQ */
#define SIOCOUTQNSD	0x894B	/* output queue size, not sent yet */
#define FIOSETOWN	0x8901
#define SIOCSPGRP	0x8902
#define FIOGETOWN	0x8903
#define SIOCGPGRP	0x8904
#define SIOCATMARK	0x8905
#define SOCK_IOC_TYPE	0x89
#define ENOIOCTLCMD	515
int inet_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg);
int tcp_ioctl(struct sock *sk, int cmd, unsigned long arg);

static __always_inline bool sock_flag(const struct sock *sk, int flag) { return sk->sk_flags & (1UL << flag); }
static __always_inline void sock_set_flag(struct sock *sk, int flag) { sk->sk_flags |= 1UL << flag; }
static __always_inline void sock_reset_flag(struct sock *sk, int flag) { sk->sk_flags &= ~(1UL << flag); }
/* The owners of an O_ASYNC socket signalled (include/net/sock.h) */
static __always_inline void sk_wake_async(const struct sock *sk, int how, int band)
{
	if (sock_flag(sk, SOCK_FASYNC))
		sock_wake_async(READ_ONCE(sk->sk_wq), how, band);
}
/* A SOCKWQ_ASYNC_* bit of the socket's (kept only while it is O_ASYNC) */
static __always_inline void sk_set_bit(int nr, struct sock *sk)
{
	if (!sock_flag(sk, SOCK_FASYNC) || !sk->sk_wq)
		return;
	__atomic_fetch_or(&sk->sk_wq->flags, 1UL << nr, __ATOMIC_RELAXED);
}
static __always_inline void sk_clear_bit(int nr, struct sock *sk)
{
	if (!sock_flag(sk, SOCK_FASYNC) || !sk->sk_wq)
		return;
	__atomic_fetch_and(&sk->sk_wq->flags, ~(1UL << nr), __ATOMIC_RELAXED);
}
static __always_inline void sock_hold(struct sock *sk) { __atomic_add_fetch(&sk->sk_refcnt, 1, __ATOMIC_RELAXED); }
static __always_inline bool sock_owned_by_user(const struct sock *sk) { return READ_ONCE(sk->sk_lock.owned); }
static __always_inline long sock_rcvtimeo(const struct sock *sk, bool noblock) { return noblock ? 0 : -1; }
#define bh_lock_sock(sk)	spin_lock(&(sk)->sk_lock.slock)
#define bh_unlock_sock(sk)	spin_unlock(&(sk)->sk_lock.slock)

/* net/core/sock.c */
struct sock *sk_alloc(int family, gfp_t priority, struct proto *prot, int kern);
void sk_free(struct sock *sk);
void sock_put(struct sock *sk);
void sock_init_data(struct socket *sock, struct sock *sk);
void lock_sock_nested(struct sock *sk, int subclass);
static inline void lock_sock(struct sock *sk) { lock_sock_nested(sk, 0); }
void release_sock(struct sock *sk);
int sk_add_backlog(struct sock *sk, struct sk_buff *skb, unsigned int limit);
void sock_def_wakeup(struct sock *sk);
void sock_def_readable(struct sock *sk);
void sk_stream_write_space(struct sock *sk);
int sk_wait_data(struct sock *sk, long *timeo);
int sock_setsockopt(struct socket *sock, int level, int optname, void *optval, unsigned int optlen);
int sock_getsockopt(struct socket *sock, int level, int optname, void *optval, int *optlen);
void sockopt_lock_sock(struct sock *sk);
void sockopt_release_sock(struct sock *sk);
int sock_common_setsockopt(struct socket *sock, int level, int optname, void *optval, unsigned int optlen);
/* an int option's value from the caller (the setsockopt handlers' first lines) */
static __always_inline int sockopt_int_from_user(const void *optval, unsigned int optlen, int *val)
{
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_user(val, optval, sizeof(*val)))
		return -EFAULT;
	return 0;
}
/* an int option's value to the caller, len bytes of it (the getsockopt handlers' last lines) */
static __always_inline int sockopt_int_to_user(void *optval, int *optlen, int len, int val)
{
	if (copy_to_user(optlen, &len, sizeof(int)))
		return -EFAULT;
	if (copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}
int sock_common_getsockopt(struct socket *sock, int level, int optname, void *optval, int *optlen);
int sk_reset_timer(struct sock *sk, struct timer_list *timer, unsigned long expires);
void sk_stop_timer(struct sock *sk, struct timer_list *timer);
int sock_error(struct sock *sk);
void sk_common_release(struct sock *sk);
struct request_sock;
void security_sock_graft(struct sock *sk, struct socket *parent);
int security_inet_conn_request(const struct sock *sk, struct sk_buff *skb, struct request_sock *req);
void security_inet_csk_clone(struct sock *newsk, const struct request_sock *req);
void security_inet_conn_established(struct sock *sk, struct sk_buff *skb);
/* a socket of the listener's queue takes the accepting socket's place */
static inline void sock_graft(struct sock *sk, struct socket *parent)
{
	sk->sk_wq = &parent->wq;
	parent->sk = sk;
	sk->sk_socket = parent;		/* sk_set_socket() */
	sk->sk_uid = parent->inode ? parent->inode->i_uid : 0;	/* SOCK_INODE(parent)->i_uid */
	security_sock_graft(sk, parent);
}
/* the socket loses its file: no one to wake any more */
static inline void sock_orphan(struct sock *sk)
{
	local_bh_disable();
	spin_lock(&sk->sk_lock.slock);
	sock_set_flag(sk, SOCK_DEAD);
	sk->sk_socket = NULL;
	sk->sk_wq = NULL;
	spin_unlock(&sk->sk_lock.slock);
	local_bh_enable();
}
int sock_no_socketpair(struct socket *sock1, struct socket *sock2);
int sock_no_accept(struct socket *sock, struct socket *newsock, int flags, bool kern);
int sock_no_listen(struct socket *sock, int backlog);

/* Sleep with the socket released until cond (or a signal): sk_wait_event() of 6.1. */
#define sk_wait_event(__sk, __cond) ({					\
	int __rc;							\
	release_sock(__sk);						\
	__rc = wait_event_interruptible((__sk)->sk_wq->wait, (__cond));	\
	lock_sock(__sk);						\
	__rc;								\
})

/* ---- IPv4 and TCP (include/net/inet_sock.h, inet_connection_sock.h, tcp.h) ---- */
enum {
	TCP_ESTABLISHED = 1,
	TCP_SYN_SENT,
	TCP_SYN_RECV,
	TCP_FIN_WAIT1,
	TCP_FIN_WAIT2,
	TCP_TIME_WAIT,
	TCP_CLOSE,
	TCP_CLOSE_WAIT,
	TCP_LAST_ACK,
	TCP_LISTEN,
	TCP_CLOSING,
	TCP_NEW_SYN_RECV,
	TCP_MAX_STATES
};
#define TCPF_ESTABLISHED	(1 << TCP_ESTABLISHED)
#define TCPF_SYN_SENT		(1 << TCP_SYN_SENT)
#define TCPF_SYN_RECV		(1 << TCP_SYN_RECV)
#define TCPF_FIN_WAIT1		(1 << TCP_FIN_WAIT1)
#define TCPF_FIN_WAIT2		(1 << TCP_FIN_WAIT2)
#define TCPF_CLOSE		(1 << TCP_CLOSE)
#define TCPF_CLOSE_WAIT		(1 << TCP_CLOSE_WAIT)
#define TCPF_LAST_ACK		(1 << TCP_LAST_ACK)
#define TCPF_LISTEN		(1 << TCP_LISTEN)
#define TCPF_CLOSING		(1 << TCP_CLOSING)

struct iphdr {
	u8 ihl:4, version:4;
	u8 tos;
	__be16 tot_len;
	__be16 id;
	__be16 frag_off;
	u8 ttl;
	u8 protocol;
	u16 check;
	__be32 saddr;
	__be32 daddr;
};
struct tcphdr {
	__be16 source;
	__be16 dest;
	__be32 seq;
	__be32 ack_seq;
	u16 res1:4, doff:4, fin:1, syn:1, rst:1, psh:1, ack:1, urg:1, ece:1, cwr:1;
	__be16 window;
	u16 check;
	__be16 urg_ptr;
};
struct udphdr {
	__be16 source;
	__be16 dest;
	__be16 len;
	u16 check;
};
#define TCPHDR_FIN 0x01
#define TCPHDR_SYN 0x02
#define TCPHDR_RST 0x04
#define TCPHDR_PSH 0x08
#define TCPHDR_ACK 0x10

/* include/uapi/linux/ipv6.h */
struct ipv6hdr {
	u8 priority:4, version:4;
	u8 flow_lbl[3];
	__be16 payload_len;
	u8 nexthdr;
	u8 hop_limit;
	struct in6_addr saddr;
	struct in6_addr daddr;
};
static __always_inline struct ipv6hdr *ipv6_hdr(const struct sk_buff *skb) { return (struct ipv6hdr *)skb_network_header(skb); }
static __always_inline struct iphdr *ip_hdr(const struct sk_buff *skb) { return (struct iphdr *)skb_network_header(skb); }
static __always_inline struct tcphdr *tcp_hdr(const struct sk_buff *skb) { return (struct tcphdr *)skb_transport_header(skb); }
static __always_inline struct udphdr *udp_hdr(const struct sk_buff *skb) { return (struct udphdr *)skb_transport_header(skb); }

struct inet_sock {
	struct sock sk;
#define inet_daddr	sk.__sk_common.skc_daddr
#define inet_rcv_saddr	sk.__sk_common.skc_rcv_saddr
#define inet_dport	sk.__sk_common.skc_dport
#define inet_num	sk.__sk_common.skc_num
	struct ipv6_pinfo *pinet6;	/* an AF_INET6 socket's */
	__be32 inet_saddr;
	SOCK_GAP(788, 800,
		u8 ttl;
	)
	u16 inet_id;
	u16 __gap_802;
	__be16 inet_sport;
	u8 tos;
	u8 __gap_807[810 - 807];
	/* 6.1's option bits (bindsnoop reads freebind, transparent, bind_address_no_port): as
	 * inet_create() sets them; no IP-level option changes them here (no ip_setsockopt) */
	u8 recverr:1, is_icsk:1, freebind:1, hdrincl:1, mc_loop:1, transparent:1, mc_all:1, nodefrag:1;
	u8 bind_address_no_port:1, recverr_rfc4884:1, defer_connect:1;
	u8 __gap_812[816 - 812];
};
_Static_assert(offsetof(struct inet_sock, pinet6) == 776 && offsetof(struct inet_sock, inet_saddr) == 784 &&
	       offsetof(struct inet_sock, inet_id) == 800 && offsetof(struct inet_sock, inet_sport) == 804 &&
	       offsetof(struct inet_sock, tos) == 806, "struct inet_sock: as Debian 6.1's");
static __always_inline struct inet_sock *inet_sk(const struct sock *sk) { return (struct inet_sock *)sk; }

/* a connection that has seen a SYN and sent the SYN-ACK (include/net/request_sock.h) */
struct request_sock {
	struct sock_common __req_common;	/* addresses as the child's; skc_state TCP_NEW_SYN_RECV */
	struct request_sock *dl_next;
	struct sock *rsk_listener;
	u32 snt_isn, rcv_isn;
	u64 snt_synack;				/* when the first SYN-ACK went, in us (tcp_clock_us) */
	u8 num_retrans;
};

/* an AF_INET6 socket's IPv6 part (include/linux/ipv6.h), at the end of its tcp6_sock/udp6_sock */
struct ipv6_pinfo {
	struct in6_addr saddr;		/* the source address of what it sends */
	u8 hop_limit;
} __aligned(8);	/* (the last of its socket, with no padding after it: inet6_sk_generic()) */
static __always_inline struct ipv6_pinfo *inet6_sk(const struct sock *sk)
{
	return sk->sk_family == AF_INET6 ? inet_sk(sk)->pinet6 : NULL;
}
static __always_inline bool ipv6_only_sock(const struct sock *sk) { return sk->sk_ipv6only; }
/* include/net/ip.h: an unbound socket's source address forgotten (a disconnect) */
static __always_inline void inet_reset_saddr(struct sock *sk)
{
	inet_sk(sk)->inet_saddr = 0;
	WRITE_ONCE(inet_sk(sk)->inet_rcv_saddr, 0);
	if (sk->sk_family == AF_INET6) {
		memset(&inet_sk(sk)->pinet6->saddr, 0, sizeof(struct in6_addr));
		memset(&sk->sk_v6_rcv_saddr, 0, sizeof(sk->sk_v6_rcv_saddr));
	}
}

/* a connection socket's address family's operations (include/net/inet_connection_sock.h) */
struct inet_connection_sock_af_ops {
	int (*queue_xmit)(struct sock *sk, struct sk_buff *skb);
	int (*conn_request)(struct sock *sk, struct sk_buff *skb);
	struct sock *(*syn_recv_sock)(const struct sock *sk, struct sk_buff *skb, struct request_sock *req);
	u16 net_header_len;
	int (*setsockopt)(struct sock *sk, int level, int optname, void *optval, unsigned int optlen);
	int (*getsockopt)(struct sock *sk, int level, int optname, void *optval, int *optlen);
};
extern const struct inet_connection_sock_af_ops ipv4_specific, ipv6_specific, ipv6_mapped;

/* BCC's tcpcong reads icsk_ca_state (the byte before icsk_retransmits) at Debian 6.1's offsets;
 * the model's own fields are in what 6.1 has before them (ICSK_GAP, as SOCK_GAP) */
#define ICSK_GAP SOCK_GAP
struct inet_connection_sock {
	struct inet_sock icsk_inet;
	ICSK_GAP(816, 1088,
		struct request_sock_queue {		/* embryos, then children to accept */
			struct request_sock *syn_head;	/* SYN received, SYN-ACK sent */
			struct sock *rskq_accept_head, *rskq_accept_tail;
			int qlen;
		} icsk_accept_queue;
		struct sock *icsk_accept_next;		/* in its listener's accept queue */
	)
	unsigned long icsk_timeout;
	ICSK_GAP(1096, 1216,
		struct timer_list icsk_retransmit_timer;
	)
	u32 icsk_rto;
	u32 icsk_rto_min;
	u8 __gap_1224[1240 - 1224];
	const struct inet_connection_sock_af_ops *icsk_af_ops;
	u8 __gap_1248[1280 - 1248];
	u8 icsk_ca_state:5;			/* enum tcp_ca_state */
	u8 icsk_retransmits;
	u8 icsk_pending;
	u8 icsk_backoff;
	u8 __gap_1284[1440 - 1284];
};
_Static_assert(offsetof(struct inet_connection_sock, icsk_timeout) == 1088 &&
	       offsetof(struct inet_connection_sock, icsk_retransmit_timer) == 1096 &&
	       offsetof(struct inet_connection_sock, icsk_rto) == 1216 &&
	       offsetof(struct inet_connection_sock, icsk_rto_min) == 1220 &&
	       offsetof(struct inet_connection_sock, icsk_af_ops) == 1240 &&
	       offsetof(struct inet_connection_sock, icsk_retransmits) == 1281 &&
	       offsetof(struct inet_connection_sock, icsk_pending) == 1282 &&
	       offsetof(struct inet_connection_sock, icsk_backoff) == 1283 &&
	       sizeof(struct inet_connection_sock) == 1440, "struct inet_connection_sock: as Debian 6.1's");
static __always_inline struct inet_connection_sock *inet_csk(const struct sock *sk) { return (struct inet_connection_sock *)sk; }
#define ICSK_TIME_RETRANS	1

/* include/uapi/linux/tcp.h */
enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4
};

/*
 * struct tcp_sock (include/linux/tcp.h): what tools read (BCC's tcplife: bytes_received and
 * bytes_acked; tcprtt: srtt_us; the counters of tcp_info) at Debian 6.1's offsets, checked
 * against its BTF below.  What the model does not keep is a gap (__gap_OFFSET) where 6.1 has it;
 * the retransmit queue (6.1: an rbtree, tcp_rtx_queue) is where 6.1 has its pacing hrtimer,
 * which the model has not.
 */
struct tcp_sock {
	struct inet_connection_sock inet_conn;
	u8 __gap_1440[1448 - 1440];
	u64 bytes_received;	/* RFC4898 tcpEStatsAppHCThruOctetsReceived: sum(delta(rcv_nxt)) */
	u32 segs_in;		/* segments received (tcp_segs_in) */
	u32 data_segs_in;	/* of them with data */
	u32 rcv_nxt;		/* what we want to receive next */
	u32 copied_seq;		/* head of yet unread data */
	u32 __gap_1472;
	u32 snd_nxt;		/* next sequence we send */
	u32 segs_out;		/* segments sent (retransmissions too) */
	u32 data_segs_out;	/* of them with data */
	u64 bytes_sent;		/* data bytes sent (retransmissions too) */
	u64 bytes_acked;	/* RFC4898 tcpEStatsAppHCThruOctetsAcked: sum(delta(snd_una)) */
	u32 __gap_1504;
	u32 snd_una;		/* first byte we want an ack for */
	u8 __gap_1512[1572 - 1512];
	u32 snd_wnd;		/* the window the peer offers */
	u32 __gap_1576;
	u32 mss_cache;
	u8 __gap_1584[1637 - 1584];
	u8 nonagle:4;		/* TCP_NAGLE_* */
	u8 __gap_1638[1639 - 1638];
	u8 __pad_1639:7, is_cwnd_limited:1;	/* forward progress was limited by snd_cwnd */
	u8 __gap_1640[1656 - 1640];
	u64 tcp_clock_cache;	/* the clock (ns) at the last tcp_mstamp_refresh() */
	u64 tcp_mstamp;		/* the same in us */
	u32 srtt_us;		/* smoothed round trip time << 3, in usecs */
	u32 mdev_us;		/* medium deviation */
	u32 mdev_max_us;	/* maximal mdev for the last rtt period */
	u32 rttvar_us;		/* smoothed mdev_max */
	u32 rtt_seq;		/* sequence number to update rttvar */
	u8 __gap_1692[1716 - 1692];
	u32 packets_out;	/* segments in flight */
	u32 retrans_out;	/* retransmitted segments in flight */
	u32 max_packets_out;	/* max packets_out in the last window */
	u32 cwnd_usage_seq;	/* right edge of the cwnd usage tracking flight */
	u8 __gap_1732[1772 - 1732];
	u32 snd_ssthresh;	/* slow start size threshold */
	u32 snd_cwnd;		/* sending congestion window (tcp_snd_cwnd()) */
	u32 snd_cwnd_cnt;	/* linear increase counter */
	u32 snd_cwnd_clamp;	/* do not allow snd_cwnd to grow above this */
	u32 __gap_1788;
	u32 snd_cwnd_stamp;
	u8 __gap_1796[1808 - 1796];
	u32 delivered;		/* segments delivered (acked) */
	u8 __gap_1812[1848 - 1812];
	u32 rcv_wnd;		/* the window we offer */
	u32 write_seq;		/* tail+1 of data held in the send buffer */
	u8 __gap_1856[1864 - 1856];
	u32 lost_out;		/* segments marked lost (by a timeout: tcp_enter_loss) */
	u32 __gap_1868;
	ICSK_GAP(1872, 1936,
		struct sk_buff_head rtx_queue;	/* sent, not acked */
	)
	u8 __gap_1936[2120 - 1936];
	u32 high_seq;		/* snd_nxt at the onset of a loss */
	u8 __gap_2124[2136 - 2124];
	u64 bytes_retrans;	/* data bytes retransmitted */
	u32 total_retrans;	/* segments retransmitted over the connection */
	u8 __gap_2148[2280 - 2148];
};
/* the offsets of Debian 6.1's BTF (pahole -C tcp_sock on its vmlinux) */
_Static_assert(offsetof(struct tcp_sock, bytes_received) == 1448 && offsetof(struct tcp_sock, segs_in) == 1456 &&
	       offsetof(struct tcp_sock, data_segs_in) == 1460 && offsetof(struct tcp_sock, rcv_nxt) == 1464 &&
	       offsetof(struct tcp_sock, copied_seq) == 1468 && offsetof(struct tcp_sock, snd_nxt) == 1476 &&
	       offsetof(struct tcp_sock, segs_out) == 1480 && offsetof(struct tcp_sock, data_segs_out) == 1484 &&
	       offsetof(struct tcp_sock, bytes_sent) == 1488 && offsetof(struct tcp_sock, bytes_acked) == 1496 &&
	       offsetof(struct tcp_sock, snd_una) == 1508 && offsetof(struct tcp_sock, snd_wnd) == 1572 &&
	       offsetof(struct tcp_sock, mss_cache) == 1580 && offsetof(struct tcp_sock, tcp_clock_cache) == 1656 &&
	       offsetof(struct tcp_sock, tcp_mstamp) == 1664 && offsetof(struct tcp_sock, srtt_us) == 1672 &&
	       offsetof(struct tcp_sock, mdev_us) == 1676 && offsetof(struct tcp_sock, mdev_max_us) == 1680 &&
	       offsetof(struct tcp_sock, rttvar_us) == 1684 && offsetof(struct tcp_sock, rtt_seq) == 1688 &&
	       offsetof(struct tcp_sock, packets_out) == 1716 && offsetof(struct tcp_sock, retrans_out) == 1720 &&
	       offsetof(struct tcp_sock, max_packets_out) == 1724 && offsetof(struct tcp_sock, cwnd_usage_seq) == 1728 &&
	       offsetof(struct tcp_sock, snd_ssthresh) == 1772 && offsetof(struct tcp_sock, snd_cwnd) == 1776 &&
	       offsetof(struct tcp_sock, snd_cwnd_cnt) == 1780 && offsetof(struct tcp_sock, snd_cwnd_clamp) == 1784 &&
	       offsetof(struct tcp_sock, snd_cwnd_stamp) == 1792 && offsetof(struct tcp_sock, delivered) == 1808 &&
	       offsetof(struct tcp_sock, rcv_wnd) == 1848 && offsetof(struct tcp_sock, write_seq) == 1852 &&
	       offsetof(struct tcp_sock, lost_out) == 1864 &&
	       offsetof(struct tcp_sock, high_seq) == 2120 && offsetof(struct tcp_sock, bytes_retrans) == 2136 &&
	       offsetof(struct tcp_sock, total_retrans) == 2144 && sizeof(struct tcp_sock) == 2280,
	       "struct tcp_sock: the fields tools read at Debian 6.1's offsets");
static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk) { return (struct tcp_sock *)sk; }

/* include/net/tcp.h */
#define TCP_INIT_CWND		10
#define tcp_jiffies32		((u32)jiffies)
#define TCP_INFINITE_SSTHRESH	0x7fffffff
static __always_inline u32 tcp_snd_cwnd(const struct tcp_sock *tp) { return tp->snd_cwnd; }
static __always_inline void tcp_snd_cwnd_set(struct tcp_sock *tp, u32 val) { tp->snd_cwnd = val; }
void tcp_set_ca_state(struct sock *sk, const u8 ca_state);	/* tcp_cong.c */
static __always_inline bool tcp_in_slow_start(const struct tcp_sock *tp) { return tcp_snd_cwnd(tp) < tp->snd_ssthresh; }
/* include/net/tcp.h: the window is being reduced (CWR or Recovery) */
static __always_inline bool tcp_in_cwnd_reduction(const struct sock *sk)
{
	return ((1 << TCP_CA_CWR) | (1 << TCP_CA_Recovery)) & (1 << inet_csk(sk)->icsk_ca_state);
}
/* the slow start threshold as it stands: ssthresh during a reduction, else at least 3/4 cwnd */
static __always_inline u32 tcp_current_ssthresh(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (tcp_in_cwnd_reduction(sk))
		return tp->snd_ssthresh;
	return max(tp->snd_ssthresh, (tcp_snd_cwnd(tp) >> 1) + (tcp_snd_cwnd(tp) >> 2));
}
/* the segments in flight: sent, not acked, not marked lost, and the retransmissions (no SACK here) */
static __always_inline u32 tcp_packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - tp->lost_out + tp->retrans_out;
}
/* the TCP clock, in ns and us (tcp_clock_ns(), tcp_clock_us()) */
static __always_inline u64 tcp_clock_ns(void) { return ktime_get(); }
static __always_inline u64 tcp_clock_us(void) { return tcp_clock_ns() / 1000; }
void tcp_mstamp_refresh(struct tcp_sock *tp);
void tcp_synack_rtt_meas(struct sock *sk, struct request_sock *req);
void tcp_enter_loss(struct sock *sk);

/* what TCP keeps in skb->cb (include/net/tcp.h) */
struct tcp_skb_cb {
	u32 seq;
	u32 end_seq;
	u8 tcp_flags;
	u8 sacked;		/* the state of a sent segment: TCPCB_* */
	u32 ack_seq;
};
#define TCPCB_SACKED_RETRANS	0x02	/* retransmitted, the retransmission in flight */
#define TCPCB_LOST		0x04	/* marked lost (a timeout) */
#define TCPCB_EVER_RETRANS	0x80	/* retransmitted at some time: no RTT sample from its ack (Karn) */
#define TCP_SKB_CB(__skb) ((struct tcp_skb_cb *)&((__skb)->cb[0]))

#define TCP_TIMEOUT_INIT	((unsigned)(1 * HZ))	/* RFC6298 2.1 initial RTO value */
#define TCP_RTO_MAX		((unsigned)(120 * HZ))
#define TCP_RTO_MIN		((unsigned)(HZ / 5))
#define TCP_SYN_RETRIES		6
#define TCP_RETR2		15
#define TCP_MSS_DEFAULT		536U
#define TCP_MAX_WINDOW		65535

#define IP_MAX_MTU		0xFFFFU
/* the MSS of a path of this MTU: IP's and TCP's headers (no options) off an IP packet's at most */
static __always_inline u32 tcp_mss_for_mtu(const struct sock *sk, u32 mtu)
{
	return min(mtu, IP_MAX_MTU) - inet_csk(sk)->icsk_af_ops->net_header_len - sizeof(struct tcphdr);
}

struct tcp6_sock {
	struct tcp_sock tcp;
	struct ipv6_pinfo inet6;
};
struct udp6_sock {
	struct inet_sock inet;
	struct ipv6_pinfo inet6;
};
_Static_assert(offsetof(struct tcp6_sock, inet6) + sizeof(struct ipv6_pinfo) == sizeof(struct tcp6_sock) &&
	       offsetof(struct udp6_sock, inet6) + sizeof(struct ipv6_pinfo) == sizeof(struct udp6_sock),
	       "an AF_INET6 socket's ipv6_pinfo ends it");

extern struct proto tcp_prot;
extern const struct proto_ops inet_stream_ops;
extern struct proto udp_prot;
extern const struct proto_ops inet_dgram_ops;
extern struct proto tcpv6_prot, udpv6_prot;
extern const struct proto_ops inet6_stream_ops, inet6_dgram_ops;

/* ip_output.c / ip_input.c */
int ip_queue_xmit(struct sock *sk, struct sk_buff *skb);
int ip_build_and_send_pkt(struct sk_buff *skb, const struct sock *sk, __be32 saddr, __be32 daddr, u8 protocol);
int ip_rcv(struct sk_buff *skb, struct net_device *dev);

/* net/ipv6/ */
struct net;
/* ip6_dst_lookup_flow()'s answer for a packet from saddr (NULL: the socket's choice) to daddr:
 * the only route is the loopback's; an IPv4-mapped source has none to an IPv6 destination */
static __always_inline int ip6_route_check(const struct in6_addr *saddr, const struct in6_addr *daddr)
{
	if (!ipv6_addr_loopback(daddr))
		return -ENETUNREACH;
	if (saddr && ipv6_addr_v4mapped(saddr))
		return -EAFNOSUPPORT;
	return 0;
}
int inet6_hash(struct sock *sk);
int inet6_hash_connect(struct sock *sk);
int inet6_csk_xmit(struct sock *sk, struct sk_buff *skb);
int ipv6_setsockopt(struct sock *sk, int level, int optname, void *optval, unsigned int optlen);
int ipv6_getsockopt(struct sock *sk, int level, int optname, void *optval, int *optlen);
int tcp_setsockopt(struct sock *sk, int level, int optname, void *optval, unsigned int optlen);
int tcp_getsockopt(struct sock *sk, int level, int optname, void *optval, int *optlen);
struct sk_buff *ip6_make_skb(struct sock *sk, struct sk_buff *skb, const struct in6_addr *saddr,
			     const struct in6_addr *daddr);
int ip6_send_skb(struct sk_buff *skb);
/* af_inet.c's, which AF_INET6's ops share */
int inet_send_prepare(struct sock *sk);
/* inet_sendmsg's and inet6_sendmsg's: bound first, then the protocol's */
static __always_inline int inet_sendmsg_common(struct socket *sock, struct msghdr *msg, size_t size)
{
	struct sock *sk = sock->sk;

	if (unlikely(inet_send_prepare(sk)))
		return -EAGAIN;
	return sk->sk_prot->sendmsg(sk, msg, size);
}
/* inet_recvmsg's and inet6_recvmsg's: the protocol's, the source's length */
static __always_inline int inet_recvmsg_common(struct socket *sock, struct msghdr *msg, size_t size, int flags)
{
	struct sock *sk = sock->sk;
	int addr_len = 0, err;

	err = sk->sk_prot->recvmsg(sk, msg, size, flags, &addr_len);
	if (err >= 0)
		msg->msg_namelen = addr_len;
	return err;
}
struct inet_protosw {
	short type;
	u16 protocol;
	struct proto *prot;
	const struct proto_ops *ops;
};
void inet6_sock_destruct(struct sock *sk);
void inet_sock_destruct(struct sock *sk);
/*
 * inet_create's and inet6_create's work: the protocol of the socket's type from the family's
 * switch (6.1's inetsw), the sock (an AF_INET6 one's ipv6_pinfo at the end of it:
 * inet6_sk_generic()), the protocol's init.
 */
static __always_inline int inet_create_sock(struct socket *sock, int protocol, int kern, int family,
			     const struct inet_protosw *sw, int nsw)
{
	const struct inet_protosw *answer = NULL;
	struct inet_sock *inet;
	struct sock *sk;
	int i, err;

	sock->state = SS_UNCONNECTED;
	for (i = 0; i < nsw; i++)
		if (sw[i].type == sock->type)
			answer = &sw[i];
	if (!answer)
		return -ESOCKTNOSUPPORT;
	if (protocol && protocol != answer->protocol)
		return -EPROTONOSUPPORT;
	protocol = answer->protocol;
	sock->ops = answer->ops;
	sk = sk_alloc(family, GFP_KERNEL, answer->prot, kern);
	if (!sk)
		return -ENOBUFS;
	sock_init_data(sock, sk);
	sk->sk_destruct = family == AF_INET6 ? inet6_sock_destruct : inet_sock_destruct;
	sk->sk_protocol = protocol;
	sk->sk_backlog_rcv = answer->prot->backlog_rcv;
	inet = inet_sk(sk);
	inet->ttl = 64;
	inet->is_icsk = protocol == IPPROTO_TCP;	/* (tcp's switch entry: INET_PROTOSW_ICSK) */
	inet->mc_loop = 1;
	if (family == AF_INET6) {
		inet->pinet6 = (struct ipv6_pinfo *)((u8 *)sk + answer->prot->obj_size - sizeof(struct ipv6_pinfo));
		inet->pinet6->hop_limit = 64;
	}
	err = 0;
	if (answer->prot->init)
		err = answer->prot->init(sk);
	if (err) {
		sock->sk = NULL;
		sock_put(sk);
	}
	return err;
}

int inet_release(struct socket *sock);
int inet_listen(struct socket *sock, int backlog);
int inet_stream_connect(struct socket *sock, struct sockaddr *uaddr, int addr_len, int flags);
int inet_dgram_connect(struct socket *sock, struct sockaddr *uaddr, int addr_len, int flags);
int inet_accept(struct socket *sock, struct socket *newsock, int flags, bool kern);
int inet_shutdown(struct socket *sock, int how);
int ip6_xmit(const struct sock *sk, struct sk_buff *skb, const struct in6_addr *saddr,
	     const struct in6_addr *daddr, u8 proto);
int ipv6_rcv(struct sk_buff *skb, struct net_device *dev);
int tcp_v6_rcv(struct sk_buff *skb);
int udpv6_rcv(struct sk_buff *skb);
void inet6_init(void);

/* af_inet.c, inet_connection_sock.c, inet_hashtables.c (here in tcp_ipv4.c) */
void inet_sk_set_state(struct sock *sk, int state);
void inet_sk_state_store(struct sock *sk, int newstate);
int inet_csk_get_port(struct sock *sk, unsigned short snum);
int inet_csk_listen_start(struct sock *sk);
struct sock *inet_csk_accept(struct sock *sk, int flags, int *err, bool kern);
struct sock *inet_csk_clone_lock(const struct sock *sk, const struct request_sock *req, gfp_t priority);
void inet_csk_reqsk_queue_add(struct sock *sk, struct sock *child);
void inet_csk_listen_stop(struct sock *sk);
void inet_csk_destroy_sock(struct sock *sk);
int inet_hash(struct sock *sk);
bool inet_ehash_nolisten(struct sock *sk, struct sock *osk, bool *found_dup_sk);
void inet_unhash(struct sock *sk);
int inet_hash_connect(struct sock *sk);
struct sock *__inet_lookup_established(__be32 saddr, __be16 sport, __be32 daddr, u16 hnum);
struct sock *__inet_lookup_listener(__be32 daddr, u16 hnum);
struct sock *__inet6_lookup_established(const struct in6_addr *saddr, __be16 sport,
					const struct in6_addr *daddr, u16 hnum);
struct sock *inet6_lookup_listener(const struct in6_addr *daddr, u16 hnum);
struct sock *__udp6_lib_lookup(const struct in6_addr *daddr, u16 hnum);
int __inet_hash(struct sock *sk, struct sock *osk);
int __inet_hash_connect(struct sock *sk);
void inet_put_port(struct sock *sk);
int __inet_inherit_port(const struct sock *sk, struct sock *child);
void inet_init(void);

/* tcp*.c */
void tcp_set_state(struct sock *sk, int state);
void tcp_done(struct sock *sk);
int tcp_v4_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len);
int tcp_v4_rcv(struct sk_buff *skb);
int tcp_v4_do_rcv(struct sock *sk, struct sk_buff *skb);
int tcp_v4_conn_request(struct sock *sk, struct sk_buff *skb);
struct sock *tcp_v4_syn_recv_sock(const struct sock *sk, struct sk_buff *skb, struct request_sock *req);
void tcp_v4_send_reset(const struct sock *sk, struct sk_buff *skb);
int tcp_v4_send_synack(const struct sock *sk, struct request_sock *req);
int tcp_rcv_state_process(struct sock *sk, struct sk_buff *skb);
int tcp_init_sock(struct sock *sk);
int tcp_v4_init_sock(struct sock *sk);
void tcp_v4_destroy_sock(struct sock *sk);
/* a listener's requests, by family (6.1's tcp_request_sock_ops) */
struct tcp_request_sock_ops {
	void (*init_req)(struct request_sock *req, const struct sock *sk_listener, struct sk_buff *skb);
	int (*send_synack)(const struct sock *sk, struct request_sock *req);
};
int tcp_conn_request(const struct tcp_request_sock_ops *af_ops, struct sock *sk, struct sk_buff *skb);
struct request_sock *tcp_find_req(struct sock *sk, const struct sk_buff *skb);
struct sock *tcp_check_req(struct sock *sk, struct sk_buff *skb, struct request_sock *req);
int tcp_child_process(struct sock *parent, struct sock *child, struct sk_buff *skb);
struct sock *tcp_create_openreq_child(const struct sock *sk, struct request_sock *req, struct sk_buff *skb);
void tcp_push_header(struct sk_buff *skb, __be16 sport, __be16 dport, u32 seq, u32 ack, u8 flags, u16 window);
/* the window a listener's SYN-ACK offers, the child's first rcv_wnd (6.1: req->rsk_rcv_wnd, from
 * tcp_openreq_init_rwin()): its receive buffer, at most 64K (no scaling) */
static __always_inline u32 tcp_synack_window(const struct sock *listener)
{
	return listener->sk_rcvbuf < TCP_MAX_WINDOW ? listener->sk_rcvbuf : TCP_MAX_WINDOW;
}

/* a request's SYN-ACK, its TCP header on, for the family's send_synack (6.1: tcp_make_synack) */
static __always_inline struct sk_buff *tcp_synack_skb(const struct sock *sk, struct request_sock *req)
{
	struct sk_buff *skb = alloc_skb(MAX_HEADER, GFP_ATOMIC);
	int window = tcp_synack_window(sk);

	if (!skb)
		return NULL;
	skb_reserve(skb, MAX_HEADER);
	tcp_push_header(skb, htons(req->__req_common.skc_num), req->__req_common.skc_dport, req->snt_isn,
			req->rcv_isn + 1, TCPHDR_SYN | TCPHDR_ACK, window);
	if (!req->snt_synack)	/* the first SYN-ACK's time: the child's first RTT sample */
		req->snt_synack = tcp_clock_us();
	return skb;
}
void tcp_rcv_established(struct sock *sk, struct sk_buff *skb);
int tcp_connect(struct sock *sk);
void tcp_set_state(struct sock *sk, int state);
/* tcp_v4_connect's and tcp_v6_connect's end, the addresses set: SYN_SENT, a local port and the
 * established hash (the family's hash_connect), the SYN; a failure closes it again */
static __always_inline int tcp_connect_hashed(struct sock *sk, int (*hash_connect)(struct sock *sk))
{
	int err;

	tcp_set_state(sk, TCP_SYN_SENT);
	err = hash_connect(sk);
	if (!err) {
		tcp_sk(sk)->write_seq = (u32)get_random_u64();
		err = tcp_connect(sk);
	}
	if (err) {
		tcp_set_state(sk, TCP_CLOSE);
		inet_sk(sk)->inet_dport = 0;
	}
	return err;
}

/*
 * What tcp_v4_do_rcv and tcp_v6_do_rcv share (each with its family's reset): an established
 * connection's segment, a listener's (the ACK that completes a request, or a SYN, or a stray),
 * another state's; a segment refused is answered by a reset.
 */
static __always_inline int tcp_do_rcv_common(struct sock *sk, struct sk_buff *skb,
					     void (*send_reset)(const struct sock *sk, struct sk_buff *skb))
{
	struct sock *rsk = sk;
	int ret;

	if (sk->sk_state == TCP_ESTABLISHED) {
		tcp_rcv_established(sk, skb);
		return 0;
	}
	if (sk->sk_state == TCP_LISTEN) {
		struct request_sock *req = tcp_find_req(sk, skb);

		if (req && !(TCP_SKB_CB(skb)->tcp_flags & TCPHDR_SYN)) {
			struct sock *nsk = tcp_check_req(sk, skb, req);

			if (!nsk)
				goto reset;
			if (nsk == sk || !tcp_child_process(sk, nsk, skb))
				return 0;
			rsk = nsk;
			goto reset;
		}
	}
	ret = tcp_rcv_state_process(sk, skb);
	if (!ret)
		return 0;
reset:
	send_reset(rsk, skb);
	kfree_skb_reason(skb, SKB_DROP_REASON_TCP_FLAGS);
	return 0;
}

/* a segment came for the socket (include/net/tcp.h; its TCP header pulled: what is left is data) */
static __always_inline void tcp_segs_in(struct tcp_sock *tp, const struct sk_buff *skb)
{
	WRITE_ONCE(tp->segs_in, tp->segs_in + 1);	/* (no GRO here: one segment an skb) */
	if (skb->len)
		WRITE_ONCE(tp->data_segs_in, tp->data_segs_in + 1);
}

/* the segment's control block from its header (tcp_v4_fill_cb's, tcp_v6_fill_cb's) */
static __always_inline void tcp_fill_cb_common(struct sk_buff *skb, const struct tcphdr *th)
{
	struct tcp_skb_cb *tcb = TCP_SKB_CB(skb);

	tcb->seq = ntohl(th->seq);
	tcb->tcp_flags = ((const u8 *)th)[13];
	tcb->end_seq = tcb->seq + !!(tcb->tcp_flags & TCPHDR_SYN) + !!(tcb->tcp_flags & TCPHDR_FIN) + skb->len -
		       th->doff * 4;
	tcb->ack_seq = ntohl(th->ack_seq);
	tcb->sacked = 0;
}

/*
 * tcp_v4_rcv's and tcp_v6_rcv's work: the header checked, the socket by the family's lookup
 * (which fills the control block; a reference), none: a reset; then the segment to the socket
 * (the reference dropped here), at once, or onto the owner's backlog (tcp_add_backlog); a
 * listener's at once, also while its owner holds it, as 6.1's lockless listener does (its
 * requests and accept queue are under the spinlock here): on the backlog, the ACK completing a
 * request and the data right behind it would both wait for the listener, the data then
 * finding no request (a reset) where 6.1's lookup finds the child the ACK made.
 */
static __always_inline int tcp_rcv_common(struct sk_buff *skb,
					  struct sock *(*lookup)(struct sk_buff *skb, const struct tcphdr *th),
					  void (*send_reset)(const struct sock *sk, struct sk_buff *skb),
					  int (*do_rcv)(struct sock *sk, struct sk_buff *skb))
{
	enum skb_drop_reason drop_reason = SKB_DROP_REASON_PKT_TOO_SMALL;
	const struct tcphdr *th = (const struct tcphdr *)skb->data;
	unsigned int doff;
	struct sock *sk;

	if (skb->len < sizeof(struct tcphdr))
		goto discard_it;
	doff = th->doff * 4;
	if (doff < sizeof(struct tcphdr) || skb->len < doff)
		goto discard_it;
	sk = lookup(skb, th);
	if (!sk) {
		drop_reason = SKB_DROP_REASON_NO_SOCKET;
		send_reset(NULL, skb);
		goto discard_it;
	}
	skb_pull(skb, doff);
	bh_lock_sock(sk);
	if (sk->sk_state != TCP_LISTEN)
		tcp_segs_in(tcp_sk(sk), skb);
	drop_reason = SKB_NOT_DROPPED_YET;
	if (sk->sk_state == TCP_LISTEN || !sock_owned_by_user(sk))
		do_rcv(sk, skb);
	else if (sk_add_backlog(sk, skb, sk->sk_rcvbuf + sk->sk_sndbuf))
		drop_reason = SKB_DROP_REASON_SOCKET_BACKLOG;
	bh_unlock_sock(sk);
	sock_put(sk);
	if (!drop_reason)
		return 0;
discard_it:
	kfree_skb_reason(skb, drop_reason);
	return 0;
}
void tcp_rcv_established(struct sock *sk, struct sk_buff *skb);
void tcp_rcv_space_adjust(struct sock *sk);
int tcp_connect(struct sock *sk);
void tcp_send_ack(struct sock *sk);
void tcp_send_fin(struct sock *sk);
void tcp_send_active_reset(struct sock *sk, gfp_t priority);
void tcp_push(struct sock *sk);
void tcp_push_header(struct sk_buff *skb, __be16 sport, __be16 dport, u32 seq, u32 ack, u8 flags, u16 window);
void tcp_write_queue_purge(struct sock *sk);
void tcp_done_with_error(struct sock *sk, int err);
void sk_error_report(struct sock *sk);
int tcp_retransmit_skb(struct sock *sk, struct sk_buff *skb, int segs);
void tcp_init_xmit_timers(struct sock *sk);
void inet_csk_clear_xmit_timers(struct sock *sk);
/* (no pacing or compressed-ACK hrtimers to cancel first) */
static inline void tcp_clear_xmit_timers(struct sock *sk) { inet_csk_clear_xmit_timers(sk); }
void tcp_rearm_rto(struct sock *sk);
int tcp_sendmsg(struct sock *sk, struct msghdr *msg, size_t size);
int tcp_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *addr_len);
void tcp_close(struct sock *sk, long timeout);
void tcp_shutdown(struct sock *sk, int how);
int tcp_disconnect(struct sock *sk, int flags);

/* udp.c */
int udp_rcv(struct sk_buff *skb);
/* a datagram's source, for recvmsg (IPv4's, or IPv6's: udpv6_rcv) */
struct udp_skb_cb {
	__be32 saddr;
	__be16 sport;
	struct in6_addr saddr6;
};
#define UDP_SKB_CB(skb) ((struct udp_skb_cb *)&((skb)->cb[0]))
int udp_lib_get_port(struct sock *sk, unsigned short snum, unsigned int hash2_nulladdr);
int udp_queue_rcv_skb(struct sock *sk, struct sk_buff *skb);
int __udp_enqueue_schedule_skb(struct sock *sk, struct sk_buff *skb);
struct sk_buff *__skb_recv_udp(struct sock *sk, unsigned int flags, int *off, int *err);
void skb_consume_udp(struct sock *sk, struct sk_buff *skb, int len);
void udp_lib_unhash(struct sock *sk);
int udp_sendmsg(struct sock *sk, struct msghdr *msg, size_t len);
int udp_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *addr_len);
int __ip4_datagram_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len);

/* a datagram of len bytes of the message with its UDP header, the IP header's room in front
 * (udp_sendmsg's and udpv6_sendmsg's; 6.1 builds it in ip_make_skb / ip6_make_skb) */
static __always_inline struct sk_buff *udp_make_skb(struct sock *sk, struct msghdr *msg, size_t len, __be16 dport)
{
	struct sk_buff *skb = alloc_skb(MAX_HEADER + len, GFP_KERNEL);
	struct udphdr *uh;

	if (!skb)
		return ERR_PTR(-ENOBUFS);
	skb_reserve(skb, MAX_HEADER);
	if (copy_from_iter(skb_put(skb, len), len, &msg->msg_iter) != len) {
		__kfree_skb(skb);
		return ERR_PTR(-EFAULT);
	}
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = inet_sk(sk)->inet_sport;
	uh->dest = dport;
	uh->len = htons(skb->len);
	uh->check = 0;
	skb->sk = sk;
	return skb;
}

/* a datagram's UDP header, or NULL (the datagram dropped: shorter than it says) */
static __always_inline struct udphdr *udp_rcv_header(struct sk_buff *skb)
{
	struct udphdr *uh;
	unsigned int ulen;

	if (skb->len < sizeof(struct udphdr))
		goto short_packet;
	uh = (struct udphdr *)skb->data;
	ulen = ntohs(uh->len);
	if (ulen < sizeof(struct udphdr) || ulen > skb->len)
		goto short_packet;
	return uh;
short_packet:
	kfree_skb_reason(skb, SKB_DROP_REASON_PKT_TOO_SMALL);
	return NULL;
}

/* the next datagram, copied into the message (up to len: *copied), or NULL and *err
 * (udp_recvmsg's and udpv6_recvmsg's first part) */
static __always_inline struct sk_buff *udp_recv_copy(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *err,
				      size_t *copied)
{
	struct sk_buff *skb;
	int off = 0;

	skb = __skb_recv_udp(sk, flags, &off, err);
	if (!skb)
		return NULL;
	*copied = min((size_t)skb->len, len);
	if (skb_copy_datagram_iter(skb, 0, &msg->msg_iter, *copied)) {
		if (!(flags & MSG_PEEK))
			skb_consume_udp(sk, skb, 0);	/* (6.1 frees it: kfree_skb) */
		*err = -EFAULT;
		return NULL;
	}
	return skb;
}

/* one datagram for the socket (no encapsulation, filter or checksum to verify on loopback):
 * its UDP header pulled (udp_csum_pull_header), then queued (udp_queue_rcv_one_skb's and
 * udpv6_queue_rcv_one_skb's, with __udp_queue_rcv_skb's / __udpv6_queue_rcv_skb's drop) */
static __always_inline int udp_queue_rcv_one_skb_common(struct sock *sk, struct sk_buff *skb)
{
	unsigned int ulen = ntohs(((struct udphdr *)skb->data)->len);

	skb_pull(skb, sizeof(struct udphdr));
	skb->len = ulen - sizeof(struct udphdr);
	if (__udp_enqueue_schedule_skb(sk, skb) < 0) {
		kfree_skb_reason(skb, SKB_DROP_REASON_SOCKET_RCVBUFF);	/* -ENOMEM */
		return -1;
	}
	return 0;
}

/* __udp4_lib_rcv's and __udp6_lib_rcv's end: the datagram to the socket found (its reference
 * dropped here), none: a NO_SOCKET drop */
static __always_inline int udp_lib_rcv_to_sock(struct sock *sk, struct sk_buff *skb, struct udphdr *uh,
					       int (*unicast_rcv)(struct sock *sk, struct sk_buff *skb, struct udphdr *uh))
{
	if (!sk) {
		kfree_skb_reason(skb, SKB_DROP_REASON_NO_SOCKET);
		return 0;
	}
	unicast_rcv(sk, skb, uh);
	sock_put(sk);
	return 0;
}

/* udp_lib_close (inline): sk_common_release() */
static inline notrace void udp_lib_close(struct sock *sk, long timeout)	/* (an inline of udp.h whose address udp_prot takes: out of line, notrace, as 6.1's) */
{
	lock_sock(sk);	/* (the state and shutdown the model's readers see) */
	sk->sk_state = TCP_CLOSE;
	sk->sk_shutdown = SHUTDOWN_MASK;
	release_sock(sk);
	sk_common_release(sk);
}



/* af_unix.c */
void af_unix_init(void);
#endif
