"""A kprobe on shmem_fault (fs/shmem.c) shows a guest program's faults on its shared mapping of
a memfd: the kprobe event's records name the program."""
import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and namespaces")

T = "/sys/kernel/tracing"


def test_kprobe_on_shmem_fault_shows_a_guests_fault():
    script = (f"echo 'p:shmf shmem_fault' > {T}/kprobe_events && "
              f"echo 1 > {T}/events/kprobes/shmf/enable && "
              "tracefs-sim exec shmtest memfd > /dev/null && "
              f"echo 0 > {T}/events/kprobes/shmf/enable && cat {T}/trace")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    hits = re.findall(r"^\s*(\S+)-\d+ .*: shmf: \(shmem_fault\+0x0/0x[0-9a-f]+\)", result.stdout, re.M)
    assert "shmtest" in hits, result.stdout
