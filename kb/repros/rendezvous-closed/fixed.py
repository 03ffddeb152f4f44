"""Fixed: every run gets its own rendezvous id.

Same store and the same two torchrun jobs as repro.py, but each run passes a
fresh ``--rdzv-id`` (a scheduler's job id, or a uuid as here), so the second
job joins a new rendezvous instead of the one the first job closed when it
ended. Both jobs run their worker and exit 0.

CPU only, no network beyond 127.0.0.1 (launcher: python); needs torch.
"""

import os
import subprocess
import sys
import tempfile
import uuid
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
        f"--rdzv-id={rdzv_id}",
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
            code = torchrun(store.port, f"train-job-{uuid.uuid4().hex[:8]}", script)  # the fix
            if code != 0:
                return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
