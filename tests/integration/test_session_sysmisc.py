"""A session process's futex_waitv, sysfs, ustat, kcmp, process_madvise, process_mrelease,
set_mempolicy and get_mempolicy (issue 15): the kernel replays each
without blocking on a wait the host already ended (futex_waitv's wait is the host's, as
FUTEX_WAIT's: the kernel checks the arguments and returns 0), and answers the others from its
own state (its file system types, its devices, its tasks)."""
import os
import re
import shlex
import subprocess

import pytest
from simtest import PY_SYSCALL, TRACEFS_SIM, tracefs_sim

pytestmark = [pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                 reason="needs /dev/fuse, root and namespaces"),
              pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="needs /usr/bin/python3")]

T = "/sys/kernel/tracing"
# futex_waitv on a word that does not hold the value, one with a past deadline, one a thread
# waits in until the main thread wakes it; then sysfs, ustat and kcmp, right and wrong; then
# its own memory advised cold through a pidfd, and the release of a live process refused; then
# a policy bound to node 0, read back, dropped.
# (The waker does not sleep between its wakes: a session thread's exit while another sleeps in
# clock_nanosleep sometimes leaves the sleeper's replay waiting for ever, as on main: a
# session.c matter, not these calls'.)
SCRIPT = PY_SYSCALL + r'''
import ctypes, os, struct, threading
word = (ctypes.c_uint32 * 2)(0, 5)
def waitv(vals, ts=None, flags=0):
    arr = b"".join(struct.pack("QQII", v, ctypes.addressof(word) + 4 * i, 2 | 128, 0) for i, v in enumerate(vals))
    buf = ctypes.create_string_buffer(arr)
    t = ctypes.create_string_buffer(struct.pack("qq", *ts)) if ts else None
    return sc(449, ctypes.addressof(buf), len(vals), flags, ctypes.addressof(t) if t else 0, 1)
print("host", waitv([0, 6]), waitv([0, 5], (0, 0)), waitv([0, 5], flags=1))
res = []
th = threading.Thread(target=lambda: res.append(waitv([0, 5])))
th.start()
while th.is_alive():  # (no sleep between the wakes: see below)
    sc(202, ctypes.addressof(word) + 4, 1 | 128, 1, 0, 0, 0)
th.join()
print("host woken", res)
p = os.getpid()
sc(139, 3), sc(139, 9), sc(136, 0xfff00, 0), sc(312, p, p, 1, 0, 0), sc(312, p, p, 99, 0, 0)
pidfd = os.pidfd_open(p)
page = ctypes.create_string_buffer(8192)
iov = ctypes.create_string_buffer(struct.pack("QQ", (ctypes.addressof(page) + 4095) & ~4095, 4096))
print("host", sc(440, pidfd, ctypes.addressof(iov), 1, 20, 0), sc(448, pidfd, 0))
mask, mode = (ctypes.c_ulong * 16)(1), ctypes.c_int(-1)
print("host", sc(238, 2, ctypes.addressof(mask), 1025), sc(239, ctypes.addressof(mode), ctypes.addressof(mask), 1025, 0, 0),
      mode.value, sc(238, 0, 0, 0))
'''


def test_replayed_calls_end_and_answer_from_the_kernel(tmp_path):
    script = tmp_path / "calls.py"
    script.write_text(SCRIPT)
    calls = ("futex_waitv", "sysfs", "ustat", "kcmp", "process_madvise", "process_mrelease", "set_mempolicy",
             "get_mempolicy")
    enable = "; ".join(f"echo 1 > {T}/events/syscalls/sys_exit_{c}/enable" for c in calls)
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"{enable}; python3 {script}; cat {T}/trace", timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "host -11 -110 -22" in result.stdout and "host woken [1]" in result.stdout
    exits = re.findall(r"python3-\d+ .*: sys_(\w+) -> (0x[0-9a-f]+)", result.stdout)
    rets = [(name, int(v, 16) - (1 << 64) if int(v, 16) >= 1 << 63 else int(v, 16)) for name, v in exits]
    assert [r for r in rets if r[0] == "futex_waitv"] == [("futex_waitv", 0)] * 2 + [("futex_waitv", -22)] + [("futex_waitv", 0)]
    others = [r for r in rets if r[0] != "futex_waitv"]
    assert others, result.stdout
    assert others[1:] == [("sysfs", -22), ("ustat", -22), ("kcmp", 0), ("kcmp", -22),
                          ("process_madvise", 4096), ("process_mrelease", -22),
                          ("set_mempolicy", 0), ("get_mempolicy", 0), ("set_mempolicy", 0)]
    assert others[0][0] == "sysfs" and others[0][1] > 0



def test_sethostname_names_the_emulated_kernel_never_the_host():
    """sethostname and setdomainname of a session process are served by the kernel (uname is
    its too): the session sees the new names, a guest program as well, and the UTS namespace
    the session started in keeps its own (the test runs in a UTS namespace of its own all the
    same, so that a failure could not rename this machine)."""
    script = ("hostname sim-renamed; echo \"rc $?\"; uname -n; domainname sim.domain; domainname; "
              "tracefs-sim exec /bin/busybox uname -n")
    outer = (f"{shlex.quote(TRACEFS_SIM)} run --workload none -c {shlex.quote(script)}; "
             "echo \"status $?\"; echo \"outer $(hostname)\"")
    result = subprocess.run(["unshare", "--uts", "sh", "-c", outer], capture_output=True, text=True,
                            timeout=180, stdin=subprocess.DEVNULL)
    assert result.stdout.splitlines() == ["rc 0", "sim-renamed", "sim.domain", "sim-renamed", "status 0",
                                          f"outer {os.uname().nodename}"], result.stdout + result.stderr
