"""Fixed: let DeepSpeed gather the partitioned ZeRO-3 weights before saving.

Same training as repro.py. The config turns on
``stage3_gather_16bit_weights_on_model_save`` and the script saves with
``engine.save_16bit_model``, which all-gathers every parameter and writes a
plain, full state dict on rank 0 (with bf16/fp16 training these are the 16-bit
weights; use zero_to_fp32 on a full engine.save_checkpoint for fp32 master
weights). The evaluation script then loads it strictly into a fresh model.

CPU only, one process (launcher: python).
"""

import os
import sys
import tempfile

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29642")
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
    "zero_optimization": {
        "stage": 3,
        "stage3_param_persistence_threshold": 0,
        "stage3_gather_16bit_weights_on_model_save": True,  # the fix, part 1
    },
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
        engine.save_16bit_model(tmp, "model.pt")  # the fix, part 2: gathers, then saves on rank 0
        state = torch.load(os.path.join(tmp, "model.pt"), map_location="cpu", weights_only=True)
        assert all(t.numel() > 0 for t in state.values()), {k: tuple(v.shape) for k, v in state.items()}
        fresh = build()
        fresh.load_state_dict(state)
        print("ok:", {k: tuple(v.shape) for k, v in state.items()}, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
