"""The OOM killer seen by the tools that trace it, unmodified, in a session: BCC's oomkill and
bpftrace's oomkill.bt put a kprobe on oom_kill_process and read `struct oom_control` (chosen,
totalpages) at Debian 6.1's offsets. A guest program touching memory without end (memhog 0, on
a 128 MiB machine: `--mem 128`) is killed by the OOM killer (status 137), and each tool prints
who triggered it and whom it killed (the same program: the one with the most memory) with the
RAM's pages."""

import os
import re
import shutil
from pathlib import Path

import pytest
from simtest import NOTIFY_ATTACHED, TOOL_IN_POLL, tracefs_sim

from tracefs_sim.namespace import debian_61_headers

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse, root and namespaces"),
    pytest.mark.skipif(debian_61_headers() is None, reason="no Debian linux-headers-6.1 installed"),
    pytest.mark.timeout(300),
]
KILL = (r'^\d\d:\d\d:\d\d Triggered by PID (\d+) \("memhog"\), OOM kill of PID (\d+) \("memhog"\), '
        r"(\d+) pages, loadavg: [\d.]+ [\d.]+ [\d.]+ \d+/\d+ \d+$")




def oom_while(tmp_path: Path, tool: str, banner: str, attached: str | None = None, polling: bool = False) -> str:
    """TOOL in a session on a 128 MiB machine, until it printed ATTACHED (by default its BANNER)
    and, with POLLING, until it polls its perf buffers (BCC's tools open them after their banner:
    an event before that is lost); then memhog 0 until the OOM killer ends it, then Ctrl-C to the
    tool. The tool's output."""
    out = tmp_path / "tool.out"
    script = (f"{NOTIFY_ATTACHED}=1 timeout --foreground -s INT 200 {tool} >{out} 2>&1 & t=$!; "
              f"for i in $(seq 900); do grep -q '{attached or banner}' {out} && break; sleep 0.1; done; "
              + (TOOL_IN_POLL if polling else "") +
              "tracefs-sim exec memhog 0; echo memhog $?; sleep 1; kill -INT $t; wait $t; echo tool exited $?")
    result = tracefs_sim("run", "--mem", "128", "-c", script, timeout=280, cwd=tmp_path)
    text = out.read_text()
    assert result.returncode == 0 and "memhog 137\ntool exited 0" in result.stdout, result.stdout + result.stderr + text
    assert banner in text, text
    kills = re.findall(KILL, text, re.M)
    assert len(kills) == 1, text
    trigger, victim, pages = (int(v) for v in kills[0])
    # (a 128 MiB machine: what its kernel leaves to the page allocator)
    assert trigger == victim and 8192 < pages < 32768, text
    return text


@pytest.mark.skipif(shutil.which("oomkill-bpfcc") is None, reason="bpfcc-tools is not installed")
def test_bcc_oomkill_prints_the_oom_kill(tmp_path):
    text = oom_while(tmp_path, "oomkill-bpfcc", "Tracing OOM kills... Ctrl-C to stop.", polling=True)
    assert text.startswith("Tracing OOM kills... Ctrl-C to stop.\n"), text


@pytest.mark.skipif(not os.path.exists("/usr/sbin/oomkill.bt") or shutil.which("bpftrace") is None,
                    reason="bpftrace's tools are not installed")
def test_bpftrace_oomkill_prints_the_oom_kill(tmp_path):
    # (its banner is its BEGIN's, which bpftrace runs before it attaches the probes)
    text = oom_while(tmp_path, "/usr/sbin/oomkill.bt", "Tracing oom_kill_process()... Hit Ctrl-C to end.",
                     attached=NOTIFY_ATTACHED)
    assert "Attaching 2 probes..." in text, text


def test_oom_events_in_the_trace(tmp_path):
    """events/oom: an oom_score_adj write (a guest shell's) and the OOM kill's mark_victim (by the
    victim's own fault), printed by 6.1's print fmts (__get_str, the kB figures of the kill's log
    line) on the trace."""
    T = "/sys/kernel/tracing"
    script = (f"echo 1 > {T}/events/oom/enable; "
              "tracefs-sim exec /bin/busybox sh -c 'echo 300 > /proc/self/oom_score_adj'; echo sh $?; "
              "tracefs-sim exec memhog 0; echo memhog $?; "
              f"echo 0 > {T}/events/oom/enable; cat {T}/trace")
    result = tracefs_sim("run", "--mem", "96", "--workload", "none", "-c", script, timeout=280, cwd=tmp_path)
    out = result.stdout
    assert result.returncode == 0 and "sh 0\nmemhog 137\n" in out, out + result.stderr
    # (irqs on, preemption on: "....." as 6.1 prints it for a process writing its own)
    assert re.search(r"^ +busybox-\d+ +\[\d+\] \.\.\.\.\. +\d+\.\d+: oom_score_adj_update: pid=\d+ comm=busybox "
                     r"oom_score_adj=300$", out, re.M), out
    victims = re.findall(r"^ +memhog-(\d+) +\[\d+\] \S+ +\d+\.\d+: mark_victim: pid=(\d+) comm=memhog "
                         r"total-vm=(\d+)kB anon-rss=(\d+)kB file-rss:(\d+)kB shmem-rss:0kB uid=0 "
                         r"pgtables=(\d+)kB oom_score_adj=0$", out, re.M)
    assert len(victims) == 1, out
    current, pid, total_vm, anon, _, pgtables = victims[0]
    assert current == pid and 16 << 10 < int(anon) <= int(total_vm) and int(pgtables) > 0, out
