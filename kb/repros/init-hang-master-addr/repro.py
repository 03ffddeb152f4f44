"""Reproduce: init_process_group "hangs" and then fails with "The client socket
has timed out after ...ms while trying to connect to (MASTER_ADDR, MASTER_PORT)".

A worker (rank 1 of 2) is started with a MASTER_ADDR/MASTER_PORT where no
rank 0 is listening: the usual causes are a wrong address (the master's
loopback or docker address, a stale hostname), a wrong or different port, a
firewall dropping the port, or rank 0 not started. The worker keeps retrying
to reach the TCPStore until the timeout, 30 minutes by default; here 3 s
(the wait is all this script does: a longer one only slows CI down).

CPU only, gloo, one process (launcher: python); the port is chosen so that
nothing listens on it.
"""

import os
import socket
import sys
from datetime import timedelta

import torch.distributed as dist


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    os.environ.update(
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(free_port()),  # BUG: rank 0 is not listening here
        RANK="1",
        WORLD_SIZE="2",
    )
    dist.init_process_group("gloo", timeout=timedelta(seconds=3))
    print("joined", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
