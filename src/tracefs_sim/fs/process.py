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
