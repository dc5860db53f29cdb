"""Kprobes on shmem_fault (fs/shmem.c) and do_shmat (ipc/shm.c) show a guest program's faults on
its shared mappings and its shmat calls: the kprobe events' records name the program."""
import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and namespaces")

T = "/sys/kernel/tracing"


def test_kprobes_on_shmem_fault_and_do_shmat_show_a_guests_calls():
    script = (f"echo 'p:shmf shmem_fault' > {T}/kprobe_events && "
              f"echo 'p:shmat do_shmat shmid=%di:s32 flg=%dx:x32' >> {T}/kprobe_events && "
              f"echo 1 > {T}/events/kprobes/enable && "
              "tracefs-sim exec shmtest memfd > /dev/null && tracefs-sim exec shmtest sysv > /dev/null && "
              f"echo 0 > {T}/events/kprobes/enable && cat {T}/trace")
    result = tracefs_sim("run", "--workload", "none", "-c", script, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    faults = re.findall(r"^\s*(\S+)-\d+ .*: shmf: \(shmem_fault\+0x0/0x[0-9a-f]+\)$", result.stdout, re.M)
    assert "shmtest" in faults, result.stdout
    # shmtest sysv's shmat(-1, NULL, 0) first, then its SHM_REMAP (040000) without an address
    shmats = re.findall(r"^\s*shmtest-\d+ .*: shmat: \(do_shmat\+0x0/0x[0-9a-f]+\) shmid=(-?\d+) flg=(0x[0-9a-f]+)$",
                        result.stdout, re.M)
    assert shmats[0] == ("-1", "0x0") and ("0x4000" in [f for _, f in shmats]), result.stdout
