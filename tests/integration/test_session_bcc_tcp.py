"""The TCP tools that read struct tcp_sock, in a session: BCC's (compiled against Debian's 6.1
headers: its fields at 6.1's offsets) tcplife with TX_KB/RX_KB (bytes_acked, bytes_received) and
tcptop (tcp_sendmsg, tcp_sendpage, tcp_cleanup_rbuf),
bpftrace's tcplife.bt (the same headers), a kprobe event of kprobe_events reading the fields by
their offsets, and srtt_us (tcprtt's field) through the kernel's BTF; for a guest program's
connection over 127.0.0.1 (nettest life: 150000 bytes up, 70000 down, run with `tracefs-sim
exec`)."""

import re
import shutil
from pathlib import Path

import pytest
from simtest import tracefs_sim
from test_session_bcc import bcc_while, pytestmark  # noqa: F401  (the same conditions)
from test_session_bpftrace import bpftrace_while

LIFE = "tracefs-sim exec nettest life >/dev/null"
T = "/sys/kernel/tracing"


def life_rows(out: str) -> set[tuple[str, int, str, int, int, int]]:
    """tcplife's lines of nettest: (LADDR, LPORT, RADDR, RPORT, TX_KB, RX_KB)"""
    rows = re.findall(r"^\s*\d+\s+nettest\s+(\S+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+\s*$", out, re.M)
    return {(la, int(lp), ra, int(rp), int(tx), int(rx)) for la, lp, ra, rp, tx, rx in rows}


def test_tcplife_shows_the_bytes_a_connection_carried(tmp_path: Path):
    """tcplife: at the close, tcp_sock's bytes_acked (TX) and bytes_received (RX) in KB, as a
    real 6.1 counts them: the client's 150002 acked (its data, SYN and FIN: 146 KB) and 70001
    received (68 KB); the server's the other way round."""
    out = bcc_while(tmp_path, "tcplife-bpfcc", LIFE, interrupt=True)
    rows = life_rows(out)
    client = [r for r in rows if r[0] == r[2] == "127.0.0.1" and r[4:] == (146, 68)]
    assert client, out
    assert any((ra, rp, la, lp, 68, 146) in rows for la, lp, ra, rp, _, _ in client), out


def test_bpftrace_tcplife_shows_the_bytes_a_connection_carried(tmp_path: Path):
    """bpftrace's tcplife.bt: kprobe:tcp_set_state, at TCP_CLOSE the socket's bytes_acked and
    bytes_received (struct tcp_sock of the Debian 6.1 headers it includes) in KB: nettest
    life's client 146 and 68, its server 68 and 146."""
    if shutil.which("bpftrace") is None or not Path("/usr/sbin/tcplife.bt").exists():
        pytest.skip("bpftrace's tcplife.bt is not installed")
    out, err = bpftrace_while(tmp_path, None, LIFE, runs=2, tool="/usr/sbin/tcplife.bt")
    rows = life_rows(out)
    client = [r for r in rows if r[0] == r[2] == "127.0.0.1" and r[4:] == (146, 68)]
    assert client, out + err
    assert any((ra, rp, la, lp, 68, 146) in rows for la, lp, ra, rp, _, _ in client), out + err


def test_tcptop_shows_what_a_connection_sent_and_received(tmp_path: Path):
    """tcptop: kprobes on tcp_sendmsg and tcp_sendpage (their size) and tcp_cleanup_rbuf (the
    bytes a read copied), by process and connection, every second: a nettest life run within one
    interval shows its client's 68 KB received and 146 KB sent (150000 bytes), its server's
    146 and 68."""
    out = bcc_while(tmp_path, "tcptop-bpfcc -C 1 6", LIFE)
    # (bcc 0.26's tcptop prints the comm as Python's bytes: b'nettest')
    rows = re.findall(r"^\d+\s+b'nettest'\s+127\.0\.0\.1:(\d+)\s+127\.0\.0\.1:(\d+)\s+(\d+)\s+(\d+)\s*$", out, re.M)
    got = {(int(lp), int(rp), int(rx), int(tx)) for lp, rp, rx, tx in rows}
    client = [(lp, rp) for lp, rp, rx, tx in got if (rx, tx) == (68, 146)]
    assert client, out
    assert any((rp, lp, 146, 68) in got for lp, rp in client), out


def test_tcprtt_does_not_compile_against_debians_headers(tmp_path: Path):
    """tcprtt (bcc 0.26) cannot build its program against Debian's 6.1 headers, whatever the kernel:
    their tcp_sk() is container_of_const(), which bcc's rewriter mangles (fixed in bcc by
    iovisor/bcc#4702, after 0.26): the tool exits 1 with clang's errors, as on a real Debian box.
    bpftrace reads what it would read (test_bpftrace_histogram_of_srtt_us)."""
    out = tmp_path / "tcprtt.out"
    result = tracefs_sim("run", "-c", f"tcprtt-bpfcc -d 1 >{out} 2>&1; echo tool exited $?", timeout=300, cwd=tmp_path)
    text = out.read_text()
    assert "tool exited 1" in result.stdout, result.stdout + result.stderr + text
    assert "Failed to compile BPF module" in text and "typeof(struct sock) _val" in text, text


def test_bpftrace_histogram_of_srtt_us(tmp_path: Path):
    """tcprtt's probe in bpftrace: on tcp_rcv_established, the socket's srtt_us >> 3 (through
    the kernel's BTF): a histogram with counts of the smoothed RTTs of the segments nettest's
    connections received (a loopback's, in the model's time: often under 1 us, bucket [0]),
    every socket with an estimate (srtt_us not 0).  (tcprtt's own line; its program does not
    build here: the test above.)"""
    out, err = bpftrace_while(tmp_path, "kprobe:tcp_rcv_established /comm == \"nettest\"/ "
                              "{ @srtt = hist(((struct tcp_sock *)arg0)->srtt_us >> 3); @n = count(); "
                              "@zero = sum(((struct tcp_sock *)arg0)->srtt_us == 0); }", LIFE, runs=5)
    counts = [int(c) for c in re.findall(r"^\[[^]\n]+[])]\s+(\d+) \|", out, re.M)]
    n = re.search(r"^@n: (\d+)$", out, re.M)
    assert counts and n and sum(counts) == int(n.group(1)) > 0, out + err
    assert re.search(r"^@zero: 0$", out, re.M), out + err


def test_a_kprobe_event_reads_the_counters_at_61s_offsets():
    """kprobe_events: p:tcp_close with +OFF($arg1) fetch args at Debian 6.1's offsets of
    bytes_acked (1496), bytes_received (1448), segs_out (1480) and snd_cwnd (1776): nettest's
    two ends of its connection as it closes them."""
    probe = ("p:tcpctr tcp_close acked=+1496($arg1):u64 received=+1448($arg1):u64 segs_out=+1480($arg1):u32 "
             "cwnd=+1776($arg1):u32")
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"echo '{probe}' >> {T}/kprobe_events && echo 1 > {T}/events/kprobes/tcpctr/enable && "
                         f"{LIFE} && echo 0 > {T}/tracing_on && cat {T}/trace", timeout=120)
    assert result.returncode == 0, result.stderr
    hits = re.findall(r"nettest-\d+ .* tcpctr: \(tcp_close\+0x0/0x[0-9a-f]+\) acked=(\d+) received=(\d+) "
                      r"segs_out=(\d+) cwnd=(\d+)$", result.stdout, re.M)
    ends = {(int(a), int(r)) for a, r, _, _ in hits}
    assert {(150002, 70001), (70001, 150001)} <= ends, result.stdout
    assert all(int(s) > 0 and int(c) == 10 for a, r, s, c in hits if int(a)), result.stdout
