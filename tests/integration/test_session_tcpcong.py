"""TCP congestion states seen by BCC's tcpcong (bpfcc-tools 0.26), unmodified, in a session: it
takes tcp:tcp_cong_state_set where the kernel has it (6.1 does, from tcp_set_ca_state), and sums
each socket's time in each state.  nettest slow's sender outruns its reader: its segments time
out (TCP_CA_Loss) until the reader reads and their acks end the loss (TCP_CA_Open)."""

import os
import re
import shutil
from pathlib import Path

import pytest
from simtest import tool_waits_in, tracefs_sim

from tracefs_sim.namespace import debian_61_headers

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("tcpcong-bpfcc") is None, reason="bpfcc-tools is not installed"),
    pytest.mark.skipif(debian_61_headers() is None, reason="no Debian linux-headers-6.1 installed"),
    pytest.mark.timeout(300),
]

# attached, it sleeps until Ctrl-C (nanosleep, clock_nanosleep; or in a poll)
WAITING = tool_waits_in(7, 271, 232, 281, 35, 230)


def test_tcpcong_shows_the_senders_time_in_loss(tmp_path: Path):
    out = tmp_path / "tool.out"
    script = (f"timeout --foreground -s INT 200 tcpcong-bpfcc >{out} 2>&1 & t=$!; "
              f"for i in $(seq 900); do grep -q Tracing {out} && break; sleep 0.1; done; "
              + WAITING +
              "tracefs-sim exec nettest slow | grep 'data intact'; "
              "sleep 1; kill -INT $t; wait $t; echo tool exited $?")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=280, cwd=tmp_path)
    text = out.read_text()
    assert result.returncode == 0 and result.stdout.endswith("data intact = 1\ntool exited 0\n"), \
        result.stdout + result.stderr + text
    assert text.startswith("Tracing tcp congestion control status duration... Hit Ctrl-C to end.\n"), text
    assert re.search(r"^LAddrPort +RAddrPort +Open_ms +Dod_ms +Rcov_ms +Cwr_ms +Los_ms +Chgs *$", text, re.M), text
    rows = re.findall(r"^127\.0\.0\.1/(\d+) +127\.0\.0\.1/(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) *$",
                      text, re.M)
    # the sender: time in Loss (no Disorder, Recovery or CWR: the model's TCP has no SACK or ECN)
    assert rows, text
    losses = [r for r in rows if int(r[6]) > 0]
    assert losses and all(int(r[3]) == int(r[4]) == int(r[5]) == 0 and int(r[7]) >= 1 for r in losses), text
