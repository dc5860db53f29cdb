"""The machine's native helpers (native/*.c): shared libraries the package's build makes
(setup.py: native/libNAME.so), loaded with ctypes."""
from __future__ import annotations

import ctypes
import functools
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _ctypes import _CData

NATIVE = Path(__file__).resolve().parent / "native"


@functools.cache
def load(name: str) -> ctypes.CDLL:
    """native/lib<name>.so, loaded once."""
    path = NATIVE / f"lib{name}.so"
    try:
        return ctypes.CDLL(str(path))
    except OSError as e:
        raise RuntimeError(f"{path} is missing or unloadable: build the package (pip install -e ., or "
                           f"python setup.py build_ext --inplace) ({e})") from None


def address(pointer: _CData | int) -> int:
    """The address a ctypes function or pointer holds (a C function of a loaded library, a
    callback made with CFUNCTYPE, a pointer), as native code is handed it."""
    value = ctypes.cast(pointer, ctypes.c_void_p).value
    if value is None:
        raise ValueError(f"{pointer!r} is a NULL pointer")
    return value
