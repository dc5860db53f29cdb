"""Direct reclaim seen by BCC's drsnoop (bpfcc-tools 0.26), unmodified, in a session: it attaches
to vmscan:mm_vmscan_direct_reclaim_begin/end and reads vm_zone_stat by its kallsyms address.  On
one cpu and 96 MiB of RAM, a file cached by the page cache (`pagecache write`) and then a
program touching 32 MiB of anonymous memory (memhog): its faults find the zone below the min
watermark before kswapd runs, and reclaim the file's clean pages themselves (mm/vmscan.c's
try_to_free_pages).  drsnoop prints each: the program, its pid, the latency, the pages freed."""

import os
import re
import shutil
from pathlib import Path

import pytest
from simtest import TOOL_IN_POLL, tracefs_sim

from tracefs_sim.namespace import debian_61_headers

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(shutil.which("drsnoop-bpfcc") is None, reason="bpfcc-tools is not installed"),
    pytest.mark.skipif(debian_61_headers() is None, reason="no Debian linux-headers-6.1 installed"),
    pytest.mark.timeout(300),
]

def test_drsnoop_prints_the_reclaiming_task(tmp_path: Path):
    out = tmp_path / "tool.out"
    script = ("tracefs-sim exec pagecache write /mnt/a 24; "
              f"timeout --foreground -s INT 200 drsnoop-bpfcc >{out} 2>&1 & t=$!; "
              f"for i in $(seq 900); do grep -q COMM {out} && break; sleep 0.1; done; "
              + TOOL_IN_POLL +
              "tracefs-sim exec memhog 32; echo memhog $?; "
              "tracefs-sim exec pagecache read /mnt/a; "
              "sleep 1; kill -INT $t; wait $t; echo tool exited $?")
    result = tracefs_sim("run", "--cpus", "1", "--mem", "96", "--workload", "none", "-c", script,
                         timeout=280, cwd=tmp_path)
    text = out.read_text()
    assert result.returncode == 0, result.stdout + result.stderr + text
    assert result.stdout == ("pagecache: 24 MiB written\nmemhog: 32 MiB touched\nmemhog 0\n"
                             "pagecache: 24 MiB read, data correct\ntool exited 0\n"), result.stdout + text
    lines = text.splitlines()
    assert lines[0] == "COMM           PID     LAT(ms) PAGES", text
    rows = [re.fullmatch(r"(\S+) +(\d+) +(\d+\.\d\d) +(\d+)", line) for line in lines[1:]]
    assert rows and all(rows), text
    # memhog, one pid, each reclaim at least a batch (SWAP_CLUSTER_MAX: 32 pages)
    assert {r[1] for r in rows} == {"memhog"}, text
    assert len({r[2] for r in rows}) == 1, text
    assert all(int(r[4]) >= 32 for r in rows), text
    # (memhog needs the room of much of the file's 6,144 pages: reclaims by the dozen)
    assert len(rows) >= 10, text
