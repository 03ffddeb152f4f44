"""Fixed: pick the device the running build and machine actually have.

``torch.backends.mps.is_available()`` is False on every build without MPS
(and on a Mac whose macOS is too old), so the script falls back to CUDA or
the CPU instead of failing; the same check guards a ``--device mps`` flag.

CPU only, one process (launcher: python).
"""

import torch


def pick_device(requested: str = "mps") -> torch.device:
    if requested == "mps" and torch.backends.mps.is_available():
        return torch.device("mps")
    if torch.cuda.is_available():
        return torch.device("cuda")
    print(f"{requested!r} is not available in this build (mps built: {torch.backends.mps.is_built()}); using the CPU")
    return torch.device("cpu")


device = pick_device("mps")
model = torch.nn.Linear(4, 2).to(device)
print(device, model(torch.randn(3, 4, device=device)).shape)
