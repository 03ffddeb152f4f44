"""Reproduce: safetensors "Error while deserializing header: HeaderTooLarge".

A model repository is cloned without Git LFS (or its LFS objects were never
pulled): every large file in the working tree is a 130-byte *pointer*, a
text file that starts with ``version https://git-lfs.github.com/spec/v1``.
A safetensors file starts with the length of its JSON header as an unsigned
64-bit little-endian integer; read from a pointer, those first 8 bytes are the
ASCII text ``version `` and decode to about 2.3e18 bytes, far above the
100 MB header limit, so safetensors refuses the file with ``HeaderTooLarge``
(``header too large`` since safetensors 0.6). The same happens with an HTML
error page saved under the weights' name.

The script saves real weights into a stand-in for the remote LFS store, puts
the pointer that a clone without ``git lfs`` leaves in the checkout, and loads
the checkout's file. CPU only, no downloads, temporary files (launcher: python).
"""

import hashlib
import os
import sys
import tempfile

import torch
from safetensors.torch import load_file, save_file

POINTER = "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n"


def publish(store: str) -> str:
    """The real weights, as the LFS server holds them."""
    torch.manual_seed(0)
    weights = {"embed.weight": torch.randn(64, 16), "head.weight": torch.randn(8, 16)}
    path = os.path.join(store, "model.safetensors")
    save_file(weights, path)
    return path


def clone_without_lfs(real: str, checkout: str) -> str:
    """What ``git clone`` writes for an LFS-tracked file when git-lfs is not installed."""
    with open(real, "rb") as handle:
        blob = handle.read()
    path = os.path.join(checkout, "model.safetensors")
    with open(path, "w", encoding="ascii") as handle:
        handle.write(POINTER.format(oid=hashlib.sha256(blob).hexdigest(), size=len(blob)))
    return path


def main() -> int:
    with tempfile.TemporaryDirectory() as store, tempfile.TemporaryDirectory() as checkout:
        real = publish(store)
        path = clone_without_lfs(real, checkout)
        print(f"{path}: {os.path.getsize(path)} bytes on disk", flush=True)
        state = load_file(path)  # BUG: the file is an LFS pointer, not the weights
        print(f"loaded {len(state)} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
