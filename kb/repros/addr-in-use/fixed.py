"""Fixed: give this job a port nobody else uses.

Same situation as repro.py: another process still listens on the port the
job was configured with. Instead of a fixed MASTER_PORT the job asks the
kernel for a free port (bind to port 0) and exports it before the process
group is created. With torchrun the same is done by ``--standalone`` or
``--rdzv-backend=c10d --rdzv-endpoint=localhost:0`` (single node), or by
passing every job its own ``--master-port``.

CPU only, one process, gloo (launcher: python).
"""

import os
import socket
import sys
from datetime import timedelta

import torch
import torch.distributed as dist


def occupy_a_port() -> socket.socket:
    """The 'other job': a listening socket on a port of this host."""
    other = socket.socket()
    other.bind(("0.0.0.0", 0))
    other.listen()
    return other


def free_port() -> int:
    """A port that is free right now (the kernel picks it)."""
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def main() -> int:
    other_job = occupy_a_port()
    taken = other_job.getsockname()[1]
    port = free_port()
    assert port != taken
    os.environ.update(
        MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1"
    )
    dist.init_process_group("gloo", timeout=timedelta(seconds=10))
    value = torch.ones(1)
    dist.all_reduce(value)
    print(f"ok: port {taken} is busy, this job uses {port}; all_reduce -> {value.item()}")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    code = main()
    # The work is done and the group destroyed; gloo's background threads can still
    # abort interpreter shutdown after a clean run ("terminate called without an
    # active exception", SIGABRT), which would report a working fix as broken. Leave
    # without finalisation.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
