"""Reproduce: a checkpoint saved from a DeepSpeed ZeRO-3 model holds tensors of
shape [0], and loading it fails with "size mismatch for ...: copying a param
with shape torch.Size([0]) from checkpoint".

Under ZeRO stage 3 every parameter is partitioned across the ranks; outside
of forward/backward the module's ``param.data`` is an empty placeholder and
the real values live in ``param.ds_tensor`` shards. The training script saves
``engine.module.state_dict()`` with plain torch.save, which writes the empty
placeholders; the evaluation script loads that file into a freshly built
model.

CPU only: DeepSpeed's CPU accelerator with the torch CPU process group, one
process (launcher: python); ``stage3_param_persistence_threshold: 0`` makes
the tiny model's parameters partitioned like a large model's. The JIT build of
DeepSpeed's CPU shared-memory collective op is skipped (it only speeds up
collectives and takes minutes to compile on a fresh machine).
"""

import os
import sys
import tempfile

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29641")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}


def build() -> nn.Module:
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))


def main() -> int:
    torch.manual_seed(0)
    model = build()
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
    loss = engine(torch.randn(2, 32)).pow(2).mean()
    engine.backward(loss)
    engine.step()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pt")
        torch.save(engine.module.state_dict(), path)  # BUG: ZeRO-3 placeholders of shape [0]

        fresh = build()  # the evaluation script
        fresh.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        print("loaded", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
