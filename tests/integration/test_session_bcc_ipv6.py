"""BCC's TCP tools that attach to IPv6's functions unconditionally (tcp_v6_connect...) run in a
session and show an IPv6 connection over ::1: a guest program's (nettest tcp6, run with
`tracefs-sim exec`: a session process's own sockets are the host's, not the emulated kernel's)."""

import re
import shutil
from pathlib import Path

import pytest
from test_session_bcc import bcc_while, pytestmark  # noqa: F401  (the same conditions)
from test_session_bpftrace import bpftrace_while

NETTEST = "tracefs-sim exec nettest tcp6 >/dev/null"


def test_tcpconnect_shows_an_ipv6_connect(tmp_path: Path):
    """tcpconnect: kprobes on tcp_v4_connect and tcp_v6_connect, their kretprobes read the sock's
    skc_v6_rcv_saddr/skc_v6_daddr at Debian 6.1's offsets: nettest's connect to [::1]:PORT is an
    IPv6 line from ::1 to ::1; its connect to ::ffff:127.0.0.1 goes through tcp_v4_connect, an
    IPv4 line, as on 6.1."""
    out = bcc_while(tmp_path, "tcpconnect-bpfcc", NETTEST, interrupt=True)
    v6 = re.findall(r"^\s*\d+\s+nettest\s+6\s+::1\s+::1\s+(\d+)\s*$", out, re.M)
    # the listener's ephemeral port, and port 1 (the connect nobody listens for)
    assert "1" in v6 and any(int(port) >= 32768 for port in v6), out
    assert re.search(r"^\s*\d+\s+nettest\s+4\s+127\.0\.0\.1\s+127\.0\.0\.1\s+\d+\s*$", out, re.M), out


def test_tcpconnlat_times_an_ipv6_connect(tmp_path: Path):
    """tcpconnlat: a connect's latency from tcp_v6_connect to the SYN-ACK's tcp_rcv_state_process,
    with the v6 addresses."""
    out = bcc_while(tmp_path, "tcpconnlat-bpfcc", NETTEST, interrupt=True)
    assert re.search(r"^\s*\d+\s+nettest\s+6\s+::1\s+::1\s+\d+\s+[\d.]+\s*$", out, re.M), out


def test_bpftrace_tcpaccept_shows_an_ipv6_accept(tmp_path: Path):
    """bpftrace's tcpaccept.bt: kretprobe:inet_csk_accept reads the child's skc_family and, for
    AF_INET6, skc_v6_daddr/skc_v6_rcv_saddr through the kernel's BTF: nettest's accepts of
    [::1]:PORT, peer ::1, and of the dual-stack listener's IPv4-mapped peers."""
    if shutil.which("bpftrace") is None or not Path("/usr/sbin/tcpaccept.bt").exists():
        pytest.skip("bpftrace's tcpaccept.bt is not installed")
    out, err = bpftrace_while(tmp_path, None, NETTEST, runs=2, tool="/usr/sbin/tcpaccept.bt")
    rows = [line.split() for line in out.splitlines() if re.match(r"^\d\d:\d\d:\d\d ", line)]
    mine = [r for r in rows if r[2] == "nettest"]
    assert any(r[3] == "::1" and r[5] == "::1" and int(r[6]) >= 32768 for r in mine), out + err
    assert any(r[3] == "::ffff:127.0.0.1" and r[5] == "::ffff:127.0.0.1" for r in mine), out + err


def test_bindsnoop_shows_ipv6_binds(tmp_path: Path):
    """bindsnoop: kprobes on inet_bind and inet6_bind, their kretprobes reading the socket's
    skc_v6_rcv_saddr, inet_sport and sk_protocol at Debian 6.1's offsets: nettest's bind of
    [::1]:0 (an ephemeral port), of ::, TCP's and UDP's (udp6), and with -E the refused ones
    (::2: EADDRNOTAVAIL, a short address: EINVAL, AF_INET: EAFNOSUPPORT, a port taken: EADDRINUSE)."""
    out = bcc_while(tmp_path, "bindsnoop-bpfcc -w -E", NETTEST + "; tracefs-sim exec nettest udp6 >/dev/null",
                    interrupt=True)
    # ERR PID COMM PROT ADDR PORT OPTS IF
    mine = re.findall(r"^(Success|Unknown error -\d+)\s+\d+ nettest\s+(TCP|UDP)\s+(\S+)\s+(\d+) ", out, re.M)
    assert ("Success", "TCP", "::1") in {m[:3] for m in mine if int(m[3]) >= 32768}, out
    assert ("Success", "UDP", "::1") in {m[:3] for m in mine if int(m[3]) >= 32768}, out
    assert ("Success", "TCP", "::") in {m[:3] for m in mine}, out
    # the refused ones (their sock has no address: ::, port 0, as on 6.1)
    assert {"Unknown error -99", "Unknown error -22", "Unknown error -97", "Unknown error -98"} <= {m[0] for m in mine}, out


def test_tcpsynbl_shows_the_ipv6_listeners_backlog(tmp_path: Path):
    """tcpsynbl: kprobes on tcp_v4_syn_recv_sock and tcp_v6_syn_recv_sock read the listener's
    sk_ack_backlog and sk_max_ack_backlog (Debian 6.1's offsets): a histogram per backlog limit,
    nettest's listen(8) among them."""
    out = bcc_while(tmp_path, "tcpsynbl-bpfcc -6", NETTEST, interrupt=True)
    assert re.search(r"^backlog_max = 8$", out, re.M), out


def test_tcplife_shows_an_ipv6_connections_life(tmp_path: Path):
    """tcplife: sock:inet_sock_set_state's AF_INET6 records (their saddr_v6/daddr_v6) from the
    connect to the close: nettest's connections of [::1] to its listener's port, both ends, the
    dual-stack listener's IPv4-mapped ones, the connect to port 1 refused.  Its TX_KB and RX_KB,
    tcp_sock's bytes_acked and bytes_received (Debian 6.1's offsets) at the close: nettest
    life6's client sent 150000 bytes and got 70000 (with the SYN and FINs, 150002 acked and
    70001 received, as a real 6.1 counts them: 146 and 68 KB), its server the other way round."""
    out = bcc_while(tmp_path, "tcplife-bpfcc -6", NETTEST + "; tracefs-sim exec nettest life6 >/dev/null",
                    interrupt=True)
    rows = re.findall(r"^\s*\d+\s+nettest\s+(\S+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+\s*$", out, re.M)
    kb = {(l, int(lp), r, int(rp), int(tx), int(rx)) for l, lp, r, rp, tx, rx in rows}
    client = [k for k in kb if k[0] == k[2] == "::1" and k[4:] == (146, 68)]
    assert client and any((r, rp, l, lp, 68, 146) in kb for l, lp, r, rp, _, _ in client), out
    ends = {(l, int(lp), r, int(rp)) for l, lp, r, rp, _, _ in rows}
    assert any(("::1", rp, "::1", lp) in ends for l, lp, r, rp in ends if l == r == "::1" and lp >= 32768), out
    assert any(l == r == "::ffff:127.0.0.1" for l, _, r, _ in ends), out
    assert any(l == r == "::1" and rp == 1 for l, _, r, rp in ends), out


def test_bcc_tcpaccept_shows_ipv6_accepts(tmp_path: Path):
    """BCC's tcpaccept: kretprobe on inet_csk_accept, the child's family, sk_protocol (Debian
    6.1's offset) and skc_v6_daddr/skc_v6_rcv_saddr: nettest's accepts from ::1, IPv6 lines."""
    out = bcc_while(tmp_path, "tcpaccept-bpfcc", NETTEST, interrupt=True)
    assert re.search(r"^\s*\d+\s+nettest\s+6\s+::1\s+\d+\s+::1\s+\d+\s*$", out, re.M), out


def test_tcpstates_shows_an_ipv6_sockets_states(tmp_path: Path):
    """tcpstates -6: sock:inet_sock_set_state's AF_INET6 records: a listener on ::1 going to
    LISTEN and its connections through SYN_SENT and ESTABLISHED."""
    out = bcc_while(tmp_path, "tcpstates-bpfcc -6", NETTEST, interrupt=True)
    assert re.search(r"\snettest\s+::1\s+\d+\s+::\s+0\s+CLOSE\s+-> LISTEN\s", out), out
    assert re.search(r"\snettest\s+::1\s+\d+\s+::1\s+\d+\s+SYN_SENT\s+-> ESTABLISHED\s", out), out
