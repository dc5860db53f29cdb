"""inotify in a session process (fs/notify/inotify): its calls are made by the host and
replayed by the kernel, as every call of a session task; the kernel's inotify fd is its own, its
watch on a host directory (hostfs) the one later lookups of that directory find, so the
kernel's replay of the process's own create in it queues the event the host's read took: the
kernel's read returns the host's bytes."""

import os
import re
import subprocess
import tempfile
import time

import pytest
from simtest import TRACEFS_SIM, section, tracefs_sim

pytestmark = [pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                 reason="needs /dev/fuse, root and namespaces"),
              pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="needs /usr/bin/python3")]

T = "/sys/kernel/tracing"
# the watcher: a watch of the directory (twice: the same wd), a create, a read of its event
WATCHER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
d = sys.argv[1].encode()
fd = libc.inotify_init1(0)
print("wd", libc.inotify_add_watch(fd, d, 0x100), libc.inotify_add_watch(fd, d, 0x100 | 0x200))
open(os.path.join(sys.argv[1], "made"), "w").close()
print("read", len(os.read(fd, 4096)))
print("rm", libc.inotify_rm_watch(fd, 1))
"""


def test_a_session_process_inotify_is_replayed_with_its_events():
    with tempfile.TemporaryDirectory(dir="/var/tmp") as d:
        script = os.path.join(d, "watcher.py")
        with open(script, "w") as f:
            f.write(WATCHER)
        watched = os.path.join(d, "watched")
        os.mkdir(watched)
        events = "".join(f"echo 1 > {T}/events/syscalls/sys_exit_{c}/enable;"
                         for c in ("inotify_init1", "inotify_add_watch", "inotify_rm_watch", "read"))
        result = tracefs_sim("run", "--workload", "none", "-c",
                             f"echo 1 > {T}/events/sched/sched_process_exit/enable; {events}"
                             f"echo '== out'; python3 {script} {watched}; "
                             f"for i in $(seq 200); do grep -q 'sched_process_exit: comm=python3' {T}/trace && break; sleep 0.1; done;"
                             f"echo 0 > {T}/tracing_on; echo '== trace'; grep -v '^#' {T}/trace", timeout=180)
        assert result.returncode == 0, result.stdout + result.stderr
    out = section(result.stdout, "out")
    assert out == ["wd 1 1", "read 32", "rm 0"], result.stdout
    calls = []
    for line in section(result.stdout, "trace"):
        m = re.search(r"^ *python3-\d+ .* sys_(\w+) -> (0x[0-9a-f]+)$", line)
        if m:
            ret = int(m.group(2), 16)
            calls.append((m.group(1), ret - (1 << 64) if ret >= 1 << 63 else ret))
    inotify = [c for c in calls if c[0].startswith("inotify")]
    assert inotify == [("inotify_init1", 3), ("inotify_add_watch", 1), ("inotify_add_watch", 1),
                       ("inotify_rm_watch", 0)], calls
    # the process's next read, of the inotify fd: the kernel's own event (struct inotify_event
    # and "made" padded to 16)
    after = calls[calls.index(("inotify_add_watch", 1)) + 2:]
    assert next(c for c in after if c[0] == "read") == ("read", 32), calls


# a watcher whose event is made outside the session (the kernel never sees it): the kernel's
# replay of its blocking read waits until the host's read returned, then ends (-ERESTARTSYS,
# as signalfd's: the host's bytes are the process's)
OUTSIDE_WATCHER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
print("wd", libc.inotify_add_watch(fd, sys.argv[1].encode(), 0x100))
open(sys.argv[2], "w").close()
print("read", len(os.read(fd, 4096)))
"""


def test_a_session_process_blocking_read_of_an_event_the_kernel_never_saw_ends():
    with tempfile.TemporaryDirectory(dir="/var/tmp") as d:
        script, watched, ready = (os.path.join(d, n) for n in ("watcher.py", "watched", "ready"))
        with open(script, "w") as f:
            f.write(OUTSIDE_WATCHER)
        os.mkdir(watched)
        session = subprocess.Popen(
            [TRACEFS_SIM, "run", "--workload", "none", "-c",
             f"echo 1 > {T}/events/syscalls/sys_exit_read/enable; echo '== out'; python3 {script} {watched} {ready};"
             f" echo after; sleep 0.5; echo 0 > {T}/tracing_on; echo '== trace'; grep -v '^#' {T}/trace"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            for _ in range(1800):
                if os.path.exists(ready) or session.poll() is not None:
                    break
                time.sleep(0.1)
            open(os.path.join(watched, "from-outside"), "w").close()
            out, err = session.communicate(timeout=120)
        finally:
            if session.poll() is None:
                session.kill()
                session.communicate()
    assert session.returncode == 0, out + err
    assert section(out, "out") == ["wd 1", "read 32", "after"], out
