"""Values every start computes the same way from the same inputs, kept in a file as a build
product for the next start to load, keyed by a hash of those inputs.

Two of them: what reading a kernel image computes (its symbols, its kallsyms table, its events,
its mcount sites, its DWARF's directory: ~75 ms of Python for this kernel), kept next to the
image in IMAGE.start-cache (image.py; ~5 ms to load); and where Unicorn keeps its exit-check
flags (slicer.py), found by disassembling its code with capstone, whose import alone is ~11 ms.

A key hashes the inputs' bytes (for an image, the parts that identify it: its ELF notes, the
linker's GNU build-id, a hash of what it linked, and what the build edits after the link) and
the code that computes the values: other inputs or changed code find the file stale and make it
again. A file that cannot be read or written (a read-only directory, a truncated file) is only
a slower start."""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Sequence
from typing import Any

IMAGE_SUFFIX = ".start-cache"


def key(inputs: Sequence[bytes], sources: Sequence[str | None]) -> bytes | None:
    """A hash of the inputs' bytes and of the sources (the modules that compute the values);
    None if a source is not at hand (no cache)."""
    digest = hashlib.sha256()
    for part in inputs:
        digest.update(len(part).to_bytes(8, "little") + part)
    for path in sources:
        try:
            with open(path, "rb") as f:  # type: ignore[arg-type]  # (None: TypeError)
                digest.update(f.read())
        except (OSError, TypeError):
            return None
    return digest.digest()


def load(path: str, want: bytes) -> Any:
    """The values kept in the file at path, if they were made from `want`; else None."""
    try:
        with open(path, "rb") as f:
            made_from, values = pickle.load(f)
    except Exception:  # absent, unreadable, truncated, or of classes that changed: stale
        return None
    return values if made_from == want else None


def store(path: str, made_from: bytes, values: Any) -> None:
    """Writes the file (atomically: a start reading it meanwhile sees the old one or none)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".start-cache-")
    except OSError:
        return  # a directory we may not write: no cache
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump((made_from, values), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
