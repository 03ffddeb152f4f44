"""Fixed: start every node of the job with the same rendezvous endpoint and id.

Same 2-node torchrun job as repro.py, but both agents are launched (here as
two local processes standing in for two machines), with identical --nnodes,
--rdzv-backend, --rdzv-endpoint and --rdzv-id. The rendezvous completes and
both workers run.

CPU only; the script runs the two torchrun agents as child processes
(launcher: python).
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
        endpoint = f"127.0.0.1:{free_port()}"
        cmd = [
            sys.executable, "-m", "torch.distributed.run",
            "--nnodes=2", "--nproc-per-node=1",
            "--rdzv-backend=c10d", f"--rdzv-endpoint={endpoint}", "--rdzv-id=job42",
            "--rdzv-conf=join_timeout=60",
            str(worker),
        ]
        nodes = [subprocess.Popen(cmd) for _ in range(2)]  # node 1 and node 2
        codes = [p.wait(timeout=120) for p in nodes]
        if codes != [0, 0]:
            print("agents exited with", codes, file=sys.stderr)
            return 1
        print("ok: both nodes joined the rendezvous", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
