"""Fixed: make sure the file is the real safetensors file before loading it.

Same checkout as repro.py: the weights are an LFS pointer. The fix is to fetch
the real object (``git lfs install && git lfs pull`` in the clone, or download
the repository with ``huggingface-cli download`` / ``snapshot_download``)
and to check a weights file before handing it to safetensors: a pointer or an
HTML page is recognised by its first bytes, and a safetensors file's declared
header length must fit inside the file. Here "fetching" copies the object from
the stand-in LFS store after checking the size and sha256 that the pointer
names, as ``git lfs pull`` does.

CPU only, no downloads, temporary files (launcher: python).
"""

import hashlib
import json
import os
import shutil
import struct
import sys
import tempfile

import torch
from safetensors.torch import load_file, save_file

POINTER = "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n"
LFS_MAGIC = b"version https://git-lfs"


def publish(store: str) -> str:
    torch.manual_seed(0)
    weights = {"embed.weight": torch.randn(64, 16), "head.weight": torch.randn(8, 16)}
    path = os.path.join(store, "model.safetensors")
    save_file(weights, path)
    return path


def clone_without_lfs(real: str, checkout: str) -> str:
    with open(real, "rb") as handle:
        blob = handle.read()
    path = os.path.join(checkout, "model.safetensors")
    with open(path, "w", encoding="ascii") as handle:
        handle.write(POINTER.format(oid=hashlib.sha256(blob).hexdigest(), size=len(blob)))
    return path


def lfs_pointer(path: str) -> dict[str, str] | None:
    """The pointer's fields (oid, size) if ``path`` is a Git LFS pointer, else None."""
    with open(path, "rb") as handle:
        head = handle.read(512)
    if not head.startswith(LFS_MAGIC):
        return None
    fields = dict(line.split(" ", 1) for line in head.decode("ascii").splitlines() if " " in line)
    return {"oid": fields["oid"].removeprefix("sha256:"), "size": fields["size"]}


def pull(pointer: dict[str, str], store: str, path: str) -> None:
    """Stand-in for ``git lfs pull``: fetch the object and check it against the pointer."""
    source = os.path.join(store, "model.safetensors")
    with open(source, "rb") as handle:
        blob = handle.read()
    if len(blob) != int(pointer["size"]) or hashlib.sha256(blob).hexdigest() != pointer["oid"]:
        raise RuntimeError("the fetched object does not match the pointer")
    shutil.copyfile(source, path)


def check_safetensors(path: str) -> None:
    """The header length must fit inside the file and the header must be JSON."""
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        if length > size - 8:
            raise ValueError(f"{path}: header of {length} bytes in a {size}-byte file")
        json.loads(handle.read(length))


def main() -> int:
    with tempfile.TemporaryDirectory() as store, tempfile.TemporaryDirectory() as checkout:
        real = publish(store)
        path = clone_without_lfs(real, checkout)
        pointer = lfs_pointer(path)
        if pointer is not None:
            print(f"{path} is a Git LFS pointer: pulling {pointer['size']} bytes", flush=True)
            pull(pointer, store, path)
        check_safetensors(path)
        state = load_file(path)
        print(f"loaded {len(state)} tensors: {sorted(state)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
