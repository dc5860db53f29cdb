/*
 * Socket filter programs (Linux's net/core/filter.c, BPF_PROG_TYPE_SOCKET_FILTER): what the
 * verifier lets them call and read.  Their context is struct __sk_buff, the program's view of
 * the sk_buff; bpf_convert_ctx_access() turns each read of it into loads from the kernel's.
 *
 * They load as on 6.1 (libbpf's feature probes are socket filters) but are not attached here
 * (no SO_ATTACH_BPF) nor run by BPF_PROG_TEST_RUN (no test_run: ENOTSUPP).  Of __sk_buff, the
 * fields this kernel's sk_buff holds are readable; the others (mark, priority, hash, tc_index,
 * ingress_ifindex, napi_id, gso_segs, gso_size, sk) and every write (cb[], mark, ...) are
 * refused as an invalid context access; the skb helpers (skb_load_bytes*, get_socket_cookie,
 * get_socket_uid, perf_event_output), skc_to_* casts and LD_ABS/LD_IND are absent.
 */
#include "../../include/bpf.h"
#include "../../include/net.h"
#include "../../include/cred.h"

/* bpf_sk_base_func_proto(): the base helpers and bpf_ktime_get_coarse_ns() (the skc_to_*
 * casts, with CAP_PERFMON on 6.1: absent here) */
noinline const struct bpf_func_proto *bpf_sk_base_func_proto(int func_id)
{
	if (func_id == BPF_FUNC_ktime_get_coarse_ns)
		return &bpf_ktime_get_coarse_ns_proto;
	return bpf_base_func_proto(func_id);
}

const struct bpf_func_proto *sk_filter_func_proto(int func_id, const struct bpf_prog *prog)
{
	return bpf_sk_base_func_proto(func_id);
}

#define ctx_off(field) offsetof(struct __sk_buff, field)
#define ctx_end(field) (offsetof(struct __sk_buff, field) + sizeof(((struct __sk_buff *)0)->field))

/* bpf_skb_is_valid_access() for a read (writes are refused before): a whole or narrow read of
 * a field this kernel holds */
static notrace bool bpf_skb_is_valid_access(int off, int size, enum bpf_access_type type,
					    const struct bpf_prog *prog, struct bpf_insn_access_aux *info)
{
	if (off < 0 || off >= (int)sizeof(struct __sk_buff))
		return false;
	if (off % size != 0)	/* (the verifier guarantees size > 0) */
		return false;
	if (off >= (int)ctx_off(cb) && off < (int)ctx_end(cb)) {
		if (off + size > (int)ctx_end(cb))
			return false;
	} else if (off >= (int)ctx_off(flow_keys) && off < (int)ctx_end(flow_keys)) {
		return false;
	} else if (off >= (int)ctx_off(tstamp_type) && off < (int)ctx_off(hwtstamp)) {
		return false;	/* tstamp_type, and the padding after it */
	}
	switch (off & ~3) {
	case ctx_off(len):
	case ctx_off(pkt_type):
	case ctx_off(queue_mapping):
	case ctx_off(protocol):
	case ctx_off(vlan_present):
	case ctx_off(vlan_tci):
	case ctx_off(vlan_proto):
	case ctx_off(ifindex):
	case ctx_off(cb[0]) ... ctx_off(cb[4]):
		break;
	default:	/* a field this kernel's sk_buff does not hold */
		return false;
	}
	info->ctx_field_size = sizeof(u32);	/* bpf_ctx_record_field_size() */
	return bpf_ctx_narrow_access_ok(off, size, sizeof(u32));
}

bool sk_filter_is_valid_access(int off, int size, enum bpf_access_type type, const struct bpf_prog *prog,
				     struct bpf_insn_access_aux *info)
{
	/* what a socket filter never reads: the tc, packet-pointer, socket-lookup and time fields */
	if ((off >= (int)ctx_off(tc_classid) && off < (int)ctx_end(tc_classid)) ||
	    (off >= (int)ctx_off(data) && off < (int)ctx_end(data_end)) ||
	    (off >= (int)ctx_off(family) && off < (int)ctx_end(local_port)) ||
	    (off >= (int)ctx_off(data_meta) && off < (int)ctx_end(data_meta)) ||
	    (off >= (int)ctx_off(tstamp) && off < (int)ctx_end(tstamp)) ||
	    (off >= (int)ctx_off(wire_len) && off < (int)ctx_end(wire_len)) ||
	    (off >= (int)ctx_off(hwtstamp) && off < (int)ctx_end(hwtstamp)))
		return false;
	if (type == BPF_WRITE)	/* 6.1 writes cb[] (converted stores): not here */
		return false;
	return bpf_skb_is_valid_access(off, size, type, prog, info);
}

#define LDX(sz, dst, src, o) ((struct bpf_insn){ .code = BPF_LDX | BPF_MEM | (sz), .dst_reg = (dst), .src_reg = (src), .off = (o) })
#define ALU32_K(op, dst, k) ((struct bpf_insn){ .code = BPF_ALU | (op) | BPF_K, .dst_reg = (dst), .imm = (k) })
#define JEQ_K(dst, k, o) ((struct bpf_insn){ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = (dst), .imm = (k), .off = (o) })

/* the loads from the sk_buff a read of an __sk_buff field becomes; *target_size: the size of
 * the kernel field read */
u32 bpf_convert_ctx_access(enum bpf_access_type type, const struct bpf_insn *si, struct bpf_insn *insn_buf,
			   struct bpf_prog *prog, u32 *target_size)
{
	struct bpf_insn *insn = insn_buf;
	u8 dst = si->dst_reg, src = si->src_reg;

	switch (si->off) {
	case ctx_off(len):
		*insn++ = LDX(BPF_W, dst, src, offsetof(struct sk_buff, len));
		*target_size = 4;
		break;
	case ctx_off(protocol):
		*insn++ = LDX(BPF_H, dst, src, offsetof(struct sk_buff, protocol));
		*target_size = 2;
		break;
	case ctx_off(vlan_proto):
		*insn++ = LDX(BPF_H, dst, src, offsetof(struct sk_buff, vlan_proto));
		*target_size = 2;
		break;
	case ctx_off(vlan_tci):
		*insn++ = LDX(BPF_H, dst, src, offsetof(struct sk_buff, vlan_tci));
		*target_size = 2;
		break;
	case ctx_off(queue_mapping):
		*insn++ = LDX(BPF_H, dst, src, offsetof(struct sk_buff, queue_mapping));
		*target_size = 2;
		break;
	case ctx_off(pkt_type):	/* the low 3 bits of its byte, as on 6.1 */
		*insn++ = LDX(BPF_B, dst, src, offsetof(struct sk_buff, __pkt_type_offset));
		*insn++ = ALU32_K(BPF_AND, dst, 7);
		*target_size = 1;
		break;
	case ctx_off(vlan_present):	/* a tag has a protocol here (6.1 keeps a bit) */
		*insn++ = LDX(BPF_H, dst, src, offsetof(struct sk_buff, vlan_proto));
		*insn++ = JEQ_K(dst, 0, 1);
		*insn++ = (struct bpf_insn){ .code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = dst, .imm = 1 };
		*target_size = 4;
		break;
	case ctx_off(ifindex):	/* skb->dev->ifindex, 0 without a device */
		*insn++ = LDX(BPF_DW, dst, src, offsetof(struct sk_buff, dev));
		*insn++ = JEQ_K(dst, 0, 1);
		*insn++ = LDX(BPF_W, dst, dst, offsetof(struct net_device, ifindex));
		*target_size = 4;
		break;
	case ctx_off(cb[0]) ... ctx_end(cb) - 1:	/* qdisc_skb_cb's data: after its 8 bytes */
		*insn++ = LDX(BPF_SIZE(si->code), dst, src, offsetof(struct sk_buff, cb) + 8 + si->off - ctx_off(cb[0]));
		*target_size = 4;
		break;
	}
	return insn - insn_buf;
}

const struct bpf_verifier_ops sk_filter_verifier_ops = {
	.get_func_proto = sk_filter_func_proto,
	.is_valid_access = sk_filter_is_valid_access,
	.convert_ctx_access = bpf_convert_ctx_access,
};
const struct bpf_prog_ops sk_filter_prog_ops = { };
