"""Reproduce: the rendezvous port (MASTER_PORT) is already taken on this host.

Another job (here: a socket this script opens itself, standing in for a
previous run that is still alive, or a second job on the same node) listens
on the port. Rank 0 then calls ``init_process_group`` with
``MASTER_PORT`` set to that port; rank 0 must host the c10d TCPStore there,
the bind fails with EADDRINUSE, and torch raises "The server socket has
failed to listen on any local network address ... EADDRINUSE" (older
releases: "... (errno: 98 - Address already in use)" or just
"RuntimeError: Address already in use").

CPU only, one process, gloo (launcher: python). No network beyond loopback.
"""

import os
import socket
import sys
from datetime import timedelta

import torch.distributed as dist


def occupy_a_port() -> socket.socket:
    """The 'other job': a listening socket on a port of this host."""
    other = socket.socket()
    other.bind(("0.0.0.0", 0))
    other.listen()
    return other


def main() -> int:
    other_job = occupy_a_port()
    port = other_job.getsockname()[1]
    os.environ.update(
        MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1"
    )
    print(f"MASTER_PORT={port} (already in use by another process)", flush=True)
    dist.init_process_group("gloo", timeout=timedelta(seconds=10))
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
