"""The network (kernel_model/net/): sockets over the loopback, driven by the guest program
`nettest` (kernel_model/user/nettest.c), give in the emulated kernel what they give on this
Linux host: the same static binary runs on both and prints every call's result.  Then the
events the traffic produces (sock, tcp, net, napi, skb), recorded in the guest."""
import struct
import subprocess
from pathlib import Path

import pytest

from guest_events import EventCapture

NETTEST = Path(__file__).resolve().parents[2] / "kernel_model" / "build" / "user" / "nettest.elf"


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2)


def on_host(family: str) -> str:
    out = subprocess.run([str(NETTEST), family], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, timeout=120, check=True).stdout.decode()
    assert out.count("\n") > 5
    return out


@pytest.mark.parametrize("family", ["tcp", "slow", "busy", "unix", "udp", "tcp6", "udp6", "life", "life6", "sendfile", "ioctl"])
def test_a_family_gives_what_linux_gives(machine, run_program, family):
    expected = on_host(family)
    status, out = run_program(machine, ["nettest", family], timeout=120)
    assert status == 0
    assert out.decode().splitlines() == expected.splitlines()


NET_EVENTS = ("sock:inet_sock_set_state", "tcp:tcp_retransmit_skb", "tcp:tcp_send_reset", "tcp:tcp_receive_reset",
              "tcp:tcp_destroy_sock", "net:net_dev_queue", "net:net_dev_xmit", "net:netif_rx",
              "net:netif_receive_skb", "napi:napi_poll", "skb:kfree_skb", "skb:skb_copy_datagram_iovec",
              "tcp:tcp_rcv_space_adjust", "irq:softirq_raise")
TCP_ESTABLISHED, TCP_SYN_SENT, TCP_SYN_RECV, TCP_CLOSE, TCP_LISTEN = 1, 2, 3, 7, 10
NET_RX_SOFTIRQ = 3


def test_the_traffic_shows_in_the_events(machine, run_program):
    """nettest's connections, packets, the refused connect and the reset, as the sock, tcp,
    net, napi and skb events show them (whatever else runs: only nettest's ports count)."""
    cap = EventCapture(machine)
    cap.enable(*NET_EVENTS)
    status, _ = run_program(machine, ["nettest", "tcp"], timeout=120)
    assert status == 0
    recs = cap.records()
    by = lambda name: [r.fields for r in recs if r.event == name]
    states = by("sock:inet_sock_set_state")
    listen = [s for s in states if s["newstate"] == TCP_LISTEN]
    assert listen and all(s["protocol"] == 6 and s["family"] == 2 for s in states)
    port = listen[0]["sport"]
    assert port >= 32768 and bytes(listen[0]["saddr"]) == b"\x7f\0\0\1"
    mine = [(s["oldstate"], s["newstate"]) for s in states if port in (s["sport"], s["dport"])]
    # two connections: the client's side, the server's child, each established
    assert mine.count((TCP_SYN_SENT, TCP_ESTABLISHED)) == 2
    # (a child goes to SYN_RECV as a copy of its listener: LISTEN -> SYN_RECV, as 6.1's)
    assert mine.count((TCP_LISTEN, TCP_SYN_RECV)) == 2 and mine.count((TCP_SYN_RECV, TCP_ESTABLISHED)) == 2
    assert (TCP_LISTEN, TCP_CLOSE) in mine
    # the connect to a port nobody listens on: SYN_SENT, the reset, CLOSE
    refused = [s for s in states if s["dport"] == 1]
    assert [(s["oldstate"], s["newstate"]) for s in refused] == [(TCP_CLOSE, TCP_SYN_SENT), (TCP_SYN_SENT, TCP_CLOSE)]
    drops = by("skb:kfree_skb")
    assert any(d["reason"] == 2 for d in drops)  # SKB_DROP_REASON_NO_SOCKET: that SYN
    assert any(r["dport"] == 1 for r in by("tcp:tcp_receive_reset"))
    # the server closed with data unread: its reset, the client's receive of it
    assert any(r["sport"] == port for r in by("tcp:tcp_send_reset"))
    assert any(r["dport"] == port for r in by("tcp:tcp_receive_reset"))
    assert len([d for d in by("tcp:tcp_destroy_sock") if port in (d["sport"], d["dport"])]) >= 4
    # every packet through the loopback: queued, sent, received by the NET_RX softirq
    for name in ("net:net_dev_queue", "net:net_dev_xmit", "net:netif_rx", "net:netif_receive_skb"):
        assert all(bytes(r["name"]).rstrip(b"\0") == b"lo" for r in by(name)), name
        assert len(by(name)) > 20, name
    assert all(r["rc"] == 0 for r in by("net:net_dev_xmit"))
    assert any(r["vec"] == NET_RX_SOFTIRQ for r in by("irq:softirq_raise"))
    # what the readers copied: hello, world, 200000 bytes
    assert sum(r["len"] for r in by("skb:skb_copy_datagram_iovec")) >= 200010
    assert any(r["sport"] == port for r in by("tcp:tcp_rcv_space_adjust"))
    assert by("napi:napi_poll") and all(bytes(r["dev_name"]).rstrip(b"\0") == b"(no_device)"
                                        for r in by("napi:napi_poll"))


def _slow_receiver(machine, run_program, *events: str):
    """nettest slow with `events` (and the socket states) captured: its records, and the port
    its server listened on."""
    cap = EventCapture(machine)
    cap.enable(*events, "sock:inet_sock_set_state")
    status, out = run_program(machine, ["nettest", "slow"], timeout=120)
    assert status == 0 and b"data intact = 1" in out
    recs = cap.records()
    listen = [r.fields for r in recs if r.event == "sock:inet_sock_set_state" and r.fields["newstate"] == TCP_LISTEN]
    return recs, listen[-1]["sport"]


def test_what_a_full_receiver_dropped_is_retransmitted(machine, run_program):
    """nettest slow: the reader's buffer is full, the segment that did not fit is dropped
    (PROTO_MEM) and the sender's retransmission timer sends it again, until the reader reads."""
    recs, port = _slow_receiver(machine, run_program, "tcp:tcp_retransmit_skb", "skb:kfree_skb")
    retrans = [r.fields for r in recs if r.event == "tcp:tcp_retransmit_skb" and r.fields["dport"] == port]
    assert retrans and all(bytes(r["daddr"]) == b"\x7f\0\0\1" and r["family"] == 2 for r in retrans)
    assert any(r.event == "skb:kfree_skb" and r.fields["reason"] == 16 for r in recs)  # PROTO_MEM


def test_a_retransmission_timeout_enters_loss_and_the_ack_ends_it(machine, run_program):
    """nettest slow again: at each retransmission timeout the sender's congestion state goes to
    TCP_CA_Loss (tcp_enter_loss → tcp_set_ca_state: tcp:tcp_cong_state_set cong_state=4), and
    back to TCP_CA_Open (0) once what was in flight then is acked."""
    recs, port = _slow_receiver(machine, run_program, "tcp:tcp_cong_state_set", "tcp:tcp_retransmit_skb")
    states = [r.fields for r in recs if r.event == "tcp:tcp_cong_state_set" and r.fields["dport"] == port]
    assert states and all(bytes(s["daddr"]) == b"\x7f\0\0\1" and s["family"] == 2 for s in states)
    seq = [s["cong_state"] for s in states]
    assert 4 in seq and 0 in seq[seq.index(4):], seq
    # every Loss comes with a timeout's retransmission (the first segment sent again)
    retrans = [r for r in recs if r.event == "tcp:tcp_retransmit_skb" and r.fields["dport"] == port]
    assert len(retrans) >= seq.count(4)


AF_INET, AF_INET6 = 2, 10
LOOPBACK6 = bytes(15) + b"\1"
MAPPED_LOOPBACK = bytes(10) + b"\xff\xff\x7f\0\0\1"


def test_ipv6_traffic_shows_in_the_events(machine, run_program):
    """nettest tcp6: the sock and tcp events of an AF_INET6 socket carry family AF_INET6 and its
    IPv6 addresses in saddr_v6/daddr_v6 (its IPv4 fields 6.1's 127.0.0.6 where it sets them);
    a dual-stack socket's IPv4 connection shows its IPv4-mapped addresses."""
    cap = EventCapture(machine)
    cap.enable("sock:inet_sock_set_state", "tcp:tcp_send_reset", "tcp:tcp_receive_reset", "tcp:tcp_destroy_sock")
    status, out = run_program(machine, ["nettest", "tcp6"], timeout=120)
    assert status == 0 and b"data intact = 1" in out
    recs = cap.records()
    by = lambda name: [r.fields for r in recs if r.event == name]
    states = [s for s in by("sock:inet_sock_set_state") if s["family"] == AF_INET6]
    listen = [s for s in states if s["newstate"] == TCP_LISTEN]
    assert len(listen) == 3
    port = listen[0]["sport"]       # the listener on ::1
    assert bytes(listen[0]["saddr_v6"]) == LOOPBACK6 and bytes(listen[0]["saddr"]) == b"\x7f\0\0\6"
    mine = [s for s in states if port in (s["sport"], s["dport"])]
    assert all(bytes(s["saddr_v6"]) == LOOPBACK6 for s in mine)
    assert all(bytes(s["daddr_v6"]) == LOOPBACK6 for s in mine if TCP_LISTEN not in (s["oldstate"], s["newstate"]))
    # a child goes to SYN_RECV as its listener's copy (its addresses, no peer port), as 6.1's
    # (the reference: busybox nc over ::1 on 6.1); its own once ESTABLISHED, 127.0.0.6 its IPv4 ones
    child = [s for s in mine if (s["oldstate"], s["newstate"]) == (TCP_LISTEN, TCP_SYN_RECV)]
    assert len(child) == 1 and child[0]["dport"] == 0 and bytes(child[0]["daddr_v6"]) == bytes(16)
    est = [s for s in mine if (s["oldstate"], s["newstate"]) == (TCP_SYN_RECV, TCP_ESTABLISHED)]
    assert bytes(est[0]["saddr"]) == bytes(est[0]["daddr"]) == b"\x7f\0\0\6"
    connect = [s for s in mine if (s["oldstate"], s["newstate"]) == (TCP_CLOSE, TCP_SYN_SENT)]
    assert connect[0]["sport"] == 0 and bytes(connect[0]["saddr"]) == bytes(4)   # no port yet, as 6.1's
    pairs = [(s["oldstate"], s["newstate"]) for s in mine]
    assert pairs.count((TCP_SYN_SENT, TCP_ESTABLISHED)) == 1
    assert pairs.count((TCP_LISTEN, TCP_SYN_RECV)) == 1 and pairs.count((TCP_SYN_RECV, TCP_ESTABLISHED)) == 1
    # connect(no listener): a reset to [::1]:1
    refused = [s for s in states if s["dport"] == 1]
    assert [(s["oldstate"], s["newstate"]) for s in refused] == [(TCP_CLOSE, TCP_SYN_SENT), (TCP_SYN_SENT, TCP_CLOSE)]
    assert any(r["dport"] == 1 and r["family"] == AF_INET6 and bytes(r["daddr_v6"]) == LOOPBACK6
               for r in by("tcp:tcp_receive_reset"))
    assert any(r["family"] == AF_INET6 and r["sport"] == port for r in by("tcp:tcp_destroy_sock"))
    # the refused socket, disconnected by the failed connect: no peer port, its source forgotten,
    # its peer's address kept (6.1's: tcp_disconnect)
    refused_port = refused[0]["sport"] if refused[0]["sport"] else refused[1]["sport"]
    gone = [r for r in by("tcp:tcp_destroy_sock") if r["sport"] == refused_port and r["family"] == AF_INET6]
    assert gone and gone[0]["dport"] == 0 and bytes(gone[0]["saddr_v6"]) == bytes(16)
    assert bytes(gone[0]["daddr_v6"]) == LOOPBACK6
    # the dual-stack listener's IPv4 connections: IPv4-mapped v6 fields, the IPv4 ones as they are
    dual = listen[1]["sport"]
    mapped = [s for s in states if s["dport"] == dual and s["newstate"] == TCP_ESTABLISHED]
    # (the AF_INET6 clients: one to ::ffff:127.0.0.1, one to ::1)
    assert sorted(bytes(s["daddr_v6"]) for s in mapped) == [bytes(15) + b"\1", MAPPED_LOOPBACK]
    assert all(bytes(s["daddr"]) == b"\x7f\0\0\1" and bytes(s["saddr_v6"]) == MAPPED_LOOPBACK
               for s in mapped if bytes(s["daddr_v6"]) == MAPPED_LOOPBACK)
    children = [s for s in states if s["sport"] == dual and s["newstate"] == TCP_ESTABLISHED]
    assert len(children) == 3 and sum(bytes(s["daddr_v6"]) == MAPPED_LOOPBACK for s in children) == 2


# struct tcp_sock's fields at Debian 6.1's offsets (pahole -C tcp_sock on its vmlinux), which
# BCC's programs (compiled against Debian's 6.1 headers) read: name -> (offset, struct format)
TCP_SOCK_61 = {
    "skc_num": (14, "H"), "skc_family": (16, "H"), "skc_state": (18, "B"),
    "icsk_ca_state": (1280, "B"), "icsk_retransmits": (1281, "B"),
    "bytes_received": (1448, "Q"), "segs_in": (1456, "I"), "data_segs_in": (1460, "I"),
    "rcv_nxt": (1464, "I"), "copied_seq": (1468, "I"), "snd_nxt": (1476, "I"), "segs_out": (1480, "I"),
    "data_segs_out": (1484, "I"), "bytes_sent": (1488, "Q"), "bytes_acked": (1496, "Q"), "snd_una": (1508, "I"),
    "snd_wnd": (1572, "I"), "mss_cache": (1580, "I"), "srtt_us": (1672, "I"), "mdev_us": (1676, "I"),
    "rttvar_us": (1684, "I"), "packets_out": (1716, "I"), "retrans_out": (1720, "I"),
    "snd_ssthresh": (1772, "I"), "snd_cwnd": (1776, "I"), "delivered": (1808, "I"), "rcv_wnd": (1848, "I"),
    "write_seq": (1852, "I"), "lost_out": (1864, "I"), "bytes_retrans": (2136, "Q"), "total_retrans": (2144, "I"),
}
TCP_CA_OPEN = 0


def tcp_socks_at_destroy(machine, run_program, argv):
    """The fields of every TCP socket inet_csk_destroy_sock() frees while argv runs (its last
    look at them: a connection's counters are final), read from guest memory at 6.1's offsets."""
    seen = []

    def on_destroy(ctx):
        raw = ctx.read(ctx.reg("di"), 2280)
        if raw is not None:
            seen.append({name: struct.unpack_from("<" + fmt, raw, off)[0] for name, (off, fmt) in TCP_SOCK_61.items()})
    hook = machine.add_code_hook(machine.image.lookup("inet_csk_destroy_sock").addr, on_destroy)
    try:
        status, out = run_program(machine, argv, timeout=120)
    finally:
        machine.remove_code_hook(hook)
    assert status == 0, out
    return seen


@pytest.mark.parametrize("family", ["life", "life6"])
def test_tcp_sock_counts_a_connections_bytes_and_segments(machine, run_program, family):
    """nettest life: the client sends 150000 bytes and its FIN, the server 70000 and its FIN.
    tcp_sock's counters, where 6.1 has them, count as 6.1's (a real 6.1's TCP_INFO for the same
    program: client bytes_acked 150002 (its SYN and FIN too), bytes_received 70001 (their FIN);
    server 70001 and 150001): every segment in and out, those with data, the segments
    delivered, an RTT estimate from the acks' times (rttvar at least the 200 ms minimal RTO),
    the initial window of 10 (never the limit here), nothing lost or in flight at the end."""
    socks = tcp_socks_at_destroy(machine, run_program, ["nettest", family])
    fam = 10 if family == "life6" else 2
    listener = [s for s in socks if s["skc_family"] == fam and s["bytes_received"] == 0 and s["segs_in"] == 0]
    assert listener, socks
    port = listener[-1]["skc_num"]
    mine = [s for s in socks if s["skc_family"] == fam and s["segs_in"]]
    server = [s for s in mine if s["skc_num"] == port]
    client = [s for s in mine if s["skc_num"] != port and s["bytes_acked"] == 150002]
    assert len(server) == 1 and len(client) == 1, mine
    (server,), (client,) = server, client
    assert (client["bytes_acked"], client["bytes_received"], client["bytes_sent"]) == (150002, 70001, 150000)
    assert (server["bytes_acked"], server["bytes_received"], server["bytes_sent"]) == (70001, 150001, 70000)
    mss = client["mss_cache"]
    assert mss == server["mss_cache"] > 60000
    assert client["data_segs_out"] == server["data_segs_in"] == -(-150000 // mss)
    assert server["data_segs_out"] == client["data_segs_in"] == -(-70000 // mss)
    # client: SYN, data, FIN, an ACK of each of the server's data segments and of its FIN
    assert client["segs_out"] == server["segs_in"] - 1 + 1  # the server's count has our SYN in (segs_in = 1)
    assert client["segs_in"] == server["segs_out"] + 1  # the SYN-ACK is the request's, not the child's
    # delivered: the SYN (the client's; the server counts its SYN-ACK), the data segments, the FIN
    assert client["delivered"] == client["data_segs_out"] + 2
    assert server["delivered"] == server["data_segs_out"] + 2
    for s in (client, server):
        assert s["snd_una"] == s["snd_nxt"] == s["write_seq"]
        assert s["rcv_nxt"] - s["copied_seq"] == 1  # all read but the peer's FIN
        assert s["packets_out"] == s["retrans_out"] == s["lost_out"] == s["total_retrans"] == s["bytes_retrans"] == 0
        assert s["srtt_us"] >= 8 and s["rttvar_us"] >= 200000 and s["mdev_us"] > 0
        assert s["snd_cwnd"] == 10 and s["snd_ssthresh"] == 0x7FFFFFFF
        assert s["icsk_ca_state"] == TCP_CA_OPEN and s["icsk_retransmits"] == 0
        assert s["snd_wnd"] > 0 and s["rcv_wnd"] > 0


def test_tcp_sock_counts_a_loss(machine, run_program):
    """nettest slow: the segment the full reader dropped went again when the retransmission
    timer ran out: the sender's total_retrans and bytes_retrans count it, the timeout halved the
    slow start threshold (Reno's, from the window of 10: 5; tcp_enter_loss), and the loss was
    over once all was acked (TCP_CA_Open again, nothing in flight or lost)."""
    socks = tcp_socks_at_destroy(machine, run_program, ["nettest", "slow"])
    sender = [s for s in socks if s["skc_family"] == 2 and s["bytes_sent"] >= 65536]
    assert len(sender) == 1, socks
    (s,) = sender
    assert s["total_retrans"] >= 1 and s["bytes_retrans"] > 0
    assert s["bytes_sent"] == 65536 + s["bytes_retrans"]
    assert s["bytes_acked"] == 65536 + 2
    assert s["snd_ssthresh"] == 5
    assert s["icsk_ca_state"] == TCP_CA_OPEN
    assert s["packets_out"] == s["retrans_out"] == s["lost_out"] == 0


def test_sendfile_to_a_tcp_socket_goes_through_tcp_sendpage(machine, run_program):
    """nettest sendfile: a file's 10000 bytes to a connected TCP socket go as 6.1's do:
    sock_sendpage → kernel_sendpage → inet_sendpage → tcp_sendpage → tcp_sendpage_locked →
    do_tcp_sendpages, a page at a time (what BCC's tcptop probes, with tcp_sendmsg), and the
    peer reads them intact."""
    sent = []
    names = ("sock_sendpage", "kernel_sendpage", "inet_sendpage", "tcp_sendpage", "tcp_sendpage_locked",
             "do_tcp_sendpages")
    hooks = [machine.add_code_hook(machine.image.lookup(name).addr,
                                   lambda ctx, name=name: sent.append((name, ctx.reg("cx") if name == "tcp_sendpage"
                                                                       else None)))
             for name in names]
    try:
        status, out = run_program(machine, ["nettest", "sendfile"], timeout=120)
    finally:
        for hook in hooks:
            machine.remove_code_hook(hook)
    assert status == 0 and b"data intact = 1" in out, out
    assert {name for name, _ in sent} == set(names)
    # tcp_sendpage(sk, page, offset, size, flags): the sizes (cx) add up to the file's
    assert sum(size for name, size in sent if name == "tcp_sendpage") == 10000
