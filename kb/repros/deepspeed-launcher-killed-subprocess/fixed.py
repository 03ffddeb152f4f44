"""Fixed: rank 0 no longer calls the broken native code, so no rank crashes.

Two ranks run under the ``deepspeed`` launcher (``deepspeed.launcher.runner``,
which starts ``deepspeed.launcher.launch``). Rank 0 dies without a Python
traceback: it crashes in native code (a read through a null pointer, as a
compiled extension built for another torch or driver does), so the kernel
sends it SIGSEGV. The launcher polls its children once a
second; on the first non-zero exit its ``sigkill_handler`` logs ``Killing
subprocess <pid>`` for every rank, terminates them, logs ``[...] exits with
return code = -11`` and exits with that code. The command in that line is the
*last* rank the launcher spawned (``--local_rank=1`` here), not the one that
died, and nothing in the launcher's lines says why rank 0 died.

CPU only (DeepSpeed's CPU accelerator), two processes started by the DeepSpeed
launcher from this script; no collective, no network (launcher: python).
"""

import os
import subprocess
import sys
import tempfile

WORKER = '''
import os

rank = int(os.environ["RANK"])
print(f"rank {rank}: running the fused kernel", flush=True)
# FIX: the cause found outside the launcher's lines (a faulthandler run showed the crash
# in the extension); the extension was rebuilt for this torch, so no rank crashes.
print(f"rank {rank}: step done", flush=True)
'''


def main() -> int:
    folder = tempfile.mkdtemp()
    worker = os.path.join(folder, "train.py")
    with open(worker, "w") as f:
        f.write(WORKER)
    command = [
        sys.executable, "-m", "deepspeed.launcher.runner",
        "--num_gpus", "2", "--master_port", "29531", worker,
    ]  # fmt: skip
    launcher = subprocess.run(command, cwd=folder)
    print(f"deepspeed launcher exit status: {launcher.returncode}", flush=True)
    return launcher.returncode


if __name__ == "__main__":
    sys.exit(main())
