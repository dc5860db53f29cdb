/*
 * Connection sockets (Linux's net/ipv4/inet_connection_sock.c, with the port and lookup
 * tables of inet_hashtables.c): local ports (inet_csk_get_port, the ephemeral range of
 * net.ipv4.ip_local_port_range for connect), listening (inet_csk_listen_start), the accept
 * queue (inet_csk_reqsk_queue_add, inet_csk_accept), children (inet_csk_clone_lock), and the
 * tables the receive path looks sockets up in.
 */
#include "../../include/net.h"
#include "../../include/slab.h"

#define LOCAL_PORT_LOW	32768
#define LOCAL_PORT_HIGH	60999

static struct {
	spinlock_t lock;
	struct list_head ehash;		/* connections (not listening) */
	struct list_head lhash;		/* listeners */
	struct list_head bhash;		/* every socket with a local port */
} inet_hashinfo;

void __init inet_hashinfo_init(void)
{
	spin_lock_init(&inet_hashinfo.lock);
	INIT_LIST_HEAD(&inet_hashinfo.ehash);
	INIT_LIST_HEAD(&inet_hashinfo.lhash);
	INIT_LIST_HEAD(&inet_hashinfo.bhash);
}

static notrace void hashinfo_lock(void)
{
	local_bh_disable();
	spin_lock(&inet_hashinfo.lock);
}

static notrace void hashinfo_unlock(void)
{
	spin_unlock(&inet_hashinfo.lock);
	local_bh_enable();
}

/* ipv6_addr_type()'s answers that matter here */
#define IPV6_ADDR_ANY		0x0000U
#define IPV6_ADDR_UNICAST	0x0001U
#define IPV6_ADDR_MAPPED	0x1000U
static __always_inline int ipv6_addr_type(const struct in6_addr *a)
{
	if (ipv6_addr_any(a))
		return IPV6_ADDR_ANY;
	return ipv6_addr_v4mapped(a) ? IPV6_ADDR_MAPPED : IPV6_ADDR_UNICAST;
}

/* do an AF_INET6 socket's local address and another's overlap (sk2_rcv_saddr6 NULL: sk2 is an
 * AF_INET one); IPv4-mapped addresses compare as IPv4's */
static noinline bool ipv6_rcv_saddr_equal(const struct in6_addr *sk1_rcv_saddr6, const struct in6_addr *sk2_rcv_saddr6,
					  __be32 sk1_rcv_saddr, __be32 sk2_rcv_saddr, bool sk1_ipv6only,
					  bool sk2_ipv6only, bool match_sk1_wildcard, bool match_sk2_wildcard)
{
	int addr_type = ipv6_addr_type(sk1_rcv_saddr6);
	int addr_type2 = sk2_rcv_saddr6 ? ipv6_addr_type(sk2_rcv_saddr6) : IPV6_ADDR_MAPPED;

	/* if both are mapped, treat as IPv4 */
	if (addr_type == IPV6_ADDR_MAPPED && addr_type2 == IPV6_ADDR_MAPPED) {
		if (!sk2_ipv6only) {
			if (sk1_rcv_saddr == sk2_rcv_saddr)
				return true;
			return (match_sk1_wildcard && !sk1_rcv_saddr) || (match_sk2_wildcard && !sk2_rcv_saddr);
		}
		return false;
	}
	if (addr_type == IPV6_ADDR_ANY && addr_type2 == IPV6_ADDR_ANY)
		return true;
	if (addr_type2 == IPV6_ADDR_ANY && match_sk2_wildcard && !(sk2_ipv6only && addr_type == IPV6_ADDR_MAPPED))
		return true;
	if (addr_type == IPV6_ADDR_ANY && match_sk1_wildcard && !(sk1_ipv6only && addr_type2 == IPV6_ADDR_MAPPED))
		return true;
	return sk2_rcv_saddr6 && ipv6_addr_equal(sk1_rcv_saddr6, sk2_rcv_saddr6);
}

static inline notrace bool ipv4_rcv_saddr_equal(__be32 sk1_rcv_saddr, __be32 sk2_rcv_saddr, bool sk2_ipv6only,
					  bool match_sk1_wildcard, bool match_sk2_wildcard)
{
	if (!sk2_ipv6only) {
		if (sk1_rcv_saddr == sk2_rcv_saddr)
			return true;
		return (match_sk1_wildcard && !sk1_rcv_saddr) || (match_sk2_wildcard && !sk2_rcv_saddr);
	}
	return false;
}

/* do the two sockets' local addresses overlap */
noinline bool inet_rcv_saddr_equal(const struct sock *sk, const struct sock *sk2, bool match_wildcard)
{
	if (sk->sk_family == AF_INET6)
		return ipv6_rcv_saddr_equal(&sk->sk_v6_rcv_saddr,
					    sk2->sk_family == AF_INET6 ? &sk2->sk_v6_rcv_saddr : NULL,
					    sk->sk_rcv_saddr, sk2->sk_rcv_saddr, ipv6_only_sock(sk),
					    ipv6_only_sock(sk2), match_wildcard, match_wildcard);
	return ipv4_rcv_saddr_equal(sk->sk_rcv_saddr, sk2->sk_rcv_saddr, ipv6_only_sock(sk2), match_wildcard,
				    match_wildcard);
}

/* two sockets on one port conflict unless both said SO_REUSEADDR and the other is not listening */
static noinline bool inet_bind_conflict(const struct sock *sk, const struct sock *sk2, bool relax)
{
	if (!inet_rcv_saddr_equal(sk, sk2, true))
		return false;
	if (relax && sk->sk_reuse && sk2->sk_reuse && sk2->sk_state != TCP_LISTEN)
		return false;
	return true;
}

static notrace bool port_in_use(const struct sock *sk, u16 port, bool relax)
{
	struct sock *sk2;

	list_for_each_entry(sk2, &inet_hashinfo.bhash, __sk_common.skc_bind_node)
		if (sk2 != sk && sk2->sk_num == port && sk2->sk_protocol == sk->sk_protocol &&
		    inet_bind_conflict(sk, sk2, relax))
			return true;
	return false;
}

noinline void inet_bind_hash(struct sock *sk, u16 port)
{
	inet_sk(sk)->inet_num = port;
	list_add_tail(&sk->__sk_common.skc_bind_node, &inet_hashinfo.bhash);
}

/* 0, or 1 when the port is taken; 0 asks for a free one */
noinline int inet_csk_get_port(struct sock *sk, unsigned short snum)
{
	int ret = 1;

	hashinfo_lock();
	if (!snum) {
		u32 range = LOCAL_PORT_HIGH - LOCAL_PORT_LOW + 1, i;
		u32 offset = (u32)get_random_u64() % range;

		for (i = 0; i < range; i++) {
			u16 port = LOCAL_PORT_LOW + (offset + i) % range;

			if (!port_in_use(sk, port, false)) {
				snum = port;
				break;
			}
		}
		if (!snum)
			goto out;
	} else if (port_in_use(sk, snum, true)) {
		goto out;
	}
	inet_bind_hash(sk, snum);
	ret = 0;
out:
	hashinfo_unlock();
	return ret;
}

/* a child takes its listener's port */
noinline int __inet_inherit_port(const struct sock *sk, struct sock *child)
{
	hashinfo_lock();
	inet_bind_hash(child, sk->sk_num);
	hashinfo_unlock();
	return 0;
}

noinline void inet_put_port(struct sock *sk)
{
	hashinfo_lock();
	if (sk->__sk_common.skc_bind_node.next) {
		list_del_init(&sk->__sk_common.skc_bind_node);
		sk->__sk_common.skc_bind_node.next = NULL;
	}
	hashinfo_unlock();
}

/* a listener into the listening hash (held by it here) */
noinline int __inet_hash(struct sock *sk, struct sock *osk)
{
	hashinfo_lock();
	sock_hold(sk);
	list_add_tail(&sk->sk_node, &inet_hashinfo.lhash);
	hashinfo_unlock();
	return 0;
}

noinline int inet_hash(struct sock *sk)
{
	int err = 0;

	if (sk->sk_state != TCP_CLOSE)
		err = __inet_hash(sk, NULL);
	return err;
}

/* a connection into the established hash, in the place of osk (none here: no timewait) */
noinline bool inet_ehash_insert(struct sock *sk, struct sock *osk, bool *found_dup_sk)
{
	hashinfo_lock();
	sock_hold(sk);
	list_add_tail(&sk->sk_node, &inet_hashinfo.ehash);
	hashinfo_unlock();
	return true;
}

noinline bool inet_ehash_nolisten(struct sock *sk, struct sock *osk, bool *found_dup_sk)
{
	return inet_ehash_insert(sk, osk, found_dup_sk);	/* (no per-protocol in-use counts) */
}

noinline void inet_unhash(struct sock *sk)
{
	bool hashed;

	hashinfo_lock();
	hashed = sk->sk_node.next != NULL;
	if (hashed) {
		list_del_init(&sk->sk_node);
		sk->sk_node.next = NULL;
	}
	hashinfo_unlock();
	if (hashed)
		sock_put(sk);
}

/* connect: a free local port whose 4-tuple no connection has, then hashed */
noinline int __inet_hash_connect(struct sock *sk)
{
	int err = 0;

	if (!inet_sk(sk)->inet_num)
		err = inet_csk_get_port(sk, 0) ? -EADDRNOTAVAIL : 0;
	if (err)
		return err;
	inet_sk(sk)->inet_sport = htons(inet_sk(sk)->inet_num);
	inet_ehash_nolisten(sk, NULL, NULL);
	return 0;
}

noinline int inet_hash_connect(struct sock *sk)
{
	return __inet_hash_connect(sk);
}

/* an IPv4 packet's socket: an AF_INET one, or an AF_INET6 one's IPv4-mapped connection */
static notrace bool inet_v4_sock(const struct sock *sk)
{
	return sk->sk_family == AF_INET || ipv6_addr_v4mapped(&sk->sk_v6_daddr);
}

/* with a reference, or NULL */
noinline struct sock *__inet_lookup_established(__be32 saddr, __be16 sport, __be32 daddr, u16 hnum)
{
	struct sock *sk, *found = NULL;

	spin_lock(&inet_hashinfo.lock);
	list_for_each_entry(sk, &inet_hashinfo.ehash, sk_node)
		if (sk->sk_daddr == saddr && sk->sk_dport == sport && sk->sk_rcv_saddr == daddr &&
		    sk->sk_num == hnum && inet_v4_sock(sk)) {
			found = sk;
			sock_hold(sk);
			break;
		}
	spin_unlock(&inet_hashinfo.lock);
	return found;
}

/*
 * The best-scoring socket of a table (the listeners, or the bound sockets of a protocol), with a
 * reference, or NULL: compute_score() of inet_hashtables.c, inet6_hashtables.c and udp.c.
 */
static __always_inline struct sock *inet_lookup_best(struct list_head *head, bool bind_list, int protocol,
					     int (*score)(const struct sock *sk, const void *daddr, u16 hnum),
					     const void *daddr, u16 hnum)
{
	size_t node = bind_list ? offsetof(struct sock, __sk_common.skc_bind_node) : offsetof(struct sock, sk_node);
	struct sock *sk, *found = NULL;
	struct list_head *pos;
	int best = -1, sc;

	spin_lock(&inet_hashinfo.lock);
	for (pos = head->next; pos != head; pos = pos->next) {
		sk = (struct sock *)((u8 *)pos - node);
		if (bind_list && sk->sk_protocol != protocol)
			continue;
		sc = score(sk, daddr, hnum);
		if (sc > best) {
			found = sk;
			best = sc;
		}
	}
	if (found)
		sock_hold(found);
	spin_unlock(&inet_hashinfo.lock);
	return found;
}

/* an IPv4 packet's: an IPv4 socket scores above a dual-stack AF_INET6 one, a bound address
 * above the any address; an IPV6_V6ONLY socket takes no IPv4 */
static notrace int inet_score(const struct sock *sk, const void *daddr, u16 hnum)
{
	int score;

	if (sk->sk_num != hnum || (sk->sk_family == AF_INET6 && ipv6_only_sock(sk)))
		return -1;
	score = sk->sk_family == AF_INET ? 2 : 1;
	if (sk->sk_rcv_saddr) {
		if (sk->sk_rcv_saddr != *(const __be32 *)daddr)
			return -1;
		score += 4;
	}
	return score;
}

/* an IPv6 packet's: AF_INET6 sockets, a bound address above the any address */
static notrace int inet6_score(const struct sock *sk, const void *daddr, u16 hnum)
{
	if (sk->sk_family != AF_INET6 || sk->sk_num != hnum)
		return -1;
	if (ipv6_addr_any(&sk->sk_v6_rcv_saddr))
		return 1;
	return ipv6_addr_equal(&sk->sk_v6_rcv_saddr, daddr) ? 2 : -1;
}

noinline struct sock *__inet_lookup_listener(__be32 daddr, u16 hnum)
{
	return inet_lookup_best(&inet_hashinfo.lhash, false, IPPROTO_TCP, inet_score, &daddr, hnum);
}

/* udp.c: the UDP socket bound to a local port (and address), with a reference */
noinline struct sock *__udp4_lib_lookup(__be32 daddr, u16 hnum)
{
	return inet_lookup_best(&inet_hashinfo.bhash, true, IPPROTO_UDP, inet_score, &daddr, hnum);
}

/* net/ipv6/inet6_hashtables.c: an IPv6 packet's connection, listener; udp.c's socket */
noinline struct sock *__inet6_lookup_established(const struct in6_addr *saddr, __be16 sport,
						 const struct in6_addr *daddr, u16 hnum)
{
	struct sock *sk, *found = NULL;

	spin_lock(&inet_hashinfo.lock);
	list_for_each_entry(sk, &inet_hashinfo.ehash, sk_node)
		if (sk->sk_family == AF_INET6 && sk->sk_dport == sport && sk->sk_num == hnum &&
		    ipv6_addr_equal(&sk->sk_v6_daddr, saddr) && ipv6_addr_equal(&sk->sk_v6_rcv_saddr, daddr)) {
			found = sk;
			sock_hold(sk);
			break;
		}
	spin_unlock(&inet_hashinfo.lock);
	return found;
}

noinline struct sock *inet6_lookup_listener(const struct in6_addr *daddr, u16 hnum)
{
	return inet_lookup_best(&inet_hashinfo.lhash, false, IPPROTO_TCP, inet6_score, daddr, hnum);
}

noinline struct sock *__udp6_lib_lookup(const struct in6_addr *daddr, u16 hnum)
{
	return inet_lookup_best(&inet_hashinfo.bhash, true, IPPROTO_UDP, inet6_score, daddr, hnum);
}

/* net/core/request_sock.c: the listener's accept queue, empty */
noinline void reqsk_queue_alloc(struct request_sock_queue *queue)
{
	queue->syn_head = NULL;
	queue->rskq_accept_head = queue->rskq_accept_tail = NULL;
	queue->qlen = 0;
}

noinline int inet_csk_listen_start(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct inet_sock *inet = inet_sk(sk);

	reqsk_queue_alloc(&icsk->icsk_accept_queue);
	sk->sk_ack_backlog = 0;
	inet_sk_state_store(sk, TCP_LISTEN);
	if (!inet->inet_num && inet_csk_get_port(sk, 0)) {
		inet_sk_set_state(sk, TCP_CLOSE);
		return -EADDRINUSE;
	}
	inet->inet_sport = htons(inet->inet_num);
	sk->sk_prot->hash(sk);
	return 0;
}

/* softirq, the listener's lock held: a child to accept */
noinline void inet_csk_reqsk_queue_add(struct sock *sk, struct sock *child)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	inet_csk(child)->icsk_accept_next = NULL;
	if (!icsk->icsk_accept_queue.rskq_accept_head)
		icsk->icsk_accept_queue.rskq_accept_head = child;
	else
		inet_csk(icsk->icsk_accept_queue.rskq_accept_tail)->icsk_accept_next = child;
	icsk->icsk_accept_queue.rskq_accept_tail = child;
	sk->sk_ack_backlog++;
}

static notrace struct sock *reqsk_queue_remove(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct sock *child;

	local_bh_disable();
	spin_lock(&sk->sk_lock.slock);
	child = icsk->icsk_accept_queue.rskq_accept_head;
	if (child) {
		icsk->icsk_accept_queue.rskq_accept_head = inet_csk(child)->icsk_accept_next;
		if (!icsk->icsk_accept_queue.rskq_accept_head)
			icsk->icsk_accept_queue.rskq_accept_tail = NULL;
		sk->sk_ack_backlog--;
	}
	spin_unlock(&sk->sk_lock.slock);
	local_bh_enable();
	return child;
}

noinline struct sock *inet_csk_accept(struct sock *sk, int flags, int *err, bool kern)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct sock *newsk = NULL;
	int error;

	lock_sock(sk);
	error = -EINVAL;
	if (sk->sk_state != TCP_LISTEN)
		goto out_err;
	while (!READ_ONCE(icsk->icsk_accept_queue.rskq_accept_head)) {
		error = -EAGAIN;
		if (flags & O_NONBLOCK)
			goto out_err;
		/* inet_csk_wait_for_connect() */
		if (sk_wait_event(sk, READ_ONCE(icsk->icsk_accept_queue.rskq_accept_head) ||
				      READ_ONCE(sk->sk_state) != TCP_LISTEN)) {
			error = -ERESTARTSYS;
			goto out_err;
		}
		error = -EINVAL;
		if (sk->sk_state != TCP_LISTEN)
			goto out_err;
	}
	newsk = reqsk_queue_remove(sk);
	release_sock(sk);
	return newsk;
out_err:
	release_sock(sk);
	*err = error;
	return NULL;
}

/* a child of the listener for a request: its addresses, ports, state SYN_RECV */
noinline struct sock *inet_csk_clone_lock(const struct sock *sk, const struct request_sock *req, gfp_t priority)
{
	struct sock *newsk = sk_alloc(sk->sk_family, priority, sk->sk_prot, 0);
	struct inet_sock *newinet;

	if (!newsk)
		return NULL;
	sock_init_data(NULL, newsk);
	if (sk->sk_prot->init)
		sk->sk_prot->init(newsk);
	newsk->sk_type = sk->sk_type;
	newsk->sk_protocol = sk->sk_protocol;
	newsk->sk_backlog_rcv = sk->sk_backlog_rcv;
	newsk->sk_rcvbuf = sk->sk_rcvbuf;
	newsk->sk_sndbuf = sk->sk_sndbuf;
	newsk->sk_wq = NULL;
	/* sk_clone_lock()'s copy of the listener: its addresses, ports and state are the child's
	 * when it goes to SYN_RECV (sock:inet_sock_set_state shows LISTEN -> SYN_RECV with them, as
	 * 6.1's); the request's come after */
	newsk->__sk_common.skc_addrpair = sk->__sk_common.skc_addrpair;
	newsk->__sk_common.skc_portpair = sk->__sk_common.skc_portpair;
	newsk->sk_v6_daddr = sk->sk_v6_daddr;
	newsk->sk_v6_rcv_saddr = sk->sk_v6_rcv_saddr;
	inet_sk(newsk)->inet_saddr = inet_sk(sk)->inet_saddr;
	inet_sk(newsk)->inet_sport = inet_sk(sk)->inet_sport;
	newsk->sk_state = sk->sk_state;
	inet_sk_set_state(newsk, TCP_SYN_RECV);
	newsk->__sk_common.skc_daddr = req->__req_common.skc_daddr;
	newsk->__sk_common.skc_rcv_saddr = req->__req_common.skc_rcv_saddr;
	newsk->sk_v6_daddr = req->__req_common.skc_v6_daddr;
	newsk->sk_v6_rcv_saddr = req->__req_common.skc_v6_rcv_saddr;
	newsk->__sk_common.skc_dport = req->__req_common.skc_dport;
	newsk->__sk_common.skc_num = req->__req_common.skc_num;
	newinet = inet_sk(newsk);
	newinet->inet_saddr = req->__req_common.skc_rcv_saddr;
	newinet->inet_sport = htons(req->__req_common.skc_num);
	newinet->ttl = 64;
	newinet->is_icsk = 1;	/* (sk_clone_lock()'s copy of the listener's bits) */
	newinet->mc_loop = 1;
	security_inet_csk_clone(newsk, req);
	return newsk;
}

/* an orphan whose connection ended: timers off, queues purged, the last reference dropped */
/* net/core/stream.c: what an orphan still had queued to read */
noinline void sk_stream_kill_queues(struct sock *sk)
{
	skb_queue_purge(&sk->sk_receive_queue);
}

noinline void inet_csk_destroy_sock(struct sock *sk)
{
	if (sk->sk_prot->destroy)
		sk->sk_prot->destroy(sk);
	sk_stream_kill_queues(sk);
	inet_put_port(sk);
	sock_put(sk);
}

/* close of a listener: its embryos and unaccepted children go */
noinline void inet_csk_listen_stop(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct request_sock *req;
	struct sock *child;

	while ((child = reqsk_queue_remove(sk)) != NULL) {
		lock_sock(child);
		tcp_send_active_reset(child, GFP_ATOMIC);
		tcp_set_state(child, TCP_CLOSE);
		sock_set_flag(child, SOCK_DEAD);
		release_sock(child);
		inet_csk_destroy_sock(child);
	}
	local_bh_disable();
	spin_lock(&sk->sk_lock.slock);
	req = icsk->icsk_accept_queue.syn_head;
	icsk->icsk_accept_queue.syn_head = NULL;
	icsk->icsk_accept_queue.qlen = 0;
	spin_unlock(&sk->sk_lock.slock);
	local_bh_enable();
	while (req) {
		struct request_sock *next = req->dl_next;

		kfree(req);
		req = next;
	}
}
