"""A guest program's mount(2) and umount2(2) calls in a session's trace, as Linux 6.1 shows them
(kernel_model/user/mountop.c under real-tracefs, the same static binary): the
syscalls:sys_enter_mount events, a kprobe on path_mount with its source and type strings (a
(fault) for a NULL type; 6.1 inlines do_mount and do_new_mount, so path_mount is where a probe
sees a mount), a kretprobe on path_umount with its results.  And a session's own mount: the
host's, in the session's mount namespace there, never in the emulated kernel's tree."""
import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"
SETUP = (f"echo 'p:mnt/pmount path_mount dev=+0(%di):string type=+0(%dx):string flags=%cx:x32' >> {T}/kprobe_events; "
         f"echo 'r:mnt/umount_ret path_umount ret=$retval:s32' >> {T}/kprobe_events; "
         f"echo 1 > {T}/events/mnt/enable; echo 1 > {T}/events/syscalls/sys_enter_mount/enable")

# real 6.1's records of mountop's task (addresses of its strings as ADDR, offsets cut)
EXPECTED = """\
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 2, data: ADDR)
pmount: (path_mount) dev="tmpfs" type="tmpfs" flags=0x2
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 1000, data: 0)
pmount: (path_mount) dev="/tmp/mt/a" type=(fault) flags=0x1000
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 1000, data: 0)
pmount: (path_mount) dev="/tmp/mt/a/sub" type=(fault) flags=0x1000
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 1000, data: 0)
pmount: (path_mount) dev="/tmp/mt/nonexistent" type=(fault) flags=0x1000
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 1000, data: 0)
pmount: (path_mount) dev="" type=(fault) flags=0x1000
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 1021, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x1021
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 21, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x21
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 21, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x21
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 1020, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x1020
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 20, data: ADDR)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x20
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 20, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x20
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 20, data: ADDR)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x20
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 1000028, data: ADDR)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x1000028
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 100000, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x100000
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 1000, data: 0)
pmount: (path_mount) dev="/tmp/mt/a" type=(fault) flags=0x1000
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 80000, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x80000
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 20000, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x20000
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 1000, data: 0)
pmount: (path_mount) dev="/tmp/mt/c" type=(fault) flags=0x1000
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 140000, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x140000
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 40000, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x40000
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 40000, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x40000
sys_mount(dev_name: 0, dir_name: ADDR, type: 0, flags: 40000, data: 0)
pmount: (path_mount) dev=(fault) type=(fault) flags=0x40000
umount_ret: (__x64_sys_umount <- path_umount) ret=0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 2000, data: 0)
pmount: (path_mount) dev="/tmp/mt/b" type=(fault) flags=0x2000
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 2000, data: 0)
pmount: (path_mount) dev="/tmp/mt/a/sub" type=(fault) flags=0x2000
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 2000, data: 0)
pmount: (path_mount) dev="/tmp/mt/m" type=(fault) flags=0x2000
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 2000, data: 0)
pmount: (path_mount) dev="/tmp/mt" type=(fault) flags=0x2000
umount_ret: (__x64_sys_umount <- path_umount) ret=-16
umount_ret: (__x64_sys_umount <- path_umount) ret=-16
umount_ret: (__x64_sys_umount <- path_umount) ret=0
umount_ret: (__x64_sys_umount <- path_umount) ret=-22
umount_ret: (__x64_sys_umount <- path_umount) ret=-11
umount_ret: (__x64_sys_umount <- path_umount) ret=0
umount_ret: (__x64_sys_umount <- path_umount) ret=-22
umount_ret: (__x64_sys_umount <- path_umount) ret=-22
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: 0)
pmount: (path_mount) dev="inner" type="tmpfs" flags=0x0
umount_ret: (__x64_sys_umount <- path_umount) ret=-16
umount_ret: (__x64_sys_umount <- path_umount) ret=0
umount_ret: (__x64_sys_umount <- path_umount) ret=-22
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: 0)
pmount: (path_mount) dev="x" type="nosuchfs" flags=0x0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 0, data: 0)
pmount: (path_mount) dev="x" type=(fault) flags=0x0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: 0)
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: 0)
pmount: (path_mount) dev="x" type="tmpfs" flags=0x0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: ADDR)
pmount: (path_mount) dev="x" type="tmpfs" flags=0x0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: ADDR)
pmount: (path_mount) dev="x" type="tmpfs" flags=0x0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: ADDR)
pmount: (path_mount) dev="x" type="tmpfs" flags=0x0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: 0)
pmount: (path_mount) dev="x" type="pipefs" flags=0x0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: ADDR)
pmount: (path_mount) dev="x" type="proc" flags=0x0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: 0)
umount_ret: (__x64_sys_umount <- path_umount) ret=-22
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: 0)
pmount: (path_mount) dev="none" type="tmpfs" flags=0x0
umount_ret: (__x64_sys_umount <- path_umount) ret=-1
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 100, data: 0)
pmount: (path_mount) dev="t" type="tmpfs" flags=0x100
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 1, data: 0)
pmount: (path_mount) dev="u" type="tmpfs" flags=0x1
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 5000, data: 0)
pmount: (path_mount) dev="/tmp/mt/a" type=(fault) flags=0x5000
umount_ret: (__x64_sys_umount <- path_umount) ret=-16
umount_ret: (__x64_sys_umount <- path_umount) ret=0
umount_ret: (__x64_sys_umount <- path_umount) ret=0
umount_ret: (__x64_sys_umount <- path_umount) ret=0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: a, data: 0)
pmount: (path_mount) dev="proc" type="proc" flags=0xa
umount_ret: (__x64_sys_umount <- path_umount) ret=0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: 0)
pmount: (path_mount) dev="devtmpfs" type="devtmpfs" flags=0x0
umount_ret: (__x64_sys_umount <- path_umount) ret=0
sys_mount(dev_name: ADDR, dir_name: ADDR, type: 0, flags: 1000, data: 0)
pmount: (path_mount) dev="/tmp/mt" type=(fault) flags=0x1000
sys_mount(dev_name: ADDR, dir_name: ADDR, type: ADDR, flags: 0, data: 0)
pmount: (path_mount) dev="r" type="tmpfs" flags=0x0
umount_ret: (__x64_sys_umount <- path_umount) ret=0
umount_ret: (__x64_sys_umount <- path_umount) ret=0
umount_ret: (__x64_sys_umount <- path_umount) ret=0
"""


def normalise(line: str) -> str:
    line = re.sub(r"^ *mountop-\d+ *\[\d+\] \S* *[\d.]+: ", "", line)
    line = re.sub(r"path_mount\+0x0/0x[0-9a-f]+", "path_mount", line)
    line = re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", line)
    return re.sub(r"(dev_name|dir_name|type|data): (?!0[,)])[0-9a-f]+", r"\1: ADDR", line)


def test_mount_calls_show_in_syscall_events_and_probes_as_on_linux():
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"{SETUP}; tracefs-sim exec mountop /tmp/mt > /dev/null; "
                         f"echo 0 > {T}/tracing_on; grep -v '^#' {T}/trace", timeout=180)
    assert result.returncode == 0, result.stderr
    lines = [normalise(line) for line in result.stdout.splitlines() if re.match(r"\s*mountop-\d+ ", line)]
    assert lines == EXPECTED.splitlines()


def test_a_sessions_mount_is_the_hosts_not_the_kernels():
    """The session's shell mounts a tmpfs (in its own mount namespace on the host, as the
    session runs): its call is in the trace, the emulated kernel's mounts do not change."""
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"echo 1 > {T}/events/syscalls/sys_enter_mount/enable; "
                         "tracefs-sim exec cat /proc/self/mounts > /tmp/before.$$; "
                         "mount -t tmpfs session-tmpfs /var/tmp && echo mounted; grep -c session-tmpfs /proc/mounts; "
                         "tracefs-sim exec cat /proc/self/mounts > /tmp/after.$$; "
                         "cmp /tmp/before.$$ /tmp/after.$$ && echo same; rm -f /tmp/before.$$ /tmp/after.$$; "
                         f"echo 0 > {T}/tracing_on; grep -c 'sys_mount(' {T}/trace", timeout=180)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["mounted", "1", "same", "1"], result.stdout
