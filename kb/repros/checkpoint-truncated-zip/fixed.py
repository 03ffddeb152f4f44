"""Fixed: write checkpoints atomically and resume from the newest one that loads.

Same scenario as repro.py: the job is killed while writing the step-200
checkpoint. Here the checkpoint is written to a temporary name and renamed with
os.replace only once torch.save has returned, so an interrupted save leaves a
partial ``*.tmp`` file and the previous ``last.pt`` intact. The resume code also
skips files that do not load and falls back to the previous one.

CPU only, no downloads (launcher: python).
"""

import glob
import os
import sys
import tempfile

import torch
from torch import nn


def atomic_save(obj: dict, path: str, *, interrupted: bool = False) -> None:
    tmp_path = path + ".tmp"
    torch.save(obj, tmp_path)
    if interrupted:  # the kill arrives before the rename: only the temp file is damaged
        with open(tmp_path, "r+b") as f:
            f.truncate(os.path.getsize(tmp_path) // 2)
        return
    os.replace(tmp_path, path)  # atomic on POSIX filesystems


def load_latest(ckpt_dir: str) -> dict:
    for path in sorted(glob.glob(os.path.join(ckpt_dir, "*.pt")), key=os.path.getmtime, reverse=True):
        try:
            return torch.load(path, map_location="cpu", weights_only=True)
        except (RuntimeError, OSError, EOFError) as exc:
            print(f"skipping unreadable checkpoint {os.path.basename(path)}: {exc}", flush=True)
    raise FileNotFoundError("no readable checkpoint")


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 8))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "last.pt")
        atomic_save({"model": model.state_dict(), "step": 100}, path)
        atomic_save({"model": model.state_dict(), "step": 200}, path, interrupted=True)

        ckpt = load_latest(tmp)
        model.load_state_dict(ckpt["model"])
        assert ckpt["step"] == 100
        print("ok: resumed from the intact step-100 checkpoint", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
