"""A private mount namespace in which the simulator looks like the machine's own tracefs.

Inside it, the FUSE mount sits at /sys/kernel/tracing and /sys/kernel/debug/tracing,
/proc/mounts lists both as type `tracefs` (libtracefs accepts nothing else and would otherwise
mount the host's real tracefs), and /proc/kallsyms, the CPU lists and a few sysctls are the
emulated kernel's. Nothing done here is visible outside the namespace, and the host's real
tracefs is never mounted or written.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import tempfile
import time

from . import _syscalls as sc

TRACING_DIR = "/sys/kernel/tracing"
DEBUGFS_DIR = "/sys/kernel/debug"
DEBUG_TRACING_DIR = DEBUGFS_DIR + "/tracing"
# The emulated kernel's files outside tracefs (debugfs's kprobes/, /proc/sys/debug/) are served
# by the daemon in this directory of its mount's root: found by lookup, never listed, so
# tracefs reads as Linux's (Overlay binds them where they belong).
DEBUG_VIEWS_DIR = ".tracefs-sim-debug"
PROC_MOUNTS_VIEW = "proc-mounts"   # in DEBUG_VIEWS_DIR: ProcMountsView
EVENT_SOURCE_VIEW = "event-source"   # in DEBUG_VIEWS_DIR: /sys/bus/event_source/devices
EVENT_SOURCE_DIR = "/sys/bus/event_source/devices"
BTF_VIEW = "btf"   # in DEBUG_VIEWS_DIR: /sys/kernel/btf
BTF_DIR = "/sys/kernel/btf"
NOTES_VIEW = "kernel-notes"   # in DEBUG_VIEWS_DIR: /sys/kernel/notes (the build-id)
NOTES_FILE = "/sys/kernel/notes"
# Where Debian's linux-image-RELEASE-dbg puts the kernel's vmlinux, first of perf's vmlinux_path
# entries a session can show without hiding any of the host's files.
DEBUG_VMLINUX = "/usr/lib/debug/boot/vmlinux-{release}"
# Where a kernel's headers are found by what compiles against them (BCC): build (the
# configured tree) and source (the common headers), as Debian's linux-headers-RELEASE makes them.
MODULES_DIR = "/lib/modules"
HEADERS_LINKS = ("build", "source")
PROC_KALLSYMS_VIEW = "proc-kallsyms"   # trace/kallsyms_file.py's KallsymsView
PROC_VERSION_VIEW = "proc-version"   # the emulated kernel's banner
_PROC_SYS_KERNEL = "/proc/sys/kernel"
BLOCK_TRACE_VIEW = "block-trace"   # in DEBUG_VIEWS_DIR: each emulated disk's /sys/block/DEV/trace/
SYSCTL_KERNEL_VIEW = "sysctl-kernel"   # /proc/sys/kernel's tracing sysctls (fs/layout.py)
_PROC_SYS_NET_CORE = "/proc/sys/net/core"
SYSCTL_NET_CORE_VIEW = "sysctl-net-core"   # /proc/sys/net/core's BPF ones (bpf_jit_enable)
# The host's /dev/kmsg, which a session covers with itself on a nodev mount: an open of it by
# its path is the emulated kernel's (the supervisor serves it), and no other reaches the host's.
DEV_KMSG = "/dev/kmsg"
SYS_CLASS_BLOCK = "/sys/class/block"   # a link per block device and partition
SYS_BLOCK = "/sys/block"   # a link per disk
HOST_TRACING_FS = ("tracefs", "debugfs", "bpf")   # the host kernel's tracing file systems
# The host's /proc/kmsg (a read takes records from the host's log for good), which a session
# covers with this view of its mode: an open of it by any name is the emulated kernel's (the
# supervisor serves it); one the kernel does not answer reaches the view: EACCES.
PROC_KMSG_VIEW = "proc-kmsg"

# How Linux 6.1 lists tracefs in /proc/mounts.
_TRACEFS_OPTIONS = "rw,nosuid,nodev,noexec,relatime"
# The source name of the tmpfs standing in for debugfs at /sys/kernel/debug.
_DEBUG_TMPFS_SOURCE = "tracefs-sim"


class NamespaceError(Exception):
    """The private namespace could not be set up; nothing must be mounted then."""


def _mount_ns() -> str:
    return os.readlink("/proc/self/ns/mnt")


def enter_private_mount_namespace() -> str:
    """Move this (single-threaded) process into a new mount namespace with no propagation.

    Returns the host namespace's id, for assert_private()."""
    host = _mount_ns()
    try:
        sc.unshare(sc.CLONE_NEWNS)
    except OSError as e:
        raise NamespaceError(f"cannot create a private mount namespace: {e.strerror}") from None
    if _mount_ns() == host:
        raise NamespaceError("unshare(CLONE_NEWNS) left this process in the host's mount namespace")
    # Mounts are shared with the host by default (systemd): make ours propagate nowhere.
    try:
        sc.mount(None, "/", None, sc.MS_REC | sc.MS_PRIVATE)
    except OSError as e:
        raise NamespaceError(f"cannot make the new mount namespace private: {e.strerror}") from None
    return host


def assert_private(host_ns: str) -> None:
    """Refuse to go on unless this process is outside the host's mount namespace."""
    if _mount_ns() == host_ns:
        raise NamespaceError("not in a private mount namespace; refusing to mount anything")


def _members(ns: str, spare: set[int]) -> list[int]:
    """Pids of the running processes in mount namespace `ns`, except those in `spare`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in spare:
            continue
        try:
            if os.readlink(f"/proc/{entry}/ns/mnt") == ns:
                found.append(int(entry))
        except OSError:
            continue  # gone, or a zombie (its namespace is already released)
    return found


def _version_key(release: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", release)]


def debian_61_headers() -> tuple[str, dict[str, str]] | None:
    """The newest installed Debian linux-headers-6.1.*-amd64: its release and where its
    /lib/modules/RELEASE/{build,source} links point (absolute, so they resolve from anywhere)."""
    try:
        releases = [r for r in os.listdir(MODULES_DIR) if re.fullmatch(r"6\.1\.\d+-\d+-amd64", r)]
    except OSError:
        return None
    for release in sorted(releases, key=_version_key, reverse=True):
        links = {}
        for name in HEADERS_LINKS:
            where = os.path.realpath(os.path.join(MODULES_DIR, release, name))
            if os.path.isdir(os.path.join(where, "include")):
                links[name] = where
        if len(links) == len(HEADERS_LINKS):
            return release, links
    return None


def _signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def _reap(pids: list[int]) -> None:
    # Orphans are re-parented to a subreaper: the zombies of those that ended are ours to reap.
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


def end_other_processes(host_ns: str, spare: set[int], grace: float = 2.0,
                        give_up: float = 10.0) -> list[int]:
    """End every process of this private namespace but this one and `spare`: SIGTERM (and
    SIGCONT, for stopped ones), then after `grace` seconds SIGKILL until none is left.

    Whatever a session's script started -- in its process group or not (setsid, nohup, a
    double fork) -- lives in the session's namespace, so this leaves none of it behind.
    Returns the pids still there after `give_up` seconds (normally none)."""
    assert_private(host_ns)  # in the host's namespace this would end the whole machine
    ns = _mount_ns()
    spare = spare | {os.getpid()}
    started = time.monotonic()
    pids = _members(ns, spare)
    if pids:
        _signal_all(pids, signal.SIGTERM)
        _signal_all(pids, signal.SIGCONT)
    while pids:
        elapsed = time.monotonic() - started
        if elapsed >= give_up:
            break
        if elapsed >= grace:
            _signal_all(pids, signal.SIGKILL)
        time.sleep(0.02)
        _reap(pids)
        pids = _members(ns, spare)
    return pids


def cpu_list(nr_cpus: int) -> str:
    """The kernel's cpulist format for CPUs 0..nr_cpus-1 (/sys/devices/system/cpu/possible)."""
    return "0\n" if nr_cpus == 1 else f"0-{nr_cpus - 1}\n"


def mounts_view(mounts: str, mountinfo: str, simulator_device: str) -> str:
    """/proc/mounts as a tracing tool should see it, from a process's own `mounts` and
    `mountinfo` (the same mounts, line for line): the simulator's FUSE mount (the one on
    `simulator_device`, "major:minor") listed as the tracefs it stands in for, wherever it is
    mounted (mount(2) of tracefs in a session clones it); the tmpfs standing in for debugfs as
    debugfs. Left out: the binds of parts of them (the daemon's side door at debugfs's
    kprobes/ and /proc/sys/debug, the files laid over /proc and /sys), which are no mounts on
    Linux; mounts hidden under later ones (the host's debugfs, a real tracefs); and other
    simulators' mounts (tools that grep for "tracefs" would pick the first)."""
    entries = [line.split(" ") for line in mounts.splitlines() if line.strip()]
    infos = [line.split(" ") for line in mountinfo.splitlines() if line.strip()]
    shown = []
    for i, (fields, info) in enumerate(zip(entries, infos)):
        where, device, root = fields[1], info[2], info[3]
        if any(_covers(later[1], where) for later in entries[i + 1 :]):
            continue
        if fields[2] == "fuse.tracefs":
            if device != simulator_device or root != "/":
                continue
            fields = ["tracefs", where, "tracefs", _TRACEFS_OPTIONS, "0", "0"]
        elif fields[:1] == [_DEBUG_TMPFS_SOURCE] and fields[2] == "tmpfs":
            if root != "/":
                continue
            # Listed as the debugfs it stands in for: trace-cmd mounts debugfs by itself when
            # /proc/mounts has none, and that would bring in the host's real one.
            fields = ["debugfs", where, "debugfs", _TRACEFS_OPTIONS, "0", "0"]
        shown.append(" ".join(fields) + "\n")
    return "".join(shown)


class ProcMountsView:
    """/proc/mounts of a session, served by the daemon per reader (`read_as(pid)`): the view
    of the reader's own namespace, so a tracefs it mounts appears in it as on Linux."""

    def __init__(self, mountpoint: str):
        self._mountpoint = mountpoint
        self._device: str | None = None

    def _simulator_device(self) -> str:
        # The daemon's own mount, as its namespace lists it (found once, after the mount).
        if self._device is None:
            with open("/proc/self/mountinfo") as f:
                for line in f:
                    fields = line.split()
                    fstype = fields[fields.index("-") + 1]
                    if fields[4] == self._mountpoint and fstype == "fuse.tracefs":
                        self._device = fields[2]
            if self._device is None:
                raise OSError(errno.ENOENT, "the simulator's mount is gone")
        return self._device

    def read_as(self, pid: int) -> bytes:
        with open(f"/proc/{pid}/mounts") as f:
            mounts = f.read()
        with open(f"/proc/{pid}/mountinfo") as f:
            mountinfo = f.read()
        return mounts_view(mounts, mountinfo, self._simulator_device()).encode()


def host_tracing_mounts(mountinfo: str) -> list[str]:
    """Where `mountinfo` (/proc/PID/mountinfo's text) has a tracefs, debugfs or bpf file system,
    in its order, but for those inside one listed before."""
    found: list[str] = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        where = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])   # mountinfo's escapes
        if fields[fields.index("-") + 1] in HOST_TRACING_FS and not any(_covers(c, where) for c in found):
            found.append(where)
    return found


def _covers(upper: str, lower: str) -> bool:
    return lower == upper or lower.startswith(upper.rstrip("/") + "/")


class Overlay:
    """The mounts laid over the host's view inside the namespace; undone in reverse order."""

    def __init__(self, host_ns: str):
        self._host_ns = host_ns
        self._mounted: list[str] = []

    def bind_debug_tracing(self) -> None:
        """Show the mount at /sys/kernel/tracing also at /sys/kernel/debug/tracing.

        A fresh tmpfs goes over /sys/kernel/debug first: the host's debugfs (if mounted) would
        automount its real tracefs at tracing/, which must never be touched."""
        assert_private(self._host_ns)
        sc.mount(_DEBUG_TMPFS_SOURCE, DEBUGFS_DIR, "tmpfs", sc.MS_NOSUID | sc.MS_NODEV | sc.MS_NOEXEC, "mode=0700")
        self._mounted.append(DEBUGFS_DIR)
        os.mkdir(DEBUG_TRACING_DIR, 0o700)
        sc.mount(TRACING_DIR, DEBUG_TRACING_DIR, None, sc.MS_BIND)
        self._mounted.append(DEBUG_TRACING_DIR)

    def bind_debug_views(self) -> None:
        """Bind the daemon's view of the emulated kernel's debugfs kprobes/ at its Linux path
        (after bind_debug_tracing), and of its PMUs over /sys/bus/event_source/devices (the
        host's are not the PMUs a session's perf_event_open reaches). Absent (a kernel image
        without kprobes), a view is left out, as the files of a kernel without them. The
        kernel's BTF goes over /sys/kernel/btf (the host's would describe the host's kernel;
        a host without the directory gets none: sysfs takes no new one). The host's PMUs are
        reachable by their own sysfs directories too (/sys/devices/NAME, where
        perf_event_mux_interval_ms is writable): each is covered by the emulated kernel's PMU of
        that name, or by an empty read-only directory."""
        host_pmus = ([os.path.realpath(os.path.join(EVENT_SOURCE_DIR, name)) for name in os.listdir(EVENT_SOURCE_DIR)]
                     if os.path.isdir(EVENT_SOURCE_DIR) else [])
        self._bind_views({"kprobes": DEBUGFS_DIR + "/kprobes", EVENT_SOURCE_VIEW: EVENT_SOURCE_DIR,
                          BTF_VIEW: BTF_DIR})
        emulated = os.path.join(TRACING_DIR, DEBUG_VIEWS_DIR, EVENT_SOURCE_VIEW)
        for directory in sorted(host_pmus):
            if not os.path.isdir(directory) or directory.startswith(EVENT_SOURCE_DIR + "/"):
                continue
            own = os.path.join(emulated, os.path.basename(directory))
            if os.path.isdir(own):
                sc.mount(own, directory, None, sc.MS_BIND)
            else:
                self._cover_empty(directory)
            self._mounted.append(directory)

    def bind_proc_views(self) -> None:
        """Bind the daemon's /proc/mounts (the reader's mounts as a tracing tool expects them,
        mounts_view) over the /proc/mounts symlink, and its /proc/sys/debug over the whole of
        the host's: the host's sysctls there (exception-trace) are not the emulated kernel's,
        and a write to them must not reach the host."""
        assert_private(self._host_ns)
        views = os.path.join(TRACING_DIR, DEBUG_VIEWS_DIR)
        files = {PROC_MOUNTS_VIEW: "/proc/mounts", PROC_KALLSYMS_VIEW: "/proc/kallsyms", PROC_VERSION_VIEW: "/proc/version",
                 PROC_KMSG_VIEW: "/proc/kmsg"}
        for view, directory in ((SYSCTL_KERNEL_VIEW, _PROC_SYS_KERNEL), (SYSCTL_NET_CORE_VIEW, _PROC_SYS_NET_CORE)):
            sysctls = os.path.join(views, view)
            served = sorted(os.listdir(sysctls)) if os.path.isdir(sysctls) else []
            missing = [name for name in served if not os.path.lexists(os.path.join(directory, name))]
            if missing and os.path.isdir(directory):
                # (a file cannot be made in /proc: a tmpfs holds an empty one per missing sysctl,
                # which the view covers below)
                self._lay_tmpfs_over(directory, 0o555)
                for name in missing:
                    os.close(os.open(os.path.join(directory, name), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            for name in served:
                files[os.path.join(view, name)] = os.path.join(directory, name)
        for name, target in files.items():
            if not os.path.lexists(target):
                continue   # a file this host's kernel lacks cannot be made in /proc
            # A bind would follow /proc/mounts' symlink: a detached clone covers it instead.
            fd = sc.open_tree_clone(os.path.join(views, name))
            try:
                sc.move_mount_fd(fd, target)
            finally:
                os.close(fd)
            self._mounted.append(target)
        self._bind_views({"sysctl-debug": "/proc/sys/debug"})

    def cover_dev_kmsg(self) -> None:
        """Make the host's /dev/kmsg unopenable in the namespace: bound over itself, nodev (an
        open of a device there fails with EACCES, whatever name reached it). The session's
        opens of /dev/kmsg (its path, or a link or dirfd that names the device with a last
        component `kmsg`) never reach it: the supervisor has the emulated kernel serve them, and
        its log is the session's (session/native/mirror.c's opens_kmsg). stat() still shows
        the device, as on Linux."""
        assert_private(self._host_ns)
        try:
            if not stat.S_ISCHR(os.lstat(DEV_KMSG).st_mode):
                return   # no device there (a container's link to /dev/null): nothing to cover
        except FileNotFoundError:
            return
        sc.mount(DEV_KMSG, DEV_KMSG, None, sc.MS_BIND)
        self._mounted.append(DEV_KMSG)
        try:
            sc.mount(None, DEV_KMSG, None, sc.MS_REMOUNT | sc.MS_BIND | sc.MS_NODEV | sc.MS_NOSUID | sc.MS_NOEXEC)
        except OSError as e:
            raise NamespaceError(f"cannot make {DEV_KMSG} nodev: {e.strerror}") from e

    def cover_host_tracing_mounts(self) -> None:
        """Cover each of the host's tracefs, debugfs and bpf file systems mounted in the
        namespace with an empty read-only directory, before the simulator is mounted: a
        session must neither read the host's trace nor unpin its BPF objects. (The simulator then
        goes over /sys/kernel/tracing, a tmpfs over /sys/kernel/debug.) Mounts inside a covered
        one are hidden with it."""
        assert_private(self._host_ns)
        with open("/proc/self/mountinfo") as f:
            mountinfo = f.read()
        for where in host_tracing_mounts(mountinfo):
            self._cover_empty(where)
            self._mounted.append(where)

    def cover_block_tracing(self) -> None:
        """Cover the host's blktrace files (`trace/` of each block device and partition in
        sysfs: enable, act_mask, pid, start_lba, end_lba) with an empty read-only directory:
        a write there would set up blktrace on the host's disk (a write gets EROFS, as nothing
        there can be made). Then show the emulated kernel's disks' own (the daemon's
        BLOCK_TRACE_VIEW, kernel/blktrace.c's attributes) at /sys/block/DEV/trace: over the
        host's device of that name if it has one, else in a directory DEV made in a tmpfs laid
        over /sys/block (which keeps the host's links). blktrace's ioctls are refused by the
        session's filter (session/native/filter.c). A device that appears later (a new loop
        device) is not covered."""
        assert_private(self._host_ns)
        for name in sorted(os.listdir(SYS_CLASS_BLOCK)) if os.path.isdir(SYS_CLASS_BLOCK) else []:
            trace = os.path.join(os.path.realpath(os.path.join(SYS_CLASS_BLOCK, name)), "trace")
            if not os.path.isdir(trace):
                continue
            self._cover_empty(trace)
            self._mounted.append(trace)
        views = os.path.join(TRACING_DIR, DEBUG_VIEWS_DIR, BLOCK_TRACE_VIEW)
        disks = sorted(os.listdir(views)) if os.path.isdir(views) else []
        if not disks or not os.path.isdir(SYS_BLOCK):
            return
        if any(not os.path.isdir(os.path.join(SYS_BLOCK, disk, "trace")) for disk in disks):
            self._lay_tmpfs_over(SYS_BLOCK, 0o755)
        for disk in disks:
            trace = os.path.join(SYS_BLOCK, disk, "trace")
            if not os.path.isdir(trace):
                if os.path.islink(os.path.join(SYS_BLOCK, disk)):
                    os.unlink(os.path.join(SYS_BLOCK, disk))   # a host disk of that name without blktrace
                os.makedirs(trace, 0o755)   # in the tmpfs
            sc.mount(os.path.join(views, disk), os.path.realpath(trace), None, sc.MS_BIND)
            self._mounted.append(os.path.realpath(trace))

    @staticmethod
    def _cover_empty(directory: str) -> None:
        """An empty read-only directory over the host's `directory` (the caller notes the mount)."""
        sc.mount("tracefs-sim", directory, "tmpfs", sc.MS_NOSUID | sc.MS_NODEV | sc.MS_NOEXEC | sc.MS_RDONLY,
                 "mode=0555")

    def _lay_tmpfs_over(self, directory: str, mode: int) -> None:
        """Make room in `directory` for entries the host's lacks, without hiding its own: a tmpfs
        over it holds an entry per host entry, each with the host's bound over it (from a
        detached clone taken before; a symlink is made again), to which the caller adds."""
        host = sc.open_tree_clone(directory)
        try:
            base = f"/proc/self/fd/{host}"
            names = sorted(os.listdir(base))
            sc.mount("tracefs-sim", directory, "tmpfs", sc.MS_NOSUID | sc.MS_NODEV | sc.MS_NOEXEC, f"mode={mode:o}")
            self._mounted.append(directory)
            for name in names:
                source, target = os.path.join(base, name), os.path.join(directory, name)
                if os.path.islink(source):
                    os.symlink(os.readlink(source), target)
                    continue
                if os.path.isdir(source):
                    os.mkdir(target)
                else:
                    os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
                fd = sc.open_tree_clone(source)
                try:
                    sc.move_mount_fd(fd, target)
                finally:
                    os.close(fd)
                self._mounted.append(target)
        finally:
            os.close(host)

    def bind_debuginfo(self, vmlinux: str, release: str, comp_dir: str, sources: str) -> None:
        """Show the emulated kernel's debuginfo where perf looks for the running kernel's: its
        build-id (the daemon's view) over /sys/kernel/notes, its vmlinux at
        /usr/lib/debug/boot/vmlinux-RELEASE and its sources at the directory its DWARF names.
        A path the host lacks is made in a tmpfs over its nearest existing directory, which
        shows that directory's own entries still (_lay_tmpfs_over)."""
        assert_private(self._host_ns)
        notes = os.path.join(TRACING_DIR, DEBUG_VIEWS_DIR, NOTES_VIEW)
        if os.path.exists(notes) and os.path.exists(NOTES_FILE):
            self._graft(notes, NOTES_FILE)
        self._graft(vmlinux, DEBUG_VMLINUX.format(release=release))
        self._graft(sources, comp_dir)

    def link_kernel_headers(self, release: str) -> str | None:
        """Show Linux 6.1's headers as the emulated kernel's, at /lib/modules/RELEASE/{build,source},
        for what compiles against the running kernel's (BCC): the links of the newest Debian
        linux-headers-6.1.*-amd64 installed (the emulated kernel is Debian's 6.1 amd64 where
        programs reach into it: its syscalls, events and the structures probes read). Returns
        the headers' release, or None (none installed: BCC then says it found no headers)."""
        assert_private(self._host_ns)
        found = debian_61_headers()
        if found is None:
            return None
        headers_release, links = found
        target = os.path.join(MODULES_DIR, release)
        if not os.path.lexists(target):
            self._lay_tmpfs_over(MODULES_DIR, os.stat(MODULES_DIR).st_mode & 0o7777)
            os.mkdir(target, 0o755)
        for name, where in links.items():
            os.symlink(where, os.path.join(target, name))
        return headers_release

    def _graft(self, source: str, target: str) -> None:
        """Bind `source` (a file or a directory) at `target`, making `target` if the host lacks it."""
        if not os.path.lexists(target):
            top = os.path.dirname(target)
            while not os.path.isdir(top):
                top = os.path.dirname(top)
            if top == "/":
                raise NamespaceError(f"no directory of the host to show {target} in")
            self._lay_tmpfs_over(top, os.stat(top).st_mode & 0o7777)
            os.makedirs(os.path.dirname(target), 0o755, exist_ok=True)
            if os.path.isdir(source):
                os.mkdir(target, 0o755)
            else:
                os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        sc.mount(source, target, None, sc.MS_BIND)
        self._mounted.append(target)

    def _bind_views(self, views: dict[str, str]) -> None:
        assert_private(self._host_ns)
        for name, target in views.items():
            source = os.path.join(TRACING_DIR, DEBUG_VIEWS_DIR, name)
            if not os.path.isdir(source):
                continue
            if target.startswith(DEBUGFS_DIR + "/"):
                os.mkdir(target, 0o755)   # in the session's own tmpfs
            elif not os.path.isdir(target):
                continue   # the host's proc lacks the directory: nothing to cover it with
            sc.mount(source, target, None, sc.MS_BIND)
            self._mounted.append(target)

    def lay_files(self, nr_cpus: int) -> None:
        """Cover the CPU lists with the emulated kernel's, and sched_rt_runtime_us with a
        writable private copy."""
        assert_private(self._host_ns)
        contents = {
            "/sys/devices/system/cpu/possible": cpu_list(nr_cpus),
            "/sys/devices/system/cpu/present": cpu_list(nr_cpus),
            "/sys/devices/system/cpu/online": cpu_list(nr_cpus),
        }
        rt_runtime = "/proc/sys/kernel/sched_rt_runtime_us"
        if os.path.exists(rt_runtime):
            with open(rt_runtime) as f:
                contents[rt_runtime] = f.read()
        # A target the host kernel lacks cannot be created in /proc or /sys: skip it.
        contents = {target: text for target, text in contents.items() if os.path.lexists(target)}
        clones = self._clone_files(contents)
        try:
            for target, fd in clones.items():
                sc.move_mount_fd(fd, target)
                self._mounted.append(target)
        finally:
            for fd in clones.values():
                os.close(fd)

    @staticmethod
    def _clone_files(contents: dict[str, str]) -> dict[str, int]:
        """Detached mounts of files holding `contents`, made in a scratch tmpfs that is gone
        again (from the host's view too) before this returns."""
        scratch = tempfile.mkdtemp(prefix="tracefs-sim-")
        clones: dict[str, int] = {}
        try:
            sc.mount("tracefs-sim", scratch, "tmpfs", sc.MS_NOSUID | sc.MS_NODEV | sc.MS_NOEXEC, "mode=0755")
            try:
                for i, (target, text) in enumerate(contents.items()):
                    path = os.path.join(scratch, str(i))
                    with open(path, "w") as f:
                        f.write(text)
                    os.chmod(path, os.stat(target).st_mode & 0o777)
                    clones[target] = sc.open_tree_clone(path)
            finally:
                sc.umount2(scratch, sc.MNT_DETACH)
        except BaseException:
            for fd in clones.values():
                os.close(fd)
            raise
        finally:
            os.rmdir(scratch)
        return clones

    def teardown(self) -> list[str]:
        """Unmount everything laid, newest first; returns the problems met (never raises)."""
        problems = []
        while self._mounted:
            target = self._mounted.pop()
            try:
                sc.umount2(target, sc.MNT_DETACH | sc.UMOUNT_NOFOLLOW)
            except OSError as e:
                problems.append(f"cannot unmount {target}: {e.strerror}")
        return problems


def enter_session_proc(host_ns: str, nr_cpus: int) -> None:
    """In pid 1 of a session's new PID namespace (session/launch.py): a mount namespace of its
    own, so that the launcher's /proc stays the host's, with a /proc of the new PID namespace
    and the emulated kernel's files laid over it. Nothing here needs undoing: the namespace
    ends with the session's last process."""
    sc.unshare(sc.CLONE_NEWNS)
    sc.mount(None, "/", None, sc.MS_REC | sc.MS_PRIVATE)
    assert_private(host_ns)
    sc.mount("proc", "/proc", "proc", sc.MS_NOSUID | sc.MS_NODEV | sc.MS_NOEXEC)
    overlay = Overlay(host_ns)
    overlay.bind_proc_views()
    overlay.cover_dev_kmsg()
    overlay.lay_files(nr_cpus)
