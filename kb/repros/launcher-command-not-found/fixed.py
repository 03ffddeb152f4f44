"""Fixed: the same job script, with the environment's bin folder on PATH (what
activating the environment does), and the launcher started through the
interpreter instead (``python -m torch.distributed.run``, torchrun's module),
which needs no console script on PATH at all.

CPU only, one process (launcher: python).
"""

import os
import subprocess
import sys
import tempfile

env_bin = os.path.dirname(sys.executable)
with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "train.py"), "w") as f:
        f.write("print('training')\n")
    with open(os.path.join(tmp, "run.sh"), "w") as f:
        f.write("#!/bin/bash\nset -e\ntorchrun --nproc-per-node 1 --master-port 29661 train.py\n")
    with open(os.path.join(tmp, "run_module.sh"), "w") as f:
        f.write(f"#!/bin/bash\nset -e\n{sys.executable} -m torch.distributed.run --nproc-per-node 1 --master-port 29662 train.py\n")
    runs = (
        ("run.sh", {"PATH": f"{env_bin}:/usr/bin:/bin"}),  # the environment activated
        ("run_module.sh", {"PATH": "/usr/bin:/bin"}),  # no activation needed
    )
    for script, path in runs:
        env = {**path, "HOME": tmp, "LANG": "C.UTF-8"}
        proc = subprocess.run(["bash", script], cwd=tmp, env=env, check=False)
        if proc.returncode != 0:
            sys.exit(f"{script} failed with {proc.returncode}")
print("both job scripts ran")
