"""The fair class's runqueue as probes reach it: task_struct.se.cfs_rq and the cfs_rq's counts
at 6.1's offsets (runqlen's path; a kprobe's fetch args written from 6.1's layout)."""

import os
import re

import pytest
from kernel_paths import kernel_visible
from simtest import REPO, tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"
# pick_next_task_fair(rq, prev): prev's cfs_rq (task_struct.se at 128, sched_entity.cfs_rq at
# 120) and its nr_running, idle_nr_running, idle_h_nr_running (16, 24, 28)
PROBE = ("p:cfs pick_next_task_fair nr=+16(+248(%si)):u32 idle=+24(+248(%si)):u32 "
         "hidle=+28(+248(%si)):u32 comm=+2976(%si):string")


def test_a_sched_idle_task_counts_in_its_runqueues_idle_entities():
    """Two programs that make themselves SCHED_IDLE and spin: while one is switched out still
    runnable, its runqueue counts it (and the other, if queued there) among its idle entities;
    once they are gone, the counts are back to 0"""
    prog = kernel_visible(REPO / "kernel_model" / "build" / "user" / "progtest.elf")
    script = (f"echo '{PROBE}' > {T}/kprobe_events; echo 1 > {T}/events/kprobes/cfs/enable; "
              f"tracefs-sim exec {prog} idlespin 3000000 & tracefs-sim exec {prog} idlespin 2000000; wait; "
              f"sleep 0.2; echo 0 > {T}/events/kprobes/cfs/enable; grep -v '^#' {T}/trace")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=150)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("idlespin: policy 0x5") == 2, result.stdout
    hits = [(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)) for m in
            re.finditer(r'nr=(\d+) idle=(\d+) hidle=(\d+) comm="([^"]*)"', result.stdout)]
    spinning = [h for h in hits if h[3] == "progtest.elf" and h[1] > 0]
    assert spinning and all(1 <= idle == hidle <= nr for nr, idle, hidle, _ in spinning), hits
    assert all(idle == 0 for _, idle, _, _ in hits[-5:]), hits
