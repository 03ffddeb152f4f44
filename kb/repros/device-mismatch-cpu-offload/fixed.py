"""Fixed: hand unscale_and_clip_grads a host number instead of a GPU tensor.

Same program as repro.py. The real fix is to run a DeepSpeed release without
the bug (0.14.0, or 0.14.3 and later); a verifier cannot change the installed
version, so this script applies the in-process workaround from the article:
wrap ``DeepSpeedZeroOptimizer_Stage3.unscale_and_clip_grads`` so the global
norm is turned into a Python float first, which is what the unaffected
releases pass. On a release that already passes a float, or keeps the norm on
the CPU, the wrapper changes nothing.

Requires: 1 CUDA GPU, deepspeed (launcher: python).
"""

import os
import socket
import sys

import torch
from torch import nn


def single_process_env() -> None:
    """Let deepspeed.initialize() set up a one-rank process group without a launcher."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for key, value in {
        "RANK": "0",
        "LOCAL_RANK": "0",
        "WORLD_SIZE": "1",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
    }.items():
        os.environ.setdefault(key, value)


def patch_zero3_clipping() -> None:
    """Workaround for DeepSpeed 0.14.1/0.14.2: clip with a host-side norm."""
    from deepspeed.runtime.zero.stage3 import DeepSpeedZeroOptimizer_Stage3

    original = DeepSpeedZeroOptimizer_Stage3.unscale_and_clip_grads

    def unscale_and_clip_grads(self, sub_group_id, total_norm):
        if torch.is_tensor(total_norm):
            total_norm = total_norm.item()
        return original(self, sub_group_id, total_norm)

    DeepSpeedZeroOptimizer_Stage3.unscale_and_clip_grads = unscale_and_clip_grads


DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 8,
    "gradient_accumulation_steps": 1,
    "gradient_clipping": 1.0,
    "bf16": {"enabled": True},
    "zero_optimization": {
        "stage": 3,
        "offload_optimizer": {"device": "cpu", "pin_memory": True},
        "offload_param": {"device": "cpu", "pin_memory": True},
        "stage3_param_persistence_threshold": 0,
    },
    "zero_force_ds_cpu_optimizer": False,
    "steps_per_print": 1000,
}


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    single_process_env()
    import deepspeed

    patch_zero3_clipping()

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 32))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=DS_CONFIG)

    x = torch.randn(8, 32, device=engine.device, dtype=torch.bfloat16)
    target = 100.0 * torch.randn(8, 32, device=engine.device, dtype=torch.bfloat16)
    for step in range(2):
        loss = nn.functional.mse_loss(engine(x).float(), target.float())
        engine.backward(loss)
        engine.step()
        print(f"ok: step {step} loss={loss.item():.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
