"""What the daemon learns about a host process that uses the mount."""

import os


def comm_of(pid: int) -> bytes:
    """/proc/<pid>/comm of a host process (b"<...>" once it is gone, as Linux prints an
    unknown task)."""
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().rstrip(b"\n")
    except OSError:
        return b"<...>"


def traced_pid(pid: int) -> int:
    """The pid the emulated kernel knows a host process by: a session's processes live in a
    PID namespace of their own (session/), whose numbers are their tasks' there (NSpid's
    second entry: the first is this daemon's namespace, the one its /proc shows); any other
    process keeps its own."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("NSpid:"):
                    numbers = line.split()[1:]
                    return int(numbers[1]) if len(numbers) > 1 else pid
    except (OSError, ValueError):
        pass
    return pid


def opened_nonblocking(pid: int, inode: int, path: str) -> bool:
    """Whether pid holds the mount's file `path` (inode `inode`) open with O_NONBLOCK now.

    FUSE sends a file's flags with each read, but pyfuse3's read() does not pass them on, so
    a flag set after open with fcntl(F_SETFL) (as trace-cmd does before flushing the buffers)
    is looked up where the kernel keeps it: /proc/<pid>/fdinfo. The fd is the one whose
    fdinfo names the inode and whose link ends with the file's path inside the mount."""
    fd_dir = f"/proc/{pid}/fd"
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return False
    suffix = "/" + path
    for fd in fds:
        try:
            if not os.readlink(f"{fd_dir}/{fd}").endswith(suffix):
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as info:
                fields = dict(line.split(":", 1) for line in info if ":" in line)
        except OSError:
            continue
        if int(fields.get("ino", "-1")) == inode and int(fields["flags"], 8) & os.O_NONBLOCK:
            return True
    return False
