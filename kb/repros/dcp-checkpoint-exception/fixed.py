"""Fixed: resume only from a checkpoint whose save completed.

Same program as repro.py. DCP writes ``.metadata`` last, after every rank's
data files, so its presence marks a complete checkpoint; the resume script
skips folders without it (and says so) instead of handing them to DCP.
"""

import os
import sys
import tempfile

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_model_state_dict


def main() -> int:
    out_dir = tempfile.mkdtemp(prefix="run_")
    model = torch.nn.Linear(8, 8)
    dcp.save({"model": get_model_state_dict(model)}, checkpoint_id=os.path.join(out_dir, "step_100"))
    os.makedirs(os.path.join(out_dir, "step_200"))  # the save of step 200 never finished
    print("checkpoints:", sorted(os.listdir(out_dir)), flush=True)

    complete = [d for d in os.listdir(out_dir) if os.path.exists(os.path.join(out_dir, d, ".metadata"))]  # FIX
    print("complete:", sorted(complete))
    latest = max(complete, key=lambda d: int(d.split("_")[1]))
    state = {"model": get_model_state_dict(model)}
    dcp.load(state, checkpoint_id=os.path.join(out_dir, latest))
    print("resumed from", latest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
