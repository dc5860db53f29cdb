"""Probes on the VFS as users write them for Linux 6.1: opensnoop's kprobe on do_sys_openat2
reading the user's path, a kretprobe on getname reading struct filename's first member, and a
dentry name fetched through struct path (vfs_open's first argument: path->dentry->d_name.name),
while `tracefs-sim exec` programs open files in the emulated kernel; the VFS functions are in
available_filter_functions."""

import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

SCRIPT = r"""
cd /sys/kernel/tracing
echo '== functions'
grep -x -E 'do_sys_openat2|getname|do_filp_open|path_openat|link_path_walk.part.0.constprop.0|vfs_open|do_dentry_open|vfs_statx|vfs_fstatat|iterate_dir|do_mkdirat|vfs_mkdir|do_vfs_ioctl|pipe_read|pipe_write|shmem_file_read_iter' available_filter_functions | sort
echo 'p:myprobe do_sys_openat2 filename=+0($arg2):ustring' > kprobe_events
echo 'r:getnameprobe getname +0(+0($retval)):string' >> kprobe_events
echo 'p:vo vfs_open name=+0(+40(+8($arg1))):string' >> kprobe_events
echo 1 > events/kprobes/enable
tracefs-sim exec cat /etc/hostname /proc/self/comm > /dev/null
tracefs-sim exec cat /nonexistent > /dev/null 2>&1
echo 0 > events/kprobes/enable
echo '== lines'
sed -n 's/^.*[0-9]\.[0-9]\{6\}: //p' trace
echo '== end'
"""


def test_opensnoop_style_probes_name_the_files(tmp_path):
    script = tmp_path / "probes.sh"
    script.write_text(SCRIPT)
    result = tracefs_sim("run", str(script), timeout=180)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    functions = out.split("== functions\n")[1].split("== lines\n")[0].split()
    assert len(functions) == 16
    lines = out.split("== lines\n")[1].split("== end")[0].splitlines()
    opens = [l for l in lines if l.startswith("myprobe: ")]
    assert 'myprobe: (do_sys_openat2+0x0/0x' in opens[0] if opens else False
    names = {re.search(r'filename="([^"]*)"', l).group(1) for l in opens}
    assert {"/etc/hostname", "/proc/self/comm", "/nonexistent"} <= names
    gets = {re.search(r'arg1="([^"]*)"', l).group(1) for l in lines if l.startswith("getnameprobe: ")}
    assert {"/etc/hostname", "/proc/self/comm", "/nonexistent"} <= gets
    dentries = {re.search(r'name="([^"]*)"', l).group(1) for l in lines if l.startswith("vo: ")}
    assert {"hostname", "comm"} <= dentries and "nonexistent" not in dentries
