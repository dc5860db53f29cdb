"""The machine's native helpers (native/*.c), built by `make -C kernel_model`."""
from __future__ import annotations

import ctypes
import functools
from pathlib import Path

BUILD = Path(__file__).resolve().parent / "native" / "build"


@functools.cache
def load(name: str) -> ctypes.CDLL:
    """native/build/lib<name>.so, loaded once."""
    path = BUILD / f"lib{name}.so"
    try:
        return ctypes.CDLL(str(path))
    except OSError as e:
        raise RuntimeError(f"{path} is missing or unloadable: run `make -C kernel_model` ({e})") from None
