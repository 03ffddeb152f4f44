"""Fixed: check free space before saving, rotate old checkpoints, and write
atomically to a volume that has room.

Instead of /dev/full (a volume with no space), checkpoints go to a directory
on a filesystem that has room; before each save the script compares the free
space with the size of the previous checkpoint (x2 for the temporary file),
deletes the oldest checkpoints beyond ``KEEP`` (what ``save_total_limit`` does
in the HF Trainer), and renames the finished file into place.

CPU only, no downloads (launcher: python).
"""

import glob
import os
import shutil
import sys
import tempfile

import torch
from torch import nn

KEEP = 2


def save_checkpoint(state: dict, ckpt_dir: str, step: int) -> str:
    old = sorted(glob.glob(os.path.join(ckpt_dir, "step-*.pt")), key=os.path.getmtime)
    for path in old[: max(0, len(old) - (KEEP - 1))]:
        os.remove(path)  # rotate: keep KEEP - 1 old ones plus the new one
    need = 2 * (os.path.getsize(old[-1]) if old else 64 << 20)
    free = shutil.disk_usage(ckpt_dir).free
    if free < need:
        raise SystemExit(f"only {free >> 20} MiB free in {ckpt_dir}, need {need >> 20} MiB: not saving")
    final = os.path.join(ckpt_dir, f"step-{step}.pt")
    torch.save(state, final + ".tmp")
    os.replace(final + ".tmp", final)
    return final


def main() -> int:
    model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 8))
    with tempfile.TemporaryDirectory() as ckpt_dir:
        for step in (100, 200, 300):
            save_checkpoint({"model": model.state_dict(), "step": step}, ckpt_dir, step)
        kept = sorted(os.listdir(ckpt_dir))
        assert kept == ["step-200.pt", "step-300.pt"], kept
        print("ok: saved with rotation, kept", kept, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
