"""Reproduce: a launcher passes --local-rank to a script whose argparse does not define it.

``python -m torch.distributed.launch`` (deprecated, still shipped in torch
2.13) starts each worker as ``python train.py --local-rank=N <your args>``
unless ``--use-env`` is given; torch 1.x wrote ``--local_rank=N``, torch 2.0
and later the dashed ``--local-rank=N``. The DeepSpeed launcher appends
``--local_rank=N`` the same way (unless ``--no_local_rank``). A script whose
``argparse`` parser has no such option (written for torchrun, which passes
the rank only in the LOCAL_RANK environment variable; or one that declares
only the underscored spelling) exits in ``parse_args()`` with argparse's
"error: unrecognized arguments: --local-rank=0", status 2, and the launcher
reports the worker's failure.

CPU only, one process (launcher: python): the script writes a small training
script that reads LOCAL_RANK like torchrun-era code and starts it with the
legacy launcher, one worker, no process group.
"""

import os
import subprocess
import sys
import tempfile

TRAIN = """\
import argparse
import os

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=1)
args = parser.parse_args()  # no --local-rank / --local_rank option
print("local rank", os.environ.get("LOCAL_RANK"), "epochs", args.epochs)
"""

with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "train.py")
    with open(script, "w") as f:
        f.write(TRAIN)
    cmd = [sys.executable, "-m", "torch.distributed.launch", "--nproc-per-node", "1",
           "--master-port", "29641", script, "--epochs", "1"]
    print("running:", " ".join(cmd[1:]), flush=True)
    proc = subprocess.run(cmd, cwd=tmp, check=False)
sys.exit(proc.returncode or 1)
