"""Fixed: the checkpoint goes to an output folder the training user can write.

The same save as repro.py, run as the same (other) user, but ``output_dir`` is
a folder that user owns: created by the run itself under a writable base (the
user's own home or scratch folder, here a temporary folder handed to it). The
general rule: check ``os.access(output_dir, os.W_OK)`` before training, and fix
ownership (``chown``) or pick another folder instead of running as root.

CPU only, no downloads (launcher: python).
"""

import os
import sys
import tempfile
import traceback

import torch
from torch import nn

NOBODY = 65534


def save_checkpoint(output_dir: str, step: int) -> None:
    model = nn.Linear(16, 4)
    ckpt_dir = os.path.join(output_dir, f"checkpoint-{step}")
    os.makedirs(ckpt_dir, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(ckpt_dir, "pytorch_model.bin"))
    print("saved", ckpt_dir, flush=True)


def load_lazy_imports() -> None:
    """Save once to a file while still root: torch imports parts of its serializer on
    first use, and the unprivileged child may not be able to read the environment's
    folder (a virtual environment under a private 0700 temporary folder)."""
    with tempfile.TemporaryDirectory() as own:
        torch.save(nn.Linear(16, 4).state_dict(), os.path.join(own, "warm.bin"))


def run_as_other_user(output_dir: str) -> int:
    if os.geteuid() != 0:
        save_checkpoint(output_dir, 500)
        return 0
    os.chown(output_dir, NOBODY, NOBODY)  # FIX: the folder belongs to the user who trains
    load_lazy_imports()
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            assert os.access(output_dir, os.W_OK), output_dir
            save_checkpoint(output_dir, 500)
            code = 0
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def main() -> int:
    # /tmp (mode 1777) can be entered by every user; a private TMPDIR (0700) could not
    base = "/tmp" if os.path.isdir("/tmp") and os.stat("/tmp").st_mode & 0o1777 == 0o1777 else None
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        os.chmod(tmp, 0o755)  # a shared base folder (like /data or /workspace) everyone can enter
        output_dir = os.path.join(tmp, "saves", "qwen2-lora-sft")
        os.makedirs(output_dir, mode=0o755)
        return run_as_other_user(output_dir)


if __name__ == "__main__":
    sys.exit(main())
