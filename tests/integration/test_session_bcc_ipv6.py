"""BCC's TCP tools that attach to IPv6's functions unconditionally (tcp_v6_connect...) run in a
session and show an IPv6 connection over ::1: a guest program's (nettest tcp6, run with
`tracefs-sim exec`: a session process's own sockets are the host's, not the emulated kernel's)."""

import re
from pathlib import Path

from test_session_bcc import bcc_while, pytestmark  # noqa: F401  (the same conditions)

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
