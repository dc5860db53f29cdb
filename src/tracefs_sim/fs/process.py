"""What the daemon learns about a host process that uses the mount."""


def comm_of(pid: int) -> bytes:
    """/proc/<pid>/comm of a host process (b"<...>" once it is gone, as Linux prints an
    unknown task)."""
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().rstrip(b"\n")
    except OSError:
        return b"<...>"
