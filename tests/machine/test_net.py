"""The network (kernel_model/net/): sockets over the loopback, driven by the guest program
`nettest` (kernel_model/user/nettest.c), give in the emulated kernel what they give on this
Linux host: the same static binary runs on both and prints every call's result.  Then the
events the traffic produces (sock, tcp, net, napi, skb), recorded in the guest."""
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


@pytest.mark.parametrize("family", ["tcp", "slow", "busy", "unix", "udp", "tcp6", "udp6"])
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


def test_what_a_full_receiver_dropped_is_retransmitted(machine, run_program):
    """nettest slow: the reader's buffer is full, the segment that did not fit is dropped
    (PROTO_MEM) and the sender's retransmission timer sends it again, until the reader reads."""
    cap = EventCapture(machine)
    cap.enable("tcp:tcp_retransmit_skb", "skb:kfree_skb", "sock:inet_sock_set_state")
    status, out = run_program(machine, ["nettest", "slow"], timeout=120)
    assert status == 0 and b"data intact = 1" in out
    recs = cap.records()
    listen = [r.fields for r in recs if r.event == "sock:inet_sock_set_state" and r.fields["newstate"] == TCP_LISTEN]
    port = listen[-1]["sport"]
    retrans = [r.fields for r in recs if r.event == "tcp:tcp_retransmit_skb" and r.fields["dport"] == port]
    assert retrans and all(bytes(r["daddr"]) == b"\x7f\0\0\1" and r["family"] == 2 for r in retrans)
    assert any(r.event == "skb:kfree_skb" and r.fields["reason"] == 16 for r in recs)  # PROTO_MEM


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
