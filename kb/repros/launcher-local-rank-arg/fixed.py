"""Fixed: the script reads the local rank the way its launcher gives it.

Two fixes from the article, both applied here with the same legacy
launcher that failed in repro.py: (1) the script's parser accepts both
spellings, ``--local-rank`` and ``--local_rank`` (what torch 2.x's
launch.py docstring recommends), and falls back to the LOCAL_RANK
environment variable; (2) the same script started with torchrun's own
module (``python -m torch.distributed.run``), which passes no argument and
sets LOCAL_RANK only.

CPU only, one process (launcher: python).
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
parser.add_argument("--local-rank", "--local_rank", type=int,
                    default=int(os.environ.get("LOCAL_RANK", 0)))
args = parser.parse_args()
print("local rank", args.local_rank, "epochs", args.epochs)
"""

with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "train.py")
    with open(script, "w") as f:
        f.write(TRAIN)
    for module, port in (("torch.distributed.launch", "29642"), ("torch.distributed.run", "29643")):
        cmd = [sys.executable, "-m", module, "--nproc-per-node", "1", "--master-port", port, script, "--epochs", "1"]
        print("running:", " ".join(cmd[1:]), flush=True)
        proc = subprocess.run(cmd, cwd=tmp, check=False)
        if proc.returncode != 0:
            sys.exit(f"{module} failed with {proc.returncode}")
print("both launchers ran the script")
