"""Fixed: save and load through the DCP state-dict helpers.

Same program as repro.py. ``get_model_state_dict`` returns the keys of the
underlying module (it strips ``_orig_mod.``, DDP's ``module.`` and the FSDP
wrapper names), and ``set_model_state_dict`` applies a loaded dict the same
way, so the names in the checkpoint match whichever way the model is
wrapped when it is loaded.
"""

import sys
import tempfile

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_model_state_dict, set_model_state_dict


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
    dcp.save({"model": get_model_state_dict(trained)}, checkpoint_id=ckpt_dir)  # FIX: wrapper-free names
    print("saved", ckpt_dir, flush=True)

    fresh = Net()
    state = {"model": get_model_state_dict(fresh)}
    dcp.load(state, checkpoint_id=ckpt_dir)
    set_model_state_dict(fresh, state["model"])
    ok = torch.equal(fresh.layer.weight, trained._orig_mod.layer.weight)
    print("loaded, weights equal:", ok)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
