"""Fixed: give the DataLoader workers enough shared memory.

Same loader as repro.py. The fix for a container is to start it with a
larger /dev/shm (``docker run --shm-size=8g`` / ``--ipc=host``, or an
``emptyDir: {medium: Memory}`` volume on /dev/shm in Kubernetes). Here the
script re-runs itself in a private mount namespace whose /dev/shm is a
256 MB tmpfs, the same thing ``--shm-size=256m`` does, and the same 16 MB
batches load. Where namespaces are not available it runs on the host's
/dev/shm, which is what a correctly sized container has.

CPU only, one process plus its DataLoader workers (launcher: python).
"""

import os
import shutil
import subprocess
import sys

import torch
from torch.utils.data import DataLoader, Dataset

SHM_SIZE = "256m"  # enough for 2 workers x prefetch_factor 2 x 16 MB batches
INSIDE = "ERRKB_REPRO_PRIVATE_SHM"


class Frames(Dataset):
    """Samples of 16 MB each (e.g. a decoded video clip)."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.full((4 * 1024 * 1024,), float(index))


def load() -> int:
    loader = DataLoader(Frames(), batch_size=1, num_workers=2)
    for step, batch in enumerate(loader):
        print(f"step {step}: batch of {batch.numel() * 4 >> 20} MB", flush=True)
    return 0


def rerun_with_shm(size: str) -> int | None:
    """Run this script again with a private /dev/shm of ``size``; None if impossible here."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    mount_and_run = f'mount -t tmpfs -o size={size} tmpfs /dev/shm && exec "$@"'
    command = [unshare, "--user", "--map-root-user", "--mount", "sh", "-c", mount_and_run,
               "sh", sys.executable, os.path.abspath(__file__)]
    probe = subprocess.run([unshare, "--user", "--map-root-user", "--mount", "true"],
                           capture_output=True)
    if probe.returncode != 0:
        return None
    return subprocess.run(command, env={**os.environ, INSIDE: "1"}).returncode


def main() -> int:
    if os.environ.get(INSIDE) == "1":
        return load()
    code = rerun_with_shm(SHM_SIZE)
    return load() if code is None else code


if __name__ == "__main__":
    sys.exit(main())
