"""Give big freed buffers back to the OS, so that the server's RSS follows its load.

glibc's malloc serves a block at or above its mmap threshold from a mapping
of its own and unmaps it on ``free``; smaller blocks come from arenas, which
keep freed memory for reuse and return it only from the top of a heap. The
threshold starts at 128 KiB, but by default every freed mapped block raises it
to that block's size, up to 32 MiB. After the first 5 MB job log, then, the
next logs' buffers (the joined body, its gunzipped and decoded copies) come
from arenas, one per thread that handles a body. What those arenas keep grows
with how the uploads happened to overlap: the 30-minute PostgreSQL soak saw
RSS climb 11 % that way.

Setting the threshold turns that adjustment off: every block of a MiB or more
is mapped and unmapped, at the cost of the kernel zeroing its pages on each
use. Only ``errkb serve``'s processes call ``tune_malloc``; an operator who
sets glibc's own variables keeps them.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Mapping

MMAP_THRESHOLD_BYTES = 1 << 20
_M_MMAP_THRESHOLD = -3  # from glibc's <malloc.h>
_OPERATOR_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")


def tune_malloc(environ: Mapping[str, str] = os.environ) -> bool:
    """Fix glibc's mmap threshold at ``MMAP_THRESHOLD_BYTES``; whether it was set.

    False on another C library, or where the environment already tunes malloc.
    """
    if any(name in environ for name in _OPERATOR_SETTINGS):
        return False
    if platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL(None)
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))
