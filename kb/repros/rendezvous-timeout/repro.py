"""Reproduce: torchrun "RendezvousTimeoutError" when fewer nodes join than
--nnodes asks for.

torchrun is started for a 2-node job (--nnodes=2, c10d rendezvous on
127.0.0.1) but only this one node is launched: the second node's command was
never run, failed to start, or points at another --rdzv-endpoint/--rdzv-id.
The agent waits for the second node until join_timeout (600 s by default,
3 s here) and raises RendezvousTimeoutError before any worker starts.

CPU only; this script runs torchrun itself as a child process because the
failure is in the launcher (launcher: python).
"""

import socket
import subprocess
import sys
import tempfile
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        worker = Path(tmp) / "train.py"
        worker.write_text('import os\nprint("worker", os.environ["RANK"], "of", os.environ["WORLD_SIZE"])\n')
        cmd = [
            sys.executable, "-m", "torch.distributed.run",
            "--nnodes=2", "--nproc-per-node=1",  # a 2-node job ...
            "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{free_port()}", "--rdzv-id=job42",
            "--rdzv-conf=join_timeout=3",
            str(worker),
        ]  # ... but the second node is never started
        return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
