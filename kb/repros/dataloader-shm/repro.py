"""Reproduce: DataLoader workers run out of shared memory (/dev/shm).

DataLoader workers hand every batch to the main process through shared
memory: the collated tensors are allocated in /dev/shm (a RAM-backed tmpfs).
Docker gives a container 64 MB of /dev/shm unless told otherwise, and a
Kubernetes pod gets whatever the container runtime gives it unless
an ``emptyDir: {medium: Memory}`` volume is mounted there. With several
workers, prefetching and large batches the tmpfs fills up: current PyTorch
reserves the space up front and the worker raises "unable to allocate shared
memory(shm) for file </torch_...>: No space left on device (28)"; when the
space runs out after the reservation (older releases, other writers) the
worker is killed by SIGBUS and the main process reports "DataLoader worker
(pid N) is killed by signal: Bus error".

The script does not fill the machine's real /dev/shm: it re-runs itself in a
private mount namespace (``unshare``) with an 8 MB tmpfs on /dev/shm, the
situation of a container started with ``--shm-size=8m``, and loads batches
of 16 MB. If user and mount namespaces are not available it says so and
simulates the SIGBUS death of a worker instead (the worker sends itself
SIGBUS, the signal the kernel sends when a page of a full tmpfs is touched),
which prints the same DataLoader messages as the real thing.

CPU only, one process plus its DataLoader workers (launcher: python).
"""

import os
import shutil
import signal
import subprocess
import sys

import torch
from torch.utils.data import DataLoader, Dataset

SHM_SIZE = "8m"  # the container's /dev/shm, as in `docker run --shm-size=8m`
INSIDE = "ERRKB_REPRO_PRIVATE_SHM"


class Frames(Dataset):
    """Samples of 16 MB each (e.g. a decoded video clip)."""

    def __init__(self, simulate_sigbus: bool = False) -> None:
        self.simulate_sigbus = simulate_sigbus

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> torch.Tensor:
        if self.simulate_sigbus:
            os.kill(os.getpid(), signal.SIGBUS)
        return torch.full((4 * 1024 * 1024,), float(index))


def load(simulate_sigbus: bool = False) -> int:
    loader = DataLoader(Frames(simulate_sigbus), batch_size=1, num_workers=2)
    for step, batch in enumerate(loader):
        print(f"step {step}: batch of {batch.numel() * 4 >> 20} MB", flush=True)
    return 0


def rerun_with_small_shm() -> int | None:
    """Run this script again with a private, small /dev/shm; None if impossible here."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    mount_and_run = f'mount -t tmpfs -o size={SHM_SIZE} tmpfs /dev/shm && exec "$@"'
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
    code = rerun_with_small_shm()
    if code is not None:
        return code
    print("no private mount namespace here: simulating the SIGBUS of a full /dev/shm",
          file=sys.stderr, flush=True)
    return load(simulate_sigbus=True)


if __name__ == "__main__":
    sys.exit(main())
