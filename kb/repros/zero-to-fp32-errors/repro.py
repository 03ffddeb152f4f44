"""Reproduce: zero_to_fp32 "Expected 1 of '*_optim_states.pt' under ... but found 2
files. Possibly due to an overwrite of an old checkpoint".

A ZeRO-2 run with one process saves its checkpoint into an output directory
that still holds a shard from an earlier run with two processes (same tag,
``global_step10``). zero_to_fp32 (the script DeepSpeed copies next to every
checkpoint, here called through its Python API) reads the data-parallel world
size from the shards and refuses to merge a set whose file count does not match.

CPU only: DeepSpeed's CPU accelerator, one process (launcher: python). The JIT
build of DeepSpeed's CPU shared-memory collective op is skipped (it only speeds
up collectives and takes minutes to compile on a fresh machine).
"""

import os
import shutil
import sys
import tempfile

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29661")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from deepspeed.utils.zero_to_fp32 import get_fp32_state_dict_from_zero_checkpoint  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "zero_optimization": {"stage": 2},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
    engine.backward(engine(torch.randn(2, 32)).pow(2).mean())
    engine.step()
    with tempfile.TemporaryDirectory() as out:
        engine.save_checkpoint(out, tag="global_step10")
        step_dir = os.path.join(out, "global_step10")
        # left over from an earlier 2-GPU run that wrote into the same output_dir
        shutil.copy(
            os.path.join(step_dir, "zero_pp_rank_0_mp_rank_00_optim_states.pt"),
            os.path.join(step_dir, "zero_pp_rank_1_mp_rank_00_optim_states.pt"),
        )
        state = get_fp32_state_dict_from_zero_checkpoint(out)  # what zero_to_fp32.py runs
        print("converted", len(state), "tensors", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
