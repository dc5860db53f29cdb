"""Shared memory in a session's trace: kprobes on shmem_fault (fs/shmem.c) and do_shmat
(ipc/shm.c) show a guest program's faults on its shared mappings and its shmat calls; a session
process's segments and shared mappings are the host's, its calls traced."""
import os
import re

import pytest
from simtest import PY_SYSCALL, tracefs_sim

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


# A session's process: its SysV segment is the host's (the kernel makes none for it), its
# shared mappings of anonymous memory and of a memfd are the host's pages; each works as on
# the host, and the calls show in the trace.
SESSION_SCRIPT = PY_SYSCALL + r'''
import ctypes, mmap, os
seg = sc(29, 0, 4096, 0o1600)
addr = sc(30, seg, 0, 0)
ctypes.memmove(addr, b"host segment", 12)
print("shm", seg >= 0, ctypes.string_at(addr, 12), sc(67, addr), sc(31, seg, 0, 0))
anon = mmap.mmap(-1, 4096, mmap.MAP_SHARED)
anon[:4] = b"anon"
fd = os.memfd_create("s")
os.ftruncate(fd, 4096)
m = mmap.mmap(fd, 4096, mmap.MAP_SHARED)
m[:5] = b"memfd"
print("maps", anon[:4], os.pread(fd, 5, 0))
'''


def test_a_session_process_keeps_the_hosts_segments_and_shared_pages(tmp_path):
    script = tmp_path / "shm.py"
    script.write_text(SESSION_SCRIPT)
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"echo 1 > {T}/events/syscalls/sys_enter_shmget/enable; python3 {script}; "
                         f"cat {T}/trace", timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "shm True b'host segment' 0 0" in result.stdout
    assert "maps b'anon' b'memfd'" in result.stdout
    assert re.search(r"python3-\d+ .*: sys_shmget\(key: 0, size: 1000, shmflg: 380\)", result.stdout), result.stdout
