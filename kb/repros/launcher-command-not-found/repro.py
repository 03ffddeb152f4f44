"""Reproduce: a launcher command installed into an environment whose bin folder is
not on the shell's PATH ("torchrun: command not found").

``pip install torch`` puts the ``torchrun`` console script (like
``deepspeed``, ``accelerate``, ``swift``, ``llamafactory-cli``) into the
environment's own ``bin`` folder (``Scripts`` on Windows). A shell finds it
only when that folder is on PATH: after ``conda activate`` / ``source
.venv/bin/activate``. A job script run by a fresh non-interactive shell
(``sh run.sh``, ``bash -c``, cron, ssh to another node, a container
entrypoint, a tool's ``subprocess`` call) has the system PATH, and the shell
answers with its own message and status 127.

CPU only, one process (launcher: python): the script runs the training
command line through bash with the system PATH (/usr/bin:/bin), the way a
non-activated shell sees it, from the environment whose python runs this
file (its bin holds torchrun).
"""

import os
import shutil
import subprocess
import sys
import tempfile

env_bin = os.path.dirname(sys.executable)
print("torchrun is installed at:", shutil.which("torchrun", path=env_bin), flush=True)
system_path = "/usr/bin:/bin"
print("PATH of the job shell:", system_path, flush=True)

with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "train.py"), "w") as f:
        f.write("print('training')\n")
    with open(os.path.join(tmp, "run.sh"), "w") as f:
        f.write("#!/bin/bash\nset -e\ntorchrun --nproc-per-node 1 train.py\n")
    env = {"PATH": system_path, "HOME": tmp, "LANG": "C.UTF-8"}
    proc = subprocess.run(["bash", "run.sh"], cwd=tmp, env=env, check=False)
print("exit status", proc.returncode, flush=True)
sys.exit(proc.returncode or 1)
