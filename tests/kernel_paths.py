"""Host paths as the emulated kernel's programs see them."""
import atexit
import shutil
import tempfile
from pathlib import Path


def kernel_visible(path: Path) -> Path:
    """path as the emulated kernel's programs see it: its /tmp is a tmpfs of its own, so a
    checkout under the host's /tmp is out of its sight; a file there is copied to /var/cache
    (removed when the tests end).  (Not /var/tmp: tests check what tools leave there.)"""
    if not path.resolve().is_relative_to("/tmp"):
        return path
    copy = host_directory() / path.name
    shutil.copy2(path, copy)
    return copy


def host_directory() -> Path:
    """A new host directory the emulated kernel's programs see (out of the host's /tmp),
    removed when the tests end."""
    where = Path(tempfile.mkdtemp(dir="/var/cache", prefix="tracefs-sim-tests-"))
    atexit.register(shutil.rmtree, where, True)
    return where
