"""Permissions (issue 8): every file and directory carries Linux 6.1's mode and owner, and a
user other than root is refused what Linux refuses, by those modes (the mount has
default_permissions and, mounted by root, allow_other)."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from simtest import FUNCTION_PROFILER_MODES, simulator_mounted_at, tracefs_sim, unmount

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                       reason="needs /dev/fuse and root"),
    pytest.mark.usefixtures("no_leftovers"),
]

# `ls -la` of the top level, events, per_cpu, options and an instance on a real Linux 6.1
# (the capture command is the file's first line).
MODES = Path(__file__).resolve().parent / "data" / "linux-6.1-modes.out"
NOBODY = 65534


def linux_modes() -> dict[str, tuple[str, str, str]]:
    """{path relative to the tracefs root: (mode, owner, group)} from MODES."""
    modes = {}
    directory = None
    for line in MODES.read_text().splitlines():
        if line.startswith("### ls -la "):
            directory = line[len("### ls -la "):]
            continue
        fields = line.split()
        if directory is None or len(fields) < 9 or fields[-1] == "..":
            continue
        path = os.path.normpath(os.path.join(directory, fields[-1]))
        modes[path] = (fields[0], fields[2], fields[3])
    return {**FUNCTION_PROFILER_MODES, **modes}


def reference_path(path: str, is_dir) -> str:
    """Where Linux's listing shows the like of `path`: Linux's modes are per kind of file, so
    any CPU stands for cpu0, any event system for sched, any event for sched_switch, any
    instance for foo (the ones captured)."""
    parts = path.split("/")
    for i, part in enumerate(parts):
        here = "/".join(path.split("/")[: i + 1])
        parent = parts[i - 1] if i >= 1 else None
        if parent == "per_cpu":
            parts[i] = "cpu0"
        elif parent == "trace_stat" and i == 1 and part.startswith("function"):
            parts[i] = "function0"
        elif parent == "instances" and i == 1:
            parts[i] = "foo"
        elif parent == "events" and is_dir(here):
            parts[i] = "sched"
        elif i >= 2 and path.split("/")[i - 2] == "events" and is_dir(here):
            parts[i] = "sched_switch"
    return "/".join(parts)


@pytest.fixture
def public_mount(no_leftovers):
    """A mount on a directory every user can reach (pytest's tmp dirs are root's alone, which
    would refuse other users before our mount is even asked)."""
    parent = tempfile.mkdtemp(prefix="tracefs-sim-perm-", dir="/tmp")
    os.chmod(parent, 0o755)
    no_leftovers.append(parent)
    mnt = Path(parent) / "tracing"
    mnt.mkdir(mode=0o755)
    try:
        result = tracefs_sim("mount", str(mnt), "--workload", "none")
        assert result.returncode == 0, result.stderr
        yield mnt
    finally:
        unmount(mnt)
        assert not simulator_mounted_at(mnt)
        shutil.rmtree(parent)


def stat_tree(mnt: Path) -> dict[str, tuple[str, str, str]]:
    """`stat -c '%A %U %G %n'` of every file and directory of the mount, by relative path."""
    result = subprocess.run(["find", str(mnt), "-exec", "stat", "-c", "%A %U %G %n", "{}", "+"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    tree = {}
    for line in result.stdout.splitlines():
        mode, owner, group, name = line.split(" ", 3)
        tree[os.path.relpath(name, mnt)] = (mode, owner, group)
    return tree


def mode_mismatches(ours: dict[str, tuple[str, str, str]]) -> str:
    """Each path whose (mode, owner, group) is not Linux's, one per line."""
    linux = linux_modes()
    wrong = []
    for path, attributes in sorted(ours.items()):
        where = reference_path(path, lambda p: ours[p][0].startswith("d"))
        expected = linux.get(where, "absent on Linux 6.1")
        if attributes != expected:
            wrong.append(f"{path}: {attributes}, Linux 6.1: {expected}")
    return "\n".join(wrong)


def test_every_file_has_linux_mode_and_owner(public_mount):
    ours = stat_tree(public_mount)
    assert {".", "trace", "tracing_on", "events", "per_cpu", "per_cpu/cpu0/trace_pipe",
            "events/sched/sched_switch/format", "options", "instances"} <= set(ours)
    assert not mode_mismatches(ours)


def test_an_instances_files_have_linux_modes(public_mount):
    (public_mount / "instances" / "foo").mkdir()
    ours = {path: attributes for path, attributes in stat_tree(public_mount).items()
            if path.startswith("instances/")}
    assert {"instances/foo", "instances/foo/trace", "instances/foo/options"} <= set(ours)
    assert not mode_mismatches(ours)


def as_user(command: str, uid: int = NOBODY, gid: int = NOBODY) -> subprocess.CompletedProcess:
    """bash -c command as uid:gid with no supplementary groups."""
    return subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                           "bash", "-c", command], capture_output=True, text=True, timeout=30)


def assert_refused(result: subprocess.CompletedProcess) -> None:
    assert result.returncode != 0
    assert "Permission denied" in result.stderr, result.stderr   # EACCES


def test_mounted_for_other_users_with_kernel_permission_checks(public_mount):
    (entry,) = [line.split() for line in Path("/proc/mounts").read_text().splitlines()
                if line.split()[1] == str(public_mount)]
    assert {"allow_other", "default_permissions"} <= set(entry[3].split(","))


def test_other_user_is_refused_what_linux_refuses(public_mount):
    mnt = public_mount
    assert_refused(as_user(f"cat {mnt}/trace"))
    assert_refused(as_user(f"echo 0 > {mnt}/tracing_on"))
    assert_refused(as_user(f"ls {mnt}"))                        # drwx------
    assert (mnt / "tracing_on").read_text() == "1\n"            # nothing changed


def test_refusals_follow_each_files_mode(public_mount):
    """Once the root directory lets others in (root may chmod it, as on Linux), each file's
    own mode decides: rw-r----- lets group root read but not write, others neither."""
    mnt = public_mount
    os.chmod(mnt, 0o751)
    assert as_user(f"stat -c %A {mnt}/trace").stdout == "-rw-r-----\n"   # reachable now
    assert_refused(as_user(f"cat {mnt}/trace"))
    assert_refused(as_user(f"echo 0 > {mnt}/tracing_on"))
    assert_refused(as_user(f"ls {mnt}"))                                 # r-- not for others

    in_group_root = as_user(f"ls {mnt} >/dev/null && cat {mnt}/tracing_on", gid=0)
    assert (in_group_root.returncode, in_group_root.stdout) == (0, "1\n"), in_group_root.stderr
    assert_refused(as_user(f"echo 0 > {mnt}/tracing_on", gid=0))
    assert_refused(as_user(f"echo hi > {mnt}/free_buffer", gid=0))       # --w-------
    assert (mnt / "tracing_on").read_text() == "1\n"
