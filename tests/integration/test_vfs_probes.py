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
    # (a session task's open can read "(fault)", seen once in CI: which one is still to find)
    names = {m.group(1) for l in opens if (m := re.search(r'filename="([^"]*)"', l))}
    assert {"/etc/hostname", "/proc/self/comm", "/nonexistent"} <= names
    gets = {re.search(r'arg1="([^"]*)"', l).group(1) for l in lines if l.startswith("getnameprobe: ")}
    assert {"/etc/hostname", "/proc/self/comm", "/nonexistent"} <= gets
    dentries = {re.search(r'name="([^"]*)"', l).group(1) for l in lines if l.startswith("vo: ")}
    assert {"hostname", "comm"} <= dentries and "nonexistent" not in dentries


SESSION_SCRIPT = r"""
T=/sys/kernel/tracing
echo 'p:myprobe do_sys_openat2 filename=+0($arg2):ustring' > $T/kprobe_events
echo 'p:vo vfs_open name=+0(+40(+8($arg1))):string' >> $T/kprobe_events
echo 'p:vr vfs_read name=+0(+40(+24($arg1))):string' >> $T/kprobe_events
echo 1 > $T/events/kprobes/enable
echo 1 > $T/events/syscalls/sys_exit_openat/enable
echo 1 > $T/events/syscalls/sys_exit_write/enable
echo 1 > $T/events/syscalls/sys_exit_mkdir/enable; echo 1 > $T/events/syscalls/sys_exit_mkdirat/enable
cd "$WORK"
echo '== cwd'; pwd
echo '== hostfd'
python3 -c 'import os; print(os.open("/etc/hostname", os.O_RDONLY))'
cat /etc/hostname > /dev/null
echo made > new.txt
cat new.txt > /dev/null
mkdir newdir
echo 1 > $T/events/syscalls/sys_exit_renameat2/enable; echo 1 > $T/events/syscalls/sys_exit_unlinkat/enable
echo 1 > $T/events/syscalls/sys_exit_rename/enable; echo 1 > $T/events/syscalls/sys_exit_unlink/enable
echo 1 > $T/events/syscalls/sys_exit_rmdir/enable
cp new.txt copy.txt; mv copy.txt moved.txt; rm moved.txt; rm -f absent.txt; rmdir newdir
echo 0 > $T/events/enable
echo '== lines'
grep -E '^ *(python3|cat|mkdir|mv|rm|rmdir)-' $T/trace | sed -n 's/^ *\([a-z0-9]*\)-[0-9]* .*[0-9]\.[0-9]\{6\}: /\1 /p'
echo '== end'
"""


def test_a_session_cat_opens_host_files_in_its_own_namespace(tmp_path):
    # a session's processes: hostfs at "/", their cwd, the kernel's /proc; what they create
    # on the host (a file, a directory) is there for the kernel's lookups after
    work = tmp_path / "work"
    work.mkdir()
    os.chmod(tmp_path, 0o755)
    result = tracefs_sim("run", "--workload", "none", "-c", SESSION_SCRIPT, timeout=180,
                         env={**os.environ, "WORK": str(work)})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    lines = out.split("== lines\n")[1].split("== end\n")[0].splitlines()
    hostfd = int(out.split("== hostfd\n")[1].split()[0])
    assert (work / "new.txt").read_text() == "made\n" and not (work / "newdir").exists()
    # python3's open: the host's fd is sys_exit_openat's ret
    py = [line for line in lines if line.startswith("python3 ")]
    at = next(i for i, line in enumerate(py) if 'filename="/etc/hostname"' in line)
    assert py[at + 1] == 'python3 vo: (vfs_open+0x0/0x30) name="hostname"', py[at:at + 3]
    assert py[at + 2] == f"python3 sys_openat -> {hostfd:#x}", py[at:at + 3]
    cat = [line for line in lines if line.startswith("cat ")]
    assert 'cat vr: (vfs_read+0x0/0x' in "\n".join(cat)
    assert any(re.fullmatch(r'cat vr: \(vfs_read\+0x0/0x[0-9a-f]+\) name="hostname"', line) for line in cat), cat
    # the file the shell created on the host, then cat's open of it (relative: the cwd)
    assert any(re.fullmatch(r'cat vo: \(vfs_open\+0x0/0x[0-9a-f]+\) name="new.txt"', line) for line in cat), cat
    assert 'cat sys_openat -> 0x3' in cat
    # mkdir's call: the host made the directory, the kernel takes it as done
    assert [line for line in lines if re.fullmatch(r"mkdir sys_mkdir(at)? -> .*", line)] == ["mkdir sys_mkdir -> 0x0"]
    # and the removals and the rename: as the host's calls went (rm -f of a missing file: ENOENT)
    changes = [line for line in lines if re.fullmatch(r"(mv|rm|rmdir) sys_(rename\w*|unlink\w*|rmdir) -> .*", line)]
    assert changes == ["mv sys_renameat2 -> 0x0", "rm sys_unlinkat -> 0x0",
                       "rm sys_unlinkat -> 0xfffffffffffffffe", "rmdir sys_rmdir -> 0x0"], changes


LOCKS_SCRIPT = r"""
cd /sys/kernel/tracing
echo 1 > events/filelock/enable
echo 1 > events/syscalls/sys_exit_fcntl/enable
python3 -c '
import fcntl, os, sys
f = open(sys.argv[1], "w")
fcntl.lockf(f, fcntl.LOCK_EX, 10, 0)
if os.fork() == 0:
    g = open(sys.argv[1], "w")
    try:
        fcntl.lockf(g, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 5)
    except OSError as e:
        print("child:", e.errno)
    os._exit(0)
os.wait()
f.close()
' "$1"
echo 0 > events/filelock/enable
sed -n 's/^ *\(python3\)-[0-9]* .*[0-9]\.[0-9]\{6\}: /\1 /p' trace
"""


def test_a_session_process_record_locks_are_the_kernels(tmp_path):
    """python's fcntl.lockf() in a session: its F_SETLKW, a child's F_SETLK refused (EAGAIN: the
    parent holds the byte) and the close that drops the lock are the emulated kernel's, each
    with 6.1's filelock events (the struct flock copied into the kernel with the call)"""
    script = tmp_path / "locks.sh"
    script.write_text(LOCKS_SCRIPT)
    result = tracefs_sim("run", "--workload", "none", str(script), str(tmp_path / "lk"), timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "child: 11" in lines, result.stdout
    events = [line.split(" ", 2)[1:] for line in lines if line.startswith("python3 ")]
    setlk = [rest for name, rest in events if name == "fcntl_setlk:"]
    assert len(setlk) == 2, result.stdout
    assert "fl_flags=FL_POSIX|FL_SLEEP fl_type=F_WRLCK fl_start=0 fl_end=9 ret=0" in setlk[0], setlk
    assert "fl_flags=FL_POSIX fl_type=F_WRLCK fl_start=5 fl_end=5 ret=-11" in setlk[1], setlk
    assert any(name == "posix_lock_inode:" and "fl_type=F_WRLCK fl_start=0 fl_end=9 ret=0" in rest
               for name, rest in events), result.stdout
    removes = [rest for name, rest in events if name == "locks_remove_posix:"]
    assert any("fl_flags=FL_POSIX|FL_CLOSE fl_type=F_UNLCK" in rest and rest.endswith("ret=0") for rest in removes)
    exits = [rest for name, rest in events if name == "sys_fcntl"]
    assert "-> 0xfffffffffffffff5" in exits, exits   # the child's EAGAIN, the host's answer too
