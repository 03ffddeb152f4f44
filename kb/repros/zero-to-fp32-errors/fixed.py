"""Fixed: save each run's checkpoints into a clean directory, then convert.

Same ZeRO-2 run as repro.py. The output directory is emptied of stale
``global_step*`` folders before saving (or a fresh directory per run is
used), so the shard count matches the world size recorded in the shards and
get_fp32_state_dict_from_zero_checkpoint (zero_to_fp32.py) returns a full fp32
state dict that loads strictly into a fresh model.

CPU only, one process (launcher: python).
"""

import glob
import os
import shutil
import sys
import tempfile

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29662")
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


def build() -> nn.Module:
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))


def main() -> int:
    torch.manual_seed(0)
    model = build()
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
    engine.backward(engine(torch.randn(2, 32)).pow(2).mean())
    engine.step()
    with tempfile.TemporaryDirectory() as out:
        os.makedirs(os.path.join(out, "global_step10"))  # a stale folder from an earlier run
        for stale in glob.glob(os.path.join(out, "global_step*")):
            shutil.rmtree(stale)  # the fix: start from a clean output directory
        engine.save_checkpoint(out, tag="global_step10")
        state = get_fp32_state_dict_from_zero_checkpoint(out)
        fresh = build()
        fresh.load_state_dict(state)
        print("ok: converted", len(state), "fp32 tensors and loaded them", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
