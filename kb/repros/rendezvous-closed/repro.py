"""Reproduce: torchrun's RendezvousClosedError, a second job on a closed rendezvous.

A long-lived rendezvous store (this script hosts a TCPStore, standing in for
a shared c10d endpoint or an etcd server) serves two torchrun jobs launched
one after the other with the same ``--rdzv-id``, as a script with a fixed id
or a rerun of the same scheduler job id does. When the first job ends,
its agent closes the rendezvous in the store; the second job's agent finds
it closed when it tries to join and raises RendezvousClosedError before
starting any worker.

CPU only, no network beyond 127.0.0.1 (launcher: python); needs torch.
"""

import os
import subprocess
import sys
import tempfile
from datetime import timedelta

from torch.distributed import TCPStore

WORKER = """
import os
print(f"rank {os.environ['RANK']}: step done", flush=True)
"""


def torchrun(store_port: int, rdzv_id: str, script: str) -> int:
    command = [
        sys.executable, "-m", "torch.distributed.run",
        "--nnodes=1", "--nproc-per-node=1",
        "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{store_port}",
        f"--rdzv-id={rdzv_id}",  # BUG: the same id for every run on one store
        script,
    ]  # fmt: skip
    return subprocess.run(command, timeout=60).returncode


def main() -> int:
    store = TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=30))
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "train.py")
        with open(script, "w") as f:
            f.write(WORKER)
        for run in (1, 2):
            print(f"--- run {run}", flush=True)
            code = torchrun(store.port, "train-job", script)
            if code != 0:
                return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
