"""Reproduce: "PermissionError: [Errno 13] Permission denied" when a training
run creates its checkpoint folder in an output directory it does not own.

The common story: the output or cache folder was created by another user --
root inside a Docker container, a colleague, an earlier job run with sudo --
and the training process runs as someone else. A checkpoint save creates
``output_dir/checkpoint-N`` with ``os.makedirs`` and then writes into it;
the first step already fails with EACCES.

Here the output folder belongs to one user with mode 0755 and the save runs as
another: as root this script forks a child that switches to the unprivileged
``nobody`` (uid 65534) after torch is imported; as an ordinary user it makes the
folder read-only (0555) instead (root ignores modes, so that alone would not
fail). CPU only, no downloads (launcher: python).
"""

import os
import sys
import tempfile
import traceback

import torch
from torch import nn

NOBODY = 65534


def save_checkpoint(output_dir: str, step: int) -> None:
    """What a trainer's checkpoint save does: create the folder, then write."""
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
        os.chmod(output_dir, 0o555)  # BUG: the run cannot write into its output folder
        try:
            save_checkpoint(output_dir, 500)
        finally:
            os.chmod(output_dir, 0o755)
        return 0
    load_lazy_imports()
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)  # BUG: the run is another user than the folder's owner (root, 0755)
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
