"""Fixed: record which optimizer wrote the state, and only load it into the
same optimizer class (otherwise start the optimizer fresh).

Same two runs as repro.py (SGD first, AdamW on resume). The checkpoint now
stores the optimizer's class name; the resume code loads the optimizer state
only when the class matches and otherwise keeps the model weights and starts
the new optimizer from scratch, which is what a change of optimizer means.

CPU only, no downloads (launcher: python).
"""

import os
import sys
import tempfile

import torch
from torch import nn


def save(path: str, model: nn.Module, optimizer: torch.optim.Optimizer, epoch: int) -> None:
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "optimizer_class": type(optimizer).__name__,
            "epoch": epoch,
        },
        path,
    )


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "last.pt")
        first = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        model(torch.randn(8, 16)).pow(2).mean().backward()
        first.step()
        save(path, model, first, epoch=1)

        ckpt = torch.load(path, map_location="cpu", weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        if ckpt.get("optimizer_class") == type(optimizer).__name__:
            optimizer.load_state_dict(ckpt["optimizer"])
        else:
            print(f"optimizer changed ({ckpt.get('optimizer_class')} -> {type(optimizer).__name__}): "
                  "starting its state fresh", flush=True)
        model.zero_grad()
        model(torch.randn(8, 16)).pow(2).mean().backward()
        optimizer.step()
        print("ok: resumed at epoch", ckpt["epoch"], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
