"""The network in a session: with the default workload (node asking redis over TCP about
twice a second), `sock:inet_sock_set_state` and the packet events show within two seconds of
enabling them, printed as Linux 6.1 prints them."""

import os
import re
from pathlib import Path

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"
LIFE_UP = 150000  # nettest life's bytes from its client to its server (kernel_model/user/nettest.c)
P = r"([0-9a-f]{16}|\(____ptrval____\))"
STATE = r"TCP_[A-Z_12]+"
EVENTS = {
    # (a child going to SYN_RECV is its listener's copy: no peer yet, 0.0.0.0, as 6.1's)
    "sock/inet_sock_set_state": r"inet_sock_set_state: family=AF_INET protocol=IPPROTO_TCP sport=\d+ dport=\d+ "
                                r"saddr=127\.0\.0\.1 daddr=(127\.0\.0\.1|0\.0\.0\.0) saddrv6=::ffff:127\.0\.0\.1 "
                                r"daddrv6=::ffff:(127\.0\.0\.1|0\.0\.0\.0) oldstate=" + STATE + " newstate=" + STATE + "$",
    "net/net_dev_queue": r"net_dev_queue: dev=lo skbaddr=" + P + r" len=\d+$",
    "net/netif_receive_skb": r"netif_receive_skb: dev=lo skbaddr=" + P + r" len=\d+$",
    "napi/napi_poll": r"napi_poll: napi poll on napi struct " + P + r" for device \(no_device\) work \d+ budget 64$",
    "tcp/tcp_destroy_sock": r"tcp_destroy_sock: family=AF_INET sport=\d+ dport=\d+ saddr=127\.0\.0\.1 "
                            r"daddr=127\.0\.0\.1 saddrv6=::ffff:127\.0\.0\.1 daddrv6=::ffff:127\.0\.0\.1 "
                            r"sock_cookie=[0-9a-f]+$",
}


def test_the_services_traffic_shows_within_two_seconds():
    enable = "; ".join(f"echo 1 > {T}/events/{e}/enable" for e in EVENTS)
    result = tracefs_sim("run", "--workload", "default", "-c",
                         f"{enable}; sleep 2; echo 0 > {T}/tracing_on; cat {T}/trace", timeout=180)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if not line.startswith("#")]
    for event, text in EVENTS.items():
        name = event.split("/")[1]
        mine = [line for line in lines if f" {name}: " in line]
        assert mine, f"{event} did not fire"
        assert all(re.search(text, line) for line in mine), (event, [l for l in mine if not re.search(text, l)])
    # a connection to redis, from its start to its end
    transitions = re.findall(r"dport=6379 .* oldstate=(\w+) newstate=(\w+)", result.stdout)
    assert ("TCP_SYN_SENT", "TCP_ESTABLISHED") in transitions
    assert any(line for line in lines if " node-" in line and "newstate=TCP_SYN_SENT" in line)


def test_tcpretrans_recipe_shows_the_retransmissions():
    """perf-tools' tcpretrans (a kprobe on tcp_retransmit_skb) while nettest's sender outruns
    its reader: a line per retransmission, sent by the timer (the idle task's softirq, or any
    task the tick interrupted)."""
    script = Path(__file__).resolve().parents[2] / "mountpoint_scripts" / "session_tcpretrans.sh"
    result = tracefs_sim("run", "--workload", "none", str(script), timeout=180)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["TIME", "PID", "LADDR:LPORT", "--", "RADDR:RPORT", "STATE"]
    rows = lines[1:]
    assert rows and all(re.match(r"^\d\d:\d\d:\d\d \d+ +-:- +R> -:- +- *$", row) for row in rows), rows


def test_a_refused_connect_and_a_reset_report_their_errors():
    """nettest tcp connects to a port nobody listens on (the RST ends the SYN_SENT socket:
    ECONNREFUSED) and reads from a connection its peer reset (ECONNRESET): each socket's
    sk_error_report() shows as sock:inet_sk_error_report with the error."""
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"echo 1 > {T}/events/sock/inet_sk_error_report/enable; "
                         f"tracefs-sim exec nettest tcp > /dev/null; echo 0 > {T}/tracing_on; cat {T}/trace",
                         timeout=120)
    assert result.returncode == 0, result.stderr
    reports = [line for line in result.stdout.splitlines() if " inet_sk_error_report: " in line]
    # (the failed connect then disconnects the socket, tcp_disconnect's report: no peer port, its
    # source address forgotten, error 0, as the reference 6.1 shows for busybox nc's refused connect;
    # the reset arrives in the loopback's softirq, which runs in whichever task it interrupted)
    pattern = (r" \S+-\d+ .* inet_sk_error_report: family=AF_INET protocol=IPPROTO_TCP sport=\d+ dport=(\d+) "
               r"saddr=(127\.0\.0\.1|0\.0\.0\.0) daddr=127\.0\.0\.1 saddrv6=::ffff:(127\.0\.0\.1|0\.0\.0\.0) "
               r"daddrv6=::ffff:127\.0\.0\.1 error=(\d+)$")
    found = [re.search(pattern, line) for line in reports]
    assert found and all(found), reports
    errors = [m.group(4) for m in found if m]
    assert "111" in errors and "104" in errors, reports      # ECONNREFUSED, ECONNRESET
    assert any(m.group(1) == "0" and m.group(2) == "0.0.0.0" and m.group(4) == "0" for m in found), reports


@pytest.mark.parametrize("nettest, family, address", [("life", "AF_INET", r"127\.0\.0\.1"), ("life6", "AF_INET6", r"\[::1\]")])
def test_tcp_probe_follows_each_segment_of_a_connection(nettest, family, address):
    """tcp:tcp_probe (tcp_rcv_established) on each segment an established socket takes: its
    addresses and ports as sockaddrs (%pISpc: a v6 one bracketed), the data it carries, the
    congestion and receive windows; nettest's connection carries a known count up."""
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"echo 1 > {T}/events/tcp/tcp_probe/enable; tracefs-sim exec nettest {nettest} > /dev/null; "
                         f"echo 0 > {T}/tracing_on; cat {T}/trace", timeout=120)
    assert result.returncode == 0, result.stderr
    pattern = (rf" tcp_probe: family={family} src={address}:(\d+) dest={address}:(\d+) mark=0x0 data_len=(\d+) "
               r"snd_nxt=0x[0-9a-f]+ snd_una=0x[0-9a-f]+ snd_cwnd=(\d+) ssthresh=\d+ snd_wnd=\d+ srtt=\d+ "
               r"rcv_wnd=(\d+) sock_cookie=[0-9a-f]+$")
    probes = [m for m in (re.search(pattern, line) for line in result.stdout.splitlines()) if m]
    assert probes, result.stdout
    received: dict[tuple[str, str], int] = {}
    for m in probes:
        received[(m.group(1), m.group(2))] = received.get((m.group(1), m.group(2)), 0) + int(m.group(3))
        assert int(m.group(4)) > 0 and int(m.group(5)) > 0, m.group(0)
    # the server's socket took the client's bytes (LIFE_UP) established; the client, which had
    # shut its side down first, took only acks there: the server's bytes (LIFE_DOWN) came in
    # FIN_WAIT2, through tcp_rcv_state_process, where 6.1 has no tcp_probe
    assert sorted(received.values()) == [0, LIFE_UP], received
