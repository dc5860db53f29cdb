"""The Linux mount-namespace calls Python 3.11's os module lacks, through libc (glibc >= 2.36)."""

from __future__ import annotations

import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
# open_tree/move_mount wrappers exist since glibc 2.36 (Debian 12).
_libc.open_tree.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
_libc.move_mount.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000

MS_RDONLY = 1
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32

MNT_DETACH = 2
UMOUNT_NOFOLLOW = 8

_AT_FDCWD = -100
_O_CLOEXEC = 0o2000000
_OPEN_TREE_CLONE = 1
_MOVE_MOUNT_F_EMPTY_PATH = 0x00000004


def _check(result: int, what: str, path: str | None = None) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}", path)
    return result


def _b(path: str | None) -> bytes | None:
    return None if path is None else os.fsencode(path)


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(_b(source), _b(target), _b(fstype), flags, _b(data)), "mount", target)


def umount2(target: str, flags: int) -> None:
    _check(_libc.umount2(_b(target), flags), "umount", target)


def open_tree_clone(path: str) -> int:
    """A detached bind mount of `path` (an fd), to be attached with move_mount_fd."""
    return _check(
        _libc.open_tree(_AT_FDCWD, _b(path), _OPEN_TREE_CLONE | _O_CLOEXEC),
        "open_tree",
        path,
    )


def move_mount_fd(fd: int, target: str) -> None:
    """Attach the detached mount `fd` at `target`; a symlink there is covered, not followed."""
    _check(
        _libc.move_mount(fd, b"", _AT_FDCWD, _b(target), _MOVE_MOUNT_F_EMPTY_PATH),
        "move_mount",
        target,
    )


_PR_SET_PDEATHSIG = 1
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


def set_parent_death_signal(signum: int) -> None:
    """Have the kernel send `signum` to this process when its parent exits."""
    _check(_libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0), "prctl")


_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Orphaned descendants are re-parented to this process (so it can end and reap them)."""
    _check(_libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl")
