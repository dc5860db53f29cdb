"""Whether a process has a signal waiting to be delivered.

pyfuse3 has no FUSE_INTERRUPT handler, so a read that blocks in the daemon would leave the
reader unkillable; the daemon instead looks at the reader's pending signals while it waits.
"""

import signal

_MASK_FIELDS = (b"SigPnd:", b"ShdPnd:", b"SigBlk:", b"SigIgn:")
# SIGKILL/SIGSTOP can be neither blocked nor ignored.
_UNBLOCKABLE = (1 << (signal.SIGKILL - 1)) | (1 << (signal.SIGSTOP - 1))


def signal_pending(pid: int) -> bool:
    """True when pid (a task id, as FUSE reports it) has a deliverable signal pending, or is
    dead (gone, or a zombie whose request nobody waits for any more)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            text = status.read()
    except (FileNotFoundError, ProcessLookupError):
        return True
    masks = {}
    for line in text.splitlines():
        if line.startswith(b"State:") and line.split()[1] in (b"Z", b"X"):
            return True
        for name in _MASK_FIELDS:
            if line.startswith(name):
                masks[name] = int(line[len(name):].strip(), 16)
    pending = masks.get(b"SigPnd:", 0) | masks.get(b"ShdPnd:", 0)
    blocked = (masks.get(b"SigBlk:", 0) | masks.get(b"SigIgn:", 0)) & ~_UNBLOCKABLE
    return bool(pending & ~blocked)
