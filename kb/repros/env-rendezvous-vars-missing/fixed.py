"""Fixed: the same initialisation, started the two ways the article gives.

(1) The training script is started by a launcher, ``python -m
torch.distributed.run`` (torchrun's module), which sets RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR and MASTER_PORT for its worker; (2) a single-process
run without a launcher fills in the one-process defaults before
init_process_group (what the article's fix does for plain ``python
train.py``).

CPU only (gloo), one process (launcher: python).
"""

import os
import subprocess
import sys
import tempfile

TRAIN = """\
import torch.distributed as dist
dist.init_process_group(backend="gloo")
print("rank", dist.get_rank(), "of", dist.get_world_size())
dist.destroy_process_group()
"""

env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")}
with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "train.py")
    with open(script, "w") as f:
        f.write(TRAIN)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "1", "--master-port", "29651", script]
    print("running:", " ".join(cmd[1:]), flush=True)
    if subprocess.run(cmd, cwd=tmp, env=env, check=False).returncode != 0:
        sys.exit("the launched run failed")

import torch.distributed as dist  # noqa: E402

for var, default in (("RANK", "0"), ("WORLD_SIZE", "1"), ("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", "29652")):
    os.environ.setdefault(var, default)
dist.init_process_group(backend="gloo")
print("single process: rank", dist.get_rank(), "of", dist.get_world_size())
dist.destroy_process_group()
