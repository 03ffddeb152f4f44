"""Reproduce: "RuntimeError: Missing key in checkpoint state_dict: model.layer.weight."
(inside "CheckpointException ranks:dict_keys([0])").

The training run saved a distributed checkpoint (torch.distributed.checkpoint,
DCP) from a ``torch.compile``d model with ``model.state_dict()``, so every key
carries the wrapper prefix ``_orig_mod.``. The evaluation script builds the
plain model and asks DCP to fill ``model.state_dict()`` in place: DCP loads
by fully qualified name, finds no ``layer.weight`` in the checkpoint's
metadata and refuses. DDP's ``module.``, FSDP1's ``_fsdp_wrapped_module.``
and a changed model fail the same way.

CPU only, one process (DCP runs without a process group), launcher: python.
"""

import sys
import tempfile

import torch
import torch.distributed.checkpoint as dcp


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.layer(x)))


def main() -> int:
    ckpt_dir = tempfile.mkdtemp(prefix="step_100_")
    trained = torch.compile(Net(), backend="eager")
    dcp.save({"model": trained.state_dict()}, checkpoint_id=ckpt_dir)  # BUG: keys are "_orig_mod.layer.weight", ...
    print("saved", ckpt_dir, flush=True)

    fresh = Net()
    state = {"model": fresh.state_dict()}  # asks for "layer.weight", ...
    dcp.load(state, checkpoint_id=ckpt_dir)
    fresh.load_state_dict(state["model"])
    print("loaded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
