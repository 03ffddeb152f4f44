"""Reproduce: "CheckpointException ranks:dict_keys([0])" whose (RANK 0) traceback ends in
"AssertionError: metadata is None; global metadata read failed: ... .metadata".

A resume script picks the newest ``step_*`` folder of the output directory
and hands it to ``torch.distributed.checkpoint.load`` (DCP). The newest
folder was created when the last save started, but the job died before the
save finished, so the folder has no ``.metadata`` file. DCP plans the load
on every rank through its coordinator, collects each rank's exception and
raises them together as ``CheckpointException``; the wrapper line says only
which ranks failed, the per-rank traceback under it says why.

CPU only, one process (DCP runs without a process group), launcher: python.
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

    latest = max(os.listdir(out_dir), key=lambda d: int(d.split("_")[1]))  # BUG: newest folder, complete or not
    state = {"model": get_model_state_dict(model)}
    dcp.load(state, checkpoint_id=os.path.join(out_dir, latest))
    print("resumed from", latest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
