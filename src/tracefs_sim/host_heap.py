"""How the daemon's C heap (glibc malloc) gives memory back to the system.

glibc serves a request of at least M_MMAP_THRESHOLD bytes with a mapping of its own, unmapped
when freed. By default that threshold moves: freeing such a mapping raises it to the freed size
(up to 32 MiB), after which requests that large come from the heap, and a heap keeps what is
freed in it. The daemon's large blocks are transient — the text of one `trace` read, a batch of
guest pages — so the moving threshold ratchets its RSS up to the largest read seen and keeps it
there: the soak measured some 5-10 MiB kept that way in ten minutes, with the memory in use flat.
A fixed threshold sends every large block back to the system as soon as it is freed.
"""

import ctypes

M_MMAP_THRESHOLD = -3   # mallopt's parameter number (malloc.h)
# Blocks from this size on get mappings of their own: glibc's own starting value, kept. The
# mapping costs a few microseconds per block, lost in the daemon's work on it (a `trace` read
# formats at some 20 MB/s; `bench read` showed no difference from the moving threshold).
MMAP_THRESHOLD_BYTES = 128 * 1024


def fix_mmap_threshold(threshold: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Fix glibc's mmap threshold for this process; False where malloc is not glibc's (the
    call is then left out: other allocators have their own policies)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, threshold) == 1)
